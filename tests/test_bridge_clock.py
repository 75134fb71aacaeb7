"""The clock model: MCU microseconds onto host nanoseconds, drift, outliers, error bar."""

from __future__ import annotations

import math
import random

import pytest

from firmware_bridge.clock import ClockModel
from firmware_bridge.errors import BridgeDeviceError
from firmware_bridge.sim import SimClock, simulate_sync


def feed(
    model: ClockModel,
    clock: SimClock,
    n: int,
    rng: random.Random,
    start_ns: int,
    every_ns: int = 250_000_000,
    up_ns: tuple[int, int] = (150_000, 300_000),
    down_ns: tuple[int, int] = (150_000, 300_000),
) -> int:
    t = start_ns
    for _ in range(n):
        up, down = rng.randint(*up_ns), rng.randint(*down_ns)
        model.add(t, clock.mcu_us(t + up), t + up + down)
        t += every_ns
    return t


@pytest.mark.parametrize("ppm", [50.0, -50.0, 0.0])
def test_drift_is_fitted_and_stamps_land_within_50_us(ppm: float) -> None:
    """Two simulated minutes of pings and presses, the Pico's timer crossing its wrap."""
    result = simulate_sync(ppm, 120.0, seed=3)
    assert result["ticks_wraps"] >= 1
    assert result["edges"] > 150
    assert result["max_us"] <= 50.0
    assert result["outside_stated"] == 0  # the error bar holds
    assert abs(result["fitted_drift_ppm"] - ppm) < 2.0
    assert result["lost"] == 0


def test_the_error_bar_holds_from_the_first_second() -> None:
    result = simulate_sync(50.0, 20.0, seed=5, warmup_s=0.0, presses_per_s=20.0)
    assert result["outside_stated"] == 0


def test_not_synced_yet() -> None:
    model = ClockModel()
    assert not model.synced and math.isinf(model.uncertainty_us())
    with pytest.raises(BridgeDeviceError):
        model.to_host_ns(5)


def test_one_sample_maps_at_its_midpoint_with_half_its_round_trip() -> None:
    model = ClockModel()
    model.add(1_000_000, 500, 1_400_000)
    assert model.to_host_ns(500) == 1_200_000
    assert model.to_host_ns(1500) == 2_200_000  # nominal rate until drift is fitted
    assert model.uncertainty_us(500) == pytest.approx(200.0)


def test_slow_round_trips_and_lopsided_samples_do_not_move_the_fit() -> None:
    rng = random.Random(1)
    clock = SimClock(lambda: 0, drift_ppm=30.0, offset_us=1000)
    model = ClockModel()
    t = feed(model, clock, 100, rng, 10**12)
    before = model.to_host_ns(clock.mcu_us(t))
    for _ in range(20):  # PONGs stuck behind other traffic: up 5 ms, down 50 us
        model.add(t, clock.mcu_us(t + 5_000_000), t + 5_050_000)
        t += 250_000_000
    t = feed(model, clock, 10, rng, t)
    probe = t - 100_000_000
    assert abs(model.to_host_ns(clock.mcu_us(probe)) - probe) < 20_000
    assert model.rejected >= 20
    assert before  # mapped before the bad samples as well


def test_a_pong_older_than_the_last_is_refused() -> None:
    model = ClockModel()
    model.add(0, 1000, 100_000)
    assert not model.add(200_000, 900, 300_000)


def test_reset_forgets_the_old_timer() -> None:
    rng = random.Random(2)
    model = ClockModel()
    feed(model, SimClock(lambda: 0, 40.0, 0), 30, rng, 10**12)
    model.reset()
    assert not model.synced and model.samples == 0
    model.add(0, 7, 1000)
    assert model.to_host_ns(7) == 500


def test_summary_states_the_figures() -> None:
    rng = random.Random(4)
    model = ClockModel()
    feed(model, SimClock(lambda: 0, 50.0, 0), 60, rng, 10**12)
    summary = model.summary()
    assert summary["drift_fitted"] is True
    assert abs(float(summary["drift_ppm"]) - 50.0) < 3.0
    assert float(summary["uncertainty_us"]) >= float(summary["best_rtt_us"]) / 2
