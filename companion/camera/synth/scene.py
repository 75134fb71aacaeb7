"""What happens over the table in one round: the plan the painter draws, and its truth.

Kept apart from the pixels so the truth (which marker a fair reader could see, in which
seat's zone, from when) is decided by geometry and time alone, and a test can stage any
round (a card between two zones, two cards in one zone, a hand over one seat) by hand.

Units: pixels of the frame (x right, y down) and nanoseconds from the round's first
frame. The table is ``TABLE_MM`` wide across the frame; a card is 63 x 88 mm with its
sticker (the sheet's 24 mm marker, its white edge and label) 3 mm in from the face's
top-left corner.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from companion.camera import stickers
from companion.camera.model import Point, Zone
from companion.errors import InputError

TABLE_MM = 1000.0  # the table's width across the frame
CARD_MM = (63.0, 88.0)  # a CHOMP! card, face up, its top edge away from its player
# The sticker as the printed sheet makes it (camera/stickers.py): the marker with a white
# edge and two label lines under it, stuck 3 mm in from the face's top-left corner.
MARKER_MM = stickers.MARKER_MM
MARKER_EDGE_MM = stickers.EDGE_MM
STICKER_MM = stickers.STICKER_MM
STICKER_AT_MM = (stickers.INSET_MM, stickers.INSET_MM)
SEATS = ("ann", "bob", "cat", "dan", "eve", "fay")

# Each seat's zone (fractions of the frame) and the edge its player sits at, per table
# size. The zones leave the middle free (a phone, a cup) and never touch each other.
_SLOTS: dict[str, tuple[tuple[float, float, float, float], str]] = {
    "bottom": ((0.36, 0.60, 0.64, 0.97), "bottom"),
    "top": ((0.36, 0.03, 0.64, 0.40), "top"),
    "bottom-left": ((0.22, 0.60, 0.48, 0.97), "bottom"),
    "bottom-right": ((0.52, 0.60, 0.78, 0.97), "bottom"),
    "top-left": ((0.22, 0.03, 0.48, 0.40), "top"),
    "top-right": ((0.52, 0.03, 0.78, 0.40), "top"),
    "left": ((0.02, 0.26, 0.19, 0.74), "left"),
    "right": ((0.81, 0.26, 0.98, 0.74), "right"),
}
LAYOUTS: dict[int, tuple[str, ...]] = {
    2: ("bottom", "top"),
    3: ("bottom", "left", "right"),
    4: ("bottom-left", "bottom-right", "top-right", "top-left"),
    5: ("bottom-left", "bottom-right", "right", "top", "left"),
    6: ("bottom-left", "bottom-right", "right", "top-right", "top-left", "left"),
}
# A card's "up" (its top edge, away from its player) per edge, as a clockwise angle.
_FACING = {"bottom": 0.0, "top": 180.0, "left": 90.0, "right": -90.0}


@dataclass(frozen=True, slots=True)
class Seat:
    """A player's place: the name, the zone the card lands in, the edge the arm comes from."""

    name: str
    box: tuple[float, float, float, float]  # the zone, x0 y0 x1 y1 in fractions
    edge: str  # "bottom" | "top" | "left" | "right"

    def zone(self) -> Zone:
        x0, y0, x1, y1 = self.box
        return Zone(self.name, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))


def seats_for(names: Sequence[str]) -> tuple[Seat, ...]:
    """The table's seats for 2 to 6 players, in the order named."""
    if not 2 <= len(names) <= 6:
        raise InputError("seats", f"the simulated table seats 2 to 6, not {len(names)}")
    return tuple(
        Seat(name, *_SLOTS[slot]) for name, slot in zip(names, LAYOUTS[len(names)], strict=False)
    )


@dataclass(frozen=True, slots=True)
class Glare:
    """A bright patch on a card's sleeve, in card millimetres: centre, radii, peak (0-255)."""

    centre_mm: Point
    radii_mm: Point
    peak: float


@dataclass(frozen=True, slots=True)
class CardShow:
    """One card flipped in: where it comes from and lands, when the flip starts and ends."""

    seat: str
    marker: int
    centre: Point  # where it comes to rest
    angle: float  # its top edge's direction, degrees clockwise from up
    start: Point  # where the slide begins (in the player's hand)
    flip_start_ns: int
    flip_ns: int
    glare: Glare | None = None
    art: int = 0  # which card picture (colour) the face shows

    @property
    def rest_ns(self) -> int:
        return self.flip_start_ns + self.flip_ns


@dataclass(frozen=True, slots=True)
class HandPass:
    """A hand from a seat's edge over the table: out, a while over ``target``, back."""

    seat: str
    enter: Point  # where the arm crosses the frame's edge
    target: Point  # where the palm's centre comes to rest
    start_ns: int  # leaves the edge
    arrive_ns: int  # at rest over the target
    leave_ns: int  # starts back
    gone_ns: int  # out of the frame again
    palm_px: float  # the palm's width
    skin: tuple[int, int, int]  # BGR
    sleeve: tuple[int, int, int]

    def palm_at(self, t_ns: int) -> Point | None:
        """The palm's centre at ``t_ns``, or None while the hand is away."""
        if t_ns <= self.start_ns or t_ns >= self.gone_ns:
            return None
        if t_ns < self.arrive_ns:
            s = (t_ns - self.start_ns) / max(1, self.arrive_ns - self.start_ns)
        elif t_ns <= self.leave_ns:
            s = 1.0
        else:
            s = 1.0 - (t_ns - self.leave_ns) / max(1, self.gone_ns - self.leave_ns)
        s = s * s * (3 - 2 * s)  # smooth start and stop
        back = _behind(self.enter, self.target, self.palm_px)
        return (back[0] + (self.target[0] - back[0]) * s, back[1] + (self.target[1] - back[1]) * s)


def _behind(enter: Point, target: Point, palm_px: float) -> Point:
    """Where the palm is when the hand is just out of the frame (beyond ``enter``)."""
    dx, dy = enter[0] - target[0], enter[1] - target[1]
    n = math.hypot(dx, dy) or 1.0
    return (enter[0] + dx / n * palm_px * 1.6, enter[1] + dy / n * palm_px * 1.6)


@dataclass(frozen=True, slots=True)
class Look:
    """How the picture is made: the table, the light, the camera (what a round does not
    change). ``clean()`` turns off what makes markers hard to read, for exact tests."""

    noise: float = 3.0  # the sensor's noise, grey levels (one sigma)
    shake_px: float = 1.5  # camera shake: one sigma of the jitter, clipped at 2 px
    flicker: float = 0.10  # mains flicker's depth at most (50 Hz light under 30 fps)
    blur: bool = True  # motion blur of what moves during the exposure
    glare: float = 0.5  # the share of cards whose sleeve catches a light
    hands: float = 0.75  # the chance a seat's hand comes over the table in a round
    props: bool = True  # a phone or a cup in the middle

    @classmethod
    def clean(cls) -> Look:
        return cls(noise=0.0, shake_px=0.0, flicker=0.0, glare=0.0)


@dataclass(frozen=True, slots=True)
class Round:
    """One round's plan. Frame ``i`` is taken at ``i * 1e9 / fps`` ns."""

    seed: int
    size: tuple[int, int]
    fps: float
    seats: tuple[Seat, ...]
    cards: tuple[CardShow, ...]
    hands: tuple[HandPass, ...]
    reveal_ns: int
    frames: int
    look: Look = field(default_factory=Look)
    table: str = "wood"  # "wood" | "cloth"
    prop: str = "none"  # "phone" | "cup" | "none"

    def t_ns(self, index: int) -> int:
        return round(index * 1e9 / self.fps)

    def zones(self) -> list[Zone]:
        return [seat.zone() for seat in self.seats]

    @property
    def px_per_mm(self) -> float:
        return self.size[0] / TABLE_MM


@dataclass(frozen=True, slots=True)
class FrameTruth:
    """What a fair reader could see in one frame: each marker at rest, face up, with no
    hand over it and no glare washing it out, by seat; and what hid the others."""

    index: int
    t_ns: int
    visible: dict[int, str | None]  # marker -> the seat whose zone holds it (None: no one seat)
    corners: dict[int, tuple[Point, Point, Point, Point]]  # every marker face up in frame
    covered: frozenset[int] = frozenset()  # a hand over part of it
    moving: frozenset[int] = frozenset()  # mid flip or sliding
    glared: frozenset[int] = frozenset()


def random_round(
    seed: int,
    seats: int | Sequence[str] | None = None,
    markers: Sequence[int] = range(50),
    look: Look | None = None,
    size: tuple[int, int] = (1280, 720),
    fps: float = 30.0,
    seconds: float = 2.0,
    shown: Mapping[str, Sequence[int]] | None = None,
    reveal_s: tuple[float, float] = (0.25, 0.35),
) -> Round:
    """A realistic round from ``seed``: 2-6 seats (or those given), each flipping one card
    of ``markers`` in at the reveal (0.3 s in), hands arriving 150-700 ms after the flips.
    ``shown`` gives each seat's markers instead (two for a double chomp: side by side in
    its zone); a seat it leaves out shows nothing (none at all: an empty table)."""
    rng = random.Random(seed)
    look = look or Look()
    if seats is None or isinstance(seats, int):
        count = seats if isinstance(seats, int) else rng.randint(2, 6)
        names: Sequence[str] = SEATS[:count]
    else:
        names = seats
    table = seats_for(names)
    if shown is None:
        chosen = rng.sample(list(markers), len(table))
        shown = {seat.name: (m,) for seat, m in zip(table, chosen, strict=True)}
    reveal_ns = round(rng.uniform(*reveal_s) * 1e9)
    ppm = size[0] / TABLE_MM
    cards = tuple(
        _card(rng, part, marker, reveal_ns, size, ppm, look)
        for seat in table
        for part, marker in zip(
            _parts(seat, len(shown.get(seat.name, ()))), shown.get(seat.name, ()), strict=True
        )
    )
    hands = tuple(
        _hand(rng, seat, rng.choice(cards), size, ppm)
        for seat in table
        if rng.random() < look.hands and cards
    )
    return Round(
        seed=seed,
        size=size,
        fps=fps,
        seats=table,
        cards=cards,
        hands=hands,
        reveal_ns=reveal_ns,
        frames=int(seconds * fps),
        look=look,
        table=rng.choice(("wood", "wood", "cloth")),
        prop=rng.choice(("phone", "cup", "none")) if look.props else "none",
    )


def _parts(seat: Seat, count: int) -> list[Seat]:
    """The zone cut in ``count`` along its long side: one part per card of the seat."""
    if count <= 1:
        return [seat] * count
    x0, y0, x1, y1 = seat.box
    if seat.edge in ("left", "right"):
        step = (y1 - y0) / count
        return [
            Seat(seat.name, (x0, y0 + k * step, x1, y0 + (k + 1) * step), seat.edge)
            for k in range(count)
        ]
    step = (x1 - x0) / count
    return [
        Seat(seat.name, (x0 + k * step, y0, x0 + (k + 1) * step, y1), seat.edge)
        for k in range(count)
    ]


def _card(
    rng: random.Random,
    seat: Seat,
    marker: int,
    reveal_ns: int,
    size: tuple[int, int],
    ppm: float,
    look: Look,
) -> CardShow:
    """A card landing well inside its seat's zone, turned to face its player (give or take
    20 degrees), flipped 0-80 ms after the reveal over 3-5 frames' time."""
    x0, y0, x1, y1 = seat.box
    angle = _FACING[seat.edge] + rng.uniform(-20, 20)
    half = math.hypot(*CARD_MM) / 2 * ppm + 4  # the card's reach from its centre, any turn
    cx = _within(rng, x0 * size[0], x1 * size[0], half)
    cy = _within(rng, y0 * size[1], y1 * size[1], half)
    toward = _EDGE_DIR[seat.edge]
    slide = rng.uniform(60, 140) * ppm  # mm from the hand to the table
    start = (cx + toward[0] * slide, cy + toward[1] * slide)
    glare = None
    if rng.random() < look.glare:
        glare = Glare(
            (rng.uniform(5, 55), rng.uniform(10, 85)),
            (rng.uniform(6, 20), rng.uniform(4, 12)),
            40 + 190 * rng.random() ** 2,  # mostly a sheen, now and then a lamp's image
        )
    return CardShow(
        seat=seat.name,
        marker=marker,
        centre=(cx, cy),
        angle=angle,
        start=start,
        flip_start_ns=reveal_ns + round(rng.uniform(0, 80) * 1e6),
        flip_ns=round(rng.uniform(100, 170) * 1e6),
        glare=glare,
        art=rng.randrange(8),
    )


def _within(rng: random.Random, lo: float, hi: float, half: float) -> float:
    """A centre ``half`` in from both ends, or the middle when the room is too small."""
    return rng.uniform(lo + half, hi - half) if hi - lo > 2 * half else (lo + hi) / 2


_EDGE_DIR = {"bottom": (0.0, 1.0), "top": (0.0, -1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}
SKIN = ((60, 80, 120), (90, 125, 180), (120, 160, 215), (150, 190, 235), (45, 60, 95))


def _hand(
    rng: random.Random, seat: Seat, card: CardShow, size: tuple[int, int], ppm: float
) -> HandPass:
    """A hand from ``seat``'s edge to somewhere over or beside ``card``, arriving 150-700
    ms after the card came to rest: it may cover the card wholly, partly, or miss it."""
    w, h = size
    x0, y0, x1, y1 = seat.box
    along = rng.uniform(0.2, 0.8)
    enter = {
        "bottom": ((x0 + (x1 - x0) * along) * w, h + 2.0),
        "top": ((x0 + (x1 - x0) * along) * w, -2.0),
        "left": (-2.0, (y0 + (y1 - y0) * along) * h),
        "right": (w + 2.0, (y0 + (y1 - y0) * along) * h),
    }[seat.edge]
    reach = rng.uniform(0, 70) * ppm  # how far from the card's centre the palm lands
    turn = rng.uniform(0, 2 * math.pi)
    target = (card.centre[0] + reach * math.cos(turn), card.centre[1] + reach * math.sin(turn))
    arrive = card.rest_ns + round(rng.uniform(150, 700) * 1e6)
    travel = round(rng.uniform(90, 200) * 1e6)
    stay = round(rng.uniform(250, 900) * 1e6)
    return HandPass(
        seat=seat.name,
        enter=enter,
        target=target,
        start_ns=arrive - travel,
        arrive_ns=arrive,
        leave_ns=arrive + stay,
        gone_ns=arrive + stay + travel,
        palm_px=rng.uniform(80, 100) * ppm,
        skin=rng.choice(SKIN),
        sleeve=(rng.randrange(20, 200), rng.randrange(20, 200), rng.randrange(20, 200)),
    )
