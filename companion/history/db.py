"""The history database: where it lives, how it is opened, and its schema's versions.

SQLite in WAL mode with foreign keys on. Each connection waits up to ``BUSY_TIMEOUT_MS``
for another writer (the referee and a scoring command may write at once), and every
write is one short ``BEGIN IMMEDIATE`` transaction, so a writer never meets "database is
locked" and a power cut loses at most the game being written. The one step SQLite will
not wait for, the switch of a new file to WAL, is retried by ``enter_wal``.

The schema's version is ``PRAGMA user_version``; ``MIGRATIONS[n]`` takes a database from
version ``n`` to ``n + 1``, so a file from any earlier version is brought forward step by
step when it is opened, each step in its own transaction.

Only a file that is ours is ever written: one we create, or one carrying our ``PRAGMA
application_id`` (or, made before the id, our tables); any other file is refused before
a byte of it changes. The reading commands go through :func:`read`, which opens the file
read-only (``mode=ro``, or ``immutable=1`` when nothing else is writing it) and changes
nothing on disk.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote

from companion import text as gate
from companion.errors import InputError
from companion.history.clean import decode

ENV_VAR = "COMPANION_HISTORY_DB"
BUSY_TIMEOUT_MS = 30_000
MEMORY = ":memory:"

# Version 0 -> 1: the first schema. Append, never edit: a step that shipped is history.
SCHEMA_V1 = """
CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE
);
CREATE TABLE aliases (
    alias TEXT PRIMARY KEY COLLATE NOCASE,
    player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('chomp', 'dino', 'getbit', 'foodchain', 'chips')),
    played_at TEXT NOT NULL,
    table_name TEXT NOT NULL DEFAULT '',
    mode TEXT NOT NULL DEFAULT '',
    variants TEXT NOT NULL DEFAULT '[]',
    finished INTEGER NOT NULL CHECK (finished IN (0, 1)),
    result TEXT NOT NULL DEFAULT '{}',
    detail TEXT NOT NULL DEFAULT '{}',
    source TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL UNIQUE,
    game_key TEXT NOT NULL DEFAULT '',
    recorded_at TEXT NOT NULL
);
CREATE INDEX games_by_kind_date ON games(kind, played_at);
CREATE INDEX games_by_key ON games(game_key) WHERE game_key != '';
CREATE TABLE game_players (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    player_id INTEGER NOT NULL REFERENCES players(id),
    seat INTEGER NOT NULL,
    score REAL,
    rank INTEGER,
    won INTEGER NOT NULL CHECK (won IN (0, 1)),
    detail TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, player_id)
);
CREATE INDEX game_players_by_player ON game_players(player_id);
CREATE TABLE rounds (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    outcome TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    winner_id INTEGER REFERENCES players(id),
    lead_ns INTEGER,
    digest TEXT NOT NULL DEFAULT '',
    counts TEXT NOT NULL DEFAULT '{}',
    detail TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (game_id, n)
);
CREATE INDEX rounds_by_winner ON rounds(winner_id, outcome, lead_ns);
CREATE TABLE presses (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL,
    round_n INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    t_ns INTEGER,
    source TEXT NOT NULL,
    timing TEXT NOT NULL,
    uncertainty_us INTEGER,
    use TEXT NOT NULL,
    counted INTEGER NOT NULL CHECK (counted IN (0, 1)),
    fate TEXT NOT NULL,
    cause TEXT,
    FOREIGN KEY (game_id, round_n) REFERENCES rounds(game_id, n) ON DELETE CASCADE
);
CREATE INDEX presses_by_player ON presses(player_id, counted, t_ns);
CREATE INDEX presses_by_fate ON presses(player_id, counted, fate, cause);
CREATE INDEX presses_by_game ON presses(game_id, round_n);
"""

# "ComH": the file is a companion history. Set when a file is created, and by step 1 -> 2
# for the databases made before it.
APPLICATION_ID = 0x436F6D48
SCHEMA_V2 = f"PRAGMA application_id = {APPLICATION_ID}"

MIGRATIONS: tuple[str, ...] = (SCHEMA_V1, SCHEMA_V2)
LATEST = len(MIGRATIONS)
TABLES = frozenset({"players", "aliases", "games", "game_players", "rounds", "presses"})
SQLITE_MAGIC = b"SQLite format 3\x00"
THEIRS = "another program's SQLite database"
T = TypeVar("T")


def default_path() -> Path:
    """``$COMPANION_HISTORY_DB``, else ``$XDG_DATA_HOME/companion/history.sqlite3``
    (``~/.local/share`` when XDG_DATA_HOME is unset or not absolute, as the spec says)."""
    given = os.environ.get(ENV_VAR)
    if given:
        return Path(given)
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "share"
    return root / "companion" / "history.sqlite3"


def connect(
    path: Path | str | None = None, migrations: Sequence[str] = MIGRATIONS
) -> sqlite3.Connection:
    """Open for writing (creating if need be) and bring the schema forward; errors name
    the file. A file that is not ours is refused before anything is written to it."""
    where = str(default_path() if path is None else path)
    new = where == MEMORY or _size(where) == 0
    if not new:
        read(where, lambda conn: None, migrations)  # ours, not from a newer companion
    elif where != MEMORY:
        try:
            Path(where).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError("", f"cannot make its folder: {exc.strerror}", where) from None
    try:
        conn = sqlite3.connect(where, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        conn.text_factory = decode  # a damaged stored text is a value, never a crash
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        if new:  # the first write to a file of ours marks it ours (a crash leaves it 0 bytes)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        if where != MEMORY:
            enter_wal(conn)
            # FULL: the WAL is synced at every commit, so a power cut cannot take back a
            # game already written (NORMAL could lose the last few commits).
            conn.execute("PRAGMA synchronous = FULL")
        migrate(conn, migrations)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise InputError("", f"not a history database ({_said(exc)})", where) from None
    return conn


def _said(exc: Exception) -> str:
    """SQLite's message; one it gave in bytes that are not UTF-8 (a damaged schema's
    text quoted back) is named, not decoded."""
    if isinstance(exc, UnicodeDecodeError):
        return "SQLite's message about it is not UTF-8: the file is damaged"
    # A damaged schema's text quoted back may hold line breaks and controls: one line, shown
    # safely, cut short.
    said = gate.REFUSED_CHARACTERS.sub("?", " ".join(str(exc).split()))
    return said if len(said) <= 200 else said[:200] + "..."


def _size(where: str) -> int:
    """The file's size; 0 for no file (a new database: ours to create). A folder, a
    device or a pipe is refused here (reading a pipe's header would wait for ever)."""
    try:
        st = os.stat(where)
    except FileNotFoundError:
        return 0
    except OSError as exc:
        raise InputError("", f"cannot read: {exc.strerror or exc}", where) from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError("", "not a regular file (a folder, a device or a pipe)", where)
    return st.st_size


def _foreign_header(where: str) -> str | None:
    """Why the file's first bytes say it is not ours, without SQLite opening it (which
    could leave a -wal and -shm beside another program's file); None: look inside."""
    try:
        with open(where, "rb") as file:
            header = file.read(100)
    except OSError as exc:
        raise InputError("", f"cannot read: {exc.strerror or exc}", where) from None
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        return "not a SQLite database, so not a history database"
    app = int.from_bytes(header[68:72], "big", signed=True)
    if app not in (0, APPLICATION_ID):
        return f"{THEIRS} (application_id {app:#x}), not a history"
    return None


def check_ours(conn: sqlite3.Connection, where: str, migrations: Sequence[str] = MIGRATIONS) -> int:
    """The schema version of a database that is ours; anything else is an InputError."""
    app = int(conn.execute("PRAGMA application_id").fetchone()[0])
    have = version(conn)
    tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if app not in (0, APPLICATION_ID):
        raise InputError("", f"{THEIRS} (application_id {app:#x}), not a history", where)
    if app == 0 and not (have >= 1 and TABLES <= tables):  # ours before the id: our tables
        raise InputError("", "a SQLite database that companion did not make: left as it is", where)
    if have > len(migrations):
        raise InputError(
            "",
            f"schema version {have} is newer than this companion knows ({len(migrations)}):"
            " left as it is",
            where,
        )
    return have


def read(
    path: Path | str | None,
    work: Callable[[sqlite3.Connection], T],
    migrations: Sequence[str] = MIGRATIONS,
) -> T:
    """``work`` done on the database opened read-only; not one byte on disk changes.

    No file is an empty history. A database at rest (no -wal beside it: nothing is
    writing it) is opened ``immutable=1``, which creates no -wal or -shm; if the file
    changed meanwhile (a writer came), the work is done again with ``mode=ro``, SQLite's
    locking read. ``mode=ro`` that cannot open (a WAL database in a read-only folder)
    falls back to ``immutable=1``: the file as of its last checkpoint.
    """
    where = str(default_path() if path is None else path)
    if where == MEMORY or _size(where) == 0:
        return work(_empty())
    reason = _foreign_header(where)
    if reason:
        raise InputError("", reason, where)
    try:
        if not _sidecars(where):
            before = _stamp(where)
            try:
                result, failure = _read_as(where, "immutable=1", work, migrations), None
            except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
                result, failure = None, exc
            if _stamp(where) == before and not _sidecars(where):
                if failure is not None:
                    raise failure
                return result  # type: ignore[return-value]  # None only with a failure
        try:
            return _read_as(where, "mode=ro", work, migrations)
        except sqlite3.OperationalError as exc:
            if "unable to open" not in str(exc):
                raise
            print(
                f"companion: warning: {where}: read as of its last checkpoint: its folder"
                " is read-only, so the games still in its -wal cannot be read",
                file=sys.stderr,
            )
            return _read_as(where, "immutable=1", work, migrations)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # SQLite's message may be bytes
        raise InputError(
            "", f"cannot be read as a history database ({_said(exc)})", where
        ) from None


def _read_as(
    where: str, mode: str, work: Callable[[sqlite3.Connection], T], migrations: Sequence[str]
) -> T:
    uri = "file:" + quote(os.path.abspath(where)) + "?" + mode
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.text_factory = decode
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA query_only = ON")
        if check_ours(conn, where, migrations) == 0:
            return work(_empty())  # ours, made but not yet given its tables
        return work(conn)
    finally:
        conn.close()


def _sidecars(where: str) -> bool:
    return any(os.path.exists(where + end) for end in ("-wal", "-journal"))


def _stamp(where: str) -> tuple[int, int, int, int]:
    st = os.stat(where)
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _empty() -> sqlite3.Connection:
    """An empty history in memory, for a database not made yet."""
    conn = sqlite3.connect(MEMORY, isolation_level=None)
    migrate(conn)
    return conn


def enter_wal(conn: sqlite3.Connection, patience_s: float = BUSY_TIMEOUT_MS / 1000) -> None:
    """Put the file in WAL mode, waiting for a process that is doing the same.

    The switch needs the file to itself, and SQLite answers "database is locked" at once
    instead of calling the busy handler when two processes open a new file together; so
    the switch is retried here, and skipped when the file is WAL already (it persists).
    """
    deadline = time.monotonic() + patience_s
    pause = 0.001
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
                return
            if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() == "wal":
                return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc):
                raise
        if time.monotonic() >= deadline:
            raise sqlite3.OperationalError("database is locked (cannot switch it to WAL)")
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, migrations: Sequence[str] = MIGRATIONS) -> int:
    """Apply the steps this file has not had yet, each in one transaction; the version."""
    while True:
        with write(conn):
            have = version(conn)
            if have > len(migrations):
                raise sqlite3.DatabaseError(
                    f"schema version {have} is newer than this companion knows ({len(migrations)})"
                )
            if have == len(migrations):
                return have
            for statement in migrations[have].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {have + 1}")


@contextmanager
def write(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One short write transaction: taken at once (IMMEDIATE), so two writers queue on
    the busy timeout instead of failing at commit; rolled back on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
