"""Typing a round's cards: one key per robot, player by player, Backspace takes one back;
or a whole line of them (``4145``, ``4 1 4 5``, ``ted=5 anne=1``)."""

from __future__ import annotations

from collections.abc import Sequence

from companion import text as gate
from companion.games.getbit import GetBit, PlayError

UNDO_KEYS = ("\x7f", "\b", "KEY_BACKSPACE")


def entry_order(state: GetBit) -> list[str]:
    """The robots still in play, player by player (each player's robots together): the
    order the cards are typed in, and scanned in with one reader for the table."""
    setup = state.setup
    return [r for p in setup.players for r in setup.robots_of(p) if r in state.line]


def refusal_text(state: GetBit, exc: PlayError) -> str:
    """A G7 refusal as the table shows it; in a memory game it names no card and no hand."""
    if state.setup.memory and exc.card is not None:
        return f"round {exc.round_no}: {exc.robot} cannot play that card"
    return str(exc)


class Entry:
    """One round's cards, a key per robot, player by player; Backspace takes one back.

    Robots are asked for in player order (each player's robots together), so the secret
    mode can pass the keyboard from player to player. A card not in the robot's hand is
    refused at once; in secret mode the refusal does not say which card was typed.
    """

    def __init__(self, state: GetBit, secret: bool = False) -> None:
        self.state = state
        self.secret = secret
        self.order = entry_order(state)
        self.typed: list[int] = []

    @property
    def complete(self) -> bool:
        return len(self.typed) == len(self.order)

    @property
    def started(self) -> bool:
        return bool(self.typed)

    def next_robot(self) -> str | None:
        return None if self.complete else self.order[len(self.typed)]

    def key(self, key: str) -> str | None:
        """Feed one key; returns a refusal to show, or None."""
        if key in UNDO_KEYS:
            if self.typed:
                self.typed.pop()
            return None
        robot = self.next_robot()
        card = gate.number_or_none(key, low=0, high=9) if len(key) == 1 else None
        if robot is None or card is None:
            return None
        if card not in self.state.hands[robot]:
            if self.secret or self.state.setup.memory:
                return f"{robot} cannot play that card: choose again"
            return f"{robot} has no {card} in hand ({' '.join(map(str, self.state.hands[robot]))})"
        self.typed.append(card)
        return None

    def cards(self) -> dict[str, int]:
        return dict(zip(self.order, self.typed, strict=False))

    def text(self) -> str:
        """The entry line: typed cards (dots in secret mode), the next robot marked."""
        parts = []
        for i, robot in enumerate(self.order):
            if i < len(self.typed):
                shown = "●" if self.secret else str(self.typed[i])
            else:
                shown = "_"
            marker = "▸" if robot == self.next_robot() else " "
            parts.append(f"{marker}{robot}: {shown}")
        return "  ".join(parts)

    def prompt(self) -> str:
        robot = self.next_robot()
        if robot is None:
            what = "reveal" if self.secret else "play the round"
            return f"Enter to {what}, Backspace to change"
        size = self.state.setup.hand_size
        if self.secret:
            owner = self.state.setup.robots[robot]
            return f"{owner}: choose {robot}'s card (1-{size}), hidden; others look away"
        return f"type each robot's card (1-{size})"


def parse_cards(text: str, order: Sequence[str]) -> dict[str, int]:
    """A line of cards: ``4145``, ``4 1 4 5`` (in entry order) or ``john=4 anne=1 ...``."""
    words = text.replace(",", " ").split()
    if any("=" in w for w in words):
        cards: dict[str, int] = {}
        for word in words:
            robot, _, card = word.partition("=")
            number = gate.number_or_none(card, low=0, high=CARD_DIGITS_HIGH)
            if not robot or number is None:
                raise ValueError(f"not a card: {word!r} (write robot=card, e.g. ted=5)")
            cards[robot] = number
        return cards
    if len(words) == 1 and len(words[0]) == len(order) and _all_digits(words[0]):
        words = list(words[0])
    numbers = [gate.number_or_none(w, low=0, high=CARD_DIGITS_HIGH) for w in words]
    if len(words) != len(order) or None in numbers:
        raise ValueError(f"give {len(order)} cards, for {' '.join(order)} (e.g. 4 1 4 5)")
    return {robot: n for robot, n in zip(order, numbers, strict=True) if n is not None}


CARD_DIGITS_HIGH = 10**6  # a typed card beyond any hand: the rules refuse it in one line


def _all_digits(word: str) -> bool:
    """Each character a card 0-9 (``4145``): ASCII only, so ``²`` is not a 2."""
    return all(gate.number_or_none(c, low=0, high=9) is not None for c in word)
