"""dynamic_thermal_rating — hourly ampacity of an overhead conductor by IEEE 738 (exact).

Given a conductor (diameter, AC resistance at two temperatures, emissivity, absorptivity,
maximum temperature), the line's location and orientation, 24 hourly weather rows (ambient
temperature, wind speed and its angle to the conductor, measured solar flux) and the
conservative weather of the static rating, the agent returns the steady-state ampacity for
every hour, the day's dynamic rating (the minimum of the hours), the static rating, and the
ratio of the dynamic to the static rating.

Every value is recomputed with the IEEE Std 738-2012 heat balance
(:mod:`psab.surrogates.ieee738`) and compared with the shared tolerance helper.

Sources: IEEE Std 738-2012, *Standard for Calculating the Current-Temperature Relationship of
Bare Overhead Conductors*, clause 4 (steady-state heat balance) and its equations; the day-ahead
hourly dynamic thermal line rating as the quantity targeted in Safari, Mazhari, Chung & Ko,
*Secure Probabilistic Prediction of Dynamic Thermal Line Rating*, J. Mod. Power Syst. Clean
Energy 10(2), 2022.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from psab.contract import Task
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import ieee738

FAMILY_ID = "dynamic_thermal_rating"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 48.
MAX_INPUT_ITEMS = 1000
HOURS = 24

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    n = len(inputs["weather"])
    return s.submission(
        {
            "ampacity_a": s.array(
                s.number("steady-state ampacity at the conductor's maximum temperature, A", minimum=0,
                         ru="длительно допустимый ток при максимально допустимой температуре провода, А"),
                "ampacity for every row of weather, in the order of the rows, A", length=n,
                ru="допустимый ток для каждой строки weather в порядке строк, А",
            ),
            "dynamic_rating_a": s.number("the day's dynamic rating: the smallest ampacity of the rows, A", minimum=0,
                                         ru="динамическая пропускная способность за сутки: наименьший допустимый ток по строкам, А"),
            "static_rating_a": s.number("ampacity under the case's static (conservative) weather, A", minimum=0,
                                        ru="допустимый ток при статических (консервативных) погодных условиях, А"),
            "ratio_to_static": s.number("dynamic_rating_a / static_rating_a", minimum=0,
                                        ru="отношение dynamic_rating_a / static_rating_a"),
        },
        "thermal ratings per weather row and for the day", ru="допустимые токи по строкам погоды и за сутки",
    )


def _range(lo: float, hi: float, *, exclusive_lo: bool = False) -> dict[str, Any]:
    return {"type": "number", ("exclusiveMinimum" if exclusive_lo else "minimum"): lo, "maximum": hi}


#: Air temperatures the IEEE 738 air-property fits (eqs. 13a-15a) are used over, °C; wider
#: bounds would let a typo (a temperature in kelvin) reach complex powers of negative numbers.
_AIR_C = _range(-60.0, 70.0)
_WEATHER = {"solar_time_h": _range(0.0, 24.0), "ambient_c": _AIR_C, "wind_speed_m_per_s": s.NONNEGATIVE,
            "wind_angle_deg": _range(0.0, 360.0)}

#: The shape of public_inputs (a task that does not fit raises InvalidTaskError).
INPUTS_SCHEMA: dict[str, Any] = s.obj({
    "conductor": s.obj({
        "name": {"type": "string"},
        "diameter_mm": s.POSITIVE, "t_low_c": _range(-60.0, 500.0), "r_ac_low_ohm_per_km": s.POSITIVE,
        "t_high_c": _range(-60.0, 500.0), "r_ac_high_ohm_per_km": s.POSITIVE,
        "emissivity": _range(0.0, 1.0), "absorptivity": _range(0.0, 1.0), "t_max_c": _range(0.0, 500.0, exclusive_lo=True),
    }, optional=("name",)),
    "line": s.obj({"latitude_deg": _range(-90.0, 90.0), "line_azimuth_deg": _range(-360.0, 360.0),
                   "elevation_m": _range(-500.0, 9000.0), "day_of_year": {"type": "integer", "minimum": 1, "maximum": 366}}),
    "step_minutes": {"type": "integer", "minimum": 1},
    # A row gives the wind either as wind_angle_deg (to the conductor axis) or as
    # wind_direction_deg (compass, level 2).
    "weather": s.array(s.obj({**_WEATHER, "wind_direction_deg": _range(0.0, 360.0), "solar_flux_w_per_m2": s.NONNEGATIVE},
                             optional=("wind_angle_deg", "wind_direction_deg"))
                       | {"anyOf": [{"required": ["wind_angle_deg"]}, {"required": ["wind_direction_deg"]}]},
                       "weather", min_items=1),
    "static_weather": s.obj({**_WEATHER, "atmosphere": {"enum": list(ieee738.SOLAR_FLUX_COEFFICIENTS)}}),
})


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """The two resistance points distinct (eq. 10 interpolates between them) and the
    conductor's maximum temperature above every ambient temperature (else no heat leaves it)."""
    p = ic.Problems()
    c = inputs["conductor"]
    p.ordered("/conductor/t_high_c", c["t_low_c"], c["t_high_c"], "t_low_c", strict=True)
    for i, row in enumerate([*inputs["weather"], inputs["static_weather"]]):
        where = ic.pointer("weather", i, "ambient_c") if i < len(inputs["weather"]) else "/static_weather/ambient_c"
        if row["ambient_c"] >= c["t_max_c"]:
            p.add(where, f"must be below the conductor's t_max_c ({c['t_max_c']!r})")
    return p


PRESENTATION = {
    "en": {
        "title": "Dynamic thermal rating of an overhead line (IEEE 738)",
        "statement": (
            "Compute the steady-state thermal rating of the conductor in public_inputs at its maximum temperature "
            "t_max_c with the IEEE Std 738-2012 heat balance I = sqrt((q_c + q_r − q_s)/R(t_max_c)): forced "
            "convection q_c1 (eq. 3a) and q_c2 (eq. 3b), using the larger, with the wind direction factor K_angle "
            "(eq. 4a; wind_angle_deg is the angle between the wind and the conductor axis — 0° along the line, 90° "
            "across it — not from the perpendicular); natural convection q_cn (eq. 5a) when it is larger — at every "
            "wind speed q_c is the largest of q_c1, q_c2 and q_cn with the row's speed and angle as given, also below "
            "0.61 m/s and in calm (no separate low-wind rule such as a fixed 45° angle); air properties at the film temperature (T_s + T_a)/2 (eqs. 13a, "
            "14a, 15a, with the line's elevation); radiation q_r (eq. 7a); solar gain q_s = α·Q·sin θ·D (eq. 8) "
            "with θ from the solar altitude and azimuth at the row's solar time (eqs. 9, 16a, 16b, 17a, 17b, "
            "Table 2) and the line azimuth; R by linear interpolation between the two given AC resistances "
            "(eq. 10), the same straight line extended beyond them when t_max_c lies outside [t_low_c, t_high_c] "
            "(extrapolated, not held at the nearer value). Solar geometry: declination δ = 23.46°·sin(360°·(284 + day_of_year)/365) (eq. 16b, the "
            "standard's own constant), hour angle ω = 15°·(solar_time_h − 12), azimuths (line_azimuth_deg and the "
            "sun's Z_c with the constant C of Table 2) in degrees clockwise from north; the sun below the horizon "
            "gives no solar gain. Each row of the array weather is one independent steady state at its "
            "solar_time_h (the middle of its interval); step_minutes is the spacing of the rows (60: hourly rows, "
            "30: half-hourly) and enters no formula — no thermal transient is carried from one row to the next. A "
            "row gives the wind either as wind_angle_deg, the angle φ between the wind and the conductor axis, or "
            "as wind_direction_deg, the compass direction the wind blows from (clockwise from north); then φ is "
            "the acute angle between that direction and the line's axis line_azimuth_deg (0°-90°; wind along the "
            "line from either end is 0°). In the rows of weather Q is the measured flux solar_flux_w_per_m2 on a "
            "surface normal to the sun's rays, used as measured (no elevation factor: eq. 20 corrects only the "
            "modelled flux); in static_weather Q is the flux of the stated atmosphere (eq. 18, "
            "Table 3) corrected for elevation (eqs. 19, 20). Report the ampacity of every row of weather, the "
            "day's dynamic rating (the smallest of them), the static rating, and their ratio dynamic/static."
        ),
        "answer_notes": "Every value must match within 0.1 % (0.5 A or 0.001 for the ratio at least).",
    },
    "ru": {
        "title": "Динамическая пропускная способность воздушной линии по нагреву (IEEE 738)",
        "statement": (
            "Рассчитайте длительно допустимый ток провода из public_inputs при его максимально допустимой "
            "температуре t_max_c по уравнению теплового баланса IEEE Std 738-2012 I = sqrt((q_c + q_r − q_s)/R(t_max_c)): "
            "вынужденная конвекция q_c1 (ф. 3a) и q_c2 (ф. 3b) — берётся большая из них — с коэффициентом "
            "направления ветра K_angle (ф. 4a; wind_angle_deg — угол между направлением ветра и осью провода: 0° — "
            "вдоль линии, 90° — поперёк, а не от перпендикуляра к оси); естественная конвекция q_cn (ф. 5a), если она "
            "больше, — при любой скорости ветра q_c — наибольшее из q_c1, q_c2 и q_cn при скорости и угле строки как "
            "заданы, в том числе ниже 0,61 м/с и в штиль (без особого правила для слабого ветра, например угла 45°); свойства воздуха при температуре плёнки "
            "(T_s + T_a)/2 (ф. 13a, 14a, 15a, с учётом высоты линии над уровнем моря); излучение q_r (ф. 7a); "
            "солнечный нагрев q_s = α·Q·sin θ·D (ф. 8), где θ определяется высотой и азимутом Солнца в истинное "
            "солнечное время строки (ф. 9, 16a, 16b, 17a, 17b, табл. 2) и азимутом линии; сопротивление R — "
            "линейной интерполяцией между двумя заданными значениями сопротивления переменному току (ф. 10), та же "
            "прямая продолжается за их пределы, если t_max_c лежит вне [t_low_c, t_high_c] (экстраполяция, а не "
            "значение ближайшей точки). "
            "Положение Солнца: склонение δ = 23,46°·sin(360°·(284 + day_of_year)/365) (ф. 16b, константа самого "
            "стандарта), часовой угол ω = 15°·(solar_time_h − 12), азимуты (line_azimuth_deg и азимут Солнца Z_c с "
            "константой C из табл. 2) — в градусах по часовой стрелке от севера; Солнце под горизонтом не "
            "нагревает провод. Каждая строка массива weather — независимый установившийся режим в момент "
            "solar_time_h (середина интервала); step_minutes — шаг строк (60 — почасовые, 30 — получасовые), "
            "ни в одну формулу он не входит: тепловой переходный процесс от строки к строке не учитывается. "
            "Ветер в строке задан либо углом wind_angle_deg между направлением ветра и осью провода φ, либо "
            "направлением wind_direction_deg по компасу (откуда дует ветер, по часовой стрелке от севера); тогда "
            "φ — острый угол между этим направлением и осью линии line_azimuth_deg (0°–90°; ветер вдоль линии с "
            "любого конца — 0°). В строках weather Q — измеренная плотность потока solar_flux_w_per_m2 на "
            "поверхность, перпендикулярную солнечным лучам, — как измерена (без поправки на высоту: ф. 20 относится "
            "только к расчётному потоку); в static_weather Q — поток для указанного состояния "
            "атмосферы (ф. 18, табл. 3) с поправкой на высоту (ф. 19, 20). Укажите допустимый ток для каждой "
            "строки weather, динамическую пропускную способность за сутки (наименьшее из этих значений), "
            "статическую пропускную способность и их отношение (динамическая/статическая)."
        ),
        "answer_notes": "Каждое значение должно совпасть с точностью 0,1 % (не менее 0,5 А, для отношения — 0,001).",
        "hard_constraints": (
            "каждое значение допустимого тока по строкам weather совпадает с пересчётом по IEEE 738 в пределах max(0,1 %, 0,5 А)",
            "динамическая и статическая допустимые токовые нагрузки и их отношение совпадают с пересчётом в пределах 0,1 % (не менее 0,5 А; 0,001 для отношения)",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Rate the bare overhead conductor in public_inputs by IEEE Std 738-2012, clause 4 (steady-state heat balance "
        "at its maximum temperature t_max_c, the standard's SI equations, air properties at the film temperature, "
        "the line's elevation), with resistance on the straight line through the two given AC values (extrapolated "
        "when t_max_c lies outside them). Rate every "
        "row of weather as an independent steady state (step_minutes is only the row spacing), using the row's "
        "measured flux normal to the sun's rays as measured (no elevation factor) and the sun's position at its solar_time_h (the standard's "
        "declination formula, azimuths clockwise from north); wind given as a compass direction is referred to the "
        "line's axis (the angle from the axis, not from its perpendicular); convection the largest of the forced and "
        "natural values at every wind speed with the row's speed and angle as given (no separate low-wind rule). "
        "Rate static_weather with the standard's modelled flux for its atmosphere at the line's "
        "elevation. Report every row's ampacity, the day's dynamic rating (the smallest), the static rating and the "
        "ratio dynamic/static."
    )},
    "ru": {"statement": (
        "Определите допустимый ток неизолированного провода воздушной линии из public_inputs по IEEE Std 738-2012, "
        "раздел 4 (установившийся тепловой баланс при максимально допустимой температуре t_max_c, уравнения "
        "стандарта в единицах СИ, свойства воздуха при температуре плёнки, высота линии над уровнем моря), "
        "сопротивление — по прямой через два заданных значения на переменном токе (с экстраполяцией, если t_max_c "
        "лежит вне них). Каждую строку "
        "weather рассчитайте как независимый установившийся режим (step_minutes — лишь шаг строк) с измеренной "
        "плотностью солнечного потока по нормали к лучам как измерена (без поправки на высоту) и положением Солнца в solar_time_h строки (формула "
        "склонения стандарта, азимуты по часовой стрелке от севера); ветер, заданный направлением по компасу, "
        "отнесите к оси линии (угол от оси, а не от перпендикуляра к ней); конвекция — наибольшая из вынужденной и "
        "естественной при любой скорости ветра, со скоростью и углом строки как заданы (без особого правила для "
        "слабого ветра). Для static_weather используйте расчётный поток стандарта для указанного состояния "
        "атмосферы на высоте линии. Укажите допустимый ток каждой строки, динамическую пропускную способность за "
        "сутки (наименьшую), статическую и их отношение."
    )},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged against psab's IEEE 738-2012 clause-4 implementation (psab.surrogates.ieee738, checked against the "
              "standard's Drake example and an independent implementation): every row's ampacity, the dynamic and static "
              "ratings within max(0.1 %, 0.5 A), the ratio within max(0.1 %, 0.001).",
        "ru": "Проверяется по реализации раздела 4 IEEE 738-2012 в psab (psab.surrogates.ieee738, сверена с примером провода "
              "Drake из стандарта и с независимой реализацией): допустимый ток каждой строки, динамическая и статическая "
              "пропускная способность — с точностью max(0,1 %, 0,5 А), отношение — max(0,1 %, 0,001).",
    },
}

# ---------------------------------------------------------------------------- physics


def wind_angle_of(line: dict[str, Any], row: dict[str, Any]) -> float:
    """φ, the angle between the wind and the conductor axis (0°-90°): the row's wind_angle_deg, or
    the acute angle between its compass wind_direction_deg and the line azimuth (both are axes
    for K_angle, eq. (4a): a wind from the opposite direction gives the same φ)."""
    if "wind_angle_deg" in row:
        return float(row["wind_angle_deg"])
    d = (float(row["wind_direction_deg"]) - float(line["line_azimuth_deg"])) % 180.0
    return min(d, 180.0 - d)


def conductor_of(inputs: dict[str, Any]) -> ieee738.Conductor:
    c = inputs["conductor"]
    return ieee738.Conductor(
        diameter_m=float(c["diameter_mm"]) / 1000.0,
        emissivity=float(c["emissivity"]), absorptivity=float(c["absorptivity"]),
        t_low_c=float(c["t_low_c"]), r_low_ohm_m=float(c["r_ac_low_ohm_per_km"]) / 1000.0,
        t_high_c=float(c["t_high_c"]), r_high_ohm_m=float(c["r_ac_high_ohm_per_km"]) / 1000.0,
    )


def hourly_balance(inputs: dict[str, Any], row: dict[str, Any]) -> ieee738.HeatBalance:
    """The heat balance of one weather row (measured solar flux)."""
    line = inputs["line"]
    sun = ieee738.solar_position(float(line["latitude_deg"]), int(line["day_of_year"]), float(row["solar_time_h"]),
                                 float(line["line_azimuth_deg"]))
    return ieee738.heat_balance(
        conductor_of(inputs), t_surface_c=float(inputs["conductor"]["t_max_c"]), t_ambient_c=float(row["ambient_c"]),
        wind_speed_m_s=float(row["wind_speed_m_per_s"]), wind_angle_deg=wind_angle_of(line, row),
        elevation_m=float(line["elevation_m"]), solar_flux_w_m2=float(row["solar_flux_w_per_m2"]),
        solar_incidence_deg=sun.incidence_deg,
    )


def static_balance(inputs: dict[str, Any]) -> ieee738.HeatBalance:
    """The heat balance under the static rating's weather (modelled clear/industrial sky)."""
    line = inputs["line"]
    w = inputs["static_weather"]
    sun = ieee738.solar_position(float(line["latitude_deg"]), int(line["day_of_year"]), float(w["solar_time_h"]),
                                 float(line["line_azimuth_deg"]))
    flux = ieee738.solar_flux_sea_level(sun.altitude_deg, w["atmosphere"]) * ieee738.elevation_correction(float(line["elevation_m"]))
    return ieee738.heat_balance(
        conductor_of(inputs), t_surface_c=float(inputs["conductor"]["t_max_c"]), t_ambient_c=float(w["ambient_c"]),
        wind_speed_m_s=float(w["wind_speed_m_per_s"]), wind_angle_deg=float(w["wind_angle_deg"]),
        elevation_m=float(line["elevation_m"]), solar_flux_w_m2=flux, solar_incidence_deg=sun.incidence_deg,
    )


def solve(task: Task, backend: str) -> Reference:
    inputs = task.public_inputs
    hourly = [hourly_balance(inputs, row) for row in inputs["weather"]]
    static = static_balance(inputs)
    amps = [h.ampacity_a for h in hourly]
    dynamic = min(amps)
    ratio = dynamic / static.ampacity_a if static.ampacity_a > 0 else 0.0
    worst = int(np.argmin(amps))
    return Reference(
        answer={
            "ampacity_a": [round(a, 3) for a in amps],
            "dynamic_rating_a": round(dynamic, 3),
            "static_rating_a": round(static.ampacity_a, 3),
            "ratio_to_static": round(ratio, 6),
        },
        evidence={
            "limiting_row": worst,
            "limiting_row_terms_w_per_m": {
                "q_c": hourly[worst].q_c_w_m, "q_r": hourly[worst].q_r_w_m, "q_s": hourly[worst].q_s_w_m,
            },
            "static_terms_w_per_m": {"q_c": static.q_c_w_m, "q_r": static.q_r_w_m, "q_s": static.q_s_w_m},
            "resistance_ohm_per_m": static.resistance_ohm_m,
        },
        method="IEEE Std 738-2012 steady-state heat balance, eqs. (1b)-(20)",
    )


#: Wind speed below which the low-wind-angle reading takes 45° (m/s).
LOW_WIND_M_PER_S = 0.5


def _reread(inputs: dict[str, Any], reading: str) -> dict[str, Any] | None:
    """The case as an engineer who read one convention the other way would compute it, written
    so that this family's own method computes that engineer's numbers; ``None`` where the case
    does not carry the choice.

    - ``resistance_clamped_outside_the_points``: R held at the nearer given AC value when t_max_c
      lies outside [t_low_c, t_high_c], instead of eq. (10)'s straight line extended;
    - ``measured_flux_elevation_corrected``: the rows' measured flux multiplied by eq. (20)'s
      elevation factor (which belongs to the modelled flux only);
    - ``wind_angle_from_the_perpendicular``: the given angle taken from the normal to the axis
      (φ ↦ 90° − φ in eq. 4a);
    - ``low_wind_angle_45``: φ = 45° in the rows below 0.5 m/s (a low-wind practice the
      statement does not take)."""
    out = copy.deepcopy(inputs)
    c, line = out["conductor"], out["line"]
    if reading == "resistance_clamped_outside_the_points":
        t, lo, hi = float(c["t_max_c"]), float(c["t_low_c"]), float(c["t_high_c"])
        if lo <= t <= hi:
            return None
        # the straight line through (t, R at the nearer point) and the other point gives R(t) = that value
        if t > hi:
            c["t_high_c"] = t
        else:
            c["t_low_c"] = t
        return out
    if reading == "measured_flux_elevation_corrected":
        k = ieee738.elevation_correction(float(line["elevation_m"]))
        if k == 1.0 or not any(float(r["solar_flux_w_per_m2"]) > 0 for r in out["weather"]):
            return None
        for r in out["weather"]:
            r["solar_flux_w_per_m2"] = float(r["solar_flux_w_per_m2"]) * k
        return out
    if reading in ("wind_angle_from_the_perpendicular", "low_wind_angle_45"):
        changed = False
        for r in out["weather"]:
            phi = wind_angle_of(line, r)
            if reading == "low_wind_angle_45":
                if float(r["wind_speed_m_per_s"]) >= LOW_WIND_M_PER_S:
                    continue
                new = 45.0
            else:
                new = 90.0 - phi
            r.pop("wind_direction_deg", None)
            r["wind_angle_deg"] = new
            changed = changed or new != phi
        return out if changed else None
    raise ValueError(reading)


OTHER_READINGS = ("resistance_clamped_outside_the_points", "measured_flux_elevation_corrected",
                  "wind_angle_from_the_perpendicular", "low_wind_angle_45")


def other_readings(task: Task) -> list[tuple[str, dict[str, Any]]]:
    """The answers under the other readings of the conventions the statement fixes (see
    :func:`_reread`), each by :func:`solve` on the re-read case. Only those that move some value
    beyond the tolerance are kept (the low-wind angle rarely matters where natural convection
    governs)."""
    ref = solve(task, "surrogate").answer
    out = []
    for name in OTHER_READINGS:
        changed = _reread(task.public_inputs, name)
        if changed is None:
            continue
        answer = solve(SPEC.make_task(task_id=task.id, split=task.split, public_inputs=changed), "surrogate").answer
        if any(abs(a - b) > max(1e-3 * abs(a), 0.5) for a, b in zip(answer["ampacity_a"], ref["ampacity_a"], strict=True)):
            out.append((name, answer))
    return out


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer
    checks = ctx.checks()
    for i, (want, got) in enumerate(zip(ref["ampacity_a"], answer["ampacity_a"], strict=True)):
        checks.close(f"/ampacity_a/{i}", want, got, f"ampacity of weather row {i}")
    checks.close("/dynamic_rating_a", ref["dynamic_rating_a"], answer["dynamic_rating_a"], "the day's dynamic rating")
    checks.close("/static_rating_a", ref["static_rating_a"], answer["static_rating_a"], "the static rating")
    checks.close("/ratio_to_static", ref["ratio_to_static"], answer["ratio_to_static"], "dynamic / static rating")
    return Assessment(violations=checks.violations, evidence={"checks": len(checks.records), "checks_failed": len(checks.violations)})


# ---------------------------------------------------------------------------- held-out draws


def synthesize_weather(line: dict[str, Any], rng: np.random.Generator, step_minutes: int = 60,
                       compass: bool = False) -> list[dict[str, Any]]:
    """24 hourly rows of a summer day at the line: an ambient cycle peaking mid-afternoon, a
    wind that freshens in the afternoon and may fall calm at night, a wind direction drifting
    around a prevailing angle to the line, and the clear-sky flux (eq. 18, elevation-corrected)
    dimmed by passing cloud. Rows are at the middle of each step of ``step_minutes``; with
    ``compass`` the wind is given as the compass direction it blows from (a weather station's
    reading) instead of its angle to the line."""
    n = HOURS * 60 // step_minutes
    mean = float(rng.uniform(16.0, 30.0))
    swing = float(rng.uniform(4.0, 9.0))
    wind_base = float(rng.uniform(0.6, 3.5))
    prevailing = float(rng.uniform(10.0, 90.0))
    cloud = np.clip(1.0 - np.abs(np.cumsum(rng.normal(0.0, 0.12 * math.sqrt(step_minutes / 60.0), n))), 0.25, 1.0)
    calm_night = rng.uniform() < 0.5
    rows = []
    for h in range(n):
        t = (h + 0.5) * step_minutes / 60.0
        ambient = mean + swing * math.cos(2 * math.pi * (t - 15.0) / 24.0) + float(rng.normal(0.0, 0.4))
        daytime = 0.6 + 0.4 * max(0.0, math.sin(math.pi * (t - 6.0) / 14.0))
        wind = wind_base * daytime * float(rng.uniform(0.7, 1.3))
        if calm_night and (t < 5.0 or t > 22.0):
            wind = float(rng.uniform(0.0, 0.25))
        angle = float(np.clip(prevailing + rng.normal(0.0, 15.0), 0.0, 90.0))
        sun = ieee738.solar_position(float(line["latitude_deg"]), int(line["day_of_year"]), t, float(line["line_azimuth_deg"]))
        clear = ieee738.solar_flux_sea_level(sun.altitude_deg) * ieee738.elevation_correction(float(line["elevation_m"]))
        flux = clear * float(cloud[h]) if sun.altitude_deg > 2.0 else 0.0
        row = {
            "solar_time_h": t,
            "ambient_c": round(ambient, 1),
            "wind_speed_m_per_s": round(wind, 2),
            "wind_angle_deg": round(angle, 1),
            "solar_flux_w_per_m2": round(flux, 1),
        }
        if compass:
            # the wind blows at `angle` to the axis, from either side and either end of the line
            side = float(rng.choice([-1.0, 1.0])) * angle + float(rng.choice([0.0, 180.0]))
            del row["wind_angle_deg"]
            row["wind_direction_deg"] = round((float(line["line_azimuth_deg"]) + side) % 360.0, 1)
        rows.append(row)
    return rows


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the conductor's surface state (emissivity, absorptivity) and maximum temperature,
    the line's latitude, orientation, elevation and the summer day, the static rating's
    ambient temperature, and a new day of weather (:func:`synthesize_weather`). The conductor's
    geometry and resistances are kept: they are catalogue data, not something to invent.

    Level 2: half-hourly rows (step_minutes 30, 48 rows) from a weather station — the wind as its
    compass direction, which the agent must refer to the line's axis."""
    inputs = public.public_inputs
    conductor = dict(inputs["conductor"])
    eps = round(float(rng.uniform(0.5, 0.9)), 2)
    conductor["emissivity"] = eps
    conductor["absorptivity"] = round(float(np.clip(eps + rng.uniform(-0.05, 0.1), 0.3, 0.95)), 2)
    conductor["t_max_c"] = float(rng.choice([70.0, 75.0, 80.0, 90.0]))
    line = {
        "latitude_deg": round(float(rng.uniform(35.0, 62.0)), 2),
        "line_azimuth_deg": round(float(rng.uniform(0.0, 180.0)), 1),
        "elevation_m": round(float(rng.uniform(0.0, 1200.0)), 0),
        "day_of_year": int(rng.integers(152, 244)),
    }
    static = dict(inputs["static_weather"])
    static["ambient_c"] = float(rng.choice([35.0, 40.0]))
    out = dict(inputs)
    out["conductor"] = conductor
    out["line"] = line
    out["static_weather"] = static
    if level >= 2:
        out["step_minutes"] = 30
        out["weather"] = synthesize_weather(line, rng, step_minutes=30, compass=True)
    else:
        out["weather"] = synthesize_weather(line, rng)
    return Generated(public_inputs=out)


def accept(task: Task, reference: Reference) -> str | None:
    """Reject days where some hour has no rating at all (the sun alone would heat the
    conductor past its limit) — not a realistic summer day for a transmission line."""
    if min(reference.answer["ampacity_a"]) <= 0.0 or reference.answer["static_rating_a"] <= 0.0:
        return "an hour (or the static weather) has zero ampacity"
    return None


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading of a row: the wind number it gives taken as φ — right for rows that
    give wind_angle_deg, a compass direction misread as the angle to the conductor otherwise."""
    inputs = task.public_inputs
    rows = [{**{k: v for k, v in r.items() if k != "wind_direction_deg"},
             "wind_angle_deg": float(r.get("wind_angle_deg", r.get("wind_direction_deg", 90.0))) % 180.0}
            for r in inputs["weather"]]
    rows = [{**r, "wind_angle_deg": min(r["wind_angle_deg"], 180.0 - r["wind_angle_deg"])} for r in rows]
    amps = [hourly_balance(inputs, r).ampacity_a for r in rows]
    static = static_balance(inputs).ampacity_a
    return {"ampacity_a": [round(max(a, 0.0), 3) for a in amps], "dynamic_rating_a": round(max(min(amps), 0.0), 3),
            "static_rating_a": round(static, 3), "ratio_to_static": round(max(min(amps), 0.0) / static, 6) if static > 0 else 0.0}


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="network",
        scoring_kind="exact",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "IEEE Std 738-2012, IEEE Standard for Calculating the Current-Temperature Relationship of Bare Overhead Conductors",
                "locator": "clause 4, steady-state heat balance: eqs. (1b), (2c), (3a), (3b), (4a), (5a), (6), (7a), (8), (9), (10), (13a), (14a), (15a), (16a), (16b), (17a), (17b), (18)-(20), Tables 2-3",
                "note": "Each hourly ampacity and the static rating are the standard's steady-state rating at the conductor's maximum temperature; the conductor data, weather and solar inputs are the standard's, in SI units.",
                "confidence": "high",
            },
            {
                "title": "N. Safari, S. M. Mazhari, C. Y. Chung, S. B. Ko, Secure Probabilistic Prediction of Dynamic Thermal Line Rating, Journal of Modern Power Systems and Clean Energy, vol. 10, no. 2, March 2022",
                "locator": "§I-§II: the hourly dynamic thermal line rating computed from weather by the IEEE 738 heat balance, against the static rating's conservative assumptions",
                "note": "Motivates the task: a day of hourly DTLR values, its minimum, and its ratio to the static rating; the probabilistic prediction itself is not part of this task.",
                "confidence": "medium",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "the ampacity of every row of weather matches the IEEE 738 recomputation within max(0.1 %, 0.5 A)",
            "the dynamic rating, the static rating and their ratio match within 0.1 % (0.5 A, 0.001 for the ratio)",
        ),
        metrics=(),
        tolerances={
            "relative": 1e-3,
            "absolute_floors": {"default": 0.5, "/ratio_to_static": 1e-3},
        },
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        other_readings=other_readings,
        naive_answer=naive_answer,
        validate_inputs=input_problems,
    )
)
