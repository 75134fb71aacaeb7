"""The serial link to the Pico: finding the port, framing, a reader thread, retries.

The transport knows the port and the frames, not what the messages mean: it hands each
good message to ``on_frame`` and tells ``on_link`` when the port comes and goes. What it
does on its own:

* finds the port: ``"auto"`` (the udev name ``/dev/companion-bridge``, else the first USB
  serial port with the MicroPython Pico's IDs 2e8a:0005), a path, or any pyserial URL such
  as ``hwgrep://2e8a:0005``;
* opens it with DTR asserted (the RP2040's USB CDC holds its writes until DTR is set) and
  exclusively (a second referee on the same Pico would steal half the frames);
* reads on its own thread; every byte goes through the codec's :class:`Deframer`, so bad
  frames are counted (and logged, at most once a second), never raised;
* checks the link sequence number of every frame from the Pico: a jump is counted as lost
  frames, a frame older than the last one is a repeat and is dropped;
* sends commands that need an acknowledgement one at a time, in order, retransmitting
  with the same sequence number until the ACK comes (the Pico acknowledges a repeat
  without doing it twice);
* on any error, closes the port and opens it again with a growing back-off (a Pico being
  unplugged and plugged back in reappears as a new ttyACM, found again by "auto").
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from firmware_bridge import codec
from firmware_bridge.errors import BridgeDeviceError
from firmware_bridge.link import BridgeTiming

log = logging.getLogger(__name__)

BRIDGE_VID = 0x2E8A  # Raspberry Pi
BRIDGE_PID = 0x0005  # MicroPython on RP2
UDEV_LINK = "/dev/companion-bridge"  # hardware/99-companion-bridge.rules


class SerialPort(Protocol):
    """What the transport needs of a port (a ``serial.Serial``; tests may pass others)."""

    @property
    def in_waiting(self) -> int: ...
    def read(self, size: int = 1) -> bytes: ...
    def write(self, data: bytes) -> int | None: ...
    def cancel_read(self) -> None: ...
    def close(self) -> None: ...


FrameHandler = Callable[[int, int, tuple[int, ...], bytes, int], None]
LinkHandler = Callable[[bool, str], None]
TickHandler = Callable[[int], str | None]


def find_port(port: str = "auto") -> str:
    """The port to open: ``"auto"`` resolved, anything else as given."""
    if port != "auto":
        return port
    if os.path.exists(UDEV_LINK):
        return UDEV_LINK
    from serial.tools import list_ports

    found = sorted(
        p.device for p in list_ports.comports() if (p.vid, p.pid) == (BRIDGE_VID, BRIDGE_PID)
    )
    if not found:
        raise BridgeDeviceError(
            f"no Pico bridge found: no {UDEV_LINK} and no USB serial port "
            f"{BRIDGE_VID:04x}:{BRIDGE_PID:04x} (is it plugged in, running MicroPython?)"
        )
    return str(found[0])


def open_serial(port: str, read_timeout_s: float = 0.02) -> SerialPort:
    """Open the bridge's port: found, DTR and RTS asserted, exclusive, raw bytes."""
    import serial

    name = find_port(port)
    try:
        ser = serial.serial_for_url(
            name,
            do_not_open=True,
            baudrate=115200,  # ignored by USB CDC, needed by a real UART
            timeout=read_timeout_s,
            write_timeout=1.0,
            exclusive=True,
        )
        ser.dtr = True
        ser.rts = True
        ser.open()
    except (serial.SerialException, OSError, ValueError) as exc:
        raise BridgeDeviceError(f"bridge port {name}: {' '.join(str(exc).split())}") from exc
    port_obj: SerialPort = ser
    return port_obj


class CommandHandle:
    """A command on its way: ``wait()`` for its acknowledgement."""

    def __init__(self, mtype: int, fields: tuple[int, ...]) -> None:
        self.mtype = mtype
        self.fields = fields
        self.seq = -1
        self.attempts = 0
        self.sent_ns = 0
        self.status: int | None = None  # the ACK's status (codec.ACK_OK ...), once acked
        self.error = ""  # why it failed without an ACK
        self._done = threading.Event()

    def _finish(self, status: int | None, error: str = "") -> None:
        self.status = status
        self.error = error
        self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """True once the Pico acknowledged it with status OK."""
        self._done.wait(timeout)
        return self.status == codec.ACK_OK


class LinkStats:
    """Counters of the link, for ``companion`` status lines and the tests."""

    def __init__(self) -> None:
        self.connects = 0
        self.open_failures = 0
        self.frames = 0
        self.bytes_in = 0
        self.bad_frames = 0
        self.bad_messages = 0  # a good frame whose message did not parse
        self.lost_frames = 0  # link sequence jumps
        self.repeated_frames = 0  # dropped by link sequence
        self.handler_errors = 0
        self.frames_out = 0
        self.commands = 0
        self.retransmits = 0
        self.acks = 0
        self.stray_acks = 0
        self.command_failures = 0

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


class Transport:
    """The reader thread, the port and the command queue of one bridge."""

    def __init__(
        self,
        port: str,
        on_frame: FrameHandler,
        on_link: LinkHandler,
        on_tick: TickHandler,
        *,
        now_ns: Callable[[], int] = time.monotonic_ns,
        opener: Callable[[str], SerialPort] = open_serial,
        timing: BridgeTiming | None = None,
        name: str = "bridge",
    ) -> None:
        timing = timing or BridgeTiming()
        self.port = port
        self._on_frame = on_frame
        self._on_link = on_link
        self._on_tick = on_tick
        self._now = now_ns
        self._opener = opener
        self._rto_ns = int(timing.rto_s * 1e9)
        self._max_attempts = timing.max_attempts
        self._backoff_min = timing.backoff_min_s
        self._backoff_max = timing.backoff_max_s
        self._max_queue = timing.max_queue
        self.name = name
        self.stats = LinkStats()
        self.deframer = codec.Deframer()
        self.last_error = ""
        self._ser: SerialPort | None = None
        self._wlock = threading.Lock()
        self._cmd_lock = threading.Lock()
        self._queue: deque[CommandHandle] = deque()
        self._inflight: CommandHandle | None = None
        self._tx_seq = 0
        self._rx_expect: int | None = None
        self._drop_reason = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bad_logged = 0
        self._bad_logged_at = 0

    # -- life -----------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"{self.name}-reader")
            self._thread.daemon = True
            self._thread.start()

    def close(self) -> None:
        """Stop the thread and close the port; safe to call twice."""
        self._stop.set()
        ser = self._ser
        if ser is not None:
            try:
                ser.cancel_read()
            except Exception:  # a port already gone
                pass
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    @property
    def connected(self) -> bool:
        return self._ser is not None

    def drop(self, reason: str) -> None:
        """Close the port and open it again (any thread)."""
        self._drop_reason = reason or "dropped"
        ser = self._ser
        if ser is not None:
            try:
                ser.cancel_read()
            except Exception:
                pass

    def _run(self) -> None:
        backoff = self._backoff_min
        failing = ""
        while not self._stop.is_set():
            try:
                ser = self._opener(self.port)
            except Exception as exc:  # HardwareError, SerialException, OSError alike
                self.stats.open_failures += 1
                message = " ".join(str(exc).split())
                if message != failing:  # say it once, not every back-off
                    log.warning("%s: cannot open %s: %s", self.name, self.port, message)
                    failing = message
                self.last_error = message
                self._stop.wait(backoff)
                backoff = min(self._backoff_max, backoff * 2)
                continue
            failing = ""
            opened_at = self._now()
            reason = self._session(ser)
            self.last_error = reason
            if self._stop.is_set():
                break
            if self._now() - opened_at > 2_000_000_000:
                backoff = self._backoff_min  # it worked for a while: try again at once
            self._stop.wait(backoff)
            backoff = min(self._backoff_max, backoff * 2)

    def _session(self, ser: SerialPort) -> str:
        self.deframer.reset()
        self._rx_expect = None
        self._drop_reason = ""
        self._ser = ser
        self.stats.connects += 1
        reason = "closed"
        try:
            try:
                ser.write(b"\x00")  # a lone delimiter: any half frame the Pico holds is cut off
            except Exception as exc:
                return f"write failed: {' '.join(str(exc).split())}"
            self._notify_link(True, self.port)
            reason = self._serve(ser)
        finally:
            self._ser = None
            try:
                ser.close()
            except Exception:
                pass
            self._fail_commands("link lost")
            self._notify_link(False, reason)
        return reason

    def _notify_link(self, up: bool, detail: str) -> None:
        try:
            self._on_link(up, detail)
        except Exception:
            self.stats.handler_errors += 1
            log.exception("%s: link handler failed", self.name)

    # -- reading --------------------------------------------------------------------------

    def _serve(self, ser: SerialPort) -> str:
        deframer = self.deframer
        while not self._stop.is_set():
            if self._drop_reason:
                return self._drop_reason
            try:
                data = ser.read(1)
                if data:
                    waiting = ser.in_waiting
                    if waiting:
                        data += ser.read(waiting)
            except Exception as exc:  # SerialException (unplugged), OSError, TypeError
                return f"read failed: {' '.join(str(exc).split())}"
            now = self._now()
            if data:
                self.stats.bytes_in += len(data)
                for payload in deframer.feed(data):
                    self._dispatch(payload, now)
                self.stats.bad_frames = deframer.bad
                self.stats.frames = deframer.frames
            self._timers(now)
        return "closed"

    def _dispatch(self, payload: bytes, rx_ns: int) -> None:
        mtype, seq = payload[0], payload[1]
        expect = self._rx_expect
        if expect is not None and mtype != codec.IDENTIFY:
            ahead = (seq - expect) & 0xFF
            if ahead >= 128:  # behind the last frame: a repeat
                self.stats.repeated_frames += 1
                return
            self.stats.lost_frames += ahead
        self._rx_expect = (seq + 1) & 0xFF
        try:
            mtype, seq, fields, tail = codec.unpack(payload)
        except codec.FrameError:
            self.stats.bad_messages += 1
            return
        if mtype == codec.ACK:
            self._acked(fields[0], fields[1])
        try:
            self._on_frame(mtype, seq, fields, tail, rx_ns)
        except Exception:  # a handler bug must not stop the reader
            self.stats.handler_errors += 1
            log.exception("%s: handler failed on %s", self.name, codec.name_of(mtype))

    def _timers(self, now: int) -> None:
        self._retransmit(now)
        try:
            reason = self._on_tick(now)
        except Exception:
            self.stats.handler_errors += 1
            log.exception("%s: tick handler failed", self.name)
            reason = None
        if reason:
            self._drop_reason = reason
        bad = self.deframer.bad
        if bad != self._bad_logged and now - self._bad_logged_at >= 1_000_000_000:
            d = self.deframer
            log.warning(
                "%s: %d bad frames so far (crc %d, cobs %d, short %d, long %d)",
                self.name,
                bad,
                d.bad_crc,
                d.bad_cobs,
                d.bad_short,
                d.bad_long,
            )
            self._bad_logged = bad
            self._bad_logged_at = now

    # -- writing --------------------------------------------------------------------------

    def send(self, mtype: int, fields: tuple[int, ...], tail: bytes = b"") -> int | None:
        """Send one message without waiting for anything; the host time just before the
        write (a PING's send stamp), or None when the port is not open."""
        with self._wlock:
            seq = self._tx_seq
            self._tx_seq = (seq + 1) & 0xFF
            return self._write(codec.encode_frame(codec.pack(mtype, seq, fields, tail)))

    def _write(self, frame: bytes) -> int | None:
        ser = self._ser
        if ser is None:
            return None
        stamp = self._now()
        try:
            ser.write(frame)
        except Exception as exc:
            self.drop(f"write failed: {' '.join(str(exc).split())}")
            return None
        self.stats.frames_out += 1
        return stamp

    def command(self, mtype: int, fields: tuple[int, ...]) -> CommandHandle:
        """Queue a command that the Pico acknowledges (LED, BUZZ, CONFIG); never blocks."""
        handle = CommandHandle(mtype, fields)
        with self._cmd_lock:
            if len(self._queue) >= self._max_queue:
                self.stats.command_failures += 1
                handle._finish(None, "command queue full")
                return handle
            self.stats.commands += 1
            self._queue.append(handle)
            self._pump()
        return handle

    def _pump(self) -> None:
        """Send the next queued command if none is waiting for its ACK (holds _cmd_lock)."""
        if self._inflight is not None or not self._queue or self._ser is None:
            return
        handle = self._queue.popleft()
        with self._wlock:
            handle.seq = self._tx_seq
            self._tx_seq = (self._tx_seq + 1) & 0xFF
            self._inflight = handle
            self._transmit(handle)

    def _transmit(self, handle: CommandHandle) -> None:
        handle.attempts += 1
        handle.sent_ns = self._now()
        frame = codec.encode_frame(codec.pack(handle.mtype, handle.seq, handle.fields))
        self._write(frame)

    def _retransmit(self, now: int) -> None:
        with self._cmd_lock:
            handle = self._inflight
            if handle is None:
                self._pump()
                return
            if now - handle.sent_ns < self._rto_ns:
                return
            if handle.attempts >= self._max_attempts:
                self._inflight = None
                self.stats.command_failures += 1
                handle._finish(None, f"no ACK after {handle.attempts} attempts")
                log.warning(
                    "%s: %s not acknowledged after %d attempts",
                    self.name,
                    codec.name_of(handle.mtype),
                    handle.attempts,
                )
                self._pump()
                return
            self.stats.retransmits += 1
            with self._wlock:
                self._transmit(handle)

    def _acked(self, seq: int, status: int) -> None:
        with self._cmd_lock:
            handle = self._inflight
            if handle is None or handle.seq != seq:
                self.stats.stray_acks += 1  # a late ACK of a retransmitted command
                return
            self.stats.acks += 1
            self._inflight = None
            handle._finish(status)
            self._pump()

    def _fail_commands(self, why: str) -> None:
        with self._cmd_lock:
            pending = list(self._queue)
            self._queue.clear()
            if self._inflight is not None:
                pending.insert(0, self._inflight)
                self._inflight = None
            for handle in pending:
                self.stats.command_failures += 1
                handle._finish(None, why)

    def snapshot(self) -> dict[str, Any]:
        data: dict[str, Any] = self.stats.as_dict()
        data["connected"] = self.connected
        data["port"] = self.port
        data["last_error"] = self.last_error
        return data
