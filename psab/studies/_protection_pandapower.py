"""The protection coordination study's fault currents by pandapower's IEC 60909 (``calc_sc``).

The same SimBench CSV folder read by ``simbench.csv2pp`` (bus-bus switches as pandapower
models them), every static generator out of service, each external grid given the study's
``s_sc_max_mva``/``rx_max`` and ``s_sc_min_mva``/``rx_min``. One net, built once: topologies
and stubs are switched by ``in_service``, never by copying the net.

- Per topology, one ``calc_sc`` per condition with faults at every relay bus and
  ``branch_results`` with ``return_all_currents``: the near-end relay current is
  ``I″k(a) − I_{o→a}`` with ``I″k(a)``'s phasor from ``rk_ohm``/``xk_ohm``
  (``c·U_n/(√3·Z_k)``, angle of the pre-fault source 0) and the line current at the remote
  end from ``ikss_*_ka``/``ikss_*_degree``; the sensitivity current (remote bus fault) is the
  line current at the relay's end.
- The far-end faults with the remote breaker open: line ``l`` is then a stub fed from the
  relay's bus alone, modelled as it is — ``l`` out of service and a copy of it from the
  relay's bus to an auxiliary dead-end bus, the fault at that bus. pandapower's IEC 60909
  builds lines without their shunt capacitance (``build_branch``: ``BR_B`` is left zero in
  ``mode == "sc"``) and neglects loads, so an unfaulted stub carries nothing and changes no
  other fault: the stubs of every far-end fault that needs the same network go into one call.
  The network of line ``l``'s stubs in the topology with line ``m`` out is the grid without
  ``l`` and ``m`` — the same for ``l``'s stubs with ``m`` out and ``m``'s with ``l`` out (up to
  four stubs per call), and the base topology's stubs of ``l`` ride on the maximum call of
  the topology with ``l`` out. The relay's current is the stub bus's I″k, each backup's the
  current at its end of its line, forward when the active power into its line there is
  positive.
- ``calc_sc(inverse_y=False)``: pandapower's sparse LU factorisation of ``Y_bus`` instead of
  its dense inverse (same currents to ~1e-13). The inverse is of a 64-bus matrix (pandapower
  fuses the bus-bus switches), yet scipy's ``inv`` through OpenBLAS took from under a
  millisecond to 0.6 s a call on the two shared, busy cores (2/3 of the old backend's time in
  a profile); the factorisation stays at milliseconds.
"""

from __future__ import annotations

import logging
import math
import warnings
from typing import Any

import numpy as np

from psab.studies import _protection_core as pc
from psab.studies import _protection_grid as pg

#: The line columns a stub copies from its line (everything calc_sc reads of a line).
_STUB_COLS = ("r_ohm_per_km", "x_ohm_per_km", "c_nf_per_km", "g_us_per_km", "length_km", "parallel", "df",
              "max_i_ka", "endtemp_degree")


def _prepared(code: str, smax: pg.Sources, smin: pg.Sources) -> Any:
    net = pg.pp_net(code)
    net.sgen["in_service"] = False
    net.profiles = {}  # the year of profiles is not needed here
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


def _with_stubs(net: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Add ``n`` auxiliary buses, each with a line to it, all out of service (parameters copied
    from the first line until a call places them); returns (bus index, line index)."""
    import pandapower as pp

    b0, l0 = int(net.line.from_bus.iloc[0]), net.line.index[0]
    buses, lines = [], []
    for k in range(n):
        b = pp.create_bus(net, vn_kv=float(net.bus.at[b0, "vn_kv"]), name=f"psab stub {k}", in_service=False)
        ln = pp.create_line_from_parameters(net, b0, b, length_km=1.0, r_ohm_per_km=1.0, x_ohm_per_km=1.0,
                                            c_nf_per_km=0.0, max_i_ka=1.0, name=f"psab stub {k}", in_service=False)
        buses.append(b)
        lines.append(ln)
    for col in _STUB_COLS:
        net.line.loc[lines, col] = net.line.at[l0, col]
    return np.array(buses), np.array(lines)


class _Result:
    """One ``calc_sc``'s bus and line results as arrays (pandas lookups per relay dominate
    otherwise)."""

    def __init__(self, net: Any) -> None:
        rb = net.res_bus_sc
        self._bpos = {int(b): i for i, b in enumerate(rb.index)}
        self._bus = rb[["ikss_ka", "rk_ohm", "xk_ohm"]].to_numpy(float)
        rl = net.res_line_sc
        self._lpos = {(int(ln), int(b)): i for i, (ln, b) in enumerate(rl.index)}
        self._line = rl[["ikss_from_ka", "ikss_from_degree", "p_from_mw", "ikss_to_ka", "ikss_to_degree",
                         "p_to_mw"]].to_numpy(float)

    def ikss_ka(self, bus: int) -> float:
        return float(self._bus[self._bpos[bus], 0])

    def fault_phasor(self, bus: int) -> complex:
        """``I″k`` at ``bus`` as a phasor: ``c·U_n/(√3·Z_k)``, the pre-fault source at angle 0."""
        ik, rk, xk = self._bus[self._bpos[bus]]
        zk = complex(rk, xk)
        return float(ik) * (abs(zk) / zk) if abs(zk) > 0 else 0j

    def line_current(self, line: int, bus: int, at_from: bool) -> tuple[complex, float]:
        """The phasor (kA) of the current flowing into ``line`` at its from (to) end for the
        fault at ``bus``, and the active power (MW) into the line there."""
        row = self._line[self._lpos[(line, bus)]]
        mag, deg, p = (row[0], row[1], row[2]) if at_from else (row[3], row[4], row[5])
        return complex(mag * math.cos(math.radians(deg)), mag * math.sin(math.radians(deg))), float(p)


def _calc(net: Any, case: str, buses: list[int]) -> _Result:
    import pandapower.shortcircuit as sc

    logging.getLogger("pandapower").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sc.calc_sc(net, case=case, bus=buses, branch_results=True, return_all_currents=True, ip=False, ith=False,
                   inverse_y=False)
    return _Result(net)


def currents(net: pg.HVNet, relays: list[pc.Relay], pairs: list[tuple[int, int]], outages: list[int],
             sources_max: pg.Sources, sources_min: pg.Sources, c_max: float, c_min: float,
             stubs: bool = True) -> pc.Currents:
    """Every current of :class:`~psab.studies._protection_core.Currents` by ``calc_sc``
    (``stubs=False`` leaves the remote-open faults out: a diagnostic)."""

    del c_max, c_min  # pandapower applies IEC 60909 Table 1's factors (1.10/1.00 above 1 kV)
    work = _prepared(net.code, sources_max, sources_min)
    line_idx = work.line.index.to_numpy()
    from_bus = work.line.from_bus.to_numpy()
    to_bus = work.line.to_bus.to_numpy()
    topo = [None, *outages]
    nt, nr, nq = len(topo), len(relays), len(pairs)
    out = {k: np.full((nt, nr), np.nan) for k in ("near", "far", "near_min", "far_min")}
    ip = np.full((nt, nq, 2), np.nan)
    ibk = np.full((nt, nq, 2), np.nan)
    fwd = np.zeros((nt, nq, 2), bool)
    at_from = [r.bus == net.line_from[r.line] for r in relays]
    end_bus = [int(from_bus[r.line]) if at_from[i] else int(to_bus[r.line]) for i, r in enumerate(relays)]
    rem_bus = [int(to_bus[r.line]) if at_from[i] else int(from_bus[r.line]) for i, r in enumerate(relays)]
    by_primary: dict[int, list[int]] = {}
    for q, (p, _) in enumerate(pairs):
        by_primary.setdefault(p, []).append(q)
    fault_buses = sorted(set(end_bus) | set(rem_bus))
    zero = pc.ZERO_KA

    def clip(x: float) -> float:
        return x if x > zero else 0.0

    def backups(t: int, r: int, phi: int, res: _Result, fault_bus: int, i_p: float) -> None:
        """Pair currents of primary ``r`` at fault point ``phi`` in topology ``t``."""
        for q in by_primary.get(r, []):
            b = pairs[q][1]
            if relays[b].line == topo[t]:
                continue
            i_b, p_b = res.line_current(int(line_idx[relays[b].line]), fault_bus, at_from[b])
            ip[t, q, phi] = i_p
            ibk[t, q, phi] = clip(abs(i_b))
            fwd[t, q, phi] = p_b > 0 and abs(i_b) > zero

    # the far-end faults by network: key = the lines out of service; value = (topology, relay)
    # stubs. A relay without a source behind it (its bus cut off with the line open) carries none.
    stub_jobs: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for t, ol in enumerate(topo):
        for r, rel in enumerate(relays):
            if rel.line == ol or not stubs:
                continue
            if not pg.fed_behind(net, rel.line, rel.bus, ol):
                out["far"][t, r] = 0.0
                for q in by_primary.get(r, []):
                    if relays[pairs[q][1]].line != ol:
                        ip[t, q, 1] = 0.0
                        ibk[t, q, 1] = 0.0
                continue
            key = tuple(sorted({rel.line} | ({ol} if ol is not None else set())))
            stub_jobs.setdefault(key, []).append((t, r))
    main_of = {(ol,) if ol is not None else (): t for t, ol in enumerate(topo)}
    # a network without two lines carries at most four stubs (both ends of both lines)
    stub_bus, stub_line = _with_stubs(work, max((len(j) for j in stub_jobs.values()), default=0))

    # the state is written column by column (a pandas .loc write per cell costs more than the
    # factorisation)
    line_cols = {c: work.line[c].to_numpy(copy=True) for c in (*_STUB_COLS, "from_bus")}
    line_on = work.line.in_service.to_numpy(bool, copy=True)
    bus_on = work.bus.in_service.to_numpy(bool, copy=True)
    bus_vn = work.bus.vn_kv.to_numpy(float, copy=True)
    line_pos = {int(x): i for i, x in enumerate(work.line.index)}
    bus_pos = {int(x): i for i, x in enumerate(work.bus.index)}

    def run(key: tuple[int, ...], case: str, buses: list[int], jobs: list[tuple[int, int]]) -> _Result:
        on, b_on = line_on.copy(), bus_on.copy()
        on[[line_pos[int(line_idx[k])] for k in key]] = False
        placed = []
        for k, (_, r) in enumerate(jobs):
            li, sl, sb = line_pos[int(line_idx[relays[r].line])], line_pos[int(stub_line[k])], bus_pos[int(stub_bus[k])]
            for c in _STUB_COLS:
                line_cols[c][sl] = line_cols[c][li]
            line_cols["from_bus"][sl] = end_bus[r]
            bus_vn[sb] = bus_vn[bus_pos[end_bus[r]]]
            on[sl] = b_on[sb] = True
            placed.append(int(stub_bus[k]))
        for c, v in line_cols.items():
            work.line[c] = v.copy()
        work.line["in_service"] = on
        work.bus["in_service"] = b_on
        work.bus["vn_kv"] = bus_vn.copy()
        res = _calc(work, case, buses + placed)
        for k, (t, r) in enumerate(jobs):
            far = clip(res.ikss_ka(placed[k]))
            out["far"][t, r] = far
            backups(t, r, 1, res, placed[k], far)
        return res

    for key in sorted(set(main_of) | set(stub_jobs)):
        jobs = stub_jobs.get(key, [])
        t = main_of.get(key)
        if t is None:
            run(key, "max", [], jobs)
            continue
        ol = topo[t]
        live = [r for r, rel in enumerate(relays) if rel.line != ol]
        for case in ("max", "min"):
            res = run(key, case, fault_buses, jobs if case == "max" else [])
            sfx = "" if case == "max" else "_min"
            for r in live:
                a_b, o_b, li = end_bus[r], rem_bus[r], int(line_idx[relays[r].line])
                i_in, _ = res.line_current(li, a_b, not at_from[r])  # into the line at the remote end
                near = clip(abs(res.fault_phasor(a_b) - i_in))
                out["near" + sfx][t, r] = near
                if case == "min":
                    i_s, _ = res.line_current(li, o_b, at_from[r])
                    out["far_min"][t, r] = clip(abs(i_s))
                else:
                    backups(t, r, 0, res, a_b, near)
    return pc.Currents(out["near"], out["far"], out["near_min"], out["far_min"], ip, ibk, fwd)
