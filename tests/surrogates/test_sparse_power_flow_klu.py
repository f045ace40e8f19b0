"""The sparse Newton-Raphson's KLU step and its caches (issue 24, item 4).

KLU (SuiteSparse through kvxopt, the optional ``fast-nr`` extra) must give SciPy ``splu``'s
voltages to 1e-10 pu in the same number of iterations on pandapower's MATPOWER cases
(case9…case300); the kept ``Y_bus``, Jacobian pattern and symbolic analysis must never be reused
for a different network or bus-type set; and any KLU failure falls back to ``splu``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from psab.surrogates.ac_power_flow import (
    PQ,
    PV,
    SLACK,
    PowerFlowDidNotConverge,
    make_network,
    solve_ac,
)

from conftest import need_backend

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CASES = ("case9", "case14", "case30", "case57", "case118", "case300")


def _need_klu() -> None:
    pytest.importorskip("kvxopt", reason="the fast-nr extra (kvxopt) is not installed")


@pytest.fixture(scope="module")
def networks() -> dict:
    """pandapower's MATPOWER cases as the surrogate's networks (pandapower's own ppc after a flow)."""
    need_backend("pandapower")
    import warnings

    warnings.simplefilter("ignore")
    import pandapower.networks as pn

    from psab.backends import pandapower_net as ppn
    from psab.backends.pandapower_pf import network_from_ppc

    out = {}
    for name in CASES:
        net = getattr(pn, name)()
        ppn.run_power_flow(net)
        out[name] = network_from_ppc(net._ppc)
    return out


@pytest.mark.parametrize("name", CASES)
def test_klu_equals_splu(networks: dict, name: str) -> None:
    """Same voltages (1e-10 pu) and iteration count from a flat start, cold and from the caches."""
    _need_klu()
    from psab.backends import sparse_power_flow as spf

    network = networks[name]
    spf.clear_caches()
    ref = spf.solve_ac_sparse(network, solver="splu")
    cold = spf.solve_ac_sparse(network, solver="klu")
    warm = spf.solve_ac_sparse(network, solver="klu")
    for sol in (cold, warm):
        assert np.max(np.abs(sol.V - ref.V)) <= 1e-10
        assert sol.iterations == ref.iterations
    assert np.array_equal(cold.V, warm.V)  # the kept pattern and analysis change nothing
    if network.n_bus <= 300:  # the dense path, independent of every cache here
        assert np.max(np.abs(solve_ac(network).V - cold.V)) <= 1e-10


def test_changed_injections_and_impedances_reach_fresh_results(networks: dict) -> None:
    """The reward regime: the same network object solved again, then with other loads (same
    Y_bus and pattern) and with one impedance changed (another Y_bus, same pattern) — each equals
    a solve with emptied caches, and the changed impedance does move the voltages."""
    from psab.backends import sparse_power_flow as spf

    base = networks["case30"]
    loads = dataclasses.replace(base, p_load_mw=base.p_load_mw * 1.05, q_load_mvar=base.q_load_mvar * 0.9)
    x = base.x_pu.copy()
    x[3] *= 1.5
    impedance = dataclasses.replace(base, x_pu=x)
    spf.clear_caches()
    fresh = {}
    for key, network in (("base", base), ("loads", loads), ("impedance", impedance)):
        spf.clear_caches()
        fresh[key] = solve_ac(network).V
    spf.clear_caches()
    for key, network in (("base", base), ("base", base), ("loads", loads), ("impedance", impedance), ("base", base)):
        assert np.max(np.abs(spf.solve_ac_sparse(network).V - fresh[key])) <= 1e-10, key
    assert np.max(np.abs(fresh["impedance"] - fresh["base"])) > 1e-4
    assert np.max(np.abs(fresh["loads"] - fresh["base"])) > 1e-4
    assert len(spf._YBUS_CACHE) == 2  # base and loads share one Y_bus


def test_bus_type_change_gets_its_own_pattern(networks: dict) -> None:
    """Tight reactive limits on case14 switch PV buses to PQ inside one solve (another Jacobian
    pattern); the sparse path lands on the dense path's voltages and limits, cold and cached."""
    from psab.backends import sparse_power_flow as spf

    network = networks["case14"]
    pv = np.asarray(network.bus_type) == PV
    limited = dataclasses.replace(network, q_min_mvar=np.where(pv, -4.0, -1e3), q_max_mvar=np.where(pv, 12.0, 1e3))
    dense = solve_ac(limited, enforce_q_limits=True)
    assert dense.limited_buses, "the limits must bind, or this test checks nothing"
    spf.clear_caches()
    for _ in range(2):
        sparse = spf.solve_ac_sparse(limited, enforce_q_limits=True)
        assert sparse.limited_buses == dense.limited_buses
        assert np.max(np.abs(sparse.V - dense.V)) <= 1e-10
        assert sparse.iterations == dense.iterations
    plain = spf.solve_ac_sparse(network)  # the original bus types again: its own pattern, not the PQ one
    assert np.max(np.abs(plain.V - solve_ac(network).V)) <= 1e-10


def test_caches_stay_bounded(networks: dict) -> None:
    """More distinct networks than CACHE_SIZE: neither cache grows past it."""
    from psab.backends import sparse_power_flow as spf

    base = networks["case9"]
    spf.clear_caches()
    for k in range(spf.CACHE_SIZE + 5):
        spf.solve_ac_sparse(dataclasses.replace(base, r_pu=base.r_pu * (1.0 + 0.01 * k)))
    assert len(spf._YBUS_CACHE) == spf.CACHE_SIZE
    assert len(spf._PATTERN_CACHE) <= spf.CACHE_SIZE


class _BrokenKlu:
    """A KLU whose numeric factorization always fails (as a broken build or a singular pivot would)."""

    def __init__(self, real) -> None:
        self.symbolic = real.symbolic
        self.solve = real.solve

    @staticmethod
    def numeric(*_args):
        raise ArithmeticError("broken")


def test_klu_failure_falls_back_to_splu(networks: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failing KLU is retried with splu (same result as splu alone); without kvxopt "auto"
    is splu and "klu" says why it cannot run."""
    _need_klu()
    from kvxopt import klu

    from psab.backends import sparse_power_flow as spf

    network = networks["case57"]
    spf.clear_caches()
    ref = spf.solve_ac_sparse(network, solver="splu")
    spf.clear_caches()
    monkeypatch.setattr(spf, "_klu", lambda: _BrokenKlu(klu))
    assert np.array_equal(spf.solve_ac_sparse(network, solver="klu").V, ref.V)
    spf.clear_caches()
    monkeypatch.setattr(spf, "_klu", lambda: None)
    assert np.array_equal(spf.solve_ac_sparse(network).V, ref.V)
    with pytest.raises(RuntimeError, match="kvxopt"):
        spf.solve_ac_sparse(network, solver="klu")
    spf.clear_caches()


@pytest.mark.parametrize("solver", ["klu", "splu"])
def test_singular_jacobian_is_a_non_convergence(solver: str) -> None:
    """A PQ bus with no branch makes the Jacobian singular: both solvers report it the same way."""
    if solver == "klu":
        _need_klu()
    from psab.backends import sparse_power_flow as spf

    network = make_network(base_mva=100.0, bus_type=[SLACK, PQ, PQ], from_idx=[0], to_idx=[1],
                           r_pu=[0.01], x_pu=[0.1], p_load_mw=[0, 10, 5])
    spf.clear_caches()
    with pytest.raises(PowerFlowDidNotConverge):
        spf.solve_ac_sparse(network, solver=solver)


def test_unknown_solver_is_refused() -> None:
    from psab.backends.sparse_power_flow import SparseStep, ybus_sparse

    network = make_network(base_mva=100.0, bus_type=[SLACK, PQ], from_idx=[0], to_idx=[1], r_pu=[0.01], x_pu=[0.1])
    with pytest.raises(ValueError, match="solver"):
        SparseStep(ybus_sparse(network), solver="umfpack")
