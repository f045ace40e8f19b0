"""dynamic_security_study: the PSS/E model files, the ANDES engine, the contract.

Fast tests check the model against numbers from outside the code — the power-flow solution PSS/E
stored in the .raw itself (ANDES's Newton–Raphson must reproduce it with the file's own dispatch),
and the .dyr against ANDES's own spreadsheet of the same machines — and the study's input handling.
The ANDES runs (a proven reference, baselines and hostile answers through the kernel, a held-out
draw) take minutes on two shared cores, and run with ``PSAB_THOROUGH=1``; the public case's
reference is still exercised by tests/studies/test_study_conformance.py.
"""

from __future__ import annotations

import copy
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("andes")

import psab  # noqa: E402
from psab.errors import InvalidTaskError  # noqa: E402
from psab.studies import _ieee39_dynamics as dyn  # noqa: E402
from psab.studies import dynamic_security_study as st  # noqa: E402

THOROUGH = os.environ.get("PSAB_THOROUGH") == "1"


def _raw_bus_solution() -> dict[int, tuple[float, float]]:
    """(|V| pu, angle deg) of every bus as PSS/E solved and stored them in the .raw's bus records."""
    out = {}
    for line in dyn.raw_bytes().decode().splitlines()[3:]:
        if line.startswith("0 /"):
            break
        f = [x.strip() for x in line.split(",")]
        out[int(f[0])] = (float(f[7]), float(f[8]))
    return out


def test_andes_power_flow_reproduces_the_solution_stored_in_the_raw():
    """The .raw's bus records carry the solution PSS/E computed for the file's own dispatch (wind
    plants in service): ANDES's Newton–Raphson on the same file must land on it (a check of the
    model file and its reading, from outside psab)."""
    import andes

    from psab.backends import andes_tds as at

    at._quiet()
    ss = andes.load(str(dyn.model_dir() / dyn.RAW_NAME), no_output=True, default_config=True,
                    pycode_path=str(at.pycode_dir()), autogen_stale=False)
    ss.PFlow.run()
    assert ss.PFlow.converged
    stored = _raw_bus_solution()
    v = dict(zip((int(b) for b in ss.Bus.idx.v), ss.dae.y[ss.Bus.v.a], strict=True))
    a = dict(zip((int(b) for b in ss.Bus.idx.v), np.degrees(ss.dae.y[ss.Bus.a.a]), strict=True))
    ref = a[39] - stored[39][1]  # the .raw's angles against its own slack's
    worst_v = max(abs(v[b] - stored[b][0]) for b in stored)
    worst_a = max(abs(a[b] - ref - stored[b][1]) for b in stored)
    assert worst_v < 2e-3 and worst_a < 0.2, (worst_v, worst_a)


def test_dyr_is_andes_spreadsheet_on_the_raw_machine_base():
    """Every GENROU, IEEEX1 and TGOV1 parameter ANDES reads from psab's .dyr equals ANDES's own
    ieee39_full.xlsx (the data the .dyr is written from), the inertia constant H·Sn and reactances
    in ohms being the same physical machine where the .raw's MBASE differs (bus 30)."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("openpyxl")
    import andes

    xlsx = pd.read_excel(Path(andes.get_case("ieee39/ieee39_full.xlsx")), sheet_name=None)
    sim = dyn.Simulation(dict(st.RAW_PG_MW), 1.0, (16,), ("16-17",), 0.5, 0.02, 180.0)
    g = sim.ss.GENROU
    mva = sim.ss.config.mva
    for _, row in xlsx["GENROU"].iterrows():
        k = g.bus.v.index(row.bus) if isinstance(g.bus.v, list) else list(g.bus.v).index(row.bus)
        sn = float(g.Sn.v[k])
        # after setup ANDES holds M and reactances on the system base (100 MVA)
        assert float(g.M.v[k]) == pytest.approx(float(row.M) * float(row.Sn) / mva, rel=1e-9)
        assert float(g.xd1.v[k]) == pytest.approx(float(row.xd1) * mva / float(row.Sn), rel=1e-9)
        assert float(g.Td10.v[k]) == pytest.approx(float(row.Td10))
        assert sn == pytest.approx(dyn.RAW_MBASE_MVA.get(int(row.bus), float(row.Sn)))
    ex = sim.ss.IEEEX1
    for _, row in xlsx["IEEEX1"].iterrows():
        k = list(ex.syn.v).index(next(s for s, b in zip(g.idx.v, g.bus.v, strict=True)
                                      if int(b) == int(xlsx["GENROU"].set_index("idx").loc[row.syn, "bus"])))
        assert float(ex.KA.v[k]) == pytest.approx(float(row.KA))
        assert float(ex.TE.v[k]) == pytest.approx(float(row.TE))
    assert sim.ss.TGOV1.n == 10 and sim.ss.IEEEX1.n == 10 and g.n == 10


def test_wind_plants_out_and_the_slack_takes_the_balance():
    """Load 5856.8 MW (the .raw's loads), nine machines at the .raw's PG (5192.93 MW): the slack
    at bus 39 carries the rest plus losses."""
    sim = dyn.Simulation(dict(st.RAW_PG_MW), 1.0, (16,), ("16-17",), 0.5, 0.02, 180.0)
    load = float(np.sum(sim.ss.PQ.p0.v)) * 100
    assert load == pytest.approx(5856.8, abs=1e-6)
    assert 5856.8 - 5192.93 < sim.slack_mw < 5856.8 - 5192.93 + 120  # losses of a few tens of MW


def test_public_inputs_validate_and_broken_ones_name_the_field():
    task = psab.get_family(st.STUDY_ID).public_task()
    assert st.validate_inputs(task.public_inputs) == []
    cases = {
        "/scenario/load_scale": lambda i: i["scenario"].__setitem__("load_scale", "big"),
        "/faults/0/trip_line": lambda i: i["faults"][0].__setitem__("trip_line", "2-30"),
        "/faults": lambda i: i["faults"].append(dict(i["faults"][0])),
        "/catalogue/options/0/from_generator_bus": lambda i: i["catalogue"]["options"][0].__setitem__("from_generator_bus", "39"),
        "/cct/min_s": lambda i: i["cct"].__setitem__("min_s", 0.055),
        "/t_clear_s": lambda i: i.__setitem__("t_clear_s", 0.123),
        "/catalogue/options": lambda i: i["catalogue"]["options"][0].__setitem__("shift_mw", 999.0),
    }
    for field, breaker in cases.items():
        inputs = copy.deepcopy(task.public_inputs)
        breaker(inputs)
        problems = st.validate_inputs(inputs)
        assert problems and any(p.startswith(field) for p in problems), (field, problems)
        with pytest.raises(InvalidTaskError, match=re.escape(field)):
            st.case_of_inputs(inputs)


def test_materialize_writes_the_listed_files(tmp_path):
    task = psab.get_family(st.STUDY_ID).public_task()
    st.materialize(task, tmp_path)
    assert (tmp_path / "model" / "ieee39.raw").read_bytes() == dyn.raw_bytes()
    dyr = (tmp_path / "model" / "ieee39.dyr").read_text()
    assert dyr.count("'GENROU'") == 10 and dyr.count("'IEEEX1'") == 10 and dyr.count("'TGOV1'") == 10
    bad = copy.deepcopy(task.public_inputs)
    bad["model"]["files"][1]["sha256"] = "0" * 64
    with pytest.raises(InvalidTaskError, match="sha256"):
        st.materialize(psab.get_family(st.STUDY_ID).make_task(task_id="x", split="public", public_inputs=bad), tmp_path)


def test_cost_and_dispatch_of_a_decision():
    case = st.case_of(psab.get_family(st.STUDY_ID).public_task())
    o = case.options[0]
    p = st.dispatch_for(case, (o.id,))
    assert p[o.from_bus] == pytest.approx(dict(case.dispatch_mw)[o.from_bus] - o.shift_mw)
    if o.to_bus != st.SLACK_BUS:
        assert p[o.to_bus] == pytest.approx(dict(case.dispatch_mw)[o.to_bus] + o.shift_mw)
    assert st.cost_usd(case, (o.id,)) == pytest.approx(o.shift_mw * o.cost_usd_per_mw)
    assert st.subsets_in_cost_order(case)[0] == ()


@pytest.mark.skipif(not THOROUGH, reason="ANDES runs: minutes (PSAB_THOROUGH=1)")
def test_reference_answer_is_self_consistent():
    """The reference's CCT is a stability boundary (stable at CCT, unstable one step up), its unstable
    set is exactly the faults with CCT < t_clear_s, and its decision leaves every fault stable."""
    task = psab.get_family(st.STUDY_ID).public_task()
    case = st.case_of(task)
    ref = psab.solve(task).answer
    runner = st.Runner(case)
    for f, row in zip(case.faults, ref["cct"], strict=True):
        k = case.grid_k(row["cct_s"])
        if 0 < row["cct_s"] < case.cct_max_s:
            assert runner.verdict((), f, k).stable and not runner.verdict((), f, k + 1).stable
        assert (f.id in ref["unstable_faults"]) == (row["cct_s"] < case.t_clear_s - 1e-9)
    chosen = tuple(ref["decision"]["redispatch_option_ids"])
    assert all(runner.verdict(chosen, f, case.grid_k(case.t_clear_s)).stable for f in case.faults)


@pytest.mark.skipif(not THOROUGH, reason="ANDES runs: minutes (PSAB_THOROUGH=1)")
def test_baselines_score_below_the_reference():
    task = psab.get_family(st.STUDY_ID).public_task()
    for name, fn in (("do nothing", st.do_nothing_answer), ("naive", st.naive_answer), ("classical", st.dc_only_answer)):
        r = psab.evaluate(task, {"answer": fn(task)})
        assert r.score < 1.0, name
    assert psab.evaluate(task, {"answer": st.do_nothing_answer(task)}).feasible is False


@pytest.mark.skipif(not THOROUGH, reason="a held-out draw with acceptance: minutes (PSAB_THOROUGH=1)")
def test_held_out_draw_is_accepted():
    task = psab.generate(st.STUDY_ID, seed="dynsec-test", index=0)
    assert st.validate_inputs(task.public_inputs) == []
    ref = psab.solve(task)
    assert ref.answer["unstable_faults"]
    assert math.isfinite(ref.objective)
