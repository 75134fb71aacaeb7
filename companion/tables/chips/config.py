"""The Chips table's TOML config: players and their LEDs, the buzzer, the deck (E13).

The wiring is read by the shared readers of ``devices.wiring`` (one pin-claims helper, one
LED and buzzer parser for every table) and the file by ``data.read_toml``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from companion import data
from companion.devices.wiring import (
    BuzzerConfig,
    LedConfig,
    PinClaims,
    parse_led,
    parse_pin_factory,
)
from companion.errors import ConfigError, InputError, RuleError
from companion.games.chips import ChipsRules, check_players, rules_from_dict
from companion.tables.chips.typed import check_name
from companion.tables.settings import SETTINGS_KEYS, TableSettings, settings_from


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
    warnings: tuple[str, ...] = ()  # e.g. a HAT ID pin used, shown when the table opens
    settings: TableSettings = TableSettings()  # [web] and [history]

    @property
    def has_outputs(self) -> bool:
        return any(self.leds.values()) or self.buzzer is not None or self.status_led is not None


def config_from_dict(value: object) -> ChipsConfig:
    """The helper's TOML as data; errors name the key (``players[1].led``)."""
    raw = data.obj(
        value,
        data.ROOT,
        required=("players",),
        optional=("game", "gpio", "buzzer", "status_led", "rules", *SETTINGS_KEYS),
    )
    game = data.obj(raw.get("game", {}), "game", optional=("first",))
    gpio = data.obj(raw.get("gpio", {}), "gpio", optional=("pin_factory",))
    rules = rules_from_dict(raw.get("rules", {}), "rules")
    claims = PinClaims()

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
            claims.led(parse_led(p["led"], data.at(here, "led")), data.at(here, "led"))
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
    buzzer, status = claims.table_outputs(raw)
    factory = parse_pin_factory(gpio.get("pin_factory", "auto"), "gpio.pin_factory")
    return ChipsConfig(
        players,
        leds,
        first,
        rules,
        factory,
        buzzer,
        status,
        "rules" in raw,
        tuple(claims.warnings),
        settings_from(raw),
    )


def load_config(path: str) -> ChipsConfig:
    """Read and check the TOML file; a problem is one ConfigError naming file and key."""
    raw = data.read_toml(path)
    try:
        config = config_from_dict(raw)
    except InputError as exc:
        raise ConfigError(exc.where, exc.message, path) from None
    return replace(config, settings=config.settings.relative_to(Path(path).resolve().parent))
