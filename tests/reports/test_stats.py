"""Bootstrap intervals: properties that could fail, and the paired difference's bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.reports.stats import bootstrap_mean, paired_difference

scores = st.lists(st.floats(min_value=0.0, max_value=1.0, allow_nan=False), min_size=1, max_size=60)


@settings(max_examples=150, deadline=None)
@given(scores, st.integers(min_value=0, max_value=2**31))
def test_interval_contains_the_mean_and_stays_in_the_data_range(values: list[float], seed: int) -> None:
    iv = bootstrap_mean(values, resamples=400, seed=seed)
    assert iv.mean == pytest.approx(float(np.mean(values)))
    assert min(values) - 1e-12 <= iv.low <= iv.mean + 1e-12
    assert iv.mean - 1e-12 <= iv.high <= max(values) + 1e-12
    assert iv.n == len(values)


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), st.integers(min_value=1, max_value=200))
def test_all_equal_data_gives_a_zero_width_interval(value: float, n: int) -> None:
    iv = bootstrap_mean([value] * n)
    assert iv.low == iv.high == iv.mean
    assert iv.width == 0.0


@given(scores, st.integers(min_value=0, max_value=1000))
def test_seeded_is_deterministic(values: list[float], seed: int) -> None:
    a = bootstrap_mean(values, resamples=300, seed=seed)
    b = bootstrap_mean(values, resamples=300, seed=seed)
    assert a == b


def test_interval_narrows_with_more_cases() -> None:
    rng = np.random.default_rng(1)
    small = rng.random(10)
    big = np.tile(small, 20)  # same spread, 20 times the cases: about 1/sqrt(20) the width
    w_small = bootstrap_mean(small).width
    w_big = bootstrap_mean(big).width
    assert 0 < w_big < w_small / 3


def test_interval_matches_the_normal_approximation_on_a_large_sample() -> None:
    # For the mean of many independent scores, the percentile interval approaches
    # mean ± 1.96 s / sqrt(n) (central limit theorem).
    rng = np.random.default_rng(7)
    x = rng.random(2000)
    iv = bootstrap_mean(x, resamples=4000)
    half = 1.959964 * x.std(ddof=0) / np.sqrt(x.size)
    assert iv.low == pytest.approx(x.mean() - half, abs=0.15 * half)
    assert iv.high == pytest.approx(x.mean() + half, abs=0.15 * half)


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=40))
def test_paired_difference_bookkeeping(pairs: list[tuple[float, float]]) -> None:
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    pr = paired_difference(a, b, names=("A", "B"), resamples=200)
    assert pr.wins + pr.ties + pr.losses == len(pairs)
    assert pr.wins == sum(x - y > 1e-9 for x, y in pairs)
    assert pr.losses == sum(y - x > 1e-9 for x, y in pairs)
    assert pr.diff.low <= pr.diff.mean + 1e-12 <= pr.diff.high + 2e-12
    same = paired_difference(a, a, resamples=200)
    assert same.diff.low == same.diff.high == 0.0 and same.ties == len(a)


def test_bad_arguments_raise() -> None:
    with pytest.raises(ValueError):
        bootstrap_mean([])
    with pytest.raises(ValueError):
        bootstrap_mean([1.0], confidence=1.0)
    with pytest.raises(ValueError):
        paired_difference([1.0], [1.0, 2.0])
