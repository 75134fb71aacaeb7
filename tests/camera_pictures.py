"""Rendered table pictures for the camera's tests: cards with their marker sticker lying on
a wooden table at 1280 x 720, turned, blurred and dimmed as a camera over a table sees them.

Not a fake of OpenCV: the pictures are real images the real detector reads. The sizes are
the table's (docs/camera.md): a 24 mm marker seen from 70-100 cm is 24-35 pixels a side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.camera.markers import marker_image

WIDTH, HEIGHT = 1280, 720
CARD_MM = (63.0, 88.0)
MARKER_MM, MARGIN_MM = 24.0, 3.5  # the sheet's marker and its white edge


@dataclass(frozen=True)
class CardOnTable:
    marker: int
    centre: tuple[float, float]
    px_per_mm: float = 1.0  # 1.0: the Module 3 lens at 100 cm; 1.4 at 70 cm
    angle: float = 0.0  # degrees, counter-clockwise


def table(seed: int = 1) -> Any:
    """An empty table: wood-coloured, grained, a little noise (BGR uint8)."""
    rng = np.random.default_rng(seed)
    x = np.linspace(0, 1, WIDTH, dtype=np.float32)
    y = np.linspace(0, 1, HEIGHT, dtype=np.float32)[:, None]
    grain = 0.5 + 0.25 * np.sin(40 * x + 6 * np.sin(3 * y)) + 0.1 * np.sin(170 * x)
    light = 0.8 + 0.2 * (1 - ((x - 0.5) ** 2 + (y - 0.5) ** 2))
    base = np.array([60, 110, 160], np.float32)  # BGR: a mid brown
    image = base[None, None, :] * (grain * light)[..., None]
    image += rng.normal(0, 4, image.shape).astype(np.float32)
    return np.clip(image, 0, 255).astype(np.uint8)


def card_image(marker: int, px_per_mm: float, scale: int = 4) -> Any:
    """A white card face with the marker sticker in its top-left corner, drawn ``scale``
    times too large (it is shrunk when pasted, as a camera's lens does)."""
    k = px_per_mm * scale
    w, h = round(CARD_MM[0] * k), round(CARD_MM[1] * k)
    card = np.full((h, w), 235, np.uint8)
    cv2.rectangle(card, (0, 0), (w - 1, h - 1), 90, max(1, round(k)))
    cv2.circle(card, (w // 2, round(h * 0.6)), round(15 * k), 120, -1)  # the card's picture
    side = round(MARKER_MM * k)
    at = round((3.0 + MARGIN_MM) * k)
    card[at : at + side, at : at + side] = marker_image(marker, side)
    return card


def place(image: Any, card: CardOnTable, scale: int = 4) -> None:
    """Paste ``card`` onto the table picture in place, turned and shrunk (area-averaged)."""
    face = card_image(card.marker, card.px_per_mm, scale)
    h, w = face.shape
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), card.angle, 1.0)
    cos, sin = abs(turn[0, 0]), abs(turn[0, 1])
    big_w, big_h = int(h * sin + w * cos) + 2, int(h * cos + w * sin) + 2
    turn[0, 2] += big_w / 2 - w / 2
    turn[1, 2] += big_h / 2 - h / 2
    turned = cv2.warpAffine(face, turn, (big_w, big_h), flags=cv2.INTER_LINEAR, borderValue=0)
    mask = cv2.warpAffine(
        np.full_like(face, 255), turn, (big_w, big_h), flags=cv2.INTER_LINEAR, borderValue=0
    )
    small = (max(1, big_w // scale), max(1, big_h // scale))
    turned = cv2.resize(turned, small, interpolation=cv2.INTER_AREA).astype(np.float32)
    alpha = cv2.resize(mask, small, interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    x0 = round(card.centre[0] - small[0] / 2)
    y0 = round(card.centre[1] - small[1] / 2)
    region = image[y0 : y0 + small[1], x0 : x0 + small[0]].astype(np.float32)
    mixed = region * (1 - alpha[..., None]) + turned[..., None] * alpha[..., None]
    image[y0 : y0 + small[1], x0 : x0 + small[0]] = np.clip(mixed, 0, 255).astype(np.uint8)


def picture(cards: list[CardOnTable], seed: int = 1) -> Any:
    image = table(seed)
    for card in cards:
        place(image, card)
    return image


def motion_blur(image: Any, length: int, angle: float = 0.0) -> Any:
    """The smear of a card still moving during the exposure: ``length`` pixels long."""
    line = np.zeros((length, length), np.float32)
    line[length // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), angle, 1.0)
    kernel: Any = cv2.warpAffine(line, turn, (length, length))
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def dim(image: Any, factor: float, seed: int = 2) -> Any:
    """A dim room: less light and the sensor noise that comes with it."""
    rng = np.random.default_rng(seed)
    noisy = image.astype(np.float32) * factor + rng.normal(0, 3, image.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def spread(n: int, seed: int = 3) -> list[tuple[float, float]]:
    """``n`` card centres on a grid over the table, apart from each other."""
    rng = np.random.default_rng(seed)
    columns = max(1, math.ceil(math.sqrt(n * WIDTH / HEIGHT)))
    rows = math.ceil(n / columns)
    out = []
    for i in range(n):
        cx = (i % columns + 0.5) * WIDTH / columns + rng.uniform(-8, 8)
        cy = (i // columns + 0.5) * HEIGHT / rows + rng.uniform(-8, 8)
        out.append((float(cx), float(cy)))
    return out
