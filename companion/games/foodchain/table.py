"""Food Chain as a helper at a real table follows it: the forest is public, hands are not.

:class:`FoodChainTable` is a :class:`FoodChainState` whose hidden cards (the deck and the
hands) stand in an arbitrary order: every arrangement of them is equally true to what the
table can see. When a player shows a card (she hunts with a fox, passes a berry) or a
card is turned up to start a food chain, the helper first moves a card of that name into
the right hidden place, then plays the move with the engine's own rules (F1-F11). What
the table can see (the forest, the tokens, the food piles, the discard pile, how many
cards each hand and the deck hold) is therefore always exact, and at the end the score
needs no sheet.

Hands are secret, so two things are said by the players: the name of each card turned
up to start a food chain, and ``end`` when nobody can do anything but pass (F11). The
helper refuses ``end`` while the forest shows a move someone could still make (an eat, a
back off), naming it; what the hands could still hunt or switch, only the players know.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.errors import RuleError
from companion.games.foodchain.cards import Bonus, CardKind, Catalog, chains_wanted
from companion.games.foodchain.state import Action, FoodChainState, Hunt, Pass


def _cut(word: str) -> str:
    """A typed word as a refusal quotes it: short, so the refusal stays one line."""
    return repr(word if len(word) <= 20 else word[:18] + "…")


@dataclass
class FoodChainTable(FoodChainState):
    """The game from what the table sees; ``unconfirmed`` chains wait for their name."""

    unconfirmed: list[str] = field(default_factory=list)
    ended: bool = False
    owed: str | None = None  # drew from a deck emptied by a stand-in that may go back

    @classmethod
    def start(
        cls, catalog: Catalog, players: Sequence[str], first: str | None = None
    ) -> FoodChainTable:
        """The deal as the helper knows it: counts only; the food chains to be named."""
        table = cls.deal(catalog, players, random.Random(0), first)
        assert isinstance(table, FoodChainTable)
        return table

    def _refill(self) -> None:
        """Up to four food chains (three with two players): the table turns the cards up
        and names them (:meth:`turned_up`); until then each is a hidden stand-in."""
        while len(self.chains) < chains_wanted(len(self.players)) and self.deck:
            card = self.deck.pop(0)
            self.chains.append(card)
            self.unconfirmed.append(card)

    # ---------------------------------------------------------------- what is hidden -

    @property
    def over(self) -> bool:
        """F11 as the table can tell: the players said so (``end``, refused while the forest
        shows a move), or the deck, the forest's predators and every hand are all gone."""
        if self.ended:
            return True
        return not self.deck and not self.on and not any(self.hands.values())

    def visible_move(self) -> str | None:
        """F11: a move the forest shows someone could still make (an eat first, then a
        back off), in words; None when only the hidden hands could still act."""
        order = [
            self.players[(self.turn + i) % len(self.players)] for i in range(len(self.players))
        ]
        free = [c for c in self.on if self.is_free(c)]
        for p in order:
            for card in free:
                if self.token[card] == p and self._why_not_eat(p, card) is None:
                    return f"{p}'s {self.label(card)} can still eat {self.label(self.on[card])}"
        for p in order:
            for card in free:
                if self.token[card] == p:
                    return f"{p} can still back off {self.label(card)}"
        return None

    def _hidden_places(self) -> list[tuple[list[str], int]]:
        """Every hidden card's place: (the list it is in, its index)."""
        places = [(self.deck, i) for i in range(len(self.deck))]
        for p in self.players:
            places += [(self.hands[p], i) for i in range(len(self.hands[p]))]
        return places

    def _hidden_of(self, kind: CardKind, besides: list[str] | None = None) -> tuple[list[str], int]:
        """A hidden card of ``kind`` outside ``besides``; RuleError when none is left."""
        for where, i in self._hidden_places():
            if where is not besides and self.kind(where[i]).name == kind.name:
                return where, i
        raise RuleError(
            f"no {kind.name} can be hidden any more: every {kind.name} card is in the forest, "
            "eaten or discarded"
        )

    def card_kind(self, name: str) -> CardKind:
        kind = self.catalog.by_name.get(name.lower())
        if kind is None:
            raise RuleError(f"no card named {_cut(name)} in the catalog")
        return kind

    def shown(self, player: str, name: str) -> str:
        """``player`` shows a card called ``name`` from her hand: the card's id, moved into
        her hand first if the arrangement had it elsewhere."""
        kind = self.card_kind(name)
        hand = self.hands[player]
        if not hand:
            raise RuleError(f"{player} has no card in hand")
        for card in hand:
            if self.kind(card).name == kind.name:
                return card
        where, i = self._hidden_of(kind, besides=hand)
        hand[0], where[i] = where[i], hand[0]
        return hand[0]

    def turned_up(self, name: str) -> str:
        """The card turned up to start the next food chain is a ``name`` (F9: a bonus card
        goes under the deck and the next card is turned). What the table should hear."""
        if not self.unconfirmed:
            raise RuleError("no food chain is waiting for its first card")
        kind = self.card_kind(name)
        root = self._become(self.unconfirmed[0], kind)
        if kind.bonus is not None:
            if not self.deck:  # it was the last card: it goes back, and no chain starts
                self.no_chain()
                return f"the {kind.name} goes back under the deck (F9): no food chain starts."
            following = self.deck.pop(0)
            self.deck.append(root)
            self.chains[self.chains.index(root)] = following
            self.unconfirmed[0] = following
            return f"the {kind.name} goes under the deck (F9): turn up the next card."
        self.unconfirmed.pop(0)
        self.owed = None
        return f"a new food chain starts with {self.label(root)}."

    def _become(self, stand_in: str, kind: CardKind) -> str:
        """The stand-in for a card just turned up takes the identity of a hidden ``kind``."""
        if self.kind(stand_in).name == kind.name:
            return stand_in
        where, i = self._hidden_of(kind)
        card = where[i]
        where[i] = stand_in
        self.chains[self.chains.index(stand_in)] = card
        self.unconfirmed[0] = card
        return card

    def no_chain(self) -> str:
        """Only bonus cards are left in the deck: no food chain starts (F9)."""
        if not self.unconfirmed:
            raise RuleError("no food chain is waiting for its first card")
        card = self.unconfirmed.pop(0)
        self.chains.remove(card)
        if self.owed is not None:  # the card she should have drawn
            self.hands[self.owed].append(card)
            self.owed = None
        else:
            self.deck.insert(0, card)
        return "no food chain starts: only bonus cards are left in the deck."

    # ---------------------------------------------------------------- names ----------

    def label(self, card: str) -> str:
        """How the table calls a forest card: its name, with ``#n`` when two share it."""
        name = self.kind(card).name
        seen = [c for c in self.forest() if c not in self.unconfirmed]
        same = [c for c in seen if self.kind(c).name == name]
        return name if len(same) <= 1 else card

    def find(self, word: str, among: Sequence[str] | None = None) -> str:
        """The forest card called ``word`` (``fox`` or ``fox#2``) among ``among``."""
        cards = list(self.forest() if among is None else among)
        if word in cards:
            return word
        named = [c for c in cards if self.kind(c).name == word.lower()]
        if len(named) == 1:
            return named[0]
        if named:
            raise RuleError(f"which {word}: {' or '.join(named)}?")
        raise RuleError(f"no {_cut(word)} in the forest")

    # ---------------------------------------------------------------- moves ----------

    def play(self, action: Action) -> None:
        """The engine's move, refused while a food chain waits for its name."""
        if self.unconfirmed:
            raise RuleError("first name the card turned up to start the food chain")
        draws = isinstance(action, Hunt) or (isinstance(action, Pass) and action.card is not None)
        drawer = self.current if draws else None
        held = len(self.hands[drawer]) if drawer else 0
        self.apply(action)
        if drawer is not None and self.unconfirmed and len(self.hands[drawer]) < held:
            self.owed = drawer  # her draw found the deck emptied by a chain's stand-in

    def declare_end(self) -> None:
        """F11: the players agree nobody can do anything but pass (the deck is empty)."""
        if self.deck:
            raise RuleError(f"the deck still has {len(self.deck)} card(s): the game goes on")
        if self.over:
            raise RuleError("the game is already over")
        move = self.visible_move()
        if move is not None:
            raise RuleError(f"the game goes on (F11): {move}")
        self.ended = True
        self._clear_forest()

    # ---------------------------------------------------------------- offers ---------

    def offers(self) -> list[str]:
        """What the player to move may do, as far as the table can see, one line each."""
        p = self.current
        kids = self._children()
        free = [c for c in self.forest() if not kids[c]]
        mine = [c for c in free if self.token.get(c) == p]
        lines = []
        eats = [self.label(c) for c in mine if self._why_not_eat(p, c) is None]
        if eats:
            lines.append(f"eat with {', '.join(eats)}")
        if mine:
            lines.append(f"back off {', '.join(self.label(c) for c in mine)}")
        hand = self.hands[p]
        if hand and self.supply[p][p] > 0:
            hunts = [self._hunters(t) for t in self.forest()]
            lines += [h for h in hunts if h]
            if self._available(Bonus.HUNTSMAN):
                lines.append("hunt any card with the huntsman")
        chased = [c for c in free if not self.kind(c).is_plant]  # F7: never a plant
        if hand and self._available(Bonus.SWARM) and chased:
            lines.append(f"chase with the swarm: {', '.join(self.label(c) for c in chased)}")
        for card in mine if hand else []:
            names = self._switches(card)
            if names:
                lines.append(f"switch {self.label(card)} for {' / '.join(names)}")
        lines.append(
            "pass: discard a card" + (" and draw" if self.deck else "") if hand else "pass"
        )
        return lines

    def _available(self, bonus: Bonus) -> bool:
        return any(self.kind(where[i]).bonus is bonus for where, i in self._hidden_places())

    def _names_left(self) -> set[str]:
        return {self.kind(where[i]).name for where, i in self._hidden_places()}

    def _hunters(self, target: str) -> str:
        left = self._names_left()
        food = self.kind(target)
        names = sorted(
            k.name
            for k in self.catalog.kinds
            if k.name in left
            and k.bonus is None
            and food.name in k.prey
            and k.name in food.predators
        )
        return f"hunt {self.label(target)} with {' / '.join(names)}" if names else ""

    def _switches(self, card: str) -> list[str]:
        left = self._names_left()
        below = self.kind(self.on[card])
        level = self.level(card)
        return sorted(
            k.name
            for k in self.catalog.kinds
            if k.name in left
            and k.bonus is None
            and k.level > level
            and below.name in k.prey
            and k.name in below.predators
        )
