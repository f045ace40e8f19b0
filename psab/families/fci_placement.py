"""fci_placement — where to install k faulted-circuit indicators on a radial feeder (optimize).

Sections with failure rates, customers, patrol times (and at level 2 lateral fuses and
indicators already installed), and a budget of k new indicators. The agent returns the sections
whose heads get the new indicators. Objective (minimised): the expected customer-minutes per
year that interrupted customers spend waiting while the crew locates faults,
``60 Σ_k λ_k · N_interrupted(k) · T_locate(k)``, with the zone and location-time model of
:mod:`psab.surrogates.feeder_reliability` (Brown 2009, faulted-circuit indicators; §5.3).
Reference: the MILP of :mod:`psab.solvers.fci_placement` (HiGHS, proven optimal); the
exhaustive search of :func:`psab.surrogates.feeder_reliability.placement_costs` checks it in
the tests and the acceptance rule.

Levels: 1 CIGRE MV feeder 1 with the substation breaker only, k = 2-3; 2 the same feeder with
lateral fuses, indicators already in place that cost nothing, failure rates per km-year plus
accessories, and k = 2-4.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.families import _feeder_cases as fc
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import feeder_reliability as fr

FAMILY_ID = "fci_placement"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 10; a placement search over the sections.
MAX_INPUT_ITEMS = 200


def _schema_guard(fn):  # type: ignore[no-untyped-def]
    from psab.families._feeder_cases import schema_guarded

    return schema_guarded(FAMILY_ID)(fn)


@_schema_guard
def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    ids = [sec["id"] for sec in inputs["sections"]]
    k = int(inputs["budget_fci"])
    return s.submission(
        {"fci_sections": s.array(
            s.enum(ids, "a section whose head gets a new indicator", ru="участок, в начале которого ставится новый индикатор"),
            f"the sections that get the new indicators (at most {k}, no repeats, none already equipped)",
            max_items=k, unique=True,
            ru=f"участки, получающие новые индикаторы (не более {k}, без повторов, кроме уже оснащённых)")},
        "faulted-circuit indicator placement", ru="размещение индикаторов короткого замыкания",
    )


INPUTS_SCHEMA = {
    "type": "object",
    "properties": {
        "substation_bus": {"type": "string"},
        "sections": fc.sections_schema(
            {"failure_rate_per_yr": {"type": "number", "minimum": 0}, "failure_rate_per_km_yr": {"type": "number", "minimum": 0},
             "accessory_failure_rate_per_yr": {"type": "number", "minimum": 0},
             "customers": {"type": "integer", "minimum": 0}, "patrol_time_h": {"type": "number", "minimum": 0},
             "fuse": {"type": "boolean"}},
            ["customers", "patrol_time_h"]),
        "budget_fci": {"type": "integer", "minimum": 1},
        "installed_fci_sections": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    },
    "required": ["substation_bus", "sections", "budget_fci"],
}


def model(inputs: dict[str, Any]) -> dict[str, Any]:
    return fc.guarded(FAMILY_ID, _model, inputs)


def _model(inputs: dict[str, Any]) -> dict[str, Any]:
    tree = fc.section_tree_of(inputs, FAMILY_ID)
    secs = inputs["sections"]
    rate = fc.section_rates(inputs, FAMILY_ID)
    installed = fc.section_mask(inputs, FAMILY_ID, "installed_fci_sections", inputs.get("installed_fci_sections", []), tree.n)
    if int(inputs["budget_fci"]) > int((~installed).sum()):
        raise InvalidTaskError(f"{FAMILY_ID}: /budget_fci: more indicators than sections without one")
    device = fr.device_of(tree, np.array([bool(sec.get("fuse", False)) for sec in secs]))
    customers = np.array([sec["customers"] for sec in secs], dtype=float)
    if (rate < 0).any() or (customers < 0).any() or any(float(sec["patrol_time_h"]) < 0 for sec in secs):
        raise InvalidTaskError(f"{FAMILY_ID}: /sections: negative failure rates, customers or patrol times")
    if int(inputs["budget_fci"]) < 1:
        raise InvalidTaskError(f"{FAMILY_ID}: /budget_fci: at least one indicator")
    return {"tree": tree, "rate": rate, "customers": customers, "device": device, "installed": installed,
            "patrol": np.array([sec["patrol_time_h"] for sec in secs], dtype=float),
            "weight": rate * (fr.interrupted(tree, device).astype(float) @ customers)}


def cost(m: dict[str, Any], chosen: list[int]) -> float:
    fci = m["installed"].copy()
    fci[chosen] = True
    return fr.location_customer_minutes(m["tree"], m["rate"], m["customers"], m["patrol"], fci, m["device"])


def solve(task: Task, backend: str) -> Reference:
    from psab.solvers.fci_placement import solve_placement

    inputs = task.public_inputs
    m = model(inputs)
    chosen, obj = solve_placement(m["tree"], m["weight"], m["patrol"], m["device"], int(inputs["budget_fci"]), m["installed"])
    ids = [sec["id"] for sec in inputs["sections"]]
    return Reference(answer={"fci_sections": [ids[c] for c in chosen]}, objective=cost(m, chosen),
                     evidence={"milp_objective": obj, "without_new_indicators": cost(m, [])},
                     method="MILP over indicator locations with zone-pair linearisation (HiGHS, proven optimal)")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    inputs = task.public_inputs
    m = model(inputs)
    ids = [sec["id"] for sec in inputs["sections"]]
    checks = ctx.checks()
    chosen = []
    listed = [ids.index(sid) for sid in answer["fci_sections"]]
    if listed != sorted(listed):
        # A set, written once: in the case's section order (so an answer has one spelling).
        checks.violate("/fci_sections", "sections listed in the order of the case's sections",
                       sorted(answer["fci_sections"], key=ids.index), answer["fci_sections"])
    for j, sid in enumerate(answer["fci_sections"]):
        i = ids.index(sid)
        if m["installed"][i]:
            checks.violate(f"/fci_sections/{j}", "a new indicator goes on a section without one", "a section not in installed_fci_sections", sid)
        elif i not in chosen:
            chosen.append(i)
    obj = cost(m, chosen)
    return Assessment(violations=checks.violations, objective=obj,
                      evidence={"location_customer_minutes_per_yr": round(obj, 6)})


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: indicators on the sections with the highest failure rates."""
    inputs = task.public_inputs
    m = model(inputs)
    ids = [sec["id"] for sec in inputs["sections"]]
    order = [int(i) for i in np.argsort(-m["rate"], kind="stable") if not m["installed"][i]]
    return {"fci_sections": sorted((ids[i] for i in order[: int(inputs["budget_fci"])]), key=ids.index)}


# ---------------------------------------------------------------------------- held-out draws

FUSE_CANDIDATES = ("S8-7", "S3-4", "S9-10", "S10-11", "S5-6")
MARGIN = 0.01  # the best placement beats every other by 1 %


def draw(rng: np.random.Generator, level: int) -> dict[str, Any]:
    secs = fc.cigre_feeder(1)
    ids = [sec["id"] for sec in secs]
    fused = set(rng.permutation(FUSE_CANDIDATES)[: int(rng.integers(1, 3))].tolist()) if level >= 2 else set()
    rows = []
    for sec in secs:
        rel = fc.draw_section_reliability(rng, sec)
        row: dict[str, Any] = {"id": sec["id"], "from_bus": sec["from_bus"], "to_bus": sec["to_bus"],
                               "length_km": sec["length_km"], "kind": sec["kind"]}
        if level >= 2:
            row["failure_rate_per_km_yr"] = round(float(rng.uniform(*fc.KIND_DATA[sec["kind"]]["rate_per_km_yr"])), 4)
            row["accessory_failure_rate_per_yr"] = round(float(rng.uniform(0.005, 0.02)), 4)
            row["fuse"] = sec["id"] in fused
        else:
            row["failure_rate_per_yr"] = rel["failure_rate_per_yr"]
        row["customers"] = fc.draw_customers(rng, sec)
        row["patrol_time_h"] = rel["patrol_time_h"]
        rows.append(row)
    inputs: dict[str, Any] = {"feeder": "CIGRE TB 575 MV network, feeder 1 (20 kV cable, from bus 1)",
                              "substation_bus": "B1", "sections": rows}
    if level >= 2:
        inputs["installed_fci_sections"] = sorted(rng.choice(ids[1:], size=int(rng.integers(1, 3)), replace=False).tolist(), key=ids.index)
        inputs["budget_fci"] = int(rng.integers(2, 5))
    else:
        inputs["budget_fci"] = int(rng.integers(2, 4))
    return inputs


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw failure rates, patrol times, customers and the budget (level 2: fuses and
    installed indicators)."""
    return Generated(public_inputs=draw(rng, level))


def accept(task: Task, reference: Reference) -> str | None:
    inputs = task.public_inputs
    m = model(inputs)
    ranked = fr.placement_costs(m["tree"], m["rate"], m["customers"], m["patrol"], m["device"], int(inputs["budget_fci"]),
                                m["installed"])
    best = ranked[0][0]
    if reference.objective is None or abs(reference.objective - best) > 1e-6 * max(1.0, best):
        return "the MILP and the exhaustive search disagree"
    if len(ranked) > 1 and ranked[1][0] < best * (1 + MARGIN):
        return "the best placement is not unique by a 1 % margin"
    return None


PRESENTATION = {
    "en": {
        "title": "Faulted-circuit indicator placement",
        "statement": (
            "The radial feeder in public_inputs is supplied from substation_bus; each section (from_bus → to_bus, away from "
            "the substation) has a failure rate (failure_rate_per_yr, or failure_rate_per_km_yr × length_km + "
            "accessory_failure_rate_per_yr), customers connected at its to_bus end, a patrol time, and optionally a fuse at "
            "its head. Choose at most budget_fci sections on whose heads to install a new faulted-circuit indicator "
            "(sections in installed_fci_sections already have one and keep it) so as to minimise the expected "
            "customer-minutes per year of fault location, Σ over sections k of λ_k · N_k · T_k · 60, where N_k is the "
            "number of customers interrupted by a fault on k (all customers downstream of the nearest fuse at or upstream "
            "of k, else of the substation breaker) and T_k (h) the location time: the crew patrols every section whose "
            "fault would show the same indicator pattern and operate the same device, so T_k is the sum of those "
            "sections' patrol times. An indicator at the head of section a registers iff the fault is on a or downstream "
            "of it. Every fault is sustained (no reclosing). List the chosen sections in the order of sections in the case."
        ),
        "answer_notes": ("Score 1 - (your cost - the optimal cost)/the optimal cost (floor 1000 customer-minutes); an "
                         "indicator on an already equipped section is infeasible."),
    },
    "ru": {
        "title": "Размещение индикаторов короткого замыкания",
        "statement": (
            "Радиальный фидер из public_inputs питается от substation_bus; у каждого участка (from_bus → to_bus, от "
            "подстанции) заданы интенсивность отказов (failure_rate_per_yr или failure_rate_per_km_yr × length_km + "
            "accessory_failure_rate_per_yr), число потребителей на его конце to_bus, время обхода и, возможно, "
            "предохранитель в начале. Выберите не более budget_fci участков, в начале которых устанавливаются новые "
            "индикаторы КЗ (участки из installed_fci_sections уже оснащены и остаются такими), так, чтобы минимизировать "
            "ожидаемые потребителе-минуты поиска повреждений в год, Σ по участкам k λ_k · N_k · T_k · 60, где N_k — "
            "число потребителей, отключаемых КЗ на k (все потребители ниже ближайшего предохранителя в начале k или "
            "выше, иначе выключателя подстанции), T_k (ч) — время поиска: бригада обходит все участки, КЗ на которых "
            "дало бы ту же картину срабатывания индикаторов и тот же сработавший аппарат, T_k — сумма их времён обхода. "
            "Индикатор в начале участка a срабатывает тогда и только тогда, когда КЗ на a или ниже. Все повреждения "
            "устойчивые (без АПВ). Перечислите выбранные участки в порядке их следования в задаче."
        ),
        "answer_notes": ("Оценка 1 − (ваши затраты − оптимальные)/оптимальные (не менее 1000 потребителе-минут); индикатор "
                         "на уже оснащённом участке — недопустимый ответ."),
        "hard_constraints": (
            "не более budget_fci новых индикаторов, без повторов, в порядке участков задачи",
            "новый индикатор — только на участке, не входящем в installed_fci_sections",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Place at most budget_fci new faulted-circuit indicators on the radial feeder in public_inputs to minimise the "
        "expected annual customer-minutes of fault location (Brown, Electric Power Distribution Reliability, 2nd ed., "
        "faulted-circuit indicators and §5.3 analytical simulation). The case's own choices: sustained faults only; "
        "fuses at marked section heads, else the substation breaker; an indicator at a section's head registers for "
        "faults in that section or downstream; the crew patrols every section indistinguishable by indicators and "
        "operated device; installed_fci_sections keep theirs.")},
    "ru": {"statement": (
        "Разместите не более budget_fci новых индикаторов КЗ на радиальном фидере из public_inputs так, чтобы "
        "минимизировать ожидаемые годовые потребителе-минуты поиска повреждений (Brown, Electric Power Distribution "
        "Reliability, 2-е изд., индикаторы КЗ и § 5.3). Выбор, сделанный в задаче: только устойчивые повреждения; "
        "предохранители в начале отмеченных участков, иначе выключатель подстанции; индикатор в начале участка "
        "срабатывает при КЗ на участке или ниже; бригада обходит все участки, не различимые по индикаторам и "
        "сработавшему аппарату; участки installed_fci_sections сохраняют свои индикаторы.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged by psab's zone model: the location cost of your placement is recomputed and compared with the MILP "
               "optimum (HiGHS, proven optimal); score 1 − gap / max(optimum, 1000 customer-minutes)."),
        "ru": ("Проверяется моделью зон psab: затраты на поиск для вашего размещения пересчитываются и сравниваются с "
               "оптимумом MILP (HiGHS, доказанный оптимум); оценка 1 − разрыв / max(оптимум, 1000 потребителе-минут)."),
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="reliability_restoration",
        scoring_kind="optimize",
        confidence="medium",
        version="1",
        provenance=(
            {"title": "R. E. Brown, Electric Power Distribution Reliability, 2nd ed., CRC Press, 2009",
             "locator": "faulted-circuit indicators (fault location time reduced to the indicated zone); §5.3 analytical "
                        "simulation; ch. 4 typical failure rates of cable and overhead lines",
             "note": "The location-time model and data ranges; the cost is the location share of customer-minutes.",
             "confidence": "medium"},
            {"title": "CIGRE TF C6.04.02, Technical Brochure 575 (2014), MV distribution network, feeder 1",
             "locator": "as shipped by pandapower.networks.create_cigre_network_mv (lines, loads)",
             "note": "Topology, section lengths and loads (customer counts).", "confidence": "high"},
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "at most budget_fci new indicators, no repeats, listed in the order of the case's sections",
            "a new indicator only on a section not in installed_fci_sections",
        ),
        metrics=(),
        tolerances={"objective": {"relative": 1e-6, "absolute": 1e-3}},
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        objective_sense="minimize",
        objective_unit="customer-min/yr",
        objective_scale_floor=1000.0,
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
    )
)
