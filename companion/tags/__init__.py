"""Card tags: NFC tags or barcodes on the cards, so the table reads the cards itself.

* :mod:`companion.tags.readers`: the readers (a serial barcode scanner, a keyboard-wedge
  scanner, a queue the Pico bridge pushes into) and the :class:`TagRead` they report.
* :mod:`companion.tags.pn532`: the PN532 NFC reader on a UART.
* :mod:`companion.tags.specs`: a reader from its command-line name (``open_reader``).
* :mod:`companion.tags.tagfile`: which tag is on which card, one JSON file per game.
* :mod:`companion.tags.reveal`: a round's cards from the reads, complete or a prompt.

``companion tags learn`` (:mod:`companion.commands.tags`) builds a tag file; docs/tags.md
is the guide.
"""

from __future__ import annotations

from companion.tags.readers import (
    CallbackReader,
    KeyboardWedgeReader,
    ReaderPool,
    SerialLineReader,
    TagKind,
    TagRead,
    TagReader,
    set_bridge_hook,
    typed_line,
)
from companion.tags.reveal import (
    ChompTagReveal,
    GetBitTagReveal,
    RevealRunner,
    TagReveal,
    Update,
)
from companion.tags.specs import open_reader
from companion.tags.tagfile import TagFile, load_tagfile, save_tagfile

__all__ = [
    "CallbackReader",
    "ChompTagReveal",
    "GetBitTagReveal",
    "KeyboardWedgeReader",
    "ReaderPool",
    "RevealRunner",
    "SerialLineReader",
    "TagFile",
    "TagKind",
    "TagRead",
    "TagReader",
    "TagReveal",
    "Update",
    "load_tagfile",
    "open_reader",
    "save_tagfile",
    "set_bridge_hook",
    "typed_line",
]
