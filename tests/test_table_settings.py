"""A table's config says whether it serves the page and where it records its games.

A table started by a systemd unit has only ``--config FILE``: its ``[web]`` and
``[history]`` tables must do what ``--web``, ``--db`` and ``--no-history`` do, and the
command line must still win.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import RunCli

from companion.errors import InputError
from companion.tables.settings import TableSettings, settings_from

CHOMP = (
    '[referee]\njournal = "game.jsonl"\n'
    '[[players]]\nname = "ann"\nbutton = 17\n[[players]]\nname = "bob"\nbutton = 27\n'
    '[[players]]\nname = "cat"\nbutton = 22\n'
)
GETBIT = '[getbit]\npin_factory = "mock"\n'
CHIPS = '[[players]]\nname = "ann"\n[[players]]\nname = "bob"\n'
ROBOTS = ("--robots", "red=ann,blue=bob,green=ann,yellow=bob", "--line", "red,blue,green,yellow")
ROUNDS = "1 1 1 1\n2 2 2 2\n3 4 5 1\n5 3 4 1\n2 3 4 1\n"  # yellow bitten out: ann wins


def games(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [kind for (kind,) in conn.execute("SELECT kind FROM games ORDER BY id")]


def test_no_settings_change_nothing() -> None:
    settings = settings_from({})
    assert settings == TableSettings()
    assert settings.listen(None) is None and settings.database(None) is None
    assert settings.recording(refused=False) and not settings.recording(refused=True)


def test_a_bare_web_table_serves_on_the_default_port() -> None:
    assert settings_from({"web": {}}).listen(None) == "8080"


def test_the_command_line_wins_over_the_config() -> None:
    settings = settings_from({"web": {"listen": "0.0.0.0:9000"}, "history": {"db": "g.db"}})
    assert settings.listen(None) == "0.0.0.0:9000"
    assert settings.listen("127.0.0.1:0") == "127.0.0.1:0"
    assert settings.database(None) == "g.db" and settings.database("mine.db") == "mine.db"


@pytest.mark.parametrize(
    ("raw", "where", "message"),
    [
        ({"web": {"listen": "host:port"}}, "web.listen", "write [HOST:]PORT"),
        ({"web": {"port": 80}}, "web.port", "unknown key 'port'"),
        ({"web": "8080"}, "web", "expected an object"),
        ({"history": {"record": "no"}}, "history.record", "expected true or false"),
        ({"history": {"db": ""}}, "history.db", "expected a non-empty path string"),
    ],
)
def test_a_bad_setting_names_its_key(raw: dict[str, object], where: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        settings_from(raw)
    assert caught.value.where == where and message in caught.value.message


@pytest.mark.parametrize(("game", "text"), [("chomp", CHOMP), ("getbit", GETBIT), ("chips", CHIPS)])
def test_every_table_reads_its_settings_relative_to_its_file(
    tmp_path: Path, game: str, text: str
) -> None:
    from companion.tables.chips.config import load_config as load_chips
    from companion.tables.chomp.config import load_config as load_chomp
    from companion.tables.getbit.config import load_table_config as load_getbit

    path = tmp_path / f"{game}.toml"
    path.write_text(text + '[web]\nlisten = "9000"\n[history]\ndb = "games.db"\n', "utf-8")
    read: dict[str, Callable[[str], TableSettings]] = {
        "chomp": lambda p: load_chomp(p).settings,
        "getbit": lambda p: load_getbit(p).settings,
        "chips": lambda p: load_chips(p).settings,
    }
    settings = read[game](str(path))
    assert settings == TableSettings("9000", tmp_path / "games.db", True)


@pytest.mark.parametrize(
    ("game", "text", "argv"),
    [
        ("chomp", CHOMP, ("referee", "--pin-factory", "mock")),
        ("getbit", GETBIT, ("getbit", "play", *ROBOTS)),
        ("chips", CHIPS, ("chips",)),
    ],
)
def test_the_configs_web_table_serves_the_page_without_web(
    run_cli: RunCli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    game: str,
    text: str,
    argv: tuple[str, ...],
) -> None:
    """As root the page is refused before anything opens: proof the config's [web] was
    read, without serving anything."""
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.chdir(tmp_path)
    config = tmp_path / f"{game}.toml"
    config.write_text(text + '[web]\nlisten = "127.0.0.1:0"\n', "utf-8")
    result = run_cli(*argv, "--config", str(config))
    assert result.status == 2
    assert result.err.startswith("companion: the web server does not run as root")
    assert sorted(p.name for p in tmp_path.iterdir()) == [config.name]  # nothing opened


def test_the_configs_history_db_records_the_finished_game(
    run_cli: RunCli, tmp_path: Path, private_history: Path
) -> None:
    config = tmp_path / "getbit.toml"
    config.write_text(GETBIT + '[history]\ndb = "games.db"\n', "utf-8")
    save = tmp_path / "game.json"
    result = run_cli(
        "getbit", "play", *ROBOTS, "--config", str(config), "--save", str(save), stdin=ROUNDS
    )
    assert result.status == 0 and "game over, ann won" in result.err
    assert games(tmp_path / "games.db") == ["getbit"] and not private_history.exists()


def test_db_on_the_command_line_wins_over_the_config(
    run_cli: RunCli, tmp_path: Path, private_history: Path
) -> None:
    config = tmp_path / "getbit.toml"
    config.write_text(GETBIT + '[history]\ndb = "games.db"\n', "utf-8")
    mine = tmp_path / "mine.db"
    save = tmp_path / "game.json"
    argv = ("getbit", "play", *ROBOTS, "--config", str(config), "--save", str(save))
    assert run_cli(*argv, "--db", str(mine), stdin=ROUNDS).status == 0
    assert games(mine) == ["getbit"] and not (tmp_path / "games.db").exists()


def test_record_false_records_nothing(
    run_cli: RunCli, tmp_path: Path, private_history: Path
) -> None:
    config = tmp_path / "getbit.toml"
    config.write_text(GETBIT + "[history]\nrecord = false\n", "utf-8")
    save = tmp_path / "game.json"
    argv = ("getbit", "play", *ROBOTS, "--config", str(config), "--save", str(save))
    result = run_cli(*argv, stdin=ROUNDS)
    assert result.status == 0 and "game over, ann won" in result.err
    assert not private_history.exists()


@pytest.mark.parametrize(
    "example",
    [
        "hardware/pinmap.example.toml",
        "examples/getbit-table.example.toml",
        "examples/chips-table.toml",
    ],
)
def test_the_examples_settings_work_once_uncommented(example: str) -> None:
    import tomllib

    from companion.tables.chips.config import config_from_dict as chips
    from companion.tables.chomp.config import config_from_dict as chomp
    from companion.tables.getbit.config import table_config_from_dict as getbit

    text = (Path(__file__).resolve().parent.parent / example).read_text("utf-8")
    start = text.index("# [web]")
    end = text.index("\n", text.index("# db = ", start))
    block = "\n".join(line.removeprefix("# ") for line in text[start:end].splitlines())
    parse: dict[str, Callable[[object], TableSettings]] = {
        "hardware/pinmap.example.toml": lambda raw: chomp(raw).settings,
        "examples/getbit-table.example.toml": lambda raw: getbit(raw).settings,
        "examples/chips-table.toml": lambda raw: chips(raw).settings,
    }
    settings = parse[example](tomllib.loads(text + "\n" + block))
    assert settings == TableSettings("0.0.0.0:8080", Path("games.sqlite3"), True)
