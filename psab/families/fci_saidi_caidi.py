"""fci_saidi_caidi — SAIFI, SAIDI and CAIDI of a radial feeder before and after faulted-circuit
indicators (exact).

A radial feeder of sections (each with its failure rate, customers, patrol and repair time),
the switching time, optionally lateral fuses and a normally-open tie to a neighbouring feeder,
and the sections that carry a faulted-circuit indicator (FCI) at their head. The agent returns
the expected annual SAIFI, SAIDI and CAIDI without any indicator and with the listed ones. The
evaluator recomputes them by the analytical simulation of :mod:`psab.surrogates.feeder_reliability`
(Brown 2009 §5.3; IEEE 1366-2022 eqs. (1)-(3)) under the restoration sequence the statement fixes.

Conventions fixed by the case (and said in its words): every fault is a sustained interruption
(no reclosing); a fault is cleared by the nearest fuse upstream (the section's own included),
else by the substation breaker; the crew patrols every section the indicators and the operated
device cannot tell apart (the whole protection region without indicators); each section has a
switch at its head; isolation plus re-closing (and closing the tie) takes one switching time; the
tie can carry any load it picks up.

Levels: 1 CIGRE MV feeder 1 (ten 20 kV cable sections) with the substation breaker only; 2 the
same feeder with lateral fuses, the normally-open tie S1 to feeder 2 at bus 8 (CIGRE's own
switch), and the reliability data as an engineer receives it (failure rates per km-year by
cable type, plus per-section accessory rates).
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

FAMILY_ID = "fci_saidi_caidi"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 10.
MAX_INPUT_ITEMS = 500


def _schema_guard(fn):  # type: ignore[no-untyped-def]
    from psab.families._feeder_cases import schema_guarded

    return schema_guarded(FAMILY_ID)(fn)

#: Answer fields: (name, what, Russian, absolute floor).
FIELDS = (
    ("saifi_before_per_yr", "SAIFI without indicators (interruptions per customer per year)",
     "SAIFI без индикаторов (отключений на потребителя в год)", 1e-4),
    ("saidi_before_min_per_yr", "SAIDI without indicators (minutes per customer per year)",
     "SAIDI без индикаторов (минут на потребителя в год)", 0.01),
    ("caidi_before_min", "CAIDI without indicators (minutes per interruption)",
     "CAIDI без индикаторов (минут на отключение)", 0.01),
    ("saifi_after_per_yr", "SAIFI with the indicators of fci_sections (interruptions per customer per year)",
     "SAIFI с индикаторами из fci_sections (отключений на потребителя в год)", 1e-4),
    ("saidi_after_min_per_yr", "SAIDI with the indicators (minutes per customer per year)",
     "SAIDI с индикаторами (минут на потребителя в год)", 0.01),
    ("caidi_after_min", "CAIDI with the indicators (minutes per interruption)",
     "CAIDI с индикаторами (минут на отключение)", 0.01),
)


@_schema_guard
def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    return s.submission(
        {name: s.number(what, minimum=0, ru=ru) for name, what, ru, _ in FIELDS},
        "reliability indices before and after faulted-circuit indicators",
        ru="показатели надёжности до и после установки индикаторов КЗ",
    )


INPUTS_SCHEMA = {
    "type": "object",
    "properties": {
        "substation_bus": {"type": "string"},
        "sections": fc.sections_schema(
            {"failure_rate_per_yr": {"type": "number", "minimum": 0}, "failure_rate_per_km_yr": {"type": "number", "minimum": 0},
             "accessory_failure_rate_per_yr": {"type": "number", "minimum": 0},
             "customers": {"type": "integer", "minimum": 0}, "patrol_time_h": {"type": "number", "minimum": 0},
             "repair_time_h": {"type": "number", "minimum": 0}, "fuse": {"type": "boolean"}},
            ["customers", "patrol_time_h", "repair_time_h"]),
        "switching_time_h": {"type": "number", "minimum": 0},
        "fci_sections": {"type": "array", "items": {"type": "string"}},
        "tie_bus": {"type": ["string", "null"]},
    },
    "required": ["substation_bus", "sections", "switching_time_h", "fci_sections"],
}


def model(inputs: dict[str, Any]) -> dict[str, Any]:
    """Arrays of the case, checked; a case that cannot be posed raises InvalidTaskError."""
    return fc.guarded(FAMILY_ID, _model, inputs)


def _model(inputs: dict[str, Any]) -> dict[str, Any]:
    tree = fc.section_tree_of(inputs, FAMILY_ID)
    secs = inputs["sections"]
    rate = fc.section_rates(inputs, FAMILY_ID)
    fci = fc.section_mask(inputs, FAMILY_ID, "fci_sections", inputs["fci_sections"], tree.n)
    customers = np.array([sec["customers"] for sec in secs], dtype=float)
    for name in ("patrol_time_h", "repair_time_h"):
        if any(float(sec[name]) < 0 for sec in secs):
            raise InvalidTaskError(f"{FAMILY_ID}: /sections: a negative {name}")
    if float(inputs["switching_time_h"]) < 0 or (customers < 0).any() or (rate < 0).any():
        raise InvalidTaskError(f"{FAMILY_ID}: /sections: negative times, customers or failure rates")
    if customers.sum() <= 0:
        raise InvalidTaskError(f"{FAMILY_ID}: /sections: the feeder serves no customers")
    tie = inputs.get("tie_bus")
    tie_section = None
    if tie is not None:
        if tie not in tree.to_bus:
            raise InvalidTaskError(f"{FAMILY_ID}: /tie_bus: {tie!r} is not a bus fed by a section")
        tie_section = tree.to_bus.index(tie)
    device = fr.device_of(tree, np.array([bool(sec.get("fuse", False)) for sec in secs]))
    return {"tree": tree, "rate": rate, "customers": customers,
            "patrol": np.array([sec["patrol_time_h"] for sec in secs], dtype=float),
            "repair": np.array([sec["repair_time_h"] for sec in secs], dtype=float),
            "switching": float(inputs["switching_time_h"]), "fci": fci, "device": device, "tie": tie_section}


def quantities(inputs: dict[str, Any], *, naive: bool = False, repair_origin: str = "location") -> dict[str, float]:
    """The six indices; ``repair_origin`` is when the faulted section's repair time starts
    (:data:`psab.surrogates.feeder_reliability.REPAIR_ORIGINS`; the statement fixes "location")."""
    m = model(inputs)
    out: dict[str, float] = {}
    for tag, fci in (("before", np.zeros_like(m["fci"])), ("after", m["fci"])):
        if naive and tag == "after":
            # Reading FCIs as pinpointing the faulted section: each fault its own zone.
            fci = np.ones_like(m["fci"])
        saifi, saidi, caidi = fr.indices(m["tree"], m["rate"], m["customers"], m["patrol"], m["repair"], m["switching"],
                                         fci, m["device"], m["tie"], repair_origin)
        out[f"saifi_{tag}_per_yr"] = float(saifi)
        out[f"saidi_{tag}_min_per_yr"] = float(saidi)
        out[f"caidi_{tag}_min"] = float(caidi)
    return out


def solve(task: Task, backend: str) -> Reference:
    return Reference(answer=quantities(task.public_inputs),
                     method="analytical simulation of every section fault (Brown 2009 §5.3), IEEE 1366-2022 eqs. (1)-(3)")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer
    checks = ctx.checks()
    for name, what, _, _ in FIELDS:
        checks.close(f"/{name}", ref[name], answer[name], what)
    return Assessment(violations=checks.violations,
                      evidence={"checks": len(checks.records), "checks_failed": len(checks.violations)})


def other_readings(task: Task) -> list[tuple[str, dict[str, Any]]]:
    """The repair clock started after the switching step, or at the fault, instead of at the end of
    location (issue 33: an agent took "after switching" and missed every value by 2 %)."""
    return [("repair_after_switching", quantities(task.public_inputs, repair_origin="switching")),
            ("repair_from_fault", quantities(task.public_inputs, repair_origin="fault"))]


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: the indicators take the crew straight to the faulted section."""
    return quantities(task.public_inputs, naive=True)


# ---------------------------------------------------------------------------- held-out draws

#: Lateral sections of CIGRE feeder 1 that may carry a fuse at level 2 (none holds the tie).
FUSE_CANDIDATES = ("S8-7", "S3-4", "S9-10", "S10-11", "S5-6")


def draw(rng: np.random.Generator, level: int) -> dict[str, Any]:
    secs = fc.cigre_feeder(1)
    out_secs = []
    for sec in secs:
        rel = fc.draw_section_reliability(rng, sec)
        row: dict[str, Any] = {"id": sec["id"], "from_bus": sec["from_bus"], "to_bus": sec["to_bus"],
                               "length_km": sec["length_km"], "kind": sec["kind"]}
        if level >= 2:
            km_rate = float(rng.uniform(*fc.KIND_DATA[sec["kind"]]["rate_per_km_yr"]))
            row["failure_rate_per_km_yr"] = round(km_rate, 4)
            row["accessory_failure_rate_per_yr"] = round(float(rng.uniform(0.005, 0.02)), 4)
        else:
            row["failure_rate_per_yr"] = rel["failure_rate_per_yr"]
        row["customers"] = fc.draw_customers(rng, sec)
        row["patrol_time_h"] = rel["patrol_time_h"]
        row["repair_time_h"] = rel["repair_time_h"]
        out_secs.append(row)
    inputs: dict[str, Any] = {"feeder": "CIGRE TB 575 MV network, feeder 1 (20 kV cable, from bus 1)",
                              "substation_bus": "B1", "sections": out_secs,
                              "switching_time_h": round(float(rng.uniform(0.3, 1.0)), 2)}
    ids = [sec["id"] for sec in secs]
    k = int(rng.integers(1, 4)) if level == 1 else int(rng.integers(2, 5))
    inputs["fci_sections"] = sorted(rng.choice(ids[1:], size=k, replace=False).tolist(), key=ids.index)
    if level >= 2:
        fused = set()
        for cand in rng.permutation(FUSE_CANDIDATES)[: int(rng.integers(1, 3))]:
            fused.add(str(cand))
        for row in out_secs:
            row["fuse"] = row["id"] in fused
        inputs["tie_bus"] = "B8"  # CIGRE's normally-open S1 (line 14-8) to feeder 2
    else:
        inputs["tie_bus"] = None
    return inputs


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw failure rates, repair and patrol times from Brown's typical ranges, customers from
    the CIGRE loads, the switching time and the indicator locations (level 2: fuses and the tie)."""
    return Generated(public_inputs=draw(rng, level))


def accept(task: Task, reference: Reference) -> str | None:
    a = reference.answer
    if a["saidi_before_min_per_yr"] - a["saidi_after_min_per_yr"] < 0.5:
        return "the indicators change SAIDI by under half a minute"
    return None


PRESENTATION = {
    "en": {
        "title": "SAIFI, SAIDI and CAIDI before and after faulted-circuit indicators",
        "statement": (
            "The radial feeder in public_inputs is supplied from substation_bus; each section (from_bus → to_bus, away "
            "from the substation) has a failure rate (failure_rate_per_yr, or failure_rate_per_km_yr × length_km + "
            "accessory_failure_rate_per_yr), customers connected at its to_bus end, a patrol time, a repair time, and "
            "optionally a fuse at its head. Compute the expected annual SAIFI, SAIDI and CAIDI (IEEE 1366-2022: SAIFI = "
            "Σ customers interrupted / customers served, SAIDI = Σ customer-minutes of interruption / customers served, "
            "CAIDI = SAIDI / SAIFI), once with no indicators and once with a faulted-circuit indicator at the head of "
            "every section in fci_sections, by simulating a fault on each section k with its failure rate λ_k. "
            "Restoration sequence: (1) every fault is sustained (no reclosing); it is cleared by the nearest fuse at or "
            "upstream of section k, else by the substation breaker; all customers downstream of that device are "
            "interrupted. (2) An indicator registers when the fault lies in its section or downstream of it. The crew "
            "patrols every section whose fault would show the same indicator pattern and operate the same device (without "
            "indicators: the device's whole protection region); location time = the sum of those sections' patrol times. "
            "(3) At the end of location, in one switching time switching_time_h, the crew opens the switch at the head of "
            "section k (and the head switches of its child sections), re-closes the device (replacing a fuse), and, when "
            "tie_bus is given, closes the normally-open tie there. Then every interrupted customer is restored except "
            "the customers of section k and of sections below it; of those below k, the ones in the child branch of k "
            "that contains tie_bus are restored at the same moment through the tie (it has ample capacity). When tie_bus "
            "is section k's own to_bus the tie would feed the fault (k has a switch only at its head), so it stays open. "
            "(4) The repair of section k starts at the end of location (step 2), while the switching is done — not "
            "after the switching, nor at the fault: the rest are restored at location time + repair_time_h of section "
            "k. Customers of a section are restored together. SAIDI and CAIDI in minutes."
        ),
        "answer_notes": "Every value must match within 0.1 % (or 1e-4 for SAIFI, 0.01 min for SAIDI and CAIDI, whichever is larger).",
    },
    "ru": {
        "title": "SAIFI, SAIDI и CAIDI до и после установки индикаторов короткого замыкания",
        "statement": (
            "Радиальный фидер из public_inputs питается от substation_bus; у каждого участка (from_bus → to_bus, в "
            "направлении от подстанции) заданы интенсивность отказов (failure_rate_per_yr или failure_rate_per_km_yr × "
            "length_km + accessory_failure_rate_per_yr), число потребителей, присоединённых на его конце to_bus, время "
            "обхода, время ремонта и, возможно, предохранитель в начале участка. Рассчитайте ожидаемые годовые SAIFI, "
            "SAIDI и CAIDI (IEEE 1366-2022: SAIFI = Σ отключённых потребителей / число потребителей, SAIDI = Σ "
            "потребителе-минут перерыва / число потребителей, CAIDI = SAIDI / SAIFI) — без индикаторов и с индикатором "
            "КЗ в начале каждого участка из fci_sections, моделируя повреждение каждого участка k с его интенсивностью "
            "λ_k. Порядок восстановления: (1) каждое повреждение устойчивое (без АПВ); его отключает ближайший "
            "предохранитель в начале участка k или выше по сети, иначе выключатель подстанции; отключаются все "
            "потребители ниже этого аппарата. (2) Индикатор срабатывает, если КЗ находится на его участке или ниже. "
            "Бригада обходит все участки, повреждение которых дало бы ту же картину срабатывания индикаторов и тот же "
            "сработавший аппарат (без индикаторов — всю зону защиты аппарата); время поиска = сумма времён обхода этих "
            "участков. (3) По окончании поиска за одно время переключений switching_time_h бригада отключает "
            "разъединитель в начале участка k (и в начале его дочерних участков), включает аппарат (меняет "
            "предохранитель) и, если задан tie_bus, замыкает там нормально разомкнутую связь. После этого "
            "восстанавливаются все отключённые потребители, кроме потребителей участка k и участков ниже его; из них "
            "потребители в дочерней ветви k, содержащей tie_bus, восстанавливаются в тот же момент через связь "
            "(её пропускной способности достаточно). Если tie_bus — конец to_bus самого участка k, связь подала бы "
            "напряжение на место КЗ (у k разъединитель только в начале), поэтому она остаётся разомкнутой. (4) Ремонт "
            "участка k начинается по окончании поиска (шаг 2), одновременно с переключениями — не после них и не с "
            "момента КЗ: остальные потребители восстанавливаются через время поиска + repair_time_h участка k. "
            "Потребители одного участка восстанавливаются одновременно. SAIDI и CAIDI — в минутах."
        ),
        "answer_notes": "Каждое значение должно совпасть с точностью 0,1 % (или 1e-4 для SAIFI, 0,01 мин для SAIDI и CAIDI — что больше).",
        "hard_constraints": (
            "каждый показатель совпадает с расчётом по заданному порядку восстановления в пределах max(0,1 %, абсолютный порог поля)",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Compute the expected annual SAIFI, SAIDI and CAIDI (IEEE Std 1366-2022, §3 and §4.1) of the radial feeder in "
        "public_inputs by analytical simulation of a sustained fault on each section (Brown, Electric Power "
        "Distribution Reliability, 2nd ed., §5.3), without faulted-circuit indicators and with indicators at the heads "
        "of fci_sections. The case's own choices: no reclosing; fuses at section heads where marked, else the "
        "substation breaker; the crew patrols every section indistinguishable by indicators and operated device; one "
        "switching time isolates the faulted section at its head and its children's heads, re-closes the device and "
        "closes the tie at tie_bus (ample capacity), which restores the child branch holding the tie (a tie at the "
        "faulted section's own far end stays open); the faulted section and the rest below it wait for its repair, "
        "whose time runs from the end of location (not from the switching, nor from the fault). SAIDI and CAIDI in "
        "minutes.")},
    "ru": {"statement": (
        "Рассчитайте ожидаемые годовые SAIFI, SAIDI и CAIDI (IEEE Std 1366-2022, разд. 3 и п. 4.1) радиального фидера из "
        "public_inputs аналитическим моделированием устойчивого повреждения каждого участка (Brown, Electric Power "
        "Distribution Reliability, 2-е изд., § 5.3) — без индикаторов КЗ и с индикаторами в начале участков "
        "fci_sections. Выбор, сделанный в задаче: без АПВ; предохранители в начале отмеченных участков, иначе "
        "выключатель подстанции; бригада обходит все участки, не различимые по индикаторам и сработавшему аппарату; "
        "за одно время переключений участок отделяется в своём начале и в начале дочерних участков, аппарат "
        "включается, связь в tie_bus замыкается (её пропускной способности достаточно) и восстанавливает дочернюю "
        "ветвь, содержащую связь (связь на дальнем конце самого повреждённого участка остаётся разомкнутой); "
        "повреждённый участок и остальные участки ниже ждут его ремонта, время которого отсчитывается от окончания "
        "поиска (не от переключений и не от момента КЗ). SAIDI и CAIDI — в минутах.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged against psab's analytical simulation of every section fault under the stated restoration "
               "sequence, with IEEE 1366-2022 eqs. (1)-(3); each value within 0.1 % or the field's absolute floor."),
        "ru": ("Проверяется расчётом psab: аналитическое моделирование повреждения каждого участка при заданном порядке "
               "восстановления, формулы (1)-(3) IEEE 1366-2022; каждое значение — с точностью 0,1 % или порога поля."),
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="reliability_restoration",
        scoring_kind="exact",
        confidence="medium",
        version="1",
        provenance=(
            {"title": "IEEE Std 1366-2022, IEEE Guide for Electric Power Distribution Reliability Indices",
             "locator": "§3 (definitions: sustained interruption, customers served), §4.1 eqs. for SAIFI, SAIDI, CAIDI",
             "note": "The indices are applied to expected annual values of the failure model (a planning study), not to a year of records.",
             "confidence": "high"},
            {"title": "R. E. Brown, Electric Power Distribution Reliability, 2nd ed., CRC Press, 2009",
             "locator": "§5.3 (analytical simulation of radial systems: protection, location, isolation, restoration, repair); "
                        "ch. 4 (typical failure rates and MTTR of overhead lines and underground cable); faulted-circuit indicators",
             "note": "The restoration sequence is Brown's, with the case's own stated choices; data ranges from Brown's typical values.",
             "confidence": "medium"},
            {"title": "CIGRE TF C6.04.02, Technical Brochure 575 (2014), Benchmark Systems for Network Integration of "
                      "Renewable and Distributed Energy Resources",
             "locator": "MV distribution network, European configuration, feeder 1 (lines, loads and switches S1-S3) as "
                        "shipped by pandapower.networks.create_cigre_network_mv",
             "note": "The feeder's topology, section lengths and loads (for customer counts) and its tie switch S1.",
             "confidence": "high"},
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "every index matches the recomputation under the stated restoration sequence within max(0.1 %, the field's absolute floor)",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {f"/{name}": floor for name, _, _, floor in FIELDS} | {"default": 1e-4}},
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
        other_readings=other_readings,
    )
)
