"""The history at its edges: files that are not ours, read-only files, hostile names,
damaged rows. Nothing crashes, nothing recorded is lost, a file only read is not changed."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.errors import InputError
from companion.games.chomp import Card, ChompGame, Round, Slap
from companion.history import db as history_db
from companion.history import record_game, remember
from companion.history.db import APPLICATION_ID, SCHEMA_V1, connect, read
from companion.history.model import GameRecord, PlayerResult
from companion.history.store import add_alias, list_games

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GAMES = ("chomp-journal.jsonl", "getbit-two-players.json", "dino-game.json", "foodchain-score.json")
READING = (
    ["list"],
    ["list", "--json"],
    ["show", "1"],
    ["show", "2", "--json"],
    ["show", "3"],
    ["show", "4"],
    ["stats"],
    ["stats", "ann"],
    ["stats", "--json"],
    ["export"],
    ["export", "--format", "json"],
    ["export", "--format", "bgstats"],
    ["export", "--format", "bgstats-links"],
)


def cli(*argv: str) -> tuple[int, str, str]:
    """``companion ARGV`` in a process of its own: its exit status, stdout and stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "companion", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def in_process(*argv: str) -> int:
    """``companion ARGV`` in this process: an exception out of it is a traceback."""
    return main(list(argv))


def fingerprint(path: Path) -> dict[str, str]:
    """Every file beside the database (its -wal, -shm, -journal included), by content."""
    return {
        f.name: hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(path.parent.iterdir())
        if f.name.startswith(path.name)
    }


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real database: the four examples imported, ann also called annie."""
    path = tmp_path_factory.mktemp("real") / "h.sqlite3"
    files = [str(EXAMPLES / name) for name in GAMES]
    assert in_process("history", "--db", str(path), "import", "--date", "2026-10-01", *files) == 0
    assert in_process("history", "--db", str(path), "alias", "annie", "ann") == 0
    return path


@pytest.fixture
def copy(history: Path, tmp_path: Path) -> Path:
    """A fresh copy of the real database, at rest (no -wal beside it)."""
    target = tmp_path / "h.sqlite3"
    shutil.copy(history, target)
    assert not Path(str(history) + "-wal").exists()
    return target


# -- ownership: a file that is not ours is never written ------------------------------


def foreign(path: Path, app_id: int = 0, version: int = 0, table: str = "notes") -> Path:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {app_id}")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, text TEXT)")
    conn.execute(f"INSERT INTO {table}(text) VALUES ('theirs')")
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize(
    "made",
    [
        {"app_id": 0},  # another program's file, no id of its own
        {"app_id": 0x12345678},  # another program's id
        {"app_id": 0, "table": "games"},  # a name clash with our tables
        {"app_id": APPLICATION_ID, "version": 99},  # ours, from a newer companion
    ],
    ids=["no-id", "their-id", "name-clash", "newer"],
)
def test_a_file_that_is_not_ours_is_refused_in_one_line_before_a_byte_changes(
    tmp_path: Path, made: dict[str, Any]
) -> None:
    path = foreign(tmp_path / "other.sqlite3", **made)
    before = fingerprint(path)
    for argv in (["list"], ["stats"], ["import", str(EXAMPLES / "dino-game.json")]):
        status, out, err = cli("history", "--db", str(path), *argv)
        assert status == 2 and err.count("\n") == 1 and str(path) in err, (argv, err)
        assert "Traceback" not in err
        assert fingerprint(path) == before  # no schema, no WAL switch, no -wal, no -shm
    assert cli("history", "--db", str(path), "alias", "x", "y")[0] == 2
    assert fingerprint(path) == before
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "delete"


def test_a_file_that_is_not_sqlite_is_refused_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my shopping list\n" * 20)
    before = fingerprint(path)
    for argv in (["list"], ["import", str(EXAMPLES / "dino-game.json")]):
        status, _, err = cli("history", "--db", str(path), *argv)
        assert status == 2 and "not a SQLite database" in err and err.count("\n") == 1
    assert fingerprint(path) == before


def test_a_database_of_ours_from_before_the_id_is_known_by_its_tables_and_given_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(SCHEMA_V1 + "; PRAGMA user_version = 1;")
    conn.close()
    before = fingerprint(path)
    assert in_process("history", "--db", str(path), "list") == 0
    assert fingerprint(path) == before  # a read gives it nothing
    assert in_process("history", "--db", str(path), "import", str(EXAMPLES / "dino-game.json")) == 0
    ids = sqlite3.connect(path).execute("PRAGMA application_id").fetchone()[0]
    assert ids == APPLICATION_ID


def test_a_new_database_carries_our_id_from_its_first_write(tmp_path: Path) -> None:
    conn = connect(tmp_path / "new.sqlite3")
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


# -- reading changes nothing ------------------------------------------------------------


def test_every_reading_command_leaves_every_byte_and_file_as_it_was(copy: Path) -> None:
    before = fingerprint(copy)
    for argv in READING:
        assert in_process("history", "--db", str(copy), *argv) == 0, argv
        assert fingerprint(copy) == before, argv  # and no -wal or -shm made


def test_a_reading_command_reads_the_games_still_in_the_wal_without_changing_it(
    tmp_path: Path,
) -> None:
    """A writer that died leaves its -wal: a read sees its games and changes neither the
    file nor the -wal (the -shm is SQLite's shared index, which any reader rebuilds)."""
    path = tmp_path / "h.sqlite3"
    script = (
        "import os, sys\n"
        "from companion.history import import_files\n"
        "from companion.history.db import connect\n"
        "conn = connect(sys.argv[1])\n"
        "conn.execute('PRAGMA wal_autocheckpoint = 0')\n"
        "import_files(sys.argv[2:], conn, '2026-10-01')\n"
        "os._exit(0)\n"  # no close: the -wal stays, as after a crash
    )
    files = [str(EXAMPLES / name) for name in GAMES[:2]]
    subprocess.run([sys.executable, "-c", script, str(path), *files], check=True, cwd=ROOT)
    wal = Path(str(path) + "-wal")
    assert wal.stat().st_size > 0
    main_file, log = path.read_bytes(), wal.read_bytes()
    games = read(path, lambda conn: [g.id for g in list_games(conn)])
    assert games == [1, 2]
    assert path.read_bytes() == main_file and wal.read_bytes() == log


def test_the_connection_a_reading_command_gets_refuses_every_write(copy: Path) -> None:
    """Root ignores file permissions, so this holds the read-only path for every user:
    the file is opened ``immutable`` at rest and ``mode=ro`` with a -wal beside it."""

    def insert(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO players(name) VALUES ('mallory')")

    with pytest.raises(InputError, match="readonly|read-only|query_only"):
        read(copy, insert)
    Path(str(copy) + "-wal").write_bytes(b"")  # a writer is about: the locking read
    with pytest.raises(InputError, match="readonly|read-only|query_only"):
        read(copy, insert)


def test_a_wal_database_that_mode_ro_cannot_open_is_read_as_of_its_checkpoint(
    copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a read-only folder with a -wal beside it, ``mode=ro`` cannot make the -shm; the
    read falls back to ``immutable=1`` and says what that means, in one line."""
    Path(str(copy) + "-wal").write_bytes(b"")
    real = history_db._read_as

    def no_shm(where: str, mode: str, work: Callable[[Any], Any], migrations: Any) -> Any:
        if mode == "mode=ro":
            raise sqlite3.OperationalError("unable to open database file")
        return real(where, mode, work, migrations)

    monkeypatch.setattr(history_db, "_read_as", no_shm)
    assert in_process("history", "--db", str(copy), "list") == 0
    out, err = capsys.readouterr()
    assert "#4" in out and err.count("\n") == 1 and "last checkpoint" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads and writes whatever the mode says")
def test_a_read_only_file_in_a_read_only_folder_can_be_read(copy: Path) -> None:
    folder = copy.parent
    copy.chmod(0o444)
    folder.chmod(0o555)
    try:
        before = fingerprint(copy)
        for argv in READING:
            assert in_process("history", "--db", str(copy), *argv) == 0, argv
        assert fingerprint(copy) == before
        status, _, err = cli("history", "--db", str(copy), "alias", "bobby", "bob")
        assert status == 2 and err.count("\n") == 1
    finally:
        folder.chmod(0o755)
        copy.chmod(0o644)


def test_no_database_yet_reads_as_an_empty_history_and_makes_no_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "none.sqlite3"
    status, out, _ = cli("history", "--db", str(path), "list")
    assert status == 0 and out == "no games\n"
    assert not path.parent.exists()


# -- names and text ---------------------------------------------------------------------


def game_of(*names: str, kind: str = "chips") -> GameRecord:
    players = tuple(PlayerResult(n, None, i + 1, i == 0) for i, n in enumerate(names))
    return GameRecord(kind, "2026-10-01T20:00:00+00:00", players, True)


def test_two_seats_of_one_game_differing_by_case_are_refused_in_one_line() -> None:
    conn = connect(":memory:")
    with pytest.raises(InputError, match="'Ann' and 'ann' are one player") as caught:
        record_game(game_of("Ann", "ann", "bob"), conn)
    assert "\n" not in str(caught.value)
    assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM players").fetchone()[0] == 0  # rolled back


def test_two_seats_that_are_one_player_by_an_alias_are_refused() -> None:
    conn = connect(":memory:")
    record_game(game_of("ann", "bob"), conn)
    add_alias(conn, "annie", "ann")
    with pytest.raises(InputError, match="one player"):
        record_game(game_of("annie", "ann"), conn)


@pytest.mark.parametrize(
    "name",
    ["an\ud800n", "ann\x1b[31m", "bob\x00", "cat\u202e", "", "   ", "dan\n"],
    ids=["surrogate", "escape", "nul", "bidi", "empty", "spaces", "newline"],
)
def test_a_name_that_is_not_clean_text_is_refused_before_anything_is_written(name: str) -> None:
    conn = connect(":memory:")
    with pytest.raises(InputError) as caught:
        record_game(game_of("bob", name), conn)
    assert "\n" not in str(caught.value) and "players[1].name" in str(caught.value)
    assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0
    with pytest.raises(InputError):
        add_alias(conn, name, "bob")


def test_alias_of_an_empty_name_is_refused_in_one_line(copy: Path) -> None:
    before = fingerprint(copy)
    status, _, err = cli("history", "--db", str(copy), "alias", "", "ann")
    assert status == 2 and "ALIAS: a name cannot be empty" in err and err.count("\n") == 1
    assert fingerprint(copy) == before


def test_a_lone_surrogate_in_an_imported_name_is_one_line_and_nothing_is_stored(
    tmp_path: Path,
) -> None:
    sheet = json.loads((EXAMPLES / "foodchain-score.json").read_text())
    sheet["players"]["an\\ud800n"] = sheet["players"].pop("ann")
    shutil.copy(EXAMPLES / sheet["catalog"], tmp_path)  # the sheet names its catalog
    bad = tmp_path / "sheet.json"
    bad.write_text(json.dumps(sheet).replace("\\\\ud800", "\\ud800"))
    path = tmp_path / "h.sqlite3"
    good = str(EXAMPLES / "dino-game.json")
    status, _, err = cli("history", "--db", str(path), "import", good, str(bad))
    assert status == 2 and err.count("\n") == 1 and str(bad) in err and "surrogate" in err
    status, out, _ = cli("history", "--db", str(path), "list", "--json")
    assert status == 0 and json.loads(out) == {"games": []}  # the import stopped whole


@pytest.mark.parametrize(
    "text",
    [
        '{"players": ' + "[" * 3000 + "]" * 3000 + "}",
        "[" * 3000 + "]" * 3000,
        '{"type": "start"}\n' + "[" * 3000 + "]" * 3000 + "\n",
    ],
    ids=["sheet", "bare", "journal"],
)
def test_a_json_import_nested_3000_deep_is_one_line(tmp_path: Path, text: str) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(text)
    status, _, err = cli("history", "--db", str(tmp_path / "h.sqlite3"), "import", str(deep))
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("number", ["9223372036854775808", "-1", "0", "99999999999999999999"])
def test_show_of_a_game_number_sqlite_cannot_hold_is_one_line(copy: Path, number: str) -> None:
    status, _, err = cli("history", "--db", str(copy), "show", "--", number)
    assert status == 2 and err.count("\n") == 1 and f"no game #{number}" in err


# -- recording after play ---------------------------------------------------------------


def test_recording_never_turns_a_printed_score_into_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(*args: object, **kwargs: object) -> Any:
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")

    assert remember(broken, db=":memory:") is None
    err = capsys.readouterr().err
    assert err.startswith("companion: the score stands; the game was not recorded")
    assert err.count("\n") == 1


def test_foodchain_score_over_a_damaged_history_prints_the_score_and_exits_0(
    copy: Path,
) -> None:
    conn = sqlite3.connect(copy)
    conn.execute("UPDATE rounds SET digest = CAST(x'ff' AS TEXT)")  # read by every write
    conn.execute("UPDATE players SET name = CAST(x'616e6eff' AS TEXT) WHERE name = 'bob'")
    conn.commit()
    conn.close()
    sheet = str(EXAMPLES / "foodchain-score.json")
    status, out, err = cli("foodchain", "score", sheet, "--db", str(copy))
    assert status == 0 and "ann" in out and "Traceback" not in err


# -- damaged rows ----------------------------------------------------------------------


def test_a_damaged_row_is_one_line_naming_its_table_and_row_and_the_others_still_show(
    copy: Path,
) -> None:
    conn = sqlite3.connect(copy)
    conn.execute("UPDATE games SET result = '{not json' WHERE id = 3")
    conn.execute("UPDATE game_players SET detail = CAST(x'7bff7d' AS TEXT) WHERE rowid = 2")
    conn.commit()
    conn.close()
    status, out, err = cli("history", "--db", str(copy), "list")
    assert status == 2 and "Traceback" not in err
    assert err.splitlines() == [
        f"companion: {copy}: games row 3: result: not JSON "
        "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1)): left out",
        f"companion: {copy}: game_players row 2: detail: not UTF-8: left out",
    ]
    assert [line.split()[0] for line in out.splitlines()] == ["#1", "#2", "#4"]


TEXT_COLUMNS = {
    "players": ("name",),
    "aliases": ("alias",),
    "games": ("kind", "played_at", "table_name", "mode", "source", "content_hash"),
    "rounds": ("outcome", "reason", "digest"),
    "presses": ("source", "timing", "use", "fate", "cause"),
}
JSON_COLUMNS = {
    "games": ("variants", "result", "detail"),
    "game_players": ("detail",),
    "rounds": ("counts", "detail"),
}
NUMBER_COLUMNS = {
    "games": ("finished",),
    "game_players": ("seat", "score", "rank", "won", "player_id"),
    "rounds": ("n", "winner_id", "lead_ns"),
    "presses": ("t_ns", "uncertainty_us", "counted", "player_id", "round_n"),
}
DAMAGE = {
    "text": [
        "CAST(x'ff' AS TEXT)",
        "CAST(x'616e6ec3' AS TEXT)",
        "'ann' || char(27) || '[31m'",
        "x'00ff'",
        "12",
    ],
    "json": [
        "CAST(x'7bff7d' AS TEXT)",
        "'{not json'",
        "'[]'",
        '\'{"a": "\\ud800"}\'',
        '\'{"cards": [1], "deal": 3, "robots": 1, "rounds_survived": "x", "out": 2}\'',
        "'" + "[" * 3000 + "'",
        '\'{"ann": 1e300, "bob": -1e300}\'',
        "7",
    ],
    "number": [
        "'abc'",
        "9223372036854775807",
        "-9223372036854775808",
        "1e300",
        "x'00'",
        "CAST(x'ff' AS TEXT)",
        "2.5",
    ],
}
DAMAGES = [
    (table, column, value)
    for kind, columns in (
        ("text", TEXT_COLUMNS),
        ("json", JSON_COLUMNS),
        ("number", NUMBER_COLUMNS),
    )
    for table, names in columns.items()
    for column in names
    for value in DAMAGE[kind]
]
EVERY_COMMAND = (*READING, ["stats", "bob"], ["import", str(EXAMPLES / "dino-game.json")])


def damage(path: Path, changes: list[tuple[str, str, str, int]]) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    for table, column, value, row in changes:
        conn.execute(
            f"UPDATE {table} SET {column} = {value} WHERE rowid = (SELECT rowid FROM {table}"
            f" ORDER BY rowid LIMIT 1 OFFSET {row})"
        )
    conn.commit()
    conn.close()


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    changes=st.lists(
        st.tuples(st.sampled_from(DAMAGES), st.integers(0, 12)), min_size=1, max_size=4
    )
)
def test_fuzz_damaged_databases_never_traceback(
    history: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    changes: list[tuple[tuple[str, str, str], int]],
) -> None:
    """Damaged cells of every kind (bad UTF-8, escapes, bad JSON, deep JSON, wrong types,
    huge numbers) anywhere in a real database: every command exits 0 or 2, never raises."""
    path = tmp_path_factory.mktemp("damaged") / "h.sqlite3"
    shutil.copy(history, path)
    try:
        damage(path, [(t, c, v, row) for (t, c, v), row in changes])
    except sqlite3.IntegrityError:
        return  # a damage the file itself refuses (a duplicate key): nothing to read
    for argv in EVERY_COMMAND:
        assert in_process("history", "--db", str(path), *argv) in (0, 2), argv
    capsys.readouterr()


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), min_size=1))
def test_fuzz_flipped_bytes_in_the_file_never_traceback(
    history: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    flips: list[tuple[int, int]],
) -> None:
    path = tmp_path_factory.mktemp("flipped") / "h.sqlite3"
    data = bytearray(history.read_bytes())
    for at, mask in flips:
        data[at % len(data)] ^= mask
    path.write_bytes(bytes(data))
    for argv in EVERY_COMMAND:
        assert in_process("history", "--db", str(path), *argv) in (0, 2), argv
    capsys.readouterr()


# -- CHOMP! rounds as the audit reads them ----------------------------------------------


def automatic_journal(path: Path) -> Path:
    """Two rounds won without a slap (C8: the only shark among plankton): in each, the
    winner presses too, and another player's press is a bad chomp."""
    game = ChompGame.new(["ann", "bob", "cat"], tie_window_us=500)
    start = {"type": "start", "version": 1, "players": ["ann", "bob", "cat"], "mode": "standard",
             "two_player_end": "count", "deal": dict(game.counts), "tie_window_us": 500,
             "effective_tie_window_us": 500,
             "sources": [{"name": "gpio", "timing": "kernel_edge", "uncertainty_us": 20}],
             "lockout_ms": 150.0, "settle_ms": 5.0}  # fmt: skip
    entries: list[dict[str, Any]] = [start]
    rounds = [
        ({"ann": Card.PLANKTON, "bob": Card.SHARK, "cat": Card.PLANKTON},
         [("cat", 200), ("bob", 260)]),
        ({"ann": Card.SHARK, "bob": Card.PLANKTON, "cat": Card.PLANKTON},
         [("ann", 180), ("bob", 300)]),
    ]  # fmt: skip
    reveal = 10**10
    for n, (cards, presses) in enumerate(rounds, 1):
        entries.append({"type": "round", "n": n, "mode": "standard", "opened_ns": reveal * n - 1})
        entries.append({"type": "reveal", "n": n, "stamp_ns": reveal * n, "how": "countdown"})
        entries.extend(
            {"type": "edge", "n": n, "player": p, "pressed": True, "source": "gpio", "seq": 0,
             "stamp_ns": reveal * n + t * 10**6, "use": "press"}
            for p, t in presses
        )  # fmt: skip
        entries.append({"type": "cards", "n": n, "cards": {p: [str(c)] for p, c in cards.items()}})
        slaps = tuple(Slap(p, t * 1000) for p, t in presses)
        result = game.play(Round({p: (c,) for p, c in cards.items()}, slaps))
        assert result.verdict.reason == "automatic"
        entries.append(
            {"type": "verdict", "n": n, "verdict": result.verdict.to_dict(), **game.to_dict()}
        )
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


AUDIT_TO_FATE = {"winner": "won", "tie": "tied", "bad chomp": "bad_chomp", "ignored": "ignored"}


def test_c8_history_show_and_chomp_audit_agree_on_every_press(tmp_path: Path) -> None:
    journal = automatic_journal(tmp_path / "game.jsonl")
    status, out, _ = cli("chomp", "audit", "--json", str(journal))
    assert status == 0
    audited = json.loads(out)
    rounds = audited["rounds"] if isinstance(audited, dict) else audited
    says = {
        (r["n"], p["player"]): AUDIT_TO_FATE[p["status"].split(":")[0]]
        for r in rounds
        for p in r["presses"]
    }
    path = tmp_path / "h.sqlite3"
    assert cli("history", "--db", str(path), "import", str(journal))[0] == 0
    status, out, _ = cli("history", "--db", str(path), "show", "1", "--json")
    shown = {
        (r["n"], p["player"]): p["fate"]
        for r in json.loads(out)["rounds"]
        for p in r["presses"]
        if p["counted"]
    }
    assert shown == says
    assert shown[(1, "bob")] == shown[(2, "ann")] == "won"


def test_a_lone_surrogate_in_a_journal_name_is_one_line_naming_the_seat(tmp_path: Path) -> None:
    text = (EXAMPLES / "chomp-journal.jsonl").read_text().replace('"ann"', '"an\\ud800n"')
    journal = tmp_path / "game.jsonl"
    journal.write_text(text)
    status, _, err = cli("history", "--db", str(tmp_path / "h.sqlite3"), "import", str(journal))
    assert status == 2 and err.startswith(f"companion: {journal}: line 1: damaged journal line")
    assert "not valid UTF-8 (a lone surrogate) at character 3" in err and err.count("\n") == 1


def test_a_score_sheet_whose_name_holds_a_terminal_escape_is_refused_and_not_recorded(
    tmp_path: Path,
) -> None:
    """The gate for outside text refuses it where the sheet is read, before any score is
    printed (the escape never reaches the terminal) and before the history is opened."""
    text = (EXAMPLES / "foodchain-score.json").read_text().replace('"ann"', '"ann\\u001b[31m"')
    sheet = tmp_path / "sheet.json"
    sheet.write_text(text)
    shutil.copy(EXAMPLES / "foodchain-catalog.example.json", tmp_path)
    path = tmp_path / "h.sqlite3"
    status, out, err = cli("foodchain", "score", str(sheet), "--db", str(path))
    assert status == 2 and out == "" and "\x1b" not in err
    assert err == (
        f"companion: {sheet}: players: holds a control character (U+001B) at character 4:"
        " 'ann\\x1b[31m'\n"
    )
    assert not path.exists()  # nothing recorded, not even an empty database


@pytest.mark.parametrize("what", ["folder", "fifo"])
def test_a_db_that_is_a_folder_or_a_pipe_is_one_line_never_a_hang(
    tmp_path: Path, what: str
) -> None:
    path = tmp_path / "h.sqlite3"
    if what == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    for argv in (["list"], ["import", str(EXAMPLES / "dino-game.json")]):
        status, _, err = cli("history", "--db", str(path), *argv)
        assert status == 2 and err == f"companion: {path}: not a regular file" + (
            " (a folder, a device or a pipe)\n"
        )


@pytest.mark.parametrize(
    "argv", [["export", "-o"], ["show", "1", "--svg"], ["stats", "--svg"]], ids=str
)
def test_an_output_that_is_the_database_itself_is_refused_unwritten(
    copy: Path, argv: list[str]
) -> None:
    before = fingerprint(copy)
    status, _, err = cli("history", "--db", str(copy), *argv, str(copy))
    assert status == 2 and err == f"companion: {copy}: is the history database itself: not" + (
        " overwritten\n"
    )
    assert fingerprint(copy) == before


def test_case_beyond_ascii_does_not_matter_either() -> None:
    """SQLite's NOCASE folds A to Z only; ``Élodie`` and ``éLODIE`` are one player still,
    and two seats of one game with those names are refused like ``Ann`` and ``ann``."""
    conn = connect(":memory:")
    record_game(game_of("Élodie", "Bob"), conn)
    record_game(game_of("éLODIE", "bob"), conn)
    assert [n for (n,) in conn.execute("SELECT name FROM players")] == ["Élodie", "Bob"]
    assert [g.id for g in list_games(conn, player="ÉLODIE")] == [1, 2]
    with pytest.raises(InputError, match="one player"):
        record_game(game_of("Élodie", "élodie"), conn)


def test_sqlites_message_about_a_damaged_schema_is_one_safe_line() -> None:
    """SQLite quotes a damaged schema's text back (line breaks, controls and all): the
    message a person reads, on the terminal or the History tab, is one line of safe text
    (found by the History tab's fuzz under arm64, where its draws differ)."""
    from companion.history import db

    quoted = "malformed database schema (players) - CREATE TABLE players (\n  name TEXT\x1b[2J\n)"
    said = db._said(sqlite3.DatabaseError(quoted))
    assert "\n" not in said and "\x1b" not in said
    assert said.startswith("malformed database schema (players) - CREATE TABLE players ( name")
    assert len(db._said(sqlite3.DatabaseError("x" * 5000))) <= 203
