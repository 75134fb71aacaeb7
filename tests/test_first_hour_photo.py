"""The sample photo of a land ships, so a newcomer can try ``companion dino scan`` at once.

``examples/dino-land-photo.jpg`` is the land of ``examples/dino-placements.json`` (the
example catalog's cards), photographed by :mod:`companion.scan.synth`: run this file
(``python tests/test_first_hour_photo.py``) to make it again. The tests scan the shipped
photo and compare it with the placements' land.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from companion.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PHOTO = EXAMPLES / "dino-land-photo.jpg"
CATALOG = EXAMPLES / "dino-catalog.example.json"
PLACEMENTS = EXAMPLES / "dino-placements.json"
SEED, WIDTH, QUALITY = 2, 1400, 75  # a small, slightly tilted, turned photo


def make_sample_photo(out: Path = PHOTO) -> None:
    """Photograph the example placements (needs the scan extra)."""
    import cv2

    from companion.games.dino.formats import catalog_from_dict, placement_from_dict
    from companion.scan.synth import Style, render

    catalog = catalog_from_dict(json.loads(CATALOG.read_text("utf-8")))
    raw = json.loads(PLACEMENTS.read_text("utf-8"))
    placements = [
        placement_from_dict(p, f"placements[{i}]") for i, p in enumerate(raw["placements"])
    ]
    style = Style(
        tilt_max=20,
        occluders=(0,),
        jpeg=(QUALITY, QUALITY),
        blur_max=0.8,
        noise_max=4,
        light_min=(0.6, 0.8),
        margin_cells=1.0,  # table all round the land, as a photo of a table has
    )
    photo = render(random.Random(SEED), catalog, placements, (WIDTH, WIDTH * 3 // 4), style)
    cv2.imwrite(str(out), photo.image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])


def grid_of(report: str) -> list[str]:
    """The text grid of a report: from the column letters to the first blank line."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split() == list("ABCDEF"))
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return [line.rstrip() for line in lines[start:end] if not line.startswith("Built from")]


def test_the_sample_photo_is_small() -> None:
    assert PHOTO.stat().st_size <= 300_000


def test_the_sample_photo_scans_as_the_example_land(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("cv2")
    monkeypatch.chdir(tmp_path)
    status = main(
        ["dino", "scan", str(PHOTO), "--catalog", str(CATALOG), "--annotated", "seen.jpg"]
        + ["--patch", "egg B4; egg C4"]
    )
    scanned = capsys.readouterr().out
    assert status == 0, scanned
    assert (tmp_path / "seen.jpg").stat().st_size > 0
    assert main(["dino", "score", str(PLACEMENTS)]) == 0
    typed = capsys.readouterr().out
    assert grid_of(scanned) == grid_of(typed)
    assert "Score: dinos 8 + eggs 4" in scanned and "Score: dinos 8 + eggs 4" in typed


def test_without_the_eggs_the_scan_asks_for_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("cv2")
    monkeypatch.chdir(tmp_path)
    status = main(["dino", "scan", str(PHOTO), "--catalog", str(CATALOG), "--annotated", "a.jpg"])
    out = capsys.readouterr().out
    assert status == 3  # questions remain (docs/scan.md)
    assert "Nests at B4, C4" in out


if __name__ == "__main__":
    make_sample_photo(Path(sys.argv[1]) if len(sys.argv) > 1 else PHOTO)
