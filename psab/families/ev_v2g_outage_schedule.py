"""ev_v2g_outage_schedule — an EV fleet carrying a building's critical load through a planned
outage (optimize).

Given a day of hourly critical load and energy prices, a service (transformer) limit, a planned
outage window, a value of lost load and an EV fleet parked at the building (capacity, arrival and
departure hour, arrival SOC, required departure SOC, SOC floor, charge/discharge limits and
efficiencies), the agent schedules every EV's hourly charging and discharging power and states
the unserved critical load of each hour. Hard constraints: power limits (zero when not parked),
SOC floor and ceiling, departure SOC, no simultaneous charging and discharging, the outage
balance and, outside the outage, no export and the service limit. Objective: the cost of the
energy bought from the grid plus the value of lost load on unserved energy.

Rows are written once (:mod:`psab.solvers.v2g`): the reference is a MILP (binary mode per EV and
hour) with HiGHS; the evaluator checks the same rows at the submitted numbers and checks the
complementarity directly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task, Violation
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.generators.acceptance import Moves
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.solvers import algebra
from psab.solvers.dispatch import clean, formulation_for
from psab.solvers.v2g import Ev, OutageCase, build_outage_schedule, energy

FAMILY_ID = "ev_v2g_outage_schedule"

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    T = len(inputs["critical_load_kw"])
    ids = [ev["id"] for ev in inputs["evs"]]
    ev = s.obj({
        "id": s.enum(ids, "the EV's id (the EVs in the order of public_inputs.evs)", ru="идентификатор ЭМ (в порядке public_inputs.evs)"),
        "p_charge_kw": s.array(s.number("charging power drawn from the building bus, kW (>= 0)", minimum=0,
                                        ru="мощность заряда, потребляемая с шины здания, кВт (>= 0)"),
                               f"charging power in every hour ({T})", length=T, ru=f"мощность заряда в каждом часе ({T})"),
        "p_discharge_kw": s.array(s.number("discharging power delivered to the building bus, kW (>= 0)", minimum=0,
                                           ru="мощность разряда, отдаваемая на шину здания, кВт (>= 0)"),
                                  f"discharging power in every hour ({T})", length=T, ru=f"мощность разряда в каждом часе ({T})"),
    }, "one EV's hourly schedule", ru="почасовой график одного ЭМ")
    return s.submission({
        "evs": s.array(ev, "one schedule per EV, in the order of public_inputs.evs", length=len(ids),
                       ru="по графику на каждый ЭМ в порядке public_inputs.evs"),
        "unserved_kw": s.array(s.number("unserved critical load, kW (>= 0; 0 outside the outage)", minimum=0,
                                        ru="необеспеченная ответственная нагрузка, кВт (>= 0; 0 вне отключения)"),
                               f"unserved critical load in every hour ({T})", length=T,
                               ru=f"необеспеченная нагрузка в каждом часе ({T})"),
    }, "EV fleet schedule through the planned outage", ru="график парка ЭМ на время планового отключения")


_N = s.NUMBER
#: Most hours or EVs of a case: the cases schedule one day (24 h) and a handful of EVs.
MAX_ITEMS = 1000
INPUTS_SCHEMA: dict[str, Any] = ic.bounded({
    "type": "object",
    "required": ["step_minutes", "currency", "critical_load_kw", "price_per_kwh", "service_limit_kw", "outage",
                 "value_of_lost_load_per_kwh", "evs"],
    "properties": {
        "step_minutes": {"const": 60},
        "critical_load_kw": {"type": "array", "items": _N, "minItems": 2},
        "price_per_kwh": {"type": "array", "items": _N, "minItems": 2},
        "service_limit_kw": _N,
        "outage": {"type": "object", "required": ["start_hour", "end_hour"],
                   "properties": {"start_hour": {"type": "integer"}, "end_hour": {"type": "integer"}}},
        "value_of_lost_load_per_kwh": _N,
        "evs": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "required": ["id", "capacity_kwh", "arrival_hour", "departure_hour", "p_charge_max_kw", "p_discharge_max_kw",
                         "eta_charge", "eta_discharge"],
            "anyOf": [{"required": ["arrival_soc", "departure_soc", "soc_min"]},
                      {"required": ["arrival_soc_pct", "departure_soc_pct", "soc_min_pct"]}],
            "properties": {"id": s.ID, "arrival_hour": {"type": "integer"}, "departure_hour": {"type": "integer"},
                           "capacity_kwh": ic.POSITIVE, "p_charge_max_kw": ic.NONNEGATIVE,
                           "p_discharge_max_kw": ic.NONNEGATIVE, "eta_charge": ic.NUMBER, "eta_discharge": ic.NUMBER,
                           **{k: ic.NUMBER for k in ("arrival_soc", "departure_soc", "soc_min", "arrival_soc_pct",
                                                     "departure_soc_pct", "soc_min_pct")}},
        }},
    },
}, MAX_ITEMS)

CONVENTIONS_EN = (
    "Conventions: hour t covers [t, t+1) h, Δt = 1 h; powers are constant within the hour and measured at the "
    "building's bus. The outage covers hours start_hour ≤ t < end_hour (end exclusive): the grid is then "
    "unavailable and Σ_e P_dis − Σ_e P_ch + unserved = critical load exactly (EVs may also charge from one another "
    "through the bus). Outside the outage the grid supplies import = load + Σ P_ch − Σ P_dis, which must lie in "
    "[0, service_limit_kw] (no export) and unserved must be 0. EV e is parked for hours arrival_hour ≤ t < "
    "departure_hour and its powers are 0 outside them. Its energy at the end of hour t is E = arrival SOC·capacity + "
    "Σ_{arrival ≤ τ ≤ t} (eta_charge·P_ch − P_dis/eta_discharge)·Δt, must stay within [soc_min·capacity, capacity] "
    "at the end of every parked hour and be at least departure_soc·capacity at the end of hour departure_hour − 1. "
    "An EV never charges and discharges in the same hour (one of the two is 0, within 1e-3 kW). SOCs given in % "
    "(*_pct) are percentages of capacity. Cost = Σ_{t outside the outage} price_t·import_t·Δt + "
    "value_of_lost_load_per_kwh·Σ_t unserved_t·Δt."
)
CONVENTIONS_RU = (
    "Соглашения: час t — интервал [t, t+1) ч, Δt = 1 ч; мощности постоянны в пределах часа и отнесены к шине "
    "здания. Отключение охватывает часы start_hour ≤ t < end_hour (конец не включается): сеть недоступна, и Σ_e "
    "P_разр − Σ_e P_зар + необеспеченная = ответственная нагрузка точно (ЭМ могут заряжаться друг от друга через "
    "шину). Вне отключения из сети потребляется import = нагрузка + Σ P_зар − Σ P_разр, который должен лежать в "
    "[0, service_limit_kw] (без выдачи в сеть), а необеспеченная нагрузка равна 0. ЭМ e стоит на парковке в часы "
    "arrival_hour ≤ t < departure_hour, вне их его мощности равны 0. Энергия в конце часа t: E = SOC прибытия·ёмкость "
    "+ Σ_{arrival ≤ τ ≤ t} (eta_charge·P_зар − P_разр/eta_discharge)·Δt; она должна оставаться в [soc_min·ёмкость, "
    "ёмкость] в конце каждого часа стоянки и быть не меньше departure_soc·ёмкость в конце часа departure_hour − 1. "
    "ЭМ не заряжается и не разряжается в одном и том же часе (одна из мощностей равна 0 с точностью 1e-3 кВт). SOC, "
    "заданные в % (*_pct), — проценты ёмкости. Затраты = Σ_{t вне отключения} цена_t·import_t·Δt + "
    "value_of_lost_load_per_kwh·Σ_t необеспеченная_t·Δt."
)

PRESENTATION = {
    "en": {
        "title": "EV fleet schedule through a planned outage (vehicle-to-building)",
        "statement": (
            "A building's critical load must ride through a planned grid outage on the energy of the EV fleet parked "
            "at it. public_inputs give the hourly critical load and energy price, the service limit of the grid "
            "connection, the outage window, the value of lost load and every EV (capacity, parking window, arrival "
            "SOC, required departure SOC, SOC floor, charging and discharging power limits and efficiencies). Schedule "
            "every EV's charging and discharging power in every hour and state the unserved critical load in every hour, "
            "at minimum cost. " + CONVENTIONS_EN
        ),
        "answer_notes": (
            "Powers in kW, non-negative. Balances and limits are checked within 1e-3 kW, energies within 1e-3 kWh. The "
            "score is 1 at the optimal cost and falls in proportion to the extra cost (relative to max(|optimal cost|, "
            "10 currency units))."
        ),
    },
    "ru": {
        "title": "График парка электромобилей на время планового отключения (V2B)",
        "statement": (
            "Ответственная нагрузка здания должна пережить плановое отключение сети за счёт энергии парка "
            "электромобилей (ЭМ), стоящих у здания. В public_inputs заданы почасовые ответственная нагрузка и цена "
            "энергии, предельная мощность присоединения, окно отключения, стоимость недоотпуска и параметры каждого ЭМ "
            "(ёмкость, время стоянки, SOC прибытия, требуемый SOC отъезда, минимальный SOC, пределы мощности и КПД "
            "заряда и разряда). Составьте почасовой график заряда и разряда каждого ЭМ и укажите необеспеченную "
            "ответственную нагрузку каждого часа с минимальными затратами. " + CONVENTIONS_RU
        ),
        "answer_notes": (
            "Мощности в кВт, неотрицательные. Балансы и ограничения проверяются с допуском 1e-3 кВт, энергия — 1e-3 "
            "кВт·ч. Оценка равна 1 при оптимальных затратах и уменьшается пропорционально перерасходу (относительно "
            "max(|оптимальные затраты|, 10 единиц валюты))."
        ),
        "hard_constraints": (
            "0 ≤ P_зар ≤ p_charge_max_kw и 0 ≤ P_разр ≤ p_discharge_max_kw в часы стоянки, 0 вне их (±1e-3 кВт)",
            "ЭМ не заряжается и не разряжается в одном часе (min(P_зар, P_разр) ≤ 1e-3 кВт)",
            "энергия каждого ЭМ в конце каждого часа стоянки в [soc_min·ёмкость, ёмкость] (±1e-3 кВт·ч)",
            "энергия каждого ЭМ при отъезде не меньше departure_soc·ёмкость (±1e-3 кВт·ч)",
            "в часы отключения Σ P_разр − Σ P_зар + необеспеченная = нагрузка; 0 ≤ необеспеченная ≤ нагрузка (±1e-3 кВт)",
            "вне отключения 0 ≤ нагрузка + Σ P_зар − Σ P_разр ≤ service_limit_kw и необеспеченная = 0 (±1e-3 кВт)",
        ),
    },
}

HARD_CONSTRAINTS = (
    "0 ≤ P_ch ≤ p_charge_max_kw and 0 ≤ P_dis ≤ p_discharge_max_kw in parked hours, 0 outside them (±1e-3 kW)",
    "an EV never charges and discharges in the same hour (min(P_ch, P_dis) ≤ 1e-3 kW)",
    "every EV's energy at the end of every parked hour within [soc_min·capacity, capacity] (±1e-3 kWh)",
    "every EV's energy at departure at least departure_soc·capacity (±1e-3 kWh)",
    "in outage hours Σ P_dis − Σ P_ch + unserved = load; 0 ≤ unserved ≤ load (±1e-3 kW)",
    "outside the outage 0 ≤ load + Σ P_ch − Σ P_dis ≤ service_limit_kw and unserved = 0 (±1e-3 kW)",
)

EXPERT = {
    "en": {"statement": (
        "Schedule the EV fleet in public_inputs (vehicle-to-building) so that the building's critical load rides "
        "through the planned outage at minimum cost of grid energy plus lost load (the case's value of lost load): "
        "hourly charge/discharge per EV and the unserved load per hour. Case choices: the outage window excludes its "
        "end hour; no export and the service limit outside it; EV energy bookkept at the bus with the charge and "
        "discharge efficiencies, within the SOC floor and capacity while parked, the departure SOC met at departure, "
        "i.e. at the end of hour departure_hour − 1, its last parked hour (the EV leaves at the start of "
        "departure_hour); "
        "no simultaneous charge and discharge; SOCs in % where so labelled. kW, kWh, hourly steps."
    )},
    "ru": {"statement": (
        "Составьте график парка ЭМ из public_inputs (режим «автомобиль — здание»), чтобы ответственная нагрузка "
        "здания пережила плановое отключение при минимуме затрат на энергию из сети плюс стоимость недоотпуска "
        "(стоимость недоотпуска — из случая): почасовые заряд и разряд каждого ЭМ и необеспеченная нагрузка каждого "
        "часа. Выбор случая: окно отключения не включает конечный час; вне его — без выдачи в сеть и в пределах "
        "мощности присоединения; энергия ЭМ учитывается на шине с КПД заряда и разряда, в пределах минимального SOC "
        "и ёмкости во время стоянки, SOC отъезда выполняется при отъезде, то есть в конце часа departure_hour − 1, "
        "последнего часа стоянки (ЭМ уезжает в начале часа departure_hour); без одновременного заряда и разряда; SOC в %, "
        "где так указано. кВт, кВт·ч, часовые шаги."
    )},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged by psab's rows (psab.solvers.v2g, the same rows the reference MILP is built from): every limit, "
              "energy, departure, balance and service-limit row within 1e-3 kW / kWh, complementarity checked directly; the "
              "cost recomputed from the answer and compared with the MILP optimum.",
        "ru": "Проверяется строками psab (psab.solvers.v2g — те же строки, из которых строится эталонная MILP-задача): "
              "все пределы, энергия, отъезд, баланс и предел присоединения — с допуском 1e-3 кВт / кВт·ч, "
              "взаимоисключение заряда и разряда — напрямую; затраты пересчитываются по ответу и сравниваются с оптимумом MILP.",
    },
}

TOLERANCES = {
    "relative": 1e-3,
    "absolute_floors": {"default": 1e-3},
    "feasibility": {"power_kw": 1e-3, "energy_kwh": 1e-3, "default": 1e-3},
    "objective": {"relative": 1e-6, "absolute": 1e-4},
}

# ---------------------------------------------------------------------------- physics


def _bad(field: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"{FAMILY_ID}: public_inputs{field} {why}")


def case_of(inputs: dict[str, Any]) -> OutageCase:
    """The case after the physical sanity checks (each failure names its field)."""
    load = np.asarray(inputs["critical_load_kw"], float)
    price = np.asarray(inputs["price_per_kwh"], float)
    T = len(load)
    if len(price) != T:
        raise _bad("/price_per_kwh", f"must have one price per hour of critical_load_kw ({T})")
    if np.any(load < 0):
        raise _bad(f"/critical_load_kw/{int(np.flatnonzero(load < 0)[0])}", "must be non-negative")
    if not float(inputs["service_limit_kw"]) > 0:
        raise _bad("/service_limit_kw", "must be positive")
    if not float(inputs["value_of_lost_load_per_kwh"]) >= 0:
        raise _bad("/value_of_lost_load_per_kwh", "must be non-negative")
    o = inputs["outage"]
    start, end = int(o["start_hour"]), int(o["end_hour"])
    if not 0 <= start < T:
        raise _bad("/outage/start_hour", f"must lie in [0, {T - 1}]")
    if not end > start:
        raise _bad("/outage/end_hour", "must be after start_hour: the outage window ends before it starts")
    if end > T:
        raise _bad("/outage/end_hour", f"must be at most {T}")
    grid = [t for t in range(T) if not start <= t < end]
    if any(load[t] > float(inputs["service_limit_kw"]) for t in grid):
        raise _bad("/service_limit_kw", "is below the critical load in an hour outside the outage")
    evs = []
    seen = set()
    for e, d in enumerate(inputs["evs"]):
        p = f"/evs/{e}"
        if d["id"] in seen:
            raise _bad(f"{p}/id", "repeats another EV's id")
        seen.add(d["id"])
        if not float(d["capacity_kwh"]) > 0:
            raise _bad(f"{p}/capacity_kwh", "must be positive")
        for key in ("p_charge_max_kw", "p_discharge_max_kw"):
            if not float(d[key]) >= 0:
                raise _bad(f"{p}/{key}", "must be non-negative (a negative rating)")
        for key in ("eta_charge", "eta_discharge"):
            if not 0 < float(d[key]) <= 1:
                raise _bad(f"{p}/{key}", "must lie in (0, 1]")
        pct = "arrival_soc_pct" in d
        socs = {}
        for key in ("arrival_soc", "departure_soc", "soc_min"):
            name = key + "_pct" if pct else key
            val = float(d[name]) / 100.0 if pct else float(d[name])
            if not 0.0 <= val <= 1.0:
                raise _bad(f"{p}/{name}", "must lie in [0, 1] (0-100 %)")
            socs[key] = val
        if socs["arrival_soc"] < socs["soc_min"]:
            raise _bad(f"{p}/{'arrival_soc_pct' if pct else 'arrival_soc'}", "is below the EV's SOC floor")
        a, b = int(d["arrival_hour"]), int(d["departure_hour"])
        if not 0 <= a < b <= T:
            raise _bad(f"{p}/departure_hour", f"must be after arrival_hour and at most {T}")
        evs.append(Ev(str(d["id"]), float(d["capacity_kwh"]), a, b, socs["arrival_soc"], socs["departure_soc"], socs["soc_min"],
                      float(d["p_charge_max_kw"]), float(d["p_discharge_max_kw"]), float(d["eta_charge"]), float(d["eta_discharge"])))
    return OutageCase(T, 1.0, load, price, float(inputs["service_limit_kw"]), start, end,
                      float(inputs["value_of_lost_load_per_kwh"]), tuple(evs))


def answer_values(answer: dict[str, Any]) -> Any:
    ch = np.array([ev["p_charge_kw"] for ev in answer["evs"]], float)
    dis = np.array([ev["p_discharge_kw"] for ev in answer["evs"]], float)
    return algebra.values(ch=ch, dis=dis, shed=np.asarray(answer["unserved_kw"], float))


def solve(task: Task, backend: str) -> Reference:
    from psab.solvers.dispatch import solve_formulation

    case = case_of(task.public_inputs)
    solved = solve_formulation(build_outage_schedule(case))
    ch, dis = solved.values["ch"], solved.values["dis"]
    # the MILP's mode binaries leave ch and dis exactly complementary; clear solver dust
    answer = {
        "evs": [{"id": ev.id, "p_charge_kw": [clean(x) if x > 1e-9 else 0.0 for x in ch[e]],
                 "p_discharge_kw": [clean(x) if x > 1e-9 else 0.0 for x in dis[e]]} for e, ev in enumerate(case.evs)],
        "unserved_kw": [clean(x) if x > 1e-9 else 0.0 for x in solved.values["shed"]],
    }
    return Reference(answer=answer, objective=solved.objective,
                     evidence={"milp_variables": solved.n_variables, "milp_rows": solved.n_constraints,
                               "binaries": solved.n_integer,
                               "unserved_kwh": float(solved.values["shed"].sum())},
                     method="MILP (Pyomo + HiGHS): EV limits, energy window, departure SOC, outage balance, service limit, mode binaries")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    case = case_of(task.public_inputs)
    f = formulation_for(task, evaluated_formulation)
    checks = ctx.checks()
    for e, (ev, got) in enumerate(zip(case.evs, answer["evs"], strict=True)):
        if got["id"] != ev.id:
            checks.violate(f"/evs/{e}/id", "the EVs must come in the order of public_inputs.evs", ev.id, got["id"])
    v = answer_values(answer)
    violations = f.check(v, ctx.tol.slack)
    slack = ctx.tol.slack("power_kw")
    both = np.minimum(v.ch, v.dis)
    for e, t in zip(*np.nonzero(both > slack), strict=True):
        violations.append(Violation(f"/evs/{int(e)}/p_discharge_kw/{int(t)}",
                                            "an EV must not charge and discharge in the same hour", f"<= {slack:g}",
                                            float(both[e, t])))
    soc = [[round(float(energy(v, case, e, t)) / ev.capacity_kwh, 6) for t in range(ev.arrival_hour, ev.departure_hour)]
           for e, ev in enumerate(case.evs)]
    return Assessment(violations=checks.violations + violations, objective=f.objective(v),
                      evidence={"soc_while_parked": soc, "unserved_kwh": round(float(v.shed.sum()), 6)})


# ---------------------------------------------------------------------------- held-out draws

#: A municipal building's critical load (emergency lighting, IT, HVAC of a shelter), kW per hour.
_LOAD_SHAPE = np.array([0.55, 0.52, 0.5, 0.5, 0.52, 0.6, 0.72, 0.85, 0.95, 1.0, 1.0, 0.98,
                        0.97, 0.98, 1.0, 0.98, 0.95, 0.9, 0.85, 0.78, 0.72, 0.66, 0.6, 0.57])
#: A time-of-use tariff (off-peak night, shoulder, evening peak), per kWh.
_TOU = np.array([0.09] * 7 + [0.16] * 9 + [0.32] * 5 + [0.16] * 2 + [0.09])


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the building load (peak 25-70 kW), the tariff level, the outage (3-6 hours
    starting between 09:00 and 15:00), the value of lost load and a fleet of 4 (level 1) or 9
    (level 2) EVs — depot vans and staff cars with arrival/departure around the working day,
    60-90 % arrival SOC, a departure SOC they can reach — sized so that the fleet can carry a
    large part but not always all of the outage.

    Level 2: more EVs, SOCs given in percent, and a tight service limit (the recharge after the
    outage competes for the connection)."""
    peak = float(rng.uniform(25.0, 70.0))
    load = np.round(peak * _LOAD_SHAPE * rng.uniform(0.95, 1.05, size=24), 1)
    price = np.round(_TOU * rng.uniform(0.8, 1.3), 3)
    start = int(rng.integers(9, 16))
    end = start + int(rng.integers(3, 7))
    n_ev = 4 if level == 1 else 9
    evs = []
    for e in range(n_ev):
        van = bool(rng.uniform() < 0.5)
        cap = float(rng.choice([60.0, 75.0, 100.0])) if van else float(rng.choice([40.0, 58.0, 77.0]))
        arr = int(rng.integers(5, 9))
        dep = int(min(24, max(end + 1, int(rng.integers(17, 24)))))
        arr_soc = round(float(rng.uniform(0.6, 0.9)), 2)
        dep_soc = round(float(rng.uniform(0.5, 0.85)), 2)
        soc_min = float(rng.choice([0.1, 0.15, 0.2]))
        p_ch = float(rng.choice([7.4, 11.0, 22.0]))
        p_dis = float(min(p_ch, rng.choice([7.4, 11.0, 15.0])))
        d: dict[str, Any] = {"id": f"{'VAN' if van else 'CAR'}{e + 1}", "capacity_kwh": cap, "arrival_hour": arr,
                             "departure_hour": dep, "p_charge_max_kw": p_ch, "p_discharge_max_kw": p_dis,
                             "eta_charge": round(float(rng.uniform(0.9, 0.95)), 3),
                             "eta_discharge": round(float(rng.uniform(0.9, 0.95)), 3)}
        if level >= 2:
            d.update(arrival_soc_pct=round(arr_soc * 100), departure_soc_pct=round(dep_soc * 100), soc_min_pct=round(soc_min * 100))
        else:
            d.update(arrival_soc=arr_soc, departure_soc=dep_soc, soc_min=soc_min)
        evs.append(d)
    margin = (1.25, 1.6) if level == 1 else (1.08, 1.25)
    inputs = {"step_minutes": 60, "currency": "USD", "critical_load_kw": load.tolist(), "price_per_kwh": price.tolist(),
              "service_limit_kw": round(float(load.max()) * float(rng.uniform(*margin)), 1),
              "outage": {"start_hour": start, "end_hour": end},
              "value_of_lost_load_per_kwh": round(float(rng.uniform(2.0, 10.0)), 2), "evs": evs}
    return Generated(public_inputs=inputs)


def accept(task: Task, reference: Reference) -> str | None:
    """Reject a trivial day: the fleet not discharging at all in the outage."""
    dis = sum(sum(ev["p_discharge_kw"]) for ev in reference.answer["evs"])
    if dis < 1.0:
        return "the optimal schedule does not use vehicle-to-building at all"
    return None


def evaluated_formulation(inputs: dict[str, Any]) -> Any:
    """The rows the evaluator checks: the MILP without its mode binaries (it checks the
    exclusivity of charging and discharging directly)."""
    return build_outage_schedule(case_of(inputs), binaries=False)


def neighbourhood(task: Task, answer: dict[str, Any]) -> Moves:
    """Moves that keep every balance: for each EV, δ kW of charging moved from one non-outage
    hour to another where it is parked (its energy at departure is unchanged, the hours between
    shift by η_c·δ). An optimal schedule admits no such move that lowers the cost.

    Given as :class:`~psab.generators.acceptance.Moves` with the evaluator's rows and cost in
    matrix form, so acceptance evaluates in full only the moves that might win."""
    case = case_of(task.public_inputs)
    out = []
    for e, ev in enumerate(case.evs):
        ch = answer["evs"][e]["p_charge_kw"]
        dis = answer["evs"][e]["p_discharge_kw"]
        hours = [t for t in range(ev.arrival_hour, ev.departure_hour) if not case.in_outage(t)]
        donors = [t for t in hours if ch[t] > 0.05][:3]
        for a in donors:
            for b in hours:
                if b == a or dis[b] > 0 or ch[b] + 0.05 > ev.p_charge_max_kw:
                    continue
                out.append((f"{ev.id}: 0.05 kW of charging from hour {a} to hour {b}",
                            [(("evs", e, "p_charge_kw", a), -0.05), (("evs", e, "p_charge_kw", b), 0.05)]))
    return Moves(answer, out[:60], lambda: _screen(task, answer))


def _screen(task: Task, answer: dict[str, Any]) -> Any:
    """The evaluator's rows and cost (:func:`evaluate`: ``check`` of the formulation without
    binaries and its objective; the order of ids and the exclusivity only make it stricter)
    at ``answer``, over ``/evs/e/<field>/t`` and ``/unserved_kw/t``."""
    from psab.evaluators.tolerance import Tolerance

    f = formulation_for(task, evaluated_formulation)

    def path(p: Any) -> Any:
        if len(p) == 4 and p[0] == "evs":
            return p[2], (p[1], p[3])
        return ("unserved_kw", p[1]) if len(p) == 2 and p[0] == "unserved_kw" else None

    fields = {"p_charge_kw": "ch", "p_discharge_kw": "dis", "unserved_kw": "shed"}
    return f.screen(answer_values(answer), Tolerance.from_task(task.tolerances).slack, f.column_of(fields, path))


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: every EV charges at full power from arrival until it reaches its
    departure SOC and never discharges — the outage load goes unserved."""
    case = case_of(task.public_inputs)
    evs = []
    for ev in case.evs:
        ch = [0.0] * case.hours
        e = ev.arrival_soc * ev.capacity_kwh
        for t in range(ev.arrival_hour, ev.departure_hour):
            if case.in_outage(t):
                continue
            need = max(0.0, ev.departure_soc * ev.capacity_kwh - e)
            p = min(ev.p_charge_max_kw, need / ev.eta_charge)
            ch[t] = round(p, 6)
            e += p * ev.eta_charge
        evs.append({"id": ev.id, "p_charge_kw": ch, "p_discharge_kw": [0.0] * case.hours})
    shed = [float(case.load_kw[t]) if case.in_outage(t) else 0.0 for t in range(case.hours)]
    return {"evs": evs, "unserved_kw": shed}


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="der_storage",
        scoring_kind="optimize",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "E. Sortomme, M. A. El-Sharkawi, Optimal scheduling of vehicle-to-grid energy and ancillary services, IEEE Trans. Smart Grid 3(1), 2012, pp. 351-359",
                "locator": "§II (EV energy model: charge/discharge limits and efficiencies, parking windows, departure energy)",
                "note": "The per-EV energy model and its limits; the outage balance with a value of lost load is the case's vehicle-to-building setting.",
                "confidence": "medium",
            },
            {
                "title": "EVs for power quality and security (vehicle-to-building outage support), the catalogue's source",
                "locator": "docs/families.md, area 4: ev_v2g_outage_schedule",
                "note": "The planned-outage ride-through with the parked fleet; the no-simultaneous-charge-and-discharge rule enforced with mode binaries.",
                "confidence": "medium",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=HARD_CONSTRAINTS,
        metrics=(),
        tolerances=TOLERANCES,
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        accept=accept,
        objective_sense="minimize",
        objective_unit="USD",
        objective_scale_floor=10.0,
        inputs_schema=INPUTS_SCHEMA,
        neighbourhood=neighbourhood,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
    )
)
