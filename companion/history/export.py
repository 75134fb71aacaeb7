"""The history out: CSV (a row per player per game), the whole database as JSON, and
plays in the shape of BG Stats' Play File (docs/history.md says what is confirmed).
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import uuid
from typing import Any
from urllib.parse import quote

from companion.history.db import version
from companion.history.model import GAME_NAMES
from companion.history.store import GameRow, game_rounds, list_games

CSV_COLUMNS = (
    "game_id",
    "game",
    "kind",
    "played_at",
    "table",
    "mode",
    "variants",
    "finished",
    "player",
    "seat",
    "score",
    "rank",
    "won",
)
FORMAT = "companion-history"
# Stable ids for BG Stats: the same game or player gets the same uuid at every export,
# so importing a later export updates plays instead of adding them twice.
NAMESPACE = uuid.UUID("5f0c7a52-3a8e-4c61-9f0e-6a1d2c4b8e17")


def to_csv(games: list[GameRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for g in games:
        for p in g.players:
            writer.writerow(
                [
                    g.id,
                    GAME_NAMES[g.kind],
                    g.kind,
                    g.played_at,
                    g.table,
                    g.mode,
                    ";".join(g.variants),
                    int(g.finished),
                    p["name"],
                    p["seat"],
                    "" if p["score"] is None else f"{p['score']:g}",
                    "" if p["rank"] is None else p["rank"],
                    int(p["won"]),
                ]
            )
    return out.getvalue()


def to_json(conn: sqlite3.Connection, since: str | None = None) -> dict[str, Any]:
    """The whole database (or the games since a date) as one document."""
    games = list_games(conn, since=since)
    hashes = dict(conn.execute("SELECT id, content_hash FROM games"))
    aliases: dict[str, list[str]] = {}
    for name, alias in conn.execute(
        "SELECT p.name, a.alias FROM aliases a JOIN players p ON p.id = a.player_id"
        " ORDER BY a.alias"
    ):
        aliases.setdefault(name, []).append(alias)
    players = [
        {"name": n, "aliases": aliases.get(n, [])}
        for (n,) in conn.execute("SELECT name FROM players ORDER BY name COLLATE NOCASE")
    ]
    return {
        "format": FORMAT,
        "schema_version": version(conn),
        "since": since,
        "players": players,
        "games": [
            {
                "id": g.id,
                "kind": g.kind,
                "played_at": g.played_at,
                "table": g.table,
                "mode": g.mode,
                "variants": g.variants,
                "finished": g.finished,
                "result": g.result,
                "detail": g.detail,
                "source": g.source,
                "content_hash": hashes[g.id],
                "players": g.players,
                "rounds": game_rounds(conn, g.id),
            }
            for g in games
        ],
    }


def _uid(*parts: object) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(map(str, parts))))


def _bgs_date(iso: str) -> str:
    """BG Stats writes dates as ``YYYY-MM-DD HH:MM:SS``."""
    return iso.replace("T", " ")[:19]


def to_bgstats(games: list[GameRow]) -> dict[str, Any]:
    """A BG Stats Play File: players, locations, games and plays with ids that refer to
    each other (shape from public samples; see docs/history.md)."""
    players: dict[str, int] = {}
    kinds: dict[str, int] = {}
    tables: dict[str, int] = {}
    plays = []
    for g in games:
        kinds.setdefault(g.kind, len(kinds) + 1)
        tables.setdefault(g.table or "companion", len(tables) + 1)
        scores = []
        for p in g.players:
            players.setdefault(p["name"], len(players) + 1)
            scores.append(
                {
                    "playerRefId": players[p["name"]],
                    "score": "" if p["score"] is None else f"{p['score']:g}",
                    "winner": p["won"],
                    "newPlayer": False,
                    "startPlayer": p["seat"] == 0,
                    "seatOrder": p["seat"] + 1,
                    "rank": p["rank"] or 0,
                }
            )
        board = " ".join([g.mode, *g.variants]).strip()
        plays.append(
            {
                "uuid": _uid("play", g.kind, g.id, g.played_at),
                "playDate": _bgs_date(g.played_at),
                "entryDate": _bgs_date(g.played_at),
                "modificationDate": _bgs_date(g.played_at),
                "durationMin": 0,
                "ignored": not g.finished,
                "manualWinner": False,
                "board": board,
                "locationRefId": tables[g.table or "companion"],
                "gameRefId": kinds[g.kind],
                "usesTeams": False,
                "playerScores": scores,
            }
        )
    return {
        "about": "A Play File for Board Game Stats, written by companion history export.",
        "players": [
            {"uuid": _uid("player", n), "id": i, "name": n, "isAnonymous": False, "bggUsername": ""}
            for n, i in players.items()
        ],
        "locations": [{"uuid": _uid("location", n), "id": i, "name": n} for n, i in tables.items()],
        "games": [
            {
                "uuid": _uid("game", k),
                "id": i,
                "name": GAME_NAMES[k],
                "cooperative": False,
                "highestWins": True,
                "noPoints": k == "chips",
            }
            for k, i in kinds.items()
        ],
        "plays": plays,
    }


CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html?data="
SOURCE_NAME = "companion"


def bgstats_play(g: GameRow) -> dict[str, Any]:
    """One play as BG Stats' documented "push a play" JSON (docs/history.md)."""
    play: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": _uid("play", g.kind, g.id, g.played_at),
        "playDate": _bgs_date(g.played_at),
        "game": {
            "name": GAME_NAMES[g.kind],
            "sourceGameId": g.kind,
            "highestWins": True,
            "noPoints": all(p["score"] is None for p in g.players),
        },
        "players": [
            {
                key: value
                for key, value in (
                    ("name", p["name"]),
                    ("sourcePlayerId", _uid("player", p["name"])),
                    ("score", p["score"]),
                    ("winner", p["won"]),
                    ("rank", p["rank"]),
                    ("startPlayer", p["seat"] == 0),
                    ("role", ""),
                )
                if value is not None  # unknown: left out, not null
            }
            for p in g.players
        ],
    }
    board = " ".join([g.mode, *g.variants]).strip()
    if board:
        play["board"] = board
    if g.table:
        play["location"] = g.table
    if not g.finished:
        play["comments"] = "unfinished game"
    return play


def to_bgstats_links(games: list[GameRow]) -> str:
    """A link per play: opened on a phone with BG Stats, each shows the app's import
    dialog for that play."""
    return "".join(
        CREATE_PLAY + quote(json.dumps(bgstats_play(g), separators=(",", ":")), safe="") + "\n"
        for g in games
    )


def dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
