"""The table's config as the wizard writes it: commented TOML the referee reads.

Written by construction from checked values (names through the text gate and the
referee's own name rule, pins as BCM numbers), then read back by the referee's own
reader before anyone is told it is done. Only ``settle_ms`` and ``lockout_ms`` are ever
changed in a file the maker already has, and only with a yes.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field

from companion.devices.wiring import BCM_TO_BOARD, BuzzerKind
from companion.tables.setup.bounce import Recommendation


@dataclass
class FoundWiring:
    """What the wizard found, seat by seat."""

    seats: list[str]
    buttons: dict[str, int] = field(default_factory=dict)
    leds: dict[str, int] = field(default_factory=dict)
    buzzer: int | None = None
    buzzer_kind: BuzzerKind = BuzzerKind.ACTIVE
    status_led: int | None = None
    reveal_button: int | None = None

    def used(self) -> dict[int, str]:
        """Every pin taken so far -> what it is (for 'already used by' lines)."""
        taken = {pin: f"{seat}'s button" for seat, pin in self.buttons.items()}
        taken.update({pin: f"{seat}'s LED" for seat, pin in self.leds.items()})
        for pin, what in (
            (self.buzzer, "the buzzer"),
            (self.status_led, "the status LED"),
            (self.reveal_button, "the reveal button"),
        ):
            if pin is not None:
                taken[pin] = what
        return taken


def _string(value: str) -> str:
    """A TOML basic string: JSON's escaping is a subset TOML reads the same way."""
    return json.dumps(value, ensure_ascii=False)


def _line(key: str, value: object, comment: str) -> str:
    """``key = value``, its comment in the column the example pin map uses."""
    return f"{f'{key} = {value}':<26} # {comment}"


def _pin(key: str, pin: int) -> str:
    return _line(key, pin, f"header pin {BCM_TO_BOARD[pin]}")


def render(
    found: FoundWiring, timing: Recommendation | None = None, pin_factory: str = "auto"
) -> str:
    """The config text for what was found (timing: the bounce profile's, else defaults)."""
    settle = 5.0 if timing is None else timing.settle_ms
    lockout = 150.0 if timing is None else timing.lockout_ms
    how = "from the bounce profile" if timing is not None else "the default"
    lines = [
        "# companion referee: this table's pin map, written by `companion setup`.",
        "# Pins are BCM numbers (GPIO17); hardware/pinmap.example.toml explains every key.",
        "",
        "[game]",
        'mode = "standard"          # standard | underwater_war | quick_chomp | double_chomp',
        "",
        "[referee]",
        _line("settle_ms", f"{settle:g}", f"{how}: waits this long for presses in flight"),
        _line("lockout_ms", f"{lockout:g}", f"{how}: one press per button per lockout"),
        f'reveal = "{"button" if found.reveal_button is not None else "countdown"}"',
        'journal = "chomp-journal.jsonl"   # relative to this file\'s folder',
        "",
        "[gpio]",
        _line("pin_factory", _string(pin_factory), "the one setup found the buttons with"),
    ]
    for seat in found.seats:
        lines += ["", "[[players]]", f"name = {_string(seat)}"]
        lines.append(_pin("button", found.buttons[seat]))
        if seat in found.leds:
            lines.append(_pin("led", found.leds[seat]))
    if found.buzzer is not None:
        lines += ["", "[buzzer]", _pin("pin", found.buzzer)]
        lines.append(_line("kind", _string(found.buzzer_kind), "active | passive"))
    if found.status_led is not None:
        lines += ["", "[status_led]", _pin("pin", found.status_led)]
    if found.reveal_button is not None:
        lines += ["", "[reveal_button]", _pin("pin", found.reveal_button)]
    return "\n".join(lines) + "\n"


_SECTION = re.compile(r"^\s*\[")
_KEY = re.compile(r"^(\s*)(settle_ms|lockout_ms)(\s*=\s*)[^#\n]*?(\s*(#.*)?)$")


def with_timing(text: str, timing: Recommendation) -> str:
    """``text`` with its [referee] settle_ms and lockout_ms set (added when missing).

    Every other line is kept as it is, comments included; the result is parsed before it
    is returned, so a file this would break is never written.
    """
    values = {"settle_ms": timing.settle_ms, "lockout_ms": timing.lockout_ms}
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == "[referee]"), None)
    if start is None:
        lines += ["", "[referee]"]
        start = len(lines) - 1
    end = next((i for i in range(start + 1, len(lines)) if _SECTION.match(lines[i])), len(lines))
    seen: set[str] = set()
    for i in range(start + 1, end):
        m = _KEY.match(lines[i])
        if m:
            key = m.group(2)
            seen.add(key)
            lines[i] = m.group(1) + _line(key, f"{values[key]:g}", "from the bounce profile")
    missing = [
        f"{k} = {v:g}  # from the bounce profile" for k, v in values.items() if k not in seen
    ]
    lines[start + 1 : start + 1] = missing
    result = "\n".join(lines) + "\n"
    tomllib.loads(result)  # raises on a file this edit would have broken
    return result
