"""scuc_study level 2 (IEEE 300, PGLib-OPF pglib_opf_case300_ieee): the vendored case against
its published counts, psab's PTDF/LODF and phase-shifter flows against PYPOWER's (pandapower's
makePTDF/makeLODF/makeBdc, an independent implementation of MATPOWER's DC model), the derived
unit table, the outage screens, and level 1 left as it was. Level 2 is not registered yet
(docs/studies.md: its reference MILP is infeasible on the draws tried), so no solve is tested here."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

S = pytest.importorskip("psab.studies.scuc_study")

import psab  # noqa: E402
from psab.errors import InvalidTaskError  # noqa: E402
from psab.surrogates import matpower_file as mp  # noqa: E402

CASE = S.CASE300


def _case() -> mp.MatpowerCase:
    return mp.read_matpower(str(S.study_model.vendored(CASE.case_file)))


def test_case300_is_pglib_v23_07_as_published():
    """The vendored file is PGLib-OPF's blob at commit dc6be4b (git blob id, read from the
    repository), with BASELINE.md's counts (300 buses, 411 branches), 69 gen rows of which the
    12 whose gencost comment says SYNC are condensers (Pmax 0), and 23,525.85 MW of bus load."""
    raw = S.study_model.vendored(CASE.case_file).read_bytes()
    blob = hashlib.sha1(b"blob %d\0" % len(raw) + raw).hexdigest()
    assert blob == "92d03963ed36dd4072915b1cdfabf5a7273b02cc"
    c = _case()
    assert (len(c.bus), len(c.branch), len(c.gen)) == (300, 411, 69)
    assert c.bus[:, 2].sum() == pytest.approx(23525.85, abs=1e-6)
    text = raw.decode()
    gencost = text[text.index("mpc.gencost"):]
    assert gencost[: gencost.index("];")].count("% SYNC") == 12
    assert int((c.gen[:, 8] > 0).sum()) == 57


def test_units_are_the_cases_gen_rows_by_the_class_rule():
    """units.csv of case300: one row per gen row with Pmax > 0 (57), its Pmax and linear cost c1
    (PGLib's gencost, c2 = 0) — the cost at Pmin is c1·Pmin and every segment is priced c1 —
    and the shipped file is what the builder writes."""
    assert S._file_bytes(CASE.units_file).decode() == S.build_units_csv(CASE)
    head, data = S._read_csv(CASE.units_file)
    col = {h: data[:, i] for i, h in enumerate(head)}
    c = _case()
    assert len(data) == 57
    for k in range(len(data)):
        row = int(col["gen"][k]) - 1
        assert col["bus"][k] == c.gen[row, 0] and col["pmax_mw"][k] == c.gen[row, 8]
        c1 = c.gencost[row, 5]
        assert col["cost_at_pmin_usd_per_h"][k] == pytest.approx(c1 * col["pmin_mw"][k], abs=1e-3)
        for j in (1, 2, 3):
            assert col[f"seg{j}_usd_per_mwh"][k] == pytest.approx(c1, abs=1e-4)


def test_ptdf_lodf_and_shift_flows_match_pypower():
    """psab's PTDF/LODF of case300 equal pandapower's makePTDF/makeLODF, and psab's DC flows
    (PTDF × injections + the phase shifter's flows) equal MATPOWER's DC power flow as PYPOWER
    writes it (makeBdc: B θ = P − Pbusinj, Pf = Bf θ + Pfinj) at an arbitrary balanced dispatch."""
    pytest.importorskip("pandapower")
    from pandapower.pypower.makeBdc import makeBdc
    from pandapower.pypower.makeLODF import makeLODF
    from pandapower.pypower.makePTDF import makePTDF

    c = _case()
    bus, branch = c.bus.copy(), c.branch.copy()
    ix = {int(b): i for i, b in enumerate(bus[:, 0])}
    bus[:, 0] = np.arange(len(bus))
    branch[:, 0] = [ix[int(b)] for b in branch[:, 0]]
    branch[:, 1] = [ix[int(b)] for b in branch[:, 1]]
    slack = int(np.flatnonzero(bus[:, 1] == 3)[0])
    P = makePTDF(c.base_mva, bus, branch, slack=slack)
    _, _, ours_p, ours_l = S._network(CASE.case_file)
    np.testing.assert_allclose(ours_p, P, atol=1e-8)
    L = makeLODF(branch, P)
    keep = [k for k in range(len(branch)) if k not in S.bridges(CASE.case_file)]
    mask = ~np.eye(len(branch), dtype=bool)[:, keep]
    np.testing.assert_allclose(ours_l[:, keep][mask], L[:, keep][mask], atol=1e-6)
    # DC power flow with the shifter (branch 390, −11.4°)
    assert np.count_nonzero(branch[:, 9]) == 1
    inj = -bus[:, 2].copy()
    gens = [ix[int(b)] for b in c.gen[c.gen[:, 8] > 0, 0]]
    np.add.at(inj, gens, -inj.sum() / len(gens))
    Bbus, Bf, Pbusinj, Pfinj, _ = makeBdc(bus, branch)
    Bbus, Bf = Bbus.toarray(), Bf.toarray()
    rest = [i for i in range(len(bus)) if i != slack]
    theta = np.zeros(len(bus))
    rhs = inj / c.base_mva - Pbusinj
    theta[rest] = np.linalg.solve(Bbus[np.ix_(rest, rest)], rhs[rest])
    theirs = (Bf @ theta + Pfinj) * c.base_mva
    ours = ours_p @ inj + S._shift_flows(CASE.case_file)
    np.testing.assert_allclose(ours, theirs, atol=1e-6)


def test_outage_screens():
    """The pairwise screen drops the outages no dispatch can secure alone (none in case118;
    in case300 e.g. branch 268's outage leaves branch 269 with 840 MW of load flow against
    610 MW), and CASE300.screened is what the joint LP screen finds at the top of the draws'
    load range."""
    assert S.unsecurable(S.CASE_FILE) == frozenset()
    un = {k + 1 for k in S.unsecurable(CASE.case_file)}
    assert 268 + 1 in un and len(un) == 9
    assert tuple(S.screen_outages(CASE, CASE.scale[1])) == CASE.screened


def test_level1_is_unchanged():
    """Level 1 keeps its public inputs, units file and held-out draws: the stored public task is
    what the module builds, and a level-1 draw names case118."""
    spec = psab.get_family("scuc_study")
    task = spec.public_task()
    assert psab.contract.digest(S._public_inputs()) == psab.contract.digest(task.public_inputs)
    assert S._file_bytes(S.UNITS_FILE).decode() == S.build_units_csv()
    g = S.generate(task, np.random.default_rng(0), 1)
    assert g.public_inputs["case"] == {"name": "pglib_opf_case118_ieee"}


def test_level2_draw_is_a_valid_case300_task():
    spec = psab.get_family("scuc_study")
    g = S.generate(None, np.random.default_rng(3), 2)
    inputs = g.public_inputs
    assert inputs["case"]["name"] == "pglib_opf_case300_ieee" and "note" in inputs["case"]
    listed = {c["branch_id"] for c in inputs["security"]["contingencies"]}
    assert not listed & set(CASE.screened)
    task = spec.make_task(task_id="l2", split="heldout", public_inputs=inputs)
    spec.check_inputs(task)
    st = S._study(task)
    assert st.n_gen == 57 and st.n_bus == 300 and len(st.branch_ids) == 411
    size = S.model_size(task)
    assert size["case"] == "pglib_opf_case300_ieee" and size["units"] == 57


def test_unsecurable_outage_is_an_invalid_task():
    spec = psab.get_family("scuc_study")
    inputs = S.scenario_inputs("winter", 0.9, [], 2.0, ["269"], case=CASE)
    with pytest.raises(InvalidTaskError, match="no dispatch"):
        spec.check_inputs(spec.make_task(task_id="x", split="heldout", public_inputs=inputs))

