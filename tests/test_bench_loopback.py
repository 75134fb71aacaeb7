"""``companion bench loopback``: drives paired to stamps (a pure function, alone and as a
property), lost and extra edges counted, the wire on mock pins with a scripted loss, and
the report's JSON shape and first line on mock pins."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import RunCli
from gpiozero.pins.mock import MockConnectedPin, MockPin
from hypothesis import given
from hypothesis import strategies as st

from companion.devices.loopback import Drive, Loopback, Stamp, open_loopback, pair_edges
from companion.devices.pins import OpenedFactory
from companion.errors import HardwareError
from companion.tables.doctor.loopback import (
    MOCK_NOTE,
    bench_loopback,
    check_wire,
    figures,
    summary,
)

MS = 1_000_000


def _drives(count: int, gap_ns: int = MS) -> list[Drive]:
    return [Drive(i % 2 == 0, i * gap_ns) for i in range(count)]


def test_each_drive_owns_the_first_stamp_of_its_level_in_its_window() -> None:
    drives = _drives(4)
    stamps = [Stamp(d.level, d.at_ns + 30_000, d.at_ns + 90_000) for d in drives]
    pairing = pair_edges(drives, list(reversed(stamps)))  # the order they come in is no matter
    assert [(d, s) for d, s in pairing.pairs] == list(zip(drives, stamps, strict=True))
    assert (pairing.lost, pairing.extra) == (0, 0)
    assert figures(pairing)["stamp_error_us"] == {"p50": 30.0, "p99": 30.0, "max": 30.0}
    assert figures(pairing)["callback_delay_us"]["p50"] == 60.0


def test_a_drive_without_its_stamp_is_lost_never_paired_with_the_next_one() -> None:
    drives = _drives(3)
    # drive 1 (low) is lost; drive 2 (high) is stamped: the high stamp is drive 2's alone.
    stamps = [Stamp(True, 10_000, 20_000), Stamp(True, 2 * MS + 10_000, 2 * MS + 20_000)]
    pairing = pair_edges(drives, stamps)
    assert [d for d, _ in pairing.pairs] == [drives[0], drives[2]]
    assert (pairing.lost, pairing.extra) == (1, 0)


def test_bounces_and_wrong_levels_are_extra_not_pairs() -> None:
    drives = _drives(2)
    stamps = [
        Stamp(False, 5_000, 6_000),  # wrong level for drive 0: a glitch
        Stamp(True, 10_000, 11_000),
        Stamp(True, 12_000, 13_000),  # a second rising edge in the same window: a bounce
        Stamp(True, -5_000, 0),  # before any drive
        Stamp(False, MS + 10_000, MS + 11_000),
    ]
    pairing = pair_edges(drives, stamps)
    assert [s.stamp_ns for _, s in pairing.pairs] == [10_000, MS + 10_000]
    assert (pairing.lost, pairing.extra) == (0, 3)


@given(
    count=st.integers(1, 60),
    dropped=st.sets(st.integers(0, 59)),
    delays=st.lists(st.integers(0, MS - 1), min_size=60, max_size=60),
)
def test_pairing_counts_every_drop_and_pairs_the_rest(
    count: int, dropped: set[int], delays: list[int]
) -> None:
    """Whatever is dropped and however late (within its window) the rest are stamped, the
    lost count is the drops and every pair is a drive with its own stamp."""
    drives = _drives(count)
    kept = [i for i in range(count) if i not in dropped]
    stamps = [Stamp(drives[i].level, drives[i].at_ns + delays[i], 0) for i in kept]
    pairing = pair_edges(drives, stamps)
    assert pairing.lost == count - len(kept) and pairing.extra == 0
    assert [(d.at_ns, s.stamp_ns - d.at_ns) for d, s in pairing.pairs] == [
        (drives[i].at_ns, delays[i]) for i in kept
    ]


def test_the_wire_on_mock_pins_stamps_every_edge_after_its_drive(opened: OpenedFactory) -> None:
    wire = open_loopback(opened, 20, 21)
    try:
        pairing = wire.run(200, gap_s=0, wait_s=0.5)
    finally:
        wire.close()
    assert (len(pairing.pairs), pairing.lost, pairing.extra) == (200, 0, 0)
    assert all(stamp.stamp_ns >= drive.at_ns for drive, stamp in pairing.pairs)
    assert [d.level for d, _ in pairing.pairs[:3]] == [True, False, True]


class EveryTenthUnreported(MockPin):  # type: ignore[misc]  # gpiozero is untyped
    """An input whose driver never reports every tenth edge (the pin changes, no callback)."""

    edges = 0

    def _call_when_changed(self) -> None:
        EveryTenthUnreported.edges += 1
        if EveryTenthUnreported.edges % 10:
            super()._call_when_changed()


def test_a_scripted_loss_is_counted_edge_for_edge(opened: OpenedFactory) -> None:
    EveryTenthUnreported.edges = 0
    in_pin = opened.factory.pin(21, pin_class=EveryTenthUnreported)
    out_pin = opened.factory.pin(20, pin_class=MockConnectedPin, input_pin=in_pin)
    wire = Loopback(out_pin, in_pin, opened.ticks_to_ns)
    try:
        pairing = wire.run(100, gap_s=0, wait_s=0.002)
    finally:
        wire.close()
    assert (pairing.lost, len(pairing.pairs), pairing.extra) == (10, 90, 0)
    assert all(d.level == s.level and s.stamp_ns >= d.at_ns for d, s in pairing.pairs)


def test_a_loose_wire_loses_each_missed_edge_and_the_next(opened: OpenedFactory) -> None:
    """A write that never reaches the input leaves it a level behind, so the next write is
    no edge either: counted lost, both, and nothing is paired with the wrong drive."""

    class LooseEveryTenth(MockConnectedPin):  # type: ignore[misc]  # gpiozero is untyped
        writes = 0

        def _change_state(self, value: bool) -> bool:
            LooseEveryTenth.writes += 1
            if LooseEveryTenth.writes % 10 == 0:
                return bool(MockPin._change_state(self, value))
            return bool(super()._change_state(value))

    in_pin = opened.factory.pin(21)
    out_pin = opened.factory.pin(20, pin_class=LooseEveryTenth, input_pin=in_pin)
    wire = Loopback(out_pin, in_pin, opened.ticks_to_ns)
    try:
        pairing = wire.run(100, gap_s=0, wait_s=0.002)
    finally:
        wire.close()
    assert (pairing.lost, pairing.extra) == (20, 0)
    assert all(d.level == s.level for d, s in pairing.pairs)


def test_the_report_on_mock_pins_says_so_and_has_its_shape(opened: OpenedFactory) -> None:
    before = os.environ.get("COMPANION_REALTIME")
    report = bench_loopback(20, 21, edges=40, latency_trials=3, opened=opened)
    assert os.environ.get("COMPANION_REALTIME") == before  # put back as it was
    assert report["pins"] == "mock" and report["note"] == MOCK_NOTE
    assert [(r["load"], r["realtime"]) for r in report["runs"]] == [(0, False), (0, True)]
    run = report["runs"][0]
    assert run["edges_paired"] == 40 and run["edges_lost"] == 0
    assert set(run["stamp_error_us"]) == {"p50", "p99", "max"}
    assert set(run["decision_to_led_us"]) == {"p50", "p99"}
    assert "COMPANION_REALTIME=0" in run["scheduling"]
    assert summary(report)[0] == MOCK_NOTE


def test_cli_json_names_the_factory(run_cli: RunCli, tmp_path: Path) -> None:
    result = run_cli(
        "bench", "loopback", "--out", "GPIO20", "--in", "BOARD40", "--pin-factory", "mock",
        "--edges", "30", "--latency-trials", "2", "--json",
    )  # fmt: skip
    assert result.status == 0, result.err
    report = json.loads(result.out)
    assert report["pins"] == "mock" and (report["out"], report["in"]) == (20, 21)
    assert len(report["runs"]) == 2 and report["edges"] == 30
    text = run_cli(
        "bench", "loopback", "--out", "20", "--in", "21", "--pin-factory", "mock",
        "--edges", "10", "--latency-trials", "1",
    )  # fmt: skip
    assert text.status == 0 and text.out.splitlines()[0] == MOCK_NOTE


def test_cli_refuses_bad_pins_in_one_line(run_cli: RunCli) -> None:
    for argv, where in (
        (("--out", "GPIO20", "--in", "GPIO20"), "--in"),
        (("--out", "GPIO99", "--in", "GPIO21"), "--out"),
        (("--out", "GPIO20", "--in", "BOARD1"), "--in"),
    ):
        result = run_cli("bench", "loopback", *argv, "--pin-factory", "mock")
        assert result.status == 2 and result.out == ""
        assert result.err.count("\n") == 1 and where in result.err, result.err


def test_no_wire_is_one_line_naming_the_header_pins(opened: OpenedFactory) -> None:
    unwired = Loopback(opened.factory.pin(20), opened.factory.pin(21), opened.ticks_to_ns)
    try:
        with pytest.raises(HardwareError, match="from header pin 38 to pin 40"):
            check_wire(unwired, 20, 21)
    finally:
        unwired.close()
