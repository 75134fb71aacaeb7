"""The bridge protocol on the host side, with no port and no thread.

:class:`BridgeSession` is the handshake (HELLO, IDENTIFY, versions), clock sync by
PING/PONG, edges mapped to host time, duplicates and gaps by sequence number, resumption
after a reconnect. Its state is a :class:`~firmware_bridge.link.LinkState` moved only along
the declared transitions; each message type has one handler in a table. It is driven by
:class:`~firmware_bridge.transport.Transport` in :class:`~firmware_bridge.host.BridgeClient`,
and directly (on a simulated timeline) by :func:`firmware_bridge.sim.simulate_sync`.

Numbering. Each event from the Pico carries ``evseq`` (one count over all its events since
it booted) and each edge also its button's own ``bseq``. An edge is new only if both are:
so a frame repeated on the wire, or replayed by the Pico after a reconnect, is dropped,
and a missing number is counted as a gap. When the link comes back, the HELLO says "boot
B, I have everything up to evseq E": the Pico sends again what it still holds after E,
which recovers the edges that were in flight when the cable went. A Pico that rebooted
(another boot id) starts everything afresh, and says so.

Edges reach ``on_edge`` as :class:`~firmware_bridge.events.BridgeEdge` with ``source`` the
bridge's name and ``seq`` the bridge's own count of edges delivered (0, 1, 2 ...);
``stamp_ns`` is the Pico's stamp mapped to host monotonic nanoseconds.
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from firmware_bridge import codec
from firmware_bridge.clock import ClockModel
from firmware_bridge.errors import BridgeConfigError
from firmware_bridge.events import BridgeEdge, CardRead
from firmware_bridge.link import BridgeTiming, LinkState, check_move
from firmware_bridge.messages import (
    DECODERS,
    AckMsg,
    CardMsg,
    EdgeMsg,
    ErrorMsg,
    HeartbeatMsg,
    IdentifyMsg,
    OverflowMsg,
    PongMsg,
)
from firmware_bridge.seq import SeqTracker

log = logging.getLogger(__name__)

UNSYNCED_UNCERTAINTY_US = 10_000  # stated while no PONG has come back: nothing is known
NO_IDENTITY_STAMP_ERR_US = 100  # stated before IDENTIFY: a pin IRQ's worst case

SendFn = Callable[[int, tuple[int, ...], bytes], int | None]
Handler = Callable[[Any, int], None]  # (decoded message, receive time)

CAP_NAMES = {
    codec.CAP_PIO: "pio",
    codec.CAP_BUZZER: "buzzer",
    codec.CAP_LEDS: "leds",
    codec.CAP_PN532: "pn532",
    codec.CAP_RC522: "rc522",
}


MAX_PENDING = 256  # edges held while the clock syncs; beyond, the oldest are dropped


@dataclass(frozen=True, slots=True)
class Identity:
    """What the Pico said about itself in IDENTIFY."""

    proto_major: int
    proto_minor: int
    boot_id: int
    caps: int
    n_buttons: int
    n_leds: int
    n_readers: int
    stamp_err_us: int
    debounce_us: int
    firmware: str

    @classmethod
    def of(cls, msg: IdentifyMsg) -> Identity:
        return cls(
            msg.proto_major,
            msg.proto_minor,
            msg.boot_id,
            msg.caps,
            msg.n_buttons,
            msg.n_leds,
            msg.n_readers,
            msg.stamp_err_us,
            msg.debounce_us,
            msg.firmware,
        )

    @property
    def capabilities(self) -> list[str]:
        return [name for bit, name in CAP_NAMES.items() if self.caps & bit]

    @property
    def stamping(self) -> str:
        return "PIO" if self.caps & codec.CAP_PIO else "pin IRQ"


def players_by_button(buttons: Mapping[str, int], name: str) -> dict[int, str]:
    """Invert player -> button, refusing a button given to two players."""
    players: dict[int, str] = {}
    for player, index in buttons.items():
        if index in players:
            raise BridgeConfigError(
                f"{name}: button {index} is given to both {players[index]} and {player}"
            )
        players[index] = player
    return players


class BridgeSession:
    """The bridge protocol on the host side, fed with messages and the time.

    ``send(type, fields, tail)`` sends one message and returns the host time just before
    the write (None if it could not be sent). ``receive`` takes each message from the Pico
    with the host time it was read; ``tick`` runs the timers and returns a reason when the
    link should be dropped and opened again.
    """

    def __init__(
        self,
        buttons: Mapping[str, int],
        send: SendFn,
        on_edge: Callable[[BridgeEdge], None],
        on_card: Callable[[CardRead], None] | None = None,
        notify: Callable[[str], None] | None = None,
        *,
        name: str = "bridge",
        timing: BridgeTiming | None = None,
        clock: ClockModel | None = None,
    ) -> None:
        self.players = players_by_button(buttons, name)
        self.timing = timing or BridgeTiming()
        self._send = send
        self._on_edge = on_edge
        self._on_card = on_card
        self._notify = notify or (lambda message: log.info("%s", message))
        self.name = name
        self.clock = clock or ClockModel()
        self.identity: Identity | None = None
        self.fatal = ""  # a reason never to talk to this device (protocol major)
        self.state = LinkState.DOWN
        self.ready = threading.Event()
        self.events = SeqTracker(32)
        self.buttons: dict[int, SeqTracker] = {}
        self._edge_seq = itertools.count()
        self._pending: list[EdgeMsg] = []  # edges waiting for clock sync, at most MAX_PENDING
        self.pending_dropped = 0
        self._pings: dict[int, int] = {}  # token -> host send time
        self._token = 0
        self._hello_at = 0
        self._hello_first = 0
        self._next_ping = 0
        self._last_rx = 0
        self._replay_at = 0
        self._replay_missing: set[int] = set()
        self._held = 0
        self.heartbeat: dict[str, int] = {}
        self.overflows = 0
        self.unmapped = 0
        self.unknown = 0
        self.errors: list[str] = []
        self.edges = 0
        self.cards = 0
        self.restarts = 0
        self._handlers: dict[int, Handler] = {
            codec.IDENTIFY: self._identify,
            codec.PONG: self._pong,
            codec.PRESS: self._edge,
            codec.RELEASE: self._edge,
            codec.CARD: self._card,
            codec.HEARTBEAT: self._heartbeat,
            codec.OVERFLOW: self._overflow,
            codec.ERROR: self._error,
            codec.ACK: self._ack,
        }

    # -- link -----------------------------------------------------------------------------

    def move(self, to: LinkState) -> None:
        """Change state along the declared transitions (``link.TRANSITIONS``)."""
        check_move(self.state, to)
        self.state = to

    def link_up(self, now_ns: int) -> None:
        self.move(LinkState.HELLO)
        self._hello_first = now_ns
        self._last_rx = now_ns
        self._pings.clear()
        self._send_hello(now_ns)

    def link_down(self, reason: str, quiet: bool = False) -> None:
        """The port closed (``quiet``: because we closed it)."""
        was = self.state
        self.move(LinkState.DOWN)
        self.ready.clear()
        self._pings.clear()
        if was is LinkState.READY and not quiet:
            self._notify(f"{self.name}: link lost ({reason}); reconnecting")

    def _send_hello(self, now_ns: int) -> None:
        flags, boot, evseq = 0, 0, 0
        contiguous = self.events.contiguous
        if self.identity is not None and contiguous is not None:
            flags, boot, evseq = codec.HELLO_RESUME, self.identity.boot_id, contiguous
        self._hello_at = now_ns
        self._send(
            codec.HELLO,
            (codec.PROTO_MAJOR, codec.PROTO_MINOR, flags, boot, evseq & 0xFFFFFFFF),
            b"",
        )

    def request_replay(self, now_ns: int) -> None:
        """Ask the Pico to send again what it holds after our last contiguous event."""
        self._replay_at = now_ns
        self._replay_missing = set(self.events.missing)
        self._send_hello(now_ns)

    def _ping(self, now_ns: int) -> None:
        self._token = (self._token + 1) & 0xFFFFFFFF
        sent = self._send(codec.PING, (self._token,), b"")
        if sent is not None:
            self._pings[self._token] = sent
        stale_ns = self.timing.ping_stale_ns
        for token in [t for t, at in self._pings.items() if now_ns - at > stale_ns]:
            del self._pings[token]

    def tick(self, now_ns: int) -> str | None:
        """Timers: HELLO retries, sync pings, periodic pings, silence. A reason to drop."""
        t = self.timing
        if self.state is LinkState.HELLO:
            if now_ns - self._hello_first > t.hello_timeout_ns:
                return "no IDENTIFY in answer to HELLO (is the bridge firmware running?)"
            if now_ns - self._hello_at >= t.hello_retry_ns:
                self._send_hello(now_ns)
        elif self.state is LinkState.SYNC:
            if now_ns >= self._next_ping:
                self._next_ping = now_ns + t.sync_interval_ns
                self._ping(now_ns)
            if now_ns - self._last_rx > t.silence_ns:
                return "no PONG while synchronising"
        elif self.state is LinkState.READY:
            if now_ns >= self._next_ping:
                # Quicker pings at first: drift is fitted sooner, the error bar narrows.
                interval = t.ping_interval_ns
                if self.clock.samples < t.quick_samples:
                    interval = min(interval, t.quick_interval_ns)
                self._next_ping = now_ns + interval
                self._ping(now_ns)
            if now_ns - self._last_rx > t.silence_ns:
                return f"silent for {t.silence_s:g} s"
        return None

    # -- messages -------------------------------------------------------------------------

    def receive(
        self, mtype: int, seq: int, fields: tuple[int, ...], tail: bytes, rx_ns: int
    ) -> None:
        """One message from the Pico, dispatched by type through the handler table."""
        self._last_rx = rx_ns
        if mtype != codec.IDENTIFY and (self.identity is None or self.state is LinkState.HELLO):
            return  # nothing before IDENTIFY makes sense
        handler = self._handlers.get(mtype)
        if handler is None:
            self.unknown += 1  # a newer minor version's message: skipped
            return
        handler(DECODERS[mtype](fields, tail), rx_ns)

    def _identify(self, msg: IdentifyMsg, now_ns: int) -> None:
        if msg.proto_major != codec.PROTO_MAJOR:
            self._refuse(msg)
            return
        self.fatal = ""
        previous = self.identity
        if previous is not None and previous.boot_id != msg.boot_id:
            self.restarts += 1
            self._notify(
                f"{self.name}: the Pico restarted (boot {previous.boot_id:08x} -> "
                f"{msg.boot_id:08x}); edges it held unsent are lost"
            )
        if previous is None or previous.boot_id != msg.boot_id:
            self.clock.reset()
            self.events = SeqTracker(32)
            self.events.start_after((msg.next_evseq - 1) & 0xFFFFFFFF)  # older: not ours
            self.buttons = {}
            self._pending.clear()
            self._replay_missing = set()
        self.identity = Identity.of(msg)
        self._held = msg.held
        bad = [b for b in self.players if b >= msg.n_buttons]
        if bad:
            self._notify(f"{self.name}: the Pico has {msg.n_buttons} buttons; no button {bad}")
        if self.state is LinkState.HELLO:
            self._next_ping = now_ns
            if self.clock.samples < self.timing.sync_samples:
                self.move(LinkState.SYNC)
            else:
                self._ready()

    def _refuse(self, msg: IdentifyMsg) -> None:
        """Another protocol major: say so once, and never talk to it."""
        if not self.fatal:
            self.fatal = (
                f"{self.name}: the Pico speaks bridge protocol {msg.proto_major}."
                f"{msg.proto_minor} (firmware {msg.firmware}), this host speaks "
                f"{codec.PROTO_MAJOR}.{codec.PROTO_MINOR}: flash the firmware from this "
                "checkout (hardware/BRIDGE.md)"
            )
            self._notify(self.fatal)
        self.move(LinkState.DOWN)

    def _pong(self, msg: PongMsg, rx_ns: int) -> None:
        sent = self._pings.pop(msg.token, None)
        if sent is None:
            return
        self.clock.add(sent, msg.mcu_us, rx_ns)
        if self.state is LinkState.SYNC and self.clock.samples >= self.timing.sync_samples:
            self._ready()

    def _ready(self) -> None:
        if self.pending_dropped:
            self._notify(
                f"{self.name}: {self.pending_dropped} edge(s) before the clock sync were "
                f"dropped (at most {MAX_PENDING} are held)"
            )
        self.move(LinkState.READY)
        pending, self._pending = self._pending, []
        for edge in pending:
            self._deliver(edge)
        ident = self.identity
        if ident is not None and not self.ready.is_set():
            self._notify(
                f"{self.name}: firmware {ident.firmware}, protocol {ident.proto_major}."
                f"{ident.proto_minor}, boot {ident.boot_id:08x}, {ident.n_buttons} buttons, "
                f"{ident.stamping} stamps; clock ±{self.clock.uncertainty_us():.0f} us"
            )
        self.ready.set()

    def _edge(self, msg: EdgeMsg, _rx_ns: int) -> None:
        button = msg.button
        tracker = self.buttons.get(button)
        if tracker is None:
            tracker = self.buttons[button] = SeqTracker(16)
        before = (self.events.refused, self.events.resyncs, tracker.refused, tracker.resyncs)
        if not (self.events.would_accept(msg.evseq) and tracker.would_accept(msg.bseq)):
            self.events.accept(msg.evseq)  # counted as a duplicate (or refused: far ahead)
            self._warn_jump(before, tracker, msg.evseq)
            return
        self.events.accept(msg.evseq)
        tracker.accept(msg.bseq)
        self._warn_jump(before, tracker, msg.evseq)
        bit = 1 << button
        self._held = self._held | bit if msg.pressed else self._held & ~bit
        if self.state is not LinkState.READY:
            self._pending.append(msg)
            if len(self._pending) > MAX_PENDING:
                del self._pending[0]  # the oldest goes: a bounded wait for the clock
                self.pending_dropped += 1
            return
        self._deliver(msg)

    def _warn_jump(
        self, before: tuple[int, int, int, int], tracker: SeqTracker, evseq: int
    ) -> None:
        """Say when a sequence number was refused as far ahead, or proved a real jump."""
        refused, resyncs, b_refused, b_resyncs = before
        if self.events.resyncs > resyncs or tracker.resyncs > b_resyncs:
            self._notify(f"{self.name}: the event numbers jumped to {evseq}: resynchronised")
        elif self.events.refused > refused or tracker.refused > b_refused:
            self._notify(
                f"{self.name}: event {evseq} is far ahead of the last one: ignored "
                "(a damaged frame?) unless the next one follows it"
            )

    def _deliver(self, msg: EdgeMsg) -> None:
        player = self.players.get(msg.button)
        if player is None:
            self.unmapped += 1
            return
        stamp_ns = self.clock.to_host_ns(msg.stamp_us)
        edge = BridgeEdge(
            msg.button, player, msg.pressed, stamp_ns, self.name, next(self._edge_seq)
        )
        self.edges += 1
        try:
            self._on_edge(edge)
        except Exception:  # a sink error must not stop the reader
            log.exception("%s: press sink failed on %s", self.name, edge)

    def _card(self, msg: CardMsg, _rx_ns: int) -> None:
        if not self.events.accept(msg.evseq):
            return
        self.cards += 1
        if self._on_card is None or not self.clock.synced:
            return
        stamp_ns = self.clock.to_host_ns(msg.stamp_us)
        read = CardRead(msg.reader, msg.uid.hex().upper(), stamp_ns, msg.evseq)
        try:
            self._on_card(read)
        except Exception:
            log.exception("%s: card sink failed on %s", self.name, read)

    def _overflow(self, msg: OverflowMsg, _rx_ns: int) -> None:
        self.overflows = msg.total
        self._notify(f"{self.name}: the Pico dropped {msg.lost} edge(s): its buffer was full")

    def _error(self, msg: ErrorMsg, _rx_ns: int) -> None:
        text = f"{self.name}: Pico error {msg.code}: {msg.text}"
        self.errors.append(text)
        del self.errors[:-20]
        self._notify(text)

    def _ack(self, msg: AckMsg, _rx_ns: int) -> None:
        """Nothing to do: the transport matched it to its command."""

    def _heartbeat(self, msg: HeartbeatMsg, now_ns: int) -> None:
        self.heartbeat = {
            "mcu_us": msg.mcu_us,
            "next_evseq": msg.next_evseq,
            "overflows": msg.overflows,
            "bounces": msg.bounces,
            "rx_bad": msg.rx_bad,
        }
        self._held = msg.held
        if now_ns - self._replay_at < self.timing.replay_retry_ns:
            return
        if self._replay_missing:
            # Asked once already: what the Pico no longer holds is lost for good.
            gone = self.events.give_up(self._replay_missing)
            self._replay_missing = set()
            if gone:
                self._notify(f"{self.name}: {gone} event(s) lost on the way and not recoverable")
        top = self.events.top
        behind = top is not None and codec.unwrap(msg.next_evseq - 1, top, 32) > top
        if behind or self.events.missing:
            self.request_replay(now_ns)  # events were lost on the way: ask for them again

    # -- reading --------------------------------------------------------------------------

    def held(self) -> frozenset[str]:
        return frozenset(p for b, p in self.players.items() if self._held >> b & 1)

    def uncertainty_us(self) -> int:
        """The error bar of one mapped stamp: the Pico's stamping plus the clock sync."""
        ident = self.identity
        stamp_err = ident.stamp_err_us if ident is not None else NO_IDENTITY_STAMP_ERR_US
        clock = self.clock.uncertainty_us()
        if math.isinf(clock):
            return stamp_err + UNSYNCED_UNCERTAINTY_US
        return stamp_err + math.ceil(clock)

    def counters(self) -> dict[str, int]:
        button_gaps = sum(t.gaps for t in self.buttons.values())
        button_dups = sum(t.duplicates for t in self.buttons.values())
        return {
            "edges": self.edges,
            "cards": self.cards,
            "event_gaps": self.events.gaps,
            "event_recovered": self.events.recovered,
            "events_missing": self.events.lost,
            "events_abandoned": self.events.abandoned,
            "duplicates": self.events.duplicates,
            "button_gaps": button_gaps,
            "button_duplicates": button_dups,
            "overflows": self.overflows,
            "unmapped": self.unmapped,
            "unknown": self.unknown,
            "restarts": self.restarts,
            "events_refused": self.events.refused,
            "resyncs": self.events.resyncs,
            "pending_dropped": self.pending_dropped,
        }
