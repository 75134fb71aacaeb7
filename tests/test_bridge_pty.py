"""The host client against the simulated Pico, over a real pty with real pyserial.

The simulated device runs the firmware's own core and codec on the master end of a pty; the
client opens the slave end (or the symlink that stands for /dev/companion-bridge) with
pyserial, exactly as on the Pi. Nothing here asserts a duration: waits only bound how long
a test may hang.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from serial.tools import list_ports, list_ports_common

from firmware_bridge import codec, transport
from firmware_bridge.errors import BridgeDeviceError
from firmware_bridge.events import BridgeEdge, CardRead
from firmware_bridge.host import BridgeClient
from firmware_bridge.link import BridgeTiming
from firmware_bridge.mprun import INSTALL_HINT, find_micropython
from firmware_bridge.sim import TICKS_MASK, SimDevice

PLAYERS = {"ann": 0, "bob": 1, "cat": 2, "dan": 3}


WaitFor = Callable[..., bool]  # the conftest fixture: poll until true, or fail


@pytest.fixture(params=["cpython", "micropython"])
def interpreter(request: pytest.FixtureRequest) -> str:
    """Every pty test twice: the simulated Pico's core in CPython, and in MicroPython."""
    if request.param == "micropython" and find_micropython() is None:
        pytest.skip(f"no MicroPython interpreter here: {INSTALL_HINT}")
    return str(request.param)


class Table:
    """A simulated Pico and the client on it, with what reached the sinks."""

    def __init__(self, tmp_path: Path, interpreter: str = "cpython", **sim_options: Any) -> None:
        self.sim = SimDevice(
            4,
            link=tmp_path / "companion-bridge",
            seed=11,
            micropython=interpreter == "micropython",
            **sim_options,
        )
        self.sim.start()
        self.edges: list[BridgeEdge] = []
        self.cards: list[CardRead] = []
        self.messages: list[str] = []
        self.client: BridgeClient | None = None

    def connect(self, port: str | None = None, **knobs: Any) -> BridgeClient:
        """Connect with the default timing but a quick reconnect (and ``knobs``)."""
        knobs.setdefault("connect_timeout_s", 5.0)
        knobs.setdefault("backoff_max_s", 0.1)
        self.client = BridgeClient(
            PLAYERS,
            self.edges.append,
            port or self.sim.port,
            on_card=self.cards.append,
            notify=self.messages.append,
            timing=BridgeTiming(**knobs),
        )
        return self.client

    def press(self, button: int, pressed: bool = True) -> int:
        return self.sim.press(button, pressed)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        self.sim.close()


@pytest.fixture
def table(tmp_path: Path, interpreter: str) -> Iterator[Table]:
    t = Table(tmp_path, interpreter)
    yield t
    t.close()


@pytest.fixture
def make_table(tmp_path: Path, interpreter: str) -> Iterator[Callable[..., Table]]:
    made: list[Table] = []

    def make(**options: Any) -> Table:
        made.append(Table(tmp_path, interpreter, **options))
        return made[-1]

    yield make
    for t in made:
        t.close()


def session_counter(table: Table, name: str) -> int:
    assert table.client is not None
    return table.client.session.counters()[name]


def link_counter(table: Table, name: str) -> int:
    assert table.client is not None
    return table.client.transport.stats.as_dict()[name]


# -- the press source ---------------------------------------------------------------------


def test_presses_become_edges_on_the_host_timeline(
    make_table: Callable[..., Table], wait_for: WaitFor
) -> None:
    table = make_table(drift_ppm=50.0, offset_us=TICKS_MASK - 300_000)  # wraps in 0.3 s
    client = table.connect()
    accuracy = client.accuracy
    assert accuracy.source == "bridge" and accuracy.synced
    assert accuracy.uncertainty_us > 100 and "sim-1.0.0" in accuracy.detail
    truths = []
    for i in range(12):
        truths.append((list(PLAYERS)[i % 4], i % 8 < 4, table.press(i % 4, i % 8 < 4)))
        time.sleep(0.05)  # the run crosses the Pico's 2**30 us wrap
    assert wait_for(lambda: len(table.edges) == 12)
    bound_ns = client.accuracy.uncertainty_us * 1000
    for n, (edge, (player, pressed, true_ns)) in enumerate(zip(table.edges, truths, strict=True)):
        assert (edge.player, edge.pressed, edge.source, edge.seq) == (player, pressed, "bridge", n)
        assert abs(edge.stamp_ns - true_ns) <= bound_ns
    assert link_counter(table, "bad_frames") == 0


def test_held_buttons_and_card_reads(table: Table, wait_for: WaitFor) -> None:
    client = table.connect()
    table.press(2)
    assert wait_for(lambda: client.held() == {"cat"})
    at = table.sim.card(0, bytes.fromhex("04a1b2c3d4e580"))
    assert wait_for(lambda: len(table.cards) == 1)
    card = table.cards[0]
    assert (card.reader, card.uid) == (0, "04A1B2C3D4E580")
    assert abs(card.stamp_ns - at) <= client.accuracy.uncertainty_us * 1000


def test_card_reads_feed_a_tag_reader_through_the_hook(table: Table, wait_for: WaitFor) -> None:
    """The shape companion.tags' bridge hook expects: push(index, uid) until stopped."""
    client = table.connect()

    class Reader:
        def __init__(self) -> None:
            self.pushed: list[tuple[int, bytes]] = []

        def push(self, index: int, uid: bytes) -> None:
            self.pushed.append((index, uid))

    reader = Reader()
    stop = client.tag_hook()(reader)
    table.sim.card(0, b"\x04\x01\x02\x03")
    assert wait_for(lambda: reader.pushed == [(0, b"\x04\x01\x02\x03")])
    stop()
    table.sim.card(0, b"\x04\x09\x09\x09")
    assert wait_for(lambda: len(table.cards) == 2)
    assert reader.pushed == [(0, b"\x04\x01\x02\x03")]


def test_a_failing_sink_does_not_stop_the_reader(table: Table, wait_for: WaitFor) -> None:
    calls: list[BridgeEdge] = []

    def sink(edge: BridgeEdge) -> None:
        calls.append(edge)
        raise RuntimeError("sink bug")

    client = BridgeClient(PLAYERS, sink, table.sim.port, notify=table.messages.append)
    table.client = client
    table.press(0)
    table.press(1)
    assert wait_for(lambda: len(calls) == 2)
    assert client.connected


# -- the handshake ------------------------------------------------------------------------


def test_another_protocol_major_is_refused_naming_both(make_table: Callable[..., Table]) -> None:
    table = make_table(proto_major=codec.PROTO_MAJOR + 1)
    with pytest.raises(BridgeDeviceError) as info:
        table.connect(connect_timeout_s=3.0)
    message = str(info.value)
    assert f"{codec.PROTO_MAJOR + 1}.{codec.PROTO_MINOR}" in message
    assert f"{codec.PROTO_MAJOR}.{codec.PROTO_MINOR}" in message


def test_no_bridge_is_a_hardware_error(tmp_path: Path) -> None:
    with pytest.raises(BridgeDeviceError, match="no bridge on"):
        BridgeClient(
            PLAYERS,
            lambda e: None,
            str(tmp_path / "nothing"),
            timing=BridgeTiming(connect_timeout_s=0.3),
        )


def test_a_port_that_answers_nothing_is_a_hardware_error(tmp_path: Path) -> None:
    master, slave = os.openpty()
    try:
        with pytest.raises(BridgeDeviceError):
            BridgeClient(
                PLAYERS,
                lambda e: None,
                os.ttyname(slave),
                timing=BridgeTiming(connect_timeout_s=0.5),
            )
    finally:
        os.close(master)
        os.close(slave)


def fake_ports(monkeypatch: pytest.MonkeyPatch, device: str) -> None:
    pico = list_ports_common.ListPortInfo(device)
    pico.vid, pico.pid = transport.BRIDGE_VID, transport.BRIDGE_PID
    pico.description = "Board in FS mode"
    pico.hwid = pico.usb_info()
    other = list_ports_common.ListPortInfo("/dev/ttyUSB9")
    other.vid, other.pid, other.hwid = 0x0403, 0x6001, "USB VID:PID=0403:6001"
    monkeypatch.setattr(list_ports, "comports", lambda include_links=False: [other, pico])


def test_auto_finds_the_pico_by_usb_ids(
    table: Table, monkeypatch: pytest.MonkeyPatch, wait_for: WaitFor
) -> None:
    monkeypatch.setattr(transport, "UDEV_LINK", "/nonexistent/companion-bridge")
    fake_ports(monkeypatch, table.sim.slave_name)
    assert transport.find_port("auto") == table.sim.slave_name
    table.connect("auto")
    table.press(3)
    assert wait_for(lambda: [e.player for e in table.edges] == ["dan"])


def test_hwgrep_url_finds_the_pico(
    table: Table, monkeypatch: pytest.MonkeyPatch, wait_for: WaitFor
) -> None:
    fake_ports(monkeypatch, table.sim.slave_name)
    table.connect("hwgrep://2e8a:0005")
    table.press(1)
    assert wait_for(lambda: [e.player for e in table.edges] == ["bob"])


def test_auto_prefers_the_udev_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    link = tmp_path / "companion-bridge"
    link.touch()
    monkeypatch.setattr(transport, "UDEV_LINK", str(link))
    assert transport.find_port("auto") == str(link)
    monkeypatch.setattr(transport, "UDEV_LINK", str(tmp_path / "none"))
    monkeypatch.setattr(list_ports, "comports", lambda include_links=False: [])
    with pytest.raises(BridgeDeviceError, match="2e8a:0005"):
        transport.find_port("auto")


# -- unplug and replug --------------------------------------------------------------------


def test_unplug_and_replug_resumes_without_duplicates(table: Table, wait_for: WaitFor) -> None:
    """Edges in flight when the cable goes are sent again; the host keeps each once."""
    client = table.connect()
    table.sim.replay_all_on_hello = True  # a Pico that sends its whole history again
    table.press(0)
    table.press(1)
    assert wait_for(lambda: len(table.edges) == 2)
    table.sim.unplug()
    assert wait_for(lambda: not client.connected)
    table.press(0, False)  # while unplugged: held by the Pico, sent after the replug
    table.press(2)
    table.sim.replug()
    assert wait_for(lambda: len(table.edges) == 4)
    table.press(3)
    assert wait_for(lambda: len(table.edges) == 5)
    assert wait_for(lambda: session_counter(table, "duplicates") >= 2)
    got = [(e.player, e.pressed) for e in table.edges]
    assert got == [("ann", True), ("bob", True), ("ann", False), ("cat", True), ("dan", True)]
    assert [e.seq for e in table.edges] == [0, 1, 2, 3, 4]
    assert link_counter(table, "connects") == 2
    assert any("link lost" in m for m in table.messages)


def test_a_rebooted_pico_starts_afresh(table: Table, wait_for: WaitFor) -> None:
    client = table.connect()
    table.press(0)
    assert wait_for(lambda: len(table.edges) == 1)
    boot = client.session.identity.boot_id if client.session.identity else None
    table.sim.unplug()
    assert wait_for(lambda: not client.connected)
    table.sim.replug(reboot=True)
    assert wait_for(lambda: client.connected)
    true_ns = table.press(1)
    assert wait_for(lambda: len(table.edges) == 2)
    assert client.session.identity is not None and client.session.identity.boot_id != boot
    assert session_counter(table, "restarts") == 1
    assert abs(table.edges[1].stamp_ns - true_ns) <= client.accuracy.uncertainty_us * 1000
    assert any("restarted" in m for m in table.messages)


# -- lost, repeated, corrupted frames -----------------------------------------------------


def test_a_lost_press_is_detected_and_recovered(table: Table, wait_for: WaitFor) -> None:
    table.connect()
    table.sim.drop_out[codec.PRESS] = 1
    first = table.press(0)  # lost on the wire
    table.press(1)
    assert wait_for(lambda: link_counter(table, "lost_frames") == 1)
    assert wait_for(lambda: session_counter(table, "event_gaps") == 1)
    assert wait_for(lambda: len(table.edges) == 2)  # asked for again after a heartbeat
    assert session_counter(table, "event_recovered") == 1
    recovered = next(e for e in table.edges if e.player == "ann")
    assert abs(recovered.stamp_ns - first) < 1_000_000


def test_a_press_the_pico_no_longer_holds_is_counted_lost(
    make_table: Callable[..., Table],
    wait_for: WaitFor,
) -> None:
    table = make_table(history=2)
    table.connect()
    table.sim.drop_out[codec.PRESS] = 1
    table.press(0)
    for b in (1, 2, 3):
        table.press(b)
    assert wait_for(lambda: session_counter(table, "events_abandoned") == 1)
    assert [e.player for e in table.edges] == ["bob", "cat", "dan"]
    assert any("not recoverable" in m for m in table.messages)


def test_a_repeated_frame_is_dropped_by_its_sequence(table: Table, wait_for: WaitFor) -> None:
    table.connect()
    table.sim.repeat_out[codec.PRESS] = 1
    table.press(2)
    table.press(3)
    assert wait_for(lambda: len(table.edges) == 2)
    assert link_counter(table, "repeated_frames") == 1
    assert [e.player for e in table.edges] == ["cat", "dan"]


@pytest.mark.parametrize("fault", ["corrupt_out", "truncate_out"])
def test_a_damaged_frame_is_counted_and_its_edge_recovered(
    table: Table, fault: str, wait_for: WaitFor
) -> None:
    table.connect()
    getattr(table.sim, fault)[codec.PRESS] = 1
    table.press(0)
    table.press(1)
    assert wait_for(lambda: len(table.edges) == 2)
    assert link_counter(table, "bad_frames") >= 1
    assert sorted(e.player for e in table.edges) == ["ann", "bob"]


def test_line_noise_never_crashes_the_reader(table: Table, wait_for: WaitFor) -> None:
    client = table.connect()
    noise = os.urandom(4000)
    table.sim.write_raw(noise)
    table.sim.write_raw(b"\x00")
    table.press(0)
    assert wait_for(lambda: [e.player for e in table.edges] == ["ann"])
    assert client.connected and link_counter(table, "handler_errors") == 0


# -- commands -----------------------------------------------------------------------------


def test_a_dropped_command_is_retransmitted(table: Table) -> None:
    client = table.connect()
    table.sim.drop_in[codec.LED] = 1
    handle = client.led(2, codec.LED_ON)
    assert handle.wait(5.0) and handle.attempts == 2
    assert table.sim.leds == {2: True}
    sent = [(seq, fields) for t, seq, fields in table.sim.received if t == codec.LED]
    assert len(sent) == 2 and sent[0] == sent[1]  # the same seq both times
    assert link_counter(table, "retransmits") == 1


def test_a_lost_ack_does_not_run_the_command_twice(table: Table) -> None:
    client = table.connect()
    table.sim.drop_out[codec.ACK] = 1
    handle = client.buzz(500, 2000)
    assert handle.wait(5.0) and handle.attempts == 2
    assert table.sim.buzzes[:1] == [(True, 2000)]
    assert table.sim.buzzes.count((True, 2000)) == 1


def test_commands_keep_their_order(table: Table) -> None:
    client = table.connect()
    handles = [client.led(0, codec.LED_ON), client.led(0, codec.LED_OFF)]
    table.sim.drop_in[codec.LED] = 1
    handles.append(client.led(0, codec.LED_ON))
    assert all(h.wait(5.0) for h in handles)
    assert table.sim.leds[0] is True
    assert client.configure(2000).wait(5.0)
    assert table.sim.core.debounce_us == 2000
