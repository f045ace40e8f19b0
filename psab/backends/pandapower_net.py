"""The pandapower adapter: compact case → ``pandapowerNet``, and pandapower's own results.

Imported only when a pandapower evaluation runs. Costs measured here (performance-notes.md):
``import pandapower`` about 2 s once per process; ``create_empty_network()`` about 180 ms but a
deep copy of a prepared net about 18 ms — so empty nets are deep copies of one template, and
a task's net is built once (:data:`NETS`) and reused (deep-copied by callers that mutate it).
Power flows run with ``numba=False`` (numba would compile in every short-lived process) and a
flat start.

Branch mapping (π-model, tap on the from side, as :mod:`psab.surrogates.ybus`):

- a branch with unit ratio and no phase shift is a pandapower *line* of length 1 km with
  ``r, x`` in ohm and the charging as ``c_nf_per_km`` on the bus's nominal voltage;
- any other branch (off-nominal ratio, phase shift, or two voltage levels) is a two-winding
  *transformer* (``trafo_model="pi"``) with ``vk``/``vkr``
  from ``r, x``, the ratio as one tap step on the HV (from) side and the phase shift as
  ``shift_degree``; its line charging, which pandapower's magnetizing branch cannot carry
  (it is always inductive), is added as the equivalent bus shunts ``jb/2/τ²`` and ``jb/2``.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from psab.evaluators.cache import LRUCache

_TEMPLATE: Any = None

#: Prepared nets per task digest; callers deep-copy before mutating.
NETS = LRUCache(maxsize=64)


def pandapower() -> Any:
    """The pandapower module (imported on first use, warnings about optional extras muted)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pandapower as pp
    return pp


def empty_net(sn_mva: float, f_hz: float = 50.0) -> Any:
    """An empty pandapower net with base ``sn_mva`` — a deep copy of a cached template."""
    global _TEMPLATE
    pp = pandapower()
    if _TEMPLATE is None:
        _TEMPLATE = pp.create_empty_network()
    net = copy.deepcopy(_TEMPLATE)
    net.sn_mva = float(sn_mva)
    net.f_hz = float(f_hz)
    return net


@dataclass(frozen=True)
class BranchData:
    """One π-model branch in per unit on the system base."""

    from_bus: int
    to_bus: int
    r_pu: float
    x_pu: float
    b_pu: float = 0.0
    tap_ratio: float = 1.0
    phase_shift_deg: float = 0.0

    @property
    def is_transformer(self) -> bool:
        return self.tap_ratio != 1.0 or self.phase_shift_deg != 0.0


def add_branches(net: Any, branches: Sequence[BranchData], base_mva: float, max_i_ka: float = 100.0) -> list[tuple[str, int]]:
    """Add every branch to ``net``; returns ``("line"|"trafo", index)`` per branch, in order.

    The buses must exist already, with ``vn_kv`` set. The from bus is the transformer's "hv"
    side whatever its voltage: pandapower's tap and shift then sit where the π model has them.
    """
    pp = pandapower()
    out: list[tuple[str, int]] = []
    for br in branches:
        vn = float(net.bus.at[br.from_bus, "vn_kv"])
        vn_to = float(net.bus.at[br.to_bus, "vn_kv"])
        z_base = vn * vn / base_mva
        if not br.is_transformer and vn == vn_to:
            c_nf = br.b_pu / z_base / (2 * math.pi * net.f_hz) * 1e9
            idx = pp.create_line_from_parameters(
                net, br.from_bus, br.to_bus, length_km=1.0,
                r_ohm_per_km=br.r_pu * z_base, x_ohm_per_km=br.x_pu * z_base,
                c_nf_per_km=c_nf, max_i_ka=max_i_ka,
            )
            out.append(("line", int(idx)))
            continue
        z_pct = math.hypot(br.r_pu, br.x_pu) * 100.0  # on sn_mva = base_mva
        idx = pp.create_transformer_from_parameters(
            net, br.from_bus, br.to_bus, sn_mva=base_mva, vn_hv_kv=vn,
            vn_lv_kv=vn_to,
            vk_percent=z_pct, vkr_percent=br.r_pu * 100.0, pfe_kw=0.0, i0_percent=0.0,
            shift_degree=br.phase_shift_deg, tap_side="hv", tap_neutral=0, tap_pos=1,
            tap_min=-1, tap_max=1, tap_step_percent=(br.tap_ratio - 1.0) * 100.0,
            tap_changer_type="Ratio",
        )
        if br.b_pu:
            # pandapower's shunt q is consumption at 1 pu: a capacitive b gives negative q.
            pp.create_shunt(net, br.from_bus, q_mvar=-br.b_pu / 2 / br.tap_ratio**2 * base_mva, p_mw=0.0)
            pp.create_shunt(net, br.to_bus, q_mvar=-br.b_pu / 2 * base_mva, p_mw=0.0)
        out.append(("trafo", int(idx)))
    return out


def add_bus_shunt(net: Any, bus: int, g_pu: float, b_pu: float, base_mva: float) -> None:
    """A constant-admittance shunt ``g + jb`` (per unit) at ``bus``."""
    if g_pu or b_pu:
        pandapower().create_shunt(net, bus, p_mw=g_pu * base_mva, q_mvar=-b_pu * base_mva)


def run_power_flow(net: Any, **options: Any) -> None:
    """pandapower's AC Newton-Raphson with psab's defaults (flat start, no numba, π trafos)."""
    opts = {"numba": False, "init": "flat", "trafo_model": "pi", "calculate_voltage_angles": True}
    opts.update(options)
    pandapower().runpp(net, **opts)


def ybus(net: Any) -> np.ndarray:
    """pandapower's own bus admittance matrix (per unit on ``net.sn_mva``), rows and columns
    in the order of ``net.bus.index``; runs a power flow to build it.

    The matrix is assembled before the first Newton-Raphson iteration, so a power flow that
    then fails to converge (a purely resistive branch, a heavily loaded case; issue 32) still
    leaves it in ``net._ppc``: Y_bus does not depend on the operating point. A failure before
    the matrix exists is the caller's network, an :class:`~psab.errors.InvalidTaskError`.
    """
    from pandapower.powerflow import LoadflowNotConverged

    from psab.errors import InvalidTaskError

    net._ppc = None  # never read a matrix left by an earlier run
    try:
        run_power_flow(net)
    except LoadflowNotConverged:
        if not isinstance(net._ppc, dict) or "Ybus" not in net._ppc.get("internal", {}):
            raise InvalidTaskError("public_inputs/branches: pandapower cannot assemble Y_bus for this network "
                                   "(its power flow stopped before building it)") from None
    Y = net._ppc["internal"]["Ybus"].toarray()
    lookup = net._pd2ppc_lookups["bus"]
    order = [int(lookup[i]) for i in net.bus.index]
    return np.asarray(Y[np.ix_(order, order)])
