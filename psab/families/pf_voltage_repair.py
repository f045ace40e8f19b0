"""pf_voltage_repair — the least reactive injection that brings every bus voltage into band (optimize).

A small MV network (an HV infeed behind a tap-changing transformer, lines, loads, a
voltage-controlling generator, a wind park) breaches the band [0.95, 1.05] pu in its base
case. The agent chooses reactive injections (Mvar, positive = capacitive, into the network)
at the candidate buses, within their limits, minimizing the total absolute injection.

Physics per backend:

- ``surrogate``: the voltage after the injections is the linear model ``V = V0 + S·q`` with
  ``V0`` the base-case AC power flow and ``S = ∂|V|/∂Q`` from the inverse of the base case's
  full polar Newton-Raphson Jacobian (:mod:`psab.surrogates.ac_power_flow`); the reference is
  the LP on that model.
- ``pandapower``: full AC ``runpp`` with the injections as static generators; the reference is
  successive linearization — re-linearize at the AC solution, re-solve the LP — until the AC
  power flow confirms every voltage in band.

Held-out draws are accepted only when both references are feasible under both backends with
margin (see :func:`accept`), so an answer optimal for either model is judged feasible by both.

Source: Glover, Overbye & Sarma, *Power System Analysis and Design*, 6th ed., §6.4-§6.6
(Newton-Raphson power flow, the Jacobian), §6.7 (control of power flow: reactive injection
and voltage); the LP over Jacobian sensitivities is the classic linearized voltage-control
formulation (e.g. Kundur, *Power System Stability and Control*, §14.3.3).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError, SolverError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.evaluators.cache import LRUCache
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.solvers import algebra
from psab.surrogates.ac_power_flow import (
    BUS_TYPE_NAMES,
    PQ,
    AcNetwork,
    PowerFlowDidNotConverge,
    make_network,
    solve_ac,
    voltage_sensitivity,
)

FAMILY_ID = "pf_voltage_repair"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 20; one AC power flow per candidate under pandapower.
MAX_INPUT_ITEMS = 500

#: Declared feasibility tolerance of the voltage band (pu) and of the injection limits (Mvar).
VOLTAGE_TOL_PU = 2e-4
Q_LIMIT_TOL_MVAR = 1e-6
#: Held-out acceptance: both references must be feasible under both voltage models with this
#: much of the tolerance to spare (the surrogate NR and pandapower agree to ~1e-10 pu).
AC_MARGIN_PU = 1e-5
#: Held-out acceptance: the base case breaches the band by at least this much (pu), and the
#: reference injects at least this much in total (Mvar) — no trivial cases.
MIN_BREACH_PU = 2e-3
MIN_TOTAL_Q_MVAR = 0.05
#: Successive linearization stops when the LP moves the injections by less than this (Mvar)
#: and the AC power flow is in band within this (pu).
SLP_STEP_MVAR = 1e-7
SLP_TOL_PU = 1e-8
SLP_MAX_ITER = 15
#: Answers are reported to 1e-6 Mvar (a voltage change of ~1e-8 pu).
Q_DECIMALS = 6

# ---------------------------------------------------------------------------- contract


def _candidate_ids(inputs: dict[str, Any]) -> list[str]:
    return [c["bus"] for c in inputs["candidates"]]


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    cands = _candidate_ids(inputs)
    q = {
        c: s.number(f"reactive injection at bus {c} in Mvar (positive: delivered to the network, capacitive)",
                    ru=f"реактивная мощность, вводимая в узле {c}, Мвар (положительная — выдача в сеть, ёмкостная)")
        for c in cands
    }
    return s.submission(
        {"q_injection_mvar": s.obj(q, "reactive injection per candidate bus, Mvar",
                                   ru="вводимая реактивная мощность по узлам-кандидатам, Мвар")},
        "reactive injections that repair the voltage band", ru="реактивная мощность для ввода напряжений в диапазон",
    )


#: The shape of public_inputs (a task that does not fit raises InvalidTaskError). Loads,
#: generation, shunts, line charging, tap and shift default to 0 (tap 1) and v_set_pu to 1
#: when absent (:func:`case_of`).
INPUTS_SCHEMA: dict[str, Any] = s.obj({
    "base_mva": s.POSITIVE, "frequency_hz": s.POSITIVE, "v_min_pu": s.POSITIVE, "v_max_pu": s.POSITIVE,
    "buses": s.array(s.obj({
        "id": s.ID, "type": {"enum": list(BUS_TYPE_NAMES)}, "vn_kv": s.POSITIVE,
        "p_load_mw": s.NUMBER, "q_load_mvar": s.NUMBER, "p_gen_mw": s.NUMBER, "q_gen_mvar": s.NUMBER,
        "v_set_pu": s.POSITIVE, "shunt_g_pu": s.NUMBER, "shunt_b_pu": s.NUMBER,
    }, optional=("p_load_mw", "q_load_mvar", "p_gen_mw", "q_gen_mvar", "v_set_pu", "shunt_g_pu", "shunt_b_pu")),
        "buses", min_items=2),
    "branches": s.array(s.obj({
        "id": s.ID, "from_bus": s.ID, "to_bus": s.ID, "r_pu": s.NUMBER, "x_pu": s.NUMBER, "b_pu": s.NUMBER,
        "tap_ratio": s.POSITIVE, "phase_shift_deg": s.NUMBER,
    }, optional=("b_pu", "tap_ratio", "phase_shift_deg")), "branches", min_items=1),
    "candidates": s.array(s.obj({"bus": s.ID, "q_min_mvar": s.NUMBER, "q_max_mvar": s.NUMBER}), "candidates", min_items=1),
}, optional=("frequency_hz",))


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """A connected network with unique ids and exactly one slack bus, v_min_pu < v_max_pu,
    and every candidate a distinct PQ bus with q_min_mvar ≤ q_max_mvar."""
    p = ic.Problems()
    ic.bus_branch_problems(p, inputs)
    slacks = [i for i, b in enumerate(inputs["buses"]) if b["type"] == "slack"]
    if len(slacks) != 1:
        p.add("/buses", f"needs exactly one bus of type 'slack'; found {len(slacks)}")
    p.ordered("/v_max_pu", inputs["v_min_pu"], inputs["v_max_pu"], "v_min_pu", strict=True)
    kind = {b["id"]: b["type"] for b in inputs["buses"]}
    seen: set[str] = set()
    for i, c in enumerate(inputs["candidates"]):
        where = ic.pointer("candidates", i, "bus")
        if p.refers(where, c["bus"], kind, "bus") and kind[c["bus"]] != "pq":
            p.add(where, f"candidate bus {c['bus']!r} must be a PQ bus")
        if c["bus"] in seen:
            p.add(where, f"bus {c['bus']!r} is a candidate twice")
        seen.add(c["bus"])
        p.ordered(ic.pointer("candidates", i, "q_max_mvar"), c["q_min_mvar"], c["q_max_mvar"], "q_min_mvar")
    return p


PRESENTATION = {
    "en": {
        "title": "Voltage band repair by reactive injection",
        "statement": (
            "The MV network in public_inputs (per unit on base_mva; π-model branches with the transformer tap "
            "on the from side; constant-power loads and generation; a slack bus and a voltage-controlling PV "
            "generator holding v_set_pu) violates the voltage band [v_min_pu, v_max_pu] in its base case. Choose a "
            "reactive injection q_c (Mvar, positive = delivered to the network) at every candidate bus, within "
            "[q_min_mvar, q_max_mvar], so that every bus voltage lies in the band, minimizing the total absolute "
            "injection Σ|q_c|. Optimise against the band itself: the 2e-4 pu allowance of the answer notes absorbs "
            "rounding, it does not widen the band (an optimum on the widened band sits on the allowance's edge, "
            "where the answer's own rounding can breach it). The slack and the PV generators hold their v_set_pu with no reactive limit (they give "
            "whatever reactive power that takes); an injection is a constant reactive power (not an admittance); "
            "bus shunts shunt_g_pu + j·shunt_b_pu are constant admittances (b > 0 capacitive). Which model judges "
            "the voltages after the injections is stated with the judging backend (\"how the answer is judged\"): "
            "under the surrogate backend the linear model V = V0 + S·q, where V0 is the base-case AC power flow and "
            "S = ∂|V|/∂Q (pu per Mvar) comes from the inverse of the base case's full polar Newton-Raphson "
            "Jacobian (PV and slack buses hold their magnitude); under the pandapower backend the full AC power "
            "flow with the injections. The cases are drawn so that the optimum of either model is feasible under "
            "both; the score compares Σ|q| with the optimum of the judging model."
        ),
        "answer_notes": (
            "Voltages must lie in the band within 2e-4 pu and injections within their limits within 1e-6 Mvar. "
            "Score: 1 at the reference's Σ|q|, lower in proportion to the excess (scale at least 0.1 Mvar)."
        ),
    },
    "ru": {
        "title": "Ввод напряжений в допустимый диапазон за счёт реактивной мощности",
        "statement": (
            "В базовом режиме сети среднего напряжения из public_inputs (о.е. на базе base_mva; ветви — П-образные "
            "схемы замещения, отпайка трансформатора со стороны узла from_bus; нагрузки и генерация с постоянной "
            "мощностью; балансирующий узел и генератор с регулированием напряжения (PV-узел), поддерживающий "
            "v_set_pu) напряжения выходят за диапазон [v_min_pu, v_max_pu]. Задайте реактивную мощность q_c "
            "(Мвар, положительная — выдача в сеть) в каждом узле-кандидате в пределах [q_min_mvar, q_max_mvar] "
            "так, чтобы напряжения всех узлов оказались в диапазоне, при минимуме суммарной абсолютной "
            "реактивной мощности Σ|q_c|. Оптимизируйте по самому диапазону: допуск 2e-4 о.е. из примечаний к ответу "
            "покрывает округление и диапазон не расширяет (оптимум на расширенном диапазоне лежит на границе допуска, "
            "где собственное округление ответа может её нарушить). Балансирующий узел и PV-генераторы поддерживают v_set_pu без "
            "ограничений по реактивной мощности (выдают столько, сколько нужно); вводимая мощность — постоянная "
            "реактивная мощность (не проводимость); шунты узлов shunt_g_pu + j·shunt_b_pu — постоянные "
            "проводимости (b > 0 — ёмкостная). Какая модель оценивает напряжения после ввода мощности, сказано "
            "вместе с проверяющим бэкендом («как проверяется ответ»): в суррогатном бэкенде — линейная модель "
            "V = V0 + S·q, где V0 — расчёт установившегося режима базового случая, а S = ∂|V|/∂Q (о.е./Мвар) "
            "берётся из матрицы, обратной полной матрице Якоби метода Ньютона–Рафсона в полярных координатах для "
            "базового режима (PV- и балансирующий узлы сохраняют модуль напряжения); в бэкенде pandapower — "
            "полный расчёт установившегося режима с заданной реактивной мощностью. Случаи подобраны так, что "
            "оптимум любой из двух моделей допустим в обеих; оценка сравнивает Σ|q| с оптимумом проверяющей модели."
        ),
        "answer_notes": (
            "Напряжения должны лежать в диапазоне с точностью 2e-4 о.е., реактивная мощность — в своих пределах "
            "с точностью 1e-6 Мвар. Оценка: 1 при Σ|q| эталонного решения, меньше — пропорционально превышению "
            "(масштаб не менее 0,1 Мвар)."
        ),
        "hard_constraints": (
            "модуль напряжения каждого узла после ввода реактивной мощности лежит в [v_min_pu, v_max_pu] с допуском 2e-4 о.е. (линейная модель чувствительностей или расчёт установившегося режима по переменному току — в зависимости от бэкенда)",
            "каждая вводимая реактивная мощность лежит в [q_min_mvar, q_max_mvar] своего узла-кандидата с допуском 1e-6 Мвар",
        ),
    },
}

EXPERT = {
    "en": {"statement": (
        "Repair the voltage band [v_min_pu, v_max_pu] of the network in public_inputs with the least total absolute "
        "reactive injection Σ|q| (Mvar, positive delivered to the network) at the candidate buses within their limits, "
        "by the Newton-Raphson power flow and its Jacobian V-Q sensitivities (Glover, Overbye & Sarma, 6th ed., "
        "§6.4-§6.7; Kundur §14.3.3). The case's choices: constant-power loads and injections, constant-admittance "
        "bus shunts, slack and PV generators holding v_set_pu without reactive limits, taps on the from side; the "
        "optimum against the band [v_min_pu, v_max_pu] itself (its 2e-4 pu feasibility tolerance absorbs rounding and "
        "is not part of the band); the judging model (linear sensitivity model at the base case, or the full AC power flow) is the one named with "
        "the judging backend."
    )},
    "ru": {"statement": (
        "Введите напряжения сети из public_inputs в диапазон [v_min_pu, v_max_pu] при минимальной суммарной "
        "абсолютной реактивной мощности Σ|q| (Мвар, положительная — выдача в сеть) в узлах-кандидатах в их пределах, "
        "используя расчёт режима методом Ньютона–Рафсона и чувствительности V-Q по матрице Якоби (Glover, Overbye & "
        "Sarma, 6-е изд., §6.4–§6.7; Kundur, §14.3.3). Условия случая: нагрузки и вводимая мощность — постоянной "
        "мощности, шунты узлов — постоянной проводимости, балансирующий узел и PV-генераторы держат v_set_pu без "
        "ограничений по реактивной мощности, отпайки — со стороны from_bus; оптимум — по самому диапазону "
        "[v_min_pu, v_max_pu] (допуск 2e-4 о.е. покрывает округление и в диапазон не входит); модель, по которой проверяется ответ "
        "(линейная модель чувствительностей в базовом режиме или полный расчёт режима), названа вместе с проверяющим "
        "бэкендом."
    )},
}

JUDGED_BY = {
    "surrogate": {
        "en": "Judged by the linear sensitivity model: voltages V0 + S·q with V0 the base-case AC power flow (psab's "
              "Newton-Raphson) and S = ∂|V|/∂Q from the inverse of its full polar Jacobian; every bus within the band "
              "± 2e-4 pu, injections within limits ± 1e-6 Mvar. Score: 1 − (Σ|q| − optimum)/max(optimum, 0.1 Mvar), "
              "the optimum being the LP on that same linear model.",
        "ru": "Проверяется линейной моделью чувствительностей: напряжения V0 + S·q, где V0 — расчёт режима базового случая "
              "(метод Ньютона–Рафсона psab), S = ∂|V|/∂Q — из обратной полной матрицы Якоби в полярных координатах; все "
              "узлы в диапазоне ± 2e-4 о.е., мощности в пределах ± 1e-6 Мвар. Оценка: 1 − (Σ|q| − оптимум)/max(оптимум, "
              "0,1 Мвар), где оптимум — решение ЛП на той же линейной модели.",
    },
    "pandapower": {
        "en": "Judged by a full AC Newton-Raphson power flow in pandapower with the injections as static generators "
              "(constant Q), PV generators without reactive limits: every bus within the band ± 2e-4 pu, injections "
              "within limits ± 1e-6 Mvar. Score: 1 − (Σ|q| − optimum)/max(optimum, 0.1 Mvar), the optimum being the AC "
              "optimum found by successive linearization (LP re-solved at the AC solution until it no longer moves).",
        "ru": "Проверяется полным расчётом режима методом Ньютона–Рафсона в pandapower, вводимая мощность — статические "
              "генераторы (постоянная Q), PV-генераторы без ограничений по реактивной мощности: все узлы в диапазоне "
              "± 2e-4 о.е., мощности в пределах ± 1e-6 Мвар. Оценка: 1 − (Σ|q| − оптимум)/max(оптимум, 0,1 Мвар), где "
              "оптимум — оптимум режима на переменном токе, найденный последовательной линеаризацией (ЛП повторно "
              "решается в точке расчёта режима, пока решение не перестанет меняться).",
    },
}

# ---------------------------------------------------------------------------- physics


@dataclass(frozen=True)
class Case:
    """The task's network as arrays, with the id ↔ position maps."""

    network: AcNetwork
    Y: np.ndarray
    bus_ids: tuple[str, ...]
    pos: dict[str, int]
    candidates: tuple[str, ...]
    q_min: dict[str, float]
    q_max: dict[str, float]
    v_min: float
    v_max: float

    @property
    def pq_buses(self) -> list[str]:
        return [b for b in self.bus_ids if self.network.bus_type[self.pos[b]] == PQ]

    def injection_vector(self, q: dict[str, float]) -> np.ndarray:
        out = np.zeros(len(self.bus_ids))
        for c, val in q.items():
            out[self.pos[c]] += float(val)
        return out


def case_of(inputs: dict[str, Any]) -> Case:
    """The task's network; :class:`InvalidTaskError` for a structurally wrong task."""
    buses = inputs["buses"]
    ids = [b["id"] for b in buses]
    pos = {b: i for i, b in enumerate(ids)}
    try:
        types = [BUS_TYPE_NAMES[b["type"]] for b in buses]
        br = inputs["branches"]
        net = make_network(
            base_mva=float(inputs["base_mva"]), bus_type=types,
            from_idx=[pos[b["from_bus"]] for b in br], to_idx=[pos[b["to_bus"]] for b in br],
            r_pu=[b["r_pu"] for b in br], x_pu=[b["x_pu"] for b in br], b_pu=[b.get("b_pu", 0.0) for b in br],
            tap_ratio=[b.get("tap_ratio", 1.0) for b in br], phase_shift_deg=[b.get("phase_shift_deg", 0.0) for b in br],
            p_load_mw=[b.get("p_load_mw", 0.0) for b in buses], q_load_mvar=[b.get("q_load_mvar", 0.0) for b in buses],
            p_gen_mw=[b.get("p_gen_mw", 0.0) for b in buses], q_gen_mvar=[b.get("q_gen_mvar", 0.0) for b in buses],
            v_set_pu=[b.get("v_set_pu", 1.0) for b in buses],
            shunt_g_pu=[b.get("shunt_g_pu", 0.0) for b in buses], shunt_b_pu=[b.get("shunt_b_pu", 0.0) for b in buses],
            vn_kv=[b["vn_kv"] for b in buses],
        )
    except (KeyError, ValueError) as exc:
        raise InvalidTaskError(f"pf_voltage_repair task has an inconsistent network ({exc}); check bus ids, types and branches") from None
    cands = _candidate_ids(inputs)
    for c in cands:
        if c not in pos or types[pos[c]] != PQ:
            raise InvalidTaskError(f"candidate bus {c!r} must be a PQ bus of the network")
    return Case(
        network=net, Y=net.ybus(), bus_ids=tuple(ids), pos=pos, candidates=tuple(cands),
        q_min={c["bus"]: float(c["q_min_mvar"]) for c in inputs["candidates"]},
        q_max={c["bus"]: float(c["q_max_mvar"]) for c in inputs["candidates"]},
        v_min=float(inputs["v_min_pu"]), v_max=float(inputs["v_max_pu"]),
    )


@dataclass(frozen=True)
class LinearModel:
    """``V ≈ v_op + S (q − q_op)`` around one AC operating point (per bus id, pu per Mvar)."""

    V: np.ndarray
    v_pu: dict[str, float]
    sens_pu_per_mvar: dict[str, dict[str, float]]
    q_op_mvar: dict[str, float]

    def voltages(self, q: dict[str, float], buses: Sequence[str]) -> dict[str, float]:
        """``V_b ≈ v_op_b + Σ_c S_bc (q_c − q_op_c)`` for every bus in ``buses`` — the same
        function of ``q`` the LP rows are built from (:func:`psab.solvers.voltage_repair.linear_voltages`)."""
        from psab.solvers.voltage_repair import linear_voltages

        candidates = list(next(iter(self.sens_pu_per_mvar.values())))
        voltage = linear_voltages(buses, self.v_pu, self.sens_pu_per_mvar, candidates, self.q_op_mvar)
        return {b: voltage(q, b) for b in buses}


def linearize(case: Case, V: np.ndarray, q_op: dict[str, float]) -> LinearModel:
    """The linear voltage model at the AC point ``V`` reached with injections ``q_op``."""
    sens = voltage_sensitivity(case.Y, V, case.network.bus_type).dvm_dq / case.network.base_mva
    vm = np.abs(V)
    return LinearModel(
        V=V,
        v_pu={b: float(vm[case.pos[b]]) for b in case.bus_ids},
        sens_pu_per_mvar={b: {c: float(sens[case.pos[b], case.pos[c]]) for c in case.candidates} for b in case.bus_ids},
        q_op_mvar=dict(q_op),
    )


def ac_voltages_surrogate(case: Case, q: dict[str, float]) -> np.ndarray:
    """Complex bus voltages of the full AC power flow with the injections (surrogate NR)."""
    return solve_ac(case.network, extra_q_mvar=case.injection_vector(q), Y=case.Y).V


_CASES = LRUCache(maxsize=128)
_BASE = LRUCache(maxsize=128)


def cached_case(task: Task) -> Case:
    return _CASES.get_or_compute(task.digest, lambda: case_of(task.public_inputs))


def base_model(task: Task) -> LinearModel:
    """The surrogate's voltage model: the base-case AC power flow and its Jacobian sensitivity."""

    def compute() -> LinearModel:
        case = cached_case(task)
        try:
            V = ac_voltages_surrogate(case, {})
        except PowerFlowDidNotConverge as exc:
            raise InvalidTaskError(f"the base case of task {task.id} has no AC power-flow solution: {exc}") from None
        return linearize(case, V, {})

    return _BASE.get_or_compute(task.digest, compute)


def rows(case: Case, model: LinearModel, words: str = "linear sensitivity model") -> list[algebra.LinearConstraint]:
    from psab.solvers.voltage_repair import limit_rows, voltage_rows

    return [
        voltage_rows(case.pq_buses, model.v_pu, model.sens_pu_per_mvar, case.candidates, case.v_min, case.v_max,
                     q_op_mvar=model.q_op_mvar, model_words=words),
        limit_rows(case.candidates, case.q_min, case.q_max),
    ]


def _lp(case: Case, model: LinearModel) -> dict[str, float]:
    from psab.solvers.voltage_repair import solve_voltage_repair_arrays

    # the Pyomo model's LP given to HiGHS as arrays: the same optimum, bit for bit (issue 24)
    q, _ = solve_voltage_repair_arrays(case.candidates, rows(case, model))
    return q


def _band_excess(case: Case, vm: np.ndarray) -> float:
    """How far the worst bus voltage lies outside the band (≤ 0 when every bus is inside)."""
    return float(np.max(np.maximum(case.v_min - vm, vm - case.v_max)))


def successive_lp(case: Case, start: LinearModel, ac: Callable[[dict[str, float]], np.ndarray]) -> tuple[dict[str, float], int]:
    """Successive linearization: solve the LP, run the AC flow ``ac(q)``, re-linearize at the AC
    solution (sensitivities from the Jacobian at those voltages) and re-solve, until the LP
    returns the point it was linearized at (a fixed point is a KKT point of the AC problem:
    its constraints are linearized exactly there) and the AC flow there has every voltage in
    band within :data:`SLP_TOL_PU`. Returns the injections and the number of AC flows.

    Stopping at the first AC-feasible iterate would not do: when the band is breached from
    above the linear model over-estimates the injection needed, so the first iterate is
    feasible but not optimal in AC.
    """
    q = _lp(case, start)
    for k in range(1, SLP_MAX_ITER + 1):
        V = ac(q)
        vm = np.abs(V)
        if not np.all(np.isfinite(vm)):
            raise SolverError("the AC power flow did not converge during successive linearization")
        q_next = _lp(case, linearize(case, V, q))
        moved = max(abs(q_next[c] - q[c]) for c in case.candidates)
        if moved <= SLP_STEP_MVAR and _band_excess(case, vm) <= SLP_TOL_PU:
            return q, k
        q = q_next
    raise SolverError(f"successive linearization did not converge to an AC-feasible optimum in {SLP_MAX_ITER} iterations")


def _pandapower_ac(task: Task, case: Case) -> Callable[[dict[str, float]], np.ndarray]:
    from psab.backends import pandapower_pf

    prepared = pandapower_pf.prepared_net(
        (FAMILY_ID, task.digest), case.network, injection_buses=[case.pos[c] for c in case.candidates]
    )

    def ac(q: dict[str, float]) -> np.ndarray:
        flow = pandapower_pf.run(prepared, q_injection_mvar={case.pos[c]: v for c, v in q.items()})
        return flow.vm_pu * np.exp(1j * np.radians(flow.va_deg))

    return ac


def _answer(case: Case, q: dict[str, float]) -> dict[str, Any]:
    # + 0.0 turns -0.0 into 0.0
    return {"q_injection_mvar": {c: round(float(q[c]), Q_DECIMALS) + 0.0 for c in case.candidates}}


def solve(task: Task, backend: str, band_margin_pu: float = 0.0) -> Reference:
    """The reference. ``band_margin_pu`` widens the band on both sides — the other reading of
    the statement (optimising against the band widened by its feasibility tolerance), for
    :func:`other_readings` only; the reference itself optimises against the band."""
    case = cached_case(task)
    if band_margin_pu:
        case = replace(case, v_min=case.v_min - band_margin_pu, v_max=case.v_max + band_margin_pu)
    model = base_model(task)
    if backend == "pandapower":
        q, flows = successive_lp(case, model, _pandapower_ac(task, case))
        method = f"successive linearization: LP on Jacobian sensitivities re-solved at pandapower's AC solution ({flows} AC flows)"
    else:
        q = _lp(case, model)
        method = "LP (HiGHS) on the base-case Jacobian sensitivity model V = V0 + S·q"
    answer = _answer(case, q)
    total = sum(abs(v) for v in answer["q_injection_mvar"].values())
    return Reference(answer=answer, objective=total, method=method)


def other_readings(task: Task) -> list[tuple[str, dict[str, Any]]]:
    """The answer of an engineer who optimised against [v_min − 2e-4, v_max + 2e-4], the band
    widened by its feasibility tolerance: its voltages sit on the tolerance's edge, where the
    answer's own rounding to 1e-6 Mvar can put a bus past it (the public case: infeasible, 0);
    where the rounding falls inside, it beats the reference and is capped at 1, flagged."""
    return [("band_widened_by_tolerance", solve(task, "surrogate", band_margin_pu=VOLTAGE_TOL_PU).answer)]


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    case = cached_case(task)
    q = {c: float(answer["q_injection_mvar"][c]) for c in case.candidates}
    checks = ctx.checks()
    slack = ctx.tol.slack
    if ctx.backend == "pandapower":
        from psab.solvers.voltage_repair import limit_rows

        violations = algebra.check(algebra.values(q=q), [limit_rows(case.candidates, case.q_min, case.q_max)], slack)
        vm = np.abs(_pandapower_ac(task, case)(q))
        if not np.all(np.isfinite(vm)):
            checks.violate("/q_injection_mvar", "the AC power flow with these injections must converge", "a converged power flow", "diverged")
        else:
            for b in case.bus_ids:
                checks.within("/q_injection_mvar", float(vm[case.pos[b]]), case.v_min, case.v_max,
                              f"voltage magnitude at bus {b} within [{case.v_min:g}, {case.v_max:g}] pu (AC power flow)",
                              slack="voltage_band")
        model_name = "AC power flow (pandapower)"
        voltages = {b: float(vm[case.pos[b]]) for b in case.bus_ids}
    else:
        model = base_model(task)
        violations = algebra.check(algebra.values(q=q), rows(case, model), slack)
        for b in case.bus_ids:
            if b not in case.pq_buses:  # slack and PV buses hold their setpoint in the linear model
                checks.within("/q_injection_mvar", model.v_pu[b], case.v_min, case.v_max,
                              f"voltage magnitude at bus {b} within [{case.v_min:g}, {case.v_max:g}] pu", slack="voltage_band")
        model_name = "linear sensitivity model V = V0 + S·q"
        voltages = model.voltages(q, case.bus_ids)
    total = sum(abs(v) for v in q.values())
    evidence = {
        "voltage_model": model_name,
        "voltages_pu": {b: round(v, 6) if math.isfinite(v) else None for b, v in voltages.items()},
        "total_abs_q_mvar": total,
    }
    return Assessment(violations=violations + checks.violations, objective=total, evidence=evidence)


# ---------------------------------------------------------------------------- held-out draws


def _linear_excess(case: Case, model: LinearModel, q: dict[str, float]) -> float:
    v = model.voltages(q, case.bus_ids)
    return _band_excess(case, np.array([v[b] for b in case.bus_ids]))


def accept(task: Task, reference: Reference) -> str | None:
    """The family's acceptance rule for held-out draws (on top of the kernel's).

    - the base case breaches the band by at least :data:`MIN_BREACH_PU`;
    - the surrogate reference injects at least :data:`MIN_TOTAL_Q_MVAR` in total and not every
      injection sits at one of its limits (a trivial optimum);
    - backend agreement, with :data:`AC_MARGIN_PU` of the declared tolerance to spare: the
      surrogate (linear-model) reference is in band under the full AC power flow, and the AC
      optimum (successive linearization with the surrogate Newton-Raphson, which matches
      pandapower to ~1e-10 pu) is in band under the linear model. Both checks run on the
      surrogate Newton-Raphson, so the rule is the same whether or not pandapower is installed.
    """
    from psab.evaluators.kernel import reference_entry

    case = cached_case(task)
    model = base_model(task)
    v0 = np.array([model.v_pu[b] for b in case.bus_ids])
    breach = _band_excess(case, v0)
    if breach < MIN_BREACH_PU:
        return f"base case breaches the band by only {breach:.4f} pu"
    lin_ref = reference_entry(SPEC, task, "surrogate").reference
    q_lin = {c: float(v) for c, v in lin_ref.answer["q_injection_mvar"].items()}
    if sum(abs(v) for v in q_lin.values()) < MIN_TOTAL_Q_MVAR:
        return "the reference injection is trivially small"
    # Ambiguity check (issue 26.2): an optimum with every injection at a limit is no optimization.
    if all(min(abs(q_lin[c] - case.q_min[c]), abs(q_lin[c] - case.q_max[c])) <= 1e-6 for c in case.candidates):
        return "trivial optimum: every injection at one of its limits"
    allowed = VOLTAGE_TOL_PU - AC_MARGIN_PU
    try:
        ac_excess = _band_excess(case, np.abs(ac_voltages_surrogate(case, q_lin)))
        q_ac, _ = successive_lp(case, model, lambda q: ac_voltages_surrogate(case, q))
    except (PowerFlowDidNotConverge, SolverError) as exc:
        return f"AC check failed: {exc}"
    if ac_excess > allowed:
        return f"the linear-model optimum leaves the band by {ac_excess:.2e} pu in the AC power flow"
    lin_excess = _linear_excess(case, model, q_ac)
    if lin_excess > allowed:
        return f"the AC optimum leaves the band by {lin_excess:.2e} pu in the linear model"
    return None


def neighbourhood(task: Task, answer: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Perturbations the acceptance check tries: every non-zero injection moved toward zero
    (the only single-injection moves that can lower Σ|q|) by 1 % of its value, and at least
    by enough to shift the most weakly coupled bus voltage at a band limit by three
    feasibility tolerances.

    A smaller move is absorbed by the declared voltage tolerance and so "beats" any
    reference that sits exactly on the band: it says nothing about whether the reference is
    optimal.
    """
    case = cached_case(task)
    model = base_model(task)
    q = {c: float(v) for c, v in answer["q_injection_mvar"].items()}
    v_lin = model.voltages(q, case.pq_buses)
    at_limit = [b for b in case.pq_buses if min(v_lin[b] - case.v_min, case.v_max - v_lin[b]) <= 1e-3]
    for c in case.candidates:
        value = q[c]
        if value == 0.0:
            continue
        coupling = [abs(model.sens_pu_per_mvar[b][c]) for b in at_limit if abs(model.sens_pu_per_mvar[b][c]) > 0]
        weakest = min(coupling) if coupling else abs(model.sens_pu_per_mvar[c][c])
        step = min(abs(value), max(0.01 * abs(value), 3 * VOLTAGE_TOL_PU / weakest))
        toward = {**q, c: value - math.copysign(step, value)}
        yield f"/q_injection_mvar/{c} {step:.4f} Mvar toward zero", {"q_injection_mvar": toward}


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Level 1: the public MV network redrawn (:func:`generate_small`). Level 2: the IEEE 14-bus
    system (MATPOWER case14) — three voltage levels coupled by off-nominal transformers on a
    ±8 × 1.25 % tap changer, a 19-Mvar bus capacitor, synchronous condensers holding voltage —
    loaded 1.1-1.5 times, with four candidate buses."""
    if level == 1:
        return generate_small(public, rng)
    return generate_case14(public, rng)


def generate_case14(public: Task, rng: np.random.Generator) -> Generated:
    """IEEE 14-bus data with loads scaled by a common 1.1-1.5 factor (±10 % per bus), the
    generators' setpoints within the band, taps and the capacitor redrawn, and four PQ candidate
    buses with asymmetric limits."""
    from psab.surrogates.matpower_cases import transmission_case

    case = transmission_case("case14")
    base = float(case["base_mva"])
    loading = float(rng.uniform(1.1, 1.5))
    load = {ld["bus"]: ld for ld in case["loads"]}
    gen = {g["bus"]: g for g in case["generators"]}
    shunt = {sh["bus"]: sh for sh in case["shunts"]}
    buses = []
    for b in case["buses"]:
        bid = b["id"]
        kind = "slack" if bid == case["slack_bus"] else "pv" if bid in gen else "pq"
        f = loading * float(rng.uniform(0.9, 1.1))
        ld = load.get(bid, {"p_mw": 0.0, "q_mvar": 0.0})
        p_gen = 0.0
        if kind == "pv" and gen[bid]["p_mw"] > 0.0:
            p_gen = round(gen[bid]["p_mw"] * float(rng.uniform(0.5, 1.5)), 3)
        buses.append({
            "id": bid, "type": kind, "vn_kv": b["vn_kv"],
            "p_load_mw": round(ld["p_mw"] * f, 3), "q_load_mvar": round(ld["q_mvar"] * f, 3),
            "p_gen_mw": p_gen, "q_gen_mvar": 0.0,
            "v_set_pu": round(float(rng.uniform(0.97, 1.02)), 4) if kind != "pq" else 1.0,
            "shunt_g_pu": 0.0, "shunt_b_pu": round(shunt[bid]["b_pu"] * float(rng.uniform(0.6, 1.2)), 5) if bid in shunt else 0.0,
        })
    branches = []
    for br in case["branches"]:
        nb = {k: br[k] for k in ("id", "from_bus", "to_bus", "r_pu", "x_pu", "b_pu", "tap_ratio", "phase_shift_deg")}
        if br["tap_ratio"] != 1.0:
            nb["tap_ratio"] = round(1.0 + 0.0125 * int(rng.integers(-8, 5)), 4) or 0.9875
        branches.append(nb)
    pq = [b["id"] for b in buses if b["type"] == "pq"]
    chosen = sorted((str(x) for x in rng.choice(pq, size=4, replace=False)), key=lambda x: int(x[1:]))
    cands = [{"bus": c, "q_min_mvar": -round(float(rng.uniform(3.0, 15.0)), 2), "q_max_mvar": round(float(rng.uniform(8.0, 30.0)), 2)}
             for c in chosen]
    out = {"base_mva": base, "frequency_hz": float(public.public_inputs.get("frequency_hz", 50.0)),
           "v_min_pu": 0.95, "v_max_pu": 1.05, "buses": buses, "branches": branches, "candidates": cands}
    return Generated(public_inputs=out)


def generate_small(public: Task, rng: np.random.Generator) -> Generated:
    """Redraw loads (a common loading level and per-bus scatter), the wind park's output, the
    generator's and infeed's voltage setpoints, the transformer tap, line impedances and the
    candidates' reactive limits."""
    inputs = public.public_inputs
    loading = float(rng.uniform(0.87, 1.1))
    buses = []
    for bus in inputs["buses"]:
        b = dict(bus)
        if b.get("p_load_mw", 0.0):
            f = loading * float(rng.uniform(0.9, 1.1))
            pf_scatter = float(rng.uniform(0.9, 1.1))
            b["p_load_mw"] = round(b["p_load_mw"] * f, 3)
            b["q_load_mvar"] = round(b.get("q_load_mvar", 0.0) * f * pf_scatter, 3)
        if b["type"] == "pq" and b.get("p_gen_mw", 0.0):
            b["p_gen_mw"] = round(b["p_gen_mw"] * float(rng.uniform(0.8, 1.1)), 3)
        if b["type"] == "pv":
            b["p_gen_mw"] = round(b["p_gen_mw"] * float(rng.uniform(0.7, 1.2)), 3)
            b["v_set_pu"] = round(float(rng.uniform(1.0, 1.03)), 4)
        if b["type"] == "slack":
            b["v_set_pu"] = round(float(rng.uniform(0.99, 1.02)), 4)
        buses.append(b)
    branches = []
    for br in inputs["branches"]:
        b = dict(br)
        if b.get("tap_ratio", 1.0) != 1.0:
            b["tap_ratio"] = round(float(rng.uniform(0.95, 0.99)), 4)
        else:
            f = float(rng.uniform(0.85, 1.2))
            for k in ("r_pu", "x_pu", "b_pu"):
                if b.get(k, 0.0):
                    b[k] = round(b[k] * f, 6)
        branches.append(b)
    cands = []
    for c in inputs["candidates"]:
        d = dict(c)
        d["q_min_mvar"] = round(c["q_min_mvar"] * float(rng.uniform(0.7, 1.3)), 3)
        d["q_max_mvar"] = round(c["q_max_mvar"] * float(rng.uniform(0.7, 1.3)), 3)
        cands.append(d)
    out = dict(inputs)
    out["buses"] = buses
    out["branches"] = branches
    out["candidates"] = cands
    return Generated(public_inputs=out)


def naive_answer(task: Task) -> dict[str, Any]:
    """Each candidate on its own: the injection that brings its own bus voltage to the nearer band
    limit by its self-sensitivity ∂V_c/∂Q_c alone (coupling between candidates and the other
    buses ignored), clipped to its limits; zero at a candidate already in band."""
    case = cached_case(task)
    model = base_model(task)
    q = {}
    for c in case.candidates:
        v, sens = model.v_pu[c], model.sens_pu_per_mvar[c][c]
        target = case.v_min if v < case.v_min else case.v_max if v > case.v_max else v
        need = (target - v) / sens if sens > 0 else 0.0
        q[c] = min(max(need, case.q_min[c]), case.q_max[c])
    return _answer(case, q)


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="network",
        scoring_kind="optimize",
        confidence="high",
        version="1",
        provenance=(
            {
                "title": "Glover, Overbye & Sarma, Power System Analysis and Design, 6th ed., Cengage, 2017",
                "locator": "§6.4-§6.6 Newton-Raphson power flow and its Jacobian; §6.7 control of power flow (reactive injection and bus voltage)",
                "note": "The base case is the textbook polar Newton-Raphson power flow; the voltage sensitivity ∂|V|/∂Q is read from the inverse of its Jacobian and the repair is the linear programme over that sensitivity.",
                "confidence": "high",
            },
            {
                "title": "Kundur, Power System Stability and Control, McGraw-Hill, 1994",
                "locator": "§14.3.3 V-Q sensitivity analysis (reduced Jacobian); §11.2 reactive power and voltage control",
                "note": "Jacobian-based V-Q sensitivities as the linear model of reactive-power voltage control; successive linearization re-evaluates them at the AC solution.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "every bus voltage magnitude lies within [v_min_pu, v_max_pu] after the injections, within 2e-4 pu (linear sensitivity model or AC power flow, by backend)",
            "every injection lies within [q_min_mvar, q_max_mvar] of its candidate bus, within 1e-6 Mvar",
        ),
        metrics=(),
        tolerances={
            "relative": 1e-3,
            "absolute_floors": {"default": 1e-3},
            "feasibility": {"voltage_band": VOLTAGE_TOL_PU, "q_limits": Q_LIMIT_TOL_MVAR},
            "objective": {"relative": 1e-6, "absolute": 1e-6},
        },
        presentation=PRESENTATION,
        backends=("surrogate", "pandapower"),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        objective_sense="minimize",
        objective_unit="Mvar",
        objective_scale_floor=0.1,
        accept=accept,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        validate_inputs=input_problems,
        neighbourhood=neighbourhood,
        redraw_budget=40,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
        other_readings=other_readings,
    )
)
