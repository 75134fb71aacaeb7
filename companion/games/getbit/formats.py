"""Get Bit!'s JSON readers: a setup, a game to replay, a saved state (docs/formats.md).

Beside the rules (:mod:`companion.games.getbit`) and apart from them, so the engine reads
as rules only.  Every error names its JSON path: a round the rules refuse (G7) becomes
an input error at that round, and a saved state is checked for hands, line and limbs
that agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion import data
from companion.games.getbit import (
    HALVES_PER_LIMB,
    START_LIMBS,
    GetBit,
    PlayError,
    Replay,
    RoundResult,
    Setup,
    SetupError,
)

SETUP_KEYS = ("robots", "line", "longer_games", "memory", "pickup_at")


def _setup(raw: Mapping[str, Any], path: str) -> Setup:
    """Read the setup keys of a replay input (or of a saved state's ``setup``)."""
    robots: dict[str, str] = {}
    for robot, player in data.mapping(raw["robots"], data.at(path, "robots")).items():
        here = data.at(data.at(path, "robots"), robot)
        data.name(robot, here, "robot")
        robots[robot] = data.name(player, here, "player")
    line = tuple(
        data.name(r, data.at(data.at(path, "line"), i), "robot")
        for i, r in enumerate(data.lst(raw["line"], data.at(path, "line")))
    )
    longer = data.boolean(raw.get("longer_games", False), data.at(path, "longer_games"))
    memory = data.boolean(raw.get("memory", False), data.at(path, "memory"))
    pickup_at = data.integer(raw.get("pickup_at", 1), data.at(path, "pickup_at"))
    try:
        return Setup(robots, line, longer, memory, pickup_at)
    except SetupError as exc:
        raise data.fail(data.at(path, exc.key), str(exc)) from None


def setup_from_dict(value: object, path: str = data.ROOT) -> Setup:
    raw = data.obj(value, path, required=("robots", "line"), optional=SETUP_KEYS)
    return _setup(raw, path)


def read_cards(value: object, path: str) -> dict[str, int]:
    """One round: robot -> card number (whole numbers; which ones is G7's business)."""
    raw = data.mapping(value, path)
    cards: dict[str, int] = {}
    for robot, card in raw.items():
        here = data.at(path, robot)
        data.name(robot, here, "robot")
        cards[robot] = data.integer(card, here)
    return cards


def play_at(state: GetBit, cards: Mapping[str, int], path: str) -> tuple[GetBit, RoundResult]:
    """Play a round read from ``path``; a refused round becomes an InputError there."""
    try:
        return state.play(cards)
    except PlayError as exc:
        place = data.at(path, exc.robot) if exc.robot is not None else path
        raise data.fail(place, str(exc)) from None


def replay_from_dict(value: object) -> Replay:
    """Read a game as ``companion getbit replay`` takes it, and play it (formats.md)."""
    raw = data.obj(value, data.ROOT, required=("robots", "line"), optional=(*SETUP_KEYS, "rounds"))
    setup = _setup(raw, data.ROOT)
    state = GetBit.new(setup)
    rounds: list[Mapping[str, int]] = []
    results: list[RoundResult] = []
    for i, item in enumerate(data.lst(raw.get("rounds", []), "rounds")):
        here = data.at("rounds", i)
        if state.over:
            raise data.fail(
                here, f"the game is already over ({state.winner} won in round {state.rounds})"
            )
        cards = read_cards(item, here)
        state, result = play_at(state, cards, here)
        rounds.append(cards)
        results.append(result)
    return Replay(setup, tuple(rounds), tuple(results), state)


def _halves(value: object, path: str, longer: bool) -> int:
    limbs = data.number(value, path, 0)
    halves = limbs * HALVES_PER_LIMB
    if not halves.is_integer() or (not longer and limbs != int(limbs)):
        step = "a half" if longer else "a whole number"
        raise data.fail(path, f"limbs go by {step}, not {value}")
    if limbs > START_LIMBS:
        raise data.fail(path, f"a robot has at most {START_LIMBS} limbs, not {value}")
    return int(halves)


def _cards(value: object, path: str, full: tuple[int, ...]) -> tuple[int, ...]:
    cards = tuple(
        data.integer(c, data.at(path, i), 1, full[-1]) for i, c in enumerate(data.lst(value, path))
    )
    if len(set(cards)) != len(cards):
        raise data.fail(path, "a card is listed twice")
    return cards


def state_from_dict(value: object) -> GetBit:
    """Read :meth:`GetBit.to_dict` back, checking that hands, line and limbs agree."""
    raw = data.obj(
        value,
        data.ROOT,
        required=("setup", "round", "line", "limbs", "hands", "played", "out", "winner"),
    )
    setup = setup_from_dict(raw["setup"], "setup")
    robots = tuple(setup.robots)
    rounds = data.integer(raw["round"], "round", 0)

    def per_robot(key: str) -> dict[str, Any]:
        value = data.mapping(raw[key], key)
        for robot in value:
            if robot not in setup.robots:
                raise data.fail(data.at(key, robot), f"not a robot of this game: {robot!r}")
        for robot in robots:
            if robot not in value:
                raise data.fail(key, f"missing robot {robot!r}")
        return value

    limbs = per_robot("limbs")
    halves = {r: _halves(limbs[r], data.at("limbs", r), setup.longer_games) for r in robots}
    hand_raw, played_raw = per_robot("hands"), per_robot("played")
    hands: dict[str, tuple[int, ...]] = {}
    played: dict[str, tuple[int, ...]] = {}
    for r in robots:
        hands[r] = tuple(sorted(_cards(hand_raw[r], data.at("hands", r), setup.full_hand)))
        played[r] = _cards(played_raw[r], data.at("played", r), setup.full_hand)
        if sorted((*hands[r], *played[r])) != list(setup.full_hand):
            raise data.fail(
                data.at("hands", r), "hand and played cards must make the full hand, once each"
            )
    out = tuple(
        data.name(r, data.at("out", i), "robot") for i, r in enumerate(data.lst(raw["out"], "out"))
    )
    line = tuple(
        data.name(r, data.at("line", i), "robot")
        for i, r in enumerate(data.lst(raw["line"], "line"))
    )
    for i, r in enumerate(out):
        if r not in setup.robots or r in out[:i]:
            raise data.fail(data.at("out", i), f"not a robot still to go out: {r!r}")
        if halves[r] != 0:
            raise data.fail(data.at("limbs", r), f"{r} is out, so it has 0 limbs")
    if sorted(line) != sorted(r for r in robots if r not in out):
        raise data.fail("line", "the line holds every robot not out, once each")
    for r in line:
        if halves[r] == 0:
            raise data.fail(data.at("limbs", r), f"{r} is in the line, so it has limbs left")
    winner = raw["winner"]
    if winner is not None:
        winner = data.name(winner, "winner", "player")
        if winner not in setup.players:
            raise data.fail("winner", f"not a player of this game: {winner!r}")
    return GetBit(setup, rounds, line, halves, hands, played, out, winner)
