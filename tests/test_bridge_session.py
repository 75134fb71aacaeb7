"""The bridge's host session as a declared machine, and the bridge as a library of its own."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from firmware_bridge import codec
from firmware_bridge.errors import BridgeConfigError, BridgeError, LinkStateError
from firmware_bridge.events import BridgeEdge
from firmware_bridge.firmware.core import Core
from firmware_bridge.link import TRANSITIONS, BridgeTiming, LinkState, check_move
from firmware_bridge.messages import DECODERS, EdgeMsg, IdentifyMsg, decode
from firmware_bridge.session import BridgeSession

PACKAGE = Path(__file__).resolve().parent.parent / "firmware_bridge"


def test_every_pico_message_has_a_decoder_with_one_name_per_field() -> None:
    to_host = [t for t in codec.LAYOUTS if t >= 0x80]
    assert sorted(DECODERS) == sorted(to_host)
    for mtype in to_host:
        _name, fmt, has_tail = codec.LAYOUTS[mtype]
        n_fields = len(struct.unpack(fmt, bytes(struct.calcsize(fmt))))
        msg = decode(mtype, tuple(range(n_fields)), b"x" if has_tail else b"")
        assert msg is not None
        extra = 1 if mtype in (codec.PRESS, codec.RELEASE) else 0  # pressed, from the type
        assert len(msg._fields) == n_fields + extra + (1 if has_tail else 0)
    assert decode(0xFE, (), b"") is None


def test_decoded_edges_and_identify_name_their_fields() -> None:
    edge = decode(codec.RELEASE, (3, 7, 99, 123456), b"")
    assert edge == EdgeMsg(pressed=False, button=3, bseq=7, evseq=99, stamp_us=123456)
    ident = decode(codec.IDENTIFY, (1, 0, 5, 0, 4, 0, 0, 100, 3000, 0b10, 1, 77), b"fw-9")
    assert isinstance(ident, IdentifyMsg) and ident.firmware == "fw-9" and ident.held == 2


def test_the_transition_table_is_closed_and_refuses_the_rest() -> None:
    assert set(TRANSITIONS) == set(LinkState)
    for state in LinkState:
        check_move(state, state)  # staying put is no move
        for to in LinkState:
            if to is not state and to not in TRANSITIONS[state]:
                with pytest.raises(LinkStateError):
                    check_move(state, to)
    assert issubclass(LinkStateError, BridgeError) and issubclass(LinkStateError, RuntimeError)


class Wire:
    """A session and a firmware core joined directly, on a hand-driven clock."""

    def __init__(self, timing: BridgeTiming | None = None) -> None:
        self.now_ns = 10**9
        self.edges: list[BridgeEdge] = []
        self.messages: list[str] = []
        self.core = Core(self, 4, boot_id=42, debounce_us=0)
        self.session = BridgeSession(
            {"ann": 0, "bob": 1},
            self.send,
            self.edges.append,
            timing=timing,
            notify=self.messages.append,
        )
        self.to_pico = True
        self.to_host = True
        self.outbox: list[bytes] = []  # the Pico's frames, delivered on the next flush

    def flush(self) -> None:
        frames, self.outbox = self.outbox, []
        for payload in codec.Deframer().feed(b"".join(frames)):
            mtype, seq, fields, tail = codec.unpack(payload)
            self.session.receive(mtype, seq, fields, tail, self.now_ns)

    # the core's HAL
    def ticks_us(self) -> int:
        return (self.now_ns // 1000) & ((1 << 30) - 1)

    def write(self, frame: bytes) -> None:
        if self.to_host:
            self.outbox.append(frame)

    def led(self, index: int, on: bool) -> None: ...
    def buzz(self, on: bool, freq_hz: int) -> None: ...
    def level(self, button: int) -> bool:
        return False

    def send(self, mtype: int, fields: tuple[int, ...], tail: bytes) -> int:
        if self.to_pico:
            self.core.feed(codec.encode_frame(codec.pack(mtype, 0, fields, tail)))
        return self.now_ns

    def run(self, seconds: float) -> str | None:
        for _ in range(int(seconds * 100)):
            self.now_ns += 10_000_000
            reason = self.session.tick(self.now_ns)
            if reason:
                return reason
            self.core.poll()
            self.flush()
        return None

    def state(self) -> LinkState:
        """The session's state read afresh: mypy keeps ``session.state`` narrowed by an
        earlier assert across the calls that change it."""
        return self.session.state


def test_the_session_walks_down_hello_sync_ready_then_down() -> None:
    wire = Wire()
    assert wire.state() is LinkState.DOWN
    wire.session.link_up(wire.now_ns)
    assert wire.state() is LinkState.HELLO
    wire.flush()
    assert wire.state() is LinkState.SYNC  # IDENTIFY came back
    assert wire.run(0.5) is None and wire.state() is LinkState.READY
    wire.core.edge(1, True, wire.ticks_us())
    wire.flush()
    assert [(e.button, e.player, e.pressed, e.seq) for e in wire.edges] == [(1, "bob", True, 0)]
    wire.session.link_down("unplugged")
    assert wire.state() is LinkState.DOWN and not wire.session.ready.is_set()
    with pytest.raises(LinkStateError):
        wire.session.move(LinkState.READY)  # not without a HELLO and an IDENTIFY


def test_the_timing_knobs_are_the_sessions_timers() -> None:
    wire = Wire(BridgeTiming(hello_timeout_s=0.2))
    wire.to_pico = False  # a port that answers nothing
    wire.session.link_up(wire.now_ns)
    assert wire.run(0.25) == "no IDENTIFY in answer to HELLO (is the bridge firmware running?)"
    quiet = Wire(BridgeTiming(silence_s=0.5, ping_interval_s=10.0, quick_samples=0))
    quiet.session.link_up(quiet.now_ns)
    assert quiet.run(0.2) is None and quiet.session.state is LinkState.READY
    quiet.to_host = False  # the cable went quiet
    assert quiet.run(1.0) == "silent for 0.5 s"


def test_a_button_given_twice_is_the_bridges_config_error() -> None:
    with pytest.raises(BridgeConfigError, match="button 0 is given to both ann and bob"):
        BridgeSession({"ann": 0, "bob": 0}, lambda *a: 0, lambda e: None)
    assert issubclass(BridgeConfigError, ValueError)
