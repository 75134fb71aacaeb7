"""Checked reading of plain data (parsed JSON or TOML) with errors that name the place.

Every reader takes the value and its path (``rounds[2].slaps[0].t_us``) and either returns
the value in the expected type or raises :class:`InputError` naming that path, so a person
fixing a file is pointed at the exact spot. :func:`read_toml` reads a config file into
such data; :func:`archive` sets a finished file aside, since nothing recorded is deleted.
"""

from __future__ import annotations

import math
import os
import stat
import time
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from companion import text as gate
from companion.errors import ConfigError, InputError

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
    """An object with free keys (player names and the like): each key outside text, so
    checked by the gate (:func:`companion.text.clean`)."""
    if not isinstance(value, Mapping):
        raise fail(path, f"expected an object, got {_kind(value)}")
    for key in value:
        gate.clean(key, where(path))
    return dict(value)


def lst(value: object, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise fail(path, f"expected a list, got {_kind(value)}")
    return value


LARGEST = 10**9  # no count, level, pin or window of a game is bigger; beyond is an attack


def integer(
    value: object, path: str, minimum: int | None = None, maximum: int | None = None
) -> int:
    """A whole number within [minimum, maximum]; without a maximum, at most LARGEST (and
    at least -LARGEST), so no count read from a file can make the work unbounded."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and not math.isfinite(value):
            raise fail(path, f"expected a whole number, got {value}")
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        elif isinstance(value, float):
            raise fail(path, f"expected a whole number, got {value}")
        else:
            raise fail(path, f"expected a whole number, got {_kind(value)}")
    if minimum is not None and value < minimum:
        raise fail(path, f"must be at least {minimum}, got {value}")
    top = LARGEST if maximum is None else maximum
    if value > top:
        raise fail(path, f"must be at most {top}, got {_short(value)}")
    if minimum is None and value < -LARGEST:
        raise fail(path, f"must be at least {-LARGEST}, got {_short(value)}")
    return value


def _short(value: int) -> str:
    """A number for an error line: a 5,000-digit one is named by its size."""
    digits = len(str(abs(value))) if abs(value) < 10**4000 else 4000
    return str(value) if digits <= 30 else f"a number of {digits} digits"


def number(
    value: object, path: str, minimum: float | None = None, maximum: float = float(LARGEST)
) -> float:
    """A finite number within [minimum, maximum] (NaN, inf and 1e308 are refused)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(path, f"expected a number, got {_kind(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise fail(path, f"expected a finite number, got {value}")
    if minimum is not None and value < minimum:
        raise fail(path, f"must be at least {minimum}, got {_short_number(value)}")
    if value > maximum:
        raise fail(path, f"must be at most {maximum:g}, got {_short_number(value)}")
    return float(value)


def _short_number(value: int | float) -> str:
    return _short(value) if isinstance(value, int) else f"{value:g}"


def boolean(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise fail(path, f"expected true or false, got {_kind(value)}")
    return value


PERSONS = ("player", "robot", "seat")  # what names a person at the table: a name's form


def name(value: object, path: str, what: str = "name") -> str:
    """A non-empty string naming a player, robot, file or section, through the gate for
    outside text: a player's, robot's or seat's name in the form of a name
    (:func:`companion.text.name`: trimmed, NFC, 1 to 24 printable characters), anything
    else checked as text (:func:`companion.text.clean`: valid Unicode, no controls)."""
    if not isinstance(value, str) or not value:
        raise fail(path, f"expected a non-empty {what} string, got {_kind(value)}")
    if what in PERSONS:
        return gate.name(value, where(path))
    return gate.clean(value, where(path))


def choice(value: object, path: str, options: Mapping[str, E], what: str) -> E:
    """One of a fixed vocabulary (card names, modes), with the vocabulary in the error."""
    if not isinstance(value, str):
        raise fail(path, f"expected a {what} name, got {_kind(value)}")
    gate.clean(value, where(path))
    try:
        return options[value]
    except KeyError:
        raise fail(path, f"unknown {what} {value!r} (one of: {', '.join(options)})") from None


MAX_READ_BYTES = 64_000_000  # far above any companion file; a bigger one is not ours
MAX_PATH_BYTES = 4096


def check_path(path: str | Path) -> str:
    """The path as text, or one InputError for a NUL byte or an over-long name."""
    text = str(path)
    if "\0" in text:
        raise InputError("", "a file name cannot hold a NUL byte", repr(text)[:80])
    encoded = os.fsencode(text)
    if len(encoded) > MAX_PATH_BYTES or any(len(p) > 255 for p in encoded.split(b"/")):
        raise InputError("", "the file name is too long", text[:60] + "...")
    return text


def read_bytes(path: str | Path, limit: int | None = None, what: str = "file") -> bytes:
    """A regular file's bytes, at most ``limit`` (MAX_READ_BYTES); anything else is one
    InputError."""
    limit = MAX_READ_BYTES if limit is None else limit
    text = check_path(path)
    try:
        fd = os.open(text, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError("", f"no such {what}", text) from None
    except IsADirectoryError:
        raise InputError("", "is a directory, not a file", text) from None
    except OSError as exc:
        raise InputError("", f"cannot read: {exc.strerror or exc}", text) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise InputError("", "is a directory, not a file", text)
        raise InputError("", f"not a regular file (a device or a pipe): not a {what}", text)
    with os.fdopen(fd, "rb") as handle:
        try:
            raw = handle.read(limit + 1)
        except OSError as exc:
            raise InputError("", f"cannot read: {exc.strerror or exc}", text) from None
    if len(raw) > limit:
        raise InputError("", f"over {limit} bytes: too big to be a {what}", text)
    return raw


MAX_TOML_BYTES = 1_000_000  # a table's config is a few hundred bytes; refuse anything huge


def read_toml(path: str | Path) -> dict[str, Any]:
    """A TOML config file as plain data; any problem is one ConfigError naming the file.

    Too big or nested too deeply is refused the same way, never a MemoryError or a
    RecursionError from the parser.
    """
    source = str(path)
    try:
        raw = read_bytes(path, MAX_TOML_BYTES, "config file")
    except InputError as exc:
        message = exc.message.replace("too big to be a config file", "not a table config")
        if not message.startswith(("no such", "over ", "cannot read")):
            message = f"cannot read: {message}"
        raise ConfigError("", message, exc.source or source) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError("", f"cannot read: {exc}", source) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("", f"not TOML: {exc}", source) from None
    except RecursionError:
        raise ConfigError("", "nested too deeply to be a table config", source) from None


def _dated_name(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.stem}.{stamp}{path.suffix}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.stem}.{stamp}-{n}{path.suffix}")
        n += 1
    return target


def keep_aside(path: Path) -> Path:
    """Give a file about to be replaced a second, dated name beside it (a hard link, so
    its own name never points at nothing meanwhile; a rename where links are not
    supported), and return that name."""
    target = _dated_name(path)
    try:
        os.link(path, target)
    except OSError:
        path.rename(target)
    return target


def archive(path: Path) -> Path:
    """Move a finished or abandoned file (a journal, a saved game) aside under a dated
    name next to it, and return that name: nothing recorded is ever deleted."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.stem}.{stamp}{path.suffix}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.stem}.{stamp}-{n}{path.suffix}")
        n += 1
    path.rename(target)
    return target
