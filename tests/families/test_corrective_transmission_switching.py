"""corrective_transmission_switching: the MILP optimum equals exhaustive enumeration of the
switching options with the redispatch LP built here from scratch (PTDF from the reduced
Laplacian in ``independent_dc``, scipy's linprog) — independent of the family's B-θ big-M model — and the evaluator
rejects what the task forbids."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
from independent_dc import connected
from independent_dc import ptdf as independent_ptdf
from scipy.optimize import linprog

import psab
from psab.families import corrective_transmission_switching as cts
from psab.paths import case_dir, golden_root

from conftest import need_backend, need_highs


def enumerate_optimum(inputs: dict) -> tuple[float, dict[str, bool]]:
    """Cheapest switching + redispatch by trying every subset of switchable branches."""
    buses = [b["id"] for b in inputs["buses"]]
    pos = {b: i for i, b in enumerate(buses)}
    n = len(buses)
    slack = pos[inputs["slack_bus"]]
    branches = inputs["branches"]
    switchable = [b["id"] for b in branches if b.get("switchable")]
    gens = inputs["generators"]
    load = np.zeros(n)
    for ld in inputs["loads"]:
        load[pos[ld["bus"]]] += ld["p_mw"]
    load[slack] -= inputs["interconnector"]["scheduled_import_mw"]
    p0 = np.array([g["p_mw"] for g in gens])
    lo = np.array([max(g["p_min_mw"], g["p_mw"] - g["ramp_down_mw"]) for g in gens])
    hi = np.array([min(g["p_max_mw"], g["p_mw"] + g["ramp_up_mw"]) for g in gens])
    best = (np.inf, {})
    for opened in itertools.product([False, True], repeat=len(switchable)):
        is_open = dict(zip(switchable, opened, strict=True))
        live = [b for b in branches if b["id"] != inputs["contingency"]["branch_id"] and not is_open.get(b["id"], False)]
        edges = [(pos[b["from_bus"]], pos[b["to_bus"]]) for b in live]
        if not connected(n, edges):
            continue
        bvec = [100.0 / (b["x_pu"] * b.get("tap_ratio", 1.0)) for b in live]  # MW/rad
        ptdf = independent_ptdf(n, edges, bvec, slack)
        gen_cols = ptdf[:, [pos[g["bus"]] for g in gens]]
        fixed = -ptdf @ load
        rating = np.array([b["rating_mw"] for b in live])
        m = len(gens)
        # x = [up (m), down (m)], p = p0 + up − down
        c = np.array([g["up_cost_usd_per_mw"] for g in gens] + [g["down_cost_usd_per_mw"] for g in gens])
        D = np.hstack([np.eye(m), -np.eye(m)])
        A_ub = np.vstack([gen_cols @ D, -(gen_cols @ D), D, -D])
        b_ub = np.concatenate([rating - fixed - gen_cols @ p0, rating + fixed + gen_cols @ p0, hi - p0, p0 - lo])
        A_eq = np.concatenate([np.ones(m), -np.ones(m)])[None, :]
        b_eq = [load.sum() - p0.sum()]
        res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * (2 * m), method="highs")
        if res.status != 0:
            continue
        cost = res.fun + sum(b["switching_cost_usd"] for b in branches if is_open.get(b["id"], False))
        if cost < best[0] - 1e-9:
            best = (cost, is_open)
    return best


def _golden() -> psab.Task:
    return psab.load_case(golden_root() / cts.FAMILY_ID / "hand_3bus_switch_and_redispatch")


def test_golden_hand_case_by_enumeration() -> None:
    cost, opened = enumerate_optimum(_golden().public_inputs)
    assert cost == pytest.approx(300.0, abs=1e-6)  # README: open L1-2 (100 USD) + 5 MW shift at 40 USD/MW
    assert opened == {"L1-2": True, "L1-3a": False}


@pytest.mark.parametrize("which", ["golden", "public", *[f"generated-{i}" for i in range(6)]])
def test_milp_optimum_equals_enumeration(which: str) -> None:
    need_highs()
    if which == "golden":
        task = _golden()
    elif which == "public":
        task = psab.load_case(case_dir(cts.FAMILY_ID))
    else:
        task = psab.generate(cts.FAMILY_ID, 4242, int(which.split("-")[1]))
    cost, _ = enumerate_optimum(task.public_inputs)
    ref = psab.get_family(cts.FAMILY_ID).solve(task, "surrogate")
    assert ref.objective == pytest.approx(cost, rel=1e-7, abs=1e-5)
    result = psab.evaluate(task, psab.solve(task))
    assert result.feasible and result.evidence["objective"] == pytest.approx(cost, rel=1e-7, abs=1e-5)


def _public_answer() -> tuple[psab.Task, dict]:
    task = psab.load_case(case_dir(cts.FAMILY_ID))
    return task, copy.deepcopy(psab.solve(task).answer)


def test_doing_nothing_leaves_the_overload() -> None:
    task, answer = _public_answer()
    inputs = task.public_inputs
    answer["switch_open"] = {k: False for k in answer["switch_open"]}
    answer["p_mw"] = {g["id"]: g["p_mw"] for g in inputs["generators"]}
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert any("L2-3" in v.constraint for v in result.violations)


def test_islanding_action_is_infeasible() -> None:
    """With L1-3 out, opening every switchable branch (L3-5, L4-6, L6-7, L7-8) leaves B6 and B8
    joined only to each other by L6-8: an island."""
    task, answer = _public_answer()
    answer["switch_open"] = {k: True for k in answer["switch_open"]}
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert result.violations[0].field == "/switch_open"


def test_unbalanced_redispatch_is_one_violation() -> None:
    task, answer = _public_answer()
    g = next(iter(answer["p_mw"]))
    answer["p_mw"][g] += 3.0
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert [v.field for v in result.violations] == ["/p_mw"]


def test_pandapower_reference_is_ac_feasible_and_not_cheaper_than_the_dc_optimum() -> None:
    need_backend("pandapower")
    need_highs()
    task = psab.load_case(case_dir(cts.FAMILY_ID))
    dc = psab.get_family(cts.FAMILY_ID).solve(task, "surrogate")
    ac = psab.get_family(cts.FAMILY_ID).solve(task, "pandapower")
    assert ac.objective >= dc.objective - 1e-6
    result = psab.evaluate(task, {"answer": ac.answer}, backend="pandapower")
    assert result.feasible and result.score == 1.0
    assert result.evidence["max_loading_pct"] <= 100.0 + 1e-6
    # the DC optimum loads L4-5 to its rating in DC; the losses push it over in AC
    dc_in_ac = psab.evaluate(task, {"answer": dc.answer}, backend="pandapower")
    assert not dc_in_ac.feasible


def test_checks_on_the_shared_prepared_net_match_a_freshly_built_one() -> None:
    """The AC checks reuse one net per case (no deep copy per check): after other checks with
    other branches open and other set-points, a check gives bit-identical flows to the same
    check on a net built from scratch."""
    need_backend("pandapower")
    from psab.backends import pandapower_ac_checks as acc

    task = psab.get_family("corrective_transmission_switching").public_task()
    case = acc.AcCase.from_case(task.public_inputs)
    p0 = [float(g["p_mw"]) for g in task.public_inputs["generators"]]
    shared = acc.prepared(("test-reuse", task.digest), case)
    acc.flows(shared, (0,), gen_p_mw=[x * 1.1 for x in p0])
    acc.n_minus_1(shared, (1, 2))
    again = acc.flows(shared, (3,), gen_p_mw=p0)
    fresh = acc.flows(acc.build_net(case), (3,), gen_p_mw=p0)
    assert np.array_equal(again.p_from_mw, fresh.p_from_mw, equal_nan=True)
    assert np.array_equal(again.p_to_mw, fresh.p_to_mw, equal_nan=True)
    assert again.slack_p_mw == fresh.slack_p_mw
    assert acc.prepared(("test-reuse", task.digest), case) is shared
