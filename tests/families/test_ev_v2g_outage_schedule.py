"""ev_v2g_outage_schedule: the rows catch what they must, the optimum beats simple policies,
bad input names its field."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import ev_v2g_outage_schedule as F
from psab.paths import case_dir


def _public() -> psab.Task:
    return psab.load_case(case_dir(F.FAMILY_ID))


def test_simultaneous_charge_and_discharge_is_infeasible() -> None:
    task = _public()
    ans = copy.deepcopy(psab.solve(task).answer)
    ev = ans["evs"][0]
    t = next(t for t in range(len(ev["p_charge_kw"])) if ev["p_charge_kw"][t] > 1.0)
    # discharge 1 kW more and charge η_c·η_d... as much more: the energy and balance barely move
    ev["p_discharge_kw"][t] = 1.0
    result = psab.evaluate(task, {"answer": ans})
    assert not result.feasible
    assert any("same hour" in v.constraint for v in result.violations)


def test_the_naive_policy_costs_more_and_the_reference_uses_the_fleet() -> None:
    task = _public()
    ref = psab.solve(task)
    naive = psab.evaluate(task, {"answer": F.naive_answer(task)})
    assert naive.feasible and naive.score < 1.0
    outage = range(task.public_inputs["outage"]["start_hour"], task.public_inputs["outage"]["end_hour"])
    assert sum(ev["p_discharge_kw"][t] for ev in ref.answer["evs"] for t in outage) > 1.0


def test_missing_the_departure_soc_is_caught() -> None:
    task = _public()
    ans = copy.deepcopy(psab.solve(task).answer)
    for ev in ans["evs"]:
        ev["p_charge_kw"] = [0.0] * len(ev["p_charge_kw"])
    result = psab.evaluate(task, {"answer": ans})
    assert not result.feasible


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 10_000))
def test_reference_is_no_worse_than_the_naive_policy_on_draws(seed) -> None:
    g = F.generate(_public(), np.random.default_rng(seed), 1)
    task = F.SPEC.make_task(task_id="h", split="heldout", public_inputs=g.public_inputs)
    ref = psab.evaluate(task, {"answer": psab.solve(task).answer})
    naive = psab.evaluate(task, {"answer": F.naive_answer(task)})
    assert ref.feasible and ref.score == 1.0
    if naive.feasible:
        assert ref.evidence["objective"] <= naive.evidence["objective"] + 1e-6


@pytest.mark.parametrize(("path", "value", "field"), [
    (("outage", "end_hour"), 10, "/outage/end_hour"),
    (("evs", 0, "p_charge_max_kw"), -7.4, "/evs/0/p_charge_max_kw"),
    (("evs", 1, "arrival_soc"), 1.3, "/evs/1/arrival_soc"),
    (("evs", 2, "departure_soc"), -0.2, "/evs/2/departure_soc"),
    (("evs", 0, "capacity_kwh"), 0.0, "/evs/0/capacity_kwh"),
    (("service_limit_kw",), -5.0, "/service_limit_kw"),
])
def test_a_task_that_cannot_be_posed_names_the_field(path, value, field) -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    if path == ("outage", "end_hour"):
        inputs["outage"] = {"start_hour": 14, "end_hour": 11}
    else:
        node = inputs
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    bad = F.SPEC.make_task(task_id="bad", split="public", public_inputs=inputs)
    with pytest.raises(InvalidTaskError, match=field):
        F.SPEC.solve(bad, "surrogate")
