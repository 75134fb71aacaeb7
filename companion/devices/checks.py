"""``companion doctor``'s checks of the GPIO: who may open the pin chips, and which pin
driver answers (its clock is the referee's clock). Each check takes its inputs as
arguments, so a test makes it fail and pass without a Pi."""

from __future__ import annotations

import enum
import glob
import grp
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from companion.devices.pins import OpenedFactory, open_factory
from companion.errors import CompanionError
from companion.signals import TimingClass

UDEV_RULE = 'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"'
UDEV_FOLDERS = ("/etc/udev/rules.d", "/lib/udev/rules.d", "/usr/lib/udev/rules.d")


class Status(enum.Enum):
    OK = "ok"
    WARN = "warn"
    FAIL = "FAIL"
    SKIPPED = "skip"


@dataclass(frozen=True, slots=True)
class Check:
    """One check's outcome: a line saying what was found, and what to do about it."""

    status: Status
    line: str
    fix: str = ""

    def render(self) -> str:
        text = f"{self.status.value:<4}  {self.line}"
        return f"{text} -> fix: {self.fix}" if self.fix else text


def user_groups() -> set[str]:
    """The names of the groups this process has (a fresh login's groups, not /etc/group's)."""
    names = set()
    for gid in {*os.getgroups(), os.getegid()}:
        try:
            names.add(grp.getgrgid(gid).gr_name)
        except KeyError:
            names.add(str(gid))
    return names


def gpio_udev_rules(folders: Iterable[str] = UDEV_FOLDERS) -> list[Path]:
    """udev rule files that mention the GPIO chips (one gives them to the gpio group)."""
    found = []
    for folder in folders:
        for path in sorted(Path(folder).glob("*.rules")) if Path(folder).is_dir() else []:
            try:
                if "gpiochip" in path.read_text(errors="replace"):
                    found.append(path)
            except OSError:
                continue
    return found


def check_gpio_access(
    chips: list[Path] | None = None,
    may_open: Callable[[Path], bool] | None = None,
    groups: set[str] | None = None,
    rules: list[Path] | None = None,
) -> Check:
    """Whether this user may open every /dev/gpiochip* (lgpio needs read and write)."""
    chips = sorted(Path(p) for p in glob.glob("/dev/gpiochip*")) if chips is None else chips
    if not chips:
        return Check(Status.SKIPPED, "GPIO access: no /dev/gpiochip* (not a Pi): skipped")
    opener = may_open or (lambda path: os.access(path, os.R_OK | os.W_OK))
    closed = [str(chip) for chip in chips if not opener(chip)]
    if not closed:
        return Check(Status.OK, f"GPIO access: {len(chips)} chip(s) open to you ({chips[0]}...)")
    groups = user_groups() if groups is None else groups
    rules = gpio_udev_rules() if rules is None else rules
    if "gpio" not in groups:
        fix = "sudo usermod -aG gpio $USER, then log out and in (INSTALL.md, step 4)"
    elif not rules:
        fix = f"a udev rule in /etc/udev/rules.d/99-gpio.rules: {UDEV_RULE}, then reboot"
    else:
        fix = f"check the udev rule ({rules[0]}) gives the chips to the gpio group, then reboot"
    member = "in" if "gpio" in groups else "not in"
    return Check(
        Status.FAIL,
        f"GPIO access: {', '.join(closed)} not readable and writable ({member} gpio)",
        fix,
    )


def check_pin_driver(
    name: str = "auto", opener: Callable[[str], OpenedFactory] = open_factory
) -> Check:
    """The pin driver that answers, and whose clock its edge stamps are on."""
    try:
        opened = opener(name)
    except CompanionError as exc:
        problem, _, advice = str(exc).rpartition(": ")
        return Check(Status.FAIL, f"pin driver ({name}): {problem or advice}", advice)
    try:
        line = f"pin driver: {opened.detail}; timing {opened.timing}, ±{opened.uncertainty_us} us"
        if opened.timing is TimingClass.KERNEL_EDGE:
            return Check(Status.OK, line)
        if opened.timing is TimingClass.MOCK:
            return Check(
                Status.WARN,
                line + " (simulated: no real pin is read)",
                'pin_factory = "auto" on a Pi',
            )
        return Check(
            Status.WARN,
            line + " (stamped when Python runs, not at the edge)",
            "sudo apt install python3-lgpio, venv with --system-site-packages (INSTALL.md)",
        )
    finally:
        opened.close()
