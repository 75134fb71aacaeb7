// companion at the table: a small hand-written script, no build step, nothing fetched
// from outside this server. Each table's state arrives over Server-Sent Events; every
// change is a POST of one action, answered with the new state or one line naming the field.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const CELL = 56;
const MARGIN = 22;
const TAP = 48; // CSS px: the smallest target a finger hits

const NAMES = {
  sh: "small herb.", mh: "medium herb.", lh: "large herb.",
  sc: "small carn.", mc: "medium carn.", lc: "large carn.",
  sh2: "2 small herb.", sh3: "3 small herb.",
  P: "plants", T: "tar pit", M: "meat", N: "nest", E: "nest + egg", e: "egg icon",
  _: "ground", ".": "erase",
};
const WHY = {
  tar_pit: "extinct: tar pit", meat: "alive: ate meat", ate: "alive: ate herbivores",
  eaten: "extinct: eaten", starved: "extinct: starved", plants: "alive: ate plants",
  no_plants: "extinct: no plants",
};

const ui = { canChange: false, instance: null, games: {}, seats: {}, claimed: {}, token: "lh", tool: "paint", first: null, land: null, photo: null, asking: null };

function colourOf(token) {
  if (token === "?") return "#ffe066";
  if (/^[sml]h/.test(token)) return "#a8d5ff";
  if (/^[sml]c/.test(token)) return "#ffb38a";
  return { P: "#b7e4a1", T: "#4a4a4a", M: "#e8a0a0", N: "#f3e2b3", E: "#f3e2b3", e: "#fff3c4", _: "#e8dcc4" }[token] || "#f2f2f2";
}

function el(tag, attrs = {}, text = "") {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

function showError(text) {
  const box = $("error");
  box.textContent = text || "";
  box.hidden = !text;
}

// ---- asking first: undo, a new game, a new join code ------------------------------

// A small question inside the page (not the browser's dialog): resolves true for Yes.
function ask(question, yes) {
  const box = $("ask");
  $("ask-text").textContent = question;
  $("ask-yes").textContent = yes;
  box.hidden = false;
  $("ask-no").focus();
  return new Promise((resolve) => {
    const done = (answer) => {
      box.hidden = true;
      $("ask-yes").onclick = $("ask-no").onclick = null;
      resolve(answer);
    };
    $("ask-yes").onclick = () => done(true);
    $("ask-no").onclick = () => done(false);
  });
}

// ---- the server ---------------------------------------------------------------------

// Taps are never queued: a tap made while the table cannot be reached is refused on the
// screen at once ("offline: your tap was not sent") and never sent later.
const OFFLINE = "offline: your tap was not sent";

function offline() {
  return stopped || Object.values(streams).some((s) => s.readyState !== EventSource.OPEN);
}

// The tap was not sent: the line at the top and the badge say so (until the table is back).
function markOffline() {
  showError(OFFLINE);
  $("live").textContent = OFFLINE;
  $("live").className = "live off";
  setTimeout(stillOffline, 2000);
}

// After a refused tap: the badge says "live" again once the server answers (and the streams
// are open); taps are not sent again, the person taps again.
async function stillOffline() {
  if (stopped || $("live").textContent !== OFFLINE) return;
  try {
    if (!(await fetch("/api/me", { cache: "no-store" })).ok) throw new Error("not yet");
    setLive();
  } catch (down) {
    setTimeout(stillOffline, 2000);
  }
}

async function post(url, body, type = "application/json") {
  if (offline()) {
    markOffline();
    return null;
  }
  let response, text;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": type },
      body: type === "application/json" ? JSON.stringify(body) : body,
    });
    text = await response.text();
  } catch (failed) { // the network: the tap did not get through (the stream will say more)
    markOffline();
    return null;
  }
  if (!response.ok) {
    showError(text.trim());
    if (response.status === 403 && text.startsWith("code:")) refreshMe(); // a new code since
    return null;
  }
  showError("");
  setLive();
  return JSON.parse(text);
}

function act(table, action) {
  if (!ui.canChange) {
    showError("code: changing the table needs its join code (Join, above)");
    return Promise.resolve(null);
  }
  return post(`/api/tables/${table}/actions`, action).then((snap) => {
    if (snap) draw(snap);
    return snap;
  });
}

// Undo, asked first on every table.
function confirmUndo(table, action, what) {
  return ask(`Undo ${what}?`, "Undo").then((yes) => (yes ? act(table, action) : null));
}

// A new game at a live table, asked first: the same seats, a new journal or save.
function newGame(table) {
  return ask("Start a new game? This game ends here (it stays saved).", "New game")
    .then((yes) => (yes ? act(table, { type: "new_game" }) : null));
}

// A seat at a live table (a player): claimed by this page, held by its cookie, so a reload
// keeps it; seat null gives it back. The server refuses a seat another page holds.
function claimSeat(table, seat) {
  if (!ui.canChange) {
    showError("code: claiming a seat needs the join code (Join, above)");
    return Promise.resolve(null);
  }
  return post(`/api/tables/${table}/seat`, { seat }).then((snap) => {
    if (snap) {
      if (seat) ui.seats[table] = seat; else delete ui.seats[table];
      draw(snap);
      redraw(table); // a newer state the stream drew before the seat was known: again, as the seat's
    }
    return snap;
  });
}

const streams = {};
let stopped = false;
function watch(table) {
  const old = streams[table];
  if (stopped || (old && old.readyState !== EventSource.CLOSED)) return;
  const source = new EventSource(`/api/tables/${table}/events`);
  streams[table] = source;
  source.addEventListener("state", (event) => draw(JSON.parse(event.data)));
  source.addEventListener("stopped", () => {
    stopped = true;
    Object.values(streams).forEach((s) => s.close());
    $("live").textContent = "the table stopped";
    $("live").className = "live off";
    setTimeout(comeBack, 2000);
  });
  source.onopen = () => setLive();
  source.onerror = () => { // the browser gives a stream up when the network is gone: again
    setLive();
    if (source.readyState === EventSource.CLOSED) setTimeout(() => watch(table), 2000);
  };
}

// The table stopped (a restart, a power cut): ask every 2 s whether it is back; when it
// is, the streams open again and the new instance's state is drawn (see draw).
async function comeBack() {
  try {
    const answer = await fetch("/api/me", { cache: "no-store" });
    if (!answer.ok) throw new Error(String(answer.status));
  } catch (down) {
    setTimeout(comeBack, 2000);
    return;
  }
  stopped = false;
  Object.keys(streams).forEach(watch);
  setLive();
}

function setLive() {
  if (stopped) return;
  const open = Object.values(streams).every((s) => s.readyState === EventSource.OPEN);
  if (open && $("error").textContent === OFFLINE) showError("");
  $("live").textContent = open ? "live" : "reconnecting";
  $("live").className = open ? "live on" : "live off";
}

// A phone that slept: its streams may be closed; opening them again sends the whole state.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") Object.keys(streams).forEach(watch);
});

// A new server instance (a restart) or a new game: the versions start again, the page
// asks what it may do (its code, its seats) and claims its seats again.
const versions = {};
const latest = {}; // each table's newest snapshot drawn
function draw(snap) {
  if (snap.instance && ui.instance && snap.instance !== ui.instance) {
    ui.instance = snap.instance;
    for (const t of Object.keys(versions)) delete versions[t];
    rejoin();
  }
  if ((ui.games[snap.table] || null) !== (snap.game || null)) {
    ui.games[snap.table] = snap.game || null;
    delete versions[snap.table];
  }
  if ((versions[snap.table] || 0) > snap.version) return;
  versions[snap.table] = snap.version;
  latest[snap.table] = snap;
  ui.claimed[snap.table] = snap.claimed || [];
  if (snap.table === "land") drawLandTab(snap.state);
  if (snap.table === "photo") drawPhotoTab(snap.state);
  const live = (window.LIVE || {})[snap.table];
  if (live) live.draw(snap.state);
}

// The newest state of a table drawn again (after this page's seat changed).
function redraw(table) {
  const live = (window.LIVE || {})[table];
  if (live && latest[table]) live.draw(latest[table].state);
}

// ---- drawing a land -----------------------------------------------------------------

const key = (c) => `${c[0]},${c[1]}`;
const colName = (x) => { let s = ""; x += 1; while (x > 0) { const r = (x - 1) % 26; s = String.fromCharCode(65 + r) + s; x = Math.floor((x - 1) / 26); } return s; };

function sectionCells(land) {
  const byId = {};
  if (land) for (const s of land.sections) byId[s.id] = s;
  return byId;
}

// cells: [{cell, token}], joined: Set of "x,y|x,y"; mountains: [[a, b]]; land/score: or null
function drawLand(svg, view) {
  svg.replaceChildren();
  const xs = view.cells.map((c) => c.cell[0]).concat([0]);
  const ys = view.cells.map((c) => c.cell[1]).concat([0]);
  const x0 = Math.min(...xs), y0 = Math.min(...ys);
  const width = Math.max(view.width || 0, Math.max(...xs) - x0 + 1);
  const height = Math.max(view.height || 0, Math.max(...ys) - y0 + 1);
  svg.setAttribute("viewBox", `0 0 ${MARGIN + width * CELL + 4} ${MARGIN + height * CELL + 4}`);
  // A cell is never under a fingertip (48 CSS px): a land wider than the screen slides
  // inside its own box (.grid-box) rather than the page.
  svg.style.minWidth = `${Math.ceil(((MARGIN + width * CELL + 4) * TAP) / CELL)}px`;
  const px = (x) => MARGIN + (x - x0) * CELL;
  const py = (y) => MARGIN + (y - y0) * CELL;
  for (let x = x0; x < x0 + width; x++) svg.append(el("svg:text", { x: px(x) + CELL / 2, y: 15, "text-anchor": "middle", "font-size": 13, fill: "#666" }, colName(x - x0)));
  for (let y = y0; y < y0 + height; y++) svg.append(el("svg:text", { x: 10, y: py(y) + CELL / 2 + 5, "text-anchor": "middle", "font-size": 13, fill: "#666" }, String(y - y0 + 1)));
  const tokens = {};
  for (const c of view.cells) tokens[key(c.cell)] = c.token;
  for (let y = y0; y < y0 + height; y++) {
    for (let x = x0; x < x0 + width; x++) {
      const token = tokens[key([x, y])];
      const rect = el("svg:rect", {
        x: px(x) + 1, y: py(y) + 1, width: CELL - 2, height: CELL - 2, rx: 4,
        fill: token ? colourOf(token) : "#f4f4f0", stroke: token ? "#8a8a80" : "#d8d8d0",
        "stroke-dasharray": token ? "" : "3 3", "data-cell": `${x},${y}`, class: "cell",
      });
      if (view.onTap) rect.addEventListener("click", () => view.onTap([x, y], token));
      if (view.picked && view.picked[0] === x && view.picked[1] === y) rect.setAttribute("stroke", "#0b57d0"), rect.setAttribute("stroke-width", 4);
      svg.append(rect);
      if (token) svg.append(el("svg:text", { x: px(x) + CELL / 2, y: py(y) + CELL / 2 + 6, "text-anchor": "middle", "font-size": 18, "font-weight": 600, fill: token === "T" ? "#fff" : "#222" }, token));
    }
  }
  // Joined cells are one section: cover the gap between them.
  for (const j of view.joins) {
    const [a, b] = j;
    const colour = colourOf(tokens[key(a)] || "");
    if (a[1] === b[1]) svg.append(el("svg:rect", { x: px(Math.max(a[0], b[0])) - 4, y: py(a[1]) + 8, width: 8, height: CELL - 16, fill: colour }));
    else svg.append(el("svg:rect", { x: px(a[0]) + 8, y: py(Math.max(a[1], b[1])) - 4, width: CELL - 16, height: 8, fill: colour }));
  }
  if (view.land && view.score) drawReport(svg, view.land, view.score, px, py);
  for (const [a, b] of view.mountains) drawMountain(svg, a, b, px, py);
}

function drawMountain(svg, a, b, px, py) {
  const g = el("svg:g", { class: "mountain" });
  let pts;
  if (a[1] === b[1]) {
    const x = px(Math.max(a[0], b[0])), y = py(a[1]);
    g.append(el("svg:line", { x1: x, y1: y + 2, x2: x, y2: y + CELL - 2, stroke: "#5b3a1a", "stroke-width": 5 }));
    pts = [[x, y + 14], [x, y + 28], [x, y + 42]].map(([cx, cy]) => `${cx - 7},${cy + 6} ${cx},${cy - 7} ${cx + 7},${cy + 6}`);
  } else {
    const x = px(a[0]), y = py(Math.max(a[1], b[1]));
    g.append(el("svg:line", { x1: x + 2, y1: y, x2: x + CELL - 2, y2: y, stroke: "#5b3a1a", "stroke-width": 5 }));
    pts = [[x + 14, y], [x + 28, y], [x + 42, y]].map(([cx, cy]) => `${cx - 7},${cy + 6} ${cx},${cy - 7} ${cx + 7},${cy + 6}`);
  }
  for (const p of pts) g.append(el("svg:polygon", { points: p, fill: "#7a5230", stroke: "#3d2610" }));
  svg.append(g);
}

function drawReport(svg, land, score, px, py) {
  const byId = sectionCells(land);
  const centres = [];
  score.herds.forEach((herd, i) => {
    const cells = herd.sections.flatMap((id) => byId[id].cells);
    const inside = new Set(cells.map(key));
    const colour = herd.alive ? "#1a7f37" : "#c62828";
    let path = "";
    for (const [x, y] of cells) {
      const l = px(x) + 3, t = py(y) + 3, r = px(x) + CELL - 3, b = py(y) + CELL - 3;
      if (!inside.has(key([x, y - 1]))) path += `M${l},${t}H${r}`;
      if (!inside.has(key([x, y + 1]))) path += `M${l},${b}H${r}`;
      if (!inside.has(key([x - 1, y]))) path += `M${l},${t}V${b}`;
      if (!inside.has(key([x + 1, y]))) path += `M${r},${t}V${b}`;
    }
    svg.append(el("svg:path", { d: path, stroke: colour, "stroke-width": 4, fill: "none", "stroke-linecap": "round", class: herd.alive ? "herd alive" : "herd extinct" }));
    const cx = cells.reduce((s, c) => s + px(c[0]), 0) / cells.length + CELL / 2;
    const cy = cells.reduce((s, c) => s + py(c[1]), 0) / cells.length + CELL / 2;
    centres.push([cx, cy]);
    if (!herd.alive) svg.append(el("svg:text", { x: px(cells[0][0]) + CELL - 8, y: py(cells[0][1]) + 16, "text-anchor": "end", "font-size": 14, "font-weight": 700, fill: colour }, "✗"));
    else svg.append(el("svg:text", { x: px(cells[0][0]) + CELL - 8, y: py(cells[0][1]) + 16, "text-anchor": "end", "font-size": 12, "font-weight": 700, fill: colour }, `+${herd.points}`));
  });
  const defs = el("svg:defs");
  const marker = el("svg:marker", { id: `head-${svg.id}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" });
  marker.append(el("svg:path", { d: "M0,0L10,5L0,10z", fill: "#b3261e" }));
  defs.append(marker);
  svg.append(defs);
  score.herds.forEach((herd, i) => {
    for (const j of herd.ate) {
      const [ax, ay] = centres[i], [bx, by] = centres[j];
      const d = Math.hypot(bx - ax, by - ay) || 1, cut = 14 / d;
      svg.append(el("svg:line", { x1: ax + (bx - ax) * cut, y1: ay + (by - ay) * cut, x2: bx - (bx - ax) * cut, y2: by - (by - ay) * cut, stroke: "#b3261e", "stroke-width": 3, "marker-end": `url(#head-${svg.id})`, class: "ate" }));
    }
  });
  for (const s of land.sections) {
    if (s.kind === "nest" && s.egg) {
      const [x, y] = s.cells[0];
      svg.append(el("svg:ellipse", { cx: px(x) + 14, cy: py(y) + CELL - 14, rx: 7, ry: 9, fill: "#fffdf5", stroke: "#a07a2a", "stroke-width": 2, class: "egg" }));
      svg.append(el("svg:text", { x: px(x) + CELL - 6, y: py(y) + CELL - 7, "text-anchor": "end", "font-size": 12, "font-weight": 700, fill: "#1a7f37" }, "+2"));
    }
  }
}

function reportHtml(box, score, problem, note) {
  box.replaceChildren();
  if (problem) box.append(el("p", { class: "problem" }, problem));
  if (!score) return;
  if (note) box.append(el("p", { class: "hint" }, note));
  box.append(el("p", { class: "total" }, `Score ${score.total}: dinos ${score.dino_points} + eggs ${score.egg_points} + goals ${score.goal_points}`));
  const list = el("ul");
  for (const herd of score.herds) {
    const item = el("li", { class: herd.alive ? "alive" : "extinct" });
    item.append(el("b", {}, `${herd.sections.join(", ")}: ${WHY[herd.why]} (${herd.points})`));
    item.append(document.createTextNode(" " + herd.explain));
    list.append(item);
  }
  box.append(list);
  box.append(el("p", {}, `Eggs on visible nests: ${score.eggs} × 2 = ${score.egg_points}. Biggest living herd: ${score.biggest_living_herd} dinos.`));
}

// ---- the land tab ---------------------------------------------------------------------

function buildPalette(tokens) {
  const box = $("palette");
  if (box.childElementCount) return;
  for (const t of tokens) {
    const b = el("button", { type: "button", "data-token": t, style: `background:${colourOf(t === "." ? "" : t)}` });
    b.append(el("b", {}, t === "." ? "⌫" : t), document.createTextNode(NAMES[t] || t));
    if (t === "T") b.style.color = "#fff";
    b.addEventListener("click", () => { ui.token = t; ui.tool = "paint"; refreshTools(); });
    box.append(b);
  }
  refreshTools();
}

function refreshTools() {
  // The chosen one is said (aria-pressed, a tick), not only coloured.
  for (const b of document.querySelectorAll("#palette button")) {
    const on = ui.tool === "paint" && b.dataset.token === ui.token;
    b.classList.toggle("on", on);
    b.setAttribute("aria-pressed", String(on));
  }
  for (const b of document.querySelectorAll("[data-tool]")) {
    b.classList.toggle("on", b.dataset.tool === ui.tool);
    b.setAttribute("aria-pressed", String(b.dataset.tool === ui.tool));
  }
  $("hint").textContent = {
    paint: `Tap cells to put ${NAMES[ui.token]} (${ui.token}) on them. A large dino joins its other half by itself.`,
    join: ui.first ? "Now tap the cell next to it: one section (tap again to split)." : "Tap a cell, then the one next to it, to make them one section.",
    mountain: ui.first ? "Now tap the cell on the other side of the mountain range." : "Tap a cell, then the one next to it: a mountain range on that edge (again to remove).",
  }[ui.tool];
}

function tapLand(cell) {
  if (ui.tool === "paint") return act("land", { type: "paint", cell, token: ui.token });
  if (!ui.first) { ui.first = cell; refreshTools(); redrawLand(); return; }
  const first = ui.first;
  ui.first = null;
  refreshTools();
  if (first[0] === cell[0] && first[1] === cell[1]) return redrawLand();
  return act("land", { type: ui.tool, a: first, b: cell }).then(redrawLand);
}

function drawLandTab(state) {
  ui.land = state;
  buildPalette(state.palette);
  redrawLand();
  reportHtml($("land-report"), state.score, state.problem);
}

function redrawLand() {
  const state = ui.land;
  if (!state) return;
  drawLand($("land-grid"), {
    cells: state.cells, joins: state.joins, mountains: state.mountains, width: state.width,
    height: state.height, land: state.land, score: state.score, onTap: tapLand, picked: ui.first,
  });
}

// ---- the photo tab --------------------------------------------------------------------

function joinsOf(land) {
  const out = [];
  if (!land) return out;
  for (const s of land.sections) {
    for (const a of s.cells) for (const b of s.cells) {
      if ((a[0] < b[0] && a[1] === b[1] && b[0] - a[0] === 1) || (a[1] < b[1] && a[0] === b[0] && b[1] - a[1] === 1)) out.push([a, b]);
    }
  }
  return out;
}

function drawPhotoTab(state) {
  ui.photo = state;
  $("photo-ready").textContent = state.ready
    ? `Photos are read through the card catalog ${state.catalog}.`
    : "Photos need the card catalog: start the server with companion web --catalog FILE.";
  const shown = $("annotated");
  const want = [];
  for (let k = 1; k <= state.photos; k++) want.push(`/api/photo/annotated.jpg?k=${k}&n=${state.photo}`);
  if ([...shown.querySelectorAll("img")].map((i) => i.getAttribute("src")).join() !== want.join()) {
    shown.replaceChildren(...want.map((src, k) => {
      const figure = el("figure");
      figure.append(el("img", { src, alt: `what the scan saw in photo ${k + 1}` }));
      if (want.length > 1) figure.append(el("figcaption", {}, `Photo ${k + 1} of ${want.length}`));
      return figure;
    }));
  }
  $("photo-more-label").hidden = !state.photos || state.photos >= state.max_photos;
  if (!state.photo) { $("photo-status").textContent = "No photo yet."; return; }
  const cards = state.cards.length === 1 ? "1 card" : `${state.cards.length} cards`;
  const which = state.photos > 1 ? `${state.photos} photos of this land merged` : `Photo ${state.photo}`;
  $("photo-status").textContent = `${which}: ${cards}, ${state.read} cells read, ${state.unread.length} unread.`;
  const unread = new Set(state.unread.map((u) => key(u.cell)));
  const cells = state.map.map((c) => ({ cell: c.cell, token: unread.has(key(c.cell)) ? "?" : c.token }));
  for (const u of state.unread) if (!cells.some((c) => key(c.cell) === key(u.cell))) cells.push({ cell: u.cell, token: "?" });
  drawLand($("photo-grid"), {
    cells, joins: joinsOf(state.land), mountains: state.land ? state.land.mountains : [],
    land: state.land, score: state.score, picked: ui.asking,
    onTap: (cell) => { if (unread.has(key(cell))) { ui.asking = cell; drawPhotoTab(ui.photo); } },
  });
  drawAsk(state);
  const note = state.complete ? "" : "Without egg tokens (the nests are not answered yet), the land scores:";
  reportHtml($("photo-report"), state.score, null, state.score ? note : "");
}

function drawAsk(state) {
  const box = $("photo-ask");
  box.replaceChildren();
  if (state.unread.length) {
    const ask = el("div", { class: "ask" });
    const current = state.unread.find((u) => ui.asking && key(u.cell) === key(ui.asking)) || state.unread[0];
    ui.asking = current.cell;
    ask.append(el("p", {}, `Unread cells: ${state.unread.map((u) => u.name).join(", ")}. ${current.name}: ${current.why}. What shows there?`));
    for (const c of current.candidates) ask.append(answerButton(current.cell, c, `${c} (under it)`));
    for (const t of state.map.length ? Object.keys(NAMES) : []) if (t !== "sh2" && t !== "sh3") ask.append(answerButton(current.cell, t, t === "." ? "no card" : `${t} ${NAMES[t]}`));
    box.append(ask);
  }
  if (state.nests.length) {
    const ask = el("div", { class: "ask" });
    ask.append(el("p", {}, "Markers cannot see egg tokens. Which nests hold one?"));
    const held = new Set((state.eggs || []).map(key));
    for (const n of state.nests) {
      const label = el("label");
      const box2 = el("input", { type: "checkbox", "data-nest": key(n.cell) });
      box2.checked = held.has(key(n.cell));
      label.append(box2, document.createTextNode(` ${n.name} `));
      ask.append(label);
    }
    const save = el("button", { type: "button", id: "eggs-save" }, state.eggs === null ? "These eggs (none ticked: no eggs)" : "Change the eggs");
    save.addEventListener("click", () => {
      const cells = [...ask.querySelectorAll("input:checked")].map((i) => i.dataset.nest.split(",").map(Number));
      act("photo", { type: "eggs", cells });
    });
    ask.append(save);
    box.append(ask);
  }
}

function answerButton(cell, value, text) {
  const b = el("button", { type: "button", "data-answer": value }, text);
  b.addEventListener("click", () => act("photo", { type: "answer", cell, value }));
  return b;
}

async function uploadPhoto(file, add = false) {
  if (!ui.canChange) return showError("code: changing the table needs its join code (Join, above)");
  $("photo-status").textContent = `Reading the photo (${Math.round(file.size / 1024)} KB)…`;
  const snap = await post(add ? "/api/photo?add=1" : "/api/photo", file, file.type || "image/jpeg");
  if (snap) { ui.asking = null; draw(snap); } else if (ui.photo) drawPhotoTab(ui.photo);
  else $("photo-status").textContent = "The photo was not read.";
}

// ---- Food Chain -----------------------------------------------------------------------

function addPlayer(name = "", colour = "", eaten = "", tokens = "") {
  const box = el("div", { class: "player" });
  const field = (label, cls, value, wide) => {
    const l = el("label", wide ? { class: "wide" } : {}, label);
    const input = el("input", { class: cls, autocomplete: "off", autocapitalize: "none" });
    input.value = value;
    l.append(input);
    box.append(l);
  };
  field("Player", "p-name", name);
  field("Token colour", "p-colour", colour);
  field("Eaten", "p-eaten", eaten, true);
  field("Tokens held", "p-tokens", tokens, true);
  $("players").append(box);
}

function readSheet() {
  const players = {};
  for (const box of document.querySelectorAll(".player")) {
    const name = box.querySelector(".p-name").value.trim();
    if (!name) continue;
    const entry = { eaten: [], tokens: {} };
    const colour = box.querySelector(".p-colour").value.trim();
    if (colour) entry.colour = colour;
    for (const item of box.querySelector(".p-eaten").value.split(",")) {
      const t = item.trim();
      if (t) entry.eaten.push(/^\d+$/.test(t) ? Number(t) : t);
    }
    for (const item of box.querySelector(".p-tokens").value.split(",")) {
      const words = item.trim().split(/\s+/);
      if (words[0]) entry.tokens[words[0]] = /^\d+$/.test(words[1] || "") ? Number(words[1]) : (words[1] || 1);
    }
    players[name] = entry;
  }
  return { players };
}

// The optional rule's draw is made once per sheet: its seed is sent back while the sheet
// and the rule stay the same, so a second Score shows the same draw and the same winner.
const sheetDraw = { key: null, seed: null };

async function scoreSheet(event) {
  event.preventDefault();
  if (!ui.canChange) return showError("code: scoring needs the table's join code (Join, above)");
  const sheet = readSheet();
  const rule = $("rule").value;
  const key = JSON.stringify([rule, sheet]);
  const again = rule === "optional" && sheetDraw.key === key ? `&seed=${sheetDraw.seed}` : "";
  const result = await post(`/api/foodchain/score?rule=${rule}${again}`, sheet);
  const box = $("sheet-report");
  box.replaceChildren();
  if (!result) return;
  if (result.seed !== null) Object.assign(sheetDraw, { key, seed: result.seed });
  drawSheetReport(box, result);
}

// The terminal's words (companion foodchain score): a row per player, then who wins; the
// winner's row says so in words as well as in colour.
function drawSheetReport(box, result) {
  if (result.seed !== null) box.append(el("p", { class: "hint", id: "sheet-draw" }, `Optional rule (seed ${result.seed}): the same sheet scores with the same draw; the terminal repeats it with companion foodchain score --optional --seed ${result.seed}.`));
  const table = el("table", { class: "scores" });
  for (const [p, eaten, extra, total] of result.report.rows) {
    const won = result.winners.includes(p);
    const row = el("tr", won ? { class: "winner" } : {});
    row.append(el("td", {}, won ? `${p} ★ wins` : p));
    for (const v of [eaten, extra, total]) row.append(el("td", {}, v));
    table.append(row);
  }
  box.append(table);
  box.append(el("p", { class: "total" }, result.report.result));
  if (result.tokens_exchanged) box.append(el("p", { class: "hint" }, "Players holding each other's tokens exchanged them first."));
}

// ---- the page -------------------------------------------------------------------------

function showTab() {
  const tab = (location.hash || "#land").slice(1).replace(/^board$/, "chomp");
  document.body.classList.toggle("scoreboard", location.hash === "#board");
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== `tab-${tab}`;
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("on", a.dataset.tab === tab);
  if (tab === "history" && !$("history-js")) document.body.append(el("script", { id: "history-js", src: "/static/history.js" }));
}

// What this page may do: the server's answer to /api/me drawn in the header.
function showMe(me) {
  ui.canChange = me.can_change;
  ui.instance = ui.instance || me.instance;
  $("who").textContent = me.can_change ? "you can change the table" : "watching: changes need the join code";
  $("join-words").textContent = me.can_change
    ? "Another phone scans this to join (it carries the join code)."
    : "This is the page's address. To change things, type the join code shown on the Pi.";
  $("code-form").hidden = me.can_change;
  $("code-held").hidden = !me.can_change;
  $("code-shown").textContent = me.code || "";
  if (!$("join").hidden) $("qr").src = `/qr.svg?n=${Date.now()}`;
}

async function refreshMe() {
  try {
    const me = await (await fetch("/api/me", { cache: "no-store" })).json();
    showMe(me);
    return me;
  } catch (failed) {
    return null;
  }
}

// After a restart the server holds no seats: this page claims again the ones it held.
async function rejoin() {
  const held = { ...ui.seats };
  const me = await refreshMe();
  if (!me) return;
  ui.seats = me.seats || {};
  for (const [table, seat] of Object.entries(held)) {
    if (ui.canChange && !ui.seats[table]) await claimSeat(table, seat);
  }
}

// A join code refused on the way in (/?code=...): one line at the top of the app.
function refusedOnArrival() {
  const params = new URLSearchParams(location.search);
  const why = params.get("refused");
  if (!why) return;
  const seconds = /^\d{1,4}$/.test(params.get("s") || "") ? params.get("s") : "a few";
  showError(why === "wait"
    ? `code: too many wrong join codes from this phone: try again in ${seconds} s`
    : "code: not this table's join code (type it again: letters and digits, any case)");
  history.replaceState(null, "", `/${location.hash}`);
  $("join").hidden = false;
  $("qr").src = "/qr.svg";
}

async function newJoinCode() {
  if (!(await ask("Make a new join code? Every other phone must then join again with it.", "New code"))) return;
  const answer = await post("/api/code", {});
  if (answer) showMe(answer.can_change ? { ...answer, instance: ui.instance } : answer);
}

// The script of a table few servers have (the set-up wizard's, companion setup --web):
// loaded only where it is served, so every other page opens no connection for it.
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = el("script", { src });
    script.onload = resolve;
    script.onerror = reject;
    document.body.append(script);
  });
}

async function start() {
  const me = await (await fetch("/api/me")).json();
  if (me.tables.includes("setup")) await loadScript("/static/setup.js");
  ui.seats = me.seats || {};
  showMe(me);
  $("show-join").addEventListener("click", () => {
    $("join").hidden = !$("join").hidden;
    if (!$("join").hidden) $("qr").src = "/qr.svg";
  });
  $("new-code").addEventListener("click", newJoinCode);
  refusedOnArrival();
  $("code-form").addEventListener("submit", (e) => { e.preventDefault(); location.href = `/?code=${encodeURIComponent($("code").value.trim())}`; });
  for (const b of document.querySelectorAll("[data-tool]")) b.addEventListener("click", () => { ui.tool = b.dataset.tool; ui.first = null; refreshTools(); redrawLand(); });
  $("clear").addEventListener("click", () => act("land", { type: "clear" }));
  $("grid-load").addEventListener("click", () => act("land", { type: "grid", text: $("grid-text").value }));
  $("photo-input").addEventListener("change", (e) => { if (e.target.files[0]) uploadPhoto(e.target.files[0]); e.target.value = ""; });
  $("photo-more").addEventListener("change", (e) => { if (e.target.files[0]) uploadPhoto(e.target.files[0], true); e.target.value = ""; });
  $("add-player").addEventListener("click", () => addPlayer());
  $("sheet").addEventListener("submit", scoreSheet);
  addPlayer("ann", "red", "", "red 4");
  addPlayer("bob", "blue", "", "blue 4");
  // The live tables this server has (CHOMP!, Get Bit!, Chips): their tabs, first of all.
  const live = me.tables.filter((t) => (window.LIVE || {})[t]);
  for (const t of live) {
    document.querySelector(`nav a[data-tab="${t}"]`).hidden = false;
    window.LIVE[t].init();
    watch(t);
  }
  if (live.length && !location.hash) history.replaceState(null, "", `#${live[0]}`);
  window.addEventListener("hashchange", showTab);
  showTab();
  watch("land");
  watch("photo");
}

start();
