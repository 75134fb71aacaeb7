"""``companion doctor``: check the Pi under a table, one line per check with its fix."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]


def register(commands: Subparsers) -> None:
    doctor = commands.add_parser(
        "doctor",
        help="check the Pi for a table: GPIO, scheduling, disk, clock, ports; exit 1 on a failure",
        description="One line per check with its fix: GPIO access, the pin driver and its "
        "timing class, real-time priority, the CPU governor and throttling, the journal "
        "folder's free space and fsync latency, clock sync, the web port, the Pico bridge's "
        "port, the sound output. Exit status 0 when none failed (warnings allowed), 1 when "
        "one did, 2 when the config cannot be read.",
    )
    doctor.add_argument(
        "--config", metavar="FILE", help="the table's config (table.toml), as referee reads it"
    )
    doctor.set_defaults(handler=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    from pathlib import Path

    from companion.devices.checks import Status
    from companion.tables.chomp.config import load_config
    from companion.tables.doctor import run_checks, summary

    config = load_config(args.config) if args.config is not None else None
    checks = run_checks(config, Path.cwd())
    for check in checks:
        print(check.render(), flush=True)
    print(summary(checks))
    return 1 if any(c.status is Status.FAIL for c in checks) else 0
