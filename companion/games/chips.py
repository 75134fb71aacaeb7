"""The Great Chips Escape: hands, deck, discard pile, special cards, fish-or-chips cards.

Pure rules for ``shared/rules/great-chips-escape.txt``: no I/O, no clock, and every
shuffle or draw from a reshuffled deck comes from a passed ``random.Random``. Two models
share the rule functions below:

* :class:`ChipsState` is the whole game, every card known (for tests, playouts and
  simulations). A turn may need several decisions (Triple Chips, a Golden Knight, Spy
  Fry...): the state then has a :class:`Pending` step and ``actor`` is who must decide.
* :class:`ChipsTable` is what a helper at a real table can know: whose turn, the top
  card, how many cards each hand holds, the Mad Fish in front of each player. It follows
  the same flow from what the players announce, and refuses what the rules forbid.

Deck composition is only partly stated (96 escape cards, 72 normal and 24 special; 36
fish-or-chips cards), so it is a :class:`ChipsRules` setting; docs/chips.md gives the
defaults. Where the rulebook is silent this module decides (docs/chips.md lists the same
decisions with their reasons):

E1. Numbers run 1-9; a discard must show the top card's number, one more or one less, and
    9 and 1 are neighbours.
E2. A card that comes into a hand from the deck (the draw action, a Mad Fish, Chips for
    Everyone) can first be played when its holder's next turn begins. This matters when a
    Fish-or-Chips Time makes a player reveal before her turn: a Golden Knight or a card
    for Chips Heroes must be older than her last turn. Cards swapped by Spy Fry were not
    drawn: each is usable by its new holder at once.
E3. Discarding your last card wins at once, before any effect of that card.
E4. Sir Fries: "if possible" is a must: a player holding a usable card that shows one of
    its numbers discards one (her choice which). That card's own effect is resolved, as
    for any card discarded from the hand.
E5. Chips Heroes: the first card is any usable card, then every further discard must
    follow the normal rule, and the player keeps going while she can; only the last
    card's effect is resolved. Triple Chips: zero to three discards, then the last
    card's effect (a step with nothing possible is skipped).
E6. Golden Knight: only the player who reveals the Mad Fish may cover it, at once, with
    a usable Golden Knight from her hand. A covered Mad Fish neither draws nor counts.
E7. Three uncovered Mad Fish in front of a player eliminate her at once, before drawing.
    Her hand goes under the top card of the discard pile, her fish-or-chips cards to the
    box and her Golden Knights under the top card too. Play goes on to the left.
E8. Fish-or-Chips Time: "another player" is never yourself. With the sign you choose any
    other player still in who has a face-down card; without it the next player still in
    must reveal. If nobody can reveal, the card has no effect and the turn passes as
    usual; otherwise the turn passes to the player after the one who revealed.
E9. Spy Fry: you may swap any card of your hand (even one drawn this turn) with any card
    of hers; you choose, you may decline.
E10. The deck is rebuilt from the discard pile (all but the top card) when a card must
    be drawn and the deck is empty. With no card anywhere to draw, the draw action is
    not possible and a Mad Fish or Chips for Everyone draws what there is.
E11. When every player still in has revealed all her fish-or-chips cards (checked as each
    turn ends), all of them are gathered (the box, the open ones, the covered ones),
    shuffled and dealt again: so the Mad Fish counts start again. The Golden Knights on
    them go under the top card of the discard pile.
E12. A player who can neither discard, nor reveal, nor draw passes her turn.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from companion import data
from companion.errors import RuleError

NUMBERS = tuple(range(1, 10))


def follows(top: int, number: int) -> bool:
    """E1: the same number, one before or one after; the numbers go round, 9 next to 1."""
    return (number - top) % len(NUMBERS) in (0, 1, len(NUMBERS) - 1)


def a(number: int) -> str:
    """``"a 5"``, ``"an 8"``: the numbers as the table says them."""
    return f"an {number}" if number == 8 else f"a {number}"


def either(numbers: Iterable[int]) -> str:
    """``"a 3, 4 or 5"``."""
    shown = [str(n) for n in numbers]
    head = ", ".join(shown[:-1])
    text = f"{head} or {shown[-1]}" if head else shown[-1]
    return f"an {text}" if text.startswith("8") else f"a {text}"


def neighbours(top: int) -> tuple[int, int, int]:
    """The three numbers that may go on ``top``, low to high around it."""
    return ((top - 2) % 9 + 1, top, top % 9 + 1)


# --------------------------------------------------------------------------------------
# Cards and the deck composition
# --------------------------------------------------------------------------------------


class Kind(StrEnum):
    NUMBER = "number"
    CHIPS_FOR_EVERYONE = "chips_for_everyone"
    GOLDEN_KNIGHT = "golden_knight"
    SIR_FRIES = "sir_fries"
    SPY_FRY = "spy_fry"
    FISH_OR_CHIPS_TIME = "fish_or_chips_time"
    TRIPLE_CHIPS = "triple_chips"


SPECIAL_KINDS = tuple(k for k in Kind if k is not Kind.NUMBER)
KIND_TITLES = {
    Kind.NUMBER: "number card",
    Kind.CHIPS_FOR_EVERYONE: "Chips for Everyone",
    Kind.GOLDEN_KNIGHT: "Golden Knight",
    Kind.SIR_FRIES: "Sir Fries",
    Kind.SPY_FRY: "Spy Fry",
    Kind.FISH_OR_CHIPS_TIME: "Fish-or-Chips Time",
    Kind.TRIPLE_CHIPS: "Triple Chips",
}


@dataclass(frozen=True, slots=True)
class EscapeCard:
    """An escape card as the table sees it: its number and, if special, what it does."""

    kind: Kind
    number: int
    numbers: tuple[int, ...] = ()  # Sir Fries: the numbers it lets you discard
    any_player: bool = False  # Fish-or-Chips Time with the "any player" sign

    def title(self) -> str:
        if self.kind is Kind.NUMBER:
            return str(self.number)
        extra = ""
        if self.kind is Kind.SIR_FRIES and self.numbers:
            extra = f" ({'/'.join(map(str, self.numbers))})"
        elif self.any_player:
            extra = " (any player)"
        return f"{self.number} {KIND_TITLES[self.kind]}{extra}"

    def label(self) -> str:
        """The id stem: ``"5"``, ``"triple_chips:6"``, ``"fish_or_chips_time_any:1"``."""
        if self.kind is Kind.NUMBER:
            return str(self.number)
        stem = f"{self.kind}_any" if self.any_player else str(self.kind)
        return f"{stem}:{self.number}"


class FishKind(StrEnum):
    MAD_FISH = "mad_fish"
    CHIPS_HEROES = "chips_heroes"


@dataclass(frozen=True, slots=True)
class FishCard:
    kind: FishKind
    draw: int = 0  # Mad Fish: how many cards it makes you draw

    def title(self) -> str:
        return f"Mad Fish (draw {self.draw})" if self.kind is FishKind.MAD_FISH else "Chips Heroes"

    def label(self) -> str:
        return f"mad_fish:{self.draw}" if self.kind is FishKind.MAD_FISH else "chips_heroes"


def _default_specials() -> tuple[EscapeCard, ...]:
    """The 24 special cards by default: four of each kind, every number two or three times."""
    S = EscapeCard
    return (
        *(S(Kind.CHIPS_FOR_EVERYONE, n) for n in (1, 3, 6, 8)),
        *(S(Kind.GOLDEN_KNIGHT, n) for n in (2, 4, 7, 9)),
        *(S(Kind.SIR_FRIES, n, ((n + 2) % 9 + 1, (n + 5) % 9 + 1)) for n in (3, 5, 8, 1)),
        *(S(Kind.SPY_FRY, n) for n in (4, 6, 9, 2)),
        *(S(Kind.FISH_OR_CHIPS_TIME, n) for n in (5, 7)),
        *(S(Kind.FISH_OR_CHIPS_TIME, n, any_player=True) for n in (1, 3)),
        *(S(Kind.TRIPLE_CHIPS, n) for n in (6, 8, 2, 4)),
    )


@dataclass(frozen=True)
class ChipsRules:
    """The deck and the numbers of the setup; the defaults are docs/chips.md's table."""

    normal: tuple[int, ...] = (8,) * 9  # copies of the number cards 1..9 (72)
    specials: tuple[EscapeCard, ...] = field(default_factory=_default_specials)  # 24
    mad_fish: tuple[tuple[int, int], ...] = ((1, 6), (2, 6), (3, 6))  # (draw, copies)
    chips_heroes: int = 18
    hand_size: int = 8
    fish_per_player: int = 5
    mad_fish_to_lose: int = 3

    def escape_cards(self) -> dict[str, EscapeCard]:
        """Every escape card by id: ``"5#3"``, ``"triple_chips:6#1"``."""
        cards: list[EscapeCard] = [
            EscapeCard(Kind.NUMBER, n)
            for n, copies in zip(NUMBERS, self.normal, strict=True)
            for _ in range(copies)
        ]
        cards.extend(self.specials)
        return _numbered([(c.label(), c) for c in cards])

    def fish_cards(self) -> dict[str, FishCard]:
        cards = [FishCard(FishKind.MAD_FISH, d) for d, n in self.mad_fish for _ in range(n)]
        cards += [FishCard(FishKind.CHIPS_HEROES)] * self.chips_heroes
        return _numbered([(c.label(), c) for c in cards])

    @property
    def escape_total(self) -> int:
        return sum(self.normal) + len(self.specials)

    @property
    def fish_total(self) -> int:
        return sum(n for _, n in self.mad_fish) + self.chips_heroes

    def player_range(self) -> tuple[int, int]:
        """Two players, up to as many as the deal allows (7 by default: 5 x 7 <= 36)."""
        high = min(
            self.fish_total // self.fish_per_player, (self.escape_total - 1) // self.hand_size
        )
        return 2, high

    def specials_shown(self, kind: Kind, number: int) -> list[EscapeCard]:
        return [c for c in self.specials if c.kind is kind and c.number == number]

    def to_dict(self) -> dict[str, Any]:
        special: dict[str, list[Any]] = {}
        for c in self.specials:
            if c.kind is Kind.SIR_FRIES:
                special.setdefault(str(c.kind), []).append(
                    {"number": c.number, "numbers": list(c.numbers)}
                )
            else:
                key = f"{c.kind}_any" if c.any_player else str(c.kind)
                special.setdefault(key, []).append(c.number)
        return {
            "normal": list(self.normal),
            "special": special,
            "mad_fish": [{"draw": d, "copies": n} for d, n in self.mad_fish],
            "chips_heroes": self.chips_heroes,
            "hand_size": self.hand_size,
            "fish_per_player": self.fish_per_player,
            "mad_fish_to_lose": self.mad_fish_to_lose,
        }


def _numbered(items: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    seen: Counter[str] = Counter()
    out = {}
    for stem, card in items:
        seen[stem] += 1
        out[f"{stem}#{seen[stem]}"] = card
    return out


SPECIAL_KEYS = (*(str(k) for k in SPECIAL_KINDS), "fish_or_chips_time_any")


def _number(value: object, path: str) -> int:
    return data.integer(value, path, 1, 9)


def rules_from_dict(value: object, path: str = data.ROOT) -> ChipsRules:
    """Rules from plain data (the ``[rules]`` table of a TOML file, or a state's
    ``rules``); a missing key keeps its default, a ``special`` table replaces them all."""
    raw = data.obj(
        value,
        path,
        optional=(
            "normal",
            "special",
            "mad_fish",
            "chips_heroes",
            "hand_size",
            "fish_per_player",
            "mad_fish_to_lose",
        ),
    )
    base = ChipsRules()
    rules = base
    if "normal" in raw:
        here = data.at(path, "normal")
        copies = data.lst(raw["normal"], here)
        if len(copies) != 9:
            raise data.fail(
                here, f"give the copies of each number 1 to 9: 9 counts, not {len(copies)}"
            )
        rules = replace(
            rules, normal=tuple(data.integer(n, data.at(here, i), 0) for i, n in enumerate(copies))
        )
    if "special" in raw:
        here = data.at(path, "special")
        table = data.obj(raw["special"], here, optional=SPECIAL_KEYS)
        specials: list[EscapeCard] = []
        for key, items in table.items():
            where = data.at(here, key)
            for i, item in enumerate(data.lst(items, where)):
                place = data.at(where, i)
                if key == str(Kind.SIR_FRIES):
                    sir = data.obj(item, place, required=("number", "numbers"))
                    nums = data.lst(sir["numbers"], data.at(place, "numbers"))
                    if not nums:
                        raise data.fail(
                            data.at(place, "numbers"), "Sir Fries shows one number or more"
                        )
                    shown = tuple(
                        _number(n, data.at(data.at(place, "numbers"), j))
                        for j, n in enumerate(nums)
                    )
                    specials.append(
                        EscapeCard(
                            Kind.SIR_FRIES, _number(sir["number"], data.at(place, "number")), shown
                        )
                    )
                elif key == "fish_or_chips_time_any":
                    specials.append(
                        EscapeCard(Kind.FISH_OR_CHIPS_TIME, _number(item, place), any_player=True)
                    )
                else:
                    specials.append(EscapeCard(Kind(key), _number(item, place)))
        rules = replace(rules, specials=tuple(specials))
    if "mad_fish" in raw:
        here = data.at(path, "mad_fish")
        fish = []
        for i, item in enumerate(data.lst(raw["mad_fish"], here)):
            place = data.at(here, i)
            entry = data.obj(item, place, required=("draw", "copies"))
            fish.append(
                (
                    data.integer(entry["draw"], data.at(place, "draw"), 1),
                    data.integer(entry["copies"], data.at(place, "copies"), 0),
                )
            )
        rules = replace(rules, mad_fish=tuple(fish))

    def count(key: str, default: int, low: int) -> int:
        return data.integer(raw.get(key, default), data.at(path, key), low)

    rules = replace(
        rules,
        chips_heroes=count("chips_heroes", rules.chips_heroes, 0),
        hand_size=count("hand_size", rules.hand_size, 1),
        fish_per_player=count("fish_per_player", rules.fish_per_player, 1),
        mad_fish_to_lose=count("mad_fish_to_lose", rules.mad_fish_to_lose, 1),
    )
    low, high = rules.player_range()
    if high < low:
        raise data.fail(
            path or "rules",
            f"{rules.escape_total} escape and {rules.fish_total} fish-or-chips cards cannot "
            f"deal {rules.hand_size} + {rules.fish_per_player} cards to two players",
        )
    return rules


# --------------------------------------------------------------------------------------
# Actions and the steps inside a turn
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard ``card`` (at a turn's start, in Triple Chips, Chips Heroes or Sir Fries)."""

    card: str


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw a card; it can be played from the next turn on (E2)."""


@dataclass(frozen=True, slots=True)
class Reveal:
    """Reveal the face-down fish-or-chips card at ``position`` (0 = leftmost)."""

    position: int


@dataclass(frozen=True, slots=True)
class Knight:
    """Cover the Mad Fish just revealed with the Golden Knight ``card`` (E6)."""

    card: str


@dataclass(frozen=True, slots=True)
class Decline:
    """Do not cover the Mad Fish just revealed."""


@dataclass(frozen=True, slots=True)
class Stop:
    """Stop discarding in Triple Chips."""


@dataclass(frozen=True, slots=True)
class Spy:
    """Spy Fry: look at ``target``'s hand; swap ``give`` for ``take``, or neither (E9)."""

    target: str
    give: str | None = None
    take: str | None = None


@dataclass(frozen=True, slots=True)
class Choose:
    """Fish-or-Chips Time with the sign: ``player`` must reveal."""

    player: str


@dataclass(frozen=True, slots=True)
class PassTurn:
    """E12: nothing else is possible."""


Action = Discard | Draw | Reveal | Knight | Decline | Stop | Spy | Choose | PassTurn


class Step(StrEnum):
    """What the game waits for inside a turn."""

    KNIGHT = "knight"  # cover the Mad Fish just revealed, or not
    SIR_FRIES = "sir_fries"  # discard one card showing one of ``numbers``
    SPY_FRY = "spy_fry"  # choose a hand to look at, swap or not
    FISH_TIME = "fish_time"  # choose who reveals
    REVEAL = "reveal"  # ``player`` must reveal a fish-or-chips card now
    TRIPLE = "triple"  # up to ``left`` more discards
    HEROES = "heroes"  # Chips Heroes: ``first`` discard is free, then the normal rule


STEP_TITLES = {
    Step.KNIGHT: "a Mad Fish (Golden Knight or not?)",
    Step.SIR_FRIES: "Sir Fries",
    Step.SPY_FRY: "Spy Fry",
    Step.FISH_TIME: "Fish-or-Chips Time",
    Step.REVEAL: "a Fish-or-Chips Time reveal",
    Step.TRIPLE: "Triple Chips",
    Step.HEROES: "Chips Heroes",
}


@dataclass(frozen=True, slots=True)
class Pending:
    step: Step
    player: str
    numbers: tuple[int, ...] = ()  # SIR_FRIES
    left: int = 0  # TRIPLE
    first: bool = False  # HEROES
    last: str | None = None  # TRIPLE, HEROES: the last card discarded in the chain
    fish: str | None = None  # KNIGHT: the Mad Fish just revealed
    draw: int = 0  # KNIGHT: how many cards that Mad Fish makes her draw

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": str(self.step), "player": self.player}
        if self.step is Step.SIR_FRIES:
            out["numbers"] = list(self.numbers)
        if self.step is Step.TRIPLE:
            out["left"] = self.left
        if self.step is Step.HEROES:
            out["first"] = self.first
        if self.step in (Step.TRIPLE, Step.HEROES):
            out["last"] = self.last
        if self.step is Step.KNIGHT:
            out["fish"] = self.fish
            out["draw"] = self.draw
        return out


def pending_from_dict(value: object, path: str) -> Pending:
    raw = data.mapping(value, path)
    steps = {str(s): s for s in Step}
    step = data.choice(raw.get("step"), data.at(path, "step"), steps, "step")
    optional = {
        Step.SIR_FRIES: ("numbers",),
        Step.TRIPLE: ("left", "last"),
        Step.HEROES: ("first", "last"),
        Step.KNIGHT: ("fish", "draw"),
    }.get(step, ())
    raw = data.obj(value, path, required=("step", "player", *optional))
    player = data.name(raw["player"], data.at(path, "player"), "player")
    last = raw.get("last")
    fish = raw.get("fish")
    return Pending(
        step,
        player,
        numbers=tuple(
            _number(n, data.at(data.at(path, "numbers"), i))
            for i, n in enumerate(data.lst(raw.get("numbers", []), data.at(path, "numbers")))
        ),
        left=data.integer(raw.get("left", 0), data.at(path, "left"), 0, 3),
        first=data.boolean(raw.get("first", False), data.at(path, "first")),
        last=None if last is None else data.name(last, data.at(path, "last"), "card"),
        fish=None if fish is None else data.name(fish, data.at(path, "fish"), "card"),
        draw=data.integer(raw.get("draw", 0), data.at(path, "draw"), 0),
    )


_REVEAL_TARGET = "it must be another player still in, with a face-down card"


def check_players(players: Iterable[str], rules: ChipsRules) -> tuple[str, ...]:
    players = tuple(players)
    low, high = rules.player_range()
    if not low <= len(players) <= high:
        raise RuleError(f"these rules seat {low} to {high} players, not {len(players)}")
    if len(set(players)) != len(players) or not all(players):
        raise RuleError("every player needs a name of her own")
    return players


def next_in(players: Sequence[str], out: Iterable[str], after: str) -> str:
    """The next player still in, to the left of ``after`` (who may be out herself)."""
    gone = set(out)
    i = players.index(after)
    for k in range(1, len(players) + 1):
        p = players[(i + k) % len(players)]
        if p not in gone:
            return p
    raise RuleError("nobody is left in the game")


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
                yield Reveal(i)
            if self.can_draw():
                found = True
                yield Draw()
            if not found:
                yield PassTurn()
        elif pending.step is Step.KNIGHT:
            yield from (Knight(c) for c in self._knights(p))
            yield Decline()
        elif pending.step is Step.SIR_FRIES:
            yield from (Discard(c) for c in self._sir_matches(p, pending.numbers))
        elif pending.step is Step.SPY_FRY:
            for q in self.active:
                if q == p:
                    continue
                yield Spy(q)
                for give in self.hands[p]:
                    yield from (Spy(q, give, take) for take in self.hands[q])
        elif pending.step is Step.FISH_TIME:
            yield from (Choose(q) for q in self._reveal_targets(p))
        elif pending.step is Step.REVEAL:
            yield from (Reveal(i) for i in range(len(self.down[p])))
        elif pending.step is Step.TRIPLE:
            yield from (Discard(c) for c in self._legal_discards(p))
            yield Stop()
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
        if isinstance(action, Reveal):
            if step not in (None, Step.REVEAL):
                return f"{p} must first finish the {step} step"
            if not 0 <= action.position < len(self.down[p]):
                left = len(self.down[p])
                return (
                    f"{p} has {left} face-down fish-or-chips card(s): no position {action.position}"
                )
            return None
        if isinstance(action, Knight | Decline):
            if step is not Step.KNIGHT:
                return "no Mad Fish is waiting for a Golden Knight"
            if isinstance(action, Knight) and action.card not in self._knights(p):
                return f"{action.card} is not a Golden Knight {p} may play now"
            return None
        if isinstance(action, Stop):
            return None if step is Step.TRIPLE else "only Triple Chips can be stopped early"
        if isinstance(action, Choose):
            if step is not Step.FISH_TIME:
                return "nobody has to choose who reveals now"
            if action.player not in self._reveal_targets(p):
                return f"{action.player} cannot be made to reveal: {_REVEAL_TARGET}"
            return None
        if step is not Step.SPY_FRY:
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
        if pending is not None and pending.step not in (Step.TRIPLE, Step.HEROES, Step.SIR_FRIES):
            return f"{p} must first finish the {pending.step} step"
        if card not in self.hands[p]:
            return f"{card} is not in {p}'s hand"
        if card in self.fresh[p]:
            return f"{card} was drawn since {p}'s turn began: it can be played from her next turn"
        number = self.escape[card].number
        if pending is not None and pending.step is Step.SIR_FRIES:
            if number not in pending.numbers:
                return f"Sir Fries lets {p} discard {either(pending.numbers)}, not {a(number)}"
            return None
        if pending is not None and pending.step is Step.HEROES and pending.first:
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
        elif isinstance(action, Reveal):
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
        elif isinstance(action, Stop):
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
            self.pending = Pending(Step.REVEAL, action.player)
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
        if pending is None or pending.step is Step.SIR_FRIES:
            self._resolve(p, card, rng)
        elif pending.step is Step.TRIPLE:
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
            self.pending = Pending(Step.SIR_FRIES, p, numbers=c.numbers)
            return
        elif c.kind is Kind.SPY_FRY:
            self.pending = Pending(Step.SPY_FRY, p)
            return
        elif c.kind is Kind.FISH_OR_CHIPS_TIME:  # E8
            if c.any_player:
                if self._reveal_targets(p):
                    self.pending = Pending(Step.FISH_TIME, p)
                    return
            else:
                q = next_in(self.players, self.out, p)
                if self.down[q]:
                    self.pending = Pending(Step.REVEAL, q)
                    return
        elif c.kind is Kind.TRIPLE_CHIPS and self._legal_discards(p):
            self.pending = Pending(Step.TRIPLE, p, left=3)
            return
        self._end(p, rng)

    def _reveal(self, p: str, position: int, rng: random.Random) -> None:
        card = self.down[p].pop(position)
        self.up[p].append(card)
        f = self.fish[card]
        if f.kind is FishKind.MAD_FISH:
            if self._knights(p):
                self.pending = Pending(Step.KNIGHT, p, fish=card, draw=f.draw)
            else:
                self._mad_fish(p, f.draw, rng)
        elif self.usable(p):
            self.pending = Pending(Step.HEROES, p, first=True)
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
        return state_from_dict(self.to_dict())

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


def _read_seats(
    value: object, rules: ChipsRules
) -> tuple[tuple[str, ...], Callable[[object, str], str]]:
    """The seated players, and a reader for a player name that must be one of them."""
    names = [
        data.name(p, data.at("players", i), "player")
        for i, p in enumerate(data.lst(value, "players"))
    ]
    try:
        seats = check_players(names, rules)
    except RuleError as exc:
        raise data.fail("players", str(exc)) from None

    def player(value: object, path: str) -> str:
        name = data.name(value, path, "player")
        if name not in seats:
            raise data.fail(path, f"{name!r} is not at the table")
        return name

    return seats, player


def state_from_dict(value: object) -> ChipsState:
    """A state from :meth:`ChipsState.to_dict`: every card exactly once, errors by place."""
    raw = data.obj(
        value,
        data.ROOT,
        required=("players", "turn", "deck", "discard", "hands", "fish", "box"),
        optional=("rules", "fresh", "out", "winner", "pending"),
    )
    rules = rules_from_dict(raw.get("rules", {}), "rules")
    seats, player = _read_seats(raw["players"], rules)

    escape, fish = rules.escape_cards(), rules.fish_cards()
    seen: dict[str, str] = {}

    def cards(value: object, path: str, known: Mapping[str, object]) -> list[str]:
        out = []
        for i, item in enumerate(data.lst(value, path)):
            place = data.at(path, i)
            card = data.name(item, place, "card")
            if card not in known:
                raise data.fail(place, f"no card {card!r} in these rules")
            if card in seen:
                raise data.fail(place, f"{card} is already at {seen[card]}")
            seen[card] = place
            out.append(card)
        return out

    def per_player(key: str) -> dict[str, Any]:
        table = data.mapping(raw.get(key, {}), key)
        for p in table:
            player(p, data.at(key, p))
        return {p: table.get(p, []) for p in seats}

    deck = cards(raw["deck"], "deck", escape)
    discard = cards(raw["discard"], "discard", escape)
    if not discard:
        raise data.fail("discard", "the discard pile always has its top card")
    hands = {p: cards(v, data.at("hands", p), escape) for p, v in per_player("hands").items()}
    fresh: dict[str, list[str]] = {}
    for p, v in per_player("fresh").items():
        fresh[p] = []
        for i, item in enumerate(data.lst(v, data.at("fresh", p))):
            card = data.name(item, data.at(data.at("fresh", p), i), "card")
            if card not in hands[p]:
                raise data.fail(data.at(data.at("fresh", p), i), f"{card} is not in {p}'s hand")
            fresh[p].append(card)
    down: dict[str, list[str]] = {}
    up: dict[str, list[str]] = {}
    covered: dict[str, list[tuple[str, str]]] = {}
    for p, v in per_player("fish").items():
        here = data.at("fish", p)
        f = data.obj(v or {}, here, optional=("down", "up", "covered"))
        down[p] = cards(f.get("down", []), data.at(here, "down"), fish)
        up[p] = cards(f.get("up", []), data.at(here, "up"), fish)
        covered[p] = []
        for i, pair in enumerate(data.lst(f.get("covered", []), data.at(here, "covered"))):
            place = data.at(data.at(here, "covered"), i)
            items = data.lst(pair, place)
            if len(items) != 2:
                raise data.fail(place, "a covered Mad Fish is [mad fish, golden knight]")
            (mad,) = cards(items[:1], place, fish)
            (knight,) = cards(items[1:], place, escape)
            if (
                fish[mad].kind is not FishKind.MAD_FISH
                or escape[knight].kind is not Kind.GOLDEN_KNIGHT
            ):
                raise data.fail(place, "a covered Mad Fish is [mad fish, golden knight]")
            covered[p].append((mad, knight))
    box = cards(raw["box"], "box", fish)
    for known, what in ((escape, "escape"), (fish, "fish-or-chips")):
        missing = [c for c in known if c not in seen]
        if missing:
            raise data.fail(data.ROOT, f"{what} cards missing: {', '.join(missing[:5])}")
    out = [player(v, data.at("out", i)) for i, v in enumerate(data.lst(raw.get("out", []), "out"))]
    winner = raw.get("winner")
    state = ChipsState(
        rules,
        seats,
        deck,
        discard,
        hands,
        fresh,
        down,
        up,
        covered,
        box,
        player(raw["turn"], "turn"),
        out,
        None if winner is None else player(winner, "winner"),
        None if raw.get("pending") is None else pending_from_dict(raw["pending"], "pending"),
    )
    if state.pending is not None:
        player(state.pending.player, data.at("pending", "player"))
    return state


# --------------------------------------------------------------------------------------
# The table helper's model: only what the players can see
# --------------------------------------------------------------------------------------


@dataclass
class ChipsTable:
    """The game as a helper at a real table follows it, from what the players announce.

    Hands are hidden, so it keeps counts: cards in each hand (and how many of them were
    drawn since that player's turn began, E2), face-down fish-or-chips cards, uncovered
    Mad Fish, the deck and the discard pile. It refuses a discard whose number does not
    fit, a player with no card she may play, and anything out of turn. Where only the
    hand could tell (may she continue Chips Heroes? does she hold a Golden Knight?) it
    asks, and ``stop``/``decline`` answer no.
    """

    rules: ChipsRules
    players: tuple[str, ...]
    turn: str
    top: int | None = None  # None until the deck's top card is turned over
    hands: dict[str, int] = field(default_factory=dict)
    fresh: dict[str, int] = field(default_factory=dict)
    down: dict[str, int] = field(default_factory=dict)
    mad: dict[str, int] = field(default_factory=dict)
    knights: dict[str, int] = field(default_factory=dict)
    deck: int = 0
    discard: int = 0
    out: list[str] = field(default_factory=list)
    winner: str | None = None
    pending: TableStep | None = None
    strict: bool = False  # E13: the deck is known card by card (a deck file)

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        rules: ChipsRules | None = None,
        first: str | None = None,
        strict: bool = False,
    ) -> ChipsTable:
        rules = rules or ChipsRules()
        seats = check_players(players, rules)
        if first is not None and first not in seats:
            raise RuleError(f"{first!r} is not at the table")
        dealt = rules.hand_size * len(seats)
        return cls(
            rules,
            seats,
            first or seats[0],
            hands=dict.fromkeys(seats, rules.hand_size),
            fresh=dict.fromkeys(seats, 0),
            down=dict.fromkeys(seats, rules.fish_per_player),
            mad=dict.fromkeys(seats, 0),
            knights=dict.fromkeys(seats, 0),
            deck=rules.escape_total - dealt,
            strict=strict,
        )

    # ---------------------------------------------------------------- queries --------

    @property
    def active(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if p not in self.out)

    @property
    def actor(self) -> str | None:
        if self.winner is not None:
            return None
        return self.pending.player if self.pending else self.turn

    def usable(self, player: str) -> int:
        return self.hands[player] - self.fresh[player]

    def can_draw(self) -> bool:
        return self.deck > 0 or self.discard > 1

    def prompt(self) -> str:
        """What the table should do next, in one line."""
        if self.winner is not None:
            return f"Game over: {self.winner} wins!"
        if self.top is None:
            return "Turn over the deck's top card and type its number."
        p, step = self.actor, self.pending
        assert p is not None
        fits = either(neighbours(self.top))
        if step is None:
            moves = [f"discard {fits}"] if self.usable(p) else []
            if self.down[p]:
                moves.append("reveal a fish-or-chips card")
            if self.can_draw():
                moves.append("draw")
            if not moves:
                return f"{p}'s turn: nothing to do, pass."
            return (
                f"{p}'s turn: "
                + ", ".join(moves[:-1])
                + (" or " if len(moves) > 1 else "")
                + moves[-1]
                + "."
            )
        if step.step is Step.KNIGHT:
            return f"{p}: cover the Mad Fish with a Golden Knight? (knight / no)"
        if step.step is Step.SIR_FRIES:
            shown = either(step.numbers) if step.numbers else "a card showing one of its numbers"
            return f"{p}: Sir Fries, discard {shown} if you have one (or: done)."
        if step.step is Step.SPY_FRY:
            return f"{p}: Spy Fry, whose hand do you look at? (name a player)"
        if step.step is Step.FISH_TIME:
            return f"{p}: Fish-or-Chips Time, who must reveal? (name a player)"
        if step.step is Step.REVEAL:
            return f"{p}: Fish or Chips! reveal one of your face-down cards now."
        if step.step is Step.TRIPLE:
            return f"{p}: Triple Chips, discard up to {step.left} more ({fits}), or done."
        if step.first:
            return f"{p}: Chips Heroes, discard any card (or: done if you cannot)."
        return f"{p}: Chips Heroes, keep discarding {fits} (done when you cannot)."

    # ---------------------------------------------------------------- commands -------

    def start(self, top: int) -> str:
        """The deck's top card is turned over to start the discard pile (its number only)."""
        if self.top is not None:
            raise RuleError("the discard pile has already started")
        if top not in NUMBERS:
            raise RuleError(f"cards show 1 to 9, not {top}")
        self.top = top
        self.deck -= 1
        self.discard = 1
        return f"Top card {top}. {self.turn} begins."

    def known(self, card: EscapeCard) -> EscapeCard:
        """The card as the rules know it (Sir Fries' numbers filled in when the deck is
        known); RuleError when a strict deck makes no such card.

        E13: the rulebook does not say which number each special card shows, so without a
        deck file (``strict`` False) any special card on any number 1-9 is accepted as
        announced. Sir Fries' numbers are a set: ``2,8`` and ``8,2`` are the same (E4).
        """
        if card.number not in NUMBERS:
            raise RuleError(f"cards show 1 to 9, not {card.number}")
        if card.kind is Kind.NUMBER:
            if not self.rules.normal[card.number - 1]:
                raise RuleError(f"these rules have no number card {card.number}")
            return card
        if not self.strict:
            return card
        title = KIND_TITLES[card.kind]
        wanted = frozenset(card.numbers)
        shown = [
            c
            for c in self.rules.specials_shown(card.kind, card.number)
            if c.any_player == card.any_player and (not wanted or frozenset(c.numbers) == wanted)
        ]
        if not shown:
            sign = " with the any-player sign" if card.any_player else ""
            numbers = f" for {'/'.join(map(str, sorted(wanted)))}" if wanted else ""
            raise RuleError(f"no {title} card{sign} shows a {card.number}{numbers} in this deck")
        if len({frozenset(c.numbers) for c in shown}) > 1:
            options = " or ".join("/".join(map(str, c.numbers)) for c in shown)
            raise RuleError(f"which {title} {card.number}: the one for {options}?")
        return shown[0]

    def mad_fish_draws(self) -> tuple[int, int] | frozenset[int]:
        """What a revealed Mad Fish may make her draw: the deck's counts when it is known,
        else any count from 1 (E13) up to every escape card there is."""
        if self.strict:
            return frozenset(d for d, n in self.rules.mad_fish if n)
        return (1, self.rules.escape_total)

    def _busy(self) -> str:
        step = self.pending
        assert step is not None
        return f"not now: {step.player} is in the middle of {STEP_TITLES[step.step]}"

    def _ready(self) -> str:
        if self.winner is not None:
            raise RuleError(f"the game is over: {self.winner} won")
        if self.top is None:
            raise RuleError("first turn over the deck's top card: type its number")
        actor = self.actor
        assert actor is not None
        return actor

    def discard_card(self, card: EscapeCard) -> str:
        """``actor`` discards ``card``; a special card's effect follows."""
        p = self._ready()
        step = self.pending
        assert self.top is not None
        card = self.known(card)
        if step is not None and step.step not in (Step.TRIPLE, Step.HEROES, Step.SIR_FRIES):
            raise RuleError(self._busy())
        if self.usable(p) < 1:
            why = "no cards" if not self.hands[p] else "only cards drawn since her turn began"
            raise RuleError(f"{p} has {why}: nothing she may discard")
        if step is not None and step.step is Step.SIR_FRIES:
            if step.numbers and card.number not in step.numbers:
                raise RuleError(
                    f"Sir Fries lets {p} discard {either(step.numbers)}, not {a(card.number)}"
                )
        elif not (step is not None and step.step is Step.HEROES and step.first):
            if not follows(self.top, card.number):
                raise RuleError(
                    f"{a(card.number)} cannot go on {a(self.top)}: "
                    f"play {either(neighbours(self.top))}"
                )
        self.hands[p] -= 1
        self.discard += 1
        self.top = card.number
        if self.hands[p] == 0:
            self.winner = p
            self.pending = None
            return f"{p} discards her last card and frees the fries: {p} wins!"
        said = f"{p} discards {card.title()}."
        if step is None or step.step is Step.SIR_FRIES:
            return said + self._resolve(p, card)
        if step.step is Step.TRIPLE:
            if step.left > 1 and self.usable(p):
                self.pending = replace(step, left=step.left - 1, last=card)
                return said
            return said + self._after_chain(p, card)
        if self.usable(p):
            self.pending = replace(step, first=False, last=card)
            return said
        return said + self._after_chain(p, card)

    def draw(self) -> str:
        p = self._ready()
        if self.pending is not None:
            raise RuleError(self._busy())
        if not self.can_draw():
            raise RuleError("there is no card left to draw")
        said = f"{p} draws a card (playable from the next turn on)." + self._draw_into(p, 1)
        return said + self._end(p)

    def reveal_mad_fish(self, draw: int) -> str:
        allowed = self.mad_fish_draws()
        if isinstance(allowed, frozenset):
            if draw not in allowed:
                counts = " or ".join(map(str, sorted(allowed)))
                raise RuleError(f"this deck's Mad Fish draw {counts}, not {draw}")
        elif not allowed[0] <= draw <= allowed[1]:
            raise RuleError(f"a Mad Fish draws {allowed[0]} to {allowed[1]} cards, not {draw}")
        p = self._reveal_check()
        self.down[p] -= 1
        self.mad[p] += 1
        said = f"{p} reveals a Mad Fish (draw {draw})."
        if self.usable(p):
            self.pending = TableStep(Step.KNIGHT, p, draw=draw)
            return said
        return said + self._mad_fish(p, draw)

    def reveal_heroes(self) -> str:
        p = self._reveal_check()
        self.down[p] -= 1
        said = f"{p} reveals Chips Heroes!"
        if self.usable(p):
            self.pending = TableStep(Step.HEROES, p, first=True)
            return said
        return said + " No card she may play." + self._end(p)

    def _reveal_check(self) -> str:
        p = self._ready()
        if self.pending is not None and self.pending.step is not Step.REVEAL:
            raise RuleError(self._busy())
        if not self.down[p]:
            raise RuleError(f"{p} has no face-down fish-or-chips card left")
        return p

    def knight(self) -> str:
        p = self._ready()
        step = self.pending
        if step is None or step.step is not Step.KNIGHT:
            raise RuleError("no Mad Fish is waiting for a Golden Knight")
        self.hands[p] -= 1
        self.knights[p] += 1
        self.mad[p] -= 1
        said = f"{p}'s Golden Knight cancels the Mad Fish."
        if self.hands[p] == 0:  # E3: her last card, she wins at once
            self.winner = p
            self.pending = None
            return f"{said} It was her last card: {p} wins!"
        return said + self._end(p)

    def decline(self) -> str:
        p = self._ready()
        step = self.pending
        if step is None or step.step is not Step.KNIGHT:
            raise RuleError("nothing to decline")
        return self._mad_fish(p, step.draw)

    def stop(self) -> str:
        """Triple Chips stops early; Chips Heroes or Sir Fries: nothing (more) she can play."""
        p = self._ready()
        step = self.pending
        if step is None or step.step not in (Step.TRIPLE, Step.HEROES, Step.SIR_FRIES):
            raise RuleError("nothing to stop: no Triple Chips, Chips Heroes or Sir Fries under way")
        if step.step is Step.SIR_FRIES:
            return f"{p} has no card for Sir Fries." + self._end(p)
        return self._after_chain(p, step.last)

    def choose(self, target: str) -> str:
        p = self._ready()
        step = self.pending
        if step is None or step.step is not Step.FISH_TIME:
            raise RuleError("nobody has to choose who reveals now")
        if target == p or target not in self.active or not self.down.get(target):
            raise RuleError(f"{target} cannot be made to reveal: {_REVEAL_TARGET}")
        self.pending = TableStep(Step.REVEAL, target)
        return f"{target} must reveal a fish-or-chips card."

    def spy(self, target: str) -> str:
        p = self._ready()
        step = self.pending
        if step is None or step.step is not Step.SPY_FRY:
            raise RuleError("no Spy Fry is waiting")
        if target == p or target not in self.active:
            raise RuleError(f"{target} is not another player still in the game")
        # A swap is not seen: give both the benefit of the doubt (E2, E9).
        for who in (p, target):
            self.fresh[who] = max(0, self.fresh[who] - 1)
        return f"{p} looks at {target}'s hand and may swap one card." + self._end(p)

    def pass_turn(self) -> str:
        p = self._ready()
        if self.pending is not None:
            raise RuleError(self._busy())
        if self.down[p] or self.can_draw():
            raise RuleError(f"{p} can still reveal or draw: no passing")
        return f"{p} passes." + self._end(p)

    # ---------------------------------------------------------------- the flow -------

    def _draw_into(self, p: str, n: int) -> str:
        said = ""
        for _ in range(n):
            if self.deck == 0:
                if self.discard < 2:
                    return said + " No card left to draw."
                self.deck, self.discard = self.discard - 1, 1
                said += " Deck empty: shuffle the discard pile but its top card into a new deck."
            self.deck -= 1
            self.hands[p] += 1
            self.fresh[p] += 1
        return said

    def _after_chain(self, p: str, last: EscapeCard | None) -> str:
        self.pending = None
        return self._end(p) if last is None else self._resolve(p, last)

    def _resolve(self, p: str, card: EscapeCard) -> str:
        self.pending = None
        if card.kind is Kind.CHIPS_FOR_EVERYONE:
            said = " Chips for everyone: every other player draws a card."
            q = next_in(self.players, self.out, p)
            while q != p:
                said += self._draw_into(q, 1)
                q = next_in(self.players, self.out, q)
            return said + self._end(p)
        if card.kind is Kind.SIR_FRIES and self.usable(p):
            self.pending = TableStep(Step.SIR_FRIES, p, numbers=card.numbers)
            return ""
        if card.kind is Kind.SPY_FRY:
            self.pending = TableStep(Step.SPY_FRY, p)
            return ""
        if card.kind is Kind.FISH_OR_CHIPS_TIME:
            if card.any_player:
                if any(q != p and self.down[q] for q in self.active):
                    self.pending = TableStep(Step.FISH_TIME, p)
                    return ""
                return " Nobody has a face-down card left to reveal." + self._end(p)
            q = next_in(self.players, self.out, p)
            if self.down[q]:
                self.pending = TableStep(Step.REVEAL, q)
                return f" {q} must reveal a fish-or-chips card."
            return f" {q} has no face-down card left to reveal." + self._end(p)
        if card.kind is Kind.TRIPLE_CHIPS and self.usable(p):
            self.pending = TableStep(Step.TRIPLE, p, left=3)
            return ""
        return self._end(p)

    def _mad_fish(self, p: str, draw: int) -> str:
        self.pending = None
        if self.mad[p] >= self.rules.mad_fish_to_lose:
            self.out.append(p)
            self.discard += self.hands[p] + self.knights[p]
            self.hands[p] = self.fresh[p] = self.down[p] = self.mad[p] = self.knights[p] = 0
            said = f" {self.rules.mad_fish_to_lose} Mad Fish: {p} is out of the game!"
            if len(self.active) == 1:
                self.winner = self.active[0]
                return said + f" {self.winner} wins!"
            return said + self._end(p)
        said = f" {p} draws {draw}." + self._draw_into(p, draw)
        return said + self._end(p)

    def _end(self, p: str) -> str:
        self.pending = None
        said = ""
        if all(not self.down[q] for q in self.active):
            self.discard += sum(self.knights.values())
            for q in self.players:
                self.mad[q] = self.knights[q] = 0
                self.down[q] = self.rules.fish_per_player if q in self.active else 0
            said = (
                " Every fish-or-chips card is revealed: shuffle them all and deal "
                f"{self.rules.fish_per_player} face down again (Mad Fish counts start over)."
            )
        self.turn = next_in(self.players, self.out, p)
        self.fresh[self.turn] = 0
        return said

    # ---------------------------------------------------------------- plain data -----

    def public(self) -> dict[str, Any]:
        """The same view as :meth:`ChipsState.public`."""
        return {
            "turn": self.turn,
            "actor": self.actor,
            "top": self.top,
            "hands": dict(self.hands),
            "down": dict(self.down),
            "mad_fish": dict(self.mad),
            "knights": dict(self.knights),
            "deck": self.deck,
            "discard": self.discard,
            "out": list(self.out),
            "winner": self.winner,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.public(),
            "players": list(self.players),
            "fresh": dict(self.fresh),
            "rules": self.rules.to_dict(),
            "strict": self.strict,
            "pending": None if self.pending is None else self.pending.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class TableStep:
    """:class:`Pending` for the table helper: the last card is known by what it shows."""

    step: Step
    player: str
    numbers: tuple[int, ...] = ()
    left: int = 0
    first: bool = False
    last: EscapeCard | None = None
    draw: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": str(self.step), "player": self.player}
        if self.numbers:
            out["numbers"] = list(self.numbers)
        if self.step is Step.TRIPLE:
            out["left"] = self.left
        if self.step is Step.HEROES:
            out["first"] = self.first
        if self.last is not None:
            out["last"] = {
                "kind": str(self.last.kind),
                "number": self.last.number,
                "numbers": list(self.last.numbers),
                "any_player": self.last.any_player,
            }
        if self.step is Step.KNIGHT:
            out["draw"] = self.draw
        return out


def table_from_dict(value: object) -> ChipsTable:
    """A helper's table from :meth:`ChipsTable.to_dict` (its undo history is made of these)."""
    raw = data.obj(
        value,
        data.ROOT,
        required=("players", "turn", "hands", "down", "mad_fish", "deck", "discard"),
        optional=(
            "actor",
            "top",
            "fresh",
            "knights",
            "out",
            "winner",
            "rules",
            "strict",
            "pending",
        ),
    )
    rules = rules_from_dict(raw.get("rules", {}), "rules")
    seats, player = _read_seats(raw["players"], rules)

    def counts(key: str) -> dict[str, int]:
        table = data.mapping(raw.get(key, {}), key)
        for p in table:
            player(p, data.at(key, p))
        return {p: data.integer(table.get(p, 0), data.at(key, p), 0) for p in seats}

    top = raw.get("top")
    pending = None
    if raw.get("pending") is not None:
        here = "pending"
        pr = data.obj(
            raw["pending"],
            here,
            required=("step", "player"),
            optional=("numbers", "left", "first", "last", "draw"),
        )
        step = data.choice(pr["step"], data.at(here, "step"), {str(s): s for s in Step}, "step")
        last = None
        if pr.get("last") is not None:
            lr = data.obj(
                pr["last"],
                data.at(here, "last"),
                required=("kind", "number"),
                optional=("numbers", "any_player"),
            )
            last = EscapeCard(
                data.choice(
                    lr["kind"],
                    data.at(data.at(here, "last"), "kind"),
                    {str(k): k for k in Kind},
                    "card kind",
                ),
                _number(lr["number"], data.at(data.at(here, "last"), "number")),
                tuple(
                    _number(n, data.at(here, "last"))
                    for n in data.lst(lr.get("numbers", []), data.at(here, "last"))
                ),
                data.boolean(
                    lr.get("any_player", False), data.at(data.at(here, "last"), "any_player")
                ),
            )
        pending = TableStep(
            step,
            player(pr["player"], data.at(here, "player")),
            tuple(
                _number(n, data.at(here, "numbers"))
                for n in data.lst(pr.get("numbers", []), data.at(here, "numbers"))
            ),
            data.integer(pr.get("left", 0), data.at(here, "left"), 0, 3),
            data.boolean(pr.get("first", False), data.at(here, "first")),
            last,
            data.integer(pr.get("draw", 0), data.at(here, "draw"), 0),
        )
    winner = raw.get("winner")
    return ChipsTable(
        rules,
        seats,
        player(raw["turn"], "turn"),
        None if top is None else _number(top, "top"),
        counts("hands"),
        counts("fresh"),
        counts("down"),
        counts("mad_fish"),
        counts("knights"),
        data.integer(raw["deck"], "deck", 0),
        data.integer(raw["discard"], "discard", 0),
        [player(v, data.at("out", i)) for i, v in enumerate(data.lst(raw.get("out", []), "out"))],
        None if winner is None else player(winner, "winner"),
        pending,
        data.boolean(raw.get("strict", False), "strict"),
    )
