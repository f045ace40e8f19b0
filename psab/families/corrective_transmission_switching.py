"""corrective_transmission_switching — relieve a post-contingency overload by opening branches
and redispatching generation at least cost (optimize).

A branch outage (the contingency) leaves the dispatched network with an overloaded branch. The
agent chooses corrective actions: which switchable branches to open (each at a switching cost)
and new set-points for the redispatchable units (each MW up or down at its own price, within its
limits and the ramp it can make within the corrective window). After the contingency and the
actions every remaining branch must be within its MW rating, the network must stay connected
(no bus, hence no load, islanded) and generation must still balance the load net of the
scheduled interconnector import. Objective: switching cost + redispatch cost.

Physics per backend: surrogate — DC power flow of the post-action topology; pandapower — the AC
power flow of the same actions (the interconnector at the slack bus also supplies the losses;
active flows, the larger of the two branch ends, against the same MW ratings).

Reference: the corrective switching MILP (B-θ formulation with big-M Ohm's law for switchable
branches, single-commodity connectivity flow; :mod:`psab.solvers.network`) solved to proven
optimality by HiGHS. Under the pandapower backend the DC optimum is checked in AC; wherever the
AC flow exceeds a rating, that branch's DC rating is tightened by the AC−DC gap and the MILP is
solved again, until the actions are AC-feasible (the reference is then AC-feasible and optimal
for the corrected DC ratings; a cheaper AC-feasible answer is flagged, not scored above 1).

Sources: corrective switching within security-constrained scheduling, arXiv:2001.00597; the
DC optimal transmission switching MILP of Fisher, O'Neill & Ferris, IEEE Trans. Power Syst.
23(3), 2008; corrective switching for post-contingency congestion, Hedman et al., IEEE Trans.
Power Syst. 24(3), 2009.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import SolverError
from psab.evaluators import answer_schema as s
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.solvers.algebra import LinearConstraint, check, equal_to, values
from psab.surrogates import dc_flow

FAMILY_ID = "corrective_transmission_switching"

#: Feasibility slack of power balance, unit limits and branch flows (MW): a dispatch written to
#: two decimals still balances.
SLACK_MW = 0.01
#: Objective ties (USD): an answer using the 0.01 MW feasibility slack can move the cost by up to
#: SLACK_MW × price per MW, under 1 USD at redispatch prices below 100 USD/MW; such a difference is no better answer.
OBJECTIVE_TIE_USD = 1.0

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    switchable = [b["id"] for b in inputs["branches"] if b.get("switchable")]
    units = [g["id"] for g in inputs["generators"]]
    return s.submission(
        {
            "switch_open": s.obj({i: s.boolean("true to open this switchable branch as a corrective action") for i in switchable},
                                 "one flag per switchable branch"),
            "p_mw": s.obj({g: s.number("the unit's post-action active power set-point, MW") for g in units},
                          "post-action set-point of every redispatchable unit"),
        },
        "corrective switching and redispatch",
    )


PRESENTATION = {
    "en": {
        "title": "Corrective transmission switching and redispatch after a contingency",
        "statement": (
            "The network in public_inputs (per unit on base_mva; π-model branches with r_pu, x_pu, b_pu, tap_ratio, "
            "phase_shift_deg; MW ratings on active power) serves its loads from the redispatchable units at their "
            "pre-contingency set-points p_mw and from an interconnector at slack_bus with a fixed scheduled import. "
            "The contingency branch has tripped, and with the pre-contingency dispatch a branch is now overloaded. "
            "Choose corrective actions: open any of the switchable branches (each at switching_cost_usd) and give "
            "every unit a post-action set-point within [max(p_min_mw, p_mw − ramp_down_mw), min(p_max_mw, p_mw + "
            "ramp_up_mw)], paying up_cost_usd_per_mw for each MW above its pre-contingency p_mw and "
            "down_cost_usd_per_mw for each MW below it. After the contingency and your actions: the set-points plus "
            "the scheduled import equal the total load; the remaining branches connect every bus; and the active "
            "flow of every remaining branch, computed by the DC power flow (B θ = P, flows b(θ_from − θ_to − "
            "shift), b = 1/(x_pu·tap_ratio)), is within its rating_mw. Minimize total switching plus redispatch cost."
        ),
        "answer_notes": (
            "switch_open: one boolean per switchable branch (true = open). p_mw: every unit's post-action "
            "set-point. Balance, limits and ratings hold within 0.01 MW. Under the pandapower backend the same "
            "actions are checked with the AC power flow (the interconnector then also supplies the losses)."
        ),
    },
    "ru": {
        "title": "Корректирующее переключение сети и передиспетчеризация после аварийного отключения",
        "statement": (
            "Сеть из public_inputs (о.е. на базе base_mva; П-образные ветви с r_pu, x_pu, b_pu, tap_ratio, "
            "phase_shift_deg; допустимые перетоки rating_mw по активной мощности) питает нагрузки от "
            "регулируемых генераторов с доаварийной мощностью p_mw и от межсистемной связи в балансирующем узле "
            "slack_bus с фиксированным плановым перетоком. Аварийно отключилась ветвь contingency, и при "
            "доаварийной загрузке генераторов одна из ветвей перегружена. Выберите корректирующие действия: "
            "отключите любые из коммутируемых ветвей (каждое переключение стоит switching_cost_usd) и задайте "
            "каждому генератору послеаварийную мощность в пределах [max(p_min_mw, p_mw − ramp_down_mw), "
            "min(p_max_mw, p_mw + ramp_up_mw)]; каждый МВт загрузки сверх доаварийной p_mw стоит "
            "up_cost_usd_per_mw, каждый МВт разгрузки — down_cost_usd_per_mw. После аварии и ваших действий: "
            "сумма мощностей генераторов и планового перетока равна суммарной нагрузке; оставшиеся ветви "
            "связывают все узлы; активный переток каждой оставшейся ветви, рассчитанный по модели постоянного "
            "тока (B θ = P, переток b(θ_from − θ_to − сдвиг), b = 1/(x_pu·tap_ratio)), не превышает rating_mw. "
            "Минимизируйте суммарную стоимость переключений и передиспетчеризации."
        ),
        "answer_notes": (
            "switch_open — по одному логическому значению на коммутируемую ветвь (true — отключить). p_mw — "
            "послеаварийная мощность каждого генератора. Баланс, пределы и допустимые перетоки проверяются с "
            "точностью 0,01 МВт. В бэкенде pandapower те же действия проверяются расчётом установившегося "
            "режима на переменном токе (межсистемная связь тогда покрывает и потери)."
        ),
        "hard_constraints": (
            "уставки генерации после управляющих воздействий вместе с плановым импортом равны суммарной нагрузке (±0,01 МВт)",
            "каждая уставка в пределах [max(p_min_mw, p_mw − ramp_down_mw), min(p_max_mw, p_mw + ramp_up_mw)]",
            "ветви, оставшиеся в работе после аварийного отключения и оперативных отключений, связывают все узлы",
            "активный переток каждой оставшейся ветви не превышает её rating_mw (расчёт по постоянному току; под pandapower — по переменному)",
        ),
    },
}


#: The shape of public_inputs (a task that does not fit raises InvalidTaskError).
INPUTS_SCHEMA = s.obj({
    "base_mva": s.POSITIVE, "frequency_hz": s.POSITIVE, "slack_bus": s.ID, "slack_vm_pu": s.POSITIVE,
    "interconnector": s.obj({"bus": s.ID, "scheduled_import_mw": s.NUMBER}),
    "contingency": s.obj({"branch_id": s.ID}),
    "buses": s.array(s.obj({"id": s.ID, "vn_kv": s.POSITIVE}), "buses", min_items=2),
    "branches": s.array(s.obj({"id": s.ID, "from_bus": s.ID, "to_bus": s.ID, "r_pu": s.NUMBER, "x_pu": s.POSITIVE, "b_pu": s.NUMBER,
                               "tap_ratio": s.POSITIVE, "phase_shift_deg": s.NUMBER, "rating_mw": s.POSITIVE,
                               "switchable": {"type": "boolean"}, "switching_cost_usd": s.NONNEGATIVE},
                              optional=("switching_cost_usd",)), "branches", min_items=2),
    "loads": s.array(s.obj({"id": s.ID, "bus": s.ID, "p_mw": s.NUMBER, "q_mvar": s.NUMBER}), "loads"),
    "generators": s.array(s.obj({"id": s.ID, "bus": s.ID, "p_mw": s.NUMBER, "p_min_mw": s.NUMBER, "p_max_mw": s.NUMBER,
                                 "ramp_up_mw": s.NONNEGATIVE, "ramp_down_mw": s.NONNEGATIVE, "up_cost_usd_per_mw": s.NONNEGATIVE,
                                 "down_cost_usd_per_mw": s.NONNEGATIVE, "vm_pu": s.POSITIVE}), "generators", min_items=1),
})

# ---------------------------------------------------------------------------- data


class Case:
    """Positions and arrays of one task's data."""

    def __init__(self, inputs: dict[str, Any]) -> None:
        self.inputs = inputs
        self.bus_ids = [b["id"] for b in inputs["buses"]]
        self.branch_ids = [b["id"] for b in inputs["branches"]]
        self.unit_ids = [g["id"] for g in inputs["generators"]]
        pos = {b: i for i, b in enumerate(self.bus_ids)}
        self.net = dc_flow.DcNetwork.from_case(inputs["buses"], inputs["branches"], inputs["slack_bus"], float(inputs["base_mva"]))
        self.rating = np.array([float(b["rating_mw"]) for b in inputs["branches"]])
        self.contingency = self.branch_ids.index(inputs["contingency"]["branch_id"])
        self.switchable = [k for k, b in enumerate(inputs["branches"]) if b.get("switchable")]
        self.switch_cost = {k: float(inputs["branches"][k]["switching_cost_usd"]) for k in self.switchable}
        gens = inputs["generators"]
        self.gen_bus = [pos[g["bus"]] for g in gens]
        self.p0 = np.array([float(g["p_mw"]) for g in gens])
        self.lo = np.array([max(float(g["p_min_mw"]), float(g["p_mw"]) - float(g["ramp_down_mw"])) for g in gens])
        self.hi = np.array([min(float(g["p_max_mw"]), float(g["p_mw"]) + float(g["ramp_up_mw"])) for g in gens])
        self.cost_up = np.array([float(g["up_cost_usd_per_mw"]) for g in gens])
        self.cost_down = np.array([float(g["down_cost_usd_per_mw"]) for g in gens])
        net_load = np.zeros(len(self.bus_ids))
        for ld in inputs["loads"]:
            net_load[pos[ld["bus"]]] += float(ld["p_mw"])
        self.import_mw = float(inputs["interconnector"]["scheduled_import_mw"])
        net_load[pos[inputs["slack_bus"]]] -= self.import_mw
        self.net_load = net_load
        self.demand = float(net_load.sum())  # generation must supply this (load net of the import)

    def grid(self, rating: np.ndarray | None = None) -> Any:
        from psab.solvers.network import DcGrid

        r = self.rating if rating is None else rating
        return DcGrid(self.net, tuple(self.bus_ids), tuple(self.branch_ids), tuple(float(x) for x in r),
                      tuple(self.gen_bus), tuple(float(x) for x in self.net_load))

    def in_service(self, open_mask: np.ndarray | None = None) -> np.ndarray:
        on = np.ones(self.net.n_branch, dtype=bool)
        on[self.contingency] = False
        if open_mask is not None:
            on &= ~open_mask
        return on

    def injections(self, p: np.ndarray) -> np.ndarray:
        P = -self.net_load.copy()
        np.add.at(P, self.gen_bus, p)
        return P


def _unit_field(case: Case, g: int) -> str:
    return f"/p_mw/{case.unit_ids[g]}"


def _flow_field(case: Case, k: int) -> str:
    """Where an overload is reported: the switch of a switchable branch, else the dispatch."""
    return f"/switch_open/{case.branch_ids[k]}" if k in case.switch_cost else "/p_mw"


def decision_rows(case: Case) -> list[LinearConstraint]:
    """Balance, unit limits and the up/down split of the redispatch — rows over ``p``, ``up``, ``down``."""
    n = len(case.unit_ids)
    units = [(g, case.unit_ids[g]) for g in range(n)]
    return [
        LinearConstraint("balance", "generation plus the scheduled import equals the load", [0],
                         lambda v, i: sum(v.p[g] for g in range(n)), **equal_to(case.demand), field=lambda i: "/p_mw"),
        LinearConstraint("unit_limits", "set-point of {1} within its limits and corrective ramp", units,
                         lambda v, i: v.p[i[0]], lower=lambda i: case.lo[i[0]], upper=lambda i: case.hi[i[0]],
                         field=lambda i: _unit_field(case, i[0])),
        LinearConstraint("redispatch_split", "redispatch of {1} split into up and down moves", units,
                         lambda v, i: v.p[i[0]] - v.up[i[0]] + v.down[i[0]], **equal_to(lambda i: case.p0[i[0]]),
                         field=lambda i: _unit_field(case, i[0])),
    ]


def network_rows(case: Case, rating: np.ndarray | None = None) -> list[LinearConstraint]:
    from psab.solvers.network import angle_rows

    return angle_rows(
        case.grid(rating), case.in_service(), case.switchable,
        gen_field=lambda g: _unit_field(case, g),
        switch_field=lambda k: f"/switch_open/{case.branch_ids[k]}",
        flow_field=lambda k: _flow_field(case, k),
    )


# The objective, written once: the MILP reads these bodies through
# :func:`~psab.solvers.algebra.linear_objective` (``v`` its variables, ``z`` = 1 for a closed
# switch), the evaluator calls them on the answer's arrays.


def switching_cost(case: Case, v: Any) -> Any:
    """Switching cost (USD): the cost of every switchable branch opened (``z = 0``)."""
    return sum(case.switch_cost[k] * (1 - v.z[k]) for k in case.switchable)


def redispatch_cost(case: Case, v: Any) -> Any:
    """Redispatch cost (USD): each unit's MW moved up and down at its own prices."""
    return np.sum(case.cost_up * v.up + case.cost_down * v.down)


def total_cost(case: Case, v: Any) -> Any:
    """The objective: switching plus redispatch cost (USD)."""
    return switching_cost(case, v) + redispatch_cost(case, v)


# ---------------------------------------------------------------------------- reference


def build_model(case: Case, rating: np.ndarray | None = None) -> Any:
    """The corrective switching MILP: decision rows, B-θ network rows with big-M switching,
    connectivity rows; objective switching + redispatch cost."""
    import pyomo.environ as pyo

    from psab.solvers.algebra import add_constraints, linear_objective
    from psab.solvers.network import connectivity_rows, pyomo_vars

    n_g, n_b, n_k = len(case.unit_ids), len(case.bus_ids), len(case.branch_ids)
    m = pyo.ConcreteModel()
    pyomo_vars(m, p=(range(n_g), "reals"), up=(range(n_g), "nonneg"), down=(range(n_g), "nonneg"),
               theta=(range(n_b), "reals"), f=(range(n_k), "reals"), c=(range(n_k), "reals"),
               z=(case.switchable, "binary"))
    add_constraints(m, decision_rows(case) + network_rows(case, rating)
                    + connectivity_rows(case.grid(rating), case.in_service(), case.switchable))
    m.cost = linear_objective(m, lambda v: total_cost(case, v))
    return m


def solve_milp(case: Case, rating: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """(open mask, set-points, objective) of the MILP optimum."""
    from psab.solvers.core import solve as solve_model

    m = build_model(case, rating)
    result = solve_model(m)
    open_mask = np.zeros(len(case.branch_ids), dtype=bool)
    for k in case.switchable:
        open_mask[k] = round(m.z[k].value) == 0
    p = np.array([float(m.p[g].value) for g in range(len(case.unit_ids))])
    return open_mask, p, result.objective


def _answer(case: Case, open_mask: np.ndarray, p: np.ndarray) -> dict[str, Any]:
    return {
        "switch_open": {case.branch_ids[k]: bool(open_mask[k]) for k in case.switchable},
        "p_mw": {u: round(float(x), 6) + 0.0 for u, x in zip(case.unit_ids, p, strict=True)},
    }


#: AC corrections of the pandapower reference: at most this many re-solves.
AC_ITERATIONS = 8


def solve(task: Task, backend: str) -> Reference:
    case = Case(task.public_inputs)
    rating = case.rating.copy()
    if backend != "pandapower":
        open_mask, p, obj = solve_milp(case)
        method = "corrective switching MILP (DC B-θ, big-M switching, connectivity flow), HiGHS to proven optimality"
        return Reference(answer=_answer(case, open_mask, p), objective=obj, method=method,
                         evidence={"opened": [case.branch_ids[k] for k in case.switchable if open_mask[k]]})
    corrections = []
    for it in range(AC_ITERATIONS):
        open_mask, p, obj = solve_milp(case, rating)
        p = np.round(p, 6)
        flows = ac_flows(task, case, open_mask, p)
        excess = flows - case.rating
        excess[~case.in_service(open_mask)] = -np.inf
        if np.all(excess <= 0.0):
            return Reference(
                answer=_answer(case, open_mask, p), objective=obj,
                method=f"corrective switching MILP with DC ratings corrected by the AC-DC flow gap ({it} corrections), "
                       "AC-feasible in pandapower",
                evidence={"opened": [case.branch_ids[k] for k in case.switchable if open_mask[k]],
                          "rating_corrections_mw": corrections},
            )
        for k in np.flatnonzero(excess > 0.0):
            rating[k] -= float(excess[k]) + SLACK_MW
            corrections.append({"branch": case.branch_ids[k], "iteration": it, "tightened_by_mw": round(float(excess[k]) + SLACK_MW, 4)})
    raise SolverError(f"no AC-feasible corrective action found in {AC_ITERATIONS} DC re-solves")


def ac_flows(task: Task, case: Case, open_mask: np.ndarray, p: np.ndarray) -> np.ndarray:
    """AC active flows (MW, the larger end) after the contingency and the actions; NaN where out
    of service. Raises :class:`SolverError` when the AC power flow does not converge."""
    from psab.backends import pandapower_ac_checks as acc

    prepared = acc.prepared((FAMILY_ID, task.digest), acc.AcCase.from_case(task.public_inputs))
    off = [k for k in range(len(case.branch_ids)) if not case.in_service(open_mask)[k]]
    return acc.flows(prepared, off, gen_p_mw=p).active_flow_mw


# ---------------------------------------------------------------------------- evaluator


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    case = Case(task.public_inputs)
    open_mask = np.zeros(len(case.branch_ids), dtype=bool)
    for k in case.switchable:
        open_mask[k] = bool(answer["switch_open"][case.branch_ids[k]])
    p = np.array([float(answer["p_mw"][u]) for u in case.unit_ids])
    up, down = np.maximum(p - case.p0, 0.0), np.maximum(case.p0 - p, 0.0)
    z = (~open_mask).astype(float)
    decisions = values(p=p, up=up, down=down, z=z)
    checks = ctx.checks()
    slack = ctx.tol.slack
    violations = check(decisions, decision_rows(case), slack)
    # The network is judged for an admissible dispatch only: with an imbalance the slack would
    # absorb it and every flow violation would restate the balance violation; outside the unit
    # limits the set-points are not an operating point the AC power flow should be asked about.
    admissible = not violations
    on = case.in_service(open_mask)
    evidence: dict[str, Any] = {"network_assessed": False}
    if not dc_flow.is_connected(case.net, on):
        opened = [case.branch_ids[k] for k in case.switchable if open_mask[k]]
        checks.violate("/switch_open", "the remaining branches must connect every bus (no load islanded)",
                       "a connected network", {"opened": opened, "outaged": case.branch_ids[case.contingency]})
    elif admissible:
        evidence["network_assessed"] = True
        if ctx.backend == "pandapower":
            try:
                flows = ac_flows(task, case, open_mask, p)
            except SolverError as exc:
                flows = None
                checks.violate("/p_mw", "the AC power flow of the post-action state must converge", "a converged power flow", str(exc))
            if flows is not None:
                for k in np.flatnonzero(on):
                    checks.at_most(_flow_field(case, k), float(flows[k]), float(case.rating[k]),
                                   f"AC active flow of {case.branch_ids[k]} within its rating", slack="flow_mw")
                evidence["max_loading_pct"] = round(float(np.nanmax(flows[on] / case.rating[on])) * 100.0, 3)
        else:
            sol = dc_flow.dc_power_flow(case.net, case.injections(p), in_service=on)
            state = values(p=p, theta=sol.theta_rad, f=sol.flow_mw, z=z)
            violations += check(state, network_rows(case), slack)
            evidence["max_loading_pct"] = round(float(np.max(np.abs(sol.flow_mw[on]) / case.rating[on])) * 100.0, 3)
    switching, redispatch = float(switching_cost(case, decisions)), float(redispatch_cost(case, decisions))
    evidence.update(switching_cost_usd=switching, redispatch_cost_usd=round(redispatch, 6),
                    opened=[case.branch_ids[k] for k in case.switchable if open_mask[k]])
    return Assessment(violations=violations + checks.violations, objective=switching + redispatch, evidence=evidence)


# ---------------------------------------------------------------------------- held-out draws


def overload_at_base_dispatch(inputs: dict[str, Any]) -> float:
    """The worst DC loading after the contingency with the pre-contingency dispatch (no action)."""
    case = Case(inputs)
    on = case.in_service()
    if not dc_flow.is_connected(case.net, on):
        return float("inf")
    flows = dc_flow.dc_power_flow(case.net, case.injections(case.p0), in_service=on).flow_mw
    return float(np.max(np.abs(flows[on]) / case.rating[on]))


def generate(public: Task, rng: np.random.Generator) -> Generated:
    """Redraw loads (±15 %, the units' pre-contingency dispatch scaled to balance), ratings (±10 %),
    prices (±30 %) and switching costs (±40 %); sometimes move the contingency to another
    non-switchable branch. Draws whose contingency overloads nothing are redrawn."""
    base = public.public_inputs
    for _ in range(100):
        inputs = dict(base)
        loads = [{**ld, "p_mw": round(ld["p_mw"] * float(rng.uniform(0.85, 1.15)), 1)} for ld in base["loads"]]
        for ld, old in zip(loads, base["loads"], strict=True):
            ld["q_mvar"] = round(old["q_mvar"] * ld["p_mw"] / old["p_mw"], 1)
        demand = sum(ld["p_mw"] for ld in loads) - base["interconnector"]["scheduled_import_mw"]
        scale = demand / sum(g["p_mw"] for g in base["generators"])
        gens = []
        for g in base["generators"]:
            p = round(g["p_mw"] * scale, 1)
            gens.append({**g, "p_mw": p,
                         "up_cost_usd_per_mw": round(g["up_cost_usd_per_mw"] * float(rng.uniform(0.7, 1.3)), 2),
                         "down_cost_usd_per_mw": round(g["down_cost_usd_per_mw"] * float(rng.uniform(0.7, 1.3)), 2)})
        gens[-1]["p_mw"] = round(demand - sum(g["p_mw"] for g in gens[:-1]), 1)
        if any(not g["p_min_mw"] <= g["p_mw"] <= g["p_max_mw"] for g in gens):
            continue
        branches = []
        for b in base["branches"]:
            nb = {**b, "rating_mw": float(round(b["rating_mw"] * float(rng.uniform(0.9, 1.1))))}
            if b.get("switchable"):
                nb["switching_cost_usd"] = float(round(b["switching_cost_usd"] * float(rng.uniform(0.6, 1.4))))
            branches.append(nb)
        contingency = base["contingency"]["branch_id"]
        if rng.uniform() < 0.3:
            others = [b["id"] for b in branches if not b.get("switchable") and b["id"] != contingency]
            contingency = others[int(rng.integers(len(others)))]
        inputs.update(loads=loads, generators=gens, branches=branches, contingency={"branch_id": contingency})
        worst = overload_at_base_dispatch(inputs)
        if 1.02 < worst < 1.5:
            return Generated(public_inputs=inputs)
    from psab.errors import GenerationError

    raise GenerationError("no corrective_transmission_switching draw overloaded a branch moderately in 100 tries")


def accept(task: Task, reference: Reference) -> str | None:
    if not 1.02 < overload_at_base_dispatch(task.public_inputs) < 1.5:
        return "the contingency must overload a branch (by 2-50 %) at the pre-contingency dispatch"
    return None


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="network",
        scoring_kind="optimize",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "Security-constrained unit commitment with corrective transmission switching, arXiv:2001.00597",
                "locator": "arXiv:2001.00597, the post-contingency corrective stage: switching and redispatch decisions under DC network constraints",
                "note": "One corrective stage for one given contingency: switchable branches with switching costs, redispatch with up/down prices and ramp-limited ranges, DC flows within ratings.",
                "confidence": "medium",
            },
            {
                "title": "Fisher, O'Neill & Ferris, Optimal transmission switching, IEEE Trans. Power Syst. 23(3), 2008",
                "locator": "doi:10.1109/TPWRS.2008.922256, eqs. (1)-(9): B-θ DC model with big-M Ohm's law for switchable lines",
                "note": "The MILP formulation of the reference; connectivity added as a single-commodity flow so no load is islanded.",
                "confidence": "medium",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "post-action set-points plus the scheduled import equal the total load (±0.01 MW)",
            "every set-point within [max(p_min_mw, p_mw − ramp_down_mw), min(p_max_mw, p_mw + ramp_up_mw)]",
            "the branches left after the contingency and the openings connect every bus",
            "every remaining branch's active flow within its rating_mw (DC power flow; AC under pandapower)",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {"default": 1e-6},
                    "feasibility": {"default": SLACK_MW, "flow_mw": SLACK_MW},
                    "objective": {"relative": 1e-6, "absolute": OBJECTIVE_TIE_USD}},
        presentation=PRESENTATION,
        backends=("surrogate", "pandapower"),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        accept=accept,
        inputs_schema=INPUTS_SCHEMA,
        objective_sense="minimize",
        objective_unit="USD",
        objective_scale_floor=100.0,
    )
)
