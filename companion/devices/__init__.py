"""gpiozero at the table: the pin factory and its clock, slap buttons, LEDs and buzzer.

Hardware never decides rules: buttons only report stamped edges, outputs only render
the referee's cues. :mod:`companion.devices.wiring` reads the wiring from a config
without importing gpiozero; the devices themselves are imported when first named here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.devices.buttons import GpioPressSource, GpioRevealButton
    from companion.devices.outputs import TableOutputs
    from companion.devices.pins import OpenedFactory, open_factory

_EXPORTS = {
    "GpioPressSource": "companion.devices.buttons",
    "GpioRevealButton": "companion.devices.buttons",
    "OpenedFactory": "companion.devices.pins",
    "TableOutputs": "companion.devices.outputs",
    "open_factory": "companion.devices.pins",
}

__all__ = [
    "GpioPressSource",
    "GpioRevealButton",
    "OpenedFactory",
    "TableOutputs",
    "open_factory",
]


def __getattr__(name: str) -> Any:
    """Import a device's module on first use, so reading wiring never loads gpiozero."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
