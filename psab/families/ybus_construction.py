"""ybus_construction — build the bus admittance matrix of a small network (exact).

Given buses (with shunts) and π-model branches (series r, x, total charging b, off-nominal
tap ratio and phase shift on the from side), the agent returns the complex bus admittance
matrix as real and imaginary parts, with the bus order it used. The evaluator recomputes the
matrix — by the textbook stamp (surrogate) or by reading pandapower's own Ybus after an AC
power flow (pandapower) — and compares every entry with the shared tolerance helper.

Source: Glover, Overbye & Sarma, *Power System Analysis and Design*, 6th ed. (2017), §6.4
(Y-bus, Example 6.9) and §6.7 (regulating transformers); the tap convention of the MATPOWER
User's Manual, §3.2, eq. (3.2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task, digest
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import dc_flow
from psab.surrogates.ac_power_flow import PQ, SLACK, AcNetwork, make_network

FAMILY_ID = "ybus_construction"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 80.
MAX_INPUT_ITEMS = 1000

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    ids = [b["id"] for b in inputs["buses"]]
    n = len(ids)
    cell = s.number("per unit on the system base", ru="о.е. на базисной мощности системы")
    return s.submission(
        {
            "bus_order": s.array(s.enum(ids, "a bus id", ru="идентификатор узла"),
                                 "the bus ids in the order of the matrix rows and columns (a permutation of the case's buses)",
                                 length=n, unique=True,
                                 ru="идентификаторы узлов в порядке строк и столбцов матрицы (перестановка узлов схемы)"),
            "ybus_real_pu": s.matrix(n, n, "G = Re(Y_bus), per unit, rows/columns in bus_order", cell,
                                     ru="G = Re(Y_bus), о.е., строки и столбцы в порядке bus_order"),
            "ybus_imag_pu": s.matrix(n, n, "B = Im(Y_bus), per unit, rows/columns in bus_order", cell,
                                     ru="B = Im(Y_bus), о.е., строки и столбцы в порядке bus_order"),
        },
        "bus admittance matrix", ru="матрица узловых проводимостей",
    )


PRESENTATION = {
    "en": {
        "title": "Bus admittance matrix construction",
        "statement": (
            "Build the complex bus admittance matrix Y_bus (per unit on base_mva) of the network in "
            "public_inputs. Each branch is a π model: series impedance r_pu + j·x_pu, total line charging "
            "b_pu split equally between its two ends, and an ideal transformer of complex ratio "
            "t = tap_ratio·exp(j·phase_shift_deg) on the from_bus side (tap_ratio 1 and shift 0 for a plain "
            "line). A bus shunt shunt_g_pu + j·shunt_b_pu adds to its diagonal entry. Parallel branches "
            "add. Report the real and imaginary parts as square matrices whose rows and columns follow "
            "bus_order. Data may come as an engineer receives it (larger cases): a line may be given by r_ohm, x_ohm "
            "(series, Ω) and b_us (total charging, µS) instead of per-unit values — per unit on the base impedance "
            "vn_kv(from_bus)²/base_mva; a transformer may be given by vk_percent, vkr_percent (short-circuit "
            "voltage and its resistive part, % on its own rating sn_mva, rated voltages equal to its buses' vn_kv) "
            "instead of r_pu, x_pu — r = vkr/100·base_mva/sn_mva, |z| = vk/100·base_mva/sn_mva, x = √(|z|² − r²); "
            "a bus shunt may be given by shunt_p_mw + j·shunt_q_mvar (consumed at 1 pu voltage; a capacitor has "
            "negative shunt_q_mvar) instead of shunt_g_pu + j·shunt_b_pu — g = shunt_p_mw/base_mva, b = "
            "−shunt_q_mvar/base_mva. Tap ratio and phase shift are always on the from_bus side, as in "
            "t above."
        ),
        "answer_notes": "Every entry must match within 0.1 % or 1e-4 pu, whichever is larger.",
    },
    "ru": {
        "title": "Формирование матрицы узловых проводимостей",
        "statement": (
            "Сформируйте комплексную матрицу узловых проводимостей Y_bus (о.е. на базе base_mva) сети из "
            "public_inputs. Каждая ветвь — П-образная схема замещения: продольное сопротивление "
            "r_pu + j·x_pu, полная ёмкостная проводимость b_pu, поровну разделённая между концами, и "
            "идеальный трансформатор с комплексным коэффициентом t = tap_ratio·exp(j·phase_shift_deg) со "
            "стороны узла from_bus (для линии tap_ratio = 1, сдвиг 0). Шунт узла shunt_g_pu + j·shunt_b_pu "
            "добавляется к диагональному элементу. Параллельные ветви складываются. Укажите "
            "действительную и мнимую части квадратными матрицами, строки и столбцы которых идут в "
            "порядке bus_order. В больших схемах данные могут быть заданы так, как их получает инженер: линия — "
            "параметрами r_ohm, x_ohm (продольное сопротивление, Ом) и b_us (полная ёмкостная проводимость, мкСм) "
            "вместо величин в о.е. — базисное сопротивление vn_kv(from_bus)²/base_mva; трансформатор — "
            "напряжением короткого замыкания vk_percent и его активной составляющей vkr_percent (% на собственной "
            "номинальной мощности sn_mva, номинальные напряжения равны vn_kv его узлов) вместо r_pu, x_pu — "
            "r = vkr/100·base_mva/sn_mva, |z| = vk/100·base_mva/sn_mva, x = √(|z|² − r²); шунт узла — "
            "мощностью shunt_p_mw + j·shunt_q_mvar (потребляемой при напряжении 1 о.е.; у батареи конденсаторов "
            "shunt_q_mvar отрицательна) вместо shunt_g_pu + j·shunt_b_pu — g = shunt_p_mw/base_mva, "
            "b = −shunt_q_mvar/base_mva. Коэффициент трансформации и фазовый сдвиг всегда относятся к стороне "
            "from_bus, как t выше."
        ),
        "answer_notes": "Каждый элемент должен совпасть с точностью 0,1 % или 1e-4 о.е. (что больше).",
        "hard_constraints": (
            "каждый элемент Re(Y_bus) и Im(Y_bus) совпадает с пересчётом по П-образным схемам замещения ветвей в пределах max(0,1 %, 1e-4 о.е.)",
            "bus_order — перестановка идентификаторов узлов схемы, матрицы квадратные и упорядочены в этом порядке",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Form the bus admittance matrix Y_bus of the network in public_inputs, per unit on base_mva, as in Glover, "
        "Overbye & Sarma, Power System Analysis and Design, 6th ed., §6.4 and §6.7, with the MATPOWER branch model "
        "(User's Manual §3.2): lines and transformers as π models with their charging split between the ends, the "
        "off-nominal tap ratio and phase shift on the from_bus side, bus shunts on the diagonal. Where the case "
        "gives ohms, microsiemens, percent on a transformer's own rating or shunt powers in MW/Mvar, refer them to "
        "base_mva and the buses' vn_kv (a capacitor has negative shunt_q_mvar). Report Re and Im of Y_bus in your "
        "bus_order."
    )},
    "ru": {"statement": (
        "Сформируйте матрицу узловых проводимостей Y_bus сети из public_inputs в о.е. на базисной мощности "
        "base_mva по Glover, Overbye & Sarma, Power System Analysis and Design, 6-е изд., §6.4 и §6.7, с моделью "
        "ветви MATPOWER (руководство пользователя, §3.2): линии и трансформаторы — П-образные схемы замещения с "
        "ёмкостной проводимостью, разделённой между концами, коэффициент трансформации и фазовый сдвиг — со "
        "стороны from_bus, шунты узлов — в диагональных элементах. Если параметры заданы в омах, микросименсах, "
        "процентах на собственной мощности трансформатора или мощностью шунта в МВт/Мвар, приведите их к "
        "base_mva и номинальным напряжениям узлов vn_kv (у батареи конденсаторов shunt_q_mvar отрицательна). "
        "Укажите Re и Im матрицы Y_bus в выбранном вами порядке bus_order."
    )},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged against psab's π-model stamp of the stated conventions (numpy): every entry of G and B, brought into "
              "your bus_order, must match within max(0.1 %, 1e-4 pu).",
        "ru": "Проверяется по формированию матрицы из П-образных схем замещения по указанным соглашениям (numpy): каждый "
              "элемент G и B, приведённый к вашему порядку bus_order, должен совпасть с точностью max(0,1 %, 1e-4 о.е.).",
    },
    "pandapower": {
        "en": "Judged against the Y_bus pandapower itself assembles for the same network (lines and transformers built from "
              "the stated data, read from its internal matrix after a Newton-Raphson power flow and mapped back to the "
              "case's buses): every entry, brought into your bus_order, must match within max(0.1 %, 1e-4 pu). It equals "
              "the π-model stamp of the statement.",
        "ru": "Проверяется по матрице Y_bus, которую формирует сам pandapower для той же сети (линии и трансформаторы по "
              "заданным данным; матрица считывается после расчёта режима методом Ньютона–Рафсона и приводится к узлам "
              "схемы): каждый элемент в вашем порядке bus_order должен совпасть с точностью max(0,1 %, 1e-4 о.е.). Она "
              "совпадает с матрицей из П-образных схем замещения по условию.",
    },
}
#: The shape of public_inputs (a task that does not fit raises InvalidTaskError). A branch is
#: given per unit (r_pu, x_pu), in ohms (r_ohm, x_ohm, b_us) or in percent on its own rating
#: (vk_percent, vkr_percent, sn_mva); a bus shunt per unit or as powers (:func:`branch_pu`,
#: :func:`shunt_pu`). Absent charging, tap, shift and shunts are 0, 1, 0 and 0.
INPUTS_SCHEMA = s.obj({
    "base_mva": s.POSITIVE, "frequency_hz": s.POSITIVE,
    "buses": s.array(s.obj({"id": s.ID, "vn_kv": s.POSITIVE, "shunt_g_pu": s.NUMBER, "shunt_b_pu": s.NUMBER,
                            "shunt_p_mw": s.NUMBER, "shunt_q_mvar": s.NUMBER},
                           optional=("shunt_g_pu", "shunt_b_pu", "shunt_p_mw", "shunt_q_mvar")), "buses", min_items=2),
    "branches": s.array(s.obj({"id": s.ID, "from_bus": s.ID, "to_bus": s.ID, "r_pu": s.NUMBER, "x_pu": s.NUMBER,
                               "r_ohm": s.NONNEGATIVE, "x_ohm": s.NUMBER, "b_us": s.NUMBER,
                               "vk_percent": s.POSITIVE, "vkr_percent": s.NONNEGATIVE, "sn_mva": s.POSITIVE,
                               "b_pu": s.NUMBER, "tap_ratio": s.POSITIVE, "phase_shift_deg": s.NUMBER},
                              optional=("r_pu", "x_pu", "r_ohm", "x_ohm", "b_us", "vk_percent", "vkr_percent", "sn_mva",
                                        "b_pu", "tap_ratio", "phase_shift_deg"))
                        | {"anyOf": [{"required": ["r_pu", "x_pu"]}, {"required": ["r_ohm", "x_ohm"]},
                                     {"required": ["vk_percent", "vkr_percent", "sn_mva"]}]},
                        "branches", min_items=1),
}, optional=("frequency_hz",))


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """Ids unique, branch ends on known buses, non-zero series impedances, one connected
    network (pandapower assembles Y_bus only while running a power flow on it)."""
    p = ic.Problems()
    ic.bus_branch_problems(p, inputs)
    for k, br in enumerate(inputs["branches"]):
        if "r_ohm" in br and br["r_ohm"] == 0 and br["x_ohm"] == 0:
            p.add(ic.pointer("branches", k, "x_ohm"), "a branch needs a non-zero series impedance")
        if "vk_percent" in br:
            p.ordered(ic.pointer("branches", k, "vk_percent"), br["vkr_percent"], br["vk_percent"], "vkr_percent", strict=True)
    return p


# ---------------------------------------------------------------------------- physics


def branch_pu(inputs: dict[str, Any], br: dict[str, Any]) -> tuple[float, float, float]:
    """(r, x, b) of a branch per unit on base_mva, from whichever form the case gives: per unit
    (``r_pu``, ``x_pu``, ``b_pu``), a line in ohms and microsiemens on the from bus's nominal voltage
    (``r_ohm``, ``x_ohm``, ``b_us``), or a transformer by ``vk_percent``/``vkr_percent`` on its own
    ``sn_mva`` (rated voltages equal to its buses' vn_kv, so only the power base changes)."""
    base = float(inputs["base_mva"])
    if "r_ohm" in br:
        kv = next(float(b["vn_kv"]) for b in inputs["buses"] if b["id"] == br["from_bus"])
        z_base = kv * kv / base
        return float(br["r_ohm"]) / z_base, float(br["x_ohm"]) / z_base, float(br.get("b_us", 0.0)) * 1e-6 * z_base
    if "vk_percent" in br:
        scale = base / float(br["sn_mva"])
        r = float(br["vkr_percent"]) / 100.0 * scale
        z = float(br["vk_percent"]) / 100.0 * scale
        return r, float(np.sqrt(max(z * z - r * r, 0.0))), float(br.get("b_pu", 0.0))
    return float(br["r_pu"]), float(br["x_pu"]), float(br.get("b_pu", 0.0))


def shunt_pu(inputs: dict[str, Any], bus: dict[str, Any]) -> tuple[float, float]:
    """(g, b) of a bus shunt per unit: ``shunt_p_mw``/``shunt_q_mvar`` are the powers the shunt
    consumes at 1 pu voltage (a capacitor consumes negative Mvar, so b = −Q/base)."""
    if "shunt_q_mvar" in bus or "shunt_p_mw" in bus:
        base = float(inputs["base_mva"])
        return float(bus.get("shunt_p_mw", 0.0)) / base, -float(bus.get("shunt_q_mvar", 0.0)) / base
    return float(bus.get("shunt_g_pu", 0.0)), float(bus.get("shunt_b_pu", 0.0))


def network(inputs: dict[str, Any]) -> AcNetwork:
    """The case as an :class:`AcNetwork`, buses in the case's order: the first bus is the slack
    and the others PQ with no load or generation. Y_bus does not depend on the bus types; a
    slack is there only because pandapower builds its Y_bus while running a power flow."""
    buses, br = inputs["buses"], inputs["branches"]
    pos = {b["id"]: i for i, b in enumerate(buses)}
    zs = [branch_pu(inputs, b) for b in br]
    ys = [shunt_pu(inputs, b) for b in buses]
    return make_network(
        base_mva=float(inputs["base_mva"]),
        bus_type=[SLACK] + [PQ] * (len(buses) - 1),
        from_idx=[pos[b["from_bus"]] for b in br],
        to_idx=[pos[b["to_bus"]] for b in br],
        r_pu=[z[0] for z in zs],
        x_pu=[z[1] for z in zs],
        b_pu=[z[2] for z in zs],
        tap_ratio=[b.get("tap_ratio", 1.0) for b in br],
        phase_shift_deg=[b.get("phase_shift_deg", 0.0) for b in br],
        shunt_g_pu=[y[0] for y in ys],
        shunt_b_pu=[y[1] for y in ys],
        vn_kv=[b["vn_kv"] for b in buses],
    )


def ybus_surrogate(inputs: dict[str, Any]) -> np.ndarray:
    """Y_bus by the π-model stamp, rows in the case's bus order."""
    return network(inputs).ybus()


def ybus_pandapower(inputs: dict[str, Any]) -> np.ndarray:
    """Y_bus as pandapower builds it for the same network, rows in the case's bus order.

    The net is built once per case (:func:`psab.backends.pandapower_pf.prepared_net`); the
    power flow that makes pandapower assemble its Y_bus only writes result tables, so the
    prepared net is used without a copy, under its lock.
    """
    from psab.backends import pandapower_net as ppn
    from psab.backends.pandapower_pf import prepared_net

    prepared = prepared_net((FAMILY_ID, digest(inputs)), network(inputs), f_hz=float(inputs.get("frequency_hz", 50.0)))
    with prepared.lock:
        return ppn.ybus(prepared.net)


def solve(task: Task, backend: str) -> Reference:
    inputs = task.public_inputs
    Y = ybus_pandapower(inputs) if backend == "pandapower" else ybus_surrogate(inputs)
    method = "pandapower's Ybus after runpp" if backend == "pandapower" else "π-model stamp (Glover §6.4, §6.7)"
    return Reference(
        answer={
            "bus_order": [b["id"] for b in inputs["buses"]],
            "ybus_real_pu": Y.real.tolist(),
            "ybus_imag_pu": Y.imag.tolist(),
        },
        method=method,
    )


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer
    # The answer's rows and columns follow its own bus_order: bring the reference into it.
    pos = {bus: i for i, bus in enumerate(ref["bus_order"])}
    perm = np.array([pos[bus] for bus in answer["bus_order"]])
    n = len(perm)
    checks = ctx.checks()
    for name, what in (("ybus_real_pu", "conductance G_ij"), ("ybus_imag_pu", "susceptance B_ij")):
        expected = np.asarray(ref[name])[np.ix_(perm, perm)]
        pointers = [f"/{name}/{i}/{j}" for i in range(n) for j in range(n)]
        checks.close_all(pointers, expected, answer[name], what)
    return Assessment(violations=checks.violations, evidence={"comparisons": checks.records})


# ---------------------------------------------------------------------------- held-out draws


#: Nominal voltages given to the IEEE 14-bus case (pandapower labels its 33-kV-class buses 0.208 kV).
CASE14_KV = {135.0: 132.0, 14.0: 33.0, 12.0: 11.0, 0.208: 33.0}


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Level 1: the public 6-bus case redrawn (:func:`generate_small`). Level 2: the IEEE 14-bus
    system (MATPOWER case14: off-nominal transformers, a bus capacitor, one transformer made a
    phase shifter), per unit. Level 3: the IEEE 57-bus system as an engineer receives it — lines in
    ohms and microsiemens, transformers by vk/vkr % on their own rating, shunts in Mvar."""
    if level == 1:
        return generate_small(public, rng)
    return generate_matpower(public, rng, "case14" if level == 2 else "case57", engineering_units=level >= 3)


def generate_matpower(public: Task, rng: np.random.Generator, name: str, engineering_units: bool) -> Generated:
    """A MATPOWER case with impedances redrawn ±15 %, transformer taps on a ±8 × 1.25 % tap
    changer, one transformer turned phase shifter (2-12°), shunts ±30 %, and sometimes a
    meshed line dropped."""
    from psab.surrogates.matpower_cases import CASES

    case = CASES[name]
    base = float(case["base_mva"])
    kv = {n: (CASE14_KV.get(v, v) if name == "case14" else v) for n, _, _, _, _, _, v, _ in case["buses"]}
    buses = []
    for n, _t, _pd, _qd, gs, bs, _v, _vm in case["buses"]:
        bus: dict[str, Any] = {"id": f"B{n}", "vn_kv": kv[n]}
        g, b = gs * float(rng.uniform(0.7, 1.3)) if gs else 0.0, bs * float(rng.uniform(0.7, 1.3)) if bs else 0.0
        if engineering_units:
            bus.update(shunt_p_mw=round(g, 3), shunt_q_mvar=round(-b, 3) + 0.0)
        else:
            bus.update(shunt_g_pu=round(g / base, 5), shunt_b_pu=round(b / base, 5))
        buses.append(bus)
    branches: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    transformers = [k for k, (f, to, _r, _x, _b, tap, sh, _ra) in enumerate(case["branches"]) if tap != 1.0 or sh or kv[f] != kv[to]]
    shifter = int(transformers[int(rng.integers(len(transformers)))])
    for k, (f, to, r, x, bc, tap, _sh, _ra) in enumerate(case["branches"]):
        is_trafo = k in transformers
        name_k = f"{'T' if is_trafo else 'L'}{f}-{to}"
        seen[name_k] = seen.get(name_k, 0) + 1
        br: dict[str, Any] = {"id": name_k if seen[name_k] == 1 else f"{name_k}/{seen[name_k]}", "from_bus": f"B{f}", "to_bus": f"B{to}"}
        fz = float(rng.uniform(0.85, 1.15))
        r, x, bc = r * fz, x * fz, bc * float(rng.uniform(0.85, 1.15))
        if is_trafo:
            step = int(rng.integers(-8, 9))
            br["tap_ratio"] = round(1.0 + 0.0125 * step, 4) if tap != 1.0 else 1.0
            br["phase_shift_deg"] = round(float(rng.choice([-1.0, 1.0]) * rng.uniform(2.0, 12.0)), 2) if k == shifter else 0.0
            if br["tap_ratio"] == 1.0 and br["phase_shift_deg"] == 0.0 and kv[f] == kv[to]:
                br["tap_ratio"] = 1.0125  # keep it a transformer in every backend
            if engineering_units:
                z = float(np.hypot(r, x))
                sn = round(base * float(rng.uniform(0.08, 0.16)) / z, 1)
                br.update(sn_mva=sn, vk_percent=round(z * sn / base * 100.0, 4), vkr_percent=round(r * sn / base * 100.0, 4))
                if bc:
                    br["b_pu"] = round(bc, 5)
            else:
                br.update(r_pu=round(r, 5), x_pu=round(x, 5), b_pu=round(bc, 5))
        else:
            br.update(tap_ratio=1.0, phase_shift_deg=0.0)
            if engineering_units:
                z_base = kv[f] ** 2 / base
                br.update(r_ohm=float(f"{r * z_base:.5g}"), x_ohm=float(f"{x * z_base:.5g}"), b_us=float(f"{bc / z_base * 1e6:.5g}"))
            else:
                br.update(r_pu=round(r, 5), x_pu=round(x, 5), b_pu=round(bc, 5))
        branches.append(br)
    if rng.uniform() < 0.5:
        ids = [b["id"] for b in buses]
        pos = {b: i for i, b in enumerate(ids)}
        froms, tos = [pos[b["from_bus"]] for b in branches], [pos[b["to_bus"]] for b in branches]
        lines = [i for i, b in enumerate(branches) if b["id"].startswith("L")]
        for i in rng.permutation(lines):
            if len(set(dc_flow.components(len(ids), froms, tos, [j != i for j in range(len(branches))]))) == 1:
                del branches[int(i)]
                break
    return Generated(public_inputs={"base_mva": base, "frequency_hz": float(public.public_inputs.get("frequency_hz", 50.0)),
                                    "buses": buses, "branches": branches})


def generate_small(public: Task, rng: np.random.Generator) -> Generated:
    """Redraw impedances, charging, taps, shifts and shunts; change topology among connected
    variants (drop a line that is not a bridge, or add a line between same-voltage buses)."""
    inputs = public.public_inputs
    buses = [dict(b) for b in inputs["buses"]]
    branches = [dict(b) for b in inputs["branches"]]
    for br in branches:
        br["r_pu"] = round(br["r_pu"] * rng.uniform(0.75, 1.3), 5)
        br["x_pu"] = round(br["x_pu"] * rng.uniform(0.75, 1.3), 5)
        if br.get("b_pu", 0.0):
            br["b_pu"] = round(br["b_pu"] * rng.uniform(0.7, 1.3), 5)
        if br.get("tap_ratio", 1.0) != 1.0:
            br["tap_ratio"] = round(rng.uniform(0.92, 1.08), 4)
        if br.get("phase_shift_deg", 0.0) != 0.0:
            br["phase_shift_deg"] = round(rng.uniform(-10.0, 10.0), 2) or 1.0
    for bus in buses:
        for k in ("shunt_g_pu", "shunt_b_pu"):
            if bus.get(k, 0.0):
                bus[k] = round(bus[k] * rng.uniform(0.6, 1.4), 5)

    ids = [b["id"] for b in buses]
    pos = {b: i for i, b in enumerate(ids)}
    kv = {b["id"]: b["vn_kv"] for b in buses}
    edges = [(pos[b["from_bus"]], pos[b["to_bus"]]) for b in branches]
    move = rng.uniform()
    if move < 0.4:
        lines = [i for i, b in enumerate(branches) if b.get("tap_ratio", 1.0) == 1.0 and b.get("phase_shift_deg", 0.0) == 0.0]
        froms, tos = [a for a, _ in edges], [b for _, b in edges]
        for i in rng.permutation(lines):
            others = [j != i for j in range(len(edges))]
            if len(set(dc_flow.components(len(ids), froms, tos, others))) == 1:
                del branches[int(i)]
                break
    elif move < 0.75:
        linked = {frozenset(e) for e in edges}
        pairs = [(a, b) for a in ids for b in ids if a < b and kv[a] == kv[b] and frozenset((pos[a], pos[b])) not in linked]
        if pairs:
            a, b = pairs[int(rng.integers(len(pairs)))]
            x = round(float(rng.uniform(0.05, 0.25)), 5)
            branches.append({
                "id": f"L{a[1:]}-{b[1:]}n", "from_bus": a, "to_bus": b,
                "r_pu": round(x * float(rng.uniform(0.2, 0.4)), 5), "x_pu": x,
                "b_pu": round(x * float(rng.uniform(0.1, 0.3)), 5), "tap_ratio": 1.0, "phase_shift_deg": 0.0,
            })
    out = dict(inputs)
    out["buses"] = buses
    out["branches"] = branches
    return Generated(public_inputs=out)


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: every branch stamped as a plain π line — off-nominal taps and phase
    shifts ignored (t = 1)."""
    inputs = dict(task.public_inputs)
    inputs["branches"] = [{**b, "tap_ratio": 1.0, "phase_shift_deg": 0.0} for b in inputs["branches"]]
    Y = network(inputs).ybus()
    return {"bus_order": [b["id"] for b in inputs["buses"]], "ybus_real_pu": Y.real.tolist(), "ybus_imag_pu": Y.imag.tolist()}


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="network",
        scoring_kind="exact",
        confidence="high",
        version="1",
        provenance=(
            {
                "title": "Glover, Overbye & Sarma, Power System Analysis and Design, 6th ed., Cengage, 2017",
                "locator": "§6.4 bus admittance matrix (Example 6.9); §6.7 regulating transformers in Y_bus",
                "note": "The textbook π-model stamp of lines and off-nominal/phase-shifting transformers, applied directly to the case's "
                        "network: the public 6-bus case and its level-1 redraws, the IEEE 14-bus (level 2) and 57-bus (level 3) "
                        "systems of MATPOWER with their impedances and taps redrawn.",
                "confidence": "high",
            },
            {
                "title": "Zimmerman & Murillo-Sánchez, MATPOWER User's Manual",
                "locator": "§3.2 Branches, eq. (3.2)-(3.3)",
                "note": "Fixes the convention: tap and phase shift on the from side, charging split jb/2 at both ends.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "every entry of Re(Y_bus) and Im(Y_bus) matches the π-model recomputation within max(0.1 %, 1e-4 pu)",
            "bus_order is a permutation of the case's bus ids and the matrices are square in that order",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {"default": 1e-4}},
        presentation=PRESENTATION,
        backends=("surrogate", "pandapower"),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2, 3),
        naive_answer=naive_answer,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        validate_inputs=input_problems,
    )
)
