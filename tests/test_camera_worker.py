"""The camera's worker process: frames read beside the referee, at lower priority, with
only what was seen crossing the pipe, and the last frames kept for the evidence."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path

import pytest
from camera_frames import frame, seats, write_frames
from hypothesis import given
from hypothesis import strategies as st

from companion.camera.deck import StickerDeck
from companion.camera.model import Seen, Sighting
from companion.camera.worker import NICE, CameraWorker, is_live, pack, unpack

WaitFor = Callable[..., bool]
DECK = StickerDeck.default("chomp")

coordinate = st.floats(-1e4, 1e4, allow_nan=False)
corner = st.tuples(coordinate, coordinate)
sighting = st.builds(
    Sighting, st.integers(0, 99), st.tuples(corner, corner, corner, corner)
)  # fmt: skip


@given(
    index=st.integers(0, 2**40),
    t_ns=st.integers(0, 2**62),
    size=st.tuples(st.integers(1, 8000), st.integers(1, 8000)),
    sightings=st.lists(sighting, max_size=12).map(tuple),
)
def test_what_crosses_the_pipe_is_the_seen_value_itself(
    index: int, t_ns: int, size: tuple[int, int], sightings: tuple[Sighting, ...]
) -> None:
    seen = Seen(index, t_ns, size, sightings)
    again = unpack(pickle.loads(pickle.dumps(pack(seen))))
    assert again == seen


def test_only_cameras_and_the_simulated_table_are_live() -> None:
    for spec in ("picamera2", "picamera2:1", "/dev/video0", "usb:0", "sim", "sim:7"):
        assert is_live(spec), spec
    for spec in ("rounds.mp4", "frames/", "/home/pi/simulated.mp4", "simple.mp4", "usb.mp4"):
        assert not is_live(spec), spec


@pytest.mark.slow
def test_the_worker_reads_at_lower_priority_and_says_so(tmp_path: Path, wait_for: WaitFor) -> None:
    shown = {"ann": DECK.markers_of("seal")[0], "bob": DECK.markers_of("shark")[0]}
    folder = write_frames(tmp_path / "frames", [frame(seats(shown))] * 200)
    seen: list[Seen] = []
    said: list[str] = []
    ended: list[str] = []
    worker = CameraWorker(str(folder), seen.append, ended.append, on_log=said.append).start()
    try:
        assert wait_for(lambda: worker.frames >= 31, timeout=30)  # read, counted, not sent
        assert seen == []  # between rounds nothing crosses the pipe but the count
        worker.listen(0)  # a round: the frames kept, then each as it comes
        assert wait_for(lambda: len(seen) >= 40, timeout=30)
        pid = worker.pid
        assert pid is not None and pid != os.getpid()
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, ours + NICE)
        assert any(f"pid {pid}" in line and f"nice {min(19, ours + NICE)}" in line for line in said)
        markers = {s.marker for s in seen[-1].sightings}
        assert markers == set(shown.values())
        assert all(
            later.t_ns > earlier.t_ns for earlier, later in zip(seen, seen[1:], strict=False)
        )
        assert len({s.index for s in seen}) == len(seen)  # the kept ones, then new ones, once
        # The evidence: a kept frame as a JPEG with its markers outlined; an old one is gone.
        replies: list[bytes | None] = []
        worker.evidence(seen[-1].index, replies.append)
        worker.evidence(10**9, replies.append)
        assert wait_for(lambda: len(replies) == 2)
        jpeg = next(r for r in replies if r is not None)
        assert jpeg[:2] == b"\xff\xd8" and replies.count(None) == 1
    finally:
        worker.close()
    assert not worker.alive and ended == []  # closed, not failed


@pytest.mark.slow
def test_a_recording_that_ends_is_one_line_and_the_worker_ends_by_itself(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    folder = write_frames(tmp_path / "frames", [frame([])] * 5)
    ended: list[str] = []
    worker = CameraWorker(str(folder), lambda seen: None, ended.append).start()
    try:
        assert wait_for(lambda: ended, timeout=30)
        assert len(ended) == 1 and "ended" in ended[0] and str(folder) in ended[0]
        assert wait_for(lambda: not worker.alive, timeout=30)  # after its linger
    finally:
        worker.close()
    assert ended == [ended[0]]  # told once


class Broken:
    """A source whose library fails in a way nobody foresaw (not a CompanionError)."""

    describe = "usb:9"
    fps = 30.0

    def read(self) -> None:
        raise RuntimeError("the lens fell off")

    def close(self) -> None:
        pass


def broken_opener(spec: str, size: tuple[int, int], fps: float) -> Broken:
    return Broken()


@pytest.mark.slow
def test_a_failure_in_the_worker_is_one_line_and_its_traceback_goes_to_the_log(
    wait_for: WaitFor, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    ended: list[str] = []
    worker = CameraWorker("usb:9", lambda seen: None, ended.append, opener=broken_opener)
    with caplog.at_level("ERROR", logger="companion.camera.worker"):
        worker.start()
        try:
            assert wait_for(lambda: ended, timeout=30)
            assert wait_for(lambda: not worker.alive, timeout=30)
        finally:
            worker.close()
    assert ended == ["camera usb:9: RuntimeError: the lens fell off"]
    assert "Traceback" in caplog.text and "the lens fell off" in caplog.text
    assert "Traceback" not in capfd.readouterr().err  # nothing on the table's terminal
