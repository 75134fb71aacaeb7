"""The frames read in a process of their own, at lower priority, beside the referee.

Why a process: finding markers in a 720p frame takes milliseconds of CPU every 33 ms, and
in the referee's process that work (and its garbage) would share the interpreter with the
decision path (pins -> referee -> LED, buzzer, journal). A child process started with
``spawn`` (never forked: no referee thread, lock or open pin is copied into it) reads the
camera, runs :class:`~companion.camera.detect.Detector` on each frame at ``nice`` +10 and,
while a round is being read, sends back only what it saw
(:class:`~companion.camera.model.Seen`: ids, corners, a stamp, a few hundred bytes a
frame); between rounds nothing crosses but a count of frames once a second. It keeps the
last ~2 s of frames and what was seen in them, so a round's reading starts at its reveal's
stamp even when the table asks a little later, and so the table can ask for the frame
that gave a round's cards (the evidence, as a JPEG with the markers outlined).

Two parts, both closed by their ``close()`` with no process left behind:

* :class:`CameraWorker` owns the child and the pipe: ``listen(since)`` / ``quiet()``,
  ``on_seen`` for every frame listened to, ``on_end`` once when the source fails
  (unplugged) or a recording ends;
* :class:`CameraReading` is the table's side: it feeds a
  :class:`~companion.camera.reader.RevealReader` from the worker on a thread of its own,
  armed at each reveal, and calls ``on_cards``, ``on_ask`` and ``on_fault``. It never
  stamps a slap or a reveal: the pins and the reveal button do that.

A recording (a video file, a folder of frames) played at a table is played as if live:
paced at its frame rate, each frame stamped when it is read, so its frames and the
referee's reveal share one clock (``time.monotonic_ns``, the same in every process).
"""

from __future__ import annotations

import collections
import functools
import logging
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.camera.model import Frame, FrameSource, Seen, Sighting
from companion.errors import CompanionError, HardwareError

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from companion.camera.reader import Ask, ReadUpdate, RevealReader
    from companion.camera.zones import Zones

log = logging.getLogger(__name__)

NICE = 10  # the worker's niceness above the table's: the referee's loop goes first
KEEP_S = 2.0  # seconds of frames kept for the evidence
COUNT_EVERY = 30  # between rounds the child says how many frames it read, once a second
LINGER_S = 2.0  # after the source ends, the frames kept are still served this long
OPEN_WAIT_S = 30.0  # the child's start (Python, OpenCV) and the camera's own, on a Pi
LIVE_NAMES = ("picamera2", "sim")
LIVE_PREFIXES = ("picamera2:", "sim:", "/dev/video", "usb:")

Opener = Callable[[str, tuple[int, int], float], FrameSource]
Packed = tuple[int, int, tuple[int, int], tuple[tuple[int, tuple[tuple[float, float], ...]], ...]]


def is_live(spec: str) -> bool:
    """A camera (or the simulated table) rather than a recording."""
    return spec in LIVE_NAMES or spec.startswith(LIVE_PREFIXES)


def pack(seen: Seen) -> Packed:
    """A Seen as plain tuples (what crosses the pipe: small, no class to pickle)."""
    sightings = tuple((s.marker, tuple(s.corners)) for s in seen.sightings)
    return seen.index, seen.t_ns, seen.size, sightings


def unpack(packed: Packed) -> Seen:
    index, t_ns, size, sightings = packed
    return Seen(
        index,
        t_ns,
        (int(size[0]), int(size[1])),
        tuple(Sighting(int(m), _corners(c)) for m, c in sightings),
    )


def _corners(
    corners: Sequence[tuple[float, float]],
) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]:
    a, b, c, d = ((float(x), float(y)) for x, y in corners)
    return a, b, c, d


ZoneLines = Sequence[tuple[str, Sequence[tuple[float, float]]]]  # seat, polygon (fractions)
MARKED = (0, 255, 255)  # a marker's outline (yellow, drawn over a dark edge)
ZONED = (255, 160, 0)  # a seat's zone (blue), in the setup's preview


def outlined_jpeg(
    frame: Frame, seen: Seen | None, zones: ZoneLines = (), quality: int = 85
) -> bytes:
    """The frame as a JPEG with every marker seen outlined and numbered (the evidence a
    dispute is settled by) and, for the setup's preview, each seat's zone drawn."""
    import cv2
    import numpy as np

    image = frame.image
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    else:
        image = image.copy()
    width, height = frame.size
    thick = max(2, width // 400)

    def line(points: Any, label: str, at: tuple[int, int], colour: tuple[int, int, int]) -> None:
        for shade, extra in (((0, 0, 0), 2), (colour, 0)):  # dark under light: seen anywhere
            cv2.polylines(image, [points], True, shade, thick + extra)
            cv2.putText(image, label, at, cv2.FONT_HERSHEY_SIMPLEX, 0.7, shade, thick + extra,
                        cv2.LINE_AA)  # fmt: skip

    for seat, polygon in zones:
        points = np.array([(x * width, y * height) for x, y in polygon], np.int32)
        x, y = points[0]
        line(points.reshape(-1, 1, 2), seat, (int(x) + 4, int(y) + 22), ZONED)
    for sighting in seen.sightings if seen is not None else ():
        points = np.array(sighting.corners, np.int32).reshape(-1, 1, 2)
        x, y = (int(v) for v in sighting.corners[0])
        line(points, str(sighting.marker), (x, max(12, y - 6)), MARKED)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise CompanionError("the evidence frame could not be encoded as JPEG")
    return bytes(data.tobytes())


def default_opener(spec: str, size: tuple[int, int], fps: float) -> FrameSource:
    """The :func:`~companion.camera.sources.open_camera` (imported in the child)."""
    from companion.camera.sources import open_camera

    source: FrameSource = open_camera(spec, size, fps, where="camera.source")
    return source


# ------------------------------------------------------------------------- the child ----


def _child(
    conn: Connection,
    spec: str,
    markers: tuple[int, ...] | None,
    size: tuple[int, int],
    fps: float,
    keep_s: float,
    opener: Opener,
) -> None:
    """The worker process: frames in, sightings out, until told to stop or the source
    ends (then the frames kept are served a little longer, and it ends by itself)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the table's: it closes us
    try:
        niceness = os.nice(NICE)
        said = f"camera worker (pid {os.getpid()}) reads {spec} at nice {niceness}"
    except OSError as exc:  # a container that forbids it: say so, go on
        said = f"camera worker (pid {os.getpid()}) reads {spec}; nice refused ({exc.strerror})"
    conn.send(("hello", said))
    try:
        _read_frames(conn, spec, markers, size, fps, keep_s, opener)
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        pass  # the table is gone or stopping: nothing to tell
    except Exception as exc:  # noqa: BLE001 - a bug or a library's: to the table's log
        try:  # (never printed here: a traceback on the terminal would tear its screen)
            conn.send(("error", traceback.format_exc()))
            conn.send(("end", f"camera {spec}: {type(exc).__name__}: {exc}"))
        except OSError:
            pass
    finally:
        conn.close()


class _Ring:
    """The last frames (with what was seen in each), by index, for the evidence."""

    def __init__(self, keep_s: float) -> None:
        self.keep_ns = int(keep_s * 1e9)
        self.frames: collections.deque[tuple[Frame, Seen]] = collections.deque()
        self.listening = False  # the table is reading a round: each frame's Seen goes to it
        self.read = 0  # frames read so far

    def add(self, frame: Frame, seen: Seen) -> None:
        self.frames.append((frame, seen))
        while self.frames and frame.t_ns - self.frames[0][0].t_ns > self.keep_ns:
            self.frames.popleft()

    def jpeg(self, index: int | None, zones: ZoneLines = ()) -> bytes | None:
        """Frame ``index`` (None: the latest) as a JPEG, or None when it is not kept."""
        for frame, seen in reversed(self.frames):
            if index is None or frame.index == index:
                return outlined_jpeg(frame, seen, zones)
        return None


def _serve_requests(conn: Connection, ring: _Ring, source: FrameSource | None) -> bool:
    """Answer what the table asked; False when it said stop."""
    while conn.poll():
        request = conn.recv()
        if request[0] == "stop":
            return False
        if request[0] == "frame":
            _, ticket, index, zones = request
            try:
                conn.send(("jpeg", ticket, ring.jpeg(index, zones)))
            except CompanionError as exc:
                conn.send(("jpeg", ticket, None))
                conn.send(("log", str(exc)))
        elif request[0] == "listen":  # a round is read: the frames since its start, then
            ring.listening = True  # every frame as it comes
            for _, seen in list(ring.frames):
                if seen.t_ns >= request[1]:
                    conn.send(("seen", pack(seen)))
        elif request[0] == "quiet":  # nothing to read: the frames are only kept
            ring.listening = False
        elif request[0] == "show" and source is not None:
            show = getattr(source, "show", None)  # the simulated table: the demo's cards
            if show is not None:
                show(request[1])
    return True


def _read_frames(
    conn: Connection,
    spec: str,
    markers: tuple[int, ...] | None,
    size: tuple[int, int],
    fps: float,
    keep_s: float,
    opener: Opener,
) -> None:
    from companion.camera.detect import Detector

    ring = _Ring(keep_s)
    try:
        source = opener(spec, size, fps)
    except CompanionError as exc:
        conn.send(("end", str(exc)))
        return
    try:
        try:
            detector = Detector(markers)
        except CompanionError as exc:  # no OpenCV with its ArUco module: one line
            conn.send(("end", str(exc)))
            return
        live = is_live(spec)
        period_ns = int(1e9 / (source.fps or fps)) if not live else 0
        next_ns = time.monotonic_ns()
        conn.send(("opened", source.describe))
        while _serve_requests(conn, ring, source):
            try:
                frame = source.read()
            except (CompanionError, OSError) as exc:
                conn.send(("end", f"camera {source.describe}: {exc}"))
                break
            if frame is None:
                conn.send(("end", f"camera {source.describe}: the recording ended"))
                break
            if not live:  # a recording played as if live (module docstring)
                now = time.monotonic_ns()
                if next_ns > now:
                    time.sleep((next_ns - now) / 1e9)
                next_ns = max(next_ns, now) + period_ns
                frame = Frame(frame.index, time.monotonic_ns(), frame.image)
            seen = detector.see(frame)
            ring.add(frame, seen)
            ring.read += 1
            if ring.listening:
                conn.send(("seen", pack(seen)))
            elif ring.read % COUNT_EVERY == 1:  # between rounds: a sign of life, no more
                conn.send(("count", ring.read))
        else:
            return  # told to stop
        until = time.monotonic() + LINGER_S
        while time.monotonic() < until and _serve_requests(conn, ring, None):
            conn.poll(0.05)
    finally:
        source.close()


# ------------------------------------------------------------------------ the parent ----


class CameraWorker:
    """The child process and its pipe, seen from the table (module docstring).

    ``on_seen`` gets every frame's :class:`Seen` on the worker's reader thread; ``on_end``
    gets one line, once, when the source fails or ends (the child then ends by itself);
    ``on_log`` the child's own lines (its niceness, the camera it opened).
    """

    def __init__(
        self,
        spec: str,
        on_seen: Callable[[Seen], None],
        on_end: Callable[[str], None],
        markers: Collection[int] | None = None,
        size: tuple[int, int] = (1280, 720),
        fps: float = 30.0,
        keep_s: float = KEEP_S,
        opener: Opener = default_opener,
        on_log: Callable[[str], None] | None = None,
    ) -> None:
        self.spec = spec
        self.on_seen = on_seen
        self.on_end = on_end
        self.on_log = on_log or (lambda line: log.info("%s", line))
        self.markers = None if markers is None else tuple(sorted(markers))
        self.size, self.fps, self.keep_s, self.opener = size, fps, keep_s, opener
        self.describe = spec
        self.ended: str | None = None  # the line on_end was given
        self.opened = False
        self.frames = 0  # frames the child has read (as it said, or as they came)
        self.seen = 0  # Seen values received
        self._last_index = -1
        self._process: Any = None
        self._conn: Connection | None = None
        self._thread: threading.Thread | None = None
        self._send_lock = threading.Lock()
        self._tickets: dict[int, Callable[[bytes | None], None]] = {}
        self._next_ticket = 0
        self._closing = threading.Event()
        self._answered = threading.Event()  # the child opened its source, or could not

    def start(self, wait_s: float = OPEN_WAIT_S) -> CameraWorker:
        """Start the child and wait until its source is open: a camera that cannot be
        opened is one HardwareError line naming it (nothing left running)."""
        self._spawn()
        if not self._answered.wait(wait_s):
            self.close()
            raise HardwareError(f"camera {self.spec}: not open after {wait_s:g} s")
        if not self.opened:
            line = self.ended or f"camera {self.spec}: could not be opened"
            self.close()
            raise HardwareError(line)
        return self

    def _spawn(self) -> None:
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe()
        self._process = context.Process(
            target=_child,
            args=(theirs, self.spec, self.markers, self.size, self.fps, self.keep_s, self.opener),
            name="companion camera",
            daemon=True,
        )
        self._process.start()
        theirs.close()  # the child's end lives in the child: EOF here when it exits
        self._conn = mine
        self._thread = threading.Thread(target=self._listen, name="camera pipe", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        """Whether the child process is running."""
        return self._process is not None and bool(self._process.is_alive())

    @property
    def pid(self) -> int | None:
        return None if self._process is None else int(self._process.pid)

    def _listen(self) -> None:
        conn = self._conn
        assert conn is not None
        try:
            while True:
                message = conn.recv()
                self._dispatch(message)
        except (EOFError, OSError):
            pass
        if not self._closing.is_set():
            self._end(f"camera {self.describe}: the camera worker stopped")
        for callback in self._take_tickets():
            callback(None)

    def _dispatch(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "seen":
            seen = unpack(message[1])
            if seen.index > self._last_index:  # a frame sent again (listen's backlog) once
                self._last_index = seen.index
                self.seen += 1
                self.frames = max(self.frames, self.seen)
                self._guard("on_seen", self.on_seen, seen)
        elif kind == "count":
            self.frames = max(self.frames, int(message[1]))
        elif kind == "jpeg":
            with self._send_lock:
                callback = self._tickets.pop(message[1], None)
            if callback is not None:
                self._guard("evidence", callback, message[2])
        elif kind == "opened":
            self.describe = str(message[1])
            self.on_log(f"camera {self.describe} opened")
            self.opened = True
            self._answered.set()
        elif kind in ("hello", "log"):
            self.on_log(str(message[1]))
        elif kind == "error":
            log.error("camera worker failed:\n%s", message[1])
        elif kind == "end":
            self._end(str(message[1]))

    def _end(self, line: str) -> None:
        if self.ended is None:
            self.ended = line
            if self._answered.is_set():  # at start, start() raises it instead
                self._guard("on_end", self.on_end, line)
            self._answered.set()

    @staticmethod
    def _guard(name: str, hook: Callable[[Any], None], value: object) -> None:
        """A callback that raises is logged; the pipe goes on being read."""
        try:
            hook(value)
        except Exception:  # noqa: BLE001 - a table's bug, kept off the camera's thread
            log.exception("camera %s failed", name)

    def _take_tickets(self) -> list[Callable[[bytes | None], None]]:
        with self._send_lock:
            waiting, self._tickets = list(self._tickets.values()), {}
        return waiting

    def _send(self, message: tuple[Any, ...]) -> bool:
        """Send to the child; False when it is gone."""
        with self._send_lock:
            if self._conn is None or self._closing.is_set():
                return False
            try:
                self._conn.send(message)
            except (OSError, ValueError):
                return False
            return True

    def evidence(
        self, index: int | None, reply: Callable[[bytes | None], None], zones: ZoneLines = ()
    ) -> None:
        """Ask for frame ``index`` (None: the latest) as a JPEG with its markers outlined
        (and ``zones`` drawn); ``reply`` gets it (None when the frame is no longer kept or
        the worker is gone) on the pipe's thread."""
        with self._send_lock:
            ticket = self._next_ticket
            self._next_ticket += 1
            self._tickets[ticket] = reply
        plain = [(seat, [(float(x), float(y)) for x, y in polygon]) for seat, polygon in zones]
        if not self._send(("frame", ticket, index, plain)):
            with self._send_lock:
                self._tickets.pop(ticket, None)
            reply(None)

    def listen(self, since_ns: int) -> None:
        """A round is read: every frame's Seen from ``since_ns`` on (those kept, then each
        as it comes) to ``on_seen``. Between rounds nothing is sent (the referee's process
        does no camera work then), only a count of the frames read, once a second."""
        self._send(("listen", since_ns))

    def quiet(self) -> None:
        """No round to read: the frames are only kept (for the evidence and the setup)."""
        self._send(("quiet",))

    def show(self, placed: Mapping[str, Sequence[int]] | None) -> None:
        """The simulated table: the markers now face up at each seat (ignored by a camera)."""
        self._send(("show", None if placed is None else {k: list(v) for k, v in placed.items()}))

    def close(self, timeout: float = 5.0) -> None:
        """Stop the child and wait for it (killed if it does not stop): no zombie is left.
        Safe to call twice."""
        if self._process is None:
            return
        self._send(("stop",))
        self._closing.set()
        self._process.join(timeout)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(1.0)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(1.0)
        if self._conn is not None:
            self._conn.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self._process.close()
        self._process = None

    def __enter__(self) -> CameraWorker:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@dataclass(frozen=True)
class Armed:
    """The round the camera is reading: its number, the cards each seat shows, when the
    cards went up (the reveal's stamp) and when to stop waiting."""

    n: int
    expect: dict[str, int]
    reveal_ns: int
    deadline_ns: int


@dataclass(frozen=True)
class WhenClear:
    """A round of a game with no reveal stamp, armed at the first clear frame after
    ``asked_ns`` (:meth:`CameraReading.arm_when_clear`)."""

    n: int
    expect: dict[str, int]
    clear: Callable[[Seen], bool]
    wait_ns: int
    asked_ns: int


@dataclass(frozen=True)
class NewZones:
    """The seats' zones changed (set up between rounds): read with them from the next round."""

    zones: Zones


Request = Armed | WhenClear | NewZones | None  # None: disarm


class CameraReading:
    """The table's side: the worker's frames through a RevealReader, a round at a time.

    ``arm`` at each reveal (the frames since the reveal's stamp that came before it are
    read too: a short backlog is kept), ``disarm`` when the round is decided or typed.
    ``on_cards(n, update)`` once a round (complete, or at the deadline the seats read so
    far), ``on_ask(n, ask)`` per question for a person, ``on_fault(line)`` once if the
    camera fails; all on the reading thread.

    The reader belongs to the reading thread alone: ``arm`` and ``disarm`` (called on the
    referee's loop, from its step hook) only queue a request under a lock no reading is
    done under, so the loop never waits for a frame to be read.
    """

    def __init__(
        self,
        spec: str,
        reader: RevealReader,
        on_cards: Callable[[int, ReadUpdate], None],
        on_ask: Callable[[int, Ask], None],
        on_fault: Callable[[str], None],
        markers: Collection[int] | None = None,
        clock: Callable[[], int] = time.monotonic_ns,
        opener: Opener = default_opener,
        on_log: Callable[[str], None] | None = None,
        keep_s: float = KEEP_S,
    ) -> None:
        self.reader = reader
        self.on_cards, self.on_ask, self.on_fault = on_cards, on_ask, on_fault
        self.clock = clock
        self._wake = threading.Condition(threading.Lock())
        # Shared, under the lock: the frames of the last keep_s, the requests, stop.
        self._backlog: collections.deque[Seen] = collections.deque()
        self._requests: list[Request] = []
        self._stop = False
        self._keep_ns = int(keep_s * 1e9)
        # The reading thread's own.
        self._armed: Armed | None = None
        self._waiting: WhenClear | None = None
        self._given = False  # this round's cards went out (or its deadline passed)
        self._next_zones: Zones | None = None  # new zones, taken at the next round's start
        self._fed_ns = -1  # the stamp of the last frame looked at
        self.worker = CameraWorker(
            spec, self._seen, self._ended, markers, opener=opener, on_log=on_log, keep_s=keep_s
        )
        self._thread = threading.Thread(target=self._run, name="camera reading", daemon=True)

    def start(self) -> CameraReading:
        self.worker.start()
        self._thread.start()
        return self

    @property
    def failed(self) -> str | None:
        """The line the camera ended with (unplugged, a recording over), or None."""
        return self.worker.ended

    # -------------------------------------------------------------- from the table ---

    def arm(self, n: int, expect: Mapping[str, int], reveal_ns: int, deadline_ns: int) -> None:
        """Read round ``n``'s cards from the reveal's stamp on; a second call for the same
        round changes nothing (it can follow every step of a round)."""
        self._ask(Armed(n, dict(expect), reveal_ns, deadline_ns))

    def arm_when_clear(
        self, n: int, expect: Mapping[str, int], clear: Callable[[Seen], bool], wait_ns: int
    ) -> None:
        """A game with no reveal stamp (Get Bit!: the cards are turned over together when
        the players are ready): round ``n`` counts from the first frame after now in
        which ``clear`` holds (no card in any seat's zone), so the last round's cards
        still lying there are never read as this one's; then ``wait_ns`` to read them."""
        self._ask(WhenClear(n, dict(expect), clear, wait_ns, self.clock()))

    def disarm(self) -> None:
        self._ask(None)

    def set_zones(self, zones: Zones) -> None:
        """New zones (checked): a round being read keeps its own; the next one uses these."""
        self._ask(NewZones(zones))

    def _ask(self, request: Request) -> None:
        with self._wake:
            self._requests.append(request)
            self._wake.notify()

    def evidence(
        self, index: int | None, reply: Callable[[bytes | None], None], zones: ZoneLines = ()
    ) -> None:
        self.worker.evidence(index, reply, zones)

    def close(self) -> None:
        with self._wake:
            self._stop = True
            self._wake.notify()
        self.worker.close()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(5.0)

    # -------------------------------------------------------------- the worker's ------

    def _seen(self, seen: Seen) -> None:
        with self._wake:
            self._backlog.append(seen)
            while self._backlog and seen.t_ns - self._backlog[0].t_ns > self._keep_ns:
                self._backlog.popleft()
            self._wake.notify()

    def _ended(self, line: str) -> None:
        log.warning("%s", line)
        self._guard(lambda: self.on_fault(line))

    # -------------------------------------------------------------- the reading -------

    def _run(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(self._due, self._timeout())
                if self._stop:
                    return
                requests, self._requests = self._requests, []
            for request in requests:
                self._apply(request)
            with self._wake:
                frames = [s for s in self._backlog if s.t_ns > self._fed_ns]
            for seen in frames:
                self._feed(seen)
            self._check_deadline()

    def _due(self) -> bool:
        """Under the lock: something to do (a request, a new frame, a deadline, stop)."""
        new = bool(self._backlog) and self._backlog[-1].t_ns > self._fed_ns
        return self._stop or bool(self._requests) or new or self._timeout() == 0

    def _timeout(self) -> float:
        armed = self._armed
        if armed is None or self._given:
            return 0.25
        return max(0.0, min(0.25, (armed.deadline_ns - self.clock()) / 1e9))

    def _apply(self, request: Request) -> None:
        if isinstance(request, NewZones):
            self._next_zones = request.zones
            if self._armed is None or self._given:
                self._take_zones()
        elif request is None:
            self._armed, self._waiting = None, None
            self.reader.disarm()
            self._take_zones()
            self.worker.quiet()
        elif isinstance(request, WhenClear):
            if self._armed is None or self._armed.n != request.n:
                self._armed, self._waiting = None, request
                self.reader.disarm()
                self.worker.listen(request.asked_ns)
        elif self._armed is None or self._armed.n != request.n:
            self._arm(request)
            self.worker.listen(request.reveal_ns)

    def _take_zones(self) -> None:
        if self._next_zones is not None:
            self.reader.zones, self._next_zones = self._next_zones, None

    def _arm(self, armed: Armed) -> None:
        self._take_zones()
        self._armed, self._waiting, self._given = armed, None, False
        self.reader.arm(armed.n, armed.expect, armed.reveal_ns, armed.deadline_ns)
        self._fed_ns = min(self._fed_ns, armed.reveal_ns - 1)  # the backlog since the reveal

    def _feed(self, seen: Seen) -> None:
        self._fed_ns = max(self._fed_ns, seen.t_ns)
        waiting = self._waiting
        if waiting is not None and seen.t_ns > waiting.asked_ns and waiting.clear(seen):
            start = seen.t_ns + 1
            self._arm(Armed(waiting.n, waiting.expect, start, start + waiting.wait_ns))
            return
        if self._armed is not None and not self._given:
            self._deliver(self._armed.n, self.reader.see(seen))

    def _check_deadline(self) -> None:
        armed = self._armed
        if armed is not None and not self._given and self.clock() >= armed.deadline_ns:
            self._given = True  # the deadline is once a round: what it gives is all there is
            self.worker.quiet()
            self._deliver(armed.n, self.reader.expire(self.clock()))

    def _deliver(self, n: int, update: ReadUpdate) -> None:
        if update.cards is not None:
            self._given = True
            self.worker.quiet()  # the round is read: nothing more to send until the next
        for ask in update.asks:
            self._guard(functools.partial(self.on_ask, n, ask))
        if update.cards is not None:
            self._guard(lambda: self.on_cards(n, update))

    @staticmethod
    def _guard(call: Callable[[], None]) -> None:
        try:
            call()
        except Exception:  # noqa: BLE001 - a table's bug, kept off the camera's thread
            log.exception("camera callback failed")
