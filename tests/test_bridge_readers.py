"""The firmware's card-reader helpers (pure functions; the drivers need a real Pico)."""

from __future__ import annotations

from firmware_bridge.firmware import readers

UID7 = bytes.fromhex("04A1B2C3D4E580")


def pn532_response(data: bytes) -> bytes:
    body = b"\xd5" + data
    return (
        bytes((0x00, 0x00, 0xFF, len(body), (-len(body)) & 0xFF))
        + body
        + bytes(((-sum(body)) & 0xFF, 0x00))
    )


def test_crc_a_matches_iso_14443_3_examples() -> None:
    assert readers.crc_a(b"\x00\x00") == b"\xa0\x1e"
    assert readers.crc_a(b"\x12\x34") == b"\x26\xcf"  # bytes in the order they are sent


def test_pn532_command_frame() -> None:
    # InListPassiveTarget, one target, 106 kbps type A: the manual's frame byte for byte
    assert readers.pn532_frame(b"\x4a\x01\x00") == bytes.fromhex("0000FF04FCD44A0100E100")


def test_pn532_response_after_ack_and_noise_in_pieces() -> None:
    frame = pn532_response(b"\x4b\x01\x01\x00\x44\x00\x07" + UID7)
    stream = b"\x13\x37" + readers.PN532_ACK + frame
    buf = b""
    found = None
    for byte in stream:
        buf += bytes((byte,))
        data, used = readers.pn532_parse(buf)
        buf = buf[used:]
        if data is not None:
            found = data
    assert found is not None and readers.pn532_uid(found) == UID7
    assert buf in (b"", b"\x00")  # at most the postamble is left over


def test_pn532_no_card_and_bad_checksum() -> None:
    assert readers.pn532_uid(b"\x4b\x00") is None
    bad = bytearray(pn532_response(b"\x4b\x01\x01\x00\x44\x00\x04\x01\x02\x03\x04"))
    bad[-2] ^= 0xFF
    assert readers.pn532_parse(bytes(bad))[0] is None
