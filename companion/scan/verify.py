"""A second look at hidden markers, and verifying partly covered ones (steps 4 and 5
of :mod:`companion.scan.reader`).

Where a placed card covers a cell and no marker was read, ArUco looks again at full
resolution; failing that, the marker's bits are sampled where the grid puts it, each
bit read against the marker's levels and against the border and margin beside it (glare
and shadows make bits unknown, not wrong), what an occluder may hide is set aside
(:func:`occluded`), and the cell is read only if every clear bit matches the expected
marker and every rival misses by ``verify_margin`` bits (or one fewer, when ArUco's
error correction over every clear bit rules it out too: :func:`corrected`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.games.dino import Cell
from companion.games.dino.catalog import Catalog
from companion.scan.cards import CardState, Ground, large_dino_cells
from companion.scan.grid import (
    BITS,
    GridFit,
    Image,
    Marker,
    Matrix,
    ReadOptions,
    apply_homography,
    detect,
    grid_points,
    locate,
    median_rows,
    turned_unit,
)
from companion.scan.land import CardPlace
from companion.scan.markers import MarkerBook, code_bits

# --------------------------------------------------------------------------------------
# 4. Second look and verification
# --------------------------------------------------------------------------------------


def second_look(
    gray: Image, book: MarkerBook, fit: GridFit, cell: Cell, options: ReadOptions
) -> tuple[Marker, tuple[Cell, int]] | None:
    """ArUco again, at full resolution (or more), around where the grid puts a marker."""
    quad = apply_homography(fit.h, grid_points(cell, 0, fit.side * 2.0)[1:])
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
        spot = locate(h_inv, m, fit.side, options)
        if spot is not None and spot[0] == cell:
            return m, spot
    return None


_BIT_PX = 10  # canonical pixels per bit
_SPAN = BITS + 6  # the marker, its white margin, and two bits of search room on each side
_SEARCH = 12  # canonical pixels (1.2 bits) searched each way: stickers are stuck by hand
RING = BITS + 2  # the marker with its white margin
OUTER_MASK = np.zeros((RING, RING), bool)
OUTER_MASK[[0, -1], :] = OUTER_MASK[:, [0, -1]] = True
BORDER_MASK = np.zeros((RING, RING), bool)
BORDER_MASK[[1, -2], 1:-1] = BORDER_MASK[1:-1, [1, -2]] = True
DATA_MASK = np.zeros((RING, RING), bool)
DATA_MASK[2:-2, 2:-2] = True
_LO, _HI = 3, 7  # the middle 4 of a bit's 10 pixels
_INTEGRAL_SIDE = _SPAN * _BIT_PX + 1


def _box_means(integral: Matrix, shifts: Matrix) -> Matrix:
    """Mean of the middle of every bit of the marker and its margin, for each shift."""
    return _sums(integral, _box_corners(shifts))


def _box_corners(shifts: Matrix) -> npt.NDArray[np.intp]:
    """Where :func:`_box_means` reads the integral image, flattened: (4, shifts, RING, RING),
    the corners of the middle of every bit (4 of its 10 pixels, away from its edges)."""
    start = (_SPAN - RING) * _BIT_PX // 2
    base = start + np.arange(RING) * _BIT_PX
    steps = shifts.astype(np.intp)
    ys0 = (base[None, :] + steps[:, 1:2] + _LO)[:, :, None] * _INTEGRAL_SIDE
    ys1 = (base[None, :] + steps[:, 1:2] + _HI)[:, :, None] * _INTEGRAL_SIDE
    xs0 = (base[None, :] + steps[:, 0:1] + _LO)[:, None, :]
    xs1 = (base[None, :] + steps[:, 0:1] + _HI)[:, None, :]
    return np.stack([ys1 + xs1, ys0 + xs1, ys1 + xs0, ys0 + xs0])


def _sums(integral: Matrix, corners: npt.NDArray[np.intp]) -> Matrix:
    """The box means at ``corners`` (:func:`_box_corners`): one gather for every box."""
    at = integral.ravel()[corners]
    total = at[0] - at[1] - at[2] + at[3]
    return np.asarray(total.reshape(corners.shape[1], -1) / ((_HI - _LO) ** 2), np.float64)


_SHIFTS = np.array(
    [(sx, sy) for sy in range(-_SEARCH, _SEARCH + 1, 2) for sx in range(-_SEARCH, _SEARCH + 1, 2)],
    np.float64,
)
_SHIFT_CORNERS = _box_corners(_SHIFTS)  # every shift's boxes, computed once
MIN_CONTRAST = 30  # grey levels between a marker's black border and white margin


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
    turn3[:2, :2] = turned_unit(rotation)
    move = np.array([[1, 0, cell[0] + 0.5], [0, 1, cell[1] + 0.5], [0, 0, 1.0]])
    warp = fit_h @ move @ turn3 @ to_cells
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    patch = cv2.warpPerspective(
        image, warp, (size, size), flags=flags, borderMode=cv2.BORDER_REPLICATE
    )
    if patch.ndim == 3:
        grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float64)
    else:
        grey = patch.astype(np.float64)
    g_int = np.asarray(cv2.integral(grey, sdepth=cv2.CV_64F), np.float64)
    means = _sums(g_int, _SHIFT_CORNERS)
    outer = means[:, OUTER_MASK.ravel()]
    border = means[:, BORDER_MASK.ravel()]
    lows, highs = median_rows(border), median_rows(outer)
    if float((highs - lows).max()) < MIN_CONTRAST:
        return None  # the contrast at the best shift below is one of these: too low
    sq_int = np.asarray(cv2.integral(grey * grey, sdepth=cv2.CV_64F), np.float64)
    sq_means = _sums(sq_int, _SHIFT_CORNERS)
    spreads = np.sqrt(np.maximum(sq_means - means * means, 0))
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
    v = means[best].reshape(RING, RING)
    sq = sq_means[best].reshape(RING, RING)
    black, white = float(lows[best]), float(highs[best])  # the medians of v's border, margin
    contrast = white - black
    if contrast < MIN_CONTRAST:
        return None
    c = _box_means(_chroma_integral(patch), shift).reshape(RING, RING)
    spread = np.sqrt(np.maximum(sq - v * v, 0))
    clear_colour = float(median_rows(c[OUTER_MASK][None])[0]) + max(20.0, 0.25 * contrast)
    bits = np.full((RING, RING), -1, np.int8)
    bits[v < black + 0.33 * contrast] = 0
    bits[v > black + 0.67 * contrast] = 1
    plain = (spread <= 0.2 * contrast) & (c <= clear_colour)
    bits[~plain] = -1
    bits[DATA_MASK & ~_locally_clear(v, bits, plain, contrast)] = -1
    info = {"contrast": contrast, "shift_x": float(shift[0, 0]), "shift_y": float(shift[0, 1])}
    return bits, info


def _chroma_integral(patch: npt.NDArray[np.integer[Any] | np.floating[Any]]) -> Matrix:
    """The integral image of how coloured each pixel is (its widest channel gap)."""
    if patch.ndim != 3:
        return np.zeros((_INTEGRAL_SIDE, _INTEGRAL_SIDE), np.float64)
    blue, green, red = cv2.split(patch)
    most = cv2.max(cv2.max(blue, green), red)
    least = cv2.min(cv2.min(blue, green), red)
    chroma = cv2.subtract(most, least).astype(np.float64)
    return np.asarray(cv2.integral(chroma, sdepth=cv2.CV_64F), np.float64)


_YX = np.indices((RING, RING)).reshape(2, -1).T.astype(np.float64)
_NEAR = np.linalg.norm(_YX[:, None, :] - _YX[None, :, :], axis=2)
_WEIGHT = 1.0 / np.maximum(_NEAR, 0.5) ** 3  # the nearest bits of the ring count most
LOCAL_CONTRAST = 0.5  # of the marker's contrast that must show around a bit


def _locally_clear(
    v: Matrix, bits: npt.NDArray[np.int8], plain: npt.NDArray[np.bool_], contrast: float
) -> npt.NDArray[np.bool_]:
    """Bits whose reading the black and white *beside them* confirm.

    Glare adds light: black bits under it read as white against the marker's own levels,
    and the black border beside them is washed out too.  So each bit is also read against
    the levels of the border (black) and the margin (white) nearest to it, and a bit is
    clear only if both readings agree and the local contrast is at least half the
    marker's: otherwise it is unknown, never a wrong bit.  Only ever takes bits away.
    """
    weights = _WEIGHT.reshape(RING * RING, RING, RING)

    def level(ring: npt.NDArray[np.bool_]) -> Matrix:
        use = (ring & plain).ravel()
        if not use.any():
            return np.full((RING, RING), np.nan)
        w = weights.reshape(RING * RING, -1)[:, use]
        return np.asarray((w @ v.ravel()[use]) / w.sum(axis=1), np.float64).reshape(RING, RING)

    low, high = level(BORDER_MASK), level(OUTER_MASK)
    local = high - low
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (v - low) / local
        agree = np.where(bits == 1, t > 0.67, np.where(bits == 0, t < 0.33, False))
        return np.asarray(agree & (local >= LOCAL_CONTRAST * contrast), np.bool_)


@functools.cache
def all_codes(count: int) -> npt.NDArray[np.int8]:
    """Every code of the catalog in its four turns: (count, 4, 6, 6), 1 = white.

    Built once per catalog size (every photo of a catalog needs the same codes) and
    read-only, since it is shared."""
    codes = code_bits(count).astype(np.int8)
    turns = np.stack([np.stack([np.rot90(c, -t) for t in range(4)]) for c in codes])
    turns.flags.writeable = False
    return turns


GROW = 0.5  # bits added around the occluded region
_CENTRES = np.array([(x, y) for y in range(RING) for x in range(RING)], np.float32)
_CENTRES64 = _CENTRES.astype(np.float64)


def occluded(
    bits: npt.NDArray[np.int8], expected: npt.NDArray[np.int8]
) -> npt.NDArray[np.bool_] | None:
    """Where something lies over the marker, if ``expected`` is the marker there.

    Bits that disagree with the marker (its white margin, black border and ``expected``
    data bits) or are unclear are grouped: clear ones when at most one bit apart,
    unclear ones when they touch.  Each group must reach the margin or the border
    (occluders come in from outside: a token, a finger, a pen) and is widened to its
    convex hull plus half a bit (:func:`_cover`), since those shapes are convex.  A group
    wholly inside the data bits is no occluder: unclear bits there are only set aside
    (blur); one with a clear bit against the marker is blamed on an occluder only if it
    lies within a bit of one (the bright middle of a soft glare), else None (no reason to
    trust the marker).
    """
    want = np.full((RING, RING), -1, np.int8)
    want[OUTER_MASK] = 1
    want[BORDER_MASK] = 0
    want[DATA_MASK] = expected.ravel()
    off = (bits != want) | (bits < 0)
    hidden = np.zeros((RING, RING), np.bool_)
    if not off.any():
        return hidden
    # Clear bits against the marker join across one matching bit (a dark token over the
    # black border hides there); unclear bits join only when they touch, so the blur of
    # a few bits inside the marker does not reach the label's blur below it.
    ones = np.ones((3, 3), np.uint8)
    wrong = (off & (bits >= 0)).astype(np.uint8)
    link = cv2.dilate(wrong, ones) | (bits < 0).astype(np.uint8)
    count, labels = cv2.connectedComponents(link, connectivity=8)
    _, loose = cv2.connectedComponents(cv2.dilate(off.astype(np.uint8), ones), connectivity=8)
    for label in range(1, count):
        group = (labels == label) & off
        if not (group & ~DATA_MASK).any():
            if not (bits[group] >= 0).any():
                hidden |= group  # only unclear bits: they say nothing either way
                continue
            group = (loose == loose[group][0]) & off  # within a bit of an occluder?
            if not (group & ~DATA_MASK).any():
                return None  # a clear bit against the marker, and no occluder to blame
        region = _cover(group)
        made = np.unique(bits[group & (bits >= 0)])
        if made.size == 1 and np.count_nonzero(group & (bits >= 0)) >= 2:
            # An occluder that turns bits one way (glare white, a phone black) cannot
            # show the other: a clear bit of the other value under it is the marker's.
            region &= ~((bits >= 0) & (bits != made[0]))
        hidden |= region
    return hidden


_MIDDLE = np.array([(RING - 1) / 2, (RING - 1) / 2], np.float32)
_SIDES = [np.array([np.cos(a), np.sin(a)], np.float32) for a in np.arange(4) * np.pi / 4]
SPLIT_GAIN = 0.7  # two occluders are assumed only if that hides at most this share
SPLIT_FROM = 30  # bits a hull must hide (of the 100) before two occluders are tried


def _hull(group: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """The bits within ``GROW`` of the convex hull of ``group``'s bit centres.

    Called thousands of times a photo (every group of every marker tried), so each hull
    edge is looked up in :func:`_edges_from` rather than measured again.  Bit centres
    lie on a unit grid, so their distances to a hull edge are never within 0.001 of
    ``GROW``: no rounding can tell the two ways apart."""
    pts = _CENTRES64[group.ravel()]
    if len(pts) < 3:
        apart = _CENTRES64[:, None, :] - pts[None, :, :]
        gaps = np.sqrt(np.add.reduce(apart * apart, axis=2))
        return np.asarray((gaps.min(axis=1) <= GROW).reshape(RING, RING), np.bool_)
    corners = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
    starts = (corners[:, 1] * RING + corners[:, 0]).astype(np.intp).tolist()
    edges = [_edges_from(a)[:, b] for a, b in zip(starts, starts[1:] + starts[:1], strict=True)]
    table = np.stack(edges)  # (edge, beside / left / right, bit)
    near = table[:, 0].any(axis=0)
    if cv2.contourArea(corners) >= 1e-6:  # not a line of bits, which has no inside
        # Inside: on the same side of every edge (the hull is convex).
        near |= table[:, 1].all(axis=0) | table[:, 2].all(axis=0)
    return np.asarray(near.reshape(RING, RING), np.bool_)


@functools.cache
def _edges_from(a: int) -> npt.NDArray[np.bool_]:
    """For every edge from bit centre ``a`` to another ``b`` (index ``[:, b]``): which
    bits lie within ``GROW`` of the segment, and which on or left (right) of the line
    through it: (3, 100, 100), built once for each ``a`` a hull starts an edge from."""
    start = _CENTRES64[a]
    edge = _CENTRES64[:, None, :] - start  # (b, 1, 2)
    to_start = (_CENTRES64 - start)[None, :, :]  # (1, bit, 2)
    length = np.maximum(np.add.reduce(edge * edge, axis=2), 1e-12)  # (b, 1)
    along = np.clip(np.add.reduce(to_start * edge, axis=2) / length, 0.0, 1.0)
    apart = to_start - along[..., None] * edge
    cross = edge[..., 0] * to_start[..., 1] - edge[..., 1] * to_start[..., 0]
    tables = np.stack(
        [np.add.reduce(apart * apart, axis=2) <= GROW * GROW, cross >= -1e-9, cross <= 1e-9]
    )
    tables.flags.writeable = False
    return tables


_COVERS: dict[bytes, npt.NDArray[np.bool_]] = {}  # the same groups recur marker after marker


def _cover(group: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """:func:`_covering`, remembered (a copy: callers change it)."""
    key = np.packbits(group).tobytes()
    if key not in _COVERS:
        if len(_COVERS) > 50_000:
            _COVERS.clear()
        _COVERS[key] = _covering(group)
    return _COVERS[key].copy()


def _covering(group: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """What the occluders behind ``group`` may hide: its convex hull, or, when the group
    is far from convex (a pen across one side and a shadow along the next), the hulls of
    its two halves either side of a line through the marker's middle, each half reaching
    the margin or the border (each one occluder coming in from outside)."""
    whole = _hull(group)
    best, least = whole, SPLIT_GAIN * float(np.count_nonzero(whole))
    if np.count_nonzero(group) > least or np.count_nonzero(whole) < SPLIT_FROM:
        return whole  # two hulls hide at least the group itself: no split can gain enough
    side = (_CENTRES - _MIDDLE).reshape(RING, RING, 2)
    for normal in _SIDES:
        one = group & (side @ normal > 0)
        other = group & ~one
        if not (one & ~DATA_MASK).any() or not (other & ~DATA_MASK).any():
            continue
        both = _hull(one) | _hull(other)
        if np.count_nonzero(both) <= least:
            best, least = both, float(np.count_nonzero(both))
    return best


CLEAR_SHARE = 1 / 3  # of the data bits that must stay clear to verify a marker (as of the border)
BOTH_SHADES = 2  # clear data bits of each shade a verified marker must show
MAX_ERRORS = 6  # clear data bits against the marker that error correction may take
ERROR_MARGIN = 4  # clear bits by which every rival must miss more than the marker does


def could_pass(misses: npt.NDArray[np.intp], clear: int, size: int) -> npt.NDArray[np.bool_]:
    """Which markers missing ``misses`` of ``clear`` clear data bits (of ``size``) may
    still pass :func:`verify`: it sets aside at least every missed bit and keeps
    ``CLEAR_SHARE`` of them clear."""
    return np.asarray(misses <= clear - CLEAR_SHARE * size, np.bool_)


def could_stand_out(
    data: npt.NDArray[np.int8],
    codes: npt.NDArray[np.int8],
    candidates: npt.NDArray[np.intp],
    margin: int,
) -> npt.NDArray[np.bool_]:
    """Which ``candidates`` (marker ids, upright) may pass :func:`verify` against every
    marker of ``codes`` in every turn: what it keeps clear lies among the clear bits that
    match the candidate, so every other code must miss at least ``margin - 1`` of those,
    and a third of the data bits must be among them.  Cheap, all at once."""
    if candidates.size == 0:
        return np.zeros(0, np.bool_)
    flat = codes.reshape(len(codes) * 4, -1)
    clear = data >= 0
    shown = (codes[candidates, 0].reshape(len(candidates), -1) == data) & clear  # (K, 36)
    misses = (flat != data).astype(np.int32) @ shown.T.astype(np.int32)  # (all codes, K)
    misses[candidates * 4, np.arange(len(candidates))] = np.iinfo(np.int32).max
    return np.asarray(
        (misses.min(axis=0) >= margin - 1) & (shown.sum(axis=1) >= CLEAR_SHARE * data.size),
        np.bool_,
    )


def verify(
    bits: npt.NDArray[np.int8],
    expected: int,
    codes: npt.NDArray[np.int8],
    margin: int,
    among: npt.NDArray[np.intp] | None = None,
) -> bool:
    """Whether ``bits`` (with the margin, upright as expected) show marker ``expected``.

    Every bit against ``expected`` must be explained by an occluder coming in from
    outside, and what an occluder may hide is set aside (:func:`occluded`).  The rest
    must show enough clear data bits, a third of the black border, none of them against
    ``expected``, and every other marker that may lie there (``among``: indices into
    ``codes`` flattened to (marker, turn); by default every marker of the catalog in
    every turn) at least ``margin`` clear bits away; and the clear data bits must show
    both shades (a dark check of a tablecloth in its white frame is all black).  A
    rival only ``margin - 1`` bits away there is also ruled out when ArUco's error
    correction over every clear bit, set aside or not, rules it out too
    (:func:`corrected`): two tests, each against it.
    """
    hidden = occluded(bits, codes[expected, 0])
    if hidden is None:
        return False
    flat = codes.reshape(len(codes) * 4, -1)
    index = expected * 4  # the expected marker, upright
    others = np.arange(len(flat)) if among is None else among
    others = others[others != index]
    data = bits[DATA_MASK]
    clear = (data >= 0) & ~hidden[DATA_MASK]
    if np.count_nonzero(clear) < CLEAR_SHARE * clear.size:
        return False
    shown = data[clear]
    if min(np.count_nonzero(shown == 0), np.count_nonzero(shown == 1)) < BOTH_SHADES:
        return False  # a dark (or light) square in a frame shows no code, whatever hides
    if np.count_nonzero(~hidden[BORDER_MASK]) < BORDER_MASK.sum() / 3:
        return False
    if np.count_nonzero((flat[index] != data) & clear) != 0:  # pragma: no cover
        return False
    if others.size == 0:
        return True
    nearest = int(np.count_nonzero((flat[others] != data) & clear, axis=1).min())
    if nearest >= margin:
        return True
    return nearest >= margin - 1 and corrected(data, flat, index, others)


def corrected(
    data: npt.NDArray[np.int8],
    flat: npt.NDArray[np.int8],
    index: int,
    others: npt.NDArray[np.intp],
) -> bool:
    """ArUco's own error correction over the clear data bits, occluded or not.

    The occluder test throws away every bit in the hull of what an occluder touches,
    often most of a marker under a pen across it or a soft shadow; here they count.  An
    occluder may turn bits, so ``expected`` may miss up to ``MAX_ERRORS`` of them, but
    only if every rival misses ``ERROR_MARGIN`` more: for a rival really lying there, the
    occluder would have to turn that many more of its bits into ``expected``'s than it
    turned of ``expected``'s, all looking clear.  Any two codes differ in at least 11 of
    36 bits, so with no errors a rival must still miss 4 of the bits shown.
    """
    clear = data >= 0
    misses = int(np.count_nonzero((flat[index] != data) & clear))
    if misses > MAX_ERRORS:
        return False
    if others.size == 0:
        return True
    rivals = np.count_nonzero((flat[others] != data) & clear, axis=1)
    return bool(rivals.min() >= misses + ERROR_MARGIN)


Option = tuple[str, int, int]  # a card, its quarter on the cell, the card's rotation


def alternatives(
    state: CardState,
    catalog: Catalog,
    ground: Ground | None,
    cell: Cell,
    card: str,
    cards: Sequence[str],
) -> list[Option]:
    """What might show on ``cell`` instead of ``card`` (see CardState.rivals): placed cards,
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
                whole = large_dino_cells(catalog, place, cell)
                if not any(c in state.cells for c in whole - {cell}):
                    out.append((other, quarter, rotation))
    return out


def codes_as_seen(
    book: MarkerBook, options: Sequence[Option], rotation: int
) -> npt.NDArray[np.intp]:
    """``options`` as indices into the (marker, turn) codes, for bits sampled upright for
    a card turned ``rotation``."""
    return np.array(
        sorted({book.marker_id(c, q) * 4 + (r - rotation) // 90 % 4 for c, q, r in options}),
        np.intp,
    )


def read_hidden_card(
    image: Image,
    fit: GridFit,
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
        data = bits[DATA_MASK]
        clear = data >= 0
        misses = np.count_nonzero((codes[marker_id, 0].ravel() != data) & clear)
        if not could_pass(np.array([misses]), int(np.count_nonzero(clear)), data.size)[0]:
            continue
        among = codes_as_seen(book, [o for o in everything if o != option], rotation)
        if verify(bits, marker_id, codes, margin, among):
            passed.append(option)
    return passed[0] if len(passed) == 1 else None


def predicted_corners(fit: GridFit, cell: Cell, rotation: int) -> Matrix:
    return apply_homography(fit.h, grid_points(cell, rotation, fit.side)[1:])
