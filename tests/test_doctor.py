"""``companion doctor``: each check made to fail and to pass through its injected inputs
(no Pi, no root needed), the command's lines and exit status, and the unit that runs it."""

from __future__ import annotations

import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from conftest import ROOT, RunCli, examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.devices.checks import Check, Status, check_gpio_access, check_pin_driver
from companion.devices.pins import OpenedFactory, open_factory
from companion.errors import HardwareError
from companion.signals import TimingClass
from companion.tables.chomp.config import ChompConfig, config_from_dict
from companion.tables.doctor import (
    FSYNC_WARN_MS,
    check_bridge_port,
    check_camera,
    check_clock_sync,
    check_governor,
    check_journal_disk,
    check_realtime,
    check_sound,
    check_throttling,
    check_web_port,
    summary,
)

CHIPS = [Path("/dev/gpiochip0"), Path("/dev/gpiochip4")]


def test_gpio_access_skipped_off_a_pi_and_ok_when_every_chip_opens() -> None:
    assert check_gpio_access(chips=[]).status is Status.SKIPPED
    assert "not a Pi" in check_gpio_access(chips=[]).line
    ok = check_gpio_access(chips=CHIPS, may_open=lambda path: True)
    assert ok.status is Status.OK and not ok.fix


def test_gpio_access_fails_outside_the_gpio_group_with_usermod_as_the_fix() -> None:
    check = check_gpio_access(CHIPS, lambda path: path.name == "gpiochip0", {"pi"}, [])
    assert check.status is Status.FAIL
    assert "/dev/gpiochip4" in check.line and "/dev/gpiochip0" not in check.line
    assert "usermod -aG gpio" in check.fix


def test_gpio_access_in_the_group_without_a_udev_rule_names_the_rule() -> None:
    check = check_gpio_access(CHIPS, lambda path: False, {"pi", "gpio"}, [])
    assert check.status is Status.FAIL and 'KERNEL=="gpiochip*"' in check.fix
    ruled = check_gpio_access(CHIPS, lambda path: False, {"gpio"}, [Path("/x/60-gpio.rules")])
    assert "/x/60-gpio.rules" in ruled.fix


def _factory(timing: TimingClass, name: str) -> OpenedFactory:
    class Closing:
        closed = False

        def close(self) -> None:
            Closing.closed = True

    return OpenedFactory(Closing(), name, timing, 20, f"{name} detail")


def test_pin_driver_kernel_edge_passes_callback_and_mock_warn_none_fails() -> None:
    kernel = _factory(TimingClass.KERNEL_EDGE, "lgpio")
    ok = check_pin_driver("auto", lambda name: kernel)
    assert ok.status is Status.OK and "kernel_edge" in ok.line
    assert kernel.factory.closed  # the chip is given back for the referee
    late = check_pin_driver("rpigpio", lambda name: _factory(TimingClass.CALLBACK, "rpigpio"))
    assert late.status is Status.WARN and "python3-lgpio" in late.fix
    mock = check_pin_driver("mock", open_factory)
    assert mock.status is Status.WARN and "simulated" in mock.line

    def none(name: str) -> OpenedFactory:
        raise HardwareError("no GPIO found (tried lgpio: no module): on a Pi, apt install it")

    failed = check_pin_driver("auto", none)
    assert failed.status is Status.FAIL
    assert "no GPIO found" in failed.line and failed.fix == "on a Pi, apt install it"


def test_realtime_not_permitted_warns_with_the_units_limit_as_the_fix() -> None:
    denied = check_realtime(limit=0, root=False)
    assert denied.status is Status.WARN and "LimitRTPRIO" in denied.fix
    assert check_realtime(limit=10, root=False).status is Status.OK
    assert check_realtime(limit=5, root=False).status is Status.WARN  # below priority 10


def test_governor_performance_passes_ondemand_warns_absent_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "scaling_governor"
    assert check_governor(path).status is Status.SKIPPED
    path.write_text("ondemand\n")
    slow = check_governor(path)
    assert slow.status is Status.WARN and "ondemand" in slow.line and "performance" in slow.fix
    path.write_text("performance\n")
    assert check_governor(path).status is Status.OK


def test_throttling_under_voltage_fails_heat_warns_none_passes() -> None:
    assert check_throttling(lambda argv: None).status is Status.SKIPPED
    assert check_throttling(lambda argv: "throttled=0x0").status is Status.OK
    volts = check_throttling(lambda argv: "throttled=0x50005")
    assert volts.status is Status.FAIL and "under-voltage now" in volts.line
    assert "power supply" in volts.fix
    heat = check_throttling(lambda argv: "throttled=0x80000")
    assert heat.status is Status.WARN and "soft temperature limit since boot" in heat.line


class SlowClock:
    """A clock that moves ``step`` seconds each time it is read: fsync looks that slow."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_journal_disk_slow_fsync_warns_over_the_stated_threshold(tmp_path: Path) -> None:
    slow = check_journal_disk(tmp_path, usage=lambda p: 10**10, clock=SlowClock(0.2))
    assert slow.status is Status.WARN
    assert "fsync 200.0 ms" in slow.line and f"over {FSYNC_WARN_MS:g} ms" in slow.line
    fast = check_journal_disk(tmp_path, usage=lambda p: 10**10, clock=SlowClock(0.001))
    assert fast.status is Status.OK and "fsync 1.0 ms" in fast.line
    assert list(tmp_path.iterdir()) == []  # its probe file is removed


def test_journal_disk_fsync_really_called_on_its_file(tmp_path: Path) -> None:
    synced: list[int] = []
    check = check_journal_disk(tmp_path, usage=lambda p: 10**10, fsync=synced.append)
    assert check.status is Status.OK and len(synced) == 5


def test_journal_disk_full_missing_or_unwritable_fails(tmp_path: Path) -> None:
    full = check_journal_disk(tmp_path, usage=lambda p: 5_000_000)
    assert full.status is Status.FAIL and "5 MB free" in full.line
    low = check_journal_disk(tmp_path, usage=lambda p: 100_000_000)
    assert low.status is Status.WARN
    missing = check_journal_disk(tmp_path / "nowhere")
    assert missing.status is Status.FAIL and "mkdir -p" in missing.fix

    def broken(handle: int) -> None:
        raise OSError(5, "Input/output error")

    failed = check_journal_disk(tmp_path, usage=lambda p: 10**10, fsync=broken)
    assert failed.status is Status.FAIL and "Input/output error" in failed.line
    assert list(tmp_path.iterdir()) == []


def test_clock_sync_yes_no_unknown() -> None:
    assert check_clock_sync(lambda argv: "yes").status is Status.OK
    unsynced = check_clock_sync(lambda argv: "no")
    assert unsynced.status is Status.WARN and "set-ntp" in unsynced.fix
    unknown = check_clock_sync(lambda argv: None)
    assert unknown.status is Status.SKIPPED and "unknown" in unknown.line


@pytest.fixture
def port_in_use() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def test_web_port_in_use_fails_and_free_passes(port_in_use: int) -> None:
    taken = check_web_port(f"127.0.0.1:{port_in_use}")
    assert taken.status is Status.FAIL and str(port_in_use) in taken.line
    assert f"sport = :{port_in_use}" in taken.fix
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    assert check_web_port(f"127.0.0.1:{free}").status is Status.OK


def _bridged(port: str) -> ChompConfig:
    return config_from_dict(
        {
            "players": [{"name": "ann"}, {"name": "bob", "button": 27}],
            "game": {"mode": "quick_chomp"},
            "bridge": {"port": port, "buttons": {"ann": 0}},
        }
    )


def test_bridge_port_skipped_missing_closed_and_present(tmp_path: Path) -> None:
    assert check_bridge_port(None).status is Status.SKIPPED
    missing = check_bridge_port(_bridged(str(tmp_path / "ttyACM0")))
    assert missing.status is Status.FAIL and "not there" in missing.line
    device = tmp_path / "ttyACM0"
    device.write_bytes(b"")
    present = check_bridge_port(_bridged(str(device)))
    assert present.status is Status.OK and str(device) in present.line

    def nothing(port: str) -> str:
        raise RuntimeError("no Pico bridge found: no /dev/companion-bridge")

    unplugged = check_bridge_port(_bridged("auto"), finder=nothing)
    assert unplugged.status is Status.FAIL and "no Pico bridge found" in unplugged.line
    url = check_bridge_port(_bridged("hwgrep://2e8a:0005"))
    assert url.status is Status.SKIPPED


def test_sound_checked_only_when_voice_is_on(tmp_path: Path) -> None:
    assert check_sound(None).status is Status.SKIPPED
    voiced = cast(ChompConfig, SimpleNamespace(voice=SimpleNamespace(enabled=True)))
    cards = tmp_path / "cards"
    cards.write_text("--- no soundcards ---\n")
    assert check_sound(voiced, cards).status is Status.FAIL
    cards.write_text(" 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n")
    assert check_sound(voiced, cards).status is Status.OK
    assert check_camera(None).status is Status.SKIPPED


def test_every_line_is_one_line_and_the_summary_counts() -> None:
    checks = [Check(Status.OK, "a"), Check(Status.FAIL, "b", "do c"), Check(Status.SKIPPED, "d")]
    assert checks[1].render() == "FAIL  b -> fix: do c"
    assert summary(checks) == "doctor: 1 ok, 0 warning(s), 1 failed, 1 skipped"


def _config(tmp_path: Path, listen: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(
        '[gpio]\npin_factory = "mock"\n[web]\n'
        f'listen = "{listen}"\n'
        '[[players]]\nname = "ann"\nbutton = 17\n[[players]]\nname = "bob"\nbutton = 27\n'
        '[game]\nmode = "quick_chomp"\n'
    )
    return path


def test_cli_a_port_in_use_exits_1_with_its_line(
    tmp_path: Path, run_cli: RunCli, port_in_use: int
) -> None:
    result = run_cli("doctor", "--config", str(_config(tmp_path, f"127.0.0.1:{port_in_use}")))
    assert result.status == 1, result.out
    lines = result.out.splitlines()
    assert any(line.startswith("FAIL  web port") for line in lines)
    assert lines[-1].startswith("doctor: ") and len(lines) == 12
    assert f"journal folder {tmp_path}" in result.out  # the config's journal's folder
    assert result.err == ""


def test_cli_exit_status_follows_the_failures(tmp_path: Path, run_cli: RunCli) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    result = run_cli("doctor", "--config", str(_config(tmp_path, f"127.0.0.1:{free}")))
    failed = [line for line in result.out.splitlines() if line.startswith("FAIL")]
    assert result.status == (1 if failed else 0), result.out


def test_cli_a_bad_config_is_one_line_and_exit_2(tmp_path: Path, run_cli: RunCli) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text("[[players]]\nname = 'ann'\nbutton = 99\n")
    result = run_cli("doctor", "--config", str(bad))
    assert result.status == 2 and result.out == ""
    assert result.err.count("\n") == 1 and "players[0].button" in result.err


def test_the_unit_runs_doctor_before_the_referee_and_a_failure_does_not_stop_it() -> None:
    unit = (ROOT / "hardware" / "companion-referee.service").read_text()
    pre = [line for line in unit.splitlines() if line.startswith("ExecStartPre=")]
    assert len(pre) == 1 and pre[0].startswith("ExecStartPre=-")
    assert "companion doctor --config /home/pi/companion/table.toml 1>&2" in pre[0]
    assert unit.index("ExecStartPre=") < unit.index("ExecStart=/")


@settings(max_examples=examples(300))
@given(st.text(max_size=200))
def test_fuzz_whatever_the_system_says_each_check_is_one_printable_line(said: str) -> None:
    """The governor file, vcgencmd, timedatectl and the sound cards' list are read, never
    trusted: any text gives a check, on one printable line, and no exception."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "read"
        path.write_text(said, errors="surrogateescape")
        voiced = cast(ChompConfig, SimpleNamespace(voice=SimpleNamespace(enabled=True)))
        checks = [
            check_governor(path),
            check_sound(voiced, path),
            check_throttling(lambda argv: said),
            check_clock_sync(lambda argv: said),
        ]
    for check in checks:
        assert check.render().isprintable(), check


@pytest.mark.parametrize("what", ["missing", "folder", "not utf-8", "device"])
def test_cli_an_unreadable_config_is_one_line_and_exit_2(
    tmp_path: Path, run_cli: RunCli, what: str
) -> None:
    path = {
        "missing": tmp_path / "nope.toml",
        "folder": tmp_path,
        "not utf-8": tmp_path / "bin.toml",
        "device": Path("/dev/null"),
    }[what]
    if what == "not utf-8":
        path.write_bytes(b"\xff\xfe[[players]]")
    result = run_cli("doctor", "--config", str(path))
    assert result.status == 2 and result.out == ""
    assert result.err.count("\n") == 1 and str(path) in result.err
