"""The Great Chips Escape's actions and the steps a turn can wait for.

The class names are the game's own (``RevealFish``, ``StopTriple``, ``ChipsStep``) so they
never read as the CHOMP! referee's reveal, stop or step.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from companion.errors import RuleError
from companion.games.chips.cards import ChipsRules, EscapeCard

# --------------------------------------------------------------------------------------
# Actions and the steps inside a turn
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard ``card`` (at a turn's start, in Triple Chips, Chips Heroes or Sir Fries)."""

    card: str


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw a card; it can be played from the next turn on (E2)."""


@dataclass(frozen=True, slots=True)
class RevealFish:
    """Reveal the face-down fish-or-chips card at ``position`` (0 = leftmost)."""

    position: int


@dataclass(frozen=True, slots=True)
class Knight:
    """Cover the Mad Fish just revealed with the Golden Knight ``card`` (E6)."""

    card: str


@dataclass(frozen=True, slots=True)
class Decline:
    """Do not cover the Mad Fish just revealed."""


@dataclass(frozen=True, slots=True)
class StopTriple:
    """Stop discarding in Triple Chips."""


@dataclass(frozen=True, slots=True)
class Spy:
    """Spy Fry: look at ``target``'s hand; swap ``give`` for ``take``, or neither (E9)."""

    target: str
    give: str | None = None
    take: str | None = None


@dataclass(frozen=True, slots=True)
class Choose:
    """Fish-or-Chips Time with the sign: ``player`` must reveal."""

    player: str


@dataclass(frozen=True, slots=True)
class PassTurn:
    """E12: nothing else is possible."""


Action = Discard | Draw | RevealFish | Knight | Decline | StopTriple | Spy | Choose | PassTurn


class ChipsStep(StrEnum):
    """What the game waits for inside a turn."""

    KNIGHT = "knight"  # cover the Mad Fish just revealed, or not
    SIR_FRIES = "sir_fries"  # discard one card showing one of ``numbers``
    SPY_FRY = "spy_fry"  # choose a hand to look at, swap or not
    FISH_TIME = "fish_time"  # choose who reveals
    REVEAL = "reveal"  # ``player`` must reveal a fish-or-chips card now
    TRIPLE = "triple"  # up to ``left`` more discards
    HEROES = "heroes"  # Chips Heroes: ``first`` discard is free, then the normal rule


STEP_TITLES = {
    ChipsStep.KNIGHT: "a Mad Fish (Golden Knight or not?)",
    ChipsStep.SIR_FRIES: "Sir Fries",
    ChipsStep.SPY_FRY: "Spy Fry",
    ChipsStep.FISH_TIME: "Fish-or-Chips Time",
    ChipsStep.REVEAL: "a Fish-or-Chips Time reveal",
    ChipsStep.TRIPLE: "Triple Chips",
    ChipsStep.HEROES: "Chips Heroes",
}


@dataclass(frozen=True, slots=True)
class Pending:
    step: ChipsStep
    player: str
    numbers: tuple[int, ...] = ()  # SIR_FRIES
    left: int = 0  # TRIPLE
    first: bool = False  # HEROES
    last: str | None = None  # TRIPLE, HEROES: the last card discarded in the chain
    fish: str | None = None  # KNIGHT: the Mad Fish just revealed
    draw: int = 0  # KNIGHT: how many cards that Mad Fish makes her draw

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": str(self.step), "player": self.player}
        if self.step is ChipsStep.SIR_FRIES:
            out["numbers"] = list(self.numbers)
        if self.step is ChipsStep.TRIPLE:
            out["left"] = self.left
        if self.step is ChipsStep.HEROES:
            out["first"] = self.first
        if self.step in (ChipsStep.TRIPLE, ChipsStep.HEROES):
            out["last"] = self.last
        if self.step is ChipsStep.KNIGHT:
            out["fish"] = self.fish
            out["draw"] = self.draw
        return out


REVEAL_TARGET = "it must be another player still in, with a face-down card"


def check_players(players: Iterable[str], rules: ChipsRules) -> tuple[str, ...]:
    players = tuple(players)
    low, high = rules.player_range()
    if not low <= len(players) <= high:
        raise RuleError(f"these rules seat {low} to {high} players, not {len(players)}")
    if len(set(players)) != len(players) or not all(players):
        raise RuleError("every player needs a name of her own")
    return players


def next_in(players: Sequence[str], out: Iterable[str], after: str) -> str:
    """The next player still in, to the left of ``after`` (who may be out herself)."""
    gone = set(out)
    i = players.index(after)
    for k in range(1, len(players) + 1):
        p = players[(i + k) % len(players)]
        if p not in gone:
            return p
    raise RuleError("nobody is left in the game")


@dataclass(frozen=True, slots=True)
class TableStep:
    """:class:`Pending` for the table helper: the last card is known by what it shows."""

    step: ChipsStep
    player: str
    numbers: tuple[int, ...] = ()
    left: int = 0
    first: bool = False
    last: EscapeCard | None = None
    draw: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": str(self.step), "player": self.player}
        if self.numbers:
            out["numbers"] = list(self.numbers)
        if self.step is ChipsStep.TRIPLE:
            out["left"] = self.left
        if self.step is ChipsStep.HEROES:
            out["first"] = self.first
        if self.last is not None:
            out["last"] = {
                "kind": str(self.last.kind),
                "number": self.last.number,
                "numbers": list(self.last.numbers),
                "any_player": self.last.any_player,
            }
        if self.step is ChipsStep.KNIGHT:
            out["draw"] = self.draw
        return out
