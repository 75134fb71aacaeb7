"""The Pico bridge as an application sees it: a press source and a card-reveal source.

:class:`BridgeClient` opens the port, runs :class:`~firmware_bridge.session.BridgeSession`
(the protocol) on :class:`~firmware_bridge.transport.Transport`'s reader thread, and hands
each edge to a sink as a :class:`~firmware_bridge.events.BridgeEdge`. How far its stamps can
be trusted is :attr:`BridgeClient.accuracy`; every timing knob is one
:class:`~firmware_bridge.link.BridgeTiming`. It raises only the bridge's own errors
(:mod:`firmware_bridge.errors`); an application adapts them (and the edges) to its own
vocabulary.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from firmware_bridge import codec
from firmware_bridge.errors import BridgeDeviceError
from firmware_bridge.events import BridgeEdge, CardRead, StampAccuracy
from firmware_bridge.link import BridgeTiming
from firmware_bridge.seq import SeqTracker
from firmware_bridge.session import BridgeSession, Identity
from firmware_bridge.transport import CommandHandle, SerialPort, Transport, open_serial

__all__ = [
    "BridgeClient",
    "BridgeEdge",
    "BridgeSession",
    "BridgeTiming",
    "CardRead",
    "Identity",
    "SeqTracker",
    "StampAccuracy",
    "TagPush",
]

log = logging.getLogger(__name__)


class TagPush(Protocol):
    """A tag reader fed from outside (``companion.tags.readers.CallbackReader``'s shape)."""

    def push(self, index: int, uid: bytes) -> None: ...


class BridgeClient:
    """The Pico bridge as a press source (and card-reveal source).

    Opens the port (``"auto"``, a path or a pyserial URL), handshakes and synchronises the
    clock, then hands each edge to ``sink`` on the reader thread (so ``sink`` must only
    queue it). ``buttons`` maps players to the Pico's button indexes. Raises
    :class:`~firmware_bridge.errors.BridgeDeviceError` if no bridge answers within
    ``timing.connect_timeout_s``, or if it speaks another protocol major
    (:class:`~firmware_bridge.errors.BridgeConfigError` for a button given twice). Once
    running it reconnects by itself after an unplug, and the game goes on.
    """

    def __init__(
        self,
        buttons: Mapping[str, int],
        sink: Callable[[BridgeEdge], None],
        port: str = "auto",
        *,
        on_card: Callable[[CardRead], None] | None = None,
        notify: Callable[[str], None] | None = None,
        name: str = "bridge",
        timing: BridgeTiming | None = None,
        now_ns: Callable[[], int] = time.monotonic_ns,
        opener: Callable[[str], SerialPort] = open_serial,
    ) -> None:
        self.name = name
        self.port = port
        self.timing = timing = timing or BridgeTiming()
        self._now = now_ns
        self._notify = notify or (lambda message: log.info("%s", message))
        self._card_lock = threading.Lock()
        self._card_listeners: list[Callable[[CardRead], None]] = [on_card] if on_card else []
        self.session = BridgeSession(
            buttons, self._send, sink, self._card, self._notify, name=name, timing=timing
        )
        self.transport = Transport(
            port,
            self.session.receive,
            self._link,
            self._tick,
            now_ns=now_ns,
            opener=opener,
            timing=timing,
            name=name,
        )
        self._closed = False
        self.transport.start()
        if not self.wait_ready(timing.connect_timeout_s):
            reason = self.session.fatal or self.transport.last_error or "no answer"
            self.close()
            if self.session.fatal:
                raise BridgeDeviceError(self.session.fatal)
            raise BridgeDeviceError(
                f"{name}: no bridge on {port} within {timing.connect_timeout_s:g} s: {reason}"
            )

    def _send(self, mtype: int, fields: tuple[int, ...], tail: bytes) -> int | None:
        return self.transport.send(mtype, fields, tail)

    def _link(self, up: bool, detail: str) -> None:
        if up:
            self.session.link_up(self._now())
        else:
            self.session.link_down(detail, quiet=self._closed)

    def _tick(self, now_ns: int) -> str | None:
        reason = self.session.tick(now_ns)
        if self.session.fatal:
            return self.session.fatal
        return reason

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until the bridge is connected and its clock synchronised."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if self.session.ready.wait(0.05 if remaining is None else min(0.05, remaining)):
                return True
            if self.session.fatal or (remaining is not None and remaining <= 0):
                return False

    # -- the press source -----------------------------------------------------------------

    @property
    def accuracy(self) -> StampAccuracy:
        """How this bridge stamps: the stamping and clock-sync error bar, for a person too."""
        s = self.session
        ident = s.identity
        clock = s.clock
        if ident is None or not clock.synced:
            return StampAccuracy(
                self.name, s.uncertainty_us(), False, f"not synchronised ({self.port})"
            )
        detail = (
            f"Pico on {self.port}, firmware {ident.firmware}, {ident.stamping} stamps "
            f"±{ident.stamp_err_us} us, clock sync ±{clock.uncertainty_us():.0f} us "
            f"(best round trip {clock.best_rtt_us:.0f} us, drift {clock.drift_ppm:+.1f} ppm)"
        )
        return StampAccuracy(self.name, s.uncertainty_us(), True, detail)

    def held(self) -> frozenset[str]:
        """Players whose button is down now (as the Pico last reported)."""
        return self.session.held()

    @property
    def connected(self) -> bool:
        return self.session.ready.is_set()

    # -- the card-reveal source -----------------------------------------------------------

    def _card(self, read: CardRead) -> None:
        with self._card_lock:
            listeners = list(self._card_listeners)
        for listener in listeners:
            try:
                listener(read)
            except Exception:  # one bad listener must not starve the others
                log.exception("%s: card listener failed on %s", self.name, read)

    def add_card_listener(self, listener: Callable[[CardRead], None]) -> Callable[[], None]:
        """Also hand every card read to ``listener`` (on the reader thread); returns a
        function that stops it."""
        with self._card_lock:
            self._card_listeners.append(listener)

        def remove() -> None:
            with self._card_lock:
                if listener in self._card_listeners:
                    self._card_listeners.remove(listener)

        return remove

    def tag_hook(self) -> Callable[[TagPush], Callable[[], None]]:
        """A hook for ``companion.tags.readers.set_bridge_hook``: it pushes the bridge's
        card reads (reader index, UID bytes) into the reader it is given, until stopped."""

        def hook(reader: TagPush) -> Callable[[], None]:
            return self.add_card_listener(
                lambda read: reader.push(read.reader, bytes.fromhex(read.uid))
            )

        return hook

    # -- outputs --------------------------------------------------------------------------

    def led(
        self, index: int, mode: int, on_ms: int = 0, off_ms: int = 0, count: int = 0
    ) -> CommandHandle:
        """Set one of the Pico's LEDs (codec.LED_OFF / LED_ON / LED_BLINK); never blocks."""
        return self.transport.command(codec.LED, (index, mode, on_ms, off_ms, count))

    def buzz(self, duration_ms: int, freq_hz: int = 0) -> CommandHandle:
        return self.transport.command(codec.BUZZ, (freq_hz, duration_ms))

    def configure(self, debounce_us: int, heartbeat_ms: int = 250) -> CommandHandle:
        return self.transport.command(codec.CONFIG, (debounce_us, heartbeat_ms))

    # -- status ---------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        return {
            "link": self.transport.snapshot(),
            "session": self.session.counters(),
            "clock": self.session.clock.summary(),
            "state": self.session.state.value,
        }

    def close(self) -> None:
        """Stop reading and close the port; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self.transport.close()
