"""Typing the round's cards at the table: one key per creature, seat by seat, with undo.

Pure keystroke handling, shared by the referee's screen and the demo. The keys follow the
food chain so that a number pad works too: 1 plankton ... 6 shark, 7 octopus, 8 eel; or a
letter: p(lankton) s(hrimp) l(ittle fish) b(ig fish) e (s-e-al) k (shar-k) o(ctopus) z (eel).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from companion.games.chomp import Card, Hand

KEYS: dict[str, Card] = {
    "1": Card.PLANKTON,
    "p": Card.PLANKTON,
    "2": Card.SHRIMP,
    "s": Card.SHRIMP,
    "3": Card.LITTLE_FISH,
    "l": Card.LITTLE_FISH,
    "4": Card.BIG_FISH,
    "b": Card.BIG_FISH,
    "5": Card.SEAL,
    "e": Card.SEAL,
    "6": Card.SHARK,
    "k": Card.SHARK,
    "7": Card.OCTOPUS,
    "o": Card.OCTOPUS,
    "8": Card.ELECTRIC_EEL,
    "z": Card.ELECTRIC_EEL,
}
UNDO_KEYS = ("\x7f", "\b", "KEY_BACKSPACE", "u")
LEGEND = "1/p plankton 2/s shrimp 3/l little 4/b big 5/e seal 6/k shark 7/o octopus 8/z eel"


class CardEntry:
    """Collects the cards of one round in seat order; backspace takes the last one back.

    ``filled``: seats whose cards are already known (the camera read them): they are
    kept as they are and skipped, so only the other seats are typed."""

    def __init__(
        self, seats: Sequence[tuple[str, int]], filled: Mapping[str, Hand] | None = None
    ) -> None:
        """``seats``: (player, how many cards she shows) in seat order."""
        known = dict(filled or {})
        self.filled: dict[str, Hand] = {p: known[p] for p, n in seats if len(known.get(p, ())) == n}
        self.all_seats = list(seats)
        self.seats = [(p, n) for p, n in seats if p not in self.filled]  # the seats to type
        self.typed: list[Card] = []

    @property
    def asked(self) -> list[str]:
        """The seats typed (not pre-filled), in seat order."""
        return [p for p, _ in self.seats]

    @property
    def needed(self) -> int:
        return sum(n for _, n in self.seats)

    @property
    def complete(self) -> bool:
        return len(self.typed) == self.needed

    def next_seat(self) -> str | None:
        count = len(self.typed)
        for player, n in self.seats:
            if count < n:
                return player
            count -= n
        return None

    def key(self, key: str) -> bool:
        """Feed one key; returns whether it was used."""
        if key in UNDO_KEYS or key == "U":
            if self.typed:
                self.typed.pop()
                return True
            return False
        card = KEYS.get(key.lower()) if len(key) == 1 else None
        if card is None or self.complete:
            return False
        self.typed.append(card)
        return True

    def cards(self) -> dict[str, Hand]:
        """Cards known so far, per seat in seat order: the pre-filled ones, the complete
        typed seats and the one being typed."""
        typed: dict[str, Hand] = {}
        i = 0
        for player, n in self.seats:
            hand = tuple(self.typed[i : i + n])
            if hand:
                typed[player] = hand
            i += n
        out: dict[str, Hand] = {}
        for player, _ in self.all_seats:
            hand = self.filled.get(player) or typed.get(player, ())
            if hand:
                out[player] = hand
        return out
