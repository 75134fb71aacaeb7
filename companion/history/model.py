"""A game as the history keeps it: plain records, built by the readers, written by the store.

Every game of the five kinds becomes one :class:`GameRecord`; CHOMP! games also carry
their rounds and every press. The content hash is taken over the record itself (not the
file's bytes), so the same game read twice, from a journal or from the referee, is the
same game. The date and the table are left out of the hash too: a journal's stamps are
not wall-clock time, so an imported file is dated by its modification time (which a copy
may change), and an import may not know where the game was played.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

KINDS = ("chomp", "dino", "getbit", "foodchain", "chips")
GAME_NAMES = {
    "chomp": "CHOMP!",
    "dino": "Chomp",
    "getbit": "Get Bit!",
    "foodchain": "Food Chain",
    "chips": "The Great Chips Escape",
}


@dataclass(frozen=True)
class PressRecord:
    """One press of a button in a CHOMP! round, and what became of it.

    ``t_ns`` is relative to the reveal (negative: before it; None: the round was never
    revealed). ``counted`` marks the player's first press of the round, the only one the
    rules count (C7). ``fate`` is one of FATES; ``cause`` says why a bad chomp was bad.
    """

    player: str
    t_ns: int | None
    source: str
    timing: str
    uncertainty_us: int | None
    use: str
    counted: bool
    fate: str
    cause: str | None = None


FATES = (
    "won",  # the winning slap
    "tied",  # one of a tie group (C5)
    "bad_chomp",  # a bad chomp; ``cause`` says which
    "ignored",  # after the decision instant, or a slap an automatic winner did not need
    "repeat",  # a second press of the same player in the round (only the first counts)
    "undecided",  # the round has no verdict (the journal ends, or it was abandoned)
    "bounce",  # the referee's own labels for edges that were never presses
    "stuck",
    "not_playing",
)

CAUSES = ("false_start", "lowest_card", "ink_out", "all_same", "war", "no_slap_needed")


@dataclass(frozen=True)
class RoundRecord:
    """One round: its verdict (CHOMP!) or what it did (Get Bit!), and the card counts after."""

    n: int
    outcome: str = ""
    reason: str = ""
    winner: str | None = None
    lead_ns: int | None = None  # CHOMP!: the winning slap's margin over the next press
    counts: dict[str, float] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)
    presses: tuple[PressRecord, ...] = ()


@dataclass(frozen=True)
class PlayerResult:
    """A player's seat, score and place in one game; ``rank`` 1 is first."""

    name: str
    score: float | None = None
    rank: int | None = None
    won: bool = False
    detail: dict[str, Any] = field(default_factory=dict)


UNHASHED = ("source", "played_at", "table", "key")


@dataclass(frozen=True)
class GameRecord:
    kind: str
    played_at: str  # ISO 8601, UTC or with its offset
    players: tuple[PlayerResult, ...]
    finished: bool
    mode: str = ""
    variants: tuple[str, ...] = ()
    table: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)
    rounds: tuple[RoundRecord, ...] = ()
    source: str = ""  # the file or command it came from (not part of the hash)
    key: str = ""  # the same game at any length: a longer save of it replaces an unfinished one

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players if p.won)

    def content_hash(self) -> str:
        """SHA-256 of the game itself: the same game gives the same hash, wherever from."""
        return digest({k: v for k, v in vars(self).items() if k not in UNHASHED})


def digest(value: object) -> str:
    """SHA-256 of plain data (records included), the same however it was built."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=vars)
    return hashlib.sha256(text.encode()).hexdigest()


def round_digest(rnd: RoundRecord) -> str:
    """A settled round's fingerprint; an unsettled one has none ("": it may still change)."""
    return "" if rnd.outcome in ("", "abandoned") else digest(rnd)
