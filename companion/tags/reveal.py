"""A round's cards from their tags: one card per seat, complete or not at all.

:class:`TagReveal` is pure logic fed with :class:`~companion.tags.readers.TagRead` values
(no thread, no clock), so every case is a test that writes down reads. It collects the
cards of one round in one of two ways:

* **one reader per seat**: ``seat_of_reader`` maps a reader's index to the seat it sits
  at (the Pico bridge's reader numbers, or the ``index`` given to each reader);
* **one reader for the table**: reads fill the seats in seat order.

Typed lines (a keyboard, or a keyboard-wedge scanner) are reads too: a card's name
(``seal``, ``bob=seal``) fills the seat waiting for it or the seat named, ``undo`` takes
back the last card, anything else is a scanned code going to the seat being asked for.

It never guesses. The cards go out (once per round, as the game needs them: ``{seat:
(Card,)}`` for CHOMP!, ``{robot: n}`` for Get Bit!) only when every seat has exactly its
cards. Anything else is a prompt for a person: a tag that is not in the tag file, the same
physical tag read twice, a seat whose reader saw two different cards, a card of another
robot's colour, and, when the round must be decided, the seats still without a card.

:class:`RevealRunner` is the small threaded part: it polls the readers and calls
``on_cards(cards)`` or ``on_prompt(text)``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from companion import text as gate
from companion.errors import InputError
from companion.games.chomp import CARD_NAMES, Hand
from companion.tags.readers import ReaderPool, TagRead, TagReader
from companion.tags.tagfile import (
    CARDS,
    CHOMP,
    GAME_TITLES,
    GETBIT,
    GETBIT_COLOURS,
    GETBIT_HIGHEST,
    TagFile,
    getbit_card,
    getbit_colour,
    getbit_number,
)

T = TypeVar("T")

UNDO_WORDS = frozenset({"undo", "u"})


@dataclass(frozen=True, slots=True)
class Update(Generic[T]):
    """What one read (or a demand) produced: prompts for people, and the cards once."""

    prompts: tuple[str, ...] = ()
    cards: T | None = None


@dataclass(frozen=True, slots=True)
class _Entry:
    key: str | None  # the tag's key; None for a typed card
    card: str  # card name in the tag file's vocabulary


class TagReveal(Generic[T]):
    """Collects one round's cards from tag reads (module docstring). Not thread-safe: the
    runner holds a lock around it."""

    game: ClassVar[str]

    def __init__(
        self,
        tags: TagFile,
        seats: Sequence[str],
        seat_of_reader: Mapping[int, str] | None = None,
        hand_sizes: Mapping[str, int] | None = None,
    ) -> None:
        if tags.game != self.game:
            raise InputError(
                "game",
                f"this is a {GAME_TITLES[tags.game]} tag file; "
                f"{GAME_TITLES[self.game]} needs its own",
                tags.source,
            )
        self.tags = tags
        self.seats: tuple[str, ...] = ()
        self.sizes: dict[str, int] = {}
        self.seat_of_reader = dict(seat_of_reader) if seat_of_reader is not None else None
        if self.seat_of_reader is not None:
            for index, seat in self.seat_of_reader.items():
                if seat not in seats:
                    raise InputError(f"reader {index}", f"{seat!r} is not a seat at this table")
            by_seat = list(self.seat_of_reader.values())
            twice = sorted({s for s in by_seat if by_seat.count(s) > 1})
            if twice:
                raise InputError("readers", f"two readers at one seat: {', '.join(twice)}")
        self._got: dict[str, list[_Entry]] = {}
        self._rescan: list[str] = []
        self._history: list[str] = []  # seats in the order their cards came, for undo
        self.armed = False
        self.sent = False
        self.new_round(seats, hand_sizes)

    # ------------------------------------------------------------------ the round ------

    def new_round(
        self, seats: Sequence[str] | None = None, hand_sizes: Mapping[str, int] | None = None
    ) -> None:
        """Forget the last round's cards and wait for this one's (``seats`` in seat order:
        the players still in the game; each shows ``hand_sizes[seat]`` cards, 1 if not given)."""
        if seats is not None:
            if len(set(seats)) != len(seats) or not seats:
                raise InputError("seats", "give each seat once")
            self.seats = tuple(seats)
        sizes = dict(hand_sizes or {})
        self.sizes = {s: sizes.get(s, 1) for s in self.seats}
        self._got = {s: [] for s in self.seats}
        self._rescan = []
        self._history = []
        self.armed = True
        self.sent = False

    def disarm(self) -> None:
        """Between rounds: reads are ignored until :meth:`new_round`."""
        self.armed = False

    @property
    def complete(self) -> bool:
        return all(len(self._got[s]) == self.sizes[s] for s in self.seats) and not self._rescan

    def waiting_for(self) -> str | None:
        """The seat a hand-held scan or a typed card goes to: a rescan first, then seat order."""
        if self._rescan:
            return self._rescan[0]
        return next((s for s in self.seats if len(self._got[s]) < self.sizes[s]), None)

    def names(self) -> dict[str, tuple[str, ...]]:
        """The cards read so far, by card name, in seat order (seats with none left out)."""
        return {s: tuple(e.card for e in self._got[s]) for s in self.seats if self._got[s]}

    def status_line(self) -> str:
        shown = " · ".join(
            f"{s} {' + '.join(e.card for e in self._got[s]) or '_'}" for s in self.seats
        )
        seat = self.waiting_for()
        return shown + (f"  (scan {seat})" if seat and self.armed else "")

    # ------------------------------------------------------------------ the game -------

    def convert(self, names: Mapping[str, tuple[str, ...]]) -> T:
        """The complete round in the game's own terms."""
        raise NotImplementedError

    def refuse(self, seat: str, card: str) -> str | None:
        """A reason this card cannot be this seat's (a game's own check), else None."""
        return None

    def typed_card(self, seat: str | None, word: str) -> str | None:
        """The card a typed word names, or None when it names none."""
        return word if word in CARDS[self.game] else None

    # ------------------------------------------------------------------ the reads ------

    def feed(self, read: TagRead) -> Update[T]:
        """One read from any reader."""
        if not self.armed:
            return Update()
        if read.typed:
            word = read.tag.strip()
            if word.lower() in UNDO_WORDS:
                return self.undo()
            seat_name, eq, card_word = word.partition("=")
            if eq:
                return self._typed(seat_name.strip(), card_word.strip())
            if self.typed_card(self.waiting_for(), word) is not None:
                return self._typed(None, word)
            return self._tag(read, self.waiting_for())
        if self.seat_of_reader is None:
            return self._tag(read, self.waiting_for())
        seat = self.seat_of_reader.get(read.index)
        if seat is None:
            return self._prompt(f"reader {read.index} is at no seat: {read.describe()} ignored")
        if seat not in self._got:
            return self._prompt(f"{seat} plays no card this round: {read.describe()} ignored")
        return self._tag(read, seat)

    def _prompt(self, *lines: str) -> Update[T]:
        return Update(tuple(lines))

    def _where_is(self, key: str) -> str | None:
        return next((s for s in self.seats for e in self._got[s] if e.key == key), None)

    def _tag(self, read: TagRead, seat: str | None) -> Update[T]:
        key = read.key
        holder = self._where_is(key)
        if holder is not None and holder == seat:
            return Update()  # the same card on the same reader again: nothing new
        if seat is None or self.sent:
            return self._prompt(
                f"every seat has its card: {read.describe()} ignored (undo to change one)"
            )
        card = self.tags.card_of(key)
        if card is None:
            return self._prompt(
                f"{read.describe()} is not in {self.tags.name}: scan again or type the card "
                f"for {seat}"
            )
        if holder is not None:  # one physical tag, two seats: which seat's is it?
            self._clear(seat)
            self._ask_rescan(seat)
            return self._prompt(f"{card} read twice (seat {holder} and {seat}): rescan {seat}")
        return self._place(seat, _Entry(key, card))

    def _typed(self, seat: str | None, word: str) -> Update[T]:
        if seat and seat not in self._got:
            return self._prompt(f"not a seat this round: {seat!r} (seats: {', '.join(self.seats)})")
        target = seat if seat else self.waiting_for()
        if target is None:
            return self._prompt(f"every seat has its card: {word!r} ignored (undo to change one)")
        card = self.typed_card(target, word)
        if card is None:
            return self._prompt(f"not a {GAME_TITLES[self.game]} card: {word!r}")
        if seat and len(self._got[target]) >= self.sizes[target]:
            self._clear(target)  # a person typing a seat's card means that card
            self.sent = False  # a correction: the round goes out again
        return self._place(target, _Entry(None, card))

    def _clear(self, seat: str) -> None:
        self._got[seat] = []
        self._history = [s for s in self._history if s != seat]

    def _ask_rescan(self, seat: str) -> None:
        if seat not in self._rescan:
            self._rescan.append(seat)

    def _place(self, seat: str, entry: _Entry) -> Update[T]:
        held = self._got[seat]
        full = len(held) >= self.sizes[seat]
        reason = self.refuse(seat, entry.card)
        if reason is not None:
            if full:  # it cannot be this seat's card, and the seat has one
                return self._prompt(f"{reason}: ignored")
            self._ask_rescan(seat)
            return self._prompt(f"{reason}: rescan {seat}")
        if full:  # a reader saw another card: which one is it?
            before = " + ".join(e.card for e in held)
            self._clear(seat)
            self._ask_rescan(seat)
            return self._prompt(
                f"two different cards read for {seat} ({before}, then {entry.card}): rescan {seat}"
            )
        held.append(entry)
        self._history.append(seat)
        if len(held) == self.sizes[seat] and seat in self._rescan:
            self._rescan.remove(seat)
        return self._maybe_done()

    def _maybe_done(self) -> Update[T]:
        if self.sent or not self.complete:
            return Update()
        self.sent = True
        return Update(cards=self.convert(self.names()))

    def undo(self) -> Update[T]:
        """Take back the last card placed (a scan for the wrong seat)."""
        if not self._history:
            return self._prompt("nothing to undo")
        seat = self._history.pop()
        entry = self._got[seat].pop()
        self.sent = False
        if seat not in self._rescan:
            self._rescan.insert(0, seat)
        return self._prompt(f"took back {seat}'s {entry.card}: scan {seat}")

    def demand(self) -> Update[T]:
        """The round must be decided now: the cards if complete, else what is missing."""
        if not self.armed or self.sent:
            return Update()
        if self.complete:
            return self._maybe_done()
        none = [s for s in self.seats if not self._got[s]]
        lines = [f"no card read for {', '.join(none)}"] if none else []
        for s in self.seats:
            have, need = len(self._got[s]), self.sizes[s]
            if 0 < have < need:
                lines.append(f"{have} of {need} cards read for {s}")
        rescans = [s for s in self._rescan if s not in none]
        if rescans:
            lines.append(f"waiting for a rescan of {', '.join(rescans)}")
        return self._prompt(*lines)


class ChompTagReveal(TagReveal[dict[str, Hand]]):
    """CHOMP!: ``{seat: (Card,)}`` (two cards each in double_chomp, by ``hand_sizes``),
    ready for the referee's ``Cards``."""

    game = CHOMP

    def convert(self, names: Mapping[str, tuple[str, ...]]) -> dict[str, Hand]:
        return {s: tuple(CARD_NAMES[n] for n in names[s]) for s in self.seats}


class GetBitTagReveal(TagReveal[dict[str, int]]):
    """Get Bit!: ``{robot: n}``, one card per robot. With ``colours`` (robot -> colour),
    a card of another robot's colour is refused."""

    game = GETBIT

    def __init__(
        self,
        tags: TagFile,
        robots: Sequence[str],
        seat_of_reader: Mapping[int, str] | None = None,
        colours: Mapping[str, str] | None = None,
    ) -> None:
        self.colours = dict(colours or {})
        for robot, colour in self.colours.items():
            if colour not in GETBIT_COLOURS:
                raise InputError(
                    f"colours.{robot}",
                    f"unknown colour {colour!r} (one of: {', '.join(GETBIT_COLOURS)})",
                )
        super().__init__(tags, robots, seat_of_reader)

    def new_round(
        self, seats: Sequence[str] | None = None, hand_sizes: Mapping[str, int] | None = None
    ) -> None:
        super().new_round(seats)  # one card per robot, whatever is asked

    def convert(self, names: Mapping[str, tuple[str, ...]]) -> dict[str, int]:
        return {s: getbit_number(names[s][0]) for s in self.seats}

    def refuse(self, seat: str, card: str) -> str | None:
        colour = self.colours.get(seat)
        if colour is not None and getbit_colour(card) != colour:
            return f"{card} is not {seat}'s colour ({colour})"
        return None

    def typed_card(self, seat: str | None, word: str) -> str | None:
        """``red-3``, or just ``3`` for a robot whose colour is known."""
        if word in CARDS[GETBIT]:
            return word
        number = gate.number_or_none(word, low=1, high=GETBIT_HIGHEST)
        if number is not None and seat in self.colours:
            return getbit_card(self.colours[seat], number)
        return None


class RevealRunner(Generic[T]):
    """Polls the readers on threads and applies their reads to a :class:`TagReveal`.

    ``on_cards`` gets the complete round once; ``on_prompt`` every line for a person. Both
    are called on the runner's thread (or the caller's, for :meth:`demand`), never under
    its lock. ``demand_after_s``: ask for the missing cards by itself that long after a
    round started.
    """

    def __init__(
        self,
        reveal: TagReveal[T],
        readers: Sequence[TagReader],
        on_cards: Callable[[T], None],
        on_prompt: Callable[[str], None],
        poll_s: float = 0.1,
        demand_after_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.reveal = reveal
        self.readers = list(readers)
        self.on_cards = on_cards
        self.on_prompt = on_prompt
        self.poll_s = poll_s
        self.demand_after_s = demand_after_s
        self.clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._pool: ReaderPool | None = None
        self._thread: threading.Thread | None = None
        self._round_key: object = None
        self._started_at = clock()
        self._demanded = False
        self._errors_told = 0

    def start(self) -> RevealRunner[T]:
        self._pool = ReaderPool(self.readers, self.poll_s)
        self._thread = threading.Thread(target=self._run, name="tag reveal", daemon=True)
        self._thread.start()
        return self

    def _deliver(self, update: Update[T]) -> None:
        for line in update.prompts:
            self.on_prompt(line)
        if update.cards is not None:
            self.on_cards(update.cards)

    def _run(self) -> None:
        pool = self._pool
        assert pool is not None
        while not self._stop.is_set():
            read = pool.get(self.poll_s)
            updates: list[Update[T]] = []
            with self._lock:
                if read is not None:
                    updates.append(self.reveal.feed(read))
                if self._demand_due():
                    self._demanded = True
                    updates.append(self.reveal.demand())
                errors = pool.errors[self._errors_told :]
                self._errors_told += len(errors)
            for line in errors:
                self.on_prompt(line)
            for update in updates:
                self._deliver(update)
            if read is None and pool.finished:
                self._stop.wait(self.poll_s)  # every reader is gone; timers still run

    def _demand_due(self) -> bool:
        return (
            self.demand_after_s is not None
            and not self._demanded
            and self.reveal.armed
            and not self.reveal.sent
            and self.clock() - self._started_at >= self.demand_after_s
        )

    def new_round(
        self,
        seats: Sequence[str] | None = None,
        hand_sizes: Mapping[str, int] | None = None,
        key: object = None,
    ) -> None:
        """Wait for a new round's cards. With ``key`` (the round number), a second call for
        the same round changes nothing, so it can be called on every step of a round."""
        with self._lock:
            if key is not None and key == self._round_key:
                return
            self._round_key = key
            self.reveal.new_round(seats, hand_sizes)
            self._started_at = self.clock()
            self._demanded = False

    def disarm(self) -> None:
        with self._lock:
            self.reveal.disarm()

    def demand(self) -> None:
        """The round must be decided: deliver the cards, or prompt what is missing."""
        with self._lock:
            update = self.reveal.demand()
        self._deliver(update)

    def feed(self, read: TagRead) -> None:
        """Apply a read from elsewhere (a typed line from the table's screen)."""
        with self._lock:
            update = self.reveal.feed(read)
        self._deliver(update)

    def status_line(self) -> str:
        with self._lock:
            return self.reveal.status_line()

    def close(self) -> None:
        self._stop.set()
        if self._pool is not None:
            self._pool.close()
        if self._thread is not None:
            self._thread.join(timeout=max(1.0, 5 * self.poll_s))
