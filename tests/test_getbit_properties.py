"""Property tests for the Get Bit! engine over random whole games, every player count 2-6
and both variants: the cards, the bites, the line, the end, and the plain-data round trips
(rulings G1-G7, formats.md)."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.getbit import (
    HALVES_PER_LIMB,
    START_LIMBS,
    GetBit,
    PlayError,
    RoundResult,
    Setup,
    default_robots,
    move,
    random_line,
    replay,
)
from companion.games.getbit.formats import replay_from_dict, state_from_dict
from companion.games.getbit.text import round_lines, table_lines

NAMES = ("ann", "bob", "cat", "dan", "eve", "fay")
MAX_ROUNDS = 1 + 6 * START_LIMBS * HALVES_PER_LIMB  # every round after the first bites


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    players = NAMES[: draw(st.integers(2, 6))]
    robots = default_robots(players)
    rng = random.Random(draw(st.integers(0, 2**32)))
    size = 5 if len(robots) == 4 else 6 if len(robots) == 5 else 7
    return Setup(
        robots,
        random_line(robots, rng),
        longer_games=draw(st.booleans()),
        memory=draw(st.booleans()),
        pickup_at=draw(st.one_of(st.just(1), st.integers(0, size - 1))),
    )


def play_out(setup: Setup, seed: int) -> tuple[list[GetBit], list[RoundResult]]:
    """A whole random game: every robot plays a random card from its hand."""
    rng = random.Random(seed)
    states = [GetBit.new(setup)]
    results: list[RoundResult] = []
    while not states[-1].over:
        state = states[-1]
        assert len(results) < MAX_ROUNDS, "the game never ended"
        cards = {r: rng.choice(state.hands[r]) for r in state.line}
        nxt, result = state.play(cards)
        states.append(nxt)
        results.append(result)
    return states, results


@settings(max_examples=examples(100), deadline=None)
@given(setups(), st.integers(0, 2**32))
def test_hand_plus_played_cards_is_always_the_full_hand(setup: Setup, seed: int) -> None:
    states, _ = play_out(setup, seed)
    for state in states:
        for robot in setup.robots:
            assert sorted(state.hands[robot] + state.played[robot]) == list(setup.full_hand)
            assert list(state.hands[robot]) == sorted(state.hands[robot])


@settings(max_examples=examples(100), deadline=None)
@given(setups(), st.integers(0, 2**32))
def test_exactly_one_bite_per_round_after_the_first_until_the_end(setup: Setup, seed: int) -> None:
    states, results = play_out(setup, seed)
    assert results[0].bitten is None
    assert all(s.halves == states[0].halves for s in states[:2])
    bite = 1 if setup.longer_games else HALVES_PER_LIMB
    for before, after, result in zip(states[1:-1], states[2:], results[1:], strict=True):
        bitten = result.bitten
        assert bitten is not None
        assert bitten == move(before.line, result.cards)[0][-1]  # the back after the move
        assert after.halves[bitten] == max(0, before.halves[bitten] - bite)
        assert after.hands[bitten] == setup.full_hand
        others = [r for r in setup.robots if r not in (bitten, result.eaten)]
        assert all(before.halves[r] == after.halves[r] for r in others)  # one bite only
        if bitten not in after.out:
            assert after.line[0] == bitten
    assert states[-1].over and not any(s.over for s in states[:-1])


@pytest.mark.slow
@settings(max_examples=examples(100), deadline=None)
@given(setups(), st.integers(0, 2**32))
def test_the_line_holds_every_robot_still_in_play_exactly_once(setup: Setup, seed: int) -> None:
    states, _ = play_out(setup, seed)
    for state in states:
        assert Counter(state.line) == Counter(r for r in setup.robots if r not in state.out)
        assert len(set(state.out)) == len(state.out)
        assert all(state.halves[r] > 0 for r in state.line)
        assert all(state.halves[r] == 0 for r in state.out)


@settings(max_examples=examples(100), deadline=None)
@given(setups(), st.integers(0, 2**32))
def test_every_game_ends_as_g5_says(setup: Setup, seed: int) -> None:
    states, results = play_out(setup, seed)
    end, last = states[-1], results[-1]
    if len(setup.players) >= 4:
        assert len(end.line) == 1 and end.winner == setup.robots[end.line[0]]
        assert len(end.out) == len(setup.robots) - 1
        assert last.eaten == end.out[-1] and last.out[-1] == last.eaten
    else:
        assert len(end.out) == 1 and last.eaten is None
        loser = setup.robots[end.out[0]]
        assert end.winner != loser
        front = next(r for r in end.line if setup.robots[r] != loser)
        assert end.winner == setup.robots[front]


@settings(max_examples=examples(40), deadline=None)
@given(setups(), st.integers(0, 2**32))
def test_state_and_replay_round_trip_through_json(setup: Setup, seed: int) -> None:
    states, results = play_out(setup, seed)
    for state in states:
        assert state_from_dict(json.loads(json.dumps(state.to_dict()))) == state
    rounds = [r.cards for r in results]
    game = replay(setup, rounds)
    again = replay_from_dict(json.loads(json.dumps(game.game_dict())))
    assert again.state == states[-1] and again.results == tuple(results)
    assert json.loads(json.dumps(again.to_dict())) == game.to_dict()


@settings(max_examples=examples(60), deadline=None)
@given(setups(), st.integers(0, 2**32), st.data())
def test_an_illegal_card_changes_nothing(setup: Setup, seed: int, data: st.DataObject) -> None:
    states, _ = play_out(setup, seed)
    state = data.draw(st.sampled_from(states[:-1]))
    robot = data.draw(st.sampled_from(state.line))
    missing = [c for c in range(0, setup.hand_size + 2) if c not in state.hands[robot]]
    card = data.draw(st.sampled_from(missing))
    cards = {r: state.hands[r][0] for r in state.line} | {robot: card}
    before = state.to_dict()
    try:
        state.play(cards)
    except PlayError as exc:
        assert (exc.round_no, exc.robot, exc.card) == (state.rounds + 1, robot, card)
        assert f"round {state.rounds + 1}: {robot} cannot play {card}" in str(exc)
    else:
        raise AssertionError("an illegal card was accepted")
    assert state.to_dict() == before


@settings(max_examples=examples(40), deadline=None)
@given(setups(), st.integers(0, 2**32))
def test_memory_display_never_shows_a_card_number(setup: Setup, seed: int) -> None:
    states, results = play_out(replace(setup, memory=True), seed)
    for state, result in zip(states[1:], results, strict=True):
        for line in table_lines(state):
            assert "hand " not in line or "cards," in line
        assert "played face down" in "\n".join(table_lines(state)) or state.over
        assert round_lines(result, state)[0] == f"Round {result.number}: cards revealed"
        assert not any(f"({c})" in "\n".join(round_lines(result, state)) for c in range(1, 8))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("longer_games", [False, True])
@pytest.mark.parametrize("memory", [False, True])
def test_seeded_games_to_the_end_for_every_player_count_and_variant(
    players: int, longer_games: bool, memory: bool
) -> None:
    """Not left to chance: every player count with every variant, ten games each."""
    robots = default_robots(NAMES[:players])
    for seed in range(10):
        line = random_line(robots, random.Random(seed))
        setup = Setup(robots, line, longer_games, memory)
        states, results = play_out(setup, seed)
        assert results[0].bitten is None and all(r.bitten for r in results[1:])
        for state in states:
            assert Counter(state.line) == Counter(r for r in robots if r not in state.out)
            for robot in robots:
                assert sorted(state.hands[robot] + state.played[robot]) == list(setup.full_hand)
        assert states[-1].winner in setup.players
