"""The Great Chips Escape from plain data: the ``[rules]`` deck table, a whole game and the
helper's table. Every problem is one :class:`companion.errors.InputError` naming its place."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from companion import data
from companion.errors import RuleError
from companion.games.chips.actions import ChipsStep, Pending, TableStep, check_players
from companion.games.chips.cards import (
    SPECIAL_KINDS,
    ChipsRules,
    EscapeCard,
    FishKind,
    Kind,
)
from companion.games.chips.state import ChipsState
from companion.games.chips.table import ChipsTable

SPECIAL_KEYS = (*(str(k) for k in SPECIAL_KINDS), "fish_or_chips_time_any")


def _number(value: object, path: str) -> int:
    return data.integer(value, path, 1, 9)


def _special(key: str, item: object, place: str) -> EscapeCard:
    """One special card of the ``special`` table: a number, or Sir Fries' two keys."""
    if key == str(Kind.SIR_FRIES):
        sir = data.obj(item, place, required=("number", "numbers"))
        nums = data.lst(sir["numbers"], data.at(place, "numbers"))
        if not nums:
            raise data.fail(data.at(place, "numbers"), "Sir Fries shows one number or more")
        shown = tuple(_number(n, data.at(data.at(place, "numbers"), j)) for j, n in enumerate(nums))
        return EscapeCard(Kind.SIR_FRIES, _number(sir["number"], data.at(place, "number")), shown)
    if key == "fish_or_chips_time_any":
        return EscapeCard(Kind.FISH_OR_CHIPS_TIME, _number(item, place), any_player=True)
    return EscapeCard(Kind(key), _number(item, place))


def _specials(value: object, here: str) -> tuple[EscapeCard, ...]:
    """The ``special`` table: it replaces every default special card."""
    table = data.obj(value, here, optional=SPECIAL_KEYS)
    return tuple(
        _special(key, item, data.at(data.at(here, key), i))
        for key, items in table.items()
        for i, item in enumerate(data.lst(items, data.at(here, key)))
    )


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
        rules = replace(rules, specials=_specials(raw["special"], data.at(path, "special")))
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


def pending_from_dict(value: object, path: str) -> Pending:
    raw = data.mapping(value, path)
    steps = {str(s): s for s in ChipsStep}
    step = data.choice(raw.get("step"), data.at(path, "step"), steps, "step")
    optional = {
        ChipsStep.SIR_FRIES: ("numbers",),
        ChipsStep.TRIPLE: ("left", "last"),
        ChipsStep.HEROES: ("first", "last"),
        ChipsStep.KNIGHT: ("fish", "draw"),
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


class _Cards:
    """Reads card lists and remembers where each card was seen: every card exactly once."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def read(self, value: object, path: str, known: Mapping[str, object]) -> list[str]:
        out = []
        for i, item in enumerate(data.lst(value, path)):
            place = data.at(path, i)
            card = data.name(item, place, "card")
            if card not in known:
                raise data.fail(place, f"no card {card!r} in these rules")
            if card in self.seen:
                raise data.fail(place, f"{card} is already at {self.seen[card]}")
            self.seen[card] = place
            out.append(card)
        return out


FishPlaces = tuple[list[str], list[str], list[tuple[str, str]]]


def _fish_of(value: object, here: str, reader: _Cards, rules: ChipsRules) -> FishPlaces:
    """One player's fish-or-chips cards: face down, face up, covered by a Golden Knight."""
    escape, fish = rules.escape_cards(), rules.fish_cards()
    f = data.obj(value or {}, here, optional=("down", "up", "covered"))
    down = reader.read(f.get("down", []), data.at(here, "down"), fish)
    up = reader.read(f.get("up", []), data.at(here, "up"), fish)
    covered = []
    for i, pair in enumerate(data.lst(f.get("covered", []), data.at(here, "covered"))):
        place = data.at(data.at(here, "covered"), i)
        items = data.lst(pair, place)
        if len(items) != 2:
            raise data.fail(place, "a covered Mad Fish is [mad fish, golden knight]")
        (mad,) = reader.read(items[:1], place, fish)
        (knight,) = reader.read(items[1:], place, escape)
        if fish[mad].kind is not FishKind.MAD_FISH or escape[knight].kind is not Kind.GOLDEN_KNIGHT:
            raise data.fail(place, "a covered Mad Fish is [mad fish, golden knight]")
        covered.append((mad, knight))
    return down, up, covered


def _fresh(value: object, here: str, hand: list[str], player: str) -> list[str]:
    """E2: the cards drawn since the player's turn began, each one in her hand."""
    fresh = []
    for i, item in enumerate(data.lst(value, here)):
        card = data.name(item, data.at(here, i), "card")
        if card not in hand:
            raise data.fail(data.at(here, i), f"{card} is not in {player}'s hand")
        fresh.append(card)
    return fresh


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
    reader = _Cards()

    def per_player(key: str) -> dict[str, Any]:
        table = data.mapping(raw.get(key, {}), key)
        for p in table:
            player(p, data.at(key, p))
        return {p: table.get(p, []) for p in seats}

    deck = reader.read(raw["deck"], "deck", escape)
    discard = reader.read(raw["discard"], "discard", escape)
    if not discard:
        raise data.fail("discard", "the discard pile always has its top card")
    hands = {p: reader.read(v, data.at("hands", p), escape) for p, v in per_player("hands").items()}
    fresh = {p: _fresh(v, data.at("fresh", p), hands[p], p) for p, v in per_player("fresh").items()}
    places = {
        p: _fish_of(v, data.at("fish", p), reader, rules) for p, v in per_player("fish").items()
    }
    box = reader.read(raw["box"], "box", fish)
    for known, what in ((escape, "escape"), (fish, "fish-or-chips")):
        missing = [c for c in known if c not in reader.seen]
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
        {p: places[p][0] for p in seats},
        {p: places[p][1] for p in seats},
        {p: places[p][2] for p in seats},
        box,
        player(raw["turn"], "turn"),
        out,
        None if winner is None else player(winner, "winner"),
        None if raw.get("pending") is None else pending_from_dict(raw["pending"], "pending"),
    )
    if state.pending is not None:
        player(state.pending.player, data.at("pending", "player"))
    return state


def _last_card(value: object, here: str) -> EscapeCard:
    """The last card of a Triple Chips or Chips Heroes chain, as the helper knows it."""
    lr = data.obj(value, here, required=("kind", "number"), optional=("numbers", "any_player"))
    kinds = {str(k): k for k in Kind}
    return EscapeCard(
        data.choice(lr["kind"], data.at(here, "kind"), kinds, "card kind"),
        _number(lr["number"], data.at(here, "number")),
        tuple(_number(n, here) for n in data.lst(lr.get("numbers", []), here)),
        data.boolean(lr.get("any_player", False), data.at(here, "any_player")),
    )


def _table_step(value: object, player: Callable[[object, str], str]) -> TableStep:
    here = "pending"
    pr = data.obj(
        value,
        here,
        required=("step", "player"),
        optional=("numbers", "left", "first", "last", "draw"),
    )
    step = data.choice(pr["step"], data.at(here, "step"), {str(s): s for s in ChipsStep}, "step")
    last = pr.get("last")
    return TableStep(
        step,
        player(pr["player"], data.at(here, "player")),
        tuple(
            _number(n, data.at(here, "numbers"))
            for n in data.lst(pr.get("numbers", []), data.at(here, "numbers"))
        ),
        data.integer(pr.get("left", 0), data.at(here, "left"), 0, 3),
        data.boolean(pr.get("first", False), data.at(here, "first")),
        None if last is None else _last_card(last, data.at(here, "last")),
        data.integer(pr.get("draw", 0), data.at(here, "draw"), 0),
    )


TABLE_KEYS = ("actor", "top", "fresh", "knights", "out", "winner", "rules", "strict", "pending")


def table_from_dict(value: object) -> ChipsTable:
    """A helper's table from :meth:`ChipsTable.to_dict` (its save file and undo history)."""
    raw = data.obj(
        value,
        data.ROOT,
        required=("players", "turn", "hands", "down", "mad_fish", "deck", "discard"),
        optional=TABLE_KEYS,
    )
    rules = rules_from_dict(raw.get("rules", {}), "rules")
    seats, player = _read_seats(raw["players"], rules)

    def counts(key: str) -> dict[str, int]:
        table = data.mapping(raw.get(key, {}), key)
        for p in table:
            player(p, data.at(key, p))
        return {p: data.integer(table.get(p, 0), data.at(key, p), 0) for p in seats}

    top = raw.get("top")
    pending = raw.get("pending")
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
        None if pending is None else _table_step(pending, player),
        data.boolean(raw.get("strict", False), "strict"),
    )
