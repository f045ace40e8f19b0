"""Minimum reactive injection that brings every bus voltage into its band, as an LP.

The voltage model is linear around an operating point (Glover, Overbye & Sarma, §6.6: the
power-flow Jacobian as a sensitivity; the standard "linearized voltage control" LP)::

    |V_i| ≈ V_i^op + Σ_c S_ic (q_c − q_c^op)        for every PQ bus i

with ``S_ic = ∂|V_i|/∂Q_c`` in pu per Mvar. The injections ``q_c`` (Mvar) at the candidate
buses stay within their limits, and the objective ``Σ |q_c|`` is linear after the usual split
``q_c = q_c⁺ − q_c⁻`` with ``q_c⁺, q_c⁻ ≥ 0`` (at the optimum one of the two is zero, since
both carry a positive cost).

The rows are :class:`~psab.solvers.algebra.LinearConstraint` objects, so the evaluator checks
an answer against exactly the rows the reference was solved with.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from psab.solvers.algebra import LinearConstraint, add_constraints


def linear_voltages(
    buses: Sequence[str],
    v_op_pu: Mapping[str, float],
    sens_pu_per_mvar: Mapping[str, Mapping[str, float]],
    candidates: Sequence[str],
    q_op_mvar: Mapping[str, float] | None = None,
) -> Callable[[Any, str], Any]:
    """The linear voltage model ``|V_i| ≈ V_i^op + Σ_c S_ic (q_c − q_c^op)`` of the module
    docstring, as ``voltage(q, i)`` for every bus ``i`` in ``buses``.

    The constant is folded once, ``V_i^op − Σ_c S_ic q_c^op``, so that ``q`` may be numbers or
    the LP's variables (anything indexable by candidate) and the row stays linear in ``q``.
    """
    q0 = {c: float((q_op_mvar or {}).get(c, 0.0)) for c in candidates}
    coef = {b: {c: float(sens_pu_per_mvar[b][c]) for c in candidates} for b in buses}
    base = {b: float(v_op_pu[b]) - sum(coef[b][c] * q0[c] for c in candidates) for b in buses}

    def voltage(q: Any, b: str) -> Any:
        return base[b] + sum(coef[b][c] * q[c] for c in candidates)

    return voltage


def voltage_rows(
    buses: Sequence[str],
    v_op_pu: Mapping[str, float],
    sens_pu_per_mvar: Mapping[str, Mapping[str, float]],
    candidates: Sequence[str],
    v_min_pu: float,
    v_max_pu: float,
    *,
    q_op_mvar: Mapping[str, float] | None = None,
    field: str = "/q_injection_mvar",
    slack: str = "voltage_band",
    model_words: str = "linear sensitivity model",
) -> LinearConstraint:
    """``v_min ≤ V_i^op + Σ_c S_ic (q_c − q_c^op) ≤ v_max`` for every bus in ``buses``."""
    voltage = linear_voltages(buses, v_op_pu, sens_pu_per_mvar, candidates, q_op_mvar)

    def body(v: Any, b: str) -> Any:
        return voltage(v.q, b)

    return LinearConstraint(
        name="voltage_band",
        words=f"voltage magnitude at bus {{0}} within [{v_min_pu:g}, {v_max_pu:g}] pu ({model_words})",
        index=list(buses), body=body, lower=float(v_min_pu), upper=float(v_max_pu),
        field=lambda b: field, slack=slack,
    )


def limit_rows(
    candidates: Sequence[str],
    q_min_mvar: Mapping[str, float],
    q_max_mvar: Mapping[str, float],
    *,
    field: str = "/q_injection_mvar",
    slack: str = "q_limits",
) -> LinearConstraint:
    """``q_min_c ≤ q_c ≤ q_max_c`` for every candidate (reported at ``field/<bus>``)."""
    return LinearConstraint(
        name="q_limits",
        words="reactive injection at bus {0} within its limits (Mvar)",
        index=list(candidates), body=lambda v, c: v.q[c],
        lower=lambda c: float(q_min_mvar[c]), upper=lambda c: float(q_max_mvar[c]),
        field=lambda c: f"{field}/{c}", slack=slack,
    )


def build_voltage_repair(candidates: Sequence[str], rows: Sequence[LinearConstraint]) -> Any:
    """The LP ``min Σ (q⁺ + q⁻)`` over ``q = q⁺ − q⁻`` subject to ``rows``."""
    import pyomo.environ as pyo

    m = pyo.ConcreteModel(name="voltage_repair")
    m.C = pyo.Set(initialize=list(candidates), ordered=True)
    m.q = pyo.Var(m.C, domain=pyo.Reals)
    m.q_pos = pyo.Var(m.C, domain=pyo.NonNegativeReals)
    m.q_neg = pyo.Var(m.C, domain=pyo.NonNegativeReals)
    m.split = pyo.Constraint(m.C, rule=lambda m, c: m.q[c] == m.q_pos[c] - m.q_neg[c])
    add_constraints(m, rows)
    m.total_abs_q = pyo.Objective(expr=sum(m.q_pos[c] + m.q_neg[c] for c in m.C), sense=pyo.minimize)
    return m


def solve_voltage_repair(candidates: Sequence[str], rows: Sequence[LinearConstraint]) -> tuple[dict[str, float], float]:
    """The optimal injections (Mvar per candidate) and ``Σ |q|``; raises
    :class:`~psab.errors.SolverError` when no injection within limits repairs the band."""
    import pyomo.environ as pyo

    from psab.solvers.core import solve

    m = build_voltage_repair(candidates, rows)
    result = solve(m)
    q = {c: float(pyo.value(m.q[c])) for c in candidates}
    return q, result.objective


def voltage_repair_lp(candidates: Sequence[str], rows: Sequence[LinearConstraint]) -> Any:
    """:func:`build_voltage_repair`'s LP as a :class:`~psab.solvers.array_lp.ArrayLP`: the same
    columns, rows, bounds and cost in the same order (the split rows first, as declared)."""
    from psab.solvers.array_lp import ArrayLP

    lp = ArrayLP()
    cands = list(candidates)
    lp.var("q", cands)
    lp.var("q_pos", cands, lower=0.0)
    lp.var("q_neg", cands, lower=0.0)
    for c in cands:
        # q == q⁺ − q⁻ as Pyomo reads it: body q − q⁺ + q⁻, both bounds 0
        lp.row([(lp.key("q", c), 1.0), (lp.key("q_pos", c), -1.0), (lp.key("q_neg", c), 1.0)], 0.0, 0.0)
    lp.constraints(rows)
    lp.minimize([t for c in cands for t in ((lp.key("q_pos", c), 1.0), (lp.key("q_neg", c), 1.0))])
    return lp


def solve_voltage_repair_arrays(candidates: Sequence[str], rows: Sequence[LinearConstraint]) -> tuple[dict[str, float], float]:
    """:func:`solve_voltage_repair` without building the Pyomo model: HiGHS is given the same
    arrays (:mod:`psab.solvers.array_lp`), so the optimum is the same to the last bit."""
    lp = voltage_repair_lp(candidates, rows)
    value, objective = lp.solve()
    return {c: value("q", c) for c in candidates}, objective
