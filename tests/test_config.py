"""The referee's TOML config: what loads, what each pin name means, and one clear error each.

Every bad config is a single ConfigError (an InputError and a ValueError) whose message
names the file and the key, so the person at the table can fix the line it points at.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from companion import data
from companion.devices.wiring import BuzzerConfig, BuzzerKind, LedConfig, LedKind, parse_pin
from companion.errors import ConfigError, InputError
from companion.games.chomp import Mode, TwoPlayerEnd
from companion.tables.chomp.config import RevealBy, config_from_dict, load_config

RunCli = Callable[..., tuple[int, str, str]]  # the conftest run_cli fixture
ROOT = Path(__file__).resolve().parent.parent
PINMAP = ROOT / "hardware" / "pinmap.example.toml"

# Three players wired as in the example pin map, plus a buzzer; each test changes a line.
BASE = """\
[[players]]
name = "ann"
button = 17
led = 5

[[players]]
name = "bob"
button = 27
led = 6

[[players]]
name = "cat"
button = 22
led = 13

[buzzer]
pin = 18
"""


def write(tmp_path: Path, text: str, name: str = "table.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def config_error(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return caught.value


def assert_one_clear_error(exc: ConfigError, path: Path, key: str, fragment: str) -> None:
    """One line: ``FILE: KEY: what is wrong``, and the error is catchable as a ValueError."""
    assert isinstance(exc, InputError) and isinstance(exc, ValueError)
    assert exc.source == str(path) and exc.where == key
    text = str(exc)
    assert "\n" not in text
    assert text.startswith(f"{path}: {key}: "), text
    assert fragment in text, text


def players(*names: str) -> str:
    pins = [17, 27, 22, 23]
    return "".join(
        f'[[players]]\nname = "{name}"\nbutton = {pins[i]}\n\n' for i, name in enumerate(names)
    )


# -- what loads -----------------------------------------------------------------------------


def test_example_pin_map_loads_with_every_pin_normalised_and_every_setting_read() -> None:
    config = load_config(PINMAP)
    assert [(p.name, p.button, p.led) for p in config.players] == [
        ("ann", 17, LedConfig(LedKind.PLAIN, (5,))),
        ("bob", 27, LedConfig(LedKind.PLAIN, (6,))),
        ("cat", 22, LedConfig(LedKind.PLAIN, (13,))),
        ("dan", 23, LedConfig(LedKind.PLAIN, (19,))),
    ]
    assert config.buzzer == BuzzerConfig(18, BuzzerKind.ACTIVE)
    assert config.status_led == LedConfig(LedKind.PLAIN, (20,))
    assert config.reveal_button == 21
    assert (config.mode, config.two_player_end) == (Mode.STANDARD, TwoPlayerEnd.COUNT)
    assert config.reveal is RevealBy.COUNTDOWN
    assert (config.tie_window_us, config.lockout_ms, config.stuck_ms) == (500, 150.0, 2000.0)
    assert (config.round_timeout_s, config.end_ms, config.settle_ms) == (10.0, 1000.0, 5.0)
    assert (config.countdown_beeps, config.countdown_interval_ms) == (3, 600.0)
    assert config.pin_factory == "auto"
    assert config.journal == PINMAP.parent / "chomp-journal.jsonl"
    assert config.source == str(PINMAP)


def test_defaults_fill_in_everything_but_the_players(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, players("ann", "bob", "cat")))
    assert config.names == ("ann", "bob", "cat")
    assert all(p.led is None for p in config.players)
    assert config.buzzer is None and config.status_led is None and config.reveal_button is None
    assert config.mode is Mode.STANDARD and config.reveal is RevealBy.COUNTDOWN
    assert config.journal == tmp_path / "chomp-journal.jsonl"


@pytest.mark.parametrize(
    "value", [17, "GPIO17", "BCM17", "BOARD11", "J8:11", "gpio17", "bcm17", " board11 ", "17"]
)
def test_every_pin_name_normalises_to_the_bcm_number(value: object) -> None:
    raw = {
        "players": [
            {"name": "ann", "button": value},
            {"name": "bob", "button": 27},
            {"name": "cat", "button": 22},
        ]
    }
    assert config_from_dict(raw).players[0].button == 17
    assert parse_pin(value, "x") == 17


def test_pins_named_two_ways_are_still_one_pin(tmp_path: Path) -> None:
    """BOARD11 is GPIO17: the clash is found after normalising, not by comparing text."""
    path = write(tmp_path, BASE.replace("led = 5", 'led = "BOARD11"'))
    exc = config_error(path)
    assert_one_clear_error(
        exc, path, "players[0].led", "GPIO17 is already used by players[0].button"
    )


def test_rgb_led_takes_three_pins_in_red_green_blue_order(tmp_path: Path) -> None:
    text = BASE.replace("led = 5", 'led = { red = "GPIO5", green = 26, blue = "BOARD36" }')
    text += '\n[status_led]\nred = 12\ngreen = 24\nblue = "J8:22"\n'
    config = load_config(write(tmp_path, text))
    assert config.players[0].led == LedConfig(LedKind.RGB, (5, 26, 16))
    assert config.status_led == LedConfig(LedKind.RGB, (12, 24, 25))


def test_rgb_led_pins_are_claimed_like_any_other(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("led = 5", "led = { red = 5, green = 26, blue = 22 }"))
    exc = config_error(path)
    assert_one_clear_error(
        exc, path, "players[2].button", "GPIO22 is already used by players[0].led"
    )


def test_rgb_led_missing_a_colour_names_the_led(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("led = 5", "led = { red = 5, green = 26 }"))
    assert_one_clear_error(config_error(path), path, "players[0].led", "missing key 'blue'")


def test_pwm_and_plain_led_tables(tmp_path: Path) -> None:
    text = BASE.replace("led = 5", 'led = { pin = 5, kind = "pwm" }').replace(
        "led = 6", "led = { pin = 6 }"
    )
    config = load_config(write(tmp_path, text))
    assert config.players[0].led == LedConfig(LedKind.PWM, (5,))
    assert config.players[1].led == LedConfig(LedKind.PLAIN, (6,))


def test_unknown_led_kind_lists_the_kinds(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("led = 5", 'led = { pin = 5, kind = "disco" }'))
    exc = config_error(path)
    assert_one_clear_error(exc, path, "players[0].led.kind", "unknown LED kind 'disco'")
    assert "plain, pwm" in str(exc)


def test_passive_buzzer(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, BASE + 'kind = "passive"\n'))
    assert config.buzzer == BuzzerConfig(18, BuzzerKind.PASSIVE)


def test_unknown_buzzer_kind_names_the_key(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + 'kind = "piezo"\n')
    assert_one_clear_error(config_error(path), path, "buzzer.kind", "unknown buzzer kind 'piezo'")


def test_journal_is_relative_to_the_config_files_folder_not_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "table"
    folder.mkdir()
    write(folder, '[referee]\njournal = "logs/game.jsonl"\n' + BASE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config(Path("..") / "table" / "table.toml")
    assert config.journal == folder.resolve() / "logs" / "game.jsonl"
    assert config.journal.is_absolute()


def test_an_absolute_journal_path_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "var" / "chomp.jsonl"
    config = load_config(write(tmp_path, f'[referee]\njournal = "{target}"\n' + BASE))
    assert config.journal == target


def test_reveal_by_button_with_its_button(tmp_path: Path) -> None:
    text = '[referee]\nreveal = "button"\n' + BASE + "\n[reveal_button]\npin = 21\n"
    config = load_config(write(tmp_path, text))
    assert config.reveal is RevealBy.BUTTON and config.reveal_button == 21


def test_two_player_modes_take_two_players(tmp_path: Path) -> None:
    text = '[game]\nmode = "double_chomp"\n' + players("ann", "bob")
    config = load_config(write(tmp_path, text))
    assert config.mode is Mode.DOUBLE_CHOMP and config.names == ("ann", "bob")


# -- one clear error each ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "key", "fragment"),
    [
        ("led = 5", "led = 27", "players[1].button", "GPIO27 is already used by players[0].led"),
        ("pin = 18", "pin = 5", "buzzer.pin", "GPIO5 is already used by players[0].led"),
        ("button = 22", "button = 17", "players[2].button", "already used by players[0].button"),
    ],
    ids=["button-vs-led", "led-vs-buzzer", "button-vs-button"],
)
def test_a_pin_used_twice_names_both_places(
    tmp_path: Path, old: str, new: str, key: str, fragment: str
) -> None:
    path = write(tmp_path, BASE.replace(old, new))
    assert_one_clear_error(config_error(path), path, key, fragment)


def test_status_led_and_reveal_button_pins_are_claimed_too(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + "\n[status_led]\npin = 20\n\n[reveal_button]\npin = 20\n")
    exc = config_error(path)
    assert_one_clear_error(exc, path, "reveal_button.pin", "GPIO20 is already used by status_led")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("colour = 1\n" + BASE, "colour"),
        ("[referee]\nspeed = 3\n" + BASE, "referee.speed"),
        (BASE.replace('name = "bob"', 'name = "bob"\nhat = 1'), "players[1].hat"),
        ("[game]\nrounds = 3\n" + BASE, "game.rounds"),
        ("[gpio]\nchip = 4\n" + BASE, "gpio.chip"),
    ],
    ids=["top-level", "referee", "player", "game", "gpio"],
)
def test_an_unknown_key_is_named_with_its_place(tmp_path: Path, text: str, key: str) -> None:
    path = write(tmp_path, text)
    exc = config_error(path)
    assert_one_clear_error(exc, path, key, f"unknown key {key.split('.')[-1]!r}")
    assert "(known: " in str(exc)


@pytest.mark.parametrize(
    ("game", "names", "fragment"),
    [
        ("", ("ann", "bob"), "standard is played by 3 or more players, not 2"),
        ('[game]\nmode = "quick_chomp"\n', ("ann", "bob", "cat"), "quick_chomp is played by 2"),
        ('[game]\nmode = "underwater_war"\n', ("ann",), "underwater_war is played by 2"),
    ],
    ids=["2-in-standard", "3-in-quick_chomp", "1-in-underwater_war"],
)
def test_a_player_count_the_mode_does_not_allow(
    tmp_path: Path, game: str, names: tuple[str, ...], fragment: str
) -> None:
    path = write(tmp_path, game + players(*names))
    assert_one_clear_error(config_error(path), path, "players", fragment)


def test_a_player_named_twice(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace('"cat"', '"ann"'))
    assert_one_clear_error(config_error(path), path, "players[2].name", "'ann' is named twice")


def test_a_missing_player_button_names_the_player(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("button = 27\n", ""))
    assert_one_clear_error(config_error(path), path, "players[1]", "needs exactly one button")


def test_no_players_at_all(tmp_path: Path) -> None:
    path = write(tmp_path, "[referee]\ntie_window_us = 500\n")
    assert_one_clear_error(config_error(path), path, "top level", "missing key 'players'")


def test_not_toml_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "[[players]\nname = ")
    exc = config_error(path)
    assert exc.source == str(path) and "\n" not in str(exc)
    assert str(exc).startswith(f"{path}: not TOML: ")
    assert "line 1" in str(exc)


def test_a_missing_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    exc = config_error(path)
    assert str(exc) == f"{path}: no such config file"


def test_a_folder_instead_of_a_file_is_a_config_error(tmp_path: Path) -> None:
    exc = config_error(tmp_path)
    assert str(exc).startswith(f"{tmp_path}: cannot read: ")


def test_a_file_that_is_not_utf8_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'[[players]]\nname = "Jos\xe9"\n')
    assert str(config_error(path)).startswith(f"{path}: cannot read: ")


def test_reveal_by_button_needs_a_reveal_button(tmp_path: Path) -> None:
    path = write(tmp_path, '[referee]\nreveal = "button"\n' + BASE)
    assert_one_clear_error(config_error(path), path, "referee.reveal", "needs a reveal_button")


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("28", "GPIO28 is not on the 40-pin header"),
        ('"GPIO28"', "GPIO28 is not on the 40-pin header"),
        ("-1", "GPIO-1 is not on the 40-pin header"),
        ('"BOARD1"', "header pin 1 is not a GPIO"),  # 3V3 power
        ('"J8:6"', "header pin 6 is not a GPIO"),  # ground
        ('"BOARD41"', "header pin 41 is not a GPIO"),
        ('"banana"', "not a pin: 'banana'"),
        ("true", "a pin is a BCM number"),
        ("17.0", "a pin is a BCM number"),
    ],
)
def test_a_pin_not_on_the_header(tmp_path: Path, value: str, fragment: str) -> None:
    path = write(tmp_path, BASE.replace("button = 22", f"button = {value}"))
    assert_one_clear_error(config_error(path), path, "players[2].button", fragment)


@pytest.mark.parametrize(
    ("line", "key", "fragment"),
    [
        ('[game]\nmode = "speed"\n', "game.mode", "unknown mode 'speed'"),
        ('[gpio]\npin_factory = "wiringpi"\n', "gpio.pin_factory", "unknown pin factory"),
        ("[referee]\ntie_window_us = -1\n", "referee.tie_window_us", "at least 0"),
        ("[referee]\ncountdown_interval_ms = 10\n", "referee.countdown_interval_ms", "at least"),
        ('[referee]\nround_timeout_s = "10"\n', "referee.round_timeout_s", "expected a number"),
        ('[referee]\njournal = ""\n', "referee.journal", "non-empty"),
        ('[referee]\nreveal = "clap"\n', "referee.reveal", "unknown reveal 'clap'"),
    ],
)
def test_bad_settings_are_named(tmp_path: Path, line: str, key: str, fragment: str) -> None:
    path = write(tmp_path, line + BASE)
    assert_one_clear_error(config_error(path), path, key, fragment)


def test_config_from_dict_reports_the_key_without_a_file() -> None:
    with pytest.raises(InputError) as caught:
        config_from_dict({"players": [{"name": "ann", "button": 17, "led": 17}]})
    assert caught.value.where == "players[0].led" and caught.value.source is None


# -- the command line ------------------------------------------------------------------------


def test_referee_with_a_bad_config_is_one_line_and_exit_2(tmp_path: Path, run_cli: RunCli) -> None:
    path = write(tmp_path, BASE.replace("led = 5", "led = 27"), "bad.toml")
    status, out, err = run_cli("referee", "--config", str(path), "--pin-factory", "mock")
    assert status == 2 and out == ""
    assert err.splitlines() == [
        f"companion: {path}: players[1].button: GPIO27 is already used by players[0].led"
    ]
    assert not (tmp_path / "chomp-journal.jsonl").exists()  # nothing was started


def test_referee_with_a_missing_config_is_one_line_and_exit_2(
    tmp_path: Path, run_cli: RunCli
) -> None:
    path = tmp_path / "bad.toml"
    status, _, err = run_cli("referee", "--config", str(path))
    assert status == 2 and err.splitlines() == [f"companion: {path}: no such config file"]


def test_a_pin_with_a_superscript_digit_is_a_config_error(tmp_path: Path) -> None:
    """str.isdigit() accepts '²' but int() refuses it: a raw ValueError, a traceback in the CLI."""
    path = write(tmp_path, BASE.replace("button = 22", 'button = "GPIO²"'))
    assert_one_clear_error(config_error(path), path, "players[2].button", "not a pin")


def test_a_hat_id_pin_is_accepted_with_a_warning_naming_the_key(tmp_path: Path) -> None:
    """GPIO0/GPIO1 (header pins 27, 28) work as GPIO on a bare Pi, but a HAT's ID EEPROM
    sits there and hardware/WIRING.md keeps them free: the table opens, and says so."""
    config = load_config(write(tmp_path, BASE.replace("button = 22", 'button = "BOARD27"')))
    assert config.players[2].button == 0
    (warning,) = config.warnings
    assert warning.startswith("players[2].button: GPIO0 is ID_SD, a HAT's ID EEPROM pin")
    assert load_config(write(tmp_path, BASE, "plain.toml")).warnings == ()


# -- the one TOML reader (companion.data.read_toml) --------------------------------------------


def test_read_toml_refuses_a_huge_file_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    path.write_text("# " + "x" * data.MAX_TOML_BYTES + "\n")
    with pytest.raises(ConfigError) as caught:
        data.read_toml(path)
    assert str(caught.value) == f"{path}: over {data.MAX_TOML_BYTES} bytes: not a table config"


def test_read_toml_refuses_deep_nesting_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ConfigError) as caught:
        data.read_toml(path)
    assert str(caught.value) == f"{path}: nested too deeply to be a table config"


def test_archive_keeps_every_file_under_a_new_name(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    kept = []
    for n in range(3):
        path.write_text(f"game {n}\n")
        kept.append(data.archive(path))
        assert not path.exists()
    assert len(set(kept)) == 3 and all(p.parent == tmp_path for p in kept)
    assert sorted(p.read_text() for p in kept) == ["game 0\n", "game 1\n", "game 2\n"]
