"""The fast paths of verification give what the plain computation gives.

A hull's bits come from tables of edges (:func:`_edges_from`), the bits' middles from
one gather over every shift (:func:`_sums`), colour from channel maxima and minima, and
codes from a cache: each is checked here against the plain way of computing it.
"""

from __future__ import annotations

from typing import Any

import pytest

cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")

from conftest import examples  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from companion.scan.markers import code_bits  # noqa: E402
from companion.scan.verify import (  # noqa: E402
    _BIT_PX,
    _HI,
    _LO,
    _SHIFT_CORNERS,
    _SHIFTS,
    _SPAN,
    GROW,
    RING,
    _chroma_integral,
    _hull,
    _sums,
    all_codes,
)


def _plain_hull(group: Any) -> Any:
    """Each bit centre measured against the hull: inside it, or within GROW of an edge."""
    pts = [(x, y) for y in range(RING) for x in range(RING) if group[y, x]]
    corners = cv2.convexHull(np.array(pts, np.float32)).reshape(-1, 2).astype(float)
    flat = len(pts) < 3 or cv2.contourArea(corners.astype(np.float32)) < 1e-6
    out = np.zeros((RING, RING), bool)
    for y in range(RING):
        for x in range(RING):
            gaps, sides = [], []
            for i, (ax, ay) in enumerate(corners):
                bx, by = corners[(i + 1) % len(corners)]
                ex, ey = bx - ax, by - ay
                along = ((x - ax) * ex + (y - ay) * ey) / max(ex * ex + ey * ey, 1e-12)
                t = min(1.0, max(0.0, along))
                gaps.append(((x - ax - t * ex) ** 2 + (y - ay - t * ey) ** 2) ** 0.5)
                sides.append(ex * (y - ay) - ey * (x - ax))
            inside = all(s >= 0 for s in sides) or all(s <= 0 for s in sides)
            out[y, x] = (inside and not flat) or min(gaps) <= GROW
    return out


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.booleans(), min_size=RING * RING, max_size=RING * RING))
def test_a_hull_from_edge_tables_is_the_measured_hull(flags: list[bool]) -> None:
    group = np.array(flags, bool).reshape(RING, RING)
    if np.count_nonzero(group) < 3:
        group[0, :3] = True  # a line of three bits: flat, no inside
    assert np.array_equal(_hull(group), _plain_hull(group))


def test_every_shift_s_bit_middles_are_the_pixels_means() -> None:
    rng = np.random.default_rng(5)
    size = _SPAN * _BIT_PX
    grey = rng.integers(0, 256, (size, size)).astype(np.float64)
    means = _sums(np.asarray(cv2.integral(grey, sdepth=cv2.CV_64F)), _SHIFT_CORNERS)
    start = (_SPAN - RING) * _BIT_PX // 2
    for s in range(0, len(_SHIFTS), 17):
        sx, sy = (int(v) for v in _SHIFTS[s])
        for by in range(RING):
            for bx in range(RING):
                y0 = start + by * _BIT_PX + sy + _LO
                x0 = start + bx * _BIT_PX + sx + _LO
                want = grey[y0 : y0 + _HI - _LO, x0 : x0 + _HI - _LO].mean()
                assert means[s, by * RING + bx] == pytest.approx(want, abs=1e-9)


def test_colour_is_the_widest_channel_gap() -> None:
    rng = np.random.default_rng(6)
    size = _SPAN * _BIT_PX
    patch = rng.integers(0, 256, (size, size, 3)).astype(np.uint8)
    gap = (patch.max(axis=2) - patch.min(axis=2)).astype(np.float64)
    want = cv2.integral(gap, sdepth=cv2.CV_64F)
    assert np.array_equal(_chroma_integral(patch), want)
    grey = patch[:, :, 0]
    assert not _chroma_integral(grey).any()  # grey has no colour


def test_codes_are_built_once_per_catalog_size_and_shared_read_only() -> None:
    codes = all_codes(12)
    assert all_codes(12) is codes
    assert not codes.flags.writeable
    plain = code_bits(12).astype(np.int8)
    for turn in range(4):
        assert np.array_equal(codes[:, turn], np.stack([np.rot90(c, -turn) for c in plain]))
