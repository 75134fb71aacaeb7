"""Every figure of ``history stats`` against an example worked out by hand."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from companion.games.chomp import Card, ChompGame, Round, Slap
from companion.history import import_files
from companion.history.db import connect
from companion.history.stats import player_stats, spread
from companion.history.store import game_rounds

ROOT = Path(__file__).resolve().parent.parent
MS = 1_000_000
REVEAL = 10_000 * MS


@pytest.fixture
def conn() -> sqlite3.Connection:
    return connect(":memory:")


def _edge(n: int, player: str, t_ms: float, use: str = "press") -> dict[str, Any]:
    stamp = REVEAL * n + round(t_ms * MS)
    return {"type": "edge", "n": n, "player": player, "pressed": True, "stamp_ns": stamp,
            "source": "gpio", "seq": 0, "use": use}  # fmt: skip


def hand_journal(path: Path) -> Path:
    """Three rounds worked out by hand (see the test below for what each press became).

    1: ann shark, bob seal, cat plankton. ann -50 ms (false start), cat +250 (plankton is
       the lowest: may not chomp), bob +300 wins, bob +310 bounces, bob +500 again.
    2: ann plankton, bob shark, cat plankton: bob wins without a slap (C8); cat +200 is a
       bad chomp, bob's own +260 is the winner's (as `chomp audit` says).
    3: opened, ann presses, the referee restarts before the reveal: abandoned.
    """
    game = ChompGame.new(["ann", "bob", "cat"], tie_window_us=500)
    start = {"type": "start", "version": 1, "players": ["ann", "bob", "cat"], "mode": "standard",
             "two_player_end": "count", "deal": dict(game.counts), "tie_window_us": 500,
             "effective_tie_window_us": 500,
             "sources": [{"name": "gpio", "timing": "kernel_edge",
                          "uncertainty_us": 20}],
             "lockout_ms": 150.0, "settle_ms": 5.0}  # fmt: skip
    entries: list[dict[str, Any]] = [start]
    rounds = [
        (
            {"ann": Card.SHARK, "bob": Card.SEAL, "cat": Card.PLANKTON},
            [("ann", -50, "press"), ("cat", 250, "press"), ("bob", 300, "press"),
             ("bob", 310, "bounce"), ("bob", 500, "press")],
        ),
        (
            {"ann": Card.PLANKTON, "bob": Card.SHARK, "cat": Card.PLANKTON},
            [("cat", 200, "press"), ("bob", 260, "press")],
        ),
    ]  # fmt: skip
    for n, (cards, presses) in enumerate(rounds, 1):
        entries.append(
            {"type": "round", "n": n, "mode": "standard", "opened_ns": REVEAL * n - 2 * 10**9}
        )
        entries.append({"type": "reveal", "n": n, "stamp_ns": REVEAL * n, "how": "countdown"})
        entries.extend(_edge(n, p, t, use) for p, t, use in presses)
        entries.append({"type": "cards", "n": n, "cards": {p: [str(c)] for p, c in cards.items()}})
        slaps = tuple(Slap(p, t * 1000) for p, t, use in presses if use == "press")
        result = game.play(Round({p: (c,) for p, c in cards.items()}, slaps))
        entries.append(
            {"type": "verdict", "n": n, "verdict": result.verdict.to_dict(), **game.to_dict()}
        )
    entries.append(
        {"type": "round", "n": 3, "mode": "standard", "opened_ns": REVEAL * 3 - 2 * 10**9}
    )
    entries.append({**_edge(3, "ann", -1500), "stamp_ns": REVEAL * 3 - 1500 * MS})
    entries.append({"type": "abandon", "n": 3, "why": "restarted before reveal"})
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def test_spread_is_linear_interpolation_between_ordered_values() -> None:
    assert spread(list(range(1, 12))) == {"median": 6, "p10": 2.0, "p90": 10.0, "n": 11}
    assert spread([7.0]) == {"median": 7.0, "p10": 7.0, "p90": 7.0, "n": 1}
    assert spread([]) is None


def test_c3_c4_c7_c8_every_press_keeps_its_stamp_source_timing_class_and_fate(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    import_files([hand_journal(tmp_path / "j.jsonl")], conn)
    one, two, three = game_rounds(conn, 1)
    got = [
        (p["player"], p["t_ns"], p["use"], p["counted"], p["fate"], p["cause"])
        for p in one["presses"]
    ]
    assert got == [
        ("ann", -50 * MS, "press", True, "bad_chomp", "false_start"),
        ("cat", 250 * MS, "press", True, "bad_chomp", "lowest_card"),
        ("bob", 300 * MS, "press", True, "won", None),
        ("bob", 310 * MS, "bounce", False, "bounce", None),
        ("bob", 500 * MS, "press", False, "repeat", None),
    ]
    assert {(p["source"], p["timing"], p["uncertainty_us"]) for p in one["presses"]} == {
        ("gpio", "kernel_edge", 20)
    }
    assert one["winner"] == "bob" and one["lead_ns"] is None  # nobody pressed after bob
    assert [(p["player"], p["fate"], p["cause"]) for p in two["presses"]] == [
        ("cat", "bad_chomp", "no_slap_needed"),
        ("bob", "won", None),  # as `chomp audit` says: the automatic winner (C8)
    ]
    assert two["reason"] == "automatic" and two["lead_ns"] is None
    assert three["outcome"] == "abandoned"
    assert [(p["player"], p["t_ns"], p["fate"]) for p in three["presses"]] == [
        ("ann", None, "undecided")
    ]


def test_chomp_figures_of_the_hand_journal(conn: sqlite3.Connection, tmp_path: Path) -> None:
    import_files([hand_journal(tmp_path / "j.jsonl")], conn)
    bob = player_stats(conn, "bob")["chomp"]
    # bob's slaps: 300 and 260 ms; p10 = 260 + 0.1 * 40, p90 = 260 + 0.9 * 40
    assert bob["reaction_us"] == {"median": 280_000, "p10": 264_000, "p90": 296_000, "n": 2}
    assert bob["slaps"] == 2 and bob["rounds_won"] == 2 and bob["bad_chomps"]["count"] == 0
    cat = player_stats(conn, "cat")["chomp"]
    assert cat["bad_chomps"] == {
        "count": 2,
        "rate": 1.0,
        "by_cause": {
            "lowest_card": {"count": 1, "rate": 0.5},
            "no_slap_needed": {"count": 1, "rate": 0.5},
        },
    }
    ann = player_stats(conn, "ann")["chomp"]
    assert ann["reaction_us"] is None  # a false start and an unrevealed round: no reaction
    assert ann["slaps"] == 2
    assert ann["bad_chomps"]["by_cause"] == {"false_start": {"count": 1, "rate": 0.5}}


def test_chomp_figures_of_the_example_journal(conn: sqlite3.Connection) -> None:
    """examples/chomp-journal.jsonl, by hand: round 1 cat 405.213 ms (big fish, the lowest
    with dan's: bad), ann 412.030 and bob 412.290 tie; round 2 dan 298.774 wins, cat
    299.861 comes 1087 us later; round 3 bob 351.002 in an ink-out."""
    import_files([ROOT / "examples" / "chomp-journal.jsonl"], conn)
    bob = player_stats(conn, "bob")
    assert bob["games"] == {"chomp": {"played": 1, "won": 0}}
    assert bob["chomp"]["reaction_us"] == pytest.approx(
        {"median": 381_646, "p10": 357_130.8, "p90": 406_161.2, "n": 2}
    )
    assert bob["chomp"]["ties"] == 1
    assert bob["chomp"]["bad_chomps"]["by_cause"] == {"ink_out": {"count": 1, "rate": 0.5}}
    dan = player_stats(conn, "dan")["chomp"]
    assert dan["closest_lead"] == {"us": 1087.0, "game": 1, "round": 2}
    assert dan["rounds_won"] == 1
    assert player_stats(conn, "ann")["chomp"]["ties"] == 1
    cat = player_stats(conn, "cat")["chomp"]
    assert cat["bad_chomps"]["by_cause"] == {"lowest_card": {"count": 1, "rate": 0.5}}


def test_getbit_rounds_survived_and_bites_taken(conn: sqlite3.Connection) -> None:
    """examples/getbit-two-players.json: yellow (bob's) is last in rounds 2-5 and bitten
    each time; it loses its fourth limb in round 5 and bob loses. Both players still had
    a robot in play after each of the 5 rounds."""
    import_files([ROOT / "examples" / "getbit-two-players.json"], conn)
    assert player_stats(conn, "bob")["getbit"] == {
        "games": 1,
        "rounds_survived": 5,
        "rounds_survived_per_game": 5.0,
        "bites_taken": 4,
    }
    ann = player_stats(conn, "ann")
    assert ann["games"] == {"getbit": {"played": 1, "won": 1}}
    assert ann["getbit"]["bites_taken"] == 0


def test_d5_chomp_land_average_and_best(conn: sqlite3.Connection, tmp_path: Path) -> None:
    """examples/dino-game.json: ann 29 (second to cat on the tie-break), bob 14 (the land
    of examples/dino-placements.json). Then ann alone with that same land: 14, and she wins.
    ann: average (29 + 14) / 2 = 21.5, best 29."""
    import_files([ROOT / "examples" / "dino-game.json"], conn)
    game = tmp_path / "g.json"
    land = str(ROOT / "examples" / "dino-placements.json")
    game.write_text(json.dumps({"players": {"ann": {"land": land}}}))
    import_files([game], conn)
    ann = player_stats(conn, "ann")
    assert ann["games"]["dino"] == {"played": 2, "won": 1}
    assert ann["dino"] == {"games": 2, "average": 21.5, "best": 29.0}
    assert player_stats(conn, "bob")["dino"] == {"games": 1, "average": 14.0, "best": 14.0}


def test_f12_food_chain_scores_and_wins(conn: sqlite3.Connection) -> None:
    import_files([ROOT / "examples" / "foodchain-score.json"], conn)
    assert player_stats(conn, "ann")["foodchain"] == {"games": 1, "average": 19.0, "best": 19.0}
    assert player_stats(conn, "ann")["games"]["foodchain"] == {"played": 1, "won": 1}
    assert player_stats(conn, "cat")["games"]["foodchain"] == {"played": 1, "won": 0}


def test_an_unknown_player_is_one_clear_error(conn: sqlite3.Connection) -> None:
    with pytest.raises(ValueError, match="no player called 'zed'"):
        player_stats(conn, "zed")
