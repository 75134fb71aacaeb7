// CHOMP! at the table: the scoreboard (a tablet), the round's cards tapped per seat (a
// phone), the verdict with its round picture, and the past rounds' pictures. A phone may
// be a seat ("This is me", a seat claim held by the page's cookie): it then shows its own
// card large, a full-width Slap on the demo, a buzz at the reveal, and how each of its
// presses was judged. Loaded before app.js, whose helpers ($, el, act, claimSeat, ui) it
// uses once the page has started.
"use strict";

const LIVE = window.LIVE || (window.LIVE = {});
const chomp = { state: null, picks: [], phase: null, sent: "" };
const SEAT_KEY = "companion.chomp.seat"; // the seat this phone chose, for reclaim()

LIVE.chomp = {
  title: "CHOMP!",
  draw(state) { chomp.state = state; drawChomp(); },
  init() {
    // CHOMP!'s style sheet, linked only where there is a CHOMP! table, once the page's own
    // files are in: it then rides a connection already open (a browser opens up to six
    // for the files of a page at once, and the server caps the connections per address).
    document.head.append(el("link", { rel: "stylesheet", href: "/static/chomp.css" }));
    $("chomp-start").addEventListener("click", () => act("chomp", { type: "start" }));
    $("chomp-new").addEventListener("click", () => newGame("chomp"));
    $("chomp-undo").addEventListener("click", () => { chomp.picks.pop(); drawEntry(); });
    $("chomp-confirm").addEventListener("click", confirmCards);
    $("chomp-rounds").addEventListener("change", (e) => showPast(e.target.value));
    $("chomp-slap").addEventListener("click", slapMine);
    $("chomp-leave").addEventListener("click", () => LIVE.chomp.claim(null));
    $("chomp-camera-look").addEventListener("click", lookThroughCamera);
  },
  // This phone is `seat` (null: no seat): the one path to a seat, remembered on the phone.
  claim(seat) {
    return claimSeat("chomp", seat).then((snap) => {
      if (snap) {
        if (seat) localStorage.setItem(SEAT_KEY, seat); else localStorage.removeItem(SEAT_KEY);
        chomp.sent = "";
        drawChomp();
      }
      return snap;
    });
  },
  // After the server lost its claims (a restart): asks the server which seat this page
  // holds, and claims the remembered one again if it holds none (a seat another page took
  // meanwhile is refused with one line). Resolves to the snapshot, or null.
  async reclaim() {
    const seat = localStorage.getItem(SEAT_KEY);
    if (!seat) return null;
    const me = await (await fetch("/api/me")).json();
    ui.seats = me.seats || {};
    if (ui.seats.chomp) { drawChomp(); return null; }
    return LIVE.chomp.claim(seat);
  },
};

const mySeat = () => ui.seats.chomp || null;
const creature = (name) => name.replace("_", " ");
const shownOf = (s, seat) => (s.shown[seat] || []).map(creature).join(" + ");

// The seats in order, each as many times as the cards it shows: one tap fills one place.
// A seat the camera read is not asked again: its cards are kept (cameraRead).
const cameraRead = (state) => (state.camera && state.camera.read) || {};
function places(state) {
  const out = [];
  const read = cameraRead(state);
  for (const p of state.players) {
    if (read[p.name]) continue;
    for (let i = 0; i < (state.hand_sizes[p.name] || 0); i++) out.push(p.name);
  }
  return out;
}

// The last verdict's winner, while no new round is under way: the only seat shown winning.
function winning(s) {
  const playing = s.phase === "countdown" || s.phase === "revealed";
  return s.verdict && !playing ? s.verdict.winner : null;
}

function drawChomp() {
  const s = chomp.state;
  if (!s) return;
  const mine = mySeat();
  const claimed = ui.claimed.chomp || [];
  const winner = winning(s);
  const board = $("chomp-board");
  board.replaceChildren();
  for (const p of s.players) {
    const won = p.name === winner;
    const card = el("div", { class: `seat${p.out ? " out" : ""}${won ? " wins" : ""}${p.name === mine ? " me" : ""}`, "data-seat": p.name });
    card.append(el("span", { class: `led${p.led > 0 ? " on" : ""}`, "aria-hidden": "true" }));
    card.append(el("b", {}, p.name + (p.bot ? " (bot)" : "")));
    if (p.name === mine) card.append(el("small", { class: "mine" }, "this phone"));
    card.append(el("span", { class: "count", "aria-label": `${p.count} cards` }, String(p.count)));
    card.append(el("small", {}, p.out ? "out" : p.stuck ? "button held" : "cards"));
    const shown = shownOf(s, p.name);
    card.append(el("span", { class: "shown", "data-shown": p.name }, shown ? `shows ${shown}` : "no card up"));
    card.append(el("small", { class: "lamp" }, p.led > 0 ? "LED on" : "LED off"));
    if (won) card.append(el("strong", { class: "won" }, "wins"));
    if (ui.canChange && !mine && !p.bot && !claimed.includes(p.name)) {
      const me = el("button", { type: "button", class: "this-is-me", "data-me": p.name }, "This is me");
      me.addEventListener("click", () => LIVE.chomp.claim(p.name));
      card.append(me);
    }
    board.append(card);
  }
  $("chomp-status").textContent = s.over
    ? (s.winner ? `Game over: ${s.winner} wins.` : "Game over: a draw.")
    : `${s.round_label} · ${s.phase}${s.waiting_for_cards ? (s.camera && s.camera.reading ? " · the camera is reading the cards" : " · waiting for the cards") : ""} · pot ${s.pot} · ${s.mode.replace("_", " ")}`;
  $("chomp-status").classList.toggle("over", s.over);
  $("chomp-start").disabled = s.over || s.phase !== "ready";
  $("chomp-new").hidden = !ui.canChange;
  $("chomp-new").disabled = !(s.over || s.phase === "ready");
  drawMe(s, mine);
  drawEntry();
  drawVerdict(s);
  const list = $("chomp-rounds");
  const keep = list.value;
  list.replaceChildren(el("option", { value: "" }, "a past round's picture…"));
  for (const r of s.rounds) list.append(el("option", { value: r.n }, `Round ${r.n}: ${r.headline}`));
  list.value = keep;
  $("chomp-messages").textContent = s.messages.join("\n");
  drawCamera(s);
  chomp.phase = s.phase;
}

// This phone's seat: its card large, the Slap (the demo), the buzz at the reveal, and the
// feedback on its presses in the last round.
function drawMe(s, mine) {
  const box = $("chomp-me");
  box.hidden = !mine;
  if (!mine) return;
  $("chomp-me-name").textContent = mine;
  const shown = shownOf(s, mine);
  $("chomp-my-card").textContent = shown || (s.phase === "countdown" ? "get ready…" : "no card up");
  $("chomp-my-card").classList.toggle("up", Boolean(shown));
  // The buzz when the cards go up (not when a page opens on a round already revealed).
  const revealed = s.phase === "revealed" && chomp.phase !== null && chomp.phase !== "revealed";
  if (revealed && navigator.vibrate) navigator.vibrate(200);
  const me = s.players.find((p) => p.name === mine);
  const slap = $("chomp-slap");
  slap.hidden = !s.simulated;
  slap.disabled = !me || me.out || s.over;
  $("chomp-slap-note").textContent = s.simulated
    ? "Your Slap is stamped when the table receives it: as good as the Wi-Fi, no better."
    : "At this table the buttons slap; this phone shows.";
  const fb = $("chomp-feedback");
  fb.replaceChildren();
  if (s.phase === "countdown" || s.phase === "revealed") {
    if (chomp.sent) fb.append(el("p", {}, chomp.sent));
    return;
  }
  if (!s.verdict) return;
  const presses = s.verdict.presses.filter((p) => p.player === mine);
  if (!presses.length) fb.append(el("p", {}, `Round ${s.verdict.n}: no press from you.`));
  for (const p of presses) {
    const word = p.word.replace(" ", "-");
    fb.append(el("p", { class: `press ${word}`, "data-word": p.word }, `Round ${s.verdict.n}: ${p.text}`));
  }
}

function slapMine() {
  const mine = mySeat();
  if (!mine) return;
  chomp.sent = "Slap sent…";
  act("chomp", { type: "slap", player: mine }).then((snap) => {
    chomp.sent = snap ? "Slap received: its verdict follows." : "";
    drawChomp();
  });
}

function drawVerdict(s) {
  const v = $("chomp-verdict");
  v.replaceChildren();
  if (!s.verdict) return;
  const [head, ...rest] = s.verdict.lines;
  v.append(el("p", { class: "total" }, head));
  const list = el("ul", { class: "lines" });
  for (const line of rest) list.append(el("li", {}, line));
  if (rest.length) v.append(list);
  const pic = el("div", { class: "picture", id: "chomp-picture" });
  pic.innerHTML = s.verdict.svg; // drawn by the Pi (referee/picture.py); names are escaped there
  v.append(pic);
  if (s.verdict.frame) v.append(evidence(s.verdict.n, s.verdict.frame));
}

// The camera's frame that gave a round's cards, the markers outlined: a dispute is settled
// by looking. Everyone at the table saw the cards, so every page may show it.
function evidence(n, file) {
  const fig = el("figure", { class: "evidence", id: `chomp-frame-${n}` });
  fig.append(el("img", { class: "picture", src: `/api/tables/chomp/files/${file}`,
    alt: `Round ${n}: the camera's picture of the cards, each sticker outlined` }));
  fig.append(el("figcaption", {}, `Round ${n} as the camera saw it`));
  return fig;
}

function drawEntry() {
  const s = chomp.state;
  const box = $("chomp-entry");
  const reading = Boolean(s.camera && s.camera.reading); // the camera first, then people
  box.hidden = !(s.waiting_for_cards && !s.deals_cards && !reading);
  if (box.hidden) { chomp.picks = []; return; }
  const seats = places(s);
  chomp.picks = chomp.picks.slice(0, seats.length);
  const next = seats[chomp.picks.length];
  $("chomp-next").textContent = next ? `${next}'s card: tap the creature` : "All cards in: confirm";
  const row = $("chomp-creatures");
  if (!row.childElementCount) {
    for (const c of s.creatures) {
      const b = el("button", { type: "button", "data-creature": c }, creature(c));
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
  for (const [seat, cards] of Object.entries(cameraRead(s))) {
    picked.append(el("li", { class: "camera" }, `${seat}: ${cards.map(creature).join(" + ")} (read by the camera)`));
  }
  seats.forEach((seat, i) => picked.append(el("li", { class: i === chomp.picks.length ? "next" : "" }, `${seat}: ${chomp.picks[i] ? creature(chomp.picks[i]) : "…"}`)));
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
  const past = (chomp.state && chomp.state.rounds || []).find((r) => String(r.n) === String(n));
  const box = $("chomp-past-frame");
  box.replaceChildren();
  if (past && past.frame) box.append(evidence(past.n, past.frame));
}

// The camera's setup view, for whoever may change the table: between rounds, what the
// camera sees with the seats' zones drawn (fetched when asked, never streamed).
function drawCamera(s) {
  const box = $("chomp-camera");
  const on = Boolean(s.camera && s.camera.on && ui.canChange);
  box.hidden = !on;
  if (!on) return;
  const between = s.phase === "ready" || s.over;
  $("chomp-camera-look").disabled = !between || Boolean(s.camera.failed);
  $("chomp-camera-note").textContent = s.camera.failed
    ? s.camera.failed
    : between ? "" : "The camera's picture is shown between rounds.";
}

async function lookThroughCamera() {
  const img = $("chomp-camera-view");
  const note = $("chomp-camera-note");
  const answer = await fetch(`/api/tables/chomp/files/preview.jpg?at=${Date.now()}`);
  if (!answer.ok) {
    const line = (await answer.text().catch(() => "")).trim();
    note.textContent = line || `the camera's picture could not be had (${answer.status})`;
    img.hidden = true;
    return;
  }
  if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
  img.src = URL.createObjectURL(await answer.blob());
  img.hidden = false;
  note.textContent = "";
}
