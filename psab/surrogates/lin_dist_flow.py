"""LinDistFlow: the linearised DistFlow equations of a radial feeder.

Baran & Wu, "Network reconfiguration in distribution systems for loss reduction and load
balancing", IEEE Trans. Power Delivery 4(2), 1989, pp. 1401-1407, eqs. (1)-(3) (DistFlow) and
their simplified form eqs. (4)-(6) with the loss terms dropped (the "LinDistFlow" of Baran &
Wu, "Optimal sizing of capacitors placed on a radial distribution system", ibid. 4(1), 1989,
pp. 735-743, §II). For the branch ``i → j`` of a radial tree, with ``P_ij, Q_ij`` the power
entering the branch at its upstream end and ``v = |V|²``:

    P_ij = Σ_{k downstream of j, k = j included} p_k,   Q_ij likewise,
    v_j  = v_i − 2 (r_ij P_ij + x_ij Q_ij).

So ``v = v_0 − 2 (R p + X q)`` with ``R_jk = Σ r over the branches common to the paths root→j
and root→k`` (and ``X`` likewise): the squared voltages are linear in the injections. Here
``p, q`` are *demands* (positive = consumption, negative = generation), per unit on the
caller's base. The model neglects losses (``r (P² + Q²)/v``) and shunt charging; its voltage
error grows with the square of the loading — under 0.5 % at light load on real MV/LV
feeders (see ``tests/surrogates/test_lin_dist_flow.py``).

The tree is given as branch lists ``from_idx, to_idx`` (any orientation) and a root bus.
Everything is vectorised: demands may be ``(n_bus,)`` or ``(n_bus, n_cases)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class NotRadialError(ValueError):
    """The branch set is not a spanning tree of the buses (a loop or an island)."""


@dataclass(frozen=True)
class RadialTree:
    """A radial network oriented from its root.

    ``parent[k]`` is the upstream bus of bus ``k`` (−1 at the root), ``parent_branch[k]`` the
    index (into the caller's branch list) of the branch feeding ``k``, ``order`` the buses from
    the root outwards (parents before children), ``path`` the ``(n_branch, n_bus)`` 0/1 matrix
    with ``path[b, k] = 1`` when branch ``b`` lies on the path root → ``k``, and ``depth[k]``
    the number of branches on that path.
    """

    root: int
    parent: np.ndarray
    parent_branch: np.ndarray
    order: np.ndarray
    path: np.ndarray
    depth: np.ndarray

    def downstream(self, bus: int) -> np.ndarray:
        """The buses at or below ``bus`` (bus included)."""
        b = self.parent_branch[bus]
        if b < 0:
            return np.arange(self.parent.size)
        return np.flatnonzero(self.path[b])


def radial_tree(n_bus: int, from_idx, to_idx, root: int) -> RadialTree:
    """Orient a branch list as a tree rooted at ``root``; raise :class:`NotRadialError` when the
    branches do not form a spanning tree (``n_bus − 1`` branches, all buses reached)."""
    f = np.asarray(from_idx, dtype=int)
    t = np.asarray(to_idx, dtype=int)
    if f.size != n_bus - 1:
        raise NotRadialError(f"{f.size} branches for {n_bus} buses: a radial network has n_bus - 1")
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n_bus)]
    for b, (i, j) in enumerate(zip(f, t)):
        if i == j:
            raise NotRadialError(f"branch {b} connects bus {i} to itself")
        adj[i].append((j, b))
        adj[j].append((i, b))
    parent = np.full(n_bus, -1)
    parent_branch = np.full(n_bus, -1)
    seen = np.zeros(n_bus, dtype=bool)
    seen[root] = True
    order = [root]
    head = 0
    while head < len(order):
        i = order[head]
        head += 1
        for j, b in adj[i]:
            if b == parent_branch[i]:
                continue
            if seen[j]:
                raise NotRadialError(f"branch {b} closes a loop at bus {j}")
            seen[j] = True
            parent[j] = i
            parent_branch[j] = b
            order.append(j)
    if not seen.all():
        raise NotRadialError(f"buses {np.flatnonzero(~seen).tolist()} are not connected to the root")
    order_a = np.asarray(order)
    path = np.zeros((f.size, n_bus))
    depth = np.zeros(n_bus, dtype=int)
    for k in order_a[1:]:
        # Path to k = path to its parent plus the branch feeding k (parents come first).
        p = parent[k]
        path[:, k] = path[:, p]
        path[parent_branch[k], k] = 1.0
        depth[k] = depth[p] + 1
    return RadialTree(root, parent, parent_branch, order_a, path, depth)


def sensitivity(tree: RadialTree, r, x) -> tuple[np.ndarray, np.ndarray]:
    """``(∂v/∂p, ∂v/∂q)`` of the squared voltages with respect to bus demands: ``−2 R`` and
    ``−2 X`` with ``R = Aᵀ diag(r) A`` for the path matrix ``A`` (Baran & Wu eq. (6) summed
    along the path). Units: per unit of ``v`` per per-unit power when ``r, x`` are per unit."""
    A = tree.path
    R = A.T @ (np.asarray(r, dtype=float)[:, None] * A)
    X = A.T @ (np.asarray(x, dtype=float)[:, None] * A)
    return -2.0 * R, -2.0 * X


def branch_flows(tree: RadialTree, p, q) -> tuple[np.ndarray, np.ndarray]:
    """Power entering each branch at its upstream end, ``P = A p`` (losses neglected)."""
    A = tree.path
    return A @ np.asarray(p, dtype=float), A @ np.asarray(q, dtype=float)


def voltages_squared(tree: RadialTree, r, x, p, q, v0_pu: float = 1.0) -> np.ndarray:
    """``v = v₀² − 2 (R p + X q)`` per bus (per unit squared)."""
    dvdp, dvdq = sensitivity(tree, r, x)
    return v0_pu**2 + dvdp @ np.asarray(p, dtype=float) + dvdq @ np.asarray(q, dtype=float)


def voltages(tree: RadialTree, r, x, p, q, v0_pu: float = 1.0) -> np.ndarray:
    """Voltage magnitudes ``√v`` per bus (per unit)."""
    return np.sqrt(np.maximum(voltages_squared(tree, r, x, p, q, v0_pu), 0.0))
