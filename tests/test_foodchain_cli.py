"""``companion foodchain score`` and ``companion foodchain catalog check`` as a user runs
them: reports, JSON, the optional rule's seeded draw, and one-line errors (exit 2) that
name the file and the place. The console examples of docs/foodchain.md run here too."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "foodchain.md"
EXAMPLE_CATALOG = ROOT / "examples" / "foodchain-catalog.example.json"

SHEET: dict[str, Any] = {
    "players": {
        "ann": {"eaten": [5, 3, 2], "tokens": {"ann": 3, "bob": 1}},
        "bob": {"eaten": [4], "tokens": {"bob": 3, "ann": 1}},
    }
}

Run = Callable[..., tuple[int, str, str]]  # the conftest run_cli fixture


def write(tmp_path: Path, doc: object, name: str = "sheet.json") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def bad_input(run_cli: Run, *argv: str, stdin: str = "") -> str:
    """Exit 2, nothing on stdout, one line on stderr and no traceback; returns the line."""
    code, out, err = run_cli(*argv, stdin=stdin)
    assert (code, out) == (2, ""), err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err.strip()


# ---------------------------------------------------------------- score -----------------


def test_score_prints_each_player_and_the_winner(tmp_path: Path, run_cli: Run) -> None:
    code, out, err = run_cli("foodchain", "score", str(write(tmp_path, SHEET)))
    assert (code, err) == (0, "")
    assert "players holding each other's tokens exchanged them first" in out
    assert re.search(r"ann +eaten 10 \(3 cards\) +tokens 4 +total 14", out)
    assert out.rstrip().endswith("ann wins with 14 points.")


def test_score_json_is_one_object(tmp_path: Path, run_cli: Run) -> None:
    code, out, _ = run_cli("foodchain", "score", "--json", str(write(tmp_path, SHEET)))
    doc = json.loads(out)
    assert code == 0 and doc["rule"] == "standard" and doc["seed"] is None
    assert doc["players"]["ann"]["total"] == 14 and doc["winners"] == ["ann"]
    assert doc["tokens_exchanged"] is True


def test_score_a_tie_is_a_shared_victory(tmp_path: Path, run_cli: Run) -> None:
    sheet = {"players": {p: {"eaten": [2], "tokens": {p: 4}} for p in ("ann", "bob")}}
    _, out, _ = run_cli("foodchain", "score", str(write(tmp_path, sheet)))
    assert "Shared victory: ann, bob with 6 points each." in out


def test_score_reads_stdin(run_cli: Run) -> None:
    code, out, _ = run_cli("foodchain", "score", "--json", "-", stdin=json.dumps(SHEET))
    assert code == 0 and json.loads(out)["players"]["bob"]["total"] == 8


def test_score_cards_by_name_through_the_sheets_catalog(repo_root: Path, run_cli: Run) -> None:
    code, out, _ = run_cli("foodchain", "score", "--json", "examples/foodchain-score.json")
    doc = json.loads(out)
    assert code == 0 and doc["players"]["ann"]["eaten"] == [
        "cranberry",
        "rabbit",
        "mushroom",
        "fox",
    ]
    assert [doc["players"][p]["total"] for p in ("ann", "bob", "cat")] == [19, 13, 16]


def test_score_catalog_option_and_inline_catalog(tmp_path: Path, run_cli: Run) -> None:
    sheet = {
        "players": {
            "ann": {"eaten": ["bear"], "tokens": {"ann": 4}},
            "bob": {"eaten": ["acorn"], "tokens": {"bob": 4}},
        }
    }
    path = write(tmp_path, sheet)
    _, out, _ = run_cli(
        "foodchain", "score", "--json", "--catalog", str(EXAMPLE_CATALOG), str(path)
    )
    assert json.loads(out)["winners"] == ["bob"]
    cards = [{"name": "bear", "level": 5, "points": 9}, {"name": "acorn", "level": 1, "points": 1}]
    inline = dict(sheet, catalog={"cards": cards})
    _, out, _ = run_cli("foodchain", "score", "--json", str(write(tmp_path, inline)))
    assert json.loads(out)["winners"] == ["ann"]


def test_score_optional_rule_is_repeatable_with_a_seed(repo_root: Path, run_cli: Run) -> None:
    argv = (
        "foodchain",
        "score",
        "--json",
        "--optional",
        "--seed",
        "7",
        "examples/foodchain-score.json",
    )
    first = json.loads(run_cli(*argv)[1])
    assert first == json.loads(run_cli(*argv)[1])
    assert first["rule"] == "optional" and first["seed"] == 7
    assert first["players"]["ann"]["taken"][0]["from"] == "bob"
    assert all(first["players"][p]["tokens"] == 0 for p in ("ann", "bob", "cat"))


def test_score_optional_without_seed_says_how_to_repeat_it(repo_root: Path, run_cli: Run) -> None:
    code, out, _ = run_cli("foodchain", "score", "--optional", "examples/foodchain-score.json")
    seed = re.search(r"optional rule \(seed (\d+)\)", out)
    assert code == 0 and seed and f"(draw again the same way with --seed {seed[1]})" in out
    again = run_cli(
        "foodchain",
        "score",
        "--optional",
        "--seed",
        seed[1],
        "examples/foodchain-score.json",
    )[1]
    assert again.splitlines()[1:-1] == out.splitlines()[1:-2]


# ---------------------------------------------------------------- score: bad input ------


def two(ann: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A two-player sheet where bob is fine and ann is as given."""
    return {"players": {"ann": ann, "bob": {"eaten": [], "tokens": {"bob": 4}}}, **extra}


FINE = {"eaten": [], "tokens": {"ann": 4}}


@pytest.mark.parametrize(
    ("sheet", "message"),
    [
        ("{", "line 1 column 2: not JSON"),
        ({"players": {"ann": FINE}}, "players: Food Chain is for 2 to 4"),
        (two({"eaten": ["fox"], "tokens": {"ann": 4}}), "players.ann.eaten[0]: 'fox' is a card"),
        (two({"eaten": [-1], "tokens": {"ann": 4}}), "players.ann.eaten[0]: must be at least 0"),
        (two({"eaten": [], "tokens": {"ann": 3}}), "players: 3 of ann's 4 tokens are listed"),
        (two({"eaten": [], "tokens": {"zed": 1}}), "players.ann.tokens.zed: 'zed' is neither"),
        (two({"eaten": []}), "players.ann: missing key 'tokens'"),
        (two(FINE, rounds=3), "rounds: unknown key"),
    ],
)
def test_score_bad_sheet_is_one_line_naming_file_and_place(
    tmp_path: Path, sheet: object, message: str, run_cli: Run
) -> None:
    path = write(tmp_path, sheet)
    line = bad_input(run_cli, "foodchain", "score", str(path))
    assert line.startswith(f"companion: {path}: {message}")


def test_score_unknown_card_and_too_many_copies_name_the_place(
    tmp_path: Path, run_cli: Run
) -> None:
    catalog = str(EXAMPLE_CATALOG)
    sheet = two({"eaten": ["dragon"], "tokens": {"ann": 4}}, catalog=catalog)
    line = bad_input(run_cli, "foodchain", "score", str(write(tmp_path, sheet)))
    assert line.endswith("players.ann.eaten[0]: no card named 'dragon' in the catalog")
    sheet["players"]["ann"]["eaten"] = ["bear"] * 4
    line = bad_input(run_cli, "foodchain", "score", str(write(tmp_path, sheet)))
    assert line.endswith("players.ann.eaten[3]: more 'bear' cards eaten than the 3 made")


def test_score_catalog_problems_name_the_catalog_file(tmp_path: Path, run_cli: Run) -> None:
    write(tmp_path, {"cards": [{"name": "bear", "level": 5}]}, "cards.json")
    sheet = {"catalog": "cards.json", "players": SHEET["players"]}
    line = bad_input(run_cli, "foodchain", "score", str(write(tmp_path, sheet)))
    assert line == f"companion: {tmp_path / 'cards.json'}: cards[0]: missing key 'points'"
    sheet["catalog"] = "nowhere.json"
    line = bad_input(run_cli, "foodchain", "score", str(write(tmp_path, sheet)))
    assert line == f"companion: {tmp_path / 'nowhere.json'}: no such file"


def test_score_seed_needs_the_optional_rule(tmp_path: Path, run_cli: Run) -> None:
    line = bad_input(run_cli, "foodchain", "score", "--seed", "3", str(write(tmp_path, SHEET)))
    assert line == "companion: --seed: the seed is for the optional rule's draw: add --optional"


def test_score_missing_file(run_cli: Run) -> None:
    assert (
        bad_input(run_cli, "foodchain", "score", "nope.json")
        == "companion: nope.json: no such file"
    )


# ---------------------------------------------------------------- catalog check ---------


def test_catalog_check_the_example(repo_root: Path, run_cli: Run) -> None:
    code, out, err = run_cli(
        "foodchain", "catalog", "check", "examples/foodchain-catalog.example.json"
    )
    assert (code, err) == (0, "")
    assert "an example catalog, not the real cards" in out
    assert "52 cards: 50 creatures and plants of 14 kinds, the Huntsman, the Swarm" in out
    assert out.rstrip().endswith("with invented cards")
    assert "a full Food Chain deck" not in out  # an invented catalog is never the real deck


def test_catalog_check_calls_a_real_catalog_the_full_deck(tmp_path: Path, run_cli: Run) -> None:
    doc = json.loads((ROOT / "examples" / "foodchain-catalog.example.json").read_text("utf-8"))
    doc.pop("example")
    doc["title"] = "our cards"
    path = tmp_path / "ours.json"
    path.write_text(json.dumps(doc), "utf-8")
    code, out, _ = run_cli("foodchain", "catalog", "check", str(path))
    assert code == 0 and out.rstrip().endswith("OK: a full Food Chain deck")


def test_catalog_check_refuses_a_deck_that_is_not_the_games(tmp_path: Path, run_cli: Run) -> None:
    doc = json.loads(EXAMPLE_CATALOG.read_text("utf-8"))
    doc["cards"][0]["copies"] = 3
    path = write(tmp_path, doc, "cards.json")
    line = bad_input(run_cli, "foodchain", "catalog", "check", str(path))
    assert line == f"companion: {path}: cards: 51 cards in all; the game has 52"


def test_catalog_check_warns_about_one_way_symbols(tmp_path: Path, run_cli: Run) -> None:
    doc = json.loads(EXAMPLE_CATALOG.read_text("utf-8"))
    doc["cards"][0]["predators"].remove("bear")  # the bear still shows cranberry as prey
    path = write(tmp_path, doc, "cards.json")
    code, out, err = run_cli("foodchain", "catalog", "check", str(path))
    assert code == 0 and "OK" in out
    assert err.startswith(f"companion: warning: {path}: cards[13].prey: bear shows cranberry")


def test_catalog_check_bad_structure_names_the_place(tmp_path: Path, run_cli: Run) -> None:
    path = write(tmp_path, {"cards": [{"name": "fox", "level": "IIII", "points": 1}]}, "c.json")
    line = bad_input(run_cli, "foodchain", "catalog", "check", str(path))
    assert (
        line == f"companion: {path}: cards[0].level: not a level: 'IIII' (a number like 3 or 'III')"
    )


# ---------------------------------------------------------------- a typed score sheet ---


def test_score_sheet_typed_one_line_per_player(run_cli: Run) -> None:
    sheet = "ann: 3 5 2 | red red red blue\nbob: 4 | blue blue blue red\n"
    code, out, _ = run_cli("foodchain", "score", "--colours", "ann=red,bob=blue", stdin=sheet)
    assert code == 0
    assert out.splitlines() == [
        "Food Chain score: typed sheet",
        "  (players holding each other's tokens exchanged them first)",
        "  ann  eaten 10 (3 cards)  tokens 4   total 14",
        "  bob  eaten 4 (1 card)    tokens 4   total 8",
        "ann wins with 14 points.",
    ]


def test_score_sheet_asked_player_by_player(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = iter(["3 5", "ann ann ann ann", "rabbit", "bob bob bob bob"])
    asked: list[str] = []
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)

    def answer(question: str) -> str:
        asked.append(question)
        return next(answers)

    monkeypatch.setattr("builtins.input", answer)
    argv = [
        "foodchain",
        "score",
        "--players",
        "ann,bob",
        "--catalog",
        "examples/foodchain-catalog.example.json",
    ]
    # Not run_cli: its stdin is a StringIO, and this sheet is asked of a terminal.
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0 and asked[0] == "ann: the sun points of the cards you ate (or their names): "
    assert "bob  eaten 3 (1 card)" in out and out.rstrip().endswith("ann wins with 12 points.")


@pytest.mark.parametrize(
    ("text", "argv", "message"),
    [
        ("ann 3 5\n", [], "companion: typed sheet: line 1: write a player per line"),
        (
            "ann: 3 | ann ann ann ann\nann: 2 | bob\n",
            [],
            "companion: typed sheet: line 2: 'ann' has a line already",
        ),
        (
            "ann: 3 99 | ann ann ann ann\nbob: | bob bob bob bob\n",
            ["--catalog", "examples/foodchain-catalog.example.json"],
            "companion: typed sheet: players.ann.eaten[1]: no card in the catalog is worth 99",
        ),
        (
            "ann: swarm | ann ann ann ann\nbob: | bob bob bob bob\n",
            ["--catalog", "examples/foodchain-catalog.example.json"],
            "companion: typed sheet: players.ann.eaten[0]: the swarm is a bonus card",
        ),
        (
            "ann: 3 | ann ann ann ann\nbob: | bob bob bob bob\n",
            ["--colours", "zed"],
            "companion: --colours: 'zed'",
        ),
    ],
)
def test_typed_sheet_problems_are_one_line(
    text: str, argv: list[str], message: str, run_cli: Run
) -> None:
    assert bad_input(run_cli, "foodchain", "score", *argv, stdin=text).startswith(message)
