"""Camera sources: a recorded video and a folder of frames read back with their times,
every missing camera or bad spec one line naming it, a camera that stops mid-game a
HardwareError, and the simulated table's frames carrying the markers it says."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")

from companion.camera.markers import dictionary  # noqa: E402
from companion.camera.simulated import SimulatedTable  # noqa: E402
from companion.camera.sources import (  # noqa: E402
    KINDS,
    OpenCvCamera,
    open_camera,
    sensor_clock_offset,
    sim_zones,
)
from companion.camera.synth import Look, Painter, random_round  # noqa: E402
from companion.errors import CompanionError, HardwareError, InputError  # noqa: E402


def _write_video(path: Path, frames: int, fps: float = 30.0) -> list[Any]:
    plan = random_round(21, seats=3, seconds=frames / fps + 0.1, fps=fps)
    painter = Painter(plan)
    images = [painter.frame(i)[0] for i in range(frames)]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, plan.size)
    assert writer.isOpened()
    for image in images:
        writer.write(image)
    writer.release()
    return images


def _all(source: Any) -> list[Any]:
    frames = []
    while (frame := source.read()) is not None:
        frames.append(frame)
    source.close()
    return frames


def test_a_video_file_is_read_back_with_every_frame_and_its_time(tmp_path: Path) -> None:
    """A video written with cv2.VideoWriter: 12 frames back, frame i at i/25 s (the
    file's own rate, not the default 30), the pictures close to what was written."""
    path = tmp_path / "round.mp4"
    images = _write_video(path, 12, fps=25.0)
    source = open_camera(str(path))
    assert source.fps == 25.0 and source.describe == str(path)
    frames = _all(source)
    assert [f.index for f in frames] == list(range(12))
    assert [f.t_ns for f in frames] == [i * 40_000_000 for i in range(12)]
    assert frames[0].size == (1280, 720)
    error = np.abs(frames[5].image.astype(int) - images[5].astype(int)).mean()
    assert error < 8  # the codec's loss, not another picture


def test_a_folder_of_frames_is_read_in_name_order(tmp_path: Path) -> None:
    plan = random_round(22, seats=2, seconds=0.3)
    painter = Painter(plan)
    for index in (2, 0, 1):  # written out of order
        cv2.imwrite(str(tmp_path / f"f{index:02d}.png"), painter.frame(index)[0])
    cv2.imwrite(str(tmp_path / "f03.jpg"), painter.frame(3)[0])
    (tmp_path / "notes.txt").write_text("not a frame\n")
    frames = _all(open_camera(str(tmp_path), fps=10.0))
    assert [f.t_ns for f in frames] == [0, 100_000_000, 200_000_000, 300_000_000]
    assert np.array_equal(frames[1].image, painter.frame(1)[0])


def test_a_frame_the_photo_gate_refuses_is_one_line_naming_the_file(tmp_path: Path) -> None:
    """A PNG whose header claims 40000 x 40000 pixels is refused before it is decoded."""
    good = random_round(23, seats=2, seconds=0.1)
    cv2.imwrite(str(tmp_path / "a.png"), Painter(good).frame(0)[0])
    ok, small = cv2.imencode(".png", np.zeros((300, 300, 3), np.uint8))
    raw = bytearray(small.tobytes())
    raw[16:24] = (40000).to_bytes(4, "big") * 2  # IHDR width and height
    (tmp_path / "b.png").write_bytes(bytes(raw))
    source = open_camera(str(tmp_path))
    assert source.read() is not None
    with pytest.raises(InputError) as caught:
        source.read()
    assert "b.png" in str(caught.value) and "\n" not in str(caught.value)


def test_an_empty_folder_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no frames here"):
        open_camera(str(tmp_path))


@pytest.mark.parametrize(
    ("spec", "named"), [("/dev/video99", "/dev/video99"), ("usb:99", "usb:99")]
)
def test_a_missing_camera_is_one_line_naming_it(spec: str, named: str) -> None:
    with pytest.raises(HardwareError) as caught:
        open_camera(spec)
    assert named in str(caught.value) and "\n" not in str(caught.value)


def test_picamera2_where_it_is_not_installed_is_one_line_saying_where_it_comes_from() -> None:
    try:
        import picamera2  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("picamera2 is installed here: this is a Pi")
    for spec in ("picamera2", "picamera2:1"):
        with pytest.raises(HardwareError) as caught:
            open_camera(spec)
        message = str(caught.value)
        assert "python3-picamera2" in message and "--system-site-packages" in message
        assert "\n" not in message


@pytest.mark.parametrize(
    "spec",
    ["", "  ", "bogus", "usb:", "usb:x", "picamera2:one", "sim:-1", "/dev/video", "usb:0\x1b"],
)
def test_a_bad_spec_is_one_line_listing_the_kinds(spec: str) -> None:
    with pytest.raises(InputError) as caught:
        open_camera(spec)
    message = str(caught.value)
    assert "\n" not in message
    assert KINDS in message or "whole number" in message or "control character" in message


def test_a_file_that_is_no_video_is_one_line(tmp_path: Path) -> None:
    fake = tmp_path / "round.mp4"
    fake.write_bytes(b"\x00" * 2000)
    with pytest.raises(InputError) as caught:
        open_camera(str(fake))
    assert str(fake) in str(caught.value)
    text = tmp_path / "round.txt"
    text.write_text("hello\n")
    with pytest.raises(InputError, match="neither a video"):
        open_camera(str(text))


@settings(max_examples=examples(150), deadline=None)
@given(st.text(max_size=40))
def test_any_spec_opens_a_source_or_is_one_companion_error(spec: str) -> None:
    try:
        source = open_camera(spec, paced=False)
    except CompanionError as error:
        assert "\n" not in str(error)
    else:
        source.close()


def test_a_camera_that_stops_mid_game_raises_a_hardware_error(tmp_path: Path) -> None:
    """The OpenCV camera's read loop over a capture that stops giving frames (a short
    recording standing in for a device pulled out after three frames)."""
    path = tmp_path / "short.mp4"
    _write_video(path, 3)
    camera = OpenCvCamera.__new__(OpenCvCamera)
    camera._name, camera._fps, camera._index = "/dev/video0", 30.0, 0
    camera._capture = cv2.VideoCapture(str(path))
    for _ in range(3):
        frame = camera.read()
        assert frame is not None and frame.t_ns <= time.monotonic_ns()
    with pytest.raises(HardwareError, match="/dev/video0: the camera stopped sending frames"):
        camera.read()
    camera.close()


def test_the_sensor_timestamp_is_moved_onto_the_monotonic_clock() -> None:
    """picamera2's SensorTimestamp: already monotonic (offset 0), on the boot-time clock
    (moved by the clocks' difference), or neither (the hand-over time)."""
    second = 1_000_000_000
    assert sensor_clock_offset(100 * second - 30_000_000, 100 * second, 160 * second) == 0
    assert (
        sensor_clock_offset(160 * second - 30_000_000, 100 * second, 160 * second) == -60 * second
    )
    assert sensor_clock_offset(5 * second, 100 * second, 160 * second) == 95 * second


def test_the_simulated_tables_frames_carry_the_markers_its_truth_names() -> None:
    source = open_camera("sim:3", paced=False)
    assert isinstance(source, SimulatedTable)
    detector = cv2.aruco.ArucoDetector(dictionary(), cv2.aruco.DetectorParameters())
    seen_any = False
    for index in range(60):
        frame = source.read()
        assert frame is not None and frame.index == index
        assert frame.t_ns == round(index * 1e9 / 30) and frame.size == (1280, 720)
        truth = source.truth
        assert truth is not None
        _, ids, _ = detector.detectMarkers(frame.image)
        read = set() if ids is None else {int(i) for i in ids.ravel()}
        assert set(truth.visible) <= read | truth.glared
        seen_any = seen_any or bool(truth.visible)
    assert seen_any


def test_the_simulated_table_shows_the_cards_a_table_tells_it_and_keeps_them() -> None:
    """The demo's hook: the first show() seats the table as sim_zones() lays those seats
    out; the cards told flip in and stay face up; None clears the table; a later show()
    of fewer seats keeps the layout."""
    look = replace(Look.clean(), hands=0.0)
    source = SimulatedTable(4, paced=False, look=look)
    source.read()  # a random round of its own first
    source.show({"cat": [7], "ann": [12, 13], "bob": [20]})
    assert source.zones() == sim_zones(["bob", "cat", "ann"])
    seen: dict[int, str | None] = {}
    for _ in range(20):
        source.read()
        assert source.truth is not None
        seen.update(source.truth.visible)
    assert seen == {7: "cat", 12: "ann", 13: "ann", 20: "bob"}
    source.show(None)
    for _ in range(3):
        source.read()
    assert source.truth is not None and source.truth.corners == {}
    source.show({"ann": [1]})
    assert source.zones() == sim_zones(["ann", "bob", "cat"])
    for _ in range(700):  # past the told round's frames: the card stays
        source.read()
    assert source.truth is not None and source.truth.visible == {1: "ann"}


def test_the_paced_simulated_table_hands_frames_over_in_real_time() -> None:
    """Not a timing goal: paced frames are stamped on the monotonic clock at whole frame
    times, in order, never ahead of the clock; a frame not taken in time is skipped."""
    source = open_camera("sim", fps=30.0)
    frames = [source.read() for _ in range(4)]
    first = frames[0]
    assert first is not None
    start = first.t_ns - round(first.index * 1e9 / 30)
    for before, after in zip(frames, frames[1:], strict=False):
        assert before is not None and after is not None
        assert after.index > before.index
        assert after.t_ns - start == round(after.index * 1e9 / 30)
        assert after.t_ns <= time.monotonic_ns()


def test_without_opencv_a_source_is_one_line_saying_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "cv2", None)  # import cv2 now raises ImportError
    for spec in ("sim", "usb:0", "rounds.mp4"):
        with pytest.raises(CompanionError, match=r"pip install -e '\.\[scan\]'") as caught:
            open_camera(spec)
        assert "\n" not in str(caught.value)


def test_a_video_of_frames_too_small_for_a_table_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "thumb.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (160, 90))
    for _ in range(3):
        writer.write(np.zeros((90, 160, 3), np.uint8))
    writer.release()
    with pytest.raises(InputError) as caught:
        open_camera(str(path))
    assert "160 x 90" in str(caught.value) and str(path) in str(caught.value)


@pytest.mark.parametrize("seats", [["ann"], [f"p{i}" for i in range(7)]])
def test_the_simulated_table_seats_2_to_6_and_says_so_in_one_line(seats: list[str]) -> None:
    with pytest.raises(InputError, match="seats 2 to 6"):
        sim_zones(seats)


def test_without_opencv_every_camera_command_says_how_to_get_it(tmp_path: Path) -> None:
    """The camera's commands on a base install (no scan extra): one line saying how to get
    OpenCV and exit 2, never a traceback (``demo --camera sim`` was one). Each runs in a
    fresh interpreter where ``import cv2`` fails, as on a Pi without the extra."""
    deck = tmp_path / "deck.json"
    for argv in (
        ["demo", "--camera", "sim"],
        ["bench", "camera", "--rounds", "1", "--latency-trials", "0"],
        ["camera", "learn", "--camera", "sim", "--deck", str(deck), "--game", "chomp"],
    ):
        probe = (
            "import sys; sys.modules['cv2'] = None; from companion.cli import main; "
            f"sys.exit(main({argv!r}))"
        )
        done = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
            cwd=tmp_path,
        )
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stderr.startswith("companion: "), (argv, done.stderr)
        assert "pip install -e '.[scan]'" in done.stderr, (argv, done.stderr)
        assert done.stderr.count("\n") == 1, (argv, done.stderr)
