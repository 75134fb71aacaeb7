"""The Pico's messages decoded into named fields, one type per message.

:mod:`~firmware_bridge.codec` turns a frame into ``(type, seq, fields, tail)`` (it runs on
the Pico too, so it stays with tuples); the host names the fields here, once, so the
session reads ``msg.evseq`` instead of unpacking positions. ``DECODERS`` is the table the
session dispatches on; a type missing from it is a newer minor version's message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from firmware_bridge import codec


class IdentifyMsg(NamedTuple):
    proto_major: int
    proto_minor: int
    boot_id: int
    caps: int
    n_buttons: int
    n_leds: int
    n_readers: int
    stamp_err_us: int
    debounce_us: int
    held: int  # bitmap of buttons down
    next_evseq: int
    mcu_us: int
    firmware: str


class PongMsg(NamedTuple):
    token: int
    mcu_us: int


class EdgeMsg(NamedTuple):
    pressed: bool  # PRESS or RELEASE
    button: int
    bseq: int  # the button's own count (16 bits)
    evseq: int  # the count over all events (32 bits)
    stamp_us: int


class CardMsg(NamedTuple):
    reader: int
    evseq: int
    stamp_us: int
    uid: bytes


class HeartbeatMsg(NamedTuple):
    mcu_us: int
    next_evseq: int
    overflows: int
    bounces: int
    rx_bad: int
    held: int


class AckMsg(NamedTuple):
    seq: int
    status: int


class ErrorMsg(NamedTuple):
    code: int
    text: str


class OverflowMsg(NamedTuple):
    lost: int  # since the last report
    total: int


Message = IdentifyMsg | PongMsg | EdgeMsg | CardMsg | HeartbeatMsg | AckMsg | ErrorMsg | OverflowMsg
Decoder = Callable[[tuple[int, ...], bytes], Message]


def _text(tail: bytes) -> str:
    return tail.decode("utf-8", "replace")


DECODERS: dict[int, Decoder] = {
    codec.IDENTIFY: lambda f, tail: IdentifyMsg._make((*f[:12], _text(tail))),
    codec.PONG: lambda f, _: PongMsg(*f[:2]),
    codec.PRESS: lambda f, _: EdgeMsg(True, f[0], f[1], f[2], f[3]),
    codec.RELEASE: lambda f, _: EdgeMsg(False, f[0], f[1], f[2], f[3]),
    codec.CARD: lambda f, tail: CardMsg._make((*f[:3], tail)),
    codec.HEARTBEAT: lambda f, _: HeartbeatMsg(*f[:6]),
    codec.ACK: lambda f, _: AckMsg(*f[:2]),
    codec.ERROR: lambda f, tail: ErrorMsg(f[0], _text(tail)),
    codec.OVERFLOW: lambda f, _: OverflowMsg(*f[:2]),
}


def decode(mtype: int, fields: tuple[int, ...], tail: bytes) -> Message | None:
    """The named message, or None for a type this version does not know."""
    decoder = DECODERS.get(mtype)
    return decoder(fields, tail) if decoder is not None else None
