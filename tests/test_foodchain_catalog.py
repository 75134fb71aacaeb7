"""The Food Chain card catalog: its format, its checks and the example file.

The rulebook does not print the 52 cards' levels, points and symbols, so they come from a
catalog file (docs/foodchain.md). Every mistake in one must name its place.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from companion.errors import InputError
from companion.games.foodchain import (
    DECK_SIZE,
    Bonus,
    catalog_from_dict,
    roman,
    to_roman,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "foodchain-catalog.example.json"


def example() -> dict[str, Any]:
    value = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert isinstance(value, dict)
    return value


SMALL: dict[str, Any] = {
    "cards": [
        {"name": "berry", "level": 1, "points": 5, "copies": 2, "predators": ["rabbit"]},
        {"name": "rabbit", "level": "II", "points": 3, "prey": ["berry"]},
        {"name": "huntsman", "bonus": "huntsman"},
        {"name": "swarm", "bonus": "swarm"},
    ]
}


def error(doc: dict[str, Any]) -> str:
    with pytest.raises(InputError) as caught:
        catalog_from_dict(doc)
    return str(caught.value)


def test_catalog_example_is_labelled_an_example() -> None:
    doc = example()
    assert doc["example"] is True
    assert "EXAMPLE" in doc["title"] and "not the real" in doc["title"]
    assert EXAMPLE.name.endswith(".example.json")


def test_catalog_example_is_a_full_deck_with_symmetric_symbols() -> None:
    catalog = catalog_from_dict(example())
    assert catalog.size == DECK_SIZE
    assert catalog.composition_problems() == [] and catalog.warnings() == []
    assert {k.level for k in catalog.kinds if k.bonus is None} == {1, 2, 3, 4, 5}


def test_catalog_levels_may_be_roman_numerals_as_printed() -> None:
    assert [roman(t) for t in ("I", "ii", "IV", "V", "IX", "XII")] == [1, 2, 4, 5, 9, 12]
    assert [roman(t) for t in ("", "IIII", "VX", "A", "0")] == [None] * 5
    assert [to_roman(n) for n in (1, 4, 6, 9, 14)] == ["I", "IV", "VI", "IX", "XIV"]
    assert catalog_from_dict(SMALL).by_name["rabbit"].level == 2


def test_catalog_copies_make_one_id_per_physical_card() -> None:
    catalog = catalog_from_dict(SMALL)
    assert catalog.card_ids() == ["berry#1", "berry#2", "rabbit#1", "huntsman#1", "swarm#1"]
    assert catalog.kind("berry#2").points == 5


def test_catalog_round_trips_through_plain_data() -> None:
    catalog = catalog_from_dict(example())
    assert catalog_from_dict(catalog.to_dict()) == catalog


def test_catalog_bonus_cards_default_to_no_points() -> None:
    catalog = catalog_from_dict(SMALL)
    assert catalog.by_name["swarm"].points == 0 and catalog.by_name["swarm"].bonus is Bonus.SWARM


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["cards"][1].update(prey=["bear"]), "cards[1].prey[0]: no card named 'bear'"),
        (lambda d: d["cards"][0].update(colour="red"), "cards[0].colour: unknown key"),
        (lambda d: d["cards"][1].pop("points"), "cards[1]: missing key 'points'"),
        (lambda d: d["cards"][1].update(level="IIII"), "cards[1].level: not a level"),
        (lambda d: d["cards"][1].update(level=0), "cards[1].level: must be at least 1"),
        (lambda d: d["cards"][0].update(copies=0), "cards[0].copies: must be at least 1"),
        (lambda d: d["cards"][1].update(name="berry"), "cards[1].name: 'berry' is listed twice"),
        (lambda d: d["cards"][1].update(name="ra#bbit"), "cards[1].name: 'ra#bbit'"),
        (lambda d: d["cards"][2].update(prey=["berry"]), "cards[2].prey: the huntsman is a bonus"),
        (lambda d: d["cards"][2].update(bonus="dragon"), "cards[2].bonus: unknown bonus card"),
        (lambda d: d["cards"][0].update(predators=["swarm"]), "'swarm' is a bonus card"),
        (lambda d: d["cards"][0].update(predators=["rabbit", "rabbit"]), "predators[1]"),
        (lambda d: d.update(format="v2"), "format: expected"),
        (lambda d: d.update(cards=[]), "cards: no cards"),
    ],
)
def test_catalog_mistakes_name_their_place(edit: Any, message: str) -> None:
    doc = copy.deepcopy(SMALL)
    edit(doc)
    assert message in error(doc)


def test_catalog_composition_must_be_the_games_52_cards() -> None:
    catalog = catalog_from_dict(SMALL)
    problems = dict(catalog.composition_problems())
    assert "5 cards in all; the game has 52" in problems["cards"]
    doc = example()
    doc["cards"][-1]["copies"] = 2  # two Swarms
    messages = [m for _, m in catalog_from_dict(doc).composition_problems()]
    assert "53 cards in all; the game has 52" in messages
    assert "2 swarm card(s); the game has exactly one" in messages


def test_catalog_one_way_symbols_are_warnings() -> None:
    doc = copy.deepcopy(SMALL)
    doc["cards"][0]["predators"] = []
    warnings = catalog_from_dict(doc).warnings()
    assert warnings == [
        (
            "cards[1].prey",
            "rabbit shows berry as prey but berry does not show rabbit as a predator: "
            "that hunt is never possible",
        )
    ]
