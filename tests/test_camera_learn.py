"""Learning the deck: each card shown once; a sticker on the wrong kind of card is caught."""

from __future__ import annotations

import io
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.camera.deck import CHOMP, GETBIT, StickerDeck, load_deck, save_deck
from companion.camera.learn import Learner, Verdict, markers_of_cards
from companion.camera.model import Frame, Seen, Sighting
from companion.cli import main
from companion.errors import InputError

SQUARE = ((0.0, 0.0), (30.0, 0.0), (30.0, 30.0), (0.0, 30.0))
FRAME_NS = 33_333_333


def seen(index: int, *markers: int) -> Seen:
    return Seen(index, index * FRAME_NS, (1280, 720), tuple(Sighting(m, SQUARE) for m in markers))


def show(learner: Learner, frames: Sequence[tuple[int, ...]], start: int = 0) -> list[Any]:
    """Each frame's markers into the learner; the notes it gave."""
    notes = []
    for i, markers in enumerate(frames, start):
        note = learner.see(seen(i, *markers))
        if note is not None:
            notes.append(note)
    return notes


def test_a_sticker_on_the_wrong_kind_of_card_is_caught_by_learn() -> None:
    learner = Learner(StickerDeck.default(CHOMP))
    assert learner.prompt() == "[ 1/50] show shark 1 of 4"
    notes = show(learner, [(6,), (6,)])  # asked for a shark; seal 3's sticker is on it
    assert [n.verdict for n in notes] == [Verdict.WRONG_CARD]
    assert notes[0].line == (
        "the sticker on this card is seal 3 of 5's: it belongs on a seal, not on this shark; "
        "move it and show shark 1 of 4 again"
    )
    assert learner.deck.checked == frozenset() and learner.expected == 0


def test_the_right_sticker_seen_alone_in_two_frames_running_is_checked() -> None:
    learner = Learner(StickerDeck.default(GETBIT))
    assert show(learner, [(50,)]) == []  # one frame is not yet steady
    notes = show(learner, [(50,)], start=1)
    assert [(n.verdict, n.line) for n in notes] == [(Verdict.RIGHT, "red-1: right (checked)")]
    assert learner.deck.checked == {50} and learner.prompt() == "[ 2/42] show red-2"


def test_a_flicker_between_frames_is_not_steady() -> None:
    learner = Learner(StickerDeck.default(GETBIT))
    assert show(learner, [(50,), (), (50,), (51,), (50,)]) == []
    assert learner.deck.checked == frozenset()


def test_any_sticker_of_the_same_kind_of_card_is_right_and_the_walk_goes_on() -> None:
    learner = Learner(StickerDeck.default(CHOMP))
    notes = show(learner, [(2,), (2,)])  # asked for shark 1 of 4, shown shark 3's sticker
    assert notes[0].line == "shark 3 of 4: right (checked)"
    assert learner.expected == 0 and learner.deck.checked == {2}
    notes = show(learner, [(), (2,), (2,)], start=2)  # the same shark again
    assert [n.verdict for n in notes] == [Verdict.ALREADY]
    assert notes[0].line == "that is shark 3 of 4, checked already: show another shark"


def test_a_sticker_of_the_other_game_is_named_as_such() -> None:
    learner = Learner(StickerDeck.default(CHOMP))
    notes = show(learner, [(55,), (55,)])
    assert [n.verdict for n in notes] == [Verdict.OTHER_GAME]
    assert "a Get Bit! sticker (marker 55), not a CHOMP! one" in notes[0].line


def test_a_marker_the_deck_does_not_have_is_said_once() -> None:
    deck = StickerDeck(CHOMP, {0: "shark", 1: "seal"})
    learner = Learner(deck)
    notes = show(learner, [(30,)] * 5)
    assert [n.line for n in notes] == ["marker 30 is not in this deck: is this shark?"]


def test_each_answer_is_said_once_a_showing_and_again_when_shown_again() -> None:
    learner = Learner(StickerDeck.default(CHOMP))
    notes = show(learner, [(6,)] * 6 + [()] + [(6,)] * 3)
    assert [n.verdict for n in notes] == [Verdict.WRONG_CARD, Verdict.WRONG_CARD]


def test_two_cards_in_view_are_asked_one_at_a_time_once() -> None:
    learner = Learner(StickerDeck.default(CHOMP))
    notes = show(learner, [(0, 4)] * 4 + [(0, 0)])
    assert [n.line for n in notes] == [
        "2 stickers in view (markers 0, 4): show one card at a time",
        "2 stickers in view (markers 0, 0): show one card at a time",
    ]
    assert learner.deck.checked == frozenset()


def test_no_sticker_seen_yet_is_said_after_four_seconds_of_nothing() -> None:
    learner = Learner(StickerDeck.default(GETBIT))
    assert show(learner, [()] * 120) == []  # 3.97 s at 30 frames a second
    notes = show(learner, [()] * 2, start=120)
    assert [n.verdict for n in notes] == [Verdict.NOTHING]
    assert notes[0].line.startswith("no sticker seen yet: hold red-1 face up")


def test_naming_cards_walks_their_stickers_again_even_checked_ones() -> None:
    deck = StickerDeck.default(CHOMP).with_checked(frozenset({4, 5}))
    markers = markers_of_cards(deck, ["seal"], "--cards")
    assert markers == [4, 5, 6, 7, 8]
    learner = Learner(deck, markers)
    notes = show(learner, [(5,), (5,)])  # seal 2's sticker while seal 1 is asked: right
    assert notes[0].verdict is Verdict.RIGHT and learner.expected == 4
    assert markers_of_cards(deck, ["big fish", "octopus"], "--cards") == [
        *range(9, 19),
        *range(46, 50),
    ]
    with pytest.raises(InputError, match="--cards: no card 'whale' in this deck"):
        markers_of_cards(deck, ["whale"], "--cards")


def test_a_sticker_found_on_the_wrong_kind_loses_its_check() -> None:
    deck = StickerDeck.default(CHOMP).with_checked(frozenset({6}))
    learner = Learner(deck, [0])
    show(learner, [(6,), (6,)])
    assert 6 not in learner.deck.checked


@settings(max_examples=examples(200), deadline=None)
@given(
    frames=st.lists(
        st.lists(st.sampled_from([0, 1, 4, 6, 49, 55, 99]), max_size=2).map(tuple), max_size=40
    )
)
def test_only_a_sticker_seen_steadily_alone_on_its_kind_of_card_is_ever_checked(
    frames: list[tuple[int, ...]],
) -> None:
    deck = StickerDeck(CHOMP, {0: "shark", 1: "shark", 4: "seal", 6: "seal", 49: "octopus"})
    learner = Learner(deck)
    previous: tuple[int, ...] = ()
    for i, markers in enumerate(frames):
        asked = learner.expected
        before = learner.deck.checked
        note = learner.see(seen(i, *markers))
        added = learner.deck.checked - before
        if added:
            assert note is not None and note.verdict is Verdict.RIGHT
            (marker,) = added
            assert markers == previous == (marker,)  # alone, in two frames running
            assert asked is not None and deck.card_of(marker) == deck.card_of(asked)
        previous = markers
    assert learner.deck.checked <= set(deck.markers)


# -- the command, over a recorded sequence of rendered frames ----------------------------------

cv2 = pytest.importorskip("cv2")

from camera_pictures import CardOnTable, picture  # noqa: E402


class Recorded:
    """A recorded camera: rendered 1280 x 720 frames, handed over in order, then the end."""

    def __init__(self, images: Sequence[Any], fps: float = 30.0) -> None:
        self.frames = [Frame(i, round(i * 1e9 / fps), im) for i, im in enumerate(images)]
        self._fps = fps
        self.closed = False

    @property
    def describe(self) -> str:
        return "recorded.mp4"

    @property
    def fps(self) -> float:
        return self._fps

    def read(self) -> Frame | None:
        return self.frames.pop(0) if self.frames else None

    def close(self) -> None:
        self.closed = True


def held(marker: int | None, frames: int) -> list[Any]:
    """A card held under the camera (or an empty table) for ``frames`` frames."""
    cards = [] if marker is None else [CardOnTable(marker, (640.0, 360.0), 1.2, 20.0)]
    image = picture(cards)
    return [image] * frames


def learn(
    monkeypatch: pytest.MonkeyPatch, images: Sequence[Any], *argv: str
) -> tuple[int, str, str, Recorded]:
    source = Recorded(images)
    monkeypatch.setattr("companion.commands.camera.open_source", lambda spec: source)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["camera", "learn", "--camera", "recorded.mp4", *argv])
    return status, out.getvalue(), err.getvalue(), source


def test_learn_walks_the_named_cards_through_real_frames_and_saves_the_deck(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    deck = tmp_path / "deck.json"
    images = (
        held(None, 2)
        + held(0, 3)
        + held(None, 1)
        + held(4, 3)  # a seal's sticker on the second shark
        + held(None, 1)
        + held(1, 3)
        + held(2, 2)
        + held(3, 2)
    )
    status, out, err, source = learn(
        monkeypatch, images, "--deck", str(deck), "--game", "chomp", "--cards", "shark"
    )
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "[1/4] show shark 1 of 4",
        "shark 1 of 4: right (checked)",
        "[2/4] show shark 2 of 4",
        "the sticker on this card is seal 1 of 5's: it belongs on a seal, not on this shark; "
        "move it and show shark 2 of 4 again",
        "shark 2 of 4: right (checked)",
        "[3/4] show shark 3 of 4",
        "shark 3 of 4: right (checked)",
        "[4/4] show shark 4 of 4",
        "shark 4 of 4: right (checked)",
        "all 4 asked are done: 4 checked",
    ]
    assert load_deck(deck).checked == {0, 1, 2, 3}
    assert source.closed


def test_learn_keeps_what_was_checked_when_the_frames_end(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    deck = tmp_path / "deck.json"
    save_deck(StickerDeck.default(GETBIT), deck)
    status, out, _, _ = learn(monkeypatch, held(50, 2) + held(None, 2), "--deck", str(deck))
    assert status == 0
    assert out.splitlines()[-1] == (
        "the frames ended (recorded.mp4): 1 of 42 done; run the same command again to go on"
    )
    assert load_deck(deck).checked == {50}
    status, out, _, _ = learn(monkeypatch, held(51, 2), "--deck", str(deck))
    assert out.splitlines()[:2] == ["[ 1/41] show red-2", "red-2: right (checked)"]


def test_learn_without_a_deck_or_a_game_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    status, out, err, _ = learn(monkeypatch, [], "--deck", str(tmp_path / "none.json"))
    assert status == 2 and out == ""
    missing = tmp_path / "none.json"
    assert err == f"companion: --deck: {missing} is not there yet: say --game to start one\n"
    deck = tmp_path / "deck.json"
    save_deck(StickerDeck.default(GETBIT), deck)
    status, _, err, _ = learn(monkeypatch, [], "--deck", str(deck), "--game", "chomp")
    assert status == 2 and err == (
        f"companion: {deck}: game: this is a getbit deck file, not chomp: check --game\n"
    )
    deck.write_text('{"game": "getbit", "cards": {"3": "red-1"}}')
    status, _, err, _ = learn(monkeypatch, [], "--deck", str(deck))
    assert status == 2 and err.startswith(f"companion: {deck}: cards['3']: marker 3 is not")
