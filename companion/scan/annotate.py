"""The annotated photo: what the scan saw, so a person can check it at a glance.

Drawn on a copy at most ``max_side`` pixels wide: the fitted quarter grid over the land,
each marker's outline (green: read by ArUco, teal: read on a second look, yellow:
verified though partly covered, orange: hidden but inferred, magenta: found but not
used), each cell's name and what it was read as, unread cells filled red, the areas
around the land that may hold a card no marker explains outlined in red, and a line on
top that sums it up.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.scan.land import Trouble, cell_label, quarter_name
from companion.scan.reader import Reading

Image = npt.NDArray[np.uint8]
Matrix = npt.NDArray[np.floating[Any]]

GREEN = (60, 200, 60)
TEAL = (200, 200, 40)
YELLOW = (0, 215, 255)
ORANGE = (0, 140, 255)
MAGENTA = (200, 60, 220)
RED = (40, 40, 230)
GRID = (230, 220, 150)
COLOURS = {"seen": GREEN, "second look": TEAL, "verified": YELLOW, "inferred": ORANGE}
SHORT = {
    Trouble.NOT_SEEN: "?",
    Trouble.TWO_MARKERS: "2 markers",
    Trouble.CARD_DISAGREES: "card?",
    Trouble.DUPLICATE: "twice",
    Trouble.ORDER: "order?",
    Trouble.HALF_LARGE: "half L?",
    Trouble.OUTSIDE: "outside",
    Trouble.STICKER: "covered",
    Trouble.COVERED: "card here?",
    Trouble.PHOTOS_DISAGREE: "photos?",
}


def _project(h: Matrix, pts: Matrix, scale: float) -> Matrix:
    out = cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), h)
    return np.asarray(out, np.float64).reshape(-1, 2) * scale


def _label(image: Image, text: str, at: Matrix, size: float, colour: tuple[int, int, int]) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, round(size * 2))
    (w, h), base = cv2.getTextSize(text, font, size, thick)
    x, y = int(at[0] - w / 2), int(at[1] + h / 2)
    cv2.rectangle(image, (x - 3, y - h - 3), (x + w + 3, y + base + 1), (20, 20, 20), -1)
    cv2.putText(image, text, (x, y), font, size, colour, thick, cv2.LINE_AA)


def annotate(image: Image, reading: Reading, max_side: int = 2000) -> Image:
    """The photo with what the scan read drawn over it (see the module's docstring)."""
    height, width = image.shape[:2]
    scale = min(1.0, max_side / max(width, height))
    out = np.asarray(
        image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), np.uint8
    )
    if scale < 1.0:
        size = (round(width * scale), round(height * scale))
        out = np.asarray(cv2.resize(out, size, interpolation=cv2.INTER_AREA), np.uint8)
    else:
        out = out.copy()
    h = reading.grid_to_image
    line = max(1, round(2 * max(out.shape[:2]) / 2000))
    if h is not None:
        spots = list(reading.cells) + list(reading.unread)
        if spots:
            _grid(out, h, spots, scale, line)
        shade = out.copy()
        for cell in reading.unread:
            quad = _project(h, _square(cell), scale).astype(np.int32)
            cv2.fillPoly(shade, [quad], RED)
        out = np.asarray(cv2.addWeighted(shade, 0.35, out, 0.65, 0), np.uint8)
        _outline_areas(out, h, reading, scale, line)
    for index, marker in enumerate(reading.markers):
        colour = MAGENTA if index in reading.ignored else COLOURS.get(marker.how, GREEN)
        if index not in reading.placed and index not in reading.ignored:
            colour = MAGENTA
        quad = (marker.corners * scale).astype(np.int32)
        cv2.polylines(out, [quad], True, colour, line + 1, cv2.LINE_AA)
        # A dot on the marker's top-left corner shows which way its card is turned.
        cv2.circle(out, tuple(int(v) for v in quad[0]), line + 2, colour, -1, cv2.LINE_AA)
    if h is not None:
        for cell in list(reading.cells) + list(reading.unread):
            centre = _project(h, np.array([[cell[0] + 0.5, cell[1] + 0.5]]), scale)[0]
            across = _project(
                h, np.array([[cell[0], cell[1] + 0.5], [cell[0] + 1, cell[1] + 0.5]]), scale
            )
            text_size = max(0.35, float(np.linalg.norm(across[1] - across[0])) / 240)
            below = centre + np.array([0.0, float(np.linalg.norm(across[1] - across[0])) * 0.3])
            if cell in reading.cells:
                card, quarter = reading.cells[cell]
                text = f"{cell_label(cell)} {card}:{quarter_name(quarter)}"
                _label(out, text, below, text_size, (255, 255, 255))
            else:
                why = reading.unread[cell]
                _label(
                    out,
                    f"{cell_label(cell)} {SHORT[why.trouble]}",
                    below,
                    text_size,
                    (120, 120, 255),
                )
    _title(out, reading)
    return out


def _outline_areas(out: Image, h: Matrix, reading: Reading, scale: float, line: int) -> None:
    """A thick red line around each area that may hold a card no marker explains."""
    cells = {
        c
        for c, u in reading.unread.items()
        if u.trouble in (Trouble.COVERED, Trouble.OUTSIDE) and not u.candidates
    }
    for x, y in cells:
        sides = (
            ((x, y), (x + 1, y), (x, y - 1)),
            ((x + 1, y), (x + 1, y + 1), (x + 1, y)),
            ((x + 1, y + 1), (x, y + 1), (x, y + 1)),
            ((x, y + 1), (x, y), (x - 1, y)),
        )
        for a, b, beyond in sides:
            if beyond in cells:
                continue
            ends = _project(h, np.array([a, b], np.float64), scale).astype(np.int32)
            cv2.line(out, tuple(ends[0]), tuple(ends[1]), RED, 2 * line + 2, cv2.LINE_AA)


def _square(cell: tuple[int, int]) -> Matrix:
    x, y = cell
    return np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], np.float64)


def _grid(out: Image, h: Matrix, spots: list[tuple[int, int]], scale: float, line: int) -> None:
    for x, y in spots:
        quad = _project(h, _square((x, y)), scale).astype(np.int32)
        cv2.polylines(out, [quad], True, GRID, line, cv2.LINE_AA)


def _title(out: Image, reading: Reading) -> None:
    verified = sum(1 for c in reading.cells if reading.how(c) == "verified")
    inferred = sum(1 for c in reading.cells if reading.how(c) == "inferred")
    text = (
        f"{len(reading.cells)} cells read ({verified} verified, {inferred} inferred), "
        f"{len(reading.unread)} unread, "
        f"{len(reading.cards)} cards, {len(reading.ignored)} markers not used"
    )
    size = max(0.6, out.shape[1] / 1600)
    thick = max(1, round(size * 2))
    (_, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, size, thick)
    cv2.rectangle(out, (0, 0), (out.shape[1], th + base + 16), (20, 20, 20), -1)
    cv2.putText(
        out, text, (10, th + 8), cv2.FONT_HERSHEY_SIMPLEX, size, (255, 255, 255), thick, cv2.LINE_AA
    )
