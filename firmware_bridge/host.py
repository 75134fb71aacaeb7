"""The Pico bridge as the referee sees it: a press source and a card-reveal source.

:class:`BridgeSession` is the protocol, with no port and no thread: the handshake
(HELLO, IDENTIFY, versions), clock sync by PING/PONG, edges mapped to host time,
duplicates and gaps by sequence number, resumption after a reconnect. It is driven by
:class:`~firmware_bridge.transport.Transport` in :class:`BridgeClient`, and directly (on a
simulated timeline) by :func:`firmware_bridge.sim.simulate_sync`.

Numbering. Each event from the Pico carries ``evseq`` (one count over all its events since
it booted) and each edge also its button's own ``bseq``. An edge is new only if both are:
so a frame repeated on the wire, or replayed by the Pico after a reconnect, is dropped,
and a missing number is counted as a gap. When the link comes back, the HELLO says "boot
B, I have everything up to evseq E": the Pico sends again what it still holds after E,
which recovers the edges that were in flight when the cable went. A Pico that rebooted
(another boot id) starts everything afresh, and says so.

Edges reach ``sink`` as :class:`~companion.signals.Edge` with ``source`` the
bridge's name and ``seq`` the bridge's own count of edges delivered (0, 1, 2 ...);
``stamp_ns`` is the Pico's stamp mapped to host monotonic nanoseconds.
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from companion.errors import HardwareError
from companion.signals import ButtonEdge, SourceInfo, TimingClass
from firmware_bridge import codec
from firmware_bridge.clock import ClockModel
from firmware_bridge.transport import CommandHandle, SerialPort, Transport, open_serial

log = logging.getLogger(__name__)

UNSYNCED_UNCERTAINTY_US = 10_000  # stated while no PONG has come back: nothing is known

SendFn = Callable[[int, tuple[int, ...], bytes], int | None]

CAP_NAMES = {
    codec.CAP_PIO: "pio",
    codec.CAP_BUZZER: "buzzer",
    codec.CAP_LEDS: "leds",
    codec.CAP_PN532: "pn532",
    codec.CAP_RC522: "rc522",
}


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

    @property
    def capabilities(self) -> list[str]:
        return [name for bit, name in CAP_NAMES.items() if self.caps & bit]

    @property
    def stamping(self) -> str:
        return "PIO" if self.caps & codec.CAP_PIO else "pin IRQ"


@dataclass(frozen=True, slots=True)
class CardRead:
    """A tag came onto one of the Pico's card readers."""

    reader: int
    uid: str  # the tag's UID in upper-case hex, as tag files name it: "04A1B2C3D4E580"
    stamp_ns: int  # host monotonic nanoseconds
    seq: int  # the Pico's event number


class SeqTracker:
    """Which numbers of a sequence arrived: new ones, duplicates, gaps, late arrivals.

    ``bits`` is the width of the numbers on the wire; they are extended (unwrapped) against
    the highest number seen, so a 16-bit per-button count can run for ever.
    """

    KEEP = 4096  # missing numbers older than this are given up as lost

    def __init__(self, bits: int = 32) -> None:
        self.bits = bits
        self.top: int | None = None
        self.missing: set[int] = set()
        self.gaps = 0  # numbers skipped when a later one arrived
        self.recovered = 0  # skipped numbers that arrived after all
        self.abandoned = 0  # skipped numbers given up for lost
        self.duplicates = 0

    def accept(self, raw: int) -> bool:
        """True the first time a number is seen."""
        if self.top is None:
            self.top = raw
            return True
        n = codec.unwrap(raw, self.top, self.bits)
        if n > self.top:
            skipped = n - self.top - 1
            if skipped:
                self.gaps += skipped
                self.missing.update(range(max(self.top + 1, n - self.KEEP), n))
            self.top = n
            if self.missing and min(self.missing) < n - self.KEEP:
                self.missing = {m for m in self.missing if m >= n - self.KEEP}
            return True
        if n in self.missing:
            self.missing.discard(n)
            self.recovered += 1
            return True
        self.duplicates += 1
        return False

    def start_after(self, n: int) -> None:
        """Numbers up to ``n`` belong to before our time: expect ``n + 1`` next."""
        self.top = n
        self.missing.clear()

    def give_up(self, numbers: set[int]) -> int:
        """Stop waiting for these missing numbers; how many were still missing."""
        gone = self.missing & numbers
        self.missing -= gone
        self.abandoned += len(gone)
        return len(gone)

    def would_accept(self, raw: int) -> bool:
        if self.top is None:
            return True
        n = codec.unwrap(raw, self.top, self.bits)
        return n > self.top or n in self.missing

    @property
    def contiguous(self) -> int | None:
        """Every number up to this one has arrived (since the first)."""
        if self.top is None:
            return None
        return min(self.missing) - 1 if self.missing else self.top

    @property
    def lost(self) -> int:
        """Skipped numbers still missing."""
        return len(self.missing)


class BridgeSession:
    """The bridge protocol on the host side, fed with messages and the time.

    ``send(type, fields, tail)`` sends one message and returns the host time just before
    the write (None if it could not be sent). ``receive`` takes each message from the Pico
    with the host time it was read; ``tick`` runs the timers and returns a reason when the
    link should be dropped and opened again.
    """

    HELLO_RETRY_NS = 300_000_000
    HELLO_TIMEOUT_NS = 3_000_000_000
    SYNC_INTERVAL_NS = 20_000_000
    SYNC_SAMPLES = 6
    QUICK_SAMPLES = 120  # pinged every QUICK_INTERVAL_NS until the clock holds this many
    QUICK_INTERVAL_NS = 50_000_000
    SILENCE_NS = 2_000_000_000
    REPLAY_RETRY_NS = 1_000_000_000

    def __init__(
        self,
        buttons: Mapping[str, int],
        send: SendFn,
        on_edge: Callable[[ButtonEdge], None],
        on_card: Callable[[CardRead], None] | None = None,
        notify: Callable[[str], None] | None = None,
        *,
        name: str = "bridge",
        ping_interval_s: float = 0.25,
        clock: ClockModel | None = None,
    ) -> None:
        players: dict[int, str] = {}
        for player, index in buttons.items():
            if index in players:
                raise HardwareError(
                    f"{name}: button {index} is given to both {players[index]} and {player}"
                )
            players[index] = player
        self.players = players
        self._send = send
        self._on_edge = on_edge
        self._on_card = on_card
        self._notify = notify or (lambda message: log.info("%s", message))
        self.name = name
        self.ping_interval_ns = int(ping_interval_s * 1e9)
        self.clock = clock or ClockModel()
        self.identity: Identity | None = None
        self.fatal = ""  # a reason never to talk to this device (protocol major)
        self.state = "down"  # down, hello, sync, ready
        self.ready = threading.Event()
        self.events = SeqTracker(32)
        self.buttons: dict[int, SeqTracker] = {}
        self._edge_seq = itertools.count()
        self._pending: list[tuple[int, bool, int]] = []  # edges waiting for clock sync
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

    # -- link -----------------------------------------------------------------------------

    def link_up(self, now_ns: int) -> None:
        self.state = "hello"
        self._hello_first = now_ns
        self._last_rx = now_ns
        self._pings.clear()
        self._send_hello(now_ns)

    def link_down(self, reason: str) -> None:
        was = self.state
        self.state = "down"
        self.ready.clear()
        self._pings.clear()
        if was == "ready":
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
        stale = [t for t, at in self._pings.items() if now_ns - at > 2_000_000_000]
        for token in stale:
            del self._pings[token]

    def tick(self, now_ns: int) -> str | None:
        """Timers: HELLO retries, sync pings, periodic pings, silence. A reason to drop."""
        if self.state == "hello":
            if now_ns - self._hello_first > self.HELLO_TIMEOUT_NS:
                return "no IDENTIFY in answer to HELLO (is the bridge firmware running?)"
            if now_ns - self._hello_at >= self.HELLO_RETRY_NS:
                self._send_hello(now_ns)
        elif self.state == "sync":
            if now_ns >= self._next_ping:
                self._next_ping = now_ns + self.SYNC_INTERVAL_NS
                self._ping(now_ns)
            if now_ns - self._last_rx > self.SILENCE_NS:
                return "no PONG while synchronising"
        elif self.state == "ready":
            if now_ns >= self._next_ping:
                # Quicker pings at first: drift is fitted sooner, the error bar narrows.
                quick = self.clock.samples < self.QUICK_SAMPLES
                interval = min(self.ping_interval_ns, self.QUICK_INTERVAL_NS) if quick else None
                self._next_ping = now_ns + (interval or self.ping_interval_ns)
                self._ping(now_ns)
            if now_ns - self._last_rx > self.SILENCE_NS:
                return f"silent for {self.SILENCE_NS // 1_000_000_000} s"
        return None

    # -- messages -------------------------------------------------------------------------

    def receive(
        self, mtype: int, seq: int, fields: tuple[int, ...], tail: bytes, rx_ns: int
    ) -> None:
        self._last_rx = rx_ns
        if mtype == codec.IDENTIFY:
            self._identify(fields, tail, rx_ns)
        elif self.identity is None or self.state == "hello":
            return  # nothing before IDENTIFY makes sense
        elif mtype == codec.PONG:
            self._pong(fields, rx_ns)
        elif mtype in (codec.PRESS, codec.RELEASE):
            self._edge(mtype == codec.PRESS, fields)
        elif mtype == codec.CARD:
            self._card(fields, tail)
        elif mtype == codec.HEARTBEAT:
            self._heartbeat(fields, rx_ns)
        elif mtype == codec.OVERFLOW:
            lost, total = fields
            self.overflows = total
            self._notify(f"{self.name}: the Pico dropped {lost} edge(s): its buffer was full")
        elif mtype == codec.ERROR:
            text = f"{self.name}: Pico error {fields[0]}: {tail.decode('utf-8', 'replace')}"
            self.errors.append(text)
            del self.errors[:-20]
            self._notify(text)
        elif mtype == codec.ACK:
            pass  # the transport matched it to its command
        else:
            self.unknown += 1  # a newer minor version's message: skipped

    def _identify(self, fields: tuple[int, ...], tail: bytes, now_ns: int) -> None:
        major, minor = fields[0], fields[1]
        firmware = tail.decode("utf-8", "replace")
        if major != codec.PROTO_MAJOR:
            if self.fatal:
                self.state = "down"
                return
            self.fatal = (
                f"{self.name}: the Pico speaks bridge protocol {major}.{minor} (firmware "
                f"{firmware}), this host speaks {codec.PROTO_MAJOR}.{codec.PROTO_MINOR}: "
                "flash the firmware from this checkout (hardware/BRIDGE.md)"
            )
            self.state = "down"
            self._notify(self.fatal)
            return
        self.fatal = ""
        (_, _, boot, caps, n_buttons, n_leds, n_readers, err_us, debounce_us, held, nxt, _) = fields
        identity = Identity(
            major, minor, boot, caps, n_buttons, n_leds, n_readers, err_us, debounce_us, firmware
        )
        previous = self.identity
        if previous is not None and previous.boot_id != boot:
            self.restarts += 1
            self._notify(
                f"{self.name}: the Pico restarted (boot {previous.boot_id:08x} -> {boot:08x}); "
                "edges it held unsent are lost"
            )
        if previous is None or previous.boot_id != boot:
            self.clock.reset()
            self.events = SeqTracker(32)
            self.events.start_after((nxt - 1) & 0xFFFFFFFF)  # older events are not ours
            self.buttons = {}
            self._pending.clear()
            self._replay_missing = set()
        self.identity = identity
        self._held = held
        bad = [b for b in self.players if b >= n_buttons]
        if bad:
            self._notify(f"{self.name}: the Pico has {n_buttons} buttons; no button {bad}")
        if self.state == "hello":
            self.state = "sync" if self.clock.samples < self.SYNC_SAMPLES else "ready"
            self._next_ping = now_ns
            if self.state == "ready":
                self._ready()

    def _pong(self, fields: tuple[int, ...], rx_ns: int) -> None:
        token, mcu_us = fields
        sent = self._pings.pop(token, None)
        if sent is None:
            return
        self.clock.add(sent, mcu_us, rx_ns)
        if self.state == "sync" and self.clock.samples >= self.SYNC_SAMPLES:
            self._ready()

    def _ready(self) -> None:
        self.state = "ready"
        pending, self._pending = self._pending, []
        for button, pressed, stamp_us in pending:
            self._deliver(button, pressed, stamp_us)
        ident = self.identity
        if ident is not None and not self.ready.is_set():
            self._notify(
                f"{self.name}: firmware {ident.firmware}, protocol {ident.proto_major}."
                f"{ident.proto_minor}, boot {ident.boot_id:08x}, {ident.n_buttons} buttons, "
                f"{ident.stamping} stamps; clock ±{self.clock.uncertainty_us():.0f} us"
            )
        self.ready.set()

    def _edge(self, pressed: bool, fields: tuple[int, ...]) -> None:
        button, bseq, evseq, stamp_us = fields
        tracker = self.buttons.get(button)
        if tracker is None:
            tracker = self.buttons[button] = SeqTracker(16)
        if not (self.events.would_accept(evseq) and tracker.would_accept(bseq)):
            self.events.accept(evseq)  # counted as a duplicate
            return
        self.events.accept(evseq)
        tracker.accept(bseq)
        self._held = self._held | (1 << button) if pressed else self._held & ~(1 << button)
        if self.state != "ready":
            self._pending.append((button, pressed, stamp_us))
            return
        self._deliver(button, pressed, stamp_us)

    def _deliver(self, button: int, pressed: bool, stamp_us: int) -> None:
        player = self.players.get(button)
        if player is None:
            self.unmapped += 1
            return
        edge = ButtonEdge(
            player, pressed, self.clock.to_host_ns(stamp_us), self.name, next(self._edge_seq)
        )
        self.edges += 1
        try:
            self._on_edge(edge)
        except Exception:  # a sink error must not stop the reader
            log.exception("%s: press sink failed on %s", self.name, edge)

    def _card(self, fields: tuple[int, ...], tail: bytes) -> None:
        reader, evseq, stamp_us = fields
        if not self.events.accept(evseq):
            return
        self.cards += 1
        if self._on_card is None or not self.clock.synced:
            return
        read = CardRead(reader, tail.hex().upper(), self.clock.to_host_ns(stamp_us), evseq)
        try:
            self._on_card(read)
        except Exception:
            log.exception("%s: card sink failed on %s", self.name, read)

    def _heartbeat(self, fields: tuple[int, ...], now_ns: int) -> None:
        mcu_us, next_evseq, overflows, bounces, rx_bad, held = fields
        self.heartbeat = {
            "mcu_us": mcu_us,
            "next_evseq": next_evseq,
            "overflows": overflows,
            "bounces": bounces,
            "rx_bad": rx_bad,
        }
        self._held = held
        if now_ns - self._replay_at < self.REPLAY_RETRY_NS:
            return
        if self._replay_missing:
            # Asked once already: what the Pico no longer holds is lost for good.
            gone = self.events.give_up(self._replay_missing)
            self._replay_missing = set()
            if gone:
                self._notify(f"{self.name}: {gone} event(s) lost on the way and not recoverable")
        top = self.events.top
        behind = top is not None and codec.unwrap(next_evseq - 1, top, 32) > top
        if behind or self.events.missing:
            self.request_replay(now_ns)  # events were lost on the way: ask for them again

    # -- reading --------------------------------------------------------------------------

    def held(self) -> frozenset[str]:
        return frozenset(p for b, p in self.players.items() if self._held >> b & 1)

    def uncertainty_us(self) -> int:
        """The error bar of one mapped stamp: the Pico's stamping plus the clock sync."""
        ident = self.identity
        stamp_err = ident.stamp_err_us if ident is not None else 100
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
        }


class TagPush(Protocol):
    """A tag reader fed from outside (``companion.tags.readers.CallbackReader``'s shape)."""

    def push(self, index: int, uid: bytes) -> None: ...


class BridgeClient:
    """The Pico bridge as a press source (and card-reveal source) for the referee.

    Opens the port (``"auto"``, a path or a pyserial URL), handshakes and synchronises the
    clock, then hands each edge to ``sink`` on the reader thread (so ``sink`` must only
    queue it, like :class:`~companion.devices.buttons.GpioPressSource`'s). ``buttons`` maps
    players to the Pico's button indexes. Raises :class:`HardwareError` if no bridge
    answers within ``connect_timeout_s``, or if it speaks another protocol major. Once
    running it reconnects by itself after an unplug, and the game goes on.
    """

    def __init__(
        self,
        buttons: Mapping[str, int],
        sink: Callable[[ButtonEdge], None],
        port: str = "auto",
        *,
        on_card: Callable[[CardRead], None] | None = None,
        notify: Callable[[str], None] | None = None,
        name: str = "bridge",
        connect_timeout_s: float = 5.0,
        ping_interval_s: float = 0.25,
        now_ns: Callable[[], int] = time.monotonic_ns,
        opener: Callable[[str], SerialPort] = open_serial,
        rto_s: float = 0.05,
        backoff_max_s: float = 2.0,
    ) -> None:
        self.name = name
        self.port = port
        self._now = now_ns
        self._notify = notify or (lambda message: log.info("%s", message))
        self._card_lock = threading.Lock()
        self._card_listeners: list[Callable[[CardRead], None]] = [on_card] if on_card else []
        self.session = BridgeSession(
            buttons,
            self._send,
            sink,
            self._card,
            self._notify,
            name=name,
            ping_interval_s=ping_interval_s,
        )
        self.transport = Transport(
            port,
            self.session.receive,
            self._link,
            self._tick,
            now_ns=now_ns,
            opener=opener,
            rto_s=rto_s,
            backoff_max_s=backoff_max_s,
            name=name,
        )
        self._closed = False
        self.transport.start()
        if not self.wait_ready(connect_timeout_s):
            reason = self.session.fatal or self.transport.last_error or "no answer"
            self.close()
            if self.session.fatal:
                raise HardwareError(self.session.fatal)
            raise HardwareError(
                f"{name}: no bridge on {port} within {connect_timeout_s:g} s: {reason}"
            )

    def _send(self, mtype: int, fields: tuple[int, ...], tail: bytes) -> int | None:
        return self.transport.send(mtype, fields, tail)

    def _link(self, up: bool, detail: str) -> None:
        if up:
            self.session.link_up(self._now())
        elif self._closed:
            self.session.state = "down"
        else:
            self.session.link_down(detail)

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
    def info(self) -> SourceInfo:
        """How this source stamps: MCU timer, with the stamping and clock-sync error bar."""
        s = self.session
        ident = s.identity
        clock = s.clock
        if ident is None or not clock.synced:
            return SourceInfo(
                self.name,
                TimingClass.MCU_TIMER,
                s.uncertainty_us(),
                f"not synchronised ({self.port})",
            )
        detail = (
            f"Pico on {self.port}, firmware {ident.firmware}, {ident.stamping} stamps "
            f"±{ident.stamp_err_us} us, clock sync ±{clock.uncertainty_us():.0f} us "
            f"(best round trip {clock.best_rtt_us:.0f} us, drift {clock.drift_ppm:+.1f} ppm)"
        )
        return SourceInfo(self.name, TimingClass.MCU_TIMER, s.uncertainty_us(), detail)

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
            "state": self.session.state,
        }

    def close(self) -> None:
        """Stop reading and close the port; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self.transport.close()
