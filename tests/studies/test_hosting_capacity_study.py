"""hosting_capacity_study: the year-long power flow, its engines, the SimBench data, the contract.

Fast tests check the physics against numbers from outside the code (a closed-form two-bus
voltage rise; power-grid-model and pandapower on the same grid) and the study's data handling;
the long ones (a proven reference, hostile answers through the kernel, a held-out draw) run
with ``PSAB_THOROUGH=1``.
"""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

pytest.importorskip("simbench")

from psab.errors import InvalidTaskError  # noqa: E402
from psab.surrogates import distribution_pf as dpf  # noqa: E402
from psab.surrogates import hosting_year as hy  # noqa: E402

THOROUGH = os.environ.get("PSAB_THOROUGH") == "1"


def _two_bus(r_ohm: float, x_ohm: float, c_nf: float = 0.0) -> hy.MVNetwork:
    return hy.MVNetwork(vn_kv=20.0, slack=0, vm_slack_pu=1.0, vm_min_pu=np.array([0.9, 0.9]),
                        vm_max_pu=np.array([1.1, 1.1]), line_from=np.array([0]), line_to=np.array([1]),
                        line_r_ohm=np.array([r_ohm]), line_x_ohm=np.array([x_ohm]),
                        line_b_us=np.array([2 * np.pi * 50 * c_nf * 1e-3]), line_max_i_ka=np.array([0.22]),
                        line_max_loading_pct=np.array([100.0]), trafo_sn_total_mva=50.0, trafo_max_loading_pct=100.0)


def test_two_bus_voltage_rise_matches_the_closed_form():
    """10 km of NA2XS2Y 1x70 RM/25 12/20 kV (r = 0.443, x = 0.132 ohm/km: SimBench LineType.csv)
    at 20 kV, a 4 MW plant at the far end, the source at 1.0 pu. With x = |V2|² the receiving
    end solves x² − (|V1|² + 2(R P + X Q)) x + |Z|² |S|² = 0 (from V1 V2* = |V2|² − Z S*),
    on 1 MVA / 400 ohm: R = 0.011075, X = 0.0033, P = 4 pu, so b = 1.0886, |Z|²|S|² =
    0.00213673, √(b² − 4·0.00213673) = 1.0846672, x = 1.0866336, |V2| = 1.0424172 pu — a 4.24 % rise,
    by hand."""
    net = _two_bus(4.43, 1.32)
    f = hy.power_flow(net, np.array([[0.0], [4.0]]), np.zeros((2, 1)))
    r, x, p = 4.43 / 400, 1.32 / 400, 4.0
    b = 1.0 + 2 * r * p
    xx = (b + math.sqrt(b * b - 4 * (r * r + x * x) * p * p)) / 2
    assert f.vm[1, 0] == pytest.approx(math.sqrt(xx), abs=1e-9)
    assert f.vm[1, 0] == pytest.approx(1.0424172, abs=2e-7)
    # the line current is the plant's: |S| / |V2| on 1 MVA, in kA at 20 kV, over iMax 0.22 kA
    assert f.line_loading_pct[0, 0] == pytest.approx(4.0 / f.vm[1, 0] / (math.sqrt(3) * 20) / 0.22 * 100, rel=1e-9)


def test_linear_flow_is_the_first_order_estimate():
    """The linear baseline drops the loss term: its rise is R P / V² = 0.0443 pu to first order."""
    f = hy.power_flow(_two_bus(4.43, 1.32), np.array([[0.0], [4.0]]), np.zeros((2, 1)), linear=True)
    assert f.vm[1, 0] - 1.0 == pytest.approx(4.43 * 4.0 / 400, rel=2e-3)


def test_q_u_fixed_point_sits_on_the_characteristic():
    """A plant under Q(U): its converged Q is the characteristic at its converged voltage, and it
    absorbs (Q < 0) above 1.02 pu."""
    net = _two_bus(4.43, 1.32, c_nf=1900.0)   # 10 km at 190 nF/km (LineType.csv b = 59.69 µS/km)
    qu = dpf.QU(bus=np.array([1]), q_max_pu=np.array([0.33 * 4.0]), u_points_pu=(0.96, 1.0, 1.02, 1.05),
                k_points=(1.0, 0.0, 0.0, -1.0))
    p = np.array([[0.0, 0.0], [4.0, 1.0]])
    br = net.branches()
    res = dpf.solve_year(dpf.ybus(2, br), 0, 1.0 + 0j, p + 0j, qu=qu)
    vm = np.abs(res.v[1])
    assert np.allclose(res.q_qu[0], qu.q(vm[None, :])[0], atol=1e-8)
    assert res.q_qu[0, 0] < 0 and vm[0] < hy.power_flow(net, p, np.zeros_like(p)).vm[1, 0]


@pytest.fixture(scope="module")
def rural():
    from psab.studies import _simbench_grid

    return _simbench_grid.grid("1-MV-rural--0-sw")


def _mv_network(g):
    from psab.studies import _simbench_grid
    from psab.studies.hosting_capacity_study import _build, _stub_inputs

    return _build(_stub_inputs(g.code, _simbench_grid.model_files(g.code), "PV3"))


def test_grid_counts_match_the_simbench_data(rural):
    """SimBench 1-MV-rural--0-sw as the simbench package ships it: 97 nodes after the converter's
    switch handling, 99 lines, 2 × 25 MVA 110/20 kV transformers, 96 loads, 102 generators, the
    MV band 0.965-1.055 pu and loadingMax 100 %; two closed bus-bus switches fuse 4 busbar nodes
    into 2, and 6 lines are open (the normally-open points)."""
    assert rural.counts == {"buses": 97, "lines": 99, "transformers": 2, "loads": 96, "sgens": 102, "switches": 204}
    assert len(rural.bus_names) == 95 and len(rural.line_names) == 93
    assert set(rural.trafo_sn_mva) == {25.0}
    mv = rural.vn_kv == 20.0
    assert set(rural.vm_min_pu[mv]) == {0.965} and set(rural.vm_max_pu[mv]) == {1.055}
    assert rural.load_p_mw.shape == (95, 35136)


@pytest.mark.skipif(not __import__("psab.backends", fromlist=["available"]).available("power_grid_model"),
                    reason="power-grid-model not installed")
def test_power_grid_model_agrees_with_the_surrogate(rural):
    from psab.backends import power_grid_model_pf as pg

    case = _mv_network(rural)
    steps = np.arange(0, 35136, 97)
    p, q = case.p_base[:, steps], case.q_base[:, steps]
    a, b = hy.power_flow(case.net, p, q), pg.power_flow(case.net, p, q)
    assert np.max(np.abs(a.vm - b.vm)) < 1e-9
    assert np.max(np.abs(a.line_loading_pct - b.line_loading_pct)) < 1e-6
    qu = dpf.QU(bus=np.array([10, 40]), q_max_pu=np.array([1.0, 1.5]), u_points_pu=(0.96, 1.0, 1.02, 1.05),
                k_points=(0.33, 0.0, 0.0, -0.33))
    steps = steps[:60]
    p, q = case.p_base[:, steps], case.q_base[:, steps]
    p[10] += 3.0
    a, b = hy.power_flow(case.net, p, q, qu), pg.power_flow(case.net, p, q, qu)
    assert np.max(np.abs(a.vm - b.vm)) < 1e-8


def test_pandapower_snapshot_agrees(rural):
    """One step of the year in pandapower (Newton-Raphson, the same MV network built with
    create_line_from_parameters): the surrogate's voltages within 1e-7 pu."""
    pp = pytest.importorskip("pandapower")
    case = _mv_network(rural)
    net = case.net
    t = int(np.argmax(case.p_base.sum(axis=0)))
    pn = pp.create_empty_network(sn_mva=1.0)
    buses = [pp.create_bus(pn, vn_kv=net.vn_kv) for _ in range(net.n_bus)]
    pp.create_ext_grid(pn, buses[net.slack], vm_pu=net.vm_slack_pu)
    for k in range(net.line_from.size):
        pp.create_line_from_parameters(pn, buses[net.line_from[k]], buses[net.line_to[k]], length_km=1.0,
                                       r_ohm_per_km=net.line_r_ohm[k], x_ohm_per_km=net.line_x_ohm[k],
                                       c_nf_per_km=net.line_b_us[k] / (2 * np.pi * 50) * 1e3, max_i_ka=net.line_max_i_ka[k])
    for i in range(net.n_bus):
        if i != net.slack:
            pp.create_sgen(pn, buses[i], p_mw=case.p_base[i, t], q_mvar=case.q_base[i, t])
    pp.runpp(pn, tolerance_mva=1e-10, max_iteration=30)
    ours = hy.power_flow(net, case.p_base[:, [t]], case.q_base[:, [t]]).vm[:, 0]
    assert np.max(np.abs(ours - pn.res_bus.vm_pu.to_numpy())) < 1e-7
    assert np.max(np.abs(hy.power_flow(net, case.p_base[:, [t]], case.q_base[:, [t]]).line_loading_pct[:, 0]
                         - pn.res_line.loading_percent.to_numpy())) < 1e-5


def _public():
    from psab.io import load_case
    from psab.paths import case_dir

    return load_case(case_dir("hosting_capacity_study"))


def test_materialize_writes_the_listed_files(tmp_path):
    import psab.studies.hosting_capacity_study as H
    from psab.studies.model import sha256

    task = _public()
    H.materialize(task, tmp_path)
    files = task.public_inputs["model"]["files"]
    assert {f["path"] for f in files} >= {"model/Node.csv", "model/Line.csv", "model/LoadProfile.csv", "model/RESProfile.csv"}
    for f in files:
        assert sha256((tmp_path / f["path"]).read_bytes()) == f["sha256"]
    # the folder reads back with simbench's own reader: the agent's path to the model
    import simbench

    net = simbench.csv2pp(str(tmp_path / "model"))
    assert len(net.bus) == 97 and net.profiles["load"].shape[0] == 35136
    import dataclasses

    inputs = json.loads(json.dumps(task.public_inputs))
    inputs["model"]["files"][0]["sha256"] = "0" * 64
    with pytest.raises(InvalidTaskError):
        H.materialize(dataclasses.replace(task, public_inputs=inputs), tmp_path / "x")


@pytest.mark.parametrize("pointer,value", [
    ("/rollout/plants/0/node_id", "no such node"),
    ("/hosting_capacity/node_ids/0", "MV1.101 busbar1.1"),
    ("/catalogue/line_options/0/new_type", "NOT-A-TYPE"),
    ("/catalogue/curtailment/cap_levels_pct", [55, 50]),
    ("/scenario/busbar_vm_pu", 1.5),
    ("/model/simbench_code", "1-LV-rural1--0-sw"),
])
def test_broken_inputs_are_the_callers_error(pointer, value):
    import psab.studies.hosting_capacity_study as H
    from psab.jsonpointer import parse

    task = _public()
    inputs = json.loads(json.dumps(task.public_inputs))
    node = inputs
    parts = parse(pointer)
    for p in parts[:-1]:
        node = node[int(p)] if isinstance(node, list) else node[p]
    last = parts[-1]
    node[int(last) if isinstance(node, list) else last] = value
    problems = H.validate_inputs(inputs)
    assert problems, pointer


@pytest.mark.skipif(not THOROUGH, reason="a proven reference takes about a minute (PSAB_THOROUGH=1)")
def test_reference_is_proven_and_hostile_answers_get_verdicts():
    import psab
    import psab.studies.hosting_capacity_study as H

    task = _public()
    ref = json.loads((__import__("psab.paths", fromlist=["case_dir"]).case_dir(H.STUDY_ID) / "solution.json").read_text())
    r = psab.evaluate(task, ref, "surrogate")
    assert r.perfect and r.feasible
    # HC exact: feasible at HC, infeasible one resolution step up (the definition, checked on the whole year)
    case = H.case_of(task)
    for row in ref["answer"]["hosting_capacity"]:
        assert row["binding_criterion"] != "none"
    nothing = psab.evaluate(task, {"answer": H.do_nothing_answer(task)}, "surrogate")
    assert not nothing.feasible and nothing.score == 0
    naive = psab.evaluate(task, {"answer": H.naive_answer(task)}, "surrogate")
    assert naive.score < 1
    for hostile in ({"hosting_capacity": [], "decision": {}}, {"decision": {"transformer_type": "x"}}, "not an object",
                    {"hosting_capacity": [{"node_id": case.hc_nodes[0], "hc_mwp": float("nan")}] * 4,
                     "decision": H.NOTHING.to_answer()},
                    {**ref["answer"], "decision": {**ref["answer"]["decision"], "replace_lines": ["MV1.101 Line 1"] * 2}}):
        out = psab.evaluate(task, {"answer": hostile}, "surrogate")
        assert out.score == 0 and not out.feasible
