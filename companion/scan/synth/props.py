"""What lies over a land in a real photo, for :mod:`companion.scan.synth`.

The canvas is the land seen from straight above (``ppm`` pixels per mm).  Beside the
colours drawn, it keeps what the truth needs: ``mask`` (what is drawn over the table),
``hidden`` (what hides a marker: an object, or glare bright enough to wash it out),
``kind`` (which kind of thing hides each pixel, for the figures per kind) and ``shade``
(the light's gain from the objects' shadows, laid over the table too).

Objects with height cast a soft shadow away from the light and are seen shifted a
little (parallax); a fingertip close to the lens is out of focus (soft edged); a phone
may cover a whole card; glare fades out softly.  Everything random comes from the
``random.Random`` given.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
Matrix = npt.NDArray[np.floating[Any]]
Draw = Callable[[Image, tuple[int, ...], tuple[int, int]], None]  # layer, value, origin

CLASSIC = ("token", "token", "finger", "pen")
KINDS = ("token", "finger", "pen", "die", "fingertip", "phone", "hand", "glare")
REALISTIC = (*CLASSIC, "die", "fingertip", "fingertip", "phone", "hand", "glare", "glare")


class Canvas:
    """The land seen from straight above, ``ppm`` pixels per mm, with its truth layers."""

    def __init__(self, lo_mm: Matrix, hi_mm: Matrix, ppm: float) -> None:
        self.lo = lo_mm
        self.ppm = ppm
        w = int(math.ceil((hi_mm[0] - lo_mm[0]) * ppm))
        h = int(math.ceil((hi_mm[1] - lo_mm[1]) * ppm))
        self.image = np.zeros((h, w, 3), np.uint8)
        self.mask = np.zeros((h, w), np.uint8)  # what is drawn over the table
        self.hidden = np.zeros((h, w), np.uint8)  # what hides a marker
        self.kind = np.zeros((h, w), np.uint8)  # 1 + index in KINDS of what hides it
        self.shade: npt.NDArray[np.float32] | None = None  # shadows' gain, when any

    def px(self, x_mm: float, y_mm: float) -> tuple[int, int]:
        return (round((x_mm - self.lo[0]) * self.ppm), round((y_mm - self.lo[1]) * self.ppm))

    def poly(self, pts_mm: Sequence[tuple[float, float]], colour: Sequence[int]) -> None:
        pts = np.array([self.px(x, y) for x, y in pts_mm], np.int32)
        cv2.fillPoly(self.image, [pts], tuple(int(c) for c in colour), cv2.LINE_AA)
        cv2.fillPoly(self.mask, [pts], (255,))

    def paste(self, patch: Image, centre_mm: tuple[float, float], angle_deg: float) -> None:
        """``patch`` centred at ``centre_mm``, turned ``angle_deg`` clockwise."""
        h, w = patch.shape[:2]
        cx, cy = (centre_mm[0] - self.lo[0]) * self.ppm, (centre_mm[1] - self.lo[1]) * self.ppm
        m = cv2.getRotationMatrix2D((w / 2, h / 2), -angle_deg, 1.0)
        m[0, 2] += cx - w / 2
        m[1, 2] += cy - h / 2
        reach = int(math.hypot(w, h) / 2) + 2
        x0, y0 = max(0, int(cx) - reach), max(0, int(cy) - reach)
        x1 = min(self.image.shape[1], int(cx) + reach)
        y1 = min(self.image.shape[0], int(cy) + reach)
        if x1 <= x0 or y1 <= y0:
            return
        m[0, 2] -= x0
        m[1, 2] -= y0
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpAffine(patch, m, size, flags=cv2.INTER_LINEAR)
        alpha = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, size, flags=cv2.INTER_LINEAR)
        a = alpha[..., None].astype(np.float32) / 255.0
        roi = self.image[y0:y1, x0:x1]
        roi[:] = (warped * a + roi * (1 - a)).astype(np.uint8)
        self.mask[y0:y1, x0:x1] = np.maximum(self.mask[y0:y1, x0:x1], alpha)

    def _roi(self, draw: Draw, grow_mm: float) -> tuple[slice, slice, tuple[int, int]] | None:
        """Where a shape lies (grown by ``grow_mm`` for a blur): slices and their origin."""
        full = np.zeros(self.mask.shape, np.uint8)
        draw(full, (255,), (0, 0))
        x, y, w, h = cv2.boundingRect(full)
        if w == 0 or h == 0:
            return None
        g = int(grow_mm * self.ppm) + 2
        x0, y0 = max(0, x - g), max(0, y - g)
        x1, y1 = min(full.shape[1], x + w + g), min(full.shape[0], y + h + g)
        return slice(y0, y1), slice(x0, x1), (x0, y0)

    def layer(
        self,
        draw: Draw,
        colour: Sequence[int],
        kind: str,
        soft_mm: float = 0.0,
        hides: bool = True,
    ) -> None:
        """Draw a shape in ``colour``, its edge softened over ``soft_mm`` (out of focus):
        blended in, and marked hidden where it is mostly opaque."""
        where = self._roi(draw, 3 * soft_mm)
        if where is None:
            return
        ys, xs, origin = where
        image = self.image[ys, xs]
        alpha = np.zeros(image.shape[:2], np.uint8)
        draw(alpha, (255,), origin)
        paint = np.zeros_like(image)
        draw(paint, tuple(int(c) for c in colour), origin)
        if soft_mm > 0:
            sigma = soft_mm * self.ppm
            alpha = np.asarray(cv2.GaussianBlur(alpha, (0, 0), sigma), np.uint8)
            paint = np.asarray(cv2.GaussianBlur(paint, (0, 0), sigma), np.uint8)
            weight = np.maximum(alpha.astype(np.float32) / 255.0, 1e-3)[..., None]
            paint = np.clip(paint.astype(np.float32) / weight, 0, 255).astype(np.uint8)
        a = alpha.astype(np.float32)[..., None] / 255.0
        image[:] = (paint * a + image * (1 - a)).astype(np.uint8)
        self.mask[ys, xs] = np.maximum(self.mask[ys, xs], alpha)
        if hides:
            solid = alpha > 127
            self.hidden[ys, xs][solid] = 255
            self.kind[ys, xs][solid] = 1 + KINDS.index(kind)

    def shadow(self, draw: Draw, shift_mm: Matrix, soft_mm: float) -> None:
        """A soft shadow of a shape, moved ``shift_mm`` away from the light."""
        grow = 3 * soft_mm + float(np.abs(shift_mm).max())
        where = self._roi(draw, grow)
        if where is None:
            return
        ys, xs, origin = where
        shape = np.zeros((ys.stop - ys.start, xs.stop - xs.start), np.uint8)
        draw(shape, (255,), origin)
        move = np.array(
            [[1, 0, shift_mm[0] * self.ppm], [0, 1, shift_mm[1] * self.ppm]], np.float32
        )
        shape = cv2.warpAffine(shape, move, (shape.shape[1], shape.shape[0]))
        shape = cv2.GaussianBlur(shape, (0, 0), max(0.5, soft_mm * self.ppm))
        if self.shade is None:
            self.shade = np.ones(self.mask.shape, np.float32)
        self.shade[ys, xs] *= 1.0 - 0.45 * shape.astype(np.float32) / 255.0

    def glare(self, centre_mm: tuple[float, float], sigma_mm: float, peak: float) -> None:
        """A soft bright patch: the marker washes out where it is brighter than half."""
        h, w = self.mask.shape
        cx, cy = self.px(*centre_mm)
        reach = int(3 * sigma_mm * self.ppm) + 1
        x0, y0, x1, y1 = (
            max(0, cx - reach),
            max(0, cy - reach),
            min(w, cx + reach),
            min(h, cy + reach),
        )
        if x1 <= x0 or y1 <= y0:
            return
        ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        r2 = ((xs - cx) ** 2 + (ys - cy) ** 2) / (sigma_mm * self.ppm) ** 2
        a = (peak * np.exp(-r2 / 2))[..., None]
        roi = self.image[y0:y1, x0:x1].astype(np.float32)
        self.image[y0:y1, x0:x1] = (roi * (1 - a) + 252.0 * a).astype(np.uint8)
        washed = a[..., 0] > 0.5
        self.hidden[y0:y1, x0:x1][washed] = 255
        self.kind[y0:y1, x0:x1][washed] = 1 + KINDS.index("glare")


def _capsule(canvas: Canvas, p0: tuple[float, float], p1: tuple[float, float], half: float) -> Draw:
    width = max(1, int(2 * half * canvas.ppm))
    a, b = canvas.px(*p0), canvas.px(*p1)

    def draw(layer: Image, value: tuple[int, ...], origin: tuple[int, int]) -> None:
        pa = (a[0] - origin[0], a[1] - origin[1])
        pb = (b[0] - origin[0], b[1] - origin[1])
        cv2.line(layer, pa, pb, value, width, cv2.LINE_AA)
        cv2.circle(layer, pa, width // 2, value, -1, cv2.LINE_AA)
        cv2.circle(layer, pb, width // 2, value, -1, cv2.LINE_AA)

    return draw


def _box(
    canvas: Canvas, centre: tuple[float, float], size: tuple[float, float], angle: float
) -> Draw:
    rect = (canvas.px(*centre), (size[0] * canvas.ppm, size[1] * canvas.ppm), angle)
    pts = np.asarray(cv2.boxPoints(rect), np.float32).astype(np.int32)

    def draw(layer: Image, value: tuple[int, ...], origin: tuple[int, int]) -> None:
        cv2.fillPoly(layer, [pts - np.array(origin, np.int32)], value, cv2.LINE_AA)

    return draw


def _disc(canvas: Canvas, centre: tuple[float, float], radius: float) -> Draw:
    c, r = canvas.px(*centre), int(radius * canvas.ppm)

    def draw(layer: Image, value: tuple[int, ...], origin: tuple[int, int]) -> None:
        cv2.circle(layer, (c[0] - origin[0], c[1] - origin[1]), r, value, -1, cv2.LINE_AA)

    return draw


class Props:
    """Objects laid over the land at random: ``place`` draws one of ``kind`` near the
    marker at ``target_mm`` (its middle), with its edge stopping within ``reach`` of it."""

    def __init__(self, canvas: Canvas, rng: random.Random, marker_mm: float) -> None:
        self.canvas, self.rng, self.marker_mm = canvas, rng, marker_mm
        angle = rng.uniform(0, 2 * math.pi)
        self.light = np.array([math.cos(angle), math.sin(angle)])  # shadows fall this way
        angle = rng.uniform(0, 2 * math.pi)
        self.view = np.array([math.cos(angle), math.sin(angle)])  # parallax: tops shift so

    def place(self, kind: str, target_mm: tuple[float, float]) -> None:
        rng = self.rng
        direction = rng.uniform(0, 2 * math.pi)
        u = np.array([math.cos(direction), math.sin(direction)])
        reach = rng.uniform(0.0, 0.5) * self.marker_mm
        getattr(self, f"_{kind}")(np.asarray(target_mm, np.float64), u, reach)

    def _lifted(self, height: float, draw: Draw) -> None:
        self.canvas.shadow(draw, self.light * height * 0.6, 1.0 + 0.15 * height)

    def _die(self, at: Matrix, u: Matrix, reach: float) -> None:
        side = self.rng.uniform(12.0, 16.0)
        centre = at + u * (side / 2 + reach) + self.view * side * 0.08
        angle = self.rng.uniform(0, 90)
        c = (float(centre[0]), float(centre[1]))
        draw = _box(self.canvas, c, (side, side), angle)
        self._lifted(side, draw)
        colour = self.rng.choice([(235, 235, 235), (40, 40, 200), (30, 30, 30), (60, 150, 60)])
        self.canvas.layer(draw, colour, "die")
        pip = (20, 20, 20) if sum(colour) > 300 else (240, 240, 240)
        for k in range(self.rng.randint(1, 6)):
            spot = centre + np.array([math.cos(k * 2.1), math.sin(k * 2.1)]) * side * 0.25
            cv2.circle(
                self.canvas.image,
                self.canvas.px(*spot),
                max(1, int(side * 0.08 * self.canvas.ppm)),
                pip,
                -1,
            )

    def _fingertip(self, at: Matrix, u: Matrix, reach: float) -> None:
        half = self.rng.uniform(7.0, 10.0)
        along = np.array([-u[1], u[0]])
        centre = at + u * (half + reach)
        p0 = centre + along * self.rng.uniform(-20, -5)
        p1 = p0 + along * self.rng.uniform(40, 80)
        draw = _capsule(self.canvas, (p0[0], p0[1]), (p1[0], p1[1]), half)
        self._lifted(20.0, draw)
        colour = self.rng.choice([(120, 150, 200), (90, 120, 170), (140, 170, 220)])
        self.canvas.layer(draw, colour, "fingertip", soft_mm=self.rng.uniform(1.5, 3.5))

    def _phone(self, at: Matrix, u: Matrix, reach: float) -> None:
        # Its long edge crosses the marker, or (one time in three) it lies over it whole.
        w, h = self.rng.uniform(68, 78), self.rng.uniform(140, 160)
        whole = self.rng.random() < 0.33
        offset = -self.rng.uniform(0, 20) if whole else w / 2 + reach
        centre = at + u * offset
        angle = math.degrees(math.atan2(u[1], u[0]))
        c = (float(centre[0]), float(centre[1]))
        draw = _box(self.canvas, c, (w, h), angle)
        self._lifted(9.0, draw)
        self.canvas.layer(draw, (25, 25, 28), "phone")
        screen = _box(self.canvas, c, (w - 6, h - 16), angle)
        tint = self.rng.choice([(60, 55, 50), (90, 80, 70), (35, 35, 40)])
        self.canvas.layer(screen, tint, "phone")

    def phone_over(self, centre_mm: tuple[float, float], turn_deg: float) -> None:
        """A phone lying over a whole card (its middle at ``centre_mm``): all four of its
        markers hidden, the phone's long side at ``turn_deg`` from the land's columns
        (it reaches over the markers of the cards beside it that way).  Shifted and
        turned a little, as a phone put down by hand lies."""
        rng = self.rng
        w, h = rng.uniform(70, 78), rng.uniform(140, 160)
        centre = np.asarray(centre_mm, np.float64) + np.array(
            [rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)]
        )
        c = (float(centre[0]), float(centre[1]))
        angle = turn_deg + rng.uniform(-3.0, 3.0)
        draw = _box(self.canvas, c, (w, h), angle)
        self._lifted(9.0, draw)
        self.canvas.layer(draw, (25, 25, 28), "phone")
        screen = _box(self.canvas, c, (w - 6, h - 16), angle)
        tint = rng.choice([(60, 55, 50), (90, 80, 70), (35, 35, 40)])
        self.canvas.layer(screen, tint, "phone")

    def _hand(self, at: Matrix, u: Matrix, reach: float) -> None:
        along = np.array([-u[1], u[0]])
        radius = self.rng.uniform(35, 45)
        palm = at + u * (radius * self.rng.uniform(0.2, 1.0) + reach)
        colour = self.rng.choice([(120, 150, 200), (90, 120, 170), (140, 170, 220)])
        shapes = [_disc(self.canvas, (float(palm[0]), float(palm[1])), radius)]
        for k in range(4):
            base = palm + along * (k - 1.5) * 18 - u * radius * 0.6
            tip = base - u * self.rng.uniform(45, 65)
            shapes.append(_capsule(self.canvas, (base[0], base[1]), (tip[0], tip[1]), 8.0))

        def whole(layer: Image, value: tuple[int, ...], origin: tuple[int, int]) -> None:
            for shape in shapes:
                shape(layer, value, origin)

        self._lifted(30.0, whole)
        self.canvas.layer(whole, colour, "hand", soft_mm=self.rng.uniform(0.5, 2.0))

    def _glare(self, at: Matrix, u: Matrix, reach: float) -> None:
        sigma = self.rng.uniform(3.0, 9.0)
        centre = at + u * self.rng.uniform(0, self.marker_mm * 0.6)
        self.canvas.glare((float(centre[0]), float(centre[1])), sigma, self.rng.uniform(0.75, 1.0))


def gingham(rng: random.Random, size: tuple[int, int], period_px: float) -> Image:
    """A checked cloth: white and a colour woven across, the crossings the full colour."""
    width, height = size
    colour = np.array(rng.choice([(60, 60, 190), (150, 90, 40), (60, 130, 60), (40, 40, 40)]))
    angle = rng.uniform(0, math.pi / 2)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    a = np.floor((xs * math.cos(angle) + ys * math.sin(angle)) / period_px) % 2
    b = np.floor((-xs * math.sin(angle) + ys * math.cos(angle)) / period_px) % 2
    share = ((a + b) / 2)[..., None]
    white = np.array([235.0, 235.0, 235.0])
    cloth = white * (1 - share) + colour * share
    return np.asarray(np.clip(cloth, 0, 255), np.uint8)
