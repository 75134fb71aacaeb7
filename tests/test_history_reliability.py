"""A writer killed at any moment loses at most the game it was writing; two writers at once
never meet "database is locked"."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.history.db import APPLICATION_ID, connect
from companion.history.generate import write_journals
from companion.history.readers import read_game_file

WRITER = (  # one game a transaction, a line on stdout after each
    "import sys\n"
    "from companion.history.db import connect\n"
    "from companion.history.readers import read_game_file\n"
    "from companion.history.store import write_game\n"
    "conn = connect(sys.argv[1])\n"
    "for name in sys.argv[2:]:\n"
    "    write_game(conn, read_game_file(name, '2026-01-01T20:00:00+00:00'))\n"
    "    print(name, flush=True)\n"
)


def writer(db: Path, files: list[Path]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), *map(str, files)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def check(db: Path, rounds_of: dict[str, int]) -> set[str]:
    """integrity_check is ok, and every stored game is whole: all its rounds are there."""
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        stored = dict(
            conn.execute(
                "SELECT g.content_hash, (SELECT count(*) FROM rounds r WHERE r.game_id = g.id)"
                " FROM games g"
            ).fetchall()
        )
    finally:
        conn.close()
    for digest, rounds in stored.items():
        assert rounds == rounds_of[digest]
    return set(stored)


@pytest.mark.slow
def test_kill_9_in_a_loop_keeps_the_database_whole(tmp_path: Path) -> None:
    files = write_journals(tmp_path / "journals", 40, seed=5, rounds=30)
    rounds_of = {}
    for f in files:
        game = read_game_file(f)
        rounds_of[game.content_hash()] = len(game.rounds)
    db = tmp_path / "h.sqlite3"
    connect(db).close()
    rng = random.Random(9)
    stored: set[str] = set()
    # Counted in kills, not seconds: a loaded machine starts each writer slowly, and the
    # time cap only keeps a broken writer from hanging the suite.
    deadline = time.monotonic() + 60
    kills = 0
    while kills < 5 and time.monotonic() < deadline and len(stored) < len(files):
        proc = writer(db, files)
        assert proc.stdout is not None
        for _ in range(rng.randrange(1, 8)):  # let it write a few games...
            proc.stdout.readline()
        time.sleep(rng.uniform(0, 0.02))  # ...and kill it at any moment of the next
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait(timeout=30)
        now = check(db, rounds_of)
        assert stored <= now  # an earlier game is never lost
        stored = now
    assert kills >= 3
    proc = writer(db, files)  # and a writer left alone finishes the job
    assert proc.wait(timeout=60) == 0
    assert check(db, rounds_of) == set(rounds_of)


@pytest.mark.slow
def test_two_processes_write_at_once_without_database_is_locked(tmp_path: Path) -> None:
    files = write_journals(tmp_path / "journals", 24, seed=6, rounds=20)
    db = tmp_path / "h.sqlite3"
    # overlapping halves: the shared games are raced for, and stored once
    first, second = writer(db, files[:16]), writer(db, files[8:])
    for proc in (first, second):
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        assert b"locked" not in err
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 24
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_opening_waits_for_a_writer_that_holds_a_new_file(tmp_path: Path) -> None:
    """SQLite refuses the switch to WAL at once, without the busy timeout, while another
    process holds a write lock on a file still in rollback mode: exactly what happens when
    two processes create the history together. Opening waits for it instead."""
    db = tmp_path / "h.sqlite3"
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    holder.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # another companion, creating
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")
    raw = sqlite3.connect(db, timeout=5, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        raw.execute("PRAGMA journal_mode = WAL")  # the trap: no wait at all
    raw.close()
    release = threading.Timer(0.2, holder.execute, args=("COMMIT",))
    release.start()
    try:
        conn = connect(db)
    finally:
        release.join()
        holder.close()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] > 0
    conn.close()
