"""dynamic_security_study: the PSS/E model files, the ANDES engine, the contract.

Fast tests check the model against numbers from outside the code — the power-flow solution PSS/E
stored in the .raw itself (ANDES's Newton–Raphson must reproduce it with the file's own dispatch),
and the .dyr against ANDES's own spreadsheet of the same machines — and the study's input handling.
The ANDES runs (a proven reference, baselines and hostile answers through the kernel, a held-out
draw) take minutes on two shared cores, and run with ``PSAB_THOROUGH=1``; the public case's
reference is still exercised by tests/studies/test_conformance_dynamic_security_study.py.
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
from psab.errors import InvalidTaskError, SolverError  # noqa: E402
from psab.studies import _ieee39_dynamics as dyn  # noqa: E402
from psab.studies import dynamic_security_study as st  # noqa: E402

THOROUGH = os.environ.get("PSAB_THOROUGH") == "1"


def _raw_network() -> tuple[dict[int, int], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The study's operating point read from the .raw text by this test alone (PSS/E v33 record
    layout, POM §5.2): buses, loads, the nine PV machines and the slack at their VS, branch π-models,
    two-winding transformers (CW = CZ = 1: ratio WINDV1/WINDV2 on the system base), switched shunts
    at BINIT; the wind plants at buses 2, 10, 20, 25 out. Returns bus position, Y-bus, S spec (pu),
    bus type and the voltage magnitudes to hold."""
    text = dyn.raw_bytes().decode().splitlines()
    sections: list[list[list[str]]] = [[]]
    for line in text[3:]:
        if line.startswith("0 /") or line.strip() == "Q":
            sections.append([])
            continue
        sections[-1].append([x.strip().strip("'").strip() for x in line.split("/")[0].split(",")])
    buses, loads, _fixed, gens, branches, trafos = sections[:6]
    switched = sections[16]
    pos = {int(b[0]): i for i, b in enumerate(buses)}
    n = len(pos)
    y = np.zeros((n, n), dtype=complex)
    s_spec = np.zeros(n, dtype=complex)
    kind = np.full(n, 1)  # PQ
    vm = np.ones(n)
    for r in loads:
        s_spec[pos[int(r[0])]] -= complex(float(r[5]), float(r[6])) / 100.0
    for r in gens:
        b = int(r[0])
        if b in dyn.WIND_BUSES:
            continue
        kind[pos[b]] = 3 if b == 39 else 2
        vm[pos[b]] = float(r[6])
        if b != 39:
            s_spec[pos[b]] += float(r[2]) / 100.0
    for r in branches:
        f, t = pos[int(r[0])], pos[abs(int(r[1]))]
        ys, bc = 1.0 / complex(float(r[3]), float(r[4])), float(r[5])
        y[f, f] += ys + 0.5j * bc
        y[t, t] += ys + 0.5j * bc
        y[f, t] -= ys
        y[t, f] -= ys
    for k in range(0, len(trafos), 4):
        r1, r2, r3, r4 = trafos[k:k + 4]
        f, t = pos[int(r1[0])], pos[int(r1[1])]
        ys = 1.0 / complex(float(r2[0]), float(r2[1]))
        a = float(r3[0]) / float(r4[0]) * np.exp(1j * np.radians(float(r3[2])))
        y[f, f] += ys / abs(a) ** 2
        y[t, t] += ys
        y[f, t] -= ys / np.conj(a)
        y[t, f] -= ys / a
    for r in switched:
        y[pos[int(r[0])], pos[int(r[0])]] += 1j * float(r[9]) / 100.0
    return pos, y, s_spec, kind, vm


def test_andes_power_flow_agrees_with_an_independent_newton_raphson_on_the_raw():
    """The study's operating point (the .raw's loads and dispatch, wind plants out): ANDES's power
    flow and psab's own Newton–Raphson (psab.surrogates.ac_power_flow) on a Y-bus this test builds
    from the .raw text itself agree — the model files read as PSS/E defines them."""
    from psab.surrogates import ac_power_flow as acpf

    pos, y, s_spec, kind, vm = _raw_network()
    v0 = vm.astype(complex)
    res = acpf.newton_raphson(y, s_spec, kind, v0)
    assert res.converged
    sim = dyn.Simulation(dict(st.RAW_PG_MW), 1.0, (16,), ("16-17",), 0.5, 0.02, 180.0)
    ss = sim.ss
    v_andes = dict(zip((int(b) for b in ss.Bus.idx.v), sim.pf_bus_v, strict=True))
    worst = max(abs(abs(res.V[i]) - v_andes[b]) for b, i in pos.items())
    assert worst < 1e-6, worst
    # the slack's output: psab's NR balance against ANDES's
    p_slack = ((res.V * np.conj(y @ res.V))[pos[39]] - s_spec[pos[39]]).real * 100.0  # its injection + its load
    assert p_slack == pytest.approx(sim.slack_mw, abs=1e-3)


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
    ref = st.solve(task, "surrogate")
    assert ref.answer["unstable_faults"]
    assert math.isfinite(ref.objective)


def test_a_run_stopped_at_the_verdict_agrees_with_the_run_to_the_horizon():
    """Stopping a run once the separation passes the limit cannot change the verdict: on the public
    case's fault at bus 10 (unstable at 0.25 s, stable at 0.15 s: its CCT is 0.22 s) the stopped
    run and the run to the horizon agree, the full run's stored angles pass the limit within one
    step of the stopped run's verdict time, and never pass it in the stable run."""
    case = st.case_of(psab.get_family(st.STUDY_ID).public_task())
    sim = dyn.Simulation(dict(case.dispatch_mw), case.load_scale, (10,), ("10-13",), case.horizon_s, case.step_s,
                         case.limit_deg)
    for t_clear, stable in ((0.25, False), (0.15, True)):
        stopped = sim.run(10, "10-13", t_clear)
        full = sim.run(10, "10-13", t_clear, stop_early=False)
        assert stopped.stable is full.stable is stable
        x = np.asarray(sim.ss.dae.ts.x[:, sim.a_delta], dtype=float)
        t = np.asarray(sim.ss.dae.ts.t, dtype=float) - dyn.T_FAULT_S
        over = np.flatnonzero(np.degrees(x.max(axis=1) - x.min(axis=1)) > case.limit_deg)
        if stable:
            assert over.size == 0 and t[-1] == pytest.approx(case.horizon_s)
        else:
            assert stopped.t_verdict_s == pytest.approx(full.t_verdict_s)
            assert abs(t[over[0]] - stopped.t_verdict_s) <= case.step_s + 1e-9
            assert stopped.t_verdict_s < case.horizon_s - 0.5  # the stopped run saved most of the horizon


class _TableRunner:
    """A stand-in for :class:`st.Runner` whose verdicts come from a stability table (subset, fault)
    -> stable, counting the runs: the search logic without ANDES."""

    def __init__(self, case: st.Case, stable: dict[tuple[tuple[str, ...], str], bool]) -> None:
        self.case, self.stable, self.dynamics, self.runs, self.builds = case, stable, "detailed", 0, 0

    def op_key(self, chosen: tuple[str, ...]) -> str:
        return "table:" + ",".join(sorted(chosen))

    def verdict(self, chosen: tuple[str, ...], fault: st.Fault, k: int) -> dyn.Verdict:
        self.runs += 1
        ok = self.stable[(tuple(sorted(chosen)), fault.id)]
        v = dyn.Verdict(ok, 150.0 if ok else 181.0, 1.5 if ok else 0.6)
        st._VERDICTS[(self.op_key(chosen), fault.bus, fault.trip_line, round(k * self.case.resolution_s, 9))] = v
        return v


def test_enumeration_finds_the_cheapest_all_stable_subset_whatever_the_fault_order(monkeypatch):
    """On random stability tables over the public catalogue's 32 subsets (no monotonicity: an option
    may make a fault unstable), the search returns the cheapest subset stable for every fault — the
    brute-force optimum computed here — and calls no cheaper subset stable; the order in which it
    tries the faults only changes how many runs it spends."""
    monkeypatch.setenv("PSAB_STUDY_WORKERS", "1")
    monkeypatch.setattr(st, "_pool", lambda: None)  # the stand-in's verdicts live in this process only
    case = st.case_of(psab.get_family(st.STUDY_ID).public_task())
    subs = st.subsets_in_cost_order(case)
    rng = np.random.default_rng(7)
    for trial in range(20):
        p_stable = 0.6 + 0.35 * rng.random()
        table = {(sub, f.id): bool(rng.random() < p_stable) for sub in subs for f in case.faults}
        feasible = [sub for sub in subs if all(table[(sub, f.id)] for f in case.faults)]
        st._VERDICTS.clear()
        runner = _TableRunner(case, table)
        if not feasible:
            with pytest.raises(SolverError):
                st.best_decision(runner)  # type: ignore[arg-type]
            continue
        best = min(feasible, key=lambda t: (round(st.cost_usd(case, t), 6), len(t), t))
        got, ev = st.best_decision(runner, [case.faults[trial % len(case.faults)]])  # type: ignore[arg-type]
        assert got == best, trial
        assert ev["subsets_checked"] == subs.index(best) + 1
    st._VERDICTS.clear()


@pytest.mark.skipif(not THOROUGH, reason="a level-2 draw with acceptance: minutes (PSAB_THOROUGH=1)")
def test_level_two_draw_is_accepted_and_its_reference_scores_one():
    """A level-2 draw: 8-12 faults, 8 options (256 subsets), three or more faults unstable at the
    clearing time; the reference is accepted (the naive local fix is not optimal) and scores 1."""
    task = psab.generate(st.STUDY_ID, seed="dynsec-test", index=0, level=2)
    assert st.validate_inputs(task.public_inputs) == []
    case = st.case_of(task)
    assert 8 <= len(case.faults) <= st.MAX_FAULTS and len(case.options) == 8
    ref = psab.solve(task)
    assert len(ref.answer["unstable_faults"]) >= 3
    assert psab.evaluate(task, {"answer": ref.answer}).score == pytest.approx(1.0)
