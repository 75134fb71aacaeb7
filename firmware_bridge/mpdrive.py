"""The firmware's core driven by lines of text: one driver, run by CPython or by MicroPython.

Why: the Pico runs ``codec.py`` and ``core.py`` under MicroPython, the host's tests under
CPython. This driver runs in both, so the same command stream can be fed to each and the
outputs compared byte for byte (``tests/test_micropython_core.py``), and so the simulated
Pico can keep its core in a MicroPython process (``firmware_bridge.sim --micropython``).
It keeps to what ``codec.py`` keeps to (no typing at run time, no f-strings).

Input, one command a line. First ``init`` and the core's settings::

    init TICKS N_BUTTONS N_LEDS N_READERS CAPS BOOT_ID STAMP_ERR_US DEBOUNCE_US
         HEARTBEAT_MS HISTORY PROTO_MAJOR VERSION

then each command starts with the raw ``ticks_us`` the core will read and the bitmap of
the buttons' pin levels (bit set: down), then an operation and its arguments::

    TICKS LEVELS e BUTTON 0|1 RAW      an edge, stamped RAW (core.edge)
    TICKS LEVELS c READER RAW UIDHEX   a card (core.card)
    TICKS LEVELS l N                   the IRQ ring dropped N edges (core.lost)
    TICKS LEVELS f HEX                 bytes from the host (core.feed)
    TICKS LEVELS p                     the main loop's timers (core.poll)
    TICKS LEVELS r AFTER               replay events after AFTER (core.replay)
    TICKS LEVELS a 0|1                 a host is (not) listening (core.active)
    TICKS LEVELS x CODE TEXT           report an error (core.error)
    TICKS LEVELS s                     print the counters
    TICKS LEVELS bench N               time N edges; print the cost of one
    q                                  stop

Output, one line each: ``w HEX`` (a frame written), ``L INDEX 0|1`` (an LED), ``B 0|1
FREQ`` (the buzzer), ``R COUNT`` (replayed), ``S ...`` (counters), ``C NS`` (bench: ns per
edge), and ``.`` after every command.
"""

import binascii
import sys
import time

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython
    TYPE_CHECKING = False  # type: ignore[misc]

if TYPE_CHECKING:
    from collections.abc import Callable

try:
    from firmware_bridge import codec
    from firmware_bridge.firmware.core import Core
except ImportError:  # MicroPython: firmware_bridge/ and firmware/ are on MICROPYPATH
    import codec  # type: ignore[import-not-found, no-redef]
    from core import Core  # type: ignore[import-not-found, no-redef]

try:
    from time import ticks_diff, ticks_us  # type: ignore[attr-defined]

    def _elapsed_ns(start: int) -> int:
        return int(ticks_diff(ticks_us(), start)) * 1000

    def _clock() -> int:
        return int(ticks_us())

except ImportError:  # CPython

    def _elapsed_ns(start: int) -> int:
        return time.perf_counter_ns() - start

    def _clock() -> int:
        return time.perf_counter_ns()


TICKS_MASK = (1 << codec.TICKS_BITS) - 1


class LineHal:
    """What the core needs of the hardware, as lines out and values set from outside."""

    def __init__(self, out: "Callable[[str], None]") -> None:
        self.out = out
        self.ticks = 0
        self.levels = 0
        self.quiet = False

    def ticks_us(self) -> int:
        return self.ticks

    def write(self, frame: bytes) -> None:
        if not self.quiet:
            self.out("w " + binascii.hexlify(frame).decode())

    def led(self, index: int, on: bool) -> None:
        self.out("L " + str(index) + (" 1" if on else " 0"))

    def buzz(self, on: bool, freq_hz: int) -> None:
        self.out("B " + ("1 " if on else "0 ") + str(freq_hz))

    def level(self, button: int) -> bool:
        return bool(self.levels >> button & 1)


class Driver:
    """Reads commands, drives one :class:`Core`, writes what it did."""

    def __init__(self, out: "Callable[[str], None]") -> None:
        self.out = out
        self.hal = LineHal(out)
        self.core: Core | None = None
        self.ops = {
            "e": self._edge,
            "c": self._card,
            "l": self._lost,
            "f": self._feed,
            "p": self._poll,
            "r": self._replay,
            "a": self._active,
            "x": self._error,
            "s": self._status,
            "bench": self._bench,
        }

    def line(self, text: str) -> bool:
        """Run one command; False for ``q``."""
        parts = text.split()
        if not parts:
            return True
        if parts[0] == "q":
            return False
        if parts[0] == "init":
            self._init(parts[1:])
            return True
        self.hal.ticks = int(parts[0])
        self.hal.levels = int(parts[1])
        self.ops[parts[2]](parts[3:])
        return True

    def _init(self, a: "list[str]") -> None:
        self.hal.ticks = int(a.pop(0))
        self.core = Core(
            self.hal,
            int(a[0]),
            n_leds=int(a[1]),
            n_readers=int(a[2]),
            caps=int(a[3]),
            boot_id=int(a[4]),
            stamp_err_us=int(a[5]),
            debounce_us=int(a[6]),
            heartbeat_ms=int(a[7]),
            history=int(a[8]),
            proto_major=int(a[9]),
            version=a[10],
        )

    def _core(self) -> "Core":
        if self.core is None:
            raise ValueError("no init line before the first command")
        return self.core

    def _edge(self, a: "list[str]") -> None:
        self._core().edge(int(a[0]), a[1] == "1", int(a[2]))

    def _card(self, a: "list[str]") -> None:
        self._core().card(int(a[0]), binascii.unhexlify(a[2]), int(a[1]))

    def _lost(self, a: "list[str]") -> None:
        self._core().lost(int(a[0]))

    def _feed(self, a: "list[str]") -> None:
        self._core().feed(binascii.unhexlify(a[0]))

    def _poll(self, a: "list[str]") -> None:
        self._core().poll()

    def _replay(self, a: "list[str]") -> None:
        self.out("R " + str(self._core().replay(int(a[0]))))

    def _active(self, a: "list[str]") -> None:
        self._core().active = a[0] == "1"

    def _error(self, a: "list[str]") -> None:
        self._core().error(int(a[0]), " ".join(a[1:]))

    def _status(self, a: "list[str]") -> None:
        c = self._core()
        figures = (
            c.evseq,
            c.bounces,
            c.overflows,
            c.rx_bad,
            c.unknown,
            c.held(),
            1 if c.active else 0,
            c.debounce_us,
            c.heartbeat_us,
            c.now_us(),
        )
        self.out("S " + " ".join([str(f) for f in figures]))

    def _bench(self, a: "list[str]") -> None:
        self.out("C " + str(time_edges(self._core(), self.hal, int(a[0]))))


def time_edges(core: "Core", hal: LineHal, n: int) -> int:
    """Nanoseconds per accepted edge on button 0: debounce, numbering, the frame built
    (pack, CRC, COBS) and handed to a HAL that drops it."""
    step = core.debounce_us + 1
    hal.quiet = True
    start = _clock()
    for _ in range(n):
        hal.ticks = (hal.ticks + step) & TICKS_MASK
        core.edge(0, not core.is_down(0), hal.ticks)
    spent = _elapsed_ns(start)
    hal.quiet = False
    return spent // n


def cost_ns(n: int = 2000) -> int:
    """The core's cost per event here; on a Pico: ``import mpdrive; mpdrive.cost_ns()``."""
    hal = LineHal(lambda line: None)
    core = Core(hal, 4, debounce_us=0)
    core.active = True  # frames are built as for a listening host
    return time_edges(core, hal, n)


def serve(
    read_line: "Callable[[], str]", write: "Callable[[str], object]", flush: "Callable[[], object]"
) -> None:
    """Commands from ``read_line`` until ``q`` or the end; a ``.`` line after each."""

    def out(text: str) -> None:
        write(text + "\n")

    driver = Driver(out)
    while True:
        text = read_line()
        if not text or not driver.line(text):
            break
        out(".")
        flush()


def run_lines(lines: "list[str]") -> "list[str]":
    """Every output line of a whole command stream (the CPython side of a comparison)."""
    out: list[str] = []
    driver = Driver(out.append)
    for text in lines:
        if not driver.line(text):
            break
        out.append(".")
    return out


if __name__ == "__main__":
    serve(sys.stdin.readline, sys.stdout.write, getattr(sys.stdout, "flush", lambda: None))
