"""min_synchronous_share — cheapest synchronous commitment that keeps RoCoF and SCR within limits (optimize).

A system with a large inverter-based (IBR) share must keep enough synchronous machines online:
their kinetic energy limits the rate of change of frequency after the largest infeed loss, and their
fault current keeps the short-circuit ratio at the IBR's point of connection above its minimum.
Given synchronous units (rating, H, fault-current contribution at the PCC, minimum stable and
maximum output, commitment and energy cost) — some of them synchronous condensers with no active
output —, the available IBR output, the demand, the largest infeed loss, the RoCoF limit, the grid's
own short-circuit power at the PCC and the rated IBR power there with the minimum SCR, the agent
returns the units online, their output and the IBR output. Reference: MILP of
:mod:`psab.solvers.synchronous_share` (Pyomo + HiGHS); the golden test enumerates every commitment.

Level 1 gives each unit's kinetic energy basis (H, S) and its S″k contribution at the PCC directly;
level 2 gives the units as an engineer receives them — x″d on the machine rating and the step-up
transformer's u_k on its own rating — and the agent forms S″k,i = S_rG/(x″d + u_k·S_rG/S_rT) at the
PCC (voltage factor 1, the unit's path impedance only), and a second IBR block at another bus that
does not count towards the PCC's rated IBR power.

Sources: inertia-constrained scheduling (Ahmadi & Ghasemi, IEEE Trans. Power Systems 29(4), 2014;
Teng, Trovato & Strbac, IEEE Trans. Power Systems 31(2), 2016) for the RoCoF row; the SCR screening
of CIGRE TB 671 (SCR = S″k/P_IBR); low confidence as an adaptation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.solvers import synchronous_share as ss
from psab.solvers.algebra import check, values

FAMILY_ID = "min_synchronous_share"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 10.
MAX_INPUT_ITEMS = 500
SLACK_MW = 0.01


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    unit = s.obj({"committed": s.boolean("true when the unit is online", ru="true, если агрегат в работе"),
                  "p_mw": s.number("the unit's active output, MW (0 when offline; condensers 0)",
                                   ru="активная мощность агрегата, МВт (0, если отключён; у синхронных компенсаторов 0)")},
                 "commitment and output of the unit", ru="состояние и загрузка агрегата")
    return s.submission(
        {"units": s.obj({u["id"]: unit for u in inputs["units"]}, "one entry per synchronous unit",
                        ru="по одной записи на каждый синхронный агрегат"),
         "ibr_mw": s.number("inverter-based output dispatched, MW (curtailment allowed)",
                            ru="выдаваемая мощность инверторных источников, МВт (допускается ограничение)")},
        "synchronous commitment under RoCoF and SCR limits",
        ru="состав синхронных агрегатов при ограничениях по скорости изменения частоты и ОКЗ",
    )


INPUTS_SCHEMA: dict[str, Any] = s.obj({
    "frequency_hz": s.POSITIVE, "period_h": s.POSITIVE, "demand_mw": s.POSITIVE, "ibr_available_mw": s.NONNEGATIVE,
    "largest_infeed_loss_mw": s.POSITIVE, "rocof_limit_hz_per_s": s.POSITIVE,
    "pcc": s.obj({"grid_skss_mva": s.NONNEGATIVE, "ibr_rated_mva": s.POSITIVE, "scr_min": s.POSITIVE}),
    # every number typed and signed, so that a task cannot reach the data builder with a string
    # or a zero rating (additional fields are allowed: the level-2 data of each unit)
    "units": {"type": "array", "minItems": 2, "items": {
        "type": "object", "required": ["id", "s_mva", "h_s", "p_min_mw", "p_max_mw", "fixed_cost_per_h", "marginal_cost_per_mwh"],
        "properties": {"id": s.ID, "s_mva": s.POSITIVE, "h_s": s.POSITIVE, "p_min_mw": s.NONNEGATIVE, "p_max_mw": s.NONNEGATIVE,
                       "fixed_cost_per_h": s.NONNEGATIVE, "marginal_cost_per_mwh": s.NUMBER, "skss_pcc_mva": s.POSITIVE,
                       "xdss_pu": s.POSITIVE, "uk_pct": s.POSITIVE, "s_t_mva": s.POSITIVE}}},
    "other_ibr": {"type": "object"},
}, optional=("other_ibr",))


def _bad(field: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"{FAMILY_ID}: public_inputs/{field} {why}")


def unit_sk_mva(u: dict[str, Any]) -> float:
    """S″k contribution of a unit at the PCC: given (level 1) or S_rG/(x″d + u_k·S_rG/S_rT) (level 2)."""
    if "skss_pcc_mva" in u:
        return float(u["skss_pcc_mva"])
    return float(u["s_mva"]) / (float(u["xdss_pu"]) + float(u["uk_pct"]) / 100.0 * float(u["s_mva"]) / float(u["s_t_mva"]))


def data(inputs: dict[str, Any]) -> ss.Data:
    units = inputs["units"]
    ids = [u["id"] for u in units]
    if len(set(ids)) != len(ids):
        raise _bad("units", "ids must be unique")
    for i, u in enumerate(units):
        if not u["h_s"] > 0:
            raise _bad(f"units/{i}/h_s", "H must be positive")
        if not 0 <= u["p_min_mw"] <= u["p_max_mw"] <= u["s_mva"]:
            raise _bad(f"units/{i}/p_max_mw", "needs 0 ≤ p_min_mw ≤ p_max_mw ≤ s_mva")
        if "skss_pcc_mva" not in u and not all(k in u for k in ("xdss_pu", "uk_pct", "s_t_mva")):
            raise _bad(f"units/{i}", "needs skss_pcc_mva or xdss_pu, uk_pct and s_t_mva")
        if not unit_sk_mva(u) > 0:
            raise _bad(f"units/{i}", "has no fault-current contribution")
    f0 = float(inputs["frequency_hz"])
    period = float(inputs["period_h"])
    pcc = inputs["pcc"]
    d = ss.Data(
        ids=tuple(ids), p_min=tuple(float(u["p_min_mw"]) for u in units), p_max=tuple(float(u["p_max_mw"]) for u in units),
        kinetic_mws=tuple(float(u["h_s"]) * float(u["s_mva"]) for u in units),
        sk_mva=tuple(unit_sk_mva(u) for u in units),
        fixed_cost=tuple(float(u["fixed_cost_per_h"]) * period for u in units),
        energy_cost=tuple(float(u["marginal_cost_per_mwh"]) * period for u in units),
        demand_mw=float(inputs["demand_mw"]), ibr_available_mw=float(inputs["ibr_available_mw"]),
        kinetic_required_mws=float(inputs["largest_infeed_loss_mw"]) * f0 / (2.0 * float(inputs["rocof_limit_hz_per_s"])),
        sk_required_mva=float(pcc["scr_min"]) * float(pcc["ibr_rated_mva"]) - float(pcc["grid_skss_mva"]),
    )
    if sum(d.kinetic_mws) < d.kinetic_required_mws:
        raise _bad("rocof_limit_hz_per_s", "cannot be met even with every unit online")
    if sum(d.sk_mva) < d.sk_required_mva:
        raise _bad("pcc/scr_min", "cannot be met even with every unit online")
    if sum(d.p_max) + d.ibr_available_mw < d.demand_mw:
        raise _bad("demand_mw", "exceeds the synchronous capacity plus the available IBR output")
    return d


def solve(task: Task, backend: str) -> Reference:
    d = data(task.public_inputs)
    try:
        u, p, ibr, obj = ss.solve_milp(d)
    except Exception as exc:  # SolverError: an infeasible case is the caller's
        raise _bad("units", f"admit no feasible commitment: {exc}") from None
    answer = {"units": {uid: {"committed": bool(u[g]), "p_mw": round(p[g], 6) + 0.0} for g, uid in enumerate(d.ids)},
              "ibr_mw": round(ibr, 6) + 0.0}
    return Reference(answer=answer, objective=obj, method="MILP (Pyomo + HiGHS to proven optimality)",
                     evidence={"committed": [uid for g, uid in enumerate(d.ids) if u[g]]})


def _rocof(inputs: dict[str, Any], kinetic: float) -> float | None:
    if kinetic <= 0:
        return None
    return float(inputs["largest_infeed_loss_mw"]) * float(inputs["frequency_hz"]) / (2.0 * kinetic)


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    d = data(task.public_inputs)
    u = np.array([1.0 if answer["units"][uid]["committed"] else 0.0 for uid in d.ids])
    p = np.array([float(answer["units"][uid]["p_mw"]) for uid in d.ids])
    ibr = float(answer["ibr_mw"])
    violations = check(values(u=u, p=p, ibr=ibr), ss.rows(d), ctx.tol.slack)
    kinetic = float(np.dot(d.kinetic_mws, u))
    pcc = task.public_inputs["pcc"]
    scr = (float(pcc["grid_skss_mva"]) + float(np.dot(d.sk_mva, u))) / float(pcc["ibr_rated_mva"])
    rocof = _rocof(task.public_inputs, kinetic)
    return Assessment(violations=violations, objective=ss.cost(d, u, p),
                      evidence={"rocof_hz_per_s": None if rocof is None else round(rocof, 6), "scr": round(scr, 6),
                                "committed": [uid for g, uid in enumerate(d.ids) if u[g]]})


# ---------------------------------------------------------------------------- draws

#: Synchronous fleet archetypes: (kind, S MVA range, H s range, p_min share, fixed cost $/h per MVA,
#: marginal cost $/MWh range). Condensers have no active output.
ARCHETYPES = (
    ("CCGT", (250.0, 450.0), (4.5, 6.5), 0.45, 4.0, (45.0, 70.0)),
    ("coal", (300.0, 600.0), (3.5, 5.0), 0.40, 5.0, (35.0, 55.0)),
    ("OCGT", (80.0, 180.0), (2.5, 4.0), 0.30, 6.0, (90.0, 140.0)),
    ("hydro", (100.0, 300.0), (2.5, 4.0), 0.20, 1.5, (5.0, 20.0)),
    ("condenser", (100.0, 250.0), (1.5, 7.0), 0.0, 1.2, (0.0, 0.0)),
)


def _r(x: float, nd: int = 1) -> float:
    return float(round(x, nd))


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw a fleet of 5–7 (level 1) or 8–10 (level 2) synchronous units from the archetypes, the
    demand and IBR availability, the largest infeed loss, the RoCoF limit (0.5–1.0 Hz/s) and the PCC's
    grid S″k, IBR rating and minimum SCR. Level 2 gives x″d and transformer u_k instead of the PCC
    contribution."""
    for _ in range(100):
        n = int(rng.integers(5, 8)) if level == 1 else int(rng.integers(8, 11))
        units = []
        for i in range(n):
            kind, srange, hrange, pmin, fix, mc = ARCHETYPES[int(rng.integers(len(ARCHETYPES)))]
            sm = _r(rng.uniform(*srange), 0)
            pmax = 0.0 if kind == "condenser" else _r(sm * rng.uniform(0.85, 0.95), 0)
            u: dict[str, Any] = {"id": f"{kind}{i + 1}", "s_mva": sm, "h_s": _r(rng.uniform(*hrange), 2),
                                 "p_min_mw": _r(pmax * pmin, 0), "p_max_mw": pmax,
                                 "fixed_cost_per_h": _r(fix * sm * rng.uniform(0.8, 1.2), 0),
                                 "marginal_cost_per_mwh": _r(rng.uniform(*mc), 2)}
            xd = rng.uniform(0.12, 0.25)
            st = _r(sm * float(rng.choice([1.0, 1.1])), 0)
            uk = rng.uniform(10.0, 15.0)
            # the PCC sits one transmission hop away: the contribution seen there, x″d + x_T (+ 8 % network)
            if level == 1:
                u["skss_pcc_mva"] = _r(sm / (xd + uk / 100 * sm / st + 0.08), 0)
            else:
                u |= {"xdss_pu": _r(xd, 3), "s_t_mva": st, "uk_pct": _r(uk, 2)}
            units.append(u)
        caps = sum(u["p_max_mw"] for u in units)
        demand = _r(caps * rng.uniform(0.35, 0.6), 0)
        ibr_rated = _r(demand * rng.uniform(0.5, 0.9), 0)
        f0 = int(rng.choice([50, 60]))
        loss = _r(max(u["p_max_mw"] for u in units) * rng.uniform(0.6, 1.0), 0)
        kinetic = sum(u["h_s"] * u["s_mva"] for u in units)
        # the limits make a share of the fleet necessary: RoCoF from 35–65 % of the kinetic energy,
        # SCR from 20–50 % of the units' S″k on top of the grid's (rounded as a grid code states them)
        rocof = max(0.1, round(loss * f0 / (2.0 * kinetic * rng.uniform(0.35, 0.65)), 2))
        grid_sk = _r(ibr_rated * rng.uniform(0.8, 2.0), 0)
        sk_units = sum(sm / (xd + 0.2) for sm, xd in [(u["s_mva"], 0.18) for u in units])
        scr = round((grid_sk + sk_units * rng.uniform(0.2, 0.5)) / ibr_rated, 1)
        inputs: dict[str, Any] = {
            "frequency_hz": f0, "period_h": 1.0, "demand_mw": demand,
            "ibr_available_mw": _r(ibr_rated * rng.uniform(0.4, 0.95), 0),
            "largest_infeed_loss_mw": loss, "rocof_limit_hz_per_s": rocof,
            "pcc": {"grid_skss_mva": grid_sk, "ibr_rated_mva": ibr_rated, "scr_min": scr},
            "units": units,
        }
        if level >= 2:
            inputs["other_ibr"] = {"bus": "remote 220 kV", "rated_mva": _r(ibr_rated * 0.5, 0),
                                   "note": "does not feed the PCC's SCR; its output is part of ibr_available_mw"}
        try:
            d = data(inputs)
        except InvalidTaskError:
            continue
        if d.kinetic_required_mws < 0.25 * sum(d.kinetic_mws) and d.sk_required_mva < 0.15 * sum(d.sk_mva):
            continue  # neither limit asks for much of the fleet
        return Generated(public_inputs=inputs)
    raise InvalidTaskError(f"{FAMILY_ID}: no posable draw in 100 tries")


def _unconstrained_cost(d: ss.Data) -> float:
    """The optimum without the RoCoF and SCR rows (the merit-order commitment)."""
    relaxed = ss.Data(**{**d.__dict__, "kinetic_required_mws": 0.0, "sk_required_mva": -1e9})
    return ss.solve_milp(relaxed)[3]


def accept(task: Task, reference: Reference) -> str | None:
    d = data(task.public_inputs)
    if reference.objective is not None and reference.objective <= _unconstrained_cost(d) * (1 + 1e-4):
        return "neither RoCoF nor SCR binds: the merit-order commitment is already secure"
    p = [reference.answer["units"][uid]["p_mw"] for uid in d.ids]
    at_bound = all(abs(pg - lo) < 1e-6 or abs(pg - hi) < 1e-6 for pg, lo, hi in zip(p, d.p_min, d.p_max, strict=True))
    ibr = reference.answer["ibr_mw"]
    if at_bound and (abs(ibr) < 1e-6 or abs(ibr - d.ibr_available_mw) < 1e-6):
        return "every decision sits at a bound (trivial optimum)"
    return None


def naive_answer(task: Task) -> dict[str, Any]:
    """The merit-order reading: the cheapest commitment ignoring the RoCoF and SCR rows."""
    d = data(task.public_inputs)
    relaxed = ss.Data(**{**d.__dict__, "kinetic_required_mws": 0.0, "sk_required_mva": -1e9})
    u, p, ibr, _ = ss.solve_milp(relaxed)
    return {"units": {uid: {"committed": bool(u[g]), "p_mw": p[g]} for g, uid in enumerate(d.ids)}, "ibr_mw": ibr}


# ---------------------------------------------------------------------------- words

_FORM_EN = (
    "Constraints: Σ p_i + ibr_mw = demand_mw; an online unit runs p_min_mw ≤ p_i ≤ p_max_mw, an offline one at 0 "
    "(condensers have p_max_mw = 0 but count when online); 0 ≤ ibr_mw ≤ ibr_available_mw; RoCoF = "
    "largest_infeed_loss_mw·frequency_hz / (2·Σ_online h_s·s_mva) ≤ rocof_limit_hz_per_s (Hz/s, MW·s); SCR = "
    "(grid_skss_mva + Σ_online S″k,i) / ibr_rated_mva ≥ scr_min, with S″k,i = skss_pcc_mva, or, where a unit gives "
    "xdss_pu (on s_mva) and uk_pct (on s_t_mva), S″k,i = s_mva / (xdss_pu + uk_pct/100·s_mva/s_t_mva) (voltage factor 1). "
    "Objective: minimize Σ_online fixed_cost_per_h·period_h + Σ marginal_cost_per_mwh·p_i·period_h (IBR output costs "
    "nothing). An other_ibr block, where given, does not enter the PCC's SCR."
)
_FORM_RU = (
    "Ограничения: Σ p_i + ibr_mw = demand_mw; включённый агрегат работает в диапазоне p_min_mw ≤ p_i ≤ p_max_mw, "
    "отключённый — 0 (у синхронных компенсаторов p_max_mw = 0, но во включённом состоянии они учитываются); "
    "0 ≤ ibr_mw ≤ ibr_available_mw; скорость изменения частоты RoCoF = largest_infeed_loss_mw·frequency_hz / "
    "(2·Σ_вкл h_s·s_mva) ≤ rocof_limit_hz_per_s (Гц/с, МВт·с); ОКЗ SCR = (grid_skss_mva + Σ_вкл S″k,i) / ibr_rated_mva ≥ "
    "scr_min, где S″k,i = skss_pcc_mva, а если заданы xdss_pu (на s_mva) и uk_pct (на s_t_mva) — "
    "S″k,i = s_mva / (xdss_pu + uk_pct/100·s_mva/s_t_mva) (коэффициент напряжения 1). Цель: минимум "
    "Σ_вкл fixed_cost_per_h·period_h + Σ marginal_cost_per_mwh·p_i·period_h (мощность инверторных источников "
    "бесплатна). Блок other_ibr, если задан, в ОКЗ точки присоединения не входит."
)

PRESENTATION = {
    "en": {
        "title": "Minimum synchronous commitment under RoCoF and short-circuit-ratio limits",
        "statement": (
            "Choose which synchronous units (generators and synchronous condensers) are online for the period and "
            "their output, and the inverter-based output, so that the demand is met, the rate of change of frequency "
            "after the largest infeed loss stays within its limit and the short-circuit ratio at the IBR's point of "
            "connection stays above its minimum, at least cost. " + _FORM_EN),
        "answer_notes": ("units: for every unit committed (boolean) and p_mw; ibr_mw. Balance and limits hold within "
                         "0.01 MW; the score is 1 − gap/max(|optimum|, 100)."),
    },
    "ru": {
        "title": "Минимальный состав синхронных агрегатов при ограничениях по RoCoF и ОКЗ",
        "statement": (
            "Выберите, какие синхронные агрегаты (генераторы и синхронные компенсаторы) включены на период и их "
            "загрузку, а также мощность инверторных источников, чтобы покрыть спрос, удержать скорость изменения "
            "частоты после потери наибольшего источника в пределах и отношение короткого замыкания в точке "
            "присоединения инверторных источников не ниже минимума, с наименьшими затратами. " + _FORM_RU),
        "answer_notes": ("units — для каждого агрегата committed (логическое) и p_mw; ibr_mw. Баланс и пределы — с "
                         "точностью 0,01 МВт; оценка 1 − разрыв/max(|оптимум|, 100)."),
        "hard_constraints": (
            "суммарная мощность синхронных агрегатов и инверторных источников равна спросу (±0,01 МВт)",
            "включённый агрегат — в [p_min_mw, p_max_mw]; отключённый — 0",
            "мощность инверторных источников — в [0, ibr_available_mw]",
            "RoCoF = ΔP·f₀/(2·Σ_вкл H·S) не превышает rocof_limit_hz_per_s",
            "SCR = (S″k сети + Σ_вкл S″k,i)/S_ИИ не ниже scr_min",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Find the least-cost synchronous commitment and dispatch for the period in public_inputs subject to a RoCoF limit "
        "after the largest infeed loss (aggregate swing equation, kinetic energy of the online machines) and a minimum "
        "short-circuit ratio at the IBR's PCC (S″k over rated IBR power, units' contributions by their subtransient path), "
        "with the demand met within unit limits. The case's choices: the kinetic energy of every online machine, "
        "synchronous condensers included and the lost infeed's own unit not removed, with H on each unit's s_mva; the "
        "short-circuit power at the PCC the grid's plus each online unit's (its skss_pcc_mva, or its subtransient "
        "reactance and step-up transformer in series on their ratings, voltage factor 1), the other_ibr block not in the "
        "PCC's ratio; an online unit between p_min_mw and p_max_mw, an offline one at zero; IBR output free, each "
        "online unit paying its fixed cost for the period and its marginal cost on its energy.")},
    "ru": {"statement": (
        "Найдите наименее затратный состав и загрузку синхронных агрегатов на период из public_inputs при ограничении "
        "RoCoF после потери наибольшего источника (агрегированное уравнение движения, кинетическая энергия включённых "
        "машин) и минимальном ОКЗ в точке присоединения инверторных источников (S″k к номинальной мощности ИИ, вклады "
        "агрегатов по сверхпереходному сопротивлению пути) при покрытии спроса в пределах агрегатов. Принято в задаче: "
        "кинетическая энергия всех включённых машин, включая синхронные компенсаторы, без исключения агрегата потерянного "
        "источника, H — на s_mva агрегата; мощность КЗ в точке присоединения — мощность сети плюс вклад каждого "
        "включённого агрегата (его skss_pcc_mva или сверхпереходное сопротивление и повышающий трансформатор "
        "последовательно на их номинальных мощностях, коэффициент напряжения 1), блок other_ibr в ОКЗ точки "
        "присоединения не входит; включённый агрегат — между p_min_mw и p_max_mw, отключённый — на нуле; выработка ИИ "
        "бесплатна, каждый включённый агрегат платит постоянные затраты за период и удельные — за выработку.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged by recomputing every constraint of the statement at the submitted numbers (0.01 MW slack on "
               "balance and limits, exact kinetic-energy and S″k sums) and the cost against the MILP optimum of "
               "Pyomo + HiGHS: score 1 − gap/max(|optimum|, 100)."),
        "ru": ("Проверяется пересчётом каждого ограничения задачи по представленным числам (допуск 0,01 МВт на баланс и "
               "пределы, точные суммы кинетической энергии и S″k) и затрат против оптимума MILP (Pyomo + HiGHS): "
               "оценка 1 − разрыв/max(|оптимум|, 100)."),
    },
}

SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="stability_grid_code",
        scoring_kind="optimize",
        confidence="low",
        version="1",
        provenance=(
            {"title": "H. Ahmadi, H. Ghasemi, Security-constrained unit commitment with linearized system frequency limit constraints; "
                      "F. Teng, V. Trovato, G. Strbac, Stochastic scheduling with inertia-dependent fast frequency response requirements, IEEE Trans. Power Systems 31(2), 2016",
             "locator": "RoCoF after the largest infeed loss from the aggregate swing equation, RoCoF = ΔP·f₀/(2·Σ H_i S_i), as a commitment constraint",
             "note": "Single-period adaptation: the RoCoF row is linear in the commitment variables.",
             "confidence": "low"},
            {"title": "CIGRE TB 671, Connection of wind farms to weak AC networks (2016); IEEE Std 2800-2022 (SCR at the POI)",
             "locator": "short-circuit ratio SCR = S″k at the PCC / rated IBR power",
             "note": "Unit contributions at the PCC added to the grid's S″k (superposition of subtransient infeeds).",
             "confidence": "low"},
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "synchronous plus inverter-based output equals the demand (±0.01 MW)",
            "an online unit runs in [p_min_mw, p_max_mw]; an offline one at 0",
            "inverter-based output within [0, ibr_available_mw]",
            "RoCoF = ΔP·f₀/(2·Σ_online H·S) at most rocof_limit_hz_per_s",
            "SCR = (grid S″k + Σ_online S″k,i)/rated IBR power at least scr_min",
        ),
        metrics=(),
        tolerances={"feasibility": {"default": SLACK_MW, "kinetic_mws": 1e-6, "sk_mva": 1e-6},
                    "objective": {"relative": 1e-6, "absolute": 0.5}},
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        objective_sense="minimize",
        objective_unit="currency units",
        objective_scale_floor=100.0,
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
    )
)
