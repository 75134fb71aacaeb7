"""The Pico bridge as a press source for a table: the one door from tables/ to the bridge.

A table opens the Pico only through :func:`open_bridge_presses`, so the bridge library
stays free to change inside; what the table sees is a :class:`BridgePresses`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Protocol

from companion.signals import ButtonEdge, SourceInfo


class BridgePresses(Protocol):
    """Slap buttons on the Pico: how they stamp, which are down now, and closing."""

    @property
    def info(self) -> SourceInfo: ...

    def held(self) -> Collection[str]: ...

    def close(self) -> None: ...


def open_bridge_presses(
    buttons: Mapping[str, int],
    sink: Callable[[ButtonEdge], None],
    port: str | None,
    notify: Callable[[str], None] | None,
) -> BridgePresses:
    """Connect to the Pico (``port`` None or ``"auto"``: find it) and hand each edge of
    the players' buttons (player -> Pico button index) to ``sink`` on the bridge's thread."""
    from firmware_bridge.host import BridgeClient

    return BridgeClient(buttons, sink, port or "auto", notify=notify)
