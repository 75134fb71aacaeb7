"""Reading a database that may be damaged: every stored value checked once, on the way in.

:func:`clean_copy` checks every column of every table of a history file (opened
read-only): each value's type, each text through the same gate as the writers, each
JSON detail. The good rows are copied into an in-memory database of the same schema, and
the reading commands work on that copy only: a damaged row (a flipped byte, invalid
UTF-8, bad JSON, a text where a number belongs) is one line naming its table and row id,
every other row still shows, and nothing downstream meets a value of the wrong shape.

The bulk of the checking is SQLite's: types and ranges by ``typeof`` and comparisons, and
a text column's *distinct* values checked once each (a press's source, timing, use and
fate take a handful of values over thousands of rows). Only the JSON details are parsed
row by row.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator

from companion.errors import InputError
from companion.history.clean import (
    MAX_PRESS_NS,
    check_name,
    check_text,
    check_value,
    decode,
    may_hold_unclean,
)
from companion.history.db import MEMORY, migrate
from companion.history.model import KINDS

# A column's kind: int, flag (0 or 1), ns (a stamp within a day of the reveal), real,
# text, name (a player's), kind (a game's), list or dict (JSON); "?": it may be NULL.
COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "players": (("id", "int"), ("name", "name")),
    "aliases": (("alias", "name"), ("player_id", "int")),
    "games": (
        ("id", "int"),
        ("kind", "kind"),
        ("played_at", "text"),
        ("table_name", "text"),
        ("mode", "text"),
        ("variants", "list"),
        ("finished", "flag"),
        ("result", "dict"),
        ("detail", "dict"),
        ("source", "text"),
        ("content_hash", "text"),
        ("game_key", "text"),
        ("recorded_at", "text"),
    ),
    "game_players": (
        ("game_id", "int"),
        ("player_id", "int"),
        ("seat", "int"),
        ("score", "real?"),
        ("rank", "int?"),
        ("won", "flag"),
        ("detail", "dict"),
    ),
    "rounds": (
        ("game_id", "int"),
        ("n", "int"),
        ("outcome", "text"),
        ("reason", "text"),
        ("winner_id", "int?"),
        ("lead_ns", "ns?"),
        ("digest", "text"),
        ("counts", "dict"),
        ("detail", "dict"),
    ),
    "presses": (
        ("id", "int"),
        ("game_id", "int"),
        ("round_n", "int"),
        ("player_id", "int"),
        ("t_ns", "ns?"),
        ("source", "text"),
        ("timing", "text"),
        ("uncertainty_us", "int?"),
        ("use", "text"),
        ("counted", "flag"),
        ("fate", "text"),
        ("cause", "text?"),
    ),
}
NUMBER_RULES = {  # SQL true for a value of the right type that is still wrong, and why
    "int": ("0", ""),
    "flag": ("{c} NOT IN (0, 1)", "neither 0 nor 1"),
    "ns": (f"{{c}} > {MAX_PRESS_NS} OR {{c}} < -{MAX_PRESS_NS}", "over a day from its reveal"),
    "real": ("abs({c}) > 1.7e308", "not a finite number"),
}


def _numbers(conn: sqlite3.Connection, table: str, c: str, kind: str) -> Iterator[tuple[int, str]]:
    base, optional = kind.rstrip("?"), kind.endswith("?")
    types = ["'integer'", "'real'"] if base == "real" else ["'integer'"]
    types += ["'null'"] if optional else []
    wrong, why = NUMBER_RULES[base]
    sql = (
        f"SELECT rowid, typeof({c}) FROM {table} WHERE typeof({c}) NOT IN ({', '.join(types)})"
        f" OR (typeof({c}) != 'null' AND ({wrong.format(c=c)}))"
    )
    for rowid, kind_found in conn.execute(sql):
        expected = "a number" if base == "real" else "an integer"
        found = kind_found if kind_found not in ("integer", "real") else "out of range"
        yield rowid, why if found == "out of range" else f"not {expected}: {found}"


def _texts(conn: sqlite3.Connection, table: str, c: str, kind: str) -> Iterator[tuple[int, str]]:
    """Each distinct stored text checked once; the rows holding a bad one named."""
    optional = kind.endswith("?")
    allowed = "('text', 'null')" if optional else "('text')"
    for rowid, found in conn.execute(
        f"SELECT rowid, typeof({c}) FROM {table} WHERE typeof({c}) NOT IN {allowed}"
    ):
        yield rowid, f"not text: {found}"
    check = {"name": check_name, "kind": _check_kind}.get(kind, check_text)
    for (raw,) in conn.execute(
        f"SELECT DISTINCT CAST({c} AS BLOB) FROM {table} WHERE typeof({c}) = 'text'"
    ):
        try:
            check(bytes(raw).decode("utf-8"), "")
        except UnicodeDecodeError:
            why = "not UTF-8"
        except InputError as exc:
            why = exc.message
        else:
            continue
        for (rowid,) in conn.execute(
            f"SELECT rowid FROM {table} WHERE typeof({c}) = 'text' AND CAST({c} AS BLOB) = ?",
            (raw,),
        ):
            yield rowid, why


def _check_kind(value: str, where: str) -> str:
    if value not in KINDS:
        raise InputError(where, f"not a game of the five: {value!r:.40}")
    return value


def _details(conn: sqlite3.Connection, table: str, c: str, kind: str) -> Iterator[tuple[int, str]]:
    """Each JSON detail parsed: an object or a list as it should be, clean, not too deep."""
    shape = dict if kind == "dict" else list
    for rowid, text in conn.execute(f"SELECT rowid, {c} FROM {table}"):
        try:
            if not isinstance(text, str):
                raise InputError("", f"not text: {type(text).__name__}")
            check_text(text, "")
            data = json.loads(text)
            if not isinstance(data, shape):
                raise InputError("", f"not a JSON {'object' if shape is dict else 'list'}")
            if may_hold_unclean(text):
                check_value(data, "")
        except RecursionError:
            yield rowid, "JSON nested too deeply"
        except ValueError as exc:  # InputError is one too
            yield rowid, exc.message if isinstance(exc, InputError) else f"not JSON ({exc})"


def _damaged(conn: sqlite3.Connection, table: str) -> dict[int, str]:
    """Row id -> the first thing wrong with it, over every column of ``table``."""
    found: dict[int, str] = {}
    for column, kind in COLUMNS[table]:
        base = kind.rstrip("?")
        check = (
            _numbers if base in NUMBER_RULES else _details if base in ("list", "dict") else _texts
        )
        for rowid, why in check(conn, table, column, kind):
            found.setdefault(rowid, f"{column}: {why}")
    return found


def _copy_table(
    conn: sqlite3.Connection,
    copy: sqlite3.Connection,
    table: str,
    found: dict[str, dict[int, str]],
    damaged: Callable[[str], None],
) -> None:
    """The table's rows but the damaged ones, all at once (SQLite reads and writes them;
    no damaged text reaches Python's decoder). If the copy's constraints refuse a row (a
    CHECK, a NOT NULL, a UNIQUE broken in the file), row by row, naming each refused."""
    bad = found[table]
    for rowid in sorted(bad):
        damaged(f"{table} row {rowid}: {bad[rowid]}")
    names = ", ".join(c for c, _ in COLUMNS[table])
    insert = f"INSERT INTO {table}({names}) VALUES ({', '.join('?' * len(COLUMNS[table]))})"
    keep = f" WHERE rowid NOT IN ({', '.join(map(str, sorted(bad)))})" if bad else ""
    conn.text_factory = str  # the fast path: every text left is good UTF-8
    try:
        copy.execute("SAVEPOINT bulk")
        try:
            copy.executemany(insert, conn.execute(f"SELECT {names} FROM {table}{keep}"))
            return
        except sqlite3.IntegrityError:
            copy.execute("ROLLBACK TO bulk")
        finally:
            copy.execute("RELEASE bulk")
        for rowid, *values in conn.execute(f"SELECT rowid, {names} FROM {table}{keep}"):
            try:
                copy.execute(insert, values)
            except sqlite3.IntegrityError as exc:
                damaged(f"{table} row {rowid}: {exc}")
    finally:
        conn.text_factory = decode


def clean_copy(conn: sqlite3.Connection, damaged: Callable[[str], None]) -> sqlite3.Connection:
    """The history in ``conn`` with its good rows only; ``damaged`` hears one line per
    row left out (``games row 7: result: not JSON (...)``). When nothing is damaged (the
    usual case) that is ``conn`` itself; else a copy in memory."""
    conn.text_factory = decode
    found = {table: _damaged(conn, table) for table in COLUMNS}
    if not any(found.values()):
        conn.text_factory = str
        return conn
    copy = sqlite3.connect(MEMORY, isolation_level=None)
    migrate(copy)
    copy.execute("BEGIN")
    for table in COLUMNS:
        _copy_table(conn, copy, table, found, damaged)
    copy.execute("COMMIT")
    copy.execute("PRAGMA query_only = ON")
    return copy
