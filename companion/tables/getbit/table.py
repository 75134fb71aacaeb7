"""The Get Bit! table: what the screen and the line mode share.

The saved game, the entry under way, the last announcement, and the optional hardware and
card tags. The face (terminal) and the phones' page (the server's threads) both change
them: each holds the table's ``guard`` while it changes or reads the table, so a key and a
tap never interleave.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Concatenate, ParamSpec, TypeVar

from companion import text as gate
from companion.games.getbit import PlayError, RoundResult
from companion.games.getbit.text import round_lines
from companion.tables.getbit.camera import CameraCards, CameraEvent, GetBitCamera
from companion.tables.getbit.entry import Entry, entry_order, refusal_text
from companion.tables.getbit.hardware import TableHardware
from companion.tables.getbit.saved import SavedGame
from companion.tables.getbit.tags import TableEvent, TableTags, TagCards, TagPrompt

P = ParamSpec("P")
R = TypeVar("R")


def guarded(
    method: Callable[Concatenate[GetBitTable, P], R],
) -> Callable[Concatenate[GetBitTable, P], R]:
    """The method runs holding the table's guard (the page's threads call it too)."""

    @functools.wraps(method)
    def run(table: GetBitTable, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with table.guard:
            return method(table, *args, **kwargs)

    return run


@dataclass
class GetBitTable:
    """The saved game, the entry under way, the last announcement, the optional hardware
    and tags; :meth:`close` releases what ``open_getbit_table`` opened."""

    session: SavedGame
    secret: bool = False
    hardware: TableHardware | None = None
    tags: TableTags | None = None
    camera: GetBitCamera | None = None  # [camera]: the cards read from above the table
    messages: list[str] = field(default_factory=list)
    announced: list[str] = field(default_factory=list)
    entry: Entry = field(init=False)
    closing: ExitStack = field(default_factory=ExitStack, repr=False)  # the devices it opened
    guard: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.entry = Entry(self.session.state, self.secret)
        last = self.session.last
        if last is not None:
            self.announced = round_lines(last, self.session.state)
        if self.tags is not None:
            self.tags.arm(self.session.state)
        if self.camera is not None:
            self.camera.arm(self.session.state)

    def close(self) -> None:
        """Release the readers, the lights and the pins the table was opened with."""
        self.closing.close()

    def notify(self, message: str) -> None:
        self.messages = [*self.messages, message][-4:]

    @guarded
    def key(self, key: str) -> None:
        """A card key or Backspace for the entry under way."""
        if self.session.state.over:
            return
        is_card = len(key) == 1 and gate.number_or_none(key, low=0, high=9) is not None
        if self.hardware is not None and is_card:
            self.hardware.start_round()
        refusal = self.entry.key(key)
        if refusal:
            self.notify(refusal)

    @guarded
    def play(self, cards: Mapping[str, int]) -> RoundResult | None:
        """Play a round; a refusal (G7) is a message and changes nothing."""
        try:
            result = self.session.play(cards)
        except PlayError as exc:
            self.notify(refusal_text(self.session.state, exc))
            return None
        state = self.session.state
        self.announced = round_lines(result, state)
        self.messages = []  # refusals of the round just played are settled
        self.entry = Entry(state, self.secret)
        if self.tags is not None:
            self.tags.disarm()  # this round's reads are done with
            self.tags.arm(state)  # and the next round's are awaited
        if self.camera is not None:
            self.camera.disarm()
            self.camera.arm(state)
        if self.hardware is not None:
            self.hardware.show_round(result, state)
        return result

    @guarded
    def tag_event(self, event: TableEvent | CameraEvent) -> RoundResult | None:
        """Apply what the tags produced: a prompt goes to the messages; a round's complete
        cards are played exactly as typed cards are (G7 refusals, save, announcements and
        LEDs alike). Cards of a round already played (typed meanwhile) are dropped."""
        tags = self.tags
        if isinstance(event, TagPrompt):
            self.notify(event.text)
            return None
        if isinstance(event, CameraCards):
            return self._camera_cards(event)
        if not isinstance(event, TagCards) or tags is None or not tags.is_current(event):
            return None
        if self.session.state.over:
            return None
        if self.hardware is not None:
            self.hardware.start_round()
        result = self.play(event)
        if result is None:  # refused after all (the reveal checks first): read them again
            tags.arm(self.session.state, again=True)
            self.notify(f"scan the cards for {' '.join(entry_order(self.session.state))} again")
        return result

    def _camera_cards(self, event: CameraCards) -> RoundResult | None:
        """A round the camera read whole: played as typed cards are, unless that round was
        played (typed) meanwhile; refused (G7), it is read again from a clear table."""
        state = self.session.state
        if self.camera is None or state.over or event.round != state.rounds + 1:
            return None
        if self.hardware is not None:
            self.hardware.start_round()
        result = self.play(event.cards)
        if result is None:
            self.camera.disarm()
            self.camera.arm(self.session.state)
            self.notify(
                "the camera's cards were refused: type them, or take them back and show again"
            )
        return result

    def pending_tags(self) -> list[TableEvent | CameraEvent]:
        """The events the tags and the camera produced since the last call (never waits)."""
        tags: list[TableEvent | CameraEvent] = (
            [] if self.tags is None else list(self.tags.pending())
        )
        return tags + ([] if self.camera is None else list(self.camera.pending()))

    @guarded
    def undo(self) -> None:
        n = self.session.undo()
        if n is None:
            self.notify("nothing to undo")
            return
        state = self.session.state
        last = self.session.last
        self.announced = round_lines(last, state) if last is not None else []
        self.entry = Entry(state, self.secret)
        self.notify(f"round {n} undone")
        if self.tags is not None:
            self.tags.arm(state)
        if self.camera is not None:
            self.camera.disarm()
            self.camera.arm(state)
        if self.hardware is not None:
            self.hardware.reset(state)

    def title(self) -> str:
        setup = self.session.setup
        flags = [f"{len(setup.robots)} robots", f"cards 1-{setup.hand_size}"]
        if setup.longer_games:
            flags.append("longer game")
        if setup.memory:
            flags.append("memory game")
        if setup.pickup_at != 1:
            flags.append(f"pick up at {setup.pickup_at}")
        return f"companion getbit · {' · '.join(flags)} · saved to {self.session.path}"
