"""The values the camera's parts pass each other: plain, frozen, no OpenCV.

Coordinates are pixels of the frame they were seen in (x right, y down); zones are kept
in fractions of the frame (0..1) so a config survives a change of resolution.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Frame:
    """One picture and when it was taken.

    ``t_ns`` is on the referee's clock (``time.monotonic_ns``) for a live camera: the
    capture instant as the source reports it (picamera2's sensor timestamp, else the
    moment the frame was handed over); a file source counts from its own start.
    ``image`` is a NumPy array, BGR (H x W x 3) or grey (H x W), uint8.
    """

    index: int
    t_ns: int
    image: Any = field(repr=False, compare=False)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        height, width = self.image.shape[:2]
        return int(width), int(height)


@dataclass(frozen=True, slots=True)
class Sighting:
    """One marker found in one frame: its id and its four corners (the marker's own
    top-left, top-right, bottom-right, bottom-left, in frame pixels)."""

    marker: int
    corners: tuple[Point, Point, Point, Point]

    @property
    def centre(self) -> Point:
        xs = [x for x, _ in self.corners]
        ys = [y for _, y in self.corners]
        return sum(xs) / 4.0, sum(ys) / 4.0

    @property
    def side_px(self) -> float:
        """The mean length of its four sides: how large it appears."""
        total = 0.0
        for i in range(4):
            (x0, y0), (x1, y1) = self.corners[i], self.corners[(i + 1) % 4]
            total += ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
        return total / 4.0


@dataclass(frozen=True, slots=True)
class Seen:
    """What the detector made of one frame: its stamp, size and every sighting."""

    index: int
    t_ns: int
    size: tuple[int, int]
    sightings: tuple[Sighting, ...] = ()


@dataclass(frozen=True, slots=True)
class Zone:
    """A seat's reveal area: a convex polygon in fractions of the frame (0..1)."""

    seat: str
    polygon: tuple[Point, ...]


class FrameSource(Protocol):
    """A camera, a recorded video, a folder of frames or the simulated table.

    ``read()`` returns the next frame, or None when a recording has ended; a live camera
    that stops answering raises :class:`~companion.errors.HardwareError` with one line
    naming it. ``describe`` is that name ("picamera2 0", "/dev/video0", "rounds.mp4").
    """

    @property
    def describe(self) -> str: ...

    @property
    def fps(self) -> float: ...

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


class NumberedFrames:
    """What every frame source shares: its name, its frame rate and the count of frames it
    has handed out (a frame's index). Subclasses set ``_name`` and ``_fps``."""

    _name: str
    _fps: float
    _index: int = 0

    @property
    def describe(self) -> str:
        return self._name

    @property
    def fps(self) -> float:
        return self._fps

    def _next_frame(self, t_ns: int, image: Any) -> Frame:
        """The next frame, numbered; stamped ``t_ns``."""
        frame = Frame(self._index, t_ns, image)
        self._index += 1
        return frame

    def _recorded_t_ns(self) -> int:
        """A recording's stamp for the next frame: its place in the file at its frame rate."""
        return round(self._index * 1e9 / self._fps)
