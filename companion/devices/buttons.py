"""Slap buttons as a press source: every edge, with the stamp the pin driver gave it.

gpiozero's Button hides the edge's stamp (``when_pressed`` gets no ticks) and its
``bounce_time`` would move the stamp (lgpio's debounce reports the last bounce plus the
debounce time), so the buttons are watched at the pin: ``when_changed(ticks, state)`` on
both edges, no bounce filter. Debouncing is the referee's job, in software, on the raw
edges. Buttons are wired active-low to the internal pull-up: pressed is low.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Mapping
from typing import Any

from gpiozero import InputDevice

from companion.devices.pins import OpenedFactory
from companion.errors import HardwareError
from companion.signals import ButtonEdge, RevealStamp, SourceInfo

log = logging.getLogger(__name__)

PinCallback = Callable[[float, int], None]


def _watch(pin: int, opened: OpenedFactory, what: str, callback: PinCallback) -> Any:
    """An input pin pulled up, reporting both edges unfiltered to ``callback``.

    An InputDevice holds the pin so gpiozero's reservations still stop an LED or a second
    button from claiming it, and closing it releases the pin; the callback itself sits on
    the pin, where the ticks are.
    """
    try:
        device = InputDevice(pin, pull_up=True, pin_factory=opened.factory)
    except Exception as exc:  # gpiozero, lgpio and OS errors alike: one message
        raise HardwareError(f"{what} on GPIO{pin}: {' '.join(str(exc).split())}") from exc
    try:
        gpio = device.pin
        gpio.edges = "both"
        gpio.bounce = None  # never debounce in the driver: it would move the stamp
        gpio.when_changed = callback  # gpiozero keeps only a weak reference
    except Exception as exc:
        device.close()
        raise HardwareError(f"{what} on GPIO{pin}: {' '.join(str(exc).split())}") from exc
    return device


def _unwatch(device: Any) -> None:
    if device.closed:
        return
    device.pin.when_changed = None  # some drivers' pin.close() leaves the callback armed
    device.close()


class GpioPressSource:
    """The players' slap buttons on GPIO, handing each edge to ``sink`` as an ButtonEdge.

    ``sink`` runs on the pin driver's thread (lgpio's alert thread, RPi.GPIO's callback
    thread, or the test that drives a mock pin), so it must only queue the edge.
    """

    def __init__(
        self,
        buttons: Mapping[str, int],
        opened: OpenedFactory,
        sink: Callable[[ButtonEdge], None],
        name: str = "gpio",
    ) -> None:
        self._opened = opened
        self._name = name
        self._devices: dict[str, Any] = {}
        # Strong references: gpiozero holds the pin callbacks only weakly.
        self._callbacks: list[PinCallback] = []
        self._pins = dict(buttons)
        seq = itertools.count()  # next() on a count is atomic under the GIL: no lock
        try:
            for player, pin in buttons.items():
                callback = self._callback(player, sink, seq)
                self._callbacks.append(callback)
                self._devices[player] = _watch(pin, opened, f"{player}'s button", callback)
        except BaseException:
            self.close()
            raise

    def _callback(
        self, player: str, sink: Callable[[ButtonEdge], None], seq: itertools.count[int]
    ) -> PinCallback:
        to_ns = self._opened.ticks_to_ns
        source = self._name

        def on_change(ticks: float, state: int) -> None:
            if state not in (0, 1):  # lgpio reports a watchdog timeout as level 2
                return
            edge = ButtonEdge(player, not state, to_ns(ticks), source, next(seq))
            try:
                sink(edge)
            except Exception:  # never let a sink error kill the driver's thread
                log.exception("press sink failed on %s", edge)

        return on_change

    @property
    def info(self) -> SourceInfo:
        """How this source stamps, for the referee's start report and the journal."""
        pins = ", ".join(f"{p}=GPIO{n}" for p, n in self._pins.items())
        detail = f"{self._opened.detail}; {pins}" if pins else self._opened.detail
        return SourceInfo(self._name, self._opened.timing, self._opened.uncertainty_us, detail)

    def held(self) -> frozenset[str]:
        """Players whose button is down right now (a button held at start is stuck)."""
        return frozenset(p for p, d in self._devices.items() if not d.closed and not d.pin.state)

    def close(self) -> None:
        """Stop reporting and release the pins; safe to call twice."""
        for device in self._devices.values():
            _unwatch(device)
        self._devices.clear()
        self._callbacks.clear()


class GpioRevealButton:
    """A dedicated button whose press is the reveal instant (``reveal = "button"``).

    Only the press edge counts; every press edge is reported (bounce included), and the
    referee keeps the one it needs.
    """

    def __init__(
        self, pin: int, opened: OpenedFactory, sink: Callable[[RevealStamp], None]
    ) -> None:
        to_ns = opened.ticks_to_ns

        def on_change(ticks: float, state: int) -> None:
            if state != 0:  # released (1) or lgpio's watchdog (2)
                return
            try:
                sink(RevealStamp(to_ns(ticks), "button"))
            except Exception:  # never let a sink error kill the driver's thread
                log.exception("reveal sink failed")

        self._callback: PinCallback = on_change  # strong reference, see GpioPressSource
        self._device = _watch(pin, opened, "the reveal button", on_change)

    def close(self) -> None:
        """Stop reporting and release the pin; safe to call twice."""
        _unwatch(self._device)
