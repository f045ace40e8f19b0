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
from psab.errors import InvalidTaskError, SolverError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.solvers.algebra import LinearConstraint, check, equal_to, values
from psab.surrogates import dc_flow

FAMILY_ID = "corrective_transmission_switching"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 20; one power flow per candidate switching.
MAX_INPUT_ITEMS = 300

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
            "switch_open": s.obj({i: s.boolean("true to open this switchable branch as a corrective action",
                                               ru="true — отключить эту коммутируемую ветвь как корректирующее действие")
                                  for i in switchable},
                                 "one flag per switchable branch", ru="по одному признаку на коммутируемую ветвь"),
            "p_mw": s.obj({g: s.number("the unit's post-action active power set-point, MW",
                                       ru="послеаварийная уставка активной мощности генератора, МВт") for g in units},
                          "post-action set-point of every redispatchable unit",
                          ru="послеаварийная уставка каждого регулируемого генератора"),
        },
        "corrective switching and redispatch", ru="корректирующие переключения и передиспетчеризация",
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
            "flow of every remaining branch is within its rating_mw. Which power flow computes those flows is the "
            "judging backend's (\"how the answer is judged\"), and the two define different problems: under the "
            "surrogate backend the DC power flow (B θ = P, flows b(θ_from − θ_to − shift), b = 1/(x_pu·tap_ratio), "
            "losses neglected, the interconnector at slack_bus taking up no imbalance since generation balances the "
            "load); under the pandapower backend the AC Newton-Raphson power flow of the post-action network "
            "(constant-power loads p_mw + j·q_mvar, units holding their set-point and vm_pu without reactive "
            "limits, the interconnector at slack_bus the slack at slack_vm_pu that also supplies the losses; a "
            "branch's flow is the larger |P| of its two ends), so a DC optimum whose AC flow exceeds a rating is "
            "infeasible there. Minimize total switching plus redispatch cost; opening a branch costs its "
            "switching_cost_usd whatever the redispatch, and a unit left at p_mw costs nothing."
        ),
        "answer_notes": (
            "switch_open: one boolean per switchable branch (true = open). p_mw: every unit's post-action "
            "set-point. Balance, limits and ratings hold within 0.01 MW; costs within 1 USD are a tie."
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
            "связывают все узлы; активный переток каждой оставшейся ветви не превышает rating_mw. Каким расчётом "
            "определяются перетоки, зависит от проверяющего бэкенда («как проверяется ответ»), и задачи при этом "
            "разные: в суррогатном бэкенде — расчёт по постоянному току (B θ = P, переток b(θ_from − θ_to − сдвиг), "
            "b = 1/(x_pu·tap_ratio), потери не учитываются, межсистемная связь в slack_bus небаланс не берёт, так "
            "как генерация покрывает нагрузку); в бэкенде pandapower — расчёт установившегося режима на "
            "переменном токе методом Ньютона–Рафсона для послеаварийной схемы (нагрузки постоянной мощности "
            "p_mw + j·q_mvar, генераторы держат уставку и vm_pu без ограничений по реактивной мощности, "
            "межсистемная связь в slack_bus — балансирующий узел с напряжением slack_vm_pu, покрывающий и потери; "
            "переток ветви — больший |P| по её концам), поэтому оптимум по постоянному току, у которого переток "
            "на переменном токе превышает допустимый, там недопустим. Минимизируйте суммарную стоимость "
            "переключений и передиспетчеризации; отключение ветви стоит switching_cost_usd независимо от "
            "передиспетчеризации, генератор, оставленный на p_mw, ничего не стоит."
        ),
        "answer_notes": (
            "switch_open — по одному логическому значению на коммутируемую ветвь (true — отключить). p_mw — "
            "послеаварийная мощность каждого генератора. Баланс, пределы и допустимые перетоки проверяются с "
            "точностью 0,01 МВт; стоимости, различающиеся менее чем на 1 USD, считаются равными."
        ),
        "hard_constraints": (
            "уставки генерации после управляющих воздействий вместе с плановым импортом равны суммарной нагрузке (±0,01 МВт)",
            "каждая уставка в пределах [max(p_min_mw, p_mw − ramp_down_mw), min(p_max_mw, p_mw + ramp_up_mw)]",
            "ветви, оставшиеся в работе после аварийного отключения и оперативных отключений, связывают все узлы",
            "активный переток каждой оставшейся ветви не превышает её rating_mw (расчёт по постоянному току; под pandapower — по переменному)",
        ),
    },
}


EXPERT = {
    "en": {"statement": (
        "Relieve the post-contingency overload of the network in public_inputs at least cost by corrective "
        "transmission switching and redispatch (the corrective stage of arXiv:2001.00597; optimal transmission "
        "switching after Fisher, O'Neill & Ferris 2008): the contingency branch is out; open any switchable branches "
        "(switching_cost_usd each) and re-set the units within their limits and corrective ramps (up_cost/down_cost "
        "per MW from p_mw), keeping generation plus the scheduled import equal to the load, every bus connected, and "
        "every remaining branch's active flow within rating_mw under the power flow the judging backend names (DC "
        "power flow, or AC power flow with the interconnector as slack supplying the losses)."
    )},
    "ru": {"statement": (
        "Устраните послеаварийную перегрузку сети из public_inputs с минимальными затратами корректирующими "
        "переключениями и передиспетчеризацией (корректирующий этап arXiv:2001.00597; оптимальные переключения "
        "сети по Fisher, O'Neill & Ferris, 2008): ветвь contingency отключена; отключите любые коммутируемые ветви "
        "(каждая — switching_cost_usd) и задайте генераторам новые уставки в пределах их ограничений и "
        "корректирующих скоростей изменения мощности (up_cost/down_cost за МВт от p_mw), сохранив равенство "
        "генерации с плановым импортом нагрузке, связность всех узлов и активные перетоки оставшихся ветвей в "
        "пределах rating_mw по расчёту режима, который называет проверяющий бэкенд (по постоянному току или по "
        "переменному току с межсистемной связью как балансирующим узлом, покрывающим потери)."
    )},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged by the DC power flow of the post-action network (psab): balance, unit ranges and every remaining "
              "branch's |flow| ≤ rating_mw within 0.01 MW, all buses connected. Score: 1 − (cost − optimum)/max(optimum, "
              "100 USD), the optimum being the corrective-switching MILP (B-θ DC model, big-M switching, connectivity) "
              "solved by HiGHS; a cost within 1 USD of it scores 1.",
        "ru": "Проверяется расчётом по постоянному току послеаварийной схемы с вашими действиями (psab): баланс, пределы "
              "генераторов и |переток| ≤ rating_mw каждой оставшейся ветви с точностью 0,01 МВт, связность всех узлов. "
              "Оценка: 1 − (стоимость − оптимум)/max(оптимум, 100 USD), оптимум — решение задачи СЦЛП корректирующих "
              "переключений (модель B-θ на постоянном токе, big-M, связность) в HiGHS; отличие до 1 USD даёт 1.",
    },
    "pandapower": {
        "en": "Judged by an AC Newton-Raphson power flow in pandapower of the post-action network: loads at p_mw + j·q_mvar, "
              "units at your set-points holding vm_pu (no reactive limits), the interconnector at slack_bus the slack "
              "at slack_vm_pu (it supplies the losses, so the lossless balance of the set-points is still required); "
              "each remaining branch's larger-end |P| ≤ rating_mw within 0.01 MW; the power flow must converge and all "
              "buses stay connected. The DC optimum may be infeasible here. Score: 1 − (cost − reference)/max(reference, "
              "100 USD), the reference being the cheapest AC-feasible action psab found (the DC MILP re-solved with "
              "each AC-overloaded branch's rating tightened by its AC-DC flow gap until the AC flow is within ratings); "
              "any AC-feasible answer at or below that cost scores 1.",
        "ru": "Проверяется расчётом установившегося режима методом Ньютона–Рафсона в pandapower для послеаварийной схемы "
              "с вашими действиями: нагрузки p_mw + j·q_mvar, генераторы на ваших уставках держат vm_pu (без ограничений "
              "по реактивной мощности), межсистемная связь в slack_bus — балансирующий узел с slack_vm_pu (покрывает "
              "потери, поэтому баланс уставок без потерь по-прежнему обязателен); больший по концам |P| каждой "
              "оставшейся ветви ≤ rating_mw с точностью 0,01 МВт; расчёт должен сойтись, все узлы — остаться связанными. "
              "Оптимум по постоянному току здесь может быть недопустим. Оценка: 1 − (стоимость − эталон)/max(эталон, "
              "100 USD), эталон — самое дешёвое допустимое на переменном токе действие, найденное psab (СЦЛП по "
              "постоянному току, повторно решаемая с ужесточением допустимого перетока каждой перегруженной на "
              "переменном токе ветви на разницу перетоков AC-DC, пока режим не станет допустимым); любой допустимый на "
              "переменном токе ответ не дороже эталона получает 1.",
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


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """Ids unique, every element on a known bus, the contingency a branch of the case, a cost
    for every switchable branch, p_min_mw ≤ p_mw ≤ p_max_mw for every unit, and the
    pre-contingency dispatch balancing the load (±0.01 MW)."""
    p = ic.Problems()
    ic.bus_branch_problems(p, inputs, slack="slack_bus", attached=("loads", "generators"))
    p.refers("/interconnector/bus", inputs["interconnector"]["bus"], {b["id"] for b in inputs["buses"]}, "bus")
    branch_ids = {b["id"] for b in inputs["branches"]}
    p.refers("/contingency/branch_id", inputs["contingency"]["branch_id"], branch_ids, "branch")
    for k, br in enumerate(inputs["branches"]):
        if br["switchable"] and "switching_cost_usd" not in br:
            p.add(ic.pointer("branches", k, "switching_cost_usd"), "a switchable branch needs its switching cost")
    p.unique_ids("/loads", inputs["loads"])
    p.unique_ids("/generators", inputs["generators"])
    for g, gen in enumerate(inputs["generators"]):
        p.ordered(ic.pointer("generators", g, "p_max_mw"), gen["p_min_mw"], gen["p_max_mw"], "p_min_mw")
        p.within(ic.pointer("generators", g, "p_mw"), gen["p_mw"], gen["p_min_mw"], gen["p_max_mw"], "the unit's limits")
    # The pre-contingency dispatch is an operating point of the same loads: it balances them (an
    # outage changes flows, not demand); one that does not leaves the corrective stage infeasible.
    supplied = sum(float(gen["p_mw"]) for gen in inputs["generators"]) + float(inputs["interconnector"]["scheduled_import_mw"])
    demand = sum(float(ld["p_mw"]) for ld in inputs["loads"])
    if abs(supplied - demand) > SLACK_MW:
        p.add("/generators", f"the pre-contingency set-points p_mw plus the scheduled import ({supplied:.6g} MW) must "
                             f"equal the total load ({demand:.6g} MW)")
    return p

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
    corrections: list[dict[str, Any]] = []
    for it in range(AC_ITERATIONS):
        try:
            open_mask, p, obj = solve_milp(case, rating)
        except SolverError as exc:
            if not corrections:
                raise
            raise _unsound(corrections, "the DC ratings tightened by the AC-DC flow gap leave no feasible action "
                                        f"({exc})") from None
        p = np.round(p, 6)
        try:
            flows = ac_flows(task, case, open_mask, p)
        except SolverError as exc:
            raise _unsound(corrections, f"the AC power flow of the DC optimum does not converge ({exc})") from None
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
    raise _unsound(corrections, f"the AC flows still exceed a rating after {AC_ITERATIONS} DC re-solves")


def _unsound(corrections: list[dict[str, Any]], why: str) -> InvalidTaskError:
    """The task cannot be judged under pandapower: its reference finds no AC-feasible action
    (the DC model admits one, the AC flows of every DC optimum tried overload a branch). The
    caller's error, naming the backend (issue 33); held-out draws are checked under every
    installed backend, so a draw never is one."""
    tightened = sorted({c["branch"] for c in corrections})
    return InvalidTaskError(
        f"{FAMILY_ID}: this task is not sound under the pandapower backend: no AC-feasible corrective action found — "
        f"{why}" + (f"; ratings tightened: {', '.join(tightened)}" if tightened else "")
        + " (judge it under the surrogate's DC model, or relax public_inputs/branches/*/rating_mw)")


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


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Level 1: the public 8-bus case redrawn (:func:`generate_small`). Level 2: the IEEE 14-bus
    system (MATPOWER case14) — three voltage levels coupled by off-nominal transformers, one of
    them a phase shifter, four redispatchable units and an interconnector, five switchable lines,
    33-kV branches where the AC flow departs far from the DC one."""
    if level == 1:
        return generate_small(public, rng)
    return generate_case14(public, rng)


def generate_case14(public: Task, rng: np.random.Generator) -> Generated:
    """IEEE 14-bus data: loads ±10 %, the interconnector at bus 1 importing 35-55 % of the load,
    the four other units (MATPOWER's 140/100/100/100 MW) sharing the rest with random limits,
    ramps and prices, OLTC taps redrawn, one transformer a phase shifter (3-8°), ratings 1.1-1.5 ×
    the intact DC flow (at least 15 MW), a contingency among the 132-kV lines, and five switchable
    lines. Draws whose contingency overloads nothing by 2-50 %, or whose DC optimum opens no
    branch, are redrawn."""
    from psab.errors import GenerationError
    from psab.surrogates.matpower_cases import transmission_case

    case = transmission_case("case14")
    slack = case["slack_bus"]
    hv_lines = [b["id"] for b in case["branches"] if b["id"].startswith("L") and int(b["id"][1:].split("-")[1]) <= 5]
    for _ in range(100):
        loads = []
        for ld in case["loads"]:
            f = float(rng.uniform(0.9, 1.1))
            loads.append({"id": ld["id"], "bus": ld["bus"], "p_mw": round(ld["p_mw"] * f, 1), "q_mvar": round(ld["q_mvar"] * f, 1)})
        total = sum(ld["p_mw"] for ld in loads)
        imp = round(total * float(rng.uniform(0.35, 0.55)), 1)
        units = [g for g in case["generators"] if g["bus"] != slack]
        share = rng.uniform(0.5, 1.5, len(units)) * np.array([g["p_max_mw"] for g in units])
        p0 = np.round((total - imp) * share / share.sum(), 1)
        p0[-1] = round(total - imp - float(p0[:-1].sum()), 1)
        gens = []
        for g, p in zip(units, p0, strict=True):
            pmax = float(g["p_max_mw"])
            gens.append({"id": g["id"], "bus": g["bus"], "p_mw": float(p), "p_min_mw": round(pmax * float(rng.uniform(0.05, 0.2)), 1),
                         "p_max_mw": pmax, "ramp_up_mw": round(pmax * float(rng.uniform(0.08, 0.2)), 1),
                         "ramp_down_mw": round(pmax * float(rng.uniform(0.08, 0.2)), 1),
                         "up_cost_usd_per_mw": round(float(rng.uniform(20.0, 45.0)), 2),
                         "down_cost_usd_per_mw": round(float(rng.uniform(5.0, 15.0)), 2),
                         "vm_pu": round(float(rng.uniform(1.0, 1.04)), 3)})
        if any(not g["p_min_mw"] <= g["p_mw"] <= g["p_max_mw"] for g in gens):
            continue
        trafos = [k for k, b in enumerate(case["branches"]) if b["tap_ratio"] != 1.0]
        shifter = int(trafos[int(rng.integers(len(trafos)))])
        branches = []
        for k, b in enumerate(case["branches"]):
            nb = {key: b[key] for key in ("id", "from_bus", "to_bus", "r_pu", "x_pu", "b_pu", "tap_ratio", "phase_shift_deg")}
            if b["tap_ratio"] != 1.0:
                nb["tap_ratio"] = round(1.0 + 0.0125 * int(rng.integers(-8, 9)), 4) or 0.9875
            if k == shifter:
                nb["phase_shift_deg"] = round(float(rng.choice([-1.0, 1.0]) * rng.uniform(3.0, 8.0)), 2)
            if nb["tap_ratio"] == 1.0 and nb["phase_shift_deg"] == 0.0 and b["id"].startswith("T"):
                nb["tap_ratio"] = 0.9875
            nb.update(rating_mw=1.0, switchable=False)
            branches.append(nb)
        contingency = hv_lines[int(rng.integers(len(hv_lines)))]
        inputs = {"base_mva": case["base_mva"], "frequency_hz": float(public.public_inputs.get("frequency_hz", 60.0)),
                  "slack_bus": slack, "slack_vm_pu": round(float(rng.uniform(1.0, 1.05)), 3),
                  "interconnector": {"bus": slack, "scheduled_import_mw": imp}, "contingency": {"branch_id": contingency},
                  "buses": case["buses"], "branches": branches, "loads": loads, "generators": gens}
        c = Case(inputs)
        intact = dc_flow.dc_power_flow(c.net, c.injections(c.p0)).flow_mw
        for br, f in zip(branches, intact, strict=True):
            br["rating_mw"] = float(round(max(abs(float(f)) * float(rng.uniform(1.1, 1.5)), 15.0)))
        on = c.in_service()
        meshed = [k for k, b in enumerate(branches) if b["id"].startswith("L") and b["id"] != contingency
                  and dc_flow.is_connected(c.net, on & (np.arange(len(branches)) != k))]
        for k in rng.choice(meshed, size=min(5, len(meshed)), replace=False):
            branches[int(k)].update(switchable=True, switching_cost_usd=float(round(float(rng.uniform(80.0, 300.0)))))
        worst = overload_at_base_dispatch(inputs)
        if not 1.02 < worst < 1.5:
            continue
        # Level 2 is about the switching decision: keep draws whose DC optimum opens a branch
        # (about one in four), so redispatch alone is not the answer.
        try:
            open_mask, _, _ = solve_milp(Case(inputs))
        except SolverError:
            continue
        if open_mask.any():
            return Generated(public_inputs=inputs)
    raise GenerationError("no corrective_transmission_switching case14 draw needed switching in 100 tries")


def generate_small(public: Task, rng: np.random.Generator) -> Generated:
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
    """Held-out acceptance: the contingency overloads a branch by 2-50 % at the pre-contingency
    dispatch, and (ambiguity check, issue 26.2) the optimum is not trivial — not every decision
    at a bound (no branch opened and every unit at an end of its corrective range)."""
    if not 1.02 < overload_at_base_dispatch(task.public_inputs) < 1.5:
        return "the contingency must overload a branch (by 2-50 %) at the pre-contingency dispatch"
    case = Case(task.public_inputs)
    p = np.array([float(reference.answer["p_mw"][u]) for u in case.unit_ids])
    at_bound = np.minimum(np.abs(p - case.lo), np.abs(p - case.hi)) <= 1e-6
    if not any(reference.answer["switch_open"].values()) and bool(np.all(at_bound)):
        return "trivial optimum: no switching and every unit at an end of its corrective range"
    return None


def naive_answer(task: Task) -> dict[str, Any]:
    """Redispatch only: the cheapest DC-feasible redispatch with every switchable branch left
    closed (the switching option ignored); the pre-contingency dispatch when redispatch alone
    cannot relieve the overload."""
    from psab.solvers.core import solve as solve_model

    case = Case(task.public_inputs)
    m = build_model(case)
    for k in case.switchable:
        m.z[k].fix(1)
    try:
        solve_model(m)
        p = np.array([float(m.p[g].value) for g in range(len(case.unit_ids))])
    except SolverError:
        p = case.p0.copy()
    return _answer(case, np.zeros(len(case.branch_ids), dtype=bool), p)


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
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        validate_inputs=input_problems,
        objective_sense="minimize",
        objective_unit="USD",
        objective_scale_floor=100.0,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
    )
)
