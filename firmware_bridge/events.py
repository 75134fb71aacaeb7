"""What the bridge hands its caller: edges, card reads and how far its stamps can be trusted.

Plain data in the bridge's own terms; an application converts them into its vocabulary
(companion's adapter turns a :class:`BridgeEdge` into its ``ButtonEdge`` and a
:class:`StampAccuracy` into its ``SourceInfo``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BridgeEdge:
    """One of the Pico's buttons changed state, stamped on the host's monotonic timeline."""

    button: int  # the Pico's button index
    player: str  # the name the caller gave that button
    pressed: bool
    stamp_ns: int  # the Pico's stamp mapped to host monotonic nanoseconds
    source: str  # the bridge's name
    seq: int  # the bridge's own count of edges delivered: 0, 1, 2 ...


@dataclass(frozen=True, slots=True)
class CardRead:
    """A tag came onto one of the Pico's card readers."""

    reader: int
    uid: str  # the tag's UID in upper-case hex, as tag files name it: "04A1B2C3D4E580"
    stamp_ns: int  # host monotonic nanoseconds
    seq: int  # the Pico's event number


@dataclass(frozen=True, slots=True)
class StampAccuracy:
    """How far a mapped stamp may be from the true instant: the Pico's stamping error plus
    the clock sync's error bar (wide while no PONG has come back)."""

    source: str  # the bridge's name
    uncertainty_us: int
    synced: bool
    detail: str  # for a person: port, firmware, stamping, the sync's figures
