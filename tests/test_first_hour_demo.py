"""The first evening with ``companion demo`` (issue 14, points 1, 2 and 6).

A newcomer plays the demo, then audits the journal the demo names: the audit must agree
with every round. ``--seed`` must give the same game twice. The demo's screen must not
promise what the demo cannot do, and must say what the table is doing.
"""

from __future__ import annotations

import random
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.games.chomp import ChompGame, Mode
from companion.referee.clock import ManualClock
from companion.referee.core import Referee, Timing
from companion.referee.daemon import RefereeDaemon, RefereeStatus, StartRound
from companion.referee.journal import read_journal
from companion.signals import SourceInfo, TimingClass
from companion.tables.chomp import screen
from companion.tables.chomp.demo import autoplay, open_demo
from companion.tables.chomp.screen import QUIT_PROMPT, TableView, round_label, seat_cards


def audit(journal: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["chomp", "audit", str(journal)])
    return status, capsys.readouterr().out


# -- point 1: the demo agrees with its own audit ----------------------------------------------


@pytest.mark.slow
def test_a_demo_game_with_a_person_at_the_keys_audits_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A person slaps at random moments (some too early, some late) on real time, as at
    the keyboard; the journal records the keyboard's tie window, so the audit agrees."""
    seats, bots = ["you", "shelly", "finn"], ["shelly", "finn"]
    session, table = open_demo(
        seats, bots, seed=3, journal=tmp_path / "demo.jsonl", short_waits=True
    )
    person = random.Random(11)
    worker = threading.Thread(target=session.daemon.run, daemon=True)
    worker.start()
    try:
        for _ in range(6):
            if session.referee.game.over:
                break
            table.round_done.clear()
            session.daemon.put(StartRound())
            time.sleep(person.uniform(0.0, 0.5))  # before, at or after the reveal
            table.press("you")
            assert table.round_done.wait(timeout=10)
            time.sleep(0.1)  # the key's release
    finally:
        from companion.referee.daemon import Shutdown

        session.daemon.put(Shutdown())
        worker.join(timeout=5)
        table.close()
        session.close()
    rounds = session.referee.rounds_played
    assert rounds >= 1
    status, report = audit(session.config.journal, capsys)
    assert status == 0, report
    assert report.count("(the journal agrees)") == rounds
    assert "THE JOURNAL SAYS OTHERWISE" not in report
    assert "tie window 10000 us" in report
    edges = [e for e in read_journal(session.config.journal).entries if e["type"] == "edge"]
    assert any(e["player"] == "you" for e in edges)  # the person's presses are in it


# -- point 2: --seed repeats a game -----------------------------------------------------------


def relative(entries: list[Any]) -> list[Any]:
    """The journal with every absolute time (``*_ns``) measured from the first round."""
    origin = next(e["opened_ns"] for e in entries if e["type"] == "round")
    return [{k: v - origin if k.endswith("_ns") else v for k, v in e.items()} for e in entries]


def autoplay_journal(
    seed: int, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[str, list[Any]]:
    folder.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(folder))
    assert main(["demo", "--autoplay", "--seed", str(seed)]) == 0
    out = capsys.readouterr().out
    hint = re.search(r"audit it: companion chomp audit (\S+)", out)
    assert hint is not None, out
    entries = read_journal(Path(hint[1])).entries
    return out.replace(hint[1], "JOURNAL"), relative(entries)


def test_two_autoplay_games_with_one_seed_are_the_same_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first_out, first = autoplay_journal(7, tmp_path / "one", monkeypatch, capsys)
    second_out, second = autoplay_journal(7, tmp_path / "two", monkeypatch, capsys)
    assert first_out == second_out
    assert first == second  # the deal, every press and its stamp, every verdict
    assert sum(e["type"] == "verdict" for e in first) > 5


def test_another_seed_is_another_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, seven = autoplay_journal(7, tmp_path / "seven", monkeypatch, capsys)
    _, eight = autoplay_journal(8, tmp_path / "eight", monkeypatch, capsys)
    assert seven != eight


def test_bots_press_at_their_planned_stamps_and_the_autoplay_journal_audits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    players = ["ann", "bob", "cat"]
    session, table = open_demo(
        players, players, seed=5, journal=tmp_path / "j.jsonl", simulated_time=True
    )
    try:
        rounds = autoplay(session, table)
    finally:
        session.close()
    assert session.referee.game.over and rounds == session.referee.rounds_played
    entries = read_journal(session.config.journal).entries
    reveals = sorted(e["stamp_ns"] for e in entries if e["type"] == "reveal")
    presses = [e for e in entries if e["type"] == "edge" and e["pressed"]]
    assert presses and all(e["source"] == "bots" for e in presses)
    for press in presses:  # a bot's reaction, as planned: 280 to 650 ms after the reveal
        reveal = max(r for r in reveals if r <= press["stamp_ns"])
        assert 280e6 <= press["stamp_ns"] - reveal <= 650e6
    status, report = audit(session.config.journal, capsys)
    assert status == 0 and report.count("(the journal agrees)") == rounds


def test_autoplay_needs_simulated_time(tmp_path: Path) -> None:
    session, table = open_demo(["a", "b", "c"], ["b", "c"], journal=tmp_path / "j.jsonl")
    try:
        with pytest.raises(ValueError, match="simulated_time"):
            autoplay(session, table)
    finally:
        session.close()


# -- point 6: the demo's options and screen ---------------------------------------------------


@pytest.fixture
def shown_view(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[TableView]:
    """The view the demo would draw, caught instead of drawn."""
    views: list[TableView] = []
    monkeypatch.setattr(screen, "serve", lambda view, title, on_key=None: views.append(view))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    return views


def test_mode_quick_chomp_alone_seats_two_players(
    shown_view: list[TableView], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--mode", "quick_chomp", "--seed", "1"]) == 0
    (view,) = shown_view
    game = view.daemon.referee.game
    assert game.players == ("you", "shelly") and str(game.mode) == "quick_chomp"


def test_a_two_player_mode_with_three_names_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["demo", "--mode", "quick_chomp", "--players", "a,b,c"])
    err = capsys.readouterr().err
    assert (
        status == 2
        and err == "companion: --players: quick_chomp is a game for two: give two names\n"
    )


def test_the_demo_quit_prompt_promises_no_resume_and_the_status_light_is_shown(
    shown_view: list[TableView], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--seed", "1"]) == 0
    (view,) = shown_view
    assert "--resume" not in view.quit_prompt and "--resume" in QUIT_PROMPT
    assert view.status_led is not None and 0.0 <= view.status_led() <= 1.0


def status(phase: str, round_: int, over: bool = False, waiting: bool = False) -> RefereeStatus:
    return RefereeStatus(
        phase=phase,  # type: ignore[arg-type]  # the Phase values are these strings
        round=round_,
        counts={"ann": 5},
        pot=0,
        out=[],
        mode="standard",
        waiting_for_cards=waiting,
        stuck=[],
        over=over,
        winner=None,
        cards={"ann": ["seal"]},
    )


@pytest.mark.parametrize(
    ("phase", "number", "over", "label"),
    [
        ("ready", 0, False, "Round 1 next"),
        ("ready", 4, False, "Round 5 next"),
        ("countdown", 5, False, "Round 5"),
        ("revealed", 5, False, "Round 5"),
        ("over", 9, True, "9 rounds played"),
    ],
)
def test_the_header_never_reads_round_0(phase: str, number: int, over: bool, label: str) -> None:
    assert round_label(status(phase, number, over)) == label


def test_last_rounds_cards_are_cleared_in_the_next_countdown() -> None:
    assert seat_cards(status("countdown", 2)) == {}
    assert seat_cards(status("revealed", 2, waiting=True)) == {}
    assert seat_cards(status("revealed", 2)) == {"ann": ["seal"]}
    assert seat_cards(status("ready", 2)) == {"ann": ["seal"]}  # the round just decided


def test_the_screen_says_when_a_slap_is_valid() -> None:
    assert "after the long beep" in screen.SLAP_RULE and "lowest" in screen.SLAP_RULE
    assert len(screen.SLAP_RULE) <= 80  # a Pi console is 80 columns wide


def test_the_real_status_of_a_new_game_is_labelled_round_1_next() -> None:
    game = ChompGame.new(("ann", "bob", "cat"), Mode.STANDARD)
    source = SourceInfo("gpio", TimingClass.KERNEL_EDGE, 20)
    daemon = RefereeDaemon(Referee(game, Timing.from_ms(500), [source]), ManualClock())
    assert round_label(daemon.status()) == "Round 1 next"


# -- point 8: the way to the first demo stays light ---------------------------------------------

HEAVY = ("cv2", "numpy", "PIL", "sqlite3", "serial", "companion.history", "companion.scan.reader")


def test_the_demo_imports_nothing_heavy() -> None:
    """The demo's screen is up in about half a second; what it does not need (OpenCV,
    NumPy, Pillow, the games database, pyserial) it does not import. A fresh interpreter,
    so other tests' imports do not count."""
    import subprocess
    import sys

    probe = (
        "import sys, companion.cli, companion.commands.referee, "
        "companion.tables.chomp.demo, companion.tables.chomp.screen; "
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
