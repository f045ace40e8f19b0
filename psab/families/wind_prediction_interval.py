"""wind_prediction_interval — day-ahead hourly prediction intervals of wind farm power (forecast).

The case of :mod:`psab.families.wind_power_forecast` plus the reference point forecast's errors
over the past 21 days (per unit of installed capacity, by lead hour) and a nominal coverage.
The agent gives a lower and an upper bound for each of the next 24 hours. Admissible: 0 ≤ lower
≤ upper ≤ available capacity. Feasible only if the empirical coverage on the hidden realized
power reaches the nominal coverage less the stated sample-size allowance (one-sided binomial
lower bound at the stated confidence, :func:`psab.evaluators.forecast.coverage_rule`). Score:
reference mean width ÷ submitted mean width, capped at 1 (sharpness subject to calibration,
Gneiting, Balabdaoui & Raftery 2007); the interval (Winkler) score goes into the evidence.

The reference interval is the empirical-quantile method: the reference point forecast plus the
(1 − c)/2 and (1 + c)/2 quantiles of the past errors of the same lead block (hours 1-6, 7-12,
13-18, 19-24), scaled by the available capacity and clipped to [0, available capacity or the
curtailment limit].

Sources: Khorramdel et al., fuzzy prediction intervals (the catalogue's source); P. Pinson, H. A.
Nielsen, J. K. Møller, H. Madsen, G. N. Kariniotakis, *Non-parametric probabilistic forecasts of
wind power: required properties and evaluation*, Wind Energy 10(6), 497-516, 2007 (reliability
then sharpness; empirical quantiles of past errors by horizon); T. Gneiting, A. E. Raftery, JASA
102(477), 2007, eq. 43 (interval score).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import forecast as fc
from psab.evaluators import input_checks as ic
from psab.families import _wind
from psab.families.wind_power_forecast import COMMON_EN, COMMON_RU
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates.wind_curves import PROVENANCE as CURVES_PROVENANCE

FAMILY_ID = "wind_prediction_interval"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 72.
MAX_INPUT_ITEMS = 10000

#: Lead blocks (horizon steps, from ≤ t < to) whose past errors are pooled for one quantile pair.
LEAD_BLOCKS = ((0, 6), (6, 12), (12, 18), (18, 24))
#: A realized value within this much of a bound counts as covered (MW; rounding of the answer).
HIT_SLACK_MW = 1e-6
#: A trivial interval reaching this score makes the draw too easy.
TRIVIAL_SCORE_LIMIT = 0.98

INPUTS_SCHEMA: dict[str, Any] = {
    **_wind.INPUTS_SCHEMA,
    "required": [*_wind.INPUTS_SCHEMA["required"], "error_history", "nominal_coverage", "coverage_confidence"],
    "properties": {
        **_wind.INPUTS_SCHEMA["properties"],
        "error_history": {"type": "object", "required": ["errors_pu"],
                          "properties": {"errors_pu": {"type": "array", "minItems": 5,
                                                       "items": {"type": "array", "items": s.NUMBER}}}},
        "nominal_coverage": {"type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 1},
        "coverage_confidence": {"type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 1},
    },
}


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    T = len(inputs["nwp_wind_speed_m_s"])
    bound = "{} bound of the hour's interval, MW (0 ≤ lower ≤ upper ≤ available capacity)"
    bound_ru = "{} граница интервала на час, МВт (0 ≤ нижняя ≤ верхняя ≤ располагаемая мощность)"
    return s.submission(
        {"lower_mw": s.array(s.number(bound.format("lower"), ru=bound_ru.format("нижняя")),
                             f"one value per horizon hour, in time order ({T} hours)", length=T,
                             ru=f"по одному значению на каждый час горизонта ({T} ч)"),
         "upper_mw": s.array(s.number(bound.format("upper"), ru=bound_ru.format("верхняя")),
                             f"one value per horizon hour, in time order ({T} hours)", length=T,
                             ru=f"по одному значению на каждый час горизонта ({T} ч)")},
        "wind farm power prediction intervals", ru="интервалы прогноза мощности ветроэлектростанции")


def check(inputs: dict[str, Any]) -> None:
    _wind.check_inputs(inputs)
    T = len(inputs["nwp_wind_speed_m_s"])
    if T != 24:
        raise InvalidTaskError("public_inputs/nwp_wind_speed_m_s must have 24 hourly values (the lead blocks cover 24 hours)")
    for d, day in enumerate(inputs["error_history"]["errors_pu"]):
        if len(day) != T:
            raise InvalidTaskError(f"public_inputs/error_history/errors_pu/{d} must have one error per lead hour ({T})")
        if any(abs(e) > 1.0 for e in day):
            raise InvalidTaskError(f"public_inputs/error_history/errors_pu/{d} holds an error beyond ±1 pu of capacity")


def upper_limits_mw(inputs: dict[str, Any]) -> np.ndarray:
    return np.minimum(_wind.available_capacity_mw(inputs), _wind.curtailment_limits_mw(inputs))


def interval_mw(inputs: dict[str, Any], *, naive: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The reference interval (see the module docstring); ``naive``: the naive point forecast,
    errors pooled over every lead, no curtailment clip."""
    c = inputs["nominal_coverage"]
    cap = _wind.available_capacity_mw(inputs)
    p = _wind.point_forecast_mw(inputs, naive=naive)
    errors = np.asarray(inputs["error_history"]["errors_pu"], float)
    lo, hi = np.empty(p.size), np.empty(p.size)
    for a, b in ((0, p.size),) if naive else LEAD_BLOCKS:
        # numpy's default linear interpolation between order statistics (Hyndman & Fan type 7)
        q_lo, q_hi = np.quantile(errors[:, a:b], [(1.0 - c) / 2.0, (1.0 + c) / 2.0])
        lo[a:b], hi[a:b] = p[a:b] + cap * q_lo, p[a:b] + cap * q_hi
    top = np.full(p.size, cap) if naive else upper_limits_mw(inputs)
    return np.clip(lo, 0.0, top), np.clip(hi, 0.0, top)


def solve(task: Task, backend: str) -> Reference:
    inputs = task.public_inputs
    check(inputs)
    lo, hi = interval_mw(inputs)
    return Reference(answer={"lower_mw": _wind.clean(lo), "upper_mw": _wind.clean(hi)},
                     evidence={"point_forecast_mw": _wind.clean(_wind.point_forecast_mw(inputs))},
                     method="reference point forecast + empirical quantiles of the past errors per lead block × available "
                            "capacity, clipped to [0, available capacity or curtailment limit]")


def _measures(inputs: dict[str, Any], lo: np.ndarray, hi: np.ndarray, y: np.ndarray) -> dict[str, float]:
    alpha = 1.0 - inputs["nominal_coverage"]
    return {"mean_width_mw": float(np.mean(hi - lo)), "winkler_mw": fc.winkler(lo, hi, y, alpha),
            "hits": int(fc.hits(lo, hi, y, HIT_SLACK_MW).sum())}


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    inputs = task.public_inputs
    cap = _wind.available_capacity_mw(inputs)
    checks = ctx.checks()
    lo, hi = np.asarray(answer["lower_mw"], float), np.asarray(answer["upper_mw"], float)
    for t in range(lo.size):
        checks.within(f"/lower_mw/{t}", float(lo[t]), 0.0, cap, "0 ≤ lower ≤ available capacity (MW)", "power_mw")
        checks.within(f"/upper_mw/{t}", float(hi[t]), 0.0, cap, "0 ≤ upper ≤ available capacity (MW)", "power_mw")
        checks.at_most(f"/lower_mw/{t}", float(lo[t]), float(hi[t]), "lower ≤ upper", "power_mw")
    y = _wind.realized(task)
    rule = fc.coverage_rule(y.size, inputs["nominal_coverage"], inputs["coverage_confidence"])
    ref = ctx.reference().answer
    mine = _measures(inputs, lo, hi, y)
    theirs = _measures(inputs, np.asarray(ref["lower_mw"], float), np.asarray(ref["upper_mw"], float), y)
    if mine["hits"] < rule.min_hits:
        checks.violate("", "empirical coverage ≥ nominal coverage − sample-size allowance",
                       f"≥ {rule.min_hits}/{rule.n} hours covered", f"{mine['hits']}/{rule.n} hours covered")
    skill = fc.skill_ratio(theirs["mean_width_mw"], mine["mean_width_mw"])
    evidence = {
        "coverage": round(mine["hits"] / y.size, 6), "hits": mine["hits"], "min_hits": rule.min_hits,
        "coverage_allowance": round(rule.allowance, 6), "mean_width_mw": round(mine["mean_width_mw"], 6),
        "reference_mean_width_mw": round(theirs["mean_width_mw"], 6), "winkler_mw": round(mine["winkler_mw"], 6),
        "reference_winkler_mw": round(theirs["winkler_mw"], 6), "reference_coverage": round(theirs["hits"] / y.size, 6),
        "beats_reference": bool(skill > 1.0 + 1e-9),
    }
    return Assessment(violations=checks.violations, skill=min(skill, 1e6), evidence=evidence)


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """The wind case of :func:`psab.families._wind.synthesize` with its past errors and a
    nominal coverage of 80 % or 90 % at confidence 0.95."""
    inputs, key, extra = _wind.synthesize(rng, level)
    inputs["error_history"] = extra
    inputs["nominal_coverage"] = float(rng.choice((0.8, 0.9)))
    inputs["coverage_confidence"] = 0.95
    return Generated(public_inputs=inputs, key=key)


def baselines(task: Task) -> dict[str, dict[str, Any]]:
    """Trivial intervals: zero width at the reference point forecast, zero width at zero, the
    history's power quantiles (climatology), and the whole range [0, available capacity]."""
    inputs = task.public_inputs
    c = inputs["nominal_coverage"]
    T = len(inputs["nwp_wind_speed_m_s"])
    p = _wind.point_forecast_mw(inputs)
    top = upper_limits_mw(inputs)
    q_lo, q_hi = np.quantile(_wind.history_power_mw(inputs), [(1.0 - c) / 2.0, (1.0 + c) / 2.0])
    pairs = {
        "point": (p, p),
        "zero": (np.zeros(T), np.zeros(T)),
        "climatology": (np.minimum(np.full(T, q_lo), top), np.minimum(np.full(T, q_hi), top)),
        "full_range": (np.zeros(T), np.full(T, _wind.available_capacity_mw(inputs))),
    }
    return {name: {"lower_mw": _wind.clean(lo), "upper_mw": _wind.clean(hi)} for name, (lo, hi) in pairs.items()}


def accept(task: Task, reference: Reference) -> str | None:
    """Reject a draw where a trivial interval scores (nearly) 1, or where the reference interval
    is the whole range (nothing to be sharp about)."""
    from psab.evaluators.kernel import assess_valid_answer
    from psab.registry import get_family

    spec = get_family(FAMILY_ID)
    for name, answer in baselines(task).items():
        result = assess_valid_answer(task, spec, "surrogate", answer)
        if result.score >= TRIVIAL_SCORE_LIMIT:
            return f"the trivial {name} interval scores {result.score:.3f}"
    return None


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: the naive point forecast (every turbine, no shear, iced hours kept,
    no curtailment) with the quantiles of every past error pooled over all leads."""
    lo, hi = interval_mw(task.public_inputs, naive=True)
    cap = _wind.available_capacity_mw(task.public_inputs)
    return {"lower_mw": _wind.clean(np.minimum(lo, cap)), "upper_mw": _wind.clean(np.minimum(hi, cap))}


PRESENTATION = {
    "en": {
        "title": "Day-ahead prediction intervals of wind farm power",
        "statement": (
            "Give, for each of the next 24 hours, an interval [lower, upper] (MW) that should contain the farm's "
            "realized power with probability nominal_coverage. " + COMMON_EN + " error_history.errors_pu holds, for "
            "each of the past days (rows) and each lead hour 1-24 (columns), the error of the reference point forecast "
            "(realized − forecast) per unit of the farm's installed capacity. The reference point forecast: (1) bring "
            "the history NWP to the measurement height, v·(h_meas/h_nwp)^α; (2) bias b = mean of (measured − NWP) over "
            "the history hours not flagged 'icing'; (3) per horizon hour v_meas = max(0, NWP·(h_meas/h_nwp)^α + b); (4) "
            "per group v_hub = v_meas·(hub_height_m/h_meas)^α, power by linear interpolation of the power curve (0 "
            "below its first and above its last point) times available_count; (5) Σ groups / 1000 MW, capped by "
            "limit_mw in curtailed steps. The reference interval (score 1 on its own): for each lead block — hours "
            "1-6, 7-12, 13-18, 19-24 — the (1 − c)/2 and (1 + c)/2 quantiles (c = nominal_coverage; linear "
            "interpolation between order statistics, numpy's default) of the past errors of that block, all days "
            "pooled, times the available capacity Σ available_count·rated_power_kw/1000, added to the point forecast, "
            "both bounds clipped to [0, available capacity, or limit_mw in curtailed steps]. Sharper intervals that "
            "still cover are welcome."
        ),
        "answer_notes": (
            "lower_mw and upper_mw: one value per hour, 0 ≤ lower ≤ upper ≤ available capacity (±1e-6 MW). Feasible "
            "only if at least min_hits of the 24 realized values lie in their intervals (within 1e-6 MW of a bound counts as "
            "inside), min_hits being the largest k "
            "with P(X < k) ≤ 1 − coverage_confidence for X ~ Binomial(24, nominal_coverage) (e.g. 19 at 90 %, 16 at "
            "80 %, confidence 0.95). Score = min(1, reference mean width / your mean width); the interval (Winkler) "
            "score is reported in the evidence."
        ),
    },
    "ru": {
        "title": "Интервалы прогноза мощности ветроэлектростанции на сутки вперёд",
        "statement": (
            "Для каждого из следующих 24 часов укажите интервал [нижняя, верхняя] (МВт), который с вероятностью "
            "nominal_coverage должен содержать фактическую мощность ВЭС. " + COMMON_RU + " error_history.errors_pu — "
            "для каждого из прошедших дней (строки) и каждого часа упреждения 1-24 (столбцы) ошибка эталонного "
            "точечного прогноза (факт − прогноз) в о.е. установленной мощности ВЭС. Эталонный точечный прогноз: (1) "
            "привести ЧПП предыстории к высоте измерений: v·(h_изм/h_ЧПП)^α; (2) смещение b — среднее (измеренная − "
            "ЧПП) по часам предыстории без отметки 'icing'; (3) для часа горизонта v_изм = max(0, ЧПП·(h_изм/h_ЧПП)^α "
            "+ b); (4) для группы v_ось = v_изм·(hub_height_m/h_изм)^α, мощность — линейной интерполяцией "
            "характеристики (0 ниже первой и выше последней точки), умноженная на available_count; (5) Σ по группам / "
            "1000 МВт, не более limit_mw на шагах с ограничением. Эталонный интервал (сам получает 1): для каждого "
            "блока упреждений — часы 1-6, 7-12, 13-18, 19-24 — квантили уровней (1 − c)/2 и (1 + c)/2 (c = "
            "nominal_coverage; линейная интерполяция между порядковыми статистиками, как по умолчанию в numpy) "
            "прошлых ошибок этого блока по всем дням вместе, умноженные на располагаемую мощность Σ "
            "available_count·rated_power_kw/1000 и прибавленные к точечному прогнозу; обе границы ограничены "
            "диапазоном [0, располагаемая мощность или limit_mw на шагах с ограничением]. Более узкие интервалы, "
            "сохраняющие покрытие, приветствуются."
        ),
        "answer_notes": (
            "lower_mw и upper_mw: по одному значению на час, 0 ≤ нижняя ≤ верхняя ≤ располагаемая мощность (±1e-6 "
            "МВт). Ответ допустим, только если не менее min_hits из 24 фактических значений попали в свои интервалы "
            "(значение в пределах 1e-6 МВт от границы считается попавшим); "
            "min_hits — наибольшее k, при котором P(X < k) ≤ 1 − coverage_confidence для X ~ Bin(24, "
            "nominal_coverage) (например, 19 при 90 %, 16 при 80 %, доверительная вероятность 0,95). Оценка = min(1, "
            "средняя ширина эталона / средняя ширина ответа); интервальная оценка Винклера приводится в evidence."
        ),
        "hard_constraints": (
            "по одной паре границ на каждый час горизонта, по порядку",
            "0 ≤ нижняя ≤ верхняя ≤ располагаемая мощность Σ available_count·rated_power_kw/1000 МВт в каждом часе (±1e-6 МВт)",
            "фактическая мощность попадает в интервал не менее чем в min_hits часах из 24 (номинальное покрытие минус допуск на объём выборки, односторонняя биномиальная граница при coverage_confidence)",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Give central prediction intervals of the farm's hourly power (MW) for the 24 hours after issue_time_utc at "
        "nominal_coverage, evaluated as in Pinson et al., Wind Energy 10(6), 2007 (reliability first, then "
        "sharpness): feasible when the empirical coverage on the realized power is at least the one-sided binomial "
        "lower bound at coverage_confidence, scored by mean width against the reference, interval score (Gneiting & "
        "Raftery 2007, eq. 43) in evidence. " + COMMON_EN + " error_history.errors_pu: the reference point "
        "forecast's past errors (realized − forecast, pu of installed capacity; rows days, columns lead hours 1-24). "
        "The reference point forecast is the NWP → hub-height wind → power curve model with an additive bias from "
        "the non-iced history hours (power-law shear with the stated exponent, available turbines only, curtailment "
        "caps, curves linear and zero outside their speeds); the reference interval adds the empirical error "
        "quantiles of each 6-hour lead block (numpy's default interpolation) scaled by the available capacity, "
        "both bounds clipped to the physical range [0, available capacity], in curtailed steps to [0, the lower of "
        "available capacity and limit_mw] (the curtailment cap included).")},
    "ru": {"statement": (
        "Постройте центральные интервалы прогноза часовой мощности ВЭС (МВт) на 24 часа после issue_time_utc с "
        "номинальным покрытием nominal_coverage; оценка по Pinson и др., Wind Energy 10(6), 2007 (сначала "
        "надёжность, затем острота): ответ допустим, если эмпирическое покрытие по фактической мощности не ниже "
        "односторонней биномиальной границы при coverage_confidence; оценка — по средней ширине относительно "
        "эталона, интервальная оценка (Gneiting, Raftery 2007, ф. 43) — в evidence. " + COMMON_RU + " "
        "error_history.errors_pu — прошлые ошибки эталонного точечного прогноза (факт − прогноз, о.е. установленной "
        "мощности; строки — дни, столбцы — часы упреждения 1-24). Эталонный точечный прогноз — модель ЧПП → ветер "
        "на высоте оси → мощностная характеристика с аддитивной поправкой смещения по часам предыстории без "
        "обледенения (степенной закон профиля с заданным показателем, только исправные ВЭУ, ограничения мощности, "
        "характеристики линейные и нулевые вне диапазона); эталонный интервал добавляет эмпирические квантили "
        "ошибок каждого 6-часового блока упреждений (интерполяция numpy по умолчанию), умноженные на располагаемую "
        "мощность; обе границы ограничены физическим диапазоном [0, располагаемая мощность], а на шагах с "
        "ограничением мощности — [0, меньшее из располагаемой мощности и limit_mw] (с учётом команды на "
        "ограничение).")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged on the hidden realized farm power of the 24 hours: infeasible when fewer than min_hits realized "
               "values lie in their intervals; otherwise score = min(1, reference mean width / your mean width)."),
        "ru": ("Проверяется по скрытой фактической мощности ВЭС за 24 часа: ответ недопустим, если в свои интервалы "
               "попало меньше min_hits значений; иначе оценка = min(1, средняя ширина эталона / средняя ширина ответа)."),
    },
}


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="forecasting",
        scoring_kind="forecast",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "Khorramdel et al., fuzzy prediction intervals (the source the psab catalogue names for this family)",
                "locator": "psab families.md §8, wind_prediction_interval",
                "note": "Prediction intervals of wind power judged by coverage and width; exact paper and equations to be "
                        "confirmed by the maintainers.",
                "confidence": "medium",
            },
            {
                "title": "P. Pinson, H. A. Nielsen, J. K. Møller, H. Madsen, G. N. Kariniotakis, Non-parametric probabilistic "
                         "forecasts of wind power: required properties and evaluation, Wind Energy 10(6), 497-516, 2007",
                "locator": "§3 (reliability, sharpness), §4 (evaluation); empirical quantiles of past errors by look-ahead time",
                "note": "Feasibility = reliability (coverage with a binomial sample-size allowance); score = sharpness "
                        "(mean width) against the reference interval.",
                "confidence": "high",
            },
            {
                "title": "T. Gneiting, A. E. Raftery, Strictly proper scoring rules, prediction, and estimation, JASA "
                         "102(477), 359-378, 2007",
                "locator": "§6.2, eq. 43 (interval score, after Winkler 1972)",
                "note": "Reported in evidence (winkler_mw) beside the width score.",
                "confidence": "high",
            },
            {
                "title": "H. Madsen et al., Wind Engineering 29(6), 2005; L. Landberg, J. Wind Eng. Ind. Aerodyn. 80, 1999; "
                         "B. G. Brown, R. W. Katz, A. H. Murphy, J. Climate Appl. Meteor. 23, 1984; M. Lange, J. Sol. "
                         "Energy Eng. 127(2), 2005",
                "locator": "as in wind_power_forecast: the reference point forecast and the wind and NWP error model",
                "note": "The point forecast the intervals are built around and the generator of the held-out cases.",
                "confidence": "medium",
            },
            CURVES_PROVENANCE,
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "one pair of bounds per horizon hour, in time order",
            "0 ≤ lower ≤ upper ≤ available capacity Σ available_count·rated_power_kw/1000 MW in every hour (±1e-6 MW)",
            "the realized power lies in its interval in at least min_hits of the 24 hours (nominal coverage less the "
            "sample-size allowance, one-sided binomial bound at coverage_confidence)",
        ),
        metrics=(
            {"name": "coverage", "direction": "maximize", "description": "share of realized values inside their intervals, at least min_hits/24 required (evidence.coverage)"},
            {"name": "winkler_mw", "direction": "minimize", "description": "mean interval (Winkler) score (evidence.winkler_mw)", "unit": "MW"},
        ),
        tolerances={"relative": 1e-3, "absolute_floors": {"default": 1e-3}, "feasibility": {"power_mw": 1e-6, "default": 1e-6}},
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        # A lower bound raised by 5 % narrows the interval; while it still covers, a sharper
        # interval is a better one and the score caps it at 1 (sharpness subject to reliability).
        mutation_exempt=("/lower_mw/*",),
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
    )
)
