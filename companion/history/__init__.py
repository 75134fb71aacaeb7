"""Every game remembered: a SQLite history of the five games, their players and figures.

The recording API (docs/history.md) is what the tables and the scoring commands call
once a game or a score is finished. Each call opens the database, writes the game in one
short transaction and closes it; the same game recorded twice is stored once. None of
them belongs on a decision path: the referee records from its journal after the game
(or through :func:`record_later`, on a thread of its own).
"""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from companion.errors import CompanionError, InputError
from companion.history.clean import check_game
from companion.history.db import connect, default_path
from companion.history.model import GameRecord, PlayerResult
from companion.history.store import Written, write_game

if TYPE_CHECKING:
    from companion.games.dino import Land
    from companion.games.foodchain import PlayerScore
    from companion.games.getbit import Replay

__all__ = [
    "GameRecord",
    "Written",
    "connect",
    "default_path",
    "import_files",
    "now",
    "record_chips",
    "record_chomp_journal",
    "record_dino",
    "record_foodchain",
    "record_game",
    "record_getbit",
    "record_later",
    "remember",
]

Db = Path | str | sqlite3.Connection | None
T = TypeVar("T")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def record_game(game: GameRecord, db: Db = None) -> Written:
    """Store a game (one transaction); ``db`` is a path, an open connection, or None for
    the default database."""
    if isinstance(db, sqlite3.Connection):
        return write_game(db, game)
    conn = connect(db)
    try:
        return write_game(conn, game)
    finally:
        conn.close()


def record_chomp_journal(
    journal: Path | str, db: Db = None, table: str = "", played_at: str | None = None
) -> Written:
    """A CHOMP! game from the referee's journal, once the game is over (or abandoned)."""
    from companion.history.chomp import game_from_entries, journal_entries

    entries, _ = journal_entries(journal)
    return record_game(game_from_entries(entries, played_at or now(), str(journal), table), db)


def record_getbit(game: Replay, db: Db = None, table: str = "", source: str = "") -> Written:
    """A Get Bit! game as ``getbit play`` keeps it (``games.getbit.Replay``)."""
    from companion.history.readers import getbit_record

    return record_game(getbit_record(game, now(), source, table), db)


def record_dino(
    lands: Mapping[str, Land], db: Db = None, table: str = "", source: str = ""
) -> Written:
    """A Chomp game: each player's land, as ``dino game`` / ``dino score`` / ``dino scan``
    read it (one player is a game of one)."""
    from companion.history.readers import dino_record

    return record_game(dino_record(lands, now(), source, table), db)


def record_foodchain(
    scores: Mapping[str, PlayerScore],
    rule: str = "standard",
    db: Db = None,
    table: str = "",
    source: str = "",
) -> Written:
    """A Food Chain game as ``foodchain score`` scored it (``rule``: standard or optional)."""
    from companion.history.readers import foodchain_record

    return record_game(foodchain_record(scores, now(), rule, source, table), db)


def record_chips(
    players: Sequence[str],
    winner: str | None,
    out: Sequence[str] = (),
    db: Db = None,
    table: str = "",
    source: str = "",
) -> Written:
    """A Chips Escape game: the seats, the winner, and who went out in which order."""
    last = len(players)
    place = {p: last - i for i, p in enumerate(out)}
    results = tuple(
        PlayerResult(p, None, 1 if p == winner else place.get(p), p == winner) for p in players
    )
    game = GameRecord(
        "chips",
        now(),
        results,
        winner is not None,
        table=table,
        result={"winner": winner, "out": list(out)},
        source=source,
    )
    return record_game(game, db)


def record_later(
    record: Callable[..., Written],
    *args: Any,
    on_error: Callable[[BaseException], None] | None = None,
    **kwargs: Any,
) -> threading.Thread:
    """Run a ``record_*`` call on a thread of its own, so the caller never waits on the
    disk; a failure is reported through ``on_error`` (default: one line on stderr). The
    thread is not a daemon: a program that ends waits for the game to be written."""

    def run() -> None:
        try:
            record(*args, **kwargs)
        except Exception as exc:  # a history write must never take the table down
            (on_error or _warn)(exc)

    thread = threading.Thread(target=run, name="history-record", daemon=False)
    thread.start()
    return thread


def _warn(exc: BaseException) -> None:
    what = str(exc) if isinstance(exc, CompanionError | OSError | sqlite3.Error) else repr(exc)
    print(
        f"companion: the score stands; the game was not recorded in the history: {what}",
        file=sys.stderr,
    )


OFF_VAR = "COMPANION_HISTORY"  # "off": no command records anything


def remember(
    record: Callable[..., Written], *args: Any, db: Path | str | None = None, **kwargs: Any
) -> Written | None:
    """What a scoring command calls once its result is printed: the game recorded in the
    history (``db``, else the default database), or, if that fails, one warning line and
    nothing else: a score already shown is never taken back for a history that failed."""
    if os.environ.get(OFF_VAR, "").lower() in ("off", "0", "no"):
        return None
    try:
        return record(*args, db=db, **kwargs)
    except Exception as exc:  # any fault of the history: the printed score stands
        _warn(exc)
        return None


def import_files(
    paths: Iterable[Path | str],
    db: sqlite3.Connection,
    played_at: str | None = None,
    table: str = "",
    warn: Callable[[str], None] | None = None,
) -> list[tuple[str, Written]]:
    """Read every file first (a damaged one stops the import before anything is written),
    then store each game in its own transaction."""
    from companion.history.readers import read_game_file

    games = [(str(p), read_game_file(p, played_at, table, warn)) for p in paths]
    for name, game in games:  # a game that cannot be stored stops the import before any is
        _named(name, check_game, game)
    return [(name, _named(name, write_game, db, game)) for name, game in games]


def _named(source: str, step: Callable[..., T], *args: Any) -> T:
    """``step(*args)``, its InputError naming the file the game came from."""
    try:
        return step(*args)
    except InputError as exc:
        raise exc if exc.source else exc.in_source(source) from None
