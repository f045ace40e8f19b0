"""frt_compliance: envelope and verdict properties, RfG tables, caller errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import frt_compliance as fam
from psab.paths import case_dir
from psab.surrogates import frt

FAMILY = "frt_compliance"


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def test_rfg_type_d_ppm_envelope_is_the_regulation_profile() -> None:
    """RfG Table 7.2 (PPM type D) with t_clear 0.15 s, t_rec3 1.5 s: 0 pu until 0.15 s, then a ramp to
    0.85 pu at 1.5 s — at 0.825 s half-way, 0.425 pu."""
    pts = frt.rfg_envelope(_public().public_inputs["grid_code"]["parameters"])
    got = frt.envelope_at(pts, np.array([0.0, 0.1, 0.15, 0.825, 1.5]))
    assert got == pytest.approx([0.0, 0.0, 0.0, 0.425, 0.85])


def test_vertical_step_is_right_continuous() -> None:
    pts = [(0.0, 0.0), (0.15, 0.0), (0.15, 0.25), (0.45, 0.5)]
    assert frt.envelope_at(pts, np.array([0.1499, 0.15]))[1] == pytest.approx(0.25)
    assert frt.envelope_at(pts, np.array([0.1499]))[0] == pytest.approx(0.0)


@settings(max_examples=50, deadline=None)
@given(lift=st.floats(0.0, 0.5), seed=st.integers(0, 10_000))
def test_raising_the_profile_never_breaks_compliance_of_a_unit_that_complied(lift: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    _, par = fam.draw_parameters(rng)
    pts = frt.rfg_envelope(par)
    t, u = fam.draw_profile(rng, pts[-1][0])
    base = frt.assess(pts, t, u, None)
    higher = frt.assess(pts, t, u + lift, None)
    assert higher.min_margin_pu == pytest.approx(base.min_margin_pu + lift)
    assert higher.compliant and base.compliant  # no trip: always compliant
    if not base.left_envelope:
        assert not higher.left_envelope
    trip = float(rng.uniform(0.0, pts[-1][0]))
    if frt.assess(pts, t, u, trip).compliant is False:
        # a trip while obliged stays a trip while obliged when the voltage is higher
        assert frt.assess(pts, t, u + lift, trip).compliant is False


def test_level_two_takes_the_lowest_phase_to_phase_voltage() -> None:
    drawn = fam.generate(_public(), np.random.default_rng(3), level=2).public_inputs
    t, u = fam.profile(drawn)
    p = drawn["profile"]
    low = np.minimum(np.minimum(p["u_ab_kv"], p["u_bc_kv"]), p["u_ca_kv"]) / drawn["u_n_kv"]
    assert u == pytest.approx(low)


def test_naive_reading_differs_on_level_two_draws() -> None:
    misses = 0
    for i in range(10):
        task = psab.generate(FAMILY, 20261130, i, level=2)
        misses += psab.evaluate(task, {"answer": fam.naive_answer(task)}, "surrogate").score < 1
    assert misses >= 3


def test_envelope_not_monotone_in_time_is_a_caller_error() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["envelope"][3]["t_s"] = 0.1
    with pytest.raises(InvalidTaskError, match="envelope/3/t_s"):
        fam.verdict(inputs)


def test_profile_sampled_out_of_order_is_a_caller_error() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    t = inputs["profile"]["t_s"]
    t[20], t[21] = t[21], t[20]
    with pytest.raises(InvalidTaskError, match="profile/t_s/21"):
        fam.verdict(inputs)


def test_profile_length_mismatch_is_a_caller_error() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["profile"]["u_pu"].pop()
    with pytest.raises(InvalidTaskError, match="profile/u_pu"):
        fam.verdict(inputs)


def test_trip_before_the_fault_is_a_caller_error() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["trip_time_s"] = -0.05
    with pytest.raises(InvalidTaskError, match="trip_time_s"):
        fam.verdict(inputs)


def test_rfg_tables_carry_the_alternative_clearing_time_range() -> None:
    """Regulation (EU) 2016/631 Tables 3.2, 7.1 and 7.2: t_clear 0.14–0.15 s "(or 0.14–0.25 if
    system protection and secure operation so require)" — issue 33: the alternative was missing;
    the draws now use it too (some held-out draw clears later than 0.15 s)."""
    from psab.families import frt_compliance as fam

    for kind, table in fam.RFG_TABLES.items():
        assert table["ranges"]["t_clear_s"] == [0.14, 0.15], kind
        assert table["ranges"]["t_clear_s_if_system_protection_requires"] == [0.14, 0.25], kind
    drawn = {fam.draw_parameters(np.random.default_rng([7, i]))[1]["t_clear_s"] for i in range(60)}
    assert drawn <= {0.14, 0.15, 0.2, 0.25} and max(drawn) == 0.25
