"""The one gate for text that comes from outside: checked once, where it enters.

Names typed at a table, names in ``--players``, strings in a JSON or TOML file, words
typed into a terminal table: each passes one of these readers on its way in, so nothing
further up has to wonder whether a string can be printed, stored, sent as JSON or drawn.

- :func:`clean`: any outside string. It must be valid Unicode (no lone surrogates, which
  is how undecodable argv or stdin bytes arrive under ``surrogateescape``, and which make
  every later UTF-8 encoding fail), hold no control characters (C0, C1, DEL), no bidi
  overrides or isolates (they reorder what a page or a terminal shows), no
  noncharacters, and be at most ``limit`` characters. It is returned unchanged.
- :func:`name`: a player's or a seat's name. :func:`clean`, then trimmed, runs of spaces
  made one, NFC-normalised (so ``e`` + combining acute and ``é`` are one name), 1 to
  :data:`NAME_LIMIT` characters, every one printable (letters, digits, marks, symbols,
  punctuation, the space; a zero-width joiner too, for emoji). ``<``, ``&`` and quotes are
  allowed: every output escapes them (:mod:`companion.svg` by construction, JSON by its
  encoder). Case is kept as typed, for display; names are compared case-insensitively
  (the history matches ``Ann`` and ``ann`` as one player): compare :func:`name_key`.
- :func:`whole_number`: a typed number. ASCII digits only (``"²".isdigit()`` is True and
  ``int("²")`` fails; ``"٣".isdecimal()`` is True and would be read as 3), a leading ``-``
  only when ``low`` is negative, a bounded length, within ``[low, high]``.

Every refusal is one :class:`~companion.errors.InputError` naming ``where``, with the
offending text shown escaped and cut short.
"""

from __future__ import annotations

import re
import unicodedata

from companion.errors import InputError

TEXT_LIMIT = 4096  # a path, a note, a typed line: far above any real one
NAME_LIMIT = 24  # what a seat's label, a row of the picture and a phone's line can show
NUMBER_DIGITS = 18  # more digits than any count, card or level at a table

_SURROGATE = re.compile("[\ud800-\udfff]")
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_SEPARATORS = frozenset("\u2028\u2029")  # a line break a terminal or a log would obey
_JOINER = "\u200d"  # zero-width joiner: holds emoji sequences together
_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(
    f"{chr(plane * 0x10000 + 0xFFFE)}{chr(plane * 0x10000 + 0xFFFF)}" for plane in range(17)
)
# Every character outside text may not hold, as one class a regular expression finds at C
# speed (the history checks every stored string with it on the way out as well as in).
REFUSED_CHARACTERS = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff" + "".join(sorted(_BIDI | _SEPARATORS)) + _NONCHARACTERS + "]"
)


def shown(value: str, most: int = 30) -> str:
    """The text for an error line: quoted, controls and surrogates escaped, cut short."""
    cut = value if len(value) <= most else value[:most] + "…"
    return repr(cut)


def _refused_char(char: str) -> str | None:
    """Why a character cannot be in outside text, or None when it can."""
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return "holds bytes that are not valid UTF-8 (a lone surrogate)"
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return f"holds a control character (U+{code:04X})"
    if char in _BIDI:
        return f"holds a bidi control (U+{code:04X}) that reorders what is shown"
    if char in _SEPARATORS:
        return f"holds a line or paragraph separator (U+{code:04X})"
    if 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE:
        return f"holds a noncharacter (U+{code:04X})"
    return None


def clean(value: object, where: str, *, limit: int = TEXT_LIMIT) -> str:
    """Outside text, checked: a string of valid, showable Unicode of at most ``limit``
    characters, returned unchanged; else one InputError naming ``where``."""
    if not isinstance(value, str):
        raise InputError(where, f"expected text, got {type(value).__name__}")
    if len(value) > limit:
        raise InputError(where, f"over {limit} characters: {shown(value)}")
    reason = refusal(value)
    if reason is not None:
        raise InputError(where, f"{reason}: {shown(value)}")
    return value


def refusal(value: str) -> str | None:
    """Why ``value`` may not be outside text (its first refused character), or None."""
    found = REFUSED_CHARACTERS.search(value)
    if found is None:
        return None
    return f"{_refused_char(found.group())} at character {found.start() + 1}"


def clean_tree(value: object, where: str = "", *, limit: int = 1_000_000) -> None:
    """Every string in parsed JSON (keys and values, at any depth) through :func:`clean`,
    naming the first refused one by its path: for a reader that takes a whole document
    in at once (``files.read_json`` may call it once for all its callers)."""
    stack: list[tuple[object, str]] = [(value, where)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            clean(item, path or "top level", limit=limit)
        elif isinstance(item, dict):
            for key, member in item.items():
                clean(key, path or "top level", limit=limit)
                stack.append((member, f"{path}.{key}" if path else str(key)))
        elif isinstance(item, list):
            stack.extend((member, f"{path}[{i}]") for i, member in enumerate(item))


def name(value: object, where: str, *, limit: int = NAME_LIMIT) -> str:
    """A player's or seat's name in its one form: trimmed, single spaces, NFC, 1 to
    ``limit`` printable characters. Case is kept; compare names with :func:`name_key`."""
    text = clean(value, where, limit=TEXT_LIMIT)
    text = unicodedata.normalize("NFC", re.sub(" {2,}", " ", text.strip()))
    if not text:
        raise InputError(where, "a name cannot be empty")
    if len(text) > limit:
        raise InputError(where, f"a name is at most {limit} characters: {shown(text)}")
    for char in text:
        if not (char.isprintable() or char == _JOINER):
            code = ord(char)
            raise InputError(where, f"a name holds a character not shown (U+{code:04X})")
    return text


def name_key(value: str) -> str:
    """What two names are compared by: ``Ann`` and ``ann`` are one player."""
    return unicodedata.normalize("NFC", value).casefold()


def whole_number(text: object, where: str, *, low: int, high: int) -> int:
    """A typed whole number in ``[low, high]``: ASCII digits (and ``-`` when ``low`` is
    negative) only, at most :data:`NUMBER_DIGITS` digits; else one InputError."""
    if isinstance(text, str) and len(text) > NUMBER_DIGITS + 40:
        raise InputError(where, f"too long for a number ({len(text)} characters)")
    given = clean(text, where).strip()
    digits = given[1:] if given.startswith("-") and low < 0 else given
    if not is_digits(digits):
        raise InputError(where, f"expected a whole number (digits 0-9), got {shown(given)}")
    if len(digits) > NUMBER_DIGITS:
        raise InputError(where, f"a number of {len(digits)} digits is too big")
    number = int(given)
    if not low <= number <= high:
        raise InputError(where, f"must be from {low} to {high}, got {number}")
    return number


def is_digits(word: str) -> bool:
    """Whether ``word`` is digits as a typed number is: ASCII 0-9 only, at least one
    (``str.isdigit`` also takes ``²`` and ``٣``, which ``int`` refuses or misreads)."""
    return bool(word) and word.isascii() and word.isdigit()


def number_or_none(text: str, *, low: int, high: int) -> int | None:
    """The typed whole number in ``[low, high]`` (as :func:`whole_number` reads it), or
    None when the word is not one: for a key or a word that may be a number or a command."""
    try:
        return whole_number(text, "typed", low=low, high=high)
    except InputError:
        return None
