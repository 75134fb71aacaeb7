// Get Bit!: the line of robots with their limbs drawn (the shark at the back), each
// robot's hand, the round's cards tapped in, or chosen secretly on each player's phone.
"use strict";

const getbit = { state: null, picks: {} };

(window.LIVE || (window.LIVE = {})).getbit = {
  title: "Get Bit!",
  draw(state) { getbit.state = state; drawGetBit(); },
  init() {
    $("getbit-play").addEventListener("click", () => {
      act("getbit", { type: "play", cards: getbit.picks }).then((snap) => { if (snap) getbit.picks = {}; drawGetBit(); });
    });
    $("getbit-clear").addEventListener("click", () => { getbit.picks = {}; drawGetBit(); });
    $("getbit-undo").addEventListener("click", () => confirmUndo("getbit", { type: "undo" }, "the last round"));
    $("getbit-new").addEventListener("click", () => newGame("getbit"));
    // Who holds this phone: a seat claimed on the Pi (app.js), only this page chooses for it.
    $("getbit-me").addEventListener("change", (e) => claimSeat("getbit", e.target.value || null).then(() => drawGetBit()));
  },
};

// One robot: a head and a body, and up to four limbs (a half limb is drawn half long).
function robotSvg(r, bitten) {
  const svg = el("svg:svg", { viewBox: "0 0 60 80", width: 60, height: 80, class: `robot${r.out ? " out" : ""}${bitten ? " bitten" : ""}`, "data-robot": r.robot });
  const ink = r.out ? "#aaa" : bitten ? "#c62828" : "#335";
  const limbs = [[22, 34, 8, 46], [38, 34, 52, 46], [25, 56, 20, 76], [35, 56, 40, 76]];
  let left = r.limbs * 2; // in halves
  limbs.forEach(([x1, y1, x2, y2]) => {
    const part = Math.min(2, Math.max(0, left)) / 2;
    left -= 2;
    if (part > 0) svg.append(el("svg:line", { x1, y1, x2: x1 + (x2 - x1) * part, y2: y1 + (y2 - y1) * part, stroke: ink, "stroke-width": 5, "stroke-linecap": "round", class: "limb" }));
  });
  svg.append(el("svg:rect", { x: 20, y: 30, width: 20, height: 28, rx: 4, fill: r.out ? "#eee" : "#cfe0ff", stroke: ink, "stroke-width": 2 }));
  svg.append(el("svg:rect", { x: 21, y: 10, width: 18, height: 17, rx: 3, fill: r.out ? "#eee" : "#e8f0ff", stroke: ink, "stroke-width": 2 }));
  svg.append(el("svg:circle", { cx: 26, cy: 18, r: 2, fill: ink }), el("svg:circle", { cx: 34, cy: 18, r: 2, fill: ink }));
  return svg;
}

function drawGetBit() {
  const s = getbit.state;
  const byName = Object.fromEntries(s.robots.map((r) => [r.robot, r]));
  const bitten = s.last ? s.last.bitten : null;
  $("getbit-status").textContent = s.over ? `Game over: ${s.winner} wins.` : `Round ${s.round} · cards 1-${s.hand_size}${s.memory ? " · memory game" : ""}`;
  // As the terminal draws it: "front ▸ a · b · c ◂ shark", the out robots after.
  const line = $("getbit-line");
  line.replaceChildren(el("div", { class: "end front", title: "the front of the line" }, "front ▸"));
  const botBox = (name) => {
    const r = byName[name];
    const box = el("div", { class: `bot${r.out ? " out" : ""}`, "data-bot": name });
    box.append(robotSvg(r, name === bitten));
    box.append(el("b", {}, name), el("small", {}, `${r.player} · ${r.limbs} limb${r.limbs === 1 ? "" : "s"}${r.out ? " · out" : ""}`));
    box.append(el("small", { class: "hand" }, r.hand ? `hand ${r.hand.join(" ")}` : `${r.cards_left} cards`));
    if (name === bitten) box.append(el("span", { class: "bit" }, "bitten ✗")); // not by red alone
    if (r.chosen) box.append(el("small", { class: "chosen" }, "chosen ✓"));
    return box;
  };
  const robots = el("div", { class: "robots" });
  for (const name of s.line) robots.append(botBox(name));
  line.append(robots, el("div", { class: "end shark", title: "the shark, at the back of the line" }, "◂ shark"));
  const outs = s.robots.filter((r) => r.out).map((r) => r.robot);
  const gone = $("getbit-out");
  gone.replaceChildren();
  if (outs.length) gone.append(el("p", { class: "outs" }, "out of the game:"), ...outs.map(botBox));
  const last = $("getbit-last");
  last.replaceChildren();
  if (s.last) {
    for (const text of s.last.lines) last.append(el("p", {}, text.trim()));
    if (s.last.picked_up.length) last.append(el("p", { class: "hint" }, `picked up their cards: ${s.last.picked_up.join(", ")}`));
  }
  $("getbit-undo").disabled = !s.undo;
  $("getbit-new").hidden = !ui.canChange;
  $("getbit-messages").textContent = s.messages.join("\n");
  drawGetBitEntry(s, byName);
}

function cardButtons(robot, r, size, picked, onPick) {
  const row = el("div", { class: "cards", "data-cards": robot });
  for (let c = 1; c <= size; c++) {
    const b = el("button", { type: "button", "data-card": c, class: picked === c ? "on" : "" }, String(c));
    b.disabled = Boolean(r.hand && !r.hand.includes(c));
    b.addEventListener("click", () => onPick(c));
    row.append(b);
  }
  return row;
}

function drawGetBitEntry(s, byName) {
  const box = $("getbit-entry");
  box.replaceChildren();
  const open = !s.over && !s.secret;
  $("getbit-open").hidden = !open;
  $("getbit-secret").hidden = s.over || !s.secret;
  if (s.over) return;
  if (s.secret) {
    const pick = $("getbit-me");
    const me = ui.seats.getbit || "";
    const taken = new Set((ui.claimed.getbit || []).filter((p) => p !== me));
    const shown = JSON.stringify([me, [...taken], s.players]);
    if (pick.dataset.shown !== shown) { // redrawn only when it changes: an open list stays open
      pick.dataset.shown = shown;
      pick.replaceChildren(el("option", { value: "" }, me ? "I am nobody (give the seat back)" : "I am…"));
      for (const p of s.players) {
        const option = el("option", { value: p }, taken.has(p) ? `${p} (another phone)` : me === p ? `I am ${p}` : p);
        option.disabled = taken.has(p);
        pick.append(option);
      }
    }
    pick.value = me;
    for (const robot of s.order) {
      const r = byName[robot];
      if (!me || r.player !== me) continue;
      box.append(el("p", {}, r.chosen ? `${robot}: chosen (tap another card to change)` : `${robot}: choose a card, hidden from the others`));
      box.append(cardButtons(robot, r, s.hand_size, null, (c) => act("getbit", { type: "choose", robot, card: c })));
    }
    const waiting = s.order.filter((r) => !byName[r].chosen);
    box.append(el("p", { class: "hint" }, waiting.length ? `Waiting for: ${waiting.join(", ")}. The cards are shown when all have chosen.` : ""));
    return;
  }
  for (const robot of s.order) {
    const r = byName[robot];
    box.append(el("p", {}, `${robot} (${r.player})`));
    box.append(cardButtons(robot, r, s.hand_size, getbit.picks[robot], (c) => { getbit.picks[robot] = c; drawGetBit(); }));
  }
  $("getbit-play").disabled = !s.order.every((r) => getbit.picks[r]);
}
