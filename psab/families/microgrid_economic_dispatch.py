"""microgrid_economic_dispatch — day-ahead economic dispatch of a grid-connected microgrid (optimize).

Given 24 hourly steps of load, PV forecast and import/export prices with the PCC limits, a
diesel unit and a battery, the agent schedules every resource hour by hour: diesel output,
grid import and export, battery charge and discharge, PV used (the rest is curtailed) and the
battery's stored energy at the end of each hour. The evaluator checks the power balance of
every hour, every unit, PCC and battery limit, recomputes the stored-energy recursion from the
charge and discharge powers and compares it with the submitted energies, checks the final
energy, and recomputes the operating cost. The reference is the same LP solved with HiGHS
through Pyomo (:func:`psab.solvers.dispatch.build_microgrid_dispatch`).

Sources: España et al., microgrid dispatch (the catalogue's source); the storage model and
economic objective as in Parisio, Rikos & Glielmo, IEEE TCST 22(5), 2014, §II; economic
dispatch by merit order, Wood, Wollenberg & Sheblé, *Power Generation, Operation, and
Control*, 3rd ed., 2014, ch. 3.
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
from psab.solvers.dispatch import (
    MICROGRID_FIELDS,
    Formulation,
    MicrogridData,
    build_microgrid_dispatch,
    clean,
    formulation_for,
    schedule_arrays,
    step_minutes_to_hours,
)
from psab.surrogates.dispatch import soc_trajectory

FAMILY_ID = "microgrid_economic_dispatch"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 96; one LP over all steps.
MAX_INPUT_ITEMS = 2000

# ---------------------------------------------------------------------------- contract

FIELD_WORDS = {
    "p_diesel_mw": "diesel output, MW",
    "p_import_mw": "power bought from the grid at the PCC, MW (>= 0)",
    "p_export_mw": "power sold to the grid at the PCC, MW (>= 0)",
    "p_charge_mw": "battery charging power drawn from the microgrid bus, MW (>= 0)",
    "p_discharge_mw": "battery discharging power delivered to the microgrid bus, MW (>= 0)",
    "p_pv_mw": "PV power actually used, MW (at most the forecast; the rest is curtailed)",
    "soc_mwh": "energy stored in the battery at the END of the step, MWh",
}
FIELD_WORDS_RU = {
    "p_diesel_mw": "мощность дизель-генератора, МВт",
    "p_import_mw": "мощность, покупаемая из сети в точке присоединения, МВт (>= 0)",
    "p_export_mw": "мощность, продаваемая в сеть в точке присоединения, МВт (>= 0)",
    "p_charge_mw": "мощность заряда батареи, потребляемая из шины микросети, МВт (>= 0)",
    "p_discharge_mw": "мощность разряда батареи, отдаваемая в шину микросети, МВт (>= 0)",
    "p_pv_mw": "фактически используемая мощность СЭС, МВт (не более прогноза; остальное ограничивается)",
    "soc_mwh": "запас энергии в батарее на КОНЕЦ шага, МВт·ч",
}


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    T = len(inputs["load_mw"])
    step = s.obj({name: s.number(words, ru=FIELD_WORDS_RU[name]) for name, words in FIELD_WORDS.items()},
                 "the set-points of one step", ru="уставки одного шага")
    return s.submission({"schedule": s.array(step, f"one object per step, in time order ({T} steps)", length=T,
                                             ru=f"по одному объекту на шаг, в порядке времени (шагов: {T})")},
                        "microgrid economic dispatch schedule", ru="график экономической диспетчеризации микросети")


INPUTS_SCHEMA = s.obj({
    "step_minutes": s.POSITIVE, "currency": {"type": "string"},
    "load_mw": ic.series_schema(nonnegative=True), "pv_forecast_mw": ic.series_schema(nonnegative=True),
    "grid": s.obj({"import_price_per_mwh": ic.series_schema(), "export_price_per_mwh": ic.series_schema(),
                   "import_limit_mw": s.NONNEGATIVE, "export_limit_mw": s.NONNEGATIVE}),
    "diesel": s.obj({"id": s.ID, "p_max_mw": s.NONNEGATIVE, "cost_per_mwh": s.NUMBER}),
    "battery": ic.storage_schema(),
})

def input_problems(inputs: dict[str, Any]) -> list[str]:
    """Every series one value per step, distinct ids, and the battery's energy limits ordered."""
    p = ic.Problems()
    T = len(inputs["load_mw"])
    p.length("/pv_forecast_mw", inputs["pv_forecast_mw"], T, "step of load_mw")
    p.length("/grid/import_price_per_mwh", inputs["grid"]["import_price_per_mwh"], T, "step of load_mw")
    p.length("/grid/export_price_per_mwh", inputs["grid"]["export_price_per_mwh"], T, "step of load_mw")
    if inputs["diesel"]["id"] == inputs["battery"]["id"]:
        p.add("/battery/id", "must differ from the diesel's id")
    ic.storage_problems(p, "/battery", inputs["battery"])
    return p

PRESENTATION = {
    "en": {
        "title": "Economic dispatch of a grid-connected microgrid",
        "statement": (
            "Schedule a grid-connected microgrid for the day at minimum operating cost. public_inputs give, for every "
            "step of step_minutes minutes, the load (load_mw) and the PV forecast (pv_forecast_mw); the grid tariff "
            "(import and export prices per MWh, in currency) with the import and export limits at the point of common "
            "coupling (PCC); a diesel unit that may run anywhere between 0 and p_max_mw at cost_per_mwh; and a battery "
            "with charging and discharging power limits, a stored-energy window [soc_min_mwh, soc_max_mwh], charging and "
            "discharging efficiencies, an initial stored energy and a minimum stored energy at the end of the day, and a "
            "cycling cost per MWh discharged. For every step give the diesel output, the grid import and export, the "
            "battery charging and discharging power, the PV power used (curtailment is allowed) and the stored energy at "
            "the end of the step. Every step must balance: diesel + import − export + discharge − charge + PV used = "
            "load. The stored energy follows E_t = E_(t−1) + eta_charge·P_charge·Δt − P_discharge·Δt/eta_discharge, "
            "starting from soc_initial_mwh (Δt = step_minutes/60 h). Cost = Σ_t Δt·(diesel cost·P_diesel + import "
            "price·P_import − export price·P_export + cycling cost·P_discharge). Conventions: powers in MW, energies in "
            "MWh, prices and costs per MWh in currency, applied to energy (price·P·Δt — with 15-minute steps a step "
            "carries a quarter of the hourly energy); the stored energy is the value at the END of each step and the "
            "final requirement applies to the end of the last step; charging and discharging in the same step, or "
            "importing and exporting in the same step, are not forbidden (they never pay: efficiencies below 1, "
            "cycling cost and export prices below import prices make them dearer); curtailment costs nothing."
        ),
        "answer_notes": (
            "All powers are non-negative MW. Balances and limits are checked within 1e-4 MW and the energy recursion "
            "and energy limits within 1e-4 MWh; the score is 1 at the optimal cost and falls in proportion to the "
            "extra cost (relative to max(|optimal cost|, 100 currency units))."
        ),
    },
    "ru": {
        "title": "Экономическая диспетчеризация микросети, подключённой к энергосистеме",
        "statement": (
            "Составьте суточный график работы микросети, подключённой к внешней сети, с минимальными эксплуатационными "
            "затратами. В public_inputs для каждого интервала длительностью step_minutes минут заданы нагрузка (load_mw) "
            "и прогноз выработки СЭС (pv_forecast_mw); тариф внешней сети (цены покупки и продажи за МВт·ч в валюте "
            "currency) и ограничения покупки и продажи в точке присоединения (PCC); дизель-генератор, который может "
            "работать с любой мощностью от 0 до p_max_mw по цене cost_per_mwh; аккумуляторная батарея с ограничениями "
            "мощности заряда и разряда, допустимым диапазоном запасённой энергии [soc_min_mwh, soc_max_mwh], КПД заряда "
            "и разряда, начальным запасом энергии, минимальным запасом в конце суток и стоимостью циклирования за МВт·ч "
            "отданной энергии. Для каждого интервала укажите мощность дизель-генератора, покупку и продажу мощности, "
            "мощность заряда и разряда батареи, используемую мощность СЭС (ограничение выработки допускается) и запас "
            "энергии в батарее на конец интервала. Баланс каждого интервала: дизель + покупка − продажа + разряд − заряд "
            "+ используемая СЭС = нагрузка. Запас энергии меняется по закону E_t = E_(t−1) + eta_charge·P_заряд·Δt − "
            "P_разряд·Δt/eta_discharge, начиная с soc_initial_mwh (Δt = step_minutes/60 ч). Затраты = Σ_t Δt·(цена "
            "дизеля·P_дизель + цена покупки·P_покупка − цена продажи·P_продажа + стоимость циклирования·P_разряд). "
            "Соглашения: мощности в МВт, энергия в МВт·ч, цены и затраты за МВт·ч в валюте currency, применяются к "
            "энергии (цена·P·Δt — при 15-минутных шагах на шаг приходится четверть часовой энергии); запас энергии — "
            "значение на КОНЕЦ каждого шага, требование к конечному запасу относится к концу последнего шага; заряд и "
            "разряд на одном шаге, как и одновременные покупка и продажа, не запрещены (они никогда не выгодны: КПД "
            "меньше 1, стоимость циклирования и цены продажи ниже цен покупки); ограничение выработки СЭС бесплатно."
        ),
        "answer_notes": (
            "Все мощности неотрицательны, в МВт. Балансы и ограничения проверяются с допуском 1e-4 МВт, уравнение "
            "запаса энергии и его пределы — с допуском 1e-4 МВт·ч; оценка равна 1 при оптимальных затратах и "
            "уменьшается пропорционально перерасходу (относительно max(|оптимальные затраты|, 100 единиц валюты))."
        ),
        "hard_constraints": (
            "баланс мощности на каждом шаге: P_diesel + P_import − P_export + P_discharge − P_charge + P_pv_used = нагрузка (±1e-4 МВт)",
            "0 ≤ P_diesel ≤ p_max_mw; 0 ≤ P_import ≤ import_limit_mw; 0 ≤ P_export ≤ export_limit_mw (±1e-4 МВт)",
            "0 ≤ P_charge ≤ p_charge_max_mw; 0 ≤ P_discharge ≤ p_discharge_max_mw; 0 ≤ P_pv_used ≤ прогноз выработки СЭС (±1e-4 МВт)",
            "запас энергии в конце каждого шага равен значению, вычисленному по рекуррентному уравнению от soc_initial_mwh (±1e-4 МВт·ч), и лежит в [soc_min_mwh, soc_max_mwh]",
            "запас энергии в конце последнего шага ≥ soc_terminal_min_mwh",
        ),
    },
}

TOLERANCES = {
    "relative": 1e-3,
    # exact comparisons (and what counts as a real change of an answer value): 1e-3 MW / MWh
    "absolute_floors": {"default": 1e-3},
    "feasibility": {"power_mw": 1e-4, "energy_mwh": 1e-4, "default": 1e-4},
    "objective": {"relative": 1e-7, "absolute": 1e-6},
}

# ---------------------------------------------------------------------------- physics


def microgrid_data(inputs: dict[str, Any]) -> MicrogridData:
    return MicrogridData.from_inputs(inputs, inputs["load_mw"], inputs["pv_forecast_mw"])


def formulation(inputs: dict[str, Any]) -> Formulation:
    return build_microgrid_dispatch(microgrid_data(inputs))


def answer_values(answer: dict[str, Any]) -> Any:
    return algebra.values(**schedule_arrays(answer["schedule"], MICROGRID_FIELDS))


def solve(task: Task, backend: str) -> Reference:
    from psab.solvers.dispatch import solve_formulation

    solved = solve_formulation(formulation_for(task, formulation))
    T = len(task.public_inputs["load_mw"])
    schedule = [{name: clean(solved.values[var][t]) for name, var in MICROGRID_FIELDS.items()} for t in range(T)]
    return Reference(
        answer={"schedule": schedule},
        objective=solved.objective,
        evidence={"lp_variables": solved.n_variables, "lp_rows": solved.n_constraints},
        method="LP (Pyomo + HiGHS): balance, unit/PCC/battery limits, energy recursion, final energy",
    )


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    f = formulation_for(task, formulation)
    v = answer_values(answer)
    violations = f.check(v, ctx.tol.slack)
    costs = f.step_costs(v).tolist()
    dt = f.dt_h
    pv = np.asarray(task.public_inputs["pv_forecast_mw"], float)
    bat = task.public_inputs["battery"]
    evidence = {
        "step_cost": [round(c, 6) for c in costs],
        # the stored energy the submitted powers imply, from the initial energy (the rows
        # compare each submitted energy with its predecessor's)
        "soc_from_powers_mwh": np.round(soc_trajectory(bat["soc_initial_mwh"], v.p_charge, v.p_discharge, bat["eta_charge"],
                                                       bat["eta_discharge"], dt), 6).tolist(),
        "energy_mwh": {
            "diesel": round(float(v.p_diesel.sum() * dt), 6),
            "import": round(float(v.p_import.sum() * dt), 6),
            "export": round(float(v.p_export.sum() * dt), 6),
            "charge": round(float(v.p_charge.sum() * dt), 6),
            "discharge": round(float(v.p_discharge.sum() * dt), 6),
            "pv_used": round(float(v.p_pv.sum() * dt), 6),
            "pv_curtailed": round(float((pv - v.p_pv).sum() * dt), 6),
        },
    }
    return Assessment(violations=violations, objective=float(sum(costs)), evidence=evidence)


# ---------------------------------------------------------------------------- held-out draws


def _profile(rng: np.random.Generator, base: np.ndarray, spread: float) -> np.ndarray:
    """``base`` with a random level, a smooth random shape change and hour-to-hour noise."""
    T = len(base)
    hours = np.arange(T)
    wave = 1.0 + spread * np.sin(2 * np.pi * (hours / T) + rng.uniform(0, 2 * np.pi)) * rng.uniform(0.2, 1.0)
    return base * rng.uniform(0.85, 1.15) * wave * rng.uniform(1 - spread / 2, 1 + spread / 2, size=T)


#: Difficulty levels (FamilySpec.levels): 1 — the public case's kind (24 hourly steps, final
#: energy = initial energy); 2 — 96 quarter-hour steps (Δt = 0.25 h in every energy and
#: cost term, prices varying within the hour), a tight PCC import limit that leaves the
#: evening peak to diesel and battery together, and a final energy a fifth of the window
#: above the initial one (the battery must be refilled, at a price, before midnight).
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
    out["step_minutes"] = 15
    out["load_mw"] = np.round(_refined(inputs["load_mw"], 4), 3).tolist()
    out["pv_forecast_mw"] = np.round(np.maximum(_refined(inputs["pv_forecast_mw"], 4), 0.0), 3).tolist()
    grid = dict(inputs["grid"])
    for k in ("import_price_per_mwh", "export_price_per_mwh"):
        grid[k] = np.round(_refined(grid[k], 4), 1).tolist()
    out["grid"] = grid
    return out


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the day: load level and shape, PV size and cloudiness, price level, peak and
    feed-in ratio, diesel cost and size, battery size and initial energy, PCC limits, on the
    level's base case (:data:`LEVELS`).

    Feasibility by construction: import limit + diesel ≥ the peak load, so the idle battery
    with an unchanged final energy is always a feasible schedule at level 1 (at level 2 the
    raised final energy is reachable: the night import room exceeds the charging power);
    curtailment absorbs any PV surplus. Level 1 makes exactly the calls on ``rng`` it made
    before levels existed.
    """
    inputs = _level_base(public.public_inputs, level)
    load = np.round(_profile(rng, np.asarray(inputs["load_mw"], float), 0.12), 3)
    clouds = np.clip(1.0 - rng.uniform(0.0, 0.6) * rng.uniform(0.3, 1.0, size=len(load)), 0.1, 1.0)
    pv = np.round(np.asarray(inputs["pv_forecast_mw"], float) * rng.uniform(0.6, 1.5) * clouds, 3)
    grid = dict(inputs["grid"])
    imp = np.asarray(grid["import_price_per_mwh"], float)
    peak = imp > np.percentile(imp, 75)
    imp = imp * rng.uniform(0.8, 1.25) * np.where(peak, rng.uniform(0.9, 1.3), 1.0) * rng.uniform(0.95, 1.05, size=len(imp))
    grid["import_price_per_mwh"] = np.round(imp, 1).tolist()
    grid["export_price_per_mwh"] = np.round(imp * rng.uniform(0.3, 0.6), 1).tolist()
    diesel = dict(inputs["diesel"])
    diesel["cost_per_mwh"] = round(float(np.percentile(imp, rng.uniform(70, 95))), 1)
    diesel["p_max_mw"] = round(float(inputs["diesel"]["p_max_mw"]) * rng.uniform(0.8, 1.25), 3)
    tight = (0.55, 0.8) if level == 1 else (0.45, 0.6)
    grid["import_limit_mw"] = round(max(float(load.max()) * rng.uniform(*tight), float(load.max()) - diesel["p_max_mw"] + 0.05), 3)
    grid["export_limit_mw"] = round(float(inputs["grid"]["export_limit_mw"]) * rng.uniform(0.5, 1.3), 3)
    bat = dict(inputs["battery"])
    scale = rng.uniform(0.6, 1.6)
    for k in ("p_charge_max_mw", "p_discharge_max_mw", "soc_min_mwh", "soc_max_mwh"):
        bat[k] = round(float(bat[k]) * scale, 3)
    e0 = round(float(rng.uniform(bat["soc_min_mwh"], 0.5 * (bat["soc_min_mwh"] + bat["soc_max_mwh"]))), 3)
    bat["soc_initial_mwh"] = e0
    bat["soc_terminal_min_mwh"] = e0 if level == 1 else round(e0 + 0.2 * (bat["soc_max_mwh"] - bat["soc_min_mwh"]), 3)
    out = dict(inputs)
    out.update(load_mw=load.tolist(), pv_forecast_mw=pv.tolist(), grid=grid, diesel=diesel, battery=bat)
    return Generated(public_inputs=out)


def naive_answer(task: Task) -> dict[str, Any]:
    """Merit order step by step ignoring the battery (idle all day at its initial energy): PV
    first, a surplus exported up to the export limit and the rest curtailed, a deficit met by
    the cheaper of diesel and import in that step and the other taking the rest."""
    inputs = task.public_inputs
    grid, diesel, bat = inputs["grid"], inputs["diesel"], inputs["battery"]
    schedule = []
    for t, (load, pv) in enumerate(zip(inputs["load_mw"], inputs["pv_forecast_mw"], strict=True)):
        d = i = e = 0.0
        used = float(pv)
        net = float(load) - float(pv)
        if net < 0:
            e = min(-net, float(grid["export_limit_mw"]))
            used = float(load) + e
        elif float(diesel["cost_per_mwh"]) < float(grid["import_price_per_mwh"][t]):
            d = min(net, float(diesel["p_max_mw"]))
            i = net - d
        else:
            i = min(net, float(grid["import_limit_mw"]))
            d = net - i
        schedule.append({"p_diesel_mw": round(d, 6), "p_import_mw": round(i, 6), "p_export_mw": round(e, 6),
                         "p_charge_mw": 0.0, "p_discharge_mw": 0.0, "p_pv_mw": round(used, 6),
                         "soc_mwh": bat["soc_initial_mwh"]})
    return {"schedule": schedule}


EXPERT = {
    "en": {"statement": (
        "Schedule the grid-connected microgrid of public_inputs for the day at minimum operating cost: the economic "
        "dispatch with storage of Parisio, Rikos & Glielmo (IEEE TCST 22(5), 2014, §II; storage energy dynamics with "
        "charge and discharge efficiencies, grid exchange at the tariff, here without commitment binaries), the "
        "diesel, PCC exchange, battery and PV set-points of every step within their limits and the battery's "
        "end-of-step energy. The case's own choices: linear costs (diesel per MWh, import and export at the step's "
        "prices, battery cycling per MWh discharged); PV may be curtailed at no cost; the battery must end the day "
        "with at least soc_terminal_min_mwh; steps of step_minutes."
    )},
    "ru": {"statement": (
        "Составьте суточный график микросети public_inputs, подключённой к внешней сети, с минимальными "
        "эксплуатационными затратами: экономическая диспетчеризация с накопителем по Parisio, Rikos, Glielmo (IEEE "
        "TCST 22(5), 2014, §II; динамика запаса энергии с КПД заряда и разряда, обмен с сетью по тарифу, здесь без "
        "двоичных переменных включения) — уставки дизель-генератора, обмена в точке присоединения, батареи и СЭС на "
        "каждом шаге в своих пределах и запас энергии батареи на конец шага. Особенности случая: линейные затраты "
        "(дизель за МВт·ч, покупка и продажа по ценам шага, циклирование батареи за МВт·ч отданной энергии); "
        "выработку СЭС можно ограничивать бесплатно; к концу суток запас батареи не ниже soc_terminal_min_mwh; шаг "
        "step_minutes минут."
    )},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged by psab's surrogate backend (no power-flow simulator: one busbar behind the PCC): balances, unit, "
               "PCC and battery limits and the stored-energy recursion are checked at your numbers, the operating cost "
               "recomputed and compared with the LP optimum solved by HiGHS (proven optimal)."),
        "ru": ("Проверяется суррогатной моделью psab (без расчёта режима сети: одна шина за точкой присоединения): "
               "балансы, пределы агрегатов, обмена и батареи и уравнение запаса энергии проверяются по вашим числам, "
               "эксплуатационные затраты пересчитываются и сравниваются с оптимумом ЛП, решённой в HiGHS (доказанный "
               "оптимум)."),
    },
}


def accept(task: Task, reference: Reference) -> str | None:
    """Reject a draw where the battery would sit idle: then the day has no storage decision."""
    bat = task.public_inputs["battery"]
    dt = step_minutes_to_hours(task.public_inputs["step_minutes"])
    discharged = sum(step["p_discharge_mw"] for step in reference.answer["schedule"]) * dt
    if discharged < 0.25 * (bat["soc_max_mwh"] - bat["soc_min_mwh"]):
        return f"trivial draw: the optimal schedule discharges only {discharged:.3f} MWh"
    return None


# Injections a balanced transfer may move power between, with the sign they enter the balance.
_INJECTIONS = (("p_diesel_mw", 1.0), ("p_import_mw", 1.0), ("p_export_mw", -1.0), ("p_pv_mw", 1.0))


def neighbourhood(task: Task, answer: dict[str, Any]) -> Moves:
    """Feasible-looking moves around the reference, each keeping every balance and the energy
    recursion: in one step, δ MW moved between two injections (diesel, import, export, PV)
    where both have room; and one step's battery discharge raised (or charge lowered) by δ with
    import lowered by δ and the stored energies after it recomputed. An optimal LP schedule
    admits no such move that lowers the cost; one that does shows a defective reference.

    Given as :class:`~psab.generators.acceptance.Moves` with the evaluator's own rows and cost
    in matrix form, so acceptance judges all moves with one product and evaluates in full only
    those that might win."""
    inputs = task.public_inputs
    bat = inputs["battery"]
    dt = step_minutes_to_hours(inputs["step_minutes"])
    limits = {"p_diesel_mw": inputs["diesel"]["p_max_mw"], "p_import_mw": inputs["grid"]["import_limit_mw"],
              "p_export_mw": inputs["grid"]["export_limit_mw"]}
    out = []
    sched = answer["schedule"]
    for t, step in enumerate(sched):
        limits["p_pv_mw"] = inputs["pv_forecast_mw"][t]
        delta = 0.01 * max(1.0, max(abs(step[k]) for k, _ in _INJECTIONS))
        for a, sa in _INJECTIONS:
            for b, sb in _INJECTIONS:
                if a == b:
                    continue
                # raise a's injection by delta, lower b's by delta
                da, db = sa * delta, -sb * delta
                new_a, new_b = step[a] + da, step[b] + db
                if not (0.0 <= new_a <= limits[a] and 0.0 <= new_b <= limits[b]):
                    continue
                out.append((f"step {t}: {delta:.4g} MW from {b} to {a}", [(("schedule", t, a), da), (("schedule", t, b), db)]))
        for key, sign in (("p_discharge_mw", 1.0), ("p_charge_mw", -1.0)):
            new = step[key] + sign * delta
            limit = bat["p_discharge_max_mw"] if key == "p_discharge_mw" else bat["p_charge_max_mw"]
            if not (0.0 <= new <= limit) or step["p_import_mw"] < delta:
                continue
            energy = delta * dt / bat["eta_discharge"] if key == "p_discharge_mw" else delta * dt * bat["eta_charge"]
            moves = [(("schedule", t, key), sign * delta), (("schedule", t, "p_import_mw"), -delta)]
            moves += [(("schedule", u, "soc_mwh"), -energy) for u in range(t, len(sched))]
            out.append((f"step {t}: battery gives {delta:.4g} MW more instead of import", moves))
    return Moves(answer, out, lambda: _screen(task, answer))


def _screen(task: Task, answer: dict[str, Any]) -> Any:
    """The evaluator's rows and cost (:func:`evaluate`: ``formulation(...).check`` and the
    summed step costs) at ``answer``, as a linear screen over ``/schedule/t/<field>``."""
    from psab.evaluators.tolerance import Tolerance

    f = formulation_for(task, formulation)
    column = f.column_of(MICROGRID_FIELDS, lambda p: (p[2], p[1]) if len(p) == 3 and p[0] == "schedule" else None)
    return f.screen(answer_values(answer), Tolerance.from_task(task.tolerances).slack, column)


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
                "locator": "psab families.md §5, microgrid_economic_dispatch",
                "note": "Grid-connected microgrid with PV, a diesel unit and a battery scheduled over a day at minimum operating cost; "
                        "the exact paper and equation numbers are to be confirmed by the maintainers.",
                "confidence": "medium",
            },
            {
                "title": "A. Parisio, E. Rikos, L. Glielmo, A Model Predictive Control Approach to Microgrid Operation Optimization, "
                         "IEEE Transactions on Control Systems Technology 22(5), 1813-1827, 2014",
                "locator": "§II (microgrid model: storage energy dynamics with charge/discharge efficiencies, grid exchange, "
                           "economic cost), here without the unit-commitment binaries",
                "note": "The storage recursion, PCC exchange and cost of this family are that model as an LP.",
                "confidence": "medium",
            },
            {
                "title": "A. J. Wood, B. F. Wollenberg, G. B. Sheblé, Power Generation, Operation, and Control, 3rd ed., Wiley, 2014",
                "locator": "ch. 3, economic dispatch (merit order, linear costs)",
                "note": "The golden case's optimum is derived by merit order with the battery's arbitrage condition.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "power balance every step: P_diesel + P_import − P_export + P_discharge − P_charge + P_pv_used = load (±1e-4 MW)",
            "0 ≤ P_diesel ≤ p_max_mw; 0 ≤ P_import ≤ import_limit_mw; 0 ≤ P_export ≤ export_limit_mw (±1e-4 MW)",
            "0 ≤ P_charge ≤ p_charge_max_mw; 0 ≤ P_discharge ≤ p_discharge_max_mw; 0 ≤ P_pv_used ≤ PV forecast (±1e-4 MW)",
            "stored energy at the end of every step equals the recursion from soc_initial_mwh (±1e-4 MWh) and stays within "
            "[soc_min_mwh, soc_max_mwh]",
            "stored energy at the end of the last step ≥ soc_terminal_min_mwh",
        ),
        metrics=(
            {"name": "pv_curtailed_mwh", "direction": "minimize", "description": "PV energy not used (evidence.energy_mwh)", "unit": "MWh"},
        ),
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
