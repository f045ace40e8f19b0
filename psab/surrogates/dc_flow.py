"""DC power flow, power transfer distribution factors (PTDF) and line outage distribution
factors (LODF), single and multiple outages.

The DC (linearized, lossless) model of Wood & Wollenberg, *Power Generation, Operation and
Control*, 3rd ed. (2014), §6.12 and ch. 7 ("Power system security"), written in the branch
convention of the MATPOWER User's Manual §3.1 and §4 (``makeBdc``): a branch k from bus f to
bus t with series reactance ``x_k``, off-nominal tap ratio ``τ_k`` on the from side and phase
shift ``φ_k`` carries

    f_k = b_k (θ_f − θ_t − φ_k),        b_k = 1 / (x_k τ_k),

and the bus injections satisfy ``P = B θ − Cᵀ diag(b) φ`` with ``B = Cᵀ diag(b) C`` (``C`` the
branch–bus incidence matrix, +1 at the from bus, −1 at the to bus). A phase shifter is
therefore an equivalent pair of injections ``±b_k φ_k`` at its ends. The slack bus angle is
the reference (θ_slack = 0) and the slack absorbs any mismatch of the injections.

Sensitivities (Wood & Wollenberg §7.3; Guler, Gross & Liu, "Generalized line outage
distribution factors", IEEE Trans. Power Syst. 22(2), 2007, pp. 879-881):

- PTDF[l, i] = ∂f_l/∂P_i with the slack balancing: ``PTDF = diag(b) C [0 ; B_red⁻¹]``;
- H[l, k] = PTDF[l, f_k] − PTDF[l, t_k], the flow on l per MW transferred from f_k to t_k;
- LODF[l, k] = H[l, k] / (1 − H[k, k]) for l ≠ k and LODF[k, k] = −1; the post-outage flow is
  ``f'_l = f_l + LODF[l, k] f_k``. ``1 − H[k, k] = 0`` exactly when branch k is a bridge: its
  outage islands part of the network and the factor does not exist;
- for a set M of simultaneous outages, ``f'_l = f_l + H[l, M] (I − H[M, M])⁻¹ f_M`` (Guler et
  al., eq. 8); ``I − H[M, M]`` is singular exactly when the outages island the network.

Everything is in MW on the outside (injections, flows) and per unit on ``base_mva`` inside.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: ``1 − H[k, k]`` below this is a bridge (its exact value is 0 up to rounding; a genuine
#: non-bridge in a compact case is above 1e-3).
BRIDGE_TOLERANCE = 1e-8


class IslandedNetworkError(ValueError):
    """The in-service branches do not connect every bus to the slack."""


@dataclass(frozen=True)
class DcNetwork:
    """A network for the DC model: bus count, branch ends (bus positions), reactances, taps,
    phase shifts, the slack bus position and the MVA base."""

    n_bus: int
    from_idx: tuple[int, ...]
    to_idx: tuple[int, ...]
    x_pu: tuple[float, ...]
    tap_ratio: tuple[float, ...]
    phase_shift_deg: tuple[float, ...]
    slack: int = 0
    base_mva: float = 100.0

    @classmethod
    def build(cls, n_bus: int, from_idx, to_idx, x_pu, tap_ratio=None, phase_shift_deg=None,
              slack: int = 0, base_mva: float = 100.0) -> DcNetwork:
        n = len(from_idx)
        tap = [1.0] * n if tap_ratio is None else [float(v) for v in tap_ratio]
        shift = [0.0] * n if phase_shift_deg is None else [float(v) for v in phase_shift_deg]
        net = cls(int(n_bus), tuple(int(i) for i in from_idx), tuple(int(i) for i in to_idx),
                  tuple(float(v) for v in x_pu), tuple(tap), tuple(shift), int(slack), float(base_mva))
        if not (len(net.to_idx) == len(net.x_pu) == len(net.tap_ratio) == len(net.phase_shift_deg) == n):
            raise ValueError("every branch needs a from bus, a to bus, a reactance, a tap and a shift")
        if any(x == 0 for x in net.x_pu) or any(t <= 0 for t in net.tap_ratio):
            raise ValueError("branch reactances must be non-zero and tap ratios positive")
        if not 0 <= net.slack < net.n_bus:
            raise ValueError("the slack must be one of the buses")
        return net

    @classmethod
    def from_case(cls, buses, branches, slack_bus: str, base_mva: float = 100.0) -> DcNetwork:
        """The DC network of a compact case: ``buses`` with ``id``; ``branches`` with
        ``from_bus``, ``to_bus``, ``x_pu`` and optional ``tap_ratio`` / ``phase_shift_deg``."""
        pos = {b["id"]: i for i, b in enumerate(buses)}
        return cls.build(
            len(buses), [pos[b["from_bus"]] for b in branches], [pos[b["to_bus"]] for b in branches],
            [b["x_pu"] for b in branches], [b.get("tap_ratio", 1.0) for b in branches],
            [b.get("phase_shift_deg", 0.0) for b in branches], pos[slack_bus], base_mva,
        )

    @property
    def n_branch(self) -> int:
        return len(self.from_idx)

    @property
    def susceptance_pu(self) -> np.ndarray:
        """``b_k = 1 / (x_k τ_k)`` (per unit)."""
        return 1.0 / (np.asarray(self.x_pu) * np.asarray(self.tap_ratio))

    @property
    def incidence(self) -> np.ndarray:
        """Branch–bus incidence ``C`` (n_branch × n_bus): +1 at the from bus, −1 at the to bus."""
        C = np.zeros((self.n_branch, self.n_bus))
        rows = np.arange(self.n_branch)
        C[rows, list(self.from_idx)] += 1.0
        C[rows, list(self.to_idx)] -= 1.0
        return C

    def shift_rad(self) -> np.ndarray:
        return np.deg2rad(np.asarray(self.phase_shift_deg))


@dataclass(frozen=True)
class DcFlow:
    """A DC power flow solution: bus angles (rad, slack 0), branch flows from→to (MW), the
    slack bus's net injection (MW) and the branch in-service mask it was solved for."""

    theta_rad: np.ndarray
    flow_mw: np.ndarray
    slack_injection_mw: float
    in_service: np.ndarray


def _mask(net: DcNetwork, in_service) -> np.ndarray:
    if in_service is None:
        return np.ones(net.n_branch, dtype=bool)
    m = np.asarray(in_service, dtype=bool)
    if m.shape != (net.n_branch,):
        raise ValueError("in_service needs one flag per branch")
    return m


def components(n_bus: int, from_idx, to_idx, in_service=None) -> list[int]:
    """Connected-component label of every bus over the in-service branches (union-find)."""
    parent = list(range(n_bus))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    flags = [True] * len(from_idx) if in_service is None else [bool(v) for v in in_service]
    for a, b, on in zip(from_idx, to_idx, flags, strict=True):
        if on:
            parent[find(int(a))] = find(int(b))
    return [find(i) for i in range(n_bus)]


def is_connected(net: DcNetwork, in_service=None) -> bool:
    """Whether the in-service branches connect every bus (no island)."""
    return len(set(components(net.n_bus, net.from_idx, net.to_idx, _mask(net, in_service)))) == 1


def bbus(net: DcNetwork, in_service=None) -> np.ndarray:
    """The DC bus susceptance matrix ``B = Cᵀ diag(b) C`` of the in-service branches."""
    m = _mask(net, in_service)
    C = net.incidence[m]
    return C.T @ (net.susceptance_pu[m][:, None] * C)


def _reduced_inverse(net: DcNetwork, in_service) -> np.ndarray:
    """``[0 ; B_red⁻¹]`` padded back to n_bus × n_bus (slack row and column zero)."""
    m = _mask(net, in_service)
    if not is_connected(net, m):
        raise IslandedNetworkError("the in-service branches leave part of the network islanded")
    keep = [i for i in range(net.n_bus) if i != net.slack]
    X = np.zeros((net.n_bus, net.n_bus))
    B = bbus(net, m)
    X[np.ix_(keep, keep)] = np.linalg.inv(B[np.ix_(keep, keep)])
    return X


def ptdf(net: DcNetwork, in_service=None) -> np.ndarray:
    """Power transfer distribution factors (n_branch × n_bus, MW/MW), slack balancing.

    ``PTDF[l, i]`` is the change of the flow on branch l when bus i injects 1 MW more and the
    slack absorbs it (Wood & Wollenberg §7.3, "generation shift factors"); the slack column is
    zero and out-of-service rows are zero.
    """
    m = _mask(net, in_service)
    X = _reduced_inverse(net, m)
    C = net.incidence
    b = np.where(m, net.susceptance_pu, 0.0)
    return (b[:, None] * C) @ X


def shift_flow_mw(net: DcNetwork, in_service=None) -> np.ndarray:
    """Branch flows (MW) caused by the phase shifters alone, with zero bus injections."""
    m = _mask(net, in_service)
    phi = np.where(m, net.shift_rad(), 0.0)
    if not phi.any():
        return np.zeros(net.n_branch)
    X = _reduced_inverse(net, m)
    C = net.incidence
    b = np.where(m, net.susceptance_pu, 0.0)
    theta = X @ (C.T @ (b * phi))
    return b * (C @ theta - phi) * net.base_mva


def dc_power_flow(net: DcNetwork, p_injection_mw, in_service=None) -> DcFlow:
    """Solve ``B θ = P + Cᵀ diag(b) φ`` with θ_slack = 0; flows ``f = diag(b)(C θ − φ)``.

    ``p_injection_mw`` is the net injection (generation − load) at every bus; the slack's own
    entry is replaced by whatever balances the network (lossless: −Σ of the others).
    Raises :class:`IslandedNetworkError` when the in-service branches do not connect every bus.
    """
    m = _mask(net, in_service)
    P = np.asarray(p_injection_mw, dtype=float).copy()
    if P.shape != (net.n_bus,):
        raise ValueError("p_injection_mw needs one value per bus")
    X = _reduced_inverse(net, m)
    P[net.slack] = -(P.sum() - P[net.slack])
    C = net.incidence
    b = np.where(m, net.susceptance_pu, 0.0)
    phi = np.where(m, net.shift_rad(), 0.0)
    theta = X @ (P / net.base_mva + C.T @ (b * phi))
    flow = b * (C @ theta - phi) * net.base_mva
    return DcFlow(theta, flow, float(P[net.slack]), m)


def transfer_factors(ptdf_matrix: np.ndarray, net: DcNetwork) -> np.ndarray:
    """``H[l, k] = PTDF[l, f_k] − PTDF[l, t_k]``: flow on l per MW sent from f_k to t_k."""
    return ptdf_matrix[:, list(net.from_idx)] - ptdf_matrix[:, list(net.to_idx)]


@dataclass(frozen=True)
class OutageFactors:
    """LODF matrix (n_branch × n_branch, column k = outage of k) and the bridge mask.

    Columns of bridges are NaN: their outage islands part of the network (Guler et al. 2007:
    ``1 − H[k, k] = 0``).
    """

    lodf: np.ndarray
    bridge: np.ndarray


def lodf(net: DcNetwork, ptdf_matrix: np.ndarray | None = None) -> OutageFactors:
    """Line outage distribution factors of every single-branch outage (Wood & Wollenberg
    §7.3, eq. 7.8; Guler, Gross & Liu 2007, eq. 3).

    ``LODF[l, k] = H[l, k] / (1 − H[k, k])`` for l ≠ k, ``LODF[k, k] = −1``; a branch with
    ``1 − H[k, k] ≈ 0`` (:data:`BRIDGE_TOLERANCE`) is a bridge, flagged and left NaN.
    """
    P = ptdf(net) if ptdf_matrix is None else ptdf_matrix
    H = transfer_factors(P, net)
    denom = 1.0 - np.diag(H)
    bridge = np.abs(denom) < BRIDGE_TOLERANCE
    safe = np.where(bridge, 1.0, denom)
    L = H / safe[None, :]
    L[:, bridge] = np.nan
    idx = np.arange(net.n_branch)
    L[idx, idx] = np.where(bridge, np.nan, -1.0)
    return OutageFactors(L, bridge)


def post_outage_flows(flow_mw: np.ndarray, factors: OutageFactors) -> np.ndarray:
    """Every single-outage post-contingency flow at once: column k is ``f + LODF[:, k] f_k``
    (zero on k itself; NaN for a bridge, whose outage islands the network)."""
    f = np.asarray(flow_mw, dtype=float)
    out = f[:, None] + factors.lodf * f[None, :]
    idx = np.arange(len(f))
    out[idx, idx] = np.where(factors.bridge, np.nan, 0.0)
    return out


def multi_outage_flows(flow_mw: np.ndarray, net: DcNetwork, outaged, ptdf_matrix: np.ndarray | None = None) -> np.ndarray | None:
    """Flows after the simultaneous outage of the branches ``outaged`` (positions), by the
    generalized LODF (Guler, Gross & Liu 2007, eq. 8): ``f' = f + H[:, M] (I − H[M, M])⁻¹ f_M``.

    Returns ``None`` when the outages island the network (``I − H[M, M]`` singular).
    """
    M = [int(k) for k in outaged]
    f = np.asarray(flow_mw, dtype=float)
    if not M:
        return f.copy()
    P = ptdf(net) if ptdf_matrix is None else ptdf_matrix
    H = transfer_factors(P, net)
    A = np.eye(len(M)) - H[np.ix_(M, M)]
    # Islanding is a topological fact; checking it on the graph avoids judging a
    # near-singular matrix by a threshold on its condition number.
    on = np.ones(net.n_branch, dtype=bool)
    on[M] = False
    if not is_connected(net, on):
        return None
    out = f + H[:, M] @ np.linalg.solve(A, f[M])
    out[M] = 0.0
    return out
