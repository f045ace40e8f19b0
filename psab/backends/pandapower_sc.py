"""The pandapower short-circuit adapter: a compact IEC 60909 network → ``pandapowerNet`` →
``pandapower.shortcircuit.calc_sc``.

Imported only when a pandapower evaluation runs. A task's net is built once per process
(:data:`NETS`, keyed by the task digest) and reused: ``calc_sc`` rewrites its result tables and
options on every call and leaves the element tables as they were, so calls on one prepared net
are independent (a test checks it); a lock per net keeps concurrent calls apart. This avoids
the ~18 ms deep copy per call that would otherwise dominate a 10–25 ms ``calc_sc``.

Element mapping (the same data :mod:`psab.surrogates.iec60909` reads):

- feeder → ``ext_grid`` with ``s_sc_max_mva/rx_max/s_sc_min_mva/rx_min`` and the zero-sequence
  ratios ``x0x_max/r0x0_max`` (pandapower forms ``Z_Q = c/S″kQ`` with the c of the case);
- transformer → ``trafo`` with ``vk/vkr``, ``vector_group``, ``vk0/vkr0``, ``mag0_percent``
  (``Z_m0/Z_T0``), ``si0_hv_partial`` and the neutral impedance ``rn_ohm + j·xn_ohm``;
  ``pfe_kw = i0 = 0`` (IEC 60909 neglects the magnetizing branch);
- three-winding transformer → ``trafo3w`` (``vk_hv`` = HV–MV, ``vk_mv`` = MV–LV, ``vk_lv`` = HV–LV);
- line → ``line`` with ``c_nf_per_km = c0_nf_per_km = 0`` (IEC 60909 neglects line capacitance)
  and ``endtemp_degree`` for minimum currents;
- generator → ``gen`` with ``xdss_pu``, ``rdss_ohm``, ``cos_phi``, ``pg_percent`` (K_G);
- power station unit → an internal bus at the unit transformer's LV rated voltage, a ``gen``
  with ``power_station_trafo`` and a ``trafo`` with ``power_station_unit=True``, ``oltc``,
  ``pt_percent`` (K_S / K_SO, no K_T);
- motor → ``count`` identical ``motor`` elements (``lrc_pu``, ``rx``, efficiency, cos φ).
"""

from __future__ import annotations

import logging
import math
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from psab.backends import pandapower_net as ppn
from psab.evaluators.cache import LRUCache
from psab.surrogates.iec60909 import Network


class _FarFromGeneratorsNotice(logging.Filter):
    """Drop calc_sc's warning that i_p and I_th are "only implemented for faults far from
    generators": every family that asks for them states that convention to the agent (I_th
    with n = 1, far from generators) and evaluates against it, so the notice tells a psab user
    nothing and opened every ``psab check``. Other pandapower warnings pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("aperiodic, thermal short-circuit currents are only implemented")


_NOTICE_FILTER = _FarFromGeneratorsNotice()

#: Prepared short-circuit nets per key (usually the task digest): (net, bus index by id, lock).
NETS = LRUCache(maxsize=64)


@dataclass(frozen=True)
class PreparedNet:
    net: Any
    bus: dict[str, int]
    lock: threading.Lock


def build_net(network: Network) -> PreparedNet:
    """A pandapower net holding ``network`` (see the module docstring for the mapping)."""
    pp = ppn.pandapower()
    net = ppn.empty_net(100.0, network.f_hz)
    bus: dict[str, int] = {}
    for b in network.buses:
        bus[b.id] = int(pp.create_bus(net, vn_kv=b.vn_kv, name=b.id))
    for q in network.feeders:
        extra: dict[str, Any] = {}
        if q.skss_min_mva is not None:
            extra.update(s_sc_min_mva=q.skss_min_mva, rx_min=q.rx_min)
        if q.x0_x1 is not None:
            extra.update(x0x_max=q.x0_x1, r0x0_max=q.r0_x0)
        pp.create_ext_grid(net, bus[q.bus], vm_pu=1.0, s_sc_max_mva=q.skss_max_mva, rx_max=q.rx_max, name=q.id, **extra)
    for t in network.transformers:
        zero: dict[str, Any] = {}
        if t.vector_group is not None:
            zero = dict(
                vector_group=t.vector_group,
                vk0_percent=t.uk0_pct if t.uk0_pct is not None else t.uk_pct,
                vkr0_percent=t.ukr0_pct if t.ukr0_pct is not None else t.ukr_pct,
                mag0_percent=100.0 * (t.mag0_ratio if t.mag0_ratio is not None else 1e6),
                mag0_rx=0.0, si0_hv_partial=t.hv_share0,
                xn_ohm=t.neutral_x_ohm, rn_ohm=t.neutral_r_ohm,
            )
        pp.create_transformer_from_parameters(
            net, bus[t.hv_bus], bus[t.lv_bus], sn_mva=t.sn_mva, vn_hv_kv=t.vn_hv_kv, vn_lv_kv=t.vn_lv_kv,
            vk_percent=t.uk_pct, vkr_percent=t.ukr_pct, pfe_kw=0.0, i0_percent=0.0, parallel=t.parallel,
            name=t.id, **zero,
        )
    for t in network.transformers_3w:
        zero3: dict[str, Any] = {}
        if t.vector_group is not None:
            # pandapower's pair names: vk0_hv = HV–MV, vk0_mv = MV–LV, vk0_lv = HV–LV (as vk_*)
            zero3 = dict(vector_group=t.vector_group,
                         vk0_hv_percent=t.uk0_hv_mv_pct, vkr0_hv_percent=t.ukr0_hv_mv_pct,
                         vk0_mv_percent=t.uk0_mv_lv_pct, vkr0_mv_percent=t.ukr0_mv_lv_pct,
                         vk0_lv_percent=t.uk0_hv_lv_pct, vkr0_lv_percent=t.ukr0_hv_lv_pct)
        pp.create_transformer3w_from_parameters(
            net, bus[t.hv_bus], bus[t.mv_bus], bus[t.lv_bus], vn_hv_kv=t.vn_hv_kv, vn_mv_kv=t.vn_mv_kv,
            vn_lv_kv=t.vn_lv_kv, sn_hv_mva=t.sn_hv_mva, sn_mv_mva=t.sn_mv_mva, sn_lv_mva=t.sn_lv_mva,
            vk_hv_percent=t.uk_hv_mv_pct, vkr_hv_percent=t.ukr_hv_mv_pct,
            vk_mv_percent=t.uk_mv_lv_pct, vkr_mv_percent=t.ukr_mv_lv_pct,
            vk_lv_percent=t.uk_hv_lv_pct, vkr_lv_percent=t.ukr_hv_lv_pct,
            pfe_kw=0.0, i0_percent=0.0, name=t.id, **zero3,
        )
    for ln in network.lines:
        pp.create_line_from_parameters(
            net, bus[ln.from_bus], bus[ln.to_bus], length_km=ln.length_km, r_ohm_per_km=ln.r_ohm_per_km,
            x_ohm_per_km=ln.x_ohm_per_km, c_nf_per_km=0.0, max_i_ka=1.0, parallel=ln.parallel, name=ln.id,
            endtemp_degree=ln.end_temp_c if ln.end_temp_c is not None else 20.0,
            r0_ohm_per_km=ln.r0_ohm_per_km if ln.r0_ohm_per_km is not None else ln.r_ohm_per_km,
            x0_ohm_per_km=ln.x0_ohm_per_km if ln.x0_ohm_per_km is not None else ln.x_ohm_per_km,
            c0_nf_per_km=0.0,
        )
    for g in network.generators:
        pp.create_gen(net, bus[g.bus], p_mw=0.0, vm_pu=1.0, sn_mva=g.sn_mva, vn_kv=g.vn_kv, xdss_pu=g.xdss_pu,
                      rdss_ohm=g.r_ohm, cos_phi=g.cos_phi, pg_percent=g.pg_pct, name=g.id)
    for u in network.power_station_units:
        inner = int(pp.create_bus(net, vn_kv=u.vn_lv_kv, name=f"{u.id}:generator"))
        zero_u: dict[str, Any] = {}
        if u.vector_group is not None:
            # Z_(0)S = K_S·Z_(0)THV + 3·Z_N (pandapower's power-station-unit branch); the
            # magnetizing branch open (1e6·|Z_(0)T|), as the kernel takes it
            zero_u = dict(vector_group=u.vector_group,
                          vk0_percent=u.uk0_pct if u.uk0_pct is not None else u.uk_pct,
                          vkr0_percent=u.ukr0_pct if u.ukr0_pct is not None else u.ukr_pct,
                          mag0_percent=1e8, mag0_rx=0.0, si0_hv_partial=0.5,
                          xn_ohm=u.neutral_x_ohm, rn_ohm=u.neutral_r_ohm)
        t = pp.create_transformer_from_parameters(
            net, bus[u.hv_bus], inner, sn_mva=u.sn_t_mva, vn_hv_kv=u.vn_hv_kv, vn_lv_kv=u.vn_lv_kv,
            vk_percent=u.uk_pct, vkr_percent=u.ukr_pct, pfe_kw=0.0, i0_percent=0.0, oltc=u.oltc,
            pt_percent=u.pt_pct, power_station_unit=True, name=f"{u.id}:transformer", **zero_u,
        )
        pp.create_gen(net, inner, p_mw=0.0, vm_pu=1.0, sn_mva=u.sn_g_mva, vn_kv=u.vn_g_kv, xdss_pu=u.xdss_pu,
                      rdss_ohm=u.r_g_ohm, cos_phi=u.cos_phi, pg_percent=u.pg_pct, power_station_trafo=t,
                      name=f"{u.id}:generator")
    for m in network.motors:
        for _ in range(m.count):
            pp.create_motor(net, bus[m.bus], pn_mech_mw=m.pn_mw, cos_phi=m.cos_phi, cos_phi_n=m.cos_phi,
                            efficiency_n_percent=m.efficiency_pct, efficiency_percent=m.efficiency_pct,
                            vn_kv=m.vn_kv, rx=m.rx, lrc_pu=m.ilr_ratio, name=m.id)
    return PreparedNet(net, bus, threading.Lock())


def prepared(key: Any, network: Network) -> PreparedNet:
    """The prepared net of ``network`` cached under ``key`` (built on first use)."""
    return NETS.get_or_compute(key, lambda: build_net(network))


@dataclass(frozen=True)
class BusResult:
    """pandapower's ``res_bus_sc`` row of one bus."""

    ikss_ka: float
    skss_mva: float | None
    ip_ka: float | None
    ith_ka: float | None


def calc(prep: PreparedNet, buses: Sequence[str], *, fault: str = "3ph", case: str = "max",
         kappa_method: str | None = None, t_k_s: float | None = None, r_fault_ohm: float = 0.0,
         lv_tolerance_pct: float = 10.0, x_fault_ohm: float = 0.0) -> dict[str, BusResult]:
    """``calc_sc`` on the prepared net for ``buses``; κ by ``kappa_method`` (``"radial"``:
    pandapower's ``topology="radial"``, i.e. κ from R/X of Z_k; ``"B"``/``"C"``: its methods);
    the fault impedance ``r_fault_ohm + j·x_fault_ohm`` as calc_sc takes it."""
    from pandapower.shortcircuit import calc_sc

    sc_logger = logging.getLogger("pandapower.shortcircuit.calc_sc")
    if _NOTICE_FILTER not in sc_logger.filters:
        sc_logger.addFilter(_NOTICE_FILTER)  # idempotent; the logger is pandapower's module logger

    ip = kappa_method is not None
    ith = ip and t_k_s is not None
    options: dict[str, Any] = {}
    if kappa_method == "radial":
        options.update(topology="radial", kappa_method="C")
    elif kappa_method in ("B", "C"):
        options.update(topology="meshed" if kappa_method == "B" else "auto", kappa_method=kappa_method)
    idx = [prep.bus[b] for b in buses]
    with prep.lock, warnings.catch_warnings():
        # pandas downcasting notices inside pandapower, and its notice that bus voltages (which
        # psab does not read) are unsupported with off-nominal transformer ratios
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", UserWarning)
        # scipy's notice that the zero-sequence matrix is ill-conditioned: pandapower models an
        # open winding as a 1e20 p.u. branch, so an unearthed island (a delta tertiary's bus, a
        # unit's generator bus) is nearly singular; the earthed buses' results are unaffected
        # (the IEC TR 60909-4 network's I″k1 match the kernel to 1e-12)
        warnings.filterwarnings("ignore", message="An ill-conditioned matrix detected")
        calc_sc(prep.net, bus=idx, fault=fault, case=case, ip=ip, ith=ith, tk_s=t_k_s or 1.0,
                r_fault_ohm=r_fault_ohm, x_fault_ohm=x_fault_ohm, lv_tol_percent=int(lv_tolerance_pct), branch_results=False, **options)
        res = prep.net.res_bus_sc
        out = {}
        for b, i in zip(buses, idx, strict=True):
            row = res.loc[i]
            skss = float(row["skss_mw"]) if "skss_mw" in row else math.nan  # pandapower's skss_mw is MVA
            out[b] = BusResult(
                ikss_ka=float(row["ikss_ka"]),
                skss_mva=skss if math.isfinite(skss) else None,
                ip_ka=float(row["ip_ka"]) if ip else None,
                ith_ka=float(row["ith_ka"]) if ith else None,
            )
    return out
