"""Issue 13's fuzz layer: every reader given what an adversary would write.

JSON inputs, the dinosaur text grid, TOML configs, journal lines, tag files, catalogs,
bridge frames and the line modes get random data and mutated examples. Each must answer
with one line and exit status 2 (the CLI) or its documented error (a library reader), or
accept the input; never a traceback, never a hang.

Fast by default (a few dozen examples per reader, well under a minute on two cores). The
night run, a hundred times as many: ``COMPANION_FUZZ=nightly pytest tests/test_fuzz_readers.py``
(``COMPANION_FUZZ_EXAMPLES=N`` sets the count; docs/reliability.md).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import struct
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.errors import CompanionError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
NIGHTLY = os.environ.get("COMPANION_FUZZ") == "nightly"

settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("COMPANION_FUZZ_EXAMPLES", 3000 if NIGHTLY else examples(30))),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    derandomize=not NIGHTLY,  # the fast run is the same every time; nights explore
)
FUZZ = settings.get_profile("fuzz")

# -- data an adversary writes -----------------------------------------------------------------

HOSTILE_NUMBERS = st.sampled_from(
    [0, -1, 2**63, -(2**63), 10**400, 1e308, -1e308, float("nan"), float("inf"), 0.5, True]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    HOSTILE_NUMBERS,
)
JSONISH: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=25,
)


def dumps(value: Any) -> str:
    """JSON as a careless or hostile writer makes it (NaN, Infinity, huge numbers)."""
    return json.dumps(value, allow_nan=True)


def mutate(value: Any, rng: random.Random, replacement: Any) -> Any:
    """The example with one member (at any depth) replaced, deleted or added."""
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value))
        copy = dict(value)
        action = rng.random()
        if action < 0.2:
            del copy[key]
        elif action < 0.3:
            copy["?" + key] = replacement
        elif action < 0.6:
            copy[key] = replacement
        else:
            copy[key] = mutate(value[key], rng, replacement)
        return copy
    if isinstance(value, list) and value:
        i = rng.randrange(len(value))
        copy_list = list(value)
        copy_list[i] = mutate(value[i], rng, replacement) if rng.random() < 0.6 else replacement
        return copy_list
    return replacement


def run(argv: list[str], stdin: str = "") -> tuple[int, str]:
    """``companion ARGV`` in-process: the exit status and stderr. A traceback fails the test."""
    err = io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = main(argv)
    finally:
        sys.stdin = old_stdin
    return status, err.getvalue()


def assert_one_line_or_fine(status: int, err: str) -> None:
    assert status in (0, 1, 2), (status, err)
    if status == 2:
        lines = [line for line in err.splitlines() if not line.startswith("companion: warning")]
        assert len(lines) == 1 and lines[0].startswith("companion: "), err
    assert "Traceback" not in err


def json_reader_case(command: list[str], example: str) -> Callable[[Any, int], None]:
    """Fuzz a JSON-reading command with random documents and mutations of its example."""
    original = json.loads((EXAMPLES / example).read_text()) if example else None

    def check(replacement: Any, seed: int) -> None:
        doc = (
            replacement if original is None else mutate(original, random.Random(seed), replacement)
        )
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "input.json"
            path.write_text(dumps(doc), encoding="utf-8")
            if original is not None and example.startswith("foodchain-score"):
                # the sheet names its catalog relative to itself
                (Path(folder) / "foodchain-catalog.example.json").write_text(
                    (EXAMPLES / "foodchain-catalog.example.json").read_text()
                )
            assert_one_line_or_fine(*run([*command, str(path)]))

    return check


JSON_READERS = {
    "chomp judge": (["chomp", "judge"], "chomp-round.json"),
    "chomp replay": (["chomp", "replay"], "chomp-game.json"),
    "getbit replay": (["getbit", "replay"], "getbit-rulebook.json"),
    "dino score": (["dino", "score"], "dino-land.json"),
    "dino game": (["dino", "game"], "dino-game.json"),
    "dino catalog": (["dino", "catalog", "check"], "dino-catalog.example.json"),
    "foodchain score": (["foodchain", "score"], "foodchain-score.json"),
    "foodchain catalog": (["foodchain", "catalog", "check"], "foodchain-catalog.example.json"),
    "tags check": (["tags", "check"], "chomp-tags.example.json"),
    "history import": (["history", "--db", ":memory:", "import"], "getbit-two-players.json"),
}


@pytest.mark.parametrize("reader", sorted(JSON_READERS))
@FUZZ
@given(replacement=JSONISH, seed=st.integers(0, 2**16))
def test_fuzz_json_inputs_are_read_or_refused_in_one_line(
    reader: str, replacement: Any, seed: int
) -> None:
    command, example = JSON_READERS[reader]
    json_reader_case(command, example)(replacement, seed)


@FUZZ
@given(text=st.text(max_size=200) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_fuzz_raw_text_to_a_json_command_is_one_line(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "input.json"
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        assert_one_line_or_fine(*run(["chomp", "judge", str(path)]))
        assert_one_line_or_fine(*run(["chomp", "judge", "-"], stdin=text))


GRID = (EXAMPLES / "dino-worked-example.txt").read_text(encoding="utf-8")


@FUZZ
@given(
    cuts=st.lists(st.tuples(st.integers(0, 4000), st.text(max_size=6)), max_size=6),
)
def test_fuzz_the_text_grid_is_read_or_refused_in_one_line(cuts: list[tuple[int, str]]) -> None:
    text = GRID
    for at, piece in cuts:
        at %= len(text) + 1
        text = text[:at] + piece + text[at + 1 :]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "land.txt"
        path.write_text(text, encoding="utf-8")
        assert_one_line_or_fine(*run(["dino", "score", str(path)]))


# -- TOML configs --------------------------------------------------------------------------

TOML_VALUES = st.one_of(
    st.sampled_from(
        [
            "nan",
            "inf",
            "-inf",
            "1e308",
            "99999999999999999999",
            "-1",
            "0",
            "true",
            '"x"',
            "[]",
            "{}",
            '"\\u0000"',
            "1.5",
            '"a\\nb"',
            "[" * 50 + "]" * 50,
        ]
    ),  # fmt: skip
    st.integers(-(10**20), 10**20).map(str),
)
CONFIGS = {
    "chomp": ("companion.tables.chomp.config", "load_config", "table config"),
    "getbit": ("companion.tables.getbit.config", "load_table_config", "getbit-table.example.toml"),
    "chips": ("companion.tables.chips.config", "load_config", "chips-table.toml"),
}
CHOMP_TOML = (
    "[referee]\nsettle_ms = 5\nlockout_ms = 150\nstuck_ms = 2000\nround_timeout_s = 10\n"
    'end_ms = 1500\ncountdown_beeps = 3\ncountdown_interval_ms = 600\ntie_window_us = 500\n'
    'journal = "game.jsonl"\n[buzzer]\npin = 18\n'
    + "".join(f'[[players]]\nname = "{p}"\nbutton = {b}\nled = {lamp}\n' for p, b, lamp in (
        ("ann", 17, 5), ("bob", 27, 6), ("cat", 22, 13)))
    + '[camera]\nsource = "usb:0"\ndeck = "stickers.json"\ndeadline_ms = 1500\n'
    + '[camera.zones]\nann = [[0.02, 0.3], [0.32, 0.3], [0.32, 0.98], [0.02, 0.98]]\n'
    + 'bob = [[0.35, 0.3], [0.65, 0.3], [0.65, 0.98], [0.35, 0.98]]\n'
)  # fmt: skip


@pytest.mark.parametrize("kind", sorted(CONFIGS))
@FUZZ
@given(value=TOML_VALUES, seed=st.integers(0, 2**16))
def test_fuzz_toml_configs_are_read_or_refused_as_a_config_error(
    kind: str, value: str, seed: int
) -> None:
    import importlib

    module, loader, example = CONFIGS[kind]
    text = CHOMP_TOML if kind == "chomp" else (EXAMPLES / example).read_text()
    lines = text.splitlines()
    rng = random.Random(seed)
    settable = [i for i, line in enumerate(lines) if " = " in line and not line.startswith("#")]
    i = rng.choice(settable)
    key = lines[i].split(" = ")[0]
    lines[i] = f"{key} = {value}"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "table.toml"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        try:
            getattr(importlib.import_module(module), loader)(path)
        except CompanionError as exc:
            assert "\n" not in str(exc)


# -- journal lines ---------------------------------------------------------------------------

JOURNAL = (EXAMPLES / "chomp-journal.jsonl").read_text().splitlines()


@FUZZ
@given(replacement=JSONISH, seed=st.integers(0, 2**16), raw=st.binary(max_size=40))
def test_fuzz_journal_entries_are_read_or_refused_naming_their_line(
    replacement: Any, seed: int, raw: bytes
) -> None:
    from companion.referee.audit import audit
    from companion.referee.journal import read_journal

    rng = random.Random(seed)
    lines = [line.encode() for line in JOURNAL]
    i = rng.randrange(len(lines))
    choice = rng.random()
    if choice < 0.5:
        lines[i] = dumps(mutate(json.loads(lines[i]), rng, replacement)).encode()
    elif choice < 0.7:
        lines[i] = raw
    elif choice < 0.85:
        lines.insert(i, lines[rng.randrange(len(lines))])  # repeated or out of order
    else:
        del lines[i]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.jsonl"
        path.write_bytes(b"\n".join(lines) + (b"\n" if rng.random() < 0.8 else b""))
        try:
            audit(read_journal(path).entries)
        except CompanionError as exc:
            assert "\n" not in str(exc)
        assert_one_line_or_fine(*run(["chomp", "audit", str(path)]))


# -- bridge frames ----------------------------------------------------------------------------


@FUZZ
@given(stream=st.binary(max_size=300), fields=st.lists(st.integers(0, 2**32 - 1), max_size=12))
def test_fuzz_bridge_frames_never_raise_past_the_session(stream: bytes, fields: list[int]) -> None:
    from firmware_bridge import codec
    from firmware_bridge.errors import BridgeError
    from firmware_bridge.session import BridgeSession

    session = BridgeSession({"ann": 0, "bob": 1}, lambda *a: 0, lambda edge: None)
    session.link_up(10**9)
    deframer = codec.Deframer()
    payloads = list(deframer.feed(stream))
    for mtype, (_name, fmt, has_tail) in codec.LAYOUTS.items():
        # every type the wire can carry, its fields filled with whatever came (a frame
        # whose CRC passed: the layout holds, the values are anyone's)
        width = [struct.calcsize(f"<{c}") for c in fmt.lstrip("<>!=@")]
        values = tuple(
            (fields[i] if i < len(fields) else i) % (1 << (8 * w)) for i, w in enumerate(width)
        )
        try:
            session.receive(mtype, 0, values, stream[:16] if has_tail else b"", 10**9)
        except BridgeError:
            pass
    for payload in payloads:
        try:
            mtype, seq, got, tail = codec.unpack(payload)
        except (BridgeError, ValueError):
            continue
        try:
            session.receive(mtype, seq, got, tail, 10**9)
        except BridgeError:
            pass


# -- the line modes ------------------------------------------------------------------------

LINE = st.text(max_size=40) | st.sampled_from(
    ["reveal", "cards", "cards ann=", "wait nan", "wait 1e308", "²", "undo x", "status",
     "draw", "discard 99999999999999999999", "help", "cards ann=seal ann=shark", "start"]
)  # fmt: skip


@FUZZ
@given(lines=st.lists(LINE, max_size=8))
def test_fuzz_the_chips_line_mode_survives_any_typed_line(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        save = str(Path(folder) / "c.json")
        argv = ["chips", "--players", "ann,bob,cat", "--top", "9", "--save", save]
        assert_one_line_or_fine(*run(argv, stdin="\n".join([*lines, "quit"]) + "\n"))


@FUZZ
@given(lines=st.lists(LINE, max_size=8))
def test_fuzz_the_getbit_line_mode_survives_any_typed_line(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        save = str(Path(folder) / "g.json")
        argv = ["getbit", "play", "--players", "john,anne,beth,ted", "--line",
                "ted,anne,beth,john", "--save", save]  # fmt: skip
        assert_one_line_or_fine(*run(argv, stdin="\n".join([*lines, "quit"]) + "\n"))


@FUZZ
@given(lines=st.lists(LINE, max_size=8))
def test_fuzz_the_referee_line_mode_survives_any_typed_line(lines: list[str]) -> None:
    """The referee's line commands, straight into its line mode (no thread, no sleep)."""
    from companion.games.chomp import ChompGame
    from companion.referee.clock import ManualClock
    from companion.referee.core import Referee, Timing
    from companion.referee.daemon import RefereeDaemon
    from companion.tables.chomp.screen import TableView, run_lines

    daemon = RefereeDaemon(Referee(ChompGame.new(["ann", "bob", "cat"]), Timing.from_ms(500), []),
                           ManualClock())  # fmt: skip
    safe = [line for line in lines if not line.lower().startswith("wait")]  # no sleeping
    run_lines(TableView(daemon), io.StringIO("\n".join(safe) + "\n"), io.StringIO())
    daemon.pump()
