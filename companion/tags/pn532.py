"""The PN532 NFC reader on a UART (its "HSU" mode): the frames, and reading a card's UID.

The wire format (PN532 User Manual UM0701, chapter 6), every frame::

    00 | 00 FF | LEN | LCS | TFI | DATA ... | DCS | 00
    preamble, start code, LEN = bytes in TFI + DATA, LEN + LCS = 0 (mod 256),
    TFI = D4 host to PN532 / D5 PN532 to host, TFI + DATA + DCS = 0 (mod 256), postamble

plus three fixed frames: ACK ``00 00 FF 00 FF 00``, NACK ``00 00 FF FF 00 00``, and the
error frame ``00 00 FF 01 FF 7F 81 00``; and the extended frame for long data,
``00 00 FF FF FF LENM LENL LCS TFI DATA DCS 00``. The host sends a command; the PN532
answers with an ACK at once, then with the response (the command code + 1). An ACK from
the host aborts the command in progress, which is how a read that found no card in time
is called off.

The parser takes whatever bytes arrive (noise, half frames, frames split anywhere) and
never raises: a frame whose checksums or postamble are wrong is counted in ``bad_frames``
and skipped, and the parser looks for the next start code after it.

Why a UART: on the Pi it is GPIO14/15 (``/dev/serial0``), free for it (hardware/WIRING.md),
and a PN532 board's UART mode needs no driver. The PN532's UART runs at 115200 baud.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from companion.errors import HardwareError
from companion.tags.readers import SerialPort, TagKind, TagRead, open_serial, read_some, uid_hex

DEFAULT_BAUD = 115200

START_CODE = b"\x00\xff"
ACK_FRAME = bytes.fromhex("0000FF00FF00")
NACK_FRAME = bytes.fromhex("0000FFFF0000")
ERROR_FRAME = bytes.fromhex("0000FF01FF7F8100")
HOST_TO_PN532 = 0xD4
PN532_TO_HOST = 0xD5
ERROR_TFI = 0x7F  # the single byte of the error frame, where a TFI would be

# HSU wake-up: the PN532 sleeps until it sees 0x55 bytes and a long preamble, and the
# first command after waking must be SAMConfiguration.
WAKEUP = b"\x55\x55" + bytes(14)

CMD_GET_FIRMWARE_VERSION = 0x02
CMD_SAM_CONFIGURATION = 0x14
CMD_RF_CONFIGURATION = 0x32
CMD_IN_LIST_PASSIVE_TARGET = 0x4A

SAM_NORMAL_MODE = 0x01  # no secure access module
SAM_TIMEOUT = 0x14  # x 50 ms, only used in virtual card mode
SAM_USE_IRQ = 0x01
RF_MAX_RETRIES = 0x05  # RFConfiguration item: MxRtyATR, MxRtyPSL, MxRtyPassiveActivation
BAUD_106K_TYPE_A = 0x00  # InListPassiveTarget: ISO/IEC 14443 type A (MIFARE, NTAG)

MAX_DATA = 300  # longest TFI + DATA taken; the PN532 sends at most 265


def checksum(data: bytes | bytearray) -> int:
    """The byte that makes ``data`` + it sum to 0 (mod 256): LCS and DCS."""
    return -sum(data) & 0xFF


def build_frame(data: bytes, tfi: int = HOST_TO_PN532) -> bytes:
    """A normal information frame around ``data`` (an extended one when it is long)."""
    body = bytes([tfi]) + data
    if len(body) <= 0xFF:
        head = bytes([len(body), checksum(bytes([len(body)]))])
    else:
        size = len(body).to_bytes(2, "big")
        head = b"\xff\xff" + size + bytes([checksum(size)])
    return b"\x00" + START_CODE + head + body + bytes([checksum(body), 0x00])


@dataclass(frozen=True, slots=True)
class Ack:
    pass


@dataclass(frozen=True, slots=True)
class Nack:
    pass


@dataclass(frozen=True, slots=True)
class ErrorFrame:
    """The PN532 refused the frame it was sent (syntax error in the application level)."""


@dataclass(frozen=True, slots=True)
class Frame:
    tfi: int
    data: bytes  # after the TFI: the command or response code, then its parameters


Item = Ack | Nack | ErrorFrame | Frame


class FrameParser:
    """Bytes in, frames out; checksum failures are counted and skipped, never raised."""

    def __init__(self) -> None:
        self.bad_frames = 0
        self._buf = bytearray()

    def _bad(self) -> None:
        """Count a bad frame and skip its start code, to look for a real one after it."""
        self.bad_frames += 1
        del self._buf[:2]

    def feed(self, chunk: bytes | bytearray) -> list[Item]:
        self._buf += chunk
        items: list[Item] = []
        buf = self._buf
        while True:
            at = buf.find(START_CODE)
            if at < 0:  # noise (or the wake-up's 0x55s): keep a last 00, a start may follow
                del buf[: len(buf) - 1 if buf.endswith(b"\x00") else len(buf)]
                return items
            del buf[:at]
            if len(buf) < 5:
                return items
            first, second = buf[2], buf[3]
            if (first, second) in ((0x00, 0xFF), (0xFF, 0x00)):  # ACK or NACK
                if buf[4] != 0x00:
                    self._bad()
                    continue
                items.append(Ack() if first == 0x00 else Nack())
                del buf[:5]
                continue
            if (first, second) == (0xFF, 0xFF):  # extended frame
                if len(buf) < 7:
                    return items
                length = buf[4] << 8 | buf[5]
                if checksum(buf[4:6]) != buf[6] or not 1 <= length <= MAX_DATA:
                    self._bad()
                    continue
                start = 7
            else:
                length = first
                if (first + second) & 0xFF != 0 or length == 0:
                    self._bad()
                    continue
                start = 4
            end = start + length  # the DCS is at end, the postamble after it
            if len(buf) < end + 2:
                return items
            body = buf[start:end]
            if (sum(body) + buf[end]) & 0xFF != 0 or buf[end + 1] != 0x00:
                self._bad()
                continue
            if length == 1 and body[0] == ERROR_TFI:
                items.append(ErrorFrame())
            else:
                items.append(Frame(body[0], bytes(body[1:])))
            del buf[: end + 2]

    def flush(self) -> None:
        """Drop a frame cut short (its sender went quiet): counted as bad."""
        if self._buf.find(START_CODE) >= 0:
            self.bad_frames += 1
        self._buf.clear()


def parse_target_uid(data: bytes) -> bytes | None:
    """The UID from InListPassiveTarget's response for a type A target (None: no target).

    The response is ``NbTg [Tg SENS_RES(2) SEL_RES NFCIDLength NFCID1... (ATS...)]``.
    Raises ValueError when the bytes do not fit that shape.
    """
    if not data:
        raise ValueError("empty InListPassiveTarget response")
    if data[0] == 0:
        return None
    if len(data) < 6:
        raise ValueError("InListPassiveTarget response too short")
    size = data[5]
    uid = data[6 : 6 + size]
    if size == 0 or len(uid) != size:
        raise ValueError("InListPassiveTarget response with a broken UID length")
    return uid


class Pn532:
    """Commands to a PN532 over a serial port: send, wait for the ACK, wait for the answer.

    A command that gets no answer in time is aborted (an ACK from the host) and counted in
    ``timeouts``; frames that are not the answer are skipped. Nothing here raises on what
    comes back: the caller gets None.
    """

    def __init__(
        self,
        port: SerialPort,
        clock: Callable[[], float] = time.monotonic,
        ack_timeout_s: float = 0.1,
    ) -> None:
        self.port = port
        self.clock = clock
        self.ack_timeout_s = ack_timeout_s
        self.parser = FrameParser()
        self.timeouts = 0
        self.errors = 0  # error frames: the PN532 did not like a command
        self.bad_responses = 0  # well-framed answers with nonsense inside
        self.stale = 0  # frames left over from an aborted command
        self.cut_short = 0  # commands called off at the caller's deadline, not the chip's fault
        self._items: deque[Item] = deque()

    @property
    def bad_frames(self) -> int:
        return self.parser.bad_frames + self.bad_responses

    def _next(self, deadline: float) -> Item | None:
        while not self._items:
            if self.clock() >= deadline:
                return None
            chunk = read_some(self.port)
            if chunk:
                self._items.extend(self.parser.feed(chunk))
        return self._items.popleft()

    def _write(self, data: bytes) -> None:
        try:
            self.port.write(data)
        except (OSError, ValueError, TypeError) as exc:
            raise HardwareError(f"serial port stopped answering: {exc}") from None

    def wake(self) -> None:
        self._write(WAKEUP)

    def command(
        self, code: int, params: bytes = b"", timeout_s: float = 1.0, cut: bool = False
    ) -> bytes | None:
        """Run one command; its response's parameters, or None (timeout, error, nonsense).

        ``cut``: ``timeout_s`` is what the caller has left, shorter than the chip is
        allowed; running out is then counted in ``cut_short``, not ``timeouts``."""
        self._items.clear()
        frame = build_frame(bytes([code]) + params)
        self._write(frame)
        start = self.clock()
        ack_deadline = start + min(self.ack_timeout_s, timeout_s)
        resent = False
        while True:
            item = self._next(ack_deadline)
            if item is None:
                self._timed_out(cut=cut)
                return None
            if isinstance(item, Ack):
                break
            if isinstance(item, Nack) and not resent:  # the PN532 asks for it again
                self._write(frame)
                resent = True
            elif isinstance(item, ErrorFrame):
                self.errors += 1
                return None
            else:
                self.stale += 1
        deadline = start + timeout_s
        while True:
            item = self._next(deadline)
            if item is None:
                self._timed_out(abort=True, cut=cut)
                return None
            if isinstance(item, ErrorFrame):
                self.errors += 1
                return None
            if isinstance(item, Frame):
                if item.tfi == PN532_TO_HOST and item.data[:1] == bytes([code + 1]):
                    return item.data[1:]
                self.stale += 1

    def _timed_out(self, abort: bool = False, cut: bool = False) -> None:
        if cut:
            self.cut_short += 1
        else:
            self.timeouts += 1
        if abort:
            self._write(ACK_FRAME)  # call the command off, so the next one is heard
        self.parser.flush()

    def sam_configuration(self, timeout_s: float = 1.0) -> bool:
        """Normal mode (no SAM): needed once after waking up."""
        params = bytes([SAM_NORMAL_MODE, SAM_TIMEOUT, SAM_USE_IRQ])
        return self.command(CMD_SAM_CONFIGURATION, params, timeout_s) is not None

    def set_passive_retries(self, retries: int, timeout_s: float = 1.0) -> bool:
        """How often InListPassiveTarget looks for a card before answering "none" (0xFF:
        for ever). A finite number keeps each look short."""
        params = bytes([RF_MAX_RETRIES, 0xFF, 0x01, retries & 0xFF])
        return self.command(CMD_RF_CONFIGURATION, params, timeout_s) is not None

    def firmware_version(self, timeout_s: float = 1.0) -> tuple[int, int, int, int] | None:
        """(IC, version, revision, support): 0x32 for a PN532."""
        data = self.command(CMD_GET_FIRMWARE_VERSION, b"", timeout_s)
        if data is None or len(data) != 4:
            return None
        return data[0], data[1], data[2], data[3]

    def list_passive_target(self, timeout_s: float, cut: bool = False) -> bytes | None:
        """The UID of one ISO 14443 type A card in the field, or None (none, or no answer)."""
        params = bytes([1, BAUD_106K_TYPE_A])
        data = self.command(CMD_IN_LIST_PASSIVE_TARGET, params, timeout_s, cut)
        if data is None:
            return None
        try:
            return parse_target_uid(data)
        except ValueError:
            self.bad_responses += 1
            return None


class Pn532Reader:
    """A PN532 as a :class:`~companion.tags.readers.TagReader`.

    A card lying on the antenna answers every poll; it is reported once, and again only
    after it has been away for ``repeat_s`` (so the same card laid down twice, on purpose,
    is seen twice, and a card left lying there is not a flood of reads). One poll waits at
    most ``poll_timeout_s`` for its answer; a lost answer costs that, not the whole read.
    """

    def __init__(
        self,
        port: str | SerialPort,
        index: int = 0,
        baudrate: int = DEFAULT_BAUD,
        name: str | None = None,
        repeat_s: float = 1.0,
        passive_retries: int = 0x10,
        poll_gap_s: float = 0.05,
        poll_timeout_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        ack_timeout_s: float = 0.1,
        setup_timeout_s: float = 1.0,
    ) -> None:
        if isinstance(port, str):
            self.name = name or f"pn532:{port}"
            opened = open_serial(port, baudrate)
        else:
            self.name = name or "pn532"
            opened = port
        self.index = index
        self.repeat_s = repeat_s
        self.passive_retries = passive_retries
        self.poll_gap_s = poll_gap_s
        self.poll_timeout_s = poll_timeout_s
        self.clock = clock
        self.setup_timeout_s = setup_timeout_s
        self.pn532 = Pn532(opened, clock, ack_timeout_s)
        self._seen: dict[str, float] = {}  # UID -> when it was last in the field
        self._quiet_polls = 0  # polls in a row without any answer
        self._closed = False
        try:
            if not self.setup():
                raise HardwareError(
                    f"{self.name}: no answer from a PN532 (check: its mode switches on UART/HSU, "
                    "TX to the Pi's RX and RX to TX, 3.3 V, and the Pi's serial port enabled "
                    "with its login console off; see docs/tags.md)"
                )
        except BaseException:
            opened.close()
            raise

    def setup(self) -> bool:
        """Wake the PN532 and configure it; False when it does not answer."""
        for _ in range(2):
            self.pn532.wake()
            if self.pn532.sam_configuration(self.setup_timeout_s):
                # A limited retry count keeps each poll short; if the chip refuses, polls
                # are simply aborted at their deadline instead.
                self.pn532.set_passive_retries(self.passive_retries, self.setup_timeout_s)
                return True
        return False

    @property
    def bad_frames(self) -> int:
        return self.pn532.bad_frames

    @property
    def timeouts(self) -> int:
        return self.pn532.timeouts

    @property
    def finished(self) -> bool:
        return self._closed

    def _gap(self, deadline: float) -> None:
        pause = min(self.poll_gap_s, deadline - self.clock())
        if pause > 0:
            time.sleep(pause)

    def read(self, timeout_s: float) -> TagRead | None:
        deadline = self.clock() + max(0.0, timeout_s)
        while not self._closed:
            remaining = deadline - self.clock()
            if remaining <= 0:
                return None
            timeouts = self.pn532.timeouts
            # A poll cut short by this read's own deadline says nothing about the chip.
            budget = min(remaining, self.poll_timeout_s)
            uid = self.pn532.list_passive_target(budget, cut=budget < self.poll_timeout_s)
            now = self.clock()
            if self.pn532.timeouts > timeouts:
                self._quiet_polls += 1
                if self._quiet_polls >= 3:  # power-cycled? it needs waking again
                    self._quiet_polls = 0
                    self.setup()
                continue
            self._quiet_polls = 0
            if uid is None:
                self._gap(deadline)
                continue
            key = uid_hex(uid)
            last = self._seen.get(key)
            self._seen = {k: t for k, t in self._seen.items() if now - t < self.repeat_s}
            self._seen[key] = now
            if last is not None and now - last < self.repeat_s:
                self._gap(deadline)
                continue
            return TagRead(self.name, self.index, key, TagKind.UID)
        return None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.pn532.port.close()
