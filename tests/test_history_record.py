"""The recording API the tables and scoring commands call, and invariants of what is kept."""

from __future__ import annotations

import random
import statistics
from collections import Counter
from pathlib import Path

from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import dino, foodchain, getbit
from companion.games.chomp import DECK_SIZE
from companion.games.dino import lands as dino_lands
from companion.history import (
    record_chips,
    record_chomp_journal,
    record_dino,
    record_foodchain,
    record_getbit,
    record_later,
)
from companion.history.chomp import game_from_entries
from companion.history.db import connect
from companion.history.generate import journal, write_journals
from companion.history.stats import player_stats, spread
from companion.history.store import list_games, write_game

ROOT = Path(__file__).resolve().parent.parent


def test_record_chomp_journal_once_however_often_it_is_called(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    first = record_chomp_journal(ROOT / "examples" / "chomp-journal.jsonl", db, table="kitchen")
    again = record_chomp_journal(ROOT / "examples" / "chomp-journal.jsonl", db)
    assert first.added and not again.added and first.game_id == again.game_id
    (game,) = list_games(connect(db))
    assert game.kind == "chomp" and game.table == "kitchen"


def test_g3_g5_record_getbit_a_finished_game(tmp_path: Path) -> None:
    setup = getbit.Setup(
        getbit.default_robots(["ann", "bob", "cat", "dan"]), ("ann", "bob", "cat", "dan")
    )
    rng = random.Random(4)
    state = getbit.GetBit.new(setup)
    rounds = []
    while not state.over:
        cards = {r: rng.choice(state.hands[r]) for r in state.line}
        state, _ = state.play(cards)
        rounds.append(cards)
    written = record_getbit(getbit.replay(setup, rounds), tmp_path / "h.sqlite3")
    (game,) = list_games(connect(tmp_path / "h.sqlite3"))
    assert written.added and game.finished
    assert [p["name"] for p in game.players if p["won"]] == [state.winner]
    bites = sum(p["detail"]["bites_taken"] for p in game.players)
    assert bites == len(rounds) - 1  # G3: a bite every round but the first
    # G5: the winner first, then the robots in the reverse of the order they went out
    owners = [setup.robots[r] for r in reversed(state.out)]
    by_rank = sorted(game.players, key=lambda p: p["rank"])
    assert [p["name"] for p in by_rank] == [state.winner, *owners]
    assert [p["rank"] for p in by_rank] == [1, 2, 3, 4]


def test_record_dino_and_foodchain_and_chips(tmp_path: Path) -> None:
    """D5 and F12: the ranks the rules give are the ranks stored."""
    conn = connect(tmp_path / "h.sqlite3")
    lands = {
        "ann": dino_lands.random_land(random.Random(1), 4, 4),
        "bob": dino_lands.random_land(random.Random(2), 4, 4),
    }
    record_dino(lands, conn)
    result = dino.score_game(lands)
    sheet = foodchain.Tally(
        ("ann", "bob"),
        {"ann": (foodchain.Eaten("", 5),), "bob": (foodchain.Eaten("", 3),)},
        {"ann": Counter({"ann": 4}), "bob": Counter({"bob": 4})},
    )
    record_foodchain(foodchain.score(sheet), "standard", conn)
    record_chips(["ann", "bob", "cat"], "cat", ["ann", "bob"], conn)
    dino_game, food_game, chips_game = list_games(conn)
    assert {p["name"]: p["rank"] for p in dino_game.players} == {
        s.player: s.rank for s in result.standings
    }
    assert {p["name"]: p["score"] for p in food_game.players} == {"ann": 9.0, "bob": 7.0}
    assert [(p["name"], p["rank"], p["won"]) for p in chips_game.players] == [
        ("ann", 3, False),
        ("bob", 2, False),
        ("cat", 1, True),
    ]
    assert player_stats(conn, "cat")["games"] == {"chips": {"played": 1, "won": 1}}


def test_record_later_writes_off_the_callers_thread_and_reports_failures(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    record_later(record_chomp_journal, ROOT / "examples" / "chomp-journal.jsonl", db).join(10)
    assert len(list_games(connect(db))) == 1
    errors: list[BaseException] = []
    record_later(record_chomp_journal, tmp_path / "missing.jsonl", db, on_error=errors.append).join(
        10
    )
    assert len(errors) == 1 and "no such journal" in str(errors[0])


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=60))
def test_spread_agrees_with_statistics_quantiles(values: list[float]) -> None:
    got = spread(values)
    assert got is not None
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    tolerance = 1e-6 * (1 + max(abs(v) for v in values))
    assert abs(got["p10"] - deciles[0]) <= tolerance
    assert abs(got["p90"] - deciles[-1]) <= tolerance
    assert abs(got["median"] - statistics.median(values)) <= tolerance


@settings(max_examples=examples(25), deadline=None)
@given(st.integers(0, 10**6))
def test_c5_c7_every_round_keeps_one_counted_press_per_player_and_fates_match_the_verdict(
    seed: int,
) -> None:
    game = game_from_entries(journal(random.Random(seed), rounds=15), "2026-01-01")
    for rnd in game.rounds:
        counted = [p.player for p in rnd.presses if p.counted]
        assert len(counted) == len(set(counted))  # C7: only the first press counts
        verdict = rnd.detail["verdict"]
        bad = {p.player for p in rnd.presses if p.fate == "bad_chomp"}
        assert bad == set(verdict["bad_chomps"])
        assert {p.player for p in rnd.presses if p.fate == "tied"} == set(verdict["tied"])  # C5
        won = [p.player for p in rnd.presses if p.fate == "won"]
        assert won == ([rnd.winner] if won else [])
        assert rnd.lead_ns is None or rnd.lead_ns >= 0
    assert sum(p.score or 0 for p in game.players) <= DECK_SIZE  # C16: no card made up


def test_the_same_games_written_twice_are_stored_once(tmp_path: Path) -> None:
    from companion.history.readers import read_game_file

    conn = connect(":memory:")
    games = [read_game_file(p) for p in write_journals(tmp_path, 5, seed=2, rounds=8)]
    assert all(write_game(conn, g).added for g in games)
    assert not any(write_game(conn, g).added for g in games)
    assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 5


@settings(max_examples=examples(10), deadline=None)
@given(st.integers(0, 10**6))
def test_quantiles_read_off_the_index_equal_those_of_the_list(seed: int) -> None:
    """stats picks p10/median/p90 by position in SQLite's index; the same figures as
    :func:`spread` over every reaction time."""
    from companion.history.stats import reaction_spread, reaction_times_us
    from companion.history.store import find_player

    conn = connect(":memory:")
    rng = random.Random(seed)
    for _ in range(3):
        write_game(conn, game_from_entries(journal(rng, rounds=12), "2026-01-01"))
    for name in ("ann", "bob", "cat", "dan"):
        pid = find_player(conn, name)
        assert pid is not None
        assert reaction_spread(conn, pid) == spread(reaction_times_us(conn, pid))
