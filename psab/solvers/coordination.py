"""Overcurrent relay coordination as a linear program (time multiplier settings).

For fixed pickups and fault currents each relay's operating time is linear in its TMS,
``t_i(I) = TMS_i · f_i(I)`` with ``f_i`` the curve's time per unit TMS
(:mod:`psab.surrogates.relay_curves`). The classic LP formulation (Urdaneta, Nadira & Pérez
Jiménez, IEEE Trans. Power Delivery 3(3), 1988; Horowitz & Phadke, *Power System Relaying*,
ch. 4) then reads::

    minimise    Σ_i  a_i · TMS_i                                (primary operating times)
    subject to  b_p · TMS_backup(p) − a'_p · TMS_primary(p) ≥ CTI   for every pair p
                TMS_min ≤ TMS_i ≤ TMS_max

where ``a_i = f_i(I_i)`` at relay i's own near-end fault, ``b_p = f_backup(I_p)`` and
``a'_p = f_primary(I_p)`` at the fault that pair p is graded for. The constraint rows are
written once (:class:`~psab.solvers.algebra.LinearConstraint`) and serve both the Pyomo model
and the evaluator's check of a submitted setting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from psab.solvers.algebra import LinearConstraint, values


@dataclass(frozen=True)
class CoordinationProblem:
    """The coefficients of the coordination LP.

    Parameters
    ----------
    relay_ids
        Relay names, in the order of the TMS vector.
    primary_coeff_s
        ``a_i``: relay i's operating time per unit TMS at its own near-end fault (s).
    pairs
        ``(backup index, primary index)`` of every primary/backup pair.
    backup_coeff_s, pair_primary_coeff_s
        ``b_p`` and ``a'_p``: backup's and primary's time per unit TMS at pair p's fault (s).
    cti_s
        Coordination time interval (s).
    tms_min, tms_max
        The device's TMS setting range.
    """

    relay_ids: tuple[str, ...]
    primary_coeff_s: tuple[float, ...]
    pairs: tuple[tuple[int, int], ...]
    backup_coeff_s: tuple[float, ...]
    pair_primary_coeff_s: tuple[float, ...]
    cti_s: float
    tms_min: float
    tms_max: float


def coordination_constraints(p: CoordinationProblem) -> list[LinearConstraint]:
    """The LP's rows: TMS within the device range, and every backup ≥ CTI after its primary."""
    ids = p.relay_ids
    pair_words = [(ids[b], ids[a]) for b, a in p.pairs]
    return [
        LinearConstraint(
            name="tms_range",
            words="TMS of {0} within the device range",
            index=list(ids),
            body=lambda v, r: v.tms[ids.index(r)],
            lower=p.tms_min,
            upper=p.tms_max,
            field=lambda r: f"/tms/{r}",
            slack="tms",
        ),
        LinearConstraint(
            name="grading",
            words="backup {1} must operate at least the CTI after primary {2} for the fault at {2}'s near end (pair {0})",
            index=[(k, *pair_words[k]) for k in range(len(p.pairs))],
            body=lambda v, i: (
                p.backup_coeff_s[i[0]] * v.tms[p.pairs[i[0]][0]]
                - p.pair_primary_coeff_s[i[0]] * v.tms[p.pairs[i[0]][1]]
            ),
            lower=p.cti_s,
            field=lambda i: f"/tms/{i[1]}",
            slack="grading_s",
        ),
    ]


def total_time(p: CoordinationProblem, v: Any) -> Any:
    """Σ a_i · TMS_i: the sum of primary operating times at the near-end faults (s).

    The one definition of the objective: the LP's (``v`` the model's variables, read by
    :func:`~psab.solvers.algebra.linear_objective`) and the evaluator's (:func:`objective_value`).
    """
    return sum(a * v.tms[i] for i, a in enumerate(p.primary_coeff_s))


def objective_value(p: CoordinationProblem, tms: Sequence[float]) -> float:
    """:func:`total_time` of a submitted TMS vector (s)."""
    if len(tms) != len(p.primary_coeff_s):
        raise ValueError(f"{len(tms)} TMS values for {len(p.primary_coeff_s)} relays")
    return float(total_time(p, values(tms=tms)))


def build_coordination(p: CoordinationProblem) -> Any:
    """The Pyomo model of the LP (variables ``tms[i]``, i = 0..n-1)."""
    import pyomo.environ as pyo

    from psab.solvers.algebra import add_constraints, linear_objective

    m = pyo.ConcreteModel(name="overcurrent_coordination")
    m.relays = pyo.RangeSet(0, len(p.relay_ids) - 1)
    m.tms = pyo.Var(m.relays, domain=pyo.NonNegativeReals)
    add_constraints(m, coordination_constraints(p))
    m.total_time = linear_objective(m, lambda v: total_time(p, v))
    return m


@dataclass(frozen=True)
class CoordinationSolution:
    """The optimal TMS vector, the objective (s) and the solver's report."""

    tms: tuple[float, ...]
    objective_s: float
    solver: Any


def solve_coordination(p: CoordinationProblem) -> CoordinationSolution:
    """Solve the coordination LP to proven optimality (HiGHS via :func:`psab.solvers.core.solve`)."""
    from psab.solvers.core import solve

    m = build_coordination(p)
    result = solve(m)
    tms = tuple(float(m.tms[i].value) for i in range(len(p.relay_ids)))
    return CoordinationSolution(tms, result.objective, result)
