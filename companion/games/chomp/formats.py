"""CHOMP!'s JSON readers: a round to judge, a game to replay (docs/formats.md shapes).

Beside the rules (:mod:`companion.games.chomp`) and apart from them, so the engine reads
as rules only.  Every error names its JSON path; a replayed game is checked round by
round against the game as it stands (who is still in, how many cards they show).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion import data
from companion.errors import RuleError
from companion.games.chomp import (
    CARD_NAMES,
    DEFAULT_TIE_WINDOW_US,
    END_NAMES,
    MODE_NAMES,
    OUTCOME_NAMES,
    ChompGame,
    Hand,
    Mode,
    Outcome,
    Round,
    RoundResult,
    Slap,
    Verdict,
    judge,
    player_range,
)


def _read_hand(value: object, path: str, mode: Mode) -> Hand:
    if mode is Mode.DOUBLE_CHOMP:
        items = data.lst(value, path)
        if not 1 <= len(items) <= 2:
            raise data.fail(path, f"double_chomp shows two cards per player, got {len(items)}")
        return tuple(
            data.choice(v, data.at(path, i), CARD_NAMES, "card") for i, v in enumerate(items)
        )
    if isinstance(value, list):
        raise data.fail(path, f"{mode} shows one card per player, not a list")
    return (data.choice(value, path, CARD_NAMES, "card"),)


def _read_cards(value: object, path: str, mode: Mode) -> dict[str, Hand]:
    raw = data.mapping(value, path)
    if not raw:
        raise data.fail(path, "no cards in this round")
    cards = {}
    for player, hand in raw.items():
        data.name(player, data.at(path, player), "player")
        cards[player] = _read_hand(hand, data.at(path, player), mode)
    return cards


def _read_slaps(value: object, path: str, cards: Mapping[str, Hand]) -> tuple[Slap, ...]:
    slaps = []
    for i, item in enumerate(data.lst(value, path)):
        here = data.at(path, i)
        raw = data.obj(item, here, required=("player", "t_us"))
        player = data.name(raw["player"], data.at(here, "player"), "player")
        if player not in cards:
            raise data.fail(data.at(here, "player"), f"{player!r} has no card in this round")
        slaps.append(Slap(player, data.integer(raw["t_us"], data.at(here, "t_us"))))
    return tuple(slaps)


def _read_round(raw: dict[str, Any], path: str, mode: Mode) -> Round:
    cards = _read_cards(raw["cards"], data.at(path, "cards"), mode)
    slaps = _read_slaps(raw.get("slaps", []), data.at(path, "slaps"), cards)
    return Round(cards, slaps)


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    mode: Mode
    round: Round
    tie_window_us: int
    previous: Outcome | None

    def verdict(self) -> Verdict:
        return judge(
            self.mode, self.round.cards, self.round.slaps, self.tie_window_us, self.previous
        )


def judge_request_from_dict(value: object) -> JudgeRequest:
    """Read a round as ``companion chomp judge`` takes it."""
    raw = data.obj(
        value,
        data.ROOT,
        required=("cards",),
        optional=("mode", "slaps", "tie_window_us", "previous"),
    )
    mode = data.choice(raw.get("mode", "standard"), "mode", MODE_NAMES, "mode")
    rnd = _read_round(raw, data.ROOT, mode)
    low, high = player_range(mode)
    if not low <= len(rnd.cards) <= high:
        raise data.fail(
            "cards",
            f"{mode} is played by {low} players, got {len(rnd.cards)}"
            if low == high
            else f"{mode} needs {low} or more players, got {len(rnd.cards)}",
        )
    window = data.integer(raw.get("tie_window_us", DEFAULT_TIE_WINDOW_US), "tie_window_us", 0)
    previous = raw.get("previous")
    if previous is not None:
        previous = data.choice(previous, "previous", OUTCOME_NAMES, "outcome")
    return JudgeRequest(mode, rnd, window, previous)


@dataclass(frozen=True, slots=True)
class Replay:
    """A game replayed round by round: the final state and every round's result."""

    game: ChompGame
    results: tuple[RoundResult, ...]

    def to_dict(self) -> dict[str, Any]:
        return {**self.game.to_dict(), "rounds": [r.verdict.to_dict() for r in self.results]}


def replay_from_dict(value: object) -> Replay:
    """Read a game as ``companion chomp replay`` takes it and play it.

    Each round is checked against the game as it stands at that round (who is still in,
    how many cards they turn over), so reading and playing are one pass.
    """
    raw = data.obj(
        value,
        data.ROOT,
        required=("players",),
        optional=("mode", "two_player_end", "tie_window_us", "deal", "rounds"),
    )
    players = [
        data.name(p, data.at("players", i), "player")
        for i, p in enumerate(data.lst(raw["players"], "players"))
    ]
    for i, p in enumerate(players):
        if p in players[:i]:
            raise data.fail(data.at("players", i), f"{p!r} is named twice")
    mode = data.choice(raw.get("mode", "standard"), "mode", MODE_NAMES, "mode")
    end = data.choice(
        raw.get("two_player_end", "count"), "two_player_end", END_NAMES, "two_player_end"
    )
    window = data.integer(raw.get("tie_window_us", DEFAULT_TIE_WINDOW_US), "tie_window_us", 0)
    deal = None
    if "deal" in raw:
        deal = {}
        for player, n in data.mapping(raw["deal"], "deal").items():
            if player not in players:
                raise data.fail(data.at("deal", player), f"unknown player {player!r}")
            deal[player] = data.integer(n, data.at("deal", player), 1)
        for player in players:
            if player not in deal:
                raise data.fail("deal", f"no count for {player!r}")
    try:
        game = ChompGame.new(players, mode, end, window, deal)
    except RuleError as exc:
        raise data.fail("players" if deal is None else "deal", str(exc)) from None
    results = []
    for i, item in enumerate(data.lst(raw.get("rounds", []), "rounds")):
        here = data.at("rounds", i)
        if game.over:
            raise data.fail(here, "the game is already over: no more rounds")
        fields = data.obj(item, here, required=("cards",), optional=("slaps",))
        rnd = _read_round(fields, here, game.mode)
        game.check_round(rnd, here)
        results.append(game.play(rnd))
    return Replay(game, tuple(results))
