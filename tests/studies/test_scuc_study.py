"""scuc_study: the vendored data against their published sources, psab's PTDF/LODF against
pandapower's (an independent implementation of the same DC model), the public case's reference,
the evaluator's verdicts on wrong schedules, hostile answers and broken tasks, and the second
formulation (Pyomo) against the reference (highspy). Long solves behind PSAB_THOROUGH."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import THOROUGH

S = pytest.importorskip("psab.studies.scuc_study")

import psab  # noqa: E402
from psab.errors import InvalidTaskError  # noqa: E402
from psab.paths import case_dir  # noqa: E402
from psab.surrogates import matpower_file as mp  # noqa: E402


@pytest.fixture(scope="module")
def task():
    return psab.get_family("scuc_study").public_task()


@pytest.fixture(scope="module")
def solution():
    return json.loads((Path(case_dir("scuc_study")) / "solution.json").read_text())["answer"]


def _arrays(st, answer):
    u, p, w, bad = S.schedule_of(st, answer["decision"])
    assert not bad
    return u, p, w


# ---------------------------------------------------------------------------- data from outside


def test_load_shapes_are_rts96_table5():
    """profiles.csv's load columns are the IEEE RTS-96 (Trans. Power Syst. 14(3), 1999) Table 5
    weekday shapes, winter weeks 1-8 & 44-52 and summer weeks 18-30, in % of the daily peak —
    typed here from the paper, not from the module."""
    winter = [67, 63, 60, 59, 59, 60, 74, 86, 95, 96, 96, 95, 95, 95, 93, 94, 99, 100, 100, 96, 91, 83, 73, 63]
    summer = [64, 60, 58, 56, 56, 58, 64, 76, 87, 95, 99, 100, 99, 100, 100, 97, 96, 96, 93, 92, 92, 93, 87, 72]
    head, data = S._read_csv(S.PROFILES_FILE)
    np.testing.assert_allclose(data[:, head.index("load_winter_pu")] * 100, winter, atol=1e-9)
    np.testing.assert_allclose(data[:, head.index("load_summer_pu")] * 100, summer, atol=1e-9)


def test_units_match_matpower_case118_via_pandapower():
    """units.csv's Pmax and cost curves come from MATPOWER's case118 as pandapower ships it
    (pandapower.networks.case118, an independent copy of the same data): every unit's Pmax, and
    its cost at Pmin and at Pmax (c1·P + c2·P², the secant segments reproduce the quadratic at
    the breakpoints)."""
    pn = pytest.importorskip("pandapower.networks")
    net = pn.case118()
    pc = net.poly_cost
    theirs = {}
    for et, table in (("gen", net.gen), ("ext_grid", net.ext_grid)):
        for i, r in table.iterrows():
            c = pc[(pc.et == et) & (pc.element == i)].iloc[0]
            theirs[int(r.bus) + 1] = (float(r.max_p_mw), float(c.cp1_eur_per_mw), float(c.cp2_eur_per_mw2))
    head, data = S._read_csv(S.UNITS_FILE)
    col = {h: data[:, i] for i, h in enumerate(head)}
    assert len(data) == 54 == len(theirs)
    for k in range(54):
        pmax, c1, c2 = theirs[int(col["bus"][k])]
        assert col["pmax_mw"][k] == pytest.approx(pmax)
        pmin = col["pmin_mw"][k]
        assert col["cost_at_pmin_usd_per_h"][k] == pytest.approx(c1 * pmin + c2 * pmin ** 2, abs=1e-3)
        full = col["cost_at_pmin_usd_per_h"][k] + sum(col[f"seg{j}_mw"][k] * col[f"seg{j}_usd_per_mwh"][k] for j in (1, 2, 3))
        assert full == pytest.approx(c1 * pmax + c2 * pmax ** 2, rel=1e-5)


def test_vendored_files_are_what_the_builders_write():
    """The shipped CSVs are reproducible from their stated rules (and pvlib/windpowerlib)."""
    pytest.importorskip("pvlib")
    pytest.importorskip("windpowerlib")
    assert S._file_bytes(S.UNITS_FILE).decode() == S.build_units_csv()
    assert S._file_bytes(S.PROFILES_FILE).decode() == S.build_profiles_csv()


def test_ptdf_and_lodf_match_pandapower():
    """psab's PTDF/LODF of case118 (psab.surrogates.dc_flow) equal pandapower's makePTDF /
    makeLODF (PYPOWER's implementation) on the same file, slack at the type-3 bus."""
    pytest.importorskip("pandapower")
    from pandapower.pypower.makeLODF import makeLODF
    from pandapower.pypower.makePTDF import makePTDF

    case = mp.read_matpower(str(S.study_model.vendored(S.CASE_FILE)))
    bus = case.bus.copy()
    branch = case.branch.copy()
    bus[:, 0] -= 1
    branch[:, 0] -= 1
    branch[:, 1] -= 1
    slack = int(np.flatnonzero(bus[:, 1] == 3)[0])
    P = makePTDF(case.base_mva, bus, branch, slack=slack)
    _, _, ours_p, ours_l = S._network()
    np.testing.assert_allclose(ours_p, P, atol=1e-9)
    L = makeLODF(branch, P)
    keep = [k for k in range(len(branch)) if k not in S.bridges()]
    off = ~np.eye(len(branch), dtype=bool)
    mask = off[:, keep]
    np.testing.assert_allclose(ours_l[:, keep][mask], L[:, keep][mask], atol=1e-7)


# ---------------------------------------------------------------------------- the public case


def test_reference_is_feasible_and_proven(task, solution):
    st = S._study(task)
    u, p, w = _arrays(st, solution)
    assert S.failures(st, u, p, w) == []
    ref = psab.evaluate(task, {"answer": solution})
    assert ref.perfect
    ev = ref.evidence
    assert ev["reference_bound"] <= ev["objective"] <= ev["reference_bound"] * (1 + S.MIP_REL_GAP) + 1.0
    # N-1 shapes the answer: post-contingency limits bind in the reference
    assert any(b["contingency_id"] != "N-0" for b in solution["binding_constraints"])


def test_an_answer_within_the_proven_gap_scores_one(task, solution):
    """A schedule dearer than the reference by less than its proven gap (1 MW moved from a
    cheaper to a dearer committed unit in one hour, every constraint still met) scores 1: the
    kernel ties it with the reference within |incumbent − bound| and reports the bound."""
    st = S._study(task)
    u, p, w = _arrays(st, solution)
    base = psab.evaluate(task, {"answer": solution}).evidence
    gap_usd = base["reference_objective"] - base["reference_bound"]
    assert gap_usd > 10.0
    found = None
    for t in range(S.HOURS):
        on = [g for g in range(st.n_gen) if u[t, g] and st.pmin[g] + 1 < p[t, g] < st.pmax[g] - 1]
        for a in on:
            for b in on:
                q = p.copy()
                q[t, a] -= 1.0
                q[t, b] += 1.0
                extra = S.total_cost(st, u, q) - S.total_cost(st, u, p)
                if 1.0 < extra < gap_usd and not S.failures(st, u, q, w, limit=1):
                    found = (t, a, b)
                    break
            if found:
                break
        if found:
            break
    assert found, "some 1 MW shift stays feasible"
    t, a, b = found
    ans = copy.deepcopy(solution)
    ans["decision"]["units"][a]["p_mw"][t] = round(p[t, a] - 1.0, 4)
    ans["decision"]["units"][b]["p_mw"][t] = round(p[t, b] + 1.0, 4)
    r = psab.evaluate(task, {"answer": ans})
    assert r.feasible and r.evidence["objective"] > base["reference_objective"] + 1.0
    assert r.evidence["deliverable_scores"]["decision"] == 1.0
    assert r.evidence["reference_mip_gap"] == pytest.approx(base["reference_mip_gap"])


def test_baselines_score_below_one(task):
    for fn in (S.do_nothing_answer, S.naive_answer):
        r = psab.evaluate(task, {"answer": fn(task)})
        assert r.score < 1.0 and not r.feasible


def test_unit_switched_off_is_caught(task, solution):
    """Switching off a unit that carries load in one hour breaks the balance (and p with on = 0)."""
    st = S._study(task)
    u, p, w = _arrays(st, solution)
    t, g = np.unravel_index(np.argmax(p), p.shape)
    ans = copy.deepcopy(solution)
    ans["decision"]["units"][g]["on"][t] = 0
    r = psab.evaluate(task, {"answer": ans})
    assert not r.feasible and r.score == 0.0
    assert any("unit that is off" in v.constraint for v in r.violations)


def test_post_contingency_overload_is_caught(task, solution):
    """Moving output across a binding post-contingency limit's PTDF gradient overloads it: the
    evaluator names the branch, the outage and the hour."""
    st = S._study(task)
    u, p, w = _arrays(st, solution)
    b0 = next(b for b in solution["binding_constraints"] if b["contingency_id"] != "N-0")
    t = b0["hour"] - 1
    br = st.branch_ids.index(b0["branch_id"])
    c = st.cont_ids.index(b0["contingency_id"])
    k = st.cont_branch[c]
    sens = st.ptdf[br] + st.lodf[br, k] * st.ptdf[k]
    f0, f1 = S.flows(st, p, w)
    sign = np.sign(f1[t, br, c])
    on = np.flatnonzero(u[t] > 0)
    eff = sign * sens[st.gen_bus[on]]
    up, dn = on[np.argmax(eff)], on[np.argmin(eff)]
    delta = min(5.0, st.pmax[up] - p[t, up], p[t, dn] - st.pmin[dn])
    assert delta > 0.5
    ans = copy.deepcopy(solution)
    ans["decision"]["units"][up]["p_mw"][t] = round(p[t, up] + delta, 4)
    ans["decision"]["units"][dn]["p_mw"][t] = round(p[t, dn] - delta, 4)
    r = psab.evaluate(task, {"answer": ans})
    assert not r.feasible
    assert any("DC flow" in v.constraint and f"hour {t + 1}" in v.constraint for v in r.violations)


def test_min_up_time_is_caught(task, solution):
    """A unit started in the reference and stopped one hour later breaks its minimum up time."""
    st = S._study(task)
    u, p, w = _arrays(st, solution)
    prev = np.vstack([st.init_on[None, :].astype(float), u[:-1]])
    starts = np.argwhere((u - prev > 0) & (st.min_up[None, :] > 1))
    ok = [(t, g) for t, g in starts if t + 1 < S.HOURS]
    assert ok, "the reference starts some unit with a minimum up time"
    t, g = ok[0]
    ans = copy.deepcopy(solution)
    for tt in range(t + 1, S.HOURS):
        ans["decision"]["units"][g]["on"][tt] = 0
        ans["decision"]["units"][g]["p_mw"][tt] = 0.0
    r = psab.evaluate(task, {"answer": ans})
    assert any("minimum up time" in v.constraint for v in r.violations)


def test_binding_list_is_scored_item_by_item(task, solution):
    ans = copy.deepcopy(solution)
    n = len(ans["binding_constraints"])
    ans["binding_constraints"] = ans["binding_constraints"][1:]
    r = psab.evaluate(task, {"answer": ans})
    assert r.feasible
    assert r.evidence["deliverable_scores"]["binding_constraints"] == pytest.approx((n - 1) / n)
    assert 0.9 < r.score < 1.0
    ans["binding_constraints"] = solution["binding_constraints"] + [solution["binding_constraints"][0]]
    r = psab.evaluate(task, {"answer": ans})
    assert r.evidence["deliverable_scores"]["binding_constraints"] == pytest.approx(n / (n + 1))


def test_hostile_answers_get_verdicts(task, solution):
    for mutate in (
        lambda a: a["decision"]["units"][0]["p_mw"].__setitem__(0, 1e308),
        lambda a: a["decision"]["units"][1].__setitem__("gen_id", a["decision"]["units"][0]["gen_id"]),
        lambda a: a["decision"]["renewables"][0]["p_mw"].__setitem__(3, -1e9),
        lambda a: a.__setitem__("binding_constraints", [{"hour": 1, "branch_id": "1", "contingency_id": "N-0"}] * 50),
    ):
        ans = copy.deepcopy(solution)
        mutate(ans)
        r = psab.evaluate(task, {"answer": ans})
        assert "evaluator_error" not in r.evidence
        assert 0.0 <= r.score < 1.0


@pytest.mark.parametrize("field, value", [
    (("renewables", 0, "bus_id"), "9999"),
    (("security", "contingencies", 0, "branch_id"), "BRIDGE"),   # a radial branch: its outage islands a bus
    (("security", "contingencies", 0, "branch_id"), "999"),
    (("load", "season"), "spring"),
    (("load", "scale"), 2.5),
    (("renewables", 0, "kind"), "hydro"),
])
def test_broken_tasks_are_invalid(task, field, value):
    spec = psab.get_family("scuc_study")
    inputs = copy.deepcopy(task.public_inputs)
    node = inputs
    for k in field[:-1]:
        node = node[k]
    node[field[-1]] = str(min(S.bridges()) + 1) if value == "BRIDGE" else value
    with pytest.raises(InvalidTaskError):
        spec.check_inputs(spec.make_task(task_id="x", split="public", public_inputs=inputs))


def test_bridges_are_not_listed(task):
    """The public outage list is every non-bridge branch (177 of 186); the bridges are the radial
    branches whose outage islands a bus."""
    assert len(task.public_inputs["security"]["contingencies"]) == 186 - len(S.bridges()) == 177


# ---------------------------------------------------------------------------- second formulation


def test_pyomo_formulation_agrees_copper_plate(task):
    """Without the network both formulations (highspy three-binary, Pyomo two-binary with
    pairwise minimum up/down) reach the same optimum within their gaps."""
    pytest.importorskip("pyomo")
    st = S._study(task)
    _, a = S.solve_uc(st, network="none", mip_rel_gap=1e-5)
    _, b = S.solve_uc_pyomo(st, network="none", mip_rel_gap=1e-5)
    assert a["incumbent"] == pytest.approx(b["incumbent"], rel=2e-5)
    assert max(a["bound"], b["bound"]) <= min(a["incumbent"], b["incumbent"]) * (1 + 1e-9)


@pytest.mark.skipif(not THOROUGH, reason="two full SCUC solves (minutes): PSAB_THOROUGH=1")
@pytest.mark.parametrize("draw", [None, 0])
def test_pyomo_formulation_agrees_n1(task, draw):
    """On the public case and a held-out draw the two formulations' N-1 optima agree within the
    proven gaps, and both schedules pass the evaluator."""
    pytest.importorskip("pyomo")
    spec = psab.get_family("scuc_study")
    if draw is not None:
        gen = S.generate(task, np.random.default_rng(draw), 1)
        task = spec.make_task(task_id="draw", split="heldout", public_inputs=gen.public_inputs)
    st = S._study(task)
    da, a = S.solve_uc(st)
    db, b = S.solve_uc_pyomo(st, mip_rel_gap=S.MIP_REL_GAP)
    for d in (da, db):
        u, p, w, _ = S.schedule_of(st, d)
        assert S.failures(st, u, p, w) == []
    lo = max(a["bound"], b["bound"])
    hi = min(a["incumbent"], b["incumbent"])
    assert lo <= hi * (1 + 1e-9)
    assert math.isclose(a["incumbent"], b["incumbent"], rel_tol=2 * S.MIP_REL_GAP)


@pytest.mark.skipif(not THOROUGH, reason="a full MILP solve: PSAB_THOROUGH=1")
def test_dc_only_baseline_is_not_n1_secure(task):
    r = psab.evaluate(task, {"answer": S.dc_only_answer(task)})
    assert not r.feasible and any("after outage" in v.constraint for v in r.violations)


def test_offsetting_absurd_outputs_fail(task, solution):
    """Two outputs of ±1e308 balance each other in floating point but give non-finite flows:
    the schedule fails (its limits and its flows), it is never passed by NaN comparisons."""
    st = S._study(task)
    u, p, w = _arrays(st, solution)
    q = p.copy()
    q[0, 0], q[0, 1] = 1e308, -1e308
    kinds = {f.kind for f in S.failures(st, u, q, w)}
    assert "flow" in kinds and any(k.startswith("unit") or k.startswith("output") for k in kinds)
