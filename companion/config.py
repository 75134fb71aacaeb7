"""The referee's TOML configuration: players and pins, outputs, timing, game settings.

Checked once at start so that a wiring mistake is one clear line, not a surprise mid-game:
a pin used twice, an unknown key, a player count the mode does not allow. Pins are BCM
numbers (``17``) or names gpiozero also understands (``"GPIO17"``, ``"BCM17"``,
``"BOARD11"``); all are normalised to BCM numbers.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from companion import data
from companion.errors import ConfigError, InputError
from companion.games.chomp import (
    DEFAULT_TIE_WINDOW_US,
    END_NAMES,
    MODE_NAMES,
    Mode,
    TwoPlayerEnd,
    player_range,
)

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
PIN_FACTORIES = ("auto", "lgpio", "rpigpio", "pigpio", "native", "mock")


def _digits(text: str) -> bool:
    """ASCII digits only: str.isdigit() also accepts '²', which int() refuses."""
    return text.isascii() and text.isdigit()


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


class RevealBy(StrEnum):
    COUNTDOWN = "countdown"  # beeps, then the reveal instant
    BUTTON = "button"  # a dedicated reveal button's edge is the reveal instant
    KEY = "key"  # a key at the table (the demo)


@dataclass(frozen=True)
class LedConfig:
    kind: LedKind
    pins: tuple[int, ...]  # one pin, or red, green, blue


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
class BuzzerConfig:
    pin: int
    kind: BuzzerKind = BuzzerKind.ACTIVE


@dataclass(frozen=True)
class RefereeConfig:
    players: tuple[PlayerConfig, ...]
    mode: Mode = Mode.STANDARD
    two_player_end: TwoPlayerEnd = TwoPlayerEnd.COUNT
    tie_window_us: int = DEFAULT_TIE_WINDOW_US
    settle_ms: float = 5.0
    lockout_ms: float = 150.0
    stuck_ms: float = 2000.0
    round_timeout_s: float = 10.0
    end_ms: float = 1500.0
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
    source: str = field(default="", compare=False)
    warnings: tuple[str, ...] = field(default=(), compare=False)  # shown when the table opens

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)


_TOP_KEYS = (
    "game", "referee", "gpio", "players", "buzzer", "status_led", "reveal_button", "bridge",
    "tags",
)  # fmt: skip
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


def config_from_dict(raw_value: object) -> RefereeConfig:
    raw = data.obj(raw_value, data.ROOT, required=("players",), optional=_TOP_KEYS)
    game = data.obj(raw.get("game", {}), "game", optional=("mode", "two_player_end"))
    ref = data.obj(raw.get("referee", {}), "referee", optional=_REFEREE_KEYS)
    gpio = data.obj(raw.get("gpio", {}), "gpio", optional=("pin_factory",))
    mode = data.choice(game.get("mode", "standard"), "game.mode", MODE_NAMES, "mode")
    end = data.choice(
        game.get("two_player_end", "count"), "game.two_player_end", END_NAMES, "two_player_end"
    )

    used: dict[int, str] = {}
    warnings: list[str] = []

    def claim(pin: int, path: str) -> int:
        if pin in used:
            raise data.fail(path, f"GPIO{pin} is already used by {used[pin]}")
        used[pin] = path
        if pin in HAT_ID_PINS:
            warnings.append(
                f"{path}: GPIO{pin} is {HAT_ID_PINS[pin]}, a HAT's ID EEPROM pin: it works "
                "with no HAT on the Pi, but hardware/WIRING.md keeps it free"
            )
        return pin

    bridge = None
    if "bridge" in raw:
        b = data.obj(raw["bridge"], "bridge", required=("buttons",), optional=("port",))
        port = data.name(b.get("port", "auto"), "bridge.port", "port")
        indexes: dict[str, int] = {}
        for player, index in data.mapping(b["buttons"], "bridge.buttons").items():
            where = data.at("bridge.buttons", player)
            n = data.integer(index, where, 0, BRIDGE_BUTTONS - 1)
            if n in indexes.values():
                raise data.fail(where, f"bridge button {n} is used twice")
            indexes[player] = n
        bridge = BridgeConfig(port, indexes)

    players: list[PlayerConfig] = []
    for i, item in enumerate(data.lst(raw["players"], "players")):
        here = data.at("players", i)
        p = data.obj(item, here, required=("name",), optional=("button", "led"))
        name = data.name(p["name"], data.at(here, "name"), "player")
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
            button = claim(parse_pin(p["button"], where), where)
        led = None
        if "led" in p:
            led = parse_led(p["led"], data.at(here, "led"))
            for pin in led.pins:
                claim(pin, data.at(here, "led"))
        players.append(PlayerConfig(name, button, led))
    if bridge is not None:
        for player in bridge.buttons:
            if player not in (q.name for q in players):
                raise data.fail(data.at("bridge.buttons", player), f"no player {player!r}")
    tags = None
    if "tags" in raw:
        t = data.obj(raw["tags"], "tags", required=("file", "readers"), optional=("seats",))
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
                if seat not in (q.name for q in players):
                    raise data.fail(data.at("tags.seats", i), f"no player {seat!r}")
        file = Path(data.name(t["file"], "tags.file", "file"))
        tags = TagsConfig(file, specs, seats)
    low, high = player_range(mode)
    if not low <= len(players) <= high:
        wanted = f"{low}" if low == high else f"{low} or more"
        raise data.fail("players", f"{mode} is played by {wanted} players, not {len(players)}")

    buzzer = None
    if "buzzer" in raw:
        b = data.obj(raw["buzzer"], "buzzer", required=("pin",), optional=("kind",))
        kinds = {str(k): k for k in BuzzerKind}
        kind = data.choice(b.get("kind", "active"), "buzzer.kind", kinds, "buzzer kind")
        buzzer = BuzzerConfig(claim(parse_pin(b["pin"], "buzzer.pin"), "buzzer.pin"), kind)
    status = None
    if "status_led" in raw:
        status = parse_led(raw["status_led"], "status_led")
        for pin in status.pins:
            claim(pin, "status_led")
    reveal_button = None
    if "reveal_button" in raw:
        rb = data.obj(raw["reveal_button"], "reveal_button", required=("pin",))
        reveal_button = claim(parse_pin(rb["pin"], "reveal_button.pin"), "reveal_button.pin")

    reveal = data.choice(
        ref.get("reveal", "countdown"), "referee.reveal", {str(r): r for r in RevealBy}, "reveal"
    )
    if reveal is RevealBy.BUTTON and reveal_button is None:
        raise data.fail("referee.reveal", "reveal = 'button' needs a reveal_button pin")
    factories = {f: f for f in PIN_FACTORIES}
    factory = data.choice(gpio.get("pin_factory", "auto"), "gpio.pin_factory", factories, "factory")

    def ms(key: str, default: float, minimum: float = 0) -> float:
        return data.number(ref.get(key, default), f"referee.{key}", minimum)

    return RefereeConfig(
        players=tuple(players),
        mode=mode,
        two_player_end=end,
        tie_window_us=data.integer(
            ref.get("tie_window_us", DEFAULT_TIE_WINDOW_US), "referee.tie_window_us", 0
        ),
        settle_ms=ms("settle_ms", 5.0),
        lockout_ms=ms("lockout_ms", 150.0),
        stuck_ms=ms("stuck_ms", 2000.0, 1),
        round_timeout_s=ms("round_timeout_s", 10.0, 0.1),
        end_ms=ms("end_ms", 1500.0),
        reveal=reveal,
        countdown_beeps=data.integer(ref.get("countdown_beeps", 3), "referee.countdown_beeps", 0),
        countdown_interval_ms=ms("countdown_interval_ms", 600.0, 50),
        journal=Path(data.name(ref.get("journal", "chomp-journal.jsonl"), "referee.journal")),
        pin_factory=str(factory),
        buzzer=buzzer,
        status_led=status,
        reveal_button=reveal_button,
        bridge=bridge,
        tags=tags,
        warnings=tuple(warnings),
    )


def load_config(path: str | Path) -> RefereeConfig:
    """Read and check a config file; any problem is a ConfigError naming file and key."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("", "no such config file", source) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("", f"cannot read: {exc}", source) from None
    try:
        raw: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("", f"not TOML: {exc}", source) from None
    try:
        config = config_from_dict(raw)
    except InputError as exc:
        raise ConfigError(exc.where, exc.message, source) from None
    folder = Path(path).resolve().parent
    journal = config.journal if config.journal.is_absolute() else folder / config.journal
    tags = config.tags
    if tags is not None and not tags.file.is_absolute():
        tags = replace(tags, file=folder / tags.file)
    return replace(config, journal=journal, tags=tags, source=source)
