"""Marker ids for card quarters, and the sticker sheet that puts them on the cards.

Marker ``4 * i + q`` sits on quarter ``q`` of the ``i``-th card of the catalog (in the
catalog's order; quarters ``A1``, ``B1``, ``A2``, ``B2`` as in
:data:`~companion.games.dino.catalog.CARD_QUARTERS`).  The codes are the first ones of
ArUco's ``DICT_5X5_1000``: among the first 144 (36 cards) any two differ in at least 7
of their 25 bits, in every rotation, so a misread bit or two never turns one quarter
into another.  The detector only searches the codes the catalog uses.

The sheet groups each card's four stickers as they lie on the card, each labelled with
the card and the quarter under the marker: stuck with its label below the marker, a
sticker is upright when the card is, which is how the reader tells the card's rotation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.errors import InputError
from companion.games.dino.catalog import CARD_QUARTERS, Catalog
from companion.scan.land import QUARTER_NAMES, quarter_name

DICTIONARY_NAME = "DICT_6X6_1000"
MARKER_BITS = 6
QUARTERS_PER_CARD = len(CARD_QUARTERS)
MAX_CARDS = 1000 // QUARTERS_PER_CARD

Image = npt.NDArray[np.uint8]


def quarter_index(name: str) -> int | None:
    """``B1`` -> 1 (case-insensitive), or None."""
    try:
        return QUARTER_NAMES.index(name.upper())
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class MarkerBook:
    """The marker ids of one catalog: card order is the catalog's order."""

    cards: tuple[str, ...]

    @classmethod
    def of(cls, catalog: Catalog) -> MarkerBook:
        if len(catalog.cards) > MAX_CARDS:
            raise InputError(
                "cards", f"{len(catalog.cards)} cards: markers exist for {MAX_CARDS} at most"
            )
        return cls(tuple(catalog.cards))

    @property
    def count(self) -> int:
        """How many marker ids the catalog uses."""
        return len(self.cards) * QUARTERS_PER_CARD

    def marker_id(self, card: str, quarter: int) -> int:
        return self.cards.index(card) * QUARTERS_PER_CARD + quarter

    def lookup(self, marker_id: int) -> tuple[str, int] | None:
        """(card id, quarter index) of a marker id, or None for an id the catalog lacks."""
        if not 0 <= marker_id < self.count:
            return None
        card, quarter = divmod(marker_id, QUARTERS_PER_CARD)
        return self.cards[card], quarter

    def label(self, marker_id: int) -> str:
        found = self.lookup(marker_id)
        if found is None:
            return f"#{marker_id}"
        return f"{found[0]}:{quarter_name(found[1])}"

    def dictionary(self) -> Any:
        """An ArUco dictionary holding only this catalog's codes (fewer false reads)."""
        return restricted_dictionary(self.count)


def restricted_dictionary(count: int) -> Any:
    aruco = cv2.aruco
    full = aruco.getPredefinedDictionary(getattr(aruco, DICTIONARY_NAME))
    return aruco.Dictionary(
        full.bytesList[: max(1, count)].copy(), MARKER_BITS, full.maxCorrectionBits
    )


def code_bits(count: int) -> npt.NDArray[np.uint8]:
    """The 5 x 5 data bits (1 = white) of the first ``count`` codes, upright."""
    dictionary = restricted_dictionary(count)
    bits = [
        cv2.aruco.Dictionary.getBitsFromByteList(dictionary.bytesList[i : i + 1], MARKER_BITS)
        for i in range(count)
    ]
    return np.asarray(bits, dtype=np.uint8).reshape(count, MARKER_BITS, MARKER_BITS)


def marker_image(marker_id: int, side_px: int) -> Image:
    """The marker (black border included, no white margin) as a square grey image."""
    dictionary = restricted_dictionary(marker_id + 1)
    image: Image = np.asarray(
        cv2.aruco.generateImageMarker(dictionary, marker_id, side_px, borderBits=1), np.uint8
    )
    return image


# --------------------------------------------------------------------------------------
# The sticker sheet
# --------------------------------------------------------------------------------------

PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MM_PER_INCH = 25.4


@dataclass(frozen=True, slots=True)
class SheetLayout:
    """Sizes in millimetres; pixels follow from ``dpi``."""

    dpi: int = 300
    marker_mm: float = 12.0
    paper: str = "a4"
    margin_mm: float = 10.0

    def px(self, mm: float) -> int:
        return round(mm * self.dpi / MM_PER_INCH)

    @property
    def pad_mm(self) -> float:
        """White margin around a marker: at least one bit, which ArUco needs."""
        return max(2.0, self.marker_mm / 6)

    @property
    def label_mm(self) -> float:
        return max(3.0, self.marker_mm / 4)

    @property
    def sticker_mm(self) -> tuple[float, float]:
        side = self.marker_mm + 2 * self.pad_mm
        return side, side + self.label_mm

    def check(self) -> None:
        if self.paper not in PAPER_MM:
            raise InputError("--paper", f"unknown paper {self.paper!r} (one of: a4, letter)")
        if not 72 <= self.dpi <= 1200:
            raise InputError("--dpi", f"must be between 72 and 1200, got {self.dpi}")
        if not 5.0 <= self.marker_mm <= 40.0:
            raise InputError("--marker-mm", f"must be between 5 and 40, got {self.marker_mm:g}")
        if self.px(self.marker_mm) < 7 * 3:
            raise InputError("--dpi", "too low for markers this small: 3 pixels per bit at least")
        width, height = PAPER_MM[self.paper]
        block_w, block_h = self.block_mm
        if block_w > width - 2 * self.margin_mm or block_h > height - 2 * self.margin_mm - 20:
            raise InputError("--marker-mm", f"{self.marker_mm:g} mm markers do not fit the page")

    @property
    def block_mm(self) -> tuple[float, float]:
        """One card's block: a title line and its 2 x 2 stickers."""
        sw, sh = self.sticker_mm
        return 2 * sw + GAP_MM, TITLE_MM + 2 * sh + GAP_MM


GAP_MM = 2.0  # between the stickers of one card
BLOCK_GAP_MM = 6.0  # between cards
TITLE_MM = 5.0
HEADER_MM = 20.0  # the page's heading and scale bar


def _font(px: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=max(6, px))


def render_sheet(catalog: Catalog, layout: SheetLayout | None = None) -> list[Any]:
    """The sticker sheet, page by page, as greyscale Pillow images at ``layout.dpi``."""
    from PIL import Image as PILImage
    from PIL import ImageDraw

    layout = layout or SheetLayout()
    layout.check()
    book = MarkerBook.of(catalog)
    width_mm, height_mm = PAPER_MM[layout.paper]
    page_px = (layout.px(width_mm), layout.px(height_mm))
    block_w, block_h = layout.block_mm
    usable_w = width_mm - 2 * layout.margin_mm
    usable_h = height_mm - 2 * layout.margin_mm - HEADER_MM
    per_row = max(1, int((usable_w + BLOCK_GAP_MM) // (block_w + BLOCK_GAP_MM)))
    rows = max(1, int((usable_h + BLOCK_GAP_MM) // (block_h + BLOCK_GAP_MM)))
    per_page = per_row * rows
    cards = list(book.cards)
    chunks = [cards[i : i + per_page] for i in range(0, len(cards), per_page)]
    pages = []
    for number, chunk in enumerate(chunks, 1):
        page = PILImage.new("L", page_px, 255)
        draw = ImageDraw.Draw(page)
        _heading(draw, layout, book, number, len(chunks))
        for k, card in enumerate(chunk):
            row, col = divmod(k, per_row)
            x0 = layout.margin_mm + col * (block_w + BLOCK_GAP_MM)
            y0 = layout.margin_mm + HEADER_MM + row * (block_h + BLOCK_GAP_MM)
            draw.text(
                (layout.px(x0), layout.px(y0)), f"card {card}", fill=0, font=_font(layout.px(3.2))
            )
            for quarter, (qx, qy) in enumerate(CARD_QUARTERS):
                sw, sh = layout.sticker_mm
                sx = x0 + qx * (sw + GAP_MM)
                sy = y0 + TITLE_MM + qy * (sh + GAP_MM)
                _sticker(page, draw, layout, book.marker_id(card, quarter), card, quarter, sx, sy)
        pages.append(page)
    return pages


def _heading(draw: Any, layout: SheetLayout, book: MarkerBook, page: int, pages: int) -> None:
    x = layout.px(layout.margin_mm)
    y = layout.px(layout.margin_mm)
    first, last = book.cards[0], book.cards[-1]
    lines = (
        f"Chomp land markers ({DICTIONARY_NAME}): {len(book.cards)} cards, {first} ... {last}, "
        f"page {page} of {pages}. Print at 100% (actual size), not 'fit to page'.",
        "Cut on the dotted lines. Stick each marker on the quarter its label names, "
        "with the label below the marker (upright as the card is).",
    )
    font = _font(layout.px(2.6))
    for k, text in enumerate(lines):
        draw.text((x, y + layout.px(4.5) * k), text, fill=0, font=font)
    # A 50 mm bar to check the print: measure it with a ruler.
    bar_y = y + layout.px(11)
    draw.rectangle((x, bar_y, x + layout.px(50) - 1, bar_y + layout.px(1.5)), fill=0)
    for tick in range(0, 51, 10):
        tx = x + layout.px(tick)
        draw.line((tx, bar_y - layout.px(1.5), tx, bar_y + layout.px(1.5)), fill=0, width=2)
    draw.text(
        (x + layout.px(53), bar_y - layout.px(1.2)),
        f"this bar is 50 mm, each marker's black square {layout.marker_mm:g} mm",
        fill=0,
        font=_font(layout.px(2.4)),
    )


def _sticker(
    page: Any,
    draw: Any,
    layout: SheetLayout,
    marker_id: int,
    card: str,
    quarter: int,
    x_mm: float,
    y_mm: float,
) -> None:
    from PIL import Image as PILImage

    sw, sh = layout.sticker_mm
    x, y = layout.px(x_mm), layout.px(y_mm)
    w, h = layout.px(sw), layout.px(sh)
    _dotted_box(draw, x, y, x + w - 1, y + h - 1, layout.px(1.0))
    pad = layout.px(layout.pad_mm)
    side = layout.px(layout.marker_mm)
    page.paste(PILImage.fromarray(marker_image(marker_id, side)), (x + pad, y + pad))
    label = f"{card} {quarter_name(quarter)}"
    font = _font(layout.px(min(2.6, layout.label_mm * 0.8)))
    left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
    tx = x + (w - (right - left)) // 2 - left
    ty = y + pad + side + (layout.px(layout.pad_mm + layout.label_mm) - (bottom - top)) // 2 - top
    draw.text((tx, ty), label, fill=0, font=font)


def _dotted_box(draw: Any, x0: int, y0: int, x1: int, y1: int, step: int) -> None:
    """A light dotted cut line (a solid one would print as a frame around the marker)."""
    step = max(2, step)
    for x in range(x0, x1 + 1, step * 2):
        draw.line((x, y0, min(x + step, x1), y0), fill=160)
        draw.line((x, y1, min(x + step, x1), y1), fill=160)
    for y in range(y0, y1 + 1, step * 2):
        draw.line((x0, y, x0, min(y + step, y1)), fill=160)
        draw.line((x1, y, x1, min(y + step, y1)), fill=160)


def save_sheet(pages: Sequence[Any], path: Path, dpi: int) -> list[Path]:
    """Write the pages: one PDF, or PNGs (``name-2.png`` for the second page on)."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".pdf":
            pages[0].save(
                path, "PDF", resolution=float(dpi), save_all=True, append_images=list(pages[1:])
            )
            return [path]
        if suffix == ".png":
            written = []
            for number, page in enumerate(pages, 1):
                target = path if number == 1 else path.with_name(f"{path.stem}-{number}.png")
                page.save(target, "PNG", dpi=(dpi, dpi))
                written.append(target)
            return written
    except OSError as exc:
        raise InputError("", exc.strerror or str(exc), str(path)) from None
    raise InputError("", "the sheet is written as .pdf or .png", str(path))
