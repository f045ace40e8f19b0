"""Per-step physics of dispatch schedules: storage energy, reservoir volume, PCC exchange,
commitment transitions and capability polygons. Imports only ``math`` and ``numpy``.

These are the recursions and closed forms that the evaluators, the reference solvers'
post-processing and the held-out generators share; the optimisation constraints themselves
live in :mod:`psab.solvers.dispatch` as :class:`~psab.solvers.algebra.LinearConstraint` rows.

Conventions: a schedule has ``T`` steps of ``dt_h`` hours; a state (stored energy, reservoir
volume) is reported at the END of each step, starting from its initial value before step 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def soc_trajectory(soc_initial_mwh: float, charge_mw: np.ndarray, discharge_mw: np.ndarray,
                   eta_charge: float, eta_discharge: float, dt_h: float) -> np.ndarray:
    """Stored energy at the end of every step of a battery (MWh).

    ``E_t = E_{t-1} + η_c·P^ch_t·Δt − P^dis_t·Δt/η_d`` with ``E_{-1}`` the initial energy:
    the charging losses are taken on the way in and the discharging losses on the way out,
    the usual linear storage model of microgrid dispatch (e.g. Parisio, Rikos & Glielmo,
    IEEE TCST 22(5), 2014, eq. (3)).
    """
    ch = np.asarray(charge_mw, dtype=float)
    dis = np.asarray(discharge_mw, dtype=float)
    if eta_charge <= 0 or eta_discharge <= 0:
        raise ValueError("efficiencies must be positive")
    delta = eta_charge * ch * dt_h - dis * dt_h / eta_discharge
    return float(soc_initial_mwh) + np.cumsum(delta)


def reservoir_trajectory(volume_initial_hm3: float, inflow_m3s: np.ndarray, turbine_m3s: np.ndarray,
                         spill_m3s: np.ndarray, dt_h: float) -> np.ndarray:
    """Reservoir volume at the end of every step (hm³ = 10⁶ m³).

    ``V_t = V_{t-1} + (inflow_t − q_t − spill_t)·3600·Δt / 10⁶``: a flow of 1 m³/s held for
    one hour moves 0.0036 hm³.
    """
    net = np.asarray(inflow_m3s, float) - np.asarray(turbine_m3s, float) - np.asarray(spill_m3s, float)
    return float(volume_initial_hm3) + np.cumsum(net * HM3_PER_M3S_HOUR * dt_h)


#: hm³ moved by a flow of 1 m³/s during one hour.
HM3_PER_M3S_HOUR = 3600.0 / 1e6


@dataclass(frozen=True)
class Exchange:
    """The realized exchange at the point of common coupling, step by step (MW ≥ 0)."""

    import_mw: np.ndarray
    export_mw: np.ndarray


def realized_exchange(load_mw: np.ndarray, pv_mw: np.ndarray, generation_mw: np.ndarray,
                      charge_mw: np.ndarray, discharge_mw: np.ndarray) -> Exchange:
    """What the grid supplies or absorbs when the local set-points meet the realized load
    and PV: ``g = load − pv − generation − discharge + charge``, imported when positive and
    exported when negative (the grid is the slack of a grid-connected microgrid)."""
    g = (np.asarray(load_mw, float) - np.asarray(pv_mw, float) - np.asarray(generation_mw, float)
         - np.asarray(discharge_mw, float) + np.asarray(charge_mw, float))
    return Exchange(import_mw=np.maximum(g, 0.0), export_mw=np.maximum(-g, 0.0))


def step_costs(dt_h: float, *terms: tuple[np.ndarray, np.ndarray | float]) -> np.ndarray:
    """Cost of every step: ``Σ_k price_k,t · power_k,t · Δt`` for ``(power, price)`` pairs
    (a negative price is a revenue, e.g. exported energy)."""
    total: np.ndarray | None = None
    for power, price in terms:
        part = np.asarray(power, float) * np.asarray(price, float) * dt_h
        total = part if total is None else total + part
    if total is None:
        raise ValueError("no cost terms")
    return total


def transitions(on: np.ndarray, on_initial: bool) -> tuple[np.ndarray, np.ndarray]:
    """Start-ups and shut-downs of a unit from its on/off sequence: ``y_t = max(u_t − u_{t−1}, 0)``,
    ``z_t = max(u_{t−1} − u_t, 0)`` with ``u_{−1}`` the initial state."""
    u = np.asarray(on, dtype=float)
    prev = np.concatenate([[1.0 if on_initial else 0.0], u[:-1]])
    return np.maximum(u - prev, 0.0), np.maximum(prev - u, 0.0)


@dataclass(frozen=True)
class Polygon:
    """A regular polygon inscribed in the unit circle, as half-planes
    ``cos θ_k·x + sin θ_k·y ≤ r`` with ``θ_k = 2πk/n`` and ``r = cos(π/n)`` (the apothem):
    every vertex lies on the circle, so the polygon is inside it, and a point at radius up
    to ``r`` in any direction is inside the polygon."""

    cos: tuple[float, ...]
    sin: tuple[float, ...]
    apothem: float


def inscribed_polygon(sides: int) -> Polygon:
    """The ``sides``-gon inscribed in the unit circle (see :class:`Polygon`)."""
    if sides < 3:
        raise ValueError("a polygon needs at least 3 sides")
    angles = [2.0 * math.pi * k / sides for k in range(sides)]
    # round off the 1e-17 residue of cos(π/2) and friends so rows carry clean coefficients
    return Polygon(
        cos=tuple(round(math.cos(a), 15) + 0.0 for a in angles),
        sin=tuple(round(math.sin(a), 15) + 0.0 for a in angles),
        apothem=math.cos(math.pi / sides),
    )


def polygon_slack(polygon: Polygon, p: float, q: float, s_max: float) -> float:
    """``min_k (r·S − cos θ_k·P − sin θ_k·Q)``: non-negative inside the polygon of radius S."""
    return min(polygon.apothem * s_max - c * p - s * q for c, s in zip(polygon.cos, polygon.sin, strict=True))
