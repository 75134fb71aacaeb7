"""The PN532 on a UART: frames, checksums, and a reader talking to a simulated chip.

The simulated PN532 runs on the master side of a pseudo-terminal and the reader opens the
slave side with real pyserial, so the bytes go through a real tty. The simulator has its
own frame code (not the module's), so both sides are not wrong in the same way.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections import deque
from collections.abc import Iterator

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import HardwareError
from companion.tags.pn532 import (
    ACK_FRAME,
    NACK_FRAME,
    Ack,
    ErrorFrame,
    Frame,
    FrameParser,
    Nack,
    Pn532,
    Pn532Reader,
    build_frame,
    checksum,
    parse_target_uid,
)
from companion.tags.readers import TagKind


def sim_frame(data: bytes, tfi: int = 0xD5) -> bytes:
    body = bytes([tfi]) + data
    return (
        bytes([0x00, 0x00, 0xFF, len(body), (0x100 - len(body)) & 0xFF])
        + body
        + bytes([(0x100 - sum(body) % 0x100) & 0xFF, 0x00])
    )


SIM_ACK = bytes([0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00])


# -- frames ----------------------------------------------------------------------------------


def test_build_frame_matches_the_manuals_layout() -> None:
    # InListPassiveTarget, one target, 106 kbps type A: a frame quoted in many write-ups
    assert build_frame(bytes([0x4A, 0x01, 0x00])) == bytes.fromhex("0000FF04FCD44A0100E100")
    assert build_frame(b"\x14\x01\x14\x01") == sim_frame(b"\x14\x01\x14\x01", 0xD4)
    assert checksum(b"\xd4\x4a\x01\x00") == 0xE1


def test_parser_reads_ack_nack_error_and_frames() -> None:
    parser = FrameParser()
    stream = ACK_FRAME + sim_frame(b"\x15") + NACK_FRAME + bytes.fromhex("0000FF01FF7F8100")
    assert parser.feed(stream) == [Ack(), Frame(0xD5, b"\x15"), Nack(), ErrorFrame()]
    assert parser.bad_frames == 0


def test_parser_takes_frames_split_anywhere_and_skips_noise() -> None:
    frame = sim_frame(b"\x4b\x01\x01\x00\x44\x00\x04\xde\xad\xbe\xef")
    stream = b"\x55\x55\x12\x34" + frame + b"\xff\x01" + frame
    parser = FrameParser()
    items = []
    for i in range(len(stream)):
        items += parser.feed(stream[i : i + 1])
    assert items == [Frame(0xD5, frame[6:-2])] * 2
    assert parser.bad_frames == 0


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda f: f[:4] + bytes([f[4] ^ 0x01]) + f[5:],  # LCS
        lambda f: f[:-2] + bytes([f[-2] ^ 0x01]) + f[-1:],  # DCS
        lambda f: f[:7] + bytes([f[7] ^ 0x40]) + f[8:],  # a data byte
        lambda f: f[:-1] + b"\x01",  # postamble
    ],
    ids=["lcs", "dcs", "data", "postamble"],
)
def test_a_bad_frame_is_counted_and_the_next_good_one_is_found(corrupt: object) -> None:
    good = sim_frame(b"\x03\x32\x01\x06\x07")
    assert callable(corrupt)
    parser = FrameParser()
    items = parser.feed(corrupt(good) + good)
    assert items == [Frame(0xD5, b"\x03\x32\x01\x06\x07")]
    assert parser.bad_frames == 1


def test_extended_frames_are_read() -> None:
    data = bytes(range(256)) + b"\x01\x02"
    frame = build_frame(data, 0xD5)
    assert frame[3:5] == b"\xff\xff"
    assert FrameParser().feed(frame) == [Frame(0xD5, data)]


def test_flush_counts_a_frame_cut_short() -> None:
    parser = FrameParser()
    assert parser.feed(sim_frame(b"\x4b\x00")[:5]) == []
    parser.flush()
    assert parser.bad_frames == 1
    parser.flush()  # nothing left: nothing counted
    assert parser.bad_frames == 1


def test_target_uid_from_inlistpassivetarget() -> None:
    assert parse_target_uid(b"\x00") is None
    assert parse_target_uid(bytes.fromhex("01 01 0044 00 07 04A1B2C3D4E5F6")) == bytes.fromhex(
        "04A1B2C3D4E5F6"
    )
    for broken in (b"", b"\x01\x01\x00", bytes.fromhex("01 01 0004 08 07 0102"), b"\x01" * 5):
        with pytest.raises(ValueError):
            parse_target_uid(broken)


@given(st.binary(max_size=700), st.lists(st.integers(1, 64), max_size=40))
@settings(max_examples=examples(300), deadline=None)
def test_random_bytes_never_raise(noise: bytes, cuts: list[int]) -> None:
    parser = FrameParser()
    at = 0
    for size in [*cuts, len(noise)]:
        for item in parser.feed(noise[at : at + size]):
            assert isinstance(item, Ack | Nack | ErrorFrame | Frame)
        at += size
    parser.flush()
    assert parser.bad_frames >= 0
    assert len(parser._buf) == 0


@pytest.mark.slow
@given(
    st.lists(st.binary(max_size=280), min_size=1, max_size=5),
    st.binary(max_size=40).map(lambda b: b.replace(b"\x00", b"")),
    st.lists(st.integers(1, 90), max_size=30),
)
@settings(max_examples=examples(200), deadline=None)
def test_good_frames_come_through_noise_and_any_split(
    payloads: list[bytes], noise: bytes, cuts: list[int]
) -> None:
    stream = noise + b"".join(build_frame(p, 0xD5) for p in payloads)
    parser = FrameParser()
    items = []
    at = 0
    for size in [*cuts, len(stream)]:
        items += parser.feed(stream[at : at + size])
        at += size
    assert items == [Frame(0xD5, p) for p in payloads]
    assert parser.bad_frames == 0


class ScriptedPort:
    """A port whose answers are fixed bytes, on a clock that moves only when it waits."""

    def __init__(self, answer: bytes, chunk: int) -> None:
        self.answer = answer
        self.chunk = chunk
        self.now = 0.0
        self.written = bytearray()

    @property
    def in_waiting(self) -> int:
        return min(self.chunk, len(self.answer))

    def read(self, size: int = 1) -> bytes:
        if not self.answer:
            self.now += 0.05
            return b""
        out, self.answer = self.answer[:size], self.answer[size:]
        return out

    def write(self, data: bytes) -> int:
        self.written += data
        return len(data)

    def close(self) -> None:
        pass


@given(st.binary(max_size=400), st.integers(1, 40))
@settings(max_examples=examples(300), deadline=None)
def test_any_answer_to_a_poll_gives_a_uid_or_none(answer: bytes, chunk: int) -> None:
    port = ScriptedPort(answer, chunk)
    chip = Pn532(port, clock=lambda: port.now, ack_timeout_s=0.2)
    uid = chip.list_passive_target(1.0)
    assert uid is None or 1 <= len(uid) <= 255
    assert chip.bad_frames >= 0 and chip.timeouts in (0, 1)


def test_a_poll_answered_in_time_gives_the_uid_without_touching_a_clock() -> None:
    answer = SIM_ACK + sim_frame(bytes.fromhex("4B 01 01 0044 00 04 DEADBEEF"))
    port = ScriptedPort(answer, 3)
    chip = Pn532(port, clock=lambda: port.now)
    assert chip.list_passive_target(1.0) == bytes.fromhex("DEADBEEF")
    assert bytes(port.written) == build_frame(b"\x4a\x01\x00")
    assert (chip.timeouts, chip.bad_frames) == (0, 0)


def test_a_poll_cut_short_by_the_callers_deadline_is_not_counted_against_the_chip() -> None:
    """At the end of a read's window a poll gets what time is left; when that runs out
    the poll is called off all the same, but the chip did nothing wrong: no timeout (three
    in a row would wake it again)."""
    port = ScriptedPort(SIM_ACK, 6)
    chip = Pn532(port, clock=lambda: port.now)
    assert chip.list_passive_target(0.05, cut=True) is None
    assert (chip.timeouts, chip.cut_short) == (0, 1)
    assert bytes(port.written).endswith(ACK_FRAME)


def test_no_answer_after_the_ack_is_aborted_with_an_ack() -> None:
    port = ScriptedPort(SIM_ACK, 6)
    chip = Pn532(port, clock=lambda: port.now)
    assert chip.list_passive_target(0.5) is None
    assert chip.timeouts == 1
    assert bytes(port.written).endswith(ACK_FRAME)


# -- a simulated PN532 on a pseudo-terminal ----------------------------------------------------


class SimulatedPn532:
    """Answers SAMConfiguration, RFConfiguration, GetFirmwareVersion, InListPassiveTarget.

    ``card`` is the UID on the antenna (None: no card). ``faults`` are applied, one per
    command, to the next answers: bad_dcs, bad_lcs, bad_postamble, garbage, truncated,
    error_frame, no_response (ACK only), silent (not even the ACK), broken_uid.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.card: bytes | None = None
        self.faults: deque[str] = deque()
        self.commands: list[int] = []
        self.host_acks = 0
        self.received = bytearray()
        self.deaf = False  # answer nothing at all (no PN532 on the port)
        self._buf = bytearray()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.02)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 1024)
            except OSError:
                return
            self.received += chunk
            self._buf += chunk
            self._frames()

    def _frames(self) -> None:
        buf = self._buf
        while True:
            at = buf.find(b"\x00\xff")
            if at < 0 or len(buf) < at + 5:
                return
            del buf[:at]
            if buf[2:4] == b"\x00\xff":  # the host aborts
                self.host_acks += 1
                del buf[:5]
                continue
            size = buf[2]
            if len(buf) < size + 6:
                return
            body = bytes(buf[4 : 4 + size])
            ok = (size + buf[3]) % 256 == 0 and (sum(body) + buf[4 + size]) % 256 == 0
            del buf[: size + 6]
            if ok and body[:1] == b"\xd4" and not self.deaf:
                self._answer(body[1], body[2:])

    def _answer(self, command: int, params: bytes) -> None:
        self.commands.append(command)
        fault = self.faults.popleft() if self.faults else None
        if fault == "silent":
            return
        os.write(self.fd, SIM_ACK)
        if fault == "no_response":
            return
        if command == 0x14:
            data = b"\x15"
        elif command == 0x32:
            data = b"\x33"
        elif command == 0x02:
            data = b"\x03\x32\x01\x06\x07"
        elif command == 0x4A:
            card = self.card
            if fault == "broken_uid":
                data = bytes.fromhex("4B 01 01 0044 00 09 0102")
            elif card is None:
                data = b"\x4b\x00"
            else:
                data = b"\x4b\x01\x01\x00\x44\x00" + bytes([len(card)]) + card
        else:
            data = b"\x00"
        frame = sim_frame(data)
        if fault == "bad_dcs":
            frame = frame[:-2] + bytes([frame[-2] ^ 0xFF]) + frame[-1:]
        elif fault == "bad_lcs":
            frame = frame[:4] + bytes([frame[4] ^ 0x10]) + frame[5:]
        elif fault == "bad_postamble":
            frame = frame[:-1] + b"\x99"
        elif fault == "garbage":
            frame = b"\x13\x37\xff\x00\x42" + frame
        elif fault == "truncated":
            frame = frame[: len(frame) - 3]
        elif fault == "error_frame":
            frame = bytes.fromhex("0000FF01FF7F8100")
        os.write(self.fd, frame)


@pytest.fixture
def pty_pair() -> Iterator[tuple[int, str]]:
    master, slave = os.openpty()
    try:
        yield master, os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


@pytest.fixture
def sim(pty_pair: tuple[int, str]) -> Iterator[tuple[SimulatedPn532, str]]:
    master, path = pty_pair
    chip = SimulatedPn532(master)
    try:
        yield chip, path
    finally:
        chip.stop()


def open_reader(path: str, **kw: float) -> Pn532Reader:
    return Pn532Reader(
        path, index=2, repeat_s=kw.get("repeat_s", 0.15), poll_gap_s=0.01, poll_timeout_s=0.2
    )


def test_reader_wakes_and_configures_the_chip(sim: tuple[SimulatedPn532, str]) -> None:
    chip, path = sim
    reader = open_reader(path)
    try:
        assert chip.received.startswith(b"\x55\x55")
        assert chip.commands[:2] == [0x14, 0x32]  # SAMConfiguration, then the retry count
        assert reader.pn532.firmware_version() == (0x32, 0x01, 0x06, 0x07)
        assert reader.name == f"pn532:{path}"
    finally:
        reader.close()


def test_reader_reports_a_card_once_while_it_lies_there(sim: tuple[SimulatedPn532, str]) -> None:
    chip, path = sim
    reader = open_reader(path, repeat_s=0.5)  # wide: polls on a busy machine come late
    try:
        assert reader.read(0.1) is None  # no card: answered "none", nothing counted
        chip.card = bytes.fromhex("04A1B2C3D4E5F6")
        read = reader.read(2.0)
        assert read is not None
        assert (read.tag, read.kind, read.index) == ("04A1B2C3D4E5F6", TagKind.UID, 2)
        assert read.key == "04A1B2C3D4E5F6"
        assert reader.read(0.3) is None  # still lying there: not a second read
        chip.card = None
        assert reader.read(0.7) is None  # away longer than repeat_s
        chip.card = bytes.fromhex("04A1B2C3D4E5F6")
        again = reader.read(2.0)
        assert again is not None and again.tag == "04A1B2C3D4E5F6"  # laid down again
        chip.card = bytes.fromhex("DEADBEEF")
        other = reader.read(2.0)
        assert other is not None and other.tag == "DEADBEEF"
        assert (reader.bad_frames, reader.timeouts) == (0, 0)
    finally:
        reader.close()


@pytest.mark.parametrize(
    ("fault", "bad", "timeouts"),
    [
        ("bad_dcs", 1, 1),  # the answer never comes right: counted, then the poll times out
        ("bad_lcs", 1, 1),
        ("bad_postamble", 1, 1),
        ("garbage", 0, 0),  # noise before a good frame is skipped
        ("truncated", 1, 1),  # half a frame, then silence
        ("broken_uid", 1, 0),  # a well-framed answer with nonsense inside
        ("no_response", 0, 1),  # ACK only: aborted at the deadline
        ("silent", 0, 1),  # not even the ACK
    ],
)
def test_bad_answers_are_counted_and_the_next_poll_works(
    sim: tuple[SimulatedPn532, str], fault: str, bad: int, timeouts: int
) -> None:
    chip, path = sim
    reader = open_reader(path)
    try:
        chip.card = bytes.fromhex("0A0B0C0D")
        chip.faults.append(fault)
        read = reader.read(3.0)
        assert read is not None and read.tag == "0A0B0C0D"
        assert reader.bad_frames == bad
        assert reader.timeouts == timeouts
        if fault == "no_response":
            assert chip.host_acks >= 1  # the host called the command off
    finally:
        reader.close()


def test_an_error_frame_is_counted(sim: tuple[SimulatedPn532, str]) -> None:
    chip, path = sim
    reader = open_reader(path)
    try:
        chip.card = bytes.fromhex("0A0B0C0D")
        chip.faults.extend(["error_frame", "error_frame"])
        read = reader.read(3.0)
        assert read is not None and read.tag == "0A0B0C0D"
        assert reader.pn532.errors == 2
    finally:
        reader.close()


def test_a_chip_that_stops_answering_is_woken_again(sim: tuple[SimulatedPn532, str]) -> None:
    chip, path = sim
    reader = open_reader(path)
    try:
        chip.card = bytes.fromhex("0A0B0C0D")
        chip.faults.extend(["silent"] * 3)
        started = time.monotonic()
        read = reader.read(5.0)
        assert read is not None and read.tag == "0A0B0C0D"
        assert time.monotonic() - started < 3
        assert reader.timeouts == 3
        assert chip.commands.count(0x14) == 2  # SAMConfiguration again after three silences
    finally:
        reader.close()


def test_no_pn532_on_the_port_is_one_clear_error(sim: tuple[SimulatedPn532, str]) -> None:
    chip, path = sim
    chip.deaf = True
    started = time.monotonic()
    with pytest.raises(HardwareError, match="no answer from a PN532"):
        Pn532Reader(path, ack_timeout_s=0.05)
    assert time.monotonic() - started < 2


def test_a_missing_port_is_one_clear_error() -> None:
    with pytest.raises(HardwareError, match="cannot open the serial port"):
        Pn532Reader("/dev/nonexistent-companion-pn532")
