from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device

from companion.devices.pins import OpenedFactory, open_factory

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo_root(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, as the README's commands do."""
    monkeypatch.chdir(ROOT)
    return ROOT


@pytest.fixture
def opened() -> Iterator[OpenedFactory]:
    """A fresh MockFactory for each test, also as Device.pin_factory, reset afterwards."""
    before = Device.pin_factory
    opened = open_factory("mock")
    Device.pin_factory = opened.factory
    try:
        yield opened
    finally:
        opened.close()
        opened.factory.reset()
        Device.pin_factory = before
