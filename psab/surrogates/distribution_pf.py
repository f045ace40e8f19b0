"""A year of AC power flow on a distribution grid at once: the implicit Z-bus iteration, vectorised.

For a grid with one slack bus ``s`` held at ``V_s`` and constant-power injections ``S_k(t)`` at
every other bus, the bus equations ``I = Y V`` split into

    Y_nn V_n + Y_ns V_s = conj(S_n / V_n)

and the fixed point ``V_n ← Y_nn⁻¹ (conj(S_n / V_n) − Y_ns V_s)`` (the implicit Z-bus Gauss
method: W. H. Kersting, *Distribution System Modeling and Analysis*, 4th ed., CRC 2017, §10.3,
and T.-H. Chen, M.-S. Chen et al., "Distribution system power flow analysis — a rigid approach",
IEEE Trans. Power Delivery 6(3), 1991) converges in a handful of iterations on MV/LV grids, whose
R/X and loading keep the operating point close to no-load. Every 15-minute step of the year is a
column: ``Z_nn = Y_nn⁻¹`` (dense; a hundred-bus MV grid) multiplies all 35,136 right-hand sides
at once, so a year is a few matrix products.

Voltage-dependent reactive power (a Q(U) characteristic at inverters) is updated inside the same
iteration, damped: ``Q ← Q + α (Q(U(V)) − Q)``. The map ``Q ↦ Q(U(Q))`` has a negative-definite
Jacobian (Q(U) falls with U, U rises with Q), so the damped iteration contracts for
``α < 2 / (1 + g)`` with ``g`` the loop gain; α = 0.5 covers ``g < 3``.

Pure numpy/scipy; units: per unit on ``s_base_mva`` and each bus's nominal voltage.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Convergence: the largest change of any bus voltage between iterations (pu).
TOL_PU = 1e-9
MAX_ITER = 200


class PowerFlowDiverged(RuntimeError):
    """The fixed point did not converge (a load beyond the grid's transfer limit)."""


@dataclass(frozen=True)
class Branches:
    """Series branches in per unit: ``y_series``, total shunt ``b_shunt`` split half per end
    (lines' charging; a transformer's magnetizing admittance ``y_shunt`` split likewise)."""

    from_bus: np.ndarray
    to_bus: np.ndarray
    y_series: np.ndarray
    y_shunt: np.ndarray


def ybus(n_bus: int, br: Branches) -> np.ndarray:
    """The bus admittance matrix (dense: a hundred-bus MV grid) of the π-model branches."""
    f, t, y, ysh = br.from_bus, br.to_bus, br.y_series, br.y_shunt / 2.0
    Y = np.zeros((n_bus, n_bus), dtype=complex)
    np.add.at(Y, (f, f), y + ysh)
    np.add.at(Y, (t, t), y + ysh)
    np.add.at(Y, (f, t), -y)
    np.add.at(Y, (t, f), -y)
    return Y


@dataclass(frozen=True)
class QU:
    """A Q(U) characteristic at some buses: reactive output (pu, > 0 injects) =
    ``q_max_pu · k(U)``, with ``k`` piecewise linear through ``(u_pu, k)`` points (flat outside)."""

    bus: np.ndarray
    q_max_pu: np.ndarray
    u_points_pu: tuple[float, ...]
    k_points: tuple[float, ...]
    #: (n_controlled, n_steps) bool: where the inverter is in operation (Q = 0 elsewhere)
    active: np.ndarray | None = None

    def q(self, vm: np.ndarray) -> np.ndarray:
        k = np.interp(vm, self.u_points_pu, self.k_points)
        out = self.q_max_pu[:, None] * k
        return out if self.active is None else np.where(self.active, out, 0.0)

    def q_cols(self, vm: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """:meth:`q` for the steps ``cols`` (``vm`` holds those steps' voltages only)."""
        k = np.interp(vm, self.u_points_pu, self.k_points)
        out = self.q_max_pu[:, None] * k
        return out if self.active is None else np.where(self.active[:, cols], out, 0.0)


@dataclass(frozen=True)
class YearFlow:
    """``v``: complex bus voltages (n_bus, n_steps), pu; ``q_qu``: the Q(U) buses' reactive
    injection (pu), when a characteristic was given; ``iterations``."""

    v: np.ndarray
    q_qu: np.ndarray | None
    iterations: int


def solve_year(Y, slack: int, v_slack: complex, s_inj: np.ndarray, qu: QU | None = None,
               max_iter: int = MAX_ITER, tol: float = TOL_PU, damping: float = 0.5,
               linear: bool = False) -> YearFlow:
    """Voltages for every column of ``s_inj`` (complex injections, pu, generation > 0).

    ``linear=True`` stops after the first iteration from the flat start: the voltage of the
    linearised current injection ``V_n = V⁰ + Y_nn⁻¹ conj(S_n / V⁰)`` (the first-order
    approximation of the DistFlow type, used by the linear baseline).
    """
    n = Y.shape[0]
    others = np.array([k for k in range(n) if k != slack])
    dense = np.asarray(Y)
    Z = np.linalg.inv(dense[np.ix_(others, others)])
    Yns = dense[others, slack]
    steps = s_inj.shape[1]
    # no-load voltage profile (charging currents only): the flat start
    v0 = Z @ (-Yns * v_slack + 0j)
    vn = np.repeat(v0[:, None], steps, axis=1)
    s_n = s_inj[others].astype(complex)
    pos = {int(b): i for i, b in enumerate(others)}
    q = None
    if qu is not None:
        rows = np.array([pos[int(b)] for b in qu.bus])
        q = np.zeros((rows.size, steps))
    # Steps are independent power flows: a step leaves the iteration once converged, so the
    # work follows the slowest steps only (the result of each step is unchanged).
    todo = np.arange(steps)
    it = 0
    for it in range(1, max_iter + 1):
        vt = vn[:, todo]
        s_eff = s_n[:, todo]
        if qu is not None:
            q_target = qu.q_cols(np.abs(vt[rows]), todo)
            q[:, todo] = q_target if it == 1 else q[:, todo] + damping * (q_target - q[:, todo])
            s_eff = s_eff.copy()
            np.add.at(s_eff, rows, 1j * q[:, todo])
        rhs = np.conj(s_eff / vt) - Yns[:, None] * v_slack
        v_new = Z @ rhs
        delta = np.max(np.abs(v_new - vt), axis=0, initial=0.0)
        vn[:, todo] = v_new
        if linear:
            break
        if not np.all(np.isfinite(delta)):
            raise PowerFlowDiverged("the power flow diverged (non-finite voltages)")
        done = delta <= tol
        if qu is not None:
            q_err = np.max(np.abs(qu.q_cols(np.abs(v_new[rows]), todo) - q[:, todo]), axis=0, initial=0.0)
            done &= q_err <= 10 * tol
        todo = todo[~done]
        if todo.size == 0:
            break
    else:
        raise PowerFlowDiverged(f"the power flow did not converge in {max_iter} iterations")
    v = np.empty((n, steps), dtype=complex)
    v[others] = vn
    v[slack] = v_slack
    return YearFlow(v=v, q_qu=q, iterations=it)


def branch_currents_pu(br: Branches, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Current magnitudes (pu) entering each branch at its from and to ends, per step."""
    vf, vt = v[br.from_bus], v[br.to_bus]
    ysh = (br.y_shunt / 2.0)[:, None]
    i_f = (vf - vt) * br.y_series[:, None] + vf * ysh
    i_t = (vt - vf) * br.y_series[:, None] + vt * ysh
    return np.abs(i_f), np.abs(i_t)
