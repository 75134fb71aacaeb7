"""CHOMP!, the slap card game: round judgement and game accounting.

Pure rules, settled by the house rulings C1-C18 (docs/rulings.md).  Nothing here
reads a clock or a pin: a round is the cards shown plus slaps stamped in microseconds
relative to the reveal, and the verdict follows from those alone, whatever order the slaps
arrive in.  Randomness (the deal, reshuffles) only comes through a passed ``random.Random``.

Three layers:

* :func:`judge` decides one round (C3-C12, C14).
* :class:`ChompGame` keeps the score of a whole game by card counts (C13, C15), the way a
  referee that cannot see the hidden cards must.
* :class:`ChompTable` plays the physical deck card by card (C2, C13) on top of a
  :class:`ChompGame`, for the simulated table and for the conservation tests (C16).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from companion import data
from companion.errors import InputError, RuleError


class Card(StrEnum):
    PLANKTON = "plankton"
    SHRIMP = "shrimp"
    LITTLE_FISH = "little_fish"
    BIG_FISH = "big_fish"
    SEAL = "seal"
    SHARK = "shark"
    OCTOPUS = "octopus"
    ELECTRIC_EEL = "electric_eel"


# C1: the food chain, low to high. Action cards are not on it.
FOOD_CHAIN: tuple[Card, ...] = (
    Card.PLANKTON,
    Card.SHRIMP,
    Card.LITTLE_FISH,
    Card.BIG_FISH,
    Card.SEAL,
    Card.SHARK,
)
RANK: dict[Card, int] = {card: rank for rank, card in enumerate(FOOD_CHAIN)}
ACTION_CARDS = frozenset({Card.OCTOPUS, Card.ELECTRIC_EEL})

# C2: the deck once the two sequence cards are removed.
DECK_COMPOSITION: dict[Card, int] = {
    Card.SHARK: 4,
    Card.SEAL: 5,
    Card.BIG_FISH: 10,
    Card.LITTLE_FISH: 11,
    Card.SHRIMP: 8,
    Card.PLANKTON: 5,
    Card.ELECTRIC_EEL: 3,
    Card.OCTOPUS: 4,
}
DECK_SIZE = sum(DECK_COMPOSITION.values())

DEFAULT_TIE_WINDOW_US = 500


def can_chomp(eater: Card, food: Card) -> bool:
    """C1: strictly higher on the chain eats lower; nobody eats an action card."""
    if eater in ACTION_CARDS or food in ACTION_CARDS:
        return False
    return RANK[eater] > RANK[food]


class Mode(StrEnum):
    STANDARD = "standard"
    UNDERWATER_WAR = "underwater_war"
    QUICK_CHOMP = "quick_chomp"
    DOUBLE_CHOMP = "double_chomp"


TWO_PLAYER_MODES = (Mode.UNDERWATER_WAR, Mode.QUICK_CHOMP, Mode.DOUBLE_CHOMP)


def cards_per_player(mode: Mode) -> int:
    return 2 if mode is Mode.DOUBLE_CHOMP else 1


def player_range(mode: Mode) -> tuple[int, int]:
    """How many players a mode seats (standard: three or more, one card each at least)."""
    if mode is Mode.STANDARD:
        return 3, DECK_SIZE
    return 2, 2


class Outcome(StrEnum):
    WIN = "win"
    TIE = "tie"
    INK_OUT = "ink_out"
    ALL_SAME = "all_same"
    WAR = "war"
    NO_WINNER = "no_winner"


SET_ASIDE = frozenset({Outcome.TIE, Outcome.INK_OUT, Outcome.ALL_SAME, Outcome.WAR})


class Reason(StrEnum):
    """Why a round ended as it did; drives the report wording and the LED patterns."""

    SLAP = "slap"  # first valid slap
    AUTOMATIC = "automatic"  # C8: all but one show the lowest creature
    HIGHER_CARD = "higher_card"  # C14 underwater_war: no slap needed
    FEEDING_FRENZY = "feeding_frenzy"  # C9
    INK_OUT = "ink_out"  # C10
    ALL_SAME = "all_same"  # C8 / C14 double_chomp
    TIE = "tie"  # C5, C11
    WAR = "war"  # C14
    TIMEOUT = "timeout"  # C12


class Slap(NamedTuple):
    player: str
    t_us: int  # microseconds after the reveal instant; negative is a false start (C4)


Hand = tuple[Card, ...]


class Verdict(NamedTuple):
    """A decided round. A tuple underneath: the referee builds one per verdict, fast."""

    outcome: Outcome
    reason: Reason
    winner: str | None
    bad_chomps: tuple[str, ...]  # earliest slap first
    chomped: tuple[str, ...]  # seat order; whose played cards the winner takes
    returned: tuple[str, ...]  # seat order; whose played cards go home
    tied: tuple[str, ...] = ()  # the tie group (C5), earliest first
    decided_at_us: int | None = None  # earliest valid slap + tie window (C6)
    ignored: tuple[str, ...] = ()  # players whose presses did not count (C6, C7, C8)

    @property
    def set_aside(self) -> bool:
        return self.outcome in SET_ASIDE

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": str(self.outcome),
            "winner": self.winner,
            "bad_chomps": list(self.bad_chomps),
            "chomped": list(self.chomped),
            "returned": list(self.returned),
            "set_aside": self.set_aside,
            "reason": str(self.reason),
            "tied": list(self.tied),
            "decided_at_us": self.decided_at_us,
            "ignored": list(self.ignored),
        }


# --------------------------------------------------------------------------------------
# Round judgement
# --------------------------------------------------------------------------------------


def _first_stamps(slaps: Iterable[Slap]) -> list[tuple[int, str]]:
    """Each player's earliest press as (stamp, player), in stamp order (C5, C7).

    Sorting on (stamp, player) makes the result independent of arrival order; equal stamps
    of different players fall inside any tie window, so the name only fixes the listing.
    """
    earliest: dict[str, int] = {}
    for player, t_us in slaps:
        if player not in earliest or t_us < earliest[player]:
            earliest[player] = t_us
    return sorted([(t, p) for p, t in earliest.items()])


def first_presses(slaps: Iterable[Slap]) -> list[Slap]:
    """Each player's earliest press, in stamp order: the only presses that count (C7)."""
    return [Slap(p, t) for t, p in _first_stamps(slaps)]


Presses = list[tuple[int, str]]  # first presses as (t_us, player), in stamp order


def _set_aside(outcome: Outcome, reason: Reason, presses: Presses) -> Verdict:
    """C6/C10/C8 all_same/C14 war: no valid slap exists, so every press is bad."""
    return Verdict(outcome, reason, None, tuple(p for _, p in presses), (), ())


def _automatic(seats: Sequence[str], winner: str, reason: Reason, presses: Presses) -> Verdict:
    """C8 and C14: the winner needs no slap; her presses are ignored, all others are bad."""
    bad = tuple(p for _, p in presses if p != winner)
    others = tuple(p for p in seats if p != winner)
    ignored = (winner,) if len(bad) < len(presses) else ()
    return Verdict(Outcome.WIN, reason, winner, bad, others, (), ignored=ignored)


def _race(
    seats: Sequence[str],
    presses: Presses,
    may_chomp: frozenset[str] | None,
    tie_window_us: int,
    reason: Reason,
    top: Mapping[str, int] | None,
) -> Verdict:
    """The first valid slap wins (C5-C7).

    ``may_chomp`` is who may slap validly (None: everyone). The winner takes every played
    card strictly below hers by ``top`` rank (None: every card) and the bad chompers'.
    """
    bad: list[str] = []
    valid: list[str] = []
    ignored: list[str] = []
    deadline: int | None = None
    for t_us, player in presses:
        if deadline is not None and t_us > deadline:
            ignored.append(player)  # C6: after the decision instant
            continue
        if t_us >= 0 and (may_chomp is None or player in may_chomp):
            valid.append(player)
            if deadline is None:
                deadline = t_us + tie_window_us
        else:
            bad.append(player)  # C3 own card lowest, C4 false start
    if not valid:
        # C12: nobody chomped in time; bad chompers' cards wait in the pot.
        home = tuple(p for p in seats if p not in bad)
        return Verdict(Outcome.NO_WINNER, Reason.TIMEOUT, None, tuple(bad), (), home)
    if len(valid) > 1:
        return Verdict(Outcome.TIE, Reason.TIE, None, tuple(bad), (), (), tuple(valid), deadline)
    winner = valid[0]
    returned: tuple[str, ...] = ()
    if top is None:
        chomped = tuple(p for p in seats if p != winner)
    else:
        mine = top[winner]
        chomped = tuple(p for p in seats if p != winner and (top[p] < mine or p in bad))
        returned = tuple(p for p in seats if p != winner and p not in chomped)
    return Verdict(
        Outcome.WIN,
        reason,
        winner,
        tuple(bad),
        chomped,
        returned,
        decided_at_us=deadline,
        ignored=tuple(ignored),
    )


def judge(
    mode: Mode,
    cards: Mapping[str, Hand],
    slaps: Iterable[Slap],
    tie_window_us: int = DEFAULT_TIE_WINDOW_US,
    previous: Outcome | None = None,
) -> Verdict:
    """Decide one round.

    ``cards`` maps each seated player, in seat order, to the card(s) she turned over;
    ``previous`` is the outcome of the round before, which only matters in quick_chomp
    (C14: after a war or an ink-out the next round is judged as underwater_war).
    """
    seats = tuple(cards)
    presses = _first_stamps(slaps)
    shown = {card for hand in cards.values() for card in hand}

    if Card.ELECTRIC_EEL in shown:  # C9, beats the octopus
        return _race(seats, presses, None, tie_window_us, Reason.FEEDING_FRENZY, None)
    if Card.OCTOPUS in shown:  # C10
        return _set_aside(Outcome.INK_OUT, Reason.INK_OUT, presses)

    if mode is Mode.DOUBLE_CHOMP:
        top = {p: max(RANK[c] for c in hand) for p, hand in cards.items()}
        low = {p: min(RANK[c] for c in hand) for p, hand in cards.items()}
    else:
        top = low = {p: RANK[hand[0]] for p, hand in cards.items()}

    if mode is Mode.UNDERWATER_WAR or (
        mode is Mode.QUICK_CHOMP and previous in (Outcome.WAR, Outcome.INK_OUT)
    ):
        first, second = seats
        if top[first] == top[second]:  # C14: equal creatures
            return _set_aside(Outcome.WAR, Reason.WAR, presses)
        winner = first if top[first] > top[second] else second
        return _automatic(seats, winner, Reason.HIGHER_CARD, presses)

    if mode is Mode.QUICK_CHOMP:
        first, second = seats
        if top[first] == top[second]:
            return _set_aside(Outcome.WAR, Reason.WAR, presses)
        return _race(seats, presses, None, tie_window_us, Reason.SLAP, None)

    lowest = min(low.values())
    showing_lowest = frozenset(p for p in seats if low[p] == lowest)
    if len(showing_lowest) == len(seats):  # C8 all_same, C14 double_chomp
        return _set_aside(Outcome.ALL_SAME, Reason.ALL_SAME, presses)
    may_chomp = frozenset(seats) - showing_lowest
    if mode is Mode.STANDARD and len(may_chomp) == 1:  # C8 automatic win
        (winner,) = may_chomp
        return _automatic(seats, winner, Reason.AUTOMATIC, presses)
    if mode is Mode.DOUBLE_CHOMP:  # C14: the winner takes all four
        return _race(seats, presses, may_chomp, tie_window_us, Reason.SLAP, None)
    # C8: the winner takes every card strictly lower than her own.
    return _race(seats, presses, may_chomp, tie_window_us, Reason.SLAP, top)


def can_still_be_won(
    mode: Mode,
    cards: Mapping[str, Hand],
    slaps: Iterable[Slap],
    tie_window_us: int = DEFAULT_TIE_WINDOW_US,
    previous: Outcome | None = None,
) -> bool:
    """Could a slap not yet made still win this round (C12a)?

    Only a player's first press counts (C7), so a round is still open to a slap only if
    some seat that has not pressed yet would win with a slap now. Asked of :func:`judge`
    itself, seat by seat, so this can never disagree with the rules it decides by.
    """
    slaps = tuple(slaps)
    if judge(mode, cards, slaps, tie_window_us, previous).outcome is not Outcome.NO_WINNER:
        return False  # decided already: by a slap, or by the cards alone
    pressed = {s.player for s in slaps}
    late = max([0, *(s.t_us for s in slaps)]) + 1
    for player in cards:
        if player in pressed:
            continue
        verdict = judge(mode, cards, (*slaps, Slap(player, late)), tie_window_us, previous)
        if verdict.winner == player or player in verdict.tied:
            return True
    return False


# --------------------------------------------------------------------------------------
# Game accounting by counts (C13, C15, C16)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Moves:
    """Where every card of a settled round goes, by count (C7, C12, C14, C15).

    The count tracker and the card-by-card table both apply these, so the rules of who
    takes what are written once.
    """

    played: Mapping[str, int]  # cards each player turned over
    penalties: tuple[str, ...]  # bad chompers who had a card to pay (C7)
    war_stakes: Mapping[str, int]  # face-down cards each adds to the pot (C14)
    winner: str | None
    to_winner: tuple[str, ...]  # whose table cards the winner takes (her own included)
    returned: tuple[str, ...]  # whose table cards go back to their owner
    to_pot: tuple[str, ...]  # whose table cards join the pot
    pot_to_winner: bool


def plan_moves(verdict: Verdict, played: Mapping[str, int], counts: Mapping[str, int]) -> Moves:
    """Turn a verdict into card movements, given each player's count before the round."""
    left = {p: counts[p] - n for p, n in played.items()}
    penalties = tuple(p for p in verdict.bad_chomps if left[p] > 0)  # C7: none owed at 0
    for p in penalties:
        left[p] -= 1
    stakes = {p: min(2, left[p]) for p in played} if verdict.outcome is Outcome.WAR else {}
    if verdict.winner is not None:
        return Moves(
            played,
            penalties,
            stakes,
            verdict.winner,
            (verdict.winner, *verdict.chomped),
            verdict.returned,
            (),
            True,
        )
    if verdict.set_aside:
        return Moves(played, penalties, stakes, None, (), (), tuple(played), False)
    return Moves(played, penalties, stakes, None, (), verdict.returned, verdict.bad_chomps, False)


class TwoPlayerEnd(StrEnum):
    COUNT = "count"
    UNDERWATER_WAR = "underwater_war"
    QUICK_CHOMP = "quick_chomp"
    DOUBLE_CHOMP = "double_chomp"


@dataclass(frozen=True, slots=True)
class Round:
    cards: Mapping[str, Hand]
    slaps: tuple[Slap, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundResult:
    verdict: Verdict
    moves: Moves
    went_out: tuple[str, ...]
    mode: Mode  # the mode this round was played in


@dataclass
class ChompGame:
    """A whole game tracked by counts: pile plus discard per player, and the pot (C15)."""

    players: tuple[str, ...]
    mode: Mode = Mode.STANDARD
    two_player_end: TwoPlayerEnd = TwoPlayerEnd.COUNT
    tie_window_us: int = DEFAULT_TIE_WINDOW_US
    counts: dict[str, int] = field(default_factory=dict)
    pot: int = 0
    out: list[str] = field(default_factory=list)
    over: bool = False
    winner: str | None = None
    previous: Outcome | None = None
    dealt: int = 0

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        mode: Mode = Mode.STANDARD,
        two_player_end: TwoPlayerEnd = TwoPlayerEnd.COUNT,
        tie_window_us: int = DEFAULT_TIE_WINDOW_US,
        deal: Mapping[str, int] | None = None,
    ) -> ChompGame:
        players = tuple(players)
        if len(set(players)) != len(players):
            raise RuleError("a player is named twice")
        low, high = player_range(mode)
        if not low <= len(players) <= high:
            raise RuleError(
                f"{mode} is for {low} players"
                if low == high
                else f"{mode} needs {low} to {high} players, not {len(players)}"
            )
        if deal is None:
            each = DECK_SIZE // len(players)  # C2: the rest goes back to the box
            counts = dict.fromkeys(players, each)
        else:
            counts = {p: deal[p] for p in players}
            if sum(counts.values()) > DECK_SIZE or min(counts.values()) < 1:
                raise RuleError(f"a deal gives each player 1 or more of the {DECK_SIZE} cards")
        return cls(players, mode, two_player_end, tie_window_us, counts, dealt=sum(counts.values()))

    @property
    def active(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if p not in self.out)

    def hand_size(self, player: str) -> int:
        """How many cards a player turns over this round (fewer if she has fewer)."""
        return min(cards_per_player(self.mode), self.counts[player])

    def check_round(self, rnd: Round, where: str = "") -> None:
        """Refuse a round that does not fit the game, naming the place (formats.md)."""
        if self.over:
            raise InputError(data.where(where), "the game is already over")
        active = self.active
        for player, hand in rnd.cards.items():
            place = data.at(data.at(where, "cards"), player)
            if player not in self.players:
                raise InputError(place, f"unknown player {player!r}")
            if player in self.out:
                raise InputError(place, f"{player!r} is out of the game")
            if len(hand) != self.hand_size(player):
                raise InputError(
                    place,
                    f"{player!r} turns over {self.hand_size(player)} "
                    f"card(s) in {self.mode}, not {len(hand)}",
                )
        for player in active:
            if player not in rnd.cards:
                raise InputError(data.at(where, "cards"), f"no card for {player!r}")
        for i, slap in enumerate(rnd.slaps):
            if slap.player not in rnd.cards:
                raise InputError(
                    data.at(data.at(data.at(where, "slaps"), i), "player"),
                    f"{slap.player!r} has no card in this round",
                )

    def play(self, rnd: Round) -> RoundResult:
        """Judge a round and settle it."""
        self.check_round(rnd)
        seated = {p: rnd.cards[p] for p in self.active}  # seat order, whatever the input order
        mode = self.mode
        verdict = judge(mode, seated, rnd.slaps, self.tie_window_us, self.previous)
        moves = plan_moves(verdict, {p: len(h) for p, h in seated.items()}, self.counts)
        self._apply(moves)
        went_out = self._after_round(verdict)
        return RoundResult(verdict, moves, went_out, mode)

    def _apply(self, moves: Moves) -> None:
        table = dict(moves.played)
        for p, n in moves.played.items():
            self.counts[p] -= n
        for p in moves.penalties:
            self.counts[p] -= 1
            table[p] += 1
        for p, n in moves.war_stakes.items():
            self.counts[p] -= n
            self.pot += n
        if moves.winner is not None:
            self.counts[moves.winner] += sum(table[p] for p in moves.to_winner)
            if moves.pot_to_winner:
                self.counts[moves.winner] += self.pot
                self.pot = 0
        for p in moves.returned:
            self.counts[p] += table[p]
        self.pot += sum(table[p] for p in moves.to_pot)

    def _after_round(self, verdict: Verdict) -> tuple[str, ...]:
        went_out = tuple(p for p in self.active if self.counts[p] == 0)
        self.out.extend(went_out)
        self.previous = verdict.outcome
        active = self.active
        if len(active) <= 1:
            self.over = True
            self.winner = active[0] if active else None
        elif len(active) == 2 and self.mode is Mode.STANDARD:  # C13
            if self.two_player_end is TwoPlayerEnd.COUNT:
                self.over = True
                a, b = active
                if self.counts[a] != self.counts[b]:
                    self.winner = a if self.counts[a] > self.counts[b] else b
            else:
                self.mode = Mode(self.two_player_end.value)
                # C14's "after a war or ink-out" speaks of the two-player game's own rounds.
                self.previous = None
        return went_out

    def total(self) -> int:
        """Cards in all piles and the pot: always equals the cards dealt (C16)."""
        return sum(self.counts.values()) + self.pot

    def to_dict(self) -> dict[str, Any]:
        return {
            "cards": dict(self.counts),
            "pot": self.pot,
            "out": list(self.out),
            "over": self.over,
            "winner": self.winner,
            "mode": str(self.mode),
        }


# --------------------------------------------------------------------------------------
# The physical deck, card by card (C2, C13, C16)
# --------------------------------------------------------------------------------------


def new_deck() -> list[Card]:
    return [card for card, n in DECK_COMPOSITION.items() for _ in range(n)]


@dataclass
class ChompTable:
    """Real cards in real piles: the simulated table and the conservation tests use it.

    Every round is settled through the wrapped :class:`ChompGame`, and the cards are moved
    by the same :class:`Moves`, so the counts the referee keeps and the cards on this table
    can be checked against each other.
    """

    game: ChompGame
    rng: random.Random
    piles: dict[str, list[Card]]  # top of pile is the end of the list
    discards: dict[str, list[Card]]
    pot: list[Card]
    box: list[Card]  # C2: the cards left over after the deal
    reshuffles: int = 0

    @classmethod
    def deal(
        cls,
        players: Sequence[str],
        rng: random.Random,
        mode: Mode = Mode.STANDARD,
        two_player_end: TwoPlayerEnd = TwoPlayerEnd.COUNT,
        tie_window_us: int = DEFAULT_TIE_WINDOW_US,
    ) -> ChompTable:
        game = ChompGame.new(players, mode, two_player_end, tie_window_us)
        deck = new_deck()
        rng.shuffle(deck)
        piles = {p: [deck.pop() for _ in range(game.counts[p])] for p in game.players}
        return cls(game, rng, piles, {p: [] for p in game.players}, [], deck)

    def _draw(self, player: str) -> Card:
        """C13: an empty pile is refilled from the shuffled discard pile."""
        pile = self.piles[player]
        if not pile:
            pile.extend(self.discards[player])
            self.discards[player].clear()
            self.rng.shuffle(pile)
            self.reshuffles += 1
        return pile.pop()

    def reveal(self) -> dict[str, Hand]:
        """Everyone still in turns over her top card(s), in seat order."""
        return {
            p: tuple(self._draw(p) for _ in range(self.game.hand_size(p))) for p in self.game.active
        }

    def play(self, cards: Mapping[str, Hand], slaps: Iterable[Slap] = ()) -> RoundResult:
        """Settle a revealed round: the game judges, the cards follow the moves."""
        result = self.game.play(Round(cards, tuple(slaps)))
        self.settle(cards, result)
        return result

    def settle(self, cards: Mapping[str, Hand], result: RoundResult) -> None:
        """Move the real cards as a round already played on ``self.game`` says."""
        moves = result.moves
        table: dict[str, list[Card]] = {p: list(cards[p]) for p in moves.played}
        for p in moves.penalties:
            table[p].append(self._draw(p))
        for p, n in moves.war_stakes.items():
            self.pot.extend(self._draw(p) for _ in range(n))
        if moves.winner is not None:
            won = self.discards[moves.winner]
            for p in moves.to_winner:
                won.extend(table[p])
            if moves.pot_to_winner:
                won.extend(self.pot)
                self.pot.clear()
        for p in moves.returned:
            self.discards[p].extend(table[p])
        for p in moves.to_pot:
            self.pot.extend(table[p])

    def count(self, player: str) -> int:
        return len(self.piles[player]) + len(self.discards[player])

    def all_cards(self) -> Counter[Card]:
        """Every card in play, wherever it is."""
        every = Counter(self.pot)
        for p in self.game.players:
            every.update(self.piles[p])
            every.update(self.discards[p])
        return every


# --------------------------------------------------------------------------------------
# Names of the plain-data vocabulary (the readers: companion.games.chomp.formats)
# --------------------------------------------------------------------------------------

CARD_NAMES = {str(c): c for c in Card}
MODE_NAMES = {str(m): m for m in Mode}
END_NAMES = {str(e): e for e in TwoPlayerEnd}
OUTCOME_NAMES = {str(o): o for o in Outcome}
