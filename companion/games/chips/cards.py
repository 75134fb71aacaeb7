"""The Great Chips Escape's cards: the numbers 1-9 (E1), the escape and fish-or-chips
cards, and the deck composition, which the rulebook only partly states (E13)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

NUMBERS = tuple(range(1, 10))


def follows(top: int, number: int) -> bool:
    """E1: the same number, one before or one after; the numbers go round, 9 next to 1."""
    return (number - top) % len(NUMBERS) in (0, 1, len(NUMBERS) - 1)


def a(number: int) -> str:
    """``"a 5"``, ``"an 8"``: the numbers as the table says them."""
    return f"an {number}" if number == 8 else f"a {number}"


def either(numbers: Iterable[int]) -> str:
    """``"a 3, 4 or 5"``."""
    shown = [str(n) for n in numbers]
    head = ", ".join(shown[:-1])
    text = f"{head} or {shown[-1]}" if head else shown[-1]
    return f"an {text}" if text.startswith("8") else f"a {text}"


def neighbours(top: int) -> tuple[int, int, int]:
    """The three numbers that may go on ``top``, low to high around it."""
    return ((top - 2) % 9 + 1, top, top % 9 + 1)


# --------------------------------------------------------------------------------------
# Cards and the deck composition
# --------------------------------------------------------------------------------------


class Kind(StrEnum):
    NUMBER = "number"
    CHIPS_FOR_EVERYONE = "chips_for_everyone"
    GOLDEN_KNIGHT = "golden_knight"
    SIR_FRIES = "sir_fries"
    SPY_FRY = "spy_fry"
    FISH_OR_CHIPS_TIME = "fish_or_chips_time"
    TRIPLE_CHIPS = "triple_chips"


SPECIAL_KINDS = tuple(k for k in Kind if k is not Kind.NUMBER)
KIND_TITLES = {
    Kind.NUMBER: "number card",
    Kind.CHIPS_FOR_EVERYONE: "Chips for Everyone",
    Kind.GOLDEN_KNIGHT: "Golden Knight",
    Kind.SIR_FRIES: "Sir Fries",
    Kind.SPY_FRY: "Spy Fry",
    Kind.FISH_OR_CHIPS_TIME: "Fish-or-Chips Time",
    Kind.TRIPLE_CHIPS: "Triple Chips",
}


@dataclass(frozen=True, slots=True)
class EscapeCard:
    """An escape card as the table sees it: its number and, if special, what it does."""

    kind: Kind
    number: int
    numbers: tuple[int, ...] = ()  # Sir Fries: the numbers it lets you discard
    any_player: bool = False  # Fish-or-Chips Time with the "any player" sign

    def title(self) -> str:
        if self.kind is Kind.NUMBER:
            return str(self.number)
        extra = ""
        if self.kind is Kind.SIR_FRIES and self.numbers:
            extra = f" ({'/'.join(map(str, self.numbers))})"
        elif self.any_player:
            extra = " (any player)"
        return f"{self.number} {KIND_TITLES[self.kind]}{extra}"

    def label(self) -> str:
        """The id stem: ``"5"``, ``"triple_chips:6"``, ``"fish_or_chips_time_any:1"``."""
        if self.kind is Kind.NUMBER:
            return str(self.number)
        stem = f"{self.kind}_any" if self.any_player else str(self.kind)
        return f"{stem}:{self.number}"


class FishKind(StrEnum):
    MAD_FISH = "mad_fish"
    CHIPS_HEROES = "chips_heroes"


@dataclass(frozen=True, slots=True)
class FishCard:
    kind: FishKind
    draw: int = 0  # Mad Fish: how many cards it makes you draw

    def title(self) -> str:
        return f"Mad Fish (draw {self.draw})" if self.kind is FishKind.MAD_FISH else "Chips Heroes"

    def label(self) -> str:
        return f"mad_fish:{self.draw}" if self.kind is FishKind.MAD_FISH else "chips_heroes"


def _default_specials() -> tuple[EscapeCard, ...]:
    """The 24 special cards by default: four of each kind, every number two or three times."""
    S = EscapeCard
    return (
        *(S(Kind.CHIPS_FOR_EVERYONE, n) for n in (1, 3, 6, 8)),
        *(S(Kind.GOLDEN_KNIGHT, n) for n in (2, 4, 7, 9)),
        *(S(Kind.SIR_FRIES, n, ((n + 2) % 9 + 1, (n + 5) % 9 + 1)) for n in (3, 5, 8, 1)),
        *(S(Kind.SPY_FRY, n) for n in (4, 6, 9, 2)),
        *(S(Kind.FISH_OR_CHIPS_TIME, n) for n in (5, 7)),
        *(S(Kind.FISH_OR_CHIPS_TIME, n, any_player=True) for n in (1, 3)),
        *(S(Kind.TRIPLE_CHIPS, n) for n in (6, 8, 2, 4)),
    )


@dataclass(frozen=True)
class ChipsRules:
    """The deck and the numbers of the setup; the defaults are docs/chips.md's table."""

    normal: tuple[int, ...] = (8,) * 9  # copies of the number cards 1..9 (72)
    specials: tuple[EscapeCard, ...] = field(default_factory=_default_specials)  # 24
    mad_fish: tuple[tuple[int, int], ...] = ((1, 6), (2, 6), (3, 6))  # (draw, copies)
    chips_heroes: int = 18
    hand_size: int = 8
    fish_per_player: int = 5
    mad_fish_to_lose: int = 3

    def escape_cards(self) -> dict[str, EscapeCard]:
        """Every escape card by id: ``"5#3"``, ``"triple_chips:6#1"``."""
        cards: list[EscapeCard] = [
            EscapeCard(Kind.NUMBER, n)
            for n, copies in zip(NUMBERS, self.normal, strict=True)
            for _ in range(copies)
        ]
        cards.extend(self.specials)
        return _numbered([(c.label(), c) for c in cards])

    def fish_cards(self) -> dict[str, FishCard]:
        cards = [FishCard(FishKind.MAD_FISH, d) for d, n in self.mad_fish for _ in range(n)]
        cards += [FishCard(FishKind.CHIPS_HEROES)] * self.chips_heroes
        return _numbered([(c.label(), c) for c in cards])

    @property
    def escape_total(self) -> int:
        return sum(self.normal) + len(self.specials)

    @property
    def fish_total(self) -> int:
        return sum(n for _, n in self.mad_fish) + self.chips_heroes

    def player_range(self) -> tuple[int, int]:
        """Two players, up to as many as the deal allows (7 by default: 5 x 7 <= 36)."""
        high = min(
            self.fish_total // self.fish_per_player, (self.escape_total - 1) // self.hand_size
        )
        return 2, high

    def specials_shown(self, kind: Kind, number: int) -> list[EscapeCard]:
        return [c for c in self.specials if c.kind is kind and c.number == number]

    def to_dict(self) -> dict[str, Any]:
        special: dict[str, list[Any]] = {}
        for c in self.specials:
            if c.kind is Kind.SIR_FRIES:
                special.setdefault(str(c.kind), []).append(
                    {"number": c.number, "numbers": list(c.numbers)}
                )
            else:
                key = f"{c.kind}_any" if c.any_player else str(c.kind)
                special.setdefault(key, []).append(c.number)
        return {
            "normal": list(self.normal),
            "special": special,
            "mad_fish": [{"draw": d, "copies": n} for d, n in self.mad_fish],
            "chips_heroes": self.chips_heroes,
            "hand_size": self.hand_size,
            "fish_per_player": self.fish_per_player,
            "mad_fish_to_lose": self.mad_fish_to_lose,
        }


def _numbered(items: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    seen: Counter[str] = Counter()
    out = {}
    for stem, card in items:
        seen[stem] += 1
        out[f"{stem}#{seen[stem]}"] = card
    return out
