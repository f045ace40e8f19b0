"""transient_stability_prediction — stable or unstable, per fault scenario, classical multi-machine model (classify).

A small transmission system (the WSCC 3-machine, 9-bus system of Anderson & Fouad at level 1; the
same system with the machines on their own ratings and redrawn loading at level 2) and 8–12 fault
scenarios: a bolted three-phase fault at a bus at t = 0, cleared at t_clear_s by opening one branch.
The agent classifies each scenario as stable or unstable under the stated criterion: the largest
rotor-angle separation between any two machines exceeds separation_limit_deg within horizon_s.

Reference: AC power flow (Newton–Raphson, :mod:`psab.surrogates.ac_power_flow`), loads turned into
constant admittances at their power-flow voltages, E′ behind x′_d, Kron reduction to the internal
nodes for the fault-on network (faulted bus grounded) and the post-fault network (branch opened), RK4
(:func:`psab.surrogates.swing.simulate_multimachine`). Held-out scenarios are redrawn until the
verdict is the same at 0.95·t_clear and 1.05·t_clear (no clearing time within 5 % of its critical one).

``andes``: the same system built in ANDES (:class:`psab.backends.andes_tds.GridSimulator`: Bus, Line,
PQ loads that ANDES turns into constant impedances at their power-flow voltages for the time-domain
run, Slack/PV with GENCLS classical machines, a Fault of 1e-4 pu reactance and a line Toggle at
clearing), ANDES's own power flow and trapezoidal time-domain simulation with a fixed 10 ms step; the
verdict by the same criterion, the run stopping as soon as the separation limit is crossed. Over the
public case and 30 generated cases (316 scenarios) the verdicts equal the surrogate's and the stable
trajectories stay within ANGLE_TOL_DEG of it in the centre-of-inertia frame (tests/families/
test_transient_stability_prediction.py).

Sources: Anderson & Fouad, *Power System Control and Stability*, 2nd ed. (2003), §2.10, Example 2.6
(the 9-bus system, classical model); Kundur (1994) §13.3 (multimachine classical model).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError, SolverError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import ac_power_flow as acpf
from psab.surrogates import swing as sw
from psab.surrogates.ac_power_flow import PowerFlowDidNotConverge

FAMILY_ID = "transient_stability_prediction"

#: WSCC 9-bus (Anderson & Fouad, Fig. 2.18 and Table 2.1; 100 MVA, 60 Hz).
WSCC9 = {
    "base_mva": 100.0, "frequency_hz": 60,
    "buses": [{"id": f"B{i}", "type": t, "v_set_pu": v, "p_load_mw": pl, "q_load_mvar": ql}
              for i, t, v, pl, ql in ((1, "slack", 1.04, 0, 0), (2, "pv", 1.025, 0, 0), (3, "pv", 1.025, 0, 0),
                                      (4, "pq", 1.0, 0, 0), (5, "pq", 1.0, 125.0, 50.0), (6, "pq", 1.0, 90.0, 30.0),
                                      (7, "pq", 1.0, 0, 0), (8, "pq", 1.0, 100.0, 35.0), (9, "pq", 1.0, 0, 0))],
    "branches": [{"id": i, "from_bus": a, "to_bus": b, "r_pu": r, "x_pu": x, "b_pu": bb}
                 for i, a, b, r, x, bb in (("T1-4", "B1", "B4", 0.0, 0.0576, 0.0), ("T2-7", "B2", "B7", 0.0, 0.0625, 0.0),
                                           ("T3-9", "B3", "B9", 0.0, 0.0586, 0.0), ("L4-5", "B4", "B5", 0.010, 0.085, 0.176),
                                           ("L4-6", "B4", "B6", 0.017, 0.092, 0.158), ("L5-7", "B5", "B7", 0.032, 0.161, 0.306),
                                           ("L6-9", "B6", "B9", 0.039, 0.170, 0.358), ("L7-8", "B7", "B8", 0.0085, 0.072, 0.149),
                                           ("L8-9", "B8", "B9", 0.0119, 0.1008, 0.209))],
    "machines": [{"id": "G1", "bus": "B1", "p_mw": None, "xd_transient_pu": 0.0608, "h_s": 23.64},
                 {"id": "G2", "bus": "B2", "p_mw": 163.0, "xd_transient_pu": 0.1198, "h_s": 6.40},
                 {"id": "G3", "bus": "B3", "p_mw": 85.0, "xd_transient_pu": 0.1813, "h_s": 3.01}],
}
#: Machine ratings of the WSCC system (MVA), for level 2's data on own ratings.
RATINGS = {"G1": 247.5, "G2": 192.0, "G3": 128.0}
#: Fixed step of ANDES's trapezoidal rule for the ``andes`` backend (s).
ANDES_STEP_S = 0.01
LINES = ("L4-5", "L4-6", "L5-7", "L6-9", "L7-8", "L8-9")


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    verdict = s.enum(["stable", "unstable"], "the scenario's verdict under the stated criterion",
                     ru="заключение по сценарию по указанному критерию")
    return s.submission(
        {"verdicts": s.obj({sc["id"]: verdict for sc in inputs["scenarios"]}, "one verdict per scenario id",
                           ru="по одному заключению на каждый сценарий")},
        "transient stability verdict per fault scenario", ru="заключения об устойчивости по сценариям КЗ",
    )


_ID = {"type": "string", "minLength": 1}
_NUM = {"type": "number"}
_POS = {"type": "number", "exclusiveMinimum": 0}
_NONNEG = {"type": "number", "minimum": 0}


def _obj(props: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "required": [k for k in props if k not in optional], "properties": props}


#: Most buses, branches or machines: the cases are the WSCC 9-bus system and its kin; every
#: scenario integrates the reduced network, so 200 keeps a task's reference within seconds.
MAX_ELEMENTS = 200
INPUTS_SCHEMA: dict[str, Any] = ic.bounded(_obj({
    "base_mva": ic.BASE_MVA,
    "frequency_hz": {"enum": [50, 60]},
    "buses": {"type": "array", "minItems": 2, "items": _obj({
        "id": _ID, "type": {"enum": ["slack", "pv", "pq"]}, "p_load_mw": _NUM, "q_load_mvar": _NUM,
        "v_set_pu": {"type": "number", "exclusiveMinimum": 0.5, "maximum": 1.5}})},
    "branches": {"type": "array", "minItems": 1, "items": _obj({
        "id": _ID, "from_bus": _ID, "to_bus": _ID, "r_pu": _NONNEG, "x_pu": _POS, "b_pu": _NONNEG})},
    "machines": {"type": "array", "minItems": 2, "items": _obj({
        "id": _ID, "bus": _ID, "h_s": _POS, "xd_transient_pu": _POS, "rating_mva": _POS,
        "p_mw": {"anyOf": [_NUM, {"type": "null"}]}}, optional=("rating_mva", "p_mw"))},
    # bounded so that no task can make the integration run for ever (a zero or vanishing step,
    # an endless horizon): at most 10^5 RK4 steps per scenario
    "criterion": _obj({"separation_limit_deg": {"type": "number", "exclusiveMinimum": 0, "maximum": 360},
                       "horizon_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 30},
                       "step_s": {"type": "number", "minimum": 0.0003, "maximum": 0.05}}),
    "scenarios": {"type": "array", "minItems": 8, "maxItems": 12, "items": _obj({
        "id": _ID, "fault_bus": _ID, "trip_branch": _ID, "t_clear_s": _POS})},
}), MAX_ELEMENTS)


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """Unique ids of buses, branches, machines and scenarios (a repeated bus made the pre-fault
    power flow diverge; a repeated branch or machine was read as a parallel one)."""
    p = ic.Problems()
    ic.unique_id_problems(p, inputs, [("buses",), ("branches",), ("machines",), ("scenarios",)])
    return p


def _bad(field: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"{FAMILY_ID}: public_inputs/{field} {why}")


class System:
    """The case's pre-fault operating point and its classical-model quantities."""

    def __init__(self, inputs: dict[str, Any]) -> None:
        self.inputs = inputs
        base = float(inputs["base_mva"])
        buses = inputs["buses"]
        self.bus_ids = [b["id"] for b in buses]
        pos = {b: i for i, b in enumerate(self.bus_ids)}
        self.pos = pos
        types = {"slack": acpf.SLACK, "pv": acpf.PV, "pq": acpf.PQ}
        br = inputs["branches"]
        for i, b in enumerate(br):
            if b["from_bus"] not in pos or b["to_bus"] not in pos:
                raise _bad(f"branches/{i}", "names an unknown bus")
            if not b["x_pu"] > 0:
                raise _bad(f"branches/{i}/x_pu", "must be positive")
        machines = inputs["machines"]
        p_gen = np.zeros(len(buses))
        self.mach_bus = []
        self.xd = []
        self.h = []
        for i, m in enumerate(machines):
            if m["bus"] not in pos:
                raise _bad(f"machines/{i}/bus", "names an unknown bus")
            rating = float(m.get("rating_mva", base))
            if not m["h_s"] > 0:
                raise _bad(f"machines/{i}/h_s", "H must be positive")
            if not m["xd_transient_pu"] > 0:
                raise _bad(f"machines/{i}/xd_transient_pu", "must be positive")
            self.mach_bus.append(pos[m["bus"]])
            self.xd.append(float(m["xd_transient_pu"]) * base / rating)   # to the system base
            self.h.append(float(m["h_s"]) * rating / base)
            if m.get("p_mw") is not None:
                p_gen[pos[m["bus"]]] = float(m["p_mw"])
        net = acpf.make_network(
            base_mva=base, bus_type=[types[b["type"]] for b in buses],
            from_idx=[pos[b["from_bus"]] for b in br], to_idx=[pos[b["to_bus"]] for b in br],
            r_pu=[b["r_pu"] for b in br], x_pu=[b["x_pu"] for b in br], b_pu=[b["b_pu"] for b in br],
            p_load_mw=[b["p_load_mw"] for b in buses], q_load_mvar=[b["q_load_mvar"] for b in buses],
            p_gen_mw=p_gen, v_set_pu=[b["v_set_pu"] for b in buses])
        self.net = net
        try:
            sol = acpf.solve_ac(net)
        except PowerFlowDidNotConverge as exc:  # a case without an operating point is the caller's error
            raise _bad("buses", f"the pre-fault power flow does not converge ({exc})") from None
        if not sol.converged:
            raise _bad("buses", "the pre-fault power flow does not converge")
        v = sol.V
        s_gen = (sol.p_inj_mw + 1j * sol.q_inj_mvar + np.asarray([b["p_load_mw"] for b in buses])
                 + 1j * np.asarray([b["q_load_mvar"] for b in buses])) / base
        mb = np.array(self.mach_bus)
        i_gen = np.conj(s_gen[mb] / v[mb])
        e = v[mb] + 1j * np.array(self.xd) * i_gen
        self.e_abs = np.abs(e)
        self.delta0 = np.angle(e)
        self.p_m = np.real(s_gen[mb])
        self.m_s = 2.0 * np.array(self.h)
        y_load = (np.asarray([b["p_load_mw"] for b in buses]) - 1j * np.asarray([b["q_load_mvar"] for b in buses])) / base / np.abs(v) ** 2
        self.ybus = net.ybus() + np.diag(y_load)
        self.v = v
        self._reduced: dict[tuple[int | None, int | None], np.ndarray] = {}

    def reduced(self, fault_bus: int | None, open_branch: int | None) -> np.ndarray:
        """Y at the internal nodes: loads as admittances, E′ behind x′_d, the faulted bus grounded
        (a bolted fault: its node removed at zero voltage), the opened branch's π model removed."""
        key = (fault_bus, open_branch)
        if key not in self._reduced:
            self._reduced[key] = self._reduce(fault_bus, open_branch)
        return self._reduced[key]

    def _reduce(self, fault_bus: int | None, open_branch: int | None) -> np.ndarray:
        y = self.ybus.copy()
        if open_branch is not None:
            b = self.inputs["branches"][open_branch]
            f, t = self.pos[b["from_bus"]], self.pos[b["to_bus"]]
            ys = 1.0 / complex(b["r_pu"], b["x_pu"])
            ysh = 0.5j * b["b_pu"]
            y[f, f] -= ys + ysh
            y[t, t] -= ys + ysh
            y[f, t] += ys
            y[t, f] += ys
        nb, ng = y.shape[0], len(self.mach_bus)
        full = np.zeros((nb + ng, nb + ng), dtype=complex)
        full[:nb, :nb] = y
        for k, (bus, x) in enumerate(zip(self.mach_bus, self.xd, strict=True)):
            yg = 1.0 / complex(0.0, x)
            full[nb + k, nb + k] += yg
            full[bus, bus] += yg
            full[nb + k, bus] -= yg
            full[bus, nb + k] -= yg
        keep = list(range(nb + ng))
        if fault_bus is not None:
            keep.remove(fault_bus)
            full = full[np.ix_(keep, keep)]
        internal = np.arange(full.shape[0] - ng, full.shape[0])
        return sw.kron_reduce(full, internal)

    def simulate(self, scenario: dict[str, Any], t_clear: float | None = None) -> tuple[bool, float]:
        crit = self.inputs["criterion"]
        fb = self.pos[scenario["fault_bus"]]
        ob = [b["id"] for b in self.inputs["branches"]].index(scenario["trip_branch"])
        stable, worst, _, _ = sw.simulate_multimachine(
            self.e_abs, self.delta0, self.p_m, self.m_s, float(self.inputs["frequency_hz"]),
            self.reduced(fb, None), self.reduced(None, ob), float(scenario["t_clear_s"] if t_clear is None else t_clear),
            float(crit["horizon_s"]), float(crit["step_s"]), math.radians(float(crit["separation_limit_deg"])))
        return stable, worst


    def verdicts(self, scenario: dict[str, Any], t_clear: np.ndarray) -> np.ndarray:
        """Stable (True) or not for several clearing times of one scenario (batched RK4)."""
        crit = self.inputs["criterion"]
        fb = self.pos[scenario["fault_bus"]]
        ob = [b["id"] for b in self.inputs["branches"]].index(scenario["trip_branch"])
        return sw.stable_batch(self.e_abs, self.delta0, self.p_m, self.m_s, float(self.inputs["frequency_hz"]),
                               self.reduced(fb, None), self.reduced(None, ob), t_clear, float(crit["horizon_s"]),
                               float(crit["step_s"]), math.radians(float(crit["separation_limit_deg"])))


def system(inputs: dict[str, Any]) -> System:
    ids = [sc["id"] for sc in inputs["scenarios"]]
    if len(set(ids)) != len(ids):
        raise _bad("scenarios", "ids must be unique")
    bus_ids = {b["id"] for b in inputs["buses"]}
    br_ids = {b["id"] for b in inputs["branches"]}
    for i, sc in enumerate(inputs["scenarios"]):
        if sc["fault_bus"] not in bus_ids:
            raise _bad(f"scenarios/{i}/fault_bus", "names an unknown bus")
        if sc["trip_branch"] not in br_ids:
            raise _bad(f"scenarios/{i}/trip_branch", "names an unknown branch")
        if not 0 < sc["t_clear_s"] < inputs["criterion"]["horizon_s"]:
            raise _bad(f"scenarios/{i}/t_clear_s", "must lie between 0 and the horizon")
    return System(inputs)


def andes_grid(inputs: dict[str, Any]) -> Any:
    """The case as an ANDES network (:class:`psab.backends.andes_tds.Grid`): the same buses,
    π-model branches, PQ loads (constant impedances at their power-flow voltages in the time-domain
    run) and classical machines (GENCLS, x′_d and H on rating_mva or base_mva, no damping).

    ANDES gives a slack or PV bus its power-flow role through the static generator a GENCLS
    replaces, so the backend poses a case only when every slack and PV bus holds exactly one
    machine and no machine sits at a PQ bus (the surrogate's power flow would treat such a bus
    differently); otherwise the caller's InvalidTaskError names the field."""
    from psab.backends import andes_tds as at

    base = float(inputs["base_mva"])
    kind = {b["id"]: b["type"] for b in inputs["buses"]}
    held: dict[str, int] = {}
    for i, m in enumerate(inputs["machines"]):
        if kind[m["bus"]] == "pq":
            raise _bad(f"machines/{i}/bus", "is a PQ bus: the andes backend needs a slack or PV bus for every machine")
        if m["bus"] in held:
            raise _bad(f"machines/{i}/bus", "holds a second machine: the andes backend needs one machine per bus")
        held[m["bus"]] = i
    for i, b in enumerate(inputs["buses"]):
        if b["type"] != "pq" and b["id"] not in held:
            raise _bad(f"buses/{i}/type", f"is {b['type']} without a machine: the andes backend needs one there")
    machines = tuple(at.GridMachine(id=m["id"], bus=m["bus"], sn_mva=float(m.get("rating_mva", base)),
                                    xd1_pu=float(m["xd_transient_pu"]), h_s=float(m["h_s"]),
                                    p_pu=None if kind[m["bus"]] == "slack" else float(m.get("p_mw") or 0.0) / base)
                     for m in inputs["machines"])
    return at.Grid(
        base_mva=base, frequency_hz=float(inputs["frequency_hz"]),
        buses=tuple((b["id"], b["type"], float(b["v_set_pu"])) for b in inputs["buses"]),
        branches=tuple((b["id"], b["from_bus"], b["to_bus"], float(b["r_pu"]), float(b["x_pu"]), float(b["b_pu"]))
                       for b in inputs["branches"]),
        loads=tuple((b["id"], float(b["p_load_mw"]) / base, float(b["q_load_mvar"]) / base)
                    for b in inputs["buses"] if b["p_load_mw"] or b["q_load_mvar"]),
        machines=machines)


def andes_simulator(inputs: dict[str, Any]) -> Any:
    """One ANDES system for the case, reused for all its scenarios (after the surrogate's checks,
    so that both backends refuse the same tasks with the same errors)."""
    from psab.backends import andes_tds as at

    system(inputs)
    grid = andes_grid(inputs)
    try:
        return at.GridSimulator(grid, float(inputs["criterion"]["horizon_s"]), ANDES_STEP_S)
    except (ValueError, KeyError, IndexError) as exc:
        raise SolverError(f"{FAMILY_ID}: ANDES could not set the case up: {exc}") from None


def andes_run(sim: Any, inputs: dict[str, Any], scenario: dict[str, Any], t_clear: float | None = None) -> Any:
    """One scenario in ANDES (:meth:`psab.backends.andes_tds.GridSimulator.run`)."""
    try:
        return sim.run(scenario["fault_bus"], scenario["trip_branch"],
                       float(scenario["t_clear_s"] if t_clear is None else t_clear),
                       math.radians(float(inputs["criterion"]["separation_limit_deg"])))
    except (ValueError, ArithmeticError) as exc:
        raise SolverError(f"{FAMILY_ID}: ANDES time-domain run of scenario {scenario['id']} failed: {exc}") from None


def solve(task: Task, backend: str) -> Reference:
    if backend == "andes":
        inputs = task.public_inputs
        sim = andes_simulator(inputs)
        verdicts, worst = {}, {}
        for sc in inputs["scenarios"]:
            run = andes_run(sim, inputs, sc)
            verdicts[sc["id"]] = "stable" if run.stable else "unstable"
            worst[sc["id"]] = round(math.degrees(run.worst_separation_rad), 3)
        return Reference(answer={"verdicts": verdicts}, evidence={"largest_separation_deg": worst},
                         method="ANDES TDS (GENCLS, constant-impedance loads, Fault and line Toggle), trapezoidal rule")
    sys_ = system(task.public_inputs)
    verdicts, worst = {}, {}
    for sc in task.public_inputs["scenarios"]:
        stable, w = sys_.simulate(sc)
        verdicts[sc["id"]] = "stable" if stable else "unstable"
        worst[sc["id"]] = round(math.degrees(w), 3)
    return Reference(answer={"verdicts": verdicts}, evidence={"largest_separation_deg": worst},
                     method="classical multimachine model, Kron-reduced networks, RK4")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer["verdicts"]
    misses = [sid for sid, v in ref.items() if answer["verdicts"][sid] != v]
    return Assessment(correct=len(ref) - len(misses), total=len(ref),
                      evidence={"misses": [{"scenario": sid, "expected": ref[sid], "got": answer["verdicts"][sid]} for sid in misses]})


# ---------------------------------------------------------------------------- draws


def _scenarios(rng: np.random.Generator, sys_: System, count: int) -> list[dict[str, Any]] | None:
    out = []
    tries = 0
    while len(out) < count and tries < 8 * count:
        tries += 1
        line = str(rng.choice(LINES))
        b = next(x for x in sys_.inputs["branches"] if x["id"] == line)
        bus = b["from_bus"] if rng.uniform() < 0.5 else b["to_bus"]
        t = round(float(rng.uniform(0.05, 0.35)), 3)
        sc = {"id": f"S{len(out) + 1}", "fault_bus": bus, "t_clear_s": t, "trip_branch": line}
        # no clearing time within 5 % of the scenario's critical one: the verdict holds at ±5 %
        v = sys_.verdicts(sc, np.array([0.95 * t, t, 1.05 * t]))
        if not (v[0] == v[1] == v[2]):
            continue
        out.append(sc)
    return out if len(out) == count else None


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the loading (loads ±20 %, generator schedules ±20 %) and 8–12 scenarios (fault at either
    end of a line, opened line, clearing time 50–350 ms). Level 2: machines on their own ratings
    (x′_d and H per unit of rating_mva), loads scaled up to 1.3×."""
    for _ in range(20):
        inputs = {k: v for k, v in WSCC9.items()}
        scale = rng.uniform(0.8, 1.2) if level == 1 else rng.uniform(1.0, 1.3)
        inputs["buses"] = [{**b, "p_load_mw": round(b["p_load_mw"] * scale * rng.uniform(0.9, 1.1), 1),
                            "q_load_mvar": round(b["q_load_mvar"] * scale * rng.uniform(0.9, 1.1), 1)} for b in WSCC9["buses"]]
        machines = []
        for m in WSCC9["machines"]:
            mm = dict(m)
            if m["p_mw"] is not None:
                mm["p_mw"] = round(m["p_mw"] * scale * rng.uniform(0.85, 1.15), 1)
            if level >= 2:
                r = RATINGS[m["id"]]
                mm["rating_mva"] = r
                mm["xd_transient_pu"] = round(m["xd_transient_pu"] * r / 100.0, 4)
                mm["h_s"] = round(m["h_s"] * 100.0 / r, 3)
            machines.append(mm)
        inputs["machines"] = machines
        inputs["criterion"] = {"separation_limit_deg": 180.0, "horizon_s": 2.0, "step_s": 0.01}
        inputs["scenarios"] = []
        try:
            sys_ = System(inputs)
        except (InvalidTaskError, ValueError, ArithmeticError):
            continue
        scs = _scenarios(rng, sys_, int(rng.integers(8, 13)))
        if scs is None:
            continue
        inputs["scenarios"] = scs
        return Generated(public_inputs=inputs)
    raise InvalidTaskError(f"{FAMILY_ID}: no posable draw in 20 tries")


def accept(task: Task, reference: Reference) -> str | None:
    v = list(reference.answer["verdicts"].values())
    if v.count("stable") < 2 or v.count("unstable") < 2:
        return "fewer than two scenarios of each verdict"
    return None


def naive_answer(task: Task) -> dict[str, Any]:
    """A rule of thumb: a fault cleared within 100 ms (six cycles) is stable, later ones unstable."""
    return {"verdicts": {sc["id"]: "stable" if sc["t_clear_s"] <= 0.1 else "unstable" for sc in task.public_inputs["scenarios"]}}


# ---------------------------------------------------------------------------- words

_CONV_EN = (
    "Conventions: per unit on base_mva; machines with rating_mva give x′_d and H on that rating (refer them to base_mva: "
    "x·S_b/S_r, H·S_r/S_b). Pre-fault state: AC power flow (slack and PV buses at v_set_pu, machine p_mw at PV buses, "
    "constant-power loads); then loads become constant admittances y = (P − jQ)/(S_b·|V|²) at their power-flow voltages, "
    "each machine is a constant E′ = V + j·x′_d·I behind x′_d (I from its power-flow output), P_m = its power-flow P, "
    "no damping. A bolted three-phase fault at fault_bus at t = 0 (the bus held at zero voltage), cleared at t_clear_s by "
    "opening trip_branch (its whole π model). Swing equations 2H·dΔω/dt = P_m − P_e, dδ/dt = 2πf·Δω on the internal "
    "nodes (Kron-reduced networks), integrated with classical RK4 at criterion.step_s (the last fault-on step shortened "
    "to end at t_clear_s). Unstable when max_i δ_i − min_i δ_i exceeds criterion.separation_limit_deg at any step up to "
    "criterion.horizon_s, else stable."
)
_CONV_RU = (
    "Условия: о.е. на базисе base_mva; у машин с rating_mva x′_d и H заданы на их номинальной мощности (приведите к base_mva: "
    "x·S_б/S_ном, H·S_ном/S_б). Доаварийный режим: расчёт установившегося режима (балансирующий и PV-узлы при v_set_pu, "
    "мощность машин p_mw в PV-узлах, нагрузки постоянной мощности); затем нагрузки заменяются постоянными проводимостями "
    "y = (P − jQ)/(S_б·|V|²) при напряжениях режима, каждая машина — постоянная E′ = V + j·x′_d·I за x′_d (I — по её "
    "мощности в режиме), P_m — её активная мощность в режиме, демпфирование не учитывается. Металлическое трёхфазное КЗ в "
    "узле fault_bus при t = 0 (напряжение узла равно нулю), отключаемое в t_clear_s отключением trip_branch (всей её "
    "П-схемы). Уравнения движения 2H·dΔω/dt = P_m − P_э, dδ/dt = 2πf·Δω для внутренних узлов (схемы, сведённые "
    "исключением Крона), интегрирование классическим методом РК4 с шагом criterion.step_s (последний шаг режима КЗ "
    "укорачивается до t_clear_s). Неустойчиво, если max_i δ_i − min_i δ_i превышает criterion.separation_limit_deg на "
    "любом шаге до criterion.horizon_s, иначе устойчиво."
)

PRESENTATION = {
    "en": {"title": "Transient stability of fault scenarios, classical multimachine model",
           "statement": ("Classify every fault scenario of the system in public_inputs as stable or unstable. " + _CONV_EN),
           "answer_notes": "verdicts: for every scenario id, 'stable' or 'unstable'. Score: share of scenarios classified right."},
    "ru": {"title": "Динамическая устойчивость при сценариях КЗ, классическая модель многомашинной системы",
           "statement": ("Определите для каждого сценария КЗ системы из public_inputs, устойчив он или неустойчив. " + _CONV_RU),
           "answer_notes": "verdicts — для каждого сценария 'stable' или 'unstable'. Оценка — доля верно классифицированных сценариев.",
           "hard_constraints": ("по одному заключению ('stable' или 'unstable') на каждый сценарий",)},
}

EXPERT = {
    "en": {"statement": (
        "Classify every fault scenario of the system in public_inputs as transiently stable or unstable with the classical "
        "multimachine model (Anderson & Fouad, Power System Control and Stability, 2nd ed., §2.10; Kundur, Power System "
        "Stability and Control, §13.3). The case's choices: per unit on base_mva, a machine's x′_d and H on its rating_mva "
        "where it gives one; the pre-fault state from the AC power flow of the case (slack and PV buses at v_set_pu, "
        "constant-power loads), the loads then constant admittances at their power-flow voltages, each machine a constant "
        "voltage behind x′_d with constant mechanical power and no damping; a bolted three-phase fault at fault_bus at "
        "t = 0, cleared at t_clear_s by opening the whole of trip_branch; the swing equations integrated with classical RK4 "
        "at criterion.step_s, a fault-on step ending at the clearing instant; unstable when the spread of the rotor angles "
        "exceeds criterion.separation_limit_deg at any step up to criterion.horizon_s.")},
    "ru": {"statement": (
        "Определите для каждого сценария КЗ системы из public_inputs, сохраняется ли динамическая устойчивость, по "
        "классической модели многомашинной системы (Anderson & Fouad, Power System Control and Stability, 2-е изд., "
        "§2.10; Kundur, Power System Stability and Control, §13.3). Принято в задаче: о.е. на базисе base_mva, x′_d и H "
        "машины — на её rating_mva, если оно задано; доаварийный режим — по расчёту установившегося режима задачи "
        "(балансирующий и PV-узлы при v_set_pu, нагрузки постоянной мощности), затем нагрузки — постоянные проводимости "
        "при напряжениях режима, каждая машина — постоянная ЭДС за x′_d при постоянной механической мощности, без "
        "демпфирования; металлическое трёхфазное КЗ в узле fault_bus при t = 0, отключаемое в t_clear_s отключением всей "
        "ветви trip_branch; уравнения движения роторов интегрируются классическим методом Рунге–Кутты 4-го порядка с "
        "шагом criterion.step_s, шаг режима КЗ заканчивается в момент отключения; неустойчиво, если разброс углов "
        "роторов превышает criterion.separation_limit_deg на каком-либо шаге до criterion.horizon_s.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged against psab's classical-model simulation under the statement's conventions (Newton power flow, "
               "Kron-reduced networks, RK4); the score is the share of scenarios whose verdict matches. No scenario's "
               "clearing time lies within 5 % of its critical clearing time."),
        "ru": ("Проверяется расчётом psab по классической модели при условиях задачи (режим методом Ньютона, схемы, "
               "сведённые исключением Крона, РК4); оценка — доля совпавших заключений. Ни одно время отключения не лежит "
               "в пределах 5 % от предельного."),
    },
    "andes": {
        "en": ("Judged against an ANDES time-domain simulation of the same system: ANDES's own power flow, loads as "
               "constant impedances at their power-flow voltages, GENCLS classical machines (no damping), a Fault of "
               "1e-4 pu reactance at fault_bus and the opening of trip_branch at t_clear_s; trapezoidal rule with a fixed "
               "10 ms step, the same separation criterion and horizon. The score is the share of scenarios whose verdict "
               "matches; on the public case and 30 generated cases ANDES's verdicts equal those of the statement's method. "
               "No scenario's clearing time lies within 5 % of its critical clearing time."),
        "ru": ("Проверяется расчётом переходного процесса той же системы в ANDES: собственный расчёт режима ANDES, "
               "нагрузки — постоянные проводимости при напряжениях режима, классические модели машин GENCLS (без "
               "демпфирования), КЗ Fault с сопротивлением 1e-4 о.е. в узле fault_bus и отключение trip_branch в t_clear_s; "
               "метод трапеций с постоянным шагом 10 мс, тот же критерий по расхождению углов и тот же интервал. Оценка — доля "
               "совпавших заключений; на открытой задаче и 30 сгенерированных заключения ANDES совпадают с полученными методом "
               "задачи. Ни одно время отключения не лежит в пределах 5 % от предельного."),
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="stability_grid_code",
        scoring_kind="classify",
        confidence="medium",
        version="1",
        provenance=(
            {"title": "P. M. Anderson, A. A. Fouad, Power System Control and Stability, 2nd ed., IEEE Press/Wiley, 2003",
             "locator": "§2.10, Example 2.6 and Fig. 2.18, Table 2.1 (WSCC 3-machine, 9-bus system data; classical model)",
             "note": "The public case's system; scenarios and clearing times are the case's own.",
             "confidence": "high"},
            {"title": "P. Kundur, Power System Stability and Control, McGraw-Hill, 1994",
             "locator": "§13.3.1 (multimachine classical model, network reduction eq. 13.58, swing equations)",
             "note": "The classical multimachine formulation with constant-admittance loads.",
             "confidence": "high"},
            {"title": "Transient-stability prediction as per-scenario classification (e.g. Chen et al.)",
             "locator": "stable/unstable labels from a rotor-angle separation criterion within a horizon",
             "note": "The labelling convention; medium confidence as an adaptation.",
             "confidence": "medium"},
        ),
        submission_schema=submission_schema,
        hard_constraints=("one verdict ('stable' or 'unstable') for every scenario",),
        metrics=(),
        tolerances={},
        presentation=PRESENTATION,
        backends=("surrogate", "andes"),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        accept=accept,
        inputs_schema=INPUTS_SCHEMA,
        validate_inputs=input_problems,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
        min_distinct_fraction=1.0,
    )
)
