// The Great Chips Escape: whose turn, the legal discards as buttons, the Mad Fish, and any
// command typed as at the terminal (docs/chips.md); the helper answers each line.
"use strict";

const chips = { state: null };

(window.LIVE || (window.LIVE = {})).chips = {
  title: "Chips",
  draw(state) { chips.state = state; drawChips(); },
  init() {
    $("chips-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const line = $("chips-line").value;
      sendChips(line).then((snap) => { if (snap) $("chips-line").value = ""; });
    });
    $("chips-new").addEventListener("click", () => newGame("chips"));
  },
};

// Undo (a button or typed) asks first, as the terminal does.
function sendChips(line) {
  if (line.trim().toLowerCase() === "undo") return confirmUndo("chips", { type: "command", line }, "the last turn");
  return act("chips", { type: "command", line });
}

function drawChips() {
  const s = chips.state;
  $("chips-prompt").textContent = s.prompt;
  $("chips-top").textContent = s.top === null ? "top: not turned over yet" : `top ${s.top} · deck ${s.deck} · discard pile ${s.discard}`;
  const board = $("chips-board");
  board.replaceChildren();
  for (const p of s.players) {
    const card = el("div", { class: `seat${p.out ? " out" : ""}${p.acts ? " lit" : ""}`, "data-seat": p.name });
    card.append(el("span", { class: `led${p.acts ? " on" : ""}` }), el("b", {}, p.acts ? `▸ ${p.name}` : p.name));
    card.append(el("span", { class: "count" }, String(p.cards)));
    card.append(el("small", {}, p.out ? "out" : `cards${p.new ? ` (${p.new} new)` : ""}`));
    const mad = el("small", { class: "mad", "data-mad": p.name }, `Mad Fish ${p.mad_fish}/${s.mad_fish_to_lose}`);
    if (p.mad_fish >= s.mad_fish_to_lose - 1 && !p.out) { // in words too, not red alone
      mad.classList.add("danger");
      mad.textContent += " ⚠ one more loses";
    }
    card.append(mad, el("small", {}, `${p.down} face down`));
    board.append(card);
  }
  const quick = $("chips-quick");
  quick.replaceChildren();
  // The question the prompt asks (knight / no, done, whose hand): a button per answer.
  for (const a of s.answers || []) quick.append(quickButton(a.line, a.text));
  for (const n of s.legal) quick.append(quickButton(String(n), `discard ${n}`));
  if (s.can_draw) quick.append(quickButton("draw", "draw"));
  if (s.undo) quick.append(quickButton("undo", "undo"));
  const log = $("chips-said");
  log.replaceChildren();
  for (const entry of s.said.slice().reverse()) log.append(el("li", {}, `> ${entry.line}: ${entry.reply}`));
  $("chips-messages").textContent = s.messages.join("\n");
  $("chips-new").hidden = !ui.canChange;
}

function quickButton(line, text) {
  const b = el("button", { type: "button", "data-line": line }, text);
  b.addEventListener("click", () => sendChips(line));
  return b;
}
