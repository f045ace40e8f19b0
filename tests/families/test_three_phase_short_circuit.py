"""three_phase_short_circuit: backend agreement, realistic wrong answers, caller errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import psab
from psab.errors import InvalidTaskError
from psab.families import three_phase_short_circuit as fam
from psab.paths import case_dir

from conftest import need_backend

FAMILY = "three_phase_short_circuit"
SEED = 20261130


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def _assert_agree(inputs: dict, label: str) -> None:
    sur = fam.quantities(inputs, "surrogate")
    pp = fam.quantities(inputs, "pandapower")
    for name in sur:
        assert pp[name] == pytest.approx(sur[name], rel=1e-9), (label, name)


def test_backends_agree_on_public_case() -> None:
    need_backend("pandapower")
    _assert_agree(_public().public_inputs, "public")


def test_backends_agree_on_generated_cases() -> None:
    need_backend("pandapower")
    public = _public()
    for i in range(50):
        drawn = fam.generate(public, np.random.default_rng([SEED, i])).public_inputs
        _assert_agree(drawn, f"draw {i}")


def test_prepared_pandapower_net_is_reusable() -> None:
    """calc_sc on one prepared net: max, min, max again give the same numbers."""
    need_backend("pandapower")
    from psab.backends import pandapower_sc as ppsc

    inputs = _public().public_inputs
    prep = ppsc.build_net(fam.network(inputs))
    first = ppsc.calc(prep, ["B2", "B4"], case="max", kappa_method="radial", t_k_s=0.5)
    ppsc.calc(prep, ["B4"], case="min", r_fault_ohm=0.5)
    assert ppsc.calc(prep, ["B2", "B4"], case="max", kappa_method="radial", t_k_s=0.5) == first


def _with(answer: dict, name: str, values: list[float]) -> dict:
    out = copy.deepcopy(answer)
    out[name] = values
    return out


def test_common_mistakes_are_infeasible() -> None:
    task = _public()
    ref = psab.solve(task).answer
    mistakes = {
        # c = 1.0 instead of c_max = 1.1 for the maximum current
        "c_max omitted": _with(ref, "ik_max_ka", [v / 1.1 for v in ref["ik_max_ka"]]),
        # i_p with κ = √2 forgotten (i_p = κ·I″k)
        "missing √2 in i_p": _with(ref, "ip_ka", [v / 2**0.5 for v in ref["ip_ka"]]),
        # S″k with U_n·I″k (no √3)
        "missing √3 in S″k": _with(ref, "skss_mva", [v / 3**0.5 for v in ref["skss_mva"]]),
        # I_th equal to I″k (m ignored)
        "m ignored in I_th": _with(ref, "ith_ka", list(ref["ik_max_ka"])),
    }
    for label, answer in mistakes.items():
        result = psab.evaluate(task, {"answer": answer})
        assert not result.feasible, label
    # the minimum current computed without the fault resistance: the bolted minimum current
    inputs = copy.deepcopy(task.public_inputs)
    inputs["min_case_fault_r_ohm"] = 0.0
    bolted = fam.quantities(inputs, "surrogate")["ik_min_ka"]
    result = psab.evaluate(task, {"answer": _with(ref, "ik_min_ka", bolted)})
    assert not result.feasible
    assert {v.field for v in result.violations} == {"/ik_min_ka/0", "/ik_min_ka/1"}


def test_answer_in_the_order_of_fault_buses() -> None:
    task = _public()
    ref = psab.solve(task).answer
    swapped = {k: list(reversed(v)) for k, v in ref.items()}
    assert not psab.evaluate(task, {"answer": swapped}).feasible


def test_unknown_fault_bus_is_a_caller_error() -> None:
    task = _public()
    inputs = copy.deepcopy(task.public_inputs)
    inputs["fault_buses"] = ["B2", "B7"]
    bad = psab.get_family(FAMILY).make_task(task_id="x", split="public", public_inputs=inputs)
    with pytest.raises(InvalidTaskError, match="B7"):
        psab.solve(bad)


def test_minimum_current_rises_without_fault_resistance() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    base = fam.quantities(inputs, "surrogate")
    inputs["min_case_fault_r_ohm"] = 0.0
    bolted = fam.quantities(inputs, "surrogate")
    assert all(b > a for a, b in zip(base["ik_min_ka"], bolted["ik_min_ka"], strict=True))
    assert bolted["ik_max_ka"] == base["ik_max_ka"]
