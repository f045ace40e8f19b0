"""Supply voltage variations, EN 50160:2010 (+A1:2015, +A2:2019, +A3:2019).

EN 50160 judges the 10-min mean r.m.s. supply voltages (measured by IEC 61000-4-30 class A)
over each period of one week, excluding intervals flagged for interruptions (and, following
IEC 61000-4-30's flagging concept, dips and swells):

- LV, clause 4.2.2.2: 95 % of the 10-min values within Un ± 10 %, and all of them within
  Un + 10 % / − 15 %;
- MV, clause 5.2.2.2: 99 % of the 10-min values within Uc ± 10 %, and all of them within
  Uc ± 15 % (Uc the declared supply voltage; Uc = Un where none is declared).

Checked outside psab: only the LV rule, against public secondary accounts of the standard (no
printed copy was available); the MV rule is as the 2010 edition is known to the author, unchecked.

The limits are carried as data (:data:`LIMITS`) with their clause; every function is vectorized
over the series (and over weeks, for a year of 10-min values: 52 × 1008 values in one call).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Supply-voltage-variation limits by system, percent of the reference voltage, with the clause.
LIMITS: dict[str, dict[str, float | str]] = {
    "LV": {"clause": "EN 50160:2010 4.2.2.2", "band_pct": 10.0, "share_pct": 95.0, "low_all_pct": -15.0, "high_all_pct": 10.0},
    "MV": {"clause": "EN 50160:2010 5.2.2.2", "band_pct": 10.0, "share_pct": 99.0, "low_all_pct": -15.0, "high_all_pct": 15.0},
}
#: 10-min intervals in one week, the period of observation.
INTERVALS_PER_WEEK = 7 * 24 * 6
#: Values this close (relative) to a limit count as on it, and on a limit counts as within
#: (the standard's "within the range" is inclusive).
EDGE = 1e-9


@dataclass(frozen=True)
class VariationAssessment:
    """One observation period of one phase (or many at once, along the leading axis)."""

    share_within_band_pct: np.ndarray
    outside_all_limits: np.ndarray  # boolean per interval: outside the "all values" range (not flagged)
    counted: np.ndarray  # intervals that count (not flagged)
    compliant: np.ndarray


def deviation_pct(voltage: np.ndarray, reference: float) -> np.ndarray:
    """Deviation of each 10-min value from the reference voltage, percent."""
    if not reference > 0:
        raise ValueError("the reference voltage must be positive")
    return (np.asarray(voltage, dtype=float) / reference - 1.0) * 100.0


def assess(voltage: np.ndarray, reference: float, system: str, flagged: np.ndarray | None = None) -> VariationAssessment:
    """The supply-voltage-variation test of EN 50160 on 10-min values along the last axis.

    ``voltage`` is (…, n) — one period per row; ``flagged`` (same shape, optional) marks intervals
    excluded from the statistic."""
    lim = LIMITS[system]
    dev = deviation_pct(voltage, reference)
    counted = np.ones(dev.shape, dtype=bool) if flagged is None else ~np.asarray(flagged, dtype=bool)
    band = float(lim["band_pct"])
    tol = EDGE * 100.0
    within = (np.abs(dev) <= band + tol) & counted
    n = counted.sum(axis=-1)
    share = np.where(n > 0, 100.0 * within.sum(axis=-1) / np.maximum(n, 1), 100.0)
    outside = ((dev < float(lim["low_all_pct"]) - tol) | (dev > float(lim["high_all_pct"]) + tol)) & counted
    compliant = (share >= float(lim["share_pct"])) & ~outside.any(axis=-1)
    return VariationAssessment(share_within_band_pct=share, outside_all_limits=outside, counted=counted, compliant=compliant)


def weekly(voltage: np.ndarray, reference: float, system: str, flagged: np.ndarray | None = None) -> VariationAssessment:
    """:func:`assess` on every whole week of a long 10-min series (a trailing partial week is left
    out): row w of the result is week w."""
    v = np.asarray(voltage, dtype=float)
    weeks = v.size // INTERVALS_PER_WEEK
    cut = weeks * INTERVALS_PER_WEEK
    f = None if flagged is None else np.asarray(flagged, dtype=bool)[:cut].reshape(weeks, INTERVALS_PER_WEEK)
    return assess(v[:cut].reshape(weeks, INTERVALS_PER_WEEK), reference, system, f)


def ten_minute_rms(values: np.ndarray, per_interval: int) -> np.ndarray:
    """IEC 61000-4-30 aggregation of shorter r.m.s. values into 10-min values: the square root of
    the mean of the squares over each interval (``per_interval`` values each)."""
    v = np.asarray(values, dtype=float)
    m = v.size // per_interval
    return np.sqrt(np.mean(v[:m * per_interval].reshape(m, per_interval) ** 2, axis=1))
