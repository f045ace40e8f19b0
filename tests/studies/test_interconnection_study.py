"""interconnection_study: the MATPOWER reader, the fault kernel, the shipped dispatch against
PGLib-OPF's published objective, the public case's reference, backend agreement, mutations and
hostile answers. Long checks (pandapower's full reference, a held-out draw) behind PSAB_THOROUGH."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from tests.conftest import THOROUGH

S = pytest.importorskip("psab.studies.interconnection_study")

import psab  # noqa: E402
from psab.io import load_case  # noqa: E402
from psab.paths import case_dir  # noqa: E402
from psab.surrogates import interconnection as ic  # noqa: E402
from psab.surrogates import matpower_file as mp  # noqa: E402
from psab.surrogates.iec60909_network import Machine, fault_currents_ka  # noqa: E402

#: PGLib-OPF v23.07 BASELINE.md, "Typical Operating Conditions", AC column ($/h): the published
#: AC-OPF optima (PowerModels.jl + IPOPT) — numbers from outside psab.
BASELINE_AC = {"pglib_opf_case118_ieee": 9.7214e04, "pglib_opf_case200_activ": 2.7558e04}


@pytest.fixture(scope="module")
def task():
    return load_case(case_dir("interconnection_study"))


def _solution(task):
    import json
    from pathlib import Path

    return json.loads((Path(case_dir("interconnection_study")) / "solution.json").read_text())


@pytest.mark.parametrize("level", [1, 2])
def test_parser_matches_matpowercaseframes(level):
    """psab's reader gives the same bus, gen and branch tables as matpowercaseframes (an
    independent reader of the same file)."""
    cf = pytest.importorskip("matpowercaseframes")
    name = S.CASES[level][0]
    path = str(S.study_model.vendored(name))
    ours = mp.read_matpower(path)
    theirs = cf.CaseFrames(path)
    assert ours.base_mva == float(theirs.baseMVA)
    for table in ("bus", "gen", "branch", "gencost"):
        a = getattr(ours, table)
        b = getattr(theirs, table).to_numpy(dtype=float)
        assert a.shape[0] == b.shape[0]
        np.testing.assert_allclose(a[:, : b.shape[1]], b[:, : a.shape[1]], rtol=0, atol=0)


@pytest.mark.parametrize("level", [1, 2])
def test_base_dispatch_cost_against_pglib_baseline(level):
    """The shipped dispatch's generation cost (its gencost polynomials at the dispatch) lies at
    or above PGLib-OPF's published AC optimum and within 1.5 % of it: it is an AC-OPF of the same
    case with tighter limits (90 % rate_a, band 0.01 pu inside), so it costs a little more."""
    case_file, dispatch_file = S.CASES[level]
    case = mp.read_matpower(str(S.study_model.vendored(case_file)))
    grid = S._grid(case_file, dispatch_file)
    # in-service generators only (MATPOWER costs units with status 1)
    cost = float(mp.polynomial_cost(case.gencost, grid.gen_p_mw)[grid.gen_on].sum())
    published = BASELINE_AC[case_file[:-2]]
    assert published * (1 - 2e-4) <= cost <= published * 1.015


@pytest.mark.parametrize("level", [1, 2])
def test_base_dispatch_is_n0_secure(level):
    """The base case meets the criteria it is stated to meet: AC power flow solves, every branch
    at most 90 % of rate_a (+ rounding), every voltage inside the case's band."""
    from psab.backends.sparse_power_flow import solve_ac_sparse

    g = S._grid(*S.CASES[level])
    sol = solve_ac_sparse(ic.ac_network(g))
    load = ic.loading_pct(g, sol.V)
    assert np.nanmax(load) <= 90.0 + 0.01
    assert np.all(sol.vm_pu >= g.vmin_pu - 1e-6) and np.all(sol.vm_pu <= g.vmax_pu + 1e-6)


def test_fault_kernel_by_hand():
    """Two 138 kV buses, one 100 MVA machine (x″d = 0.2, R = 0, cos φ = 0.8) at bus 0 and a
    lossless line x = 0.1 pu (100 MVA base) to bus 1. By hand (IEC 60909-0 eq. 18, 29):
    K_G = 1.1/(1 + 0.2·0.6) = 0.982143; Z at bus 1 = j(0.2·K_G + 0.1) = j0.2964286 pu;
    I″k = 1.1/0.2964286 × 100/(√3·138) = 3.710843 × 0.4183698 = 1.552505 kA."""
    ik = fault_currents_ka(n_bus=2, base_mva=100.0, vn_kv=np.array([138.0, 138.0]), from_idx=np.array([0]),
                           to_idx=np.array([1]), r_pu=np.array([0.0]), x_pu=np.array([0.1]), kt=np.array([1.0]),
                           machines=[Machine(0, 100.0, 0.2, 0.0, 0.8)], fault_buses=[1])
    assert ik[0] == pytest.approx(1.1 / (0.2 * 1.1 / 1.12 + 0.1) * 100 / (math.sqrt(3) * 138), rel=1e-9)
    assert ik[0] == pytest.approx(1.552505, rel=1e-5)


def test_public_reference_scores_one(task):
    sol = _solution(task)
    r = psab.evaluate(task, sol, backend="surrogate")
    assert r.feasible and r.score == pytest.approx(1.0)


def test_public_reference_is_proven_and_beats_baselines(task):
    ref = S.solve(task, "surrogate")
    # the export limit is floored to 0.01 MW of its AC threshold: a gap within the objective tie
    assert ref.evidence["proven"] and 0 <= ref.evidence["gap"] <= 1e-3 * ref.evidence["bound"] + 0.01
    for fn in (S.do_nothing_answer, S.naive_answer, S.dc_only_answer):
        r = psab.evaluate(task, {"answer": fn(task)}, backend="surrogate")
        assert r.score < 1.0


def test_backends_agree_on_states_and_fault_levels(task):
    """pandapower (from_mpc, runpp with lightsim2grid, calc_sc) and psab's engines on the public
    case: the same loadings and voltages in N-0 and five contingencies with the plant, the same
    fault levels before and after."""
    pytest.importorskip("pandapower")
    pytest.importorskip("lightsim2grid")
    es, ep = S.engine(task, "surrogate"), S.engine(task, "pandapower")
    st = es.st
    for _cid, br in st.contingencies[:6]:
        a, b = es.state(st.p_mw, br), ep.state(st.p_mw, br)
        assert a.converged and b.converged
        np.testing.assert_allclose(a.vm_pu, b.vm_pu, atol=1e-6)
        np.testing.assert_allclose(np.nan_to_num(a.s_mva), np.nan_to_num(b.s_mva), atol=1e-3)
    for wp in (False, True):
        np.testing.assert_allclose(es.fault_levels(wp, st.fault_buses), ep.fault_levels(wp, st.fault_buses), rtol=1e-4)


def _eval(task, answer):
    return psab.evaluate(task, {"answer": answer}, backend="surrogate")


def test_mutations_are_caught(task):
    ans = _solution(task)["answer"]
    # a dropped violation, a wrong loading, a wrong fault level, a wrong export, a plan without its SPS
    m1 = copy.deepcopy(ans)
    m1["violations"]["thermal"].pop(0)
    m2 = copy.deepcopy(ans)
    m2["violations"]["thermal"][0]["loading_pct"] *= 1.05
    m3 = copy.deepcopy(ans)
    m3["short_circuit"]["fault_levels"][0]["ikss_after_ka"] *= 0.95
    m4 = copy.deepcopy(ans)
    m4["max_export_mw"] += 5.0
    for m in (m1, m2, m3, m4):
        r = _eval(task, m)
        assert r.feasible and r.score < 1.0
    m5 = copy.deepcopy(ans)
    m5["decision"]["candidate_ids"] = [c for c in m5["decision"]["candidate_ids"] if not c.startswith("SPS")]
    r = _eval(task, m5)
    assert not r.feasible and r.score == 0.0 and any(v.field == "/decision" for v in r.violations)
    m6 = copy.deepcopy(ans)
    m6["decision"]["export_limit_mw"] *= 1.05
    assert not _eval(task, m6).feasible


@pytest.mark.parametrize("hostile", [
    {},
    {"violations": None},
    "not an object",
    {"violations": {"thermal": [{"contingency_id": "N-0", "branch_id": "x" * 5000, "loading_pct": 1e308}],
                    "voltage": [], "diverged_contingency_ids": []}},
])
def test_hostile_answers_get_a_verdict(task, hostile):
    r = psab.evaluate(task, {"answer": hostile}, backend="surrogate")
    assert not r.feasible and r.score == 0.0


def test_extreme_but_valid_answer_gets_a_verdict(task):
    ans = copy.deepcopy(_solution(task)["answer"])
    ans["decision"] = {"candidate_ids": [], "export_limit_mw": 1e300}
    ans["max_export_mw"] = 1e300
    ans["violations"]["voltage"] = [{"contingency_id": "N-0", "bus_id": "1", "vm_pu": -1e300}] * 50
    r = _eval(task, ans)
    assert not r.feasible and r.score == 0.0


def test_materialize_writes_the_listed_files(task, tmp_path):
    S.materialize(task, tmp_path)
    for f in task.public_inputs["model"]["files"]:
        data = (tmp_path / f["path"]).read_bytes()
        assert S.study_model.sha256(data) == f["sha256"]


@pytest.mark.skipif(not THOROUGH, reason="pandapower's full reference takes minutes (PSAB_THOROUGH=1)")
def test_pandapower_reference_matches(task):
    a = S.solve(task, "surrogate").answer
    b = S.solve(task, "pandapower").answer
    assert a["decision"] == b["decision"] and a["max_export_mw"] == b["max_export_mw"]
    assert [(x["contingency_id"], x["branch_id"]) for x in a["violations"]["thermal"]] == \
        [(x["contingency_id"], x["branch_id"]) for x in b["violations"]["thermal"]]


@pytest.mark.skipif(not THOROUGH, reason="a held-out draw with acceptance takes about a minute (PSAB_THOROUGH=1)")
@pytest.mark.parametrize("level", [1, 2])
def test_heldout_draw_solves_and_is_accepted(task, level):
    """A draw per level: the reference is proven and scores 1, and acceptance passes — do-nothing
    fails, the naive plan is not optimal, pandapower gives the same verdicts on the reference plan
    and on do-nothing (seeds measured to be accepted)."""
    rng = np.random.default_rng(100 * level + 1)
    gen = S.generate(task, rng, level)
    t = S.SPEC.make_task(task_id=f"ic-draw-{level}", split="heldout", public_inputs=gen.public_inputs)
    ref = S.solve(t, "surrogate")
    assert ref.evidence["proven"]
    assert psab.evaluate(t, {"answer": ref.answer}, backend="surrogate").score == pytest.approx(1.0)
    assert S.accept(t, ref) is None


def test_golden_case_from_an_independent_script():
    """golden/interconnection_study/: fault levels, violation items and the export limit from a
    script on pandapower written from the statement alone (README there)."""
    from psab.golden import check_golden, load_golden
    from psab.paths import golden_dirs

    (path,) = golden_dirs("interconnection_study")
    case = load_golden(path)
    assert check_golden(case, "surrogate") == []


@pytest.mark.parametrize("level", [1, 2])
def test_islanding_branches_are_the_outages_that_split_the_network(level):
    """Tarjan's bridges equal the brute force: remove each branch, count the components."""
    from psab.surrogates.dc_flow import components

    g = S._grid(*S.CASES[level])
    brute = set()
    for k in range(g.n_branch):
        keep = np.ones(g.n_branch, bool)
        keep[k] = False
        if len(set(components(g.n_bus, g.f[keep], g.t[keep]))) > 1:
            brute.add(k)
    assert ic.islanding_branches(g) == brute and brute  # both cases have radial branches


def test_an_unclosed_proof_falls_back_to_a_feasible_plan_and_says_so(task):
    """With no MILP round allowed the decision is the fallback (forced breakers, export limit at
    the largest export without reinforcement): it meets every criterion, and is not called proven."""
    eng = S.engine(task, "surrogate")
    dec, proof = S.solve_decision(eng, max_rounds=0)
    assert proof["proven"] is False and proof["bound"] is None
    plan = S.plan_of(eng.st, dec["candidate_ids"], dec["export_limit_mw"])
    assert S.criteria_failures(eng, plan) == []
