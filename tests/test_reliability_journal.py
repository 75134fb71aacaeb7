"""Issue 13, the journal after a fault: a torn last line resumed any number of times, one
writer per journal, damage named by its line, and write errors (a full disk) that stop the
table with nothing announced that the journal does not hold.

Each test reproduces a defect first seen by an adversary on mock pins: the first resume
wrote onto the torn bytes, two referees wrote one journal, a repeated ``round`` line erased
a decided round, and a full disk lit the winner's LED for a verdict never journalled.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from conftest import Opener

from companion.cli import main
from companion.errors import BusyError, InputError, WriteError
from companion.games.chomp import Card, Hand
from companion.referee.clock import ManualClock
from companion.referee.core import Phase
from companion.referee.daemon import Cards, StartRound
from companion.referee.journal import JournalWriter, read_journal
from companion.signals import ButtonEdge, Cue, Signal
from companion.tables.chomp.config import ChompConfig
from companion.tables.chomp.session import ChompSession

MS = 1_000_000
ANN_TAKES_CATS: dict[str, Hand] = {
    "ann": (Card.SEAL,),
    "bob": (Card.SHARK,),
    "cat": (Card.PLANKTON,),
}


def play_round(session: ChompSession, clock: ManualClock, slapper: str = "ann") -> None:
    """Countdown, reveal, a press by ``slapper``, the cards, the verdict: no sleeping."""
    daemon, timing = session.daemon, session.referee.timing
    daemon.put(StartRound())
    daemon.pump()
    clock.advance(timing.countdown_beeps * timing.countdown_interval_ns)
    daemon.pump()
    clock.advance(50 * MS)
    daemon.put(ButtonEdge(slapper, True, clock.now_ns(), "gpio", 0))
    daemon.put(ButtonEdge(slapper, False, clock.now_ns() + 40 * MS, "gpio", 1))
    daemon.put(Cards(dict(ANN_TAKES_CATS)))
    clock.advance(100 * MS)
    daemon.pump()


def verdicts(path: Path) -> list[int]:
    return [e["n"] for e in read_journal(path).entries if e["type"] == "verdict"]


# -- 1. a torn last line -----------------------------------------------------------------


def test_a_torn_last_line_resumed_three_times_keeps_the_game_and_each_tail(
    table_config: ChompConfig, opener: Opener, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: the first resume appended onto the torn bytes, and every later resume and
    audit stopped at "damaged journal line"."""
    journal = table_config.journal
    clock = ManualClock()
    session = opener(table_config, clock=clock)
    for cut in range(1, 4):
        play_round(session, clock)
        session.close()
        with journal.open("ab") as handle:
            handle.write(b'{"type":"edge","n":null,"pla')  # the power went mid-line
        clock = ManualClock(clock.now_ns() + 60_000 * MS)
        session = opener(table_config, resume=True, clock=clock)
        assert any("cut short" in m for m in session.messages)
        assert any(f"kept in {journal.name}.torn-" in m for m in session.messages)
        assert session.referee.rounds_played == cut
    play_round(session, clock)
    session.close()
    assert verdicts(journal) == [1, 2, 3, 4]
    assert read_journal(journal).warnings == [] and journal.read_bytes().endswith(b"\n")
    aside = sorted(p for p in journal.parent.iterdir() if ".torn-" in p.name)
    assert len(aside) == 3
    assert all(p.read_bytes() == b'{"type":"edge","n":null,"pla' for p in aside)
    assert main(["chomp", "audit", str(journal)]) == 0


def test_audit_of_a_torn_journal_says_where_it_was_cut(
    table_config: ChompConfig, opener: Opener, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = ManualClock()
    session = opener(table_config, clock=clock)
    play_round(session, clock)
    session.close()
    lines = len(table_config.journal.read_bytes().splitlines())
    with table_config.journal.open("ab") as handle:
        handle.write(b'{"type":"round","n":2,"mo')
    capsys.readouterr()
    assert main(["chomp", "audit", str(table_config.journal)]) == 0
    err = capsys.readouterr().err
    assert f"line {lines + 1}: cut short (power cut?)" in err
    assert f"cut at byte {table_config.journal.stat().st_size - 25}" in err


def test_a_whole_last_line_without_its_newline_is_kept_and_ended(
    table_config: ChompConfig, opener: Opener
) -> None:
    clock = ManualClock()
    session = opener(table_config, clock=clock)
    play_round(session, clock)
    session.close()
    table_config.journal.write_bytes(table_config.journal.read_bytes().rstrip(b"\n"))
    session = opener(table_config, resume=True, clock=ManualClock(clock.now_ns() + 10**12))
    assert session.referee.rounds_played == 1
    session.close()
    assert [e["type"] for e in read_journal(table_config.journal).entries][-2:] == [
        "verdict",
        "resume",
    ]


# -- 2. one writer -----------------------------------------------------------------------


def test_a_second_referee_on_a_journal_in_use_is_refused_naming_the_process(
    table_config: ChompConfig, opener: Opener, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: two referees on one journal both wrote it."""
    first = opener(table_config)
    before = table_config.journal.read_bytes()
    for flags in ({"resume": True}, {"new": True}):
        with pytest.raises(BusyError, match=f"in use by process {os.getpid()} "):
            opener(table_config, **flags)
    assert table_config.journal.read_bytes() == before
    assert list(table_config.journal.parent.iterdir()) == [table_config.journal]
    config = table_config.journal.parent / "table.toml"
    config.write_text(
        '[referee]\njournal = "game.jsonl"\n'
        + "".join(f'[[players]]\nname = "{p}"\nbutton = {b}\n' for p, b in zip(
            ("ann", "bob", "cat"), (17, 27, 22), strict=True))
    )  # fmt: skip
    capsys.readouterr()
    assert main(["referee", "--config", str(config), "--pin-factory", "mock", "--new"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "in use by process" in line and str(os.getpid()) in line
    assert list(table_config.journal.parent.iterdir()) == [table_config.journal, config] or (
        sorted(table_config.journal.parent.iterdir()) == sorted([table_config.journal, config])
    )
    first.close()
    opener(table_config, resume=True).close()  # free again once the first one closed


def test_new_renames_nothing_when_the_new_journal_cannot_be_written(
    table_config: ChompConfig, opener: Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = ManualClock()
    session = opener(table_config, clock=clock)
    play_round(session, clock)
    session.close()
    old = table_config.journal.read_bytes()
    real = JournalWriter.write

    def full_disk(self: JournalWriter, entries: object, durable: bool = False) -> None:
        if self.path.name.endswith(".new"):
            raise WriteError(f"{self.path}: cannot write the journal (No space left on device)")
        real(self, entries, durable)  # type: ignore[arg-type]

    monkeypatch.setattr(JournalWriter, "write", full_disk)
    with pytest.raises(WriteError):
        opener(table_config, new=True)
    assert table_config.journal.read_bytes() == old
    assert list(table_config.journal.parent.iterdir()) == [table_config.journal]


# -- 3. damage is an error ------------------------------------------------------------------


def damaged(tmp_path: Path, table_config: ChompConfig, opener: Opener) -> list[bytes]:
    clock = ManualClock()
    session = opener(table_config, clock=clock)
    play_round(session, clock)
    play_round(session, clock, "ann")
    session.close()
    return table_config.journal.read_bytes().splitlines(keepends=True)


def line_of(lines: list[bytes], kind: str, n: int = 1) -> int:
    for i, line in enumerate(lines):
        entry = json.loads(line)
        if entry["type"] == kind and entry.get("n") == n:
            return i
    raise AssertionError(f"no {kind} {n}")


def test_a_repeated_round_line_is_an_error_naming_it_for_resume_and_audit(
    tmp_path: Path, table_config: ChompConfig, opener: Opener, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: a repeated ``round`` line erased a decided round and audit exited 0."""
    lines = damaged(tmp_path, table_config, opener)
    first_round = lines[line_of(lines, "round")]
    table_config.journal.write_bytes(b"".join([*lines, first_round]))
    where = f"line {len(lines) + 1}: round 1 follows round 2"
    with pytest.raises(InputError, match=where):
        opener(table_config, resume=True)
    capsys.readouterr()
    assert main(["chomp", "audit", str(table_config.journal)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert where in line


def test_a_reversed_journal_is_an_error_not_a_game_after_round_0(
    tmp_path: Path, table_config: ChompConfig, opener: Opener
) -> None:
    lines = damaged(tmp_path, table_config, opener)
    table_config.journal.write_bytes(b"".join(reversed(lines)))
    with pytest.raises(InputError, match="line 1: a journal starts with a 'start' entry"):
        opener(table_config, resume=True)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ("verdict-of-a-round-never-opened", "for round 9, which was never opened"),
        ("second-reveal", "revealed twice"),
        ("unknown-kind", "not a journal entry"),
        ("wrong-type", "should be"),
        ("stranger", "who is not seated"),
    ],
)
def test_damage_is_one_line_naming_the_journal_line(
    tmp_path: Path, table_config: ChompConfig, opener: Opener, change: str, problem: str
) -> None:
    lines = damaged(tmp_path, table_config, opener)
    at = line_of(lines, "verdict", 2)
    entry = json.loads(lines[at])
    if change == "verdict-of-a-round-never-opened":
        entry["n"] = 9
    elif change == "second-reveal":
        at = line_of(lines, "reveal", 2) + 1
        entry = json.loads(lines[at - 1])
    elif change == "unknown-kind":
        entry = {"type": "shrug"}
    elif change == "wrong-type":
        entry["pot"] = "lots"
    else:
        entry = {**json.loads(lines[line_of(lines, "cards", 2)]), "cards": {"zed": ["seal"]}}
    lines.insert(at, json.dumps(entry).encode() + b"\n")
    table_config.journal.write_bytes(b"".join(lines))
    with pytest.raises(InputError, match=f"line {at + 1}: .*{problem}"):
        read_journal(table_config.journal)


def test_an_exact_duplicate_line_is_skipped_with_a_warning(
    tmp_path: Path, table_config: ChompConfig, opener: Opener
) -> None:
    lines = damaged(tmp_path, table_config, opener)
    at = line_of(lines, "verdict", 1)
    lines.insert(at, lines[at])
    table_config.journal.write_bytes(b"".join(lines))
    contents = read_journal(table_config.journal)
    assert [w.split(": ", 1)[1] for w in contents.warnings] == [
        f"line {at + 2}: the line before it again, skipped"
    ]
    session = opener(table_config, resume=True)
    assert session.referee.rounds_played == 2


# -- 4. write errors ---------------------------------------------------------------------


def fill_the_disk(journal: JournalWriter, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every later write of this journal fails as on a full disk (ENOSPC), in this process
    only: no file outside the test's folder is opened (it was /dev/full, whose log beside
    it, /dev/full.log, a test once wrote)."""
    real_write = os.write

    def write(fd: int, data: bytes | memoryview) -> int:
        if fd == journal.fd:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)


def test_a_full_disk_shows_no_verdict_stops_the_table_and_keeps_the_journal_whole(
    table_config: ChompConfig, opener: Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the referee thread died after the winner's LED lit, so a verdict was
    announced that the journal never got."""
    clock = ManualClock()
    session = opener(table_config, clock=clock)
    shown: list[Cue] = []
    said: list[str] = []
    results: list[object] = []
    render = session.daemon.render
    assert render is not None

    def seen(cues: list[Cue]) -> None:
        shown.extend(cues)
        render(cues)

    session.daemon.render = seen
    session.daemon.notify = said.append
    session.daemon.on_result = results.append
    play_round(session, clock)
    session.daemon.put(StartRound())
    session.daemon.pump()
    clock.advance(10 * 60 * MS)
    session.daemon.pump()
    assert session.referee.phase is Phase.REVEALED
    session.daemon.put(ButtonEdge("ann", True, clock.now_ns(), "gpio", 5))
    session.daemon.put(Cards(dict(ANN_TAKES_CATS)))
    session.daemon.pump()  # the press and the cards are journalled; the verdict is not due
    whole = table_config.journal.read_bytes()
    shown.clear()
    fill_the_disk(session.journal, monkeypatch)  # the disk fills just before the verdict's line
    clock.advance(100 * MS)
    session.daemon.pump()
    assert [c.signal for c in shown] == [Signal.FAULT]  # no winner's LED, only the fault
    assert session.led_level("ann") in (0.0, 1.0)  # the fault pattern, never a verdict
    assert len(results) == 1  # round 1's only
    (line,) = [m for m in said if "cannot write" in m]
    assert "No space left on device" in line and "Safe:" in line and "--resume" in line
    assert session.daemon.failure is not None
    session.daemon.put(StartRound())  # the table takes no more rounds
    session.daemon.pump()
    assert session.referee.round is None  # no countdown began
    session.close()
    assert table_config.journal.read_bytes() == whole
    assert verdicts(table_config.journal) == [1]


@pytest.mark.slow
def test_a_full_disk_under_the_line_mode_exits_2_and_the_game_resumes(tmp_path: Path) -> None:
    """The real command on mock pins, its files capped (RLIMIT_FSIZE, as a full disk):
    the write that fails ends the table at once with exit 2, and --resume goes on."""
    import resource
    import signal
    import subprocess
    import sys

    config = tmp_path / "table.toml"
    config.write_text(
        "[referee]\ncountdown_beeps = 1\ncountdown_interval_ms = 50\nend_ms = 100\n"
        'round_timeout_s = 0.2\njournal = "game.jsonl"\n'
        + "".join(f'[[players]]\nname = "{p}"\nbutton = {b}\n' for p, b in zip(
            ("ann", "bob", "cat"), (17, 27, 22), strict=True))
    )  # fmt: skip
    limit = 2500  # the start line and a round or two

    def capped() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    rounds = "start\nwait 0.2\ncards ann=plankton bob=seal cat=shark\nwait 0.4\n" * 12
    env = dict(os.environ, COMPANION_REALTIME="0")
    result = subprocess.run(
        [sys.executable, "-m", "companion", "referee", "--config", str(config),
         "--pin-factory", "mock", "--new"],
        input=rounds + "quit\n", capture_output=True, text=True, cwd=tmp_path,
        preexec_fn=capped, env=env, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert "cannot write the journal" in last and "Safe:" in last
    journal = tmp_path / "game.jsonl"
    decided = verdicts(journal)
    assert decided and journal.read_bytes().endswith(b"\n")
    assert journal.stat().st_size <= limit
    again = subprocess.run(
        [sys.executable, "-m", "companion", "referee", "--config", str(config),
         "--pin-factory", "mock", "--resume"],
        input="status\nquit\n", capture_output=True, text=True, cwd=tmp_path, env=env,
        timeout=60,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert f"after round {decided[-1]}" in again.stderr


def _table_with_journal(tmp_path: Path, journal: str) -> Path:
    config = tmp_path / "table.toml"
    config.write_text(
        f"[referee]\njournal = {json.dumps(journal)}\n"
        + "".join(f'[[players]]\nname = "{p}"\nbutton = {b}\n' for p, b in zip(
            ("ann", "bob", "cat"), (17, 27, 22), strict=True))
    )  # fmt: skip
    return config


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("fifo", "is a named pipe, not a file"),
        ("folder", "is a folder, not a file"),
        ("root", "is a folder, not a file"),
        ("link", "is a symbolic link, not a file"),
    ],
)
def test_a_journal_that_is_not_a_file_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, says: str
) -> None:
    """Before: journal = "/dev/full" wrote /dev/full.log beside it before refusing, and
    journal = "/" was a traceback (Path("/").with_suffix). Now the config is refused before
    any file is opened; the FIFO stands for a device (no device can be made as a user)."""
    place = {"fifo": tmp_path / "pipe", "folder": tmp_path / "games", "root": Path("/")}
    journal = place.get(kind, tmp_path / "link")
    if kind == "fifo":
        os.mkfifo(journal)
    elif kind == "folder":
        journal.mkdir()
    elif kind == "link":
        (tmp_path / "real.jsonl").write_text("")
        journal.symlink_to(tmp_path / "real.jsonl")
    before = sorted(tmp_path.iterdir())
    config = _table_with_journal(tmp_path, str(journal))
    assert main(["referee", "--config", str(config), "--pin-factory", "mock", "--new"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "referee.journal" in line and says in line, line
    assert sorted(tmp_path.iterdir()) == sorted([*before, config])  # no log, no lock
    assert (tmp_path / "real.jsonl").exists() is (kind == "link")
