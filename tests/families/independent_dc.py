"""A DC network written from scratch for the enumeration tests: PTDF from the reduced weighted
Laplacian, and connectivity by graph search — deliberately sharing no code with psab's
``dc_flow`` kernel or its MILP formulations, so that an optimum found by enumeration with these
is an independent check of the families' reference models."""

from __future__ import annotations

import numpy as np


def ptdf(n_bus: int, ends: list[tuple[int, int]], susceptance: list[float], slack: int) -> np.ndarray:
    """Branch flow per unit of injection at each bus, withdrawn at the slack: diag(b)·A·[0; L_red⁻¹]."""
    A = np.zeros((len(ends), n_bus))
    for r, (a, c) in enumerate(ends):
        A[r, a], A[r, c] = 1.0, -1.0
    b = np.asarray(susceptance, dtype=float)
    lap = A.T @ np.diag(b) @ A
    keep = [i for i in range(n_bus) if i != slack]
    X = np.zeros((n_bus, n_bus))
    X[np.ix_(keep, keep)] = np.linalg.inv(lap[np.ix_(keep, keep)])
    return np.diag(b) @ A @ X


def connected(n_bus: int, ends: list[tuple[int, int]]) -> bool:
    seen, stack = {0}, [0]
    while stack:
        a = stack.pop()
        for u, w in ends:
            for x, y in ((u, w), (w, u)):
                if x == a and y not in seen:
                    seen.add(y)
                    stack.append(y)
    return len(seen) == n_bus
