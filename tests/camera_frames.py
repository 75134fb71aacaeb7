"""Recorded frame sequences for the camera's table tests: a plain table seen from above,
white cards with their marker stickers where the test puts them, written as PNG files to a
folder (read back by the folder source, as a recording would be at a table)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from companion.camera.model import Zone

WIDTH, HEIGHT = 640, 360
MARKER_PX = 60  # 7 cells of about 8.6 px: what a sticker is at a table's distance in 720p
CARD_W, CARD_H = 96, 132

# Three seats side by side along the bottom of the picture, a gap between their zones.
ZONES = (
    Zone("ann", ((0.02, 0.30), (0.32, 0.30), (0.32, 0.98), (0.02, 0.98))),
    Zone("bob", ((0.35, 0.30), (0.65, 0.30), (0.65, 0.98), (0.35, 0.98))),
    Zone("cat", ((0.68, 0.30), (0.98, 0.30), (0.98, 0.98), (0.68, 0.98))),
)
CENTRES = {"ann": 0.17, "bob": 0.50, "cat": 0.83}  # each zone's middle, fraction of width
BETWEEN_ANN_AND_BOB = 0.335  # the gap between ann's and bob's zones

# A card on the table: its centre (fractions of the frame) and its marker id.
Placed = tuple[float, float, int]


def columns(names: Sequence[str]) -> tuple[tuple[Zone, ...], dict[str, float]]:
    """Zones side by side for any seats (a small gap between them), and their middles."""
    width = 0.96 / len(names)
    zones, centres = [], {}
    for i, name in enumerate(names):
        left, right = 0.02 + i * width, 0.02 + (i + 1) * width - 0.03
        zones.append(Zone(name, ((left, 0.30), (right, 0.30), (right, 0.98), (left, 0.98))))
        centres[name] = (left + right) / 2
    return tuple(zones), centres


def zones_config() -> dict[str, list[list[float]]]:
    """The zones as the table's config writes them (``[camera.zones]``)."""
    return {z.seat: [list(p) for p in z.polygon] for z in ZONES}


def frame(cards: Sequence[Placed], covered: Sequence[tuple[float, float]] = ()) -> Any:
    """One picture: the cards (white, each marker in its middle) and hands over the
    given points (a dark blot that hides what is under it)."""
    import cv2
    import numpy as np

    from companion.camera.markers import marker_image

    image = np.full((HEIGHT, WIDTH, 3), (70, 95, 60), np.uint8)  # a green cloth
    for x, y, marker in cards:
        cx, cy = round(x * WIDTH), round(y * HEIGHT)
        cv2.rectangle(
            image,
            (cx - CARD_W // 2, cy - CARD_H // 2),
            (cx + CARD_W // 2, cy + CARD_H // 2),
            (245, 245, 245),
            -1,
        )
        sticker = cv2.cvtColor(marker_image(marker, MARKER_PX), cv2.COLOR_GRAY2BGR)
        top, left = cy - MARKER_PX // 2, cx - MARKER_PX // 2
        image[top : top + MARKER_PX, left : left + MARKER_PX] = sticker
    for x, y in covered:
        cv2.circle(image, (round(x * WIDTH), round(y * HEIGHT)), 70, (40, 60, 90), -1)
    return image


def write_frames(folder: Path, frames: Sequence[Any]) -> Path:
    """The frames as numbered PNG files in ``folder`` (made), in order."""
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    for i, image in enumerate(frames):
        assert cv2.imwrite(str(folder / f"frame-{i:04d}.png"), image)
    return folder


def seats(
    cards: Mapping[str, int], y: float = 0.62, centres: Mapping[str, float] = CENTRES
) -> list[Placed]:
    """One card in the middle of each named seat's zone."""
    return [(centres[seat], y, marker) for seat, marker in cards.items()]
