"""A photo's markers and the quarter grid they lie on (steps 1 and 2 of
:mod:`companion.scan.reader`).

ArUco finds the catalog's markers on a reduced copy of the photo (on a busy cloth only
round the square outlines that may be markers, see :func:`search`); the grid grows from the
marker with the most neighbours at the quarter pitch, refitting the homography from grid
to image on every marker placed, and is then turned so that its rows run across the photo.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from companion.games.dino import Cell
from companion.scan.markers import MARKER_BITS, MarkerBook

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
    outline: bool = True  # ask for cells around the land that may hold a card no marker shows


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
    near: Matrix | None = None,
) -> list[Marker]:
    """The catalog's markers in ``gray``, on a copy at most ``detect_px`` wide.

    ``side_px`` bounds the markers' sides (pixels of ``gray``) when they are known: in
    a small crop, noise makes many tiny outlines that are not worth decoding.  ``near``
    (outlines in ``gray``'s pixels, from :func:`search`) says where on a busy photo the
    markers may be; without it a busy photo's outlines are found here.
    """
    return search(gray, book, detect_px, thorough, side_px, near)[0]


def search(
    gray: Image,
    book: MarkerBook,
    detect_px: int = 2000,
    thorough: bool = False,
    side_px: tuple[float, float] | None = None,
    near: Matrix | None = None,
) -> tuple[list[Marker], Matrix | None]:
    """:func:`detect`'s markers, and on a busy photo the square outlines on the copy
    (in ``gray``'s pixels) that a search at full resolution may take as ``near``."""
    height, width = gray.shape[:2]
    factor = max(width, height) / detect_px
    small = gray
    if factor > 1.05:
        size = (round(width / factor), round(height / factor))
        small = np.asarray(cv2.resize(gray, size, interpolation=cv2.INTER_AREA), np.uint8)
        fx, fy = width / size[0], height / size[1]
    else:
        fx = fy = 1.0
    scale = np.array([fx, fy])
    parameters = _parameters(thorough)
    if side_px is not None:
        longest = max(width, height)
        parameters.minMarkerPerimeterRate = 4 * side_px[0] / longest
        parameters.maxMarkerPerimeterRate = 4 * side_px[1] / longest
    outlines = None
    if near is not None:
        outlines = (near + 0.5) / scale - 0.5
    else:
        outlines = _busy_outlines(small, parameters, noisy=small is gray)  # not reduced
    if outlines is not None:
        small = _only_near(small, outlines)
    detector = cv2.aruco.ArucoDetector(book.dictionary(), parameters)
    corners, ids, _ = detector.detectMarkers(small)
    seen = None if outlines is None else (outlines + 0.5) * scale - 0.5
    found: list[Marker] = []
    if ids is None:
        return found, seen
    for quad, marker_id in zip(corners, ids.ravel().tolist(), strict=True):
        names = book.lookup(int(marker_id))
        if names is None:
            continue
        pts = (np.asarray(quad, np.float64).reshape(4, 2) + 0.5) * scale - 0.5
        found.append(Marker(int(marker_id), names[0], names[1], pts))
    return found, seen


# A busy cloth (gingham) makes thousands of square outlines, and ArUco tries each against
# every code of the catalog: seconds a photo.  Outlines are found here as ArUco finds them
# (the same thresholds and shape tests); those whose inside is one flat tone (a check of
# the cloth) or that show no dark border inside a lighter margin are set aside, and ArUco
# then searches a copy in which only the rest, with room round each for its threshold
# windows, is left: the markers it finds there are the ones it finds in the whole copy,
# with the same corners.  At full resolution the copy's outlines, scaled, say where.
BUSY_OUTLINES = 400  # square outlines on one threshold pass above which a photo is busy
_SAMPLES = (np.arange(BITS + 2) - 0.5) / BITS  # a marker's cells and its margin, across
_U = np.broadcast_to(_SAMPLES[None, :], (BITS + 2, BITS + 2)).ravel()  # across, row by row
_V = np.broadcast_to(_SAMPLES[:, None], (BITS + 2, BITS + 2)).ravel()  # down
# Each corner's bilinear weight at each cell centre.  (1 - u) * (1 - v) * corner takes
# the weight first, then the corner, so blending with these gives the very same numbers.
_BLEND = np.stack([(1 - _U) * (1 - _V), _U * (1 - _V), _U * _V, (1 - _U) * _V])


def _outlines(gray: Image, parameters: Any, windows: Sequence[int], noisy: bool = False) -> Matrix:
    """The convex four-cornered outlines ArUco would take as candidates, N x 4 x 2.
    ``noisy``: a photo at full resolution, whose noise may make specks of a few pixels
    by the hundred thousand (a reduced copy averages them away)."""
    longest = max(gray.shape[:2])
    shortest = parameters.minMarkerPerimeterRate * longest
    longest_allowed = parameters.maxMarkerPerimeterRate * longest
    rate = parameters.polygonalApproxAccuracyRate
    quads = []
    for window in windows:
        binary = cv2.adaptiveThreshold(
            gray,
            255,
            cv2.ADAPTIVE_THRESH_MEAN_C,
            cv2.THRESH_BINARY_INV,
            window | 1,
            parameters.adaptiveThreshConstant,
        )
        if shortest > _SPECK:  # the specks' contours are too short to keep anyway
            plain = np.asarray(binary, np.uint8)
            binary = _without_specks(plain)
            lone = cv2.countNonZero(cv2.bitwise_xor(plain, binary)) if noisy else 0
            if lone > _NOISY * plain.size:
                binary = _without_small_specks(plain, binary)
        contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        lengths = np.fromiter(map(len, contours), np.int64, len(contours))
        for index in np.flatnonzero((lengths >= shortest) & (lengths <= longest_allowed)).tolist():
            contour = contours[index]
            corners = cv2.approxPolyDP(contour, len(contour) * rate, True)
            if len(corners) == 4 and cv2.isContourConvex(corners):
                quads.append(corners.reshape(4, 2))
    return np.asarray(quads, np.float64).reshape(-1, 4, 2)


# A lone pixel of a threshold (set, no set pixel round it) and a lone hole (clear, its
# four neighbours set) each make a contour of their own, 1 and 4 points long: thousands
# on a busy cloth or a noisy photo, each costing findContours as much as a real one.
# So do specks of up to 2 x 2 pixels, set or clear, by the hundred thousand on a noisy
# photo at full resolution (where lone pixels are 1% of the pixels or more: elsewhere
# looking for them costs more than it saves).
_SPECK = 8  # the longest contour of any of them (round a clear 2 x 2)
_NOISY = 0.01
_AROUND = np.array([[1, 1, 1], [1, 0, 1], [1, 1, 1]], np.uint8)
_CROSS = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], np.uint8)
# Round a 2 x 2 window (its top left at the anchor, 1, 1): the 12 pixels that touch it,
# and the 8 that share a side with it.
_RING = np.ones((4, 4), np.uint8)
_RING[1:3, 1:3] = 0
_SIDE_RING = _RING.copy()
_SIDE_RING[[0, 0, 3, 3], [0, 3, 0, 3]] = 0
_WINDOW = np.ones((2, 2), np.uint8)  # the 2 x 2 windows a pixel lies in


def _without_specks(binary: Image) -> Image:
    """``binary`` (0 or 255) with its lone pixels and lone holes flipped.

    findContours then gives the same contours in the same order, less the specks' own:
    a lone pixel touches no other set pixel, so no other border passes beside it, and
    filling a lone hole only joins it to the set pixels round it, whose other borders
    never look at it (the property test runs both on random images).  Outside the image
    counts as clear, as findContours takes it."""
    clear = cv2.BORDER_CONSTANT  # with 0 beyond the edge
    beside = cv2.dilate(binary, _AROUND, borderType=clear, borderValue=0)  # a neighbour set
    closed = cv2.erode(binary, _CROSS, borderType=clear, borderValue=0)  # all four set
    # A set pixel stays set if a neighbour is; a clear one is set if its four neighbours
    # are (a set pixel's four neighbours set: it has a neighbour, so it stays).
    return np.asarray(cv2.bitwise_or(cv2.bitwise_and(binary, beside), closed), np.uint8)


def _without_small_specks(binary: Image, kept: Image) -> Image:
    """``kept`` (:func:`_without_specks` of ``binary``) less every set or clear speck of
    ``binary`` that fits in 2 x 2 pixels, for the same reasons: a 2 x 2 window with
    nothing set round it holds whole specks (no more than its four pixels), and one
    whose 8 side neighbours are set closes its clear pixels in."""
    clear = cv2.BORDER_CONSTANT  # with 0 beyond the edge
    ring = cv2.dilate(binary, _RING, anchor=(1, 1), borderType=clear, borderValue=0)
    apart = cv2.dilate(cv2.bitwise_not(ring), _WINDOW, anchor=(1, 1), borderType=clear)
    shut = cv2.erode(binary, _SIDE_RING, anchor=(1, 1), borderType=clear, borderValue=0)
    inside = cv2.dilate(shut, _WINDOW, anchor=(1, 1), borderType=clear)
    return np.asarray(
        cv2.bitwise_or(cv2.bitwise_and(kept, cv2.bitwise_not(apart)), inside), np.uint8
    )


def _busy_outlines(gray: Image, parameters: Any, noisy: bool = False) -> Matrix | None:
    """Every outline ArUco would try on a busy photo (one outline per spot); None when
    the photo is not busy, where ArUco is quick on its own.  ``noisy``: :func:`_outlines`."""
    first = parameters.adaptiveThreshWinSizeMin
    windows = list(range(first, parameters.adaptiveThreshWinSizeMax + 1))
    windows = windows[:: parameters.adaptiveThreshWinSizeStep]
    probe = windows[len(windows) // 2]
    quads = _outlines(gray, parameters, [probe], noisy)
    if len(quads) <= BUSY_OUTLINES:
        return None
    rest = _outlines(gray, parameters, [w for w in windows if w != probe], noisy)
    quads = np.concatenate([quads, rest])
    # The same square found on several passes: one of it is enough to say where.
    key = np.rint(np.hstack([quads.mean(axis=1), quads[:, 0]]) / 2).astype(np.int64)
    _, first_of = np.unique(key, axis=0, return_index=True)
    return quads[np.sort(first_of)]


def _marker_like(gray: Image, quads: Matrix) -> npt.NDArray[np.bool_]:
    """Which outlines may hold a marker: a dark border in a lighter margin, and both
    light and dark cells inside (every code has at least 10 of each of its 36 bits).

    Far more lenient than ArUco's own test (a border half dark, three cells of each
    tone), so that no outline ArUco could read is set aside."""
    n = len(quads)
    height, width = gray.shape[:2]
    # A pixel at each cell centre, N x 10 x 10: the corners blended bilinearly, x and y
    # apart so that every operation runs along the 100 cells (an axis of 2 last is slow).
    w0, w1, w2, w3 = _BLEND
    x, y = (
        w0 * c[:, 0:1] + w1 * c[:, 1:2] + w2 * c[:, 2:3] + w3 * c[:, 3:4]
        for c in (quads[:, :, 0], quads[:, :, 1])
    )
    xs = np.clip(np.rint(x).astype(np.int64), 0, width - 1)
    ys = np.clip(np.rint(y).astype(np.int64), 0, height - 1)
    levels = np.ascontiguousarray(gray).ravel()[ys * width + xs]
    cells = levels.reshape(n, BITS + 2, BITS + 2).astype(np.float32)
    data = cells[:, 2:-2, 2:-2].reshape(n, -1)
    border = np.concatenate(
        [cells[:, 1, 1:-1], cells[:, -2, 1:-1], cells[:, 2:-2, 1], cells[:, 2:-2, -2]], axis=1
    )
    margin = np.concatenate(
        [cells[:, 0, :], cells[:, -1, :], cells[:, 1:-1, 0], cells[:, 1:-1, -1]], axis=1
    )
    dark, light = median_rows(border), median_rows(margin)
    middle = ((dark + light) / 2)[:, None]
    return np.asarray(
        (light - dark >= 10)
        & (np.count_nonzero(border < middle, axis=1) >= border.shape[1] / 2)
        & (np.count_nonzero(data > middle, axis=1) >= 3)
        & (np.count_nonzero(data < middle, axis=1) >= 3),
        np.bool_,
    )


FloatRows = TypeVar("FloatRows", npt.NDArray[np.float32], npt.NDArray[np.float64])


def median_rows(values: FloatRows) -> FloatRows:
    """``np.median(values, axis=1)``, the same numbers, five times faster on the short
    rows the scan takes medians of: the middle of each sorted row, or the two middle
    ones added and halved in the rows' own precision, as NumPy's mean of them is."""
    ordered = np.sort(values, axis=1)
    half = values.shape[1] // 2
    if values.shape[1] % 2:
        return ordered[:, half]
    two = values.dtype.type(2)
    out: FloatRows = (ordered[:, half - 1] + ordered[:, half]) / two
    return out


def _only_near(gray: Image, outlines: Matrix) -> Image:
    """A flat copy of ``gray`` holding only the outlines that may be markers, with room
    round each for ArUco's threshold windows and the marker's margin."""
    out = np.full_like(gray, 128)
    height, width = gray.shape[:2]
    # Only outlines that lie in ``gray`` (at full resolution it is a part of the photo).
    low, high = outlines.min(axis=1), outlines.max(axis=1)
    outlines = outlines[(low >= 0).all(axis=1) & (high < [width, height]).all(axis=1)]
    if not len(outlines):
        return out
    for quad in outlines[_marker_like(gray, outlines)]:
        room = 24 + float(np.mean(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1))) / 4
        x0, y0 = np.floor(quad.min(axis=0) - room).astype(int).clip(0)
        x1, y1 = np.ceil(quad.max(axis=0) + room).astype(int)
        out[y0:y1, x0:x1] = gray[y0:y1, x0:x1]
    return out


# --------------------------------------------------------------------------------------
# 2. The grid
# --------------------------------------------------------------------------------------

_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
_OFFSETS = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float64)


def apply_homography(h: Matrix, pts: Matrix) -> Matrix:
    out = cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), h)
    return np.asarray(out, np.float64).reshape(-1, 2)


def _local(marker: Marker) -> Matrix:
    """The marker's own frame (its unit square) to the image."""
    return np.asarray(
        cv2.getPerspectiveTransform(_UNIT.astype(np.float32), marker.corners.astype(np.float32)),
        np.float64,
    )


def turned_unit(rotation: int) -> Matrix:
    """Clockwise turn of a vector by ``rotation`` degrees (y grows downwards)."""
    r = math.radians(rotation)
    return np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]])


def _neighbour_pitches(markers: Sequence[Marker]) -> list[list[float]]:
    """For each marker, distances (in its own widths) to markers square to it."""
    centres = np.array([m.centre for m in markers])
    out: list[list[float]] = []
    for m, centre in zip(markers, centres, strict=True):
        inverse = np.linalg.inv(_local(m))
        reach = 8 * m.side
        near = [
            j
            for j in range(len(markers))
            if markers[j] is not m and np.linalg.norm(centres[j] - centre) < reach
        ]
        found = []
        if near:
            local = apply_homography(inverse, centres[near]) - 0.5
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
class GridFit:
    h: Matrix  # grid (cell units) -> image
    side: float  # marker side in cells
    where: dict[int, tuple[Cell, int]]  # marker index -> (cell, rotation)


def grid_points(cell: Cell, rotation: int, side: float) -> Matrix:
    """A marker's centre and corners in grid units."""
    centre = np.array([cell[0] + 0.5, cell[1] + 0.5])
    corners = centre + (_OFFSETS * side) @ turned_unit(rotation).T
    return np.vstack([centre, corners])


def _refit(markers: Sequence[Marker], where: dict[int, tuple[Cell, int]], side: float) -> Matrix:
    counts: dict[Cell, int] = {}
    for cell, _ in where.values():
        counts[cell] = counts.get(cell, 0) + 1
    src, dst = [], []
    for index, (cell, rotation) in where.items():
        if counts[cell] > 1:
            continue
        src.append(grid_points(cell, rotation, side))
        m = markers[index]
        dst.append(np.vstack([m.centre, m.corners]))
    h, _ = cv2.findHomography(np.vstack(src), np.vstack(dst), 0)
    return np.asarray(h, np.float64)


def locate(
    h_inv: Matrix,
    marker: Marker,
    side: float,
    options: ReadOptions,
    points: Matrix | None = None,
) -> tuple[Cell, int] | None:
    """The cell and rotation of a marker under the grid, if it sits square on one.
    ``points``: the marker's centre and corners (:func:`_points`), when known."""
    if points is None:
        points = _points(marker)
    g = apply_homography(h_inv, points)
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


def _points(marker: Marker) -> Matrix:
    """The marker's centre and its corners, 5 x 2."""
    return np.vstack([marker.centre, marker.corners])


def _grow(markers: Sequence[Marker], seed: int, pitch: float, options: ReadOptions) -> GridFit:
    side = 1.0 / pitch
    points = [_points(m) for m in markers]  # each marker is located again on every pass
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
            spot = locate(h_inv, marker, side, options, points[index])
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
        if index == seed:
            continue
        if locate(h_inv, markers[index], side, options, points[index]) != where[index]:
            del where[index]
    if len(where) > 1:
        h = _refit(markers, where, side)
    return GridFit(h, side, where)


def _side(
    markers: Sequence[Marker], where: dict[int, tuple[Cell, int]], h: Matrix, old: float
) -> float:
    if len(where) < 3:
        return old
    h_inv = np.linalg.inv(h)
    sides = []
    for index in where:
        g = apply_homography(h_inv, markers[index].corners)
        sides.append(np.mean([np.linalg.norm(g[i] - g[(i + 1) % 4]) for i in range(4)]))
    return float(np.median(sides))


def fit_grid(markers: Sequence[Marker], options: ReadOptions) -> GridFit | None:
    """The quarter grid under the markers, from the best of a few seeds (see the module doc)."""
    if not markers:
        return None
    pitch, support = _pitch(markers)
    order = sorted(range(len(markers)), key=lambda i: (-support[i], -markers[i].side))
    best: GridFit | None = None
    for seed in order[:3]:
        fit = _grow(markers, seed, pitch, options)
        if best is None or len(fit.where) > len(best.where):
            best = fit
        if len(best.where) >= 0.9 * len(markers):
            break
    assert best is not None
    return _upright(best)


def _upright(fit: GridFit) -> GridFit:
    """Turn the grid (by quarter turns) so that its y axis runs down the photo."""
    cells = np.array([[c[0] + 0.5, c[1] + 0.5] for c, _ in fit.where.values()])
    middle = cells.mean(axis=0)
    probe = apply_homography(fit.h, np.vstack([middle, middle + [1, 0], middle + [0, 1]]))
    x_dir, y_dir = probe[1] - probe[0], probe[2] - probe[0]
    # The old axis that points most down the photo becomes +y; k quarter turns clockwise.
    downs = [y_dir[1], x_dir[1], -y_dir[1], -x_dir[1]]
    k = int(np.argmax(downs))
    if k == 0:
        return fit
    turn_k = np.eye(3)
    turn_k[:2, :2] = turned_unit(90 * k)
    where = {}
    for index, (cell, rotation) in fit.where.items():
        centre = turn_k[:2, :2] @ np.array([cell[0] + 0.5, cell[1] + 0.5])
        where[index] = ((math.floor(centre[0]), math.floor(centre[1])), (rotation + 90 * k) % 360)
    h = fit.h @ np.linalg.inv(turn_k)
    return GridFit(h, fit.side, where)
