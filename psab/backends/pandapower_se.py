"""pandapower's own state estimation (``pandapower.estimation``) on a case's measurements.

The network is built with :mod:`psab.backends.pandapower_net` (lines for unit-ratio branches,
π transformers otherwise; the reference bus is the ext_grid, whose angle the estimator holds),
every measurement becomes a row of ``net.measurement`` — voltage magnitudes in pu, powers in
MW/Mvar. pandapower's bus power measurements follow the load convention (positive = consumed),
so an injection measured generation-positive is entered with its sign flipped. Branch flows
sit at the ``from``/``to`` end of a line, or the ``hv``/``lv`` end of a transformer (the from
bus is its hv side, as ``add_branches`` builds it).

Bad data: ``pandapower.estimation.remove_bad_data`` — WLS, then the largest-normalized-residual
test with ``rn_max_threshold``, removing the largest and re-estimating until it passes.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from psab.backends import pandapower_net as ppn


@dataclass(frozen=True)
class SeMeasurement:
    id: str
    quantity: str  # v_pu, p_injection_mw, q_injection_mvar, p_flow_mw, q_flow_mvar
    bus: int  # position of the bus (v, injections) or -1
    branch: int  # position of the branch (flows) or -1
    side: str  # "from" / "to" for flows
    value: float
    sigma: float


@dataclass(frozen=True)
class SeResult:
    removed: tuple[str, ...]
    vm_pu: np.ndarray
    va_deg: np.ndarray
    success: bool


def estimate_with_bad_data(*, base_mva: float, vn_kv: Sequence[float], ref: int, branches: Sequence[ppn.BranchData],
                           shunt_b_pu: Sequence[float], measurements: Sequence[SeMeasurement],
                           threshold: float) -> SeResult:
    """Build the net, place the measurements, run ``remove_bad_data``; the removed measurement
    ids (sorted) and the final estimate in case bus order."""
    pp = ppn.pandapower()
    import pandas as pd
    from pandapower.estimation import remove_bad_data

    logging.getLogger("pandapower.estimation").setLevel(logging.CRITICAL)
    net = ppn.empty_net(base_mva)
    idx = [int(pp.create_bus(net, vn_kv=float(v), name=f"bus{i}")) for i, v in enumerate(vn_kv)]
    pp.create_ext_grid(net, idx[ref], vm_pu=1.0, va_degree=0.0)
    placed = ppn.add_branches(net, [ppn.BranchData(idx[b.from_bus], idx[b.to_bus], b.r_pu, b.x_pu, b.b_pu, b.tap_ratio,
                                                   b.phase_shift_deg) for b in branches], base_mva)
    for i, b in enumerate(shunt_b_pu):
        ppn.add_bus_shunt(net, idx[i], 0.0, float(b), base_mva)
    rows = []
    for m in measurements:
        kind = m.quantity.split("_")[0]
        if m.quantity == "v_pu":
            rows.append((m.id, "v", "bus", idx[m.bus], m.value, m.sigma, None))
        elif m.quantity.endswith(("injection_mw", "injection_mvar")):
            rows.append((m.id, kind, "bus", idx[m.bus], -m.value, m.sigma, None))
        else:
            etype, eidx = placed[m.branch]
            side = m.side if etype == "line" else ("hv" if m.side == "from" else "lv")
            rows.append((m.id, kind, etype, eidx, m.value, m.sigma, side))
    # one table write instead of a create_measurement call per row (≈10 ms each); the same
    # columns and dtypes as pandapower's own measurement table
    table = pd.DataFrame(rows, columns=list(net.measurement.columns))
    net.measurement = table.astype(net.measurement.dtypes.to_dict())
    before = set(net.measurement.name)
    with warnings.catch_warnings():
        # pandapower 3.5's estimation code assigns columns on a slice of the measurement table
        # (ppc_conversion.py, _add_measurements_to_ppci); pandas then prints a
        # SettingWithCopyWarning per run to the CLI's stderr although the result is right.
        warnings.simplefilter("ignore", pd.errors.SettingWithCopyWarning)
        success = bool(remove_bad_data(net, init="flat", tolerance=1e-10, maximum_iterations=50, rn_max_threshold=threshold))
    removed = tuple(sorted(before - set(net.measurement.name)))
    res = net.res_bus_est.loc[idx]
    return SeResult(removed, res.vm_pu.to_numpy(float, copy=True), res.va_degree.to_numpy(float, copy=True), success)
