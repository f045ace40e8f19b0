"""protected_meter_placement — least-cost protection against undetectable false-data injection (optimize).

A transmission network (branch reactances, a reference bus) and its active-power meters
(injections and flows at a stated end), each with a protection cost and whether it can be
protected at all; at level 2 each substation also has a one-off site cost paid once any of its
meters is protected. The agent chooses the meters to protect. Constraint: the protected rows of
the DC measurement Jacobian have full column rank (checked numerically with the stated
tolerance), so no false-data injection a = H·c with c ≠ 0 can leave every protected meter
untouched (Bobba et al. 2010; Kim & Poor 2011). Objective: total protection cost (k$),
minimized. Reference: exact search (:mod:`psab.surrogates.meter_protection`): the greedy
minimum-cost basis of a linear matroid, inside a bounded enumeration of the opened sites.

Levels: 1 the Wood & Wollenberg 6-bus system, meter costs only; 2 the IEEE 14-bus system with
site costs, legacy meters that cannot be protected, and more flows metered at the "to" end.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import meter_protection as mp
from psab.surrogates.matpower_cases import transmission_case

FAMILY_ID = "protected_meter_placement"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 24; a rank test per candidate meter set.
MAX_INPUT_ITEMS = 200

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    ids = [m["id"] for m in inputs["measurements"]]
    order = ", ".join(ids)
    return s.submission(
        {"protect": s.array(s.boolean("true to protect this meter", ru="true — защитить этот измеритель"),
                            f"one flag per measurement, in the order {order}", length=len(ids),
                            ru=f"по одному признаку на измерение, в порядке {order}")},
        "meters to protect against false-data injection",
        ru="измерители, защищаемые от внедрения ложных данных",
    )


INPUTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["buses", "reference_bus", "branches", "measurements", "rank_rtol"],
    "properties": {
        "buses": {"type": "array", "minItems": 2, "items": {"type": "object", "required": ["id", "site_cost_kusd"],
                                                            "properties": {"id": s.ID, "site_cost_kusd": s.NONNEGATIVE}}},
        "reference_bus": s.ID,
        "branches": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["id", "from_bus", "to_bus", "x_pu"],
            "properties": {"id": s.ID, "from_bus": s.ID, "to_bus": s.ID, "x_pu": s.POSITIVE}}},
        "measurements": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["id", "quantity", "protection_cost_kusd", "protectable"],
            "properties": {"id": s.ID, "quantity": {"enum": ["p_injection", "p_flow"]}, "bus": s.ID, "branch": s.ID,
                           "side": {"enum": ["from", "to"]}, "protection_cost_kusd": s.POSITIVE,
                           "protectable": {"type": "boolean"}}}},
        "rank_rtol": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e-2},
    },
}


class Case:
    """The DC Jacobian, costs and sites of a task; unresolved references, and a meter set that
    cannot make the state observable even if all protectable meters were protected, are the
    caller's error, named by JSON pointer."""

    def __init__(self, inputs: dict[str, Any]) -> None:
        bus_ids = [b["id"] for b in inputs["buses"]]
        bus = {b: i for i, b in enumerate(bus_ids)}
        if len(bus) != len(bus_ids):
            raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/buses has duplicate ids")
        if inputs["reference_bus"] not in bus:
            raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/reference_bus {inputs['reference_bus']!r} is not a bus")
        br = inputs["branches"]
        branch = {b["id"]: i for i, b in enumerate(br)}
        for i, b in enumerate(br):
            for end in ("from_bus", "to_bus"):
                if b[end] not in bus:
                    raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/branches/{i}/{end} {b[end]!r} is not a bus")
        f = [bus[b["from_bus"]] for b in br]
        t = [bus[b["to_bus"]] for b in br]
        kind, where, side, site = [], [], [], []
        for i, m in enumerate(inputs["measurements"]):
            if m["quantity"] == "p_flow":
                if m.get("branch") not in branch:
                    raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/measurements/{i}/branch {m.get('branch')!r} "
                                           "is not a branch of the network")
                if m.get("side") not in ("from", "to"):
                    raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/measurements/{i}/side must be 'from' or 'to'")
                k = branch[m["branch"]]
                kind.append("flow")
                where.append(k)
                side.append(m["side"])
                site.append(f[k] if m["side"] == "from" else t[k])
            else:
                if m.get("bus") not in bus:
                    raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/measurements/{i}/bus {m.get('bus')!r} is not a bus")
                kind.append("injection")
                where.append(bus[m["bus"]])
                side.append("")
                site.append(bus[m["bus"]])
        self.H = mp.dc_jacobian(len(bus), bus[inputs["reference_bus"]], f, t, [float(b["x_pu"]) for b in br],
                                kind, where, side)
        self.scale = float(np.linalg.svd(self.H, compute_uv=False)[0])
        self.cost = np.array([float(m["protection_cost_kusd"]) for m in inputs["measurements"]])
        self.site = np.array(site, dtype=int)
        self.site_cost = np.array([float(b["site_cost_kusd"]) for b in inputs["buses"]])
        self.eligible = np.array([bool(m["protectable"]) for m in inputs["measurements"]])
        self.rtol = float(inputs["rank_rtol"])
        if not self.rank_ok(np.flatnonzero(self.eligible)):
            raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/measurements: even all protectable meters together do "
                                   "not make the state observable (the DC Jacobian of their rows is rank deficient)")

    def margin(self, rows: np.ndarray) -> float:
        return mp.rank_margin(self.H, rows, self.scale)

    def rank_ok(self, rows: np.ndarray) -> bool:
        return self.margin(rows) > self.rtol

    def objective(self, rows: np.ndarray) -> float:
        return mp.total_cost(list(rows), self.cost, self.site, self.site_cost)


def solve(task: Task, backend: str) -> Reference:
    case = Case(task.public_inputs)
    best = mp.optimal_placement(case.H, case.cost, case.site, case.site_cost, case.eligible)
    if best is None:  # unreachable after Case's check; kept so a solver change cannot hide it
        raise InvalidTaskError(f"{FAMILY_ID}: public_inputs/measurements: no protectable set makes the state observable")
    protect = [i in best.rows for i in range(len(case.cost))]
    return Reference(answer={"protect": protect}, objective=best.cost,
                     evidence={"sites_opened": list(best.sites_opened), "site_sets_checked": best.subsets_checked,
                               "rank_margin": case.margin(np.array(best.rows))},
                     method="exact search: greedy minimum-cost basis (linear matroid) per set of opened sites, bounded")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    case = Case(task.public_inputs)
    checks = ctx.checks()
    ids = [m["id"] for m in task.public_inputs["measurements"]]
    rows = np.flatnonzero(np.array(answer["protect"], dtype=bool))
    for i in rows:
        if not case.eligible[i]:
            checks.violate(f"/protect/{i}", f"meter {ids[i]} cannot be protected (protectable false)", False, True)
    margin = case.margin(rows)
    if margin <= case.rtol:
        checks.violate("/protect", "the protected rows of the DC measurement Jacobian must have full column rank "
                       f"(σ_min/σ_max(H) > {case.rtol:g}): the protected meters alone must make the state observable",
                       f"> {case.rtol:g}", margin)
    return Assessment(violations=checks.violations, objective=case.objective(rows),
                      evidence={"protected": [ids[i] for i in rows], "rank_margin": margin})


# ---------------------------------------------------------------------------- held-out draws

#: Wood, Wollenberg & Sheblé six-bus system (the power-flow chapter): (from, to, x pu).
WW6 = ((1, 2, 0.20), (1, 4, 0.20), (1, 5, 0.30), (2, 3, 0.25), (2, 4, 0.10), (2, 5, 0.30), (2, 6, 0.20),
       (3, 5, 0.26), (3, 6, 0.10), (4, 5, 0.40), (5, 6, 0.30))


def _r(x: float, nd: int = 4) -> float:
    return float(round(float(x), nd))


def draw(rng: np.random.Generator, level: int) -> dict[str, Any]:
    if level == 1:
        buses = [{"id": f"B{i}", "site_cost_kusd": 0.0} for i in range(1, 7)]
        branches = [{"id": f"L{a}-{b}", "from_bus": f"B{a}", "to_bus": f"B{b}", "x_pu": _r(x * rng.uniform(0.9, 1.1))}
                    for a, b, x in WW6]
        ref = "B1"
    else:
        c = transmission_case("case14")
        buses = [{"id": b["id"], "site_cost_kusd": float(rng.integers(6, 30))} for b in c["buses"]]
        branches = [{"id": b["id"], "from_bus": b["from_bus"], "to_bus": b["to_bus"], "x_pu": b["x_pu"]} for b in c["branches"]]
        ref = c["slack_bus"]
    meas: list[dict[str, Any]] = []
    inj_share, flow_share, to_share = (0.6, 0.75, 0.25) if level == 1 else (0.5, 0.7, 0.45)
    for b in buses:
        if rng.uniform() < inj_share:
            meas.append({"quantity": "p_injection", "bus": b["id"],
                         "protection_cost_kusd": float(rng.integers(8, 19)), "protectable": True})
    for br in branches:
        if rng.uniform() < flow_share:
            meas.append({"quantity": "p_flow", "branch": br["id"], "side": "to" if rng.uniform() < to_share else "from",
                         "protection_cost_kusd": float(rng.integers(3, 13)), "protectable": True})
        if rng.uniform() < 0.15:  # both ends metered
            meas.append({"quantity": "p_flow", "branch": br["id"], "side": "to",
                         "protection_cost_kusd": float(rng.integers(3, 13)), "protectable": True})
    if level >= 2:
        for m in meas:
            m["protectable"] = bool(rng.uniform() > 0.15)
    # dedupe (a flow drawn twice at the same end) and number
    seen, out = set(), []
    for m in meas:
        key = (m["quantity"], m.get("bus"), m.get("branch"), m.get("side"))
        if key not in seen:
            seen.add(key)
            out.append(m)
    out = [{"id": f"M{k + 1:02d}", **m} for k, m in enumerate(out)]
    return {"buses": buses, "reference_bus": ref, "branches": branches, "measurements": out, "rank_rtol": mp.RANK_RTOL}


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw the metering (which injections and flows, at which end), the protection costs, the
    site costs and unprotectable legacy meters (level 2) and the reactances (±10 %, level 1);
    placements the full meter set cannot make observable are drawn again."""
    for _ in range(50):
        inputs = draw(rng, level)
        try:
            Case(inputs)
        except InvalidTaskError:
            continue
        return Generated(public_inputs=inputs)
    raise RuntimeError("no observable metering in 50 draws")


def _cheapest(task: Task) -> list[int]:
    case = Case(task.public_inputs)
    n = case.H.shape[1]
    order = sorted(np.flatnonzero(case.eligible), key=lambda i: (case.cost[i], i))
    return order[:n]


def naive_answer(task: Task) -> dict[str, Any]:
    """Protect the n − 1 cheapest protectable meters (one per state variable), ignoring whether
    they span the state and ignoring site costs."""
    rows = set(_cheapest(task))
    return {"protect": [i in rows for i in range(len(task.public_inputs["measurements"]))]}


def accept(task: Task, reference: Reference) -> str | None:
    case = Case(task.public_inputs)
    rows = np.flatnonzero(np.array(reference.answer["protect"], dtype=bool))
    if case.margin(rows) < 1e3 * case.rtol:
        return "the optimal protected set is too close to rank deficiency"
    if case.rank_ok(np.array(_cheapest(task))) and case.objective(np.array(_cheapest(task))) <= (reference.objective or 0) + 1e-9:
        return "the cheapest meters already form the optimum (trivial)"
    return None


# ---------------------------------------------------------------------------- words

STATEMENT_EN = (
    "Choose the meters of public_inputs to protect (e.g. by authenticated, tamper-proof RTUs) so that no "
    "false-data injection can alter the DC state estimate without touching a protected meter, at least total cost. "
    "DC measurement model, per unit: state θ at every bus but reference_bus (θ_ref = 0); a p_injection meter at bus "
    "i reads Σ_j (θ_i − θ_j)/x_ij over the branches at i; a p_flow meter on branch f→t reads (θ_f − θ_t)/x at side "
    "'from' and (θ_t − θ_f)/x at side 'to'. H is the matrix of these rows (one per meter, columns the θ of the "
    "non-reference buses in bus order). Constraint: the rows of the protected meters, H_P, have full column rank, "
    "tested numerically as σ_min(H_P) > rank_rtol · σ_max(H) (singular values; H_P with fewer rows than columns "
    "fails). A meter with protectable false may not be protected. Cost: the sum of protection_cost_kusd of the "
    "protected meters plus, for every substation where at least one protected meter sits, its site_cost_kusd once "
    "(an injection meter sits at its bus; a flow meter at the bus of its metered end: from_bus for side 'from', "
    "to_bus for 'to'). Minimize the cost (k$). Answer protect: one boolean per measurement, in the order of "
    "measurements. Any set of the least cost scores 1; a dearer one scores 1 − gap/max(optimum, 10 k$)."
)
STATEMENT_RU = (
    "Выберите измерители из public_inputs для защиты (например, аутентифицированными защищёнными УТМ) так, чтобы "
    "никакое внедрение ложных данных не могло изменить оценку состояния по модели постоянного тока, не затронув "
    "защищённый измеритель, при наименьших затратах. Модель измерений постоянного тока, о.е.: состояние — θ во всех "
    "узлах, кроме reference_bus (θ_ref = 0); измеритель p_injection в узле i показывает Σ_j (θ_i − θ_j)/x_ij по "
    "ветвям узла i; измеритель p_flow на ветви f→t показывает (θ_f − θ_t)/x на стороне 'from' и (θ_t − θ_f)/x на "
    "стороне 'to'. H — матрица этих строк (по одной на измеритель, столбцы — θ небазисных узлов в порядке buses). "
    "Ограничение: строки защищённых измерителей H_P имеют полный столбцовый ранг, проверяемый численно как "
    "σ_min(H_P) > rank_rtol · σ_max(H) (сингулярные числа; H_P с числом строк меньше числа столбцов не проходит). "
    "Измеритель с protectable = false защищать нельзя. Затраты: сумма protection_cost_kusd защищённых измерителей "
    "плюс однократно site_cost_kusd каждой подстанции, где стоит хотя бы один защищённый измеритель (измеритель "
    "инъекции — в своём узле; измеритель перетока — в узле измеряемого конца: from_bus для 'from', to_bus для "
    "'to'). Минимизируйте затраты (тыс. долл.). Ответ protect: по одному логическому значению на измерение в "
    "порядке measurements. Любой набор наименьшей стоимости получает 1; более дорогой — 1 − разрыв/max(оптимум, "
    "10 тыс. долл.)."
)

PRESENTATION = {
    "en": {"title": "Least-cost meter protection against false-data injection", "statement": STATEMENT_EN,
           "answer_notes": "The rank test and the cost are recomputed from protect; a feasible set is scored by its cost."},
    "ru": {"title": "Защита измерителей от внедрения ложных данных при наименьших затратах", "statement": STATEMENT_RU,
           "answer_notes": "Проверка ранга и затраты пересчитываются по protect; допустимый набор оценивается по затратам.",
           "hard_constraints": (
               "строки защищённых измерителей в матрице измерений постоянного тока имеют полный столбцовый ранг: "
               "σ_min(H_P) > rank_rtol · σ_max(H)",
               "не защищается ни один измеритель с protectable = false",
               "в protect по одному значению на измерение, в порядке measurements",
           )},
}

EXPERT = {
    "en": {"statement": (
        "Protect a least-cost subset of the meters in public_inputs so that the protected meters alone make the DC "
        "(P–θ) state observable (Bobba et al. 2010; Kim & Poor 2011): no undetectable false-data injection without a "
        "protected meter. The case's own choices: θ of reference_bus fixed; flows metered at the stated end; full "
        "column rank tested as σ_min(H_P) > rank_rtol·σ_max(H); meters with protectable false excluded; cost = meter "
        "costs + each substation's site cost once where a protected meter sits (a flow meter at its metered end's "
        "bus). Answer one boolean per measurement.")},
    "ru": {"statement": (
        "Защитите набор измерителей из public_inputs наименьшей стоимости так, чтобы одни защищённые измерители "
        "обеспечивали наблюдаемость состояния по модели постоянного тока (P–θ) (Bobba et al. 2010; Kim & Poor 2011): "
        "никакое необнаружимое внедрение ложных данных без защищённого измерителя. Выбор, сделанный в задаче: θ "
        "reference_bus зафиксирован; перетоки измеряются на указанном конце; полный столбцовый ранг проверяется как "
        "σ_min(H_P) > rank_rtol·σ_max(H); измерители с protectable = false исключены; затраты = стоимость "
        "измерителей + однократная стоимость площадки каждой подстанции с защищённым измерителем (измеритель "
        "перетока — в узле измеряемого конца). Ответ — по одному логическому значению на измерение.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged by psab's DC measurement Jacobian: the protected rows' rank test σ_min(H_P) > rank_rtol·σ_max(H) "
               "and the protectable flags as hard constraints; the cost against the exact optimum (greedy matroid basis "
               "within a bounded search over opened sites), score 1 − gap/max(optimum, 10 k$)."),
        "ru": ("Проверяется по матрице измерений постоянного тока psab: проверка ранга защищённых строк "
               "σ_min(H_P) > rank_rtol·σ_max(H) и признаки protectable — жёсткие ограничения; затраты сравниваются с "
               "точным оптимумом (жадный базис матроида внутри ограниченного перебора площадок), оценка "
               "1 − разрыв/max(оптимум, 10 тыс. долл.)."),
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="quality_standards_assets_cyber",
        scoring_kind="optimize",
        confidence="medium",
        version="1",
        provenance=(
            {
                "title": "R. B. Bobba, K. M. Rogers, Q. Wang, H. Khurana, K. Nahrstedt, T. J. Overbye, Detecting false data "
                         "injection attacks on DC state estimation, Preprints of the 1st Workshop on Secure Control "
                         "Systems (SCS), 2010",
                "locator": "§III–IV: protecting a basic measurement set (the protected rows of H of full column rank) "
                           "suffices to detect every false-data injection",
                "note": "The constraint of the case; the cost model (meter and site costs, unprotectable meters) is the case's.",
                "confidence": "medium",
            },
            {
                "title": "T. T. Kim, H. V. Poor, Strategic protection against data injection attacks on power grids, IEEE "
                         "Trans. Smart Grid 2(2), 2011, 326–333",
                "locator": "doi:10.1109/TSG.2011.2119336, §III (protected set making the state observable; least-cost "
                           "choice); A. Abur, A. Gómez Expósito, Power System State Estimation, 2004, ch. 4 (DC P–θ "
                           "observability)",
                "note": "Greedy minimum-cost basis of the linear matroid of H's rows (Edmonds 1971) as the exact search "
                        "without site costs.",
                "confidence": "medium",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "the protected rows of the DC measurement Jacobian have full column rank: σ_min(H_P) > rank_rtol · σ_max(H)",
            "no meter with protectable false is protected",
            "protect has one value per measurement, in the order of measurements",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {"default": 1e-6},
                    "objective": {"relative": 1e-9, "absolute": 1e-6}},
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        objective_sense="minimize",
        objective_unit="kUSD",
        objective_scale_floor=10.0,
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        validate_inputs=ic.unique_ids_hook(("buses",), ("branches",), ("measurements",)),
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
    )
)
