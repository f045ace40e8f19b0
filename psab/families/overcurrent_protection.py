"""overcurrent_protection — time-grade the inverse-time relays of a radial feeder (optimize).

A radial MV feeder has one non-directional phase overcurrent relay at the head of every
section. Pickups (CT ratio × plug setting), curve types and the maximum fault current at each
relay's near end are given. The agent chooses each relay's time multiplier setting (TMS) so
that every backup relay operates at least the coordination time interval (CTI) after its
primary for the primary's near-end (maximum) fault, with every TMS in the device range, and
the sum of the primary operating times at their own near-end faults is as small as possible.

The evaluator recomputes every operating time with the IEC 60255-151 characteristic, checks
the grading rows and the TMS range, and scores the objective against the LP optimum. For
series radial relays that optimum is the "tightest chain" from the downstream end (each relay
at the smallest TMS its grading allows); the golden case derives it by hand.

Sources: Horowitz & Phadke, *Power System Relaying*, 4th ed. (2014), ch. 4 (radial feeder
coordination, CTI); IEC 60255-151:2009 dependent-time characteristic; Urdaneta, Nadira & Pérez
Jiménez, IEEE Trans. Power Delivery 3(3):903–911 (1988) (the LP formulation).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from psab.contract import Task
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.solvers import algebra
from psab.solvers.coordination import CoordinationProblem, coordination_constraints, objective_value
from psab.surrogates.iec60909 import feeder_impedance_ohm, voltage_factor
from psab.surrogates.relay_curves import IEC_CURVES, InverseCurve, time_factor
from psab.surrogates.symmetrical import ikss2_ka

FAMILY_ID = "overcurrent_protection"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 8.
MAX_INPUT_ITEMS = 200

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    ids = [r["id"] for r in inputs["relays"]]
    tms = s.obj({rid: s.number(f"time multiplier setting of relay {rid} (dimensionless, continuous)",
                               ru=f"коэффициент времени TMS защиты {rid} (безразмерный, непрерывный)") for rid in ids},
                "TMS of every relay, keyed by relay id", ru="TMS каждой защиты по её идентификатору")
    return s.submission({"tms": tms}, "time multiplier settings", ru="коэффициенты времени (TMS) защит")


PRESENTATION = {
    "en": {
        "title": "Overcurrent relay coordination on a radial feeder",
        "statement": (
            "A radial feeder has a non-directional phase overcurrent relay at the head of every section "
            "(public_inputs.relays, listed from the source outwards). Each relay's pickup current is "
            "pickup_secondary_a × ct_primary_a / ct_secondary_a (primary amperes) and its characteristic is "
            "the IEC 60255-151 dependent-time curve named in 'curve', t = TMS · k / ((I/I_p)^α − 1), with k "
            "and α from public_inputs.curves. ik_max_near_ka is the maximum three-phase fault current just "
            "downstream of the relay (its near-end fault); in a radial feeder the same current flows "
            "through every relay between the source and the fault. Choose the time multiplier setting TMS "
            "of every relay so that (1) for every pair in public_inputs.pairs, the backup relay operates "
            "at least cti_s after the primary relay for the fault at the primary's near end, and (2) every "
            "TMS lies in [tms_min, tms_max]; minimise the sum over all relays of each relay's operating "
            "time for its own near-end fault. TMS is continuous (no setting steps). Each relay uses its own curve "
            "(relays of one case may have different curves); the operating time is the curve's alone — cti_s "
            "already covers breaker time and overtravel, nothing is added to either time; the current multiple "
            "I/I_p uses the fault current in primary amperes over the primary pickup. ik_min_far_ka (minimum "
            "two-phase fault at the far end of the relay's section, minimum source) and i_load_max_a (maximum "
            "load current through the relay) describe the feeder: the pickups already respect them, and they "
            "do not enter the grading."
        ),
        "answer_notes": (
            "Give TMS values unrounded or rounded up: the grading margin is checked to 0.1 ms and the range "
            "to 1e-6. The score is 1 at the minimum total time and falls with the relative excess."
        ),
    },
    "ru": {
        "title": "Согласование максимальных токовых защит радиальной линии",
        "statement": (
            "Радиальная линия имеет в начале каждого участка ненаправленную максимальную токовую защиту "
            "(public_inputs.relays, перечислены от источника к концу линии). Ток срабатывания защиты в "
            "первичных амперах равен pickup_secondary_a × ct_primary_a / ct_secondary_a, а её "
            "характеристика — зависимая время-токовая кривая МЭК 60255-151, указанная в поле 'curve': "
            "t = TMS · k / ((I/I_ср)^α − 1), где k и α заданы в public_inputs.curves. ik_max_near_ka — "
            "максимальный ток трёхфазного КЗ сразу за местом установки защиты (КЗ в начале защищаемого "
            "участка); в радиальной сети этот же ток протекает через все защиты между источником и местом "
            "КЗ. Выберите коэффициент времени (уставку множителя времени) TMS каждой защиты так, чтобы "
            "(1) для каждой пары из public_inputs.pairs резервирующая защита срабатывала не менее чем на "
            "cti_s (ступень селективности) позже основной при КЗ в начале участка основной защиты и "
            "(2) каждый TMS лежал в диапазоне [tms_min, tms_max]; минимизируйте сумму по всем защитам "
            "времён срабатывания каждой защиты при КЗ в начале её собственного участка. TMS непрерывен "
            "(без шага уставки). Каждая защита работает по своей характеристике (у защит одной задачи они могут "
            "различаться); время срабатывания — только по характеристике: cti_s уже учитывает время отключения "
            "выключателя и инерционный выбег, ни к одному времени ничего не прибавляется; кратность I/I_ср — "
            "отношение тока КЗ в первичных амперах к первичному току срабатывания. ik_min_far_ka (минимальный ток двухфазного КЗ в конце защищаемого участка "
            "при минимальном режиме источника) и i_load_max_a (максимальный ток нагрузки через защиту) "
            "описывают линию: токи срабатывания им уже соответствуют, в согласовании они не участвуют."
        ),
        "answer_notes": (
            "Указывайте TMS без округления или с округлением вверх: ступень селективности проверяется с "
            "точностью 0,1 мс, диапазон — 1e-6. Оценка равна 1 при минимальном суммарном времени и "
            "снижается пропорционально относительному превышению."
        ),
        "hard_constraints": (
            "для каждой пары из public_inputs.pairs: t_резервной − t_основной ≥ cti_s при максимальном токе КЗ в начале участка основной защиты, оба времени — по МЭК 60255-151 (допуск 1e-4 с)",
            "tms_min ≤ TMS ≤ tms_max для каждой защиты (допуск 1e-6)",
        ),
    },
}

# ---------------------------------------------------------------------------- physics


def pickup_a(relay: dict[str, Any]) -> float:
    """Primary pickup current: plug setting (secondary A) × CT ratio."""
    return float(relay["pickup_secondary_a"]) * float(relay["ct_primary_a"]) / float(relay["ct_secondary_a"])


#: The shape of public_inputs (a task that does not fit raises InvalidTaskError).
INPUTS_SCHEMA = s.obj({
    "feeder": {"type": "string"}, "nominal_voltage_kv": s.POSITIVE, "cti_s": s.POSITIVE,
    "tms_min": s.POSITIVE, "tms_max": s.POSITIVE,
    "curves": {"type": "object", "minProperties": 1, "additionalProperties": s.obj(
        {"k_s": s.POSITIVE, "alpha": {"type": "number", "exclusiveMinimum": 0, "maximum": 10}, "c_s": s.NONNEGATIVE, "standard": {"type": "string"}},
        optional=("c_s", "standard"))},
    "relays": s.array(s.obj({
        "id": s.ID, "bus": s.ID, "section": s.ID, "curve": s.ID, "ct_primary_a": s.POSITIVE, "ct_secondary_a": s.POSITIVE,
        "pickup_secondary_a": s.POSITIVE, "i_load_max_a": s.NONNEGATIVE, "ik_max_near_ka": s.POSITIVE, "ik_min_far_ka": s.POSITIVE,
    }, optional=("bus", "section")), "relays", min_items=1),
    "pairs": s.array(s.obj({"backup": s.ID, "primary": s.ID}), "pairs"),
}, optional=("feeder",))


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """Distinct relay ids, every curve and pair member known, tms_min ≤ tms_max, and every
    grading current above the pickup of the relay that must operate on it (IEC 60255-151:
    at or below pickup a dependent-time element never operates, so no TMS can grade it)."""
    p = ic.Problems()
    relays = p.unique_ids("/relays", inputs["relays"])
    p.ordered("/tms_max", inputs["tms_min"], inputs["tms_max"], "tms_min")
    for i, r in enumerate(inputs["relays"]):
        p.refers(ic.pointer("relays", i, "curve"), r["curve"], inputs["curves"], "curve")
        if float(r["ik_max_near_ka"]) * 1e3 <= pickup_a(r):
            p.add(ic.pointer("relays", i, "ik_max_near_ka"), "the near-end fault current must exceed the relay's pickup")
    for k, pair in enumerate(inputs["pairs"]):
        ok = p.refers(ic.pointer("pairs", k, "backup"), pair["backup"], relays, "relay")
        ok = p.refers(ic.pointer("pairs", k, "primary"), pair["primary"], relays, "relay") and ok
        if ok and pair["backup"] == pair["primary"]:
            p.add(ic.pointer("pairs", k, "primary"), "a relay cannot back itself up")
        elif ok:
            near = float(inputs["relays"][relays[pair["primary"]]]["ik_max_near_ka"]) * 1e3
            if near <= pickup_a(inputs["relays"][relays[pair["backup"]]]):
                p.add(ic.pointer("pairs", k, "backup"), "the primary's near-end fault current must exceed the backup's pickup")
    return p


def _curve(inputs: dict[str, Any], name: str) -> InverseCurve:
    c = inputs["curves"][name]
    return InverseCurve(name, float(c["k_s"]), float(c["alpha"]), float(c.get("c_s", 0.0)))


def multiples(inputs: dict[str, Any]) -> dict[str, Any]:
    """Every current multiple the grading uses: own near-end and, per pair, the backup's."""
    relays = {r["id"]: r for r in inputs["relays"]}
    own = {rid: float(r["ik_max_near_ka"]) * 1e3 / pickup_a(r) for rid, r in relays.items()}
    pair = [float(relays[p["primary"]]["ik_max_near_ka"]) * 1e3 / pickup_a(relays[p["backup"]]) for p in inputs["pairs"]]
    return {"own": own, "pair_backup": pair}


def problem(inputs: dict[str, Any]) -> CoordinationProblem:
    """The coordination LP's coefficients, from the IEC 60255-151 curve of every relay."""
    relays = inputs["relays"]
    ids = tuple(r["id"] for r in relays)
    pos = {rid: i for i, rid in enumerate(ids)}
    curve = {r["id"]: _curve(inputs, r["curve"]) for r in relays}
    m = multiples(inputs)
    a = tuple(time_factor(m["own"][rid], curve[rid]) for rid in ids)
    pairs = tuple((pos[p["backup"]], pos[p["primary"]]) for p in inputs["pairs"])
    b = tuple(time_factor(m["pair_backup"][k], curve[p["backup"]]) for k, p in enumerate(inputs["pairs"]))
    # the primary's time per unit TMS at its own near-end fault: the same fault as a_primary
    a_pair = tuple(a[pos[p["primary"]]] for p in inputs["pairs"])
    return CoordinationProblem(ids, a, pairs, b, a_pair, float(inputs["cti_s"]),
                               float(inputs["tms_min"]), float(inputs["tms_max"]))


def solve(task: Task, backend: str) -> Reference:
    from psab.solvers.coordination import solve_coordination

    p = problem(task.public_inputs)
    sol = solve_coordination(p)
    return Reference(
        answer={"tms": {rid: t for rid, t in zip(p.relay_ids, sol.tms, strict=True)}},
        objective=sol.objective_s,
        evidence={"lp_rows": sol.solver.n_constraints},
        method="coordination LP (Pyomo + HiGHS), IEC 60255-151 operating times linear in TMS",
    )


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    p = problem(task.public_inputs)
    tms = [float(answer["tms"][rid]) for rid in p.relay_ids]
    violations = algebra.check(algebra.values(tms=tms), coordination_constraints(p), ctx.tol.slack)
    times = {rid: a * t for rid, a, t in zip(p.relay_ids, p.primary_coeff_s, tms, strict=True)}
    margins = [
        {"backup": p.relay_ids[b], "primary": p.relay_ids[a],
         "t_backup_s": p.backup_coeff_s[k] * tms[b], "t_primary_s": p.pair_primary_coeff_s[k] * tms[a],
         "margin_s": p.backup_coeff_s[k] * tms[b] - p.pair_primary_coeff_s[k] * tms[a]}
        for k, (b, a) in enumerate(p.pairs)
    ]
    return Assessment(
        violations=violations,
        objective=objective_value(p, tms),
        evidence={"t_primary_near_end_s": times, "grading": margins, "cti_s": p.cti_s},
    )


# ---------------------------------------------------------------------------- held-out draws

#: Standard CT primaries (A) and plug settings (× 1 A secondary) the generator chooses from.
CT_PRIMARIES = (50, 75, 100, 150, 200, 300, 400, 600, 800, 1000, 1200, 1600)
PLUG_SETTINGS = (0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0)


def feeder_inputs(
    *,
    un_kv: float,
    s_sc_max_mva: float,
    s_sc_min_mva: float,
    section_km: list[float],
    z_per_km_ohm: complex,
    loads_mva: list[float],
    curve: str,
    cti_s: float,
    tms_range: tuple[float, float] = (0.025, 1.2),
    relay_curves: list[str] | None = None,
) -> dict[str, Any] | None:
    """A radial feeder case from its physical description, or ``None`` when no admissible
    pickups exist (a relay could not see the minimum fault at the end of its own section).

    Fault currents follow the IEC 60909 equivalent source: three-phase maximum
    ``c_max·U_n/(√3·|Z|)`` at each relay's near end; two-phase minimum ``c_min·U_n/(2·|Z|)`` at
    its far end with the minimum source. Pickups are graded from the far end: at least 1.3 ×
    the maximum load through the relay, no less than the downstream pickup, and at least the
    near-end fault / 19 so every current multiple stays in the curve's effective range (≤ 20).
    """
    n = len(section_km)
    c_max, c_min = voltage_factor(un_kv, "max"), voltage_factor(un_kv, "min")
    # The source impedance by IEC 60909-0:2016 §6.2 eq. (1), Z_Q = c·U_nQ²/S″kQ with R/X = 0.1:
    # c_max with S″kQmax, c_min with S″kQmin, so that the bolted fault at the source bus gives back
    # the stated I″kQ = S″kQ/(√3·U_nQ) (issue 33: drawn without c, near-end currents came out
    # c_max = 1.1 times the source's level)
    z_max = feeder_impedance_ohm(un_kv, s_sc_max_mva, 0.1, c_max)
    z_min = feeder_impedance_ohm(un_kv, s_sc_min_mva, 0.1, c_min)
    z_cum = [0j]
    for length in section_km:
        z_cum.append(z_cum[-1] + z_per_km_ohm * length)
    v_ph_kv = un_kv / math.sqrt(3.0)
    ik_near = [c_max * v_ph_kv / abs(z_max + z_cum[i]) for i in range(n)]
    ik_far = [ikss2_ka(c_min, un_kv, z_min + z_cum[i + 1]) for i in range(n)]
    i_load = [sum(loads_mva[i:]) * 1e3 / (math.sqrt(3.0) * un_kv) for i in range(n)]

    relays: list[dict[str, Any]] = []
    downstream_pickup = 0.0
    for i in reversed(range(n)):
        target = max(1.3 * i_load[i], downstream_pickup, ik_near[i] * 1e3 / 19.0)
        choice = None
        for ct in CT_PRIMARIES:
            if ct < i_load[i]:
                continue  # the CT must carry the maximum load continuously
            plugs = [p for p in PLUG_SETTINGS if p * ct >= target]
            if plugs:
                choice = (ct, plugs[0])
                break
        if choice is None:
            return None
        ct, plug = choice
        ip = ct * plug
        if ik_far[i] * 1e3 / ip < 1.5:
            return None  # the relay would not see its own section's far end with margin 1.5
        downstream_pickup = ip
        relays.append({
            "id": f"R{i + 1}", "bus": f"B{i + 1}", "section": f"B{i + 1}-B{i + 2}",
            "ct_primary_a": ct, "ct_secondary_a": 1, "pickup_secondary_a": plug,
            "curve": relay_curves[i] if relay_curves else curve,
            "ik_max_near_ka": round(ik_near[i], 3), "ik_min_far_ka": round(ik_far[i], 3),
            "i_load_max_a": round(i_load[i], 1),
        })
    relays.reverse()
    used = sorted(set(relay_curves)) if relay_curves else [curve]
    return {
        "feeder": f"{un_kv:g} kV radial overhead feeder, source at B1, {n} sections",
        "nominal_voltage_kv": un_kv,
        "curves": {name: {"standard": "IEC 60255-151:2009", "k_s": IEC_CURVES[name].k_s, "alpha": IEC_CURVES[name].alpha}
                   for name in used},
        "relays": relays,
        "pairs": [{"backup": f"R{i + 1}", "primary": f"R{i + 2}"} for i in range(n - 1)],
        "cti_s": cti_s,
        "tms_min": tms_range[0],
        "tms_max": tms_range[1],
    }


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the feeder: source fault level, section lengths, conductor impedance, loads,
    number of sections (4 or 5), curve type and CTI; pickups and fault currents follow.

    Level 2: a longer feeder (6–7 sections, so the chain's upstream end runs into tms_max and
    the curves' effective range), mixed curves along it — extremely inverse at the downstream
    end (grading with fuses), very inverse in the middle, standard inverse at the source — and
    a device with a narrower TMS range (0.05–1.0)."""
    if level == 2:
        return _generate_level2(public, rng)
    if level == 3:
        return _generate_level3(public, rng)
    for _ in range(50):
        n = int(rng.choice([4, 5]))
        s_max = float(rng.uniform(120.0, 350.0))
        z_km = complex(rng.uniform(0.15, 0.45), rng.uniform(0.30, 0.40))
        inputs = feeder_inputs(
            un_kv=float(rng.choice([11.0, 11.0, 22.0])),
            s_sc_max_mva=round(s_max, 1),
            s_sc_min_mva=round(s_max * float(rng.uniform(0.55, 0.85)), 1),
            section_km=[round(float(rng.uniform(1.0, 5.0)), 2) for _ in range(n)],
            z_per_km_ohm=z_km,
            loads_mva=[round(float(rng.uniform(0.4, 2.5)), 2) for _ in range(n)],
            curve=str(rng.choice(["standard_inverse", "standard_inverse", "very_inverse", "extremely_inverse"])),
            cti_s=float(rng.choice([0.25, 0.3, 0.35, 0.4])),
        )
        if inputs is not None:
            return Generated(public_inputs=inputs)
    return Generated(public_inputs=dict(public.public_inputs))


def _generate_level2(public: Task, rng: np.random.Generator) -> Generated:
    for _ in range(50):
        n = int(rng.choice([6, 7]))
        s_max = float(rng.uniform(150.0, 400.0))
        z_km = complex(rng.uniform(0.15, 0.45), rng.uniform(0.30, 0.40))
        n_ei = int(rng.integers(1, 3))
        n_si = int(rng.integers(1, 3))
        curves = ["standard_inverse"] * n_si + ["very_inverse"] * (n - n_si - n_ei) + ["extremely_inverse"] * n_ei
        inputs = feeder_inputs(
            un_kv=float(rng.choice([11.0, 22.0, 33.0])),
            s_sc_max_mva=round(s_max, 1),
            s_sc_min_mva=round(s_max * float(rng.uniform(0.55, 0.85)), 1),
            section_km=[round(float(rng.uniform(0.8, 4.0)), 2) for _ in range(n)],
            z_per_km_ohm=z_km,
            loads_mva=[round(float(rng.uniform(0.3, 2.0)), 2) for _ in range(n)],
            curve=curves[0],
            cti_s=float(rng.choice([0.25, 0.3, 0.35])),
            tms_range=(0.05, 1.0),
            relay_curves=curves,
        )
        if inputs is not None:
            return Generated(public_inputs=inputs)
    return Generated(public_inputs=dict(public.public_inputs))


def _generate_level3(public: Task, rng: np.random.Generator) -> Generated:
    """Level 3: the level-2 feeder with a tapped lateral — a spur with its own relay (extremely
    inverse, small CT) leaving bus B{k+2} — so one backup relay grades over two primaries at
    different fault currents and the lateral's load runs through every relay upstream of it."""
    for _ in range(50):
        n = int(rng.choice([6, 7]))
        s_max = float(rng.uniform(150.0, 400.0))
        s_min = round(s_max * float(rng.uniform(0.55, 0.85)), 1)
        z_km = complex(rng.uniform(0.15, 0.45), rng.uniform(0.30, 0.40))
        un_kv = float(rng.choice([11.0, 22.0, 33.0]))
        n_ei = int(rng.integers(1, 3))
        n_si = int(rng.integers(1, 3))
        curves = ["standard_inverse"] * n_si + ["very_inverse"] * (n - n_si - n_ei) + ["extremely_inverse"] * n_ei
        sections = [round(float(rng.uniform(0.8, 4.0)), 2) for _ in range(n)]
        loads = [round(float(rng.uniform(0.3, 2.0)), 2) for _ in range(n)]
        k = int(rng.integers(1, n - 2))  # the lateral leaves bus B{k+2}, behind relay R{k+1}
        lat_km = round(float(rng.uniform(0.5, 3.0)), 2)
        lat_load = round(float(rng.uniform(0.3, 1.5)), 2)
        cti = float(rng.choice([0.25, 0.3, 0.35]))
        with_lateral = list(loads)
        with_lateral[k] = round(with_lateral[k] + lat_load, 2)  # relays R1..R{k+1} carry the spur's load
        inputs = feeder_inputs(un_kv=un_kv, s_sc_max_mva=round(s_max, 1), s_sc_min_mva=s_min, section_km=sections,
                               z_per_km_ohm=z_km, loads_mva=with_lateral, curve=curves[0], cti_s=cti,
                               tms_range=(0.05, 1.0), relay_curves=curves)
        if inputs is None:
            continue
        head = inputs["relays"][k + 1]  # the relay at the spur's bus: same near-end fault
        z_min = feeder_impedance_ohm(un_kv, s_min, 0.1, voltage_factor(un_kv, "min")) + z_km * (sum(sections[: k + 1]) + lat_km)
        ik_far = ikss2_ka(voltage_factor(un_kv, "min"), un_kv, z_min)
        i_load = lat_load * 1e3 / (math.sqrt(3.0) * un_kv)
        target = max(1.3 * i_load, float(head["ik_max_near_ka"]) * 1e3 / 19.0)
        choice = next(((ct, pl) for ct in CT_PRIMARIES if ct >= i_load for pl in PLUG_SETTINGS if pl * ct >= target), None)
        if choice is None or ik_far * 1e3 / (choice[0] * choice[1]) < 1.5:
            continue
        inputs["relays"].append({
            "id": "RL1", "bus": head["bus"], "section": f"{head['bus']}-BL1", "ct_primary_a": choice[0],
            "ct_secondary_a": 1, "pickup_secondary_a": choice[1], "curve": "extremely_inverse",
            "ik_max_near_ka": head["ik_max_near_ka"], "ik_min_far_ka": round(ik_far, 3), "i_load_max_a": round(i_load, 1)})
        inputs["pairs"].append({"backup": f"R{k + 1}", "primary": "RL1"})
        inputs["curves"].setdefault("extremely_inverse", {"standard": "IEC 60255-151:2009",
                                                          "k_s": IEC_CURVES["extremely_inverse"].k_s,
                                                          "alpha": IEC_CURVES["extremely_inverse"].alpha})
        inputs["feeder"] += f", a {lat_km:g} km spur from {head['bus']}"
        return Generated(public_inputs=inputs)
    return Generated(public_inputs=dict(public.public_inputs))


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading of the grading rule: each backup graded over its primary at the
    backup's own near-end fault current (not the primary's), then the tightest chain."""
    from psab.solvers.coordination import solve_coordination

    p = problem(task.public_inputs)
    own = dict(zip(p.relay_ids, p.primary_coeff_s, strict=True))
    naive = CoordinationProblem(p.relay_ids, p.primary_coeff_s, p.pairs,
                                tuple(own[p.relay_ids[b]] for b, _ in p.pairs), p.pair_primary_coeff_s,
                                p.cti_s, p.tms_min, p.tms_max)
    try:
        tms = solve_coordination(naive).tms
    except Exception:  # noqa: BLE001 - an infeasible naive grading is answered at the range's top
        tms = [p.tms_max] * len(p.relay_ids)
    return {"tms": {rid: float(t) for rid, t in zip(p.relay_ids, tms, strict=True)}}


EXPERT = {
    "en": {"statement": (
        "Grade the non-directional phase overcurrent relays of the radial feeder in public_inputs (listed from the "
        "source outwards; primary pickup = pickup_secondary_a × CT ratio, each relay's IEC 60255-151:2009 "
        "dependent-time curve named in 'curve' with its constants in curves): choose every relay's time "
        "multiplier setting TMS, continuous within [tms_min, tms_max], so that for every backup/primary pair in "
        "pairs the backup operates at least cti_s after the primary at the primary's near-end maximum fault "
        "current ik_max_near_ka (the same current flows through every relay upstream of the fault), and the sum "
        "of the relays' operating times at their own near-end faults is least (the LP of Urdaneta et al., 1988). "
        "The case's choices: operating times are the curves' own (cti_s covers breaker time and overtravel); "
        "ik_min_far_ka and i_load_max_a describe the feeder and do not enter the grading.")},
    "ru": {"statement": (
        "Согласуйте ненаправленные максимальные токовые защиты радиальной линии из public_inputs (перечислены от "
        "источника; первичный ток срабатывания = pickup_secondary_a × коэффициент трансформации ТТ, у каждой "
        "защиты — зависимая характеристика МЭК 60255-151:2009, названная в 'curve', с постоянными из curves): "
        "выберите коэффициент времени TMS каждой защиты, непрерывный в пределах [tms_min, tms_max], так чтобы для "
        "каждой пары из pairs резервирующая защита срабатывала не менее чем на cti_s позже основной при "
        "максимальном токе КЗ в начале участка основной защиты ik_max_near_ka (тот же ток протекает через все "
        "защиты ближе к источнику), а сумма времён срабатывания защит при КЗ в начале их собственных участков была "
        "наименьшей (задача ЛП Urdaneta и др., 1988). Принято в задаче: время срабатывания — только по "
        "характеристике (cti_s учитывает время отключения выключателя и выбег); ik_min_far_ka и i_load_max_a "
        "описывают линию и в согласовании не участвуют.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged by recomputing every operating time with the IEC 60255-151 curve of each relay: each "
               "grading margin must reach cti_s within 0.1 ms and each TMS its range within 1e-6; the objective (sum "
               "of own near-end times) is scored against the LP optimum (HiGHS): 1 − gap/max(optimum, 0.1 s), ties "
               "within 0.01 %."),
        "ru": ("Проверяется пересчётом времени срабатывания каждой защиты по её характеристике МЭК 60255-151: "
               "каждая ступень селективности должна быть не меньше cti_s с точностью 0,1 мс, каждый TMS — в своём "
               "диапазоне с точностью 1e-6; целевая функция (сумма времён при КЗ в начале своих участков) "
               "сравнивается с оптимумом ЛП (HiGHS): 1 − разрыв/max(оптимум, 0,1 с), отличие до 0,01 % — совпадение."),
    },
}


def accept(task: Task, ref: Reference) -> str | None:
    """Reject draws whose grading leaves the curve's effective range or is trivial."""
    inputs = task.public_inputs
    m = multiples(inputs)
    worst = min(min(m["own"].values()), min(m["pair_backup"]))
    if worst < 1.5 or max(m["own"].values()) > 20.0:
        return f"a current multiple ({worst:.2f}) lies outside the curve's effective range"
    tms = list(ref.answer["tms"].values())
    if sum(t > float(inputs["tms_min"]) * 1.001 for t in tms) < 2:
        return "fewer than two relays are graded above tms_min: coordination is trivial"
    # the ambiguity check (issue 26.2): an optimum with every TMS at a bound of its range is
    # trivial; ties cannot occur — on a series chain each TMS is fixed by its primary's (the
    # LP's optimum is the unique tightest chain), so no tie rule is needed
    lo, hi = float(inputs["tms_min"]), float(inputs["tms_max"])
    if all(t <= lo * 1.001 or t >= hi * (1.0 - 1e-6) for t in tms):
        return "trivial optimum: every TMS at a bound of its range"
    return None


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="short_circuit_protection",
        scoring_kind="optimize",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "Horowitz & Phadke, Power System Relaying, 4th ed., Wiley, 2014",
                "locator": "ch. 4 Nonpilot overcurrent protection of transmission lines: radial systems, coordination of inverse-time overcurrent relays, coordination time interval",
                "note": "The textbook grading of series relays on a radial feeder: each backup operates one CTI after its primary at the primary's maximum (near-end) fault.",
                "confidence": "medium",
            },
            {
                "title": "IEC 60255-151:2009 Measuring relays and protection equipment – Part 151: Functional requirements for over/under current protection",
                "locator": "dependent-time characteristic t = TMS·[k/((G/G_S)^α − 1) + c] and its curve constants (A standard inverse 0.14/0.02, B very inverse 13.5/1, C extremely inverse 80/2, long-time inverse 120/1)",
                "note": "The dependent-time characteristic t = TMS·k/((G/G_S)^α − 1) used for every operating time.",
                "confidence": "high",
            },
            {
                "title": "Urdaneta, Nadira & Pérez Jiménez, Optimal coordination of directional overcurrent relays in interconnected power systems, IEEE Transactions on Power Delivery 3(3):903–911, July 1988",
                "locator": "the linear-programming formulation: time-dial settings as variables, fixed pickups, one coordination row per primary/backup pair",
                "note": "Operating times are linear in TMS for fixed currents, so the optimal settings solve an LP; on a radial feeder its optimum is the tightest chain from the downstream end.",
                "confidence": "medium",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "for every pair in public_inputs.pairs: t_backup − t_primary ≥ cti_s at the primary's near-end maximum fault current, both times by IEC 60255-151 (tolerance 1e-4 s)",
            "tms_min ≤ TMS ≤ tms_max for every relay (tolerance 1e-6)",
        ),
        metrics=(
            {"name": "t_primary_near_end_s", "direction": "minimize", "description": "each relay's operating time for its own near-end fault", "unit": "s"},
        ),
        tolerances={
            "relative": 1e-3,
            "absolute_floors": {"default": 1e-4},
            "feasibility": {"grading_s": 1e-4, "tms": 1e-6},
            "objective": {"relative": 1e-4, "absolute": 1e-6},
        },
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        validate_inputs=input_problems,
        objective_sense="minimize",
        objective_unit="s",
        objective_scale_floor=0.1,
        accept=accept,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2, 3),
        naive_answer=naive_answer,
    )
)
