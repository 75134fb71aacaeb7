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
    initZones();
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
// A seat's phone does not set the table up: only a page holding no seat sees it.
function drawCamera(s) {
  const box = $("chomp-camera");
  const on = Boolean(s.camera && s.camera.on && ui.canChange && !mySeat());
  box.hidden = !on;
  if (!on) return;
  const between = s.phase === "ready" || s.over;
  $("chomp-camera-look").disabled = !between || Boolean(s.camera.failed);
  $("chomp-camera-note").textContent = s.camera.failed
    ? s.camera.failed
    : between ? "" : "The camera's picture is shown between rounds.";
  drawZoneEditor(s, between);
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

// The seats' zones, dragged over the camera's picture (pointer events: a finger or a
// mouse) or moved with the buttons, then saved as one table action between rounds. The
// server checks them (apart, not flat) and writes the table's config; the page only
// draws. Zones are fractions of the frame (0..1): the picture's size does not matter.
const ZONE_STEP = 0.01; // a button's step: 1% of the frame
const ZONE_LEAST = 0.03; // the smallest side a zone is shrunk to by hand
const GRIP_PX = 56; // the corner square's target, in screen pixels (>= 48)
const zones = { said: "", saved: {}, now: {}, dirty: false, seat: null, drag: null, between: false, units: [1000, 750] };

const copyZones = (z) => Object.fromEntries(Object.entries(z).map(([k, v]) => [k, v.map((p) => [p[0], p[1]])]));
const boxOf = (poly) => {
  const xs = poly.map((p) => p[0]);
  const ys = poly.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
};
const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
const pct = (v) => `${Math.round(v * 100)}%`;

function initZones() {
  const svg = $("chomp-zones");
  svg.addEventListener("pointerdown", zonePointerDown);
  svg.addEventListener("pointermove", zonePointerMove);
  svg.addEventListener("pointerup", zonePointerUp);
  svg.addEventListener("pointercancel", zonePointerUp);
  $("chomp-zone-seat").addEventListener("change", (e) => { zones.seat = e.target.value; drawZones(); });
  for (const button of document.querySelectorAll("#chomp-zone-edit [data-zone]")) {
    button.addEventListener("click", () => nudgeZone(button.dataset.zone));
  }
  $("chomp-zones-save").addEventListener("click", saveZones);
  $("chomp-zones-undo").addEventListener("click", () => {
    zones.now = copyZones(zones.saved);
    zones.dirty = false;
    zones.said = "";
    drawZones();
  });
  // The drawing follows the picture's shape once a picture came (the camera's own size).
  $("chomp-camera-view").addEventListener("load", (e) => {
    const img = e.target;
    if (img.naturalWidth && img.naturalHeight) {
      zones.units = [1000, Math.round((1000 * img.naturalHeight) / img.naturalWidth)];
      $("chomp-zone-frame").style.aspectRatio = `${img.naturalWidth} / ${img.naturalHeight}`;
      drawZones();
    }
  });
}

function drawZoneEditor(s, between) {
  const given = s.camera.zones || {};
  zones.saved = copyZones(given);
  if (!zones.dirty) zones.now = copyZones(given);
  zones.between = between;
  const seats = Object.keys(zones.now);
  if (!seats.includes(zones.seat)) zones.seat = seats[0] || null;
  $("chomp-zone-edit").hidden = !s.camera.saves || !seats.length;
  const pick = $("chomp-zone-seat");
  if ([...pick.options].map((o) => o.value).join() !== seats.join()) {
    pick.replaceChildren(...seats.map((seat) => el("option", { value: seat }, `${seat}'s zone`)));
  }
  drawZones();
}

function drawZones() {
  const svg = $("chomp-zones");
  const [w, h] = zones.units;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.replaceChildren();
  const across = svg.getBoundingClientRect().width || 330;
  const grip = (GRIP_PX * w) / across; // GRIP_PX on the screen, in the drawing's units
  const font = (15 * w) / across;
  const seats = Object.keys(zones.now);
  // The picked zone last, so its corner square is on top where two zones meet.
  for (const seat of [...seats.filter((x) => x !== zones.seat), ...seats.filter((x) => x === zones.seat)]) {
    const poly = zones.now[seat];
    const picked = seat === zones.seat;
    const points = poly.map(([x, y]) => `${(x * w).toFixed(1)},${(y * h).toFixed(1)}`).join(" ");
    svg.append(el("svg:polygon", { points, class: picked ? "zone picked" : "zone", "data-seat": seat, "data-part": "move" }));
    const [x0, y0, x1, y1] = boxOf(poly);
    const side = Math.min(grip, (x1 - x0) * w, (y1 - y0) * h);
    const gx = x1 * w - side;
    const gy = y1 * h - side;
    const mark = side * 0.45;
    svg.append(el("svg:rect", { x: gx + side - mark, y: gy + side - mark, width: mark, height: mark, class: "handle" }));
    svg.append(el("svg:rect", { x: gx, y: gy, width: side, height: side, class: "grip", "data-seat": seat, "data-part": "resize" }));
    // The name at the zone's top-left, clear of the card that lies in its middle.
    svg.append(el("svg:text", { x: x0 * w + font * 0.4, y: y0 * h + font * 1.1, "font-size": font.toFixed(1) },
      picked ? `${seat} (picked)` : seat));
  }
  $("chomp-zone-seat").value = zones.seat || "";
  const poly = zones.seat ? zones.now[zones.seat] : null;
  let where = "";
  if (poly) {
    const [x0, y0, x1, y1] = boxOf(poly);
    where = `${zones.seat}: ${pct(x0)}-${pct(x1)} across, ${pct(y0)}-${pct(y1)} down`;
  }
  if (zones.dirty) where += where ? " · not saved yet" : "not saved yet";
  $("chomp-zone-where").textContent = zones.said || where; // the last save's answer, until a change
  $("chomp-zones-save").disabled = !zones.between || !zones.dirty;
  $("chomp-zones-undo").disabled = !zones.dirty;
}

// Move (dx, dy) or stretch the bottom-right corner by (dx, dy) from the zone as it was
// (its shape kept, scaled from its top-left corner), always inside the frame.
function changed(poly, part, dx, dy) {
  const [x0, y0, x1, y1] = boxOf(poly);
  if (part === "move") {
    const mx = clamp(dx, -x0, 1 - x1);
    const my = clamp(dy, -y0, 1 - y1);
    return poly.map(([x, y]) => [x + mx, y + my]);
  }
  const sx = (clamp(x1 + dx, x0 + ZONE_LEAST, 1) - x0) / (x1 - x0);
  const sy = (clamp(y1 + dy, y0 + ZONE_LEAST, 1) - y0) / (y1 - y0);
  return poly.map(([x, y]) => [x0 + (x - x0) * sx, y0 + (y - y0) * sy]);
}

function fractionAt(event) {
  const box = $("chomp-zones").getBoundingClientRect();
  return [(event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height];
}

function zonePointerDown(event) {
  const seat = event.target.dataset && event.target.dataset.seat;
  if (!seat || !zones.now[seat]) return;
  event.preventDefault();
  $("chomp-zones").setPointerCapture(event.pointerId);
  zones.seat = seat;
  zones.drag = { id: event.pointerId, seat, part: event.target.dataset.part, from: fractionAt(event), poly: zones.now[seat] };
  drawZones();
}

function zonePointerMove(event) {
  const drag = zones.drag;
  if (!drag || drag.id !== event.pointerId) return;
  const [x, y] = fractionAt(event);
  zones.now[drag.seat] = changed(drag.poly, drag.part, x - drag.from[0], y - drag.from[1]);
  zones.dirty = true;
  zones.said = "";
  drawZones();
}

function zonePointerUp(event) {
  if (zones.drag && zones.drag.id === event.pointerId) zones.drag = null;
}

function nudgeZone(how) {
  const seat = zones.seat;
  if (!seat || !zones.now[seat]) return;
  const s = ZONE_STEP;
  const moves = { left: ["move", -s, 0], right: ["move", s, 0], up: ["move", 0, -s], down: ["move", 0, s], wider: ["resize", s, 0], narrower: ["resize", -s, 0], taller: ["resize", 0, s], shorter: ["resize", 0, -s] };
  const [part, dx, dy] = moves[how];
  zones.now[seat] = changed(zones.now[seat], part, dx, dy);
  zones.dirty = true;
  zones.said = "";
  drawZones();
}

async function saveZones() {
  const round4 = (v) => Math.round(v * 10000) / 10000; // 1/10000 of the frame, as the setup keeps
  const sent = Object.fromEntries(Object.entries(zones.now).map(([seat, poly]) => [seat, poly.map(([x, y]) => [round4(x), round4(y)])]));
  const snap = await act("chomp", { type: "zones", zones: sent });
  if (snap) {
    zones.dirty = false;
    zones.now = copyZones(sent);
    zones.said = "Zones saved in the table's config: the camera reads with them from the next round.";
  } else {
    zones.said = `Not saved: ${$("error").textContent || "the table refused them"}`;
  }
  drawZones();
}
