"""harmonic_ieee519_compliance — harmonic voltage and current limits at the PCC, IEEE 519-2022 (comply).

Given the point of common coupling (bus voltage, short-circuit current or power, maximum demand
load current) and the weekly 95th-percentile harmonic spectra of the current the installation
draws and of the PCC voltage (orders 2–50), the agent returns the short-circuit ratio
I_SC/I_L, the TDD, the voltage THD, the current and voltage orders above their limits and the
verdict. The limits come from IEEE 519-2022 Table 1 (voltage) and Tables 2–4 (current, by the
voltage class and the I_SC/I_L row), carried as data in :mod:`psab.surrogates.ieee519`.

Conventions fixed by the case: I_L is the case's maximum demand load current and TDD is
referred to it, whatever base the meter used (level 2 gives the harmonic currents in percent of
the measured fundamental I_1); I_SC = S_SC/(√3·V) where the short-circuit power is given; even
harmonics by the 2022 rule (50 % of the range's limit for h ≤ 6, 100 % above); a value equal to
its limit complies; the spectra are the weekly 95th percentiles of 10-min values, compared with
the tables directly.

Levels: 1 — an LV or MV installation, currents in amperes, voltage harmonics in percent of the
fundamental, I_SC in kA. 2 — data as the meter and the utility give them: currents in percent of
I_1 (with I_1 and I_L), voltage harmonics in volts with the measured fundamental, the
short-circuit level in MVA, and voltage classes up to 138 kV (Table 3).

Source: IEEE Std 519-2022, IEEE Standard for Harmonic Control in Electric Power Systems.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.generators.acceptance import draw_until_clear
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import ieee519 as std

FAMILY_ID = "harmonic_ieee519_compliance"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 49.
MAX_INPUT_ITEMS = 1000
ORDERS = list(range(std.MIN_ORDER, std.MAX_ORDER + 1))

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    orders = list(inputs.get("current_harmonics", {}).get("orders", ORDERS))
    return s.submission(
        {
            "compliant": s.boolean("true when every current and voltage limit of IEEE 519-2022 holds at the PCC",
                                   ru="true, если все пределы IEEE 519-2022 по токам и напряжениям в точке общего присоединения выполнены"),
            "isc_il_ratio": s.number("short-circuit ratio I_SC / I_L at the PCC", exclusive_minimum=0,
                                     ru="отношение тока КЗ к максимальному току нагрузки I_SC / I_L в точке общего присоединения"),
            "tdd_pct": s.number("total demand distortion of the current, percent of I_L", minimum=0,
                                ru="суммарный коэффициент гармонических искажений тока относительно I_L (TDD), процент"),
            "thd_v_pct": s.number("total harmonic distortion of the PCC voltage, percent of the fundamental", minimum=0,
                                  ru="суммарный коэффициент гармонических искажений напряжения (THD), процент основной гармоники"),
            "violating_current_orders": s.array(
                s.enum(orders, "a harmonic order", ru="номер гармоники"),
                "harmonic orders whose current exceeds its individual limit, ascending", max_items=len(orders), unique=True,
                ru="номера гармоник, ток которых превышает индивидуальный предел, по возрастанию"),
            "violating_voltage_orders": s.array(
                s.enum(orders, "a harmonic order", ru="номер гармоники"),
                "harmonic orders whose voltage exceeds the individual voltage limit, ascending", max_items=len(orders), unique=True,
                ru="номера гармоник, напряжение которых превышает индивидуальный предел, по возрастанию"),
        },
        "IEEE 519-2022 harmonic compliance at the PCC",
        ru="соответствие гармоник IEEE 519-2022 в точке общего присоединения",
    )


_VALUES = {"type": "array", "items": {"type": "number"}, "minItems": len(ORDERS), "maxItems": len(ORDERS)}
_ORDERS = {"type": "array", "items": {"type": "integer"}, "minItems": len(ORDERS), "maxItems": len(ORDERS)}
INPUTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["pcc", "current_harmonics", "voltage_harmonics", "statistic"],
    "additionalProperties": False,
    "properties": {
        "pcc": {"type": "object", "required": ["name", "nominal_voltage_kv", "max_demand_current_a"], "additionalProperties": False,
                "properties": {"name": {"type": "string"}, "nominal_voltage_kv": s.NUMBER, "short_circuit_current_ka": s.NUMBER,
                               "short_circuit_mva": s.NUMBER, "max_demand_current_a": s.NUMBER, "fundamental_current_a": s.NUMBER,
                               "generation": {"type": "boolean"}}},
        "current_harmonics": {"type": "object", "required": ["unit", "orders", "values"], "additionalProperties": False,
                              "properties": {"unit": {"enum": ["A", "pct_of_fundamental"]}, "orders": _ORDERS, "values": _VALUES}},
        "voltage_harmonics": {"type": "object", "required": ["unit", "orders", "values"], "additionalProperties": False,
                              "properties": {"unit": {"enum": ["pct_of_fundamental", "V"]}, "fundamental_v": s.NUMBER,
                                             "orders": _ORDERS, "values": _VALUES}},
        "statistic": {"type": "string"},
    },
}

# ---------------------------------------------------------------------------- physics


def _bad(field: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"{FAMILY_ID}: public_inputs{field} {why}")


def _spectrum(inputs: dict[str, Any], key: str) -> np.ndarray:
    spec = inputs[key]
    if list(spec["orders"]) != ORDERS:
        raise _bad(f"/{key}/orders", f"must list the orders {std.MIN_ORDER}…{std.MAX_ORDER} in ascending order")
    v = np.asarray(spec["values"], dtype=float)
    if np.any(v < 0):
        k = int(np.argmax(v < 0))
        raise _bad(f"/{key}/values/{k}", "is negative: a harmonic magnitude cannot be")
    return v


def quantities(inputs: dict[str, Any], *, naive: bool = False, isc_at: str = "nominal",
               generation_unstated: str = "row_by_ratio") -> dict[str, Any]:
    """The short-circuit ratio, TDD, THD, per-order magnitudes and limits, and the verdict.

    The statement's conventions, each with its other reading for ``other_readings``: I_SC from
    S_SC at the nominal voltage (``isc_at="measured"``: at the measured fundamental √3·V_1 where
    the voltage is given in volts); no ``pcc.generation`` means the row by I_SC/I_L
    (``generation_unstated="first_row"``: held to the first row as if it were generation)."""
    pcc = inputs["pcc"]
    v_kv = float(pcc["nominal_voltage_kv"])
    if not v_kv > 0:
        raise _bad("/pcc/nominal_voltage_kv", "must be positive")
    il = float(pcc["max_demand_current_a"])
    if not il > 0:
        raise _bad("/pcc/max_demand_current_a", "must be positive")
    if ("short_circuit_current_ka" in pcc) == ("short_circuit_mva" in pcc):
        raise _bad("/pcc/short_circuit_current_ka", "or short_circuit_mva must be given, exactly one of them")
    v_sc_kv = v_kv
    if isc_at == "measured" and inputs["voltage_harmonics"]["unit"] == "V" and inputs["voltage_harmonics"].get("fundamental_v", 0) > 0:
        v_sc_kv = math.sqrt(3.0) * float(inputs["voltage_harmonics"]["fundamental_v"]) / 1000.0
    isc_ka = (float(pcc["short_circuit_current_ka"]) if "short_circuit_current_ka" in pcc
              else float(pcc["short_circuit_mva"]) / (math.sqrt(3.0) * v_sc_kv))
    if not isc_ka > 0:
        raise _bad("/pcc/short_circuit_current_ka" if "short_circuit_current_ka" in pcc else "/pcc/short_circuit_mva", "must be positive")
    ratio = isc_ka * 1000.0 / il
    cur = _spectrum(inputs, "current_harmonics")
    if inputs["current_harmonics"]["unit"] == "pct_of_fundamental":
        i1 = float(pcc.get("fundamental_current_a", 0.0))
        if not i1 > 0:
            raise _bad("/pcc/fundamental_current_a", "must be positive when harmonic currents are in percent of the fundamental")
        pct_il = cur if naive else cur * i1 / il  # the naive reading takes % of I_1 for % of I_L
    else:
        pct_il = cur / il * 100.0
    volt = _spectrum(inputs, "voltage_harmonics")
    if inputs["voltage_harmonics"]["unit"] == "V":
        v1 = float(inputs["voltage_harmonics"].get("fundamental_v", 0.0))
        if not v1 > 0:
            raise _bad("/voltage_harmonics/fundamental_v", "must be positive when voltage harmonics are in volts")
        v_pct = volt / v1 * 100.0
    else:
        v_pct = volt
    generation = pcc.get("generation", generation_unstated == "first_row")
    if generation:  # Tables 2–4 footnote c: generation is held to the first row
        ratio_for_row = 1.0
    else:
        ratio_for_row = ratio
    table, row, _, tdd_lim = std.current_row(v_kv, ratio_for_row)
    i_lim = std.current_limits_pct(v_kv, ratio_for_row, np.array(ORDERS))
    v_ind, thd_lim = std.voltage_limits(v_kv)
    tdd = float(std.tdd_pct(pct_il, 100.0))
    thd = float(std.thd_pct(v_pct, 100.0))
    bad_i = [h for h, x, lim in zip(ORDERS, pct_il, i_lim, strict=True) if std.exceeds(x, lim)]
    bad_v = [h for h, x in zip(ORDERS, v_pct, strict=True) if std.exceeds(x, v_ind)]
    ok = not bad_i and not bad_v and not std.exceeds(tdd, tdd_lim) and not std.exceeds(thd, thd_lim)
    return {
        "answer": {"compliant": bool(ok), "isc_il_ratio": ratio,
                   "tdd_pct": tdd, "thd_v_pct": thd, "violating_current_orders": bad_i, "violating_voltage_orders": bad_v},
        "current_pct_il": pct_il, "current_limit_pct": i_lim, "voltage_pct": v_pct, "voltage_limit_pct": v_ind,
        "tdd_limit_pct": tdd_lim, "thd_limit_pct": thd_lim, "table": table, "row": row,
    }


def solve(task: Task, backend: str) -> Reference:
    q = quantities(task.public_inputs)
    return Reference(answer=q["answer"], method="IEEE 519-2022 Tables 1-4 at the PCC",
                     evidence={"current_table": q["table"], "row": q["row"], "tdd_limit_pct": q["tdd_limit_pct"],
                               "thd_limit_pct": q["thd_limit_pct"], "voltage_individual_limit_pct": q["voltage_limit_pct"]})


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference()
    want = ref.answer
    checks = ctx.checks()
    if answer["compliant"] != want["compliant"]:
        checks.violate("/compliant", "the IEEE 519-2022 verdict at the PCC", want["compliant"], answer["compliant"])
    for name, what in (("isc_il_ratio", "I_SC/I_L"), ("tdd_pct", "TDD"), ("thd_v_pct", "voltage THD")):
        checks.close(f"/{name}", want[name], answer[name], what)
    for name in ("violating_current_orders", "violating_voltage_orders"):
        if answer[name] != want[name]:
            checks.violate(f"/{name}", "the orders above their limits, ascending", want[name], answer[name])
    return Assessment(violations=checks.violations, evidence={"checks_failed": len(checks.violations), **ref.evidence})


def other_readings(task: Task) -> list[tuple[str, dict[str, Any]]]:
    """I_SC at the measured voltage instead of the nominal one, and an installation whose case does not
    say pcc.generation held to the first row — each only where it changes the answer."""
    base = quantities(task.public_inputs)["answer"]
    out = []
    for name, kw in (("isc_at_measured_voltage", {"isc_at": "measured"}),
                     ("first_row_when_generation_unstated", {"generation_unstated": "first_row"})):
        a = quantities(task.public_inputs, **kw)["answer"]
        if a != base:
            out.append((name, a))
    return out


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: harmonic currents in percent of the fundamental I_1 taken as percent of
    I_L (THD_I for TDD), where the meter reports them that way."""
    return quantities(task.public_inputs, naive=True)["answer"]


# ---------------------------------------------------------------------------- held-out draws

#: Characteristic current spectra (% of the fundamental) of typical nonlinear loads, odd orders.
SIX_PULSE = {5: 30.0, 7: 12.0, 11: 6.5, 13: 4.5, 17: 2.8, 19: 2.2, 23: 1.5, 25: 1.3, 29: 0.9, 31: 0.8, 35: 0.6, 37: 0.5,
             41: 0.4, 43: 0.35, 47: 0.3, 49: 0.25}
TWELVE_PULSE = {5: 3.0, 7: 2.0, 11: 7.5, 13: 5.0, 17: 0.8, 19: 0.6, 23: 1.6, 25: 1.3, 29: 0.3, 31: 0.25, 35: 0.6, 37: 0.5,
                41: 0.15, 43: 0.12, 47: 0.3, 49: 0.25}


def _ratio_margin_ok(v_kv: float, ratio: float) -> bool:
    bounds = [b for b, _, _ in std.CURRENT_TABLES[std.current_table(v_kv)][1] if math.isfinite(b)]
    return all(abs(ratio / b - 1.0) > 0.05 for b in bounds)


def draw(rng: np.random.Generator, level: int) -> dict[str, Any]:
    classes = [0.48, 4.16, 13.8, 34.5] if level == 1 else [0.4, 0.69, 11.0, 22.0, 33.0, 115.0, 138.0]
    v_kv = float(rng.choice(classes))
    s_load_mva = float(rng.uniform(0.3, 2.5)) if v_kv < 1 else float(rng.uniform(3.0, 60.0))
    il = s_load_mva / (math.sqrt(3) * v_kv) * 1000.0
    for _ in range(50):
        ratio = float(np.exp(rng.uniform(np.log(8.0), np.log(1500.0))))
        if _ratio_margin_ok(v_kv, ratio):
            break
    isc_ka = ratio * il / 1000.0
    i1 = il * float(rng.uniform(0.6, 0.95))
    base = SIX_PULSE if rng.uniform() < 0.6 else TWELVE_PULSE
    share = float(rng.uniform(0.15, 0.9))  # the drives' share of the fundamental current
    cur_pct_i1 = np.zeros(len(ORDERS))
    for k, h in enumerate(ORDERS):
        if h in base:
            cur_pct_i1[k] = base[h] * share * float(rng.uniform(0.8, 1.2))
        elif h % 2 == 1:  # triplen orders from single-phase loads and unbalance
            cur_pct_i1[k] = float(rng.uniform(0.1, 1.5)) / h ** 0.5
        else:
            cur_pct_i1[k] = float(rng.uniform(0.02, 0.5)) / h ** 0.5
    # the voltage distortion the currents cause (Z_h ∝ h at the PCC) plus a background level
    z_pu = 1.0 / ratio
    v_pct = cur_pct_i1 * (i1 / il) * z_pu * np.array(ORDERS) * float(rng.uniform(0.8, 1.6)) \
        + float(rng.uniform(0.05, 0.4)) * (np.array(ORDERS) % 2) / np.sqrt(ORDERS)
    pcc: dict[str, Any] = {"name": "PCC, utility metering point", "nominal_voltage_kv": v_kv, "max_demand_current_a": round(il, 1)}
    if level == 1:
        pcc["short_circuit_current_ka"] = round(isc_ka, 3)
        cur = {"unit": "A", "orders": ORDERS, "values": [round(float(x) * i1 / 100.0, 3) for x in cur_pct_i1]}
        volt = {"unit": "pct_of_fundamental", "orders": ORDERS, "values": [round(float(x), 3) for x in v_pct]}
    else:
        pcc["short_circuit_mva"] = round(isc_ka * math.sqrt(3) * v_kv, 2)
        pcc["fundamental_current_a"] = round(i1, 1)
        cur = {"unit": "pct_of_fundamental", "orders": ORDERS, "values": [round(float(x), 3) for x in cur_pct_i1]}
        v1 = v_kv * 1000.0 / math.sqrt(3) * float(rng.uniform(0.97, 1.04))
        volt = {"unit": "V", "fundamental_v": round(v1, 1), "orders": ORDERS,
                "values": [round(float(x) * v1 / 100.0, 3) for x in v_pct]}
    return {"pcc": pcc, "current_harmonics": cur, "voltage_harmonics": volt,
            "statistic": "weekly 95th percentile of 10-min values (IEEE 519-2022 5.1/5.2)"}


def ambiguity(inputs: dict[str, Any]) -> str | None:
    q = quantities(inputs)
    a = q["answer"]
    if not _ratio_margin_ok(float(inputs["pcc"]["nominal_voltage_kv"]), a["isc_il_ratio"]):
        return "I_SC/I_L within 5 % of a row boundary"
    for got, lim in ((a["tdd_pct"], q["tdd_limit_pct"]), (a["thd_v_pct"], q["thd_limit_pct"])):
        if abs(got / lim - 1.0) < 0.03:
            return "TDD or THD within 3 % of its limit"
    near_i = np.abs(q["current_pct_il"] / q["current_limit_pct"] - 1.0) < 0.03
    near_v = np.abs(q["voltage_pct"] / q["voltage_limit_pct"] - 1.0) < 0.03
    if near_i.any() or near_v.any():
        return "a harmonic within 3 % of its limit"
    return None


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the voltage class, load size, I_SC/I_L (log-uniform 8…1500, away from row
    boundaries), the drives' spectrum (6- or 12-pulse) and share, the background voltage
    distortion; level 2 gives the data in the meter's and utility's units."""
    return Generated(public_inputs=draw_until_clear(lambda: draw(rng, level), ambiguity, 80))


def accept(task: Task, reference: Reference) -> str | None:
    return ambiguity(task.public_inputs)


# ---------------------------------------------------------------------------- words

PRESENTATION = {
    "en": {
        "title": "Harmonic current and voltage limits at the PCC (IEEE 519-2022)",
        "statement": (
            "public_inputs gives the point of common coupling (PCC): its nominal voltage V (kV), the available "
            "short-circuit current I_SC (short_circuit_current_ka, or short_circuit_mva with I_SC = S_SC/(√3·V)), the "
            "maximum demand load current I_L (max_demand_current_a), and the weekly 95th-percentile harmonic spectra "
            "(orders 2–50) of the installation's current (in A, or in percent of the measured fundamental "
            "fundamental_current_a I_1) and of the PCC voltage (in percent of the fundamental, or in V with the measured "
            "fundamental fundamental_v). By IEEE 519-2022: I_SC/I_L = I_SC / I_L; TDD = √(Σ I_h²) / I_L × 100 with every "
            "harmonic current in amperes (convert percentages of I_1 with I_1, never refer them to I_1); THD_V = √(Σ V_h²) / "
            "V_1 × 100. Voltage limits: Table 1 by V (V ≤ 1 kV: 5.0 % individual, 8.0 % THD; 1–69 kV: 3.0/5.0; 69–161 kV: "
            "1.5/2.5; above 161 kV: 1.0/1.5). Current limits in % of I_L: Table 2 (V ≤ 69 kV), Table 3 (69–161 kV) or "
            "Table 4 (> 161 kV), row by I_SC/I_L (a ratio equal to a row boundary belongs to the upper row; none of the "
            "cases sits on one), for the odd ranges 3 ≤ h < 11, 11 ≤ h < 17, 17 ≤ h < 23, 23 ≤ h < 35, 35 ≤ h ≤ 50, and the "
            "TDD limit of the row; even harmonics: 50 % of the limit of the range they lie in for h ≤ 6 (h = 2, 4, 6 in the "
            "first range) and 100 % above 6 (the 2022 rule). If pcc.generation is true the first row applies whatever "
            "I_SC/I_L (the tables' footnote); when pcc.generation is false or absent, the row follows I_SC/I_L. I_SC from "
            "short_circuit_mva uses the nominal V, not the measured fundamental. A value equal to its limit complies. The installation complies when TDD, "
            "THD_V and every individual current and voltage harmonic are within their limits. Report I_SC/I_L, TDD, THD_V, "
            "the orders whose current exceeds its limit and those whose voltage exceeds the individual voltage limit "
            "(ascending), and the verdict."
        ),
        "answer_notes": "The verdict decides the score; I_SC/I_L, TDD and THD within 0.1 % (or 0.001), the order lists exactly.",
    },
    "ru": {
        "title": "Пределы гармоник тока и напряжения в точке общего присоединения (IEEE 519-2022)",
        "statement": (
            "public_inputs задаёт точку общего присоединения (PCC): номинальное напряжение V (кВ), ток КЗ I_SC "
            "(short_circuit_current_ka или short_circuit_mva, тогда I_SC = S_SC/(√3·V)), максимальный ток нагрузки I_L "
            "(max_demand_current_a) и спектры гармоник (номера 2–50) — 95-процентные за неделю значения — тока установки "
            "(в А или в процентах от измеренного тока основной гармоники fundamental_current_a I_1) и напряжения в PCC (в "
            "процентах основной гармоники или в вольтах при измеренной основной гармонике fundamental_v). По IEEE "
            "519-2022: I_SC/I_L = I_SC / I_L; TDD = √(Σ I_h²) / I_L × 100, где каждый ток гармоники в амперах (проценты от "
            "I_1 переведите через I_1, не относите их к I_1); THD_V = √(Σ V_h²) / V_1 × 100. Пределы напряжения — таблица "
            "1 по V (V ≤ 1 кВ: 5,0 % для отдельной гармоники, 8,0 % THD; 1–69 кВ: 3,0/5,0; 69–161 кВ: 1,5/2,5; выше 161 "
            "кВ: 1,0/1,5). Пределы тока в % от I_L: таблица 2 (V ≤ 69 кВ), 3 (69–161 кВ) или 4 (> 161 кВ), строка по "
            "I_SC/I_L (отношение, равное границе строк, относится к верхней строке; ни одна задача на границе не "
            "лежит), для нечётных диапазонов 3 ≤ h < 11, 11 ≤ h < 17, 17 ≤ h < 23, 23 ≤ h < 35, 35 ≤ h ≤ 50 и предел TDD "
            "строки; чётные гармоники: 50 % предела своего диапазона при h ≤ 6 (h = 2, 4, 6 — в первом диапазоне) и "
            "100 % выше 6 (правило 2022 г.). Если pcc.generation = true, действует первая строка независимо от "
            "I_SC/I_L (сноска таблиц); если pcc.generation = false или не задан, строка выбирается по I_SC/I_L. I_SC по "
            "short_circuit_mva вычисляется при номинальном V, а не при измеренном напряжении основной гармоники. "
            "Значение, равное пределу, допустимо. Установка соответствует, если TDD, THD_V и "
            "каждая гармоника тока и напряжения в пределах. Укажите I_SC/I_L, TDD, THD_V, номера гармоник тока выше "
            "предела и гармоник напряжения выше индивидуального предела (по возрастанию) и вывод."
        ),
        "answer_notes": "Оценку определяет вывод; I_SC/I_L, TDD и THD — с точностью 0,1 % (или 0,001), списки номеров — точно.",
        "hard_constraints": (
            "вывод совпадает с пересчётом по IEEE 519-2022; I_SC/I_L, TDD и THD_V — в пределах 0,1 % (или 0,001); списки номеров гармоник выше предела совпадают точно",
            "номера гармоник — из спектра задачи, каждый не более одного раза, по возрастанию",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Assess the installation in public_inputs at its PCC against IEEE 519-2022 (clause 5: Table 1 for the voltage, "
        "Tables 2–4 for the current by voltage class and I_SC/I_L). The spectra are weekly 95th percentiles and are "
        "compared with the tables directly. The case's own choices: TDD is referred to the case's I_L (harmonic currents "
        "given in percent of the measured fundamental are converted with it); I_SC from the short-circuit power at the nominal "
        "voltage where that is given; the 2022 even-harmonic rule; a value equal to its limit complies; pcc.generation, "
        "where true, puts the installation in the first row (false or absent: the row by I_SC/I_L). Report I_SC/I_L, TDD, THD_V, the current and voltage orders above their individual "
        "limits (ascending) and the verdict.")},
    "ru": {"statement": (
        "Оцените установку из public_inputs в точке общего присоединения по IEEE 519-2022 (раздел 5: таблица 1 для "
        "напряжения, таблицы 2–4 для тока по классу напряжения и I_SC/I_L). Спектры — 95-процентные значения за неделю, "
        "они сравниваются с таблицами напрямую. Выбор, сделанный в задаче: TDD относится к I_L задачи (токи гармоник в "
        "процентах от измеренной основной гармоники пересчитываются через неё); I_SC — по мощности КЗ при номинальном "
        "напряжении, если задана она; правило 2022 г. для чётных гармоник; значение, равное пределу, допустимо; "
        "pcc.generation = true относит установку к первой строке (false или не задан — строка по I_SC/I_L). Укажите I_SC/I_L, TDD, THD_V, номера гармоник тока и напряжения выше индивидуальных "
        "пределов (по возрастанию) и вывод.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged against psab's IEEE 519-2022 kernel (Tables 1–4 carried as data): the verdict must match; I_SC/I_L, TDD and THD within 0.1 %; the order lists exactly.",
        "ru": "Проверяется расчётом psab по IEEE 519-2022 (таблицы 1–4 хранятся как данные): вывод должен совпасть; I_SC/I_L, TDD и THD — с точностью 0,1 %; списки номеров — точно.",
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="quality_standards_assets_cyber",
        scoring_kind="comply",
        confidence="high",
        version="1",
        provenance=(
            {
                "title": "IEEE Std 519-2022, IEEE Standard for Harmonic Control in Electric Power Systems",
                "locator": "clause 5.1 Table 1 (voltage distortion limits), clause 5.2 Tables 2-4 (current distortion limits by I_SC/I_L, with the even-harmonic rule of the 2022 edition and footnote c for generation), clause 3 (TDD, THD definitions)",
                "note": "The tables applied directly at the PCC; the tables are data in psab.surrogates.ieee519; the case fixes the base of TDD and how boundary values are read.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "the verdict matches the IEEE 519-2022 recomputation; I_SC/I_L, TDD and THD_V within 0.1 % (or 0.001); the lists of orders above their limits match exactly",
            "orders are harmonic orders of the case's spectra, each once, ascending",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {"default": 1e-3}},
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
        naive_answer=naive_answer,
        other_readings=other_readings,
    )
)
