"""Finding the wiring by watching the pins: for ``companion setup``.

Every free GPIO input is watched with its pull-up on, so a button wired from a pin to
ground shows itself when pressed; outputs are driven one at a time so a person can say
which LED lit or whether the buzzer beeped. Which pins an enabled interface (I2C, SPI,
UART) holds is read from the Pi's boot config. On mock pins, :class:`SimulatedTable`
stands in for the maker's hands: it presses the buttons of a table wired as the example
pin map, with the faults a test asks for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpiozero import DigitalOutputDevice, InputDevice, PWMOutputDevice

from companion.devices.pins import OpenedFactory
from companion.devices.wiring import BCM_TO_BOARD, HAT_ID_PINS
from companion.errors import HardwareError

# The pins each interface takes while it is enabled (BCM numbers).
INTERFACE_PINS: dict[str, tuple[int, ...]] = {
    "I2C": (2, 3),
    "SPI": (7, 8, 9, 10, 11),
    "UART": (14, 15),
}
BOOT_CONFIGS = (Path("/boot/firmware/config.txt"), Path("/boot/config.txt"))
# GPIO2 to GPIO27: the header's GPIOs less the HAT ID pins, which the Pi reads at boot.
FREE_CANDIDATES = tuple(p for p in sorted(BCM_TO_BOARD) if p not in HAT_ID_PINS)
_ENABLING = {
    "I2C": ("dtparam=i2c_arm=on", "dtparam=i2c=on"),
    "SPI": ("dtparam=spi=on",),
    "UART": ("enable_uart=1",),
}


def enabled_interfaces(config_text: str) -> set[str]:
    """The interfaces a Pi's config.txt enables (lines in any section; comments skipped)."""
    lines = {"".join(line.split("#", 1)[0].split()).lower() for line in config_text.splitlines()}
    return {name for name, keys in _ENABLING.items() if lines & set(keys)}


@dataclass(frozen=True)
class Reservations:
    """The pins an interface holds, and where that was read (None: no boot config)."""

    pins: dict[int, str]  # pin -> "I2C", "SPI" or "UART"
    source: str | None

    def line(self) -> str:
        """One line saying which pins are reserved, and why."""
        spans = "; ".join(
            f"{name} on {', '.join(f'GPIO{p}' for p in pins)}"
            for name, pins in INTERFACE_PINS.items()
        )
        if self.source is None:
            return f"no Pi boot config read: reserved when enabled: {spans}"
        held = sorted({v for v in self.pins.values()})
        if not held:
            return f"{self.source}: no I2C, SPI or UART enabled; every GPIO is free"
        return f"{self.source}: {', '.join(held)} enabled, their pins are reserved ({spans})"


def read_reservations(paths: Sequence[Path] = BOOT_CONFIGS) -> Reservations:
    """The first boot config found among ``paths``, read (never written)."""
    for path in paths:
        try:
            text = path.read_bytes()[:1_000_000].decode("utf-8", "replace")
        except OSError:
            continue
        enabled = enabled_interfaces(text)
        pins = {p: name for name in enabled for p in INTERFACE_PINS[name]}
        return Reservations(pins, str(path))
    return Reservations({}, None)


@dataclass(frozen=True)
class PinEdge:
    pin: int
    pressed: bool  # low: the pull-up is pulled to ground
    stamp_ns: int


@dataclass
class PinWatch:
    """Every pin in ``pins`` as an input with its pull-up on, each edge recorded.

    A pin that cannot be opened (another program holds it) is left out and named in
    :attr:`unopened` with the driver's reason.
    """

    opened: OpenedFactory
    pins: Iterable[int]
    stamp: Callable[[float], int] | None = None  # ticks -> ns; None: the factory's clock
    unopened: dict[int, str] = field(default_factory=dict)
    _devices: dict[int, Any] = field(default_factory=dict)
    _edges: list[PinEdge] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _callbacks: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        for pin in self.pins:
            try:
                device = InputDevice(pin, pull_up=True, pin_factory=self.opened.factory)
                device.pin.edges = "both"
                device.pin.bounce = None
            except Exception as exc:  # busy, not exported, a driver error: one line
                self.unopened[pin] = " ".join(str(exc).split()) or type(exc).__name__
                continue
            callback = self._callback(pin)
            self._callbacks.append(callback)  # gpiozero holds it weakly
            device.pin.when_changed = callback
            self._devices[pin] = device

    def _callback(self, pin: int) -> Any:
        to_ns = self.stamp or self.opened.ticks_to_ns

        def on_change(ticks: float, state: int) -> None:
            if state in (0, 1):
                with self._lock:
                    self._edges.append(PinEdge(pin, not state, to_ns(ticks)))

        return on_change

    @property
    def watched(self) -> tuple[int, ...]:
        return tuple(sorted(self._devices))

    def low_now(self) -> set[int]:
        """The watched pins that read low (pressed) right now."""
        return {p for p, d in self._devices.items() if not d.pin.state}

    def take(self) -> list[PinEdge]:
        """The edges since the last take, in stamp order."""
        with self._lock:
            edges, self._edges = self._edges, []
        return sorted(edges, key=lambda e: e.stamp_ns)

    def release(self, pins: Iterable[int]) -> None:
        """Stop watching ``pins`` (to drive them as outputs, or because they are refused)."""
        for pin in pins:
            device = self._devices.pop(pin, None)
            if device is not None:
                device.pin.when_changed = None
                device.close()

    def close(self) -> None:
        self.release(list(self._devices))


def light(opened: OpenedFactory, pin: int) -> Any:
    """Drive ``pin`` high (an LED to ground through its resistor lights); close to stop."""
    try:
        return DigitalOutputDevice(pin, pin_factory=opened.factory, initial_value=True)
    except Exception as exc:  # busy, a driver error: one line, as every device here
        raise HardwareError(f"GPIO{pin} as an output: {' '.join(str(exc).split())}") from exc


def tone(opened: OpenedFactory, pin: int, hz: float = 2000.0) -> Any:
    """A square wave on ``pin``, for a passive buzzer (an active one sounds on high)."""
    try:
        return PWMOutputDevice(pin, pin_factory=opened.factory, frequency=hz, initial_value=0.5)
    except Exception as exc:
        raise HardwareError(f"GPIO{pin} as a tone: {' '.join(str(exc).split())}") from exc


# What a person sees when each output pin of the example table is driven high.
EXAMPLE_OUTPUTS = {
    5: "the first seat's LED",
    6: "the second seat's LED",
    13: "the third seat's LED",
    19: "the fourth seat's LED",
    18: "the buzzer (a steady tone: active)",
    20: "the status LED",
}


@dataclass
class SimulatedTable:
    """The maker's hands on mock pins: a table wired as hardware/pinmap.example.toml.

    ``buttons`` are pressed in order, one per :meth:`press_next`; ``nc`` pins read pressed
    at rest, ``floating`` pins change by themselves, ``shorts`` pull a second pin down with
    the first. ``bounce`` extra edges on each press and release make a bouncy switch,
    ``bounce_us`` apart. Its edges are stamped on its own clock (:meth:`stamp`, for the
    watch), which moves by the simulated times, so a profile taken on it is the same on a
    loaded machine: the mock's figures are the simulation's, never a measurement.
    """

    opened: OpenedFactory
    buttons: list[int] = field(default_factory=lambda: [17, 27, 22, 23])
    reveal: int = 21
    nc: set[int] = field(default_factory=set)
    floating: set[int] = field(default_factory=set)
    shorts: dict[int, int] = field(default_factory=dict)
    bounce: int = 0
    bounce_us: int = 300
    hold_ms: int = 80
    wear_us: int = 0  # added to a button's bounce_us at each of its presses: wearing out
    worn: dict[int, int] = field(default_factory=dict)  # pin -> presses so far
    leds: dict[int, str] = field(default_factory=lambda: dict(EXAMPLE_OUTPUTS))
    presses: int = 0
    now_ns: int = 0

    def stamp(self, ticks: float) -> int:
        """The simulated instant of the edge being driven (the watch's stamp)."""
        return self.now_ns

    def _pin(self, pin: int) -> Any:
        return self.opened.factory.pin(pin)

    def _set(self, pin: int, low: bool) -> None:
        mock = self._pin(pin)
        if mock.function != "input":
            return
        mock.drive_low() if low else mock.drive_high()

    def at_rest(self) -> None:
        """What the wiring does with nobody touching it: NC contacts closed, floating noise."""
        for pin in self.nc:
            self._set(pin, True)
        for pin in self.floating:
            for low in (True, False, True, False):
                self._set(pin, low)
                self.now_ns += 7_000_000

    def press(self, pin: int) -> None:
        """One press and release of the button on ``pin`` (with its short and bounce)."""
        pins = [pin, *([self.shorts[pin]] if pin in self.shorts else [])]
        spacing_ns = (self.bounce_us + self.wear_us * self.worn.get(pin, 0)) * 1000
        for level, after_ms in ((True, self.hold_ms), (False, 3 * self.hold_ms)):
            for _ in range(self.bounce):
                for p in pins:
                    self._set(p, level)
                self.now_ns += spacing_ns
                for p in pins:
                    self._set(p, not level)
                self.now_ns += spacing_ns
            for p in pins:
                self._set(p, level)
            self.now_ns += after_ms * 1_000_000
        self.presses += 1
        self.worn[pin] = self.worn.get(pin, 0) + 1

    def press_next(self, reveal: bool = False) -> int | None:
        """Press the next seat's button (or the reveal button); None when none is left."""
        if reveal:
            self.press(self.reveal)
            return self.reveal
        if not self.buttons:
            return None
        pin = self.buttons.pop(0)
        self.press(pin)
        return pin

    def lit(self, pin: int) -> str:
        """What a person would see with ``pin`` driven: the LED or buzzer wired there."""
        return self.leds.get(pin, "nothing")
