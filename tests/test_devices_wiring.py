"""Wiring read from a config, the same way for every table: pins, LEDs, buzzers, claims.

Reading wiring never opens a pin, so none of this imports gpiozero.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.devices.wiring import (
    BCM_TO_BOARD,
    PIN_FACTORIES,
    BuzzerConfig,
    BuzzerKind,
    LedConfig,
    LedKind,
    PinClaims,
    parse_buzzer,
    parse_led,
    parse_pin,
    parse_pin_factory,
)
from companion.errors import InputError

ROOT = Path(__file__).resolve().parent.parent


def test_reading_wiring_imports_no_gpiozero() -> None:
    probe = (
        "import sys, companion.devices.wiring, companion.devices; "
        "print(sorted(m for m in sys.modules if m.startswith('gpiozero')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("spelling", [17, "17", "GPIO17", "bcm17", "BOARD11", "J8:11", " gpio17 "])
def test_every_spelling_of_a_pin_is_its_bcm_number(spelling: object) -> None:
    assert parse_pin(spelling, "pin") == 17


def test_every_header_gpio_is_a_pin_and_nothing_else_is() -> None:
    assert {parse_pin(f"BOARD{b}", "p") for b in BCM_TO_BOARD.values()} == set(BCM_TO_BOARD)
    for bad, message in ((28, "not on the 40-pin header"), ("BOARD1", "power, ground"),
                         (True, "a pin is"), ("GPIO²", "not a pin")):  # fmt: skip
        with pytest.raises(InputError, match=message):
            parse_pin(bad, "pin")


def test_a_buzzer_is_one_parser_for_every_table() -> None:
    assert parse_buzzer({"pin": 18}, "buzzer") == BuzzerConfig(18, BuzzerKind.ACTIVE)
    assert parse_buzzer({"pin": "GPIO18", "kind": "passive"}, "getbit.buzzer") == BuzzerConfig(
        18, BuzzerKind.PASSIVE
    )
    with pytest.raises(InputError, match=r"getbit\.buzzer\.kind: unknown buzzer kind 'loud'"):
        parse_buzzer({"pin": 18, "kind": "loud"}, "getbit.buzzer")
    with pytest.raises(InputError, match=r"buzzer: missing key 'pin'"):
        parse_buzzer({}, "buzzer")


def test_pin_factories_are_named_from_one_table() -> None:
    for name in PIN_FACTORIES:
        assert parse_pin_factory(name, "gpio.pin_factory") == name
    with pytest.raises(InputError, match=r"gpio\.pin_factory: unknown pin factory 'wiringpi'"):
        parse_pin_factory("wiringpi", "gpio.pin_factory")


def test_claims_name_the_first_user_of_a_pin_and_warn_on_hat_id_pins() -> None:
    claims = PinClaims()
    assert claims.claim(17, "players[0].button") == 17
    rgb = LedConfig(LedKind.RGB, (5, 6, 13))
    assert claims.led(rgb, "players[0].led") == rgb
    assert claims.buzzer(BuzzerConfig(18), "buzzer") == BuzzerConfig(18)
    assert claims.used == {17: "players[0].button", 5: "players[0].led", 6: "players[0].led",
                           13: "players[0].led", 18: "buzzer.pin"}  # fmt: skip
    with pytest.raises(InputError, match=r"status_led: GPIO6 is already used by players\[0\]"):
        claims.led(parse_led(6, "status_led"), "status_led")
    assert claims.warnings == []
    claims.claim(0, "players[1].button")
    (warning,) = claims.warnings
    assert warning.startswith("players[1].button: GPIO0 is ID_SD, a HAT's ID EEPROM pin")
