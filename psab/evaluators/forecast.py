"""Scores of forecasts against a realized series, for every ``forecast`` family.

The realized series lives only in a task's key (``cases/<id>/key.json``, ``Generated.key``);
these functions see it as a plain array. All are pure (math + numpy) and never raise for finite
inputs of equal length; a forecast family turns them into ``Assessment.skill``.

Sources:
- MAE and its normalization by installed capacity: H. Madsen, P. Pinson, G. Kariniotakis,
  H. A. Nielsen, T. S. Nielsen, *Standardizing the performance evaluation of short-term wind
  power prediction models*, Wind Engineering 29(6), 475-489, 2005, §3 (NMAE, eq. 5, and skill
  against a reference model, eq. 9).
- Pinball (quantile) loss and the interval score: T. Gneiting, A. E. Raftery, *Strictly proper
  scoring rules, prediction, and estimation*, JASA 102(477), 359-378, 2007, eq. (40) (quantile
  score) and §6.2, eq. (43) (interval score, R. L. Winkler, JASA 67, 187-191, 1972).
- The coverage allowance: the one-sided lower critical value of the binomial distribution
  (a calibrated interval of nominal coverage p hits each of n independent hours with
  probability p; fewer than ``k`` hits happen with probability at most ``1 - confidence``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ArrayLike = Sequence[float] | np.ndarray


def mae(forecast: ArrayLike, realized: ArrayLike) -> float:
    """Mean absolute error, in the unit of the series."""
    f, y = np.asarray(forecast, float), np.asarray(realized, float)
    return float(np.mean(np.abs(f - y))) if f.size else 0.0


def nmae(forecast: ArrayLike, realized: ArrayLike, capacity: float | ArrayLike) -> float:
    """MAE normalized by installed capacity (Madsen et al. 2005, eq. 5): mean of |f − y| / C.

    ``capacity`` may be one number or one per step (a farm whose available capacity changes);
    a non-positive capacity step is left out.
    """
    f, y = np.asarray(forecast, float), np.asarray(realized, float)
    c = np.broadcast_to(np.asarray(capacity, float), f.shape)
    ok = c > 0
    if not ok.any():
        return 0.0
    return float(np.mean(np.abs(f[ok] - y[ok]) / c[ok]))


def skill_ratio(reference_error: float, answer_error: float) -> float:
    """The skill of an answer against the reference method: ``reference_error / answer_error``
    (1 when the answer's error equals the reference's, above 1 when it is better; the kernel
    caps the score at 1). An error-free answer has skill 1 (or more); nothing here raises."""
    if not (math.isfinite(reference_error) and math.isfinite(answer_error)):
        return 0.0
    if answer_error <= 0.0:
        return 1.0 if reference_error <= 0.0 else math.inf
    return reference_error / answer_error


def pinball(quantile_forecast: ArrayLike, realized: ArrayLike, tau: float) -> float:
    """Mean pinball (quantile) loss of a τ-quantile forecast q: mean of
    ``(y − q)·τ`` where y ≥ q and ``(q − y)·(1 − τ)`` where y < q (Gneiting & Raftery 2007,
    eq. 40, halved convention: the loss of the median is half the absolute error)."""
    q, y = np.asarray(quantile_forecast, float), np.asarray(realized, float)
    d = y - q
    return float(np.mean(np.where(d >= 0, tau * d, (tau - 1.0) * d))) if q.size else 0.0


def winkler(lower: ArrayLike, upper: ArrayLike, realized: ArrayLike, alpha: float) -> float:
    """Mean interval (Winkler) score of central (1 − α) intervals [l, u] (Gneiting & Raftery
    2007, eq. 43): ``(u − l) + (2/α)(l − y)·1{y < l} + (2/α)(y − u)·1{y > u}``; lower is better."""
    lo, hi, y = (np.asarray(a, float) for a in (lower, upper, realized))
    if not lo.size:
        return 0.0
    s = (hi - lo) + (2.0 / alpha) * np.maximum(lo - y, 0.0) + (2.0 / alpha) * np.maximum(y - hi, 0.0)
    return float(np.mean(s))


def hits(lower: ArrayLike, upper: ArrayLike, realized: ArrayLike, slack: float = 0.0) -> np.ndarray:
    """Per step, whether the realized value lies in [l − slack, u + slack]."""
    lo, hi, y = (np.asarray(a, float) for a in (lower, upper, realized))
    return (y >= lo - slack) & (y <= hi + slack)


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X ≤ k) for X ~ Binomial(n, p), summed exactly (n is a forecast horizon: tens of steps)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return float(sum(math.comb(n, i) * p**i * (1.0 - p) ** (n - i) for i in range(k + 1)))


@dataclass(frozen=True)
class CoverageRule:
    """The sample-size allowance of an empirical-coverage check.

    ``min_hits`` is the largest k with P(X < k) ≤ 1 − confidence for X ~ Binomial(n, nominal):
    an interval whose true coverage is the nominal one falls short of it with probability at most
    1 − confidence. ``allowance = nominal − min_hits / n``.
    """

    n: int
    nominal: float
    confidence: float
    min_hits: int

    @property
    def min_coverage(self) -> float:
        return self.min_hits / self.n if self.n else 0.0

    @property
    def allowance(self) -> float:
        return self.nominal - self.min_coverage


def coverage_rule(n: int, nominal: float, confidence: float = 0.95) -> CoverageRule:
    """:class:`CoverageRule` for ``n`` steps at ``nominal`` coverage, with a one-sided binomial
    lower bound at ``confidence``."""
    delta = 1.0 - confidence
    k = 0
    while k < n and binomial_cdf(k, n, nominal) <= delta:  # P(X ≤ k) = P(X < k + 1)
        k += 1
    return CoverageRule(n=n, nominal=nominal, confidence=confidence, min_hits=k)
