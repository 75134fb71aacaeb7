"""The CHOMP! table's TOML configuration: players and pins, outputs, timing, game settings.

Checked once at start so that a wiring mistake is one clear line, not a surprise mid-game:
a pin used twice, an unknown key, a player count the mode does not allow. Pins, LEDs and
the buzzer are read by :mod:`companion.devices.wiring`, as every table reads them.
"""

from __future__ import annotations

import re
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
from companion.files import check_path, check_target
from companion.games.chomp import (
    DEFAULT_TIE_WINDOW_US,
    END_NAMES,
    MODE_NAMES,
    Mode,
    TwoPlayerEnd,
    player_range,
)
from companion.signals import TABLE_REVEALS
from companion.signals import RevealBy as RevealBy  # the field's type, named here as before
from companion.tables.camera import CameraConfig, camera_from
from companion.tables.settings import SETTINGS_KEYS, TableSettings, settings_from
from companion.tables.voice import VoiceConfig, palette_from, voice_from


@dataclass(frozen=True)
class PlayerConfig:
    name: str
    button: int | None  # a GPIO pin, or None when the button is on the Pico bridge
    led: LedConfig | None = None


@dataclass(frozen=True)
class TagsConfig:
    """Cards read from their tags at the reveal (docs/tags.md)."""

    file: Path  # the CHOMP! tag file from ``companion tags learn``
    readers: tuple[str, ...]  # reader specs: pn532:PORT, serial:PORT, bridge
    seats: tuple[str, ...] | None  # reader i is seat i's; None: one reader, seat order


@dataclass(frozen=True)
class BridgeConfig:
    """Buttons wired to the Pico bridge (firmware_bridge/, hardware/BRIDGE.md)."""

    port: str  # "auto", a device path, or a pyserial URL such as hwgrep://2e8a:0005
    buttons: Mapping[str, int]  # player -> Pico button index


@dataclass(frozen=True)
class ChompConfig:
    """Everything a CHOMP! table needs to open: seats, wiring, timing, the journal."""

    players: tuple[PlayerConfig, ...]
    mode: Mode = Mode.STANDARD
    two_player_end: TwoPlayerEnd = TwoPlayerEnd.COUNT
    tie_window_us: int = DEFAULT_TIE_WINDOW_US
    settle_ms: float = 5.0
    lockout_ms: float = 150.0
    stuck_ms: float = 2000.0
    round_timeout_s: float = 10.0
    end_ms: float = 1000.0  # C12a: the grace before a round nobody can win ends
    reveal: RevealBy = RevealBy.COUNTDOWN
    countdown_beeps: int = 3
    countdown_interval_ms: float = 600.0
    journal: Path = Path("chomp-journal.jsonl")
    pin_factory: str = "auto"
    buzzer: BuzzerConfig | None = None
    status_led: LedConfig | None = None
    reveal_button: int | None = None
    bridge: BridgeConfig | None = None
    tags: TagsConfig | None = None
    camera: CameraConfig | None = None  # [camera]: the cards read from above the table
    settings: TableSettings = TableSettings()  # [web] and [history]
    voice: VoiceConfig = VoiceConfig()  # [voice]: spoken calls, off by default
    palette: str = "standard"  # [leds] palette: the RGB LEDs' colours
    source: str = field(default="", compare=False)
    warnings: tuple[str, ...] = field(default=(), compare=False)  # shown when the table opens

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)


_TOP_KEYS = (
    "game", "referee", "gpio", "players", "buzzer", "status_led", "reveal_button", "bridge",
    "tags", "camera", "voice", "leds", *SETTINGS_KEYS,
)  # fmt: skip
TYPABLE_NAME = re.compile(r"[^\W][\w-]{0,23}")  # no space, '=' or control: `cards ann=seal`
BRIDGE_BUTTONS = 16  # the Pico firmware's button indexes 0..15 (hardware/BRIDGE.md)
_REFEREE_KEYS = (
    "tie_window_us",
    "settle_ms",
    "lockout_ms",
    "stuck_ms",
    "round_timeout_s",
    "end_ms",
    "reveal",
    "countdown_beeps",
    "countdown_interval_ms",
    "journal",
)


def _bridge(raw: object) -> BridgeConfig:
    b = data.obj(raw, "bridge", required=("buttons",), optional=("port",))
    port = data.name(b.get("port", "auto"), "bridge.port", "port")
    indexes: dict[str, int] = {}
    for player, index in data.mapping(b["buttons"], "bridge.buttons").items():
        where = data.at("bridge.buttons", player)
        n = data.integer(index, where, 0, BRIDGE_BUTTONS - 1)
        if n in indexes.values():
            raise data.fail(where, f"bridge button {n} is used twice")
        indexes[player] = n
    return BridgeConfig(port, indexes)


def _players(
    raw: object, bridge: BridgeConfig | None, claims: PinClaims
) -> tuple[PlayerConfig, ...]:
    players: list[PlayerConfig] = []
    for i, item in enumerate(data.lst(raw, "players")):
        here = data.at("players", i)
        p = data.obj(item, here, required=("name",), optional=("button", "led"))
        name = data.name(p["name"], data.at(here, "name"), "player")
        if not TYPABLE_NAME.fullmatch(name):
            raise data.fail(
                data.at(here, "name"),
                f"{name!r} cannot be typed in the line mode (as in cards ann=seal): use "
                "letters, digits, '-' or '_', at most 24",
            )
        if name in (q.name for q in players):
            raise data.fail(data.at(here, "name"), f"player {name!r} is named twice")
        on_bridge = bridge is not None and name in bridge.buttons
        if ("button" in p) == on_bridge:
            raise data.fail(
                here,
                f"{name!r} needs exactly one button: a GPIO pin here or an index in [bridge]",
            )
        button = None
        if "button" in p:
            where = data.at(here, "button")
            button = claims.claim(parse_pin(p["button"], where), where)
        led = None
        if "led" in p:
            led = claims.led(parse_led(p["led"], data.at(here, "led")), data.at(here, "led"))
        players.append(PlayerConfig(name, button, led))
    if bridge is not None:
        for player in bridge.buttons:
            if player not in (q.name for q in players):
                raise data.fail(data.at("bridge.buttons", player), f"no player {player!r}")
    return tuple(players)


def _tags(raw: object, names: tuple[str, ...]) -> TagsConfig:
    t = data.obj(raw, "tags", required=("file", "readers"), optional=("seats",))
    specs = tuple(
        data.name(r, data.at("tags.readers", i), "reader")
        for i, r in enumerate(data.lst(t["readers"], "tags.readers"))
    )
    if not specs:
        raise data.fail("tags.readers", "name at least one reader, e.g. 'pn532:/dev/serial0'")
    for i, spec in enumerate(specs):
        if spec == "keyboard":
            raise data.fail(
                data.at("tags.readers", i),
                "the referee's keyboard is for its screen: use a serial or PN532 reader",
            )
    seats = None
    if "seats" in t:
        seats = tuple(
            data.name(s, data.at("tags.seats", i), "player")
            for i, s in enumerate(data.lst(t["seats"], "tags.seats"))
        )
        if len(seats) != len(specs):
            raise data.fail("tags.seats", "one seat per reader, in the readers' order")
        for i, seat in enumerate(seats):
            if seat not in names:
                raise data.fail(data.at("tags.seats", i), f"no player {seat!r}")
    return TagsConfig(Path(data.name(t["file"], "tags.file", "file")), specs, seats)


def _timing(ref: dict[str, object]) -> dict[str, float]:
    """The referee's waits, each checked against its smallest sensible value."""
    minimum = {"stuck_ms": 1.0, "round_timeout_s": 0.1, "countdown_interval_ms": 50.0}
    maximum = {
        "settle_ms": 1000.0,
        "lockout_ms": 5000.0,
        "stuck_ms": 600_000.0,
        "round_timeout_s": 3600.0,
        "end_ms": 60_000.0,
        "countdown_interval_ms": 10_000.0,
    }
    defaults: dict[str, float] = {key: getattr(ChompConfig, key) for key in maximum}
    return {
        key: data.number(ref.get(key, default), f"referee.{key}", minimum.get(key, 0), maximum[key])
        for key, default in defaults.items()
    }


def _journal_path(value: object) -> Path:
    text = data.name(value, "referee.journal")
    try:
        return Path(check_path(text))
    except InputError as exc:
        raise data.fail("referee.journal", exc.message) from None


def config_from_dict(raw_value: object) -> ChompConfig:
    """A CHOMP! table's config from its parsed TOML; errors name the key."""
    raw = data.obj(raw_value, data.ROOT, required=("players",), optional=_TOP_KEYS)
    game = data.obj(raw.get("game", {}), "game", optional=("mode", "two_player_end"))
    ref = data.obj(raw.get("referee", {}), "referee", optional=_REFEREE_KEYS)
    gpio = data.obj(raw.get("gpio", {}), "gpio", optional=("pin_factory",))
    mode = data.choice(game.get("mode", "standard"), "game.mode", MODE_NAMES, "mode")
    end = data.choice(
        game.get("two_player_end", "count"), "game.two_player_end", END_NAMES, "two_player_end"
    )
    claims = PinClaims()
    bridge = _bridge(raw["bridge"]) if "bridge" in raw else None
    players = _players(raw["players"], bridge, claims)
    names = tuple(p.name for p in players)
    tags = _tags(raw["tags"], names) if "tags" in raw else None
    camera, camera_warnings = camera_from(raw, names) if "camera" in raw else (None, [])
    low, high = player_range(mode)
    if not low <= len(players) <= high:
        wanted = f"{low}" if low == high else f"{low} or more"
        raise data.fail("players", f"{mode} is played by {wanted} players, not {len(players)}")
    buzzer, status = claims.table_outputs(raw)
    reveal_button = None
    if "reveal_button" in raw:
        rb = data.obj(raw["reveal_button"], "reveal_button", required=("pin",))
        reveal_button = claims.claim(parse_pin(rb["pin"], "reveal_button.pin"), "reveal_button.pin")
    choices = {str(r): r for r in TABLE_REVEALS}
    reveal = data.choice(ref.get("reveal", "countdown"), "referee.reveal", choices, "reveal")
    if reveal is RevealBy.BUTTON and reveal_button is None:
        raise data.fail("referee.reveal", "reveal = 'button' needs a reveal_button pin")
    factory = parse_pin_factory(gpio.get("pin_factory", "auto"), "gpio.pin_factory")
    tie_window = ref.get("tie_window_us", DEFAULT_TIE_WINDOW_US)
    waits = _timing(ref)
    return ChompConfig(
        players=players,
        mode=mode,
        two_player_end=end,
        tie_window_us=data.integer(tie_window, "referee.tie_window_us", 0, 1_000_000),
        reveal=reveal,
        countdown_beeps=data.integer(
            ref.get("countdown_beeps", 3), "referee.countdown_beeps", 0, 20
        ),
        journal=_journal_path(ref.get("journal", "chomp-journal.jsonl")),
        pin_factory=factory,
        buzzer=buzzer,
        status_led=status,
        reveal_button=reveal_button,
        bridge=bridge,
        tags=tags,
        camera=camera,
        warnings=(*claims.warnings, *camera_warnings),
        settle_ms=waits["settle_ms"],
        lockout_ms=waits["lockout_ms"],
        stuck_ms=waits["stuck_ms"],
        round_timeout_s=waits["round_timeout_s"],
        end_ms=waits["end_ms"],
        countdown_interval_ms=waits["countdown_interval_ms"],
        settings=settings_from(raw),
        voice=voice_from(raw),
        palette=palette_from(raw),
    )


def load_config(path: str | Path) -> ChompConfig:
    """Read and check a config file; any problem is a ConfigError naming file and key.

    Relative paths in it (the journal, the tag file) are relative to the file's folder.
    """
    source = str(path)
    raw = data.read_toml(path)
    try:
        config = config_from_dict(raw)
    except InputError as exc:
        raise ConfigError(exc.where, exc.message, source) from None
    folder = Path(path).resolve().parent
    journal = config.journal if config.journal.is_absolute() else folder / config.journal
    try:
        check_target(journal)  # "/", a folder, /dev/full: refused before anything is written
    except InputError as exc:
        raise ConfigError("referee.journal", str(exc), source) from None
    tags = config.tags
    if tags is not None and not tags.file.is_absolute():
        tags = replace(tags, file=folder / tags.file)
    settings = config.settings.relative_to(folder)
    camera = None if config.camera is None else config.camera.relative_to(folder)
    return replace(
        config, journal=journal, tags=tags, camera=camera, settings=settings, source=source
    )
