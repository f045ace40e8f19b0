"""AC power flow by the Newton-Raphson method in polar form, and voltage sensitivities.

The textbook method (Glover, Overbye & Sarma, *Power System Analysis and Design*, 6th ed.,
§6.6, eqs. (6.6.1)-(6.6.8) and Table 6.5; the same formulation as MATPOWER's ``newtonpf``
with the derivatives of ``dSbus_dV``, Zimmerman, *AC Power Flows, Generalized OPF Costs and
their Derivatives using Complex Matrix Notation*, MATPOWER Technical Note 2, 2011):

- unknowns ``x = [θ_i for PV and PQ buses; |V_i| for PQ buses]``;
- mismatches ``f(x) = [P_i(x) − P_i^spec (PV, PQ); Q_i(x) − Q_i^spec (PQ)]`` with the complex
  injections ``S = diag(V) conj(Y_bus V)``;
- the Jacobian ``J = ∂f/∂x`` from ``∂S/∂θ = j diag(V) conj(diag(I) − Y diag(V))`` and
  ``∂S/∂|V| = diag(V) conj(Y diag(V/|V|)) + conj(diag(I)) diag(V/|V|)``;
- the update ``x ← x − J⁻¹ f(x)`` until ``‖f‖∞`` is below the tolerance.

At a solved point the same Jacobian gives the linear voltage sensitivities (Glover §6.6 and
the "sensitivity" use of the power-flow Jacobian, e.g. Kundur, *Power System Stability and
Control*, §14.3.3): since ``f(x) = 0`` must keep holding when the specified injections change,
``dx = J⁻¹ dS_spec``; the rows of ``J⁻¹`` for ``|V|`` and its columns for ``Q`` (or ``P``) are
``∂|V|/∂Q`` (or ``∂|V|/∂P``). Slack and PV buses hold their voltage magnitude, so their rows
are zero; reactive injections at PV or slack buses are absorbed by their generators, so
those columns are zero too.

Everything is per unit on ``base_mva`` inside; networks are described in MW, Mvar and per
unit impedances as in :mod:`psab.surrogates.ybus` (π model, tap and phase shift on the
from side).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from psab.surrogates.ybus import build_ybus

#: Bus types, numbered as in MATPOWER's ``BUS_TYPE`` column.
PQ, PV, SLACK = 1, 2, 3
BUS_TYPE_NAMES = {"pq": PQ, "pv": PV, "slack": SLACK}


class PowerFlowDidNotConverge(ArithmeticError):
    """Newton-Raphson did not reach the mismatch tolerance (no solution near the start, or
    a singular Jacobian)."""


@dataclass(frozen=True)
class AcNetwork:
    """A network for AC power flow. Arrays are indexed by bus (``n``) or branch (``m``).

    Parameters
    ----------
    base_mva
        System base for the per-unit impedances and shunts.
    bus_type
        ``PQ``, ``PV`` or ``SLACK`` per bus; exactly one slack.
    p_load_mw, q_load_mvar
        Constant-power demand per bus.
    p_gen_mw, q_gen_mvar
        Constant-power generation per bus. At PV buses ``p_gen_mw`` is the generator's
        scheduled output and ``q_gen_mvar`` a fixed reactive injection on top of what the
        generator provides to hold ``v_set_pu``; at PQ buses both are fixed injections
        (static generators, compensators). Ignored at the slack.
    v_set_pu, slack_angle_deg
        Voltage magnitude setpoints of PV and slack buses (ignored at PQ buses) and the
        slack's angle.
    shunt_g_pu, shunt_b_pu
        Constant-admittance bus shunts in per unit (``b > 0`` capacitive).
    from_idx, to_idx, r_pu, x_pu, b_pu, tap_ratio, phase_shift_deg
        π-model branches (:func:`psab.surrogates.ybus.build_ybus`).
    q_min_mvar, q_max_mvar
        Optional reactive limits of the PV generators (``None``: unlimited); used only when a
        solve asks to enforce them.
    vn_kv
        Optional nominal voltages (for simulator back ends; the per-unit physics ignores them).
    """

    base_mva: float
    bus_type: np.ndarray
    p_load_mw: np.ndarray
    q_load_mvar: np.ndarray
    p_gen_mw: np.ndarray
    q_gen_mvar: np.ndarray
    v_set_pu: np.ndarray
    shunt_g_pu: np.ndarray
    shunt_b_pu: np.ndarray
    from_idx: np.ndarray
    to_idx: np.ndarray
    r_pu: np.ndarray
    x_pu: np.ndarray
    b_pu: np.ndarray
    tap_ratio: np.ndarray
    phase_shift_deg: np.ndarray
    slack_angle_deg: float = 0.0
    q_min_mvar: np.ndarray | None = None
    q_max_mvar: np.ndarray | None = None
    vn_kv: np.ndarray | None = None

    @property
    def n_bus(self) -> int:
        return int(len(self.bus_type))

    def ybus(self) -> np.ndarray:
        """The complex bus admittance matrix (per unit)."""
        return build_ybus(
            self.n_bus, self.from_idx, self.to_idx, self.r_pu, self.x_pu, self.b_pu,
            self.tap_ratio, self.phase_shift_deg, self.shunt_g_pu, self.shunt_b_pu,
        )

    def s_spec_pu(self, extra_p_mw: np.ndarray | None = None, extra_q_mvar: np.ndarray | None = None) -> np.ndarray:
        """Specified net complex injection per bus (generation − load), per unit."""
        p = np.asarray(self.p_gen_mw, float) - np.asarray(self.p_load_mw, float)
        q = np.asarray(self.q_gen_mvar, float) - np.asarray(self.q_load_mvar, float)
        if extra_p_mw is not None:
            p = p + np.asarray(extra_p_mw, float)
        if extra_q_mvar is not None:
            q = q + np.asarray(extra_q_mvar, float)
        return (p + 1j * q) / float(self.base_mva)


def make_network(
    *,
    base_mva: float,
    bus_type: list[int] | np.ndarray,
    from_idx: list[int] | np.ndarray,
    to_idx: list[int] | np.ndarray,
    r_pu: list[float] | np.ndarray,
    x_pu: list[float] | np.ndarray,
    b_pu: list[float] | np.ndarray | None = None,
    tap_ratio: list[float] | np.ndarray | None = None,
    phase_shift_deg: list[float] | np.ndarray | None = None,
    p_load_mw: list[float] | np.ndarray | None = None,
    q_load_mvar: list[float] | np.ndarray | None = None,
    p_gen_mw: list[float] | np.ndarray | None = None,
    q_gen_mvar: list[float] | np.ndarray | None = None,
    v_set_pu: list[float] | np.ndarray | None = None,
    shunt_g_pu: list[float] | np.ndarray | None = None,
    shunt_b_pu: list[float] | np.ndarray | None = None,
    slack_angle_deg: float = 0.0,
    q_min_mvar: list[float] | np.ndarray | None = None,
    q_max_mvar: list[float] | np.ndarray | None = None,
    vn_kv: list[float] | np.ndarray | None = None,
) -> AcNetwork:
    """An :class:`AcNetwork` with zeros (and unit taps, flat setpoints) for what is omitted."""
    types = np.asarray(bus_type, dtype=int)
    n = len(types)
    m = len(np.asarray(from_idx))
    if int(np.sum(types == SLACK)) != 1:
        raise ValueError("an AC network needs exactly one slack bus")
    if not np.all(np.isin(types, (PQ, PV, SLACK))):
        raise ValueError("bus types must be PQ (1), PV (2) or SLACK (3)")

    def bus(a: object, default: float = 0.0) -> np.ndarray:
        return np.full(n, default) if a is None else np.asarray(a, dtype=float).reshape(n)

    def branch(a: object, default: float = 0.0) -> np.ndarray:
        return np.full(m, default) if a is None else np.asarray(a, dtype=float).reshape(m)

    return AcNetwork(
        base_mva=float(base_mva), bus_type=types,
        p_load_mw=bus(p_load_mw), q_load_mvar=bus(q_load_mvar), p_gen_mw=bus(p_gen_mw), q_gen_mvar=bus(q_gen_mvar),
        v_set_pu=bus(v_set_pu, 1.0), shunt_g_pu=bus(shunt_g_pu), shunt_b_pu=bus(shunt_b_pu),
        from_idx=np.asarray(from_idx, dtype=int), to_idx=np.asarray(to_idx, dtype=int),
        r_pu=branch(r_pu), x_pu=branch(x_pu), b_pu=branch(b_pu), tap_ratio=branch(tap_ratio, 1.0),
        phase_shift_deg=branch(phase_shift_deg), slack_angle_deg=float(slack_angle_deg),
        q_min_mvar=None if q_min_mvar is None else bus(q_min_mvar),
        q_max_mvar=None if q_max_mvar is None else bus(q_max_mvar),
        vn_kv=None if vn_kv is None else bus(vn_kv),
    )


# ------------------------------------------------------------------------ kernels


def power_injections(Y: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Complex power injected at every bus, ``S = V · conj(Y V)`` (per unit)."""
    return V * np.conj(Y @ V)


def power_derivatives(Y: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(∂S/∂θ, ∂S/∂|V|)``, dense ``n × n`` (MATPOWER Technical Note 2, eqs. (16)-(17))."""
    current = Y @ V
    v_norm = V / np.abs(V)
    y_v = Y * V[None, :]  # Y diag(V)
    diag = np.diag_indices(len(V))
    ds_dva = -1j * V[:, None] * np.conj(y_v)
    ds_dva[diag] += 1j * V * np.conj(current)
    ds_dvm = V[:, None] * np.conj(y_v / np.abs(V)[None, :])
    ds_dvm[diag] += np.conj(current) * v_norm
    return ds_dva, ds_dvm


def jacobian(Y: np.ndarray, V: np.ndarray, pvpq: np.ndarray, pq: np.ndarray) -> np.ndarray:
    """The polar power-flow Jacobian ``[[∂P/∂θ, ∂P/∂|V|], [∂Q/∂θ, ∂Q/∂|V|]]``.

    Rows: ``P`` at ``pvpq`` then ``Q`` at ``pq``; columns: ``θ`` at ``pvpq`` then ``|V|`` at
    ``pq`` (Glover §6.6, eq. (6.6.5) and Table 6.5).
    """
    ds_dva, ds_dvm = power_derivatives(Y, V)
    j11 = ds_dva.real[np.ix_(pvpq, pvpq)]
    j12 = ds_dvm.real[np.ix_(pvpq, pq)]
    j21 = ds_dva.imag[np.ix_(pq, pvpq)]
    j22 = ds_dvm.imag[np.ix_(pq, pq)]
    return np.block([[j11, j12], [j21, j22]])


@dataclass(frozen=True)
class NewtonResult:
    """A Newton-Raphson solve: complex bus voltages and how it got there."""

    V: np.ndarray
    converged: bool
    iterations: int
    max_mismatch_pu: float


def newton_raphson(
    Y: Any,
    s_spec_pu: np.ndarray,
    bus_type: np.ndarray,
    V0: np.ndarray,
    *,
    tol_pu: float = 1e-10,
    max_iter: int = 30,
    step: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> NewtonResult:
    """Solve the AC power flow from the start ``V0`` (which carries the PV/slack magnitudes
    and the slack angle); returns the voltages whether or not it converged.

    ``step(V, pvpq, pq, F)``, when given, returns the Newton step ``J⁻¹(−F)`` in place of the
    dense Jacobian and solve — :mod:`psab.backends.sparse_power_flow` passes a sparse one with
    a sparse ``Y`` (this module itself stays numpy-only); it raises ``ArithmeticError`` for a
    singular Jacobian."""
    types = np.asarray(bus_type)
    pv = np.flatnonzero(types == PV)
    pq = np.flatnonzero(types == PQ)
    pvpq = np.concatenate([pv, pq])
    n_a = len(pvpq)
    V = np.array(V0, dtype=complex)
    Va = np.angle(V)
    Vm = np.abs(V)

    def mismatch(V: np.ndarray) -> np.ndarray:
        mis = power_injections(Y, V) - s_spec_pu
        return np.concatenate([mis.real[pvpq], mis.imag[pq]])

    F = mismatch(V)
    norm = float(np.max(np.abs(F))) if F.size else 0.0
    it = 0
    while norm > tol_pu and it < max_iter:
        it += 1
        try:
            if step is None:
                dx = np.linalg.solve(jacobian(Y, V, pvpq, pq), -F)
            else:
                dx = step(V, pvpq, pq, F)
        except (np.linalg.LinAlgError, ArithmeticError):
            return NewtonResult(V, False, it, norm)
        Va[pvpq] += dx[:n_a]
        Vm[pq] += dx[n_a:]
        V = Vm * np.exp(1j * Va)
        F = mismatch(V)
        norm = float(np.max(np.abs(F))) if F.size else 0.0
        if not math.isfinite(norm):
            return NewtonResult(V, False, it, norm)
    return NewtonResult(V, norm <= tol_pu, it, norm)


@dataclass(frozen=True)
class AcSolution:
    """A solved AC operating point.

    ``p_inj_mw``/``q_inj_mvar`` are the net injections at every bus (generation − load,
    what the network absorbs from the bus); ``q_gen_mvar`` the reactive output of the PV and
    slack generators needed to hold their voltage; ``bus_type`` the final types (a PV bus that
    hit a reactive limit is reported as PQ).
    """

    V: np.ndarray
    vm_pu: np.ndarray
    va_deg: np.ndarray
    p_inj_mw: np.ndarray
    q_inj_mvar: np.ndarray
    q_gen_mvar: np.ndarray
    bus_type: np.ndarray
    converged: bool
    iterations: int
    max_mismatch_pu: float
    limited_buses: tuple[int, ...] = field(default_factory=tuple)


def flat_start(net: AcNetwork) -> np.ndarray:
    """Magnitudes at the setpoints of PV and slack buses, 1 pu elsewhere, all angles at the
    slack's angle."""
    types = np.asarray(net.bus_type)
    vm = np.where(types == PQ, 1.0, np.asarray(net.v_set_pu, float))
    return vm * np.exp(1j * math.radians(net.slack_angle_deg))


def solve_ac(
    net: AcNetwork,
    *,
    extra_p_mw: np.ndarray | None = None,
    extra_q_mvar: np.ndarray | None = None,
    enforce_q_limits: bool = False,
    V0: np.ndarray | None = None,
    tol_pu: float = 1e-10,
    max_iter: int = 30,
    Y: Any = None,
    step: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> AcSolution:
    """The AC operating point of ``net`` (plus optional extra injections per bus).

    With ``enforce_q_limits`` a PV generator whose reactive output leaves
    ``[q_min_mvar, q_max_mvar]`` is fixed at the violated limit and its bus becomes PQ, and
    the flow is solved again, until no generator violates (the usual outer loop, e.g.
    MATPOWER ``runpf`` with ``ENFORCE_Q_LIMS``; all violators are switched at once).

    Raises
    ------
    PowerFlowDidNotConverge
        when Newton-Raphson does not reach ``tol_pu`` in ``max_iter`` iterations.
    """
    Y = net.ybus() if Y is None else Y
    types = np.array(net.bus_type, dtype=int)
    s_spec = net.s_spec_pu(extra_p_mw, extra_q_mvar)
    base = float(net.base_mva)
    start = flat_start(net) if V0 is None else np.asarray(V0, dtype=complex)
    limits: dict[int, float] = {}
    total_it = 0
    while True:
        res = newton_raphson(Y, s_spec, types, start, tol_pu=tol_pu, max_iter=max_iter, step=step)
        total_it += res.iterations
        if not res.converged:
            raise PowerFlowDidNotConverge(
                f"Newton-Raphson stopped after {res.iterations} iterations with mismatch {res.max_mismatch_pu:.3g} pu"
            )
        S = power_injections(Y, res.V)
        # Reactive output of the voltage-holding generators: what the bus injects beyond
        # its specified (fixed) reactive injection.
        q_gen = np.where(types != PQ, (S.imag - s_spec.imag) * base, 0.0)
        if not enforce_q_limits or net.q_min_mvar is None or net.q_max_mvar is None:
            break
        qmin = np.asarray(net.q_min_mvar, float)
        qmax = np.asarray(net.q_max_mvar, float)
        hit = {int(i): float(qmax[i]) for i in np.flatnonzero((types == PV) & (q_gen > qmax + 1e-9))}
        hit.update({int(i): float(qmin[i]) for i in np.flatnonzero((types == PV) & (q_gen < qmin - 1e-9))})
        if not hit:
            break
        for i, lim in hit.items():
            # the generator now injects exactly its limit: a fixed injection of a PQ bus
            types[i] = PQ
            s_spec[i] += 1j * lim / base
        limits.update(hit)
        start = res.V
    for i, lim in limits.items():
        q_gen[i] = lim
    return AcSolution(
        V=res.V, vm_pu=np.abs(res.V), va_deg=np.degrees(np.angle(res.V)),
        p_inj_mw=S.real * base, q_inj_mvar=S.imag * base, q_gen_mvar=q_gen,
        bus_type=types, converged=True, iterations=total_it, max_mismatch_pu=res.max_mismatch_pu,
        limited_buses=tuple(sorted(limits)),
    )


@dataclass(frozen=True)
class VoltageSensitivity:
    """Linear sensitivities of bus voltages to injections at a solved point (per unit / per unit).

    ``dvm_dq[i, k] = ∂|V_i| / ∂Q_k`` (column ``k`` nonzero only for PQ buses ``k``; row ``i``
    zero for PV and slack buses, whose magnitudes are held); likewise ``dvm_dp`` (columns for
    PV and PQ buses). Multiply by ``1 / base_mva`` for per unit per Mvar (or MW).
    """

    dvm_dq: np.ndarray
    dvm_dp: np.ndarray


def voltage_sensitivity(Y: np.ndarray, V: np.ndarray, bus_type: np.ndarray) -> VoltageSensitivity:
    """``∂|V|/∂Q`` and ``∂|V|/∂P`` from the inverse of the full polar Jacobian at the solved
    voltages ``V``: ``[Δθ; Δ|V|] = J⁻¹ [ΔP; ΔQ]``."""
    types = np.asarray(bus_type)
    n = len(types)
    pv = np.flatnonzero(types == PV)
    pq = np.flatnonzero(types == PQ)
    pvpq = np.concatenate([pv, pq])
    n_a = len(pvpq)
    J = jacobian(Y, V, pvpq, pq)
    Jinv = np.linalg.solve(J, np.eye(J.shape[0]))
    dvm_dq = np.zeros((n, n))
    dvm_dp = np.zeros((n, n))
    dvm_dq[np.ix_(pq, pq)] = Jinv[n_a:, n_a:]
    dvm_dp[np.ix_(pq, pvpq)] = Jinv[n_a:, :n_a]
    return VoltageSensitivity(dvm_dq, dvm_dp)


def sensitivity_at(net: AcNetwork, solution: AcSolution, Y: np.ndarray | None = None) -> VoltageSensitivity:
    """:func:`voltage_sensitivity` of ``net`` at a solved point (its final bus types)."""
    Y = net.ybus() if Y is None else Y
    return voltage_sensitivity(Y, solution.V, solution.bus_type)
