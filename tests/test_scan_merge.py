"""Several photos of one land merged (companion.scan.merge): the registration by shared
cards, the cell-by-cell rules on readings built from a land's truth, and real rendered
photos (a card under a phone in one photo read in another, photos turned by quarter
turns, a sticker read differently, two different lands)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Set as AbstractSet

import numpy as np
import pytest
from conftest import examples
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

cv2 = pytest.importorskip("cv2")
pytest.importorskip("PIL")

from companion.errors import InputError  # noqa: E402
from companion.games.dino import Cell  # noqa: E402
from companion.games.dino.catalog import CARD_QUARTERS, Placement, turn  # noqa: E402
from companion.scan.bench import compare  # noqa: E402
from companion.scan.land import CardPlace, Trouble, Unread, build, quarter_name  # noqa: E402
from companion.scan.markers import MarkerBook  # noqa: E402
from companion.scan.merge import Merged, Turn, bare_cells, merge, moved, register  # noqa: E402
from companion.scan.reader import Reading, read_photo  # noqa: E402
from companion.scan.synth import (  # noqa: E402
    Photo,
    Style,
    photograph_again,
    random_catalog,
    random_photo,
    random_placements,
    render,
    top_cells,
)

CATALOG = random_catalog(random.Random(11))


# --------------------------------------------------------------------------------------
# Readings made from a land's truth (no photo)
# --------------------------------------------------------------------------------------


def truth_of(seed: int, cards: int = 6) -> tuple[dict[Cell, tuple[str, int]], dict[str, CardPlace]]:
    """The visible cells and the cards of a random land, moved so its top-left is A1."""
    placements = random_placements(random.Random(seed), CATALOG, cards)
    top = top_cells(placements)
    dx = -min(c[0] for c in top)
    dy = -min(c[1] for c in top)
    cells = {(x + dx, y + dy): (t.card, t.quarter) for (x, y), t in top.items()}
    places = {p.card: CardPlace(p.card, p.x + dx, p.y + dy, p.rotation) for p in placements}
    return cells, places


def reading_of(
    cells: dict[Cell, tuple[str, int]],
    places: dict[str, CardPlace],
    asked: AbstractSet[Cell] = frozenset(),
) -> Reading:
    """What a photo of the land reads when the cells ``asked`` are hidden: those are
    asked (not seen, the card that shows there named), the cards with a cell read are
    placed."""
    read = {c: v for c, v in cells.items() if c not in asked}
    shown = {card for card, _ in read.values()}
    unread = {c: Unread(c, Trouble.NOT_SEEN, (cells[c],)) for c in asked}
    cards = {k: p for k, p in places.items() if k in shown}
    return Reading((100, 100), [], {}, {}, cards, read, unread, np.eye(3), 0.3)


def merged_of(*readings: Reading) -> Merged:
    return merge(CATALOG, list(readings), [f"p{k + 1}.jpg" for k in range(len(readings))])


def turns() -> st.SearchStrategy[Turn]:
    return st.builds(Turn, st.integers(0, 3), st.integers(-6, 6), st.integers(-6, 6))


@given(turns(), st.sampled_from([0, 90, 180, 270]), st.integers(-3, 3), st.integers(-3, 3))
def test_a_turned_card_covers_the_turned_cells(by: Turn, rotation: int, x: int, y: int) -> None:
    place = CardPlace("c01", x, y, rotation)
    turned = by.place(place)
    assert [turned.cell_of(q) for q in range(4)] == [by.cell(place.cell_of(q)) for q in range(4)]
    # The grid's map of points says the same as the cells' map.
    centre = by.matrix() @ np.array([x + 0.5, y + 0.5, 1.0])
    assert by.cell((x, y)) == (int(np.floor(centre[0])), int(np.floor(centre[1])))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), turns(), st.data())
def test_merging_a_reading_with_itself_turned_gives_the_same_land(
    seed: int, by: Turn, data: st.DataObject
) -> None:
    cells, places = truth_of(seed)
    asked = set(data.draw(st.sets(st.sampled_from(sorted(cells)), max_size=len(cells) - 1)))
    one = reading_of(cells, places, asked)
    merged = merged_of(one, moved(one, by))
    assert merged.turns[0] == Turn()
    assert moved(moved(one, by), merged.turns[1]).cells == one.cells
    assert merged.cells == one.cells and merged.cards == one.cards
    assert {c: u.trouble for c, u in merged.unread.items()} == {
        c: u.trouble for c, u in one.unread.items()
    }
    # Each photo's own reading, named in the merged grid, is the reading itself.
    assert merged.views[1].cells == one.cells


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), turns(), st.data())
def test_a_cell_is_read_when_a_photo_reads_it_and_asked_when_none_does(
    seed: int, by: Turn, data: st.DataObject
) -> None:
    cells, places = truth_of(seed)
    spots = st.sets(st.sampled_from(sorted(cells)), max_size=len(cells))
    first, second = data.draw(spots), data.draw(spots)
    one, two = reading_of(cells, places, first), reading_of(cells, places, second)
    assume(set(one.cards) & set(two.cards))
    merged = merged_of(one, moved(two, by))
    both = first & second
    # Cells asked in both photos are asked; every other cell is read, and read right.
    assert set(merged.unread) == both
    assert merged.cells == {c: v for c, v in cells.items() if c not in both}
    for cell in merged.cells:
        assert merged.read_by[cell] == tuple(
            k for k, hid in enumerate((first, second)) if cell not in hid
        )
    # The merge is the same whichever photo comes first (up to the cells' names).
    other = merged_of(moved(two, by), one)
    assert sorted(other.cells.values()) == sorted(merged.cells.values())
    assert sorted(u.candidates for u in other.unread.values()) == sorted(
        u.candidates for u in merged.unread.values()
    )
    if not both:
        land = build(CATALOG, merged.cells, merged.cards, merged.unread).land
        truth = build(CATALOG, cells, places, {}).land
        assert land is not None and truth is not None
        assert sorted(map(repr, land.sections)) == sorted(map(repr, truth.sections))


def test_photos_reading_a_cell_differently_are_asked_never_settled() -> None:
    cells, places = truth_of(3)
    cell = sorted(cells)[0]
    card, quarter = cells[cell]
    other = (card, (quarter + 1) % 4)
    wrong = reading_of({**cells, cell: other}, places)
    merged = merged_of(reading_of(cells, places), moved(wrong, Turn(1, 4, 0)))
    asked = merged.unread[cell]
    assert asked.trouble is Trouble.PHOTOS_DISAGREE and cell not in merged.cells
    assert set(asked.candidates) == {(card, quarter), other}
    assert merged.saw[cell] == (
        f"{card}:{quarter_name(quarter)}",
        f"{card}:{quarter_name(other[1])}",
    )
    # Every other cell is read.
    assert len(merged.cells) == len(cells) - 1


def _edge_card(
    cells: dict[Cell, tuple[str, int]], places: dict[str, CardPlace]
) -> tuple[str, set[Cell], Reading]:
    """A card at the land's edge: on top of no other card, each of its visible cells next
    to the rest of the land; its cells, and the reading of the land without it (as a
    photo would show the land with that card not there)."""
    for card in sorted(places):
        hers = {c for c, (k, _) in cells.items() if k == card}
        rest = {c: v for c, v in cells.items() if c not in hers}
        others = {k: p for k, p in places.items() if k != card}
        if any(p.quarter_at(c) is not None for c in hers for p in others.values()):
            continue
        without = reading_of(rest, others)
        if hers and rest and hers <= bare_cells(without):
            return card, hers, without
    raise AssertionError("no card at the land's edge")  # pragma: no cover


def test_a_card_in_one_photo_on_bare_table_in_the_other_is_asked() -> None:
    cells, places = truth_of(5)
    _, hers, without = _edge_card(cells, places)
    merged = merged_of(reading_of(cells, places), without)
    assert {c for c, u in merged.unread.items() if u.trouble is Trouble.PHOTOS_DISAGREE} == hers
    assert all(merged.saw[c][1] == "bare table" for c in hers)


def test_a_covered_area_is_settled_by_a_photo_that_shows_the_table_or_reads_it() -> None:
    cells, places = truth_of(7)
    clear = reading_of(cells, places)
    beside = {c: Unread(c, Trouble.COVERED) for c in sorted(bare_cells(clear), reverse=True)[:2]}
    hand = reading_of(cells, places)
    hand.unread.update(beside)
    assert set(beside) <= bare_cells(clear) and not set(beside) & bare_cells(hand)
    assert merged_of(hand, clear).unread == {}
    # Asked while no photo shows those cells.
    assert set(merged_of(hand, hand).unread) == set(beside)
    # A card one photo reads there (where the other asked) is read.
    _, hers, covered = _edge_card(cells, places)
    covered.unread.update({c: Unread(c, Trouble.COVERED) for c in hers})
    merged = merged_of(covered, reading_of(cells, places))
    assert merged.unread == {} and merged.cells == cells
    assert {merged.read_by[c] for c in hers} == {(1,)}


def test_a_contradiction_one_photo_saw_stays_asked() -> None:
    cells, places = truth_of(9)
    cell = sorted(cells)[1]
    two = reading_of(cells, places)
    del two.cells[cell]
    two.unread[cell] = Unread(cell, Trouble.TWO_MARKERS, (cells[cell], ("c30", 0)))
    merged = merged_of(reading_of(cells, places), two)
    assert merged.unread[cell].trouble is Trouble.TWO_MARKERS
    assert cells[cell] in merged.unread[cell].candidates


def test_photos_that_cannot_be_placed_against_each_other_are_refused() -> None:
    cells, places = truth_of(4)
    one = reading_of(cells, places)
    # Another land: none of the same cards.
    strangers = [k for k in sorted(CATALOG.cards) if k not in places][:2]
    far = {k: CardPlace(k, 2 * n, 0, 0) for n, k in enumerate(strangers)}
    lonely = reading_of({p.cell_of(q): (k, q) for k, p in far.items() for q in range(4)}, far)
    with pytest.raises(InputError, match=r"^p2\.jpg: no card read in it is read in p1\.jpg"):
        merged_of(one, lonely)
    # The same cards, but one of them moved between the photos.
    card = sorted(one.cards)[0]
    nudged = moved(one, Turn())
    nudged.cards[card] = CardPlace(card, places[card].x + 1, places[card].y, places[card].rotation)
    assert len(one.cards) > 1
    with pytest.raises(InputError, match=r"^p2\.jpg: cards .* do not lie as in p1\.jpg"):
        merged_of(one, nudged)
    nothing = Reading((100, 100), [], {}, {}, {}, {}, {}, None, 0.0, ["no markers found"])
    with pytest.raises(InputError, match=r"^p2\.jpg: no card read in this photo"):
        register([one, nothing], ["p1.jpg", "p2.jpg"])


# --------------------------------------------------------------------------------------
# Real rendered photos
# --------------------------------------------------------------------------------------

CLEAN = Style(occluders=(0,), margin_cells=1.0, blur_max=0.8, noise_max=4.0)


@pytest.fixture(scope="module")
def land_photos() -> tuple[Photo, Photo]:
    """One land photographed twice, by two cameras, nothing over it."""
    first = random_photo(5, (1600, 1200), style=CLEAN)
    return first, photograph_again(first, random.Random(77), style=CLEAN)


def under_phone(photo: Photo, card: str) -> np.ndarray:
    """The photo with a phone lying over every visible cell of ``card``."""
    cells = [c for c, t in photo.cells.items() if t.card == card]
    corners = [[x + dx, y + dy] for x, y in cells for dx in (-0.1, 1.1) for dy in (-0.1, 1.1)]
    pts = np.array(corners, np.float64).reshape(-1, 1, 2)
    quad = cv2.perspectiveTransform(pts, photo.grid_to_image).reshape(-1, 2)
    image = photo.image.copy()
    cv2.fillPoly(image, [cv2.convexHull(quad.astype(np.int32))], (28, 25, 25))
    return image


def as_reading(merged: Merged) -> Reading:
    """The merged land as a reading, for the benchmark's comparison with the truth."""
    return Reading((0, 0), [], {}, {}, merged.cards, merged.cells, merged.unread, None, 0.0)


def test_a_card_under_a_phone_in_one_photo_is_read_from_the_other(
    land_photos: tuple[Photo, Photo],
) -> None:
    first, second = land_photos
    shown = Counter(t.card for t in first.cells.values())
    card = min(shown, key=lambda k: (shown[k], k))  # a card showing little, under the phone
    hidden = read_photo(under_phone(first, card), first.catalog)
    assert card not in hidden.cards and hidden.unread  # asked for, not read
    merged = merge(first.catalog, [hidden, read_photo(second.image, first.catalog)], ["a", "b"])
    built = build(first.catalog, merged.cells, merged.cards, merged.unread)
    tally = compare(first, as_reading(merged), built.land)
    assert (tally.invented, tally.missed, tally.unread) == (0, 0, 0)
    assert tally.right == len(first.cells) and tally.land_match is True
    hers = [c for c, (k, _) in merged.cells.items() if k == card]
    assert hers and all(merged.read_by[c] == (1,) for c in hers)


@pytest.mark.parametrize("quarters", [1, 2, 3])
def test_photos_turned_by_quarter_turns_are_registered(
    land_photos: tuple[Photo, Photo], quarters: int
) -> None:
    first, _ = land_photos
    spin = (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE)
    turned = np.ascontiguousarray(cv2.rotate(first.image, spin[quarters - 1]))
    one = read_photo(first.image, first.catalog)
    other = read_photo(turned, first.catalog)
    merged = merge(first.catalog, [one, other], ["a", "b"])
    # The photo turned clockwise shows the land turned clockwise: its grid is turned
    # back by as many quarter turns.
    assert merged.turns[1].quarters == (4 - quarters) % 4
    assert merged.cells == one.cells and merged.unread == {}
    assert all(merged.read_by[c] == (0, 1) for c in merged.cells)


def test_a_sticker_read_differently_in_two_photos_is_asked(
    land_photos: tuple[Photo, Photo],
) -> None:
    """Photo 2 shows another card's sticker on the land's top-left cell (as if that card
    lay there, reaching off the land). Photo 2 alone asks about that card's four cells
    (its three others show bare table); merged, the four are asked, the sticker's cell
    naming what each photo read there; nothing is read from either photo alone."""
    first, _ = land_photos
    catalog = first.catalog
    book = MarkerBook.of(catalog)
    cell, truth = min(first.cells.items(), key=lambda item: (sum(item[0]), item[0]))
    stranger = next(k for k in catalog.cards if k not in {p.card for p in first.placements})
    # The stranger's quarter that lies at its card's bottom-right, as the card is turned.
    quarter = next(q for q in range(4) if turn(CARD_QUARTERS[q], truth.rotation) == (1, 1))
    wrong = {(truth.card, truth.quarter): (book.marker_id(stranger, quarter), 0)}
    mislabelled = render(random.Random(78), catalog, first.placements, (1600, 1200), CLEAN, wrong)
    one = read_photo(first.image, catalog)
    two = read_photo(mislabelled.image, catalog)
    doubted = {c for c, u in two.unread.items() if u.trouble is Trouble.CARD_DISAGREES}
    assert len(doubted) == 4 and stranger not in {k for k, _ in two.cells.values()}
    merged = merge(catalog, [one, two], ["a", "b"])
    assert compare(first, as_reading(merged)).invented == 0
    asked = {c: u for c, u in merged.unread.items() if stranger in {k for k, _ in u.candidates}}
    assert len(asked) == 4
    [both] = [u for u in asked.values() if len(u.candidates) == 2]
    assert set(both.candidates) == {(truth.card, truth.quarter), (stranger, quarter)}
    assert sorted(merged.saw[both.cell]) == sorted(
        [f"{truth.card}:{quarter_name(truth.quarter)}", "card_disagrees"]
    )
    assert build(catalog, merged.cells, merged.cards, merged.unread).land is None


def test_photos_of_two_lands_are_refused(land_photos: tuple[Photo, Photo]) -> None:
    first, _ = land_photos
    others = [k for k in first.catalog.cards if k not in {p.card for p in first.placements}]
    placements = [Placement(others[0], 0, 0, 0), Placement(others[1], 2, 0, 90)]
    elsewhere = render(random.Random(3), first.catalog, placements, (1600, 1200), CLEAN)
    readings = [read_photo(p.image, first.catalog) for p in (first, elsewhere)]
    with pytest.raises(InputError, match="no card read in it is read in a"):
        merge(first.catalog, readings, ["a", "b"])


def test_questions_off_the_land_go_when_the_cells_beside_it_show_table() -> None:
    """A photo asks about a cell two cells off its land only as part of an area reaching
    the land; another photo showing the area's cell beside the land as bare table
    leaves no card there that could touch the land."""
    cells, places = truth_of(7)
    clear = reading_of(cells, places)
    near = max(bare_cells(clear))
    far = (near[0] + 1, near[1])
    assert far not in bare_cells(clear) and far not in cells
    hand = reading_of(cells, places)
    hand.unread.update({c: Unread(c, Trouble.COVERED) for c in (near, far)})
    assert set(merged_of(hand, hand).unread) == {near, far}
    assert merged_of(hand, clear).unread == {}


def _large(card: str) -> list[Cell] | None:
    """The card-local cells of the card's large dino, if it has one."""
    for section in CATALOG.cards[card].sections:
        if section.dino is not None and section.dino.size.name == "LARGE":
            return list(section.cells)
    return None


def test_what_two_photos_put_together_is_checked_as_one_reading_is() -> None:
    """Each photo alone is consistent; together they show two cards over each other both
    ways, or half of a large dino covered: asked (order, half_large), never read."""
    plain = [k for k in sorted(CATALOG.cards) if _large(k) is None]
    x, y = CardPlace(plain[0], 0, 0, 0), CardPlace(plain[1], 1, 0, 0)
    shows = {(0, 0): (x.card, 0), (0, 1): (x.card, 2), (2, 0): (y.card, 1), (2, 1): (y.card, 3)}
    cards = {x.card: x, y.card: y}
    one = reading_of({**shows, (1, 0): (x.card, 1), (1, 1): (x.card, 3)}, cards, {(1, 1)})
    two = reading_of({**shows, (1, 0): (y.card, 0), (1, 1): (y.card, 2)}, cards, {(1, 0)})
    merged = merged_of(one, two)
    assert merged.cells == {}
    assert {c: u.trouble for c, u in merged.unread.items()} == dict.fromkeys(
        [*shows, (1, 0), (1, 1)], Trouble.ORDER
    )
    # Half a large dino: one photo reads one half, the other another card on the other.
    big = next(k for k in sorted(CATALOG.cards) if _large(k) is not None)
    place = CardPlace(big, 0, 0, 0)
    a, b = (place.at(c) for c in _large(big) or [])
    # Another card over b only, reaching off the big card.
    top = CardPlace(plain[2], b[0] if b[0] else -1, b[1] - 1 if b[1] == 0 else b[1], 0)
    assert set(top.footprint()) & set(place.footprint()) == {b}
    bigs = {c: (big, place.quarter_at(c) or 0) for c in place.footprint()}
    tops = {c: (top.card, top.quarter_at(c) or 0) for c in top.footprint()}
    first = reading_of(bigs, {big: place}, {b})
    second = reading_of({**bigs, **tops}, {big: place, top.card: top}, {a})
    together = merged_of(first, second)
    a, b = together.turns[0].cell(a), together.turns[0].cell(b)  # named as merged
    assert together.unread[a].trouble is together.unread[b].trouble is Trouble.HALF_LARGE
    assert a not in together.cells and b not in together.cells
