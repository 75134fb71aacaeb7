"""The Great Chips Escape with every card known: for tests, playouts and simulations."""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from companion.errors import RuleError
from companion.games.chips.actions import (
    REVEAL_TARGET,
    Action,
    ChipsStep,
    Choose,
    Decline,
    Discard,
    Draw,
    Knight,
    PassTurn,
    Pending,
    RevealFish,
    Spy,
    StopTriple,
    check_players,
    next_in,
)
from companion.games.chips.cards import (
    ChipsRules,
    EscapeCard,
    FishCard,
    FishKind,
    Kind,
    a,
    either,
    follows,
    neighbours,
)

# --------------------------------------------------------------------------------------
# The whole game, every card known
# --------------------------------------------------------------------------------------


@dataclass
class ChipsState:
    """Every escape card is in the deck (top first), the discard pile (top last), a hand
    or under a Golden Knight; every fish-or-chips card face down, face up, covered or in
    the box."""

    rules: ChipsRules
    players: tuple[str, ...]
    deck: list[str]
    discard: list[str]
    hands: dict[str, list[str]]
    fresh: dict[str, list[str]]  # E2: drawn since its holder's turn began
    down: dict[str, list[str]]
    up: dict[str, list[str]]  # revealed and open (uncovered Mad Fish, Chips Heroes)
    covered: dict[str, list[tuple[str, str]]]  # (Mad Fish, Golden Knight on it)
    box: list[str]
    turn: str
    out: list[str] = field(default_factory=list)
    winner: str | None = None
    pending: Pending | None = None
    escape: dict[str, EscapeCard] = field(default_factory=dict, repr=False, compare=False)
    fish: dict[str, FishCard] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.escape = self.rules.escape_cards()
        self.fish = self.rules.fish_cards()

    # ---------------------------------------------------------------- setup ----------

    @classmethod
    def deal(
        cls,
        players: Sequence[str],
        rng: random.Random,
        rules: ChipsRules | None = None,
        first: str | None = None,
    ) -> ChipsState:
        """Shuffle and deal: eight cards and five face-down fish-or-chips cards each, then
        the deck's top card starts the discard pile (only as its number)."""
        rules = rules or ChipsRules()
        seats = check_players(players, rules)
        if first is not None and first not in seats:
            raise RuleError(f"{first!r} is not at the table")
        deck = list(rules.escape_cards())
        rng.shuffle(deck)
        hands = {p: [deck.pop(0) for _ in range(rules.hand_size)] for p in seats}
        fish = list(rules.fish_cards())
        rng.shuffle(fish)
        down = {p: [fish.pop(0) for _ in range(rules.fish_per_player)] for p in seats}
        discard = [deck.pop(0)]
        return cls(
            rules,
            seats,
            deck,
            discard,
            hands,
            {p: [] for p in seats},
            down,
            {p: [] for p in seats},
            {p: [] for p in seats},
            fish,
            first or seats[0],
        )

    # ---------------------------------------------------------------- queries --------

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def active(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if p not in self.out)

    @property
    def actor(self) -> str:
        """Who must decide now: the player whose turn it is, or the one a step waits for."""
        return self.pending.player if self.pending else self.turn

    @property
    def to_act(self) -> str:
        """Who decides now (:class:`companion.games.turns.TurnGame`)."""
        return self.actor

    @property
    def top(self) -> int:
        return self.escape[self.discard[-1]].number

    def usable(self, player: str) -> list[str]:
        """The cards ``player`` may play now (E2)."""
        return [c for c in self.hands[player] if c not in self.fresh[player]]

    def mad_fish(self, player: str) -> int:
        """Uncovered Mad Fish in front of ``player`` (three lose, E7)."""
        return sum(1 for f in self.up[player] if self.fish[f].kind is FishKind.MAD_FISH)

    def can_draw(self) -> bool:
        return bool(self.deck) or len(self.discard) > 1

    def _legal_discards(self, player: str) -> list[str]:
        return [c for c in self.usable(player) if follows(self.top, self.escape[c].number)]

    def _knights(self, player: str) -> list[str]:
        return [c for c in self.usable(player) if self.escape[c].kind is Kind.GOLDEN_KNIGHT]

    def _sir_matches(self, player: str, numbers: tuple[int, ...]) -> list[str]:
        return [c for c in self.usable(player) if self.escape[c].number in numbers]

    def _reveal_targets(self, player: str) -> list[str]:
        return [q for q in self.active if q != player and self.down[q]]

    # ---------------------------------------------------------------- legality -------

    def legal_actions(self) -> list[Action]:
        return [] if self.over else list(self._actions())

    def _actions(self) -> Iterator[Action]:
        pending, p = self.pending, self.actor
        if pending is None:
            found = False
            for card in self._legal_discards(p):
                found = True
                yield Discard(card)
            for i in range(len(self.down[p])):
                found = True
                yield RevealFish(i)
            if self.can_draw():
                found = True
                yield Draw()
            if not found:
                yield PassTurn()
        elif pending.step is ChipsStep.KNIGHT:
            yield from (Knight(c) for c in self._knights(p))
            yield Decline()
        elif pending.step is ChipsStep.SIR_FRIES:
            yield from (Discard(c) for c in self._sir_matches(p, pending.numbers))
        elif pending.step is ChipsStep.SPY_FRY:
            for q in self.active:
                if q == p:
                    continue
                yield Spy(q)
                for give in self.hands[p]:
                    yield from (Spy(q, give, take) for take in self.hands[q])
        elif pending.step is ChipsStep.FISH_TIME:
            yield from (Choose(q) for q in self._reveal_targets(p))
        elif pending.step is ChipsStep.REVEAL:
            yield from (RevealFish(i) for i in range(len(self.down[p])))
        elif pending.step is ChipsStep.TRIPLE:
            yield from (Discard(c) for c in self._legal_discards(p))
            yield StopTriple()
        elif pending.first:
            yield from (Discard(c) for c in self.usable(p))
        else:
            yield from (Discard(c) for c in self._legal_discards(p))

    def why_not(self, action: Action) -> str | None:
        """Why the actor may not do this now; None if she may."""
        if self.over:
            return f"the game is over: {self.winner} won"
        p, pending = self.actor, self.pending
        step = None if pending is None else pending.step
        if isinstance(action, Discard):
            return self._why_not_discard(p, action.card)
        if isinstance(action, Draw | PassTurn):
            if step is not None:
                return f"{p} must first finish the {step} step"
            if isinstance(action, Draw):
                return None if self.can_draw() else "there is no card left to draw"
            if next(self._actions(), PassTurn()) != PassTurn():
                return f"{p} can still discard, reveal or draw: no passing"
            return None
        if isinstance(action, RevealFish):
            if step not in (None, ChipsStep.REVEAL):
                return f"{p} must first finish the {step} step"
            if not 0 <= action.position < len(self.down[p]):
                left = len(self.down[p])
                return (
                    f"{p} has {left} face-down fish-or-chips card(s): no position {action.position}"
                )
            return None
        if isinstance(action, Knight | Decline):
            if step is not ChipsStep.KNIGHT:
                return "no Mad Fish is waiting for a Golden Knight"
            if isinstance(action, Knight) and action.card not in self._knights(p):
                return f"{action.card} is not a Golden Knight {p} may play now"
            return None
        if isinstance(action, StopTriple):
            return None if step is ChipsStep.TRIPLE else "only Triple Chips can be stopped early"
        if isinstance(action, Choose):
            if step is not ChipsStep.FISH_TIME:
                return "nobody has to choose who reveals now"
            if action.player not in self._reveal_targets(p):
                return f"{action.player} cannot be made to reveal: {REVEAL_TARGET}"
            return None
        if step is not ChipsStep.SPY_FRY:
            return "no Spy Fry is waiting"
        if action.target == p or action.target not in self.active:
            return f"{action.target} is not another player still in the game"
        if (action.give is None) != (action.take is None):
            return "a swap gives one card and takes one"
        if action.give is not None and action.give not in self.hands[p]:
            return f"{action.give} is not in {p}'s hand"
        if action.take is not None and action.take not in self.hands[action.target]:
            return f"{action.take} is not in {action.target}'s hand"
        return None

    def _why_not_discard(self, p: str, card: str) -> str | None:
        pending = self.pending
        if pending is not None and pending.step not in (
            ChipsStep.TRIPLE,
            ChipsStep.HEROES,
            ChipsStep.SIR_FRIES,
        ):
            return f"{p} must first finish the {pending.step} step"
        if card not in self.hands[p]:
            return f"{card} is not in {p}'s hand"
        if card in self.fresh[p]:
            return f"{card} was drawn since {p}'s turn began: it can be played from her next turn"
        number = self.escape[card].number
        if pending is not None and pending.step is ChipsStep.SIR_FRIES:
            if number not in pending.numbers:
                return f"Sir Fries lets {p} discard {either(pending.numbers)}, not {a(number)}"
            return None
        if pending is not None and pending.step is ChipsStep.HEROES and pending.first:
            return None
        if not follows(self.top, number):
            return f"{a(number)} cannot go on {a(self.top)}: play {either(neighbours(self.top))}"
        return None

    def check(self, action: Action) -> None:
        why = self.why_not(action)
        if why is not None:
            raise RuleError(why)

    # ---------------------------------------------------------------- moves ----------

    def apply(self, action: Action, rng: random.Random) -> None:
        """Play ``action`` for the actor. Illegal: RuleError saying why, nothing changed."""
        self.check(action)
        p, pending = self.actor, self.pending
        if isinstance(action, Discard):
            self._discard(p, action.card, pending, rng)
        elif isinstance(action, Draw):
            self._draw_into(p, 1, rng)
            self._end(p, rng)
        elif isinstance(action, RevealFish):
            self._reveal(p, action.position, rng)
        elif isinstance(action, Knight):
            assert pending is not None and pending.fish is not None
            self.hands[p].remove(action.card)
            self.up[p].remove(pending.fish)
            self.covered[p].append((pending.fish, action.card))
            if not self.hands[p]:  # E3: covered with her last card, she wins at once
                self.winner = p
                self.pending = None
            else:
                self._end(p, rng)
        elif isinstance(action, Decline):
            assert pending is not None and pending.fish is not None
            self._mad_fish(p, pending.draw, rng)
        elif isinstance(action, StopTriple):
            assert pending is not None
            self._after_chain(p, pending.last, rng)
        elif isinstance(action, Spy):
            if action.give is not None and action.take is not None:
                mine, theirs = self.hands[p], self.hands[action.target]
                mine[mine.index(action.give)] = action.take
                theirs[theirs.index(action.take)] = action.give
                for who, card in ((p, action.give), (action.target, action.take)):
                    if card in self.fresh[who]:
                        self.fresh[who].remove(card)  # E2: a swapped card is not drawn
            self._end(p, rng)
        elif isinstance(action, Choose):
            self.pending = Pending(ChipsStep.REVEAL, action.player)
        else:
            self._end(p, rng)

    def _draw_one(self, rng: random.Random) -> str | None:
        """E10: an empty deck is rebuilt from the discard pile, all but its top card."""
        if not self.deck:
            if len(self.discard) < 2:
                return None
            self.deck = self.discard[:-1]
            self.discard = self.discard[-1:]
            rng.shuffle(self.deck)
        return self.deck.pop(0)

    def _draw_into(self, p: str, n: int, rng: random.Random) -> None:
        for _ in range(n):
            card = self._draw_one(rng)
            if card is None:
                return
            self.hands[p].append(card)
            self.fresh[p].append(card)

    def _discard(self, p: str, card: str, pending: Pending | None, rng: random.Random) -> None:
        self.hands[p].remove(card)
        self.discard.append(card)
        if not self.hands[p]:  # E3
            self.winner = p
            self.pending = None
            return
        if pending is None or pending.step is ChipsStep.SIR_FRIES:
            self._resolve(p, card, rng)
        elif pending.step is ChipsStep.TRIPLE:
            if pending.left > 1 and self._legal_discards(p):
                self.pending = replace(pending, left=pending.left - 1, last=card)
            else:
                self._after_chain(p, card, rng)
        elif self._legal_discards(p):  # Chips Heroes goes on while it can (E5)
            self.pending = replace(pending, first=False, last=card)
        else:
            self._after_chain(p, card, rng)

    def _after_chain(self, p: str, last: str | None, rng: random.Random) -> None:
        """Triple Chips and Chips Heroes end with the last card's effect, if any."""
        self.pending = None
        if last is None:
            self._end(p, rng)
        else:
            self._resolve(p, last, rng)

    def _resolve(self, p: str, card: str, rng: random.Random) -> None:
        """The effect of a special card just discarded by ``p``."""
        self.pending = None
        c = self.escape[card]
        if c.kind is Kind.CHIPS_FOR_EVERYONE:
            q = next_in(self.players, self.out, p)
            while q != p:
                self._draw_into(q, 1, rng)
                q = next_in(self.players, self.out, q)
        elif c.kind is Kind.SIR_FRIES and self._sir_matches(p, c.numbers):
            self.pending = Pending(ChipsStep.SIR_FRIES, p, numbers=c.numbers)
            return
        elif c.kind is Kind.SPY_FRY:
            self.pending = Pending(ChipsStep.SPY_FRY, p)
            return
        elif c.kind is Kind.FISH_OR_CHIPS_TIME:  # E8
            if c.any_player and self._reveal_targets(p):
                self.pending = Pending(ChipsStep.FISH_TIME, p)
                return
            q = next_in(self.players, self.out, p)
            if self.down[q]:
                self.pending = Pending(ChipsStep.REVEAL, q)
                return
            self._end(q, rng)  # she reveals nothing and is still passed over
            return
        elif c.kind is Kind.TRIPLE_CHIPS and self._legal_discards(p):
            self.pending = Pending(ChipsStep.TRIPLE, p, left=3)
            return
        self._end(p, rng)

    def _reveal(self, p: str, position: int, rng: random.Random) -> None:
        card = self.down[p].pop(position)
        self.up[p].append(card)
        f = self.fish[card]
        if f.kind is FishKind.MAD_FISH:
            if self._knights(p):
                self.pending = Pending(ChipsStep.KNIGHT, p, fish=card, draw=f.draw)
            else:
                self._mad_fish(p, f.draw, rng)
        elif self.usable(p):
            self.pending = Pending(ChipsStep.HEROES, p, first=True)
        else:
            self._end(p, rng)

    def _mad_fish(self, p: str, draw: int, rng: random.Random) -> None:
        self.pending = None
        if self.mad_fish(p) >= self.rules.mad_fish_to_lose:  # E7
            self._eliminate(p)
            if self.over:
                return
        else:
            self._draw_into(p, draw, rng)
        self._end(p, rng)

    def _eliminate(self, p: str) -> None:
        self.out.append(p)
        top = self.discard.pop()
        self.discard.extend(self.hands[p])
        self.discard.extend(k for _, k in self.covered[p])
        self.discard.append(top)
        self.box.extend(self.down[p])
        self.box.extend(self.up[p])
        self.box.extend(f for f, _ in self.covered[p])
        self.hands[p], self.fresh[p], self.down[p], self.up[p], self.covered[p] = [], [], [], [], []
        if len(self.active) == 1:
            self.winner = self.active[0]
            self.pending = None

    def _end(self, p: str, rng: random.Random) -> None:
        """``p``'s part is over: the turn passes to the next player still in on her left."""
        self.pending = None
        if all(not self.down[q] for q in self.active):
            self._redeal(rng)
        self.turn = next_in(self.players, self.out, p)
        self.fresh[self.turn].clear()

    def _redeal(self, rng: random.Random) -> None:
        """E11: gather every fish-or-chips card, shuffle, deal again to those still in."""
        top = self.discard.pop()
        fish = list(self.box)
        for q in self.players:
            fish.extend(self.down[q])
            fish.extend(self.up[q])
            for mad, knight in self.covered[q]:
                fish.append(mad)
                self.discard.append(knight)
            self.down[q], self.up[q], self.covered[q] = [], [], []
        self.discard.append(top)
        rng.shuffle(fish)
        for q in self.active:
            self.down[q] = [fish.pop(0) for _ in range(self.rules.fish_per_player)]
        self.box = fish

    # ---------------------------------------------------------------- accounting -----

    def escape_places(self) -> Counter[str]:
        every = Counter(self.deck) + Counter(self.discard)
        for p in self.players:
            every.update(self.hands[p])
            every.update(k for _, k in self.covered[p])
        return every

    def misplaced(self) -> list[str]:
        """Every escape and fish-or-chips card exactly once, or what is not."""
        problems = []
        for known, places in ((self.escape, self.escape_places()), (self.fish, self.fish_places())):
            problems += [f"{c} is in {places[c]} places" for c in known if places[c] != 1]
            problems += [f"{c} is not a card of these rules" for c in places if c not in known]
        return problems

    def fish_places(self) -> Counter[str]:
        every = Counter(self.box)
        for p in self.players:
            every.update(self.down[p])
            every.update(self.up[p])
            every.update(f for f, _ in self.covered[p])
        return every

    def public(self) -> dict[str, Any]:
        """What everyone at the table can see: compared with :class:`ChipsTable`."""
        return {
            "turn": self.turn,
            "actor": None if self.over else self.actor,
            "top": self.top,
            "hands": {p: len(self.hands[p]) for p in self.players},
            "down": {p: len(self.down[p]) for p in self.players},
            "mad_fish": {p: self.mad_fish(p) for p in self.players},
            "knights": {p: len(self.covered[p]) for p in self.players},
            "deck": len(self.deck),
            "discard": len(self.discard),
            "out": list(self.out),
            "winner": self.winner,
        }

    def clone(self) -> ChipsState:
        return copy.deepcopy(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "players": list(self.players),
            "turn": self.turn,
            "deck": list(self.deck),
            "discard": list(self.discard),
            "hands": {p: list(h) for p, h in self.hands.items()},
            "fresh": {p: list(h) for p, h in self.fresh.items()},
            "fish": {
                p: {
                    "down": list(self.down[p]),
                    "up": list(self.up[p]),
                    "covered": [[m, k] for m, k in self.covered[p]],
                }
                for p in self.players
            },
            "box": list(self.box),
            "out": list(self.out),
            "winner": self.winner,
            "pending": None if self.pending is None else self.pending.to_dict(),
        }
