"""The protection coordination study's relay currents, pairs, checks and reference MILP
(pure numpy + HiGHS arrays; the contract lives in ``protection_coordination_study``).

Conventions (stated in the study's statement, every one):

- relay ``r`` sits at bus ``a`` of line ``l`` and looks into the line toward the remote bus
  ``o`` (directional, forward = from ``a`` into ``l``);
- **near-end fault** of ``r``: a three-phase fault on ``l`` just beyond ``r``'s breaker, i.e.
  at bus ``a``'s potential: ``r`` carries every contribution into the fault except the one
  coming through ``l`` itself, ``I_near = I_f(a) − I_{o→a}(l)``;
- **far-end fault** of ``r``: a three-phase bus fault at ``o`` with the remote breaker closed,
  ``I_far = I_{a→o}(l)``;
- **backups** of primary ``r`` (line ``l``, bus ``a``): every relay at the far end ``k`` of another
  study line ``l' ≠ l`` incident to ``a``, looking toward ``a``; it carries ``I_{k→a}(l')`` at
  ``r``'s fault points and operates only if that current flows forward (``Re(V_k·conj(I)) > 0``)
  and exceeds its pickup;
- a relay operates with ``t = TMS·k/((I/I_p)^α − 1)`` (IEC 60255-151) when ``I > I_p``; a
  primary–backup pair at a fault point in a topology constrains (``t_b − t_p ≥ CTI``) only when
  both operate there;
- a current below 1 mA is zero (a relay without infeed behind it carries none).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from psab.studies import _protection_grid as pg
from psab.surrogates.relay_curves import IEC_CURVES, InverseCurve, time_factors

FAULT_POINTS = ("near_end", "far_end")
#: A current below 1 mA is no current (a relay without infeed; numerical zeros of Z_bus).
ZERO_KA = 1e-6


@dataclass(frozen=True)
class Relay:
    id: str
    line: int
    bus: int     # compact bus index of its end
    remote: int  # compact bus index of the remote end


@dataclass
class Currents:
    """Every current the study uses (kA), per topology (0 = base, then the outages).

    ``near[τ, r]``/``far[τ, r]``: relay ``r``'s current at its near-/far-end fault at the
    maximum condition (NaN where ``r``'s line is out); ``far_min`` the far-end current at the
    minimum condition; ``pair_ip[τ, q, φ]``/``pair_ib[τ, q, φ]`` the primary's and the backup's
    currents of pair ``q`` at fault point ``φ`` (0 near, 1 far), ``pair_fwd`` whether the backup
    sees it forward, NaN where either line is out."""

    near: np.ndarray
    far: np.ndarray
    near_min: np.ndarray
    far_min: np.ndarray
    pair_ip: np.ndarray
    pair_ib: np.ndarray
    pair_fwd: np.ndarray


def relays_of(net: pg.HVNet, line_idx: list[int]) -> list[Relay]:
    out = []
    for k in line_idx:
        a, b = int(net.line_from[k]), int(net.line_to[k])
        lid = net.line_ids[k]
        out.append(Relay(f"R-{lid}-A", k, a, b))
        out.append(Relay(f"R-{lid}-B", k, b, a))
    return out


def pairs_of(relays: list[Relay]) -> list[tuple[int, int]]:
    """(primary, backup) index pairs by the study's rule: the backups of the relay at bus ``a``
    of line ``l`` are the relays at the far ends of the other study lines at ``a``, looking
    toward ``a``."""
    out = []
    for p, rp in enumerate(relays):
        for b, rb in enumerate(relays):
            if rb.line != rp.line and rb.remote == rp.bus:
                out.append((p, b))
    return out


def surrogate_currents(net: pg.HVNet, relays: list[Relay], pairs: list[tuple[int, int]], outages: list[int],
                       sources_max: pg.Sources, sources_min: pg.Sources, c_max: float, c_min: float) -> Currents:
    """Every relay and pair current by psab's IEC 60909 Z-bus kernel, per topology.

    Near-end (close-in) faults and the sensitivity (bus fault at the remote bus, remote breaker
    closed) from the columns of ``Z_bus``; the far-end coordination fault (at the remote end of
    the relay's line with the remote breaker open) from the nodal matrix without that line: the
    line is then a stub fed from ``a`` alone, ``I_F = c/(Z'_aa + z_l)`` and ``V = c − Z'_{·a}·I_F``."""
    topo = [None, *outages]
    nt, nr, nq = len(topo), len(relays), len(pairs)
    y = pg.line_y_pu(net)
    ib = pg.base_current_ka(net.vn_kv)
    L = np.array([r.line for r in relays])
    A = np.array([r.bus for r in relays])
    Rm = np.array([r.remote for r in relays])
    B = np.array([b for _, b in pairs], dtype=int)
    out = {k: np.full((nt, nr), np.nan) for k in ("near", "far", "near_min", "far_min")}
    ip = np.full((nt, nq, 2), np.nan)
    ibk = np.full((nt, nq, 2), np.nan)
    fwd = np.zeros((nt, nq, 2), bool)
    by_primary: dict[int, list[int]] = {}
    for q, (p, _) in enumerate(pairs):
        by_primary.setdefault(p, []).append(q)
    for t, ol in enumerate(topo):
        live = L != ol if ol is not None else np.ones(nr, bool)
        for cond, src, c in (("max", sources_max, c_max), ("min", sources_min, c_min)):
            Y = pg.admittance(net, src, c, c_max, ol)
            If, V = pg.bus_fault_voltages(Y, c)
            near = np.abs(If[A] - V[Rm, A] * y[L]) * ib[A]
            near = np.where(near > ZERO_KA, near, 0.0)
            key = "" if cond == "max" else "_min"
            out["near" + key][t] = np.where(live, near, np.nan)
            if cond == "min":
                sens = np.abs(V[A, Rm] * y[L]) * ib[A]
                out["far_min"][t] = np.where(live & (sens > ZERO_KA), sens, np.where(live, 0.0, np.nan))
                continue
            # far-end faults with the remote breaker open: one matrix per line, both ends
            far = np.full(nr, np.nan)
            vfar: dict[int, np.ndarray] = {}
            for line in sorted(set(L[live].tolist())):
                Yl = Y.copy()
                f_, t_ = net.line_from[line], net.line_to[line]
                Yl[f_, f_] -= y[line]
                Yl[t_, t_] -= y[line]
                Yl[f_, t_] += y[line]
                Yl[t_, f_] += y[line]
                # a bus left without a source (the stub's island) must not make Y' singular: a
                # 1e-9 pu shunt there gives it ~zero fault current (far below 1 mA)
                Yl[np.diag_indices_from(Yl)] += 1e-9
                ends = [r for r in range(nr) if L[r] == line]
                E = np.zeros((net.n_bus, len(ends)), dtype=complex)
                for j, r in enumerate(ends):
                    E[A[r], j] = 1.0
                Zc = np.linalg.solve(Yl, E)
                for j, r in enumerate(ends):
                    i_f = c / (Zc[A[r], j] + 1.0 / y[line])
                    far[r] = abs(i_f) * ib[A[r]]
                    vfar[r] = c - Zc[:, j] * i_f
            far = np.where(far > ZERO_KA, far, 0.0)
            out["far"][t] = np.where(live, far, np.nan)
            for p in range(nr):
                qs = by_primary.get(p, [])
                if not qs or not live[p]:
                    continue
                qs_ = np.array(qs)
                kb, lb = A[B[qs_]], L[B[qs_]]
                a = A[p]
                ok = live[B[qs_]]
                # near-end: the bus fault at a
                cur0 = (V[kb, a] - V[a, a]) * y[lb]
                # far-end: the stub fault of p's line
                vf = vfar[p]
                cur1 = (vf[kb] - vf[a]) * y[lb]
                for phi, cur, vk, i_p in ((0, cur0, V[kb, a], near[p]), (1, cur1, vf[kb], far[p])):
                    mag = np.abs(cur) * ib[kb]
                    ip[t, qs_, phi] = np.where(ok, i_p, np.nan)
                    ibk[t, qs_, phi] = np.where(ok, np.where(mag > ZERO_KA, mag, 0.0), np.nan)
                    fwd[t, qs_, phi] = ok & (mag > ZERO_KA) & (np.real(vk * np.conj(cur)) > 0)
    return Currents(out["near"], out["far"], out["near_min"], out["far_min"], ip, ibk, fwd)


# ------------------------------------------------------------------ the criteria


@dataclass(frozen=True)
class Settings:
    """The stated settings rules."""

    curve: InverseCurve
    pickups_a: np.ndarray
    tms_min: float
    tms_max: float
    cti_s: float
    k_load: float
    k_fault: float
    objective_points: tuple[int, ...]  # indices into FAULT_POINTS
    coordination_points: tuple[int, ...]


SLACK_S = 1e-3  # a pair is selective when t_b − t_p ≥ CTI − 1 ms


def settings_of(inp: dict[str, Any]) -> Settings:
    return Settings(curve=IEC_CURVES[inp["curve"]], pickups_a=np.array(inp["pickup_grid_a"], float),
                    tms_min=float(inp["tms_min"]), tms_max=float(inp["tms_max"]), cti_s=float(inp["cti_s"]),
                    k_load=float(inp["pickup_over_max_load"]), k_fault=float(inp["min_fault_over_pickup"]),
                    objective_points=tuple(FAULT_POINTS.index(x) for x in inp["objective_fault_points"]),
                    coordination_points=tuple(FAULT_POINTS.index(x) for x in inp["coordination_fault_points"]))


def op_time(current_ka: np.ndarray, pickup_a: np.ndarray, tms: np.ndarray, curve: InverseCurve) -> np.ndarray:
    """IEC 60255-151 operating time (s), ``inf`` where the relay does not operate (I ≤ I_p,
    or no current)."""
    m = np.where(np.isfinite(current_ka), current_ka * 1000.0 / pickup_a, 0.0)
    return tms * time_factors(m, curve)


@dataclass
class Analysis:
    i_load_max_a: np.ndarray
    i_fault_min_ka: np.ndarray
    i_fault_max_ka: np.ndarray


def analysis_of(cur: Currents, load_a: np.ndarray) -> Analysis:
    """Per relay: the largest load current over the study cases and topologies; the smallest
    non-zero far-end fault current at the minimum condition over the topologies (the smallest
    non-zero near-end one where the far-end current is zero in every topology: a relay with no
    infeed of its own behind it); the largest near-end fault current at the maximum condition."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fm = np.nanmin(np.where(cur.far_min > 0, cur.far_min, np.nan), axis=0)
        nm = np.nanmin(np.where(cur.near_min > 0, cur.near_min, np.nan), axis=0)
        return Analysis(np.nanmax(load_a, axis=0), np.where(np.isfinite(fm), fm, nm), np.nanmax(cur.near, axis=0))


def allowed_choices(s: Settings, an: Analysis, cur: Currents) -> list[np.ndarray]:
    """Per relay, the indices of the grid pickups that meet the pickup rules (≥ k_load·I_load,
    ≤ I_fault_min/k_fault) and at which it operates at its base-topology objective points."""
    out = []
    for r in range(len(an.i_load_max_a)):
        lo = s.k_load * an.i_load_max_a[r]
        hi = an.i_fault_min_ka[r] * 1000.0 / s.k_fault
        ok = (s.pickups_a >= lo * (1 - 1e-12)) & (s.pickups_a <= hi * (1 + 1e-12))
        for phi in s.objective_points:
            i = (cur.near if phi == 0 else cur.far)[0, r]
            if i > 0:
                ok &= s.pickups_a < i * 1000.0
        out.append(np.flatnonzero(ok))
    return out


def objective_s(s: Settings, cur: Currents, pickup_a: np.ndarray, tms: np.ndarray) -> float:
    tot = 0.0
    for phi in s.objective_points:
        i = (cur.near if phi == 0 else cur.far)[0]
        t = op_time(i, pickup_a, tms, s.curve)
        tot += float(np.sum(np.where(i > 0, t, 0.0)))
    return tot


@dataclass
class Miscoordination:
    topology: int
    point: int
    pair: int
    t_primary_s: float
    t_backup_s: float


def miscoordinations(s: Settings, cur: Currents, pairs: list[tuple[int, int]], pickup_a: np.ndarray,
                     tms: np.ndarray) -> list[Miscoordination]:
    """Every (topology, fault point, pair) where both relays operate and ``t_b − t_p < CTI − 1 ms``."""
    if not pairs:
        return []
    P = np.array([p for p, _ in pairs])
    B = np.array([b for _, b in pairs])
    out = []
    for phi in s.coordination_points:
        tp = op_time(cur.pair_ip[:, :, phi], pickup_a[P][None, :], tms[P][None, :], s.curve)
        tb = op_time(cur.pair_ib[:, :, phi], pickup_a[B][None, :], tms[B][None, :], s.curve)
        tb = np.where(cur.pair_fwd[:, :, phi], tb, np.inf)
        both = np.isfinite(tp) & np.isfinite(tb)
        with np.errstate(invalid="ignore"):
            bad = both & (np.where(both, tb - tp, np.inf) < s.cti_s - SLACK_S)
        for t, q in zip(*np.nonzero(bad), strict=True):
            out.append(Miscoordination(int(t), phi, int(q), float(tp[t, q]), float(tb[t, q])))
    return out


# ------------------------------------------------------------------ the reference MILP


@dataclass
class MilpResult:
    pickup_idx: np.ndarray
    tms: np.ndarray
    objective_s: float
    bound_s: float
    gap: float
    proven: bool
    n_binary: int
    n_rows: int
    time_s: float
    info: dict[str, Any] = field(default_factory=dict)


def pareto_rows(cur: Currents, s: Settings, q: int) -> list[tuple[float, float]]:
    """The (I_primary, I_backup) points of pair ``q`` over topologies and coordination points
    at which it may constrain (backup forward, both lines in), pruned to the Pareto front of
    (small I_p, large I_b): another point with I_p' ≤ I_p and I_b' ≥ I_b makes a point
    redundant (t is decreasing in I, so its constraint implies this one's, exemptions included)."""
    pts = []
    for phi in s.coordination_points:
        ip, ib, fw = cur.pair_ip[:, q, phi], cur.pair_ib[:, q, phi], cur.pair_fwd[:, q, phi]
        for t in range(ip.shape[0]):
            if np.isfinite(ip[t]) and np.isfinite(ib[t]) and fw[t] and ip[t] > 0 and ib[t] > 0:
                pts.append((float(ip[t]), float(ib[t])))
    pts.sort(key=lambda x: (x[0], -x[1]))
    front: list[tuple[float, float]] = []
    best_ib = -math.inf
    for ip_, ib_ in pts:  # ascending I_p: keep a point only if its I_b beats every smaller I_p's
        if ib_ > best_ib:
            front.append((ip_, ib_))
            best_ib = ib_
    return front


def solve_milp(s: Settings, cur: Currents, pairs: list[tuple[int, int]], allowed: list[np.ndarray], *,
               fixed_pickup: np.ndarray | None = None, time_limit_s: float = 120.0, threads: int = 1) -> MilpResult:
    """min Σ_r Σ_φ t_r(φ, base) over binary pickup choices z_rk and per-choice TMS T_rk:

    ``Σ_k z_rk = 1``, ``tms_min·z_rk ≤ T_rk ≤ tms_max·z_rk``; the operating time of ``r`` at a
    current ``I`` is then exactly ``Σ_k f(I/I_pk)·T_rk`` (one term non-zero) — linear; per pair
    and (topology, point) on its Pareto front:
    ``Σ_m [op_bm ? f_bm·T_bm : M·z_bm] − Σ_k [op_pk ? f_pk·T_pk : −M·z_pk] ≥ CTI``, where a
    choice at which a relay does not operate there (I ≤ I_p) exempts the pair by ``M = CTI +
    tms_max·max f_p``. Exact (no approximation); HiGHS proves optimality (relative gap 1e-9).
    ``fixed_pickup`` (one grid index per relay) turns it into the LP over TMS alone."""
    import time

    import highspy

    from psab.solvers.core import _new_highs

    t0 = time.perf_counter()
    nr = len(allowed)
    if fixed_pickup is not None:
        allowed = [np.array([int(fixed_pickup[r])]) for r in range(nr)]
    col_of: list[dict[int, int]] = []
    n = 0
    for r in range(nr):
        d = {}
        for k in allowed[r]:
            d[int(k)] = n
            n += 1
        col_of.append(d)
    nz = n  # z columns 0..n-1, T columns n..2n-1
    cost = np.zeros(2 * n)
    for r in range(nr):
        for k, j in col_of[r].items():
            for phi in s.objective_points:
                i = (cur.near if phi == 0 else cur.far)[0, r]
                if i <= 0:
                    continue
                cost[nz + j] += float(time_factors(np.array([i * 1000.0 / s.pickups_a[k]]), s.curve)[0])
    starts, idx, val, lo, hi = [], [], [], [], []

    def row(cols: list[int], coefs: list[float], lo_: float, hi_: float) -> None:
        starts.append(len(idx))
        idx.extend(cols)
        val.extend(coefs)
        lo.append(lo_)
        hi.append(hi_)

    inf = highspy.kHighsInf
    for r in range(nr):
        js = list(col_of[r].values())
        row(js, [1.0] * len(js), 1.0, 1.0)
        for j in js:
            row([nz + j, j], [1.0, -s.tms_max], -inf, 0.0)
            row([nz + j, j], [1.0, -s.tms_min], 0.0, inf)
    n_pair_rows = 0
    for q, (p, b) in enumerate(pairs):
        for ip, ib in pareto_rows(cur, s, q):
            fp = {k: float(time_factors(np.array([ip * 1000.0 / s.pickups_a[k]]), s.curve)[0]) for k in col_of[p]}
            fb = {k: float(time_factors(np.array([ib * 1000.0 / s.pickups_a[k]]), s.curve)[0]) for k in col_of[b]}
            if all(not math.isfinite(v) for v in fb.values()) or all(not math.isfinite(v) for v in fp.values()):
                continue  # never both operate: no constraint
            big = s.cti_s + s.tms_max * max(v for v in fp.values() if math.isfinite(v))
            cols, coefs = [], []
            for k, j in col_of[b].items():
                if math.isfinite(fb[k]):
                    cols.append(nz + j)
                    coefs.append(fb[k])
                else:
                    cols.append(j)
                    coefs.append(big)
            for k, j in col_of[p].items():
                if math.isfinite(fp[k]):
                    cols.append(nz + j)
                    coefs.append(-fp[k])
                else:
                    cols.append(j)
                    coefs.append(big)
            row(cols, coefs, s.cti_s, inf)
            n_pair_rows += 1
    lp = highspy.HighsLp()
    lp.num_col_ = 2 * n
    lp.num_row_ = len(lo)
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(2 * n)
    lp.col_upper_ = np.concatenate([np.ones(n), np.full(n, s.tms_max)])
    lp.row_lower_ = np.array(lo)
    lp.row_upper_ = np.array(hi)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.array([*starts, len(idx)], dtype=np.int32)
    lp.a_matrix_.index_ = np.array(idx, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(val, dtype=float)
    binary = fixed_pickup is None
    if binary:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * n + [highspy.HighsVarType.kContinuous] * n
    # psab's one HiGHS constructor (no banner on stdout) and psab's one thread count: HiGHS's
    # scheduler is global to the process, and a run asking another count than the first one
    # fails with status "Not Set" (seen when this study's tests follow another HiGHS user's).
    h = _new_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("time_limit", float(time_limit_s))
    h.setOptionValue("random_seed", 0)
    h.setOptionValue("mip_rel_gap", 1e-9)
    h.setOptionValue("mip_abs_gap", 1e-9)
    h.setOptionValue("primal_feasibility_tolerance", 1e-9)
    h.setOptionValue("mip_feasibility_tolerance", 1e-9)
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    ok = status == highspy.HighsModelStatus.kOptimal
    has_sol = info.primal_solution_status == 2
    if not has_sol:
        return MilpResult(np.full(nr, -1), np.full(nr, math.nan), math.nan,
                          float(info.mip_dual_bound) if binary else math.nan, math.inf, False, n if binary else 0,
                          len(lo), time.perf_counter() - t0, {"status": h.modelStatusToString(status)})
    x = np.asarray(h.getSolution().col_value)
    pick = np.full(nr, -1)
    tms = np.zeros(nr)
    for r in range(nr):
        best = max(col_of[r].items(), key=lambda kj: x[kj[1]])
        pick[r] = best[0]
        tms[r] = x[nz + best[1]]
    obj = float(info.objective_function_value)
    bound = float(info.mip_dual_bound) if binary else obj
    gap = float(info.mip_gap) if binary else 0.0
    return MilpResult(pick, tms, obj, bound, gap, ok, n if binary else 0, len(lo), time.perf_counter() - t0,
                      {"status": h.modelStatusToString(status), "pair_rows": n_pair_rows})
