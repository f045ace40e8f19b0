"""hosting_capacity_study — PV hosting capacity and the cheapest reinforcement of a SimBench MV grid over a year.

Study 2 of ``shared/spec/studies.md``. The agent receives a SimBench MV grid as its own CSV
folder (``Node.csv``, ``Line.csv``, ``Load.csv``, ``RES.csv``, ``LoadProfile.csv``,
``RESProfile.csv``, ...; 35,136 quarter hours of the year 2016) and ``study.json`` stating the
scenario, the planning criteria, a PV roll-out and a catalogue of measures with costs. It
delivers

- ``hosting_capacity`` (analysis): at each listed MV node, the largest PV plant (MWp, a
  multiple of the stated resolution, the grid's own PV profile, unity power factor), alone on
  the base grid, that keeps every criterion over the whole year; the binding criterion, the
  15-minute step and the element where the next size up violates it most;
- ``decision``: for the stated roll-out, the cheapest combination from the catalogue
  (transformer replacement, line replacements, a Q(U) characteristic at the roll-out
  inverters, a feed-in cap priced per MWh curtailed) that keeps every criterion at every step.

Criteria (:mod:`psab.surrogates.hosting_year`): the voltage band of SimBench's Node.csv
(vmMin/vmMax: 0.965-1.055 pu at MV), the voltage rise caused by the added generation ≤ 2 % of the
nominal voltage (VDE-AR-N 4110:2018-11, 5.3.2), line and transformer loading ≤ loadingMax of
Line.csv and Transformer.csv (100 %). A band or loading limit the base grid already exceeds at a step
and element is not assessed there (the voltage-rise limit still bounds what the generation adds).

Backends: ``surrogate`` = psab's own implicit-Z-bus AC power flow, vectorised over the year
(:mod:`psab.surrogates.distribution_pf`); ``power_grid_model`` = power-grid-model's batch
Newton-Raphson (:mod:`psab.backends.power_grid_model_pf`). They agree to 1e-11 pu on these grids.
pandapower (with lightsim2grid) is not a declared backend: its time-series loop runs one power
flow per step (35,136 per year, several minutes per year even with lightsim2grid), so the
evaluation of one answer would take longer than the whole reference; it cross-checks one
snapshot in the tests instead.

Reference, proven: hosting capacity by bisection over the resolution grid (the feasible sizes
are an interval [0, HC]: the voltage rises monotonically with a unity-power-factor injection and
each loading is quasi-convex in it), screened to critical steps and verified on every daylight
step of the year (at night the plant injects nothing, so the step is the base case). The
decision: exhaustive enumeration of the catalogue in cost order, each candidate judged on a set
of critical steps; the first candidate that passes there is re-simulated over the whole year; if
it fails, the steps it fails at join the set and the enumeration continues from it. Every
cheaper candidate failed on a subset of the year's steps, so the first one that passes the
whole year is optimal within the catalogue: a proof by enumeration.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from psab.contract import Task, Violation
from psab.errors import InvalidTaskError, SolverError
from psab.evaluators import answer_schema as s
from psab.registry import Assessment, Deliverable, FamilySpec, Generated, Reference, register
from psab.studies import model as study_model
from psab.surrogates import distribution_pf as dpf
from psab.surrogates import hosting_year as hy

STUDY_ID = "hosting_capacity_study"
#: The grid per difficulty level (SimBench codes; scenario 0 = today, full switch representation).
GRIDS = {1: "1-MV-rural--0-sw", 2: "1-MV-semiurb--0-sw"}
SIMBENCH_VERSION = "simbench 1.6.3 (SimBench data 1.0.x)"
STEP_H = 0.25
RISE_MAX_PU = 0.02
RESOLUTION_MWP = 0.1
HC_MAX_MWP = 20.0
#: A criterion counts as violated when it is exceeded by more than this (pu for voltages,
#: percentage points for loadings): power-flow rounding is 1e-9 pu.
VIOLATION_TOL = {"voltage_band": 1e-6, "voltage_rise": 1e-6, "line_thermal": 1e-4, "trafo_thermal": 1e-4}
CRITERION_UNIT = {"voltage_band": "pu", "voltage_rise": "pu", "line_thermal": "%", "trafo_thermal": "%"}
#: Q(U) characteristic (VDE-AR-N 4110:2018-11, 10.2.2.4, parameters set by the network operator:
#: these are the study's): Q / P_inst against U, piecewise linear, flat outside; > 0 injects.
QU_U_PU = (0.96, 1.00, 1.02, 1.05)
QU_K = (0.33, 0.0, 0.0, -0.33)
SCREEN_PER_CRITERION = 24
MAX_VERIFY_ROUNDS = 20

DELIVERABLES = (
    Deliverable("hosting_capacity", "analysis", 1.0,
                "PV hosting capacity (MWp) at each listed node, its binding criterion, step and element",
                "допустимая мощность СЭС (МВт пик) в каждом указанном узле, ограничивающий критерий, шаг и элемент"),
    Deliverable("decision", "decision", 2.0,
                "the cheapest reinforcement of the roll-out from the catalogue, judged by a year of AC power flow",
                "самое дешёвое усиление сети для ввода СЭС из каталога, проверяемое расчётом режимов за год"),
)


# ---------------------------------------------------------------------------- the case


def _bad(field: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"{STUDY_ID}: public_inputs{field} {why}")


@dataclass(frozen=True)
class Case:
    code: str
    grid: Any
    net: hy.MVNetwork
    bus_ids: tuple[str, ...]
    pos: dict[str, int]
    line_ids: tuple[str, ...]
    line_pos: dict[str, int]
    p_base: np.ndarray            # (n, T) net injection MW, generation > 0
    q_base: np.ndarray
    rollout_ids: tuple[str, ...]
    rollout_bus: np.ndarray
    rollout_mwp: np.ndarray
    rollout_profile: np.ndarray   # (T,) per unit of MWp
    hc_nodes: tuple[str, ...]
    hc_profile: np.ndarray
    resolution_mwp: float
    hc_max_mwp: float
    rise_max_pu: float
    trafo_options: dict[str, dict[str, Any]]
    line_options: dict[str, dict[str, Any]]
    qu_cost_keur_per_plant: float
    qu_q_max_per_mwp: float
    qu_u_pu: tuple[float, ...]
    qu_k: tuple[float, ...]
    caps_pct: tuple[float, ...]
    curtail_eur_per_mwh: float
    capitalisation_years: float


_CASES = study_model.Memo(16)


def _grid(code: str):
    from psab.studies import _simbench_grid

    return _simbench_grid.grid(code)


def case_of(task: Task) -> Case:
    return _CASES.get(task.digest, lambda: _build(task.public_inputs))


def _build(inputs: Mapping[str, Any]) -> Case:
    code = inputs["model"].get("simbench_code")
    if code not in GRIDS.values():
        raise _bad("/model/simbench_code", f"must be one of {sorted(GRIDS.values())}")
    g = _grid(code)
    mv_kv = float(g.vn_kv[int(g.trafo_lv[0])])
    mv = np.flatnonzero(g.vn_kv == mv_kv)
    local = {int(b): i for i, b in enumerate(mv)}
    bus_ids = tuple(g.bus_names[b] for b in mv)
    pos = {b: i for i, b in enumerate(bus_ids)}
    sc = inputs["scenario"]
    load_scale, sgen_scale = float(sc["load_scale"]), float(sc["sgen_scale"])
    if not (0.0 <= load_scale <= 3.0 and 0.0 <= sgen_scale <= 3.0):
        raise _bad("/scenario", "load_scale and sgen_scale must lie in [0, 3]")
    vm_busbar = float(sc["busbar_vm_pu"])
    if not 0.9 <= vm_busbar <= 1.1:
        raise _bad("/scenario/busbar_vm_pu", "must lie in [0.9, 1.1]")
    net = hy.MVNetwork(
        vn_kv=mv_kv, slack=local[int(g.trafo_lv[0])], vm_slack_pu=vm_busbar,
        vm_min_pu=g.vm_min_pu[mv].copy(), vm_max_pu=g.vm_max_pu[mv].copy(),
        line_from=np.array([local[int(b)] for b in g.line_from]), line_to=np.array([local[int(b)] for b in g.line_to]),
        line_r_ohm=g.line_r_ohm_per_km * g.line_length_km, line_x_ohm=g.line_x_ohm_per_km * g.line_length_km,
        line_b_us=2 * np.pi * hy.F_HZ * g.line_c_nf_per_km * 1e-3 * g.line_length_km,
        line_max_i_ka=g.line_max_i_ka.copy(), line_max_loading_pct=g.line_max_loading_pct.copy(),
        trafo_sn_total_mva=float(g.trafo_sn_mva.sum()), trafo_max_loading_pct=float(np.min(g.trafo_max_loading_pct)))
    p_base = (sgen_scale * g.sgen_p_mw - load_scale * g.load_p_mw)[mv]
    q_base = (-load_scale * g.load_q_mvar)[mv]
    line_ids = tuple(g.line_names)
    line_pos = {n: i for i, n in enumerate(line_ids)}

    def profile(name: Any, where: str) -> np.ndarray:
        if name not in g.res_profiles or not str(name).startswith("PV"):
            raise _bad(where, f"must name a PV profile of RESProfile.csv ({', '.join(k for k in g.res_profiles if k.startswith('PV'))})")
        return np.asarray(g.res_profiles[name], dtype=float)

    ro = inputs["rollout"]
    r_ids, r_bus, r_mwp = [], [], []
    for k, p in enumerate(ro["plants"]):
        if p["node_id"] not in pos or pos[p["node_id"]] == net.slack:
            raise _bad(f"/rollout/plants/{k}/node_id", "must name an MV node of Node.csv other than the busbar")
        if not 0 < float(p["p_mwp"]) <= 50:
            raise _bad(f"/rollout/plants/{k}/p_mwp", "must lie in (0, 50] MWp")
        r_ids.append(str(p["id"]))
        r_bus.append(pos[p["node_id"]])
        r_mwp.append(float(p["p_mwp"]))
    if len(set(r_ids)) != len(r_ids):
        raise _bad("/rollout/plants", "repeat a plant id")
    hc = inputs["hosting_capacity"]
    for k, n in enumerate(hc["node_ids"]):
        if n not in pos or pos[n] == net.slack:
            raise _bad(f"/hosting_capacity/node_ids/{k}", "must name an MV node of Node.csv other than the busbar")
    res, hc_max = float(hc["resolution_mwp"]), float(hc["max_mwp"])
    if not (0 < res <= hc_max <= 100) or abs(hc_max / res - round(hc_max / res)) > 1e-9:
        raise _bad("/hosting_capacity/max_mwp", "must be a positive multiple of resolution_mwp, at most 100")
    cat = inputs["catalogue"]
    trafo_options = {}
    for k, t in enumerate(cat["transformer_options"]):
        if t["type"] not in g.trafo_types:
            raise _bad(f"/catalogue/transformer_options/{k}/type", "must name a type of TransformerType.csv")
        if not 1 <= int(t["units_after"]) <= 6:
            raise _bad(f"/catalogue/transformer_options/{k}/units_after", "must lie in [1, 6]")
        if t["id"] in trafo_options or t["id"] == "keep":
            raise _bad(f"/catalogue/transformer_options/{k}/id", "must be unique and not 'keep'")
        trafo_options[str(t["id"])] = {"sn_total_mva": g.trafo_types[t["type"]]["sn_mva"] * int(t["units_after"]),
                                       "cost_keur": float(t["cost_keur"])}
    line_options = {}
    for k, opt in enumerate(cat["line_options"]):
        if opt["line_id"] not in line_pos:
            raise _bad(f"/catalogue/line_options/{k}/line_id", "must name an in-service line of Line.csv")
        if opt["new_type"] not in g.line_types:
            raise _bad(f"/catalogue/line_options/{k}/new_type", "must name a type of LineType.csv")
        if opt["line_id"] in line_options:
            raise _bad(f"/catalogue/line_options/{k}/line_id", "is listed twice")
        line_options[opt["line_id"]] = {"new_type": opt["new_type"], "cost_keur": float(opt["cost_keur"]),
                                        **g.line_types[opt["new_type"]]}
    qu = cat["q_u"]
    cur = cat["curtailment"]
    caps = tuple(float(c) for c in cur["cap_levels_pct"])
    if 100.0 not in caps or any(not 0 < c <= 100 for c in caps):
        raise _bad("/catalogue/curtailment/cap_levels_pct", "must lie in (0, 100] and include 100 (no cap)")
    return Case(code=code, grid=g, net=net, bus_ids=bus_ids, pos=pos, line_ids=line_ids, line_pos=line_pos,
                p_base=p_base, q_base=q_base, rollout_ids=tuple(r_ids), rollout_bus=np.array(r_bus, dtype=int),
                rollout_mwp=np.array(r_mwp), rollout_profile=profile(ro["pv_profile"], "/rollout/pv_profile"),
                hc_nodes=tuple(hc["node_ids"]), hc_profile=profile(hc["pv_profile"], "/hosting_capacity/pv_profile"),
                resolution_mwp=res, hc_max_mwp=hc_max, rise_max_pu=float(inputs["criteria"]["voltage_rise_max_pu"]),
                trafo_options=trafo_options, line_options=line_options,
                qu_cost_keur_per_plant=float(qu["cost_keur_per_plant"]), qu_q_max_per_mwp=float(qu["q_max_mvar_per_mwp"]),
                qu_u_pu=tuple(float(u) for u in qu["u_pu"]), qu_k=tuple(float(k) for k in qu["q_per_p_inst"]),
                caps_pct=caps, curtail_eur_per_mwh=float(cur["price_eur_per_mwh"]),
                capitalisation_years=float(cur["capitalisation_years"]))


# ---------------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class Decision:
    transformer_type: str        # "keep" or a type
    lines: tuple[str, ...]       # sorted line ids replaced
    q_u: bool
    cap_pct: float

    def to_answer(self) -> dict[str, Any]:
        return {"transformer_type": self.transformer_type, "replace_lines": list(self.lines), "q_u": self.q_u,
                "curtailment_cap_pct": self.cap_pct}


NOTHING = Decision("keep", (), False, 100.0)


def decision_of(answer: Mapping[str, Any]) -> Decision:
    return Decision(str(answer["transformer_type"]), tuple(sorted(set(answer["replace_lines"]))), bool(answer["q_u"]),
                    float(answer["curtailment_cap_pct"]))


def curtailed_mwh(case: Case, cap_pct: float) -> float:
    if cap_pct >= 100.0 or case.rollout_mwp.size == 0:
        return 0.0
    over = np.maximum(case.rollout_profile - cap_pct / 100.0, 0.0)
    return float(over.sum() * case.rollout_mwp.sum() * STEP_H)


def cost_keur(case: Case, d: Decision) -> float:
    c = 0.0
    if d.transformer_type != "keep":
        c += case.trafo_options[d.transformer_type]["cost_keur"]
    c += sum(case.line_options[ln]["cost_keur"] for ln in d.lines)
    if d.q_u:
        c += case.qu_cost_keur_per_plant * case.rollout_ids.__len__()
    c += curtailed_mwh(case, d.cap_pct) * case.curtail_eur_per_mwh * case.capitalisation_years / 1000.0
    return c


def network_for(case: Case, d: Decision) -> hy.MVNetwork:
    net = case.net
    if not d.lines and d.transformer_type == "keep":
        return net
    r, x, b, imax = net.line_r_ohm.copy(), net.line_x_ohm.copy(), net.line_b_us.copy(), net.line_max_i_ka.copy()
    g = case.grid
    for ln in d.lines:
        k, opt = case.line_pos[ln], case.line_options[ln]
        length = float(g.line_length_km[k])
        r[k], x[k] = opt["r_ohm_per_km"] * length, opt["x_ohm_per_km"] * length
        b[k] = 2 * np.pi * hy.F_HZ * opt["c_nf_per_km"] * 1e-3 * length
        imax[k] = opt["max_i_ka"]
    sn = net.trafo_sn_total_mva if d.transformer_type == "keep" else case.trafo_options[d.transformer_type]["sn_total_mva"]
    return replace(net, line_r_ohm=r, line_x_ohm=x, line_b_us=b, line_max_i_ka=imax, trafo_sn_total_mva=sn)


def injections(case: Case, d: Decision | None, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray, dpf.QU | None]:
    """Net injections (MW, Mvar) at ``steps`` with the roll-out (``d`` None: without it)."""
    p = case.p_base[:, steps].copy()
    q = case.q_base[:, steps].copy()
    if d is None or case.rollout_mwp.size == 0:
        return p, q, None
    prof = np.minimum(case.rollout_profile[steps], d.cap_pct / 100.0)
    np.add.at(p, case.rollout_bus, case.rollout_mwp[:, None] * prof[None, :])
    qu = None
    if d.q_u:
        # q_per_p_inst is Q per installed MWp already (cos φ = 0.95 at full output: 0.33); the
        # characteristic's scale is the plant's MWp (q_max_mvar_per_mwp is its bound, max |k|)
        qu = dpf.QU(bus=case.rollout_bus, q_max_pu=case.rollout_mwp.astype(float), u_points_pu=case.qu_u_pu,
                    k_points=case.qu_k, active=np.repeat((prof > 0)[None, :], case.rollout_bus.size, axis=0))
    return p, q, qu


def run(net: hy.MVNetwork, p: np.ndarray, q: np.ndarray, qu: dpf.QU | None, backend: str, linear: bool = False) -> hy.Flow:
    if backend == "power_grid_model" and not linear:
        from psab.backends import power_grid_model_pf

        return power_grid_model_pf.power_flow(net, p, q, qu)
    from psab.studies._blas import single_threaded_blas

    with single_threaded_blas():
        return hy.power_flow(net, p, q, qu, linear=linear)


# ---------------------------------------------------------------------------- the base case

_BASE = study_model.Memo(8)


def base_flow(task: Task, case: Case, backend: str, linear: bool = False) -> hy.Flow:
    def make() -> hy.Flow:
        p, q, _ = injections(case, None, np.arange(case.p_base.shape[1]))
        return run(case.net, p, q, None, backend, linear)

    return _BASE.get((task.digest, backend, linear), make)


def check(case: Case, flow: hy.Flow, base: hy.Flow, steps: np.ndarray) -> dict[str, hy.Criterion]:
    """The criteria at ``steps``. A limit the base case already exceeds at a step and element
    is not assessed there (that violation exists without the added generation; the voltage-rise
    criterion still bounds what the generation adds)."""
    net = case.net
    vmb = base.vm[:, steps]
    pre = (vmb > net.vm_max_pu[:, None]) | (vmb < net.vm_min_pu[:, None])
    band = np.maximum(flow.vm - net.vm_max_pu[:, None], net.vm_min_pu[:, None] - flow.vm)
    band[pre] = -np.inf
    band[net.slack] = -np.inf
    rise = flow.vm - vmb - case.rise_max_pu
    rise[net.slack] = -np.inf
    line = flow.line_loading_pct - net.line_max_loading_pct[:, None]
    line[base.line_loading_pct[:, steps] > net.line_max_loading_pct[:, None]] = -np.inf
    trafo = flow.trafo_loading_pct - net.trafo_max_loading_pct
    trafo[base.trafo_loading_pct[steps] > net.trafo_max_loading_pct] = -np.inf
    out = {}
    cols = np.arange(len(steps))
    for name, arr in (("voltage_band", band), ("voltage_rise", rise), ("line_thermal", line)):
        k = np.argmax(arr, axis=0)
        out[name] = hy.Criterion(excess=arr[k, cols], element=k)
    out["trafo_thermal"] = hy.Criterion(excess=trafo, element=np.zeros(len(steps), dtype=int))
    return out


def feasible(crit: Mapping[str, hy.Criterion]) -> bool:
    return all(float(np.max(c.excess, initial=-np.inf)) <= VIOLATION_TOL[n] for n, c in crit.items())


def _element_id(case: Case, criterion: str, k: int) -> str:
    if criterion in ("voltage_band", "voltage_rise"):
        return case.bus_ids[k]
    if criterion == "line_thermal":
        return case.line_ids[k]
    return "HV/MV transformers"


def binding(case: Case, crit: Mapping[str, hy.Criterion], steps: np.ndarray) -> dict[str, Any]:
    """The first criterion (in :data:`hy.CRITERIA` order) violated, the step of its largest
    excess (earliest on a tie) and the element there."""
    for name in hy.CRITERIA:
        c = crit[name]
        if float(np.max(c.excess, initial=-np.inf)) > VIOLATION_TOL[name]:
            j = int(np.argmax(c.excess))
            return {"binding_criterion": name, "binding_step": int(steps[j]),
                    "binding_element_id": _element_id(case, name, int(c.element[j]))}
    return {"binding_criterion": "none", "binding_step": -1, "binding_element_id": ""}


# ---------------------------------------------------------------------------- hosting capacity


def _hc_flow(case: Case, node: int, mwp: float, steps: np.ndarray, backend: str, linear: bool) -> hy.Flow:
    p = case.p_base[:, steps].copy()
    q = case.q_base[:, steps].copy()
    p[node] += mwp * case.hc_profile[steps]
    return run(case.net, p, q, None, backend, linear)


def hosting_capacity(task: Task, case: Case, node_id: str, backend: str, linear: bool = False,
                     only_steps: np.ndarray | None = None) -> dict[str, Any]:
    """HC at one node: bisection on the resolution grid over screened steps, verified on every
    daylight step (``only_steps``: judge those steps alone — the naive snapshot baseline)."""
    base = base_flow(task, case, backend, linear)
    node = case.pos[node_id]
    day = np.flatnonzero(case.hc_profile > 0) if only_steps is None else np.asarray(only_steps)
    n_max = int(round(case.hc_max_mwp / case.resolution_mwp))

    def ok(k: int, steps: np.ndarray) -> tuple[bool, dict[str, hy.Criterion]]:
        if k == 0:
            return True, {}
        f = _hc_flow(case, node, k * case.resolution_mwp, steps, backend, linear)
        crit = check(case, f, base, steps)
        return feasible(crit), crit

    # screening: the steps of highest PV output, and of highest base voltage / loading among sunny ones
    if only_steps is None:
        prof = case.hc_profile[day]
        top = set(day[np.argsort(-prof)[:SCREEN_PER_CRITERION]].tolist())
        sunny = day[prof >= 0.5 * prof.max()]
        top |= set(sunny[np.argsort(-base.vm[:, sunny].max(axis=0))[:SCREEN_PER_CRITERION]].tolist())
        top |= set(sunny[np.argsort(-(case.p_base[:, sunny].sum(axis=0)))[:SCREEN_PER_CRITERION]].tolist())
        screen = np.array(sorted(top))
    else:
        screen = day
    rounds = 0
    while True:
        rounds += 1
        lo, hi = 0, n_max + 1     # lo feasible on the screen; hi infeasible (n_max + 1 by convention)
        if ok(n_max, screen)[0]:
            lo = n_max
        else:
            hi = n_max
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if ok(mid, screen)[0]:
                    lo = mid
                else:
                    hi = mid
        good, crit = ok(lo, day)
        if good or rounds >= MAX_VERIFY_ROUNDS:
            break
        worst = set()
        for name, c in crit.items():
            bad = np.flatnonzero(c.excess > VIOLATION_TOL[name])
            worst |= set(day[bad[np.argsort(-c.excess[bad])[:SCREEN_PER_CRITERION]]].tolist())
        screen = np.array(sorted(set(screen.tolist()) | worst))
    if not good:
        raise SolverError(f"hosting capacity at {node_id}: screening did not converge")
    out = {"node_id": node_id, "hc_mwp": round(lo * case.resolution_mwp, 6)}
    if lo >= n_max:
        out.update(binding_criterion="none", binding_step=-1, binding_element_id="")
    else:
        _, crit_up = ok(lo + 1, day)
        out.update(binding(case, crit_up, day))
    return out


# ---------------------------------------------------------------------------- the decision


def all_decisions(case: Case) -> list[Decision]:
    opts = sorted(case.line_options)
    out = []
    for t in ("keep", *sorted(case.trafo_options)):
        for r in range(len(opts) + 1):
            for lines in itertools.combinations(opts, r):
                for qu in (False, True):
                    for cap in case.caps_pct:
                        out.append(Decision(t, tuple(lines), qu, cap))
    return sorted(out, key=lambda d: (round(cost_keur(case, d), 9), d.transformer_type != "keep", len(d.lines),
                                      d.lines, d.q_u, -d.cap_pct))


def judge(task: Task, case: Case, d: Decision, backend: str, steps: np.ndarray | None = None,
          linear: bool = False) -> tuple[dict[str, hy.Criterion], np.ndarray]:
    base = base_flow(task, case, backend, linear)
    steps = np.arange(case.p_base.shape[1]) if steps is None else steps
    p, q, qu = injections(case, d, steps)
    f = run(network_for(case, d), p, q, qu, backend, linear)
    return check(case, f, base, steps), steps


def _decision_screen(task: Task, case: Case, backend: str, linear: bool) -> np.ndarray:
    crit, steps = judge(task, case, NOTHING, backend, linear=linear)
    top: set[int] = set()
    for c in crit.values():
        top |= set(steps[np.argsort(-c.excess)[:SCREEN_PER_CRITERION]].tolist())
    return np.array(sorted(top))


def best_decision(task: Task, backend: str, linear: bool = False) -> tuple[Decision, dict[str, Any]]:
    case = case_of(task)
    screen = _decision_screen(task, case, backend, linear)
    order = all_decisions(case)
    tried = verified = 0
    i = 0
    while i < len(order):
        d = order[i]
        tried += 1
        crit, _ = judge(task, case, d, backend, screen, linear)
        if feasible(crit):
            verified += 1
            full, steps = judge(task, case, d, backend, None, linear)
            if feasible(full):
                return d, {"candidates": len(order), "judged_on_screen": tried, "verified_on_year": verified,
                           "screen_steps": int(screen.size)}
            worst: set[int] = set()
            for name, c in full.items():
                bad = np.flatnonzero(c.excess > VIOLATION_TOL[name])
                worst |= set(steps[bad[np.argsort(-c.excess[bad])[:SCREEN_PER_CRITERION]]].tolist())
            screen = np.array(sorted(set(screen.tolist()) | worst))
            continue   # the same candidate again, now on the larger screen (it fails there)
        i += 1
    raise SolverError("no decision of the catalogue meets every criterion")


# ---------------------------------------------------------------------------- answers


def _answer(hc: list[dict[str, Any]], d: Decision) -> dict[str, Any]:
    return {"hosting_capacity": hc, "decision": d.to_answer()}


def solve(task: Task, backend: str) -> Reference:
    case = case_of(task)
    hc = [hosting_capacity(task, case, n, backend) for n in case.hc_nodes]
    d, ev = best_decision(task, backend)
    return Reference(answer=_answer(hc, d), objective=cost_keur(case, d),
                     evidence={"proven": True, "bound": cost_keur(case, d), "gap": 0.0, **ev},
                     method="HC: bisection on the resolution grid, screened, verified on every daylight step; decision: "
                            "enumeration of the catalogue in cost order with year-long AC verification (proof by enumeration)")


def do_nothing_answer(task: Task) -> dict[str, Any]:
    case = case_of(task)
    hc = [{"node_id": n, "hc_mwp": 0.0, "binding_criterion": "none", "binding_step": -1, "binding_element_id": ""}
          for n in case.hc_nodes]
    return _answer(hc, NOTHING)


def dc_only_answer(task: Task) -> dict[str, Any]:
    """The linearised baseline: every power flow replaced by the first iteration of the current
    injection from the flat start (linear in the injections, losses and voltage dependence
    neglected, as DistFlow's linearisation); hosting capacity and decision chosen on it."""
    case = case_of(task)
    hc = [hosting_capacity(task, case, n, "surrogate", linear=True) for n in case.hc_nodes]
    d, _ = best_decision(task, "surrogate", linear=True)
    return _answer(hc, d)


def naive_answer(task: Task) -> dict[str, Any]:
    """The snapshot engineer: hosting capacity judged at the single step of the PV profile's
    annual peak; the decision as the cheapest local fix per violation of the do-nothing year —
    every overloaded line in the catalogue replaced, the transformer replaced if overloaded,
    then the mildest feed-in cap that clears the remaining voltage violations (with Q(U) if no
    cap alone does)."""
    case = case_of(task)
    peak = np.array([int(np.argmax(case.hc_profile))])
    hc = [hosting_capacity(task, case, n, "surrogate", only_steps=peak) for n in case.hc_nodes]
    crit, steps = judge(task, case, NOTHING, "surrogate")
    lines = set()
    c = crit["line_thermal"]
    for j in np.flatnonzero(c.excess > VIOLATION_TOL["line_thermal"]):
        ln = case.line_ids[int(c.element[j])]
        if ln in case.line_options:
            lines.add(ln)
    trafo = "keep"
    if float(np.max(crit["trafo_thermal"].excess)) > VIOLATION_TOL["trafo_thermal"] and case.trafo_options:
        trafo = min(case.trafo_options, key=lambda t: case.trafo_options[t]["cost_keur"])
    d = Decision(trafo, tuple(sorted(lines)), False, 100.0)
    for qu in (False, True):
        for cap in sorted(case.caps_pct, reverse=True):
            trial = Decision(trafo, d.lines, qu, cap)
            if feasible(judge(task, case, trial, "surrogate")[0]):
                return _answer(hc, trial)
    return _answer(hc, Decision(trafo, d.lines, True, min(case.caps_pct)))


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    case = case_of(task)
    ref = ctx.reference().answer
    # --- analysis: hosting capacity, four items per node
    mismatches: list[dict[str, Any]] = []
    n_items = n_right = 0
    got = {row["node_id"]: row for row in answer["hosting_capacity"]}
    tol_hc = 0.5 * case.resolution_mwp * 1e-3
    for i, exp in enumerate(ref["hosting_capacity"]):
        row = got.get(exp["node_id"], {})
        for fld in ("hc_mwp", "binding_criterion", "binding_step", "binding_element_id"):
            n_items += 1
            found = row.get(fld)
            if fld == "hc_mwp":
                right = isinstance(found, int | float) and math.isfinite(found) and abs(found - exp[fld]) <= tol_hc
            else:
                right = found == exp[fld]
            if right:
                n_right += 1
            elif len(mismatches) < 20:
                mismatches.append({"field": f"/hosting_capacity/{i}/{fld}", "expected": exp[fld], "found": found})
    hc_score = n_right / n_items if n_items else 1.0
    # --- decision: applied and re-simulated over the whole year
    violations: list[Violation] = []
    d = decision_of(answer["decision"])
    bad_lines = [ln for ln in d.lines if ln not in case.line_options]
    if d.transformer_type != "keep" and d.transformer_type not in case.trafo_options:
        violations.append(Violation("/decision/transformer_type", "must be 'keep' or a transformer option id of the catalogue",
                                    sorted(case.trafo_options), d.transformer_type))
    if bad_lines:
        violations.append(Violation("/decision/replace_lines", "every replaced line must be a line option of the catalogue",
                                    sorted(case.line_options), bad_lines))
    if d.cap_pct not in case.caps_pct:
        violations.append(Violation("/decision/curtailment_cap_pct", "must be one of the catalogue's cap levels",
                                    list(case.caps_pct), d.cap_pct))
    evidence: dict[str, Any] = {"deliverables": {"hosting_capacity": {"mismatches": mismatches, "n_items": n_items,
                                                                      "n_right": n_right}}}
    if violations:
        return Assessment(violations=violations, objective=None, deliverable_scores={"hosting_capacity": hc_score},
                          evidence=evidence)
    try:
        crit, steps = judge(task, case, d, ctx.backend)
    except dpf.PowerFlowDiverged as exc:
        violations.append(Violation("/decision", "the year of AC power flow with the decision must converge",
                                    "converged", str(exc)))
        return Assessment(violations=violations, objective=cost_keur(case, d),
                          deliverable_scores={"hosting_capacity": hc_score}, evidence=evidence)
    summary = {}
    for name in hy.CRITERIA:
        c = crit[name]
        bad = np.flatnonzero(c.excess > VIOLATION_TOL[name])
        summary[name] = {"violating_steps": int(bad.size), "worst_excess": float(np.max(c.excess))}
        if bad.size:
            j = int(bad[np.argmax(c.excess[bad])])
            el = _element_id(case, name, int(c.element[j]))
            unit = CRITERION_UNIT[name]
            violations.append(Violation(
                "/decision", f"{name}: {el} at step {int(steps[j])} exceeds its limit by {float(c.excess[j]):.5g} {unit} "
                             f"({bad.size} of {steps.size} steps violate)", f"excess <= {VIOLATION_TOL[name]:g} {unit}",
                round(float(c.excess[j]), 6)))
    evidence["criteria"] = summary
    evidence["cost_keur"] = cost_keur(case, d)
    evidence["curtailed_mwh"] = curtailed_mwh(case, d.cap_pct)
    return Assessment(violations=violations, objective=cost_keur(case, d),
                      deliverable_scores={"hosting_capacity": hc_score}, evidence=evidence)


# ---------------------------------------------------------------------------- schema, inputs


def submission_schema(inputs: Mapping[str, Any]) -> dict[str, Any]:
    nodes = list(inputs["hosting_capacity"]["node_ids"])
    line_opts = [o["line_id"] for o in inputs["catalogue"]["line_options"]]
    trafos = ["keep", *[t["id"] for t in inputs["catalogue"]["transformer_options"]]]
    caps = list(inputs["catalogue"]["curtailment"]["cap_levels_pct"])
    item = s.obj({
        "node_id": s.enum(nodes, "the listed node (Node.csv id)", ru="указанный узел (id из Node.csv)"),
        "hc_mwp": s.number("hosting capacity, MWp (a multiple of resolution_mwp)", minimum=0,
                           ru="допустимая мощность, МВт пик (кратна resolution_mwp)"),
        "binding_criterion": s.enum([*hy.CRITERIA, "none"], "the criterion violated one resolution step above",
                                    ru="критерий, нарушаемый при мощности на шаг больше"),
        "binding_step": s.integer("0-based 15-minute step of its largest excess (-1 with 'none')", minimum=-1,
                                  maximum=200000, ru="номер 15-минутного шага наибольшего превышения (с 0; -1 при 'none')"),
        "binding_element_id": {"type": "string", "maxLength": 200,
                               **s.words("Node.csv or Line.csv id, 'HV/MV transformers', or '' with 'none'",
                                         ru="id из Node.csv или Line.csv, 'HV/MV transformers' или '' при 'none'")},
    }, "one listed node", ru="один указанный узел")
    return s.submission({
        "hosting_capacity": s.array(item, "one entry per listed node, in the listed order", length=len(nodes),
                                    ru="по одной записи на каждый указанный узел, в указанном порядке"),
        "decision": s.obj({
            "transformer_type": s.enum(trafos, "'keep' or the id of a transformer option",
                                       ru="'keep' или id варианта по трансформаторам"),
            "replace_lines": s.array(s.enum(line_opts, "a line option id", ru="id варианта замены линии"),
                                     "lines replaced by their catalogue type", max_items=max(len(line_opts), 1),
                                     unique=True, ru="линии, заменяемые на тип из каталога"),
            "q_u": s.boolean("the stated Q(U) characteristic at every roll-out inverter",
                             ru="заданная характеристика Q(U) у каждого инвертора ввода"),
            "curtailment_cap_pct": s.enum(caps, "feed-in cap of every roll-out plant, % of its MWp (100 = none)",
                                          ru="ограничение выдачи каждой СЭС ввода, % от её МВт пик (100 — нет)"),
        }, "the reinforcement", ru="усиление сети"),
    }, "Hosting capacity and reinforcement study", ru="Исследование допустимой мощности СЭС и усиления сети")


def validate_inputs(inputs: Mapping[str, Any]) -> list[str]:
    problems = study_model.contract_problems(SPEC, inputs)
    if problems:
        return problems
    try:
        case = _build(inputs)
    except InvalidTaskError as exc:
        problems.append(str(exc).split("public_inputs", 1)[-1])
        return problems
    if max(abs(k) for k in case.qu_k) > case.qu_q_max_per_mwp + 1e-12:
        problems.append("/catalogue/q_u/q_per_p_inst: Mvar per installed MWp beyond q_max_mvar_per_mwp")
    return problems


def model_size(task: Task) -> dict[str, Any]:
    """What the study's model holds, as benchmarks/bench_studies.py prints it."""
    c = case_of(task)
    return {"grid": c.code, "MV buses": len(c.bus_ids), "lines": len(c.line_ids), "steps": int(c.p_base.shape[1]),
            "roll-out plants": len(c.rollout_ids), "HC nodes": len(c.hc_nodes), "line options": len(c.line_options)}


def materialize(task: Task, directory: str | Path) -> None:
    """Write the grid's SimBench CSV folder under ``directory`` (``model/*.csv``), each file
    checked against the sha256 the task lists."""
    from psab.studies import _simbench_grid

    model = task.public_inputs.get("model") if isinstance(task.public_inputs, Mapping) else None
    code = model.get("simbench_code") if isinstance(model, Mapping) else None
    if code not in GRIDS.values():
        raise InvalidTaskError(f"task {task.id}: public_inputs/model/simbench_code must be one of {sorted(GRIDS.values())}")
    folder = _simbench_grid.csv_folder(code)
    contents = {f"model/{p.name}": (lambda p=p: p.read_bytes()) for p in folder.glob("*.csv")}
    study_model.write_files(task, directory, contents)


# ---------------------------------------------------------------------------- held-out draws

#: Replacement type per kind of line (the strongest MV types of the grid's own type table).
NEW_TYPE = {"cs": "NA2XS2Y 1x185 RM/25 12/20 kV", "ol": "70-AL1/11-ST1A 20.0"}
#: Base costs (kEUR; see provenance: assumed, low confidence), perturbed ±20 % per draw.
COST_CABLE_KEUR_PER_KM = 110.0
COST_OVERHEAD_KEUR_PER_KM = 70.0
COST_TRAFO_KEUR_PER_UNIT = 1100.0
#: The transformer option per grid: rural (2 × 25 MVA) replaces both units by 40 MVA ones;
#: semiurban (2 × 40 MVA, already the largest 110/20 kV type of TransformerType.csv) adds a third.
TRAFO_OPTION = {25.0: ("replace_2x40MVA", "40 MVA 110/20 kV YNd5", 2, 2), 40.0: ("add_1x40MVA", "40 MVA 110/20 kV YNd5", 3, 1)}
COST_QU_KEUR_PER_PLANT = 3.0
CURTAIL_EUR_PER_MWH = 90.0
CAP_LEVELS_PCT = [100, 55, 50, 45, 40, 35, 30]
N_LINE_OPTIONS = 8


def _line_kind(g: Any, k: int) -> str:
    return "ol" if "AL1" in g.line_type[k] else "cs"


def _path_lines(net: hy.MVNetwork, bus: int) -> list[int]:
    """Line indices on the path busbar → ``bus`` (the grid is radial in its switching state)."""
    adj: dict[int, list[tuple[int, int]]] = {}
    for k, (f, t) in enumerate(zip(net.line_from, net.line_to, strict=True)):
        adj.setdefault(int(f), []).append((int(t), k))
        adj.setdefault(int(t), []).append((int(f), k))
    prev: dict[int, tuple[int, int]] = {net.slack: (-1, -1)}
    stack = [net.slack]
    while stack:
        u = stack.pop()
        for v, k in adj.get(u, []):
            if v not in prev:
                prev[v] = (u, k)
                stack.append(v)
    out = []
    while bus in prev and prev[bus][0] >= 0:
        out.append(prev[bus][1])
        bus = prev[bus][0]
    return out


def generate(public: Task | None, rng: np.random.Generator, level: int = 1) -> Generated:
    """A draw on the level's SimBench grid (level 1: 1-MV-rural, 95 MV buses; level 2:
    1-MV-semiurb, 115): load and generation scaled by 0.9-1.1, a PV roll-out of 5 (level 2: 7)
    plants at nodes drawn among the electrically farthest half of the grid, sized 1-3 MWp and
    scaled together so that their voltage rise overshoots the 2 % limit by 0.4-1.2 points, 4
    (level 2: 6) hosting-capacity nodes, the catalogue's eight line options on the roll-out's
    paths (those the do-nothing year loads most and whose resistance raises the voltage most)
    and every cost perturbed by ±20 %; level 2 draws the busbar set-point in 1.00-1.02 pu."""
    from psab.studies import _simbench_grid

    code = GRIDS[level]
    g = _grid(code)
    files = _simbench_grid.model_files(code)
    pv = sorted(k for k in g.res_profiles if k.startswith("PV"))
    stub = _stub_inputs(code, files, pv[0])
    case = _build(stub)
    net = case.net
    cand = [i for i in range(net.n_bus) if i != net.slack]
    path_r = np.array([sum(net.line_r_ohm[k] for k in _path_lines(net, i)) for i in range(net.n_bus)])
    far = sorted(cand, key=lambda i: -path_r[i])[: max(len(cand) // 2, 8)]
    n_ro, n_hc = (5, 4) if level == 1 else (7, 6)
    ro_nodes = sorted(rng.choice(far, size=n_ro, replace=False).tolist())
    hc_nodes = rng.choice(cand, size=n_hc, replace=False).tolist()
    profile = str(rng.choice(pv))
    sizes = rng.uniform(1.0, 3.0, size=n_ro)
    # scale the roll-out together so that its voltage rise at the sunniest steps (linearised flow)
    # overshoots the 2 % limit by a drawn 0.4-1.2 points: reinforcement is needed and possible
    prof = g.res_profiles[profile]
    sunny = np.argsort(-prof)[:48]
    p0, q0 = case.p_base[:, sunny], case.q_base[:, sunny]
    p1 = p0.copy()
    np.add.at(p1, np.array(ro_nodes), sizes[:, None] * prof[sunny][None, :])
    v0 = run(net, p0, q0, None, "surrogate", linear=True).vm
    v1 = run(net, p1, q0, None, "surrogate", linear=True).vm
    rise = float(np.max(v1 - v0))
    scale = (RISE_MAX_PU + float(rng.uniform(0.004, 0.012))) / max(rise, 1e-9)
    plants = [{"id": f"PV{k + 1}", "node_id": case.bus_ids[b], "p_mwp": max(round(float(sizes[k] * scale), 1), 0.1)}
              for k, b in enumerate(ro_nodes)]
    # line options: on the roll-out's paths, ranked by the resistance they add to the farthest plants
    on_paths: dict[int, float] = {}
    for b in ro_nodes:
        for k in _path_lines(net, b):
            new = g.line_types[NEW_TYPE[_line_kind(g, k)]]
            if new["max_i_ka"] > g.line_max_i_ka[k] + 1e-9:
                on_paths[k] = on_paths.get(k, 0.0) + float(net.line_r_ohm[k])
    chosen = sorted(on_paths, key=lambda k: -on_paths[k])[:N_LINE_OPTIONS]
    line_options = []
    for k in sorted(chosen):
        kind = _line_kind(g, k)
        per_km = COST_CABLE_KEUR_PER_KM if kind == "cs" else COST_OVERHEAD_KEUR_PER_KM
        new = g.line_types[NEW_TYPE[kind]]
        line_options.append({"line_id": g.line_names[k], "new_type": NEW_TYPE[kind],
                             "length_km": float(g.line_length_km[k]),
                             "new_r_ohm_per_km": new["r_ohm_per_km"], "new_x_ohm_per_km": new["x_ohm_per_km"],
                             "new_b_us_per_km": new["b_us_per_km"], "new_max_i_ka": new["max_i_ka"],
                             "cost_keur": round(per_km * float(g.line_length_km[k]) * float(rng.uniform(0.8, 1.2)), 1)})
    t_id, t_type, t_after, t_new = TRAFO_OPTION[float(g.trafo_sn_mva[0])]
    inputs = dict(stub)
    inputs["scenario"] = {"load_scale": round(float(rng.uniform(0.9, 1.1)), 3),
                          "sgen_scale": round(float(rng.uniform(0.9, 1.1)), 3),
                          # level 2: the tap changer's set-point drawn below SimBench's 1.025 pu, since the
                          # semiurban grid's wind-heavy feeders sit at the band's top there with no headroom
                          "busbar_vm_pu": round(float(g.vm_slack_pu), 4) if level == 1 else round(float(rng.uniform(1.0, 1.02)), 3)}
    inputs["hosting_capacity"] = {**stub["hosting_capacity"], "node_ids": [case.bus_ids[b] for b in hc_nodes],
                                  "pv_profile": profile}
    inputs["rollout"] = {"pv_profile": profile, "plants": [dict(p) for p in plants]}
    inputs["catalogue"] = {
        "transformer_options": [{"id": t_id, "type": t_type, "units_after": t_after, "new_units": t_new,
                                 "sn_total_mva_after": float(g.trafo_types[t_type]["sn_mva"]) * t_after,
                                 "cost_keur": round(COST_TRAFO_KEUR_PER_UNIT * t_new * float(rng.uniform(0.8, 1.2)), 1)}],
        "line_options": line_options,
        "q_u": {**stub["catalogue"]["q_u"], "cost_keur_per_plant": round(COST_QU_KEUR_PER_PLANT * float(rng.uniform(0.8, 1.2)), 2)},
        "curtailment": {"cap_levels_pct": CAP_LEVELS_PCT,
                        "price_eur_per_mwh": round(CURTAIL_EUR_PER_MWH * float(rng.uniform(0.8, 1.2)), 1),
                        "capitalisation_years": 20},
    }
    # shrink the roll-out together until the catalogue's strongest combination (every option,
    # Q(U), the deepest cap) clears every criterion at the sunniest steps: a draw the catalogue
    # cannot fix is no study (the voltage band, not the rise, binds first on some grids)
    every = np.arange(prof.size)
    for _ in range(16):
        c = _build(inputs)
        strongest = Decision(next(iter(c.trafo_options), "keep"), tuple(sorted(c.line_options)), True, min(c.caps_pct))
        if _quick_feasible(c, strongest, every):
            break
        for p in inputs["rollout"]["plants"]:
            p["p_mwp"] = max(round(p["p_mwp"] * 0.85, 1), 0.1)
    return Generated(public_inputs=inputs)


def _quick_feasible(case: Case, d: Decision, steps: np.ndarray) -> bool:
    """``d`` meets every criterion at ``steps`` (surrogate AC), the base case taken at the same steps."""
    p0, q0, _ = injections(case, None, steps)
    base = run(case.net, p0, q0, None, "surrogate")
    p, q, qu = injections(case, d, steps)
    f = run(network_for(case, d), p, q, qu, "surrogate")
    return feasible(check(case, f, base, np.arange(steps.size)))


def _stub_inputs(code: str, files: list[dict[str, str]], profile: str) -> dict[str, Any]:
    g = _grid(code)
    return {
        "model": {"format": "simbench-csv", "source": f"SimBench {code} ({SIMBENCH_VERSION})", "simbench_code": code,
                  "files": files},
        "deliverables": study_model.deliverables_inputs(SPEC) if "SPEC" in globals() else [d.to_dict() for d in DELIVERABLES],
        "scenario": {"load_scale": 1.0, "sgen_scale": 1.0, "busbar_vm_pu": float(g.vm_slack_pu)},
        "time": {"steps": int(g.load_p_mw.shape[1]), "step_minutes": 15, "first_step": "2016-01-01 00:00",
                 "step_index": "0-based row of LoadProfile.csv / RESProfile.csv"},
        "criteria": {"voltage_band": "vmMin_pu <= |V| <= vmMax_pu of Node.csv at every MV node except the busbar",
                     "voltage_rise_max_pu": RISE_MAX_PU,
                     "line_loading": "<= loadingMax of Line.csv (percent of the type's max current)",
                     "transformer_loading": "<= loadingMax of Transformer.csv (percent of the rated current at the MV side)",
                     "pre_existing": "where the base grid already exceeds the band or a loading limit at a step and element, "
                                     "that criterion is not assessed there"},
        "hosting_capacity": {"node_ids": [], "pv_profile": profile, "resolution_mwp": RESOLUTION_MWP,
                             "max_mwp": HC_MAX_MWP, "power_factor": 1.0},
        "rollout": {"pv_profile": profile, "plants": []},
        "catalogue": {"transformer_options": [], "line_options": [],
                      "q_u": {"u_pu": list(QU_U_PU), "q_per_p_inst": list(QU_K), "q_max_mvar_per_mwp": 0.33,
                              "cost_keur_per_plant": COST_QU_KEUR_PER_PLANT},
                      "curtailment": {"cap_levels_pct": CAP_LEVELS_PCT, "price_eur_per_mwh": CURTAIL_EUR_PER_MWH,
                                      "capitalisation_years": 20}},
    }


def accept(task: Task, reference: Reference) -> str | None:
    """Accept a draw only when do nothing fails a criterion, the naive decision is dearer than
    the reference, and power-grid-model agrees with the surrogate: the same hosting capacities
    and binding results at every listed node, and the same verdicts on the reference decision
    and on doing nothing."""
    case = case_of(task)
    crit, _ = judge(task, case, NOTHING, "surrogate")
    if feasible(crit):
        return "doing nothing meets every criterion"
    ref_d = decision_of(reference.answer["decision"])
    naive_d = decision_of(naive_answer(task)["decision"])
    if cost_keur(case, naive_d) <= cost_keur(case, ref_d) * (1 + 1e-9):
        return "the naive decision is optimal"
    if all(row["binding_criterion"] == "none" for row in reference.answer["hosting_capacity"]):
        return "no listed node reaches a limit below max_mwp"
    if 2 * sum(row["hc_mwp"] == 0 for row in reference.answer["hosting_capacity"]) > len(reference.answer["hosting_capacity"]):
        return "most listed nodes have no hosting capacity at all (the base case sits at a limit)"
    from psab import backends

    if backends.available("power_grid_model"):
        for d in (ref_d, NOTHING):
            if feasible(judge(task, case, d, "power_grid_model")[0]) != feasible(judge(task, case, d, "surrogate")[0]):
                return "power_grid_model and the surrogate disagree on a decision's verdict"
        for row in reference.answer["hosting_capacity"]:
            other = hosting_capacity(task, case, row["node_id"], "power_grid_model")
            if other != row:
                return f"power_grid_model and the surrogate disagree on the hosting capacity at {row['node_id']}"
    return None


# ---------------------------------------------------------------------------- words

CONVENTIONS_EN = """\
**Model.** The SimBench CSV folder in `model/` (read it with `simbench.csv2pp`, or directly). The study network is the MV \
level: the nodes of Node.csv at the rated voltage of the HV/MV transformers' LV side. Nodes joined by a closed switch of \
Switch.csv are one node, named as `simbench.csv2pp` names it (the auxiliary line-end nodes `…_1`, `…_2` merge into their \
bus; the two busbar sections into `…busbar1.1`); a line with an open switch at either end is out of service (the grid's \
normally-open points). Node and line ids in the task and the answer are those names (Node.csv / Line.csv ids). The HV \
side is not modelled: the MV busbar (the transformers' LV node) is held at `scenario.busbar_vm_pu` at angle 0 by the \
on-load tap changer (Transformer.csv autoTap at the LV side), at every step. Lines are π-models: series r + jx and shunt \
jb/2 at each end from LineType.csv per km × Line.csv length (g = 0). Loads: Load.csv pLoad, qLoad × the LoadProfile.csv \
columns `<profile>_pload`, `<profile>_qload` × `scenario.load_scale`; generation: RES.csv pRES × its RESProfile.csv \
column × `scenario.sgen_scale`, at Q = 0 (what `simbench.get_absolute_values(net, profiles_instead_of_study_cases=True)` \
returns). Every 15-minute step (the 0-based row of the profile files, `time.steps` of them) is an independent balanced AC \
power flow with constant-power injections.

**Criteria** (every step, every element): (1) `voltage_band`: vmMin ≤ |V| ≤ vmMax of Node.csv at every MV node except \
the busbar; (2) `voltage_rise`: |V| − |V_base| ≤ `criteria.voltage_rise_max_pu` at every MV node except the busbar, \
V_base the same step of the base case (the scenario without any added PV and without any measure); (3) `line_thermal`: \
max(|I_from|, |I_to|) / iMax · 100 ≤ loadingMax of Line.csv (iMax of the line's type, the new type once replaced); \
(4) `trafo_thermal`: the current the MV network exchanges with the HV/MV transformers (the current leaving the busbar \
into the lines minus the busbar's own loads' and generators' currents) over the sum of the units' rated currents at the \
MV side (sR / (√3 · vmLV)) · 100 ≤ loadingMax of Transformer.csv. Where the base case already exceeds the band or a \
loading limit at a step and element, that criterion is not assessed there (the violation exists without the added \
generation; the voltage-rise criterion still bounds what it adds). A criterion is \
violated when exceeded by more than 1e-6 pu (voltages) or 1e-4 percentage points (loadings).

**Hosting capacity** at a listed node: one PV plant of P MWp there, output P × the `hosting_capacity.pv_profile` column \
of RESProfile.csv at unity power factor, on the base case (no roll-out, no measure); the largest P, a multiple of \
`resolution_mwp` in [0, `max_mwp`], at which every criterion holds at every step (the feasible sizes form an interval \
[0, HC]). `binding_criterion`: at P = HC + resolution_mwp, the first violated criterion in the order voltage_band, \
voltage_rise, line_thermal, trafo_thermal; `binding_step`: the step of that criterion's largest excess over the year \
(in its own unit; the earliest step on a tie); `binding_element_id`: the Node.csv id (voltages), Line.csv id, or \
"HV/MV transformers" where that excess occurs. When HC = max_mwp: "none", -1 and "".

**Decision** for the roll-out (`rollout.plants`, each MWp × the `rollout.pv_profile` column, unity power factor unless \
Q(U)): choose from `catalogue` (any subset of line options, at most one transformer option, Q(U) on or off, one cap \
level). A transformer option makes the HV/MV transformers `units_after` units of its type (sR from TransformerType.csv). A \
line option replaces the line's type by `new_type` (its LineType.csv row, repeated in the option). Q(U): every roll-out \
inverter sets Q = MWp · k(|V|) Mvar at its node, k piecewise linear through (u_pu, q_per_p_inst) — Mvar per installed \
MWp, so |Q| ≤ q_max_mvar_per_mwp · MWp (the characteristic is not scaled by q_max again) — and flat outside, Q > 0 injecting, at the steps where its output is positive (Q = 0 otherwise); the steady state of the power flow \
with that characteristic. Curtailment cap c %: each roll-out plant's output is MWp × min(profile, c / 100). Cost (kEUR) \
= the transformer option's cost_keur + the replaced lines' cost_keur + (Q(U) ? cost_keur_per_plant × number of roll-out \
plants : 0) + curtailed energy (MWh over the year: Σ steps Σ plants MWp × max(profile − c / 100, 0) × 0.25 h) × \
price_eur_per_mwh × capitalisation_years / 1000. The decision must meet every criterion at every step, with the base \
case for the voltage rise and for pre-existing violations being the scenario without roll-out and without measures."""

CONVENTIONS_RU = """\
**Модель.** Папка CSV SimBench в `model/` (читается `simbench.csv2pp` или напрямую). Сеть исследования — уровень СН: \
узлы Node.csv с номинальным напряжением стороны НН трансформаторов ВН/СН; узлы, соединённые замкнутым выключателем \
Switch.csv, — один узел; линия с разомкнутым выключателем на любом конце выведена из работы (нормальные точки \
размыкания). Идентификаторы узлов и линий в задании и ответе — имена, которые даёт `simbench.csv2pp` (вспомогательные \
узлы концов линий `…_1`, `…_2` сливаются со своим узлом, две секции шин — в `…busbar1.1`). Сторона ВН не моделируется: шины СН (узел НН трансформаторов) на каждом шаге поддерживаются РПН \
(Transformer.csv autoTap на стороне НН) при `scenario.busbar_vm_pu` и угле 0. Линии — П-схемы: продольное r + jx и \
поперечная jb/2 на каждом конце по LineType.csv на км × длина из Line.csv (g = 0). Нагрузки: pLoad, qLoad из Load.csv × \
столбцы `<profile>_pload`, `<profile>_qload` LoadProfile.csv × `scenario.load_scale`; генерация: pRES из RES.csv × её \
столбец RESProfile.csv × `scenario.sgen_scale`, при Q = 0 (то, что даёт `simbench.get_absolute_values(net, \
profiles_instead_of_study_cases=True)`). Каждый 15-минутный шаг (номер строки файлов профилей с 0, всего `time.steps`) \
— независимый симметричный расчёт установившегося режима с нагрузками постоянной мощности.

**Критерии** (каждый шаг, каждый элемент): (1) `voltage_band`: vmMin ≤ |V| ≤ vmMax из Node.csv в каждом узле СН, кроме \
шин; (2) `voltage_rise`: |V| − |V_base| ≤ `criteria.voltage_rise_max_pu` в каждом узле СН, кроме шин, где V_base — тот \
же шаг базового режима (сценарий без добавленных СЭС и без мероприятий); (3) `line_thermal`: max(|I_нач|, |I_кон|) / \
iMax · 100 ≤ loadingMax из Line.csv (iMax типа линии, после замены — нового типа); (4) `trafo_thermal`: ток обмена сети \
СН с трансформаторами ВН/СН (ток, уходящий с шин в линии, минус токи нагрузок и генераторов самих шин), отнесённый к \
сумме номинальных токов единиц на стороне СН (sR / (√3 · vmLV)), · 100 ≤ loadingMax из Transformer.csv. Если базовый \
режим уже выходит за диапазон или предел загрузки на шаге и элементе, этот критерий там не проверяется (нарушение есть \
и без добавленной генерации; прирост ограничивает критерий повышения напряжения). Критерий нарушен при превышении более чем на 1e-6 о.е. (напряжения) или 1e-4 процентного пункта \
(загрузки).

**Допустимая мощность** в указанном узле: одна СЭС мощностью P МВт пик в нём, выдача P × столбец \
`hosting_capacity.pv_profile` RESProfile.csv при cos φ = 1, в базовом режиме (без ввода, без мероприятий); наибольшая \
P, кратная `resolution_mwp`, в [0, `max_mwp`], при которой все критерии выполняются на каждом шаге (допустимые \
мощности образуют отрезок [0, HC]). `binding_criterion`: при P = HC + resolution_mwp — первый нарушенный критерий в \
порядке voltage_band, voltage_rise, line_thermal, trafo_thermal; `binding_step`: шаг наибольшего превышения этого \
критерия за год (в его единицах; при равенстве — самый ранний); `binding_element_id`: id из Node.csv (напряжения), \
Line.csv или "HV/MV transformers", где оно достигается. При HC = max_mwp: "none", -1 и "".

**Решение** для ввода (`rollout.plants`, каждая МВт пик × столбец `rollout.pv_profile`, cos φ = 1, если не Q(U)): \
выбор из `catalogue` (любое подмножество замен линий, не более одного варианта по трансформаторам, Q(U) да/нет, один \
уровень ограничения). Вариант по трансформаторам делает трансформаторы ВН/СН `units_after` единицами своего типа (sR \
из TransformerType.csv). Замена линии ставит тип `new_type` (его строка LineType.csv повторена в варианте). Q(U): \
каждый инвертор ввода задаёт Q = МВт пик · k(|V|) Мвар в своём узле, k кусочно-линейна через точки \
(u_pu, q_per_p_inst) — Мвар на установленный МВт пик, так что |Q| ≤ q_max_mvar_per_mwp · МВт пик (характеристика не \
умножается на q_max ещё раз) — и постоянна вне их, Q > 0 — выдача, на шагах с положительной выдачей P (иначе Q = 0); \
установившийся режим с этой характеристикой. Ограничение c %: выдача каждой СЭС ввода = МВт пик × min(профиль, c / \
100). Стоимость (тыс. евро) = cost_keur варианта трансформаторов + cost_keur заменённых линий + (Q(U) ? \
cost_keur_per_plant × число СЭС ввода : 0) + недоотпуск (МВт·ч за год: Σ шагов Σ СЭС МВт пик × max(профиль − c / 100, \
0) × 0,25 ч) × price_eur_per_mwh × capitalisation_years / 1000. Решение должно выполнять все критерии на каждом шаге; \
базовый режим для повышения напряжения и существующих нарушений — сценарий без ввода и без мероприятий."""

PRESENTATION = {
    "en": {
        "title": "Hosting capacity and reinforcement study of a SimBench MV grid over a year",
        "statement": (
            "You are the distribution planner. The SimBench MV grid in `model/` carries its own year of 15-minute load and "
            "generation profiles. Deliver (1) the PV hosting capacity at each node listed in `hosting_capacity.node_ids`, "
            "with the binding criterion, step and element, and (2) for the PV roll-out in `rollout`, the cheapest "
            "reinforcement from `catalogue` that keeps every planning criterion at every step of the year, judged by a year "
            "of AC power flow.\n\n" + CONVENTIONS_EN),
        "answer_notes": (
            "hosting_capacity: one entry per listed node, in the listed order. decision: transformer_type ('keep' or an "
            "option id), replace_lines (line option ids), q_u, curtailment_cap_pct. The hosting capacity is scored per item "
            "(hc_mwp within 5e-5 MWp, the criterion, step and element exactly) against psab's recomputation; the decision is "
            "applied and the whole year re-simulated: it must meet every criterion, and it scores 1 at the catalogue's least "
            "cost, less in proportion to the extra kEUR. Score = (1 × hosting capacity + 2 × decision) / 3; 0 if the "
            "decision violates a criterion."),
    },
    "ru": {
        "title": "Исследование допустимой мощности СЭС и усиления сети СН SimBench за год",
        "statement": (
            "Вы — проектировщик распределительной сети. Сеть СН SimBench в `model/` содержит собственные годовые "
            "15-минутные профили нагрузки и генерации. Подготовьте (1) допустимую мощность СЭС в каждом узле из "
            "`hosting_capacity.node_ids` с ограничивающим критерием, шагом и элементом и (2) для ввода СЭС из `rollout` "
            "самое дешёвое усиление из `catalogue`, при котором каждый критерий планирования выполняется на каждом шаге "
            "года, по расчёту режимов за год.\n\n" + CONVENTIONS_RU),
        "answer_notes": (
            "hosting_capacity: по записи на каждый указанный узел, в указанном порядке. decision: transformer_type ('keep' "
            "или id варианта), replace_lines (id вариантов замены линий), q_u, curtailment_cap_pct. Допустимая мощность "
            "оценивается поэлементно (hc_mwp с точностью 5e-5 МВт пик, критерий, шаг и элемент — точно) по пересчёту psab; "
            "решение применяется и весь год пересчитывается: оно должно выполнять все критерии и получает 1 при наименьшей "
            "стоимости каталога, меньше — пропорционально избытку тыс. евро. Оценка = (1 × допустимая мощность + 2 × "
            "решение) / 3; 0, если решение нарушает критерий."),
        "hard_constraints": (
            "решение: напряжение каждого узла СН в [vmMin, vmMax] Node.csv на каждом шаге (там, где базовый режим в нём)",
            "решение: повышение напряжения от ввода ≤ voltage_rise_max_pu в каждом узле СН на каждом шаге",
            "решение: загрузка каждой линии ≤ loadingMax Line.csv на каждом шаге",
            "решение: загрузка трансформаторов ВН/СН ≤ loadingMax Transformer.csv на каждом шаге",
            "решение: только варианты каталога",
        ),
    },
}

HARD_CONSTRAINTS = (
    "decision: every MV node's voltage within [vmMin, vmMax] of Node.csv at every step (where the base case is within it)",
    "decision: the voltage rise caused by the roll-out ≤ voltage_rise_max_pu at every MV node at every step",
    "decision: every line's loading ≤ loadingMax of Line.csv at every step",
    "decision: the HV/MV transformers' loading ≤ loadingMax of Transformer.csv at every step",
    "decision: catalogue options only",
)

EXPERT = {
    "en": {"statement": (
        "Hosting-capacity and reinforcement study of the SimBench MV grid in `model/` over its year of 15-minute profiles "
        "(SimBench, Meinecke et al. 2020). Deliver the PV hosting capacity at the listed nodes under the voltage band of "
        "Node.csv, the 2 % voltage-rise limit of VDE-AR-N 4110:2018-11 §5.3.2 and the loadingMax of lines and "
        "transformers, with the binding criterion, step and element; and the least-cost reinforcement of the roll-out "
        "from the catalogue (transformers, lines, Q(U) per VDE-AR-N 4110 §10.2.2.4 with the stated characteristic, "
        "curtailment priced per MWh), judged by a year of AC power flow.\n\n" + CONVENTIONS_EN)},
    "ru": {"statement": (
        "Исследование допустимой мощности СЭС и усиления сети СН SimBench из `model/` по её годовым 15-минутным профилям "
        "(SimBench, Meinecke et al. 2020). Определите допустимую мощность СЭС в указанных узлах при диапазоне напряжений "
        "Node.csv, пределе повышения напряжения 2 % VDE-AR-N 4110:2018-11 §5.3.2 и loadingMax линий и трансформаторов, с "
        "ограничивающим критерием, шагом и элементом; и усиление наименьшей стоимости для ввода из каталога "
        "(трансформаторы, линии, Q(U) по VDE-AR-N 4110 §10.2.2.4 с заданной характеристикой, ограничение выдачи с ценой "
        "за МВт·ч) по расчёту режимов за год.\n\n" + CONVENTIONS_RU)},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged by psab's implicit Z-bus AC power flow over every step of the year (psab.surrogates.distribution_pf, "
              "converged to 1e-9 pu), the criteria as stated; hosting capacities against psab's proven recomputation.",
        "ru": "Проверяется расчётом режима методом неявной Z-матрицы psab на каждом шаге года "
              "(psab.surrogates.distribution_pf, сходимость 1e-9 о.е.) по заданным критериям; допустимые мощности — по "
              "доказанному пересчёту psab.",
    },
    "power_grid_model": {
        "en": "Judged by power-grid-model's batch Newton-Raphson power flow over every step of the year (the Q(U) steady "
              "state by an outer fixed point), the criteria as stated; hosting capacities recomputed on it.",
        "ru": "Проверяется пакетным расчётом режима Ньютона–Рафсона power-grid-model на каждом шаге года (установившийся "
              "режим Q(U) — внешней итерацией) по заданным критериям; допустимые мощности пересчитываются на нём.",
    },
}

PROVENANCE = (
    {"title": "S. Meinecke et al., SimBench — A Benchmark Dataset of Electric Power Systems to Compare Innovative Solutions "
              "Based on Power Flow Analysis, Energies 13(12), 3290, 2020; the simbench package 1.6.3 (data 1.0.x)",
     "locator": "grids 1-MV-rural--0-sw (level 1) and 1-MV-semiurb--0-sw (level 2): topology, line and transformer types, "
                "loads, generation, the 2016 15-minute profiles, Node.csv vmMin/vmMax (0.965-1.055 pu at MV), loadingMax 100 %",
     "note": "The agent's model is the grid's own CSV folder written by simbench's write2csv; psab reads the same files.",
     "confidence": "high"},
    {"title": "VDE-AR-N 4110:2018-11, Technische Regeln für den Anschluss von Kundenanlagen an das Mittelspannungsnetz",
     "locator": "§5.3.2 (voltage change caused by generating plants ≤ 2 % at MV); §10.2.2.4 (Q(U) characteristic, "
                "parameters set by the network operator)",
     "note": "The 2 % rise limit is applied per node and step against the base case; the Q(U) points are the study's, "
             "stated in the task (cos φ = 0.95 at full output, Q/P_inst = 0.33). Clause numbers from the 2018 edition, not "
             "re-checked against the text here.",
     "confidence": "medium"},
    {"title": "Candidate costs (kEUR): MV cable 110 kEUR/km, MV overhead line 70 kEUR/km, 110/20 kV 40 MVA transformer "
              "1,100 kEUR per unit, Q(U) parametrisation 3 kEUR per plant, curtailment 90 EUR/MWh over 20 years",
     "locator": "assumed round figures of the order of the German distribution-grid studies (dena-Verteilnetzstudie 2012; "
                "BMWi Moderne Verteilernetze für Deutschland 2014); not taken from a cited table",
     "note": "No public cost table could be retrieved and checked here; the figures are stated, perturbed ±20 % per draw, "
             "and the optimum is optimal for the stated figures.",
     "confidence": "low"},
)


def _neighbourhood(task: Task, answer: dict[str, Any]):
    """Held-out acceptance's neighbourhood: one catalogue step away from the decision (each line
    toggled, the cap one level up or down, Q(U) toggled), hosting capacities kept."""
    case = case_of(task)
    d = decision_of(answer["decision"])
    caps = sorted(case.caps_pct)
    variants = []
    for ln in case.line_options:
        lines = tuple(sorted(set(d.lines) ^ {ln}))
        variants.append((f"toggle {ln}", replace(d, lines=lines)))
    variants.append(("toggle q_u", replace(d, q_u=not d.q_u)))
    i = caps.index(d.cap_pct) if d.cap_pct in caps else 0
    for j in (i - 1, i + 1):
        if 0 <= j < len(caps):
            variants.append((f"cap {caps[j]:g} %", replace(d, cap_pct=caps[j])))
    for name, v in variants:
        yield name, {**answer, "decision": v.to_answer()}


SPEC = register(
    FamilySpec(
        id=STUDY_ID,
        area="der_storage",
        scoring_kind="study",
        confidence="medium",
        version="2",
        provenance=PROVENANCE,
        submission_schema=submission_schema,
        hard_constraints=HARD_CONSTRAINTS,
        metrics=(),
        tolerances={"relative": 1e-6, "absolute_floors": {"default": 1e-6},
                    "objective": {"relative": 1e-6, "absolute": 1e-3}},
        presentation=PRESENTATION,
        backends=("surrogate", "power_grid_model"),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        accept=accept,
        objective_sense="minimize",
        objective_unit="kEUR",
        objective_scale_floor=10.0,
        validate_inputs=validate_inputs,
        redraw_budget=6,
        trivial_answer=do_nothing_answer,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
        tier="study",
        deliverables=DELIVERABLES,
        materialize=materialize,
    )
)
