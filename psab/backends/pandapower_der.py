"""pandapower AC power flow with active and reactive injections at chosen buses (distributed
resources such as V2G charging hubs). Builds on :mod:`psab.backends.pandapower_pf`'s prepared
nets (one static generator per injection bus); pandapower is imported lazily."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

from psab.backends import pandapower_net as ppn
from psab.backends import pandapower_pf


def ac_voltages(key: Hashable, network, injection_buses: Sequence[int], p_mw: dict[int, float],  # type: ignore[no-untyped-def]
                q_mvar: dict[int, float]) -> np.ndarray:
    """Complex bus voltages (case bus order) with ``p_mw``/``q_mvar`` injected at the prepared
    sgens; NaN when the flow does not converge. The sgens are reset afterwards."""
    pp = ppn.pandapower()
    prepared = pandapower_pf.prepared_net(key, network, injection_buses=injection_buses)
    net = prepared.net
    with prepared.lock:
        try:
            for bus, sgen in prepared.injection_sgen.items():
                net.sgen.at[sgen, "p_mw"] = float(p_mw.get(bus, 0.0))
                net.sgen.at[sgen, "q_mvar"] = float(q_mvar.get(bus, 0.0))
            try:
                ppn.run_power_flow(net)
            except pp.LoadflowNotConverged:
                return np.full(len(prepared.bus_index), math.nan + 0j)
            res = net.res_bus.loc[prepared.bus_index]
            return res.vm_pu.to_numpy(dtype=float) * np.exp(1j * np.radians(res.va_degree.to_numpy(dtype=float)))
        finally:
            for sgen in prepared.injection_sgen.values():
                net.sgen.at[sgen, "p_mw"] = 0.0
                net.sgen.at[sgen, "q_mvar"] = 0.0
