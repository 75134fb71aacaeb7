"""The sticker sheet: one marker per card of a deck, labelled with its card and its place.

Why these sizes (docs/camera.md): the camera looks down from 70 to 100 cm at 1280 x 720.
The Pi Camera Module 3's standard lens (66 degrees across) then sees a strip of table 91 to
130 cm wide, 1.4 to 1.0 pixels a millimetre, so a marker of :data:`MARKER_MM` (7 cells of
3.4 mm, border included) is 24 to 34 pixels a side: 3.4 to 4.8 pixels a cell, which the
detector reads through a card's motion blur (:mod:`~companion.camera.detect`). Smaller
markers go below 3 pixels a cell at 100 cm; larger ones crowd a 63 x 88 mm card.

Where on the card (:data:`PLACEMENT`): a hand slapping a card lands on its middle, the
palm over the centre, so the sticker goes in a corner, the part of the face farthest
from the centre, 3 mm in from both edges (a sleeve's rim or a worn edge never cuts it).

A sheet is a list of pages, each a list of drawing steps in millimetres; the same steps
are written as SVG (through :mod:`companion.svg`'s element builder, so every label is
escaped by construction) and drawn as a 300 dpi image (PNG or PDF) with Pillow, so the two
never differ. Pillow is imported only to draw an image.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import svg
from companion.camera.deck import GAME_TITLES, StickerDeck
from companion.camera.markers import DICTIONARY_NAME, MARKER_BITS, marker_image
from companion.errors import InputError

MARKER_MM = 24.0  # the black square, border included: 7 cells of 3.43 mm
CELLS = MARKER_BITS + 2  # data bits and the black border on each side
EDGE_MM = 2.5  # white around the marker on the sticker (ArUco needs a light edge)
LABEL_MM = 7.5  # the two label lines under the marker, on the sticker itself
STICKER_MM = (MARKER_MM + 2 * EDGE_MM, MARKER_MM + 2 * EDGE_MM + LABEL_MM)
GAP_MM = 4.0  # between stickers: room for the scissors
MARGIN_MM = 12.0  # the page's edge most printers leave
HEADER_MM = 20.0  # the heading, the instructions and the 50 mm bar
SCALE_BAR_MM = 50.0
PLACEMENT = "top-left corner, face up"
INSET_MM = 3.0  # the sticker's edge from the card's edges
PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
DPI = 300
MM_PER_INCH = 25.4
FORMATS = (".svg", ".png", ".pdf")

# Where the figures above come from: the table's camera, as docs/camera.md mounts it.
FRAME_WIDTH_PX = 1280
STANDARD_LENS_DEG = 66.0  # Pi Camera Module 3, across the 16:9 frame
WIDE_LENS_DEG = 102.0  # Module 3 Wide


def pixels_per_cell(distance_cm: float, lens_deg: float = STANDARD_LENS_DEG) -> float:
    """How many frame pixels one marker cell spans, seen straight down from ``distance_cm``
    through a lens ``lens_deg`` wide at :data:`FRAME_WIDTH_PX` pixels across."""
    seen_mm = 2 * distance_cm * 10 * math.tan(math.radians(lens_deg / 2))
    return FRAME_WIDTH_PX / seen_mm * MARKER_MM / CELLS


# -- the drawing steps, in millimetres --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Box:
    """A filled rectangle (``grey`` 0 black .. 255 white)."""

    x: float
    y: float
    w: float
    h: float
    grey: int = 0


@dataclass(frozen=True, slots=True)
class Label:
    """One line of text; ``y`` is its baseline, ``size`` its em in millimetres."""

    x: float
    y: float
    size: float
    words: str
    anchor: str = "start"  # or "middle"


@dataclass(frozen=True, slots=True)
class Cut:
    """A dotted cut line around a sticker."""

    x: float
    y: float
    w: float
    h: float


Step = Box | Label | Cut


@dataclass(frozen=True, slots=True)
class Page:
    paper: str
    number: int
    of: int
    steps: tuple[Step, ...]

    @property
    def size_mm(self) -> tuple[float, float]:
        return PAPER_MM[self.paper]


def grid(paper: str) -> tuple[int, int]:
    """Stickers a row and rows a page on this paper."""
    width, height = PAPER_MM[paper]
    sticker_w, sticker_h = STICKER_MM
    across = int((width - 2 * MARGIN_MM + GAP_MM) // (sticker_w + GAP_MM))
    down = int((height - 2 * MARGIN_MM - HEADER_MM + GAP_MM) // (sticker_h + GAP_MM))
    return across, down


def sheet(deck: StickerDeck, paper: str = "a4") -> list[Page]:
    """The deck's stickers in id order, as many pages as they need."""
    if paper not in PAPER_MM:
        raise InputError("--paper", f"unknown paper {paper!r} (one of: {', '.join(PAPER_MM)})")
    across, down = grid(paper)
    per_page = across * down
    markers = list(deck.markers)
    chunks = [markers[i : i + per_page] for i in range(0, len(markers), per_page)] or [[]]
    pages = []
    for number, chunk in enumerate(chunks, 1):
        steps: list[Step] = list(_heading(deck, number, len(chunks)))
        for k, marker in enumerate(chunk):
            row, col = divmod(k, across)
            x = MARGIN_MM + col * (STICKER_MM[0] + GAP_MM)
            y = MARGIN_MM + HEADER_MM + row * (STICKER_MM[1] + GAP_MM)
            steps.extend(sticker(marker, deck.label(marker), x, y))
        pages.append(Page(paper, number, len(chunks), tuple(steps)))
    return pages


def _heading(deck: StickerDeck, page: int, pages: int) -> list[Step]:
    x, y = MARGIN_MM, MARGIN_MM
    title = GAME_TITLES[deck.game]
    steps: list[Step] = [
        Label(
            x,
            y + 3.0,
            3.6,
            f"{title} camera stickers ({DICTIONARY_NAME}): {len(deck.cards)} cards, "
            f"page {page} of {pages}",
        ),
        Label(
            x,
            y + 7.5,
            2.8,
            "Print at 100% (actual size), not 'fit to page'. Cut on the dotted lines and "
            "stick each on the card its label names,",
        ),
        Label(
            x,
            y + 11.0,
            2.8,
            f"in the {PLACEMENT.split(',')[0]} of the card's face, {INSET_MM:g} mm in from "
            "both edges. Then run: companion camera learn.",
        ),
    ]
    bar_y = y + 14.5
    steps.append(Box(x, bar_y, SCALE_BAR_MM, 1.2))
    steps.extend(Box(x + tick - 0.2, bar_y - 1.2, 0.4, 3.6) for tick in range(0, 51, 10))
    steps.append(
        Label(
            x + SCALE_BAR_MM + 3.0,
            bar_y + 1.5,
            2.6,
            f"this bar is {SCALE_BAR_MM:g} mm; each marker's black square {MARKER_MM:g} mm",
        )
    )
    return steps


def sticker(marker: int, label: str, x: float, y: float) -> list[Step]:
    """One sticker at (x, y): cut line, the marker's cells, its card and its place."""
    width, height = STICKER_MM
    steps: list[Step] = [Cut(x, y, width, height)]
    cell = MARKER_MM / CELLS
    bits = marker_image(marker, CELLS)  # one pixel a cell
    left, top = x + EDGE_MM, y + EDGE_MM
    for row in range(CELLS):
        col = 0
        while col < CELLS:  # a run of black cells is one box
            if bits[row][col] >= 128:
                col += 1
                continue
            start = col
            while col < CELLS and bits[row][col] < 128:
                col += 1
            steps.append(Box(left + start * cell, top + row * cell, (col - start) * cell, cell))
    middle = x + width / 2
    under = top + MARKER_MM
    steps.append(Label(middle, under + 3.4, 3.0, label, "middle"))
    steps.append(Label(middle, under + 6.4, 2.2, PLACEMENT, "middle"))
    return steps


# -- SVG ----------------------------------------------------------------------------------


def _mm(value: float) -> str:
    return f"{value:.3f}"


def page_svg(page: Page) -> str:
    """One page as an SVG document in millimetres; every label escaped by the builder."""
    width, height = page.size_mm
    root = svg.element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "width": f"{width:g}mm",
            "height": f"{height:g}mm",
            "viewBox": f"0 0 {width:g} {height:g}",
            "font-family": "sans-serif",
        },
    )
    lines = [
        root.start(),
        str(svg.title(f"camera stickers, page {page.number} of {page.of}")),
        str(svg.element("rect", {"width": f"{width:g}", "height": f"{height:g}", "fill": "white"})),
    ]
    for step in page.steps:
        lines.append(str(_svg_step(step)))
    lines += ["</svg>", ""]
    return "\n".join(lines)


def _svg_step(step: Step) -> svg.Element:
    if isinstance(step, Box):
        grey = f"#{step.grey:02x}{step.grey:02x}{step.grey:02x}"
        return svg.element(
            "rect",
            {
                "x": _mm(step.x),
                "y": _mm(step.y),
                "width": _mm(step.w),
                "height": _mm(step.h),
                "fill": grey,
            },
        )
    if isinstance(step, Label):
        return svg.element(
            "text",
            {
                "x": _mm(step.x),
                "y": _mm(step.y),
                "font-size": _mm(step.size),
                "text-anchor": step.anchor,
            },
            step.words,
        )
    return svg.element(
        "rect",
        {
            "x": _mm(step.x),
            "y": _mm(step.y),
            "width": _mm(step.w),
            "height": _mm(step.h),
            "fill": "none",
            "stroke": "#a0a0a0",
            "stroke-width": "0.2",
            "stroke-dasharray": "1 1",
        },
    )


# -- images -------------------------------------------------------------------------------


def _px(mm: float) -> int:
    return round(mm * DPI / MM_PER_INCH)


def page_image(page: Page) -> Any:
    """One page as a greyscale Pillow image at :data:`DPI`."""
    from PIL import Image, ImageDraw, ImageFont

    width, height = page.size_mm
    image = Image.new("L", (_px(width), _px(height)), 255)
    draw = ImageDraw.Draw(image)
    for step in page.steps:
        if isinstance(step, Box):
            box = (_px(step.x), _px(step.y), _px(step.x + step.w) - 1, _px(step.y + step.h) - 1)
            draw.rectangle(box, fill=step.grey)
        elif isinstance(step, Label):
            font = ImageFont.load_default(size=max(6, _px(step.size)))
            anchor = "ms" if step.anchor == "middle" else "ls"
            draw.text((_px(step.x), _px(step.y)), step.words, fill=0, font=font, anchor=anchor)
        else:
            _dotted(draw, _px(step.x), _px(step.y), _px(step.x + step.w), _px(step.y + step.h))
    return image


def _dotted(draw: Any, x0: int, y0: int, x1: int, y1: int) -> None:
    """A light dotted cut line (a solid dark one would print as a frame by the marker)."""
    step = _px(1.0)
    for x in range(x0, x1 + 1, step * 2):
        draw.line((x, y0, min(x + step, x1), y0), fill=160, width=2)
        draw.line((x, y1, min(x + step, x1), y1), fill=160, width=2)
    for y in range(y0, y1 + 1, step * 2):
        draw.line((x0, y, x0, min(y + step, y1)), fill=160, width=2)
        draw.line((x1, y, x1, min(y + step, y1)), fill=160, width=2)


# -- files --------------------------------------------------------------------------------


def page_paths(path: Path, pages: int) -> list[Path]:
    """Where a sheet goes: one PDF holds every page; SVG and PNG get ``name-2.svg`` on."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise InputError("--out", f"a sheet is written as {', '.join(FORMATS)}", str(path))
    if suffix == ".pdf":
        return [path]
    return [
        path if n == 1 else path.with_name(f"{path.stem}-{n}{path.suffix}")
        for n in range(1, pages + 1)
    ]


def encoded(pages: Sequence[Page], path: Path) -> list[tuple[Path, bytes]]:
    """The files of the sheet for ``path`` (by its suffix), each with its bytes."""
    targets = page_paths(path, len(pages))
    suffix = path.suffix.lower()
    if suffix == ".svg":
        return [(t, page_svg(p).encode("utf-8")) for t, p in zip(targets, pages, strict=True)]
    images = [page_image(p) for p in pages]
    if suffix == ".pdf":
        buffer = io.BytesIO()
        images[0].save(
            buffer, "PDF", resolution=float(DPI), save_all=True, append_images=images[1:]
        )
        return [(path, buffer.getvalue())]
    out = []
    for target, image in zip(targets, images, strict=True):
        buffer = io.BytesIO()
        image.save(buffer, "PNG", dpi=(DPI, DPI))
        out.append((target, buffer.getvalue()))
    return out
