"""IEC 60364-5-52 / 60364-4-43 cable arithmetic: hand values and properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.surrogates.cable import (
    K_ADIABATIC,
    adiabatic_min_size_mm2,
    adiabatic_withstand_time_s,
    corrected_capacity,
    table_value,
    voltage_drop_pct,
    voltage_drop_v,
)


def test_table_43a_constants() -> None:
    assert K_ADIABATIC[("copper", "PVC")] == 115
    assert K_ADIABATIC[("copper", "XLPE")] == 143
    assert K_ADIABATIC[("aluminium", "PVC")] == 76
    assert K_ADIABATIC[("aluminium", "XLPE")] == 94


def test_corrected_capacity_by_hand() -> None:
    # 95 mm² Cu/XLPE method C 278 A, 40 °C (0.91), 3 circuits on a wall (0.79): 278·0.91·0.79 = 199.854 A
    assert corrected_capacity(278.0, 0.91, 0.79) == pytest.approx(199.8542)
    assert corrected_capacity(278.0, 0.91, 0.79, k_soil=0.5) == pytest.approx(99.9271)


def test_voltage_drop_by_hand() -> None:
    # Annex G, three-phase: 16 mm² Cu, 100 m, 50 A, cos φ = 0.8 (sin 0.6):
    # u = (0.0225·100/16·0.8 + 0.00008·100·0.6)·50 = (0.1125 + 0.0048)·50 = 5.865 V → 2.55 % of 230 V
    u = voltage_drop_v(50.0, 100.0, 16.0, 0.8, resistivity_ohm_mm2_per_m=0.0225)
    assert u == pytest.approx(5.865)
    assert voltage_drop_pct(u, 230.0) == pytest.approx(2.55)
    # single-phase doubles it (b = 2)
    assert voltage_drop_v(50.0, 100.0, 16.0, 0.8, resistivity_ohm_mm2_per_m=0.0225, b=2.0) == pytest.approx(11.73)
    with pytest.raises(ValueError):
        voltage_drop_v(50.0, 100.0, 0.0, 0.8, resistivity_ohm_mm2_per_m=0.0225)


def test_adiabatic_by_hand() -> None:
    # 10 kA for 0.5 s in Cu/XLPE: 10000·0.707107/143 = 49.448 mm²
    assert adiabatic_min_size_mm2(10_000.0, 0.5, 143.0) == pytest.approx(49.448, abs=1e-3)
    # 2.5 mm² Cu/PVC at 1 kA: t = (115·2.5/1000)² = 0.2875² = 0.08266 s
    assert adiabatic_withstand_time_s(2.5, 1000.0, 115.0) == pytest.approx(0.08265625)


def test_table_lookup_is_exact() -> None:
    rows = [{"ambient_c": 35, "f": 0.94}, {"ambient_c": 40, "f": 0.87}]
    assert table_value(rows, "ambient_c", 40.0, "f") == 0.87
    with pytest.raises(KeyError):
        table_value(rows, "ambient_c", 37.5, "f")  # never interpolated


_factor = st.floats(min_value=0.3, max_value=1.3)


@settings(max_examples=150, deadline=None)
@given(i=st.floats(1.0, 1000.0), kt=_factor, kg=_factor, kt2=_factor)
def test_corrected_capacity_is_monotone_in_each_factor(i: float, kt: float, kg: float, kt2: float) -> None:
    lo, hi = sorted((kt, kt2))
    assert corrected_capacity(i, lo, kg) <= corrected_capacity(i, hi, kg)
    assert corrected_capacity(i, kg, lo) <= corrected_capacity(i, kg, hi)


@settings(max_examples=150, deadline=None)
@given(i=st.floats(1.0, 500.0), length=st.floats(1.0, 500.0), s1=st.floats(1.5, 300.0), s2=st.floats(1.5, 300.0),
       pf=st.floats(0.5, 1.0), c=st.floats(0.1, 5.0))
def test_voltage_drop_falls_with_size_and_is_linear_in_current_and_length(i, length, s1, s2, pf, c) -> None:
    vd = lambda i_, l_, s_: voltage_drop_v(i_, l_, s_, pf, resistivity_ohm_mm2_per_m=0.0225)  # noqa: E731
    small, big = sorted((s1, s2))
    assert vd(i, length, big) <= vd(i, length, small) + 1e-12
    assert vd(c * i, length, small) == pytest.approx(c * vd(i, length, small), rel=1e-12)
    assert vd(i, c * length, small) == pytest.approx(c * vd(i, length, small), rel=1e-12)


@settings(max_examples=150, deadline=None)
@given(i=st.floats(100.0, 50_000.0), t=st.floats(0.01, 5.0), k=st.sampled_from([76.0, 94.0, 115.0, 143.0]))
def test_adiabatic_minimum_withstands_exactly_the_clearing_time(i: float, t: float, k: float) -> None:
    s_min = adiabatic_min_size_mm2(i, t, k)
    assert adiabatic_withstand_time_s(s_min, i, k) == pytest.approx(t, rel=1e-12)
    assert adiabatic_min_size_mm2(2 * i, t, k) == pytest.approx(2 * s_min, rel=1e-12)
    assert adiabatic_min_size_mm2(i, 4 * t, k) == pytest.approx(2 * s_min, rel=1e-12)
    assert math.isfinite(s_min)
