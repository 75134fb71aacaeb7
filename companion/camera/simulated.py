"""The simulated camera (``sim``, ``sim:SEED``): the rendered table (:mod:`.synth`) as a
live source, so the whole loop runs with no camera at all.

It plays rounds one after another (a random card per seat, flipped in at each round's
reveal), or, when a table tells it the cards a reveal showed (:meth:`SimulatedTable.show`,
``companion demo --camera sim``), renders those flipping in from the next frame on.
Paced, a frame is handed over when its time comes, stamped with that time on the monotonic
clock, and a frame the reader was too slow to take is dropped, as a camera's would be
(the index skips it); unpaced (tests, benchmarks), frames come as fast as they are drawn
on a clock of their own that starts at 0.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from companion.camera.model import Frame, Zone
from companion.camera.synth import FrameTruth, Look, Painter, Round, random_round
from companion.camera.synth.scene import SEATS, seats_for

ROUND_S = 2.5  # a round on the simulated table: the reveal early, hands, then the next


class SimulatedTable:
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
        self._start_ns = time.monotonic_ns()
        self._closed = False
        self.truth: FrameTruth | None = None  # what the last frame showed

    @property
    def describe(self) -> str:
        return f"sim {self._seed}"

    @property
    def fps(self) -> float:
        return self._fps

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

    def show(self, cards: Mapping[str, Sequence[int]]) -> None:
        """From the next frame on, these markers flip in at these seats (a seat's two
        cards side by side for a double chomp); the round revealed is at that frame."""
        unknown = sorted(set(cards) - set(self._seats))
        if unknown:
            raise ValueError(f"no seat {unknown[0]!r} at the simulated table")
        self._pending = {seat: tuple(markers) for seat, markers in cards.items()}

    def read(self) -> Frame | None:
        if self._closed:
            return None
        if self._paced:  # a frame not taken in time is dropped, as a camera drops it
            behind = (time.monotonic_ns() - self._start_ns) * self._fps // 1_000_000_000
            skipped = max(0, int(behind) - self._index)
            self._index += skipped
            self._local += skipped
        painter = self._painter
        if self._pending is not None or painter is None or self._local >= painter.plan.frames:
            painter = self._next_round()
        image, truth = painter.frame(self._local)
        self._local += 1
        stamp = self._stamp(self._index)
        if self._paced:
            wait = stamp - time.monotonic_ns()
            if wait > 0:
                time.sleep(wait / 1e9)
        self.truth = truth
        frame = Frame(self._index, stamp, image)
        self._index += 1
        return frame

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
            seconds=ROUND_S,
            shown=shown,
            reveal_s=(0.0, 0.0) if shown is not None else (0.3, 0.5),
        )
        self._rounds += 1
        self._painter = Painter(plan)
        self._local = 0
        self._first = self._index
        return self._painter
