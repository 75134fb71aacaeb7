"""A round's cards from frames: pure, no clock, no thread, no OpenCV.

The table arms the reader at each reveal with the round's stamp and deadline; every frame
the detector has seen is passed to :meth:`RevealReader.see`. A seat's read in a frame is
the sorted card names of the markers lying wholly in its zone; the seat is decided once
the same complete read (as many cards as it is expected to show) is seen in ``agree``
frames, which need not follow each other: a hand may cover the card in between. The cards
go out once, when every seat is decided.

Anything the reader cannot settle by where a card lies is asked, never guessed (each Ask
once per seat and reason): a card between zones; more cards in a zone than the seat shows;
a marker not in the deck or of the other game (these three once seen in ``agree`` frames,
so one smeared frame asks nothing); a seat whose complete reads differ (at once: two
different cards were really seen, the camera never picks one). A frame showing any of these
for a seat does not count for it; once a seat is read, only a different complete read is
asked about (a hand dropping a second card there later is not). At the deadline the seats
decided are kept and every other seat is asked, for that seat only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from companion.camera.deck import GAME_TITLES, game_of_marker
from companion.camera.model import Seen, Sighting
from companion.camera.zones import CardBook, Zones


@dataclass(frozen=True)
class Ask:
    """One line for people: what the camera could not settle, for which seat."""

    seat: str | None
    why: str


@dataclass(frozen=True)
class ReadUpdate:
    """What one frame (or the deadline) changed for the table."""

    cards: dict[str, tuple[str, ...]] | None
    complete: bool
    asks: tuple[Ask, ...] = ()
    frames_ns: tuple[int, ...] = ()
    frame_index: int | None = None


NOTHING = ReadUpdate(None, False)


@dataclass
class _Seat:
    """One seat's evidence this round."""

    expect: int
    reads: dict[tuple[str, ...], list[tuple[int, int]]] = field(default_factory=dict)
    decided: tuple[str, ...] | None = None
    disputed: bool = False


@dataclass
class _Round:
    n: int
    reveal_ns: int
    deadline_ns: int
    seats: dict[str, _Seat]
    troubles: dict[tuple[str, str], int] = field(default_factory=dict)  # frames seen
    asked: set[tuple[str, str]] = field(default_factory=set)
    pending: list[Ask] = field(default_factory=list)
    out: bool = False


class RevealReader:
    """Reads one round at a time: arm at the reveal, see every frame, expire at the
    deadline, disarm when the verdict or typed cards came first."""

    def __init__(self, deck: CardBook, zones: Zones, agree: int = 2) -> None:
        if agree < 1:
            raise ValueError("agree is at least one frame")
        self.deck = deck
        self.zones = zones
        self.agree = agree
        self._round: _Round | None = None

    @property
    def armed(self) -> bool:
        """A round is being read: its cards have not gone out and it was not disarmed."""
        return self._round is not None and not self._round.out

    def arm(self, n: int, expect: Mapping[str, int], reveal_ns: int, deadline_ns: int) -> None:
        """Start round ``n``: ``expect`` is each seat's card count (double_chomp: two)."""
        if deadline_ns < reveal_ns:
            raise ValueError("the deadline comes after the reveal")
        if any(count < 1 for count in expect.values()):
            raise ValueError("every seat shows at least one card")
        seats = {seat: _Seat(count) for seat, count in expect.items()}
        self._round = _Round(n, reveal_ns, deadline_ns, seats)
        for seat in expect:
            if seat not in self.zones.seats:
                self._ask(seat, "zone", f"{seat} has no zone on the picture: type {seat}'s card")

    def disarm(self) -> None:
        """The round is over (a verdict, or the cards typed): frames are ignored now."""
        self._round = None

    def see(self, seen: Seen) -> ReadUpdate:
        """One frame's sightings; frames before the reveal are ignored."""
        rnd = self._round
        if rnd is None or rnd.out or seen.t_ns < rnd.reveal_ns:
            return NOTHING
        placement = self.zones.place(seen)
        spoilt: set[str] = set()
        troubles: dict[tuple[str, str], str] = {}
        for sighting, touched in zip(placement.between, placement.between_seats, strict=True):
            for seat in touched:
                if seat in rnd.seats:
                    spoilt.add(seat)
                    others = [s for s in touched if s != seat]
                    where = f"between {seat}'s and {others[0]}'s zones" if others else (
                        f"partly outside {seat}'s zone"
                    )  # fmt: skip
                    troubles[(seat, "between")] = (
                        f"a card ({self._named(sighting)}) lies {where}: type {seat}'s card"
                    )
        for seat, state in rnd.seats.items():
            found = placement.by_seat.get(seat, ())
            read = self._read(seat, state, found, troubles)
            if read is None or seat in spoilt:
                continue
            self._count(rnd, seat, state, read, seen)
        for key, why in troubles.items():
            if rnd.seats[key[0]].decided is not None:
                continue  # read already: a card arriving after it changes nothing asked
            rnd.troubles[key] = rnd.troubles.get(key, 0) + 1
            if rnd.troubles[key] >= self.agree:
                self._ask(key[0], key[1], why)
        if all(s.decided is not None and not s.disputed for s in rnd.seats.values()):
            rnd.out = True
            return self._update(rnd, complete=True, index=seen.index)
        return ReadUpdate(None, False, self._take_asks())

    def expire(self, now_ns: int) -> ReadUpdate:
        """At or past the deadline: the seats decided go out, every other seat is asked."""
        rnd = self._round
        if rnd is None or rnd.out or now_ns < rnd.deadline_ns:
            return NOTHING
        rnd.out = True
        for seat, state in rnd.seats.items():
            if state.decided is not None and not state.disputed:
                continue
            if state.disputed:
                why = f"{seat}'s card was not read: two different cards were seen"
            elif state.reads:
                seen = max(len(frames) for frames in state.reads.values())
                why = f"{seat}'s card was seen in only {seen} of the {self.agree} frames (covered?)"
            else:
                why = f"{seat}'s card was not seen (covered?)"
            rnd.pending.append(Ask(seat, why))
        complete = all(s.decided is not None and not s.disputed for s in rnd.seats.values())
        return self._update(rnd, complete=complete, index=None)

    # -- inside -----------------------------------------------------------------------------

    def _read(
        self,
        seat: str,
        state: _Seat,
        found: tuple[Sighting, ...],
        troubles: dict[tuple[str, str], str],
    ) -> tuple[str, ...] | None:
        """The seat's complete read in this frame, or None (troubles noted)."""
        cards: list[str] = []
        bad = False
        for sighting in found:
            card = self.deck.card_of(sighting.marker)
            if card is not None:
                cards.append(card)
                continue
            bad = True
            game = game_of_marker(sighting.marker)
            if game is not None and game != self.deck.game:
                troubles[(seat, "other game")] = (
                    f"a {GAME_TITLES.get(game, game)} card (marker {sighting.marker}) lies in "
                    f"{seat}'s zone: type {seat}'s card"
                )
            else:
                troubles[(seat, "unknown")] = (
                    f"marker {sighting.marker} in {seat}'s zone is not in the deck: "
                    f"type {seat}'s card"
                )
        if len(cards) > state.expect:
            shown = ", ".join(sorted(cards))
            troubles[(seat, "too many")] = (
                f"{len(cards)} cards lie in {seat}'s zone ({shown}) where {state.expect} "
                f"{'is' if state.expect == 1 else 'are'} shown: type {seat}'s card"
            )
            return None
        if bad or len(cards) < state.expect:
            return None
        return tuple(sorted(cards))

    def _count(
        self, rnd: _Round, seat: str, state: _Seat, read: tuple[str, ...], seen: Seen
    ) -> None:
        frames = state.reads.setdefault(read, [])
        if len(frames) < self.agree:  # the evidence is the first `agree` frames: kept bounded
            frames.append((seen.t_ns, seen.index))
        if len(state.reads) > 1 and not state.disputed:
            state.disputed = True
            shown = " and ".join(", ".join(r) for r in state.reads)
            self._ask(
                seat,
                "disagree",
                f"{seat}'s zone showed {shown} in different frames: type {seat}'s card",
            )
        if not state.disputed and state.decided is None and len(state.reads[read]) >= self.agree:
            state.decided = read

    def _ask(self, seat: str, reason: str, why: str) -> None:
        rnd = self._round
        assert rnd is not None
        if (seat, reason) not in rnd.asked:
            rnd.asked.add((seat, reason))
            rnd.pending.append(Ask(seat, why))

    def _take_asks(self) -> tuple[Ask, ...]:
        rnd = self._round
        assert rnd is not None
        asks, rnd.pending = tuple(rnd.pending), []
        return asks

    def _update(self, rnd: _Round, complete: bool, index: int | None) -> ReadUpdate:
        cards: dict[str, tuple[str, ...]] = {}
        frames: list[tuple[int, int]] = []
        for seat, state in rnd.seats.items():
            if state.decided is not None and not state.disputed:
                cards[seat] = state.decided
                frames.extend(state.reads[state.decided][: self.agree])
        if index is None and frames:
            index = max(i for _, i in frames)
        return ReadUpdate(
            cards=cards,
            complete=complete,
            asks=self._take_asks(),
            frames_ns=tuple(sorted({t for t, _ in frames})),
            frame_index=index,
        )

    def _named(self, sighting: Sighting) -> str:
        card = self.deck.card_of(sighting.marker)
        return card if card is not None else f"marker {sighting.marker}"
