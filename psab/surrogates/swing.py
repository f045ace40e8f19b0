"""Swing-equation kernels for the single machine against an infinite bus (classical model).

The classical model (Kundur, *Power System Stability and Control*, 1994, §13.1 and §13.3;
Saadat, *Power System Analysis*, 2nd ed., §11.2–11.6): constant E′ behind the transient
reactance, the infinite bus at V∠0, mechanical power P_m constant, no damping, and

    (2H/ω_s)·d²δ/dt² = P_m − P_max·sin δ,     P_max = E′·V / X,     ω_s = 2π·f   (rad/s)

with H in MW·s/MVA on the system base and X the transfer reactance between E′ and the infinite
bus in the network state at hand (pre-fault, during the fault, after clearing).

Equal-area criterion (Kundur eq. 13.11–13.14; Saadat eq. 11.50): with δ_max = π − asin(P_m/P_max,post)
the post-fault unstable equilibrium, the critical clearing angle solves

    cos δ_cr = [P_m·(δ_max − δ_0) + P_max,post·cos δ_max − P_max,fault·cos δ_0] / (P_max,post − P_max,fault).

Critical clearing time: closed form when the during-fault transfer is zero (Saadat eq. 11.52,
t_cr = √(4H·(δ_cr − δ_0)/(ω_s·P_m))), otherwise a fixed-step classical RK4 integration of the swing
equation, bisected on the clearing time (:func:`critical_clearing_time`).

Pure functions of numbers: ``math`` and ``numpy`` only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Smib:
    """A single machine–infinite bus system in per unit of the system base.

    ``x_fault_pu`` is ``None`` when the fault leaves no transfer path (a bolted three-phase fault
    at the machine's terminals or sending-end busbar): P_max,fault = 0.
    """

    h_s: float
    frequency_hz: float
    p_m_pu: float
    e_prime_pu: float
    v_inf_pu: float
    x_pre_pu: float
    x_fault_pu: float | None
    x_post_pu: float

    @property
    def pmax_pre(self) -> float:
        return self.e_prime_pu * self.v_inf_pu / self.x_pre_pu

    @property
    def pmax_fault(self) -> float:
        return 0.0 if self.x_fault_pu is None else self.e_prime_pu * self.v_inf_pu / self.x_fault_pu

    @property
    def pmax_post(self) -> float:
        return self.e_prime_pu * self.v_inf_pu / self.x_post_pu

    @property
    def omega_s(self) -> float:
        return 2.0 * math.pi * self.frequency_hz


def problems(m: Smib) -> list[tuple[str, str]]:
    """Why ``m`` cannot be posed as a critical-clearing-time task: (field, reason) pairs, empty
    when it can. Field names are those of :class:`Smib`."""
    out: list[tuple[str, str]] = []
    for name in ("h_s", "frequency_hz", "p_m_pu", "e_prime_pu", "v_inf_pu", "x_pre_pu", "x_post_pu"):
        v = getattr(m, name)
        if not (isinstance(v, int | float) and math.isfinite(v) and v > 0):
            out.append((name, f"must be a positive finite number, got {v!r}"))
    if m.x_fault_pu is not None and not (math.isfinite(m.x_fault_pu) and m.x_fault_pu > 0):
        out.append(("x_fault_pu", f"must be positive (or null for a zero during-fault transfer), got {m.x_fault_pu!r}"))
    if out:
        return out
    if m.p_m_pu >= m.pmax_pre:
        out.append(("p_m_pu", f"P_m {m.p_m_pu:g} pu is not below the pre-fault P_max {m.pmax_pre:.4g} pu: no operating point"))
    if m.p_m_pu >= m.pmax_post:
        out.append(("x_post_pu", f"the post-fault network has no synchronizing power for P_m: P_max,post {m.pmax_post:.4g} pu ≤ P_m"))
    if m.x_fault_pu is not None and m.x_fault_pu <= m.x_pre_pu:
        out.append(("x_fault_pu", "the during-fault transfer reactance must exceed the pre-fault one"))
    if m.x_post_pu < m.x_pre_pu - 1e-12:
        out.append(("x_post_pu", "the post-fault transfer reactance cannot be below the pre-fault one (clearing removes paths)"))
    if not out and not math.isfinite(critical_clearing_angle(m)) or not out and not fault_on_reaches(m, critical_clearing_angle(m)):
        out.append(("x_fault_pu", "the machine stays stable for any clearing time: P_max,fault keeps the accelerating area "
                                  "below the decelerating one, so there is no critical clearing time"))
    return out


def initial_angle(m: Smib) -> float:
    """Pre-fault rotor angle δ_0 = asin(P_m / P_max,pre) (rad)."""
    return math.asin(m.p_m_pu / m.pmax_pre)


def unstable_equilibrium(m: Smib) -> float:
    """Post-fault unstable equilibrium δ_max = π − asin(P_m / P_max,post) (rad)."""
    return math.pi - math.asin(m.p_m_pu / m.pmax_post)


def critical_clearing_angle(m: Smib) -> float:
    """Equal-area critical clearing angle δ_cr (rad); ``nan`` when no clearing angle exists
    (the machine is stable for any clearing time, or unstable even at δ_0)."""
    d0 = initial_angle(m)
    dmax = unstable_equilibrium(m)
    p2, p3 = m.pmax_fault, m.pmax_post
    c = (m.p_m_pu * (dmax - d0) + p3 * math.cos(dmax) - p2 * math.cos(d0)) / (p3 - p2) if p3 > p2 else float("nan")
    if not -1.0 < c < 1.0:
        return float("nan")
    dc = math.acos(c)
    return dc if d0 < dc < dmax else float("nan")


def fault_on_reaches(m: Smib, delta_rad: float) -> bool:
    """Whether the sustained-fault trajectory from (δ_0, 0) ever reaches ``delta_rad``.

    When P_m < P_max,fault the faulted machine may swing back before: its first peak δ_p solves
    P_m·(δ_p − δ_0) + P_max,fault·(cos δ_p − cos δ_0) = 0 between the faulted equilibria (energy
    integral of the swing equation); the angle is reached only when it lies below δ_p.
    """
    if not math.isfinite(delta_rad):
        return False
    p2, pm, d0 = m.pmax_fault, m.p_m_pu, initial_angle(m)
    if pm >= p2:
        return True

    def g(d: float) -> float:
        return pm * (d - d0) + p2 * (math.cos(d) - math.cos(d0))

    ds = math.asin(pm / p2)
    lo, hi = ds, math.pi - ds
    if g(hi) > 0.0:
        return True
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if g(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return delta_rad < lo - 1e-6


def closed_form_time(m: Smib, delta_rad: float) -> float:
    """Time for the rotor to swing from δ_0 to ``delta_rad`` with zero during-fault transfer:
    δ(t) = δ_0 + ω_s·P_m·t²/(4H) (Saadat eq. 11.52)."""
    return math.sqrt(4.0 * m.h_s * (delta_rad - initial_angle(m)) / (m.omega_s * m.p_m_pu))


def _rhs(m: Smib, pmax: float, delta: float, omega: float) -> tuple[float, float]:
    """dδ/dt = ω (rad/s, speed deviation), dω/dt = ω_s/(2H)·(P_m − P_max·sin δ)."""
    return omega, m.omega_s / (2.0 * m.h_s) * (m.p_m_pu - pmax * math.sin(delta))


def _rk4(m: Smib, pmax: float, delta: float, omega: float, h: float) -> tuple[float, float]:
    k1d, k1w = _rhs(m, pmax, delta, omega)
    k2d, k2w = _rhs(m, pmax, delta + 0.5 * h * k1d, omega + 0.5 * h * k1w)
    k3d, k3w = _rhs(m, pmax, delta + 0.5 * h * k2d, omega + 0.5 * h * k2w)
    k4d, k4w = _rhs(m, pmax, delta + h * k3d, omega + h * k3w)
    return (delta + h / 6.0 * (k1d + 2 * k2d + 2 * k3d + k4d), omega + h / 6.0 * (k1w + 2 * k2w + 2 * k3w + k4w))


def fault_on(m: Smib, t_clear_s: float, step_s: float) -> tuple[float, float]:
    """(δ, ω) at the clearing instant: RK4 with step ``step_s`` from (δ_0, 0), the last step
    shortened so that it ends exactly at ``t_clear_s``."""
    delta, omega = initial_angle(m), 0.0
    n = int(math.floor(t_clear_s / step_s + 1e-9))
    for _ in range(n):
        delta, omega = _rk4(m, m.pmax_fault, delta, omega, step_s)
    rest = t_clear_s - n * step_s
    if rest > 1e-12:
        delta, omega = _rk4(m, m.pmax_fault, delta, omega, rest)
    return delta, omega


@dataclass(frozen=True)
class Swing:
    """One simulated disturbance: the verdict and the rotor-angle trajectory (rad) on the grid ``t_s``."""

    stable: bool
    t_s: np.ndarray
    delta_rad: np.ndarray


def simulate(m: Smib, t_clear_s: float, step_s: float, horizon_s: float = 5.0) -> Swing:
    """Fault at t = 0, cleared at ``t_clear_s``; RK4 with step ``step_s`` on the grid k·step_s
    (the clearing instant is inserted as an extra point).

    First-swing criterion (undamped SMIB, equivalent to the equal-area criterion): *unstable*
    when δ reaches the post-fault unstable equilibrium δ_max; *stable* when the speed deviation
    returns to zero after clearing with δ below δ_max. ``horizon_s`` only bounds the loop.
    """
    dmax = unstable_equilibrium(m)
    delta, omega = initial_angle(m), 0.0
    ts, ds = [0.0], [delta]
    t = 0.0
    stable = True
    while t < horizon_s:
        faulted = t < t_clear_s - 1e-12
        h = min(step_s, t_clear_s - t) if faulted else step_s
        pmax = m.pmax_fault if faulted else m.pmax_post
        delta, omega = _rk4(m, pmax, delta, omega, h)
        t += h
        ts.append(t)
        ds.append(delta)
        if delta >= dmax:
            stable = False
            break
        if t >= t_clear_s - 1e-12 and omega <= 0.0:
            break
    return Swing(stable=stable, t_s=np.asarray(ts), delta_rad=np.asarray(ds))


def critical_clearing_time(m: Smib, step_s: float, precision_s: float,
                           bracket: tuple[float, float] | None = None) -> tuple[float, float]:
    """Bisection on the clearing time: a bracket (t_stable, t_unstable) of width ≤ ``precision_s``
    around the critical clearing time, each end classified by :func:`simulate`.

    The initial bracket is (0, t_hi) with t_hi doubled from 0.05 s until unstable (at most 20 s),
    or the caller's ``bracket``.
    """
    if bracket is None:
        lo, hi = 0.0, 0.05
        while simulate(m, hi, step_s).stable:
            lo, hi = hi, 2 * hi
            if hi > 20.0:
                raise ValueError("no critical clearing time below 20 s")
    else:
        lo, hi = bracket
    while hi - lo > precision_s:
        mid = 0.5 * (lo + hi)
        if simulate(m, mid, step_s).stable:
            lo = mid
        else:
            hi = mid
    return lo, hi


# ------------------------------------------------------------------ multi-machine classical model


def kron_reduce(y_full: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Y_red = Y_kk − Y_ke·Y_ee⁻¹·Y_ek: the network seen from the nodes ``keep`` (internal machine
    nodes), every other node eliminated (Kundur §13.3.1, eq. 13.58)."""
    n = y_full.shape[0]
    elim = np.setdiff1d(np.arange(n), keep)
    ykk = y_full[np.ix_(keep, keep)]
    if elim.size == 0:
        return ykk
    yke = y_full[np.ix_(keep, elim)]
    yee = y_full[np.ix_(elim, elim)]
    return ykk - yke @ np.linalg.solve(yee, y_full[np.ix_(elim, keep)])


def multimachine_rhs(e_abs: np.ndarray, y_red: np.ndarray, p_m: np.ndarray, m_s: np.ndarray, omega_s: float,
                     delta: np.ndarray, dw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """dδ/dt = ω_s·Δω; M·dΔω/dt = P_m − P_e with P_e,i = Re(E_i·conj(Σ_j Y_ij·E_j)), M = 2H (s),
    Δω in per unit of the synchronous speed (classical model, no damping)."""
    e = e_abs * np.exp(1j * delta)
    p_e = np.real(e * np.conj(y_red @ e))
    return omega_s * dw, (p_m - p_e) / m_s


def simulate_multimachine(e_abs: np.ndarray, delta0: np.ndarray, p_m: np.ndarray, m_s: np.ndarray, f_hz: float,
                          y_fault: np.ndarray, y_post: np.ndarray, t_clear_s: float, horizon_s: float,
                          step_s: float, limit_rad: float) -> tuple[bool, float, np.ndarray, np.ndarray]:
    """RK4 with ``step_s`` (the last during-fault step shortened to end at ``t_clear_s``): the
    fault-on network until clearing, the post-fault one after. Unstable when the largest rotor-angle
    separation max_i δ_i − min_i δ_i exceeds ``limit_rad`` within ``horizon_s``. Returns
    (stable, largest separation (rad), t, δ(t))."""
    omega_s = 2.0 * math.pi * f_hz
    delta = np.array(delta0, dtype=float)
    dw = np.zeros_like(delta)
    ts, ds = [0.0], [delta.copy()]
    t = 0.0
    worst = float(delta.max() - delta.min())
    if not step_s > 0:
        raise ValueError(f"the integration step must be positive, got {step_s}")
    while t < horizon_s - 1e-12:
        faulted = t < t_clear_s - 1e-12
        h = min(step_s, t_clear_s - t) if faulted else min(step_s, horizon_s - t)
        y = y_fault if faulted else y_post
        k1d, k1w = multimachine_rhs(e_abs, y, p_m, m_s, omega_s, delta, dw)
        k2d, k2w = multimachine_rhs(e_abs, y, p_m, m_s, omega_s, delta + 0.5 * h * k1d, dw + 0.5 * h * k1w)
        k3d, k3w = multimachine_rhs(e_abs, y, p_m, m_s, omega_s, delta + 0.5 * h * k2d, dw + 0.5 * h * k2w)
        k4d, k4w = multimachine_rhs(e_abs, y, p_m, m_s, omega_s, delta + h * k3d, dw + h * k3w)
        delta = delta + h / 6.0 * (k1d + 2 * k2d + 2 * k3d + k4d)
        dw = dw + h / 6.0 * (k1w + 2 * k2w + 2 * k3w + k4w)
        t += h
        ts.append(t)
        ds.append(delta.copy())
        sep = float(delta.max() - delta.min())
        worst = max(worst, sep)
        if sep > limit_rad:
            return False, worst, np.asarray(ts), np.asarray(ds)
    return True, worst, np.asarray(ts), np.asarray(ds)


def stable_batch(e_abs: np.ndarray, delta0: np.ndarray, p_m: np.ndarray, m_s: np.ndarray, f_hz: float,
                 y_fault: np.ndarray, y_post: np.ndarray, t_clear_s: np.ndarray, horizon_s: float,
                 step_s: float, limit_rad: float) -> np.ndarray:
    """:func:`simulate_multimachine`'s verdicts for several clearing times at once (rows of a batch
    integrated together; each row's steps are the same as in a single run: the grid k·step_s up to its
    clearing instant, a shortened step onto it, then step_s from the clearing instant)."""
    omega_s = 2.0 * math.pi * f_hz
    tc = np.asarray(t_clear_s, dtype=float)
    k = tc.size
    delta = np.tile(np.asarray(delta0, dtype=float), (k, 1))
    dw = np.zeros_like(delta)
    t = np.zeros(k)
    alive = np.ones(k, dtype=bool)
    stable = np.ones(k, dtype=bool)

    def rhs(d: np.ndarray, w: np.ndarray, faulted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        e = e_abs * np.exp(1j * d)
        pe_f = np.real(e * np.conj(e @ y_fault.T))
        pe_p = np.real(e * np.conj(e @ y_post.T))
        pe = np.where(faulted[:, None], pe_f, pe_p)
        return omega_s * w, (p_m - pe) / m_s

    while alive.any():
        faulted = t < tc - 1e-12
        h = np.where(faulted, np.minimum(step_s, tc - t), np.minimum(step_s, horizon_s - t))
        h = np.where(alive, h, 0.0)[:, None]
        k1d, k1w = rhs(delta, dw, faulted)
        k2d, k2w = rhs(delta + 0.5 * h * k1d, dw + 0.5 * h * k1w, faulted)
        k3d, k3w = rhs(delta + 0.5 * h * k2d, dw + 0.5 * h * k2w, faulted)
        k4d, k4w = rhs(delta + h * k3d, dw + h * k3w, faulted)
        delta = delta + h / 6.0 * (k1d + 2 * k2d + 2 * k3d + k4d)
        dw = dw + h / 6.0 * (k1w + 2 * k2w + 2 * k3w + k4w)
        t = t + h[:, 0]
        sep = delta.max(axis=1) - delta.min(axis=1)
        broke = alive & (sep > limit_rad)
        stable[broke] = False
        alive &= ~broke & (t < horizon_s - 1e-12)
    return stable
