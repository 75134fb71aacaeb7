"""On a real Raspberry Pi: ``auto`` opens lgpio, whose edges carry the kernel's stamps.

Marked ``pi`` and skipped anywhere else (run just these with ``pytest -m pi`` on the Pi).
"""

from __future__ import annotations

import glob
from pathlib import Path

import pytest

from companion.devices.pins import open_factory
from companion.signals import TimingClass

MODEL = Path("/proc/device-tree/model")


def pi_model() -> str:
    """The board's model string ("Raspberry Pi 5 Model B Rev 1.0"), or "" off a Pi."""
    try:
        return MODEL.read_bytes().rstrip(b"\0").decode("ascii", "replace")
    except OSError:
        return ""


def on_a_pi() -> bool:
    return "Raspberry Pi" in pi_model() and bool(glob.glob("/dev/gpiochip*"))


pytestmark = [
    pytest.mark.pi,
    pytest.mark.skipif(
        not on_a_pi(),
        reason="needs a Raspberry Pi (/proc/device-tree/model naming one, and a /dev/gpiochip*)",
    ),
]


def test_auto_opens_lgpio_with_kernel_edge_stamps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    with open_factory("auto") as opened:
        assert opened.name == "lgpio", opened.detail
        assert opened.timing is TimingClass.KERNEL_EDGE
        assert opened.detail.startswith("lgpio on /dev/gpiochip"), opened.detail
