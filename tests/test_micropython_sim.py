"""The simulated Pico with its core in MicroPython: the CLI, a client on it, and the bench."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from firmware_bridge import mpdrive, mprun
from firmware_bridge.bench import core_cost_lines
from firmware_bridge.host import BridgeClient
from firmware_bridge.link import BridgeTiming

pytestmark = pytest.mark.skipif(
    mprun.find_micropython() is None,
    reason=f"no MicroPython interpreter here: {mprun.INSTALL_HINT}",
)


def test_python_m_sim_micropython_serves_a_client(tmp_path: Path) -> None:
    link = tmp_path / "bridge"
    sim = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.sim", "--micropython", "--link", str(link)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert sim.stdout is not None and sim.stdin is not None
        banner = sim.stdout.readline()
        assert banner.startswith("simulated Pico (MicroPython core) on ")
        client = BridgeClient({"ann": 0}, lambda e: None, str(link), timing=BridgeTiming(10.0))
        try:
            accuracy = client.accuracy
            assert accuracy.synced and "firmware sim-1.0.0" in accuracy.detail
        finally:
            client.close()
        sim.stdin.write("\n")
        sim.stdin.flush()
        assert sim.wait(timeout=10) == 0
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.wait()


@pytest.mark.slow
def test_bench_bridge_micropython_reports_the_cores_cost(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["--frames", "400", "--latency-trials", "20", "--sync-seconds", "5", "--json"]
    assert main(["bench", "bridge", "--micropython", *args]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["core_interpreter"] == "micropython"
    cost = report["core_ns_per_event"]
    assert cost["cpython"] > 0 and cost["micropython"] > 0
    assert report["latency_trials"] == 20 and report["link"]["bad_frames"] == 0


def test_the_core_driver_runs_as_on_the_pico() -> None:
    """Imported as the Pico imports it (no firmware_bridge package): a frame comes out."""
    out = mprun.run_lines([mprun.init_line(5, 2), "10 1 a 1", "20 1 e 0 1 15"])
    assert out[0] == "." and out[1] == "."
    assert out[2].startswith("w ") and out[3] == "."


def test_every_timed_edge_is_accepted_not_a_bounce() -> None:
    """The cost is that of real events: each run's clock continues the last one's."""
    lines = core_cost_lines(50, 3)
    for run in (mprun.run_lines, mpdrive.run_lines):
        out = run([*lines, f"{3 * 51} 0 s"])
        status = [line for line in out if line.startswith("S ")][0].split()
        assert (int(status[1]), int(status[2])) == (150, 0)  # evseq, bounces
