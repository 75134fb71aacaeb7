"""The Pico's card readers driven against the chips' documented byte exchanges.

Run by MicroPython (``readers.py`` imported as the Pico imports it) and by CPython alike
(``tests/test_micropython_readers.py``); it prints one line per finding, and the two
interpreters must print the same lines. Not collected by pytest (no ``test_`` prefix).

* PN532 over HSU (NXP UM0701-02, PN532 User Manual): the wake-up and SAMConfiguration,
  RFConfiguration, then InListPassiveTarget polls answered with an ACK frame and a
  response frame (sent in pieces, as a UART delivers them): a 7-byte UID (an
  Ultralight, SENS_RES 0044, SEL_RES 00), the same card again, no card, a 4-byte UID.
* RC522 over SPI (NXP MFRC522 data sheet, ISO/IEC 14443-3): REQA answered by ATQA, the
  anticollision loop (cascade level 1 with the cascade tag 0x88, then level 2) and
  SELECT answered by SAK + CRC_A.
"""

import binascii
import sys

try:
    from firmware_bridge.firmware import readers
except ImportError:  # MicroPython: firmware/ is on MICROPYPATH
    import readers  # type: ignore[import-not-found, no-redef]


def hexs(data):
    return binascii.hexlify(bytes(data)).decode().upper()


# -- PN532 --------------------------------------------------------------------------------

ACK = bytes.fromhex("0000FF00FF00")
SAM = bytes.fromhex("0000FF05FBD4140114010200")  # SAMConfiguration, normal mode
SAM_OK = bytes.fromhex("0000FF02FED5151600")
RFCONF = bytes.fromhex("0000FF06FAD43205FF0102F300")  # RFConfiguration, MaxRetries
RFCONF_OK = bytes.fromhex("0000FF02FED533F800")
POLL = bytes.fromhex("0000FF04FCD44A0100E100")  # InListPassiveTarget, 1 target, 106 kbps A


def target_frame(uid):
    if not uid:
        data = bytes((0xD5, 0x4B, 0x00))
    else:
        data = bytes((0xD5, 0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, len(uid))) + uid
    lcs = (-len(data)) & 0xFF
    dcs = (-sum(data)) & 0xFF
    return bytes((0x00, 0x00, 0xFF, len(data), lcs)) + data + bytes((dcs, 0x00))


class Uart:
    """A UART whose chip answers each expected frame, in pieces of ``chunk`` bytes."""

    def __init__(self, answers, chunk):
        self.answers = answers  # (frame the host must send, what the chip answers)
        self.chunk = chunk
        self.rx = b""
        self.writes = []

    def write(self, data):
        self.writes.append(bytes(data))
        if data.startswith(readers.PN532_WAKEUP):
            data = data[len(readers.PN532_WAKEUP) :]
        if not self.answers:
            return  # the script is over: the chip stays silent
        expected, answer = self.answers.pop(0)
        if bytes(data) != expected:
            print("pn532 unexpected write", hexs(data), "wanted", hexs(expected))
        self.rx += answer

    def read(self):
        if not self.rx:
            return None
        piece, self.rx = self.rx[: self.chunk], self.rx[self.chunk :]
        return piece


def pn532(chunk):
    uid7 = bytes.fromhex("04A1B2C3D4E580")
    uid4 = bytes.fromhex("DEADBEEF")
    answers = [(SAM, ACK + SAM_OK), (RFCONF, ACK + RFCONF_OK)]
    for uid in (uid7, uid7, b"", uid4):
        answers.append((POLL, ACK + target_frame(uid)))
    uart = Uart(answers, chunk)
    chip = readers.PN532(uart)
    found = []
    for _ in range(200):
        if not uart.answers and not uart.rx:
            break
        uid = chip.poll()
        if uid:
            found.append(hexs(uid))
    print("pn532 chunk", chunk, "uids", " ".join(found), "writes", len(uart.writes))
    print("pn532 first write", hexs(uart.writes[0]))


# -- RC522 --------------------------------------------------------------------------------


def crc_a(data):
    return readers.crc_a(data)


class Mfrc522:
    """The chip's side of the SPI exchange: registers, the FIFO, a card answering ISO
    14443-3 commands with the documented frames."""

    def __init__(self, uid):
        self.regs = bytearray(64)
        self.fifo = b""
        self.addr = None
        self.uid = uid
        self.log = []

    def _cascade(self, level):
        if len(self.uid) == 4:
            return self.uid
        return (b"\x88" + self.uid[:3]) if level == 0x93 else self.uid[3:]

    def _answer(self, frame, bits):
        if frame == b"\x26" and bits == 7:
            return b"\x44\x00"  # ATQA of a double-size UID
        if len(frame) == 2 and frame[1] == 0x20:  # anticollision: the UID part + BCC
            part = self._cascade(frame[0])
            return part + bytes((part[0] ^ part[1] ^ part[2] ^ part[3],))
        if len(frame) == 9 and frame[1] == 0x70 and crc_a(frame[:7]) == frame[7:]:
            sak = 0x04 if len(self.uid) == 7 and frame[0] == 0x93 else 0x08
            return bytes((sak,)) + crc_a(bytes((sak,)))
        return None

    def write_reg(self, reg, value):
        self.log.append((reg, value))
        if reg == 0x09:  # FIFODataReg
            self.fifo += bytes((value,))
        elif reg == 0x0A and value & 0x80:  # FIFOLevelReg FlushBuffer
            self.fifo = b""
        elif reg == 0x0D and value & 0x80:  # BitFramingReg StartSend
            answer = self._answer(self.fifo, value & 0x07)
            self.fifo = answer or b""
            self.regs[0x04] = 0x30 if answer is not None else 0x01  # RxIRq|IdleIRq, or timer
        elif reg != 0x04:
            self.regs[reg] = value

    def read_reg(self, reg):
        if reg == 0x0A:
            return len(self.fifo)
        if reg == 0x09:
            value, self.fifo = self.fifo[0], self.fifo[1:]
            return value
        if reg == 0x06:
            return 0
        return self.regs[reg]


class Spi:
    def __init__(self, chip):
        self.chip = chip
        self.read_addr = None
        self.bytes_out = 0

    def write(self, data):
        self.bytes_out += len(data)
        if data[0] & 0x80:
            self.read_addr = (data[0] >> 1) & 0x3F
        else:
            self.chip.write_reg((data[0] >> 1) & 0x3F, data[1])

    def read(self, n):
        return bytes((self.chip.read_reg(self.read_addr),))


class Pin:
    def __init__(self):
        self.level = 1

    def value(self, v):
        self.level = v


def rc522(uid):
    chip = Mfrc522(uid)
    spi = Spi(chip)
    reader = readers.RC522(spi, Pin(), Pin())
    first = reader.poll()
    again = reader.poll()  # the card still lies there: not reported twice
    chip.uid = None
    chip._answer = lambda frame, bits: None  # the card is taken away
    gone = [reader.poll(), reader.poll()]
    print("rc522", hexs(uid), "read", hexs(first or b""), "again", again, "gone", gone)
    print("rc522 spi bytes", spi.bytes_out, "antenna", chip.regs[0x14] & 0x03)


for size in (4, 9, 64):  # a UART hands over what arrived since the last poll
    pn532(size)
rc522(bytes.fromhex("DEADBEEF"))
rc522(bytes.fromhex("04A1B2C3D4E580"))
print("done", sys.implementation.name in ("micropython", "cpython"))
