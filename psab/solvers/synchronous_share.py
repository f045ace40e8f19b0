"""Minimum synchronous commitment under RoCoF and short-circuit-ratio limits (one period).

Variables: u_i ∈ {0, 1} (unit i online), p_i ≥ 0 (MW), p_ibr ≥ 0 (inverter-based output, MW).
Rows (each written once as a :class:`~psab.solvers.algebra.LinearConstraint`, used by the MILP and
by the evaluator alike):

- balance          Σ p_i + p_ibr = D
- unit limits      p_min,i·u_i ≤ p_i ≤ p_max,i·u_i
- IBR availability p_ibr ≤ A
- RoCoF            ΔP·f₀ / (2·Σ H_i·S_i·u_i) ≤ RoCoF_max  ⇔  Σ H_i·S_i·u_i ≥ ΔP·f₀ / (2·RoCoF_max)
- SCR              (S″k,grid + Σ S″k,i·u_i) / S_ibr ≥ SCR_min  ⇔  Σ S″k,i·u_i ≥ SCR_min·S_ibr − S″k,grid

Objective: Σ (C_fix,i·u_i + c_i·p_i)·T.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psab.solvers.algebra import LinearConstraint, equal_to, unit_limit_shown


@dataclass(frozen=True)
class Data:
    ids: tuple[str, ...]
    p_min: tuple[float, ...]
    p_max: tuple[float, ...]
    kinetic_mws: tuple[float, ...]     # H_i·S_i
    sk_mva: tuple[float, ...]          # S″k,i at the PCC
    fixed_cost: tuple[float, ...]      # per period
    energy_cost: tuple[float, ...]     # per MW over the period
    demand_mw: float
    ibr_available_mw: float
    kinetic_required_mws: float
    sk_required_mva: float


def rows(d: Data) -> list[LinearConstraint]:
    n = range(len(d.ids))
    unit = lambda g, what: f"/units/{d.ids[g]}/{what}"  # noqa: E731
    return [
        LinearConstraint("balance", "synchronous plus inverter-based output equals the demand",
                         [0], lambda v, _: sum(v.p[g] for g in n) + v.ibr, field=lambda _: "/ibr_mw",
                         **equal_to(d.demand_mw)),
        LinearConstraint("p_max", "unit {0} output at most p_max_mw when online, 0 when offline", list(n),
                         lambda v, g: v.p[g] - d.p_max[g] * v.u[g], upper=0.0, field=lambda g: unit(g, "p_mw"),
                         shown=lambda v, g: unit_limit_shown("<=", d.p_max[g], "p_max_mw", v.u[g], v.p[g])),
        LinearConstraint("p_min", "unit {0} output at least p_min_mw when online", list(n),
                         lambda v, g: v.p[g] - d.p_min[g] * v.u[g], lower=0.0, field=lambda g: unit(g, "p_mw"),
                         shown=lambda v, g: unit_limit_shown(">=", d.p_min[g], "p_min_mw", v.u[g], v.p[g])),
        LinearConstraint("ibr_avail", "inverter-based output within its availability", [0],
                         lambda v, _: v.ibr, lower=0.0, upper=d.ibr_available_mw, field=lambda _: "/ibr_mw"),
        LinearConstraint("rocof", "RoCoF after the largest infeed loss within the limit (online kinetic energy Σ H·S)",
                         [0], lambda v, _: sum(d.kinetic_mws[g] * v.u[g] for g in n), lower=d.kinetic_required_mws,
                         field=lambda _: "/units", slack="kinetic_mws"),
        LinearConstraint("scr", "short-circuit ratio at the PCC at least the minimum (online units' S″k)",
                         [0], lambda v, _: sum(d.sk_mva[g] * v.u[g] for g in n), lower=d.sk_required_mva,
                         field=lambda _: "/units", slack="sk_mva"),
    ]


def cost(d: Data, u: Any, p: Any) -> float:
    return float(sum(d.fixed_cost[g] * u[g] + d.energy_cost[g] * p[g] for g in range(len(d.ids))))


def solve_milp(d: Data) -> tuple[list[int], list[float], float, float]:
    """(u, p, p_ibr, objective) at the proven optimum (HiGHS through psab.solvers.core.solve)."""
    import pyomo.environ as pyo

    from psab.solvers.algebra import add_constraints
    from psab.solvers.core import solve
    from psab.solvers.network import pyomo_vars

    n = len(d.ids)
    m = pyo.ConcreteModel()
    pyomo_vars(m, u=(range(n), "binary"), p=(range(n), "nonneg"))
    m.ibr = pyo.Var(domain=pyo.NonNegativeReals)
    add_constraints(m, rows(d))
    m.cost = pyo.Objective(expr=sum(d.fixed_cost[g] * m.u[g] + d.energy_cost[g] * m.p[g] for g in range(n)),
                           sense=pyo.minimize)
    res = solve(m)
    u = [round(m.u[g].value) for g in range(n)]
    p = [float(m.p[g].value) if u[g] else 0.0 for g in range(n)]
    return u, p, float(m.ibr.value), res.objective
