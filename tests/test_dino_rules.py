"""Chomp (the dinosaur land game): one named test per scoring rule of the rulebook and per
house ruling D1-D5, and the rulebook's worked example A-L herd by herd.

Rulebook: the Chomp rulebook (the dinosaur land game). Rulings: docs/rulings.md. Placement
(D6) is in test_dino_catalog.py. Most lands here are typed as text grids
(docs/dino-grid.md): a section is named after its first cell, ``A1`` top-left.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.games.dino import (
    Diet,
    Dino,
    Goal,
    GoalKind,
    Herd,
    Kind,
    Land,
    Score,
    Section,
    Size,
    Why,
    adjacency,
    build_land,
    rank,
    score,
)
from companion.games.dino.formats import goals_from_list, land_from_dict
from companion.games.dino.report import explain
from companion.games.dino.text import parse_grid

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def land(*rows: str) -> Land:
    return parse_grid("\n".join(rows))


def herd_at(result: Score, section: str) -> Herd:
    """The herd holding the section named ``section``."""
    (herd,) = [h for h in result.herds if section in h.sections]
    return herd


def fate(grid: Land, section: str) -> tuple[bool, Why, int]:
    h = herd_at(score(grid), section)
    return h.alive, h.why, h.points


def ids(grid: Land, section: str) -> set[str]:
    """Sections adjacent to ``section`` (D2)."""
    index = {s.id: i for i, s in enumerate(grid.sections)}
    return {grid.sections[j].id for j in adjacency(grid)[index[section]]}


# ---------------------------------------------------------------- card elements ---------


def test_rule_six_dino_types_three_sizes_two_diets() -> None:
    assert {(d.size, d.diet) for d in Dino} == {(s, diet) for s in Size for diet in Diet}
    assert len(Dino) == 6


def test_rule_card_elements_are_the_section_kinds_of_formats_md() -> None:
    assert {str(k) for k in Kind} == {
        "dino",
        "plants",
        "tar_pit",
        "meat",
        "nest",
        "egg",
        "land",
    }


def test_rule_some_areas_have_multiple_small_dinos() -> None:
    grid = land("sh3  P")
    assert grid.sections[0].count == 3
    assert fate(grid, "A1") == (True, Why.PLANTS, 3)


# ---------------------------------------------------------------- D1: the grid ----------


def test_d1_land_is_a_grid_of_quarter_card_cells() -> None:
    grid = land("lh = lh   P", "N    T    mc")
    assert [s.cells for s in grid.sections] == [
        ((0, 0), (1, 0)),
        ((2, 0),),
        ((0, 1),),
        ((1, 1),),
        ((2, 1),),
    ]


def test_d1_a_section_covers_one_or_more_cells() -> None:
    grid = land("P = P", ":   :", "P = P")
    assert len(grid.sections) == 1 and len(grid.sections[0].cells) == 4


def test_d1_large_dino_covers_exactly_two_cells() -> None:
    assert len(land("lc = lc").sections[0].cells) == 2
    assert len(land("lh", ":", "lh").sections[0].cells) == 2
    with pytest.raises(InputError, match="line 1 column 1: a large herbivore covers exactly 2"):
        land("lh   P")
    with pytest.raises(InputError, match="not 3"):
        land("lc = lc = lc")


def test_d1_dino_count_defaults_to_one() -> None:
    doc = {"sections": [{"id": "a", "kind": "dino", "dino": "small_carnivore", "cells": [[0, 0]]}]}
    assert land_from_dict(doc).sections[0].count == 1


def test_d1_a_cell_belongs_to_one_section() -> None:
    doc = {
        "sections": [
            {"id": "a", "kind": "plants", "cells": [[0, 0]]},
            {"id": "b", "kind": "meat", "cells": [[1, 0], [0, 0]]},
        ]
    }
    with pytest.raises(InputError, match=r"sections\[1\]: cell \[0, 0\] is already in section 'a'"):
        land_from_dict(doc)


def test_d1_the_count_is_the_sections_not_the_cells() -> None:
    grid = land("sh2 = sh2   P")
    assert fate(grid, "A1") == (True, Why.PLANTS, 2)


# ---------------------------------------------------------------- D2: adjacency ---------


def test_d2_sections_are_adjacent_when_cells_touch_side_by_side() -> None:
    grid = land("P   sh", ".   T")
    assert ids(grid, "B1") == {"A1", "B2"}


def test_d2_diagonal_is_never_adjacent() -> None:
    grid = land("sh  .", ".   P")
    assert ids(grid, "A1") == set()
    assert fate(grid, "A1") == (False, Why.NO_PLANTS, 0)


def test_d2_a_mountain_on_the_edge_removes_adjacency() -> None:
    assert ids(land("sh | P"), "A1") == set()
    assert ids(land("sh", "-", "P"), "A1") == set()


def test_d2_a_mountain_on_one_edge_leaves_the_other_edges_open() -> None:
    # The large herbivore touches the plants along two edges; a mountain closes only one.
    grid = land("lh = lh", "-", "P  = P")
    assert ids(grid, "A1") == {"A2"}
    assert fate(grid, "A1") == (True, Why.PLANTS, 3)


def test_rule_mountains_separate_for_every_purpose() -> None:
    # Not a herd, not fed, not eaten, not stuck: the mountains stop all of it.
    grid = land("sh | sh | P", "-    -", "T  | mc")
    result = score(grid)
    assert len(result.herds) == 3  # two small herbivore herds and the carnivore
    assert herd_at(result, "A1").why is Why.NO_PLANTS  # not stuck in the tar below it
    assert herd_at(result, "B1").why is Why.NO_PLANTS  # not fed, not eaten
    assert herd_at(result, "B2").why is Why.STARVED


def test_d2_a_mountain_between_cells_that_are_not_neighbours_is_refused() -> None:
    doc = {
        "sections": [{"id": "a", "kind": "plants", "cells": [[0, 0]]}],
        "mountains": [[[0, 0], [1, 1]]],
    }
    with pytest.raises(InputError, match=r"mountains\[0\]: .*not neighbours"):
        land_from_dict(doc)


# ---------------------------------------------------------------- D3: herds -------------


def test_d3_connected_sections_of_the_same_type_are_one_herd() -> None:
    result = score(land("mh   mh   P", ".    mh   ."))
    (herd,) = result.herds
    assert herd.sections == ("A1", "B1", "B2") and herd.dinos == 3 and herd.points == 6


def test_d3_exactly_the_same_type_other_sizes_or_diets_are_other_herds() -> None:
    result = score(land("sh   mh   sc   P"))
    assert [h.sections for h in result.herds] == [("A1",), ("B1",), ("C1",)]


def test_d3_a_herd_is_adjacent_to_what_any_of_its_sections_touches() -> None:
    # Only the far end of the herd touches the tar pit: the whole herd goes extinct.
    result = score(land("P   sh   sh   sh   T"))
    (herd,) = result.herds
    assert (herd.dinos, herd.alive, herd.why) == (3, False, Why.TAR_PIT)


def test_rule_all_dinos_in_a_herd_eat_together() -> None:
    # Only the first section touches plants, and all three are fed.
    result = score(land("P   lh = lh", "    lh = lh", "    lh = lh"))
    (herd,) = result.herds
    assert (herd.dinos, herd.alive, herd.points) == (3, True, 9)


def test_d3_a_herd_joins_through_a_chain_of_sections() -> None:
    result = score(land("sc   .    sc", "sc   sc   sc"))
    assert len(result.herds) == 1 and result.herds[0].dinos == 5


# ---------------------------------------------------------------- D4: feeding -----------


def test_d4_step1_every_herd_next_to_a_tar_pit_is_extinct() -> None:
    grid = land("P   mh   T    lc = lc   M")
    assert fate(grid, "B1") == (False, Why.TAR_PIT, 0)  # plants do not save it
    assert fate(grid, "D1") == (False, Why.TAR_PIT, 0)  # nor meat


def test_d4_carnivore_with_meat_is_fed_and_eats_nothing() -> None:
    # The medium herbivore next to it is not eaten; it lives on its plants.
    grid = land("M    mc   mh   P")
    assert fate(grid, "B1") == (True, Why.MEAT, 2)
    assert fate(grid, "C1") == (True, Why.PLANTS, 2)
    assert herd_at(score(grid), "B1").ate == ()


def test_rule_a_herbivore_cannot_be_fed_willingly_to_a_carnivore_with_meat() -> None:
    # Without plants the herbivore starves: the fed carnivore does not take it.
    grid = land("M    lc = lc   sh")
    assert fate(grid, "D1") == (False, Why.NO_PLANTS, 0)


def test_d4_carnivore_without_meat_eats_adjacent_herbivores_same_size_or_smaller() -> None:
    grid = land("sh   mc   mh", ".    lh = lh")
    result = score(grid)
    carnivore = herd_at(result, "B1")
    assert (carnivore.alive, carnivore.why, carnivore.points) == (True, Why.ATE, 2)
    assert fate(grid, "A1")[:2] == (False, Why.EATEN)
    assert fate(grid, "C1")[:2] == (False, Why.EATEN)
    assert fate(grid, "B2")[:2] == (False, Why.NO_PLANTS)  # too big to eat, no plants


def test_d4_carnivore_that_cannot_eat_is_extinct() -> None:
    assert fate(land("sc   mh   P"), "A1") == (False, Why.STARVED, 0)
    assert fate(land("lc = lc"), "A1") == (False, Why.STARVED, 0)


def test_d4_carnivore_never_eats_a_carnivore() -> None:
    grid = land("lc = lc   sc   M")
    assert fate(grid, "A1") == (False, Why.STARVED, 0)
    assert fate(grid, "C1") == (True, Why.MEAT, 1)


def test_d4_carnivore_never_eats_a_herd_already_stuck_in_a_tar_pit() -> None:
    grid = land("mc   sh   T")
    assert fate(grid, "A1") == (False, Why.STARVED, 0)
    assert fate(grid, "B1") == (False, Why.TAR_PIT, 0)


def test_d4_several_carnivore_herds_may_eat_the_same_herbivore_herd() -> None:
    grid = land("sc   sh   mc")
    result = score(grid)
    assert fate(grid, "A1") == (True, Why.ATE, 1)
    assert fate(grid, "C1") == (True, Why.ATE, 2)
    assert len(herd_at(result, "B1").eaten_by) == 2


def test_d4_carnivore_eats_every_edible_herd_next_to_it() -> None:
    grid = land("sh   lc = lc   mh", ".    lh = lh   .")
    assert len(herd_at(score(grid), "B1").ate) == 3


def test_d4_an_eaten_herbivore_is_extinct_even_next_to_plants() -> None:
    grid = land("P    sh   sc")
    assert fate(grid, "B1") == (False, Why.EATEN, 0)


def test_d4_step3_herbivore_next_to_plants_is_fed() -> None:
    assert fate(land("lh = lh   P"), "A1") == (True, Why.PLANTS, 3)


def test_d4_step3_herbivore_without_plants_is_extinct() -> None:
    assert fate(land("mh   N    M"), "A1") == (False, Why.NO_PLANTS, 0)


def test_rule_plants_meat_and_herbivores_can_feed_several_herds() -> None:
    grid = land("sh   P    mh", "sc   M    mc", "     sh   ")
    # One field of plants feeds both herbivore herds; one meat feeds both carnivores
    # (so nobody eats the small herbivore below the meat, which then has no plants).
    assert fate(grid, "A1") == (True, Why.PLANTS, 1)
    assert fate(grid, "C1") == (True, Why.PLANTS, 2)
    assert fate(grid, "A2") == (True, Why.MEAT, 1)
    assert fate(grid, "C2") == (True, Why.MEAT, 2)
    # A herbivore herd feeds several carnivore herds:
    assert fate(land("sc   sh   sc", ".    mc   ."), "B1")[1] is Why.EATEN


def test_d4_steps_run_in_order_tar_pits_then_carnivores_then_herbivores() -> None:
    # The medium carnivore is in the tar, so the herbivore it would have eaten lives on
    # plants; the large carnivore below has meat and eats nobody; the small herbivore is
    # next to plants but a hungry carnivore eats it first.
    grid = land("T    mc   mh   P    .", "M    lc = lc   sh   mc")
    assert fate(grid, "B1")[1] is Why.TAR_PIT
    assert fate(grid, "C1") == (True, Why.PLANTS, 2)
    assert fate(grid, "B2") == (True, Why.MEAT, 3)
    assert fate(grid, "D2")[1] is Why.EATEN
    assert fate(grid, "E2") == (True, Why.ATE, 2)


# ---------------------------------------------------------------- D5: points ------------


def test_d5_living_dinos_score_1_2_3_per_dino_not_per_section() -> None:
    result = score(land("sh3  P    mh", "lh = lh   mh"))
    assert [h.points for h in result.herds] == [3, 4, 3]
    assert result.dino_points == 10


def test_d5_extinct_dinos_score_nothing() -> None:
    result = score(land("lh = lh   T"))
    assert result.herds[0].points == 0 and result.total == 0


def test_d5_each_egg_token_on_a_visible_nest_scores_2() -> None:
    result = score(land("E    E    N"))
    assert (result.eggs, result.egg_points, result.total) == (2, 4, 4)


def test_d5_an_empty_nest_and_the_printed_egg_icon_score_nothing() -> None:
    result = score(land("N    e    _"))
    assert (result.eggs, result.total) == (0, 0)


def test_d5_goal_cards_add_their_points() -> None:
    grid = land("sh2  P    E").with_goals(
        [Goal(GoalKind.PER_LIVING_DINO, 2), Goal(GoalKind.MANUAL, 5, "volcano")]
    )
    result = score(grid)
    assert [g.points for g in result.goals] == [4, 5]
    assert (result.dino_points, result.egg_points, result.goal_points) == (2, 2, 9)
    assert result.total == 13


def test_d5_biggest_living_herd_counts_dinos_of_living_herds_only() -> None:
    result = score(land("sh5  T    P    mh", ".    .    .    mh"))
    assert result.biggest_living_herd == 2


def _scored(total: int, biggest: int) -> Score:
    return Score((), 0, total, 0, (), 0, total, biggest)


def test_d5_highest_score_wins() -> None:
    result = rank({"ann": _scored(20, 1), "bob": _scored(25, 1)})
    assert result.winners == ("bob",) and str(result.decided_by) == "total"


def test_d5_tie_goes_to_the_most_dinos_in_the_biggest_living_herd() -> None:
    result = rank({"ann": _scored(20, 3), "bob": _scored(20, 4), "cat": _scored(12, 9)})
    assert result.winners == ("bob",)
    assert str(result.decided_by) == "biggest_living_herd"
    assert [(s.player, s.rank) for s in result.standings] == [("bob", 1), ("ann", 2), ("cat", 3)]


def test_d5_still_equal_players_share_the_victory() -> None:
    result = rank({"ann": _scored(20, 3), "bob": _scored(20, 3), "cat": _scored(5, 1)})
    assert result.winners == ("ann", "bob")
    assert str(result.decided_by) == "shared"
    assert [s.rank for s in result.standings] == [1, 1, 3]


# ---------------------------------------------------------------- goals -----------------


@pytest.mark.parametrize(
    ("goal", "points"),
    [
        ({"per_living_dino": 1}, 4),
        ({"per_living_dino": {"points": 2, "diet": "herbivore", "size": "large"}}, 2),
        ({"per_extinct_dino": {"points": 1, "diet": "carnivore"}}, 1),
        ({"per_egg": 3}, 3),
        ({"per_herd_at_least": {"dinos": 2, "points": 5}}, 5),
        ({"per_herd_at_least": {"dinos": 1, "points": 1, "alive": False}}, 1),
        ({"per_herd_at_least": {"dinos": 1, "points": 1, "alive": None}}, 4),
        ({"per_extinct_herd": 4}, 4),
        ({"manual": -2, "name": "penalty card"}, -2),
    ],
)
def test_goal_vocabulary_counts_what_it_says(goal: dict[str, object], points: int) -> None:
    # Living herds: sh2 (2 dinos), mh, lh. Extinct: sc (starved). One egg.
    grid = land("sh2  P    mh", "E    P    lh = lh", "sc   .    .")
    result = score(grid.with_goals(goals_from_list([goal], "goals")))
    assert result.goals[0].points == points
    assert result.goal_points == points


def test_goal_with_two_kinds_is_refused() -> None:
    with pytest.raises(InputError, match=r"goals\[0\]: a goal has one kind"):
        land_from_dict({"sections": [], "goals": [{"per_egg": 1, "manual": 2}]})


def test_goal_unknown_kind_names_the_vocabulary() -> None:
    with pytest.raises(InputError, match=r"goals\[0\].per_tar_pit: unknown key"):
        land_from_dict({"sections": [], "goals": [{"per_tar_pit": 1}]})


def test_goal_unknown_size_is_refused_at_its_path() -> None:
    doc = {"sections": [], "goals": [{"per_living_dino": {"points": 1, "size": "huge"}}]}
    with pytest.raises(InputError, match=r"goals\[0\].per_living_dino.size: unknown size"):
        land_from_dict(doc)


def test_goal_round_trips_through_its_dict() -> None:
    goals = [
        Goal(GoalKind.PER_LIVING_DINO, 2, "x", Diet.HERBIVORE, Size.LARGE),
        Goal(GoalKind.PER_HERD_AT_LEAST, 3, None, None, Size.SMALL, 2, None),
        Goal(GoalKind.MANUAL, 4, "card"),
        Goal(GoalKind.PER_EGG, 1),
    ]
    doc = {"sections": [], "goals": [g.to_dict() for g in goals]}
    assert land_from_dict(doc).goals == tuple(goals)


# ---------------------------------------------------------------- bad land JSON ---------


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"id": "a", "kind": "dino", "cells": [[0, 0]]}, r"sections\[0\]: missing key 'dino'"),
        (
            {"id": "a", "kind": "plants", "dino": "small_herbivore", "cells": [[0, 0]]},
            r"sections\[0\].dino: only dino sections",
        ),
        ({"id": "a", "kind": "meat", "egg": True, "cells": [[0, 0]]}, r"\.egg: only a nest"),
        ({"id": "a", "kind": "plants", "cells": []}, "at least one cell"),
        ({"id": "a", "kind": "plants", "cells": [[0, 0], [2, 0]]}, "connected side by side"),
        ({"id": "a", "kind": "plants", "cells": [[0, 0, 1]]}, r"cells\[0\]: a cell is \[x, y\]"),
        (
            {"id": "a", "kind": "dino", "dino": "small_herbivore", "count": 0, "cells": [[0, 0]]},
            r"\.count: must be at least 1",
        ),
        ({"id": "a", "kind": "lava", "cells": [[0, 0]]}, r"\.kind: unknown kind 'lava'"),
        ({"id": "a", "kind": "plants", "cells": [[0, 0]], "x": 1}, r"\.x: unknown key"),
    ],
)
def test_bad_land_json_names_the_path(section: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        land_from_dict({"sections": [section]})


def test_a_mountain_inside_a_section_is_refused() -> None:
    doc = {
        "sections": [{"id": "a", "kind": "plants", "cells": [[0, 0], [1, 0]]}],
        "mountains": [[[0, 0], [1, 0]]],
    }
    with pytest.raises(InputError, match=r"mountains\[0\]: a mountain inside section 'a'"):
        land_from_dict(doc)


def test_section_ids_are_unique() -> None:
    with pytest.raises(InputError, match="used twice"):
        build_land([Section("a", Kind.MEAT, ((0, 0),)), Section("a", Kind.MEAT, ((1, 0),))], [])


def test_formats_md_example_scores_as_shown() -> None:
    doc = json.loads((EXAMPLES / "dino-land.json").read_text())
    result = score(land_from_dict(doc)).to_dict()
    assert result["herds"] == [
        {
            "dino": "large_herbivore",
            "dinos": 1,
            "sections": ["a"],
            "alive": True,
            "why": "plants",
            "points": 3,
            "ate": [],
            "eaten_by": [],
        }
    ]
    shown = {"eggs": 1, "dino_points": 3, "egg_points": 2, "goal_points": 0, "total": 5}
    assert {k: result[k] for k in shown} == shown
    assert result["biggest_living_herd"] == 1


# ---------------------------------------------------------------- the worked example ----

# The rulebook's herds A-L: (section id in examples/dino-worked-example.json, alive, why,
# points). The points are the rulebook's.
WORKED = {
    "A": ("A", False, Why.TAR_PIT, 0),  # M carnivore next to a tar pit (right). Extinct!
    "B": ("B", True, Why.ATE, 2),  # M carnivore eats M herbivore (right). 2 points
    "C": ("C", True, Why.ATE, 2),  # M carnivore eats S herbivore (left). 2 points
    "D": ("D", False, Why.STARVED, 0),  # S carnivore cannot eat L herbivore (right)
    "E": ("E1", True, Why.MEAT, 6),  # L carnivore eats adjacent meat. 6 points
    "F": ("F", False, Why.STARVED, 0),  # S carnivore: no meat, no S herbivore
    "G": ("G", False, Why.NO_PLANTS, 0),  # S herbivore not adjacent to plants
    "H": ("H1", True, Why.PLANTS, 6),  # M herbivore eats plants; its M carnivore is in tar
    "I": ("I1", True, Why.PLANTS, 9),  # L herbivore eats plants. 9 points
    "J": ("J", False, Why.NO_PLANTS, 0),  # L herbivore cut off by mountains
    "K": ("K", False, Why.NO_PLANTS, 0),  # L herbivore not adjacent to plants
    "L": ("L", True, Why.PLANTS, 2),  # S herbivore eats plants. 2 points
}


@pytest.fixture(scope="module")
def worked() -> tuple[Land, Score]:
    example = land_from_dict(json.loads((EXAMPLES / "dino-worked-example.json").read_text()))
    return example, score(example)


@pytest.mark.parametrize("letter", list(WORKED))
def test_worked_example_herd_fate_and_points(worked: tuple[Land, Score], letter: str) -> None:
    section, alive, why, points = WORKED[letter]
    herd = herd_at(worked[1], section)
    assert (herd.alive, herd.why, herd.points) == (alive, why, points)


def test_worked_example_b_and_c_eat_the_herbivores_the_rulebook_names(
    worked: tuple[Land, Score],
) -> None:
    _, result = worked
    b, c = herd_at(result, "B"), herd_at(result, "C")
    assert [result.herds[p].dino for p in b.ate] == [Dino.MEDIUM_HERBIVORE]
    assert [result.herds[p].dino for p in c.ate] == [Dino.SMALL_HERBIVORE]
    assert [result.herds[p].why for p in b.ate + c.ate] == [Why.EATEN, Why.EATEN]


def test_worked_example_h_is_next_to_a_which_is_already_in_the_tar(
    worked: tuple[Land, Score],
) -> None:
    _, result = worked
    a_index = result.herds.index(herd_at(result, "A"))
    assert a_index in herd_at(result, "H1").next_to


def test_worked_example_j_would_join_i_but_for_the_mountain(worked: tuple[Land, Score]) -> None:
    example, result = worked
    assert herd_at(result, "J") != herd_at(result, "I1")
    opened = Land(example.sections, frozenset(), example.goals)
    assert herd_at(score(opened), "J") == herd_at(score(opened), "I1")
    assert "mountain range" in explain(example, result, result.herds.index(herd_at(result, "J")))


def test_worked_example_total_and_every_herd_accounted_for(worked: tuple[Land, Score]) -> None:
    _, result = worked
    labelled = {WORKED[k][0] for k in WORKED}
    prey = {"prey_of_B", "prey_of_C"}
    assert {s for h in result.herds for s in h.sections} == labelled | prey | {
        "E2",
        "H2",
        "H3",
        "I2",
        "I3",
    }
    assert (result.dino_points, result.egg_points, result.total) == (27, 2, 29)
    assert result.biggest_living_herd == 3


def test_worked_example_as_a_text_grid_scores_the_same(worked: tuple[Land, Score]) -> None:
    typed = parse_grid((EXAMPLES / "dino-worked-example.txt").read_text())
    result = score(typed)
    _, expected = worked
    assert [(h.dino, h.dinos, h.why, h.points) for h in result.herds] == [
        (h.dino, h.dinos, h.why, h.points) for h in expected.herds
    ]
    assert result.total == expected.total


def test_explain_tells_each_reason_in_words(worked: tuple[Land, Score]) -> None:
    example, result = worked
    said = {h.why: explain(example, result, i) for i, h in enumerate(result.herds)}
    assert set(said) == set(Why)
    assert "tar pit" in said[Why.TAR_PIT] and "Extinct!" in said[Why.TAR_PIT]
    assert "meat" in said[Why.MEAT] and "Alive" in said[Why.MEAT]
    assert "ate the" in said[Why.ATE]
    assert "got eaten by" in said[Why.EATEN]
    assert "too big" in said[Why.STARVED]
    assert "next to plants" in said[Why.PLANTS]
    assert "no plants" in said[Why.NO_PLANTS]
