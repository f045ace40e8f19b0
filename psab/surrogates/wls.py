"""Weighted-least-squares AC state estimation and largest-normalized-residual bad-data removal.

Abur & Expósito, *Power System State Estimation: Theory and Implementation* (Marcel Dekker,
2004): the measurement model z = h(x) + e with x = (θ at every bus but the reference, |V| at
every bus) (§2.4–2.5), the Gauss-Newton normal equations G Δx = Hᵀ R⁻¹ (z − h(x)), G = Hᵀ R⁻¹ H
(§2.6, eqs. 2.10–2.13), the residual covariance Ω = R − H G⁻¹ Hᵀ and the normalized residual
r_N,i = |r_i|/√Ω_ii (§5.7, eqs. 5.8–5.12), and the largest-normalized-residual procedure:
estimate, test the largest r_N against the threshold, remove that measurement, re-estimate
(§5.7.1, steps 1–4).

Measurement kinds (per unit on the system base): bus voltage magnitude, bus active and
reactive injection (generation positive, ``S_i = V_i·conj((Y V)_i)``, bus shunts inside Y), and
branch active and reactive flow at the from or the to end (``S = V_end·conj(I_end)``, π model
with its charging, tap on the from side as :mod:`psab.surrogates.ybus`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from psab.surrogates.ac_power_flow import power_derivatives
from psab.surrogates.ybus import build_ybus

#: Measurement kinds, in the order of their integer codes.
KINDS = ("v", "p_inj", "q_inj", "p_flow", "q_flow")
K_V, P_INJ, Q_INJ, P_FLOW, Q_FLOW = range(5)


class Unobservable(ArithmeticError):
    """The gain matrix is singular: the measurements do not determine the state."""


@dataclass(frozen=True)
class Grid:
    """Bus admittance matrix and the branch two-port matrices of a network (per unit)."""

    n_bus: int
    ref: int
    Y: np.ndarray
    Yf: np.ndarray  # branch × bus: from-end current I_f = Yf V
    Yt: np.ndarray  # branch × bus: to-end current I_t = Yt V
    f: np.ndarray
    t: np.ndarray


def grid(n_bus: int, ref: int, from_idx: Sequence[int], to_idx: Sequence[int], r_pu: Sequence[float],
         x_pu: Sequence[float], b_pu: Sequence[float], tap_ratio: Sequence[float] | None = None,
         shunt_b_pu: Sequence[float] | None = None) -> Grid:
    f = np.asarray(from_idx, int)
    t = np.asarray(to_idx, int)
    nl = len(f)
    tau = np.ones(nl) if tap_ratio is None else np.asarray(tap_ratio, float)
    r, x, b = (np.asarray(a, float) for a in (r_pu, x_pu, b_pu))
    sh_b = np.zeros(n_bus) if shunt_b_pu is None else np.asarray(shunt_b_pu, float)
    Y = build_ybus(n_bus, f, t, r, x, b, tau, np.zeros(nl), np.zeros(n_bus), sh_b)
    ys = 1.0 / (r + 1j * x)
    ytt = ys + 0.5j * b
    rows = np.arange(nl)
    Yf = np.zeros((nl, n_bus), complex)
    Yt = np.zeros((nl, n_bus), complex)
    Yf[rows, f] = ytt / tau**2
    Yf[rows, t] = -ys / tau
    Yt[rows, f] = -ys / tau
    Yt[rows, t] = ytt
    return Grid(n_bus, int(ref), Y, Yf, Yt, f, t)


@dataclass(frozen=True)
class Measurements:
    """Measurement set: kind code, bus (v, injections) or branch (flows), end (0 from, 1 to),
    value and standard deviation, all per unit."""

    kind: np.ndarray
    bus: np.ndarray
    branch: np.ndarray
    end: np.ndarray
    z: np.ndarray
    sigma: np.ndarray

    def subset(self, keep: np.ndarray) -> Measurements:
        return Measurements(self.kind[keep], self.bus[keep], self.branch[keep], self.end[keep], self.z[keep], self.sigma[keep])


def measured(g: Grid, m: Measurements, V: np.ndarray) -> np.ndarray:
    """h(x): the measured quantities at the complex voltages ``V``."""
    S = V * np.conj(g.Y @ V)
    Sf = V[g.f] * np.conj(g.Yf @ V)
    St = V[g.t] * np.conj(g.Yt @ V)
    sbr = np.where(m.end == 0, Sf[m.branch], St[m.branch])
    sbus = S[m.bus]
    return np.select([m.kind == K_V, m.kind == P_INJ, m.kind == Q_INJ, m.kind == P_FLOW],
                     [np.abs(V)[m.bus], sbus.real, sbus.imag, sbr.real], sbr.imag)



def _branch_derivatives(Yb: np.ndarray, ends: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(∂S/∂θ, ∂S/∂|V|) of the branch-end powers S = V_end·conj(Yb V) (MATPOWER dSbr_dV, polar)."""
    n = len(V)
    Ib = Yb @ V
    Vb = V[ends]
    C = np.zeros((len(ends), n))
    C[np.arange(len(ends)), ends] = 1.0
    vnorm = V / np.abs(V)
    d_va = 1j * (np.conj(Ib)[:, None] * (C * V[None, :]) - Vb[:, None] * np.conj(Yb * V[None, :]))
    d_vm = Vb[:, None] * np.conj(Yb * vnorm[None, :]) + np.conj(Ib)[:, None] * (C * vnorm[None, :])
    return d_va, d_vm


def jacobian(g: Grid, m: Measurements, V: np.ndarray) -> np.ndarray:
    """H = ∂h/∂x, columns θ at the non-reference buses then |V| at every bus."""
    n = g.n_bus
    dS_va, dS_vm = power_derivatives(g.Y, V)
    dF_va, dF_vm = _branch_derivatives(g.Yf, g.f, V)
    dT_va, dT_vm = _branch_derivatives(g.Yt, g.t, V)
    H = np.zeros((len(m.kind), 2 * n))
    for i, (k, b, br, e) in enumerate(zip(m.kind, m.bus, m.branch, m.end, strict=True)):
        if k == K_V:
            H[i, n + b] = 1.0
        elif k in (P_INJ, Q_INJ):
            part = np.real if k == P_INJ else np.imag
            H[i, :n] = part(dS_va[b])
            H[i, n:] = part(dS_vm[b])
        else:
            va, vm = (dF_va, dF_vm) if e == 0 else (dT_va, dT_vm)
            part = np.real if k == P_FLOW else np.imag
            H[i, :n] = part(va[br])
            H[i, n:] = part(vm[br])
    cols = [j for j in range(2 * n) if j != g.ref]
    return H[:, cols]


@dataclass(frozen=True)
class Estimate:
    V: np.ndarray
    converged: bool
    iterations: int
    residual: np.ndarray  # z − h(x̂), per unit
    omega_diag: np.ndarray  # diag(Ω) = diag(R − H G⁻¹ Hᵀ), per unit²
    normalized: np.ndarray  # r_N; 0 for a critical measurement (Ω_ii ≈ 0)
    critical: np.ndarray  # Ω_ii / R_ii below CRITICAL_RATIO
    objective: float  # J(x̂) = Σ (r_i/σ_i)²


#: Ω_ii/R_ii below this marks a critical measurement: its residual is zero whatever its error,
#: so its normalized residual is undefined (reported 0 — bad data there cannot be detected).
CRITICAL_RATIO = 1e-6
#: Relative singular-value tolerance of the weighted Jacobian R^(-1/2) H for observability.
RANK_TOL = 1e-9


def observable(g: Grid, m: Measurements, V: np.ndarray | None = None) -> bool:
    """Numerical observability: R^(-1/2) H (at a flat start unless ``V`` is given) has full column rank."""
    V0 = np.ones(g.n_bus, complex) if V is None else V
    Hw = jacobian(g, m, V0) / m.sigma[:, None]
    if Hw.shape[0] < Hw.shape[1]:
        return False
    s = np.linalg.svd(Hw, compute_uv=False)
    return bool(s[-1] > RANK_TOL * s[0])


def estimate(g: Grid, m: Measurements, *, tol: float = 1e-10, max_iter: int = 30) -> Estimate:
    """Gauss-Newton WLS from a flat start (|V| = 1, θ = 0; the reference angle held at 0)."""
    n = g.n_bus
    th = np.zeros(n)
    vm = np.ones(n)
    W = 1.0 / m.sigma**2
    nonref = np.array([j for j in range(n) if j != g.ref])
    it = 0
    converged = False
    while it < max_iter:
        it += 1
        V = vm * np.exp(1j * th)
        H = jacobian(g, m, V)
        r = m.z - measured(g, m, V)
        G = H.T @ (W[:, None] * H)
        try:
            dx = np.linalg.solve(G, H.T @ (W * r))
        except np.linalg.LinAlgError:
            raise Unobservable("the gain matrix is singular") from None
        if not np.all(np.isfinite(dx)):
            raise Unobservable("the gain matrix is singular")
        th[nonref] += dx[: n - 1]
        vm += dx[n - 1:]
        if float(np.max(np.abs(dx))) < tol:
            converged = True
            break
    V = vm * np.exp(1j * th)
    H = jacobian(g, m, V)
    r = m.z - measured(g, m, V)
    G = H.T @ (W[:, None] * H)
    try:
        Ginv = np.linalg.inv(G)
    except np.linalg.LinAlgError:
        raise Unobservable("the gain matrix is singular") from None
    R = m.sigma**2
    omega = R - np.einsum("ij,jk,ik->i", H, Ginv, H)
    critical = omega < CRITICAL_RATIO * R
    rn = np.where(critical, 0.0, np.abs(r) / np.sqrt(np.maximum(omega, 1e-300)))
    return Estimate(V, converged, it, r, omega, rn, critical, float(np.sum(W * r * r)))


@dataclass(frozen=True)
class BadDataResult:
    removed: tuple[int, ...]  # indices into the original measurement list, in order of removal
    final: Estimate
    largest_rn: tuple[float, ...]  # the largest r_N at each test, the last one below the threshold
    runner_up_rn: tuple[float, ...]  # the second largest at each test
    critical_seen: bool = False
    steps: list[Estimate] = field(default_factory=list)


def largest_normalized_residual(g: Grid, m: Measurements, threshold: float, *, max_removals: int | None = None) -> BadDataResult:
    """Abur & Expósito §5.7.1: estimate; if the largest r_N exceeds ``threshold``, remove that
    measurement (the first in list order on an exact tie) and re-estimate; stop when the test passes."""
    keep = np.arange(len(m.kind))
    removed: list[int] = []
    largest: list[float] = []
    second: list[float] = []
    critical_seen = False
    limit = len(keep) if max_removals is None else max_removals
    while True:
        sub = m.subset(keep)
        est = estimate(g, sub)
        critical_seen |= bool(np.any(est.critical))
        order = np.argsort(-est.normalized, kind="stable")
        largest.append(float(est.normalized[order[0]]))
        second.append(float(est.normalized[order[1]]) if len(order) > 1 else 0.0)
        if est.normalized[order[0]] <= threshold or len(removed) >= limit:
            return BadDataResult(tuple(removed), est, tuple(largest), tuple(second), critical_seen)
        removed.append(int(keep[order[0]]))
        keep = np.delete(keep, order[0])


def va_deg(V: np.ndarray) -> np.ndarray:
    return np.degrees(np.angle(V))


def vm_pu(V: np.ndarray) -> np.ndarray:
    return np.abs(V)


