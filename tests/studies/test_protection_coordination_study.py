"""protection_coordination_study: the IEC 60909 kernel, the IEC 60255-151 times, the exact MILP,
the evaluator and the task's validation.

Numbers from outside the code: IEC 60255-151's published curve times; pandapower's ``calc_sc``
(an independent IEC 60909 engine) on the same SimBench grid; a hand-worked network feeder; a
brute-force enumeration of every pickup combination of a small coordination problem (each an
LP) against the MILP. The held-out draw and the pandapower backend's full evaluation run with
``PSAB_THOROUGH=1``.
"""

from __future__ import annotations

import itertools
import math
import os

import numpy as np
import pytest

pytest.importorskip("simbench")

import psab  # noqa: E402
from psab.errors import InvalidTaskError  # noqa: E402
from psab.studies import _protection_core as pc  # noqa: E402
from psab.studies import _protection_grid as pg  # noqa: E402
from psab.studies import protection_coordination_study as study  # noqa: E402

THOROUGH = os.environ.get("PSAB_THOROUGH") == "1"


@pytest.fixture(scope="module")
def task() -> psab.Task:
    return psab.get_family(study.STUDY_ID).public_task()


@pytest.fixture(scope="module")
def reference(task: psab.Task) -> dict:
    return psab.solve(task).answer


def test_operating_times_match_iec_60255_151():
    """IEC 60255-151 Table 1 curves at 10 × pickup, TMS 1: standard inverse 0.14/(10^0.02 − 1)
    = 2.971 s, very inverse 13.5/9 = 1.500 s (the standard's characteristic, as relay manuals
    tabulate it); no operation at or below pickup."""
    t = pc.op_time(np.array([5.0, 5.0, 0.4]), np.array([500.0, 500.0, 500.0]), np.array([1.0, 1.0, 1.0]),
                   pc.IEC_CURVES["standard_inverse"])
    assert t[0] == pytest.approx(2.971, abs=1e-3)
    assert math.isinf(t[2])
    tv = pc.op_time(np.array([5.0]), np.array([500.0]), np.array([0.5]), pc.IEC_CURVES["very_inverse"])
    assert tv[0] == pytest.approx(0.75, abs=1e-9)


def test_network_feeder_impedance_by_hand():
    """IEC 60909-0 eq. 1: Z_Q = c·U²/S″kQ; a 110 kV bus fed only by a 5000 MVA feeder (c = 1.1)
    sees I″k = S″kQ/(√3·U) = 5000/(√3·110) = 26.243 kA whatever c (c cancels)."""
    net = pg.HVNet(code="toy", bus_ids=("a",), vn_kv=np.array([110.0]), line_ids=(), line_from=np.zeros(0, int),
                   line_to=np.zeros(0, int), line_from_node=(), line_to_node=(), line_r_ohm=np.zeros(0),
                   line_x_ohm=np.zeros(0), line_max_i_ka=np.zeros(0), trafo_hv=np.zeros(0, int),
                   trafo_lv=np.zeros(0, int), trafo_sn_mva=np.zeros(0), trafo_vk_pct=np.zeros(0),
                   trafo_vkr_pct=np.zeros(0), ext_ids=("q",), ext_bus=np.array([0]), pp_bus_index=(0,))
    Y = pg.admittance(net, pg.Sources(np.array([5000.0]), np.array([0.1])), 1.1, 1.1, None)
    i_f, _ = pg.bus_fault_voltages(Y, 1.1)
    assert abs(i_f[0]) * pg.base_current_ka(110.0) == pytest.approx(5000 / (math.sqrt(3) * 110), rel=1e-12)


def test_bus_fault_currents_match_pandapower_calc_sc(task: psab.Task):
    """psab's Z-bus kernel against pandapower's calc_sc (IEC 60909, case max and min) on the
    public grid's base topology: every bus's I″k (pandapower reads the CSV folder itself)."""
    import pandapower.shortcircuit as sc

    from psab.studies import _protection_pandapower as ppp

    st = study._study(task)
    net = st.net
    for case, src, c in (("max", st.sources_max, st.c_max), ("min", st.sources_min, st.c_min)):
        i_f, _ = pg.bus_fault_voltages(pg.admittance(net, src, c, st.c_max, None), c)
        mine = np.abs(i_f) * pg.base_current_ka(net.vn_kv)
        pnet = ppp._prepared(net.code, st.sources_max, st.sources_min)
        sc.calc_sc(pnet, case=case, ip=False, ith=False)
        theirs = pnet.res_bus_sc.ikss_ka.loc[list(net.pp_bus_index)].to_numpy(float)
        np.testing.assert_allclose(mine, theirs, rtol=1e-9)


def _assert_currents_agree(mine: pc.Currents, theirs: pc.Currents, rtol: float) -> None:
    for name in ("near", "far", "near_min", "far_min", "pair_ip", "pair_ib"):
        a, b = getattr(mine, name), getattr(theirs, name)
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=name)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-9, err_msg=name)
    np.testing.assert_array_equal(mine.pair_fwd, theirs.pair_fwd)


def test_relay_currents_match_pandapower_on_part_of_the_public_case(task: psab.Task):
    """Every relay and pair current of psab's kernel against pandapower's calc_sc (the
    pandapower backend's own path: near-end faults from bus faults and branch results, the
    remote-open faults at auxiliary stub buses) in the base topology and two outages — the
    stubs that ride on an outage's call, those of the networks without two lines and those of
    lines whose outage is not in the list; the whole case under ``PSAB_THOROUGH=1``."""
    from psab.studies import _protection_pandapower as ppp

    st = study._study(task)
    outages = st.outages if THOROUGH else st.outages[:2]
    args = (st.net, st.relays, st.pairs, outages, st.sources_max, st.sources_min, st.c_max, st.c_min)
    mine = pc.surrogate_currents(*args)
    theirs = ppp.currents(*args)
    assert np.isfinite(mine.far).sum() == len(st.relays) * (len(outages) + 1) - 2 * len(outages)
    _assert_currents_agree(mine, theirs, 1e-8)


def test_a_dead_end_stub_is_inert_until_faulted_in_pandapower(task: psab.Task):
    """The pandapower backend's remote-open fault hangs a copy of the line on an auxiliary
    dead-end bus. That is sound only while pandapower's IEC 60909 leaves line capacitance and
    loads out (IEC 60909-0 §5.3.1): then an unfaulted stub changes no bus fault and no line
    current, and the fault at the stub's end equals the fault at the relay's bus through the
    line's impedance (``r_fault_ohm``/``x_fault_ohm``) — both checked on pandapower itself."""
    import logging
    import warnings

    import pandapower.shortcircuit as sc

    from psab.studies import _protection_pandapower as ppp

    logging.getLogger("pandapower").setLevel(logging.ERROR)
    st = study._study(task)
    rel = st.relays[0]
    pnet = ppp._prepared(st.net.code, st.sources_max, st.sources_min)
    li = int(pnet.line.index[rel.line])
    a = int(pnet.line.at[li, "from_bus"])
    buses = sorted({int(b) for b in pnet.line.from_bus.iloc[[r.line for r in st.relays]]})

    def run(net, bus, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sc.calc_sc(net, case="max", bus=bus, branch_results=True, return_all_currents=True, inverse_y=False, **kw)
        return net.res_bus_sc.copy(), net.res_line_sc.copy()

    bus0, line0 = run(pnet, buses)
    stub_bus, stub_line = ppp._with_stubs(pnet, 1)
    sb, sl = int(stub_bus[0]), int(stub_line[0])
    for col in ppp._STUB_COLS:
        pnet.line.at[sl, col] = pnet.line.at[li, col]
    pnet.line.at[sl, "from_bus"] = a
    pnet.line.at[sl, "in_service"] = True
    pnet.bus.at[sb, "in_service"] = True
    bus1, line1 = run(pnet, buses)
    np.testing.assert_allclose(bus1.ikss_ka.loc[buses], bus0.ikss_ka.loc[buses], rtol=1e-12)
    common = line0.index
    np.testing.assert_allclose(line1.loc[common, "ikss_from_ka"], line0.loc[common, "ikss_from_ka"], rtol=1e-12, atol=1e-12)
    assert (line1.loc[[(sl, b) for b in buses], "ikss_from_ka"].to_numpy() < 1e-9).all()  # nothing flows into it
    # the line open: its stub's end fault = the fault at a through the line's impedance
    pnet.line.at[li, "in_service"] = False
    stub_fault, _ = run(pnet, [sb])
    pnet.line.at[sl, "in_service"] = False
    z = pnet.line.at[li, "length_km"] * pnet.line.loc[li, ["r_ohm_per_km", "x_ohm_per_km"]].to_numpy(float)
    through, _ = run(pnet, [a], r_fault_ohm=float(z[0]), x_fault_ohm=float(z[1]))
    assert stub_fault.at[sb, "ikss_ka"] == pytest.approx(through.at[a, "ikss_ka"], rel=1e-12)
    assert 0.5 < stub_fault.at[sb, "ikss_ka"] < bus0.at[a, "ikss_ka"]  # a real, smaller current


def _toy_currents() -> tuple[pc.Currents, list[tuple[int, int]]]:
    """Three relays in a chain (0 backed by 1, 1 backed by 2), one topology, both points:
    currents in kA chosen so that the pickup choice matters."""
    near = np.array([[6.0, 4.0, 3.0]])
    far = np.array([[2.0, 1.6, 1.2]])
    pairs = [(0, 1), (1, 2)]
    ip = np.array([[[6.0, 2.0], [4.0, 1.6]]])
    ib = np.array([[[3.5, 1.9], [2.5, 1.5]]])
    fwd = np.ones_like(ip, dtype=bool)
    return pc.Currents(near, far, near * 0.8, far * 0.8, ip, ib, fwd), pairs


def test_milp_equals_brute_force_over_every_pickup_combination():
    """The MILP's optimum equals the best of the LPs over TMS for every combination of grid
    pickups (4³ = 64 LPs): the per-choice TMS model is exact."""
    cur, pairs = _toy_currents()
    s = pc.Settings(pc.IEC_CURVES["standard_inverse"], np.array([200.0, 400.0, 600.0, 800.0]), 0.05, 1.0, 0.3,
                    1.0, 1.0, (0, 1), (0, 1))
    allowed = [np.arange(4)] * 3
    best = math.inf
    for combo in itertools.product(range(4), repeat=3):
        r = pc.solve_milp(s, cur, pairs, allowed, fixed_pickup=np.array(combo))
        if np.isfinite(r.objective_s) and not pc.miscoordinations(s, cur, pairs, s.pickups_a[np.array(combo)], r.tms):
            best = min(best, r.objective_s)
    milp = pc.solve_milp(s, cur, pairs, allowed)
    assert milp.proven
    assert milp.objective_s == pytest.approx(best, rel=1e-7)
    pick = s.pickups_a[milp.pickup_idx]
    assert not pc.miscoordinations(s, cur, pairs, pick, milp.tms)
    assert pc.objective_s(s, cur, pick, milp.tms) == pytest.approx(milp.objective_s, rel=1e-7)


def test_a_backup_below_its_pickup_does_not_constrain():
    """A backup whose current is below its pickup does not operate: that pair point is no
    constraint, and the checker agrees with the MILP's exemption."""
    cur, pairs = _toy_currents()
    s = pc.Settings(pc.IEC_CURVES["standard_inverse"], np.array([200.0, 4000.0]), 0.05, 1.0, 0.3, 1.0, 1.0,
                    (0,), (0, 1))
    # relay 1 at 4000 A never operates as a backup (its currents are at most 2.5 kA)
    tms = np.array([0.05, 0.05, 1.0])
    pick = np.array([200.0, 4000.0, 200.0])
    assert not any(m.pair == 0 for m in pc.miscoordinations(s, cur, pairs, pick, tms))


def test_reference_is_proven_and_the_baselines_fall_short(task: psab.Task, reference: dict):
    ref = psab.solve(task)
    assert psab.evaluate(task, {"answer": reference}).perfect
    assert ref.evidence.get("proven") if hasattr(ref, "evidence") else True
    for name in ("do_nothing_answer", "naive_answer", "dc_only_answer"):
        r = psab.evaluate(task, {"answer": getattr(study, name)(task)})
        assert r.score < 0.9, name
    assert not psab.evaluate(task, {"answer": study.do_nothing_answer(task)}).feasible


def test_evaluator_catches_broken_settings(task: psab.Task, reference: dict):
    import copy

    # every TMS 20 % lower: some backup becomes too fast (or a TMS leaves its range)
    a = copy.deepcopy(reference)
    for row in a["settings"].values():
        row["tms"] = max(0.05, row["tms"] * 0.8)
    r = psab.evaluate(task, {"answer": a})
    assert not r.feasible and r.score == 0.0
    # a relay left out, one off the grid: violations, never an error (the evaluator without the schema)
    first, second = list(reference["settings"])[:2]
    b = copy.deepcopy(reference)
    del b["settings"][first]
    b["settings"][second]["pickup_a"] = 123.4
    assess = study.evaluate(task, b, _Ctx(task))
    assert assess.violations and {v.field for v in assess.violations} >= {f"/settings/{second}/pickup_a"}
    # a wrong current scores the analysis below one but keeps the decision feasible
    c = copy.deepcopy(reference)
    c["relay_currents"][first]["i_fault_max_ka"] *= 1.05
    r = psab.evaluate(task, {"answer": c})
    assert r.feasible and r.evidence["deliverable_scores"]["relay_currents"] < 1.0


class _Ctx:
    """What the kernel hands an evaluator: the backend, the tolerances and the reference."""

    backend = "surrogate"

    def __init__(self, task: psab.Task) -> None:
        from psab.evaluators.tolerance import Tolerance

        self.tol = Tolerance.from_task(task.tolerances)
        self._task = task

    def reference(self):
        return psab.solve(self._task)


def test_bad_inputs_are_clean_errors(task: psab.Task):
    import copy

    bad = copy.deepcopy(task.public_inputs)
    bad["relays"][0]["line_id"] = "no such line"
    problems = study.validate_inputs(bad)
    assert problems and "/relays/0/line_id" in problems[0]
    with pytest.raises(InvalidTaskError, match="relays/0/line_id"):
        study.study_of(bad)
    bad = copy.deepcopy(task.public_inputs)
    bad["short_circuit"]["sources"] = bad["short_circuit"]["sources"][:1]
    assert any("/short_circuit/sources" in p for p in study.validate_inputs(bad))


@pytest.mark.skipif(not THOROUGH, reason="a held-out draw's load flows and MILP (~1 min); PSAB_THOROUGH=1")
def test_held_out_draw_is_valid_and_solved():
    t = psab.generate(study.STUDY_ID, "protection-test", 0, level=1)
    ref = psab.solve(t)
    assert psab.evaluate(t, ref).perfect


@pytest.mark.skipif(not THOROUGH, reason="pandapower's currents and MILP of the public case (~1 min); PSAB_THOROUGH=1")
def test_pandapower_backend_agrees_on_the_public_case(task: psab.Task, reference: dict):
    r = psab.evaluate(task, {"answer": reference}, "pandapower")
    assert r.perfect


def test_malformed_inputs_are_problems_not_exceptions(task: psab.Task):
    import copy

    bad = copy.deepcopy(task.public_inputs)
    del bad["settings"]["cti_s"]
    assert study.validate_inputs(bad)
    bad = copy.deepcopy(task.public_inputs)
    bad["short_circuit"]["c_max"] = 1.05
    assert any("/short_circuit" in p for p in study.validate_inputs(bad))


def test_materialize_writes_the_listed_simbench_folder(task: psab.Task, tmp_path):
    study.materialize(task, tmp_path)
    listed = {f["path"] for f in task.public_inputs["model"]["files"]}
    assert {"model/Line.csv", "model/Node.csv", "model/StudyCases.csv", "model/ExternalNet.csv"} <= listed
    assert all((tmp_path / p).is_file() for p in listed)
