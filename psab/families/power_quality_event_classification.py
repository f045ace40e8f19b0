"""power_quality_event_classification — dips, swells and interruptions by IEC 61000-4-30 (classify).

Given a record of half-cycle r.m.s. voltages Urms(1/2) (one or three channels, in volts), the
declared input voltage Udin and the thresholds (dip, swell, interruption, hysteresis in % of
Udin), the agent lists every event with its type, start, duration and residual (dip,
interruption) or maximum (swell) voltage. The evaluator detects the events with
:mod:`psab.surrogates.iec61000_4_30` and scores the share of reference events the answer gets
right (every field), each miss and each false alarm named in the evidence.

Conventions fixed by the case: value k of the record is taken at t = k × half_cycle_ms from the
record's start; an event starts at the first value meeting its start condition and its duration
runs to the first value meeting its end condition (exclusive); magnitudes in % of Udin; dips,
swells and interruptions are each detected by their own rule (a dip containing an interruption is
reported as both); an event still open at the end of the record ends there (the cases have none).

Levels: 1 — one channel, a few dips (some recovering slowly through the hysteresis band), a swell
and sometimes an interruption. 2 — three channels (polyphase aggregation): a single-phase fault
with dips on one or two phases and swells on the healthy ones at the same time, three-phase dips
with unequal depths, an interruption on all phases.

Source: IEC 61000-4-30:2015, Testing and measurement techniques — Power quality measurement
methods, 5.4 (dips and swells) and 5.5 (interruptions).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.generators.acceptance import draw_until_clear
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import iec61000_4_30 as pq

FAMILY_ID = "power_quality_event_classification"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 600.
MAX_INPUT_ITEMS = 20000
CHANNELS = ("L1", "L2", "L3")
MAX_EVENTS = 40

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    event = s.obj({
        "type": s.enum(pq.KINDS, "dip, swell or interruption", ru="провал (dip), перенапряжение (swell) или прерывание (interruption)"),
        "start_ms": s.number("start: the time of the first half-cycle value meeting the start condition, ms from the record's start",
                             minimum=0, ru="начало: время первого полупериодного значения, удовлетворяющего условию начала, мс от начала записи"),
        "duration_ms": s.number("duration: from the start to the first value meeting the end condition, ms", exclusive_minimum=0,
                                ru="длительность: от начала до первого значения, удовлетворяющего условию окончания, мс"),
        "magnitude_pct": s.number("residual voltage (dip, interruption: the lowest Urms(1/2) on any channel) or maximum (swell), % of Udin",
                                  minimum=0, ru="остаточное напряжение (провал, прерывание: наименьшее Urms(1/2) по всем каналам) или максимальное (перенапряжение), % от Udin"),
    }, "one event", ru="одно событие")
    return s.submission(
        {"events": s.array(event, "every event in the record, ordered by start (a dip before a swell before an interruption at the same start)",
                           max_items=MAX_EVENTS,
                           ru="все события записи, по времени начала (при одинаковом начале: провал, перенапряжение, прерывание)")},
        "voltage dips, swells and interruptions (IEC 61000-4-30)",
        ru="провалы, перенапряжения и прерывания напряжения (МЭК 61000-4-30)",
    )


_SERIES = {"type": "array", "items": {"type": "number"}, "minItems": 20, "maxItems": 4000}
INPUTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["declared_voltage_v", "frequency_hz", "half_cycle_ms", "thresholds_pct", "channels"],
    "additionalProperties": False,
    "properties": {
        "site": {"type": "string"},
        "record_start": {"type": "string"},
        "declared_voltage_v": s.NUMBER,
        "frequency_hz": {"enum": [50, 60]},
        "half_cycle_ms": s.POSITIVE,
        "thresholds_pct": {"type": "object", "required": ["dip", "swell", "interruption", "hysteresis"], "additionalProperties": False,
                           "properties": {k: s.NUMBER for k in ("dip", "swell", "interruption", "hysteresis")}},
        "channels": {"type": "object", "minProperties": 1, "additionalProperties": False, "properties": {c: _SERIES for c in CHANNELS}},
    },
}

# ---------------------------------------------------------------------------- physics


def _bad(field: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"{FAMILY_ID}: public_inputs{field} {why}")


def record(inputs: dict[str, Any]) -> np.ndarray:
    """The (channels × n) Urms(1/2) matrix in % of Udin — after the sanity checks."""
    udin = float(inputs["declared_voltage_v"])
    if not udin > 0:
        raise _bad("/declared_voltage_v", "must be positive")
    hc = float(inputs["half_cycle_ms"])
    if abs(hc - 500.0 / float(inputs["frequency_hz"])) > 1e-6:
        raise _bad("/half_cycle_ms", "must be half the period of frequency_hz")
    th = inputs["thresholds_pct"]
    if not 0 < th["interruption"] < th["dip"] < 100 < th["swell"] or not 0 < th["hysteresis"] < th["interruption"] + 100 - th["dip"]:
        raise _bad("/thresholds_pct", "must satisfy 0 < interruption < dip < 100 < swell with a positive hysteresis")
    chans = [c for c in CHANNELS if c in inputs["channels"]]
    lengths = {len(inputs["channels"][c]) for c in chans}
    if len(lengths) != 1:
        raise _bad(f"/channels/{chans[-1]}", "must have as many values as the other channels")
    u = np.array([inputs["channels"][c] for c in chans], dtype=float)
    for i, c in enumerate(chans):
        if np.any(u[i] < 0):
            raise _bad(f"/channels/{c}/{int(np.argmax(u[i] < 0))}", "is negative: an r.m.s. voltage cannot be")
    return u / udin * 100.0


def events_of(inputs: dict[str, Any], *, hysteresis: bool = True) -> list[dict[str, Any]]:
    u = record(inputs)
    th = inputs["thresholds_pct"]
    hc = float(inputs["half_cycle_ms"])
    found = pq.detect(u, dip_pct=float(th["dip"]), swell_pct=float(th["swell"]), interruption_pct=float(th["interruption"]),
                      hysteresis_pct=float(th["hysteresis"]) if hysteresis else 0.0)
    return [{"type": e.kind, "start_ms": e.start * hc, "duration_ms": (e.end - e.start) * hc, "magnitude_pct": e.magnitude_pct}
            for e in found]


def solve(task: Task, backend: str) -> Reference:
    ev = events_of(task.public_inputs)
    return Reference(answer={"events": ev}, method="IEC 61000-4-30 5.4/5.5 event detection on Urms(1/2) with hysteresis",
                     evidence={"events": len(ev)})


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference()
    truth = ref.answer["events"]
    got = answer["events"]
    checks = ctx.checks()
    order = {k: i for i, k in enumerate(pq.KINDS)}
    keys = [(e["start_ms"], order[e["type"]]) for e in got]
    if keys != sorted(keys):
        checks.violate("/events", "events ordered by start (dip, swell, interruption at the same start)", "sorted", "unsorted")
    tol = ctx.checks().tol
    used: set[int] = set()
    misses, correct = [], 0
    for k, want in enumerate(truth):
        match = next((i for i, e in enumerate(got) if i not in used and e["type"] == want["type"]
                      and abs(e["start_ms"] - want["start_ms"]) < 0.5), None)
        if match is None:
            misses.append({"event": k, "expected": want, "found": None})
            continue
        used.add(match)
        e = got[match]
        ok_d = abs(e["duration_ms"] - want["duration_ms"]) < 0.5
        ok_m, _ = tol.close(f"/events/{match}/magnitude_pct", want["magnitude_pct"], e["magnitude_pct"])
        if ok_d and ok_m:
            correct += 1
        else:
            misses.append({"event": k, "expected": want, "found": e})
    false_alarms = [e for i, e in enumerate(got) if i not in used]
    return Assessment(violations=checks.violations, correct=correct, total=len(truth) + len(false_alarms),
                      evidence={"misses": misses, "false_alarms": false_alarms[:20], "reference_events": len(truth)})


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: an event ends as soon as the voltage is back across its threshold
    (no hysteresis)."""
    return {"events": events_of(task.public_inputs, hysteresis=False)}


# ---------------------------------------------------------------------------- held-out draws


def _segment(h: np.ndarray, start: int, levels: list[tuple[int, float]]) -> int:
    """Write consecutive (length, level %) plateaus into the true half-cycle r.m.s. ``h`` from
    ``start``; returns the index after them."""
    k = start
    for length, level in levels:
        h[..., k:k + length] = level
        k += length
    return k


def synthesize(rng: np.random.Generator, level: int, th: dict[str, float]) -> np.ndarray:
    """Urms(1/2) in % of Udin: plateaus of the true half-cycle r.m.s. (near 100 %, events as
    plateaus with a slow recovery through the hysteresis band), then the one-cycle window
    refreshed every half cycle — √((h[k−1]² + h[k]²)/2) — so every step has one intermediate value."""
    n_ch = 1 if level == 1 else 3
    n = 400 if level == 1 else 600
    h = 100.0 + float(rng.uniform(-1.5, 2.5)) + 0.15 * rng.standard_normal((n_ch, n))
    k = int(rng.integers(15, 40))
    kinds = ["dip", "dip", "swell"] + (["interruption"] if rng.uniform() < 0.6 else []) + (["dip"] if rng.uniform() < 0.5 else [])
    rng.shuffle(kinds)
    for kind in kinds:
        if k > n - 90:
            break
        band = th["dip"] + th["hysteresis"] * float(rng.uniform(0.25, 0.75))  # inside the hysteresis band
        if kind == "dip":
            depth = float(rng.uniform(15.0, th["dip"] - 5.0))
            length = int(rng.integers(3, 40))
            slow = int(rng.integers(2, 12)) if rng.uniform() < (0.6 if n_ch == 1 else 0.85) else 0
            if n_ch == 1:
                k = _segment(h, k, [(length, depth), (slow, band)])
            else:
                faulted = rng.choice(n_ch, size=int(rng.integers(1, 4)), replace=False)
                for c in range(n_ch):
                    lvl = depth * float(rng.uniform(0.9, 1.1)) if c in faulted else float(rng.uniform(th["dip"] + th["hysteresis"] + 1.0, 99.0))
                    _segment(h[c:c + 1], k, [(length, lvl), (slow, band if c in faulted else lvl)])
                k += length + slow
        elif kind == "swell":
            length = int(rng.integers(4, 30))
            peak = float(rng.uniform(th["swell"] + 1.0, th["swell"] + 9.0))
            if n_ch == 1:
                k = _segment(h, k, [(length, peak)])
            else:  # an earth fault on a resonant-earthed network: one phase dips, the healthy ones swell
                f = int(rng.integers(0, n_ch))
                for c in range(n_ch):
                    _segment(h[c:c + 1], k, [(length, float(rng.uniform(40.0, 80.0)) if c == f else peak * float(rng.uniform(0.97, 1.0)))])
                k += length
        else:
            length = int(rng.integers(20, 120))
            k = _segment(h, k, [(length, float(rng.uniform(0.0, th["interruption"] - 1.5)))])
        k += int(rng.integers(20, 60))
    u = np.sqrt((np.concatenate([h[:, :1], h[:, :-1]], axis=1) ** 2 + h ** 2) / 2.0)
    return snap(u, th)


def snap(u: np.ndarray, th: dict[str, float]) -> np.ndarray:
    """Move values within 0.05 % of a threshold 0.1 % away from it, on their side, so no event
    boundary rests on rounding."""
    out = u.copy()
    edges = (th["dip"], th["dip"] + th["hysteresis"], th["swell"], th["swell"] - th["hysteresis"],
             th["interruption"], th["interruption"] + th["hysteresis"])
    for edge in edges:
        near = np.abs(out - edge) < 0.05
        out[near] = edge + np.where(out[near] >= edge, 0.1, -0.1)
    return np.clip(out, 0.0, None)


def draw(rng: np.random.Generator, level: int) -> dict[str, Any]:
    th = {"dip": 90.0, "swell": 110.0, "interruption": 5.0 if rng.uniform() < 0.7 else 10.0,
          "hysteresis": float(rng.choice([2.0, 2.0, 3.0]))}
    udin = 230.0
    u = synthesize(rng, level, th)
    chans = {c: [round(float(x) * udin / 100.0, 2) for x in u[i]] for i, c in enumerate(CHANNELS[:u.shape[0]])}
    return {"site": "LV busbar of a 20/0.4 kV substation" if level == 1 else "LV main switchboard of an industrial plant",
            "record_start": "2026-05-04T10:15:00.000Z", "declared_voltage_v": udin, "frequency_hz": 50, "half_cycle_ms": 10.0,
            "thresholds_pct": th, "channels": chans}


def ambiguity(inputs: dict[str, Any]) -> str | None:
    ev = events_of(inputs)
    n = len(next(iter(inputs["channels"].values())))
    if len(ev) < 2:
        return "fewer than two events"
    if any(e["start_ms"] + e["duration_ms"] >= n * float(inputs["half_cycle_ms"]) for e in ev):
        return "an event still open at the end of the record"
    u = record(inputs)
    th = inputs["thresholds_pct"]
    edges = np.array([th["dip"], th["dip"] + th["hysteresis"], th["swell"], th["swell"] - th["hysteresis"],
                      th["interruption"], th["interruption"] + th["hysteresis"]])
    if np.any(np.abs(u[..., None] - edges) < 0.02):
        return "a value on a threshold"
    return None


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the record: the pre-event voltage, the sequence of events (dips with and without a
    slow recovery through the hysteresis band, swells, interruptions), their depths, lengths and
    spacing, the interruption threshold and the hysteresis; level 2 three channels with faults
    on one to three phases and swells on the healthy ones."""
    return Generated(public_inputs=draw_until_clear(lambda: draw(rng, level), ambiguity, 40))


def accept(task: Task, reference: Reference) -> str | None:
    return ambiguity(task.public_inputs)


# ---------------------------------------------------------------------------- words

PRESENTATION = {
    "en": {
        "title": "Voltage dips, swells and interruptions in a half-cycle r.m.s. record (IEC 61000-4-30)",
        "statement": (
            "public_inputs holds a record of Urms(1/2) — the r.m.s. voltage over one cycle, refreshed every half cycle — "
            "per channel (volts), value k at t = k × half_cycle_ms from the record's start, the declared input voltage "
            "Udin (declared_voltage_v) and the thresholds in % of Udin. Detect the events of IEC 61000-4-30:2015 "
            "(5.4, 5.5) with the hysteresis: a dip begins at the first value at which any channel is below the dip "
            "threshold and ends at the first later value at which every channel is at or above dip + hysteresis; a swell "
            "begins when any channel is above the swell threshold and ends when every channel is at or below swell − "
            "hysteresis; an interruption begins when every channel is below the interruption threshold and ends when any "
            "channel is at or above interruption + hysteresis. Each kind is detected by its own rule (a dip containing an "
            "interruption is listed as a dip and as an interruption). Duration = (end index − start index) × "
            "half_cycle_ms; magnitude = the lowest Urms(1/2) on any channel from the start to the end (exclusive) for dips "
            "and interruptions (residual voltage), the highest for swells, in % of Udin. List every event ordered by start "
            "(at an equal start: dip, swell, interruption)."
        ),
        "answer_notes": "Score: the share of the record's events with type, start, duration (to 0.5 ms) and magnitude (0.1 % or 0.01 % of Udin) all right; an extra event counts against the score.",
    },
    "ru": {
        "title": "Провалы, перенапряжения и прерывания напряжения в записи полупериодных действующих значений (МЭК 61000-4-30)",
        "statement": (
            "public_inputs содержит запись Urms(1/2) — действующего значения напряжения за один период, обновляемого "
            "каждые полпериода, — по каналам (вольты), значение k относится к моменту t = k × half_cycle_ms от начала "
            "записи, а также заявленное напряжение Udin (declared_voltage_v) и пороги в % от Udin. Выделите события по "
            "МЭК 61000-4-30:2015 (5.4, 5.5) с гистерезисом: провал начинается в первом значении, в котором хотя бы один "
            "канал ниже порога провала, и заканчивается в первом последующем значении, в котором все каналы не ниже "
            "порога провала плюс гистерезис; перенапряжение начинается, когда хотя бы один канал выше порога "
            "перенапряжения, и заканчивается, когда все каналы не выше порога минус гистерезис; прерывание начинается, "
            "когда все каналы ниже порога прерывания, и заканчивается, когда хотя бы один канал не ниже порога прерывания "
            "плюс гистерезис. Каждый вид выделяется по своему правилу (провал, содержащий прерывание, указывается и как "
            "провал, и как прерывание). Длительность = (индекс окончания − индекс начала) × half_cycle_ms; величина — "
            "наименьшее Urms(1/2) по всем каналам от начала до окончания (не включая его) для провалов и прерываний "
            "(остаточное напряжение), наибольшее — для перенапряжений, в % от Udin. Перечислите все события по времени "
            "начала (при одинаковом начале: провал, перенапряжение, прерывание)."
        ),
        "answer_notes": "Оценка — доля событий записи, у которых верны вид, начало, длительность (до 0,5 мс) и величина (0,1 % или 0,01 % от Udin); лишнее событие снижает оценку.",
        "hard_constraints": (
            "события упорядочены по времени начала (при одинаковом начале: провал, перенапряжение, прерывание)",
            "каждое событие имеет вид dip, swell или interruption, начало не меньше 0, положительную длительность и неотрицательную величину",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Detect and characterise every voltage dip, swell and interruption in the Urms(1/2) record of public_inputs by "
        "IEC 61000-4-30:2015, 5.4 and 5.5, with the case's thresholds and hysteresis in % of Udin and polyphase "
        "aggregation over all channels. The case's own choices: value k is at k × half_cycle_ms; the duration runs to the "
        "first value meeting the end condition; magnitudes in % of Udin (residual for dips and interruptions, maximum for "
        "swells); each kind detected by its own rule, so a dip containing an interruption is listed as both; events "
        "ordered by start, then dip, swell, interruption.")},
    "ru": {"statement": (
        "Выделите и охарактеризуйте все провалы, перенапряжения и прерывания напряжения в записи Urms(1/2) из "
        "public_inputs по МЭК 61000-4-30:2015, 5.4 и 5.5, с порогами и гистерезисом задачи в % от Udin и объединением по "
        "всем каналам многофазной системы. Выбор, сделанный в задаче: значение k относится к моменту k × half_cycle_ms; "
        "длительность — до первого значения, удовлетворяющего условию окончания; величины в % от Udin (остаточное "
        "напряжение для провалов и прерываний, максимальное для перенапряжений); каждый вид выделяется по своему "
        "правилу, поэтому провал, содержащий прерывание, указывается дважды; события по времени начала, затем провал, "
        "перенапряжение, прерывание.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged against psab's IEC 61000-4-30 event detector: an event counts when type and start match and duration (0.5 ms) and magnitude (0.1 % or 0.01 % of Udin) agree; the score is correct events / (reference events + false alarms).",
        "ru": "Проверяется детектором событий psab по МЭК 61000-4-30: событие засчитывается, если совпадают вид и начало, а длительность (0,5 мс) и величина (0,1 % или 0,01 % от Udin) согласуются; оценка — верные события / (события эталона + ложные).",
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="quality_standards_assets_cyber",
        scoring_kind="classify",
        confidence="high",
        version="1",
        provenance=(
            {
                "title": "IEC 61000-4-30:2015, Electromagnetic compatibility — Testing and measurement techniques — Power quality measurement methods",
                "locator": "5.4.1 (Urms(1/2)), 5.4.2 (dip detection and evaluation, polyphase), 5.4.3 (swell), 5.5 (voltage interruptions), with the thresholds and hysteresis of the case",
                "note": "The start/end rules applied directly to the half-cycle r.m.s. record; the case fixes the time origin and how events of different kinds overlap.",
                "confidence": "high",
            },
            {
                "title": "EN 50160:2010, Voltage characteristics of electricity supplied by public electricity networks",
                "locator": "3.21 (dip threshold 90 %), 3.30 (swell threshold 110 %), 3.28 (interruption: below 5 %)",
                "note": "The usual thresholds of the cases.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "events ordered by start (dip, swell, interruption at the same start)",
            "each event has type dip, swell or interruption, a start of at least 0, a positive duration and a non-negative magnitude",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {"/events/*/magnitude_pct": 0.01, "default": 0.5}},
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
