"""The scoring commands record what they finish in the history, and never fail for it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import RunCli

ROOT = Path(__file__).resolve().parent.parent


def games(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT kind, source FROM games ORDER BY id"))


def test_dino_game_is_recorded_once(run_cli: RunCli, private_history: Path) -> None:
    game = str(ROOT / "examples" / "dino-game.json")
    assert run_cli("dino", "game", game).status == 0
    assert run_cli("dino", "game", game, "--json").status == 0  # the same game again
    assert games(private_history) == [("dino", game)]


def test_foodchain_score_is_recorded_in_the_named_database(
    run_cli: RunCli, tmp_path: Path, private_history: Path
) -> None:
    sheet = str(ROOT / "examples" / "foodchain-score.json")
    assert run_cli("foodchain", "score", sheet, "--db", str(tmp_path / "mine.db")).status == 0
    assert games(tmp_path / "mine.db") == [("foodchain", sheet)]
    assert not private_history.exists()


def test_no_history_records_nothing(run_cli: RunCli, private_history: Path) -> None:
    game = str(ROOT / "examples" / "dino-game.json")
    assert run_cli("dino", "game", game, "--no-history").status == 0
    assert not private_history.exists()


def test_a_history_that_cannot_be_written_is_one_warning_and_the_score_stands(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("COMPANION_HISTORY_DB", str(blocker / "history.sqlite3"))
    result = run_cli("dino", "game", str(ROOT / "examples" / "dino-game.json"))
    assert result.status == 0 and "Chomp game:" in result.out
    assert result.err.count("\n") == 1
    assert result.err.startswith(
        "companion: the score stands; the game was not recorded in the history"
    )


def test_getbit_play_records_the_game_once_it_is_over(
    run_cli: RunCli, tmp_path: Path, private_history: Path
) -> None:
    """The two-player example played at the table: yellow is bitten out in round 5."""
    robots = "--robots", "red=ann,blue=bob,green=ann,yellow=bob", "--line", "red,blue,green,yellow"
    rounds = "1 1 1 1\n2 2 2 2\n3 4 5 1\n5 3 4 1\n2 3 4 1\n"
    save = tmp_path / "game.json"
    result = run_cli("getbit", "play", *robots, "--save", str(save), stdin=rounds)
    assert result.status == 0 and "game over, ann won" in result.err
    assert games(private_history) == [("getbit", str(save))]


def test_getbit_play_does_not_record_a_game_left_half_way(
    run_cli: RunCli, tmp_path: Path, private_history: Path
) -> None:
    robots = "--robots", "red=ann,blue=bob,green=ann,yellow=bob", "--line", "red,blue,green,yellow"
    save = tmp_path / "game.json"
    result = run_cli("getbit", "play", *robots, "--save", str(save), stdin="1 1 1 1\nquit\n")
    assert result.status == 0 and not private_history.exists()


def test_dino_score_records_a_land_only_under_a_players_name(
    run_cli: RunCli, private_history: Path
) -> None:
    land = str(ROOT / "examples" / "dino-land.json")
    assert run_cli("dino", "score", land).status == 0
    assert not private_history.exists()  # whose land? nothing to file it under
    assert run_cli("dino", "score", land, "--player", "ann", "--no-history").status == 0
    assert not private_history.exists()
    scored = run_cli("dino", "score", land, "--player", "ann", "--json")
    assert scored.status == 0 and scored.err == ""
    assert games(private_history) == [("dino", land)]
    listed = run_cli("history", "list").out.split()
    assert listed[2:6] == ["Chomp", "ann", "5", "won"]  # a game of one: ann's land, 5 points


def test_dino_score_refuses_an_empty_player_name_before_scoring(run_cli: RunCli) -> None:
    land = str(ROOT / "examples" / "dino-land.json")
    result = run_cli("dino", "score", land, "--player", " ")
    assert (result.status, result.out) == (2, "")
    assert result.err == "companion: --player: give the player's name\n"
