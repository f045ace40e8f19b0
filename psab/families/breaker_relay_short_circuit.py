"""breaker_relay_short_circuit — breakers and overcurrent pickups from IEC 60909 fault levels (optimize).

Given a small network (feeder, HV/MV transformers, MV lines, an MV/LV transformer, where present
an MV motor group), breaker locations, a breaker catalog (rated voltage, rated short-circuit
breaking and making currents, cost) and overcurrent relays on the MV feeders, the agent picks a
breaker type for every location and a pickup current for every relay.

Hard constraints (IEC 62271-100 / IEC 60947-2 ratings against IEC 60909-0 duties):
- rated voltage ≥ the nominal voltage of the location;
- rated breaking current ≥ margin · I_b at the location: where the case gives the breakers'
  minimum time delay ``min_time_delay_s`` (levels 2–3 and the public case), I_b by IEC 60909-0
  §9.1.3 eq. (75) with μ and q, in complex form (:func:`psab.surrogates.iec60909.breaking_currents`;
  motors need ``pole_pairs``; version 4: the terms as phasors, not magnitudes), else I_b = I″k (far from generators, §9.1.1 — conservative near machines);
  the d.c. component i_DC at t_min (§10) is reported in the evidence, not judged (the catalog
  gives no rated d.c. time constant);
- rated making current ≥ margin · i_p at the location (κ by the case's method);
- relay pickup ≥ k_load · the feeder's maximum load current (no trip on load) and
  ≤ I″k2 min at the end of the relay's zone / k_fault (a sensitive enough setting), with
  I″k2 min = c_min·U_n/|2·Z_k,min| the line-to-line minimum current (IEC 60909-0 §7.3 with the
  minimum-current conditions of §7.2; bolted).

Objective: total breaker cost, minimized. The fault levels come from the same kernel as
three_phase_short_circuit (:func:`psab.surrogates.iec60909.fault_levels`) — or from pandapower's
``calc_sc`` (3ph max with i_p, 2ph min) under that backend. Reference: at each location the
cheapest admissible catalog entry (locations are independent, so this is the optimum), and each
pickup at its most sensitive admissible value k_load·I_load. Any pickup inside its band is
equally optimal — the evaluator accepts it and rejects one outside the band.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from psab.contract import Task, digest
from psab.errors import InvalidTaskError, SolverError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import iec60909 as iec
from psab.surrogates.symmetrical import ikss2_ka

FAMILY_ID = "breaker_relay_short_circuit"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 15.
MAX_INPUT_ITEMS = 500


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    breakers = [b["id"] for b in inputs["breakers"]]
    relays = [r["id"] for r in inputs["relays"]]
    types = [c["type"] for c in inputs["breaker_catalog"]]
    return s.submission(
        {
            "breaker_types": s.array(s.enum(types, "a breaker type of breaker_catalog", ru="тип выключателя из breaker_catalog"),
                                     f"the breaker type chosen at each location, in the order {', '.join(breakers)}",
                                     length=len(breakers),
                                     ru=f"тип выключателя в каждом месте установки, в порядке {', '.join(breakers)}"),
            "relay_pickups_a": s.array(s.number("pickup current (A, primary)", exclusive_minimum=0,
                                                ru="ток срабатывания (А, первичный)"),
                                       f"the pickup current of each relay, in the order {', '.join(relays)}",
                                       length=len(relays),
                                       ru=f"ток срабатывания каждой защиты, в порядке {', '.join(relays)}"),
        },
        "breaker types and relay pickups",
        ru="типы выключателей и уставки токовых защит",
    )


INPUTS_SCHEMA = iec.network_input_schema(
    {
        "kappa_method": {"enum": ["radial", "C"], "description": "κ for the peak current"},
        "breakers": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False, "required": ["id", "bus"],
            "properties": {"id": {"type": "string"}, "bus": {"type": "string"}}}},
        "breaker_catalog": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["type", "rated_voltage_kv", "breaking_ka", "making_ka", "cost_keur"],
            "properties": {"type": {"type": "string"}, "rated_voltage_kv": s.POSITIVE,
                           "breaking_ka": s.POSITIVE,
                           "making_ka": s.POSITIVE,
                           "cost_keur": s.POSITIVE}}},
        "relays": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False, "required": ["id", "breaker", "max_load_a", "zone_end_bus"],
            "properties": {"id": {"type": "string"}, "breaker": {"type": "string"},
                           "max_load_a": s.POSITIVE, "zone_end_bus": {"type": "string"}}}},
        "min_time_delay_s": s.number(
            "minimum time delay t_min of the breakers (s): when given, the breaking duty is I_b by IEC 60909-0 "
            "§9.1.3 instead of I″k", minimum=0.02, maximum=10.0,
            ru="минимальное время отключения t_min выключателей (с): если задано, ток отключения — I_b по "
               "МЭК 60909-0 п. 9.1.3, а не I″k"),
        "breaker_margin": {"type": "number", "minimum": 1, "maximum": 2,
                           "description": "required ratio of the rated breaking/making current to I″k max / i_p"},
        "pickup_load_factor": {"type": "number", "minimum": 1, "maximum": 3},
        "pickup_fault_factor": {"type": "number", "minimum": 1, "maximum": 5},
    },
    ["feeders", "kappa_method", "breakers", "breaker_catalog", "relays", "breaker_margin",
     "pickup_load_factor", "pickup_fault_factor"],
    elements=("buses", "feeders", "transformers", "lines", "motors", "generators", "power_station_units",
              "transformers_3w"),
)
INPUTS_SCHEMA["properties"]["frequency_hz"] = {"const": 50, "description": "system frequency (Hz)"}
# q of eq. (73) needs the motors' pole pairs (only read when min_time_delay_s is given)
INPUTS_SCHEMA["properties"]["motors"]["items"]["properties"]["pole_pairs"] = {
    "type": "integer", "minimum": 1, **s.words("number of pole pairs p of each motor", ru="число пар полюсов p каждого двигателя")}

PRESENTATION = {
    "en": {
        "title": "Breaker selection and overcurrent pickups from short-circuit levels",
        "statement": (
            "Choose a breaker type from breaker_catalog for every location in breakers and a pickup current "
            "for every overcurrent relay in relays, at the least total breaker cost (cost_keur). Compute the "
            "short-circuit levels of the network by IEC 60909-0:2016 (equivalent voltage source c·U_n/√3 at the "
            "fault; c from Table 1; feeder Z_Q = c·U_nQ²/S″kQ with the S″kQ and R/X of the case considered and the c "
            "of the feeder's own nominal voltage U_nQ (for a 110 kV feeder c_max = 1.10, c_min = 1.00) — not the c "
            "of the fault location, even for a fault on the LV side; generators with K_G, power station units with "
            "K_S (on-load tap changer) or K_SO and no K_T, both in minimum currents too; a three-winding transformer "
            "with its pair values u_k, u_R on the smaller rating of the pair and each pair corrected by its own K_T "
            "before the star conversion; "
            "transformers referred through the rated ratio, with K_T = 0.95·c_max/(1 + 0.6·x_T) for maximum "
            "currents only; motors in maximum currents only; line capacitances and loads neglected). At each "
            "breaker location (a bus): I″k max with c_max and S″kQmax, and the peak current i_p = κ·√2·I″k max "
            "(κ = 1.02 + 0.98·e^(−3R/X); kappa_method 'radial': R/X of Z_k; 'C': equivalent frequency 20 Hz). "
            "A breaker is admissible when rated_voltage_kv ≥ U_n of its bus, breaking_ka ≥ breaker_margin·I_b "
            "and making_ka ≥ breaker_margin·i_p. The breaking duty I_b: without min_time_delay_s, I_b = I″k max "
            "(no decay factor μ or q, also where motors or generators feed the fault); with min_time_delay_s = t_min, "
            "I_b by IEC 60909-0 §9.1.3 eq. (75): I_b = I″k max − Σ_G (ΔU″G/(c·U_n/√3))·(1 − μ)·I″kG − "
            "Σ_M (ΔU″M/(c·U_n/√3))·(1 − μ·q)·I″kM, with the partial currents I″kG, I″kM at the machine terminals "
            "(from the same network as I″k max), ΔU″G = jK·X″d·I″kG and ΔU″M = jX_M·I″kM in per unit of the "
            "nominal phase voltage U_n/√3 of the bus the generator or motor is connected to (not of its rated voltage "
            "U_rG or U_rM; the per-unit drop is referred to the fault like c·U_n/√3, through the rated ratios), for a "
            "power station unit's generator in per unit of its rated voltage U_rG/√3, i.e. K·x″d·I″kG/I_rG (K = K_G for a generator on a bus; for a power station unit the generator part "
            "K_G,S = c_max/(1 + x″d·sin φ_rG) with on-load tap changer, K_G,SO = K_G,S/(1 + p_G) without), "
            "μ by eq. (70) from I″kG/I_rG (or I″kM/I_rM) and t_min (curves 0.02/0.05/0.1/≥0.25 s, linear "
            "interpolation between them), q by eq. (73) from the motor's P_rM per pole pair (pole_pairs), "
            "μ = 1 (and μ·q = 1) for a machine with I″k/I_r ≤ 2; eq. (75) in complex form (phasors referred to the "
            "equivalent source c·U_n/√3 at the fault, angle 0): each term is the phasor (ΔU″/(c·U_n/√3))·(1 − μ)·I″k "
            "of its machine and I_b is the magnitude of I″k max less their sum. A relay's pickup "
            "must satisfy pickup ≥ pickup_load_factor·max_load_a and pickup ≤ I″k2 min / pickup_fault_factor, "
            "where I″k2 min "
            "is the minimum line-to-line short-circuit current at the relay's zone_end_bus: "
            "I″k2 min = c_min·U_n/|2·Z_k,min| (c_min, S″kQmin with rx_min, line resistances at end_temp_c by "
            "R = [1 + 0.004·(θe − 20)]·R20, K_T = 1, no motors, bolted fault), in amperes. Any pickup inside its "
            "band is acceptable. Answer the breaker types in the order of breakers and the pickups in the order "
            "of relays."
        ),
        "answer_notes": "Constraints hold with a slack of 1e-6 in their own units; the score is 1 at the least total cost, lower in proportion to the extra cost.",
    },
    "ru": {
        "title": "Выбор выключателей и уставок токовой защиты по токам КЗ",
        "statement": (
            "Выберите тип выключателя из breaker_catalog для каждого места установки из breakers и ток "
            "срабатывания каждой максимальной токовой защиты из relays при наименьшей суммарной стоимости "
            "выключателей (cost_keur). Токи КЗ сети рассчитайте по МЭК 60909-0:2016 (эквивалентный источник "
            "c·U_n/√3 в месте КЗ; c по таблице 1; питающая сеть Z_Q = c·U_nQ²/S″kQ с c, S″kQ и R/X "
            "рассматриваемого режима, причём c — по номинальному напряжению самой питающей сети U_nQ (для сети "
            "110 кВ c_max = 1,10, c_min = 1,00), а не места КЗ, даже при КЗ на стороне НН; генераторы — с "
            "коэффициентом K_G, блоки генератор–трансформатор — с K_S (РПН) или K_SO без K_T, в том числе в "
            "минимальном режиме; у трёхобмоточного трансформатора u_k, u_R пары обмоток отнесены к меньшей мощности "
            "пары, и каждая пара корректируется своим K_T до "
            "преобразования в звезду; трансформаторы приводятся через номинальный коэффициент трансформации, "
            "K_T = 0,95·c_max/(1 + 0,6·x_T) — только для максимальных токов; двигатели — только в максимальном "
            "режиме; ёмкости линий и нагрузки не учитываются). В каждом месте установки выключателя (узле): "
            "I″k max при c_max и S″kQmax и ударный ток i_p = κ·√2·I″k max (κ = 1,02 + 0,98·e^(−3R/X); при "
            "kappa_method 'radial' — по R/X сопротивления Z_k, при 'C' — методом эквивалентной частоты 20 Гц). "
            "Выключатель допустим, если rated_voltage_kv ≥ U_n его узла, breaking_ka ≥ breaker_margin·I_b и "
            "making_ka ≥ breaker_margin·i_p. Ток отключения I_b: без min_time_delay_s I_b = I″k max (без "
            "коэффициентов μ и q, в том числе при подпитке от двигателей и генераторов); при min_time_delay_s = t_min "
            "I_b — по МЭК 60909-0 п. 9.1.3, формула (75): I_b = I″k max − Σ_G (ΔU″G/(c·U_n/√3))·(1 − μ)·I″kG − "
            "Σ_M (ΔU″M/(c·U_n/√3))·(1 − μ·q)·I″kM, где I″kG, I″kM — токи машин на их выводах (по той же схеме, что и "
            "I″k max), ΔU″G = jK·X″d·I″kG и ΔU″M = jX_M·I″kM в о.е. номинального фазного напряжения U_n/√3 узла, к которому "
            "присоединён генератор или двигатель (а не его номинального напряжения U_rG или U_rM; падение в о.е. "
            "приводится к месту КЗ, как и c·U_n/√3, через номинальные коэффициенты трансформации), для генератора блока — "
            "в о.е. его номинального напряжения U_rG/√3, т. е. K·x″d·I″kG/I_rG (K = K_G для генератора в узле; "
            "для блока генератор–трансформатор — генераторная часть K_G,S = c_max/(1 + x″d·sin φ_rG) при РПН, "
            "K_G,SO = K_G,S/(1 + p_G) без РПН), μ — по формуле (70) по I″kG/I_rG (или I″kM/I_rM) и t_min (кривые "
            "0,02/0,05/0,1/≥0,25 с, между ними линейная интерполяция), q — по формуле (73) по P_rM на пару полюсов "
            "(pole_pairs), μ = 1 (и μ·q = 1) для машины с I″k/I_r ≤ 2; формула (75) — в комплексной форме (векторы "
            "относительно эквивалентного источника c·U_n/√3 в месте КЗ с углом 0): каждое слагаемое — вектор "
            "(ΔU″/(c·U_n/√3))·(1 − μ)·I″k своей машины, I_b — модуль разности I″k max и их суммы. Ток "
            "срабатывания защиты должен удовлетворять условиям уставка ≥ pickup_load_factor·max_load_a и "
            "уставка ≤ I″k2 min / pickup_fault_factor, где I″k2 min — "
            "минимальный ток двухфазного КЗ в узле zone_end_bus конца защищаемой зоны: "
            "I″k2 min = c_min·U_n/|2·Z_k,min| (c_min, S″kQmin с rx_min, сопротивления линий при end_temp_c по "
            "R = [1 + 0,004·(θe − 20)]·R20, K_T = 1, без двигателей, металлическое КЗ), в амперах. Любая уставка "
            "внутри допустимого диапазона приемлема. Укажите типы выключателей в порядке breakers и уставки в "
            "порядке relays."
        ),
        "answer_notes": "Ограничения проверяются с допуском 1e-6 в их собственных единицах; оценка равна 1 при наименьшей стоимости и снижается пропорционально перерасходу.",
        "hard_constraints": (
            "номинальное напряжение каждого выключателя не ниже номинального напряжения его узла",
            "номинальный ток отключения каждого выключателя не меньше breaker_margin · I_b в его узле (I_b = I″k max без min_time_delay_s)",
            "номинальный ток включения каждого выключателя не меньше breaker_margin · i_p в его узле",
            "каждый ток срабатывания не меньше pickup_load_factor · max_load_a и не больше I″k2 min в конце зоны / pickup_fault_factor",
        ),
    },
}

# ---------------------------------------------------------------------------- physics


def _checked(inputs: dict[str, Any]) -> tuple[iec.Network | None, list[str]]:
    """The shared IEC 60909 network check with every breaker and zone end on a bus of the
    network, every relay on a known breaker and the catalog's types distinct."""
    refs = [(f"/breakers/{i}/bus", f"breaker {b['id']} bus", b["bus"]) for i, b in enumerate(inputs["breakers"])]
    refs += [(f"/relays/{i}/zone_end_bus", f"relay {r['id']} zone end", r["zone_end_bus"]) for i, r in enumerate(inputs["relays"])]
    net, problems = iec.checked_network(inputs, refs)
    breakers = {b["id"] for b in inputs["breakers"]}
    problems += [f"/relays/{i}/breaker: relay {r['id']} acts on unknown breaker {r['breaker']!r}"
                 for i, r in enumerate(inputs["relays"]) if r["breaker"] not in breakers]
    if len(breakers) != len(inputs["breakers"]):
        problems.append("/breakers: breaker ids are not unique")
    relays = [r["id"] for r in inputs["relays"]]
    problems += [f"/relays/{i}/id: duplicate relay id {rid!r}" for i, rid in enumerate(relays) if rid in relays[:i]]
    if len({c["type"] for c in inputs["breaker_catalog"]}) != len(inputs["breaker_catalog"]):
        problems.append("/breaker_catalog: breaker catalog types are not unique")
    if inputs["relays"]:
        # The relays' minimum currents (I″k2 min from S″kQmin with rx_min) need both on every
        # feeder: without them the kernel cannot compute them and pandapower refuses the feeder.
        for i, q in enumerate(inputs.get("feeders") or []):
            problems += [f"/feeders/{i}/{key}: feeder {q.get('id')} needs {key} for the relays' minimum currents"
                         for key in ("skss_min_mva", "rx_min") if isinstance(q, dict) and q.get(key) is None]
    return net, problems


def input_problems(inputs: dict[str, Any]) -> list[str]:
    return _checked(inputs)[1]


def network(inputs: dict[str, Any]) -> iec.Network:
    net, problems = _checked(inputs)
    if problems or net is None:
        raise InvalidTaskError(f"{FAMILY_ID}: the network in public_inputs is not usable: {'; '.join(problems)}")
    return net


def fault_levels(inputs: dict[str, Any], backend: str, drop_on_rated_voltage: bool = False) -> dict[str, dict[str, float]]:
    """Per breaker bus: ``ikss_ka``, ``ip_ka``, ``un_kv`` and, when the case gives
    ``min_time_delay_s``, the breaking current ``ib_ka`` (§9.1.3, eq. 75) and the d.c. component
    ``idc_ka`` at t_min (§10, eq. 64); per zone-end bus: ``ik2_min_ka``. ``drop_on_rated_voltage``:
    the other reading of eq. (75)'s voltage-drop base (:func:`other_readings` only)."""
    net = network(inputs)
    out = _levels(inputs, backend, net)
    t_min = inputs.get("min_time_delay_s")
    if t_min is not None:
        buses = sorted({b["bus"] for b in inputs["breakers"]})
        try:
            # pandapower 3.5.6 computes no I_b (its _calc_ib_generator in shortcircuit/currents.py is
            # commented out) and no i_DC: under that backend I_b = pandapower's I″k minus the decay
            # reduction of eq. (75) from psab's kernel, and i_DC comes from the kernel
            red = {b.bus: b.reduction_ka for b in iec.breaking_currents(net, buses, float(t_min),
                                                                        drop_on_rated_voltage=drop_on_rated_voltage)}
        except ValueError as exc:
            raise InvalidTaskError(f"{FAMILY_ID}: {exc}") from None
        try:
            idc = dict(zip(buses, iec.dc_components_ka(net, buses, float(t_min), inputs["kappa_method"]), strict=True))
        except ValueError:  # method C of §10 tabulates f_c only for f·t < 12.5; i_DC is evidence, not a duty
            idc = {}
        for b in buses:
            out[b]["ib_ka"] = out[b]["ikss_ka"] - red[b]
            if b in idc:
                out[b]["idc_ka"] = idc[b]
    return out


def breaking_duty_ka(level: dict[str, float]) -> float:
    """The breaking duty: I_b where the case gives t_min, else I″k (§9.1.1, far from generators)."""
    return level.get("ib_ka", level["ikss_ka"])


def _levels(inputs: dict[str, Any], backend: str, net: iec.Network) -> dict[str, dict[str, float]]:
    kv = {b.id: b.vn_kv for b in net.buses}
    breaker_buses = sorted({b["bus"] for b in inputs["breakers"]})
    zone_buses = sorted({r["zone_end_bus"] for r in inputs["relays"]})
    method = inputs["kappa_method"]
    out: dict[str, dict[str, float]] = {b: {"un_kv": kv[b]} for b in set(breaker_buses) | set(zone_buses)}
    if backend == "pandapower":
        from psab.backends import pandapower_sc as ppsc

        prep = ppsc.prepared((FAMILY_ID, digest(inputs)), net)
        mx = ppsc.calc(prep, breaker_buses, case="max", kappa_method=method, lv_tolerance_pct=net.lv_tolerance_pct)
        mn = ppsc.calc(prep, zone_buses, fault="2ph", case="min", lv_tolerance_pct=net.lv_tolerance_pct)
        for b in breaker_buses:
            out[b].update(ikss_ka=mx[b].ikss_ka, ip_ka=float(mx[b].ip_ka))  # type: ignore[arg-type]
        for b in zone_buses:
            out[b]["ik2_min_ka"] = mn[b].ikss_ka
        return out
    try:
        for f in iec.fault_levels(net, "max", breaker_buses, kappa_method=method):
            out[f.bus].update(ikss_ka=f.ikss_ka, ip_ka=float(f.ip_ka))  # type: ignore[arg-type]
        for f in iec.fault_levels(net, "min", zone_buses):
            out[f.bus]["ik2_min_ka"] = ikss2_ka(f.c, f.un_kv, f.z_k_ohm)
    except ValueError as exc:
        raise InvalidTaskError(f"{FAMILY_ID}: {exc}") from None
    return out


def _catalog(inputs: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in inputs["breaker_catalog"]}


def _admissible(entry: dict[str, Any], level: dict[str, float], margin: float, slack: float = 0.0) -> bool:
    return (entry["rated_voltage_kv"] >= level["un_kv"] - slack
            and entry["breaking_ka"] >= margin * breaking_duty_ka(level) - slack
            and entry["making_ka"] >= margin * level["ip_ka"] - slack)


def pickup_band_a(inputs: dict[str, Any], levels: dict[str, dict[str, float]]) -> list[tuple[float, float]]:
    """``(lower, upper)`` pickup limits of each relay in amperes."""
    kl, kf = float(inputs["pickup_load_factor"]), float(inputs["pickup_fault_factor"])
    return [(kl * r["max_load_a"], 1000.0 * levels[r["zone_end_bus"]]["ik2_min_ka"] / kf) for r in inputs["relays"]]


def other_readings(task: Task) -> list[tuple[str, dict[str, Any]]]:
    """The answer under the other reading of a convention the statement fixes: a three-winding
    transformer's u_k/u_R pairs taken on its HV rating instead of the smaller rating of each pair
    (the case re-read by :func:`psab.families.three_phase_short_circuit.read_uk_pairs_on_hv_rating`,
    then this family's own solve); and eq. (75)'s drops of generators and motors on a bus in per
    unit of their rated voltage instead of the bus's nominal voltage, kept only where it changes
    the answer (a machine rated at its bus's voltage reads the same either way)."""
    from psab.families.three_phase_short_circuit import read_uk_pairs_on_hv_rating

    out = []
    changed = read_uk_pairs_on_hv_rating(task.public_inputs)
    try:
        if changed is not None:
            out.append(("uk_pairs_on_hv_rating", solve(SPEC.make_task(task_id=task.id, split=task.split,
                                                                      public_inputs=changed), "surrogate").answer))
        if task.public_inputs.get("min_time_delay_s") is not None:
            rated = solve(task, "surrogate", drop_on_rated_voltage=True).answer
            if rated != solve(task, "surrogate").answer:
                out.append(("drop_on_machine_rated_voltage", rated))
    except (InvalidTaskError, SolverError):
        pass
    return out


def solve(task: Task, backend: str, drop_on_rated_voltage: bool = False) -> Reference:
    inputs = task.public_inputs
    levels = fault_levels(inputs, backend, drop_on_rated_voltage)
    margin = float(inputs["breaker_margin"])
    by_cost = sorted(inputs["breaker_catalog"], key=lambda c: (c["cost_keur"], c["type"]))
    types = []
    for b in inputs["breakers"]:
        fit = next((c for c in by_cost if _admissible(c, levels[b["bus"]], margin)), None)
        if fit is None:
            raise SolverError(f"{FAMILY_ID}: no catalog breaker is admissible at {b['id']} (bus {b['bus']})")
        types.append(fit["type"])
    bands = pickup_band_a(inputs, levels)
    empty = [r["id"] for r, (lo, hi) in zip(inputs["relays"], bands, strict=True) if lo > hi]
    if empty:
        raise SolverError(f"{FAMILY_ID}: no admissible pickup for relay(s) {', '.join(empty)} (the task has no feasible answer)")
    cat = _catalog(inputs)
    return Reference(
        # the most sensitive admissible setting, rounded up to 1 mA (the band is far wider)
        answer={"breaker_types": types, "relay_pickups_a": [math.ceil(lo * 1000.0 - 1e-9) / 1000.0 for lo, _ in bands]},
        objective=float(sum(cat[t]["cost_keur"] for t in types)),
        evidence={"fault_levels": levels},
        method=("per-location cheapest admissible breaker; pickups at k_load·I_load; fault levels by "
                + ("pandapower calc_sc" if backend == "pandapower" else "IEC 60909-0 (Z_bus)")),
    )


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    inputs = task.public_inputs
    levels = ctx.reference().evidence["fault_levels"]
    margin = float(inputs["breaker_margin"])
    cat = _catalog(inputs)
    checks = ctx.checks()
    for i, (b, t) in enumerate(zip(inputs["breakers"], answer["breaker_types"], strict=True)):
        c, lv, ptr = cat[t], levels[b["bus"]], f"/breaker_types/{i}"
        checks.at_least(ptr, c["rated_voltage_kv"], lv["un_kv"], f"{b['id']}: rated voltage of {t} must be at least U_n of bus {b['bus']} (kV)")
        duty = "I_b" if "ib_ka" in lv else "I″k max"
        checks.at_least(ptr, c["breaking_ka"], margin * breaking_duty_ka(lv), f"{b['id']}: breaking current of {t} must be at least margin·{duty} at bus {b['bus']} (kA)")
        checks.at_least(ptr, c["making_ka"], margin * lv["ip_ka"], f"{b['id']}: making current of {t} must be at least margin·i_p at bus {b['bus']} (kA)")
    bands = pickup_band_a(inputs, levels)
    for j, ((lo, hi), r, p) in enumerate(zip(bands, inputs["relays"], answer["relay_pickups_a"], strict=True)):
        ptr = f"/relay_pickups_a/{j}"
        checks.at_least(ptr, p, lo, f"{r['id']}: pickup must be at least pickup_load_factor·max_load_a (A)")
        checks.at_most(ptr, p, hi, f"{r['id']}: pickup must be at most I″k2 min at {r['zone_end_bus']} / pickup_fault_factor (A)")
    cost = float(sum(cat[t]["cost_keur"] for t in answer["breaker_types"]))
    return Assessment(violations=checks.violations, objective=cost,
                      evidence={"total_cost_keur": cost, "pickup_bands_a": bands})


# ---------------------------------------------------------------------------- held-out draws

CABLES_MV = ((0.206, 0.116), (0.125, 0.105), (0.100, 0.104))
OVERHEAD_MV = ((0.306, 0.357), (0.194, 0.315))


def _r(x: float, nd: int = 4) -> float:
    return float(round(x, nd))


def draw_catalog(rng: np.random.Generator, mv_kv: float) -> list[dict[str, Any]]:
    """HV, MV and LV breaker series; cost rises with the rating (unique per type). Making
    currents: 2.5 × breaking at 50 Hz (IEC 62271-100); LV n-factor 2.1 (IEC 60947-2, 20–50 kA)."""
    out = []
    scale = rng.uniform(0.85, 1.15)
    mv_class = 12.0 if mv_kv <= 10.0 else 24.0
    series = (
        ("HV", 123.0, (25.0, 31.5, 40.0), 2.5, 95.0, 12.0),
        ("MV", mv_class, (16.0, 20.0, 25.0, 31.5, 40.0), 2.5, 14.0, 2.6),
        ("MV", 36.0, (25.0, 31.5), 2.5, 24.0, 3.5),
        ("LV", 0.69, (25.0, 36.0, 50.0, 65.0), 2.1, 3.5, 1.1),
    )
    for prefix, kv, ratings, n, base, step in series:
        for k, ika in enumerate(ratings):
            cost = (base + step * k) * scale * rng.uniform(0.97, 1.03)
            out.append({"type": f"{prefix}-{kv:g}kV-{ika:g}kA", "rated_voltage_kv": kv, "breaking_ka": ika,
                        "making_ka": _r(n * ika * (1.1 if (prefix == "LV" and ika > 50) else 1.0), 2),
                        "cost_keur": _r(cost, 2)})
    return out


def draw_case(rng: np.random.Generator) -> dict[str, Any]:
    """Feeder → one or two HV/MV transformers → MV busbar (optional motor group) → two MV
    feeders (cable, overhead line) → an MV/LV transformer at the end of the overhead line."""
    mv = float(rng.choice([10.0, 20.0]))
    s_max = _r(rng.uniform(1500.0, 8000.0), 0)
    rx = _r(rng.uniform(0.05, 0.2), 3)
    n_t = int(rng.integers(1, 3))
    sn = float(rng.choice([16.0, 20.0, 25.0, 31.5, 40.0]))
    uk = _r(rng.uniform(10.0, 14.0), 2)
    transformers = [{"id": f"T{k + 1}", "hv_bus": "B1", "lv_bus": "B2", "sn_mva": sn, "vn_hv_kv": 110.0, "vn_lv_kv": mv,
                     "uk_pct": uk, "ukr_pct": _r(rng.uniform(0.3, 0.7), 3)} for k in range(n_t)]
    st, ukt = ((0.4, 4.0), (0.63, 4.0), (0.63, 6.0), (0.8, 6.0), (1.0, 6.0))[int(rng.integers(5))]
    transformers.append({"id": "T9", "hv_bus": "B4", "lv_bus": "B5", "sn_mva": st, "vn_hv_kv": mv, "vn_lv_kv": 0.4,
                         "uk_pct": ukt, "ukr_pct": _r(rng.uniform(0.9, 1.5), 3)})
    rc, xc = CABLES_MV[int(rng.integers(len(CABLES_MV)))]
    ro, xo = OVERHEAD_MV[int(rng.integers(len(OVERHEAD_MV)))]
    lines = [
        {"id": "L1", "from_bus": "B2", "to_bus": "B3", "length_km": _r(rng.uniform(1.0, 8.0), 2), "r_ohm_per_km": rc,
         "x_ohm_per_km": xc, "end_temp_c": float(rng.choice([80.0, 90.0, 120.0]))},
        {"id": "L2", "from_bus": "B2", "to_bus": "B4", "length_km": _r(rng.uniform(3.0, 20.0) * mv / 20.0, 2), "r_ohm_per_km": ro,
         "x_ohm_per_km": xo, "end_temp_c": 80.0},
    ]
    out: dict[str, Any] = {
        "frequency_hz": 50, "lv_tolerance_pct": int(rng.choice([6, 10])),
        "buses": [{"id": "B1", "vn_kv": 110.0}, {"id": "B2", "vn_kv": mv}, {"id": "B3", "vn_kv": mv},
                  {"id": "B4", "vn_kv": mv}, {"id": "B5", "vn_kv": 0.4}],
        "feeders": [{"id": "Q1", "bus": "B1", "skss_max_mva": s_max, "rx_max": rx,
                     "skss_min_mva": _r(s_max * rng.uniform(0.45, 0.8), 0), "rx_min": _r(rx * rng.uniform(1.0, 1.4), 3)}],
        "transformers": transformers, "lines": lines,
    }
    meshed = n_t > 1
    if rng.uniform() < 0.5:
        out["motors"] = [{"id": "M1", "bus": "B2", "pn_mw": _r(rng.uniform(0.4, 2.0), 2), "efficiency_pct": 96.0,
                          "cos_phi": 0.87, "vn_kv": mv, "ilr_ratio": _r(rng.uniform(5.0, 6.5), 2), "rx": 0.15,
                          "count": int(rng.integers(1, 5))}]
        meshed = True
    out["kappa_method"] = "C" if meshed else "radial"
    out["breakers"] = [{"id": "CB-HV", "bus": "B1"}, {"id": "CB-L1", "bus": "B2"}, {"id": "CB-L2", "bus": "B2"},
                       {"id": "CB-LV", "bus": "B5"}]
    out["breaker_catalog"] = draw_catalog(rng, mv)
    load1 = _r(rng.uniform(100.0, 400.0), 1)
    load2 = _r(load1 * rng.uniform(0.3, 0.7), 1)
    out["relays"] = [{"id": "R-L1", "breaker": "CB-L1", "max_load_a": load1, "zone_end_bus": "B3"},
                     {"id": "R-L2", "breaker": "CB-L2", "max_load_a": load2, "zone_end_bus": "B4"}]
    out["breaker_margin"] = _r(float(rng.choice([1.0, 1.05, 1.1, 1.2])), 2)
    out["pickup_load_factor"] = _r(rng.uniform(1.2, 1.5), 2)
    out["pickup_fault_factor"] = _r(rng.uniform(1.5, 2.0), 2)
    return out


def draw_level2_case(rng: np.random.Generator) -> dict[str, Any]:
    """Level 2: the level-1 system with a CHP generator on its own MV bus, cable-connected to the
    MV busbar and switched by its own breaker, and the motor group always present: three kinds
    of source (feeder, generator, motors) share the MV duties, κ by method C, and the generator
    still feeds the minimum fault that sets the relays' upper pickup limit."""
    out = draw_case(rng)
    mv = out["buses"][1]["vn_kv"]
    if "motors" not in out:
        out["motors"] = [{"id": "M1", "bus": "B2", "pn_mw": _r(rng.uniform(0.4, 2.0), 2), "efficiency_pct": 96.0,
                          "cos_phi": 0.87, "vn_kv": mv, "ilr_ratio": _r(rng.uniform(5.0, 6.5), 2), "rx": 0.15,
                          "count": int(rng.integers(1, 5))}]
    sn = _r(rng.uniform(5.0, 25.0), 1)
    xd = _r(rng.uniform(0.12, 0.2), 3)
    vn_g = _r(mv * 1.05, 2)
    out["buses"].append({"id": "B6", "vn_kv": mv})
    out["generators"] = [{"id": "G1", "bus": "B6", "sn_mva": sn, "vn_kv": vn_g, "xdss_pu": xd,
                          "r_ohm": _r(0.07 * xd * vn_g ** 2 / sn, 5), "cos_phi": float(rng.choice([0.8, 0.85]))}]
    rc, xc = CABLES_MV[int(rng.integers(len(CABLES_MV)))]
    out["lines"].append({"id": "L6", "from_bus": "B2", "to_bus": "B6", "length_km": _r(rng.uniform(0.2, 2.0), 2),
                         "r_ohm_per_km": rc, "x_ohm_per_km": xc, "end_temp_c": 90.0})
    out["breakers"].append({"id": "CB-G", "bus": "B6"})
    out["kappa_method"] = "C"
    return out


def draw_level3_case(rng: np.random.Generator) -> dict[str, Any]:
    """Level 3: the level-2 system, plus a power station unit (generator and unit transformer with
    or without on-load tap changer) on the 110 kV bus, which raises the HV duty, and a
    three-winding 110/MV/6-or-10 kV transformer feeding an auxiliary system with its own motor
    group and breaker — five kinds of source and three voltage levels in one case."""
    out = draw_level2_case(rng)
    mv = out["buses"][1]["vn_kv"]
    sn_g = _r(rng.uniform(60.0, 180.0), 1)
    xd = _r(rng.uniform(0.14, 0.22), 3)
    vn_g = float(rng.choice([10.5, 13.8]))
    out["power_station_units"] = [{
        "id": "S1", "hv_bus": "B1", "sn_g_mva": sn_g, "vn_g_kv": vn_g, "xdss_pu": xd,
        "r_g_ohm": _r(0.05 * xd * vn_g ** 2 / sn_g, 5), "cos_phi": 0.85,
        "sn_t_mva": _r(sn_g * rng.uniform(1.0, 1.15), 1), "vn_hv_kv": float(rng.choice([115.0, 121.0])),
        "vn_lv_kv": vn_g, "uk_pct": _r(rng.uniform(11.0, 15.0), 2), "ukr_pct": _r(rng.uniform(0.25, 0.5), 3),
        "oltc": bool(rng.uniform() < 0.5)}]
    aux = 6.0 if mv == 20.0 else float(rng.choice([6.0, 10.0]))
    sn_hv = float(rng.choice([20.0, 25.0, 31.5]))
    out["buses"] += [{"id": "B7", "vn_kv": aux}, {"id": "B8", "vn_kv": mv}]
    out["transformers_3w"] = [{
        "id": "T3", "hv_bus": "B1", "mv_bus": "B8", "lv_bus": "B7", "sn_hv_mva": sn_hv, "sn_mv_mva": sn_hv,
        "sn_lv_mva": _r(sn_hv * 0.5, 2), "vn_hv_kv": 110.0, "vn_mv_kv": _r(mv * 1.05, 2), "vn_lv_kv": _r(aux * 1.05, 2),
        "uk_hv_mv_pct": _r(rng.uniform(11.0, 14.0), 2), "ukr_hv_mv_pct": _r(rng.uniform(0.3, 0.6), 3),
        "uk_hv_lv_pct": _r(rng.uniform(18.0, 24.0), 2), "ukr_hv_lv_pct": _r(rng.uniform(0.3, 0.6), 3),
        "uk_mv_lv_pct": _r(rng.uniform(6.0, 9.0), 2), "ukr_mv_lv_pct": _r(rng.uniform(0.3, 0.6), 3)}]
    out["motors"].append({"id": "M7", "bus": "B7", "pn_mw": _r(rng.uniform(0.5, 2.5), 2), "efficiency_pct": 95.5,
                          "cos_phi": 0.86, "vn_kv": aux, "ilr_ratio": _r(rng.uniform(5.0, 6.5), 2), "rx": 0.1,
                          "count": int(rng.integers(2, 6))})
    out["breakers"].append({"id": "CB-AUX", "bus": "B7"})
    return out


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the supply (feeder S″kQ max/min and R/X, one or two HV/MV transformers, the MV
    level, line types and lengths, the MV/LV transformer, an optional motor group), the breaker
    catalog's costs, the feeder loads and the margin and pickup factors. Level 2 adds a CHP
    generator near the MV busbar with its own breaker (:func:`draw_level2_case`), level 3 a power
    station unit and a three-winding transformer with an auxiliary motor system
    (:func:`draw_level3_case`); both give the breakers a minimum time delay, so that their
    breaking duty is I_b (:func:`with_breaking_time`)."""
    if level == 2:
        return Generated(public_inputs=with_breaking_time(draw_level2_case(rng), rng))
    if level == 3:
        return Generated(public_inputs=with_breaking_time(draw_level3_case(rng), rng))
    return Generated(public_inputs=draw_case(rng))


def with_breaking_time(inputs: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Near-generator levels: a minimum time delay t_min of the breakers (one of the standard's
    curves or between them) and the motors' pole pairs, so that the breaking duty is I_b by
    IEC 60909-0 §9.1.3 rather than I″k (drawn after the network, so the network draws of a
    seed stay those of version 2)."""
    out = dict(inputs)
    out["min_time_delay_s"] = float(rng.choice([0.02, 0.05, 0.08, 0.1, 0.15, 0.25]))
    out["motors"] = [dict(m, pole_pairs=int(rng.integers(1, 4))) for m in inputs.get("motors", [])]
    return out


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: breaker duties from the network feeder alone — the contributions of
    motors and generators near the busbar forgotten — and pickups at k_load·I_load."""
    inputs = {k: v for k, v in task.public_inputs.items() if k not in ("motors", "generators")}
    inputs["kappa_method"] = "radial"
    levels = fault_levels(inputs, "surrogate")
    margin = float(inputs["breaker_margin"])
    by_cost = sorted(inputs["breaker_catalog"], key=lambda c: (c["cost_keur"], c["type"]))
    types = [next((c for c in by_cost if _admissible(c, levels[b["bus"]], margin)), by_cost[-1])["type"]
             for b in inputs["breakers"]]
    bands = pickup_band_a(inputs, levels)
    return {"breaker_types": types, "relay_pickups_a": [math.ceil(lo * 1000.0 - 1e-9) / 1000.0 for lo, _ in bands]}


EXPERT = {
    "en": {"statement": (
        "Select, at the least total cost_keur, a breaker type from breaker_catalog for every location in breakers "
        "(rated voltage, rated short-circuit breaking and making currents against the IEC 60909-0:2016 duties at "
        "its bus, each with breaker_margin: the breaking current I_b by §9.1.3 for the case's min_time_delay_s "
        "(I_b = I″k max by §7.1 where the case gives none) and i_p by §8.1 with κ by the case's kappa_method) "
        "and a pickup current for every relay in relays (at least pickup_load_factor × max_load_a, at most the "
        "minimum line-to-line current I″k2 min of §7.3 at its zone_end_bus divided by pickup_fault_factor). The "
        "case's choices: impedance correction factors for maximum currents only (K_T = 1 and no motors for "
        "minimum currents, generators with K_G in both); the feeder impedance with the c of its own nominal "
        "voltage and the S″kQ, R/X of the case; minimum currents with line resistances at end_temp_c, bolted; "
        "in I_b by eq. (75) the voltage drops of generators and motors on a bus in per unit of that bus's nominal phase "
        "voltage (not of the machine's rated voltage), of a power station unit's generator in per unit of its rated "
        "voltage, a power station unit's "
        "generator with K_G,S (K_G,SO), no decay for a machine with I″k/I_r ≤ 2, μ and q interpolated linearly "
        "between the t_min curves, eq. (75) in complex form (I_b the magnitude of the phasor I″k max less the "
        "phasor terms, ΔU″ = jX·I″k); any pickup inside its band is equally good.")},
    "ru": {"statement": (
        "Выберите при наименьшей суммарной стоимости cost_keur тип выключателя из breaker_catalog для каждого "
        "места установки из breakers (номинальное напряжение, номинальные токи отключения и включения — против "
        "токов КЗ по МЭК 60909-0:2016 в его узле с запасом breaker_margin: ток отключения I_b по п. 9.1.3 при "
        "min_time_delay_s задачи (I_b = I″k max по п. 7.1, если оно не задано) и i_p по п. 8.1 с κ "
        "по kappa_method задачи) и ток срабатывания каждой защиты из relays (не меньше pickup_load_factor × "
        "max_load_a и не больше минимального тока двухфазного КЗ I″k2 min по п. 7.3 в узле zone_end_bus, "
        "делённого на pickup_fault_factor). Принято в задаче: корректирующие коэффициенты — только для "
        "максимальных токов (для минимальных K_T = 1 и без двигателей, генераторы с K_G в обоих режимах); "
        "сопротивление питающей сети — с c по её собственному номинальному напряжению и с S″kQ, R/X "
        "рассматриваемого режима; минимальные токи — с сопротивлениями линий при end_temp_c, металлическое КЗ; "
        "в I_b по формуле (75) падения напряжения генераторов и двигателей в узлах — в о.е. номинального фазного "
        "напряжения их узла (а не номинального напряжения машины), генератора блока — в о.е. его номинального "
        "напряжения, генератор блока — "
        "с K_G,S (K_G,SO), без затухания для машины с I″k/I_r ≤ 2, μ и q линейно интерполируются между кривыми "
        "t_min, формула (75) — в комплексной форме (I_b — модуль разности вектора I″k max и векторов слагаемых, "
        "ΔU″ = jX·I″k); любая уставка внутри допустимого диапазона равноценна.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged with psab's IEC 60909-0 kernel (Z_bus = Y_bus⁻¹ of the corrected network): each breaker's "
               "ratings against margin × I_b (I″k max without min_time_delay_s) and margin × i_p at its bus, each pickup against its band (slack "
               "1e-6); score = 1 at the least total breaker cost, less in proportion to the extra cost."),
        "ru": ("Проверяется расчётом psab по МЭК 60909-0 (Z_узл = Y_узл⁻¹ скорректированной схемы): параметры "
               "каждого выключателя — против запаса × I_b (I″k max без min_time_delay_s) и запаса × i_p в его узле, каждая уставка — против "
               "её диапазона (допуск 1e-6); оценка 1 при наименьшей стоимости, ниже — пропорционально перерасходу."),
    },
    "pandapower": {
        "en": ("The fault levels come from pandapower's calc_sc on the same network (3ph 'max' with i_p by the case's "
               "κ method at the breaker buses, 2ph 'min' at the zone ends); pandapower 3.5 computes no breaking "
               "current, so where the case gives min_time_delay_s I_b is pandapower's I″k less the decay terms of "
               "eq. (75) from psab's IEC 60909-0 kernel; the rules and the cost score are the statement's. Draws keep every admissibility decision 0.2 % away from its limit, so one answer "
               "scores 1 under either backend."),
        "ru": ("Токи КЗ берутся из расчёта pandapower calc_sc той же сети (трёхфазное 'max' с i_p по методу κ задачи "
               "в узлах выключателей, двухфазное 'min' в концах зон); pandapower 3.5 не рассчитывает ток отключения, "
               "поэтому при заданном min_time_delay_s I_b — это I″k pandapower за вычетом слагаемых затухания формулы "
               "(75) из расчёта psab по МЭК 60909-0; правила и оценка по стоимости — как в задаче. "
               "Каждое решение о допустимости отстоит от границы не менее чем на 0,2 %, поэтому один ответ "
               "получает 1 при любом способе проверки."),
    },
}


def accept(task: Task, reference: Reference) -> str | None:
    """Margins so that both backends (and rounding) agree on every admissibility decision, and
    relay bands that are wide enough to be a design choice."""
    inputs = task.public_inputs
    levels = reference.evidence["fault_levels"]
    margin = float(inputs["breaker_margin"])
    for b in inputs["breakers"]:
        lv = levels[b["bus"]]
        for c in inputs["breaker_catalog"]:
            for have, need in ((c["breaking_ka"], margin * breaking_duty_ka(lv)), (c["making_ka"], margin * lv["ip_ka"])):
                if abs(have - need) <= 2e-3 * need:
                    return f"{c['type']} at {b['id']} sits within 0.2 % of its limit"
    for r, (lo, hi) in zip(inputs["relays"], pickup_band_a(inputs, levels), strict=True):
        if hi < 1.2 * lo:
            return f"relay {r['id']}: pickup band too narrow ({lo:.1f}–{hi:.1f} A)"
    return trivial_optimum(inputs, levels, reference.answer["breaker_types"])


def trivial_optimum(inputs: dict[str, Any], levels: dict[str, dict[str, float]], types: list[str]) -> str | None:
    """The ambiguity check (issue 26.2): reject a draw whose optimum needs no short-circuit
    duty — the cheapest breaker of an adequate voltage class is admissible at every location,
    so a guess by voltage alone scores 1 — or whose cheapest admissible type is tied in cost
    with another admissible one at some location (the optimum would not be unique)."""
    by_cost = sorted(inputs["breaker_catalog"], key=lambda c: (c["cost_keur"], c["type"]))
    margin = float(inputs["breaker_margin"])
    by_voltage = [next((c["type"] for c in by_cost if c["rated_voltage_kv"] >= levels[b["bus"]]["un_kv"]), None)
                  for b in inputs["breakers"]]
    if by_voltage == list(types):
        return "trivial optimum: the cheapest breaker of the voltage class is admissible at every location"
    for b, t in zip(inputs["breakers"], types, strict=True):
        cost = _catalog(inputs)[t]["cost_keur"]
        ties = [c["type"] for c in by_cost if c["type"] != t and abs(c["cost_keur"] - cost) <= 1e-9
                and _admissible(c, levels[b["bus"]], margin)]
        if ties:
            return f"tied optimum at {b['id']}: {t} and {ties[0]} cost the same"
    return None


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="short_circuit_protection",
        scoring_kind="optimize",
        confidence="high",
        version="4",
        provenance=(
            {
                "title": "IEC 60909-0:2016, Short-circuit currents in three-phase a.c. systems — Part 0",
                "locator": "§7.1–7.3 (I″k max, I″k2 min, Table 1), §8.1 (i_p, κ), §9.1.1 (I_b = I″k far from generators), §9.1.3 eqs. (70), (73), (75) (I_b near generators and motors), §10 eq. (64) (i_DC, evidence only)",
                "note": "The duties of the breakers and the minimum fault currents of the relays, from the same kernel as three_phase_short_circuit.",
                "confidence": "high",
            },
            {
                "title": "Glover, Overbye & Sarma, Power System Analysis and Design, 6th ed., Cengage, 2017",
                "locator": "§7.5 circuit breaker and fuse selection; §10.3–10.4 overcurrent relays (pickup above maximum load, below minimum fault current)",
                "note": "Breaker selection against the fault duty and the pickup rule of time-overcurrent relays, posed on a catalog.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "each breaker's rated voltage is at least the nominal voltage of its bus",
            "each breaker's rated breaking current is at least breaker_margin · I_b at its bus (I_b = I″k max without min_time_delay_s)",
            "each breaker's rated making current is at least breaker_margin · i_p at its bus",
            "each pickup is at least pickup_load_factor · max_load_a and at most I″k2 min at the zone end / pickup_fault_factor",
        ),
        metrics=({"name": "total_cost_keur", "direction": "minimize", "description": "total cost of the chosen breakers", "unit": "kEUR"},),
        tolerances={"relative": 1e-3, "absolute_floors": {"default": 1e-3}, "feasibility": {"default": 1e-6},
                    "objective": {"relative": 1e-9, "absolute": 1e-6}},
        presentation=PRESENTATION,
        backends=("surrogate", "pandapower"),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        objective_sense="minimize",
        objective_unit="kEUR",
        objective_scale_floor=10.0,
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2, 3),
        naive_answer=naive_answer,
        other_readings=other_readings,
        validate_inputs=input_problems,
        # Any pickup inside [k_load·I_load, I″k2min/k_fault] is equally optimal (the objective is the
        # breaker cost), and the reference sits at the band's lower edge, so a 5 % higher pickup is
        # a legitimate answer; the evaluator still rejects pickups outside the band (×1000, sign,
        # a swapped order), which the other mutations exercise.
        mutation_exempt=("/relay_pickups_a/*",),
    )
)
