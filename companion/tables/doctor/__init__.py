"""``companion doctor``: what a table needs from the Pi under it, one line per check with
its fix. The GPIO's own checks live in :mod:`companion.devices.checks`; the system's are
here (scheduling, CPU, the journal's disk, the clock, the web port, the bridge's port, the
sound). Every check takes its inputs as arguments, so a test makes each fail and pass."""

from __future__ import annotations

import os
import re
import resource
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from companion.devices.checks import Check, Status, check_gpio_access, check_pin_driver
from companion.errors import CompanionError
from companion.referee.realtime import FIFO_PRIORITY
from companion.tables.chomp.config import ChompConfig
from companion.tables.web import DEFAULT_PORT, parse_listen

# The journal is fsync'd at every verdict, after its LED and before the screen and the
# phones hear of it, on the referee's loop: the next press or reveal waits behind it.
FSYNC_WARN_MS = 20.0
FSYNC_TRIES = 5
FREE_FAIL_MB = 20  # a few thousand games' journals; below it the table may stop mid-game
FREE_WARN_MB = 200
GOVERNOR = Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
# vcgencmd get_throttled's bits, as Raspberry Pi documents them (now / since boot).
THROTTLE_BITS = {
    0: "under-voltage now",
    1: "ARM frequency capped now",
    2: "throttled now",
    3: "soft temperature limit now",
    16: "under-voltage since boot",
    17: "frequency capped since boot",
    18: "throttled since boot",
    19: "soft temperature limit since boot",
}
Runner = Callable[[list[str]], str | None]


def shown(text: str, limit: int = 60) -> str:
    """Text read from the system (a file, a tool's output) as it may go on one line: as it
    is when printable, else quoted with its escapes; cut to ``limit``."""
    text = text if text.isprintable() else repr(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def run_tool(argv: list[str]) -> str | None:
    """A system tool's output, or None when it is not there or fails (not a Pi)."""
    if shutil.which(argv[0]) is None:
        return None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def check_realtime(limit: int | None = None, root: bool | None = None) -> Check:
    """Whether the referee's loop may take SCHED_FIFO (RLIMIT_RTPRIO, the unit's LimitRTPRIO)."""
    limit = resource.getrlimit(resource.RLIMIT_RTPRIO)[0] if limit is None else limit
    root = os.geteuid() == 0 if root is None else root
    if root or limit == resource.RLIM_INFINITY or limit >= FIFO_PRIORITY:
        return Check(Status.OK, f"real-time priority: SCHED_FIFO {FIFO_PRIORITY} permitted")
    return Check(
        Status.WARN,
        f"real-time priority: not permitted (RLIMIT_RTPRIO {limit}): verdicts wait for "
        "other programs",
        "the service grants it (LimitRTPRIO=10); by hand: "
        "echo '@gpio - rtprio 10' | sudo tee /etc/security/limits.d/companion.conf, log in again",
    )


def check_governor(path: Path = GOVERNOR) -> Check:
    """The CPU governor: ``performance`` keeps the clock up when a press comes."""
    try:
        governor = path.read_text(errors="replace").strip()
    except OSError:
        return Check(Status.SKIPPED, "CPU governor: not reported (no cpufreq): skipped")
    if governor == "performance":
        return Check(Status.OK, "CPU governor: performance")
    return Check(
        Status.WARN,
        f"CPU governor: {shown(governor)} (the clock drops when idle: a verdict after a quiet "
        "spell is slower)",
        "echo performance | sudo tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor",
    )


def check_throttling(runner: Runner = run_tool) -> Check:
    """Under-voltage and throttling, as the Pi's firmware reports them."""
    out = runner(["vcgencmd", "get_throttled"])
    if out is None:
        return Check(Status.SKIPPED, "power and throttling: no vcgencmd (not a Pi): skipped")
    value = re.fullmatch(r"throttled=0x([0-9a-fA-F]{1,8})", out.strip())
    if value is None:  # int(x, 16) would also take "٣" or "1_0": only what vcgencmd writes
        return Check(Status.SKIPPED, f"power and throttling: unreadable {shown(out)}: skipped")
    bits = int(value.group(1), 16)
    found = [text for bit, text in THROTTLE_BITS.items() if bits >> bit & 1]
    if not found:
        return Check(Status.OK, "power and throttling: none (get_throttled=0x0)")
    voltage = bits & 0x10001
    return Check(
        Status.FAIL if voltage else Status.WARN,
        f"power and throttling: {', '.join(found)} ({shown(out)})",
        "the official 5 V power supply (5 A for a Pi 5), a short thick cable"
        if voltage
        else "a heatsink or fan; keep the Pi out of its case's heat",
    )


def check_journal_disk(
    folder: Path,
    usage: Callable[[Path], int] = lambda p: shutil.disk_usage(p).free,
    clock: Callable[[], float] = time.perf_counter,
    fsync: Callable[[int], None] = os.fsync,
) -> Check:
    """The journal folder's free space and fsync latency (a small file, written and fsync'd
    ``FSYNC_TRIES`` times, then removed): an SD card slow to fsync delays every verdict's
    screen line and holds the referee's loop."""
    if not folder.is_dir():
        return Check(Status.FAIL, f"journal folder {folder}: not there", f"mkdir -p {folder}")
    try:
        free_mb = usage(folder) // 1_000_000
        worst = _fsync_worst_ms(folder, clock, fsync)
    except OSError as exc:
        return Check(
            Status.FAIL,
            f"journal folder {folder}: cannot write ({exc.strerror or exc})",
            "run in a folder you own (the service's WorkingDirectory)",
        )
    line = (
        f"journal folder {folder}: {free_mb} MB free, "
        f"fsync {worst:.1f} ms at worst of {FSYNC_TRIES}"
    )
    if free_mb < FREE_FAIL_MB:
        return Check(Status.FAIL, line, "free some space (the table stops on a full disk)")
    if worst > FSYNC_WARN_MS:
        return Check(
            Status.WARN,
            f"{line} (over {FSYNC_WARN_MS:g} ms: the screen and the phones show each verdict "
            "that much later)",
            "a faster SD card (A1/A2 class) or an SSD for the journal's folder",
        )
    if free_mb < FREE_WARN_MB:
        return Check(Status.WARN, line, "free some space: under 200 MB left")
    return Check(Status.OK, line)


def _fsync_worst_ms(
    folder: Path, clock: Callable[[], float], fsync: Callable[[int], None]
) -> float:
    handle, name = tempfile.mkstemp(prefix=".companion-doctor-", dir=folder)
    worst = 0.0
    try:
        for _ in range(FSYNC_TRIES):
            os.write(handle, b'{"doctor": "a line as long as a journal entry"}\n')
            start = clock()
            fsync(handle)
            worst = max(worst, (clock() - start) * 1000)
    finally:
        os.close(handle)
        os.unlink(name)
    return worst


def check_clock_sync(runner: Runner = run_tool) -> Check:
    """Whether the system clock is synchronised: the history dates games by it (a Pi has no
    battery clock, so before sync it may believe it is last week)."""
    out = runner(["timedatectl", "show", "-p", "NTPSynchronized", "--value"])
    if out is None:
        return Check(Status.SKIPPED, "clock sync: unknown (no timedatectl): skipped")
    if out.strip() == "yes":
        return Check(Status.OK, "clock sync: synchronised (history dates are right)")
    return Check(
        Status.WARN,
        "clock sync: not synchronised (the history would date games wrong)",
        "a network connection, and sudo timedatectl set-ntp true",
    )


def check_web_port(listen: str | None) -> Check:
    """The page's port is free: bound and closed again at once."""
    host, port = parse_listen(listen or str(DEFAULT_PORT), "[web] listen")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((host, port))
    except OSError as exc:
        return Check(
            Status.FAIL,
            f"web port {host}:{port}: cannot listen ({exc.strerror or exc})",
            f"stop what holds it (sudo ss -ltnp 'sport = :{port}') or set [web] listen",
        )
    return Check(Status.OK, f"web port {host}:{port}: free")


def check_bridge_port(
    config: ChompConfig | None, finder: Callable[[str], str] | None = None
) -> Check:
    """The Pico bridge's serial port, when the config has a [bridge]."""
    if config is None or config.bridge is None:
        return Check(Status.SKIPPED, "Pico bridge: no [bridge] in the config: skipped")
    from firmware_bridge.transport import find_port

    try:
        port = (finder or find_port)(config.bridge.port)
    except (CompanionError, OSError, RuntimeError) as exc:
        return Check(
            Status.FAIL,
            f"Pico bridge: {exc}",
            "plug the Pico in; the udev rule (INSTALL.md, step 9)",
        )
    if "://" in port:
        return Check(Status.SKIPPED, f"Pico bridge: {port} is a URL: checked when the table opens")
    if not os.path.exists(port):
        return Check(Status.FAIL, f"Pico bridge: {port} not there", "plug the Pico in")
    if not os.access(port, os.R_OK | os.W_OK):
        return Check(
            Status.FAIL,
            f"Pico bridge: {port} not open to you",
            "sudo usermod -aG dialout $USER, then log out and in",
        )
    return Check(Status.OK, f"Pico bridge: {port}")


def check_camera(config: ChompConfig | None) -> Check:
    """The camera, when a table's config names one (none does yet: photos are files)."""
    camera = getattr(config, "camera", None)
    if camera is None:
        return Check(Status.SKIPPED, "camera: none in the config: skipped")
    return Check(Status.SKIPPED, f"camera: {camera}: not checked yet")


def check_sound(config: ChompConfig | None, cards: Path = Path("/proc/asound/cards")) -> Check:
    """A sound output, when the config turns the voice on."""
    voice = getattr(config, "voice", None)
    if voice is None or not getattr(voice, "enabled", True):
        return Check(Status.SKIPPED, "sound output: voice is off in the config: skipped")
    try:
        listing = cards.read_text(errors="replace")
    except OSError:
        listing = ""
    if "no soundcards" in listing or not listing.strip():
        return Check(
            Status.FAIL,
            "sound output: no sound card",
            "dtparam=audio=on in /boot/firmware/config.txt, or a USB speaker",
        )
    return Check(Status.OK, f"sound output: {shown(listing.strip().splitlines()[0])}")


def run_checks(config: ChompConfig | None, folder: Path) -> list[Check]:
    """Every check, in the order a maker fixes things: access, driver, system, files, ports."""
    journal = config.journal.parent if config is not None else folder
    return [
        check_gpio_access(),
        check_pin_driver(config.pin_factory if config is not None else "auto"),
        check_realtime(),
        check_governor(),
        check_throttling(),
        check_journal_disk(journal),
        check_clock_sync(),
        check_web_port(config.settings.web_listen if config is not None else None),
        check_bridge_port(config),
        check_camera(config),
        check_sound(config),
    ]


def summary(checks: list[Check]) -> str:
    counts = {status: sum(c.status is status for c in checks) for status in Status}
    return (
        f"doctor: {counts[Status.OK]} ok, {counts[Status.WARN]} warning(s), "
        f"{counts[Status.FAIL]} failed, {counts[Status.SKIPPED]} skipped"
    )
