"""``companion bench bridge``: the bridge's figures, measured (never asserted in tests).

* ``frames_per_s``: press/release frames from the simulated Pico (the firmware's own core)
  through a pty, real pyserial, the reader thread, the deframer, the session (sequence
  checks, clock mapping) to the press sink, as fast as they can go; ``codec_frames_per_s``
  is the deframer alone on the same bytes.
* ``pty_latency_us``: one press at a time, from the instant the simulated Pico stamps and
  writes it to the instant the sink holds the BridgeEdge (p50, p99).
* ``core_ns_per_event``: the firmware core's own cost of one accepted edge (debounce,
  numbering, the frame built), timed inside CPython and inside the MicroPython Unix port
  (hardware/BRIDGE.md relates it to an RP2040). With ``micropython`` the simulated Pico's
  core runs in a MicroPython process for the whole bench.
* ``sync_error_us``: a simulated 30-minute game (:func:`firmware_bridge.sim.simulate_sync`)
  with the Pico's clock 50 ppm fast and crossing its 2**30 wrap, on a virtual timeline with
  USB-like delays: how far mapped stamps fall from the true instants, and the error bar
  the bridge stated. ``pty_sync_error_us`` is the same error for the latency run's presses
  (real time, a pty, 50 ppm).
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from firmware_bridge import codec, mpdrive, mprun
from firmware_bridge.events import BridgeEdge
from firmware_bridge.host import BridgeClient
from firmware_bridge.sim import TICKS_MASK, SimDevice, simulate_sync

# How much longer MicroPython on an RP2040 (125 MHz) takes than CPython on a PC, from a
# published table (shaoziyang/micropython_benchmarks, README: MicroPython v1.23.0 on an
# RP2040 against CPython 3.12.5 on an Intel N5105 at 2.9 GHz): 10**6 integer additions
# 7984 ms against 78 ms (x102), multiplications 28283 ms against 79 ms (x358).
RP2040_OVER_PC_CPYTHON = (102, 358)
RP2040_RATIO_SOURCE = (
    "shaoziyang/micropython_benchmarks: RP2040 MicroPython v1.23 against CPython 3.12 on an "
    "Intel N5105, integer addition x102 to multiplication x358"
)

GOALS = {"frames_per_s": 20_000, "pty_latency_p99_us": 2_000, "sync_error_us": 50}


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {
        "p50": round(statistics.median(ordered), 1),
        "p99": round(p99, 1),
        "max": round(ordered[-1], 1),
    }


def _throughput(sim: SimDevice, client: BridgeClient, got: list[BridgeEdge], frames: int) -> float:
    """Frames per second from the first byte written to the last BridgeEdge in the sink."""
    captured: list[bytes] = []
    with sim.lock:  # nothing (a heartbeat, a PONG) may come between or cut into the frames
        sim.capture = captured
        try:
            for i in range(frames):
                button = i % sim.n_buttons
                sim.press(button, not sim.levels[button])
        finally:
            sim.capture = None
        stream = b"".join(captured)
        target = len(got) + len(captured)
        start = time.perf_counter()
        sim.write_raw(stream)
    while len(got) < target:
        if time.perf_counter() - start > 60:
            break
        time.sleep(0.0005)
    elapsed = time.perf_counter() - start
    return len(captured) / elapsed


def _codec_rate(frames: int) -> float:
    stream = b"".join(
        codec.encode_frame(codec.pack(codec.PRESS, i & 0xFF, (i % 4, i & 0xFFFF, i, 10**9 + i)))
        for i in range(frames)
    )
    deframer = codec.Deframer()
    start = time.perf_counter()
    for i in range(0, len(stream), 4096):
        deframer.feed(stream[i : i + 4096])
    return deframer.frames / (time.perf_counter() - start)


def core_cost_lines(edges: int, repeats: int) -> list[str]:
    """Driver commands (:mod:`firmware_bridge.mpdrive`) that time ``repeats`` runs of
    ``edges`` accepted edges on an active core (a host listening: each frame built)."""
    # Each run starts where the last one stopped (the clock must not go back: the core
    # would take every edge for a bounce).
    runs = [f"{r * (edges + 1)} 0 bench {edges}" for r in range(repeats)]
    return [mprun.init_line(0, 4, debounce_us=0), "0 0 a 1", *runs]


def core_cost_ns(micropython: bool, edges: int = 2000, repeats: int = 5) -> int | None:
    """The firmware core's cost per event (the best of ``repeats``), in CPython or in a
    MicroPython process; None when no MicroPython interpreter is here."""
    if micropython and mprun.find_micropython() is None:
        return None
    lines = core_cost_lines(edges, repeats)
    out = mprun.run_lines(lines) if micropython else mpdrive.run_lines(lines)
    return min(int(line.split()[1]) for line in out if line.startswith("C "))


def core_figures(micropython: bool) -> dict[str, Any]:
    """The core's cost per event in both interpreters, and what that means on an RP2040."""
    cpython = core_cost_ns(False) or 0  # never None: CPython is always here
    return {
        "core_interpreter": "micropython" if micropython else "cpython",
        "core_ns_per_event": {"cpython": cpython, "micropython": core_cost_ns(True)},
        "rp2040_estimate_us_per_event": {
            "low": round(cpython * RP2040_OVER_PC_CPYTHON[0] / 1000),
            "high": round(cpython * RP2040_OVER_PC_CPYTHON[1] / 1000),
            "ratio_source": RP2040_RATIO_SOURCE,
        },
    }


def _pty_figures(frames: int, latency_trials: int, seed: int, micropython: bool) -> dict[str, Any]:
    """Latency, sync error and throughput through a pty to a simulated Pico."""
    folder = Path(tempfile.mkdtemp(prefix="companion-bridge-bench-"))
    got: list[BridgeEdge] = []
    arrived: list[int] = []
    signal = threading.Event()

    def sink(edge: BridgeEdge) -> None:
        arrived.append(time.monotonic_ns())
        got.append(edge)
        signal.set()

    sim = SimDevice(
        4,
        drift_ppm=50.0,
        offset_us=TICKS_MASK - 5_000_000,  # the Pico's ticks_us wraps 5 s into the run
        link=folder / "bridge",
        seed=seed,
        micropython=micropython,
    ).start()
    try:
        client = BridgeClient(
            {"ann": 0, "bob": 1, "cat": 2, "dan": 3}, sink, sim.port, notify=lambda _m: None
        )
        try:
            time.sleep(1.0)  # let the clock fit its drift before measuring against it
            latencies: list[float] = []
            sync_errors: list[float] = []
            for i in range(latency_trials):
                signal.clear()
                count = len(got)
                button = i % 4
                true_ns = sim.press(button, not sim.levels[button])
                while len(got) <= count and signal.wait(1.0):
                    signal.clear()
                if len(got) > count:
                    latencies.append((arrived[count] - true_ns) / 1000)
                    sync_errors.append(abs(got[count].stamp_ns - true_ns) / 1000)
                time.sleep(0.002 + (i % 7) * 0.0003)
            stated = round(client.session.clock.uncertainty_us(), 1)
            rate = _throughput(sim, client, got, frames)
            link = client.transport.stats.as_dict()
        finally:
            client.close()
    finally:
        sim.close()
    return {
        "frames": frames,
        "frames_per_s": round(rate),
        "codec_frames_per_s": round(_codec_rate(frames)),
        "pty_latency_us": _percentiles(latencies),
        "latency_trials": len(latencies),
        "pty_sync_error_us": {**_percentiles(sync_errors), "stated": stated},
        "link": {k: link[k] for k in ("bad_frames", "lost_frames", "repeated_frames")},
    }


def bench_bridge(
    frames: int = 30_000,
    latency_trials: int = 500,
    sync_duration_s: float = 1800.0,
    seed: int = 1,
    micropython: bool = False,
) -> dict[str, Any]:
    """Measure the bridge host path on a simulated Pico (its core in CPython, or in a
    MicroPython process); one dict of figures."""
    pty = _pty_figures(frames, latency_trials, seed, micropython)
    sync = simulate_sync(50.0, sync_duration_s, seed=seed)
    return {
        **core_figures(micropython),
        **{k: v for k, v in pty.items() if k != "link"},
        "sync_error_us": {
            "max": sync["max_us"],
            "p99": sync["p99_us"],
            "mean": sync["mean_us"],
            "stated": sync["stated_uncertainty_us"],
            "outside_stated": sync["outside_stated"],
            "drift_ppm": sync["drift_ppm"],
            "fitted_drift_ppm": sync["fitted_drift_ppm"],
            "simulated_s": sync["duration_s"],
            "edges": sync["edges"],
            "ticks_wraps": sync["ticks_wraps"],
        },
        "link": pty["link"],
        "goals": dict(GOALS),
    }


def format_bench_bridge(report: dict[str, Any]) -> list[str]:
    """The report as lines for a person (``companion bench bridge`` without ``--json``)."""
    lat, sync, pty = report["pty_latency_us"], report["sync_error_us"], report["pty_sync_error_us"]
    goals = report["goals"]
    cost = report["core_ns_per_event"]
    rp2040 = report["rp2040_estimate_us_per_event"]
    mp_cost = cost["micropython"]
    under_mp = f"{mp_cost / 1000:.1f} us" if mp_cost is not None else "no micropython command"
    return [
        f"simulated Pico's core in {report['core_interpreter']}; its cost per event: "
        f"CPython {cost['cpython'] / 1000:.1f} us, MicroPython (Unix port) {under_mp}; "
        f"an RP2040 at 125 MHz: about {rp2040['low']}-{rp2040['high']} us "
        "(published ratio, hardware/BRIDGE.md)",
        f"frames decoded: {report['frames_per_s']}/s end to end through the pty "
        f"(codec alone {report['codec_frames_per_s']}/s; goal >= {goals['frames_per_s']})",
        f"press latency, Pico write -> BridgeEdge in the sink: p50 {lat['p50']} us, "
        f"p99 {lat['p99']} us (goal p99 <= {goals['pty_latency_p99_us']})",
        f"clock sync after {sync['simulated_s']:g} simulated s at {sync['drift_ppm']:g} ppm: "
        f"max {sync['max']} us, p99 {sync['p99']} us, stated ±{sync['stated']} us "
        f"(goal <= {goals['sync_error_us']})",
        f"clock sync over the pty: p50 {pty['p50']} us, p99 {pty['p99']} us, "
        f"stated ±{pty['stated']} us",
    ]
