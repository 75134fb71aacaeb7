"""``companion chomp judge`` and ``companion chomp replay`` as a user runs them: output
that matches formats.md, stdin input, and one-line errors (exit status 2) for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

VERDICT_KEYS = {"outcome", "winner", "bad_chomps", "chomped", "returned", "set_aside"}
GAME_KEYS = {"cards", "pot", "out", "over", "winner", "rounds"}

# formats.md's example round, with a tie window narrow enough for bob to win alone.
ROUND: dict[str, Any] = {
    "mode": "standard",
    "cards": {"ann": "seal", "bob": "shark", "cat": "big_fish", "dan": "big_fish"},
    "slaps": [{"player": "bob", "t_us": 1250}, {"player": "ann", "t_us": 1310}],
    "tie_window_us": 50,
}

# Three players with one card each: bob and cat show the lowest creature, so ann wins
# automatically (C8), both go out, and with two_player_end "count" the game is over.
SHORT_GAME: dict[str, Any] = {
    "players": ["ann", "bob", "cat"],
    "mode": "standard",
    "two_player_end": "count",
    "tie_window_us": 500,
    "deal": {"ann": 1, "bob": 1, "cat": 1},
    "rounds": [
        {
            "cards": {"ann": "shark", "bob": "plankton", "cat": "plankton"},
            "slaps": [{"player": "bob", "t_us": 900}],
        }
    ],
}

Run = Callable[..., tuple[int, str, str]]  # the conftest run_cli fixture


def write(tmp_path: Path, doc: object, name: str = "input.json") -> Path:
    """A file holding ``doc`` as JSON (or ``doc`` itself when it is a string)."""
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def run_json(run_cli: Run, *argv: str, stdin: str = "") -> dict[str, Any]:
    """Run a ``--json`` command that must succeed and print exactly one JSON object."""
    code, out, err = run_cli(*argv, stdin=stdin)
    assert (code, err) == (0, "")
    value = json.loads(out)  # fails on anything but a single JSON value
    assert isinstance(value, dict)
    return value


def bad_input(run_cli: Run, *argv: str, stdin: str = "") -> str:
    """Run a command that must refuse its input: status 2, nothing on stdout and one line
    on stderr without a traceback. Returns that line."""
    code, out, err = run_cli(*argv, stdin=stdin)
    assert code == 2, (out, err)
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


def judge_error(run_cli: Run, tmp_path: Path, doc: object) -> str:
    path = write(tmp_path, doc)
    line = bad_input(run_cli, "chomp", "judge", str(path))
    assert line.startswith(f"companion: {path}: "), line
    return line.removeprefix(f"companion: {path}: ")


def replay_error(run_cli: Run, tmp_path: Path, doc: object) -> str:
    path = write(tmp_path, doc)
    line = bad_input(run_cli, "chomp", "replay", "--json", str(path))
    assert line.startswith(f"companion: {path}: "), line
    return line.removeprefix(f"companion: {path}: ")


def with_(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**json.loads(json.dumps(base)), **changes}


# --------------------------------------------------------------------------------------
# Good input
# --------------------------------------------------------------------------------------


def test_judge_json_prints_one_verdict_object_as_in_formats(tmp_path: Path, run_cli: Run) -> None:
    verdict = run_json(run_cli, "chomp", "judge", "--json", str(write(tmp_path, ROUND)))
    assert VERDICT_KEYS <= set(verdict)
    assert {k: verdict[k] for k in VERDICT_KEYS} == {
        "outcome": "win",
        "winner": "bob",
        "bad_chomps": [],
        "chomped": ["ann", "cat", "dan"],
        "returned": [],
        "set_aside": False,
    }


def test_judge_json_reports_bad_chomps_and_returned_cards(tmp_path: Path, run_cli: Run) -> None:
    # cat shows the lowest creature (C3: bad chomp); ann's seal cannot eat bob's shark.
    doc = with_(
        ROUND,
        slaps=[{"player": "cat", "t_us": 100}, {"player": "ann", "t_us": 900}],
    )
    verdict = run_json(run_cli, "chomp", "judge", "--json", str(write(tmp_path, doc)))
    assert {k: verdict[k] for k in VERDICT_KEYS} == {
        "outcome": "win",
        "winner": "ann",
        "bad_chomps": ["cat"],
        "chomped": ["cat", "dan"],
        "returned": ["bob"],
        "set_aside": False,
    }


def test_judge_formats_example_with_its_500us_window_is_a_tie(tmp_path: Path, run_cli: Run) -> None:
    # bob (1250) and ann (1310) may both chomp and are 60 us apart: a tie by C5.
    doc = with_(ROUND, tie_window_us=500)
    verdict = run_json(run_cli, "chomp", "judge", "--json", str(write(tmp_path, doc)))
    assert (verdict["outcome"], verdict["winner"], verdict["set_aside"]) == ("tie", None, True)


def test_judge_report_names_the_winner(tmp_path: Path, run_cli: Run) -> None:
    code, out, err = run_cli("chomp", "judge", str(write(tmp_path, ROUND)))
    assert (code, err) == (0, "")
    assert "bob wins" in out
    assert "{" not in out  # the readable report, not JSON


def test_judge_reads_stdin_for_dash(run_cli: Run) -> None:
    verdict = run_json(run_cli, "chomp", "judge", "--json", "-", stdin=json.dumps(ROUND))
    assert verdict["winner"] == "bob"


def test_replay_json_prints_one_game_object_as_in_formats(tmp_path: Path, run_cli: Run) -> None:
    game = run_json(run_cli, "chomp", "replay", "--json", str(write(tmp_path, SHORT_GAME)))
    assert GAME_KEYS <= set(game)
    assert game["cards"] == {"ann": 3, "bob": 0, "cat": 0}
    assert game["pot"] == 0
    assert game["out"] == ["bob", "cat"]
    assert game["over"] is True
    assert game["winner"] == "ann"
    assert len(game["rounds"]) == 1
    (verdict,) = game["rounds"]
    assert VERDICT_KEYS <= set(verdict)
    assert {k: verdict[k] for k in VERDICT_KEYS} == {
        "outcome": "win",
        "winner": "ann",
        "bad_chomps": ["bob"],
        "chomped": ["bob", "cat"],
        "returned": [],
        "set_aside": False,
    }


def test_replay_json_of_a_game_that_goes_on(tmp_path: Path, run_cli: Run) -> None:
    doc = {
        "players": ["ann", "bob", "cat"],
        "rounds": [{"cards": {"ann": "octopus", "bob": "shark", "cat": "seal"}}],
    }
    game = run_json(run_cli, "chomp", "replay", "--json", str(write(tmp_path, doc)))
    # C2: 16 each; C10: the ink-out round goes to the pot.
    assert game["cards"] == {"ann": 15, "bob": 15, "cat": 15}
    assert game["pot"] == 3
    assert (game["out"], game["over"], game["winner"]) == ([], False, None)
    assert game["rounds"][0]["outcome"] == "ink_out"


def test_replay_report_names_the_winner(tmp_path: Path, run_cli: Run) -> None:
    code, out, err = run_cli("chomp", "replay", str(write(tmp_path, SHORT_GAME)))
    assert (code, err) == (0, "")
    assert "ann wins" in out
    assert "Game over: ann wins." in out


def test_replay_reads_stdin_for_dash(run_cli: Run) -> None:
    game = run_json(run_cli, "chomp", "replay", "--json", "-", stdin=json.dumps(SHORT_GAME))
    assert (game["winner"], game["out"]) == ("ann", ["bob", "cat"])


def test_judge_json_runs_as_a_module_in_a_subprocess() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "companion", "chomp", "judge", "--json", "-"],
        input=json.dumps(ROUND),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout)["winner"] == "bob"


# --------------------------------------------------------------------------------------
# Bad input: status 2 and one line naming the file and the place
# --------------------------------------------------------------------------------------


def test_judge_not_json_names_file_line_and_column(tmp_path: Path, run_cli: Run) -> None:
    message = judge_error(run_cli, tmp_path, '{"cards": {"ann": "seal",\n')
    assert message.startswith("line 2 column 1: not JSON")


def test_replay_not_json_names_file_line_and_column(tmp_path: Path, run_cli: Run) -> None:
    message = replay_error(run_cli, tmp_path, '{"players": ["ann", "bob" "cat"]}')
    assert message.startswith("line 1 column 27: not JSON")


def test_judge_not_json_on_stdin_names_stdin(run_cli: Run) -> None:
    line = bad_input(run_cli, "chomp", "judge", "--json", "-", stdin="not json")
    assert line.startswith("companion: <stdin>: line 1 column 1: not JSON")


def test_judge_unknown_key_names_file_and_key(tmp_path: Path, run_cli: Run) -> None:
    message = judge_error(run_cli, tmp_path, with_(ROUND, colour="red"))
    assert message.startswith("colour: unknown key 'colour'")


def test_replay_unknown_key_in_a_slap_names_file_and_place(tmp_path: Path, run_cli: Run) -> None:
    doc = with_(SHORT_GAME)
    doc["rounds"][0]["slaps"][0]["when"] = "now"
    message = replay_error(run_cli, tmp_path, doc)
    assert message.startswith("rounds[0].slaps[0].when: unknown key 'when'")


def test_judge_unknown_card_names_file_and_place(tmp_path: Path, run_cli: Run) -> None:
    doc = with_(ROUND, cards={**ROUND["cards"], "dan": "whale"})
    message = judge_error(run_cli, tmp_path, doc)
    assert message.startswith("cards.dan: unknown card 'whale'")


def test_replay_unknown_card_names_file_and_place(tmp_path: Path, run_cli: Run) -> None:
    doc = with_(SHORT_GAME)
    doc["rounds"][0]["cards"]["cat"] = "whale"
    message = replay_error(run_cli, tmp_path, doc)
    assert message.startswith("rounds[0].cards.cat: unknown card 'whale'")


def test_replay_unknown_player_in_deal_names_file_and_place(tmp_path: Path, run_cli: Run) -> None:
    doc = with_(SHORT_GAME, deal={"ann": 1, "bob": 1, "zed": 1})
    message = replay_error(run_cli, tmp_path, doc)
    assert message.startswith("deal.zed: unknown player 'zed'")


def test_replay_round_card_for_unknown_player_names_file_and_place(
    tmp_path: Path, run_cli: Run
) -> None:
    doc = with_(SHORT_GAME)
    doc["rounds"][0]["cards"]["zed"] = "shrimp"
    message = replay_error(run_cli, tmp_path, doc)
    assert message.startswith("rounds[0].cards.zed: unknown player 'zed'")


def test_judge_slap_by_player_without_card_names_file_and_place(
    tmp_path: Path, run_cli: Run
) -> None:
    doc = with_(ROUND, slaps=[{"player": "bob", "t_us": 5}, {"player": "zed", "t_us": 9}])
    message = judge_error(run_cli, tmp_path, doc)
    assert message.startswith("slaps[1].player: 'zed' has no card in this round")


def test_replay_slap_by_player_without_card_names_file_and_place(
    tmp_path: Path, run_cli: Run
) -> None:
    doc = with_(SHORT_GAME)
    doc["rounds"][0]["slaps"] = [{"player": "zed", "t_us": 9}]
    message = replay_error(run_cli, tmp_path, doc)
    assert message.startswith("rounds[0].slaps[0].player: 'zed' has no card in this round")


def test_judge_list_of_cards_in_standard_names_file_and_place(tmp_path: Path, run_cli: Run) -> None:
    doc = with_(ROUND, cards={**ROUND["cards"], "ann": ["seal"]})
    message = judge_error(run_cli, tmp_path, doc)
    assert message.startswith("cards.ann: standard shows one card per player")


def test_judge_three_cards_in_double_chomp_names_file_and_place(
    tmp_path: Path, run_cli: Run
) -> None:
    doc = {
        "mode": "double_chomp",
        "cards": {"ann": ["seal", "shark", "shrimp"], "bob": ["plankton", "seal"]},
    }
    message = judge_error(run_cli, tmp_path, doc)
    assert message.startswith("cards.ann: double_chomp shows two cards per player, got 3")


def test_judge_two_players_in_standard_names_file_and_place(tmp_path: Path, run_cli: Run) -> None:
    doc = with_(ROUND, cards={"ann": "seal", "bob": "shark"}, slaps=[])
    message = judge_error(run_cli, tmp_path, doc)
    assert message.startswith("cards: standard needs 3 or more players, got 2")


def test_replay_one_card_in_double_chomp_with_cards_to_spare_names_file_and_place(
    tmp_path: Path, run_cli: Run
) -> None:
    doc = {
        "players": ["ann", "bob"],
        "mode": "double_chomp",
        "rounds": [{"cards": {"ann": ["seal", "shrimp"], "bob": ["plankton"]}}],
    }
    message = replay_error(run_cli, tmp_path, doc)
    assert message.startswith("rounds[0].cards.bob: 'bob' turns over 2 card(s)")


def test_replay_round_after_game_over_names_file_and_round(tmp_path: Path, run_cli: Run) -> None:
    doc = with_(SHORT_GAME)
    doc["rounds"].append({"cards": {"ann": "shark"}})
    message = replay_error(run_cli, tmp_path, doc)
    assert message.startswith("rounds[1]: the game is already over")


def test_judge_missing_file_names_file(tmp_path: Path, run_cli: Run) -> None:
    path = tmp_path / "nowhere.json"
    line = bad_input(run_cli, "chomp", "judge", "--json", str(path))
    assert line == f"companion: {path}: no such file"


def test_replay_missing_file_names_file(tmp_path: Path, run_cli: Run) -> None:
    path = tmp_path / "nowhere.json"
    line = bad_input(run_cli, "chomp", "replay", str(path))
    assert line == f"companion: {path}: no such file"


def test_judge_negative_tie_window_names_file_and_place(tmp_path: Path, run_cli: Run) -> None:
    message = judge_error(run_cli, tmp_path, with_(ROUND, tie_window_us=-1))
    assert message.startswith("tie_window_us: must be at least 0")


def test_replay_negative_tie_window_names_file_and_place(tmp_path: Path, run_cli: Run) -> None:
    message = replay_error(run_cli, tmp_path, with_(SHORT_GAME, tie_window_us=-500))
    assert message.startswith("tie_window_us: must be at least 0")


@pytest.mark.parametrize("t_us", ["soon", 12.5, None, True])
def test_judge_non_integer_t_us_names_file_and_place(
    tmp_path: Path, t_us: object, run_cli: Run
) -> None:
    doc = with_(ROUND, slaps=[{"player": "bob", "t_us": 5}, {"player": "ann", "t_us": t_us}])
    message = judge_error(run_cli, tmp_path, doc)
    assert message.startswith("slaps[1].t_us: expected a whole number")


def test_replay_non_integer_t_us_names_file_and_place(tmp_path: Path, run_cli: Run) -> None:
    doc = with_(SHORT_GAME)
    doc["rounds"][0]["slaps"][0]["t_us"] = "900us"
    message = replay_error(run_cli, tmp_path, doc)
    assert message.startswith("rounds[0].slaps[0].t_us: expected a whole number")


def test_judge_deeply_nested_json_is_bad_input_not_a_traceback(
    tmp_path: Path, run_cli: Run
) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 5000)
    line = bad_input(run_cli, "chomp", "judge", str(path))
    assert "nested too deeply" in line and str(path) in line


def test_judge_fractional_t_us_says_which_value(tmp_path: Path, run_cli: Run) -> None:
    doc = {
        "cards": {"a": "plankton", "b": "seal", "c": "shark"},
        "slaps": [{"player": "b", "t_us": 12.5}],
    }
    line = judge_error(run_cli, tmp_path, doc)
    assert "slaps[0].t_us" in line and "12.5" in line


def test_judge_empty_player_name_is_pointed_at(tmp_path: Path, run_cli: Run) -> None:
    line = judge_error(run_cli, tmp_path, {"cards": {"": "plankton", "b": "seal", "c": "shark"}})
    assert "cards['']" in line
