"""The set-up wizard's whole run: open the pins, find the wiring, write ``table.toml``.

:func:`setup_table` is the flow on an opened factory with an injected console and
hands (the tests' entry); :func:`run_setup` opens what the command line asks for,
including ``--pin-factory mock`` with a simulated maker, and runs it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from companion import text as gate
from companion.devices.pins import OpenedFactory, open_factory
from companion.devices.probe import (
    BOOT_CONFIGS,
    FREE_CANDIDATES,
    PinWatch,
    Reservations,
    SimulatedTable,
    read_reservations,
)
from companion.errors import BusyError, InputError, WriteError
from companion.files import LockedFile, holder_of, lock_exclusive, write_atomic
from companion.tables.chomp.config import load_config
from companion.tables.setup.bounce import PRESSES_ASKED
from companion.tables.setup.console import Console, Hands, MockHands, RealHands
from companion.tables.setup.render import FoundWiring, render, with_timing
from companion.tables.setup.wizard import (
    Timing,
    Wizard,
    bounce_profile,
    check_out,
    may_write,
    write_config,
)
from companion.tables.web import state_folder

MOCK_TIMING = Timing(rest_s=0.05, press_timeout_s=1.0, quiet_s=0.05, tries=3)
LOCK_NAME = "setup.lock"  # in the state folder: held while a wizard has the pins


@dataclass(frozen=True)
class SetupOptions:
    out: Path = Path("table.toml")
    pin_factory: str = "auto"
    bounce_only: bool = False  # --bounce: profile the buttons of an existing config
    simulate: str = ""  # mock pins only: faults of the simulated table (docs/setup.md)
    boot_configs: Sequence[Path] = field(default=BOOT_CONFIGS)


def setup_table(wizard: Wizard, out: Path, stamp: Callable[[float], int] | None = None) -> int:
    """The whole wizard: 0 when a config was written, 1 when the maker kept the old one."""
    console = wizard.console
    if not may_write(console, out):
        return 1
    console.say(wizard.reservations.line())
    found = FoundWiring(wizard.ask_seats())
    watch = PinWatch(wizard.opened, FREE_CANDIDATES, stamp)
    try:
        wizard.rest_check(watch)
        for seat in found.seats:
            found.buttons[seat] = wizard.find_button(watch, f"{seat}'s button", found)
        if console.yes("a reveal button (pressed to reveal the cards)?", False):
            found.reveal_button = wizard.find_button(watch, "the reveal button", found)
        wizard.find_outputs(watch, found)
        wizard.buzzer_kind(found)
        text = render(found, pin_factory=wizard.opened.name)
        write_config(console, out, text)
        if console.yes(f"bounce profile now ({PRESSES_ASKED} presses per button)?", False):
            buttons = {f"{s}'s button": p for s, p in found.buttons.items()}
            if found.reveal_button is not None:
                buttons["the reveal button"] = found.reveal_button
            _profile_and_write(wizard, watch, buttons, out)
    finally:
        watch.close()
    console.say(f"next: companion referee --config {out}")
    return 0


def _profile_and_write(wizard: Wizard, watch: PinWatch, buttons: dict[str, int], out: Path) -> None:
    """Profile ``buttons``; with a yes, write the advice into ``out`` and read it back."""
    _, advice = bounce_profile(wizard, watch, buttons)
    ask = f"write settle_ms = {advice.settle_ms:g}, lockout_ms = {advice.lockout_ms:g} into {out}?"
    if not wizard.console.yes(ask, True):
        wizard.console.say(f"{out} left as it was")
        return
    text = with_timing(out.read_text(encoding="utf-8"), advice)
    write_atomic(out, text, safe=f"{out} is unchanged")
    config = load_config(out)
    wizard.console.say(
        f"{out} read back by the referee's reader: settle_ms {config.settle_ms:g}, "
        f"lockout_ms {config.lockout_ms:g}"
    )


def bounce_only(wizard: Wizard, config_path: Path, stamp: Callable[[float], int] | None) -> int:
    """``companion setup --bounce``: the buttons of an existing config, profiled."""
    config = load_config(config_path)
    buttons = {f"{p.name}'s button": p.button for p in config.players if p.button is not None}
    if config.reveal_button is not None:
        buttons["the reveal button"] = config.reveal_button
    watch = PinWatch(wizard.opened, sorted(set(buttons.values())), stamp)
    try:
        for pin, why in sorted(watch.unopened.items()):
            wizard.console.say(f"GPIO{pin} not watched: {why}")
        _profile_and_write(wizard, watch, buttons, config_path)
    finally:
        watch.close()
    return 0


def simulated_table(opened: OpenedFactory, spec: str) -> SimulatedTable:
    """The simulated maker's table from ``--simulate`` (e.g. ``nc:27,short:22+23,bounce:3``)."""
    table = SimulatedTable(opened)
    for item in filter(None, (w.strip() for w in spec.split(","))):
        kind, _, value = item.partition(":")
        where = f"--simulate {gate.shown(item)}"
        numbers = [gate.whole_number(v, where, low=0, high=100_000) for v in value.split("+")]
        if kind == "nc" and len(numbers) == 1:
            table.nc.add(numbers[0])
        elif kind == "floating" and len(numbers) == 1:
            table.floating.add(numbers[0])
        elif kind == "short" and len(numbers) == 2:
            table.shorts[numbers[0]] = numbers[1]
        elif kind == "bounce" and len(numbers) == 1:
            table.bounce = numbers[0]
        elif kind == "worn" and len(numbers) == 1:
            table.bounce, table.wear_us = max(table.bounce, 2), numbers[0]
        else:
            raise InputError(
                where, "one of nc:PIN, floating:PIN, short:PIN+PIN, bounce:EDGES, worn:US"
            )
    return table


def check_options(options: SetupOptions) -> None:
    """What can be refused before a pin is opened or a page served: one line each."""
    if options.simulate and options.pin_factory != "mock":
        raise InputError("--simulate", "only with --pin-factory mock (it drives mock pins)")
    if options.bounce_only:
        load_config(options.out)
    else:
        check_out(options.out)


def hold_the_pins(lock: Path | None = None) -> LockedFile:
    """Never two wizards on one set of pins: a running ``companion setup`` (at a terminal
    or ``--web``) holds ``setup.lock`` in the state folder; a second is one line naming
    the first. (On a Pi the GPIO library would refuse the pins too, but pin by pin.)"""
    path = state_folder() / LOCK_NAME if lock is None else lock
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise WriteError(f"{path.parent}: cannot make the state folder ({exc.strerror})") from None
    try:
        return lock_exclusive(path, "set-up lock")
    except BusyError:
        raise BusyError(
            f"setup is in progress on another phone/terminal ({holder_of(path)}): one "
            "wizard per set of pins; finish or stop that one first (Ctrl-C there, or Done "
            "on its page)"
        ) from None


def run_setup(options: SetupOptions, console: Console, timing: Timing | None = None) -> int:
    """Open the pins the options name and run the wizard (or the bounce profile alone).
    The caller holds the pins (:func:`hold_the_pins`)."""
    check_options(options)
    opened = open_factory(options.pin_factory)
    try:
        hands: Hands = RealHands()
        stamp = None
        reservations = read_reservations(options.boot_configs)
        if opened.name == "mock":  # a simulated table: this machine's boot config is not its
            reservations = read_reservations(())
            table = simulated_table(opened, options.simulate)
            hands, stamp = MockHands(table, console), table.stamp
            console.say("mock pins: a simulated table wired as hardware/pinmap.example.toml")
        if timing is None:  # the simulated table acts at once: no need to wait for a person
            timing = MOCK_TIMING if opened.name == "mock" else Timing()
        wizard = Wizard(opened, console, hands, reservations, timing)
        if options.bounce_only:
            return bounce_only(wizard, options.out, stamp)
        return setup_table(wizard, options.out, stamp)
    finally:
        opened.close()


__all__ = [
    "Reservations",
    "SetupOptions",
    "check_options",
    "hold_the_pins",
    "run_setup",
    "setup_table",
]
