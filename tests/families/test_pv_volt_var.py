"""pv_volt_var: LinDistFlow vs AC agreement on generated cases, physics properties, bad input."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import pv_volt_var as F
from psab.paths import case_dir

from conftest import need_backend

AGREEMENT_CASES = 50


def _public() -> psab.Task:
    return psab.load_case(case_dir(F.FAMILY_ID))


def _accepted(n: int, level: int = 1) -> list[psab.Task]:
    """The first ``n`` draws the family's acceptance keeps (the kernel's other checks do not
    concern backend agreement, so they are skipped to keep the test fast)."""
    out, seed = [], 0
    while len(out) < n:
        g = F.generate(None, np.random.default_rng(seed), level)
        seed += 1
        task = F.SPEC.make_task(task_id=f"agree-{seed}", split="heldout", public_inputs=g.public_inputs)
        if F.accept(task, F.SPEC.solve(task, "surrogate")) is None:
            out.append(task)
    return out


def test_backends_agree_on_fifty_generated_cases() -> None:
    """On every accepted draw the LinDistFlow reference is feasible in pandapower's AC flow, and
    the AC optimum (successive linearization) uses the same inverters and is no dearer. The AC
    optimum is taken from psab's Newton-Raphson here (one pandapower flow per case keeps the test
    fast); the next test checks on a few cases that pandapower's gives the same set-points."""
    need_backend("pandapower")
    warnings.simplefilter("ignore")
    for task in _accepted(AGREEMENT_CASES):
        case = F.case_of(task.public_inputs)
        q_lin, q_ac = F.optima(task)
        lin_in_ac = psab.evaluate(task, {"answer": F._answer(case, q_lin)}, "pandapower")
        assert lin_in_ac.feasible, (task.id, [v.describe() for v in lin_in_ac.violations])
        assert {c for c, q in q_lin.items() if abs(q) > 1e-4} == {c for c, q in q_ac.items() if abs(q) > 1e-4}
        assert sum(map(abs, q_ac.values())) <= sum(map(abs, q_lin.values())) + 1e-6


def test_pandapower_reference_equals_the_newton_raphson_one() -> None:
    need_backend("pandapower")
    warnings.simplefilter("ignore")
    for task in _accepted(4, level=2):
        case = F.case_of(task.public_inputs)
        q_nr, _ = F.successive_lp(case, F.surrogate_ac(case))
        pp = F.SPEC.solve(task, "pandapower").answer["q_mvar"]
        assert all(abs(pp[c] - q_nr[c]) < 1e-5 for c in case.inv_ids)


def test_lindistflow_overestimates_the_rise_so_its_answer_is_conservative() -> None:
    """LinDistFlow neglects the series reactive losses, which depress the voltage: at Q = 0 its
    highest voltage exceeds psab's Newton-Raphson one on every accepted draw."""
    for task in _accepted(10):
        case = F.case_of(task.public_inputs)
        zero = {c: 0.0 for c in case.inv_ids}
        assert F.ldf_voltages(case, zero).max() > np.abs(F.surrogate_ac(case)(zero)).max()


@settings(max_examples=20, deadline=None)
@given(st.dictionaries(st.sampled_from(["PV1", "PV2", "PV3", "PV4", "PV5"]), st.floats(-1.0, 0.0), min_size=1))
def test_absorbing_reactive_power_never_raises_a_voltage(extra) -> None:
    task = _public()
    case = F.case_of(task.public_inputs)
    q0 = {c: 0.0 for c in case.inv_ids}
    q1 = {**q0, **{c: v for c, v in extra.items() if c in q0}}
    assert np.all(F.ldf_voltages(case, q1) <= F.ldf_voltages(case, q0) + 1e-12)


def test_naive_full_absorption_is_feasible_but_dearer() -> None:
    task = _public()
    result = psab.evaluate(task, {"answer": F.naive_answer(task)})
    assert result.feasible and result.score < 1.0


def test_exceeding_the_capability_is_caught() -> None:
    task = _public()
    ans = copy.deepcopy(psab.solve(task).answer)
    inv = task.public_inputs["inverters"][0]
    ans["q_mvar"][inv["id"]] = -(inv["s_rated_mva"] ** 2 - inv["p_mw"] ** 2) ** 0.5 - 0.01
    result = psab.evaluate(task, {"answer": ans})
    assert not result.feasible and any("apparent power" in v.constraint for v in result.violations)


def test_islanded_feeder_names_the_branches() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["feeder"]["branches"] = inputs["feeder"]["branches"][:-1]   # the last bus is cut off
    with pytest.raises(InvalidTaskError, match="/feeder/branches"):
        F.SPEC.solve(F.SPEC.make_task(task_id="bad", split="public", public_inputs=inputs), "surrogate")


@pytest.mark.parametrize(("key", "value", "field"), [
    ("s_rated_mva", -1.0, "/inverters/0/s_rated_mva"),
    ("p_mw", 99.0, "/inverters/0/p_mw"),
    ("bus", "nowhere", "/inverters/0/bus"),
])
def test_a_bad_inverter_names_its_field(key, value, field) -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["inverters"][0][key] = value
    with pytest.raises(InvalidTaskError, match=field):
        F.SPEC.solve(F.SPEC.make_task(task_id="bad", split="public", public_inputs=inputs), "surrogate")
