"""The pixels of a round (:mod:`.scene`): NumPy and OpenCV over small regions, never a
Python loop over pixels, so a 720p frame takes milliseconds.

Order of a frame: the table (textured once a round, a phone or a cup on it), each card's
shadow and the card (sliding and flipping with motion blur, then at rest), each hand's
shadow and the hand (arm, sleeve, palm, fingers), then the camera: the light's gain
(mains flicker beating under the frame rate), shake (a sub-pixel to 2 px shift) and the
sensor's noise.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from companion.camera.markers import marker_image
from companion.camera.synth.scene import (
    CARD_MM,
    MARKER_EDGE_MM,
    MARKER_MM,
    STICKER_AT_MM,
    STICKER_MM,
    CardShow,
    Glare,
    HandPass,
)

Image = Any  # a NumPy uint8 array
EXPOSURE_NS = 12_000_000  # what moves during the exposure smears over this long
ART = (
    (60, 70, 200),
    (40, 150, 60),
    (170, 90, 40),
    (30, 170, 220),
    (150, 60, 150),
    (90, 90, 90),
    (30, 110, 200),
    (140, 140, 40),
)
BACK = (120, 50, 30)  # every card's back, a dark blue


def low_noise(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> Any:
    """Smooth random field in 0..1 (a ``cells``-wide grid of random values, upsampled)."""
    h, w = shape
    small = rng.random((max(2, h * cells // w), cells)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def table_image(seed: int, size: tuple[int, int], kind: str) -> Image:
    """A wooden table (grain along x, planks) or a felt cloth, evenly lit but not flat."""
    rng = np.random.default_rng(seed)
    w, h = size
    light = 0.85 + 0.25 * low_noise(rng, (h, w), 4)  # uneven light over the table
    if kind == "cloth":
        base = np.array(rng.choice([(60, 110, 40), (110, 60, 30), (50, 50, 120)]), np.float32)
        fine = rng.normal(0, 0.05, (h, w)).astype(np.float32)
        weave = 0.03 * np.sin(np.arange(w, dtype=np.float32) * 2.2)[None, :]
        shade = light * (1 + fine + weave)
    else:
        base = np.array(rng.choice([(60, 110, 160), (40, 80, 130), (90, 140, 190)]), np.float32)
        warp = low_noise(rng, (h, w), 6) * 25
        ys = np.arange(h, dtype=np.float32)[:, None]
        grain = 0.5 + 0.5 * np.sin(ys * 0.35 + warp)
        planks = ((ys // (h / rng.integers(3, 6))) % 2) * 0.06
        shade = light * (0.86 + 0.12 * grain + planks - 0.03)
        shade = shade + rng.normal(0, 0.02, (h, w)).astype(np.float32)
    out = shade[..., None] * base[None, None, :]
    return np.clip(out, 0, 255).astype(np.uint8)


def put_prop(image: Image, kind: str, rng: random.Random) -> None:
    """A phone (dark glass, a lit screen) or a cup (a rim and coffee) in the middle of
    the table, between the seats' zones, with a soft shadow."""
    h, w = image.shape[:2]
    cx, cy = rng.uniform(0.40, 0.60) * w, rng.uniform(0.45, 0.55) * h
    ppm = w / 1000.0
    if kind == "phone":
        angle = rng.uniform(0, 180)
        box = ((cx, cy), (72 * ppm, 150 * ppm), angle)
        pts = cv2.boxPoints(box).astype(np.int32)
        _shadow(image, pts, 6)
        cv2.fillConvexPoly(image, pts, (25, 25, 25), cv2.LINE_AA)
        inner = cv2.boxPoints(((cx, cy), (64 * ppm, 136 * ppm), angle)).astype(np.int32)
        lit = rng.random() < 0.5
        cv2.fillConvexPoly(image, inner, (200, 170, 120) if lit else (45, 40, 40), cv2.LINE_AA)
    elif kind == "cup":
        r = int(42 * ppm)
        centre = (int(cx), int(cy))
        _shadow(image, cv2.ellipse2Poly(centre, (r, r), 0, 0, 360, 10), 10)
        cv2.circle(image, centre, r, (235, 235, 240), -1, cv2.LINE_AA)
        cv2.circle(image, centre, int(r * 0.82), (30, 50, 80), -1, cv2.LINE_AA)
        cv2.ellipse(image, centre, (int(r * 0.5), int(r * 0.2)), 30, 0, 360, (80, 110, 140), -1)


def _shadow(image: Image, pts: Any, offset: int) -> None:
    x, y, bw, bh = cv2.boundingRect(pts)
    pad = 3 * offset + 8
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(image.shape[1], x + bw + pad), min(image.shape[0], y + bh + pad)
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillPoly(mask, [pts - np.array([x0 - offset, y0 - offset], np.int32)], (1.0,))
    mask = cv2.GaussianBlur(mask, (0, 0), offset)
    roi = image[y0:y1, x0:x1]
    roi[:] = (roi * (1 - 0.45 * mask[..., None])).astype(np.uint8)


@lru_cache(maxsize=256)
def _marker(marker: int, side: int) -> Image:
    big = marker_image(marker, 7 * 12)
    return cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA)


def card_geometry(ppm: float) -> tuple[tuple[int, int], int, tuple[int, int]]:
    """The card's size in pixels, the marker's side and its top-left in the card."""
    cw, ch = round(CARD_MM[0] * ppm), round(CARD_MM[1] * ppm)
    side = round(MARKER_MM * ppm)
    border = MARKER_EDGE_MM
    return (
        (cw, ch),
        side,
        (
            round((STICKER_AT_MM[0] + border) * ppm),
            round((STICKER_AT_MM[1] + border) * ppm),
        ),
    )


def card_face(card: CardShow, ppm: float) -> tuple[Image, float]:
    """The face (sleeve glare included) and the glare's peak over the marker."""
    (cw, ch), side, (mx, my) = card_geometry(ppm)
    face = np.full((ch, cw, 3), 235, np.uint8)
    colour = ART[card.art % len(ART)]
    pad = max(2, round(3 * ppm))
    cv2.rectangle(face, (pad, pad), (cw - pad - 1, ch - pad - 1), colour, -1)
    cv2.ellipse(
        face,
        (cw // 2, ch * 3 // 5),
        (cw // 3, ch // 5),
        (card.art * 23) % 180,
        0,
        360,
        tuple(255 - c // 2 for c in colour),
        -1,
        cv2.LINE_AA,
    )
    s0 = round(STICKER_AT_MM[0] * ppm), round(STICKER_AT_MM[1] * ppm)
    s1 = (
        round((STICKER_AT_MM[0] + STICKER_MM[0]) * ppm),
        round((STICKER_AT_MM[1] + STICKER_MM[1]) * ppm),
    )
    cv2.rectangle(face, s0, (s1[0] - 1, s1[1] - 1), (245, 245, 245), -1)
    face[my : my + side, mx : mx + side] = _marker(card.marker, side)[..., None]
    for line in (1, 2):  # the label's two lines of small print, under the marker
        y = my + side + round(line * 2.6 * ppm)
        cv2.line(face, (mx + 1, y), (mx + side * (3 + line) // 6, y), (110, 110, 110), 1)
    peak = 0.0
    if card.glare is not None:
        layer = glare_layer(card.glare, (cw, ch), ppm)
        peak = float(layer[my : my + side, mx : mx + side].max())
        face = np.clip(face.astype(np.float32) + layer[..., None], 0, 255).astype(np.uint8)
    return face, peak


def glare_layer(glare: Glare, size: tuple[int, int], ppm: float) -> Any:
    """The light a sleeve throws back: a soft elongated patch, added to the face."""
    cw, ch = size
    ys, xs = np.mgrid[0:ch, 0:cw].astype(np.float32)
    gx, gy = glare.centre_mm[0] * ppm, glare.centre_mm[1] * ppm
    rx, ry = glare.radii_mm[0] * ppm, glare.radii_mm[1] * ppm
    d = ((xs - gx) / rx) ** 2 + ((ys - gy) / ry) ** 2
    return (glare.peak * np.exp(-d)).astype(np.float32)


@lru_cache(maxsize=4)
def card_back(size: tuple[int, int]) -> Image:
    cw, ch = size
    back = np.full((ch, cw, 3), BACK, np.uint8)
    for k in range(-ch, cw, 9):
        cv2.line(back, (k, 0), (k + ch, ch), (150, 80, 50), 2)
    cv2.rectangle(back, (2, 2), (cw - 3, ch - 3), (230, 230, 230), 2)
    return back


def card_matrix(card: CardShow, t_ns: int, size: tuple[int, int]) -> tuple[Any, float, Any]:
    """The card's affine map (card pixels -> frame) at ``t_ns``, how far through the flip
    it is (0..1), and its velocity in pixels per ns (for motion blur)."""
    cw, ch = size
    s = min(1.0, max(0.0, (t_ns - card.flip_start_ns) / card.flip_ns))
    e = s * (2 - s)  # slides in, slowing down
    x = card.start[0] + (card.centre[0] - card.start[0]) * e
    y = card.start[1] + (card.centre[1] - card.start[1]) * e
    squeeze = max(0.04, abs(math.cos(math.pi * s)))  # turning over along its long side
    a = math.radians(card.angle)
    ca, sa = math.cos(a), math.sin(a)
    matrix = np.array(
        [
            [ca * squeeze, -sa, 0.0],
            [sa * squeeze, ca, 0.0],
        ]
    )
    matrix[:, 2] = np.array([x, y]) - matrix[:, :2] @ np.array([(cw - 1) / 2, (ch - 1) / 2])
    speed = (2 - 2 * s) / card.flip_ns if s < 1 else 0.0
    velocity = np.array([card.centre[0] - card.start[0], card.centre[1] - card.start[1]]) * speed
    return matrix, s, velocity


def composite(
    frame: Image, sprite: Image, matrix: Any, blur: Any | None, shadow: float = 0.35
) -> None:
    """``sprite`` mapped by ``matrix`` onto ``frame``: antialiased edges, a soft shadow
    below and right, and ``blur`` (a motion kernel) over both when it moves."""
    h, w = sprite.shape[:2]
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float64) - [0.5, 0.5, 0]
    pts = corners @ matrix.T
    pad = 14 + (0 if blur is None else max(blur.shape))
    x0 = max(0, int(pts[:, 0].min()) - pad)
    y0 = max(0, int(pts[:, 1].min()) - pad)
    x1 = min(frame.shape[1], int(pts[:, 0].max()) + pad)
    y1 = min(frame.shape[0], int(pts[:, 1].max()) + pad)
    if x1 <= x0 or y1 <= y0:
        return
    local = matrix.copy()
    local[:, 2] -= (x0, y0)
    dsize = (x1 - x0, y1 - y0)
    colour = cv2.warpAffine(sprite, local, dsize, flags=cv2.INTER_LINEAR).astype(np.float32)
    alpha = cv2.warpAffine(np.ones((h, w), np.float32), local, dsize, flags=cv2.INTER_LINEAR)
    if blur is not None:
        colour = cv2.filter2D(colour, -1, blur)
        alpha = cv2.filter2D(alpha, -1, blur)
    roi = frame[y0:y1, x0:x1].astype(np.float32)
    if shadow:
        below = cv2.GaussianBlur(_shifted(alpha, 4, 3), (0, 0), 3)
        roi *= 1 - shadow * below[..., None]
    a = alpha[..., None]
    frame[y0:y1, x0:x1] = (roi * (1 - a) + colour * a).astype(np.uint8)


def line_kernel(dx: float, dy: float) -> Any | None:
    """A motion blur kernel along (dx, dy) pixels, or None for under a pixel."""
    length = math.hypot(dx, dy)
    if length < 1.0:
        return None
    k = int(math.ceil(length)) | 1
    kernel = np.zeros((k, k), np.float32)
    c = k // 2
    cv2.line(
        kernel,
        (round(c - dx / 2), round(c - dy / 2)),
        (round(c + dx / 2), round(c + dy / 2)),
        (1.0,),
        1,
        cv2.LINE_AA,
    )
    return kernel / kernel.sum()


def hand_shapes(hand: HandPass, palm: tuple[float, float]) -> tuple[list[Any], list[Any]]:
    """The hand's polygons at palm centre ``palm``: (skin, sleeve) in frame pixels."""
    ex, ey = hand.enter
    dx, dy = palm[0] - ex, palm[1] - ey
    n = math.hypot(dx, dy) or 1.0
    d = (dx / n, dy / n)
    nx, ny = -d[1], d[0]
    p = hand.palm_px
    deg = math.degrees(math.atan2(d[1], d[0]))
    far = (ex - d[0] * p, ey - d[1] * p)  # beyond the frame's edge
    wrist = (palm[0] - d[0] * p * 0.45, palm[1] - d[1] * p * 0.45)
    arm_w = p * 0.36

    def quad(a: tuple[float, float], b: tuple[float, float], half: float) -> Any:
        return np.array(
            [
                (a[0] + nx * half, a[1] + ny * half),
                (b[0] + nx * half, b[1] + ny * half),
                (b[0] - nx * half, b[1] - ny * half),
                (a[0] - nx * half, a[1] - ny * half),
            ],
            np.int32,
        )

    def oval(c: tuple[float, float], along: float, across: float, turn: float = 0) -> Any:
        return cv2.ellipse2Poly(
            (round(c[0]), round(c[1])), (round(along), round(across)), round(deg + turn), 0, 360, 12
        )

    skin = [quad(far, wrist, arm_w), oval(palm, p * 0.55, p * 0.5)]
    for k, off in enumerate((-0.33, -0.11, 0.11, 0.33)):
        length = p * (0.42 if k in (1, 2) else 0.36)
        base = (palm[0] + d[0] * p * 0.45 + nx * p * off, palm[1] + d[1] * p * 0.45 + ny * p * off)
        tip = (base[0] + d[0] * length * 0.5, base[1] + d[1] * length * 0.5)
        skin.append(oval(tip, length * 0.55, p * 0.1))
    side = 1 if hand.seat < "d" else -1  # a left or a right hand
    thumb = (palm[0] + nx * p * 0.55 * side, palm[1] + ny * p * 0.55 * side)
    skin.append(oval(thumb, p * 0.3, p * 0.11, 40 * side))
    cuff = (wrist[0] - d[0] * p * 0.9, wrist[1] - d[1] * p * 0.9)
    sleeve = [quad(far, cuff, arm_w * 1.25)]
    return skin, sleeve


def paint_hand(
    frame: Image, hand: HandPass, palm: tuple[float, float], motion: tuple[float, float]
) -> tuple[Any, tuple[int, int]]:
    """The hand drawn with its shadow; returns its coverage (0..1 over a region) and the
    region's top-left, for the truth. Drawn at half size and blended in at full size: a
    hand a few centimetres under the lens is soft-edged anyway, and it is most of a
    frame's drawing."""
    skin, sleeve = hand_shapes(hand, palm)
    every = np.concatenate([*skin, *sleeve])
    fh, fw = frame.shape[:2]
    pad = 30 + int(abs(motion[0]) + abs(motion[1]))
    x0 = max(0, (int(every[:, 0].min()) - pad) & ~1)
    y0 = max(0, (int(every[:, 1].min()) - pad) & ~1)
    x1 = min(fw, int(every[:, 0].max()) + pad)
    y1 = min(fh, int(every[:, 1].max()) + pad)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return np.zeros((0, 0), np.float32), (0, 0)
    dsize = (x1 - x0, y1 - y0)
    half = (dsize[0] + 1) // 2, (dsize[1] + 1) // 2
    origin = np.array([x0, y0], np.float64)
    mask = np.zeros((half[1], half[0]), np.uint8)
    cloth = np.zeros_like(mask)
    for shape in skin + sleeve:  # one at a time: overlapping polygons in one call cancel
        cv2.fillPoly(mask, [_half(shape, origin)], (255,), cv2.LINE_AA, shift=2)
    for shape in sleeve:
        cv2.fillPoly(cloth, [_half(shape, origin)], (255,), cv2.LINE_AA, shift=2)
    kernel = line_kernel(motion[0] / 2, motion[1] / 2)  # smeared along its way, at half size
    if kernel is not None:
        mask, cloth = cv2.filter2D(mask, -1, kernel), cv2.filter2D(cloth, -1, kernel)
    alpha = mask.astype(np.float32) * (1 / 255)
    c = cloth.astype(np.float32)[..., None] * (1 / 255)
    rounded = cv2.GaussianBlur(alpha, (0, 0), hand.palm_px * 0.06)
    shade = cv2.GaussianBlur(_shifted(alpha, 7, 5), (0, 0), 5)
    skin_tone = np.array(hand.skin, np.float32)
    sleeve_tone = np.array(hand.sleeve, np.float32)
    a = alpha[..., None]
    paint = (skin_tone + (sleeve_tone - skin_tone) * c) * (0.7 + 0.3 * rounded)[..., None] * a
    keep = (1 - 0.4 * shade)[..., None] * (1 - a)
    paint = cv2.resize(paint, dsize, interpolation=cv2.INTER_LINEAR)
    keep = cv2.resize(keep, dsize, interpolation=cv2.INTER_LINEAR)
    roi = frame[y0:y1, x0:x1]
    frame[y0:y1, x0:x1] = cv2.convertScaleAbs(roi * keep[..., None] + paint)
    return cv2.resize(alpha, dsize, interpolation=cv2.INTER_LINEAR), (x0, y0)


def _shifted(a: Any, dy: int, dx: int) -> Any:
    """``a`` moved down and right (what moves out is dropped, what comes in is 0)."""
    out = np.zeros_like(a)
    out[dy:, dx:] = a[: a.shape[0] - dy, : a.shape[1] - dx]
    return out


def _half(shape: Any, origin: Any) -> Any:
    """A polygon's points at half size from ``origin``, in quarter pixels (fillPoly's shift)."""
    return np.round((shape - origin) * 2).astype(np.int32)


@lru_cache(maxsize=2)
def noise_bank(size: tuple[int, int], sigma: float) -> Any:
    """Sensor noise a little larger than a frame: each frame takes a shifted window."""
    w, h = size
    rng = np.random.default_rng(12345)
    return np.round(rng.normal(0, sigma, (h + 64, w + 64, 3))).astype(np.int16)


def camera(frame: Image, gain: float, noise: Any | None) -> Image:
    """What the sensor makes of the scene: the light's gain and the noise."""
    if gain != 1.0:
        frame = cv2.convertScaleAbs(frame, alpha=gain)
    if noise is not None:
        frame = cv2.add(frame, noise, dtype=cv2.CV_8U)
    return frame
