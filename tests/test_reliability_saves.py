"""Issue 13 for the turn-based tables: ``getbit play`` and ``chips`` hold their save file
for their lifetime (a second one on it is refused naming the process), and a save that
cannot be written is one line and exit 2 with the previous save whole."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from conftest import RunCli

from companion.games.getbit.formats import replay_from_dict
from companion.tables.chips.session import ChipsHelper
from companion.tables.getbit.saved import SavedGame

FOUR = ["--players", "john,anne,beth,ted", "--line", "ted,anne,beth,john"]


def test_a_second_getbit_play_on_a_save_in_use_is_refused(run_cli: RunCli, tmp_path: Path) -> None:
    save = tmp_path / "g.json"
    assert run_cli("getbit", "play", *FOUR, "--save", str(save), stdin="3 2 5 1\n").status == 0
    held, _ = SavedGame.open(save, None, resume=True, new=False)
    try:
        before = save.read_bytes()
        for flags in (["--resume"], [*FOUR, "--new"]):
            status, _, err = run_cli("getbit", "play", *flags, "--save", str(save), stdin="")
            assert status == 2
            (line,) = err.splitlines()
            assert f"{save}: the saved game is in use by process {os.getpid()}" in line
        assert save.read_bytes() == before
    finally:
        held.release()
    assert run_cli("getbit", "play", "--resume", "--save", str(save), stdin="").status == 0


def test_a_second_chips_on_a_save_in_use_is_refused(run_cli: RunCli, tmp_path: Path) -> None:
    save = tmp_path / "c.json"
    start = ["chips", "--players", "ann,bob", "--top", "9", "--save", str(save)]
    assert run_cli(*start, stdin="1\n").status == 0
    held = ChipsHelper.open(save, None, True, False, None)
    try:
        status, _, err = run_cli("chips", "--resume", "--save", str(save), stdin="")
        assert status == 2 and "in use by process" in err and len(err.splitlines()) == 1
    finally:
        held.release()
    assert run_cli("chips", "--resume", "--save", str(save), stdin="").status == 0


def capped_run(
    argv: list[str], stdin: str, cwd: Path, limit: int
) -> subprocess.CompletedProcess[str]:
    """The real command with every file it writes capped at ``limit`` bytes (a full disk)."""

    def capped() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "companion", *argv],
        input=stdin, capture_output=True, text=True, cwd=cwd, preexec_fn=capped, timeout=60,
    )  # fmt: skip


def test_getbit_play_on_a_full_disk_is_one_line_and_the_last_save_is_whole(
    tmp_path: Path,
) -> None:
    rounds = "3 2 5 1\n4 1 1 2\n5 5 2 4\n4 1 4 5\n" * 3
    result = capped_run(["getbit", "play", *FOUR, "--save", "g.json"], rounds, tmp_path, 420)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert "g.json: cannot write" in line and "--resume" in line
    saved = json.loads((tmp_path / "g.json").read_text())
    assert replay_from_dict(saved).state.rounds >= 1  # the last good save reads as a game
    assert not (tmp_path / ".g.json.tmp").exists()


def test_chips_on_a_full_disk_is_one_line_and_the_last_save_is_whole(tmp_path: Path) -> None:
    turns = "1\n2\n" * 30
    argv = ["chips", "--players", "ann,bob", "--top", "9", "--save", "c.json"]
    result = capped_run(argv, turns, tmp_path, 1500)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert "c.json: cannot write" in line
    json.loads((tmp_path / "c.json").read_text())


def test_history_import_on_a_full_disk_is_one_line_and_the_database_stays_whole(
    tmp_path: Path,
) -> None:
    examples = Path(__file__).resolve().parent.parent / "examples"
    first = subprocess.run(
        [sys.executable, "-m", "companion", "history", "--db", "h.sqlite3", "import",
         str(examples / "chomp-journal.jsonl")],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    more = [str(examples / n) for n in ("getbit-two-players.json", "dino-game.json")]
    result = capped_run(["history", "--db", "h.sqlite3", "import", *more], "", tmp_path, 4096)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("companion: h.sqlite3: ") and "disk I/O error" in line
    listed = subprocess.run(
        [sys.executable, "-m", "companion", "history", "--db", "h.sqlite3", "list"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert listed.returncode == 0 and listed.stdout.startswith("#1 "), listed.stderr
