// The history tab: the games database the table records into, read-only (docs/web.md#history).
// Fetched by app.js the first time the tab is shown (a phone that never opens it loads
// nothing more), read again each time it is shown and by its Refresh button; every name is
// text (textContent), never markup. A game opens as `companion history show` prints it.
"use strict";

const historyTab = { loading: false };

function historyMs(us) {
  return `${(us / 1000).toFixed(1)} ms`;
}

function historyBox(id) {
  const box = $(id);
  box.replaceChildren();
  return box;
}

async function loadHistory() {
  if (historyTab.loading) return;
  historyTab.loading = true;
  const status = $("history-status");
  status.textContent = "Reading the history…";
  try {
    const response = await fetch("/api/history", { cache: "no-store" });
    const text = await response.text();
    if (!response.ok) {
      drawHistoryProblem(text.trim());
      return;
    }
    drawHistory(JSON.parse(text));
  } catch (error) {
    drawHistoryProblem("The history could not be fetched: the table is not answering.");
  } finally {
    historyTab.loading = false;
  }
}

function drawHistoryProblem(line) {
  $("history-status").textContent = line;
  $("history-body").hidden = true;
}

function drawHistory(tab) {
  if (tab.state !== "ok") {
    drawHistoryProblem(tab.message);
    return;
  }
  $("history-body").hidden = false;
  const games = `${tab.games_stored} game${tab.games_stored === 1 ? "" : "s"}`;
  $("history-status").textContent = `${games}, ${tab.players} players in ${tab.database}.` + (tab.note ? ` ${tab.note}` : "");
  drawLeaderboard(tab.leaderboard);
  drawClosestCall(tab.closest_call);
  drawLastGames(tab.last_games);
  drawPlots(tab.plots, tab.more_plots);
}

function drawLeaderboard(board) {
  const box = historyBox("history-leaders");
  if (!board.length) box.append(el("p", { class: "hint" }, "No games yet."));
  for (const game of board) {
    const table = el("table", { class: "scores" });
    table.append(el("caption", {}, game.game));
    const head = el("tr");
    for (const title of ["#", "Player", "Won", "Played"]) head.append(el("th", { scope: "col" }, title));
    table.append(el("thead", {}), el("tbody"));
    table.tHead.append(head);
    game.rows.forEach((row, i) => {
      const tr = el("tr");
      tr.append(el("td", {}, String(i + 1)), el("th", { scope: "row" }, row.player), el("td", {}, String(row.won)), el("td", {}, String(row.played)));
      table.tBodies[0].append(tr);
    });
    const wrap = el("div", { class: "history-scroll", tabindex: "0", role: "region", "aria-label": `${game.game} leaderboard` });
    wrap.append(table);
    box.append(wrap);
    if (game.more) box.append(el("p", { class: "hint" }, `and ${game.more} more players`));
  }
}

function drawClosestCall(call) {
  $("history-closest").textContent = call
    ? `${call.player} won round ${call.round} of game #${call.game} by ${call.us < 1000 ? `${Math.round(call.us)} µs` : historyMs(call.us)}: the smallest winning lead of any CHOMP! round.`
    : "No CHOMP! round won by a slap yet.";
}

function drawLastGames(games) {
  const box = historyBox("history-games");
  if (!games.length) box.append(el("p", { class: "hint" }, "No games yet."));
  for (const game of games) {
    const item = el("details", { class: "history-game" });
    const winners = game.players.filter((p) => p.won).map((p) => p.name);
    const end = !game.finished ? "unfinished" : winners.length ? `won by ${winners.join(" and ")}` : "a draw";
    const summary = el("summary");
    summary.append(el("b", {}, `#${game.id} ${game.game}`), el("span", {}, ` ${game.played_at.slice(0, 10)} · ${end}`));
    const players = game.players.map((p) => (p.score === null ? p.name : `${p.name} ${p.score}`)).join(", ");
    item.append(summary, el("p", { class: "hint" }, players));
    item.addEventListener("toggle", () => { if (item.open && !item.dataset.loaded) openGame(item, game.id); });
    box.append(item);
  }
}

async function openGame(item, id) {
  item.dataset.loaded = "1";
  const out = el("pre", { class: "history-scroll", tabindex: "0", "aria-label": `game #${id} round by round` }, "Reading…");
  item.append(out);
  try {
    const response = await fetch(`/api/history/games/${encodeURIComponent(id)}`, { cache: "no-store" });
    const text = await response.text();
    if (!response.ok) {
      out.textContent = text.trim();
      delete item.dataset.loaded;
      return;
    }
    const game = JSON.parse(text);
    out.textContent = game.lines.join("\n") + (game.rounds_left_out ? `\n… and ${game.rounds_left_out} more rounds` : "");
  } catch (error) {
    out.textContent = "The game could not be fetched: the table is not answering.";
    delete item.dataset.loaded;
  }
}

function drawPlots(plots, more) {
  const box = historyBox("history-plots");
  if (!plots.length) box.append(el("p", { class: "hint" }, "No CHOMP! slaps yet."));
  for (const plot of plots) {
    const r = plot.reaction_us;
    const words = `${plot.player}: median ${historyMs(r.median)} (p10 ${historyMs(r.p10)}, p90 ${historyMs(r.p90)}) over ${r.n} slaps`;
    const figure = el("figure", { class: "history-plot" });
    const img = el("img", { src: `/api/history/reaction.svg?player=${encodeURIComponent(plot.player)}`, alt: `${plot.player}'s reaction times after the reveal: ${words}`, loading: "lazy", width: "640", height: "360" });
    figure.append(img, el("figcaption", {}, words));
    box.append(figure);
  }
  if (more) box.append(el("p", { class: "hint" }, `and ${more} more players with slaps (companion history stats --svg draws them all)`));
}

function historyShown() {
  if (location.hash === "#history") loadHistory();
}

// app.js's showTab loads this script the first time the tab is shown.
window.addEventListener("hashchange", historyShown);
$("history-refresh").addEventListener("click", loadHistory);
historyShown();
