"""Opening a pin factory: every path of open_factory, and the clock each one implies."""

from __future__ import annotations

import sys

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import given
from hypothesis import strategies as st

from companion.devices import pins
from companion.devices.pins import OpenedFactory, open_factory
from companion.devices.wiring import PIN_FACTORIES
from companion.errors import HardwareError
from companion.signals import DEFAULT_UNCERTAINTY_US, TimingClass

MOCK_CLASS = "gpiozero.pins.mock:MockFactory"
REAL = ("lgpio", "rpigpio", "native")


@pytest.fixture(autouse=True)
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as if GPIOZERO_PIN_FACTORY were unset."""
    monkeypatch.delenv(pins.ENV_VAR, raising=False)


def break_driver(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make the named gpiozero back ends fail to import, on any machine (a Pi included)."""
    for name in names:
        module = pins.FACTORY_CLASSES[name].partition(":")[0]
        monkeypatch.setitem(sys.modules, module, None)


def fake_driver(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Let the named back end 'work' by opening a MockFactory in its place."""
    monkeypatch.setitem(pins.FACTORY_CLASSES, name, MOCK_CLASS)


def test_mock_opens_with_pwm_pins_and_mock_timing() -> None:
    with open_factory("mock") as opened:
        assert isinstance(opened.factory, MockFactory)
        assert opened.factory.pin_class is MockPWMPin
        assert opened.name == "mock"
        assert opened.timing is TimingClass.MOCK
        assert opened.uncertainty_us == DEFAULT_UNCERTAINTY_US[TimingClass.MOCK]
        assert "MockFactory" in opened.detail


@pytest.mark.parametrize(
    ("name", "timing"),
    [
        ("lgpio", TimingClass.KERNEL_EDGE),
        ("rpigpio", TimingClass.CALLBACK),
        ("native", TimingClass.CALLBACK),
    ],
)
def test_named_factory_gets_its_timing_class(
    monkeypatch: pytest.MonkeyPatch, name: str, timing: TimingClass
) -> None:
    fake_driver(monkeypatch, name)
    opened = open_factory(name)
    try:
        assert (opened.name, opened.timing) == (name, timing)
        assert opened.uncertainty_us == DEFAULT_UNCERTAINTY_US[timing]
    finally:
        opened.close()


@pytest.mark.parametrize("name", REAL)
def test_named_factory_that_fails_is_one_line_of_advice(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    break_driver(monkeypatch, name)
    with pytest.raises(HardwareError) as caught:
        open_factory(name)
    message = str(caught.value)
    assert "\n" not in message
    assert f"cannot open GPIO with {name}" in message
    assert "companion demo" in message and 'pin_factory = "mock"' in message
    assert isinstance(caught.value, RuntimeError)


def test_pigpio_is_refused_because_its_ticks_are_another_clock() -> None:
    with pytest.raises(HardwareError, match="another clock") as caught:
        open_factory("pigpio")
    assert "lgpio" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_unknown_factory_name_is_refused() -> None:
    with pytest.raises(HardwareError, match="unknown pin factory 'gpiod'"):
        open_factory("gpiod")


def test_auto_prefers_lgpio(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_driver(monkeypatch, "lgpio")
    with open_factory("auto") as opened:
        assert opened.name == "lgpio"
        assert opened.timing is TimingClass.KERNEL_EDGE
        assert opened.detail.endswith("chosen by auto")


def test_auto_falls_back_to_rpigpio_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    break_driver(monkeypatch, "lgpio")
    fake_driver(monkeypatch, "rpigpio")
    with open_factory("auto") as opened:
        assert opened.name == "rpigpio"
        assert opened.timing is TimingClass.CALLBACK
        assert "chosen by auto after lgpio:" in opened.detail


def test_auto_skips_pigpio_and_reaches_native(monkeypatch: pytest.MonkeyPatch) -> None:
    break_driver(monkeypatch, "lgpio", "rpigpio")
    monkeypatch.setitem(sys.modules, "gpiozero.pins.pigpio", None)  # never imported anyway
    fake_driver(monkeypatch, "native")
    with open_factory("auto") as opened:
        assert opened.name == "native"
        assert opened.timing is TimingClass.CALLBACK
        assert "lgpio:" in opened.detail and "rpigpio:" in opened.detail
        assert "pigpio:" not in opened.detail.replace("rpigpio:", "")


def test_auto_with_nothing_working_is_one_line_naming_every_attempt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    break_driver(monkeypatch, *REAL)
    with pytest.raises(HardwareError) as caught:
        open_factory("auto")
    message = str(caught.value)
    assert message.startswith("no GPIO found (tried lgpio: ")
    for name in ("rpigpio: ", "pigpio: skipped", "native: "):
        assert name in message
    assert "\n" not in message
    assert message.endswith('use `companion demo`, or set pin_factory = "mock"')


def test_auto_honours_gpiozero_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pins.ENV_VAR, "MOCK")
    with open_factory("auto") as opened:
        assert opened.name == "mock"
        assert opened.detail.endswith(f"chosen by {pins.ENV_VAR}")


def test_env_var_naming_pigpio_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pins.ENV_VAR, "pigpio")
    with pytest.raises(HardwareError, match=r"^GPIOZERO_PIN_FACTORY=pigpio: .*another clock"):
        open_factory("auto")


def test_env_var_naming_a_broken_driver_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pins.ENV_VAR, "lgpio")
    break_driver(monkeypatch, "lgpio")
    with pytest.raises(HardwareError, match=r"^GPIOZERO_PIN_FACTORY=lgpio: cannot open GPIO"):
        open_factory("auto")


def test_env_var_naming_an_unknown_factory_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pins.ENV_VAR, "gpiod")
    with pytest.raises(HardwareError, match="GPIOZERO_PIN_FACTORY='gpiod' is not a pin factory"):
        open_factory("auto")


@pytest.mark.parametrize("value", ["", "  ", "auto"])
def test_blank_or_auto_env_var_means_choose(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(pins.ENV_VAR, value)
    fake_driver(monkeypatch, "lgpio")
    with open_factory("auto") as opened:
        assert opened.name == "lgpio"


def test_explicit_name_ignores_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pins.ENV_VAR, "pigpio")
    with open_factory("mock") as opened:
        assert opened.name == "mock"


def test_every_configurable_name_has_an_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each PIN_FACTORIES name either opens or refuses with a HardwareError, nothing else."""
    for name in REAL:
        fake_driver(monkeypatch, name)
    for name in PIN_FACTORIES:
        try:
            opened = open_factory(name)
        except HardwareError:
            assert name == "pigpio"
        else:
            opened.close()


def test_close_releases_the_factory_pins() -> None:
    opened = open_factory("mock")
    pin = opened.factory.pin(17)
    pin.function = "output"
    opened.close()
    assert pin.function == "input"
    assert not opened.factory.pins


def test_lgpio_ticks_convert_back_to_kernel_nanoseconds() -> None:
    opened = OpenedFactory(object(), "lgpio", TimingClass.KERNEL_EDGE, 20)
    kernel_ns = 123_456_789_012_345  # about 34 hours of uptime
    assert opened.ticks_to_ns(kernel_ns / 1_000_000_000) == kernel_ns


@given(st.integers(min_value=0, max_value=10**16))  # up to about 116 days of uptime
def test_ticks_round_trip_within_two_nanoseconds(ns: int) -> None:
    opened = OpenedFactory(object(), "lgpio", TimingClass.KERNEL_EDGE, 20)
    assert abs(opened.ticks_to_ns(ns / 1_000_000_000) - ns) <= 2
