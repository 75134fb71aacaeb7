"""The camera at the Get Bit! table: the cards the players turn over together, read from
above, move the robots without typing.

Get Bit! has no reveal button: the players turn their cards over when they are ready. So
each round is read from the first frame in which no robot's zone holds a card (the last
round's cards taken back) until every robot's card has been read the same in two frames;
then the round is played exactly as typed cards are (G1-G8, ties and refusals alike).
Typing a round first wins: its cards are played and the camera waits for the next one. A
card lying between two zones, or two in one zone, is a line for the people, never a guess.
The camera's thread only puts events on a queue; the table takes them on its own thread,
as it takes the tags' (:meth:`GetBitTable.tag_event`).
"""

from __future__ import annotations

import queue
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.games.getbit import GetBit
from companion.tables.camera import CameraConfig, TableCamera
from companion.tables.getbit.entry import entry_order
from companion.tables.getbit.tags import TagPrompt

if TYPE_CHECKING:
    from companion.camera.worker import Opener


@dataclass(frozen=True, slots=True)
class CameraCards:
    """A round read whole by the camera: ``{robot: n}`` for round ``n`` (rounds played + 1
    when it was armed), so cards of a round typed meanwhile are dropped."""

    cards: dict[str, int]
    round: int
    frames_ns: tuple[int, ...]


CameraEvent = CameraCards | TagPrompt


class GetBitCamera:
    """The camera armed for each round of a Get Bit! game (module docstring)."""

    def __init__(self, config: CameraConfig, save: Path, opener: Opener | None = None) -> None:
        # The line mode may share its own queue with the camera (screen._LineMode).
        self.events: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.camera = TableCamera(
            config,
            "getbit",
            lambda: save,  # the frames beside the saved game: <save stem>.frames/
            self._cards,
            lambda line: self.events.put(TagPrompt(line)),
            opener=opener,
        )

    def start(self) -> GetBitCamera:
        self.camera.start()
        return self

    def arm(self, state: GetBit) -> None:
        """Wait for the next round's cards (nothing once the game is over)."""
        if state.over:
            self.camera.disarm()
            return
        self.camera.arm_when_clear(state.rounds + 1, {robot: 1 for robot in entry_order(state)})

    def disarm(self) -> None:
        self.camera.disarm()

    def _cards(self, n: int, names: dict[str, tuple[str, ...]], frames: tuple[int, ...]) -> None:
        numbers = {robot: int(hand[0].rsplit("-", 1)[-1]) for robot, hand in names.items()}
        self.events.put(CameraCards(numbers, n, frames))

    def pending(self) -> list[CameraEvent]:
        out: list[CameraEvent] = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out

    def describe(self) -> list[str]:
        config = self.camera.config
        seats = ", ".join(z.seat for z in config.zones) or "none"
        return [f"cards from the camera {config.source}: zones for {seats}"]

    def close(self) -> None:
        self.camera.close()
