"""A round's cards from frames: given by where they lie, asked when they cannot be.

The reader is pure: frames are made here as sightings at chosen places (no OpenCV), on
three zones side by side at the bottom of a 1280 x 720 picture.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_camera_zones import SIZE, TinyDeck, square

from companion.camera.model import Seen, Sighting, Zone
from companion.camera.reader import Ask, ReadUpdate, RevealReader
from companion.camera.zones import Zones

DECK = TinyDeck(cards={0: "plankton", 1: "shrimp", 2: "seal", 3: "shark", 4: "seal", 5: "octopus"})
ZONES = Zones(
    [
        Zone("ann", ((0.0, 0.5), (0.3, 0.5), (0.3, 1.0), (0.0, 1.0))),
        Zone("bob", ((0.3, 0.5), (0.7, 0.5), (0.7, 1.0), (0.3, 1.0))),
        Zone("cat", ((0.7, 0.5), (1.0, 0.5), (1.0, 1.0), (0.7, 1.0))),
    ]
)
CENTRE = {"ann": (0.15, 0.75), "bob": (0.5, 0.75), "cat": (0.85, 0.75)}
ONE_EACH = {"ann": 1, "bob": 1, "cat": 1}
REVEAL, DEADLINE = 1_000_000_000, 2_500_000_000
FRAME_NS = 33_333_333


def at(seat: str, marker: int, dx: float = 0.0) -> Sighting:
    x, y = CENTRE[seat]
    return square(marker, x + dx, y)


def frame(i: int, *sightings: Sighting) -> Seen:
    """Frame ``i`` after the reveal (frame 0 is taken at the reveal's stamp)."""
    return Seen(i, REVEAL + i * FRAME_NS, SIZE, tuple(sightings))


def armed(expect: dict[str, int] | None = None, agree: int = 2) -> RevealReader:
    reader = RevealReader(DECK, ZONES, agree=agree)
    reader.arm(7, ONE_EACH if expect is None else expect, REVEAL, DEADLINE)
    return reader


def feed(reader: RevealReader, frames: Sequence[Seen]) -> list[ReadUpdate]:
    return [reader.see(f) for f in frames]


def given_out(updates: Sequence[ReadUpdate]) -> list[ReadUpdate]:
    return [u for u in updates if u.cards is not None]


def asks(updates: Sequence[ReadUpdate]) -> list[Ask]:
    return [a for u in updates for a in u.asks]


ALL_THREE = (at("ann", 0), at("bob", 2), at("cat", 3))


def test_cards_go_out_once_when_every_seat_agrees_in_two_frames() -> None:
    reader = armed()
    first, second, third = feed(
        reader, [frame(1, *ALL_THREE), frame(2, *ALL_THREE), frame(3, *ALL_THREE)]
    )
    assert first.cards is None
    assert second.cards == {"ann": ("plankton",), "bob": ("seal",), "cat": ("shark",)}
    assert second.complete and second.asks == ()
    assert second.frames_ns == (REVEAL + FRAME_NS, REVEAL + 2 * FRAME_NS)
    assert second.frame_index == 2
    assert third.cards is None  # never twice
    assert reader.expire(DEADLINE).cards is None
    assert not reader.armed


def test_agreeing_frames_need_not_follow_each_other_a_hand_may_cover_a_card_between() -> None:
    reader = armed()
    updates = feed(
        reader,
        [
            frame(1, *ALL_THREE),
            frame(2, at("ann", 0), at("cat", 3)),  # a hand over bob's card
            frame(3, at("bob", 2)),  # over ann's and cat's
        ],
    )
    out = given_out(updates)
    assert len(out) == 1 and out[0] is updates[2]
    assert out[0].cards == {"ann": ("plankton",), "bob": ("seal",), "cat": ("shark",)}
    assert out[0].frames_ns == tuple(REVEAL + i * FRAME_NS for i in (1, 2, 3))
    assert out[0].frame_index == 3


def test_frames_before_the_reveal_are_ignored() -> None:
    reader = armed()
    early = [Seen(i, REVEAL - (5 - i) * FRAME_NS, SIZE, ALL_THREE) for i in range(5)]
    assert given_out(feed(reader, early)) == []
    assert given_out(feed(reader, [frame(5, *ALL_THREE)])) == []
    assert given_out(feed(reader, [frame(6, *ALL_THREE)]))[0].frames_ns == (
        REVEAL + 5 * FRAME_NS,
        REVEAL + 6 * FRAME_NS,
    )


def test_an_unarmed_reader_reads_nothing() -> None:
    reader = RevealReader(DECK, ZONES)
    assert not reader.armed
    assert given_out(feed(reader, [frame(1, *ALL_THREE), frame(2, *ALL_THREE)])) == []


def test_disarm_ends_the_round_typed_cards_came_first() -> None:
    reader = armed()
    reader.see(frame(1, *ALL_THREE))
    reader.disarm()
    assert not reader.armed
    assert reader.see(frame(2, *ALL_THREE)).cards is None
    assert reader.expire(DEADLINE).cards is None


def test_a_card_between_two_zones_is_asked_never_guessed() -> None:
    reader = armed()
    between = square(2, 0.3, 0.75)  # on ann's and bob's border
    updates = feed(reader, [frame(i, at("ann", 0), between, at("cat", 3)) for i in (1, 2, 3, 4)])
    assert given_out(updates) == []
    lines = asks(updates)
    assert [a.seat for a in lines] == ["ann", "bob"]  # once each, not every frame
    assert "between ann's and bob's zones" in lines[0].why
    assert "seal" in lines[0].why
    final = reader.expire(DEADLINE)
    assert final.cards == {"cat": ("shark",)}  # ann's own card was read, but a card
    assert not final.complete  # touching her zone leaves hers in doubt: asked
    assert sorted(a.seat or "" for a in final.asks) == ["ann", "bob"]


def test_one_smeared_frame_asks_nothing() -> None:
    reader = armed()
    updates = feed(
        reader,
        [
            frame(1, at("ann", 0), square(2, 0.3, 0.75), at("cat", 3)),  # bob's card sliding in
            frame(2, *ALL_THREE),
            frame(3, *ALL_THREE),
        ],
    )
    assert asks(updates) == []
    assert given_out(updates)[0].cards == {
        "ann": ("plankton",),
        "bob": ("seal",),
        "cat": ("shark",),
    }


def test_two_cards_in_one_zone_are_asked_unless_double_chomp_expects_two() -> None:
    two_in_bob = (at("ann", 0), at("bob", 2, dx=-0.08), at("bob", 5, dx=0.08), at("cat", 3))
    reader = armed()
    updates = feed(reader, [frame(1, *two_in_bob), frame(2, *two_in_bob)])
    assert given_out(updates) == []
    (ask,) = asks(updates)
    assert ask.seat == "bob"
    assert ask.why.startswith("2 cards lie in bob's zone (octopus, seal) where 1 is shown")

    double = armed(expect={"ann": 1, "bob": 2, "cat": 1})
    updates = feed(double, [frame(1, *two_in_bob), frame(2, *two_in_bob)])
    assert given_out(updates)[0].cards == {
        "ann": ("plankton",),
        "bob": ("octopus", "seal"),
        "cat": ("shark",),
    }
    assert asks(updates) == []


def test_one_of_two_double_chomp_cards_covered_is_not_a_read() -> None:
    reader = armed(expect={"ann": 2, "bob": 2})
    pair = (at("ann", 0, dx=-0.06), at("ann", 1, dx=0.06))
    half = (at("bob", 2, dx=-0.08),)
    updates = feed(reader, [frame(1, *pair, *half), frame(2, *pair, *half), frame(3, *pair, *half)])
    assert given_out(updates) == [] and asks(updates) == []
    final = reader.expire(DEADLINE)
    assert final.cards == {"ann": ("plankton", "shrimp")}
    assert final.asks == (Ask("bob", "bob's card was not seen (covered?)"),)


def test_a_covered_card_is_asked_for_its_seat_only() -> None:
    reader = armed()
    no_bob = (at("ann", 0), at("cat", 3))
    updates = feed(reader, [frame(i, *no_bob) for i in range(1, 30)])
    assert given_out(updates) == [] and asks(updates) == []
    assert reader.expire(DEADLINE - 1).cards is None  # not yet
    final = reader.expire(DEADLINE)
    assert final.cards == {"ann": ("plankton",), "cat": ("shark",)}
    assert not final.complete
    assert final.asks == (Ask("bob", "bob's card was not seen (covered?)"),)
    assert final.frames_ns == (REVEAL + FRAME_NS, REVEAL + 2 * FRAME_NS)
    assert final.frame_index == 2
    assert reader.expire(DEADLINE + 1).cards is None  # once
    assert reader.see(frame(31, *ALL_THREE)).cards is None


def test_a_seat_seen_in_fewer_than_agree_frames_is_asked_saying_so() -> None:
    reader = armed()
    feed(reader, [frame(1, *ALL_THREE), frame(2, at("ann", 0), at("cat", 3))])
    final = reader.expire(DEADLINE)
    assert final.cards == {"ann": ("plankton",), "cat": ("shark",)}
    assert final.asks == (Ask("bob", "bob's card was seen in only 1 of the 2 frames (covered?)"),)


def test_a_seat_whose_reads_disagree_is_asked_never_picked() -> None:
    reader = armed()
    updates = feed(
        reader,
        [
            frame(1, *ALL_THREE),
            frame(2, at("ann", 0), at("bob", 5), at("cat", 3)),  # bob's zone: another card
            frame(3, *ALL_THREE),
            frame(4, *ALL_THREE),
        ],
    )
    assert given_out(updates) == []
    (ask,) = asks(updates)
    assert ask.seat == "bob" and "seal and octopus" in ask.why
    assert updates[1].asks == (ask,)  # at once: two different cards were really seen
    final = reader.expire(DEADLINE)
    assert final.cards == {"ann": ("plankton",), "cat": ("shark",)}
    assert final.asks == (Ask("bob", "bob's card was not read: two different cards were seen"),)


def test_a_seat_decided_then_read_otherwise_before_the_cards_go_out_is_asked() -> None:
    reader = armed()
    ann_bob = (at("ann", 0), at("bob", 2))
    updates = feed(
        reader,
        [
            frame(1, *ann_bob),
            frame(2, *ann_bob),
            frame(3, at("ann", 1)),
            frame(4, *ALL_THREE),
            frame(5, *ALL_THREE),
        ],
    )
    assert given_out(updates) == []
    assert [a.seat for a in asks(updates)] == ["ann"]
    assert reader.expire(DEADLINE).cards == {"bob": ("seal",), "cat": ("shark",)}


def test_a_card_arriving_in_a_zone_already_read_is_not_asked_about() -> None:
    reader = armed()
    late = (at("ann", 0), at("bob", 2, dx=-0.08), at("bob", 5, dx=0.08))  # a second card
    updates = feed(
        reader,
        [frame(1, at("ann", 0), at("bob", 2)), frame(2, at("ann", 0), at("bob", 2))]
        + [frame(i, *late) for i in (3, 4, 5)]
        + [frame(6, at("cat", 3)), frame(7, at("cat", 3))],
    )
    assert asks(updates) == []
    assert given_out(updates)[0].cards == {
        "ann": ("plankton",),
        "bob": ("seal",),
        "cat": ("shark",),
    }


def test_a_marker_not_in_the_deck_is_asked() -> None:
    reader = armed()
    stray = (at("ann", 0), at("bob", 40), at("cat", 3))  # CHOMP!'s range, not bound in DECK
    updates = feed(reader, [frame(1, *stray), frame(2, *stray), frame(3, *stray)])
    assert given_out(updates) == []
    assert asks(updates) == [
        Ask("bob", "marker 40 in bob's zone is not in the deck: type bob's card")
    ]


def test_a_card_of_the_other_game_is_asked_as_such() -> None:
    reader = armed()
    getbit = (at("ann", 0), at("bob", 2), at("cat", 3, dx=-0.05), at("cat", 60, dx=0.05))
    updates = feed(reader, [frame(1, *getbit), frame(2, *getbit)])
    assert given_out(updates) == []
    (ask,) = asks(updates)
    assert ask.seat == "cat" and ask.why.startswith(
        "a Get Bit! card (marker 60) lies in cat's zone"
    )


def test_a_card_outside_every_zone_is_ignored() -> None:
    reader = armed()
    cup = square(60, 0.5, 0.2)  # a Get Bit! card on the draw pile, far from the seats
    updates = feed(reader, [frame(1, *ALL_THREE, cup), frame(2, *ALL_THREE, cup)])
    assert asks(updates) == []
    assert given_out(updates)[0].complete


def test_a_card_in_the_zone_of_a_seat_not_playing_is_ignored() -> None:
    reader = armed(expect={"ann": 1, "cat": 1})
    updates = feed(reader, [frame(1, *ALL_THREE), frame(2, *ALL_THREE)])
    assert given_out(updates)[0].cards == {"ann": ("plankton",), "cat": ("shark",)}


def test_a_seat_without_a_zone_is_asked_at_once() -> None:
    reader = armed(expect={"ann": 1, "bob": 1, "dan": 1})
    first = reader.see(frame(1, *ALL_THREE))
    assert first.asks == (Ask("dan", "dan has no zone on the picture: type dan's card"),)
    assert reader.see(frame(2, *ALL_THREE)).cards is None
    assert reader.expire(DEADLINE).cards == {"ann": ("plankton",), "bob": ("seal",)}


def test_agree_counts_the_frames_asked_for() -> None:
    reader = armed(agree=3)
    updates = feed(reader, [frame(i, *ALL_THREE) for i in (1, 2, 3)])
    assert [u.cards is not None for u in updates] == [False, False, True]
    with pytest.raises(ValueError, match="at least one"):
        RevealReader(DECK, ZONES, agree=0)


def test_arming_again_starts_a_new_round() -> None:
    reader = armed()
    reader.see(frame(1, at("ann", 1), at("bob", 2), at("cat", 3)))
    reader.arm(8, ONE_EACH, REVEAL + 10 * FRAME_NS, DEADLINE)
    updates = feed(reader, [frame(i, *ALL_THREE) for i in (11, 12)])
    assert given_out(updates)[0].cards == {
        "ann": ("plankton",),
        "bob": ("seal",),
        "cat": ("shark",),
    }


# -- property: never a card that did not lie in the seat's zone in `agree` frames -----------

SEATS = ("ann", "bob", "cat")
# what one seat's spot shows in a frame: its card, nothing (a hand), a card slid onto the
# border, a card pushed into the neighbour's zone, a second card, a stray marker
SPOT = st.sampled_from(["card", "card", "card", "covered", "border", "neighbour", "extra", "stray"])


@st.composite
def rounds(draw: st.DrawFn) -> tuple[dict[str, int], list[Seen], int]:
    expect = {seat: draw(st.sampled_from([1, 1, 2])) for seat in SEATS}
    agree = draw(st.integers(1, 3))
    frames = []
    t_ns = REVEAL - draw(st.integers(0, 5)) * FRAME_NS
    for index in range(draw(st.integers(0, 14))):
        shown: list[Sighting] = []
        for seat in SEATS:
            cards = draw(
                st.lists(
                    st.sampled_from([0, 1, 2, 3, 4, 5]),
                    min_size=expect[seat],
                    max_size=expect[seat],
                )
            )
            for k, marker in enumerate(cards):
                dx = (k - (len(cards) - 1) / 2) * 0.08
                what = draw(SPOT)
                if what in ("card", "extra"):
                    shown.append(at(seat, marker, dx))
                if what == "extra":
                    shown.append(at(seat, draw(st.sampled_from([0, 1, 2, 3, 4, 5])), dx + 0.04))
                elif what == "border":
                    shown.append(square(marker, {"ann": 0.3, "bob": 0.7, "cat": 0.7}[seat], 0.75))
                elif what == "neighbour":
                    other = SEATS[(SEATS.index(seat) + 1) % 3]
                    shown.append(at(other, marker, dx))
                elif what == "stray":
                    shown.append(at(seat, draw(st.sampled_from([40, 60, 97])), dx))
        frames.append(Seen(index, t_ns, SIZE, tuple(shown)))
        t_ns += draw(st.integers(1, 3)) * FRAME_NS
    return expect, frames, agree


@settings(max_examples=examples(400), deadline=None)
@given(rounds(), st.booleans())
def test_the_reader_never_gives_a_card_that_did_not_lie_in_the_zone_in_agree_frames(
    case: tuple[dict[str, int], list[Seen], int], expire: bool
) -> None:
    expect, frames, agree = case
    reader = RevealReader(DECK, ZONES, agree=agree)
    reader.arm(1, expect, REVEAL, DEADLINE)
    updates = [reader.see(f) for f in frames]
    if expire:
        updates.append(reader.expire(DEADLINE))
    out = given_out(updates)
    assert len(out) <= 1  # never twice a round
    if not out:
        return
    (update,) = out
    assert update.cards is not None
    assert not {a.seat for a in update.asks} & set(update.cards)  # a seat read is not asked
    if update.complete:
        assert set(update.cards) == set(SEATS)
    after = [f for f in frames if f.t_ns >= REVEAL]
    for seat, cards in update.cards.items():
        assert len(cards) == expect[seat]
        lying = [
            f.t_ns
            for f in after
            if tuple(
                sorted(DECK.card_of(s.marker) or "?" for s in ZONES.place(f).by_seat.get(seat, ()))
            )
            == cards
        ]
        assert len(lying) >= agree
    given_frames = {f.t_ns for f in after}
    assert set(update.frames_ns) <= given_frames
    for f in after:  # every frame given as evidence holds a given seat's cards
        if f.t_ns in update.frames_ns:
            assert any(
                tuple(
                    sorted(
                        DECK.card_of(s.marker) or "?" for s in ZONES.place(f).by_seat.get(seat, ())
                    )
                )
                == cards
                for seat, cards in update.cards.items()
            )
    seats_asked = [a.seat for a in asks(updates)]
    for seat in SEATS:
        reasons = [a.why for a in asks(updates) if a.seat == seat]
        assert len(reasons) == len(set(reasons))  # once per seat and reason
    assert all(s in SEATS for s in seats_asked)


@settings(max_examples=examples(300), deadline=None)
@given(rounds())
def test_a_seat_shown_two_different_reads_is_never_given_a_card(
    case: tuple[dict[str, int], list[Seen], int],
) -> None:
    expect, frames, agree = case
    reader = RevealReader(DECK, ZONES, agree=agree)
    reader.arm(1, expect, REVEAL, DEADLINE)
    reads: dict[str, set[tuple[str, ...]]] = {seat: set() for seat in SEATS}
    for f in frames:
        placement = ZONES.place(f)
        spoilt = {s for group in placement.between_seats for s in group}
        for seat in SEATS:
            names = [DECK.card_of(s.marker) for s in placement.by_seat.get(seat, ())]
            if seat not in spoilt and None not in names and len(names) == expect[seat]:
                if f.t_ns >= REVEAL:
                    reads[seat].add(tuple(sorted(n for n in names if n is not None)))
        update = reader.see(f)
        if update.cards is not None:
            break
    else:
        update = reader.expire(DEADLINE)
    for seat in update.cards or {}:
        assert len(reads[seat]) == 1


def test_the_printed_sheets_deck_is_read_as_bound_and_its_other_game_asked() -> None:
    from companion.camera.deck import CHOMP, StickerDeck
    from companion.camera.zones import CardBook

    deck: CardBook = StickerDeck.default(CHOMP)  # the sticker deck is a CardBook
    reader = RevealReader(deck, ZONES)
    reader.arm(1, ONE_EACH, REVEAL, DEADLINE)
    shown = (at("ann", 0), at("bob", 4), at("cat", 55))  # a shark, a seal, a Get Bit! card
    updates = feed(reader, [frame(1, *shown), frame(2, *shown)])
    assert [a.seat for a in asks(updates)] == ["cat"]
    assert "Get Bit!" in asks(updates)[0].why
    assert reader.expire(DEADLINE).cards == {"ann": ("shark",), "bob": ("seal",)}
