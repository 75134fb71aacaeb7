"""The confirmed readings C17, D7 and G8 of docs/rulings.md, each in a test that names it.

They settle behaviour the engines already have; these tests hold it through the commands'
JSON (docs/formats.md), the surface a table or a script uses, and, for G8, through random
whole games of the engine.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from companion.games.getbit import GetBit, Setup

Run = Callable[..., tuple[int, str, str]]  # the conftest run_cli fixture


def run_json(argv: list[str], given: object, run_cli: Run) -> Any:
    """Run a ``--json`` command with ``given`` on standard input; its one JSON object."""
    status, out, err = run_cli(*argv, "--json", "-", stdin=json.dumps(given))
    assert (status, err) == (0, "")
    return json.loads(out)


def refusal(argv: list[str], given: object, run_cli: Run) -> str:
    status, out, err = run_cli(*argv, "-", stdin=json.dumps(given))
    assert (status, out) == (2, "")
    return err.strip()


# ---------------------------------------------------------------- C17 -------------------


def test_c17_double_chomp_a_player_with_one_card_left_shows_one(run_cli: Run) -> None:
    game: dict[str, Any] = {
        "players": ["a", "b"],
        "mode": "double_chomp",
        "deal": {"a": 1, "b": 9},
        "rounds": [
            {
                "cards": {"a": ["plankton"], "b": ["seal", "little_fish"]},
                "slaps": [{"player": "b", "t_us": 3}],
            }
        ],
    }
    result = run_json(["chomp", "replay"], game, run_cli)
    assert (result["winner"], result["cards"], result["out"]) == ("b", {"a": 0, "b": 10}, ["a"])
    game["rounds"][0]["cards"]["a"] = ["plankton", "seal"]
    assert refusal(["chomp", "replay"], game, run_cli) == (
        "companion: <stdin>: rounds[0].cards.a: 'a' turns over 1 card(s) in double_chomp, not 2"
    )


def test_c17_everybody_out_in_the_same_round_is_a_draw_with_the_cards_in_the_pot(
    run_cli: Run,
) -> None:
    game = {
        "players": ["a", "b", "c"],
        "deal": {"a": 1, "b": 1, "c": 1},
        "rounds": [{"cards": {"a": "plankton", "b": "plankton", "c": "plankton"}}],
    }
    result = run_json(["chomp", "replay"], game, run_cli)
    assert result["over"] is True and result["winner"] is None
    assert (result["pot"], result["out"]) == (3, ["a", "b", "c"])
    assert result["rounds"][0]["outcome"] == "all_same"


def test_c17_a_standard_ink_out_does_not_make_the_quick_chomp_game_start_as_after_a_war(
    run_cli: Run,
) -> None:
    game = {
        "players": ["a", "b", "c"],
        "two_player_end": "quick_chomp",
        "deal": {"a": 1, "b": 3, "c": 3},
        "rounds": [
            {"cards": {"a": "octopus", "b": "shark", "c": "seal"}},
            {"cards": {"b": "plankton", "c": "shark"}, "slaps": [{"player": "b", "t_us": 5}]},
        ],
    }
    result = run_json(["chomp", "replay"], game, run_cli)
    ink_out, race = result["rounds"]
    assert ink_out["outcome"] == "ink_out" and result["mode"] == "quick_chomp"
    # a quick_chomp race (the first slap takes both), not underwater_war's higher card
    assert (race["winner"], race["reason"]) == ("b", "slap")
    assert result["pot"] == 0


# ---------------------------------------------------------------- D7 --------------------

CARDS = {
    "nest": {"land": ["N = N", "_   e"]},
    "cover": {"land": ["_   _", "_   _"]},
    "wall": {"land": ["_   sc |", "_   _  |"]},
    "open": {"land": ["_   sc", "_   _"]},
    "prey": {"land": ["sh   _", "_    _"]},
}


def placed(*placements: dict[str, Any]) -> dict[str, Any]:
    return {"catalog": {"cards": CARDS}, "placements": list(placements)}


def test_d7_the_printed_egg_icon_scores_nothing_only_a_nest_with_a_token_scores(
    run_cli: Run,
) -> None:
    land = {
        "sections": [
            {"id": "empty", "kind": "nest", "cells": [[0, 0]]},
            {"id": "token", "kind": "nest", "egg": True, "cells": [[1, 0]]},
            {"id": "icon", "kind": "egg", "cells": [[2, 0]]},
        ]
    }
    result = run_json(["dino", "score"], land, run_cli)
    assert (result["eggs"], result["egg_points"], result["total"]) == (1, 2, 2)


def test_d7_the_egg_icon_lets_its_player_put_an_egg_token_on_an_empty_nest(run_cli: Run) -> None:
    result = run_json(
        ["dino", "score"], placed({"card": "nest", "x": 0, "y": 0, "egg_on": [0, 0]}), run_cli
    )
    assert (result["eggs"], result["egg_points"]) == (1, 2)


def test_d7_covering_any_cell_of_a_nest_loses_its_egg(run_cli: Run) -> None:
    log = placed(
        {"card": "nest", "x": 0, "y": 0, "egg_on": [0, 0]},
        {"card": "cover", "x": 1, "y": -1},  # covers the nest's right-hand cell only
    )
    result = run_json(["dino", "score"], log, run_cli)
    assert (result["eggs"], result["egg_points"]) == (0, 0)
    assert result["replay"]["eggs_lost"] == [{"placement": 1, "nest": "nest:A1", "cell": [1, 0]}]


@pytest.mark.parametrize(
    ("placements", "fate"),
    [
        ([("open", 0), ("prey", 2)], "ate"),  # no mountain: the carnivore eats
        ([("wall", 0), ("prey", 2)], "starved"),  # the card on the left shows one
        ([("prey", 2), ("wall", 0)], "starved"),  # whichever card went down first
        ([("wall", 0), ("prey", 2), ("open", 0)], "ate"),  # the wall is covered: no mountain
    ],
)
def test_d7_an_edge_has_a_mountain_when_the_top_card_on_either_side_shows_one(
    placements: list[tuple[str, int]], fate: str, run_cli: Run
) -> None:
    log = placed(*({"card": card, "x": x, "y": 0} for card, x in placements))
    result = run_json(["dino", "score"], log, run_cli)
    carnivore = next(h for h in result["herds"] if h["dino"] == "small_carnivore")
    assert carnivore["why"] == fate


def test_d7_small_and_medium_dino_sections_are_one_quarter_of_a_card(
    tmp_path: Path, run_cli: Run
) -> None:
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps({"cards": {"x": {"land": ["sh = sh", "_    _"]}}}))
    status, _, err = run_cli("dino", "catalog", "check", str(catalog))
    assert status == 2
    assert "a small or medium dino section is one quarter" in err


def test_d7_a_large_dino_section_may_hold_more_than_one_dino(tmp_path: Path, run_cli: Run) -> None:
    land = {
        "sections": [
            {
                "id": "l",
                "kind": "dino",
                "dino": "large_herbivore",
                "count": 2,
                "cells": [[0, 0], [1, 0]],
            },
            {"id": "p", "kind": "plants", "cells": [[2, 0]]},
        ]
    }
    result = run_json(["dino", "score"], land, run_cli)
    assert (result["herds"][0]["dinos"], result["dino_points"]) == (2, 6)


# ---------------------------------------------------------------- G8 --------------------


def test_g8_after_the_end_nobody_picks_up(run_cli: Run) -> None:
    # With pickup_at 4 every robot takes its cards back each round, except in the round
    # that ends the game: yellow, always last to move, is bitten a fourth time in round 5.
    game = {
        "robots": {"red": "ann", "blue": "bob", "green": "ann", "yellow": "bob"},
        "line": ["red", "blue", "green", "yellow"],
        "pickup_at": 4,
        "rounds": [
            {"red": 2, "blue": 3, "green": 4, "yellow": 1},
            *[{"red": 2, "blue": 3, "green": 4, "yellow": 1}] * 4,
        ],
    }
    result = run_json(["getbit", "replay"], game, run_cli)
    assert (result["winner"], result["out"]) == ("ann", ["yellow"])
    assert result["hands"]["red"] == [1, 3, 4, 5]
    assert result["hands"]["blue"] == [1, 2, 4, 5]
    assert result["hands"]["green"] == [1, 2, 3, 5]


def random_game(seed: int, robots: int) -> list[tuple[GetBit, Any]]:
    """A whole random game of ``robots`` players, one robot each: each state and result."""
    rng = random.Random(seed)
    names = [f"r{i}" for i in range(robots)]
    state = GetBit.new(Setup({n: n for n in names}, tuple(rng.sample(names, robots))))
    history = []
    while not state.over:
        before = state
        state, result = state.play({r: rng.choice(state.hands[r]) for r in state.line})
        history.append((before, result))
    return [*history, (state, None)]


@pytest.mark.parametrize("seed", range(12))
def test_g8_move_then_bite_then_end_then_pickups(seed: int) -> None:
    history = random_game(seed, 4 + seed % 3)
    for (before, result), (after, _) in pairwise(history):
        if result.bitten is not None and not after.out[len(before.out) :]:
            # the bitten robot swims to the front after the move, and holds its whole hand
            assert after.line[0] == result.bitten
            assert after.hands[result.bitten] == before.setup.full_hand
            assert result.bitten not in result.picked_up
        if after.over:
            assert result.picked_up == ()  # the game ended: nobody picks up
        for robot in result.picked_up:
            assert after.hands[robot] == before.setup.full_hand


@pytest.mark.parametrize("seed", range(12))
def test_g8_a_robot_eaten_by_the_shark_at_the_end_has_zero_limbs(seed: int) -> None:
    history = random_game(seed, 4 + seed % 3)
    (_, last), (final, _) = history[-2], history[-1]
    assert last.eaten is not None and last.eaten == final.out[-1]
    assert final.limbs(last.eaten) == 0
    assert all(final.limbs(r) == 0 for r in final.out)
    assert len(final.line) == 1 and final.winner == final.setup.robots[final.line[0]]
