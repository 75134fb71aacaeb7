"""Clocks as objects, so the referee's time can be the host's or a test's."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now_ns(self) -> int: ...


class MonotonicClock:
    """The host's monotonic clock: the same timeline the kernel stamps GPIO edges on."""

    def now_ns(self) -> int:
        return time.monotonic_ns()


class ManualClock:
    """A clock that moves only when told to: races are tested without sleeping."""

    def __init__(self, start_ns: int = 1_000_000_000) -> None:
        self.t = start_ns

    def now_ns(self) -> int:
        return self.t

    def advance(self, ns: int) -> int:
        self.t += ns
        return self.t

    def set(self, ns: int) -> int:
        self.t = max(self.t, ns)
        return self.t
