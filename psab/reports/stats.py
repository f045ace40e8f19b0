"""Uncertainty of run aggregates: percentile bootstrap over cases, and paired differences.

Method (stated in every report that shows an interval):

- the unit of resampling is a *case* (a split's task, identified by its digest); when an agent
  ran a case several times (several runs given to ``psab report``) its score on that case is
  the mean of those runs, so repeated runs narrow the per-case noise but never inflate ``n``;
- ``resamples`` (default 2000) resamples of the ``n`` cases are drawn with replacement from a
  generator seeded with ``seed`` (default 0), so a report is reproducible bit for bit;
- the interval is the percentile interval: the ``(1 - confidence) / 2`` and
  ``(1 + confidence) / 2`` quantiles of the resampled means (Efron & Tibshirani, *An
  Introduction to the Bootstrap*, 1993, ch. 13);
- for two agents on the same cases, the per-case differences ``a - b`` are resampled the same
  way (a paired bootstrap), and wins / ties / losses count cases where ``a`` scored higher,
  equal (within :data:`TIE`), or lower.

With few cases the percentile bootstrap is too narrow (it cannot see variation the sample does
not contain, and ``n`` cases have only ``C(2n-1, n)`` distinct resamples); :data:`FEW_CASES`
is the threshold below which reports say so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Default number of bootstrap resamples.
RESAMPLES = 2000
#: Default confidence level of the intervals.
CONFIDENCE = 0.95
#: Default seed of the resampling generator.
SEED = 0
#: Below this many cases an interval is shown with a warning that it means little.
FEW_CASES = 10
#: Two scores closer than this are a tie.
TIE = 1e-9


@dataclass(frozen=True)
class Interval:
    """A mean with its percentile-bootstrap interval."""

    mean: float
    low: float
    high: float
    n: int
    resamples: int
    confidence: float

    @property
    def width(self) -> float:
        return self.high - self.low

    @property
    def few(self) -> bool:
        """Too few cases for the interval to mean much."""
        return self.n < FEW_CASES

    def text(self, digits: int = 3) -> str:
        return f"[{self.low:.{digits}f}, {self.high:.{digits}f}]"


@dataclass(frozen=True)
class Paired:
    """Agent ``a`` against agent ``b`` on the same cases."""

    a: str
    b: str
    diff: Interval
    wins: int
    ties: int
    losses: int


def bootstrap_mean(values: Sequence[float], *, resamples: int = RESAMPLES, confidence: float = CONFIDENCE,
                   seed: int = SEED) -> Interval:
    """The mean of ``values`` and its percentile-bootstrap interval (module docstring).

    Raises ``ValueError`` for an empty sample, a confidence outside (0, 1) or fewer than one
    resample; a single value gives a zero-width interval at that value.
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("bootstrap_mean needs a non-empty one-dimensional sample")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must lie strictly between 0 and 1")
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    n = int(x.size)
    mean = float(x.mean())
    if np.all(x == x[0]):
        # Every resample is the same multiset: the interval is the point (exactly, without
        # relying on floating-point sums of identical values reproducing the value).
        return Interval(mean, mean, mean, n, resamples, confidence)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    # In blocks, so that 2000 resamples of a few thousand cases stay within a few MB.
    block = max(1, min(resamples, 2_000_000 // n))
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = x[idx].mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return Interval(mean, float(low), float(high), n, resamples, confidence)


def paired_difference(a: Sequence[float], b: Sequence[float], *, names: tuple[str, str] = ("a", "b"),
                      resamples: int = RESAMPLES, confidence: float = CONFIDENCE, seed: int = SEED) -> Paired:
    """Mean of ``a - b`` over paired cases with its bootstrap interval, and win/tie/loss counts."""
    xa = np.asarray(a, dtype=float)
    xb = np.asarray(b, dtype=float)
    if xa.shape != xb.shape:
        raise ValueError("paired samples must have the same length")
    d = xa - xb
    d = np.where(np.abs(d) <= TIE, 0.0, d)
    interval = bootstrap_mean(d, resamples=resamples, confidence=confidence, seed=seed)
    return Paired(names[0], names[1], interval, int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
