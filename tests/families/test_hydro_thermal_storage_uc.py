"""hydro_thermal_storage_uc: the golden optimum by exhaustive enumeration, and properties of the
commitment rules as the evaluator applies them."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.golden import load_golden
from psab.paths import case_dir, golden_dirs

from conftest import need_highs

FAMILY = "hydro_thermal_storage_uc"


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def _golden() -> psab.Task:
    return load_golden(golden_dirs(FAMILY)[0]).task


def _pattern_allowed(states: tuple[int, ...], initial_on: bool, initial_hours: int, up: int, down: int) -> bool:
    """Minimum up/down times over the day, counting the hours in the state before it."""
    run_state, run_len = (1 if initial_on else 0), initial_hours
    for s in states:
        if s == run_state:
            run_len += 1
            continue
        if run_len < (up if run_state else down):
            return False
        run_state, run_len = s, 1
    return True  # the last run may continue past the horizon


def _enumerated_optimum(inputs: dict) -> float:
    """Every on/off pattern × hydro in 10 MW steps × battery power in 10 MW steps, thermal
    dispatched by merit order — written without the family's formulation."""
    demand = np.asarray(inputs["demand_mw"], float)
    T = len(demand)
    units = inputs["thermal_units"]
    h, b = inputs["hydro"], inputs["storage"]
    assert inputs["step_minutes"] == 60 and b["eta_charge"] == b["eta_discharge"] == 1.0 and not any(h["inflow_m3s"])
    water_mwh = h["volume_initial_hm3"] / 0.0036 * h["mw_per_m3s"]
    hydro_levels = np.arange(0.0, h["turbine_max_m3s"] * h["mw_per_m3s"] + 1e-9, 10.0)
    bat_levels = np.arange(-b["p_charge_max_mw"], b["p_discharge_max_mw"] + 1e-9, 10.0)
    hydro = np.array(list(itertools.product(hydro_levels, repeat=T)))
    hydro = hydro[hydro.sum(axis=1) <= water_mwh + 1e-9]
    bat = np.array(list(itertools.product(bat_levels, repeat=T)))
    soc = b["soc_initial_mwh"] - np.cumsum(bat, axis=1)
    bat = bat[((soc >= b["soc_min_mwh"] - 1e-9) & (soc <= b["soc_max_mwh"] + 1e-9)).all(axis=1)
              & (soc[:, -1] >= b["soc_terminal_min_mwh"] - 1e-9)]
    net = (hydro[:, None, :] + bat[None, :, :]).reshape(-1, T)  # every hydro × battery combination
    thermal_need = demand[None, :] - net
    order = sorted(range(len(units)), key=lambda g: units[g]["marginal_cost_per_mwh"])
    best = np.inf
    for pattern in itertools.product((0, 1), repeat=len(units) * T):
        on = np.array(pattern).reshape(len(units), T)
        if not all(_pattern_allowed(tuple(on[g]), u["initial_on"], u["initial_hours_in_state"], u["min_up_h"], u["min_down_h"])
                   for g, u in enumerate(units)):
            continue
        fixed = 0.0
        for g, u in enumerate(units):
            prev = np.concatenate([[1 if u["initial_on"] else 0], on[g][:-1]])
            fixed += u["no_load_cost_per_h"] * on[g].sum() + u["startup_cost"] * np.maximum(on[g] - prev, 0).sum()
        lo = sum(on[g] * units[g]["p_min_mw"] for g in range(len(units)))
        hi = sum(on[g] * units[g]["p_max_mw"] for g in range(len(units)))
        ok = ((thermal_need >= lo - 1e-9) & (thermal_need <= hi + 1e-9)).all(axis=1)
        if not ok.any():
            continue
        need = thermal_need[ok]
        # merit order: every committed unit at its minimum, then the cheapest first
        energy = sum(on[g] * units[g]["p_min_mw"] * units[g]["marginal_cost_per_mwh"] for g in range(len(units))).sum()
        rest = need - lo
        cost = np.full(len(need), fixed + energy)
        for g in order:
            room = on[g] * (units[g]["p_max_mw"] - units[g]["p_min_mw"])
            take = np.minimum(rest, room)
            cost += (take * units[g]["marginal_cost_per_mwh"]).sum(axis=1)
            rest = rest - take
        best = min(best, float(cost.min()))
    return best


def test_the_golden_optimum_is_the_enumerated_optimum() -> None:
    need_highs()
    task = _golden()
    enumerated = _enumerated_optimum(task.public_inputs)
    assert enumerated == pytest.approx(7600.0)
    assert psab.evaluate(task, psab.solve(task)).evidence["objective"] == pytest.approx(enumerated, rel=1e-9)


@settings(max_examples=6, deadline=None)
@given(d1=st.floats(100, 140), d2=st.floats(130, 170), t2_cost=st.sampled_from([35.0, 50.0, 70.0]),
       t1_up=st.integers(1, 4), t2_start=st.sampled_from([50.0, 200.0, 900.0]))
def test_milp_matches_enumeration_on_varied_small_cases(d1: float, d2: float, t2_cost: float, t1_up: int, t2_start: float) -> None:
    """Other small cases on the same 10 MW grid (demand rounded to it): the proven MILP optimum
    never exceeds the enumerated one, and equals it whenever the grid holds an optimum (a
    continuous optimum off the grid can only make the MILP cheaper)."""
    need_highs()
    inputs = copy.deepcopy(_golden().public_inputs)
    inputs["demand_mw"] = [50.0, float(round(d1, -1)), float(round(d2, -1)), 60.0]
    inputs["thermal_units"][1]["marginal_cost_per_mwh"] = t2_cost
    inputs["thermal_units"][1]["startup_cost"] = t2_start
    inputs["thermal_units"][0]["min_up_h"] = t1_up
    task = psab.get_family(FAMILY).make_task(task_id="variant", split="public", public_inputs=inputs)
    answer = psab.solve(task).answer
    milp = psab.evaluate(task, {"answer": answer}).evidence["objective"]
    enumerated = _enumerated_optimum(inputs)
    assert milp <= enumerated + 1e-6
    on_grid = all(abs(x / 10.0 - round(x / 10.0)) < 1e-6 for st_ in answer["schedule"]
                  for x in (st_["H1"]["p_mw"], st_["S1"]["p_discharge_mw"] - st_["S1"]["p_charge_mw"]))
    if on_grid:  # the enumeration contains the MILP's own hydro and battery choice
        assert milp == pytest.approx(enumerated, rel=1e-9)


def test_a_start_inside_the_minimum_down_time_is_caught() -> None:
    """Stopping T1 in hour 1 of the golden optimum and running it again in hour 2 breaks its
    2-hour minimum down time; the breach is reported at hour 2's on/off field."""
    need_highs()
    task = _golden()
    answer = copy.deepcopy(psab.solve(task).answer)
    answer["schedule"][1]["T1"]["on"] = False
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    fields = {v.field: v.constraint for v in result.violations}
    assert "/schedule/2/T1/on" in fields and "minimum down time" in fields["/schedule/2/T1/on"]


def test_history_before_the_day_binds() -> None:
    """A unit on for only 1 h before the day with a 3 h minimum up time may not stop in hour 0 or 1."""
    need_highs()
    inputs = copy.deepcopy(_golden().public_inputs)
    inputs["thermal_units"][0]["initial_hours_in_state"] = 1
    task = psab.get_family(FAMILY).make_task(task_id="variant", split="public", public_inputs=inputs)
    answer = copy.deepcopy(psab.solve(_golden()).answer)
    answer["schedule"][0]["T1"]["on"] = False
    answer["schedule"][0]["T1"]["p_mw"] = 0.0
    result = psab.evaluate(task, {"answer": answer})
    assert any(v.field == "/schedule/0/T1/on" and "before the horizon" in v.constraint for v in result.violations)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_objective_counts_marginal_no_load_and_start_up_costs(data: st.DataObject) -> None:
    need_highs()
    task = _public()
    inputs = task.public_inputs
    answer = copy.deepcopy(psab.solve(task).answer)
    for step in answer["schedule"]:
        for u in inputs["thermal_units"]:
            if data.draw(st.booleans()):
                step[u["id"]]["on"] = not step[u["id"]]["on"]
    expected = 0.0
    for u in inputs["thermal_units"]:
        prev = u["initial_on"]
        for step in answer["schedule"]:
            x = step[u["id"]]
            expected += u["marginal_cost_per_mwh"] * x["p_mw"] + u["no_load_cost_per_h"] * x["on"]
            expected += u["startup_cost"] * (x["on"] and not prev)
            prev = x["on"]
    expected += sum(inputs["storage"]["cycle_cost_per_mwh"] * st_["S1"]["p_discharge_mw"] for st_ in answer["schedule"])
    assert psab.evaluate(task, {"answer": answer}).evidence["objective"] == pytest.approx(expected, rel=1e-9)


def test_minimum_up_time_is_cut_off_at_the_end_of_the_day():
    """The statement: a unit started fewer than min_up_h hours before the end of the day need
    only stay on until the end. T2 of the public case (min_up_h = 4, off before the day)
    started in hour 22 and on in hours 22-23 breaks no minimum-up row (2 of its 4 hours fall
    beyond the horizon); the same start followed by a stop in hour 23 does (on for 1 h < 4 h)."""
    from psab.families.hydro_thermal_storage_uc import answer_values, formulation

    task = _public()
    inputs = task.public_inputs
    ref = psab.solve(task).answer
    f = formulation(inputs)

    def min_up_breaches(states: list[bool]) -> int:
        ans = copy.deepcopy(ref)
        for t, on in enumerate(states):
            ans["schedule"][t]["T2"]["on"] = on
        v = answer_values(inputs, ans)
        return sum("minimum up time" in x.constraint for x in f.check(v, lambda _name: 1e-9))

    T = len(inputs["demand_mw"])
    assert inputs["thermal_units"][1]["id"] == "T2" and inputs["thermal_units"][1]["min_up_h"] == 4
    assert min_up_breaches([t >= 22 for t in range(T)]) == 0
    assert min_up_breaches([t == 22 for t in range(T)]) > 0
