"""N-1 generation security with commitment binaries: the loss of any single unit is covered by
the governor response of the units still committed, within their capacity and the branches'
emergency ratings.

Redistribution rule — steady-state primary frequency response (Kundur, *Power System Stability
and Control*, 1994, §11.1.4, eqs. 11.15-11.17; Wood & Wollenberg, 3rd ed., §9.3): a unit with
droop ``R_j`` (per unit) and capacity ``P_max,j`` has the governor gain ``K_j = P_max,j /
(R_j · f_0)`` MW/Hz. When unit g producing ``p_g`` trips, frequency settles at ``Δf_g`` below
nominal where the committed units' pickups balance the loss, load damping neglected:

    Δf_g = p_g / Σ_{j ≠ g} K_j u_j,        ΔP_j^g = K_j u_j Δf_g,

and each remaining unit must absorb its share (``p_j + ΔP_j^g ≤ P_max,j``) while the DC flows
of the post-outage injections stay within the emergency ratings.

MILP form: ``Δf_g`` is a variable ``lam[g]`` and the products ``y[g, j] = u_j · lam[g]`` are
linearized exactly with McCormick rows for binary ``u_j`` (Glover, "Improved linear integer
programming formulations of nonlinear integer problems", Management Science 22(4), 1975),
using the bound ``Λ_g = P_max,g / min_{j≠g} K_j`` (a positive loss needs at least one other
committed unit, so ``Δf_g`` cannot exceed it). The evaluator computes ``Δf_g`` and ``y``
from the submitted commitment and dispatch by the rule above and checks these same rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from psab.solvers.algebra import LinearConstraint, equal_to, unit_limit_shown
from psab.solvers.network import DcGrid, fixed_flow_mw, ptdf_flow_rows, shift_factors


@dataclass(frozen=True)
class UnitData:
    """Units in order: ids, limits (MW) and governor gains ``K`` (MW/Hz)."""

    ids: tuple[str, ...]
    p_min_mw: tuple[float, ...]
    p_max_mw: tuple[float, ...]
    gain_mw_per_hz: tuple[float, ...]

    @property
    def n(self) -> int:
        return len(self.ids)

    def big_lambda_hz(self, g: int) -> float:
        """The McCormick bound Λ_g on the frequency deviation after losing unit g (Hz): a positive
        loss needs another committed unit, so Δf_g ≤ P_max,g / min_{j≠g} K_j."""
        others = [k for j, k in enumerate(self.gain_mw_per_hz) if j != g]
        return self.p_max_mw[g] / min(others) if others else 0.0


def governor_gain_mw_per_hz(p_max_mw: float, droop_pct: float, f0_hz: float) -> float:
    """``K = P_max / (R · f_0)``: the steady-state governor response of a unit, MW per Hz."""
    return p_max_mw / (droop_pct / 100.0 * f0_hz)


@dataclass(frozen=True)
class OutageResponse:
    """The rule applied to one commitment and dispatch: frequency deviation of every unit's
    loss (Hz, 0 when nothing is lost; NaN when no committed unit is left to respond) and the
    pickup products ``y[g, j] = u_j Δf_g`` (Hz)."""

    delta_f_hz: np.ndarray
    y_hz: np.ndarray


def governor_response(units: UnitData, u: np.ndarray, p: np.ndarray) -> OutageResponse:
    """``Δf_g = p_g / Σ_{j≠g} K_j u_j`` and ``y[g, j] = u_j Δf_g`` for every unit g."""
    K = np.asarray(units.gain_mw_per_hz)
    u = np.asarray(u, dtype=float)
    p = np.asarray(p, dtype=float)
    total = float(K @ u)
    df = np.zeros(units.n)
    for g in range(units.n):
        others = total - K[g] * u[g]
        if others > 0:
            df[g] = p[g] / others
        elif p[g] > 0:
            df[g] = np.nan
    y = np.where(np.isnan(df)[:, None], 0.0, df[:, None] * u[None, :])
    np.fill_diagonal(y, 0.0)
    return OutageResponse(df, y)


def n1_generation_rows(
    grid: DcGrid,
    ptdf: np.ndarray,
    shift_flow_mw: np.ndarray,
    units: UnitData,
    demand_mw: float,
    normal_rating_mw: Sequence[float],
    emergency_rating_mw: Sequence[float],
    *,
    unit_field: Any,
) -> list[LinearConstraint]:
    """Rows over ``u`` (commitment), ``p`` (MW), ``lam`` (Δf per lost unit, Hz) and ``y``
    (``u_j · lam_g``): balance, commitment-coupled limits, base-case flows within the normal
    ratings, and for every unit's loss: the governor pickup covering it, the McCormick rows of
    ``y``, every remaining unit's headroom, and the post-outage flows within the emergency
    ratings. ``unit_field(g, what)`` is the answer field of unit g (``what``: committed/p_mw)."""
    n = units.n
    K = units.gain_mw_per_hz
    L = [units.big_lambda_hz(g) for g in range(n)]
    pmin, pmax = units.p_min_mw, units.p_max_mw
    ids = units.ids
    one = [(g, ids[g]) for g in range(n)]
    pairs = [(g, j, ids[g], ids[j]) for g in range(n) for j in range(n) if j != g]
    S = shift_factors(ptdf, grid)
    fixed = fixed_flow_mw(ptdf, grid, shift_flow_mw)
    lines = range(len(grid.branch_ids))
    br = grid.branch_ids
    everyone = list(range(n))

    def base_injection(v: Any, s: Any, j: int) -> Any:
        return v.p[j]

    def post_injection(v: Any, g: Any, j: int) -> Any:
        return 0.0 if j == g else v.p[j] + K[j] * v.y[g, j]

    return [
        LinearConstraint("balance", "committed generation equals the demand", [0],
                         lambda v, i: sum(v.p[g] for g in range(n)), **equal_to(demand_mw), field=lambda i: "/units"),
        LinearConstraint("p_max", "output of {1} within its capacity when committed (zero when off)", one,
                         lambda v, i: v.p[i[0]] - pmax[i[0]] * v.u[i[0]], upper=0.0,
                         field=lambda i: unit_field(i[0], "p_mw"),
                         shown=lambda v, i: unit_limit_shown("<=", pmax[i[0]], "p_max_mw", v.u[i[0]], v.p[i[0]])),
        LinearConstraint("p_min", "output of {1} at least its minimum stable generation when committed", one,
                         lambda v, i: v.p[i[0]] - pmin[i[0]] * v.u[i[0]], lower=0.0,
                         field=lambda i: unit_field(i[0], "p_mw"),
                         shown=lambda v, i: unit_limit_shown(">=", pmin[i[0]], "p_min_mw", v.u[i[0]], v.p[i[0]])),
        ptdf_flow_rows("base_flow", "base-case active flow of {3} within its normal rating",
                       [("base", k, "base", br[k]) for k in lines], S, fixed, base_injection, everyone,
                       rating=lambda i: normal_rating_mw[i[1]], field=lambda i: "/units"),
        LinearConstraint("pickup", "after the loss of {1}, the committed units' governor response covers its output",
                         one, lambda v, i: sum(K[j] * v.y[i[0], j] for j in range(n) if j != i[0]) - v.p[i[0]],
                         **equal_to(0.0), field=lambda i: unit_field(i[0], "p_mw")),
        LinearConstraint("mccormick_u", "pickup of {3} after the loss of {2} only if committed", pairs,
                         lambda v, i: v.y[i[0], i[1]] - L[i[0]] * v.u[i[1]], upper=0.0,
                         field=lambda i: unit_field(i[1], "committed")),
        LinearConstraint("mccormick_lam", "pickup share of {3} after the loss of {2} at most the frequency deviation", pairs,
                         lambda v, i: v.y[i[0], i[1]] - v.lam[i[0]], upper=0.0,
                         field=lambda i: unit_field(i[1], "committed")),
        LinearConstraint("mccormick_on", "a committed {3} follows the frequency deviation after the loss of {2}", pairs,
                         lambda v, i: v.y[i[0], i[1]] - v.lam[i[0]] - L[i[0]] * v.u[i[1]], lower=lambda i: -L[i[0]],
                         field=lambda i: unit_field(i[1], "committed")),
        LinearConstraint("headroom", "after the loss of {2}, {3} picks up its governor share within its capacity", pairs,
                         lambda v, i: v.p[i[1]] + K[i[1]] * v.y[i[0], i[1]] - pmax[i[1]] * v.u[i[1]], upper=0.0,
                         field=lambda i: unit_field(i[1], "p_mw")),
        ptdf_flow_rows("post_flow", "after the loss of {2}, active flow of {3} within its emergency rating",
                       [(g, k, ids[g], br[k]) for g in range(n) for k in lines], S, fixed, post_injection, everyone,
                       rating=lambda i: emergency_rating_mw[i[1]], field=lambda i: unit_field(i[0], "p_mw")),
    ]
