"""Tag readers: where a card's identity comes from.

A card carries an NFC tag (read by a PN532 on the Pi's UART, or by one of the Pico bridge's
readers) or a barcode (read by a scanner in serial mode, or by a keyboard-wedge scanner
that types it). Whatever the hardware, a reader answers one question, ``read(timeout_s)``:
the next tag seen, or ``None`` when nothing came in time. Everything above (learning a
deck, revealing a round) only ever sees :class:`TagRead` values, so a reader is swapped
without touching the logic, and tests feed reads by hand.

Bad bytes from a reader are counted (``bad_reads``), never raised: a scanner that sends
noise must not stop a game.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, TextIO

from companion.errors import HardwareError

KEYBOARD = "keyboard"  # the reader name of typed lines (a wedge scanner or a person)
BRIDGE = "bridge"
CODE_PREFIX = "code:"  # a barcode's key in a tag file: code:<the scanned text>
MAX_CODE = 128  # longest barcode text taken (a long line is noise, not a card)
NOISE = b" \t\x00\x02\x03\x0b\x0c"  # padding and STX/ETX framing some scanners add


class TagKind(StrEnum):
    UID = "uid"  # an NFC tag's UID, as uppercase hex
    CODE = "code"  # a barcode's text


@dataclass(frozen=True, slots=True)
class TagRead:
    """One tag seen by one reader."""

    reader: str  # which device: "pn532:/dev/serial0", "serial:/dev/ttyUSB0", "keyboard", ...
    index: int  # which of its readers (the bridge's reader number; 0 for a lone reader)
    tag: str  # uppercase hex for a UID, the scanned text for a barcode
    kind: TagKind = TagKind.UID

    @property
    def key(self) -> str:
        """The tag as a tag file names it: ``04A1B2C3`` or ``code:<text>``."""
        return tag_key(self.tag, self.kind)

    @property
    def typed(self) -> bool:
        """Typed on the keyboard (by a person or a wedge scanner): it may be a word too."""
        return self.reader == KEYBOARD

    def describe(self) -> str:
        return f"tag {self.tag}" if self.kind is TagKind.UID else f"code {self.tag!r}"


def typed_line(text: str) -> TagRead:
    """A line typed at the table (a card's name, ``bob=seal``, ``undo``) as a read."""
    return TagRead(KEYBOARD, 0, text.strip(), TagKind.CODE)


def tag_key(tag: str, kind: TagKind) -> str:
    return tag if kind is TagKind.UID else CODE_PREFIX + tag


def uid_hex(uid: bytes | bytearray | memoryview) -> str:
    return bytes(uid).hex().upper()


def clean_code(raw: bytes) -> str | None:
    """A scanned line as text, or None when it is not a plausible code.

    Padding and STX/ETX framing around it are dropped; anything else unprintable, bytes
    that are not UTF-8, or a line too long to be a card's code make it a bad read.
    """
    stripped = raw.strip(NOISE)
    try:
        text = stripped.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    if not text or len(text) > MAX_CODE or not text.isprintable():
        return None
    return text


class TagReader(Protocol):
    """What the learn walk and the reveal need from any reader."""

    name: str

    def read(self, timeout_s: float) -> TagRead | None:
        """The next tag seen within ``timeout_s`` seconds, else None. Never raises on noise."""
        ...

    def close(self) -> None: ...

    @property
    def finished(self) -> bool:
        """True once no read can ever come again (a typed stream at its end, a closed reader)."""
        ...


class SerialPort(Protocol):
    """The part of ``serial.Serial`` the readers use (a test may pass its own)."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def close(self) -> None: ...


PORT_TIMEOUT_S = 0.02  # one blocking read on the port waits at most this long


def open_serial(port: str, baudrate: int) -> SerialPort:
    """Open a serial port with pyserial; a missing or busy port is a HardwareError."""
    import serial

    try:
        opened: SerialPort = serial.Serial(port, baudrate, timeout=PORT_TIMEOUT_S)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise HardwareError(f"{port}: cannot open the serial port: {exc}") from None
    return opened


def read_some(port: SerialPort) -> bytes:
    """What the port has now, waiting at most the port's own timeout for a first byte."""
    try:
        waiting = port.in_waiting
        return port.read(waiting if waiting > 0 else 1)
    except (OSError, ValueError, TypeError) as exc:
        # pyserial raises SerialException (an OSError) when a USB scanner is pulled out
        raise HardwareError(f"serial port stopped answering: {exc}") from None


class SerialLineReader:
    """A barcode scanner in serial mode: one code per line, ended by CR, LF or CRLF."""

    def __init__(
        self,
        port: str | SerialPort,
        index: int = 0,
        baudrate: int = 9600,
        name: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(port, str):
            self.name = name or f"serial:{port}"
            self.port = open_serial(port, baudrate)
        else:
            self.name = name or "serial"
            self.port = port
        self.index = index
        self.clock = clock
        self.bad_reads = 0
        self._buf = bytearray()
        self._discarding = False  # inside an overlong line: drop until its end
        self._lines: list[bytes] = []
        self._closed = False

    @property
    def finished(self) -> bool:
        return self._closed

    def _take(self, chunk: bytes) -> None:
        for byte in chunk:
            if byte in (0x0A, 0x0D):  # CR, LF or CRLF: an empty line between is skipped
                if self._discarding:
                    self._discarding = False
                elif self._buf:
                    self._lines.append(bytes(self._buf))
                self._buf.clear()
            elif not self._discarding:
                self._buf.append(byte)
                if len(self._buf) > 4 * MAX_CODE:
                    self.bad_reads += 1
                    self._buf.clear()
                    self._discarding = True

    def _next_line(self) -> TagRead | None:
        while self._lines:
            raw = self._lines.pop(0)
            text = clean_code(raw)
            if text is not None:
                return TagRead(self.name, self.index, text, TagKind.CODE)
            if raw.strip(NOISE):
                self.bad_reads += 1
        return None

    def read(self, timeout_s: float) -> TagRead | None:
        deadline = self.clock() + max(0.0, timeout_s)
        while not self._closed:
            found = self._next_line()
            if found is not None:
                return found
            if self.clock() >= deadline:
                return None
            self._take(read_some(self.port))
        return None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.port.close()


class KeyboardWedgeReader:
    """Lines of text from a stream (stdin): a keyboard-wedge scanner, or a person typing.

    A thread reads the stream (a terminal's read blocks), so ``read`` can time out. Each
    non-empty line is a code; the learn walk and the reveal also take words from here
    (``undo``, a card's name), which is why these reads say they were ``typed``.
    """

    def __init__(self, stream: TextIO, index: int = 0, name: str = KEYBOARD) -> None:
        self.stream = stream
        self.index = index
        self.name = name
        self.bad_reads = 0
        self._queue: queue.SimpleQueue[TagRead | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._eof = False
        self._closed = False

    @property
    def finished(self) -> bool:
        return self._closed or self._eof

    def _pump(self) -> None:
        try:
            for line in self.stream:
                if self._closed:
                    break
                if not line.strip():
                    continue
                text = clean_code(line.encode("utf-8", "surrogateescape"))
                if text is None:
                    self.bad_reads += 1
                    continue
                self._queue.put(TagRead(self.name, self.index, text, TagKind.CODE))
        except (OSError, ValueError, UnicodeDecodeError):
            pass  # a closed or undecodable stream ends the input like EOF
        self._queue.put(None)

    def read(self, timeout_s: float) -> TagRead | None:
        if self.finished:
            return None
        if self._thread is None:
            self._thread = threading.Thread(target=self._pump, name="keyboard", daemon=True)
            self._thread.start()
        try:
            item = self._queue.get(timeout=max(0.0, timeout_s))
        except queue.Empty:
            return None
        if item is None:
            self._eof = True
        return item

    def close(self) -> None:
        self._closed = True  # a thread blocked on a terminal ends with the program


_CLOSED = object()


class CallbackReader:
    """A reader fed from elsewhere: the Pico bridge's card-read callback pushes into it.

    ``push`` is safe from any thread and never blocks; ``read`` takes what was pushed.
    """

    def __init__(self, name: str = BRIDGE, kind: TagKind = TagKind.UID) -> None:
        self.name = name
        self.kind = kind
        self.bad_reads = 0
        self._queue: queue.SimpleQueue[TagRead | object] = queue.SimpleQueue()
        self._closed = False

    @property
    def finished(self) -> bool:
        return self._closed

    def push(self, index: int, uid: bytes | bytearray | memoryview) -> None:
        """A tag seen by reader ``index``: its UID bytes (empty or absurd ones are counted)."""
        if self._closed:
            return
        raw = bytes(uid)
        if not 1 <= len(raw) <= 16 or isinstance(index, bool) or not isinstance(index, int):
            self.bad_reads += 1
            return
        self._queue.put(TagRead(self.name, index, uid_hex(raw), self.kind))

    def push_code(self, index: int, text: str) -> None:
        """A barcode seen by reader ``index`` (for a bridge with a scanner on it)."""
        if self._closed:
            return
        code = clean_code(text.encode("utf-8", "surrogateescape"))
        if code is None:
            self.bad_reads += 1
            return
        self._queue.put(TagRead(self.name, index, code, TagKind.CODE))

    def read(self, timeout_s: float) -> TagRead | None:
        if self._closed:
            return None
        try:
            item = self._queue.get(timeout=max(0.0, timeout_s))
        except queue.Empty:
            return None
        return item if isinstance(item, TagRead) else None

    def close(self) -> None:
        self._closed = True
        self._queue.put(_CLOSED)  # wake a waiting read


# -- the Pico bridge's hook -----------------------------------------------------------------

# Called with the CallbackReader that ``--reader bridge`` reads: it starts pushing the
# bridge's card reads into it (``reader.push(index, uid)``) and returns a function that
# stops them. ``firmware_bridge`` installs it with :func:`set_bridge_hook`; companion
# never imports the bridge itself.
BridgeHook = Callable[[CallbackReader], Callable[[], None]]
_bridge_hook: BridgeHook | None = None


def set_bridge_hook(hook: BridgeHook | None) -> None:
    global _bridge_hook
    _bridge_hook = hook


def bridge_hook() -> BridgeHook | None:
    return _bridge_hook


class BridgeReader(CallbackReader):
    """A CallbackReader connected to the bridge through its hook; closing disconnects."""

    def __init__(self, hook: BridgeHook) -> None:
        super().__init__(BRIDGE)
        self._stop = hook(self)

    def close(self) -> None:
        if not self.finished:
            try:
                self._stop()
            finally:
                super().close()


# -- several readers at once ------------------------------------------------------------------


class ReaderPool:
    """Polls several readers on threads of their own and hands their reads out in order.

    Used where two inputs are live at once: a PN532 and the keyboard (for ``undo``), or
    one reader per seat.
    """

    def __init__(self, readers: Sequence[TagReader], poll_s: float = 0.1) -> None:
        self.readers = list(readers)
        self.poll_s = poll_s
        self.errors: list[str] = []  # a reader that failed (unplugged), once each
        self._queue: queue.SimpleQueue[TagRead | None] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._live = len(self.readers)
        self._threads = [
            threading.Thread(target=self._poll, args=(r,), name=f"tags {r.name}", daemon=True)
            for r in self.readers
        ]
        for thread in self._threads:
            thread.start()

    def _poll(self, reader: TagReader) -> None:
        try:
            while not self._stop.is_set() and not reader.finished:
                found = reader.read(self.poll_s)
                if found is not None:
                    self._queue.put(found)
        except HardwareError as exc:
            if not self._stop.is_set():
                self.errors.append(f"{reader.name}: {exc}")
        except Exception as exc:  # a thread must say why it stopped, then stop cleanly
            if not self._stop.is_set():
                self.errors.append(f"{reader.name} stopped: {exc!r}")
        finally:
            self._queue.put(None)  # this reader is done

    @property
    def finished(self) -> bool:
        """Every reader is done and every read was handed out."""
        return self._live == 0 and self._queue.empty()

    def get(self, timeout_s: float) -> TagRead | None:
        """The next read from any reader, or None after ``timeout_s`` (or when all are done)."""
        deadline = time.monotonic() + max(0.0, timeout_s)
        while self._live > 0 or not self._queue.empty():
            try:
                item = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if item is not None:
                return item
            self._live -= 1
        return None

    def close(self) -> None:
        """Stop polling, then close the readers (not under a read in progress)."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=max(1.0, 5 * self.poll_s))
        for reader in self.readers:
            reader.close()
