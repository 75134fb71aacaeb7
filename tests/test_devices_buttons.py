"""Slap buttons on mock pins: every edge arrives stamped, numbered and with its player."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from gpiozero import LED, InputDevice

from companion.devices.buttons import GpioPressSource, GpioRevealButton
from companion.devices.pins import OpenedFactory
from companion.errors import HardwareError
from companion.signals import ButtonEdge, RevealStamp, SourceInfo, TimingClass

PINS = {"ann": 17, "bob": 27, "cat": 22}


@pytest.fixture
def edges() -> list[ButtonEdge]:
    return []


@pytest.fixture
def source(opened: OpenedFactory, edges: list[ButtonEdge]) -> Iterator[GpioPressSource]:
    source = GpioPressSource(PINS, opened, edges.append)
    try:
        yield source
    finally:
        source.close()


def test_press_and_release_are_edges_stamped_at_the_pin_change(
    opened: OpenedFactory, source: GpioPressSource, edges: list[ButtonEdge]
) -> None:
    ann = opened.factory.pin(PINS["ann"])
    before = time.monotonic_ns()
    ann.drive_low()
    between = time.monotonic_ns()
    ann.drive_high()
    after = time.monotonic_ns()
    pressed, released = edges
    assert (pressed.player, pressed.pressed, pressed.source) == ("ann", True, "gpio")
    assert (released.player, released.pressed) == ("ann", False)
    # The mock stamps the change with time.monotonic(); allow a microsecond of rounding.
    assert before - 1_000 <= pressed.stamp_ns <= between + 1_000
    assert between - 1_000 <= released.stamp_ns <= after + 1_000
    assert released.stamp_ns - pressed.stamp_ns == pytest.approx(
        ann.states[-1].timestamp * 1e9, abs=1_000
    )


def test_stamp_is_the_pin_ticks_not_the_time_of_delivery(
    opened: OpenedFactory, source: GpioPressSource, edges: list[ButtonEdge]
) -> None:
    """What when_changed receives is the stamp, however late it is delivered."""
    callback = opened.factory.pin(PINS["bob"]).when_changed
    callback(12.345678901, False)  # as lgpio would: kernel ns / 1e9, level low
    assert edges == [ButtonEdge("bob", True, 12_345_678_901, "gpio", 0)]


def test_seq_counts_every_edge_of_the_source(
    opened: OpenedFactory, source: GpioPressSource, edges: list[ButtonEdge]
) -> None:
    f = opened.factory
    f.pin(PINS["ann"]).drive_low()
    f.pin(PINS["bob"]).drive_low()
    f.pin(PINS["ann"]).drive_high()
    f.pin(PINS["cat"]).drive_low()
    f.pin(PINS["ann"]).drive_low()
    assert [e.seq for e in edges] == [0, 1, 2, 3, 4]
    assert [e.player for e in edges] == ["ann", "bob", "ann", "cat", "ann"]
    assert [e.pressed for e in edges] == [True, True, False, True, True]


def test_each_pin_reports_its_own_player(
    opened: OpenedFactory, source: GpioPressSource, edges: list[ButtonEdge]
) -> None:
    for player, number in PINS.items():
        opened.factory.pin(number).drive_low()
        assert edges[-1].player == player


def test_pins_are_pulled_up_inputs_on_both_edges_with_no_bounce_filter(
    opened: OpenedFactory, source: GpioPressSource
) -> None:
    for number in PINS.values():
        gpio = opened.factory.pin(number)
        assert gpio.function == "input"
        assert gpio.pull == "up"
        assert gpio.edges == "both"
        assert gpio.bounce is None
        assert gpio.state  # idle high: not pressed


def test_bounces_all_arrive_for_the_referee_to_debounce(
    opened: OpenedFactory, source: GpioPressSource, edges: list[ButtonEdge]
) -> None:
    cat = opened.factory.pin(PINS["cat"])
    for _ in range(3):
        cat.drive_low()
        cat.drive_high()
    assert [e.pressed for e in edges] == [True, False] * 3
    assert [e.stamp_ns for e in edges] == sorted(e.stamp_ns for e in edges)


def test_lgpio_watchdog_level_is_ignored(
    opened: OpenedFactory, source: GpioPressSource, edges: list[ButtonEdge]
) -> None:
    opened.factory.pin(PINS["ann"]).when_changed(1.0, 2)
    assert edges == []


def test_info_names_the_timing_class_and_pins(source: GpioPressSource) -> None:
    info = source.info
    assert isinstance(info, SourceInfo)
    assert (info.name, info.timing, info.uncertainty_us) == ("gpio", TimingClass.MOCK, 1)
    assert "ann=GPIO17" in info.detail and "MockFactory" in info.detail


def test_source_name_is_carried_on_edges(opened: OpenedFactory, edges: list[ButtonEdge]) -> None:
    source = GpioPressSource({"ann": 5}, opened, edges.append, name="table2")
    try:
        opened.factory.pin(5).drive_low()
        assert edges[0].source == "table2" and source.info.name == "table2"
    finally:
        source.close()


def test_held_reports_buttons_down_now(opened: OpenedFactory, source: GpioPressSource) -> None:
    assert source.held() == frozenset()
    opened.factory.pin(PINS["bob"]).drive_low()
    assert source.held() == {"bob"}


def test_a_failing_sink_does_not_break_the_pin_callback(
    opened: OpenedFactory, caplog: pytest.LogCaptureFixture
) -> None:
    got: list[ButtonEdge] = []

    def sink(edge: ButtonEdge) -> None:
        got.append(edge)
        if len(got) == 1:
            raise ValueError("queue full")

    source = GpioPressSource({"ann": 17}, opened, sink)
    try:
        ann = opened.factory.pin(17)
        ann.drive_low()  # must not raise into the driver's thread
        ann.drive_high()
        assert [e.seq for e in got] == [0, 1]
        assert "press sink failed" in caplog.text
    finally:
        source.close()


def test_close_stops_edges_and_releases_the_pins(
    opened: OpenedFactory, source: GpioPressSource, edges: list[ButtonEdge]
) -> None:
    source.close()
    source.close()  # twice is fine
    opened.factory.pin(PINS["ann"]).drive_low()
    assert edges == []
    assert source.held() == frozenset()
    led = LED(PINS["ann"], pin_factory=opened.factory)  # the pin is free again
    led.close()


def test_a_pin_used_twice_is_a_hardware_error_and_leaks_nothing(
    opened: OpenedFactory, edges: list[ButtonEdge]
) -> None:
    with pytest.raises(HardwareError, match="bob's button on GPIO17"):
        GpioPressSource({"ann": 17, "bob": 17}, opened, edges.append)
    InputDevice(17, pin_factory=opened.factory).close()  # ann's pin was released


def test_a_pin_taken_by_another_device_is_a_hardware_error(
    opened: OpenedFactory, edges: list[ButtonEdge]
) -> None:
    led = LED(17, pin_factory=opened.factory)
    try:
        with pytest.raises(HardwareError, match="ann's button on GPIO17"):
            GpioPressSource({"ann": 17}, opened, edges.append)
    finally:
        led.close()


def test_reveal_button_fires_on_press_only(opened: OpenedFactory) -> None:
    reveals: list[RevealStamp] = []
    button = GpioRevealButton(21, opened, reveals.append)
    try:
        gpio = opened.factory.pin(21)
        assert gpio.bounce is None and gpio.pull == "up"
        before = time.monotonic_ns()
        gpio.drive_low()
        after = time.monotonic_ns()
        gpio.drive_high()
        assert len(reveals) == 1
        assert reveals[0].how == "button"
        assert before - 1_000 <= reveals[0].stamp_ns <= after + 1_000
        gpio.drive_low()
        assert len(reveals) == 2
    finally:
        button.close()
        button.close()
    opened.factory.pin(21).drive_high()
    opened.factory.pin(21).drive_low()
    assert len(reveals) == 2  # closed: no more reveals
