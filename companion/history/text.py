"""The history as the table reads it: one line per game, a game round by round."""

from __future__ import annotations

from typing import Any

from companion.history.clean import mapping
from companion.history.model import GAME_NAMES
from companion.history.store import GameRow


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def game_line(g: GameRow) -> str:
    """``#3  2026-11-26  CHOMP!  ann 9, bob 8 ...  won by dan`` (or ``unfinished``)."""
    players = ", ".join(f"{p['name']} {_score(p['score'])}" for p in g.players)
    winners = [p["name"] for p in g.players if p["won"]]
    if not g.finished:
        end = "unfinished"
    elif winners:
        end = "won by " + " and ".join(winners)
    else:
        end = "a draw"
    return f"#{g.id:<4} {g.played_at[:10]}  {GAME_NAMES[g.kind]:<10}  {players}  {end}"


def _press(p: dict[str, Any]) -> str:
    when = "no reveal" if p["t_ns"] is None else f"{p['t_ns'] / 1e6:+.3f} ms"
    fate = p["fate"].replace("_", " ") + (
        f" ({p['cause'].replace('_', ' ')})" if p["cause"] else ""
    )
    return f"{p['player']} {when} {fate}"


def _round_line(kind: str, r: dict[str, Any]) -> str:
    detail = r["detail"]
    if kind == "chomp":
        what = r["outcome"].replace("_", " ") or "undecided"
        if r["winner"]:
            what += f": {r['winner']}"
        if r["lead_ns"] is not None:
            what += f" by {r['lead_ns'] / 1000:.0f} us"
        presses = "; ".join(_press(p) for p in r["presses"]) or "no press"
        return f"round {r['n']:>3}  {what}  [{presses}]"
    if kind == "getbit":
        shown = mapping(detail.get("cards"))
        cards = " ".join(f"{robot}:{card}" for robot, card in shown.items())
        bitten = detail.get("bitten")
        what = f"{bitten} bitten" if bitten else "no bite"
        out = detail.get("out")
        if out and isinstance(out, list):
            what += f", out: {', '.join(map(str, out))}"
        return f"round {r['n']:>3}  {cards}  {what}"
    return f"round {r['n']:>3}  {r['outcome']}"


def show_lines(g: GameRow, rounds: list[dict[str, Any]]) -> list[str]:
    """A game: when, where, how, who, and every round."""
    lines = [
        f"{GAME_NAMES[g.kind]} game #{g.id}, {g.played_at}" + (f" at {g.table}" if g.table else "")
    ]
    how = ", ".join(x for x in [g.mode, *g.variants] if x)
    if how:
        lines.append(f"  played as: {how}")
    if g.source:
        lines.append(f"  from: {g.source}")
    for p in g.players:
        place = "" if p["rank"] is None else f"  rank {p['rank']}"
        lines.append(
            f"  {p['name']:<12} {_score(p['score']):>6}{place}{'  won' if p['won'] else ''}"
        )
    for r in rounds:
        lines.append("  " + _round_line(g.kind, r))
    lines.append("  " + ("finished" if g.finished else "unfinished"))
    return lines
