"""The interconnection study on pandapower: the MATPOWER case read by pandapower's own
converter (``pandapower.converter.matpower.from_mpc``, which needs ``matpowercaseframes``),
AC power flow by ``runpp`` with lightsim2grid's Newton-Raphson, and IEC 60909 by
``pandapower.shortcircuit.calc_sc``.

The net is built once per task (the converter is ~0.3 s) and each state is set on it in place:
generator outputs and setpoints, the plant as a static generator, the outaged branch out of
service, study shunts. Branch loadings are read as ``max(|S_from|, |S_to|)`` from the result
tables and divided by ``rate_a`` — the same quantity psab's own engine computes, from
pandapower's own element models.

Mapping of MATPOWER rows onto pandapower elements follows the converter's rule
(``_branch_to_which``): a branch with tap not 0 or 1, or a phase shift, is a ``trafo``; a branch
between buses of equal base kV otherwise a ``line``; anything else an ``impedance``; each
table in file order.
"""

from __future__ import annotations

import logging
import math
import threading
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from psab.surrogates import interconnection as ic
from psab.surrogates.iec60909_network import Machine, generator_correction_factor


@dataclass
class PandapowerStudyNet:
    net: Any
    grid: ic.Grid
    branch_elem: list[tuple[str, int]]
    gen_elem: list[tuple[str, int]]
    plant_sgen: int | None
    shunt_rows: dict[int, int]
    lock: threading.Lock


def build(path: str, grid: ic.Grid, plant: ic.Plant | None) -> PandapowerStudyNet:
    """pandapower's net of the case file at ``path`` set to the grid's dispatch."""
    import pandapower as pp
    import pandapower.converter.matpower as pcm

    logging.getLogger("pandapower").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net = pcm.from_mpc(path, f_hz=60)
    # Branch rows → elements (the converter keeps file order within each element table)
    taps = grid.tap  # 0 already mapped to 1: is_transformer carries the converter's rule
    del taps
    branch_elem: list[tuple[str, int]] = []
    counters = {"line": 0, "trafo": 0, "impedance": 0}
    for k in range(grid.n_branch):
        if grid.is_transformer[k]:
            kind = "trafo"
        elif grid.vn_kv[grid.f[k]] == grid.vn_kv[grid.t[k]]:
            kind = "line"
        else:
            kind = "impedance"
        branch_elem.append((kind, int(net[kind].index[counters[kind]])))
        counters[kind] += 1
    for kind, n in counters.items():
        if n != len(net[kind]):
            raise RuntimeError(f"pandapower's converter made {len(net[kind])} {kind}s, the case has {n}")
    # Generators: the first one at the slack bus is the ext_grid, the rest are gens in file order
    gen_elem: list[tuple[str, int]] = []
    gi = 0
    slack_taken = False
    for k in range(len(grid.gen_ids)):
        if grid.gen_bus[k] == grid.slack and not slack_taken and len(net.ext_grid):
            gen_elem.append(("ext_grid", int(net.ext_grid.index[0])))
            slack_taken = True
        else:
            gen_elem.append(("gen", int(net.gen.index[gi])))
            gi += 1
    for k, (kind, idx) in enumerate(gen_elem):
        if kind == "gen":
            net.gen.at[idx, "p_mw"] = float(grid.gen_p_mw[k])
            net.gen.at[idx, "vm_pu"] = float(grid.gen_vm_pu[k])
            net.gen.at[idx, "in_service"] = bool(grid.gen_on[k])
        else:
            net.ext_grid.at[idx, "vm_pu"] = float(grid.gen_vm_pu[k])
    plant_sgen = None
    if plant is not None:
        plant_sgen = int(pp.create_sgen(net, bus=int(net.bus.index[plant.poc]), p_mw=0.0, q_mvar=0.0, name="new plant"))
    return PandapowerStudyNet(net, grid, branch_elem, gen_elem, plant_sgen, {}, threading.Lock())


def state(pnet: PandapowerStudyNet, *, plant: ic.Plant | None, plant_p_mw: float, sink_weights: np.ndarray | None,
          out_branch: int | None, shunt_mvar: dict[int, float]) -> tuple[bool, np.ndarray, np.ndarray]:
    """``(converged, vm_pu per bus, max-end MVA per branch)`` of one study state."""
    import pandapower as pp

    net, grid = pnet.net, pnet.grid
    with pnet.lock:
        p_unit = grid.gen_p_mw.copy()
        if plant is not None and plant_p_mw and sink_weights is not None:
            p_unit = p_unit - plant_p_mw * sink_weights
        for k, (kind, idx) in enumerate(pnet.gen_elem):
            if kind == "gen":
                net.gen.at[idx, "p_mw"] = float(p_unit[k])
        if pnet.plant_sgen is not None and plant is not None:
            net.sgen.at[pnet.plant_sgen, "p_mw"] = float(plant_p_mw)
            net.sgen.at[pnet.plant_sgen, "q_mvar"] = float(plant_p_mw * plant.q_mvar_per_mw)
        for bus, _mvar in shunt_mvar.items():
            if bus not in pnet.shunt_rows:
                pnet.shunt_rows[bus] = int(pp.create_shunt(net, bus=int(net.bus.index[bus]), q_mvar=0.0, p_mw=0.0))
        for bus, row in pnet.shunt_rows.items():
            # pandapower's shunt: q_mvar > 0 absorbs; the study's shunt_mvar > 0 is capacitive
            net.shunt.at[row, "q_mvar"] = -float(shunt_mvar.get(bus, 0.0))
        if out_branch is not None:
            kind, idx = pnet.branch_elem[out_branch]
            net[kind].at[idx, "in_service"] = False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pp.runpp(net, algorithm="nr", init="dc", lightsim2grid=True, max_iteration=30, tolerance_mva=1e-8,
                         calculate_voltage_angles=True, enforce_q_lims=False, numba=False)
            ok = bool(net.converged)
        except Exception:  # noqa: BLE001 - pandapower's "did not converge" (and any other failure)
            ok = False
        finally:
            if out_branch is not None:
                kind, idx = pnet.branch_elem[out_branch]
                net[kind].at[idx, "in_service"] = True
        if not ok:
            return False, np.full(grid.n_bus, np.nan), np.full(grid.n_branch, np.nan)
        vm = net.res_bus.vm_pu.to_numpy(dtype=float).copy()
        s = np.full(grid.n_branch, np.nan)
        cols = {"line": ("p_from_mw", "q_from_mvar", "p_to_mw", "q_to_mvar"),
                "trafo": ("p_hv_mw", "q_hv_mvar", "p_lv_mw", "q_lv_mvar"),
                "impedance": ("p_from_mw", "q_from_mvar", "p_to_mw", "q_to_mvar")}
        for k, (kind, idx) in enumerate(pnet.branch_elem):
            if k == out_branch:
                continue
            res = net[f"res_{kind}"]
            a, b, c, d = (float(res.at[idx, col]) for col in cols[kind])
            s[k] = max(math.hypot(a, b), math.hypot(c, d))
        return True, vm, s


def fault_levels_ka(pnet: PandapowerStudyNet, machines: list[Machine], buses: list[int], c_max: float) -> np.ndarray:
    """I″k max (kA) at ``buses`` by ``calc_sc`` with every machine as a ``gen`` (the slack's as the
    ``ext_grid`` of the same impedance) and, when the list has one more machine than the case,
    the plant as a ``gen`` at its POC."""
    import pandapower as pp
    import pandapower.shortcircuit as sc

    net, grid = pnet.net, pnet.grid
    with pnet.lock:
        work = net.deepcopy() if hasattr(net, "deepcopy") else __import__("copy").deepcopy(net)
    work.sgen.drop(work.sgen.index, inplace=True)
    work.shunt.drop([r for r in pnet.shunt_rows.values() if r in work.shunt.index], inplace=True)
    vn = work.bus.vn_kv.to_numpy(dtype=float)
    on = np.flatnonzero(grid.gen_on)
    case_machines = machines[: len(on)]
    for m, k in zip(case_machines, on, strict=True):
        kind, idx = pnet.gen_elem[k]
        if kind == "ext_grid":
            kg = generator_correction_factor(m.xdss_pu, m.cos_phi, c_max)
            z_rel = kg * m.xdss_pu * math.hypot(1.0, m.r_over_x) / m.sn_mva  # |Z| / (U_n²) in 1/MVA
            work.ext_grid.at[idx, "s_sc_max_mva"] = c_max / z_rel
            work.ext_grid.at[idx, "rx_max"] = m.r_over_x
        else:
            v = vn[m.bus]
            work.gen.at[idx, "sn_mva"] = m.sn_mva
            work.gen.at[idx, "xdss_pu"] = m.xdss_pu
            work.gen.at[idx, "cos_phi"] = m.cos_phi
            work.gen.at[idx, "vn_kv"] = v
            work.gen.at[idx, "rdss_ohm"] = m.r_over_x * m.xdss_pu * v * v / m.sn_mva
    for m in machines[len(on):]:
        v = vn[m.bus]
        # calc_sc applies one K_G per bus (the last generator's, to the bus's summed admittance): the
        # plant, whose K_G differs from the case machines', gets its own bus behind a 1e-9 pu tie
        aux = pp.create_bus(work, vn_kv=v, name="plant terminal")
        pp.create_impedance(work, from_bus=int(work.bus.index[m.bus]), to_bus=aux, rft_pu=0.0, xft_pu=1e-9,
                            sn_mva=100.0)
        pp.create_gen(work, bus=aux, p_mw=0.0, vm_pu=1.0, sn_mva=m.sn_mva, xdss_pu=m.xdss_pu,
                      cos_phi=m.cos_phi, vn_kv=v, rdss_ohm=m.r_over_x * m.xdss_pu * v * v / m.sn_mva)
    # generators out of service in the study contribute nothing
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sc.calc_sc(work, case="max", ip=False, ith=False, branch_results=False)
    return work.res_bus_sc.ikss_ka.to_numpy(dtype=float)[np.asarray(buses, dtype=int)]
