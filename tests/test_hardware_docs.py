"""The hardware docs must agree with the code: pins, header positions, unit file, udev rule.

A maker wires from WIRING.md, so a header pin that disagrees with ``BCM_TO_BOARD`` or a pin
map entry missing from the tables is a wrong wire on a real table. These tests read the
docs as data: the markdown tables, the unit file's sections, the rule's key/value pairs.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion.devices.wiring import BCM_TO_BOARD, BOARD_TO_BCM
from companion.tables.chomp.config import ChompConfig, load_config

ROOT = Path(__file__).resolve().parent.parent
HARDWARE = ROOT / "hardware"
PINMAP = HARDWARE / "pinmap.example.toml"
WIRING = HARDWARE / "WIRING.md"
INSTALL = HARDWARE / "INSTALL.md"
UNIT = HARDWARE / "companion-referee.service"
RULES = HARDWARE / "99-companion-bridge.rules"

GROUND_PINS = frozenset({6, 9, 14, 20, 25, 30, 34, 39})
POWER_PINS = {"3.3 V": frozenset({1, 17}), "5 V": frozenset({2, 4})}
GPIO_NAME = re.compile(r"GPIO(\d+)")


@dataclass(frozen=True)
class Table:
    heading: str  # the nearest markdown heading above the table
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def column(self, name: str) -> int | None:
        for i, cell in enumerate(self.header):
            if cell.lower().startswith(name.lower()):
                return i
        return None


def _cells(line: str) -> tuple[str, ...]:
    return tuple(cell.strip() for cell in line.strip().strip("|").split("|"))


def markdown_tables(text: str) -> list[Table]:
    """Every pipe table in a markdown text, with the heading it sits under."""
    tables: list[Table] = []
    heading = ""
    block: list[str] = []
    in_code = False

    def flush() -> None:
        if len(block) >= 2 and set(block[1].replace("|", "").strip()) <= set("-: "):
            rows = tuple(_cells(line) for line in block[2:])
            tables.append(Table(heading, _cells(block[0]), rows))
        block.clear()

    for line in [*text.splitlines(), ""]:
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and line.lstrip().startswith("|"):
            block.append(line)
            continue
        flush()
        if not in_code and line.startswith("#"):
            heading = line.lstrip("#").strip()
    return tables


def hardware_texts() -> dict[str, str]:
    return {
        p.name: p.read_text(encoding="utf-8") for p in sorted(HARDWARE.iterdir()) if p.is_file()
    }


def example_pins(config: ChompConfig) -> dict[str, int]:
    """Every pin the example map uses, by role."""
    pins: dict[str, int] = {}
    for player in config.players:
        assert player.button is not None, "the example map wires every button to GPIO"
        pins[f"{player.name} button"] = player.button
        if player.led is not None:
            for pin in player.led.pins:
                pins[f"{player.name} LED"] = pin
    if config.buzzer is not None:
        pins["buzzer"] = config.buzzer.pin
    if config.status_led is not None:
        pins["status LED"] = config.status_led.pins[0]
    if config.reveal_button is not None:
        pins["reveal button"] = config.reveal_button
    return pins


@pytest.fixture(scope="module")
def config() -> ChompConfig:
    return load_config(PINMAP)


@pytest.fixture(scope="module")
def wiring_tables() -> list[Table]:
    return markdown_tables(WIRING.read_text(encoding="utf-8"))


# -- the pin map --------------------------------------------------------------------------


def test_example_pin_map_loads(config: ChompConfig) -> None:
    assert [p.name for p in config.players] == ["ann", "bob", "cat", "dan"]
    assert config.buzzer is not None and config.status_led is not None
    assert config.reveal_button is not None
    assert config.journal.is_absolute()


def test_pin_map_comments_name_the_right_header_pins() -> None:
    """`button = 17  # header pin 11`: the comment a maker reads must match the table."""
    found = 0
    for line in PINMAP.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\s*\w+\s*=\s*(\d+)\s*#\s*header pin (\d+)", line)
        if m:
            found += 1
            assert BCM_TO_BOARD[int(m[1])] == int(m[2]), line
    assert found == 11


def test_example_pins_avoid_reserved_pins(config: ChompConfig) -> None:
    """I2C (fixed pull-ups), UART (PN532), SPI (RC522) and the HAT ID pins stay free."""
    reserved = {0, 1, 2, 3, 14, 15, 7, 8, 9, 10, 11}
    assert not set(example_pins(config).values()) & reserved


# -- WIRING.md ----------------------------------------------------------------------------


def test_every_table_row_pairs_gpio_and_header_pin_correctly() -> None:
    """Any table in hardware/ with a 'Header pin' column: GPIOn, GND, 3.3 V, 5 V all right."""
    checked = 0
    for name, text in hardware_texts().items():
        if not name.endswith(".md"):
            continue
        for table in markdown_tables(text):
            col = table.column("Header pin")
            if col is None:
                continue
            for row in table.rows:
                assert row[col].isdigit(), (name, row)
                board = int(row[col])
                for cell in row:
                    if m := GPIO_NAME.fullmatch(cell):
                        assert BOARD_TO_BCM.get(board) == int(m[1]), (name, row)
                        checked += 1
                    elif cell == "GND":
                        assert board in GROUND_PINS, (name, row)
                    elif cell in POWER_PINS:
                        assert board in POWER_PINS[cell], (name, row)
    assert checked >= len(BOARD_TO_BCM)


def test_whole_header_table_lists_all_40_pins(wiring_tables: list[Table]) -> None:
    (table,) = [t for t in wiring_tables if t.heading == "The whole header"]
    col = table.column("Header pin")
    assert col is not None
    assert [int(row[col]) for row in table.rows] == list(range(1, 41))
    grounds = {int(row[col]) for row in table.rows if "GND" in row}
    assert grounds == GROUND_PINS


def test_every_example_pin_has_its_wiring_row(
    config: ChompConfig, wiring_tables: list[Table]
) -> None:
    """Each role of the pin map has a row under its own heading with GPIO and header pin."""
    wanted: list[tuple[str, str, int]] = []  # (heading word, part, BCM)
    for player in config.players:
        assert player.button is not None, "the example map wires every button to GPIO"
        wanted.append((player.name, "Button", player.button))
        if player.led is not None:
            wanted.append((player.name, "LED", player.led.pins[0]))
    assert config.buzzer is not None and config.status_led is not None
    assert config.reveal_button is not None
    wanted += [
        ("Buzzer", "Buzzer", config.buzzer.pin),
        ("Status LED", "Status LED", config.status_led.pins[0]),
        ("Reveal button", "Reveal button", config.reveal_button),
    ]
    for heading_word, part, bcm in wanted:
        rows = [
            row
            for t in wiring_tables
            if heading_word.lower() in t.heading.lower() and t.column("Part") is not None
            for row in t.rows
            if row[0].lower().startswith(part.lower())
        ]
        assert rows, f"no wiring row for {heading_word} {part}"
        for row in rows:
            assert f"GPIO{bcm}" in row, (heading_word, part, row)
            assert str(BCM_TO_BOARD[bcm]) in row, (heading_word, part, row)


def test_every_example_pin_appears_with_its_header_pin_in_wiring(config: ChompConfig) -> None:
    text = WIRING.read_text(encoding="utf-8")
    for role, bcm in example_pins(config).items():
        board = BCM_TO_BOARD[bcm]
        row = re.compile(rf"\|\s*GPIO{bcm}\s*\|\s*{board}\s*\|")
        assert row.search(text), f"{role}: no row with GPIO{bcm} and header pin {board}"


def test_prose_pin_references_agree_with_the_header() -> None:
    """'pin 11 (GPIO17)', 'GPIO20, header pin 38', 'GND pin 9', '5 V pin 2' in any doc."""
    forms: list[tuple[re.Pattern[str], Callable[[re.Match[str]], bool]]] = [
        (
            re.compile(r"\bpin (\d+) \(GPIO(\d+)\)"),
            lambda m: BOARD_TO_BCM.get(int(m[1])) == int(m[2]),
        ),
        (
            re.compile(r"\bGPIO(\d+)(?:,| \() ?(?:header )?pin (\d+)\b"),
            lambda m: BCM_TO_BOARD.get(int(m[1])) == int(m[2]),
        ),
        (re.compile(r"\bGND pin (\d+)"), lambda m: int(m[1]) in GROUND_PINS),
        (re.compile(r"\b3\.3 V pin (\d+)"), lambda m: int(m[1]) in POWER_PINS["3.3 V"]),
        (re.compile(r"(?<![.\d])5 V pin (\d+)"), lambda m: int(m[1]) in POWER_PINS["5 V"]),
    ]
    seen = 0
    for name, text in hardware_texts().items():
        for pattern, ok in forms:
            for m in pattern.finditer(text):
                seen += 1
                assert ok(m), f"{name}: {m[0]!r}"
    assert seen >= 10


def test_wiring_lists_the_ground_pins() -> None:
    text = WIRING.read_text(encoding="utf-8")
    assert "Ground pins: 6, 9, 14, 20, 25, 30, 34, 39." in text
    assert sorted(GROUND_PINS) == [6, 9, 14, 20, 25, 30, 34, 39]


def test_no_gpio_number_outside_the_header() -> None:
    """The 40-pin header has GPIO0 to GPIO27; no doc may name another."""
    pattern = re.compile(r"\b(?:GPIO|BCM) ?(\d{1,3})\b", re.IGNORECASE)
    for name, text in hardware_texts().items():
        for m in pattern.finditer(text):
            assert 0 <= int(m[1]) <= 27, f"{name}: {m[0]!r}"
    for key_pins in tomllib.loads(PINMAP.read_text(encoding="utf-8"))["players"]:
        assert 0 <= key_pins["button"] <= 27 and 0 <= key_pins["led"] <= 27


# -- the systemd unit ---------------------------------------------------------------------


def parse_unit(text: str) -> dict[str, list[tuple[str, str]]]:
    """A systemd unit file as sections of (key, value) in order; repeated keys are kept."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    pending = ""
    for raw in text.splitlines():
        line = pending + raw.strip()
        pending = ""
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if m := re.fullmatch(r"\[([A-Za-z]+)\]", line):
            assert m[1] not in sections, f"section [{m[1]}] twice"
            current = sections.setdefault(m[1], [])
            continue
        assert current is not None, f"key outside a section: {line!r}"
        key, sep, value = line.partition("=")
        assert sep and re.fullmatch(r"[A-Za-z]+", key.strip()), f"not key=value: {line!r}"
        current.append((key.strip(), value.strip()))
    assert not pending, "file ends in a continuation"
    return sections


@pytest.fixture(scope="module")
def unit() -> dict[str, dict[str, str]]:
    return {s: dict(pairs) for s, pairs in parse_unit(UNIT.read_text(encoding="utf-8")).items()}


def test_unit_has_the_three_sections(unit: dict[str, dict[str, str]]) -> None:
    assert list(unit) == ["Unit", "Service", "Install"]
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert "multi-user.target" in unit["Unit"]["After"]


def test_unit_runs_the_referee_as_a_normal_user(unit: dict[str, dict[str, str]]) -> None:
    service = unit["Service"]
    assert service["User"] and service["User"] != "root"
    assert service["Group"] == "gpio"
    assert {"gpio", "dialout"} <= set(service["SupplementaryGroups"].split())
    assert service["Restart"] == "on-failure"
    assert service["RestartSec"] == "2"
    assert "PYTHONUNBUFFERED=1" in service["Environment"].split()
    argv = service["ExecStart"].split()
    assert argv[0].startswith("/") and argv[0].endswith("/.venv/bin/companion")
    assert argv[1:2] == ["referee"]
    assert "--resume" in argv
    config_path = argv[argv.index("--config") + 1]
    assert config_path.startswith("/") and config_path.endswith(".toml")


def test_unit_gives_the_referee_a_terminal_and_logs_its_errors(
    unit: dict[str, dict[str, str]],
) -> None:
    """The referee is interactive (cards are typed), so it runs on a console, not on /dev/null."""
    service = unit["Service"]
    assert service["StandardInput"] == "tty"
    tty = service["TTYPath"]
    assert tty.startswith("/dev/tty")
    assert f"getty@{tty.removeprefix('/dev/')}.service" in unit["Unit"]["Conflicts"].split()
    assert service["StandardError"] == "journal"  # the start lines reach journalctl
    assert service["KillSignal"] == "SIGINT" and "130" in service["SuccessExitStatus"].split()


def test_unit_working_directory_stays_writable(unit: dict[str, dict[str, str]]) -> None:
    """lgpio makes its pipes in the working directory; GPIO devices must stay visible."""
    service = unit["Service"]
    workdir = service["WorkingDirectory"]
    assert workdir.startswith("/home/")
    for key in ("PrivateDevices", "ProtectHome", "ReadOnlyPaths", "InaccessiblePaths"):
        assert key not in service, key
    assert service["ProtectSystem"] in ("yes", "full")  # not "strict": /home stays writable
    assert service["NoNewPrivileges"] == "yes"
    assert service["PrivateTmp"] == "yes"


def test_install_doc_matches_the_unit(unit: dict[str, dict[str, str]]) -> None:
    """INSTALL.md makes the working directory and uses the paths the unit expects."""
    service = unit["Service"]
    home = "/home/" + service["User"] + "/"
    text = INSTALL.read_text(encoding="utf-8")

    def tilde(path: str) -> str:
        return "~/" + path.removeprefix(home)

    assert f"mkdir -p {tilde(service['WorkingDirectory'])}" in text
    argv = service["ExecStart"].split()
    assert (
        f"python3 -m venv --system-site-packages {tilde(argv[0]).removesuffix('/bin/companion')}"
        in text
    )
    assert f"--config {tilde(argv[argv.index('--config') + 1])}" in text
    assert "journalctl -u companion-referee" in text
    assert f"sudo cp ~/companion/hardware/{UNIT.name} /etc/systemd/system/" in text


# -- the udev rule ------------------------------------------------------------------------


def test_udev_rule_targets_the_micropython_pico() -> None:
    lines = [
        line.strip()
        for line in RULES.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert lines
    pair = re.compile(r'[A-Z_]+(?:\{[A-Za-z_]+\})?(==|!=|\+=|:=|=)"[^"]*"')
    for line in lines:
        for item in line.split(", "):
            assert pair.fullmatch(item), f"not a udev key/value: {item!r} in {line!r}"
    text = "\n".join(lines)
    assert 'ATTRS{idVendor}=="2e8a"' in text
    assert 'ATTRS{idProduct}=="0005"' in text
    assert 'ENV{ID_MM_DEVICE_IGNORE}="1"' in text
    assert 'MODE="0660"' in text and 'GROUP="dialout"' in text
    assert 'SYMLINK+="companion-bridge"' in text


def test_udev_install_commands_are_documented() -> None:
    install = "sudo udevadm control --reload && sudo udevadm trigger"
    assert install in RULES.read_text(encoding="utf-8")
    assert install in INSTALL.read_text(encoding="utf-8")


# -- the folder ---------------------------------------------------------------------------


def test_hardware_readme_indexes_every_file() -> None:
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    for path in sorted(HARDWARE.iterdir()):
        if path.is_file() and path.name != "README.md":
            assert f"]({path.name})" in readme, path.name
