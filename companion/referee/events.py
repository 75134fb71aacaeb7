"""What the referee hears: edges with the stamp the hardware gave them.

Every stamp is an integer of nanoseconds on the host's monotonic timeline (the one
``time.monotonic_ns()`` reads: CLOCK_MONOTONIC on Linux, which is also the clock the kernel
stamps GPIO edges with). A source that stamps elsewhere (the Pico's microsecond timer)
maps its stamps onto this timeline before handing them over, and says how sure it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class TimingClass(StrEnum):
    """Where a stamp was taken, which bounds how finely two presses can be ordered."""

    KERNEL_EDGE = "kernel_edge"  # lgpio: the kernel stamps the edge in its interrupt handler
    MCU_TIMER = "mcu_timer"  # the Pico bridge: the microcontroller's microsecond timer
    CALLBACK = "callback"  # RPi.GPIO / native: time.monotonic() when Python's callback ran
    SAMPLED = "sampled"  # pigpio: 5 us DMA samples (not on a Pi 5)
    MOCK = "mock"  # gpiozero MockFactory: stamped when the test drives the pin
    KEYBOARD = "keyboard"  # the demo's keys: stamped when the terminal delivered the key


# Typical worst-case error of one stamp, in microseconds, per class. A source may state a
# different figure (the bridge states the error bar of its clock sync).
DEFAULT_UNCERTAINTY_US: dict[TimingClass, int] = {
    TimingClass.KERNEL_EDGE: 20,
    TimingClass.MCU_TIMER: 50,
    TimingClass.CALLBACK: 5_000,
    TimingClass.SAMPLED: 5,
    TimingClass.MOCK: 1,
    TimingClass.KEYBOARD: 20_000,
}


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """A press source as the referee reports it at start and in the journal."""

    name: str  # "gpio", "bridge", "keyboard"
    timing: TimingClass
    uncertainty_us: int
    detail: str = ""  # e.g. "lgpio on /dev/gpiochip4"


@dataclass(frozen=True, slots=True)
class Edge:
    """A button changed state: pressed (the slap) or released."""

    player: str
    pressed: bool
    stamp_ns: int  # host monotonic nanoseconds, as stamped at the edge
    source: str  # SourceInfo.name
    seq: int  # per-source sequence number, to spot gaps and duplicates


@dataclass(frozen=True, slots=True)
class Reveal:
    """The instant the cards were turned over: the end of the countdown, or a button."""

    stamp_ns: int
    how: str  # "countdown", "button", "key"


def effective_tie_window_us(configured_us: int, sources: list[SourceInfo]) -> tuple[int, str]:
    """The tie window the referee may honestly use, and a warning if it had to raise it.

    Two stamps from one source can be misordered by up to that source's uncertainty; from two
    different sources, by the sum of both. A window finer than that would claim an order the
    stamps cannot support, so it is raised (C5 with honest clocks).
    """
    if not sources:
        return configured_us, ""
    ordered = sorted((s.uncertainty_us for s in sources), reverse=True)
    floor = ordered[0] if len(ordered) == 1 else ordered[0] + ordered[1]
    if configured_us >= floor:
        return configured_us, ""
    names = ", ".join(f"{s.name} ±{s.uncertainty_us} us" for s in sources)
    return (
        floor,
        f"tie window raised from {configured_us} to {floor} us to match the clocks ({names})",
    )
