"""n1_generation_commitment: the MILP optimum equals exhaustive enumeration of commitments with
the dispatch LP built here from scratch — for a fixed commitment the droop rule is linear in the
outputs (Δf_g = p_g / S_g with S_g a constant), so no McCormick rows are needed — and the
evaluator rejects what the rule forbids."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
from independent_dc import ptdf as independent_ptdf
from scipy.optimize import linprog

import psab
from psab.families import n1_generation_commitment as n1
from psab.paths import case_dir, golden_root
from psab.solvers.security import governor_response

from conftest import need_highs


def _ptdf(inputs: dict) -> tuple[np.ndarray, dict[str, int]]:
    pos = {b["id"]: i for i, b in enumerate(inputs["buses"])}
    br = inputs["branches"]
    ends = [(pos[b["from_bus"]], pos[b["to_bus"]]) for b in br]
    bvec = [1.0 / (b["x_pu"] * b.get("tap_ratio", 1.0)) for b in br]
    return independent_ptdf(len(pos), ends, bvec, pos[inputs["slack_bus"]]), pos


def enumerate_optimum(inputs: dict) -> tuple[float, tuple[int, ...]]:
    units = inputs["units"]
    n = len(units)
    ptdf, pos = _ptdf(inputs)
    load = np.zeros(len(pos))
    for ld in inputs["loads"]:
        load[pos[ld["bus"]]] += ld["p_mw"]
    G = ptdf[:, [pos[u["bus"]] for u in units]]
    base = -ptdf @ load
    normal = np.array([b["rating_mw"] for b in inputs["branches"]])
    emerg = np.array([b["emergency_rating_mw"] for b in inputs["branches"]])
    K = np.array([u["p_max_mw"] / (u["droop_pct"] / 100.0 * inputs["frequency_hz"]) for u in units])
    pmin = np.array([u["p_min_mw"] for u in units])
    pmax = np.array([u["p_max_mw"] for u in units])
    period = inputs["period_h"]
    best = (np.inf, ())
    for on in itertools.product([0, 1], repeat=n):
        u = np.array(on, dtype=float)
        rows, rhs = [], []
        for g in range(n):
            if not u[g]:
                continue
            S = float(K @ u - K[g])
            if S <= 0:
                rows = None
                break
            # post-loss output of j as a linear map of p: p_j + K_j u_j p_g / S  (j ≠ g), 0 for g
            M = np.eye(n)
            M[:, g] += K * u / S
            M[g, :] = 0.0
            for j in range(n):
                if j != g and u[j]:
                    rows.append(M[j]), rhs.append(pmax[j])  # headroom
            rows += list(G @ M) + list(-(G @ M))
            rhs += list(emerg - base) + list(emerg + base)
        if rows is None:
            continue
        rows += list(G) + list(-G)
        rhs += list(normal - base) + list(normal + base)
        c = np.array([un["marginal_cost_usd_per_mwh"] * period for un in units])
        res = linprog(c, A_ub=np.array(rows), b_ub=np.array(rhs), A_eq=np.ones((1, n)), b_eq=[load.sum()],
                      bounds=[(pmin[j] * u[j], pmax[j] * u[j]) for j in range(n)], method="highs")
        if res.status != 0:
            continue
        fixed = sum(un["no_load_cost_usd_per_h"] * period + (0.0 if un["initially_on"] else un["startup_cost_usd"])
                    for un, x in zip(units, on, strict=True) if x)
        if res.fun + fixed < best[0] - 1e-9:
            best = (res.fun + fixed, on)
    return best


def _golden() -> psab.Task:
    return psab.load_case(golden_root() / n1.FAMILY_ID / "hand_3unit_governor_sharing")


def test_golden_hand_case_by_enumeration() -> None:
    cost, on = enumerate_optimum(_golden().public_inputs)
    assert cost == pytest.approx(5600.0, abs=1e-6)
    assert on == (1, 1, 1)


@pytest.mark.parametrize("which", ["golden", "public", *[f"generated-{i}" for i in range(5)]])
def test_milp_optimum_equals_enumeration(which: str) -> None:
    need_highs()
    if which == "golden":
        task = _golden()
    elif which == "public":
        task = psab.load_case(case_dir(n1.FAMILY_ID))
    else:
        task = psab.generate(n1.FAMILY_ID, 99, int(which.split("-")[1]))
    cost, on = enumerate_optimum(task.public_inputs)
    ref = psab.get_family(n1.FAMILY_ID).solve(task, "surrogate")
    assert ref.objective == pytest.approx(cost, rel=1e-7, abs=1e-4)
    result = psab.evaluate(task, psab.solve(task))
    assert result.feasible and result.evidence["objective"] == pytest.approx(cost, rel=1e-7, abs=1e-4)


def test_governor_response_of_the_golden_optimum() -> None:
    """Kundur's sharing on the hand case: losing GA (110 MW) with K = (80, 48, 40) leaves 88 MW/Hz."""
    case = n1.Case(_golden().public_inputs)
    resp = governor_response(case.units, np.array([1.0, 1.0, 1.0]), np.array([110.0, 60.0, 10.0]))
    np.testing.assert_allclose(resp.delta_f_hz, [110 / 88, 60 / 120, 10 / 128])
    np.testing.assert_allclose(resp.y_hz[0] * np.array(case.units.gain_mw_per_hz), [0.0, 60.0, 50.0])


def _public_answer() -> tuple[psab.Task, dict]:
    task = psab.load_case(case_dir(n1.FAMILY_ID))
    return task, copy.deepcopy(psab.solve(task).answer)


def test_merit_order_commitment_is_not_n1_secure() -> None:
    """The cheapest commitment without the N-1 rows fails the rule on the public case."""
    need_highs()
    task = psab.load_case(case_dir(n1.FAMILY_ID))
    case = n1.Case(task.public_inputs)
    u, p, _ = n1.solve_milp(case, secure=False)
    answer = {"units": {uid: {"committed": bool(u[g]), "p_mw": float(p[g])} for g, uid in enumerate(case.unit_ids)}}
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert any("after the loss of" in v.constraint for v in result.violations)


def test_sole_survivor_must_carry_the_loss() -> None:
    """Golden case, {GA, GB} at the merit order (60 + 120 MW): balanced and within limits, but
    losing GA leaves GB (already at 120) to pick up 60 MW, and losing GB leaves GA short."""
    task = _golden()
    answer = {"units": {"GA": {"committed": True, "p_mw": 60.0}, "GB": {"committed": True, "p_mw": 120.0},
                        "GC": {"committed": False, "p_mw": 0.0}}}
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    words = {v.constraint for v in result.violations}
    assert "after the loss of GA, GB picks up its governor share within its capacity" in words
    assert result.evidence["frequency_deviation_hz"]["GA"] == pytest.approx(60 / 48)


def test_committed_unit_at_zero_output_breaks_its_minimum() -> None:
    task, answer = _public_answer()
    off = next(uid for uid, x in answer["units"].items() if not x["committed"])
    answer["units"][off]["committed"] = True
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert result.violations[0].field == f"/units/{off}/p_mw"


def test_only_committed_units_are_lost():
    """The statement: N-1 means the loss of any one COMMITTED unit. An uncommitted unit
    produces nothing, so adding one (committed = false, p = 0) to the reference leaves it
    feasible at the same cost; committing a single unit for the whole load leaves nobody to
    pick up its loss, so that answer is infeasible even where its flows are fine."""
    task = psab.load_case(case_dir(n1.FAMILY_ID))
    ref = psab.solve(task)
    off = [uid for uid, x in ref.answer["units"].items() if not x["committed"]]
    assert off, "the public reference leaves some unit uncommitted"
    r = psab.evaluate(task, ref)
    assert r.feasible and r.score == 1.0
    total = sum(ld["p_mw"] for ld in task.public_inputs["loads"])
    big = max(task.public_inputs["units"], key=lambda u: u["p_max_mw"])
    lone = {"units": {u["id"]: {"committed": u["id"] == big["id"], "p_mw": total if u["id"] == big["id"] else 0.0}
                      for u in task.public_inputs["units"]}}
    assert not psab.evaluate(task, {"answer": lone}).feasible
