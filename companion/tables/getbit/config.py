"""The [getbit] table in a TOML file: the robots' LEDs, a buzzer, lock-in buttons.

Read with :mod:`companion.devices.wiring` as every table reads its wiring; any problem
is one ConfigError line naming the file and the key (docs/getbit.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from companion import data
from companion.devices.wiring import (
    BuzzerConfig,
    LedConfig,
    PinClaims,
    parse_led,
    parse_pin,
    parse_pin_factory,
)
from companion.errors import ConfigError, InputError
from companion.tables.camera import CameraConfig, camera_from
from companion.tables.settings import SETTINGS_KEYS, TableSettings, settings_from
from companion.tables.voice import VoiceConfig, palette_from, voice_from


@dataclass(frozen=True)
class RobotConfig:
    name: str
    player: str
    led: LedConfig | None = None


@dataclass(frozen=True)
class GetBitConfig:
    """The [getbit] table: robots with their LEDs, the buzzer, lock-in buttons."""

    robots: tuple[RobotConfig, ...]
    buzzer: BuzzerConfig | None = None
    lock_in: Mapping[str, int] = field(default_factory=dict)  # player -> button pin
    pin_factory: str = "auto"
    settings: TableSettings = TableSettings()  # [web] and [history]
    voice: VoiceConfig = VoiceConfig()  # [voice]: spoken calls, off by default
    palette: str = "standard"  # [leds] palette: the RGB LEDs' colours
    camera: CameraConfig | None = None  # [camera]: the cards read from above the table
    source: str = ""
    warnings: tuple[str, ...] = ()  # e.g. an LED on a pin another table wires as a button

    @property
    def robot_players(self) -> dict[str, str]:
        return {r.name: r.player for r in self.robots}


def table_config_from_dict(value: object) -> GetBitConfig:
    """A [getbit] table from its parsed TOML; errors name the key (``getbit.robots[1]``)."""
    top = data.obj(
        value,
        data.ROOT,
        required=("getbit",),
        optional=(*SETTINGS_KEYS, "voice", "leds", "camera"),
    )
    raw = data.obj(top["getbit"], "getbit", optional=("pin_factory", "robots", "buzzer", "lock_in"))
    claims = PinClaims()
    robots: list[RobotConfig] = []
    for i, item in enumerate(data.lst(raw.get("robots", []), "getbit.robots")):
        here = data.at("getbit.robots", i)
        r = data.obj(item, here, required=("name",), optional=("player", "led"))
        name = data.name(r["name"], data.at(here, "name"), "robot")
        if name in (x.name for x in robots):
            raise data.fail(data.at(here, "name"), f"robot {name!r} is named twice")
        player = data.name(r.get("player", name), data.at(here, "player"), "player")
        led = None
        if "led" in r:
            led = claims.led(parse_led(r["led"], data.at(here, "led")), data.at(here, "led"))
        robots.append(RobotConfig(name, player, led))
    buzzer, _ = claims.table_outputs(raw, "getbit")
    lock_in: dict[str, int] = {}
    players = {r.player for r in robots}
    for player, pin_value in data.mapping(raw.get("lock_in", {}), "getbit.lock_in").items():
        here = data.at("getbit.lock_in", player)
        if robots and player not in players:
            raise data.fail(here, f"{player!r} plays none of the robots above")
        lock_in[player] = claims.claim(parse_pin(pin_value, here), here)
    if lock_in and robots:
        missing = [p for p in dict.fromkeys(r.player for r in robots) if p not in lock_in]
        if missing:
            raise data.fail("getbit.lock_in", f"no button for {', '.join(missing)}")
    factory = parse_pin_factory(raw.get("pin_factory", "auto"), "getbit.pin_factory")
    camera: CameraConfig | None = None
    camera_warnings: list[str] = []
    if "camera" in top:
        camera, camera_warnings = camera_from(top, [r.name for r in robots] or None)
    return GetBitConfig(
        tuple(robots),
        buzzer,
        lock_in,
        factory,
        camera=camera,
        warnings=(*claims.warnings, *camera_warnings),
        settings=settings_from(top),
        voice=voice_from(top),
        palette=palette_from(top),
    )


def load_table_config(path: str | Path) -> GetBitConfig:
    """Read and check a [getbit] TOML file; any problem is one ConfigError line."""
    source = str(path)
    raw = data.read_toml(path)
    try:
        config = table_config_from_dict(raw)
    except InputError as exc:
        raise ConfigError(exc.where, exc.message, source) from None
    folder = Path(path).resolve().parent
    settings = config.settings.relative_to(folder)
    camera = None if config.camera is None else config.camera.relative_to(folder)
    return replace(config, source=source, settings=settings, camera=camera)
