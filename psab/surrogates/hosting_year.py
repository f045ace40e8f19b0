"""Hosting-capacity criteria over a year of 15-minute AC power flows on an MV grid (pure numpy).

The network is the MV grid below the HV/MV substation: the MV busbar is the slack, held at its
set-point by the transformers' on-load tap changer; lines are π-models (series r + jx, half the
charging susceptance ωC·l at each end). Loads and generators are constant P, Q.

The criteria, per 15-minute step and element (the study states them with their sources):

- ``voltage_band``: ``vm_min_pu ≤ |V_i| ≤ vm_max_pu`` at every MV bus (SimBench Node.csv vmMin/vmMax);
- ``voltage_rise``: ``|V_i| − |V_i^base| ≤ rise_max_pu`` at every MV bus, ``V^base`` the same step
  without the added generation and without any measure (VDE-AR-N 4110:2018-11 §5.3.2, 2 %);
- ``line_thermal``: ``max(|I_from|, |I_to|) / I_max · 100 ≤ loadingMax`` per line (Line.csv);
- ``trafo_thermal``: the current the MV network draws from (or returns to) the busbar through
  the HV/MV transformers, shared in proportion to their ratings, over their rated current at
  the MV side, ``≤ loadingMax`` (Transformer.csv).

A violation's size is in the criterion's own unit (pu for voltages, percentage points for
loadings); :func:`criteria` returns, per criterion, the worst excess per step and its element.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from psab.surrogates import distribution_pf as dpf

CRITERIA = ("voltage_band", "voltage_rise", "line_thermal", "trafo_thermal")
F_HZ = 50.0


@dataclass(frozen=True)
class MVNetwork:
    """MV buses ``0..n-1`` (``slack`` the busbar), lines in ohm/µS at ``vn_kv``, per-unit on 1 MVA."""

    vn_kv: float
    slack: int
    vm_slack_pu: float
    vm_min_pu: np.ndarray
    vm_max_pu: np.ndarray
    line_from: np.ndarray
    line_to: np.ndarray
    line_r_ohm: np.ndarray
    line_x_ohm: np.ndarray
    line_b_us: np.ndarray
    line_max_i_ka: np.ndarray
    line_max_loading_pct: np.ndarray
    trafo_sn_total_mva: float
    trafo_max_loading_pct: float

    @property
    def n_bus(self) -> int:
        return int(self.vm_min_pu.size)

    def branches(self) -> dpf.Branches:
        zb = self.vn_kv**2  # ohm, on 1 MVA
        y = 1.0 / ((self.line_r_ohm + 1j * self.line_x_ohm) / zb)
        return dpf.Branches(self.line_from, self.line_to, y, 1j * self.line_b_us * 1e-6 * zb)

    def i_base_ka(self) -> float:
        return 1.0 / (np.sqrt(3.0) * self.vn_kv)


@dataclass(frozen=True)
class Flow:
    """``vm`` (n_bus, T) pu; ``line_loading_pct`` (n_line, T); ``trafo_loading_pct`` (T,); ``iterations``."""

    vm: np.ndarray
    line_loading_pct: np.ndarray
    trafo_loading_pct: np.ndarray
    iterations: int


def power_flow(net: MVNetwork, p_mw: np.ndarray, q_mvar: np.ndarray, qu: dpf.QU | None = None,
               linear: bool = False) -> Flow:
    """AC power flow of every column (net injections, generation > 0, MW/Mvar on 1 MVA)."""
    br = net.branches()
    Y = dpf.ybus(net.n_bus, br)
    res = dpf.solve_year(Y, net.slack, complex(net.vm_slack_pu), p_mw + 1j * q_mvar, qu=qu, linear=linear)
    return flow_of(net, res.v, p_mw + 1j * q_mvar, res.q_qu, qu, res.iterations)


def flow_of(net: MVNetwork, v: np.ndarray, s_inj: np.ndarray, q_qu: np.ndarray | None, qu: dpf.QU | None,
            iterations: int = 0) -> Flow:
    """Loadings from bus voltages (any engine's), by the study's rules."""
    br = net.branches()
    i_f, i_t = dpf.branch_currents_pu(br, v)
    line = np.maximum(i_f, i_t) * net.i_base_ka() / net.line_max_i_ka[:, None] * 100.0
    # the busbar's exchange with the transformers: the network's current at the slack minus the
    # busbar's own injections (loads and generators connected at the busbar itself)
    Y = dpf.ybus(net.n_bus, br)
    s_local = s_inj[net.slack].astype(complex)
    if qu is not None and q_qu is not None:
        at = np.flatnonzero(qu.bus == net.slack)
        for k in at:
            s_local = s_local + 1j * q_qu[k]
    i_net = Y[net.slack] @ v
    i_trafo = i_net - np.conj(s_local / v[net.slack])
    trafo = np.abs(i_trafo) / net.trafo_sn_total_mva * 100.0
    return Flow(vm=np.abs(v), line_loading_pct=line, trafo_loading_pct=trafo, iterations=iterations)


@dataclass(frozen=True)
class Criterion:
    """Per step: the largest excess (criterion's unit; ≤ 0 where it holds) and its element index."""

    excess: np.ndarray
    element: np.ndarray


def criteria(net: MVNetwork, flow: Flow, vm_base: np.ndarray, rise_max_pu: float) -> dict[str, Criterion]:
    vm = flow.vm
    band = np.maximum(vm - net.vm_max_pu[:, None], net.vm_min_pu[:, None] - vm)
    band[net.slack] = -np.inf  # the busbar is held at its set-point by the tap changer
    rise = vm - vm_base - rise_max_pu
    rise[net.slack] = -np.inf
    line = flow.line_loading_pct - net.line_max_loading_pct[:, None]
    out = {}
    for name, arr in (("voltage_band", band), ("voltage_rise", rise), ("line_thermal", line)):
        k = np.argmax(arr, axis=0)
        out[name] = Criterion(excess=arr[k, np.arange(arr.shape[1])], element=k)
    out["trafo_thermal"] = Criterion(excess=flow.trafo_loading_pct - net.trafo_max_loading_pct,
                                     element=np.zeros(vm.shape[1], dtype=int))
    return out
