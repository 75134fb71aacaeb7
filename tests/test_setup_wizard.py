"""``companion setup`` on mock pins: buttons found by pressing, faults refused, the config
written and read back by the referee's own reader, an existing file kept without a yes.

The maker's hands are a :class:`SimulatedTable` driving the mock pins (a short, an NC
contact, a floating input and bounce are its wiring); the console answers from a script,
and the LED sweep's questions are answered by what is wired on the pin that is lit.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import RunCli, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.devices.pins import OpenedFactory, open_factory
from companion.devices.probe import (
    Reservations,
    SimulatedTable,
    enabled_interfaces,
    read_reservations,
)
from companion.devices.wiring import BuzzerKind
from companion.errors import CompanionError, HardwareError, InputError
from companion.tables.chomp.config import load_config
from companion.tables.setup.app import SetupOptions, run_setup, setup_table
from companion.tables.setup.console import Console
from companion.tables.setup.wizard import Timing, Wizard

ROOT = Path(__file__).resolve().parent.parent
FAST = Timing(rest_s=0.0, press_timeout_s=0.3, quiet_s=0.02, poll_s=0.002, tries=3)
NO_BOOT = Reservations({}, None)
# What the maker answers when a pin is lit, on the example wiring.
EXAMPLE_SIGHTS = {5: "ann", 6: "bob", 13: "cat", 18: "buzzer", 20: "status"}


class PressList:
    """The maker's hands: each wait for a press presses the next pin of ``pins``."""

    def __init__(self, table: SimulatedTable, pins: list[int]) -> None:
        self.table = table
        self.pins = pins

    def at_rest(self) -> None:
        self.table.at_rest()

    def press(self, what: str, pin: int | None, times: int) -> None:
        if pin is not None:
            for _ in range(times):
                self.table.press(pin)
        elif self.pins:
            self.table.press(self.pins.pop(0))

    def show(self, pin: int) -> None:
        return None


class Maker:
    """A console: the LED sweep answered by ``sights``, every other prompt by ``answers``."""

    def __init__(self, answers: list[str], sights: dict[int, str] | None = None) -> None:
        self.answers = answers
        self.sights = EXAMPLE_SIGHTS if sights is None else sights
        self.lines: list[str] = []
        self.lit: list[int] = []

    def ask(self, prompt: str) -> str:
        self.lines.append(prompt)
        lit = re.match(r"GPIO(\d+) is on:", prompt)
        if lit:
            self.lit.append(int(lit.group(1)))
            return self.sights.get(int(lit.group(1)), "")
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)

    @property
    def console(self) -> Console:
        return Console(self.ask, self.lines.append)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@pytest.fixture
def table(opened: OpenedFactory) -> SimulatedTable:
    return SimulatedTable(opened)


def run_wizard(
    opened: OpenedFactory,
    table: SimulatedTable,
    maker: Maker,
    out: Path,
    presses: list[int],
    reservations: Reservations = NO_BOOT,
) -> int:
    hands = PressList(table, presses)
    wizard = Wizard(opened, maker.console, hands, reservations, FAST)
    return setup_table(wizard, out, table.stamp)


def test_whole_wizard_buttons_found_by_pressing_config_read_back_by_the_referee(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    maker = Maker(["ann bob cat", "y", "", "", ""])  # seats, reveal, sweep, active, no bounce
    out = tmp_path / "table.toml"
    status = run_wizard(opened, table, maker, out, [17, 27, 22, 21])
    assert status == 0, maker.text
    config = load_config(out)
    assert config.names == ("ann", "bob", "cat")
    assert [p.button for p in config.players] == [17, 27, 22]
    assert [p.led.pins for p in config.players if p.led] == [(5,), (6,), (13,)]
    assert config.buzzer is not None and config.buzzer.pin == 18
    assert config.buzzer.kind is BuzzerKind.ACTIVE
    assert config.status_led is not None and config.status_led.pins == (20,)
    assert config.reveal_button == 21 and str(config.reveal) == "button"
    assert config.pin_factory == "mock"
    assert "read back by the referee's reader: 3 seats" in maker.text
    assert "press no button meanwhile (a button pressed on a lit pin shorts it" in maker.text
    text = out.read_text(encoding="utf-8")
    assert "# header pin 11" in text and text.startswith("# companion referee")
    assert not {17, 27, 22, 21} & set(maker.lit)  # a button's pin is never driven
    # every output pin released: the mock pins are inputs or closed again
    assert all(opened.factory.pin(p).function == "input" for p in (5, 6, 13, 18, 20))


def test_nc_button_refused_with_its_line(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    table.nc.add(27)
    maker = Maker(["ann bob cat", "", "", "", ""])
    status = run_wizard(opened, table, maker, tmp_path / "t.toml", [17, 27, 22, 23])
    assert status == 0
    assert "GPIO27 reads pressed at rest: a button wired to NC (normally closed)" in maker.text
    assert "refused: GPIO27 reads pressed at rest" in maker.text  # bob's press on it
    buttons = [p.button for p in load_config(tmp_path / "t.toml").players]
    assert 27 not in buttons and buttons == [17, 22, 23]


def test_floating_input_refused_with_its_line_and_never_lit(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    table.floating.add(4)
    maker = Maker(["ann bob cat", "", "", "", ""])
    assert run_wizard(opened, table, maker, tmp_path / "t.toml", [17, 27, 22]) == 0
    assert "GPIO4 changes with nobody pressing: a floating input" in maker.text
    assert 4 not in maker.lit


def test_short_refused_with_its_line(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    table.shorts[17] = 23
    maker = Maker(["ann bob cat", "", "", "", ""])
    assert run_wizard(opened, table, maker, tmp_path / "t.toml", [17, 27, 22, 19]) == 0
    assert "refused: GPIO17 and GPIO23 moved together: a short between them" in maker.text
    assert [p.button for p in load_config(tmp_path / "t.toml").players] == [27, 22, 19]
    assert 23 not in maker.lit  # a pin a press moved is never driven as an output


def test_pin_reserved_by_enabled_i2c_refused_with_its_line(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    boot = tmp_path / "config.txt"
    boot.write_text("[all]\n# dtparam=spi=on\ndtparam=i2c_arm=on\n", encoding="utf-8")
    reservations = read_reservations([tmp_path / "missing.txt", boot])
    assert reservations.pins == {2: "I2C", 3: "I2C"}
    maker = Maker(["ann bob cat", "", "", "", ""])
    out = tmp_path / "t.toml"
    assert run_wizard(opened, table, maker, out, [2, 17, 27, 22], reservations) == 0
    assert f"refused: GPIO2 is reserved by I2C, enabled in {boot}" in maker.text
    assert f"{boot}: I2C enabled, their pins are reserved" in maker.text
    assert [p.button for p in load_config(out).players] == [17, 27, 22]
    assert boot.read_text(encoding="utf-8").endswith("i2c_arm=on\n")  # only read


def test_pin_of_another_seat_refused_with_its_line(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    maker = Maker(["ann bob cat", "", "", "", ""])
    assert run_wizard(opened, table, maker, tmp_path / "t.toml", [17, 17, 27, 22]) == 0
    assert "refused: GPIO17 is already ann's button" in maker.text


def test_no_press_in_time_is_one_line_then_gives_up_as_one_error(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    maker = Maker(["ann bob cat"])
    with pytest.raises(HardwareError, match="no usable button found for ann's button"):
        run_wizard(opened, table, maker, tmp_path / "t.toml", [])
    assert maker.text.count("no press seen in 0.3 s on any watched pin") == FAST.tries
    assert not (tmp_path / "t.toml").exists()


def test_a_pin_another_program_holds_is_one_hardware_error(opened: OpenedFactory) -> None:
    from gpiozero import LED

    from companion.devices.probe import light

    with LED(5, pin_factory=opened.factory), pytest.raises(HardwareError, match="^GPIO5 as an"):
        light(opened, 5)


@pytest.mark.parametrize(
    ("config_txt", "enabled"),
    [
        ("dtparam=i2c_arm=on\ndtparam=spi=on\nenable_uart=1\n", {"I2C", "SPI", "UART"}),
        ("#dtparam=i2c_arm=on\ndtparam=spi=off\nenable_uart=0\n", set()),
        ("dtparam=i2c_arm = on  # the sensor\n[pi4]\nenable_uart=1\n", {"I2C", "UART"}),
    ],
)
def test_enabled_interfaces_read_from_config_txt(config_txt: str, enabled: set[str]) -> None:
    assert enabled_interfaces(config_txt) == enabled


def test_no_boot_config_says_which_pins_are_reserved_when_enabled(tmp_path: Path) -> None:
    line = read_reservations([tmp_path / "none.txt"]).line()
    assert line.startswith("no Pi boot config read: reserved when enabled: I2C on GPIO2")
    assert "SPI on GPIO7, GPIO8, GPIO9, GPIO10, GPIO11" in line and "UART on GPIO14" in line


def test_existing_config_not_overwritten_without_a_yes(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    out = tmp_path / "table.toml"
    out.write_text("# the maker's own\n", encoding="utf-8")
    for answer in ("", "n"):
        maker = Maker([answer])
        assert run_wizard(opened, table, maker, out, [17, 27, 22]) == 1
        assert out.read_text(encoding="utf-8") == "# the maker's own\n"
        assert "exists: overwrite it once set up? [y/N]" in maker.text
        assert "left as it was; nothing written" in maker.text
    maker = Maker(["y", "ann bob cat", "", "", "", ""])
    assert run_wizard(opened, table, maker, out, [17, 27, 22]) == 0
    assert load_config(out).names == ("ann", "bob", "cat")


def test_seat_names_through_the_text_gate(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    answers = ["ann Ann bob", "ann b\u202eob cat", "ann bob", "ann b=b cat", "ann bob cat"]
    maker = Maker([*answers, "", "", "", ""])
    assert run_wizard(opened, table, maker, tmp_path / "t.toml", [17, 27, 22]) == 0
    refusals = [line for line in maker.lines if line.startswith("refused: ")]
    assert len(refusals) == 4, refusals
    assert "'Ann' is named twice" in refusals[0]
    assert "bidi control" in refusals[1]
    assert "a CHOMP! table has 3 to" in refusals[2]
    assert "letters, digits, '-' or '_' only" in refusals[3]


def test_typed_led_pins_checked_and_lit_in_turn(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    # LEDs typed: 5 (yes), 17 is ann's button (refused), cat's 13 stays dark (no)
    maker = Maker(["ann bob cat", "", "5 17 13", "", "n", "", ""])
    out = tmp_path / "t.toml"
    assert run_wizard(opened, table, maker, out, [17, 27, 22]) == 0
    assert "refused: GPIO17 is ann's button; bob gets no LED" in maker.text
    assert "cat gets no LED: an LED that stays dark is usually the wrong way round" in maker.text
    assert [p.led.pins if p.led else None for p in load_config(out).players] == [(5,), None, None]


def test_end_of_input_is_one_input_error(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    with pytest.raises(InputError, match="standard input: ended before the set-up"):
        run_wizard(opened, table, Maker([]), tmp_path / "t.toml", [])


def test_bounce_profile_at_the_end_writes_settle_and_lockout(
    opened: OpenedFactory, table: SimulatedTable, tmp_path: Path
) -> None:
    table.bounce, table.bounce_us = 3, 2500  # 7 edges a press, 15 ms bursts
    maker = Maker(["ann bob cat", "", "", "", "y", ""])
    out = tmp_path / "t.toml"
    assert run_wizard(opened, table, maker, out, [17, 27, 22]) == 0
    assert "ann's button: 20 presses, 7.0 edges per press (at most 7), longest bounce 15.00 ms" in (
        maker.text
    )
    assert "recommended: settle_ms = 16, lockout_ms = 50" in maker.text
    config = load_config(out)
    assert (config.settle_ms, config.lockout_ms) == (16.0, 50.0)
    assert re.search(r"^settle_ms = 16 +# from the bounce profile$", out.read_text("utf-8"), re.M)


def test_bounce_only_on_an_existing_config_names_a_failing_switch(tmp_path: Path) -> None:
    out = tmp_path / "table.toml"
    out.write_text(
        (ROOT / "hardware" / "pinmap.example.toml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    maker = Maker(["", "", "", "", "", "y"])  # Enter: the simulated maker presses each button
    options = SetupOptions(out=out, pin_factory="mock", bounce_only=True, simulate="worn:100")
    assert run_setup(options, maker.console, FAST) == 0
    assert maker.text.count("FAILING: bounce growing") == 5  # four seats and the reveal button
    config = load_config(out)
    assert config.lockout_ms != 150.0 and config.names == ("ann", "bob", "cat", "dan")
    assert "header pin 11" in out.read_text(encoding="utf-8")  # the maker's comments kept


def test_cli_setup_help(run_cli: RunCli) -> None:
    with pytest.raises(SystemExit) as stop:
        run_cli("setup", "--help")
    assert stop.value.code == 0


def test_cli_setup_help_text(capsys: pytest.CaptureFixture[str], run_cli: RunCli) -> None:
    with pytest.raises(SystemExit):
        run_cli("setup", "--help")
    out = capsys.readouterr().out
    for word in ("--bounce", "--out FILE", "--pin-factory", "--simulate", "NC", "short"):
        assert word in out


def test_cli_setup_on_mock_pins_from_nothing(run_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "table.toml"
    # seats; Enter presses ann's, bob's, cat's button; no reveal button; typed LEDs lit
    typed = ["ann bob cat", "", "", "", "n", "5 6 13", "y", "y", "y", "n"]
    result = run_cli("setup", "--pin-factory", "mock", "--out", str(out), stdin="\n".join(typed))
    assert result.status == 0, result.err
    assert "[mock pins] GPIO5 is high: on the simulated table that lights the first seat's LED" in (
        result.out
    )
    assert [p.button for p in load_config(out).players] == [17, 27, 22]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--simulate", "nc:27"], "--simulate: only with --pin-factory mock"),
        (["--pin-factory", "mock", "--simulate", "melt:3"], "one of nc:PIN, floating:PIN"),
        (["--pin-factory", "mock", "--simulate", "nc:²"], "--simulate 'nc:²'"),
        (["--pin-factory", "mock", "--out", "/nonexistent-dir/t.toml"], "no folder"),
        (["--pin-factory", "mock", "--out", "/dev/null"], "/dev/null"),
        (["--pin-factory", "mock", "--bounce", "--out", "missing.toml"], "missing.toml"),
    ],
)
def test_cli_setup_bad_input_one_line_exit_2(
    run_cli: RunCli, argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("setup", *argv)
    assert result.status == 2
    assert message in result.err and result.err.count("\n") == 1, result.err
    assert "Traceback" not in result.err


@pytest.fixture
def fresh_mock() -> Iterator[OpenedFactory]:
    opened = open_factory("mock")
    yield opened
    opened.close()
    opened.factory.reset()


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers=st.lists(st.text(max_size=30), max_size=12))
def test_fuzz_hostile_answers_never_a_traceback(
    answers: list[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Whatever is typed at every prompt, the wizard ends normally or with one
    CompanionError; a config it writes is one the referee reads."""
    opened = open_factory("mock")
    try:
        out = tmp_path_factory.mktemp("fuzz") / "t.toml"
        table = SimulatedTable(opened)
        maker = Maker(answers, sights={})
        try:
            status = run_wizard(opened, table, maker, out, [17, 27, 22, 23, 21, 17])
        except CompanionError:
            return
        if status == 0:
            load_config(out)
    finally:
        opened.close()
        opened.factory.reset()
