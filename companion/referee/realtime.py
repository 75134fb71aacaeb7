"""What the referee's loop asks of the system so a verdict leaves on time: real-time
scheduling where it is permitted, and no garbage collection inside a round; and where a
hook's bug goes (the log file, with its traceback) instead of the loop thread's death.
"""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import Iterable, Mapping
from typing import Any

log = logging.getLogger("companion.referee")

FIFO_PRIORITY = 10  # above every normal process, below the kernel's own threads (50)
NOT_PERMITTED = (
    "normal scheduling (real-time not permitted; hardware/companion-referee.service grants it)"
)


def ask_for_realtime(priority: int = FIFO_PRIORITY) -> str:
    """Ask for SCHED_FIFO for the calling thread; what it got, in words, for the start-up
    lines. ``COMPANION_REALTIME=0`` in the environment leaves the scheduling alone."""
    if os.environ.get("COMPANION_REALTIME", "1") == "0":
        return "normal scheduling (COMPANION_REALTIME=0)"
    policy = getattr(os, "SCHED_FIFO", None)
    if policy is None:
        return "normal scheduling (no real-time scheduling on this system)"
    try:
        priority = min(priority, os.sched_get_priority_max(policy))
        os.sched_setscheduler(0, policy, os.sched_param(priority))
    except OSError:
        return NOT_PERMITTED
    return f"real-time scheduling: SCHED_FIFO priority {priority}"


class GcPause:
    """No garbage collection while a round is open (a collection stalls a decision by
    milliseconds): off when a round opens, back as it was (collecting then) when it is
    decided or abandoned, or when the loop is closed.

    The collector is the whole process's, so only a program that owns its process uses
    this (``companion referee`` and its benchmark opt in with ``RefereeDaemon.pause_gc``);
    a caller's own setting is what is put back, never simply "on".
    """

    def __init__(self) -> None:
        self.holding = False
        self.was_enabled = True

    def follow(self, step: Any) -> None:
        """Pause or resume from what the step journalled."""
        kinds = {entry["type"] for entry in _entries(step)}
        if kinds & {"verdict", "abandon"}:
            self.release()
        elif kinds & {"round", "reveal"}:
            self.hold()

    def hold(self) -> None:
        if not self.holding:
            self.was_enabled = gc.isenabled()
            gc.disable()
            self.holding = True

    def release(self) -> None:
        if self.holding:
            self.holding = False
            if self.was_enabled:
                gc.enable()


def _entries(step: Any) -> Iterable[Mapping[str, Any]]:
    return getattr(step, "journal", ())


def report_hook_error(name: str, exc: BaseException) -> None:
    """A hook's exception, with its traceback, to the log (the log file at a table)."""
    log.error("%s raised; the referee goes on", name, exc_info=exc)
