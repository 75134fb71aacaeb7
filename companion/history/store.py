"""Writing games into the database and reading them back.

A game is written in one transaction: its players (found by name or alias, created when
new), the game row, each player's result, its rounds and presses. A game whose content
hash is already there is not written again.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from companion.errors import InputError
from companion.history.clean import check_game, check_name
from companion.history.db import write
from companion.history.model import GameRecord, round_digest


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def find_player(conn: sqlite3.Connection, name: str) -> int | None:
    """A player's id by name or alias (either way, case does not matter).

    SQLite's NOCASE folds A to Z only, so a name found no other way is compared with
    every name and alias casefolded (``Élodie`` is ``ÉLODIE``); players are few."""
    row = conn.execute("SELECT player_id FROM aliases WHERE alias = ?", (name,)).fetchone()
    if row is None:
        row = conn.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()
    if row is None:
        folded = name.casefold()
        row = next(
            (
                (pid,)
                for other, pid in conn.execute(
                    "SELECT alias, player_id FROM aliases UNION ALL"
                    " SELECT name, id FROM players ORDER BY 2"
                )
                if isinstance(other, str) and other.casefold() == folded
            ),
            None,
        )
    return None if row is None else int(row[0])


def _player(conn: sqlite3.Connection, name: str, cache: dict[str, int]) -> int:
    if name not in cache:
        found = find_player(conn, name)
        if found is None:
            found = int(
                conn.execute("INSERT INTO players(name) VALUES (?)", (name,)).lastrowid or 0
            )
        cache[name] = found
    return cache[name]


@dataclass(frozen=True)
class Written:
    game_id: int
    added: bool  # False: the same game (or a longer copy of it) was already there
    replaced: int | None = None  # the unfinished, shorter copy of this game it replaced


def _copies(conn: sqlite3.Connection, game: GameRecord) -> tuple[int | None, int | None]:
    """(an unfinished shorter copy of this game, a longer copy of it) already stored.

    Copies share the game's key, and each settled round of the shorter one is the same as
    the longer one's round of that number (a journal imported mid-game, then finished)."""
    if not game.key:
        return None, None
    mine = {r.n: round_digest(r) for r in game.rounds}
    for game_id, finished in conn.execute(
        "SELECT id, finished FROM games WHERE game_key = ? AND kind = ? ORDER BY id",
        (game.key, game.kind),
    ).fetchall():
        theirs = dict(conn.execute("SELECT n, digest FROM rounds WHERE game_id = ?", (game_id,)))
        shorter = not finished and len(theirs) <= len(mine)
        if shorter and all(not d or mine.get(n) == d for n, d in theirs.items()):
            return int(game_id), None
        longer = not game.finished and len(mine) <= len(theirs)
        if longer and all(not d or theirs.get(n) == d for n, d in mine.items()):
            return None, int(game_id)
    return None, None


def write_game(conn: sqlite3.Connection, game: GameRecord) -> Written:
    """Store one game in one transaction, unless its content hash is already stored; an
    unfinished shorter copy of it (an earlier save, a journal imported mid-game) goes."""
    check_game(game)  # before anything is written: clean text, numbers SQLite can hold
    digest = game.content_hash()
    with write(conn):
        row = conn.execute("SELECT id FROM games WHERE content_hash = ?", (digest,)).fetchone()
        if row is not None:
            return Written(int(row[0]), False)
        replaced, longer = _copies(conn, game)
        if longer is not None:
            return Written(longer, False)
        if replaced is not None:
            conn.execute("DELETE FROM games WHERE id = ?", (replaced,))
        now = datetime.now(UTC).isoformat(timespec="seconds")
        cursor = conn.execute(
            "INSERT INTO games(kind, played_at, table_name, mode, variants, finished, result,"
            " detail, source, content_hash, game_key, recorded_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                game.kind,
                game.played_at,
                game.table,
                game.mode,
                _json(list(game.variants)),
                int(game.finished),
                _json(game.result),
                _json(game.detail),
                game.source,
                digest,
                game.key,
                now,
            ),
        )
        game_id = int(cursor.lastrowid or 0)
        _write_rows(conn, game_id, game)
    return Written(game_id, True, replaced)


def _write_rows(conn: sqlite3.Connection, game_id: int, game: GameRecord) -> None:
    """The game's players, rounds and presses (inside :func:`write_game`'s transaction)."""
    ids: dict[str, int] = {}
    seats: dict[int, str] = {}
    for p in game.players:
        pid = _player(conn, p.name, ids)
        if pid in seats:  # rolled back with the whole game
            raise InputError(
                "players",
                f"{seats[pid]!r} and {p.name!r} are one player in the history (case does not"
                " matter, and an alias is the same person): two seats of one game cannot be"
                " one player; rename one seat",
            )
        seats[pid] = p.name
    conn.executemany(
        "INSERT INTO game_players(game_id, player_id, seat, score, rank, won, detail)"
        " VALUES (?,?,?,?,?,?,?)",
        [
            (
                game_id,
                _player(conn, p.name, ids),
                seat,
                p.score,
                p.rank,
                int(p.won),
                _json(p.detail),
            )
            for seat, p in enumerate(game.players)
        ],
    )
    conn.executemany(
        "INSERT INTO rounds(game_id, n, outcome, reason, winner_id, lead_ns, digest, counts,"
        " detail) VALUES (?,?,?,?,?,?,?,?,?)",
        [
            (
                game_id,
                r.n,
                r.outcome,
                r.reason,
                None if r.winner is None else _player(conn, r.winner, ids),
                r.lead_ns,
                round_digest(r),
                _json(r.counts),
                _json(r.detail),
            )
            for r in game.rounds
        ],
    )
    conn.executemany(
        "INSERT INTO presses(game_id, round_n, player_id, t_ns, source, timing,"
        " uncertainty_us, use, counted, fate, cause) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                game_id,
                r.n,
                _player(conn, p.player, ids),
                p.t_ns,
                p.source,
                p.timing,
                p.uncertainty_us,
                p.use,
                int(p.counted),
                p.fate,
                p.cause,
            )
            for r in game.rounds
            for p in r.presses
        ],
    )


def add_alias(conn: sqlite3.Connection, alias: str, name: str) -> None:
    """``alias`` is another name of ``name`` from now on; games already stored under the
    alias as a player of its own move to ``name`` (one person, one history)."""
    check_name(alias, "ALIAS")
    check_name(name, "NAME")
    with write(conn):
        target = find_player(conn, name)
        if target is None:
            raise InputError("NAME", f"no player called {name!r}")
        other = find_player(conn, alias)
        if other == target:
            return
        if other is not None:
            both = conn.execute(
                "SELECT a.game_id FROM game_players a JOIN game_players b USING (game_id)"
                " WHERE a.player_id = ? AND b.player_id = ?",
                (other, target),
            ).fetchone()
            if both is not None:
                raise InputError(
                    "ALIAS", f"{alias!r} and {name!r} played in the same game (#{both[0]})"
                )
            for table, column in (
                ("game_players", "player_id"),
                ("rounds", "winner_id"),
                ("presses", "player_id"),
                ("aliases", "player_id"),
            ):
                conn.execute(f"UPDATE {table} SET {column} = ? WHERE {column} = ?", (target, other))
            conn.execute("DELETE FROM players WHERE id = ?", (other,))
        conn.execute(
            "INSERT OR REPLACE INTO aliases(alias, player_id) VALUES (?, ?)", (alias, target)
        )


@dataclass(frozen=True)
class GameRow:
    id: int
    kind: str
    played_at: str
    table: str
    mode: str
    variants: list[str]
    finished: bool
    result: dict[str, Any]
    detail: dict[str, Any]
    source: str
    players: list[dict[str, Any]]  # name, seat, score, rank, won, detail


def list_games(
    conn: sqlite3.Connection,
    kind: str | None = None,
    player: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> list[GameRow]:
    """Games, oldest first, filtered by kind, player (name or alias) and date (ISO prefix)."""
    where, args = [], []
    if kind:
        where.append("kind = ?")
        args.append(kind)
    if player:
        pid = find_player(conn, player)
        if pid is None:
            return []
        where.append("id IN (SELECT game_id FROM game_players WHERE player_id = ?)")
        args.append(str(pid))
    if since:
        where.append("played_at >= ?")
        args.append(since)
    if until:
        where.append("substr(played_at, 1, ?) <= ?")
        args.extend([str(len(until)), until])
    sql = "SELECT * FROM games" + (" WHERE " + " AND ".join(where) if where else "")
    rows = conn.execute(sql + " ORDER BY played_at, id", args).fetchall()
    return [_game_row(conn, row) for row in rows]


def get_game(conn: sqlite3.Connection, game_id: int) -> GameRow:
    row = conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise InputError("GAME", f"no game #{game_id} in the history")
    return _game_row(conn, row)


def _game_row(conn: sqlite3.Connection, row: sqlite3.Row | tuple[Any, ...]) -> GameRow:
    gid, kind, played_at, table, mode, variants, finished, result, detail, source = row[:10]
    players = [
        {
            "name": name,
            "seat": seat,
            "score": score,
            "rank": rank,
            "won": bool(won),
            "detail": json.loads(pdetail),
        }
        for name, seat, score, rank, won, pdetail in conn.execute(
            "SELECT p.name, g.seat, g.score, g.rank, g.won, g.detail FROM game_players g"
            " JOIN players p ON p.id = g.player_id WHERE g.game_id = ? ORDER BY g.seat",
            (gid,),
        )
    ]
    return GameRow(
        int(gid),
        kind,
        played_at,
        table,
        mode,
        json.loads(variants),
        bool(finished),
        json.loads(result),
        json.loads(detail),
        source,
        players,
    )


def game_rounds(conn: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
    """A game's rounds in order, each with its presses (CHOMP!)."""
    rounds: dict[int, dict[str, Any]] = {}
    for n, outcome, reason, winner, lead, counts, detail in conn.execute(
        "SELECT r.n, r.outcome, r.reason, p.name, r.lead_ns, r.counts, r.detail FROM rounds r"
        " LEFT JOIN players p ON p.id = r.winner_id WHERE r.game_id = ? ORDER BY r.n",
        (game_id,),
    ):
        rounds[n] = {
            "n": n,
            "outcome": outcome,
            "reason": reason,
            "winner": winner,
            "lead_ns": lead,
            "counts": json.loads(counts),
            "detail": json.loads(detail),
            "presses": [],
        }
    for n, name, t_ns, source, timing, error, use, counted, fate, cause in conn.execute(
        "SELECT x.round_n, p.name, x.t_ns, x.source, x.timing, x.uncertainty_us, x.use,"
        " x.counted, x.fate, x.cause FROM presses x JOIN players p ON p.id = x.player_id"
        " WHERE x.game_id = ? ORDER BY x.round_n, x.id",
        (game_id,),
    ):
        if n not in rounds:
            continue  # its round was left out as damaged (rows.py said so)
        rounds[n]["presses"].append(
            {
                "player": name,
                "t_ns": t_ns,
                "source": source,
                "timing": timing,
                "uncertainty_us": error,
                "use": use,
                "counted": bool(counted),
                "fate": fate,
                "cause": cause,
            }
        )
    return list(rounds.values())
