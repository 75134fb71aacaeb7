"""Seats' zones on the picture, and which seat a sighting lies in.

A card is given to a seat by where it lies, never by guess: a sighting belongs to a seat
only when its whole marker lies inside that seat's zone and touches no other zone. A
marker partly in a zone, or touching two, is ``between`` (the reader asks about it); one
in no zone at all is ``outside`` (a card on the draw pile, a phone's case: ignored).

Zones are convex polygons in fractions of the frame, so a config survives a change of
resolution, and convexity makes "all four corners inside" mean "the whole marker inside".
Two zones may share a border but never overlap: then no point is in two seats' zones.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from companion import data
from companion import text as gate
from companion.camera.markers import MARKER_COUNT
from companion.camera.model import Point, Seen, Sighting, Zone
from companion.errors import InputError

CONFIG_KEY = "camera.zones"
EPS = 1e-9
MIN_AREA = 1e-4  # of the frame: a zone smaller than 1/100 of its width by 1/100 of its height
ZONE_HALF_SIDES = 4.0  # a zone reaches 4 sticker sides each way: a card is about 3.7 long
MIDLINE_GAP = 0.002  # of the frame: what separates two neighbours' zones cut at their midline
DIGITS = 4  # zones from cards are kept to 1/10000 of the frame: readable in the config


class CardBook(Protocol):
    """What the camera needs of a deck (``StickerDeck`` satisfies it)."""

    @property
    def game(self) -> str: ...

    def card_of(self, marker: int) -> str | None: ...

    def label(self, marker: int) -> str: ...


@dataclass(frozen=True)
class Placement:
    """The sightings of one frame sorted by where they lie."""

    by_seat: dict[str, tuple[Sighting, ...]]  # wholly inside one seat's zone
    between: tuple[Sighting, ...]  # touching two zones, or partly in one
    outside: tuple[Sighting, ...]  # in no zone at all (ignored, never asked)
    between_seats: tuple[tuple[str, ...], ...] = ()  # for each of ``between``: seats touched


# -- plane geometry on convex polygons ------------------------------------------------------


def _cross(o: Point, a: Point, b: Point) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def signed_area(polygon: Sequence[Point]) -> float:
    """Positive when the corners go one way round, negative the other (shoelace)."""
    total = 0.0
    for i, (x0, y0) in enumerate(polygon):
        x1, y1 = polygon[(i + 1) % len(polygon)]
        total += x0 * y1 - x1 * y0
    return total / 2.0


def _convex_problem(polygon: Sequence[Point]) -> str | None:
    """Why ``polygon`` is not a usable convex polygon, or None when it is."""
    if len(polygon) < 3:
        return f"a zone needs at least 3 corners, got {len(polygon)}"
    area = signed_area(polygon)
    if abs(area) < MIN_AREA:
        return f"the zone is too small or flat (area {abs(area):.2g} of the frame)"
    sign = 1.0 if area > 0 else -1.0
    turning = 0.0
    count = len(polygon)
    for i in range(count):
        a, b, c = polygon[i], polygon[(i + 1) % count], polygon[(i + 2) % count]
        if a == b:
            return f"corner {i + 1} is repeated"
        if _cross(a, b, c) * sign < -EPS:
            return f"the zone is not convex (at corner {(i + 1) % count + 1})"
        heading_in = math.atan2(b[1] - a[1], b[0] - a[0])
        heading_out = math.atan2(c[1] - b[1], c[0] - b[0])
        turn = (heading_out - heading_in + math.pi) % (2 * math.pi) - math.pi
        turning += turn
    if abs(abs(turning) - 2 * math.pi) > 1e-6:
        return "the zone's border crosses itself"
    return None


def _projection(polygon: Sequence[Point], axis: Point) -> tuple[float, float]:
    values = [x * axis[0] + y * axis[1] for x, y in polygon]
    return min(values), max(values)


def _axes(polygon: Sequence[Point]) -> list[Point]:
    found = []
    for i, (x0, y0) in enumerate(polygon):
        x1, y1 = polygon[(i + 1) % len(polygon)]
        if (x1, y1) != (x0, y0):
            found.append((y0 - y1, x1 - x0))
    return found


def _gap(a: Sequence[Point], b: Sequence[Point]) -> float:
    """The widest gap between the two convex polygons' projections on an edge normal
    (separating axes): positive when apart, 0 when they only touch, negative when their
    insides overlap. Normals are unit length, so the figure is a distance."""
    widest = -math.inf
    for ax, ay in _axes(a) + _axes(b):
        length = math.hypot(ax, ay)
        axis = (ax / length, ay / length)
        a_low, a_high = _projection(a, axis)
        b_low, b_high = _projection(b, axis)
        widest = max(widest, b_low - a_high, a_low - b_high)
    return widest


def _inside(polygon: Sequence[Point], point: Point, strict: bool = False) -> bool:
    sign = 1.0 if signed_area(polygon) > 0 else -1.0
    limit = EPS if strict else -EPS
    return all(
        _cross(polygon[i], polygon[(i + 1) % len(polygon)], point) * sign > limit
        for i in range(len(polygon))
    )


def _hull(points: Sequence[Point]) -> list[Point]:
    """The convex hull (a detector's quad is convex; a bent one is taken whole)."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts
    lower: list[Point] = []
    upper: list[Point] = []
    for p in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _touches(zone: Sequence[Point], shape: Sequence[Point]) -> bool:
    if len(shape) == 1:
        return _inside(zone, shape[0])
    if len(shape) == 2:  # a flat marker: its segment, as a thin polygon
        return _gap(zone, [*shape, shape[0]]) <= EPS or any(_inside(zone, p) for p in shape)
    return _gap(zone, shape) <= EPS


# -- zones ----------------------------------------------------------------------------------


def _seat_where(where: str, seat: str) -> str:
    return data.at(where, seat)


class Zones:
    """The table's zones, checked once: convex, not flat, inside the frame, apart."""

    def __init__(self, zones: Sequence[Zone], where: str = CONFIG_KEY) -> None:
        keys: dict[str, str] = {}
        for zone in zones:
            place = _seat_where(where, zone.seat)
            key = gate.name_key(zone.seat)
            if key in keys:
                raise InputError(place, f"{zone.seat!r} has two zones")
            keys[key] = zone.seat
            for x, y in zone.polygon:
                if not (math.isfinite(x) and math.isfinite(y) and 0 <= x <= 1 and 0 <= y <= 1):
                    raise InputError(place, f"corner ({x:g}, {y:g}) is outside the frame (0..1)")
            problem = _convex_problem(zone.polygon)
            if problem is not None:
                raise InputError(place, problem)
        for i, first in enumerate(zones):
            for second in zones[i + 1 :]:
                if _gap(first.polygon, second.polygon) < -EPS:
                    raise InputError(
                        where, f"{first.seat}'s and {second.seat}'s zones overlap: a card there "
                        "would belong to both"
                    )  # fmt: skip
        self.zones: tuple[Zone, ...] = tuple(zones)
        self._boxes = [_box(z.polygon) for z in self.zones]  # most markers are far from a zone

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(z.seat for z in self.zones)

    def seat_at(self, point: Point) -> str | None:
        """The seat whose zone holds ``point`` (fractions) strictly inside, if any."""
        for zone in self.zones:
            if _inside(zone.polygon, point, strict=True):
                return zone.seat
        return None

    def touching(self, sighting: Sighting, size: tuple[int, int]) -> tuple[str, ...]:
        """The seats whose zones the marker touches at all (its border included)."""
        shape = _hull(_fractions(sighting, size))
        x0, y0, x1, y1 = _box(shape)
        return tuple(
            z.seat
            for z, (zx0, zy0, zx1, zy1) in zip(self.zones, self._boxes, strict=True)
            if x0 <= zx1 + EPS and zx0 <= x1 + EPS and y0 <= zy1 + EPS and zy0 <= y1 + EPS
            and _touches(z.polygon, shape)
        )  # fmt: skip

    def place(self, seen: Seen) -> Placement:
        by_seat: dict[str, list[Sighting]] = {}
        between: list[Sighting] = []
        between_seats: list[tuple[str, ...]] = []
        outside: list[Sighting] = []
        by_name = {z.seat: z for z in self.zones}
        for sighting in seen.sightings:
            touched = self.touching(sighting, seen.size)
            corners = _fractions(sighting, seen.size)
            if not touched:
                outside.append(sighting)
            elif len(touched) == 1 and all(
                _inside(by_name[touched[0]].polygon, c) for c in corners
            ):
                by_seat.setdefault(touched[0], []).append(sighting)
            else:
                between.append(sighting)
                between_seats.append(touched)
        return Placement(
            by_seat={seat: tuple(found) for seat, found in by_seat.items()},
            between=tuple(between),
            outside=tuple(outside),
            between_seats=tuple(between_seats),
        )


def _box(polygon: Sequence[Point]) -> tuple[float, float, float, float]:
    xs = [x for x, _ in polygon]
    ys = [y for _, y in polygon]
    return min(xs), min(ys), max(xs), max(ys)


def _fractions(sighting: Sighting, size: tuple[int, int]) -> list[Point]:
    width, height = size
    return [(x / width, y / height) for x, y in sighting.corners]


# -- zones from one card per seat -----------------------------------------------------------


def setup_cards(deck: CardBook, seats: Sequence[str]) -> dict[str, str]:
    """The card each seat shows at set-up: the deck's kinds in marker order, one a seat.

    A seat is known by what its card is, never by guessing where people sit: ann shows the
    first kind, bob the second, and so on. InputError when the deck has fewer kinds.
    """
    kinds: list[str] = []
    for marker in range(MARKER_COUNT):
        card = deck.card_of(marker)
        if card is not None and card not in kinds:
            kinds.append(card)
    if len(kinds) < len(seats):
        raise InputError(
            "seats", f"the deck has {len(kinds)} kinds of card for {len(seats)} seats: set up "
            "at most that many at once"
        )  # fmt: skip
    return dict(zip(seats, kinds, strict=False))


def zones_from_cards(
    seen: Seen, seats: Sequence[str], deck: CardBook, cards: Mapping[str, str] | None = None
) -> list[Zone]:
    """A zone around each seat's card: the card each seat shows is ``cards[seat]`` (by
    default :func:`setup_cards`). Each zone reaches :data:`ZONE_HALF_SIDES` marker sides
    from the sticker, clipped to the frame and cut at the midline to each neighbour.

    One InputError line when a seat's card is missing, seen twice, or so close to another
    that the midline crosses a sticker."""
    shows = dict(cards) if cards is not None else setup_cards(deck, seats)
    found: dict[str, Sighting] = {}
    for seat in seats:
        wanted = shows[seat]
        mine = [s for s in seen.sightings if deck.card_of(s.marker) == wanted]
        if not mine:
            raise InputError(seat, f"{seat}'s card (a {wanted}) is not seen: put it face up")
        if len(mine) > 1:
            raise InputError(
                seat, f"{len(mine)} {wanted} cards are seen: only {seat} shows a {wanted}"
            )
        found[seat] = mine[0]
    width, height = seen.size
    zones = []
    for seat in seats:
        polygon = _zone_around(seat, found, (width, height))
        zones.append(Zone(seat, polygon))
    Zones(zones)  # a last check: never hand out zones a config would refuse
    return zones


def _zone_around(
    seat: str, found: Mapping[str, Sighting], size: tuple[int, int]
) -> tuple[Point, ...]:
    width, height = size
    mine = found[seat]
    cx, cy = mine.centre[0] / width, mine.centre[1] / height
    half = ZONE_HALF_SIDES * mine.side_px
    hx, hy = half / width, half / height
    polygon: list[Point] = [
        (max(0.0, cx - hx), max(0.0, cy - hy)),
        (min(1.0, cx + hx), max(0.0, cy - hy)),
        (min(1.0, cx + hx), min(1.0, cy + hy)),
        (max(0.0, cx - hx), min(1.0, cy + hy)),
    ]
    for other, theirs in found.items():
        if other == seat:
            continue
        ox, oy = theirs.centre[0] / width, theirs.centre[1] / height
        # keep the side of the midline nearer to this card, MIDLINE_GAP/2 short of it
        nx, ny = ox - cx, oy - cy
        length = math.hypot(nx, ny)
        if length == 0:
            raise InputError(seat, f"{seat}'s and {other}'s cards lie on each other")
        nx, ny = nx / length, ny / length
        limit = (length - MIDLINE_GAP) / 2
        polygon = _clip(polygon, (cx, cy), (nx, ny), limit)
    rounded = tuple((round(x, DIGITS), round(y, DIGITS)) for x, y in polygon)
    rounded = tuple(p for i, p in enumerate(rounded) if p != rounded[i - 1])
    corners = _fractions(mine, size)
    if len(rounded) < 3 or not all(_inside(rounded, c) for c in corners):
        neighbour = min(
            (o for o in found if o != seat),
            key=lambda o: math.dist(found[o].centre, mine.centre),
        )
        raise InputError(seat, f"{seat}'s and {neighbour}'s cards are too close: move them apart")
    return rounded


def _clip(polygon: Sequence[Point], origin: Point, normal: Point, limit: float) -> list[Point]:
    """The part of a convex polygon where (p - origin) . normal <= limit (one half-plane)."""

    def level(p: Point) -> float:
        return (p[0] - origin[0]) * normal[0] + (p[1] - origin[1]) * normal[1] - limit

    kept: list[Point] = []
    for i, p in enumerate(polygon):
        q = polygon[(i + 1) % len(polygon)]
        lp, lq = level(p), level(q)
        if lp <= 0:
            kept.append(p)
        if (lp < 0 < lq) or (lq < 0 < lp):
            t = lp / (lp - lq)
            kept.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return kept


# -- the config ---------------------------------------------------------------------------


def zones_to_config(zones: Sequence[Zone]) -> dict[str, list[list[float]]]:
    """The ``[camera.zones]`` table: each seat's corners as ``[x, y]`` fractions."""
    return {z.seat: [[float(x), float(y)] for x, y in z.polygon] for z in zones}


def zones_from_config(raw: Any, where: str = CONFIG_KEY) -> list[Zone]:
    """Zones from a parsed ``[camera.zones]`` table, checked; one InputError naming
    ``camera.zones.<seat>`` and what is wrong."""
    table = data.mapping(raw, where)
    zones: list[Zone] = []
    for key, value in table.items():
        place = data.at(where, key)
        seat = data.name(key, place, "seat")
        corners = data.lst(value, place)
        if len(corners) > 64:
            raise InputError(place, f"a zone has at most 64 corners, got {len(corners)}")
        polygon: list[Point] = []
        for i, corner in enumerate(corners):
            spot = data.at(place, i)
            pair = data.lst(corner, spot)
            if len(pair) != 2:
                raise InputError(spot, f"a corner is [x, y], got {len(pair)} numbers")
            x = data.number(pair[0], data.at(spot, 0), 0.0, 1.0)
            y = data.number(pair[1], data.at(spot, 1), 0.0, 1.0)
            polygon.append((x, y))
        zones.append(Zone(seat, tuple(polygon)))
    Zones(zones, where)
    return zones


def config_lines(zones: Sequence[Zone]) -> list[str]:
    """The ``[camera.zones]`` section as TOML lines (floats written to round-trip)."""
    lines = ["[camera.zones]"]
    for zone in zones:
        corners = ", ".join(f"[{float(x)!r}, {float(y)!r}]" for x, y in zone.polygon)
        key = zone.seat if _bare_key(zone.seat) else json.dumps(zone.seat, ensure_ascii=False)
        lines.append(f"{key} = [{corners}]")
    return lines


def _bare_key(key: str) -> bool:
    return bool(key) and all(c.isascii() and (c.isalnum() or c in "-_") for c in key)
