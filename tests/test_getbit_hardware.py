"""Get Bit! at a wired table, on gpiozero's MockFactory: lock-in buttons, the reveal beep,
the bitten robot's LED, the fanfare, and the [getbit] config (docs/getbit.md).

Only what a render writes at once is asserted (a pattern's first step); later steps play
on the outputs thread and are never timed here.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.tones import Tone

from companion.cli import main
from companion.errors import ConfigError, HardwareError, InputError
from companion.games.getbit import GetBit, Setup
from companion.tables.getbit.config import GetBitConfig, load_table_config
from companion.tables.getbit.hardware import TableHardware
from companion.tables.getbit.saved import SavedGame
from companion.tables.getbit.session import open_getbit_table
from companion.tables.getbit.table import GetBitTable

RunCli = Callable[..., tuple[int, str, str]]  # the conftest run_cli fixture
ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "getbit-table.example.toml"
LEDS = {"red": 5, "blue": 6, "green": 13, "yellow": 19}  # the CHOMP! table's LEDs
BUZZER = 18
BUTTONS = {"ann": 17, "bob": 27, "cat": 22, "dan": 23}
LINE = ("red", "blue", "green", "yellow")


def passive(tmp_path: Path) -> GetBitConfig:
    """The example table with a passive buzzer, so each sound's first note can be told."""
    text = EXAMPLE.read_text().replace('kind = "active"', 'kind = "passive"')
    path = tmp_path / "table.toml"
    path.write_text(text)
    return load_table_config(path)


@pytest.fixture
def table_hw(tmp_path: Path) -> Iterator[Callable[..., TableHardware]]:
    made: list[TableHardware] = []

    def build(config: GetBitConfig | None = None, **kw: Any) -> TableHardware:
        config = config or load_table_config(EXAMPLE)
        setup = Setup(config.robot_players, LINE, **kw)
        hw = TableHardware(config, setup, "mock")
        made.append(hw)
        return hw

    yield build
    for hw in made:
        hw.close()


def level(hw: TableHardware, pin: int) -> float:
    return float(hw.opened.factory.pin(pin).state)


def press(hw: TableHardware, player: str) -> None:
    pin = hw.opened.factory.pin(BUTTONS[player])
    pin.drive_low()
    pin.drive_high()


def frequency(hw: TableHardware) -> float | None:
    value = hw.opened.factory.pin(BUZZER).frequency
    return None if value is None else float(value)


# ------------------------------------------------------------------ lock-in buttons -----


def test_all_lock_in_buttons_pressed_beeps_the_reveal(
    table_hw: Callable[..., TableHardware],
) -> None:
    hw = table_hw()
    for player in ("ann", "bob", "cat"):
        press(hw, player)
        assert not hw.revealed
    assert hw.locked == {"ann", "bob", "cat"}
    assert [level(hw, LEDS[r]) for r in ("red", "blue", "green")] == [1.0, 1.0, 1.0]
    hw.opened.factory.pin(BUTTONS["dan"]).drive_low()  # the last one in
    assert hw.revealed
    assert level(hw, BUZZER) == 1.0  # the reveal beep, at once
    assert [level(hw, LEDS[r]) for r in ("red", "blue", "green")] == [0.0, 0.0, 0.0]


def test_reveal_beep_is_the_long_a6_on_a_passive_buzzer(
    table_hw: Callable[..., TableHardware], tmp_path: Path
) -> None:
    hw = table_hw(passive(tmp_path))
    press(hw, "ann")
    assert frequency(hw) == pytest.approx(Tone("C6").frequency)  # "locked in": two short
    for player in ("bob", "cat", "dan"):
        press(hw, player)
    assert frequency(hw) == pytest.approx(Tone("A6").frequency)  # the reveal


def test_a_lock_in_press_is_a_latch(table_hw: Callable[..., TableHardware]) -> None:
    hw = table_hw()
    pin = hw.opened.factory.pin(BUTTONS["ann"])
    for _ in range(5):  # bounces and a held button
        pin.drive_low()
        pin.drive_high()
    pin.drive_low()
    assert hw.locked == {"ann"} and not hw.revealed


def test_two_player_table_one_button_per_player_lights_both_robots(
    table_hw: Callable[..., TableHardware], tmp_path: Path
) -> None:
    path = tmp_path / "two.toml"
    path.write_text(
        "[getbit]\n"
        '[[getbit.robots]]\nname = "red"\nplayer = "ann"\nled = 5\n'
        '[[getbit.robots]]\nname = "blue"\nplayer = "bob"\nled = 6\n'
        '[[getbit.robots]]\nname = "green"\nplayer = "ann"\nled = 13\n'
        '[[getbit.robots]]\nname = "yellow"\nplayer = "bob"\nled = 19\n'
        "[getbit.buzzer]\npin = 18\n"
        "[getbit.lock_in]\nann = 17\nbob = 27\n"
    )
    hw = table_hw(load_table_config(path))
    press(hw, "ann")
    assert (level(hw, 5), level(hw, 13), level(hw, 6), level(hw, 19)) == (1.0, 1.0, 0.0, 0.0)
    press(hw, "bob")
    assert hw.revealed and level(hw, BUZZER) == 1.0


# --------------------------------------------------------------- the bite and the end ---


def test_bite_lights_the_bitten_robots_led_and_chomps(
    table_hw: Callable[..., TableHardware], tmp_path: Path
) -> None:
    hw = table_hw(passive(tmp_path))
    state = GetBit.new(hw.setup)
    state, result = state.play(dict.fromkeys(LINE, 1))
    hw.show_round(result, state)
    assert level(hw, BUZZER) == 0.0  # round 1: no bite, nothing to show
    state, result = state.play({"red": 2, "blue": 3, "green": 2, "yellow": 4})
    assert result.bitten == "green"
    hw.show_round(result, state)
    assert level(hw, LEDS["green"]) == 1.0
    assert (level(hw, LEDS["red"]), level(hw, LEDS["blue"])) == (0.0, 0.0)
    assert frequency(hw) == pytest.approx(Tone("A3").frequency)  # the chomp
    hw.start_round()  # the next round's first key: lights off, buzzer quiet
    assert level(hw, LEDS["green"]) == 0.0 and frequency(hw) is None


def test_rgb_led_shows_the_bite_in_red(
    table_hw: Callable[..., TableHardware], tmp_path: Path
) -> None:
    """The example's commented RGB LED for the yellow robot, on GPIO12, 16 and 26."""
    rgb = "led = { red = 12, green = 16, blue = 26 }"
    text = EXAMPLE.read_text().replace("led = 19 ", rgb + "  # ", 1)
    path = tmp_path / "table.toml"
    path.write_text(text)
    hw = table_hw(load_table_config(path))
    state = GetBit.new(hw.setup)
    state, _ = state.play(dict.fromkeys(LINE, 1))
    state, result = state.play(dict.fromkeys(LINE, 2))
    assert result.bitten == "yellow"
    hw.show_round(result, state)
    assert (level(hw, 12), level(hw, 16), level(hw, 26)) == (1.0, 0.0, 0.0)


def test_the_end_eaten_robot_out_and_the_winners_fanfare(
    table_hw: Callable[..., TableHardware], tmp_path: Path
) -> None:
    hw = table_hw(passive(tmp_path))
    raw = GetBit.new(hw.setup).to_dict()
    raw["round"] = 5
    raw["limbs"].update({"yellow": 0, "green": 1})
    raw["out"] = ["yellow"]
    raw["line"] = ["red", "blue", "green"]
    from companion.games.getbit.formats import state_from_dict

    state, result = state_from_dict(raw).play({"red": 1, "blue": 3, "green": 3})
    # red moves first... to the front; blue and green tie; green is bitten and out, then
    # two are left and the shark eats blue: red wins.
    assert (result.out, state.winner) == (("green", "blue"), "ann")
    hw.show_round(result, state)
    assert [level(hw, LEDS[r]) for r in ("red", "blue", "green")] == [1.0, 1.0, 1.0]
    assert hw.outputs._players["red"].track.due is not None  # game_over keeps blinking
    assert frequency(hw) == pytest.approx(Tone("A3").frequency)  # chomp, then the rest


def test_undo_clears_the_lights_and_the_lock_ins(table_hw: Callable[..., TableHardware]) -> None:
    hw = table_hw()
    press(hw, "ann")
    hw.reset(GetBit.new(hw.setup))
    assert hw.locked == set() and level(hw, LEDS["red"]) == 0.0


def test_the_table_tells_the_hardware_each_round(
    table_hw: Callable[..., TableHardware], tmp_path: Path
) -> None:
    hw = table_hw()
    session, _ = SavedGame.open(tmp_path / "g.json", hw.setup, resume=False, new=False)
    table = GetBitTable(session, hardware=hw)
    press(hw, "ann")
    table.play(dict.fromkeys(LINE, 1))
    assert hw.locked == set()  # the result clears the lock-ins
    for key in "2324":
        table.key(key)
    assert table.entry.complete
    table.play(table.entry.cards())
    assert session.last is not None and session.last.bitten == "green"
    assert level(hw, LEDS["green"]) == 1.0


def test_press_from_the_keyboard_only_on_mock_pins(
    table_hw: Callable[..., TableHardware],
) -> None:
    hw = table_hw()
    hw.press("ann")
    assert hw.locked == {"ann"}
    with pytest.raises(HardwareError, match="zed has no lock-in button"):
        hw.press("zed")


# ------------------------------------------------------------------ the CLI on mock pins -


def test_play_with_config_on_mock_pins_beeps_and_bites(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    states: dict[int, list[bool]] = {}
    close = TableHardware.close

    def keep_pins(self: TableHardware) -> None:
        for pin in (BUZZER, *LEDS.values()):
            states[pin] = [bool(s.state) for s in self.opened.factory.pin(pin).states]
        close(self)

    monkeypatch.setattr(TableHardware, "close", keep_pins)
    save = tmp_path / "game.json"
    stdin = "press ann bob cat\nleds\npress dan\n1 1 1 1\n2 3 2 4\nquit\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    argv = ["getbit", "play", "--config", str(EXAMPLE), "--pin-factory", "mock"]
    status = main([*argv, "--line", ",".join(LINE), "--save", str(save)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "pins: gpiozero MockFactory" in out
    assert "locked in: ann, bob, cat" in out
    assert "buzzer on; locked in: ann, bob, cat, dan" in out  # the reveal beep
    assert "the shark bites green: 3 limbs left" in out
    assert True in states[LEDS["green"]]  # the bitten robot's LED lit
    assert json.loads(save.read_text())["robots"] == {
        "red": "ann",
        "blue": "bob",
        "green": "cat",
        "yellow": "dan",
    }


# ------------------------------------------------------------------------ the config ----


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[getbit]\nwhat = 1\n", "getbit.what: unknown key 'what'"),
        ("[other]\n", "other: unknown key 'other'"),
        (
            '[getbit]\n[[getbit.robots]]\nname = "red"\nled = 5\n[getbit.buzzer]\npin = 5\n',
            "getbit.buzzer.pin: GPIO5 is already used by getbit.robots[0].led",
        ),
        (
            '[getbit]\n[[getbit.robots]]\nname = "red"\n[getbit.lock_in]\nann = 17\n',
            "getbit.lock_in.ann: 'ann' plays none of the robots above",
        ),
        (
            '[getbit]\n[[getbit.robots]]\nname = "red"\n'
            '[[getbit.robots]]\nname = "blue"\n[getbit.lock_in]\nred = 17\n',
            "getbit.lock_in: no button for blue",
        ),
        ('[getbit]\npin_factory = "magic"\n', "getbit.pin_factory: unknown pin factory 'magic'"),
        ("[getbit\n", "not TOML"),
    ],
)
def test_config_errors_are_one_line_naming_file_and_key(
    tmp_path: Path, toml: str, message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as err:
        load_table_config(path)
    assert str(err.value).startswith(f"{path}: {message}")
    assert "\n" not in str(err.value)


def test_config_robots_must_be_the_games(tmp_path: Path) -> None:
    config = load_table_config(EXAMPLE)
    other = Setup({r: r for r in ("a", "b", "c", "d")}, ("a", "b", "c", "d"))
    with pytest.raises(ConfigError, match="getbit.robots: not a robot of this game: red"):
        TableHardware(config, other, "mock")


def test_config_through_the_cli_names_the_file(run_cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[getbit]\nwhat = 1\n")
    status, _, err = run_cli("getbit", "play", "--config", str(path), "--save", str(tmp_path / "g"))
    assert status == 2 and err.startswith(f"companion: {path}: getbit.what: unknown key")


def test_a_wiring_mistake_leaves_no_new_game_behind(run_cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "half.toml"
    path.write_text("[getbit]\n[getbit.lock_in]\nann = 17\n")  # bob has no button
    save = tmp_path / "game.json"
    argv = ["getbit", "play", "--players", "ann,bob", "--config", str(path)]
    status, _, err = run_cli(*argv, "--pin-factory", "mock", "--save", str(save))
    assert status == 2 and err == f"companion: {path}: getbit.lock_in: no button for bob\n"
    assert not save.exists()


def test_opening_a_table_that_fails_half_way_releases_the_pins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The saved game refuses to be overwritten after the pins were opened: the ExitStack
    closes the lights and the lock-in buttons again, and the old game is untouched."""
    closed: list[TableHardware] = []
    close = TableHardware.close

    def record(self: TableHardware) -> None:
        closed.append(self)
        close(self)

    monkeypatch.setattr(TableHardware, "close", record)
    config = load_table_config(EXAMPLE)
    setup = Setup(config.robot_players, LINE)
    save = tmp_path / "game.json"
    save.write_text("{}")
    with pytest.raises(InputError, match="holds a game"):
        open_getbit_table(save, setup, config=config, pin_factory="mock")
    assert len(closed) == 1 and save.read_text() == "{}"
    table = open_getbit_table(save, setup, new=True, config=config, pin_factory="mock")
    assert table.hardware is not None and table.hardware.opened.name == "mock"
    table.close()
    assert closed[-1] is table.hardware and len(closed) == 2
