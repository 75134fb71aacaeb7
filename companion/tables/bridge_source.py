"""The Pico bridge as one of the table's press sources: the adapter between two vocabularies.

``firmware_bridge`` is a library of its own (it imports nothing from companion): it speaks
of :class:`~firmware_bridge.events.BridgeEdge`, :class:`~firmware_bridge.events.StampAccuracy`
and :class:`~firmware_bridge.errors.BridgeError`. This module is the one place that turns
them into the table's :class:`~companion.signals.ButtonEdge`, :class:`SourceInfo` (timing
class MCU_TIMER, the error bar the bridge states) and the project's own errors, so a
missing Pico is one line and exit status 2 at the command line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from companion.errors import ConfigError, HardwareError, InputError
from companion.signals import ButtonEdge, SourceInfo, TimingClass
from firmware_bridge.codec import FrameError
from firmware_bridge.errors import BridgeConfigError, BridgeError
from firmware_bridge.events import BridgeEdge
from firmware_bridge.host import BridgeClient


@contextmanager
def bridge_errors(where: str = "bridge.buttons") -> Iterator[None]:
    """Raise the bridge's errors as companion's: a bad frame as InputError, bad settings
    as ConfigError naming ``where``, anything else (no Pico, no answer) as HardwareError."""
    try:
        yield
    except FrameError as exc:
        raise InputError(exc.where, exc.message) from None
    except BridgeConfigError as exc:
        raise ConfigError(where, str(exc)) from None
    except BridgeError as exc:
        raise HardwareError(str(exc)) from None


def to_button_edge(edge: BridgeEdge) -> ButtonEdge:
    """The bridge's edge in the table's words (the player name; the button index stays
    behind in the bridge)."""
    return ButtonEdge(edge.player, edge.pressed, edge.stamp_ns, edge.source, edge.seq)


class BridgePresses:
    """An open bridge as a press source: ``info``, ``held()``, ``close()``."""

    def __init__(self, client: BridgeClient) -> None:
        self.client = client

    @property
    def info(self) -> SourceInfo:
        """MCU timer stamps, with the stamping and clock-sync error bar the bridge states."""
        accuracy = self.client.accuracy
        return SourceInfo(
            accuracy.source, TimingClass.MCU_TIMER, accuracy.uncertainty_us, accuracy.detail
        )

    def held(self) -> list[str]:
        """Players whose button is down now (as the Pico last reported), sorted."""
        return sorted(self.client.held())

    def close(self) -> None:
        self.client.close()


def open_bridge_presses(
    buttons: Mapping[str, int],
    sink: Callable[[ButtonEdge], None],
    port: str | None,
    notify: Callable[[str], None] | None,
) -> BridgePresses:
    """Connect to the Pico (``port`` None: found automatically) and hand every edge to
    ``sink`` as a ButtonEdge, on the bridge's reader thread (so ``sink`` must only queue it).
    Raises HardwareError when no bridge answers, ConfigError for a button given twice."""

    def forward(edge: BridgeEdge) -> None:
        sink(to_button_edge(edge))

    with bridge_errors():
        client = BridgeClient(buttons, forward, port or "auto", notify=notify)
    return BridgePresses(client)
