"""Learning the deck: each card shown to the camera once, so a sticker on the wrong kind of
card is caught before a game rather than trusted in one (docs/camera.md).

:class:`Learner` is pure: it takes what the detector made of each frame (:class:`Seen`)
and says what to do next; no clock (frame stamps only), no camera, no OpenCV. It asks for
one marker at a time ("show seal 3 of 5") and waits until a single marker has been seen
alone in ``steady`` frames running, then says one of:

* right: the sticker is the card's (or another sticker of the same kind of card: five
  seals are alike, so any seal's sticker on a seal is right); it is checked;
* a sticker of another card: "the sticker on this card is shark 2 of 4's: it belongs on a
  shark, not on this seal" (the sticker is left unchecked until it is seen on its kind);
* a sticker of the other game, or a marker the deck does not have;
* and, while nothing steady is seen for a while, that no sticker is seen yet.

:func:`walk` runs a Learner over a frame source and a detector (both passed in).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from companion.camera.deck import GAME_TITLES, StickerDeck, card_words, game_of_marker
from companion.camera.model import Frame, FrameSource, Seen
from companion.errors import InputError
from companion.text import shown

STEADY_FRAMES = 2  # one marker alone in this many frames running is an answer
NAG_NS = 4_000_000_000  # "no sticker seen yet" after this long without an answer


class Verdict(StrEnum):
    RIGHT = "right"
    ALREADY = "already"  # right kind of card, but that sticker was checked before
    WRONG_CARD = "wrong_card"
    OTHER_GAME = "other_game"
    NOT_IN_DECK = "not_in_deck"
    SEVERAL = "several"
    NOTHING = "nothing"


@dataclass(frozen=True, slots=True)
class Note:
    """What the learner says about a frame: why, the marker seen (if one), one line."""

    verdict: Verdict
    marker: int | None
    line: str


def _article(words: str) -> str:
    return "an" if words[:1] in tuple("aeiou") else "a"


class Learner:
    """The walk through ``markers`` (default: the deck's markers not yet checked)."""

    def __init__(
        self,
        deck: StickerDeck,
        markers: Sequence[int] | None = None,
        steady: int = STEADY_FRAMES,
        nag_ns: int = NAG_NS,
    ) -> None:
        wanted = [m for m in deck.markers if m not in deck.checked] if markers is None else markers
        for marker in wanted:
            if deck.card_of(marker) is None:
                raise ValueError(f"marker {marker} is not in the deck")
        self.deck = deck
        self.todo = list(dict.fromkeys(wanted))
        self.total = len(self.todo)
        self.steady = max(1, steady)
        self.nag_ns = nag_ns
        self._streak: tuple[int, int] | None = None  # (marker alone, frames running)
        self._spoken = False  # this streak has had its answer
        self._several: frozenset[int] = frozenset()
        self._since_ns: int | None = None  # when the current card was first asked

    @property
    def expected(self) -> int | None:
        """The marker asked for now (None: the walk is done)."""
        return self.todo[0] if self.todo else None

    @property
    def finished(self) -> bool:
        return not self.todo

    @property
    def done(self) -> int:
        return self.total - len(self.todo)

    def prompt(self) -> str:
        marker = self.expected
        if marker is None:
            return f"all {self.total} asked are done: {len(self.deck.checked)} checked"
        width = len(str(self.total))
        return f"[{self.done + 1:>{width}}/{self.total}] show {self.deck.label(marker)}"

    def see(self, seen: Seen) -> Note | None:
        """One frame's markers; a Note when there is something to say."""
        if self.finished:
            return None
        if self._since_ns is None:
            self._since_ns = seen.t_ns
        markers = tuple(s.marker for s in seen.sightings)
        if len(markers) > 1:  # two cards, or one id twice: one card at a time
            return self._several_in_view(markers)
        self._several = frozenset()
        if not markers:
            self._streak = None
            self._spoken = False
            return self._nag(seen.t_ns)
        marker = markers[0]
        count = self._streak[1] + 1 if self._streak and self._streak[0] == marker else 1
        if count == 1:
            self._spoken = False
        self._streak = (marker, count)
        if count < self.steady or self._spoken:
            return None
        self._spoken = True
        return self._answer(marker)

    def _several_in_view(self, markers: tuple[int, ...]) -> Note | None:
        self._streak = None
        self._spoken = False
        if frozenset(markers) == self._several:
            return None
        self._several = frozenset(markers)
        shown = ", ".join(str(m) for m in sorted(markers))
        return Note(
            Verdict.SEVERAL,
            None,
            f"{len(markers)} stickers in view (markers {shown}): show one card at a time",
        )

    def _nag(self, t_ns: int) -> Note | None:
        if self._since_ns is None or t_ns - self._since_ns < self.nag_ns:
            return None
        self._since_ns = t_ns
        marker = self.expected
        assert marker is not None
        return Note(
            Verdict.NOTHING,
            None,
            f"no sticker seen yet: hold {self.deck.label(marker)} face up under the camera, "
            "the sticker uncovered",
        )

    def _next(self) -> None:
        self.todo.pop(0)
        self._since_ns = None

    def _answer(self, marker: int) -> Note:
        expected = self.expected
        assert expected is not None
        deck = self.deck
        want = deck.card_of(expected)
        assert want is not None
        got = deck.card_of(marker)
        asked = deck.label(expected)
        if got is None:
            game = game_of_marker(marker)
            if game is not None and game != deck.game:
                return Note(
                    Verdict.OTHER_GAME,
                    marker,
                    f"the sticker on this card is a {GAME_TITLES[game]} sticker (marker "
                    f"{marker}), not a {GAME_TITLES[deck.game]} one: show {asked}",
                )
            return Note(
                Verdict.NOT_IN_DECK,
                marker,
                f"marker {marker} is not in this deck: is this {asked}?",
            )
        if got != want:
            self.deck = StickerDeck(deck.game, deck.cards, deck.checked - {marker})
            kind = card_words(got)
            return Note(
                Verdict.WRONG_CARD,
                marker,
                f"the sticker on this card is {deck.label(marker)}'s: it belongs on "
                f"{_article(kind)} {kind}, not on this {card_words(want)}; move it and "
                f"show {asked} again",
            )
        if marker in deck.checked and marker not in self.todo:
            return Note(
                Verdict.ALREADY,
                marker,
                f"that is {deck.label(marker)}, checked already: show another {card_words(want)}",
            )
        self.deck = deck.with_checked(frozenset({marker}))
        if marker in self.todo:
            self.todo.remove(marker)
            self._since_ns = None
        else:
            self._next()
        return Note(Verdict.RIGHT, marker, f"{deck.label(marker)}: right (checked)")


def markers_of_cards(deck: StickerDeck, names: Iterable[str], where: str) -> list[int]:
    """The deck's markers on the named cards (``big_fish`` or ``big fish``), in id order;
    an unknown name is an InputError naming ``where`` with the deck's card names."""
    known = dict.fromkeys(deck.cards.values())
    wanted = []
    for typed in names:
        name = typed.strip().replace(" ", "_")  # "big fish" as the labels write it
        if name not in known:
            raise InputError(
                where, f"no card {shown(typed)} in this deck (one of: {', '.join(known)})"
            )
        wanted.append(name)
    return [m for m, card in deck.cards.items() if card in wanted]


def walk(
    learner: Learner,
    source: FrameSource,
    see: Callable[[Frame], Seen],
    say: Callable[[str], None],
    checked: Callable[[StickerDeck], None],
) -> bool:
    """Frames from ``source`` through ``see`` (a detector's) into ``learner`` until the walk
    is done (True) or the frames end (False); ``checked`` is given the deck after every
    card checked (to save it), ``say`` every line for the person."""
    say(learner.prompt())
    while not learner.finished:
        frame = source.read()
        if frame is None:
            say(
                f"the frames ended ({source.describe}): {learner.done} of {learner.total} "
                "done; run the same command again to go on"
            )
            return False
        note = learner.see(see(frame))
        if note is None:
            continue
        say(note.line)
        if note.verdict is Verdict.RIGHT:
            checked(learner.deck)
            if not learner.finished:
                say(learner.prompt())
    say(learner.prompt())
    return True
