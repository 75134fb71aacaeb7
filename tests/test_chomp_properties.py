"""Property tests for the CHOMP! engine: order independence of a round's slaps (C5, C7),
the shape of every verdict, card conservation over whole random games (C13, C15, C16) and
the JSON round trip of ``companion chomp replay`` (formats.md)."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.chomp import (
    DECK_COMPOSITION,
    DECK_SIZE,
    FOOD_CHAIN,
    Card,
    ChompTable,
    Hand,
    Mode,
    Outcome,
    Slap,
    TwoPlayerEnd,
    Verdict,
    judge,
)
from companion.games.chomp.formats import judge_request_from_dict, replay_from_dict

NAMES = ("ann", "bob", "cat", "dan", "eve", "fay")
SET_ASIDE_OUTCOMES = {Outcome.TIE, Outcome.INK_OUT, Outcome.ALL_SAME, Outcome.WAR}

# Chain cards weighted up so that normal rounds (C8) are common next to eel and octopus.
cards_st = st.sampled_from([*FOOD_CHAIN, *FOOD_CHAIN, *FOOD_CHAIN, Card.OCTOPUS, Card.ELECTRIC_EEL])
# Small stamps collide and tie often; wide ones cover false starts and late presses.
t_us_st = st.one_of(st.integers(-60, 60), st.integers(-5_000, 20_000))
window_st = st.one_of(st.just(0), st.integers(0, 100), st.integers(0, 5_000))
previous_st = st.one_of(st.none(), st.sampled_from(list(Outcome)))


@dataclass(frozen=True)
class RoundCase:
    """One round to judge, as ``judge()`` takes it."""

    mode: Mode
    cards: dict[str, Hand]
    slaps: list[Slap]
    window: int
    previous: Outcome | None

    def verdict(self, slaps: Sequence[Slap] | None = None) -> Verdict:
        chosen = self.slaps if slaps is None else slaps
        return judge(self.mode, self.cards, chosen, self.window, self.previous)


@st.composite
def round_cases(draw: st.DrawFn) -> RoundCase:
    mode = draw(st.sampled_from(list(Mode)))
    seats = NAMES[: draw(st.integers(3, 6))] if mode is Mode.STANDARD else NAMES[:2]
    size = 2 if mode is Mode.DOUBLE_CHOMP else 1
    cards = {p: tuple(draw(st.lists(cards_st, min_size=size, max_size=size))) for p in seats}
    slaps = draw(st.lists(st.builds(Slap, st.sampled_from(seats), t_us_st), max_size=8))
    return RoundCase(mode, cards, slaps, draw(window_st), draw(previous_st))


# --------------------------------------------------------------------------------------
# One round
# --------------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=examples(400), deadline=None)
@given(case=round_cases(), data=st.data())
def test_verdict_ignores_slap_order_and_later_presses(case: RoundCase, data: st.DataObject) -> None:
    expected = case.verdict()
    again: list[Slap] = []
    if case.slaps:
        # C7: only a player's first press counts, so more presses no earlier than one she
        # already made change nothing.
        for player, t_us in data.draw(st.lists(st.sampled_from(case.slaps), max_size=6)):
            again.append(Slap(player, t_us + data.draw(st.integers(0, 10_000))))
    arrival = data.draw(st.permutations([*case.slaps, *again]))
    assert case.verdict(arrival) == expected


@pytest.mark.slow
@settings(max_examples=examples(400), deadline=None)
@given(case=round_cases())
def test_verdict_structure_invariants(case: RoundCase) -> None:
    v = case.verdict()
    seats = list(case.cards)
    pressed = {s.player for s in case.slaps}
    for group in (v.bad_chomps, v.chomped, v.returned):
        assert len(set(group)) == len(group)
        assert set(group) <= set(seats)
    assert set(v.bad_chomps) <= pressed
    assert not set(v.chomped) & set(v.returned)
    # chomped and returned are listed in seat order
    assert list(v.chomped) == [p for p in seats if p in v.chomped]
    assert list(v.returned) == [p for p in seats if p in v.returned]
    # bad_chomps earliest first (by each player's first press)
    first = {p: min(t for q, t in case.slaps if q == p) for p in pressed}
    assert [first[p] for p in v.bad_chomps] == sorted(first[p] for p in v.bad_chomps)

    assert v.set_aside == (v.outcome in SET_ASIDE_OUTCOMES)
    assert (v.outcome is Outcome.WIN) == (v.winner is not None)
    if v.winner is not None:
        assert v.winner in seats
        assert v.winner not in v.chomped
        assert v.winner not in v.returned
        assert v.winner not in v.bad_chomps
        others = Counter(p for p in seats if p != v.winner)
        assert Counter([*v.chomped, *v.returned]) == others
        assert set(v.bad_chomps) <= set(v.chomped)  # C7: the winner takes bad chompers' cards
    else:
        assert v.chomped == ()
    if v.set_aside:
        assert v.winner is None
        assert v.returned == ()
    if v.outcome is Outcome.NO_WINNER:  # C12: bad chompers' cards join the pot
        assert set(v.returned) == set(seats) - set(v.bad_chomps)


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(case=round_cases())
def test_verdict_to_dict_has_the_formats_keys_and_reads_back_through_json(
    case: RoundCase,
) -> None:
    v = case.verdict()
    out = json.loads(json.dumps(v.to_dict()))
    required = {"outcome", "winner", "bad_chomps", "chomped", "returned", "set_aside"}
    assert required <= set(out)
    assert out["outcome"] in {str(o) for o in Outcome}
    assert out["winner"] is None or isinstance(out["winner"], str)
    for key in ("bad_chomps", "chomped", "returned"):
        assert isinstance(out[key], list)
        assert all(isinstance(p, str) for p in out[key])
    assert isinstance(out["set_aside"], bool)
    assert (out["outcome"], out["winner"], out["set_aside"]) == (
        str(v.outcome),
        v.winner,
        v.set_aside,
    )
    assert (out["bad_chomps"], out["chomped"], out["returned"]) == (
        list(v.bad_chomps),
        list(v.chomped),
        list(v.returned),
    )

    # The same round written as formats.md input gives the same verdict.
    doc: dict[str, Any] = {
        "mode": str(case.mode),
        "cards": {
            p: [str(c) for c in hand] if case.mode is Mode.DOUBLE_CHOMP else str(hand[0])
            for p, hand in case.cards.items()
        },
        "slaps": [{"player": p, "t_us": t} for p, t in case.slaps],
        "tie_window_us": case.window,
    }
    if case.previous is not None:
        doc["previous"] = str(case.previous)
    assert judge_request_from_dict(json.loads(json.dumps(doc))).verdict() == v


# --------------------------------------------------------------------------------------
# Whole games on the card-by-card table
# --------------------------------------------------------------------------------------

MAX_ROUNDS = 400

# (mode, players, two_player_end): every mode, and every end setting for standard games.
CONFIGS = [
    *((Mode.STANDARD, n, end) for n in (3, 4, 5, 6) for end in TwoPlayerEnd),
    *((mode, 2, TwoPlayerEnd.COUNT) for mode in (Mode.UNDERWATER_WAR, Mode.QUICK_CHOMP)),
    (Mode.DOUBLE_CHOMP, 2, TwoPlayerEnd.COUNT),
]


def random_slaps(rng: random.Random, cards: Mapping[str, Hand]) -> list[Slap]:
    """Each player presses or not, sometimes early (C4), sometimes twice (C7)."""
    slaps = []
    for player in cards:
        if rng.random() < 0.55:
            slaps.append(Slap(player, rng.randint(-300, 3_000)))
            if rng.random() < 0.2:
                slaps.append(Slap(player, rng.randint(-300, 6_000)))
    rng.shuffle(slaps)
    return slaps


def check_table(table: ChompTable, deck: Counter[Card]) -> None:
    """C15/C16: the counts the game keeps and the cards on the table agree, none lost."""
    game = table.game
    everything = table.all_cards()
    assert game.total() == game.dealt
    assert sum(everything.values()) == game.dealt
    assert everything == deck
    assert len(table.pot) == game.pot >= 0
    assert (
        sum(len(p) for p in table.piles.values())
        + sum(len(d) for d in table.discards.values())
        + len(table.pot)
        == game.dealt
    )
    for player in game.players:
        assert table.count(player) == game.counts[player] >= 0
        assert (game.counts[player] == 0) == (player in game.out)
    assert len(set(game.out)) == len(game.out)
    if game.over and game.winner is not None:
        assert game.winner not in game.out


def round_dict(mode: Mode, cards: Mapping[str, Hand], slaps: Sequence[Slap]) -> dict[str, Any]:
    """A played round as formats.md writes it."""
    return {
        "cards": {
            p: [str(c) for c in hand] if mode is Mode.DOUBLE_CHOMP else str(hand[0])
            for p, hand in cards.items()
        },
        "slaps": [{"player": p, "t_us": t} for p, t in slaps],
    }


def play_out(
    seed: int,
    mode: Mode,
    n: int,
    end: TwoPlayerEnd,
    window: int,
    max_rounds: int = MAX_ROUNDS,
) -> tuple[ChompTable, list[dict[str, Any]], list[Verdict]]:
    """Play a random game until it ends or ``max_rounds`` were played, checking C16 after
    every round. Returns the table, the rounds as formats.md round dicts and the verdicts.
    """
    rng = random.Random(seed)
    table = ChompTable.deal(NAMES[:n], rng, mode, end, window)
    deck = table.all_cards()
    box = list(table.box)
    assert table.game.dealt == DECK_SIZE // n * n  # C2: dealt equally, the rest boxed
    assert deck + Counter(box) == Counter(DECK_COMPOSITION)
    check_table(table, deck)
    recorded: list[dict[str, Any]] = []
    verdicts: list[Verdict] = []
    for _ in range(max_rounds):
        if table.game.over:
            break
        cards = table.reveal()
        slaps = random_slaps(rng, cards)
        result = table.play(cards, slaps)
        verdicts.append(result.verdict)
        recorded.append(round_dict(result.mode, cards, slaps))
        check_table(table, deck)
        assert table.box == box
    return table, recorded, verdicts


@pytest.mark.slow
@settings(max_examples=examples(120), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    config=st.sampled_from(CONFIGS),
    window=window_st,
)
def test_cards_are_conserved_over_random_games(
    seed: int, config: tuple[Mode, int, TwoPlayerEnd], window: int
) -> None:
    mode, n, end = config
    play_out(seed, mode, n, end, window)


@pytest.mark.slow
def test_random_games_mostly_end_within_the_round_bound() -> None:
    """Guards the conservation property against passing on games that never get going."""
    for mode, n, end in CONFIGS:
        games = [play_out(seed, mode, n, end, 500)[0].game for seed in range(12)]
        finished = [g for g in games if g.over]
        assert len(finished) >= 9, (mode, n, end, len(finished))
        assert any(g.out for g in finished), (mode, n, end)
        if mode is Mode.STANDARD and end is not TwoPlayerEnd.COUNT:
            # C13: with two left, the game goes on in the chosen two-player game (a game
            # can also end in standard when two players go out in the same round).
            assert any(g.mode is Mode(end.value) for g in finished), (mode, n, end)


# --------------------------------------------------------------------------------------
# JSON round trip of a whole game (formats.md, ``chomp replay``)
# --------------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=examples(80), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    config=st.sampled_from(CONFIGS),
    window=window_st,
    keep=st.one_of(st.none(), st.integers(1, 60)),
    explicit_deal=st.booleans(),
)
def test_replay_of_a_recorded_game_matches_the_live_game(
    seed: int,
    config: tuple[Mode, int, TwoPlayerEnd],
    window: int,
    keep: int | None,
    explicit_deal: bool,
) -> None:
    mode, n, end = config
    # keep: replay a game stopped after that many rounds (None: played to its end)
    table, recorded, verdicts = play_out(seed, mode, n, end, window, keep or MAX_ROUNDS)
    live = table.game
    doc: dict[str, Any] = {
        "players": list(NAMES[:n]),
        "mode": str(mode),
        "two_player_end": str(end),
        "tie_window_us": window,
        "rounds": recorded,
    }
    if explicit_deal:
        doc["deal"] = dict.fromkeys(NAMES[:n], DECK_SIZE // n)
    replay = replay_from_dict(json.loads(json.dumps(doc)))

    assert replay.game.counts == live.counts
    assert replay.game.pot == live.pot
    assert replay.game.out == live.out
    assert replay.game.over == live.over
    assert replay.game.winner == live.winner
    assert replay.game.mode == live.mode
    assert [r.verdict for r in replay.results] == verdicts

    out = replay.to_dict()
    text = json.dumps(out)
    assert json.loads(text) == out
    assert json.dumps(json.loads(text)) == text
    assert {"cards", "pot", "out", "over", "winner", "rounds"} <= set(out)
    assert out["cards"] == live.counts
    assert isinstance(out["pot"], int) and isinstance(out["over"], bool)
    assert out["out"] == live.out
    assert len(out["rounds"]) == len(recorded)
    assert out["rounds"] == [v.to_dict() for v in verdicts]
