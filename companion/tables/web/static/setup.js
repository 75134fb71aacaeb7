// companion setup --web: the set-up wizard's lines so far and its question, answered on
// the phone that claimed the wizard (the seat "maker"); every other page watches.
// A yes/no question is two buttons, the simulated table's Enter one, anything else a text
// box (sent empty, it is the terminal's Enter). Text goes in with textContent only.
"use strict";

const setup = { state: null, shown: 0, asked: 0 };

(window.LIVE || (window.LIVE = {})).setup = {
  title: "Set-up",
  draw(state) { setup.state = state; drawSetup(); },
  init() {
    $("setup-take").addEventListener("click", () => claimSeat("setup", "maker"));
    $("setup-yes").addEventListener("click", () => answerSetup("y"));
    $("setup-no").addEventListener("click", () => answerSetup("n"));
    $("setup-press").addEventListener("click", () => answerSetup(""));
    $("setup-form").addEventListener("submit", (e) => {
      e.preventDefault();
      answerSetup($("setup-text").value);
    });
    $("setup-done").addEventListener("click", () => {
      act("setup", { type: "done" }).then((snap) => {
        if (snap) $("setup-status").textContent = "Done: the set-up page stops now.";
      });
    });
  },
};

// One answer to the question now asked (its number goes with it: a second tap is refused).
function answerSetup(text) {
  const q = setup.state && setup.state.question;
  if (!q) return;
  for (const b of document.querySelectorAll("#setup-ask button")) b.disabled = true;
  act("setup", { type: "answer", n: q.n, text }).then((snap) => {
    if (snap) $("setup-text").value = "";
    else for (const b of document.querySelectorAll("#setup-ask button")) b.disabled = false;
  });
}

function drawSetup() {
  const s = setup.state;
  const mine = ui.seats.setup === "maker";
  const taken = (ui.claimed.setup || []).includes("maker") && !mine;
  const running = s.phase === "running";
  let status;
  if (!running) status = s.result;
  else if (mine) status = s.question ? "This phone answers the set-up:" : "Working… (or waiting for a press at the table)";
  else if (taken) status = "setup is in progress on another phone: this page can only watch";
  else if (ui.canChange) status = "Nobody answers yet: answer from this phone?";
  else status = "Watching: answering needs the join code (Join, above)";
  $("setup-status").textContent = status;
  $("setup-take").hidden = !(running && ui.canChange && !mine && !taken);
  drawSetupLines(s.lines);
  drawSetupQuestion(s.question, mine && running);
  $("setup-end").hidden = running;
  $("setup-next-box").hidden = !s.next;
  $("setup-next").textContent = s.next || "";
  $("setup-done").hidden = !mine;
}

// The transcript, as the terminal shows it: new lines appended, kept scrolled to the end.
function drawSetupLines(lines) {
  const box = $("setup-lines");
  const first = lines.length ? lines[0].n : 0;
  if (setup.shown && (first > setup.shown + 1 || box.childElementCount > lines.length)) {
    box.replaceChildren(); // a restart, or lines gone past the page's keep: draw them all
    setup.shown = 0;
  }
  for (const line of lines) {
    if (line.n <= setup.shown) continue;
    const refused = line.kind === "say" && /^(refused|setup stopped|no press seen)/.test(line.text);
    box.append(el("p", { class: `line-${line.kind}${refused ? " refused" : ""}` }, line.text));
    setup.shown = line.n;
  }
  box.scrollTop = box.scrollHeight;
}

function drawSetupQuestion(q, answering) {
  $("setup-ask").hidden = !q;
  if (!q) return;
  $("setup-question").textContent = q.kind === "yes"
    ? `${q.text} (the terminal's Enter: ${q.default ? "yes" : "no"})`
    : q.text;
  $("setup-yesno").hidden = !answering || q.kind !== "yes";
  $("setup-press").hidden = !answering || q.kind !== "press";
  $("setup-form").hidden = !answering || q.kind !== "text";
  if (q.n !== setup.asked) { // a new question: the buttons live again, the box empty
    setup.asked = q.n;
    for (const b of document.querySelectorAll("#setup-ask button")) b.disabled = false;
    $("setup-text").value = "";
    if (answering && q.kind === "text") $("setup-text").focus({ preventScroll: true });
  }
}
