"""Sparse driving-point impedances for :func:`psab.surrogates.iec60909_network.fault_currents_ka`:
``Y`` assembled as a SciPy CSC matrix from the kernel's stamps, factorized once by SuperLU
(``scipy.sparse.linalg.splu``), and ``Y z = e_k`` solved for every fault bus ``k`` — the
``Z_kk`` without forming ``Z_bus`` (a real-size network has thousands of buses, a study a few
dozen fault buses)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def driving_point_impedances_sparse(n_bus: int, stamps: tuple[np.ndarray, np.ndarray, np.ndarray],
                                    buses: Sequence[int]) -> np.ndarray:
    """``Z_kk`` of ``buses`` by one sparse LU of ``Y`` and one solve per bus."""
    from scipy import sparse
    from scipy.sparse.linalg import splu

    rows, cols, vals = stamps
    Y = sparse.coo_matrix((vals, (rows, cols)), shape=(n_bus, n_bus)).tocsc()
    k = np.asarray(buses, dtype=int)
    E = np.zeros((n_bus, len(k)), dtype=complex)
    E[k, np.arange(len(k))] = 1.0
    try:
        Z = splu(Y).solve(E)
    except RuntimeError as exc:  # "Factor is exactly singular": a bus with no path to a machine
        raise ValueError(f"the fault network's admittance matrix is singular ({exc})") from None
    return np.asarray(Z)[k, np.arange(len(k))]
