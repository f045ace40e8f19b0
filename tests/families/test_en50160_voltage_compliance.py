"""en50160_voltage_compliance: the EN 50160 kernel's properties, conventions and bad input."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import en50160_voltage_compliance as F
from psab.paths import case_dir, golden_root
from psab.surrogates import en50160 as en


def _public() -> psab.Task:
    return psab.load_case(case_dir(F.FAMILY_ID))


@settings(max_examples=40)
@given(seed=st.integers(0, 10_000), scale=st.floats(0.01, 100.0), system=st.sampled_from(["LV", "MV"]))
def test_the_verdict_depends_on_per_unit_values_only(seed: int, scale: float, system: str) -> None:
    rng = np.random.default_rng(seed)
    v = 230.0 * (1 + rng.normal(0.0, 0.06, en.INTERVALS_PER_WEEK))
    a = en.assess(v, 230.0, system)
    b = en.assess(v * scale, 230.0 * scale, system)
    assert 0.0 <= float(a.share_within_band_pct) <= 100.0
    assert np.array_equal(a.outside_all_limits, b.outside_all_limits) and bool(a.compliant) == bool(b.compliant)
    assert float(a.share_within_band_pct) == pytest.approx(float(b.share_within_band_pct))


@settings(max_examples=20)
@given(seed=st.integers(0, 10_000), weeks=st.integers(1, 6))
def test_weekly_equals_week_by_week(seed: int, weeks: int) -> None:
    rng = np.random.default_rng(seed)
    v = 230.0 * (1 + rng.normal(0.0, 0.05, weeks * en.INTERVALS_PER_WEEK + 17))
    w = en.weekly(v, 230.0, "LV")
    for k in range(weeks):
        one = en.assess(v[k * en.INTERVALS_PER_WEEK:(k + 1) * en.INTERVALS_PER_WEEK], 230.0, "LV")
        assert float(one.share_within_band_pct) == pytest.approx(float(w.share_within_band_pct[k]))
        assert bool(one.compliant) == bool(w.compliant[k])


def test_limits_are_inclusive_and_asymmetric_for_lv() -> None:
    """4.2.2: 253 V (+10 %) and 195.5 V (−15 %) are within their ranges; 195.5 V and 196 V lie outside ± 10 %."""
    v = np.array([253.0, 195.5, 196.0, 230.0])
    a = en.assess(v, 230.0, "LV")
    assert not a.outside_all_limits.any()
    assert float(a.share_within_band_pct) == pytest.approx(50.0)  # 253 and 230 in; 195.5 and 196 below −10 %
    assert en.assess(np.array([253.1]), 230.0, "LV").outside_all_limits.all()
    assert not en.assess(np.array([253.1]), 230.0, "MV").outside_all_limits.any()  # MV: ± 15 %


def test_ten_minute_rms_aggregation() -> None:
    """IEC 61000-4-30 5.5: 10-min value = sqrt(mean of squares) — 200 V and 260 V halves give 231.95 V, not 230."""
    v = np.array([200.0] * 5 + [260.0] * 5)
    assert en.ten_minute_rms(v, 10)[0] == pytest.approx(float(np.sqrt((200.0**2 + 260.0**2) / 2)))


def test_naive_reading_fails_the_declared_voltage_case() -> None:
    task = psab.load_case(golden_root() / F.FAMILY_ID / "hand_mv_declared_flagged")
    result = psab.evaluate(task, {"answer": F.naive_answer(task)})
    assert not result.feasible and result.score == 0.0


def _with(change) -> psab.Task:  # type: ignore[no-untyped-def]
    task = _public()
    inputs = copy.deepcopy(task.public_inputs)
    change(inputs)
    return psab.get_family(F.FAMILY_ID).make_task(task_id="bad", split="public", public_inputs=inputs)


def _swap(i: dict) -> None:
    ts = i["timestamps"]
    ts[10], ts[11] = ts[11], ts[10]


def _gap(i: dict) -> None:
    i["timestamps"] = i["timestamps"][:500] + [i["timestamps"][501]] + i["timestamps"][501:]
    i["timestamps"] = i["timestamps"][:500] + i["timestamps"][501:] + ["2030-01-01T00:00:00Z"]


@pytest.mark.parametrize(("change", "field"), [
    (_swap, "/timestamps/11"),
    (lambda i: i["timestamps"].__setitem__(200, i["timestamps"][199]), "/timestamps/200"),
    (_gap, "/timestamps/500"),
    (lambda i: i.__setitem__("nominal_voltage", 0.0), "/nominal_voltage"),
    (lambda i: i["phases"]["L1"].__setitem__(7, -230.0), "/phases/L1/7"),
])
def test_impossible_cases_name_the_field(change, field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidTaskError, match=field):
        psab.solve(_with(change))
