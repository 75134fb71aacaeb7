"""``companion dino`` as a user runs it: score (JSON, grid, placement log, stdin), game,
catalog check and bench; output that matches formats.md; one-line errors with exit status
2; and every ``console`` example in docs/dino-*.md prints what the page shows.

The commands are driven through a parser built here from ``companion.commands.dino``, so
these tests do not depend on how the top-level CLI is assembled; one test goes through
``companion.cli.main`` as well.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.commands import dino
from companion.errors import CompanionError

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SCORE_KEYS = {
    "herds",
    "eggs",
    "dino_points",
    "egg_points",
    "goal_points",
    "total",
    "biggest_living_herd",
}
HERD_KEYS = {"dino", "dinos", "sections", "alive", "why", "points"}


def main(argv: list[str]) -> int:
    """What ``companion`` does with a ``dino`` command line (companion.cli.main's contract),
    through ``dino.register`` alone: these tests hold the command module, not cli.py's table."""
    parser = argparse.ArgumentParser(prog="companion")
    dino.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except CompanionError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 2


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Like conftest's run_cli, but through this file's dino-only parser above."""
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    value = json.loads(out)
    assert isinstance(value, dict)
    return value


def bad_input(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Status 2, nothing on stdout, one line on stderr and no traceback."""
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


def write(tmp_path: Path, content: object, name: str = "land.json") -> str:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return str(path)


# ---------------------------------------------------------------- score ---------------


def test_score_json_has_the_formats_md_keys(
    capsys: pytest.CaptureFixture[str], repo_root: Path
) -> None:
    out = run_json(capsys, "dino", "score", "--json", "examples/dino-land.json")
    assert SCORE_KEYS <= set(out)
    assert all(HERD_KEYS <= set(h) for h in out["herds"])
    assert (out["total"], out["eggs"], out["herds"][0]["why"]) == (5, 1, "plants")


def test_score_reads_a_text_grid(capsys: pytest.CaptureFixture[str], repo_root: Path) -> None:
    out = run_json(capsys, "dino", "score", "--json", "examples/dino-worked-example.txt")
    assert (out["dino_points"], out["egg_points"], out["total"]) == (27, 2, 29)
    assert len(out["herds"]) == 14
    assert all(isinstance(h["explain"], str) for h in out["herds"])


def test_score_reads_a_placement_log_and_its_catalog(
    capsys: pytest.CaptureFixture[str], repo_root: Path
) -> None:
    out = run_json(capsys, "dino", "score", "--json", "examples/dino-placements.json")
    assert out["total"] == 14
    assert out["replay"]["cards"] == 7
    assert [e["nest"] for e in out["replay"]["eggs_lost"]] == ["x01:B2"]


def test_score_reads_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("lh = lh   P\nE    T    N\n"))
    out = run_json(capsys, "dino", "score", "--json", "-")
    assert out["total"] == 2  # the large herbivore is in the tar pit; the egg scores 2
    monkeypatch.setattr(sys, "stdin", io.StringIO("lh = lh   P\n-    -\nE    T    N\n"))
    assert run_json(capsys, "dino", "score", "--json", "-")["total"] == 5  # fenced off


def test_score_report_shows_the_land_and_the_total(
    capsys: pytest.CaptureFixture[str], repo_root: Path
) -> None:
    code, out, err = run(capsys, "dino", "score", "examples/dino-worked-example.txt")
    assert (code, err) == (0, "")
    assert "  1  P    mh    mc   T    E    lc = lc   M" in out
    assert "Score: dinos 27 + eggs 2 + goals 0 = 29" in out
    assert "{" not in out


def test_score_explain_tells_each_herd_why(
    capsys: pytest.CaptureFixture[str], repo_root: Path
) -> None:
    code, out, _ = run(capsys, "dino", "score", "--explain", "examples/dino-worked-example.txt")
    assert code == 0
    assert "is next to a tar pit. It got stuck. Extinct!" in out
    assert "A mountain range keeps it apart" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("P  sx\n", "line 1 column 4: unknown token 'sx'"),
        ("lh  P\n", "line 1 column 1: a large herbivore covers exactly 2 cells"),
        (
            {
                "sections": [
                    {"id": "a", "kind": "plants", "cells": [[0, 0]]},
                    {"id": "b", "kind": "meat", "cells": [[0, 0]]},
                ]
            },
            "sections[1]: cell [0, 0] is already in section 'a'",
        ),
        (
            {
                "sections": [{"id": "a", "kind": "plants", "cells": [[0, 0]]}],
                "mountains": [[[0, 0], [2, 0]]],
            },
            "mountains[0]: a mountain between [0, 0] and [2, 0], which are not neighbours",
        ),
        ('{"sections": [}', "line 1 column 15: not JSON"),
        ({"sections": [], "colour": "red"}, "colour: unknown key 'colour'"),
        (
            {"catalog": "nowhere.json", "placements": [{"card": "x", "x": 0, "y": 0}]},
            "nowhere.json: no such file",
        ),
    ],
)
def test_score_bad_input_is_one_line_naming_the_file_and_place(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: object, message: str
) -> None:
    path = write(tmp_path, content)
    line = bad_input(capsys, "dino", "score", path)
    assert line.startswith("companion: "), line
    assert message in line, line
    if "nowhere" not in message:
        assert line.startswith(f"companion: {path}: {message}")


def test_score_error_in_a_catalog_names_the_catalog_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    catalog = write(tmp_path, {"cards": {"x": {"land": ["P  P", "P  Z"]}}}, "cards.json")
    log = write(tmp_path, {"catalog": "cards.json", "placements": [{"card": "x", "x": 0, "y": 0}]})
    line = bad_input(capsys, "dino", "score", log)
    assert line == f"companion: {catalog}: cards.x.land[1] column 4: unknown token 'Z' " + (
        "(one of: P, T, M, N, E, e, _, ., sh[count], mh[count], lh[count], sc[count], "
        "mc[count], lc[count])"
    )


def test_score_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = str(tmp_path / "nowhere.txt")
    assert bad_input(capsys, "dino", "score", path) == f"companion: {path}: no such file"


# ---------------------------------------------------------------- game ----------------


def test_game_ranks_players_with_the_tie_break(
    capsys: pytest.CaptureFixture[str], repo_root: Path
) -> None:
    out = run_json(capsys, "dino", "game", "--json", "examples/dino-game.json")
    assert [(r["rank"], r["player"], r["total"]) for r in out["ranking"]] == [
        (1, "cat", 29),
        (2, "ann", 29),
        (3, "bob", 14),
    ]
    assert (out["winners"], out["shared_victory"], out["decided_by"]) == (
        ["cat"],
        False,
        "biggest_living_herd",
    )
    assert SCORE_KEYS <= set(out["players"]["ann"])


def test_game_shared_victory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = {"players": {"ann": {"land": ["sh  P"]}, "bob": {"land": ["P  sh"]}}}
    out = run_json(capsys, "dino", "game", "--json", write(tmp_path, doc))
    assert (out["winners"], out["shared_victory"], out["decided_by"]) == (
        ["ann", "bob"],
        True,
        "shared",
    )
    code, text, _ = run(capsys, "dino", "game", write(tmp_path, doc))
    assert code == 0 and "ann and bob share the victory" in text


def test_game_report_is_a_ranked_table(capsys: pytest.CaptureFixture[str], repo_root: Path) -> None:
    code, out, err = run(capsys, "dino", "game", "examples/dino-game.json")
    assert (code, err) == (0, "")
    rows = out.splitlines()
    assert rows[1].split() == [
        "rank",
        "player",
        "dinos",
        "eggs",
        "goals",
        "total",
        "biggest",
        "herd",
    ]
    assert rows[2].split() == ["1", "cat", "10", "2", "17", "29", "4"]
    assert rows[-1] == "cat wins on the tie-break: the most dinos in the biggest living herd."


def test_game_with_an_inline_land_json_and_log(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "cards.json").write_text(json.dumps({"cards": {"c": {"land": ["sh  P", "N  e"]}}}))
    doc = {
        "players": {
            "ann": {
                "land": {"sections": [{"id": "a", "kind": "nest", "egg": True, "cells": [[0, 0]]}]},
                "goals": [{"manual": 1}],
            },
            "bob": {
                "land": {"catalog": "cards.json", "placements": [{"card": "c", "x": 0, "y": 0}]}
            },
        }
    }
    out = run_json(capsys, "dino", "game", "--json", write(tmp_path, doc, "game.json"))
    assert [(r["player"], r["total"]) for r in out["ranking"]] == [("ann", 3), ("bob", 1)]


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"players": {}}, "players: a game has at least one player"),
        ({"players": {"ann": {}}}, "players.ann: missing key 'land'"),
        ({"players": {"ann": {"land": ["sh  Q"]}}}, "players.ann.land[0] column 5: unknown token"),
        (
            {"players": {"ann": {"land": {"sections": [{"id": "a"}]}}}},
            "players.ann.land.sections[0]: missing key 'kind'",
        ),
        (
            {"players": {"ann": {"land": ["P"], "goals": [{"per_cake": 1}]}}},
            "players.ann.goals[0].per_cake: unknown key",
        ),
        (
            {
                "players": {
                    "ann": {
                        "land": {"sections": [], "goals": [{"manual": 1}]},
                        "goals": [{"manual": 2}],
                    }
                }
            },
            "players.ann.goals: goals are given twice",
        ),
    ],
)
def test_game_bad_input_names_the_player_and_place(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, doc: object, message: str
) -> None:
    path = write(tmp_path, doc, "game.json")
    line = bad_input(capsys, "dino", "game", path)
    assert line.startswith(f"companion: {path}: {message}"), line


def test_game_land_file_error_names_that_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    land = write(tmp_path, "lh  P\n", "ann.txt")
    game = write(tmp_path, {"players": {"ann": {"land": "ann.txt"}}}, "game.json")
    line = bad_input(capsys, "dino", "game", game)
    assert line.startswith(f"companion: {land}: line 1 column 1: a large herbivore")


# ---------------------------------------------------------------- catalog, bench -------


def test_catalog_check_lists_the_cards(capsys: pytest.CaptureFixture[str], repo_root: Path) -> None:
    code, out, err = run(capsys, "dino", "catalog", "check", "examples/dino-catalog.example.json")
    assert (code, err) == (0, "")
    assert out.startswith("examples/dino-catalog.example.json: 8 cards, all valid.")
    report = run_json(
        capsys, "dino", "catalog", "check", "--json", "examples/dino-catalog.example.json"
    )
    assert report["cards"]["x03"] == {
        "sections": ["medium carnivore", "tar pit", "medium herbivore", "egg icon"],
        "mountains": 0,
        "egg_icon": True,
    }


def test_catalog_check_bad_card(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path, {"cards": {"c7": {"land": ["sh = sh", "P    T"]}}})
    line = bad_input(capsys, "dino", "catalog", "check", path)
    assert line.startswith(f"companion: {path}: cards.c7.land[0] column 1: a small or medium")


def test_bench_prints_figures(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "dino", "bench", "--json", "--cells", "400", "--repeat", "3")
    assert out["cells"] == 400 and out["repeat"] == 3
    assert out["ms_per_score"]["p50"] > 0 and out["goal_ms"] == 100


# ---------------------------------------------------------------- the real entry point --


def test_companion_cli_main_runs_dino_score(
    capsys: pytest.CaptureFixture[str], repo_root: Path
) -> None:
    from companion.cli import main as companion_main

    code = companion_main(["dino", "score", "--json", "examples/dino-worked-example.txt"])
    out = capsys.readouterr().out
    assert code == 0 and json.loads(out)["total"] == 29
