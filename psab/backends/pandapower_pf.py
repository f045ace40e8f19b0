"""pandapower's AC power flow for a compact network (:class:`~psab.surrogates.ac_power_flow.AcNetwork`).

The same network the surrogate Newton-Raphson solves becomes a pandapower net: one bus per
case bus (``vn_kv`` from the case, 110 kV when it has none — the per-unit result does not
depend on it), branches by :func:`psab.backends.pandapower_net.add_branches`, bus shunts by
:func:`~psab.backends.pandapower_net.add_bus_shunt`, and per bus

- a *load* for the constant-power demand,
- an *ext_grid* at the slack (``vm_pu`` = setpoint, ``va_degree`` = slack angle),
- a *gen* at each PV bus (scheduled ``p_mw``, ``vm_pu`` setpoint, reactive limits when given),
- a *sgen* for every fixed injection (``q_gen_mvar`` anywhere, ``p_gen_mw`` at PQ buses) and,
  when asked, one sgen per bus that will carry extra reactive injections (set per evaluation,
  so the prepared net is reused).

Build a net once per task (:func:`prepared_net` keeps it in
:data:`psab.backends.pandapower_net.NETS`). :func:`run` works on the prepared net itself rather
than on a deep copy: it changes only the injection sgens' ``q_mvar`` (restored afterwards) and
pandapower's result tables, under a per-net lock (pandapower is not thread-safe). Measured here,
that saves the deep copy (about a quarter of an evaluation) and gives bit-identical voltages.

:func:`network_from_ppc` goes the other way: it reads a pandapower net's internal MATPOWER-style
case (``net._ppc`` after a power flow) into an :class:`AcNetwork` — used to check the surrogate
against pandapower on the MATPOWER test cases.

Fast path (issue 24): where lightsim2grid is installed (the ``lightsim2grid`` extra), :func:`run`
solves with lightsim2grid's C++ Newton-Raphson on a grid model converted once from the prepared
net, changing only the injection sgens' set-points — pandapower's per-call conversion of the
net (most of a ``runpp``) is skipped. lightsim2grid reads transformers as T models; psab's have
no magnetizing branch (``pfe_kw = i0_percent = 0``), where the T and π models are the same
circuit. Same start (flat), same iteration limit and a tolerance no looser than ``runpp``'s, so
the voltages equal ``runpp``'s to 1e-8 pu (``tests/test_batch.py`` checks it on the public case and
50 generated ones); where lightsim2grid does not converge, or q limits are enforced (PV→PQ
switching, which the fast path does not model), :func:`run` falls back to ``runpp`` itself.
``PSAB_LIGHTSIM2GRID=0`` turns the fast path off.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from psab.backends import pandapower_net as ppn
from psab.surrogates.ac_power_flow import PQ, PV, SLACK, AcNetwork

DEFAULT_VN_KV = 110.0


@dataclass(frozen=True)
class PandapowerFlow:
    """pandapower's solution in the case's bus order."""

    vm_pu: np.ndarray
    va_deg: np.ndarray
    converged: bool


@dataclass
class PreparedNet:
    """A pandapower net for one case and where its elements sit."""

    net: Any
    bus_index: list[int]
    injection_sgen: dict[int, int]
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    #: the lightsim2grid model of ``net`` (built on first use; ``False`` when unavailable)
    fast: Any = field(default=None, repr=False)


#: pandapower's ``runpp`` defaults the fast path matches: at most 10 Newton-Raphson iterations,
#: converged when every bus's power mismatch is below 1e-8 MVA.
MAX_ITERATION = 10
TOLERANCE_MVA = 1e-8


def fast_path_enabled() -> bool:
    """Whether :func:`run` may use lightsim2grid (installed, and not turned off by
    ``PSAB_LIGHTSIM2GRID=0``)."""
    return os.environ.get("PSAB_LIGHTSIM2GRID", "1") != "0" and _lightsim2grid_installed()


@cache
def _lightsim2grid_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("lightsim2grid") is not None


def _fast_model(prepared: PreparedNet) -> Any:
    """The lightsim2grid model of the prepared net (built once), or ``False``."""
    if prepared.fast is None:
        prepared.fast = False
        net = prepared.net
        if list(net.bus.index) == list(range(len(net.bus))) and list(net.sgen.index) == list(range(len(net.sgen))):
            try:
                import warnings

                from lightsim2grid.gridmodel import init_from_pandapower

                ppn.run_power_flow(net, trafo_model="t")  # lightsim2grid converts from a T-model run
                with warnings.catch_warnings():
                    # it notes the sgens' absent q limits (read as 0: sgens are fixed injections)
                    # and the slack taken from the ext_grid — both as intended here
                    warnings.simplefilter("ignore")
                    prepared.fast = init_from_pandapower(net)
            except Exception:  # noqa: BLE001 - an element lightsim2grid cannot take: runpp it is
                prepared.fast = False
    return prepared.fast


def _flat_start(net: Any) -> np.ndarray:
    """pandapower's ``init="flat"``: 1∠0 pu, the generators' voltage set-points, the slack's
    magnitude and angle."""
    V0 = np.ones(len(net.bus), dtype=complex)
    for bus, vm in zip(net.gen.bus[net.gen.in_service], net.gen.vm_pu[net.gen.in_service]):
        V0[int(bus)] = float(vm)
    eg = net.ext_grid[net.ext_grid.in_service]
    for bus, vm, va in zip(eg.bus, eg.vm_pu, eg.va_degree):
        V0[int(bus)] = float(vm) * np.exp(1j * math.radians(float(va)))
    return V0


def _run_fast(prepared: PreparedNet, model: Any, q_injection_mvar: dict[int, float]) -> PandapowerFlow | None:
    """lightsim2grid's Newton-Raphson from a flat start; ``None`` when it does not converge."""
    net = prepared.net
    for bus, q in q_injection_mvar.items():
        model.change_q_sgen(prepared.injection_sgen[int(bus)], float(q))
    try:
        V0 = _flat_start(net)
        V = model.ac_pf(V0, MAX_ITERATION, TOLERANCE_MVA / float(net.sn_mva))
    finally:
        for sgen in prepared.injection_sgen.values():
            model.change_q_sgen(sgen, 0.0)
    if V.size == 0 or not np.all(np.isfinite(V)):
        return None
    v = V[prepared.bus_index]
    return PandapowerFlow(np.abs(v), np.degrees(np.angle(v)), True)


def build_net(network: AcNetwork, *, injection_buses: Sequence[int] = (), f_hz: float = 50.0) -> PreparedNet:
    """A pandapower net for ``network``; ``injection_buses`` get an sgen each (``q_mvar`` 0)
    for reactive injections set later by :func:`run`."""
    pp = ppn.pandapower()
    net = ppn.empty_net(network.base_mva, f_hz)
    n = network.n_bus
    vn = np.full(n, DEFAULT_VN_KV) if network.vn_kv is None else np.asarray(network.vn_kv, float)
    idx = [int(pp.create_bus(net, vn_kv=float(vn[i]), name=f"bus{i}")) for i in range(n)]
    for i in range(n):
        ppn.add_bus_shunt(net, idx[i], float(network.shunt_g_pu[i]), float(network.shunt_b_pu[i]), network.base_mva)
        p_load, q_load = float(network.p_load_mw[i]), float(network.q_load_mvar[i])
        if p_load or q_load:
            pp.create_load(net, idx[i], p_mw=p_load, q_mvar=q_load)
        t = int(network.bus_type[i])
        p_gen, q_gen = float(network.p_gen_mw[i]), float(network.q_gen_mvar[i])
        if t == SLACK:
            pp.create_ext_grid(net, idx[i], vm_pu=float(network.v_set_pu[i]), va_degree=float(network.slack_angle_deg))
            continue
        if t == PV:
            limits = {}
            if network.q_min_mvar is not None and network.q_max_mvar is not None:
                limits = {"min_q_mvar": float(network.q_min_mvar[i]), "max_q_mvar": float(network.q_max_mvar[i])}
            pp.create_gen(net, idx[i], p_mw=p_gen, vm_pu=float(network.v_set_pu[i]), **limits)
            p_gen = 0.0
        if p_gen or q_gen:
            pp.create_sgen(net, idx[i], p_mw=p_gen, q_mvar=q_gen)
    ppn.add_branches(
        net,
        [
            ppn.BranchData(idx[int(f)], idx[int(t)], float(r), float(x), float(b), float(tap), float(sh))
            for f, t, r, x, b, tap, sh in zip(
                network.from_idx, network.to_idx, network.r_pu, network.x_pu, network.b_pu,
                network.tap_ratio, network.phase_shift_deg, strict=True,
            )
        ],
        network.base_mva,
    )
    sgens = {int(b): int(pp.create_sgen(net, idx[int(b)], p_mw=0.0, q_mvar=0.0, name=f"q_injection_{int(b)}")) for b in injection_buses}
    return PreparedNet(net, idx, sgens)


def prepared_net(key: Hashable, network: AcNetwork, *, injection_buses: Sequence[int] = (),
                 f_hz: float = 50.0) -> PreparedNet:
    """The prepared net for ``key`` (built once per process; callers must not mutate it)."""
    return ppn.NETS.get_or_compute(("pandapower_pf", key),
                                   lambda: build_net(network, injection_buses=injection_buses, f_hz=f_hz))


def run(prepared: PreparedNet, *, q_injection_mvar: dict[int, float] | None = None,
        enforce_q_limits: bool = False) -> PandapowerFlow:
    """pandapower's AC Newton-Raphson on ``prepared.net`` with the reactive injections
    ``{bus position: Mvar}`` on the prepared sgens; voltages in case bus order. The sgens are
    reset to zero afterwards, so the prepared net is unchanged for the next caller."""
    pp = ppn.pandapower()
    net = prepared.net
    with prepared.lock:
        if not enforce_q_limits and fast_path_enabled():
            model = _fast_model(prepared)
            if model:
                try:
                    fast = _run_fast(prepared, model, q_injection_mvar or {})
                except Exception:  # noqa: BLE001 - anything lightsim2grid refuses goes to runpp, which judges it
                    fast = None
                if fast is not None:
                    return fast
        try:
            for bus, q in (q_injection_mvar or {}).items():
                net.sgen.at[prepared.injection_sgen[int(bus)], "q_mvar"] = float(q)
            try:
                ppn.run_power_flow(net, enforce_q_lims=enforce_q_limits)
            except pp.LoadflowNotConverged:
                nan = np.full(len(prepared.bus_index), math.nan)
                return PandapowerFlow(nan, nan.copy(), False)
            res = net.res_bus.loc[prepared.bus_index]
            return PandapowerFlow(res.vm_pu.to_numpy(dtype=float, copy=True), res.va_degree.to_numpy(dtype=float, copy=True), True)
        finally:
            for sgen in prepared.injection_sgen.values():
                net.sgen.at[sgen, "q_mvar"] = 0.0


def network_from_ppc(ppc: dict[str, Any]) -> AcNetwork:
    """The :class:`AcNetwork` of a MATPOWER-style case as pandapower builds it
    (``net._ppc`` after ``runpp``: external bus order, per unit on ``baseMVA``).

    Loads are the buses' ``PD``/``QD`` (pandapower folds static generators in there);
    generators' ``PG``/``VG`` give PV and slack data (several at a bus add their ``PG``);
    ``GS``/``BS`` (MW/Mvar at 1 pu) become per-unit shunts; a ``TAP`` of 0 means 1. Columns
    pandapower uses beyond MATPOWER's (branch conductance ``BR_G``, asymmetric impedances)
    must be zero — the π model here has no place for them.
    """
    from pandapower.pypower import idx_brch as B
    from pandapower.pypower import idx_bus as U
    from pandapower.pypower import idx_gen as G

    bus = np.real(np.asarray(ppc["bus"]))
    branch = np.asarray(ppc["branch"])
    gen = np.real(np.asarray(ppc["gen"]))
    base = float(ppc["baseMVA"])
    live = np.real(branch[:, B.BR_STATUS]) > 0
    branch = branch[live]
    extra = [c for c in ("BR_G", "BR_R_ASYM", "BR_X_ASYM", "BR_G_ASYM", "BR_B_ASYM") if hasattr(B, c)]
    for c in extra:
        col = getattr(B, c)
        if col < branch.shape[1] and np.any(np.abs(branch[:, col]) > 0):
            raise ValueError(f"ppc branch column {c} is non-zero: not representable as a plain π model")
    if np.any(np.abs(np.imag(branch[:, [B.BR_R, B.BR_X, B.BR_B, B.TAP, B.SHIFT]])) > 0):
        raise ValueError("ppc branch parameters are complex: not representable as a plain π model")
    branch = np.real(branch)
    n = len(bus)
    types = bus[:, U.BUS_TYPE].astype(int)
    if np.any(~np.isin(types, (PQ, PV, SLACK))):
        raise ValueError("isolated buses (type 4) are not supported")
    p_gen = np.zeros(n)
    v_set = np.where(types == PQ, 1.0, bus[:, U.VM])
    q_min = np.full(n, -np.inf)
    q_max = np.full(n, np.inf)
    seen: set[int] = set()
    for g in gen[gen[:, G.GEN_STATUS] > 0]:
        b = int(g[G.GEN_BUS])
        p_gen[b] += g[G.PG]
        if b not in seen:
            v_set[b] = g[G.VG]
            q_min[b] = q_max[b] = 0.0
            seen.add(b)
        q_min[b] += g[G.QMIN]
        q_max[b] += g[G.QMAX]
    slack = int(np.flatnonzero(types == SLACK)[0])
    tap = branch[:, B.TAP].copy()
    tap[tap == 0] = 1.0
    return AcNetwork(
        base_mva=base, bus_type=types,
        p_load_mw=bus[:, U.PD].copy(), q_load_mvar=bus[:, U.QD].copy(),
        p_gen_mw=p_gen, q_gen_mvar=np.zeros(n), v_set_pu=v_set,
        shunt_g_pu=bus[:, U.GS] / base, shunt_b_pu=bus[:, U.BS] / base,
        from_idx=branch[:, B.F_BUS].astype(int), to_idx=branch[:, B.T_BUS].astype(int),
        r_pu=branch[:, B.BR_R].copy(), x_pu=branch[:, B.BR_X].copy(), b_pu=branch[:, B.BR_B].copy(),
        tap_ratio=tap, phase_shift_deg=branch[:, B.SHIFT].copy(),
        slack_angle_deg=float(bus[slack, U.VA]),
        q_min_mvar=q_min, q_max_mvar=q_max,
        vn_kv=bus[:, U.BASE_KV].copy(),
    )
