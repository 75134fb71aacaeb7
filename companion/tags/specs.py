"""Opening a tag reader from its command-line name (``--reader``, ``tags.readers``).

Apart from :mod:`companion.tags.readers` so that the PN532 driver, which builds on the
readers' serial plumbing, is imported by this module and not by the readers themselves
(no cycle between the two).
"""

from __future__ import annotations

from typing import TextIO

from companion import text as gate
from companion.errors import InputError
from companion.tags.pn532 import DEFAULT_BAUD, Pn532Reader
from companion.tags.readers import (
    BRIDGE,
    KEYBOARD,
    BridgeReader,
    KeyboardWedgeReader,
    SerialLineReader,
    TagReader,
    bridge_hook,
)

READER_HELP = (
    "serial:PORT[@BAUD] (a barcode scanner in serial mode), pn532:PORT[@BAUD] "
    "(a PN532 on a UART), keyboard (a keyboard-wedge scanner on stdin), bridge (the Pico "
    "bridge's readers)"
)


def _port_and_baud(spec: str, rest: str, default: int, where: str) -> tuple[str, int]:
    port, _, baud = rest.partition("@")
    if not port:
        raise InputError(where, f"{spec!r}: name the port, e.g. {spec.split(':')[0]}:/dev/ttyUSB0")
    if not baud:
        return port, default
    rate = gate.number_or_none(baud, low=300, high=4_000_000)
    if rate is None:
        raise InputError(where, f"{spec!r}: {baud!r} is not a baud rate")
    return port, rate


def open_reader(spec: str, stdin: TextIO, index: int = 0, where: str = "--reader") -> TagReader:
    """A reader from its command-line name (:data:`READER_HELP`)."""
    kind, _, rest = spec.partition(":")
    if kind == "serial":
        port, baud = _port_and_baud(spec, rest, 9600, where)
        return SerialLineReader(port, index, baud)
    if kind == "pn532":
        port, baud = _port_and_baud(spec, rest, DEFAULT_BAUD, where)
        return Pn532Reader(port, index, baud)
    if spec == KEYBOARD:
        return KeyboardWedgeReader(stdin, index)
    if spec == BRIDGE:
        hook = bridge_hook()
        if hook is None:
            raise InputError(
                where,
                "bridge: the Pico bridge is not configured in this installation, so its card "
                "readers cannot be used; use pn532:PORT, serial:PORT or keyboard",
            )
        return BridgeReader(hook)
    raise InputError(where, f"unknown reader {spec!r} (one of: {READER_HELP})")
