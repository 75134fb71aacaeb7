"""Tag files: which tag is on which card, one file per game.

::

    {"game": "chomp", "tags": {"04A1B2C3": "seal", "code:CH-017": "shark", ...}}

A key is a tag as a reader reports it: an NFC UID in hex (4 to 10 bytes; lower case is
taken and stored upper case), or a barcode's text after ``code:``. A value is a card of
that game. Several tags may name the same card (the deck has four sharks); one tag never
names two cards. The tags are kept in the order they were learned, which is what makes
"the seal #2" mean something and what ``undo`` takes back. An optional ``note`` says what
the file is.

Card names:

* CHOMP!: the names of :data:`companion.games.chomp.CARD_NAMES` (``seal``, ``big_fish``).
* Get Bit!: ``<colour>-<n>``: a robot colour (:data:`GETBIT_COLOURS`) and its card number,
  1 to 7 (``red-1`` ... ``purple-7``). Get Bit! gives each robot a colour and a hand
  numbered 1 up; the colour tells whose card it is, the number is what the rules use.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion import data
from companion.errors import InputError
from companion.files import parse_json, read_text, write_atomic
from companion.games import getbit
from companion.games.chomp import CARD_NAMES, DECK_COMPOSITION, Card
from companion.tags.readers import CODE_PREFIX, MAX_CODE

CHOMP = "chomp"
GETBIT = "getbit"
GAMES = (CHOMP, GETBIT)

GETBIT_COLOURS = getbit.COLOURS  # kept here too: the tag readers' and tables' name for it
GETBIT_HIGHEST = getbit.HIGHEST_CARD  # 7: the cards of a six-robot game

MIN_UID_BYTES, MAX_UID_BYTES = 4, 10  # ISO 14443 UIDs are 4, 7 or 10 bytes

HEX_DIGITS = frozenset("0123456789ABCDEF")


def getbit_card(colour: str, number: int) -> str:
    return getbit.card_name(colour, number)


def getbit_number(card: str) -> int:
    """The number on a Get Bit! card name (``red-3`` -> 3)."""
    return int(card.rsplit("-", 1)[1])


def getbit_colour(card: str) -> str:
    return card.rsplit("-", 1)[0]


# The deck of each game in learning order: (card name, how many of it).
DECKS: dict[str, tuple[tuple[str, int], ...]] = {
    CHOMP: tuple((str(card), n) for card, n in DECK_COMPOSITION.items()),
    GETBIT: tuple(
        (getbit_card(colour, n), 1)
        for colour in GETBIT_COLOURS
        for n in range(1, GETBIT_HIGHEST + 1)
    ),
}
CARDS: dict[str, frozenset[str]] = {g: frozenset(c for c, _ in deck) for g, deck in DECKS.items()}
GAME_TITLES = {CHOMP: "CHOMP!", GETBIT: "Get Bit!"}


def deck_size(game: str) -> int:
    return sum(n for _, n in DECKS[game])


def copies(game: str, card: str) -> int:
    return dict(DECKS[game])[card]


def chomp_card(name: str) -> Card:
    return CARD_NAMES[name]


def check_card(game: str, value: object, path: str) -> str:
    """A card name of ``game``, or an InputError at ``path`` listing what would do."""
    if game == CHOMP:
        return str(data.choice(value, path, CARD_NAMES, "card"))
    name = data.name(value, path, "card name")
    if name not in CARDS[GETBIT]:
        raise data.fail(
            path,
            f"unknown Get Bit! card {name!r} (a colour and a number: "
            f"{', '.join(GETBIT_COLOURS)} with 1 to {GETBIT_HIGHEST}, e.g. red-3)",
        )
    return name


def normalise_key(key: str, path: str) -> str:
    """A tag file key in its one spelling: upper case hex, or ``code:`` and the text."""
    if key.startswith(CODE_PREFIX):
        text = key[len(CODE_PREFIX) :]
        if not text or text != text.strip() or len(text) > MAX_CODE or not text.isprintable():
            raise data.fail(
                path,
                f"bad barcode tag {key!r}: after code: comes the scanned text, printable, "
                f"1 to {MAX_CODE} characters, no spaces around it",
            )
        return key
    upper = key.upper()
    if not upper or not set(upper) <= HEX_DIGITS or len(upper) % 2:
        raise data.fail(
            path,
            f"bad hex in tag {key!r}: an NFC UID is hex digits, two per byte (like 04A1B2C3); "
            "a barcode is written code:TEXT",
        )
    if not MIN_UID_BYTES <= len(upper) // 2 <= MAX_UID_BYTES:
        raise data.fail(
            path,
            f"tag {key!r} is {len(upper) // 2} bytes; an NFC UID is "
            f"{MIN_UID_BYTES} to {MAX_UID_BYTES} bytes",
        )
    return upper


@dataclass
class TagFile:
    """One game's tags, in the order they were learned."""

    game: str
    tags: dict[str, str] = field(default_factory=dict)  # key -> card name
    note: str | None = None
    source: str | None = None  # the file's name, for messages

    @property
    def name(self) -> str:
        """How messages name this file: its base name, or the game's default."""
        return Path(self.source).name if self.source else f"{self.game}-tags.json"

    def card_of(self, key: str) -> str | None:
        return self.tags.get(key)

    def learned(self, card: str) -> int:
        return sum(1 for c in self.tags.values() if c == card)

    def label(self, key: str) -> str:
        """``the seal #2`` for the second seal learned; ``red-3`` for a card the deck has once."""
        card = self.tags[key]
        if copies(self.game, card) <= 1:
            return card
        nth = 1 + [k for k, c in self.tags.items() if c == card].index(key)
        return f"the {card} #{nth}"

    def add(self, key: str, card: str) -> None:
        if key in self.tags:
            raise InputError(data.at("tags", key), f"is already {self.label(key)}", self.source)
        self.tags[key] = card

    def remove_last(self) -> tuple[str, str] | None:
        if not self.tags:
            return None
        key = next(reversed(self.tags))
        return key, self.tags.pop(key)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.tags.items())

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"game": self.game}
        if self.note is not None:
            out["note"] = self.note
        out["tags"] = dict(self.tags)
        return out


class _Object(dict[str, Any]):
    """A JSON object that remembers keys it was given twice (json keeps only the last)."""

    twice: list[tuple[str, Any, Any]]


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object()
    obj.twice = []
    for key, value in pairs:
        if key in obj:
            obj.twice.append((key, obj[key], value))
        else:
            obj[key] = value
    return obj


def _twice(value: object) -> list[tuple[str, Any, Any]]:
    return value.twice if isinstance(value, _Object) else []


def tagfile_from_dict(value: object, source: str | None = None) -> TagFile:
    """Check a parsed tag file; any fault is an InputError naming the file and the place."""
    try:
        return _read(value, source)
    except InputError as exc:
        raise exc if exc.source or source is None else exc.in_source(source) from None


def _read(value: object, source: str | None) -> TagFile:
    raw = data.obj(value, data.ROOT, required=("game", "tags"), optional=("note",))
    for key, _, _ in _twice(value):
        raise data.fail(data.at(data.ROOT, key), f"key {key!r} is given twice")
    game = data.choice(raw["game"], "game", {g: g for g in GAMES}, "game")
    note = None
    if "note" in raw:
        note = raw["note"]
        if not isinstance(note, str):
            raise data.fail("note", "expected a string")
    tags_raw = data.mapping(raw["tags"], "tags")
    for key, first, second in _twice(raw["tags"]):
        raise data.fail(
            data.at("tags", key), f"this tag is given two cards ({first!r} and {second!r})"
        )
    tags: dict[str, str] = {}
    spelled: dict[str, str] = {}  # normalised key -> as written
    for key, card in tags_raw.items():
        here = data.at("tags", key)
        norm = normalise_key(key, here)
        name = check_card(game, card, here)
        if norm in tags:
            raise data.fail(
                here,
                f"this tag is given two cards: {spelled[norm]!r} is the same tag "
                f"({tags[norm]!r} and {name!r})",
            )
        tags[norm] = name
        spelled[norm] = key
    return TagFile(game, tags, note, source)


def parse_tagfile(text: str, source: str) -> TagFile:
    """The tag file's JSON through the one checked reader (a 5,000-digit number, deep
    nesting: one line), keeping keys given twice to refuse them by name."""
    return tagfile_from_dict(parse_json(text, source, pairs_hook=_object), source)


def load_tagfile(path: str | Path) -> TagFile:
    """Read and check a tag file; a missing or bad file is an InputError naming it."""
    return parse_tagfile(read_text(str(path)), str(path))


def dumps(tags: TagFile) -> str:
    return json.dumps(tags.to_dict(), indent=2, ensure_ascii=False) + "\n"


def save_tagfile(tags: TagFile, path: str | Path) -> None:
    """Write the whole file anew, atomically: a power cut leaves the old file or the new.
    A place that is not a file (a device, a link, a folder) is refused, left as it is."""
    write_atomic(path, dumps(tags), "the tag file is as it was before this card")
