"""Card tags at the Get Bit! table: a round's cards read from the cards themselves.

A reveal collects one card per robot from NFC or barcode readers, and a complete round is
played exactly as typed cards are. The readers run on threads of their own; what they
produce reaches the table as events on a queue, so the table itself is only ever changed
by the face's own thread.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from companion import text as gate
from companion.games.getbit import GetBit, PlayError, Setup
from companion.tables.getbit.entry import entry_order, refusal_text
from companion.tables.getbit.saved import SavedGame
from companion.tags.readers import TagReader, typed_line
from companion.tags.reveal import GetBitTagReveal, RevealRunner
from companion.tags.tagfile import GETBIT_HIGHEST, TagFile, getbit_card


class TagCards(dict[str, int]):
    """A round's complete cards from the tags (``{robot: n}``), stamped with the arming of
    the reveal they belong to, so cards that arrive after their round was played (typed
    meanwhile) are recognised and dropped."""

    def __init__(self, cards: Mapping[str, int], generation: int) -> None:
        super().__init__(cards)
        self.generation = generation


@dataclass(frozen=True, slots=True)
class TagPrompt:
    """A line for the people at the table: an unknown tag, a card read twice, ..."""

    text: str


@dataclass(frozen=True, slots=True)
class TagLine:
    """A line of standard input in line mode with tags (None: the input has ended)."""

    text: str | None


TableEvent = TagCards | TagPrompt | TagLine


def card_number(card: str) -> int:
    """The number of a card the reveal collected: ``red-3`` read or typed, or ``3`` typed
    for a robot without a colour."""
    return int(card.rsplit("-", 1)[-1])


def play_refusal(state: GetBit, robot: str, card: int) -> str | None:
    """G7 for one robot's card, by the engine's own check; the refusal, or None.

    The engine checks whole rounds, so the other robots play a card they hold (every hand
    has one: ``pickup_at`` is below the hand size) and only this robot's card can fail.
    """
    others = {r: state.hands[r][0] for r in state.line}
    try:
        state.check({**others, robot: card})
    except PlayError as exc:
        return refusal_text(state, exc)
    return None


class TableReveal(GetBitTagReveal):
    """The Get Bit! reveal at the table: a card the robot cannot play is refused as soon as
    it is read (the engine's G7 check, so the message is the typed cards' one) and asked
    for again; a robot without a colour takes a plain typed number (``ted=5``)."""

    def __init__(
        self,
        tags: TagFile,
        robots: Sequence[str],
        current: Callable[[], GetBit],
        seat_of_reader: Mapping[int, str] | None = None,
        colours: Mapping[str, str] | None = None,
    ) -> None:
        self.generation = 0  # before the base class arms the first round
        self.current = current
        super().__init__(tags, robots, seat_of_reader, colours)

    def new_round(
        self, seats: Sequence[str] | None = None, hand_sizes: Mapping[str, int] | None = None
    ) -> None:
        self.generation += 1
        super().new_round(seats, hand_sizes)

    def convert(self, names: Mapping[str, tuple[str, ...]]) -> dict[str, int]:
        return TagCards({s: card_number(names[s][0]) for s in self.seats}, self.generation)

    def refuse(self, seat: str, card: str) -> str | None:
        reason = super().refuse(seat, card)
        if reason is not None:
            return reason
        return play_refusal(self.current(), seat, card_number(card))

    def typed_card(self, seat: str | None, word: str) -> str | None:
        found = super().typed_card(seat, word)
        if found is None and seat is not None and seat not in self.colours:
            number = gate.number_or_none(word, low=1, high=GETBIT_HIGHEST)
            return word if number is not None else None
        return found


class TableTags:
    """The card tags at the table: a :class:`TableReveal` fed by a ``RevealRunner``.

    Armed at the start of each round with the robots still in play (key: the round
    number), disarmed once it is played. The runner's threads only put events on
    :attr:`events`; the table takes them (:meth:`GetBitTable.tag_event`) on its own thread.
    What the table's own calls produce (:meth:`demand`, :meth:`correct`) is returned to
    it instead, so an answer never waits behind input queued meanwhile.

    ``seat_of_reader`` (reader index -> robot) when each robot has its own reader; without
    it one reader serves the table and the cards are read in :func:`entry_order`.
    ``colours`` (robot -> colour): a card of another colour is refused for that robot.
    """

    def __init__(
        self,
        tags: TagFile,
        readers: Sequence[TagReader],
        session: SavedGame,
        seat_of_reader: Mapping[int, str] | None = None,
        colours: Mapping[str, str] | None = None,
        poll_s: float = 0.1,
    ) -> None:
        self.tags = tags
        self.readers = list(readers)
        self.events: queue.SimpleQueue[TableEvent] = queue.SimpleQueue()
        self.reveal = TableReveal(
            tags, list(session.setup.robots), lambda: session.state, seat_of_reader, colours
        )
        self.runner: RevealRunner[dict[str, int]] = RevealRunner(
            self.reveal, self.readers, self._cards, self._prompt, poll_s
        )
        self.generation = self.reveal.generation
        self.started = False
        self._local = threading.local()  # .answers: what this thread's own call produced

    def _post(self, event: TableEvent) -> None:
        answers: list[TableEvent] | None = getattr(self._local, "answers", None)
        if answers is not None:
            answers.append(event)
        else:
            self.events.put(event)

    def _cards(self, cards: dict[str, int]) -> None:
        self._post(cards if isinstance(cards, TagCards) else TagCards(cards, -1))

    def _prompt(self, text: str) -> None:
        self._post(TagPrompt(text))

    def _answer(self, call: Callable[[], None]) -> list[TableEvent]:
        self._local.answers = []
        try:
            call()
            answers: list[TableEvent] = self._local.answers
            return answers
        finally:
            self._local.answers = None

    def start(self) -> TableTags:
        """Start polling the readers (after the first round is armed)."""
        self.runner.start()
        self.started = True
        return self

    def arm(self, state: GetBit, again: bool = False) -> None:
        """Wait for this round's cards; ``again`` forgets what was read for it so far."""
        if state.over:
            self.runner.disarm()
            return
        key = None if again else state.rounds + 1
        self.runner.new_round(entry_order(state), key=key)
        self.generation = self.reveal.generation

    def disarm(self) -> None:
        self.runner.disarm()

    def is_current(self, cards: TagCards) -> bool:
        return cards.generation == self.generation

    def demand(self) -> list[TableEvent]:
        """The round must be played: its cards, or prompts naming what is missing."""
        return self._answer(self.runner.demand)

    def correct(self, robot: str, card: int) -> list[TableEvent]:
        """A typed correction of one robot's card (line mode ``ted=5``)."""
        return self._answer(lambda: self.runner.feed(typed_line(f"{robot}={card}")))

    def status_line(self) -> str:
        return self.runner.status_line()

    def pending(self) -> list[TableEvent]:
        out: list[TableEvent] = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out

    def describe(self, setup: Setup) -> list[str]:
        """What the table reads and how, for the opening messages."""
        seats = self.reveal.seat_of_reader
        names = ", ".join(r.name for r in self.readers)
        if seats is None:
            which = "one reader" if len(self.readers) == 1 else "readers"
            how = f"{which} ({names}) for the table, the cards read in the order they are typed"
        else:
            # a serial or PN532 reader has its own index; the bridge numbers its readers
            named = {getattr(r, "index", None): r.name for r in self.readers}
            where = ", ".join(
                f"{robot} on {named[i]}" if i in named else f"{robot} on bridge reader {i}"
                for i, robot in seats.items()
            )
            how = f"one reader per robot: {where}"
        colours = self.reveal.colours
        shown = ", ".join(f"{r}={c}" for r, c in colours.items()) or "none"
        lines = [f"cards from the tags of {self.tags.name}: {how}; robot colours: {shown}"]
        missing = [
            getbit_card(colour, n)
            for colour in colours.values()
            for n in setup.full_hand
            if not self.tags.learned(getbit_card(colour, n))
        ]
        if missing:
            lines.append(f"not in {self.tags.name} (type them): {', '.join(missing)}")
        return lines

    def close(self) -> None:
        """Stop the runner and close the readers."""
        self.runner.close()  # its pool closes the readers it polled
        if not self.started:
            for reader in self.readers:
                reader.close()
