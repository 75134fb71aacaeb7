"""Card readers for the bridge firmware: a PN532 on a UART, an RC522 on SPI (MicroPython).

Each reader has ``poll()``, called every ``POLL_MS`` from the main loop: it returns a tag's
UID (bytes) once when the tag comes onto the reader, else None, and never blocks for more
than a few milliseconds. A reader that stops answering raises ``OSError`` (the main loop
reports it to the host as an ERROR message and carries on).

The frame and CRC helpers are plain functions, so the host's tests can check them.
"""

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython
    TYPE_CHECKING = False  # type: ignore[misc]

if TYPE_CHECKING:
    from typing import Any

POLL_MS = 100

# -- PN532 over UART (NXP UM0701-02) ------------------------------------------------------

PN532_WAKEUP = b"\x55\x55\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
PN532_ACK = b"\x00\x00\xff\x00\xff\x00"


def pn532_frame(data: bytes) -> bytes:
    """A normal information frame from the host: preamble, length, TFI 0xD4, data, checksum."""
    body = b"\xd4" + data
    length = len(body)
    dcs = (-sum(body)) & 0xFF
    return bytes((0x00, 0x00, 0xFF, length, (-length) & 0xFF)) + body + bytes((dcs, 0x00))


def pn532_parse(buf: bytes) -> tuple[bytes | None, int]:
    """The first complete response frame's data (after TFI 0xD5) in ``buf``, and how many
    bytes of ``buf`` were used up; ``(None, n)`` when no whole frame is there yet."""
    start = buf.find(b"\x00\xff")
    while start >= 0:
        if len(buf) < start + 4:
            return None, start
        length, lcs = buf[start + 2], buf[start + 3]
        if length == 0 and lcs == 0xFF:  # an ACK frame
            start = buf.find(b"\x00\xff", start + 4)
            continue
        if (length + lcs) & 0xFF != 0:
            start = buf.find(b"\x00\xff", start + 2)
            continue
        end = start + 4 + length + 1
        if len(buf) < end:
            return None, start
        body = buf[start + 4 : start + 4 + length]
        if (sum(body) + buf[end - 1]) & 0xFF != 0 or not body or body[0] != 0xD5:
            start = buf.find(b"\x00\xff", start + 2)
            continue
        return bytes(body[1:]), end
    return None, max(0, len(buf) - 1)


def pn532_uid(response: bytes) -> bytes | None:
    """The UID in an InListPassiveTarget response (``4B NbTg Tg SENS_RES SEL_RES len UID``)."""
    if len(response) < 2 or response[0] != 0x4B or response[1] == 0:
        return None
    if len(response) < 7:
        return None
    n = response[6]
    uid = response[7 : 7 + n]
    return bytes(uid) if len(uid) == n and n else None


class PN532:
    """A PN532 on a UART (HSU mode: its two switches to UART). Non-blocking polling."""

    def __init__(self, uart: "Any") -> None:
        self.uart = uart
        self._buf = b""
        self._last: bytes | None = None
        self._waiting = False
        self._since = 0
        uart.write(PN532_WAKEUP + pn532_frame(b"\x14\x01\x14\x01"))  # SAMConfiguration
        # RFConfiguration item 5: give up on an absent card after 2 tries, so each
        # InListPassiveTarget answers at once instead of waiting for a card.
        uart.write(pn532_frame(b"\x32\x05\xff\x01\x02"))
        self._expect = 2

    def poll(self) -> bytes | None:
        data = self.uart.read()
        if data:
            self._buf += data
        while True:
            response, used = pn532_parse(self._buf)
            self._buf = self._buf[used:]
            if response is None:
                break
            if self._expect:
                self._expect -= 1  # the answers to the set-up commands
                continue
            self._waiting = False
            uid = pn532_uid(response)
            fresh = uid is not None and uid != self._last
            self._last = uid
            if fresh:
                return uid
        if self._expect:
            self._since += 1
            if self._since > 10:  # the set-up answers never came: go on regardless
                self._expect = 0
        elif not self._waiting:
            self.uart.write(pn532_frame(b"\x4a\x01\x00"))  # InListPassiveTarget, 106 kbps A
            self._waiting = True
            self._since = 0
        elif self._waiting:
            self._since += 1
            if self._since > 20:  # 2 s without an answer
                self._waiting = False
                raise OSError("PN532 does not answer")
        return None


# -- RC522 over SPI (NXP MFRC522) ---------------------------------------------------------

_COMMAND, _COM_IRQ, _ERROR, _FIFO_DATA, _FIFO_LEVEL = 0x01, 0x04, 0x06, 0x09, 0x0A
_BIT_FRAMING, _MODE, _TX_CONTROL, _TX_ASK = 0x0D, 0x11, 0x14, 0x15
_T_MODE, _T_PRESCALER, _T_RELOAD_H, _T_RELOAD_L = 0x2A, 0x2B, 0x2C, 0x2D
_IDLE, _TRANSCEIVE, _SOFT_RESET = 0x00, 0x0C, 0x0F


def crc_a(data: bytes) -> bytes:
    """ISO/IEC 14443-3 CRC_A (initial 0x6363, reflected 0x8408), low byte first."""
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
        crc &= 0xFFFF
    return bytes((crc & 0xFF, crc >> 8))


class RC522:
    """An MFRC522 on SPI, reading 4- and 7-byte UIDs (cascade levels 1 and 2)."""

    def __init__(self, spi: "Any", cs: "Any", reset: "Any" = None) -> None:
        self.spi = spi
        self.cs = cs
        cs.value(1)
        if reset is not None:
            reset.value(1)
        self._write(_COMMAND, _SOFT_RESET)
        self._write(_T_MODE, 0x8D)  # timer starts after each transmission
        self._write(_T_PRESCALER, 0x3E)  # about 2 kHz
        self._write(_T_RELOAD_H, 0)
        self._write(_T_RELOAD_L, 6)  # about 3 ms: an absent card costs little
        self._write(_TX_ASK, 0x40)
        self._write(_MODE, 0x3D)
        self._write(_TX_CONTROL, self._read(_TX_CONTROL) | 0x03)  # antenna on
        self._last: bytes | None = None
        self._absent = 0

    def _write(self, reg: int, value: int) -> None:
        self.cs.value(0)
        self.spi.write(bytes(((reg << 1) & 0x7E, value)))
        self.cs.value(1)

    def _read(self, reg: int) -> int:
        self.cs.value(0)
        self.spi.write(bytes((((reg << 1) & 0x7E) | 0x80,)))
        value = self.spi.read(1)[0]
        self.cs.value(1)
        return int(value)

    def _transceive(self, data: bytes, bits: int = 0) -> bytes | None:
        self._write(_COMMAND, _IDLE)
        self._write(_COM_IRQ, 0x7F)
        self._write(_FIFO_LEVEL, 0x80)
        for byte in data:
            self._write(_FIFO_DATA, byte)
        self._write(_BIT_FRAMING, bits)
        self._write(_COMMAND, _TRANSCEIVE)
        self._write(_BIT_FRAMING, bits | 0x80)  # StartSend
        for _ in range(200):
            irq = self._read(_COM_IRQ)
            if irq & 0x30:  # RxIRq or IdleIRq
                break
            if irq & 0x01:  # the timer ran out: no card
                return None
        else:
            raise OSError("RC522 does not answer")
        if self._read(_ERROR) & 0x1B:
            return None
        n = self._read(_FIFO_LEVEL)
        return bytes(self._read(_FIFO_DATA) for _ in range(n))

    def _level(self, sel: int) -> bytes | None:
        part = self._transceive(bytes((sel, 0x20)))  # anticollision
        if part is None or len(part) != 5 or part[0] ^ part[1] ^ part[2] ^ part[3] != part[4]:
            return None
        frame = bytes((sel, 0x70)) + part
        sak = self._transceive(frame + crc_a(frame))  # SELECT
        if sak is None:
            return None
        return part[:4]

    def poll(self) -> bytes | None:
        atqa = self._transceive(b"\x26", 0x07)  # REQA, 7 bits
        if atqa is None:
            self._absent += 1
            if self._absent >= 2:
                self._last = None
            return None
        self._absent = 0
        uid = self._level(0x93)
        if uid is not None and uid[0] == 0x88:  # cascade tag: a 7-byte UID
            rest = self._level(0x95)
            uid = uid[1:] + rest if rest is not None else None
        fresh = uid is not None and uid != self._last
        if uid is not None:
            self._last = uid
        return uid if fresh else None
