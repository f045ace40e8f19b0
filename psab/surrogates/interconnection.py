"""The physics of an interconnection (system impact) study on a MATPOWER case: the network at
a stated dispatch with a new plant at its point of connection, AC branch loadings at either
end, bus voltages, single-branch outages, and the IEC 60909 fault network — numpy only.

Conventions (the study's statement repeats them):

- **Network**: MATPOWER's π branch model (series ``r + jx``, total charging ``b``, off-nominal
  tap ``τ`` and shift on the from side, ``τ = 0`` meaning 1), bus shunts ``Gs + jBs`` (MW, Mvar
  at 1 pu), constant-power loads ``Pd + jQd`` (Zimmerman & Murillo-Sánchez, *MATPOWER User's
  Manual* 7.1, §3.2 eqs. 3.1–3.4 and Appendix B).
- **Buses**: a bus with an in-service generator is PV at its generator's voltage setpoint, the
  file's type-3 bus is the slack, every other bus PQ; generator reactive limits not enforced.
- **Dispatch**: every in-service generator at its stated output; the new plant's output is
  balanced by the stated units by the given weights (the study: pro rata to their base
  output); the slack takes the losses.
- **New plant**: a constant ``P + jQ`` injection at the point of connection (``Q`` = the stated
  Mvar per MW times ``P``).
- **Branch loading**: ``100·max(|S_from|, |S_to|)/rate_a`` with ``S`` the complex power entering
  the branch at each end (MVA).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from psab.surrogates import matpower_file as mp
from psab.surrogates.ac_power_flow import PQ, PV, SLACK, AcNetwork
from psab.surrogates.iec60909_network import Machine, transformer_correction_factor


@dataclass(frozen=True)
class Grid:
    """A MATPOWER case at a stated dispatch, in arrays (index = row of the file's tables)."""

    name: str
    base_mva: float
    bus_ids: tuple[str, ...]
    vn_kv: np.ndarray
    vmin_pu: np.ndarray
    vmax_pu: np.ndarray
    p_load_mw: np.ndarray
    q_load_mvar: np.ndarray
    gs_mw: np.ndarray
    bs_mvar: np.ndarray
    slack: int
    branch_ids: tuple[str, ...]
    f: np.ndarray
    t: np.ndarray
    r_pu: np.ndarray
    x_pu: np.ndarray
    b_pu: np.ndarray
    tap: np.ndarray
    shift_deg: np.ndarray
    rate_a_mva: np.ndarray
    is_transformer: np.ndarray
    gen_ids: tuple[str, ...]
    gen_bus: np.ndarray
    gen_on: np.ndarray
    gen_pmax_mw: np.ndarray
    gen_pmin_mw: np.ndarray
    gen_qmax_mvar: np.ndarray
    gen_qmin_mvar: np.ndarray
    gen_p_mw: np.ndarray
    gen_vm_pu: np.ndarray

    @property
    def n_bus(self) -> int:
        return len(self.bus_ids)

    @property
    def n_branch(self) -> int:
        return len(self.branch_ids)

    def bus_index(self) -> dict[str, int]:
        return {b: i for i, b in enumerate(self.bus_ids)}

    def branch_index(self) -> dict[str, int]:
        return {b: i for i, b in enumerate(self.branch_ids)}

    def gen_index(self) -> dict[str, int]:
        return {g: i for i, g in enumerate(self.gen_ids)}


def read_dispatch_csv(text: str) -> dict[str, tuple[int, float, float]]:
    """``gen,bus,status,p_mw,vm_pu`` rows → gen id → (status, p_mw, vm_pu)."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines or lines[0].split(",") != ["gen", "bus", "status", "p_mw", "vm_pu"]:
        raise ValueError("a dispatch file starts with the header gen,bus,status,p_mw,vm_pu")
    out = {}
    for ln in lines[1:]:
        g, _bus, st, p, vm = ln.split(",")
        out[g] = (int(st), float(p), float(vm))
    return out


def grid_from_case(case: mp.MatpowerCase, dispatch: dict[str, tuple[int, float, float]]) -> Grid:
    """The case at the dispatch: generator ``k`` (1-based row of ``mpc.gen``) at ``p_mw`` and
    ``vm_pu``, in service when both the file and the dispatch say so."""
    idx = case.bus_index()
    bus = case.bus
    br = case.branch[case.branch[:, mp.BR_STATUS] > 0]
    rows = np.flatnonzero(case.branch[:, mp.BR_STATUS] > 0)
    gen = case.gen
    n_gen = len(gen)
    gen_ids = tuple(str(k + 1) for k in range(n_gen))
    missing = [g for g in gen_ids if g not in dispatch]
    if missing:
        raise ValueError(f"the dispatch has no row for generator(s) {missing[:5]}")
    on = np.array([gen[k, mp.GEN_STATUS] > 0 and dispatch[g][0] > 0 for k, g in enumerate(gen_ids)])
    tap = br[:, mp.TAP].copy()
    is_tr = ~((tap == 0) | (tap == 1)) | (br[:, mp.SHIFT] != 0)
    tap[tap == 0] = 1.0
    slack = np.flatnonzero(bus[:, mp.BUS_TYPE] == 3)
    if len(slack) != 1:
        raise ValueError("the case needs exactly one type-3 (slack) bus")
    return Grid(
        name=case.name, base_mva=case.base_mva,
        bus_ids=tuple(str(int(b)) for b in bus[:, mp.BUS_I]),
        vn_kv=bus[:, mp.BASE_KV].copy(), vmin_pu=bus[:, mp.VMIN].copy(), vmax_pu=bus[:, mp.VMAX].copy(),
        p_load_mw=bus[:, mp.PD].copy(), q_load_mvar=bus[:, mp.QD].copy(),
        gs_mw=bus[:, mp.GS].copy(), bs_mvar=bus[:, mp.BS].copy(), slack=int(slack[0]),
        branch_ids=tuple(str(int(r) + 1) for r in rows),
        f=np.array([idx[int(v)] for v in br[:, mp.F_BUS]]), t=np.array([idx[int(v)] for v in br[:, mp.T_BUS]]),
        r_pu=br[:, mp.BR_R].copy(), x_pu=br[:, mp.BR_X].copy(), b_pu=br[:, mp.BR_B].copy(),
        tap=tap, shift_deg=br[:, mp.SHIFT].copy(), rate_a_mva=br[:, mp.RATE_A].copy(), is_transformer=is_tr,
        gen_ids=gen_ids, gen_bus=np.array([idx[int(v)] for v in gen[:, mp.GEN_BUS]]), gen_on=on,
        gen_pmax_mw=gen[:, mp.PMAX].copy(), gen_pmin_mw=gen[:, mp.PMIN].copy(),
        gen_qmax_mvar=gen[:, mp.QMAX].copy(), gen_qmin_mvar=gen[:, mp.QMIN].copy(),
        gen_p_mw=np.array([dispatch[g][1] if on[k] else 0.0 for k, g in enumerate(gen_ids)]),
        gen_vm_pu=np.array([dispatch[g][2] for g in gen_ids]),
    )


@dataclass(frozen=True)
class Plant:
    """The new plant: point of connection (bus index), reactive injection per MW, and its
    machine data for faults (S_rG, x″d on S_rG, R/X, cos φ_rG)."""

    poc: int
    q_mvar_per_mw: float
    sn_mva: float
    xdss_pu: float
    r_over_x: float
    cos_phi: float


def ac_network(grid: Grid, *, plant: Plant | None = None, plant_p_mw: float = 0.0, sink_weights: np.ndarray | None = None,
               out_branch: int | None = None, shunt_mvar: np.ndarray | None = None) -> AcNetwork:
    """The AC network of the study: the grid at its dispatch, the plant injecting
    ``plant_p_mw`` at its POC balanced by the sink units (``sink_weights`` per generator, summing
    to 1: each unit gives up ``plant_p_mw·w``), branch ``out_branch`` out of service, and extra
    bus shunts ``shunt_mvar`` (Mvar at 1 pu, capacitive positive)."""
    n = grid.n_bus
    on = grid.gen_on
    p_gen_unit = grid.gen_p_mw.copy()
    if plant is not None and plant_p_mw and sink_weights is not None:
        p_gen_unit = p_gen_unit - plant_p_mw * np.asarray(sink_weights, float)
    p_gen = np.zeros(n)
    np.add.at(p_gen, grid.gen_bus[on], p_gen_unit[on])
    q_gen = np.zeros(n)
    types = np.full(n, PQ)
    v_set = np.ones(n)
    has_gen = np.zeros(n, bool)
    has_gen[grid.gen_bus[on]] = True
    types[has_gen] = PV
    types[grid.slack] = SLACK
    # the first in-service generator's setpoint at each bus (MATPOWER's rule)
    for k in np.flatnonzero(on)[::-1]:
        v_set[grid.gen_bus[k]] = grid.gen_vm_pu[k]
    if plant is not None and plant_p_mw:
        p_gen[plant.poc] += plant_p_mw
        q_gen[plant.poc] += plant_p_mw * plant.q_mvar_per_mw
    bs = grid.bs_mvar.copy()
    if shunt_mvar is not None:
        bs = bs + np.asarray(shunt_mvar, float)
    keep = np.ones(grid.n_branch, bool)
    if out_branch is not None:
        keep[out_branch] = False
    base = grid.base_mva
    return AcNetwork(
        base_mva=base, bus_type=types, p_load_mw=grid.p_load_mw, q_load_mvar=grid.q_load_mvar,
        p_gen_mw=p_gen, q_gen_mvar=q_gen, v_set_pu=v_set, shunt_g_pu=grid.gs_mw / base, shunt_b_pu=bs / base,
        from_idx=grid.f[keep], to_idx=grid.t[keep], r_pu=grid.r_pu[keep], x_pu=grid.x_pu[keep], b_pu=grid.b_pu[keep],
        tap_ratio=grid.tap[keep], phase_shift_deg=grid.shift_deg[keep], vn_kv=grid.vn_kv,
    )


def branch_end_powers_mva(grid: Grid, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(S_from, S_to)`` (complex MVA entering every branch at each end) at voltages ``V``
    by the π model with the tap on the from side (MATPOWER Manual eqs. 3.2–3.3)."""
    ys = 1.0 / (grid.r_pu + 1j * grid.x_pu)
    a = grid.tap * np.exp(1j * np.deg2rad(grid.shift_deg))
    bc = 0.5j * grid.b_pu
    vf, vt = V[grid.f], V[grid.t]
    i_f = (ys + bc) / (a * np.conj(a)) * vf - ys / np.conj(a) * vt
    i_t = -ys / a * vf + (ys + bc) * vt
    return vf * np.conj(i_f) * grid.base_mva, vt * np.conj(i_t) * grid.base_mva


def loading_pct(grid: Grid, V: np.ndarray, rate_mva: np.ndarray | None = None, out_branch: int | None = None) -> np.ndarray:
    """``100·max(|S_from|, |S_to|)/rate`` per branch (NaN for the branch out of service)."""
    sf, st = branch_end_powers_mva(grid, V)
    rate = grid.rate_a_mva if rate_mva is None else rate_mva
    out = 100.0 * np.maximum(np.abs(sf), np.abs(st)) / rate
    if out_branch is not None:
        out[out_branch] = np.nan
    return out


def islanding_branches(grid: Grid) -> set[int]:
    """Branches whose single outage splits the network: the bridges of the bus multigraph
    (Tarjan's low-link, iterative; a parallel circuit is never a bridge), plus every branch of a
    network already split."""
    n = grid.n_bus
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for k, (a, b) in enumerate(zip(grid.f.tolist(), grid.t.tolist(), strict=True)):
        adj[a].append((b, k))
        adj[b].append((a, k))
    disc = [-1] * n
    low = [0] * n
    bridges: set[int] = set()
    timer = 0
    roots = 0
    for root in range(n):
        if disc[root] >= 0:
            continue
        roots += 1
        disc[root] = low[root] = timer
        timer += 1
        stack = [(root, -1, iter(adj[root]))]
        while stack:
            u, via, it = stack[-1]
            advanced = False
            for v, k in it:
                if k == via:
                    continue
                if disc[v] < 0:
                    disc[v] = low[v] = timer
                    timer += 1
                    stack.append((v, k, iter(adj[v])))
                    advanced = True
                    break
                low[u] = min(low[u], disc[v])
            if advanced:
                continue
            stack.pop()
            if stack:
                p = stack[-1][0]
                low[p] = min(low[p], low[u])
                if low[u] > disc[p]:
                    bridges.add(via)
    if roots > 1:
        return set(range(grid.n_branch))
    return bridges


# ------------------------------------------------------------------ fault network


def machine_rating_mva(pmax_mw: float, qmax_mvar: float, qmin_mvar: float) -> float:
    """The study's S_rG of a case generator: ``hypot(Pmax, max(|Qmax|, |Qmin|))``, at least 1 MVA
    (MATPOWER files carry no machine ratings; the capability corner stands for it)."""
    return max(1.0, math.hypot(pmax_mw, max(abs(qmax_mvar), abs(qmin_mvar))))


def case_machines(grid: Grid, xdss_pu: float, cos_phi: float, r_over_x: float) -> list[Machine]:
    """Every in-service generator as a synchronous machine at its bus."""
    return [Machine(int(grid.gen_bus[k]), machine_rating_mva(grid.gen_pmax_mw[k], grid.gen_qmax_mvar[k], grid.gen_qmin_mvar[k]),
                    xdss_pu, r_over_x, cos_phi) for k in np.flatnonzero(grid.gen_on)]


def branch_kt(grid: Grid, c_max: float) -> np.ndarray:
    """K_T for transformers (tap not 0 or 1, or a phase shift), ``x_T = |x|·rate_a/baseMVA``
    (S_rT = rate_a); 1 for lines."""
    x_own = np.abs(grid.x_pu) * grid.rate_a_mva / grid.base_mva
    kt = np.array([transformer_correction_factor(x, c_max) for x in x_own])
    return np.where(grid.is_transformer, kt, 1.0)
