"""dispatch_uncertainty: golden reserve schedule and properties of the vertex robustness check."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.paths import case_dir

from conftest import need_highs

FAMILY = "dispatch_uncertainty"


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def _variant(inputs: dict) -> psab.Task:
    return psab.get_family(FAMILY).make_task(task_id="variant", split="public", public_inputs=inputs)


def _redispatch_exists(answer: dict, inputs: dict, t: int, net: float) -> bool:
    """Is there a re-dispatch of step t within the reserved ranges that meets ``net``? Found
    by filling the ranges greedily from their bottoms — independent of the evaluator's rows."""
    lows = [answer["schedule"][t][u["id"]]["p_mw"] - answer["schedule"][t][u["id"]]["r_down_mw"] for u in inputs["units"]]
    highs = [answer["schedule"][t][u["id"]]["p_mw"] + answer["schedule"][t][u["id"]]["r_up_mw"] for u in inputs["units"]]
    need = net - sum(lows)
    if need < -1e-6:
        return False
    for lo, hi in zip(lows, highs, strict=True):
        need -= min(hi - lo, max(need, 0.0))
    return need <= 1e-6


def test_every_corner_of_the_public_reference_can_be_rebalanced() -> None:
    need_highs()
    task = _public()
    inputs = task.public_inputs
    answer = psab.solve(task).answer
    for t in range(len(inputs["load_mw"])):
        for load, res in itertools.product((inputs["load_lower_mw"][t], inputs["load_upper_mw"][t]),
                                           (inputs["renewable_lower_mw"][t], inputs["renewable_upper_mw"][t])):
            assert _redispatch_exists(answer, inputs, t, load - res), (t, load, res)


@settings(max_examples=40, deadline=None)
@given(t=st.integers(0, 23), unit=st.sampled_from(["G1", "G2", "G3", "G4"]), cut=st.floats(0.5, 5.0))
def test_cutting_reserve_below_a_binding_corner_is_caught(t: int, unit: str, cut: float) -> None:
    """Lower one unit's up-reserve: the evaluator finds a violation exactly when some corner
    can no longer be rebalanced (checked independently by greedy filling) or a limit breaks."""
    need_highs()
    task = _public()
    inputs = task.public_inputs
    answer = copy.deepcopy(psab.solve(task).answer)
    step = answer["schedule"][t][unit]
    if step["r_up_mw"] < cut:
        return
    step["r_up_mw"] -= cut
    result = psab.evaluate(task, {"answer": answer})
    worst = inputs["load_upper_mw"][t] - inputs["renewable_lower_mw"][t]
    assert result.feasible == _redispatch_exists(answer, inputs, t, worst)
    if result.feasible:  # less reserve held and still feasible: never happens at an optimum
        pytest.fail("a cheaper feasible schedule exists: the reference is not optimal")


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_objective_is_energy_plus_reserve_cost(data: st.DataObject) -> None:
    need_highs()
    task = _public()
    inputs = task.public_inputs
    answer = copy.deepcopy(psab.solve(task).answer)
    for step in answer["schedule"]:
        for u in step.values():
            if data.draw(st.booleans()):
                u["r_up_mw"] = data.draw(st.floats(0.0, 20.0))
    units = {u["id"]: u for u in inputs["units"]}
    dt = inputs["step_minutes"] / 60.0
    expected = sum(dt * (units[i]["energy_cost_per_mwh"] * x["p_mw"] + units[i]["reserve_up_cost_per_mw_h"] * x["r_up_mw"]
                         + units[i]["reserve_down_cost_per_mw_h"] * x["r_down_mw"])
                   for step in answer["schedule"] for i, x in step.items())
    assert psab.evaluate(task, {"answer": answer}).evidence["objective"] == pytest.approx(expected, rel=1e-9)


@settings(max_examples=8, deadline=None)
@given(widen=st.floats(1.0, 1.5))
def test_a_wider_uncertainty_box_never_costs_less(widen: float) -> None:
    need_highs()
    task = _public()
    inputs = copy.deepcopy(task.public_inputs)
    for mid, lo, hi in (("load_mw", "load_lower_mw", "load_upper_mw"), ("renewable_mw", "renewable_lower_mw", "renewable_upper_mw")):
        m = np.asarray(inputs[mid])
        inputs[lo] = (m - widen * (m - np.asarray(inputs[lo]))).tolist()
        inputs[hi] = (m + widen * (np.asarray(inputs[hi]) - m)).tolist()
    wider = _variant(inputs)
    base = psab.evaluate(task, psab.solve(task)).evidence["objective"]
    assert psab.evaluate(wider, psab.solve(wider)).evidence["objective"] >= base - 1e-6


@settings(max_examples=8, deadline=None)
@given(lam=st.floats(0.2, 5.0))
def test_scaling_every_price_scales_the_optimum(lam: float) -> None:
    need_highs()
    task = _public()
    inputs = copy.deepcopy(task.public_inputs)
    for u in inputs["units"]:
        for k in ("energy_cost_per_mwh", "reserve_up_cost_per_mw_h", "reserve_down_cost_per_mw_h"):
            u[k] *= lam
    scaled = _variant(inputs)
    base = psab.evaluate(task, psab.solve(task)).evidence["objective"]
    assert psab.evaluate(scaled, psab.solve(scaled)).evidence["objective"] == pytest.approx(lam * base, rel=1e-6)


def test_with_no_uncertainty_no_reserve_is_bought() -> None:
    need_highs()
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["load_lower_mw"] = inputs["load_upper_mw"] = inputs["load_mw"]
    inputs["renewable_lower_mw"] = inputs["renewable_upper_mw"] = inputs["renewable_mw"]
    task = _variant(inputs)
    answer = psab.solve(task).answer
    assert sum(u["r_up_mw"] + u["r_down_mw"] for st_ in answer["schedule"] for u in st_.values()) == pytest.approx(0.0, abs=1e-6)
