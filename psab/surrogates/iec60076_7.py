"""Thermal model of oil-immersed power transformers, IEC 60076-7:2018 (loading guide).

The difference-equation solution of the thermal model (IEC 60076-7:2018, the "difference
equations" subclause of the clause on temperatures under time-varying load and ambient; in the
2005 edition §8.2.3), with the load factor ``K`` and the ambient ``θa`` of step ``n`` applied
over the step ``Dt`` that ends at ``n``::

    Dθo(n)  = Dt/(k11·τo) · [ ((1 + K²R)/(1 + R))^x · Δθor − (θo(n−1) − θa(n)) ]
    Dθh1(n) = Dt/(k22·τw) · [ k21 · K^y · H·gr − Δθh1(n−1) ]
    Dθh2(n) = Dt/(τo/k22) · [ (k21 − 1) · K^y · H·gr − Δθh2(n−1) ]
    θh(n)   = θo(n) + Δθh1(n) − Δθh2(n)

stable for ``Dt`` at most half of the smallest of k11·τo, k22·τw and τo/k22. The relative ageing
rate (§6.2, eqs. (2)/(3)) is ``V = 2^((θh − 98)/6)`` for non-thermally-upgraded paper and
``V = exp(15000/(110 + 273) − 15000/(θh + 273))`` for thermally upgraded paper; the loss of life
over a period (§6.3, eq. (4)) is ``L = Σ V(n) · Dt``.

Every recursion above is ``s(n) = a·s(n−1) + b(n)`` with a constant ``a = 1 − Dt/T``, so a long
series is solved in numpy blocks (:func:`linear_recursion`) rather than a Python loop: a year
of 10-minute steps costs milliseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Paper insulation kinds of §6.2.
PAPERS = ("normal", "thermally_upgraded")


@dataclass(frozen=True)
class ThermalParameters:
    """The thermal characteristics of one transformer (IEC 60076-7:2018 Table 5 names).

    ``delta_theta_or_k`` top-oil rise at rated losses; ``h_gr_k`` hot-spot-to-top-oil gradient
    H·gr at rated current; ``r`` load-loss/no-load-loss ratio; ``x``, ``y`` oil and winding
    exponents; ``k11``, ``k21``, ``k22`` thermal model constants; ``tau_o_min``, ``tau_w_min``
    oil and winding time constants (minutes)."""

    delta_theta_or_k: float
    h_gr_k: float
    r: float
    x: float
    y: float
    k11: float
    k21: float
    k22: float
    tau_o_min: float
    tau_w_min: float

    def time_constants_min(self) -> tuple[float, float, float]:
        """The three time constants of the difference equations: k11·τo, k22·τw, τo/k22."""
        return self.k11 * self.tau_o_min, self.k22 * self.tau_w_min, self.tau_o_min / self.k22

    def max_step_min(self) -> float:
        """The largest stable step: half the smallest time constant."""
        return 0.5 * min(self.time_constants_min())


def ultimate_top_oil_rise_k(p: ThermalParameters, k: np.ndarray | float) -> np.ndarray:
    """Steady-state top-oil rise over ambient at load factor K: ((1 + K²R)/(1 + R))^x · Δθor."""
    k = np.asarray(k, dtype=float)
    return ((1.0 + k * k * p.r) / (1.0 + p.r)) ** p.x * p.delta_theta_or_k


def steady_hot_spot_gradient_k(p: ThermalParameters, k: np.ndarray | float) -> np.ndarray:
    """Steady-state hot-spot-to-top-oil gradient at load factor K: H·gr · K^y."""
    return p.h_gr_k * np.asarray(k, dtype=float) ** p.y


def linear_recursion(a: float, s0: float, b: np.ndarray, block: int | None = None) -> np.ndarray:
    """``s(n) = a·s(n−1) + b(n)`` for n = 1..N (returned), from ``s(0) = s0``, for 0 < a ≤ 1.

    Within a block of length L, s(n) = a^n·(s0 + Σ_{k≤n} b(k)·a^−k): a cumulative sum. The block
    is as long as a^−L ≤ e^69 (≈ 1e30) allows, so the terms stay far from overflow while the
    relative rounding error of each s(n) stays at machine precision (every term is scaled by
    the same a^n at the end)."""
    b = np.asarray(b, dtype=float)
    out = np.empty_like(b)
    if a == 1.0:
        return s0 + np.cumsum(b)
    if block is None:
        block = int(max(16, min(8192, 600.0 / -math.log(a))))
    powers = a ** np.arange(1, block + 1)
    inv = 1.0 / powers
    s = float(s0)
    for start in range(0, b.size, block):
        chunk = b[start:start + block]
        m = chunk.size
        out[start:start + m] = powers[:m] * (s + np.cumsum(chunk * inv[:m]))
        s = float(out[start + m - 1])
    return out


@dataclass(frozen=True)
class ThermalProfile:
    """Temperatures at the end of every calculation step (n = 1..N) and the ageing along them."""

    top_oil_c: np.ndarray
    hot_spot_c: np.ndarray
    ageing_rate_pu: np.ndarray
    loss_of_life_min: float


def ageing_rate(theta_h_c: np.ndarray | float, paper: str = "normal") -> np.ndarray:
    """Relative ageing rate V at hot-spot temperature θh (IEC 60076-7:2018 §6.2, eqs. (2), (3))."""
    th = np.asarray(theta_h_c, dtype=float)
    if paper == "normal":
        return 2.0 ** ((th - 98.0) / 6.0)
    if paper == "thermally_upgraded":
        return np.exp(15000.0 / (110.0 + 273.0) - 15000.0 / (th + 273.0))
    raise ValueError(f"paper must be one of {PAPERS}, not {paper!r}")


def thermal_response(p: ThermalParameters, load_pu: np.ndarray, ambient_c: np.ndarray, dt_min: float, *,
                     initial_top_oil_c: float, initial_dh1_k: float = 0.0, initial_dh2_k: float = 0.0,
                     paper: str = "normal") -> ThermalProfile:
    """Top-oil and hot-spot temperatures by the difference equations, step by step.

    ``load_pu[n]`` and ``ambient_c[n]`` hold over the step that ends at n (n = 1..N); the initial
    state is θo(0) and the two hot-spot gradient terms Δθh1(0), Δθh2(0)."""
    if not dt_min > 0 or dt_min > p.max_step_min() * (1 + 1e-12):
        raise ValueError(f"time step {dt_min} min is outside (0, {p.max_step_min():.4g}] (half the smallest time constant)")
    K = np.asarray(load_pu, dtype=float)
    ta = np.asarray(ambient_c, dtype=float)
    t1, t2, t3 = p.time_constants_min()
    f1, f2, f3 = dt_min / t1, dt_min / t2, dt_min / t3
    top = linear_recursion(1.0 - f1, initial_top_oil_c, f1 * (ultimate_top_oil_rise_k(p, K) + ta))
    grad = steady_hot_spot_gradient_k(p, K)
    dh1 = linear_recursion(1.0 - f2, initial_dh1_k, f2 * p.k21 * grad)
    dh2 = linear_recursion(1.0 - f3, initial_dh2_k, f3 * (p.k21 - 1.0) * grad)
    hot = top + dh1 - dh2
    v = ageing_rate(hot, paper)
    return ThermalProfile(top_oil_c=top, hot_spot_c=hot, ageing_rate_pu=v, loss_of_life_min=float(np.sum(v) * dt_min))


def steady_state(p: ThermalParameters, load_pu: float, ambient_c: float) -> tuple[float, float, float]:
    """The steady state at constant load and ambient: θo, Δθh1, Δθh2 (the usual initial state)."""
    grad = float(steady_hot_spot_gradient_k(p, load_pu))
    return float(ambient_c + ultimate_top_oil_rise_k(p, load_pu)), p.k21 * grad, (p.k21 - 1.0) * grad


def exponential_equivalent_time_constant(t_min: float, dt_min: float) -> float:
    """The time constant T' whose exact exponential step 1 − exp(−Dt/T') equals the difference
    equation's Dt/T: T' = −Dt / ln(1 − Dt/T) (used to map an exponential-update solver onto
    the difference equations)."""
    return -dt_min / math.log(1.0 - dt_min / t_min)
