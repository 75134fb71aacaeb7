"""Reading what is partly visible: a marker's bits sampled where the grid puts it,
decided against every marker that may lie there.

On rendered photos, a marker under a token over a third of it, with glare at its edge,
under a soft shadow or out of focus is read right, and no other marker of the catalog,
in any turn, passes in its place.  On bits, a marker covered so that another marker
remains plausible is asked for: neither is read.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")

from conftest import examples  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from companion.errors import InputError  # noqa: E402
from companion.games.dino.catalog import Placement  # noqa: E402
from companion.scan.bench import compare  # noqa: E402
from companion.scan.markers import MarkerBook  # noqa: E402
from companion.scan.reader import read_photo  # noqa: E402
from companion.scan.synth import (  # noqa: E402
    MARKER_MM,
    QUARTER_MM,
    Photo,
    Style,
    random_catalog,
    render,
)
from companion.scan.verify import (  # noqa: E402
    BORDER_MASK,
    DATA_MASK,
    OUTER_MASK,
    RING,
    all_codes,
    occluded,
    sample_bits,
    verify,
)

SMALL = (1600, 1200)
CLEAN = Style(occluders=(0,), blur_max=0.6, noise_max=3.0, tilt_max=15.0)
SIDE = MARKER_MM / QUARTER_MM  # the marker's side, in quarters
CARDS = [Placement("c01", 0, 0, 0), Placement("c02", 2, 0, 90), Placement("c03", 0, 2, 270)]
CELL = (1, 1)  # quarter B2 of c01


def _photo(seed: int = 11) -> Photo:
    for tries in range(50):
        rng = random.Random(seed + tries)
        try:
            return render(rng, random_catalog(rng), CARDS, SMALL, CLEAN)
        except InputError:
            continue
    raise AssertionError("no catalog fits these placements")


PHOTO = _photo()


def _at(photo: Photo, dx: float, dy: float) -> Any:
    """Image point of a spot in the grid, relative to the middle of CELL's marker."""
    point = np.array([[[CELL[0] + 0.5 + dx, CELL[1] + 0.5 + dy]]], np.float64)
    return cv2.perspectiveTransform(point, photo.grid_to_image).reshape(2)


def _field(photo: Photo) -> tuple[Any, Any]:
    """Grid coordinates (in marker sides, from the marker's middle) of every pixel."""
    height, width = photo.image.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    inverse = np.linalg.inv(photo.grid_to_image)
    pts = cv2.perspectiveTransform(np.stack([xs, ys], axis=-1), inverse)
    return (pts[..., 0] - CELL[0] - 0.5) / SIDE, (pts[..., 1] - CELL[1] - 0.5) / SIDE


U, V = _field(PHOTO)


def _token(photo: Photo) -> tuple[Any, float]:
    """A dark grey token from the right, over more than a third of the marker."""
    inside = (np.abs(U) < 0.5) & (np.abs(V) < 0.5)
    disc = (U - 0.55) ** 2 + (V - 0.1) ** 2 < 0.5**2
    image = photo.image.copy()
    image[disc] = (60, 70, 80)
    return image, float(np.count_nonzero(disc & inside) / np.count_nonzero(inside))


def _glare(photo: Photo) -> Any:
    """A soft bright patch centred on the marker's right edge, saturating there."""
    light = 230.0 * np.exp(-((U - 0.5) ** 2 + V**2) / (2 * 0.22**2))
    return np.clip(photo.image + light[..., None], 0, 255).astype(np.uint8)


def _shadow(photo: Photo) -> Any:
    """A soft shadow over the marker's left part, from 45% light to none."""
    ramp = np.clip((U + 0.1) / 0.5, 0, 1)
    gain = 0.45 + 0.55 * ramp * ramp * (3 - 2 * ramp)
    return (photo.image * gain[..., None]).astype(np.uint8)


def _defocus(photo: Photo) -> Any:
    """The marker out of focus (a Gaussian of a third of a bit)."""
    centre = _at(photo, 0, 0)
    side = np.linalg.norm(_at(photo, SIDE / 2, 0) - centre) * 2
    sigma = side / 8 / 3
    return cv2.GaussianBlur(photo.image, (0, 0), sigma)


def _passing(image: Any, photo: Photo) -> list[tuple[int, int]]:
    """Every (marker, turn) of the catalog that verify() accepts at CELL, each against
    all the others (as a cell beside the land is read)."""
    book = MarkerBook.of(photo.catalog)
    codes = all_codes(book.count)
    passed = []
    for rotation in (0, 90, 180, 270):
        sampled = sample_bits(image, photo.grid_to_image, SIDE, CELL, rotation)
        if sampled is None:
            continue
        for marker in range(book.count):
            if verify(sampled[0], marker, codes, 3):
                passed.append((marker, rotation))
    return passed


def _truth(photo: Photo) -> tuple[int, int]:
    truth = photo.cells[CELL]
    return MarkerBook.of(photo.catalog).marker_id(truth.card, truth.quarter), truth.rotation


def test_a_token_over_a_third_of_a_marker_leaves_it_readable() -> None:
    image, covered = _token(PHOTO)
    assert covered > 0.3
    assert _passing(image, PHOTO) == [_truth(PHOTO)]
    photo = replace(PHOTO, image=image)
    reading = read_photo(image, photo.catalog)
    result = compare(photo, reading)
    assert (result.right, result.invented, result.missed) == (result.visible, 0, 0)


@pytest.mark.parametrize("spoil", [_glare, _shadow, _defocus])
def test_glare_shadow_and_defocus_at_a_marker_read_right(spoil: Any) -> None:
    image = spoil(PHOTO)
    assert _passing(image, PHOTO) == [_truth(PHOTO)]


def test_glare_makes_bits_unknown_not_wrong() -> None:
    """Under glare the washed black bits read unknown: none reads against the marker."""
    marker, rotation = _truth(PHOTO)
    codes = all_codes(MarkerBook.of(PHOTO.catalog).count)
    sampled = sample_bits(_glare(PHOTO), PHOTO.grid_to_image, SIDE, CELL, rotation)
    assert sampled is not None
    data = sampled[0][DATA_MASK]
    assert np.count_nonzero(data < 0) > 0
    assert np.count_nonzero((data >= 0) & (data != codes[marker, 0].ravel())) == 0


# --------------------------------------------------------------------------------------
# Two markers both plausible: asked, never read as either
# --------------------------------------------------------------------------------------

CODES = all_codes(144)


def _sticker(code: Any) -> Any:
    bits = np.full((RING, RING), -1, np.int8)
    bits[OUTER_MASK] = 1
    bits[BORDER_MASK] = 0
    bits[DATA_MASK] = code.ravel()
    return bits


def _occluder(angle: float, depth: float, disc: bool) -> Any:
    """A convex occluder coming in from outside the sticker: a half-plane, or a disc
    whose centre lies beyond the margin."""
    ys, xs = np.mgrid[0:RING, 0:RING].astype(np.float64) - (RING - 1) / 2
    normal = np.array([np.cos(angle), np.sin(angle)])
    if disc:
        centre = normal * (RING / 2 + 1.0)
        return np.hypot(xs - centre[0], ys - centre[1]) < 1.0 + 2.0 * (RING / 2 - depth)
    return xs * normal[0] + ys * normal[1] > depth


def _in_dictionary(first: Any, second: Any) -> Any:
    """A two-marker dictionary, in the shape all_codes() gives (marker, turn, 6, 6)."""
    return np.stack(
        [np.stack([np.rot90(c, -t) for t in range(4)]) for c in (first, second)]
    ).astype(np.int8)


@settings(max_examples=examples(300), deadline=None)
@given(
    marker=st.integers(0, 143),
    angle=st.floats(0, 2 * np.pi),
    depth=st.floats(-1.5, 3.0),
    disc=st.booleans(),
    paint=st.sampled_from([0, 1, -1]),
    flips=st.integers(1, 2**36 - 1),
)
def test_a_marker_covered_so_that_two_remain_plausible_is_asked(
    marker: int, angle: float, depth: float, disc: bool, paint: int, flips: int
) -> None:
    """Truth A under a convex occluder (its edge unclear, its inside one shade); B is A
    with some bits changed where the occluder lies, so what shows fits both.  Neither
    A nor B is read."""
    region = _occluder(angle, depth, disc)
    inside = region[DATA_MASK].reshape(6, 6)
    change = np.array([(flips >> i) & 1 for i in range(36)], bool).reshape(6, 6) & inside
    if not change.any():
        return
    truth = CODES[marker, 0]
    other = np.where(change, 1 - truth, truth).astype(np.int8)
    bits = _sticker(truth)
    shrunk = cv2.erode(region.astype(np.uint8), np.ones((3, 3), np.uint8), borderValue=1)
    bits[region] = paint
    bits[region & ~shrunk.astype(bool)] = -1  # an edge crossing a bit: unclear
    codes = _in_dictionary(truth, other)
    assert not verify(bits, 1, codes, 3), "read the wrong marker"
    assert not verify(bits, 0, codes, 3), "read one of two plausible markers"


def test_a_fingertip_over_a_corner_costs_no_bit_outside_it() -> None:
    """A small occluder at the margin hides only the bits around it."""
    bits = _sticker(CODES[7, 0])
    bits[0:2, 0:2] = -1  # a fingertip over 4% of the sticker, at its corner
    hidden = occluded(bits, CODES[7, 0])
    assert hidden is not None
    assert np.count_nonzero(hidden[DATA_MASK]) <= 1
    assert verify(bits, 7, CODES, 3)


def test_a_card_showing_one_quarter_beside_a_phone_is_read_there() -> None:
    """Card c02 lies beside c01; a phone covers the three quarters next to the land, so
    its one visible quarter, partly covered, is two cells from the land.  It is read, placing
    c02 (its hidden cells asked or inferred), and nothing is invented or dropped."""
    for tries in range(50):
        rng = random.Random(31 + tries)
        try:
            photo = render(
                rng,
                random_catalog(rng),
                [Placement("c01", 0, 0, 0), Placement("c02", 2, 0, 0)],
                SMALL,
                replace(CLEAN, margin_cells=1.5),
            )
            break
        except InputError:
            continue
    else:
        raise AssertionError("no catalog fits these placements")
    # The phone's edge runs over a third of the visible sticker too: ArUco misses it.
    phone = np.array([[[2.0, -0.3], [4.3, -0.3], [4.3, 1.0], [3.45, 1.0], [3.45, 2.3], [2.0, 2.3]]])
    corners = cv2.perspectiveTransform(phone, photo.grid_to_image).astype(np.int32)
    image = photo.image.copy()
    cv2.fillPoly(image, corners, (35, 30, 30), cv2.LINE_AA)
    covered = replace(photo, image=image)
    reading = read_photo(image, covered.catalog)
    result = compare(covered, reading)
    assert (result.invented, result.missed) == (0, 0)
    from companion.scan.bench import _align, _turn_cell

    k, (dx, dy) = _align(reading, covered.cells)
    x, y = _turn_cell((3, 1), k)
    assert reading.cells.get((x + dx, y + dy)) == ("c02", 3)
    assert "c02" in reading.cards


# A gingham's dark check in its white frame, as sampled on a cell beside a land (seed
# 200019): the border's top left reads white, two corners unclear.
DARK_CHECK = [
    "##########",
    "####??...#",
    "#..?.....#",
    "#........#",
    "#........#",
    "#........#",
    "#........#",
    "#........#",
    "#.....???#",
    "##########",
]


def test_a_dark_square_in_a_white_frame_is_no_marker() -> None:
    bits = np.array([[{"#": 1, ".": 0, "?": -1}[c] for c in row] for row in DARK_CHECK], np.int8)
    for turn in range(4):
        turned = np.ascontiguousarray(np.rot90(bits, turn))
        assert not any(verify(turned, marker, CODES, 3) for marker in range(len(CODES)))


def test_the_cheap_bound_takes_no_candidates() -> None:
    from companion.scan.verify import could_stand_out

    data = _sticker(CODES[3, 0])[DATA_MASK]
    assert could_stand_out(data, CODES, np.zeros(0, np.intp), 3).size == 0
    assert could_stand_out(data, CODES, np.array([3], np.intp), 3).tolist() == [True]
