"""Checked reading of plain data (parsed JSON or TOML) with errors that name the place.

Every reader takes the value and its path (``rounds[2].slaps[0].t_us``) and either returns
the value in the expected type or raises :class:`InputError` naming that path, so a person
fixing a file is pointed at the exact spot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from companion.errors import InputError

E = TypeVar("E")

ROOT = ""


def at(path: str, key: str | int) -> str:
    """The path of a member: ``at("rounds", 2) == "rounds[2]"``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if not key.isidentifier():
        return f"{path}[{key!r}]"
    return f"{path}.{key}" if path else key


def where(path: str) -> str:
    return path or "top level"


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def fail(path: str, message: str) -> InputError:
    return InputError(where(path), message)


def obj(
    value: object,
    path: str,
    required: Iterable[str] = (),
    optional: Iterable[str] = (),
) -> dict[str, Any]:
    """An object with exactly the known keys: a missing or unknown key is an error."""
    if not isinstance(value, Mapping):
        raise fail(path, f"expected an object, got {_kind(value)}")
    required = tuple(required)
    known = set(required) | set(optional)
    for key in value:
        if key not in known:
            raise fail(
                at(path, str(key)), f"unknown key {key!r} (known: {', '.join(sorted(known))})"
            )
    for key in required:
        if key not in value:
            raise fail(path, f"missing key {key!r}")
    return dict(value)


def mapping(value: object, path: str) -> dict[str, Any]:
    """An object with free keys (player names and the like)."""
    if not isinstance(value, Mapping):
        raise fail(path, f"expected an object, got {_kind(value)}")
    return dict(value)


def lst(value: object, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise fail(path, f"expected a list, got {_kind(value)}")
    return value


def integer(
    value: object, path: str, minimum: int | None = None, maximum: int | None = None
) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        elif isinstance(value, float):
            raise fail(path, f"expected a whole number, got {value}")
        else:
            raise fail(path, f"expected a whole number, got {_kind(value)}")
    if minimum is not None and value < minimum:
        raise fail(path, f"must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise fail(path, f"must be at most {maximum}, got {value}")
    return value


def number(value: object, path: str, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(path, f"expected a number, got {_kind(value)}")
    if minimum is not None and value < minimum:
        raise fail(path, f"must be at least {minimum}, got {value}")
    return float(value)


def boolean(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise fail(path, f"expected true or false, got {_kind(value)}")
    return value


def name(value: object, path: str, what: str = "name") -> str:
    """A non-empty string naming a player, robot or section."""
    if not isinstance(value, str) or not value:
        raise fail(path, f"expected a non-empty {what} string, got {_kind(value)}")
    return value


def choice(value: object, path: str, options: Mapping[str, E], what: str) -> E:
    """One of a fixed vocabulary (card names, modes), with the vocabulary in the error."""
    if not isinstance(value, str):
        raise fail(path, f"expected a {what} name, got {_kind(value)}")
    try:
        return options[value]
    except KeyError:
        raise fail(path, f"unknown {what} {value!r} (one of: {', '.join(options)})") from None
