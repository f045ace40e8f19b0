"""Protected-meter placement against false-data injection: the DC observability rank test and
the least-cost protected set.

DC measurement model (Abur & Expósito, *Power System State Estimation*, 2004, §4.3 — the
decoupled P–θ model used for observability): state θ at every bus but the reference; an active
injection P_i = Σ_j (θ_i − θ_j)/x_ij, an active flow at the from end P_ft = (θ_f − θ_t)/x_ft, at
the to end its negative. Bobba et al. (*Detecting false data injection attacks on DC state
estimation*, SCS 2010) and Kim & Poor (*Strategic protection against data injection attacks on
power grids*, IEEE Trans. Smart Grid 2(2), 2011): an attack a = H c that changes the estimate
without changing the residual must alter some protected meter unless c = 0, i.e. it is impossible
exactly when the protected rows H_P have full column rank — the protected set must make the
state observable on its own (contain a basic measurement set).

Costs: every meter has its protection cost; a meter sits at a substation (the injection's bus,
the flow's metered end) and protecting any meter of a substation also pays that substation's
one-off site cost (a secure gateway). Without site costs the rows form a linear matroid and the
greedy minimum-cost basis is optimal (Edmonds 1971); with site costs the optimum is found by
exact search over the sets of opened sites, each completed by the greedy basis of its meters,
in increasing order of a lower bound and stopped when the bound reaches the best cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Full column rank: the smallest singular value of the protected rows exceeds RANK_RTOL times
#: the largest singular value of the whole measurement Jacobian (the case's stated tolerance).
RANK_RTOL = 1e-6


def dc_jacobian(n_bus: int, ref: int, f: Sequence[int], t: Sequence[int], x_pu: Sequence[float],
                kind: Sequence[str], where: Sequence[int], side: Sequence[str]) -> np.ndarray:
    """Rows of H (one per meter) over the θ of the non-reference buses. ``kind`` is
    ``"injection"`` (``where`` = bus) or ``"flow"`` (``where`` = branch, ``side`` from/to)."""
    B = np.zeros((n_bus, n_bus))
    for a, b, x in zip(f, t, x_pu, strict=True):
        y = 1.0 / x
        B[a, a] += y
        B[b, b] += y
        B[a, b] -= y
        B[b, a] -= y
    H = np.zeros((len(kind), n_bus))
    for i, (k, w, s) in enumerate(zip(kind, where, side, strict=True)):
        if k == "injection":
            H[i] = B[w]
        else:
            y = 1.0 / x_pu[w]
            sign = 1.0 if s == "from" else -1.0
            H[i, f[w]] += sign * y
            H[i, t[w]] -= sign * y
    return np.delete(H, ref, axis=1)


def rank_margin(H: np.ndarray, rows: Sequence[int] | np.ndarray, scale: float) -> float:
    """σ_min(H_P)/scale, 0 when H_P has fewer rows than columns (``scale``: σ_max of the full H)."""
    rows = np.asarray(rows, dtype=int)
    if len(rows) < H.shape[1]:
        return 0.0
    s = np.linalg.svd(H[rows], compute_uv=False)
    return float(s[-1] / scale)


def full_rank(H: np.ndarray, rows: Sequence[int] | np.ndarray, scale: float) -> bool:
    return rank_margin(H, rows, scale) > RANK_RTOL


def greedy_basis(H: np.ndarray, cost: np.ndarray, allowed: np.ndarray) -> list[int] | None:
    """Minimum-cost basis among the ``allowed`` rows (cheapest first, a row kept when it adds
    rank; ties by row order), or None when they do not span. Exact for a linear matroid."""
    n = H.shape[1]
    order = sorted(np.flatnonzero(allowed), key=lambda i: (cost[i], i))
    Q = np.zeros((0, n))
    chosen: list[int] = []
    for i in order:
        r = H[i] - Q.T @ (Q @ H[i])
        norm = np.linalg.norm(r)
        if norm > 1e-9 * max(np.linalg.norm(H[i]), 1e-300):
            Q = np.vstack([Q, r / norm])
            chosen.append(int(i))
            if len(chosen) == n:
                return sorted(chosen)
    return None


@dataclass(frozen=True)
class Placement:
    rows: tuple[int, ...]
    cost: float
    sites_opened: tuple[int, ...]
    subsets_checked: int


def total_cost(rows: Sequence[int], meter_cost: np.ndarray, meter_site: np.ndarray, site_cost: np.ndarray) -> float:
    rows = list(rows)
    sites = sorted({int(meter_site[i]) for i in rows})
    return float(sum(meter_cost[i] for i in rows) + sum(site_cost[s] for s in sites))


def optimal_placement(H: np.ndarray, meter_cost: np.ndarray, meter_site: np.ndarray, site_cost: np.ndarray,
                      eligible: np.ndarray | None = None) -> Placement | None:
    """The least-cost protected set with full column rank (exact; see the module docstring)."""
    m, n = H.shape
    eligible = np.ones(m, bool) if eligible is None else np.asarray(eligible, bool)
    sites = sorted({int(meter_site[i]) for i in range(m) if eligible[i]})
    best: tuple[float, list[int]] | None = None
    scale = float(np.linalg.svd(H, compute_uv=False)[0])
    # every set of opened sites as a bit mask over ``sites``: which meters it allows, and its bound
    site_bits = np.array([[int(meter_site[i]) == s for s in sites] for i in range(m)], dtype=bool).reshape(m, len(sites))
    candidates = []
    for mask in range(1 << len(sites)):
        chosen = np.array([(mask >> j) & 1 for j in range(len(sites))], dtype=bool)
        allowed = eligible & site_bits[:, chosen].any(axis=1) if len(sites) else eligible & False
        if allowed.sum() < n:
            continue
        cheapest = np.sort(meter_cost[allowed])[:n].sum()
        opened_cost = float(sum(site_cost[s] for s, c in zip(sites, chosen, strict=True) if c))
        candidates.append((opened_cost + float(cheapest), mask, allowed))
    candidates.sort(key=lambda c: (c[0], c[1]))
    checked = 0
    for bound, _combo, allowed in candidates:
        if best is not None and bound >= best[0] - 1e-9:
            break
        checked += 1
        rows = greedy_basis(H, meter_cost, allowed)
        if rows is None or not full_rank(H, rows, scale):
            continue
        c = total_cost(rows, meter_cost, meter_site, site_cost)
        if best is None or c < best[0] - 1e-9:
            best = (c, rows)
    if best is None:
        return None
    opened = tuple(sorted({int(meter_site[i]) for i in best[1]}))
    return Placement(tuple(best[1]), best[0], opened, checked)
