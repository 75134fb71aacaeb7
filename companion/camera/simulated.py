"""The simulated camera (``sim``, ``sim:SEED``): the rendered table (:mod:`.synth`) as a
live source, so the whole loop runs with no camera at all.

It plays rounds one after another (a random card per seat, flipped in at each round's
reveal) until a table tells it what lies on the table (:meth:`SimulatedTable.show`,
``companion demo --camera sim``, through the camera's worker process): from then on it
draws only that, the cards told flipping in from the next frame on and staying face up
until the next call (None: the cards taken back, an empty table). Its seats are then the
ones the first call names, laid out as :func:`sim_zones` says for those names.
Paced, a frame is handed over when its time comes, stamped with that time on the monotonic
clock, and a frame the reader was too slow to take is dropped, as a camera's would be
(the index skips it); unpaced (tests, benchmarks), frames come as fast as they are drawn
on a clock of their own that starts at 0.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from companion.camera.model import Frame, NumberedFrames, Zone
from companion.camera.synth import FrameTruth, Look, Painter, Round, random_round
from companion.camera.synth.scene import SEATS, seats_for

ROUND_S = 2.5  # a round on the simulated table: the reveal early, hands, then the next
TOLD_S = 20.0  # a round a table told: the cards stay face up (the last frame held after)


def sim_zones(seats: Sequence[str]) -> list[Zone]:
    """The zones (fractions of the frame) where the simulated table lays each seat's
    cards, for 2 to 6 seats: the same layout whatever order the names come in."""
    return [seat.zone() for seat in seats_for(sorted(seats))]


class SimulatedTable(NumberedFrames):
    """A :class:`~companion.camera.model.FrameSource` drawing the table's rounds live."""

    def __init__(
        self,
        seed: int = 0,
        size: tuple[int, int] = (1280, 720),
        fps: float = 30.0,
        *,
        paced: bool = True,
        seats: Sequence[str] = SEATS[:4],
        look: Look | None = None,
    ) -> None:
        seats_for(seats)  # 2 to 6, or ValueError now rather than at the first frame
        self._seed = seed
        self._name = f"sim {seed}"
        self._size = size
        self._fps = fps
        self._paced = paced
        self._seats = tuple(seats)
        self._look = look or Look()
        self._index = 0  # frames handed over
        self._rounds = 0
        self._painter: Painter | None = None
        self._local = 0  # the frame of the current round
        self._first = 0  # the index of the current round's first frame
        self._pending: dict[str, tuple[int, ...]] | None = None
        self._told = False  # a table said what lies on it: nothing random any more
        self._start_ns = time.monotonic_ns()
        self._closed = False
        self.truth: FrameTruth | None = None  # what the last frame showed

    @property
    def plan(self) -> Round | None:
        """The round being played (its times count from :attr:`round_start_ns`)."""
        return None if self._painter is None else self._painter.plan

    @property
    def round_start_ns(self) -> int:
        """The stamp of the current round's first frame: its plan's time 0."""
        return self._stamp(self._first)

    def zones(self) -> list[Zone]:
        """The seats' zones on this picture (what ``camera setup`` would find)."""
        return [seat.zone() for seat in seats_for(self._seats)]

    def show(self, cards: Mapping[str, Sequence[int]] | None) -> None:
        """From the next frame on, these markers flip in at these seats (a seat's two
        cards side by side for a double chomp) and stay; None or {}: an empty table.
        The first call seats the table with the seats it names (:func:`sim_zones`); a
        later call naming a seat not there seats everyone named so far."""
        placed = {seat: tuple(markers) for seat, markers in (cards or {}).items()}
        names = set(placed) if not self._told else set(self._seats) | set(placed)
        if placed and names != set(self._seats):
            self._seats = tuple(sorted(names))
            seats_for(self._seats)  # 2 to 6
        self._told = True
        self._pending = placed

    def read(self) -> Frame | None:
        if self._closed:
            return None
        if self._paced:  # a frame not taken in time is dropped, as a camera drops it
            behind = (time.monotonic_ns() - self._start_ns) * self._fps // 1_000_000_000
            skipped = max(0, int(behind) - self._index)
            self._index += skipped
            self._local += skipped
        painter = self._painter
        ended = painter is not None and self._local >= painter.plan.frames
        if self._pending is not None or painter is None or (ended and not self._told):
            painter = self._next_round()
        image, truth = painter.frame(min(self._local, painter.plan.frames - 1))
        self._local += 1
        stamp = self._stamp(self._index)
        if self._paced:
            wait = stamp - time.monotonic_ns()
            if wait > 0:
                time.sleep(wait / 1e9)
        self.truth = truth
        return self._next_frame(stamp, image)

    def close(self) -> None:
        self._closed = True

    def _stamp(self, index: int) -> int:
        own = round(index * 1e9 / self._fps)
        return self._start_ns + own if self._paced else own

    def _next_round(self) -> Painter:
        shown, self._pending = self._pending, None
        plan = random_round(
            self._seed * 1_000_003 + self._rounds,
            seats=self._seats,
            look=self._look,
            size=self._size,
            fps=self._fps,
            seconds=TOLD_S if self._told else ROUND_S,
            shown=shown,
            reveal_s=(0.0, 0.0) if shown is not None else (0.3, 0.5),
        )
        self._rounds += 1
        self._painter = Painter(plan)
        self._local = 0
        self._first = self._index
        return self._painter
