"""flisr_restoration: the restoration MILP, LinDistFlow against the AC check, bad input."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import flisr_restoration as fam
from psab.io import load_case
from psab.paths import case_dir
from psab.surrogates import restoration as rs

from conftest import need_backend

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _public():
    return load_case(case_dir(fam.FAMILY_ID))


def test_octagon_vertices_on_the_circle_edges_inside():
    # The inscribed regular octagon has its vertices at 0, 45°, 90°, … on the circle |S| = S_r
    # and its edge midpoints at 22.5°, … at S_r·cos(22.5°) = 0.92388·S_r.
    assert rs.octagon_excess([2.0], [0.0], [2.0])[0] == pytest.approx(0.0, abs=1e-12)
    assert rs.octagon_excess([np.sqrt(2.0)], [np.sqrt(2.0)], [2.0])[0] == pytest.approx(0.0, abs=1e-12)
    a = 2.0 * 0.9238795325
    assert rs.octagon_excess([a * np.cos(np.pi / 8)], [a * np.sin(np.pi / 8)], [2.0])[0] == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1, 2]))
def test_reference_is_radial_isolates_the_fault_and_beats_the_naive_plan(seed, level):
    inp = fam.draw(np.random.default_rng(seed), level)
    task = fam.SPEC.make_task(task_id="t", split="heldout", public_inputs=inp)
    ref = fam.solve(task, "surrogate")
    assert ref.objective == pytest.approx(ref.evidence["milp_objective"], abs=1e-6)
    ctx = fam._Ctx(task, "surrogate")
    r = fam.evaluate(task, ref.answer, ctx)
    assert not r.violations and r.objective == pytest.approx(ref.objective)
    naive = fam.evaluate(task, fam.naive_answer(task), ctx)
    assert naive.violations or naive.objective <= ref.objective + 1e-9


def test_lin_dist_flow_tracks_the_ac_check_on_the_public_reference():
    need_backend("pandapower")
    from psab.backends import pandapower_restoration as ppr

    task = _public()
    inp = task.public_inputs
    m = fam.model(inp)
    ref = fam.solve(task, "surrogate")
    closed = m["normally_closed"].copy()
    sw = {s["id"]: s["branch"] for s in inp["switches"]}
    for x in ref.answer["open_switches"]:
        closed[m["br_ids"].index(sw[x])] = False
    for x in ref.answer["close_switches"]:
        closed[m["br_ids"].index(sw[x])] = True
    flow = rs.configuration_flow(m["n"], m["f"], m["t"], m["r"], m["x"], closed, m["src"], inp["source_vm_pu"],
                                 inp["base_kv"], m["p"] + m["pf"], m["q"] + m["qf"])
    ac = ppr.ac_check("test", inp, {s for s, b in sw.items() if closed[m["br_ids"].index(b)]})
    for i, b in enumerate(m["bus_ids"]):
        if flow.energised[i]:
            assert ac["vm_pu"][b] == pytest.approx(flow.v_pu[i], abs=0.01)  # LinDistFlow error bound at this load
        else:
            assert ac["vm_pu"][b] is None


def test_reference_scores_one_under_both_judges_on_the_public_case():
    need_backend("pandapower")
    task = _public()
    for backend in ("surrogate", "pandapower"):
        r = psab.evaluate(task, {"answer": fam.solve(task, "surrogate").answer}, backend=backend)
        assert r.score == pytest.approx(1.0)


def test_malformed_plans_are_one_violation_each():
    task = _public()
    ref = fam.solve(task, "surrogate").answer
    dup = {**ref, "open_switches": ref["open_switches"] + ref["open_switches"][:1]}
    r = psab.evaluate(task, {"answer": dup})
    assert not r.feasible and len(r.violations) == 1
    unknown = {**ref, "close_switches": ["S99"]}
    r = psab.evaluate(task, {"answer": unknown})
    assert not r.feasible and len(r.violations) == 1


def test_bad_input_is_the_callers_error():
    inp = copy.deepcopy(_public().public_inputs)
    with pytest.raises(InvalidTaskError, match="/faulted_branches/0"):
        fam.model(inp | {"faulted_branches": ["L99-100"]})
    looped = copy.deepcopy(inp)
    looped["switches"][-1]["normally_closed"] = True  # close the tie S1: a loop in the normal state
    with pytest.raises(InvalidTaskError, match="not radial"):
        fam.model(looped)
    same = copy.deepcopy(inp)
    same["branches"][3]["to_bus"] = same["branches"][3]["from_bus"]
    with pytest.raises(InvalidTaskError, match="itself"):
        fam.model(same)
