"""The bridge's own exceptions, so the library stands alone (it imports nothing of companion).

Each also subclasses the builtin a caller would naturally catch, as the project's own
errors do; an application maps them onto its own family at the edge (companion does so in
``companion/tables/bridge_source.py``).
"""

from __future__ import annotations


class BridgeError(Exception):
    """Base of every error the bridge raises on purpose."""


class BridgeDeviceError(BridgeError, RuntimeError):
    """No Pico on the port, no answer, another protocol major, a clock not yet synchronised."""


class BridgeConfigError(BridgeError, ValueError):
    """Settings that cannot work as they stand (one Pico button given to two players)."""


class LinkStateError(BridgeError, RuntimeError):
    """A move of the link's state machine that its transition table does not allow (a bug)."""
