"""Distance-protection impedance arithmetic: CT/VT conversion, load point, mho geometry."""

from __future__ import annotations

import cmath
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.surrogates.distance import (
    Zone,
    load_impedance,
    mean_clearing_time,
    mho_reach,
    polar,
    segment_coverage,
    to_primary,
    to_secondary,
)


def test_secondary_ohms_follow_ct_over_vt() -> None:
    # 10 Ω primary with CT 600/5 (CTR 120) and VT 138 kV/115 V (VTR 1200): 10·120/1200 = 1.0 Ω
    assert to_secondary(10.0, 120.0, 1200.0) == pytest.approx(1.0)
    # 40 Ω with CT 600/1 and VT 132 kV/110 V (VTR 1200): 40·600/1200 = 20 Ω
    assert abs(to_secondary(polar(40.0, 80.0), 600.0, 1200.0)) == pytest.approx(20.0)
    assert to_primary(20.0, 600.0, 1200.0) == pytest.approx(40.0)


def test_load_impedance() -> None:
    # 132 kV, 150 MVA: 132²/150 = 17424/150 = 116.16 Ω at arccos(0.8) = 36.87°
    z = load_impedance(132.0, 150.0, 0.8)
    assert abs(z) == pytest.approx(116.16)
    assert math.degrees(cmath.phase(z)) == pytest.approx(36.8699, abs=1e-4)
    with pytest.raises(ValueError):
        load_impedance(132.0, 0.0, 0.9)


def test_mho_reach_on_and_off_the_characteristic_angle() -> None:
    assert mho_reach(polar(12.0, 75.0), 75.0) == pytest.approx(12.0)
    # 60° off the angle: |z|/cos 60° = 2|z|
    assert mho_reach(polar(5.0, 15.0), 75.0) == pytest.approx(10.0)
    # behind the relay: never inside a forward mho circle
    assert mho_reach(polar(5.0, 75.0 + 180.0), 75.0) == math.inf
    assert mho_reach(polar(5.0, 75.0 + 91.0), 75.0) == math.inf
    assert mho_reach(0j, 75.0) == 0.0


def test_coverage_of_the_protected_line_is_reach_over_length() -> None:
    # a segment from the relay along the characteristic angle: covered up to R/|Z_L|
    assert segment_coverage(0j, polar(20.0, 80.0), 17.0, 80.0) == pytest.approx((0.0, 0.85))
    assert segment_coverage(0j, polar(20.0, 80.0), 25.0, 80.0) == pytest.approx((0.0, 1.0))
    # an adjacent line seen through infeed 2: 20 + 2·25·y ≤ 64 → y ≤ 0.88
    lo, hi = segment_coverage(polar(20.0, 80.0), 2.0 * polar(25.0, 80.0), 64.0, 80.0)
    assert (lo, hi) == pytest.approx((0.0, 0.88))
    assert segment_coverage(polar(20.0, 80.0), polar(25.0, 80.0), 15.0, 80.0) == (0.0, 0.0)
    assert segment_coverage(0j, polar(20.0, 80.0), -5.0, 80.0) == (0.0, 0.0)


def test_mean_clearing_time_by_hand() -> None:
    # protected line 20 Ω: zone 1 (17 Ω, 0 s) clears 85 %, zone 2 (28 Ω, 0.3 s) the rest; breaker 0.05 s
    mean, first = mean_clearing_time(0j, polar(20.0, 80.0), [Zone(17.0, 0.0), Zone(28.0, 0.3), Zone(64.0, 0.7)], 80.0, 0.05, 2.0)
    assert mean == pytest.approx(0.85 * 0.05 + 0.15 * 0.35)
    assert first == pytest.approx([0.85, 0.15, 0.0])
    # adjacent line beyond a zone-3 hole: 20 + 50y; zone 2 to y = 0.16, zone 3 to 0.88, rest unseen
    mean, first = mean_clearing_time(polar(20.0, 80.0), polar(50.0, 80.0), [Zone(17.0, 0.0), Zone(28.0, 0.3), Zone(64.0, 0.7)], 80.0, 0.05, 2.0)
    assert mean == pytest.approx(0.16 * 0.35 + 0.72 * 0.75 + 0.12 * 2.0)
    assert first == pytest.approx([0.0, 0.16, 0.72])


_angle = st.floats(min_value=60.0, max_value=89.0)


@settings(max_examples=200, deadline=None)
@given(reach=st.floats(min_value=0.5, max_value=200.0), psi=st.floats(min_value=-179.0, max_value=179.0), theta=_angle)
def test_points_on_the_circle_need_exactly_its_reach(reach: float, psi: float, theta: float) -> None:
    # the mho circle: centre R/2 on the characteristic angle, radius R/2
    centre = polar(reach / 2.0, theta)
    z = centre + polar(reach / 2.0, theta + psi)
    if abs(z) < 1e-6 * reach:
        return  # the origin itself
    assert mho_reach(z, theta) == pytest.approx(reach, rel=1e-9)


@settings(max_examples=150, deadline=None)
@given(
    start=st.tuples(st.floats(0.0, 40.0), st.floats(60.0, 89.0)),
    step=st.tuples(st.floats(1.0, 60.0), st.floats(60.0, 89.0)),
    r1=st.floats(1.0, 120.0), r2=st.floats(1.0, 120.0), theta=_angle,
)
def test_coverage_is_the_inside_of_the_circle_and_nested(start, step, r1, r2, theta) -> None:
    a, b = polar(*start), polar(*step)
    small, big = sorted((r1, r2))
    lo_s, hi_s = segment_coverage(a, b, small, theta)
    lo_b, hi_b = segment_coverage(a, b, big, theta)
    if hi_s > lo_s:
        assert lo_b <= lo_s + 1e-9 and hi_b >= hi_s - 1e-9  # nested circles
    for k in range(21):
        y = k / 20
        inside = mho_reach(a + y * b, theta) <= small
        covered = lo_s - 1e-9 <= y <= hi_s + 1e-9 and hi_s > lo_s
        if abs(mho_reach(a + y * b, theta) - small) > 1e-6 * small:
            assert inside == covered, y


@settings(max_examples=100, deadline=None)
@given(r3=st.floats(30.0, 120.0), extra=st.floats(0.0, 30.0), infeed=st.floats(1.0, 2.5))
def test_longer_reach_never_slows_clearing(r3: float, extra: float, infeed: float) -> None:
    zones = lambda r: [Zone(17.0, 0.0), Zone(28.0, 0.3), Zone(r, 0.7)]  # noqa: E731
    seg = (polar(20.0, 80.0), infeed * polar(30.0, 78.0))
    t_short, _ = mean_clearing_time(*seg, zones(r3), 80.0, 0.05, 2.0)
    t_long, _ = mean_clearing_time(*seg, zones(r3 + extra), 80.0, 0.05, 2.0)
    assert t_long <= t_short + 1e-12
