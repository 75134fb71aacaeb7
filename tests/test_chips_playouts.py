"""The Great Chips Escape: whole games played at random, every player count from 2 to 7.

After every move no escape card and no fish-or-chips card is created or lost, and the
table helper (:class:`ChipsTable`), told only what the players would announce, sees the
same table as the full engine: whose turn, who must act, the top card, every count. The
properties both turn-based engines share (every game ends, round trips) are in
test_turn_games.py.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.errors import RuleError
from companion.games.chips import (
    Action,
    ChipsState,
    ChipsStep,
    ChipsTable,
    Choose,
    Decline,
    Discard,
    Draw,
    FishCard,
    FishKind,
    Knight,
    PassTurn,
    RevealFish,
    Spy,
    StopTriple,
)

MAX_MOVES = 5000


def announce(
    table: ChipsTable, revealed: FishCard | None, action: Action, after: ChipsState
) -> None:
    """Tell the helper what the table would hear, then answer its questions the way the
    engine decided (only a hand could tell: does she hold a Golden Knight? can she go
    on?)."""
    if isinstance(action, Discard):
        table.discard_card(after.escape[action.card])
    elif isinstance(action, Draw):
        table.draw()
    elif revealed is not None:
        if revealed.kind is FishKind.MAD_FISH:
            table.reveal_mad_fish(revealed.draw)
        else:
            table.reveal_heroes()
    elif isinstance(action, Knight):
        table.knight()
    elif isinstance(action, Decline):
        table.decline()
    elif isinstance(action, StopTriple):
        table.stop()
    elif isinstance(action, Spy):
        table.spy(action.target)
    elif isinstance(action, Choose):
        table.choose(action.player)
    else:
        table.pass_turn()
    while table.pending is not None and (
        after.pending is None
        or after.pending.step is not table.pending.step
        or after.actor != table.pending.player
    ):
        if table.pending.step is ChipsStep.KNIGHT:
            table.decline()
        else:
            table.stop()


def check_cards(state: ChipsState) -> None:
    """Every card in exactly one place (as many places as cards, and all of them)."""
    escape, fish = [*state.deck, *state.discard], list(state.box)
    for p in state.players:
        escape += state.hands[p] + [knight for _, knight in state.covered[p]]
        fish += state.down[p] + state.up[p] + [mad for mad, _ in state.covered[p]]
    assert len(escape) == len(state.escape) and set(escape) == state.escape.keys()
    assert len(fish) == len(state.fish) and set(fish) == state.fish.keys()
    assert all(set(state.fresh[p]) <= set(state.hands[p]) for p in state.players)
    assert all(not state.hands[p] and not state.down[p] for p in state.out)


def play(seed: int, players: int, reveal_rate: float) -> tuple[ChipsState, Counter[str]]:
    """A seeded random game; ``reveal_rate`` is how often a reveal is preferred."""
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(players)]
    first = names[seed % players]
    state = ChipsState.deal(names, rng, first=first)
    table = ChipsTable.new(names, first=first)
    table.start(state.top)
    seen: Counter[str] = Counter()
    for _ in range(MAX_MOVES):
        if state.over:
            return state, seen
        actions = state.legal_actions()
        reveals = [a for a in actions if isinstance(a, RevealFish)]
        others = [a for a in actions if not isinstance(a, RevealFish)] or actions
        pool = reveals if reveals and rng.random() < reveal_rate else others
        action = rng.choice(pool)
        revealed = None
        if isinstance(action, RevealFish):
            revealed = state.fish[state.down[state.actor][action.position]]
        deck = len(state.deck)
        state.apply(action, rng)
        announce(table, revealed, action, state)
        check_cards(state)
        assert state.public() == table.public()
        seen[type(action).__name__] += 1
        if state.pending is not None:
            seen[str(state.pending.step)] += 1
        if len(state.deck) > deck + 1:
            seen["reshuffle"] += 1
        if sum(len(state.down[p]) for p in state.active) == len(state.active) * 5 and deck:
            seen["full fish"] += 1
    raise AssertionError(f"seed {seed}: no end after {MAX_MOVES} moves")


@pytest.mark.parametrize("players", range(2, 8))
def test_chips_random_games_end_keep_every_card_and_the_helper_agrees(players: int) -> None:
    ends: Counter[str] = Counter()
    for seed in range(12):
        state, _ = play(seed * 7 + players, players, 0.3 if seed % 2 else 0.05)
        ends["out" if len(state.out) == players - 1 else "last card"] += 1
        assert state.winner in state.active
    assert ends["last card"] > 0


def test_chips_random_games_reach_every_step_and_rule() -> None:
    seen: Counter[str] = Counter()
    ends: Counter[str] = Counter()
    for seed in range(40):
        state, found = play(seed, 2 + seed % 6, 0.15)
        seen.update(found)
        ends["eliminated" if state.out else "last card"] += 1
    for step in ChipsStep:
        assert seen[str(step)] > 0, step
    for name in (
        "Discard",
        "Draw",
        "RevealFish",
        "Knight",
        "Decline",
        "StopTriple",
        "Spy",
        "Choose",
    ):
        assert seen[name] > 0, name
    assert seen["reshuffle"] > 0 and ends["eliminated"] > 0 and ends["last card"] > 0


def test_chips_all_fish_revealed_in_play_are_dealt_again() -> None:
    # Reveal whenever possible, cover every Mad Fish: the cards run out and are dealt again.
    redeals = 0
    for seed in range(10):
        rng = random.Random(seed)
        state = ChipsState.deal(["ann", "bob", "cat"], rng)
        while not state.over:
            actions = state.legal_actions()
            reveals = [a for a in actions if isinstance(a, RevealFish)]
            knights = [a for a in actions if isinstance(a, Knight)]
            left = sum(len(state.down[p]) for p in state.active)
            state.apply((knights or reveals or actions)[0], rng)
            check_cards(state)
            if left <= 1 and all(len(state.down[p]) == 5 for p in state.active):
                redeals += 1
                assert all(state.mad_fish(p) == 0 and not state.covered[p] for p in state.players)
    assert redeals > 0


def test_chips_offered_actions_are_legal_and_others_are_refused() -> None:
    rng = random.Random(3)
    state = ChipsState.deal(["ann", "bob", "cat"], rng)
    everything = list(state.escape)
    for _ in range(150):
        if state.over:
            break
        legal = state.legal_actions()
        assert all(state.why_not(a) is None for a in legal)
        probes: list[Action] = [
            Draw(),
            PassTurn(),
            StopTriple(),
            Decline(),
            RevealFish(0),
            RevealFish(9),
        ]
        probes += [Discard(c) for c in rng.sample(everything, 12)]
        probes += [Choose(p) for p in state.players] + [Spy(p) for p in state.players]
        for action in probes:
            if action in legal:
                continue
            before = state.to_dict()
            with pytest.raises(RuleError):
                state.apply(action, rng)
            assert state.to_dict() == before
        state.apply(rng.choice(legal), rng)
