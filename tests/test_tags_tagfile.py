"""Tag files: the format, what is refused (naming the place), round trips, the example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.errors import InputError, WriteError
from companion.games.chomp import CARD_NAMES, DECK_COMPOSITION, DECK_SIZE
from companion.tags.tagfile import (
    DECKS,
    GETBIT_COLOURS,
    TagFile,
    deck_size,
    getbit_number,
    load_tagfile,
    parse_tagfile,
    save_tagfile,
    tagfile_from_dict,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "chomp-tags.example.json"


def refused(text: str) -> str:
    with pytest.raises(InputError) as caught:
        parse_tagfile(text, "t.json")
    return str(caught.value)


def test_a_good_file_reads_and_normalises_its_keys() -> None:
    tags = parse_tagfile(
        '{"game": "chomp", "tags": {"04a1b2c3": "seal", "04A1B2C4": "seal", '
        '"code:CH-017": "shark"}}',
        "t.json",
    )
    assert tags.tags == {"04A1B2C3": "seal", "04A1B2C4": "seal", "code:CH-017": "shark"}
    assert tags.label("04A1B2C4") == "the seal #2"
    assert tags.card_of("code:CH-017") == "shark" and tags.card_of("FFFFFFFF") is None
    assert tags.name == "t.json"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"game": "chomp", "tags": {"04A1B2C3": "whale"}}',
            "t.json: tags['04A1B2C3']: unknown card 'whale' (one of: plankton, shrimp,",
        ),
        (
            '{"game": "chomp", "tags": {"04A1B2C3": "seal", "04A1B2C3": "shark"}}',
            "t.json: tags['04A1B2C3']: this tag is given two cards ('seal' and 'shark')",
        ),
        (
            '{"game": "chomp", "tags": {"04a1b2c3": "seal", "04A1B2C3": "shark"}}',
            "t.json: tags['04A1B2C3']: this tag is given two cards: '04a1b2c3' is the same",
        ),
        (
            '{"game": "chomp", "tags": {"04G1B2C3": "seal"}}',
            "t.json: tags['04G1B2C3']: bad hex in tag '04G1B2C3'",
        ),
        (
            '{"game": "chomp", "tags": {"04A1B2C": "seal"}}',
            "t.json: tags['04A1B2C']: bad hex",
        ),
        (
            '{"game": "chomp", "tags": {"04:A1:B2:C3": "seal"}}',
            "bad hex",
        ),
        (
            '{"game": "chomp", "tags": {"04A1": "seal"}}',
            "tag '04A1' is 2 bytes; an NFC UID is 4 to 10 bytes",
        ),
        ('{"game": "chomp", "tags": {"code:": "seal"}}', "bad barcode tag 'code:'"),
        ('{"game": "chomp", "tags": {"code: X": "seal"}}', "bad barcode tag"),
        (
            '{"game": "getbit", "tags": {"04A1B2C3": "red-8"}}',
            "t.json: tags['04A1B2C3']: unknown Get Bit! card 'red-8' (a colour and a number: "
            "red, orange, yellow, green, blue, purple with 1 to 7, e.g. red-3)",
        ),
        ('{"game": "getbit", "tags": {"04A1B2C3": "seal"}}', "unknown Get Bit! card 'seal'"),
        ('{"game": "chomp", "tags": {"04A1B2C3": 5}}', "expected a card name, got a number"),
        ('{"game": "chess", "tags": {}}', "t.json: game: unknown game 'chess'"),
        ('{"game": "chomp"}', "t.json: top level: missing key 'tags'"),
        ('{"game": "chomp", "tags": {}, "deck": 1}', "t.json: deck: unknown key 'deck'"),
        ('{"game": "chomp", "game": "getbit", "tags": {}}', "key 'game' is given twice"),
        ('{"game": "chomp", "tags": []}', "t.json: tags: expected an object, got a list"),
        ('{"game": "chomp", "tags": {}, "note": 3}', "t.json: note: expected a string"),
        ('{"game": "chomp", "tags": {', "t.json: line 1 column 28: not JSON"),
        ("[]", "t.json: top level: expected an object, got a list"),
    ],
)
def test_bad_files_are_one_line_naming_the_place(text: str, message: str) -> None:
    error = refused(text)
    assert message in error
    assert "\n" not in error


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nope.json: no such file"):
        load_tagfile(tmp_path / "nope.json")


def test_save_and_load_round_trip_keeps_the_learning_order(tmp_path: Path) -> None:
    tags = TagFile("getbit", note="mine")
    for i, colour in enumerate(GETBIT_COLOURS):
        tags.add(f"0411223344{i:02X}", f"{colour}-3")
    path = tmp_path / "getbit-tags.json"
    save_tagfile(tags, path)
    back = load_tagfile(path)
    assert list(back.tags.items()) == list(tags.tags.items())
    assert back.note == "mine" and back.game == "getbit"
    assert back.label("041122334400") == "red-3"  # the deck has one of each
    assert [p.name for p in tmp_path.iterdir()] == ["getbit-tags.json"]  # no temp file left
    assert back.remove_last() == ("041122334405", "purple-3")


def test_saving_where_nothing_can_be_written_is_one_write_error(tmp_path: Path) -> None:
    with pytest.raises(WriteError, match="cannot write"):
        save_tagfile(TagFile("chomp"), tmp_path / "no-such-folder" / "t.json")


def test_decks() -> None:
    assert deck_size("chomp") == DECK_SIZE == 50
    assert [c for c, _ in DECKS["chomp"]] == [str(c) for c in DECK_COMPOSITION]
    assert deck_size("getbit") == 42
    assert DECKS["getbit"][0] == ("red-1", 1) and DECKS["getbit"][-1] == ("purple-7", 1)
    assert getbit_number("purple-7") == 7


def test_the_example_file_is_labelled_and_covers_the_deck() -> None:
    raw = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert raw["note"].startswith("EXAMPLE ONLY")
    tags = load_tagfile(EXAMPLE)
    assert tags.game == "chomp"
    for card, n in DECK_COMPOSITION.items():
        assert tags.learned(str(card)) == n
    assert set(tags.tags.values()) <= set(CARD_NAMES)


def test_from_dict_names_no_file_when_there_is_none() -> None:
    with pytest.raises(InputError) as caught:
        tagfile_from_dict({"game": "chomp", "tags": {"zz": "seal"}})
    assert str(caught.value).startswith("tags.zz: bad hex")
