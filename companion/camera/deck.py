"""The deck file: which marker sticker is on which card (docs/camera.md, docs/formats.md).

::

    {"game": "chomp", "family": "DICT_5X5_100",
     "cards": {"0": "shark", "1": "shark", ...}, "checked": [0, 1]}

``cards`` binds a marker id (written as a decimal key) to a card of the game: a CHOMP!
card name (``seal``, ``big_fish``) or a Get Bit! card (``red-3``). A marker names one card;
a card may carry several markers (the deck has five seals). ``checked`` lists the markers
``companion camera learn`` has seen on the right card. The printed sheet binds
:meth:`StickerDeck.default`; a file is needed only when a sheet was printed differently or
learning has begun. CHOMP! stickers are ids 0-49 and Get Bit!'s 50-99, so a card of the
other game in view is known as such, never read as a card of this one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from companion import data
from companion import text as gate
from companion.camera.markers import DICTIONARY_NAME
from companion.errors import InputError
from companion.files import parse_json, read_text, write_atomic
from companion.games import getbit
from companion.games.chomp import CARD_NAMES, DECK_COMPOSITION, Card

CHOMP, GETBIT = "chomp", "getbit"
GAMES = (CHOMP, GETBIT)
GAME_TITLES = {CHOMP: "CHOMP!", GETBIT: "Get Bit!"}

# Each game's share of the marker family: a sticker of one game never reads as the other's.
MARKER_RANGES: dict[str, range] = {CHOMP: range(0, 50), GETBIT: range(50, 100)}

# The printed sheet's order, fixed for good: a sheet already stuck on cards binds marker
# 0 to the first shark whatever order the rules module lists its cards in.
CHOMP_ORDER: tuple[Card, ...] = (
    Card.SHARK,
    Card.SEAL,
    Card.BIG_FISH,
    Card.LITTLE_FISH,
    Card.SHRIMP,
    Card.PLANKTON,
    Card.ELECTRIC_EEL,
    Card.OCTOPUS,
)
GETBIT_CARDS: tuple[str, ...] = tuple(
    getbit.card_name(colour, n)
    for colour in getbit.COLOURS
    for n in range(1, getbit.HIGHEST_CARD + 1)
)


def game_of_marker(marker: int) -> str | None:
    """Which game's stickers a marker id belongs to (None: outside both)."""
    for game, ids in MARKER_RANGES.items():
        if marker in ids:
            return game
    return None


def card_words(card: str) -> str:
    """A card name as people read it: ``big_fish`` -> ``big fish``."""
    return card.replace("_", " ")


@dataclass(frozen=True)
class StickerDeck:
    """Marker id -> card, for one game, and which markers learning has checked."""

    game: str
    cards: Mapping[int, str]
    checked: frozenset[int] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        # A read-only copy in id order: a deck is a value, and its labels count in id order.
        object.__setattr__(self, "cards", MappingProxyType(dict(sorted(self.cards.items()))))

    def __hash__(self) -> int:
        return hash((self.game, tuple(self.cards.items()), self.checked))

    def card_of(self, marker: int) -> str | None:
        return self.cards.get(marker)

    @property
    def markers(self) -> tuple[int, ...]:
        """Every marker of the deck, in id order (the sheet's and learn's order)."""
        return tuple(self.cards)

    def markers_of(self, card: str) -> tuple[int, ...]:
        return tuple(m for m, c in self.cards.items() if c == card)

    def label(self, marker: int) -> str:
        """What the sheet prints and learn asks for: ``seal 3 of 5``; ``red-3`` for a card
        that has one marker. An id not in the deck is a KeyError (a caller's bug)."""
        card = self.cards[marker]
        same = self.markers_of(card)
        if len(same) == 1:
            return card_words(card)
        return f"{card_words(card)} {same.index(marker) + 1} of {len(same)}"

    def with_checked(self, markers: frozenset[int]) -> StickerDeck:
        """The deck with these markers checked too (ids outside the deck are ignored)."""
        return StickerDeck(self.game, self.cards, self.checked | (markers & set(self.cards)))

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return iter(self.cards.items())

    @classmethod
    def default(cls, game: str) -> StickerDeck:
        """What the printed sheet binds: CHOMP! ids 0-49 to its 50 cards (sharks first),
        Get Bit! ids 50-91 to red-1 ... purple-7."""
        if game == CHOMP:
            names = [str(card) for card in CHOMP_ORDER for _ in range(DECK_COMPOSITION[card])]
        elif game == GETBIT:
            names = list(GETBIT_CARDS)
        else:
            raise ValueError(f"no sticker deck for {game!r} (one of: {', '.join(GAMES)})")
        first = MARKER_RANGES[game].start
        return cls(game, {first + i: name for i, name in enumerate(names)})

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "family": DICTIONARY_NAME,
            "cards": {str(m): c for m, c in self.cards.items()},
            "checked": sorted(self.checked),
        }


# -- reading ------------------------------------------------------------------------------


class _Object(dict[str, Any]):
    """A JSON object that remembers a key given twice (json keeps only the last)."""

    twice: list[str]


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object()
    obj.twice = []
    for key, value in pairs:
        if key in obj:
            obj.twice.append(key)
        obj[key] = value
    return obj


def _twice(value: object, path: str) -> None:
    for key in value.twice if isinstance(value, _Object) else []:
        raise data.fail(data.at(path, key), f"key {key!r} is given twice")


def _card(game: str, value: object, path: str) -> str:
    if game == CHOMP:
        return str(data.choice(value, path, CARD_NAMES, "card"))
    name = data.name(value, path, "card name")
    if name not in GETBIT_CARDS:
        raise data.fail(
            path,
            f"unknown Get Bit! card {gate.shown(name)} (a colour and a number: "
            f"{', '.join(getbit.COLOURS)} with 1 to {getbit.HIGHEST_CARD}, e.g. red-3)",
        )
    return name


def _marker(key: str, game: str, path: str) -> int:
    """A marker id key: decimal digits in their one spelling, within the game's range."""
    if not gate.is_digits(key) or (len(key) > 1 and key[0] == "0") or len(key) > 3:
        raise data.fail(path, f"a marker id is a whole number written plainly, got {key!r}")
    marker = int(key)
    ids = MARKER_RANGES[game]
    if marker not in ids:
        raise data.fail(
            path,
            f"marker {marker} is not a {GAME_TITLES[game]} sticker "
            f"({GAME_TITLES[game]} uses {ids.start} to {ids.stop - 1})",
        )
    return marker


def deck_from_dict(value: object) -> StickerDeck:
    """A parsed deck file, checked; any fault is an InputError naming the key."""
    _twice(value, data.ROOT)
    raw = data.obj(value, data.ROOT, required=("game", "cards"), optional=("family", "checked"))
    game = data.choice(raw["game"], "game", {g: g for g in GAMES}, "game")
    if "family" in raw and raw["family"] != DICTIONARY_NAME:
        raise data.fail(
            "family", f"this companion's stickers are {DICTIONARY_NAME}, got {raw['family']!r}"
        )
    _twice(raw["cards"], "cards")
    cards_raw = data.mapping(raw["cards"], "cards")
    if not cards_raw:
        raise data.fail("cards", "a deck binds at least one marker to a card")
    cards: dict[int, str] = {}
    for key, card in cards_raw.items():
        here = data.at("cards", key)
        cards[_marker(key, game, here)] = _card(game, card, here)
    checked: set[int] = set()
    for i, item in enumerate(data.lst(raw.get("checked", []), "checked")):
        here = data.at("checked", i)
        marker = data.integer(item, here, 0, 99)
        if marker not in cards:
            raise data.fail(here, f"marker {marker} is checked but not in cards")
        if marker in checked:
            raise data.fail(here, f"marker {marker} is listed twice")
        checked.add(marker)
    return StickerDeck(game, cards, frozenset(checked))


def parse_deck(text: str, source: str) -> StickerDeck:
    """The deck file's JSON through the one checked reader; errors name the file."""
    try:
        return deck_from_dict(parse_json(text, source, pairs_hook=_object))
    except InputError as exc:
        raise exc if exc.source else exc.in_source(source) from None


def load_deck(path: Path) -> StickerDeck:
    """Read and check a deck file: a missing or bad file is one InputError naming it."""
    return parse_deck(read_text(str(path)), str(path))


def dumps(deck: StickerDeck) -> str:
    return json.dumps(deck.to_dict(), indent=2, ensure_ascii=False) + "\n"


def save_deck(deck: StickerDeck, path: Path) -> None:
    """Write the whole file anew, atomically (a power cut leaves the old or the new); a
    place that is not a file (a device, a link, a folder) is refused, left as it is."""
    write_atomic(path, dumps(deck), "the deck file is as it was")
