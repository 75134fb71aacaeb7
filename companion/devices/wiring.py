"""Wiring as data: pins, LEDs, buzzers and pin factories read from a table's config.

Every table app (CHOMP!, Get Bit!, Chips) reads its wiring with these, so a pin is
spelled, checked and claimed the same way everywhere: pins are BCM numbers (``17``) or
names gpiozero also understands (``"GPIO17"``, ``"BCM17"``, ``"BOARD11"``), all
normalised to BCM numbers; a pin used twice is one clear line naming both places.

Nothing here touches gpiozero: reading a config never opens a pin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from companion import data
from companion import text as gate

# Physical header pin (BOARD numbering, 40-pin J8) -> BCM GPIO number.
BOARD_TO_BCM: dict[int, int] = {
    3: 2,
    5: 3,
    7: 4,
    8: 14,
    10: 15,
    11: 17,
    12: 18,
    13: 27,
    15: 22,
    16: 23,
    18: 24,
    19: 10,
    21: 9,
    22: 25,
    23: 11,
    24: 8,
    26: 7,
    27: 0,
    28: 1,
    29: 5,
    31: 6,
    32: 12,
    33: 13,
    35: 19,
    36: 16,
    37: 26,
    38: 20,
    40: 21,
}
BCM_TO_BOARD = {bcm: board for board, bcm in BOARD_TO_BCM.items()}
HAT_ID_PINS = {0: "ID_SD", 1: "ID_SC"}  # a HAT's ID EEPROM; the Pi reads it at boot

# The pin factories a config may name (devices.pins opens them); "auto" picks one.
PIN_FACTORIES = ("auto", "lgpio", "rpigpio", "pigpio", "native", "mock")


def _digits(text: str) -> bool:
    """ASCII digits only, as the text gate reads them: str.isdigit() also accepts '²',
    which int() refuses."""
    return gate.is_digits(text)


def parse_pin(value: object, path: str) -> int:
    """A BCM number from ``17``, ``"GPIO17"``, ``"BCM17"``, ``"BOARD11"`` or ``"J8:11"``."""
    if isinstance(value, int) and not isinstance(value, bool):
        bcm = value
    elif isinstance(value, str):
        text = value.strip().upper()
        board = None
        for prefix in ("BOARD", "J8:"):
            if text.startswith(prefix) and _digits(text[len(prefix) :]):
                board = int(text[len(prefix) :])
        if board is not None:
            if board not in BOARD_TO_BCM:
                raise data.fail(path, f"header pin {board} is not a GPIO (power, ground or ID)")
            return BOARD_TO_BCM[board]
        for prefix in ("GPIO", "BCM"):
            if text.startswith(prefix) and _digits(text[len(prefix) :]):
                text = text[len(prefix) :]
        if not _digits(text):
            raise data.fail(path, f"not a pin: {value!r} (use 17, 'GPIO17' or 'BOARD11')")
        bcm = int(text)
    else:
        raise data.fail(path, "a pin is a BCM number like 17 or a name like 'GPIO17'")
    if bcm not in BCM_TO_BOARD:
        raise data.fail(path, f"GPIO{bcm} is not on the 40-pin header (GPIO0 to GPIO27)")
    return bcm


class LedKind(StrEnum):
    PLAIN = "plain"  # gpiozero LED
    PWM = "pwm"  # gpiozero PWMLED: patterns can fade
    RGB = "rgb"  # gpiozero RGBLED: patterns get colours


class BuzzerKind(StrEnum):
    ACTIVE = "active"  # gpiozero Buzzer: on/off, its own fixed tone
    PASSIVE = "passive"  # gpiozero TonalBuzzer: tunes


@dataclass(frozen=True)
class LedConfig:
    kind: LedKind
    pins: tuple[int, ...]  # one pin, or red, green, blue


@dataclass(frozen=True)
class BuzzerConfig:
    pin: int
    kind: BuzzerKind = BuzzerKind.ACTIVE


def parse_led(value: object, path: str) -> LedConfig:
    """``5``, ``{pin = 5, kind = "pwm"}`` or ``{red = 5, green = 6, blue = 13}``."""
    if isinstance(value, dict):
        if "red" in value or "green" in value or "blue" in value:
            raw = data.obj(value, path, required=("red", "green", "blue"))
            pins = tuple(parse_pin(raw[c], data.at(path, c)) for c in ("red", "green", "blue"))
            return LedConfig(LedKind.RGB, pins)
        raw = data.obj(value, path, required=("pin",), optional=("kind",))
        kinds = {"plain": LedKind.PLAIN, "pwm": LedKind.PWM}
        kind = data.choice(raw.get("kind", "plain"), data.at(path, "kind"), kinds, "LED kind")
        return LedConfig(kind, (parse_pin(raw["pin"], data.at(path, "pin")),))
    return LedConfig(LedKind.PLAIN, (parse_pin(value, path),))


def parse_buzzer(value: object, path: str) -> BuzzerConfig:
    """``{pin = 18}`` or ``{pin = 18, kind = "passive"}`` (a TonalBuzzer)."""
    raw = data.obj(value, path, required=("pin",), optional=("kind",))
    kinds = {str(k): k for k in BuzzerKind}
    kind = data.choice(raw.get("kind", "active"), data.at(path, "kind"), kinds, "buzzer kind")
    return BuzzerConfig(parse_pin(raw["pin"], data.at(path, "pin")), kind)


def parse_pin_factory(value: object, path: str) -> str:
    """One of :data:`PIN_FACTORIES` (``"auto"`` lets gpiozero's order decide).

    pigpio is not offered in the error's list; named anyway, it passes here and is refused
    with its reason when the pins are opened (``devices.pins``).
    """
    if value == "pigpio":
        return "pigpio"
    offered = {f: f for f in PIN_FACTORIES if f != "pigpio"}
    return data.choice(value, path, offered, "pin factory")


# The buttons of the CHOMP! example table (hardware/pinmap.example.toml; a test holds the
# two together). Each is wired from its pin to ground, so another table that reuses that
# wiring must not drive one of them as an output: pressing the button would short it.
CHOMP_EXAMPLE_BUTTONS: dict[int, str] = {
    17: "ann's slap button",
    27: "bob's slap button",
    22: "cat's slap button",
    23: "dan's slap button",
    21: "reveal button",
}


def output_on_a_button(pin: int, path: str) -> str | None:
    """A warning when an output pin is one the CHOMP! example table wires as a button."""
    what = CHOMP_EXAMPLE_BUTTONS.get(pin)
    if what is None:
        return None
    return (
        f"{path}: GPIO{pin} is the CHOMP! example table's {what}, wired to ground "
        "(hardware/pinmap.example.toml): on that wiring, an output here is shorted when "
        "the button is pressed; choose another pin"
    )


@dataclass
class PinClaims:
    """The pins a config has used so far: a second use is an error naming the first.

    A HAT ID pin (GPIO0/1) is allowed with a warning, collected in :attr:`warnings` for
    the table to show when it opens.
    """

    used: dict[int, str] = field(default_factory=dict)  # pin -> the config key using it
    warnings: list[str] = field(default_factory=list)

    def claim(self, pin: int, path: str) -> int:
        """Take ``pin`` for the key at ``path``; returns the pin."""
        if pin in self.used:
            raise data.fail(path, f"GPIO{pin} is already used by {self.used[pin]}")
        self.used[pin] = path
        if pin in HAT_ID_PINS:
            self.warnings.append(
                f"{path}: GPIO{pin} is {HAT_ID_PINS[pin]}, a HAT's ID EEPROM pin: it works "
                "with no HAT on the Pi, but hardware/WIRING.md keeps it free"
            )
        return pin

    def output(self, pin: int, path: str) -> int:
        """Take ``pin`` as an output (warned about when it is a button on the CHOMP! table)."""
        warning = output_on_a_button(pin, path)
        if warning is not None:
            self.warnings.append(warning)
        return self.claim(pin, path)

    def led(self, led: LedConfig, path: str) -> LedConfig:
        """Take every pin of an LED (three for an RGB LED)."""
        for pin in led.pins:
            self.output(pin, path)
        return led

    def buzzer(self, buzzer: BuzzerConfig, path: str) -> BuzzerConfig:
        self.output(buzzer.pin, data.at(path, "pin"))
        return buzzer

    def table_outputs(
        self, raw: Mapping[str, object], where: str = ""
    ) -> tuple[BuzzerConfig | None, LedConfig | None]:
        """The optional ``buzzer`` and ``status_led`` keys a table's config may have (under
        ``where``, e.g. ``getbit``), read and their pins claimed."""
        buzzer_at, status_at = data.at(where, "buzzer"), data.at(where, "status_led")
        buzzer = (
            self.buzzer(parse_buzzer(raw["buzzer"], buzzer_at), buzzer_at)
            if "buzzer" in raw
            else None
        )
        status = (
            self.led(parse_led(raw["status_led"], status_at), status_at)
            if "status_led" in raw
            else None
        )
        return buzzer, status
