"""The bridge firmware's logic, with the hardware behind a small interface (``hal``).

``main.py`` on the Pico drives it with real pins, IRQ stamps and the USB serial port;
``firmware_bridge.sim`` drives the very same class under CPython with a simulated clock
and a pty, so the tests exercise the firmware's own protocol handling, debounce, clock
extension and replay. It keeps to what MicroPython runs (see ``codec.py``): no typing at
run time, no dataclasses, no f-strings.

The ``hal`` object gives:

* ``ticks_us()``: the raw ``time.ticks_us()`` (counts modulo 2**30);
* ``write(frame)``: bytes to the host;
* ``led(index, on)`` and ``buzz(on, freq_hz)``: outputs;
* ``level(button)``: True while the button is down (read from the pin).
"""

try:
    from firmware_bridge import codec
except ImportError:  # on the Pico, codec.py sits beside this file
    import codec  # type: ignore[import-not-found, no-redef]

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython
    TYPE_CHECKING = False  # type: ignore[misc]

if TYPE_CHECKING:
    from typing import Protocol

    class Hal(Protocol):
        def ticks_us(self) -> int: ...
        def write(self, frame: bytes) -> None: ...
        def led(self, index: int, on: bool) -> None: ...
        def buzz(self, on: bool, freq_hz: int) -> None: ...
        def level(self, button: int) -> bool: ...


FW_VERSION = "1.0.0"
STAMP_ERR_IRQ_US = 100  # a hard pin IRQ runs 20-25 us after the edge, seen up to 100 us
STAMP_ERR_PIO_US = 2  # PIO counts the IRQ's latency in clock cycles; ticks_us() is 1 us
DEBOUNCE_US = 3000
HEARTBEAT_MS = 250
HISTORY = 64  # events kept for a resuming host


class Core:
    """One bridge: debounced, stamped, numbered events out; commands in."""

    def __init__(
        self,
        hal: "Hal",
        n_buttons: int,
        n_leds: int = 0,
        n_readers: int = 0,
        caps: int = 0,
        boot_id: int = 0,
        stamp_err_us: int = STAMP_ERR_IRQ_US,
        debounce_us: int = DEBOUNCE_US,
        heartbeat_ms: int = HEARTBEAT_MS,
        history: int = HISTORY,
        version: str = FW_VERSION,
        proto_major: int = codec.PROTO_MAJOR,
        proto_minor: int = codec.PROTO_MINOR,
    ) -> None:
        self.hal = hal
        self.n_buttons = n_buttons
        self.n_leds = n_leds
        self.n_readers = n_readers
        self.caps = caps
        self.boot_id = boot_id & 0xFFFFFFFF
        self.stamp_err_us = stamp_err_us
        self.debounce_us = debounce_us
        self.heartbeat_us = heartbeat_ms * 1000
        self.version = version
        self.proto_major = proto_major
        self.proto_minor = proto_minor
        self._ext = hal.ticks_us()  # ticks_us extended past its 2**30 wrap
        self.active = False  # a host said HELLO: events and heartbeats go out
        self.evseq = 0  # events so far; the next one is evseq + 1
        self._tx_seq = 0
        self._deframer = codec.Deframer()
        self._recent: list[int] = []  # (seq << 8 | status) of the last commands executed
        # per button: debounced state, when it was accepted, the last edge suppressed
        self._state = [False] * n_buttons
        self._accepted_at: list[int] = [self._ext - debounce_us] * n_buttons
        self._bseq = [0] * n_buttons
        self._supp_t: list[int | None] = [None] * n_buttons
        self._supp_level = [False] * n_buttons
        self._mismatch_at: list[int | None] = [None] * n_buttons
        # events kept for replay: (evseq, payload)
        self._history: list[tuple[int, bytes] | None] = [None] * history
        self._hist_i = 0
        # outputs
        self._led_mode = [codec.LED_OFF] * n_leds
        self._led_on_us = [0] * n_leds
        self._led_off_us = [0] * n_leds
        self._led_count = [0] * n_leds
        self._led_start = [0] * n_leds
        self._led_lit = [False] * n_leds
        self._buzz_until: int | None = None
        self._last_hb = self._ext
        # counters
        self.bounces = 0
        self.overflows = 0
        self._overflow_unreported = 0
        self.rx_bad = 0
        self.unknown = 0

    # -- time -----------------------------------------------------------------------------

    def now_us(self) -> int:
        """Microseconds since an arbitrary start, never wrapping (call at least every 8 min)."""
        self._ext = codec.unwrap(self.hal.ticks_us(), self._ext, codec.TICKS_BITS)
        return self._ext

    def stamp(self, raw: int) -> int:
        """A raw ``ticks_us`` taken at most 8 minutes ago, extended. An edge stamped just
        before the core first read the clock (at boot, with ``ticks_us`` near 0) would
        extend below zero, which no frame can carry: it is stamped at the start instead."""
        t = codec.unwrap(raw, self.now_us(), codec.TICKS_BITS)
        return t if t > 0 else 0

    # -- inputs from the hardware ---------------------------------------------------------

    def edge(self, button: int, pressed: bool, raw: int) -> None:
        """An edge as the IRQ (or PIO) stamped it. The first edge of a change keeps its stamp;
        edges within the debounce lockout after it are bounce."""
        if button < 0 or button >= self.n_buttons:
            return
        t = self.stamp(raw)
        if pressed == self._state[button]:
            self.bounces += 1
            return
        if t - self._accepted_at[button] < self.debounce_us:
            self.bounces += 1
            self._supp_t[button] = t
            self._supp_level[button] = pressed
            return
        self._accept(button, pressed, t)

    def _accept(self, button: int, pressed: bool, t: int) -> None:
        self._state[button] = pressed
        self._accepted_at[button] = t
        self._supp_t[button] = None
        self._mismatch_at[button] = None
        self._bseq[button] = (self._bseq[button] + 1) & 0xFFFF
        mtype = codec.PRESS if pressed else codec.RELEASE
        self._event(mtype, (button, self._bseq[button], self.evseq + 1, t))

    def card(self, reader: int, uid: bytes, raw: int) -> None:
        """A tag came onto a reader."""
        self._event(codec.CARD, (reader, self.evseq + 1, self.stamp(raw)), bytes(uid[:16]))

    def lost(self, n: int) -> None:
        """The IRQ ring was full: ``n`` edges were dropped before they could be stamped."""
        self.overflows += n
        self._overflow_unreported += n

    def error(self, code: int, text: str) -> None:
        if self.active:
            self._send(codec.pack(codec.ERROR, 0, (code,), text.encode()[:100]))

    def is_down(self, button: int) -> bool:
        """The debounced state of a button (True: pressed)."""
        return self._state[button]

    def held(self) -> int:
        bits = 0
        for b in range(self.n_buttons):
            if self._state[b]:
                bits |= 1 << b
        return bits

    # -- events ---------------------------------------------------------------------------

    def _event(self, mtype: int, fields: tuple[int, ...], tail: bytes = b"") -> None:
        self.evseq = (self.evseq + 1) & 0xFFFFFFFF
        payload = codec.pack(mtype, 0, fields, tail)
        self._history[self._hist_i] = (self.evseq, payload)
        self._hist_i = (self._hist_i + 1) % len(self._history)
        if self.active:
            self._send(payload)

    def replay(self, after: int) -> int:
        """Send again every kept event numbered after ``after``; how many were sent."""
        kept = [h for h in self._history if h is not None and h[0] > after]
        kept.sort()
        for _, payload in kept:
            self._send(payload)
        return len(kept)

    def _send(self, payload: bytes) -> None:
        frame = bytearray(payload)
        frame[1] = self._tx_seq
        self._tx_seq = (self._tx_seq + 1) & 0xFF
        self.hal.write(codec.encode_frame(bytes(frame)))

    # -- the host's frames ----------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Bytes from the host: whole frames are handled at once."""
        before = self._deframer.bad
        for payload in self._deframer.feed(data):
            self._handle(payload)
        self.rx_bad += self._deframer.bad - before

    def _handle(self, payload: bytes) -> None:
        try:
            mtype, seq, fields, _ = codec.unpack(payload)
        except ValueError:
            self.rx_bad += 1
            return
        if mtype == codec.PING:
            self._send(codec.pack(codec.PONG, 0, (fields[0], self.now_us())))
        elif mtype == codec.HELLO:
            self._hello(fields)
        elif mtype in codec.ACKED:
            for entry in self._recent:
                if entry >> 8 == seq:  # a retransmission: already done, acknowledge again
                    self._send(codec.pack(codec.ACK, 0, (seq, entry & 0xFF)))
                    return
            status = self._command(mtype, fields)
            self._recent.append(seq << 8 | status)
            if len(self._recent) > 8:
                self._recent.pop(0)
            self._send(codec.pack(codec.ACK, 0, (seq, status)))
        else:
            self.unknown += 1
            if mtype < 0x80:
                self._send(codec.pack(codec.ACK, 0, (seq, codec.ACK_UNKNOWN)))

    def _hello(self, fields: tuple[int, ...]) -> None:
        major, _minor, flags, resume_boot, resume_evseq = fields
        resume = flags & codec.HELLO_RESUME and resume_boot == self.boot_id
        if not resume:
            self._recent = []  # a new host: its command numbers start afresh
        self._send(
            codec.pack(
                codec.IDENTIFY,
                0,
                (
                    self.proto_major,
                    self.proto_minor,
                    self.boot_id,
                    self.caps,
                    self.n_buttons,
                    self.n_leds,
                    self.n_readers,
                    self.stamp_err_us,
                    self.debounce_us,
                    self.held(),
                    (self.evseq + 1) & 0xFFFFFFFF,
                    self.now_us(),
                ),
                self.version.encode(),
            )
        )
        self.active = major == self.proto_major
        self._last_hb = self.now_us()
        if self.active and resume:
            self.replay(resume_evseq)

    def _command(self, mtype: int, fields: tuple[int, ...]) -> int:
        now = self.now_us()
        if mtype == codec.LED:
            led, mode, on_ms, off_ms, count = fields
            if led >= self.n_leds or mode > codec.LED_BLINK:
                return codec.ACK_BAD_ARGS
            if mode == codec.LED_BLINK and on_ms + off_ms == 0:
                return codec.ACK_BAD_ARGS
            self._led_mode[led] = mode
            self._led_on_us[led] = on_ms * 1000
            self._led_off_us[led] = off_ms * 1000
            self._led_count[led] = count
            self._led_start[led] = now
            self._update_led(led, now)
            return codec.ACK_OK
        if mtype == codec.BUZZ:
            freq, ms = fields
            if not self.caps & codec.CAP_BUZZER:
                return codec.ACK_BAD_ARGS
            if ms == 0:
                self._buzz_until = None
                self.hal.buzz(False, 0)
            else:
                self._buzz_until = now + ms * 1000
                self.hal.buzz(True, freq)
            return codec.ACK_OK
        if mtype == codec.CONFIG:
            debounce_us, heartbeat_ms = fields
            if debounce_us > 1_000_000 or not 50 <= heartbeat_ms <= 10_000:
                return codec.ACK_BAD_ARGS
            self.debounce_us = debounce_us
            self.heartbeat_us = heartbeat_ms * 1000
            return codec.ACK_OK
        return codec.ACK_UNKNOWN

    # -- timers ---------------------------------------------------------------------------

    def poll(self) -> None:
        """Run often (every loop): settle debounced buttons, LEDs, buzzer, heartbeat."""
        now = self.now_us()
        for b in range(self.n_buttons):
            self._settle(b, now)
        for led in range(self.n_leds):
            if self._led_mode[led] == codec.LED_BLINK:
                self._update_led(led, now)
        if self._buzz_until is not None and now >= self._buzz_until:
            self._buzz_until = None
            self.hal.buzz(False, 0)
        if not self.active:
            return
        if self._overflow_unreported:
            lost = self._overflow_unreported
            self._overflow_unreported = 0
            self._send(codec.pack(codec.OVERFLOW, 0, (lost, self.overflows & 0xFFFFFFFF)))
        if now - self._last_hb >= self.heartbeat_us:
            self._last_hb = now
            self._send(
                codec.pack(
                    codec.HEARTBEAT,
                    0,
                    (
                        now,
                        (self.evseq + 1) & 0xFFFFFFFF,
                        self.overflows & 0xFFFFFFFF,
                        self.bounces & 0xFFFFFFFF,
                        self.rx_bad & 0xFFFFFFFF,
                        self.held(),
                    ),
                )
            )

    def _settle(self, b: int, now: int) -> None:
        """After the lockout, the pin's level must agree with the debounced state.

        A tap shorter than the lockout, or an edge the IRQ missed, leaves them apart. Seen
        apart on two polls in a row (so an edge stamped but not yet handed over is not
        mistaken for one), the change is reported, stamped at the last suppressed edge in
        that direction, or when the difference was first seen.
        """
        if now - self._accepted_at[b] < self.debounce_us:
            return
        level = self.hal.level(b)
        if level == self._state[b]:
            self._mismatch_at[b] = None
            self._supp_t[b] = None  # the bounce settled back: forget it
            return
        first = self._mismatch_at[b]
        if first is None:
            self._mismatch_at[b] = now
            return
        supp = self._supp_t[b]
        t = supp if supp is not None and self._supp_level[b] == level else first
        self._accept(b, level, t)

    def _update_led(self, led: int, now: int) -> None:
        mode = self._led_mode[led]
        if mode == codec.LED_BLINK:
            period = self._led_on_us[led] + self._led_off_us[led]
            elapsed = now - self._led_start[led]
            count = self._led_count[led]
            if count and elapsed >= count * period:
                self._led_mode[led] = codec.LED_OFF
                lit = False
            else:
                lit = elapsed % period < self._led_on_us[led]
        else:
            lit = mode == codec.LED_ON
        if lit != self._led_lit[led]:
            self._led_lit[led] = lit
            self.hal.led(led, lit)
