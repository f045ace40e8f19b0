"""fdi_state_estimation — WLS state estimation with largest-normalized-residual bad-data removal (exact).

A transmission network (6 to 14 buses), a redundant SCADA measurement set (bus voltage
magnitudes, bus active/reactive injections, branch active/reactive flows at either end) with
standard deviations, and gross errors among them — false data injected into some meters, some
of them interacting (a flow and an injection at its end). The agent returns the measurements
the iterated largest-normalized-residual test removes at the stated threshold (Abur & Expósito
§5.7) and the estimated state (|V|, θ) after their removal. Reference: Gauss-Newton WLS on the full
AC measurement model (:mod:`psab.surrogates.wls`), or pandapower's own estimator
(``pandapower.estimation.remove_bad_data``) on the same measurements placed on a pandapower net.

Levels: 1 the 6-bus system of Wood & Wollenberg (lines only, one voltage level), one or two
gross errors; 2 the IEEE 14-bus system (three voltage levels, off-nominal transformers, a
capacitor bank, a zero-injection bus), two or three gross errors of which two interact, more
measurements at the "to" end.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import ac_power_flow as acpf
from psab.surrogates import wls
from psab.surrogates.matpower_cases import transmission_case

FAMILY_ID = "fdi_state_estimation"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 61; a WLS estimate per bad-data pass.
MAX_INPUT_ITEMS = 1000
QUANTITIES = {"v_pu": wls.K_V, "p_injection_mw": wls.P_INJ, "q_injection_mvar": wls.Q_INJ,
              "p_flow_mw": wls.P_FLOW, "q_flow_mvar": wls.Q_FLOW}

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    ids = [m["id"] for m in inputs["measurements"]]
    buses = [b["id"] for b in inputs["buses"]]
    order = ", ".join(buses)
    return s.submission(
        {
            "bad_measurements": s.array(
                s.enum(ids, "a measurement id", ru="идентификатор измерения"),
                "the measurements removed by the iterated largest-normalized-residual test, in ascending id order "
                "(character order)", min_items=0, max_items=len(ids), unique=True,
                ru="измерения, исключённые итерационным тестом наибольшей нормированной невязки, в порядке "
                   "возрастания id (посимвольно)"),
            "vm_pu": s.array(s.number("estimated voltage magnitude (pu)", exclusive_minimum=0,
                                      ru="оценка модуля напряжения (о.е.)"),
                             f"estimated |V| after the removal, one per bus in the order {order}", length=len(buses),
                             ru=f"оценка |V| после исключения, по одной на узел в порядке {order}"),
            "va_deg": s.array(s.number("estimated voltage angle (degrees, reference bus 0)",
                                       ru="оценка угла напряжения (градусы, базисный узел 0)"),
                              f"estimated θ after the removal, one per bus in the order {order}", length=len(buses),
                              ru=f"оценка θ после исключения, по одной на узел в порядке {order}"),
        },
        "bad data identified and the state estimated after their removal",
        ru="выявленные плохие данные и оценка состояния после их исключения",
    )


INPUTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["base_mva", "buses", "reference_bus", "branches", "measurements", "rn_threshold"],
    "properties": {
        "base_mva": ic.BASE_MVA,
        "buses": {"type": "array", "minItems": 2, "items": {"type": "object", "required": ["id", "vn_kv"],
                                                            "properties": {"id": s.ID, "vn_kv": ic.KV}}},
        "reference_bus": s.ID,
        "branches": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["id", "from_bus", "to_bus", "r_pu", "x_pu", "b_pu"],
            "properties": {"id": s.ID, "from_bus": s.ID, "to_bus": s.ID, "r_pu": s.NONNEGATIVE, "x_pu": s.POSITIVE,
                           "b_pu": s.NONNEGATIVE, "tap_ratio": {"type": "number", "minimum": 0.5, "maximum": 1.5}}}},
        "shunts": {"type": "array", "items": {"type": "object", "required": ["bus", "b_pu"],
                                              "properties": {"bus": s.ID, "b_pu": s.NUMBER}}},
        "measurements": {"type": "array", "minItems": 3, "items": {
            "type": "object", "required": ["id", "quantity", "value", "sigma"],
            "properties": {"id": s.ID, "quantity": {"enum": list(QUANTITIES)}, "bus": s.ID, "branch": s.ID,
                           "side": {"enum": ["from", "to"]}, "value": s.NUMBER, "sigma": s.POSITIVE}}},
        "rn_threshold": {"type": "number", "minimum": 1.0, "maximum": 10.0},
    },
}


#: A measured voltage magnitude (pu) the estimator can take: pandapower's estimator drops a
#: non-positive one from its tables and then fails on a pandas KeyError (issue 32, item 1);
#: no steady state lies outside (0, 2] pu.
V_MEASUREMENT_MAX_PU = 2.0


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """Unique branch ids (measurements name them); every voltage measurement in (0, 2] pu."""
    p = ic.Problems()
    ic.unique_id_problems(p, inputs, [("branches",)])
    for i, m in enumerate(inputs["measurements"]):
        if m["quantity"] == "v_pu" and not 0 < m["value"] <= V_MEASUREMENT_MAX_PU:
            p.add(ic.pointer("measurements", i, "value"),
                  f"a voltage magnitude must lie in (0, {V_MEASUREMENT_MAX_PU:g}] pu; found {m['value']!r}")
    return p


class Case:
    """A task's network and measurements in the kernel's terms (per unit); references that do not
    resolve, and an unobservable measurement set, are the caller's error, named by JSON pointer."""

    def __init__(self, inputs: dict[str, Any]) -> None:
        self.inputs = inputs
        self.base = float(inputs["base_mva"])
        self.bus_ids = [b["id"] for b in inputs["buses"]]
        bus = {b: i for i, b in enumerate(self.bus_ids)}
        if len(bus) != len(self.bus_ids):
            raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/buses has duplicate ids")
        if inputs["reference_bus"] not in bus:
            raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/reference_bus {inputs['reference_bus']!r} is not a bus")
        self.ref = bus[inputs["reference_bus"]]
        br = inputs["branches"]
        self.branch_ids = [b["id"] for b in br]
        branch = {b: i for i, b in enumerate(self.branch_ids)}
        for i, b in enumerate(br):
            for end in ("from_bus", "to_bus"):
                if b[end] not in bus:
                    raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/branches/{i}/{end} {b[end]!r} is not a bus")
        self.f = [bus[b["from_bus"]] for b in br]
        self.t = [bus[b["to_bus"]] for b in br]
        self.tap = [float(b.get("tap_ratio", 1.0)) for b in br]
        sh = np.zeros(len(bus))
        for i, x in enumerate(inputs.get("shunts", [])):
            if x["bus"] not in bus:
                raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/shunts/{i}/bus {x['bus']!r} is not a bus")
            sh[bus[x["bus"]]] += float(x["b_pu"])
        self.shunt_b = sh
        self.grid = wls.grid(len(bus), self.ref, self.f, self.t, [b["r_pu"] for b in br], [b["x_pu"] for b in br],
                             [b["b_pu"] for b in br], self.tap, sh)
        kind, mbus, mbr, end, z, sig = [], [], [], [], [], []
        self.meas_ids = [m["id"] for m in inputs["measurements"]]
        if len(set(self.meas_ids)) != len(self.meas_ids):
            raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/measurements has duplicate ids")
        for i, m in enumerate(inputs["measurements"]):
            k = QUANTITIES[m["quantity"]]
            scale = 1.0 if k == wls.K_V else self.base
            if k in (wls.P_FLOW, wls.Q_FLOW):
                if m.get("branch") not in branch:
                    raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/measurements/{i}/branch {m.get('branch')!r} "
                                           "is not a branch of the network")
                if m.get("side") not in ("from", "to"):
                    raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/measurements/{i}/side must be 'from' or 'to'")
                mbr.append(branch[m["branch"]])
                mbus.append(0)
                end.append(0 if m["side"] == "from" else 1)
            else:
                if m.get("bus") not in bus:
                    raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/measurements/{i}/bus {m.get('bus')!r} is not a bus")
                mbus.append(bus[m["bus"]])
                mbr.append(0)
                end.append(0)
            kind.append(k)
            z.append(float(m["value"]) / scale)
            sig.append(float(m["sigma"]) / scale)
        self.meas = wls.Measurements(np.array(kind), np.array(mbus), np.array(mbr), np.array(end), np.array(z), np.array(sig))
        if not wls.observable(self.grid, self.meas):
            raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/measurements do not make the state observable "
                                   "(the weighted measurement Jacobian at a flat start is rank deficient)")
        self.threshold = float(inputs["rn_threshold"])

    def surrogate(self) -> wls.BadDataResult:
        try:
            return wls.largest_normalized_residual(self.grid, self.meas, self.threshold)
        except wls.Unobservable:
            raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/measurements: the state becomes unobservable during "
                                   "bad-data removal") from None


def _answer(removed: list[str], vm: np.ndarray, va: np.ndarray) -> dict[str, Any]:
    return {"bad_measurements": sorted(removed), "vm_pu": [float(v) for v in vm], "va_deg": [float(a) + 0.0 for a in va]}


def solve(task: Task, backend: str) -> Reference:
    case = Case(task.public_inputs)
    if backend == "pandapower":
        res = pandapower_estimate(case)
        return Reference(answer=_answer(list(res.removed), res.vm_pu, res.va_deg),
                         method="pandapower.estimation.remove_bad_data (WLS, rn_max test)")
    out = case.surrogate()
    return Reference(answer=_answer([case.meas_ids[i] for i in out.removed], wls.vm_pu(out.final.V), wls.va_deg(out.final.V)),
                     evidence={"largest_rn": list(out.largest_rn), "runner_up_rn": list(out.runner_up_rn),
                               "removal_order": [case.meas_ids[i] for i in out.removed], "objective_j": out.final.objective},
                     method="Gauss-Newton WLS on the AC measurement model; largest normalized residual removed and re-estimated")


def pandapower_estimate(case: Case) -> Any:
    from psab.backends import pandapower_net as ppn
    from psab.backends import pandapower_se as ppse

    inputs = case.inputs
    bus = {b: i for i, b in enumerate(case.bus_ids)}
    branch = {b: i for i, b in enumerate(case.branch_ids)}
    meas = [ppse.SeMeasurement(m["id"], m["quantity"], bus.get(m.get("bus"), -1), branch.get(m.get("branch"), -1),
                               m.get("side", "from"), float(m["value"]), float(m["sigma"])) for m in inputs["measurements"]]
    branches = [ppn.BranchData(case.f[i], case.t[i], float(b["r_pu"]), float(b["x_pu"]), float(b["b_pu"]), case.tap[i])
                for i, b in enumerate(inputs["branches"])]
    return ppse.estimate_with_bad_data(base_mva=case.base, vn_kv=[b["vn_kv"] for b in inputs["buses"]], ref=case.ref,
                                       branches=branches, shunt_b_pu=list(case.shunt_b), measurements=meas,
                                       threshold=case.threshold)


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer
    checks = ctx.checks()
    if list(answer["bad_measurements"]) != list(ref["bad_measurements"]):
        missed = sorted(set(ref["bad_measurements"]) - set(answer["bad_measurements"]))
        extra = sorted(set(answer["bad_measurements"]) - set(ref["bad_measurements"]))
        checks.violate("/bad_measurements", "the measurements removed by the largest-normalized-residual test, in "
                       f"ascending id order (missed {missed}, not bad {extra})", ref["bad_measurements"],
                       answer["bad_measurements"])
    for name in ("vm_pu", "va_deg"):
        for i, expected in enumerate(ref[name]):
            checks.close(f"/{name}/{i}", expected, answer[name][i], "estimated state")
    return Assessment(violations=checks.violations,
                      evidence={"checks": len(checks.records) + 1, "checks_failed": len(checks.violations)})


# ---------------------------------------------------------------------------- held-out draws

#: Wood, Wollenberg & Sheblé, Power Generation, Operation and Control (3rd ed., 2014), the six-bus
#: system of the power-flow chapter: (from, to, r pu, x pu, total charging b pu) on 100 MVA.
WW6_BRANCHES = ((1, 2, 0.10, 0.20, 0.04), (1, 4, 0.05, 0.20, 0.04), (1, 5, 0.08, 0.30, 0.06), (2, 3, 0.05, 0.25, 0.06),
                (2, 4, 0.05, 0.10, 0.02), (2, 5, 0.10, 0.30, 0.04), (2, 6, 0.07, 0.20, 0.05), (3, 5, 0.12, 0.26, 0.05),
                (3, 6, 0.02, 0.10, 0.02), (4, 5, 0.20, 0.40, 0.08), (5, 6, 0.10, 0.30, 0.06))
#: Loads (MW, Mvar) at buses 4–6 and generation: bus 1 slack at 1.05 pu, bus 2 50 MW at 1.05, bus 3 60 MW at 1.07.
WW6_LOADS = {4: (70.0, 70.0), 5: (70.0, 70.0), 6: (70.0, 70.0)}
WW6_GENS = {1: (0.0, 1.05), 2: (50.0, 1.05), 3: (60.0, 1.07)}

SIGMA = {"v_pu": 0.004, "p_injection_mw": 1.0, "q_injection_mvar": 1.0, "p_flow_mw": 0.8, "q_flow_mvar": 0.8}
THRESHOLD = 3.0


def _r(x: float, nd: int = 4) -> float:
    return float(round(float(x), nd))


def _network(rng: np.random.Generator, level: int) -> dict[str, Any]:
    """Buses, branches, shunts and the operating point (loads, generators) of a draw."""
    if level == 1:
        buses = [{"id": f"B{i}", "vn_kv": 230.0} for i in range(1, 7)]
        branches = [{"id": f"L{f}-{t}", "from_bus": f"B{f}", "to_bus": f"B{t}", "r_pu": _r(r * rng.uniform(0.9, 1.1)),
                     "x_pu": _r(x * rng.uniform(0.9, 1.1)), "b_pu": b} for f, t, r, x, b in WW6_BRANCHES]
        loads = {f"B{b}": (p * rng.uniform(0.6, 1.2), q * rng.uniform(0.3, 0.9)) for b, (p, q) in WW6_LOADS.items()}
        gens = {f"B{b}": (p * rng.uniform(0.6, 1.4), v + rng.uniform(-0.02, 0.01)) for b, (p, v) in WW6_GENS.items()}
        return {"base_mva": 100.0, "buses": buses, "reference_bus": "B1", "branches": branches, "shunts": [],
                "_loads": loads, "_gens": gens}
    c = transmission_case("case14")
    branches = []
    for b in c["branches"]:
        row = {"id": b["id"], "from_bus": b["from_bus"], "to_bus": b["to_bus"], "r_pu": b["r_pu"], "x_pu": b["x_pu"],
               "b_pu": b["b_pu"]}
        if b["tap_ratio"] not in (0.0, 1.0):
            row["tap_ratio"] = b["tap_ratio"]
        branches.append(row)
    loads = {d["bus"]: (d["p_mw"] * rng.uniform(0.75, 1.15), d["q_mvar"] * rng.uniform(0.75, 1.15)) for d in c["loads"]}
    gens = {g["bus"]: (g["p_mw"] * rng.uniform(0.7, 1.3), g["vm_pu"]) for g in c["generators"]}
    return {"base_mva": 100.0, "buses": c["buses"], "reference_bus": c["slack_bus"], "branches": branches,
            "shunts": [{"bus": x["bus"], "b_pu": x["b_pu"]} for x in c["shunts"]], "_loads": loads, "_gens": gens}


def _truth(net: dict[str, Any]) -> np.ndarray:
    """The true operating point (AC power flow, generators at their setpoints)."""
    ids = [b["id"] for b in net["buses"]]
    ix = {b: i for i, b in enumerate(ids)}
    n = len(ids)
    types = np.full(n, acpf.PQ)
    p_load, q_load, p_gen, v_set = np.zeros(n), np.zeros(n), np.zeros(n), np.ones(n)
    for b, (p, q) in net["_loads"].items():
        p_load[ix[b]], q_load[ix[b]] = p, q
    for b, (p, v) in net["_gens"].items():
        types[ix[b]] = acpf.PV
        p_gen[ix[b]], v_set[ix[b]] = p, v
    types[ix[net["reference_bus"]]] = acpf.SLACK
    sh = np.zeros(n)
    for x in net["shunts"]:
        sh[ix[x["bus"]]] += x["b_pu"]
    br = net["branches"]
    model = acpf.make_network(base_mva=net["base_mva"], bus_type=types, from_idx=[ix[b["from_bus"]] for b in br],
                              to_idx=[ix[b["to_bus"]] for b in br], r_pu=[b["r_pu"] for b in br], x_pu=[b["x_pu"] for b in br],
                              b_pu=[b["b_pu"] for b in br], tap_ratio=[b.get("tap_ratio", 1.0) for b in br],
                              p_load_mw=p_load, q_load_mvar=q_load, p_gen_mw=p_gen, v_set_pu=v_set, shunt_b_pu=sh)
    return acpf.solve_ac(model).V


def _measurement_plan(rng: np.random.Generator, net: dict[str, Any], level: int) -> list[dict[str, Any]]:
    ids = [b["id"] for b in net["buses"]]
    plan: list[dict[str, Any]] = []
    v_buses = sorted({net["reference_bus"], *(str(b) for b in rng.choice(ids, max(2, len(ids) // 3), replace=False))}, key=ids.index)
    plan += [{"quantity": "v_pu", "bus": b} for b in v_buses]
    inj = sorted((str(b) for b in rng.choice(ids, int(round(len(ids) * rng.uniform(0.5, 0.75))), replace=False)), key=ids.index)
    for b in inj:
        plan += [{"quantity": "p_injection_mw", "bus": b}, {"quantity": "q_injection_mvar", "bus": b}]
    # a bus on a single branch (a generator step-up) gets both its injection and that branch's
    # flow metered, as real placements do: otherwise its measurements are critical (untestable)
    degree: dict[str, int] = {}
    for br in net["branches"]:
        for end in (br["from_bus"], br["to_bus"]):
            degree[end] = degree.get(end, 0) + 1
    radial = {b for b, d in degree.items() if d == 1}
    for b in sorted(radial - set(inj), key=ids.index):
        plan += [{"quantity": "p_injection_mw", "bus": b}, {"quantity": "q_injection_mvar", "bus": b}]
    to_share = 0.2 if level == 1 else 0.45
    for br in net["branches"]:
        if {br["from_bus"], br["to_bus"]} & radial or rng.uniform() < (0.7 if level == 1 else 0.85):
            side = "to" if rng.uniform() < to_share else "from"
            plan += [{"quantity": "p_flow_mw", "branch": br["id"], "side": side},
                     {"quantity": "q_flow_mvar", "branch": br["id"], "side": side}]
    return plan


def draw(rng: np.random.Generator, level: int) -> dict[str, Any]:
    net = _network(rng, level)
    V = _truth(net)
    inputs = {k: v for k, v in net.items() if not k.startswith("_")}
    inputs["rn_threshold"] = THRESHOLD
    for _ in range(50):  # placements until the set is observable (real SCADA sets are designed so)
        plan = _measurement_plan(rng, net, level)
        for k, m in enumerate(plan):
            m["id"] = f"M{k + 1:02d}"
        inputs["measurements"] = [dict(m, value=0.0, sigma=SIGMA[m["quantity"]]) for m in plan]
        try:
            case = Case(inputs)
            break
        except InvalidTaskError:
            continue
    else:
        raise RuntimeError("no observable measurement placement in 50 tries")
    true = wls.measured(case.grid, case.meas, V)
    scale = np.where(case.meas.kind == wls.K_V, 1.0, case.base)
    sigma = case.meas.sigma * scale
    noise = sigma * np.clip(rng.normal(0.0, 0.5, len(plan)), -1.0, 1.0)
    n_bad = int(rng.integers(1, 3)) if level == 1 else int(rng.integers(2, 4))
    flows = [i for i, m in enumerate(plan) if m["quantity"].endswith("flow_mw") or m["quantity"].endswith("flow_mvar")]
    bad = [int(x) for x in rng.choice(flows, 1)]
    if level >= 2:
        # an interacting pair: the injection of the same kind at one end of the corrupted flow, when measured
        mb = plan[bad[0]]
        br = next(b for b in net["branches"] if b["id"] == mb["branch"])
        kind = "p_injection_mw" if mb["quantity"].startswith("p") else "q_injection_mvar"
        pair = [i for i, m in enumerate(plan) if m["quantity"] == kind and m["bus"] in (br["from_bus"], br["to_bus"])]
        if pair:
            bad.append(int(rng.choice(pair)))
    others = [i for i in range(len(plan)) if i not in bad and plan[i]["quantity"] != "v_pu"]
    while len(bad) < n_bad:
        bad.append(int(rng.choice(others)))
        others.remove(bad[-1])
    gross = np.zeros(len(plan))
    for i in bad:
        gross[i] = sigma[i] * rng.uniform(12.0, 30.0) * (1 if rng.uniform() < 0.5 else -1)
    values = true * scale + noise + gross
    for m, v in zip(inputs["measurements"], values, strict=True):
        m["value"] = _r(v, 5 if m["quantity"] == "v_pu" else 3)
    inputs["_bad"] = sorted(plan[i]["id"] for i in bad)
    return inputs


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the operating point (loads, generation, voltage setpoints; line impedances ±10 % at
    level 1), the measurement placement (which voltages, injections and flows, at which end),
    the noise and the gross errors (which meters, ±12–30 σ), and keep the draw only when the
    bad-data test separates them cleanly (:func:`accept`)."""
    for _ in range(20):
        inputs = draw(rng, level)
        bad = inputs.pop("_bad")
        # the story of the case: the test removes exactly the injected gross errors (no masking)
        case = Case(inputs)
        if sorted(case.meas_ids[i] for i in case.surrogate().removed) == bad:
            break
    return Generated(public_inputs=inputs)


#: Margins that keep the answer away from the threshold, so that both estimators agree.
DETECT_MARGIN = 1.0  # the largest r_N at each removal exceeds the threshold by at least this
RUNNER_UP_RATIO = 1.02  # … and the runner-up by at least 2 %
PASS_FRACTION = 0.7  # after the removals every r_N is below 0.7 × threshold


def accept(task: Task, reference: Reference) -> str | None:
    case = Case(task.public_inputs)
    out = case.surrogate()
    if out.critical_seen:
        return "a critical measurement appears during removal (its residual is not testable)"
    if not out.final.converged:
        return "WLS did not converge"
    keep = np.ones(len(case.meas_ids), bool)
    for i in out.removed:  # observable after every removal, checked on its own (not only via G)
        keep[i] = False
        if not wls.observable(case.grid, case.meas.subset(np.flatnonzero(keep))):
            return "the state becomes unobservable during removal"
    thr = case.threshold
    for big, second in zip(out.largest_rn[:-1], out.runner_up_rn[:-1], strict=True):
        if big < thr + DETECT_MARGIN or big < RUNNER_UP_RATIO * second:
            return "a detection step is too close to the threshold or to its runner-up"
    if out.largest_rn[-1] > PASS_FRACTION * thr:
        return "a good measurement's normalized residual is too close to the threshold"
    if sorted(reference.answer["bad_measurements"]) != sorted(case.meas_ids[i] for i in out.removed):
        return "backends disagree on the bad measurements"
    return None


def naive_answer(task: Task) -> dict[str, Any]:
    """One pass, no re-estimation: every measurement whose normalized residual exceeds the
    threshold in the first estimate is called bad, and the state is that first estimate."""
    case = Case(task.public_inputs)
    est = wls.estimate(case.grid, case.meas)
    flagged = [case.meas_ids[i] for i in np.flatnonzero(est.normalized > case.threshold)]
    return _answer(flagged, wls.vm_pu(est.V), wls.va_deg(est.V))


# ---------------------------------------------------------------------------- words

STATEMENT_EN = (
    "Estimate the state of the network in public_inputs from its measurements by weighted least squares and "
    "identify the bad data by the largest normalized residual test, iterated. Network: π-model branches (series "
    "r_pu + j·x_pu, total charging b_pu split half to each end, an optional off-nominal tap_ratio on the from side), "
    "bus shunt susceptances b_pu, all per unit on base_mva. Measurements: v_pu (bus voltage magnitude, pu), "
    "p_injection_mw / q_injection_mvar (net power injected into the network at the bus, generation positive, "
    "bus shunts counted inside the network), p_flow_mw / q_flow_mvar (power entering the branch at its 'from' or "
    "'to' end, side); each with its standard deviation sigma in the same unit, errors independent, weight 1/σ². "
    "State: the voltage angle at every bus but reference_bus (its angle is 0) and the voltage magnitude at every "
    "bus (the reference bus's magnitude is estimated too). Method (Abur & Expósito): Gauss-Newton WLS from a "
    "flat start (|V| = 1, θ = 0) to convergence; residuals r = z − h(x̂); residual covariance "
    "Ω = R − H·G⁻¹·Hᵀ with G = Hᵀ·R⁻¹·H at the solution; normalized residual r_N,i = |r_i|/√Ω_ii. If the "
    "largest r_N exceeds rn_threshold, remove that one measurement and estimate again with the others; repeat "
    "until the largest r_N is at most rn_threshold. Answer the removed measurements (ascending id order) and the "
    "final estimate: vm_pu and va_deg (degrees) per bus, in the order of buses. The case is drawn so that every "
    "step is clear (no near-ties, the set stays observable, no critical measurement)."
)
STATEMENT_RU = (
    "Оцените состояние сети из public_inputs по её измерениям методом взвешенных наименьших квадратов и выявите "
    "плохие данные итерационным тестом наибольшей нормированной невязки. Сеть: ветви по П-схеме (продольное "
    "сопротивление r_pu + j·x_pu, полная ёмкостная проводимость b_pu поровну на концы, необязательный "
    "коэффициент трансформации tap_ratio на стороне from), шунты узлов b_pu; всё в о.е. на base_mva. Измерения: "
    "v_pu (модуль напряжения узла, о.е.), p_injection_mw / q_injection_mvar (мощность, отдаваемая узлом в сеть, "
    "генерация положительна, шунты узлов — часть сети), p_flow_mw / q_flow_mvar (мощность, входящая в ветвь с "
    "конца 'from' или 'to', поле side); у каждого — среднеквадратичное отклонение sigma в тех же единицах, "
    "ошибки независимы, вес 1/σ². Состояние: угол напряжения во всех узлах, кроме reference_bus (его угол 0), и "
    "модуль напряжения во всех узлах (модуль в базисном узле тоже оценивается). Метод (Abur & Expósito): "
    "итерации Гаусса–Ньютона ВНК с плоского начального приближения (|V| = 1, θ = 0) до сходимости; невязки "
    "r = z − h(x̂); ковариация невязок Ω = R − H·G⁻¹·Hᵀ, G = Hᵀ·R⁻¹·H в решении; нормированная невязка "
    "r_N,i = |r_i|/√Ω_ii. Если наибольшая r_N больше rn_threshold, исключите это одно измерение и выполните оценку "
    "заново по остальным; повторяйте, пока наибольшая r_N не станет не больше rn_threshold. Укажите исключённые "
    "измерения (в порядке возрастания id) и итоговую оценку: vm_pu и va_deg (градусы) по узлам в порядке buses. "
    "Задача построена так, что каждый шаг однозначен (нет близких значений, наблюдаемость сохраняется, нет "
    "критических измерений)."
)

PRESENTATION = {
    "en": {"title": "State estimation with bad-data identification (false data injection)", "statement": STATEMENT_EN,
           "answer_notes": "bad_measurements must match exactly (ascending id order); vm_pu within 0.01 % (floor "
                           "1e-5 pu), va_deg within 0.01 % (floor 0.001°)."},
    "ru": {"title": "Оценивание состояния с выявлением плохих данных (ложные данные)", "statement": STATEMENT_RU,
           "answer_notes": "bad_measurements должны совпасть точно (по возрастанию id); vm_pu — с точностью 0,01 % "
                           "(не менее 1e-5 о.е.), va_deg — 0,01 % (не менее 0,001°).",
           "hard_constraints": (
               "bad_measurements — ровно измерения, исключённые итерационным тестом наибольшей нормированной невязки "
               "при rn_threshold, в порядке возрастания id",
               "vm_pu и va_deg каждого узла совпадают с оценкой ВНК после исключения в пределах допуска",
               "в vm_pu и va_deg по одному значению на узел, в порядке buses",
           )},
}

EXPERT = {
    "en": {"statement": (
        "Run AC weighted-least-squares state estimation (Abur & Expósito 2004, ch. 2) on the network and measurements "
        "in public_inputs and identify bad data by the largest normalized residual test (ch. 5, §5.7), removing one "
        "measurement at a time and re-estimating until the test passes at rn_threshold. The case's own choices: "
        "flat start; reference_bus angle 0, its magnitude estimated; injections generation-positive with bus shunts "
        "inside the network; flows at the stated end; weights 1/σ². Report the removed measurements (ascending id) "
        "and the final |V| (pu) and θ (degrees) per bus in the order of buses.")},
    "ru": {"statement": (
        "Выполните оценивание состояния по переменному току методом взвешенных наименьших квадратов (Abur & Expósito "
        "2004, гл. 2) для сети и измерений из public_inputs и выявите плохие данные тестом наибольшей нормированной "
        "невязки (гл. 5, п. 5.7), исключая по одному измерению и повторяя оценку, пока тест не пройдёт при "
        "rn_threshold. Выбор, сделанный в задаче: плоское начальное приближение; угол reference_bus равен 0, его "
        "модуль оценивается; инъекции — генерация положительна, шунты узлов в составе сети; перетоки — на указанном "
        "конце; веса 1/σ². Укажите исключённые измерения (по возрастанию id) и итоговые |V| (о.е.) и θ (градусы) по "
        "узлам в порядке buses.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged against psab's Gauss-Newton WLS on the full AC measurement model with the iterated largest "
               "normalized residual test: the removed set exactly, each |V| and θ within 0.01 % or its floor."),
        "ru": ("Проверяется расчётом psab: ВНК Гаусса–Ньютона по полной модели измерений переменного тока с "
               "итерационным тестом наибольшей нормированной невязки: набор исключённых — точно, каждое |V| и θ — в "
               "пределах 0,01 % или абсолютного порога."),
    },
    "pandapower": {
        "en": ("Judged against pandapower's state estimation on the same measurements placed on a pandapower net: "
               "pandapower.estimation.remove_bad_data (WLS, flat start, rn_max test at rn_threshold); the same "
               "conventions as the statement, so the same answer scores 1 under either backend."),
        "ru": ("Проверяется оцениванием состояния pandapower по тем же измерениям в сети pandapower: "
               "pandapower.estimation.remove_bad_data (ВНК, плоский старт, тест rn_max при rn_threshold); условия те "
               "же, что в задаче, поэтому один и тот же ответ получает 1 при любом способе проверки."),
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="quality_standards_assets_cyber",
        scoring_kind="exact",
        confidence="high",
        version="1",
        provenance=(
            {
                "title": "A. Abur, A. Gómez Expósito, Power System State Estimation: Theory and Implementation, Marcel "
                         "Dekker, New York, 2004",
                "locator": "ch. 2 (WLS state estimation, Gauss-Newton normal equations, §2.6) and ch. 5 §5.7 (normalized "
                           "residuals, largest normalized residual test, identification by removal and re-estimation); "
                           "Example 2.2 (3-bus system) as a golden case",
                "note": "Applied directly: WLS on the AC measurement model, the r_N test iterated at the case's threshold.",
                "confidence": "high",
            },
            {
                "title": "A. J. Wood, B. F. Wollenberg, G. B. Sheblé, Power Generation, Operation and Control, 3rd ed., "
                         "Wiley, 2014",
                "locator": "the six-bus system of the book's power-flow and security-analysis chapters (line data r, x, "
                           "b/2 on 100 MVA; loads 70 MW + 70 Mvar at buses 4–6) for level-1 networks; the IEEE 14-bus "
                           "case (MATPOWER case14) for level 2",
                "note": "Network data only; the measurements, noise and gross errors are the case's.",
                "confidence": "medium",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "bad_measurements is exactly the set removed by the iterated largest-normalized-residual test at "
            "rn_threshold, in ascending id order",
            "vm_pu and va_deg at every bus match the WLS estimate after the removal within tolerance",
            "vm_pu and va_deg have one value per bus, in the order of buses",
        ),
        metrics=(),
        tolerances={"relative": 1e-4, "absolute_floors": {"/vm_pu": 1e-5, "/va_deg": 1e-3, "default": 1e-5}},
        presentation=PRESENTATION,
        backends=("surrogate", "pandapower"),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        validate_inputs=input_problems,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
    )
)
