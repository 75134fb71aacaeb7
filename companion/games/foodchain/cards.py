"""Food Chain's cards: the deck's numbers and the card catalog (levels, points, symbols).

The rulebook does not print the cards, so they come from a catalog file
(docs/foodchain.md); the one in ``examples/`` is invented.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

MIN_PLAYERS = 2
MAX_PLAYERS = 4
HAND_SIZE = 4
TOKENS_PER_PLAYER = 4
DECK_SIZE = 52  # "52 cards"
BONUS_CARDS = 2  # "two bonus cards - the Huntsman ... and the Swarm"


def chains_wanted(players: int) -> int:
    """Four food chains on the table, three in a two-player game."""
    return 3 if players == 2 else 4


# --------------------------------------------------------------------------------------
# The card catalog
# --------------------------------------------------------------------------------------


class Bonus(StrEnum):
    HUNTSMAN = "huntsman"
    SWARM = "swarm"


@dataclass(frozen=True, slots=True)
class CardKind:
    """One printed card (``copies`` of it in the deck)."""

    name: str
    level: int  # the moon's Roman numeral: higher is stronger
    points: int  # the sun's number: scored when eaten
    copies: int = 1
    predators: frozenset[str] = frozenset()  # red circles: who may prey on this card
    prey: frozenset[str] = frozenset()  # green circles: what this card may prey on
    bonus: Bonus | None = None

    @property
    def is_plant(self) -> bool:
        """No green circle: it preys on nothing, so it is a plant (the Swarm spares it, F7)."""
        return self.bonus is None and not self.prey


_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50}
NAME_PATTERN = re.compile(r"^[^#\s][^#]*$")


def roman(text: str) -> int | None:
    """``"IV"`` -> 4; None when the text is not a Roman numeral."""
    text = text.strip().upper()
    if not text or any(ch not in _ROMAN for ch in text):
        return None
    total = 0
    for i, ch in enumerate(text):
        value = _ROMAN[ch]
        if i + 1 < len(text) and _ROMAN[text[i + 1]] > value:
            total -= value
        else:
            total += value
    return total if total > 0 and to_roman(total) == text else None


def to_roman(value: int) -> str:
    parts = []
    for number, letters in ((50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV")):
        while value >= number:
            parts.append(letters)
            value -= number
    return "".join(parts) + "I" * value


@dataclass(frozen=True)
class Catalog:
    """The deck's cards: levels, points and symbols, read from a catalog file."""

    kinds: tuple[CardKind, ...]
    example: bool = False
    title: str = ""
    by_name: dict[str, CardKind] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {k.name: k for k in self.kinds})

    def card_ids(self) -> list[str]:
        """Every physical card, ``"fox#1"`` to ``"fox#4"``, in catalog order."""
        return [f"{k.name}#{i}" for k in self.kinds for i in range(1, k.copies + 1)]

    @property
    def size(self) -> int:
        return sum(k.copies for k in self.kinds)

    def kind(self, card: str) -> CardKind:
        return self.by_name[card.rpartition("#")[0]]

    def preys_on(self, hunter: str, food: str) -> bool:
        """F2: both symbols must match (green circle on the hunter, red on the food)."""
        h, f = self.kind(hunter), self.kind(food)
        return h.bonus is None and f.name in h.prey and h.name in f.predators

    def composition_problems(self) -> list[tuple[str, str]]:
        """What differs from the real game's deck: 52 cards, one Huntsman, one Swarm."""
        problems = []
        if self.size != DECK_SIZE:
            problems.append(("cards", f"{self.size} cards in all; the game has {DECK_SIZE}"))
        for bonus in Bonus:
            n = sum(k.copies for k in self.kinds if k.bonus is bonus)
            if n != 1:
                problems.append(("cards", f"{n} {bonus} card(s); the game has exactly one"))
        return problems

    def warnings(self) -> list[tuple[str, str]]:
        """Symbols that only point one way: such a hunt can never be played (F2)."""
        found = []
        for i, kind in enumerate(self.kinds):
            for food in sorted(kind.prey):
                if kind.name not in self.by_name[food].predators:
                    found.append(
                        (
                            f"cards[{i}].prey",
                            f"{kind.name} shows {food} as prey but {food} does not show "
                            f"{kind.name} as a predator: that hunt is never possible",
                        )
                    )
            for hunter in sorted(kind.predators):
                if kind.name not in self.by_name[hunter].prey:
                    found.append(
                        (
                            f"cards[{i}].predators",
                            f"{kind.name} shows {hunter} as a predator but {hunter} does not "
                            f"show {kind.name} as prey: that hunt is never possible",
                        )
                    )
        return found

    def creature_points(self) -> frozenset[int]:
        """The sun points an eaten card can have (bonus cards are never eaten, F12)."""
        return frozenset(k.points for k in self.kinds if k.bonus is None)

    def huntsman_level(self) -> int:
        return max((k.level for k in self.kinds if k.bonus is Bonus.HUNTSMAN), default=0)

    def to_dict(self) -> dict[str, Any]:
        cards: list[dict[str, Any]] = []
        for k in self.kinds:
            item: dict[str, Any] = {"name": k.name, "points": k.points}
            if k.level:  # the Swarm never stands on the table: it has no level
                item["level"] = k.level
            if k.copies != 1:
                item["copies"] = k.copies
            if k.bonus is not None:
                item["bonus"] = str(k.bonus)
            else:
                item["predators"] = sorted(k.predators)
                item["prey"] = sorted(k.prey)
            cards.append(item)
        out: dict[str, Any] = {"format": CATALOG_FORMAT}
        if self.example:
            out["example"] = True
        if self.title:
            out["title"] = self.title
        out["cards"] = cards
        return out


CATALOG_FORMAT = "companion/foodchain-catalog/1"
