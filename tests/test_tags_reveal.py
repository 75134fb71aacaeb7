"""A round's cards from tags: complete mappings or prompts, never a guess."""

from __future__ import annotations

import threading

import pytest

from companion.errors import InputError
from companion.games.chomp import Card
from companion.tags.readers import CallbackReader, TagKind, TagRead, typed_line
from companion.tags.reveal import ChompTagReveal, GetBitTagReveal, RevealRunner, Update
from companion.tags.tagfile import TagFile

SEATS = ("ann", "bob", "cat")

CHOMP_TAGS = TagFile(
    "chomp",
    {
        "04000001": "seal",
        "04000002": "shark",
        "04000003": "big_fish",
        "04000004": "seal",
        "04000005": "octopus",
        "code:CH-6": "plankton",
    },
    source="/home/pi/chomp-tags.json",
)
GETBIT_TAGS = TagFile(
    "getbit",
    {"05000001": "red-3", "05000002": "blue-3", "05000003": "green-7", "05000004": "red-5"},
)


def uid(tag: str, index: int = 0) -> TagRead:
    return TagRead("pn532:/dev/serial0", index, tag)


def typed(text: str) -> TagRead:
    read = typed_line(text)
    assert read == TagRead("keyboard", 0, text, TagKind.CODE) and read.typed
    return read


def test_single_reader_fills_the_seats_in_order() -> None:
    reveal = ChompTagReveal(CHOMP_TAGS, SEATS)
    assert reveal.waiting_for() == "ann"
    assert reveal.feed(uid("04000001")) == Update()
    assert reveal.feed(uid("04000002")) == Update()
    assert reveal.status_line() == "ann seal · bob shark · cat _  (scan cat)"
    done = reveal.feed(uid("04000004"))  # another seal: a different card, fine
    assert done.cards == {"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.SEAL,)}
    assert done.prompts == ()
    assert reveal.feed(uid("04000003")).prompts == (
        "every seat has its card: tag 04000003 ignored (undo to change one)",
    )


def test_one_reader_per_seat_in_any_order() -> None:
    reveal = ChompTagReveal(CHOMP_TAGS, SEATS, seat_of_reader={0: "ann", 1: "bob", 2: "cat"})
    assert reveal.feed(uid("04000003", 2)) == Update()
    assert reveal.feed(uid("04000003", 2)) == Update()  # read again on the same reader
    assert reveal.feed(uid("04000001", 0)) == Update()
    done = reveal.feed(uid("04000002", 1))
    assert done.cards == {"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.BIG_FISH,)}
    assert list(done.cards) == list(SEATS)  # seat order, whatever the order of the reads
    assert reveal.feed(uid("04000001", 0)) == Update()  # still lying there: nothing
    assert reveal.feed(uid("04000002", 7)).prompts == (
        "reader 7 is at no seat: tag 04000002 ignored",
    )


def test_unknown_tag_is_a_prompt_and_typing_the_card_answers_it() -> None:
    reveal = ChompTagReveal(CHOMP_TAGS, SEATS)
    reveal.feed(uid("04000001"))
    assert reveal.feed(uid("04A1B2C3D4")).prompts == (
        "tag 04A1B2C3D4 is not in chomp-tags.json: scan again or type the card for bob",
    )
    assert reveal.feed(typed("CH-9")).prompts == (
        "code 'CH-9' is not in chomp-tags.json: scan again or type the card for bob",
    )
    assert reveal.feed(typed("CH-6")) == Update()  # a wedge scanner's known code: plankton
    assert reveal.names() == {"ann": ("seal",), "bob": ("plankton",)}
    done = reveal.feed(typed("shark"))  # typed by a person
    assert done.cards == {"ann": (Card.SEAL,), "bob": (Card.PLANKTON,), "cat": (Card.SHARK,)}


def test_the_same_tag_twice_is_a_prompt_to_rescan_the_second_seat() -> None:
    reveal = ChompTagReveal(CHOMP_TAGS, SEATS)
    reveal.feed(uid("04000001"))
    assert reveal.feed(uid("04000001")).prompts == (
        "seal read twice (seat ann and bob): rescan bob",
    )
    assert reveal.waiting_for() == "bob" and not reveal.complete
    assert reveal.feed(uid("04000002")) == Update()
    assert reveal.feed(uid("04000003")).cards is not None


def test_the_same_tag_on_two_seats_readers_clears_the_second() -> None:
    reveal = ChompTagReveal(CHOMP_TAGS, SEATS, seat_of_reader={0: "ann", 1: "bob", 2: "cat"})
    reveal.feed(uid("04000001", 0))
    reveal.feed(uid("04000002", 1))
    assert reveal.feed(uid("04000001", 1)).prompts == (
        "seal read twice (seat ann and bob): rescan bob",
    )
    assert reveal.names() == {"ann": ("seal",)}
    assert reveal.feed(uid("04000003", 2)).cards is None  # bob must be rescanned first
    assert reveal.feed(uid("04000002", 1)).cards is not None


def test_two_different_cards_on_one_seats_reader_are_not_guessed() -> None:
    reveal = ChompTagReveal(CHOMP_TAGS, SEATS, seat_of_reader={0: "ann", 1: "bob", 2: "cat"})
    reveal.feed(uid("04000001", 0))
    assert reveal.feed(uid("04000002", 0)).prompts == (
        "two different cards read for ann (seal, then shark): rescan ann",
    )
    assert reveal.names() == {}
    reveal.feed(uid("04000003", 1))
    reveal.feed(uid("04000005", 2))
    assert reveal.feed(uid("04000002", 0)).cards == {
        "ann": (Card.SHARK,),
        "bob": (Card.BIG_FISH,),
        "cat": (Card.OCTOPUS,),
    }


def test_a_seat_with_no_card_when_the_round_must_be_decided() -> None:
    reveal = ChompTagReveal(CHOMP_TAGS, SEATS, seat_of_reader={0: "ann", 1: "bob", 2: "cat"})
    reveal.feed(uid("04000001", 0))
    assert reveal.demand().prompts == ("no card read for bob, cat",)
    reveal.feed(uid("04000002", 1))
    assert reveal.demand() == Update(("no card read for cat",))
    assert reveal.names() == {"ann": ("seal",), "bob": ("shark",)}  # never sent as complete
    assert reveal.feed(typed("cat=octopus")).cards is not None
    assert reveal.demand() == Update()  # sent already


def test_double_chomp_two_cards_a_seat() -> None:
    reveal = ChompTagReveal(CHOMP_TAGS, ("ann", "bob"), hand_sizes={"ann": 2, "bob": 2})
    reveal.feed(uid("04000001"))
    assert reveal.waiting_for() == "ann"
    reveal.feed(uid("04000002"))
    reveal.feed(uid("04000003"))
    assert reveal.demand().prompts == ("1 of 2 cards read for bob",)
    done = reveal.feed(uid("04000005"))
    assert done.cards == {"ann": (Card.SEAL, Card.SHARK), "bob": (Card.BIG_FISH, Card.OCTOPUS)}


def test_undo_and_corrections_after_the_cards_went_out() -> None:
    reveal = ChompTagReveal(CHOMP_TAGS, SEATS)
    for tag in ("04000001", "04000002", "04000003"):
        reveal.feed(uid(tag))
    assert reveal.sent
    assert reveal.feed(typed("undo")).prompts == ("took back cat's big_fish: scan cat",)
    again = reveal.feed(uid("04000005"))
    assert again.cards == {"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.OCTOPUS,)}
    fixed = reveal.feed(typed("bob=seal"))  # a person corrects one seat: it goes out again
    assert fixed.cards == {"ann": (Card.SEAL,), "bob": (Card.SEAL,), "cat": (Card.OCTOPUS,)}
    assert reveal.feed(typed("dan=seal")).prompts == (
        "not a seat this round: 'dan' (seats: ann, bob, cat)",
    )
    assert reveal.feed(typed("bob=whale")).prompts == ("not a CHOMP! card: 'whale'",)


def test_new_round_forgets_and_disarm_ignores() -> None:
    reveal = ChompTagReveal(CHOMP_TAGS, SEATS)
    reveal.feed(uid("04000001"))
    reveal.disarm()
    assert reveal.feed(uid("04000002")) == Update()
    assert reveal.demand() == Update()
    reveal.new_round(("ann", "cat"))  # bob is out
    assert reveal.feed(uid("04000001")) == Update()  # the same seal, a new round
    assert reveal.feed(uid("04000002")).cards == {"ann": (Card.SEAL,), "cat": (Card.SHARK,)}


def test_setup_mistakes_are_refused() -> None:
    with pytest.raises(InputError, match="this is a Get Bit! tag file; CHOMP! needs its own"):
        ChompTagReveal(GETBIT_TAGS, SEATS)
    with pytest.raises(InputError, match="reader 1: 'dan' is not a seat"):
        ChompTagReveal(CHOMP_TAGS, SEATS, seat_of_reader={0: "ann", 1: "dan"})
    with pytest.raises(InputError, match="two readers at one seat: ann"):
        ChompTagReveal(CHOMP_TAGS, SEATS, seat_of_reader={0: "ann", 1: "ann"})
    with pytest.raises(InputError, match="unknown colour 'pink'"):
        GetBitTagReveal(GETBIT_TAGS, ("ann", "bob"), colours={"ann": "pink"})


def test_getbit_robots_get_numbers() -> None:
    reveal = GetBitTagReveal(GETBIT_TAGS, ("ann", "bob", "cat", "dan"))
    reveal.feed(uid("05000001"))
    reveal.feed(uid("05000002"))  # the same number for another robot: the rules' business
    reveal.feed(uid("05000003"))
    assert reveal.demand().prompts == ("no card read for dan",)
    done = reveal.feed(uid("05000004"))
    assert done.cards == {"ann": 3, "bob": 3, "cat": 7, "dan": 5}


def test_getbit_colours_refuse_another_robots_card() -> None:
    colours = {"ann": "red", "bob": "blue"}
    reveal = GetBitTagReveal(GETBIT_TAGS, ("ann", "bob"), {0: "ann", 1: "bob"}, colours)
    assert reveal.feed(uid("05000002", 0)).prompts == (
        "blue-3 is not ann's colour (red): rescan ann",
    )
    assert reveal.feed(uid("05000001", 0)) == Update()
    assert reveal.feed(uid("05000004", 1)).prompts == (
        "red-5 is not bob's colour (blue): rescan bob",
    )
    assert reveal.feed(typed("4")).cards == {"ann": 3, "bob": 4}  # a typed number: bob's blue-4


def test_runner_polls_readers_and_calls_back() -> None:
    bridge = CallbackReader()
    cards: list[dict[str, tuple[Card, ...]]] = []
    prompts: list[str] = []
    got = threading.Event()

    def on_cards(c: dict[str, tuple[Card, ...]]) -> None:
        cards.append(c)
        got.set()

    reveal = ChompTagReveal(CHOMP_TAGS, SEATS, seat_of_reader={0: "ann", 1: "bob", 2: "cat"})
    runner = RevealRunner(reveal, [bridge], on_cards, prompts.append, poll_s=0.02).start()
    try:
        runner.new_round(SEATS, key=1)
        bridge.push(0, bytes.fromhex("04000001"))
        bridge.push(1, bytes.fromhex("04000009"))  # unknown
        bridge.push(1, bytes.fromhex("04000002"))
        bridge.push(2, bytes.fromhex("04000003"))
        assert got.wait(5)
        assert cards == [{"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.BIG_FISH,)}]
        assert prompts == [
            "tag 04000009 is not in chomp-tags.json: scan again or type the card for bob"
        ]
        runner.new_round(SEATS, key=1)  # the same round again: nothing forgotten
        assert reveal.sent
        runner.new_round(SEATS, key=2)
        runner.demand()
        assert prompts[-1] == "no card read for ann, bob, cat"
        assert runner.status_line() == "ann _ · bob _ · cat _  (scan ann)"
    finally:
        runner.close()
    assert bridge.finished


def test_runner_asks_for_missing_cards_by_itself() -> None:
    bridge = CallbackReader()
    prompts: list[str] = []
    asked = threading.Event()

    def on_prompt(line: str) -> None:
        prompts.append(line)
        asked.set()

    reveal = ChompTagReveal(CHOMP_TAGS, SEATS)
    runner = RevealRunner(
        reveal, [bridge], lambda c: None, on_prompt, poll_s=0.02, demand_after_s=0.3
    ).start()
    try:
        bridge.push(0, bytes.fromhex("04000001"))
        assert asked.wait(5)
        assert prompts == ["no card read for bob, cat"]
    finally:
        runner.close()
