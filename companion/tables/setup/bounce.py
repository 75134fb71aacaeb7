"""The bounce profile: what a button's contacts do, read from its stamped edges.

Pure: a function over (stamp, level) edges, so the analysis is tested on scripted
bounces and the same code reads a real switch on the Pi. Edges come in bursts: a press
(the contacts close and chatter) and a release (they open and chatter again). A burst
ends when the line has been quiet for :data:`BURST_GAP_NS`; its settled level says
whether it was a press or a release. The referee's ``lockout_ms`` must cover the longest
burst (it ignores a button's edges that close after its last press or release) and its
``settle_ms`` the longest press burst (a verdict waits for presses still bouncing in).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

BURST_GAP_NS = 30_000_000  # 30 ms of quiet ends a burst: bounce is shorter, a press longer
MIN_LOCKOUT_MS = 50.0  # below this a slap held briefly could be counted twice
DEFAULT_SETTLE_MS = 5.0  # the referee's default: kept unless a press bounces longer
WORN_BOUNCE_MS = 20.0  # a sound microswitch settles within a few ms; 20 ms is a worn one
GROWTH_FACTOR = 2.0  # the last third bouncing twice as long as the first: wearing out
PRESSES_ASKED = 20


@dataclass(frozen=True)
class StampedEdge:
    """One edge of one button: ``pressed`` is the level after it (low = pressed)."""

    stamp_ns: int
    pressed: bool


@dataclass(frozen=True)
class Burst:
    pressed: bool  # the level it settled at: a press, or a release
    edges: int
    start_ns: int
    end_ns: int

    @property
    def bounce_ms(self) -> float:
        return (self.end_ns - self.start_ns) / 1e6


@dataclass(frozen=True)
class BounceProfile:
    """One button's figures over its presses, and what (if anything) is wrong with it."""

    button: str
    presses: int
    edges_per_press: float  # press-burst edges, mean (1.0: a clean switch)
    most_edges: int
    longest_press_bounce_ms: float
    longest_release_bounce_ms: float
    missed_releases: int
    failing: str | None  # one line naming what is wrong, or None

    def line(self) -> str:
        """One line for the screen."""
        figures = (
            f"{self.button}: {self.presses} presses, {self.edges_per_press:.1f} edges per "
            f"press (at most {self.most_edges}), longest bounce "
            f"{self.longest_press_bounce_ms:.2f} ms, release bounce "
            f"{self.longest_release_bounce_ms:.2f} ms"
        )
        return figures if self.failing is None else f"{figures}; FAILING: {self.failing}"


@dataclass(frozen=True)
class Recommendation:
    settle_ms: float
    lockout_ms: float


def bursts(edges: Sequence[StampedEdge], gap_ns: int = BURST_GAP_NS) -> list[Burst]:
    """The edges grouped into bursts by quiet gaps, in stamp order."""
    ordered = sorted(edges, key=lambda e: e.stamp_ns)
    found: list[Burst] = []
    group: list[StampedEdge] = []
    for edge in ordered:
        if group and edge.stamp_ns - group[-1].stamp_ns >= gap_ns:
            found.append(_burst(group))
            group = []
        group.append(edge)
    if group:
        found.append(_burst(group))
    return found


def _burst(group: Sequence[StampedEdge]) -> Burst:
    return Burst(group[-1].pressed, len(group), group[0].stamp_ns, group[-1].stamp_ns)


def _missed_releases(found: Sequence[Burst]) -> int:
    """Presses with no release after them: two presses in a row, or one still held."""
    missed = sum(1 for a, b in zip(found, found[1:], strict=False) if a.pressed and b.pressed)
    return missed + (1 if found and found[-1].pressed else 0)


def _failing(presses: Sequence[Burst], releases: Sequence[Burst], missed: int) -> str | None:
    """What names a switch as failing, most telling first."""
    if missed:
        return f"{missed} release(s) missed: the contacts stay closed (a worn or sticking switch)"
    longest = max((b.bounce_ms for b in [*presses, *releases]), default=0.0)
    if longest > WORN_BOUNCE_MS:
        return f"bounces for {longest:.1f} ms (a sound switch settles within a few ms)"
    third = len(presses) // 3
    if third >= 2:
        first = sum(b.bounce_ms for b in presses[:third]) / third
        last = sum(b.bounce_ms for b in presses[-third:]) / third
        if last > 1.0 and last > GROWTH_FACTOR * first:
            return f"bounce growing: {first:.2f} ms early, {last:.2f} ms in the last presses"
    return None


def profile(button: str, edges: Sequence[StampedEdge]) -> BounceProfile:
    """One button's bounce profile from every edge it gave while it was pressed."""
    found = bursts(edges)
    presses = [b for b in found if b.pressed]
    releases = [b for b in found if not b.pressed]
    missed = _missed_releases(found)
    return BounceProfile(
        button=button,
        presses=len(presses),
        edges_per_press=sum(b.edges for b in presses) / len(presses) if presses else 0.0,
        most_edges=max((b.edges for b in presses), default=0),
        longest_press_bounce_ms=max((b.bounce_ms for b in presses), default=0.0),
        longest_release_bounce_ms=max((b.bounce_ms for b in releases), default=0.0),
        missed_releases=missed,
        failing=_failing(presses, releases, missed),
    )


def _up(value: float, step: float) -> float:
    return float(math.ceil(value / step - 1e-9) * step)


def recommend(profiles: Sequence[BounceProfile]) -> Recommendation:
    """settle_ms and lockout_ms for the buttons measured.

    The lockout is three times the longest burst (press or release), at least
    :data:`MIN_LOCKOUT_MS`, in steps of 10 ms; the settle margin covers the longest press
    burst plus 1 ms, at least the referee's default, in whole ms. Both stay within the
    ranges the referee's config accepts.
    """
    longest_press = max((p.longest_press_bounce_ms for p in profiles), default=0.0)
    longest = max(
        (max(p.longest_press_bounce_ms, p.longest_release_bounce_ms) for p in profiles),
        default=0.0,
    )
    lockout = min(5000.0, max(MIN_LOCKOUT_MS, _up(3 * longest, 10.0)))
    settle = min(1000.0, max(DEFAULT_SETTLE_MS, _up(longest_press + 1.0, 1.0)))
    return Recommendation(settle_ms=settle, lockout_ms=lockout)
