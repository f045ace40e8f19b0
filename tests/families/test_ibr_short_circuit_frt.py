"""ibr_short_circuit_frt: fixed-point properties, the current limit, caller errors."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import ibr_short_circuit_frt as fam
from psab.paths import case_dir
from psab.surrogates import ibr

FAMILY = "ibr_short_circuit_frt"


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


@settings(max_examples=60, deadline=None)
@given(k=st.floats(0.0, 8.0), db=st.floats(0.0, 0.15), i_max=st.floats(1.0, 1.3), p=st.floats(0.1, 0.95),
       e=st.floats(0.0, 0.9), scr=st.floats(1.5, 20.0), xr=st.floats(1.0, 20.0))
def test_fixed_point_satisfies_the_network_and_the_limit(k, db, i_max, p, e, scr, xr) -> None:  # type: ignore[no-untyped-def]
    """At the solution V − E = Z·I holds as a phasor equation (1e-9), |I| ≤ i_max, and i_q follows the characteristic."""
    inv = ibr.Inverter(i_max_pu=i_max, k_gain=k, deadband_pu=db, u_pre_pu=1.0, p_pre_pu=p, q_pre_pu=0.0)
    r = (1 / scr) / math.sqrt(1 + xr * xr)
    try:
        op = ibr.operating_point(inv, e, r, r * xr)
    except ValueError:
        return
    v = op.u_pcc_pu * complex(math.cos(op.theta_rad), math.sin(op.theta_rad))
    i = complex(op.i_p_pu, -op.i_q_pu) * complex(math.cos(op.theta_rad), math.sin(op.theta_rad))
    assert abs(v - e - complex(r, r * xr) * i) < 1e-9
    assert op.i_total_pu <= i_max + 1e-12
    cmd = k * max(1.0 - op.u_pcc_pu - db, 0.0)
    assert op.i_q_pu == pytest.approx(min(cmd, i_max), abs=1e-9)


def test_more_gain_raises_the_voltage_and_squeezes_active_current() -> None:
    base = dict(i_max_pu=1.1, deadband_pu=0.1, u_pre_pu=1.0, p_pre_pu=0.9, q_pre_pu=0.0)
    ops = [ibr.operating_point(ibr.Inverter(k_gain=k, **base), 0.3, 0.01, 0.15) for k in (0.0, 1.0, 2.0, 4.0, 8.0)]
    us = [o.u_pcc_pu for o in ops]
    ips = [o.i_p_pu for o in ops]
    assert all(a <= b + 1e-12 for a, b in zip(us, us[1:], strict=False))
    assert all(a >= b - 1e-12 for a, b in zip(ips, ips[1:], strict=False))


def test_level_two_data_reduce_to_the_per_unit_case() -> None:
    """A plant of n units in MW and a grid as S″k, X/R give the same answer as the per-unit case."""
    drawn = fam.generate(_public(), np.random.default_rng(7), level=2).public_inputs
    inv, e, r, x = fam.per_unit(drawn)
    sp = drawn["plant"]["n_units"] * drawn["plant"]["unit_mva"]
    assert math.hypot(r, x) == pytest.approx(sp / drawn["grid"]["skss_mva"])
    assert inv.p_pre_pu == pytest.approx(drawn["plant"]["p_pre_mw"] / sp)


def test_naive_deadband_reading_scores_zero_on_the_public_case() -> None:
    task = _public()
    assert psab.evaluate(task, {"answer": fam.naive_answer(task)}, "surrogate").score == 0


@pytest.mark.parametrize(("path", "value", "named"), [
    (("control", "i_max_pu"), 0.0, "i_max_pu"),
    (("control", "k_gain"), -1.0, "k_gain"),
    (("grid", "x_pu"), 0.0, "grid/x_pu"),
    (("control", "p_pre_pu"), 1.5, "p_pre_pu"),
    (("u_pre_pu",), float("nan"), "u_pre_pu"),
])
def test_unposable_cases_raise_naming_the_field(path, value, named) -> None:  # type: ignore[no-untyped-def]
    inputs = copy.deepcopy(_public().public_inputs)
    if path == ("grid", "x_pu"):
        inputs["grid"]["r_pu"] = 0.0
    target = inputs
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = value
    with pytest.raises(InvalidTaskError, match=named):
        fam.operating(inputs)


def test_expert_statement_names_the_standards_and_choices_without_the_guided_formulas() -> None:
    """Issue 33's rule for expert statements (standard, clause, quantity, the case's choices, no
    formula): the expert text repeated the guided conventions with their formulas."""
    task = psab.load_case(case_dir("ibr_short_circuit_frt"))
    for lang in ("en", "ru"):
        expert = task.presentation[lang]["expert_statement"]
        assert "10.2.3.2" in expert and "7.2.2.3" in expert
        assert "i_q,cmd" not in expert and "√(i_max²" not in expert and "V = E + Z·I" not in expert
        assert len(expert) < len(task.presentation[lang]["statement"])
