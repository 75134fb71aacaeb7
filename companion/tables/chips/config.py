"""The Chips table's TOML config: players and their LEDs, the buzzer, the deck (E13).

Kept in this one module: the shared wiring and TOML helpers will replace its readers.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion import data
from companion.config import (
    PIN_FACTORIES,
    BuzzerConfig,
    BuzzerKind,
    LedConfig,
    LedKind,
    parse_led,
    parse_pin,
)
from companion.errors import ConfigError, InputError, RuleError
from companion.games.chips import ChipsRules, check_players, rules_from_dict
from companion.tables.chips.typed import check_name


@dataclass(frozen=True)
class ChipsConfig:
    players: tuple[str, ...]
    leds: dict[str, LedConfig | None] = field(default_factory=dict)
    first: str | None = None
    rules: ChipsRules = field(default_factory=ChipsRules)
    pin_factory: str = "auto"
    buzzer: BuzzerConfig | None = None
    status_led: LedConfig | None = None
    strict: bool = False  # E13: a [rules] table transcribes the real deck

    @property
    def has_outputs(self) -> bool:
        return any(self.leds.values()) or self.buzzer is not None or self.status_led is not None


def config_from_dict(value: object) -> ChipsConfig:
    """The helper's TOML as data; errors name the key (``players[1].led``)."""
    raw = data.obj(
        value,
        data.ROOT,
        required=("players",),
        optional=("game", "gpio", "buzzer", "status_led", "rules"),
    )
    game = data.obj(raw.get("game", {}), "game", optional=("first",))
    gpio = data.obj(raw.get("gpio", {}), "gpio", optional=("pin_factory",))
    rules = rules_from_dict(raw.get("rules", {}), "rules")
    used: dict[int, str] = {}

    def claim(led: LedConfig, path: str) -> LedConfig:
        for pin in led.pins:
            if pin in used:
                raise data.fail(path, f"GPIO{pin} is already used by {used[pin]}")
            used[pin] = path
        return led

    leds: dict[str, LedConfig | None] = {}
    for i, item in enumerate(data.lst(raw["players"], "players")):
        here = data.at("players", i)
        p = data.obj(item, here, required=("name",), optional=("led",))
        name = check_name(
            data.name(p["name"], data.at(here, "name"), "player"), data.at(here, "name")
        )
        if name in leds:
            raise data.fail(data.at(here, "name"), f"player {name!r} is named twice")
        leds[name] = (
            claim(parse_led(p["led"], data.at(here, "led")), data.at(here, "led"))
            if "led" in p
            else None
        )
    players = tuple(leds)
    try:
        check_players(players, rules)
    except RuleError as exc:
        raise data.fail("players", str(exc)) from None
    first = None
    if "first" in game:
        first = data.name(game["first"], "game.first", "player")
        if first not in players:
            raise data.fail("game.first", f"{first!r} is not one of the players")
    buzzer = None
    if "buzzer" in raw:
        b = data.obj(raw["buzzer"], "buzzer", required=("pin",), optional=("kind",))
        kinds = {str(k): k for k in BuzzerKind}
        kind = data.choice(b.get("kind", "active"), "buzzer.kind", kinds, "buzzer kind")
        pin = parse_pin(b["pin"], "buzzer.pin")
        claim(LedConfig(LedKind.PLAIN, (pin,)), "buzzer.pin")
        buzzer = BuzzerConfig(pin, kind)
    status = (
        claim(parse_led(raw["status_led"], "status_led"), "status_led")
        if "status_led" in raw
        else None
    )
    factories = {f: f for f in PIN_FACTORIES}
    factory = data.choice(gpio.get("pin_factory", "auto"), "gpio.pin_factory", factories, "factory")
    return ChipsConfig(players, leds, first, rules, factory, buzzer, status, "rules" in raw)


def load_config(path: str) -> ChipsConfig:
    """Read and check the TOML file; a problem is one ConfigError naming file and key."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("", "no such config file", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("", f"cannot read: {exc}", path) from None
    try:
        raw: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("", f"not TOML: {exc}", path) from None
    try:
        return config_from_dict(raw)
    except InputError as exc:
        raise ConfigError(exc.where, exc.message, path) from None
