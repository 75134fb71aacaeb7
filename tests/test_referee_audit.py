"""``companion chomp audit``: every verdict recomputed from the journal's raw stamps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.games.chomp import Card, ChompGame
from companion.referee.clock import ManualClock
from companion.referee.core import Referee, Timing
from companion.referee.daemon import Cards, RefereeDaemon, StartRound
from companion.referee.journal import JournalWriter
from companion.signals import ButtonEdge, SourceInfo, TimingClass

MS = 1_000_000
US = 1_000


def record_game(path: Path) -> None:
    """Two rounds through the real daemon: a close race with a bad chomp, then a bounce."""
    game = ChompGame.new(["ann", "bob", "cat", "dan"])
    ref = Referee(game, Timing.from_ms(500), [SourceInfo("gpio", TimingClass.KERNEL_EDGE, 20)])
    journal = JournalWriter(path)
    journal.write([ref.start_info()], durable=True)
    clock = ManualClock()
    d = RefereeDaemon(ref, clock, journal)
    rounds = [
        (
            {"ann": Card.SEAL, "bob": Card.SHARK, "cat": Card.BIG_FISH, "dan": Card.BIG_FISH},
            [("cat", 405_200), ("ann", 412_000), ("bob", 431_500), ("ann", 433_000)],
        ),
        (
            {"ann": Card.PLANKTON, "bob": Card.SHRIMP, "cat": Card.SHARK, "dan": Card.SEAL},
            [("dan", 300_000), ("dan", 300_400), ("cat", 301_100)],
        ),
    ]
    for cards, presses in rounds:
        d.put(StartRound())
        d.pump()
        clock.advance(1800 * MS)
        d.pump()
        reveal = clock.now_ns()
        for seq, (player, t_us) in enumerate(presses):
            d.edge(ButtonEdge(player, True, reveal + t_us * US, "gpio", seq))
            d.edge(ButtonEdge(player, False, reveal + t_us * US + 200 * US, "gpio", seq))
        d.put(Cards({p: (c,) for p, c in cards.items()}))
        clock.advance(1000 * MS)
        d.pump()
    journal.close()


def test_audit_recomputes_verdicts_and_shows_each_slaps_lead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl"
    record_game(path)
    assert main(["chomp", "audit", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["disagreements"] == []
    first, second = report["rounds"]
    assert first["verdict"]["winner"] == "ann" and first["journal_agrees"]
    rows = {(r["player"], r["t_us"]): r for r in first["presses"]}
    assert rows[("ann", 412_000)]["status"] == "winner"
    assert rows[("ann", 412_000)]["margin_us"] == 19_500  # bob was 19.5 ms behind
    assert rows[("cat", 405_200)]["status"] == "bad chomp"
    assert rows[("bob", 431_500)]["vs_first_us"] == 19_500
    assert rows[("ann", 433_000)]["status"].startswith("not counted")
    # Round 2: dan's 400 us bounce was never a second press; dan led cat by 1.1 ms.
    rows2 = [(r["player"], r["status"]) for r in second["presses"]]
    assert ("dan", "winner") in rows2 and ("dan", "not counted: bounce") in rows2
    assert second["presses"][0]["margin_us"] == 1_100


def test_audit_human_report_and_single_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl"
    record_game(path)
    assert main(["chomp", "audit", "--round", "1", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Round 1" in out and "Round 2" not in out
    assert "first by 19500 us" in out and "the journal agrees" in out


def test_audit_flags_a_journal_whose_verdict_was_altered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl"
    record_game(path)
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        entry = json.loads(line)
        if entry["type"] == "verdict" and entry["n"] == 1:
            entry["verdict"]["winner"] = "bob"
            lines[i] = json.dumps(entry)
    path.write_text("\n".join(lines) + "\n")
    assert main(["chomp", "audit", str(path)]) == 1
    assert "THE JOURNAL SAYS OTHERWISE" in capsys.readouterr().out


def test_audit_of_a_damaged_journal_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type": "round"}\n')
    assert main(["chomp", "audit", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 1" in err and str(path) in err
