"""A phone lying wholly over a card inside a Chomp land is asked about, never silently
missed (issue 23).

Reviews found the four cells of such a card neither read nor asked in 3 of 40 photos.
The cause: on a black and white gingham cloth, the phone's black is one of the cloth's
colours, so the outline step (step 6) took the phone for bare table.  Bare table on a
patterned cloth must now show the cloth's mix of colours, and every cell inside the
land's extent is looked at however far from the cells read, with the invariant
(:func:`~companion.scan.reader.unaccounted_cells`) that every cell of the land or
inside its extent is read, asked for, or judged bare table.

Photos are rendered small (1600 x 1200) from fixed seeds: render seed 4 lays a black
and white gingham cloth, where the old reading missed the card; a plain table and a
card stacked over four others are asked too.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")

from conftest import examples  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from companion.games.dino import Cell  # noqa: E402
from companion.games.dino.catalog import Catalog, Placement, replay  # noqa: E402
from companion.scan.bench import PhotoTally, compare  # noqa: E402
from companion.scan.grid import Image, Matrix  # noqa: E402
from companion.scan.land import Trouble, build  # noqa: E402
from companion.scan.outline import hull, unaccounted  # noqa: E402
from companion.scan.reader import Reading, read_photo, unaccounted_cells  # noqa: E402
from companion.scan.synth import (  # noqa: E402
    REALISTIC_STYLE,
    Photo,
    Style,
    footprint,
    interior_cards,
    random_catalog,
    random_placements,
    render,
)

SMALL = (1600, 1200)
GINGHAM = Style(occluders=(0,), blur_max=0.8, noise_max=4.0, margin_cells=1.0, cloths=("gingham",))
PLAIN = replace(GINGHAM, cloths=("plain",))
BLACK_GINGHAM_SEED = 4  # render seed whose cloth is black and white gingham
# The realistic mix, with the land filling most of a small frame: markers of 25 pixels
# or more (docs/scan.md asks for 40).  Smaller still, ArUco finds too few markers for
# the grid to reach across a phone, a limit of the photo and not of this check.
FRAMED = (2000, 1500)
IN_SPEC = replace(REALISTIC_STYLE, phone_over_card=0.0, fill=(0.8, 0.95))


def grid_land() -> tuple[Catalog, list[Placement]]:
    """Twelve cards side by side, four across and three down: c06 and c07 are inside."""
    rng = random.Random(1)
    catalog = random_catalog(rng)
    spots = [(x, y) for y in (0, 2, 4) for x in (0, 2, 4, 6)]
    placements = [
        Placement(f"c{i + 1:02d}", x, y, rng.choice((0, 90, 180, 270)))
        for i, (x, y) in enumerate(spots)
    ]
    replay(catalog, placements)
    return catalog, placements


def stacked_land() -> tuple[Catalog, list[Placement]]:
    """Four cards in a square and c05 laid last over a quarter of each."""
    catalog = random_catalog(random.Random(3))  # a catalog where D6 allows it
    placements = [
        Placement("c01", 0, 0, 0),
        Placement("c02", 2, 0, 90),
        Placement("c03", 0, 2, 180),
        Placement("c04", 2, 2, 270),
        Placement("c05", 1, 1, 0),
    ]
    replay(catalog, placements)
    return catalog, placements


def read(photo: Photo) -> tuple[Reading, PhotoTally]:
    reading = read_photo(photo.image, photo.catalog)
    land = None
    if not reading.unread:
        land = build(photo.catalog, reading.cells, reading.cards, reading.unread).land
    return reading, compare(photo, reading, land)


def assert_card_asked(photo: Photo, card: str) -> None:
    reading, tally = read(photo)
    assert tally.missed == 0, tally.wrong
    assert tally.invented == 0, tally.wrong
    assert not any(named == card for named, _ in reading.cells.values())
    assert card not in reading.cards  # no marker of it shows
    assert reading.unread, "a scan with a card under a phone is not complete"
    assert unaccounted_cells(reading) == set()
    # Its four cells are asked, as something covering them.
    asked = [c for c, why in reading.unread.items() if why.trouble is Trouble.COVERED]
    assert len(asked) >= 4


# Under qemu (13-22 s each) two of the four run: each card and each turn once (0.0-c06 and
# 90.0-c07, the same path); the other two are marked emulated_slow.
@pytest.mark.slow
@pytest.mark.parametrize(
    ("turn", "card"),
    [
        (0.0, "c06"),
        pytest.param(0.0, "c07", marks=pytest.mark.emulated_slow),
        pytest.param(90.0, "c06", marks=pytest.mark.emulated_slow),
        (90.0, "c07"),
    ],
)
def test_i23_a_phone_over_an_interior_card_on_gingham_is_asked(card: str, turn: float) -> None:
    """Failed before: the black phone on black and white gingham was taken for the cloth,
    and the card's four cells were neither read nor asked."""
    catalog, placements = grid_land()
    assert card in interior_cards(placements)
    rng = random.Random(BLACK_GINGHAM_SEED)
    photo = render(rng, catalog, placements, SMALL, GINGHAM, phones_over=[(card, turn)])
    assert_card_asked(photo, card)


@pytest.mark.slow
@pytest.mark.parametrize("turn", [0.0, 90.0])
def test_i23_a_phone_over_an_interior_card_on_a_plain_table_is_asked(turn: float) -> None:
    catalog, placements = grid_land()
    photo = render(random.Random(0), catalog, placements, SMALL, PLAIN, phones_over=[("c07", turn)])
    assert_card_asked(photo, "c07")


# Under qemu (9 s each) two of the four run: each cloth and each turn once (0.0-gingham and
# 90.0-plain, the same path); the other two are marked emulated_slow.
@pytest.mark.slow
@pytest.mark.parametrize(
    ("turn", "style"),
    [
        pytest.param(0.0, GINGHAM, id="0.0-gingham"),
        pytest.param(0.0, PLAIN, id="0.0-plain", marks=pytest.mark.emulated_slow),
        pytest.param(90.0, GINGHAM, id="90.0-gingham", marks=pytest.mark.emulated_slow),
        pytest.param(90.0, PLAIN, id="90.0-plain"),
    ],
)
def test_i23_a_phone_over_a_card_stacked_on_four_is_asked(style: Style, turn: float) -> None:
    """c05 lies over a quarter of four cards: its cells are asked (the cards under it
    are named as candidates), none read as the card under it."""
    catalog, placements = stacked_land()
    rng = random.Random(BLACK_GINGHAM_SEED)
    photo = render(rng, catalog, placements, SMALL, style, phones_over=[("c05", turn)])
    reading, tally = read(photo)
    assert tally.missed == 0 and tally.invented == 0, tally.wrong
    assert not any(named == "c05" for named, _ in reading.cells.values())
    assert tally.unread >= 4 and reading.unread
    assert unaccounted_cells(reading) == set()


def test_i23_the_synthesizer_lays_a_phone_over_the_card_named() -> None:
    """The phone hides all four of the card's markers (the truth says so), and without
    ``phones_over`` the same seed is the same photo as before."""
    catalog, placements = grid_land()
    plain = render(random.Random(0), catalog, placements, (800, 600), PLAIN)
    again = render(random.Random(0), catalog, placements, (800, 600), PLAIN)
    assert np.array_equal(plain.image, again.image)
    covered = render(
        random.Random(0), catalog, placements, (800, 600), PLAIN, phones_over=[("c06", 90.0)]
    )
    [c06] = [pl for pl in placements if pl.card == "c06"]
    for cell in footprint(c06):
        assert covered.cells[cell].covered == 1.0
        assert covered.cells[cell].by == "phone"
    assert covered.conditions.kinds == ("phone",)


def test_i23_the_realistic_mix_puts_a_phone_over_an_inner_card_only_sometimes() -> None:
    """Seeded by the land, not the photo's random stream: a photo without that phone is
    drawn exactly as before (the benchmark's other photos do not change)."""
    catalog, placements = grid_land()
    never = replace(REALISTIC_STYLE, phone_over_card=0.0, occluders=(0,))
    always = replace(never, phone_over_card=1.0)
    before = render(random.Random(7), catalog, placements, (800, 600), never)
    after = render(random.Random(7), catalog, placements, (800, 600), always)
    assert after.conditions.kinds == ("phone",) and before.conditions.kinds == ()
    inner = interior_cards(placements)[0]
    [pl] = [p for p in placements if p.card == inner]
    assert all(after.cells[c].covered == 1.0 for c in footprint(pl))
    changed = np.any(before.image != after.image, axis=2)
    assert 0 < changed.mean() < 0.5  # the phone and its shadow, not a new photo


def test_i23_the_hull_is_the_holes_and_deep_notches() -> None:
    ring = {(x, y) for x in range(6) for y in range(6)} - {(2, 2), (3, 2), (2, 3), (3, 3)}
    assert hull(ring) == {(2, 2), (3, 2), (2, 3), (3, 3)}
    ell = {(0, 0), (1, 0), (0, 1)}  # the notch at (1, 1) has land on two sides only
    assert hull(ell) == set()
    u_shape = {(0, 0), (0, 1), (1, 1), (2, 1), (2, 0)}  # (1, 0) is open above
    assert hull(u_shape) == set()
    assert unaccounted(ring, ring - {(0, 0)}) == {(0, 0), (2, 2), (3, 2), (2, 3), (3, 3)}


@given(st.sets(st.tuples(st.integers(-4, 4), st.integers(-4, 4)), max_size=30))
@settings(max_examples=examples(200), deadline=None)
def test_i23_hull_cells_are_enclosed_along_their_row_and_column(land: set[Cell]) -> None:
    inside = hull(land)
    assert not inside & land
    for x, y in inside:
        assert any((a, y) in land for a in range(-5, x)) and any(
            (a, y) in land for a in range(x + 1, 6)
        )
        assert any((x, b) in land for b in range(-5, y)) and any(
            (x, b) in land for b in range(y + 1, 6)
        )
    assert unaccounted(land, land | inside) == set()


@pytest.mark.slow
@given(seed=st.integers(0, 10_000), turn=st.sampled_from([0.0, 90.0]))
@settings(
    max_examples=examples(4),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
def test_i23_every_cell_is_read_or_asked_with_props_at_random(seed: int, turn: float) -> None:
    """Realistic props at random (phones, hands, glare, dice, gingham), and a phone over
    the land's most enclosed card when it has one: every visible cell is read right or
    asked, nothing is invented, a complete reading is the true land, and the reading's
    invariant holds."""
    rng = random.Random(seed)
    catalog = random_catalog(rng)
    placements = random_placements(rng, catalog, rng.randint(5, 9))
    phones = [(card, turn) for card in interior_cards(placements)[:1]]
    photo = render(rng, catalog, placements, FRAMED, IN_SPEC, phones_over=phones)
    reading, tally = read(photo)
    assert tally.missed == 0, tally.wrong
    assert tally.invented == 0, tally.wrong
    assert tally.land_match in (None, True)
    assert unaccounted_cells(reading) == set()


def checked_table(colour: tuple[int, int, int]) -> tuple[Image, Matrix]:
    """A gingham cloth of white and ``colour`` (8 px checks, 40 px cells, A1 at 200)
    with a 4 x 4 land on it, and the grid."""
    rng = np.random.default_rng(2)
    ys, xs = np.mgrid[0:800, 0:800]
    share = (((xs // 8) % 2 + (ys // 8) % 2) / 2)[..., None]
    cloth = np.array((235.0, 235.0, 235.0)) * (1 - share) + np.array(colour) * share
    image: Image = np.clip(cloth + rng.normal(0, 3, cloth.shape), 0, 255).astype(np.uint8)
    image[200:360, 200:360] = (30, 160, 200)  # the land itself (not sampled)
    h: Matrix = np.array([[40.0, 0, 200], [0, 40.0, 200], [0, 0, 1]])
    return image, h


@pytest.mark.parametrize(
    ("cloth", "thing"),
    [
        ((40, 40, 40), (28, 28, 30)),  # a black phone on black and white checks
        ((40, 40, 40), (235, 235, 235)),  # a white sheet on them
        ((40, 40, 40), (120, 150, 200)),  # a hand, as bright as the checks' mix
        ((60, 60, 190), (60, 60, 190)),  # something red on red and white checks
    ],
)
def test_i23_a_flat_thing_of_the_cloths_colours_is_not_bare_table(
    cloth: tuple[int, int, int], thing: tuple[int, int, int]
) -> None:
    """Each of its pixels is one of the cloth's colours (or as bright as them, on a
    cloth of one hue), but no cell of the cloth is one colour all over: it is not the
    table, and may hide a card.  The cells beside it that show the checks are table."""
    from companion.scan.outline import Table

    image, h = checked_table(cloth)
    land = {(x, y) for x in range(4) for y in range(4)}
    inside = Table(image, h, land)
    assert inside.bare((4, 1)) and inside.bare((-1, 2)) and inside.bare((1, 4))
    cv2.rectangle(image, (358, 240), (402, 282), thing, -1)  # over cell (4, 1)
    table = Table(image, h, land)
    assert not table.bare((4, 1))
    assert table.bare((-1, 2)) and table.bare((1, 4))


@pytest.mark.slow
def test_i23_a_card_beyond_phones_lying_across_the_land_is_read() -> None:
    """Two phones across the land hide every marker between its two parts: the grid
    did not grow past them, and the card beyond (c07, its markers in full view) was
    neither read nor asked.  Its markers sit square on the land's grid beside the
    cells asked as covered, so it is read; the cells under the phones are asked."""
    rng = random.Random(242)
    catalog = random_catalog(rng)
    placements = random_placements(rng, catalog, rng.randint(5, 9))
    phones = [(card, rng.choice((0.0, 90.0))) for card in interior_cards(placements)[:1]]
    photo = render(rng, catalog, placements, FRAMED, IN_SPEC, phones_over=phones)
    assert photo.conditions.kinds.count("phone") == 2
    reading, tally = read(photo)
    assert tally.missed == 0 and tally.invented == 0, tally.wrong
    assert "c07" in reading.cards
    shown = [t for t in photo.cells.values() if t.card == "c07" and t.covered < 0.5]
    assert sum(1 for card, _ in reading.cells.values() if card == "c07") >= len(shown) >= 3
    assert unaccounted_cells(reading) == set()
