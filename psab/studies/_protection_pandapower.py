"""The protection coordination study's fault currents by pandapower's IEC 60909 (``calc_sc``).

The same SimBench CSV folder read by ``simbench.csv2pp`` (bus-bus switches as pandapower
models them), every static generator out of service, each external grid given the study's
``s_sc_max_mva``/``rx_max`` and ``s_sc_min_mva``/``rx_min``. Per topology:

- one ``calc_sc`` per condition with faults at every relay bus and ``branch_results`` with
  ``return_all_currents``: the near-end relay current is ``I″k(a) − I_{o→a}`` with ``I″k(a)``'s
  phasor from ``rk_ohm``/``xk_ohm`` (``c·U_n/(√3·Z_k)``, angle of the pre-fault source 0) and the
  line current at the remote end from ``ikss_*_ka``/``ikss_*_degree``; the sensitivity current
  (remote bus fault) is the line current at the relay's end;
- one ``calc_sc`` per study line for the far-end faults with the remote breaker open: the line
  is then a stub fed from the relay's bus alone, which is a fault at that bus through the
  line's impedance (``r_fault_ohm``/``x_fault_ohm``) in the network without the line — both
  ends' faults in one call; the relay's current is that I″k, each backup's the current at its
  end of its line, forward when the active power into its line there is positive.
"""

from __future__ import annotations

import copy
import logging
import math
import warnings
from typing import Any

import numpy as np

from psab.studies import _protection_core as pc
from psab.studies import _protection_grid as pg


def _prepared(code: str, smax: pg.Sources, smin: pg.Sources) -> Any:
    net = pg.pp_net(code)
    net.sgen["in_service"] = False
    net.profiles = {}  # the year of profiles is not needed here and would make every copy slow
    if "storage" in net and len(net.storage):
        net.storage["in_service"] = False
    net.ext_grid["s_sc_max_mva"] = smax.s_sc_mva
    net.ext_grid["rx_max"] = smax.rx
    net.ext_grid["s_sc_min_mva"] = smin.s_sc_mva
    net.ext_grid["rx_min"] = smin.rx
    # the minimum case's line resistance at the end temperature is not applied (the study states
    # R of Line.csv in both conditions): 20 °C, pandapower's factor 1 + 0.004·(θ_e − 20) = 1
    net.line["endtemp_degree"] = 20.0
    return net


def _calc(net: Any, case: str, c: float, buses: list[int], fault_ohm: tuple[float, float] = (0.0, 0.0)) -> None:
    import pandapower.shortcircuit as sc

    logging.getLogger("pandapower").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sc.calc_sc(net, case=case, bus=buses, branch_results=True, return_all_currents=True, ip=False, ith=False,
                   r_fault_ohm=fault_ohm[0], x_fault_ohm=fault_ohm[1])


def _line_current(res: Any, line: int, bus: int, at_from: bool) -> tuple[complex, float]:
    """The phasor (kA) of the current flowing into ``line`` at its from (to) end for the fault
    at ``bus``, and the active power (MW) into the line there."""
    row = res.loc[(line, bus)]
    if at_from:
        mag, deg, p = row.ikss_from_ka, row.ikss_from_degree, row.p_from_mw
    else:
        mag, deg, p = row.ikss_to_ka, row.ikss_to_degree, row.p_to_mw
    return complex(float(mag) * math.cos(math.radians(float(deg))), float(mag) * math.sin(math.radians(float(deg)))), float(p)


def currents(net: pg.HVNet, relays: list[pc.Relay], pairs: list[tuple[int, int]], outages: list[int],
             sources_max: pg.Sources, sources_min: pg.Sources, c_max: float, c_min: float,
             stubs: bool = True) -> pc.Currents:
    """Every current of :class:`~psab.studies._protection_core.Currents` by ``calc_sc``
    (``stubs=False`` leaves the remote-open faults out: a diagnostic)."""

    del c_max, c_min  # pandapower applies IEC 60909 Table 1's factors (1.10/1.00 above 1 kV)
    base = _prepared(net.code, sources_max, sources_min)
    line_idx = base.line.index.to_numpy()
    from_bus = base.line.from_bus.to_numpy()
    to_bus = base.line.to_bus.to_numpy()
    topo = [None, *outages]
    nt, nr, nq = len(topo), len(relays), len(pairs)
    ib_kv = {}
    out = {k: np.full((nt, nr), np.nan) for k in ("near", "far", "near_min", "far_min")}
    ip = np.full((nt, nq, 2), np.nan)
    ibk = np.full((nt, nq, 2), np.nan)
    fwd = np.zeros((nt, nq, 2), bool)
    end_bus = [int(from_bus[r.line]) if r.bus == net.line_from[r.line] else int(to_bus[r.line]) for r in relays]
    rem_bus = [int(to_bus[r.line]) if r.bus == net.line_from[r.line] else int(from_bus[r.line]) for r in relays]
    at_from = [r.bus == net.line_from[r.line] for r in relays]
    by_primary: dict[int, list[int]] = {}
    for q, (p, _) in enumerate(pairs):
        by_primary.setdefault(p, []).append(q)
    fault_buses = sorted(set(end_bus) | set(rem_bus))
    zero = pc.ZERO_KA
    for t, ol in enumerate(topo):
        work = copy.deepcopy(base)
        if ol is not None:
            work.line.loc[line_idx[ol], "in_service"] = False
        live = np.array([r.line != ol for r in relays])
        for case in ("max", "min"):
            _calc(work, case, 0.0, fault_buses)
            rb, rl = work.res_bus_sc, work.res_line_sc
            key = "" if case == "max" else "_min"
            for r, rel in enumerate(relays):
                if not live[r]:
                    continue
                a_b, o_b, li = end_bus[r], rem_bus[r], int(line_idx[rel.line])
                vn = float(work.bus.at[a_b, "vn_kv"])
                ib_kv[a_b] = vn
                zk = complex(float(rb.at[a_b, "rk_ohm"]), float(rb.at[a_b, "xk_ohm"]))
                i_f = float(rb.at[a_b, "ikss_ka"]) * (abs(zk) / zk) if abs(zk) > 0 else 0j
                i_in, _ = _line_current(rl, li, a_b, not at_from[r])  # into the line at the remote end
                near = abs(i_f - i_in)
                out["near" + key][t, r] = near if near > zero else 0.0
                if case == "min":
                    i_s, _ = _line_current(rl, li, o_b, at_from[r])
                    out["far_min"][t, r] = abs(i_s) if abs(i_s) > zero else 0.0
                else:
                    for q in by_primary.get(r, []):
                        b = pairs[q][1]
                        if not live[b]:
                            continue
                        i_b, p_b = _line_current(rl, int(line_idx[relays[b].line]), a_b, at_from[b])
                        ip[t, q, 0] = out["near"][t, r]
                        ibk[t, q, 0] = abs(i_b) if abs(i_b) > zero else 0.0
                        fwd[t, q, 0] = p_b > 0 and abs(i_b) > zero
        # far-end faults, remote breaker open: the line is then a stub fed from the relay's bus
        # alone, i.e. a fault at that bus through the line's impedance in the network without
        # the line — one calc_sc per line (faults at both its ends, r_fault/x_fault = the line's)
        for line in sorted({rel.line for r, rel in enumerate(relays) if live[r]}) if stubs else []:
            li = int(line_idx[line])
            ends = [r for r, rel in enumerate(relays) if rel.line == line]
            fed = [r for r in ends if pg.fed_behind(net, line, relays[r].bus, ol)]
            for r in ends:
                if r not in fed:  # the stub and its bus hang on no source: no current
                    out["far"][t, r] = 0.0
                    for q in by_primary.get(r, []):
                        if live[pairs[q][1]]:
                            ip[t, q, 1] = 0.0
                            ibk[t, q, 1] = 0.0
            if not fed:
                continue
            w2 = copy.deepcopy(work)
            w2.line.at[li, "in_service"] = False
            z_ohm = (float(w2.line.at[li, "r_ohm_per_km"]) * float(w2.line.at[li, "length_km"]),
                     float(w2.line.at[li, "x_ohm_per_km"]) * float(w2.line.at[li, "length_km"]))
            _calc(w2, "max", 0.0, [end_bus[r] for r in fed], fault_ohm=z_ohm)
            rl = w2.res_line_sc
            for r in fed:
                a_b = end_bus[r]
                far = float(w2.res_bus_sc.at[a_b, "ikss_ka"])
                out["far"][t, r] = far if far > zero else 0.0
                for q in by_primary.get(r, []):
                    b = pairs[q][1]
                    if not live[b]:
                        continue
                    i_b, p_b = _line_current(rl, int(line_idx[relays[b].line]), a_b, at_from[b])
                    ip[t, q, 1] = out["far"][t, r]
                    ibk[t, q, 1] = abs(i_b) if abs(i_b) > zero else 0.0
                    fwd[t, q, 1] = p_b > 0 and abs(i_b) > zero
    return pc.Currents(out["near"], out["far"], out["near_min"], out["far_min"], ip, ibk, fwd)
