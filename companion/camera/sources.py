"""Where frames come from: the Pi camera, a V4L2/USB camera, a recorded video, a folder
of frames, or the simulated table, all behind :class:`~companion.camera.model.FrameSource`.

One function opens any of them from a spec a person types (``[camera] source`` in the
table's config, ``--camera`` on the command line). A live camera stamps each frame on the
referee's clock (``time.monotonic_ns``): picamera2 with the sensor's own timestamp, an
OpenCV camera when the frame is handed over. A recording counts from its own start
(``index / fps``). What is missing or stops answering is one line naming it:
:class:`~companion.errors.HardwareError` for a camera, :class:`~companion.errors.InputError`
for a file or a spec.

picamera2 exists on the Pi only (Debian's ``python3-picamera2``, seen from the project's
venv through ``--system-site-packages`` as lgpio is); it is imported when asked for.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion.camera.model import Frame, FrameSource, NumberedFrames, Zone
from companion.data import check_path
from companion.errors import HardwareError, InputError
from companion.text import clean, shown

KINDS = (
    "picamera2 or picamera2:N, /dev/videoN, usb:N, a video file, a folder of frames, "
    "sim or sim:SEED"
)
VIDEO_SUFFIXES = (".mp4", ".mkv", ".avi", ".mov", ".webm", ".mjpeg", ".h264")
FRAME_SUFFIXES = (".png", ".jpg", ".jpeg")
PICAMERA2_MISSING = (
    "picamera2 is not installed: it is the Pi's python3-picamera2 (sudo apt install "
    "python3-picamera2), seen from a venv made with --system-site-packages, as "
    "hardware/INSTALL.md does for lgpio"
)
MAX_FRAME_PIXELS = 3840 * 2160  # a recording larger than 4K is no table camera's
MIN_FRAME_SIDE = 200


def sim_zones(seats: Sequence[str]) -> list[Zone]:
    """Where the simulated table (``sim``) lays each seat's cards: its zones, for a table
    that tells it the cards (the demo). 2 to 6 seats, any order."""
    from companion.camera.detect import require_opencv

    require_opencv()  # the simulated table draws with OpenCV: without it, one line
    from companion.camera.simulated import sim_zones as zones

    return zones(seats)


def open_camera(
    spec: str,
    size: tuple[int, int] = (1280, 720),
    fps: float = 30.0,
    *,
    paced: bool = True,
    where: str = "camera",
) -> FrameSource:
    """The frame source ``spec`` names; one line naming it when it cannot be had.
    ``paced`` (the simulated table only): frames come in real time; False: as fast as
    they are asked for, on a clock of their own starting at 0."""
    text = clean(spec, where).strip()
    if not text:
        raise InputError(where, f"no camera named: give {KINDS}")
    if not (0 < fps <= 240):
        raise InputError(where, f"a frame rate from 1 to 240, not {fps}")
    if text == "picamera2" or text.startswith("picamera2:"):
        return Picamera2Source(_index(text, "picamera2:", where), size, fps)
    from companion.camera.detect import require_opencv

    require_opencv()  # every other source is OpenCV's: without it, one line saying how
    if re.fullmatch(r"usb:\d{1,3}", text):
        return OpenCvCamera(f"/dev/video{int(text[4:])}", size, fps, name=text)
    if re.fullmatch(r"/dev/video\d{1,3}", text):
        return OpenCvCamera(text, size, fps)
    if text == "sim" or text.startswith("sim:"):
        from companion.camera.simulated import SimulatedTable

        return SimulatedTable(_index(text, "sim:", where), size, fps, paced=paced)
    path = Path(check_path(text))
    if path.is_dir():
        return FolderSource(path, fps)
    if path.suffix.lower() in VIDEO_SUFFIXES:
        return VideoFile(path, fps)
    if path.exists():
        raise InputError(
            where, f"{shown(text)} is neither a video ({', '.join(VIDEO_SUFFIXES)}) nor a folder"
        )
    raise InputError(where, f"{shown(text)}: no such camera, file or folder; give {KINDS}")


def _index(text: str, prefix: str, where: str) -> int:
    if not text.startswith(prefix):
        return 0
    rest = text[len(prefix) :]
    if not re.fullmatch(r"\d{1,9}", rest):
        raise InputError(where, f"{shown(text)}: after {prefix!r} a whole number, as {prefix}1")
    return int(rest)


class OpenCvCamera(NumberedFrames):
    """A V4L2 camera (a USB webcam, or the Pi camera through its V4L2 driver) via OpenCV.
    Each frame is stamped when OpenCV hands it over, on the monotonic clock."""

    def __init__(
        self, device: str, size: tuple[int, int], fps: float, name: str | None = None
    ) -> None:
        import cv2

        self._name = name or device
        self._fps = fps
        self._index = 0
        if not os.path.exists(device):
            raise HardwareError(f"{self._name}: no such camera ({device} is not there: unplugged?)")
        capture = cv2.VideoCapture(device, cv2.CAP_V4L2)
        if not capture.isOpened():
            capture.release()
            raise HardwareError(f"{self._name}: the camera did not open (busy, or not a camera?)")
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        capture.set(cv2.CAP_PROP_FPS, fps)
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not a queue of old ones
        self._capture: Any = capture

    def read(self) -> Frame | None:
        if self._capture is None:
            raise HardwareError(f"{self._name}: the camera is closed")
        ok, image = self._capture.read()
        stamp = time.monotonic_ns()
        if not ok or image is None:
            raise HardwareError(f"{self._name}: the camera stopped sending frames (unplugged?)")
        return self._next_frame(stamp, image)

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class VideoFile(NumberedFrames):
    """A recorded video, frame by frame; frame ``i`` is at ``i / fps`` from its start (the
    file's own frame rate, else the one given)."""

    def __init__(self, path: Path, fps: float) -> None:
        import cv2

        self._name = str(path)
        if not path.is_file():
            raise InputError("", "no such video file", self._name)
        capture = cv2.VideoCapture(self._name, cv2.CAP_FFMPEG)
        if not capture.isOpened():
            capture.release()
            raise InputError(
                "", "not a video OpenCV can read (damaged, or another format?)", self._name
            )
        own = capture.get(cv2.CAP_PROP_FPS)
        self._fps = float(own) if 0 < own <= 1000 else fps
        width = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH))
        height = int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
        problem = frame_size_problem(width, height)
        if problem:
            capture.release()
            raise InputError("", problem, self._name)
        self._capture: Any = capture
        self._index = 0

    def read(self) -> Frame | None:
        if self._capture is None:
            return None
        ok, image = self._capture.read()
        if not ok or image is None:
            return None
        return self._next_frame(self._recorded_t_ns(), image)

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


def frame_size_problem(width: int, height: int) -> str | None:
    """Why a frame of this size is no table camera's (the photo gate's limits), or None."""
    if min(width, height) < MIN_FRAME_SIDE:
        return f"frames of {width} x {height}: at least {MIN_FRAME_SIDE} pixels a side"
    if width * height > MAX_FRAME_PIXELS:
        return f"frames of {width} x {height}: at most 4K ({MAX_FRAME_PIXELS} pixels)"
    if max(width, height) > 4 * min(width, height):
        return f"frames of {width} x {height}: a strip, not a camera's picture"
    return None


class FolderSource(NumberedFrames):
    """A folder of frames (PNG or JPEG, in name order), each through the photo gate;
    frame ``i`` is at ``i / fps``."""

    def __init__(self, folder: Path, fps: float) -> None:
        self._name = str(folder)
        self._fps = fps
        try:
            names = sorted(
                p for p in folder.iterdir() if p.suffix.lower() in FRAME_SUFFIXES and p.is_file()
            )
        except OSError as exc:
            raise InputError(
                "", f"cannot list the folder: {exc.strerror or exc}", self._name
            ) from None
        if not names:
            raise InputError("", f"no frames here ({', '.join(FRAME_SUFFIXES)} files)", self._name)
        self._paths = names
        self._index = 0

    def read(self) -> Frame | None:
        from companion.photo_gate import open_photo

        if self._index >= len(self._paths):
            return None
        path = self._paths[self._index]
        image = open_photo(str(path))
        height, width = image.shape[:2]
        problem = frame_size_problem(width, height)
        if problem:
            raise InputError("", problem, str(path))
        return self._next_frame(self._recorded_t_ns(), image)

    def close(self) -> None:
        self._index = len(self._paths)


class Picamera2Source(NumberedFrames):
    """The Pi camera through picamera2 (libcamera). Each frame carries the sensor's
    timestamp (the start of its exposure, on the kernel's clock), moved onto the
    referee's monotonic clock."""

    def __init__(self, number: int, size: tuple[int, int], fps: float) -> None:
        self._name = f"picamera2 {number}"
        self._fps = fps
        self._index = 0
        self._offset: int | None = None
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError:
            raise HardwareError(PICAMERA2_MISSING) from None
        try:
            camera = Picamera2(number)
            frame_us = round(1e6 / fps)
            config = camera.create_video_configuration(
                main={"size": size, "format": "RGB888"},  # BGR in memory, as OpenCV's
                controls={"FrameDurationLimits": (frame_us, frame_us)},
                buffer_count=4,
            )
            camera.configure(config)
            camera.start()
        except (IndexError, RuntimeError, OSError) as exc:
            raise HardwareError(f"{self._name}: the camera did not start ({exc})") from None
        self._camera: Any = camera

    def read(self) -> Frame | None:
        if self._camera is None:
            raise HardwareError(f"{self._name}: the camera is closed")
        try:
            request = self._camera.capture_request()
            try:
                image = request.make_array("main")
                stamp = int(request.get_metadata().get("SensorTimestamp", 0))
            finally:
                request.release()
        except (RuntimeError, OSError, TimeoutError) as exc:
            raise HardwareError(
                f"{self._name}: the camera stopped sending frames ({exc})"
            ) from None
        return self._next_frame(self._on_monotonic(stamp), image)

    def _on_monotonic(self, stamp: int) -> int:
        """The sensor's stamp on the monotonic clock; the frame's hand-over time if none."""
        now = time.monotonic_ns()
        if stamp <= 0:
            return now
        if self._offset is None:
            self._offset = sensor_clock_offset(
                stamp, now, time.clock_gettime_ns(time.CLOCK_BOOTTIME)
            )
        return stamp + self._offset

    def close(self) -> None:
        if self._camera is not None:
            try:
                self._camera.stop()
                self._camera.close()
            finally:
                self._camera = None


def sensor_clock_offset(stamp: int, monotonic: int, boottime: int) -> int:
    """What to add to a sensor timestamp to put it on the monotonic clock.

    libcamera stamps frames with the kernel's buffer time, the monotonic clock on the
    Pi's kernels; if it is the boot-time clock instead (it counts suspend too), the frame
    just taken is seconds away from ``monotonic`` but under a second from ``boottime``,
    and the difference of the two clocks is the offset."""
    if 0 <= monotonic - stamp < 1_000_000_000:
        return 0
    if 0 <= boottime - stamp < 1_000_000_000:
        return monotonic - boottime
    return monotonic - stamp  # neither: the hand-over time, from this frame on
