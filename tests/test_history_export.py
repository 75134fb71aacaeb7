"""The exports, parsed back: CSV, the whole database as JSON, a BG Stats Play File."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from pathlib import Path

import pytest

from companion.cli import main
from companion.history import import_files
from companion.history.db import connect
from companion.history.export import CSV_COLUMNS, to_bgstats, to_csv, to_json
from companion.history.store import add_alias, list_games

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = [
    ("chomp-journal.jsonl", "2026-10-01T20:00:00+00:00"),
    ("getbit-two-players.json", "2026-10-15T20:00:00+00:00"),
    ("dino-game.json", "2026-11-01T20:00:00+00:00"),
    ("foodchain-score.json", "2026-11-20T20:00:00+00:00"),
]


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "h.sqlite3"
    conn = connect(path)
    for name, when in EXAMPLES:
        import_files([ROOT / "examples" / name], conn, when, table="kitchen")
    add_alias(conn, "annie", "ann")
    conn.close()
    return path


@pytest.fixture
def conn(db_path: Path) -> sqlite3.Connection:
    return connect(db_path)


def test_csv_has_a_row_per_player_per_game(conn: sqlite3.Connection) -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv(list_games(conn)))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == 4 + 2 + 3 + 3
    dino = [r for r in rows if r["kind"] == "dino"]
    assert [(r["player"], r["score"], r["rank"], r["won"]) for r in dino] == [
        ("ann", "29", "2", "0"),
        ("bob", "14", "3", "0"),
        ("cat", "29", "1", "1"),
    ]
    assert {r["table"] for r in rows} == {"kitchen"}
    chomp = [r for r in rows if r["kind"] == "chomp"]
    assert {r["finished"] for r in chomp} == {"0"} and {r["rank"] for r in chomp} == {""}


def test_json_export_holds_the_whole_database(conn: sqlite3.Connection) -> None:
    doc = json.loads(json.dumps(to_json(conn)))
    assert doc["format"] == "companion-history" and doc["schema_version"] == 2
    assert {"name": "ann", "aliases": ["annie"]} in doc["players"]
    assert [g["kind"] for g in doc["games"]] == ["chomp", "getbit", "dino", "foodchain"]
    chomp = doc["games"][0]
    assert len(chomp["rounds"]) == 3
    presses = [p for r in chomp["rounds"] for p in r["presses"]]
    assert len(presses) == conn.execute("SELECT count(*) FROM presses").fetchone()[0] == 6
    assert chomp["rounds"][1]["lead_ns"] == 1_087_000
    assert len({g["content_hash"] for g in doc["games"]}) == 4


def test_export_since_a_date(db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            ["history", "--db", str(db_path), "export", "--format", "json", "--since", "2026-11-01"]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert [g["kind"] for g in doc["games"]] == ["dino", "foodchain"]
    assert doc["since"] == "2026-11-01"
    assert main(["history", "--db", str(db_path), "export", "--since", "2026-10-15"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["kind"] for r in rows} == {"getbit", "dino", "foodchain"}


def test_bgstats_play_file_refers_to_its_own_players_games_and_locations(
    conn: sqlite3.Connection,
) -> None:
    doc = json.loads(json.dumps(to_bgstats(list_games(conn))))
    players = {p["id"]: p["name"] for p in doc["players"]}
    games = {g["id"]: g["name"] for g in doc["games"]}
    locations = {loc["id"]: loc["name"] for loc in doc["locations"]}
    assert sorted(games.values()) == ["CHOMP!", "Chomp", "Food Chain", "Get Bit!"]
    assert list(locations.values()) == ["kitchen"]
    assert len(doc["plays"]) == 4
    for play in doc["plays"]:
        assert play["gameRefId"] in games and play["locationRefId"] in locations
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"])
        for score in play["playerScores"]:
            assert score["playerRefId"] in players
    getbit = next(p for p in doc["plays"] if games[p["gameRefId"]] == "Get Bit!")
    winners = [players[s["playerRefId"]] for s in getbit["playerScores"] if s["winner"]]
    assert winners == ["ann"]
    chomp = next(p for p in doc["plays"] if games[p["gameRefId"]] == "CHOMP!")
    assert chomp["ignored"] is True  # unfinished: kept out of BG Stats' figures


def test_bgstats_ids_are_stable_between_exports(conn: sqlite3.Connection) -> None:
    assert to_bgstats(list_games(conn)) == to_bgstats(list_games(conn))


def test_export_to_a_file(db_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "plays.bgsplay"
    assert (
        main(["history", "--db", str(db_path), "export", "--format", "bgstats", "-o", str(out)])
        == 0
    )
    assert len(json.loads(out.read_text())["plays"]) == 4


def test_bgstats_links_carry_bg_stats_documented_play_json(
    db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from urllib.parse import parse_qs, urlsplit

    assert main(["history", "--db", str(db_path), "export", "--format", "bgstats-links"]) == 0
    links = capsys.readouterr().out.splitlines()
    assert len(links) == 4
    plays = []
    for link in links:
        url = urlsplit(link)
        assert (url.scheme, url.netloc, url.path) == (
            "https",
            "app.bgstatsapp.com",
            "/createPlay.html",
        )
        (data,) = parse_qs(url.query)["data"]
        plays.append(json.loads(data))
    assert {p["sourceName"] for p in plays} == {"companion"}
    assert len({p["sourcePlayId"] for p in plays}) == 4
    dino = next(p for p in plays if p["game"]["name"] == "Chomp")
    assert dino["playDate"] == "2026-11-01 20:00:00" and dino["location"] == "kitchen"
    assert [(q["name"], q["score"], q["rank"], q["winner"]) for q in dino["players"]] == [
        ("ann", 29.0, 2, False),
        ("bob", 14.0, 3, False),
        ("cat", 29.0, 1, True),
    ]
    chomp = next(p for p in plays if p["game"]["name"] == "CHOMP!")
    assert chomp["comments"] == "unfinished game" and "rank" not in chomp["players"][0]
