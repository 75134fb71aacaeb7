"""One playout suite for both turn-based engines (Food Chain, The Great Chips Escape).

Each engine is a :class:`companion.games.turns.TurnGame`; the same properties hold for
both, for any seed and any number of players: a random game ends within its engine's
bound (for Food Chain that is ruling F11), and after every move the state is whole (every
card in exactly one place), reads back from plain data as it was, offers only actions it
accepts and refuses the others without changing anything.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import RuleError
from companion.games import chips, foodchain
from companion.games.turns import PlayoutLimit, TurnGame, random_playout, uniform

ROOT = Path(__file__).resolve().parent.parent
CATALOG = foodchain.catalog_from_dict(
    json.loads((ROOT / "examples" / "foodchain-catalog.example.json").read_text("utf-8"))
)
NAMES = ("ann", "bob", "cat", "dan", "eve", "fay", "gus")


@dataclass(frozen=True)
class Engine:
    name: str
    seats: tuple[int, int]
    bound: int  # moves within which every random game ends
    deal: Callable[[tuple[str, ...], random.Random], TurnGame[Any]]
    read: Callable[[dict[str, Any]], TurnGame[Any]]


ENGINES = [
    # Food Chain: 52 cards, and F11 ends the game a round after the deck runs out; 400
    # seeded games of 2-4 players with every mix of passing took at most 73 moves.
    Engine(
        "foodchain",
        (2, 4),
        400,
        lambda players, rng: foodchain.FoodChainState.deal(CATALOG, players, rng),
        lambda d: foodchain.state_from_dict(d, CATALOG),
    ),
    # Chips ends when a hand is empty or one player is left; the deck is reshuffled, so
    # the bound is looser.
    Engine(
        "chips",
        (2, 7),
        5000,
        lambda players, rng: chips.ChipsState.deal(players, rng),
        chips.state_from_dict,
    ),
]


def game(engine: Engine, seed: int, players: int) -> tuple[TurnGame[Any], random.Random]:
    rng = random.Random(seed)
    low, high = engine.seats
    return engine.deal(NAMES[: low + players % (high - low + 1)], rng), rng


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.name)
@settings(max_examples=examples(15), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(0, 5))
def test_every_random_game_ends_within_its_bound(engine: Engine, seed: int, players: int) -> None:
    state, rng = game(engine, seed, players)
    moves = random_playout(state, rng, engine.bound)
    assert state.over and state.legal_actions() == [] and moves <= engine.bound


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.name)
def test_every_move_keeps_the_state_whole_and_readable(engine: Engine) -> None:
    def check(state: TurnGame[Any], _action: object) -> None:
        assert state.misplaced() == []
        assert engine.read(state.to_dict()).to_dict() == state.to_dict()
        assert state.clone().to_dict() == state.to_dict()

    for seed in range(3):
        state, rng = game(engine, seed, seed)
        check(state, None)
        random_playout(state, rng, engine.bound, each=check)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.name)
def test_offered_actions_are_accepted_and_the_others_refused_unchanged(engine: Engine) -> None:
    seen: list[Any] = []
    for seed in range(4):
        state, rng = game(engine, 100 + seed, seed)
        while not state.over:
            offered = state.legal_actions()
            assert offered and all(state.why_not(a) is None for a in offered)
            before = state.to_dict()
            for other in rng.sample(seen, min(len(seen), 5)):
                if other in offered:
                    continue
                assert state.why_not(other) is not None
                with pytest.raises(RuleError):
                    state.apply(other, rng)
                assert state.to_dict() == before
            action = uniform(offered, rng)
            seen.append(action)
            state.apply(action, rng)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.name)
def test_a_finished_game_offers_nothing_and_refuses_everything(engine: Engine) -> None:
    state, rng = game(engine, 7, 1)
    played: list[Any] = []
    random_playout(state, rng, engine.bound, each=lambda _s, a: played.append(a))
    before = state.to_dict()
    assert state.legal_actions() == []
    for action in played[-10:]:
        assert state.why_not(action) is not None
        with pytest.raises(RuleError):
            state.apply(action, rng)
    assert state.to_dict() == before


def test_a_playout_past_its_bound_says_so() -> None:
    state, rng = game(ENGINES[1], 1, 0)
    with pytest.raises(PlayoutLimit, match="did not end within 3 moves"):
        random_playout(state, rng, 3)
