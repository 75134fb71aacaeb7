"""A maker's first evening with README and hardware/ (issue 14, points 3 and 4).

The pages are read as data and held to the code: the bridge snippet loads with the
example pin map, the start-up lines are what the referee prints, the signals' wording
matches the sounds, pigpio is never offered, and every install line is one that works
(the project's own virtual environment, the project's folder, never a package of the
same name on the index).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.cli import main
from companion.devices import pins
from companion.devices.outputs import SOUNDS
from companion.errors import ConfigError, HardwareError
from companion.signals import Signal, TimingClass
from companion.tables.chomp import session
from companion.tables.chomp.config import load_config

ROOT = Path(__file__).resolve().parent.parent
HARDWARE = ROOT / "hardware"
PINMAP = HARDWARE / "pinmap.example.toml"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *HARDWARE.glob("*.md")]


def section(page: Path, heading: str) -> str:
    """The text under a heading, to the next heading of the same or a higher level."""
    text = page.read_text("utf-8")
    start = text.index(heading)
    level = heading.split(" ")[0]
    following = re.compile(rf"^#{{1,{len(level)}}} ", re.M)
    end = following.search(text, start + len(heading))
    return text[start : end.start() if end else len(text)]


def fenced(text: str, language: str) -> list[str]:
    return [m.group(2) for m in FENCE.finditer(text) if m.group(1).strip() == language]


# -- BRIDGE.md: the [bridge] table, as the referee reads it ---------------------------------


def without_players(pinmap: str) -> str:
    """The pin map with its [[players]] tables taken out."""
    return re.sub(r"\[\[players\]\]\n(?:(?!\[).*\n)*", "", pinmap)


def test_bridge_snippet_loads_with_the_example_pin_map(tmp_path: Path) -> None:
    players, bridge = fenced(section(HARDWARE / "BRIDGE.md", "## The referee's settings"), "toml")
    table = tmp_path / "table.toml"
    table.write_text(without_players(PINMAP.read_text("utf-8")) + players + "\n" + bridge)
    config = load_config(table)
    assert config.bridge is not None
    assert dict(config.bridge.buttons) == {"ann": 0, "bob": 1, "cat": 2, "dan": 3}
    assert [p.button for p in config.players] == [None] * 4
    assert [p.led.pins[0] for p in config.players if p.led] == [5, 6, 13, 19]


def test_bridge_page_quotes_the_refusal_of_a_player_with_two_buttons(tmp_path: Path) -> None:
    """Keeping the players' `button =` lines is refused, in the words the page quotes."""
    _, bridge = fenced(section(HARDWARE / "BRIDGE.md", "## The referee's settings"), "toml")
    table = tmp_path / "table.toml"
    table.write_text(PINMAP.read_text("utf-8") + "\n" + bridge)
    with pytest.raises(ConfigError) as refused:
        load_config(table)
    message = str(refused.value)
    quoted = re.search(
        r"`('ann' needs exactly one button[^`]*)`",
        section(HARDWARE / "BRIDGE.md", "## The referee's settings").replace("\n", " "),
    )
    assert quoted is not None and message.endswith(quoted[1])
    assert "not yet read" not in (HARDWARE / "BRIDGE.md").read_text("utf-8")


# -- INSTALL.md: the start-up lines are the program's ----------------------------------------


def test_install_start_up_lines_are_what_the_referee_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The example pin map on a Pi 5's lgpio (its detail as pins.py words it), mock pins
    underneath; the service's --resume with no journal yet."""
    (shown,) = fenced(
        section(HARDWARE / "INSTALL.md", "### What the referee reports at start"), "text"
    )
    detail = re.match(r"pins: (.*)", shown)
    assert detail is not None

    def pi5(name: str) -> pins.OpenedFactory:
        factory = MockFactory(pin_class=MockPWMPin)
        return pins.OpenedFactory(factory, "lgpio", TimingClass.KERNEL_EDGE, 20, detail[1])

    monkeypatch.setattr(session, "open_factory", pi5)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    table = tmp_path / "table.toml"
    table.write_text(PINMAP.read_text("utf-8"))
    assert main(["referee", "--config", str(table), "--resume"]) == 0
    printed = capsys.readouterr().err.replace(str(tmp_path), "/home/pi/companion")
    assert printed.startswith(shown)
    assert (
        "lgpio on /dev/gpiochip4 (kernel edge stamps), chosen by auto"
        == pins._opened("lgpio", type("Chip", (), {"chip": 4})(), "chosen by auto").detail
    )


def test_install_step_3_has_no_placeholder_to_fill_in() -> None:
    step = section(HARDWARE / "INSTALL.md", "## 3. The project")
    assert not re.search(r"<[^>]+>", step)
    assert "rsync -a" in step and "pip install -e ." in step


# -- SIGNALS.md: say it as it is ---------------------------------------------------------------


def test_no_winner_cards_go_back_and_the_buzzer_plays_the_pot_sound() -> None:
    doc = (HARDWARE / "SIGNALS.md").read_text("utf-8")
    (row,) = [line for line in doc.splitlines() if line.startswith("| `no_winner`")]
    assert "back to its owner" in row and "to the pot" not in row.split("|")[2].split("(")[0]
    assert SOUNDS[Signal.NO_WINNER] == SOUNDS[Signal.INK_OUT]
    assert "the pot sound" in row


def test_every_row_sharing_the_pot_sound_says_so_in_the_same_words() -> None:
    doc = (HARDWARE / "SIGNALS.md").read_text("utf-8")
    for signal in (Signal.INK_OUT, Signal.ALL_SAME, Signal.WAR, Signal.NO_WINNER):
        (row,) = [line for line in doc.splitlines() if line.startswith(f"| `{signal.value}`")]
        assert "short-long, falling (G5, C5)" in row, signal


# -- pigpio: refused, never offered ------------------------------------------------------------


def test_the_pin_map_does_not_offer_pigpio() -> None:
    line = next(line for line in PINMAP.read_text("utf-8").splitlines() if "pin_factory" in line)
    offered = line.split("#")[1].split("(")[0].replace("|", " ").split()
    assert "pigpio" not in offered and "lgpio" in offered


def test_an_unknown_pin_factory_lists_only_the_usable_ones(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    table.write_text(PINMAP.read_text("utf-8").replace('pin_factory = "auto"', 'pin_factory = "x"'))
    with pytest.raises(ConfigError, match="one of: auto, lgpio, rpigpio, native, mock"):
        load_config(table)
    with pytest.raises(HardwareError, match=r"one of: auto, lgpio, rpigpio, native, mock\)"):
        pins.open_factory("x")


def test_pigpio_named_anyway_is_refused_with_its_reason(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    text = PINMAP.read_text("utf-8").replace('pin_factory = "auto"', 'pin_factory = "pigpio"')
    table.write_text(text)
    config = load_config(table)
    with pytest.raises(HardwareError, match="pigpio is not used: its edge ticks"):
        pins.open_factory(config.pin_factory)


# -- install lines that work -------------------------------------------------------------------

BARE_PIP = re.compile(r"(?<![/\w])pip install\b")  # not .venv/bin/pip, not ~/.../pip


def install_lines() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for number, line in enumerate(page.read_text("utf-8").splitlines(), 1):
            if "pip install" in line or "companion[" in line:
                found.append((f"{page.relative_to(ROOT)}:{number}", line))
    return found


def test_no_page_installs_a_package_called_companion_from_the_index() -> None:
    wrong = [where for where, line in install_lines() if "companion[" in line]
    assert wrong == []


def test_every_pip_install_on_the_pages_is_the_venvs_pip() -> None:
    """A bare `pip install` is refused on Bookworm (externally managed); the pages name the
    venv's pip. INSTALL.md's troubleshooting quotes the refusal itself."""
    bare = [
        where
        for where, line in install_lines()
        if BARE_PIP.search(line) and "externally-managed" not in line and "is refused" not in line
    ]
    assert bare == []


def test_the_programs_own_install_advice_works_too() -> None:
    from companion.scan import INSTALL_HINT as SCAN_HINT
    from firmware_bridge.mprun import INSTALL_HINT as MICROPYTHON_HINT

    for advice in (SCAN_HINT, MICROPYTHON_HINT, pins.ADVICE):
        assert "companion[" not in advice and not BARE_PIP.search(advice), advice
    assert ".venv/bin/pip install -e '.[scan]'" in SCAN_HINT
    assert "python3-lgpio" in pins.ADVICE and "--system-site-packages" in pins.ADVICE


def test_mpremote_comes_from_the_venv() -> None:
    bridge = (HARDWARE / "BRIDGE.md").read_text("utf-8")
    commands = [
        line for block in fenced(bridge, "sh") for line in block.splitlines() if "mpremote" in line
    ]
    assert commands and all(".venv/bin/" in line for line in commands)


# -- point 5: the service's screen and keys; outputs never on another table's buttons -------


def test_the_bom_lists_what_the_tty1_service_needs() -> None:
    unit = (HARDWARE / "companion-referee.service").read_text("utf-8")
    assert "TTYPath=/dev/tty1" in unit
    bom = section(HARDWARE / "BOM.md", "## At the table")
    for part in ("screen with an HDMI input", "Micro-HDMI to HDMI cable", "number pad"):
        assert part in bom, part
    assert "SSH" in bom  # and how to do without


def test_the_code_knows_the_example_tables_buttons() -> None:
    from companion.devices.wiring import CHOMP_EXAMPLE_BUTTONS

    config = load_config(PINMAP)
    buttons = {p.button for p in config.players} | {config.reveal_button}
    assert set(CHOMP_EXAMPLE_BUTTONS) == buttons


def test_the_getbit_example_reuses_the_chomp_wiring_as_it_is() -> None:
    from companion.tables.getbit.config import load_table_config

    chomp = load_config(PINMAP)
    getbit = load_table_config(ROOT / "examples" / "getbit-table.example.toml")
    assert getbit.warnings == ()
    chomp_leds = [p.led.pins for p in chomp.players if p.led]
    assert [r.led.pins for r in getbit.robots if r.led] == chomp_leds
    assert list(getbit.lock_in.values()) == [p.button for p in chomp.players]
    assert getbit.buzzer is not None and chomp.buzzer is not None
    assert getbit.buzzer.pin == chomp.buzzer.pin


GETBIT_ON_THE_REVEAL_BUTTON = """\
[getbit]
[[getbit.robots]]
name = "red"
player = "ann"
led = { red = 16, green = 20, blue = 21 }

[[getbit.robots]]
name = "blue"
player = "bob"

[[getbit.robots]]
name = "green"
player = "ann"

[[getbit.robots]]
name = "yellow"
player = "bob"
"""


def test_an_led_on_the_chomp_reveal_button_is_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.tables.getbit.config import load_table_config

    path = tmp_path / "getbit.toml"
    path.write_text(GETBIT_ON_THE_REVEAL_BUTTON)
    (warning,) = load_table_config(path).warnings
    assert warning.startswith("getbit.robots[0].led: GPIO21 is the CHOMP! example table's reveal")
    assert "shorted when the button is pressed" in warning


def test_getbit_play_prints_the_warning_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "getbit.toml"
    path.write_text(GETBIT_ON_THE_REVEAL_BUTTON)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    argv = ["getbit", "play", "--config", str(path), "--pin-factory", "mock"]
    status = main(argv)
    err = capsys.readouterr().err
    assert f"companion: warning: {path}: getbit.robots[0].led: GPIO21" in err
    assert status == 0  # the warning never stops a table by itself
    assert "GPIO21" in err.splitlines()[0]


def test_a_chips_led_on_a_chomp_slap_button_is_warned_about(tmp_path: Path) -> None:
    from companion.tables.chips.config import load_config as load_chips

    path = tmp_path / "chips.toml"
    path.write_text('[[players]]\nname = "ann"\nled = 17\n\n[[players]]\nname = "bob"\nled = 6\n')
    (warning,) = load_chips(str(path)).warnings
    assert warning.startswith("players[0].led: GPIO17 is the CHOMP! example table's ann's")
