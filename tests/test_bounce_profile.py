"""The bounce profile on scripted bounces: clean, bouncy and failing switches.

The analysis is a pure function over stamped edges, so every switch here is a script of
edges; the recommendation is checked against the referee's own config reader.
"""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.tables.chomp.config import config_from_dict, load_config
from companion.tables.setup.bounce import (
    BURST_GAP_NS,
    MIN_LOCKOUT_MS,
    PRESSES_ASKED,
    StampedEdge,
    bursts,
    profile,
    recommend,
)
from companion.tables.setup.render import with_timing

MS = 1_000_000
ROOT = Path(__file__).resolve().parent.parent


def burst(start_ns: int, pressed: bool, extra: int, spacing_ns: int) -> list[StampedEdge]:
    """One settling burst: ``extra`` chatters (two edges each), then the settled edge."""
    edges = []
    t = start_ns
    for _ in range(extra):
        edges += [StampedEdge(t, pressed), StampedEdge(t + spacing_ns // 2, not pressed)]
        t += spacing_ns
    edges.append(StampedEdge(t, pressed))
    return edges


def presses(
    count: int = PRESSES_ASKED,
    extra: int = 0,
    spacing_ns: int = 0,
    release_extra: int = 0,
    release_spacing_ns: int = 0,
    grow_ns: int = 0,
) -> list[StampedEdge]:
    """``count`` presses 400 ms apart, held 100 ms, each bouncing as asked."""
    edges: list[StampedEdge] = []
    for i in range(count):
        t = i * 400 * MS
        edges += burst(t, True, extra, spacing_ns + i * grow_ns)
        edges += burst(t + 100 * MS, False, release_extra, release_spacing_ns)
    return edges


def test_clean_switch_one_edge_per_press() -> None:
    result = profile("ann's button", presses())
    assert result.presses == PRESSES_ASKED
    assert result.edges_per_press == 1.0 and result.most_edges == 1
    assert result.longest_press_bounce_ms == 0.0 == result.longest_release_bounce_ms
    assert result.missed_releases == 0 and result.failing is None
    advice = recommend([result])
    assert (advice.settle_ms, advice.lockout_ms) == (5.0, MIN_LOCKOUT_MS)
    assert "FAILING" not in result.line()


def test_bouncy_switch_figures_and_recommendation() -> None:
    # four chatters 1 ms apart on the way down (9 edges, 4 ms), two on the way up (2 ms)
    edges = presses(extra=4, spacing_ns=1 * MS, release_extra=2, release_spacing_ns=1 * MS)
    result = profile("bob's button", edges)
    assert result.presses == PRESSES_ASKED
    assert result.edges_per_press == 9.0 and result.most_edges == 9
    assert result.longest_press_bounce_ms == 4.0
    assert result.longest_release_bounce_ms == 2.0
    assert result.failing is None
    advice = recommend([result, profile("ann's button", presses())])
    assert advice.settle_ms == 5.0  # 4 ms + 1 ms: the default already covers it
    assert advice.lockout_ms == MIN_LOCKOUT_MS  # 3 x 4 ms is under the floor


def test_long_bounce_raises_settle_and_lockout() -> None:
    result = profile("cat's button", presses(extra=6, spacing_ns=2 * MS))  # 12 ms bursts
    advice = recommend([result])
    assert result.longest_press_bounce_ms == 12.0
    assert advice.settle_ms == 13.0  # the longest press burst + 1 ms
    assert advice.lockout_ms == MIN_LOCKOUT_MS  # 3 x 12 = 36: the floor stands
    result = profile("cat's button", presses(extra=9, spacing_ns=2 * MS))  # 18 ms
    assert recommend([result]).lockout_ms == 60.0  # 3 x 18 = 54, up to 60


def test_failing_switch_bounce_growing_is_named() -> None:
    edges = presses(extra=3, spacing_ns=100_000, grow_ns=150_000)  # 0.3 ms .. 8.85 ms
    result = profile("dan's button", edges)
    assert result.failing is not None and "bounce growing" in result.failing
    assert "FAILING: bounce growing" in result.line()


def test_failing_switch_missed_releases_are_named() -> None:
    edges = presses(count=10)
    edges += [StampedEdge(5000 * MS, True), StampedEdge(5400 * MS, True)]  # two, no release
    result = profile("ann's button", edges)
    assert result.missed_releases == 2  # one between them, one still held at the end
    assert result.failing is not None and "2 release(s) missed" in result.failing


def test_failing_switch_worn_long_bounce_is_named() -> None:
    result = profile("bob's button", presses(extra=5, spacing_ns=5 * MS))  # 25 ms
    assert result.failing is not None and "bounces for 25.0 ms" in result.failing


def test_edges_arriving_out_of_order_give_the_same_profile() -> None:
    edges = presses(extra=3, spacing_ns=MS, release_extra=1, release_spacing_ns=MS)
    shuffled = edges[:]
    random.Random(3).shuffle(shuffled)
    assert profile("x", shuffled) == profile("x", edges)


def test_recommendation_written_into_the_example_and_read_by_the_referee(
    tmp_path: Path,
) -> None:
    example = (ROOT / "hardware" / "pinmap.example.toml").read_text(encoding="utf-8")
    advice = recommend([profile("x", presses(extra=9, spacing_ns=2 * MS))])
    path = tmp_path / "table.toml"
    path.write_text(with_timing(example, advice), encoding="utf-8")
    config = load_config(path)
    assert (config.settle_ms, config.lockout_ms) == (advice.settle_ms, advice.lockout_ms)
    assert path.read_text(encoding="utf-8").count("settle_ms =") == 1
    assert "# header pin 11" in path.read_text(encoding="utf-8")  # comments kept


def test_timing_added_to_a_config_without_a_referee_table() -> None:
    text = "".join(
        f'[[players]]\nname = "{name}"\nbutton = {pin}\n\n'
        for name, pin in (("ann", 17), ("bob", 27), ("cat", 22))
    )
    advice = recommend([profile("x", presses(extra=2, spacing_ns=MS))])
    config = config_from_dict(tomllib.loads(with_timing(text, advice)))
    assert config.lockout_ms == advice.lockout_ms and config.settle_ms == advice.settle_ms


@settings(max_examples=examples(60), deadline=None)
@given(
    count=st.integers(1, 30),
    extra=st.integers(0, 8),
    spacing_us=st.integers(1, 3000),
    release_extra=st.integers(0, 8),
)
def test_property_every_scripted_press_is_one_burst_and_advice_is_accepted(
    count: int, extra: int, spacing_us: int, release_extra: int
) -> None:
    """Bounce shorter than the burst gap: one press burst per press, no release missed,
    and the advice covers the bounce and is within what the referee's config accepts."""
    edges = presses(count, extra, spacing_us * 1000, release_extra, spacing_us * 1000)
    assert all(b.end_ns - b.start_ns < BURST_GAP_NS for b in bursts(edges))
    result = profile("x", edges)
    assert result.presses == count and result.missed_releases == 0
    assert result.most_edges == 2 * extra + 1
    advice = recommend([result])
    longest = max(result.longest_press_bounce_ms, result.longest_release_bounce_ms)
    assert advice.lockout_ms >= 3 * longest and advice.settle_ms > result.longest_press_bounce_ms
    raw = {
        "players": [
            {"name": "ann", "button": 17},
            {"name": "bob", "button": 27},
            {"name": "cat", "button": 22},
        ],
        "referee": {"settle_ms": advice.settle_ms, "lockout_ms": advice.lockout_ms},
    }
    assert config_from_dict(raw).lockout_ms == advice.lockout_ms
