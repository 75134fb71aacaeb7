"""Tag readers: a serial barcode scanner over a real tty, typed lines, the bridge's queue."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable, Iterator

import pytest

from companion.errors import InputError
from companion.tags import readers
from companion.tags.readers import (
    CallbackReader,
    KeyboardWedgeReader,
    ReaderPool,
    SerialLineReader,
    TagKind,
    TagRead,
)
from companion.tags.specs import open_reader


@pytest.fixture
def scanner() -> Iterator[tuple[int, SerialLineReader]]:
    """A SerialLineReader on a pseudo-terminal: write to the fd what the scanner sends."""
    master, slave = os.openpty()
    reader = SerialLineReader(os.ttyname(slave), index=1)
    try:
        yield master, reader
    finally:
        reader.close()
        os.close(master)
        os.close(slave)


def tags_of(reader: SerialLineReader, n: int) -> list[str]:
    out = []
    for _ in range(n):
        read = reader.read(2.0)
        assert read is not None
        out.append(read.tag)
    return out


def test_serial_scanner_lines_end_in_cr_lf_or_crlf(scanner: tuple[int, SerialLineReader]) -> None:
    fd, reader = scanner
    os.write(fd, b"CH-001\r\nCH-002\rCH-003\n\r\n\nCH-004\r\n")
    assert tags_of(reader, 4) == ["CH-001", "CH-002", "CH-003", "CH-004"]
    assert reader.bad_reads == 0
    first = TagRead(reader.name, 1, "CH-001", TagKind.CODE)
    assert first.key == "code:CH-001" and reader.name.startswith("serial:/dev/")


def test_serial_scanner_strips_noise_and_counts_bad_reads(
    scanner: tuple[int, SerialLineReader],
) -> None:
    fd, reader = scanner
    os.write(fd, b"\x02 SEAL-7 \x03\r\n")  # STX/ETX framing and padding
    os.write(fd, b"bad\x07bell\r\n")  # a control character inside
    os.write(fd, b"\xff\xfe\xfd\r\n")  # not UTF-8
    os.write(fd, b"\x00\x00\r\n")  # only noise: not a read at all
    os.write(fd, b"X" * 2000 + b"\r\nAFTER\r\n")  # far too long, then a good one
    assert tags_of(reader, 2) == ["SEAL-7", "AFTER"]
    assert reader.bad_reads == 3
    assert reader.read(0.05) is None


def test_serial_scanner_joins_a_line_sent_in_pieces(scanner: tuple[int, SerialLineReader]) -> None:
    fd, reader = scanner
    os.write(fd, b"SHA")
    assert reader.read(0.1) is None  # no end of line yet
    os.write(fd, b"RK-4\r\n")
    assert tags_of(reader, 1) == ["SHARK-4"]


def test_serial_scanner_reads_stop_when_closed(scanner: tuple[int, SerialLineReader]) -> None:
    _, reader = scanner
    reader.close()
    assert reader.finished and reader.read(1.0) is None


def test_keyboard_wedge_lines() -> None:
    reader = KeyboardWedgeReader(io.StringIO("04A1B2C3\n\n  CH-9  \nbad\x1bline\nlast"))
    got = []
    while not reader.finished:
        read = reader.read(1.0)
        if read is not None:
            got.append((read.tag, read.kind, read.typed))
    assert got == [
        ("04A1B2C3", TagKind.CODE, True),
        ("CH-9", TagKind.CODE, True),
        ("last", TagKind.CODE, True),
    ]
    assert reader.bad_reads == 1


def test_callback_reader_takes_pushes_from_another_thread() -> None:
    reader = CallbackReader()

    def push_three() -> None:
        for i in range(3):
            reader.push(i, bytes([4, i, 0xAB, 0xCD]))

    pushes = threading.Thread(target=push_three)
    pushes.start()
    got = [reader.read(2.0) for _ in range(3)]
    pushes.join()
    assert [(r.reader, r.index, r.tag) for r in got if r] == [
        ("bridge", 0, "0400ABCD"),
        ("bridge", 1, "0401ABCD"),
        ("bridge", 2, "0402ABCD"),
    ]
    reader.push(0, b"")  # nothing: counted, not read
    reader.push(0, bytes(40))
    reader.push_code(1, "CA\x07RD")
    assert reader.bad_reads == 3
    assert reader.read(0.01) is None
    reader.push_code(1, "CH-3")
    code = reader.read(0.5)
    assert code is not None and code.key == "code:CH-3"


def test_closing_a_callback_reader_wakes_a_waiting_read() -> None:
    reader = CallbackReader()
    result: list[object] = []
    waiting = threading.Thread(target=lambda: result.append(reader.read(10.0)))
    waiting.start()
    reader.close()
    waiting.join(timeout=10)
    assert result == [None] and reader.finished
    reader.push(0, b"\x01\x02\x03\x04")  # after close: dropped
    assert reader.read(0.01) is None


def test_pool_merges_readers_and_ends_when_they_do() -> None:
    bridge = CallbackReader()
    typed = KeyboardWedgeReader(io.StringIO("undo\n"))
    pool = ReaderPool([bridge, typed], poll_s=0.02)
    bridge.push(3, b"\x01\x02\x03\x04")
    got = {pool.get(10.0), pool.get(10.0)}
    assert {(r.reader, r.tag) for r in got if r} == {("bridge", "01020304"), ("keyboard", "undo")}
    assert not pool.finished  # the bridge is still there
    pool.close()
    assert pool.get(0.5) is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("usb:/dev/x", "unknown reader 'usb:/dev/x'"),
        ("serial:", "name the port"),
        ("pn532:/dev/serial0@fast", "'fast' is not a baud rate"),
        ("bridge", "the Pico bridge is not configured"),
    ],
)
def test_bad_reader_names_are_one_clear_line(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as caught:
        open_reader(spec, io.StringIO())
    assert str(caught.value).startswith("--reader: ")


def test_the_bridge_plugs_in_through_its_hook() -> None:
    stopped: list[bool] = []
    connected: list[CallbackReader] = []

    def hook(reader: CallbackReader) -> Callable[[], None]:
        connected.append(reader)
        reader.push(1, bytes.fromhex("04112233445566"))
        return lambda: stopped.append(True)

    readers.set_bridge_hook(hook)
    try:
        reader = open_reader("bridge", io.StringIO())
        read = reader.read(1.0)
        assert read is not None and (read.index, read.tag) == (1, "04112233445566")
        reader.close()
        assert stopped == [True] and connected and reader.finished
    finally:
        readers.set_bridge_hook(None)
