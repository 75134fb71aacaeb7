"""Synthetic photos of Chomp lands with their ground truth, for the tests and the benchmark.

A random catalog of made-up cards, a random land laid card by card under D6 (checked by
:func:`~companion.games.dino.catalog.replay`), drawn from above with a sticker on every
quarter (stuck a little off centre and askew, as by hand), then photographed: a random
camera (tilt, any turn, scale), tokens and fingers lying across some markers, uneven
light, blur, noise and JPEG.  The truth says, cell by cell, which card and quarter is on
top, how it is turned, and how much of its marker is covered.

Everything random comes from the ``random.Random`` given, so a seed is a photo.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.errors import InputError
from companion.games.dino import Cell, Kind, Land, Size
from companion.games.dino.catalog import CARD_QUARTERS, ROTATIONS, Card, Catalog, Placement, replay
from companion.games.dino.formats import catalog_from_dict
from companion.scan.land import quarter_name
from companion.scan.markers import MarkerBook, marker_image
from companion.scan.synth.props import CLASSIC, KINDS, REALISTIC, Canvas, Props, gingham

Image = npt.NDArray[np.uint8]
Matrix = npt.NDArray[np.floating[Any]]

QUARTER_MM = 44.0  # a Chomp card is about 88 mm square
MARKER_MM = 12.0
PAD_MM = 2.0
LABEL_MM = 3.0

# --------------------------------------------------------------------------------------
# Random catalogs and lands
# --------------------------------------------------------------------------------------

_SINGLES = ("sh", "sh2", "sh3", "mh", "sc", "mc", "P", "T", "M", "N", "e", "_", "P", "mh", "sc")
_LARGE = ("lh", "lc")
_WIDE = ("P", "T", "M", "_")


def _card_text(rng: random.Random) -> list[str]:
    """One card's land side in the catalog's grid lines (docs/dino-catalog.md)."""
    tokens = [[rng.choice(_SINGLES) for _ in range(2)] for _ in range(2)]
    across = [" ", " "]  # between the two cells of each row
    down = [" ", " "]  # between the rows, under each column
    roll = rng.random()
    if roll < 0.35:  # a large dino over half the card
        dino = rng.choice(_LARGE)
        if rng.random() < 0.5:
            row = rng.randrange(2)
            tokens[row] = [dino, dino]
            across[row] = "="
        else:
            col = rng.randrange(2)
            tokens[0][col] = tokens[1][col] = dino
            down[col] = ":"
    elif roll < 0.5:  # a wide feature
        kind = rng.choice(_WIDE)
        row = rng.randrange(2)
        tokens[row] = [kind, kind]
        across[row] = "="
    for row in range(2):
        if across[row] == " " and rng.random() < 0.15:
            across[row] = "|"
    for col in range(2):
        if down[col] == " " and rng.random() < 0.15:
            down[col] = "-"
    left = [rng.random() < 0.06 for _ in range(2)]
    right = [rng.random() < 0.06 for _ in range(2)]

    def row_line(r: int) -> str:
        a, b = tokens[r]
        return f"{'|' if left[r] else ' '} {a:<3} {across[r]} {b:<3}{' |' if right[r] else ''}"

    def edge(marks: Sequence[str]) -> str | None:
        if all(m == " " for m in marks):
            return None
        return f"  {marks[0]}     {marks[1]}".rstrip()

    lines: list[str] = []
    top = edge(["-" if rng.random() < 0.05 else " " for _ in range(2)])
    if top:
        lines.append(top)
    lines.append(row_line(0))
    middle = edge(down)
    if middle:
        lines.append(middle)
    lines.append(row_line(1))
    bottom = edge(["-" if rng.random() < 0.05 else " " for _ in range(2)])
    if bottom:
        lines.append(bottom)
    return lines


def random_catalog_dict(rng: random.Random, cards: int = 36) -> dict[str, Any]:
    """The JSON of ``cards`` made-up cards (names ``c01``...), valid by the catalog's rules."""
    raw = {f"c{i + 1:02d}": {"land": _card_text(rng)} for i in range(cards)}
    return {"note": "synthetic cards for tests", "cards": raw}


def random_catalog(rng: random.Random, cards: int = 36) -> Catalog:
    return catalog_from_dict(random_catalog_dict(rng, cards))


def footprint(pl: Placement) -> list[Cell]:
    """The four cells a placed card covers, in quarter order A1, B1, A2, B2."""
    return [pl.at(q) for q in CARD_QUARTERS]


def random_placements(
    rng: random.Random, catalog: Catalog, cards: int, tries: int = 40
) -> list[Placement]:
    """A land of ``cards`` cards laid one by one, each placement allowed by D6.

    Positions that add new ground are preferred (as lands spread on a table), but every
    card may overlap one to four quarters of the land.
    """
    ids = rng.sample(list(catalog.cards), min(cards, len(catalog.cards)))
    placements = [Placement(ids[0], 0, 0, rng.choice(ROTATIONS))]
    weight_of_new = {0: 0.2, 1: 1.0, 2: 2.0, 3: 2.0, 4: 2.5}
    for card in ids[1:]:
        land = {c for pl in placements for c in footprint(pl)}
        xs, ys = [c[0] for c in land], [c[1] for c in land]
        options, weights = [], []
        for x in range(min(xs) - 2, max(xs) + 2):
            for y in range(min(ys) - 2, max(ys) + 2):
                cover = {(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)}
                touch = any((a + dx, b + dy) in land for a, b in cover for dx, dy in _STEPS)
                if cover & land or touch:
                    options.append((x, y))
                    weights.append(weight_of_new[len(cover - land)])
        for _ in range(tries):
            x, y = rng.choices(options, weights)[0]
            pl = Placement(card, x, y, rng.choice(ROTATIONS))
            try:
                replay(catalog, [*placements, pl])
            except InputError:
                continue
            placements.append(pl)
            break
    return placements


_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


@dataclass(frozen=True, slots=True)
class CellTruth:
    card: str
    quarter: int
    rotation: int
    covered: float = 0.0  # fraction of the marker hidden under tokens and fingers
    by: str = ""  # what hides most of it (a kind of props.KINDS)

    @property
    def label(self) -> str:
        return f"{self.card}:{quarter_name(self.quarter)}"


def top_cells(placements: Sequence[Placement]) -> dict[Cell, CellTruth]:
    """Which card and quarter shows on each cell once every card is down."""
    cells: dict[Cell, CellTruth] = {}
    for pl in placements:
        for q, cell in enumerate(footprint(pl)):
            cells[cell] = CellTruth(pl.card, q, pl.rotation)
    return cells


# --------------------------------------------------------------------------------------
# Photographing it
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Conditions:
    """What the random camera and table did to the photo (reported by the benchmark)."""

    tilt_deg: float
    turn_deg: float
    px_per_mm: float  # at the land's centre
    blur_px: float
    noise: float
    light_min: float  # the darkest corner's light, 1 = even
    occluders: int
    jpeg: int
    kinds: tuple[str, ...] = ()  # what was laid over the land


@dataclass(frozen=True, slots=True)
class Photo:
    image: Image  # BGR
    catalog: Catalog
    placements: tuple[Placement, ...]
    land: Land  # the replayed truth
    cells: dict[Cell, CellTruth]  # visible cells, in placement coordinates
    grid_to_image: Matrix  # cell units -> image pixels
    conditions: Conditions


@dataclass(frozen=True, slots=True)
class Style:
    """How hard the photo is; the defaults are the benchmark's."""

    tilt_max: float = 35.0
    fill: tuple[float, float] = (0.55, 0.9)
    blur_max: float = 1.6  # Gaussian sigma at 12 MP; scaled with the width
    noise_max: float = 8.0
    light_min: tuple[float, float] = (0.35, 0.8)
    occluders: tuple[int, ...] = (0, 1, 1, 2, 2, 3)
    jpeg: tuple[int, int] = (72, 95)
    sticker_shift_mm: float = 0.8
    sticker_turn_deg: float = 3.0
    margin_cells: float = 0.0  # bare table framed all round the land, in quarters
    kinds: tuple[str, ...] = CLASSIC  # what may lie over the land (props.KINDS)
    cloths: tuple[str, ...] = ("plain",)  # the tablecloth: plain (streaked) or gingham
    phone_over_card: float = 0.0  # chance of a phone over a whole card inside the land


PHONE_OVER_CARD = 0.2  # in the realistic mix (issue 23)
ENCLOSED = 8  # of the 12 cells round a card, how many of the land's make it "inside"


def interior_cards(placements: Sequence[Placement]) -> list[str]:
    """The cards that show all four quarters and have land on ``ENCLOSED`` or more of the
    12 cells round them, most enclosed first: where a phone hides a card inside the
    land, not at its edge."""
    top = top_cells(placements)
    found: list[tuple[int, str]] = []
    for pl in placements:
        cells = footprint(pl)
        if any(top[c].card != pl.card for c in cells):
            continue
        x0, y0 = min(c[0] for c in cells), min(c[1] for c in cells)
        ring = {(x, y) for x in range(x0 - 1, x0 + 3) for y in range(y0 - 1, y0 + 3)}
        enclosed = len((ring - set(cells)) & set(top))
        if enclosed >= ENCLOSED:
            found.append((-enclosed, pl.card))
    return [card for _, card in sorted(found)]


# The benchmark's realistic mix: objects with height, out-of-focus fingertips, phones,
# hands, soft glare, gingham; bare table framed round the land, as docs/scan.md asks.
REALISTIC_STYLE = Style(
    kinds=REALISTIC,
    cloths=("plain", "plain", "gingham"),
    margin_cells=0.5,
    occluders=(0, 1, 2, 2, 3),
    phone_over_card=PHONE_OVER_CARD,
)


_KIND_COLOURS: dict[Kind, tuple[int, int, int]] = {  # BGR
    Kind.PLANTS: (60, 150, 70),
    Kind.TAR_PIT: (40, 35, 45),
    Kind.MEAT: (60, 60, 180),
    Kind.NEST: (70, 110, 150),
    Kind.EGG: (200, 225, 235),
    Kind.LAND: (120, 170, 200),
}
_DINO_BASE = {"herbivore": (150, 140, 90), "carnivore": (70, 120, 210)}


def _camera(
    rng: random.Random, corners_mm: Matrix, size: tuple[int, int], style: Style
) -> tuple[Matrix, float, float]:
    """A plane-to-image homography: the land filling part of the frame, seen tilted."""
    width, height = size
    tilt = math.radians(rng.uniform(0.0, style.tilt_max))
    yaw = rng.uniform(0.0, 2 * math.pi)
    rz = np.array(
        [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]]
    )
    rx = np.array(
        [[1, 0, 0], [0, math.cos(tilt), -math.sin(tilt)], [0, math.sin(tilt), math.cos(tilt)]]
    )
    rot = rx @ rz
    focal = 0.8 * width
    k = np.array([[focal, 0, 0], [0, focal, 0], [0, 0, 1.0]])
    centre = corners_mm.mean(axis=0)
    t = np.array([0.0, 0.0, 900.0]) - rot @ np.array([centre[0], centre[1], 0.0])
    h = k @ np.column_stack([rot[:, 0], rot[:, 1], t])
    pts = cv2.perspectiveTransform(corners_mm.reshape(-1, 1, 2), h).reshape(-1, 2)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    fill = rng.uniform(*style.fill)
    scale = fill * min(width / (hi[0] - lo[0]), height / (hi[1] - lo[1]))
    spare = np.array([width, height]) - scale * (hi - lo)
    target = spare * np.array([rng.random(), rng.random()])
    move = np.array(
        [[scale, 0, target[0] - scale * lo[0]], [0, scale, target[1] - scale * lo[1]], [0, 0, 1]]
    )
    return move @ h, math.degrees(tilt), math.degrees(yaw)


def _scale_at(h: Matrix, point: Sequence[float]) -> float:
    """Pixels per plane unit near ``point`` (the larger axis of the local Jacobian)."""
    x, y = point
    eps = 1.0
    pts = np.array([[[x, y]], [[x + eps, y]], [[x, y + eps]]], dtype=np.float64)
    p = cv2.perspectiveTransform(pts, h).reshape(3, 2)
    return float(max(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[0])) / eps)


def _table(rng: random.Random, size: tuple[int, int]) -> Image:
    width, height = size
    base = np.array(
        rng.choice([(60, 90, 130), (90, 110, 120), (70, 110, 70), (140, 140, 150), (40, 60, 90)]),
        dtype=np.float32,
    )
    small = np.random.default_rng(rng.getrandbits(32)).normal(0, 1, (height // 16, width // 16, 1))
    streaks = cv2.GaussianBlur(small.astype(np.float32), (0, 0), sigmaX=6, sigmaY=0.7)
    streak_map = np.asarray(
        cv2.resize(streaks, (width, height), interpolation=cv2.INTER_LINEAR), np.float32
    )
    image = base[None, None, :] * (1 + 0.25 * streak_map[..., None])
    return np.asarray(np.clip(image, 0, 255), np.uint8)


def _sticker(marker_id: int, label: str, ppm: float) -> Image:
    """A sticker as the sheet prints it, at ``ppm`` pixels per mm (BGR)."""
    side = max(7, round(MARKER_MM * ppm))
    pad = max(2, round(PAD_MM * ppm))
    label_px = max(3, round(LABEL_MM * ppm))
    sticker = np.full((side + 2 * pad + label_px, side + 2 * pad), 250, np.uint8)
    sticker[pad : pad + side, pad : pad + side] = marker_image(marker_id, side)
    scale = label_px / 40.0
    cv2.putText(
        sticker,
        label,
        (pad, pad + side + int(label_px * 0.85)),
        cv2.FONT_HERSHEY_SIMPLEX,
        scale,
        (0,),
        max(1, round(scale * 2)),
        cv2.LINE_AA,
    )
    return np.asarray(cv2.cvtColor(sticker, cv2.COLOR_GRAY2BGR), np.uint8)


def _draw_card(
    canvas: Canvas,
    rng: random.Random,
    card: Card,
    pl: Placement,
    book: MarkerBook,
    style: Style,
    stickers: dict[int, Image],
    mistakes: Mapping[tuple[str, int], tuple[int, int]],
) -> None:
    q = QUARTER_MM
    x0, y0 = pl.x * q, pl.y * q
    # The card's edge and a soft dark rim, so overlapping cards read as separate.
    canvas.poly([(x0, y0), (x0 + 2 * q, y0), (x0 + 2 * q, y0 + 2 * q), (x0, y0 + 2 * q)], (30,) * 3)
    cells = footprint(pl)
    _draw_art(canvas, rng, card, cells)
    _draw_mountains(canvas, card, pl)
    _draw_stickers(canvas, rng, pl, cells, book, style, stickers, mistakes)


def _draw_art(canvas: Canvas, rng: random.Random, card: Card, cells: list[Cell]) -> None:
    """Each quarter's colour, busy texture and (for a dino) a body."""
    q = QUARTER_MM
    inset = 0.8
    owner = {c: k for k, s in enumerate(card.sections) for c in s.cells}
    for qi, (qx, qy) in enumerate(CARD_QUARTERS):
        section = card.sections[owner[(qx, qy)]]
        if section.dino is not None:
            colour = _DINO_BASE[section.dino.diet.value]
        else:
            colour = _KIND_COLOURS[section.kind]
        cx, cy = cells[qi]
        ax, ay = cx * q, cy * q
        # Inset only on the card's outer edges, so a two-quarter section looks whole.
        left = inset if cx == min(c[0] for c in cells) else 0.0
        top = inset if cy == min(c[1] for c in cells) else 0.0
        right = inset if cx == max(c[0] for c in cells) else 0.0
        bottom = inset if cy == max(c[1] for c in cells) else 0.0
        jitter = [max(0, min(255, c + rng.randint(-12, 12))) for c in colour]
        canvas.poly(
            [
                (ax + left, ay + top),
                (ax + q - right, ay + top),
                (ax + q - right, ay + q - bottom),
                (ax + left, ay + q - bottom),
            ],
            jitter,
        )
        for _ in range(rng.randint(4, 9)):  # texture: the card's art, busy on purpose
            shade = [max(0, min(255, c + rng.randint(-70, 70))) for c in colour]
            px, py = ax + rng.uniform(3, q - 3), ay + rng.uniform(3, q - 3)
            r = rng.uniform(2, 9)
            pts = [
                (px + r * math.cos(t) * rng.uniform(0.6, 1.4), py + r * math.sin(t))
                for t in np.linspace(0, 2 * math.pi, 9)[:-1]
            ]
            canvas.poly(pts, shade)
        if section.dino is not None:  # a body and a head, darker for large ones
            dark = 0.55 if section.dino.size is Size.LARGE else 0.75
            body = [int(c * dark) for c in colour]
            bx, by = ax + q * rng.uniform(0.3, 0.7), ay + q * rng.uniform(0.25, 0.75)
            cv2.ellipse(
                canvas.image,
                canvas.px(bx, by),
                (int(q * 0.3 * canvas.ppm), int(q * 0.18 * canvas.ppm)),
                rng.uniform(0, 180),
                0,
                360,
                tuple(body),
                -1,
                cv2.LINE_AA,
            )


def _draw_mountains(canvas: Canvas, card: Card, pl: Placement) -> None:
    """A jagged brown ridge along each mountain edge of the card."""
    q = QUARTER_MM
    for a, b in card.mountains:  # a jagged brown ridge along the edge
        ca, cb = pl.at(a), pl.at(b)
        if ca[0] != cb[0]:
            ex = max(ca[0], cb[0]) * q
            ends = ((ex, min(ca[1], cb[1]) * q), (ex, (min(ca[1], cb[1]) + 1) * q))
        else:
            ey = max(ca[1], cb[1]) * q
            ends = ((min(ca[0], cb[0]) * q, ey), ((min(ca[0], cb[0]) + 1) * q, ey))
        steps = 8
        pts = []
        for s in range(steps + 1):
            t = s / steps
            mx = ends[0][0] + t * (ends[1][0] - ends[0][0])
            my = ends[0][1] + t * (ends[1][1] - ends[0][1])
            off = 2.5 if s % 2 else -2.5
            pts.append(
                canvas.px(mx + (off if ca[0] != cb[0] else 0), my + (off if ca[1] != cb[1] else 0))
            )
        cv2.polylines(
            canvas.image,
            [np.array(pts, np.int32)],
            False,
            (40, 70, 110),
            max(2, int(1.8 * canvas.ppm)),
            cv2.LINE_AA,
        )


def _draw_stickers(
    canvas: Canvas,
    rng: random.Random,
    pl: Placement,
    cells: list[Cell],
    book: MarkerBook,
    style: Style,
    stickers: dict[int, Image],
    mistakes: Mapping[tuple[str, int], tuple[int, int]],
) -> None:
    """One marker sticker per quarter, stuck a little off and turned (or a wrong one)."""
    q = QUARTER_MM
    for qi in range(len(CARD_QUARTERS)):
        marker, wrong_turn = mistakes.get((pl.card, qi), (book.marker_id(pl.card, qi), 0))
        if marker not in stickers:
            stickers[marker] = _sticker(marker, book.label(marker).replace(":", " "), canvas.ppm)
        cx, cy = cells[qi]
        shift = style.sticker_shift_mm
        centre = (
            (cx + 0.5) * q + rng.uniform(-shift, shift),
            (cy + 0.5) * q + rng.uniform(-shift, shift),
        )
        # The sticker's marker sits above its label: centre the marker on the quarter.
        patch = stickers[marker]
        lift = LABEL_MM / 2
        turn_by = rng.uniform(-style.sticker_turn_deg, style.sticker_turn_deg)
        angle = pl.rotation + wrong_turn + turn_by
        rad = math.radians(angle)
        centre = (centre[0] - lift * math.sin(rad), centre[1] + lift * math.cos(rad))
        canvas.paste(patch, centre, angle)


def _occluders(
    canvas: Canvas,
    rng: random.Random,
    cells: dict[Cell, CellTruth],
    count: int,
    kinds: tuple[str, ...] = CLASSIC,
) -> list[str]:
    """Tokens, fingers and pens (and with ``kinds``, dice, fingertips, phones, hands and
    glare: :class:`~companion.scan.synth.props.Props`), most of them lying partly over a marker."""
    q = QUARTER_MM
    spots = list(cells)
    props: Props | None = None
    laid: list[str] = []
    for _ in range(count):
        target = rng.choice(spots)
        mx, my = (target[0] + 0.5) * q, (target[1] + 0.5) * q
        if kinds != CLASSIC:
            what = rng.choice(kinds)
            if what not in CLASSIC:
                props = props or Props(canvas, rng, MARKER_MM)
                props.place(what, (mx, my))
                laid.append(what)
                continue
        direction = rng.uniform(0, 2 * math.pi)
        ux, uy = math.cos(direction), math.sin(direction)
        if kinds == CLASSIC:
            what = rng.choice(kinds)
        laid.append(what)
        # The edge stops between the marker's edge and its middle: up to half of it hidden.
        reach = rng.uniform(0.0, 0.5) * MARKER_MM  # from the centre, on the shape's side
        if what == "token":
            r = rng.uniform(8.0, 13.0)
            cx, cy = mx + ux * (r + reach), my + uy * (r + reach)
            colour = rng.choice([(200, 220, 235), (60, 60, 60), (40, 40, 170), (60, 140, 60)])
            cv2.circle(
                canvas.image, canvas.px(cx, cy), int(r * canvas.ppm), colour, -1, cv2.LINE_AA
            )
            cv2.circle(canvas.hidden, canvas.px(cx, cy), int(r * canvas.ppm), (255,), -1)
            cv2.circle(canvas.kind, canvas.px(cx, cy), int(r * canvas.ppm), (1,), -1)
            cv2.circle(canvas.mask, canvas.px(cx, cy), int(r * canvas.ppm), (255,), -1)
            continue
        half = rng.uniform(8.0, 10.0) if what == "finger" else rng.uniform(3.5, 5.0)
        length = rng.uniform(60, 120)
        # A capsule whose side edge crosses the marker; it runs off across the table.
        along = direction + math.pi / 2
        ax, ay = math.cos(along), math.sin(along)
        cx, cy = mx + ux * (half + reach), my + uy * (half + reach)
        start = rng.uniform(-0.8, -0.2) * length
        p0 = (cx + ax * start, cy + ay * start)
        p1 = (cx + ax * (start + length), cy + ay * (start + length))
        colour = (
            rng.choice([(120, 150, 200), (90, 120, 170), (140, 170, 220)])
            if what == "finger"
            else rng.choice([(30, 30, 30), (180, 60, 40), (230, 230, 230)])
        )
        width = int(2 * half * canvas.ppm)
        full = (255,)
        for layer, value in ((canvas.image, colour), (canvas.hidden, full), (canvas.mask, full)):
            cv2.line(layer, canvas.px(*p0), canvas.px(*p1), value, width, cv2.LINE_AA)
            cv2.circle(layer, canvas.px(*p1), width // 2, value, -1, cv2.LINE_AA)
        mark = (1 + KINDS.index(what),)  # a label: no anti-aliasing
        cv2.line(canvas.kind, canvas.px(*p0), canvas.px(*p1), mark, width)
        cv2.circle(canvas.kind, canvas.px(*p1), width // 2, mark, -1)
    return laid


def _phones_over(
    canvas: Canvas,
    props: Props,
    placements: Sequence[Placement],
    over: Sequence[tuple[str, float]],
) -> list[str]:
    """A phone over the whole of each card named (card, turn in degrees)."""
    q = QUARTER_MM
    at = {pl.card: footprint(pl) for pl in placements}
    for card, turn in over:
        cells = at[card]
        middle = (
            (min(c[0] for c in cells) + 1) * q,
            (min(c[1] for c in cells) + 1) * q,
        )
        props.phone_over(middle, turn)
    return ["phone"] * len(over)


def _coverage(canvas: Canvas, cells: dict[Cell, CellTruth]) -> dict[Cell, CellTruth]:
    q = QUARTER_MM
    out = {}
    half = MARKER_MM / 2
    for cell, truth in cells.items():
        x0, y0 = canvas.px((cell[0] + 0.5) * q - half, (cell[1] + 0.5) * q - half)
        x1, y1 = canvas.px((cell[0] + 0.5) * q + half, (cell[1] + 0.5) * q + half)
        region = canvas.hidden[max(0, y0) : y1, max(0, x0) : x1]
        covered = float((region > 127).mean()) if region.size else 0.0
        marks = canvas.kind[max(0, y0) : y1, max(0, x0) : x1]
        marks = marks[marks > 0]
        by = KINDS[int(np.bincount(marks).argmax()) - 1] if covered > 0 and marks.size else ""
        out[cell] = CellTruth(truth.card, truth.quarter, truth.rotation, round(covered, 3), by)
    return out


def _light(rng: random.Random, size: tuple[int, int], darkest: float) -> npt.NDArray[np.float32]:
    """A smooth gain field: a gradient, a vignette and sometimes a soft shadow."""
    width, height = size
    sw, sh = 64, 48
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xs /= sw - 1
    ys /= sh - 1
    angle = rng.uniform(0, 2 * math.pi)
    ramp = math.cos(angle) * (xs - 0.5) + math.sin(angle) * (ys - 0.5)
    gain = ramp - ramp.min()
    gain /= max(float(gain.max()), 1e-6)
    vignette = ((xs - 0.5) ** 2 + (ys - 0.5) ** 2) * 1.2
    gain = 1.0 - (1.0 - darkest) * np.clip(0.7 * gain + 0.5 * vignette, 0, 1)
    if rng.random() < 0.4:
        sx, sy = rng.random(), rng.random()
        blob = np.exp(-(((xs - sx) / 0.25) ** 2 + ((ys - sy) / 0.15) ** 2))
        gain *= 1.0 - 0.35 * blob
    gain *= rng.uniform(0.95, 1.12)
    return np.asarray(cv2.resize(gain, (width, height), interpolation=cv2.INTER_CUBIC), np.float32)


def _shoot(
    rng: random.Random, canvas: Canvas, warp: Matrix, size: tuple[int, int], style: Style
) -> tuple[Image, tuple[float, float, float, int]]:
    """The canvas through the camera onto the table: light, blur, grain and JPEG; the
    photo, and the darkest corner, blur, noise and JPEG quality it was taken with."""
    width, _ = size
    cloth = style.cloths[0] if len(style.cloths) == 1 else rng.choice(style.cloths)
    if cloth == "gingham":
        # Checks 6 to 14 mm wide, at the land's scale.
        image = gingham(rng, size, rng.uniform(6.0, 14.0) * _scale_at(warp, (0, 0)) * canvas.ppm)
    else:
        image = _table(rng, size)
    drawn = cv2.warpPerspective(canvas.image, warp, size, flags=cv2.INTER_AREA)
    alpha = cv2.warpPerspective(canvas.mask, warp, size, flags=cv2.INTER_LINEAR)
    a = alpha.astype(np.float32)[..., None] / 255.0
    shot = drawn.astype(np.float32) * a + image.astype(np.float32) * (1 - a)
    if canvas.shade is not None:  # the objects' shadows, on the land and the table
        shade = cv2.warpPerspective(
            canvas.shade, warp, size, flags=cv2.INTER_LINEAR, borderValue=(1.0,)
        )
        shot *= np.asarray(shade, np.float32)[..., None]
    darkest = rng.uniform(*style.light_min)
    shot *= _light(rng, size, darkest)[..., None]
    blur = rng.uniform(0.0, style.blur_max) * width / 4000
    if blur > 0.3:
        shot = cv2.GaussianBlur(shot, (0, 0), blur)
    noise = rng.uniform(1.0, style.noise_max)
    # Not cv2.randn: it draws from OpenCV's one global generator, so a seed would not be
    # a photo.
    grain = np.random.default_rng(rng.getrandbits(32)).standard_normal(shot.shape, np.float32)
    shot += noise * grain
    out = np.clip(shot, 0, 255).astype(np.uint8)
    quality = rng.randint(*style.jpeg)
    ok, encoded = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if ok:
        out = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    return out, (darkest, blur, noise, quality)


def _in_frame(
    cells: dict[Cell, CellTruth], grid_to_image: Matrix, size: tuple[int, int]
) -> dict[Cell, CellTruth]:
    """The cells whose centre lies inside the photo."""
    width, height = size
    inside = {}
    for cell, truth in cells.items():
        centre = np.array([[[cell[0] + 0.5, cell[1] + 0.5]]], np.float64)
        u, v = cv2.perspectiveTransform(centre, grid_to_image).reshape(2)
        if 0 <= u < width and 0 <= v < height:
            inside[cell] = truth
    return inside


def render(
    rng: random.Random,
    catalog: Catalog,
    placements: Sequence[Placement],
    size: tuple[int, int] = (4000, 3000),
    style: Style | None = None,
    mistakes: Mapping[tuple[str, int], tuple[int, int]] | None = None,
    phones_over: Sequence[tuple[str, float]] = (),
) -> Photo:
    """Photograph the land the placements build (see the module's docstring).

    ``mistakes`` sticks the wrong sticker on a quarter: (card, quarter) -> (marker id,
    extra clockwise turn in degrees), as a person might; the truth stays the card's.
    ``phones_over`` lays a phone over the whole of each card named, its long side
    turned so many degrees from the land's columns (:meth:`Props.phone_over`).  With
    ``style.phone_over_card``, a phone may lie over the most enclosed card
    (:func:`interior_cards`) at random; that draw has a random stream of its own, seeded
    by the land, so a photo without such a phone is the same photo as before.
    """
    style = style or Style()
    width, height = size
    book = MarkerBook.of(catalog)
    truth_land = replay(catalog, placements).land
    cells = top_cells(placements)
    q = QUARTER_MM
    xs = [c[0] for pl in placements for c in footprint(pl)]
    ys = [c[1] for pl in placements for c in footprint(pl)]
    lo = np.array([min(xs) * q, min(ys) * q])
    hi = np.array([(max(xs) + 1) * q, (max(ys) + 1) * q])
    corners = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    room = style.margin_cells * q
    framed = corners + np.array([[-room, -room], [room, -room], [room, room], [-room, room]])
    plane_to_image, tilt, yaw = _camera(rng, framed, size, style)
    ppm = min(16.0, 1.25 * max(_scale_at(plane_to_image, p) for p in corners))
    margin = 30.0
    canvas = Canvas(lo - margin, hi + margin, ppm)
    stickers: dict[int, Image] = {}
    for pl in placements:
        card = catalog.cards[pl.card]
        _draw_card(canvas, rng, card, pl, book, style, stickers, mistakes or {})
    count = rng.choice(style.occluders)
    laid = _occluders(canvas, rng, cells, count, style.kinds)
    if phones_over:
        laid += _phones_over(canvas, Props(canvas, rng, MARKER_MM), placements, phones_over)
    if style.phone_over_card > 0:
        aside = random.Random(f"phone over {placements} {count}")  # not ``rng``: see above
        inner = interior_cards(placements)
        if inner and aside.random() < style.phone_over_card:
            over = [(inner[0], aside.choice((0.0, 90.0)))]
            laid += _phones_over(canvas, Props(canvas, aside, MARKER_MM), placements, over)
    cells = _coverage(canvas, cells)
    canvas_to_plane = np.array(
        [[1 / ppm, 0, canvas.lo[0]], [0, 1 / ppm, canvas.lo[1]], [0, 0, 1]], dtype=np.float64
    )
    warp = plane_to_image @ canvas_to_plane
    out, shot_with = _shoot(rng, canvas, warp, size, style)
    darkest, blur, noise, quality = shot_with
    grid_to_image = plane_to_image @ np.diag([q, q, 1.0])
    inside = _in_frame(cells, grid_to_image, size)
    centre_mm = (lo + hi) / 2
    conditions = Conditions(
        round(tilt, 1),
        round(yaw, 1),
        round(_scale_at(plane_to_image, centre_mm), 2),
        round(blur, 2),
        round(noise, 1),
        round(darkest, 2),
        count,
        quality,
        tuple(laid),
    )
    return Photo(
        np.asarray(out, np.uint8),
        catalog,
        tuple(placements),
        truth_land,
        inside,
        grid_to_image,
        conditions,
    )


def random_photo(
    seed: int,
    size: tuple[int, int] = (4000, 3000),
    cards: tuple[int, int] = (4, 9),
    style: Style | None = None,
    catalog: Catalog | None = None,
) -> Photo:
    """A random catalog (unless given), a random land of it, photographed: all from ``seed``."""
    rng = random.Random(seed)
    catalog = catalog or random_catalog(rng)
    placements = random_placements(rng, catalog, rng.randint(*cards))
    return render(rng, catalog, placements, size, style)


def photograph_again(
    photo: Photo,
    rng: random.Random,
    size: tuple[int, int] | None = None,
    style: Style | None = None,
) -> Photo:
    """The same land (same catalog and placements) photographed again: another camera,
    light and things lying over it, all from ``rng``, for the merging of several photos.

    The cards' art and the stickers' small offsets are drawn afresh too (they come from
    the same random stream as the camera); the markers, what the scan reads, are the
    same stickers on the same quarters.
    """
    height, width = photo.image.shape[:2]
    return render(rng, photo.catalog, photo.placements, size or (width, height), style)
