"""A rendered table video with its truth: rounds of CHOMP! cards flipped in from each
seat, for the camera's benchmark, its tests and the simulated camera.

A round (:class:`~.scene.Round`) is planned from a seed (:func:`~.scene.random_round`) or
staged by hand; :class:`Painter` draws its frames at 1280 x 720 and says, per frame, which
markers a fair reader could see and in which seat's zone (:class:`~.scene.FrameTruth`).
Everything random comes from ``random.Random(seed)`` (and NumPy generators seeded from
it), so a round is the same picture every time.

What makes it hard, as at a real table: the cards slide and turn over (motion blur, the
marker unreadable mid flip), hands arrive 150-700 ms after the flips and cover cards
wholly or partly, sleeves catch the light (a glare patch), a 50 Hz light beats under
30 frames a second, the camera shakes (up to 2 px) and the sensor is noisy; a phone or a
cup lies in the middle, on wood or on a cloth.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from companion.camera.model import Frame, Point
from companion.camera.synth.paint import (
    EXPOSURE_NS,
    camera,
    card_back,
    card_face,
    card_geometry,
    card_matrix,
    composite,
    line_kernel,
    noise_bank,
    paint_hand,
    put_prop,
    table_image,
)
from companion.camera.synth.scene import (
    CardShow,
    FrameTruth,
    HandPass,
    Look,
    Round,
    Seat,
    random_round,
    seats_for,
)

__all__ = [
    "CardShow",
    "FrameTruth",
    "HandPass",
    "Look",
    "Painter",
    "Round",
    "Seat",
    "random_round",
    "seats_for",
]

SHAKE_PAD = 4  # the table is drawn this much larger all round, for the shake
GLARE_HIDES = 120.0  # glare this bright over a marker washes its black cells out
MAINS_HZ = 50.0


class Painter:
    """Draws one round's frames, each with its truth. The table, the cards' faces and
    the camera's flicker and shake are fixed when it is made; frames may be drawn in any
    order, each the same picture every time."""

    def __init__(self, plan: Round) -> None:
        self.plan = plan
        rng = random.Random(plan.seed * 7919 + 17)
        w, h = plan.size
        pad = 2 * SHAKE_PAD
        self.background = table_image(rng.randrange(2**31), (w + pad, h + pad), plan.table)
        if plan.prop != "none":
            put_prop(self.background, plan.prop, rng)
        ppm = plan.px_per_mm
        self.card_size, self.side, self.marker_at = card_geometry(ppm)
        self.faces: dict[int, tuple[Any, float]] = {c.marker: card_face(c, ppm) for c in plan.cards}
        look = plan.look
        self.flicker = rng.uniform(0.3, 1.0) * look.flicker
        self.phase = rng.uniform(0, 2 * math.pi)
        self.exposure = rng.uniform(0.88, 1.08)
        self.shakes = [
            (_clip(rng.gauss(0, look.shake_px)), _clip(rng.gauss(0, look.shake_px)))
            for _ in range(plan.frames)
        ]
        self.offsets = [(rng.randrange(64), rng.randrange(64)) for _ in range(plan.frames)]
        self.noise = noise_bank(plan.size, look.noise) if look.noise > 0 else None

    def frame(self, index: int) -> tuple[Any, FrameTruth]:
        """Frame ``index`` (BGR, uint8) and its truth."""
        plan = self.plan
        t = plan.t_ns(index)
        shift = self.shakes[index % len(self.shakes)] if self.shakes else (0.0, 0.0)
        image = self._table(shift)
        corners: dict[int, tuple[Point, Point, Point, Point]] = {}
        moving: set[int] = set()
        for card in plan.cards:
            placed = self._card(image, card, t, shift)
            if placed is None:
                continue
            quad, at_rest = placed
            corners[card.marker] = quad
            if not at_rest:
                moving.add(card.marker)
        covered = self._hands(image, t, corners, shift)
        gain = self.exposure * (
            1 + self.flicker * math.sin(2 * math.pi * 2 * MAINS_HZ * t / 1e9 + self.phase)
        )
        noise = None
        if self.noise is not None:
            ox, oy = self.offsets[index % len(self.offsets)]
            w, h = plan.size
            noise = self.noise[oy : oy + h, ox : ox + w]
        image = camera(image, gain, noise)
        shifted = corners
        glared = {m for m in shifted if self.faces[m][1] * gain >= GLARE_HIDES}
        hidden = covered | moving | glared
        visible = {m: self._seat_of(q) for m, q in shifted.items() if m not in hidden}
        truth = FrameTruth(
            index=index,
            t_ns=t,
            visible=visible,
            corners=shifted,
            covered=frozenset(covered),
            moving=frozenset(moving),
            glared=frozenset(glared & set(shifted) - moving),
        )
        return image, truth

    def frames(self, start: int = 0) -> Any:
        """Every frame from ``start`` as (Frame, FrameTruth)."""
        for index in range(start, self.plan.frames):
            image, truth = self.frame(index)
            yield Frame(index, truth.t_ns, image), truth

    def _table(self, shift: tuple[float, float]) -> Any:
        """The table as the shaken camera sees it (to the nearest pixel: the cards and
        hands drawn over it carry the shake to the sub-pixel)."""
        w, h = self.plan.size
        x = SHAKE_PAD - round(shift[0])
        y = SHAKE_PAD - round(shift[1])
        return self.background[y : y + h, x : x + w].copy()

    def _card(
        self, image: Any, card: CardShow, t: int, shift: tuple[float, float]
    ) -> tuple[tuple[Point, Point, Point, Point], bool] | None:
        """Draws the card if it is on the table yet; its marker's corners when face up."""
        if t < card.flip_start_ns:
            return None
        matrix, s, velocity = card_matrix(card, t, self.card_size)
        matrix[:, 2] += shift
        kernel = None
        if self.plan.look.blur and s < 1:
            kernel = line_kernel(*(velocity * EXPOSURE_NS))
        face_up = s >= 0.5
        sprite = self.faces[card.marker][0] if face_up else card_back(self.card_size)
        composite(image, sprite, matrix, kernel)
        if not face_up:
            return None
        mx, my = self.marker_at
        n = self.side
        box = np.array([[mx, my, 1], [mx + n, my, 1], [mx + n, my + n, 1], [mx, my + n, 1]])
        pts = (box - [0.5, 0.5, 0]) @ matrix.T
        quad = tuple((float(x), float(y)) for x, y in pts)
        return quad, s >= 1  # type: ignore[return-value]

    def _hands(
        self,
        image: Any,
        t: int,
        corners: dict[int, tuple[Point, Point, Point, Point]],
        shift: tuple[float, float],
    ) -> set[int]:
        """Draws the hands over the table; the markers any of them covers, even in part."""
        covered: set[int] = set()
        for hand in self.plan.hands:
            palm = hand.palm_at(t)
            if palm is None:
                continue
            motion = (0.0, 0.0)
            if self.plan.look.blur:  # where the palm goes during the exposure
                later = hand.palm_at(t + EXPOSURE_NS) or palm
                motion = (later[0] - palm[0], later[1] - palm[1])
            moved = replace(hand, enter=(hand.enter[0] + shift[0], hand.enter[1] + shift[1]))
            palm = (palm[0] + shift[0], palm[1] + shift[1])
            alpha, origin = paint_hand(image, moved, palm, motion)
            covered |= _under(alpha, origin, corners)
        return covered

    def _seat_of(self, quad: tuple[Point, ...]) -> str | None:
        """The seat whose zone holds all four corners, or None (between or outside)."""
        w, h = self.plan.size
        for seat in self.plan.seats:
            x0, y0, x1, y1 = seat.box
            if all(x0 * w <= x <= x1 * w and y0 * h <= y <= y1 * h for x, y in quad):
                return seat.name
        return None


def _under(
    alpha: Any, origin: tuple[int, int], corners: dict[int, tuple[Point, Point, Point, Point]]
) -> set[int]:
    """The markers the hand's coverage (``alpha`` from ``origin``) touches at all, a
    pixel's margin round each marker included."""
    found: set[int] = set()
    if alpha.size == 0:
        return found
    h, w = alpha.shape
    for marker, quad in corners.items():
        pts = np.array(quad) - origin
        if (
            pts[:, 0].max() < -1
            or pts[:, 1].max() < -1
            or pts[:, 0].min() > w
            or pts[:, 1].min() > h
        ):
            continue
        x0, y0 = max(0, int(pts[:, 0].min()) - 2), max(0, int(pts[:, 1].min()) - 2)
        x1, y1 = min(w, int(pts[:, 0].max()) + 3), min(h, int(pts[:, 1].max()) + 3)
        if x1 <= x0 or y1 <= y0:
            continue
        inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(inside, np.round(pts - (x0, y0)).astype(np.int32), (1,))
        inside = cv2.dilate(inside, np.ones((3, 3), np.uint8))
        if (alpha[y0:y1, x0:x1][inside > 0] > 0.15).any():
            found.add(marker)
    return found


def _clip(value: float, limit: float = 2.0) -> float:
    return max(-limit, min(limit, value))
