"""Markers in a rendered table picture: the sizes a table gives, turned, blurred, dimmed."""

from __future__ import annotations

import sys
from typing import Any

import pytest

cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")

from camera_pictures import (  # noqa: E402
    HEIGHT,
    WIDTH,
    CardOnTable,
    dim,
    motion_blur,
    picture,
    spread,
)

from companion.camera.deck import MARKER_RANGES, StickerDeck  # noqa: E402
from companion.camera.detect import CameraUnavailable, Detector, require_opencv  # noqa: E402
from companion.camera.model import Frame  # noqa: E402

ANGLES = (0.0, 23.0, 45.0, 90.0, 138.0, 200.0, 271.0, 330.0)


def frame(image: Any, index: int = 0) -> Frame:
    return Frame(index, 1_000 * index, image)


def table_of(markers: list[int], px_per_mm: float, angles: tuple[float, ...] = ANGLES) -> Any:
    centres = spread(len(markers))
    return picture(
        [
            CardOnTable(m, c, px_per_mm, angles[i % len(angles)])
            for i, (m, c) in enumerate(zip(markers, centres, strict=True))
        ]
    )


@pytest.mark.parametrize("px_per_mm", [1.0, 1.2, 1.4])
def test_every_card_on_the_table_is_found_at_the_sizes_a_table_gives(px_per_mm: float) -> None:
    """1.0 px/mm: 24 mm markers at 100 cm under the standard lens (3.4 px a cell); 1.4: 70 cm."""
    markers = [0, 7, 13, 22, 31, 40, 45, 49]
    seen = Detector().see(frame(table_of(markers, px_per_mm), 3))
    assert [s.marker for s in seen.sightings] == markers
    assert (seen.index, seen.t_ns, seen.size) == (3, 3_000, (WIDTH, HEIGHT))
    for s in seen.sightings:
        assert 0.9 * 24 * px_per_mm < s.side_px < 1.1 * 24 * px_per_mm


def test_the_corners_lie_on_the_pasted_marker_whatever_its_turn() -> None:
    centres = spread(8)
    image = table_of(list(range(8)), 1.2)
    for s in Detector().see(frame(image)).sightings:
        cx, cy = centres[s.marker]
        x, y = s.centre
        # the sticker sits in the card's corner, within a card's half-diagonal of its centre
        assert ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 < 0.5 * (63**2 + 88**2) ** 0.5 * 1.2


@pytest.mark.parametrize(
    ("how", "spoil"),
    [
        ("motion blur of 5 px (a card settling)", lambda im: motion_blur(im, 5, 30.0)),
        ("focus blur, sigma 1.2 px", lambda im: cv2.GaussianBlur(im, (0, 0), 1.2)),
        ("a dim room, 30% of the light, with noise", lambda im: dim(im, 0.3)),
        ("dim and blurred", lambda im: dim(motion_blur(im, 4, 70.0), 0.45)),
    ],
)
def test_markers_survive_blur_and_dim_light(how: str, spoil: Any) -> None:
    markers = [50, 55, 60, 66, 71, 80, 85, 91]
    seen = Detector().see(frame(spoil(table_of(markers, 1.2))))
    assert [s.marker for s in seen.sightings] == markers, how


def test_a_camera_tilted_off_straight_down_still_reads_every_card() -> None:
    """A camera on a shelf, looking down at the table at a slant: the far side shrinks."""
    markers = [1, 9, 17, 25, 33, 41, 47, 48]
    image = table_of(markers, 1.4)
    w, h = WIDTH, HEIGHT
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    slanted = np.float32([[w * 0.12, h * 0.08], [w * 0.88, h * 0.08], [w, h], [0, h]])
    warp = cv2.getPerspectiveTransform(corners, slanted)
    tilted = cv2.warpPerspective(image, warp, (w, h), borderValue=(60, 110, 160))
    assert [s.marker for s in Detector().see(frame(tilted)).sightings] == markers


def test_a_smear_too_long_to_read_gives_nothing_rather_than_a_wrong_card() -> None:
    markers = list(range(20, 28))
    image = motion_blur(table_of(markers, 1.0), 11, 0.0)
    found = [s.marker for s in Detector().see(frame(image)).sightings]
    assert set(found) <= set(markers)


def test_a_marker_of_the_other_game_is_not_returned_when_restricted() -> None:
    image = table_of([3, 52, 17, 88], 1.2)
    chomp = Detector(StickerDeck.default("chomp").markers)
    assert [s.marker for s in chomp.see(frame(image)).sightings] == [3, 17]
    everything = Detector()
    assert [s.marker for s in everything.see(frame(image)).sightings] == [3, 17, 52, 88]
    getbit = Detector(MARKER_RANGES["getbit"])
    assert [s.marker for s in getbit.see(frame(image)).sightings] == [52, 88]


def test_an_empty_table_and_a_grey_frame_give_no_sightings() -> None:
    image = table_of([], 1.0)
    assert Detector().see(frame(image)).sightings == ()
    grey = cv2.cvtColor(table_of([9], 1.2), cv2.COLOR_BGR2GRAY)
    assert [s.marker for s in Detector().see(frame(grey)).sightings] == [9]


def test_one_id_on_two_cards_is_seen_twice_never_merged() -> None:
    centres = spread(2)
    image = picture([CardOnTable(12, centres[0], 1.2), CardOnTable(12, centres[1], 1.2, 40.0)])
    seen = Detector().see(frame(image))
    assert [s.marker for s in seen.sightings] == [12, 12]


def test_without_opencv_the_detector_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cv2", None)
    with pytest.raises(CameraUnavailable, match=r"pip install -e '\.\[scan\]'"):
        require_opencv()
    with pytest.raises(CameraUnavailable):
        Detector()
