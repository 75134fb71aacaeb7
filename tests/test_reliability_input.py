"""Issue 13, hostile input: every number finite and in range, stdin that is not UTF-8,
files that are not files, paths no file has, configs nested 2,000 deep, photos that are
bombs, and work that grows with the input refused. Each is one line and exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import RunCli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SEATS = "".join(
    f'[[players]]\nname = "{p}"\nbutton = {b}\n' for p, b in (("ann", 17), ("bob", 27), ("cat", 22))
)


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("settle_ms = nan", "referee.settle_ms: expected a finite number, got nan"),
        ("stuck_ms = inf", "referee.stuck_ms: expected a finite number, got inf"),
        ("end_ms = 1e308", "referee.end_ms: must be at most 60000"),
        ("lockout_ms = -inf", "referee.lockout_ms: expected a finite number"),
        ("countdown_beeps = 99999999999", "referee.countdown_beeps: must be at most 20"),
        ("tie_window_us = 1e300", "referee.tie_window_us: must be at most 1000000"),
        ('journal = "a\\u0000b"', "referee.journal: holds a control character (U+0000)"),
    ],
)
def test_a_nan_or_huge_timing_in_a_config_is_one_line(
    run_cli: RunCli, tmp_path: Path, setting: str, expected: str
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f"[referee]\n{setting}\n{SEATS}", encoding="utf-8")
    status, _, err = run_cli("referee", "--config", str(config), "--pin-factory", "mock")
    assert status == 2
    assert expected in one_line(err)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"tie_window_us": 1' + "0" * 400 + "}", "a number of 401 digits is too big"),
        ('{"tie_window_us": ' + "9" * 5000 + "}", "a number of 5000 digits is too big"),
        ('{"tie_window_us": NaN}', "NaN is not a number a companion file holds"),
        ('{"tie_window_us": 1e400}', "1e400 is too big"),
        ("10000000000", "tie_window_us: must be at most"),
    ],
)
def test_a_huge_or_not_finite_number_in_a_json_file_is_one_line(
    run_cli: RunCli, tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "round.json"
    if not text.startswith("{"):
        example = json.loads((EXAMPLES / "chomp-round.json").read_text())
        text = json.dumps({**example, "tie_window_us": int(text)})
    path.write_text(text, encoding="utf-8")
    status, _, err = run_cli("chomp", "judge", str(path))
    assert status == 2 and expected in one_line(err)


def test_a_food_chain_level_of_10_to_the_12_is_refused(run_cli: RunCli, tmp_path: Path) -> None:
    catalog = json.loads((EXAMPLES / "foodchain-catalog.example.json").read_text())
    catalog["cards"][0]["level"] = 10**12
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(catalog), encoding="utf-8")
    status, _, err = run_cli("foodchain", "catalog", "check", str(path))
    assert status == 2 and "cards[0].level: must be at most" in one_line(err)


def test_stdin_that_is_not_utf8_is_one_line_for_chomp_judge(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "companion", "chomp", "judge", "-"],
        input=b'{"cards": "\xff\xfe"}',
        capture_output=True,
        env=dict(os.environ, PYTHONIOENCODING="utf-8:strict"),
        timeout=60,
    )
    assert result.returncode == 2
    assert one_line(result.stderr.decode()) == "companion: <stdin>: byte 11: not UTF-8 text"


@pytest.mark.parametrize(
    "argv",
    [
        ["chips", "--players", "ann,bob", "--top", "9", "--save", "c.json"],
        [
            "getbit",
            "play",
            "--players",
            "john,anne,beth,ted",
            "--line",
            "ted,anne,beth,john",
            "--save",
            "g.json",
        ],  # fmt: skip
        ["referee", "--config", "table.toml", "--pin-factory", "mock", "--new"],
    ],
)
def test_every_line_mode_survives_bytes_that_are_not_utf8(tmp_path: Path, argv: list[str]) -> None:
    """The Pi's locale decodes strictly: before, a stray byte was a UnicodeDecodeError."""
    (tmp_path / "table.toml").write_text(f'[referee]\njournal = "j.jsonl"\n{SEATS}')
    typed = b"\xff\xfe\n\xc3\n\xc2\xb2\nreveal\ncards ann=\xc2\xb2\nwait nan\nstatus\nquit\n"
    result = subprocess.run(
        [sys.executable, "-m", "companion", *argv],
        input=typed,
        capture_output=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONIOENCODING="utf-8:strict", COMPANION_REALTIME="0"),
        timeout=60,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert b"Traceback" not in result.stderr + result.stdout


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder", "nul", "long-name", "too-big"])
def test_a_path_that_is_not_a_readable_file_is_one_line_never_a_hang(
    run_cli: RunCli, tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "x.json")
    if kind == "fifo":
        os.mkfifo(path)  # nobody writes it: reading it would wait for ever
    elif kind == "dev-zero":
        path = "/dev/zero"
    elif kind == "folder":
        path = str(tmp_path)
    elif kind == "nul":
        path = "round\0.json"
    elif kind == "long-name":
        path = "r" * 300 + ".json"
    else:
        import companion.data

        monkeypatch.setattr(companion.data, "MAX_READ_BYTES", 10)
        Path(path).write_text('{"cards": {}, "slaps": []}')
    status, _, err = run_cli("chomp", "judge", path)
    assert status == 2
    line = one_line(err)
    assert any(
        words in line
        for words in (
            "not a regular file",
            "is a directory",
            "NUL byte",
            "too long",
            "too big",
        )
    ), line


def test_a_toml_config_nested_2000_deep_is_one_line(run_cli: RunCli, tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text("x = " + "[" * 2000 + "]" * 2000 + "\n" + SEATS)
    status, _, err = run_cli("referee", "--config", str(config), "--pin-factory", "mock")
    assert status == 2 and "nested too deeply" in one_line(err)


def png_header(width: int, height: int) -> bytes:
    """A PNG's signature and IHDR chunk: enough for a reader to learn its claimed size."""
    import struct
    import zlib

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    crc = struct.pack(">I", zlib.crc32(chunk))
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + crc


@pytest.mark.parametrize(
    ("size", "expected"),
    [((100_000, 100_000), "too big for a photo"), ((1, 20_000), "not a photo of a land")],
)
def test_a_decompression_bomb_or_a_strip_given_to_dino_scan_is_refused(
    run_cli: RunCli, tmp_path: Path, size: tuple[int, int], expected: str
) -> None:
    pytest.importorskip("cv2")
    photo = tmp_path / "land.png"
    photo.write_bytes(png_header(*size) + b"\0" * 64)
    catalog = str(EXAMPLES / "dino-catalog.example.json")
    status, _, err = run_cli("dino", "scan", str(photo), "--catalog", catalog)
    assert status == 2 and expected in one_line(err)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ann smith", "cannot be typed in the line mode"),
        ("a=b", "cannot be typed in the line mode"),
        ("-x", "cannot be typed in the line mode"),
        ("tab\there", "holds a control character (U+0009)"),  # the text gate, first
    ],
)
def test_a_player_name_the_line_mode_cannot_type_is_refused(
    run_cli: RunCli, tmp_path: Path, name: str, expected: str
) -> None:
    config = tmp_path / "table.toml"
    seats = SEATS.replace('"ann"', json.dumps(name))
    config.write_text(seats, encoding="utf-8")
    status, _, err = run_cli("referee", "--config", str(config), "--pin-factory", "mock")
    assert status == 2 and expected in one_line(err)


def test_a_land_with_one_cell_far_away_scores_without_drawing_its_bounding_box(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """Before: the grid drawing walked every cell of a 10**8 x 10**8 box (a hang)."""
    land = json.loads((EXAMPLES / "dino-land.json").read_text())
    land["sections"].append({"id": "far", "kind": "plants", "cells": [[10**8, 10**8]]})
    path = tmp_path / "land.json"
    path.write_text(json.dumps(land), encoding="utf-8")
    status, out, _ = run_cli("dino", "score", str(path))
    assert status == 0
    assert "(the land spans 100000001 x 100000001 cells: too far apart to draw)" in out
    assert "Score: " in out


def test_a_bench_duration_that_is_not_a_number_is_one_line(run_cli: RunCli) -> None:
    status, _, err = run_cli("bench", "bridge", "--sync-seconds", "nan")
    assert status == 2 and "--sync-seconds: from 1 to 604800, not nan" in one_line(err)


def test_history_import_of_a_fifo_is_one_line_never_a_hang(run_cli: RunCli, tmp_path: Path) -> None:
    fifo = tmp_path / "games.json"
    os.mkfifo(fifo)
    status, _, err = run_cli("history", "--db", ":memory:", "import", str(fifo))
    assert status == 2 and "not a regular file" in one_line(err)
