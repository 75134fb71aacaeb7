"""Open a gpiozero pin factory and say which clock its edge stamps come from.

The referee orders presses by the stamp the pin driver gives each edge, so choosing a
factory is choosing a clock. lgpio hands over the kernel's CLOCK_MONOTONIC stamp of the
edge; RPi.GPIO and gpiozero's native driver stamp with ``time.monotonic()`` when Python's
callback runs (same clock, later and jittery); pigpio stamps in microseconds since its
daemon started, a different clock that wraps every 72 minutes, so it is refused rather
than silently mixed with host time.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.devices.wiring import PIN_FACTORIES
from companion.errors import HardwareError
from companion.signals import DEFAULT_UNCERTAINTY_US, TimingClass

ENV_VAR = "GPIOZERO_PIN_FACTORY"

# gpiozero's own preference order when nothing is named (gpiozero.devices).
AUTO_ORDER = ("lgpio", "rpigpio", "pigpio", "native")

# Where each real factory lives, as gpiozero's entry points spell it. Imported only when
# asked for, so a machine without lgpio or RPi.GPIO can still import this module.
FACTORY_CLASSES: dict[str, str] = {
    "lgpio": "gpiozero.pins.lgpio:LGPIOFactory",
    "rpigpio": "gpiozero.pins.rpigpio:RPiGPIOFactory",
    "native": "gpiozero.pins.native:NativeFactory",
}

TIMING: dict[str, TimingClass] = {
    "lgpio": TimingClass.KERNEL_EDGE,
    "rpigpio": TimingClass.CALLBACK,
    "native": TimingClass.CALLBACK,
    "mock": TimingClass.MOCK,
}

_DETAIL = {
    "lgpio": "lgpio (kernel edge stamps)",
    "rpigpio": "RPi.GPIO (stamped when the Python callback runs)",
    "native": "gpiozero native (stamped when the Python callback runs)",
    "mock": "gpiozero MockFactory (stamped when a test drives the pin)",
}

PIGPIO_REFUSED = (
    "pigpio is not used: its edge ticks count microseconds since the pigpio daemon "
    "started (another clock, wrapping every 72 minutes) and it does not run on a Pi 5; "
    'use lgpio (pin_factory = "lgpio" or "auto")'
)

ADVICE = (
    "on a Pi, sudo apt install python3-lgpio and make the venv with --system-site-packages "
    '(hardware/INSTALL.md); elsewhere use `companion demo`, or set pin_factory = "mock"'
)


@dataclass(frozen=True, slots=True)
class OpenedFactory:
    """A live gpiozero factory plus what the referee must know about its stamps."""

    factory: Any  # a gpiozero Factory
    name: str  # the factory actually used: "lgpio", "rpigpio", "native" or "mock"
    timing: TimingClass
    uncertainty_us: int
    detail: str = ""

    def ticks_to_ns(self, ticks: float) -> int:
        """Host monotonic nanoseconds from the ticks a pin's when_changed received.

        Every factory accepted here gives seconds on the CLOCK_MONOTONIC timeline (lgpio
        as kernel ns / 1e9), so this is a scale, not a clock mapping. The float keeps the
        nanosecond for about a month of uptime and a few nanoseconds after that.
        """
        return round(ticks * 1_000_000_000)

    def close(self) -> None:
        """Release the factory (and with it every pin it still holds)."""
        self.factory.close()

    def __enter__(self) -> OpenedFactory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _one_line(exc: BaseException, limit: int = 120) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _construct(name: str) -> Any:
    """Instantiate the named gpiozero factory; whatever fails propagates."""
    if name == "mock":
        # MockPWMPin for every pin: PWMLED, RGBLED and TonalBuzzer need PWM, and it
        # behaves exactly like MockPin for buttons.
        return MockFactory(pin_class=MockPWMPin)
    module_name, _, class_name = FACTORY_CLASSES[name].partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name)()


def _opened(name: str, factory: Any, how: str) -> OpenedFactory:
    timing = TIMING[name]
    detail = _DETAIL[name]
    chip = getattr(factory, "chip", None) if name == "lgpio" else None
    if isinstance(chip, int):
        detail = f"lgpio on /dev/gpiochip{chip} (kernel edge stamps)"
    if how:
        detail = f"{detail}, {how}"
    return OpenedFactory(factory, name, timing, DEFAULT_UNCERTAINTY_US[timing], detail)


def _open_named(name: str, via_env: bool = False) -> OpenedFactory:
    """Open one named factory or raise a one-line HardwareError with advice."""
    where = f"{ENV_VAR}={name}: " if via_env else ""
    if name == "pigpio":
        raise HardwareError(where + PIGPIO_REFUSED)
    try:
        factory = _construct(name)
    except Exception as exc:  # any driver failure: missing module, no chip, not a Pi
        raise HardwareError(
            f"{where}cannot open GPIO with {name} ({_one_line(exc)}): {ADVICE}"
        ) from exc
    return _opened(name, factory, f"chosen by {ENV_VAR}" if via_env else "")


def open_factory(name: str) -> OpenedFactory:
    """Open the pin factory the config names (one of ``wiring.PIN_FACTORIES``).

    ``auto`` honours GPIOZERO_PIN_FACTORY when set, as gpiozero does; otherwise it tries
    gpiozero's order (lgpio, rpigpio, pigpio, native), skipping pigpio because its stamps
    are on another clock, and the detail says which one answered and why.
    """
    if name not in PIN_FACTORIES:
        offered = ", ".join(n for n in PIN_FACTORIES if n != "pigpio")
        raise HardwareError(f"unknown pin factory {name!r} (one of: {offered})")
    if name != "auto":
        return _open_named(name)
    env = os.environ.get(ENV_VAR, "").strip().lower()
    if env and env != "auto":
        if env not in PIN_FACTORIES:
            usable = ", ".join(n for n in PIN_FACTORIES if n not in ("auto", "pigpio"))
            raise HardwareError(
                f"{ENV_VAR}={env!r} is not a pin factory companion can use "
                f"(one of: {usable}); unset it to let companion choose"
            )
        return _open_named(env, via_env=True)
    tried: list[str] = []
    for candidate in AUTO_ORDER:
        if candidate == "pigpio":
            tried.append("pigpio: skipped, its ticks are on another clock")
            continue
        try:
            factory = _construct(candidate)
        except Exception as exc:  # any driver failure: try the next one, as gpiozero does
            tried.append(f"{candidate}: {_one_line(exc)}")
            continue
        failed = [t for t in tried if not t.startswith("pigpio")]
        how = "chosen by auto" + (f" after {'; '.join(failed)}" if failed else "")
        return _opened(candidate, factory, how)
    raise HardwareError(f"no GPIO found (tried {'; '.join(tried)}): {ADVICE}")
