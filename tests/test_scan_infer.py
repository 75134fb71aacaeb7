"""Reading a cell whose marker is hidden, by ruling out every card that could lie there.

A placed card's cell with its marker wholly under a token is read as that card's quarter
only when no other card can lie on top there: not a card seen elsewhere (the stacking),
not one that would cut its large dino (D6), and not a card no marker shows, because such
a card would have to show on a bare stretch of table.  When a hidden card is possible,
the cell is asked for; a card that really shows only under the token is never mistaken
for the card below.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")

from companion.errors import InputError  # noqa: E402
from companion.games.dino.catalog import Catalog, Placement  # noqa: E402
from companion.games.dino.formats import catalog_from_dict  # noqa: E402
from companion.scan.bench import compare  # noqa: E402
from companion.scan.cards import CardState, Ground  # noqa: E402
from companion.scan.grid import ReadOptions  # noqa: E402
from companion.scan.land import CardPlace, Trouble  # noqa: E402
from companion.scan.reader import read_photo  # noqa: E402
from companion.scan.synth import Image, Photo, Style, random_catalog, render  # noqa: E402

SMALL = (1600, 1200)
CLEAN = Style(occluders=(0,), blur_max=0.8, noise_max=4.0, tilt_max=20.0)


# Any: cv2 and numpy come from importorskip here, so what they return is untyped.
def _centre(photo: Photo, cell: tuple[int, int], dx: float = 0.5, dy: float = 0.5) -> Any:
    point = np.array([[[cell[0] + dx, cell[1] + dy]]], np.float64)
    return cv2.perspectiveTransform(point, photo.grid_to_image).reshape(2)


def token(
    photo: Photo,
    cell: tuple[int, int],
    colour: tuple[int, int, int],
    radius: float = 0.3,
    off: float = 0.0,
) -> Image:
    """A round token of ``radius`` quarters over ``cell``'s marker, its centre ``off``
    quarters right of the marker's middle (in the grid's frame)."""
    centre = _centre(photo, cell, 0.5 + off)
    edge = _centre(photo, cell, 0.5 + off + radius)
    r = int(np.linalg.norm(edge - centre))
    image = photo.image.copy()
    cv2.circle(image, (int(centre[0]), int(centre[1])), r, colour, -1, cv2.LINE_AA)
    return image


def _photo(placements: list[Placement], seed: int = 5) -> Photo:
    """The first catalog (from ``seed`` on) under which the placements are legal (D6)."""
    for tries in range(50):
        rng = random.Random(seed + tries)
        catalog = random_catalog(rng)
        try:
            return render(rng, catalog, placements, SMALL, CLEAN)
        except InputError:
            continue
    raise AssertionError("no catalog fits these placements")


def _truth_in_reading(photo: Photo, reading, cell):  # type: ignore[no-untyped-def]
    from companion.scan.bench import _align, _turn_cell

    k, (dx, dy) = _align(reading, photo.cells)
    x, y = _turn_cell(cell, k)
    return (x + dx, y + dy)


def test_a_hidden_marker_is_inferred_when_no_other_card_can_lie_there() -> None:
    photo = _photo([Placement("c01", 0, 0, 0), Placement("c02", 2, 0, 90)])
    image = token(photo, (0, 0), (40, 40, 40))
    covered = replace(photo, image=image)
    reading = read_photo(covered.image, covered.catalog)
    cell = _truth_in_reading(covered, reading, (0, 0))
    truth = covered.cells[(0, 0)]
    assert reading.cells.get(cell) == (truth.card, truth.quarter)
    assert reading.how(cell) == "inferred"
    result = compare(covered, reading)
    assert (result.right, result.invented, result.unread) == (result.visible, 0, 0)


def test_inference_can_be_turned_off() -> None:
    photo = _photo([Placement("c01", 0, 0, 0), Placement("c02", 2, 0, 90)])
    covered = replace(photo, image=token(photo, (0, 0), (40, 40, 40)))
    reading = read_photo(covered.image, covered.catalog, ReadOptions(infer=False))
    cell = _truth_in_reading(covered, reading, (0, 0))
    assert reading.unread[cell].trouble is Trouble.NOT_SEEN


# c05 lies over c01 at one cell only, then three cards cover the rest of c05: the only
# quarter of c05 in sight is the one under the token.
HIDDEN = [
    Placement("c01", 1, 1, 0),
    Placement("c05", 0, 0, 0),
    Placement("c02", -1, -1, 0),
    Placement("c03", 1, -1, 0),
    Placement("c04", -1, 1, 0),
]


def test_a_card_showing_only_under_a_token_is_not_taken_for_the_card_below() -> None:
    photo = _photo(HIDDEN)
    truth = photo.cells[(1, 1)]
    assert truth.card == "c05"  # what shows there, under the token
    covered = replace(photo, image=token(photo, (1, 1), (40, 40, 40)))
    reading = read_photo(covered.image, covered.catalog)
    cell = _truth_in_reading(covered, reading, (1, 1))
    assert cell not in reading.cells
    assert reading.unread[cell].trouble is Trouble.NOT_SEEN
    assert compare(covered, reading).invented == 0


def test_a_card_showing_only_under_part_of_a_token_is_read_from_what_shows() -> None:
    """A third of c05's one visible marker is under the token: the rest tells it from
    c01's quarter and from every card that could lie there, so c05 is read (and placed)."""
    photo = _photo(HIDDEN)
    covered = replace(photo, image=token(photo, (1, 1), (40, 40, 40), radius=0.12, off=0.17))
    reading = read_photo(covered.image, covered.catalog)
    cell = _truth_in_reading(covered, reading, (1, 1))
    assert reading.cells.get(cell) == ("c05", photo.cells[(1, 1)].quarter)
    assert reading.how(cell) == "verified" and "c05" in reading.cards
    result = compare(covered, reading)
    assert (result.right, result.invented) == (result.visible, 0)


def test_the_same_land_with_c05_visible_reads_it() -> None:
    """The control for the test above: without the token, c05 is seen where it shows."""
    photo = _photo(HIDDEN)
    reading = read_photo(photo.image, photo.catalog)
    result = compare(photo, reading)
    assert (result.right, result.invented) == (result.visible, 0)


def _catalog() -> Catalog:
    return catalog_from_dict(
        {
            "cards": {
                "big": {"land": ["lh = lh", "P    N"]},
                "two": {"land": ["sc   M", "sh2  P"]},
            }
        }
    )


def test_d6_a_hidden_card_may_not_cut_a_large_dino_in_half() -> None:
    """Cell (0, 0) shows half of big's large herbivore, (1, 0) the other half: a card on
    top of (0, 0) alone would cut it, and one over both would hide (1, 0), where big shows."""
    place = CardPlace("big", 0, 0, 0)
    state = CardState(
        {"big": place}, {(1, 0): ("big", 1), (0, 1): ("big", 2)}, {}, {}, {"big": set()}
    )
    placed, spots = state.rivals((0, 0), "big", _catalog())
    assert (placed, spots) == ([], [])


def test_a_hidden_card_may_lie_where_nothing_rules_it_out() -> None:
    place = CardPlace("two", 0, 0, 0)
    state = CardState({"two": place}, {(1, 1): ("two", 3)}, {}, {}, {"two": set()})
    _, spots = state.rivals((0, 0), "two", _catalog())
    # Every 2 x 2 place over (0, 0) but the card's own, which takes in (1, 1).
    assert sorted(spots) == [(-1, -1), (-1, 0), (0, -1)]


def test_bare_table_rules_out_a_hidden_card_but_a_token_over_a_sticker_does_not() -> None:
    photo = _photo([Placement("c01", 0, 0, 0), Placement("c02", 2, 0, 90)])
    land = {
        c
        for pl in photo.placements
        for c in CardPlace(pl.card, pl.x, pl.y, pl.rotation).footprint()
    }
    ground = Ground(photo.image, photo.grid_to_image, land)
    assert ground.bare((-1, 0)) and ground.bare((-1, -1))
    assert not ground.bare((0, 0))  # on the land: never bare
    # The card's cell as if it were not known: its art shows around a token the colour
    # of the table itself, laid over its sticker.
    middle = _centre(photo, (-2, -1))
    x, y = int(middle[0]), int(middle[1])
    table = np.median(photo.image[y - 10 : y + 10, x - 10 : x + 10].reshape(-1, 3), axis=0)
    hidden = token(photo, (0, 0), (int(table[0]), int(table[1]), int(table[2])), radius=0.3)
    assert not Ground(hidden, photo.grid_to_image, land - {(0, 0)}).bare((0, 0))
    # A finger over bare table is not bare table either: a card may be under it.
    fingered = token(photo, (-1, 0), (120, 150, 200), radius=0.3)
    assert not Ground(fingered, photo.grid_to_image, land).bare((-1, 0))


def test_a_cell_at_the_edge_of_the_photo_is_bare_only_with_its_middle_in_view() -> None:
    """A plain table, 100 pixels a quarter, a card on cells (0..1, 0..1); the photo is cut
    at a column through the cell left of the card."""
    rng = np.random.default_rng(1)
    image = np.clip(rng.normal((90, 110, 120), 4, (800, 1000, 3)), 0, 255).astype(np.uint8)
    to_image = np.array([[100.0, 0, 400], [0, 100.0, 300], [0, 0, 1]])
    image[300:500, 400:600] = (60, 150, 70)  # the card
    land = {(0, 0), (1, 0), (0, 1), (1, 1)}
    assert Ground(image, to_image, land).bare((-1, 0))  # pixels 300..400 across

    def cut_at(column: int) -> bool:
        shift = np.array([[1, 0, -column], [0, 1, 0], [0, 0, 1.0]])
        crop = np.ascontiguousarray(image[:, column:])
        return Ground(crop, shift @ to_image, land).bare((-1, 0))

    assert cut_at(310)  # its outer tenth cut off: the middle is still seen
    assert not cut_at(350)  # the middle, where a card's sticker would be, is not
    # A sticker-sized token of another colour in the middle: not bare.
    image[330:370, 330:370] = (200, 220, 235)
    assert not Ground(image, to_image, land).bare((-1, 0))
