"""Plots as SVG, written here: no plotting library needed on a Pi.

- :func:`reaction_svg`: each player's reaction times after the reveal side by side: a
  dot per slap, a bar from p10 to p90, a line at the median;
- :func:`form_svg`: a player's form over time: a dot per game at the share of the table
  she beat (1: she won, 0: last), and the average of her last five games as a line;
- :func:`counts_svg`: a game's card counts (Get Bit!: limbs) round by round, a line and a
  dot per player and round.

Every mark has a class (``slap``, ``spread``, ``median``, ``game``, ``form``, ``count``,
``player``) so the page's style sheet, and the tests, can find them.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Sequence

from companion import svg
from companion.errors import InputError
from companion.history.clean import mapping, number_in
from companion.history.stats import reaction_times_us, spread
from companion.history.store import find_player, game_rounds, get_game

PLOT_LIMIT = 1e8  # past this a scale has no round steps (and no stored count is so big)


def _scale(low: float, high: float, what: str) -> tuple[float, float, list[float]]:
    """:func:`svg.nice_scale`, for values a plot can show; others are one line."""
    if max(abs(low), abs(high)) > PLOT_LIMIT:
        raise InputError("", f"{what} reach {max(abs(low), abs(high)):g}: too large to plot")
    return svg.nice_scale(low, high)


def reaction_svg(conn: sqlite3.Connection, players: Sequence[str] = ()) -> str:
    """Reaction times after the reveal, one column per player (all players by default)."""
    names = list(players) or [
        n
        for (n,) in conn.execute(
            "SELECT DISTINCT p.name FROM presses x JOIN players p ON p.id = x.player_id"
            " WHERE x.counted = 1 AND x.t_ns >= 0 ORDER BY p.name COLLATE NOCASE"
        )
    ]
    series: list[tuple[str, list[float]]] = []
    for name in names:
        pid = find_player(conn, name)
        if pid is None:
            raise InputError("PLAYER", f"no player called {name!r} in the history")
        series.append((name, [t / 1000 for t in reaction_times_us(conn, pid)]))
    values = [v for _, vs in series for v in vs]
    if not values:
        raise InputError("", "no CHOMP! slaps in the history to plot")
    low, high, ticks = _scale(min(values), max(values), "the reaction times")
    bottom = svg.HEIGHT - svg.BOTTOM

    def y(ms: float) -> float:
        return bottom - (ms - low) / (high - low) * (bottom - svg.TOP)

    body = svg.axes("reaction after the reveal (ms)", [(y(t), f"{t:g}") for t in ticks], "player")
    column = (svg.WIDTH - svg.LEFT - svg.RIGHT) / len(series)
    rng = random.Random(0)  # the same jitter every time: the picture is reproducible
    for i, (name, vs) in enumerate(series):
        centre = svg.LEFT + column * (i + 0.5)
        colour = svg.COLOURS[i % len(svg.COLOURS)]
        figures = spread(vs)
        if figures is not None:
            top, foot = y(figures["p90"]), y(figures["p10"])
            spread_bar: dict[str, svg.Value] = {
                "class": "spread",
                "x": centre - column * 0.3,
                "y": top,
                "width": column * 0.6,
                "height": float(max(foot - top, 1)),
                "fill": colour,
                "fill-opacity": "0.2",
                "stroke": colour,
            }
            body.append(svg.element("rect", spread_bar))
            mid = y(figures["median"])
            body.append(
                svg.element(
                    "line",
                    {
                        "class": "median",
                        "x1": centre - column * 0.3,
                        "y1": mid,
                        "x2": centre + column * 0.3,
                        "y2": mid,
                        "stroke": "black",
                        "stroke-width": "2",
                    },
                )
            )
        for v in vs:
            dx = rng.uniform(-column * 0.25, column * 0.25)
            slap: dict[str, svg.Value] = {
                "class": "slap",
                "cx": centre + dx,
                "cy": y(v),
                "r": "2.5",
                "fill": colour,
            }
            body.append(svg.element("circle", {**slap, "fill-opacity": "0.6"}))
        body.append(svg.text(centre, bottom + 16, f"{name} ({len(vs)})"))
    return svg.document("CHOMP! reaction time after the reveal", body)


def form_svg(conn: sqlite3.Connection, player: str, kind: str | None = None, last: int = 5) -> str:
    """A player's form: the share of the table she beat in each game, oldest first."""
    pid = find_player(conn, player)
    if pid is None:
        raise InputError("PLAYER", f"no player called {player!r} in the history")
    rows = conn.execute(
        "SELECT g.played_at, g.kind, gp.rank, gp.won, (SELECT count(*) FROM game_players o"
        " WHERE o.game_id = g.id) FROM game_players gp JOIN games g ON g.id = gp.game_id"
        " WHERE gp.player_id = ? AND g.finished = 1 AND (? IS NULL OR g.kind = ?)"
        " ORDER BY g.played_at, g.id",
        (pid, kind, kind),
    ).fetchall()
    if not rows:
        raise InputError("PLAYER", f"{player} has no finished game in the history")
    beaten = [
        1.0 if won else (0.0 if seats < 2 or rank is None else (seats - rank) / (seats - 1))
        for _, _, rank, won, seats in rows
    ]
    bottom, span = svg.HEIGHT - svg.BOTTOM, svg.WIDTH - svg.LEFT - svg.RIGHT
    step = span / max(len(rows), 1)

    def at(i: int, value: float) -> tuple[float, float]:
        return svg.LEFT + step * (i + 0.5), bottom - value * (bottom - svg.TOP)

    ticks = [(at(0, v)[1], f"{v:.0%}") for v in (0, 0.25, 0.5, 0.75, 1)]
    body = svg.axes("share of the table beaten", ticks, f"{len(rows)} games, oldest first")
    kinds = sorted({k for _, k, *_ in rows})
    points = []
    for i, ((_, game_kind, *_), value) in enumerate(zip(rows, beaten, strict=True)):
        x, y = at(i, value)
        colour = svg.COLOURS[kinds.index(game_kind) % len(svg.COLOURS)]
        body.append(
            svg.element("circle", {"class": "game", "cx": x, "cy": y, "r": "4", "fill": colour})
        )
        recent = beaten[max(0, i + 1 - last) : i + 1]
        points.append("{:.1f},{:.1f}".format(*at(i, sum(recent) / len(recent))))
    form_line = {"class": "form", "points": " ".join(points), "fill": "none", "stroke": "black"}
    body.append(svg.element("polyline", {**form_line, "stroke-width": "1.5"}))
    for j, k in enumerate(kinds):
        colour = svg.COLOURS[j % len(svg.COLOURS)]
        key: dict[str, svg.Value] = {
            "cx": svg.LEFT + 10 + 110 * j,
            "cy": svg.TOP - 4,
            "r": "4",
            "fill": colour,
        }
        body.append(svg.element("circle", key))
        body.append(svg.text(svg.LEFT + 18 + 110 * j, svg.TOP, k, "start"))
    return svg.document(f"{player}'s form (line: average of the last {last})", body)


def counts_svg(conn: sqlite3.Connection, game_id: int) -> str:
    """A game's counts round by round: CHOMP! cards (pile and discard), Get Bit! limbs."""
    game = get_game(conn, game_id)
    rounds = [r for r in game_rounds(conn, game_id) if r["counts"]]
    if not rounds:
        raise InputError("GAME", f"game #{game_id} has no counts round by round")
    names = [p["name"] for p in game.players]
    robots = mapping(game.players[0]["detail"]).get("robots") if game.players else None
    start = {
        "chomp": mapping(game.detail.get("deal")),
        "getbit": dict.fromkeys(names, 4 * (len(robots) if isinstance(robots, list) else 1)),
    }.get(game.kind, {})
    series = {n: [number_in(start, n)] + [number_in(r["counts"], n) for r in rounds] for n in names}
    high = max((max(v) for v in series.values()), default=0.0)
    low, high, ticks = _scale(0, high, f"game #{game_id}'s counts")
    bottom, span = svg.HEIGHT - svg.BOTTOM, svg.WIDTH - svg.LEFT - svg.RIGHT

    def at(i: int, value: float) -> tuple[float, float]:
        return svg.LEFT + span * i / max(len(rounds), 1), bottom - (value - low) / (high - low) * (
            bottom - svg.TOP
        )

    label = "limbs" if game.kind == "getbit" else "cards"
    body = svg.axes(label, [(at(0, t)[1], f"{t:g}") for t in ticks], "round")
    every = max(1, len(rounds) // 8)
    for n in range(0, len(rounds) + 1, every):
        body.append(svg.text(at(n, low)[0], svg.HEIGHT - svg.BOTTOM + 16, str(n)))
    for i, name in enumerate(names):
        colour = svg.COLOURS[i % len(svg.COLOURS)]
        pts = [at(n, v) for n, v in enumerate(series[name])]
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        player_line = {"class": "player", "points": points, "fill": "none", "stroke": colour}
        body.append(svg.element("polyline", {**player_line, "stroke-width": "2"}))
        for x, y in pts[1:]:
            count: dict[str, svg.Value] = {
                "class": "count",
                "cx": x,
                "cy": y,
                "r": "2.5",
                "fill": colour,
            }
            body.append(svg.element("circle", count))
        body.append(svg.text(svg.LEFT + 10 + 100 * i, svg.TOP - 2, name, "start", {"fill": colour}))
    return svg.document(f"Game #{game_id}: {label} round by round", body)
