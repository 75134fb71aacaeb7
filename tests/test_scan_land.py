"""The photo scanner's pure half: the typed patch, and the land built from read cells.

No OpenCV here.  The land built from "which card and quarter shows on each cell" must be
the land :func:`replay` builds from the same placements (same sections, same mountains),
for random lands of the example catalog; unread cells and nests keep the land from being
complete until a patch answers them, and a bad patch is one error naming the item.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError
from companion.games.dino import Kind, Land, Why, score
from companion.games.dino.catalog import CARD_QUARTERS, ROTATIONS, Catalog, Placement, replay, turn
from companion.games.dino.formats import catalog_from_dict
from companion.scan.land import (
    CardPlace,
    Patch,
    Trouble,
    Unread,
    build,
    cell_label,
    parse_cell,
    parse_patch,
)

ROOT = Path(__file__).resolve().parent.parent
CATALOG = catalog_from_dict(json.loads((ROOT / "examples/dino-catalog.example.json").read_text()))


def shows(
    placements: list[Placement],
) -> tuple[dict[tuple[int, int], tuple[str, int]], dict[str, CardPlace]]:
    """What a perfect reading of the photo gives: the top quarter of every cell."""
    cells: dict[tuple[int, int], tuple[str, int]] = {}
    cards = {}
    for pl in placements:
        cards[pl.card] = CardPlace(pl.card, pl.x, pl.y, pl.rotation)
        for q, (qx, qy) in enumerate(CARD_QUARTERS):
            tx, ty = turn((qx, qy), pl.rotation)
            cells[(pl.x + tx, pl.y + ty)] = (pl.card, q)
    seen = {card for card, _ in cells.values()}
    return cells, {k: v for k, v in cards.items() if k in seen}


def random_log(rng: random.Random, catalog: Catalog, n: int) -> list[Placement]:
    """Placements that D6 allows, found by trying random spots next to or over the land."""
    ids = rng.sample(list(catalog.cards), min(n, len(catalog.cards)))
    log = [Placement(ids[0], 0, 0, rng.choice(ROTATIONS))]
    for card in ids[1:]:
        for _ in range(40):
            x, y = rng.randint(-3, 3), rng.randint(-3, 3)
            pl = Placement(card, x, y, rng.choice(ROTATIONS))
            try:
                replay(catalog, [*log, pl])
            except InputError:
                continue
            log.append(pl)
            break
    return log


def same_land(a: Land, b: Land) -> bool:
    def key(land: Land) -> tuple[object, object]:
        sections = {
            (s.id, s.kind, s.dino, s.count, s.egg, frozenset(s.cells)) for s in land.sections
        }
        return sections, set(land.mountains)

    return key(a) == key(b)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 8))
def test_the_land_from_read_cells_is_the_replayed_land(seed: int, n: int) -> None:
    log = random_log(random.Random(seed), CATALOG, n)
    cells, cards = shows(log)
    built = build(CATALOG, cells, cards, {})
    assert built.land is not None and built.complete is (not built.nests)
    assert same_land(built.land, replay(CATALOG, log).land)
    assert same_score(built.land, replay(CATALOG, log).land)


def same_score(a: Land, b: Land) -> bool:
    """Equal totals and herds (the order of sections, and so of herds, may differ)."""

    def key(land: Land) -> tuple[int, list[tuple[tuple[str, ...], bool, Why, int]]]:
        result = score(land)
        herds = sorted((tuple(sorted(h.sections)), h.alive, h.why, h.points) for h in result.herds)
        return result.total, herds

    return key(a) == key(b)


def test_a_land_with_nests_asks_about_eggs_until_answered() -> None:
    log = [Placement("x01", 0, 0, 0)]  # lh = lh / P  N
    cells, cards = shows(log)
    built = build(CATALOG, cells, cards, {})
    assert built.nests == ((1, 1),) and not built.eggs_answered and not built.complete
    answered = build(CATALOG, cells, cards, {}, parse_patch("egg B2"))
    assert answered.complete
    assert answered.land is not None
    nest = next(s for s in answered.land.sections if s.kind is Kind.NEST)
    assert nest.egg and score(answered.land).egg_points == 2
    none = build(CATALOG, cells, cards, {}, parse_patch("no eggs"))
    assert none.complete and none.land is not None and score(none.land).eggs == 0


def test_unread_cells_keep_the_land_open_until_patched() -> None:
    log = [Placement("x01", 0, 0, 0), Placement("x03", 2, 0, 90)]
    cells, cards = shows(log)
    hidden = (3, 1)
    card, quarter = cells.pop(hidden)
    unread = {hidden: Unread(hidden, Trouble.NOT_SEEN, ((card, quarter),))}
    built = build(CATALOG, cells, cards, unread, parse_patch("no eggs"))
    assert built.land is None and not built.complete
    assert [u.cell for u in built.unread] == [hidden]
    assert built.cells[hidden] == "?"
    assert (card, quarter) == ("x03", 1)  # turned 90 degrees: B1 lies bottom-right
    patched = build(CATALOG, cells, cards, unread, parse_patch("D2=x03:B1; no eggs"))
    assert patched.complete and patched.land is not None
    assert same_land(patched.land, replay(CATALOG, log).land)
    # A token instead of the card's quarter: one free section, no mountains of its own.
    token = build(CATALOG, cells, cards, unread, parse_patch("D2=sh2; no eggs"))
    assert token.land is not None
    free = next(s for s in token.land.sections if s.id == "D2")
    assert (free.dino is not None, free.count, free.cells) == (True, 2, ((3, 1),))
    empty = build(CATALOG, cells, cards, unread, parse_patch("D2=.; no eggs"))
    assert empty.land is not None and hidden not in empty.land.cell_index()


def test_a_card_no_marker_placed_needs_its_rotation() -> None:
    unread = {(0, 0): Unread((0, 0), Trouble.STICKER)}
    with pytest.raises(InputError, match=r"give its rotation.*A1=x04:A1@90"):
        build(CATALOG, {}, {}, unread, parse_patch("A1=x04:A1"))
    built = build(CATALOG, {}, {}, unread, parse_patch("A1=x04:B2@180"))
    assert built.land is not None
    assert built.cards["x04"] == CardPlace("x04", 0, 0, 180)  # B2 is top-left, turned 180


def test_a_patched_quarter_must_be_where_its_card_lies() -> None:
    cells, cards = shows([Placement("x01", 0, 0, 0)])
    with pytest.raises(InputError, match="quarter B2 of card 'x01' lies on B2, not C3"):
        build(CATALOG, cells, cards, {}, parse_patch("C3=x01:B2"))
    with pytest.raises(InputError, match="turned 0 degrees"):
        build(CATALOG, cells, cards, {}, parse_patch("B2=x01:B2@90"))
    with pytest.raises(InputError, match="unknown card 'zz'"):
        build(CATALOG, cells, cards, {}, parse_patch("B2=zz:B2"))
    with pytest.raises(InputError, match="C1 is not a nest"):
        build(CATALOG, cells, cards, {}, parse_patch("egg C1"))


def test_drop_removes_a_card_that_only_lies_in_the_photo() -> None:
    cells, cards = shows([Placement("x01", 0, 0, 0), Placement("x07", 5, 5, 0)])
    hidden = cells.pop((6, 6))
    unread = {
        (6, 6): Unread((6, 6), Trouble.NOT_SEEN, (hidden,)),
        (9, 9): Unread((9, 9), Trouble.STICKER),
    }
    built = build(CATALOG, cells, cards, unread, parse_patch("drop x07; no eggs"))
    assert [u.cell for u in built.unread] == [(9, 9)]  # a sticker of no known card stays
    built = build(CATALOG, cells, cards, unread, parse_patch("drop x07; no eggs; J10=."))
    assert built.land is not None
    assert {s.id.split(":")[0] for s in built.land.sections} == {"x01"}


def test_joined_patch_cells_make_one_section() -> None:
    unread = {c: Unread(c, Trouble.STICKER) for c in ((0, 0), (1, 0))}
    built = build(CATALOG, {}, {}, unread, parse_patch("A1+B1=lh"))
    assert built.land is not None
    (section,) = built.land.sections
    assert section.cells == ((0, 0), (1, 0))


@pytest.mark.parametrize(
    ("text", "cell"),
    [("A1", (0, 0)), ("c2", (2, 1)), ("AA10", (26, 9)), ("2,1", (2, 1)), ("[-1, 3]", (-1, 3))],
)
def test_cells_are_named_as_in_the_text_grid_or_by_coordinates(
    text: str, cell: tuple[int, int]
) -> None:
    assert parse_cell(text, "here") == cell
    if min(cell) >= 0:
        assert parse_cell(cell_label(cell), "here") == cell


def test_a_patch_reads_items_lines_and_comments() -> None:
    patch = parse_patch("C2=x01:B1; D4=.  # none there\negg B3 2,4\nE1+F1=P\ndrop x07")
    assert [(i.cells, i.card, i.quarter, i.empty) for i in patch.items] == [
        (((2, 1),), "x01", 1, False),
        (((3, 3),), None, None, True),
        (((4, 0), (5, 0)), None, None, False),
    ]
    assert patch.eggs[0][0] == (1, 2) and patch.eggs[1][0] == (2, 4)
    assert patch.drop[0][0] == "x07"
    assert patch.eggs_answered and not Patch().eggs_answered
    assert parse_patch("C2=E").eggs_answered  # a nest typed with its egg answers too


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("C2", r"--patch item 1: 'C2': write CELL=VALUE"),
        ("C2=Q", r"--patch item 1: unknown token 'Q'"),
        ("C2=sh; C2=P", r"--patch item 2: cell C2 is patched twice"),
        ("Z0=P", r"rows are numbered from 1"),
        ("2;3=P", r"--patch item 1: '2': write CELL=VALUE"),
        ("C2=x01:C3", r"a card's quarter is CARD:A1, B1, A2 or B2"),
        ("C2=x01:A1@45", r"the rotation is @0, @90, @180 or @270"),
        ("C2=x01:A1@9²", r"the rotation is @0, @90, @180 or @270"),  # isdigit, not int
        ("C2=x01:A1@٩٠", r"the rotation is @0, @90, @180 or @270"),  # read as 90 before
        ("C2=", r"nothing after '='"),
        ("egg", r"'egg' names the cells"),
        ("no eggs; egg C2", r"'no eggs' and 'egg"),
        ("drop", r"'drop' names one card"),
    ],
)
def test_a_bad_patch_is_one_error_naming_the_item(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_patch(text, "--patch")
