"""Property tests for the Chomp scorer over random lands: herds partition the dino
sections (D3), the points add up (D5), mountains only ever remove adjacency (D2), the
feeding reasons agree with what each herd touches (D4), input order does not matter, the
grid and JSON forms round-trip, and replayed placements keep D6's promises."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError
from companion.games.dino import (
    Diet,
    Goal,
    GoalKind,
    Kind,
    Land,
    Size,
    Why,
    adjacency,
    build_land,
    neighbours,
    pieces,
    score,
)
from companion.games.dino.catalog import Placement, replay
from companion.games.dino.formats import catalog_from_dict, land_from_dict, land_to_dict
from companion.games.dino.lands import random_land
from companion.games.dino.text import parse_grid, render_grid

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CATALOG = catalog_from_dict(json.loads((EXAMPLES / "dino-catalog.example.json").read_text()))


@st.composite
def goals(draw: st.DrawFn) -> Goal:
    """A goal as a file would hold it: only the fields its kind uses."""
    kind = draw(st.sampled_from(list(GoalKind)))
    points = draw(st.integers(-3, 5))
    if kind in (GoalKind.PER_EGG, GoalKind.MANUAL):
        return Goal(kind, points)
    diet = draw(st.one_of(st.none(), st.sampled_from(list(Diet))))
    size = draw(st.one_of(st.none(), st.sampled_from(list(Size))))
    if kind is GoalKind.PER_HERD_AT_LEAST:
        alive = draw(st.sampled_from([True, False, None]))
        return Goal(kind, points, None, diet, size, draw(st.integers(1, 4)), alive)
    return Goal(kind, points, None, diet, size)


goals_st = st.lists(goals(), max_size=3)


@st.composite
def lands(draw: st.DrawFn) -> Land:
    """A random valid land, up to 9 x 9 cells, with some empty places and mountains."""
    land = random_land(
        draw(st.randoms(use_true_random=False)),
        draw(st.integers(1, 9)),
        draw(st.integers(1, 9)),
        empty=draw(st.sampled_from([0.0, 0.1, 0.3])),
        mountains=draw(st.sampled_from([0.0, 0.15, 0.5])),
    )
    return land.with_goals(draw(goals_st))


def fates(land: Land) -> dict[str, tuple[bool, Why, int]]:
    """Section id -> the fate of its herd."""
    return {sid: (h.alive, h.why, h.points) for h in score(land).herds for sid in h.sections}


def shape(land: Land) -> tuple[object, ...]:
    """A land without its section names."""
    return (
        sorted((s.cells, str(s.kind), s.dino or "", s.count, s.egg) for s in land.sections),
        sorted(land.mountains),
    )


@settings(max_examples=examples(60), deadline=None)
@given(lands())
def test_every_dino_section_is_in_exactly_one_herd(land: Land) -> None:
    result = score(land)
    members = [sid for h in result.herds for sid in h.sections]
    assert sorted(members) == sorted(s.id for s in land.sections if s.kind is Kind.DINO)
    by_id = {s.id: s for s in land.sections}
    for herd in result.herds:
        assert {by_id[sid].dino for sid in herd.sections} == {herd.dino}
        assert herd.dinos == sum(by_id[sid].count for sid in herd.sections)
    # The scorer's herds are the connected same-type groups of the plain adjacency (D3).
    near = adjacency(land)
    groups: set[frozenset[str]] = set()
    seen: set[int] = set()
    for start, section in enumerate(land.sections):
        if section.dino is None or start in seen:
            continue
        todo, group = [start], {start}
        while todo:
            for j in near[todo.pop()]:
                if j not in group and land.sections[j].dino is section.dino:
                    group.add(j)
                    todo.append(j)
        seen |= group
        groups.add(frozenset(land.sections[i].id for i in group))
    assert {frozenset(h.sections) for h in result.herds} == groups


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(lands())
def test_points_are_living_herds_plus_eggs_plus_goals(land: Land) -> None:
    result = score(land)
    for herd in result.herds:
        assert herd.alive == (herd.why in {Why.MEAT, Why.ATE, Why.PLANTS})
        assert herd.points == (herd.dinos * herd.dino.size.value if herd.alive else 0)
    eggs = sum(1 for s in land.sections if s.kind is Kind.NEST and s.egg)
    assert (result.eggs, result.egg_points) == (eggs, 2 * eggs)
    assert result.dino_points == sum(h.points for h in result.herds if h.alive)
    assert result.goal_points == sum(g.points for g in result.goals)
    assert result.total == result.dino_points + result.egg_points + result.goal_points
    living = [h.dinos for h in result.herds if h.alive]
    assert result.biggest_living_herd == max(living, default=0)


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(lands(), st.randoms(use_true_random=False))
def test_mountains_only_ever_remove_adjacency(land: Land, rng: random.Random) -> None:
    where = land.cell_index()
    extra = [
        (cell, other)
        for cell, i in where.items()
        for other in ((cell[0] + 1, cell[1]), (cell[0], cell[1] + 1))
        if where.get(other) not in (None, i) and rng.random() < 0.3
    ]
    walled = build_land(land.sections, [*land.mountains, *extra])
    opened = Land(land.sections, frozenset())
    before, after, wide = adjacency(land), adjacency(walled), adjacency(opened)
    for i in range(len(land.sections)):
        assert after[i] <= before[i] <= wide[i]
    # So each herd with more mountains lies inside one herd with fewer (never merges).
    herd_of = {sid: n for n, h in enumerate(score(land).herds) for sid in h.sections}
    for herd in score(walled).herds:
        assert len({herd_of[sid] for sid in herd.sections}) == 1


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(lands())
def test_feeding_reasons_agree_with_what_each_herd_touches(land: Land) -> None:
    result = score(land)
    herds = result.herds
    for n, herd in enumerate(herds):
        carnivore = herd.dino.diet is Diet.CARNIVORE
        assert (herd.why is Why.TAR_PIT) == (Kind.TAR_PIT in herd.near)
        if herd.why is Why.MEAT:
            assert carnivore and Kind.MEAT in herd.near and herd.ate == ()
        if herd.why is Why.ATE:
            assert carnivore and Kind.MEAT not in herd.near and herd.ate
        if herd.why is Why.STARVED:
            assert carnivore and Kind.MEAT not in herd.near and not herd.ate
        for prey in herd.ate:
            food = herds[prey]
            assert food.dino.diet is Diet.HERBIVORE and food.dino.size <= herd.dino.size
            assert prey in herd.next_to and n in food.eaten_by and food.why is Why.EATEN
        if herd.why is Why.EATEN:
            assert not carnivore and herd.eaten_by
        if herd.why is Why.PLANTS:
            assert not carnivore and Kind.PLANTS in herd.near and not herd.eaten_by
        if herd.why is Why.NO_PLANTS:
            assert not carnivore and Kind.PLANTS not in herd.near and not herd.eaten_by
        # No two herds of one type touch: a herd is everything its dinos connect to.
        assert all(herds[o].dino is not herd.dino for o in herd.next_to)


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(lands(), st.randoms(use_true_random=False))
def test_the_order_sections_are_listed_in_does_not_matter(land: Land, rng: random.Random) -> None:
    shuffled = list(land.sections)
    rng.shuffle(shuffled)
    again = build_land(shuffled, land.mountains, land.goals)
    assert fates(again) == fates(land)
    assert score(again).total == score(land).total


@settings(max_examples=examples(60), deadline=None)
@given(lands())
def test_the_text_grid_round_trips(land: Land) -> None:
    again = parse_grid(render_grid(land))
    assert shape(again) == shape(land)
    assert score(again).total - score(again).goal_points == (
        score(land).total - score(land).goal_points
    )


@settings(max_examples=examples(60), deadline=None)
@given(lands())
def test_the_land_json_round_trips(land: Land) -> None:
    doc = json.loads(json.dumps(land_to_dict(land)))
    assert land_from_dict(doc) == land


@st.composite
def placement_logs(draw: st.DrawFn) -> list[Placement]:
    cards = draw(st.permutations(sorted(CATALOG.cards)))
    return [
        Placement(
            card,
            draw(st.integers(-3, 3)),
            draw(st.integers(-3, 3)),
            draw(st.sampled_from([0, 90, 180, 270])),
        )
        for card in cards
    ]


@settings(max_examples=examples(60), deadline=None)
@given(placement_logs())
def test_replayed_lands_keep_d6s_promises(log: list[Placement]) -> None:
    """Lay down every placement the rules allow (skipping refused ones) and check the land:
    large dinos whole, every visible cell under a placed card, the top card on top."""
    accepted: list[Placement] = []
    for placement in log:
        try:
            replay(CATALOG, [*accepted, placement])
        except InputError:
            continue
        accepted.append(placement)
    land = replay(CATALOG, accepted).land
    covered: dict[tuple[int, int], str] = {}
    for p in accepted:
        for dx in (0, 1):
            for dy in (0, 1):
                covered[(p.x + dx, p.y + dy)] = p.card
    shown = {cell: s.id.split(":")[0] for s in land.sections for cell in s.cells}
    assert shown == covered  # every card quarter is visible where it is on top, nowhere else
    for section in land.sections:
        if section.dino is not None and section.dino.size is Size.LARGE:
            assert len(section.cells) == 2
    assert score(land).total >= 0


cell_sets = st.sets(st.tuples(st.integers(-4, 4), st.integers(-4, 4)), max_size=40)


@given(cell_sets)
def test_the_flood_fill_splits_cells_into_connected_pieces_that_do_not_touch(
    cells: set[tuple[int, int]],
) -> None:
    """One flood fill (D1's one-piece sections, D6's covered remains, the scanned land):
    every cell in exactly one piece, each piece connected, no two pieces side by side,
    cells and pieces in reading order."""
    found = pieces(cells)
    assert sorted(c for p in found for c in p) == sorted(cells)
    owner = {c: k for k, p in enumerate(found) for c in p}
    for k, piece in enumerate(found):
        assert piece == sorted(piece, key=lambda c: (c[1], c[0]))
        reached, todo = {piece[0]}, [piece[0]]  # connected, by a walk of its own
        while todo:
            for n in neighbours(todo.pop()):
                if n in owner and owner[n] == k and n not in reached:
                    reached.add(n)
                    todo.append(n)
        assert reached == set(piece)
        for cell in piece:
            assert all(owner.get(n, k) == k for n in neighbours(cell))
    firsts = [p[0] for p in found]
    assert firsts == sorted(firsts, key=lambda c: (c[1], c[0]))
