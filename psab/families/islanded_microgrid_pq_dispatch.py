"""islanded_microgrid_pq_dispatch — active and reactive dispatch of an islanded microgrid (optimize).

An islanded microgrid (no grid connection) supplies a load with active and reactive power
from diesel gensets that must keep running (minimum stable load), a PV inverter (curtailable,
with reactive capability) and a battery inverter, over a day of hourly steps. Every source has
a capability circle ``P² + Q² ≤ S²`` besides its P and Q limits. The agent returns P and Q of
every source (charge, discharge, Q and stored energy for the battery) in every step. The
evaluator checks the P and Q balances, the limits, the battery's energy recursion and the
EXACT circles, and recomputes the fuel and cycling cost.

The reference is an LP in which each circle is replaced by the inscribed regular polygon of
``POLYGON_SIDES`` sides (:func:`psab.surrogates.dispatch.inscribed_polygon`): every point it
admits is inside the circle, so the reference is feasible, but a point between the polygon and
the circle is also feasible and can be cheaper. Such an answer scores 1 and the kernel flags
``beats_reference`` in the evidence; the held-out generator's neighbourhood therefore moves only
within the polygon (see :func:`neighbourhood`).

Sources: España et al., microgrid dispatch (the catalogue's source); capability limits of
synchronous generators (Kundur, *Power System Stability and Control*, 1994, §5.4) and of
inverters (IEEE Std 1547-2018, §5.2: reactive capability within the apparent-power rating).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from psab.contract import Task
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.generators.acceptance import Moves
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.solvers import algebra
from psab.solvers.dispatch import (
    Formulation,
    IslandData,
    IslandUnit,
    Storage,
    build_islanded_pq_dispatch,
    clean,
    formulation_for,
    step_minutes_to_hours,
)
from psab.surrogates.dispatch import inscribed_polygon, polygon_slack, soc_trajectory

FAMILY_ID = "islanded_microgrid_pq_dispatch"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 48.
MAX_INPUT_ITEMS = 1000

#: sides of the inscribed polygon the reference LP uses for every capability circle
POLYGON_SIDES = 16

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    T = len(inputs["load_p_mw"])
    source = s.obj({"p_mw": s.number("active power output, MW", ru="активная мощность, МВт"),
                    "q_mvar": s.number("reactive power output, Mvar (+ = supplied)",
                                       ru="реактивная мощность, Мвар (+ = выдача)")})
    bat = inputs["battery"]
    battery = s.obj({
        "p_charge_mw": s.number("charging power drawn from the bus, MW (>= 0)", ru="мощность заряда, потребляемая из сети, МВт (>= 0)"),
        "p_discharge_mw": s.number("discharging power delivered to the bus, MW (>= 0)", ru="мощность разряда, отдаваемая в сеть, МВт (>= 0)"),
        "q_mvar": s.number("reactive power output of the battery inverter, Mvar (+ = supplied)",
                           ru="реактивная мощность инвертора батареи, Мвар (+ = выдача)"),
        "soc_mwh": s.number("energy stored at the END of the step, MWh", ru="запас энергии на КОНЕЦ шага, МВт·ч"),
    })
    props = {u["id"]: source for u in inputs["units"]}
    props[bat["id"]] = battery
    step = s.obj(props, "the set-points of every source in one step, keyed by source id",
                 ru="уставки всех источников на одном шаге, по идентификатору источника")
    return s.submission({"schedule": s.array(step, f"one object per step, in time order ({T} steps)", length=T,
                                             ru=f"по одному объекту на шаг, в порядке времени (шагов: {T})")},
                        "islanded microgrid P/Q dispatch", ru="распределение P/Q в изолированной микросети")


INPUTS_SCHEMA = s.obj({
    "step_minutes": s.POSITIVE, "currency": {"type": "string"},
    "load_p_mw": ic.series_schema(nonnegative=True), "load_q_mvar": ic.series_schema(),
    "units": s.array(s.obj({"id": s.ID, "kind": s.ID, "p_min_mw": s.NONNEGATIVE, "p_max_mw": s.NONNEGATIVE,
                            "p_available_mw": ic.series_schema(nonnegative=True), "q_min_mvar": s.NUMBER, "q_max_mvar": s.NUMBER,
                            "s_max_mva": s.POSITIVE, "cost_per_mwh": s.NUMBER},
                           optional=("p_min_mw", "p_max_mw", "p_available_mw")), "units", min_items=1),
    "battery": ic.storage_schema(s_max_mva=s.POSITIVE, q_max_mvar=s.NONNEGATIVE),
})

def input_problems(inputs: dict[str, Any]) -> list[str]:
    """Series one value per step; a PV unit with its availability per step, any other unit
    with p_min_mw ≤ p_max_mw; q_min_mvar ≤ q_max_mvar; distinct ids; battery limits ordered."""
    p = ic.Problems()
    T = len(inputs["load_p_mw"])
    p.length("/load_q_mvar", inputs["load_q_mvar"], T, "step of load_p_mw")
    p.unique_ids("/units", [*inputs["units"], inputs["battery"]])
    for g, u in enumerate(inputs["units"]):
        ptr = ic.pointer("units", g)
        if u["kind"] == "pv":
            if "p_available_mw" not in u:
                p.add(ptr + "/p_available_mw", "a PV unit needs its available power per step")
            else:
                p.length(ptr + "/p_available_mw", u["p_available_mw"], T, "step of load_p_mw")
                if any(x < 0 for x in u["p_available_mw"]):
                    p.add(ptr + "/p_available_mw", "available power must be non-negative")
        elif "p_min_mw" not in u or "p_max_mw" not in u:
            p.add(ptr + ("/p_min_mw" if "p_min_mw" not in u else "/p_max_mw"), "a dispatchable unit needs p_min_mw and p_max_mw")
        else:
            p.ordered(ptr + "/p_max_mw", u["p_min_mw"], u["p_max_mw"], "p_min_mw")
        p.ordered(ptr + "/q_max_mvar", u["q_min_mvar"], u["q_max_mvar"], "q_min_mvar")
    ic.storage_problems(p, "/battery", inputs["battery"])
    return p

PRESENTATION = {
    "en": {
        "title": "Active and reactive dispatch of an islanded microgrid",
        "statement": (
            "Schedule an islanded microgrid (no grid connection) for the day at minimum cost, in active AND reactive "
            "power. public_inputs give the load's active and reactive power per step (load_p_mw, load_q_mvar); the "
            "sources in units — diesel gensets that stay on all day (p_min_mw…p_max_mw) and PV inverters whose active "
            "power may be anywhere from 0 to the available PV of the step (p_available_mw) — each with reactive limits "
            "q_min_mvar…q_max_mvar, an apparent-power rating s_max_mva and an energy cost cost_per_mwh; and a battery "
            "with charging/discharging power limits, stored-energy window, efficiencies, initial and minimum final "
            "energy, cycling cost per MWh discharged, and an inverter rating s_max_mva with |Q| ≤ q_max_mvar. Every step: "
            "Σ P of the sources + P_discharge − P_charge = load_p_mw and Σ Q of the sources + Q_battery = load_q_mvar; "
            "every source must stay inside its capability circle P² + Q² ≤ s_max_mva² (for the battery P = P_discharge − "
            "P_charge); the stored energy follows E_t = E_(t−1) + eta_charge·P_charge·Δt − P_discharge·Δt/eta_discharge "
            "from soc_initial_mwh (Δt = step_minutes/60 h) and stays in its window. Cost = Σ_t Δt·(Σ cost_per_mwh·P + "
            "cycling cost·P_discharge) — cycling on discharged energy only, charging carries none. Conventions: powers in MW and Mvar, ratings in MVA, energies in MWh, costs per "
            "MWh in currency; the reactive limits q_min_mvar…q_max_mvar hold in every step whatever the active power, "
            "so a PV inverter may supply or absorb reactive power at night (P = 0, Q within its limits and rating); "
            "the battery inverter likewise, whether charging, discharging or idle. Only the exact circle is a "
            "constraint: the reference optimum is computed with each circle replaced by the regular 16-gon INSCRIBED "
            "in it, oriented with a vertex at angle π/16 from the +P axis (its sides are the half-planes cos θ_k·P + "
            "sin θ_k·Q ≤ cos(π/16)·s_max_mva with θ_k = k·π/8, k = 0…15, so a flat side faces the +P axis); a point "
            "between that polygon and the circle is feasible."
        ),
        "answer_notes": (
            "Balances and limits are checked within 1e-4 MW / Mvar, the circles within 1e-4 MVA, the energy recursion "
            "within 1e-4 MWh. The reference optimum replaces each circle by the inscribed 16-gon described above; an "
            "answer that uses the exact circle and costs less scores 1 (never more) and is flagged: the result's "
            "evidence carries beats_reference = true and points_outside_the_inscribed_polygon counts the operating "
            "points it places between polygon and circle — a mark for review, not a penalty. Otherwise the score falls "
            "in proportion to the extra cost (relative to max(|optimal cost|, 100 currency units))."
        ),
    },
    "ru": {
        "title": "Распределение активной и реактивной мощности в изолированной микросети",
        "statement": (
            "Составьте суточный график изолированной микросети (без связи с внешней сетью) по активной И реактивной "
            "мощности с минимальными затратами. В public_inputs заданы активная и реактивная мощность нагрузки на каждом "
            "шаге (load_p_mw, load_q_mvar); источники в units — дизель-генераторы, работающие весь день (p_min_mw…"
            "p_max_mw), и инверторы СЭС, активная мощность которых может быть любой от 0 до доступной на шаге "
            "(p_available_mw), — каждый с пределами реактивной мощности q_min_mvar…q_max_mvar, номинальной полной "
            "мощностью s_max_mva и стоимостью энергии cost_per_mwh; аккумуляторная батарея с ограничениями мощности "
            "заряда и разряда, диапазоном запаса энергии, КПД, начальным и минимальным конечным запасом, стоимостью "
            "циклирования за МВт·ч отданной энергии и инвертором с полной мощностью s_max_mva и |Q| ≤ q_max_mvar. На "
            "каждом шаге: Σ P источников + P_разряд − P_заряд = load_p_mw и Σ Q источников + Q_батареи = load_q_mvar; "
            "каждый источник должен оставаться внутри своей PQ-диаграммы P² + Q² ≤ s_max_mva² (для батареи P = "
            "P_разряд − P_заряд); запас энергии меняется по закону E_t = E_(t−1) + eta_charge·P_заряд·Δt − "
            "P_разряд·Δt/eta_discharge от soc_initial_mwh (Δt = step_minutes/60 ч) и не выходит из допустимого "
            "диапазона. Затраты = Σ_t Δt·(Σ cost_per_mwh·P + стоимость циклирования·P_разряд) — циклирование только на "
            "отданную энергию, заряд его не несёт. Соглашения: мощности в "
            "МВт и Мвар, номинальные мощности в МВ·А, энергия в МВт·ч, затраты за МВт·ч в валюте currency; пределы "
            "q_min_mvar…q_max_mvar действуют на каждом шаге независимо от активной мощности, поэтому инвертор СЭС может "
            "выдавать или потреблять реактивную мощность и ночью (P = 0, Q в своих пределах и в пределах номинальной "
            "мощности); так же и инвертор батареи — при заряде, разряде и в простое. Ограничением является только "
            "точная окружность: эталонный оптимум вычисляется с заменой каждой окружности ВПИСАННЫМ в неё правильным "
            "16-угольником, повёрнутым так, что его вершина лежит под углом π/16 к оси +P (стороны — полуплоскости "
            "cos θ_k·P + sin θ_k·Q ≤ cos(π/16)·s_max_mva, θ_k = k·π/8, k = 0…15, т. е. к оси +P обращена сторона); "
            "точка между многоугольником и окружностью допустима."
        ),
        "answer_notes": (
            "Балансы и пределы проверяются с допуском 1e-4 МВт / Мвар, окружности PQ-диаграмм — 1e-4 МВ·А, уравнение "
            "запаса энергии — 1e-4 МВт·ч. Эталонный оптимум заменяет каждую окружность описанным выше вписанным "
            "16-угольником; ответ, использующий точную окружность и более дешёвый, получает оценку 1 (не больше) и "
            "отмечается: в evidence результата beats_reference = true, а points_outside_the_inscribed_polygon "
            "считает рабочие точки между многоугольником и окружностью — это пометка для проверки, не штраф. В "
            "остальных случаях оценка уменьшается пропорционально перерасходу (относительно max(|оптимальные "
            "затраты|, 100 единиц валюты))."
        ),
        "hard_constraints": (
            "баланс активной мощности на каждом шаге: Σ P_источников + P_discharge − P_charge = load_p_mw (±1e-4 МВт)",
            "баланс реактивной мощности на каждом шаге: Σ Q_источников + Q_battery = load_q_mvar (±1e-4 Мвар)",
            "дизель-генераторы в [p_min_mw, p_max_mw], СЭС в [0, p_available_mw], Q в [q_min_mvar, q_max_mvar], мощности батареи в своих пределах и |Q_battery| ≤ q_max_mvar",
            "каждый источник внутри окружности своей PQ-диаграммы P² + Q² ≤ s_max_mva² (±1e-4 МВ·А), батарея — с P = P_discharge − P_charge",
            "запас энергии в конце каждого шага равен значению, вычисленному по рекуррентному уравнению (±1e-4 МВт·ч), лежит в своём диапазоне и в конце ≥ soc_terminal_min_mwh",
        ),
    },
}

TOLERANCES = {
    "relative": 1e-3,
    "absolute_floors": {"default": 1e-3},
    "feasibility": {"power_mw": 1e-4, "reactive_mvar": 1e-4, "apparent_mva": 1e-4, "energy_mwh": 1e-4, "default": 1e-4},
    "objective": {"relative": 1e-7, "absolute": 1e-6},
}

# ---------------------------------------------------------------------------- physics


def island_data(inputs: dict[str, Any]) -> IslandData:
    T = len(inputs["load_p_mw"])
    units = []
    for u in inputs["units"]:
        if u["kind"] == "pv":
            p_min, p_max = np.zeros(T), np.asarray(u["p_available_mw"], float)
        else:
            p_min, p_max = np.full(T, float(u["p_min_mw"])), np.full(T, float(u["p_max_mw"]))
        units.append(IslandUnit(u["id"], p_min, p_max, float(u["q_min_mvar"]), float(u["q_max_mvar"]),
                                float(u["s_max_mva"]), float(u["cost_per_mwh"])))
    bat = inputs["battery"]
    return IslandData(
        dt_h=step_minutes_to_hours(inputs["step_minutes"]),
        load_p_mw=np.asarray(inputs["load_p_mw"], float),
        load_q_mvar=np.asarray(inputs["load_q_mvar"], float),
        units=tuple(units),
        storage=Storage.from_inputs(bat),
        storage_id=bat["id"],
        storage_s_max_mva=float(bat["s_max_mva"]),
        storage_q_max_mvar=float(bat["q_max_mvar"]),
    )


def formulation(inputs: dict[str, Any], *, polygon: bool, cycle_cost_on: str = "discharge") -> Formulation:
    """The LP (``polygon``: the reference's inscribed polygons); ``cycle_cost_on="throughput"`` only for
    the other reading of the cycling cost."""
    d = island_data(inputs)
    d = dataclasses.replace(d, storage=dataclasses.replace(d.storage, cycle_cost_on=cycle_cost_on))
    return build_islanded_pq_dispatch(d, inscribed_polygon(POLYGON_SIDES) if polygon else None)


def answer_values(inputs: dict[str, Any], answer: dict[str, Any]) -> Any:
    ids = [u["id"] for u in inputs["units"]]
    bid = inputs["battery"]["id"]
    sched = answer["schedule"]
    return algebra.values(
        p=np.array([[float(st[i]["p_mw"]) for st in sched] for i in ids]),
        q=np.array([[float(st[i]["q_mvar"]) for st in sched] for i in ids]),
        p_charge=np.array([float(st[bid]["p_charge_mw"]) for st in sched]),
        p_discharge=np.array([float(st[bid]["p_discharge_mw"]) for st in sched]),
        q_storage=np.array([float(st[bid]["q_mvar"]) for st in sched]),
        soc=np.array([float(st[bid]["soc_mwh"]) for st in sched]),
    )


def solve(task: Task, backend: str, cycle_cost_on: str = "discharge") -> Reference:
    from psab.solvers.dispatch import solve_formulation

    inputs = task.public_inputs
    solved = solve_formulation(formulation_for(task, formulation, polygon=True, cycle_cost_on=cycle_cost_on))
    v = solved.values
    ids = [u["id"] for u in inputs["units"]]
    bid = inputs["battery"]["id"]
    schedule = []
    for t in range(len(inputs["load_p_mw"])):
        step: dict[str, Any] = {i: {"p_mw": clean(v["p"][g, t]), "q_mvar": clean(v["q"][g, t])} for g, i in enumerate(ids)}
        step[bid] = {"p_charge_mw": clean(v["p_charge"][t]), "p_discharge_mw": clean(v["p_discharge"][t]),
                     "q_mvar": clean(v["q_storage"][t]), "soc_mwh": clean(v["soc"][t])}
        schedule.append(step)
    return Reference(
        answer={"schedule": schedule},
        objective=solved.objective,
        evidence={"polygon_sides": POLYGON_SIDES, "lp_variables": solved.n_variables, "lp_rows": solved.n_constraints},
        method=f"LP (Pyomo + HiGHS) with each capability circle replaced by its inscribed {POLYGON_SIDES}-gon",
    )


def other_readings(task: Task) -> list[tuple[str, dict[str, Any]]]:
    """The battery's cycling cost charged on throughput (charge and discharge) instead of on discharge."""
    return [("cycling_cost_on_throughput", solve(task, "surrogate", cycle_cost_on="throughput").answer)]


def circle_points(inputs: dict[str, Any], v: Any) -> list[tuple[str, int, float, float, float]]:
    """``(source id, step, P, Q, S)`` for every source and step (battery: P = P_dis − P_ch)."""
    out = []
    for g, u in enumerate(inputs["units"]):
        for t in range(v.p.shape[1]):
            out.append((u["id"], t, float(v.p[g, t]), float(v.q[g, t]), float(u["s_max_mva"])))
    bat = inputs["battery"]
    for t in range(len(v.soc)):
        out.append((bat["id"], t, float(v.p_discharge[t] - v.p_charge[t]), float(v.q_storage[t]), float(bat["s_max_mva"])))
    return out


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    inputs = task.public_inputs
    f = formulation_for(task, formulation, polygon=False)
    v = answer_values(inputs, answer)
    violations = f.check(v, ctx.tol.slack)
    checks = ctx.checks()
    outside_polygon = 0
    polygon = inscribed_polygon(POLYGON_SIDES)
    for uid, t, p, q, s_max in circle_points(inputs, v):
        checks.at_most(f"/schedule/{t}/{uid}", math.hypot(p, q), s_max,
                       f"{uid} inside its capability circle P² + Q² ≤ S² in step {t} (apparent power, MVA)", "apparent_mva")
        outside_polygon += polygon_slack(polygon, p, q, s_max) < -1e-9
    violations += checks.violations
    costs = f.step_costs(v).tolist()
    bat = inputs["battery"]
    evidence = {
        "step_cost": [round(c, 6) for c in costs],
        "soc_from_powers_mwh": np.round(soc_trajectory(bat["soc_initial_mwh"], v.p_charge, v.p_discharge, bat["eta_charge"],
                                                       bat["eta_discharge"], f.dt_h), 6).tolist(),
        # operating points between the reference LP's inscribed polygon and the exact circle
        "points_outside_the_inscribed_polygon": int(outside_polygon),
    }
    return Assessment(violations=violations, objective=float(sum(costs)), evidence=evidence)


# ---------------------------------------------------------------------------- held-out draws


#: Difficulty levels (FamilySpec.levels): 1 — the public case's kind (two gensets, one PV
#: inverter, hourly steps); 2 — half-hourly steps (Δt = 0.5 h), a third genset (a small
#: peaker with its own minimum stable output), a second PV inverter rated only just above its
#: peak (its circle binds when it is asked for reactive power at noon) and a lower load power
#: factor (0.72-0.84), so that the capability circles, not only the P limits, shape the day.
LEVELS = (1, 2)


def _refined(series: Any, per_hour: int) -> np.ndarray:
    """An hourly series at ``per_hour`` steps an hour, interpolated at the sub-step midpoints."""
    x = np.asarray(series, float)
    at = (np.arange(len(x) * per_hour) + 0.5) / per_hour - 0.5
    return np.interp(at, np.arange(len(x)), x)


def _level_base(inputs: dict[str, Any], level: int) -> dict[str, Any]:
    """The public case turned into a level's base case (deterministic; no draw)."""
    if level == 1:
        return inputs
    out = dict(inputs)
    out["step_minutes"] = 30
    out["load_p_mw"] = np.round(_refined(inputs["load_p_mw"], 2), 3).tolist()
    out["load_q_mvar"] = np.round(_refined(inputs["load_q_mvar"], 2), 3).tolist()
    units = []
    for u in inputs["units"]:
        u = dict(u)
        if u["kind"] == "pv":
            u["p_available_mw"] = np.round(_refined(u["p_available_mw"], 2), 3).tolist()
        units.append(u)
    pv = next(u for u in units if u["kind"] == "pv")
    pv2_peak = round(0.45 * max(pv["p_available_mw"]), 3)
    units.append({"id": "DG3", "kind": "diesel", "p_min_mw": 0.08, "p_max_mw": 0.3, "q_min_mvar": -0.12, "q_max_mvar": 0.22,
                  "s_max_mva": 0.33, "cost_per_mwh": 320.0})
    units.append({"id": "PV2", "kind": "pv", "p_available_mw": np.round(np.asarray(pv["p_available_mw"]) * 0.45, 3).tolist(),
                  "q_min_mvar": -0.3, "q_max_mvar": 0.3, "s_max_mva": round(1.05 * pv2_peak, 3), "cost_per_mwh": 0.0})
    out["units"] = units
    return out


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the load (level, shape, power factor), the PV day, genset costs and ratings, and
    the battery; at level 2 on the richer base case of :func:`_level_base` (:data:`LEVELS`).
    Feasible by construction: the gensets' combined rating covers the peak apparent load with
    margin, and curtailment and charging absorb any PV surplus above the gensets' minimum
    output. Level 1 makes exactly the calls on ``rng`` it made before levels existed."""
    inputs = _level_base(public.public_inputs, level)
    T = len(inputs["load_p_mw"])
    hours = np.arange(T)
    p = np.asarray(inputs["load_p_mw"], float) * rng.uniform(0.85, 1.15)
    p = p * (1 + 0.08 * np.sin(2 * np.pi * hours / T + rng.uniform(0, 2 * np.pi))) * rng.uniform(0.97, 1.03, size=T)
    tan_phi = math.tan(math.acos(rng.uniform(0.78, 0.92) if level == 1 else rng.uniform(0.72, 0.84)))
    q = p * tan_phi * rng.uniform(0.95, 1.05, size=T)
    units = []
    for u in inputs["units"]:
        u = dict(u)
        if u["kind"] == "pv":
            clouds = np.clip(1.0 - rng.uniform(0.0, 0.5) * rng.uniform(0.3, 1.0, size=T), 0.1, 1.0)
            u["p_available_mw"] = np.round(np.asarray(u["p_available_mw"], float) * rng.uniform(0.7, 1.3) * clouds, 3).tolist()
        else:
            u["cost_per_mwh"] = round(float(u["cost_per_mwh"]) * rng.uniform(0.85, 1.2), 1)
        units.append(u)
    bat = dict(inputs["battery"])
    scale = rng.uniform(0.7, 1.4)
    for k in ("p_charge_max_mw", "p_discharge_max_mw", "soc_min_mwh", "soc_max_mwh", "s_max_mva", "q_max_mvar"):
        bat[k] = round(float(bat[k]) * scale, 3)
    e0 = round(float(rng.uniform(bat["soc_min_mwh"], 0.5 * (bat["soc_min_mwh"] + bat["soc_max_mwh"]))), 3)
    bat["soc_initial_mwh"] = bat["soc_terminal_min_mwh"] = e0
    # keep the peak within 85 % of what gensets and battery can deliver together
    gensets = [u for u in units if u["kind"] != "pv"]
    capacity = sum(u["s_max_mva"] for u in gensets) + bat["s_max_mva"]
    peak = float(np.hypot(p, q).max())
    if peak > 0.85 * capacity:
        factor = 0.85 * capacity / peak
        p, q = p * factor, q * factor
    # and the night load above the gensets' minimum output
    floor = sum(u["p_min_mw"] for u in gensets) * 1.1
    p = np.maximum(p, floor)
    out = dict(inputs)
    out.update(load_p_mw=np.round(p, 3).tolist(), load_q_mvar=np.round(q, 3).tolist(), units=units, battery=bat)
    return Generated(public_inputs=out)


def accept(task: Task, reference: Reference) -> str | None:
    """Reject a trivial draw: the battery idle (no storage decision — less than a quarter of
    its energy window discharged over the day), or no capability limit binding anywhere
    (every source strictly inside its inscribed polygon and Q limits: the reactive dispatch
    would not matter and the task would be a P-only merit order). The score relies on the
    optimal cost only (unique even where the dispatch is not), so no tie check is needed."""
    inputs = task.public_inputs
    bat = inputs["battery"]
    dt = step_minutes_to_hours(inputs["step_minutes"])
    sched = reference.answer["schedule"]
    discharged = sum(st[bat["id"]]["p_discharge_mw"] for st in sched) * dt
    if discharged < 0.25 * (bat["soc_max_mwh"] - bat["soc_min_mwh"]):
        return f"trivial draw: the optimal schedule discharges only {discharged:.3f} MWh"
    polygon = inscribed_polygon(POLYGON_SIDES)
    v = answer_values(inputs, reference.answer)
    binding = sum(polygon_slack(polygon, p, q, s_max) < 1e-6 for _, _, p, q, s_max in circle_points(inputs, v))
    if not binding:
        return "trivial draw: no capability limit binds, the reactive dispatch does not matter"
    return None


def naive_answer(task: Task) -> dict[str, Any]:
    """Active power by merit order ignoring the battery (idle all day) and the circles: every
    genset at its minimum, PV used up to the load, the rest from the cheapest genset with room;
    reactive load shared among the gensets in proportion to their upper reactive limits (PV and
    battery at Q = 0)."""
    inputs = task.public_inputs
    units = inputs["units"]
    bat = inputs["battery"]
    gensets = sorted((u for u in units if u["kind"] != "pv"), key=lambda u: u["cost_per_mwh"])
    q_room = sum(u["q_max_mvar"] for u in gensets)
    schedule = []
    for t, (load_p, load_q) in enumerate(zip(inputs["load_p_mw"], inputs["load_q_mvar"], strict=True)):
        p = {u["id"]: float(u["p_min_mw"]) for u in gensets}
        rest = float(load_p) - sum(p.values())
        for u in units:
            if u["kind"] == "pv":
                p[u["id"]] = max(min(float(u["p_available_mw"][t]), rest), 0.0)
                rest -= p[u["id"]]
        for u in gensets:
            add = max(min(rest, float(u["p_max_mw"]) - p[u["id"]]), 0.0)
            p[u["id"]] += add
            rest -= add
        step: dict[str, Any] = {}
        for u in units:
            q = float(load_q) * u["q_max_mvar"] / q_room if u["kind"] != "pv" else 0.0
            step[u["id"]] = {"p_mw": round(p[u["id"]], 6), "q_mvar": round(q, 6)}
        step[bat["id"]] = {"p_charge_mw": 0.0, "p_discharge_mw": 0.0, "q_mvar": 0.0, "soc_mwh": bat["soc_initial_mwh"]}
        schedule.append(step)
    return {"schedule": schedule}


EXPERT = {
    "en": {"statement": (
        "Dispatch the islanded microgrid of public_inputs (no grid connection) in active and reactive power for the "
        "day at minimum fuel and battery-cycling cost (cycling charged on discharged energy only), every source within its P and Q limits and its apparent-power "
        "capability: the armature-current circle of a synchronous genset (Kundur, Power System Stability and Control, "
        "1994, §5.4) and the rating circle of an inverter (IEEE Std 1547-2018, §5.2), with the battery's energy "
        "balance over the day. Answer P and Q of every source and the battery's charge, discharge, Q and end-of-step "
        "energy. The case's own choices: gensets stay on all day (p_min_mw is their minimum stable output); PV may be "
        "curtailed; inverters may give or absorb Q at any active power, at night too; the exact circles are the "
        "constraints, the reference optimum uses each circle's inscribed 16-gon with a vertex at π/16 from the +P "
        "axis, and a cheaper answer using the space between polygon and circle scores 1 and is flagged "
        "(beats_reference)."
    )},
    "ru": {"statement": (
        "Распределите активную и реактивную мощность в изолированной микросети public_inputs (без связи с внешней "
        "сетью) на сутки с минимальными затратами на топливо и циклирование батареи (циклирование — только на "
        "отданную энергию); каждый источник — в своих "
        "пределах P и Q и в пределах своей PQ-диаграммы по полной мощности: окружности тока статора синхронного "
        "дизель-генератора (Kundur, Power System Stability and Control, 1994, §5.4) и окружности номинальной мощности "
        "инвертора (IEEE Std 1547-2018, §5.2), с балансом энергии батареи за сутки. Укажите P и Q каждого источника и "
        "заряд, разряд, Q и запас энергии батареи на конец шага. Особенности случая: дизель-генераторы работают весь "
        "день (p_min_mw — их минимальная длительно допустимая нагрузка); выработку СЭС можно ограничивать; инверторы "
        "могут выдавать и потреблять Q при любой активной мощности, в том числе ночью; ограничения — точные "
        "окружности, эталонный оптимум использует вписанный в каждую окружность 16-угольник с вершиной под углом "
        "π/16 к оси +P, а более дешёвый ответ, использующий область между многоугольником и окружностью, получает 1 "
        "и отмечается (beats_reference)."
    )},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged by psab's surrogate backend (no power-flow simulator: one busbar, no network losses): the P and "
               "Q balances, limits, battery energy recursion and the EXACT capability circles are checked at your "
               "numbers, the fuel and cycling cost recomputed and compared with the reference LP optimum on the "
               "inscribed 16-gons (HiGHS, proven optimal)."),
        "ru": ("Проверяется суррогатной моделью psab (без расчёта режима сети: одна шина, без потерь): балансы P и Q, "
               "пределы, уравнение запаса энергии батареи и ТОЧНЫЕ окружности PQ-диаграмм проверяются по вашим "
               "числам, затраты на топливо и циклирование пересчитываются и сравниваются с оптимумом эталонной ЛП "
               "на вписанных 16-угольниках (HiGHS, доказанный оптимум)."),
    },
}


def neighbourhood(task: Task, answer: dict[str, Any]) -> Moves:
    """Moves around the reference that stay inside the reference LP's own feasible set.

    In one step: δ MW of active power moved between two sources; and the battery's discharge raised by δ against a genset's output, with the stored energies
    after it recomputed. A move is kept only if every touched source stays within its limits
    and inside its inscribed polygon — a cheaper point between the polygon and the exact circle
    is a legitimate improvement on the LP reference (scored 1 and flagged), not a defect of the
    draw, so it must not make the generator reject it. Within the polygon, an optimal LP
    reference admits no cheaper move.

    Given as :class:`~psab.generators.acceptance.Moves` with the evaluator's rows and cost in
    matrix form (its exact circles left to the full evaluation), so acceptance evaluates in
    full only the moves that might win."""
    inputs = task.public_inputs
    polygon = inscribed_polygon(POLYGON_SIDES)
    units = {u["id"]: u for u in inputs["units"]}
    bat = inputs["battery"]
    bid = bat["id"]
    dt = step_minutes_to_hours(inputs["step_minutes"])
    sched = answer["schedule"]

    def p_limits(uid: str, t: int) -> tuple[float, float]:
        u = units[uid]
        return (0.0, float(u["p_available_mw"][t])) if u["kind"] == "pv" else (float(u["p_min_mw"]), float(u["p_max_mw"]))

    def inside(uid: str, t: int, p: float, q: float) -> bool:
        u = units[uid]
        lo, hi = p_limits(uid, t)
        return (lo <= p <= hi and u["q_min_mvar"] <= q <= u["q_max_mvar"]
                and polygon_slack(polygon, p, q, u["s_max_mva"]) >= 0.0)

    out = []
    for t, step in enumerate(sched):
        # reactive moves are left out: Q carries no cost, so they can never lower it
        for a in units:
            for b in units:
                pa, qa = step[a]["p_mw"], step[a]["q_mvar"]
                pb, qb = step[b]["p_mw"], step[b]["q_mvar"]
                if a != b and inside(a, t, pa + 0.01, qa) and inside(b, t, pb - 0.01, qb):
                    out.append((f"step {t}: 0.01 MW from {b} to {a}",
                                [(("schedule", t, a, "p_mw"), 0.01), (("schedule", t, b, "p_mw"), -0.01)]))
        delta = 0.01
        b_step = step[bid]
        p_net = b_step["p_discharge_mw"] + delta - b_step["p_charge_mw"]
        if b_step["p_discharge_mw"] + delta > bat["p_discharge_max_mw"] or polygon_slack(polygon, p_net, b_step["q_mvar"], bat["s_max_mva"]) < 0:
            continue
        energy = delta * dt / bat["eta_discharge"]
        for g in units:
            if units[g]["kind"] == "pv" or not inside(g, t, step[g]["p_mw"] - delta, step[g]["q_mvar"]):
                continue
            moves = [(("schedule", t, bid, "p_discharge_mw"), delta), (("schedule", t, g, "p_mw"), -delta)]
            moves += [(("schedule", u, bid, "soc_mwh"), -energy) for u in range(t, len(sched))]
            out.append((f"step {t}: battery discharges {delta} MW more instead of {g}", moves))
    # every evaluation costs a full schema validation of the day; an even sample of at most
    # NEIGHBOURS moves keeps a draw's acceptance near a second
    stride = max(1, -(-len(out) // NEIGHBOURS))
    return Moves(answer, out[::stride], lambda: _screen(task, answer))


_FIELDS = {"p_mw": "p", "q_mvar": "q", "battery/p_charge_mw": "p_charge", "battery/p_discharge_mw": "p_discharge",
           "battery/q_mvar": "q_storage", "battery/soc_mwh": "soc"}


def _screen(task: Task, answer: dict[str, Any]) -> Any:
    """The evaluator's rows and cost (:func:`evaluate`: the formulation without the polygon,
    ``check`` and the summed step costs; the exact circles only make it stricter) at
    ``answer``, over ``/schedule/t/<source>/<field>``."""
    from psab.evaluators.tolerance import Tolerance

    inputs = task.public_inputs
    f = formulation_for(task, formulation, polygon=False)
    position = {u["id"]: g for g, u in enumerate(inputs["units"])}
    bid = inputs["battery"]["id"]

    def path(p: Any) -> Any:
        if len(p) != 4 or p[0] != "schedule":
            return None
        if p[2] == bid:
            return f"battery/{p[3]}", p[1]
        return (p[3], (position[p[2]], p[1])) if p[2] in position else None

    return f.screen(answer_values(inputs, answer), Tolerance.from_task(task.tolerances).slack, f.column_of(_FIELDS, path))





#: most neighbours evaluated per held-out draw
NEIGHBOURS = 24


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="microgrids_dispatch",
        scoring_kind="optimize",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "España et al., microgrid dispatch (the source the psab catalogue names for this family)",
                "locator": "psab families.md §5, islanded_microgrid_pq_dispatch",
                "note": "Islanded microgrid dispatched in P and Q with capability circles, reference LP on an inner polygon; "
                        "the exact paper and equation numbers are to be confirmed by the maintainers.",
                "confidence": "medium",
            },
            {
                "title": "P. Kundur, Power System Stability and Control, McGraw-Hill, 1994",
                "locator": "§5.4 (capability curves: armature-current limit as a circle of radius S in the P-Q plane)",
                "note": "The gensets' circle P² + Q² ≤ S²; their field- and prime-mover limits are the Q and P boxes.",
                "confidence": "high",
            },
            {
                "title": "IEEE Std 1547-2018, Interconnection and Interoperability of Distributed Energy Resources",
                "locator": "§5.2 (reactive power capability of DER within the apparent-power rating)",
                "note": "PV and battery inverters: Q within the rating circle at the active power delivered.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "active balance every step: Σ P_sources + P_discharge − P_charge = load_p_mw (±1e-4 MW)",
            "reactive balance every step: Σ Q_sources + Q_battery = load_q_mvar (±1e-4 Mvar)",
            "gensets within [p_min_mw, p_max_mw], PV within [0, p_available_mw], Q within [q_min_mvar, q_max_mvar], "
            "battery powers within their limits and |Q_battery| ≤ q_max_mvar",
            "every source inside its capability circle P² + Q² ≤ s_max_mva² (±1e-4 MVA), the battery with P = "
            "P_discharge − P_charge",
            "stored energy at the end of every step equals the recursion (±1e-4 MWh), within its window, and ≥ "
            "soc_terminal_min_mwh at the end",
        ),
        metrics=(),
        tolerances=TOLERANCES,
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        objective_sense="minimize",
        objective_unit="currency",
        objective_scale_floor=100.0,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        validate_inputs=input_problems,
        neighbourhood=neighbourhood,
        accept=accept,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=LEVELS,
        naive_answer=naive_answer,
        other_readings=other_readings,
    )
)
