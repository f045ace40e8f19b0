"""commercial_pv_lcoe_uncertainty — LCOE of a commercial PV system at cost percentiles (exact).

Given the installed-cost percentiles (P10/P50/P90) of hardware and of soft costs, O&M and its
escalation, the discount rate, the lifetime, the module degradation and the site's first-year
specific yield, the agent returns the LCOE at each percentile and the P90 − P10 spread, by the
discounted-cost over discounted-energy formula with the conventions the statement fixes
(:mod:`psab.surrogates.lcoe`).

Annual yields are realistic: a table of US sites whose first-year DC yield was derived with
pvlib (Ineichen clear sky, PVWatts DC with 14 % losses) scaled by the site's measured/clear-sky
GHI (:mod:`psab.backends.pvlib_yield`; the table is carried here so held-out draws do not
depend on the installed pvlib; a test re-derives it when pvlib is installed).

Sources: Short, Packey & Holt, NREL/TP-462-5173 (1995) §4.2; NREL Annual Technology Baseline
(commercial PV: CAPEX, fixed O&M); Ramasamy et al., *U.S. Solar Photovoltaic System and Energy
Storage Cost Benchmarks, With Minimum Sustainable Price Analysis: Q1 2023*, NREL/TP-7A40-87303
(hardware vs soft costs of commercial rooftop PV).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import lcoe

FAMILY_ID = "commercial_pv_lcoe_uncertainty"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 0.
MAX_INPUT_ITEMS = 100
PCTS = ("p10", "p50", "p90")

#: Site → (latitude °, longitude °, altitude m, time zone, measured annual GHI kWh/m² (NSRDB TMY,
#: rounded), first-year DC yield kWh/kWp derived by psab.backends.pvlib_yield with pvlib 0.16.1).
SITES: dict[str, tuple[float, float, float, str, float, float]] = {
    "Phoenix, AZ": (33.45, -112.07, 331, "Etc/GMT+7", 2100, 1934.6),
    "Los Angeles, CA": (34.05, -118.24, 89, "Etc/GMT+8", 1950, 1781.4),
    "Miami, FL": (25.76, -80.19, 2, "Etc/GMT+5", 1850, 1607.0),
    "Denver, CO": (39.74, -104.99, 1609, "Etc/GMT+7", 1800, 1716.8),
    "Houston, TX": (29.76, -95.37, 15, "Etc/GMT+6", 1680, 1502.2),
    "Boston, MA": (42.36, -71.06, 43, "Etc/GMT+5", 1500, 1474.7),
    "Chicago, IL": (41.88, -87.63, 181, "Etc/GMT+6", 1460, 1434.7),
    "Seattle, WA": (47.61, -122.33, 56, "Etc/GMT+8", 1300, 1320.6),
}

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    props = {
        f"lcoe_{p}_usd_per_kwh": s.number(f"LCOE with the {p.upper()} installed costs, USD/kWh", minimum=0,
                                          ru=f"LCOE при капитальных затратах уровня {p.upper()}, долл./кВт·ч")
        for p in PCTS
    }
    props["spread_usd_per_kwh"] = s.number("LCOE at P90 minus LCOE at P10, USD/kWh",
                                           ru="разность LCOE при P90 и при P10, долл./кВт·ч")
    return s.submission(props, "LCOE at the installed-cost percentiles", ru="LCOE при процентилях капитальных затрат")


_NUM = s.NUMBER
_PCT = {"type": "object", "required": list(PCTS), "properties": {p: _NUM for p in PCTS}}
INPUTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["site", "system", "installed_cost", "om_usd_per_kw_dc_yr", "om_escalation_pct", "discount_rate_pct",
                 "lifetime_years", "degradation_pct_per_yr"],
    "properties": {
        "site": {"type": "object", "required": ["name", "first_year_yield_kwh_per_kw_dc"],
                 "properties": {"first_year_yield_kwh_per_kw_dc": _NUM}},
        "system": {"type": "object", "anyOf": [{"required": ["capacity_kw_dc"]},
                                               {"required": ["capacity_kw_ac", "dc_ac_ratio"]}],
                   "properties": {"capacity_kw_dc": _NUM, "capacity_kw_ac": _NUM, "dc_ac_ratio": _NUM}},
        "installed_cost": {"type": "object", "required": ["hardware_usd_per_w_dc"],
                           "anyOf": [{"required": ["soft_usd_per_w_dc"]}, {"required": ["soft_usd_total"]}],
                           "properties": {"hardware_usd_per_w_dc": _PCT, "soft_usd_per_w_dc": _PCT, "soft_usd_total": _PCT}},
        "om_usd_per_kw_dc_yr": _NUM,
        "om_escalation_pct": _NUM,
        "discount_rate_pct": _NUM,
        "lifetime_years": {"type": "integer"},
        "degradation_pct_per_yr": _NUM,
        "inverter_replacement": {"type": "object", "required": ["year", "cost_usd_per_w_ac"],
                                 "properties": {"year": {"type": "integer"}, "cost_usd_per_w_ac": _NUM}},
    },
}

CONVENTIONS_EN = (
    "Conventions: LCOE = [C_0 + Σ_{t=1..N} (O&M_t + R_t)/(1+r)^t] / [Σ_{t=1..N} E_t/(1+r)^t], N = lifetime_years, "
    "r = discount_rate_pct/100. The installed cost C_0 = (hardware + soft cost) × DC capacity is paid at t = 0 "
    "(undiscounted); every other cash flow and each year's energy fall at the END of year t (t = 1..N). "
    "O&M_t = om_usd_per_kw_dc_yr × capacity_kw_dc × (1 + om_escalation_pct/100)^(t−1). E_t = "
    "first_year_yield_kwh_per_kw_dc × capacity_kw_dc × (1 − degradation_pct_per_yr/100)^(t−1) (full yield in year 1, "
    "degradation compounding from year 2). R_t is the inverter replacement (cost_usd_per_w_ac × AC capacity in W) "
    "in its year when the case has one, else 0 — at the stated price, not escalated with O&M. No taxes, incentives, inflation adjustment or residual value. When "
    "the system is given by capacity_kw_ac and dc_ac_ratio, capacity_kw_dc = capacity_kw_ac × dc_ac_ratio; soft "
    "costs given as soft_usd_total are totals for the system (not per watt). Percentiles: the LCOE at Pq uses the "
    "Pq hardware cost together with the Pq soft cost (the two treated as fully correlated), everything else "
    "unchanged; spread = LCOE(P90) − LCOE(P10). Answer in USD/kWh."
)
CONVENTIONS_RU = (
    "Соглашения: LCOE = [C_0 + Σ_{t=1..N} (O&M_t + R_t)/(1+r)^t] / [Σ_{t=1..N} E_t/(1+r)^t], N = lifetime_years, "
    "r = discount_rate_pct/100. Капитальные затраты C_0 = (оборудование + «мягкие» затраты) × мощность по "
    "постоянному току платятся при t = 0 (без дисконтирования); все прочие денежные потоки и выработка года "
    "относятся к КОНЦУ года t (t = 1..N). O&M_t = om_usd_per_kw_dc_yr × capacity_kw_dc × (1 + "
    "om_escalation_pct/100)^(t−1). E_t = first_year_yield_kwh_per_kw_dc × capacity_kw_dc × (1 − "
    "degradation_pct_per_yr/100)^(t−1) (полная выработка в первый год, деградация накапливается со второго). R_t — "
    "замена инвертора (cost_usd_per_w_ac × мощность по переменному току в Вт) в её год, если она задана, иначе 0, — "
    "по заданной цене, без индексации вместе с O&M. "
    "Без налогов, льгот, поправки на инфляцию и остаточной стоимости. Если система задана capacity_kw_ac и "
    "dc_ac_ratio, то capacity_kw_dc = capacity_kw_ac × dc_ac_ratio; «мягкие» затраты soft_usd_total — суммы на "
    "всю систему (не на ватт). Процентили: LCOE при Pq считается с затратами на оборудование уровня Pq и "
    "«мягкими» затратами уровня Pq (полная корреляция), остальное без изменений; разброс = LCOE(P90) − LCOE(P10). "
    "Ответ в долл./кВт·ч."
)

PRESENTATION = {
    "en": {
        "title": "LCOE of a commercial PV system under installed-cost uncertainty",
        "statement": (
            "For the commercial PV system in public_inputs, compute the levelized cost of energy at the P10, P50 and "
            "P90 installed costs (hardware and soft costs given as percentiles), and the spread P90 − P10, with the "
            "case's O&M, escalation, discount rate, lifetime, degradation and first-year yield. " + CONVENTIONS_EN
        ),
        "answer_notes": "Each LCOE and the spread must match within 0.1 % (at least 1e-5 USD/kWh).",
    },
    "ru": {
        "title": "LCOE коммерческой СЭС при неопределённости капитальных затрат",
        "statement": (
            "Для коммерческой СЭС из public_inputs рассчитайте приведённую стоимость электроэнергии (LCOE) при "
            "капитальных затратах уровней P10, P50 и P90 (затраты на оборудование и «мягкие» затраты заданы "
            "процентилями) и разброс P90 − P10 с заданными затратами на эксплуатацию, их ростом, ставкой "
            "дисконтирования, сроком службы, деградацией и выработкой первого года. " + CONVENTIONS_RU
        ),
        "answer_notes": "Каждое значение LCOE и разброс должны совпасть с точностью 0,1 % (не менее 1e-5 долл./кВт·ч).",
        "hard_constraints": (
            "LCOE при P10, P50 и P90 совпадает с пересчётом в пределах max(0,1 %, 1e-5 долл./кВт·ч)",
            "разброс P90 − P10 совпадает с пересчётом в пределах max(0,1 %, 1e-5 долл./кВт·ч)",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Compute the LCOE of the PV system in public_inputs by the discounted-cost over discounted-energy method of "
        "NREL's Manual for the Economic Evaluation of Energy Efficiency and Renewable Energy Technologies "
        "(Short, Packey & Holt 1995, §4.2) at the P10, P50 and P90 installed costs (hardware and soft costs at the same "
        "percentile), and the spread P90 − P10. Case choices: investment at t = 0, O&M, replacements and energy at the "
        "end of each year, O&M escalating and yield degrading geometrically from year 2, the inverter replacement at its "
        "stated price (not escalated), no taxes, incentives or "
        "residual value; AC-rated systems convert to DC by the stated DC/AC ratio. USD/kWh."
    )},
    "ru": {"statement": (
        "Рассчитайте LCOE СЭС из public_inputs методом «дисконтированные затраты / дисконтированная выработка» по "
        "руководству NREL (Short, Packey & Holt 1995, §4.2) при капитальных затратах P10, P50 и P90 (оборудование и "
        "«мягкие» затраты одного процентиля) и разброс P90 − P10. Выбор случая: инвестиции при t = 0, эксплуатация, "
        "замены и выработка — в конце каждого года, рост затрат на эксплуатацию и деградация выработки — "
        "геометрические со второго года, замена инвертора — по заданной цене (без индексации), без налогов, льгот и остаточной стоимости; системы, заданные мощностью по "
        "переменному току, пересчитываются на постоянный ток по заданному отношению DC/AC. Долл./кВт·ч."
    )},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged against psab's LCOE computation (psab.surrogates.lcoe) with the stated conventions: each LCOE and the "
              "spread within max(0.1 %, 1e-5 USD/kWh).",
        "ru": "Проверяется по расчёту LCOE в psab (psab.surrogates.lcoe) с заданными соглашениями: каждое LCOE и разброс — "
              "с точностью max(0,1 %, 1e-5 долл./кВт·ч).",
    },
}

# ---------------------------------------------------------------------------- physics


def _bad(field: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"{FAMILY_ID}: public_inputs{field} {why}")


def _percentiles(inputs: dict[str, Any], key: str) -> dict[str, float]:
    q = {p: float(inputs["installed_cost"][key][p]) for p in PCTS}
    for p in PCTS:
        if not q[p] >= 0:
            raise _bad(f"/installed_cost/{key}/{p}", "must be non-negative")
    if not q["p10"] <= q["p50"] <= q["p90"]:
        raise _bad(f"/installed_cost/{key}/p90", "percentiles must not decrease: P10 <= P50 <= P90")
    return q


def lcoes(inputs: dict[str, Any], *, discount_energy: bool = True) -> dict[str, float]:
    """LCOE (USD/kWh) per percentile, after the physical sanity checks."""
    sysm = inputs["system"]
    if "capacity_kw_dc" in sysm:
        kw_dc = float(sysm["capacity_kw_dc"])
        if not kw_dc > 0:
            raise _bad("/system/capacity_kw_dc", "must be positive")
        kw_ac = kw_dc / float(sysm.get("dc_ac_ratio", 1.0))
    else:
        kw_ac, ilr = float(sysm["capacity_kw_ac"]), float(sysm["dc_ac_ratio"])
        if not kw_ac > 0:
            raise _bad("/system/capacity_kw_ac", "must be positive")
        if not 0.8 <= ilr <= 2.0:
            raise _bad("/system/dc_ac_ratio", "must lie in [0.8, 2]")
        kw_dc = kw_ac * ilr
    y = float(inputs["site"]["first_year_yield_kwh_per_kw_dc"])
    if not 0 < y < 3000:
        raise _bad("/site/first_year_yield_kwh_per_kw_dc", "must lie in (0, 3000) kWh/kW")
    n = int(inputs["lifetime_years"])
    if not 1 <= n <= 60:
        raise _bad("/lifetime_years", "must lie in [1, 60]")
    r = float(inputs["discount_rate_pct"]) / 100.0
    if not -0.5 < r < 1.0:
        raise _bad("/discount_rate_pct", "must lie in (-50, 100) %")
    d = float(inputs["degradation_pct_per_yr"]) / 100.0
    if not 0.0 <= d < 0.2:
        raise _bad("/degradation_pct_per_yr", "must lie in [0, 20) %")
    om = float(inputs["om_usd_per_kw_dc_yr"])
    if not om >= 0:
        raise _bad("/om_usd_per_kw_dc_yr", "must be non-negative")
    esc = float(inputs["om_escalation_pct"]) / 100.0
    if not -0.5 < esc < 0.5:
        raise _bad("/om_escalation_pct", "must lie in (-50, 50) %")
    hw = _percentiles(inputs, "hardware_usd_per_w_dc")
    if "soft_usd_per_w_dc" in inputs["installed_cost"]:
        soft = {p: v * kw_dc * 1000.0 for p, v in _percentiles(inputs, "soft_usd_per_w_dc").items()}
    else:
        soft = _percentiles(inputs, "soft_usd_total")
    repl: tuple[tuple[int, float], ...] = ()
    if "inverter_replacement" in inputs:
        ir = inputs["inverter_replacement"]
        if not 1 <= int(ir["year"]) <= n:
            raise _bad("/inverter_replacement/year", "must lie within the lifetime")
        if not float(ir["cost_usd_per_w_ac"]) >= 0:
            raise _bad("/inverter_replacement/cost_usd_per_w_ac", "must be non-negative")
        repl = ((int(ir["year"]), float(ir["cost_usd_per_w_ac"]) * kw_ac * 1000.0),)
    return {p: lcoe.lcoe_per_kwh(hw[p] * kw_dc * 1000.0 + soft[p], om * kw_dc, y * kw_dc, discount_rate=r,
                                 lifetime_years=n, degradation=d, om_escalation=esc, replacements=repl,
                                 discount_energy=discount_energy)
            for p in PCTS}


def _answer(values: dict[str, float]) -> dict[str, Any]:
    out = {f"lcoe_{p}_usd_per_kwh": round(values[p], 7) for p in PCTS}
    out["spread_usd_per_kwh"] = round(values["p90"] - values["p10"], 7)
    return out


def solve(task: Task, backend: str) -> Reference:
    values = lcoes(task.public_inputs)
    return Reference(answer=_answer(values), evidence={"spread_pct_of_p50": 100.0 * (values["p90"] - values["p10"]) / values["p50"]},
                     method="discounted cost over discounted energy (Short, Packey & Holt 1995, §4.2), end-of-year convention")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer
    checks = ctx.checks()
    for key, want in ref.items():
        checks.close(f"/{key}", want, answer[key], key.replace("_", " "))
    return Assessment(violations=checks.violations, evidence={"checks_failed": len(checks.violations)})


# ---------------------------------------------------------------------------- held-out draws


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the site (its pvlib-derived first-year yield), the system size, the cost
    percentiles around the NREL Q1 2023 commercial benchmark (hardware P50 0.80-1.10 USD/W with
    ±8-15 %, soft P50 0.60-1.00 USD/W with ±20-35 %: soft costs are the uncertain part), O&M
    15-25 USD/kW-yr (ATB), escalation, a real or nominal discount rate 4-9 %, lifetime 20-35 years
    and degradation 0.3-0.8 %/yr.

    Level 2: the system by its AC rating and DC/AC ratio, soft costs as system totals from a
    quote, and an inverter replacement in year 10-15."""
    site = str(rng.choice(sorted(SITES)))
    hw50 = float(rng.uniform(0.80, 1.10))
    sf50 = float(rng.uniform(0.60, 1.00))
    hw = {"p10": hw50 * (1 - float(rng.uniform(0.08, 0.15))), "p50": hw50, "p90": hw50 * (1 + float(rng.uniform(0.08, 0.15)))}
    sf = {"p10": sf50 * (1 - float(rng.uniform(0.20, 0.35))), "p50": sf50, "p90": sf50 * (1 + float(rng.uniform(0.20, 0.35)))}
    inputs: dict[str, Any] = {
        "site": {"name": site, "first_year_yield_kwh_per_kw_dc": SITES[site][5]},
        "installed_cost": {"hardware_usd_per_w_dc": {p: round(v, 3) for p, v in hw.items()}},
        "om_usd_per_kw_dc_yr": round(float(rng.uniform(15.0, 25.0)), 1),
        "om_escalation_pct": float(rng.choice([0.0, 1.5, 2.0, 2.5])),
        "discount_rate_pct": round(float(rng.uniform(4.0, 9.0)), 2),
        "lifetime_years": int(rng.choice([20, 25, 30, 35])),
        "degradation_pct_per_yr": float(rng.choice([0.3, 0.4, 0.5, 0.6, 0.7, 0.8])),
    }
    if level >= 2:
        kw_ac = float(rng.choice([250.0, 400.0, 750.0, 1000.0]))
        ilr = float(rng.choice([1.15, 1.2, 1.25, 1.3, 1.35]))
        inputs["system"] = {"capacity_kw_ac": kw_ac, "dc_ac_ratio": ilr}
        inputs["installed_cost"]["soft_usd_total"] = {p: round(v * kw_ac * ilr * 1000.0, -2) for p, v in sf.items()}
        inputs["inverter_replacement"] = {"year": int(rng.integers(10, 16)), "cost_usd_per_w_ac": round(float(rng.uniform(0.06, 0.12)), 3)}
    else:
        inputs["system"] = {"capacity_kw_dc": float(rng.choice([200.0, 300.0, 500.0, 800.0, 1000.0]))}
        inputs["installed_cost"]["soft_usd_per_w_dc"] = {p: round(v, 3) for p, v in sf.items()}
    return Generated(public_inputs=inputs)


def naive_answer(task: Task) -> dict[str, Any]:
    """The common slip: costs discounted, energy not."""
    return _answer(lcoes(task.public_inputs, discount_energy=False))


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="der_storage",
        scoring_kind="exact",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "W. Short, D. J. Packey, T. Holt, A Manual for the Economic Evaluation of Energy Efficiency and Renewable Energy Technologies, NREL/TP-462-5173, 1995",
                "locator": "§4.2 levelized cost of energy (eqs. 4-4 CRF, 4-5 LCOE), end-of-year cash-flow convention",
                "note": "The discounted-cost over discounted-energy formula; the case fixes the timing (investment at t = 0, everything else at the end of its year), escalation and degradation conventions.",
                "confidence": "high",
            },
            {
                "title": "V. Ramasamy et al., U.S. Solar Photovoltaic System and Energy Storage Cost Benchmarks, With Minimum Sustainable Price Analysis: Q1 2023, NREL/TP-7A40-87303",
                "locator": "commercial rooftop PV: hardware vs soft-cost breakdown (USD/W_dc)",
                "note": "Cost levels of the draws; the P10/P50/P90 spreads (soft costs wider than hardware) are the case's assumption, in the spirit of NREL's soft-cost uncertainty studies.",
                "confidence": "medium",
            },
            {
                "title": "NREL Annual Technology Baseline (ATB), commercial PV",
                "locator": "CAPEX, fixed O&M (USD/kW_dc-yr), degradation and financial assumptions",
                "note": "Ranges of O&M, discount rate, lifetime and degradation drawn by the generator.",
                "confidence": "medium",
            },
            {
                "title": "pvlib python (Holmgren, Hansen, Mikofski, J. Open Source Software 3(29), 2018); Ineichen & Perez clear sky (Solar Energy 73(3), 2002); PVWatts v5 (Dobos, NREL/TP-6A20-62641, 2014)",
                "locator": "psab.backends.pvlib_yield: clear-sky POA, SAPM cell temperature, PVWatts DC, 14 % losses, scaled by measured/clear-sky annual GHI (NSRDB TMY, rounded)",
                "note": "Derives the sites' first-year specific yields carried in SITES; the yield is an input of the task, not something the agent computes.",
                "confidence": "low",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "the LCOE at P10, P50 and P90 matches the recomputation within max(0.1 %, 1e-5 USD/kWh)",
            "the spread P90 − P10 matches the recomputation within max(0.1 %, 1e-5 USD/kWh)",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {"default": 1e-5}},
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
    )
)
