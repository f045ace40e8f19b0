"""operator_breaker_load_actions — an operator's breaker openings and load shedding to remove
post-contingency overloads at the least priority-weighted shed load (optimize).

A transmission network after a branch outage (the contingency) with an overload at the
scheduled generation; breakers that may be opened (switchable branches) and loads that may be
shed, each with a priority. The agent returns which breakers to open and how many MW of each
load to shed. Constraints: every remaining branch within its MW rating; every bus stays
connected (a load is removed only by shedding it, never by islanding it); each shed between 0
and the load. The generators hold their set-points and the interconnector at the slack bus takes
up the change of demand. Objective (minimised): Σ priority × shed MW + breaker_penalty per
breaker opened.

Physics per backend: surrogate — DC power flow of the post-action network; pandapower — the AC
power flow of the same actions (loads reduced by their shed share at constant power factor,
the interconnector the slack, the larger-end active flow against the rating). Reference: the
MILP on the shared network rows of :mod:`psab.solvers.network` (B-θ with big-M switching and
single-commodity connectivity, Fisher, O'Neill & Ferris 2008) solved by HiGHS; under pandapower
the DC ratings of AC-overloaded branches are tightened by their AC−DC gap and the MILP re-solved
until the actions are AC-feasible, as in corrective_transmission_switching.

Levels: 1 corrective_transmission_switching's 8-bus network redrawn (loads, dispatch, ratings,
contingency, switchable branches) with load priorities; 2 the same with a second branch already
out for maintenance (N-1-1 operation), so the flows redistribute over a thinner network.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError, SolverError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.solvers.algebra import LinearConstraint
from psab.surrogates import dc_flow

FAMILY_ID = "operator_breaker_load_actions"


def _schema_guard(fn):  # type: ignore[no-untyped-def]
    from psab.families._feeder_cases import schema_guarded

    return schema_guarded(FAMILY_ID)(fn)
SLACK_MW = 0.01
AC_ITERATIONS = 8
PRIORITIES = (1, 1, 2, 3, 5)


@_schema_guard
def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    switchable = [b["id"] for b in inputs["branches"] if b.get("switchable")]
    return s.submission(
        {"open_breakers": s.obj({i: s.boolean("true to open this breaker", ru="true — отключить этот выключатель") for i in switchable},
                                "one flag per switchable branch", ru="по одному признаку на коммутируемую ветвь"),
         "shed_mw": s.obj({ld["id"]: s.number("MW of this load to shed", minimum=0, ru="отключаемая мощность нагрузки, МВт")
                           for ld in inputs["loads"]}, "shed MW of every load", ru="отключаемая мощность каждой нагрузки")},
        "breaker operations and load shedding", ru="операции выключателями и отключение нагрузки",
    )


#: Most buses, branches, loads or generators: the cases are the 5-bus and the IEEE 14/30-bus
#: systems; 1000 keeps the DC screening and the pandapower AC check within seconds.
MAX_ELEMENTS = 1000
#: What the DC model and the pandapower AC check (psab.backends.pandapower_ac_checks) read,
#: typed and bounded, so that a broken field is named before either runs (issue 32, item 1).
INPUTS_SCHEMA: dict[str, Any] = ic.bounded(ic.obj(
    ["base_mva", "slack_bus", "interconnector", "contingency", "buses", "branches", "loads", "generators",
     "breaker_penalty"], {
        "base_mva": ic.BASE_MVA, "slack_bus": ic.ID, "slack_vm_pu": ic.VM_SETPOINT_PU,
        "frequency_hz": {"type": "number", "minimum": 40, "maximum": 70},
        "breaker_penalty": ic.NONNEGATIVE,
        "interconnector": ic.obj(["bus", "scheduled_import_mw"], {"bus": ic.ID, "scheduled_import_mw": ic.NUMBER}),
        "contingency": ic.obj(["branch_id"], {"branch_id": ic.ID}),
        "maintenance_outages": {"type": "array", "items": ic.ID, "uniqueItems": True},
        "buses": {"type": "array", "minItems": 2, "items": ic.obj(["id", "vn_kv"], {"id": ic.ID, "vn_kv": ic.KV})},
        "branches": {"type": "array", "minItems": 1, "items": ic.obj(
            ["id", "from_bus", "to_bus", "r_pu", "x_pu", "rating_mw"], {
                "id": ic.ID, "from_bus": ic.ID, "to_bus": ic.ID, "r_pu": ic.NONNEGATIVE, "x_pu": ic.POSITIVE,
                "b_pu": ic.NONNEGATIVE, "tap_ratio": ic.TAP_RATIO, "phase_shift_deg": {"type": "number", "minimum": -90, "maximum": 90},
                "rating_mw": ic.POSITIVE, "switchable": ic.BOOLEAN})},
        "loads": {"type": "array", "items": ic.obj(["id", "bus", "p_mw", "priority"], {
            "id": ic.ID, "bus": ic.ID, "p_mw": ic.NONNEGATIVE, "q_mvar": ic.NUMBER, "priority": ic.NONNEGATIVE})},
        "generators": {"type": "array", "items": ic.obj(["id", "bus", "p_mw", "vm_pu"], {
            "id": ic.ID, "bus": ic.ID, "p_mw": ic.NUMBER, "vm_pu": ic.VM_SETPOINT_PU})},
        "shunts": {"type": "array", "items": ic.obj(["bus"], {"bus": ic.ID, "g_pu": ic.NUMBER, "b_pu": ic.NUMBER})},
    }), MAX_ELEMENTS)


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """Unique ids; every load, generator, shunt, the slack and the interconnector on a bus."""
    p = ic.Problems()
    pos = p.unique_ids("/buses", inputs["buses"])
    ic.unique_id_problems(p, inputs, [("branches",), ("loads",), ("generators",)])
    for key in ("loads", "generators", "shunts"):
        for i, el in enumerate(inputs.get(key, ())):
            p.refers(ic.pointer(key, i, "bus"), el["bus"], pos, "bus")
    p.refers("/slack_bus", inputs["slack_bus"], pos, "bus")
    p.refers("/interconnector/bus", inputs["interconnector"]["bus"], pos, "bus")
    return p


class Case:
    """Positions and arrays of one task (shed pseudo-units at the load buses, then the import)."""

    def __init__(self, inputs: dict[str, Any]) -> None:
        from psab.families._feeder_cases import guarded

        guarded(FAMILY_ID, self._read, inputs)

    def _read(self, inputs: dict[str, Any]) -> None:
        self.inputs = inputs
        self.bus_ids = [b["id"] for b in inputs["buses"]]
        self.branch_ids = [b["id"] for b in inputs["branches"]]
        self.load_ids = [ld["id"] for ld in inputs["loads"]]
        pos = {b: i for i, b in enumerate(self.bus_ids)}
        for k, b in enumerate(inputs["branches"]):
            for end in ("from_bus", "to_bus"):
                if b[end] not in pos:
                    raise InvalidTaskError(f"{FAMILY_ID}: /branches/{k}/{end}: {b[end]!r} is not a bus")
            if b["from_bus"] == b["to_bus"]:
                raise InvalidTaskError(f"{FAMILY_ID}: /branches/{k}: branch {b['id']!r} connects a bus to itself")
        if inputs["contingency"]["branch_id"] not in self.branch_ids:
            raise InvalidTaskError(f"{FAMILY_ID}: /contingency/branch_id: not a branch of the network")
        self.net = dc_flow.DcNetwork.from_case(inputs["buses"], inputs["branches"], inputs["slack_bus"], float(inputs["base_mva"]))
        self.rating = np.array([float(b["rating_mw"]) for b in inputs["branches"]])
        self.contingency = self.branch_ids.index(inputs["contingency"]["branch_id"])
        self.maintenance = []
        for j, bid in enumerate(inputs.get("maintenance_outages", [])):
            if bid not in self.branch_ids:
                raise InvalidTaskError(f"{FAMILY_ID}: /maintenance_outages/{j}: {bid!r} is not a branch of the network")
            self.maintenance.append(self.branch_ids.index(bid))
        self.switchable = [k for k, b in enumerate(inputs["branches"]) if b.get("switchable")]
        self.load_bus = [pos[ld["bus"]] for ld in inputs["loads"]]
        self.load_p = np.array([float(ld["p_mw"]) for ld in inputs["loads"]])
        self.priority = np.array([float(ld["priority"]) for ld in inputs["loads"]])
        net_load = np.zeros(len(self.bus_ids))
        np.add.at(net_load, self.load_bus, self.load_p)
        for g in inputs["generators"]:
            net_load[pos[g["bus"]]] -= float(g["p_mw"])
        net_load[pos[inputs["slack_bus"]]] -= float(inputs["interconnector"]["scheduled_import_mw"])
        self.net_load = net_load
        self.slack = pos[inputs["slack_bus"]]
        if (self.rating <= 0).any() or (self.load_p < 0).any() or (self.priority < 0).any() or float(inputs["breaker_penalty"]) < 0:
            raise InvalidTaskError(f"{FAMILY_ID}: /branches: ratings must be positive; loads, priorities, penalty not negative")
        if any(float(b["x_pu"]) <= 0 for b in inputs["branches"]) or float(inputs["base_mva"]) <= 0:
            raise InvalidTaskError(f"{FAMILY_ID}: /branches: x_pu and base_mva must be positive")
        for g in inputs["generators"]:
            float(g["vm_pu"])
        for ld in inputs["loads"]:
            float(ld["q_mvar"])
        if not dc_flow.is_connected(self.net, self.in_service()):
            raise InvalidTaskError(f"{FAMILY_ID}: /contingency: the outage alone islands a bus")

    def grid(self, rating: np.ndarray | None = None) -> Any:
        from psab.solvers.network import DcGrid

        r = self.rating if rating is None else rating
        return DcGrid(self.net, tuple(self.bus_ids), tuple(self.branch_ids), tuple(float(x) for x in r),
                      tuple(self.load_bus) + (self.slack,), tuple(float(x) for x in self.net_load))

    def in_service(self, open_mask: np.ndarray | None = None) -> np.ndarray:
        on = np.ones(self.net.n_branch, dtype=bool)
        on[self.contingency] = False
        on[self.maintenance] = False
        if open_mask is not None:
            on &= ~open_mask
        return on

    def injections(self, shed: np.ndarray) -> np.ndarray:
        P = -self.net_load.copy()
        np.add.at(P, self.load_bus, shed)
        return P


def _flow_field(case: Case, k: int) -> str:
    return f"/open_breakers/{case.branch_ids[k]}" if k in case.switchable else "/shed_mw"


def model_rows(case: Case, rating: np.ndarray | None = None) -> list[LinearConstraint]:
    from psab.solvers.network import angle_rows, connectivity_rows

    n_l = len(case.load_ids)
    shed_rows = [LinearConstraint("shed_range", "shed of {1} between 0 and the load", [(i, case.load_ids[i]) for i in range(n_l)],
                                  lambda v, i: v.p[i[0]], lower=0.0, upper=lambda i: case.load_p[i[0]],
                                  field=lambda i: f"/shed_mw/{case.load_ids[i[0]]}")]
    return shed_rows + angle_rows(case.grid(rating), case.in_service(), case.switchable,
                                  gen_field=lambda g: f"/shed_mw/{case.load_ids[g]}" if g < n_l else "/shed_mw",
                                  switch_field=lambda k: f"/open_breakers/{case.branch_ids[k]}",
                                  flow_field=lambda k: _flow_field(case, k)) + connectivity_rows(
        case.grid(rating), case.in_service(), case.switchable)


def solve_milp(case: Case, rating: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    import pyomo.environ as pyo

    from psab.solvers.algebra import add_constraints
    from psab.solvers.core import solve as solve_model
    from psab.solvers.network import pyomo_vars

    n_l, n_b, n_k = len(case.load_ids), len(case.bus_ids), len(case.branch_ids)
    m = pyo.ConcreteModel()
    pyomo_vars(m, p=(range(n_l + 1), "reals"), theta=(range(n_b), "reals"), f=(range(n_k), "reals"),
               c=(range(n_k), "reals"), z=(case.switchable, "binary"))
    add_constraints(m, model_rows(case, rating))
    pen = float(case.inputs["breaker_penalty"])
    m.cost = pyo.Objective(expr=sum(float(case.priority[i]) * m.p[i] for i in range(n_l))
                           + sum(pen * (1 - m.z[k]) for k in case.switchable), sense=pyo.minimize)
    res = solve_model(m)
    open_mask = np.zeros(n_k, dtype=bool)
    for k in case.switchable:
        open_mask[k] = round(m.z[k].value) == 0
    shed = np.array([max(0.0, float(m.p[i].value)) for i in range(n_l)])
    return open_mask, shed, res.objective


def _answer(case: Case, open_mask: np.ndarray, shed: np.ndarray) -> dict[str, Any]:
    return {"open_breakers": {case.branch_ids[k]: bool(open_mask[k]) for k in case.switchable},
            "shed_mw": {lid: round(float(x), 6) + 0.0 for lid, x in zip(case.load_ids, shed, strict=True)}}


def cost(case: Case, open_mask: np.ndarray, shed: np.ndarray) -> float:
    return float(case.priority @ shed + float(case.inputs["breaker_penalty"]) * sum(open_mask[k] for k in case.switchable))


def ac_flows(task: Task, case: Case, open_mask: np.ndarray, shed: np.ndarray) -> np.ndarray:
    """AC larger-end active flows after the contingency and the actions (loads reduced at
    constant power factor); raises SolverError when the power flow does not converge."""
    from psab.backends import pandapower_ac_checks as acc

    share = np.where(case.load_p > 0, 1.0 - shed / np.where(case.load_p > 0, case.load_p, 1.0), 1.0)
    loads = [dict(ld, p_mw=float(ld["p_mw"]) * f, q_mvar=float(ld.get("q_mvar", 0.0)) * f)
             for ld, f in zip(case.inputs["loads"], share, strict=True)]
    inputs = dict(case.inputs, loads=loads)
    prepared = acc.prepared((FAMILY_ID, task.digest, tuple(np.round(shed, 6))), acc.AcCase.from_case(inputs))
    off = [k for k in range(len(case.branch_ids)) if not case.in_service(open_mask)[k]]
    return acc.flows(prepared, off).active_flow_mw


def solve(task: Task, backend: str) -> Reference:
    case = Case(task.public_inputs)
    if backend != "pandapower":
        open_mask, shed, _ = solve_milp(case)
        return Reference(answer=_answer(case, open_mask, shed), objective=cost(case, open_mask, np.round(shed, 6)),
                         method="breaker/shedding MILP (DC B-θ, big-M switching, connectivity flow), HiGHS to proven optimality")
    rating = case.rating.copy()
    for it in range(AC_ITERATIONS):
        open_mask, shed, _ = solve_milp(case, rating)
        shed = np.round(shed, 6)
        flows = ac_flows(task, case, open_mask, shed)
        excess = flows - case.rating
        excess[~case.in_service(open_mask)] = -np.inf
        if np.all(excess <= 0.0):
            return Reference(answer=_answer(case, open_mask, shed), objective=cost(case, open_mask, shed),
                             method=f"breaker/shedding MILP with DC ratings corrected by the AC-DC gap ({it} corrections)")
        for k in np.flatnonzero(excess > 0.0):
            rating[k] -= float(excess[k]) + SLACK_MW
    raise SolverError(f"no AC-feasible action found in {AC_ITERATIONS} DC re-solves")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    case = Case(task.public_inputs)
    open_mask = np.zeros(len(case.branch_ids), dtype=bool)
    for k in case.switchable:
        open_mask[k] = bool(answer["open_breakers"][case.branch_ids[k]])
    shed = np.array([float(answer["shed_mw"][lid]) for lid in case.load_ids])
    checks = ctx.checks()
    for i, lid in enumerate(case.load_ids):
        checks.within(f"/shed_mw/{lid}", float(shed[i]), 0.0, float(case.load_p[i]), f"shed of {lid} between 0 and its load (MW)",
                      slack="flow_mw")
    on = case.in_service(open_mask)
    evidence: dict[str, Any] = {}
    if not dc_flow.is_connected(case.net, on):
        checks.violate("/open_breakers", "every bus stays connected (no load islanded)", "a connected network",
                       [case.branch_ids[k] for k in case.switchable if open_mask[k]])
    elif not checks.violations:
        if ctx.backend == "pandapower":
            try:
                flows = ac_flows(task, case, open_mask, np.clip(shed, 0.0, case.load_p))
            except SolverError as exc:
                flows = None
                checks.violate("/shed_mw", "the AC power flow of the post-action state converges", "converged", str(exc))
        else:
            flows = np.abs(dc_flow.dc_power_flow(case.net, case.injections(shed), in_service=on).flow_mw)
        if flows is not None:
            for k in np.flatnonzero(on):
                checks.at_most(_flow_field(case, k), float(flows[k]), float(case.rating[k]),
                               f"active flow of {case.branch_ids[k]} within its rating (MW)", slack="flow_mw")
            evidence["max_loading_pct"] = round(float(np.nanmax(flows[on] / case.rating[on])) * 100.0, 3)
    evidence["opened"] = [case.branch_ids[k] for k in case.switchable if open_mask[k]]
    return Assessment(violations=checks.violations, objective=cost(case, open_mask, shed), evidence=evidence)


# ---------------------------------------------------------------------------- held-out draws


def from_corrective(inputs: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """An operator case from a corrective-switching network draw: the same post-contingency
    network, generators held at their set-points, load priorities drawn, no switching costs."""
    out = {k: v for k, v in inputs.items()}
    out["branches"] = [{k: v for k, v in b.items() if k != "switching_cost_usd"} for b in inputs["branches"]]
    out["loads"] = [dict(ld, priority=int(rng.choice(PRIORITIES))) for ld in inputs["loads"]]
    out["generators"] = [{"id": g["id"], "bus": g["bus"], "p_mw": g["p_mw"], "vm_pu": g["vm_pu"]} for g in inputs["generators"]]
    out["breaker_penalty"] = 0.1  # above the 0.05 objective tie, so an idle opening costs a visible score
    return out


def draw(rng: np.random.Generator, level: int) -> dict[str, Any]:
    from psab.families import corrective_transmission_switching as ct
    from psab.io import load_case
    from psab.paths import case_dir

    public = load_case(case_dir(ct.FAMILY_ID))
    out = from_corrective(ct.generate(public, rng, 1).public_inputs, rng)
    if level >= 2:
        # A second branch already out for maintenance (N-1-1 operation): a fixed branch whose
        # loss, together with the contingency, leaves every bus connected.
        case = Case(out)
        fixed = [k for k in range(len(case.branch_ids)) if k not in case.switchable and k != case.contingency]
        for k in rng.permutation(fixed):
            on = case.in_service()
            on[int(k)] = False
            if dc_flow.is_connected(case.net, on):
                out["maintenance_outages"] = [case.branch_ids[int(k)]]
                break
    return out


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the post-contingency network as corrective_transmission_switching does (loads,
    dispatch, ratings, contingency, switchable branches) and the load priorities."""
    return Generated(public_inputs=draw(rng, level))


def overload(inputs: dict[str, Any]) -> float:
    case = Case(inputs)
    on = case.in_service()
    flows = np.abs(dc_flow.dc_power_flow(case.net, case.injections(np.zeros(len(case.load_ids))), in_service=on).flow_mw)
    return float(np.max(flows[on] / case.rating[on]))


def accept(task: Task, reference: Reference) -> str | None:
    try:
        ratio = overload(task.public_inputs)
    except InvalidTaskError:
        return "the contingency islands a bus"
    if not 1.02 < ratio < 2.0:
        return "the contingency must overload a branch by 2-100 % before any action"
    if reference.objective is None or reference.objective <= 0.2:
        return "nothing to do"
    return None


def naive_answer(task: Task) -> dict[str, Any]:
    """Shed only, no breaker opened (the breaker option ignored): the cheapest DC-feasible
    shedding with every breaker closed."""
    case = Case(task.public_inputs)
    inputs = dict(task.public_inputs, branches=[{k: v for k, v in b.items() if k != "switchable"} for b in task.public_inputs["branches"]])
    try:
        _, shed, _ = solve_milp(Case(inputs))
    except SolverError:
        shed = np.zeros(len(case.load_ids))
    return _answer(case, np.zeros(len(case.branch_ids), dtype=bool), shed)


PRESENTATION = {
    "en": {
        "title": "Operator actions after a contingency: breakers and load shedding",
        "statement": (
            "The network in public_inputs (per unit on base_mva; π-model branches with r_pu, x_pu, b_pu, tap_ratio, "
            "phase_shift_deg; MW ratings on active power) has lost the branch contingency.branch_id, and with the "
            "generators at their set-points p_mw a branch is overloaded. As the operator, choose which switchable branches "
            "to open (open_breakers, true = open) and how many MW of each load to shed (shed_mw, between 0 and the load's "
            "p_mw; a shed load keeps its power factor). The generators hold p_mw; the interconnector at slack_bus "
            "(scheduled_import_mw) takes up every change of demand. After the contingency and your actions: every bus stays "
            "connected (a load is removed only by shedding it, never by islanding it) and the active flow of every "
            "remaining branch is within rating_mw. Minimise Σ priority × shed MW + breaker_penalty per breaker opened. "
            "Which power flow computes the flows is the judging backend's: under the surrogate backend the DC power flow "
            "(B θ = P, flows b(θ_from − θ_to − shift), b = 1/(x_pu·tap_ratio), losses neglected, the slack taking the "
            "imbalance); under pandapower the AC Newton-Raphson power flow (constant-power loads, generators holding "
            "p_mw and vm_pu, the interconnector the slack supplying the losses; a branch's flow is the larger |P| of its ends). "
            "Branches in maintenance_outages (when given) are out as well."
        ),
        "answer_notes": ("Shed limits and ratings hold within 0.01 MW. Score 1 − (cost − optimum)/max(optimum, 1 priority-MW); "
                         "an islanded bus or an overloaded branch scores 0."),
    },
    "ru": {
        "title": "Действия диспетчера после аварийного отключения: выключатели и отключение нагрузки",
        "statement": (
            "Сеть из public_inputs (о.е. на базе base_mva; П-образные ветви с r_pu, x_pu, b_pu, tap_ratio, "
            "phase_shift_deg; допустимые перетоки rating_mw по активной мощности) потеряла ветвь contingency.branch_id, и "
            "при мощностях генераторов p_mw одна из ветвей перегружена. Как диспетчер выберите, какие коммутируемые ветви "
            "отключить (open_breakers, true — отключить) и сколько МВт каждой нагрузки отключить (shed_mw, от 0 до p_mw "
            "нагрузки; отключаемая часть сохраняет коэффициент мощности). Генераторы держат p_mw; межсистемная связь в "
            "slack_bus (scheduled_import_mw) принимает любое изменение потребления. После аварии и ваших действий все узлы "
            "остаются связанными (нагрузка снимается только отключением, а не выделением на изолированную часть), "
            "активный переток каждой оставшейся ветви не превышает rating_mw. Минимизируйте Σ priority × отключённые МВт + "
            "breaker_penalty за каждый отключённый выключатель. Каким расчётом определяются перетоки, зависит от "
            "проверяющего бэкенда: в суррогатном — расчёт по постоянному току (B θ = P, переток b(θ_from − θ_to − сдвиг), "
            "b = 1/(x_pu·tap_ratio), без потерь, небаланс берёт балансирующий узел); в pandapower — расчёт режима на "
            "переменном токе методом Ньютона–Рафсона (нагрузки постоянной мощности, генераторы держат p_mw и vm_pu, "
            "межсистемная связь — балансирующий узел, покрывающий потери; переток ветви — больший |P| по её концам). "
            "Ветви из maintenance_outages (если заданы) также отключены."
        ),
        "answer_notes": ("Пределы отключения и перетоков проверяются с точностью 0,01 МВт. Оценка 1 − (затраты − оптимум)/"
                         "max(оптимум, 1 приоритет·МВт); изолированный узел или перегруженная ветвь дают 0."),
        "hard_constraints": (
            "отключение каждой нагрузки от 0 до её p_mw (±0,01 МВт)",
            "все узлы остаются связанными после аварийного отключения и операций выключателями",
            "активный переток каждой оставшейся ветви не превышает rating_mw (по постоянному току; под pandapower — по переменному)",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Remove the post-contingency overload of the network in public_inputs by operator actions (Glover, Overbye & Sarma, "
        "Power System Analysis and Design, 6th ed., ch. 6 and 7 on power flow and contingency operation; optimal "
        "transmission switching after Fisher, O'Neill & Ferris 2008): open switchable branches and shed loads at the least "
        "Σ priority × shed MW + breaker_penalty per opening. The case's own choices: generators hold p_mw, the "
        "interconnector at slack_bus takes up the change of demand, no bus may be islanded, shed loads keep their power "
        "factor, and the flows are those of the power flow the judging backend names (DC, or AC with the interconnector "
        "as slack supplying the losses).")},
    "ru": {"statement": (
        "Устраните послеаварийную перегрузку сети из public_inputs действиями диспетчера (Glover, Overbye & Sarma, Power "
        "System Analysis and Design, 6-е изд., гл. 6 и 7; оптимальные переключения сети по Fisher, O'Neill & Ferris, "
        "2008): отключите коммутируемые ветви и нагрузки при минимуме Σ priority × отключённые МВт + breaker_penalty за "
        "каждое отключение. Выбор, сделанный в задаче: генераторы держат p_mw, межсистемная связь в slack_bus принимает "
        "изменение потребления, изолированные узлы недопустимы, отключаемая нагрузка сохраняет коэффициент мощности, "
        "перетоки — по расчёту режима, который называет проверяющий бэкенд (постоянный ток или переменный ток с "
        "межсистемной связью как балансирующим узлом, покрывающим потери).")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged by the DC power flow of the post-action network (psab): shed ranges and every remaining branch's |flow| "
               "≤ rating_mw within 0.01 MW, all buses connected; score 1 − gap / max(optimum, 1), the optimum from the MILP "
               "on psab's shared DC network rows (HiGHS, proven optimal)."),
        "ru": ("Проверяется расчётом по постоянному току послеаварийной схемы (psab): пределы отключения и |переток| каждой "
               "оставшейся ветви ≤ rating_mw с точностью 0,01 МВт, связность всех узлов; оценка 1 − разрыв / max(оптимум, 1), "
               "оптимум — СЦЛП на общих ограничениях сети psab (HiGHS, доказанный оптимум)."),
    },
    "pandapower": {
        "en": ("Judged by an AC Newton-Raphson power flow in pandapower of the post-action network (loads reduced by their shed "
               "at constant power factor, generators at p_mw and vm_pu, the interconnector the slack): each remaining "
               "branch's larger-end |P| ≤ rating_mw within 0.01 MW, converged, all buses connected. The reference is the DC "
               "MILP re-solved with AC-overloaded ratings tightened by the AC−DC gap until AC-feasible; any AC-feasible "
               "answer at or below its cost scores 1."),
        "ru": ("Проверяется расчётом режима на переменном токе методом Ньютона–Рафсона в pandapower (нагрузки уменьшены на "
               "отключаемую часть при неизменном коэффициенте мощности, генераторы на p_mw и vm_pu, межсистемная связь — "
               "балансирующий узел): больший по концам |P| каждой оставшейся ветви ≤ rating_mw с точностью 0,01 МВт, расчёт "
               "сходится, все узлы связаны. Эталон — СЦЛП по постоянному току, повторно решаемая с ужесточением допустимых "
               "перетоков перегруженных на переменном токе ветвей на разницу AC−DC; любой допустимый ответ не дороже "
               "эталона получает 1."),
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="reliability_restoration",
        scoring_kind="optimize",
        confidence="medium",
        version="1",
        provenance=(
            {"title": "J. D. Glover, T. J. Overbye, M. S. Sarma, Power System Analysis and Design, 6th ed., Cengage, 2017",
             "locator": "ch. 6 (power flow, DC power flow §6.12), ch. 7 on contingency operation and corrective actions",
             "note": "The post-contingency operating problem; priorities and the breaker penalty are the case's.",
             "confidence": "medium"},
            {"title": "E. B. Fisher, R. P. O'Neill, M. C. Ferris, Optimal transmission switching, IEEE Trans. Power Syst. 23(3), 2008",
             "locator": "eqs. (1)-(9): B-θ DC model with big-M switching",
             "note": "The network rows shared through psab.solvers.network, with a single-commodity connectivity flow.",
             "confidence": "high"},
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "the shed of each load between 0 and its p_mw (±0.01 MW)",
            "every bus stays connected after the contingency and the breaker operations",
            "the active flow of every remaining branch within rating_mw (DC; AC under pandapower)",
        ),
        metrics=(),
        tolerances={"feasibility": {"flow_mw": SLACK_MW, "default": SLACK_MW}, "objective": {"relative": 1e-6, "absolute": 0.05}},
        presentation=PRESENTATION,
        backends=("surrogate", "pandapower"),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        objective_sense="minimize",
        objective_unit="priority-MW",
        objective_scale_floor=1.0,
        accept=accept,
        inputs_schema=INPUTS_SCHEMA,
        validate_inputs=input_problems,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
    )
)
