"""Running the CHOMP! table as a program: its log file, and ending it when the journal fails.

Process-wide set-up (logging handlers, a signal), kept out of the session so that a program
embedding a table (docs/api.md) keeps its own.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.errors import InputError
from companion.files import check_target


class OneLine(logging.Formatter):
    """Log lines without tracebacks: those go to the log file, never over the screen."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{self.formatTime(record)} {record.getMessage()}"


def log_to(path: Path) -> Callable[[], None]:
    """Everything to the table's log file (a hook's traceback too); one line to stderr.

    Returns what takes those handlers off again, for when the table ends: a program (or a
    test) that runs a table and goes on must not keep logging into that table's file."""
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    logging.raiseExceptions = False  # a log on a full disk stays quiet: the table says why
    for old in [h for h in root.handlers if getattr(h, "companion_table", False)]:
        root.removeHandler(old)  # a second table in one process (tests) logs once
        old.close()
    handlers: list[logging.Handler] = []
    if not root.handlers:  # as logging.basicConfig: leave a caller's own set-up alone
        stderr = logging.StreamHandler()
        stderr.setFormatter(OneLine())
        handlers.append(stderr)
    try:
        check_target(path)  # never appended to a device, a pipe or through a link
        handler = logging.FileHandler(path, encoding="utf-8", delay=True)
    except (OSError, InputError):
        pass  # tracebacks then go wherever the caller's logging sends them
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        handlers.append(handler)
    for added in handlers:
        added.companion_table = True  # type: ignore[attr-defined]
        root.addHandler(added)

    def take_off() -> None:
        for added in handlers:
            root.removeHandler(added)
            added.close()

    return take_off


def stop_on_failure(daemon: Any) -> Callable[[], None]:
    """A failed journal write ends the table at once: the main thread (the screen or the
    line mode, maybe blocked reading a key) gets the error as it would a signal.

    Returns what puts the signal's earlier handler back, for when the table ends."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def raise_it(signum: int, frame: object) -> None:
        if daemon.failure is not None:
            raise daemon.failure

    before = signal.signal(signal.SIGUSR1, raise_it)
    daemon.on_failure = lambda exc: os.kill(os.getpid(), signal.SIGUSR1)

    def put_back() -> None:
        signal.signal(signal.SIGUSR1, before)

    return put_back
