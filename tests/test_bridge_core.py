"""The firmware's core (what the Pico runs), driven by a fake HAL: no pty, no threads."""

from __future__ import annotations

import pytest

from firmware_bridge import codec
from firmware_bridge.firmware.core import Core

MASK = (1 << 30) - 1


class FakeHal:
    def __init__(self, start_us: int = 0) -> None:
        self.t = start_us  # extended microseconds; ticks_us() gives them modulo 2**30
        self.frames: list[bytes] = []
        self.levels = [False] * 4
        self.leds: list[tuple[int, bool]] = []
        self.buzz_log: list[tuple[bool, int]] = []

    def ticks_us(self) -> int:
        return self.t & MASK

    def write(self, frame: bytes) -> None:
        self.frames.append(frame)

    def led(self, index: int, on: bool) -> None:
        self.leds.append((index, on))

    def buzz(self, on: bool, freq_hz: int) -> None:
        self.buzz_log.append((on, freq_hz))

    def level(self, button: int) -> bool:
        return self.levels[button]

    def messages(self) -> list[tuple[int, int, tuple[int, ...], bytes]]:
        out = []
        for frame in self.frames:
            out.append(codec.unpack(codec.decode_frame(frame[:-1])))
        self.frames.clear()
        return out


def hello(core: Core, seq: int = 0, resume: tuple[int, int] | None = None) -> None:
    flags, boot, evseq = (codec.HELLO_RESUME, *resume) if resume else (0, 0, 0)
    fields = (codec.PROTO_MAJOR, codec.PROTO_MINOR, flags, boot, evseq)
    core.feed(codec.encode_frame(codec.pack(codec.HELLO, seq, fields)))


def command(core: Core, mtype: int, seq: int, fields: tuple[int, ...]) -> None:
    core.feed(codec.encode_frame(codec.pack(mtype, seq, fields)))


@pytest.fixture
def hal() -> FakeHal:
    return FakeHal(start_us=MASK - 1_000)  # ticks_us wraps 1 ms in


@pytest.fixture
def core(hal: FakeHal) -> Core:
    c = Core(hal, 4, n_leds=2, caps=codec.CAP_BUZZER, boot_id=0xB007, debounce_us=3000)
    hello(c)
    hal.messages()
    return c


def edges(msgs: list[tuple[int, int, tuple[int, ...], bytes]]) -> list[tuple[int, ...]]:
    return [(m[0], *m[2]) for m in msgs if m[0] in (codec.PRESS, codec.RELEASE)]


def test_identify_answers_hello_with_versions_and_counts(hal: FakeHal) -> None:
    c = Core(hal, 4, n_leds=2, boot_id=0xB007, version="1.2.3")
    hello(c)
    ((mtype, _, fields, tail),) = hal.messages()
    assert mtype == codec.IDENTIFY
    assert fields[:3] == (codec.PROTO_MAJOR, codec.PROTO_MINOR, 0xB007)
    assert fields[4] == 4 and tail == b"1.2.3"


def test_nothing_is_sent_before_hello(hal: FakeHal) -> None:
    c = Core(hal, 4)
    c.edge(0, True, hal.ticks_us())
    hal.t += 1_000_000
    c.poll()
    assert hal.frames == []


def test_stamps_are_extended_across_the_ticks_wrap(core: Core, hal: FakeHal) -> None:
    hal.t += 5_000  # past the wrap: raw ticks are now small
    raw = hal.ticks_us()
    assert raw < 5_000
    core.edge(1, True, raw)
    ((_, button, bseq, evseq, stamp),) = edges(hal.messages())
    assert (button, bseq, evseq) == (1, 1, 1)
    assert stamp == hal.t  # the extended value, not the raw one


def test_a_late_handled_raw_stamp_keeps_its_own_time(core: Core, hal: FakeHal) -> None:
    """The IRQ stamped the edge; the loop handles it later (after the wrap, even)."""
    raw = hal.ticks_us()
    at = hal.t
    hal.t += 40_000
    core.edge(0, True, raw)
    assert edges(hal.messages())[0][-1] == at


def test_debounce_keeps_the_first_edges_stamp(core: Core, hal: FakeHal) -> None:
    first = hal.t
    core.edge(0, True, hal.ticks_us())
    for bounce in range(1, 6):  # contact bounce within the 3 ms lockout
        hal.t = first + bounce * 200
        core.edge(0, bounce % 2 == 0, hal.ticks_us())
    hal.levels[0] = True
    hal.t = first + 10_000
    core.poll()
    core.poll()
    msgs = edges(hal.messages())
    assert msgs == [(codec.PRESS, 0, 1, 1, first)]
    assert core.bounces == 5


def test_a_tap_shorter_than_the_lockout_is_released_after_it(core: Core, hal: FakeHal) -> None:
    t0 = hal.t
    core.edge(2, True, hal.ticks_us())
    hal.t = t0 + 1_500
    hal.levels[2] = False
    core.edge(2, False, hal.ticks_us())  # suppressed: inside the lockout
    hal.t = t0 + 4_000
    core.poll()  # lockout over, the pin disagrees: seen once
    hal.t = t0 + 5_000
    core.poll()  # seen twice: the release is reported, at the suppressed edge's stamp
    assert edges(hal.messages()) == [
        (codec.PRESS, 2, 1, 1, t0),
        (codec.RELEASE, 2, 2, 2, t0 + 1_500),
    ]


def test_a_settled_bounce_is_forgotten(core: Core, hal: FakeHal) -> None:
    t0 = hal.t
    hal.levels[0] = True
    core.edge(0, True, hal.ticks_us())
    hal.t = t0 + 500
    core.edge(0, False, hal.ticks_us())  # bounce, suppressed; the pin stays down
    hal.t = t0 + 10_000
    core.poll()
    hal.t = t0 + 5_000_000
    hal.levels[0] = False  # released, but the IRQ missed it
    core.poll()
    core.poll()
    release = edges(hal.messages())[-1]
    assert release[0] == codec.RELEASE and release[-1] == t0 + 5_000_000  # not the old bounce


def test_retransmitted_command_is_acknowledged_not_repeated(core: Core, hal: FakeHal) -> None:
    command(core, codec.BUZZ, 41, (2000, 100))
    command(core, codec.BUZZ, 41, (2000, 100))  # the ACK was lost: same seq again
    acks = [m[2] for m in hal.messages() if m[0] == codec.ACK]
    assert acks == [(41, codec.ACK_OK), (41, codec.ACK_OK)]
    assert hal.buzz_log == [(True, 2000)]
    hal.t += 100_000
    core.poll()
    assert hal.buzz_log[-1] == (False, 0)


def test_bad_commands_and_unknown_types_are_acknowledged_as_such(core: Core, hal: FakeHal) -> None:
    command(core, codec.LED, 1, (9, codec.LED_ON, 0, 0, 0))  # no LED 9
    core.feed(codec.encode_frame(bytes((0x3E, 2, 1, 2, 3))))  # a type from the future
    acks = [m[2] for m in hal.messages() if m[0] == codec.ACK]
    assert acks == [(1, codec.ACK_BAD_ARGS), (2, codec.ACK_UNKNOWN)]


def test_led_blinks_count_times_then_stays_off(core: Core, hal: FakeHal) -> None:
    command(core, codec.LED, 3, (1, codec.LED_BLINK, 100, 100, 2))
    for _ in range(50):
        hal.t += 10_000
        core.poll()
    assert hal.leds == [(1, True), (1, False), (1, True), (1, False)]


def test_resume_replays_only_what_the_host_missed(core: Core, hal: FakeHal) -> None:
    for b in range(3):
        core.edge(b, True, hal.ticks_us())
        hal.t += 10_000
    hal.messages()
    hello(core, seq=5, resume=(0xB007, 1))
    msgs = hal.messages()
    assert msgs[0][0] == codec.IDENTIFY
    assert [e[3] for e in edges(msgs)] == [2, 3]  # evseq after 1


def test_resume_for_another_boot_replays_nothing(core: Core, hal: FakeHal) -> None:
    core.edge(0, True, hal.ticks_us())
    hal.messages()
    hello(core, resume=(0x1234, 0))
    assert edges(hal.messages()) == []


def test_heartbeat_and_overflow_reports(core: Core, hal: FakeHal) -> None:
    core.lost(3)
    hal.t += 300_000
    core.poll()
    msgs = {m[0]: m[2] for m in hal.messages()}
    assert msgs[codec.OVERFLOW] == (3, 3)
    assert msgs[codec.HEARTBEAT][1:3] == (1, 3)  # next evseq, overflows


def test_another_protocol_major_gets_identify_but_no_events(hal: FakeHal) -> None:
    c = Core(hal, 4)
    fields = (codec.PROTO_MAJOR + 1, 0, 0, 0, 0)
    c.feed(codec.encode_frame(codec.pack(codec.HELLO, 0, fields)))
    c.edge(0, True, hal.ticks_us())
    assert [m[0] for m in hal.messages()] == [codec.IDENTIFY]


def test_garbage_from_the_host_is_counted(core: Core) -> None:
    core.feed(b"\x07garbage\x00\x00\x03\x01\x02\x00")
    assert core.rx_bad == 2
