"""Levelized cost of energy by discounted cost over discounted energy.

    LCOE = [C_0 + Σ_{t=1..N} (O&M_t + R_t)/(1+r)^t] / [Σ_{t=1..N} E_t/(1+r)^t]

with the investment C_0 at the start of year 1 (t = 0, undiscounted), every other cash flow and
the energy at the end of its year (t = 1..N), O&M_t = O&M_1·(1+e)^(t−1) (escalation e),
E_t = E_1·(1−d)^(t−1) (degradation d compounding from the second year) and R_t a replacement
cost in its year. Short, Packey & Holt, *A Manual for the Economic Evaluation of Energy
Efficiency and Renewable Energy Technologies*, NREL/TP-462-5173 (1995), §4.2 (levelized cost
of energy, eq. 4-5 with end-of-year convention); NREL Annual Technology Baseline, "Levelized
cost of energy" definitions.
"""

from __future__ import annotations

import numpy as np


def lcoe_per_kwh(capex_usd: float, om_year1_usd: float, energy_year1_kwh: float, *, discount_rate: float,
                 lifetime_years: int, degradation: float, om_escalation: float = 0.0,
                 replacements: tuple[tuple[int, float], ...] = (), discount_energy: bool = True) -> float:
    """LCOE in USD/kWh (``discount_energy=False`` is the common slip of discounting costs only)."""
    t = np.arange(1, lifetime_years + 1, dtype=float)
    df = (1.0 + discount_rate) ** -t
    costs = om_year1_usd * (1.0 + om_escalation) ** (t - 1.0)
    for year, cost in replacements:
        if 1 <= year <= lifetime_years:
            costs[year - 1] += cost
    energy = energy_year1_kwh * (1.0 - degradation) ** (t - 1.0)
    denominator = float(np.sum(energy * df)) if discount_energy else float(np.sum(energy))
    return (capex_usd + float(np.sum(costs * df))) / denominator


def capital_recovery_factor(rate: float, years: int) -> float:
    """CRF = r(1+r)^N/((1+r)^N − 1) (Short et al. 1995, eq. 4-4)."""
    g = (1.0 + rate) ** years
    return rate * g / (g - 1.0)
