"""The SVG plots: valid XML, one mark per slap, game or count, and a picture that renders."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.history import import_files
from companion.history.db import connect
from companion.history.generate import write_journals
from companion.history.plots import counts_svg, form_svg, reaction_svg

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.Connection:
    folder = tmp_path_factory.mktemp("plots")
    db = connect(":memory:")
    import_files(write_journals(folder, 6, seed=3, rounds=25), db, "2026-01-01T20:00:00+00:00")
    import_files([ROOT / "examples" / "getbit-two-players.json"], db, "2026-01-02T20:00:00+00:00")
    return db


def marks(svg: str, tag: str, cls: str) -> int:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return sum(1 for e in root.iter(f"{SVG}{tag}") if e.get("class") == cls)


def test_reaction_plot_has_a_dot_per_slap_and_a_bar_and_median_per_player(
    conn: sqlite3.Connection,
) -> None:
    svg = reaction_svg(conn)
    slaps = conn.execute("SELECT count(*) FROM presses WHERE counted = 1 AND t_ns >= 0").fetchone()[
        0
    ]
    players = conn.execute(
        "SELECT count(DISTINCT player_id) FROM presses WHERE counted = 1 AND t_ns >= 0"
    ).fetchone()[0]
    assert slaps > 50 and players == 4
    assert marks(svg, "circle", "slap") == slaps
    assert marks(svg, "rect", "spread") == players
    assert marks(svg, "line", "median") == players
    assert (
        marks(reaction_svg(conn, ["bob"]), "circle", "slap")
        == conn.execute(
            "SELECT count(*) FROM presses x JOIN players p ON p.id = x.player_id"
            " WHERE p.name = 'bob' AND x.counted = 1 AND x.t_ns >= 0"
        ).fetchone()[0]
    )


def test_form_plot_has_a_dot_per_finished_game_and_one_line(conn: sqlite3.Connection) -> None:
    finished = conn.execute(
        "SELECT count(*) FROM game_players gp JOIN games g ON g.id = gp.game_id"
        " JOIN players p ON p.id = gp.player_id WHERE p.name = 'ann' AND g.finished = 1"
    ).fetchone()[0]
    svg = form_svg(conn, "ann")
    assert marks(svg, "circle", "game") == finished
    assert marks(svg, "polyline", "form") == 1
    assert marks(form_svg(conn, "ann", "getbit"), "circle", "game") == 1


def test_counts_plot_has_a_line_per_player_and_a_dot_per_round(conn: sqlite3.Connection) -> None:
    rounds = conn.execute("SELECT count(*) FROM rounds WHERE game_id = 1").fetchone()[0]
    svg = counts_svg(conn, 1)
    assert marks(svg, "polyline", "player") == 4
    assert marks(svg, "circle", "count") == 4 * rounds
    getbit = conn.execute("SELECT id FROM games WHERE kind = 'getbit'").fetchone()[0]
    assert marks(counts_svg(conn, getbit), "circle", "count") == 2 * 5  # two players, 5 rounds


def test_names_are_escaped_in_the_svg(tmp_path: Path) -> None:
    db = connect(":memory:")
    import_files(write_journals(tmp_path, 1, seed=1, rounds=5), db)
    db.execute("UPDATE players SET name = 'a<b & \"c\"' WHERE name = 'ann'")
    picture = ET.fromstring(reaction_svg(db))  # still well-formed XML
    labels = ["".join(t.itertext()) for t in picture.iter("{http://www.w3.org/2000/svg}text")]
    assert any(label.startswith('a<b & "c"') for label in labels)  # and the name reads back


def test_nothing_to_plot_is_one_clear_error() -> None:
    with pytest.raises(InputError, match="no CHOMP! slaps"):
        reaction_svg(connect(":memory:"))


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert not installed")
def test_the_reaction_plot_renders_as_a_picture(conn: sqlite3.Connection, tmp_path: Path) -> None:
    svg, png = tmp_path / "r.svg", tmp_path / "r.png"
    svg.write_text(reaction_svg(conn))
    subprocess.run(["rsvg-convert", "-o", str(png), str(svg)], check=True, timeout=30)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 640 and int.from_bytes(data[20:24], "big") == 360
