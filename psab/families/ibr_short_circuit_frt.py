"""ibr_short_circuit_frt — fault current of a current-limited inverter with reactive priority (exact).

An inverter-based plant rides through a grid fault: the grid seen from the PCC is a Thevenin source
whose voltage drops to the retained value e_fault_pu, behind the grid impedance. The plant's
controller injects additional reactive current K·(ΔU − deadband) beyond the deadband, with reactive
priority under its current limit, and keeps what active current the limit leaves. The agent returns
the fault-period reactive and active current, the total current and the PCC voltage magnitude —
the fixed point of the controller and the network equation (:mod:`psab.surrogates.ibr`).

Level 1 gives everything per unit of the plant rating; level 2 gives the data as an engineer
receives it: a plant of n identical units (MVA each), pre-fault P in MW and Q in Mvar, the grid as
its short-circuit power S″k (MVA) and X/R at the PCC.

Sources: VDE-AR-N 4120:2018 §10.2.3.2 (reactive-current characteristic during faults, gain k);
IEEE Std 2800-2022 §7.2.2.3 (reactive current injection during ride-through); CIGRE TB 881 (2022)
on short-circuit modelling of inverter-based resources (current-limited, controlled sources).
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
from psab.surrogates import ibr

FAMILY_ID = "ibr_short_circuit_frt"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 0.
MAX_INPUT_ITEMS = 100

FIELDS = (
    ("i_q_pu", "reactive current injected during the fault, per unit of the rated current (positive = capacitive, supporting the voltage)", 1e-4),
    ("i_p_pu", "active current injected during the fault, per unit of the rated current", 1e-4),
    ("i_total_pu", "magnitude of the total fault-period current, per unit of the rated current", 1e-4),
    ("u_pcc_pu", "PCC voltage magnitude during the fault, per unit", 1e-4),
)
FIELDS_RU = {
    "i_q_pu": "реактивный ток в режиме КЗ, о.е. номинального тока (положительный — ёмкостный, поддерживающий напряжение)",
    "i_p_pu": "активный ток в режиме КЗ, о.е. номинального тока",
    "i_total_pu": "модуль полного тока в режиме КЗ, о.е. номинального тока",
    "u_pcc_pu": "модуль напряжения в точке присоединения в режиме КЗ, о.е.",
}


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    return s.submission(
        {name: s.number(what, minimum=0, ru=FIELDS_RU[name]) for name, what, _ in FIELDS},
        "fault-period currents and PCC voltage of the inverter-based plant",
        ru="токи и напряжение в точке присоединения инверторной установки в режиме КЗ",
    )


_NUM = {"type": "number"}
INPUTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["u_pre_pu", "e_fault_pu", "control", "grid"],
    "properties": {
        "u_pre_pu": _NUM, "e_fault_pu": _NUM,
        "control": {"type": "object", "required": ["i_max_pu", "k_gain", "deadband_pu"]},
        "grid": {"type": "object"},
        "plant": {"type": "object"},
        "pcc_kv": _NUM,
    },
}


def _bad(field: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"{FAMILY_ID}: public_inputs/{field} {why}")


def _num(v: Any, field: str, lo: float | None = None, hi: float | None = None, lo_open: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise _bad(field, f"must be a finite number, got {v!r}")
    if lo is not None and (v < lo or (lo_open and v == lo)):
        raise _bad(field, f"must be {'>' if lo_open else '≥'} {lo:g}, got {v!r}")
    if hi is not None and v > hi:
        raise _bad(field, f"must be ≤ {hi:g}, got {v!r}")
    return float(v)


def per_unit(inputs: dict[str, Any]) -> tuple[ibr.Inverter, float, float, float]:
    """(inverter, |E|, R, X) per unit of the plant rating; a case that cannot be posed raises
    InvalidTaskError naming the field. Level 2: S_plant = n·S_unit, Z = U_n²/S″k (no voltage factor)
    → |z| = S_plant/S″k, r = |z|/√(1 + (X/R)²), x = r·X/R."""
    c = inputs["control"]
    i_max = _num(c["i_max_pu"], "control/i_max_pu", 0.0, 2.0, lo_open=True)
    k = _num(c["k_gain"], "control/k_gain", 0.0, 10.0)
    db = _num(c["deadband_pu"], "control/deadband_pu", 0.0, 0.5)
    u_pre = _num(inputs["u_pre_pu"], "u_pre_pu", 0.8, 1.2)
    e = _num(inputs["e_fault_pu"], "e_fault_pu", 0.0, 1.2)
    g = inputs["grid"]
    if "plant" in inputs:
        pl = inputs["plant"]
        n = pl.get("n_units")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise _bad("plant/n_units", f"must be a positive integer, got {n!r}")
        sp = n * _num(pl.get("unit_mva"), "plant/unit_mva", 0.0, lo_open=True)
        p = _num(pl.get("p_pre_mw"), "plant/p_pre_mw") / sp
        q = _num(pl.get("q_pre_mvar"), "plant/q_pre_mvar") / sp
        sk = _num(g.get("skss_mva"), "grid/skss_mva", 0.0, lo_open=True)
        xr = _num(g.get("x_over_r"), "grid/x_over_r", 0.0, lo_open=True)
        z = sp / sk
        r = z / math.sqrt(1.0 + xr * xr)
        x = r * xr
        pfield = "plant/p_pre_mw"
    else:
        p = _num(c.get("p_pre_pu"), "control/p_pre_pu")
        q = _num(c.get("q_pre_pu"), "control/q_pre_pu")
        r = _num(g.get("r_pu"), "grid/r_pu", 0.0)
        x = _num(g.get("x_pu"), "grid/x_pu", 0.0)
        if r == 0.0 and x == 0.0:
            raise _bad("grid/x_pu", "the grid impedance is zero: the PCC voltage is the source's, nothing to solve")
        pfield = "control/p_pre_pu"
    if p < 0:
        raise _bad(pfield, "must be ≥ 0 (the plant generates)")
    if math.hypot(p, q) / u_pre > i_max + 1e-12:
        raise _bad(pfield, "the pre-fault current √(P² + Q²)/U exceeds the current limit")
    return ibr.Inverter(i_max_pu=i_max, k_gain=k, deadband_pu=db, u_pre_pu=u_pre, p_pre_pu=p, q_pre_pu=q), e, r, x


def operating(inputs: dict[str, Any]) -> ibr.Operating:
    inv, e, r, x = per_unit(inputs)
    try:
        return ibr.operating_point(inv, e, r, x)
    except ValueError as exc:
        raise _bad("grid", f"admits no unique fault-period operating point: {exc}") from None


def solve(task: Task, backend: str) -> Reference:
    op = operating(task.public_inputs)
    ans = {"i_q_pu": op.i_q_pu, "i_p_pu": op.i_p_pu, "i_total_pu": op.i_total_pu, "u_pcc_pu": op.u_pcc_pu}
    return Reference(answer=ans, evidence={"theta_deg": math.degrees(op.theta_rad), "bisections": op.iterations},
                     method="fixed point of the reactive-priority current limiter and V = E + Z·I (bisection on |V| to 1e-12)")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer
    checks = ctx.checks()
    for name, what, _ in FIELDS:
        checks.close(f"/{name}", ref[name], answer[name], what)
    return Assessment(violations=checks.violations, evidence={"checks": len(checks.records)})


# ---------------------------------------------------------------------------- draws


def _r(x: float, nd: int = 4) -> float:
    return float(round(x, nd))


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the control (limit 1.0–1.3 pu, K 2–6, deadband 0–0.1), the pre-fault point, the grid
    strength (SCR 2–15, X/R 3–15) and the retained voltage 0.1–0.7 pu. Level 2: a plant of n units
    in MW/Mvar and the grid as S″k and X/R."""
    for _ in range(100):
        u_pre = _r(rng.uniform(0.97, 1.05), 3)
        i_max = _r(float(rng.choice([1.0, 1.1, 1.2, 1.3])), 2)
        control = {"i_max_pu": i_max, "k_gain": _r(float(rng.choice([2.0, 2.5, 3.0, 4.0, 6.0])), 1),
                   "deadband_pu": _r(float(rng.choice([0.0, 0.05, 0.1])), 2)}
        p = rng.uniform(0.4, 1.0) * u_pre
        q = rng.uniform(-0.2, 0.3) * p
        scr = rng.uniform(2.0, 15.0)
        xr = rng.uniform(3.0, 15.0)
        e = _r(rng.uniform(0.1, 0.7), 3)
        out: dict[str, Any] = {"u_pre_pu": u_pre, "e_fault_pu": e, "control": control}
        if level == 1:
            z = 1.0 / scr
            r = z / math.sqrt(1 + xr * xr)
            control |= {"p_pre_pu": _r(p, 3), "q_pre_pu": _r(q, 3)}
            out["grid"] = {"r_pu": _r(r, 5), "x_pu": _r(r * xr, 5)}
        else:
            n = int(rng.integers(8, 60))
            unit = float(rng.choice([2.5, 3.15, 4.2, 5.0]))
            sp = n * unit
            out["pcc_kv"] = float(rng.choice([110.0, 132.0, 220.0]))
            out["plant"] = {"n_units": n, "unit_mva": unit, "p_pre_mw": _r(p * sp, 2), "q_pre_mvar": _r(q * sp, 2)}
            out["grid"] = {"skss_mva": _r(scr * sp, 1), "x_over_r": _r(xr, 2)}
        try:
            operating(out)
        except InvalidTaskError:
            continue
        return Generated(public_inputs=out)
    raise InvalidTaskError(f"{FAMILY_ID}: no posable draw in 100 tries")


def accept(task: Task, reference: Reference) -> str | None:
    a = reference.answer
    inv, *_ = per_unit(task.public_inputs)
    if inv.u_pre_pu - a["u_pcc_pu"] <= inv.deadband_pu + 0.02:
        return "the dip stays within the deadband: no reactive support to compute"
    if a["i_p_pu"] < 1e-6 and a["i_q_pu"] < 1e-6:
        return "no current at all"
    return None


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading of the characteristic: ΔI_q = K·ΔU without subtracting the deadband
    (the deadband only as an enabling threshold)."""
    inv, e, r, x = per_unit(task.public_inputs)
    shifted = ibr.Inverter(**{**inv.__dict__, "deadband_pu": 0.0})
    try:
        op = ibr.operating_point(shifted, e, r, x) if inv.deadband_pu > 0 else ibr.operating_point(
            ibr.Inverter(**{**inv.__dict__, "i_max_pu": 10.0}), e, r, x)
    except ValueError:
        op = ibr.operating_point(inv, e, r, x)
    return {"i_q_pu": op.i_q_pu, "i_p_pu": op.i_p_pu, "i_total_pu": op.i_total_pu, "u_pcc_pu": op.u_pcc_pu}


# ---------------------------------------------------------------------------- words

_CONV_EN = (
    "Conventions: steady fault-period phasors (positive sequence, balanced fault, no transients); the Thevenin "
    "source E = e_fault_pu∠0 is the angle reference; the plant injects I = (i_p − j·i_q)·e^{jθ} in the frame of its "
    "PCC voltage V = u∠θ (so S = u·(i_p + j·i_q), i_q > 0 capacitive); V = E + Z·I; all per unit of the plant "
    "rating. Pre-fault currents i_p,pre = P/u_pre, i_q,pre = Q/u_pre; ΔU = u_pre − u. Reactive current "
    "i_q,cmd = i_q,pre + K·(ΔU − deadband) when ΔU > deadband, else i_q,pre (the characteristic starts at the "
    "deadband's edge); i_q = min(i_q,cmd, i_max); i_p = min(i_p,pre, √(i_max² − i_q²)) (reactive priority). "
    "Level-2 data: S_plant = n_units·unit_mva, |Z| = S_plant/S″k on the plant base (no voltage factor), "
    "R = |Z|/√(1 + (X/R)²)."
)
_CONV_RU = (
    "Условия: установившиеся векторы режима КЗ (прямая последовательность, симметричное КЗ, без переходных "
    "процессов); источник Тевенена E = e_fault_pu∠0 — начало отсчёта углов; установка выдаёт ток "
    "I = (i_p − j·i_q)·e^{jθ} в осях напряжения точки присоединения V = u∠θ (S = u·(i_p + j·i_q), i_q > 0 — "
    "ёмкостный); V = E + Z·I; всё в о.е. номинальной мощности установки. Доаварийные токи i_p,до = P/u_pre, "
    "i_q,до = Q/u_pre; ΔU = u_pre − u. Реактивный ток i_q,зад = i_q,до + K·(ΔU − зона нечувствительности) при "
    "ΔU > зоны, иначе i_q,до (характеристика начинается от границы зоны); i_q = min(i_q,зад, i_max); "
    "i_p = min(i_p,до, √(i_max² − i_q²)) (приоритет реактивного тока). Данные уровня 2: S_уст = n_units·unit_mva, "
    "|Z| = S_уст/S″k на базисе установки (без коэффициента напряжения), R = |Z|/√(1 + (X/R)²)."
)

PRESENTATION = {
    "en": {
        "title": "Fault current of an inverter-based plant with reactive-current priority",
        "statement": (
            "An inverter-based plant is connected at its PCC to a grid represented by a Thevenin source behind an "
            "impedance. During a fault elsewhere the source voltage drops to e_fault_pu. The plant's fault-ride-through "
            "control injects reactive current by the gain k_gain beyond the deadband, limited to i_max_pu with "
            "reactive priority, and keeps the active current the limit leaves. Find the fault-period reactive current, "
            "active current, total current and PCC voltage magnitude: the fixed point of the control law and the "
            "network equation V = E + Z·I, solved to 1e-9 (for example by bisection on u, since for a given u the "
            "currents are known and |u − Z·(i_p − j·i_q)| = |E| must hold). " + _CONV_EN),
        "answer_notes": "All four values per unit of the plant rating; each must match within 0.1 % or 1e-4 pu.",
    },
    "ru": {
        "title": "Ток КЗ инверторной установки с приоритетом реактивного тока",
        "statement": (
            "Инверторная установка присоединена к сети, представленной источником Тевенена за сопротивлением. При КЗ "
            "в сети напряжение источника снижается до e_fault_pu. Система управления установки при прохождении КЗ "
            "выдаёт реактивный ток с коэффициентом k_gain за пределами зоны нечувствительности, ограничивая ток "
            "величиной i_max_pu с приоритетом реактивного тока, и сохраняет тот активный ток, который оставляет "
            "ограничение. Найдите реактивный, активный и полный ток и модуль напряжения в точке присоединения в режиме "
            "КЗ — неподвижную точку закона управления и уравнения сети V = E + Z·I с точностью 1e-9 (например, "
            "делением пополам по u: при заданном u токи известны и должно выполняться |u − Z·(i_p − j·i_q)| = |E|). "
            + _CONV_RU),
        "answer_notes": "Все четыре величины — в о.е. номинальной мощности установки; точность 0,1 % или 1e-4 о.е.",
        "hard_constraints": ("каждая величина совпадает с неподвижной точкой в пределах max(0,1 %, 1e-4 о.е.)",),
    },
}

EXPERT = {
    "en": {"statement": (
        "Determine the steady fault-period reactive, active and total current and the PCC voltage of the inverter-based "
        "plant in public_inputs during the grid fault (retained Thevenin voltage e_fault_pu), with the reactive-current "
        "characteristic of VDE-AR-N 4120:2018 §10.2.3.2 (gain k_gain) and reactive-current priority under the current "
        "limit (IEEE Std 2800-2022 §7.2.2.3), as a fixed point with the grid equation to 1e-9. The case's choices: "
        "balanced steady fault-period phasors of the positive sequence, the Thevenin source the angle reference, currents "
        "in the frame of the PCC voltage with capacitive reactive current positive, everything per unit of the plant "
        "rating; the additional reactive current counted from the deadband's edge on top of the pre-fault reactive "
        "current (pre-fault currents from P and Q at the pre-fault voltage); the active current the limit leaves, capped "
        "at its pre-fault value; at level 2 the plant rating n_units·unit_mva and the grid impedance from S″k on that "
        "rating with the given X/R and no voltage factor.")},
    "ru": {"statement": (
        "Определите установившиеся реактивный, активный и полный токи и напряжение в точке присоединения инверторной "
        "установки из public_inputs при КЗ в сети (остаточное напряжение источника e_fault_pu) с характеристикой "
        "реактивного тока по VDE-AR-N 4120:2018 п. 10.2.3.2 (коэффициент k_gain) и приоритетом реактивного тока при "
        "ограничении тока (IEEE Std 2800-2022 п. 7.2.2.3) как неподвижную точку с уравнением сети с точностью 1e-9. "
        "Принято в задаче: симметричный установившийся режим КЗ, векторы прямой последовательности, источник Тевенина — "
        "опорный вектор, токи — в осях напряжения точки присоединения, ёмкостный реактивный ток положителен, всё — в о.е. "
        "номинальной мощности установки; дополнительный реактивный ток отсчитывается от границы зоны нечувствительности "
        "и добавляется к доаварийному (доаварийные токи — по P и Q при доаварийном напряжении); активный ток — оставшийся "
        "в пределах ограничения, не больше доаварийного; на уровне 2 номинальная мощность установки n_units·unit_mva, "
        "сопротивление сети — по S″k на этой мощности с заданным X/R, без коэффициента напряжения.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged against psab's fixed-point solver: bisection on the PCC voltage magnitude to 1e-12 of the "
               "statement's control law and network equation; each value within 0.1 % or 1e-4 pu."),
        "ru": ("Проверяется решателем psab: деление пополам по модулю напряжения в точке присоединения до 1e-12 для закона "
               "управления и уравнения сети из условия; каждая величина в пределах 0,1 % или 1e-4 о.е."),
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="stability_grid_code",
        scoring_kind="exact",
        confidence="medium",
        version="1",
        provenance=(
            {"title": "VDE-AR-N 4120:2018, Technical requirements for the connection and operation of customer installations to the high voltage network",
             "locator": "§10.2.3.2 (dynamic network support: additional reactive current ΔI_B = k·ΔU, deadband)",
             "note": "The reactive-current characteristic; the case fixes the deadband convention (the characteristic starts at its edge).",
             "confidence": "medium"},
            {"title": "IEEE Std 2800-2022, Interconnection and interoperability of inverter-based resources with transmission systems",
             "locator": "§7.2.2.3 (current injection during ride-through; reactive priority)",
             "note": "Reactive-current priority under the inverter's current limit.",
             "confidence": "medium"},
            {"title": "CIGRE TB 881, Electromagnetic transient and short-circuit modelling of inverter-based resources (2022)",
             "locator": "§3 (IBR as a voltage-dependent, current-limited controlled source in short-circuit calculations; iterative solution)",
             "note": "The fixed point of the controlled-source injection and the network equation.",
             "confidence": "medium"},
        ),
        submission_schema=submission_schema,
        hard_constraints=("each value matches the fixed point within max(0.1 %, 1e-4 pu)",),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {f"/{n}": fl for n, _, fl in FIELDS} | {"default": 1e-4}},
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
