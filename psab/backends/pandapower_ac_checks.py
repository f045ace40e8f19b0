"""AC checks of branch active-power flows with pandapower: a compact transmission case (buses,
π-model branches, PQ loads, PV generators, one slack) → ``pandapowerNet``, and the AC active
flow of every branch, in the case's branch order, for the base topology or with branches taken
out of service (N-1 loops, switching actions).

Imported only when a pandapower evaluation runs. The net is built once per case (kept in
:data:`psab.backends.pandapower_net.NETS` with its branch elements, :func:`prepared`) and every
check works on that net itself, under its lock: :func:`flows` toggles ``in_service`` flags and
generator set-points and restores them, so an N-1 loop costs one ``runpp`` per outage and a
check costs no deep copy of the net (about 18 ms each; ``runpp`` starts from its DC initial
guess, not from the previous results, so a reused net gives the same flows).
Islanding is judged by pandapower's own graph search (:func:`pandapower.topology.unsupplied_buses`),
independently of the DC kernel's LODF test.

Fast path (issue 24): where lightsim2grid is installed, the power flow itself runs on a
lightsim2grid model converted once per prepared net (branches switched with
``deactivate_*``/``reactivate_*``, set-points with ``change_p_gen``), from pandapower's own DC
initial guess, with ``runpp``'s iteration limit and a tolerance no looser; islanding is still
judged on the pandapower net. A state lightsim2grid does not converge on goes to ``runpp``, so
a non-convergence verdict is always pandapower's. Flows equal ``runpp``'s to 1e-8 pu
(``tests/test_fast_ac.py``); ``PSAB_LIGHTSIM2GRID=0`` turns the path off.

Branch mapping: :func:`psab.backends.pandapower_net.add_branches` (a line per plain branch, a
transformer with its tap and phase shift on the from/HV side otherwise), so ``p_from_mw`` is
``res_line.p_from_mw`` or ``res_trafo.p_hv_mw`` and ``p_to_mw`` the other end, both positive
when power leaves the bus.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from psab.backends import pandapower_net as ppn
from psab.backends.pandapower_pf import fast_path_enabled
from psab.errors import SolverError


@dataclass(frozen=True)
class AcCase:
    """A compact transmission case for the AC checks, buses referred to by position.

    ``loads`` are ``(bus, p_mw, q_mvar)``; ``gens`` are ``(bus, p_mw, vm_pu)`` voltage-controlled
    units (no reactive limits: the check is about active flows); the slack bus holds pandapower's
    ``ext_grid`` at ``slack_vm_pu`` and supplies whatever balances the network, losses included.
    """

    base_mva: float
    vn_kv: tuple[float, ...]
    branches: tuple[ppn.BranchData, ...]
    loads: tuple[tuple[int, float, float], ...]
    gens: tuple[tuple[int, float, float], ...]
    slack_bus: int
    slack_vm_pu: float = 1.0
    frequency_hz: float = 50.0
    #: Bus shunts ``(bus, g_pu, b_pu)`` on ``base_mva`` at 1 pu voltage (MATPOWER's Gs, Bs over
    #: baseMVA): G consumes active power, B > 0 injects reactive power (a capacitor).
    shunts: tuple[tuple[int, float, float], ...] = ()

    @classmethod
    def from_case(cls, inputs: dict[str, Any], gen_p_mw: Sequence[float] | None = None) -> AcCase:
        """The AC case of a compact transmission case: ``buses`` (``id``, ``vn_kv``),
        ``branches`` (``from_bus``, ``to_bus``, ``r_pu``, ``x_pu``, ``b_pu``, ``tap_ratio``,
        ``phase_shift_deg``), ``loads`` (``bus``, ``p_mw``, ``q_mvar``) and ``generators``
        (``bus``, ``p_mw`` or ``gen_p_mw``, ``vm_pu``). A generator at ``slack_bus`` becomes the
        slack (its set-point is replaced by whatever balances the network, losses included);
        without one, the slack is an external-grid infeed at ``slack_vm_pu`` (default 1.0)."""
        pos = {b["id"]: i for i, b in enumerate(inputs["buses"])}
        slack = pos[inputs["slack_bus"]]
        gens = inputs["generators"]
        p_set = [g["p_mw"] for g in gens] if gen_p_mw is None else list(gen_p_mw)
        slack_vm = [g["vm_pu"] for g in gens if pos[g["bus"]] == slack]
        return cls(
            base_mva=float(inputs["base_mva"]),
            vn_kv=tuple(float(b["vn_kv"]) for b in inputs["buses"]),
            branches=tuple(
                ppn.BranchData(pos[b["from_bus"]], pos[b["to_bus"]], float(b["r_pu"]), float(b["x_pu"]),
                               float(b.get("b_pu", 0.0)), float(b.get("tap_ratio", 1.0)), float(b.get("phase_shift_deg", 0.0)))
                for b in inputs["branches"]
            ),
            loads=tuple((pos[ld["bus"]], float(ld["p_mw"]), float(ld.get("q_mvar", 0.0))) for ld in inputs["loads"]),
            gens=tuple((pos[g["bus"]], float(p), float(g["vm_pu"])) for g, p in zip(gens, p_set, strict=True) if pos[g["bus"]] != slack),
            slack_bus=slack,
            slack_vm_pu=float(slack_vm[0]) if slack_vm else float(inputs.get("slack_vm_pu", 1.0)),
            frequency_hz=float(inputs.get("frequency_hz", 50.0)),
            shunts=tuple((pos[sh["bus"]], float(sh.get("g_pu", 0.0)), float(sh.get("b_pu", 0.0)))
                         for sh in inputs.get("shunts", ())),
        )


@dataclass(frozen=True)
class AcFlows:
    """Branch active flows (MW) at both ends, in the case's branch order (NaN for a branch out of
    service), the buses left without supply, and the slack's active injection (MW)."""

    p_from_mw: np.ndarray
    p_to_mw: np.ndarray
    islanded_buses: tuple[int, ...]
    slack_p_mw: float

    @property
    def islanded(self) -> bool:
        return bool(self.islanded_buses)

    @property
    def active_flow_mw(self) -> np.ndarray:
        """The larger of the two ends' active flows in magnitude — the quantity an MW rating
        on active power is compared with (the ends differ by the branch's losses)."""
        return np.fmax(np.abs(self.p_from_mw), np.abs(self.p_to_mw))


@dataclass
class PreparedNet:
    """A case's net with its branch elements (``("line"|"trafo", index)``), its generators,
    and the lock every check on it holds (pandapower is not thread-safe)."""

    net: Any
    elements: list[tuple[str, int]]
    gen_index: list[int]
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    #: the lightsim2grid model of ``net`` (built on first use; ``False`` when unavailable)
    fast: Any = field(default=None, repr=False)


def _fast_model(p: PreparedNet) -> Any:
    """The lightsim2grid model of ``p.net`` (built once), or ``False``: element tables must be
    indexed ``0..n-1`` (lightsim2grid numbers elements by position) and one ext_grid the slack."""
    if not fast_path_enabled():
        return False
    if p.fast is None:
        p.fast = False
        net = p.net
        contiguous = all(list(net[t].index) == list(range(len(net[t]))) for t in ("bus", "line", "trafo", "gen"))
        if contiguous and len(net.ext_grid) == 1:
            try:
                import warnings

                from lightsim2grid.gridmodel import init_from_pandapower

                ppn.run_power_flow(net, trafo_model="t")  # lightsim2grid converts from a T-model run
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # its notes on the slack taken from the ext_grid
                    p.fast = init_from_pandapower(net)
            except Exception:  # noqa: BLE001 - an element lightsim2grid cannot take: runpp it is
                p.fast = False
    return p.fast


def _flows_fast(p: PreparedNet, model: Any, out_of_service: Sequence[int], gen_p_mw: Sequence[float] | None,
                base_gen_p_mw: Any) -> AcFlows | None:
    """The AC flows on the lightsim2grid model, or ``None`` when it does not converge. Same start
    as ``runpp(init="dc")``: the generators' and slack's voltage magnitudes, DC angles."""
    from psab.backends.pandapower_pf import MAX_ITERATION, TOLERANCE_MVA, _flat_start

    net = p.net
    toggles = [(kind, int(idx)) for kind, idx in (p.elements[int(k)] for k in out_of_service)]
    if gen_p_mw is not None:
        for g, value in zip(p.gen_index, gen_p_mw, strict=True):
            model.change_p_gen(int(g), float(value))
    for kind, idx in toggles:
        (model.deactivate_powerline if kind == "line" else model.deactivate_trafo)(idx)
    try:
        flat = _flat_start(net)
        tol = TOLERANCE_MVA / float(net.sn_mva)
        v_dc = model.dc_pf(flat.copy(), MAX_ITERATION, tol)
        if v_dc.size == 0:
            return None
        V = model.ac_pf(np.abs(flat) * np.exp(1j * np.angle(v_dc)), MAX_ITERATION, tol)
        if V.size == 0 or not np.all(np.isfinite(V)):
            return None
        n = len(p.elements)
        pf = np.full(n, np.nan)
        pt = np.full(n, np.nan)
        line_from, line_to = model.get_line_res1()[0], model.get_line_res2()[0]
        trafo_hv, trafo_lv = model.get_trafo_res1()[0], model.get_trafo_res2()[0]
        off = set(int(k) for k in out_of_service)
        for k, (kind, idx) in enumerate(p.elements):
            if k in off:
                continue
            a, b = (line_from, line_to) if kind == "line" else (trafo_hv, trafo_lv)
            pf[k], pt[k] = float(a[idx]), float(b[idx])
        slack_p = float(model.get_gen_res()[0][len(net.gen)])  # the ext_grid, added after net.gen
        return AcFlows(pf, pt, (), slack_p)
    finally:
        for kind, idx in toggles:
            (model.reactivate_powerline if kind == "line" else model.reactivate_trafo)(idx)
        if gen_p_mw is not None:  # back to the prepared net's set-points
            for g, value in zip(p.gen_index, base_gen_p_mw, strict=True):
                model.change_p_gen(int(g), float(value))


def build_net(case: AcCase) -> PreparedNet:
    """The pandapower net of ``case`` (buses ``0..n-1`` in case order)."""
    pp = ppn.pandapower()
    net = ppn.empty_net(case.base_mva, case.frequency_hz)
    # bulk creation: pandapower's create_* cost milliseconds per call, per element
    n = len(case.vn_kv)
    pp.create_buses(net, n, vn_kv=np.asarray(case.vn_kv, dtype=float), index=np.arange(n))
    elements = ppn.add_branches(net, case.branches, case.base_mva)
    if case.loads:
        pp.create_loads(net, [int(b) for b, _, _ in case.loads], p_mw=[float(p) for _, p, _ in case.loads],
                        q_mvar=[float(q) for _, _, q in case.loads])
    gens: list[int] = []
    if case.gens:
        gens = [int(i) for i in pp.create_gens(net, [int(b) for b, _, _ in case.gens], p_mw=[float(p) for _, p, _ in case.gens],
                                                vm_pu=[float(v) for _, _, v in case.gens])]
    for b, g, bsh in case.shunts:
        # pandapower's shunt: p_mw and q_mvar consumed at 1 pu voltage (q < 0 for a capacitor)
        pp.create_shunt(net, int(b), q_mvar=-float(bsh) * case.base_mva, p_mw=float(g) * case.base_mva)
    pp.create_ext_grid(net, int(case.slack_bus), vm_pu=float(case.slack_vm_pu))
    return PreparedNet(net, elements, gens)


def prepared(key: Any, case: AcCase) -> PreparedNet:
    """The net of ``case``, built once per ``key`` in this process and shared: check it only
    through :func:`flows`, which leaves it as it found it."""
    return ppn.NETS.get_or_compute(("pandapower_ac_checks", key), lambda: build_net(case))


def _set_in_service(p: PreparedNet, positions: Sequence[int], value: bool) -> None:
    for k in positions:
        kind, idx = p.elements[int(k)]
        p.net[kind].at[idx, "in_service"] = value


def flows(p: PreparedNet, out_of_service: Sequence[int] = (), gen_p_mw: Sequence[float] | None = None) -> AcFlows:
    """AC active branch flows with the branches at positions ``out_of_service`` opened and,
    optionally, the generators' set-points replaced by ``gen_p_mw`` (case order of ``gens``).

    The net's state is restored afterwards. When branches are opened so that some buses lose
    their connection to the slack, no power flow is run and the buses are reported. Raises
    :class:`~psab.errors.SolverError` if the Newton-Raphson power flow does not converge.
    """
    with p.lock:
        _fast_model(p)  # built (once) while the net is as prepared, before _flows changes it
        return _flows(p, out_of_service, gen_p_mw)


def _flows(p: PreparedNet, out_of_service: Sequence[int], gen_p_mw: Sequence[float] | None) -> AcFlows:
    pp = ppn.pandapower()
    net = p.net
    saved_p = None
    if gen_p_mw is not None:
        saved_p = net.gen.loc[p.gen_index, "p_mw"].to_numpy().copy()
        net.gen.loc[p.gen_index, "p_mw"] = np.asarray(gen_p_mw, dtype=float)
    _set_in_service(p, out_of_service, False)
    try:
        from pandapower.topology import unsupplied_buses

        lost = tuple(sorted(int(b) for b in unsupplied_buses(net)))
        n = len(p.elements)
        if lost:
            nan = np.full(n, np.nan)
            return AcFlows(nan, nan.copy(), lost, float("nan"))
        model = p.fast if fast_path_enabled() else False
        if model:
            try:
                fast = _flows_fast(p, model, out_of_service, gen_p_mw, saved_p)
            except Exception:  # noqa: BLE001 - anything lightsim2grid refuses goes to runpp, which judges it
                fast = None
            if fast is not None:
                return fast
        try:
            # Islanding was ruled out above, so pandapower's own connectivity pass is redundant;
            # a DC initial guess converges reliably on heavily loaded post-outage states.
            ppn.run_power_flow(net, init="dc", check_connectivity=False)
        except pp.powerflow.LoadflowNotConverged:
            raise SolverError(f"the AC power flow did not converge with branches {list(out_of_service)} open") from None
        pf = np.full(n, np.nan)
        pt = np.full(n, np.nan)
        line_p = net.res_line[["p_from_mw", "p_to_mw"]].to_numpy() if len(net.line) else np.zeros((0, 2))
        trafo_p = net.res_trafo[["p_hv_mw", "p_lv_mw"]].to_numpy() if len(net.trafo) else np.zeros((0, 2))
        line_pos = {idx: i for i, idx in enumerate(net.line.index)}
        trafo_pos = {idx: i for i, idx in enumerate(net.trafo.index)}
        off = set(int(k) for k in out_of_service)
        for k, (kind, idx) in enumerate(p.elements):
            if k in off:
                continue
            row = line_p[line_pos[idx]] if kind == "line" else trafo_p[trafo_pos[idx]]
            pf[k], pt[k] = float(row[0]), float(row[1])
        slack_p = float(net.res_ext_grid.p_mw.sum())
        return AcFlows(pf, pt, (), slack_p)
    finally:
        _set_in_service(p, out_of_service, True)
        if saved_p is not None:
            net.gen.loc[p.gen_index, "p_mw"] = saved_p


def n_minus_1(p: PreparedNet, outages: Sequence[int] | None = None) -> list[AcFlows]:
    """The AC N-1 loop: :func:`flows` with each branch in ``outages`` (default: all) opened in
    turn, the base case restored between outages."""
    todo = range(len(p.elements)) if outages is None else outages
    return [flows(p, (int(k),)) for k in todo]
