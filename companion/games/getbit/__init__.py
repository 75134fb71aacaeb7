"""Get Bit!: the line, the limbs, the hands and the bite.

Pure rules, settled by the house rulings G1-G8 (docs/rulings.md). The physical
robots stay on the table; this module keeps the truth about their order, their limbs and
the cards in every hand, so the table can be checked and announced. Nothing here reads a
clock, a file or a pin; the only chance (the starting line) comes through a passed
``random.Random``. A state never changes: :meth:`GetBit.play` returns the next state and
what happened, and a refused round (G7) leaves the old state as it was.

How one round is settled (our reading of the rulebook's "Play" and its worked example):

1. Choose cards: every robot still in the line plays one card from its hand (G7).
2. Move (G2): every robot whose number nobody else played goes to the front, lowest
   number first, so the highest untied number ends at the very front; tied robots keep
   their places relative to each other.
3. Bite (G3), skipped in round 1: the robot at the back loses a limb (half a limb with
   ``longer_games``), goes to the front and takes back all its played cards, this round's
   included. At 0 limbs it is eliminated and leaves the line.
4. End (G5), as soon as an elimination decides the game: with 4-6 players, when two
   robots are left the shark eats the back one (it goes out last, at 0 limbs) and the
   front one's player wins; with 2-3 players the first elimination makes its owner lose.
   "As soon as this happens": nothing else is done in that round (no pick-ups).
5. Pick-up (G4): every other robot left with ``pickup_at`` cards in hand (default 1)
   takes back all its played cards; the rest stay played, face up.

Why the bite comes before the pick-up: the rulebook describes the bite first and the
pick-up after it ("Any player who has only two cards..."), and its example does the same:
Beth is bitten and picks up her cards, then Ted, down to one card, picks up his. The
bitten robot already holds its whole hand, so the order changes no hand; it fixes what is
announced and that a game that ends at the bite ends before anyone picks up. The pick-up
also happens in round 1: only the bite is skipped there (G3), and G4 says "after a round".
With the default ``pickup_at`` of 1 nobody is that low after one round anyway.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.errors import RuleError

START_LIMBS = 4
HALVES_PER_LIMB = 2  # limbs are counted in halves, so longer games stay exact
MIN_PLAYERS, MAX_PLAYERS = 2, 6

# G1: the cards in each robot's hand (1..N) by the number of robots in the game.
HAND_SIZE: dict[int, int] = {4: 5, 5: 6, 6: 7}

# The physical cards: each robot's colour and its hand numbered 1 up; six robots hold the
# most cards, so the whole box is every colour with 1 to HIGHEST_CARD ("red-3").
COLOURS = ("red", "orange", "yellow", "green", "blue", "purple")
HIGHEST_CARD = max(HAND_SIZE.values())  # 7: the cards of a six-robot game


def card_name(colour: str, number: int) -> str:
    """A physical card's name, as tag files and deck files write it: ``red-3``."""
    return f"{colour}-{number}"


def robots_per_player(players: int) -> int:
    """G1/variants: two robots each for 2 and 3 players, one each for 4 to 6."""
    return 2 if players <= 3 else 1


class SetupError(RuleError):
    """A setup the rules do not allow; ``key`` names the setting at fault."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(message)


class PlayError(RuleError):
    """A round the rules refuse (G7): names the round, the robot and the card."""

    def __init__(
        self, round_no: int, message: str, robot: str | None = None, card: object = None
    ) -> None:
        self.round_no = round_no
        self.robot = robot
        self.card = card
        self.detail = message
        super().__init__(f"round {round_no}: {message}")


def _names(items: Iterable[str]) -> str:
    return ", ".join(items)


@dataclass(frozen=True, slots=True)
class Setup:
    """Who plays which robot, the starting line and the variants: all a game needs."""

    robots: Mapping[str, str]  # robot -> owning player, in seat order
    line: tuple[str, ...]  # front first
    longer_games: bool = False  # lose half a limb per bite
    memory: bool = False  # G6: played cards hidden from the display only
    pickup_at: int = 1  # G4

    def __post_init__(self) -> None:
        check_setup(self.robots, self.line, self.pickup_at)

    @property
    def players(self) -> tuple[str, ...]:
        """The players in seat order of their first robot."""
        return tuple(dict.fromkeys(self.robots.values()))

    @property
    def hand_size(self) -> int:
        return HAND_SIZE[len(self.robots)]

    @property
    def full_hand(self) -> tuple[int, ...]:
        return tuple(range(1, self.hand_size + 1))

    def robots_of(self, player: str) -> tuple[str, ...]:
        return tuple(r for r, p in self.robots.items() if p == player)

    def to_dict(self) -> dict[str, Any]:
        """The setup part of ``companion getbit replay``'s input (formats.md)."""
        return {
            "robots": dict(self.robots),
            "line": list(self.line),
            "longer_games": self.longer_games,
            "memory": self.memory,
            "pickup_at": self.pickup_at,
        }


def check_setup(robots: Mapping[str, str], line: Sequence[str], pickup_at: int) -> None:
    """G1 and the variants: 2-6 players, one robot each or two each for 2-3 players."""
    players = Counter(robots.values())
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise SetupError(
            "robots", f"Get Bit! is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}"
        )
    each = robots_per_player(len(players))
    for player, n in players.items():
        if n != each:
            raise SetupError(
                "robots",
                f"with {len(players)} players each plays {each} robot{'s' if each > 1 else ''}; "
                f"{player!r} has {n}",
            )
    missing = [r for r in robots if r not in line]
    unknown = [r for r in line if r not in robots]
    if unknown:
        raise SetupError("line", f"not a robot of this game: {_names(unknown)}")
    if len(set(line)) != len(line):
        twice = sorted({r for r in line if line.count(r) > 1})
        raise SetupError("line", f"a robot stands in the line twice: {_names(twice)}")
    if missing:
        raise SetupError("line", f"missing from the line: {_names(missing)}")
    size = HAND_SIZE[len(robots)]
    if not 0 <= pickup_at < size:
        raise SetupError("pickup_at", f"must be 0 to {size - 1} with cards 1-{size}")


def default_robots(players: Sequence[str]) -> dict[str, str]:
    """Robots for a table of players: each player's own name with 4-6 players; with 2 or 3
    players, two robots each named ``<player>-1`` and ``<player>-2``, seated alternately."""
    if robots_per_player(len(players)) == 1:
        return {p: p for p in players}
    return {f"{p}-{i}": p for i in (1, 2) for p in players}


def random_line(robots: Iterable[str], rng: random.Random) -> tuple[str, ...]:
    """The rulebook's "in a random order", drawn from the caller's generator."""
    line = list(robots)
    rng.shuffle(line)
    return tuple(line)


def limbs_number(halves: int) -> int | float:
    """Half-limbs as the number formats.md shows: whole when whole, else x.5."""
    return halves // HALVES_PER_LIMB if halves % HALVES_PER_LIMB == 0 else halves / HALVES_PER_LIMB


@dataclass(frozen=True, slots=True)
class RoundResult:
    """What one round did, for the replay output and the table's announcements."""

    number: int  # 1 for the first round
    cards: Mapping[str, int]  # robot -> card, in seat order
    moved: tuple[str, ...]  # in the order they moved: lowest card first (G2)
    stayed: tuple[str, ...]  # tied robots, in line order (G2)
    bitten: str | None  # None in round 1 (G3)
    out: tuple[str, ...]  # eliminated this round, in order; the robot eaten at the end last
    eaten: str | None  # G5, 4-6 players: the back robot the shark eats at the end
    picked_up: tuple[str, ...]  # G4, in seat order; never the bitten robot
    winner: str | None  # a player, when this round ended the game

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``rounds`` in the replay output (formats.md): exactly its keys."""
        return {"moved": list(self.moved), "bitten": self.bitten, "out": list(self.out)}


def move(line: Sequence[str], cards: Mapping[str, int]) -> tuple[tuple[str, ...], list[str]]:
    """G2: the new line and the robots that moved, in the order they moved."""
    counts = Counter(cards[r] for r in line)
    moved = sorted((r for r in line if counts[cards[r]] == 1), key=lambda r: cards[r])
    stayed = [r for r in line if counts[cards[r]] > 1]
    return (*reversed(moved), *stayed), moved


@dataclass(frozen=True, slots=True)
class GetBit:
    """A game between rounds: the line, each robot's limbs, hand and played cards."""

    setup: Setup
    rounds: int  # rounds played so far
    line: tuple[str, ...]  # robots still in play, front first
    halves: Mapping[str, int]  # limbs in half-limbs, every robot (0 when out)
    hands: Mapping[str, tuple[int, ...]]  # cards in hand, low to high
    played: Mapping[str, tuple[int, ...]]  # played cards on the table, in the order played
    out: tuple[str, ...]  # robots out of the game, in the order they went out
    winner: str | None = None  # the winning player, once the game is over

    @classmethod
    def new(cls, setup: Setup) -> GetBit:
        robots = tuple(setup.robots)
        return cls(
            setup,
            0,
            setup.line,
            dict.fromkeys(robots, START_LIMBS * HALVES_PER_LIMB),
            dict.fromkeys(robots, setup.full_hand),
            dict.fromkeys(robots, ()),
            (),
        )

    @property
    def over(self) -> bool:
        return self.winner is not None

    def limbs(self, robot: str) -> int | float:
        return limbs_number(self.halves[robot])

    def check(self, cards: Mapping[str, object]) -> dict[str, int]:
        """G7: every robot in the line plays exactly one card from its own hand.

        Returns the cards in seat order; anything else is a :class:`PlayError` naming the
        round, the robot and the card.
        """
        n = self.rounds + 1
        if self.over:
            raise PlayError(n, f"the game is already over ({self.winner} won)")
        chosen: dict[str, int] = {}
        for robot, card in cards.items():
            if robot not in self.setup.robots:
                raise PlayError(n, f"{robot!r} is not a robot of this game", robot, card)
            if robot in self.out:
                raise PlayError(n, f"{robot} is out of the game and plays no card", robot, card)
            if isinstance(card, bool) or not isinstance(card, int):
                raise PlayError(n, f"{robot}'s card must be a number, not {card!r}", robot, card)
            if card not in self.setup.full_hand:
                raise PlayError(
                    n,
                    f"{robot} cannot play {card}: the cards are 1-{self.setup.hand_size}",
                    robot,
                    card,
                )
            if card not in self.hands[robot]:
                hand = ", ".join(map(str, self.hands[robot]))
                raise PlayError(
                    n, f"{robot} cannot play {card}: not in its hand ({hand})", robot, card
                )
            chosen[robot] = card
        missing = [r for r in self.line if r not in chosen]
        if missing:
            raise PlayError(n, f"no card for {_names(missing)}")
        return {r: chosen[r] for r in self.setup.robots if r in chosen}

    def play(self, cards: Mapping[str, object]) -> tuple[GetBit, RoundResult]:
        """Settle one round: the next state and what happened (module docstring, 1-5)."""
        chosen = self.check(cards)
        setup = self.setup
        number = self.rounds + 1
        hands = {r: tuple(c for c in h if c != chosen.get(r)) for r, h in self.hands.items()}
        played = {r: (*p, chosen[r]) if r in chosen else p for r, p in self.played.items()}
        halves = dict(self.halves)
        out = list(self.out)
        line, moved = move(self.line, chosen)
        stayed = tuple(r for r in self.line if r not in moved)
        bitten: str | None = None
        went_out: list[str] = []
        eaten: str | None = None
        winner: str | None = None

        def take_back(robot: str) -> None:
            hands[robot] = setup.full_hand
            played[robot] = ()

        if number > 1:  # G3: no bite in the first round
            bitten = line[-1]
            halves[bitten] = max(0, halves[bitten] - (1 if setup.longer_games else HALVES_PER_LIMB))
            take_back(bitten)
            line = line[:-1]
            if halves[bitten] == 0:
                went_out.append(bitten)
            else:
                line = (bitten, *line)
        if went_out:  # G5: an elimination may end the game at once
            (gone,) = went_out
            if len(setup.players) >= 4:
                if len(line) == 2:
                    eaten = line[-1]
                    halves[eaten] = 0
                    went_out.append(eaten)
                    line = line[:1]
                    winner = setup.robots[line[0]]
            else:
                loser = setup.robots[gone]
                winner = next(setup.robots[r] for r in line if setup.robots[r] != loser)
        out.extend(went_out)
        picked_up: list[str] = []
        if winner is None:  # G4
            for robot in setup.robots:
                if robot in line and robot != bitten and len(hands[robot]) <= setup.pickup_at:
                    take_back(robot)
                    picked_up.append(robot)
        state = GetBit(setup, number, line, halves, hands, played, tuple(out), winner)
        result = RoundResult(
            number,
            chosen,
            tuple(moved),
            stayed,
            bitten,
            tuple(went_out),
            eaten,
            tuple(picked_up),
            winner,
        )
        return state, result

    # -- plain data -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The whole state as plain data; :func:`state_from_dict` reads it back."""
        robots = tuple(self.setup.robots)
        return {
            "setup": self.setup.to_dict(),
            "round": self.rounds,
            "line": list(self.line),
            "limbs": {r: self.limbs(r) for r in robots},
            "hands": {r: list(self.hands[r]) for r in robots},
            "played": {r: list(self.played[r]) for r in robots},
            "out": list(self.out),
            "winner": self.winner,
        }

    def result_dict(self, results: Iterable[RoundResult]) -> dict[str, Any]:
        """``companion getbit replay --json``'s output (formats.md), exactly its keys."""
        robots = tuple(self.setup.robots)
        return {
            "line": list(self.line),
            "limbs": {r: self.limbs(r) for r in robots},
            "hands": {r: list(self.hands[r]) for r in robots},
            "out": list(self.out),
            "winner": self.winner,
            "rounds": [r.to_dict() for r in results],
        }


# --------------------------------------------------------------------------------------
# A game replayed from its setup (its JSON readers: companion.games.getbit.formats)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Replay:
    """A game replayed from its setup: the rounds as given, every result, the last state."""

    setup: Setup
    rounds: tuple[Mapping[str, int], ...]
    results: tuple[RoundResult, ...]
    state: GetBit

    def to_dict(self) -> dict[str, Any]:
        return self.state.result_dict(self.results)

    def game_dict(self) -> dict[str, Any]:
        """The replay input that gives this game again (what the table saves)."""
        return {**self.setup.to_dict(), "rounds": [dict(r) for r in self.rounds]}


def replay(setup: Setup, rounds: Iterable[Mapping[str, int]]) -> Replay:
    """Play rounds from the setup; a refused round raises :class:`PlayError`."""
    state = GetBit.new(setup)
    played: list[Mapping[str, int]] = []
    results: list[RoundResult] = []
    for cards in rounds:
        state, result = state.play(cards)
        played.append(dict(cards))
        results.append(result)
    return Replay(setup, tuple(played), tuple(results), state)
