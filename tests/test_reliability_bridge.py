"""Issue 13 for the Pico bridge: a frame that passes its CRC but carries an event number
far ahead (or a Pico with a new boot id) resynchronises with a warning instead of making
every later press a duplicate; edges before the clock sync wait in a bounded buffer."""

from __future__ import annotations

from test_bridge_session import Wire

from firmware_bridge import codec
from firmware_bridge.firmware.core import Core
from firmware_bridge.link import LinkState
from firmware_bridge.seq import SeqTracker
from firmware_bridge.session import MAX_PENDING


def state(wire: Wire) -> LinkState:
    return wire.session.state


def ready_wire() -> Wire:
    wire = Wire()
    wire.session.link_up(wire.now_ns)
    wire.flush()
    assert wire.run(0.5) is None and wire.session.state is LinkState.READY
    return wire


def press(wire: Wire, button: int = 0) -> None:
    wire.now_ns += 200_000_000
    wire.core.edge(button, True, wire.ticks_us())
    wire.flush()
    wire.core.edge(button, False, wire.ticks_us() + 50_000)
    wire.flush()


def test_a_poisoned_event_number_far_ahead_is_refused_and_later_presses_still_count() -> None:
    """Before: one frame with evseq far ahead moved the count there, and every real press
    after it was dropped as a duplicate."""
    wire = ready_wire()
    press(wire)
    top = wire.session.events.top
    assert top is not None
    poisoned = (0, 99, (top + 2**20) & 0xFFFFFFFF, wire.ticks_us())
    wire.session.receive(codec.PRESS, 0, poisoned, b"", wire.now_ns)
    assert any("far ahead" in m for m in wire.messages)
    before = len(wire.edges)
    for _ in range(3):
        press(wire, 1)
    assert len(wire.edges) == before + 6  # three presses and releases, none a duplicate
    assert wire.session.counters()["events_refused"] == 1
    assert wire.session.counters()["duplicates"] == 0


def test_a_real_jump_is_proved_by_the_next_number_and_resynchronises() -> None:
    tracker = SeqTracker(32)
    assert tracker.accept(10)
    far = 10 + 2**20
    assert not tracker.would_accept(far) and not tracker.accept(far)
    assert tracker.would_accept(far + 1) and tracker.accept(far + 1)
    assert tracker.top == far + 1 and tracker.resyncs == 1 and tracker.accept(far + 2)
    assert tracker.accept(11) is False  # the old count is behind now


def test_a_pico_with_a_new_boot_id_starts_the_count_afresh_with_a_warning() -> None:
    wire = ready_wire()
    for _ in range(3):
        press(wire)
    wire.session.link_down("unplugged")
    wire.core = Core(wire, 4, boot_id=43, debounce_us=0)  # it rebooted: evseq from 0
    wire.session.link_up(wire.now_ns)
    wire.flush()
    assert wire.run(0.5) is None and wire.session.state is LinkState.READY
    assert any("restarted" in m for m in wire.messages)
    before = len(wire.edges)
    press(wire, 1)
    assert len(wire.edges) == before + 2


def test_edges_before_the_clock_sync_are_held_in_a_bounded_buffer_with_a_count() -> None:
    wire = Wire()
    wire.session.link_up(wire.now_ns)
    wire.flush()
    assert state(wire) is LinkState.SYNC
    extra = 40
    for i in range(MAX_PENDING + extra):
        fields = (i % 2, i // 2 + 1, 1000 + i, wire.ticks_us())
        wire.session.receive(codec.PRESS if i % 4 < 2 else codec.RELEASE, 0, fields, b"",
                             wire.now_ns)  # fmt: skip
    assert len(wire.session._pending) == MAX_PENDING
    assert wire.run(0.5) is None and state(wire) is LinkState.READY
    assert len(wire.edges) == MAX_PENDING
    assert wire.session.counters()["pending_dropped"] == extra
    assert any(f"{extra} edge(s) before the clock sync were dropped" in m for m in wire.messages)
