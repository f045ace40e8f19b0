"""Frequency containment by a battery: the droop characteristic, the energy balance with SOC
limits, and the system frequency response to a loss of infeed.

Characteristic (ENTSO-E SOGL Art. 154 and its annex: FCR fully activated at ±200 mHz in
RG-CE, linear response; an intentional deadband where the TSO allows one)::

    Δf_eff = sign(Δf) · max(|Δf| − deadband, 0)
    P      = clip(−k · Δf_eff, −P_fcr, +P_fcr)           (P > 0: discharge, injection)

with ``k = P_fcr / (Δf_full − deadband)`` when the characteristic is given by its full-activation
deviation, or ``k = P_rated / (droop · f_n)`` when it is given as a droop on the battery's rating.

Energy balance per step of length Δt (zero-order hold of the frequency sample)::

    E[k+1] = E[k] − Δt · P[k] / η_d       (P[k] ≥ 0, discharge)
    E[k+1] = E[k] − Δt · P[k] · η_c       (P[k] < 0, charge)

and when a step would carry E beyond [E_min, E_max] the response is curtailed so that E ends
the step exactly at the limit (Gonzalez-Longatt & Rueda Torres, *Advanced Smart Grid
Functionalities Based on PowerFactory*, Springer 2018, ch. on BESS frequency control: SOC-limited
droop response).

System frequency response (Anderson & Mirheydar, "A low-order system frequency response model",
IEEE Trans. Power Systems 5(3), 1990, Fig. 1): swing equation with damping, a reheat-turbine
governor and, added here, a slow secondary (FRR) integral that restores the frequency in minutes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def fcr_power_mw(df_hz: np.ndarray, *, deadband_hz: float, gain_mw_per_hz: float, p_fcr_mw: float) -> np.ndarray:
    """FCR power (MW, positive = discharge) for frequency deviations ``df_hz`` = f − f_n."""
    df = np.asarray(df_hz, dtype=float)
    eff = np.sign(df) * np.maximum(np.abs(df) - deadband_hz, 0.0)
    return np.clip(-gain_mw_per_hz * eff, -p_fcr_mw, p_fcr_mw)


@dataclass(frozen=True)
class SocRun:
    """The delivered power per step, the energy at the end of each step, and the first step
    whose end energy sits on a limit (``None`` when none does)."""

    p_mw: np.ndarray
    energy_mwh: np.ndarray
    first_limit_step: int | None
    limit: str | None
    closest_margin_mwh: float


def simulate_soc(p_request_mw: np.ndarray, *, e0_mwh: float, e_min_mwh: float, e_max_mwh: float,
                 eta_charge: float, eta_discharge: float, step_s: float) -> SocRun:
    """Run the energy balance over the requested powers with curtailment at the SOC limits.

    ``closest_margin_mwh`` is the smallest distance to a limit among uncurtailed steps — how
    close an unlimited run came to a limit (used to reject tie-prone draws)."""
    dt_h = step_s / 3600.0
    n = len(p_request_mw)
    p_out = np.empty(n)
    e_out = np.empty(n)
    e = float(e0_mwh)
    first: int | None = None
    which: str | None = None
    margin = float("inf")
    for k in range(n):
        p = float(p_request_mw[k])
        de = -dt_h * (p / eta_discharge if p >= 0.0 else p * eta_charge)
        e_new = e + de
        hit = None
        if e_new < e_min_mwh:
            e_new = e_min_mwh
            p = (e - e_min_mwh) * eta_discharge / dt_h
            hit = "min"
        elif e_new > e_max_mwh:
            e_new = e_max_mwh
            p = -(e_max_mwh - e) / (eta_charge * dt_h)
            hit = "max"
        else:
            margin = min(margin, e_new - e_min_mwh, e_max_mwh - e_new)
        if hit is not None and first is None:
            first, which = k, hit
        p_out[k] = p
        e_out[k] = e_new
        e = e_new
    return SocRun(p_out, e_out, first, which, margin)


def sfr_deviation_hz(step_loss_pu: float, *, n: int, step_s: float, f_n_hz: float, h_s: float, r_pu: float,
                     d_pu: float, km: float, fh: float, tr_s: float, ki_per_s: float, onset_s: float) -> np.ndarray:
    """Frequency deviation (Hz) sampled every ``step_s`` after a loss of ``step_loss_pu`` of the
    system's load base at ``onset_s``: the SFR model (2H·dω/dt = ΔPm − ΔPl − D·ω; reheat governor
    ΔPm = −(Km/R)·(1 + F_H·T_R·s)/(1 + T_R·s)·ω) plus an integral secondary control
    (−K_i·∫ω) that restores the frequency. Integrated at 0.05 s, sampled at ``step_s``."""
    h = 0.05
    sub = max(1, int(round(step_s / h)))
    h = step_s / sub
    w = 0.0   # speed deviation, pu
    x = 0.0   # reheat lag state: governor output before the lead-lag numerator
    z = 0.0   # secondary control integral
    out = np.zeros(n)
    t = 0.0
    for k in range(n):
        out[k] = w * f_n_hz
        for _ in range(sub):
            dpl = step_loss_pu if t >= onset_s else 0.0
            u = -(km / r_pu) * w - z
            # lead-lag (1 + F_H T_R s)/(1 + T_R s): x' = (u − x)/T_R, y = x + F_H·(u − x)
            pm = x + fh * (u - x)
            x += h * (u - x) / tr_s
            w += h * (pm - dpl - d_pu * w) / (2.0 * h_s)
            z += h * ki_per_s * w
            t += h
    return out
