"""Marker ids and the sticker sheet: the id <-> (card, quarter) encoding, the distance
between codes that the reader's verification relies on, and a sheet at true size whose
every sticker ArUco reads back as the card and quarter printed under it, upright."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")
pytest.importorskip("PIL")

from companion.errors import InputError  # noqa: E402
from companion.games.dino.formats import catalog_from_dict  # noqa: E402
from companion.scan.markers import (  # noqa: E402
    QUARTERS_PER_CARD,
    MarkerBook,
    SheetLayout,
    code_bits,
    marker_image,
    quarter_index,
    render_sheet,
    save_sheet,
)
from companion.scan.verify import all_codes  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CATALOG = catalog_from_dict(json.loads((ROOT / "examples/dino-catalog.example.json").read_text()))


def test_ids_follow_the_catalog_order_and_round_trip() -> None:
    book = MarkerBook.of(CATALOG)
    assert book.count == 4 * len(CATALOG.cards) == 32
    for index, card in enumerate(CATALOG.cards):
        for quarter in range(QUARTERS_PER_CARD):
            marker = book.marker_id(card, quarter)
            assert marker == 4 * index + quarter
            assert book.lookup(marker) == (card, quarter)
    assert book.lookup(-1) is None and book.lookup(book.count) is None
    assert book.label(5) == "x02:B1" and book.label(99) == "#99"
    assert [quarter_index(q) for q in ("A1", "b1", "A2", "B2", "C1")] == [0, 1, 2, 3, None]


def test_too_many_cards_for_the_dictionary_is_an_error() -> None:
    cards = {f"k{i}": {"land": ["P  P", "P  P"]} for i in range(251)}
    with pytest.raises(InputError, match="251 cards: markers exist for 250 at most"):
        MarkerBook.of(catalog_from_dict({"cards": cards}))


def test_the_code_bits_are_what_the_markers_show() -> None:
    bits = code_bits(8)
    for marker in range(8):
        image = marker_image(marker, 80)  # 8 bits of 10 pixels: border, 6 data, border
        cells = image[15::10, 15::10][:6, :6] > 127
        assert (cells == bits[marker].astype(bool)).all()


def test_any_two_codes_of_36_cards_differ_in_11_bits_in_every_turn() -> None:
    """The margin verification of partly covered markers relies on (docs/scan.md)."""
    codes = all_codes(144).reshape(144, 4, -1)
    nearest = min(
        int(np.count_nonzero(codes[a, 0] != codes[b, t]))
        for a, b in itertools.combinations(range(144), 2)
        for t in range(4)
    )
    assert nearest >= 11
    assert (
        min(
            int(np.count_nonzero(codes[a, 0] != codes[a, t])) for a in range(144) for t in (1, 2, 3)
        )
        >= 11
    )


@pytest.mark.parametrize(
    ("paper", "dpi", "size"), [("a4", 300, (2480, 3508)), ("letter", 200, (1700, 2200))]
)
def test_the_sheet_is_true_size(paper: str, dpi: int, size: tuple[int, int]) -> None:
    layout = SheetLayout(dpi=dpi, marker_mm=12.0, paper=paper)
    (page,) = render_sheet(CATALOG, layout)
    assert page.size == size
    assert layout.px(12.0) == round(12.0 / 25.4 * dpi)


def test_every_sticker_reads_back_upright_as_labelled() -> None:
    layout = SheetLayout(dpi=300, marker_mm=12.0)
    (page,) = render_sheet(CATALOG, layout)
    book = MarkerBook.of(CATALOG)
    detector = cv2.aruco.ArucoDetector(book.dictionary(), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(np.asarray(page))
    assert sorted(ids.ravel().tolist()) == list(range(book.count))
    side = layout.px(12.0)
    for found in corners:
        quad = found.reshape(4, 2)
        # Corner 0 is the marker's own top-left: printed upright, it is the image's.
        assert quad[0][0] < quad[1][0] and quad[0][1] < quad[3][1]
        assert abs(float(np.linalg.norm(quad[1] - quad[0])) - side) <= 2
    # Each card's block lies as the card's quarters: A1 left of B1, A2 below A1.
    where = {
        int(m): q.reshape(4, 2).mean(axis=0) for q, m in zip(corners, ids.ravel(), strict=True)
    }
    for card in CATALOG.cards:
        a1, b1, a2 = (where[book.marker_id(card, q)] for q in (0, 1, 2))
        assert b1[0] > a1[0] and abs(b1[1] - a1[1]) < 2
        assert a2[1] > a1[1] and abs(a2[0] - a1[0]) < 2


def test_many_cards_take_several_pages(tmp_path: Path) -> None:
    cards = {f"k{i:02d}": {"land": ["P  T", "M  N"]} for i in range(36)}
    pages = render_sheet(catalog_from_dict({"cards": cards}), SheetLayout(dpi=150))
    assert len(pages) == 2
    written = save_sheet(pages, tmp_path / "sheet.png", 150)
    assert [p.name for p in written] == ["sheet.png", "sheet-2.png"]
    from PIL import Image

    with Image.open(written[0]) as image:
        assert round(image.info["dpi"][0]) == 150
    (pdf,) = save_sheet(pages, tmp_path / "sheet.pdf", 150)
    body = pdf.read_bytes()
    assert body.startswith(b"%PDF") and b"/Count 2" in body


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        (SheetLayout(paper="legal"), "unknown paper 'legal'"),
        (SheetLayout(dpi=50), "between 72 and 1200"),
        (SheetLayout(marker_mm=3), "between 5 and 40"),
        (SheetLayout(dpi=72, marker_mm=5), "3 pixels per bit"),
    ],
)
def test_a_bad_layout_is_one_error(layout: SheetLayout, message: str) -> None:
    with pytest.raises(InputError, match=message):
        render_sheet(CATALOG, layout)


def test_a_sheet_goes_to_pdf_or_png_only(tmp_path: Path) -> None:
    pages = render_sheet(CATALOG, SheetLayout(dpi=100))
    with pytest.raises(InputError, match=r"sheet.txt: the sheet is written as .pdf or .png"):
        save_sheet(pages, tmp_path / "sheet.txt", 100)
