"""One check for every text and number the history stores or reads back.

A name, a table, a file name or any string inside a game's details goes through the
gate for outside text (``companion/text.py``, :func:`~companion.text.refusal`) on its way
in (:func:`check_game`, :func:`check_name`) and again on its way out of the file
(``rows.py``), so a lone surrogate or a terminal escape can never be stored, nor printed
from a damaged file.
"""

from __future__ import annotations

import math
import re
from typing import Any

from companion import text as gate
from companion.errors import InputError

MAX_PRESS_NS = 86_400 * 10**9  # a press a day away from its reveal is no press of a round
MAX_DEPTH = 64  # a game's details nest a few levels; anything deeper is not a game of ours
INT64 = (-(2**63), 2**63 - 1)  # SQLite's INTEGER


class Undecodable(str):
    """A stored text that is not UTF-8: what :func:`decode` gives instead of raising."""


def decode(raw: bytes) -> str:
    """SQLite's text factory for the history: a damaged text is marked, never a crash."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return Undecodable(raw.decode("utf-8", "replace"))


# The gate's class of refused characters, also written as JSON escapes (a stored detail
# may hold them escaped), so that a clean JSON text need not be walked at all.
UNCLEAN = gate.REFUSED_CHARACTERS
UNCLEAN_ESCAPE = re.compile(
    r"\\u(?:00[01]\w|007f|00[89]\w|061c|200[ef]|202[89a-e]|206[6-9]|d[89a-f]\w\w|fdd\w|fde\w"
    r"|fff[ef])",
    re.IGNORECASE,
)


def check_text(value: object, where: str) -> str:
    if isinstance(value, Undecodable):
        raise InputError(where, "not UTF-8")
    if not isinstance(value, str):
        raise InputError(where, f"not text: {type(value).__name__}")
    reason = gate.refusal(value)
    if reason:
        raise InputError(where, reason)
    return value


def check_name(value: object, where: str) -> str:
    """A player's name or alias: clean text, not empty, not only spaces."""
    name = check_text(value, where)
    if not name.strip():
        raise InputError(where, "an empty name")
    return name


def check_int(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(where, f"not an integer: {type(value).__name__}")
    if not INT64[0] <= value <= INT64[1]:
        raise InputError(where, "an integer beyond 64 bits")
    return value


def check_number(value: object, where: str) -> float:
    if isinstance(value, int) and not isinstance(value, bool):
        return float(check_int(value, where))
    if not isinstance(value, float) or not math.isfinite(value):
        raise InputError(where, f"not a finite number: {value!r:.40}")
    return value


def may_hold_unclean(json_text: str) -> bool:
    """False when the JSON text surely decodes to clean strings nested within the bound
    (no bad character, raw or escaped, and too few brackets to nest deeper): then it
    need not be walked. True: walk it with :func:`check_value`."""
    brackets = json_text.count("[") + json_text.count("{")
    return (
        brackets > MAX_DEPTH
        or UNCLEAN.search(json_text) is not None
        or UNCLEAN_ESCAPE.search(json_text) is not None
    )


def check_value(value: object, where: str, depth: int = 0) -> Any:
    """Plain JSON data whose every string is clean and whose nesting is bounded."""
    if depth > MAX_DEPTH:
        raise InputError(where, f"nested over {MAX_DEPTH} deep")
    if isinstance(value, str):
        return check_text(value, where)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return check_number(value, where) if isinstance(value, float) else check_int(value, where)
    if isinstance(value, dict):
        for key, item in value.items():
            check_text(key, f"{where}.{key!r:.40}")
            check_value(item, f"{where}.{key}", depth + 1)
        return value
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            check_value(item, f"{where}[{i}]", depth + 1)
        return value
    raise InputError(where, f"not plain data: {type(value).__name__}")


def check_press_ns(value: object, where: str) -> int:
    """A stamp relative to the reveal (or a lead): within a day, or not a round's."""
    ns = check_int(value, where)
    if abs(ns) > MAX_PRESS_NS:
        raise InputError(where, f"{ns} ns from the reveal: over a day, not a press of a round")
    return ns


def mapping(value: object) -> dict[str, Any]:
    """A detail read back as a mapping; anything else (a damaged detail) as none."""
    return value if isinstance(value, dict) else {}


def number_in(value: object, key: str, default: float = 0) -> float:
    """The number under ``key`` of a stored detail; ``default`` when it is not a number."""
    found = mapping(value).get(key)
    if isinstance(found, int | float) and not isinstance(found, bool) and math.isfinite(found):
        return found
    return default


def _optional(check: Any, value: object, where: str) -> None:
    if value is not None:
        check(value, where)


def check_game(game: Any) -> None:
    """Every text, number and detail of a ``GameRecord`` before it is stored."""
    for seat, p in enumerate(game.players):  # the names first: the line then names the seat
        check_name(p.name, f"players[{seat}].name")
    for field in ("kind", "played_at", "mode", "table", "source", "key"):
        check_text(getattr(game, field), field)
    check_value(list(game.variants), "variants")
    check_value(game.result, "result")
    check_value(game.detail, "detail")
    for seat, p in enumerate(game.players):
        where = f"players[{seat}]"
        _optional(check_number, p.score, f"{where}.score")
        _optional(check_int, p.rank, f"{where}.rank")
        check_value(p.detail, f"{where}.detail")
    for r in game.rounds:
        where = f"round {r.n}"
        check_int(r.n, where)
        check_text(r.outcome, f"{where}.outcome")
        check_text(r.reason, f"{where}.reason")
        _optional(check_name, r.winner, f"{where}.winner")
        _optional(check_press_ns, r.lead_ns, f"{where}.lead")
        check_value(r.counts, f"{where}.counts")
        check_value(r.detail, f"{where}.detail")
        for i, press in enumerate(r.presses):
            at = f"{where}.presses[{i}]"
            check_name(press.player, f"{at}.player")
            _optional(check_press_ns, press.t_ns, f"{at}.t_ns")
            _optional(check_int, press.uncertainty_us, f"{at}.uncertainty_us")
            for field in ("source", "timing", "use", "fate"):
                check_text(getattr(press, field), f"{at}.{field}")
            _optional(check_text, press.cause, f"{at}.cause")
