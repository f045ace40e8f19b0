"""DC power flow, PTDF and LODF: hand-derived golden numbers and physical properties.

The golden numbers are derived by hand in ``golden/contingency_screening/README.md`` and
``golden/contingency_screening/hand_5bus_two_loops/README.md`` (reduced B matrix
inverted by cofactors, PTDF = b_l (X[f_l, i] − X[t_l, i]), LODF = H_lk / (1 − H_kk)); every
expected value below is a fraction written from that derivation, not from the code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.surrogates import dc_flow as dc

# ------------------------------------------------------------------ golden: case A
# 4 buses, slack B1: 1-2 (x 0.1), 1-3 (x 0.2), 2-3 (x 0.08, tap 1.25 → b = 10), 3-4 (x 0.1).
# P2 = +60 MW, P3 = −150 MW, P4 = −50 MW on 100 MVA.


def case_a() -> dc.DcNetwork:
    return dc.DcNetwork.build(4, [0, 0, 1, 2], [1, 2, 2, 3], [0.1, 0.2, 0.08, 0.1], [1.0, 1.0, 1.25, 1.0], None, 0, 100.0)


P_A = np.array([0.0, 60.0, -150.0, -50.0])


def test_case_a_ptdf_flows_angles() -> None:
    net = case_a()
    np.testing.assert_allclose(net.susceptance_pu, [10.0, 5.0, 10.0, 10.0])
    expected_ptdf = np.array([
        # B1    B2     B3    B4
        [0.0, -0.75, -0.5, -0.5],   # 1-2
        [0.0, -0.25, -0.5, -0.5],   # 1-3
        [0.0, 0.25, -0.5, -0.5],    # 2-3
        [0.0, 0.0, 0.0, -1.0],      # 3-4
    ])
    np.testing.assert_allclose(dc.ptdf(net), expected_ptdf, atol=1e-12)
    sol = dc.dc_power_flow(net, P_A)
    np.testing.assert_allclose(sol.flow_mw, [55.0, 85.0, 115.0, 50.0], atol=1e-9)
    np.testing.assert_allclose(sol.theta_rad, [0.0, -0.055, -0.17, -0.22], atol=1e-12)
    assert sol.slack_injection_mw == pytest.approx(140.0)


def test_case_a_lodf_single_loop_and_bridge() -> None:
    net = case_a()
    f = dc.lodf(net)
    assert f.bridge.tolist() == [False, False, False, True]
    expected = np.array([
        [-1.0, 1.0, -1.0],
        [1.0, -1.0, 1.0],
        [-1.0, 1.0, -1.0],
        [0.0, 0.0, 0.0],
    ])
    np.testing.assert_allclose(f.lodf[:, :3], expected, atol=1e-12)
    assert np.all(np.isnan(f.lodf[:, 3]))
    post = dc.post_outage_flows(dc.dc_power_flow(net, P_A).flow_mw, f)
    np.testing.assert_allclose(post[:, 0], [0.0, 140.0, 60.0, 50.0], atol=1e-9)
    np.testing.assert_allclose(post[:, 2], [-60.0, 200.0, 0.0, 50.0], atol=1e-9)


# ------------------------------------------------------------------ golden: case B
# 5 buses, slack B1, all x = 0.1: a 1-2, b 1-3, c 2-3, d 2-4, e 3-4, f 4-5 (radial).
# P2 = +80, P3 = −60, P4 = −100, P5 = −20 MW.


def case_b() -> dc.DcNetwork:
    return dc.DcNetwork.build(5, [0, 0, 1, 1, 2, 3], [1, 2, 2, 3, 3, 4], [0.1] * 6, None, None, 0, 100.0)


P_B = np.array([0.0, 80.0, -60.0, -100.0, -20.0])


def test_case_b_ptdf_and_flows() -> None:
    net = case_b()
    P = dc.ptdf(net)
    np.testing.assert_allclose(P[:5, 1], [-0.625, -0.375, 0.25, 0.125, -0.125], atol=1e-12)
    np.testing.assert_allclose(P[:5, 2], [-0.375, -0.625, -0.25, -0.125, 0.125], atol=1e-12)
    np.testing.assert_allclose(P[:5, 3], [-0.5, -0.5, 0.0, -0.5, -0.5], atol=1e-12)
    np.testing.assert_allclose(P[:, 4], [-0.5, -0.5, 0.0, -0.5, -0.5, -1.0], atol=1e-12)
    flows = dc.dc_power_flow(net, P_B).flow_mw
    np.testing.assert_allclose(flows, [32.5, 67.5, 35.0, 77.5, 42.5, 20.0], atol=1e-9)


def test_case_b_lodf() -> None:
    f = dc.lodf(case_b())
    third = 1.0 / 3.0
    expected = np.array([
        # out: a       b        c     d       e
        [-1.0, 1.0, -0.5, -third, third],            # a
        [1.0, -1.0, 0.5, third, -third],             # b
        [-2 * third, 2 * third, -1.0, 2 * third, -2 * third],  # c
        [-third, third, 0.5, -1.0, 1.0],             # d
        [third, -third, -0.5, 1.0, -1.0],            # e
        [0.0, 0.0, 0.0, 0.0, 0.0],                   # f
    ])
    np.testing.assert_allclose(f.lodf[:, :5], expected, atol=1e-12)
    assert f.bridge.tolist() == [False] * 5 + [True]


def test_case_b_post_outage_flows() -> None:
    net = case_b()
    post = dc.post_outage_flows(dc.dc_power_flow(net, P_B).flow_mw, dc.lodf(net))
    np.testing.assert_allclose(post[:, 3], [20.0 / 3.0, 280.0 / 3.0, 260.0 / 3.0, 0.0, 120.0, 20.0], atol=1e-9)
    np.testing.assert_allclose(post[:, 1], [100.0, 0.0, 80.0, 100.0, 20.0, 20.0], atol=1e-9)
    assert np.all(np.isnan(post[:, 5]))


def test_case_b_double_outage_by_generalized_lodf() -> None:
    """Outage of a (1-2) and c (2-3) leaves a tree; its flows follow from KCL alone."""
    net = case_b()
    flows = dc.dc_power_flow(net, P_B).flow_mw
    out = dc.multi_outage_flows(flows, net, [0, 2])
    np.testing.assert_allclose(out, [0.0, 100.0, 0.0, 80.0, 40.0, 20.0], atol=1e-9)
    assert dc.multi_outage_flows(flows, net, [3, 4]) is None  # B4 and B5 islanded


def test_phase_shifter_as_injections() -> None:
    """Two parallel x = 0.1 branches B1→B2 feeding a 100 MW load at B2, one shifting 0.02 rad:
    f_p = b(Δθ − φ), f_q = bΔθ, f_p + f_q = 1 pu ⇒ Δθ = 0.06, f_p = 0.4 pu, f_q = 0.6 pu."""
    net = dc.DcNetwork.build(2, [0, 0], [1, 1], [0.1, 0.1], None, [math.degrees(0.02), 0.0], 0, 100.0)
    sol = dc.dc_power_flow(net, [0.0, -100.0])
    np.testing.assert_allclose(sol.flow_mw, [40.0, 60.0], atol=1e-9)
    np.testing.assert_allclose(sol.theta_rad, [0.0, -0.06], atol=1e-12)
    np.testing.assert_allclose(dc.shift_flow_mw(net), [-10.0, 10.0], atol=1e-9)


def test_islanded_network_is_reported() -> None:
    with pytest.raises(dc.IslandedNetworkError):
        dc.dc_power_flow(case_b(), P_B, in_service=[True, True, True, False, False, True])


# ------------------------------------------------------------------ properties


@st.composite
def networks(draw: st.DrawFn) -> tuple[dc.DcNetwork, np.ndarray]:
    n = draw(st.integers(min_value=2, max_value=8))
    edges = [(draw(st.integers(min_value=0, max_value=i - 1)), i) for i in range(1, n)]  # spanning tree
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=6))
    edges += [(a, b) for a, b in extra if a != b]
    m = len(edges)
    x = draw(st.lists(st.floats(0.02, 0.3), min_size=m, max_size=m))
    tap = draw(st.lists(st.sampled_from([1.0, 0.95, 1.05]), min_size=m, max_size=m))
    shift = draw(st.lists(st.sampled_from([0.0, 0.0, 5.0, -8.0]), min_size=m, max_size=m))
    slack = draw(st.integers(0, n - 1))
    p = np.array(draw(st.lists(st.floats(-200.0, 200.0), min_size=n, max_size=n)))
    net = dc.DcNetwork.build(n, [a for a, _ in edges], [b for _, b in edges], x, tap, shift, slack, 100.0)
    return net, p


def _bridges_by_search(net: dc.DcNetwork) -> list[bool]:
    return [not dc.is_connected(net, np.arange(net.n_branch) != k) for k in range(net.n_branch)]


@settings(max_examples=80, deadline=None)
@given(networks())
def test_flows_satisfy_kcl(case: tuple[dc.DcNetwork, np.ndarray]) -> None:
    net, p = case
    sol = dc.dc_power_flow(net, p)
    injected = p.copy()
    injected[net.slack] = sol.slack_injection_mw
    assert abs(injected.sum()) < 1e-6
    np.testing.assert_allclose(net.incidence.T @ sol.flow_mw, injected, atol=1e-6)


@settings(max_examples=80, deadline=None)
@given(networks())
def test_ptdf_columns_deliver_one_mw_to_the_slack(case: tuple[dc.DcNetwork, np.ndarray]) -> None:
    """Column i of the PTDF is the flow pattern of 1 MW injected at i and withdrawn at the slack:
    its divergence is +1 at i, −1 at the slack (KCL), and the slack column is zero."""
    net, _ = case
    P = dc.ptdf(net)
    expected = np.eye(net.n_bus)
    expected[net.slack, :] -= 1.0
    expected[:, net.slack] = 0.0
    np.testing.assert_allclose(net.incidence.T @ P, expected, atol=1e-9)


@settings(max_examples=80, deadline=None)
@given(networks())
def test_flows_are_ptdf_times_injections_plus_shifts(case: tuple[dc.DcNetwork, np.ndarray]) -> None:
    net, p = case
    sol = dc.dc_power_flow(net, p)
    np.testing.assert_allclose(dc.ptdf(net) @ p + dc.shift_flow_mw(net), sol.flow_mw, atol=1e-6)


@settings(max_examples=80, deadline=None)
@given(networks())
def test_lodf_diagonal_bridges_and_resolve(case: tuple[dc.DcNetwork, np.ndarray]) -> None:
    net, p = case
    factors = dc.lodf(net)
    assert factors.bridge.tolist() == _bridges_by_search(net)
    sol = dc.dc_power_flow(net, p)
    post = dc.post_outage_flows(sol.flow_mw, factors)
    for k in range(net.n_branch):
        if factors.bridge[k]:
            assert np.all(np.isnan(post[:, k]))
            continue
        assert factors.lodf[k, k] == -1.0
        assert post[k, k] == 0.0
        on = np.arange(net.n_branch) != k
        direct = dc.dc_power_flow(net, p, in_service=on).flow_mw
        direct[k] = 0.0
        np.testing.assert_allclose(post[:, k], direct, atol=1e-6 * max(1.0, np.abs(sol.flow_mw).max()))


@settings(max_examples=60, deadline=None)
@given(networks(), st.data())
def test_generalized_lodf_matches_resolve(case: tuple[dc.DcNetwork, np.ndarray], data: st.DataObject) -> None:
    net, p = case
    outaged = data.draw(st.lists(st.integers(0, net.n_branch - 1), max_size=3, unique=True))
    sol = dc.dc_power_flow(net, p)
    out = dc.multi_outage_flows(sol.flow_mw, net, outaged)
    on = np.ones(net.n_branch, dtype=bool)
    on[outaged] = False
    if not dc.is_connected(net, on):
        assert out is None
        return
    direct = dc.dc_power_flow(net, p, in_service=on).flow_mw
    direct[~on] = 0.0
    assert out is not None
    np.testing.assert_allclose(out, direct, atol=1e-6 * max(1.0, np.abs(sol.flow_mw).max()))


@settings(max_examples=40, deadline=None)
@given(networks())
def test_every_branch_of_a_tree_is_a_bridge(case: tuple[dc.DcNetwork, np.ndarray]) -> None:
    """Radial branches island their side when opened: on the spanning tree alone every branch
    is a bridge; a radial branch added to a meshed network stays one."""
    net, _ = case
    n = net.n_bus
    tree = dc.DcNetwork.build(n, net.from_idx[: n - 1], net.to_idx[: n - 1], net.x_pu[: n - 1])
    if tree.n_branch:
        assert dc.lodf(tree).bridge.all()
    leafy = dc.DcNetwork.build(n + 1, net.from_idx + (0,), net.to_idx + (n,), net.x_pu + (0.1,))
    assert dc.lodf(leafy).bridge[-1]
