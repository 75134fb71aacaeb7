# mypy: ignore-errors
# ruff: noqa: F821
# MicroPython on the Pico: machine, rp2 and micropython have no CPython stubs here, and the
# PIO assembler's words (wait, mov, x, ...) are names rp2.asm_pio provides.
"""The companion press bridge: MicroPython on a Raspberry Pi Pico (RP2040).

Copy ``codec.py``, ``core.py`` and this ``main.py`` (and ``readers.py`` for a card reader)
to the Pico's filesystem; it runs at power-up. Wiring, flashing and the settings below:
``hardware/BRIDGE.md``. The protocol: ``firmware_bridge/PROTOCOL.md``.

Edges are stamped one of two ways (``STAMPER``):

* ``"irq"``: a hard pin interrupt on both edges reads ``ticks_us()`` first thing and puts
  (button, edge, ticks) in a ring; it runs 20-25 us after the edge, up to 100 us
  (stated to the host as +-100 us).
* ``"pio"``: one PIO state machine per button (up to 8) waits for the edge, pushes a marker
  and counts clock cycles until the main loop acknowledges it; the main loop then reads
  ``ticks_us()`` with interrupts off and subtracts the count: the stamp no longer depends
  on when the CPU got round to it (stated as +-3 us).

The main loop hands stamped edges to ``core.Core`` (debounce that keeps the first edge's
stamp, the 2**30 wrap, numbering, replay), reads the host's frames from USB, and runs the
LEDs, the buzzer, the heartbeat and the card reader. Nothing may ``print``: stdout is the
wire.
"""

import select
import sys
import time
from array import array

import codec
import machine
import micropython
import rp2
from core import STAMP_ERR_IRQ_US, Core

# -- settings (hardware/BRIDGE.md) ---------------------------------------------------------
BUTTON_PINS = (2, 3, 4, 5, 6, 7, 8, 9)  # GP numbers; each button to GND, internal pull-up
LED_PINS = (10, 11, 12, 13, 14, 15, 16, 17)  # GP numbers; LED + resistor to GND
BUZZER_PIN = 18  # GP18; None without a buzzer
BUZZER_PASSIVE = True  # a passive piezo gets a PWM tone; an active one just on/off
STAMPER = "irq"  # "irq" or "pio" (PIO: at most 8 buttons)
READER = None  # None, "pn532" or "rc522"
PN532_UART = (0, 0, 1)  # UART id, TX GP, RX GP (UART0 on GP0/GP1)
RC522_SPI = (1, 26, 27, 28, 22, 21)  # SPI id, SCK, MOSI, MISO, CS, RST (SPI1)
DEBOUNCE_US = 3000
MAINTENANCE_BUTTON = 0  # held at power-up: no bridge, the REPL stays usable (mpremote)
WATCHDOG_MS = 5000
PIO_ACK_US = 2  # from the acknowledgement to reading ticks_us, measured once per build
STAMP_ERR_PIO_US = 3

micropython.alloc_emergency_exception_buf(128)

RING = 64  # a power of two
_MASK = RING - 1
_ring_t = array("I", [0] * RING)  # raw ticks_us of each edge
_ring_e = bytearray(RING)  # button | 0x80 falling | 0x40 rising
_w = 0
_r = 0
_lost = 0
_ticks_us = time.ticks_us
_FALL = machine.Pin.IRQ_FALLING
_RISE = machine.Pin.IRQ_RISING


def _make_isr(index):
    """A hard IRQ handler for one button: stamp first, then record; no allocation."""

    def isr(pin):
        global _w, _lost
        t = _ticks_us()
        flags = pin.irq().flags()
        w = _w
        nxt = (w + 1) & _MASK
        if nxt == _r:
            _lost += 1
            return
        _ring_t[w] = t
        _ring_e[w] = index | (0x80 if flags & _FALL else 0) | (0x40 if flags & _RISE else 0)
        _w = nxt

    return isr


@rp2.asm_pio()
def _edge_counter():
    # Press (the pin goes low): a marker, then count 4-cycle loops until acknowledged.
    wrap_target()
    wait(0, pin, 0)
    mov(x, invert(null))
    mov(isr, null)
    push(noblock)
    label("count_down")
    pull(noblock)  # the acknowledgement, or X again while the TX FIFO is empty
    mov(y, osr)
    jmp(x_not_y, "acked_down")
    jmp(x_dec, "count_down")
    label("acked_down")
    mov(isr, invert(x))
    push(noblock)
    # Release (the pin goes high): the same.
    wait(1, pin, 0)
    mov(x, invert(null))
    mov(isr, null)
    push(noblock)
    label("count_up")
    pull(noblock)
    mov(y, osr)
    jmp(x_not_y, "acked_up")
    jmp(x_dec, "count_up")
    label("acked_up")
    mov(isr, invert(x))
    push(noblock)
    wrap()


class Hal:
    """What core.Core needs of the hardware."""

    def __init__(self, buttons, leds, buzzer):
        self.buttons = buttons
        self.leds = leds
        self.buzzer = buzzer
        self.out = sys.stdout.buffer

    def ticks_us(self):
        return _ticks_us()

    def write(self, frame):
        self.out.write(frame)

    def led(self, index, on):
        self.leds[index].value(1 if on else 0)

    def buzz(self, on, freq_hz):
        if self.buzzer is None:
            return
        if BUZZER_PASSIVE:
            if on:
                self.buzzer.freq(freq_hz or 2000)
                self.buzzer.duty_u16(32768)
            else:
                self.buzzer.duty_u16(0)
        else:
            self.buzzer.value(1 if on else 0)

    def level(self, button):
        return self.buttons[button].value() == 0  # pressed pulls the pin low


def _boot_id():
    seed = 0
    for byte in machine.unique_id():
        seed = (seed * 31 + byte) & 0xFFFFFFFF
    try:
        import os

        seed ^= int.from_bytes(os.urandom(4), "little")
    except (ImportError, AttributeError, OSError):
        seed ^= _ticks_us()
    return seed & 0xFFFFFFFF


def _open_reader():
    if READER == "pn532":
        import readers

        uart_id, tx, rx = PN532_UART
        uart = machine.UART(
            uart_id, 115200, tx=machine.Pin(tx), rx=machine.Pin(rx), timeout=0, rxbuf=256
        )
        return readers.PN532(uart), codec.CAP_PN532
    if READER == "rc522":
        import readers

        spi_id, sck, mosi, miso, cs, rst = RC522_SPI
        spi = machine.SPI(
            spi_id,
            1_000_000,
            sck=machine.Pin(sck),
            mosi=machine.Pin(mosi),
            miso=machine.Pin(miso),
        )
        reset = machine.Pin(rst, machine.Pin.OUT) if rst is not None else None
        return readers.RC522(spi, machine.Pin(cs, machine.Pin.OUT), reset), codec.CAP_RC522
    return None, 0


def _start_pio(buttons):
    machines = []
    for i, pin in enumerate(buttons):
        sm = rp2.StateMachine(i, _edge_counter, in_base=pin)
        sm.active(1)
        machines.append(sm)
    return machines


def _outputs():
    """The LEDs and the buzzer (None without one), and the capability bits they give."""
    leds = [machine.Pin(n, machine.Pin.OUT, value=0) for n in LED_PINS]
    buzzer = None
    caps = codec.CAP_LEDS
    if BUZZER_PIN is not None:
        caps |= codec.CAP_BUZZER
        if BUZZER_PASSIVE:
            buzzer = machine.PWM(machine.Pin(BUZZER_PIN))
            buzzer.duty_u16(0)
        else:
            buzzer = machine.Pin(BUZZER_PIN, machine.Pin.OUT, value=0)
    return leds, buzzer, caps


class Pio:
    """The PIO stampers' bookkeeping: per button, waiting for a marker or for the count."""

    def __init__(self, buttons):
        self.machines = _start_pio(buttons)
        self.phase = bytearray(len(buttons))  # 0 waiting for a marker, 1 for the count
        self.down = bytearray(len(buttons))  # the next edge is a release
        self.acked = array("I", [0] * len(buttons))
        self.cycles_per_us = machine.freq() // 1_000_000

    def drain(self, core):
        for i in range(len(self.machines)):
            sm = self.machines[i]
            if self.phase[i] == 0 and sm.rx_fifo():
                sm.get()  # the marker: acknowledge and read the clock, undisturbed
                state = machine.disable_irq()
                sm.put(0)
                t = _ticks_us()
                machine.enable_irq(state)
                self.acked[i] = t
                self.phase[i] = 1
            if self.phase[i] == 1 and sm.rx_fifo():
                loops = sm.get()
                elapsed = (4 * loops + 8) // self.cycles_per_us + PIO_ACK_US
                core.edge(i, not self.down[i], time.ticks_add(self.acked[i], -elapsed))
                self.down[i] ^= 1
                self.phase[i] = 0


def _drain_ring(core):
    """Edges the pin IRQs stamped, in order; then the count of those the ring dropped."""
    global _r, _lost
    while _r != _w:
        t = _ring_t[_r]
        e = _ring_e[_r]
        _r = (_r + 1) & _MASK
        b = e & 0x3F
        if e & 0x80 and e & 0x40:  # both edges before the IRQ ran: the first counts
            pressed = not core.is_down(b)
        elif e & 0xC0:
            pressed = bool(e & 0x80)
        else:
            pressed = core.hal.level(b)
        core.edge(b, pressed, t)
    if _lost:
        state = machine.disable_irq()
        lost, _lost = _lost, 0
        machine.enable_irq(state)
        core.lost(lost)


def _setup(buttons):
    """The core on its hardware, and the PIO stampers (None when the pin IRQs stamp)."""
    leds, buzzer, caps = _outputs()
    reader, reader_cap = _open_reader()
    caps |= reader_cap
    pio = STAMPER == "pio" and len(buttons) <= 8
    if pio:
        caps |= codec.CAP_PIO
    core = Core(
        Hal(buttons, leds, buzzer),
        len(buttons),
        n_leds=len(leds),
        n_readers=1 if reader is not None else 0,
        caps=caps,
        boot_id=_boot_id(),
        stamp_err_us=STAMP_ERR_PIO_US if pio else STAMP_ERR_IRQ_US,
        debounce_us=DEBOUNCE_US,
    )
    if pio:
        return core, reader, Pio(buttons)
    for i, pin in enumerate(buttons):
        pin.irq(_make_isr(i), machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)
    return core, reader, None


def main():
    buttons = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in BUTTON_PINS]
    time.sleep_ms(5)
    if buttons[MAINTENANCE_BUTTON].value() == 0:
        return  # maintenance: leave the REPL to mpremote
    core, reader, pio = _setup(buttons)
    micropython.kbd_intr(-1)  # a 0x03 inside a frame is data, not Ctrl-C
    stdin = sys.stdin.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    watchdog = machine.WDT(timeout=WATCHDOG_MS)
    next_read = time.ticks_ms()
    inbox = bytearray(64)

    while True:
        watchdog.feed()
        try:
            # 1. edges: from the IRQ ring, or from the PIO state machines
            _drain_ring(core)
            if pio is not None:
                pio.drain(core)
            # 2. the host's bytes
            n = 0
            while n < len(inbox) and poller.poll(0):
                inbox[n] = stdin.read(1)[0]
                n += 1
            if n:
                core.feed(bytes(inbox[:n]))
            # 3. timers, the card reader
            core.poll()
            if reader is not None and time.ticks_diff(time.ticks_ms(), next_read) >= 0:
                next_read = time.ticks_add(time.ticks_ms(), 100)
                try:
                    uid = reader.poll()
                except OSError as exc:
                    core.error(codec.ERR_READER, str(exc))
                    uid = None
                if uid:
                    core.card(0, uid, _ticks_us())
        except Exception as exc:  # never stop: say so and carry on
            try:
                core.error(codec.ERR_INTERNAL, repr(exc))
            except Exception:
                pass
            time.sleep_ms(10)


main()
