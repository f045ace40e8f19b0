"""hydro_thermal_storage_uc — day-ahead unit commitment with hydro and storage (optimize, MILP).

Thermal units (output window when on, minimum up and down times, start-up cost, no-load cost,
marginal cost, state before the day), a hydro plant with its reservoir (output proportional to
turbine flow, natural inflow, volume window, required final volume, spillage allowed) and a
battery serve 24 hours of demand. The agent returns, per hour, each thermal unit's on/off state
and output, the hydro output, spillage and end-of-hour volume, and the battery's charge,
discharge and end-of-hour energy. The evaluator derives start-ups and shut-downs from the
on/off sequence (and the state before the day), checks balance, commitment-dependent limits,
minimum up/down times, the water balance and the energy recursion, and recomputes the cost
(marginal + no-load + start-up + battery cycling). The reference is the monolithic MILP
(:func:`psab.solvers.commitment.build_hydro_thermal_uc`) solved by HiGHS to a proven optimum
(MIP gap 0).

Sources: the catalogue's ADMM unit-commitment source (hydro-thermal-storage UC solved there by
decomposition; here the monolithic MILP it decomposes); the MILP formulation of Carrión &
Arroyo, IEEE TPWRS 21(3), 2006, with the three-binary minimum up/down constraints of Rajan &
Takriti, IBM RC23628, 2005.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.generators.acceptance import Moves
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.solvers import algebra
from psab.solvers.commitment import Hydro, ThermalUnit, UCData, build_hydro_thermal_uc
from psab.solvers.dispatch import (
    Formulation,
    Storage,
    clean,
    formulation_for,
    shift,
    step_minutes_to_hours,
)
from psab.surrogates.dispatch import (
    HM3_PER_M3S_HOUR,
    reservoir_trajectory,
    soc_trajectory,
    transitions,
)

FAMILY_ID = "hydro_thermal_storage_uc"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 24; a MILP over all steps.
MAX_INPUT_ITEMS = 1000

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    T = len(inputs["demand_mw"])
    thermal = s.obj({"on": s.boolean("committed (on) during the step", ru="агрегат включён на шаге"),
                     "p_mw": s.number("output, MW (0 when off)", ru="мощность, МВт (0 в отключённом состоянии)")})
    hydro = s.obj({
        "p_mw": s.number("hydro output, MW (= mw_per_m3s × turbine flow)", ru="мощность ГЭС, МВт (= mw_per_m3s × турбинный расход)"),
        "spill_m3s": s.number("water spilled past the turbines, m³/s (>= 0)", ru="холостой сброс мимо турбин, м³/с (>= 0)"),
        "volume_hm3": s.number("reservoir volume at the END of the step, hm³", ru="объём водохранилища на КОНЕЦ шага, млн м³"),
    })
    storage = s.obj({
        "p_charge_mw": s.number("charging power, MW (>= 0)", ru="мощность заряда, МВт (>= 0)"),
        "p_discharge_mw": s.number("discharging power, MW (>= 0)", ru="мощность разряда, МВт (>= 0)"),
        "soc_mwh": s.number("energy stored at the END of the step, MWh", ru="запас энергии на КОНЕЦ шага, МВт·ч"),
    })
    props = {u["id"]: thermal for u in inputs["thermal_units"]}
    props[inputs["hydro"]["id"]] = hydro
    props[inputs["storage"]["id"]] = storage
    step = s.obj(props, "every unit's decisions in one step, keyed by unit id",
                 ru="решения по всем агрегатам на одном шаге, по идентификатору агрегата")
    return s.submission({"schedule": s.array(step, f"one object per step, in time order ({T} steps)", length=T,
                                             ru=f"по одному объекту на шаг, в порядке времени (шагов: {T})")},
                        "hydro-thermal-storage unit commitment", ru="выбор состава оборудования гидротепловой системы с накопителем")


INPUTS_SCHEMA = s.obj({
    "step_minutes": s.POSITIVE, "currency": {"type": "string"},
    "demand_mw": ic.series_schema(nonnegative=True),
    "thermal_units": s.array(s.obj({
        "id": s.ID, "p_min_mw": s.NONNEGATIVE, "p_max_mw": s.POSITIVE, "min_up_h": s.NONNEGATIVE, "min_down_h": s.NONNEGATIVE,
        "startup_cost": s.NONNEGATIVE, "no_load_cost_per_h": s.NONNEGATIVE, "marginal_cost_per_mwh": s.NUMBER,
        "initial_on": {"type": "boolean"}, "initial_hours_in_state": s.NONNEGATIVE,
    }), "thermal_units", min_items=1),
    "hydro": s.obj({"id": s.ID, "mw_per_m3s": s.POSITIVE, "turbine_max_m3s": s.NONNEGATIVE, "inflow_m3s": ic.series_schema(nonnegative=True),
                    "volume_initial_hm3": s.NONNEGATIVE, "volume_min_hm3": s.NONNEGATIVE, "volume_max_hm3": s.POSITIVE,
                    "volume_final_min_hm3": s.NONNEGATIVE}),
    "storage": ic.storage_schema(),
})

def input_problems(inputs: dict[str, Any]) -> list[str]:
    """Inflow one value per step of demand_mw, inflows non-negative, distinct ids,
    p_min_mw ≤ p_max_mw, volume_min ≤ volume_initial, volume_final_min ≤ volume_max, and the
    storage's energy limits ordered."""
    p = ic.Problems()
    T = len(inputs["demand_mw"])
    h = inputs["hydro"]
    p.length("/hydro/inflow_m3s", h["inflow_m3s"], T, "step of demand_mw")
    if any(x < 0 for x in h["inflow_m3s"]):
        p.add("/hydro/inflow_m3s", "inflows must be non-negative")
    p.unique_ids("/thermal_units", [*inputs["thermal_units"], h, inputs["storage"]])
    for g, u in enumerate(inputs["thermal_units"]):
        p.ordered(ic.pointer("thermal_units", g, "p_max_mw"), u["p_min_mw"], u["p_max_mw"], "p_min_mw")
    p.ordered("/hydro/volume_max_hm3", h["volume_min_hm3"], h["volume_max_hm3"], "volume_min_hm3")
    p.within("/hydro/volume_initial_hm3", h["volume_initial_hm3"], h["volume_min_hm3"], h["volume_max_hm3"], "the reservoir limits")
    p.within("/hydro/volume_final_min_hm3", h["volume_final_min_hm3"], h["volume_min_hm3"], h["volume_max_hm3"], "the reservoir limits")
    ic.storage_problems(p, "/storage", inputs["storage"])
    return p

PRESENTATION = {
    "en": {
        "title": "Hydro-thermal-storage unit commitment",
        "statement": (
            "Commit and dispatch a hydro-thermal system with a battery for the day at minimum cost. public_inputs give "
            "the hourly demand (demand_mw); thermal units with output limits p_min_mw…p_max_mw when on (0 when off), "
            "minimum up and down times (hours), a start-up cost per start, a no-load cost per hour on, a marginal cost "
            "per MWh, and their state before the day (initial_on, for initial_hours_in_state hours — a unit that has "
            "been on for fewer hours than its minimum up time must stay on until it is reached, likewise off); a hydro "
            "plant whose output is mw_per_m3s × turbine flow (flow ≤ turbine_max_m3s), with natural inflow per hour and "
            "a reservoir: V_t = V_(t−1) + (inflow − turbine flow − spill)·0.0036·Δt hm³ (flows in m³/s, Δt in hours), "
            "volume_min_hm3 ≤ V_t ≤ volume_max_hm3, final volume ≥ volume_final_min_hm3, spillage ≥ 0; and a battery "
            "(power limits, energy window, efficiencies, initial and minimum final energy, cycling cost per MWh "
            "discharged; E_t = E_(t−1) + eta_charge·P_charge·Δt − P_discharge·Δt/eta_discharge). Every hour: Σ thermal + "
            "hydro + discharge − charge = demand. A unit starting (off → on, including from its state before the day) "
            "pays its start-up cost; once started it must stay on for min_up_h hours, once stopped off for min_down_h "
            "hours. Cost = Σ_t [Σ_units (marginal·p·Δt + no-load·on·Δt + start-up·started) + cycling·P_discharge·Δt] (cycling on "
            "discharged energy only, none on charging); water has no fuel cost. Conventions: Δt = step_minutes/60 h, and hours of min_up_h, min_down_h and "
            "initial_hours_in_state count in steps of Δt; the minimum up and down times are CUT OFF at the end of the "
            "day — a unit started (or stopped) fewer than min_up_h (min_down_h) hours before the end must only stay on "
            "(off) until the end of the last step, nothing is required beyond the horizon; start-ups and shut-downs "
            "are read from your on/off sequence, a start in the first step counting against initial_on. Volumes in "
            "hm³ (10⁶ m³), flows in m³/s (1 m³/s for one hour = 0.0036 hm³); the reservoir limits, the water balance "
            "and the final volume are checked within 1e-6 hm³."
        ),
        "answer_notes": (
            "Balances and output limits are checked within 1e-4 MW, the energy recursion within 1e-4 MWh, the water "
            "balance, the volume window and the final volume within 1e-6 hm³; on/off states must respect the "
            "minimum up/down times exactly (cut off at the end of the day). The score is 1 at "
            "the proven MILP optimum and falls in proportion to the extra cost (relative to max(|optimal cost|, 100 "
            "currency units))."
        ),
    },
    "ru": {
        "title": "Выбор состава оборудования гидротепловой системы с накопителем",
        "statement": (
            "Выберите состав включённого оборудования и распределите нагрузку гидротепловой системы с аккумуляторной "
            "батареей на сутки с минимальными затратами. В public_inputs заданы почасовое потребление (demand_mw); "
            "тепловые агрегаты с пределами мощности p_min_mw…p_max_mw во включённом состоянии (0 в отключённом), "
            "минимальным временем работы и простоя (ч), стоимостью пуска, затратами холостого хода за час работы, "
            "удельными затратами на МВт·ч и состоянием перед началом суток (initial_on в течение "
            "initial_hours_in_state часов — агрегат, проработавший меньше минимального времени работы, должен "
            "оставаться включённым, пока оно не истечёт, аналогично для простоя); ГЭС, мощность которой равна "
            "mw_per_m3s × расход через турбины (расход ≤ turbine_max_m3s), с естественным притоком на каждый час и "
            "водохранилищем: V_t = V_(t−1) + (приток − турбинный расход − холостой сброс)·0,0036·Δt млн м³ (расходы в "
            "м³/с, Δt в часах), volume_min_hm3 ≤ V_t ≤ volume_max_hm3, конечный объём ≥ volume_final_min_hm3, сброс ≥ 0; "
            "аккумуляторная батарея (ограничения мощности, диапазон запаса энергии, КПД, начальный и минимальный "
            "конечный запас, стоимость циклирования за МВт·ч отданной энергии; E_t = E_(t−1) + eta_charge·P_заряд·Δt − "
            "P_разряд·Δt/eta_discharge). На каждом часе: Σ тепловых + ГЭС + разряд − заряд = потребление. Пуск агрегата "
            "(переход из отключённого во включённое состояние, в том числе относительно состояния перед сутками) "
            "оплачивается по стоимости пуска; после пуска агрегат работает не менее min_up_h часов, после останова "
            "простаивает не менее min_down_h часов. Затраты = Σ_t [Σ_агрегаты (удельные·p·Δt + холостой ход·вкл·Δt + "
            "стоимость пуска·пуск) + циклирование·P_разряд·Δt] (циклирование только на отданную энергию, заряд его не "
            "несёт); вода топливных затрат не имеет. Соглашения: Δt = "
            "step_minutes/60 ч, часы min_up_h, min_down_h и initial_hours_in_state отсчитываются шагами Δt; "
            "минимальные времена работы и простоя ОБРЕЗАЮТСЯ концом суток — агрегат, включённый (отключённый) менее "
            "чем за min_up_h (min_down_h) часов до конца, должен оставаться включённым (отключённым) лишь до конца "
            "последнего шага, за горизонтом ничего не требуется; пуски и остановы определяются по вашей "
            "последовательности вкл/откл, пуск на первом шаге — относительно initial_on. Объёмы в млн м³ (10⁶ м³), "
            "расходы в м³/с (1 м³/с в течение часа = 0,0036 млн м³); пределы объёма водохранилища, водный баланс и "
            "конечный объём проверяются с допуском 1e-6 млн м³."
        ),
        "answer_notes": (
            "Балансы и пределы мощности проверяются с допуском 1e-4 МВт, уравнение запаса энергии — 1e-4 МВт·ч, водный "
            "баланс, пределы объёма и конечный объём — 1e-6 млн м³; состояния вкл/откл должны точно соблюдать "
            "минимальные времена работы и простоя (обрезанные концом суток). "
            "Оценка равна 1 при доказанном оптимуме MILP и уменьшается пропорционально перерасходу (относительно "
            "max(|оптимальные затраты|, 100 единиц валюты))."
        ),
        "hard_constraints": (
            "баланс мощности каждый час: Σ тепловых + ГЭС + разряд − заряд = потребление (±1e-4 МВт)",
            "мощность теплового агрегата в [p_min_mw, p_max_mw], когда он включён, и 0, когда отключён (±1e-4 МВт)",
            "минимальные времена работы и простоя, с учётом состояния до начала суток и обрезанные концом суток",
            "мощность ГЭС в [0, mw_per_m3s·turbine_max_m3s], холостой сброс ≥ 0, водный баланс каждый час (±1e-6 млн м³), объём водохранилища в своём диапазоне и в конце ≥ volume_final_min_hm3",
            "пределы мощности батареи, рекуррентное уравнение запаса энергии (±1e-4 МВт·ч), диапазон запаса и конечный запас энергии",
        ),
    },
}

TOLERANCES = {
    "relative": 1e-3,
    # exact comparisons and what counts as a real change of an answer value: 1e-3 MW, MWh, m³/s, hm³
    "absolute_floors": {"default": 1e-3},
    "feasibility": {"power_mw": 1e-4, "energy_mwh": 1e-4, "volume_hm3": 1e-6, "commitment": 1e-9, "default": 1e-4},
    "objective": {"relative": 1e-7, "absolute": 1e-6},
}

# ---------------------------------------------------------------------------- physics


def uc_data(inputs: dict[str, Any]) -> UCData:
    dt = step_minutes_to_hours(inputs["step_minutes"])

    def steps(hours: float) -> int:
        return max(1, int(round(float(hours) / dt)))

    thermal = tuple(
        ThermalUnit(u["id"], float(u["p_min_mw"]), float(u["p_max_mw"]), steps(u["min_up_h"]), steps(u["min_down_h"]),
                    float(u["startup_cost"]), float(u["no_load_cost_per_h"]), float(u["marginal_cost_per_mwh"]),
                    bool(u["initial_on"]), int(round(float(u["initial_hours_in_state"]) / dt)))
        for u in inputs["thermal_units"]
    )
    h = inputs["hydro"]
    hydro = Hydro(h["id"], float(h["mw_per_m3s"]), float(h["turbine_max_m3s"]), np.asarray(h["inflow_m3s"], float),
                  float(h["volume_initial_hm3"]), float(h["volume_min_hm3"]), float(h["volume_max_hm3"]),
                  float(h["volume_final_min_hm3"]))
    return UCData(dt, np.asarray(inputs["demand_mw"], float), thermal, hydro, Storage.from_inputs(inputs["storage"]),
                  inputs["storage"]["id"])


def formulation(inputs: dict[str, Any]) -> Formulation:
    return build_hydro_thermal_uc(uc_data(inputs))


def answer_values(inputs: dict[str, Any], answer: dict[str, Any]) -> Any:
    """Arrays of the answer, with start-ups and shut-downs derived from the on/off sequence."""
    sched = answer["schedule"]
    units = inputs["thermal_units"]
    hid, sid = inputs["hydro"]["id"], inputs["storage"]["id"]
    u = np.array([[1.0 if st[x["id"]]["on"] else 0.0 for st in sched] for x in units])
    yz = [transitions(u[g], bool(x["initial_on"])) for g, x in enumerate(units)]
    return algebra.values(
        p=np.array([[float(st[x["id"]]["p_mw"]) for st in sched] for x in units]),
        u=u,
        y=np.array([y for y, _ in yz]),
        z=np.array([z for _, z in yz]),
        p_hydro=np.array([float(st[hid]["p_mw"]) for st in sched]),
        spill=np.array([float(st[hid]["spill_m3s"]) for st in sched]),
        volume=np.array([float(st[hid]["volume_hm3"]) for st in sched]),
        p_charge=np.array([float(st[sid]["p_charge_mw"]) for st in sched]),
        p_discharge=np.array([float(st[sid]["p_discharge_mw"]) for st in sched]),
        soc=np.array([float(st[sid]["soc_mwh"]) for st in sched]),
    )


def solve(task: Task, backend: str) -> Reference:
    from psab.solvers.dispatch import solve_formulation

    inputs = task.public_inputs
    solved = solve_formulation(formulation_for(task, formulation))
    v = solved.values
    units = inputs["thermal_units"]
    hid, sid = inputs["hydro"]["id"], inputs["storage"]["id"]
    schedule = []
    for t in range(len(inputs["demand_mw"])):
        step: dict[str, Any] = {
            x["id"]: {"on": bool(v["u"][g, t] > 0.5), "p_mw": clean(v["p"][g, t])} for g, x in enumerate(units)
        }
        step[hid] = {"p_mw": clean(v["p_hydro"][t]), "spill_m3s": clean(v["spill"][t]), "volume_hm3": clean(v["volume"][t])}
        step[sid] = {"p_charge_mw": clean(v["p_charge"][t]), "p_discharge_mw": clean(v["p_discharge"][t]),
                     "soc_mwh": clean(v["soc"][t])}
        schedule.append(step)
    return Reference(
        answer={"schedule": schedule},
        objective=solved.objective,
        evidence={"milp_variables": solved.n_variables, "milp_binaries": solved.n_integer, "milp_rows": solved.n_constraints},
        method="monolithic MILP (Pyomo + HiGHS, MIP gap 0)",
    )


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    inputs = task.public_inputs
    f = formulation_for(task, formulation)
    v = answer_values(inputs, answer)
    violations = f.check(v, ctx.tol.slack)
    costs = f.step_costs(v).tolist()
    h, st = inputs["hydro"], inputs["storage"]
    evidence = {
        "step_cost": [round(c, 6) for c in costs],
        "startups": {x["id"]: int(v.y[g].sum()) for g, x in enumerate(inputs["thermal_units"])},
        # the states the submitted flows and powers imply, from the initial state
        "volume_from_flows_hm3": np.round(reservoir_trajectory(h["volume_initial_hm3"], h["inflow_m3s"],
                                                               v.p_hydro / h["mw_per_m3s"], v.spill, f.dt_h), 9).tolist(),
        "soc_from_powers_mwh": np.round(soc_trajectory(st["soc_initial_mwh"], v.p_charge, v.p_discharge, st["eta_charge"],
                                                       st["eta_discharge"], f.dt_h), 6).tolist(),
        "hydro_energy_mwh": round(float(v.p_hydro.sum() * f.dt_h), 6),
    }
    return Assessment(violations=violations, objective=float(sum(costs)), evidence=evidence)


# ---------------------------------------------------------------------------- held-out draws


#: Difficulty levels (FamilySpec.levels): 1 — the public case's kind (three thermal units,
#: hourly); 2 — four thermal units (a mid-merit unit with 3 h minimum up/down times added to
#: the three), demand scaled to the larger fleet: more commitment
#: interactions (which unit carries the evening peak, whether the battery or a start-up covers
#: it) in a MILP of 4 × 24 commitment triples, solved to MIP gap 0 in seconds.
LEVELS = (1, 2)

_LEVEL2_UNITS = (
    {"id": "T4", "p_min_mw": 40.0, "p_max_mw": 120.0, "min_up_h": 3, "min_down_h": 3, "startup_cost": 1500.0,
     "no_load_cost_per_h": 480.0, "marginal_cost_per_mwh": 52.0, "initial_on": False, "initial_hours_in_state": 4},
)


def _level_base(inputs: dict[str, Any], level: int) -> dict[str, Any]:
    """The public case turned into a level's base case (deterministic; no draw)."""
    if level == 1:
        return inputs
    out = dict(inputs)
    out["thermal_units"] = [dict(u) for u in inputs["thermal_units"]] + [dict(u) for u in _LEVEL2_UNITS]
    old = sum(u["p_max_mw"] for u in inputs["thermal_units"])
    new = sum(u["p_max_mw"] for u in out["thermal_units"])
    out["demand_mw"] = [round(d * new / old, 1) for d in inputs["demand_mw"]]
    return out


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw demand (level and shape), thermal costs and initial states, the hydro inflow and
    reservoir state, and the battery, on the level's base case (:data:`LEVELS`). Demand stays
    within the fleet's capacity with margin. Level 1 makes exactly the calls on ``rng`` it
    made before levels existed."""
    inputs = _level_base(public.public_inputs, level)
    T = len(inputs["demand_mw"])
    hours = np.arange(T)
    units = [dict(u) for u in inputs["thermal_units"]]
    for u in units:
        for k in ("startup_cost", "no_load_cost_per_h", "marginal_cost_per_mwh"):
            u[k] = round(float(u[k]) * rng.uniform(0.8, 1.25), 1)
        u["initial_on"] = bool(rng.uniform() < 0.5) if u["p_min_mw"] < 0.5 * u["p_max_mw"] else bool(u["initial_on"])
        u["initial_hours_in_state"] = int(rng.integers(1, 12))
    h = dict(inputs["hydro"])
    inflow = np.asarray(h["inflow_m3s"], float) * rng.uniform(0.6, 1.4)
    h["inflow_m3s"] = np.round(inflow * rng.uniform(0.95, 1.05, size=T), 2).tolist()
    span = h["volume_max_hm3"] - h["volume_min_hm3"]
    h["volume_initial_hm3"] = round(float(h["volume_min_hm3"] + span * rng.uniform(0.3, 0.7)), 3)
    h["volume_final_min_hm3"] = round(float(h["volume_initial_hm3"] - span * rng.uniform(0.0, 0.1)), 3)
    st = dict(inputs["storage"])
    scale = rng.uniform(0.6, 1.5)
    for k in ("p_charge_max_mw", "p_discharge_max_mw", "soc_min_mwh", "soc_max_mwh"):
        st[k] = round(float(st[k]) * scale, 2)
    e0 = round(float(rng.uniform(st["soc_min_mwh"], 0.6 * st["soc_max_mwh"])), 2)
    st["soc_initial_mwh"] = st["soc_terminal_min_mwh"] = e0
    demand = np.asarray(inputs["demand_mw"], float) * rng.uniform(0.85, 1.1)
    demand = demand * (1 + 0.06 * np.sin(2 * np.pi * hours / T + rng.uniform(0, 2 * np.pi))) * rng.uniform(0.98, 1.02, size=T)
    capacity = sum(u["p_max_mw"] for u in units) + h["mw_per_m3s"] * h["turbine_max_m3s"] + st["p_discharge_max_mw"]
    demand = np.minimum(demand, 0.85 * capacity)
    # a unit that must stay on from before the day must fit under the night demand
    must = sum(u["p_min_mw"] for u in units if u["initial_on"])
    demand = np.maximum(demand, must + 1.0)
    out = dict(inputs)
    out.update(demand_mw=np.round(demand, 1).tolist(), thermal_units=units, hydro=h, storage=st)
    return Generated(public_inputs=out)


def naive_answer(task: Task) -> dict[str, Any]:
    """A priority list hour by hour, ignoring minimum up/down times, start-up costs and the
    battery: hydro runs the inflow (volume held, any excess spilled), the battery idles, and
    thermal units are committed in order of full-load average cost until their capacity
    covers the rest of the demand, then loaded by marginal cost above their minimum outputs."""
    inputs = task.public_inputs
    units = sorted(inputs["thermal_units"],
                   key=lambda u: u["marginal_cost_per_mwh"] + u["no_load_cost_per_h"] / u["p_max_mw"])
    h, st = inputs["hydro"], inputs["storage"]
    schedule = []
    for t, demand in enumerate(inputs["demand_mw"]):
        flow = min(float(h["inflow_m3s"][t]), float(h["turbine_max_m3s"]))
        p_h = h["mw_per_m3s"] * flow
        rest = float(demand) - p_h
        on, cap = [], 0.0
        for u in units:
            if cap >= rest:
                break
            on.append(u)
            cap += u["p_max_mw"]
        p = {u["id"]: float(u["p_min_mw"]) for u in on}
        rest -= sum(p.values())
        for u in sorted(on, key=lambda u: u["marginal_cost_per_mwh"]):
            add = max(min(rest, u["p_max_mw"] - p[u["id"]]), 0.0)
            p[u["id"]] += add
            rest -= add
        step: dict[str, Any] = {u["id"]: {"on": u["id"] in p, "p_mw": round(p.get(u["id"], 0.0), 6)}
                                for u in inputs["thermal_units"]}
        step[h["id"]] = {"p_mw": round(p_h, 6), "spill_m3s": round(float(h["inflow_m3s"][t]) - flow, 6),
                         "volume_hm3": h["volume_initial_hm3"]}
        step[st["id"]] = {"p_charge_mw": 0.0, "p_discharge_mw": 0.0, "soc_mwh": st["soc_initial_mwh"]}
        schedule.append(step)
    return {"schedule": schedule}


EXPERT = {
    "en": {"statement": (
        "Solve the day-ahead hydro-thermal-storage unit commitment of public_inputs to proven optimality: commit and "
        "dispatch the thermal units with the mixed-integer formulation of Carrión & Arroyo (IEEE Trans. Power Syst. "
        "21(3), 2006, §II-III: generation limits, start-up cost, minimum up/down times with the initial conditions) "
        "and the minimum up/down polytope of Rajan & Takriti (IBM RC23628, 2005), schedule the hydro plant on its "
        "reservoir water balance and the battery on its energy balance, and meet the demand of every step at minimum "
        "cost (marginal, no-load, start-up and battery cycling on discharged energy only; water is free). Answer each unit's on/off state and "
        "output, the hydro output, spill and end-of-step volume, and the battery's charge, discharge and end-of-step "
        "energy. The case's own choices: minimum up/down times are cut off at the end of the day; start-ups are read "
        "from the submitted on/off sequence against the state before the day; volumes are checked within 1e-6 hm³."
    )},
    "ru": {"statement": (
        "Решите задачу выбора состава оборудования гидротепловой системы с накопителем на сутки вперёд для "
        "public_inputs до доказанного оптимума: включение и загрузка тепловых агрегатов — в смешанно-целочисленной "
        "постановке Carrión, Arroyo (IEEE Trans. Power Syst. 21(3), 2006, §II–III: пределы мощности, стоимость пуска, "
        "минимальные времена работы и простоя с начальными условиями) с многогранником минимальных времён Rajan, "
        "Takriti (IBM RC23628, 2005); ГЭС — по водному балансу водохранилища, батарея — по балансу энергии; покрыть "
        "потребление каждого шага с минимальными затратами (удельные, холостого хода, пусковые и на циклирование "
        "батареи только по отданной энергии; вода бесплатна). Укажите состояние и мощность каждого агрегата, мощность ГЭС, холостой сброс и "
        "объём на конец шага, заряд, разряд и запас энергии батареи на конец шага. Особенности случая: минимальные "
        "времена работы и простоя обрезаются концом суток; пуски определяются по представленной последовательности "
        "вкл/откл относительно состояния до начала суток; объёмы проверяются с допуском 1e-6 млн м³."
    )},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged by psab's surrogate backend (no network model: one balance per step): start-ups and shut-downs "
               "are derived from your on/off states, then balance, commitment-dependent limits, minimum up/down times "
               "(cut off at the end of the day), the water balance and the energy recursion are checked at your "
               "numbers and the cost recomputed; it is compared with the monolithic MILP solved by HiGHS to a proven "
               "optimum (MIP gap 0)."),
        "ru": ("Проверяется суррогатной моделью psab (без модели сети: один баланс на шаг): пуски и остановы "
               "определяются по вашим состояниям вкл/откл, затем по вашим числам проверяются баланс, пределы мощности "
               "с учётом состояния, минимальные времена работы и простоя (обрезанные концом суток), водный баланс и "
               "уравнение запаса энергии, пересчитываются затраты и сравниваются с монолитной MILP, решённой в HiGHS "
               "до доказанного оптимума (зазор 0)."),
    },
}


def accept(task: Task, reference: Reference) -> str | None:
    """Reject a draw whose commitment is trivial: every unit on all day or never started."""
    sched = reference.answer["schedule"]
    patterns = {u["id"]: [st[u["id"]]["on"] for st in sched] for u in task.public_inputs["thermal_units"]}
    if all(all(p) or not any(p) for p in patterns.values()):
        return "trivial draw: no unit changes state during the day"
    return None


#: most neighbours evaluated per held-out draw
NEIGHBOURS = 24


def neighbourhood(task: Task, answer: dict[str, Any]) -> Moves:
    """Moves around the MILP optimum that keep every balance, recursion and commitment rule:

    - in one hour, δ = 1 MW moved between two committed thermal units with room;
    - in one hour, δ MW moved from a committed thermal unit to the hydro plant (turbine room
      permitting), the volumes after it lowered by the extra water;
    - the same water turbined up to three hours earlier or later, thermal output following;
    - one unit's on-block shortened by its last hour (kept only when the block stays at least
      its minimum up time), its output taken over by the cheapest committed unit with room.

    An even sample of at most ``NEIGHBOURS`` of them. None may cost less than a proven optimum.
    Given as :class:`~psab.generators.acceptance.Moves` with the evaluator's rows and cost in
    matrix form, so acceptance evaluates in full only the moves that might win (and every
    shortened block, which changes a state rather than adding to a number).
    """
    inputs = task.public_inputs
    dt = step_minutes_to_hours(inputs["step_minutes"])
    units = {u["id"]: u for u in inputs["thermal_units"]}
    h = inputs["hydro"]
    hid = h["id"]
    sched = answer["schedule"]
    T = len(sched)
    out = []
    d = 1.0
    for t, step in enumerate(sched):
        on = [i for i in units if step[i]["on"]]
        for a in on:
            for b in on:
                if a != b and step[a]["p_mw"] + d <= units[a]["p_max_mw"] and step[b]["p_mw"] - d >= units[b]["p_min_mw"]:
                    out.append((f"hour {t}: {d} MW from {b} to {a}",
                                [(("schedule", t, a, "p_mw"), d), (("schedule", t, b, "p_mw"), -d)]))
        room = h["mw_per_m3s"] * h["turbine_max_m3s"] - step[hid]["p_mw"]
        water = d / h["mw_per_m3s"] * HM3_PER_M3S_HOUR * dt
        if room >= d and all(sched[k][hid]["volume_hm3"] - water >= h["volume_min_hm3"] for k in range(t, T)):
            for b in on:
                if step[b]["p_mw"] - d >= units[b]["p_min_mw"]:
                    moves = [(("schedule", t, hid, "p_mw"), d), (("schedule", t, b, "p_mw"), -d)]
                    moves += [(("schedule", k, hid, "volume_hm3"), -water) for k in range(t, T)]
                    out.append((f"hour {t}: {d} MW from {b} to hydro", moves))
    hydro_max = h["mw_per_m3s"] * h["turbine_max_m3s"]
    for a in range(T):
        for b in range(max(0, a - 3), min(T, a + 4)):
            # the same water turbined in hour a instead of hour b, thermal output following
            if a == b or sched[a][hid]["p_mw"] + d > hydro_max or sched[b][hid]["p_mw"] < d:
                continue
            ga = next((i for i in units if sched[a][i]["on"] and sched[a][i]["p_mw"] - d >= units[i]["p_min_mw"]), None)
            gb = next((i for i in units if sched[b][i]["on"] and sched[b][i]["p_mw"] + d <= units[i]["p_max_mw"]), None)
            if ga is None or gb is None:
                continue
            sign = -1.0 if a < b else 1.0  # between the two hours the reservoir holds less (more) water
            between = range(min(a, b), max(a, b))
            if any(not h["volume_min_hm3"] <= sched[k][hid]["volume_hm3"] + sign * water <= h["volume_max_hm3"] for k in between):
                continue
            moves = [(("schedule", a, hid, "p_mw"), d), (("schedule", b, hid, "p_mw"), -d),
                     (("schedule", a, ga, "p_mw"), -d), (("schedule", b, gb, "p_mw"), d)]
            moves += [(("schedule", k, hid, "volume_hm3"), sign * water) for k in between]
            out.append((f"{d} MW of hydro moved from hour {b} to hour {a}", moves))
    for i, u in units.items():
        states = [st[i]["on"] for st in sched]
        for t in range(T - 1):
            if not (states[t] and not states[t + 1]):
                continue
            start = t
            while start > 0 and states[start - 1]:
                start -= 1
            if start == 0 or t - start < int(u["min_up_h"] / dt):  # a block from before the day, or too short to cut
                continue
            p = sched[t][i]["p_mw"]
            others = sorted((j for j in units if j != i and sched[t][j]["on"]
                             and sched[t][j]["p_mw"] + p <= units[j]["p_max_mw"]),
                            key=lambda j: units[j]["marginal_cost_per_mwh"])
            if not others:
                continue
            new = shift(answer, [(("schedule", t, others[0], "p_mw"), p), (("schedule", t, i, "p_mw"), -p)])
            new["schedule"][t][i]["on"] = False
            out.append((f"{i} stops one hour earlier (hour {t}), {others[0]} takes over", new))
    stride = max(1, -(-len(out) // NEIGHBOURS))
    return Moves(answer, out[::stride], lambda: _screen(task, answer))


def _screen(task: Task, answer: dict[str, Any]) -> Any:
    """The evaluator's rows and cost (:func:`evaluate`: ``check`` and the summed step costs)
    at ``answer``, over ``/schedule/t/<unit>/<field>``."""
    from psab.evaluators.tolerance import Tolerance

    inputs = task.public_inputs
    f = formulation_for(task, formulation)
    position = {u["id"]: g for g, u in enumerate(inputs["thermal_units"])}
    hid, sid = inputs["hydro"]["id"], inputs["storage"]["id"]
    fields = {"p_mw": "p", "hydro/p_mw": "p_hydro", "hydro/spill_m3s": "spill", "hydro/volume_hm3": "volume",
              "storage/p_charge_mw": "p_charge", "storage/p_discharge_mw": "p_discharge", "storage/soc_mwh": "soc"}

    def path(p: Any) -> Any:
        if len(p) != 4 or p[0] != "schedule":
            return None
        if p[2] == hid:
            return f"hydro/{p[3]}", p[1]
        if p[2] == sid:
            return f"storage/{p[3]}", p[1]
        return (p[3], (position[p[2]], p[1])) if p[2] in position else None

    return f.screen(answer_values(inputs, answer), Tolerance.from_task(task.tolerances).slack, f.column_of(fields, path))





SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="microgrids_dispatch",
        scoring_kind="optimize",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "ADMM unit commitment (the source the psab catalogue names for this family)",
                "locator": "psab families.md §5, hydro_thermal_storage_uc",
                "note": "Hydro-thermal-storage unit commitment that the source decomposes by ADMM; here the monolithic "
                        "MILP is solved to proven optimality as the reference. Exact paper to be confirmed by the maintainers.",
                "confidence": "medium",
            },
            {
                "title": "M. Carrión, J. M. Arroyo, A Computationally Efficient Mixed-Integer Linear Formulation for the "
                         "Thermal Unit Commitment Problem, IEEE Transactions on Power Systems 21(3), 1371-1378, 2006",
                "locator": "§II-III: start-up cost, generation limits, minimum up/down times and initial conditions",
                "note": "The thermal rows and costs of this family (no ramping, constant start-up cost).",
                "confidence": "high",
            },
            {
                "title": "D. Rajan, S. Takriti, Minimum Up/Down Polytopes of the Unit Commitment Problem with Start-Up Costs, "
                         "IBM Research Report RC23628, 2005",
                "locator": "turn-on/turn-off inequalities Σ_(τ=t−UT+1..t) y_τ ≤ u_t and Σ_(τ=t−DT+1..t) z_τ ≤ 1 − u_t",
                "note": "The minimum up/down rows, evaluated on the start-ups/shut-downs derived from the submitted states.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "demand balance every hour: Σ thermal + hydro + discharge − charge = demand (±1e-4 MW)",
            "thermal output within [p_min_mw, p_max_mw] when on and 0 when off (±1e-4 MW)",
            "minimum up and down times, including the state before the day and cut off at the end of the day",
            "hydro output within [0, mw_per_m3s·turbine_max_m3s], spill ≥ 0, water balance every hour (±1e-6 hm³), "
            "volume within its window and ≥ volume_final_min_hm3 at the end",
            "battery power limits, energy recursion (±1e-4 MWh), energy window and final energy",
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
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        validate_inputs=input_problems,
        neighbourhood=neighbourhood,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=LEVELS,
        naive_answer=naive_answer,
    )
)
