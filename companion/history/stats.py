"""The figures players ask for, from the database.

- games played and won, per game;
- CHOMP!: reaction time after the reveal (median, p10, p90 over N slaps), bad chomps by
  cause as a share of her slaps, ties, rounds won, and the closest decided lead (the
  smallest margin by which her winning slap beat the next press);
- Get Bit!: rounds survived and bites taken;
- Chomp: average and best land; Food Chain: average and best score.

A *slap* is a player's first press of a round (the only one the rules count, C7).
Reaction times are the slaps at or after the reveal; a slap before it is a false start.
Percentiles interpolate linearly between the ordered values (as
``statistics.quantiles(..., method="inclusive")``), so p10 of 1..11 is 2.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Callable
from typing import Any

from companion.errors import InputError
from companion.history.clean import number_in
from companion.history.model import CAUSES, KINDS
from companion.history.store import find_player

NS_PER_US = 1000


Pick = Callable[[int], tuple[float, float]]


def quantile(n: int, q: float, pick: Pick) -> float:
    """The ``q`` quantile of ``n`` ordered values, ``pick(k)`` giving the k-th and the
    next (linear interpolation, as ``statistics.quantiles(method="inclusive")``)."""
    h = (n - 1) * q
    k = int(h)
    low, high = pick(k)
    return low + (h - k) * (high - low)


def spread(values: list[float]) -> dict[str, float | int] | None:
    """Median, p10 and p90 of ``values`` and how many there are (None when empty)."""
    if not values:
        return None
    ordered = sorted(values)
    n = len(ordered)

    def pick(k: int) -> tuple[float, float]:
        return ordered[k], ordered[min(k + 1, n - 1)]

    return _spread(n, pick)


def _spread(n: int, pick: Pick) -> dict[str, float | int]:
    return {
        "median": quantile(n, 0.5, pick),
        "p10": quantile(n, 0.1, pick),
        "p90": quantile(n, 0.9, pick),
        "n": n,
    }


def reaction_spread(conn: sqlite3.Connection, pid: int) -> dict[str, float | int] | None:
    """:func:`spread` of her reaction times, read off the index in order: SQLite counts
    and skips, so only six values come out of the database however many slaps she made."""
    where = "FROM presses WHERE player_id = ? AND counted = 1 AND t_ns >= 0"
    n = conn.execute(f"SELECT count(*) {where}", (pid,)).fetchone()[0]
    if not n:
        return None

    def pick(k: int) -> tuple[float, float]:
        rows = conn.execute(f"SELECT t_ns {where} ORDER BY t_ns LIMIT 2 OFFSET ?", (pid, k))
        values = [t / NS_PER_US for (t,) in rows]
        return values[0], values[-1]

    return _spread(int(n), pick)


def _games(conn: sqlite3.Connection, pid: int) -> dict[str, dict[str, int]]:
    out = {}
    for kind, played, won in conn.execute(
        "SELECT g.kind, count(*), sum(gp.won) FROM game_players gp JOIN games g"
        " ON g.id = gp.game_id WHERE gp.player_id = ? GROUP BY g.kind",
        (pid,),
    ):
        out[kind] = {"played": int(played), "won": int(won or 0)}
    return {k: out[k] for k in KINDS if k in out}


def reaction_times_us(conn: sqlite3.Connection, pid: int) -> list[float]:
    """Her slaps at or after the reveal, in microseconds (fastest first)."""
    rows = conn.execute(
        "SELECT t_ns FROM presses WHERE player_id = ? AND counted = 1 AND t_ns >= 0",
        (pid,),
    ).fetchall()
    return [t / NS_PER_US for (t,) in rows]


def _chomp(conn: sqlite3.Connection, pid: int) -> dict[str, Any] | None:
    fates: Counter[str] = Counter()
    causes: Counter[str] = Counter()
    for fate, cause, n in conn.execute(
        "SELECT fate, cause, count(*) FROM presses WHERE player_id = ? AND counted = 1"
        " GROUP BY fate, cause",
        (pid,),
    ):
        fates[fate] += n
        if fate == "bad_chomp":
            causes[cause] += n
    slaps = sum(fates.values())
    lead = conn.execute(
        "SELECT lead_ns, game_id, n FROM rounds WHERE winner_id = ? AND outcome = 'win'"
        " AND lead_ns IS NOT NULL ORDER BY lead_ns LIMIT 1",
        (pid,),
    ).fetchone()
    rounds_won = conn.execute(  # only CHOMP! rounds end in a "win"
        "SELECT count(*) FROM rounds WHERE winner_id = ? AND outcome = 'win'", (pid,)
    ).fetchone()[0]
    if not slaps and not rounds_won:
        return None
    bad = sum(causes.values())
    return {
        "reaction_us": reaction_spread(conn, pid),
        "slaps": slaps,
        "bad_chomps": {
            "count": bad,
            "rate": round(bad / slaps, 4) if slaps else 0.0,
            "by_cause": {
                c: {"count": causes[c], "rate": round(causes[c] / slaps, 4)}
                for c in CAUSES
                if causes[c]
            },
        },
        "ties": fates["tied"],
        "rounds_won": int(rounds_won),
        "closest_lead": None
        if lead is None
        else {"us": lead[0] / NS_PER_US, "game": lead[1], "round": lead[2]},
    }


def _scores(conn: sqlite3.Connection, pid: int, kind: str) -> list[tuple[float, str]]:
    return [
        (float(score), detail)
        for score, detail in conn.execute(
            "SELECT gp.score, gp.detail FROM game_players gp JOIN games g ON g.id = gp.game_id"
            " WHERE gp.player_id = ? AND g.kind = ? AND gp.score IS NOT NULL ORDER BY g.played_at",
            (pid, kind),
        )
    ]


def _getbit(conn: sqlite3.Connection, pid: int) -> dict[str, Any] | None:
    rows = _scores(conn, pid, "getbit")
    if not rows:
        return None
    details = [json.loads(d) for _, d in rows]
    survived = [int(number_in(d, "rounds_survived")) for d in details]
    return {
        "games": len(rows),
        "rounds_survived": sum(survived),
        "rounds_survived_per_game": round(sum(survived) / len(rows), 2),
        "bites_taken": sum(int(number_in(d, "bites_taken")) for d in details),
    }


def _points(conn: sqlite3.Connection, pid: int, kind: str) -> dict[str, Any] | None:
    scores = [s for s, _ in _scores(conn, pid, kind)]
    if not scores:
        return None
    return {
        "games": len(scores),
        "average": round(sum(scores) / len(scores), 2),
        "best": max(scores),
    }


def player_stats(conn: sqlite3.Connection, name: str) -> dict[str, Any]:
    """Every figure for one player (by name or alias)."""
    pid = find_player(conn, name)
    if pid is None:
        raise InputError("PLAYER", f"no player called {name!r} in the history")
    real = conn.execute("SELECT name FROM players WHERE id = ?", (pid,)).fetchone()[0]
    figures: dict[str, Any] = {"player": real, "games": _games(conn, pid)}
    for key, value in (
        ("chomp", _chomp(conn, pid)),
        ("getbit", _getbit(conn, pid)),
        ("dino", _points(conn, pid, "dino")),
        ("foodchain", _points(conn, pid, "foodchain")),
    ):
        if value is not None:
            figures[key] = value
    return figures


def all_stats(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every player's figures, in name order."""
    names = [n for (n,) in conn.execute("SELECT name FROM players ORDER BY name COLLATE NOCASE")]
    return [player_stats(conn, n) for n in names]


def _ms(us: float) -> str:
    return f"{us / 1000:.1f} ms"


def stats_lines(figures: dict[str, Any]) -> list[str]:
    """One player's figures as the table reads them."""
    lines = [figures["player"]]
    for kind, g in figures["games"].items():
        lines.append(f"  {kind:<10} {g['played']} played, {g['won']} won")
    chomp = figures.get("chomp")
    if chomp:
        r = chomp["reaction_us"]
        if r:
            lines.append(
                f"  CHOMP! reaction after the reveal: median {_ms(r['median'])}"
                f" (p10 {_ms(r['p10'])}, p90 {_ms(r['p90'])}) over {r['n']} slaps"
            )
        bad = chomp["bad_chomps"]
        causes = ", ".join(
            f"{c.replace('_', ' ')} {v['count']}" for c, v in bad["by_cause"].items()
        )
        lines.append(
            f"  CHOMP! bad chomps: {bad['count']} of {chomp['slaps']} slaps"
            f" ({bad['rate']:.0%})" + (f": {causes}" if causes else "")
        )
        lines.append(f"  CHOMP! rounds won {chomp['rounds_won']}, ties {chomp['ties']}")
        lead = chomp["closest_lead"]
        if lead:
            lines.append(
                f"  CHOMP! closest decided lead: {lead['us']:.0f} us"
                f" (game #{lead['game']}, round {lead['round']})"
            )
    getbit = figures.get("getbit")
    if getbit:
        lines.append(
            f"  Get Bit! rounds survived {getbit['rounds_survived']}"
            f" ({getbit['rounds_survived_per_game']} a game), bites taken {getbit['bites_taken']}"
        )
    for key, label in (("dino", "Chomp land"), ("foodchain", "Food Chain score")):
        if key in figures:
            f = figures[key]
            lines.append(f"  {label}: average {f['average']:g}, best {f['best']:g}")
    return lines
