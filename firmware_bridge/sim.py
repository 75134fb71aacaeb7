"""A simulated Pico bridge: the firmware's own core and codec under CPython, on a pty.

:class:`SimDevice` runs :class:`firmware_bridge.firmware.core.Core` (the logic the Pico
runs) behind the master end of a pseudo-terminal; the host opens the slave end's name with
real pyserial, exactly as it opens ``/dev/ttyACM0``. Its microsecond clock is the host's
monotonic clock run ``drift_ppm`` fast, from ``offset_us``, wrapping at 2**30 like
``time.ticks_us()``. A test can press buttons (the stamp is the true host instant it
returns), present cards, drop, repeat, corrupt or truncate outgoing frames of a type,
drop incoming commands, and unplug (the pty is closed: the host's reads fail as a
yanked USB cable's do) and plug back in, with or without a reboot. With ``link`` set, a
symlink follows the current pty, as udev's ``/dev/companion-bridge`` follows the Pico.

:func:`simulate_sync` runs the same core and :class:`~firmware_bridge.session.BridgeSession`
on a virtual timeline, with random USB-like delays, to measure the clock sync over a long
game in a second of CPU: no pty, no threads, no sleeping.
"""

from __future__ import annotations

import heapq
import os
import random
import select
import statistics
import sys
import threading
import time
import tty
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_bridge import codec
from firmware_bridge.errors import BridgeDeviceError
from firmware_bridge.firmware.core import Core
from firmware_bridge.mprun import MicroPythonCore

TICKS_MASK = (1 << codec.TICKS_BITS) - 1
SIM_CAPS = codec.CAP_LEDS | codec.CAP_BUZZER | codec.CAP_PN532


class SimClock:
    """The simulated Pico's timer: ``offset_us`` at start, ``1 + drift_ppm/1e6`` us per us."""

    def __init__(
        self,
        host_ns: Callable[[], int] = time.monotonic_ns,
        drift_ppm: float = 0.0,
        offset_us: int = 0,
    ) -> None:
        if not 0 <= offset_us <= TICKS_MASK:
            raise ValueError("offset_us is a raw ticks_us value: 0 to 2**30 - 1")
        self.host_ns = host_ns
        self.drift_ppm = drift_ppm
        self.rate = 1.0 + drift_ppm * 1e-6
        self.offset_us = offset_us
        self.t0 = host_ns()

    def mcu_us(self, at_ns: int | None = None) -> int:
        """The timer's value (extended, never wrapping) at a host instant (default: now)."""
        at = self.host_ns() if at_ns is None else at_ns
        return self.offset_us + int((at - self.t0) * self.rate // 1000)

    def ticks_us(self, at_ns: int | None = None) -> int:
        return self.mcu_us(at_ns) & TICKS_MASK

    def host_ns_of(self, mcu_us: int) -> float:
        """The true host instant of an (extended) MCU time: what a perfect sync would say."""
        return self.t0 + (mcu_us - self.offset_us) * 1000 / self.rate


class _SimHal:
    def __init__(self, device: SimDevice) -> None:
        self.device = device

    def ticks_us(self) -> int:
        return self.device.clock.ticks_us()

    def write(self, frame: bytes) -> None:
        self.device._out(frame)

    def led(self, index: int, on: bool) -> None:
        self.device.leds[index] = on

    def buzz(self, on: bool, freq_hz: int) -> None:
        self.device.buzzes.append((on, freq_hz))

    def level(self, button: int) -> bool:
        return self.device.levels[button]


class SimDevice:
    """A Pico bridge on a pty, running the firmware's core; see the module's docstring."""

    def __init__(
        self,
        n_buttons: int = 4,
        *,
        n_leds: int = 4,
        n_readers: int = 1,
        drift_ppm: float = 0.0,
        offset_us: int = 0,
        host_ns: Callable[[], int] = time.monotonic_ns,
        link: str | os.PathLike[str] | None = None,
        debounce_us: int = 0,
        heartbeat_ms: int = 250,
        proto_major: int = codec.PROTO_MAJOR,
        history: int = 64,
        version: str = "sim-1.0.0",
        seed: int | None = None,
        micropython: bool = False,
    ) -> None:
        self.clock = SimClock(host_ns, drift_ppm, offset_us)
        self.n_buttons = n_buttons
        self.levels = [False] * n_buttons
        self.leds: dict[int, bool] = {}
        self.buzzes: list[tuple[bool, int]] = []
        self._rng = random.Random(seed)
        self._core_args: dict[str, Any] = {
            "n_buttons": n_buttons,
            "n_leds": n_leds,
            "n_readers": n_readers,
            "caps": SIM_CAPS,
            "debounce_us": debounce_us,
            "heartbeat_ms": heartbeat_ms,
            "proto_major": proto_major,
            "history": history,
            "version": version,
        }
        self.lock = threading.RLock()
        self.micropython = micropython  # the core runs in a MicroPython process
        self.core: Core | MicroPythonCore = self._new_core()
        self.link = Path(link) if link is not None else None
        self.slave_name = ""
        self._master: int | None = None
        self._slave: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._deframer = codec.Deframer()
        # faults, by message type: how many of the next frames to treat so
        self.drop_out: dict[int, int] = defaultdict(int)
        self.repeat_out: dict[int, int] = defaultdict(int)
        self.corrupt_out: dict[int, int] = defaultdict(int)
        self.truncate_out: dict[int, int] = defaultdict(int)
        self.drop_in: dict[int, int] = defaultdict(int)
        self.replay_all_on_hello = False  # a naive firmware: replays its whole history
        self.received: list[tuple[int, int, tuple[int, ...]]] = []  # (type, seq, fields)
        self.sent: dict[int, int] = defaultdict(int)  # frames written, by type
        self.capture: list[bytes] | None = None  # set: frames are kept here, not written
        self.plugs = 0

    def _new_core(self) -> Core | MicroPythonCore:
        boot_id = self._rng.getrandbits(32)
        if self.micropython:
            args = dict(self._core_args)
            n_buttons = args.pop("n_buttons")
            return MicroPythonCore(_SimHal(self), n_buttons, boot_id=boot_id, **args)
        return Core(_SimHal(self), boot_id=boot_id, **self._core_args)

    # -- the cable ------------------------------------------------------------------------

    @property
    def port(self) -> str:
        """What the host should open: the symlink if there is one, else the pty's name."""
        return str(self.link) if self.link is not None else self.slave_name

    def start(self) -> SimDevice:
        self.plug()
        self._thread = threading.Thread(target=self._run, name="sim-bridge", daemon=True)
        self._thread.start()
        return self

    def plug(self) -> None:
        """A new pty, as a new ttyACM after plugging in (the symlink moves to it)."""
        with self.lock:
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo, no line editing, before the host opens it
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            self.slave_name = os.ttyname(slave)
            if self.link is not None:
                tmp = self.link.with_name(self.link.name + ".new")
                if tmp.is_symlink() or tmp.exists():
                    tmp.unlink()
                tmp.symlink_to(self.slave_name)
                tmp.replace(self.link)
            self._deframer.reset()
            self.plugs += 1

    def unplug(self) -> None:
        """Pull the cable: the pty goes away, the host's reads and writes fail."""
        with self.lock:
            if self.link is not None and self.link.is_symlink():
                self.link.unlink()
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None
            self.core.active = False  # the host's session is gone with the cable

    def replug(self, reboot: bool = False) -> None:
        """Plug back in; ``reboot`` as a real Pico does when it lost power (new boot id)."""
        with self.lock:
            if reboot:
                self.levels = [False] * self.n_buttons
                self.clock = SimClock(self.clock.host_ns, self.clock.drift_ppm, 0)
                if isinstance(self.core, MicroPythonCore):
                    self.core.close()
                self.core = self._new_core()
            self.plug()

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.unplug()
        if isinstance(self.core, MicroPythonCore):
            self.core.close()

    def __enter__(self) -> SimDevice:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the buttons and readers ----------------------------------------------------------

    def press(self, button: int, pressed: bool = True, at_ns: int | None = None) -> int:
        """The button goes down (or up) at ``at_ns`` (default now): the true host instant."""
        with self.lock:
            at = self.clock.host_ns() if at_ns is None else at_ns
            self.levels[button] = pressed
            self.core.edge(button, pressed, self.clock.ticks_us(at))
            return at

    def release(self, button: int, at_ns: int | None = None) -> int:
        return self.press(button, False, at_ns)

    def card(self, reader: int, uid: bytes, at_ns: int | None = None) -> int:
        with self.lock:
            at = self.clock.host_ns() if at_ns is None else at_ns
            self.core.card(reader, uid, self.clock.ticks_us(at))
            return at

    def true_host_ns(self, mcu_us: int) -> float:
        return self.clock.host_ns_of(mcu_us)

    # -- bytes ----------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            fd = self._master
            if fd is None:
                time.sleep(0.002)
                with self.lock:
                    self.core.poll()
                continue
            try:
                ready, _, _ = select.select([fd], [], [], 0.002)
                data = os.read(fd, 4096) if ready else b""
            except (OSError, ValueError):  # unplugged under our feet
                data = b""
            with self.lock:
                if data and self._master == fd:
                    self._incoming(data)
                self.core.poll()

    def _incoming(self, data: bytes) -> None:
        for payload in self._deframer.feed(data):
            try:
                mtype, seq, fields, _ = codec.unpack(payload)
            except codec.FrameError:
                continue
            self.received.append((mtype, seq, fields))
            if self.drop_in[mtype] > 0:
                self.drop_in[mtype] -= 1
                continue
            self.core.feed(codec.encode_frame(payload))
            if mtype == codec.HELLO and self.replay_all_on_hello:
                self.core.replay(0)

    def _out(self, frame: bytes) -> None:
        mtype = frame_type(frame)
        if self.drop_out[mtype] > 0:
            self.drop_out[mtype] -= 1
            return
        if self.corrupt_out[mtype] > 0:
            self.corrupt_out[mtype] -= 1
            i = len(frame) // 2
            flipped = frame[i] ^ 0x55 or 0x01
            frame = frame[:i] + bytes((flipped,)) + frame[i + 1 :]
        if self.truncate_out[mtype] > 0:
            self.truncate_out[mtype] -= 1
            frame = frame[: len(frame) // 2]
        if self.capture is not None:
            self.capture.append(frame)
            return
        times = 1
        if self.repeat_out[mtype] > 0:
            self.repeat_out[mtype] -= 1
            times = 2
        for _ in range(times):
            self.write_raw(frame)
        self.sent[mtype] += 1

    def write_raw(self, data: bytes) -> bool:
        """Bytes straight onto the wire; False if unplugged (they are lost, as on USB)."""
        fd = self._master
        if fd is None:
            return False
        view = memoryview(data)
        while view:
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                select.select([], [fd], [], 0.01)
                continue
            except OSError:
                return False
            view = view[n:]
        return True


def frame_type(frame: bytes) -> int:
    """The message type of an encoded frame (-1 if it does not decode)."""
    try:
        return codec.decode_frame(frame.rstrip(b"\x00"))[0]
    except codec.FrameError:
        return -1


# -- a virtual timeline -------------------------------------------------------------------


def usb_like_delay_ns(rng: random.Random) -> int:
    """One direction's delay: 150 us, plus an exponential tail (mean 100 us), plus now and
    then (5 %) up to 2 ms more. A model of a full-speed USB CDC link, not a measurement."""
    delay = 150_000 + rng.expovariate(1 / 100_000)
    if rng.random() < 0.05:
        delay += rng.uniform(0, 2_000_000)
    return int(delay)


class _VirtualTable:
    """The firmware core and the host session joined by a delayed, ordered virtual cable."""

    def __init__(
        self,
        drift_ppm: float,
        offset_us: int,
        ping_interval_s: float,
        n_buttons: int,
        rng: random.Random,
        delay: Callable[[random.Random], int],
    ) -> None:
        from firmware_bridge.link import BridgeTiming
        from firmware_bridge.session import BridgeSession

        self.rng = rng
        self.delay = delay
        self.now = 10**12  # virtual host ns
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._order = 0
        self._last = {"up": 0, "down": 0}  # a serial link never reorders: each way a FIFO
        self.clock = SimClock(lambda: self.now, drift_ppm, offset_us)
        self._host_deframer = codec.Deframer()
        self.levels = [False] * n_buttons
        self.core = Core(self, n_buttons, n_leds=0, boot_id=rng.getrandbits(32), debounce_us=0)
        self.truth: dict[tuple[str, int], int] = {}
        self.delivered: list[tuple[int, int, float]] = []  # (true ns, stamp ns, stated us)
        self._counts: dict[str, int] = defaultdict(int)
        self._seen: dict[str, int] = defaultdict(int)
        self.session = BridgeSession(
            {f"p{b}": b for b in range(n_buttons)},
            self._host_send,
            self._on_edge,
            notify=lambda _m: None,
            timing=BridgeTiming(ping_interval_s=ping_interval_s),
        )

    def at(self, t: int, action: Callable[[], None]) -> None:
        self._order += 1
        heapq.heappush(self._queue, (t, self._order, action))

    def _arrival(self, way: str) -> int:
        self._last[way] = max(self._last[way], self.now + self.delay(self.rng))
        return self._last[way]

    # the core's HAL
    def ticks_us(self) -> int:
        return self.clock.ticks_us()

    def write(self, frame: bytes) -> None:
        self.at(self._arrival("down"), lambda: self._to_host(frame))

    def led(self, index: int, on: bool) -> None:
        pass

    def buzz(self, on: bool, freq_hz: int) -> None:
        pass

    def level(self, button: int) -> bool:
        return self.levels[button]

    # the host's side
    def _host_send(self, mtype: int, fields: tuple[int, ...], tail: bytes) -> int:
        frame = codec.encode_frame(codec.pack(mtype, 0, fields, tail))
        self.at(self._arrival("up"), lambda: self.core.feed(frame))
        return self.now

    def _to_host(self, frame: bytes) -> None:
        for payload in self._host_deframer.feed(frame):
            mtype, seq, fields, tail = codec.unpack(payload)
            self.session.receive(mtype, seq, fields, tail, self.now)

    def _on_edge(self, edge: Any) -> None:
        k = self._seen[edge.player]
        self._seen[edge.player] += 1
        true_ns = self.truth.pop((edge.player, k))
        self.delivered.append((true_ns, edge.stamp_ns, self.session.clock.uncertainty_us()))

    def press(self, button: int) -> None:
        player = f"p{button}"
        down = not self.levels[button]
        self.levels[button] = down
        self.truth[(player, self._counts[player])] = self.now
        self._counts[player] += 1
        self.core.edge(button, down, self.clock.ticks_us())

    def run(self, end: int, presses_per_s: float) -> None:
        """Ticks every 20 ms (the transport's read timeout) and random presses until ``end``."""

        def tick() -> None:
            self.session.tick(self.now)
            self.core.poll()
            if self.now < end:
                self.at(self.now + 20_000_000, tick)

        def press() -> None:
            self.press(self.rng.randrange(len(self.levels)))
            if self.now < end:
                self.at(self.now + int(self.rng.expovariate(presses_per_s) * 1e9) + 1, press)

        self.session.link_up(self.now)
        self.at(self.now, tick)
        self.at(self.now + int(self.rng.expovariate(presses_per_s) * 1e9), press)
        while self._queue:
            t, _, action = heapq.heappop(self._queue)
            self.now = max(self.now, t)
            action()


def simulate_sync(
    drift_ppm: float = 50.0,
    duration_s: float = 1800.0,
    *,
    offset_us: int = TICKS_MASK - 30_000_000,
    ping_interval_s: float = 0.25,
    presses_per_s: float = 2.0,
    n_buttons: int = 4,
    seed: int = 1,
    warmup_s: float = 10.0,
    delay: Callable[[random.Random], int] = usb_like_delay_ns,
) -> dict[str, Any]:
    """Clock sync over a simulated game: the firmware core and the host session exchange
    frames through the codec with random delays on a virtual clock. Presses land at random
    true instants; each delivered edge's stamp is compared with its true instant.

    The MCU timer starts ``offset_us`` short of its 2**30 wrap (30 s by default) so the
    run crosses the wrap; it runs ``drift_ppm`` fast. Errors are reported after
    ``warmup_s`` (the first seconds, before drift is fitted, carry a wider stated error).
    """
    rng = random.Random(seed)
    table = _VirtualTable(drift_ppm, offset_us, ping_interval_s, n_buttons, rng, delay)
    start = table.now
    end = start + int(duration_s * 1e9)
    table.run(end, presses_per_s)
    after = start + warmup_s * 1e9
    kept = [(stamp - true) / 1000 for true, stamp, _ in table.delivered if true >= after]
    stated = [u for true, _, u in table.delivered if true >= after]
    abs_errors = sorted(abs(e) for e in kept)
    wraps = (table.clock.mcu_us(end) >> codec.TICKS_BITS) - (offset_us >> codec.TICKS_BITS)
    return {
        "drift_ppm": drift_ppm,
        "duration_s": duration_s,
        "edges": len(kept),
        "max_us": round(abs_errors[-1], 1) if abs_errors else 0.0,
        "p99_us": round(abs_errors[int(0.99 * (len(abs_errors) - 1))], 1) if abs_errors else 0.0,
        "mean_us": round(statistics.fmean(kept), 2) if kept else 0.0,
        "stated_uncertainty_us": round(max(stated), 1) if stated else 0.0,
        "outside_stated": sum(abs(e) > u for e, u in zip(kept, stated, strict=True)),
        "fitted_drift_ppm": round(table.session.clock.drift_ppm, 2),
        "ticks_wraps": wraps,
        "lost": table.session.counters()["event_gaps"],
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m firmware_bridge.sim``: a simulated Pico on a pty until Enter or Ctrl-C."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m firmware_bridge.sim",
        description="A simulated Pico bridge on a pty, running the firmware's own core.",
    )
    parser.add_argument("--buttons", type=int, default=4)
    parser.add_argument("--link", help="a symlink that follows the pty (like the udev name)")
    parser.add_argument("--drift-ppm", type=float, default=0.0)
    parser.add_argument(
        "--micropython",
        action="store_true",
        help="run the core in a MicroPython process (the micropython command)",
    )
    args = parser.parse_args(argv)
    try:
        device = SimDevice(
            args.buttons, link=args.link, drift_ppm=args.drift_ppm, micropython=args.micropython
        ).start()
    except (OSError, BridgeDeviceError) as exc:
        print(f"firmware_bridge.sim: {exc}", file=sys.stderr)
        return 2
    interpreter = "MicroPython" if args.micropython else "CPython"
    print(f"simulated Pico ({interpreter} core) on {device.port}; Enter stops it", flush=True)
    try:
        sys.stdin.readline()
    except KeyboardInterrupt:
        pass
    finally:
        device.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
