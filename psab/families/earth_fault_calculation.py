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

The network may also hold YNd transformers, three-winding transformers, generators, power
station units (with or without on-load tap changer, YNd with a neutral reactor or Yd) and
motors with their zero-sequence data — enough to pose the IEC TR 60909-4 network's published
I″k1 (golden/earth_fault_calculation/iec_tr_60909_4_earth_faults). A case may instead list
``faults`` — line-to-earth (LG), line-to-line (LL) and double-line-to-earth (LLG), each with its
fault resistance and optional fault reactance (Z_f = R_f + jX_f, as Saadat's worked examples
take it) — and then the answer holds, per fault, the phase and earth current
magnitudes, the sequence currents and the phase voltage magnitudes, by the IEC method
(c·U_n/√3) or, with ``prefault_voltage_pu``, the textbook method (stated pre-fault voltage, no
correction factors); a machine's ``x2_pu`` makes Z_2 ≠ Z_1 (:func:`psab.surrogates.iec60909.sequence_fault`).

Backends: surrogate (:func:`psab.surrogates.iec60909.line_to_earth_fault`); pandapower computes
I″k1 with ``calc_sc(fault="1ph")`` on the same network, while the sequence currents and the
healthy-phase voltages come from the surrogate kernel under both backends (pandapower reports
no sequence quantities). Cases are earthed everywhere: pandapower models an open winding as a
1e20 p.u. branch, which leaves an unearthed island nearly singular and spoils its zero-sequence
matrix, and IEC 60909 does not cover isolated neutrals anyway. In the ``faults`` form pandapower
computes the LG phase current (``fault="1ph"``) and the LL phase currents (``fault="2ph"`` with
half the case's resistance, pandapower's per-phase convention) by the IEC method with Z_2 = Z_1;
LLG faults, the textbook method and a machine's own X_(2) are judged by the kernel under both
backends, and so is a network where pandapower's fixed zero-sequence shunt at a generator bus
(1/(1e3 + 1e3j), no part of IEC 60909-0) would move a current (:func:`generator_shunt_matters`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task, digest
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import iec60909 as iec

FAMILY_ID = "earth_fault_calculation"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 6.
MAX_INPUT_ITEMS = 500

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
#: The vector groups the held-out draws of levels 1–3 use (their order fixes the draws).
VECTOR_GROUPS = ("Dyn", "Yyn", "YNyn")
#: The two-winding vector groups a case may give (YNd: an earthed HV star, the delta LV side open).
CASE_VECTOR_GROUPS = (*VECTOR_GROUPS, "YNd")
#: Fault types of the ``faults`` form and the kernel's names: line-to-earth of phase a,
#: line-to-line and double-line-to-earth of phases b and c.
FAULT_TYPES = {"LG": "1ph", "LL": "2ph", "LLG": "2ph_ground"}

#: Answer fields of the ``faults`` form: one value per fault, in the order of ``faults``.
FAULT_FIELDS = (
    ("ia_ka", "magnitude of the phase a current into the fault (kA)", 1e-3,
     "модуль тока фазы a в месте КЗ (кА)"),
    ("ib_ka", "magnitude of the phase b current into the fault (kA)", 1e-3,
     "модуль тока фазы b в месте КЗ (кА)"),
    ("ic_ka", "magnitude of the phase c current into the fault (kA)", 1e-3,
     "модуль тока фазы c в месте КЗ (кА)"),
    ("ie_ka", "magnitude of the current into earth 3·|I_0| (kA)", 1e-3,
     "модуль тока в землю 3·|I_0| (кА)"),
    ("i0_real_ka", "zero-sequence current of phase a, real part (kA)", 1e-3,
     "ток нулевой последовательности фазы a, действительная часть (кА)"),
    ("i0_imag_ka", "zero-sequence current of phase a, imaginary part (kA)", 1e-3,
     "ток нулевой последовательности фазы a, мнимая часть (кА)"),
    ("i1_real_ka", "positive-sequence current of phase a, real part (kA)", 1e-3,
     "ток прямой последовательности фазы a, действительная часть (кА)"),
    ("i1_imag_ka", "positive-sequence current of phase a, imaginary part (kA)", 1e-3,
     "ток прямой последовательности фазы a, мнимая часть (кА)"),
    ("i2_real_ka", "negative-sequence current of phase a, real part (kA)", 1e-3,
     "ток обратной последовательности фазы a, действительная часть (кА)"),
    ("i2_imag_ka", "negative-sequence current of phase a, imaginary part (kA)", 1e-3,
     "ток обратной последовательности фазы a, мнимая часть (кА)"),
    ("va_pu", "magnitude of the phase a voltage at the fault (p.u. of U_n/√3)", 1e-3,
     "модуль напряжения фазы a в месте КЗ (о.е. от U_n/√3)"),
    ("vb_pu", "magnitude of the phase b voltage at the fault (p.u. of U_n/√3)", 1e-3,
     "модуль напряжения фазы b в месте КЗ (о.е. от U_n/√3)"),
    ("vc_pu", "magnitude of the phase c voltage at the fault (p.u. of U_n/√3)", 1e-3,
     "модуль напряжения фазы c в месте КЗ (о.е. от U_n/√3)"),
)
#: Fields that are magnitudes (never negative).
MAGNITUDES = ("ia_ka", "ib_ka", "ic_ka", "ie_ka", "va_pu", "vb_pu", "vc_pu")


def is_fault_list(inputs: dict[str, Any]) -> bool:
    """Whether a case poses the ``faults`` form (several faults of any type) rather than the
    single line-to-earth fault ``fault_bus``/``fault_r_ohm``."""
    return "faults" in inputs


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    if is_fault_list(inputs):
        order = ", ".join(f"{f['fault_type']}@{f['bus']}" for f in inputs["faults"])
        n = len(inputs["faults"])
        return s.submission(
            {name: s.array(s.number(what, minimum=0, ru=ru) if name in MAGNITUDES else s.number(what, ru=ru),
                           f"{what}; one value per fault, in the order of faults ({order})", length=n,
                           ru=f"{ru}; по одному значению на КЗ, в порядке faults ({order})")
             for name, what, _, ru in FAULT_FIELDS},
            "phase, earth and sequence currents and phase voltages at each fault",
            ru="токи фаз, ток в землю, симметричные составляющие токов и напряжения фаз в месте каждого КЗ",
        )
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
        "faults": {
            "type": "array", "minItems": 1, "maxItems": 40,
            "description": "the faults to compute, each on its own (instead of fault_bus and fault_r_ohm)",
            "items": {"type": "object", "additionalProperties": False, "required": ["bus", "fault_type"], "properties": {
                "bus": {"type": "string", "description": "faulted bus"},
                "fault_type": {"enum": list(FAULT_TYPES),
                               "description": "LG: phase a to earth; LL: phases b and c; LLG: phases b and c to earth"},
                "r_fault_ohm": {"type": "number", "minimum": 0, "maximum": 1e4,
                                "description": "fault resistance (ohm): LG between phase a and earth, LL between phases b and c, "
                                               "LLG between the joined phases b, c and earth; absent = 0"},
                "x_fault_ohm": {"type": "number", "minimum": 0, "maximum": 1e4,
                                "description": "fault reactance X_f (ohm), in series with r_fault_ohm where it lies: the fault "
                                               "impedance Z_f = r_fault_ohm + j·x_fault_ohm takes R_f's place in every formula; "
                                               "absent = 0"},
            }},
        },
        "prefault_voltage_pu": {"type": "number", "exclusiveMinimum": 0, "maximum": 2,
                                "description": "stated pre-fault voltage V_f (p.u. of U_n/√3) for the textbook method: E = V_f·U_n/√3, "
                                               "no impedance correction factors; absent: the IEC 60909 method, E = c_max·U_n/√3"},
    },
    ["feeders"],
    elements=("buses", "feeders", "transformers", "transformers_3w", "lines", "generators", "power_station_units", "motors"),
    zero_sequence=True,
)
INPUTS_SCHEMA["oneOf"] = [{"required": ["fault_bus", "fault_r_ohm"]}, {"required": ["faults"]}]
INPUTS_SCHEMA["properties"]["frequency_hz"] = {"const": 50, "description": "system frequency (Hz)"}
INPUTS_SCHEMA["properties"]["transformers"]["items"]["properties"]["vector_group"] = {
    "enum": list(CASE_VECTOR_GROUPS), "description": "vector group without the clock number"}
INPUTS_SCHEMA["properties"]["transformers"]["items"]["required"] += ["vector_group", "uk0_pct", "ukr0_pct"]
INPUTS_SCHEMA["properties"]["feeders"]["items"]["required"] += ["x0_x1", "r0_x0"]
INPUTS_SCHEMA["properties"]["lines"]["items"]["required"] += ["r0_ohm_per_km", "x0_ohm_per_km"]
INPUTS_SCHEMA["properties"]["transformers_3w"]["items"]["required"] += [
    "vector_group", *(f"uk{r}0_{p}_pct" for p in ("hv_mv", "mv_lv", "hv_lv") for r in ("", "r"))]
INPUTS_SCHEMA["properties"]["power_station_units"]["items"]["required"] += ["vector_group", "uk0_pct", "ukr0_pct"]

PRESENTATION = {
    "en": {
        "title": "Line-to-earth and other unbalanced faults by symmetrical components",
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
            " Further equipment, where the case lists it: YNd transformers (the HV terminal sees Z_(0)T·K_T + "
            "3·Z_N referred to the HV side, the delta side open); three-winding transformers (transformers_3w) "
            "with their zero-sequence pair values uk0_*/ukr0_* on the smaller rating of each pair, each pair "
            "multiplied by the K_T of its positive-sequence pair (c_max of the lowest voltage) before the star "
            "conversion, referred to the HV rated voltage; in the zero-sequence star an earthed star winding "
            "(YN/yn) joins its terminal to the star point, a delta winding (d) earths the star point through its "
            "own leg, an unearthed star (Y/y) is open; generators (K_G, §6.6.1), power station units (K_S with "
            "on-load tap changer, K_SO without, §6.7, no K_T) and asynchronous motors (§6.8) in the positive and "
            "negative sequence, none of them with a zero-sequence path — except a power station unit whose unit "
            "transformer is YNd: its HV bus is earthed through K_S·Z_(0)THV + 3·Z_N (K_SO without tap changer; "
            "Z_(0)THV from uk0_pct, ukr0_pct on S_rT at U_rTHV; Z_N = neutral_r_ohm + j·neutral_x_ohm); a unit "
            "given as Yd (HV star unearthed) has no zero-sequence path, whatever the YNd units elsewhere; a generator that gives x0_pu has its star point solidly earthed, zero-sequence impedance "
            "K_G·(R_G + jX_(0)). Z_2 = Z_1 unless a generator or unit gives x2_pu: then its X_(2) replaces X″d in the negative "
            "sequence (the correction factor still formed with x″d). A case may instead list faults (then no "
            "fault_bus, fault_r_ohm): compute each fault on its own — LG: phase a to earth through r_fault_ohm, "
            "I_0 = I_1 = I_2 = E/(Z_1 + Z_2 + Z_0 + 3·R_f); LL: phases b and c through r_fault_ohm between them, "
            "I_1 = −I_2 = E/(Z_1 + Z_2 + R_f), I_0 = 0; LLG: phases b and c joined and to earth through "
            "r_fault_ohm (Z_f in the common path from the joined phases to earth, not in each phase), I_1 = E/(Z_1 + Z_2·(Z_0 + 3R_f)/(Z_2 + Z_0 + 3R_f)), I_2 = −I_1·(Z_0 + 3R_f)/(Z_2 + Z_0"
            " + 3R_f), I_0 = −I_1·Z_2/(Z_2 + Z_0 + 3R_f) (r_fault_ohm absent = 0; a fault that gives x_fault_ohm has "
            "the fault impedance Z_f = r_fault_ohm + j·x_fault_ohm in R_f's place) — and report per fault, as "
            "lists in the order of faults: the magnitudes of the phase currents I_a, I_b, I_c and of the earth "
            "current 3·I_0 (kA), the real and imaginary parts of I_0, I_1, I_2 (kA) and the magnitudes of V_a, "
            "V_b, V_c at the fault (p.u. of U_n/√3). With prefault_voltage_pu = V_f (the textbook method) E = "
            "V_f·U_n/√3 and no correction factor at all (K_T = K_G = K_S = 1, feeder Z_Q = U_nQ²/S″kQ); without "
            "it E = c_max·U_n/√3 as above."
        ),
        "answer_notes": (
            "Every value must match within 0.1 % or 1 A (1e-3 p.u. for voltages), whichever is larger. Under the "
            "pandapower backend I″k1 is recomputed by pandapower's calc_sc; the sequence currents and the "
            "healthy-phase voltages are recomputed by symmetrical components under both backends. With faults, "
            "every list has one value per fault in the order of faults; under the pandapower backend the phase "
            "currents of LG and LL faults by the IEC method with Z_2 = Z_1 come from calc_sc, everything else "
            "(LLG faults, the textbook method, a machine's own X_(2)) from symmetrical components."
        ),
    },
    "ru": {
        "title": "Однофазные и другие несимметричные КЗ методом симметричных составляющих",
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
            " Прочее оборудование, если оно задано: трансформаторы YNd (со стороны ВН — Z_(0)T·K_T + 3·Z_N, "
            "приведённое к стороне ВН, сторона треугольника отделена); трёхобмоточные трансформаторы "
            "(transformers_3w) с сопротивлениями нулевой последовательности пар обмоток uk0_*/ukr0_* на меньшую "
            "из мощностей пары, каждая пара умножается на K_T своей пары прямой последовательности (c_max "
            "наименьшего напряжения) до преобразования в звезду, приведение к номинальному напряжению ВН; в "
            "звезде нулевой последовательности заземлённая звезда (YN/yn) соединяет свой вывод с нулевой точкой "
            "звезды, треугольник (d) заземляет нулевую точку через свой луч, незаземлённая звезда (Y/y) "
            "разомкнута; генераторы (K_G, п. 6.6.1), блоки генератор–трансформатор (K_S при РПН, K_SO без РПН, п."
            " 6.7, без K_T) и асинхронные двигатели (п. 6.8) — в схемах прямой и обратной последовательностей, "
            "без пути для токов нулевой последовательности, кроме блока с трансформатором YNd: его узел ВН "
            "заземлён через K_S·Z_(0)THV + 3·Z_N (K_SO без РПН; Z_(0)THV по uk0_pct, ukr0_pct на S_rT при U_rTHV;"
            " Z_N = neutral_r_ohm + j·neutral_x_ohm); блок, заданный как Yd (звезда ВН без заземления), пути для токов нулевой последовательности не имеет; генератор, задающий x0_pu, имеет глухозаземлённую"
            " нейтраль и сопротивление нулевой последовательности K_G·(R_G + jX_(0)). Z_2 = Z_1, если генератор или блок не задаёт "
            "x2_pu; иначе в схеме обратной последовательности его X_(2) заменяет X″d (коэффициент коррекции — по "
            "x″d). Вместо fault_bus и fault_r_ohm задача может задать список faults: рассчитайте каждое КЗ "
            "отдельно — LG: фаза a на землю через r_fault_ohm, I_0 = I_1 = I_2 = E/(Z_1 + Z_2 + Z_0 + 3·R_f); LL:"
            " фазы b и c через r_fault_ohm между ними, I_1 = −I_2 = E/(Z_1 + Z_2 + R_f), I_0 = 0; LLG: фазы b и c"
            " соединены и замкнуты на землю через r_fault_ohm (Z_f — в общем пути от соединённых фаз к земле, а не в каждой "
            "фазе), I_1 = E/(Z_1 + Z_2·(Z_0 + 3R_f)/(Z_2 + Z_0 + "
            "3R_f)), I_2 = −I_1·(Z_0 + 3R_f)/(Z_2 + Z_0 + 3R_f), I_0 = −I_1·Z_2/(Z_2 + Z_0 + 3R_f) (без "
            "r_fault_ohm — 0; если КЗ задаёт x_fault_ohm, вместо R_f — сопротивление Z_f = r_fault_ohm + j·x_fault_ohm) — и укажите для каждого КЗ списками в порядке faults: модули токов фаз I_a, I_b, "
            "I_c и тока в землю 3·I_0 (кА), действительные и мнимые части I_0, I_1, I_2 (кА) и модули V_a, V_b, "
            "V_c в месте КЗ (о.е. от U_n/√3). При prefault_voltage_pu = V_f (метод учебников) E = V_f·U_n/√3 и "
            "никаких коэффициентов коррекции (K_T = K_G = K_S = 1, питающая сеть Z_Q = U_nQ²/S″kQ); без него E = "
            "c_max·U_n/√3, как выше."
        ),
        "answer_notes": (
            "Каждое значение должно совпасть с точностью 0,1 % или 1 А (1e-3 о.е. для напряжений) — что больше. "
            "При проверке средствами pandapower ток I″k1 пересчитывается функцией calc_sc, а симметричные "
            "составляющие токов и напряжения неповреждённых фаз — методом симметричных составляющих при любом "
            "способе проверки. При списке faults каждый список содержит по одному значению на КЗ в порядке faults; "
            "при проверке средствами pandapower токи фаз при КЗ LG и LL по методу МЭК с Z_2 = Z_1 рассчитывает calc_sc, "
            "всё остальное (КЗ LLG, метод учебников, собственное X_(2) машины) — метод симметричных составляющих."
        ),
        "hard_constraints": (
            "каждое значение совпадает с пересчётом методом симметричных составляющих в пределах max(0,1 %, абсолютный порог поля)",
        ),
    },
}

# ---------------------------------------------------------------------------- physics


def _references(inputs: dict[str, Any]) -> list[tuple[str, str, Any]]:
    if is_fault_list(inputs):
        return [(f"/faults/{i}/bus", "fault bus", f["bus"]) for i, f in enumerate(inputs["faults"])]
    return [("/fault_bus", "fault bus", inputs["fault_bus"])]


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """The shared IEC 60909 network check (:func:`psab.surrogates.iec60909.checked_network`)
    with every fault bus a bus of the network; the two forms not mixed."""
    problems = iec.checked_network(inputs, _references(inputs))[1]
    if is_fault_list(inputs):
        problems += [f"/{k}: not used with faults (each fault gives its own bus and r_fault_ohm)"
                     for k in ("fault_bus", "fault_r_ohm") if k in inputs]
    elif "prefault_voltage_pu" in inputs:
        problems.append("/prefault_voltage_pu: the textbook method is posed with faults, not with fault_bus")
    return problems


def network(inputs: dict[str, Any]) -> iec.Network:
    net, problems = iec.checked_network(inputs, _references(inputs))
    if problems or net is None:
        raise InvalidTaskError(f"{FAMILY_ID}: the network in public_inputs is not usable: {'; '.join(problems)}")
    return net


def surrogate_fault(inputs: dict[str, Any]) -> iec.EarthFault:
    try:
        return iec.line_to_earth_fault(network(inputs), inputs["fault_bus"], "max", float(inputs["fault_r_ohm"]))
    except ValueError as exc:
        raise InvalidTaskError(f"{FAMILY_ID}: {exc}") from None


def surrogate_faults(inputs: dict[str, Any], llg_zf_per_phase: bool = False) -> list[iec.EarthFault]:
    """Every fault of the ``faults`` form by :func:`psab.surrogates.iec60909.sequence_fault`.
    ``llg_zf_per_phase`` is the other reading of the case's convention (Z_f of an LLG fault in
    each faulted phase, not in the common path to earth), for :func:`other_readings` only."""
    net = network(inputs)
    vf = inputs.get("prefault_voltage_pu")
    out = []
    for i, f in enumerate(inputs["faults"]):
        try:
            out.append(iec.sequence_fault(net, f["bus"], FAULT_TYPES[f["fault_type"]], "max", float(f.get("r_fault_ohm", 0.0)),
                                          prefault_voltage_pu=None if vf is None else float(vf),
                                          x_fault_ohm=float(f.get("x_fault_ohm", 0.0)), zf_per_phase=llg_zf_per_phase))
        except ValueError as exc:
            raise InvalidTaskError(f"{FAMILY_ID}: /faults/{i}: {exc}") from None
    return out


def answer_of(fault: iec.EarthFault) -> dict[str, float]:
    i0, i1, i2 = fault.i_seq_ka
    _, vb, vc = fault.v_phase_pu
    return {"ik1_ka": fault.ikss1_ka, "i0_real_ka": i0.real, "i0_imag_ka": i0.imag, "i1_real_ka": i1.real,
            "i1_imag_ka": i1.imag, "i2_real_ka": i2.real, "i2_imag_ka": i2.imag, "vb_pu": vb, "vc_pu": vc}


def answers_of(faults: list[iec.EarthFault]) -> dict[str, list[float]]:
    """The ``faults`` form's answer: one value per fault in every field."""
    out: dict[str, list[float]] = {name: [] for name, *_ in FAULT_FIELDS}
    for f in faults:
        ia, ib, ic = f.fault.i_phase
        i0, i1, i2 = f.i_seq_ka
        va, vb, vc = f.v_phase_pu
        row = {"ia_ka": abs(ia), "ib_ka": abs(ib), "ic_ka": abs(ic), "ie_ka": abs(f.fault.earth_current),
               "i0_real_ka": i0.real, "i0_imag_ka": i0.imag, "i1_real_ka": i1.real, "i1_imag_ka": i1.imag,
               "i2_real_ka": i2.real, "i2_imag_ka": i2.imag, "va_pu": va, "vb_pu": vb, "vc_pu": vc}
        for name in out:
            out[name].append(float(row[name]))
    return out


def pandapower_ik1_ka(inputs: dict[str, Any]) -> float:
    """I″k1 by pandapower's ``calc_sc(fault="1ph", case="max", r_fault_ohm=...)``."""
    from psab.backends import pandapower_sc as ppsc

    net = network(inputs)
    prep = ppsc.prepared((FAMILY_ID, digest(inputs)), net)
    bus = inputs["fault_bus"]
    res = ppsc.calc(prep, [bus], fault="1ph", case="max", r_fault_ohm=float(inputs["fault_r_ohm"]),
                    lv_tolerance_pct=net.lv_tolerance_pct)
    return res[bus].ikss_ka


def pandapower_judged(inputs: dict[str, Any]) -> bool:
    """Whether pandapower's calc_sc can compute the phase currents (either form): the IEC
    method (c·U_n/√3, corrected impedances) with Z_2 = Z_1 — no stated pre-fault voltage, no
    machine with its own X_(2), no earthed generator star point (``x0_pu``) and no generator
    whose bus pandapower's fixed zero-sequence shunt would earth noticeably
    (:func:`generator_shunt_matters`)."""
    if "prefault_voltage_pu" in inputs:
        return False
    if any("x0_pu" in g for g in inputs.get("generators", ())):
        return False  # pandapower's generators have no zero-sequence path
    if any("x2_pu" in m for key in ("generators", "power_station_units") for m in inputs.get(key, ())):
        return False
    return not generator_shunt_matters(inputs)


#: pandapower 3.5 (pd2ppc_zero._add_gen_sc_impedance_zero) puts a zero-sequence shunt of
#: y0 = 1/(1e3 + 1e3j) (its ppc GS + j·BS: MW + j·Mvar at 1 p.u.) at every generator bus, an earth path of
#: U_n²·|1e3 + 1e3j| ohm that neither IEC 60909-0 nor the statement has (issue 33).
PP_GEN_SHUNT_OHM_PER_KV2 = abs(1e3 + 1e3j)
#: Share of that shunt's impedance below which the bus's own zero-sequence impedance leaves
#: calc_sc's I″k1 within a tenth of the 0.1 % tolerance.
PP_GEN_SHUNT_NEGLIGIBLE = 1e-4


def generator_shunt_matters(inputs: dict[str, Any]) -> bool:
    """Whether pandapower's fixed generator zero-sequence shunt would move a fault current of the
    case beyond a tenth of the tolerance: some generator's bus has a zero-sequence driving-point
    impedance |Z_(0)| (the kernel's, at the bus's level) above PP_GEN_SHUNT_NEGLIGIBLE of the
    shunt's U_n²·|1e3 + 1e3j| Ω — a low-voltage generator bus behind a resistance-earthed Dyn
    transformer (0.4 kV, 5 Ω: +4.8 % in calc_sc) — or no zero-sequence path at all, which the
    shunt would create. A fault elsewhere sees the shunt through the network: its relative change of
    Z_(0) stays about that of the generator bus itself (|Z_(0),FG|² ≲ |Z_(0),FF|·|Z_(0),GG|)."""
    gens = inputs.get("generators", ())
    if not gens:
        return False
    net = network(inputs)
    vn = {b["id"]: float(b["vn_kv"]) for b in inputs["buses"]}
    for g in gens:
        try:
            z0 = abs(iec.line_to_earth_fault(net, g["bus"], "max", 0.0).z0_ohm)
        except (ValueError, ZeroDivisionError):
            return True
        if not np.isfinite(z0) or z0 > PP_GEN_SHUNT_NEGLIGIBLE * PP_GEN_SHUNT_OHM_PER_KV2 * vn[g["bus"]] ** 2:
            return True
    return False


def pandapower_fault_currents(inputs: dict[str, Any]) -> dict[int, dict[str, float]]:
    """Per fault index, the phase currents pandapower computes: ``ia_ka`` of an LG fault by
    ``calc_sc(fault="1ph", r_fault_ohm=R_f)``, ``ib_ka = ic_ka`` of an LL fault by
    ``calc_sc(fault="2ph", r_fault_ohm=R_f/2)`` (pandapower puts its fault resistance in each of
    the two faulted phases; the case's R_f lies between them); a fault reactance goes to
    calc_sc's ``x_fault_ohm`` the same way (X_f, X_f/2 for LL: calc_sc adds r + jx to every
    sequence impedance alike). LLG faults: none (pandapower 3.5 has no double-line-to-earth fault)."""
    from psab.backends import pandapower_sc as ppsc

    net = network(inputs)
    prep = ppsc.prepared((FAMILY_ID, digest(inputs)), net)
    # one calc_sc per (fault type, impedance): the faults that share them are computed together
    groups: dict[tuple[str, float, float], list[int]] = {}
    for i, f in enumerate(inputs["faults"]):
        if f["fault_type"] in ("LG", "LL"):
            key = (f["fault_type"], float(f.get("r_fault_ohm", 0.0)), float(f.get("x_fault_ohm", 0.0)))
            groups.setdefault(key, []).append(i)
    out: dict[int, dict[str, float]] = {}
    for (kind, r, x), members in groups.items():
        buses = list(dict.fromkeys(inputs["faults"][i]["bus"] for i in members))
        if kind == "LG":
            res = ppsc.calc(prep, buses, fault="1ph", case="max", r_fault_ohm=r, x_fault_ohm=x,
                            lv_tolerance_pct=net.lv_tolerance_pct)
            out.update({i: {"ia_ka": res[inputs["faults"][i]["bus"]].ikss_ka} for i in members})
        else:
            res = ppsc.calc(prep, buses, fault="2ph", case="max", r_fault_ohm=r / 2.0, x_fault_ohm=x / 2.0,
                            lv_tolerance_pct=net.lv_tolerance_pct)
            out.update({i: {"ib_ka": res[inputs["faults"][i]["bus"]].ikss_ka, "ic_ka": res[inputs["faults"][i]["bus"]].ikss_ka}
                        for i in members})
    return dict(sorted(out.items()))


def solve(task: Task, backend: str) -> Reference:
    inputs = task.public_inputs
    if is_fault_list(inputs):
        faults = surrogate_faults(inputs)
        answers = answers_of(faults)
        evidence_f = {"z1_ohm": [[f.z1_ohm.real, f.z1_ohm.imag] for f in faults],
                      "z2_ohm": [[f.z2_ohm.real, f.z2_ohm.imag] for f in faults],
                      "z0_ohm": [[f.z0_ohm.real, f.z0_ohm.imag] for f in faults],
                      "e_factor": [f.c for f in faults]}
        if backend == "pandapower" and pandapower_judged(inputs):
            for i, vals in pandapower_fault_currents(inputs).items():
                for name, v in vals.items():
                    answers[name][i] = v
            return Reference(answer=answers, evidence=evidence_f,
                             method="LG and LL phase currents by pandapower calc_sc(fault='1ph'/'2ph'); "
                                    "LLG, earth, sequence currents and voltages by symmetrical components")
        return Reference(answer=answers, evidence=evidence_f,
                         method="symmetrical components, sequence networks connected at each fault (IEC 60909-0 §7.3–7.5; "
                                + ("textbook method, stated pre-fault voltage)" if "prefault_voltage_pu" in inputs else "IEC method)"))
    fault = surrogate_fault(inputs)
    answer = answer_of(fault)
    evidence = {"z1_ohm": [fault.z1_ohm.real, fault.z1_ohm.imag], "z0_ohm": [fault.z0_ohm.real, fault.z0_ohm.imag], "c": fault.c}
    if backend == "pandapower" and pandapower_judged(inputs):
        answer["ik1_ka"] = pandapower_ik1_ka(inputs)
        return Reference(answer=answer, evidence=evidence,
                         method="I″k1 by pandapower calc_sc(fault='1ph'); sequence currents and voltages by symmetrical components")
    return Reference(answer=answer, evidence=evidence, method="symmetrical components, sequence networks in series (IEC 60909-0 §7.5)")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer
    checks = ctx.checks()
    if is_fault_list(task.public_inputs):
        for name, what, _, _ in FAULT_FIELDS:
            for i, expected in enumerate(ref[name]):
                checks.close(f"/{name}/{i}", expected, answer[name][i], what)
        return Assessment(violations=checks.violations,
                          evidence={"checks": len(checks.records), "checks_failed": len(checks.violations)})
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


#: HV overhead lines (R, X, R0, X0 per km), the IEC TR 60909-4 network's kinds.
HV_OVERHEAD = ((0.12, 0.39, 0.32, 1.26), (0.096, 0.388, 0.22, 1.1), (0.12, 0.386, 0.22, 1.1), (0.12, 0.39, 0.52, 1.86))


def _level4_case(rng: np.random.Generator) -> dict[str, Any]:
    """Level 4: a meshed 110 kV network in the manner of IEC TR 60909-4 — a feeder, three lines
    in a ring, a power station unit (YNd unit transformer with or without a neutral reactor and
    on-load tap changer, or Yd), a three-winding 110/MV/MV transformer (YNynd or Yynd: the
    earthed MV star with the delta tertiary earthing the star point) feeding an MV busbar with a
    generator and a motor group, and a YNd coupling transformer earthing another HV bus through
    its neutral; four faults of the ``faults`` form — LG, LL and LLG at the three HV buses, LG or
    LLG at the MV busbar (pandapower judges the LG and LL phase currents, the kernel the rest)."""
    mv = float(rng.choice([10.0, 20.0]))
    buses = [{"id": f"B{i}", "vn_kv": 110.0} for i in (1, 2, 3)] + [
        {"id": "B4", "vn_kv": mv}, {"id": "B5", "vn_kv": mv}, {"id": "B6", "vn_kv": 20.0}]
    s_max = _r(rng.uniform(2000.0, 8000.0), 0)
    feeder = {"id": "Q1", "bus": "B1", "skss_max_mva": s_max, "rx_max": _r(rng.uniform(0.05, 0.15), 3),
              "x0_x1": _r(rng.uniform(1.5, 3.5), 2), "r0_x0": _r(rng.uniform(0.1, 0.3), 3)}
    lines = []
    for lid, a, b in (("L1", "B1", "B2"), ("L2", "B2", "B3"), ("L3", "B1", "B3")):
        r, x, r0, x0 = HV_OVERHEAD[int(rng.integers(len(HV_OVERHEAD)))]
        lines.append({"id": lid, "from_bus": a, "to_bus": b, "length_km": _r(rng.uniform(5.0, 30.0), 1),
                      "r_ohm_per_km": r, "x_ohm_per_km": x, "r0_ohm_per_km": r0, "x0_ohm_per_km": x0})
    sn_g = _r(rng.uniform(60.0, 200.0), 0)
    vn_g = float(rng.choice([10.5, 13.8, 21.0]))
    xd = _r(rng.uniform(0.12, 0.2), 3)
    uk_t = _r(rng.uniform(11.0, 16.0), 2)
    unit: dict[str, Any] = {
        "id": "S1", "hv_bus": "B3", "sn_g_mva": sn_g, "vn_g_kv": vn_g, "xdss_pu": xd,
        "r_g_ohm": _r(0.03 * xd * vn_g ** 2 / sn_g, 5), "cos_phi": float(rng.choice([0.8, 0.85, 0.9])),
        "sn_t_mva": sn_g, "vn_hv_kv": float(rng.choice([115.0, 120.0])), "vn_lv_kv": vn_g, "uk_pct": uk_t,
        "ukr_pct": _r(rng.uniform(0.3, 0.6), 3), "oltc": bool(rng.uniform() < 0.5),
        "vector_group": "YNd" if rng.uniform() < 0.75 else "Yd", "uk0_pct": _r(uk_t * rng.uniform(0.85, 1.0), 2),
        "ukr0_pct": _r(rng.uniform(0.3, 0.6), 3)}
    if unit["oltc"]:
        unit["pt_pct"] = float(rng.choice([0.0, 5.0, 10.0]))
    else:
        unit["pg_pct"] = float(rng.choice([0.0, 5.0, 7.5]))
    if unit["vector_group"] == "YNd" and rng.uniform() < 0.6:
        unit["neutral_x_ohm"] = _r(rng.uniform(5.0, 40.0), 1)
    sn3 = float(rng.choice([31.5, 40.0, 63.0]))
    uk_hm, uk_hl, uk_ml = _r(rng.uniform(11.0, 14.0), 2), _r(rng.uniform(18.0, 24.0), 2), _r(rng.uniform(6.0, 9.0), 2)
    t3: dict[str, Any] = {
        "id": "T3", "hv_bus": "B2", "mv_bus": "B4", "lv_bus": "B5", "sn_hv_mva": sn3, "sn_mv_mva": sn3,
        "sn_lv_mva": _r(sn3 * float(rng.choice([0.33, 0.5])), 1), "vn_hv_kv": 115.0, "vn_mv_kv": _r(mv * 1.05, 2),
        "vn_lv_kv": _r(mv * 1.05, 2), "uk_hv_mv_pct": uk_hm, "ukr_hv_mv_pct": _r(rng.uniform(0.3, 0.6), 3),
        "uk_hv_lv_pct": uk_hl, "ukr_hv_lv_pct": _r(rng.uniform(0.3, 0.6), 3), "uk_mv_lv_pct": uk_ml,
        "ukr_mv_lv_pct": _r(rng.uniform(0.3, 0.6), 3), "vector_group": str(rng.choice(["YNynd", "Yynd"]))}
    for pair, uk in (("hv_mv", uk_hm), ("hv_lv", uk_hl), ("mv_lv", uk_ml)):
        t3[f"uk0_{pair}_pct"] = _r(uk * rng.uniform(0.8, 1.0), 2)
        t3[f"ukr0_{pair}_pct"] = _r(rng.uniform(0.3, 0.6), 3)
    sn_c = _r(rng.uniform(5.0, 15.0), 1)
    xd_c = _r(rng.uniform(0.1, 0.18), 3)
    gen = {"id": "G1", "bus": "B4", "sn_mva": sn_c, "vn_kv": _r(mv * 1.05, 2), "xdss_pu": xd_c,
           "r_ohm": _r(0.07 * xd_c * (mv * 1.05) ** 2 / sn_c, 5), "cos_phi": 0.8}
    motor = {"id": "M1", "bus": "B4", "pn_mw": _r(rng.uniform(1.0, 5.0), 2), "efficiency_pct": 96.5, "cos_phi": 0.87,
             "vn_kv": mv, "ilr_ratio": _r(rng.uniform(4.5, 6.0), 2), "rx": 0.1, "count": int(rng.integers(1, 4))}
    uk_c = _r(rng.uniform(10.0, 14.0), 2)
    coupling = {"id": "T2", "hv_bus": "B1", "lv_bus": "B6", "sn_mva": float(rng.choice([25.0, 40.0])), "vn_hv_kv": 110.0,
                "vn_lv_kv": 20.0, "uk_pct": uk_c, "ukr_pct": _r(rng.uniform(0.3, 0.7), 3), "vector_group": "YNd",
                "uk0_pct": _r(uk_c * rng.uniform(0.8, 1.0), 2), "ukr0_pct": _r(rng.uniform(0.3, 0.7), 3),
                "neutral_x_ohm": _r(rng.uniform(10.0, 60.0), 1)}
    hv = [str(b) for b in rng.permutation(["B1", "B2", "B3"])]
    faults = [{"bus": hv[0], "fault_type": "LG", "r_fault_ohm": _r(rng.uniform(0.0, 5.0), 2)},
              {"bus": hv[1], "fault_type": "LL"},
              {"bus": hv[2], "fault_type": "LLG", "r_fault_ohm": _r(rng.uniform(0.0, 5.0), 2)},
              {"bus": "B4", "fault_type": str(rng.choice(["LG", "LLG"]))}]
    if rng.uniform() < 0.5:
        faults[1]["r_fault_ohm"] = _r(rng.uniform(0.0, 5.0), 2)
    return {"frequency_hz": 50, "buses": buses, "feeders": [feeder], "transformers": [coupling],
            "transformers_3w": [t3], "lines": lines, "generators": [gen], "power_station_units": [unit],
            "motors": [motor], "faults": faults}


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the supply and earthing: feeder S″kQ, R/X and zero-sequence ratios; the transformer
    rating, u_kr, u_Rr, u_(0)k, the vector group (Dyn / Yyn / YNyn) with resistance, reactance or
    solid earthing and the zero-sequence magnetizing impedance; the line type and length; the fault
    bus and resistance — or an MV/LV distribution transformer with an LV cable (TN system).
    Level 2: parallel transformers of different earthing and a mixed route (:func:`_level2_case`);
    level 3: an LV fault seen through three voltage levels with parallel cables (:func:`_level3_case`);
    level 4: a meshed HV network with a power station unit, a three-winding transformer, a
    generator and motors (:func:`_level4_case`)."""
    if level == 4:
        return Generated(public_inputs=_level4_case(rng))
    if level == 2:
        return Generated(public_inputs=_level2_case(rng))
    if level == 3:
        return Generated(public_inputs=_level3_case(rng))
    return Generated(public_inputs=_lv_case(rng) if rng.uniform() < 0.25 else _mv_case(rng))


def other_readings(task: Task) -> list[tuple[str, dict[str, Any]]]:
    """The answer under the other reading of the convention the statement fixes: an LLG fault's
    Z_f in each of the two faulted phases (joined solidly to earth) instead of in their common
    path to earth (Z_0 + 3Z_f). Only a ``faults`` case with an LLG fault through a non-zero Z_f
    carries the choice."""
    inputs = task.public_inputs
    if not is_fault_list(inputs) or not any(
            f["fault_type"] == "LLG" and (f.get("r_fault_ohm", 0.0) or f.get("x_fault_ohm", 0.0)) for f in inputs["faults"]):
        return []
    return [("llg_zf_in_each_phase", answers_of(surrogate_faults(inputs, llg_zf_per_phase=True)))]


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: Z_1 + Z_2 + Z_0 + R_f and Z_(0)T + Z_N, i.e. the fault and earthing
    impedances taken once instead of three times in the zero-sequence loop."""
    inputs = dict(task.public_inputs)
    for key in ("transformers", "power_station_units"):
        if key in inputs:
            inputs[key] = [t | {k: float(t[k]) / 3.0 for k in ("neutral_r_ohm", "neutral_x_ohm") if k in t}
                           for t in inputs[key]]
    if is_fault_list(inputs):
        inputs["faults"] = [f if f["fault_type"] == "LL" else
                            f | {k: float(f[k]) / 3.0 for k in ("x_fault_ohm",) if k in f}
                            | {"r_fault_ohm": float(f.get("r_fault_ohm", 0.0)) / 3.0}
                            for f in inputs["faults"]]
        return answers_of(surrogate_faults(inputs))
    inputs["fault_r_ohm"] = float(inputs["fault_r_ohm"]) / 3.0
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
        "capacitances neglected. Where the case lists faults (LG, LL, LLG, each with its r_fault_ohm and, where given, x_fault_ohm: "
        "Z_f = R_f + jX_f — for LG between phase a and earth, for LL between phases b and c, for LLG in the common path "
        "from the joined phases b and c to earth, not in each phase), give per fault "
        "the phase and earth current magnitudes, I_0, I_1, I_2 and the phase voltage magnitudes (IEC 60909-0 §7.3–7.5, "
        "Anderson ch. 3); prefault_voltage_pu poses the textbook method (E = V_f·U_n/√3, no correction factors). "
        "Three-winding transformers, generators, power station units (YNd with K_S·Z_(0)THV + 3·Z_N; a unit given "
        "as Yd has its HV star unearthed and no zero-sequence path) and motors as listed; a machine's x2_pu is its X_(2).")},
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
        "Т-схемы); ёмкости не учитываются. Если задан список faults (LG, LL, LLG, каждое со своим r_fault_ohm и, если задано, "
        "x_fault_ohm: Z_f = R_f + jX_f — при LG между фазой a и землёй, при LL между фазами b и c, при LLG в общем пути от "
        "соединённых фаз b и c к земле, а не в каждой фазе), для "
        "каждого КЗ укажите модули токов фаз и тока в землю, I_0, I_1, I_2 и модули напряжений фаз (МЭК 60909-0, "
        "п. 7.3–7.5; Андерсон, гл. 3); prefault_voltage_pu задаёт метод учебников (E = V_f·U_n/√3, без коэффициентов "
        "коррекции). Трёхобмоточные трансформаторы, генераторы, блоки (YNd: K_S·Z_(0)THV + 3·Z_N; блок, заданный как Yd, "
        "имеет незаземлённую звезду ВН и пути для токов нулевой последовательности не имеет) и двигатели — как заданы; x2_pu "
        "машины — её X_(2).")},
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
               "model Yyn/YNyn differently and are not used. Cases with a faults list: the phase currents of LG faults "
               "by calc_sc(fault='1ph', x_fault_ohm = X_f), of LL faults by calc_sc(fault='2ph', r_fault_ohm = R_f/2, "
               "x_fault_ohm = X_f/2, pandapower's impedance per faulted phase) when the case uses the IEC method with Z_2 = Z_1; LLG faults (pandapower "
               "3.5 has none), the textbook method (a stated pre-fault voltage) and, in either form, networks with a "
               "machine's own X_(2) (x2_pu) or an earthed generator star point (x0_pu) are judged by psab's "
               "symmetrical-component kernel under both backends, and so is a network with a generator on a bus of high "
               "zero-sequence impedance (a low-voltage bus behind a resistance-earthed transformer): pandapower 3.5 puts a "
               "fixed zero-sequence shunt of 1/(1e3 + 1e3j) at every generator bus, an earth path IEC 60909-0 does not "
               "have (+4.8 % on I″k1 at a 0.4 kV bus earthed through 5 Ω)."),
        "ru": ("I″k1 проверяется расчётом pandapower calc_sc(fault='1ph', case='max', r_fault_ohm=fault_r_ohm) той же "
               "сети; симметричные составляющие токов и напряжения неповреждённых фаз — расчётом psab методом "
               "симметричных составляющих (pandapower их не выдаёт). Оба следуют условиям задачи, поэтому один "
               "ответ получает 1 при любом способе проверки; допуск 0,1 % или порог поля. Нулевая последовательность "
               "трансформаторов — как в pandapower 3.5 (закреплённый диапазон pandapower>=3.5,<3.6): сопротивление "
               "намагничивания чисто реактивное, X_m0 = mag0_ratio·|Z_(0)T| (mag0_percent = 100·mag0_ratio, "
               "mag0_rx = 0), Т-схема делится по hv_share0 (si0_hv_partial); у трансформатора Yyn ток нулевой "
               "последовательности на стороне ВН не протекает; другие версии моделируют Yyn/YNyn иначе и не "
               "используются. В задачах со списком faults токи фаз при КЗ LG рассчитывает calc_sc(fault='1ph', x_fault_ohm = X_f), при КЗ LL — "
               "calc_sc(fault='2ph', r_fault_ohm = R_f/2, x_fault_ohm = X_f/2, у pandapower сопротивление в каждой из замкнутых фаз), если задача "
               "решается методом МЭК с Z_2 = Z_1; КЗ LLG (в pandapower 3.5 их нет), метод учебников (заданное доаварийное "
               "напряжение) и — в обеих формах — сети с собственным X_(2) машины (x2_pu) или заземлённой нейтралью "
               "генератора (x0_pu) проверяются расчётом psab методом симметричных составляющих при любом способе проверки, как и "
               "сеть с генератором на узле с большим сопротивлением нулевой последовательности (узел НН за трансформатором с "
               "резистивным заземлением нейтрали): pandapower 3.5 ставит в каждом узле генератора постоянную проводимость "
               "нулевой последовательности 1/(1e3 + 1e3j) — путь на землю, которого нет в МЭК 60909-0 (+4,8 % к I″k1 в узле "
               "0,4 кВ с заземлением через 5 Ом)."),
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
                "title": "IEC TR 60909-4:2021, Short-circuit currents in three-phase a.c. systems — Part 4: Examples",
                "locator": "the 380/110/30/10 kV network: I″k1 at F1–F5 and I″k2 at F1–F8, as listed in pandapower/test/shortcircuit/test_iec60909_4.py; example 4.4.2 (Z_(0)S = K_S·Z_(0)THV + 3·Z_N)",
                "note": "Rebuilt with its zero-sequence data as a golden case (faults form); the published currents are asserted on both backends.",
                "confidence": "high",
            },
            {
                "title": "IEC 60909-0:2016, Short-circuit currents in three-phase a.c. systems — Part 0",
                "locator": "§7.3 line-to-line (eq. 44), §7.4 line-to-line with earth connection (eq. 49), §7.5 line-to-earth short circuit (I″k1 = √3·c·U_n/|2Z_(1) + Z_(0)|), §6.3 transformer zero-sequence impedances and K_T, §6.6–6.7 (K_G, K_S, K_SO, X_(2)), Table 1 (c)",
                "note": "Fixes the prefault voltage c·U_n/√3, Z_(2) = Z_(1), K_T on Z_(0)T and the neglect of capacitances.",
                "confidence": "high",
            },
            {
                "title": "H. Saadat, Power System Analysis, 2nd ed., McGraw-Hill, 2002",
                "locator": "ch. 10, Examples 10.5 and 10.6 (LG, LL and LLG faults through Z_f = j0.1 p.u., Thevenin and bus impedance matrix), "
                           "as printed by Saadat's programs chp10ex5.m and chp10ex6.m",
                "note": "The textbook method with a fault reactance; golden cases saadat_ex_10_5 and saadat_ex_10_6 assert the programs' "
                        "output (the printed page was not seen).",
                "confidence": "medium",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "every value matches the symmetrical-component recomputation within max(0.1 %, the field's absolute floor)",
        ),
        metrics=(),
        # the faults form's fields all take the default floor (1 A, 1e-3 p.u.)
        tolerances={"relative": 1e-3, "absolute_floors": {f"/{name}": floor for name, _, floor in FIELDS} | {"default": 1e-3}},
        presentation=PRESENTATION,
        backends=("surrogate", "pandapower"),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        expert=EXPERT,
        judged_by=JUDGED_BY,
        other_readings=other_readings,
        levels=(1, 2, 3, 4),
        naive_answer=naive_answer,
        validate_inputs=input_problems,
    )
)
