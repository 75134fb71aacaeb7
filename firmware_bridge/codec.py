"""The bridge's wire format: COBS frames with a CRC16, and the messages inside them.

One module for both ends of the cable: the host imports it as ``firmware_bridge.codec`` and
the Pico runs the very same file as ``codec.py``. So it keeps to what MicroPython has:
plain functions and classes, ``struct`` and ``binascii`` only, annotations that name
builtins only (MicroPython parses annotations and never evaluates them; CPython 3.11
evaluates them, so no name from ``typing`` may appear), no dataclasses, no enum, no
f-strings. ``PROTOCOL.md`` beside this file is the specification this module implements.

A frame on the wire::

    COBS( type:u8 | seq:u8 | body | crc16:u16 big-endian ) | 0x00

The CRC is CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF, no reflection, no final
xor) over ``type | seq | body``; stored big-endian, the CRC of the whole unstuffed frame
is then zero, which is how a frame is checked.
"""

import struct

try:
    import binascii

    _hqx = getattr(binascii, "crc_hqx", None)  # CPython has it; MicroPython does not
except ImportError:  # pragma: no cover - a MicroPython build without binascii
    _hqx = None

try:  # on the host, a bad frame is one of the bridge's own errors
    from firmware_bridge.errors import BridgeError

    class _ErrorBase(BridgeError, ValueError):
        pass

except ImportError:  # on the Pico (and in MicroPython): a plain ValueError

    class _ErrorBase(ValueError):  # type: ignore[no-redef]
        pass


PROTO_MAJOR = 1  # a different major cannot talk: the host refuses it, naming both
PROTO_MINOR = 0  # additions only: new message types, fields appended at the end

MAX_PAYLOAD = 120  # type + seq + body, before the CRC
MAX_ENCODED = MAX_PAYLOAD + 2 + 2  # + CRC + COBS overhead (one code byte per 254)

# -- message types: host to Pico (0x01-0x7F) -----------------------------------------------
HELLO = 0x01  # start (or resume) a session; answered by IDENTIFY
PING = 0x02  # answered by PONG at once: a clock-sync sample
LED = 0x03  # set an LED pattern; acknowledged
BUZZ = 0x04  # sound the buzzer; acknowledged
CONFIG = 0x05  # debounce lockout and heartbeat period; acknowledged

# -- message types: Pico to host (0x81-0xFF) -----------------------------------------------
IDENTIFY = 0x81
PONG = 0x82
PRESS = 0x83
RELEASE = 0x84
CARD = 0x85
HEARTBEAT = 0x86
ACK = 0x87
ERROR = 0x88
OVERFLOW = 0x89

ACKED = (LED, BUZZ, CONFIG)  # commands the Pico acknowledges and the host retransmits

# -- field values ---------------------------------------------------------------------------
HELLO_RESUME = 0x01  # HELLO flags: resume_boot/resume_evseq are valid

LED_OFF = 0
LED_ON = 1
LED_BLINK = 2

ACK_OK = 0
ACK_UNKNOWN = 1  # a command type this firmware does not know
ACK_BAD_ARGS = 2

ERR_BAD_FRAME = 1  # the Pico received a frame that failed its check
ERR_UNKNOWN_TYPE = 2
ERR_READER = 3  # the card reader stopped answering
ERR_INTERNAL = 4  # an exception in the firmware's loop (it carries on)

CAP_PIO = 0x01  # edges stamped by PIO state machines (else by a hard pin IRQ)
CAP_BUZZER = 0x02
CAP_LEDS = 0x04
CAP_PN532 = 0x08
CAP_RC522 = 0x10

# type -> (name, struct format of the fixed fields, has a length-prefixed tail)
# Every format is little-endian. A receiver reads the fixed fields, then the tail (one
# length byte and that many bytes) if the type has one, and ignores anything after: that is
# where a later minor version appends fields.
LAYOUTS = {
    HELLO: ("hello", "<BBBII", False),  # major, minor, flags, resume_boot, resume_evseq
    PING: ("ping", "<I", False),  # token
    LED: ("led", "<BBHHB", False),  # led, mode, on_ms, off_ms, count (0: forever)
    BUZZ: ("buzz", "<HH", False),  # freq_hz (0: a plain on/off buzzer), duration_ms
    CONFIG: ("config", "<IH", False),  # debounce_us, heartbeat_ms
    # major, minor, boot_id, caps, n_buttons, n_leds, n_readers, stamp_err_us, debounce_us,
    # held (bitmap of buttons down), next_evseq, mcu_us; tail: firmware version (UTF-8)
    IDENTIFY: ("identify", "<BBIHBBBHIIIQ", True),
    PONG: ("pong", "<IQ", False),  # token, mcu_us
    PRESS: ("press", "<BHIQ", False),  # button, bseq, evseq, stamp_us
    RELEASE: ("release", "<BHIQ", False),  # button, bseq, evseq, stamp_us
    CARD: ("card", "<BIQ", True),  # reader, evseq, stamp_us; tail: tag UID
    # mcu_us, next_evseq, overflows, bounces, rx_bad, held
    HEARTBEAT: ("heartbeat", "<QIIIII", False),
    ACK: ("ack", "<BB", False),  # acknowledged command's seq, status
    ERROR: ("error", "<B", True),  # code; tail: text
    OVERFLOW: ("overflow", "<II", False),  # lost since the last report, lost in total
}

_SIZES: dict[int, int] = {}
for _t in LAYOUTS:
    _SIZES[_t] = struct.calcsize(LAYOUTS[_t][1])


class FrameError(_ErrorBase):
    """Bytes that are not a valid frame or message. The host counts these, never raises.

    ``where`` names the part that failed ("cobs", "crc", a message's name)."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(where + ": " + message)


# -- CRC16 ----------------------------------------------------------------------------------

_TABLE: list[int] = []  # built on first use where binascii.crc_hqx is missing (MicroPython)


def _table() -> list[int]:
    if not _TABLE:
        for i in range(256):
            crc = i << 8
            for _ in range(8):
                crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            _TABLE.append(crc & 0xFFFF)
    return _TABLE


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (continuing from ``crc``)."""
    if _hqx is not None:
        return int(_hqx(data, crc))
    table = _table()
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


# -- COBS -----------------------------------------------------------------------------------


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no zero byte.

    Each block is a code byte ``k`` and ``k - 1`` data bytes; a code below 0xFF means a zero
    followed, unless the block is the last one.
    """
    out = bytearray()
    n = len(data)
    start = 0
    while True:
        limit = min(n, start + 254)
        zero = data.find(b"\x00", start, limit)
        if zero < 0:
            out.append(limit - start + 1)
            out += data[start:limit]
            if limit == n:
                return bytes(out)
            start = limit  # a full block of 254: no zero implied after it
        else:
            out.append(zero - start + 1)
            out += data[start:zero]
            start = zero + 1  # ends on a zero: the loop then writes the empty last block


def cobs_decode(data: bytes) -> bytes:
    """Undo :func:`cobs_encode`; a zero byte or a block running off the end is an error."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("cobs", "zero byte inside a frame")
        end = i + code
        if end > n:
            raise FrameError("cobs", "block runs past the end of the frame")
        out += data[i + 1 : end]
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


# -- frames ---------------------------------------------------------------------------------


def encode_frame(payload: bytes) -> bytes:
    """``type | seq | body`` to the bytes that go on the wire, delimiter included."""
    if len(payload) < 2 or len(payload) > MAX_PAYLOAD:
        raise FrameError("frame", "payload of " + str(len(payload)) + " bytes")
    crc = crc16(payload)
    return cobs_encode(payload + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


def decode_frame(encoded: bytes) -> bytes:
    """One frame's bytes (without the 0x00 delimiter) to its checked payload."""
    if len(encoded) > MAX_ENCODED:
        raise FrameError("frame", "longer than any frame")
    raw = cobs_decode(encoded)
    if len(raw) < 4:
        raise FrameError("frame", "too short")
    if crc16(raw) != 0:
        raise FrameError("crc", "checksum mismatch")
    return raw[:-2]


class Deframer:
    """Splits a byte stream at 0x00 delimiters into checked payloads, counting bad frames.

    ``feed`` never raises: whatever arrives (line noise, a REPL banner, half a frame
    after a reconnect) is either a good payload or one more count in ``bad``.
    """

    def __init__(self) -> None:
        self._buf = b""
        self._skipping = False  # inside an over-long run: drop until the next delimiter
        self.frames = 0
        self.bad = 0
        self.bad_crc = 0
        self.bad_cobs = 0
        self.bad_short = 0
        self.bad_long = 0
        self.bytes = 0

    def reset(self) -> None:
        """Forget a partial frame (after a reconnect the first bytes are a new stream)."""
        self._buf = b""
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes]:
        """The payloads completed by ``data`` (a list of bytes), in order."""
        self.bytes += len(data)
        out: list[bytes] = []
        if self._buf:
            data = self._buf + data
        parts = data.split(b"\x00")
        tail = parts.pop()
        for part in parts:
            if self._skipping:
                self._skipping = False
                continue
            if not part:
                continue  # back-to-back delimiters: a sync byte, not a frame
            payload = self._check(part)
            if payload is not None:
                out.append(payload)
        if len(tail) > MAX_ENCODED:
            if not self._skipping:
                self.bad += 1
                self.bad_long += 1
            self._skipping = True
            tail = b""
        self._buf = tail
        return out

    def _check(self, part: bytes) -> bytes | None:
        if len(part) > MAX_ENCODED:
            self.bad += 1
            self.bad_long += 1
            return None
        try:
            raw = cobs_decode(part)
        except FrameError:
            self.bad += 1
            self.bad_cobs += 1
            return None
        if len(raw) < 4:
            self.bad += 1
            self.bad_short += 1
            return None
        if crc16(raw) != 0:
            self.bad += 1
            self.bad_crc += 1
            return None
        self.frames += 1
        return raw[:-2]


# -- messages -------------------------------------------------------------------------------


def pack(mtype: int, seq: int, fields: tuple[int, ...], tail: bytes = b"") -> bytes:
    """A message's payload: ``type | seq | fixed fields | [len | tail]``."""
    layout = LAYOUTS.get(mtype)
    if layout is None:
        raise FrameError("type", "unknown message type " + hex(mtype))
    body = struct.pack(layout[1], *fields)
    head = bytes((mtype, seq & 0xFF))
    if layout[2]:
        if len(tail) > 255:
            raise FrameError(layout[0], "tail longer than 255 bytes")
        return head + body + bytes((len(tail),)) + tail
    return head + body


def unpack(payload: bytes) -> tuple[int, int, tuple[int, ...], bytes]:
    """``(type, seq, fields, tail)`` of a payload.

    A type this version does not know comes back with no fields (the receiver counts and
    skips it, as the versioning rule says); a known type too short for its fields, or
    with a tail running past the end, is a :class:`FrameError`.
    """
    if len(payload) < 2:
        raise FrameError("message", "shorter than its header")
    mtype = payload[0]
    seq = payload[1]
    layout = LAYOUTS.get(mtype)
    if layout is None:
        return mtype, seq, (), b""
    size = _SIZES[mtype]
    if len(payload) < 2 + size:
        raise FrameError(layout[0], "too short for its fields")
    fields = struct.unpack_from(layout[1], payload, 2)
    tail = b""
    if layout[2]:
        at = 2 + size
        if len(payload) < at + 1 or len(payload) < at + 1 + payload[at]:
            raise FrameError(layout[0], "tail runs past the end")
        tail = bytes(payload[at + 1 : at + 1 + payload[at]])
    return mtype, seq, fields, tail


def name_of(mtype: int) -> str:
    layout = LAYOUTS.get(mtype)
    return layout[0] if layout is not None else "type " + hex(mtype)


# -- clocks ---------------------------------------------------------------------------------

TICKS_BITS = 30  # MicroPython's ticks_us() on rp2 counts modulo 2**30 us (17.9 minutes)


def unwrap(raw: int, ref: int, bits: int) -> int:
    """The integer congruent to ``raw`` modulo ``2**bits`` nearest to ``ref``.

    Extends a wrapping counter (``ticks_us``, a 16-bit sequence number) against a full
    value known to be within half a period: ``ref`` is the last extended value or "now".
    """
    period = 1 << bits
    half = period >> 1
    d = (raw - ref) % period
    if d >= half:
        d -= period
    return ref + d
