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
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import dc_flow
from psab.surrogates.ac_power_flow import PQ, SLACK, AcNetwork, make_network

FAMILY_ID = "ybus_construction"

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    ids = [b["id"] for b in inputs["buses"]]
    n = len(ids)
    cell = s.number("per unit on the system base")
    return s.submission(
        {
            "bus_order": s.array(s.enum(ids, "a bus id"), "the bus ids in the order of the matrix rows and columns (a permutation of the case's buses)", length=n, unique=True),
            "ybus_real_pu": s.matrix(n, n, "G = Re(Y_bus), per unit, rows/columns in bus_order", cell),
            "ybus_imag_pu": s.matrix(n, n, "B = Im(Y_bus), per unit, rows/columns in bus_order", cell),
        },
        "bus admittance matrix",
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
            "bus_order."
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
            "порядке bus_order."
        ),
        "answer_notes": "Каждый элемент должен совпасть с точностью 0,1 % или 1e-4 о.е. (что больше).",
        "hard_constraints": (
            "каждый элемент Re(Y_bus) и Im(Y_bus) совпадает с пересчётом по П-образным схемам замещения ветвей в пределах max(0,1 %, 1e-4 о.е.)",
            "bus_order — перестановка идентификаторов узлов схемы, матрицы квадратные и упорядочены в этом порядке",
        ),
    },
}

# ---------------------------------------------------------------------------- physics


def network(inputs: dict[str, Any]) -> AcNetwork:
    """The case as an :class:`AcNetwork`, buses in the case's order: the first bus is the slack
    and the others PQ with no load or generation. Y_bus does not depend on the bus types; a
    slack is there only because pandapower builds its Y_bus while running a power flow."""
    buses, br = inputs["buses"], inputs["branches"]
    pos = {b["id"]: i for i, b in enumerate(buses)}
    return make_network(
        base_mva=float(inputs["base_mva"]),
        bus_type=[SLACK] + [PQ] * (len(buses) - 1),
        from_idx=[pos[b["from_bus"]] for b in br],
        to_idx=[pos[b["to_bus"]] for b in br],
        r_pu=[b["r_pu"] for b in br],
        x_pu=[b["x_pu"] for b in br],
        b_pu=[b.get("b_pu", 0.0) for b in br],
        tap_ratio=[b.get("tap_ratio", 1.0) for b in br],
        phase_shift_deg=[b.get("phase_shift_deg", 0.0) for b in br],
        shunt_g_pu=[b.get("shunt_g_pu", 0.0) for b in buses],
        shunt_b_pu=[b.get("shunt_b_pu", 0.0) for b in buses],
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


def generate(public: Task, rng: np.random.Generator) -> Generated:
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
                "note": "The textbook π-model stamp of lines and off-nominal/phase-shifting transformers, applied directly to a 6-bus case.",
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
    )
)
