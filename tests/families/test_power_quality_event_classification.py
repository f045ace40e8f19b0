"""power_quality_event_classification: IEC 61000-4-30 detection properties, scoring, bad input."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import power_quality_event_classification as F
from psab.paths import case_dir
from psab.surrogates import iec61000_4_30 as pq

TH = {"dip_pct": 90.0, "swell_pct": 110.0, "interruption_pct": 5.0, "hysteresis_pct": 2.0}


def _public() -> psab.Task:
    return psab.load_case(case_dir(F.FAMILY_ID))


@settings(max_examples=40)
@given(seed=st.integers(0, 10_000), level=st.sampled_from([1, 2]))
def test_events_are_well_formed_and_hysteresis_only_lengthens(seed: int, level: int) -> None:
    rng = np.random.default_rng(seed)
    th = {"dip": 90.0, "swell": 110.0, "interruption": 5.0, "hysteresis": 2.0}
    u = F.synthesize(rng, level, th)
    with_h = pq.detect(u, **TH)
    without = pq.detect(u, **(TH | {"hysteresis_pct": 0.0}))
    for e in with_h:
        assert 0 <= e.start < e.end <= u.shape[1]
        window = u[:, e.start:e.end]
        if e.kind == "dip":
            assert e.magnitude_pct < 90.0 and e.magnitude_pct == pytest.approx(float(window.min()))
        if e.kind == "swell":
            assert e.magnitude_pct > 110.0
    # every event without hysteresis starts where one with hysteresis starts or lies inside one of the same kind
    for e in without:
        assert any(h.kind == e.kind and h.start <= e.start and e.end <= h.end for h in with_h)


def test_a_single_channel_dip_is_a_polyphase_dip() -> None:
    """5.4.2.2: one channel below the threshold starts the dip; it ends only when every channel has recovered."""
    u = np.full((3, 12), 100.0)
    u[0, 3:5] = 50.0
    u[2, 4:8] = 91.0  # L3 lingers in the hysteresis band after L1 recovered
    (dip,) = pq.detect(u, **TH)
    assert (dip.kind, dip.start, dip.end, dip.magnitude_pct) == ("dip", 3, 8, 50.0)


def test_an_interruption_needs_every_channel() -> None:
    u = np.full((3, 10), 100.0)
    u[:2, 3:6] = 1.0  # two of three phases lost: a dip, not an interruption
    assert [e.kind for e in pq.detect(u, **TH)] == ["dip"]


def test_scoring_counts_misses_and_false_alarms() -> None:
    task = _public()
    ref = psab.solve(task).answer["events"]
    extra = {"type": "swell", "start_ms": ref[-1]["start_ms"] + 10.0, "duration_ms": 20.0, "magnitude_pct": 111.0}
    events = sorted(ref[1:] + [extra], key=lambda e: (e["start_ms"], pq.KINDS.index(e["type"])))
    result = psab.evaluate(task, {"answer": {"events": events}})
    assert result.score == pytest.approx((len(ref) - 1) / (len(ref) + 1))
    naive = psab.evaluate(task, {"answer": F.naive_answer(task)})
    assert naive.score < 1.0


def _with(change) -> psab.Task:  # type: ignore[no-untyped-def]
    inputs = copy.deepcopy(_public().public_inputs)
    change(inputs)
    return psab.get_family(F.FAMILY_ID).make_task(task_id="bad", split="public", public_inputs=inputs)


@pytest.mark.parametrize(("change", "field"), [
    (lambda i: i.__setitem__("declared_voltage_v", 0.0), "/declared_voltage_v"),
    (lambda i: i["channels"]["L1"].__setitem__(5, -3.0), "/channels/L1/5"),
    (lambda i: i["thresholds_pct"].__setitem__("dip", 120.0), "/thresholds_pct"),
    (lambda i: i.__setitem__("half_cycle_ms", 8.0), "/half_cycle_ms"),
])
def test_impossible_cases_name_the_field(change, field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidTaskError, match=field):
        psab.solve(_with(change))
