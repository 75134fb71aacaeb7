"""Reading a photo of a Chomp land: markers, the quarter grid, the cards, the cells.

1. **Markers.** ArUco finds the catalog's markers on a copy of the photo at most
   ``detect_px`` wide (12 MP photos need no more: a marker there is still 30+ pixels).
2. **Grid.** Each marker's four corners give its own frame; the distance to its nearest
   neighbour along an axis, in marker widths, is the quarter pitch.  From the marker with
   the most neighbours at that pitch the grid grows: the homography from grid to image is
   refitted on every marker placed so far, and a marker joins when its centre falls
   within ``cell_tolerance`` of a cell centre near the grid, square to the grid within
   ``angle_tolerance``, and about the right size.  The grid is then turned so that its
   rows run across the photo.
3. **Cards.** A marker's corner order tells how its card is turned; with its quarter that
   puts the card's top-left corner on the grid.  A card whose markers disagree, a cell
   two markers claim, a marker seen twice, and cards stacked in an order no real stack
   shows are all left unread, never settled by a vote.
4. **Second look.** Where a placed card covers a cell and no marker was read, ArUco looks
   again at full resolution around the spot; failing that, a partly covered marker is
   *verified*: its bits are sampled where the grid puts it, what an occluder may hide is
   set aside (:func:`occluded`), and the cell is read only if every clear bit matches
   the marker expected there and every other marker that could lie there (cards covering
   the cell, and any card no marker placed unless the stacking rules it out) misses by
   at least ``verify_margin`` clear bits.  Beside the land, a sticker no card is known
   to cover is read when exactly one marker of the catalog passes the same test, and is
   listed as unread when it shows a sticker but no marker passes.
5. **Inferred.** When no other marker could lie there at all (:meth:`_State.rivals`: the
   stacking, D6, and :class:`Ground`'s bare table), a hidden marker is read as the placed
   card's quarter, unless what shows of it contradicts that.

Pure apart from OpenCV: an image in, a :class:`Reading` out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.games.dino import Cell, Size
from companion.games.dino_catalog import CARD_QUARTERS, Catalog, turn
from companion.scan.land import CardPlace, Trouble, Unread
from companion.scan.markers import MARKER_BITS, MarkerBook, code_bits

Matrix = npt.NDArray[np.floating[Any]]
Image = npt.NDArray[np.uint8]

BITS = MARKER_BITS + 2  # bits across a marker, its black border included
DEFAULT_PITCH = 44.0 / 12.0  # quarter / marker side, the sheet's default: used with one marker


@dataclass(frozen=True, slots=True)
class ReadOptions:
    detect_px: int = 2000  # long side of the copy the first search runs on
    cell_tolerance: float = 0.25  # in cells: marker centre to cell centre
    angle_tolerance: float = 20.0  # degrees off square to the grid
    grow_reach: int = 3  # cells: how far past the grid so far a marker may join it
    second_look: bool = True
    verify: bool = True
    verify_margin: int = 3  # clear bits by which every other marker must fail
    infer: bool = True  # read a hidden marker when no other card can lie there (Ground too)


@dataclass(eq=False, slots=True)
class Marker:
    """One marker found in the photo: its id, what it names, its corners."""

    marker_id: int
    card: str
    quarter: int
    corners: Matrix  # 4 x 2 image pixels: the marker's own top-left, top-right, ...
    how: str = "seen"  # seen | second look | verified | inferred

    @property
    def centre(self) -> Matrix:
        """Where the diagonals cross: the true centre under perspective."""
        p0, p1, p2, p3 = self.corners
        d1, d2 = p2 - p0, p3 - p1
        det = d1[0] * -d2[1] + d2[0] * d1[1]
        if abs(det) < 1e-9:
            return np.asarray(self.corners.mean(axis=0), np.float64)
        t = ((p1[0] - p0[0]) * -d2[1] + d2[0] * (p1[1] - p0[1])) / det
        return np.asarray(p0 + t * d1, np.float64)

    @property
    def side(self) -> float:
        c = self.corners
        return float(np.mean([np.linalg.norm(c[i] - c[(i + 1) % 4]) for i in range(4)]))


@dataclass(slots=True)
class Reading:
    """What the photo says: read cells, placed cards, unread cells, and how it got there."""

    size: tuple[int, int]  # width, height
    markers: list[Marker]
    placed: dict[int, tuple[Cell, int]]  # marker index -> (cell, card rotation)
    ignored: dict[int, str]  # marker index -> why it is not used
    cards: dict[str, CardPlace]
    cells: dict[Cell, tuple[str, int]]  # cell -> (card, quarter)
    unread: dict[Cell, Unread]
    grid_to_image: Matrix | None
    marker_side: float  # in cells
    notes: list[str] = field(default_factory=list)

    def how(self, cell: Cell) -> str:
        for index, (where, _) in self.placed.items():
            if where == cell:
                return self.markers[index].how
        return ""


# --------------------------------------------------------------------------------------
# 1. Markers
# --------------------------------------------------------------------------------------


def _parameters(thorough: bool = False) -> Any:
    aruco = cv2.aruco
    p = aruco.DetectorParameters()
    p.adaptiveThreshWinSizeMin = 5
    p.adaptiveThreshWinSizeMax = 45 if thorough else 35
    p.adaptiveThreshWinSizeStep = 4 if thorough else 10
    p.minMarkerPerimeterRate = 0.02
    p.maxMarkerPerimeterRate = 4.0 if thorough else 1.0
    p.cornerRefinementMethod = aruco.CORNER_REFINE_SUBPIX
    p.perspectiveRemovePixelPerCell = 6
    return p


def gray_of(image: Image) -> Image:
    if image.ndim == 2:
        return image
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)


def detect(
    gray: Image,
    book: MarkerBook,
    detect_px: int = 2000,
    thorough: bool = False,
    side_px: tuple[float, float] | None = None,
) -> list[Marker]:
    """The catalog's markers in ``gray``, on a copy at most ``detect_px`` wide.

    ``side_px`` bounds the markers' sides (pixels of ``gray``) when they are known: in
    a small crop, noise makes many tiny outlines that are not worth decoding.
    """
    height, width = gray.shape[:2]
    factor = max(width, height) / detect_px
    small = gray
    if factor > 1.05:
        size = (round(width / factor), round(height / factor))
        small = np.asarray(cv2.resize(gray, size, interpolation=cv2.INTER_AREA), np.uint8)
        fx, fy = width / size[0], height / size[1]
    else:
        fx = fy = 1.0
    parameters = _parameters(thorough)
    if side_px is not None:
        longest = max(width, height)
        parameters.minMarkerPerimeterRate = 4 * side_px[0] / longest
        parameters.maxMarkerPerimeterRate = 4 * side_px[1] / longest
    detector = cv2.aruco.ArucoDetector(book.dictionary(), parameters)
    corners, ids, _ = detector.detectMarkers(small)
    found: list[Marker] = []
    if ids is None:
        return found
    scale = np.array([fx, fy])
    for quad, marker_id in zip(corners, ids.ravel().tolist(), strict=True):
        names = book.lookup(int(marker_id))
        if names is None:
            continue
        pts = (np.asarray(quad, np.float64).reshape(4, 2) + 0.5) * scale - 0.5
        found.append(Marker(int(marker_id), names[0], names[1], pts))
    return found


# --------------------------------------------------------------------------------------
# 2. The grid
# --------------------------------------------------------------------------------------

_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
_OFFSETS = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float64)


def _apply(h: Matrix, pts: Matrix) -> Matrix:
    out = cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), h)
    return np.asarray(out, np.float64).reshape(-1, 2)


def _local(marker: Marker) -> Matrix:
    """The marker's own frame (its unit square) to the image."""
    return np.asarray(
        cv2.getPerspectiveTransform(_UNIT.astype(np.float32), marker.corners.astype(np.float32)),
        np.float64,
    )


def _turned(rotation: int) -> Matrix:
    """Clockwise turn of a vector by ``rotation`` degrees (y grows downwards)."""
    r = math.radians(rotation)
    return np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]])


def _neighbour_pitches(markers: Sequence[Marker]) -> list[list[float]]:
    """For each marker, distances (in its own widths) to markers square to it."""
    centres = np.array([m.centre for m in markers])
    out: list[list[float]] = []
    for m in markers:
        inverse = np.linalg.inv(_local(m))
        reach = 8 * m.side
        near = [
            j
            for j in range(len(markers))
            if markers[j] is not m and np.linalg.norm(centres[j] - m.centre) < reach
        ]
        found = []
        if near:
            local = _apply(inverse, centres[near]) - 0.5
            for dx, dy in local:
                angle = math.degrees(math.atan2(dy, dx)) % 90
                if min(angle, 90 - angle) < 12:
                    found.append(math.hypot(dx, dy))
        out.append(found)
    return out


def _pitch(markers: Sequence[Marker]) -> tuple[float, list[int]]:
    """Quarter pitch in marker widths, and how many neighbours at that pitch each has."""
    pitches = _neighbour_pitches(markers)
    nearest = [min(p) for p in pitches if p]
    pitch = float(np.median(nearest)) if nearest else DEFAULT_PITCH
    support = [sum(1 for d in p if abs(d - pitch) < 0.15 * pitch) for p in pitches]
    return pitch, support


@dataclass(slots=True)
class _Fit:
    h: Matrix  # grid (cell units) -> image
    side: float  # marker side in cells
    where: dict[int, tuple[Cell, int]]  # marker index -> (cell, rotation)


def _grid_points(cell: Cell, rotation: int, side: float) -> Matrix:
    """A marker's centre and corners in grid units."""
    centre = np.array([cell[0] + 0.5, cell[1] + 0.5])
    corners = centre + (_OFFSETS * side) @ _turned(rotation).T
    return np.vstack([centre, corners])


def _refit(markers: Sequence[Marker], where: dict[int, tuple[Cell, int]], side: float) -> Matrix:
    counts: dict[Cell, int] = {}
    for cell, _ in where.values():
        counts[cell] = counts.get(cell, 0) + 1
    src, dst = [], []
    for index, (cell, rotation) in where.items():
        if counts[cell] > 1:
            continue
        src.append(_grid_points(cell, rotation, side))
        m = markers[index]
        dst.append(np.vstack([m.centre, m.corners]))
    h, _ = cv2.findHomography(np.vstack(src), np.vstack(dst), 0)
    return np.asarray(h, np.float64)


def _locate(
    h_inv: Matrix, marker: Marker, side: float, options: ReadOptions
) -> tuple[Cell, int] | None:
    """The cell and rotation of a marker under the grid, if it sits square on one."""
    g = _apply(h_inv, np.vstack([marker.centre, marker.corners]))
    centre, corners = g[0], g[1:]
    cell = (math.floor(centre[0]), math.floor(centre[1]))
    if np.max(np.abs(centre - np.array(cell) - 0.5)) > options.cell_tolerance:
        return None
    right = (corners[1] - corners[0] + corners[2] - corners[3]) / 2
    angle = math.degrees(math.atan2(right[1], right[0])) % 360
    rotation = round(angle / 90) % 4 * 90
    off = abs((angle - rotation + 180) % 360 - 180)
    if off > options.angle_tolerance:
        return None
    sides = [float(np.linalg.norm(corners[i] - corners[(i + 1) % 4])) for i in range(4)]
    if not 0.7 * side < float(np.mean(sides)) < 1.4 * side:
        return None
    return cell, rotation


def _grow(markers: Sequence[Marker], seed: int, pitch: float, options: ReadOptions) -> _Fit:
    side = 1.0 / pitch
    where: dict[int, tuple[Cell, int]] = {seed: ((0, 0), 0)}
    h = _refit(markers, where, side)
    reach = 1
    while True:
        h_inv = np.linalg.inv(h)
        taken = {cell for cell, _ in where.values()}
        added = False
        for index, marker in enumerate(markers):
            if index in where:
                continue
            spot = _locate(h_inv, marker, side, options)
            if spot is None:
                continue
            cx, cy = spot[0]
            if min(max(abs(cx - x), abs(cy - y)) for x, y in taken) > reach:
                continue
            where[index] = spot
            added = True
        if added:
            h = _refit(markers, where, side)
            side = _side(markers, where, h, side)
            reach = 1
        elif reach < options.grow_reach:
            reach += 1
        else:
            break
    # A last check against the final grid: a marker that only fitted early leaves it.
    h_inv = np.linalg.inv(h)
    for index in list(where):
        if index != seed and _locate(h_inv, markers[index], side, options) != where[index]:
            del where[index]
    if len(where) > 1:
        h = _refit(markers, where, side)
    return _Fit(h, side, where)


def _side(
    markers: Sequence[Marker], where: dict[int, tuple[Cell, int]], h: Matrix, old: float
) -> float:
    if len(where) < 3:
        return old
    h_inv = np.linalg.inv(h)
    sides = []
    for index in where:
        g = _apply(h_inv, markers[index].corners)
        sides.append(np.mean([np.linalg.norm(g[i] - g[(i + 1) % 4]) for i in range(4)]))
    return float(np.median(sides))


def fit_grid(markers: Sequence[Marker], options: ReadOptions) -> _Fit | None:
    """The quarter grid under the markers, from the best of a few seeds (see the module doc)."""
    if not markers:
        return None
    pitch, support = _pitch(markers)
    order = sorted(range(len(markers)), key=lambda i: (-support[i], -markers[i].side))
    best: _Fit | None = None
    for seed in order[:3]:
        fit = _grow(markers, seed, pitch, options)
        if best is None or len(fit.where) > len(best.where):
            best = fit
        if len(best.where) >= 0.9 * len(markers):
            break
    assert best is not None
    return _upright(best)


def _upright(fit: _Fit) -> _Fit:
    """Turn the grid (by quarter turns) so that its y axis runs down the photo."""
    cells = np.array([[c[0] + 0.5, c[1] + 0.5] for c, _ in fit.where.values()])
    middle = cells.mean(axis=0)
    probe = _apply(fit.h, np.vstack([middle, middle + [1, 0], middle + [0, 1]]))
    x_dir, y_dir = probe[1] - probe[0], probe[2] - probe[0]
    # The old axis that points most down the photo becomes +y; k quarter turns clockwise.
    downs = [y_dir[1], x_dir[1], -y_dir[1], -x_dir[1]]
    k = int(np.argmax(downs))
    if k == 0:
        return fit
    turn_k = np.eye(3)
    turn_k[:2, :2] = _turned(90 * k)
    where = {}
    for index, (cell, rotation) in fit.where.items():
        centre = turn_k[:2, :2] @ np.array([cell[0] + 0.5, cell[1] + 0.5])
        where[index] = ((math.floor(centre[0]), math.floor(centre[1])), (rotation + 90 * k) % 360)
    h = fit.h @ np.linalg.inv(turn_k)
    return _Fit(h, fit.side, where)


# --------------------------------------------------------------------------------------
# 3. Cards and cells
# --------------------------------------------------------------------------------------


class Ground:
    """The bare table beside the land, to tell a cell that no card can lie on.

    A cell is *bare* when its quarter looks like the table seen well away from the land
    (two or more cells from any card): 99% of its colours within the table's own spread,
    once the light's fall-off across the table is fitted.  A card lying on the cell would
    show its art and its sticker, and a finger or a token hiding that sticker would show
    itself, so a bare cell has no card on it.  A busy table (a wide spread), a cell whose
    middle is out of the photo, or one with no table in view around it is never bare: the
    reader then asks rather than rules a card out.
    """

    PX = 24  # rectified pixels per quarter
    REACH = 3  # cells around the cell where the table is looked for
    INSET = 0.05  # of a quarter, left out around the cell's edge (shadows, card rims)
    SHARE = 0.99  # of the cell's pixels that must look like the table
    MIDDLE = 0.3  # half the side of the middle of a quarter that must be in the photo
    BUSIEST = 60.0  # the widest table spread (in grey or BGR levels) still trusted
    SLACK, NOISE = 1.25, 6.0  # a colour is the table's within SLACK * spread + NOISE

    def __init__(self, image: Image, grid_to_image: Matrix, land: set[Cell]) -> None:
        self.image = image
        self.h = grid_to_image
        self.land = land
        self._seen: dict[Cell, bool] = {}

    def bare(self, cell: Cell) -> bool:
        if cell not in self._seen:
            self._seen[cell] = cell not in self.land and self._looks_bare(cell)
        return self._seen[cell]

    def _looks_bare(self, cell: Cell) -> bool:
        reach, px = self.REACH, self.PX
        side = (2 * reach + 1) * px
        x0, y0 = cell[0] - reach, cell[1] - reach
        us = (np.arange(side, dtype=np.float64) + 0.5) / px
        gx, gy = np.meshgrid(x0 + us, y0 + us)
        pts = np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)], axis=1) @ self.h.T
        mx = (pts[:, 0] / pts[:, 2]).reshape(side, side).astype(np.float32)
        my = (pts[:, 1] / pts[:, 2]).reshape(side, side).astype(np.float32)
        height, width = self.image.shape[:2]
        inside = (mx >= 0) & (my >= 0) & (mx <= width - 1) & (my <= height - 1)
        view = cv2.remap(self.image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        pixels = view.reshape(side * side, -1).astype(np.float64)
        # Light falls off across a table: colour is fitted as a plane over the window,
        # and the spread is what is left.
        grid = np.stack([gx.ravel(), gy.ravel()], 1)
        where = np.hstack([np.ones((side * side, 1)), grid - cell])
        inset = int(round(self.INSET * px))
        cells = np.floor(grid).astype(int)
        offset = (grid - cells) * px
        inner = ((offset >= inset) & (offset < px - inset)).all(axis=1) & inside.ravel()
        area = (px - 2 * inset) ** 2
        at = (cells[:, 0] == cell[0]) & (cells[:, 1] == cell[1])
        own = inner & at
        # The middle, where a card's sticker would be, must be in the photo, and most of
        # the quarter around it: at the photo's edge, that much is still seen.
        middle = at & (np.abs(offset - px / 2) <= self.MIDDLE * px).all(axis=1)
        if not inside.ravel()[middle].all() or np.count_nonzero(own) < area / 2:
            return False
        far = np.zeros(side * side, bool)
        for dy in range(-reach, reach + 1):
            for dx in range(-reach, reach + 1):
                c = (cell[0] + dx, cell[1] + dy)
                if any(max(abs(c[0] - a), abs(c[1] - b)) < 2 for a, b in self.land):
                    continue  # a card's neighbour: not surely table
                far |= inner & (cells[:, 0] == c[0]) & (cells[:, 1] == c[1])
        if np.count_nonzero(far) < area:
            return False  # not enough table in view around it
        # A plane only along an axis the table in view spans (no wild extrapolation).
        spans = np.ptp(where[far][:, 1:], axis=0) >= 1.5
        use = np.concatenate([[True], spans])
        plane, *_ = np.linalg.lstsq(where[far][:, use], pixels[far], rcond=None)
        left = np.linalg.norm(pixels - where[:, use] @ plane, axis=1)
        spread = float(np.quantile(left[far], 0.995))
        if spread > self.BUSIEST:
            return False
        near = left[own] <= self.SLACK * spread + self.NOISE
        return bool(np.count_nonzero(near) >= self.SHARE * np.count_nonzero(own))


@dataclass(slots=True)
class _State:
    cards: dict[str, CardPlace]
    cells: dict[Cell, tuple[str, int]]
    unread: dict[Cell, Unread]
    ignored: dict[int, str]
    above: dict[str, set[str]]  # card -> the cards it is seen to lie over

    def under(self, card: str) -> set[str]:
        """Every card ``card`` lies over, directly or through others."""
        seen: set[str] = set()
        todo = [card]
        while todo:
            for other in self.above.get(todo.pop(), ()):
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        return seen

    def covered(self, cell: Cell) -> bool:
        return any(place.quarter_at(cell) is not None for place in self.cards.values())

    def rivals(
        self, cell: Cell, card: str, catalog: Catalog, ground: Ground | None = None
    ) -> tuple[list[tuple[str, int]], list[Cell]]:
        """What else may show on ``cell`` if ``card`` lies there: placed cards covering the
        cell that are not known to lie under it, and the 2 x 2 places (top-left cells)
        where a card no marker placed may lie over it.

        Such a card would lie over ``card`` (it shows where ``card`` lies), so over every
        card ``card`` lies over: its place may not take in a cell where ``card``, or a
        card under it, shows.  It may not cut a large dino of ``card`` in half (D6).  And
        it would show on every cell of its place that no placed card covers, so none of
        those may be bare table (:class:`Ground`).
        """
        under = self.under(card)
        lower = under | {card}
        placed = [
            (other, q)
            for other, place in self.cards.items()
            if other != card and other not in under
            for q in [place.quarter_at(cell)]
            if q is not None
        ]
        whole = _large_dino_cells(catalog, self.cards[card], cell)
        x, y = cell
        spots: list[Cell] = []
        for ax in (x - 1, x):
            for ay in (y - 1, y):
                block = [(ax, ay), (ax + 1, ay), (ax, ay + 1), (ax + 1, ay + 1)]
                if any(s != cell and self.cells.get(s, ("",))[0] in lower for s in block):
                    continue
                if not whole <= set(block):
                    continue
                if ground is not None and any(
                    s != cell and not self.covered(s) and ground.bare(s) for s in block
                ):
                    continue
                spots.append((ax, ay))
        return placed, spots


def _large_dino_cells(catalog: Catalog, place: CardPlace, cell: Cell) -> set[Cell]:
    """The cells of the large dino of ``place`` on ``cell`` (none if it shows none there)."""
    quarter = place.quarter_at(cell)
    if quarter is None:
        return set()
    local = CARD_QUARTERS[quarter]
    for section in catalog.cards[place.card].sections:
        if section.dino is not None and section.dino.size is Size.LARGE and local in section.cells:
            return {place.at(c) for c in section.cells}
    return set()


def _assemble(
    catalog: Catalog,
    markers: Sequence[Marker],
    fit: _Fit,
    size: tuple[int, int],
    extra: dict[Cell, Unread],
) -> _State:
    """Cards from the placed markers, read cells, and the cells left unread (and why).

    ``extra`` are unread cells found otherwise (a sticker no marker could be read from).
    """
    ignored: dict[int, str] = {}
    unread: dict[Cell, Unread] = {}

    def leave(cell: Cell, trouble: Trouble, candidates: Sequence[tuple[str, int]]) -> None:
        if cell not in unread:
            unread[cell] = Unread(cell, trouble, tuple(dict.fromkeys(candidates)))

    ids: dict[int, list[int]] = {}
    for index in fit.where:
        ids.setdefault(markers[index].marker_id, []).append(index)
    for index in range(len(markers)):
        if index not in fit.where and index not in ignored:
            ignored[index] = "not on the land's grid"
    by_cell: dict[Cell, list[int]] = {}
    for index, (cell, _) in fit.where.items():
        by_cell.setdefault(cell, []).append(index)
    good: dict[int, tuple[Cell, int]] = {}
    for index, (cell, rotation) in fit.where.items():
        m = markers[index]
        if len(ids[m.marker_id]) > 1:
            ignored[index] = "the same marker is seen twice"
            leave(cell, Trouble.DUPLICATE, [(m.card, m.quarter)])
        elif len(by_cell[cell]) > 1:
            ignored[index] = "another marker claims the same cell"
            leave(
                cell,
                Trouble.TWO_MARKERS,
                [(markers[i].card, markers[i].quarter) for i in by_cell[cell]],
            )
        else:
            good[index] = (cell, rotation)
    # Cards: every marker of a card must put it in the same place.
    claims: dict[str, dict[int, CardPlace]] = {}
    for index, (cell, rotation) in good.items():
        m = markers[index]
        tx, ty = turn(CARD_QUARTERS[m.quarter], rotation)
        claims.setdefault(m.card, {})[index] = CardPlace(
            m.card, cell[0] - tx, cell[1] - ty, rotation
        )
    cards: dict[str, CardPlace] = {}
    cells: dict[Cell, tuple[str, int]] = {}
    for card, by_marker in claims.items():
        places = set(by_marker.values())
        if len(places) > 1:
            for index in by_marker:
                ignored[index] = f"card {card}'s markers disagree on where it lies"
                m = markers[index]
                leave(good[index][0], Trouble.CARD_DISAGREES, [(m.card, m.quarter)])
            continue
        cards[card] = places.pop()
        for index in by_marker:
            cells[good[index][0]] = (card, markers[index].quarter)
    # Stacking: a card showing on a cell lies over every other card covering it there.
    above: dict[str, set[str]] = {c: set() for c in cards}
    covering: dict[Cell, list[str]] = {}
    for card, place in cards.items():
        for cell in place.footprint():
            covering.setdefault(cell, []).append(card)
    for cell, (card, _) in cells.items():
        above[card].update(c for c in covering.get(cell, []) if c != card)
    stuck = _in_cycles(above)
    if stuck:
        for cell in [c for c, (k, _) in cells.items() if k in stuck]:
            card, quarter = cells.pop(cell)
            leave(cell, Trouble.ORDER, [(card, quarter)])
    # D6: a large dino is covered whole or not at all, so half of one showing beside
    # another card is a misread (or a land laid against the rules): ask.
    for card, place in cards.items():
        for section in catalog.cards[card].sections:
            if section.dino is None or section.dino.size is not Size.LARGE:
                continue
            spots = [place.at(c) for c in section.cells]
            mine = [c for c in spots if cells.get(c, ("",))[0] == card]
            other = [c for c in spots if c in cells and cells[c][0] != card]
            if mine and other:
                for c in spots:
                    if c in cells:
                        leave(c, Trouble.HALF_LARGE, [cells.pop(c)])
    # Cells a placed card covers where no marker was read.
    width, height = size
    for card, place in cards.items():
        if card in stuck:
            continue
        for cell in place.footprint():
            if cell in cells or cell in unread:
                continue
            under = [(c, cards[c].quarter_at(cell)) for c in covering.get(cell, [])]
            named = [(c, q) for c, q in under if q is not None]
            on_top = [
                (c, q) for c, q in named if not any(c in above[o] for o, _ in named if o != c)
            ]
            centre = _apply(fit.h, np.array([[cell[0] + 0.5, cell[1] + 0.5]]))[0]
            inside = 0 <= centre[0] < width and 0 <= centre[1] < height
            leave(cell, Trouble.NOT_SEEN if inside else Trouble.OUTSIDE, on_top or named)
    for cell, why in extra.items():
        if cell not in cells:
            leave(cell, why.trouble, why.candidates)
    return _State(cards, cells, unread, ignored, above)


def _in_cycles(above: dict[str, set[str]]) -> set[str]:
    """Cards on a cycle of 'lies over': no real stack of cards shows that."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: set[str] = set()
    counter = 0

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in above.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.update(group)

    for v in sorted(above):
        if v not in index:
            visit(v)
    return out


# --------------------------------------------------------------------------------------
# 4. Second look and verification
# --------------------------------------------------------------------------------------


def _second_look(
    gray: Image, book: MarkerBook, fit: _Fit, cell: Cell, options: ReadOptions
) -> tuple[Marker, tuple[Cell, int]] | None:
    """ArUco again, at full resolution (or more), around where the grid puts a marker."""
    quad = _apply(fit.h, _grid_points(cell, 0, fit.side * 2.0)[1:])
    height, width = gray.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    side_px = float(np.mean(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1))) / 2
    scale = min(4.0, max(1.0, 70.0 / max(side_px, 1.0)))
    roi = gray[y0:y1, x0:x1]
    if scale > 1.0:
        roi = np.asarray(
            cv2.resize(roi, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC), np.uint8
        )
    h_inv = np.linalg.inv(fit.h)
    expected = side_px * scale
    for m in detect(roi, book, 10**6, True, (0.6 * expected, 1.6 * expected)):
        m.corners = (m.corners + 0.5) / scale - 0.5 + np.array([x0, y0])
        m.how = "second look"
        spot = _locate(h_inv, m, fit.side, options)
        if spot is not None and spot[0] == cell:
            return m, spot
    return None


_BIT_PX = 10  # canonical pixels per bit
_SPAN = BITS + 6  # the marker, its white margin, and two bits of search room on each side
_SEARCH = 12  # canonical pixels (1.2 bits) searched each way: stickers are stuck by hand
_RING = BITS + 2  # the marker with its white margin
_OUTER = np.zeros((_RING, _RING), bool)
_OUTER[[0, -1], :] = _OUTER[:, [0, -1]] = True
_BORDER = np.zeros((_RING, _RING), bool)
_BORDER[[1, -2], 1:-1] = _BORDER[1:-1, [1, -2]] = True
_DATA = np.zeros((_RING, _RING), bool)
_DATA[2:-2, 2:-2] = True


def _box_means(integral: Matrix, shifts: Matrix) -> Matrix:
    """Mean of the middle of every bit of the marker and its margin, for each shift."""
    start = (_SPAN - _RING) * _BIT_PX // 2
    lo, hi = 3, 7  # the middle 4 of a bit's 10 pixels: away from its edges
    base = start + np.arange(_RING) * _BIT_PX
    steps = shifts.astype(np.intp)
    ys0 = (base[None, :] + steps[:, 1:2] + lo)[:, :, None]
    ys1 = (base[None, :] + steps[:, 1:2] + hi)[:, :, None]
    xs0 = (base[None, :] + steps[:, 0:1] + lo)[:, None, :]
    xs1 = (base[None, :] + steps[:, 0:1] + hi)[:, None, :]
    total = integral[ys1, xs1] - integral[ys0, xs1] - integral[ys1, xs0] + integral[ys0, xs0]
    return np.asarray(total.reshape(len(shifts), -1) / ((hi - lo) ** 2), np.float64)


_SHIFTS = np.array(
    [(sx, sy) for sy in range(-_SEARCH, _SEARCH + 1, 2) for sx in range(-_SEARCH, _SEARCH + 1, 2)],
    np.float64,
)


def sample_bits(
    image: Image, fit_h: Matrix, side: float, cell: Cell, rotation: int
) -> tuple[npt.NDArray[np.int8], dict[str, float]] | None:
    """The marker's 7 x 7 bits and its white margin where the grid puts them (9 x 9),
    seen upright for ``rotation``.

    Each bit is 1 (white), 0 (black) or -1 (not clear: between the levels, crossed by an
    edge, or coloured, which printed black and white never is).  The sampling is first
    aligned on the sticker's own structure (its white margin and black border) and on
    bits that do not straddle an edge: it does not depend on which marker is expected.
    """
    size = _SPAN * _BIT_PX
    k = side / BITS / _BIT_PX
    to_cells = np.array([[k, 0, -k * size / 2], [0, k, -k * size / 2], [0, 0, 1.0]])
    turn3 = np.eye(3)
    turn3[:2, :2] = _turned(rotation)
    move = np.array([[1, 0, cell[0] + 0.5], [0, 1, cell[1] + 0.5], [0, 0, 1.0]])
    warp = fit_h @ move @ turn3 @ to_cells
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    patch = cv2.warpPerspective(
        image, warp, (size, size), flags=flags, borderMode=cv2.BORDER_REPLICATE
    )
    if patch.ndim == 3:
        grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float64)
        chroma = (patch.max(axis=2) - patch.min(axis=2)).astype(np.float64)
    else:
        grey = patch.astype(np.float64)
        chroma = np.zeros_like(grey)
    g_int = np.asarray(cv2.integral(grey, sdepth=cv2.CV_64F), np.float64)
    sq_int = np.asarray(cv2.integral(grey * grey, sdepth=cv2.CV_64F), np.float64)
    means = _box_means(g_int, _SHIFTS)
    spreads = np.sqrt(np.maximum(_box_means(sq_int, _SHIFTS) - means * means, 0))
    outer = means[:, _OUTER.ravel()]
    border = means[:, _BORDER.ravel()]
    lows, highs = np.median(border, axis=1), np.median(outer, axis=1)
    middle = ((lows + highs) / 2)[:, None]
    gap = np.maximum(highs - lows, 1.0)[:, None]
    # Aligned, the most ring bits show the sticker's structure (white margin, black
    # border) and the most bits are even, not astride an edge; an occluder spoils the
    # same bits at every shift, so it does not pull the alignment away.
    score = (
        np.count_nonzero(outer > middle, axis=1)
        + np.count_nonzero(border < middle, axis=1)
        + np.count_nonzero(spreads < 0.15 * gap, axis=1)
    )
    best = int(np.argmax(score))
    shift = _SHIFTS[best : best + 1]
    v = means[best].reshape(_RING, _RING)
    sq = _box_means(sq_int, shift).reshape(_RING, _RING)
    c_int = np.asarray(cv2.integral(chroma, sdepth=cv2.CV_64F), np.float64)
    c = _box_means(c_int, shift).reshape(_RING, _RING)
    black = float(np.median(v[_BORDER]))
    white = float(np.median(v[_OUTER]))
    contrast = white - black
    if contrast < 30:
        return None
    spread = np.sqrt(np.maximum(sq - v * v, 0))
    clear_colour = float(np.median(c[_OUTER])) + max(20.0, 0.25 * contrast)
    bits = np.full((_RING, _RING), -1, np.int8)
    bits[v < black + 0.33 * contrast] = 0
    bits[v > black + 0.67 * contrast] = 1
    bits[(spread > 0.2 * contrast) | (c > clear_colour)] = -1
    info = {"contrast": contrast, "shift_x": float(shift[0, 0]), "shift_y": float(shift[0, 1])}
    return bits, info


def all_codes(count: int) -> npt.NDArray[np.int8]:
    """Every code of the catalog in its four turns: (count, 4, 5, 5), 1 = white."""
    codes = code_bits(count).astype(np.int8)
    return np.stack([np.stack([np.rot90(c, -t) for t in range(4)]) for c in codes])


GROW = 0.5  # bits added around the occluded region
_CENTRES = np.array([(x, y) for y in range(_RING) for x in range(_RING)], np.float32)


def occluded(
    bits: npt.NDArray[np.int8], expected: npt.NDArray[np.int8]
) -> npt.NDArray[np.bool_] | None:
    """Where something lies over the marker, if ``expected`` is the marker there.

    Bits that disagree with the marker (its white margin, black border and ``expected``
    data bits) or are unclear are grouped when at most one bit apart; each group must
    reach the margin or the border (occluders come in from outside: a token, a finger, a
    pen) and is widened to its convex hull plus half a bit, since those shapes are convex.
    Everything in a hull is set aside, whether it matches or not.  A group wholly inside
    the data bits is no occluder: unclear bits there are only set aside, and a clear bit against the
    marker gives None (no reason to trust the marker).
    """
    want = np.full((_RING, _RING), -1, np.int8)
    want[_OUTER] = 1
    want[_BORDER] = 0
    want[_DATA] = expected.ravel()
    off = (bits != want) | (bits < 0)
    hidden = np.zeros((_RING, _RING), np.bool_)
    if not off.any():
        return hidden
    # Groups may skip one matching bit: a dark token over the black border hides there.
    near_off = cv2.dilate(off.astype(np.uint8), np.ones((3, 3), np.uint8))
    count, labels = cv2.connectedComponents(near_off, connectivity=8)
    for label in range(1, count):
        group = (labels == label) & off
        if not (group & ~_DATA).any():
            if (bits[group] >= 0).any():
                return None  # a clear bit against the marker, and no occluder to blame
            hidden |= group  # only unclear bits: they say nothing either way
            continue
        pts = _CENTRES[group.ravel()]
        if len(pts) >= 3:
            hull = cv2.convexHull(pts.reshape(-1, 1, 2))
            near = np.array(
                [cv2.pointPolygonTest(hull, (float(x), float(y)), True) for x, y in _CENTRES]
            )
        else:
            gaps = np.linalg.norm(_CENTRES[:, None, :] - pts[None, :, :], axis=2)
            near = -np.min(gaps, axis=1)
        hidden |= (near >= -GROW).reshape(_RING, _RING)
    return hidden


CLEAR_SHARE = 0.4  # of the data bits that must stay clear to verify a marker


def verify(
    bits: npt.NDArray[np.int8],
    expected: int,
    codes: npt.NDArray[np.int8],
    margin: int,
    among: npt.NDArray[np.intp] | None = None,
) -> bool:
    """Whether ``bits`` (with the margin, upright as expected) show marker ``expected``.

    What an occluder may hide is set aside (:func:`occluded`).  The rest must show enough
    clear data bits, a third of the black border, none of them against ``expected``, and
    every other marker that may lie there (``among``: indices into ``codes`` flattened
    to (marker, turn); by default every marker of the catalog in every turn) at least
    ``margin`` clear bits away.
    """
    hidden = occluded(bits, codes[expected, 0])
    if hidden is None:
        return False
    data = bits[_DATA]
    clear = (data >= 0) & ~hidden[_DATA]
    if np.count_nonzero(clear) < CLEAR_SHARE * clear.size:
        return False
    if np.count_nonzero(~hidden[_BORDER]) < _BORDER.sum() / 3:
        return False
    flat = codes.reshape(len(codes) * 4, -1)
    index = expected * 4  # the expected marker, upright
    if np.count_nonzero((flat[index] != data) & clear) != 0:  # pragma: no cover
        return False
    others = np.arange(len(flat)) if among is None else among
    others = others[others != index]
    if others.size == 0:
        return True
    misses = np.count_nonzero((flat[others] != data) & clear, axis=1)
    return bool(misses.min() >= margin)


Option = tuple[str, int, int]  # a card, its quarter on the cell, the card's rotation


def _alternatives(
    state: _State,
    catalog: Catalog,
    ground: Ground | None,
    cell: Cell,
    card: str,
    cards: Sequence[str],
) -> list[Option]:
    """What might show on ``cell`` instead of ``card`` (see _State.rivals): placed cards,
    and each of ``cards`` (the catalog's) no marker placed, in each place and turn left.

    A card no marker placed shows on ``cell`` the quarter its place and turn put there;
    a quarter of its large dino would show on the dino's other cell too (D6), so not
    where another card is read.
    """
    placed, spots = state.rivals(cell, card, catalog, ground)
    out: list[Option] = [(other, q, state.cards[other].rotation) for other, q in placed]
    for other in cards:
        if other in state.cards:
            continue
        for x, y in spots:
            for rotation in (0, 90, 180, 270):
                place = CardPlace(other, x, y, rotation)
                quarter = place.quarter_at(cell)
                assert quarter is not None
                whole = _large_dino_cells(catalog, place, cell)
                if not any(c in state.cells for c in whole - {cell}):
                    out.append((other, quarter, rotation))
    return out


def _codes_as_seen(
    book: MarkerBook, options: Sequence[Option], rotation: int
) -> npt.NDArray[np.intp]:
    """``options`` as indices into the (marker, turn) codes, for bits sampled upright for
    a card turned ``rotation``."""
    return np.array(
        sorted({book.marker_id(c, q) * 4 + (r - rotation) // 90 % 4 for c, q, r in options}),
        np.intp,
    )


def _read_hidden_card(
    image: Image,
    fit: _Fit,
    book: MarkerBook,
    codes: npt.NDArray[np.int8],
    cell: Cell,
    expected: Option,
    rivals: Sequence[Option],
    margin: int,
) -> Option | None:
    """The one card no marker placed whose sticker on ``cell`` passes :func:`verify`
    against every other card that may show there (``expected``, the placed card's
    quarter, among them), if exactly one does."""
    everything = [expected, *rivals]
    passed: list[Option] = []
    samples: dict[int, npt.NDArray[np.int8] | None] = {}
    for option in rivals:
        card, quarter, rotation = option
        if rotation not in samples:
            sampled = sample_bits(image, fit.h, fit.side, cell, rotation)
            samples[rotation] = None if sampled is None else sampled[0]
        bits = samples[rotation]
        if bits is None:
            continue
        marker_id = book.marker_id(card, quarter)
        data = bits[_DATA]
        clear = data >= 0
        misses = int(np.count_nonzero((codes[marker_id, 0].ravel() != data) & clear))
        if misses > np.count_nonzero(clear) - CLEAR_SHARE * data.size:
            continue  # cannot pass: see _open_read
        among = _codes_as_seen(book, [o for o in everything if o != option], rotation)
        if verify(bits, marker_id, codes, margin, among):
            passed.append(option)
    return passed[0] if len(passed) == 1 else None


def _predicted(fit: _Fit, cell: Cell, rotation: int) -> Matrix:
    return _apply(fit.h, _grid_points(cell, rotation, fit.side)[1:])


# --------------------------------------------------------------------------------------
# The whole reading
# --------------------------------------------------------------------------------------


def looks_like_sticker(bits: npt.NDArray[np.int8]) -> bool:
    """A black border inside a white margin on at least two sides of the square.

    Along a side, count the black bits of the border and the white bits of the margin
    beside it: a sticker shows all of them, and three quarters even half under a token.
    A straight edge (a pen on the table, the rim of a card) crossing the side shows the
    same pattern in both rows, so never more than half; along it, it shows one side.
    """
    inner = slice(1, _RING - 1)
    sides = (
        (bits[1, inner], bits[0, inner]),
        (bits[-2, inner], bits[-1, inner]),
        (bits[inner, 1], bits[inner, 0]),
        (bits[inner, -2], bits[inner, -1]),
    )
    need = 0.75 * 2 * (_RING - 2)
    shown = sum(
        1
        for border, margin in sides
        if np.count_nonzero(border == 0) + np.count_nonzero(margin == 1) >= need
    )
    return shown >= 2


def _open_read(
    image: Image, fit: _Fit, cell: Cell, codes: npt.NDArray[np.int8], margin: int
) -> tuple[int, int] | bool:
    """A cell no card is known to cover: (marker id, rotation) if exactly one marker of
    the catalog passes :func:`verify` there, True if a sticker is there but no marker
    can be told, False if nothing like a sticker is there."""
    passed: list[tuple[int, int]] = []
    for rotation in (0, 90, 180, 270):
        sampled = sample_bits(image, fit.h, fit.side, cell, rotation)
        if sampled is None:
            return False
        bits = sampled[0]
        if rotation == 0 and not looks_like_sticker(bits):
            return False
        # verify() hides at least every bit a marker misses and keeps 40% of the data
        # bits clear, so a marker missing more clear bits than that leaves cannot pass.
        data = bits[_DATA]
        clear = data >= 0
        misses = np.count_nonzero((codes[:, 0].reshape(len(codes), -1) != data) & clear, axis=1)
        room = np.count_nonzero(clear) - CLEAR_SHARE * data.size
        for marker_id in np.flatnonzero(misses <= room).tolist():
            if verify(bits, marker_id, codes, margin):
                passed.append((marker_id, rotation))
    if len(passed) == 1:
        return passed[0]
    return True


def _ground(image: Image, fit: _Fit, state: _State, extra: dict[Cell, Unread]) -> Ground:
    land = set(state.cells) | set(state.unread) | set(extra)
    for place in state.cards.values():
        land.update(place.footprint())
    return Ground(image, fit.h, land)


def _inside(fit: _Fit, cell: Cell, size: tuple[int, int]) -> bool:
    """Whether the cell's whole sticker (marker and margin) lies in the photo."""
    quad = _apply(fit.h, _grid_points(cell, 0, fit.side * (BITS + 2) / BITS)[1:])
    return bool((quad >= 0).all() and (quad[:, 0] < size[0]).all() and (quad[:, 1] < size[1]).all())


def read_photo(image: Image, catalog: Catalog, options: ReadOptions | None = None) -> Reading:
    """Read the land in ``image`` (BGR or grey) through ``catalog``'s markers.

    After the first reading, cells a placed card covers but no marker was read on get a
    second look and then verification; cells beside the land that no card is known to
    cover are probed for a sticker.  Whatever these find goes back into the reading,
    until nothing more is found.
    """
    options = options or ReadOptions()
    gray = gray_of(image)
    height, width = gray.shape[:2]
    size = (width, height)
    book = MarkerBook.of(catalog)
    markers = detect(gray, book, options.detect_px)
    shrink = options.detect_px / max(size)
    if shrink < 1 and (
        len(markers) < 4 or float(np.median([m.side for m in markers])) * shrink < 30
    ):
        # Small markers (a land far away): the copy lost them, so search the photo itself.
        whole = detect(gray, book, max(size))
        if len(whole) > len(markers):
            markers = whole
    fit = fit_grid(markers, options)
    if fit is None:
        return Reading(size, markers, {}, {}, {}, {}, {}, None, 0.0, ["no markers found"])
    extra: dict[Cell, Unread] = {}
    state = _assemble(catalog, markers, fit, size, extra)
    ground = _ground(image, fit, state, extra) if options.infer else None
    codes = all_codes(book.count)
    looked: set[Cell] = set()
    verified: set[tuple[Cell, str, int]] = set()
    probed: set[Cell] = set()

    def add(marker: Marker, spot: tuple[Cell, int]) -> None:
        markers.append(marker)
        fit.where[len(markers) - 1] = spot

    for _ in range(8):
        found = False
        waiting = [c for c, why in state.unread.items() if why.trouble is Trouble.NOT_SEEN]
        if options.second_look:
            for cell in waiting:
                if cell in looked:
                    continue
                looked.add(cell)
                seen = _second_look(gray, book, fit, cell, options)
                if seen is not None:
                    add(*seen)
                    found = True
        if options.verify and not found:
            for cell in waiting:
                for card, quarter in state.unread[cell].candidates:
                    if (cell, card, quarter) in verified or card not in state.cards:
                        continue
                    verified.add((cell, card, quarter))
                    rotation = state.cards[card].rotation
                    sampled = sample_bits(image, fit.h, fit.side, cell, rotation)
                    marker_id = book.marker_id(card, quarter)
                    rivals = _alternatives(state, catalog, ground, cell, card, book.cards)
                    how = ""
                    bits = None if sampled is None else sampled[0]
                    if bits is not None and verify(
                        bits,
                        marker_id,
                        codes,
                        options.verify_margin,
                        _codes_as_seen(book, rivals, rotation),
                    ):
                        how = "verified"
                    elif not rivals and options.infer:
                        # Too little shows, but nothing else can lie there: read it,
                        # unless what shows contradicts the marker with no occluder to blame.
                        if bits is None or occluded(bits, codes[marker_id, 0]) is not None:
                            how = "inferred"
                    if how:
                        corners = _predicted(fit, cell, rotation)
                        add(Marker(marker_id, card, quarter, corners, how), (cell, rotation))
                        found = True
                        break
                    # Not the placed card: perhaps a card no marker placed lies on top.
                    on_top = _read_hidden_card(
                        image,
                        fit,
                        book,
                        codes,
                        cell,
                        (card, quarter, rotation),
                        rivals,
                        options.verify_margin,
                    )
                    if on_top is not None and on_top[0] not in state.cards:
                        other, q, turned = on_top
                        corners = _predicted(fit, cell, turned)
                        marker = Marker(book.marker_id(other, q), other, q, corners, "verified")
                        add(marker, (cell, turned))
                        found = True
                        break
        if options.verify and not found:
            known = set(state.cells) | set(state.unread)
            around = {(x + dx, y + dy) for x, y in known for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
            for cell in sorted(around - known - probed):
                probed.add(cell)
                if not _inside(fit, cell, size):
                    continue
                result = _open_read(image, fit, cell, codes, options.verify_margin)
                if isinstance(result, tuple):
                    marker_id, rotation = result
                    names = book.lookup(marker_id)
                    assert names is not None
                    corners = _predicted(fit, cell, rotation)
                    add(Marker(marker_id, *names, corners, "verified"), (cell, rotation))
                    found = True
                elif result:
                    extra[cell] = Unread(cell, Trouble.STICKER)
                    found = True
        if not found:
            break
        state = _assemble(catalog, markers, fit, size, extra)
        ground = _ground(image, fit, state, extra) if options.infer else None
    return _from_origin(
        Reading(
            size,
            markers,
            dict(fit.where),
            state.ignored,
            state.cards,
            state.cells,
            state.unread,
            fit.h,
            fit.side,
        )
    )


def _from_origin(r: Reading) -> Reading:
    """Move the land so that its first row and column are 0 (cell A1)."""
    spots = list(r.cells) + list(r.unread)
    if not spots or r.grid_to_image is None:
        return r
    dx = min(c[0] for c in spots)
    dy = min(c[1] for c in spots)
    if (dx, dy) == (0, 0):
        return r

    def mv(c: Cell) -> Cell:
        return (c[0] - dx, c[1] - dy)

    shift = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]])
    return Reading(
        r.size,
        r.markers,
        {i: (mv(c), rot) for i, (c, rot) in r.placed.items()},
        r.ignored,
        {k: CardPlace(p.card, p.x - dx, p.y - dy, p.rotation) for k, p in r.cards.items()},
        {mv(c): v for c, v in r.cells.items()},
        {mv(c): Unread(mv(c), u.trouble, u.candidates) for c, u in r.unread.items()},
        r.grid_to_image @ shift,
        r.marker_side,
        r.notes,
    )
