"""Reading a database that may be damaged: every stored row checked once, on the way in.

:func:`clean_copy` reads each table of a history file (opened read-only) row by row,
checks every value (its type, its text through the same gate as the writers, its JSON),
and copies the good rows into an in-memory database of the same schema. The reading
commands work on that copy only, so a damaged row (a flipped byte, invalid UTF-8, bad
JSON, a text where a number belongs) is one line naming its table and row id, and every
other row still shows; nothing downstream ever meets a value of the wrong shape.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from companion.errors import InputError
from companion.history.clean import (
    Undecodable,
    check_int,
    check_name,
    check_number,
    check_press_ns,
    check_text,
    check_value,
    decode,
)
from companion.history.db import MEMORY, migrate


def _text(value: object, where: str) -> str:
    if isinstance(value, Undecodable):
        raise InputError(where, "not UTF-8")
    return check_text(value, where)


def _name(value: object, where: str) -> str:
    return check_name(_text(value, where), where)


def _opt(check: Callable[[object, str], Any]) -> Callable[[object, str], Any]:
    return lambda value, where: None if value is None else check(value, where)


def _real(value: object, where: str) -> float:
    return check_number(value, where)


def _flag(value: object, where: str) -> int:
    flag = check_int(value, where)
    if flag not in (0, 1):
        raise InputError(where, "neither 0 nor 1")
    return flag


def _json(shape: type) -> Callable[[object, str], str]:
    def check(value: object, where: str) -> str:
        text = _text(value, where)
        try:
            data = json.loads(text)
        except RecursionError:
            raise InputError(where, "JSON nested too deeply") from None
        except ValueError as exc:
            raise InputError(where, f"not JSON ({exc})") from None
        if not isinstance(data, shape):
            raise InputError(where, f"not a JSON {shape.__name__}")
        check_value(data, where)
        return text

    return check


Check = Callable[[object, str], Any]
_INT: Check = check_int
COLUMNS: dict[str, tuple[tuple[str, Check], ...]] = {
    "players": (("id", _INT), ("name", _name)),
    "aliases": (("alias", _name), ("player_id", _INT)),
    "games": (
        ("id", _INT),
        ("kind", _text),
        ("played_at", _text),
        ("table_name", _text),
        ("mode", _text),
        ("variants", _json(list)),
        ("finished", _flag),
        ("result", _json(dict)),
        ("detail", _json(dict)),
        ("source", _text),
        ("content_hash", _text),
        ("game_key", _text),
        ("recorded_at", _text),
    ),
    "game_players": (
        ("game_id", _INT),
        ("player_id", _INT),
        ("seat", _INT),
        ("score", _opt(_real)),
        ("rank", _opt(_INT)),
        ("won", _flag),
        ("detail", _json(dict)),
    ),
    "rounds": (
        ("game_id", _INT),
        ("n", _INT),
        ("outcome", _text),
        ("reason", _text),
        ("winner_id", _opt(_INT)),
        ("lead_ns", _opt(check_press_ns)),
        ("digest", _text),
        ("counts", _json(dict)),
        ("detail", _json(dict)),
    ),
    "presses": (
        ("id", _INT),
        ("game_id", _INT),
        ("round_n", _INT),
        ("player_id", _INT),
        ("t_ns", _opt(check_press_ns)),
        ("source", _text),
        ("timing", _text),
        ("uncertainty_us", _opt(_INT)),
        ("use", _text),
        ("counted", _flag),
        ("fate", _text),
        ("cause", _opt(_text)),
    ),
}


def clean_copy(conn: sqlite3.Connection, damaged: Callable[[str], None]) -> sqlite3.Connection:
    """The history in ``conn``, its good rows only, in memory; ``damaged`` hears one line
    per row left out (``games row 7: result: not JSON (...)``)."""
    copy = sqlite3.connect(MEMORY, isolation_level=None)
    migrate(copy)
    conn.text_factory = decode
    copy.execute("BEGIN")
    for table, columns in COLUMNS.items():
        names = ", ".join(c for c, _ in columns)
        insert = f"INSERT INTO {table}({names}) VALUES ({', '.join('?' * len(columns))})"
        for rowid, *values in conn.execute(f"SELECT rowid, {names} FROM {table} ORDER BY rowid"):
            try:
                row = [check(v, column) for (column, check), v in zip(columns, values, strict=True)]
                copy.execute(insert, row)
            except InputError as exc:
                damaged(f"{table} row {rowid}: {exc}")
            except sqlite3.IntegrityError as exc:  # a CHECK, a NOT NULL, a UNIQUE broken
                damaged(f"{table} row {rowid}: {exc}")
    copy.execute("COMMIT")
    copy.execute("PRAGMA query_only = ON")
    return copy
