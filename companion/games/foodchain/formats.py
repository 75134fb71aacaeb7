"""Food Chain from plain data: the card catalog, actions, a whole game and the score sheet.

Every problem is one :class:`companion.errors.InputError` naming its place.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from companion import data
from companion.errors import RuleError
from companion.games.foodchain.cards import (
    CATALOG_FORMAT,
    NAME_PATTERN,
    TOKENS_PER_PLAYER,
    Bonus,
    CardKind,
    Catalog,
    roman,
)
from companion.games.foodchain.score import Eaten, Tally
from companion.games.foodchain.state import (
    Action,
    BackOff,
    Eat,
    FoodChainState,
    Hunt,
    Pass,
    Switch,
    check_players,
)

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


def _card_kind(item: object, here: str) -> tuple[CardKind, tuple[str, ...], tuple[str, ...]]:
    """One card of a catalog, checked on its own, with the predator and prey names in the
    order given (errors name ``prey[1]``); the names it refers to are checked after."""
    c = data.obj(
        item,
        here,
        required=("name",),
        optional=("level", "points", "copies", "predators", "prey", "bonus"),
    )
    name = data.name(c["name"], data.at(here, "name"), "card name")
    if not NAME_PATTERN.match(name):
        raise data.fail(data.at(here, "name"), f"{name!r}: a name may not contain '#'")
    copies = data.integer(c.get("copies", 1), data.at(here, "copies"), 1)
    bonus = None
    if "bonus" in c:
        bonus = data.choice(c["bonus"], data.at(here, "bonus"), BONUS_NAMES, "bonus card")
        for key in ("predators", "prey"):
            if c.get(key):
                raise data.fail(data.at(here, key), f"the {bonus} is a bonus card: it has no {key}")
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
    kind = CardKind(name, level, points, copies, frozenset(predators), frozenset(prey), bonus)
    return kind, predators, prey


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
        kind, predators, prey = _card_kind(item, here)
        if any(k.name == kind.name for k in kinds):
            raise data.fail(data.at(here, "name"), f"{kind.name!r} is listed twice")
        links.append((here, predators, prey))
        kinds.append(kind)
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
    for i, k in enumerate(kinds):
        if k.bonus is Bonus.HUNTSMAN and 0 < k.level <= creature_top:
            raise data.fail(
                data.at(data.at("cards", i), "level"),
                f"the Huntsman outranks every creature (F6): level above {creature_top}",
            )
    kinds = [
        CardKind(k.name, creature_top + 1, k.points, k.copies, bonus=k.bonus)
        if k.bonus is Bonus.HUNTSMAN and k.level == 0
        else k
        for k in kinds
    ]
    return Catalog(tuple(kinds), example, title)


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


class _Reader:
    """Reads cards and the forest of one saved game: every catalog card exactly once."""

    def __init__(self, catalog: Catalog, seats: tuple[str, ...]) -> None:
        self.known = set(catalog.card_ids())
        self.seats = seats
        self.seen: dict[str, str] = {}
        self.chains: list[str] = []
        self.on: dict[str, str] = {}
        self.token: dict[str, str] = {}

    def card(self, value: object, path: str) -> str:
        name = data.name(value, path, "card")
        if name not in self.known:
            raise data.fail(path, f"no card {name!r} in the catalog")
        if name in self.seen:
            raise data.fail(path, f"{name} is already at {self.seen[name]}")
        self.seen[name] = path
        return name

    def cards(self, value: object, path: str) -> list[str]:
        return [self.card(v, data.at(path, i)) for i, v in enumerate(data.lst(value, path))]

    def node(self, value: object, path: str, below: str | None) -> None:
        """A chain's food card (``below`` None) or a predator, and all that preys on it."""
        n = data.obj(value, path, required=("card",), optional=("token", "predators"))
        name = self.card(n["card"], data.at(path, "card"))
        if below is None:
            if "token" in n:
                raise data.fail(data.at(path, "token"), "a food card carries no token")
            self.chains.append(name)
        else:
            if "token" not in n:
                raise data.fail(path, "a predator carries its player's token: missing 'token'")
            owner = data.name(n["token"], data.at(path, "token"), "player")
            if owner not in self.seats:
                raise data.fail(data.at(path, "token"), f"{owner!r} is not at the table")
            self.on[name] = below
            self.token[name] = owner
        for i, above in enumerate(data.lst(n.get("predators", []), data.at(path, "predators"))):
            self.node(above, data.at(data.at(path, "predators"), i), name)


def _seats(value: object) -> tuple[str, ...]:
    players = [
        data.name(p, data.at("players", i), "player")
        for i, p in enumerate(data.lst(value, "players"))
    ]
    try:
        return check_players(players)
    except RuleError as exc:
        raise data.fail("players", str(exc)) from None


def _per_player(raw: Mapping[str, Any], key: str, seats: tuple[str, ...]) -> dict[str, Any]:
    table = data.mapping(raw[key], key)
    for p in table:
        if p not in seats:
            raise data.fail(data.at(key, p), f"{p!r} is not at the table")
    for p in seats:
        if p not in table:
            raise data.fail(key, f"missing {p!r}")
    return {p: table[p] for p in seats}


def _held(value: object, here: str, seats: tuple[str, ...]) -> Counter[str]:
    """The tokens one player holds, counted by the colour's owner."""
    held: Counter[str] = Counter()
    for colour, n in data.mapping(value, here).items():
        if colour not in seats:
            raise data.fail(data.at(here, colour), f"no player {colour!r} owns that colour")
        held[colour] = data.integer(n, data.at(here, colour), 0, TOKENS_PER_PLAYER)
    return held


def state_from_dict(value: object, catalog: Catalog) -> FoodChainState:
    """A state from :meth:`FoodChainState.to_dict`; every card of the catalog exactly once,
    four tokens of each colour, and errors naming the place."""
    raw = data.obj(
        value,
        data.ROOT,
        required=("players", "turn", "hands", "deck", "discard", "food", "tokens", "forest"),
        optional=("passes",),
    )
    seats = _seats(raw["players"])
    turn = data.name(raw["turn"], "turn", "player")
    if turn not in seats:
        raise data.fail("turn", f"{turn!r} is not at the table")
    read = _Reader(catalog, seats)
    hands = {
        p: read.cards(v, data.at("hands", p)) for p, v in _per_player(raw, "hands", seats).items()
    }
    food = {
        p: read.cards(v, data.at("food", p)) for p, v in _per_player(raw, "food", seats).items()
    }
    deck = read.cards(raw["deck"], "deck")
    discard = read.cards(raw["discard"], "discard")
    supply = {
        p: _held(v, data.at("tokens", p), seats)
        for p, v in _per_player(raw, "tokens", seats).items()
    }
    for i, root in enumerate(data.lst(raw["forest"], "forest")):
        read.node(root, data.at("forest", i), None)
    missing = [c for c in catalog.card_ids() if c not in read.seen]
    if missing:
        raise data.fail(data.ROOT, f"cards missing: {', '.join(missing[:5])}")
    # Saves from before F11 was settled counted passes; still checked, no longer used.
    data.integer(raw.get("passes", 0), "passes", 0, len(seats))
    state = FoodChainState(
        catalog,
        seats,
        hands,
        deck,
        discard,
        food,
        supply,
        read.chains,
        read.on,
        read.token,
        seats.index(turn),
    )
    colours = state.tokens_by_colour()
    for p in seats:
        if colours[p] != TOKENS_PER_PLAYER:
            raise data.fail(
                "tokens", f"{colours[p]} of {p}'s tokens are held or on the table, not 4"
            )
    return state


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
