"""The image gate: every photo from outside is measured from its header before anything
decodes it (docs/scan.md, "The image gate").

A decoder trusts the size a file's header claims: a 631-byte JPEG claiming 32000 x 32000
pixels makes OpenCV allocate gigabytes before it finds there is no picture. So the
format and the pixel size are read here, in pure Python, from the first bytes; what is
no photo of a land (too many pixels, a strip, a sliver, a format no camera writes, a
header cut short) is one :class:`~companion.errors.InputError`, and what is a photo is
decoded by :func:`decode`, the one place in companion that hands outside bytes to
``cv2.imdecode``. A photo bigger than the scan needs (a 50 or 200 MP phone photo) is
decoded at half, a quarter or an eighth of its size: a JPEG by its decoder as it reads
it (the pixels at full size never exist), other formats whole and then reduced, which is
why they are taken only up to a smaller size (the decoding budget below).
"""

from __future__ import annotations

import contextlib
import math
import os
import struct
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from companion.data import read_bytes
from companion.errors import InputError

FORMATS = "JPEG, PNG, WebP, TIFF, BMP or GIF"
MAX_PHOTO_BYTES = 60_000_000  # a file on the command line; the web page has its own limit
MAX_PIXELS = 200_000_000  # the largest phone sensors (200 MP); beyond is no photo
MAX_ASPECT = 4  # the long side at most 4 times the short: 4:3, 3:2, 16:9 and 2:1 pass
MIN_SIDE = 200  # fewer pixels a side cannot show a land's markers
WORK_PIXELS = 16_800_000  # what the scan is given at most: a 64 MP photo halved fits
MIN_WORK_SIDE = 2000  # nor reduced below this long side only to save memory (scan.md)
DECODE_BYTES = 200_000_000  # what decoding may hold at once (Plan.decode_bytes)

_JPEG_SOF = {
    0xC0: "baseline",
    0xC1: "extended",
    0xC2: "progressive",
    0xC9: "arithmetic",
    0xCA: "progressive arithmetic",
}
_JPEG_REFUSED_SOF = {0xC3, 0xC5, 0xC6, 0xC7, 0xCB, 0xCD, 0xCE, 0xCF}  # lossless, hierarchical
_JPEG_STANDALONE = {0x01, *range(0xD0, 0xD8)}


@dataclass(frozen=True, slots=True)
class Header:
    """What a photo's header says: its format, its size in pixels, and the bytes the
    decoder needs beside the decoded image (``per_pixel`` for each pixel at full size,
    ``extra`` once: a progressive JPEG's coefficients)."""

    format: str
    width: int
    height: int
    per_pixel: int = 0
    extra: int = 0


@dataclass(frozen=True, slots=True)
class Plan:
    """How a checked photo is decoded: its header, and by how much it is reduced."""

    header: Header
    reduce: int  # 1, 2, 4 or 8

    @property
    def size(self) -> tuple[int, int]:
        """The decoded image's width and height (at most; a decoder rounds up or down)."""
        r = self.reduce
        return -(-self.header.width // r), -(-self.header.height // r)

    @property
    def decode_bytes(self) -> int:
        """About what decoding holds at once: the image given and its copy turned upright
        (EXIF), and the decoder's own: the image at full size where it cannot reduce as
        it reads, a progressive JPEG's coefficients."""
        width, height = self.size
        full = self.header.width * self.header.height
        return 2 * 3 * width * height + self.header.per_pixel * full + self.header.extra


def read_header(raw: bytes, where: str) -> Header:
    """The format and size from the first bytes, or one line saying why it is no photo."""
    if not raw:
        raise InputError(where, f"the file is empty: send a photo ({FORMATS})")
    if raw[:3] == b"\xff\xd8\xff":
        return _jpeg(raw, where)
    if raw[:8] == b"\x89PNG\r\n\x1a\n":
        return _png(raw, where)
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return _webp(raw, where)
    if raw[:4] in (b"II*\0", b"MM\0*"):
        return _tiff(raw, where)
    if raw[:4] in (b"II+\0", b"MM\0+"):
        raise InputError(where, "a BigTIFF: no photo is that big; save it as JPEG")
    if raw[:2] == b"BM":
        return _bmp(raw, where)
    if raw[:6] in (b"GIF87a", b"GIF89a"):
        return _gif(raw, where)
    raise InputError(where, f"not a photo the scan takes ({FORMATS})")


def plan(raw: bytes, where: str) -> Plan:
    """The header checked against the limits, and the reduction it is decoded at."""
    header = read_header(raw, where)
    width, height = header.width, header.height
    size = f"{width} x {height} pixels"
    if width * height > MAX_PIXELS:
        raise InputError(where, f"{size}: too big for a photo (at most {MAX_PIXELS:,})")
    short, long = sorted((width, height))
    if short < MIN_SIDE or long > MAX_ASPECT * short:
        raise InputError(
            where,
            f"{size}: not a photo of a land (each side at least {MIN_SIDE}, "
            f"the long side at most {MAX_ASPECT} times the short)",
        )
    reduce = 1
    while reduce < 8 and math.ceil(width / reduce) * math.ceil(height / reduce) > WORK_PIXELS:
        reduce *= 2
    chosen = Plan(header, reduce)
    while chosen.decode_bytes > DECODE_BYTES and chosen.reduce < 8:
        smaller = Plan(header, chosen.reduce * 2)  # room for the decoder's own buffers
        if max(smaller.size) < MIN_WORK_SIDE:
            break
        chosen = smaller
    need = chosen.decode_bytes
    if need > DECODE_BYTES:
        mb = DECODE_BYTES // 1_000_000
        raise InputError(
            where,
            f"{size} {header.format}: decoding it would take about {need // 1_000_000} MB, "
            f"more than the {mb} MB allowed; save it as a baseline JPEG (up to "
            f"{MAX_PIXELS // 1_000_000} MP)",
        )
    return chosen


def decode(raw: bytes, where: str) -> Any:
    """The photo as a BGR image, once :func:`plan` found it is one: the only place that
    hands outside bytes to OpenCV's decoder."""
    chosen = plan(raw, where)
    import cv2
    import numpy as np

    flag = {
        1: cv2.IMREAD_COLOR,
        2: cv2.IMREAD_REDUCED_COLOR_2,
        4: cv2.IMREAD_REDUCED_COLOR_4,
        8: cv2.IMREAD_REDUCED_COLOR_8,
    }[chosen.reduce]
    try:
        image = cv2.imdecode(np.frombuffer(raw, np.uint8), flag)
    except cv2.error:
        image = None
    name = chosen.header.format
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise InputError(where, f"a {name} whose pixels cannot be read (damaged or cut short?)")
    width, height = chosen.size
    got = sorted(image.shape[:2])
    if got[0] < min(width, height) - 1 or got[1] > max(width, height):
        raise InputError(
            where, f"a {name} whose pixels are not the size its header says (damaged?)"
        )
    return image


def open_photo(path: str) -> Any:
    """A photo file, read with a limit and decoded through the gate; errors name it.
    On the command line, so what the C decoders print of a damaged file (libpng's
    errors, libjpeg's warnings, OpenCV's log) is kept off the terminal: the refusal
    is one line."""
    raw = read_bytes(path, MAX_PHOTO_BYTES, "file")
    with _quiet_stderr():
        return decode(raw, path)


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 pointed at /dev/null meanwhile (C libraries write there, not
    to ``sys.stderr``); a process without one is left as it is."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


# --------------------------------------------------------------------------------------
# The headers, format by format
# --------------------------------------------------------------------------------------


def _cut(where: str, name: str) -> InputError:
    return InputError(where, f"a {name} whose header is cut short: not a whole photo")


def _jpeg(raw: bytes, where: str) -> Header:
    """Walk the markers to the frame header (SOFn), then to the first scan: a
    progressive JPEG, or one whose first scan holds fewer components than the frame,
    is decoded through a buffer of every coefficient (2 bytes each)."""
    at, frame = 2, None
    while True:
        if at < len(raw) and raw[at] != 0xFF:
            raise InputError(where, "a JPEG whose markers are broken: not a whole photo")
        while at < len(raw) and raw[at] == 0xFF:  # the marker's 0xFF and any fill bytes
            at += 1
        if at >= len(raw):
            raise _cut(where, "JPEG")
        marker, at = raw[at], at + 1
        if marker in _JPEG_STANDALONE:
            continue
        if marker == 0xD9 or (marker == 0xDA and frame is None):
            raise InputError(where, "a JPEG without a frame header: not a photo")
        if at + 2 > len(raw):
            raise _cut(where, "JPEG")
        length = int.from_bytes(raw[at : at + 2], "big")
        body = raw[at + 2 : at + length]
        if length < 2 or len(body) < length - 2:
            raise _cut(where, "JPEG")
        if marker == 0xDA:
            assert frame is not None
            return _jpeg_header(frame, body[0] if body else 0, where)
        if marker in _JPEG_REFUSED_SOF:
            raise InputError(where, "a lossless or hierarchical JPEG: no camera writes one")
        if marker in _JPEG_SOF:
            if frame is not None:
                raise InputError(where, "a JPEG with two frame headers: not a photo")
            frame = (marker, body)
        at += length


def _jpeg_header(frame: tuple[int, bytes], scan_components: int, where: str) -> Header:
    marker, body = frame
    if len(body) < 6:
        raise _cut(where, "JPEG")
    if body[0] != 8:
        raise InputError(where, f"a {body[0]}-bit JPEG: cameras write 8 bits; save it as one")
    height, width, count = struct.unpack(">HHB", body[1:6])
    if height == 0 or width == 0:
        raise InputError(where, "a JPEG that does not say its size in its header")
    if count not in (1, 3, 4) or len(body) < 6 + 3 * count:
        raise InputError(where, f"a JPEG of {count} components: not a photo")
    factors = [(body[7 + 3 * k] >> 4, body[7 + 3 * k] & 15) for k in range(count)]
    if any(not (1 <= h <= 4 and 1 <= v <= 4) for h, v in factors):
        raise InputError(where, "a JPEG whose sampling factors are not 1 to 4")
    name = f"{_JPEG_SOF[marker]} JPEG"
    extra = 0
    if marker in (0xC2, 0xCA) or scan_components < count:
        hmax, vmax = max(h for h, _ in factors), max(v for _, v in factors)
        across, down = -(-width // (8 * hmax)), -(-height // (8 * vmax))
        extra = sum(across * h * down * v * 64 * 2 for h, v in factors)
    return Header(name, width, height, 0, extra)


def _png(raw: bytes, where: str) -> Header:
    if len(raw) < 29 or raw[12:16] != b"IHDR":
        raise _cut(where, "PNG")
    width, height = struct.unpack(">II", raw[16:24])
    if width == 0 or height == 0:
        raise InputError(where, "a PNG of no pixels")
    return Header("PNG", width, height, per_pixel=4)


def _webp(raw: bytes, where: str) -> Header:
    chunk = raw[12:16]
    if chunk == b"VP8 ":
        if len(raw) < 30:
            raise _cut(where, "WebP")
        if raw[23:26] != b"\x9d\x01\x2a":
            raise InputError(where, "a WebP whose frame is broken: not a photo")
        width, height = struct.unpack("<HH", raw[26:30])
        width, height = width & 0x3FFF, height & 0x3FFF
    elif chunk == b"VP8L":
        if len(raw) < 25:
            raise _cut(where, "WebP")
        bits = int.from_bytes(raw[21:25], "little")
        width, height = (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    elif chunk == b"VP8X":
        if len(raw) < 30:
            raise _cut(where, "WebP")
        width = int.from_bytes(raw[24:27], "little") + 1
        height = int.from_bytes(raw[27:30], "little") + 1
    elif len(raw) < 16:
        raise _cut(where, "WebP")
    else:
        raise InputError(where, "a WebP of an unknown kind: not a photo")
    if width == 0 or height == 0:
        raise InputError(where, "a WebP of no pixels")
    return Header("WebP", width, height, per_pixel=8)  # RGBA, then BGR, at full size


def _tiff(raw: bytes, where: str) -> Header:
    """The first image (IFD) of a TIFF: its width, length, samples and bits."""
    order = "<" if raw[:2] == b"II" else ">"
    if len(raw) < 8:
        raise _cut(where, "TIFF")
    (first,) = struct.unpack(order + "I", raw[4:8])
    if first < 8 or first + 2 > len(raw):
        raise _cut(where, "TIFF")
    (entries,) = struct.unpack(order + "H", raw[first : first + 2])
    if first + 2 + 12 * entries > len(raw):
        raise _cut(where, "TIFF")
    tags: dict[int, int] = {}
    for k in range(entries):
        at = first + 2 + 12 * k
        tag, kind, count = struct.unpack(order + "HHI", raw[at : at + 8])
        if kind not in (3, 4) or count < 1:
            continue
        size = 2 if kind == 3 else 4
        if size * count > 4:  # the values lie elsewhere: the first of them is enough
            (at,) = struct.unpack(order + "I", raw[at + 8 : at + 12])
            at -= 8
            if at + 8 + size > len(raw):
                continue
        tags[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), raw[at + 8 : at + 8 + size])[
            0
        ]
    width, height = tags.get(256, 0), tags.get(257, 0)
    if width == 0 or height == 0:
        raise InputError(where, "a TIFF whose first image does not say its size")
    samples = min(max(tags.get(277, 4), 1), 8)
    bits = tags.get(258, 16)
    depth = -(-samples * min(max(bits, 8), 64) // 8)
    return Header("TIFF", width, height, per_pixel=depth + 4)  # the strip, the image read


def _bmp(raw: bytes, where: str) -> Header:
    if len(raw) < 18:
        raise _cut(where, "BMP")
    (size,) = struct.unpack("<I", raw[14:18])
    if size == 12:
        if len(raw) < 22:
            raise _cut(where, "BMP")
        width, height = struct.unpack("<HH", raw[18:22])
    elif size in (16, 40, 52, 56, 64, 108, 124):
        if len(raw) < 26:
            raise _cut(where, "BMP")
        width, height = struct.unpack("<ii", raw[18:26])
        height = abs(height)  # a negative height is a top-down bitmap
    else:
        raise InputError(where, f"a BMP whose header ({size} bytes) is of no known version")
    if width <= 0 or height == 0:
        raise InputError(where, f"a BMP of {width} x {height} pixels")
    return Header("BMP", width, height, per_pixel=4)


def _gif(raw: bytes, where: str) -> Header:
    """The screen's size, grown to the first image's if that reaches past it."""
    if len(raw) < 13:
        raise _cut(where, "GIF")
    width, height = struct.unpack("<HH", raw[6:10])
    at = 13 + (3 << ((raw[10] & 7) + 1) if raw[10] & 0x80 else 0)
    while True:
        if at >= len(raw):
            raise _cut(where, "GIF")
        if raw[at] == 0x21:  # an extension: its label, then sub-blocks to a zero
            at += 2
            while at < len(raw) and raw[at]:
                at += raw[at] + 1
            at += 1
        elif raw[at] == 0x2C:
            if at + 9 > len(raw):
                raise _cut(where, "GIF")
            left, top, w, h = struct.unpack("<HHHH", raw[at + 1 : at + 9])
            width, height = max(width, left + w), max(height, top + h)
            break
        else:
            raise InputError(where, "a GIF without an image: not a photo")
    if width == 0 or height == 0:
        raise InputError(where, "a GIF of no pixels")
    return Header("GIF", width, height, per_pixel=8)
