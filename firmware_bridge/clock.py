"""The Pico's microsecond clock mapped onto the host's monotonic nanoseconds, with an error bar.

Fed with ping results, as Klipper's clock sync is: the host notes when it sent a PING and
when the PONG came back; the Pico stamped its clock somewhere in between. Each sample says
"MCU time ``m`` happened within ``[sent, received]`` host time", so its midpoint is wrong
by at most half its round trip. The model

* keeps the best (smallest) round trip of its window, and fits only samples whose round
  trip is close to it (a late PONG says little about when the Pico answered);
* fits host time against MCU time by least squares over the window (offset and drift), then
  drops samples whose residual is far outside the others (median absolute deviation) and
  fits again;
* fits only the offset, at the last known drift, while the window spans too little time to
  tell drift from noise;
* states its uncertainty: half the best round trip (the part no fit can see: which way the
  cable was slower) plus twice the residuals' RMS, plus the drift's own error carried over
  the distance from the fitted samples.
"""

from __future__ import annotations

import math
from collections import deque
from typing import NamedTuple

from firmware_bridge.codec import TICKS_BITS, unwrap
from firmware_bridge.errors import BridgeDeviceError

NOMINAL_NS_PER_US = 1000.0
MAX_DRIFT_PPM = 1000.0  # a crystal is within ~100 ppm; a fit beyond this is bad data


class Sample(NamedTuple):
    mcu_us: int
    host_ns: int  # midpoint of sent and received
    rtt_ns: int


class ClockModel:
    """MCU microseconds (extended to 64 bits) to host monotonic nanoseconds."""

    def __init__(
        self,
        window: int = 240,
        min_span_us: int = 1_000_000,
        rtt_slack_ns: int = 50_000,
        unfitted_drift_ppm: float = 100.0,
    ) -> None:
        self.window = window
        self.min_span_us = min_span_us
        self.rtt_slack_ns = rtt_slack_ns
        self.unfitted_drift_ppm = unfitted_drift_ppm
        self._samples: deque[Sample] = deque(maxlen=window)
        self._slope = NOMINAL_NS_PER_US  # host ns per MCU us
        self._slope_fitted = False
        self._drift_err = 0.0  # how wrong the slope may be, ns per us (2 standard errors)
        self._x0 = 0  # the fit: host = y0 + a + slope * (mcu - x0)
        self._y0 = 0
        self._a = 0.0
        self._xm = 0.0  # mean MCU time of the fitted samples, relative to x0
        self._rms_ns = 0.0
        self._best_rtt_ns = 0
        self._used = 0
        self.accepted = 0
        self.rejected = 0

    # -- feeding --------------------------------------------------------------------------

    def reset(self) -> None:
        """Forget everything (the Pico rebooted: its clock started again)."""
        self._samples.clear()
        self._slope = NOMINAL_NS_PER_US
        self._slope_fitted = False
        self._drift_err = 0.0
        self._x0 = self._y0 = 0
        self._a = self._xm = self._rms_ns = 0.0
        self._best_rtt_ns = self._used = 0

    def add(self, sent_ns: int, mcu_us: int, received_ns: int) -> bool:
        """One ping's result. False when the round trip was too long to use now."""
        rtt = received_ns - sent_ns
        if rtt < 0:
            self.rejected += 1
            return False
        sample = Sample(mcu_us, sent_ns + rtt // 2, rtt)
        if self._samples and mcu_us <= self._samples[-1].mcu_us:
            self.rejected += 1  # a PONG older than one already used: the MCU clock is monotonic
            return False
        self._samples.append(sample)
        self._fit()
        usable = rtt <= self._rtt_limit()
        if usable:
            self.accepted += 1
        else:
            self.rejected += 1
        return usable

    def _rtt_limit(self) -> int:
        return 2 * self._best_rtt_ns + self.rtt_slack_ns

    def _fit(self) -> None:
        samples = list(self._samples)
        self._best_rtt_ns = min(s.rtt_ns for s in samples)
        # The quickest round trips, in time order: a quick answer pins the MCU's time down
        # best, whichever way the cable's delay fell.
        limit = self._rtt_limit()
        quick = sorted(samples, key=lambda s: s.rtt_ns)[: max(3, len(samples) // 4)]
        good = sorted((s for s in quick if s.rtt_ns <= limit), key=lambda s: s.mcu_us)
        x0, y0 = good[0].mcu_us, good[0].host_ns
        self._x0, self._y0 = x0, y0
        xs = [float(s.mcu_us - x0) for s in good]
        ys = [float(s.host_ns - y0) for s in good]
        keep = list(range(len(good)))
        for _ in range(2):  # fit, drop outliers, fit again
            self._fit_points([xs[i] for i in keep], [ys[i] for i in keep])
            residuals = [ys[i] - self._predict(xs[i]) for i in keep]
            if len(keep) < 5:
                break
            mad = sorted(abs(r) for r in residuals)[len(residuals) // 2]
            bound = max(5.0 * 1.4826 * mad, 5_000.0)  # never tighter than 5 us
            survivors = [i for i, r in zip(keep, residuals, strict=True) if abs(r) <= bound]
            if len(survivors) == len(keep) or len(survivors) < 3:
                break
            keep = survivors
        residuals = [ys[i] - self._predict(xs[i]) for i in keep]
        self._rms_ns = math.sqrt(sum(r * r for r in residuals) / len(residuals))
        self._used = len(keep)

    def _fit_points(self, xs: list[float], ys: list[float]) -> None:
        n = len(xs)
        xm = sum(xs) / n
        ym = sum(ys) / n
        sxx = sum((x - xm) ** 2 for x in xs)
        span = max(xs) - min(xs)
        slope = self._slope
        fitted = False
        if n >= 3 and span >= self.min_span_us and sxx > 0:
            candidate = sum((x - xm) * (y - ym) for x, y in zip(xs, ys, strict=True)) / sxx
            if abs(candidate / NOMINAL_NS_PER_US - 1.0) * 1e6 <= MAX_DRIFT_PPM:
                slope, fitted = candidate, True
        self._slope = slope
        self._a = ym - slope * xm
        self._xm = xm
        if fitted:
            res = [y - (self._a + slope * x) for x, y in zip(xs, ys, strict=True)]
            var = sum(r * r for r in res) / max(1, n - 2)
            self._drift_err = 2.0 * math.sqrt(var / sxx)
            self._slope_fitted = True
        elif not self._slope_fitted:
            self._drift_err = NOMINAL_NS_PER_US * self.unfitted_drift_ppm * 1e-6

    def _predict(self, x: float) -> float:
        return self._a + self._slope * x

    # -- reading --------------------------------------------------------------------------

    @property
    def synced(self) -> bool:
        return bool(self._samples)

    def to_host_ns(self, mcu_us: int) -> int:
        """Host monotonic nanoseconds of an MCU stamp (microseconds, extended)."""
        if not self._samples:
            raise BridgeDeviceError("the bridge's clock is not synchronised yet (no PONG so far)")
        return self._y0 + round(self._predict(float(mcu_us - self._x0)))

    def to_mcu_us(self, host_ns: int) -> int:
        """The inverse mapping (what MCU time a host instant corresponds to)."""
        if not self._samples:
            raise BridgeDeviceError("the bridge's clock is not synchronised yet (no PONG so far)")
        return self._x0 + round((host_ns - self._y0 - self._a) / self._slope)

    def unwrap_ticks(self, raw: int, near_host_ns: int) -> int:
        """A raw 30-bit ``ticks_us`` value extended, using the fit's idea of "now"."""
        return unwrap(raw, self.to_mcu_us(near_host_ns), TICKS_BITS)

    @property
    def best_rtt_us(self) -> float:
        return self._best_rtt_ns / 1000

    @property
    def drift_ppm(self) -> float:
        """How much faster the MCU's clock runs than the host's, in ppm (as fitted)."""
        return (NOMINAL_NS_PER_US / self._slope - 1.0) * 1e6

    @property
    def drift_fitted(self) -> bool:
        return self._slope_fitted

    @property
    def residual_rms_us(self) -> float:
        return self._rms_ns / 1000

    @property
    def samples(self) -> int:
        """Samples in the window; :attr:`used` of them passed the round-trip and residual tests."""
        return len(self._samples)

    @property
    def used(self) -> int:
        return self._used

    def uncertainty_us(self, mcu_us: int | None = None) -> float:
        """How far off a mapped stamp may be, in microseconds.

        Half the best round trip, plus twice the residuals' RMS, plus the drift's error over
        the distance from the middle of the fitted samples to ``mcu_us`` (default: the
        newest sample, where a stamp about to arrive will be).
        """
        if not self._samples:
            return math.inf
        at = self._samples[-1].mcu_us if mcu_us is None else mcu_us
        distance_us = abs(float(at - self._x0) - self._xm)
        drift_term_ns = self._drift_err * distance_us
        return (self._best_rtt_ns / 2 + 2 * self._rms_ns + drift_term_ns) / 1000

    def summary(self) -> dict[str, float | int | bool]:
        return {
            "samples": self.samples,
            "used": self.used,
            "best_rtt_us": round(self.best_rtt_us, 1),
            "residual_rms_us": round(self.residual_rms_us, 2),
            "drift_ppm": round(self.drift_ppm, 2),
            "drift_fitted": self.drift_fitted,
            "uncertainty_us": round(self.uncertainty_us(), 1) if self.synced else -1,
        }
