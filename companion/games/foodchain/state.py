"""Food Chain's game state: the forest, hands, tokens and the five actions (F1-F11)."""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Self

from companion.errors import RuleError
from companion.games.foodchain.cards import (
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    TOKENS_PER_PLAYER,
    Bonus,
    CardKind,
    Catalog,
    chains_wanted,
    to_roman,
)
from companion.games.foodchain.score import Eaten, Tally

# --------------------------------------------------------------------------------------
# Actions
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hunt:
    """1) Play ``card`` from hand onto ``target`` (the Swarm: chase ``target`` away)."""

    card: str
    target: str


@dataclass(frozen=True, slots=True)
class Eat:
    """2) Your free, strongest ``predator`` eats the card it preys on."""

    predator: str


@dataclass(frozen=True, slots=True)
class BackOff:
    """3) Take your free ``predator`` off the table into the discard pile."""

    predator: str


@dataclass(frozen=True, slots=True)
class Switch:
    """4) Put ``card`` from your hand where ``target`` is and take ``target`` in hand."""

    card: str
    target: str


@dataclass(frozen=True, slots=True)
class Pass:
    """5) Discard ``card`` and draw; with an empty hand, pass without discarding."""

    card: str | None = None


Action = Hunt | Eat | BackOff | Switch | Pass


# --------------------------------------------------------------------------------------
# The game state
# --------------------------------------------------------------------------------------


@dataclass
class FoodChainState:
    """Everything on and around the table; every card is in exactly one place.

    ``deck`` has its top card first, ``discard`` its top card last. ``on`` maps each
    predator to the card it preys on, ``token`` each predator to the player whose token
    marks it; the food cards (``chains``) have neither. ``supply`` is the tokens each
    player holds, counted by the colour's owner.
    """

    catalog: Catalog
    players: tuple[str, ...]
    hands: dict[str, list[str]]
    deck: list[str]
    discard: list[str]
    food: dict[str, list[str]]
    supply: dict[str, Counter[str]]
    chains: list[str] = field(default_factory=list)
    on: dict[str, str] = field(default_factory=dict)
    token: dict[str, str] = field(default_factory=dict)
    turn: int = 0

    # ---------------------------------------------------------------- setup ----------

    @classmethod
    def deal(
        cls,
        catalog: Catalog,
        players: Sequence[str],
        rng: random.Random,
        first: str | None = None,
    ) -> FoodChainState:
        """Shuffle, deal four cards each, lay out the food chains; ``first`` starts."""
        players = check_players(players)
        cards = catalog.card_ids()
        needed = HAND_SIZE * len(players) + chains_wanted(len(players))
        if len(cards) < needed:
            raise RuleError(
                f"{len(players)} players need {needed} cards, the deck has {len(cards)}"
            )
        rng.shuffle(cards)
        hands = {p: [cards.pop(0) for _ in range(HAND_SIZE)] for p in players}
        state = cls(
            catalog,
            players,
            hands,
            cards,
            [],
            {p: [] for p in players},
            {p: Counter({p: TOKENS_PER_PLAYER}) for p in players},
        )
        if first is not None:
            if first not in players:
                raise RuleError(f"{first!r} is not at the table")
            state.turn = players.index(first)
        state._refill()
        return state

    # ---------------------------------------------------------------- queries --------

    @property
    def current(self) -> str:
        return self.players[self.turn]

    def kind(self, card: str) -> CardKind:
        return self.catalog.kind(card)

    def level(self, card: str) -> int:
        return self.kind(card).level

    def in_forest(self, card: str) -> bool:
        return card in self.on or card in self.chains

    def forest(self) -> list[str]:
        """Every card on the table, chain by chain, each card before those preying on it."""
        kids = self._children()
        order: list[str] = []

        def visit(card: str) -> None:
            order.append(card)
            for above in kids[card]:
                visit(above)

        for root in self.chains:
            visit(root)
        return order

    def _children(self) -> dict[str, list[str]]:
        """Each card's predators in the order they were played (a canonical order, so a
        state read back from plain data offers its actions in the same order)."""
        kids: dict[str, list[str]] = {c: [] for c in [*self.chains, *self.on]}
        for card, below in self.on.items():
            kids[below].append(card)
        return kids

    def predators_on(self, card: str) -> list[str]:
        """The cards preying directly on ``card``, in the order they were played."""
        return [c for c, below in self.on.items() if below == card]

    def is_free(self, card: str) -> bool:
        """Nothing preys on it: it is on top of its food chain."""
        return card not in self.on.values()

    def root(self, card: str) -> str:
        while card in self.on:
            card = self.on[card]
        return card

    @property
    def over(self) -> bool:
        """F11: the deck is empty and nobody can do anything but pass. Passing while a
        player could still act never ends the game, however many rounds of it."""
        if self.deck:
            return False
        return not any(next(self._actions(p, passes=False), None) is not None for p in self.players)

    def preys(self, hunter: str, food: str) -> bool:
        """``hunter`` preys on ``food``: the symbols match (F2), or it is the Huntsman (F6)."""
        return self.kind(hunter).bonus is Bonus.HUNTSMAN or self.catalog.preys_on(hunter, food)

    def rivals(self, predator: str) -> list[str]:
        """F3: the other cards on ``predator``'s food that prey on it. An eater that moved
        down onto that food without preying on it (F4) is no rival."""
        food = self.on[predator]
        return [c for c in self.predators_on(food) if c != predator and self.preys(c, food)]

    # ---------------------------------------------------------------- legality -------

    def why_not(self, action: Action, player: str | None = None) -> str | None:
        """Why ``player`` (default: the one to move) may not do this now; None if she may."""
        if self.over:
            return "the game is over"
        p = self.current if player is None else player
        hand = self.hands[p]
        if isinstance(action, Hunt):
            return self._why_not_hunt(p, hand, action)
        if isinstance(action, Eat):
            return self._why_not_eat(p, action.predator)
        if isinstance(action, BackOff):
            return self._why_not_own_free(p, action.predator, "back off")
        if isinstance(action, Switch):
            return self._why_not_switch(p, hand, action)
        if hand and action.card is None:
            return f"{p} has cards in hand: passing discards one of them"
        if action.card is not None and action.card not in hand:
            return f"{action.card} is not in {p}'s hand"
        return None

    def _why_not_hunt(self, p: str, hand: list[str], action: Hunt) -> str | None:
        card, target = action.card, action.target
        if card not in hand:
            return f"{card} is not in {p}'s hand"
        if not self.in_forest(target):
            return f"{target} is not in the forest"
        bonus = self.kind(card).bonus
        if bonus is Bonus.SWARM:  # F7: a free creature or predator, never a bare plant
            if not self.is_free(target):
                return f"the Swarm chases only a card on top of a chain; {target} is preyed on"
            if self.kind(target).is_plant:
                return f"the Swarm chases creatures and predators, never a plant like {target}"
            return None
        if self.supply[p][p] < 1:
            return f"{p} has no token of her own colour left to mark a hunter"
        if bonus is Bonus.HUNTSMAN:
            return None
        if not self.catalog.preys_on(card, target):
            h, f = self.kind(card), self.kind(target)
            if f.name not in h.prey:
                return f"{h.name} does not show {f.name} in a green circle: it cannot prey on it"
            return f"{f.name} does not show {h.name} in a red circle: it cannot be its prey"
        return None

    def _why_not_own_free(self, p: str, card: str, what: str) -> str | None:
        if card not in self.on:
            where = "a food card" if card in self.chains else "not in the forest"
            return f"{card} is {where}: only a predator can {what}"
        if self.token[card] != p:
            return f"{card} carries {self.token[card]}'s token, not {p}'s"
        if not self.is_free(card):
            return f"{card} is not free: {', '.join(self.predators_on(card))} preys on it"
        return None

    def _why_not_eat(self, p: str, predator: str) -> str | None:
        why = self._why_not_own_free(p, predator, "eat")
        if why:
            return why
        level = self.level(predator)
        food = self.on[predator]
        if self.kind(predator).bonus is None and not self.catalog.preys_on(predator, food):
            return (
                f"{predator} took the place of the card it ate, and it does not prey on "
                f"{food} (F4: the symbols still bind it)"
            )
        for rival in self.rivals(predator):
            if self.level(rival) >= level:
                return (
                    f"{predator} (level {to_roman(level)}) is not the strongest on {food}: "
                    f"{rival} is level {to_roman(self.level(rival))}"
                )
        return None

    def _why_not_switch(self, p: str, hand: list[str], action: Switch) -> str | None:
        card, target = action.card, action.target
        if card not in hand:
            return f"{card} is not in {p}'s hand"
        if self.kind(card).bonus is not None:
            return f"the {self.kind(card).bonus} is only played by hunting"
        if not self.in_forest(target):
            return f"{target} is not in the forest"
        if target not in self.on:
            return f"{target} is a food card: only a predator can be switched (F8)"
        if not self.is_free(target):
            return f"{target} is not free: {', '.join(self.predators_on(target))} preys on it"
        owner = self.token[target]
        if owner != p:
            return f"{target} carries {owner}'s token"
        if self.level(target) >= self.level(card):
            return (
                f"{target} (level {to_roman(self.level(target))}) must be lower than "
                f"{card} (level {to_roman(self.level(card))})"
            )
        below = self.on[target]
        if not self.catalog.preys_on(card, below):
            return f"{card} cannot prey on {below}, the card {target} preys on"
        return None

    def check(self, action: Action) -> None:
        why = self.why_not(action)
        if why is not None:
            raise RuleError(f"{self.current} cannot {_verb(action)}: {why}")

    def legal_actions(self, player: str | None = None) -> list[Action]:
        """Every action ``player`` (default: the one to move) could take now."""
        if self.over:
            return []
        return list(self._actions(self.current if player is None else player))

    def _actions(self, p: str, passes: bool = True) -> Iterator[Action]:
        hand = self.hands[p]
        kids = self._children()
        forest = self.forest()
        free = [c for c in forest if not kids[c]]
        own_token = self.supply[p][p] > 0
        for card in hand:
            bonus = self.kind(card).bonus
            if bonus is Bonus.SWARM:
                yield from (Hunt(card, t) for t in free if not self.kind(t).is_plant)
            elif own_token and bonus is Bonus.HUNTSMAN:
                yield from (Hunt(card, t) for t in forest)
            elif own_token:
                yield from (Hunt(card, t) for t in forest if self.catalog.preys_on(card, t))
        for card in free:
            if self.token.get(card) != p:
                continue
            if self._why_not_eat(p, card) is None:
                yield Eat(card)
            yield BackOff(card)
        for card in hand:
            if self.kind(card).bonus is not None:
                continue
            for target in free:
                if self.token.get(target) != p or self.level(target) >= self.level(card):
                    continue
                if self.catalog.preys_on(card, self.on[target]):
                    yield Switch(card, target)
        if passes:
            if hand:
                yield from (Pass(c) for c in hand)
            else:
                yield Pass(None)

    # ---------------------------------------------------------------- moves ----------

    @property
    def to_act(self) -> str:
        """Who decides now (:class:`companion.games.turns.TurnGame`): the player to move."""
        return self.current

    def apply(self, action: Action, rng: random.Random | None = None) -> None:
        """Play ``action`` for the player to move, then pass the turn clockwise.

        An illegal action raises :class:`RuleError` saying why, and changes nothing.
        ``rng`` is unused (Food Chain draws from a deck shuffled once, at the deal); it is
        there so that both turn-based engines are played the same way.
        """
        self.check(action)
        p = self.current
        if isinstance(action, Hunt):
            self._hunt(p, action)
        elif isinstance(action, Eat):
            self._eat(p, action.predator)
        elif isinstance(action, BackOff):
            self._remove(action.predator)
        elif isinstance(action, Switch):
            self._switch(p, action)
        else:
            if action.card is not None:
                self.hands[p].remove(action.card)
                self.discard.append(action.card)
                self._draw(p)
        self.turn = (self.turn + 1) % len(self.players)
        if self.over:
            self._clear_forest()

    def _clear_forest(self) -> None:
        """F11: at the end the predators left on the table go to the discard pile and
        their tokens home; the food cards stay where they are."""
        for root in self.chains:
            for above in self.predators_on(root):
                self._remove(above)

    def _draw(self, p: str) -> None:
        if self.deck:
            self.hands[p].append(self.deck.pop(0))

    def _hunt(self, p: str, action: Hunt) -> None:
        self.hands[p].remove(action.card)
        if self.kind(action.card).bonus is Bonus.SWARM:  # F7
            if action.target in self.chains:  # a lone food card: its chain goes
                self.chains.remove(action.target)
                self.discard.append(action.target)
                self._refill()
            else:
                self._remove(action.target)
            self.discard.append(action.card)
        else:
            self.on[action.card] = action.target
            self.token[action.card] = p
            self.supply[p][p] -= 1
        self._draw(p)

    def _remove(self, card: str) -> None:
        """A predator and everything on it to the discard pile, tokens home (F5, F7)."""
        for above in self.predators_on(card):
            self._remove(above)
        del self.on[card]
        owner = self.token.pop(card)
        self.supply[owner][owner] += 1
        self.discard.append(card)

    def _eat(self, p: str, predator: str) -> None:
        food = self.on[predator]
        for other in self.predators_on(food):
            if other != predator:  # F5: rivals, and a card with nothing left to sit on
                self._remove(other)
        self.food[p].append(food)
        below = self.on.pop(food, None)
        if below is not None:
            owner = self.token.pop(food)
            self.supply[p][owner] += 1  # captured (your own comes home)
            if self.kind(predator).bonus is Bonus.HUNTSMAN:  # F6
                self._remove(predator)
            else:  # F4: the eater moves down into the food's place
                self.on = {
                    c: (below if c == predator else b) for c, b in self.on.items() if c != food
                }
        else:  # the chain's food card: the eater would be alone (F4, F6)
            self.chains.remove(food)
            self._remove(predator)
        self._exchange()
        self._refill()

    def _switch(self, p: str, action: Switch) -> None:
        card, target = action.card, action.target
        hand = self.hands[p]
        hand[hand.index(card)] = target
        self.on = {(card if c == target else c): b for c, b in self.on.items()}
        self.token = {(card if c == target else c): o for c, o in self.token.items()}

    def _exchange(self) -> None:
        """F10: two players holding each other's tokens swap them back at once."""
        for a, b in combinations(self.players, 2):
            n = min(self.supply[a][b], self.supply[b][a])
            if n:
                self.supply[a][b] -= n
                self.supply[b][a] -= n
                self.supply[a][a] += n
                self.supply[b][b] += n

    def _refill(self) -> None:
        """Up to four food chains (three with two players); bonus cards go under (F9)."""
        while len(self.chains) < chains_wanted(len(self.players)):
            if not any(self.kind(c).bonus is None for c in self.deck):
                return
            card = self.deck.pop(0)
            if self.kind(card).bonus is not None:
                self.deck.append(card)
            else:
                self.chains.append(card)

    # ---------------------------------------------------------------- accounting -----

    def all_cards(self) -> Counter[str]:
        """Every card wherever it is: each must appear exactly once."""
        every: Counter[str] = Counter(self.deck)
        every.update(self.discard)
        every.update(self.forest())
        for p in self.players:
            every.update(self.hands[p])
            every.update(self.food[p])
        return every

    def misplaced(self) -> list[str]:
        """Every catalog card exactly once and four tokens of each colour, or what is not."""
        problems = []
        every = self.all_cards()
        for card in self.catalog.card_ids():
            if every[card] != 1:
                problems.append(f"{card} is in {every[card]} places")
        known = set(self.catalog.card_ids())
        problems += [f"{c} is not a catalog card" for c in every if c not in known]
        colours = self.tokens_by_colour()
        for p in self.players:
            if colours[p] != TOKENS_PER_PLAYER:
                problems.append(f"{colours[p]} of {p}'s tokens, not {TOKENS_PER_PLAYER}")
        return problems

    def tokens_by_colour(self) -> Counter[str]:
        """Tokens of each colour held or on the table: always four each."""
        count: Counter[str] = Counter(self.token.values())
        for held in self.supply.values():
            count.update(held)
        return count

    def tally(self) -> Tally:
        """What scoring needs; the tokens still on the table go home first (F11)."""
        tokens = {p: Counter(+self.supply[p]) for p in self.players}
        for owner in self.token.values():
            tokens[owner][owner] += 1
        eaten = {
            p: tuple(Eaten(self.kind(c).name, self.kind(c).points) for c in self.food[p])
            for p in self.players
        }
        return Tally(self.players, eaten, tokens)

    def clone(self) -> Self:
        """A copy to play on; the catalog, which never changes, is shared."""
        return copy.deepcopy(self, {id(self.catalog): self.catalog})

    # ---------------------------------------------------------------- plain data -----

    def _node(self, card: str, kids: Mapping[str, list[str]]) -> dict[str, Any]:
        node: dict[str, Any] = {"card": card}
        if card in self.token:
            node["token"] = self.token[card]
        node["predators"] = [self._node(c, kids) for c in kids[card]]
        return node

    def to_dict(self) -> dict[str, Any]:
        kids = self._children()
        return {
            "players": list(self.players),
            "turn": self.current,
            "hands": {p: list(h) for p, h in self.hands.items()},
            "deck": list(self.deck),
            "discard": list(self.discard),
            "food": {p: list(f) for p, f in self.food.items()},
            "tokens": {p: {c: n for c, n in self.supply[p].items() if n} for p in self.players},
            "forest": [self._node(root, kids) for root in self.chains],
        }


def _verb(action: Action) -> str:
    if isinstance(action, Hunt):
        return f"hunt {action.target} with {action.card}"
    if isinstance(action, Eat):
        return f"eat with {action.predator}"
    if isinstance(action, BackOff):
        return f"back off {action.predator}"
    if isinstance(action, Switch):
        return f"switch {action.card} for {action.target}"
    return "pass" if action.card is None else f"pass discarding {action.card}"


def check_players(players: Iterable[str]) -> tuple[str, ...]:
    players = tuple(players)
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RuleError(f"Food Chain is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if len(set(players)) != len(players):
        raise RuleError("a player is named twice")
    if any(not p for p in players):
        raise RuleError("a player needs a name")
    return players
