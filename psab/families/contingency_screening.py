"""contingency_screening — N-1 screening of every single-branch outage (classify).

Given a meshed transmission network (buses, π-model branches with MW ratings on active power),
its loads and a generation dispatch, the agent classifies every single-branch outage as
"secure", "overload" (naming every branch whose post-outage active flow exceeds its rating) or
"islanding" (the outage splits the network). The evaluator recomputes the classification — by
the DC power flow with line outage distribution factors (surrogate) or by an AC N-1 loop in
pandapower (one Newton-Raphson power flow per outage) — and scores the share of outages
classified correctly.

Sources: Wood, Wollenberg & Sheblé, *Power Generation, Operation and Control*, 3rd ed. (2014),
ch. 7 (contingency analysis with linear sensitivity factors, eq. 7.8 LODF); Guler, Gross & Liu,
"Generalized line outage distribution factors", IEEE Trans. Power Syst. 22(2), 2007 (bridge
outages: 1 − PTDF_kk = 0).

Ratings are MW on the active flow — the only quantity the DC model knows, so both backends
compare the same thing (AC: the larger |P| of the two branch ends). The two models differ by
the losses and voltage magnitudes the DC model neglects: measured over 40 random draws of this
case, the AC loading exceeds the DC one by up to 2.7 % of the rating near the limit and falls
short of it by at most 0.3 %. Held-out draws (and the public case) therefore keep every
post-outage DC loading outside the band [96 %, 103 %] of its rating — one-sided wider below,
where the losses push AC flows up — and ``tests/families/test_contingency_screening.py`` checks
that both backends classify 50 generated cases identically.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import GenerationError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates import dc_flow

FAMILY_ID = "contingency_screening"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 20; one power flow per outage.
MAX_INPUT_ITEMS = 300

#: DC post-outage loadings inside [LOW, HIGH] × rating are excluded from cases (see above).
MARGIN_LOW = 0.96
MARGIN_HIGH = 1.03
#: The heaviest post-outage loading a case may contain: beyond it an AC power flow of this
#: network nears voltage collapse and the screening question stops being a thermal one.
MAX_LOADING = 1.6

STATUSES = ("secure", "overload", "islanding")

# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    ids = [b["id"] for b in inputs["branches"]]
    outcome = s.obj(
        {
            "status": s.enum(STATUSES, "secure: every remaining branch within its rating; overload: at least one "
                             "branch above its rating; islanding: the outage splits the network",
                             ru="secure — все оставшиеся ветви в пределах допустимого; overload — хотя бы одна ветвь "
                                "перегружена; islanding — отключение делит сеть на части"),
            "overloaded_branch_ids": s.array(
                s.enum(ids, "a branch id", ru="идентификатор ветви"),
                "the branches whose post-outage active flow exceeds their rating, in the case's branch order; "
                "empty unless status is overload",
                max_items=len(ids) - 1, unique=True,
                ru="ветви, послеаварийный активный переток которых превышает допустимый, в порядке ветвей схемы; "
                   "пуст, если статус не overload",
            ),
        },
        "the outcome of this outage", ru="исход отключения этой ветви",
    )
    return s.submission(
        {"outages": s.obj({i: outcome for i in ids}, "one entry per branch: the outcome of its single outage",
                          ru="по одной записи на ветвь: исход её одиночного отключения")},
        "N-1 contingency screening", ru="анализ по критерию N-1",
    )


PRESENTATION = {
    "en": {
        "title": "N-1 contingency screening of a transmission network",
        "statement": (
            "The network in public_inputs (per unit on base_mva; each branch a π model with series r_pu + j·x_pu, "
            "total charging b_pu, and an ideal transformer of ratio tap_ratio and shift phase_shift_deg on the "
            "from_bus side) operates at the given dispatch: loads p_mw + j·q_mvar, generators at p_mw holding "
            "vm_pu; the generator at slack_bus balances the network. With every branch in service all flows are "
            "within their ratings. For each branch in turn, take that branch (and only it) out of service and "
            "classify the outage: \"islanding\" if the remaining branches no longer connect every bus; otherwise "
            "\"overload\" if the active power flow of at least one remaining branch exceeds its rating_mw, listing "
            "all such branches in the case's branch order; otherwise \"secure\". Ratings are on active power (MW), "
            "compared with the larger |P| of the two branch ends; a flow exactly at its rating is not an overload. A "
            "bus is cut off when no path of in-service branches joins it to slack_bus, whether or not it has a "
            "generator (an outage that leaves only a generator bus or a condenser alone is islanding too). With "
            "the DC power flow (losses and reactive power neglected, |V| = 1 pu) a branch's susceptance is "
            "1/(x_pu·tap_ratio), its flow b·(θ_from − θ_to − phase_shift) and the slack absorbs the imbalance; in "
            "the AC power flow the slack also supplies the losses. Bus shunts (shunts, where given) are admittances "
            "g_pu + j·b_pu per unit on base_mva at their bus (MATPOWER's Gs, Bs over baseMVA; b_pu > 0 capacitive): "
            "part of the bus admittance matrix in the AC power flow; in the DC power flow a conductance is a load of "
            "g_pu·base_mva MW (as MATPOWER's DC power flow takes it) and a susceptance does not enter. No post-outage loading, DC or AC, lies within "
            "−4 %/+3 % of a rating (and the base case is below 96 %), so the DC and AC power flows classify every "
            "case the same way: either may be used."
        ),
        "answer_notes": (
            "One entry per branch under outages. overloaded_branch_ids is empty for secure and islanding outages. "
            "Score: the share of outages classified correctly; an overload with a wrong branch list is a miss."
        ),
    },
    "ru": {
        "title": "Анализ надёжности сети по критерию N-1",
        "statement": (
            "Сеть из public_inputs (о.е. на базе base_mva; каждая ветвь — П-образная схема с продольным "
            "сопротивлением r_pu + j·x_pu, полной ёмкостной проводимостью b_pu и идеальным трансформатором с "
            "коэффициентом tap_ratio и углом phase_shift_deg со стороны узла from_bus) работает в заданном "
            "режиме: нагрузки p_mw + j·q_mvar, генераторы с мощностью p_mw и напряжением vm_pu; генератор в "
            "балансирующем узле slack_bus покрывает небаланс. В нормальной схеме все перетоки в пределах "
            "допустимых. Поочерёдно отключите каждую ветвь (только её одну) и классифицируйте отключение: "
            "«islanding», если оставшиеся ветви не связывают все узлы (сеть делится на части); иначе «overload», "
            "если активный переток хотя бы одной оставшейся ветви превышает её rating_mw, — с перечнем всех таких "
            "ветвей в порядке их следования в исходных данных; иначе «secure». Допустимые перетоки заданы по "
            "активной мощности (МВт) и сравниваются с большим из |P| по концам ветви; переток, точно равный "
            "допустимому, перегрузкой не считается. Узел отделён, если никакой путь по включённым ветвям не "
            "связывает его с slack_bus, есть ли в нём генератор или нет (отключение, после которого отдельно "
            "остаётся лишь узел генератора или синхронного компенсатора, — тоже islanding). В расчёте по "
            "постоянному току (потери и реактивная мощность не учитываются, |V| = 1 о.е.) проводимость ветви "
            "равна 1/(x_pu·tap_ratio), переток — b·(θ_from − θ_to − phase_shift), небаланс покрывает "
            "балансирующий узел; в полном расчёте режима балансирующий узел покрывает и потери. Шунты в узлах "
            "(shunts, если заданы) — проводимости g_pu + j·b_pu в о.е. на базе base_mva (Gs, Bs MATPOWER, делённые "
            "на baseMVA; b_pu > 0 — ёмкостная): в полном расчёте режима входят в матрицу узловых проводимостей; в "
            "расчёте по постоянному току активная проводимость — нагрузка g_pu·base_mva МВт (как в расчёте по "
            "постоянному току MATPOWER), а реактивная не учитывается. Ни одна "
            "послеаварийная загрузка, ни по постоянному, ни по переменному току, не лежит в полосе −4 %/+3 % от "
            "допустимой (а в нормальной схеме загрузка "
            "ниже 96 %), поэтому расчёты по постоянному и переменному току дают одинаковую классификацию: можно "
            "пользоваться любым."
        ),
        "answer_notes": (
            "По одной записи на каждую ветвь в outages. Для «secure» и «islanding» список overloaded_branch_ids "
            "пуст. Оценка — доля правильно классифицированных отключений; «overload» с неверным перечнем ветвей "
            "считается ошибкой."
        ),
        "hard_constraints": (
            "по одному исходу на каждую ветвь; статус — secure, overload или islanding",
            "overloaded_branch_ids содержит идентификаторы ветвей схемы, каждый не более одного раза, в порядке ветвей схемы, и непуст тогда и только тогда, когда статус — overload",
        ),
    },
}


EXPERT = {
    "en": {"statement": (
        "Perform the N-1 security screening of the transmission network in public_inputs at its dispatch (Wood, "
        "Wollenberg & Sheblé, Power Generation, Operation and Control, 3rd ed., ch. 7): for every single-branch "
        "outage report islanding (some bus no longer connected to slack_bus), otherwise overload with every remaining "
        "branch whose active flow, the larger |P| of its two ends, exceeds rating_mw (in the case's branch order), "
        "otherwise secure. Branches are π models per unit on base_mva with tap ratio and phase shift on the from side; "
        "shunts are bus admittances g_pu + j·b_pu (MATPOWER's Gs, Bs over baseMVA, a DC power flow taking G as a load "
        "at 1 pu and ignoring B). "
        "No post-outage loading lies within −4 %/+3 % of a rating, so a DC and an AC power flow agree."
    )},
    "ru": {"statement": (
        "Выполните анализ надёжности сети из public_inputs по критерию N-1 в заданном режиме (Wood, Wollenberg & "
        "Sheblé, Power Generation, Operation and Control, 3-е изд., гл. 7): для каждого одиночного отключения ветви "
        "укажите islanding (какой-либо узел теряет связь со slack_bus), иначе overload со всеми оставшимися ветвями, "
        "активный переток которых (больший |P| по концам) превышает rating_mw (в порядке ветвей схемы), иначе "
        "secure. Ветви — П-образные схемы в о.е. на base_mva, коэффициент трансформации и фазовый сдвиг — со стороны "
        "from_bus; shunts — проводимости g_pu + j·b_pu в узлах (Gs, Bs MATPOWER на baseMVA; в расчёте по постоянному "
        "току G — нагрузка при 1 о.е., B не учитывается). Ни одна послеаварийная загрузка не лежит в полосе −4 %/+3 % от допустимой, так что расчёты по "
        "постоянному и переменному току совпадают."
    )},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged against psab's DC screening: a DC power flow of the base case and line outage distribution factors for "
              "every outage (islanding where an outage is a bridge; shunt conductances as loads at 1 pu, susceptances "
              "left out), ratings on |P| in MW. Score: the share of outages "
              "whose status and overloaded-branch set match.",
        "ru": "Проверяется по расчёту psab на постоянном токе: потокораспределение нормальной схемы и коэффициенты "
              "распределения при отключении ветвей для каждого отключения (islanding, если ветвь — мост; активные "
              "проводимости шунтов — нагрузки при 1 о.е., реактивные не учитываются), допустимые "
              "перетоки — по |P| в МВт. Оценка — доля отключений, у которых совпали статус и множество перегруженных ветвей.",
    },
    "pandapower": {
        "en": "Judged against an AC N-1 loop in pandapower: one Newton-Raphson power flow per outage (the slack generator "
              "covers the imbalance and the losses, the other generators hold p_mw and vm_pu, the shunts in the net as "
              "pandapower shunts), islanding by graph search, "
              "the larger |P| of the two ends against rating_mw. The case's margins make it classify exactly like the DC "
              "screening. Score: the share of outages whose status and overloaded-branch set match.",
        "ru": "Проверяется циклом N-1 на переменном токе в pandapower: по одному расчёту режима методом Ньютона–Рафсона "
              "на каждое отключение (балансирующий генератор покрывает небаланс и потери, остальные держат p_mw и vm_pu, "
              "шунты входят в сеть как шунты pandapower), "
              "отделение узлов — поиском по графу, больший |P| по концам ветви сравнивается с rating_mw. Запасы случая "
              "гарантируют ту же классификацию, что и расчёт на постоянном токе. Оценка — доля отключений с совпавшими "
              "статусом и множеством перегруженных ветвей.",
    },
}


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest DC reading: every branch's susceptance 1/x_pu — off-nominal taps and phase
    shifts ignored."""
    inputs = task.public_inputs
    plain = {**inputs, "branches": [{**b, "tap_ratio": 1.0, "phase_shift_deg": 0.0} for b in inputs["branches"]]}
    ids = [b["id"] for b in inputs["branches"]]
    rating = np.array([float(b["rating_mw"]) for b in inputs["branches"]])
    _, post, bridge = dc_screening(plain)
    return {"outages": classify(ids, rating, post, bridge)}


#: The shape of public_inputs (a task that does not fit raises InvalidTaskError).
INPUTS_SCHEMA = s.obj({
    "base_mva": s.POSITIVE, "frequency_hz": s.POSITIVE, "slack_bus": s.ID,
    "buses": s.array(s.obj({"id": s.ID, "vn_kv": s.POSITIVE}), "buses", min_items=2),
    "branches": s.array(s.obj({"id": s.ID, "from_bus": s.ID, "to_bus": s.ID, "r_pu": s.NUMBER, "x_pu": s.POSITIVE, "b_pu": s.NUMBER,
                               "tap_ratio": s.POSITIVE, "phase_shift_deg": s.NUMBER, "rating_mw": s.POSITIVE}), "branches", min_items=2),
    "loads": s.array(s.obj({"id": s.ID, "bus": s.ID, "p_mw": s.NUMBER, "q_mvar": s.NUMBER}), "loads"),
    "generators": s.array(s.obj({"id": s.ID, "bus": s.ID, "p_mw": s.NUMBER, "vm_pu": s.POSITIVE}), "generators", min_items=1),
    "shunts": s.array(s.obj({
        "id": s.ID, "bus": s.ID,
        "g_pu": s.number("shunt conductance (p.u. on base_mva; active power consumed at |V| = 1 pu)",
                         ru="активная проводимость шунта (о.е. на базе base_mva; потребляемая активная мощность при |V| = 1 о.е.)"),
        "b_pu": s.number("shunt susceptance (p.u. on base_mva; > 0 capacitive, reactive power injected at |V| = 1 pu)",
                         ru="реактивная проводимость шунта (о.е. на базе base_mva; > 0 — ёмкостная, выдаваемая реактивная "
                            "мощность при |V| = 1 о.е.)")}),
        "bus shunts (MATPOWER's Gs, Bs over baseMVA)", ru="шунты в узлах (Gs, Bs MATPOWER, делённые на baseMVA)"),
}, optional=("shunts",))


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """Ids unique, every branch, load and generator on a known bus, the slack a bus, and the
    intact network connected (an outage may island it; the base case may not)."""
    p = ic.Problems()
    ic.bus_branch_problems(p, inputs, slack="slack_bus", attached=("loads", "generators"))
    p.unique_ids("/loads", inputs["loads"])
    p.unique_ids("/generators", inputs["generators"])
    return p

# ---------------------------------------------------------------------------- physics


def dc_network(inputs: dict[str, Any]) -> dc_flow.DcNetwork:
    return dc_flow.DcNetwork.from_case(inputs["buses"], inputs["branches"], inputs["slack_bus"], float(inputs["base_mva"]))


def injections_mw(inputs: dict[str, Any]) -> np.ndarray:
    """Net active injection (generation − load) at every bus, MW. A shunt conductance is a load
    of g_pu·base_mva at |V| = 1 pu, as MATPOWER's DC power flow takes it (rundcpf: P_bus − G_s);
    shunt susceptances carry no active power and do not enter the DC flows."""
    pos = {b["id"]: i for i, b in enumerate(inputs["buses"])}
    P = np.zeros(len(pos))
    for g in inputs["generators"]:
        P[pos[g["bus"]]] += float(g["p_mw"])
    for ld in inputs["loads"]:
        P[pos[ld["bus"]]] -= float(ld["p_mw"])
    for sh in inputs.get("shunts", ()):
        P[pos[sh["bus"]]] -= float(sh.get("g_pu", 0.0)) * float(inputs["base_mva"])
    return P


def dc_screening(inputs: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Base-case DC flows (MW), every single-outage post-contingency flow (column k = outage of
    branch k, MW; NaN for a bridge) and the bridge mask — DC power flow with LODF."""
    net = dc_network(inputs)
    base = dc_flow.dc_power_flow(net, injections_mw(inputs)).flow_mw
    factors = dc_flow.lodf(net)
    return base, dc_flow.post_outage_flows(base, factors), factors.bridge


def ac_screening(inputs: dict[str, Any], key: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same three quantities from pandapower's AC N-1 loop (active flows, the larger end)."""
    from psab.backends import pandapower_ac_checks as acc

    p = acc.prepared((FAMILY_ID, key), acc.AcCase.from_case(inputs))
    base = acc.flows(p).active_flow_mw
    results = acc.n_minus_1(p)
    post = np.column_stack([r.active_flow_mw for r in results])
    islanded = np.array([r.islanded for r in results])
    return base, post, islanded


def classify(ids: list[str], rating: np.ndarray, post: np.ndarray, islanded: np.ndarray) -> dict[str, dict[str, Any]]:
    """The outcome of every outage from its post-outage flows (column k) and islanding flags."""
    out = {}
    for k, bid in enumerate(ids):
        if islanded[k]:
            out[bid] = {"status": "islanding", "overloaded_branch_ids": []}
            continue
        loading = np.abs(post[:, k]) / rating
        over = [ids[j] for j in range(len(ids)) if j != k and loading[j] > 1.0]
        out[bid] = {"status": "overload" if over else "secure", "overloaded_branch_ids": over}
    return out


def solve(task: Task, backend: str) -> Reference:
    inputs = task.public_inputs
    ids = [b["id"] for b in inputs["branches"]]
    rating = np.array([float(b["rating_mw"]) for b in inputs["branches"]])
    if backend == "pandapower":
        base, post, islanded = ac_screening(inputs, task.digest)
        method = "AC N-1 loop: pandapower Newton-Raphson power flow per outage, islanding by graph search"
    else:
        base, post, islanded = dc_screening(inputs)
        method = "DC power flow with line outage distribution factors (Wood & Wollenberg eq. 7.8)"
    outcomes = classify(ids, rating, post, islanded)
    with np.errstate(invalid="ignore"):
        worst = {ids[k]: (None if islanded[k] else round(float(np.nanmax(np.abs(post[:, k]) / rating) * 100.0), 2))
                 for k in range(len(ids))}
    return Reference(
        answer={"outages": outcomes},
        evidence={"base_max_loading_pct": round(float(np.max(np.abs(base) / rating) * 100.0), 2),
                  "max_post_outage_loading_pct": worst},
        method=method,
    )


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    ids = [b["id"] for b in task.public_inputs["branches"]]
    order = {bid: i for i, bid in enumerate(ids)}
    ref = ctx.reference()
    truth = ref.answer["outages"]
    checks = ctx.checks()
    misses = []
    correct = 0
    for bid in ids:
        got = answer["outages"][bid]
        listed = got["overloaded_branch_ids"]
        pointer = f"/outages/{bid}/overloaded_branch_ids"
        positions = [order[x] for x in listed]
        if positions != sorted(positions):
            checks.violate(pointer, "overloaded branches must be listed in the case's branch order", sorted(listed, key=order.get), listed)
        if (got["status"] == "overload") != bool(listed):
            checks.violate(pointer, "a non-empty list goes with status 'overload', and only with it", f"status {got['status']!r}", listed)
        want = truth[bid]
        if got["status"] == want["status"] and set(listed) == set(want["overloaded_branch_ids"]):
            correct += 1
        else:
            misses.append({"outage": bid, "expected": want, "found": {"status": got["status"], "overloaded_branch_ids": listed}})
    evidence = {"misses": misses, "reference_method": ref.method, **ref.evidence}
    return Assessment(violations=checks.violations, correct=correct, total=len(ids), evidence=evidence)


# ---------------------------------------------------------------------------- held-out draws


def margin_problem(inputs: dict[str, Any], screening: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> str | None:
    """Why the case's DC loadings would let the backends disagree (or the case be degenerate),
    or ``None``: base case within MARGIN_LOW, post-outage loadings outside [MARGIN_LOW,
    MARGIN_HIGH] and below MAX_LOADING, and at least one overloading and two secure outages.

    ``screening`` is :func:`dc_screening` of ``inputs`` when the caller has it already (the
    flows do not depend on the ratings this judges them against)."""
    rating = np.array([float(b["rating_mw"]) for b in inputs["branches"]])
    if screening is None:
        try:
            screening = dc_screening(inputs)
        except dc_flow.IslandedNetworkError:
            return "the base case is islanded"
    base, post, bridge = screening
    if np.max(np.abs(base) / rating) >= MARGIN_LOW:
        return "the base case is loaded to within the margin of a rating"
    loading = np.abs(post[:, ~bridge]) / rating[:, None]
    if np.any((loading >= MARGIN_LOW) & (loading <= MARGIN_HIGH)):
        return "a post-outage loading lies within the DC/AC agreement band"
    if np.any(loading > MAX_LOADING):
        return "a post-outage loading exceeds the realistic maximum"
    overloads = int(np.sum(np.any(loading > 1.0, axis=0)))
    secure = int(np.sum(~np.any(loading > 1.0, axis=0)))
    if overloads < 1 or secure < 2:
        return "too few overloading or secure outages for a meaningful screening"
    return None


def _rating_for(flows: np.ndarray, nominal: float, rng: np.random.Generator) -> float:
    """A rating near ``nominal`` whose loadings by ``flows`` avoid the agreement band and stay
    below MAX_LOADING — redrawn per branch, since a rating affects only its own loadings."""
    peak = float(np.nanmax(np.abs(flows)))
    for _ in range(40):
        r = round(nominal * float(rng.uniform(0.85, 1.15)))
        loading = np.abs(flows) / r
        if not np.any((loading >= MARGIN_LOW) & (loading <= MARGIN_HIGH)) and peak / r <= MAX_LOADING:
            return float(r)
    return float(round(nominal))


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Level 1: the public 9-bus case redrawn (:func:`generate_small`). Level 2: the IEEE 14-bus
    system (MATPOWER case14: three voltage levels, off-nominal transformers, one made a phase
    shifter, a radial condenser bus). (The 57-bus system was tried as a level 3: rating 80
    branches against 80 AC outages per draw took minutes per accepted draw.)"""
    if level == 1:
        return generate_small(public, rng)
    return generate_matpower(public, rng, "case14")


def ac_screening_surrogate(inputs: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Base-case and post-outage active flows (MW, the larger |P| of the two ends) by psab's own
    Newton-Raphson (:mod:`psab.surrogates.ac_power_flow`, the model pandapower's AC loop solves:
    PV generators without reactive limits, constant-power loads), column k = outage of branch k
    (NaN for a bridge), and the bridge mask; ``None`` when a power flow does not converge.
    Used by the generator of levels 2-3, where the AC-DC gap of a larger network is too wide for
    the DC margins alone, so that ratings clear the agreement band in both models."""
    from psab.surrogates.ac_power_flow import (
        PQ,
        PV,
        SLACK,
        PowerFlowDidNotConverge,
        make_network,
        solve_ac,
    )

    buses, br = inputs["buses"], inputs["branches"]
    pos = {b["id"]: i for i, b in enumerate(buses)}
    n, m = len(buses), len(br)
    types = [PQ] * n
    p_gen, v_set, p_load, q_load = np.zeros(n), np.ones(n), np.zeros(n), np.zeros(n)
    for g in inputs["generators"]:
        i = pos[g["bus"]]
        types[i] = PV
        p_gen[i] += float(g["p_mw"])
        v_set[i] = float(g["vm_pu"])
    types[pos[inputs["slack_bus"]]] = SLACK
    for ld in inputs["loads"]:
        p_load[pos[ld["bus"]]] += float(ld["p_mw"])
        q_load[pos[ld["bus"]]] += float(ld["q_mvar"])
    g_sh, b_sh = np.zeros(n), np.zeros(n)
    for sh in inputs.get("shunts", ()):
        g_sh[pos[sh["bus"]]] += float(sh.get("g_pu", 0.0))
        b_sh[pos[sh["bus"]]] += float(sh.get("b_pu", 0.0))
    f_idx = np.array([pos[b["from_bus"]] for b in br])
    t_idx = np.array([pos[b["to_bus"]] for b in br])
    r = np.array([float(b["r_pu"]) for b in br])
    x = np.array([float(b["x_pu"]) for b in br])
    bc = np.array([float(b.get("b_pu", 0.0)) for b in br])
    tap = np.array([float(b.get("tap_ratio", 1.0)) for b in br]) * np.exp(1j * np.radians([float(b.get("phase_shift_deg", 0.0)) for b in br]))
    base_mva = float(inputs["base_mva"])
    bridge = dc_screening(inputs)[2]

    def flows(on: np.ndarray) -> np.ndarray:
        net = make_network(base_mva=base_mva, bus_type=types, from_idx=f_idx[on], to_idx=t_idx[on], r_pu=r[on], x_pu=x[on],
                           b_pu=bc[on], tap_ratio=np.abs(tap[on]), phase_shift_deg=np.degrees(np.angle(tap[on])),
                           p_load_mw=p_load, q_load_mvar=q_load, p_gen_mw=p_gen, v_set_pu=v_set,
                           shunt_g_pu=g_sh, shunt_b_pu=b_sh)
        V = solve_ac(net).V
        ys = 1.0 / (r + 1j * x)
        vf, vt = V[f_idx], V[t_idx]
        i_f = (ys + 0.5j * bc) / np.abs(tap) ** 2 * vf - ys / np.conj(tap) * vt
        i_t = -ys / tap * vf + (ys + 0.5j * bc) * vt
        out = np.maximum(np.abs((vf * np.conj(i_f)).real), np.abs((vt * np.conj(i_t)).real)) * base_mva
        out[~on] = np.nan
        return out

    try:
        base = flows(np.ones(m, dtype=bool))
        post = np.full((m, m), np.nan)
        for k in range(m):
            if not bridge[k]:
                post[:, k] = flows(np.arange(m) != k)
    except PowerFlowDidNotConverge:
        return None
    return base, post, bridge


def _rating_for_both(dc: np.ndarray, ac: np.ndarray, nominal: float, rng: np.random.Generator) -> float:
    """A rating near ``nominal`` whose loadings by the DC flows ``dc`` and the AC flows ``ac``
    (same outages, same order) all avoid the agreement band, fall on the same side of 1 in both
    models and stay below MAX_LOADING; when 40 tries find none, a rating above every loading."""
    dc, ac = np.abs(dc), np.abs(ac)
    for _ in range(40):
        rating = float(round(nominal * float(rng.uniform(0.8, 1.25))))
        if rating <= 0.0:
            continue
        ld, la = dc / rating, ac / rating
        band = ((ld >= MARGIN_LOW) & (ld <= MARGIN_HIGH)) | ((la >= MARGIN_LOW) & (la <= MARGIN_HIGH))
        if not np.any(band) and np.all((ld > 1.0) == (la > 1.0)) and max(ld.max(), la.max()) <= MAX_LOADING \
                and ld[0] < MARGIN_LOW and la[0] < MARGIN_LOW:
            return rating
    # Nothing near the nominal clears both models: rate the branch above every loading (secure).
    return float(round(max(float(dc.max()), float(ac.max()), 1.0) / 0.9 * float(rng.uniform(1.0, 1.3))))


def generate_matpower(public: Task, rng: np.random.Generator, name: str) -> Generated:
    """A MATPOWER case: loads ±20 % (power factor kept), the non-slack units redispatched
    within 10-70 % of their maximum (condensers at 0 MW stay so), impedances ±10 %, taps on a
    ±8 × 1.25 % tap changer, one transformer turned phase shifter (3-10°), and MW ratings drawn
    around 1.2-2 × the base-case DC flow, each redrawn until its loadings clear the agreement band."""
    from psab.surrogates.matpower_cases import transmission_case

    case = transmission_case(name)
    slack = case["slack_bus"]
    for _ in range(200):
        branches = []
        trafos = [k for k, b in enumerate(case["branches"]) if b["tap_ratio"] != 1.0]
        shifter = int(trafos[int(rng.integers(len(trafos)))])
        for k, b in enumerate(case["branches"]):
            f = float(rng.uniform(0.9, 1.1))
            nb = {**b, "r_pu": round(b["r_pu"] * f, 5), "x_pu": round(b["x_pu"] * f, 5), "b_pu": round(b["b_pu"] * f, 5)}
            if b["tap_ratio"] != 1.0:
                nb["tap_ratio"] = round(1.0 + 0.0125 * int(rng.integers(-8, 9)), 4) or 1.0125
            if k == shifter:
                nb["phase_shift_deg"] = round(float(rng.choice([-1.0, 1.0]) * rng.uniform(3.0, 10.0)), 2)
            if nb["tap_ratio"] == 1.0 and nb["phase_shift_deg"] == 0.0 and b["id"].startswith("T"):
                nb["tap_ratio"] = 0.9875  # stays a transformer under every backend
            branches.append(nb)
        loads = []
        for ld in case["loads"]:
            f = float(rng.uniform(0.8, 1.2))
            loads.append({"id": ld["id"], "bus": ld["bus"], "p_mw": round(ld["p_mw"] * f, 1), "q_mvar": round(ld["q_mvar"] * f, 1)})
        gens = []
        for g in case["generators"]:
            p = 0.0 if g["bus"] == slack or g["p_max_mw"] > 1e6 or (g["p_mw"] == 0.0 and name == "case14" and g["bus"] == "B8") \
                else round(g["p_max_mw"] * float(rng.uniform(0.1, 0.7)), 1)
            gens.append({"id": g["id"], "bus": g["bus"], "p_mw": p, "vm_pu": round(min(max(g["vm_pu"], 0.98), 1.06), 3)})
        slack_p = round(sum(ld["p_mw"] for ld in loads) - sum(g["p_mw"] for g in gens), 1)
        if slack_p < 0.0:
            continue
        for g in gens:
            if g["bus"] == slack:
                g["p_mw"] = slack_p
        inputs = {"base_mva": case["base_mva"], "frequency_hz": float(public.public_inputs.get("frequency_hz", 60.0)),
                  "slack_bus": slack, "buses": case["buses"], "branches": branches, "loads": loads, "generators": gens}
        if case["shunts"]:  # the case's own shunts, as MATPOWER gives them (case14: 19 Mvar at bus 9)
            inputs["shunts"] = [{"id": f"SH{sh['bus'][1:]}", **sh} for sh in case["shunts"]]
        base, post, bridge = dc_screening(inputs)
        ac = ac_screening_surrogate(inputs)
        if ac is None:
            continue
        ratings = []
        for k in range(len(branches)):
            cols = ~bridge & (np.arange(len(branches)) != k)
            dc_k = np.concatenate([[base[k]], post[k, cols]])
            ac_k = np.concatenate([[ac[0][k]], ac[1][k, cols]])
            nominal = max(abs(float(base[k])) * float(rng.uniform(1.2, 2.0)), 10.0)
            ratings.append(_rating_for_both(dc_k, ac_k, nominal, rng))
        for br, rating in zip(branches, ratings, strict=True):
            br["rating_mw"] = rating
        if margin_problem(inputs) is None:
            return Generated(public_inputs=inputs)
    raise GenerationError(f"no contingency_screening draw of {name} cleared the DC/AC agreement margins in 200 tries")


def generate_small(public: Task, rng: np.random.Generator) -> Generated:
    """Redraw loads (±20 %, power factor kept), the non-slack dispatch (±20 %, the slack
    balancing) and ratings (±15 %, each redrawn until its post-outage loadings clear the
    agreement band); sometimes drop a meshed branch so that new bridges appear."""
    base_inputs = public.public_inputs
    for _ in range(200):
        inputs = dict(base_inputs)
        branches = [dict(b) for b in base_inputs["branches"]]
        if rng.uniform() < 0.3:
            net = dc_network({**base_inputs, "branches": branches})
            candidates = [k for k in range(net.n_branch)
                          if dc_flow.is_connected(net, np.arange(net.n_branch) != k)]
            if candidates:
                del branches[int(candidates[int(rng.integers(len(candidates)))])]
        loads = []
        for ld in base_inputs["loads"]:
            f = float(rng.uniform(0.8, 1.2))
            loads.append({**ld, "p_mw": round(ld["p_mw"] * f, 1), "q_mvar": round(ld["q_mvar"] * f, 1)})
        gens = []
        for g in base_inputs["generators"]:
            gens.append({**g, "p_mw": g["p_mw"] if g["bus"] == base_inputs["slack_bus"] else round(g["p_mw"] * float(rng.uniform(0.8, 1.2)), 1)})
        others = sum(g["p_mw"] for g in gens if g["bus"] != base_inputs["slack_bus"])
        slack_p = round(sum(ld["p_mw"] for ld in loads) - others, 1)
        if not 0.2 * _slack_p(base_inputs) <= slack_p <= 1.8 * _slack_p(base_inputs):
            continue
        for g in gens:
            if g["bus"] == base_inputs["slack_bus"]:
                g["p_mw"] = slack_p
        inputs.update(branches=branches, loads=loads, generators=gens)
        screening = dc_screening(inputs)
        base, post, bridge = screening
        for k, br in enumerate(branches):
            flows = np.concatenate([[base[k]], post[k, ~bridge]])
            br["rating_mw"] = _rating_for(flows, float(br["rating_mw"]), rng)
        if margin_problem(inputs, screening) is None:
            return Generated(public_inputs=inputs)
    raise GenerationError("no contingency_screening draw cleared the DC/AC agreement margins in 200 tries")


def _slack_p(inputs: dict[str, Any]) -> float:
    return float(sum(g["p_mw"] for g in inputs["generators"] if g["bus"] == inputs["slack_bus"]))


def accept(task: Task, reference: Reference) -> str | None:
    return margin_problem(task.public_inputs)


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="network",
        scoring_kind="classify",
        confidence="medium",
        version="2",
        provenance=(
            {
                "title": "Wood, Wollenberg & Sheblé, Power Generation, Operation and Control, 3rd ed., Wiley, 2014",
                "locator": "ch. 7 Power system security: §7.3 linear sensitivity factors (PTDF, LODF eq. 7.8), contingency analysis",
                "note": "The DC contingency screening with line outage distribution factors, applied to every single-branch outage of a 9-bus, two-voltage-level network.",
                "confidence": "medium",
            },
            {
                "title": "Guler, Gross & Liu, Generalized line outage distribution factors, IEEE Trans. Power Syst. 22(2), 2007",
                "locator": "doi:10.1109/TPWRS.2006.888950, eq. 3 and §III (outages that island the network)",
                "note": "An outage with 1 − PTDF_kk = 0 is a bridge: its LODF does not exist and the outage islands the network.",
                "confidence": "medium",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "one outcome per branch, status one of secure / overload / islanding",
            "overloaded_branch_ids lists branch ids of the case, each once, in the case's branch order, and is non-empty exactly when status is overload",
        ),
        metrics=(),
        tolerances={"relative": 1e-3, "absolute_floors": {"default": 1e-6}},
        presentation=PRESENTATION,
        backends=("surrogate", "pandapower"),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
        validate_inputs=input_problems,
    )
)
