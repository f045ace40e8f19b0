"""The surrogate's AC Newton-Raphson in sparse form (issue 24): a SciPy sparse ``Y_bus``, the
same polar Jacobian as sparse matrices, and SciPy's sparse LU (SuperLU, ``splu``) per step.

Kept out of :mod:`psab.surrogates`, which imports only numpy (design.md, "Layout"): this module
hands :func:`psab.surrogates.ac_power_flow.solve_ac` a sparse ``Y`` and a ``step``, so the
iteration, the convergence test and the q-limit loop are the surrogate's own, and the voltages
equal the dense path's to rounding (1e-10 pu checked in tests/surrogates/test_ac_power_flow.py).
Worth it from about :data:`SPARSE_MIN_BUSES` buses (benchmarks/bench_scaling.py, docs/scaling.md):
below, the dense LAPACK solve is faster; above, the dense LU's n³ takes over (case300: 81 ms
dense against 10 ms sparse).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.surrogates.ac_power_flow import AcNetwork, AcSolution, solve_ac

#: Where the sparse solve overtakes the dense one (case57: dense faster; case118: sparse).
SPARSE_MIN_BUSES = 100


def ybus_sparse(net: AcNetwork) -> Any:
        """``Y_bus`` as a SciPy CSR matrix: the stamps of :func:`psab.surrogates.ybus.build_ybus`
        (π model, tap and phase shift on the from side), summed by ``coo → csr``."""
        from scipy import sparse

        n = net.n_bus
        f = np.asarray(net.from_idx, dtype=int)
        t = np.asarray(net.to_idx, dtype=int)
        z = np.asarray(net.r_pu, dtype=float) + 1j * np.asarray(net.x_pu, dtype=float)
        if np.any(z == 0):
            raise ValueError("every branch needs a non-zero series impedance")
        tau = np.asarray(net.tap_ratio, dtype=float)
        if np.any(tau <= 0):
            raise ValueError("tap ratios must be positive")
        ys = 1.0 / z
        tap = tau * np.exp(1j * np.deg2rad(np.asarray(net.phase_shift_deg, dtype=float)))
        ytt = ys + 0.5j * np.asarray(net.b_pu, dtype=float)
        yff = ytt / (tau * tau)
        ysh = np.asarray(net.shunt_g_pu, dtype=float) + 1j * np.asarray(net.shunt_b_pu, dtype=float)
        rows = np.concatenate([f, f, t, t, np.arange(n)])
        cols = np.concatenate([f, t, f, t, np.arange(n)])
        vals = np.concatenate([yff, -ys / np.conj(tap), -ys / tap, ytt, ysh])
        return sparse.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()



class SparseJacobian:
    """:func:`jacobian` for a sparse ``Y`` as a SciPy CSC matrix (same rows and columns), with
    the pattern worked out once per solve and only the values refreshed per iteration.

    Every nonzero ``y_ij`` of ``Y`` (kept with an explicit diagonal) contributes
    ``∂S_i/∂θ_j = −j V_i conj(y_ij V_j)`` and ``∂S_i/∂|V_j| = V_i conj(y_ij V_j/|V_j|)``; the
    diagonal adds ``j V_i conj(I_i)`` and ``conj(I_i) V_i/|V_i|`` — the entries of
    ``j diag(V) conj(diag(I) − Y diag(V))`` and ``diag(V) conj(Y diag(V/|V|)) + conj(diag(I))
    diag(V/|V|)`` (MATPOWER Technical Note 2, eqs. (16)-(17))."""

    def __init__(self, Y: Any, pvpq: np.ndarray, pq: np.ndarray) -> None:
        from scipy import sparse

        n = Y.shape[0]
        coo = sparse.coo_matrix(Y)
        missing = np.setdiff1d(np.arange(n), coo.row[coo.row == coo.col])
        if missing.size:  # every bus needs a diagonal entry to carry the diagonal terms (kept as 0)
            coo = sparse.coo_matrix((np.concatenate([coo.data, np.zeros(missing.size)]),
                                     (np.concatenate([coo.row, missing]), np.concatenate([coo.col, missing]))), shape=(n, n))
        Y = coo.tocsr()
        Y.sum_duplicates()
        Y.sort_indices()
        self.Y = Y
        coo = Y.tocoo()
        self.rows, self.cols, self.diag = coo.row, coo.col, np.flatnonzero(coo.row == coo.col)
        self.diag_bus = coo.row[self.diag]
        pos_a = np.full(n, -1)
        pos_a[pvpq] = np.arange(len(pvpq))
        pos_m = np.full(n, -1)
        pos_m[pq] = len(pvpq) + np.arange(len(pq))
        ra, ca, rm, cm = pos_a[self.rows], pos_a[self.cols], pos_m[self.rows], pos_m[self.cols]
        # the four blocks: (which derivative, real or imaginary part, entries kept, J rows, J cols)
        self.blocks = []
        for deriv, part, r, c in (("va", "real", ra, ca), ("vm", "real", ra, cm), ("va", "imag", rm, ca), ("vm", "imag", rm, cm)):
            keep = np.flatnonzero((r >= 0) & (c >= 0))
            self.blocks.append((deriv, part, keep, r[keep], c[keep]))
        rows = np.concatenate([b[3] for b in self.blocks])
        cols = np.concatenate([b[4] for b in self.blocks])
        m = len(pvpq) + len(pq)
        order = sparse.csc_matrix((np.arange(1, len(rows) + 1, dtype=float), (rows, cols)), shape=(m, m))
        self.perm = order.data.astype(int) - 1  # CSC storage position → entry of the concatenation
        self.J = order

    def __call__(self, V: np.ndarray) -> Any:
        Y = self.Y
        current = Y @ V
        yv = Y.data * V[self.cols]
        ds_dva = -1j * V[self.rows] * np.conj(yv)
        ds_dvm = V[self.rows] * np.conj(yv / np.abs(V[self.cols]))
        b = self.diag_bus
        ds_dva[self.diag] += 1j * V[b] * np.conj(current[b])
        ds_dvm[self.diag] += np.conj(current[b]) * V[b] / np.abs(V[b])
        parts = {"va": ds_dva, "vm": ds_dvm}
        values = np.concatenate([getattr(parts[d][keep], part) for d, part, keep, _, _ in self.blocks])
        self.J.data = values[self.perm]
        return self.J


class SparseStep:
    """The Newton step ``J⁻¹(−F)`` with a sparse Jacobian and ``splu`` — the ``step`` of
    :func:`~psab.surrogates.ac_power_flow.newton_raphson`; the pattern is rebuilt only when the
    bus types change (a PV bus switched to PQ by the q-limit loop)."""

    def __init__(self, Y: Any) -> None:
        self.Y = Y
        self._key: tuple[bytes, bytes] | None = None
        self._jac: SparseJacobian | None = None

    def __call__(self, V: np.ndarray, pvpq: np.ndarray, pq: np.ndarray, F: np.ndarray) -> np.ndarray:
        from scipy.sparse.linalg import splu

        key = (pvpq.tobytes(), pq.tobytes())
        if self._jac is None or key != self._key:
            self._jac, self._key = SparseJacobian(self.Y, pvpq, pq), key
        try:
            return np.asarray(splu(self._jac(V)).solve(-F))
        except RuntimeError as exc:  # SuperLU: "Factor is exactly singular"
            raise ArithmeticError(str(exc)) from None


def solve_ac_sparse(net: AcNetwork, **options: Any) -> AcSolution:
    """:func:`~psab.surrogates.ac_power_flow.solve_ac` with the sparse ``Y_bus`` and step."""
    Y = ybus_sparse(net)
    return solve_ac(net, Y=Y, step=SparseStep(Y), **options)
