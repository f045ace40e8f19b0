"""Bus admittance matrix by the π-model stamp (Glover, Overbye & Sarma, *Power System
Analysis and Design*, 6th ed., §6.4 and §6.8; the same convention as MATPOWER's ``makeYbus``).

A branch from bus f to bus t has series admittance ``y_s = 1 / (r + jx)``, total line
charging ``b`` split ``jb/2`` at each end, and an off-nominal ratio ``t = τ·e^{jθ}`` on the
from side (τ the tap ratio, θ the phase shift). Its two-port admittances are::

    Y_tt = y_s + jb/2          Y_ff = Y_tt / τ²
    Y_ft = -y_s / conj(t)      Y_tf = -y_s / t

and a bus shunt ``g + jb`` adds to its diagonal entry. All quantities are per unit on the
system base.
"""

from __future__ import annotations

import math

import numpy as np


def branch_two_port(r_pu: float, x_pu: float, b_pu: float = 0.0, tap_ratio: float = 1.0,
                    phase_shift_deg: float = 0.0) -> tuple[complex, complex, complex, complex]:
    """``(Y_ff, Y_ft, Y_tf, Y_tt)`` of one π-model branch with its tap on the from side."""
    z = complex(r_pu, x_pu)
    if z == 0:
        raise ValueError("a branch needs a non-zero series impedance")
    if tap_ratio <= 0:
        raise ValueError("the tap ratio must be positive")
    ys = 1.0 / z
    t = tap_ratio * complex(math.cos(math.radians(phase_shift_deg)), math.sin(math.radians(phase_shift_deg)))
    ytt = ys + 0.5j * b_pu
    yff = ytt / (tap_ratio * tap_ratio)
    yft = -ys / t.conjugate()
    ytf = -ys / t
    return yff, yft, ytf, ytt


def build_ybus(
    n_bus: int,
    from_idx: np.ndarray,
    to_idx: np.ndarray,
    r_pu: np.ndarray,
    x_pu: np.ndarray,
    b_pu: np.ndarray,
    tap_ratio: np.ndarray,
    phase_shift_deg: np.ndarray,
    shunt_g_pu: np.ndarray,
    shunt_b_pu: np.ndarray,
) -> np.ndarray:
    """The complex ``n_bus × n_bus`` bus admittance matrix (per unit), by stamping every branch.

    Vectorized form of :func:`branch_two_port` for all branches at once, then
    ``Y = Cf^T diag(Yff) Cf + Cf^T diag(Yft) Ct + Ct^T diag(Ytf) Cf + Ct^T diag(Ytt) Ct + diag(Ysh)``.
    """
    f = np.asarray(from_idx, dtype=int)
    t_ = np.asarray(to_idx, dtype=int)
    z = np.asarray(r_pu, dtype=float) + 1j * np.asarray(x_pu, dtype=float)
    if np.any(z == 0):
        raise ValueError("every branch needs a non-zero series impedance")
    tau = np.asarray(tap_ratio, dtype=float)
    if np.any(tau <= 0):
        raise ValueError("tap ratios must be positive")
    ys = 1.0 / z
    tap = tau * np.exp(1j * np.deg2rad(np.asarray(phase_shift_deg, dtype=float)))
    ytt = ys + 0.5j * np.asarray(b_pu, dtype=float)
    yff = ytt / (tau * tau)
    yft = -ys / np.conj(tap)
    ytf = -ys / tap
    Y = np.zeros((n_bus, n_bus), dtype=complex)
    np.add.at(Y, (f, f), yff)
    np.add.at(Y, (f, t_), yft)
    np.add.at(Y, (t_, f), ytf)
    np.add.at(Y, (t_, t_), ytt)
    Y[np.diag_indices(n_bus)] += np.asarray(shunt_g_pu, dtype=float) + 1j * np.asarray(shunt_b_pu, dtype=float)
    return Y
