"""A switched distribution network under LinDistFlow: which buses a switch configuration
energises, whether it is radial, and the resulting branch flows and voltages.

Physical units throughout: branch impedances in ohm referred to ``base_kv``, powers in MW and
Mvar, squared voltages in pu² — Baran & Wu's LinDistFlow (:mod:`psab.surrogates.lin_dist_flow`)
with ``r_pu · P_pu = r_ohm · P_MW / U_kV²`` (the base power cancels).

The branch apparent-power limit is checked by its inscribed regular octagon,
``P cos θ + Q sin θ ≤ S_r cos(π/8)`` for ``θ = π/8, 3π/8, …, 15π/8`` — the standard linear
stand-in for ``√(P² + Q²) ≤ S_r`` in DistFlow MILPs (it is conservative by at most
``1 − cos(π/8) ≈ 7.6 %``), so the reference MILP and the evaluator apply the same rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from psab.surrogates.lin_dist_flow import radial_tree

#: Directions of the octagon's edge normals.
OCTAGON_THETA = np.array([(2 * k + 1) * math.pi / 8 for k in range(8)])
OCTAGON_FACTOR = math.cos(math.pi / 8)


def octagon_excess(p_mw, q_mvar, s_rated_mva) -> np.ndarray:
    """``max_θ (P cos θ + Q sin θ) − S_r cos(π/8)`` per branch (≤ 0 within the limit)."""
    p = np.asarray(p_mw, dtype=float)[:, None]
    q = np.asarray(q_mvar, dtype=float)[:, None]
    lhs = p * np.cos(OCTAGON_THETA)[None, :] + q * np.sin(OCTAGON_THETA)[None, :]
    return lhs.max(axis=1) - OCTAGON_FACTOR * np.asarray(s_rated_mva, dtype=float)


def has_cycle(n_bus: int, from_idx, to_idx) -> bool:
    """Whether the undirected graph of the given branches contains a cycle (union-find)."""
    parent = list(range(n_bus))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for i, j in zip(from_idx, to_idx):
        ri, rj = find(int(i)), find(int(j))
        if ri == rj:
            return True
        parent[ri] = rj
    return False


@dataclass(frozen=True)
class ConfigurationFlow:
    """``energised[b]``, and on energised buses ``v_pu`` (√ of LinDistFlow's v; NaN when dead);
    per branch ``p_mw``, ``q_mvar`` (from → to, zero when open or dead)."""

    energised: np.ndarray
    v_pu: np.ndarray
    p_mw: np.ndarray
    q_mvar: np.ndarray


def configuration_flow(n_bus: int, from_idx, to_idx, r_ohm, x_ohm, closed, source: int, v_source_pu: float,
                       base_kv: float, p_load_mw, q_load_mvar) -> ConfigurationFlow:
    """LinDistFlow on the part of a radial configuration that the source energises. The closed
    branches must not form a cycle (check :func:`has_cycle` first)."""
    f = np.asarray(from_idx, dtype=int)
    t = np.asarray(to_idx, dtype=int)
    closed = np.asarray(closed, dtype=bool)
    # Energised buses: reachable from the source over closed branches.
    adj: list[list[int]] = [[] for _ in range(n_bus)]
    for k in np.flatnonzero(closed):
        adj[f[k]].append(t[k])
        adj[t[k]].append(f[k])
    live = np.zeros(n_bus, dtype=bool)
    live[source] = True
    stack = [source]
    while stack:
        i = stack.pop()
        for j in adj[i]:
            if not live[j]:
                live[j] = True
                stack.append(j)
    buses = np.flatnonzero(live)
    pos = {int(b): i for i, b in enumerate(buses)}
    used = np.flatnonzero(closed & live[f])
    p = np.zeros(f.size)
    q = np.zeros(f.size)
    v = np.full(n_bus, np.nan)
    if buses.size == 1:
        v[source] = v_source_pu
        return ConfigurationFlow(live, v, p, q)
    tree = radial_tree(buses.size, [pos[int(f[k])] for k in used], [pos[int(t[k])] for k in used], pos[source])
    zb = base_kv**2
    r = np.asarray(r_ohm, dtype=float)[used] / zb
    x = np.asarray(x_ohm, dtype=float)[used] / zb
    pl = np.asarray(p_load_mw, dtype=float)[buses]
    ql = np.asarray(q_load_mvar, dtype=float)[buses]
    from psab.surrogates.lin_dist_flow import branch_flows, voltages

    v[buses] = voltages(tree, r, x, pl, ql, v_source_pu)
    pb, qb = branch_flows(tree, pl, ql)
    # Branch flows are oriented root-outward; report them from → to as the caller's list.
    for local, k in enumerate(used):
        downstream_is_to = tree.parent[pos[int(t[k])]] == pos[int(f[k])]
        sign = 1.0 if downstream_is_to else -1.0
        p[k] = sign * pb[local]
        q[k] = sign * qb[local]
    return ConfigurationFlow(live, v, p, q)
