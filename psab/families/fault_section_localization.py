"""fault_section_localization — the faulted section of a radial feeder from faulted-circuit
indicator readings and customer trouble calls (classify).

A radial feeder (CIGRE MV feeder 1), the sections that carry a faulted-circuit indicator (FCI)
at their head, and a list of fault events, each with the indicators that registered, the
sections from which customers called in an outage, and the sections where callers reported
visible damage (a flash, a cable dig-in, smoke at a ring-main unit). The agent names the faulted
section of every event. The evaluator compares with the section the stated rule selects.

The physics of the evidence (Brown, *Electric Power Distribution Reliability*, 2nd ed., on
faulted-circuit indicators and trouble-call analysis): an indicator at the head of section a
registers when the fault lies in a or downstream of it (the fault current passes it); a fault
is cleared by the nearest fuse at or upstream of its section, else by the substation breaker,
and interrupts every customer downstream of that device. Evidence can be wrong: an indicator
can fail to register (or, rarely, register falsely after a reset problem), an outage call can
come from a customer whose own service drop failed, a damage report can point at the wrong
place. The rule that resolves conflicts (stated to the agent): the faulted section is the one
whose expected evidence disagrees least with the observed evidence, counting each indicator
reading that disagrees as 2 and each call that disagrees as 1 (an indicator is more reliable
than one caller). Every event is drawn so that this minimum is unique and falls on the section
that actually failed.

Levels: 1 the feeder with the substation breaker only, 3-4 indicators, six events; 2 lateral
fuses (outage calls then locate the operated device), 4-6 indicators, ten events, failed
indicators and misleading calls in most events.
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

FAMILY_ID = "fault_section_localization"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 10.
MAX_INPUT_ITEMS = 500


def _schema_guard(fn):  # type: ignore[no-untyped-def]
    from psab.families._feeder_cases import schema_guarded

    return schema_guarded(FAMILY_ID)(fn)
W_FCI = 2  # weight of a disagreeing indicator reading
W_CALL = 1  # weight of a disagreeing call


@_schema_guard
def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    ids = [sec["id"] for sec in inputs["sections"]]
    events = [e["id"] for e in inputs["events"]]
    return s.submission(
        {"faulted_sections": s.array(
            s.enum(ids, "the faulted section of the event", ru="повреждённый участок события"),
            f"the faulted section of every event, in the order {', '.join(events)}", length=len(events),
            ru=f"повреждённый участок каждого события, в порядке {', '.join(events)}")},
        "faulted section of every fault event", ru="повреждённый участок каждого события",
    )


INPUTS_SCHEMA = {
    "type": "object",
    "properties": {
        "substation_bus": {"type": "string"},
        "sections": fc.sections_schema({"customers": {"type": "integer", "minimum": 0}, "fuse": {"type": "boolean"}},
                                       ["customers"]),
        "fci_sections": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "events": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
            "id": {"type": "string"},
            "fci_registered": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "outage_calls_from_sections": {"type": "array", "items": {"type": "string"}},
            "damage_reports_at_sections": {"type": "array", "items": {"type": "string"}}},
            "required": ["id", "fci_registered", "outage_calls_from_sections", "damage_reports_at_sections"]}},
    },
    "required": ["substation_bus", "sections", "fci_sections", "events"],
}


def model(inputs: dict[str, Any]) -> dict[str, Any]:
    return fc.guarded(FAMILY_ID, _model, inputs)


def _model(inputs: dict[str, Any]) -> dict[str, Any]:
    tree = fc.section_tree_of(inputs, FAMILY_ID)
    fci = [fc.section_index(inputs, FAMILY_ID, f"/fci_sections/{j}", sid) for j, sid in enumerate(inputs["fci_sections"])]
    device = fr.device_of(tree, np.array([bool(sec.get("fuse", False)) for sec in inputs["sections"]]))
    events = []
    for e_i, ev in enumerate(inputs["events"]):
        reg = set()
        for j, sid in enumerate(ev["fci_registered"]):
            if sid not in inputs["fci_sections"]:
                raise InvalidTaskError(f"{FAMILY_ID}: /events/{e_i}/fci_registered/{j}: {sid!r} carries no indicator")
            reg.add(fc.section_index(inputs, FAMILY_ID, f"/events/{e_i}/fci_registered/{j}", sid))
        calls = [fc.section_index(inputs, FAMILY_ID, f"/events/{e_i}/outage_calls_from_sections/{j}", sid)
                 for j, sid in enumerate(ev["outage_calls_from_sections"])]
        damage = [fc.section_index(inputs, FAMILY_ID, f"/events/{e_i}/damage_reports_at_sections/{j}", sid)
                  for j, sid in enumerate(ev["damage_reports_at_sections"])]
        events.append((reg, calls, damage))
    return {"tree": tree, "fci": fci, "device": device, "events": events}


def disagreement(m: dict[str, Any], event: tuple[set[int], list[int], list[int]]) -> np.ndarray:
    """Weighted count of evidence a fault on each section would contradict. Every installed
    indicator is evidence — one that did not register says the fault is not at or below it, as
    the statement fixes."""
    tree, device = m["tree"], m["device"]
    reg, calls, damage = event
    out = np.zeros(tree.n)
    interrupted = fr.interrupted(tree, device)
    for a in m["fci"]:
        expected = tree.sub[a]  # registers iff the fault is at or below a
        observed = a in reg
        out += W_FCI * (expected != observed)
    for c in calls:
        out += W_CALL * ~interrupted[:, c]
    for c in damage:
        out += W_CALL * (np.arange(tree.n) != c)
    return out


def located(inputs: dict[str, Any]) -> tuple[list[str], list[list[float]]]:
    m = model(inputs)
    ids = [sec["id"] for sec in inputs["sections"]]
    answers, scores = [], []
    for ev in m["events"]:
        d = disagreement(m, ev)
        answers.append(ids[int(np.argmin(d))])
        scores.append(d.tolist())
    return answers, scores


def solve(task: Task, backend: str) -> Reference:
    answers, scores = located(task.public_inputs)
    return Reference(answer={"faulted_sections": answers}, evidence={"disagreement": scores},
                     method="minimum weighted disagreement (indicator reading 2, call 1) over all sections")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference()
    truth = ref.answer["faulted_sections"]
    events = [e["id"] for e in task.public_inputs["events"]]
    got = answer["faulted_sections"]
    misses = [{"event": ev, "expected": t, "found": g} for ev, t, g in zip(events, truth, got) if t != g]
    return Assessment(violations=ctx.checks().violations, correct=len(events) - len(misses), total=len(events),
                      evidence={"misses": misses, "reference_method": ref.method})


def naive_answer(task: Task) -> dict[str, Any]:
    """Trust the indicators alone: the section of the deepest registered indicator (the
    feeder's first section when none registered)."""
    inputs = task.public_inputs
    m = model(inputs)
    ids = [sec["id"] for sec in inputs["sections"]]
    depth = m["tree"].sub.sum(axis=0)
    out = []
    for reg, _, _ in m["events"]:
        out.append(ids[max(reg, key=lambda a: depth[a])] if reg else ids[0])
    return {"faulted_sections": out}


# ---------------------------------------------------------------------------- held-out draws

FUSE_CANDIDATES = ("S8-7", "S3-4", "S9-10", "S10-11", "S5-6")


def _draw_event(rng: np.random.Generator, m: dict[str, Any], rate: np.ndarray, customers: np.ndarray, level: int,
                ids: list[str]) -> tuple[dict[str, Any], int] | None:
    tree, device = m["tree"], m["device"]
    f = int(rng.choice(tree.n, p=rate / rate.sum()))
    reg = {a for a in m["fci"] if tree.sub[a, f]}
    p_fail = 0.3 if level == 1 else 0.5
    if reg and rng.uniform() < p_fail:
        reg.discard(int(rng.choice(sorted(reg))))  # an indicator failed to register
    n_true = int(rng.integers(1, 4))
    damage = [f] * n_true
    if rng.uniform() < (0.3 if level == 1 else 0.5):
        damage.append(int(rng.choice([j for j in range(tree.n) if j != f])))  # a misleading report
    out = fr.interrupted(tree, device)[f]
    pool = [j for j in range(tree.n) if out[j] and customers[j] > 0]
    calls = sorted(rng.choice(pool, size=min(len(pool), int(rng.integers(1, 5))), replace=False).tolist()) if pool else []
    if level >= 2 and rng.uniform() < 0.3:
        outside = [j for j in range(tree.n) if not out[j] and customers[j] > 0]
        if outside:
            calls.append(int(rng.choice(outside)))  # a customer whose own service failed
    event = (reg, calls, damage)
    d = disagreement(m, event)
    if np.argmin(d) != f or np.sum(d == d.min()) > 1:
        return None
    order = rng.permutation(len(damage))
    return {"fci_registered": [ids[a] for a in sorted(reg)],
            "outage_calls_from_sections": [ids[c] for c in sorted(set(calls))],
            "damage_reports_at_sections": [ids[damage[k]] for k in order]}, f


def draw(rng: np.random.Generator, level: int) -> dict[str, Any]:
    secs = fc.cigre_feeder(1)
    ids = [sec["id"] for sec in secs]
    rows = []
    fused = set(rng.permutation(FUSE_CANDIDATES)[: int(rng.integers(1, 3))].tolist()) if level >= 2 else set()
    for sec in secs:
        row = {"id": sec["id"], "from_bus": sec["from_bus"], "to_bus": sec["to_bus"], "length_km": sec["length_km"],
               "kind": sec["kind"], "customers": fc.draw_customers(rng, sec)}
        if level >= 2:
            row["fuse"] = sec["id"] in fused
        rows.append(row)
    k = int(rng.integers(3, 5)) if level == 1 else int(rng.integers(4, 7))
    fci = sorted(rng.choice(ids, size=k, replace=False).tolist(), key=ids.index)
    inputs: dict[str, Any] = {"feeder": "CIGRE TB 575 MV network, feeder 1 (20 kV cable, from bus 1)",
                              "substation_bus": "B1", "sections": rows, "fci_sections": fci, "events": []}
    m = model(inputs)
    rate = np.array([fc.draw_section_reliability(rng, sec)["failure_rate_per_yr"] for sec in secs])
    customers = np.array([r["customers"] for r in rows], dtype=float)
    n_events = 6 if level == 1 else 10
    while len(inputs["events"]) < n_events:
        got = _draw_event(rng, m, rate, customers, level, ids)
        if got is not None:
            inputs["events"].append({"id": f"E{len(inputs['events']) + 1}", **got[0]})
    return inputs


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw customers, indicator locations and the events (faulted section weighted by failure
    rate, failed indicators, true and misleading calls), keeping events whose rule is decisive."""
    return Generated(public_inputs=draw(rng, level))


def accept(task: Task, reference: Reference) -> str | None:
    if len(set(reference.answer["faulted_sections"])) < 2:
        return "every event on the same section"
    return None


PRESENTATION = {
    "en": {
        "title": "Faulted-section localization from fault indicators and trouble calls",
        "statement": (
            "The radial feeder in public_inputs is supplied from substation_bus; sections run from_bus → to_bus away from "
            "the substation, customers are connected at each section's to_bus end, and a section marked fuse has a fuse "
            "at its head. A faulted-circuit indicator sits at the head of every section in fci_sections. For every event, "
            "name the faulted section. What a fault on section k produces: an indicator at the head of section a registers "
            "if and only if k is a or lies downstream of a; the fault is cleared by the nearest fuse at or upstream of k, "
            "else by the substation breaker, and every customer downstream of that device loses supply. Evidence in an "
            "event: fci_registered (the indicators that registered; the others did not), outage_calls_from_sections "
            "(customers of these sections called in without supply) and damage_reports_at_sections (a caller reported "
            "visible damage on that section; a section may appear more than once, one entry per call). Evidence can be "
            "wrong (an indicator that failed, a customer whose own service failed, a caller who saw the wrong place). "
            "Rule: for each candidate section k count the disagreements between what a fault on k would produce and what "
            "was observed — 2 for each installed indicator whose reading differs (an indicator that did not register is "
            "evidence as much as one that did: it says the fault is not at or below it), 1 for each outage call from a section a fault on k "
            "would not interrupt, 1 for each damage report on a section other than k — and answer the section with the "
            "least count (every event has a unique least count). Missing outage calls are no evidence."
        ),
        "answer_notes": "One section per event, in the order of events; the score is the share of events named correctly.",
    },
    "ru": {
        "title": "Определение повреждённого участка по индикаторам КЗ и звонкам потребителей",
        "statement": (
            "Радиальный фидер из public_inputs питается от substation_bus; участки направлены from_bus → to_bus от "
            "подстанции, потребители присоединены на конце to_bus участка, участок с пометкой fuse имеет предохранитель "
            "в начале. Индикатор короткого замыкания установлен в начале каждого участка из fci_sections. Для каждого "
            "события укажите повреждённый участок. Что даёт КЗ на участке k: индикатор в начале участка a срабатывает "
            "тогда и только тогда, когда k совпадает с a или лежит ниже a по сети; КЗ отключает ближайший "
            "предохранитель в начале k или выше, иначе выключатель подстанции, и все потребители ниже этого аппарата "
            "теряют питание. Данные события: fci_registered (сработавшие индикаторы; остальные не сработали), "
            "outage_calls_from_sections (потребители этих участков сообщили об отсутствии напряжения) и "
            "damage_reports_at_sections (звонивший сообщил о видимом повреждении на участке; участок может встречаться "
            "несколько раз — по записи на звонок). Данные могут быть ошибочны (отказ индикатора, повреждение "
            "собственного ввода потребителя, ошибка очевидца). Правило: для каждого участка-кандидата k подсчитайте "
            "расхождения между тем, что дало бы КЗ на k, и наблюдаемым — 2 за каждый установленный индикатор с иным "
            "показанием (несработавший индикатор — такое же доказательство, как сработавший: КЗ не на его участке и "
            "не ниже), 1 за "
            "каждый звонок об отсутствии напряжения с участка, который КЗ на k не отключило бы, 1 за каждое сообщение о "
            "повреждении на участке, отличном от k, — и укажите участок с наименьшей суммой (в каждом событии она "
            "единственна). Отсутствие звонков доказательством не является."
        ),
        "answer_notes": "По одному участку на событие, в порядке событий; оценка — доля верно названных событий.",
        "hard_constraints": ("по одному участку фидера на каждое событие, в порядке events",),
    },
}

EXPERT = {
    "en": {"statement": (
        "Locate the faulted section of every event on the radial feeder in public_inputs from its faulted-circuit "
        "indicator readings and trouble calls (Brown, Electric Power Distribution Reliability, 2nd ed., faulted-circuit "
        "indicators). The case's own choices: an indicator at a section's head registers for a fault in that section or "
        "downstream; fuses at marked section heads, else the substation breaker; the answer is the section of least "
        "weighted disagreement with the evidence, an indicator reading weighing 2 (every installed indicator reads: one "
        "that did not register counts as evidence too) and a call (outage or damage report) 1, "
        "unique in every event; missing calls are no evidence.")},
    "ru": {"statement": (
        "Определите повреждённый участок каждого события на радиальном фидере из public_inputs по показаниям "
        "индикаторов КЗ и звонкам потребителей (Brown, Electric Power Distribution Reliability, 2-е изд., индикаторы "
        "КЗ). Выбор, сделанный в задаче: индикатор в начале участка срабатывает при КЗ на участке или ниже; "
        "предохранители в начале отмеченных участков, иначе выключатель подстанции; ответ — участок с наименьшим "
        "взвешенным расхождением с данными, показание индикатора весит 2 (показание есть у каждого установленного "
        "индикатора: несработавший тоже учитывается), звонок (об отсутствии напряжения или о "
        "повреждении) — 1, минимум в каждом событии единственный; отсутствие звонков доказательством не является.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged against psab's evaluation of the stated disagreement rule over every section of the feeder; one point per event named correctly.",
        "ru": "Проверяется расчётом psab по заданному правилу расхождений для всех участков фидера; по баллу за каждое верно названное событие.",
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="reliability_restoration",
        scoring_kind="classify",
        confidence="medium",
        version="1",
        provenance=(
            {"title": "R. E. Brown, Electric Power Distribution Reliability, 2nd ed., CRC Press, 2009",
             "locator": "faulted-circuit indicators and fault location (ch. on reliability improvement: fault location "
                        "devices); §5.3 on protection-device operation in radial systems",
             "note": "The indicator and protection physics; the weighting rule for conflicting evidence is the case's own, stated.",
             "confidence": "medium"},
            {"title": "CIGRE TF C6.04.02, Technical Brochure 575 (2014), MV distribution network, feeder 1",
             "locator": "as shipped by pandapower.networks.create_cigre_network_mv (lines, loads, switches)",
             "note": "Topology and loads (customer counts) of the feeder.", "confidence": "high"},
        ),
        submission_schema=submission_schema,
        hard_constraints=("one section of the feeder per event, in the order of events",),
        metrics=(),
        tolerances={},
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        validate_inputs=ic.unique_ids_hook(("sections",), ("events",)),
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
    )
)
