"""Fixtures shared by the suite: the mock pin factory, polling, a table config, the CLI."""

from __future__ import annotations

import io
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple, Protocol

import pytest
from gpiozero import Device
from hypothesis import settings

from companion.cli import main
from companion.devices.pins import OpenedFactory, open_factory
from companion.games.chomp import Mode, TwoPlayerEnd
from companion.tables.chomp.config import ChompConfig
from companion.tables.chomp.demo import demo_config
from companion.tables.chomp.session import ChompSession, open_chomp_session

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ("ann", "bob", "cat")

# Under qemu's arm64 emulation (.ci/arm64 sets COMPANION_EMULATED=1) Python runs 15 to 35
# times slower: each property is tried on a fifth of its examples there (at least two), a
# test without its own count on 20 instead of Hypothesis's 100, and no example is timed
# (Hypothesis's deadline measures the emulator). The native run keeps every count; the
# arm64 run is there for what differs on a Pi (its wheels, its draws), not for more draws.
EMULATED = os.environ.get("COMPANION_EMULATED") == "1"
EMULATED_SHARE = 5
settings.register_profile("emulated", max_examples=20, deadline=None)
if EMULATED:
    settings.load_profile("emulated")


def examples(count: int) -> int:
    """A property's ``max_examples``: ``count`` natively, a fifth (at least 2) emulated."""
    return min(count, max(2, count // EMULATED_SHARE)) if EMULATED else count


WaitFor = Callable[..., bool]
Opener = Callable[..., ChompSession]


class CliResult(NamedTuple):
    status: int
    out: str
    err: str


class RunCli(Protocol):
    def __call__(self, *argv: str, stdin: str = "") -> CliResult: ...


def poll(condition: Callable[[], bool], timeout: float = 5.0, every: float = 0.005) -> bool:
    """True as soon as ``condition()`` holds; an AssertionError when ``timeout`` passes.

    What threads (pin drivers, readers, the referee's loop) do is awaited, never slept on
    blindly: the timeout is generous, so only a hang fails.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"still not true after {timeout} s"
        time.sleep(every)
    return True


@pytest.fixture(autouse=True)
def private_history(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Commands record finished games in the history database: in the tests, a fresh one
    per test (subprocesses inherit it), never the user's own."""
    path = tmp_path_factory.mktemp("history") / "history.sqlite3"
    monkeypatch.setenv("COMPANION_HISTORY_DB", str(path))
    return path


@pytest.fixture(autouse=True)
def private_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A page's join code is kept in the user's state folder (``companion web``, the
    demo): in the tests, a folder of the test's own (subprocesses inherit it)."""
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    return folder


@pytest.fixture(autouse=True)
def private_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary files the code makes for itself (a demo's journal, a bench's folder,
    a browser's profile) go into a folder of the test's own, in this process and in every
    subprocess it starts (TMPDIR): no test leaves anything in /tmp itself."""
    folder = tmp_path_factory.mktemp("tmp")
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture(autouse=True)
def no_table_log_after_the_test() -> Iterator[None]:
    """A table run in-process (``run_referee``'s log_to) adds its log file to the root
    logger: it is taken off after the test, so no later test logs into another test's
    folder. (A journal on /dev/full once left /dev/full.log as the log of every test after
    it, and as a user each of them failed on it.)"""
    yield
    root = logging.getLogger()
    for handler in [h for h in root.handlers if getattr(h, "companion_table", False)]:
        root.removeHandler(handler)
        handler.close()


@pytest.fixture
def wait_for() -> WaitFor:
    """:func:`poll`: ``wait_for(lambda: ..., timeout=5.0)``."""
    return poll


@pytest.fixture
def repo_root(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, as the README's commands do."""
    monkeypatch.chdir(ROOT)
    return ROOT


@pytest.fixture
def opened() -> Iterator[OpenedFactory]:
    """A fresh MockFactory for each test, also as Device.pin_factory, reset afterwards."""
    before = Device.pin_factory
    opened = open_factory("mock")
    Device.pin_factory = opened.factory
    try:
        yield opened
    finally:
        opened.close()
        opened.factory.reset()
        Device.pin_factory = before


@pytest.fixture
def table_config(tmp_path: Path) -> ChompConfig:
    """The base CHOMP! table: ann, bob, cat on the demo's wiring (buttons 17/27/22, LEDs
    5/6/13, buzzer 18, status LED 20), mock pins, fast timings, a journal in tmp_path."""
    return demo_config(
        PLAYERS, Mode.STANDARD, TwoPlayerEnd.COUNT, tmp_path / "game.jsonl", fast=True
    )


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> RunCli:
    """Run ``companion ARGV`` in-process with ``stdin`` as standard input (not a terminal,
    so the table apps use their line mode); returns (status, out, err)."""

    def run(*argv: str, stdin: str = "") -> CliResult:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        status = main(list(argv))
        out, err = capsys.readouterr()
        return CliResult(status, out, err)

    return run


@pytest.fixture
def opener() -> Iterator[Opener]:
    """open_chomp_session on mock pins; every session it opened is closed after the test."""
    opened: list[ChompSession] = []

    def open_(config: ChompConfig, **kwargs: object) -> ChompSession:
        session = open_chomp_session(config, pin_factory="mock", **kwargs)  # type: ignore[arg-type]
        opened.append(session)
        return session

    yield open_
    for session in opened:
        session.close()
