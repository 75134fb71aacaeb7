"""A photo's markers and the quarter grid they lie on (steps 1 and 2 of
:mod:`companion.scan.reader`).

ArUco finds the catalog's markers on a reduced copy of the photo; the grid grows from the
marker with the most neighbours at the quarter pitch, refitting the homography from grid
to image on every marker placed, and is then turned so that its rows run across the photo.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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
    h_inv: Matrix, marker: Marker, side: float, options: ReadOptions
) -> tuple[Cell, int] | None:
    """The cell and rotation of a marker under the grid, if it sits square on one."""
    g = apply_homography(h_inv, np.vstack([marker.centre, marker.corners]))
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


def _grow(markers: Sequence[Marker], seed: int, pitch: float, options: ReadOptions) -> GridFit:
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
            spot = locate(h_inv, marker, side, options)
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
        if index != seed and locate(h_inv, markers[index], side, options) != where[index]:
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
