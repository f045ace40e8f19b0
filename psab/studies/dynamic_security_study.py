"""dynamic_security_study — critical clearing times, unstable faults and the cheapest stabilising redispatch of the IEEE 39-bus system.

Study 5 of ``shared/spec/studies.md`` (issue 35 item 3). The agent receives the IEEE 39-bus (New
England) system as PSS/E files — ``model/ieee39.raw`` (power flow, v33) and ``model/ieee39.dyr``
(GENROU round-rotor machines, IEEEX1 exciters, TGOV1 governors at all ten machines; see
:mod:`psab.studies._ieee39_dynamics` for where each file comes from) — and ``study.json`` stating
the operating point (load scale, dispatch), a list of three-phase faults each cleared by opening a
stated line, the protection's clearing time, the instability criterion, the simulation settings and
a catalogue of redispatch options (MW moved from one machine to another, priced per MW). It
delivers

- ``cct`` (analysis): per listed fault, the critical clearing time on the stated grid (bracket and
  resolution stated): the largest grid clearing time that is stable while the next grid point up is
  not, found by bisection;
- ``unstable_faults`` (analysis): the listed faults that are unstable when cleared at
  ``t_clear_s``;
- ``decision``: the cheapest set of catalogue options under which every listed fault is stable at
  ``t_clear_s``.

Judged in ANDES 2.0.0 alone (the only backend, registered under psab's default backend name
``surrogate``): the study's machines are detailed (sixth-order GENROU with exciters and governors), so
psab's classical multi-machine model is no honest second engine here; it serves as the
``dc_only_answer`` analogue instead — the analyses and the decision made on the classical model
(GENCLS, H and x′_d from the same data), judged in the detailed one.

Instability criterion (as ``transient_stability_prediction``): the largest rotor-angle separation
between any two machines exceeds ``criterion.separation_limit_deg`` at some integration step within
``criterion.horizon_s`` of the fault; a run whose Newton iteration fails (the step shrinks to
nothing) counts as unstable.

Reference, proven by enumeration: the CCT by bisection on the grid from the bracket (the first probe
at ``t_clear_s``, which also gives that fault's verdict for ``unstable_faults``); the decision by
enumerating every subset of the catalogue in cost order and simulating every listed fault at
``t_clear_s`` for each (the fault that looks most unstable on the nearest subsets already judged
first, so a refuted candidate mostly costs one short unstable run: a run stops as soon as the
separation passes the limit), stopping at the first subset under which every fault is stable —
every cheaper subset was shown to leave some fault unstable, so it is optimal within the catalogue.
No pruning: stability is not monotone in the options (a shift onto a neighbour weakens that
neighbour's faults), so every cheaper subset is judged.

Level 2 (:func:`generate`): four stressed machines, 8-12 faults (a neighbour's fault for each cheap
shift), 8 options (256 subsets) and a clearing time leaving faults next to three machines unstable.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from psab.contract import Task, Violation
from psab.errors import InvalidTaskError, SolverError
from psab.evaluators import answer_schema as s
from psab.registry import Assessment, Deliverable, FamilySpec, Generated, Reference, register
from psab.studies import _ieee39_dynamics as dyn
from psab.studies import model as study_model

STUDY_ID = "dynamic_security_study"
ANDES_VERSION = "2.0.0"
DELIVERABLES = (
    Deliverable("cct", "analysis", 1.0,
                "critical clearing time (s) of each listed fault on the stated grid",
                "критическое время отключения (с) каждого указанного КЗ на заданной сетке"),
    Deliverable("unstable_faults", "analysis", 1.0,
                "the listed faults that are unstable when cleared at t_clear_s",
                "указанные КЗ, неустойчивые при отключении за t_clear_s"),
    Deliverable("decision", "decision", 2.0,
                "the cheapest set of catalogue redispatch options that makes every listed fault stable at t_clear_s",
                "самый дешёвый набор вариантов перераспределения нагрузки из каталога, при котором устойчивы все КЗ при t_clear_s"),
)
#: The machines (generator buses of the .raw with a dynamic model); 39 is the slack.
MACHINE_BUSES = tuple(r[0] for r in dyn.DYR_ROWS)
SLACK_BUS = 39
#: The .raw's PG of the PV machines (MW): the public case's dispatch.
RAW_PG_MW = {30: 250.0, 31: 572.93, 32: 650.0, 33: 632.0, 34: 508.0, 35: 650.0, 36: 560.0, 37: 540.0, 38: 830.0}
#: Largest output of each machine (MW): min(the .raw's PT, TGOV1 VMAX × MBASE) — a dispatch above
#: VMAX cannot be initialised by the governor.
P_MAX_MW = {30: 250.0, 31: 760.0, 32: 767.0, 33: 1068.0, 34: 982.0, 35: 987.0, 36: 932.0, 37: 882.0, 38: 1531.0,
            39: 1090.0}
#: The transmission lines of the .raw (branch records, not transformers): the lines a fault may trip.
LINES = ("1-2", "1-39", "2-3", "2-25", "3-4", "3-18", "4-5", "4-14", "5-6", "5-8", "6-7", "6-11", "7-8", "8-9",
         "9-39", "10-11", "10-13", "13-14", "14-15", "15-16", "16-17", "16-19", "16-21", "16-24", "17-18", "17-27",
         "21-22", "22-23", "23-24", "25-26", "26-27", "26-28", "26-29", "28-29")
MAX_FAULTS = 12
MAX_OPTIONS = 8
#: A draw's faults and options (level 1): sized so that the reference — about 6 ANDES runs per CCT
#: and one ANDES build per catalogue subset cheaper than the optimum — stays near a minute on two
#: cores (level 2: see :func:`generate`).
N_FAULTS = 6
N_OPTIONS = 5
#: Most ANDES runs one reference may spend (a task that needs more is refused, not run for ever).
MAX_RUNS = 1500


def _bad(field: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"{STUDY_ID}: public_inputs{field} {why}")


# ---------------------------------------------------------------------------- the case


@dataclass(frozen=True)
class Fault:
    id: str
    bus: int
    trip_line: str


@dataclass(frozen=True)
class Option:
    id: str
    from_bus: int
    to_bus: int
    shift_mw: float
    cost_usd_per_mw: float

    @property
    def cost_usd(self) -> float:
        return self.shift_mw * self.cost_usd_per_mw


@dataclass(frozen=True)
class Case:
    load_scale: float
    dispatch_mw: tuple[tuple[int, float], ...]
    faults: tuple[Fault, ...]
    t_clear_s: float
    cct_min_s: float
    cct_max_s: float
    resolution_s: float
    limit_deg: float
    horizon_s: float
    step_s: float
    options: tuple[Option, ...]
    #: the public_inputs it was read from (worker processes rebuild the case from them)
    inputs: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def option_by_id(self) -> dict[str, Option]:
        return {o.id: o for o in self.options}

    def grid_k(self, t_s: float) -> int:
        return int(round(t_s / self.resolution_s))

    def key(self) -> str:
        return json.dumps([self.load_scale, self.dispatch_mw, self.horizon_s, self.step_s, self.limit_deg], sort_keys=True)


def _num(x: Any, field: str, lo: float | None = None, hi: float | None = None, strict_lo: bool = False) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(float(x)):
        raise _bad(field, "must be a finite number")
    v = float(x)
    if lo is not None and (v < lo or (strict_lo and v <= lo)):
        raise _bad(field, f"must be {'>' if strict_lo else '>='} {lo:g}")
    if hi is not None and v > hi:
        raise _bad(field, f"must be <= {hi:g}")
    return v


def _get(m: Any, key: str, field: str) -> Any:
    if not isinstance(m, Mapping) or key not in m:
        raise _bad(field, f"must be an object with '{key}'")
    return m[key]


def _bus(x: Any, field: str, allowed: tuple[int, ...] | None = None) -> int:
    if not isinstance(x, str) or not x.isdigit():
        raise _bad(field, "must be a bus number as a string")
    b = int(x)
    if allowed is not None and b not in allowed:
        raise _bad(field, f"must be one of {[str(a) for a in allowed]}")
    if not 1 <= b <= 39:
        raise _bad(field, "must be a bus of the 39-bus case (1-39)")
    return b


def case_of_inputs(inputs: Mapping[str, Any]) -> Case:
    sc = _get(inputs, "scenario", "")
    load_scale = _num(_get(sc, "load_scale", "/scenario"), "/scenario/load_scale", 0.8, 1.2)
    disp = _get(sc, "dispatch_mw", "/scenario")
    if not isinstance(disp, Mapping):
        raise _bad("/scenario/dispatch_mw", "must map generator buses to MW")
    pv = tuple(b for b in MACHINE_BUSES if b != SLACK_BUS)
    if sorted(disp) != sorted(str(b) for b in pv):
        raise _bad("/scenario/dispatch_mw", f"must give every PV machine's MW: {[str(b) for b in pv]}")
    dispatch = tuple((b, _num(disp[str(b)], f"/scenario/dispatch_mw/{b}", 0.0, P_MAX_MW[b])) for b in pv)
    sim = _get(inputs, "simulation", "")
    step = _num(_get(sim, "step_s", "/simulation"), "/simulation/step_s", 0.002, 0.02)
    crit = _get(inputs, "criterion", "")
    limit = _num(_get(crit, "separation_limit_deg", "/criterion"), "/criterion/separation_limit_deg", 90.0, 360.0)
    horizon = _num(_get(crit, "horizon_s", "/criterion"), "/criterion/horizon_s", 0.5, 5.0)
    cg = _get(inputs, "cct", "")
    res = _num(_get(cg, "resolution_s", "/cct"), "/cct/resolution_s", 0.002, 0.05)
    lo = _num(_get(cg, "min_s", "/cct"), "/cct/min_s", res)
    hi = _num(_get(cg, "max_s", "/cct"), "/cct/max_s", lo, 1.0, strict_lo=True)
    for name, v in (("min_s", lo), ("max_s", hi)):
        if abs(v / res - round(v / res)) > 1e-6:
            raise _bad(f"/cct/{name}", "must be a multiple of resolution_s")
    if (hi - lo) / res > 200:
        raise _bad("/cct", "spans more than 200 grid steps")
    tcl = _num(_get(inputs, "t_clear_s", ""), "/t_clear_s", lo, hi)
    if abs(tcl / res - round(tcl / res)) > 1e-6:
        raise _bad("/t_clear_s", "must be a multiple of cct/resolution_s")
    faults_in = _get(inputs, "faults", "")
    if not isinstance(faults_in, list) or not 1 <= len(faults_in) <= MAX_FAULTS:
        raise _bad("/faults", f"must list 1 to {MAX_FAULTS} faults")
    faults = []
    for i, f in enumerate(faults_in):
        fid = _get(f, "id", f"/faults/{i}")
        if not isinstance(fid, str) or not fid or len(fid) > 40:
            raise _bad(f"/faults/{i}/id", "must be a short non-empty string")
        bus = _bus(_get(f, "bus", f"/faults/{i}"), f"/faults/{i}/bus")
        line = _get(f, "trip_line", f"/faults/{i}")
        if line not in LINES:
            raise _bad(f"/faults/{i}/trip_line", "must be a transmission line '<from>-<to>' of the .raw's branch data")
        if str(bus) not in line.split("-"):
            raise _bad(f"/faults/{i}/trip_line", "must end at the faulted bus")
        faults.append(Fault(fid, bus, line))
    if len({f.id for f in faults}) != len(faults):
        raise _bad("/faults", "ids must be unique")
    if len({(f.bus, f.trip_line) for f in faults}) != len(faults):
        raise _bad("/faults", "lists one fault twice")
    cat = _get(inputs, "catalogue", "")
    opts_in = _get(cat, "options", "/catalogue")
    if not isinstance(opts_in, list) or not 1 <= len(opts_in) <= MAX_OPTIONS:
        raise _bad("/catalogue/options", f"must list 1 to {MAX_OPTIONS} options")
    opts = []
    for i, o in enumerate(opts_in):
        where = f"/catalogue/options/{i}"
        oid = _get(o, "id", where)
        if not isinstance(oid, str) or not oid or len(oid) > 40:
            raise _bad(f"{where}/id", "must be a short non-empty string")
        fb = _bus(_get(o, "from_generator_bus", where), f"{where}/from_generator_bus", MACHINE_BUSES)
        tb = _bus(_get(o, "to_generator_bus", where), f"{where}/to_generator_bus", MACHINE_BUSES)
        if fb == tb:
            raise _bad(where, "moves power from a machine to itself")
        if fb == SLACK_BUS:
            raise _bad(f"{where}/from_generator_bus", "cannot be the slack (its output is the power-flow balance)")
        opts.append(Option(oid, fb, tb, _num(_get(o, "shift_mw", where), f"{where}/shift_mw", 0.0, 1000.0, strict_lo=True),
                           _num(_get(o, "cost_usd_per_mw", where), f"{where}/cost_usd_per_mw", 0.0, 1e6)))
    if len({o.id for o in opts}) != len(opts):
        raise _bad("/catalogue/options", "ids must be unique")
    case = Case(load_scale, dispatch, tuple(faults), tcl, lo, hi, res, limit, horizon, step, tuple(opts),
                json.loads(json.dumps(inputs, default=str)))
    # every combination of options must keep every machine within [0, P_MAX_MW]
    base = dict(dispatch)
    for b in pv:
        down = sum(o.shift_mw for o in opts if o.from_bus == b)
        up = sum(o.shift_mw for o in opts if o.to_bus == b)
        if base[b] - down < -1e-9 or base[b] + up > P_MAX_MW[b] + 1e-9:
            raise _bad("/catalogue/options", f"some combination takes machine {b} outside [0, {P_MAX_MW[b]:g}] MW")
    return case


_CASES: dict[str, Case] = {}
_LOCK = threading.RLock()


def case_of(task: Task) -> Case:
    key = json.dumps(task.public_inputs, sort_keys=True, default=str)
    with _LOCK:
        if key not in _CASES:
            _CASES[key] = case_of_inputs(task.public_inputs)
        return _CASES[key]


def dispatch_for(case: Case, chosen: tuple[str, ...]) -> dict[int, float]:
    """The PV machines' set-points (MW) with the chosen options applied (a shift to the slack only
    lowers the source: the slack takes the balance)."""
    p = dict(case.dispatch_mw)
    by = case.option_by_id
    for oid in chosen:
        o = by[oid]
        p[o.from_bus] -= o.shift_mw
        if o.to_bus != SLACK_BUS:
            p[o.to_bus] += o.shift_mw
    return p


def cost_usd(case: Case, chosen: tuple[str, ...]) -> float:
    by = case.option_by_id
    return float(sum(by[o].cost_usd for o in chosen))


# ---------------------------------------------------------------------------- simulation, with a cache

#: Verdicts and ANDES systems by operating point (the dispatch a decision gives, not its option ids,
#: so two tasks sharing an operating point share them), for the process.
_VERDICTS: dict[tuple[str, int, str, float], dyn.Verdict] = {}
_SIMS: dict[tuple[str, str], dyn.Simulation] = {}


def verdict_key(case: Case, op: str, fault: Fault, k: int) -> tuple[str, int, str, float]:
    """The process cache's key of a verdict: the operating point (``Runner.op_key``), the fault,
    the clearing time (grid step ``k`` of ``case``)."""
    return (op, fault.bus, fault.trip_line, round(k * case.resolution_s, 9))


class Runner:
    """Verdicts for (options, fault, clearing time) on ``case``, one ANDES system per operating point
    (the last few kept), each verdict cached for the process."""

    def __init__(self, case: Case, dynamics: str = "detailed") -> None:
        self.case, self.dynamics = case, dynamics
        self.runs = 0
        self.builds = 0
        self.parked = (tuple(sorted({f.bus for f in case.faults})), tuple(sorted({f.trip_line for f in case.faults})))

    def op_key(self, chosen: tuple[str, ...]) -> str:
        d = dispatch_for(self.case, chosen)
        return json.dumps([self.case.key(), sorted((b, round(p, 6)) for b, p in d.items()), self.dynamics])

    def _sim(self, chosen: tuple[str, ...]) -> dyn.Simulation:
        key = (self.op_key(chosen), json.dumps(self.parked))
        with _LOCK:
            sim = _SIMS.get(key)
            if sim is None:
                c = self.case
                sim = dyn.Simulation(dispatch_for(c, chosen), c.load_scale, self.parked[0], self.parked[1], c.horizon_s,
                                     c.step_s, c.limit_deg, dynamics=self.dynamics)
                self.builds += 1
                if len(_SIMS) >= 4:  # a system holds megabytes of ANDES state: keep the last few only
                    _SIMS.pop(next(iter(_SIMS)))
                _SIMS[key] = sim
            return sim

    def verdict(self, chosen: tuple[str, ...], fault: Fault, k: int) -> dyn.Verdict:
        chosen = tuple(sorted(chosen))
        key = verdict_key(self.case, self.op_key(chosen), fault, k)
        with _LOCK:
            got = _VERDICTS.get(key)
            if got is not None:
                return got
            if self.runs >= MAX_RUNS:
                raise SolverError(f"{STUDY_ID}: more than {MAX_RUNS} ANDES runs for one task")
            v = self._sim(chosen).run(fault.bus, fault.trip_line, k * self.case.resolution_s)
            self.runs += 1
            _VERDICTS[key] = v
            return v


def cct_of(runner: Runner, fault: Fault, chosen: tuple[str, ...] = ()) -> tuple[float, bool]:
    """(cct_s, stable at t_clear_s) by bisection on the grid: the first probe at t_clear_s, then the
    bracket's end on the unresolved side, then halving; cct_s = 0 when unstable at min_s and max_s
    when stable there."""
    c = runner.case
    lo_k, hi_k, tc_k = c.grid_k(c.cct_min_s), c.grid_k(c.cct_max_s), c.grid_k(c.t_clear_s)
    at_tc = runner.verdict(chosen, fault, tc_k).stable
    if at_tc:
        lo = tc_k
        if tc_k == hi_k or runner.verdict(chosen, fault, hi_k).stable:
            return hi_k * c.resolution_s, True
        hi = hi_k
    else:
        hi = tc_k
        if tc_k == lo_k or not runner.verdict(chosen, fault, lo_k).stable:
            return 0.0, False
        lo = lo_k
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if runner.verdict(chosen, fault, mid).stable:
            lo = mid
        else:
            hi = mid
    return round(lo * c.resolution_s, 9), at_tc


def subsets_in_cost_order(case: Case) -> list[tuple[str, ...]]:
    ids = [o.id for o in case.options]
    subs = [tuple(sorted(c)) for r in range(len(ids) + 1) for c in itertools.combinations(ids, r)]
    return sorted(subs, key=lambda t: (round(cost_usd(case, t), 6), len(t), t))


def _instability_score(v: dyn.Verdict, horizon_s: float, limit_deg: float) -> float:
    """How unstable a verdict looks, for ordering only: below 1 when stable (the worst separation
    over the limit), above 1 when unstable (the earlier the verdict, the higher)."""
    if not v.stable:
        return 1.0 + max(horizon_s - v.t_verdict_s, 0.0) / horizon_s
    return v.worst_separation_deg / limit_deg


def fault_order(runner: Runner, sub: tuple[str, ...], seen: list[tuple[str, ...]], recent: list[str]) -> tuple[str, ...]:
    """The order in which to simulate the faults for subset ``sub``: the fault that looks most
    unstable first, judged on the verdicts already known at t_clear_s for the nearest subsets seen
    (fewest options differing; scores averaged over ties), then the faults that refuted a subset
    last (``recent``, most recent first). Only the order changes — every fault is still
    simulated before a subset is called stable — so the answer does not depend on it; a good order
    makes a refuted subset cost one short unstable run instead of full stable runs first."""
    c = runner.case
    tc_k = c.grid_k(c.t_clear_s)
    s = set(sub)
    dist = sorted((len(s.symmetric_difference(t)), runner.op_key(t)) for t in seen)
    rank = {fid: i for i, fid in enumerate(recent)}
    scored = []
    for i, f in enumerate(c.faults):
        best_d, vals = None, []
        for d, key in dist:
            if best_d is not None and d > best_d:
                break
            v = _VERDICTS.get(verdict_key(c, key, f, tc_k))
            if v is not None:
                best_d = d
                vals.append(_instability_score(v, c.horizon_s, c.limit_deg))
        score = sum(vals) / len(vals) if vals else 1.0
        scored.append((-score, rank.get(f.id, len(rank)), i, f.id))
    return tuple(fid for *_, fid in sorted(scored))


def best_decision(runner: Runner, first: list[Fault] | None = None) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The cheapest subset under which every fault is stable at t_clear_s: enumeration in cost order
    (ties by size, then ids), each subset's faults in :func:`fault_order`. With worker processes,
    as many subsets as workers are in flight, the next in order submitted as soon as one is
    judged, and the first all-stable subset in order wins once every cheaper one is judged — the
    same subset as the serial search, since every cheaper one was refuted."""
    c = runner.case
    recent = [f.id for f in (first or [])]
    subs = subsets_in_cost_order(c)
    seen: list[tuple[str, ...]] = [()]
    results: dict[int, str | None] = {}
    tc_k = c.grid_k(c.t_clear_s)

    def known_refutation(sub: tuple[str, ...]) -> str | None:
        key = runner.op_key(sub)
        for f in c.faults:
            v = _VERDICTS.get(verdict_key(c, key, f, tc_k))
            if v is not None and not v.stable:
                return f.id
        return None

    def record(i: int, bad: str | None) -> None:
        results[i] = bad
        seen.append(subs[i])
        if bad is not None and bad != NO_OPERATING_POINT:
            if bad in recent:
                recent.remove(bad)
            recent.insert(0, bad)

    pool = _pool()
    inflight: dict[Any, int] = {}
    nxt = done = 0
    inputs_json = json.dumps(c.inputs, sort_keys=True)
    try:
        while done < len(subs):
            while nxt < len(subs) and (pool is None and nxt == done or pool is not None and len(inflight) < _workers()):
                sub = subs[nxt]
                bad = known_refutation(sub)
                if bad is not None:
                    record(nxt, bad)
                elif pool is None:
                    record(nxt, _first_unstable(runner, sub, fault_order(runner, sub, seen, recent)))
                else:
                    try:
                        fut = pool.submit(_job, inputs_json, runner.dynamics, "subset",
                                          (sub, fault_order(runner, sub, seen, recent)))
                    except Exception:  # noqa: BLE001 - a broken pool: judge here instead
                        _pool_broken()
                        pool = None
                        continue
                    inflight[fut] = nxt
                nxt += 1
            if inflight and done not in results:
                from concurrent.futures import FIRST_COMPLETED, wait

                finished, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
                for fut in finished:
                    i = inflight.pop(fut)
                    try:
                        out = fut.result()
                    except Exception:  # noqa: BLE001 - a broken pool: judge here instead
                        _pool_broken()
                        pool = None
                        record(i, _first_unstable(runner, subs[i], fault_order(runner, subs[i], seen, recent)))
                        continue
                    record(i, _merge(runner, [out])[0])
            while done in results:
                if results[done] is None:
                    return subs[done], {"subsets_checked": done + 1, "subsets_total": len(subs)}
                done += 1
            if pool is None:
                for fut, i in list(inflight.items()):  # the pool broke: judge its subsets here
                    inflight.pop(fut)
                    if i not in results:
                        record(i, _first_unstable(runner, subs[i], fault_order(runner, subs[i], seen, recent)))
    finally:
        for fut in inflight:  # subsets dearer than the optimum still queued: not needed
            fut.cancel()
    raise SolverError(f"{STUDY_ID}: no combination of the catalogue makes every listed fault stable")


#: A subset refuted because its operating point has no ANDES power flow or dynamic initialisation
#: (evaluation calls such a decision infeasible too).
NO_OPERATING_POINT = "(no operating point)"


def _first_unstable(runner: Runner, sub: tuple[str, ...], order: tuple[str, ...]) -> str | None:
    by_id = {f.id: f for f in runner.case.faults}
    tc_k = runner.case.grid_k(runner.case.t_clear_s)
    try:
        for fid in order:
            if not runner.verdict(sub, by_id[fid], tc_k).stable:
                return fid
    except dyn.PowerFlowFailed:
        return NO_OPERATING_POINT
    return None


# ---------------------------------------------------------------------------- worker processes


def _workers() -> int:
    """Worker processes for the reference (``PSAB_STUDY_WORKERS``; default 2, at most the CPU count):
    the faults' bisections and the catalogue's subsets are independent ANDES runs, each worker with
    its own ANDES systems."""
    import os

    try:
        n = int(os.environ.get("PSAB_STUDY_WORKERS", "2"))
    except ValueError:
        n = 1
    return max(1, min(n, os.cpu_count() or 1))


_POOL: Any = None
_POOL_FAILED = False


def _pool() -> Any:
    """A forkserver pool (never a bare fork of a threaded parent), started once per process; None
    when worker processes cannot be had here (a daemonic parent, no forkserver): then serial."""
    global _POOL, _POOL_FAILED
    if _workers() < 2:  # asked for serial runs (PSAB_STUDY_WORKERS=1), even after a pool was started
        return None
    if _POOL is not None or _POOL_FAILED:
        return _POOL
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    try:
        if mp.current_process().daemon or "forkserver" not in mp.get_all_start_methods():
            raise RuntimeError("no worker processes here")
        # psab's own fork server (psab.evaluators.batch): its children never re-run the caller's
        # __main__, so a plain script calling solve() is not re-run in every worker
        from psab.evaluators.batch import _worker_context

        _POOL = ProcessPoolExecutor(max_workers=_workers(), mp_context=_worker_context())
        import atexit

        atexit.register(_POOL.shutdown, wait=False, cancel_futures=True)
    except Exception:  # noqa: BLE001 - any reason to have no pool means serial runs, never an error
        _POOL_FAILED = True
        _POOL = None
    return _POOL


#: CPU seconds spent by this process's worker jobs (summed over the workers, as they report them),
#: for measurement only (benchmarks read it; no answer or evidence depends on it).
WORKER_CPU_S = [0.0]


def _job(inputs_json: str, dynamics: str, kind: str, arg: Any) -> tuple[Any, list[tuple[Any, dyn.Verdict]], int, float]:
    """One worker job: a fault's CCT (``kind`` "cct", arg the fault's index) or a subset's first
    unstable fault (``kind`` "subset", arg (subset, fault order)); returns the result, the
    verdicts it computed (for the parent's cache), the ANDES systems it built and its CPU seconds."""
    import time

    cpu0 = time.process_time()
    case = case_of_inputs(json.loads(inputs_json))
    runner = Runner(case, dynamics)
    before = set(_VERDICTS)
    if kind == "cct":
        out: Any = cct_of(runner, case.faults[arg])
    else:
        out = _first_unstable(runner, tuple(arg[0]), tuple(arg[1]))
    return out, [(k, v) for k, v in _VERDICTS.items() if k not in before], runner.builds, time.process_time() - cpu0


def _pool_broken() -> None:
    global _POOL_FAILED
    _POOL_FAILED = True


def _merge(runner: Runner, outs: list[tuple[Any, list[tuple[Any, dyn.Verdict]], int, float]]) -> list[Any]:
    """Worker jobs' results, their verdicts taken into this process's cache and their counts into
    ``runner``'s."""
    results = []
    with _LOCK:
        for out, verdicts, builds, cpu_s in outs:
            for k, v in verdicts:
                _VERDICTS[k] = v
            results.append(out)
            runner.runs += len(verdicts)
            runner.builds += builds
            WORKER_CPU_S[0] += cpu_s
    return results


def _map(runner: Runner, kind: str, args: list[Any]) -> list[Any]:
    """``_job`` over ``args``, in worker processes when there are any (results in order), else here."""
    pool = _pool() if len(args) > 1 else None
    if pool is not None:
        inputs_json = json.dumps(runner.case.inputs, sort_keys=True)
        try:
            futures = [pool.submit(_job, inputs_json, runner.dynamics, kind, a) for a in args]
            outs = [f.result() for f in futures]
        except Exception:  # noqa: BLE001 - a broken pool: judge here instead
            _pool_broken()
        else:
            return _merge(runner, outs)
    if kind == "cct":
        return [cct_of(runner, runner.case.faults[a]) for a in args]
    return [_first_unstable(runner, tuple(a[0]), tuple(a[1])) for a in args]


# ---------------------------------------------------------------------------- reference, baselines


def _analyses(runner: Runner) -> tuple[list[dict[str, Any]], list[str]]:
    ccts, unstable = [], []
    results = _map(runner, "cct", list(range(len(runner.case.faults))))
    for f, (cct, stable) in zip(runner.case.faults, results, strict=True):
        ccts.append({"fault_id": f.id, "cct_s": cct})
        if not stable:
            unstable.append(f.id)
    return ccts, unstable


def _answer(ccts: list[dict[str, Any]], unstable: list[str], chosen: tuple[str, ...]) -> dict[str, Any]:
    return {"cct": ccts, "unstable_faults": list(unstable), "decision": {"redispatch_option_ids": list(chosen)}}


def solve(task: Task, backend: str) -> Reference:
    case = case_of(task)
    runner = Runner(case)
    try:
        ccts, unstable = _analyses(runner)
        by_id = {f.id: f for f in case.faults}
        chosen, ev = best_decision(runner, [by_id[u] for u in unstable])
    except dyn.PowerFlowFailed as exc:
        raise SolverError(f"{STUDY_ID}: {exc}") from exc
    return Reference(answer=_answer(ccts, unstable, chosen), objective=cost_usd(case, chosen),
                     evidence={"proven": True, "bound": cost_usd(case, chosen), "gap": 0.0, "andes_runs": runner.runs,
                               "andes_builds": runner.builds, **ev},
                     method="CCT: bisection on the stated grid in ANDES (GENROU/IEEEX1/TGOV1, trapezoidal rule, fixed step); "
                            "decision: every catalogue subset in cost order, every listed fault simulated at t_clear_s, "
                            "the first all-stable subset (proof by enumeration)")


def do_nothing_answer(task: Task) -> dict[str, Any]:
    """No study done: every fault taken as clearing in time (CCT = t_clear_s), none unstable, no redispatch."""
    case = case_of(task)
    return _answer([{"fault_id": f.id, "cct_s": case.t_clear_s} for f in case.faults], [], ())


def naive_answer(task: Task) -> dict[str, Any]:
    """The local fix: the analyses right (as the reference computes them), and for each fault unstable
    at t_clear_s, the cheapest single option that makes that fault stable on its own — their union."""
    case = case_of(task)
    runner = Runner(case)
    ccts, unstable = _analyses(runner)
    tc_k = case.grid_k(case.t_clear_s)
    by_id = {f.id: f for f in case.faults}
    chosen: set[str] = set()
    for fid in unstable:
        for o in sorted(case.options, key=lambda o: (o.cost_usd, o.id)):
            if runner.verdict((o.id,), by_id[fid], tc_k).stable:
                chosen.add(o.id)
                break
    return _answer(ccts, unstable, tuple(sorted(chosen)))


def dc_only_answer(task: Task) -> dict[str, Any]:
    """The simplified-model study (this study's analogue of a DC-only analysis): every machine
    classical (GENCLS: H and x′_d of the .dyr, no exciter, no governor, constant E′), the CCTs,
    unstable set and cheapest decision found on that model."""
    case = case_of(task)
    runner = Runner(case, dynamics="classical")
    ccts, unstable = _analyses(runner)
    by_id = {f.id: f for f in case.faults}
    try:
        chosen, _ = best_decision(runner, [by_id[u] for u in unstable])
    except SolverError:
        chosen = tuple(o.id for o in case.options)
    return _answer(ccts, unstable, chosen)


# ---------------------------------------------------------------------------- evaluation


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    case = case_of(task)
    ref = ctx.reference().answer
    evidence: dict[str, Any] = {"deliverables": {}}
    scores: dict[str, float] = {}
    # --- cct: one item per fault, right within one resolution step
    got = {row["fault_id"]: row.get("cct_s") for row in answer["cct"]}
    mism: list[dict[str, Any]] = []
    right = 0
    tol = case.resolution_s * (1 + 1e-6)
    for i, row in enumerate(ref["cct"]):
        found = got.get(row["fault_id"])
        ok = isinstance(found, int | float) and not isinstance(found, bool) and math.isfinite(found) \
            and abs(found - row["cct_s"]) <= tol
        if ok:
            right += 1
        elif len(mism) < 20:
            mism.append({"field": f"/cct/{i}/cct_s", "expected": row["cct_s"], "found": found})
    scores["cct"] = right / len(ref["cct"])
    evidence["deliverables"]["cct"] = {"mismatches": mism, "n_items": len(ref["cct"]), "n_right": right}
    # --- unstable set: one item per listed fault (in the set or not)
    exp_u, got_u = set(ref["unstable_faults"]), set(answer["unstable_faults"])
    mism, right = [], 0
    for f in case.faults:
        if (f.id in exp_u) == (f.id in got_u):
            right += 1
        elif len(mism) < 20:
            mism.append({"field": "/unstable_faults", "expected": f"{f.id} {'in' if f.id in exp_u else 'not in'} the set",
                         "found": f"{f.id} {'in' if f.id in got_u else 'not in'} the set"})
    scores["unstable_faults"] = right / len(case.faults)
    evidence["deliverables"]["unstable_faults"] = {"mismatches": mism, "n_items": len(case.faults), "n_right": right}
    # --- decision: applied, power flow + every listed fault at t_clear_s in ANDES
    chosen = tuple(sorted(answer["decision"]["redispatch_option_ids"]))
    violations: list[Violation] = []
    if len(set(chosen)) != len(chosen) or not set(chosen) <= set(case.option_by_id):
        violations.append(Violation("/decision/redispatch_option_ids", "catalogue option ids, each at most once",
                                    sorted(case.option_by_id), list(chosen)))
        return Assessment(violations=violations, objective=None, deliverable_scores=scores, evidence=evidence)
    runner = Runner(case)
    tc_k = case.grid_k(case.t_clear_s)
    verdicts = {}
    try:
        for f in case.faults:
            v = runner.verdict(chosen, f, tc_k)
            verdicts[f.id] = {"stable": v.stable, "worst_separation_deg": round(v.worst_separation_deg, 3),
                              "t_verdict_s": round(v.t_verdict_s, 4), "newton_failed": v.newton_failed}
            if not v.stable:
                why = "ANDES's Newton iteration failed (counted as unstable)" if v.newton_failed else \
                    f"rotor-angle separation {v.worst_separation_deg:.1f}° > {case.limit_deg:g}° at t = {v.t_verdict_s:.3f} s"
                violations.append(Violation("/decision", f"fault {f.id} (bus {f.bus}, line {f.trip_line} opened) cleared at "
                                                         f"{case.t_clear_s:g} s is unstable: {why}",
                                            "stable", "unstable"))
    except dyn.PowerFlowFailed as exc:
        violations.append(Violation("/decision", "the redispatched operating point must have a power flow and an "
                                                 "initialisable dynamic state in ANDES", "converged", str(exc)))
    evidence["verdicts_at_t_clear"] = verdicts
    evidence["cost_usd"] = cost_usd(case, chosen)
    evidence["dispatch_mw"] = {str(b): round(p, 6) for b, p in sorted(dispatch_for(case, chosen).items())}
    return Assessment(violations=violations, objective=cost_usd(case, chosen), deliverable_scores=scores, evidence=evidence)


# ---------------------------------------------------------------------------- schema, inputs


def submission_schema(inputs: Mapping[str, Any]) -> dict[str, Any]:
    faults = [f["id"] for f in inputs["faults"]]
    opts = [o["id"] for o in inputs["catalogue"]["options"]]
    item = s.obj({
        "fault_id": s.enum(faults, "the listed fault's id", ru="id указанного КЗ"),
        "cct_s": s.number("critical clearing time, s (a multiple of cct.resolution_s in [0, cct.max_s])", minimum=0,
                          maximum=10, ru="критическое время отключения, с (кратно cct.resolution_s, в [0, cct.max_s])"),
    }, "one listed fault", ru="одно указанное КЗ")
    return s.submission({
        "cct": s.array(item, "one entry per listed fault, in the listed order", length=len(faults),
                       ru="по одной записи на каждое указанное КЗ, в указанном порядке"),
        "unstable_faults": s.array(s.enum(faults, "a listed fault's id", ru="id указанного КЗ"),
                                   "the listed faults unstable when cleared at t_clear_s (empty if none)",
                                   max_items=len(faults), unique=True,
                                   ru="указанные КЗ, неустойчивые при отключении за t_clear_s (пусто, если таких нет)"),
        "decision": s.obj({
            "redispatch_option_ids": s.array(s.enum(opts, "a catalogue option id", ru="id варианта каталога"),
                                             "the catalogue options applied (empty: no redispatch)", max_items=len(opts),
                                             unique=True, ru="применяемые варианты каталога (пусто — без перераспределения)"),
        }, "the redispatch", ru="перераспределение нагрузки"),
    }, "Dynamic security study of the IEEE 39-bus system", ru="Исследование динамической устойчивости схемы IEEE 39 узлов")


def validate_inputs(inputs: Mapping[str, Any]) -> list[str]:
    problems = study_model.contract_problems(SPEC, inputs)
    if problems:
        return problems
    try:
        case_of_inputs(inputs)
    except InvalidTaskError as exc:
        problems.append(str(exc).split("public_inputs", 1)[-1])
    return problems


def model_size(task: Task) -> dict[str, Any]:
    c = case_of(task)
    return {"buses": 39, "machines": f"{len(MACHINE_BUSES)} GENROU+IEEEX1+TGOV1", "faults": len(c.faults),
            "options": len(c.options), "subsets": 2 ** len(c.options)}


def model_file_contents() -> dict[str, Any]:
    return {f"model/{dyn.RAW_NAME}": dyn.raw_bytes, f"model/{dyn.DYR_NAME}": dyn.dyr_text}


def materialize(task: Task, directory: str | Path) -> None:
    """Write ``model/ieee39.raw`` (copied from the installed ANDES package) and ``model/ieee39.dyr``
    (psab's, from ANDES's spreadsheet data), each checked against the sha256 the task lists."""
    try:
        import andes  # noqa: F401
    except ImportError as exc:
        raise InvalidTaskError(f"task {task.id}: {STUDY_ID} needs the andes package for its model files "
                               "(pip install 'psab[andes]')") from exc
    study_model.write_files(task, directory, model_file_contents())


def _files() -> list[dict[str, str]]:
    return [{"path": p, "sha256": study_model.sha256(fn())} for p, fn in model_file_contents().items()]


# ---------------------------------------------------------------------------- words

CONVENTIONS_EN = """\
**Model.** `model/ieee39.raw` (PSS/E v33 power flow of the IEEE 39-bus New England system: 39 buses, 34 lines, 12 \
transformers, 19 loads) and `model/ieee39.dyr` (a GENROU machine, an IEEEX1 exciter and a TGOV1 governor at each of the \
ten machine buses 30–39, on the .raw's MBASE). ANDES reads both (`andes.load(raw, addfile=dyr)`). The four .raw \
generators at buses 2, 10, 20 and 25 (wind plants, WMOD = 2, no dynamic model) are out of service. Bus 39's machine is \
the slack: its output is the power flow's balance. Operating point: every load's P and Q × `scenario.load_scale`; the \
other nine machines' active power = `scenario.dispatch_mw` (MW, by bus) plus the decision's shifts; voltage set-points \
and all other data as in the .raw; ANDES's Newton–Raphson power flow with its default settings. In the time domain the \
loads are constant impedances at their power-flow voltages (ANDES's PQ default, p2z = q2z = 1).

**Faults and simulation.** Each listed fault is a bolted three-phase fault to ground at `bus` (ANDES `Fault`, xf = 1e-4 \
pu, rf = 0) at t = 0, cleared at t_clear by removing it and opening `trip_line` (the .raw branch between the two named \
buses, both ends at once; ANDES `Toggle` on that `Line`). Time-domain simulation in ANDES 2.0.0: the implicit \
trapezoidal rule (`TDS.config.method = 'trapezoid'`), fixed step `simulation.step_s` (`fixt = 1`; shrunk only where \
Newton fails, `shrinkt = 1`), Newton tolerance 1e-4 (ANDES's default), the fault and clearing instants hit exactly \
(ANDES switch times), the dynamic state initialised by ANDES from the power flow. At the first step after clearing, \
Newton starts from ANDES's restored pre-fault algebraic values (`Fault.config.restore = 1`) with the bus voltage angles \
set to the pre-fault angles + B⁻¹·(y_g·Δδ_g): B the post-fault network's DC susceptance matrix (1/x of every line and \
transformer in service, plus y_g = 1/x′_d of each machine on the system base at its bus), Δδ_g each machine's rotor-angle \
change since the fault — without such a guess ANDES's Newton iteration fails at the clearing step after faults longer \
than about 0.15 s on this case.

**Criterion** (as in transient-stability screening): a run is unstable when the largest rotor-angle separation \
between any two of the ten machines (GENROU δ, electrical degrees, the pre-fault separation included) exceeds \
`criterion.separation_limit_deg` at any integration step within `criterion.horizon_s` of the fault, or when ANDES's \
Newton iteration fails (the step shrinks to zero); stable otherwise.

**Critical clearing time** of a fault, on the grid t = k · `cct.resolution_s` in [`cct.min_s`, `cct.max_s`]: the \
stability boundary found by bisection — probe t_clear_s first; if stable there, probe max_s (stable: CCT = max_s), \
otherwise probe min_s (unstable: CCT = 0); then halve the bracket [stable point, unstable point] on the grid until its \
ends are adjacent: the CCT is its stable end (stable at CCT, unstable at CCT + resolution_s). Scored right within one \
resolution_s. **Unstable faults**: the listed faults whose run cleared at `t_clear_s` is unstable.

**Decision**: any subset of `catalogue.options`. An option moves `shift_mw` from the machine at `from_generator_bus` to \
the one at `to_generator_bus` (the source's set-point lowered, the destination's raised; a shift to the slack 39 only \
lowers the source — the slack takes the balance). Chosen options add up; every combination keeps each machine within \
its limits. Cost (USD) = Σ over the chosen options of shift_mw × cost_usd_per_mw. The decision is applied to the \
operating point (power flow re-solved, dynamic models re-initialised) and every listed fault re-simulated cleared at \
`t_clear_s`: it must leave none unstable."""

CONVENTIONS_RU = """\
**Модель.** `model/ieee39.raw` (расчётная схема PSS/E v33 системы IEEE 39 узлов New England: 39 узлов, 34 линии, 12 \
трансформаторов, 19 нагрузок) и `model/ieee39.dyr` (машина GENROU, возбудитель IEEEX1 и регулятор турбины TGOV1 в \
каждом из десяти узлов машин 30–39, на базе MBASE из .raw). ANDES читает оба файла (`andes.load(raw, addfile=dyr)`). \
Четыре генератора .raw в узлах 2, 10, 20 и 25 (ВЭС, WMOD = 2, без динамической модели) выведены из работы. Машина узла \
39 — балансирующая: её мощность — баланс расчёта режима. Режим: P и Q каждой нагрузки × `scenario.load_scale`; \
активная мощность остальных девяти машин = `scenario.dispatch_mw` (МВт, по узлам) плюс сдвиги решения; уставки \
напряжения и прочие данные — как в .raw; расчёт режима Ньютона–Рафсона ANDES с настройками по умолчанию. Во временной \
области нагрузки — постоянные сопротивления при напряжениях расчёта режима (по умолчанию PQ в ANDES, p2z = q2z = 1).

**КЗ и моделирование.** Каждое указанное КЗ — металлическое трёхфазное КЗ на землю в узле `bus` (ANDES `Fault`, xf = \
1e-4 о.е., rf = 0) в момент t = 0, отключаемое в момент t_clear снятием КЗ и отключением `trip_line` (ветвь .raw между \
двумя названными узлами, оба конца одновременно; ANDES `Toggle` этой `Line`). Расчёт переходного процесса в ANDES \
2.0.0: неявный метод трапеций (`TDS.config.method = 'trapezoid'`), постоянный шаг `simulation.step_s` (`fixt = 1`; \
уменьшается только при несходимости Ньютона, `shrinkt = 1`), допуск Ньютона 1e-4 (по умолчанию ANDES), моменты КЗ и \
отключения попадают точно (моменты переключений ANDES), начальное динамическое состояние — по расчёту режима ANDES. На \
первом шаге после отключения итерации Ньютона начинаются с восстановленных доаварийных алгебраических переменных ANDES \
(`Fault.config.restore = 1`), а углы напряжений узлов задаются как доаварийные углы + B⁻¹·(y_g·Δδ_g): B — матрица \
проводимостей послеаварийной сети в постоянном токе (1/x каждой линии и трансформатора в работе плюс y_g = 1/x′_d \
каждой машины в системной базе в её узле), Δδ_g — изменение угла ротора каждой машины с момента КЗ; без такого \
начального приближения итерации Ньютона ANDES на шаге отключения расходятся при КЗ длительнее примерно 0,15 с в этой схеме.

**Критерий** (как при скрининге динамической устойчивости): расчёт неустойчив, если наибольшая разность углов \
роторов любых двух из десяти машин (δ GENROU, электрические градусы, включая доаварийную разность) превышает \
`criterion.separation_limit_deg` на любом шаге интегрирования в пределах `criterion.horizon_s` после КЗ, либо если \
итерации Ньютона ANDES не сходятся (шаг уменьшается до нуля); иначе устойчив.

**Критическое время отключения** КЗ на сетке t = k · `cct.resolution_s` в [`cct.min_s`, `cct.max_s`]: граница \
устойчивости, найденная делением пополам — сначала проверяется t_clear_s; если там устойчиво, проверяется max_s \
(устойчиво: CCT = max_s), иначе min_s (неустойчиво: CCT = 0); затем интервал [устойчивая точка, неустойчивая точка] \
делится пополам по сетке, пока его концы не станут соседними: CCT — его устойчивый конец (устойчиво при CCT, \
неустойчиво при CCT + resolution_s). Засчитывается с точностью до одного resolution_s. **Неустойчивые КЗ**: указанные \
КЗ, расчёт которых при отключении за `t_clear_s` неустойчив.

**Решение**: любое подмножество `catalogue.options`. Вариант переносит `shift_mw` с машины узла `from_generator_bus` \
на машину узла `to_generator_bus` (уставка источника снижается, получателя повышается; перенос на балансирующую 39 \
только снижает источник — баланс берёт балансирующая). Выбранные варианты складываются; любое их сочетание оставляет \
каждую машину в её пределах. Стоимость (долл. США) = сумма по выбранным вариантам shift_mw × cost_usd_per_mw. Решение \
применяется к режиму (режим пересчитывается, динамические модели заново инициализируются), и каждое указанное КЗ \
заново моделируется с отключением за `t_clear_s`: ни одно не должно остаться неустойчивым."""

PRESENTATION = {
    "en": {
        "title": "Dynamic security study of the IEEE 39-bus system (PSS/E .raw + .dyr, ANDES)",
        "statement": (
            "You are the transmission operator's stability engineer. The IEEE 39-bus system in `model/` comes as PSS/E "
            "files with detailed machine, exciter and governor models. For each three-phase fault in `faults` (cleared by "
            "opening the stated line), deliver (1) its critical clearing time on the stated grid, (2) which faults are "
            "unstable when the protection clears them at `t_clear_s`, and (3) the cheapest set of redispatch options from "
            "`catalogue` under which every listed fault is stable at `t_clear_s`, judged by re-simulating every fault in "
            "ANDES.\n\n" + CONVENTIONS_EN),
        "answer_notes": (
            "cct: one entry per listed fault, in the listed order (cct_s in s). unstable_faults: fault ids. decision: "
            "redispatch_option_ids (catalogue ids; empty for none). Each CCT is right within one cct.resolution_s of "
            "psab's recomputation; the unstable set is scored per listed fault; the decision is applied and every listed "
            "fault re-simulated at t_clear_s: it must leave none unstable, and it scores 1 at the catalogue's least cost, "
            "less in proportion to the extra USD. Score = (1 × cct + 1 × unstable_faults + 2 × decision) / 4; 0 if the "
            "decision leaves a fault unstable."),
    },
    "ru": {
        "title": "Исследование динамической устойчивости схемы IEEE 39 узлов (PSS/E .raw + .dyr, ANDES)",
        "statement": (
            "Вы — инженер по устойчивости системного оператора. Схема IEEE 39 узлов в `model/` задана файлами PSS/E с "
            "подробными моделями машин, возбудителей и регуляторов турбин. Для каждого трёхфазного КЗ из `faults` "
            "(отключаемого отключением указанной линии) подготовьте (1) критическое время отключения на заданной сетке, "
            "(2) какие КЗ неустойчивы при отключении защитой за `t_clear_s` и (3) самый дешёвый набор вариантов "
            "перераспределения нагрузки из `catalogue`, при котором все указанные КЗ устойчивы при `t_clear_s`, по "
            "повторному моделированию каждого КЗ в ANDES.\n\n" + CONVENTIONS_RU),
        "answer_notes": (
            "cct: по записи на каждое указанное КЗ, в указанном порядке (cct_s в с). unstable_faults: id КЗ. decision: "
            "redispatch_option_ids (id вариантов каталога; пусто — ничего). Каждое CCT засчитывается с точностью до "
            "одного cct.resolution_s от пересчёта psab; множество неустойчивых КЗ оценивается по каждому указанному КЗ; "
            "решение применяется и каждое указанное КЗ заново моделируется при t_clear_s: ни одно не должно остаться "
            "неустойчивым, и решение получает 1 при наименьшей стоимости каталога, меньше — пропорционально избытку "
            "долларов. Оценка = (1 × cct + 1 × unstable_faults + 2 × decision) / 4; 0, если при решении какое-либо КЗ "
            "неустойчиво."),
        "hard_constraints": (
            "решение: каждое указанное КЗ, отключённое за t_clear_s, устойчиво по заданному критерию (в ANDES, при "
            "заданных шаге и методе)",
            "решение: только варианты каталога, каждый не более одного раза",
        ),
    },
}

HARD_CONSTRAINTS = (
    "decision: every listed fault cleared at t_clear_s is stable under the stated criterion (in ANDES, at the stated "
    "step and method)",
    "decision: catalogue options only, each at most once",
)

EXPERT = {
    "en": {"statement": (
        "Dynamic security assessment of the IEEE 39-bus New England system (Athay, Podmore and Virmani 1979) from its PSS/E "
        "files in `model/` (GENROU, IEEEX1, TGOV1). For the listed three-phase faults with their line trips, deliver the "
        "critical clearing times on the stated grid, the faults unstable at the stated clearing time, and the least-cost "
        "preventive redispatch from the catalogue that secures every listed fault, judged by time-domain simulation in "
        "ANDES at the stated step and method under the stated rotor-angle criterion.\n\n" + CONVENTIONS_EN)},
    "ru": {"statement": (
        "Оценка динамической безопасности схемы IEEE 39 узлов New England (Athay, Podmore, Virmani 1979) по её файлам "
        "PSS/E в `model/` (GENROU, IEEEX1, TGOV1). Для указанных трёхфазных КЗ с отключением линий определите "
        "критические времена отключения на заданной сетке, КЗ, неустойчивые при заданном времени отключения, и "
        "предупредительное перераспределение нагрузки наименьшей стоимости из каталога, обеспечивающее устойчивость при "
        "всех указанных КЗ, по расчёту переходных процессов в ANDES при заданных шаге и методе и заданном критерии по "
        "углам роторов.\n\n" + CONVENTIONS_RU)},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged in ANDES 2.0.0 alone (GENROU/IEEEX1/TGOV1 from the .dyr, implicit trapezoidal rule at the stated fixed "
              "step, the stated criterion): the CCTs and the unstable set against psab's recomputation by bisection; the "
              "decision re-simulated for every listed fault. No second engine: psab's classical multi-machine model cannot "
              "represent these machines, exciters and governors honestly.",
        "ru": "Проверяется только в ANDES 2.0.0 (GENROU/IEEEX1/TGOV1 из .dyr, неявный метод трапеций с заданным постоянным "
              "шагом, заданный критерий): CCT и множество неустойчивых КЗ — по пересчёту psab делением пополам; решение — "
              "повторным моделированием каждого указанного КЗ. Второго движка нет: классическая многомашинная модель psab "
              "не может честно представить эти машины, возбудители и регуляторы.",
    },
}

PROVENANCE = (
    {"title": "ANDES 2.0.0 (H. Cui, F. Li, K. Tomsovic, Hybrid symbolic-numeric framework for power system modeling and "
              "analysis, IEEE Trans. Power Systems 36(2), 2021), GPL-3.0; its cases/ieee39/ieee39.raw and ieee39_full.xlsx",
     "locator": "andes/cases/ieee39/ieee39.raw (PSS/E v33, 'NEW ENGLAND TEST SYSTEM … UPDATED BY JOSE CONTO'), copied "
                "byte for byte from the installed package; ieee39_full.xlsx sheets GENROU, IEEEX1, TGOV1N (the .dyr's "
                "parameters, written by psab on the .raw's MBASE; bus 30 converted from 1040 to 275 MVA)",
     "note": "The .raw is not vendored (GPL-3.0): materialize copies it from the andes package the toolbox pins, checked "
             "by sha256. The spreadsheet's PSS (IEEEST) is not used.",
     "confidence": "high"},
    {"title": "T. Athay, R. Podmore, S. Virmani, A practical method for the direct analysis of transient stability, "
              "IEEE Trans. PAS-98(2), 1979 (the New England 39-bus system); M. A. Pai, Energy Function Analysis for Power "
              "System Stability, Kluwer 1989, Appendix A (its data)",
     "locator": "network, loads and machine data of the ten-machine system",
     "note": "Through ANDES's files; the .raw's loads and dispatch are its own (updated) ones, the wind plants it adds "
             "are out of service here.", "confidence": "medium"},
    {"title": "Redispatch costs (USD per MW shifted): assumed round figures",
     "locator": "the study's catalogue", "note": "Stated in the task, perturbed per draw; the optimum is optimal for the "
                                                "stated figures.", "confidence": "low"},
)


# ---------------------------------------------------------------------------- the public case, held-out draws

#: Candidate faults (bus, tripped line) for draws: near-end faults on lines next to machines and at
#: the 345 kV hub 16, whose CCT at the public operating point lies in 0.22-0.31 s (screened in
#: ANDES at the public settings; a fault at bus 19 opening 16-19 islands machines 33 and 34, and the
#: faults at bus 2 and 26 clear in time up to the bracket's top: both left out).
FAULT_POOL: tuple[tuple[int, str], ...] = (
    (6, "5-6"), (6, "6-7"), (6, "6-11"), (10, "10-11"), (10, "10-13"), (22, "21-22"), (22, "22-23"), (23, "23-24"),
    (25, "25-26"), (29, "26-29"), (29, "28-29"), (16, "16-17"), (16, "16-21"), (16, "16-24"), (21, "16-21"))
#: The machine electrically next to each pool fault's bus (through its step-up transformer or one line).
NEAR_MACHINE = {6: 31, 10: 32, 22: 35, 21: 35, 23: 36, 25: 37, 29: 38, 16: 33}
#: Where a draw may move a near machine's MW: a neighbouring machine (cheap, but it loads that
#: machine's own faults) or the slack 39 (dearer).
SHIFT_TARGETS = {31: (32, 39), 32: (31, 39), 35: (36, 39), 36: (35, 39), 37: (38, 39), 38: (37, 39), 33: (34, 39)}
SIMULATION = {"engine": f"ANDES {ANDES_VERSION}", "integration_method": "trapezoid", "step_s": 0.02,
              "newton_tolerance": 1e-4, "fault_x_pu": dyn.FAULT_X_PU, "fault_r_pu": 0.0,
              "load_model": "constant impedance at the power-flow voltages (ANDES PQ p2z = q2z = 1)"}
CRITERION = {"separation_limit_deg": 180.0, "horizon_s": 1.5,
             "rule": "unstable when max_ij |delta_i - delta_j| over the ten machines exceeds separation_limit_deg at any "
                     "integration step within horizon_s of the fault, or when ANDES's Newton iteration fails"}
CCT_GRID = {"min_s": 0.1, "max_s": 0.4, "resolution_s": 0.01}


def _inputs(load_scale: float, dispatch: Mapping[int, float], faults: list[tuple[str, int, str]], t_clear_s: float,
            options: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "model": {"format": "psse", "source": f"ANDES {ANDES_VERSION} cases/ieee39/ieee39.raw (PSS/E v33) and psab's "
                                              "ieee39.dyr (GENROU, IEEEX1, TGOV1 from ANDES's ieee39_full.xlsx)",
                  "files": _files()},
        "deliverables": study_model.deliverables_inputs(SPEC) if "SPEC" in globals() else [d.to_dict() for d in DELIVERABLES],
        "scenario": {"load_scale": load_scale, "dispatch_mw": {str(b): float(p) for b, p in sorted(dispatch.items())},
                     "slack_generator_bus": str(SLACK_BUS),
                     "out_of_service_generator_buses": [str(b) for b in dyn.WIND_BUSES]},
        "simulation": dict(SIMULATION),
        "criterion": dict(CRITERION),
        "cct": dict(CCT_GRID),
        "t_clear_s": t_clear_s,
        "faults": [{"id": i, "bus": str(b), "trip_line": ln} for i, b, ln in faults],
        "catalogue": {"options": options},
    }


#: The public case: its faults (id, bus, tripped line), clearing time and catalogue
#: (id, from, to, MW, USD/MW).
PUBLIC_FAULTS: tuple[tuple[str, int, str], ...] = (
    ("F1", 10, "10-13"), ("F2", 6, "6-11"), ("F3", 22, "21-22"), ("F4", 23, "23-24"), ("F5", 25, "25-26"),
    ("F6", 29, "26-29"))
#: The protection's clearing time (s): a breaker-failure backup clearing time.
PUBLIC_T_CLEAR_S = 0.25
#: Shifts off the machines next to the faults unstable at 0.25 s (32, 35, 37): onto a neighbouring
#: machine (cheap, but 32 → 31 weakens the fault at bus 6 and 37 → 38 the fault at bus 29, screened
#: one option at a time) or onto the slack (dearer).
PUBLIC_OPTIONS: tuple[tuple[str, int, int, float, float], ...] = (
    ("R1", 32, 31, 100.0, 8.0), ("R2", 32, 39, 100.0, 15.0), ("R3", 37, 38, 100.0, 6.0), ("R4", 37, 39, 100.0, 16.0),
    ("R5", 35, 39, 100.0, 14.0))


def _option(oid: str, a: int, b: int, mw: float, usd: float) -> dict[str, Any]:
    return {"id": oid, "from_generator_bus": str(a), "to_generator_bus": str(b), "shift_mw": mw, "cost_usd_per_mw": usd}


def public_inputs() -> dict[str, Any]:
    return _inputs(1.0, RAW_PG_MW, list(PUBLIC_FAULTS), PUBLIC_T_CLEAR_S,
                   [_option(*o) for o in PUBLIC_OPTIONS])


#: Level-2 draws: machines stressed, and their faults (pool faults next to each), as level 1's two
#: per machine plus one next to each neighbour a cheap shift loads (where the pool has one).
LEVEL2_STRESSED = 4
#: Level 2's clearing time leaves faults next to this many different machines unstable.
LEVEL2_UNSTABLE_MACHINES = 3


def generate(public: Task | None, rng: np.random.Generator, level: int = 1) -> Generated:
    """A draw. Level 1: three stressed machines among those next to two or more pool faults, two
    faults from :data:`FAULT_POOL` next to each (6 faults), every load and the PV machines'
    dispatch scaled together by 0.97-1.03, the clearing time one grid step above the 2nd or 3rd
    smallest CCT of the drawn faults (so that two or three are unstable at it; from ANDES runs the
    reference then reuses), and the catalogue: a 120 MW shift from each stressed machine to the
    slack 39 (12-18 USD/MW: the safe, dear fix) and a 100 MW shift from two of them to a
    neighbouring machine (5-10 USD/MW: cheap, but it loads that machine), each combination kept
    within the machines' limits (5 options, 32 subsets).

    Level 2: four stressed machines (two pool faults next to each); the clearing time the first
    grid step at which the faults it leaves unstable lie next to three different machines
    (:func:`_covering_clearing_time`); for each neighbour a cheap shift loads, one pool fault next
    to that neighbour when the pool has one and it clears in time before any shift (8-12
    faults); a dear shift to the slack from every
    stressed machine and a cheap shift to the neighbour from every one (8 options, 256 subsets):
    each cheap shift weakens a listed fault, so the cheapest secure set is a mix the local fixes
    miss."""
    if level not in (1, 2):
        raise InvalidTaskError(f"{STUDY_ID}: no level {level} (levels 1 and 2)")
    scale = round(float(rng.uniform(0.97, 1.03)), 3)
    dispatch = {b: round(min(p * scale, P_MAX_MW[b]), 1) for b, p in RAW_PG_MW.items()}
    near: dict[int, list[tuple[int, str]]] = {}
    for b, ln in FAULT_POOL:
        near.setdefault(NEAR_MACHINE[b], []).append((b, ln))
    eligible = sorted(m for m, fl in near.items() if len(fl) >= 2)
    n_stressed = 3 if level == 1 else LEVEL2_STRESSED
    stressed = sorted(int(m) for m in rng.choice(eligible, size=n_stressed, replace=False))
    faults: list[tuple[str, int, str]] = []
    for m in stressed:
        for k in sorted(rng.choice(len(near[m]), size=2, replace=False).tolist()):
            b, ln = near[m][int(k)]
            faults.append((f"F{len(faults) + 1}", b, ln))
    if level == 1:  # (the draws' order of random numbers is level 1's since before level 2)
        t_clear = _stressing_clearing_time(scale, dispatch, faults, int(rng.integers(2, 4)))
        cheap = sorted(int(m) for m in rng.choice(stressed, size=2, replace=False))
        slack_mw = 120.0
    else:
        cheap = list(stressed)
        t_clear = _covering_clearing_time(scale, dispatch, faults, LEVEL2_UNSTABLE_MACHINES)
        # a neighbour's fault is listed when it clears in time before any shift (a cheap shift
        # onto that neighbour is what may break it; a fault no option relieves is not listed)
        listed = {(b, ln) for _, b, ln in faults}
        extra: list[tuple[str, int, str]] = []
        for m in cheap:
            spare = [fl for fl in near.get(SHIFT_TARGETS[m][0], []) if fl not in listed]
            if spare and len(faults) + len(extra) < MAX_FAULTS:
                b, ln = spare[int(rng.integers(len(spare)))]
                listed.add((b, ln))
                extra.append((f"F{len(faults) + len(extra) + 1}", b, ln))
        if extra:
            ccts = _draw_ccts(scale, dispatch, extra)
            faults += [(f"F{len(faults) + 1 + i}", b, ln) for i, ((_, b, ln), c) in
                       enumerate((f, c) for f, c in zip(extra, ccts, strict=True) if c >= t_clear - 1e-9)]
        # four shifts onto the slack together: at most 360 MW more there, about what its governor
        # allows (P_MAX_MW[39]) from the ~730 MW it carries at load scale 1.03; a combination
        # past it has no dynamic initialisation and is infeasible (the reference skips it)
        slack_mw = 90.0
    pairs = [(m, SLACK_BUS) for m in stressed] + [(m, SHIFT_TARGETS[m][0]) for m in cheap]
    options = []
    down: dict[int, float] = {}
    up: dict[int, float] = {}
    for a, b in sorted(pairs):
        mw = slack_mw if b == SLACK_BUS else 100.0
        room = dispatch[a] - down.get(a, 0.0)
        if b != SLACK_BUS:
            room = min(room, P_MAX_MW[b] - dispatch[b] - up.get(b, 0.0))
        mw = float(min(mw, math.floor(room)))
        if mw < 10.0:
            continue
        down[a] = down.get(a, 0.0) + mw
        up[b] = up.get(b, 0.0) + mw
        usd = round(float(rng.uniform(12.0, 18.0) if b == SLACK_BUS else rng.uniform(5.0, 10.0)), 2)
        options.append(_option(f"R{len(options) + 1}", a, b, mw, usd))
    return Generated(public_inputs=_inputs(scale, dispatch, faults, t_clear, options))


def _draw_ccts(scale: float, dispatch: Mapping[int, float], faults: list[tuple[str, int, str]]) -> list[float]:
    """The CCTs of ``faults`` at the draw's operating point (bisection probing 0.25 s first)."""
    probe = _inputs(scale, dispatch, faults, 0.25, [_option("R0", 32, SLACK_BUS, 10.0, 1.0)])
    runner = Runner(case_of_inputs(probe))
    return [c for c, _ in _map(runner, "cct", list(range(len(faults))))]


def _clamp_to_bracket(t: float) -> float:
    return round(min(max(t, CCT_GRID["min_s"]), CCT_GRID["max_s"]), 9)


def _stressing_clearing_time(scale: float, dispatch: Mapping[int, float], faults: list[tuple[str, int, str]],
                             n_unstable: int) -> float:
    """One grid step above the ``n_unstable``-th smallest CCT of ``faults`` at the draw's operating
    point (bisection probing 0.25 s first), within the bracket."""
    ccts = sorted(_draw_ccts(scale, dispatch, faults))
    return _clamp_to_bracket(ccts[min(n_unstable, len(ccts)) - 1] + CCT_GRID["resolution_s"])


def _covering_clearing_time(scale: float, dispatch: Mapping[int, float], faults: list[tuple[str, int, str]],
                            n_machines: int) -> float:
    """Level 2: one grid step above the smallest CCT at which the faults cleared too late lie next
    to ``n_machines`` different machines (:data:`NEAR_MACHINE`) — so no single shift off one machine
    can secure them all — or above the largest CCT when they never do, within the bracket."""
    ccts = _draw_ccts(scale, dispatch, faults)
    res = CCT_GRID["resolution_s"]
    for t in sorted(set(ccts)):
        if len({NEAR_MACHINE[b] for (_, b, _), c in zip(faults, ccts, strict=True) if c <= t + 1e-9}) >= n_machines:
            return _clamp_to_bracket(t + res)
    return _clamp_to_bracket(max(ccts) + res)


def accept(task: Task, reference: Reference) -> str | None:
    """Accept a draw only when doing nothing leaves a fault unstable, the naive local fix is not
    optimal (dearer, or itself leaving a fault unstable), some CCT lies inside the bracket and, for
    a catalogue larger than level 1's (level 2), the optimum combines two or more options (ANDES
    is the only backend: no second engine to agree with)."""
    case = case_of(task)
    if not reference.answer["unstable_faults"]:
        return "doing nothing leaves every listed fault stable"
    naive = tuple(sorted(naive_answer(task)["decision"]["redispatch_option_ids"]))
    ref = tuple(reference.answer["decision"]["redispatch_option_ids"])
    runner = Runner(case)
    tc_k = case.grid_k(case.t_clear_s)
    try:
        naive_ok = all(runner.verdict(naive, f, tc_k).stable for f in case.faults)
    except dyn.PowerFlowFailed:  # the naive union has no operating point: not a secure decision
        naive_ok = False
    if naive_ok and cost_usd(case, naive) <= cost_usd(case, ref) * (1 + 1e-9):
        return "the naive local fix is optimal"
    if all(row["cct_s"] in (0.0, case.cct_max_s) for row in reference.answer["cct"]):
        return "no listed fault has a CCT inside the bracket"
    if len(case.options) > N_OPTIONS and len(ref) < 2:
        return "one option secures every fault (level 2 asks for a combination)"
    return None


SPEC = register(
    FamilySpec(
        id=STUDY_ID,
        area="stability_grid_code",
        scoring_kind="study",
        confidence="medium",
        version="1",
        provenance=PROVENANCE,
        submission_schema=submission_schema,
        hard_constraints=HARD_CONSTRAINTS,
        metrics=(),
        tolerances={"relative": 1e-6, "absolute_floors": {"/cct/*/cct_s": 0.01, "default": 1e-6},
                    "objective": {"relative": 1e-6, "absolute": 1e-3}},
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        accept=accept,
        objective_sense="minimize",
        objective_unit="USD",
        objective_scale_floor=100.0,
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
