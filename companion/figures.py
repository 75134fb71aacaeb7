"""Summary figures of measured values, computed one way for every benchmark."""

from __future__ import annotations

import statistics


def percentiles(values: list[float]) -> dict[str, float]:
    """The median and the 99th percentile (nearest rank), rounded to 0.1; zeros if empty."""
    ordered = sorted(values)
    if not ordered:
        return {"p50": 0.0, "p99": 0.0}

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"p50": round(statistics.median(ordered), 1), "p99": round(pick(0.99), 1)}


# One core of this machine against one core of a Raspberry Pi 4: sysbench's CPU test
# (`sysbench cpu --threads=1 run`, sysbench 1.0.20) gave 3,294 to 3,369 events per CPU
# second here against 1,477.83 published for a Pi 4 (docs/scan.md, "On a Raspberry Pi 4").
# Scalar integer work: vectorised image code likely gains less on the Pi (NEON, 128-bit),
# so estimates made with it are optimistic. A Pi 5 is two to three times a Pi 4.
PI4_CORE_RATIO = 2.2
PI5_OVER_PI4 = (2.0, 3.0)


def pi_estimate(rate_here: float) -> dict[str, float]:
    """A rate measured on one core here (per second: frames, photos) as an estimate for
    one core of a Pi 4 and the range for a Pi 5 (not measurements: no Pi at hand)."""
    pi4 = rate_here / PI4_CORE_RATIO
    return {
        "pi4": round(pi4, 1),
        "pi5_low": round(pi4 * PI5_OVER_PI4[0], 1),
        "pi5_high": round(pi4 * PI5_OVER_PI4[1], 1),
        "ratio_here_to_pi4": PI4_CORE_RATIO,
    }
