"""earth_fault_calculation — line-to-earth short circuit by symmetrical components (exact).

Given a compact network with the zero-sequence data of its elements (feeder X_0/X_1 and
R_0/X_0, transformer vector group, zero-sequence short-circuit voltage, star-point earthing
impedance and zero-sequence magnetizing impedance, line zero-sequence impedances), a fault bus
and a fault resistance, the agent returns the line-to-earth fault current I″k1, the three
sequence currents of the faulted phase (real and imaginary parts, phase a's prefault voltage
the angle reference) and the magnitudes of the two healthy-phase voltages at the fault.

The sequence networks are connected in series at the fault (Anderson, ch. 3): with
``E = c·U_n/√3`` (IEC 60909-0, c_max, K_T on the positive- and zero-sequence transformer
impedances) ``I_0 = I_1 = I_2 = E/(Z_1 + Z_2 + Z_0 + 3R_f)``, ``Z_2 = Z_1``, I″k1 = 3·|I_0|, and
``V_b, V_c`` from ``V_0 = −Z_0 I_0``, ``V_1 = E − Z_1 I_1``, ``V_2 = −Z_2 I_2``. The zero-sequence
network is shaped by the transformer winding: a delta winding blocks the HV side and earths
the midpoint (Dyn: ``Z_(0)T + 3Z_N`` from the LV terminal), Yyn sees only the magnetizing path
``Z_(0)T + Z_m0``, YNyn couples the HV network through its T (see
:func:`psab.surrogates.symmetrical.transformer_zero_sequence`).

Backends: surrogate (:func:`psab.surrogates.iec60909.line_to_earth_fault`); pandapower computes
I″k1 with ``calc_sc(fault="1ph")`` on the same network, while the sequence currents and the
healthy-phase voltages come from the surrogate kernel under both backends (pandapower reports
no sequence quantities). Cases are earthed everywhere: pandapower models an open winding as a
1e20 p.u. branch, which leaves an unearthed island nearly singular and spoils its zero-sequence
matrix, and IEC 60909 does not cover isolated neutrals anyway.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task, digest
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import iec60909 as iec

FAMILY_ID = "earth_fault_calculation"

#: Answer fields: (name, what, absolute floor).
FIELDS_RU = {
    "ik1_ka": "ток однофазного КЗ на землю I″k1 = |I_a| = 3·|I_0| (кА)",
    "i0_real_ka": "ток нулевой последовательности фазы a, действительная часть (кА)",
    "i0_imag_ka": "ток нулевой последовательности фазы a, мнимая часть (кА)",
    "i1_real_ka": "ток прямой последовательности фазы a, действительная часть (кА)",
    "i1_imag_ka": "ток прямой последовательности фазы a, мнимая часть (кА)",
    "i2_real_ka": "ток обратной последовательности фазы a, действительная часть (кА)",
    "i2_imag_ka": "ток обратной последовательности фазы a, мнимая часть (кА)",
    "vb_pu": "модуль напряжения неповреждённой фазы b в месте КЗ (о.е. от U_n/√3)",
    "vc_pu": "модуль напряжения неповреждённой фазы c в месте КЗ (о.е. от U_n/√3)",
}
FIELDS = (
    ("ik1_ka", "line-to-earth short-circuit current I″k1 = |I_a| = 3·|I_0| (kA)", 1e-3),
    ("i0_real_ka", "zero-sequence current of phase a, real part (kA)", 1e-3),
    ("i0_imag_ka", "zero-sequence current of phase a, imaginary part (kA)", 1e-3),
    ("i1_real_ka", "positive-sequence current of phase a, real part (kA)", 1e-3),
    ("i1_imag_ka", "positive-sequence current of phase a, imaginary part (kA)", 1e-3),
    ("i2_real_ka", "negative-sequence current of phase a, real part (kA)", 1e-3),
    ("i2_imag_ka", "negative-sequence current of phase a, imaginary part (kA)", 1e-3),
    ("vb_pu", "magnitude of the healthy phase b voltage at the fault (p.u. of U_n/√3)", 1e-3),
    ("vc_pu", "magnitude of the healthy phase c voltage at the fault (p.u. of U_n/√3)", 1e-3),
)
POSITIVE = ("ik1_ka", "vb_pu", "vc_pu")
VECTOR_GROUPS = ("Dyn", "Yyn", "YNyn")


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    return s.submission(
        {name: s.number(what, exclusive_minimum=0, ru=FIELDS_RU[name]) if name in POSITIVE
         else s.number(what, ru=FIELDS_RU[name]) for name, what, _ in FIELDS},
        "line-to-earth fault current, sequence currents and healthy-phase voltages",
        ru="ток однофазного КЗ на землю, симметричные составляющие токов и напряжения неповреждённых фаз",
    )


INPUTS_SCHEMA = iec.network_input_schema(
    {
        "fault_bus": {"type": "string", "description": "bus with the line-to-earth short circuit (phase a)"},
        "fault_r_ohm": {"type": "number", "minimum": 0, "description": "fault resistance R_f between phase a and earth (ohm)"},
    },
    ["feeders", "transformers", "fault_bus", "fault_r_ohm"],
    elements=("buses", "feeders", "transformers", "lines"),
)
INPUTS_SCHEMA["properties"]["frequency_hz"] = {"const": 50, "description": "system frequency (Hz)"}
INPUTS_SCHEMA["properties"]["transformers"]["items"]["properties"]["vector_group"] = {
    "enum": list(VECTOR_GROUPS), "description": "vector group without the clock number"}
INPUTS_SCHEMA["properties"]["transformers"]["items"]["required"] += ["vector_group", "uk0_pct", "ukr0_pct"]
INPUTS_SCHEMA["properties"]["feeders"]["items"]["required"] += ["x0_x1", "r0_x0"]
INPUTS_SCHEMA["properties"]["lines"]["items"]["required"] += ["r0_ohm_per_km", "x0_ohm_per_km"]

PRESENTATION = {
    "en": {
        "title": "Line-to-earth fault by symmetrical components",
        "statement": (
            "A line-to-earth short circuit of phase a through the fault resistance fault_r_ohm occurs at "
            "fault_bus of the network in public_inputs. Form the positive-, negative- and zero-sequence "
            "impedances Z_1, Z_2 = Z_1, Z_0 at the fault (ohm, referred to the fault's voltage level) and connect "
            "the sequence networks in series: I_0 = I_1 = I_2 = E / (Z_1 + Z_2 + Z_0 + 3·R_f), with the "
            "prefault voltage E = c_max·U_n/√3 of IEC 60909-0 (c_max = 1.10 for medium and high voltage; for "
            "low voltage 1.05 or 1.10 by lv_tolerance_pct 6 or 10) as the angle reference. Positive sequence as "
            "in IEC 60909-0 for maximum currents: feeder Z_Q = c·U_nQ²/S″kQmax with rx_max; transformers from "
            "u_kr, u_Rr, corrected by K_T = 0.95·c_max/(1 + 0.6·x_T), referred through the rated ratio; lines "
            "at 20 °C; capacitances and loads neglected. Zero sequence: feeder X_0 = x0_x1·X_Q, R_0 = r0_x0·X_0; "
            "transformer Z_(0)T from uk0_pct and ukr0_pct on the rated power at the LV rated voltage, also "
            "multiplied by K_T; the vector group decides the connection — Dyn: the delta blocks the HV side, "
            "the LV terminal sees Z_(0)T + 3·Z_N (Z_N = neutral_r_ohm + j·neutral_x_ohm; a transformer that gives "
            "neither field has its star point solidly earthed, Z_N = 0, and a missing one of the two is 0); Yyn: the LV terminal "
            "sees Z_(0)T + jX_m0 + 3·Z_N with X_m0 = mag0_ratio·|Z_(0)T| (before K_T), the HV side blocked; "
            "YNyn (solidly earthed): a T of hv_share0·Z_(0)T on the HV side, (1 − hv_share0)·Z_(0)T on the LV "
            "side and jX_m0 from the midpoint to earth, the HV network's zero sequence behind it; lines "
            "r0_ohm_per_km, x0_ohm_per_km; a line with parallel = n is n identical circuits in parallel (its positive- "
            "and zero-sequence impedances divided by n; parallel absent = 1). Report I″k1 = |I_a| = 3·|I_0| (kA), the real and imaginary parts of "
            "I_0, I_1, I_2 (kA, phase a, E real and positive) and the magnitudes of the healthy-phase voltages "
            "V_b, V_c at the fault in per unit of U_n/√3 (U_n the bus's nominal voltage, not c·U_n), from V_0 = −Z_0·I_0, V_1 = E − Z_1·I_1, "
            "V_2 = −Z_2·I_2, V_b = V_0 + a²·V_1 + a·V_2, V_c = V_0 + a·V_1 + a²·V_2, a = e^(j120°)."
        ),
        "answer_notes": (
            "Every value must match within 0.1 % or 1 A (1e-3 p.u. for voltages), whichever is larger. Under the "
            "pandapower backend I″k1 is recomputed by pandapower's calc_sc; the sequence currents and the "
            "healthy-phase voltages are recomputed by symmetrical components under both backends."
        ),
    },
    "ru": {
        "title": "Однофазное замыкание на землю методом симметричных составляющих",
        "statement": (
            "В узле fault_bus сети из public_inputs происходит однофазное короткое замыкание фазы a на землю "
            "через переходное сопротивление fault_r_ohm. Определите сопротивления прямой, обратной и нулевой "
            "последовательностей Z_1, Z_2 = Z_1, Z_0 в месте КЗ (Ом, приведённые к ступени напряжения места КЗ) и "
            "соедините схемы последовательностей последовательно: I_0 = I_1 = I_2 = E / (Z_1 + Z_2 + Z_0 + 3·R_f), "
            "где доаварийное напряжение E = c_max·U_n/√3 по МЭК 60909-0 (c_max = 1,10 для сетей среднего и "
            "высокого напряжения; для низкого напряжения 1,05 или 1,10 при lv_tolerance_pct 6 или 10) принято за "
            "опорный вектор. Прямая последовательность — как в МЭК 60909-0 для максимальных токов: питающая сеть "
            "Z_Q = c·U_nQ²/S″kQmax с rx_max; трансформаторы по u_kr, u_Rr с коэффициентом "
            "K_T = 0,95·c_max/(1 + 0,6·x_T), приведённые через номинальный коэффициент трансформации; линии при "
            "20 °C; ёмкости и нагрузки не учитываются. Нулевая последовательность: питающая сеть "
            "X_0 = x0_x1·X_Q, R_0 = r0_x0·X_0; трансформатор — Z_(0)T по uk0_pct и ukr0_pct на номинальную "
            "мощность при номинальном напряжении НН, также умноженное на K_T; схема соединения определяет "
            "включение — Dyn: треугольник отделяет сторону ВН, со стороны НН сопротивление Z_(0)T + 3·Z_N "
            "(Z_N = neutral_r_ohm + j·neutral_x_ohm; если трансформатор не задаёт ни одного из этих полей, "
            "нейтраль глухозаземлённая, Z_N = 0, а отсутствующее одно из двух равно 0); Yyn: со стороны НН Z_(0)T + jX_m0 + 3·Z_N, где "
            "X_m0 = mag0_ratio·|Z_(0)T| (до умножения на K_T), сторона ВН отделена; YNyn (глухое заземление): "
            "Т-схема из hv_share0·Z_(0)T со стороны ВН, (1 − hv_share0)·Z_(0)T со стороны НН и jX_m0 от средней "
            "точки на землю, за ней — нулевая последовательность сети ВН; линии — r0_ohm_per_km, x0_ohm_per_km; "
            "линия с parallel = n — это n одинаковых параллельных цепей (сопротивления прямой и нулевой "
            "последовательностей делятся на n; без parallel — 1). "
            "Укажите I″k1 = |I_a| = 3·|I_0| (кА), действительные и мнимые части I_0, I_1, I_2 (кА, фаза a, E "
            "вещественно и положительно) и модули напряжений неповреждённых фаз V_b, V_c в месте КЗ в о.е. от "
            "U_n/√3 (U_n — номинальное напряжение узла, а не c·U_n), где V_0 = −Z_0·I_0, V_1 = E − Z_1·I_1, V_2 = −Z_2·I_2, V_b = V_0 + a²·V_1 + a·V_2, "
            "V_c = V_0 + a·V_1 + a²·V_2, a = e^(j120°)."
        ),
        "answer_notes": (
            "Каждое значение должно совпасть с точностью 0,1 % или 1 А (1e-3 о.е. для напряжений) — что больше. "
            "При проверке средствами pandapower ток I″k1 пересчитывается функцией calc_sc, а симметричные "
            "составляющие токов и напряжения неповреждённых фаз — методом симметричных составляющих при любом "
            "способе проверки."
        ),
        "hard_constraints": (
            "каждое значение совпадает с пересчётом методом симметричных составляющих в пределах max(0,1 %, абсолютный порог поля)",
        ),
    },
}

# ---------------------------------------------------------------------------- physics


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """The shared IEC 60909 network check (:func:`psab.surrogates.iec60909.checked_network`)
    with the fault bus a bus of the network."""
    return iec.checked_network(inputs, [("/fault_bus", "fault bus", inputs["fault_bus"])])[1]


def network(inputs: dict[str, Any]) -> iec.Network:
    net, problems = iec.checked_network(inputs, [("/fault_bus", "fault bus", inputs["fault_bus"])])
    if problems or net is None:
        raise InvalidTaskError(f"{FAMILY_ID}: the network in public_inputs is not usable: {'; '.join(problems)}")
    return net


def surrogate_fault(inputs: dict[str, Any]) -> iec.EarthFault:
    try:
        return iec.line_to_earth_fault(network(inputs), inputs["fault_bus"], "max", float(inputs["fault_r_ohm"]))
    except ValueError as exc:
        raise InvalidTaskError(f"{FAMILY_ID}: {exc}") from None


def answer_of(fault: iec.EarthFault) -> dict[str, float]:
    i0, i1, i2 = fault.i_seq_ka
    _, vb, vc = fault.v_phase_pu
    return {"ik1_ka": fault.ikss1_ka, "i0_real_ka": i0.real, "i0_imag_ka": i0.imag, "i1_real_ka": i1.real,
            "i1_imag_ka": i1.imag, "i2_real_ka": i2.real, "i2_imag_ka": i2.imag, "vb_pu": vb, "vc_pu": vc}


def pandapower_ik1_ka(inputs: dict[str, Any]) -> float:
    """I″k1 by pandapower's ``calc_sc(fault="1ph", case="max", r_fault_ohm=...)``."""
    from psab.backends import pandapower_sc as ppsc

    net = network(inputs)
    prep = ppsc.prepared((FAMILY_ID, digest(inputs)), net)
    bus = inputs["fault_bus"]
    res = ppsc.calc(prep, [bus], fault="1ph", case="max", r_fault_ohm=float(inputs["fault_r_ohm"]),
                    lv_tolerance_pct=net.lv_tolerance_pct)
    return res[bus].ikss_ka


def solve(task: Task, backend: str) -> Reference:
    fault = surrogate_fault(task.public_inputs)
    answer = answer_of(fault)
    evidence = {"z1_ohm": [fault.z1_ohm.real, fault.z1_ohm.imag], "z0_ohm": [fault.z0_ohm.real, fault.z0_ohm.imag], "c": fault.c}
    if backend == "pandapower":
        answer["ik1_ka"] = pandapower_ik1_ka(task.public_inputs)
        return Reference(answer=answer, evidence=evidence,
                         method="I″k1 by pandapower calc_sc(fault='1ph'); sequence currents and voltages by symmetrical components")
    return Reference(answer=answer, evidence=evidence, method="symmetrical components, sequence networks in series (IEC 60909-0 §7.5)")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer
    checks = ctx.checks()
    for name, what, _ in FIELDS:
        checks.close(f"/{name}", ref[name], answer[name], what)
    return Assessment(violations=checks.violations,
                      evidence={"checks": len(checks.records), "checks_failed": len(checks.violations)})


# ---------------------------------------------------------------------------- held-out draws

#: MV cables (R, X, R0, X0 per km) and overhead lines.
MV_CABLES = ((0.206, 0.116, 1.05, 0.36), (0.122, 0.112, 0.78, 0.30), (0.1, 0.104, 0.70, 0.28))
MV_OVERHEAD = ((0.306, 0.357, 0.46, 1.25), (0.194, 0.315, 0.34, 1.18))
#: LV cables (NAYY-type four-core): R, X, R0, X0 per km.
LV_CABLES = ((0.206, 0.080, 0.82, 0.32), (0.125, 0.080, 0.50, 0.30), (0.100, 0.080, 0.40, 0.29))


def _r(x: float, nd: int = 4) -> float:
    return float(round(x, nd))


def _mv_case(rng: np.random.Generator) -> dict[str, Any]:
    mv = float(rng.choice([10.0, 20.0]))
    sn = float(rng.choice([16.0, 20.0, 25.0, 31.5, 40.0]))
    uk = _r(rng.uniform(10.0, 15.0), 2)
    ukr = _r(rng.uniform(0.3, 0.8), 3)
    group = str(rng.choice(VECTOR_GROUPS, p=[0.6, 0.2, 0.2]))
    t: dict[str, Any] = {"id": "T1", "hv_bus": "B1", "lv_bus": "B2", "sn_mva": sn, "vn_hv_kv": 110.0, "vn_lv_kv": mv,
                         "uk_pct": uk, "ukr_pct": ukr, "vector_group": group, "uk0_pct": _r(uk * rng.uniform(0.8, 1.0), 2),
                         "ukr0_pct": _r(ukr * rng.uniform(0.9, 1.2), 3)}
    if group == "Dyn":
        kind = rng.uniform()
        if kind < 0.5:
            t["neutral_r_ohm"] = _r(rng.uniform(3.0, 40.0) * mv / 20.0, 2)
        elif kind < 0.7:
            t["neutral_x_ohm"] = _r(rng.uniform(2.0, 20.0) * mv / 20.0, 2)
    else:
        t["mag0_ratio"] = _r(rng.uniform(3.0, 10.0), 2)
        if group == "YNyn":
            t["hv_share0"] = _r(rng.uniform(0.3, 0.7), 2)
        elif rng.uniform() < 0.4:
            t["neutral_r_ohm"] = _r(rng.uniform(1.0, 10.0), 2)
    s_max = _r(rng.uniform(1500.0, 10000.0), 0)
    lines = []
    buses = [{"id": "B1", "vn_kv": 110.0}, {"id": "B2", "vn_kv": mv}]
    fault = "B2"
    if rng.uniform() < 0.8:
        r, x, r0, x0 = (MV_CABLES if rng.uniform() < 0.6 else MV_OVERHEAD)[0 if rng.uniform() < 0.5 else 1]
        lines.append({"id": "L1", "from_bus": "B2", "to_bus": "B3", "length_km": _r(rng.uniform(1.0, 15.0), 2),
                      "r_ohm_per_km": r, "x_ohm_per_km": x, "r0_ohm_per_km": r0, "x0_ohm_per_km": x0})
        buses.append({"id": "B3", "vn_kv": mv})
        fault = "B3"
    return {"frequency_hz": 50, "buses": buses,
            "feeders": [{"id": "Q1", "bus": "B1", "skss_max_mva": s_max, "rx_max": _r(rng.uniform(0.05, 0.2), 3),
                         "x0_x1": _r(rng.uniform(1.0, 3.0), 2), "r0_x0": _r(rng.uniform(0.1, 0.4), 3)}],
            "transformers": [t], "lines": lines, "fault_bus": fault, "fault_r_ohm": _r(rng.uniform(0.0, 5.0), 2)}


def _lv_case(rng: np.random.Generator) -> dict[str, Any]:
    """An MV/LV distribution transformer (Dyn, LV star point solidly earthed: a TN system) and
    an LV cable; the fault at the cable end — the earth-loop current of LV protection checks."""
    sn, uk = ((0.25, 4.0), (0.4, 4.0), (0.63, 4.0), (0.63, 6.0), (1.0, 6.0))[int(rng.integers(5))]
    ukr = _r(rng.uniform(0.9, 1.6), 3)
    r, x, r0, x0 = LV_CABLES[int(rng.integers(len(LV_CABLES)))]
    return {"frequency_hz": 50, "lv_tolerance_pct": int(rng.choice([6, 10])),
            "buses": [{"id": "B1", "vn_kv": 20.0}, {"id": "B2", "vn_kv": 0.4}, {"id": "B3", "vn_kv": 0.4}],
            "feeders": [{"id": "Q1", "bus": "B1", "skss_max_mva": _r(rng.uniform(100.0, 500.0), 0),
                         "rx_max": _r(rng.uniform(0.1, 0.3), 3), "x0_x1": 1.0, "r0_x0": 0.2}],
            "transformers": [{"id": "T1", "hv_bus": "B1", "lv_bus": "B2", "sn_mva": sn, "vn_hv_kv": 20.0, "vn_lv_kv": 0.4,
                              "uk_pct": uk, "ukr_pct": ukr, "vector_group": "Dyn", "uk0_pct": uk,
                              "ukr0_pct": ukr}],
            "lines": [{"id": "L1", "from_bus": "B2", "to_bus": "B3", "length_km": _r(rng.uniform(0.02, 0.3), 3),
                       "r_ohm_per_km": r, "x_ohm_per_km": x, "r0_ohm_per_km": r0, "x0_ohm_per_km": x0}],
            "fault_bus": "B3", "fault_r_ohm": _r(rng.uniform(0.0, 0.05), 4)}


def _level2_case(rng: np.random.Generator) -> dict[str, Any]:
    """Level 2: the MV supply of level 1 with a second HV/MV transformer in parallel of another
    rating and earthing (Dyn with its own earthing resistor or solidly earthed, or Yyn with an
    unearthed star point: only its magnetizing path), and a mixed cable + overhead-line route
    with the fault at its far end — two zero-sequence paths in parallel and two line types."""
    out = _mv_case(rng)
    mv = out["buses"][1]["vn_kv"]
    sn = float(rng.choice([16.0, 20.0, 25.0, 31.5, 40.0]))
    uk = _r(rng.uniform(10.0, 15.0), 2)
    ukr = _r(rng.uniform(0.3, 0.8), 3)
    t2: dict[str, Any] = {"id": "T2", "hv_bus": "B1", "lv_bus": "B2", "sn_mva": sn, "vn_hv_kv": 110.0, "vn_lv_kv": mv,
                          "uk_pct": uk, "ukr_pct": ukr, "uk0_pct": _r(uk * rng.uniform(0.8, 1.0), 2),
                          "ukr0_pct": _r(ukr * rng.uniform(0.9, 1.2), 3)}
    if rng.uniform() < 0.6:
        t2["vector_group"] = "Dyn"
        if rng.uniform() < 0.6:
            t2["neutral_r_ohm"] = _r(rng.uniform(3.0, 40.0) * mv / 20.0, 2)
    else:
        t2["vector_group"] = "Yyn"
        t2["mag0_ratio"] = _r(rng.uniform(3.0, 10.0), 2)
    out["transformers"].append(t2)
    last = out["buses"][-1]["id"]
    r, x, r0, x0 = MV_OVERHEAD[int(rng.integers(len(MV_OVERHEAD)))]
    out["buses"].append({"id": "B4", "vn_kv": mv})
    out["lines"].append({"id": "L2", "from_bus": last, "to_bus": "B4", "length_km": _r(rng.uniform(2.0, 12.0), 2),
                         "r_ohm_per_km": r, "x_ohm_per_km": x, "r0_ohm_per_km": r0, "x0_ohm_per_km": x0})
    out["fault_bus"] = "B4"
    return out


def _level3_case(rng: np.random.Generator) -> dict[str, Any]:
    """Level 3: an LV earth fault at the end of a TN system seen through three voltage levels —
    110 kV feeder, HV/MV transformer (Dyn with its MV star point resistance-earthed), an MV cable,
    an MV/LV Dyn distribution transformer with its LV star point solidly earthed (no neutral
    fields), then a sub-main of two parallel LV cables and a final circuit of another type."""
    mv = float(rng.choice([10.0, 20.0]))
    sn = float(rng.choice([16.0, 25.0, 40.0]))
    uk = _r(rng.uniform(10.0, 15.0), 2)
    ukr = _r(rng.uniform(0.3, 0.8), 3)
    t1 = {"id": "T1", "hv_bus": "B1", "lv_bus": "B2", "sn_mva": sn, "vn_hv_kv": 110.0, "vn_lv_kv": mv,
          "uk_pct": uk, "ukr_pct": ukr, "vector_group": "Dyn", "uk0_pct": _r(uk * rng.uniform(0.8, 1.0), 2),
          "ukr0_pct": _r(ukr * rng.uniform(0.9, 1.2), 3), "neutral_r_ohm": _r(rng.uniform(3.0, 40.0) * mv / 20.0, 2)}
    st, ukt = ((0.4, 4.0), (0.63, 4.0), (0.63, 6.0), (0.8, 6.0), (1.0, 6.0))[int(rng.integers(5))]
    ukrt = _r(rng.uniform(0.9, 1.6), 3)
    t2 = {"id": "T2", "hv_bus": "B3", "lv_bus": "B4", "sn_mva": st, "vn_hv_kv": mv, "vn_lv_kv": 0.42,
          "uk_pct": ukt, "ukr_pct": ukrt, "vector_group": "Dyn", "uk0_pct": ukt, "ukr0_pct": ukrt}
    r, x, r0, x0 = MV_CABLES[int(rng.integers(len(MV_CABLES)))]
    lines = [{"id": "L1", "from_bus": "B2", "to_bus": "B3", "length_km": _r(rng.uniform(1.0, 10.0), 2),
              "r_ohm_per_km": r, "x_ohm_per_km": x, "r0_ohm_per_km": r0, "x0_ohm_per_km": x0}]
    k1, k2 = rng.choice(len(LV_CABLES), size=2, replace=False)
    for lid, a, b, k, length, par in (("L2", "B4", "B5", int(k1), rng.uniform(0.02, 0.15), 2),
                                      ("L3", "B5", "B6", int(k2), rng.uniform(0.02, 0.12), 1)):
        r, x, r0, x0 = LV_CABLES[k]
        lines.append({"id": lid, "from_bus": a, "to_bus": b, "length_km": _r(length, 3), "parallel": par,
                      "r_ohm_per_km": r, "x_ohm_per_km": x, "r0_ohm_per_km": r0, "x0_ohm_per_km": x0})
    return {"frequency_hz": 50, "lv_tolerance_pct": int(rng.choice([6, 10])),
            "buses": [{"id": "B1", "vn_kv": 110.0}, {"id": "B2", "vn_kv": mv}, {"id": "B3", "vn_kv": mv},
                      {"id": "B4", "vn_kv": 0.4}, {"id": "B5", "vn_kv": 0.4}, {"id": "B6", "vn_kv": 0.4}],
            "feeders": [{"id": "Q1", "bus": "B1", "skss_max_mva": _r(rng.uniform(1500.0, 10000.0), 0),
                         "rx_max": _r(rng.uniform(0.05, 0.2), 3), "x0_x1": _r(rng.uniform(1.0, 3.0), 2),
                         "r0_x0": _r(rng.uniform(0.1, 0.4), 3)}],
            "transformers": [t1, t2], "lines": lines, "fault_bus": "B6", "fault_r_ohm": _r(rng.uniform(0.0, 0.05), 4)}


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the supply and earthing: feeder S″kQ, R/X and zero-sequence ratios; the transformer
    rating, u_kr, u_Rr, u_(0)k, the vector group (Dyn / Yyn / YNyn) with resistance, reactance or
    solid earthing and the zero-sequence magnetizing impedance; the line type and length; the fault
    bus and resistance — or an MV/LV distribution transformer with an LV cable (TN system).
    Level 2: parallel transformers of different earthing and a mixed route (:func:`_level2_case`);
    level 3: an LV fault seen through three voltage levels with parallel cables (:func:`_level3_case`)."""
    if level == 2:
        return Generated(public_inputs=_level2_case(rng))
    if level == 3:
        return Generated(public_inputs=_level3_case(rng))
    return Generated(public_inputs=_lv_case(rng) if rng.uniform() < 0.25 else _mv_case(rng))


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: Z_1 + Z_2 + Z_0 + R_f and Z_(0)T + Z_N, i.e. the fault and earthing
    impedances taken once instead of three times in the zero-sequence loop."""
    inputs = dict(task.public_inputs)
    inputs["fault_r_ohm"] = float(inputs["fault_r_ohm"]) / 3.0
    inputs["transformers"] = [t | {k: float(t[k]) / 3.0 for k in ("neutral_r_ohm", "neutral_x_ohm") if k in t}
                              for t in inputs["transformers"]]
    return answer_of(surrogate_fault(inputs))


EXPERT = {
    "en": {"statement": (
        "For the line-to-earth short circuit of phase a through fault_r_ohm at fault_bus of the network in "
        "public_inputs, give I″k1 (IEC 60909-0:2016 §7.5, maximum current: c_max of Table 1 with the case's "
        "lv_tolerance_pct for LV, the impedance correction factor K_T on the positive- and zero-sequence "
        "transformer impedances, lines at 20 °C), the symmetrical components I_0, I_1, I_2 of phase a (real and "
        "imaginary parts, kA, the prefault voltage c·U_n/√3 real and positive) and the magnitudes of the "
        "healthy-phase voltages at the fault in per unit of U_n/√3 (Anderson, Analysis of Faulted Power "
        "Systems, ch. 3). The case's choices: Z_(2) = Z_(1); zero-sequence data as given (feeder x0_x1, r0_x0; "
        "transformer uk0_pct, ukr0_pct on the rated power at the LV rated voltage, the vector group, the "
        "star-point impedance neutral_r_ohm + j·neutral_x_ohm — solidly earthed where neither is given — the "
        "magnetizing reactance mag0_ratio·|Z_(0)T| before K_T and, for YNyn, the T split hv_share0); "
        "capacitances neglected.")},
    "ru": {"statement": (
        "Для однофазного КЗ на землю фазы a через сопротивление fault_r_ohm в узле fault_bus сети из "
        "public_inputs определите I″k1 (МЭК 60909-0:2016, п. 7.5, максимальный ток: c_max по таблице 1, для "
        "сетей НН — с допуском lv_tolerance_pct, корректирующий коэффициент K_T для сопротивлений "
        "трансформаторов прямой и нулевой последовательностей, линии при 20 °C), симметричные составляющие "
        "I_0, I_1, I_2 тока фазы a (действительные и мнимые части, кА, доаварийное напряжение c·U_n/√3 "
        "вещественно и положительно) и модули напряжений неповреждённых фаз в месте КЗ в о.е. от U_n/√3 "
        "(Андерсон, «Analysis of Faulted Power Systems», гл. 3). Принято в задаче: Z_(2) = Z_(1); данные нулевой "
        "последовательности — как заданы (питающая сеть x0_x1, r0_x0; трансформатор uk0_pct, ukr0_pct на "
        "номинальную мощность при номинальном напряжении НН, схема соединения обмоток, сопротивление в "
        "нейтрали neutral_r_ohm + j·neutral_x_ohm — при отсутствии обоих полей нейтраль глухозаземлённая, "
        "сопротивление намагничивания mag0_ratio·|Z_(0)T| до умножения на K_T, для YNyn — доля hv_share0 "
        "Т-схемы); ёмкости не учитываются.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged against psab's symmetrical-component kernel: sequence impedances at the fault from the "
               "positive- and zero-sequence bus impedance matrices, the sequence networks in series; every value "
               "within 0.1 % or its absolute floor."),
        "ru": ("Проверяется расчётом psab методом симметричных составляющих: сопротивления последовательностей в "
               "месте КЗ из матриц узловых сопротивлений прямой и нулевой последовательностей, схемы соединены "
               "последовательно; каждое значение — с точностью 0,1 % или абсолютного порога поля."),
    },
    "pandapower": {
        "en": ("I″k1 is judged against pandapower's calc_sc(fault='1ph', case='max', r_fault_ohm=fault_r_ohm) on the "
               "same network; the sequence currents and healthy-phase voltages against psab's symmetrical-component "
               "kernel (pandapower reports none). Both follow the statement's conventions, so one answer scores 1 "
               "under either backend; 0.1 % or the field's floor. Transformer zero sequence as pandapower 3.5 "
               "(the pinned range, pandapower>=3.5,<3.6) models it: the magnetizing impedance purely reactive, "
               "X_m0 = mag0_ratio·|Z_(0)T| (mag0_percent = 100·mag0_ratio, mag0_rx = 0), the T split by hv_share0 "
               "(si0_hv_partial); a Yyn transformer's HV side carries no zero-sequence current; other releases "
               "model Yyn/YNyn differently and are not used."),
        "ru": ("I″k1 проверяется расчётом pandapower calc_sc(fault='1ph', case='max', r_fault_ohm=fault_r_ohm) той же "
               "сети; симметричные составляющие токов и напряжения неповреждённых фаз — расчётом psab методом "
               "симметричных составляющих (pandapower их не выдаёт). Оба следуют условиям задачи, поэтому один "
               "ответ получает 1 при любом способе проверки; допуск 0,1 % или порог поля. Нулевая последовательность "
               "трансформаторов — как в pandapower 3.5 (закреплённый диапазон pandapower>=3.5,<3.6): сопротивление "
               "намагничивания чисто реактивное, X_m0 = mag0_ratio·|Z_(0)T| (mag0_percent = 100·mag0_ratio, "
               "mag0_rx = 0), Т-схема делится по hv_share0 (si0_hv_partial); у трансформатора Yyn ток нулевой "
               "последовательности на стороне ВН не протекает; другие версии моделируют Yyn/YNyn иначе и не "
               "используются."),
    },
}


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="short_circuit_protection",
        scoring_kind="exact",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "P. M. Anderson, Analysis of Faulted Power Systems, IEEE Press, 1995",
                "locator": "ch. 3, Analysis of simple shunt faults (single line-to-ground fault: sequence networks in series, fault impedance 3Z_f); ch. 2 (symmetrical components)",
                "note": "The sequence-network connection and the phase voltages at the fault, applied to sequence impedances built from the case's equipment data.",
                "confidence": "medium",
            },
            {
                "title": "IEC 60909-0:2016, Short-circuit currents in three-phase a.c. systems — Part 0",
                "locator": "§7.5 line-to-earth short circuit (I″k1 = √3·c·U_n/|2Z_(1) + Z_(0)|), §6.3 transformer zero-sequence impedances and K_T, Table 1 (c)",
                "note": "Fixes the prefault voltage c·U_n/√3, Z_(2) = Z_(1), K_T on Z_(0)T and the neglect of capacitances.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "every value matches the symmetrical-component recomputation within max(0.1 %, the field's absolute floor)",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {f"/{name}": floor for name, _, floor in FIELDS} | {"default": 1e-3}},
        presentation=PRESENTATION,
        backends=("surrogate", "pandapower"),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        inputs_schema=INPUTS_SCHEMA,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2, 3),
        naive_answer=naive_answer,
        validate_inputs=input_problems,
    )
)
