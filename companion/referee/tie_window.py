"""How finely the referee may honestly order presses from the sources it has."""

from __future__ import annotations

from companion.signals import SourceInfo


def effective_tie_window_us(configured_us: int, sources: list[SourceInfo]) -> tuple[int, str]:
    """The tie window the referee may honestly use, and a warning if it had to raise it.

    Two stamps from one source can be misordered by up to that source's uncertainty; from two
    different sources, by the sum of both. A window finer than that would claim an order the
    stamps cannot support, so it is raised (C5 with honest clocks).
    """
    if not sources:
        return configured_us, ""
    ordered = sorted((s.uncertainty_us for s in sources), reverse=True)
    floor = ordered[0] if len(ordered) == 1 else ordered[0] + ordered[1]
    if configured_us >= floor:
        return configured_us, ""
    names = ", ".join(f"{s.name} ±{s.uncertainty_us} us" for s in sources)
    return (
        floor,
        f"tie window raised from {configured_us} to {floor} us to match the clocks ({names})",
    )
