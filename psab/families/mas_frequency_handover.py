"""mas_frequency_handover — lead-station election and secondary-response allocation (exact).

A multi-agent secondary-frequency scheme of an active distribution network has lost its lead
station. Given the stations (status, priority, rating, droop, up/down reserve), the undirected
communication graph with link status, the failed lead, the measured frequency deviation and the
area's frequency bias, the agent returns the new lead by the stated quorum election rule, the
required secondary response, each station's share of it by the stated capped droop-participation
rule and the shortfall. The rules (:mod:`psab.surrogates.mas_frequency`) are written in the
statement so that an engineer reproduces the answer by hand; partitioned graphs (no quorum, or
a minority island that may not act) are part of the draws.

Levels: 1 a 6–8 station ring with a chord or two and one or two failed links; 2 a 12–16 station
network of two feeder clusters joined by a few tie links, several failed links and stations (the
graph often partitions), tight reserves so caps bind, listed links that touch failed stations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import mas_frequency as mas

FAMILY_ID = "mas_frequency_handover"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 16.
MAX_INPUT_ITEMS = 500
NO_LEAD = "none"

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    ids = [st["id"] for st in inputs["stations"]]
    order = ", ".join(ids)
    healthy = [st["id"] for st in inputs["stations"] if st["status"] == "healthy" and st["id"] != inputs["failed_lead"]]
    return s.submission(
        {
            "new_lead": s.enum(healthy + [NO_LEAD], "the elected lead station, or 'none' when no component holds a "
                               "majority of the healthy stations",
                               ru="избранная ведущая станция или 'none', если ни одна компонента связи не содержит "
                                  "большинства исправных станций"),
            "required_response_mw": s.number("required secondary response ΔP = −β·Δf (MW; positive = raise output)",
                                             ru="требуемая вторичная мощность ΔP = −β·Δf (МВт; положительная — "
                                                "увеличение выдачи)"),
            "allocation_mw": s.array(
                s.number("the station's secondary set-point change (MW, signed like ΔP; 0 when not participating)",
                         ru="изменение вторичной уставки станции (МВт, со знаком ΔP; 0, если станция не участвует)"),
                f"one value per station, in the order {order}", length=len(ids),
                ru=f"по одному значению на станцию, в порядке {order}"),
            "shortfall_mw": s.number("part of |ΔP| no participating station can take (MW, ≥ 0)", minimum=0,
                                     ru="часть |ΔP|, которую не могут принять участвующие станции (МВт, ≥ 0)"),
        },
        "lead-station handover and secondary-response allocation",
        ru="передача функций ведущей станции и распределение вторичного регулирования",
    )


_STATION = {
    "type": "object",
    "required": ["id", "status", "priority", "rated_mw", "droop_pct", "reserve_up_mw", "reserve_down_mw"],
    "properties": {
        "id": s.ID, "kind": {"type": "string"}, "status": {"enum": ["healthy", "failed"]},
        "priority": {"type": "integer", "minimum": 0},
        "rated_mw": s.POSITIVE, "droop_pct": {"type": "number", "exclusiveMinimum": 0, "maximum": 20},
        "reserve_up_mw": s.NONNEGATIVE, "reserve_down_mw": s.NONNEGATIVE,
    },
}
INPUTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["f_nominal_hz", "frequency_deviation_hz", "frequency_bias_mw_per_hz", "stations", "links", "failed_lead"],
    "properties": {
        "f_nominal_hz": {"enum": [50, 60]},
        "frequency_deviation_hz": {"type": "number", "minimum": -5, "maximum": 5},
        "frequency_bias_mw_per_hz": s.POSITIVE,
        "stations": {"type": "array", "minItems": 2, "items": _STATION},
        "links": {"type": "array", "items": {"type": "object", "required": ["id", "a", "b", "status"], "properties": {
            "id": s.ID, "a": s.ID, "b": s.ID, "status": {"enum": ["up", "down"]}}}},
        "failed_lead": s.ID,
    },
}


def case(inputs: dict[str, Any]) -> tuple[list[mas.Station], list[tuple[str, str]]]:
    """The stations (the failed lead marked failed) and the healthy links; a reference to a
    station that does not exist is the caller's error, named by its JSON pointer."""
    ids = [st["id"] for st in inputs["stations"]]
    if len(set(ids)) != len(ids):
        raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/stations has duplicate ids")
    known = set(ids)
    if inputs["failed_lead"] not in known:
        raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/failed_lead {inputs['failed_lead']!r} is not a station id")
    for i, link in enumerate(inputs["links"]):
        for end in ("a", "b"):
            if link[end] not in known:
                raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/links/{i}/{end} {link[end]!r} is not a station id")
        if link["a"] == link["b"]:
            raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/links/{i} joins a station to itself")
    stations = [mas.Station(id=st["id"], healthy=st["status"] == "healthy" and st["id"] != inputs["failed_lead"],
                            priority=int(st["priority"]), rated_mw=float(st["rated_mw"]), droop_pct=float(st["droop_pct"]),
                            reserve_up_mw=float(st["reserve_up_mw"]), reserve_down_mw=float(st["reserve_down_mw"]))
                for st in inputs["stations"]]
    links = [(lk["a"], lk["b"]) for lk in inputs["links"] if lk["status"] == "up"]
    return stations, links


def compute(inputs: dict[str, Any]) -> mas.Handover:
    stations, links = case(inputs)
    return mas.handover(stations, links, df_hz=float(inputs["frequency_deviation_hz"]),
                        bias_mw_per_hz=float(inputs["frequency_bias_mw_per_hz"]), f_nominal_hz=float(inputs["f_nominal_hz"]))


def _answer(h: mas.Handover, inputs: dict[str, Any]) -> dict[str, Any]:
    return {"new_lead": h.lead if h.lead is not None else NO_LEAD,
            "required_response_mw": h.required_mw,
            "allocation_mw": [h.allocation_mw[st["id"]] for st in inputs["stations"]],
            "shortfall_mw": h.shortfall_mw}


def solve(task: Task, backend: str) -> Reference:
    h = compute(task.public_inputs)
    return Reference(answer=_answer(h, task.public_inputs), evidence={"lead_component": list(h.component)},
                     method="quorum election over the healthy communication graph; capped droop-proportional water-filling")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ref = ctx.reference().answer
    checks = ctx.checks()
    if answer["new_lead"] != ref["new_lead"]:
        checks.violate("/new_lead", "the lead elected by the stated quorum rule", ref["new_lead"], answer["new_lead"])
    checks.close("/required_response_mw", ref["required_response_mw"], answer["required_response_mw"], "required response")
    for i, expected in enumerate(ref["allocation_mw"]):
        checks.close(f"/allocation_mw/{i}", expected, answer["allocation_mw"][i], "station allocation")
    checks.close("/shortfall_mw", ref["shortfall_mw"], answer["shortfall_mw"], "shortfall")
    return Assessment(violations=checks.violations,
                      evidence={"checks": len(checks.records) + 1, "checks_failed": len(checks.violations)})


# ---------------------------------------------------------------------------- held-out draws

#: Station kinds of an active distribution network: (kind, rated MW range, droop % choices).
KINDS = (("BESS", (1.0, 6.0), (2.0, 3.0)), ("CHP", (2.0, 8.0), (4.0, 5.0)), ("small hydro", (1.5, 5.0), (4.0, 5.0)),
         ("PV inverter plant", (2.0, 10.0), (4.0, 6.0)), ("wind farm", (4.0, 12.0), (4.0, 5.0)),
         ("diesel genset", (1.0, 4.0), (3.0, 4.0)), ("demand response aggregator", (0.5, 3.0), (5.0, 8.0)))


def _r(x: float, nd: int = 3) -> float:
    return float(round(float(x), nd))


def _stations(rng: np.random.Generator, n: int, tight: bool) -> list[dict[str, Any]]:
    out = []
    prios = rng.permutation(np.arange(1, n + 1)) * 10
    # a shared priority now and then, so the id tie-break is exercised
    if rng.uniform() < 0.4:
        a, b = rng.choice(n, 2, replace=False)
        prios[a] = prios[b]
    for i in range(n):
        kind, (lo, hi), droops = KINDS[int(rng.integers(len(KINDS)))]
        rated = _r(rng.uniform(lo, hi), 2)
        head = 0.08 if tight else 0.25
        out.append({"id": f"S{i + 1:02d}", "kind": kind, "status": "healthy", "priority": int(prios[i]),
                    "rated_mw": rated, "droop_pct": float(rng.choice(droops)),
                    "reserve_up_mw": _r(rated * rng.uniform(0.02, head), 3),
                    "reserve_down_mw": _r(rated * rng.uniform(0.02, head), 3)})
    return out


def draw(rng: np.random.Generator, level: int) -> dict[str, Any]:
    if level == 1:
        n = int(rng.integers(6, 9))
        edges = [(i, (i + 1) % n) for i in range(n)]
        for _ in range(int(rng.integers(1, 3))):
            a, b = sorted(rng.choice(n, 2, replace=False))
            if (a, b) not in edges and (b, a) not in edges and b - a not in (1, n - 1):
                edges.append((int(a), int(b)))
        n_down, n_failed = int(rng.integers(1, 3)), int(rng.uniform() < 0.3)
    else:
        n = int(rng.integers(12, 17))
        half = n // 2
        edges = [(i, i + 1) for i in range(half - 1)] + [(i, i + 1) for i in range(half, n - 1)]
        edges += [(0, half - 1), (half, n - 1)]  # each cluster a ring
        for _ in range(int(rng.integers(1, 4))):  # tie links between the clusters
            edges.append((int(rng.integers(0, half)), int(rng.integers(half, n))))
        n_down, n_failed = int(rng.integers(2, 6)), int(rng.integers(1, 4))
    stations = _stations(rng, n, tight=level >= 2)
    lead = int(np.argmax([st["priority"] for st in stations]))  # the old lead had the top priority
    stations[lead]["status"] = "failed"
    others = [i for i in range(n) if i != lead]
    for i in rng.choice(others, n_failed, replace=False):
        stations[int(i)]["status"] = "failed"
    edges = sorted({tuple(sorted(e)) for e in edges})
    down = set(int(i) for i in rng.choice(len(edges), min(n_down, len(edges) - 1), replace=False))
    links = [{"id": f"C{stations[a]['id'][1:]}-{stations[b]['id'][1:]}", "a": stations[a]["id"], "b": stations[b]["id"],
              "status": "down" if k in down else "up"} for k, (a, b) in enumerate(edges)]
    total_rated = sum(st["rated_mw"] for st in stations)
    df = _r(rng.uniform(0.05, 0.35) * (1 if rng.uniform() < 0.3 else -1), 3)
    return {"f_nominal_hz": 50, "frequency_deviation_hz": df,
            "frequency_bias_mw_per_hz": _r(total_rated * rng.uniform(0.15, 0.5) / 0.2 * (0.04 if level == 1 else 0.06), 2),
            "stations": stations, "links": links, "failed_lead": stations[lead]["id"]}


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the stations (kind, rating, droop, reserves, priority), the communication graph,
    the failed links and stations, the frequency deviation (mostly under-frequency) and the bias."""
    return Generated(public_inputs=draw(rng, level))


def accept(task: Task, reference: Reference) -> str | None:
    ans = reference.answer
    if abs(ans["required_response_mw"]) < 0.05:
        return "required response too small to tell the allocations apart"
    if ans["new_lead"] != NO_LEAD and sum(1 for a in ans["allocation_mw"] if abs(a) > 1e-9) < 2:
        return "fewer than two participating stations"
    naive = naive_answer(task)
    if naive["new_lead"] == ans["new_lead"] and all(
            abs(a - b) <= 1e-3 for a, b in zip(naive["allocation_mw"], ans["allocation_mw"], strict=True)):
        return "the communication graph does not change the answer (the naive reading would score 1)"
    return None


def naive_answer(task: Task) -> dict[str, Any]:
    """Ignore the communication graph: the highest-priority healthy station leads and every
    healthy station shares the response (no quorum, no partition)."""
    inputs = dict(task.public_inputs)
    ids = [st["id"] for st in inputs["stations"]]
    full = [{"id": f"N{k}", "a": a, "b": b, "status": "up"} for k, (a, b) in enumerate(zip(ids, ids[1:], strict=False))]
    return _answer(compute(inputs | {"links": full}), inputs)


# ---------------------------------------------------------------------------- words

STATEMENT_EN = (
    "The lead station of the multi-agent secondary-frequency scheme in public_inputs (failed_lead) has just failed. "
    "Apply the scheme's rules, as stated here. (1) Surviving graph: the healthy stations are those with status "
    "'healthy' other than failed_lead; a link counts only when its status is 'up' and both its ends are healthy "
    "(a link to a failed station carries nothing). (2) Election: a healthy station is eligible when its connected "
    "component in the surviving graph holds a strict majority of all healthy stations (more than half; a station "
    "alone is a component of one). The new lead is the eligible station with the largest priority number; equal "
    "priorities are broken by the smaller id in character order. If no component holds a majority, there is no "
    "lead: answer new_lead 'none', every allocation 0 and the shortfall |ΔP|. (3) Required response: "
    "ΔP = −β·Δf in MW, with β = frequency_bias_mw_per_hz and Δf = frequency_deviation_hz (positive ΔP raises "
    "output, for under-frequency; negative ΔP lowers it). (4) Allocation: only the healthy stations of the new "
    "lead's component (the lead included) participate; every other station gets 0. Participation factor "
    "K_i = rated_mw/(droop_pct/100 · f_nominal_hz) in MW/Hz. Share |ΔP| in proportion to K_i among the "
    "participants; a station whose share reaches or exceeds its reserve in the needed direction (reserve_up_mw "
    "for positive ΔP, reserve_down_mw for negative) takes exactly that reserve and leaves the round; the rest of "
    "|ΔP| is shared again in proportion to K_i among the remaining stations, repeated until no share exceeds its "
    "reserve (a station with zero reserve takes nothing). Each allocation carries the sign of ΔP. "
    "(5) shortfall_mw = |ΔP| minus the sum of the magnitudes of the allocations (0 when fully covered). "
    "Give allocation_mw in the order of stations, in MW."
)
STATEMENT_RU = (
    "Ведущая станция многоагентной системы вторичного регулирования частоты из public_inputs (failed_lead) только "
    "что отказала. Примените правила системы в изложенном здесь виде. (1) Уцелевший граф: исправные станции — "
    "станции со статусом 'healthy', кроме failed_lead; канал связи учитывается, только если его статус 'up' и оба "
    "его конца исправны (канал к отказавшей станции ничего не передаёт). (2) Выборы: исправная станция может быть "
    "избрана, если её компонента связности в уцелевшем графе содержит строгое большинство всех исправных станций "
    "(больше половины; одиночная станция — компонента из одной станции). Новая ведущая — станция с наибольшим "
    "числом priority среди допущенных; при равных приоритетах выбирается меньший id в посимвольном порядке. Если "
    "ни одна компонента не содержит большинства, ведущей нет: new_lead = 'none', все распределения 0, дефицит "
    "|ΔP|. (3) Требуемая мощность: ΔP = −β·Δf в МВт, β = frequency_bias_mw_per_hz, Δf = frequency_deviation_hz "
    "(положительная ΔP — увеличение выдачи при пониженной частоте, отрицательная — снижение). (4) Распределение: "
    "участвуют только исправные станции компоненты новой ведущей (включая её); остальные получают 0. "
    "Коэффициент участия K_i = rated_mw/(droop_pct/100 · f_nominal_hz) в МВт/Гц. |ΔP| делится пропорционально K_i "
    "между участниками; станция, чья доля достигает или превышает её резерв в нужном направлении (reserve_up_mw "
    "при положительной ΔP, reserve_down_mw при отрицательной), получает ровно этот резерв и выбывает; остаток "
    "|ΔP| снова делится пропорционально K_i между оставшимися, и так до тех пор, пока ни одна доля не превышает "
    "резерв (станция с нулевым резервом не получает ничего). Каждое распределение имеет знак ΔP. (5) shortfall_mw "
    "= |ΔP| минус сумма модулей распределений (0 при полном покрытии). allocation_mw — в порядке stations, в МВт."
)

PRESENTATION = {
    "en": {"title": "Lead-station handover in multi-agent secondary frequency control", "statement": STATEMENT_EN,
           "answer_notes": "new_lead must match exactly; every number within 0.1 % or 0.001 MW, whichever is larger."},
    "ru": {"title": "Передача функций ведущей станции в многоагентном вторичном регулировании частоты",
           "statement": STATEMENT_RU,
           "answer_notes": "new_lead должен совпасть точно; каждое число — с точностью 0,1 % или 0,001 МВт (что больше).",
           "hard_constraints": (
               "new_lead совпадает со станцией, избранной по правилу большинства из условия",
               "требуемая мощность, распределение каждой станции и дефицит совпадают с пересчётом в пределах "
               "max(0,1 %, 0,001 МВт)",
               "в allocation_mw по одному значению на станцию, в порядке stations",
           )},
}

EXPERT = {
    "en": {"statement": (
        "Hand over the lead of the multi-agent secondary-frequency scheme in public_inputs after failed_lead failed: "
        "elect the new lead by quorum over the surviving communication graph (healthy stations, links 'up' between "
        "healthy ends; strict majority of the healthy stations; largest priority number, ties to the smaller id; "
        "'none' without quorum), compute the area's required secondary response from the frequency bias and the "
        "measured deviation, and allocate it among the lead's component in proportion to droop participation "
        "(Kundur §11.1.2), capped at each station's reserve in the needed direction with the excess re-shared; "
        "report the shortfall. Allocations signed like the response, in the order of stations, MW.")},
    "ru": {"statement": (
        "Передайте функции ведущей станции многоагентной системы вторичного регулирования частоты из public_inputs "
        "после отказа failed_lead: изберите новую ведущую по кворуму в уцелевшем графе связи (исправные станции, "
        "каналы 'up' между исправными концами; строгое большинство исправных станций; наибольшее число priority, при "
        "равенстве — меньший id; 'none' без кворума), рассчитайте требуемую вторичную мощность района по "
        "коэффициенту частотной коррекции и измеренному отклонению частоты и распределите её внутри компоненты "
        "ведущей пропорционально статизму (Kundur §11.1.2) с ограничением резервом станции в нужном направлении и "
        "перераспределением избытка; укажите дефицит. Распределения — со знаком требуемой мощности, в порядке "
        "stations, МВт.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged by psab's deterministic implementation of the stated rules (graph components by search, quorum "
               "election, water-filling allocation): new_lead exactly, every number within 0.1 % or 0.001 MW."),
        "ru": ("Проверяется детерминированной реализацией правил условия в psab (компоненты графа поиском, выборы по "
               "кворуму, распределение с ограничениями): new_lead — точно, каждое число — в пределах 0,1 % или 0,001 МВт."),
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="quality_standards_assets_cyber",
        scoring_kind="exact",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "F. Dörfler, J. W. Simpson-Porco, F. Bullo, Breaking the hierarchy: distributed control and economic "
                         "optimality in microgrids, IEEE Trans. Control of Network Systems 3(3), 2016, 241–253",
                "locator": "doi:10.1109/TCNS.2015.2459391, §III (distributed secondary control over a communication graph)",
                "note": "Multi-agent secondary control over an undirected communication graph; the case fixes a lead-based "
                        "variant with a quorum election rule and capped proportional sharing, stated as a procedure.",
                "confidence": "medium",
            },
            {
                "title": "P. Kundur, Power System Stability and Control, McGraw-Hill, 1994",
                "locator": "§11.1.2 (speed-droop characteristic; load sharing by parallel units K = P_n/(R·f_n)), §11.1.6 "
                           "(frequency bias of area control)",
                "note": "Participation factor of each station from its droop; required response from the frequency bias.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "new_lead is the station elected by the stated majority rule",
            "the required response, every station's allocation and the shortfall match the recomputation within "
            "max(0.1 %, 0.001 MW)",
            "allocation_mw has one value per station, in the order of stations",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {"default": 1e-3}},
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        validate_inputs=ic.unique_ids_hook(("stations",), ("links",)),
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
    )
)
