"""The coarse search on a busy cloth (issue 15, part 4): the square outlines of a gingham
cloth are set aside before ArUco decodes them, and nothing ArUco could read is lost.

No test here is timed (the times are ``companion bench scan``'s): each checks that the
search with the cloth set aside finds the very markers ArUco finds in the whole photo
(with the same corners), and that a gingham photo is still read
right.
"""

from __future__ import annotations

import functools

import pytest

cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from companion.scan import grid  # noqa: E402
from companion.scan.bench import compare  # noqa: E402
from companion.scan.grid import Image, Matrix, ReadOptions, gray_of, search  # noqa: E402
from companion.scan.land import build  # noqa: E402
from companion.scan.markers import MarkerBook, marker_image  # noqa: E402
from companion.scan.reader import read_photo  # noqa: E402
from companion.scan.synth import Photo, Style, random_photo  # noqa: E402

SIZE = (1600, 1200)
GINGHAM = Style(cloths=("gingham",), occluders=(0,), blur_max=0.8, margin_cells=1.0)


Found = dict[int, Matrix]


def _markers(photo: Photo, detect_px: int = 2000) -> tuple[Found, bool]:
    gray = gray_of(photo.image)
    found, outlines = search(gray, MarkerBook.of(photo.catalog), detect_px)
    assert len({m.marker_id for m in found}) == len(found)
    return {m.marker_id: m.corners for m in found}, outlines is not None


def _same(one: Found, other: Found) -> bool:
    """The same markers with the same corners."""
    return one.keys() == other.keys() and all(np.array_equal(one[k], other[k]) for k in one)


def _read_markers(photo: Photo, options: ReadOptions) -> list[tuple[int, str]]:
    reading = read_photo(photo.image, photo.catalog, options)
    return sorted((m.marker_id, m.how) for m in reading.markers)


@functools.cache
def _gingham(seed: int) -> Photo:
    return random_photo(seed, SIZE, style=GINGHAM)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_gingham_cloth_is_set_aside_and_the_same_markers_found(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    photo = _gingham(seed)
    filtered, busy = _markers(photo)
    assert busy  # the cloth makes hundreds of square outlines
    monkeypatch.setattr(grid, "BUSY_OUTLINES", 10**9)  # ArUco over the whole photo
    whole, busy_now = _markers(photo)
    assert not busy_now
    assert _same(filtered, whole)
    assert len(filtered) >= 8


def test_a_gingham_photo_is_read_whole_and_right() -> None:
    photo = _gingham(1)
    reading = read_photo(photo.image, photo.catalog)
    land = build(photo.catalog, reading.cells, reading.cards, reading.unread).land
    result = compare(photo, reading, land)
    assert (result.right, result.invented, result.missed) == (result.visible, 0, 0)
    assert result.land_match is True


def test_small_markers_are_read_at_full_resolution_where_the_copy_saw_outlines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A copy so small that its markers cannot be decoded: the search at full
    resolution, led by the copy's outlines, finds what a search of the whole land does."""
    photo = _gingham(1)
    options = ReadOptions(detect_px=800, second_look=False, verify=False, outline=False)
    on_the_copy, busy = _markers(photo, 800)
    assert busy
    led = _read_markers(photo, options)
    assert len(led) > len(on_the_copy) + 10  # most were found at full resolution
    monkeypatch.setattr(grid, "BUSY_OUTLINES", 10**9)
    assert led == _read_markers(photo, options)


def test_a_plain_table_is_not_busy() -> None:
    plain = Style(occluders=(0,), margin_cells=1.0)
    _, busy = _markers(random_photo(3, SIZE, style=plain))
    assert not busy


def _on_cloth(patch: Image, side: int, tone: int) -> tuple[Image, Matrix]:
    """``patch`` (side x side) on a mid-grey table inside a white margin a bit wide;
    the outline of its black square."""
    cell = side / grid.BITS
    pad = int(round(cell)) + 12
    image = np.full((side + 2 * pad, side + 2 * pad), tone, np.uint8)
    margin = int(round(cell))
    image[pad - margin : pad + side + margin, pad - margin : pad + side + margin] = 235
    image[pad : pad + side, pad : pad + side] = patch
    quad = np.array(
        [
            [pad, pad],
            [pad + side - 1, pad],
            [pad + side - 1, pad + side - 1],
            [pad, pad + side - 1],
        ],
        np.float64,
    )
    return image, quad[None]


@settings(max_examples=60, deadline=None)
@given(
    marker_id=st.integers(0, 143),
    side=st.integers(20, 64),
    turns=st.integers(0, 3),
    tone=st.integers(60, 200),
    blur=st.floats(0.0, 1.0),
)
def test_every_marker_looks_like_one(
    marker_id: int, side: int, turns: int, tone: int, blur: float
) -> None:
    """At any size the copy shows (20 pixels a side and up), on any table, softened as
    a lens and a reduced copy soften it."""
    patch = np.rot90(marker_image(marker_id, side), turns)
    image, quad = _on_cloth(patch, side, tone)
    if blur > 0.1:
        image = cv2.GaussianBlur(image, (0, 0), blur)
    assert grid._marker_like(image, quad).tolist() == [True]


@settings(max_examples=40, deadline=None)
@given(side=st.integers(20, 64), dark=st.integers(0, 160), tone=st.integers(60, 235))
def test_a_flat_check_does_not_look_like_a_marker(side: int, dark: int, tone: int) -> None:
    patch = np.full((side, side), dark, np.uint8)
    image, quad = _on_cloth(patch, side, tone)
    assert grid._marker_like(image, quad).tolist() == [False]


def test_outlines_outside_a_part_of_the_photo_leave_it_flat() -> None:
    """At full resolution the part searched is the land's: the copy's outlines beyond it
    (negative or past its size) open nothing of it."""
    part = np.random.default_rng(5).integers(0, 255, (300, 400), dtype=np.uint8)
    marker = marker_image(7, 40)
    image, quad = _on_cloth(marker, 40, 120)
    left = quad - [100.0, 0.0]  # just off the left edge: a slice to -10 would open a strip
    below = quad + [0.0, 900.0]
    flat = grid._only_near(part, np.concatenate([left, below]))
    assert (flat == 128).all()
    part[: image.shape[0], : image.shape[1]] = image
    opened = grid._only_near(part, np.concatenate([left, quad, below]))
    assert not (opened == 128).all()
    assert (opened[image.shape[0] + 40 :, :] == 128).all()
