"""``companion bench loopback``: on the maker's own Pi, one jumper wire from an output to
an input pin, and the figures the referee's promises rest on: how far the edge stamp is
from the instant the edge was driven, how late the callback runs, edges lost, and the
referee's decision -> LED; each without and with real-time priority, and with ``--load``
busy processes. On mock pins the figures are the mock's, and the report says so."""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from companion.devices.loopback import Loopback, Pairing, open_loopback
from companion.devices.pins import OpenedFactory, open_factory
from companion.devices.wiring import BCM_TO_BOARD
from companion.errors import HardwareError, InputError
from companion.figures import percentiles
from companion.referee.realtime import ask_for_realtime
from companion.tables.chomp.bench import busy_load, verdict_latency

MOCK_NOTE = "mock pins: these are gpiozero MockFactory's figures, not a Pi's (run it on the Pi)"


def figures(pairing: Pairing) -> dict[str, Any]:
    """Stamp error and callback delay in microseconds (p50, p99, max), edges lost and extra."""
    errors = [(stamp.stamp_ns - drive.at_ns) / 1000 for drive, stamp in pairing.pairs]
    delays = [(stamp.seen_ns - stamp.stamp_ns) / 1000 for _, stamp in pairing.pairs]
    return {
        "edges_paired": len(pairing.pairs),
        "edges_lost": pairing.lost,
        "edges_extra": pairing.extra,
        "stamp_error_us": {**percentiles(errors), "max": round(max(errors, default=0.0), 1)},
        "callback_delay_us": {**percentiles(delays), "max": round(max(delays, default=0.0), 1)},
    }


@contextmanager
def realtime_or_not(wanted: bool) -> Iterator[None]:
    """The referee's own ask for real time, or ``COMPANION_REALTIME=0`` while a run lasts."""
    before = os.environ.get("COMPANION_REALTIME")
    os.environ["COMPANION_REALTIME"] = "1" if wanted else "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ["COMPANION_REALTIME"]
        else:
            os.environ["COMPANION_REALTIME"] = before


def _on_a_thread(run: Any) -> tuple[str, Any]:
    """``run()`` on a thread that asked for real time as the referee's loop does."""
    got: list[Any] = []

    def body() -> None:
        got.append(ask_for_realtime())
        got.append(run())

    worker = threading.Thread(target=body, name="loopback")
    worker.start()
    worker.join()
    return got[0], got[1]


def check_wire(wire: Loopback, out_gpio: int, in_gpio: int) -> None:
    """A few edges first: none back means no wire (or the wrong pins), said in one line
    rather than thousands of edges counted lost."""
    if not wire.run(4, gap_s=0.001).pairs:
        raise HardwareError(
            f"no edge came back from GPIO{out_gpio} on GPIO{in_gpio}: put one jumper wire "
            f"from header pin {BCM_TO_BOARD[out_gpio]} to pin {BCM_TO_BOARD[in_gpio]}, "
            "nothing else on either pin (stop the referee first)"
        )


def bench_loopback(
    out_gpio: int,
    in_gpio: int,
    edges: int = 2000,
    load: int = 0,
    latency_trials: int = 100,
    factory: str = "auto",
    seed: int = 1,
    opened: OpenedFactory | None = None,
) -> dict[str, Any]:
    """The report: one run per (load, real time) pair, each with every figure."""
    if out_gpio == in_gpio:
        raise InputError("--in", "the wire joins two different pins")
    if not 0 <= load <= 64:
        raise InputError("--load", f"from 0 to 64 busy processes, not {load}")
    if not 2 <= edges <= 1_000_000:
        raise InputError("--edges", f"from 2 to 1000000, not {edges}")
    if not 1 <= latency_trials <= 100_000:
        raise InputError("--latency-trials", f"from 1 to 100000, not {latency_trials}")
    rng = random.Random(seed)
    pins = opened or open_factory(factory)
    report: dict[str, Any] = {
        "pins": pins.name,
        "pins_detail": pins.detail,
        "timing": str(pins.timing),
        "out": out_gpio,
        "in": in_gpio,
        "edges": edges,
        "runs": [],
    }
    if pins.name == "mock":
        report["note"] = MOCK_NOTE
    wire = open_loopback(pins, out_gpio, in_gpio)
    try:
        check_wire(wire, out_gpio, in_gpio)
        for busy in sorted({0, load}):
            with busy_load(busy):
                for realtime in (False, True):
                    with realtime_or_not(realtime):
                        got, pairing = _on_a_thread(lambda: wire.run(edges))
                        run = {"load": busy, "realtime": realtime, "scheduling": got}
                        run.update(figures(pairing))
                        led, _ = verdict_latency(latency_trials, rng)  # (LED, voice)
                        run["decision_to_led_us"] = led
                    report["runs"].append(run)
    finally:
        wire.close()
        if opened is None:
            pins.close()
    report["decision_to_led_pins"] = "mock (the referee's daemon, journal and outputs)"
    return report


def summary(report: dict[str, Any]) -> list[str]:
    """One screen: what the figures are from first, then a line per run."""
    first = (
        MOCK_NOTE
        if report["pins"] == "mock"
        else f"pins: {report['pins_detail']} (timing {report['timing']})"
    )
    lines = [
        first,
        f"wire GPIO{report['out']} -> GPIO{report['in']}, {report['edges']} edges a run; "
        "figures in us (p50 / p99 / max)",
    ]
    for run in report["runs"]:
        err, cb, led = run["stamp_error_us"], run["callback_delay_us"], run["decision_to_led_us"]
        lines.append(
            f"load {run['load']:>2}, {'real-time' if run['realtime'] else 'normal   '}: "
            f"stamp error {err['p50']} / {err['p99']} / {err['max']}; "
            f"callback {cb['p50']} / {cb['p99']} / {cb['max']}; "
            f"decision->LED {led['p50']} / {led['p99']}; "
            f"lost {run['edges_lost']}, extra {run['edges_extra']}"
        )
        lines.append(f"           scheduling: {run['scheduling']}")
    lines.append(
        "decision->LED: the referee's loop, journal write and outputs on mock pins, "
        "on this machine's CPU and disk"
    )
    return lines
