"""``companion setup``: the set-up wizard and the bounce profile (docs/setup.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from companion.commands.options import add_web_option
from companion.devices.wiring import PIN_FACTORIES

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]


def register(commands: Subparsers) -> None:
    setup = commands.add_parser(
        "setup",
        help="find the buttons, LEDs and buzzer by pressing and lighting: write table.toml",
        description="Asks the seat names, then finds each button by its press (every free "
        "GPIO is watched with its pull-up on), lights the free pins one at a time to find "
        "the LEDs and the buzzer, writes a commented table.toml and reads it back with the "
        "referee's own reader. An existing file is never overwritten without a yes. A button "
        "on NC, a floating input, a short, a pin an enabled interface or another seat holds: "
        "one line each. --bounce profiles the buttons (20 presses each) and recommends "
        "settle_ms and lockout_ms. --web asks the same questions on a phone's page.",
    )
    setup.add_argument(
        "--out",
        default="table.toml",
        metavar="FILE",
        help="the config to write, or with --bounce to read and update (table.toml)",
    )
    setup.add_argument(
        "--bounce",
        action="store_true",
        help="only the bounce profile of the buttons in --out's config",
    )
    setup.add_argument(
        "--pin-factory",
        default="auto",
        choices=[f for f in PIN_FACTORIES if f != "pigpio"],
        help="the GPIO library (auto); mock: a simulated table whose buttons Enter presses",
    )
    setup.add_argument(
        "--simulate",
        default="",
        metavar="FAULTS",
        help="with --pin-factory mock: faults of the simulated table, e.g. "
        "nc:27,floating:4,short:22+23,bounce:3,worn:400",
    )
    add_web_option(setup)
    setup.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from companion.tables.setup.app import SetupOptions, hold_the_pins, run_setup
    from companion.tables.setup.console import Console

    options = SetupOptions(
        out=Path(args.out),
        pin_factory=args.pin_factory,
        bounce_only=args.bounce,
        simulate=args.simulate,
    )
    if args.web is not None:  # the questions on a phone: this process serves the page
        from companion.tables.setup.web import serve_setup
        from companion.tables.web import check_web

        check_web(args.web)
        return serve_setup(options, args.web, args.new_code)

    def say(line: str) -> None:
        print(line, flush=True)

    def ask(prompt: str) -> str:
        if sys.stdin.isatty():
            return input(prompt)
        # line mode (a pipe, a script, the docs' examples): the prompt on its line, then
        # the answer echoed as "> answer", as every table's line mode shows it
        print(prompt.rstrip(), flush=True)
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        print(f"> {line.strip()}".rstrip(), flush=True)
        return line.removesuffix("\n").removesuffix("\r")

    held = hold_the_pins()
    try:
        return run_setup(options, Console(ask, say))
    finally:
        held.release()
