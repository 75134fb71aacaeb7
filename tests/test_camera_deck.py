"""The deck file: marker -> card, the printed sheet's binding, and its reader's refusals."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.camera.deck import (
    CHOMP,
    GETBIT,
    MARKER_RANGES,
    StickerDeck,
    game_of_marker,
    load_deck,
    parse_deck,
    save_deck,
)
from companion.errors import InputError
from companion.games import getbit
from companion.games.chomp import DECK_COMPOSITION
from companion.tags.tagfile import DECKS


def test_the_chomp_sheet_binds_ids_0_to_49_to_the_fifty_cards_of_the_deck() -> None:
    deck = StickerDeck.default(CHOMP)
    assert deck.markers == tuple(range(50))
    assert Counter(deck.cards.values()) == {str(c): n for c, n in DECK_COMPOSITION.items()}


def test_the_printed_binding_never_moves_sharks_first_octopuses_last() -> None:
    """A sheet already stuck on cards: these ids are printed on it, for good."""
    deck = StickerDeck.default(CHOMP)
    runs = [
        ("shark", 0, 3),
        ("seal", 4, 8),
        ("big_fish", 9, 18),
        ("little_fish", 19, 29),
        ("shrimp", 30, 37),
        ("plankton", 38, 42),
        ("electric_eel", 43, 45),
        ("octopus", 46, 49),
    ]
    for card, first, last in runs:
        assert deck.markers_of(card) == tuple(range(first, last + 1)), card


def test_the_getbit_sheet_binds_ids_50_to_91_colour_by_colour() -> None:
    deck = StickerDeck.default(GETBIT)
    assert deck.markers == tuple(range(50, 92))
    assert set(deck.cards.values()) == {card for card, _ in DECKS[GETBIT]}
    assert (deck.card_of(50), deck.card_of(56), deck.card_of(57), deck.card_of(91)) == (
        "red-1",
        "red-7",
        "orange-1",
        "purple-7",
    )
    assert len(getbit.COLOURS) * getbit.HIGHEST_CARD == 42


def test_a_label_counts_the_copies_of_a_card_and_names_a_single_card_alone() -> None:
    chomp, bit = StickerDeck.default(CHOMP), StickerDeck.default(GETBIT)
    assert chomp.label(6) == "seal 3 of 5"
    assert chomp.label(9) == "big fish 1 of 10"
    assert bit.label(52) == "red-3"
    labels = [chomp.label(m) for m in chomp.markers]
    assert len(set(labels)) == len(labels)  # every sticker says which one it is


def test_the_two_games_share_no_marker() -> None:
    assert not set(MARKER_RANGES[CHOMP]) & set(MARKER_RANGES[GETBIT])
    assert [game_of_marker(m) for m in (0, 49, 50, 91, 100)] == [CHOMP, CHOMP, GETBIT, GETBIT, None]


def test_a_deck_saved_and_loaded_is_the_same_deck_checked_markers_too(tmp_path: Path) -> None:
    deck = StickerDeck.default(GETBIT).with_checked(frozenset({50, 60, 7}))
    assert deck.checked == {50, 60}  # 7 is not a Get Bit! marker of this deck
    save_deck(deck, tmp_path / "deck.json")
    assert load_deck(tmp_path / "deck.json") == deck


def test_saving_refuses_a_place_that_is_not_a_file(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("{}")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    with pytest.raises(InputError, match="symbolic link"):
        save_deck(StickerDeck.default(CHOMP), tmp_path / "link.json")
    assert (tmp_path / "real.json").read_text() == "{}"


def good() -> dict[str, Any]:
    return {"game": "chomp", "cards": {"0": "shark", "1": "seal"}, "checked": [1]}


@pytest.mark.parametrize(
    ("change", "where", "why"),
    [
        ({"game": "chess"}, "game", "unknown game 'chess'"),
        ({"cards": {"0": "whale"}}, "cards['0']", "unknown card 'whale'"),
        ({"cards": {"7": "red-3"}}, "cards['7']", "unknown card 'red-3'"),
        ({"cards": {"60": "seal"}}, "cards['60']", "marker 60 is not a CHOMP! sticker"),
        ({"cards": {"007": "seal"}}, "cards['007']", "written plainly"),
        ({"cards": {"-1": "seal"}}, "cards['-1']", "written plainly"),
        ({"cards": {"٣": "seal"}}, "cards['٣']", "written plainly"),
        ({"cards": {}}, "cards", "at least one marker"),
        ({"checked": [5]}, "checked[0]", "checked but not in cards"),
        ({"checked": [1, 1]}, "checked[1]", "listed twice"),
        ({"checked": [True]}, "checked[0]", "expected a whole number"),
        ({"family": "DICT_6X6_1000"}, "family", "stickers are DICT_5X5_100"),
        ({"colour": "red"}, "colour", "unknown key 'colour'"),
    ],
)
def test_a_bad_deck_file_is_one_line_naming_the_file_and_the_key(
    change: dict[str, Any], where: str, why: str
) -> None:
    with pytest.raises(InputError) as caught:
        parse_deck(json.dumps({**good(), **change}), "deck.json")
    line = str(caught.value)
    assert line.startswith(f"deck.json: {where}: ") and why in line, line
    assert "\n" not in line


def test_a_getbit_deck_names_getbit_cards_and_ids() -> None:
    deck = parse_deck('{"game": "getbit", "cards": {"52": "red-3"}}', "d")
    assert deck.label(52) == "red-3"
    with pytest.raises(InputError, match="d: cards\\['52'\\]: unknown Get Bit! card 'red-9'"):
        parse_deck('{"game": "getbit", "cards": {"52": "red-9"}}', "d")


def test_a_marker_given_twice_is_refused_not_silently_the_last() -> None:
    with pytest.raises(InputError, match="cards\\['4'\\]: key '4' is given twice"):
        parse_deck('{"game": "chomp", "cards": {"4": "seal", "4": "shark"}}', "d")


def test_a_missing_file_is_one_line_naming_it(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nowhere.json"):
        load_deck(tmp_path / "nowhere.json")


# -- fuzz: every document is a deck or one InputError -------------------------------------

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.sampled_from([10**40, 1e308, 0.5, "seal", "red-3", "50", "0"]),
    st.text(max_size=8),
)
JSONISH: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)


def mutate(value: Any, rng: random.Random, replacement: Any) -> Any:
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value))
        copy = dict(value)
        roll = rng.random()
        if roll < 0.2:
            del copy[key]
        elif roll < 0.5:
            copy[key] = replacement
        else:
            copy[key] = mutate(value[key], rng, replacement)
        return copy
    if isinstance(value, list) and value:
        copy_list = list(value)
        copy_list[rng.randrange(len(value))] = replacement
        return copy_list
    return replacement


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replacement=JSONISH, seed=st.integers(0, 2**16), raw=st.booleans())
def test_fuzz_the_deck_reader_gives_a_deck_or_one_input_error(
    replacement: Any, seed: int, raw: bool
) -> None:
    doc = StickerDeck.default(GETBIT).with_checked(frozenset({50, 51})).to_dict()
    text = (
        str(replacement)
        if raw
        else json.dumps(mutate(doc, random.Random(seed), replacement), allow_nan=True)
    )
    try:
        deck = parse_deck(text, "fuzz.json")
    except InputError as exc:
        assert str(exc).startswith("fuzz.json") and "\n" not in str(exc)
        return
    # What was read is a deck the rest can trust: every id its game's, checked within cards.
    assert all(game_of_marker(m) == deck.game for m in deck.markers)
    assert deck.checked <= set(deck.markers)
    assert parse_deck(json.dumps(deck.to_dict()), "again") == deck


def test_a_deck_is_a_value_equal_decks_are_one() -> None:
    first = StickerDeck.default(CHOMP).with_checked(frozenset({3}))
    again = StickerDeck(CHOMP, dict(reversed(list(StickerDeck.default(CHOMP)))), frozenset({3}))
    assert first == again and len({first, again}) == 1
    assert first != StickerDeck.default(CHOMP)
    with pytest.raises(TypeError):
        first.cards[0] = "seal"  # type: ignore[index]
