"""frt_compliance — fault-ride-through compliance of a measured voltage profile (comply).

A grid code's fault-ride-through envelope (the lower limit of the voltage-against-time region in
which a unit must stay connected) from Commission Regulation (EU) 2016/631 (RfG), carried in the
case as its parameter table with the clause, a measured PCC voltage profile and the instant the
unit tripped, if it did. The agent returns whether the unit complied, whether the profile left the
envelope, the event instant (the trip while obliged to stay connected, else the exit from the
envelope, else the envelope's end) and the minimum margin of the profile above the envelope.

Level 1: the envelope's points and a per-unit profile. Level 2: only the RfG parameter table (the
agent builds the curve) and three phase-to-phase RMS voltages in kV with the nominal voltage (the
case takes the lowest phase-to-phase voltage as the profile).

Reference: :mod:`psab.surrogates.frt`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import frt

FAMILY_ID = "frt_compliance"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 361.
MAX_INPUT_ITEMS = 10000

#: RfG voltage-against-time profile parameters with their clause and the ranges the Regulation
#: allows (the TSO specifies values within them). Values in per unit of the reference voltage.
#: Each of Tables 3.1, 3.2, 7.1 and 7.2 gives t_clear as "0,14–0,15 (or 0,14–0,25 if system
#: protection and secure operation so require)": the alternative is carried as its own entry.
RFG_TABLES: dict[str, dict[str, Any]] = {
    "ppm_type_b": {
        "document": "Commission Regulation (EU) 2016/631 (RfG)",
        "clause": "Art. 14(3)(a), Table 3.2 — power park modules, types B and C",
        "ranges": {"u_ret_pu": [0.05, 0.15], "u_clear_pu": "U_ret–0.15", "u_rec1_pu": "U_clear", "u_rec2_pu": 0.85,
                   "t_clear_s": [0.14, 0.15], "t_clear_s_if_system_protection_requires": [0.14, 0.25],
                   "t_rec1_s": "t_clear", "t_rec2_s": "t_rec1", "t_rec3_s": [1.5, 3.0]},
    },
    "ppm_type_d": {
        "document": "Commission Regulation (EU) 2016/631 (RfG)",
        "clause": "Art. 16(3)(a), Table 7.2 — power park modules, type D",
        "ranges": {"u_ret_pu": 0.0, "u_clear_pu": "U_ret", "u_rec1_pu": "U_clear", "u_rec2_pu": 0.85,
                   "t_clear_s": [0.14, 0.15], "t_clear_s_if_system_protection_requires": [0.14, 0.25],
                   "t_rec1_s": "t_clear", "t_rec2_s": "t_rec1", "t_rec3_s": [1.5, 3.0]},
    },
    "spgm_type_d": {
        "document": "Commission Regulation (EU) 2016/631 (RfG)",
        "clause": "Art. 16(3)(a), Table 7.1 — synchronous power-generating modules, type D",
        "ranges": {"u_ret_pu": 0.0, "u_clear_pu": 0.25, "u_rec1_pu": [0.5, 0.7], "u_rec2_pu": [0.85, 0.9],
                   "t_clear_s": [0.14, 0.15], "t_clear_s_if_system_protection_requires": [0.14, 0.25],
                   "t_rec1_s": ["t_clear", 0.45], "t_rec2_s": ["t_rec1", 0.7],
                   "t_rec3_s": ["t_rec2", 1.5]},
    },
}

FIELDS_RU = {
    "compliant": "соответствует ли поведение установки требованию (не отключилась, пока была обязана оставаться в работе)",
    "left_envelope": "выходил ли профиль напряжения ниже огибающей",
    "event_time_s": "момент события, с: отключение при обязанности оставаться в работе; иначе выход за огибающую; иначе конец огибающей",
    "min_margin_pu": "минимальный запас напряжения над огибающей по учитываемым отсчётам, о.е. (отрицательный — ниже огибающей)",
}


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    return s.submission(
        {
            "compliant": s.boolean("whether the unit complied (it did not trip while obliged to stay connected)",
                                   ru=FIELDS_RU["compliant"]),
            "left_envelope": s.boolean("whether the voltage profile fell below the envelope", ru=FIELDS_RU["left_envelope"]),
            "event_time_s": s.number("event instant (s): the trip while obliged to stay connected; else the first sample "
                                     "below the envelope; else the envelope's last time", ru=FIELDS_RU["event_time_s"]),
            "min_margin_pu": s.number("minimum margin u_k − u_env(t_k) over the considered samples (pu; negative below the envelope)",
                                      ru=FIELDS_RU["min_margin_pu"]),
        },
        "fault-ride-through compliance verdict",
        ru="заключение о соответствии требованиям к прохождению КЗ",
    )


INPUTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["grid_code", "profile", "trip_time_s"],
    "properties": {
        "grid_code": {"type": "object", "required": ["document", "clause"], "properties": {
            # a range is [low, high] (either end may name the parameter it follows) or one value (RfG Table 7.2)
            "allowed_ranges": {"type": "object", "additionalProperties": {"anyOf": [
                {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": ["number", "string"]}},
                {"type": ["string", "number"]}]}}}},
        "envelope": {"type": "array", "minItems": 2, "items": {"type": "object", "required": ["t_s", "u_pu"]}},
        "profile": {"type": "object", "required": ["t_s"],
                    "properties": {k: {"type": "array"} for k in ("t_s", "u_pu", "u_ab_kv", "u_bc_kv", "u_ca_kv")}},
        "trip_time_s": {"type": ["number", "null"]},
        "u_n_kv": {"type": "number", "exclusiveMinimum": 0},
    },
}


def _bad(field: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"{FAMILY_ID}: public_inputs/{field} {why}")


def _finite(v: Any, field: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise _bad(field, f"must be a finite number, got {v!r}")
    return float(v)


def envelope(inputs: dict[str, Any]) -> list[tuple[float, float]]:
    """The envelope's points: given (level 1) or built from the RfG parameters (level 2); raises
    InvalidTaskError naming the field when not monotone in time or not starting at t = 0."""
    if "envelope" in inputs:
        pts = [(_finite(p["t_s"], f"envelope/{i}/t_s"), _finite(p["u_pu"], f"envelope/{i}/u_pu"))
               for i, p in enumerate(inputs["envelope"])]
        where = "envelope"
    else:
        par = inputs["grid_code"].get("parameters")
        if not isinstance(par, dict):
            raise _bad("grid_code/parameters", "is missing: give the envelope's points or the RfG parameter table")
        for k in ("u_ret_pu", "u_clear_pu", "u_rec1_pu", "u_rec2_pu", "t_clear_s", "t_rec1_s", "t_rec2_s", "t_rec3_s"):
            _finite(par.get(k), f"grid_code/parameters/{k}")
        pts = frt.rfg_envelope(par)
        where = "grid_code/parameters"
    if pts[0][0] != 0.0:
        raise _bad(f"{where}" + ("/0/t_s" if where == "envelope" else ""), "must start at the fault instant t = 0")
    for i in range(1, len(pts)):
        if pts[i][0] < pts[i - 1][0]:
            raise _bad(f"{where}/{i}/t_s" if where == "envelope" else where, "is not monotone in time")
    if pts[-1][0] <= 0.0:
        raise _bad(where, "must end after the fault instant")
    if any(not 0.0 <= u <= 1.2 for _, u in pts):
        raise _bad(where, "voltages must lie in [0, 1.2] pu")
    return pts


def profile(inputs: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Sample times and per-unit voltage (level 2: the lowest of the three phase-to-phase voltages
    divided by u_n_kv); raises InvalidTaskError naming the field for out-of-order samples."""
    p = inputs["profile"]
    t = p.get("t_s")
    if not isinstance(t, list) or len(t) < 2:
        raise _bad("profile/t_s", "must list at least two sample times")
    tt = np.array([_finite(v, f"profile/t_s/{i}") for i, v in enumerate(t)])
    bad = np.nonzero(np.diff(tt) <= 0)[0]
    if bad.size:
        raise _bad(f"profile/t_s/{int(bad[0]) + 1}", "is sampled out of order (times must increase strictly)")
    if "u_pu" in p:
        series = [("profile/u_pu", p["u_pu"], 1.0)]
    else:
        un = inputs.get("u_n_kv")
        un = _finite(un, "u_n_kv")
        if un <= 0:
            raise _bad("u_n_kv", "must be positive")
        series = [(f"profile/{k}", p.get(k), un) for k in ("u_ab_kv", "u_bc_kv", "u_ca_kv")]
    arrays = []
    for name, vals, base in series:
        if not isinstance(vals, list) or len(vals) != len(tt):
            raise _bad(name, f"must have one value per sample time ({len(tt)})")
        a = np.array([_finite(v, f"{name}/{i}") for i, v in enumerate(vals)]) / base
        if np.any(a < 0):
            raise _bad(name, "voltages cannot be negative")
        arrays.append(a)
    return tt, np.min(np.vstack(arrays), axis=0)


def verdict(inputs: dict[str, Any]) -> frt.Verdict:
    pts = envelope(inputs)
    t, u = profile(inputs)
    trip = inputs.get("trip_time_s")
    trip = None if trip is None else _finite(trip, "trip_time_s")
    if trip is not None and trip < 0.0:
        raise _bad("trip_time_s", "is before the fault instant t = 0 (a unit that tripped before the fault is no ride-through case)")
    if not np.any((t >= 0) & (t <= pts[-1][0])):
        raise _bad("profile/t_s", "has no sample inside the envelope's time span")
    return frt.assess(pts, t, u, trip)


def solve(task: Task, backend: str) -> Reference:
    v = verdict(task.public_inputs)
    ans = {"compliant": v.compliant, "left_envelope": v.left_envelope, "event_time_s": v.event_time_s,
           "min_margin_pu": v.min_margin_pu}
    return Reference(answer=ans, evidence={"exit_time_s": v.exit_time_s, "samples_considered": int(v.considered.size)},
                     method="sample-wise margin to the piecewise-linear envelope")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer
    checks = ctx.checks()
    for name in ("compliant", "left_envelope"):
        if answer[name] != ref[name]:
            checks.violate(f"/{name}", "verdict matches the recomputation", ref[name], answer[name])
    checks.close("/event_time_s", ref["event_time_s"], answer["event_time_s"], "event instant")
    checks.close("/min_margin_pu", ref["min_margin_pu"], answer["min_margin_pu"], "minimum margin")
    return Assessment(violations=checks.violations, evidence={"checks": len(checks.records)})


# ---------------------------------------------------------------------------- draws


def _r(x: float, nd: int = 4) -> float:
    return float(round(x, nd))


def draw_parameters(rng: np.random.Generator) -> tuple[str, dict[str, float]]:
    """A table and values within the RfG ranges (the TSO's national choice)."""
    kind = str(rng.choice(list(RFG_TABLES)))
    # t_clear within 0.14–0.15 s, or (one draw in four) within the tables' alternative 0.14–0.25 s
    # that a TSO takes where system protection and secure operation so require
    t_clear = float(rng.choice([0.14, 0.15, 0.14, 0.15, 0.14, 0.15, 0.2, 0.25]))
    if kind == "ppm_type_b":
        u_ret = _r(float(rng.choice([0.05, 0.1, 0.15])), 2)
        u_clear = _r(float(rng.choice([u_ret, 0.15])), 2)
        par = {"u_ret_pu": u_ret, "u_clear_pu": u_clear, "u_rec1_pu": u_clear, "u_rec2_pu": 0.85, "t_clear_s": t_clear,
               "t_rec1_s": t_clear, "t_rec2_s": t_clear, "t_rec3_s": float(rng.choice([1.5, 2.0, 3.0]))}
    elif kind == "ppm_type_d":
        par = {"u_ret_pu": 0.0, "u_clear_pu": 0.0, "u_rec1_pu": 0.0, "u_rec2_pu": 0.85, "t_clear_s": t_clear,
               "t_rec1_s": t_clear, "t_rec2_s": t_clear, "t_rec3_s": float(rng.choice([1.5, 2.0, 3.0]))}
    else:
        t1 = float(rng.choice([t_clear, 0.3, 0.45]))
        t2 = float(rng.choice([max(t1, 0.45), 0.7]))
        par = {"u_ret_pu": 0.0, "u_clear_pu": 0.25, "u_rec1_pu": float(rng.choice([0.5, 0.6, 0.7])),
               "u_rec2_pu": float(rng.choice([0.85, 0.9])), "t_clear_s": t_clear, "t_rec1_s": t1, "t_rec2_s": t2,
               "t_rec3_s": float(rng.choice([t2 + 0.3, 1.0, 1.5]))}
    return kind, par


def draw_profile(rng: np.random.Generator, t_end: float) -> tuple[np.ndarray, np.ndarray]:
    """A recorded dip at 10 ms resolution: pre-fault level, the fault-period retained voltage, a
    recovery step at clearing and an exponential recovery (sometimes a delayed recovery dip),
    with ±0.3 % measurement ripple."""
    step = 0.01
    t = np.round(np.arange(-0.1, t_end + 0.5 + 1e-9, step), 4)
    u0 = rng.uniform(0.98, 1.04)
    uf = rng.uniform(0.02, 0.5)
    tf = rng.uniform(0.08, 0.24)
    ur = rng.uniform(0.45, 0.85)
    tau = rng.uniform(0.15, 1.2)
    uinf = rng.uniform(0.9, 1.0)
    u = np.where(t < 0, u0, np.where(t < tf, uf, uinf - (uinf - ur) * np.exp(-(t - tf) / tau)))
    if rng.uniform() < 0.3:  # fault-induced delayed voltage recovery
        u = np.where(t >= tf, u - rng.uniform(0.1, 0.3) * np.exp(-((t - tf - 0.4) / 0.25) ** 2), u)
    u = u + rng.uniform(-0.003, 0.003, size=t.size)
    return t, np.round(u, 4)


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the RfG table and its values, the dip (depth, duration, recovery) and the trip instant
    (none, early — while obliged —, or after the profile left the envelope)."""
    for _ in range(100):
        kind, par = draw_parameters(rng)
        pts = frt.rfg_envelope(par)
        t, u = draw_profile(rng, pts[-1][0])
        v0 = frt.assess(pts, t, u, None)
        choice = rng.uniform()
        if choice < 0.3:
            trip = None
        elif choice < 0.65 or v0.exit_time_s is None:
            trip = _r(float(rng.uniform(0.05, pts[-1][0] * 0.9)), 3)
        else:
            trip = _r(v0.exit_time_s + float(rng.uniform(0.02, 0.3)), 3)
        code = {"document": RFG_TABLES[kind]["document"], "clause": RFG_TABLES[kind]["clause"],
                "allowed_ranges": RFG_TABLES[kind]["ranges"], "parameters": par}
        out: dict[str, Any] = {"grid_code": code, "trip_time_s": trip}
        if level == 1:
            out["envelope"] = [{"t_s": a, "u_pu": b} for a, b in pts]
            out["profile"] = {"t_s": t.tolist(), "u_pu": u.tolist()}
        else:
            un = float(rng.choice([110.0, 220.0, 380.0]))
            skew = [rng.uniform(1.0, 1.08, size=t.size) for _ in range(2)]
            out["u_n_kv"] = un
            out["profile"] = {"t_s": t.tolist(), "u_ab_kv": np.round(u * un * skew[0], 2).tolist(),
                              "u_bc_kv": np.round(u * un, 2).tolist(), "u_ca_kv": np.round(u * un * skew[1], 2).tolist()}
            # the lowest phase-to-phase voltage is the recorded profile (rounded to 10 V)
        try:
            verdict(out)
        except InvalidTaskError:
            continue
        return Generated(public_inputs=out)
    raise InvalidTaskError(f"{FAMILY_ID}: no posable draw in 100 tries")


def accept(task: Task, reference: Reference) -> str | None:
    v = verdict(task.public_inputs)
    if np.any(np.abs(v.margins) < 0.003):
        return "a sample lies within 0.003 pu of the envelope: the verdict would hang on rounding"
    if abs(reference.answer["min_margin_pu"]) < 0.02:
        return "minimum margin too close to zero"
    trip = task.public_inputs.get("trip_time_s")
    if trip is not None and v.exit_time_s is not None and abs(trip - v.exit_time_s) < 0.02:
        return "trip within 20 ms of the exit from the envelope"
    return None


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: every sample up to the envelope's end counts, the unit's trip ignored
    for the margin (the measured voltage after the trip still compared), and level-2 profiles read
    from the first phase-to-phase voltage only."""
    inputs = dict(task.public_inputs)
    if "u_pu" not in inputs["profile"]:
        p = inputs["profile"]
        inputs = inputs | {"profile": {"t_s": p["t_s"], "u_pu": [x / inputs["u_n_kv"] for x in p["u_ab_kv"]]}}
    v = verdict(inputs | {"trip_time_s": None})
    trip = task.public_inputs.get("trip_time_s")
    tripped_early = trip is not None and (v.exit_time_s is None or trip < v.exit_time_s)
    return {"compliant": not tripped_early, "left_envelope": v.left_envelope,
            "event_time_s": float(trip) if tripped_early else v.event_time_s, "min_margin_pu": v.min_margin_pu}


# ---------------------------------------------------------------------------- words

_CONV_EN = (
    "Conventions: t = 0 is the fault instant; the envelope is piecewise linear through its points in order, a repeated "
    "time is a vertical step whose upper value applies from that instant on, and the obligation ends at its last point "
    "t_last. Level-2 cases give only the RfG parameter table: the points are (0, U_ret), (t_clear, U_ret), (t_clear, "
    "U_clear), (t_rec1, U_rec1), (t_rec2, U_rec1), (t_rec3, U_rec2), and the profile is the lowest of the three "
    "phase-to-phase voltages divided by u_n_kv; t_clear is the TSO's value in parameters, within the Regulation's "
    "0.14–0.15 s or, where system protection and secure operation so require, its alternative 0.14–0.25 s "
    "(allowed_ranges t_clear_s_if_system_protection_requires). Samples considered: 0 ≤ t_k ≤ t_last and, when the unit tripped, "
    "t_k ≤ trip_time_s. Margin m_k = u_k − u_env(t_k) at the samples only (no interpolation between samples). The profile "
    "left the envelope at the first considered sample with m_k < 0; until then (and until t_last) the unit is obliged to "
    "stay connected. Non-compliant when it tripped at 0 ≤ trip_time_s ≤ t_last strictly before that exit (a trip at the "
    "exit sample is allowed); trip_time_s null means it did not trip. Event time: the trip instant when non-compliant; "
    "else the exit instant when the profile left; else t_last. min_margin_pu = min m_k."
)
_CONV_RU = (
    "Условия: t = 0 — момент КЗ; огибающая — ломаная через свои точки по порядку, повтор момента времени — вертикальный "
    "скачок, верхнее значение которого действует с этого момента, обязанность заканчивается в последней точке t_last. В "
    "задачах уровня 2 дана только таблица параметров RfG: точки (0, U_ret), (t_clear, U_ret), (t_clear, U_clear), (t_rec1, "
    "U_rec1), (t_rec2, U_rec1), (t_rec3, U_rec2), а профиль — наименьшее из трёх междуфазных напряжений, делённое на "
    "u_n_kv; t_clear — значение оператора системы передачи в parameters, в пределах 0,14–0,15 с по Регламенту или, "
    "если этого требуют релейная защита и надёжная работа системы, альтернативного диапазона 0,14–0,25 с (allowed_ranges "
    "t_clear_s_if_system_protection_requires). Учитываемые отсчёты: 0 ≤ t_k ≤ t_last и, если установка отключилась, t_k ≤ trip_time_s. Запас "
    "m_k = u_k − u_env(t_k) — только в отсчётах (без интерполяции между ними). Профиль вышел за огибающую в первом "
    "учитываемом отсчёте с m_k < 0; до этого момента (и до t_last) установка обязана оставаться в работе. Несоответствие — "
    "если она отключилась при 0 ≤ trip_time_s ≤ t_last строго раньше выхода (отключение в отсчёте выхода допустимо); "
    "trip_time_s = null — не отключалась. Момент события: момент отключения при несоответствии; иначе момент выхода, если "
    "профиль выходил; иначе t_last. min_margin_pu = min m_k."
)

PRESENTATION = {
    "en": {
        "title": "Fault-ride-through compliance of a recorded voltage dip (ENTSO-E RfG)",
        "statement": (
            "A generating unit's PCC voltage was recorded during a grid fault, and the unit's protection tripped it at "
            "trip_time_s (or not at all). The grid code's fault-ride-through requirement (grid_code: document, clause, "
            "the parameter table and the ranges the Regulation allows) is a voltage-against-time envelope: while the "
            "voltage stays on or above it the unit must stay connected. Decide whether the unit complied, whether the "
            "profile fell below the envelope, the event instant and the minimum margin. Method: evaluate the envelope at "
            "each sample time, form the margins, find the first sample below the envelope, compare with the trip instant. "
            + _CONV_EN),
        "answer_notes": ("compliant and left_envelope must match exactly; event_time_s within 0.1 ms (or 0.1 %), "
                         "min_margin_pu within 1e-4 pu (or 0.1 %)."),
    },
    "ru": {
        "title": "Соответствие требованиям к прохождению КЗ по записанному провалу напряжения (ENTSO-E RfG)",
        "statement": (
            "Во время КЗ в сети записано напряжение в точке присоединения генерирующей установки; её защита отключила "
            "установку в момент trip_time_s (или не отключала). Требование сетевого кодекса к прохождению КЗ (grid_code: "
            "документ, пункт, таблица параметров и допускаемые Регламентом диапазоны) — огибающая «напряжение–время»: "
            "пока напряжение не ниже неё, установка обязана оставаться в работе. Определите, соответствовала ли установка "
            "требованию, выходил ли профиль ниже огибающей, момент события и минимальный запас. Метод: вычислите огибающую "
            "в моменты отсчётов, запасы, первый отсчёт ниже огибающей и сравните с моментом отключения. " + _CONV_RU),
        "answer_notes": ("compliant и left_envelope должны совпасть точно; event_time_s — с точностью 0,1 мс (или 0,1 %), "
                         "min_margin_pu — 1e-4 о.е. (или 0,1 %)."),
        "hard_constraints": (
            "compliant и left_envelope совпадают с пересчётом",
            "event_time_s и min_margin_pu совпадают с пересчётом в пределах max(0,1 %, абсолютный порог поля)",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Assess the recorded dip in public_inputs against the fault-ride-through requirement of Commission Regulation (EU) "
        "2016/631 (RfG) named in grid_code (Art. 14(3)(a) / 16(3)(a), the voltage-against-time profile of its Table with "
        "the TSO's values in parameters): compliance, whether the profile left the envelope, the event instant and the "
        "minimum margin. " + _CONV_EN)},
    "ru": {"statement": (
        "Оцените записанный провал из public_inputs по требованию к прохождению КЗ Регламента (ЕС) 2016/631 (RfG), "
        "указанному в grid_code (ст. 14(3)(a) / 16(3)(a), профиль «напряжение–время» по его таблице со значениями оператора "
        "системы передачи в parameters): соответствие, выход профиля за огибающую, момент события и минимальный запас. "
        + _CONV_RU)},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged against psab's sample-wise evaluation of the piecewise-linear envelope under the statement's "
               "conventions; the two verdicts exactly, the event instant within 0.1 ms and the margin within 1e-4 pu (or 0.1 %)."),
        "ru": ("Проверяется расчётом psab: огибающая-ломаная в моментах отсчётов при условиях задачи; оба заключения — точно, "
               "момент события — 0,1 мс, запас — 1e-4 о.е. (или 0,1 %)."),
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="stability_grid_code",
        scoring_kind="comply",
        confidence="medium",
        version="1",
        provenance=(
            {"title": "Commission Regulation (EU) 2016/631 establishing a network code on requirements for grid connection of generators (RfG)",
             "locator": "Art. 14(3)(a) with Figure 3, Tables 3.1 and 3.2 (types B, C); Art. 16(3)(a) with Tables 7.1 and 7.2 (type D)",
             "note": "The voltage-against-time profile and its parameter ranges carried as data with the clause; values within the ranges are the case's (the TSO's) choice.",
             "confidence": "medium"},
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "compliant and left_envelope match the recomputation",
            "event_time_s and min_margin_pu match the recomputation within max(0.1 %, the field's absolute floor)",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {"/event_time_s": 1e-4, "/min_margin_pu": 1e-4, "default": 1e-4}},
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
