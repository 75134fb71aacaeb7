"""The camera's sticker sheet: every card's marker once, readable, true to size, and the
``chomp stickers`` / ``getbit stickers`` commands that write it."""

from __future__ import annotations

import io
import subprocess
import sys
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from companion.camera.deck import CHOMP, GETBIT, StickerDeck, load_deck
from companion.camera.stickers import (
    CELLS,
    EDGE_MM,
    GAP_MM,
    MARGIN_MM,
    MARKER_MM,
    PAPER_MM,
    Box,
    Cut,
    Label,
    Page,
    page_svg,
    pixels_per_cell,
    sheet,
)
from companion.cli import main

cv2 = pytest.importorskip("cv2")
pytest.importorskip("PIL")

SVG = "{http://www.w3.org/2000/svg}"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def stickers_on(page: Page) -> list[Cut]:
    return [s for s in page.steps if isinstance(s, Cut)]


@pytest.mark.parametrize("game", [CHOMP, GETBIT])
@pytest.mark.parametrize("paper", sorted(PAPER_MM))
def test_every_card_has_one_sticker_and_every_sticker_fits_its_page(game: str, paper: str) -> None:
    deck = StickerDeck.default(game)
    pages = sheet(deck, paper)
    assert sum(len(stickers_on(p)) for p in pages) == len(deck.cards)
    labels = [s.words for p in pages for s in p.steps if isinstance(s, Label)]
    assert [w for w in labels if w in {deck.label(m) for m in deck.markers}] == [
        deck.label(m) for m in deck.markers
    ]
    width, height = PAPER_MM[paper]
    for page in pages:
        cuts = stickers_on(page)
        for cut in cuts:
            assert MARGIN_MM <= cut.x and cut.x + cut.w <= width - MARGIN_MM + 1e-9
            assert MARGIN_MM <= cut.y and cut.y + cut.h <= height - MARGIN_MM + 1e-9
        for a in cuts:  # scissors need the gap between any two
            for b in cuts:
                if a is not b:
                    apart_x = a.x + a.w + GAP_MM <= b.x + 1e-9 or b.x + b.w + GAP_MM <= a.x + 1e-9
                    apart_y = a.y + a.h + GAP_MM <= b.y + 1e-9 or b.y + b.h + GAP_MM <= a.y + 1e-9
                    assert apart_x or apart_y


def test_a_whole_deck_takes_two_pages_on_either_paper() -> None:
    for paper in PAPER_MM:
        assert len(sheet(StickerDeck.default(CHOMP), paper)) == 2
        assert len(sheet(StickerDeck.default(GETBIT), paper)) == 2


def test_the_size_gives_three_to_five_pixels_a_cell_from_70_to_100_cm() -> None:
    """The figures docs/camera.md quotes for the Module 3 standard lens at 720p."""
    assert round(pixels_per_cell(100), 1) == 3.4
    assert round(pixels_per_cell(70), 1) == 4.8
    assert pixels_per_cell(70, lens_deg=102.0) < 3.0  # why the wide lens goes lower


def svg_marker_bits(svg_text: str, cut: Cut) -> list[list[int]]:
    """The black cells the SVG draws inside one sticker's marker square, as a 7 x 7 grid."""
    cell = MARKER_MM / CELLS
    left, top = cut.x + EDGE_MM, cut.y + EDGE_MM
    grid = [[255] * CELLS for _ in range(CELLS)]
    for rect in ET.fromstring(svg_text).iter(f"{SVG}rect"):
        if rect.get("fill") != "#000000":
            continue
        x, y = float(rect.get("x", 0)), float(rect.get("y", 0))
        w, h = float(rect.get("width", 0)), float(rect.get("height", 0))
        if not (left - 1e-3 <= x < left + MARKER_MM and top - 1e-3 <= y < top + MARKER_MM):
            continue
        row = round((y - top) / cell)
        assert abs(h - cell) < 1e-3
        for col in range(round((x - left) / cell), round((x + w - left) / cell)):
            grid[row][col] = 0
    return grid


def test_the_svg_draws_each_marker_cell_by_cell_as_the_family_codes_it() -> None:
    from companion.camera.markers import marker_image

    deck = StickerDeck.default(GETBIT)
    page = sheet(deck, "a4")[0]
    text = page_svg(page)
    root = ET.fromstring(text)
    assert root.get("width") == "210mm" and root.get("viewBox") == "0 0 210 297"
    cuts = stickers_on(page)
    for marker, cut in zip(deck.markers, cuts, strict=False):
        expected = marker_image(marker, CELLS).tolist()
        assert svg_marker_bits(text, cut) == [[0 if v < 128 else 255 for v in r] for r in expected]


def test_svg_text_is_escaped_by_construction() -> None:
    page = Page("a4", 1, 1, (Label(10, 10, 3, "<script>&'\"</script>"), Box(0, 0, 1, 1)))
    text = page_svg(page)
    assert "<script>" not in text and "&lt;script&gt;&amp;" in text
    assert [t.text for t in ET.fromstring(text).iter(f"{SVG}text")] == ["<script>&'\"</script>"]


def test_the_printed_png_reads_back_every_marker_true_to_size(tmp_path: Path) -> None:
    from companion.camera.detect import Detector
    from companion.camera.model import Frame

    status, out, err = run("chomp", "stickers", "--out", str(tmp_path / "sheet.png"))
    assert (status, err) == (0, "")
    assert "50 stickers (24 mm markers) on 2 A4 pages at 300 dpi" in out
    found: list[int] = []
    for name in ("sheet.png", "sheet-2.png"):
        image = cv2.imread(str(tmp_path / name), cv2.IMREAD_GRAYSCALE)
        assert image.shape == (3508, 2480)  # A4 at 300 dpi
        # seen as a camera would: a quarter of the print's resolution
        small = cv2.resize(image, (620, 877), interpolation=cv2.INTER_AREA)
        seen = Detector().see(Frame(0, 0, small))
        found += [s.marker for s in seen.sightings]
        full = Detector().see(Frame(0, 0, image))
        for s in full.sightings:  # 24 mm at 300 dpi is 283 pixels
            assert abs(s.side_px - MARKER_MM / 25.4 * 300) < 3
    assert found == list(range(50))


def test_stickers_refuse_to_overwrite_without_force(tmp_path: Path) -> None:
    target, deck = tmp_path / "g.svg", tmp_path / "deck.json"
    target.write_text("keep me")
    status, out, err = run("getbit", "stickers", "--out", str(target), "--deck", str(deck))
    assert status == 2 and out == ""
    assert err == f"companion: {target}: is already there: --force replaces it\n"
    assert target.read_text() == "keep me" and not deck.exists()  # nothing written at all
    status, out, err = run(
        "getbit", "stickers", "--out", str(target), "--deck", str(deck), "--force"
    )
    assert status == 0, err
    assert target.read_text().startswith("<svg") and (tmp_path / "g-2.svg").exists()
    assert load_deck(deck) == StickerDeck.default(GETBIT)  # the deck the sheet binds


def test_stickers_refuse_a_link_and_an_unknown_format_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "real.svg").write_text("x")
    (tmp_path / "link.svg").symlink_to(tmp_path / "real.svg")
    status, _, err = run("chomp", "stickers", "--out", str(tmp_path / "link.svg"), "--force")
    assert status == 2 and "symbolic link" in err and err.count("\n") == 1
    status, _, err = run("chomp", "stickers", "--out", str(tmp_path / "sheet.jpg"))
    assert status == 2 and err.count("\n") == 1 and ".svg, .png, .pdf" in err


def test_a_pdf_holds_every_page(tmp_path: Path) -> None:
    status, _, err = run("chomp", "stickers", "--out", str(tmp_path / "s.pdf"), "--paper", "letter")
    assert status == 0, err
    pdf = (tmp_path / "s.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"/Count 2" in pdf
    assert not (tmp_path / "s-2.pdf").exists()


def test_registering_the_camera_commands_imports_no_opencv() -> None:
    probe = (
        "import sys; from companion.cli import build_parser; "
        "build_parser(['camera']); build_parser(['chomp']); build_parser(['getbit']); "
        "print(sorted(m for m in ('cv2', 'numpy', 'PIL') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr
