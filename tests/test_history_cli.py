"""``companion history list|show|stats`` and ``bench history`` end to end, and the README's
plot, which a command makes from a made-up database."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from companion.cli import main
from companion.history.bench import bench_history
from companion.history.generate import example_plot

ROOT = Path(__file__).resolve().parent.parent
DATES = {
    "chomp-journal.jsonl": "2026-10-01T20:00:00+00:00",
    "getbit-two-players.json": "2026-10-15T20:00:00+00:00",
    "dino-game.json": "2026-11-01T20:00:00+00:00",
}


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "h.sqlite3"
    for name, when in DATES.items():
        assert (
            main(
                [
                    "history",
                    "--db",
                    str(path),
                    "import",
                    "--date",
                    when,
                    str(ROOT / "examples" / name),
                ]
            )
            == 0
        )
    capsys.readouterr()
    return path


def out(db: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """A history query that must succeed, on ``db``; its stdout (the db fixture shares capsys)."""
    assert main(["history", "--db", str(db), *args]) == 0
    return capsys.readouterr().out


def test_list_filters_by_game_player_and_date(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert out(db, capsys, "list").splitlines() == [
        "#1    2026-10-01  CHOMP!      ann 9, bob 8, cat 9, dan 17  unfinished",
        "#2    2026-10-15  Get Bit!    ann 8, bob 4  won by ann",
        "#3    2026-11-01  Chomp       ann 29, bob 14, cat 29  won by cat",
    ]
    assert [line[:2] for line in out(db, capsys, "list", "--game", "getbit").splitlines()] == ["#2"]
    assert [line[:2] for line in out(db, capsys, "list", "--player", "dan").splitlines()] == ["#1"]
    since = out(db, capsys, "list", "--since", "2026-10-10", "--until", "2026-10-31")
    assert [line[:2] for line in since.splitlines()] == ["#2"]
    assert out(db, capsys, "list", "--player", "nobody") == "no games\n"
    games = json.loads(out(db, capsys, "list", "--json"))["games"]
    assert [g["kind"] for g in games] == ["chomp", "getbit", "dino"]


def test_show_a_chomp_game_round_by_round(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = out(db, capsys, "show", "1").splitlines()
    assert lines[0] == "CHOMP! game #1, 2026-10-01T20:00:00+00:00"
    assert lines[-4:] == [
        "  round   1  tie  [cat +405.213 ms bad chomp (lowest card); ann +412.030 ms tied;"
        " bob +412.290 ms tied]",
        "  round   2  win: dan by 1087 us  [dan +298.774 ms won; cat +299.861 ms ignored]",
        "  round   3  ink out  [bob +351.002 ms bad chomp (ink out)]",
        "  unfinished",
    ]
    shown = json.loads(out(db, capsys, "show", "1", "--json"))
    assert [r["outcome"] for r in shown["rounds"]] == ["tie", "win", "ink_out"]


def test_show_saves_the_counts_plot(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    svg = tmp_path / "counts.svg"
    out(db, capsys, "show", "2", "--svg", str(svg))
    ET.parse(svg)
    assert "round   5  blue:3 green:4 red:2 yellow:1  yellow bitten, out: yellow" in out(
        db, capsys, "show", "2"
    )


def test_show_an_unknown_game_is_one_line(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--db", str(db), "show", "99"]) == 2
    assert capsys.readouterr().err == "companion: GAME: no game #99 in the history\n"


def test_stats_for_one_player_reads_as_the_docs_show(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert out(db, capsys, "stats", "bob").splitlines() == [
        "bob",
        "  chomp      1 played, 0 won",
        "  dino       1 played, 0 won",
        "  getbit     1 played, 0 won",
        "  CHOMP! reaction after the reveal: median 381.6 ms (p10 357.1 ms, p90 406.2 ms)"
        " over 2 slaps",
        "  CHOMP! bad chomps: 1 of 2 slaps (50%): ink out 1",
        "  CHOMP! rounds won 0, ties 1",
        "  Get Bit! rounds survived 5 (5.0 a game), bites taken 4",
        "  Chomp land: average 14, best 14",
    ]
    assert "closest decided lead: 1087 us (game #1, round 2)" in out(db, capsys, "stats", "dan")


def test_stats_plots(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out(db, capsys, "stats", "--svg", str(tmp_path / "r.svg"))
    out(db, capsys, "stats", "ann", "--svg", str(tmp_path / "f.svg"))
    assert ET.parse(tmp_path / "r.svg").getroot().tag.endswith("svg")
    assert ET.parse(tmp_path / "f.svg").getroot().tag.endswith("svg")
    figures = json.loads(out(db, capsys, "stats", "--json"))["players"]
    assert [f["player"] for f in figures] == ["ann", "bob", "cat", "dan"]


def test_a_bad_date_is_refused(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["history", "--db", str(db), "list", "--since", "yesterday"])
    assert stop.value.code == 2
    assert "not a date" in capsys.readouterr().err


def test_bench_history_reports_its_figures() -> None:
    report = bench_history(games=12, rounds=10, stats_calls=5)
    assert report["games"] == report["games"] == 12
    assert 0 < report["rounds_per_game"] <= 10
    assert report["games_per_s"] > 0 and report["db_bytes"] > 0
    assert set(report["stats_ms"]) == {"p50", "p99"}


def test_bench_history_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["bench", "history", "--games", "3", "--rounds", "5", "--stats-calls", "2", "--json"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["games"] == 3


def test_the_readme_plot_is_what_the_command_makes(tmp_path: Path) -> None:
    """docs/history-reactions.svg is made by ``python -m companion.history.generate``."""
    made = example_plot(tmp_path / "r.svg")
    assert made == (ROOT / "docs" / "history-reactions.svg").read_text(encoding="utf-8")
    assert "history-reactions.svg" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_docs_show_and_stats_blocks_are_what_the_commands_print(
    repo_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    db = tmp_path / "h.sqlite3"
    files = [
        "examples/chomp-journal.jsonl",
        "examples/getbit-two-players.json",
        "examples/dino-game.json",
    ]
    assert (
        main(["history", "--db", str(db), "import", "--date", "2026-10-01T20:00:00+00:00", *files])
        == 0
    )
    capsys.readouterr()
    page = (repo_root / "docs" / "history.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n(.*?)```", page, re.S)
    assert blocks == [out(db, capsys, "show", "1"), out(db, capsys, "stats", "bob")]
