"""The physics of the protection coordination study: a SimBench HV grid's fault network
(IEC 60909-0, by the bus impedance matrix, every single-line outage) and its load flows.

The network is the grid's own SimBench CSV folder (written by :mod:`psab.studies._simbench_grid`,
read back with ``simbench.csv2pp``). psab derives from it:

- **fault currents** (the ``surrogate`` engine): the equivalent voltage source ``c·U_n/√3`` at
  the fault (IEC 60909-0:2016 §5.1; ``c_max``/``c_min`` of Table 1), loads, line capacitances,
  transformer magnetising branches and static generators neglected (§5.3.1; static generators
  by the study's stated convention), lines by ``R + jX`` of Line.csv × length, two-winding
  transformers by ``u_kr``/``u_Rr`` at rated ratio with ``K_T = 0.95·c_max/(1 + 0.6·x_T)``
  (§6.3.3, eq. 12a; for the maximum currents only, as the clause and pandapower apply it),
  each external grid by its network feeder impedance ``Z_Q = c·U_nQ²/S″kQ`` with the stated
  ``R_Q/X_Q`` (§6.2, eq. 1). ``Z_bus = Y⁻¹`` per topology (dense: 64 buses), and for a
  three-phase bus fault at ``f``: ``I″k = c/Z_ff`` and the node voltages
  ``V_k = c·(1 − Z_kf/Z_ff)`` (the superposition of the equivalent source, §5.1), so every
  branch current of every bus fault is ``(V_k − V_m)·y_km`` — the whole of a topology's fault
  currents from one inverse;
- **load currents** (both engines): pandapower's AC power flow (Newton-Raphson) of the grid at
  the listed SimBench study cases, every topology.

Per unit on 100 MVA and each bus's ``vn_kv``; currents in kA unless a name says A.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

S_BASE_MVA = 100.0
_LOCK = threading.RLock()


@dataclass(frozen=True)
class HVNet:
    """A SimBench HV grid as bus-branch arrays (pandapower bus order, compacted)."""

    code: str
    bus_ids: tuple[str, ...]
    vn_kv: np.ndarray
    line_ids: tuple[str, ...]
    line_from: np.ndarray
    line_to: np.ndarray
    line_from_node: tuple[str, ...]  # Line.csv nodeA / nodeB names
    line_to_node: tuple[str, ...]
    line_r_ohm: np.ndarray
    line_x_ohm: np.ndarray
    line_max_i_ka: np.ndarray
    trafo_hv: np.ndarray
    trafo_lv: np.ndarray
    trafo_sn_mva: np.ndarray
    trafo_vk_pct: np.ndarray
    trafo_vkr_pct: np.ndarray
    ext_ids: tuple[str, ...]
    ext_bus: np.ndarray
    pp_bus_index: tuple[int, ...]  # pandapower bus index of each compact bus

    @property
    def n_bus(self) -> int:
        return len(self.bus_ids)

    @property
    def n_line(self) -> int:
        return len(self.line_ids)


@cache
def _pp_net(code: str) -> Any:
    """The grid as pandapower reads its CSV folder (a private copy: callers deep-copy it)."""
    import simbench as sb

    from psab.studies import _simbench_grid

    with _LOCK:
        return sb.csv2pp(str(_simbench_grid.csv_folder(code)))


def pp_net(code: str) -> Any:
    import copy

    return copy.deepcopy(_pp_net(code))


@cache
def hv_net(code: str) -> HVNet:
    """The grid's bus-branch arrays (derived once from its CSV folder, then read from the
    cache ``~/.cache/psab/studies/protection/``, keyed by the folder's digest)."""
    import dataclasses
    import os

    from psab.studies import _simbench_grid

    digest = _simbench_grid.files_digest(_simbench_grid.model_files(code))[:16]
    path = _simbench_grid.cache_root() / "protection" / f"hvnet-{code}-{digest}-v1.npz"
    if path.is_file():
        with np.load(path, allow_pickle=False) as z:
            d = {}
            for f in dataclasses.fields(HVNet):
                v = z[f.name]
                d[f.name] = str(v) if f.name == "code" else tuple(v.tolist()) if f.type.startswith("tuple") else v
            return HVNet(**d)
    out = _derive_hv_net(code)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + f".tmp{os.getpid()}.npz")
    np.savez(tmp, **{f.name: np.asarray(getattr(out, f.name)) for f in dataclasses.fields(HVNet)})
    tmp.replace(path)
    return out


def _derive_hv_net(code: str) -> HVNet:
    """The grid's bus-branch arrays: buses joined by a closed bus-bus switch are one bus (the
    name of the lowest-indexed one kept), open bus-bus switches are open, buses left without a
    line, transformer or external grid dropped."""
    net = _pp_net(code)
    if (net.line.parallel != 1).any() or (~net.line.in_service).any() or (net.line.df != 1).any():
        raise ValueError(f"{code}: parallel, derated or out-of-service lines are not modelled")
    if len(net.trafo3w) or (net.trafo.tap_pos.fillna(0) != net.trafo.tap_neutral.fillna(0)).any():
        raise ValueError(f"{code}: three-winding or off-neutral transformers are not modelled")
    sw = net.switch
    if ((sw.et != "b") & ~sw.closed).any():
        raise ValueError(f"{code}: open line or transformer switches are not modelled")
    parent = {int(b): int(b) for b in net.bus.index}

    def find(b: int) -> int:
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    for _, w in sw[(sw.et == "b") & sw.closed].iterrows():
        a, b = find(int(w.bus)), find(int(w.element))
        parent[max(a, b)] = min(a, b)
    ln, tr, eg = net.line, net.trafo, net.ext_grid
    used = {find(int(b)) for b in [*ln.from_bus, *ln.to_bus, *tr.hv_bus, *tr.lv_bus, *eg.bus]}
    roots = sorted(used)
    pos = {r: i for i, r in enumerate(roots)}

    def ix(b: Any) -> int:
        return pos[find(int(b))]

    return HVNet(
        code=code, bus_ids=tuple(str(net.bus.at[r, "name"]) for r in roots),
        vn_kv=np.array([float(net.bus.at[r, "vn_kv"]) for r in roots]),
        line_ids=tuple(str(x) for x in ln.name), line_from=np.array([ix(b) for b in ln.from_bus]),
        line_to=np.array([ix(b) for b in ln.to_bus]),
        line_from_node=tuple(str(net.bus.at[int(b), "name"]) for b in ln.from_bus),
        line_to_node=tuple(str(net.bus.at[int(b), "name"]) for b in ln.to_bus),
        line_r_ohm=(ln.r_ohm_per_km * ln.length_km).to_numpy(float), line_x_ohm=(ln.x_ohm_per_km * ln.length_km).to_numpy(float),
        line_max_i_ka=ln.max_i_ka.to_numpy(float),
        trafo_hv=np.array([ix(b) for b in tr.hv_bus]), trafo_lv=np.array([ix(b) for b in tr.lv_bus]),
        trafo_sn_mva=tr.sn_mva.to_numpy(float), trafo_vk_pct=tr.vk_percent.to_numpy(float),
        trafo_vkr_pct=tr.vkr_percent.to_numpy(float),
        ext_ids=tuple(str(x) for x in eg.name), ext_bus=np.array([ix(b) for b in eg.bus]),
        pp_bus_index=tuple(roots))


def kt_factor(vk_pct: np.ndarray, vkr_pct: np.ndarray, c_max: float) -> np.ndarray:
    """``K_T = 0.95·c_max/(1 + 0.6·x_T)`` (IEC 60909-0:2016 eq. 12a), ``x_T`` = the relative
    reactance on the transformer's own rating."""
    x_t = np.sqrt(np.maximum(vk_pct ** 2 - vkr_pct ** 2, 0.0)) / 100.0
    return 0.95 * c_max / (1.0 + 0.6 * x_t)


@dataclass(frozen=True)
class Sources:
    """Each external grid's short-circuit power (MVA) and R/X for one condition."""

    s_sc_mva: np.ndarray
    rx: np.ndarray


def line_y_pu(net: HVNet) -> np.ndarray:
    zb = net.vn_kv[net.line_from] ** 2 / S_BASE_MVA
    return zb / (net.line_r_ohm + 1j * net.line_x_ohm)


def admittance(net: HVNet, sources: Sources, c: float, c_max: float, out_line: int | None) -> np.ndarray:
    """The fault network's nodal admittance matrix (per unit) with line ``out_line`` open."""
    n = net.n_bus
    Y = np.zeros((n, n), dtype=complex)
    keep = np.ones(net.n_line, bool)
    if out_line is not None:
        keep[out_line] = False
    y = line_y_pu(net)[keep]
    f, t = net.line_from[keep], net.line_to[keep]
    # K_T for the maximum short-circuit currents only (IEC 60909-0:2016 §6.3.3); c < c_max is the
    # minimum condition
    kt = kt_factor(net.trafo_vk_pct, net.trafo_vkr_pct, c_max) if c >= c_max else np.ones(len(net.trafo_sn_mva))
    zt = kt * (net.trafo_vkr_pct + 1j * np.sqrt(np.maximum(net.trafo_vk_pct ** 2 - net.trafo_vkr_pct ** 2, 0.0))) \
        / 100.0 * S_BASE_MVA / net.trafo_sn_mva
    yt = 1.0 / zt
    for a, b, yy in ((f, t, y), (net.trafo_hv, net.trafo_lv, yt)):
        np.add.at(Y, (a, a), yy)
        np.add.at(Y, (b, b), yy)
        np.add.at(Y, (a, b), -yy)
        np.add.at(Y, (b, a), -yy)
    # network feeder: |Z_Q| = c·U_nQ²/S″kQ (IEC 60909-0 eq. 1), per unit c·S_base/S″kQ
    zq_abs = c * S_BASE_MVA / sources.s_sc_mva
    xq = zq_abs / np.sqrt(1.0 + sources.rx ** 2)
    zq = sources.rx * xq + 1j * xq
    np.add.at(Y, (net.ext_bus, net.ext_bus), 1.0 / zq)
    return Y


def bus_fault_voltages(Y: np.ndarray, c: float) -> tuple[np.ndarray, np.ndarray]:
    """``(I_f, V)``: the three-phase bus-fault current at every bus (per unit, complex) and
    ``V[k, f]`` the voltage at bus ``k`` during a fault at ``f`` (per unit, complex)."""
    Z = np.linalg.inv(Y)
    d = np.diag(Z)
    return c / d, c * (1.0 - Z / d[None, :])


def islands_without_source(net: HVNet, out_line: int | None) -> np.ndarray:
    """Per bus, whether it is connected to an external grid with ``out_line`` open (graph
    search over lines and transformers)."""
    import collections

    adj: dict[int, list[int]] = collections.defaultdict(list)
    for k, (a, b) in enumerate(zip(net.line_from, net.line_to, strict=True)):
        if k != out_line:
            adj[int(a)].append(int(b))
            adj[int(b)].append(int(a))
    for a, b in zip(net.trafo_hv, net.trafo_lv, strict=True):
        adj[int(a)].append(int(b))
        adj[int(b)].append(int(a))
    seen = set(int(x) for x in net.ext_bus)
    q = collections.deque(seen)
    while q:
        u = q.popleft()
        for v in adj[u]:
            if v not in seen:
                seen.add(v)
                q.append(v)
    return np.array([i in seen for i in range(net.n_bus)])


def fed_behind(net: HVNet, line: int, end_bus: int, out_line: int | None) -> bool:
    """Whether the relay at ``end_bus`` of ``line`` has a source behind it: ``end_bus`` still
    reaches an external grid with ``line`` (and ``out_line``) open."""
    import collections

    adj: dict[int, list[int]] = collections.defaultdict(list)
    for k, (a, b) in enumerate(zip(net.line_from, net.line_to, strict=True)):
        if k != out_line and k != line:
            adj[int(a)].append(int(b))
            adj[int(b)].append(int(a))
    for a, b in zip(net.trafo_hv, net.trafo_lv, strict=True):
        adj[int(a)].append(int(b))
        adj[int(b)].append(int(a))
    src = set(int(x) for x in net.ext_bus)
    seen = {end_bus}
    q = collections.deque([end_bus])
    while q:
        u = q.popleft()
        if u in src:
            return True
        for v in adj[u]:
            if v not in seen:
                seen.add(v)
                q.append(v)
    return False


def base_current_ka(vn_kv: np.ndarray | float) -> np.ndarray:
    return S_BASE_MVA / (math.sqrt(3.0) * np.asarray(vn_kv, dtype=float))


def apply_study_case(net: Any, case: str) -> None:
    """SimBench's study-case factors (StudyCases.csv) on a pandapower net in place: loads ×
    pload/qload, static generators × Wind_p (type containing 'Wind'), PV_p (containing 'PV')
    or RES_p (every other type), external grids at Slack_vm."""
    lc = net.loadcases
    lc = lc.set_index("Study Case") if "Study Case" in lc.columns else lc
    f = lc.loc[case]
    net.load["p_mw"] = net.load.p_mw * float(f.pload)
    net.load["q_mvar"] = net.load.q_mvar * float(f.qload)
    typ = net.sgen["type"].astype(str)
    fac = np.where(typ.str.contains("Wind"), float(f.Wind_p), np.where(typ.str.contains("PV"), float(f.PV_p), float(f.RES_p)))
    net.sgen["p_mw"] = net.sgen.p_mw * fac
    net.sgen["q_mvar"] = net.sgen.q_mvar * fac
    net.ext_grid["vm_pu"] = float(f.Slack_vm)


@cache
def _lightsim() -> bool:
    try:
        import lightsim2grid  # noqa: F401
    except ImportError:
        return False
    return True


def load_currents_a(code: str, line_idx: np.ndarray, at_from: np.ndarray, outages: list[int],
                    study_cases: list[str]) -> np.ndarray:
    """``I[(case, topology), relay]`` (A): each relay's line current at its end from
    pandapower's AC power flow (Newton-Raphson, tolerance 1e-9 MVA) of the grid at each study
    case, base topology and every outage (NaN where the relay's line is out);
    :class:`ValueError` if a power flow does not converge."""
    import pandapower as pp

    rows = []
    for case in study_cases:
        base = pp_net(code)
        apply_study_case(base, case)
        for ol in [None, *outages]:
            net = base
            if ol is not None:
                net.line.loc[net.line.index[ol], "in_service"] = False
            try:
                pp.runpp(net, algorithm="nr", tolerance_mva=1e-9, max_iteration=30, calculate_voltage_angles=True,
                         init="dc", numba=False, lightsim2grid=False)
            except Exception as exc:  # pandapower's LoadflowNotConverged and numerics
                raise ValueError(f"{code}: AC power flow of study case {case} with line {ol} out does not converge") from exc
            res = net.res_line
            i_f = res.i_from_ka.to_numpy(float)[line_idx]
            i_t = res.i_to_ka.to_numpy(float)[line_idx]
            cur = np.where(at_from, i_f, i_t) * 1000.0
            if ol is not None:
                cur = np.where(line_idx == ol, np.nan, cur)
                net.line.loc[net.line.index[ol], "in_service"] = True
            rows.append(cur)
    return np.array(rows)
