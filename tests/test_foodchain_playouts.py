"""Food Chain: whole games played at random reach the end without breaking an invariant.

After every move: each of the 52 cards is in exactly one place, each colour's four tokens
are held or on the table, the forest is well formed, and every action offered is legal
while actions not offered are refused without changing anything. The properties both
turn-based engines share (every game ends, round trips) are in test_turn_games.py.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError, RuleError
from companion.games.foodchain import (
    HAND_SIZE,
    TOKENS_PER_PLAYER,
    Action,
    BackOff,
    Bonus,
    Catalog,
    Eat,
    FoodChainState,
    Hunt,
    Pass,
    Switch,
    action_from_dict,
    action_to_dict,
    catalog_from_dict,
    chains_wanted,
    score,
    score_optional,
)

ROOT = Path(__file__).resolve().parent.parent
CATALOG = catalog_from_dict(
    json.loads((ROOT / "examples" / "foodchain-catalog.example.json").read_text("utf-8"))
)
NAMES = ("ann", "bob", "cat", "dan")
MAX_MOVES = 2000


def check_invariants(state: FoodChainState, catalog: Catalog) -> None:
    assert state.all_cards() == Counter(catalog.card_ids())  # nothing created or lost
    assert state.tokens_by_colour() == Counter(dict.fromkeys(state.players, TOKENS_PER_PLAYER))
    assert all(n >= 0 for held in state.supply.values() for n in held.values())
    assert set(state.on) == set(state.token)
    assert all(state.root(card) in state.chains for card in state.on)
    assert all(state.kind(root).bonus is None for root in state.chains)
    assert len(state.chains) <= chains_wanted(len(state.players))
    assert all(len(hand) <= HAND_SIZE for hand in state.hands.values())


def play(state: FoodChainState, rng: random.Random, eager: float) -> int:
    """Random legal moves to the end; ``eager`` is how often to avoid passing."""
    for moves in range(MAX_MOVES):
        actions = state.legal_actions()
        if not actions:
            assert state.over
            return moves
        busy = [a for a in actions if not isinstance(a, Pass)]
        action = rng.choice(busy if busy and rng.random() < eager else actions)
        assert state.why_not(action) is None
        state.apply(action)
        check_invariants(state, state.catalog)
        assert state.over == (not state.deck and not can_act(state))  # F11, exactly
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("eager", [0.0, 0.9])
def test_foodchain_random_games_end_and_keep_every_card_and_token(
    players: int, eager: float
) -> None:
    seen: Counter[str] = Counter()
    for seed in range(15):
        rng = random.Random(seed * 10 + players)
        state = FoodChainState.deal(CATALOG, NAMES[:players], rng)
        check_invariants(state, CATALOG)
        play(state, rng, eager)
        assert state.over and not state.deck
        for p in state.players:
            seen["eaten"] += len(state.food[p])
        scores = score(state.tally())
        assert sum(s.tokens for s in scores.values()) == TOKENS_PER_PLAYER * players
        assert sum(s.total for s in scores.values()) == TOKENS_PER_PLAYER * players + sum(
            CATALOG.kind(c).points for p in state.players for c in state.food[p]
        )
        optional = score_optional(state.tally(), random.Random(seed))
        kept = sum(s.eaten_points + s.taken_points for s in optional.values())
        assert kept == sum(s.eaten_points for s in scores.values())  # cards only move
    if eager:
        assert seen["eaten"] > 0


def candidates(state: FoodChainState) -> list[Action]:
    """Every action shape on the cards at hand, legal or not."""
    hand = state.hands[state.current]
    forest = state.forest()
    found: list[Action] = [Pass(None), *(Pass(c) for c in hand)]
    for card in hand:
        found += [Hunt(card, t) for t in forest] + [Switch(card, t) for t in forest]
    for card in forest:
        found += [Eat(card), BackOff(card)]
    return found


@pytest.mark.slow
def test_foodchain_offered_actions_are_exactly_the_legal_ones() -> None:
    rng = random.Random(5)
    for game in range(6):
        state = FoodChainState.deal(CATALOG, NAMES[: 2 + game % 3], rng)
        while not state.over:
            legal = set(state.legal_actions())
            for action in candidates(state):
                if action in legal:
                    assert state.why_not(action) is None
                    continue
                before = state.to_dict()
                with pytest.raises(RuleError):
                    state.apply(action)
                assert state.to_dict() == before
            busy = [a for a in legal if not isinstance(a, Pass)]
            state.apply(rng.choice(sorted(busy or legal, key=repr)))


def test_foodchain_actions_round_trip_through_plain_data() -> None:
    kinds: set[str] = set()
    for seed in range(4):
        rng = random.Random(seed)
        state = FoodChainState.deal(CATALOG, NAMES[:4], rng)
        while not state.over:
            for action in state.legal_actions():
                doc = json.loads(json.dumps(action_to_dict(action)))
                kinds.add(doc["action"])
                assert action_from_dict(doc) == action
            busy = [a for a in state.legal_actions() if not isinstance(a, Pass)]
            state.apply(rng.choice(busy or state.legal_actions()))
    assert kinds == {"hunt", "eat", "back_off", "switch", "pass"}
    with pytest.raises(InputError, match="action: expected one of"):
        action_from_dict({"action": "fly"})
    with pytest.raises(InputError, match="missing key 'target'"):
        action_from_dict({"action": "hunt", "card": "fox#1"})


def can_act(state: FoodChainState) -> bool:
    """Someone has an action other than passing, worked out here from F1-F8 rather than
    asked of the engine: a hunt from hand, or a free predator of her own to move."""
    forest = state.forest()
    free = [c for c in forest if state.is_free(c)]
    for p in state.players:
        held = state.supply[p][p] > 0
        for card in state.hands[p]:
            bonus = state.kind(card).bonus
            if bonus is Bonus.SWARM and any(not state.kind(t).is_plant for t in free):
                return True
            if bonus is Bonus.HUNTSMAN and held and forest:
                return True
            if held and any(CATALOG.preys_on(card, t) for t in forest):
                return True
        if any(state.token.get(c) == p for c in free):
            return True  # she could at least back it off
    return False


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]))
def test_f11_rounds_of_passes_never_end_the_game_while_a_predator_stands(
    seed: int, players: int
) -> None:
    # Players who only pass empty their hands (the deck runs out, then each pass discards
    # without drawing); the predators they hunted with stay, so the game is never over:
    # F11 ends it only when nobody can do anything but pass. One back off or eat at a
    # time then ends it.
    rng = random.Random(seed)
    state = FoodChainState.deal(CATALOG, NAMES[:players], rng)
    for _ in range(HAND_SIZE * players // 2):  # a few hunts first, so predators stand
        hunts = [a for a in state.legal_actions() if isinstance(a, Hunt)]
        state.apply(rng.choice(hunts or state.legal_actions()))
    stood = set(state.on)
    for _ in range(len(state.deck) + (HAND_SIZE + 3) * players):
        if state.over:
            break
        state.apply(next(a for a in state.legal_actions() if isinstance(a, Pass)))
    assert set(state.on) == stood and state.over == (not stood and not can_act(state))
    for _ in range(MAX_MOVES):
        if state.over:
            break
        busy = [a for a in state.legal_actions() if not isinstance(a, Pass)]
        state.apply(busy[0] if busy else Pass(None))
    assert state.over and not state.on and not can_act(state)
    check_invariants(state, CATALOG)
