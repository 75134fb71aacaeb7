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
