"""Seats' zones on the picture: a card belongs to a seat only when it lies wholly in its zone.

The zones are pure geometry (no OpenCV): sightings are made here as squares at chosen
places of a 1280 x 720 frame, and a tiny deck stands in for the sticker deck.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest
from conftest import examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from companion.camera.model import Point, Seen, Sighting, Zone
from companion.camera.zones import (
    Zones,
    config_lines,
    setup_cards,
    zones_from_cards,
    zones_from_config,
    zones_to_config,
)
from companion.errors import InputError

SIZE = (1280, 720)


@dataclass(frozen=True)
class TinyDeck:
    """A deck as the camera sees one: marker -> card name."""

    game: str = "chomp"
    cards: Mapping[int, str] = field(
        default_factory=lambda: {0: "plankton", 1: "shrimp", 2: "seal", 3: "shark", 4: "seal"}
    )

    def card_of(self, marker: int) -> str | None:
        return self.cards.get(marker)

    def label(self, marker: int) -> str:
        return self.cards.get(marker, f"marker {marker}")


def square(marker: int, cx: float, cy: float, side: float = 30.0) -> Sighting:
    """A marker of ``side`` pixels centred at (cx, cy) given in fractions of the frame."""
    x, y, h = cx * SIZE[0], cy * SIZE[1], side / 2
    return Sighting(marker, ((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)))


def seen(*sightings: Sighting) -> Seen:
    return Seen(0, 0, SIZE, tuple(sightings))


def rect(seat: str, x0: float, y0: float, x1: float, y1: float) -> Zone:
    return Zone(seat, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))


THREE = Zones(
    [
        rect("ann", 0.0, 0.5, 0.3, 1.0),
        rect("bob", 0.3, 0.5, 0.7, 1.0),
        rect("cat", 0.7, 0.5, 1.0, 1.0),
    ]
)


def test_a_marker_wholly_in_one_zone_belongs_to_that_seat() -> None:
    placed = THREE.place(seen(square(2, 0.15, 0.75), square(3, 0.5, 0.75)))
    assert [s.marker for s in placed.by_seat["ann"]] == [2]
    assert [s.marker for s in placed.by_seat["bob"]] == [3]
    assert placed.between == () and placed.outside == ()


def test_a_card_touching_two_zones_is_between_never_given() -> None:
    placed = THREE.place(seen(square(2, 0.3, 0.75)))
    assert placed.by_seat == {}
    assert [s.marker for s in placed.between] == [2]
    assert placed.between_seats == (("ann", "bob"),)


def test_a_card_lying_on_the_shared_border_touches_both_and_is_between() -> None:
    edge = 0.3 * SIZE[0]  # ann's and bob's border
    on_border = Sighting(2, ((edge - 30, 500), (edge, 500), (edge, 530), (edge - 30, 530)))
    placed = THREE.place(seen(on_border))
    assert placed.by_seat == {}
    assert placed.between_seats == (("ann", "bob"),)


def test_a_card_partly_in_one_zone_is_between_never_given() -> None:
    placed = THREE.place(seen(square(2, 0.15, 0.5)))  # half above ann's zone
    assert placed.by_seat == {}
    assert placed.between_seats == (("ann",),)


def test_a_card_in_no_zone_is_outside_and_ignored() -> None:
    placed = THREE.place(seen(square(2, 0.5, 0.2)))
    assert placed.by_seat == {} and placed.between == ()
    assert [s.marker for s in placed.outside] == [2]


def test_overlapping_zones_are_refused_naming_both_seats() -> None:
    with pytest.raises(InputError, match="ann's and bob's zones overlap"):
        Zones([rect("ann", 0.0, 0.0, 0.6, 1.0), rect("bob", 0.5, 0.0, 1.0, 1.0)])


def test_zones_sharing_a_border_are_accepted() -> None:
    assert THREE.seats == ("ann", "bob", "cat")


@pytest.mark.parametrize(
    ("polygon", "problem"),
    [
        (((0.1, 0.1), (0.5, 0.5)), "at least 3 corners"),
        (((0.1, 0.1), (0.5, 0.5), (0.9, 0.9)), "too small or flat"),
        (((0.1, 0.1), (0.9, 0.1), (0.5, 0.2), (0.9, 0.9), (0.1, 0.9)), "not convex"),
        (((0.1, 0.1), (0.9, 0.1), (0.1, 0.9), (0.9, 0.9)), "too small or flat"),  # a bow tie
        (((0.1, 0.1), (1.5, 0.1), (0.5, 0.9)), "outside the frame"),
        (((0.1, 0.1), (math.nan, 0.1), (0.5, 0.9)), "outside the frame"),
        (((0.1, 0.1), (0.1, 0.1), (0.9, 0.1), (0.5, 0.9)), "repeated"),
    ],
)
def test_a_degenerate_zone_is_refused_naming_its_seat(
    polygon: tuple[Point, ...], problem: str
) -> None:
    with pytest.raises(InputError, match=problem) as caught:
        Zones([Zone("bob", polygon)])
    assert caught.value.where == "camera.zones.bob"


def test_a_star_that_winds_twice_is_refused() -> None:
    star = tuple(
        (
            0.5 + 0.4 * math.cos(2 * math.pi * 2 * k / 5),
            0.5 + 0.4 * math.sin(2 * math.pi * 2 * k / 5),
        )
        for k in range(5)
    )
    with pytest.raises(InputError, match="crosses itself"):
        Zones([Zone("ann", star)])


def test_one_seat_with_two_zones_is_refused() -> None:
    with pytest.raises(InputError, match="two zones"):
        Zones([rect("ann", 0.0, 0.0, 0.2, 0.2), rect("Ann", 0.5, 0.5, 0.7, 0.7)])


# -- zones from one card per seat -------------------------------------------------------------


def test_the_set_up_cards_are_the_decks_kinds_one_a_seat() -> None:
    assert setup_cards(TinyDeck(), ["ann", "bob", "cat"]) == {
        "ann": "plankton",
        "bob": "shrimp",
        "cat": "seal",
    }
    with pytest.raises(InputError, match="4 kinds of card for 5 seats"):
        setup_cards(TinyDeck(), ["a", "b", "c", "d", "e"])


def test_zones_from_cards_put_each_seats_card_wholly_in_its_own_zone() -> None:
    cards = seen(square(0, 0.2, 0.8), square(1, 0.5, 0.85), square(2, 0.8, 0.8))
    zones = Zones(zones_from_cards(cards, ["ann", "bob", "cat"], TinyDeck()))
    placed = zones.place(cards)
    assert {seat: [s.marker for s in found] for seat, found in placed.by_seat.items()} == {
        "ann": [0],
        "bob": [1],
        "cat": [2],
    }
    # a sensible margin: the zone reaches well past the sticker (a card lands off its spot)
    assert zones.place(seen(square(0, 0.2 + 40 / SIZE[0], 0.8 + 40 / SIZE[1]))).by_seat


def test_zones_from_cards_are_clipped_to_the_frame() -> None:
    cards = seen(square(0, 0.02, 0.97), square(1, 0.5, 0.5), square(2, 0.98, 0.03))
    zones = zones_from_cards(cards, ["ann", "bob", "cat"], TinyDeck())
    assert all(0 <= v <= 1 for z in zones for p in z.polygon for v in p)


def test_neighbours_zones_are_cut_at_the_midline_never_overlapping() -> None:
    cards = seen(square(0, 0.40, 0.8), square(1, 0.47, 0.8), square(2, 0.9, 0.2))
    zones = zones_from_cards(cards, ["ann", "bob", "cat"], TinyDeck())
    ann, bob = zones[0], zones[1]
    assert max(x for x, _ in ann.polygon) < 0.435 < min(x for x, _ in bob.polygon)
    assert Zones(zones).place(cards).between == ()


def test_zones_from_cards_ask_for_a_missing_seats_card() -> None:
    cards = seen(square(0, 0.2, 0.8), square(2, 0.8, 0.8))
    with pytest.raises(InputError, match=r"bob's card \(a shrimp\) is not seen") as caught:
        zones_from_cards(cards, ["ann", "bob", "cat"], TinyDeck())
    assert "\n" not in str(caught.value)


def test_zones_from_cards_refuse_two_cards_for_one_seat() -> None:
    cards = seen(square(0, 0.2, 0.8), square(1, 0.5, 0.8), square(2, 0.8, 0.8), square(4, 0.8, 0.2))
    with pytest.raises(InputError, match="2 seal cards are seen: only cat shows a seal"):
        zones_from_cards(cards, ["ann", "bob", "cat"], TinyDeck())


def test_zones_from_cards_refuse_cards_too_close_to_part() -> None:
    cards = seen(square(0, 0.50, 0.8, side=60), square(1, 0.52, 0.8, side=60), square(2, 0.9, 0.2))
    with pytest.raises(InputError, match="too close: move them apart"):
        zones_from_cards(cards, ["ann", "bob", "cat"], TinyDeck())


# -- the config -------------------------------------------------------------------------------


def test_zones_survive_the_config_written_as_toml() -> None:
    text = "\n".join(config_lines(THREE.zones)) + "\n"
    parsed = tomllib.loads(text)["camera"]["zones"]
    assert zones_from_config(parsed) == list(THREE.zones)
    assert zones_to_config(zones_from_config(parsed)) == zones_to_config(THREE.zones)


def test_a_seat_name_that_is_no_bare_key_is_quoted_in_the_config() -> None:
    zones = [rect('Zoë "Z"', 0.0, 0.0, 0.5, 0.5)]
    parsed = tomllib.loads("\n".join(config_lines(zones)))["camera"]["zones"]
    assert zones_from_config(parsed) == zones


@pytest.mark.parametrize(
    ("raw", "where", "problem"),
    [
        ([1, 2], "camera.zones", "expected an object"),
        ({"ann": "left"}, "camera.zones.ann", "expected a list"),
        ({"ann": [[0, 0], [1, 0], [1]]}, "camera.zones.ann[2]", r"\[x, y\]"),
        ({"ann": [[0, 0], [1, 0], [1, "a"]]}, "camera.zones.ann[2][1]", "expected a number"),
        ({"ann": [[0, 0], [1, 0], [1, 2]]}, "camera.zones.ann[2][1]", "at most 1"),
        ({"ann": [[0, 0], [1, 0], [1, -0.5]]}, "camera.zones.ann[2][1]", "at least 0"),
        ({"ann": [[0, 0], [1, 0], [1, math.inf]]}, "camera.zones.ann[2][1]", "finite"),
        ({"ann": [[0, 0], [1, 0]]}, "camera.zones.ann", "at least 3 corners"),
        ({"ann\x1b[2J": [[0, 0], [1, 0], [1, 1]]}, "camera.zones", "control character"),
        ({"ann": [[0, 0], [1, 0]] * 40}, "camera.zones.ann", "at most 64 corners"),
        (
            {"ann": [[0, 0], [0.6, 0], [0.6, 1]], "bob": [[0.5, 0], [1, 0], [1, 1]]},
            "camera.zones",
            "ann's and bob's zones overlap",
        ),
    ],
)
def test_a_bad_config_value_is_one_line_naming_its_key(
    raw: object, where: str, problem: str
) -> None:
    with pytest.raises(InputError, match=problem) as caught:
        zones_from_config(raw)
    assert caught.value.where == where
    assert "\n" not in str(caught.value)


# -- properties -------------------------------------------------------------------------------


@st.composite
def zone_sets(draw: st.DrawFn) -> list[Zone]:
    """Up to 9 zones, each the convex hull of random points inside its own cell of a
    random grid: apart by construction, touching where cells meet."""
    columns = draw(st.integers(1, 3))
    rows = draw(st.integers(1, 3))
    xs = sorted(
        draw(
            st.lists(st.floats(0.05, 0.95), min_size=columns - 1, max_size=columns - 1, unique=True)
        )
    )
    ys = sorted(
        draw(st.lists(st.floats(0.05, 0.95), min_size=rows - 1, max_size=rows - 1, unique=True))
    )
    xs, ys = [0.0, *xs, 1.0], [0.0, *ys, 1.0]
    zones: list[Zone] = []
    for c in range(columns):
        for r in range(rows):
            if not draw(st.booleans()):
                continue
            x0, x1, y0, y1 = xs[c], xs[c + 1], ys[r], ys[r + 1]
            corners = draw(
                st.lists(st.tuples(st.floats(x0, x1), st.floats(y0, y1)), min_size=3, max_size=8)
            )
            hull = _hull(corners)
            try:
                Zones([Zone("x", tuple(hull))])
            except InputError:
                continue
            zones.append(Zone(f"s{c}{r}", tuple(hull)))
    return zones


def _hull(points: list[Point]) -> list[Point]:
    pts = sorted(set(points))

    def cross(o: Point, a: Point, b: Point) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[Point] = []
    upper: list[Point] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _strictly_inside(polygon: tuple[Point, ...], p: Point) -> bool:
    sign = (
        1
        if sum(
            a[0] * b[1] - b[0] * a[1]
            for a, b in zip(polygon, polygon[1:] + polygon[:1], strict=True)
        )
        > 0
        else -1
    )
    return all(
        ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])) * sign > 1e-12
        for a, b in zip(polygon, polygon[1:] + polygon[:1], strict=True)
    )


points = st.tuples(st.floats(0, 1), st.floats(0, 1))


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.lists(points, min_size=3, max_size=6), min_size=2, max_size=3),
    st.lists(points, max_size=30),
)
def test_zones_accepted_never_share_a_point(
    polygons: list[list[Point]], probes: list[Point]
) -> None:
    """Any zones at all, overlapping or not: either refused, or no point lies inside two."""
    zones = [Zone(f"s{i}", tuple(_hull(p))) for i, p in enumerate(polygons)]
    try:
        Zones(zones)
    except InputError:
        return
    for probe in probes + [c for z in zones for c in z.polygon]:
        assert sum(_strictly_inside(z.polygon, probe) for z in zones) <= 1


@settings(max_examples=examples(200), deadline=None)
@given(zone_sets(), st.lists(points, max_size=30))
def test_a_point_in_one_zone_is_in_no_other(zones: list[Zone], probes: list[Point]) -> None:
    table = Zones(zones)
    for probe in probes:
        holders = [z.seat for z in zones if _strictly_inside(z.polygon, probe)]
        assert len(holders) <= 1
        assert table.seat_at(probe) == (holders[0] if holders else None)


sightings = st.builds(
    square,
    st.integers(0, 99),
    st.floats(0, 1),
    st.floats(0, 1),
    st.floats(2, 200),
)


@settings(max_examples=examples(200), deadline=None)
@given(zone_sets(), st.lists(sightings, max_size=12))
def test_place_puts_every_sighting_in_exactly_one_of_seat_between_outside(
    zones: list[Zone], found: list[Sighting]
) -> None:
    table = Zones(zones)
    placed = table.place(seen(*found))
    by_seat = [s for group in placed.by_seat.values() for s in group]
    assert sorted(map(id, by_seat + list(placed.between) + list(placed.outside))) == sorted(
        map(id, found)
    )
    polygons = {z.seat: z.polygon for z in zones}
    for seat, group in placed.by_seat.items():
        for sighting in group:  # wholly in its seat's zone, and in no other's inside
            corners = [(x / SIZE[0], y / SIZE[1]) for x, y in sighting.corners]
            centre = (sum(x for x, _ in corners) / 4, sum(y for _, y in corners) / 4)
            assert all(not _strictly_inside(p, centre) for s, p in polygons.items() if s != seat)
            assert table.seat_at(centre) in (seat, None)


@settings(max_examples=examples(200), deadline=None)
@given(zone_sets())
def test_zones_survive_a_round_trip_through_the_config(zones: list[Zone]) -> None:
    text = "\n".join(config_lines(zones)) + "\n"
    parsed = tomllib.loads(text).get("camera", {}).get("zones", {})
    assert zones_from_config(parsed) == zones
    assert zones_from_config(zones_to_config(zones)) == zones


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0.05, 0.95), st.floats(0.09, 0.91), st.floats(12, 60)),
        min_size=2,
        max_size=4,
    )
)
def test_zones_from_cards_give_each_card_to_its_seat_or_refuse(
    spots: list[tuple[float, float, float]],
) -> None:
    seats = ["ann", "bob", "cat", "dan"][: len(spots)]
    cards = seen(*(square(i, x, y, side) for i, (x, y, side) in enumerate(spots)))
    try:
        zones = zones_from_cards(cards, seats, TinyDeck(cards={i: f"k{i}" for i in range(4)}))
    except InputError as exc:
        assume(False)
        raise AssertionError from exc  # pragma: no cover
    placed = Zones(zones).place(cards)
    assert {seat: [s.marker for s in group] for seat, group in placed.by_seat.items()} == {
        seat: [i] for i, seat in enumerate(seats)
    }


toml_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=examples(500), deadline=None)
@given(st.dictionaries(st.text(max_size=30), toml_values, max_size=4) | toml_values)
def test_any_config_value_is_zones_or_one_input_error_line(raw: object) -> None:
    """Fuzz: whatever a config holds, the zones' reader answers with zones or one line."""
    try:
        zones = zones_from_config(raw)
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("camera.zones")
        return
    Zones(zones)
