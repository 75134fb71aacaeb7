"""The database: where it lives, how it is opened, the schema and its migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.history import db
from companion.history.db import LATEST, MIGRATIONS, connect, default_path, migrate, version


def test_default_path_follows_the_env_var_then_xdg_then_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(db.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_path() == tmp_path / "data" / "companion" / "history.sqlite3"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")  # the XDG spec: absolute only
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert (
        default_path() == tmp_path / "home" / ".local" / "share" / "companion" / "history.sqlite3"
    )
    monkeypatch.setenv(db.ENV_VAR, str(tmp_path / "x.db"))
    assert default_path() == tmp_path / "x.db"


def test_opened_in_wal_with_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    conn = connect(tmp_path / "sub" / "h.sqlite3")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == db.BUSY_TIMEOUT_MS
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL: synced at commit
    assert version(conn) == LATEST
    tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"players", "aliases", "games", "game_players", "rounds", "presses"} <= tables


def test_foreign_keys_refuse_a_press_of_no_round() -> None:
    conn = connect(":memory:")
    conn.execute("INSERT INTO players(name) VALUES ('ann')")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO presses(game_id, round_n, player_id, source, timing, use, counted,"
            " fate) VALUES (9, 1, 1, 'gpio', 'kernel_edge', 'press', 1, 'won')"
        )


def test_a_game_kind_outside_the_five_is_refused() -> None:
    conn = connect(":memory:")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO games(kind, played_at, finished, content_hash, recorded_at)"
            " VALUES ('chess', '2026', 1, 'h', 'now')"
        )


def test_migrate_from_an_empty_file_v0_to_the_latest(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()  # a zero-byte file is a valid SQLite database at version 0
    assert version(connect(path)) == LATEST == len(MIGRATIONS)


SYNTHETIC = (
    "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)",
    "ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT 'nobody';"
    "CREATE INDEX notes_by_author ON notes(author)",
    "UPDATE notes SET text = upper(text)",
)


@pytest.mark.parametrize("start", range(len(SYNTHETIC)))
def test_forward_migrations_from_every_earlier_version_keep_the_data(
    tmp_path: Path, start: int
) -> None:
    """A database left at each earlier version of a three-step history is brought to the
    last, step by step, and what it held survives every step."""
    path = tmp_path / "h.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {db.APPLICATION_ID}")  # a file of ours
    migrate(conn, SYNTHETIC[:start] or ())
    if start >= 1:
        conn.execute("INSERT INTO notes(text) VALUES ('kept')")
    conn.close()
    conn = connect(path, SYNTHETIC)
    assert version(conn) == 3
    assert [c[1] for c in conn.execute("PRAGMA table_info(notes)")] == ["id", "text", "author"]
    if start >= 1:
        assert conn.execute("SELECT text, author FROM notes").fetchall() == [("KEPT", "nobody")]


def test_the_real_schema_migrates_from_every_earlier_version(tmp_path: Path) -> None:
    """Version 0 is a file of ours cut short at its creation (its id is its first write);
    version 1 was made before the id: our tables say it is ours, and it is given the id."""
    for start in range(LATEST):
        path = tmp_path / f"v{start}.sqlite3"
        conn = sqlite3.connect(path, isolation_level=None)
        if start == 0:
            conn.execute(f"PRAGMA application_id = {db.APPLICATION_ID}")
        migrate(conn, MIGRATIONS[:start])
        conn.close()
        opened = connect(path)
        assert version(opened) == LATEST
        assert opened.execute("PRAGMA application_id").fetchone()[0] == db.APPLICATION_ID


def test_a_failed_step_leaves_the_version_where_it_was(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    broken = (*SYNTHETIC[:1], "ALTER TABLE nowhere ADD COLUMN x")
    with pytest.raises(InputError, match="not a history database"):
        connect(path, broken)
    assert version(sqlite3.connect(path)) == 1


def test_a_newer_database_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {db.APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {LATEST + 1}")
    conn.close()
    with pytest.raises(InputError, match="newer than this companion knows") as caught:
        connect(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


def test_a_file_that_is_not_sqlite_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    path.write_text("these are not the bytes of a database " * 40)
    with pytest.raises(InputError, match="not a history database"):
        connect(path)
