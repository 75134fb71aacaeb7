"""``companion history import``: every kind of file, twice, and damaged ones refused."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from companion.cli import main
from companion.history.db import connect

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = [
    ROOT / "examples" / n
    for n in (
        "chomp-journal.jsonl",
        "getbit-two-players.json",
        "dino-game.json",
        "foodchain-score.json",
    )
]


def run(db: Path, *args: str) -> int:
    """``companion history --db DB ARGS``'s status only: each test reads capsys as it needs."""
    return main(["history", "--db", str(db), *args])


def count(db: Path, table: str = "games") -> int:
    return int(sqlite3.connect(db).execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def test_every_kind_imports_and_a_second_import_adds_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "h.sqlite3"
    assert run(db, "import", *map(str, EXAMPLES)) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "4 games added"
    kinds = [k for (k,) in sqlite3.connect(db).execute("SELECT kind FROM games ORDER BY id")]
    assert kinds == ["chomp", "getbit", "dino", "foodchain"]
    before = [count(db, t) for t in ("games", "players", "rounds", "presses", "game_players")]
    assert run(db, "import", *map(str, EXAMPLES)) == 0
    out = capsys.readouterr().out
    assert out.count("already in the history") == 4 and out.endswith("0 games added\n")
    assert [
        count(db, t) for t in ("games", "players", "rounds", "presses", "game_players")
    ] == before


def test_the_same_game_copied_elsewhere_with_a_new_time_is_the_same_game(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    copy = tmp_path / "copy.jsonl"
    shutil.copy(EXAMPLES[0], copy)
    os.utime(copy, (1_000_000, 1_000_000))
    assert run(db, "import", str(EXAMPLES[0])) == 0
    assert run(db, "import", str(copy), "--date", "2020-01-01") == 0
    assert count(db) == 1


def test_a_journal_cut_short_by_a_power_cut_still_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.jsonl"
    text = EXAMPLES[0].read_text()
    cut.write_text(text + '{"type":"round","n":4,"mo')  # the last line half written
    assert run(tmp_path / "h.sqlite3", "import", str(cut)) == 0
    assert capsys.readouterr().err == (
        f"companion: warning: {cut}: line 26: cut short (power cut?), skipped\n"
    )
    assert count(tmp_path / "h.sqlite3", "rounds") == 3


def damaged(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (file, what its one-line error says)."""
    lines = EXAMPLES[0].read_text().splitlines()
    middle = "\n".join([*lines[:3], "{not json", *lines[4:]]) + "\n"
    no_counts = "".join(
        line.replace(',"cards":{"ann":11', ',"counts":{"ann":11') + "\n" for line in lines
    )
    ex = ROOT / "examples"
    files = {
        "middle_line": ("j.jsonl", middle, "line 4: damaged journal line"),
        "truncated_json": ("g.json", EXAMPLES[1].read_text()[:80], "not JSON"),
        "not_a_game": ("x.json", json.dumps({"hello": 1}), "not a CHOMP! journal"),
        "bad_round": ("b.json", (ex / "getbit-bad-round.json").read_text(), "rounds[3].ted"),
        "bad_sheet": ("f.json", (ex / "foodchain-bad-score.json").read_text(), "unicorn"),
        "binary": ("bin.json", "", "not UTF-8"),
        "verdict_without_cards": ("v.jsonl", no_counts, "the 'verdict' entry has no 'cards'"),
        "no_start": ("s.jsonl", "\n".join(lines[1:]) + "\n", "line 1: a journal starts with"),
    }  # fmt: skip
    shutil.copy(ROOT / "examples" / "foodchain-catalog.example.json", tmp_path)
    out = {}
    for key, (name, text, says) in files.items():
        path = tmp_path / name
        if key == "binary":
            path.write_bytes(b"\xff\xfe\x00garbage")
        else:
            path.write_text(text)
        out[key] = (path, says)
    out["missing"] = (tmp_path / "nowhere.json", "no such file")
    return out


@pytest.mark.parametrize(
    "key",
    [
        "middle_line",
        "truncated_json",
        "not_a_game",
        "bad_round",
        "bad_sheet",
        "binary",
        "no_start",
        "verdict_without_cards",
        "missing",
    ],
)
def test_a_damaged_file_is_refused_in_one_line_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    path, says = damaged(tmp_path)[key]
    db = tmp_path / "h.sqlite3"
    assert run(db, "import", str(EXAMPLES[2]), str(path)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"companion: {path}")
    assert says in err and "Traceback" not in err
    assert count(db) == 0  # the good file before it was not imported either


def test_an_alias_is_the_same_player_and_moves_her_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "h.sqlite3"
    sheet = json.loads((ROOT / "examples" / "foodchain-score.json").read_text())
    sheet["players"]["annie"] = sheet["players"].pop("ann")
    sheet["catalog"] = str(ROOT / "examples" / "foodchain-catalog.example.json")
    other = tmp_path / "annie.json"
    other.write_text(json.dumps(sheet))
    assert run(db, "import", str(EXAMPLES[1]), str(other)) == 0
    assert run(db, "alias", "annie", "ann") == 0
    assert run(db, "alias", "bob", "ann") == 2  # bob and ann played in the same game
    assert "played in the same game" in capsys.readouterr().err
    conn = connect(db)
    assert [n for (n,) in conn.execute("SELECT name FROM players ORDER BY name")] == [
        "ann",
        "bob",
        "cat",
    ]
    capsys.readouterr()
    assert run(db, "stats", "ANNIE", "--json") == 0
    figures = json.loads(capsys.readouterr().out)["players"][0]
    assert figures["player"] == "ann"
    assert figures["games"] == {
        "getbit": {"played": 1, "won": 1},
        "foodchain": {"played": 1, "won": 1},
    }


def test_the_env_var_names_the_default_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COMPANION_HISTORY_DB", str(tmp_path / "env.sqlite3"))
    assert main(["history", "import", str(EXAMPLES[3])]) == 0
    assert count(tmp_path / "env.sqlite3") == 1


def test_c4_a_journal_the_referee_wrote_keeps_its_recounted_false_start(tmp_path: Path) -> None:
    """The real referee: cat presses 5 ms before a reveal button (journalled between rounds,
    then recounted into the round as a C4 false start), ann slaps her plankton (the lowest:
    C3) and bounces, bob wins."""
    from companion.games.chomp import Card, ChompGame
    from companion.history.store import game_rounds
    from companion.referee.core import Referee, Timing
    from companion.referee.journal import JournalWriter
    from companion.signals import ButtonEdge, RevealStamp, SourceInfo, TimingClass

    ms = 1_000_000
    timing = Timing.from_ms(
        tie_window_us=500, settle_ms=5, lockout_ms=150, stuck_ms=2000, round_timeout_s=10,
        end_ms=1500, countdown_beeps=3, countdown_interval_ms=600,
    )  # fmt: skip
    ref = Referee(
        ChompGame.new(("ann", "bob", "cat")),
        timing,
        [SourceInfo("gpio", TimingClass.KERNEL_EDGE, 20)],
    )
    writer = JournalWriter(tmp_path / "journal.jsonl")
    writer.write([ref.start_info()])
    reveal = 1000 * ms
    steps = [
        ref.on_edge(ButtonEdge("cat", True, reveal - 5 * ms, "gpio", 0), reveal - 5 * ms),
        ref.reveal(RevealStamp(reveal, "button")),
        ref.on_edge(ButtonEdge("ann", True, reveal + 300 * ms, "gpio", 1), reveal + 300 * ms),
        ref.on_edge(ButtonEdge("ann", False, reveal + 310 * ms, "gpio", 2), reveal + 310 * ms),
        ref.on_edge(ButtonEdge("ann", True, reveal + 320 * ms, "gpio", 3), reveal + 320 * ms),
        ref.on_edge(ButtonEdge("bob", True, reveal + 350 * ms, "gpio", 4), reveal + 350 * ms),
        ref.set_cards({"ann": (Card.PLANKTON,), "bob": (Card.SEAL,), "cat": (Card.SHARK,)}, reveal),
        ref.tick(reveal + 3000 * ms),
    ]
    for step in steps:
        writer.write(step.journal, durable=True)
    writer.close()
    db = tmp_path / "h.sqlite3"
    assert run(db, "import", str(writer.path)) == 0
    (rnd,) = game_rounds(connect(db), 1)
    assert [
        (p["player"], p["t_ns"], p["source"], p["timing"], p["fate"], p["cause"])
        for p in rnd["presses"]
    ] == [
        ("cat", -5 * ms, "recount", "kernel_edge", "bad_chomp", "false_start"),
        ("ann", 300 * ms, "gpio", "kernel_edge", "bad_chomp", "lowest_card"),
        ("ann", 320 * ms, "gpio", "kernel_edge", "bounce", None),
        ("bob", 350 * ms, "gpio", "kernel_edge", "won", None),
    ]


def test_a_journal_imported_mid_game_is_replaced_by_its_longer_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = EXAMPLES[0].read_text().splitlines(keepends=True)
    cut = [i for i, line in enumerate(lines) if '"type":"edge","n":3' in line][0]
    early = tmp_path / "early.jsonl"  # round 3 has begun: revealed, one press, no verdict
    early.write_text("".join(lines[: cut + 1]))
    db = tmp_path / "h.sqlite3"
    assert run(db, "import", str(early)) == 0
    assert run(db, "import", str(EXAMPLES[0])) == 0
    assert "game #2 added (it continues #1, which it replaces)" in capsys.readouterr().out
    assert count(db) == 1 and count(db, "rounds") == 3
    assert run(db, "import", str(early)) == 0  # the shorter copy again: nothing to add
    assert "game #2 already in the history" in capsys.readouterr().out
    assert count(db) == 1


def test_g_a_getbit_save_mid_game_then_at_the_end_is_one_game(tmp_path: Path) -> None:
    game = json.loads(EXAMPLES[1].read_text())
    db = tmp_path / "h.sqlite3"
    for n in (2, 3, 5):
        save = tmp_path / f"after-{n}.json"
        save.write_text(json.dumps({**game, "rounds": game["rounds"][:n]}))
        assert run(db, "import", str(save)) == 0
    assert count(db) == 1 and count(db, "rounds") == 5
    other = tmp_path / "other.json"  # the same setup, another game: kept apart
    rounds = [game["rounds"][0], {"red": 3, "blue": 2, "green": 4, "yellow": 5}]
    other.write_text(json.dumps({**game, "rounds": rounds}))
    assert run(db, "import", str(other)) == 0
    assert count(db) == 2
