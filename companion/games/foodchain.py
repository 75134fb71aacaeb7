"""Food Chain (Brain Games, 2012): the forest, hands, tokens, the five actions and scoring.

Pure rules for ``shared/rules/food-chain.txt``: nothing here reads a file, a clock or a
pin, and the only randomness (the shuffle, the optional rule's draw) comes through a
passed ``random.Random``. The 52 cards' levels, points and symbols are not in the rules
text, so they come from a :class:`Catalog` (docs/foodchain.md describes its file).

The model. The forest is a list of chains. A chain starts with a food card; every other
card in it is a predator that preys on exactly one card below it and carries its player's
token. Several predators may prey on one card, so a chain is a tree. A card with nothing
preying on it is *free* (it is "on top of a food chain"). Cards are named by id,
``"<name>#<n>"`` (``"fox#2"``), so every one of them can be followed and counted.

Where the rulebook is silent or ambiguous this module decides, and docs/foodchain.md
lists the same decisions with their reasons:

F1. Hunting marks the card with one of *your own colour's* tokens ("one of your colour
    tokens"): a player with none left in hand cannot hunt, except with the Swarm, which
    never stays on the table and so needs no token.
F2. A hunt may target any card in the forest, food card or predator, whether or not
    other predators already prey on it; the symbols must match both ways (the food shows
    the hunter in a red circle, the hunter shows the food in a green one).
F3. Eating: the eater must be yours, free, and of a level strictly higher than every
    other predator on the same food, your own included. Equal levels cannot eat.
F4. After eating, the eater moves down into the place of the card it ate: it now preys on
    the card below (symbols are checked when a card is played, not when it moves). When it
    ate a chain's food card it would be left alone, and "only chains of at least two
    cards remain": it goes to the discard pile and its token back to its owner.
F5. The rival predators on the eaten card are discarded with everything preying on them,
    and every token on them goes back to its owner.
F6. The Huntsman preys on any card in the forest and has a level like any predator (the
    catalog's, or one above the highest creature if the catalog gives none). After he
    eats he goes to the discard pile and his token goes home ("after use").
F7. The Swarm is played with the Hunt action on any free predator (a card carrying a
    token; "any predator standing on top of any food chain", Huntsman included). That
    card and the Swarm go to the discard pile, the token to its owner, and the player
    draws, as after any hunt.
F8. Switch: the card taken from the table is free and carries no other player's token,
    so it is either your own free predator or a food card nobody preys on. The hand card
    must be of a strictly higher level, must not be a bonus card (those are only played
    by hunting), and, when it replaces a predator, must be a legal predator of the card
    below. Your token moves onto it; no card is drawn.
F9. A bonus card turned up to start a food chain (at setup or when refilling) goes to the
    bottom of the deck and the next card is turned instead; when only bonus cards are
    left in the deck no chain is started. Refilling happens after every eat, up to four
    chains (three with two players).
F10. Token exchange: whenever two players each hold at least one of the other's tokens,
    they swap them back pairwise at once, as often as they can.
F11. The game ends when the deck is empty and no player has any action but passing. The
    tokens still on the table then go back to their owners and count as possessed.
F12. Scoring ties share the victory.
F13. Optional rule: own tokens score nothing; each captured token takes one random card
    from the food pile of that token's owner, as the piles stand at the end of the game
    (cards taken this way cannot be taken again). The card moves: its points leave the
    owner's score. Players draw in seat order, from the first player.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import combinations
from typing import Any

from companion import data
from companion.errors import RuleError

MIN_PLAYERS = 2
MAX_PLAYERS = 4
HAND_SIZE = 4
TOKENS_PER_PLAYER = 4
DECK_SIZE = 52  # "52 cards"
BONUS_CARDS = 2  # "two bonus cards - the Huntsman ... and the Swarm"


def chains_wanted(players: int) -> int:
    """Four food chains on the table, three in a two-player game."""
    return 3 if players == 2 else 4


# --------------------------------------------------------------------------------------
# The card catalog
# --------------------------------------------------------------------------------------


class Bonus(StrEnum):
    HUNTSMAN = "huntsman"
    SWARM = "swarm"


@dataclass(frozen=True, slots=True)
class CardKind:
    """One printed card (``copies`` of it in the deck)."""

    name: str
    level: int  # the moon's Roman numeral: higher is stronger
    points: int  # the sun's number: scored when eaten
    copies: int = 1
    predators: frozenset[str] = frozenset()  # red circles: who may prey on this card
    prey: frozenset[str] = frozenset()  # green circles: what this card may prey on
    bonus: Bonus | None = None


_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50}
_NAME = re.compile(r"^[^#\s][^#]*$")


def roman(text: str) -> int | None:
    """``"IV"`` -> 4; None when the text is not a Roman numeral."""
    text = text.strip().upper()
    if not text or any(ch not in _ROMAN for ch in text):
        return None
    total = 0
    for i, ch in enumerate(text):
        value = _ROMAN[ch]
        if i + 1 < len(text) and _ROMAN[text[i + 1]] > value:
            total -= value
        else:
            total += value
    return total if total > 0 and to_roman(total) == text else None


def to_roman(value: int) -> str:
    parts = []
    for number, letters in ((50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV")):
        while value >= number:
            parts.append(letters)
            value -= number
    return "".join(parts) + "I" * value


@dataclass(frozen=True)
class Catalog:
    """The deck's cards: levels, points and symbols, read from a catalog file."""

    kinds: tuple[CardKind, ...]
    example: bool = False
    title: str = ""
    by_name: dict[str, CardKind] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {k.name: k for k in self.kinds})

    def card_ids(self) -> list[str]:
        """Every physical card, ``"fox#1"`` to ``"fox#4"``, in catalog order."""
        return [f"{k.name}#{i}" for k in self.kinds for i in range(1, k.copies + 1)]

    @property
    def size(self) -> int:
        return sum(k.copies for k in self.kinds)

    def kind(self, card: str) -> CardKind:
        return self.by_name[card.rpartition("#")[0]]

    def preys_on(self, hunter: str, food: str) -> bool:
        """F2: both symbols must match (green circle on the hunter, red on the food)."""
        h, f = self.kind(hunter), self.kind(food)
        return h.bonus is None and f.name in h.prey and h.name in f.predators

    def composition_problems(self) -> list[tuple[str, str]]:
        """What differs from the real game's deck: 52 cards, one Huntsman, one Swarm."""
        problems = []
        if self.size != DECK_SIZE:
            problems.append(("cards", f"{self.size} cards in all; the game has {DECK_SIZE}"))
        for bonus in Bonus:
            n = sum(k.copies for k in self.kinds if k.bonus is bonus)
            if n != 1:
                problems.append(("cards", f"{n} {bonus} card(s); the game has exactly one"))
        return problems

    def warnings(self) -> list[tuple[str, str]]:
        """Symbols that only point one way: such a hunt can never be played (F2)."""
        found = []
        for i, kind in enumerate(self.kinds):
            for food in sorted(kind.prey):
                if kind.name not in self.by_name[food].predators:
                    found.append(
                        (
                            f"cards[{i}].prey",
                            f"{kind.name} shows {food} as prey but {food} does not show "
                            f"{kind.name} as a predator: that hunt is never possible",
                        )
                    )
            for hunter in sorted(kind.predators):
                if kind.name not in self.by_name[hunter].prey:
                    found.append(
                        (
                            f"cards[{i}].predators",
                            f"{kind.name} shows {hunter} as a predator but {hunter} does not "
                            f"show {kind.name} as prey: that hunt is never possible",
                        )
                    )
        return found

    def creature_points(self) -> frozenset[int]:
        """The sun points an eaten card can have (bonus cards are never eaten, F12)."""
        return frozenset(k.points for k in self.kinds if k.bonus is None)

    def huntsman_level(self) -> int:
        return max((k.level for k in self.kinds if k.bonus is Bonus.HUNTSMAN), default=0)

    def to_dict(self) -> dict[str, Any]:
        cards: list[dict[str, Any]] = []
        for k in self.kinds:
            item: dict[str, Any] = {"name": k.name, "points": k.points}
            if k.level:  # the Swarm never stands on the table: it has no level
                item["level"] = k.level
            if k.copies != 1:
                item["copies"] = k.copies
            if k.bonus is not None:
                item["bonus"] = str(k.bonus)
            else:
                item["predators"] = sorted(k.predators)
                item["prey"] = sorted(k.prey)
            cards.append(item)
        out: dict[str, Any] = {"format": CATALOG_FORMAT}
        if self.example:
            out["example"] = True
        if self.title:
            out["title"] = self.title
        out["cards"] = cards
        return out


CATALOG_FORMAT = "companion/foodchain-catalog/1"
BONUS_NAMES = {str(b): b for b in Bonus}


def _level(value: object, path: str) -> int:
    """A level: a whole number from 1, or a Roman numeral as printed (``"III"``)."""
    if isinstance(value, str):
        level = roman(value)
        if level is None:
            raise data.fail(path, f"not a level: {value!r} (a number like 3 or 'III')")
        return level
    return data.integer(value, path, 1)


def _symbols(value: object, path: str) -> tuple[str, ...]:
    names = []
    for i, item in enumerate(data.lst(value, path)):
        name = data.name(item, data.at(path, i), "card name")
        if name in names:
            raise data.fail(data.at(path, i), f"{name!r} is listed twice")
        names.append(name)
    return tuple(names)


def catalog_from_dict(value: object) -> Catalog:
    """Read and check a catalog; every problem names its place (``cards[3].prey[1]``).

    Structure and references are always checked; the real deck's composition (52 cards,
    one Huntsman, one Swarm) is :meth:`Catalog.composition_problems`, so that tests and
    variants may use smaller decks.
    """
    raw = data.obj(
        value, data.ROOT, required=("cards",), optional=("format", "example", "title", "note")
    )
    if "format" in raw and raw["format"] != CATALOG_FORMAT:
        raise data.fail("format", f"expected {CATALOG_FORMAT!r}, got {raw['format']!r}")
    example = data.boolean(raw.get("example", False), "example")
    title = raw.get("title", "")
    if not isinstance(title, str):
        raise data.fail("title", "expected a string")
    if "note" in raw and not isinstance(raw["note"], str):
        raise data.fail("note", "expected a string")
    items = data.lst(raw["cards"], "cards")
    if not items:
        raise data.fail("cards", "no cards")
    kinds: list[CardKind] = []
    links: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
    for i, item in enumerate(items):
        here = data.at("cards", i)
        c = data.obj(
            item,
            here,
            required=("name",),
            optional=("level", "points", "copies", "predators", "prey", "bonus"),
        )
        name = data.name(c["name"], data.at(here, "name"), "card name")
        if not _NAME.match(name):
            raise data.fail(data.at(here, "name"), f"{name!r}: a name may not contain '#'")
        if any(k.name == name for k in kinds):
            raise data.fail(data.at(here, "name"), f"{name!r} is listed twice")
        copies = data.integer(c.get("copies", 1), data.at(here, "copies"), 1)
        bonus = None
        if "bonus" in c:
            bonus = data.choice(c["bonus"], data.at(here, "bonus"), BONUS_NAMES, "bonus card")
            for key in ("predators", "prey"):
                if c.get(key):
                    raise data.fail(
                        data.at(here, key), f"the {bonus} is a bonus card: it has no {key}"
                    )
            level = _level(c["level"], data.at(here, "level")) if "level" in c else 0
            points = data.integer(c.get("points", 0), data.at(here, "points"), 0)
        else:
            for key in ("level", "points"):
                if key not in c:
                    raise data.fail(here, f"missing key {key!r}")
            level = _level(c["level"], data.at(here, "level"))
            points = data.integer(c["points"], data.at(here, "points"), 0)
        predators = _symbols(c.get("predators", []), data.at(here, "predators"))
        prey = _symbols(c.get("prey", []), data.at(here, "prey"))
        links.append((here, predators, prey))
        kinds.append(
            CardKind(name, level, points, copies, frozenset(predators), frozenset(prey), bonus)
        )
    by_name = {k.name: k for k in kinds}
    for here, predators, prey in links:
        for key, names in (("predators", predators), ("prey", prey)):
            for j, name in enumerate(names):
                place = data.at(data.at(here, key), j)
                if name not in by_name:
                    raise data.fail(place, f"no card named {name!r} in this catalog")
                if by_name[name].bonus is not None:
                    raise data.fail(
                        place, f"{name!r} is a bonus card: it needs no symbol on other cards"
                    )
    creature_top = max((k.level for k in kinds if k.bonus is None), default=0)
    kinds = [
        CardKind(k.name, creature_top + 1, k.points, k.copies, bonus=k.bonus)
        if k.bonus is Bonus.HUNTSMAN and k.level == 0
        else k
        for k in kinds
    ]
    return Catalog(tuple(kinds), example, title)


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


def action_to_dict(action: Action) -> dict[str, Any]:
    if isinstance(action, Hunt):
        return {"action": "hunt", "card": action.card, "target": action.target}
    if isinstance(action, Eat):
        return {"action": "eat", "predator": action.predator}
    if isinstance(action, BackOff):
        return {"action": "back_off", "predator": action.predator}
    if isinstance(action, Switch):
        return {"action": "switch", "card": action.card, "target": action.target}
    return {"action": "pass", "card": action.card}


def action_from_dict(value: object, path: str = data.ROOT) -> Action:
    raw = data.mapping(value, path)
    kind = raw.get("action")
    fields = {
        "hunt": ("card", "target"),
        "eat": ("predator",),
        "back_off": ("predator",),
        "switch": ("card", "target"),
        "pass": (),
    }
    if not isinstance(kind, str) or kind not in fields:
        raise data.fail(data.at(path, "action"), f"expected one of: {', '.join(fields)}")
    opt = ("card",) if kind == "pass" else ()
    raw = data.obj(value, path, required=("action", *fields[kind]), optional=opt)
    names = {k: data.name(raw[k], data.at(path, k), "card") for k in fields[kind]}
    if kind == "hunt":
        return Hunt(names["card"], names["target"])
    if kind == "eat":
        return Eat(names["predator"])
    if kind == "back_off":
        return BackOff(names["predator"])
    if kind == "switch":
        return Switch(names["card"], names["target"])
    card = raw.get("card")
    return Pass(None if card is None else data.name(card, data.at(path, "card"), "card"))


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
    passes: int = 0  # F11: passes in a row since the deck ran out

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
        """F11: the deck is empty and either nobody has any action left but passing, or a
        full round of turns has been all passes."""
        if self.deck:
            return False
        if self.passes >= len(self.players):
            return True
        return not any(next(self._actions(p, passes=False), None) is not None for p in self.players)

    # ---------------------------------------------------------------- legality -------

    def why_not(self, action: Action, player: str | None = None) -> str | None:
        """Why ``player`` (default: the one to move) may not do this now; None if she may."""
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
        if bonus is Bonus.SWARM:  # F7: any free card on top of a chain
            if not self.is_free(target):
                return f"the Swarm chases only a card on top of a chain; {target} is preyed on"
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
        for rival in self.predators_on(food):
            if rival != predator and self.level(rival) >= level:
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
        if self.over:
            raise RuleError("the game is over")
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
                yield from (Hunt(card, t) for t in free)
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

    def apply(self, action: Action) -> None:
        """Play ``action`` for the player to move, then pass the turn clockwise.

        An illegal action raises :class:`RuleError` saying why, and changes nothing.
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
        self.passes = self.passes + 1 if isinstance(action, Pass) and not self.deck else 0
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
        for rival in self.predators_on(food):
            if rival != predator:
                self._remove(rival)  # F5
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

    def clone(self) -> FoodChainState:
        return state_from_dict(self.to_dict(), self.catalog)

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
            "passes": self.passes,
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


def state_from_dict(value: object, catalog: Catalog) -> FoodChainState:
    """A state from :meth:`FoodChainState.to_dict`; every card of the catalog exactly once,
    four tokens of each colour, and errors naming the place."""
    raw = data.obj(
        value,
        data.ROOT,
        required=("players", "turn", "hands", "deck", "discard", "food", "tokens", "forest"),
        optional=("passes",),
    )
    players = [
        data.name(p, data.at("players", i), "player")
        for i, p in enumerate(data.lst(raw["players"], "players"))
    ]
    try:
        seats = check_players(players)
    except RuleError as exc:
        raise data.fail("players", str(exc)) from None
    turn = data.name(raw["turn"], "turn", "player")
    if turn not in seats:
        raise data.fail("turn", f"{turn!r} is not at the table")
    known = set(catalog.card_ids())
    seen: dict[str, str] = {}

    def card(value: object, path: str) -> str:
        name = data.name(value, path, "card")
        if name not in known:
            raise data.fail(path, f"no card {name!r} in the catalog")
        if name in seen:
            raise data.fail(path, f"{name} is already at {seen[name]}")
        seen[name] = path
        return name

    def cards(value: object, path: str) -> list[str]:
        return [card(v, data.at(path, i)) for i, v in enumerate(data.lst(value, path))]

    def per_player(key: str) -> dict[str, Any]:
        table = data.mapping(raw[key], key)
        for p in table:
            if p not in seats:
                raise data.fail(data.at(key, p), f"{p!r} is not at the table")
        for p in seats:
            if p not in table:
                raise data.fail(key, f"missing {p!r}")
        return table

    hands = {p: cards(v, data.at("hands", p)) for p, v in per_player("hands").items()}
    food = {p: cards(v, data.at("food", p)) for p, v in per_player("food").items()}
    deck = cards(raw["deck"], "deck")
    discard = cards(raw["discard"], "discard")
    supply: dict[str, Counter[str]] = {}
    for p, held in per_player("tokens").items():
        here = data.at("tokens", p)
        supply[p] = Counter()
        for colour, n in data.mapping(held, here).items():
            if colour not in seats:
                raise data.fail(data.at(here, colour), f"no player {colour!r} owns that colour")
            supply[p][colour] = data.integer(n, data.at(here, colour), 0, TOKENS_PER_PLAYER)
    chains: list[str] = []
    on: dict[str, str] = {}
    token: dict[str, str] = {}

    def node(value: object, path: str, below: str | None) -> None:
        n = data.obj(value, path, required=("card",), optional=("token", "predators"))
        name = card(n["card"], data.at(path, "card"))
        if below is None:
            if "token" in n:
                raise data.fail(data.at(path, "token"), "a food card carries no token")
            chains.append(name)
        else:
            if "token" not in n:
                raise data.fail(path, "a predator carries its player's token: missing 'token'")
            owner = data.name(n["token"], data.at(path, "token"), "player")
            if owner not in seats:
                raise data.fail(data.at(path, "token"), f"{owner!r} is not at the table")
            on[name] = below
            token[name] = owner
        for i, above in enumerate(data.lst(n.get("predators", []), data.at(path, "predators"))):
            node(above, data.at(data.at(path, "predators"), i), name)

    for i, root in enumerate(data.lst(raw["forest"], "forest")):
        node(root, data.at("forest", i), None)
    missing = [c for c in catalog.card_ids() if c not in seen]
    if missing:
        raise data.fail(data.ROOT, f"cards missing: {', '.join(missing[:5])}")
    passes = data.integer(raw.get("passes", 0), "passes", 0, len(seats))
    if passes and deck:
        raise data.fail("passes", "passes are counted only once the deck is empty (F11)")
    state = FoodChainState(
        catalog,
        seats,
        hands,
        deck,
        discard,
        food,
        supply,
        chains,
        on,
        token,
        seats.index(turn),
        passes,
    )
    colours = state.tokens_by_colour()
    for p in seats:
        if colours[p] != TOKENS_PER_PLAYER:
            raise data.fail(
                "tokens", f"{colours[p]} of {p}'s tokens are held or on the table, not 4"
            )
    return state


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


# --------------------------------------------------------------------------------------
# The score sheet read by ``companion foodchain score``
# --------------------------------------------------------------------------------------


def sheet_catalog(value: object) -> object | None:
    """The ``catalog`` member of a score sheet (a path or an inline catalog), if any."""
    if isinstance(value, Mapping):
        return value.get("catalog")
    return None


def sheet_from_dict(value: object, catalog: Catalog | None) -> Tally:
    """Read a score sheet (docs/foodchain.md): per player the eaten cards, by name or by
    points, and the tokens held, by colour or by the colour's player."""
    raw = data.obj(value, data.ROOT, required=("players",), optional=("catalog",))
    table = data.mapping(raw["players"], "players")
    try:
        players = check_players(table)
    except RuleError as exc:
        raise data.fail("players", str(exc)) from None
    entries = {}
    colours: dict[str, str] = {}
    for p in players:
        here = data.at("players", p)
        data.name(p, here, "player")
        entry = data.obj(table[p], here, required=("eaten", "tokens"), optional=("colour",))
        entries[p] = entry
        if "colour" in entry:
            colour = data.name(entry["colour"], data.at(here, "colour"), "colour")
            if colour in colours or (colour in players and colour != p):
                raise data.fail(data.at(here, "colour"), f"{colour!r} names someone else")
            colours[colour] = p
    eaten: dict[str, tuple[Eaten, ...]] = {}
    used: Counter[str] = Counter()
    tokens: dict[str, Counter[str]] = {}
    for p in players:
        here = data.at("players", p)
        pile = []
        for i, item in enumerate(data.lst(entries[p]["eaten"], data.at(here, "eaten"))):
            place = data.at(data.at(here, "eaten"), i)
            if isinstance(item, str):
                if catalog is None:
                    raise data.fail(
                        place, f"{item!r} is a card name: give a catalog, or the card's points"
                    )
                kind = catalog.by_name.get(item)
                if kind is None:
                    raise data.fail(place, f"no card named {item!r} in the catalog")
                if kind.bonus is not None:
                    raise data.fail(place, f"the {kind.bonus} is a bonus card: nobody eats it")
                used[item] += 1
                if used[item] > kind.copies:
                    raise data.fail(place, f"more {item!r} cards eaten than the {kind.copies} made")
                pile.append(Eaten(item, kind.points))
            else:
                points = data.integer(item, place, 0)
                if catalog is not None and points not in catalog.creature_points():
                    shown = ", ".join(map(str, sorted(catalog.creature_points())))
                    raise data.fail(
                        place, f"no card in the catalog is worth {points} (F12: {shown})"
                    )
                pile.append(Eaten("", points))
        eaten[p] = tuple(pile)
        held: Counter[str] = Counter()
        for key, n in data.mapping(entries[p]["tokens"], data.at(here, "tokens")).items():
            place = data.at(data.at(here, "tokens"), key)
            owner = colours.get(key, key)
            if owner not in players:
                raise data.fail(place, f"{key!r} is neither a player nor a player's colour")
            held[owner] += data.integer(n, place, 0, TOKENS_PER_PLAYER)
        tokens[p] = held
    for colour_owner in players:
        total = sum(tokens[p][colour_owner] for p in players)
        if total != TOKENS_PER_PLAYER:
            raise data.fail(
                "players",
                f"{total} of {colour_owner}'s {TOKENS_PER_PLAYER} tokens are listed: "
                f"at the end every token is held by someone",
            )
    return Tally(players, eaten, tokens)
