"""Every example in README.md, docs/*.md and hardware/*.md runs and prints what it shows.

The pages are the user's manual and, in docs/formats.md, the JSON contract; running them
keeps them true to the code. Two kinds of example are run, each as its own test named
after its page and line, so a failure points at the block to fix:

- a fenced block (of any language) that starts with ``$ companion ...``: the command's
  output follows it; lines starting with ``> `` are typed on standard input (and echoed);
- a block after ``**Input** to `companion ...` `` (or a ``**Run** `companion ...` `` line)
  and the block after the next ``**Output**``: the input is given to the command (on
  standard input for ``-``, else as the named file) and the output compared, exactly, as
  an *(excerpt)* or as a *(shape)*.

Every other block that shows a command or its output is accounted for (the last part of
this file): a shell block of ``companion`` commands is parsed by the real command line
(each option it shows exists and takes what it is given), and every block this machine
cannot run (it needs a Pi, a Pico, apt or systemd, or it creates a virtual environment)
is listed in ``NOT_RUN_HERE`` with the reason, so a new block cannot slip through.
"""

from __future__ import annotations

import io
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from firmware_bridge.mprun import find_micropython

ROOT = Path(__file__).resolve().parent.parent
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "hardware").glob("*.md")),
]

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
INPUT = re.compile(r"^\*\*Input\*\*(?: `([^`]+)`)? to `(companion [^`]+)`")
RUN = re.compile(r"^\*\*Run\*\* `(companion [^`]+)`")
OUTPUT = re.compile(r"^\*\*Output\*\*(?: \((excerpt|shape)\))?(?: \(exit status (\d+)\))?")


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # of the opening fence
    language: str
    text: str


def blocks(page: Path) -> list[Block]:
    """Every fenced block of a page, with the line of its opening fence."""
    text = page.read_text("utf-8")
    name = page.relative_to(ROOT).as_posix()
    return [
        Block(name, text.count("\n", 0, m.start()) + 1, m.group(1).strip(), m.group(2))
        for m in FENCE.finditer(text)
    ]


# ------------------------------------------------------------ $ command blocks ----------


@dataclass(frozen=True)
class Transcript:
    page: str
    line: int
    command: str
    typed: tuple[str, ...]
    expected: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}: {self.command}"


def transcripts(block: Block) -> list[Transcript]:
    """The commands of a block that starts with ``$ companion``, each with its output."""
    if not block.text.startswith("$ companion"):
        return []
    found: list[Transcript] = []
    command: str | None = None
    start = block.line
    expected: list[str] = []
    for offset, line in enumerate(block.text.splitlines(), 1):
        if line.startswith("$ "):
            if command is not None:
                found.append(_transcript(block.page, start, command, expected))
            command, start, expected = line[2:], block.line + offset, []
        else:
            expected.append(line)
    if command is not None:
        found.append(_transcript(block.page, start, command, expected))
    return found


def _transcript(page: str, line: int, command: str, expected: list[str]) -> Transcript:
    typed = tuple(e[2:] for e in expected if e.startswith("> "))
    return Transcript(page, line, command, typed, "\n".join(expected))


TRANSCRIPTS = [t for page in PAGES for b in blocks(page) for t in transcripts(b)]


def run(
    argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_the_manual_has_examples_on_every_game_page() -> None:
    pages = {t.page for t in TRANSCRIPTS}
    assert {"README.md", "docs/dino-grid.md", "docs/foodchain.md", "docs/getbit.md"} <= pages


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_command_a_page_shows_is_run(page: Path) -> None:
    shown = [line for b in blocks(page) for line in b.text.splitlines() if line.startswith("$ ")]
    run = [t for t in TRANSCRIPTS if t.page == page.relative_to(ROOT).as_posix()]
    assert len(run) == len(shown), "a block shows a command after other text: start it with $"


@pytest.mark.parametrize("example", TRANSCRIPTS, ids=[t.id for t in TRANSCRIPTS])
def test_example_prints_what_the_page_shows(
    example: Transcript,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = shlex.split(example.command)
    assert argv[0] == "companion", f"{example.id}: only companion commands are run"
    # A copy of the repository's layout, so a command that saves (chips, getbit play)
    # writes into a fresh folder and never into the repository.
    for name in ("examples", "docs", "hardware"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    stdin = "".join(f"{line}\n" for line in example.typed)
    status, out, err = run(argv[1:], stdin, monkeypatch, capsys)
    # Typed lines show on the page as a person sees them: echoed by the program in line
    # mode, or by the terminal when the program does not print them.
    shown = example.expected.rstrip("\n")
    unechoed = "\n".join(line for line in shown.splitlines() if not line.startswith("> "))
    assert (out + err).rstrip("\n") in (shown, unechoed)
    refused = bool(err) and "warning" not in err
    assert status == (2 if refused else 0)


# ------------------------------------------------------------ Input / Output pairs ------


@dataclass(frozen=True)
class Exchange:
    page: str
    line: int  # of the output block
    command: str
    file: str | None  # the name the input is written to, or None for standard input
    given: Block | None
    mode: str  # "exact", "excerpt" or "shape"
    status: int | None
    output: Block

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}: {self.command}"


def exchanges(page: Path) -> list[Exchange]:
    """The **Input**/**Run** and **Output** pairs of a page, in order."""
    text = page.read_text("utf-8")
    found: list[Exchange] = []
    pending: dict[str, Any] | None = None  # the command waiting for its output
    output: dict[str, Any] | None = None  # the **Output** marker waiting for its block
    want_input = False
    every = blocks(page)
    position = 0
    for block, match in zip(every, FENCE.finditer(text), strict=True):
        for line in text[position : match.start()].splitlines():
            if m := INPUT.match(line):
                pending, want_input, output = (
                    {"command": m[2], "file": m[1], "given": None},
                    True,
                    None,
                )
            elif m := RUN.match(line):
                pending, want_input, output = (
                    {"command": m[1], "file": None, "given": None},
                    False,
                    None,
                )
            elif (m := OUTPUT.match(line)) and pending is not None:
                output = {"mode": m[1] or "exact", "status": int(m[2]) if m[2] else None}
        position = match.end()
        if pending is not None and want_input:
            pending["given"], want_input = block, False
        elif pending is not None and output is not None:
            found.append(Exchange(block.page, block.line, output=block, **pending, **output))
            pending = output = None
    return found


EXCHANGES = [e for page in PAGES for e in exchanges(page)]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_input_and_output_marker_is_paired(page: Path) -> None:
    text = page.read_text("utf-8")
    mine = [e for e in EXCHANGES if e.page == page.relative_to(ROOT).as_posix()]
    commands = len(re.findall(r"^\*\*(?:Input|Run)\*\*", text, re.M))
    outputs = len(re.findall(r"^\*\*Output\*\*", text, re.M))
    assert commands == outputs == len(mine), "an **Input** or **Output** without its pair"


def test_formats_page_has_its_examples() -> None:
    commands = {e.command.split(" -")[0] for e in EXCHANGES if e.page == "docs/formats.md"}
    assert {
        "companion chomp judge",
        "companion chomp replay",
        "companion chomp audit",
        "companion dino score",
        "companion dino game",
        "companion getbit replay",
        "companion foodchain score",
        "companion tags check",
    } <= {c.split(" journal")[0] for c in commands}


def kind(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value) if value is None else "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def excerpt_of(actual: object, shown: object, where: str = "") -> list[str]:
    """Where ``shown`` is not part of ``actual``: every key shown, with its value."""
    if isinstance(shown, dict):
        if not isinstance(actual, dict):
            return [f"{where or 'top'}: {kind(actual)}, not an object"]
        problems = [f"{where}.{k}: missing" for k in shown if k not in actual]
        for k in shown:
            if k in actual:
                problems += excerpt_of(actual[k], shown[k], f"{where}.{k}")
        return problems
    if isinstance(shown, list):
        if not isinstance(actual, list) or len(actual) != len(shown):
            return [f"{where}: {actual!r} is not a list of {len(shown)}"]
        return [
            p
            for i, (a, s) in enumerate(zip(actual, shown, strict=True))
            for p in excerpt_of(a, s, f"{where}[{i}]")
        ]
    return [] if actual == shown else [f"{where}: {actual!r}, the page shows {shown!r}"]


def shape_of(actual: object, shown: object, where: str = "") -> list[str]:
    """Where ``actual`` has other keys, or other kinds of value, than ``shown``."""
    if isinstance(shown, dict):
        if not isinstance(actual, dict):
            return [f"{where or 'top'}: {kind(actual)}, not an object"]
        if set(actual) != set(shown):
            return [f"{where or 'top'}: keys {sorted(actual)}, the page shows {sorted(shown)}"]
        return [p for k in shown for p in shape_of(actual[k], shown[k], f"{where}.{k}")]
    if isinstance(shown, list):
        if not isinstance(actual, list):
            return [f"{where}: {kind(actual)}, not a list"]
        return [
            p for i, a in enumerate(actual) if shown for p in shape_of(a, shown[0], f"{where}[{i}]")
        ]
    return (
        []
        if kind(actual) == kind(shown)
        else [f"{where}: {kind(actual)}, the page shows {kind(shown)}"]
    )


def as_printed_here(shown: Any) -> Any:
    """What this machine prints where the page shows a figure it cannot make.

    MicroPython's Unix port (the test extra's `micropython` command) has wheels for Linux
    x86_64 and macOS arm64 only, so a Raspberry Pi prints `core_ns_per_event.micropython:
    null`, as docs/formats.md says; the rest of the shape is checked as shown.
    """
    cost = shown.get("core_ns_per_event") if isinstance(shown, dict) else None
    if isinstance(cost, dict) and "micropython" in cost and find_micropython() is None:
        return {**shown, "core_ns_per_event": {**cost, "micropython": None}}
    return shown


@pytest.mark.parametrize("example", EXCHANGES, ids=[e.id for e in EXCHANGES])
def test_input_gives_the_output_the_page_shows(
    example: Exchange,
    repo_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = shlex.split(example.command)[1:]
    stdin = ""
    given = example.given.text if example.given else ""
    if example.file:
        path = tmp_path / example.file
        path.write_text(given, encoding="utf-8")
        argv = [str(path) if a == example.file else a for a in argv]
    elif "-" in argv:
        stdin = given
    status, out, err = run(argv, stdin, monkeypatch, capsys)
    printed = out + err
    if example.file:
        printed = printed.replace(str(tmp_path / example.file), example.file)
    shown = example.output.text
    if example.output.language == "json":
        actual, expected = json.loads(printed), as_printed_here(json.loads(shown))
        if example.mode == "shape":
            assert shape_of(actual, expected) == []
        elif example.mode == "excerpt":
            assert excerpt_of(actual, expected) == []
        else:
            assert actual == expected
    else:
        assert printed.rstrip("\n") == shown.rstrip("\n")
    refused = bool(err) and "warning" not in err
    assert status == (example.status if example.status is not None else 2 if refused else 0)


# ------------------------------------------------------------ every JSON block ----------

JSON_BLOCKS = [b for page in PAGES for b in blocks(page) if b.language in ("json", "jsonl")]


@pytest.mark.parametrize("block", JSON_BLOCKS, ids=[f"{b.page}:{b.line}" for b in JSON_BLOCKS])
def test_json_block_is_json(block: Block) -> None:
    if block.language == "jsonl":
        for line in block.text.splitlines():
            assert isinstance(json.loads(line), dict)
    else:
        json.loads(block.text)


# ------------------------------------------------------------ every other block ---------

# Blocks in these languages are data (checked above, or by their page's own tests).
DATA_LANGUAGES = frozenset({"json", "jsonl", "toml", "python", "dino"})
COMPANION = re.compile(r"^(?:~/companion/|\./)?(?:\.venv/bin/)?companion(?: |$)")

# The blocks this machine cannot run, each with the reason: (page, the start of the
# block's first line) -> why. A block here that no longer exists fails the suite, so the list stays
# true. The companion commands inside these blocks are still parsed.
NOT_RUN_HERE: dict[tuple[str, str], str] = {
    ("README.md", "python3 -m venv .venv && .venv/bin/pip install "): (
        "creates a virtual environment and installs from the package index "
        "(tests/test_install_wheels.py resolves that install); the demo is a full screen "
        "(tests/test_first_hour_demo.py), the suite is this one"
    ),
    ("docs/architecture.md", "foundation      errors.py (one exception base, "): (
        "a drawing of the layers, not a command (tests/test_architecture.py holds the tree)"
    ),
    ("docs/history.md", "companion history [--db FILE] import FILE...   e"): (
        "a synopsis of the subcommands, not a command line"
    ),
    ("docs/history.md", "CHOMP! game #1, 2026-10-01T20:00:00+00:00"): (
        "the output of `history show 1` on a database built by three imports "
        "(tests/test_history_cli.py builds one)"
    ),
    ("docs/history.md", "bob"): "the output of `history stats bob` on that database",
    ("docs/scan.md", ".venv/bin/pip install -e '.[scan]'"): (
        "installs into the project's virtual environment (the test extra has the scan extra; "
        "tests/test_install_wheels.py resolves it on the index)"
    ),
    ("docs/scan.md", "# answers.txt, for: companion dino scan photo.jp"): (
        "a patch file's text, read by the scan (tests/test_scan_cli.py)"
    ),
    ("docs/web.md", ".venv/bin/pip install -e '.[web,scan]'"): (
        "installs the extras and serves the pages until stopped (tests/test_web_*.py start "
        "the same server on a free port)"
    ),
    ("docs/web.md", "companion web: open http://192.168.1.23:8080/ on"): (
        "the address and join code of a Pi on its network (tests/test_web_live.py checks "
        "what the server prints)"
    ),
    ("docs/setup.md", "companion: setup is in progress on another phone"): (
        "a second wizard refused while a first one runs in another process "
        "(tests/test_setup_web.py checks the line against this page)"
    ),
    ("docs/reliability.md", "COMPANION_FUZZ=nightly .venv/bin/python -m pytest"): (
        "the night's long fuzz run, about 20 minutes (the suite runs the same tests short)"
    ),
    ("docs/camera.md", "[ 1/50] show shark 1 of 4"): (
        "the answers of `camera learn` with a camera at hand (tests/test_camera_learn.py "
        "runs the same walk over rendered frames)"
    ),
    ("docs/tags.md", "[ 1/50] scan a shark (1 of 4)"): (
        "the prompts of `tags learn` with a card reader at hand (tests/test_tags_learn.py)"
    ),
    ("docs/tags.md", "companion: chomp-tags.json: tags['04A1B2C3']: th"): (
        "a refusal shown in prose (tests/test_tags_tagfile.py)"
    ),
    ("hardware/BRIDGE.md", "cd ~/companion && .venv/bin/pip install mpremote"): (
        "flashes a Pico on USB"
    ),
    ("hardware/BRIDGE.md", "~/companion/.venv/bin/python - <<'EOF'"): (
        "talks to a flashed Pico on USB (the same client meets the simulated Pico in "
        "tests/test_bridge_pty.py)"
    ),
    ("hardware/INSTALL.md", "sudo apt update && sudo apt full-upgrade -y"): "Raspberry Pi OS's apt",
    ("hardware/INSTALL.md", "cd ~/companion && .venv/bin/pip install -e '.[web]'"): (
        "installs the web extra into the Pi's environment (tests/test_install_wheels.py "
        "resolves it on the index)"
    ),
    ("hardware/INSTALL.md", "sudo apt install python3-venv python3-lgpio git"): (
        "Raspberry Pi OS's apt"
    ),
    ("hardware/INSTALL.md", "rsync -a --exclude .venv --exclude .git ./ pi@ra"): (
        "copies to a Pi on the network"
    ),
    ("hardware/INSTALL.md", "python3 -m venv --system-site-packages ~/companio"): (
        "creates the Pi's virtual environment in its home folder"
    ),
    ("hardware/INSTALL.md", '~/companion/.venv/bin/python -c "import lgpio, g'): (
        "needs lgpio from Raspberry Pi OS"
    ),
    ("hardware/INSTALL.md", "sudo usermod -aG gpio $USER"): "changes the Pi's groups (sudo)",
    ("hardware/INSTALL.md", "cp ~/companion/hardware/pinmap.example.toml ~/co"): (
        "edits the Pi's copy of the pin map (tests/test_hardware_docs.py loads the example)"
    ),
    ("hardware/INSTALL.md", "mkdir -p ~/companion/run && cd ~/companion/run"): (
        "the wiring check and the referee hold real GPIO pins (tests/test_pi_hardware.py, "
        "marked pi)"
    ),
    ("hardware/INSTALL.md", "pins: lgpio on /dev/gpiochip4 (kernel edge stamp"): (
        "a Pi 5's start-up lines: tests/test_first_hour_pages.py prints them through the "
        "referee, with lgpio's detail on mock pins"
    ),
    ("hardware/INSTALL.md", "mkdir -p ~/companion/run"): "installs a systemd unit (sudo)",
    ("hardware/INSTALL.md", "journalctl -u companion-referee -f          # fo"): (
        "reads the Pi's system log"
    ),
    ("hardware/INSTALL.md", "sudo cp ~/companion/hardware/99-companion-bridge"): (
        "installs a udev rule (sudo)"
    ),
    ("hardware/INSTALL.md", "lsusb | grep -i 2e8a                # the Pico r"): (
        "looks for a Pico on USB"
    ),
    ("hardware/INSTALL.md", "cd ~/companion/run"): "resumes the Pi's game on its GPIO",
    ("hardware/INSTALL.md", "cd ~/companion && .venv/bin/pip install -e ."): (
        "updates the Pi's install and restarts its service (sudo)"
    ),
    ("hardware/WIRING.md", "  inside the Pi                               at"): "a wiring drawing",
    ("hardware/WIRING.md", "   pin 29 (GPIO5) o---[ 330 Ohm ]---o--->|---o---"): "a wiring drawing",
    ("hardware/WIRING.md", "   5 V pin 2 o---------------+------------------+"): "a wiring drawing",
}


def listed(block: Block) -> tuple[str, str] | None:
    """The NOT_RUN_HERE entry of a block: its page, and the start of its first line."""
    first = block.text.splitlines()[0] if block.text else ""
    return next(
        (key for key in NOT_RUN_HERE if key[0] == block.page and first.startswith(key[1])), None
    )


def command_lines(block: Block) -> list[str]:
    """The block's lines as commands: comments dropped, continued lines joined."""
    joined = block.text.replace("\\\n", " ")
    lines = [line.split("  #")[0].strip() for line in joined.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def companion_commands(block: Block) -> list[list[str]]:
    """Every ``companion`` command in a shell block, also inside ``a && b`` chains."""
    found = []
    for line in command_lines(block):
        for part in line.split("&&"):
            part = part.strip()
            if COMPANION.match(part):
                found.append(shlex.split(part)[1:])
    return found


def how_checked(block: Block, exchanged: set[tuple[str, int]]) -> str | None:
    """How the suite holds this block to the code, or None if it does not."""
    if block.language in DATA_LANGUAGES:
        return "data"
    if transcripts(block):
        return "run"
    if (block.page, block.line) in exchanged:
        return "run"
    lines = command_lines(block)
    if block.language == "sh" and lines and all(COMPANION.match(line) for line in lines):
        return "parsed"
    if listed(block) is not None:
        return "listed"
    return None


ALL_BLOCKS = [b for page in PAGES for b in blocks(page)]
EXCHANGED = {(e.page, e.output.line) for e in EXCHANGES} | {
    (e.page, e.given.line) for e in EXCHANGES if e.given is not None
}


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=[f"{b.page}:{b.line}" for b in ALL_BLOCKS])
def test_every_block_is_run_parsed_or_listed_with_a_reason(block: Block) -> None:
    assert how_checked(block, EXCHANGED) is not None, (
        f"{block.page}:{block.line}: a block the tests neither run nor parse: start it with "
        "$ companion, or list it in NOT_RUN_HERE with the reason"
    )


def test_every_listed_block_is_still_on_its_page() -> None:
    present = {listed(b) for b in ALL_BLOCKS}
    stale = [key for key in NOT_RUN_HERE if key not in present]
    assert stale == []


def test_no_listed_block_could_be_run_instead() -> None:
    on_the_list = [b for b in ALL_BLOCKS if listed(b) is not None]
    assert all(how_checked(b, EXCHANGED) == "listed" for b in on_the_list)


PARSED = [
    (b, argv)
    for b in ALL_BLOCKS
    if b.language in ("sh", "console")  # not the synopses and drawings
    for argv in companion_commands(b)
]


@pytest.mark.parametrize(
    ("block", "argv"), PARSED, ids=[f"{b.page}:{b.line}: {' '.join(a)}" for b, a in PARSED]
)
def test_every_companion_command_on_a_page_parses(
    block: Block, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Its subcommand and options exist and take what the page gives them."""
    from companion.cli import build_parser

    try:
        build_parser(argv).parse_args(argv)
    except SystemExit:
        pytest.fail(f"{block.page}:{block.line}: {' '.join(argv)}: {capsys.readouterr().err}")
