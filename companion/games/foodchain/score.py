"""Food Chain's scoring: eaten points plus tokens (F12), or the optional rule (F13)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

# --------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Eaten:
    """One card in a food pile: its name (empty when only its points are known)."""

    name: str
    points: int

    def label(self) -> str:
        return f"{self.name} ({self.points})" if self.name else str(self.points)


@dataclass(frozen=True)
class Tally:
    """The end of a game as scoring sees it: food piles and the tokens each player holds."""

    players: tuple[str, ...]
    eaten: Mapping[str, tuple[Eaten, ...]]
    tokens: Mapping[str, Counter[str]]  # player -> colour owner -> count

    def exchanged(self) -> Tally:
        """The same tally after the token exchange rule (F10)."""
        tokens = {p: Counter(self.tokens[p]) for p in self.players}
        for a, b in combinations(self.players, 2):
            n = min(tokens[a][b], tokens[b][a])
            tokens[a][b] -= n
            tokens[b][a] -= n
            tokens[a][a] += n
            tokens[b][b] += n
        return Tally(self.players, self.eaten, {p: +t for p, t in tokens.items()})


@dataclass(frozen=True)
class PlayerScore:
    player: str
    kept: tuple[Eaten, ...]  # the food pile as scored (after the optional rule's takes)
    tokens: int  # points for tokens (standard rule; 0 under the optional rule)
    captured: int  # tokens of other players' colours held
    taken: tuple[tuple[str, Eaten], ...] = ()  # optional rule: (from whom, card)

    @property
    def eaten_points(self) -> int:
        return sum(e.points for e in self.kept)

    @property
    def taken_points(self) -> int:
        return sum(e.points for _, e in self.taken)

    @property
    def total(self) -> int:
        return self.eaten_points + self.tokens + self.taken_points

    def to_dict(self) -> dict[str, Any]:
        return {
            "eaten": [e.name or e.points for e in self.kept],
            "eaten_points": self.eaten_points,
            "tokens": self.tokens,
            "captured": self.captured,
            "taken": [
                {"from": who, "card": e.name or None, "points": e.points} for who, e in self.taken
            ],
            "total": self.total,
        }


def score(tally: Tally) -> dict[str, PlayerScore]:
    """Points of the eaten cards plus one point per token held, whatever its colour."""
    tally = tally.exchanged()
    return {
        p: PlayerScore(
            p,
            tally.eaten[p],
            sum(tally.tokens[p].values()),
            sum(n for c, n in tally.tokens[p].items() if c != p),
        )
        for p in tally.players
    }


def score_optional(tally: Tally, rng: random.Random) -> dict[str, PlayerScore]:
    """The optional rule (F13): a random card from its owner's pile per captured token."""
    tally = tally.exchanged()
    piles = {p: list(tally.eaten[p]) for p in tally.players}
    taken: dict[str, list[tuple[str, Eaten]]] = {p: [] for p in tally.players}
    for taker in tally.players:
        for owner in tally.players:
            if owner == taker:
                continue
            for _ in range(tally.tokens[taker][owner]):
                pile = piles[owner]
                if pile:
                    taken[taker].append((owner, pile.pop(rng.randrange(len(pile)))))
    return {
        p: PlayerScore(
            p,
            tuple(piles[p]),
            0,
            sum(n for c, n in tally.tokens[p].items() if c != p),
            tuple(taken[p]),
        )
        for p in tally.players
    }


def winners(scores: Mapping[str, PlayerScore]) -> tuple[str, ...]:
    """Everyone with the most points (F12: a tie shares the victory)."""
    best = max(s.total for s in scores.values())
    return tuple(p for p, s in scores.items() if s.total == best)
