"""The forecast scores of the evaluation kernel (psab.evaluators.forecast), against numbers
worked by hand here (the arithmetic is in each test) and an independent binomial (scipy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.evaluators import forecast as fc


def test_mae_and_capacity_normalized_mae_by_hand() -> None:
    # errors |1-2|, |4-1|, |0-0|, |5-3| = 1, 3, 0, 2 MW → MAE 1.5 MW; capacity 10 MW → 0.15
    f, y = [1.0, 4.0, 0.0, 5.0], [2.0, 1.0, 0.0, 3.0]
    assert fc.mae(f, y) == pytest.approx(1.5)
    assert fc.nmae(f, y, 10.0) == pytest.approx(0.15)
    # per-step capacities 10, 20, 5, 0 (last step left out): (1/10 + 3/20 + 0/5)/3 = 0.08333…
    assert fc.nmae(f, y, [10.0, 20.0, 5.0, 0.0]) == pytest.approx(0.25 / 3)


def test_skill_ratio() -> None:
    assert fc.skill_ratio(0.12, 0.24) == pytest.approx(0.5)
    assert fc.skill_ratio(0.12, 0.0) == math.inf and fc.skill_ratio(0.0, 0.0) == 1.0
    assert fc.skill_ratio(math.nan, 0.1) == 0.0


def test_pinball_by_hand() -> None:
    # τ = 0.9: y − q = +2 → 0.9·2 = 1.8; y − q = −1 → 0.1·1 = 0.1; mean 0.95
    assert fc.pinball([1.0, 3.0], [3.0, 2.0], 0.9) == pytest.approx(0.95)
    # the median's pinball loss is half the absolute error
    assert fc.pinball([1.0, 3.0], [3.0, 2.0], 0.5) == pytest.approx(0.5 * fc.mae([1.0, 3.0], [3.0, 2.0]))


def test_winkler_by_hand() -> None:
    # α = 0.2 (80 % intervals), 2/α = 10:
    # [2, 5] with y = 4 (inside): 3;  [2, 5] with y = 1 (below by 1): 3 + 10 = 13;
    # [0, 1] with y = 1.5 (above by 0.5): 1 + 5 = 6;  mean (3 + 13 + 6)/3 = 7.333…
    assert fc.winkler([2, 2, 0], [5, 5, 1], [4, 1, 1.5], 0.2) == pytest.approx(22 / 3)
    assert fc.hits([2, 2, 0], [5, 5, 1], [4, 1, 1.5]).tolist() == [True, False, False]


def test_binomial_coverage_allowance_by_hand() -> None:
    # n = 10, p = 0.9: P(10) = 0.34868, P(9) = 0.38742, P(8) = 0.19371, P(7) = 0.05740
    # P(X ≤ 7) = 1 − 0.92981 = 0.07019 > 0.05 and P(X ≤ 6) = 0.07019 − 0.05740 = 0.01279 ≤ 0.05
    assert fc.binomial_cdf(7, 10, 0.9) == pytest.approx(0.0701908, abs=1e-6)
    assert fc.binomial_cdf(6, 10, 0.9) == pytest.approx(0.0127952, abs=1e-6)
    rule = fc.coverage_rule(10, 0.9, 0.95)
    assert rule.min_hits == 7 and rule.allowance == pytest.approx(0.2)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 60), p=st.floats(0.5, 0.99), conf=st.floats(0.8, 0.99))
def test_coverage_rule_agrees_with_scipy(n: int, p: float, conf: float) -> None:
    binom = pytest.importorskip("scipy.stats").binom
    rule = fc.coverage_rule(n, p, conf)
    k = rule.min_hits
    # P(X < k) ≤ 1 − conf < P(X < k + 1), or k = n when even n − 1 hits are that rare
    assert binom.cdf(k - 1, n, p) <= 1 - conf + 1e-12
    assert k == n or binom.cdf(k, n, p) > 1 - conf - 1e-12
    assert 0.0 <= rule.min_coverage <= 1.0


@settings(max_examples=60, deadline=None)
@given(data=st.lists(st.tuples(st.floats(0, 10), st.floats(0, 10), st.floats(0, 10)), min_size=1, max_size=30))
def test_interval_score_properties(data: list[tuple[float, float, float]]) -> None:
    a, b, y = (np.array(c) for c in zip(*data, strict=True))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    score = fc.winkler(lo, hi, y, 0.1)
    # never below the mean width, equal to it exactly when every value is covered
    assert score >= float(np.mean(hi - lo)) - 1e-9
    if fc.hits(lo, hi, y).all():
        assert score == pytest.approx(float(np.mean(hi - lo)))
