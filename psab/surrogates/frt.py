"""Fault-ride-through envelopes and a measured voltage profile: obligation, margin, compliance.

An FRT envelope is the lower limit of the voltage-against-time region in which a unit must stay
connected (Commission Regulation (EU) 2016/631 "RfG", Art. 14(3)(a) and 16(3)(a), Figures 3 and 6
with Tables 3.1/3.2 and 7.1/7.2). It is a piecewise-linear curve through points (t_i, u_i) with t
non-decreasing from the fault instant t = 0; a repeated t is a vertical step and the value after the
step applies from that instant on (right-continuous). The obligation ends at the last point.

The RfG parameter set (U_ret, U_clear, U_rec1, U_rec2, t_clear, t_rec1, t_rec2, t_rec3) gives the
points (0, U_ret), (t_clear, U_ret), (t_clear, U_clear), (t_rec1, U_rec1), (t_rec2, U_rec1),
(t_rec3, U_rec2) — :func:`rfg_envelope`.

Pure functions: ``math`` and ``numpy``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def rfg_envelope(p: dict[str, float]) -> list[tuple[float, float]]:
    """The RfG voltage-against-time profile's points from its parameters (Art. 14(3)(a), Figure 3)."""
    return [(0.0, p["u_ret_pu"]), (p["t_clear_s"], p["u_ret_pu"]), (p["t_clear_s"], p["u_clear_pu"]),
            (p["t_rec1_s"], p["u_rec1_pu"]), (p["t_rec2_s"], p["u_rec1_pu"]), (p["t_rec3_s"], p["u_rec2_pu"])]


def envelope_at(points: list[tuple[float, float]], t: np.ndarray) -> np.ndarray:
    """u_env(t), right-continuous at vertical steps (for t inside [0, t_last])."""
    ts = np.array([p[0] for p in points], dtype=float)
    us = np.array([p[1] for p in points], dtype=float)
    t = np.asarray(t, dtype=float)
    # the last point at or before t (a vertical step's upper point wins: searchsorted 'right')
    k = np.clip(np.searchsorted(ts, t, side="right") - 1, 0, len(ts) - 1)
    k_next = np.minimum(k + 1, len(ts) - 1)
    dt = ts[k_next] - ts[k]
    frac = np.where(dt > 0, (t - ts[k]) / np.where(dt > 0, dt, 1.0), 0.0)
    return us[k] + frac * (us[k_next] - us[k])


@dataclass(frozen=True)
class Verdict:
    compliant: bool
    left_envelope: bool
    event_time_s: float
    min_margin_pu: float
    exit_time_s: float | None
    margins: np.ndarray
    considered: np.ndarray


def assess(points: list[tuple[float, float]], t_s: np.ndarray, u_pu: np.ndarray, trip_s: float | None) -> Verdict:
    """Compliance of a measured profile with the envelope.

    Samples considered: 0 ≤ t_k ≤ t_last (the envelope's end) and, when the unit tripped,
    t_k ≤ t_trip. Margin m_k = u_k − u_env(t_k). The profile leaves the envelope at the first
    considered sample with m_k < 0; the unit is obliged to stay connected up to that instant
    (or to t_last). Non-compliant when it tripped at 0 ≤ t_trip ≤ t_last before leaving (a trip at
    the exit sample itself is allowed). Event time: the trip instant when non-compliant, else the
    exit instant when the profile left, else t_last.
    """
    t_s = np.asarray(t_s, dtype=float)
    u_pu = np.asarray(u_pu, dtype=float)
    t_last = points[-1][0]
    mask = (t_s >= 0.0) & (t_s <= t_last)
    if trip_s is not None:
        mask &= t_s <= trip_s
    m = u_pu[mask] - envelope_at(points, t_s[mask])
    below = np.nonzero(m < 0.0)[0]
    exit_t = float(t_s[mask][below[0]]) if below.size else None
    obliged_trip = trip_s is not None and 0.0 <= trip_s <= t_last and (exit_t is None or trip_s < exit_t)
    event = float(trip_s) if obliged_trip else (exit_t if exit_t is not None else float(t_last))  # type: ignore[arg-type]
    return Verdict(compliant=not obliged_trip, left_envelope=exit_t is not None, event_time_s=event,
                   min_margin_pu=float(m.min()) if m.size else float("nan"), exit_time_s=exit_t, margins=m,
                   considered=t_s[mask])
