"""microgrid_economic_dispatch: golden optimum and properties of the evaluator and reference."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.paths import case_dir

from conftest import need_highs

FAMILY = "microgrid_economic_dispatch"


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def _with_inputs(task: psab.Task, inputs: dict) -> psab.Task:
    return psab.get_family(FAMILY).make_task(task_id=task.id + "-variant", split="public", public_inputs=inputs)


def _hand_cost(inputs: dict, answer: dict) -> float:
    """Σ_t Δt·(c_dg·P_dg + π_imp·P_imp − π_exp·P_exp + c_cyc·P_dis), written out here."""
    dt = inputs["step_minutes"] / 60.0
    grid, diesel, bat = inputs["grid"], inputs["diesel"], inputs["battery"]
    total = 0.0
    for t, step in enumerate(answer["schedule"]):
        total += dt * (diesel["cost_per_mwh"] * step["p_diesel_mw"]
                       + grid["import_price_per_mwh"][t] * step["p_import_mw"]
                       - grid["export_price_per_mwh"][t] * step["p_export_mw"]
                       + bat.get("cycle_cost_per_mwh", 0.0) * step["p_discharge_mw"])
    return total


def test_public_case_is_not_trivial() -> None:
    """The optimum uses the battery, the diesel and the PCC limit: none of them is idle."""
    need_highs()
    task = _public()
    answer = psab.solve(task).answer
    sched = answer["schedule"]
    assert sum(s["p_discharge_mw"] for s in sched) > 1.0
    assert sum(s["p_diesel_mw"] for s in sched) > 1.0
    assert any(abs(s["p_import_mw"] - task.public_inputs["grid"]["import_limit_mw"]) < 1e-6 for s in sched)
    # the battery-idle schedule (import first, then diesel) is feasible and strictly worse
    idle = copy.deepcopy(answer)
    limit = task.public_inputs["grid"]["import_limit_mw"]
    for t, s in enumerate(idle["schedule"]):
        net = task.public_inputs["load_mw"][t] - task.public_inputs["pv_forecast_mw"][t]
        s.update(p_charge_mw=0.0, p_discharge_mw=0.0, soc_mwh=task.public_inputs["battery"]["soc_initial_mwh"],
                 p_pv_mw=task.public_inputs["pv_forecast_mw"][t], p_import_mw=min(max(net, 0.0), limit),
                 p_export_mw=max(-net, 0.0), p_diesel_mw=max(net - limit, 0.0))
    result = psab.evaluate(task, {"answer": idle})
    assert result.feasible, [v.describe() for v in result.violations]
    assert result.score < 0.99


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_objective_is_the_sum_of_hourly_costs(data: st.DataObject) -> None:
    need_highs()
    task = _public()
    answer = copy.deepcopy(psab.solve(task).answer)
    for step in answer["schedule"]:
        for key in step:
            step[key] = data.draw(st.floats(0.0, 3.0, allow_nan=False), label=key) if data.draw(st.booleans()) else step[key]
    result = psab.evaluate(task, {"answer": answer})
    assert result.evidence["objective"] == pytest.approx(_hand_cost(task.public_inputs, answer), rel=1e-9, abs=1e-9)


_PAIRS = [("p_diesel_mw", "p_import_mw"), ("p_import_mw", "p_diesel_mw"), ("p_pv_mw", "p_import_mw"),
          ("p_import_mw", "p_export_mw"), ("p_diesel_mw", "p_export_mw")]


@settings(max_examples=60, deadline=None)
@given(moves=st.lists(st.tuples(st.integers(0, 23), st.sampled_from(_PAIRS), st.floats(0.001, 0.3)), min_size=1, max_size=4))
def test_no_balanced_perturbation_beats_the_reference(moves: list) -> None:
    """Raise one injection and lower another by the same amount in some hours (balances hold);
    whenever the result is feasible it costs at least the reference."""
    need_highs()
    task = _public()
    ref = psab.evaluate(task, psab.solve(task))
    answer = copy.deepcopy(psab.solve(task).answer)
    for t, (up, down), delta in moves:
        step = answer["schedule"][t]
        step[up] += delta if up != "p_export_mw" else -delta
        step[down] -= delta if down != "p_export_mw" else -delta
    result = psab.evaluate(task, {"answer": answer})
    if result.feasible:
        assert result.evidence["objective"] >= ref.evidence["objective"] - 1e-6
        assert not result.evidence["beats_reference"]


def test_some_balanced_perturbations_are_feasible() -> None:
    """The property above is not vacuous: moving import to diesel at night is feasible (and dearer)."""
    need_highs()
    task = _public()
    answer = copy.deepcopy(psab.solve(task).answer)
    answer["schedule"][0]["p_diesel_mw"] += 0.1
    answer["schedule"][0]["p_import_mw"] -= 0.1
    result = psab.evaluate(task, {"answer": answer})
    assert result.feasible and result.score < 1.0
    assert result.evidence["objective_gap"] == pytest.approx(0.1 * (210.0 - 58.0))


@settings(max_examples=12, deadline=None)
@given(lam=st.floats(0.1, 10.0))
def test_scaling_every_price_scales_the_optimum(lam: float) -> None:
    need_highs()
    task = _public()
    inputs = copy.deepcopy(task.public_inputs)
    inputs["grid"]["import_price_per_mwh"] = [lam * p for p in inputs["grid"]["import_price_per_mwh"]]
    inputs["grid"]["export_price_per_mwh"] = [lam * p for p in inputs["grid"]["export_price_per_mwh"]]
    inputs["diesel"]["cost_per_mwh"] *= lam
    inputs["battery"]["cycle_cost_per_mwh"] *= lam
    base = psab.evaluate(task, psab.solve(task)).evidence["objective"]
    scaled_task = _with_inputs(task, inputs)
    scaled = psab.evaluate(scaled_task, psab.solve(scaled_task)).evidence["objective"]
    assert scaled == pytest.approx(lam * base, rel=1e-7)


@settings(max_examples=10, deadline=None)
@given(factor=st.floats(1.0, 3.0))
def test_a_larger_battery_never_costs_more(factor: float) -> None:
    need_highs()
    task = _public()
    inputs = copy.deepcopy(task.public_inputs)
    for key in ("p_charge_max_mw", "p_discharge_max_mw", "soc_max_mwh"):
        inputs["battery"][key] *= factor
    bigger = _with_inputs(task, inputs)
    base = psab.evaluate(task, psab.solve(task)).evidence["objective"]
    assert psab.evaluate(bigger, psab.solve(bigger)).evidence["objective"] <= base + 1e-6


@pytest.mark.parametrize("hour", [0, 8, 19, 23])
def test_stored_energy_must_follow_the_recursion(hour: int) -> None:
    """A stored energy off the recursion by 0.01 MWh is caught at that hour's field."""
    need_highs()
    task = _public()
    answer = copy.deepcopy(psab.solve(task).answer)
    answer["schedule"][hour]["soc_mwh"] += 0.01
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert f"/schedule/{hour}/soc_mwh" in {v.field for v in result.violations}


@pytest.mark.parametrize(("stored_per_mw", "consistent"), [(0.95, True), (1.0, False), (1 / 0.95, False)])
def test_charge_losses_are_counted_on_the_way_in(stored_per_mw: float, consistent: bool) -> None:
    """0.2 MW charged for one hour at η_ch = 0.95 stores 0.19 MWh — not 0.2, not 0.2/0.95."""
    need_highs()
    task = _public()
    answer = copy.deepcopy(psab.solve(task).answer)
    step = answer["schedule"][0]
    assert step["p_charge_mw"] == 0.0 and step["p_discharge_mw"] == 0.0
    step["p_charge_mw"] = 0.2
    step["p_import_mw"] += 0.2
    for later in answer["schedule"]:
        later["soc_mwh"] += 0.2 * stored_per_mw
    result = psab.evaluate(task, {"answer": answer})
    recursion = [v for v in result.violations if "recursion" in v.constraint]
    assert (not recursion) == consistent
    if not consistent:
        assert recursion[0].field == "/schedule/0/soc_mwh"
