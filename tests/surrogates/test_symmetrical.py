"""Symmetrical components and shunt faults: published and hand numbers, and properties."""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.surrogates import symmetrical as sym

finite = st.floats(-1e3, 1e3)
phasors = st.builds(complex, finite, finite)
# Thevenin impedances of a real network: R >= 0, X > 0
impedances = st.builds(complex, st.floats(0.0, 5.0), st.floats(1e-3, 10.0))


def test_operator_a() -> None:
    assert abs(1 + sym.A + sym.A**2) < 1e-15
    assert sym.A**3 == pytest.approx(1.0)
    assert cmath.phase(sym.A) == pytest.approx(2 * math.pi / 3)


@settings(max_examples=50, deadline=None)
@given(a=phasors, b=phasors, c=phasors)
def test_transforms_invert(a: complex, b: complex, c: complex) -> None:
    v = np.array([a, b, c])
    assert np.allclose(sym.phase_from_sequence(sym.sequence_from_phase(v)), v, atol=1e-9)
    assert np.allclose(sym.sequence_from_phase(sym.phase_from_sequence(v)), v, atol=1e-9)


def test_balanced_set_is_pure_positive_sequence() -> None:
    v = np.array([1.0, sym.A**2, sym.A])  # a, b = a·e^(−j120°), c = a·e^(+j120°)
    assert np.allclose(sym.sequence_from_phase(v), [0, 1, 0])


def test_handbook_example_bus_3() -> None:
    """Electric Power Engineering Handbook (L. L. Grigsby, ed., CRC Press / Taylor & Francis 2006),
    "Power System" volume, ch. 4 fault analysis, Fig. 4.8: Z_1 = Z_2 = j0.1422, Z_0 = j0.0452,
    E = 1∠0°. Printed: balanced fault 7.032∠−90°; single phase-to-ground I_0 = I_1 = I_2 =
    −j3.034, I_a = −j9.102."""
    z1 = z2 = 0.1422j
    z0 = 0.0452j
    three = sym.shunt_fault("3ph", 1.0, z1, z2, z0)
    assert abs(three.i_seq[1]) == pytest.approx(7.032, abs=5e-4)
    assert cmath.phase(three.i_seq[1]) == pytest.approx(-math.pi / 2)
    slg = sym.shunt_fault("1ph", 1.0, z1, z2, z0)
    for i in slg.i_seq:
        assert i == pytest.approx(-3.034j, abs=5e-4)
    assert slg.i_phase[0] == pytest.approx(-9.102j, abs=5e-4)


@settings(max_examples=60, deadline=None)
@given(z1=impedances, zf=st.builds(complex, st.floats(0.0, 2.0), st.just(0.0)), e=st.floats(0.5, 1.2))
def test_single_line_to_ground_equals_three_phase_when_z0_equals_z1(z1: complex, zf: complex, e: float) -> None:
    slg = sym.shunt_fault("1ph", e, z1, z1, z1)
    three = sym.shunt_fault("3ph", e, z1, z1, z1)
    assert abs(slg.i_phase[0]) == pytest.approx(abs(three.i_seq[1]), rel=1e-12)
    # and with Z_0 = Z_1 the healthy phases keep their prefault magnitude
    assert abs(slg.v_phase[1]) == pytest.approx(e, rel=1e-9)
    assert abs(slg.v_phase[2]) == pytest.approx(e, rel=1e-9)
    with_zf = sym.shunt_fault("1ph", e, z1, z1, z1, zf)
    assert abs(with_zf.i_phase[0]) <= abs(slg.i_phase[0]) + 1e-12


@settings(max_examples=60, deadline=None)
@given(z1=impedances, z2=impedances, z0=impedances, zf=impedances, e=st.floats(0.5, 1.2))
def test_fault_boundary_conditions(z1: complex, z2: complex, z0: complex, zf: complex, e: float) -> None:
    slg = sym.shunt_fault("1ph", e, z1, z2, z0, zf)
    ia, ib, ic = slg.i_phase
    va, _, _ = slg.v_phase
    assert abs(ib) < 1e-9 * max(1.0, abs(ia)) and abs(ic) < 1e-9 * max(1.0, abs(ia))
    assert va == pytest.approx(zf * ia, abs=1e-9)
    ll = sym.shunt_fault("2ph", e, z1, z2, z0)
    ia, ib, ic = ll.i_phase
    assert abs(ia) < 1e-9 and ib == pytest.approx(-ic, abs=1e-9)
    _, vb, vc = ll.v_phase
    assert vb == pytest.approx(vc, abs=1e-9)
    dlg = sym.shunt_fault("2ph_ground", e, z1, z2, z0, zf)
    ia, ib, ic = dlg.i_phase
    _, vb, vc = dlg.v_phase
    assert abs(ia) < 1e-9
    assert vb == pytest.approx(vc, abs=1e-9)
    assert vb == pytest.approx(zf * (ib + ic), abs=1e-8)


@settings(max_examples=40, deadline=None)
@given(z1=impedances, e=st.floats(0.5, 1.2))
def test_line_to_line_is_root3_over_2_of_three_phase(z1: complex, e: float) -> None:
    ll = sym.shunt_fault("2ph", e, z1, z1, z1)
    three = sym.shunt_fault("3ph", e, z1, z1, z1)
    assert abs(ll.i_phase[1]) == pytest.approx(math.sqrt(3) / 2 * abs(three.i_seq[1]), rel=1e-12)


def test_iec_line_to_earth_formula_by_hand() -> None:
    # Z_1 = Z_2 = 0.2 + j2 Ω, Z_0 = 0.6 + j6 Ω, c = 1.1, U_n = 20 kV:
    # |2Z_1 + Z_0| = |1.0 + j10| = 10.04988 Ω, I″k1 = 38.10512/10.04988 = 3.791601 kA
    assert sym.ikss1_ka(1.1, 20.0, 0.2 + 2j, 0.6 + 6j) == pytest.approx(3.791601, abs=1e-6)
    # I″k2 = 1.1·20/|0.4 + j4| = 22/4.019950 = 5.472705 kA
    assert sym.ikss2_ka(1.1, 20.0, 0.2 + 2j) == pytest.approx(5.472705, abs=1e-6)


@settings(max_examples=40, deadline=None)
@given(z1=impedances, z0=impedances, c=st.floats(0.9, 1.1), un=st.floats(0.4, 400.0))
def test_iec_forms_agree_with_sequence_networks(z1: complex, z0: complex, c: float, un: float) -> None:
    e = c * un / math.sqrt(3)
    assert sym.ikss1_ka(c, un, z1, z0) == pytest.approx(abs(sym.shunt_fault("1ph", e, z1, z1, z0).i_phase[0]), rel=1e-12)
    assert sym.ikss2_ka(c, un, z1) == pytest.approx(abs(sym.shunt_fault("2ph", e, z1, z1, z0).i_phase[1]), rel=1e-12)
    assert sym.ikss_e2e_ka(c, un, z1, z0) == pytest.approx(abs(sym.shunt_fault("2ph_ground", e, z1, z1, z0).earth_current), rel=1e-12)


def test_transformer_zero_sequence_by_vector_group() -> None:
    z = 0.05 + 1.2j
    assert sym.transformer_zero_sequence("Dyn", z).from_lv_ohm() == z
    # a 10 Ω neutral resistor appears as 30 Ω
    assert sym.transformer_zero_sequence("Dyn", z, neutral_lv_ohm=10.0).from_lv_ohm() == pytest.approx(z + 30.0)
    # delta and unearthed star windings block the zero sequence at the LV terminal
    for g in ("Dy", "Yd", "Yy", "Dd", "YNd"):
        assert sym.transformer_zero_sequence(g, z).from_lv_ohm(0.1 + 1j) is None
    # Yyn: only the magnetizing path; without it (infinite Z_m0) nothing
    assert sym.transformer_zero_sequence("Yyn", z, z_m0_ohm=6j).from_lv_ohm() == pytest.approx(z + 6j)
    assert sym.transformer_zero_sequence("Yyn", z).from_lv_ohm() is None
    # YNyn without a magnetizing path: the HV network in series with the whole Z_(0)T
    t = sym.transformer_zero_sequence("YNyn", z, hv_share=0.4)
    assert t.from_lv_ohm(0.3 + 2j) == pytest.approx(z + 0.3 + 2j)
    assert t.from_lv_ohm(None) is None
    # YNyn with Z_m0: LV leg + (Z_m0 ∥ (HV leg + Z_Q0))
    t = sym.transformer_zero_sequence("YNyn", z, z_m0_ohm=5j, hv_share=0.5)
    hv = 0.5 * z + (0.3 + 2j)
    assert t.from_lv_ohm(0.3 + 2j) == pytest.approx(0.5 * z + 5j * hv / (5j + hv))
    with pytest.raises(ValueError):
        sym.transformer_zero_sequence("Dyn11", z)
