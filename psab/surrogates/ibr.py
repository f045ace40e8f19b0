"""Current-limited inverter fault injection with reactive priority, against a Thevenin grid.

Model (the steady fault-period operating point used for inverter-based resources in short-circuit
and fault-ride-through studies; e.g. VDE-AR-N 4120:2018 §10.2.3.2 reactive-current characteristic,
IEEE 2800-2022 §7.2.2.3, CIGRE TB 881 (2022) §3): the inverter injects, in the frame of its PCC
voltage V = u∠θ, the current I = (i_p − j·i_q)·e^{jθ}, so that S = V·I* = u·(i_p + j·i_q):

    ΔU = u_pre − u;  i_q,cmd = i_q,pre + K·(ΔU − d) when ΔU > d (d the deadband), else i_q,pre
    i_q = min(i_q,cmd, i_max)                         (reactive priority)
    i_p = min(i_p,pre, √(i_max² − i_q²))              (active current from what is left)

and the network ties the PCC to the grid's Thevenin source E (the retained voltage during the
fault, the angle reference) through Z = R + jX: V = E + Z·I. The operating point is the fixed
point of the two. With a = |Z·(i_p − j i_q)| and φ = arg(Z·(i_p − j i_q)) (functions of u only), the
network equation in the voltage frame reads E·e^{−jθ} = u − a·e^{jφ}, so u solves the scalar
equation |u − a(u)·e^{jφ(u)}| = |E|, solved here by bisection to 1e-12.

Pure functions: ``math`` only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Inverter:
    """Per unit of the inverter's rating (voltage, current, impedance)."""

    i_max_pu: float
    k_gain: float
    deadband_pu: float
    u_pre_pu: float
    p_pre_pu: float
    q_pre_pu: float


@dataclass(frozen=True)
class Operating:
    i_q_pu: float
    i_p_pu: float
    i_total_pu: float
    u_pcc_pu: float
    theta_rad: float
    iterations: int


def currents(inv: Inverter, u: float) -> tuple[float, float]:
    """(i_p, i_q) the controller injects at PCC voltage magnitude ``u``."""
    ip_pre = inv.p_pre_pu / inv.u_pre_pu
    iq_pre = inv.q_pre_pu / inv.u_pre_pu
    du = inv.u_pre_pu - u
    iq = iq_pre + inv.k_gain * (du - inv.deadband_pu) if du > inv.deadband_pu else iq_pre
    iq = min(iq, inv.i_max_pu)
    ip = min(ip_pre, math.sqrt(max(inv.i_max_pu ** 2 - iq * iq, 0.0)))
    return ip, iq


def _residual(inv: Inverter, e: float, r: float, x: float, u: float) -> float:
    ip, iq = currents(inv, u)
    zi = complex(r, x) * complex(ip, -iq)
    return abs(u - zi) - e


def operating_point(inv: Inverter, e_pu: float, r_pu: float, x_pu: float, tol: float = 1e-12) -> Operating:
    """The fault-period operating point (see the module docstring). Raises ``ValueError`` when the
    fixed point has no solution in 0 < u ≤ 2 or more than one sign change is found on a scan."""
    lo, hi = 1e-9, 2.0
    grid = [lo + (hi - lo) * k / 400 for k in range(401)]
    vals = [_residual(inv, e_pu, r_pu, x_pu, u) for u in grid]
    roots = [(grid[k], grid[k + 1]) for k in range(400) if (vals[k] <= 0.0) != (vals[k + 1] <= 0.0)]
    if len(roots) != 1:
        raise ValueError(f"the injection and the network equation have {len(roots)} solutions in 0 < u ≤ 2")
    a, b = roots[0]
    fa = _residual(inv, e_pu, r_pu, x_pu, a)
    n = 0
    while b - a > tol and n < 200:
        mid = 0.5 * (a + b)
        fm = _residual(inv, e_pu, r_pu, x_pu, mid)
        if (fm <= 0.0) == (fa <= 0.0):
            a, fa = mid, fm
        else:
            b = mid
        n += 1
    u = 0.5 * (a + b)
    ip, iq = currents(inv, u)
    zi = complex(r_pu, x_pu) * complex(ip, -iq)
    theta = -math.atan2((u - zi).imag, (u - zi).real)  # E·e^{−jθ} = u − Z·i with E real
    return Operating(i_q_pu=iq, i_p_pu=ip, i_total_pu=math.hypot(ip, iq), u_pcc_pu=u, theta_rad=theta, iterations=n)
