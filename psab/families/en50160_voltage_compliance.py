"""en50160_voltage_compliance — a week of 10-min supply voltages against EN 50160 (comply).

Given a week of 10-min mean r.m.s. supply voltages (one to three phases, LV or MV), the nominal
voltage (and for MV the declared supply voltage, where the operator declared one) and the
intervals the meter flagged, the agent says whether the supply-voltage-variation clause of
EN 50160 is met, the share of 10-min values within ±10 % per phase, and the intervals in which
any phase lies outside the range that all values must respect. The evaluator recomputes them with
:mod:`psab.surrogates.en50160` (the limits carried there as data with their clause); the verdict
decides the score and the diagnostics are checked as exact values.

Conventions fixed by the case: the reference voltage is the declared supply voltage Uc where the
case gives one (MV), else the nominal voltage; "within" a range is inclusive; flagged intervals
(interruptions, dips, swells — IEC 61000-4-30 flagging) are left out of both the share and the
all-values test; the week is the case's 1008 consecutive 10-min intervals, each labelled by the
timestamp of its end.

Levels: 1 — one LV phase, no flags. 2 — three phases, LV in volts or MV phase-to-phase in kV
with a declared voltage differing from the nominal, and flagged intervals during a dip whose
values would otherwise fail the all-values test.

Source: EN 50160:2010 (+A1:2015, A2:2019, A3:2019), clauses 4.2.2 (LV) and 5.2.2 (MV); IEC
61000-4-30:2015 for the 10-min values and the flagging concept.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.generators.acceptance import draw_until_clear
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import en50160 as en

FAMILY_ID = "en50160_voltage_compliance"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 1008; a year of 10-minute values is 52,560.
MAX_INPUT_ITEMS = 60000
PHASES = ("L1", "L2", "L3")

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    phases = [p for p in PHASES if p in inputs.get("phases", {})] or ["L1"]
    stamps = list(inputs.get("timestamps", []))
    return s.submission(
        {
            "compliant": s.boolean("true when the supply-voltage-variation clause is met on every phase",
                                   ru="true, если требования к отклонениям напряжения выполнены по всем фазам"),
            "share_within_10pct_pct": s.obj(
                {p: s.number(f"share of the counted 10-min values of {p} within the reference ± 10 % (percent)",
                             minimum=0, maximum=100,
                             ru=f"доля учитываемых 10-минутных значений фазы {p} в пределах ±10 % от опорного напряжения (процент)")
                 for p in phases},
                "per phase: the share of counted 10-min values within ± 10 %",
                ru="по фазам: доля учитываемых 10-минутных значений в пределах ±10 %"),
            "intervals_outside_limits": s.array(
                s.enum(stamps, "the timestamp of an interval (its end), as in timestamps", ru="метка интервала (его конец), как в timestamps"),
                "the counted intervals in which any phase lies outside the range all values must respect, in time order",
                max_items=len(stamps), unique=True,
                ru="учитываемые интервалы, в которых хотя бы одна фаза вне диапазона, обязательного для всех значений, по времени"),
        },
        "EN 50160 supply voltage variations over one week",
        ru="отклонения напряжения электропитания по EN 50160 за неделю",
    )


_SERIES = {"type": "array", "items": {"type": "number"}, "minItems": en.INTERVALS_PER_WEEK, "maxItems": en.INTERVALS_PER_WEEK}
INPUTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["site", "system", "nominal_voltage", "voltage_unit", "interval_minutes", "timestamps", "phases"],
    "additionalProperties": False,
    "properties": {
        "site": {"type": "string"},
        "system": {"enum": ["LV", "MV"]},
        "nominal_voltage": s.NUMBER,
        "declared_voltage": s.NUMBER,
        "voltage_unit": {"enum": ["V", "kV"]},
        "connection": {"enum": ["phase_to_neutral", "phase_to_phase"]},
        "interval_minutes": {"const": 10},
        "timestamps": {"type": "array", "items": {"type": "string"}, "minItems": en.INTERVALS_PER_WEEK,
                       "maxItems": en.INTERVALS_PER_WEEK},
        "phases": {"type": "object", "minProperties": 1, "additionalProperties": False,
                   "properties": {p: _SERIES for p in PHASES}},
        "flagged": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": en.INTERVALS_PER_WEEK - 1},
                    "uniqueItems": True},
    },
}

# ---------------------------------------------------------------------------- physics


def _bad(field: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"{FAMILY_ID}: public_inputs{field} {why}")


def check_timestamps(stamps: list[str], minutes: float) -> None:
    """The series must be one week of consecutive intervals: parseable, sorted, no gaps or repeats."""
    try:
        t = [datetime.fromisoformat(x.replace("Z", "+00:00")) for x in stamps]
    except (ValueError, AttributeError):
        bad = next(i for i, x in enumerate(stamps) if not _parses(x))
        raise _bad(f"/timestamps/{bad}", "is not an ISO 8601 timestamp") from None
    step = timedelta(minutes=minutes)
    for i in range(1, len(t)):
        if t[i] <= t[i - 1]:
            raise _bad(f"/timestamps/{i}", "is not after the previous timestamp: the series must be sorted, without repeats")
    for i in range(1, len(t)):
        if t[i] - t[i - 1] != step:
            raise _bad(f"/timestamps/{i}", f"follows a gap: consecutive intervals must be {minutes:g} min apart")


def _parses(x: Any) -> bool:
    try:
        datetime.fromisoformat(str(x).replace("Z", "+00:00"))
        return True
    except ValueError:
        return False


def reference_voltage(inputs: dict[str, Any], naive: bool = False) -> float:
    un = float(inputs["nominal_voltage"])
    if not un > 0:
        raise _bad("/nominal_voltage", "must be positive")
    if "declared_voltage" in inputs and not naive:
        uc = float(inputs["declared_voltage"])
        if not 0.8 * un <= uc <= 1.2 * un:
            raise _bad("/declared_voltage", "must lie within ±20 % of the nominal voltage")
        return uc
    return un


def matrix(inputs: dict[str, Any]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Phase ids, the (phases × 1008) voltage matrix and the flag mask — after the sanity checks."""
    check_timestamps(list(inputs["timestamps"]), float(inputs["interval_minutes"]))
    phases = [p for p in PHASES if p in inputs["phases"]]
    v = np.array([inputs["phases"][p] for p in phases], dtype=float)
    ref = reference_voltage(inputs)
    for i, p in enumerate(phases):
        if np.any(v[i] < 0) or np.any(v[i] > 2.0 * ref):
            k = int(np.argmax((v[i] < 0) | (v[i] > 2.0 * ref)))
            raise _bad(f"/phases/{p}/{k}", "is not a plausible 10-min supply voltage (negative or above twice the reference)")
    flags = np.zeros(v.shape[1], dtype=bool)
    flags[list(inputs.get("flagged", []))] = True
    return phases, v, flags


def answer_for(inputs: dict[str, Any], *, naive: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    phases, v, flags = matrix(inputs)
    system = inputs["system"]
    if naive:  # the nominal voltage, every interval counted, and ± 10 % read as the all-values range too
        ref = reference_voltage(inputs, naive=True)
        a = en.assess(v, ref, system, None)
        dev = en.deviation_pct(v, ref)
        outside = np.abs(dev) > 10.0
    else:
        ref = reference_voltage(inputs)
        a = en.assess(v, ref, system, np.broadcast_to(flags, v.shape))
        outside = a.outside_all_limits
    stamps = list(inputs["timestamps"])
    any_out = outside.any(axis=0)
    answer = {
        "compliant": bool(np.all(a.compliant)) if not naive else bool(np.all(a.share_within_band_pct >= en.LIMITS[system]["share_pct"]) and not any_out.any()),
        "share_within_10pct_pct": {p: float(a.share_within_band_pct[i]) for i, p in enumerate(phases)},
        "intervals_outside_limits": [stamps[i] for i in np.flatnonzero(any_out)],
    }
    dev = en.deviation_pct(v, ref)
    evidence = {"reference_voltage": ref, "clause": en.LIMITS[system]["clause"], "counted_intervals": int((~flags).sum()),
                "min_deviation_pct": round(float(dev.min()), 3), "max_deviation_pct": round(float(dev.max()), 3)}
    return answer, evidence


def solve(task: Task, backend: str) -> Reference:
    answer, evidence = answer_for(task.public_inputs)
    return Reference(answer=answer, evidence=evidence, method="EN 50160 supply-voltage-variation test on the 10-min values")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer
    checks = ctx.checks()
    if answer["compliant"] != ref["compliant"]:
        checks.violate("/compliant", "the verdict of EN 50160's supply-voltage-variation clause", ref["compliant"], answer["compliant"])
    for p, expected in ref["share_within_10pct_pct"].items():
        checks.close(f"/share_within_10pct_pct/{p}", expected, answer["share_within_10pct_pct"][p], "share within ± 10 %")
    want, got = ref["intervals_outside_limits"], answer["intervals_outside_limits"]
    if got != want:
        missing = [x for x in want if x not in got]
        extra = [x for x in got if x not in want]
        checks.violate("/intervals_outside_limits", "the counted intervals outside the all-values range, in time order",
                       want, {"missing": missing[:20], "extra": extra[:20], "order_ok": sorted(got) == got})
    return Assessment(violations=checks.violations, evidence={"checks_failed": len(checks.violations), **ctx.reference().evidence})


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: the nominal voltage even where a declared one is given, flagged
    intervals counted, and ± 10 % taken as the range every value must respect."""
    return answer_for(task.public_inputs, naive=True)[0]


# ---------------------------------------------------------------------------- held-out draws


def week_stamps(start: datetime) -> list[str]:
    return [(start + timedelta(minutes=10 * (i + 1))).strftime("%Y-%m-%dT%H:%M:%SZ") for i in range(en.INTERVALS_PER_WEEK)]


def week_profile_pct(rng: np.random.Generator, system: str, severity: float) -> np.ndarray:
    """Deviation (percent of the reference) of a week of 10-min voltages at the far end of a feeder:
    a load-driven drop with morning and evening peaks (smaller and later at the weekend), a PV rise
    around noon on sunny days (LV), slow upstream tap-changer steps and a few excursions."""
    n = en.INTERVALS_PER_WEEK
    t_h = (np.arange(n) + 0.5) / 6.0
    day = (t_h // 24).astype(int)
    h = t_h % 24
    weekend = day >= 5
    morning = np.where(weekend, 10.0, 8.0)
    load = 0.35 + 0.35 * np.exp(-((h - morning) / 2.0) ** 2) + 0.6 * np.exp(-((h - 19.0) / 2.3) ** 2)
    load *= np.where(weekend, 0.85, 1.0)
    sunny = rng.uniform(0.0, 1.0, 7)
    pv = np.clip(np.cos((h - 13.0) / 12.0 * np.pi * 1.6), 0, None) ** 2 * sunny[day]
    offset = float(rng.uniform(1.0, 4.0)) if system == "LV" else float(rng.uniform(1.5, 4.0))
    drop = float(rng.uniform(7.0, 10.0)) * severity if system == "LV" else float(rng.uniform(4.0, 8.0)) * severity
    rise = (float(rng.uniform(3.0, 8.0)) * severity) if system == "LV" else float(rng.uniform(0.5, 2.0))
    taps = np.repeat(rng.choice([-0.6, 0.0, 0.6], size=n // 36), 36)[:n]
    dev = offset - drop * load + rise * pv + taps + 0.35 * rng.standard_normal(n)
    for _ in range(int(rng.integers(1, 4))):  # excursions: a feeder reconfiguration or a stuck tap
        start = int(rng.integers(0, n - 40))
        length = int(rng.integers(3, 30))
        dev[start:start + length] += float(rng.choice([-1.0, 1.0])) * float(rng.uniform(3.0, 9.0))
    return dev


def snap_away_from_limits(dev: np.ndarray, system: str) -> np.ndarray:
    """Move values within 0.06 % of a limit to 0.1 % beyond it (outward or inward at random-free
    rule: away from the limit on the side they already are), so no verdict rests on rounding."""
    out = dev.copy()
    lim = en.LIMITS[system]
    for edge in (-float(lim["band_pct"]), float(lim["band_pct"]), float(lim["low_all_pct"]), float(lim["high_all_pct"])):
        near = np.abs(out - edge) < 0.06
        out[near] = edge + np.where(out[near] >= edge, 0.1, -0.1)
    return out


def draw(rng: np.random.Generator, level: int) -> dict[str, Any]:
    system = "LV" if level == 1 or rng.uniform() < 0.5 else "MV"
    severity = float(rng.uniform(0.9, 1.7))
    start = datetime(2026, int(rng.integers(3, 10)), 1) + timedelta(days=int(rng.integers(0, 20)))
    start = start - timedelta(days=start.weekday())  # weeks start on a Monday
    n_ph = 1 if level == 1 else 3
    if system == "LV":
        un, unit, conn, declared = 230.0, "V", "phase_to_neutral", None
    else:
        un = float(rng.choice([10.0, 20.0]))
        unit, conn = "kV", "phase_to_phase"
        declared = round(un * float(rng.choice([1.02, 1.025, 1.03, 0.98])), 2)
    ref = declared or un
    base = week_profile_pct(rng, system, severity)
    phases = {}
    flagged: list[int] = []
    if level > 1:
        start_dip = int(rng.integers(100, en.INTERVALS_PER_WEEK - 10))
        flagged = list(range(start_dip, start_dip + int(rng.integers(1, 4))))
    for p in PHASES[:n_ph]:
        dev = base + float(rng.uniform(-0.8, 0.8)) + 0.3 * rng.standard_normal(base.size)
        dev = snap_away_from_limits(dev, system)
        if flagged:
            dev[flagged] = float(rng.uniform(-45.0, -20.0))  # the dip the meter flagged
        nd = 1 if unit == "V" else 4
        phases[p] = [round(float(ref * (1 + d / 100.0)), nd) for d in dev]
    out: dict[str, Any] = {"site": "feeder end, LV cabinet" if system == "LV" else "MV/LV substation busbar",
                           "system": system, "nominal_voltage": un}
    if declared:
        out["declared_voltage"] = declared
    out.update(voltage_unit=unit, connection=conn, interval_minutes=10, timestamps=week_stamps(start), phases=phases)
    if flagged:
        out["flagged"] = flagged
    return out


def ambiguity(inputs: dict[str, Any]) -> str | None:
    """Why the verdict could rest on rounding, or the case be trivial."""
    ans, _ = answer_for(inputs)
    thr = float(en.LIMITS[inputs["system"]]["share_pct"])
    for share in ans["share_within_10pct_pct"].values():
        if abs(share - thr) < 0.3:
            return "a share within 0.3 % of the threshold"
    if all(share > 99.95 for share in ans["share_within_10pct_pct"].values()) and not ans["intervals_outside_limits"]:
        return "every value within ± 10 %: a trivial week"
    phases, v, _ = matrix(inputs)
    ref = reference_voltage(inputs)
    dev = en.deviation_pct(v, ref)
    lim = en.LIMITS[inputs["system"]]
    for edge in (-float(lim["band_pct"]), float(lim["band_pct"]), float(lim["low_all_pct"]), float(lim["high_all_pct"])):
        if np.any(np.abs(dev - edge) < 0.02):
            return "a value on a limit"
    return None


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the week: system (level 2), severity of the load-driven drop and the PV rise, sunny
    days, tap steps, excursions, start date, and at level 2 three phases, MV with a declared
    voltage and flagged dip intervals."""
    return Generated(public_inputs=draw_until_clear(lambda: draw(rng, level), ambiguity, 60))


def accept(task: Task, reference: Reference) -> str | None:
    return ambiguity(task.public_inputs)


# ---------------------------------------------------------------------------- words

PRESENTATION = {
    "en": {
        "title": "Supply voltage variations over a week (EN 50160)",
        "statement": (
            "public_inputs holds one week (1008 consecutive intervals) of 10-min mean r.m.s. supply voltages measured at a "
            "supply terminal, per phase under phases, in voltage_unit, each interval labelled by the timestamp of its end. "
            "Check the supply-voltage-variation clause of EN 50160:2010. Reference voltage: the declared supply voltage "
            "declared_voltage where the case gives one (MV), else nominal_voltage (same unit and connection as the "
            "measurements). Leave out the intervals listed (by 0-based index into the series: 0 is the first interval) in flagged — the meter flagged them for an "
            "interruption, dip or swell (IEC 61000-4-30) — from everything below. LV (clause 4.2.2): at least 95 % of the "
            "counted 10-min values within reference ± 10 %, and every counted value within reference + 10 % / − 15 %. MV "
            "(clause 5.2.2): at least 99 % within reference ± 10 %, and every counted value within reference ± 15 %. "
            "'Within' includes the limit. The week complies when both conditions hold on every phase. Report the verdict, "
            "per phase the share (percent of the counted intervals) within ± 10 %, and the timestamps of the counted "
            "intervals in which any phase lies outside the all-values range, in time order."
        ),
        "answer_notes": "The verdict decides the score; the shares must match within 0.1 % of their value, the list of intervals exactly.",
    },
    "ru": {
        "title": "Отклонения напряжения электропитания за неделю (EN 50160)",
        "statement": (
            "public_inputs содержит неделю (1008 последовательных интервалов) 10-минутных средних действующих значений "
            "напряжения в точке передачи электроэнергии — по фазам в phases, в единицах voltage_unit; каждый интервал "
            "помечен меткой времени своего конца. Проверьте выполнение требований EN 50160:2010 к медленным изменениям "
            "напряжения. Опорное напряжение — согласованное напряжение declared_voltage, если оно задано (СН), иначе "
            "nominal_voltage (в тех же единицах и для того же вида напряжения, что и измерения). Интервалы, перечисленные "
            "(по индексу, отсчитываемому от 0: 0 — первый интервал) в flagged, счётчик пометил из-за перерыва, провала или перенапряжения (МЭК 61000-4-30) — "
            "исключите их из всех расчётов ниже. НН (п. 4.2.2): не менее 95 % учитываемых 10-минутных значений в пределах "
            "опорного ± 10 %, и все учитываемые значения в пределах опорного + 10 % / − 15 %. СН (п. 5.2.2): не менее 99 % "
            "в пределах ± 10 %, и все учитываемые значения в пределах ± 15 %. Граница входит в диапазон. Неделя "
            "соответствует требованиям, если оба условия выполнены по каждой фазе. Укажите вывод, по каждой фазе долю "
            "(в процентах от учитываемых интервалов) значений в пределах ± 10 % и метки учитываемых интервалов, в которых "
            "хотя бы одна фаза вне диапазона, обязательного для всех значений, — по времени."
        ),
        "answer_notes": "Оценку определяет вывод; доли должны совпасть с точностью 0,1 % их значения, список интервалов — точно.",
        "hard_constraints": (
            "вывод совпадает с пересчётом по EN 50160; доли в пределах ± 10 % совпадают в пределах 0,1 % значения; список интервалов вне диапазона совпадает точно",
            "доля указана для каждой фазы задачи; интервалы названы метками из timestamps, каждый не более одного раза, по времени",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Assess the week of 10-min supply voltages in public_inputs against the supply-voltage-variation requirements of "
        "EN 50160:2010 (+A1/A2/A3) — clause 4.2.2 for LV, 5.2.2 for MV. The case's own choices: the reference is "
        "declared_voltage where given, else nominal_voltage; the intervals listed in flagged (0-based indices into the "
        "series) are excluded (IEC 61000-4-30 flagging); a value on a limit is within it; the week complies when every phase meets the clause. Report the "
        "verdict, per phase the share of counted values within ± 10 % (percent), and the timestamps of the counted intervals "
        "in which any phase breaks the range all values must respect, in time order.")},
    "ru": {"statement": (
        "Оцените неделю 10-минутных значений напряжения из public_inputs на соответствие требованиям EN 50160:2010 "
        "(+A1/A2/A3) к медленным изменениям напряжения — п. 4.2.2 для НН, п. 5.2.2 для СН. Выбор, сделанный в задаче: "
        "опорное напряжение — declared_voltage, если задано, иначе nominal_voltage; интервалы из flagged (индексы от 0) "
        "исключаются (маркировка по МЭК 61000-4-30); значение на границе считается в пределах; неделя соответствует, если требования "
        "выполнены по каждой фазе. Укажите вывод, по каждой фазе долю учитываемых значений в пределах ± 10 % (в процентах) "
        "и метки учитываемых интервалов, в которых хотя бы одна фаза нарушает диапазон для всех значений, по времени.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged against psab's EN 50160 kernel (the clause's limits carried as data): the verdict must match; shares within 0.1 %; the list of intervals exactly.",
        "ru": "Проверяется расчётом psab по EN 50160 (пределы пункта хранятся как данные): вывод должен совпасть; доли — с точностью 0,1 %; список интервалов — точно.",
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
                "title": "EN 50160:2010 + A1:2015 + A2:2019 + A3:2019, Voltage characteristics of electricity supplied by public electricity networks",
                "locator": "4.2.2 (LV supply voltage variations: 95 % within Un ± 10 %, all within Un + 10 %/− 15 %), 5.2.2 (MV: 99 % within Uc ± 10 %, all within Uc ± 15 %); one-week observation period",
                "note": "The clause applied directly to the case's 10-min values; the limits are data in psab.surrogates.en50160.LIMITS. The MV percentages are those of the 2010 edition.",
                "confidence": "high",
            },
            {
                "title": "IEC 61000-4-30:2015, Testing and measurement techniques — Power quality measurement methods",
                "locator": "5.2 (magnitude of the supply voltage), 5.5 (10-min aggregation), 4.7 (flagging concept)",
                "note": "How the 10-min values are formed and why flagged intervals are left out.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "the verdict matches the EN 50160 recomputation; the shares within ± 10 % match within 0.1 % of their value; the list of intervals outside the all-values range matches exactly",
            "a share for every phase of the case; intervals named by timestamps of the case, each once, in time order",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {"/share_within_10pct_pct": 0.01, "default": 1e-6}},
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
    )
)
