"""The surrogate Newton-Raphson AC power flow: against pandapower on the MATPOWER test cases,
against a closed-form 2-bus solution, and its physics (power balance from branch flows,
sensitivities against finite differences of the power flow itself).

The MATPOWER cases are taken from pandapower's own internal case (``net._ppc``) after a power
flow: that is the network pandapower solved, already in per unit on ``baseMVA`` with its taps,
shifts and shunts, so the comparison tests the solver and not a re-entry of the data.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from psab.surrogates.ac_power_flow import (
    PQ,
    PV,
    SLACK,
    AcNetwork,
    PowerFlowDidNotConverge,
    make_network,
    sensitivity_at,
    solve_ac,
)

from conftest import need_backend

MATPOWER_CASES = ("case9", "case14", "case30")

# pandapower's MATPOWER nets lack tables its newer releases expect; their deprecation notices
# say nothing about the physics under test.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def matpower_nets() -> dict:
    """pandapower's case9/14/30, each loaded once (case14 alone costs ~0.9 s) and solved."""
    need_backend("pandapower")
    import pandapower.networks as pn

    from psab.backends import pandapower_net as ppn

    ppn.pandapower()
    out = {}
    for name in MATPOWER_CASES:
        net = getattr(pn, name)()
        ppn.run_power_flow(net, tolerance_mva=1e-10)
        out[name] = net
    return out


def _pandapower_voltages(net) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """pandapower's result in its ppc bus order (the order of the surrogate's network)."""
    lookup = np.asarray(net._pd2ppc_lookups["bus"])[net.bus.index.to_numpy()]
    order = np.argsort(lookup)
    return lookup[order], net.res_bus.vm_pu.to_numpy()[order], np.radians(net.res_bus.va_degree.to_numpy()[order])


@pytest.mark.parametrize("name", MATPOWER_CASES)
def test_newton_raphson_matches_pandapower_on_matpower_cases(matpower_nets: dict, name: str) -> None:
    from psab.backends.pandapower_pf import network_from_ppc

    net = matpower_nets[name]
    network = network_from_ppc(net._ppc)
    rows, vm_pp, va_pp = _pandapower_voltages(net)
    sol = solve_ac(network)
    assert sol.converged and sol.iterations <= 10
    assert np.max(np.abs(sol.vm_pu[rows] - vm_pp)) <= 1e-6
    assert np.max(np.abs(np.radians(sol.va_deg[rows]) - va_pp)) <= 1e-6


def test_reactive_limits_match_pandapower_enforce_q_lims(matpower_nets: dict) -> None:
    """Tight generator limits on case14: the PV→PQ switching loop lands where pandapower's does."""
    import copy

    from psab.backends import pandapower_net as ppn
    from psab.backends.pandapower_pf import network_from_ppc

    net = copy.deepcopy(matpower_nets["case14"])
    net.gen["max_q_mvar"] = 12.0
    net.gen["min_q_mvar"] = -4.0
    ppn.run_power_flow(net, tolerance_mva=1e-10)
    network = network_from_ppc(net._ppc)
    ppn.run_power_flow(net, tolerance_mva=1e-10, enforce_q_lims=True)
    rows, vm_pp, va_pp = _pandapower_voltages(net)
    sol = solve_ac(network, enforce_q_limits=True)
    assert sol.limited_buses, "the tightened limits must bind somewhere, or this test checks nothing"
    assert np.max(np.abs(sol.vm_pu[rows] - vm_pp)) <= 1e-6
    assert np.max(np.abs(np.radians(sol.va_deg[rows]) - va_pp)) <= 1e-6
    qgen = sol.q_gen_mvar[list(sol.limited_buses)]
    assert np.all((np.abs(qgen - 12.0) < 1e-9) | (np.abs(qgen + 4.0) < 1e-9))


def _small_network() -> AcNetwork:
    """4 buses: slack, a PV generator, a PQ bus with a static generator and a shunt, and a PQ
    load behind an off-nominal, phase-shifting transformer; lines with charging."""
    return make_network(
        base_mva=100.0, bus_type=[SLACK, PV, PQ, PQ],
        from_idx=[0, 0, 1, 2], to_idx=[1, 2, 2, 3],
        r_pu=[0.02, 0.03, 0.025, 0.004], x_pu=[0.08, 0.10, 0.09, 0.06], b_pu=[0.04, 0.03, 0.02, 0.0],
        tap_ratio=[1.0, 1.0, 1.0, 0.96], phase_shift_deg=[0.0, 0.0, 0.0, 4.0],
        p_load_mw=[0, 20, 60, 45], q_load_mvar=[0, 5, 20, 18], p_gen_mw=[0, 50, 10, 0], q_gen_mvar=[0, 0, 3, 0],
        v_set_pu=[1.03, 1.01, 1.0, 1.0], shunt_b_pu=[0, 0, 0.05, 0], slack_angle_deg=0.0,
        vn_kv=[110.0, 110.0, 110.0, 20.0],
    )


def test_compact_network_adapter_matches_surrogate_with_tap_shift_and_injections() -> None:
    """The pandapower adapter (loads, gen, sgen, ext_grid, shunts, a phase-shifting tap) gives
    the surrogate's voltages, with and without extra reactive injections on its sgens."""
    need_backend("pandapower")
    from psab.backends import pandapower_pf

    network = _small_network()
    prepared = pandapower_pf.build_net(network, injection_buses=[2, 3])
    for q in ({}, {2: 8.0, 3: -3.5}):
        extra = np.zeros(4)
        for b, v in q.items():
            extra[b] = v
        sol = solve_ac(network, extra_q_mvar=extra)
        flow = pandapower_pf.run(prepared, q_injection_mvar=q)
        assert flow.converged
        assert np.max(np.abs(sol.vm_pu - flow.vm_pu)) <= 1e-6
        assert np.max(np.abs(sol.va_deg - flow.va_deg)) <= math.degrees(1e-6)


# ------------------------------------------------------------------ closed form


def test_two_bus_lossless_closed_form() -> None:
    """Slack V1 = 1, lossless line j x, purely reactive load Q at bus 2 (P = 0): the received
    reactive power V2 (V1 − V2)/x equals Q, so V2 = (1 + sqrt(1 − 4 x Q)) / 2, and
    ∂V2/∂Q_injected = x / (2 V2 − 1)."""
    x, q_pu = 0.2, 0.28
    net = make_network(base_mva=100.0, bus_type=[SLACK, PQ], from_idx=[0], to_idx=[1], r_pu=[0.0], x_pu=[x],
                       q_load_mvar=[0.0, q_pu * 100.0], v_set_pu=[1.0, 1.0])
    sol = solve_ac(net)
    v2 = (1 + math.sqrt(1 - 4 * x * q_pu)) / 2  # 0.9404543109...
    assert sol.vm_pu[1] == pytest.approx(v2, abs=1e-10)
    assert sol.va_deg[1] == pytest.approx(0.0, abs=1e-9)
    sens = sensitivity_at(net, sol)
    assert sens.dvm_dq[1, 1] == pytest.approx(x / (2 * v2 - 1), rel=1e-9)
    assert sens.dvm_dq[0, :].tolist() == [0.0, 0.0]


# ------------------------------------------------------------------ random networks


def _random_network(seed: int) -> AcNetwork:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    edges = [(int(rng.integers(0, i)), i) for i in range(1, n)]
    for _ in range(int(rng.integers(0, 3))):
        a, b = sorted(int(v) for v in rng.choice(n, 2, replace=False))
        edges.append((a, b))
    m = len(edges)
    types = [SLACK] + [PV if rng.uniform() < 0.25 else PQ for _ in range(n - 1)]
    tap = np.ones(m)
    shift = np.zeros(m)
    k = int(rng.integers(0, m))
    if rng.uniform() < 0.5:
        tap[k] = rng.uniform(0.93, 1.07)
        shift[k] = rng.uniform(-6, 6)
    return make_network(
        base_mva=100.0, bus_type=types,
        from_idx=[e[0] for e in edges], to_idx=[e[1] for e in edges],
        r_pu=rng.uniform(0.005, 0.04, m), x_pu=rng.uniform(0.03, 0.15, m), b_pu=rng.uniform(0.0, 0.04, m),
        tap_ratio=tap, phase_shift_deg=shift,
        p_load_mw=rng.uniform(0, 40, n), q_load_mvar=rng.uniform(0, 15, n),
        p_gen_mw=[rng.uniform(10, 50) if t == PV else 0.0 for t in types], q_gen_mvar=rng.uniform(0, 5, n),
        v_set_pu=rng.uniform(0.98, 1.05, n), shunt_g_pu=rng.uniform(0, 0.01, n), shunt_b_pu=rng.uniform(-0.02, 0.05, n),
        slack_angle_deg=float(rng.uniform(-10, 10)),
    )


def _injections_from_branch_flows(net: AcNetwork, V: np.ndarray) -> np.ndarray:
    """Complex power leaving every bus, summed over π-model branch flows and bus shunts
    (written from the branch model, not from Y_bus)."""
    S = np.zeros(net.n_bus, dtype=complex)
    for f, t, r, x, b, tau, sh in zip(net.from_idx, net.to_idx, net.r_pu, net.x_pu, net.b_pu,
                                      net.tap_ratio, net.phase_shift_deg, strict=True):
        ratio = tau * np.exp(1j * np.radians(sh))
        vf_ideal = V[f] / ratio  # the from voltage seen behind the ideal transformer
        i_series = (vf_ideal - V[t]) / complex(r, x)
        i_from_ideal = i_series + 0.5j * b * vf_ideal
        i_from = i_from_ideal / np.conj(ratio)  # lossless ideal transformer: power preserved
        i_to = -i_series + 0.5j * b * V[t]
        S[f] += V[f] * np.conj(i_from)
        S[t] += V[t] * np.conj(i_to)
    y_sh = net.shunt_g_pu + 1j * net.shunt_b_pu
    S += V * np.conj(y_sh * V)
    return S


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_power_balance_holds_at_the_solution(seed: int) -> None:
    net = _random_network(seed)
    try:
        sol = solve_ac(net)
    except PowerFlowDidNotConverge:
        assume(False)
    S = _injections_from_branch_flows(net, sol.V)
    spec = net.s_spec_pu()
    types = net.bus_type
    assert np.max(np.abs((S.real - spec.real)[types != SLACK])) <= 1e-8
    assert np.max(np.abs((S.imag - spec.imag)[types == PQ]), initial=0.0) <= 1e-8
    assert np.allclose(np.abs(sol.V)[types != PQ], net.v_set_pu[types != PQ], atol=1e-12)
    assert sol.va_deg[types == SLACK][0] == pytest.approx(net.slack_angle_deg, abs=1e-12)
    # what the solution reports as injections is the same physics
    assert np.allclose(sol.p_inj_mw / 100.0, S.real, atol=1e-9)
    assert np.allclose(sol.q_inj_mvar / 100.0, S.imag, atol=1e-9)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_voltage_sensitivities_match_finite_differences(seed: int) -> None:
    """∂|V|/∂Q and ∂|V|/∂P from the inverse Jacobian against central differences of the
    power flow (step 1e-4 pu: truncation error O(h²) ≈ 1e-8)."""
    net = _random_network(seed)
    try:
        sol = solve_ac(net)
    except PowerFlowDidNotConverge:
        assume(False)
    sens = sensitivity_at(net, sol)
    h_mw = 0.01  # 1e-4 pu on 100 MVA
    types = net.bus_type
    for k in range(net.n_bus):
        e = np.zeros(net.n_bus)
        e[k] = h_mw
        up_q = solve_ac(net, extra_q_mvar=e, V0=sol.V).vm_pu
        dn_q = solve_ac(net, extra_q_mvar=-e, V0=sol.V).vm_pu
        fd_q = (up_q - dn_q) / (2 * h_mw / 100.0)
        up_p = solve_ac(net, extra_p_mw=e, V0=sol.V).vm_pu
        dn_p = solve_ac(net, extra_p_mw=-e, V0=sol.V).vm_pu
        fd_p = (up_p - dn_p) / (2 * h_mw / 100.0)
        assert np.allclose(sens.dvm_dq[:, k], fd_q, rtol=1e-4, atol=1e-6), (k, sens.dvm_dq[:, k], fd_q)
        if types[k] != SLACK:
            assert np.allclose(sens.dvm_dp[:, k], fd_p, rtol=1e-4, atol=1e-6), (k, sens.dvm_dp[:, k], fd_p)
    pq = np.flatnonzero(types == PQ)
    # injecting reactive power raises the voltage where it is injected
    assert np.all(np.diag(sens.dvm_dq)[pq] > 0)


# ---------------------------------------------------------------------------- sparse Newton-Raphson


@pytest.mark.parametrize("name", ["case14", "case57", "case118", "case300"])
def test_sparse_newton_raphson_equals_the_dense_one(name: str) -> None:
    """The sparse Y_bus, Jacobian and LU (issue 24) reach the dense path's voltages to 1e-10 pu
    in the same number of iterations, on the MATPOWER cases as pandapower ships them."""
    need_backend("pandapower")
    import warnings

    warnings.simplefilter("ignore")
    import pandapower.networks as pn

    from psab.backends import pandapower_net as ppn
    from psab.backends.pandapower_pf import network_from_ppc
    from psab.backends.sparse_power_flow import SparseStep, solve_ac_sparse, ybus_sparse

    net = getattr(pn, name)()
    ppn.run_power_flow(net)
    network = network_from_ppc(net._ppc)
    Ys = ybus_sparse(network)
    assert np.max(np.abs(Ys.toarray() - network.ybus())) <= 1e-10
    dense = solve_ac(network)
    sparse = solve_ac(network, Y=Ys, step=SparseStep(Ys))
    assert np.max(np.abs(dense.V - sparse.V)) <= 1e-10
    assert dense.iterations == sparse.iterations
    assert np.array_equal(solve_ac_sparse(network).V, sparse.V)
