"""n1_generation_commitment — commit and dispatch units so that the loss of any single unit is
covered by the others' governor response within their capacity and the network's emergency
ratings (optimize).

Given units (limits, droop, marginal, no-load and start-up costs, initial status), the hourly
demand at the buses of a DC network with normal and emergency branch ratings, the agent returns
a commitment and dispatch. Constraints: balance; every committed unit between its minimum
stable generation and its capacity (an uncommitted unit at 0); base-case DC flows within the
normal ratings; and for the loss of each unit the redistribution rule of the task holds — the
remaining committed units pick up the lost output in proportion to their governor gains
``K_j = P_max,j / (R_j · f_0)`` (steady-state droop response, load damping neglected), each
within its capacity, with the resulting DC flows within the emergency ratings. Objective: the
hour's no-load, start-up and energy cost.

Reference: the MILP of :mod:`psab.solvers.security` (McCormick-linearized governor sharing) with
HiGHS to proven optimality. Surrogate backend only (DC physics).

Sources: security-constrained unit commitment with corrective actions, arXiv:2001.00597 (the
N-1 generation security of the commitment stage); Kundur, *Power System Stability and
Control* (1994), §11.1.4 (load sharing by parallel units with droop, eqs. 11.15-11.17).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import GenerationError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.solvers.algebra import check, values
from psab.surrogates import dc_flow

FAMILY_ID = "n1_generation_commitment"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 9; a MILP with one block per outage.
MAX_INPUT_ITEMS = 300

#: Feasibility slack (MW) of balance, limits, headroom and flows; the pickup balance and the
#: McCormick rows are in MW or Hz·(MW/Hz) at the same scale.
SLACK_MW = 0.01
#: Objective ties (USD): an answer using the 0.01 MW feasibility slack can move the cost by up to
#: SLACK_MW × price per MW, under 1 USD at marginal costs below 100 USD/MWh; such a difference is no better answer.
OBJECTIVE_TIE_USD = 1.0

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    unit = s.obj({"committed": s.boolean("true when the unit is online for the hour", ru="true, если агрегат включён на этот час"),
                  "p_mw": s.number("the unit's output for the hour, MW (0 when not committed)",
                                   ru="мощность агрегата на этот час, МВт (0, если не включён)")},
                 "commitment and dispatch of the unit", ru="состояние и загрузка агрегата")
    return s.submission({"units": s.obj({u["id"]: unit for u in inputs["units"]}, "one entry per unit",
                                        ru="по одной записи на агрегат")},
                        "N-1 secure commitment and dispatch", ru="выбор состава и загрузки агрегатов с учётом N-1")


PRESENTATION = {
    "en": {
        "title": "N-1 secure generation commitment with governor-response pickup",
        "statement": (
            "Commit and dispatch the units in public_inputs for one hour (period_h) to serve the loads of the DC "
            "network (branch susceptance 1/(x_pu·tap_ratio) on base_mva — the tap once, not squared —, slack_bus as angle reference). A committed "
            "unit produces between p_min_mw and p_max_mw; an uncommitted one produces 0. Total output equals total "
            "load, and the base-case DC flows stay within rating_mw (a branch with phase_shift_deg φ carries "
            "(θ_from − θ_to − φ)/(x_pu·tap_ratio)·base_mva MW, angles in radians). The system must survive the loss "
            "of any one COMMITTED unit g (an uncommitted unit produces nothing, so its loss changes nothing; with a "
            "single unit committed the loss of that unit cannot be covered and the commitment is infeasible): the "
            "frequency settles Δf = p_g / Σ K_j below nominal, where the sum runs over the other "
            "committed units and K_j = p_max_mw_j / (droop_pct_j/100 · frequency_hz) is unit j's governor gain "
            "(MW/Hz); each of them then picks up K_j·Δf MW (load damping neglected). After every such loss each "
            "remaining unit's output plus its pickup must stay within its p_max_mw, and the DC flows of the "
            "post-loss injections within emergency_rating_mw. Minimize the hour's cost: for each committed unit "
            "no_load_cost_usd_per_h·period_h, plus startup_cost_usd if it was not initially_on, plus "
            "marginal_cost_usd_per_mwh·p_mw·period_h. Units: MW, USD, droop in percent on the unit's own p_max_mw, "
            "frequency_hz the nominal frequency f₀."
        ),
        "answer_notes": ("units: for every unit, committed (boolean) and p_mw. All constraints hold within 0.01 MW; "
                         "costs within 1 USD count as a tie."),
    },
    "ru": {
        "title": "Выбор состава генерирующего оборудования с резервом по критерию N-1 и первичным регулированием",
        "statement": (
            "Выберите состав включённых агрегатов из public_inputs и их загрузку на один час (period_h) для "
            "питания нагрузок сети, рассчитываемой по модели постоянного тока (проводимость ветви "
            "1/(x_pu·tap_ratio) на базе base_mva — коэффициент трансформации в первой степени, не в квадрате —, "
            "slack_bus — опорный по углу узел). Включённый агрегат выдаёт "
            "от p_min_mw до p_max_mw, отключённый — 0. Суммарная генерация равна суммарной нагрузке, перетоки "
            "нормального режима не превышают rating_mw (по ветви с фазовым сдвигом phase_shift_deg φ течёт "
            "(θ_нач − θ_кон − φ)/(x_pu·tap_ratio)·base_mva МВт, углы в радианах). Система должна выдерживать потерю "
            "любого одного ВКЛЮЧЁННОГО агрегата g (невключённый агрегат ничего не выдаёт, его потеря ничего не "
            "меняет; если включён только один агрегат, его потерю покрыть нечем и такой состав недопустим): частота устанавливается на Δf = p_g / Σ K_j ниже номинальной, где сумма берётся по остальным "
            "включённым агрегатам, а K_j = p_max_mw_j / (droop_pct_j/100 · frequency_hz) — крутизна статической "
            "характеристики регулятора агрегата j (МВт/Гц); каждый из них подхватывает K_j·Δf МВт (регулирующий "
            "эффект нагрузки не учитывается). После каждой такой потери загрузка каждого оставшегося агрегата "
            "вместе с подхватом не должна превышать его p_max_mw, а перетоки послеаварийного режима — "
            "emergency_rating_mw. Минимизируйте затраты за час: для каждого включённого агрегата "
            "no_load_cost_usd_per_h·period_h, плюс startup_cost_usd, если он не был включён (initially_on), плюс "
            "marginal_cost_usd_per_mwh·p_mw·period_h. Единицы: МВт, доллары США, статизм в процентах от "
            "собственной p_max_mw агрегата, frequency_hz — номинальная частота f₀."
        ),
        "answer_notes": ("units — для каждого агрегата committed (логическое) и p_mw. Все ограничения проверяются с "
                         "точностью 0,01 МВт; затраты, различающиеся не более чем на 1 доллар, считаются равными."),
        "hard_constraints": (
            "суммарная генерация равна суммарной нагрузке (±0,01 МВт)",
            "включённый агрегат — в [p_min_mw, p_max_mw]; невключённый — 0",
            "перетоки в исходном режиме (расчёт по постоянному току) не превышают rating_mw",
            "при потере каждого включённого агрегата остальные включённые агрегаты принимают по K_j·Δf каждый, не превышая p_max_mw, а послеаварийные перетоки (по постоянному току) не превышают emergency_rating_mw",
        ),
    },
}


#: The shape of public_inputs (a task that does not fit raises InvalidTaskError).
INPUTS_SCHEMA = s.obj({
    "base_mva": s.POSITIVE, "frequency_hz": s.POSITIVE, "period_h": s.POSITIVE, "slack_bus": s.ID,
    "buses": s.array(s.obj({"id": s.ID}), "buses", min_items=1),
    "branches": s.array(s.obj({"id": s.ID, "from_bus": s.ID, "to_bus": s.ID, "x_pu": s.POSITIVE, "tap_ratio": s.POSITIVE,
                               "phase_shift_deg": s.NUMBER, "rating_mw": s.POSITIVE, "emergency_rating_mw": s.POSITIVE}), "branches"),
    "loads": s.array(s.obj({"id": s.ID, "bus": s.ID, "p_mw": s.NUMBER}), "loads"),
    "units": s.array(s.obj({"id": s.ID, "bus": s.ID, "p_min_mw": s.NONNEGATIVE, "p_max_mw": s.POSITIVE, "droop_pct": s.POSITIVE,
                            "marginal_cost_usd_per_mwh": s.NUMBER, "no_load_cost_usd_per_h": s.NONNEGATIVE,
                            "startup_cost_usd": s.NONNEGATIVE, "initially_on": {"type": "boolean"}}), "units", min_items=2),
})


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """Ids unique, every load and unit on a known bus, a connected network, and
    p_min_mw ≤ p_max_mw for every unit."""
    p = ic.Problems()
    ic.bus_branch_problems(p, inputs, slack="slack_bus", attached=("loads", "units"))
    p.unique_ids("/loads", inputs["loads"])
    p.unique_ids("/units", inputs["units"])
    for g, u in enumerate(inputs["units"]):
        p.ordered(ic.pointer("units", g, "p_max_mw"), u["p_min_mw"], u["p_max_mw"], "p_min_mw")
    return p

# ---------------------------------------------------------------------------- data


class Case:
    def __init__(self, inputs: dict[str, Any]) -> None:
        from psab.solvers.network import DcGrid
        from psab.solvers.security import UnitData, governor_gain_mw_per_hz

        self.inputs = inputs
        buses = [b["id"] for b in inputs["buses"]]
        pos = {b: i for i, b in enumerate(buses)}
        self.net = dc_flow.DcNetwork.from_case(inputs["buses"], inputs["branches"], inputs["slack_bus"], float(inputs["base_mva"]))
        units = inputs["units"]
        f0 = float(inputs["frequency_hz"])
        self.unit_ids = [u["id"] for u in units]
        self.units = UnitData(
            tuple(self.unit_ids), tuple(float(u["p_min_mw"]) for u in units), tuple(float(u["p_max_mw"]) for u in units),
            tuple(governor_gain_mw_per_hz(float(u["p_max_mw"]), float(u["droop_pct"]), f0) for u in units),
        )
        load = np.zeros(len(buses))
        for ld in inputs["loads"]:
            load[pos[ld["bus"]]] += float(ld["p_mw"])
        self.demand = float(load.sum())
        self.grid = DcGrid(self.net, tuple(buses), tuple(b["id"] for b in inputs["branches"]),
                           tuple(float(b["rating_mw"]) for b in inputs["branches"]),
                           tuple(pos[u["bus"]] for u in units), tuple(float(x) for x in load))
        self.normal = tuple(float(b["rating_mw"]) for b in inputs["branches"])
        self.emergency = tuple(float(b["emergency_rating_mw"]) for b in inputs["branches"])
        period = float(inputs["period_h"])
        self.fixed_cost = np.array([float(u["no_load_cost_usd_per_h"]) * period
                                    + (0.0 if u["initially_on"] else float(u["startup_cost_usd"])) for u in units])
        self.energy_cost = np.array([float(u["marginal_cost_usd_per_mwh"]) * period for u in units])
        self.ptdf = dc_flow.ptdf(self.net)
        self.shift = dc_flow.shift_flow_mw(self.net)

    def rows(self) -> list[Any]:
        from psab.solvers.security import n1_generation_rows

        return n1_generation_rows(self.grid, self.ptdf, self.shift, self.units, self.demand, self.normal, self.emergency,
                                  unit_field=lambda g, what: f"/units/{self.unit_ids[g]}/{what}")

    def cost(self, v: Any) -> Any:
        """The hour's cost (USD): no-load and start-up of the committed units plus their energy.

        The one definition of the objective: the MILP's (``v`` the model's variables, read by
        :func:`~psab.solvers.algebra.linear_objective`) and the evaluator's (``v`` the answer's
        arrays ``u``, ``p``).
        """
        return self.fixed_cost @ v.u + self.energy_cost @ v.p


# ---------------------------------------------------------------------------- reference


def build_model(case: Case, secure: bool = True) -> Any:
    """The commitment MILP; ``secure=False`` drops the N-1 rows (the merit-order benchmark used to
    judge whether a draw's security constraints matter)."""
    import pyomo.environ as pyo

    from psab.solvers.algebra import add_constraints, linear_objective
    from psab.solvers.network import pyomo_vars

    n = case.units.n
    m = pyo.ConcreteModel()
    pyomo_vars(m, u=(range(n), "binary"), p=(range(n), "nonneg"), lam=(range(n), "nonneg"),
               y=([(g, j) for g in range(n) for j in range(n) if j != g], "nonneg"))
    rows = case.rows()
    if not secure:
        rows = [r for r in rows if r.name in ("balance", "p_max", "p_min", "base_flow")]
    add_constraints(m, rows)
    m.cost = linear_objective(m, case.cost)
    return m


def solve_milp(case: Case, secure: bool = True) -> tuple[np.ndarray, np.ndarray, float]:
    from psab.solvers.core import solve as solve_model

    m = build_model(case, secure)
    result = solve_model(m)
    n = case.units.n
    u = np.array([round(m.u[g].value) for g in range(n)], dtype=float)
    p = np.array([float(m.p[g].value) if u[g] else 0.0 for g in range(n)])
    return u, p, result.objective


def solve(task: Task, backend: str) -> Reference:
    case = Case(task.public_inputs)
    u, p, obj = solve_milp(case)
    answer = {"units": {uid: {"committed": bool(u[g]), "p_mw": round(float(p[g]), 6) + 0.0}
                        for g, uid in enumerate(case.unit_ids)}}
    return Reference(answer=answer, objective=obj,
                     method="N-1 secure commitment MILP (McCormick-linearized governor sharing, PTDF flows), HiGHS to proven optimality",
                     evidence={"committed": [uid for g, uid in enumerate(case.unit_ids) if u[g]]})


# ---------------------------------------------------------------------------- evaluator


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    from psab.solvers.security import governor_response

    case = Case(task.public_inputs)
    u = np.array([1.0 if answer["units"][uid]["committed"] else 0.0 for uid in case.unit_ids])
    p = np.array([float(answer["units"][uid]["p_mw"]) for uid in case.unit_ids])
    resp = governor_response(case.units, u, p)
    lam = np.nan_to_num(resp.delta_f_hz, nan=0.0)
    violations = check(values(u=u, p=p, lam=lam, y=resp.y_hz), case.rows(), ctx.tol.slack)
    evidence = {
        "frequency_deviation_hz": {uid: (None if np.isnan(resp.delta_f_hz[g]) else round(float(resp.delta_f_hz[g]), 6))
                                   for g, uid in enumerate(case.unit_ids)},
        "committed": [uid for g, uid in enumerate(case.unit_ids) if u[g]],
    }
    return Assessment(violations=violations, objective=float(case.cost(values(u=u, p=p))), evidence=evidence)


# ---------------------------------------------------------------------------- held-out draws


#: Difficulty levels (FamilySpec.levels): 1 — the public case's kind (six units on a six-bus
#: DC network); 2 — a seventh bus behind a 2° phase-shifting transformer (tap 1.025) and a
#: weaker line, carrying a load and a large unit G7 whose loss must be covered through those
#: two branches' emergency ratings, and a small fast unit G8: eight units, 56 pickup pairs.
LEVELS = (1, 2)


def _level_base(inputs: dict[str, Any], level: int) -> dict[str, Any]:
    """The public case turned into a level's base case (deterministic; no draw)."""
    if level == 1:
        return inputs
    out = dict(inputs)
    out["buses"] = [*inputs["buses"], {"id": "B7"}]
    out["branches"] = [*inputs["branches"],
                       {"id": "T3-7", "from_bus": "B3", "to_bus": "B7", "x_pu": 0.06, "tap_ratio": 1.025,
                        "phase_shift_deg": 2.0, "rating_mw": 220.0, "emergency_rating_mw": 260.0},
                       {"id": "L6-7", "from_bus": "B6", "to_bus": "B7", "x_pu": 0.08, "tap_ratio": 1.0,
                        "phase_shift_deg": 0.0, "rating_mw": 150.0, "emergency_rating_mw": 180.0}]
    out["loads"] = [*inputs["loads"], {"id": "D7", "bus": "B7", "p_mw": 130.0}]
    out["units"] = [*inputs["units"],
                    {"id": "G7", "bus": "B7", "p_min_mw": 70.0, "p_max_mw": 280.0, "droop_pct": 5.0,
                     "marginal_cost_usd_per_mwh": 28.0, "no_load_cost_usd_per_h": 1100.0, "startup_cost_usd": 8000.0,
                     "initially_on": False},
                    {"id": "G8", "bus": "B1", "p_min_mw": 10.0, "p_max_mw": 60.0, "droop_pct": 4.0,
                     "marginal_cost_usd_per_mwh": 85.0, "no_load_cost_usd_per_h": 90.0, "startup_cost_usd": 300.0,
                     "initially_on": False}]
    return out


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw loads (±12 %), marginal, no-load and start-up costs (±20 %), normal ratings (±10 %,
    emergency ratings keeping their ratio), droops (4-6 %) and initial statuses (each flipped with
    probability 0.25), on the level's base case (:data:`LEVELS`); a draw whose demand the units
    could not carry after losing the largest one is redrawn at once. Level 1 makes exactly the
    calls on ``rng`` it made before levels existed."""
    base = _level_base(public.public_inputs, level)
    for _ in range(50):
        inputs = dict(base)
        inputs["loads"] = [{**ld, "p_mw": round(ld["p_mw"] * float(rng.uniform(0.88, 1.12)), 1)} for ld in base["loads"]]
        units = []
        for un in base["units"]:
            units.append({
                **un,
                "marginal_cost_usd_per_mwh": round(un["marginal_cost_usd_per_mwh"] * float(rng.uniform(0.8, 1.2)), 2),
                "no_load_cost_usd_per_h": round(un["no_load_cost_usd_per_h"] * float(rng.uniform(0.8, 1.2)), 1),
                "startup_cost_usd": round(un["startup_cost_usd"] * float(rng.uniform(0.8, 1.2)), 0),
                "droop_pct": float(rng.choice([4.0, 5.0, 6.0])),
                "initially_on": (not un["initially_on"]) if rng.uniform() < 0.25 else un["initially_on"],
            })
        inputs["units"] = units
        branches = []
        for b in base["branches"]:
            f = float(rng.uniform(0.9, 1.1))
            branches.append({**b, "rating_mw": float(round(b["rating_mw"] * f)),
                             "emergency_rating_mw": float(round(b["emergency_rating_mw"] * f))})
        inputs["branches"] = branches
        total = sum(ld["p_mw"] for ld in inputs["loads"])
        if total < sum(u["p_max_mw"] for u in units) - max(u["p_max_mw"] for u in units):
            return Generated(public_inputs=inputs)
    raise GenerationError("no n1_generation_commitment draw left enough capacity for the loss of the largest unit")


def naive_answer(task: Task) -> dict[str, Any]:
    """The merit-order commitment that ignores the N-1 requirement: the cost-optimal
    commitment and dispatch with balance, unit limits and base-case flows only (the same
    MILP without the loss-of-unit rows)."""
    case = Case(task.public_inputs)
    u, p, _ = solve_milp(case, secure=False)
    return {"units": {uid: {"committed": bool(u[g]), "p_mw": round(float(p[g]), 6) + 0.0}
                      for g, uid in enumerate(case.unit_ids)}}


EXPERT = {
    "en": {"statement": (
        "Commit and dispatch the units of public_inputs for one hour at minimum cost (no-load, start-up for units not "
        "initially on, and energy) so that the system is N-1 secure against the loss of any one committed generating "
        "unit, in the sense of the commitment stage of security-constrained unit commitment (arXiv:2001.00597): after "
        "the loss, the remaining committed units take up the lost output by their steady-state governor droop "
        "response (Kundur, Power System Stability and Control, 1994, §11.1.4, load sharing by parallel units; load "
        "damping neglected), each within its capacity, and the resulting DC power flows stay within the emergency "
        "ratings; base-case DC flows within the normal ratings. Answer committed and p_mw per unit. The case's own "
        "choices: droop in percent on each unit's own p_max_mw at the nominal frequency_hz; DC flows with the branch "
        "taps and phase shifts as given — a branch's susceptance 1/(x_pu·tap_ratio), as in MATPOWER's DC model, not "
        "1/(x_pu·tap_ratio²) — slack_bus the angle reference."
    )},
    "ru": {"statement": (
        "Выберите состав и загрузку агрегатов public_inputs на один час с минимальными затратами (холостой ход, пуск "
        "для агрегатов, не включённых изначально, и энергия) так, чтобы система удовлетворяла критерию N-1 при "
        "потере любого одного включённого генерирующего агрегата — в смысле этапа выбора состава в задаче SCUC "
        "(arXiv:2001.00597): после потери оставшиеся включённые агрегаты принимают выпавшую мощность за счёт "
        "первичного регулирования по статизму (Kundur, Power System Stability and Control, 1994, §11.1.4, "
        "распределение нагрузки между параллельно работающими агрегатами; регулирующий эффект нагрузки не "
        "учитывается), каждый в пределах своей мощности, а перетоки по модели постоянного тока не превышают "
        "аварийно допустимых; в исходном режиме — не выше длительно допустимых. Укажите committed и p_mw для каждого "
        "агрегата. Особенности случая: статизм в процентах от собственной p_max_mw агрегата при номинальной "
        "частоте frequency_hz; перетоки по постоянному току с заданными коэффициентами трансформации и фазовыми "
        "сдвигами ветвей — проводимость ветви 1/(x_pu·tap_ratio), как в модели постоянного тока MATPOWER, а не "
        "1/(x_pu·tap_ratio²) — slack_bus — опорный по углу узел."
    )},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged by psab's surrogate backend (DC power flow, PTDF, lossless): balance, unit limits, base-case "
               "flows and, for the loss of each committed unit, the governor pickups and post-loss flows are recomputed "
               "from your commitment and outputs within 0.01 MW, and the cost is compared with the N-1 secure MILP "
               "solved by HiGHS to a proven optimum."),
        "ru": ("Проверяется суррогатной моделью psab (расчёт по постоянному току, PTDF, без потерь): баланс, пределы "
               "агрегатов, перетоки исходного режима и для потери каждого включённого агрегата — подхват регуляторами "
               "и послеаварийные перетоки пересчитываются по вашим состояниям и мощностям с точностью 0,01 МВт, "
               "затраты сравниваются с MILP с учётом N-1, решённой в HiGHS до доказанного оптимума."),
    },
}


def accept(task: Task, reference: Reference) -> str | None:
    """Reject draws where the N-1 requirement changes nothing (the merit-order commitment is
    already secure): the family is about what security costs."""
    case = Case(task.public_inputs)
    _, _, unsecured = solve_milp(case, secure=False)
    if reference.objective is not None and reference.objective <= unsecured * (1 + 1e-4):
        return "the N-1 requirement does not bind on this draw"
    return None


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="microgrids_dispatch",
        scoring_kind="optimize",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "Security-constrained unit commitment with corrective transmission switching, arXiv:2001.00597",
                "locator": "arXiv:2001.00597, the commitment stage: units secure against any single generator outage with DC network limits",
                "note": "Single-period commitment; the loss of every unit is covered by the committed units within capacity and emergency ratings.",
                "confidence": "medium",
            },
            {
                "title": "Kundur, Power System Stability and Control, McGraw-Hill, 1994",
                "locator": "§11.1.4 load sharing by parallel units (eqs. 11.15-11.17, speed droop R, gain 1/R)",
                "note": "The post-outage redistribution rule: pickups in proportion to P_max/(R·f0), common steady-state frequency deviation.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "total output equals total load (±0.01 MW)",
            "a committed unit within [p_min_mw, p_max_mw]; an uncommitted unit at 0",
            "base-case DC flows within rating_mw",
            "for the loss of each committed unit: the other committed units pick up K_j·Δf each, within p_max_mw, and the post-loss DC flows are within emergency_rating_mw",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {"default": 1e-6},
                    "feasibility": {"default": SLACK_MW, "flow_mw": SLACK_MW},
                    "objective": {"relative": 1e-6, "absolute": OBJECTIVE_TIE_USD}},
        presentation=PRESENTATION,
        backends=("surrogate",),
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
        levels=LEVELS,
        naive_answer=naive_answer,
    )
)
