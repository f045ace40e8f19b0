"""Service restoration as a MILP: switch states of a distribution network that energise the
most priority-weighted load after a fault, radial, within branch capacity and voltage limits
under LinDistFlow.

Variables: ``z_l`` branch closed (fixed 1 for branches without a switch, 0 for faulted
branches), ``e_b`` bus energised (``e_source = 1``), ``y_l = z_l ∧ e_from`` branch closed and
live, ``F_l`` a single-commodity flow, ``P_l, Q_l`` branch flows (MW, Mvar, from → to), ``v_b``
squared voltages (pu²). Constraints:

- a closed branch joins buses of the same state: ``e_i − e_j ≤ 1 − z_l`` and vice versa;
- connectivity and radiality of the energised part (single-commodity flow, e.g. Lavorato et
  al., "Imposing radiality constraints in distribution system optimization problems", IEEE
  Trans. Power Syst. 27(1), 2012): every energised non-source bus consumes one unit of ``F``
  sent from the source over live branches (``|F_l| ≤ n y_l``), and ``Σ y_l = Σ e_b − 1``;
- power balance ``Σ_in P − Σ_out P = p_b e_b + p_fixed_b`` (and Q), ``|P_l|, |Q_l| ≤ M y_l``;
- LinDistFlow ``|v_i − v_j − 2 (r_l P_l + x_l Q_l)/U²| ≤ M_v (1 − y_l)`` (Baran & Wu 1989);
- voltage band on energised buses, the octagon capacity rows
  (:mod:`psab.surrogates.restoration`) on every branch.

Objective: maximise ``Σ_b w_b p_b e_b − c_sw · (number of switching operations)`` where an
operation is a switch whose state differs from its normal state. Solved to proven optimality.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from psab.surrogates.restoration import OCTAGON_FACTOR, OCTAGON_THETA


@dataclass(frozen=True)
class RestorationProblem:
    n_bus: int
    source: int
    v_source_pu: float
    base_kv: float
    from_idx: np.ndarray
    to_idx: np.ndarray
    r_ohm: np.ndarray
    x_ohm: np.ndarray
    s_rated_mva: np.ndarray
    switchable: np.ndarray  # branch has a switch
    normally_closed: np.ndarray  # normal state of each branch
    faulted: np.ndarray  # branch must be open
    p_load_mw: np.ndarray  # switchable demand per bus
    q_load_mvar: np.ndarray
    p_fixed_mw: np.ndarray  # demand that is always supplied (substation busbars)
    q_fixed_mvar: np.ndarray
    weight: np.ndarray  # priority-weighted MW per bus = Σ priority · p
    v_min_pu: float
    v_max_pu: float
    switching_penalty: float


def solve_restoration(pr: RestorationProblem) -> tuple[np.ndarray, float]:
    """Optimal branch states (closed = True) and the objective."""
    import pyomo.environ as pyo

    from psab.solvers.core import solve

    n, m = pr.n_bus, pr.from_idx.size
    B, L = range(n), range(m)
    big_p = float(pr.p_load_mw.sum() + pr.p_fixed_mw.sum() + 1.0)
    big_q = float(np.abs(pr.q_load_mvar).sum() + np.abs(pr.q_fixed_mvar).sum() + 1.0)
    big_v = 1.0
    zb = pr.base_kv**2
    mdl = pyo.ConcreteModel()
    mdl.z = pyo.Var(L, domain=pyo.Binary)
    mdl.e = pyo.Var(B, domain=pyo.Binary)
    mdl.y = pyo.Var(L, bounds=(0, 1))
    mdl.F = pyo.Var(L, bounds=(-n, n))
    mdl.P = pyo.Var(L, bounds=(-big_p, big_p))
    mdl.Q = pyo.Var(L, bounds=(-big_q, big_q))
    mdl.v = pyo.Var(B, bounds=(0.0, 2.0))
    c = mdl.c = pyo.ConstraintList()
    mdl.e[pr.source].fix(1)
    mdl.v[pr.source].fix(pr.v_source_pu**2)
    for k in L:
        i, j = int(pr.from_idx[k]), int(pr.to_idx[k])
        if pr.faulted[k]:
            mdl.z[k].fix(0)
        elif not pr.switchable[k]:
            mdl.z[k].fix(1)
        c.add(mdl.e[i] - mdl.e[j] <= 1 - mdl.z[k])
        c.add(mdl.e[j] - mdl.e[i] <= 1 - mdl.z[k])
        c.add(mdl.y[k] <= mdl.z[k])
        c.add(mdl.y[k] <= mdl.e[i])
        c.add(mdl.y[k] >= mdl.z[k] + mdl.e[i] - 1)
        c.add(mdl.F[k] <= n * mdl.y[k])
        c.add(-mdl.F[k] <= n * mdl.y[k])
        c.add(mdl.P[k] <= big_p * mdl.y[k])
        c.add(-mdl.P[k] <= big_p * mdl.y[k])
        c.add(mdl.Q[k] <= big_q * mdl.y[k])
        c.add(-mdl.Q[k] <= big_q * mdl.y[k])
        drop = mdl.v[i] - mdl.v[j] - 2.0 * (float(pr.r_ohm[k]) * mdl.P[k] + float(pr.x_ohm[k]) * mdl.Q[k]) / zb
        c.add(drop <= big_v * (1 - mdl.y[k]))
        c.add(-drop <= big_v * (1 - mdl.y[k]))
        for th in OCTAGON_THETA:
            c.add(float(np.cos(th)) * mdl.P[k] + float(np.sin(th)) * mdl.Q[k] <= OCTAGON_FACTOR * float(pr.s_rated_mva[k]))
    for b in B:
        into = [k for k in L if pr.to_idx[k] == b]
        out = [k for k in L if pr.from_idx[k] == b]
        if b != pr.source:
            c.add(sum(mdl.F[k] for k in into) - sum(mdl.F[k] for k in out) == mdl.e[b])
            c.add(sum(mdl.P[k] for k in into) - sum(mdl.P[k] for k in out)
                  == float(pr.p_load_mw[b]) * mdl.e[b] + float(pr.p_fixed_mw[b]))
            c.add(sum(mdl.Q[k] for k in into) - sum(mdl.Q[k] for k in out)
                  == float(pr.q_load_mvar[b]) * mdl.e[b] + float(pr.q_fixed_mvar[b]))
            c.add(mdl.v[b] >= pr.v_min_pu**2 - 2.0 * (1 - mdl.e[b]))
            c.add(mdl.v[b] <= pr.v_max_pu**2 + 2.0 * (1 - mdl.e[b]))
    c.add(sum(mdl.y[k] for k in L) == sum(mdl.e[b] for b in B) - 1)
    ops = sum((1 - mdl.z[k]) if pr.normally_closed[k] else mdl.z[k] for k in L if pr.switchable[k] and not pr.faulted[k])
    # Opening a normally-closed faulted branch is an operation too (a constant).
    fixed_ops = int(sum(1 for k in L if pr.faulted[k] and pr.normally_closed[k]))
    mdl.obj = pyo.Objective(expr=sum(float(pr.weight[b]) * mdl.e[b] for b in B)
                            - pr.switching_penalty * (ops + fixed_ops), sense=pyo.maximize)
    res = solve(mdl)
    closed = np.array([pyo.value(mdl.z[k]) > 0.5 for k in L])
    return closed, res.objective
