"""The surrogate's AC Newton-Raphson in sparse form (issue 24): a SciPy sparse ``Y_bus``, the
same polar Jacobian as sparse matrices, and a sparse LU per step — KLU (SuiteSparse, through
kvxopt, the optional ``fast-nr`` extra) where kvxopt imports, SciPy's SuperLU (``splu``)
otherwise and whenever KLU fails.

Kept out of :mod:`psab.surrogates`, which imports only numpy (design.md, "Layout"): this module
hands :func:`psab.surrogates.ac_power_flow.solve_ac` a sparse ``Y`` and a ``step``, so the
iteration, the convergence test and the q-limit loop are the surrogate's own, and the voltages
equal the dense path's to rounding (1e-10 pu checked in tests/surrogates/test_ac_power_flow.py).
Worth it from about :data:`SPARSE_MIN_BUSES` buses on a network's first solve
(benchmarks/bench_scaling.py, docs/scaling.md): below, the dense LAPACK solve is faster; above,
the dense LU's n³ takes over (case300: 37 ms dense against 2.5 ms with KLU, 5.2 ms with splu).

The reward regime (one network, many evaluations whose injections change while topology and
bus types do not) repeats everything but the values, so three things are kept across solves in
bounded LRU caches (:data:`CACHE_SIZE` entries each, :func:`clear_caches` empties them):
``Y_bus`` keyed by the network's branch and shunt data (a changed impedance is a different key),
and, keyed by ``Y_bus``'s sparsity pattern together with the PV/PQ bus lists, the Jacobian's
pattern (:class:`SparseJacobian`) with KLU's symbolic analysis (ordering and block structure,
``klu_analyze``; Davis & Palamadai Natarajan, "Algorithm 907: KLU", ACM TOMS 37(3), 2010, §2)
— each Newton iteration then only computes the values and KLU's numeric factorization. Keys are
the bytes themselves (not a hash of them), so a different network or a bus-type change (the
q-limit loop's PV → PQ) can never reuse a stale pattern.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from psab.surrogates.ac_power_flow import AcNetwork, AcSolution, solve_ac

#: Where the sparse solve overtakes the dense one (case57: dense faster; case118: sparse).
SPARSE_MIN_BUSES = 100

#: Entries kept by each cache (``Y_bus``s, Jacobian patterns): a few networks × their bus-type
#: variants; case2869pegase's pattern with its KLU analysis is well under 1 MB.
CACHE_SIZE = 32

#: The linear solvers a :class:`SparseStep` accepts ("auto": KLU where kvxopt imports).
SOLVERS = ("auto", "klu", "splu")


class _LRU:
    """A bounded least-recently-used map, safe to share between threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()  # outside the lock: two threads may both build, the last one stays
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


_YBUS_CACHE = _LRU(CACHE_SIZE)
_PATTERN_CACHE = _LRU(CACHE_SIZE)


def clear_caches() -> None:
    """Forget every kept ``Y_bus``, Jacobian pattern and KLU analysis (the next solve is cold)."""
    _YBUS_CACHE.clear()
    _PATTERN_CACHE.clear()


def _klu() -> Any:
    """kvxopt's KLU module, or ``None`` where kvxopt is not installed (the optional extra)."""
    try:
        from kvxopt import klu
    except ImportError:
        return None
    return klu


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


def _ybus_key(net: AcNetwork) -> tuple:
    """Everything :func:`ybus_sparse` reads, as bytes in the dtypes it converts to."""
    f = [np.asarray(a, dtype=int) for a in (net.from_idx, net.to_idx)]
    x = [np.asarray(a, dtype=float) for a in (net.r_pu, net.x_pu, net.b_pu, net.tap_ratio, net.phase_shift_deg,
                                              net.shunt_g_pu, net.shunt_b_pu)]
    return (net.n_bus, *(a.shape for a in f + x), b"".join(a.tobytes() for a in f + x))


def ybus_cached(net: AcNetwork) -> Any:
    """:func:`ybus_sparse`, kept per branch and shunt data (the injections do not enter ``Y_bus``);
    the matrix is shared, so callers must not modify it."""
    return _YBUS_CACHE.get(_ybus_key(net), lambda: ybus_sparse(net))


def _canonical_csr(Y: Any) -> Any:
    """``Y`` as CSR with sorted indices and no duplicates (no copy when it already is)."""
    from scipy import sparse

    Y = sparse.csr_matrix(Y)
    if not Y.has_canonical_format:
        Y = Y.copy()
        Y.sum_duplicates()
    return Y


class SparseJacobian:
    """:func:`jacobian` for a sparse ``Y`` as a SciPy CSC matrix (same rows and columns), with
    the pattern worked out once and only the values computed per iteration.

    Every nonzero ``y_ij`` of ``Y`` (kept with an explicit diagonal) contributes
    ``∂S_i/∂θ_j = −j V_i conj(y_ij V_j)`` and ``∂S_i/∂|V_j| = V_i conj(y_ij V_j/|V_j|)``; the
    diagonal adds ``j V_i conj(I_i)`` and ``conj(I_i) V_i/|V_i|`` — the entries of
    ``j diag(V) conj(diag(I) − Y diag(V))`` and ``diag(V) conj(Y diag(V/|V|)) + conj(diag(I))
    diag(V/|V|)`` (MATPOWER Technical Note 2, eqs. (16)-(17)).

    The pattern depends only on ``Y``'s sparsity pattern and ``pvpq``/``pq``: :meth:`y_data` maps
    the values of any canonical CSR ``Y`` with the same pattern onto it, and :meth:`values` gives
    the Jacobian's CSC values for a voltage — so one instance serves every network sharing the
    pattern (:class:`SparseStep` keeps them per pattern)."""

    def __init__(self, Y: Any, pvpq: np.ndarray, pq: np.ndarray) -> None:
        # numpy only (no SciPy constructors): this runs once per pattern, on a network's first solve
        Y = _canonical_csr(Y)
        n = Y.shape[0]
        y_rows = np.repeat(np.arange(n), np.diff(Y.indptr))
        y_cols = Y.indices.astype(np.intp)
        on_diag = np.zeros(n, dtype=bool)
        on_diag[y_rows[y_rows == y_cols]] = True
        missing = np.flatnonzero(~on_diag)
        # every bus needs a diagonal entry to carry the diagonal terms (kept as 0): -1 marks them
        rows = np.concatenate([y_rows, missing])
        cols = np.concatenate([y_cols, missing])
        src = np.concatenate([np.arange(len(y_rows)), np.full(missing.size, -1)])  # position in Y.data
        if missing.size:
            order = np.lexsort((cols, rows))  # CSR order of the full-diagonal Y
            rows, cols, src = rows[order], cols[order], src[order]
        self.rows, self.cols, self.src = rows, cols, src
        self.diag = np.flatnonzero(rows == cols)
        self.diag_bus = rows[self.diag]
        self.n_bus = n
        pos_a = np.full(n, -1)
        pos_a[pvpq] = np.arange(len(pvpq))
        pos_m = np.full(n, -1)
        pos_m[pq] = len(pvpq) + np.arange(len(pq))
        ra, ca, rm, cm = pos_a[rows], pos_a[cols], pos_m[rows], pos_m[cols]
        nnz = len(rows)
        # ∂S/∂θ and ∂S/∂|V| are computed side by side as one complex array of 2·nnz and read as
        # floats (real, imaginary interleaved): the four blocks are gathers from that view
        # (which derivative, real or imaginary part, J rows, J cols)
        take, j_rows, j_cols = [], [], []
        for deriv, part, r, c in ((0, 0, ra, ca), (1, 0, ra, cm), (0, 1, rm, ca), (1, 1, rm, cm)):
            keep = np.flatnonzero((r >= 0) & (c >= 0))
            take.append(2 * (deriv * nnz + keep) + part)
            j_rows.append(r[keep])
            j_cols.append(c[keep])
        jr, jc = np.concatenate(j_rows), np.concatenate(j_cols)
        order = np.lexsort((jr, jc))  # CSC: by column, rows sorted within (each (row, col) once)
        self.take = np.concatenate(take)[order]  # CSC storage position → float of the derivatives
        self.m = m = len(pvpq) + len(pq)
        self.j_indices = jr[order]
        self.j_cols = jc[order]
        self.j_indptr = np.concatenate([[0], np.cumsum(np.bincount(self.j_cols, minlength=m))])
        self._Y_values = Y.data
        self._J: Any = None
        self._Y: Any = None

    @property
    def J(self) -> Any:
        """The Jacobian as a SciPy CSC matrix of this pattern (values: the last ones written)."""
        if self._J is None:
            from scipy import sparse

            self._J = sparse.csc_matrix((np.zeros(len(self.take)), self.j_indices, self.j_indptr), shape=(self.m, self.m))
        return self._J

    @property
    def Y(self) -> Any:
        """The ``Y`` given at construction, with the full diagonal (CSR)."""
        if self._Y is None:
            from scipy import sparse

            data = np.zeros(len(self.src), dtype=complex)
            have = self.src >= 0
            data[have] = self._Y_values[self.src[have]]
            self._Y = sparse.csr_matrix((data, self.cols, np.searchsorted(self.rows, np.arange(self.n_bus + 1))),
                                        shape=(self.n_bus, self.n_bus))
        return self._Y

    def y_data(self, Y: Any) -> np.ndarray:
        """``Y``'s values (canonical CSR with this instance's pattern) in the full-diagonal order."""
        data = np.zeros(len(self.src), dtype=complex)
        have = self.src >= 0
        data[have] = Y.data[self.src[have]]
        return data

    def values(self, V: np.ndarray, y_data: np.ndarray, current: np.ndarray) -> np.ndarray:
        """The Jacobian's values in CSC storage order at the voltages ``V`` (``current = Y V``)."""
        yv = np.conj(y_data * V[self.cols])
        v_row = V[self.rows]
        ds = np.empty(2 * len(yv), dtype=complex)
        ds_dva, ds_dvm = ds[: len(yv)], ds[len(yv):]
        np.multiply(-1j * v_row, yv, out=ds_dva)
        np.multiply(v_row, yv / np.abs(V)[self.cols], out=ds_dvm)
        b = self.diag_bus
        vb, ib = V[b], np.conj(current[b])
        ds_dva[self.diag] += 1j * vb * ib
        ds_dvm[self.diag] += ib * vb / np.abs(vb)
        return ds.view(float)[self.take]

    def __call__(self, V: np.ndarray) -> Any:
        """The Jacobian at ``V`` for the ``Y`` given at construction (a shared matrix: copy it to keep)."""
        self.J.data = self.values(V, self.Y.data, self.Y @ V)
        return self.J


class _Pattern:
    """What one Jacobian pattern keeps across solves: the pattern, and KLU's symbolic analysis
    with a kvxopt matrix of that pattern whose values are overwritten per iteration (``lock``:
    one iteration at a time may use it)."""

    def __init__(self, Y: Any, pvpq: np.ndarray, pq: np.ndarray, use_klu: bool) -> None:
        self.jac = SparseJacobian(Y, pvpq, pq)
        self.lock = threading.Lock()
        self.klu: Any = None
        self.K: Any = None
        self.symbolic: Any = None
        klu = _klu() if use_klu else None
        if klu is None or self.jac.m == 0:
            return
        try:
            from kvxopt import matrix, spmatrix

            jac = self.jac
            self.K = spmatrix(matrix(np.ones(len(jac.take))), matrix(jac.j_indices.astype(int)),
                              matrix(jac.j_cols.astype(int)), (jac.m, jac.m))
            self.symbolic = klu.symbolic(self.K)
            self.klu = klu
        except Exception:  # noqa: BLE001 - any KLU trouble: this pattern uses splu
            self.klu = None


class SparseStep:
    """The Newton step ``J⁻¹(−F)`` with a sparse Jacobian — the ``step`` of
    :func:`~psab.surrogates.ac_power_flow.newton_raphson`.

    ``solver``: "klu" (KLU's numeric factorization on the pattern's kept symbolic analysis),
    "splu" (SciPy's SuperLU, ordering and factorization every iteration) or "auto" (KLU where
    kvxopt imports). A KLU failure of any kind — a singular matrix included — is retried with
    ``splu``, which alone decides whether the step is singular. The pattern is looked up per
    bus-type set (the q-limit loop switches PV buses to PQ) in the module's LRU cache."""

    def __init__(self, Y: Any, solver: str = "auto") -> None:
        if solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, not {solver!r}")
        self.Y = _canonical_csr(Y)
        self.solver = solver
        self._y_key = (self.Y.shape, self.Y.indptr.tobytes(), self.Y.indices.tobytes())
        self._key: tuple[bytes, bytes] | None = None
        self._pattern: _Pattern | None = None
        self._y_data: np.ndarray | None = None

    def __call__(self, V: np.ndarray, pvpq: np.ndarray, pq: np.ndarray, F: np.ndarray) -> np.ndarray:
        key = (pvpq.tobytes(), pq.tobytes())
        if self._pattern is None or key != self._key:
            use_klu = self.solver != "splu"
            pattern = _PATTERN_CACHE.get((self._y_key, *key, use_klu), lambda: _Pattern(self.Y, pvpq, pq, use_klu))
            self._pattern, self._key, self._y_data = pattern, key, pattern.jac.y_data(self.Y)
            if self.solver == "klu" and pattern.klu is None:
                raise RuntimeError("solver='klu' asked for, but kvxopt's KLU is not available for this Jacobian")
        pattern, y_data = self._pattern, self._y_data
        values = pattern.jac.values(V, y_data, self.Y @ V)
        with pattern.lock:
            if pattern.klu is not None:
                dx = self._klu_step(pattern, values, F)
                if dx is not None:
                    return dx
            return self._splu_step(pattern, values, F)

    @staticmethod
    def _klu_step(pattern: _Pattern, values: np.ndarray, F: np.ndarray) -> np.ndarray | None:
        from kvxopt import matrix

        try:
            pattern.K.V = matrix(values)
            numeric = pattern.klu.numeric(pattern.K, pattern.symbolic)
            B = matrix(-F)
            pattern.klu.solve(pattern.K, pattern.symbolic, numeric, B)
        except Exception:  # noqa: BLE001 - singular or anything else: splu decides
            return None
        dx = np.array(B, dtype=float).reshape(-1)
        return dx if np.all(np.isfinite(dx)) else None

    @staticmethod
    def _splu_step(pattern: _Pattern, values: np.ndarray, F: np.ndarray) -> np.ndarray:
        from scipy.sparse.linalg import splu

        J = pattern.jac.J
        J.data = values
        try:
            return np.asarray(splu(J).solve(-F))
        except RuntimeError as exc:  # SuperLU: "Factor is exactly singular"
            raise ArithmeticError(str(exc)) from None


def solve_ac_sparse(net: AcNetwork, *, solver: str = "auto", **options: Any) -> AcSolution:
    """:func:`~psab.surrogates.ac_power_flow.solve_ac` with the sparse ``Y_bus`` (kept per
    network, :func:`ybus_cached`) and :class:`SparseStep` (``solver`` as there)."""
    Y = ybus_cached(net)
    return solve_ac(net, Y=Y, step=SparseStep(Y, solver), **options)
