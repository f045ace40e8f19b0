"""pandapower AC check of a restored distribution configuration (flisr_restoration).

The task's network (CIGRE MV by default: its lines with their charging, its 110/20 kV
transformers by rating and short-circuit voltages, its external grid) is built once per task
as a pandapower net with one line switch per switchable branch — CIGRE's own S1, S2, S3 keep
their names — and cached (:data:`psab.backends.pandapower_net.NETS`). A check deep-copies it,
sets the switch states, runs pandapower's Newton-Raphson and reports the voltage of every
supplied bus and the loading of every branch (``loading_percent``, current-based for lines,
apparent-power-based for transformers)."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np

from psab.backends import pandapower_net as ppn


def build_net(inputs: dict[str, Any]) -> tuple[Any, dict[str, int], dict[str, tuple[str, int]]]:
    pp = ppn.pandapower()
    net = ppn.empty_net(1.0)
    bus_idx = {}
    for b in inputs["buses"]:
        bus_idx[b["id"]] = pp.create_bus(net, vn_kv=float(b["vn_kv"]), name=b["id"])
    pp.create_ext_grid(net, bus_idx[inputs["source_bus"]], vm_pu=float(inputs["source_vm_pu"]), va_degree=0.0)
    elements: dict[str, tuple[str, int]] = {}
    for br in inputs["branches"]:
        f, t = bus_idx[br["from_bus"]], bus_idx[br["to_bus"]]
        if br["kind"] == "transformer":
            tr = br["transformer"]
            elements[br["id"]] = ("trafo", pp.create_transformer_from_parameters(
                net, f, t, sn_mva=tr["sn_mva"], vn_hv_kv=tr["vn_hv_kv"], vn_lv_kv=tr["vn_lv_kv"], vk_percent=tr["vk_percent"],
                vkr_percent=tr["vkr_percent"], pfe_kw=0.0, i0_percent=0.0, name=br["id"]))
        else:
            km = float(br["length_km"])
            elements[br["id"]] = ("line", pp.create_line_from_parameters(
                net, f, t, length_km=km, r_ohm_per_km=br["r_ohm"] / km, x_ohm_per_km=br["x_ohm"] / km,
                c_nf_per_km=br.get("c_nf", 0.0) / km, max_i_ka=br["rating_ka"], name=br["id"]))
    switch_idx = {}
    for sw in inputs["switches"]:
        kind, el = elements[sw["branch"]]
        br = next(b for b in inputs["branches"] if b["id"] == sw["branch"])
        switch_idx[sw["id"]] = pp.create_switch(net, bus_idx[br["from_bus"]], el, et="l", closed=bool(sw["normally_closed"]),
                                                name=sw["id"])
    for ld in inputs["loads"] + inputs.get("substation_loads", []):
        pp.create_load(net, bus_idx[ld["bus"]], p_mw=ld["p_mw"], q_mvar=ld["q_mvar"], name=ld["id"])
    return net, switch_idx, elements


def _structure(inputs: dict[str, Any]) -> dict[str, Any]:
    """What the pandapower net's elements depend on (not the load values): held-out draws of
    one network share a template and only rewrite the load table."""
    return {k: inputs[k] for k in ("buses", "branches", "switches", "source_bus", "source_vm_pu")} | {
        "load_buses": [(ld["id"], ld["bus"]) for ld in inputs["loads"] + inputs.get("substation_loads", [])]}


def ac_check(key: Any, inputs: dict[str, Any], closed_switches: set[str]) -> dict[str, Any]:
    """``{"converged", "vm_pu": {bus: vm or None}, "loading_pct": {branch: %}}`` of the
    configuration in which exactly ``closed_switches`` are closed. ``key`` is unused beyond
    the caller's API: the template is cached by the network's structure."""
    from psab.contract import digest

    template = ppn.NETS.get_or_compute(("pandapower_restoration", digest(_structure(inputs))), lambda: build_net(inputs))
    net0, switch_idx, elements = template
    net = copy.deepcopy(net0)
    loads = inputs["loads"] + inputs.get("substation_loads", [])
    net.load["p_mw"] = [float(ld["p_mw"]) for ld in loads]
    net.load["q_mvar"] = [float(ld["q_mvar"]) for ld in loads]
    for sid, idx in switch_idx.items():
        net.switch.at[idx, "closed"] = sid in closed_switches
    pp = ppn.pandapower()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ppn.run_power_flow(net, calculate_voltage_angles=False)
    except pp.LoadflowNotConverged:
        return {"converged": False, "vm_pu": {}, "loading_pct": {}}
    vm = {}
    for b in inputs["buses"]:
        idx = int(net.bus.index[net.bus.name == b["id"]][0])
        val = float(net.res_bus.at[idx, "vm_pu"])
        vm[b["id"]] = None if np.isnan(val) else val
    loading = {}
    for bid, (kind, el) in elements.items():
        table = net.res_line if kind == "line" else net.res_trafo
        val = float(table.at[el, "loading_percent"])
        loading[bid] = 0.0 if np.isnan(val) else val
    return {"converged": True, "vm_pu": vm, "loading_pct": loading}
