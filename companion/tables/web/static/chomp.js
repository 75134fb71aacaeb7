// CHOMP! at the table: the scoreboard (a tablet), the round's cards tapped per seat (a
// phone), the verdict with its round picture, and the past rounds' pictures. Loaded
// before app.js, whose helpers ($, el, act) it uses once the page has started.
"use strict";

const LIVE = window.LIVE || (window.LIVE = {});
const chomp = { state: null, picks: [], shown: null };

LIVE.chomp = {
  title: "CHOMP!",
  draw(state) { chomp.state = state; drawChomp(); },
  init() {
    $("chomp-start").addEventListener("click", () => act("chomp", { type: "start" }));
    $("chomp-undo").addEventListener("click", () => { chomp.picks.pop(); drawEntry(); });
    $("chomp-confirm").addEventListener("click", confirmCards);
    $("chomp-rounds").addEventListener("change", (e) => showPast(e.target.value));
  },
};

// The seats in order, each as many times as the cards it shows: one tap fills one place.
function places(state) {
  const out = [];
  for (const p of state.players) for (let i = 0; i < (state.hand_sizes[p.name] || 0); i++) out.push(p.name);
  return out;
}

function drawChomp() {
  const s = chomp.state;
  const board = $("chomp-board");
  board.replaceChildren();
  for (const p of s.players) {
    const card = el("div", { class: `seat${p.out ? " out" : ""}${p.led > 0 ? " lit" : ""}`, "data-seat": p.name });
    card.append(el("span", { class: `led${p.led > 0 ? " on" : ""}`, title: "LED" }));
    card.append(el("b", {}, p.name + (p.bot ? " (bot)" : "")));
    card.append(el("span", { class: "count" }, String(p.count)));
    card.append(el("small", {}, p.out ? "out" : p.stuck ? "button held" : "cards"));
    if (s.simulated && !p.out) {
      const slap = el("button", { type: "button", class: "slap", "data-slap": p.name }, "Slap");
      slap.addEventListener("click", () => act("chomp", { type: "slap", player: p.name }));
      card.append(slap);
    }
    board.append(card);
  }
  $("chomp-status").textContent = s.over
    ? (s.winner ? `Game over: ${s.winner} wins.` : "Game over: a draw.")
    : `Round ${s.round} · ${s.phase}${s.waiting_for_cards ? " · waiting for the cards" : ""} · pot ${s.pot} · ${s.mode.replace("_", " ")}`;
  $("chomp-status").classList.toggle("over", s.over);
  $("chomp-start").disabled = s.over || s.phase !== "ready";
  drawEntry();
  const v = $("chomp-verdict");
  v.replaceChildren();
  if (s.verdict) {
    v.append(el("p", { class: "total" }, `Round ${s.verdict.n}: ${s.verdict.headline}`));
    const pic = el("div", { class: "picture", id: "chomp-picture" });
    pic.innerHTML = s.verdict.svg; // drawn by the Pi (referee/picture.py); names are escaped there
    v.append(pic);
  }
  const list = $("chomp-rounds");
  const keep = list.value;
  list.replaceChildren(el("option", { value: "" }, "a past round's picture…"));
  for (const r of s.rounds) list.append(el("option", { value: r.n }, `Round ${r.n}: ${r.headline}`));
  list.value = keep;
  $("chomp-messages").textContent = s.messages.join("\n");
}

function drawEntry() {
  const s = chomp.state;
  const box = $("chomp-entry");
  box.hidden = !(s.waiting_for_cards && !s.deals_cards);
  if (box.hidden) { chomp.picks = []; return; }
  const seats = places(s);
  chomp.picks = chomp.picks.slice(0, seats.length);
  const next = seats[chomp.picks.length];
  $("chomp-next").textContent = next ? `${next}'s card: tap the creature` : "All cards in: confirm";
  const row = $("chomp-creatures");
  if (!row.childElementCount) {
    for (const c of s.creatures) {
      const b = el("button", { type: "button", "data-creature": c }, c.replace("_", " "));
      b.addEventListener("click", () => {
        if (chomp.picks.length < places(chomp.state).length) chomp.picks.push(c);
        drawEntry();
      });
      row.append(b);
    }
  }
  for (const b of row.querySelectorAll("button")) b.disabled = !next;
  const picked = $("chomp-picked");
  picked.replaceChildren();
  seats.forEach((seat, i) => picked.append(el("li", { class: i === chomp.picks.length ? "next" : "" }, `${seat}: ${chomp.picks[i] ? chomp.picks[i].replace("_", " ") : "…"}`)));
  $("chomp-confirm").disabled = Boolean(next);
  $("chomp-undo").disabled = !chomp.picks.length;
}

function confirmCards() {
  const cards = {};
  places(chomp.state).forEach((seat, i) => (cards[seat] = cards[seat] || []).push(chomp.picks[i]));
  act("chomp", { type: "cards", cards }).then((snap) => { if (snap) chomp.picks = []; });
}

function showPast(n) {
  const img = $("chomp-past");
  img.hidden = !n;
  if (n) img.src = `/api/tables/chomp/files/round-${n}.svg`;
}
