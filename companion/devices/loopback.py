"""``companion bench loopback``'s pin work: one jumper wire from an output pin to an input
pin, edges driven on one and stamped on the other, and which stamp belongs to which drive.

The stamp is what the pin driver hands the edge callback (lgpio: the kernel's stamp from
its interrupt handler); the drive instant is read just before the output is written, so
the stamp error is the write plus the edge's way to the stamp. Pairing drives to stamps
is a pure function (:func:`pair_edges`), so a lost or an extra edge is counted the same
way on a Pi, on mock pins and in a test.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpiozero.pins.mock import MockConnectedPin, MockFactory

from companion.devices.pins import OpenedFactory

WAIT_S = 0.05  # an edge not stamped by then is counted lost (a real one takes microseconds)


@dataclass(frozen=True, slots=True)
class Drive:
    """One write to the output pin: the level written, the monotonic ns just before it."""

    level: bool
    at_ns: int


@dataclass(frozen=True, slots=True)
class Stamp:
    """One edge seen on the input pin: its level, the driver's stamp, when the callback ran."""

    level: bool
    stamp_ns: int
    seen_ns: int


@dataclass(frozen=True, slots=True)
class Pairing:
    """Each drive with the stamp that belongs to it; drives with none; stamps of none."""

    pairs: tuple[tuple[Drive, Stamp], ...]
    lost: int
    extra: int


def pair_edges(drives: Sequence[Drive], stamps: Sequence[Stamp], slack_ns: int = 0) -> Pairing:
    """Drive i owns the first stamp of its level from its instant (less ``slack_ns``) up to
    the next drive's; a drive that owns none is lost, every other stamp is extra (a bounce,
    a glitch, an edge of a drive already counted lost)."""
    drives = sorted(drives, key=lambda d: d.at_ns)
    stamps = sorted(stamps, key=lambda s: s.stamp_ns)
    times = [s.stamp_ns for s in stamps]
    pairs: list[tuple[Drive, Stamp]] = []
    used = 0
    for i, drive in enumerate(drives):
        start = bisect.bisect_left(times, drive.at_ns - slack_ns)
        end = (
            bisect.bisect_left(times, drives[i + 1].at_ns - slack_ns)
            if i + 1 < len(drives)
            else len(times)
        )
        owned = next((s for s in stamps[start:end] if s.level == drive.level), None)
        if owned is not None:
            pairs.append((drive, owned))
            used += 1
    return Pairing(tuple(pairs), len(drives) - len(pairs), len(stamps) - used)


class Loopback:
    """The two pins of the wire, held open: ``run`` drives edges and collects stamps."""

    def __init__(self, out_pin: Any, in_pin: Any, ticks_to_ns: Callable[[float], int]) -> None:
        self.out_pin = out_pin
        self.in_pin = in_pin
        self.ticks_to_ns = ticks_to_ns
        self.stamps: list[Stamp] = []
        self.arrived = threading.Event()
        out_pin.output_with_state(False)
        in_pin.function = "input"
        in_pin.pull = "down"  # an unplugged wire reads low: every edge is lost, none invented
        in_pin.edges = "both"
        in_pin.when_changed = self._on_edge

    def _on_edge(self, ticks: float, state: Any) -> None:
        self.stamps.append(Stamp(bool(state), self.ticks_to_ns(ticks), time.monotonic_ns()))
        self.arrived.set()

    def run(self, edges: int, gap_s: float = 0.0005, wait_s: float = WAIT_S) -> Pairing:
        """``edges`` writes alternating high and low, each awaited (up to ``wait_s``)."""
        self.stamps = []
        drives: list[Drive] = []
        level = not bool(self.out_pin.state)
        for _ in range(edges):
            self.arrived.clear()
            drives.append(Drive(level, time.monotonic_ns()))
            self.out_pin.state = level
            self.arrived.wait(wait_s)
            level = not level
            time.sleep(gap_s)
        time.sleep(wait_s)  # a late edge is counted where it belongs, not as the next one's
        return pair_edges(drives, list(self.stamps))

    def close(self) -> None:
        self.in_pin.when_changed = None
        self.in_pin.close()
        self.out_pin.close()


def open_loopback(opened: OpenedFactory, out_gpio: int, in_gpio: int) -> Loopback:
    """The wire's two pins; on mock pins the wire is gpiozero's MockConnectedPin (the output
    drives the input as the jumper would)."""
    factory = opened.factory
    in_pin = factory.pin(in_gpio)
    if isinstance(factory, MockFactory):
        out_pin = factory.pin(out_gpio, pin_class=MockConnectedPin, input_pin=in_pin)
    else:
        out_pin = factory.pin(out_gpio)
    return Loopback(out_pin, in_pin, opened.ticks_to_ns)
