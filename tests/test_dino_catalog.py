"""Chomp cards and placement logs (docs/dino-catalog.md): the catalog's checks, and the
placement rules of the rulebook and house ruling D6, each in a named test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.errors import InputError
from companion.games.dino import Kind, Land, Why, score
from companion.games.dino.catalog import Catalog, Placement, Replay, replay, turn
from companion.games.dino.formats import catalog_from_dict, log_from_dict

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

CARDS: dict[str, Any] = {
    "cards": {
        "big": {"land": ["lh = lh", "P    N"]},
        "tar": {"land": ["T    mc", "M    e"]},
        "nests": {"land": ["N    N", "sh   P"], "egg_icon": True},
        "wall": {"land": ["| P   sh", "  -", "  sc  M"]},
        "field": {"land": ["P = P", "    :", "_   P"]},
        "bignest": {"land": ["N = N", "e    _"]},
        "lnest": {"land": ["N = N", "    :", "_   N"]},
        "g1": {"land": ["_    _", "_    _"]},
        "g2": {"land": ["_    _", "_    _"]},
        "g3": {"land": ["_    _", "_    _"]},
    }
}
CATALOG = catalog_from_dict(CARDS)


def play(*placements: tuple[Any, ...], catalog: Catalog = CATALOG) -> Replay:
    """Replay placements written as (card, x, y[, rotation[, egg_on]])."""
    return replay(catalog, [Placement(*p) for p in placements])


def refused(*placements: tuple[Any, ...]) -> str:
    with pytest.raises(InputError) as caught:
        play(*placements)
    return str(caught.value)


def shows(land: Land) -> dict[tuple[int, int], str]:
    """Cell -> ``card:quarter`` of the section on top there."""
    return {cell: s.id for s in land.sections for cell in s.cells}


def kind_at(land: Land, cell: tuple[int, int]) -> str:
    (section,) = [s for s in land.sections if cell in s.cells]
    return str(section.dino or section.kind)


# ---------------------------------------------------------------- placement (D6) -------


def test_d6_the_first_card_goes_anywhere() -> None:
    land = play(("big", -7, 11)).land
    assert set(shows(land)) == {(-7, 11), (-6, 11), (-7, 12), (-6, 12)}


def test_d6_a_new_card_must_overlap_or_touch_the_land() -> None:
    said = refused(("big", 0, 0), ("g1", 5, 5))
    assert said.startswith("placements[1]: card 'g1' at (5, 5) neither overlaps nor touches")
    assert "D6" in said


def test_d6_touching_only_at_a_corner_is_not_adjacent() -> None:
    assert "neither overlaps nor touches" in refused(("big", 0, 0), ("g1", 2, 2))


def test_d6_a_card_side_by_side_with_the_land_is_allowed() -> None:
    land = play(("big", 0, 0), ("g1", 2, 0), ("g2", 0, 2)).land
    assert len(shows(land)) == 12


def test_rule_cards_may_overlap_a_quarter_a_half_a_whole_card_or_several_cards() -> None:
    land = play(
        ("g1", 0, 0),
        ("g2", 1, 1),  # a quarter of g1
        ("g3", 1, 2),  # half of g2
        ("tar", 1, 2),  # all of g3
        ("nests", 0, 1),  # parts of g1, g2 and tar
    ).land
    top = shows(land)
    assert top[(0, 1)].startswith("nests:") and top[(1, 2)].startswith("nests:")
    assert top[(2, 2)].startswith("tar:") and top[(2, 1)].startswith("g2:")
    assert top[(0, 0)].startswith("g1:")


def test_d6_any_rotation_turns_the_card_clockwise() -> None:
    # "tar" upright: T mc / M e. A quarter turn clockwise: M T / e mc.
    land = play(("tar", 0, 0, 90)).land
    got = {c: kind_at(land, c) for c in [(0, 0), (1, 0), (0, 1), (1, 1)]}
    assert got == {(0, 0): "meat", (1, 0): "tar_pit", (0, 1): "egg", (1, 1): "medium_carnivore"}
    upside_down = play(("tar", 0, 0, 180)).land
    assert kind_at(upside_down, (0, 0)) == "egg" and kind_at(upside_down, (1, 1)) == "tar_pit"
    assert kind_at(play(("tar", 0, 0, 270)).land, (0, 0)) == "medium_carnivore"


def test_d6_rotation_turns_the_mountains_with_the_card() -> None:
    # "wall": a mountain under its plants and one on its outer left edge.
    assert turn((0, 0), 90) == (1, 0) and turn((-1, 0), 90) == (1, -1)
    land = play(("wall", 0, 0, 90)).land
    # Turned, the plants are top-right, the small carnivore top-left: the mountain between
    # them is now upright, and the outer one is on top of the plants.
    assert kind_at(land, (1, 0)) == "plants" and kind_at(land, (0, 0)) == "small_carnivore"
    assert land.mountains == {((0, 0), (1, 0)), ((1, -1), (1, 0))}


def test_d6_a_rotation_is_a_quarter_turn() -> None:
    log = {"catalog": CARDS, "placements": [{"card": "big", "x": 0, "y": 0, "rotation": 45}]}
    with pytest.raises(InputError, match=r"placements\[0\].rotation: rotation is 0, 90"):
        log_from_dict(log, lambda value, where: catalog_from_dict(value, where))


def test_d6_a_card_may_not_cover_part_of_a_large_dino() -> None:
    said = refused(("big", 0, 0), ("g1", 1, -1))
    assert said.startswith("placements[1]: card 'g1' at (1, -1) would cover half of the large")
    assert "herbivore of card 'big'" in said and "D6" in said


def test_d6_a_card_may_cover_a_large_dino_whole() -> None:
    land = play(("big", 0, 0), ("g1", 0, -1)).land
    assert not any(s.dino for s in land.sections)


def test_d6_a_new_card_always_goes_on_top() -> None:
    land = play(("g1", 0, 0), ("tar", 1, 0)).land
    assert shows(land)[(1, 0)] == "tar:A1" and shows(land)[(0, 0)] == "g1:A1"


def test_rule_a_placed_card_is_never_moved() -> None:
    before = play(("big", 0, 0)).land
    after = play(("big", 0, 0), ("g1", 2, 0), ("g2", 0, 2)).land
    assert {c: s for c, s in shows(after).items() if c in shows(before)} == shows(before)


def test_rule_mountains_have_no_effect_on_placing_cards() -> None:
    # "wall" has a mountain on its outer left edge; a card may still go right there.
    land = play(("wall", 2, 0), ("g1", 0, 0)).land
    assert ((1, 0), (2, 0)) in land.mountains
    assert len(shows(land)) == 8


def test_each_card_is_placed_once_and_must_be_in_the_catalog() -> None:
    assert "card 'big' is already in the land" in refused(("big", 0, 0), ("big", 2, 0))
    said = refused(("big", 0, 0), ("dragon", 2, 0))
    assert said == "placements[1].card: unknown card 'dragon': not in the catalog"


# ---------------------------------------------------------------- eggs -----------------


def test_rule_a_card_with_an_egg_lets_you_put_an_egg_on_an_empty_nest() -> None:
    result = play(("big", 0, 0), ("tar", 2, 0, 0, (1, 1)))
    assert score(result.land).eggs == 1
    assert [(e.nest, e.placed) for e in result.events] == [("big:B2", True)]


def test_rule_the_egg_may_go_on_the_nest_of_the_card_just_placed() -> None:
    result = play(("g1", 0, 0), ("nests", 2, 0, 0, (3, 0)))
    assert score(result.land).eggs == 1


def test_d6_an_egg_on_a_nest_that_gets_covered_is_lost() -> None:
    result = play(("big", 0, 0), ("tar", 2, 0, 0, (1, 1)), ("g1", 1, 1))
    assert score(result.land).eggs == 0
    assert [(e.nest, e.placed, e.placement) for e in result.events] == [
        ("big:B2", True, 1),
        ("big:B2", False, 2),
    ]


def test_d6_covering_part_of_a_nest_loses_its_egg() -> None:
    result = play(("bignest", 0, 0, 0, (1, 0)), ("g1", 1, -1))
    nests = [s for s in result.land.sections if s.kind is Kind.NEST]
    assert [(s.cells, s.egg) for s in nests] == [(((0, 0),), False)]


def test_an_egg_on_what_is_left_of_a_split_nest_counts_once() -> None:
    # The L-shaped nest loses its corner: two pieces of one nest. An egg goes on one.
    result = play(("lnest", 0, 0), ("g1", 1, -1), ("tar", 2, 1, 0, (1, 1)))
    nests = [(s.id, s.egg) for s in result.land.sections if s.kind is Kind.NEST]
    assert nests == [("lnest:A1", False), ("lnest:A1~2", True)]
    assert score(result.land).eggs == 1


def test_rule_no_egg_token_without_the_egg_icon() -> None:
    said = refused(("nests", 0, 0), ("big", 2, 0, 0, (0, 0)))
    assert said == "placements[1].egg_on: card 'big' shows no egg icon, so no egg token goes down"


def test_rule_an_egg_token_goes_on_a_visible_nest_without_one() -> None:
    assert "[1, 0] is not a visible nest" in refused(("g1", 0, 0), ("tar", 2, 0, 0, (1, 0)))
    said = refused(("nests", 0, 0, 0, (0, 0)), ("tar", 2, 0, 0, (0, 0)))
    assert "already holds an egg token" in said


# ---------------------------------------------------------------- the visible land -----


def test_a_partly_covered_section_keeps_its_visible_cells_in_pieces() -> None:
    # "field": plants over three quarters in an L; covering the corner leaves two pieces.
    land = play(("field", 0, 0), ("g1", 1, -1)).land
    plants = [(s.id, s.cells) for s in land.sections if s.kind is Kind.PLANTS]
    assert plants == [("field:A1", ((0, 0),)), ("field:A1~2", ((1, 1),))]


def test_a_mountain_shows_while_a_card_on_top_at_its_edge_shows_it() -> None:
    # The wall's mountain under its plants is covered on both sides by g1: gone.
    assert ((0, 0), (0, 1)) in play(("wall", 0, 0)).land.mountains
    assert play(("wall", 0, 0), ("g1", 0, 0)).land.mountains == frozenset()
    # Covering only the carnivore below leaves the plants on top on their side: it stays.
    land = play(("wall", 0, 0), ("g1", 0, 1)).land
    assert ((0, 0), (0, 1)) in land.mountains


def test_a_replayed_land_scores_like_a_typed_one() -> None:
    land = play(("big", 0, 0), ("tar", 2, 0, 180)).land
    fates = {h.dino: h.why for h in score(land).herds}
    assert set(fates.values()) == {Why.PLANTS, Why.TAR_PIT}


# ---------------------------------------------------------------- the catalog ----------


@pytest.mark.parametrize(
    ("card", "message"),
    [
        ({"land": ["P  T"]}, "cards.x.land: a card's land side is 2 rows of 2 quarters"),
        ({"land": ["P  T  M", "P  T  M"]}, "cards.x.land: a card's land side is 2 rows"),
        ({"land": ["P  .", "P  T"]}, "cards.x.land[0] column 4: a card has no empty quarter"),
        ({"land": ["P  E", "P  T"]}, "cards.x.land[0] column 4: egg tokens are not printed"),
        ({"land": ["sh = sh", "P    T"]}, "cards.x.land[0] column 1: a small or medium dino"),
        ({"land": ["lh   P", "T    M"]}, "cards.x.land[0] column 1: a large herbivore covers"),
        ({"land": ["P  Q", "P  T"]}, "cards.x.land[0] column 4: unknown token 'Q'"),
        ({"land": ["P  T", 7]}, "cards.x.land[1]: expected a line of the grid"),
        ({"land": ["P  T", "P  T"], "egg_icon": "yes"}, "cards.x.egg_icon: expected true"),
        ({"land": ["P  T", "P  T"], "back": "goal"}, "cards.x.back: unknown key"),
    ],
)
def test_bad_card_names_the_card_line_and_column(card: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError) as caught:
        catalog_from_dict({"cards": {"x": card}})
    assert str(caught.value).startswith(message), str(caught.value)


def test_a_catalog_has_cards() -> None:
    with pytest.raises(InputError, match="cards: a catalog has at least one card"):
        catalog_from_dict({"cards": {}})


def test_a_card_shows_the_egg_icon_as_a_quarter_or_by_its_flag() -> None:
    assert CATALOG.cards["tar"].egg_icon and CATALOG.cards["nests"].egg_icon
    assert not CATALOG.cards["big"].egg_icon


def test_the_example_catalog_is_labelled_as_an_example() -> None:
    doc = json.loads((EXAMPLES / "dino-catalog.example.json").read_text())
    catalog = catalog_from_dict(doc)
    assert catalog.note is not None and catalog.note.startswith("EXAMPLE ONLY")
    assert "not the real" in catalog.note


def test_the_example_placement_log_replays_and_scores() -> None:
    doc = json.loads((EXAMPLES / "dino-placements.json").read_text())
    catalog = catalog_from_dict(json.loads((EXAMPLES / doc["catalog"]).read_text()))
    result = log_from_dict(doc, lambda value, where: catalog)
    assert len(result.placements) == 7
    assert [e.placed for e in result.events] == [True, True, False, True]
    scored = score(result.land)
    assert (scored.dino_points, scored.eggs, scored.goal_points, scored.total) == (8, 2, 2, 14)
