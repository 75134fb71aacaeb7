"""gpiozero at the table: the pin factory and its clock, slap buttons, LEDs and buzzer.

Hardware never decides rules: buttons only report stamped edges, outputs only render
the referee's cues.
"""

from __future__ import annotations

from companion.devices.buttons import GpioPressSource, GpioRevealButton
from companion.devices.outputs import TableOutputs
from companion.devices.pins import OpenedFactory, open_factory

__all__ = [
    "GpioPressSource",
    "GpioRevealButton",
    "OpenedFactory",
    "TableOutputs",
    "open_factory",
]
