"""``companion getbit replay`` (formats.md, exactly) and ``companion getbit play`` in its
line mode: announcements, the save after every round, resume, undo, secret entry, memory."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "getbit-rulebook.json"
TWO_PLAYERS = ROOT / "examples" / "getbit-two-players.json"
FOUR = ["--players", "john,anne,beth,ted", "--line", "ted,anne,beth,john"]


Cli = Callable[..., tuple[int, str, str]]  # the conftest run_cli fixture


def write(tmp_path: Path, value: Any, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(value if isinstance(value, str) else json.dumps(value))
    return str(path)


def example() -> dict[str, Any]:
    game: dict[str, Any] = json.loads(EXAMPLE.read_text())
    return game


# ---------------------------------------------------------------------- replay ----------


def test_replay_reports_the_rulebook_example(run_cli: Cli) -> None:
    status, out, err = run_cli("getbit", "replay", str(EXAMPLE))
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "Get Bit!: john, anne, beth, ted · 4 robots, cards 1-5",
        "round   1  john 3 · anne 2 · beth 5 · ted 1  moved ted, anne, john, beth; no bite",
        "round   2  john 4 · anne 1 · beth 1 · ted 2  moved ted, john; anne bitten (3 limbs left)",
        "round   3  john 5 · anne 5 · beth 2 · ted 4  moved beth, ted; john bitten (3 limbs left)",
        "round   4  john 4 · anne 1 · beth 4 · ted 5  moved anne, ted; "
        "beth bitten (3 limbs left); picked up: ted",
        "",
        "front ▸ beth · ted · anne · john ◂ shark",
        "  1. beth  ███· 3 limbs    hand 1 2 3 4 5  played -",
        "  2. ted   ████ 4 limbs    hand 1 2 3 4 5  played -",
        "  3. anne  ███· 3 limbs    hand 2 3 4      played 5 1",
        "  4. john  ███· 3 limbs    hand 1 2 3 5    played 4",
        "Game goes on: round 5 next.",
    ]


def test_replay_json_is_exactly_the_formats_md_object(run_cli: Cli) -> None:
    status, out, _ = run_cli("getbit", "replay", "--json", str(EXAMPLE))
    assert status == 0
    assert json.loads(out) == {
        "line": ["beth", "ted", "anne", "john"],
        "limbs": {"john": 3, "anne": 3, "beth": 3, "ted": 4},
        "hands": {
            "john": [1, 2, 3, 5],
            "anne": [2, 3, 4],
            "beth": [1, 2, 3, 4, 5],
            "ted": [1, 2, 3, 4, 5],
        },
        "out": [],
        "winner": None,
        "rounds": [
            {"moved": ["ted", "anne", "john", "beth"], "bitten": None, "out": []},
            {"moved": ["ted", "john"], "bitten": "anne", "out": []},
            {"moved": ["beth", "ted"], "bitten": "john", "out": []},
            {"moved": ["anne", "ted"], "bitten": "beth", "out": []},
        ],
    }


def test_replay_formats_md_example_input_is_a_first_round(run_cli: Cli, tmp_path: Path) -> None:
    """formats.md's own example: one round, the first, so nobody is bitten (G3)."""
    game = {
        "robots": {"john": "john", "anne": "anne", "beth": "beth", "ted": "ted"},
        "line": ["ted", "anne", "john", "beth"],
        "longer_games": False,
        "memory": False,
        "pickup_at": 1,
        "rounds": [{"john": 4, "anne": 1, "beth": 4, "ted": 5}],
    }
    status, out, _ = run_cli("getbit", "replay", "--json", write(tmp_path, game))
    result = json.loads(out)
    assert result["rounds"] == [{"moved": ["anne", "ted"], "bitten": None, "out": []}]
    assert result["line"] == ["ted", "anne", "john", "beth"]
    assert result["hands"]["john"] == [1, 2, 3, 5]


def test_replay_reads_stdin(run_cli: Cli) -> None:
    status, out, _ = run_cli("getbit", "replay", "--json", "-", stdin=EXAMPLE.read_text())
    assert status == 0 and json.loads(out)["line"] == ["beth", "ted", "anne", "john"]


def test_replay_two_player_game_to_the_end_with_longer_games(run_cli: Cli, tmp_path: Path) -> None:
    game = {
        "robots": {"red": "ann", "blue": "bob", "green": "ann", "yellow": "bob"},
        "line": ["red", "blue", "green", "yellow"],
        "longer_games": True,
        "rounds": [dict.fromkeys(("red", "blue", "green", "yellow"), c) for c in (1, 2)],
    }
    status, out, _ = run_cli("getbit", "replay", "--json", write(tmp_path, game))
    result = json.loads(out)
    assert result["limbs"]["yellow"] == 3.5 and result["limbs"]["red"] == 4
    assert result["winner"] is None
    status, out, _ = run_cli("getbit", "replay", str(tmp_path / "game.json"))
    assert "yellow bitten (3.5 limbs left)" in out
    assert "  1. yellow (bob)  ███▌ 3.5 limbs" in out


def test_replay_two_player_game_ends_at_the_first_elimination(run_cli: Cli) -> None:
    """Yellow, always the lowest untied card, is at the back and bitten four times (G5)."""
    status, out, _ = run_cli("getbit", "replay", "--json", str(TWO_PLAYERS))
    result = json.loads(out)
    assert [r["bitten"] for r in result["rounds"]] == [None, *["yellow"] * 4]
    assert result["out"] == ["yellow"] and result["winner"] == "ann"
    assert result["line"] == ["green", "blue", "red"]
    status, out, _ = run_cli("getbit", "replay", str(TWO_PLAYERS))
    lines = out.splitlines()
    assert lines[5].endswith("yellow bitten and out; bob loses")
    assert lines[4].endswith("yellow bitten (1 limb left); picked up: red, blue, green")
    assert lines[-1] == "Game over after round 5: ann wins."


@pytest.mark.parametrize(
    ("change", "place"),
    [
        ({"colour": "red"}, "colour: unknown key 'colour'"),
        ({"line": ["ted", "anne", "beth"]}, "line: missing from the line: john"),
        ({"pickup_at": "one"}, "pickup_at: expected a whole number, got a string"),
        ({"pickup_at": 5}, "pickup_at: must be 0 to 4 with cards 1-5"),
        ({"robots": {"john": "john", "anne": ""}}, "robots.anne: expected a non-empty player"),
        ({"rounds": [{"john": 3, "anne": 2, "beth": 5, "ted": "one"}]}, "rounds[0].ted:"),
        ({"rounds": [{"john": 3, "anne": 2, "beth": 5}]}, "rounds[0]: round 1: no card for ted"),
        ({"rounds": [{"john": 9, "anne": 2, "beth": 5, "ted": 1}]}, "rounds[0].john: round 1"),
        ({"longer_games": "yes"}, "longer_games: expected true or false"),
    ],
)
def test_replay_bad_input_is_one_line_naming_file_and_place(
    run_cli: Cli, tmp_path: Path, change: dict[str, Any], place: str
) -> None:
    path = write(tmp_path, {**example(), **change})
    status, out, err = run_cli("getbit", "replay", path)
    assert status == 2 and out == ""
    assert err.startswith(f"companion: {path}: {place}")
    assert err.count("\n") == 1


def test_replay_refuses_rounds_after_the_game_is_over(run_cli: Cli, tmp_path: Path) -> None:
    game = json.loads(TWO_PLAYERS.read_text())
    game["rounds"].append(dict.fromkeys(("red", "blue", "green"), 1))
    path = write(tmp_path, game)
    status, _, err = run_cli("getbit", "replay", path)
    assert status == 2
    assert err == f"companion: {path}: rounds[5]: the game is already over (ann won in round 5)\n"


def test_replay_not_json_and_missing_file(run_cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path, "{not json")
    status, _, err = run_cli("getbit", "replay", path)
    assert status == 2 and err.startswith(f"companion: {path}: line 1 column 2: not JSON")
    status, _, err = run_cli("getbit", "replay", str(tmp_path / "nope.json"))
    assert status == 2 and err == f"companion: {tmp_path / 'nope.json'}: no such file\n"


# ------------------------------------------------------------------------ play ----------


def test_play_line_mode_announces_each_round_and_saves_it(run_cli: Cli, tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    rounds = "3 2 5 1\n4112\njohn=5 anne=5 beth=2 ted=4\n4 1 4 5\nquit\n"
    status, out, err = run_cli("getbit", "play", *FOUR, "--save", str(save), stdin=rounds)
    assert status == 0
    assert "round 1 cards for john anne beth ted:" in out
    assert "Round 4: john 4 · anne 1 · beth 4 · ted 5" in out
    assert "  anne (1), then ted (5) to the front; john and beth tied on 4 and stay" in out
    assert (
        "  the shark bites beth: 3 limbs left; beth goes to the front and takes back its cards"
        in out
    )
    assert "  ted is down to 1 card: takes back its cards" in out
    assert "Game goes on: round 5 next." in out
    assert f"saved {save} (after round 4)" in err
    # The save is the replay input itself: the rulebook example, round for round.
    assert json.loads(save.read_text()) == example()


def test_play_refused_card_changes_nothing(run_cli: Cli, tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    rounds = "3 2 5 1\n3 1 1 2\n12\n4 1 1 2\n"
    status, out, _ = run_cli("getbit", "play", *FOUR, "--save", str(save), stdin=rounds)
    assert "round 2: john cannot play 3: not in its hand (1, 2, 4, 5)" in out
    assert "give 4 cards, for john anne beth ted (e.g. 4 1 4 5)" in out
    assert json.loads(save.read_text())["rounds"] == example()["rounds"][:2]


def test_play_saves_after_every_round_and_resumes(run_cli: Cli, tmp_path: Path) -> None:
    save = str(tmp_path / "game.json")
    run_cli("getbit", "play", *FOUR, "--save", save, stdin="3 2 5 1\n4 1 1 2\n")
    assert len(json.loads(Path(save).read_text())["rounds"]) == 2
    status, out, _ = run_cli(
        "getbit", "play", "--resume", "--save", save, stdin="5 5 2 4\n4 1 4 5\n"
    )
    assert status == 0
    assert f"resumed {save} after round 2" in out
    assert "Round 3: john 5 · anne 5 · beth 2 · ted 4" in out
    assert json.loads(Path(save).read_text()) == example()
    status, out, _ = run_cli("getbit", "replay", save)
    assert "picked up: ted" in out


def test_play_undo_drops_the_last_round(run_cli: Cli, tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    stdin = "3 2 5 1\n4 1 1 2\nundo\n4 1 1 2\n5 5 2 4\nundo\nundo\nundo\nundo\n"
    status, out, _ = run_cli("getbit", "play", *FOUR, "--save", str(save), stdin=stdin)
    assert out.count("round 2 undone") == 2 and out.count("round 3 undone") == 1
    assert "round 1 undone" in out and "nothing to undo" in out
    assert json.loads(save.read_text())["rounds"] == []


def test_play_will_not_overwrite_a_saved_game(run_cli: Cli, tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    run_cli("getbit", "play", *FOUR, "--save", str(save), stdin="3 2 5 1\n")
    status, _, err = run_cli("getbit", "play", *FOUR, "--save", str(save))
    assert status == 2 and "holds a game: --resume continues it, --new starts a new game" in err
    status, out, _ = run_cli("getbit", "play", *FOUR, "--save", str(save), "--new")
    assert status == 0 and "previous game kept as" in out
    assert len(list(tmp_path.glob("game.*.json"))) == 1
    assert json.loads(save.read_text())["rounds"] == []


def test_play_resume_takes_no_setup_options(run_cli: Cli, tmp_path: Path) -> None:
    status, _, err = run_cli("getbit", "play", "--resume", "--memory")
    assert status == 2 and err == (
        "companion: --memory: the setup comes from the saved game with --resume\n"
    )
    status, _, err = run_cli("getbit", "play", "--resume", "--save", str(tmp_path / "x.json"))
    assert status == 2 and "no saved game here to resume" in err


def test_play_secret_entry_asks_player_by_player(run_cli: Cli, tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    stdin = "1\n2\n3\n4\n9\n5\n"  # ann-1, ann-2, bob-1, bob-2, then a refused 9 and a 5
    status, out, _ = run_cli(
        "getbit",
        "play",
        "--players",
        "ann,bob",
        "--line",
        "ann-1,bob-1,ann-2,bob-2",
        "--secret",
        "--save",
        str(save),
        stdin=stdin,
    )
    asks = [line for line in out.splitlines() if line.endswith("(hidden):")]
    assert asks[:4] == [
        "ann, ann-1's card (hidden):",
        "ann, ann-2's card (hidden):",
        "bob, bob-1's card (hidden):",
        "bob, bob-2's card (hidden):",
    ]
    assert "ann-1 cannot play that card: choose again" in out
    assert json.loads(save.read_text())["rounds"] == [
        {"ann-1": 1, "ann-2": 2, "bob-1": 3, "bob-2": 4}
    ]
    assert "Round 1: ann-1 1 · bob-1 3 · ann-2 2 · bob-2 4" in out


def test_play_memory_game_shows_no_card_numbers(run_cli: Cli, tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    stdin = "3 2 5 1\n4 1 1 2\n"
    status, out, _ = run_cli("getbit", "play", *FOUR, "--memory", "--save", str(save), stdin=stdin)
    assert "Round 2: cards revealed" in out
    assert "hand 4 cards, 1 played face down" in out
    assert "played 3" not in out and "(2)" not in out
    assert json.loads(save.read_text())["memory"] is True


def test_play_bad_setup_is_one_line(run_cli: Cli, tmp_path: Path) -> None:
    save = str(tmp_path / "g.json")
    status, _, err = run_cli("getbit", "play", "--players", "ann", "--save", save)
    assert (status, err) == (2, "companion: --players: Get Bit! is for 2 to 6 players, not 1\n")
    status, _, err = run_cli("getbit", "play", *FOUR[:2], "--line", "john,x", "--save", save)
    assert status == 2 and err.startswith("companion: --line: not a robot of this game: x")
    status, _, err = run_cli("getbit", "play", "--save", save)
    assert status == 2 and "--players: name the players" in err


# ------------------------------------------------------------------- docs/getbit.md -----


def test_every_example_file_replays(run_cli: Cli) -> None:
    for path in sorted((ROOT / "examples").glob("getbit-*.json")):
        status, _, err = run_cli("getbit", "replay", str(path))
        assert status == (2 if "bad" in path.name else 0), err
