"""The history tab: the games database the table records into, read-only, as JSON.

Every figure is the history package's own: the leaderboard is ``history stats``'s games
played and won (:func:`companion.history.stats.all_stats`), the last games are ``history
list``'s and each opens as ``history show`` prints it, the plots are
:mod:`companion.history.plots`' SVG, and the closest call is the smallest of the players'
``closest_lead``. The database is opened through :func:`companion.history.db.read`
(SQLite read-only: not a byte of it changes) over its good rows only
(:func:`companion.history.rows.clean_copy`, as the CLI reads it). A database that is not
there yet, not ours or damaged is one line on the tab, never a 500. Answers are bounded:
the last :data:`LAST_GAMES` games, :data:`TOP_PLAYERS` players per game, :data:`PLOTS`
plots, :data:`ROUNDS` rounds of a game. docs/web.md#history says it for people.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

import anyio
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from companion import data
from companion import text as gate
from companion.errors import CompanionError, ConfigError, InputError
from companion.history.db import default_path, read
from companion.history.model import GAME_NAMES
from companion.history.rows import clean_copy
from companion.history.stats import all_stats
from companion.history.store import game_rounds, get_game, list_games
from companion.history.text import game_line, show_lines
from companion.tables.settings import settings_from

LAST_GAMES = 20  # the last games listed, newest first
TOP_PLAYERS = 20  # rows of each game's leaderboard
PLOTS = 12  # players with a reaction-time plot
ROUNDS = 200  # rounds of one game's details
MAX_GAME = 2**63 - 1  # SQLite's largest row id
CACHED = 16  # answers kept until their database changes (every phone opening the tab)
T = TypeVar("T")


class Unreadable(CompanionError):
    """The history cannot be read: one line, with the database's file name only."""


def as_json(content: Any) -> Response:
    """JSON as ASCII, as every answer of the pages (app.py's ``Json``, which imports us)."""
    body = json.dumps(content, ensure_ascii=True, separators=(",", ":"))
    return Response(body, media_type="application/json", headers={"cache-control": "no-store"})


def refused(status: int, field_name: str, message: str) -> Response:
    """A refusal as the pages say it: one line naming the field."""
    return PlainTextResponse(f"{field_name}: {message}".replace("\n", " ") + "\n", status)


def database_of(request: Request) -> Path:
    """The database this server's table records into: ``companion web --db`` (the site's
    ``history_db``), else the one a live table on the hub says it records into (its
    ``history_db``: ``--db``, else its config's ``[history] db``), else the default one
    (docs/history.md)."""
    site = request.app.state.site
    given: str | None = site.history_db
    for name in site.hub.names():
        if given is not None:
            break
        given = getattr(site.hub.table(name), "history_db", None)
    return Path(given) if given is not None else default_path()


def config_database(path: str) -> str | None:
    """``companion web --config FILE``: the ``[history] db`` of the table's config (a
    relative path from the config's folder, as the table reads it), or None."""
    raw = data.read_toml(path)
    if "history" not in raw:
        return None
    try:
        settings = settings_from({"history": raw["history"]})
    except InputError as exc:
        raise ConfigError(exc.where, exc.message, path) from None
    return settings.relative_to(Path(path).resolve().parent).database(None)


def reading(path: Path, work: Callable[[sqlite3.Connection], T]) -> tuple[T, int]:
    """``work`` over the good rows of the database, read-only; with how many damaged
    rows were left out. What ``work`` itself refuses (no such game or player: an
    InputError without a file) is raised as it is; anything that stops the read is
    :class:`Unreadable`."""
    left_out = 0

    def damaged(_line: str) -> None:
        nonlocal left_out
        left_out += 1

    try:
        return read(path, lambda conn: work(clean_copy(conn, damaged))), left_out
    except InputError as exc:
        if exc.source is None:
            raise
        raise Unreadable(f"{path.name}: {exc.message}") from None
    except CompanionError as exc:
        said = getattr(exc, "message", None) or str(exc)
        raise Unreadable(f"{path.name}: {said}") from None
    except (OSError, sqlite3.Error) as exc:
        raise Unreadable(f"{path.name}: cannot be read ({type(exc).__name__})") from None


Stamp = tuple[tuple[int, int, int] | None, ...]
_answers: OrderedDict[tuple[str, Hashable, Stamp], tuple[Any, int]] = OrderedDict()


def stamp(path: Path) -> Stamp:
    """What changes when a game is recorded: the file's and its -wal's inode, size, mtime."""
    marks: list[tuple[int, int, int] | None] = []
    for end in ("", "-wal"):
        try:
            st = os.stat(f"{path}{end}")
        except OSError:
            marks.append(None)
            continue
        marks.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(marks)


async def read_once(
    path: Path, question: Hashable, work: Callable[[sqlite3.Connection], T]
) -> tuple[T, int]:
    """:func:`reading` in a worker thread, its answer kept until the database changes:
    ten phones opening the tab read a large history once. A refusal is not kept."""
    key = (str(path), question, stamp(path))
    if key in _answers:
        _answers.move_to_end(key)
        kept: tuple[T, int] = _answers[key]
        return kept
    answer = await anyio.to_thread.run_sync(reading, path, work)
    _answers[key] = answer
    while len(_answers) > CACHED:
        _answers.popitem(last=False)
    return answer


def leaderboard(figures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Games won and played per player, for each game (``history stats``' figures),
    the most wins first; at most :data:`TOP_PLAYERS` rows each, with how many more."""
    board = []
    for kind, title in GAME_NAMES.items():
        rows = [{"player": f["player"], **f["games"][kind]} for f in figures if kind in f["games"]]
        if not rows:
            continue
        rows.sort(key=lambda r: (-r["won"], r["played"], gate.name_key(r["player"])))
        board.append(
            {
                "kind": kind,
                "game": title,
                "rows": rows[:TOP_PLAYERS],
                "more": max(0, len(rows) - TOP_PLAYERS),
            }
        )
    return board


def closest_call(figures: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The smallest winning lead of any CHOMP! round: the least of the players'
    ``closest_lead`` (stats.py's), with whose it is."""
    leads = [
        {"player": f["player"], **f["chomp"]["closest_lead"]}
        for f in figures
        if f.get("chomp") and f["chomp"].get("closest_lead")
    ]
    return min(leads, key=lambda lead: (lead["us"], lead["game"], lead["round"]), default=None)


def _summary(conn: sqlite3.Connection) -> dict[str, Any]:
    figures = all_stats(conn)
    games = list_games(conn)[-LAST_GAMES:][::-1]
    plotted = [
        {"player": f["player"], "reaction_us": f["chomp"]["reaction_us"]}
        for f in figures
        if f.get("chomp") and f["chomp"].get("reaction_us")
    ]
    return {
        "players": len(figures),
        "games_stored": conn.execute("SELECT count(*) FROM games").fetchone()[0],
        "leaderboard": leaderboard(figures),
        "last_games": [
            {
                "id": g.id,
                "kind": g.kind,
                "game": GAME_NAMES[g.kind],
                "played_at": g.played_at,
                "finished": g.finished,
                "line": game_line(g),
                "players": [
                    {"name": p["name"], "score": p["score"], "won": p["won"]} for p in g.players
                ],
            }
            for g in games
        ],
        "plots": plotted[:PLOTS],
        "more_plots": max(0, len(plotted) - PLOTS),
        "closest_call": closest_call(figures),
    }


async def history_summary(request: Request) -> Response:
    """The tab: the leaderboard, the last games, the plots to fetch, the closest call;
    or ``{"state": "none" | "unreadable", "message": ONE LINE}``."""
    path = database_of(request)
    if not os.path.lexists(path):
        return as_json(
            {
                "state": "none",
                "message": f"No history yet: a finished game is recorded in {path.name}.",
            }
        )
    try:
        summary, left_out = await read_once(path, "summary", _summary)
    except CompanionError as exc:  # Unreadable, or a figure the rows could not give
        return as_json({"state": "unreadable", "message": f"The history cannot be read: {exc}"})
    note = f"{left_out} damaged row(s) of {path.name} left out." if left_out else None
    return as_json({"state": "ok", "database": path.name, "note": note, **summary})


async def history_game(request: Request) -> Response:
    """One game as ``history show`` prints it (its lines) and as its JSON says it."""
    given = request.path_params["game"]
    number = gate.number_or_none(given, low=1, high=MAX_GAME)  # ASCII digits only
    if number is None:
        return refused(400, "game", f"a game's number (1, 2, ...), not {given[:20]!r}")
    game_id: int = number

    def gather(conn: sqlite3.Connection) -> dict[str, Any]:
        game = get_game(conn, game_id)
        rounds = game_rounds(conn, game_id)
        return {
            **asdict(game),
            "lines": show_lines(game, rounds[:ROUNDS]),
            "rounds_left_out": max(0, len(rounds) - ROUNDS),
        }

    path = database_of(request)
    if not os.path.lexists(path):
        return refused(404, "game", f"no game #{game_id}: no history yet")
    try:
        found, _ = await read_once(path, ("game", game_id), gather)
    except InputError:  # get_game: no such game
        return refused(404, "game", f"no game #{game_id} in the history")
    except Unreadable as exc:
        return refused(503, "history", str(exc))
    return as_json(found)


async def history_reaction(request: Request) -> Response:
    """One player's reaction times after the reveal (``?player=NAME``), or everyone's,
    drawn by :func:`companion.history.plots.reaction_svg` (every name escaped there)."""
    from companion.history.plots import reaction_svg

    given = request.query_params.get("player")
    try:
        players = [] if given is None else [gate.clean(given, "player", limit=100)]
    except InputError as exc:
        return refused(400, "player", exc.message)
    path = database_of(request)
    if not os.path.lexists(path):
        return refused(404, "plot", "no history yet")
    try:
        picture, _ = await read_once(
            path, ("reaction", tuple(players)), lambda conn: reaction_svg(conn, players)
        )
    except InputError as exc:  # no such player, or no slaps to plot
        return refused(404, "player", exc.message)
    except Unreadable as exc:
        return refused(503, "history", str(exc))
    return Response(picture, media_type="image/svg+xml", headers={"cache-control": "no-store"})


def routes() -> list[Route]:
    """GET only: the history is read, never written, from a page."""
    return [
        Route("/api/history", history_summary),
        Route("/api/history/games/{game}", history_game),
        Route("/api/history/reaction.svg", history_reaction),
    ]
