"""IEEE Std 738-2012 heat balance: the standard's Drake example term by term, an independent
implementation's solar figures, and physical monotonicity.

Published Drake figures (IEEE Std 738 sample calculation: 795 kcmil 26/7 ACSR, D = 28.14 mm,
R25 = 7.283e-5 Ω/m, R75 = 8.688e-5 Ω/m, ε = α = 0.8, T_s = 100 °C, T_a = 40 °C, 0.61 m/s
perpendicular, 30° N, east-west line, clear sky, day 161 at 11:00 solar time, sea level) as
transcribed in pylinerating's tests (github.com/tommz9/pylinerating, tests/test_ieee.py); see
golden/dynamic_thermal_rating/ieee738_drake_example/README.md for the full derivation trail.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.surrogates import ieee738 as m

DRAKE = m.Conductor(diameter_m=0.02814, emissivity=0.8, absorptivity=0.8,
                    t_low_c=25.0, r_low_ohm_m=7.283e-5, t_high_c=75.0, r_high_ohm_m=8.688e-5)


def _drake_example(solar_time_h: float = 11.0) -> m.HeatBalance:
    sun = m.solar_position(30.0, 161, solar_time_h, 90.0)
    flux = m.solar_flux_sea_level(sun.altitude_deg, "clear") * m.elevation_correction(0.0)
    return m.heat_balance(DRAKE, t_surface_c=100.0, t_ambient_c=40.0, wind_speed_m_s=0.61, wind_angle_deg=90.0,
                          elevation_m=0.0, solar_flux_w_m2=flux, solar_incidence_deg=sun.incidence_deg)


def test_drake_air_properties_match_the_published_example() -> None:
    t_film = m.film_temperature_c(100.0, 40.0)
    assert t_film == 70.0
    assert m.air_dynamic_viscosity(t_film) == pytest.approx(2.043e-5, abs=0.0005e-5)
    assert m.air_density(t_film, 0.0) == pytest.approx(1.029, abs=0.0005)
    assert m.air_thermal_conductivity(t_film) == pytest.approx(0.02945, abs=0.000005)


def test_drake_heat_terms_match_the_published_example() -> None:
    hb = _drake_example()
    assert hb.reynolds == pytest.approx(865, abs=1)
    assert hb.k_angle == pytest.approx(1.0, abs=1e-12)
    # the standard rounds its intermediates: unrounded eq. (3a) gives 82.08 against 81.93
    assert hb.q_c1_w_m == pytest.approx(81.93, rel=2.5e-3)
    assert hb.q_c2_w_m == pytest.approx(77.06, abs=0.05)
    assert hb.q_cn_w_m == pytest.approx(42.4, abs=0.05)
    assert hb.q_c_w_m == hb.q_c1_w_m  # the larger forced form governs at 0.61 m/s
    assert hb.q_r_w_m == pytest.approx(39.1, abs=0.05)
    assert hb.resistance_ohm_m == pytest.approx(9.390e-5, abs=0.0005e-5)
    assert hb.q_s_w_m == pytest.approx(22.44, abs=0.05)
    assert hb.ampacity_a == pytest.approx(1025, abs=0.5)


def test_drake_example_is_at_eleven_not_at_noon() -> None:
    """At solar noon the sun is square on the east-west line: more solar gain, a lower rating."""
    noon = _drake_example(12.0)
    assert noon.q_s_w_m > _drake_example(11.0).q_s_w_m
    assert noon.ampacity_a < 1024.0


def test_solar_figures_match_an_independent_implementation() -> None:
    """Latitude 40° N, day 161, solar noon, east-west line, 61 m, α = 0.9, D = 23.2156 mm:
    the values asserted in LineThermalModel.jl's tests (github.com/kersulis/LineThermalModel.jl,
    test/basic.jl), an independent IEEE 738-2012 implementation."""
    dec = m.solar_declination_deg(161)
    assert dec == pytest.approx(23.021449792571953, abs=1e-9)
    sun = m.solar_position(40.0, 161, 12.0, 90.0)
    assert sun.altitude_deg == pytest.approx(73.02144979257197, abs=1e-9)
    assert sun.azimuth_deg == pytest.approx(180.0, abs=1e-9)
    assert sun.incidence_deg == pytest.approx(90.0, abs=1e-9)
    q_s = m.solar_flux_sea_level(sun.altitude_deg, "clear")
    assert q_s == pytest.approx(1025.3693031729497, rel=1e-9)
    k = m.elevation_correction(61.0)
    assert k == pytest.approx(1.00696157132, rel=1e-9)
    assert m.solar_heat_gain(0.9, k * q_s, sun.incidence_deg, 0.0232156) == pytest.approx(21.57325268575338, rel=1e-9)


def test_wind_direction_factor_limits() -> None:
    assert m.wind_direction_factor(90.0) == pytest.approx(1.0, abs=1e-12)
    assert m.wind_direction_factor(0.0) == pytest.approx(0.388, abs=1e-12)  # wind along the conductor


# ------------------------------------------------------------------ properties

weather = dict(
    t_ambient=st.floats(-20.0, 45.0), wind=st.floats(0.0, 15.0), angle=st.floats(0.0, 90.0),
    flux=st.floats(0.0, 1100.0), incidence=st.floats(0.0, 90.0), elevation=st.floats(0.0, 3000.0),
)


def _balance(t_ambient: float, wind: float, angle: float, flux: float, incidence: float, elevation: float,
             t_max: float = 100.0) -> m.HeatBalance:
    return m.heat_balance(DRAKE, t_surface_c=t_max, t_ambient_c=t_ambient, wind_speed_m_s=wind, wind_angle_deg=angle,
                          elevation_m=elevation, solar_flux_w_m2=flux, solar_incidence_deg=incidence)


def _ampacity(*args: float) -> float:
    return _balance(*args).ampacity_a


@settings(max_examples=200, deadline=None)
@given(**weather, more=st.floats(0.01, 10.0))
def test_ampacity_increases_with_wind_speed(t_ambient, wind, angle, flux, incidence, elevation, more) -> None:
    slow = _balance(t_ambient, wind, angle, flux, incidence, elevation)
    fast = _ampacity(t_ambient, wind + more, angle, flux, incidence, elevation)
    assert fast >= slow.ampacity_a - 1e-9
    if slow.q_c_w_m > slow.q_cn_w_m and slow.ampacity_a > 0:  # forced convection governs: strictly more cooling
        assert fast > slow.ampacity_a


@settings(max_examples=200, deadline=None)
@given(**weather, warmer=st.floats(0.5, 20.0))
def test_ampacity_decreases_with_ambient_temperature(t_ambient, wind, angle, flux, incidence, elevation, warmer) -> None:
    cold = _ampacity(t_ambient, wind, angle, flux, incidence, elevation)
    warm = _ampacity(t_ambient + warmer, wind, angle, flux, incidence, elevation)
    assert warm < cold or cold == 0.0


@settings(max_examples=200, deadline=None)
@given(**weather, brighter=st.floats(1.0, 500.0))
def test_ampacity_decreases_with_solar_heat(t_ambient, wind, angle, flux, incidence, elevation, brighter) -> None:
    assume_sun = incidence > 1.0
    dim = _ampacity(t_ambient, wind, angle, flux, incidence, elevation)
    bright = _ampacity(t_ambient, wind, angle, flux + brighter, incidence, elevation)
    assert bright <= dim
    if assume_sun and dim > 0:
        assert bright < dim


@settings(max_examples=100, deadline=None)
@given(latitude=st.floats(0.0, 66.0), day=st.integers(1, 365), hours=st.floats(0.1, 6.0))
def test_solar_position_is_symmetric_about_noon(latitude: float, day: int, hours: float) -> None:
    before = m.solar_position(latitude, day, 12.0 - hours, 0.0)
    after = m.solar_position(latitude, day, 12.0 + hours, 0.0)
    assert before.altitude_deg == pytest.approx(after.altitude_deg, abs=1e-9)
    # mirror images about the meridian (azimuth measured clockwise from north)
    if before.altitude_deg > 0:
        assert before.azimuth_deg + after.azimuth_deg == pytest.approx(360.0, abs=1e-7)
        assert 0.0 < before.azimuth_deg < 180.0 < after.azimuth_deg < 360.0
    noon = m.solar_position(latitude, day, 12.0, 0.0)
    assert noon.altitude_deg >= before.altitude_deg


def test_no_solar_flux_with_the_sun_below_the_horizon() -> None:
    night = m.solar_position(30.0, 161, 0.5, 90.0)
    assert night.altitude_deg < 0
    assert m.solar_flux_sea_level(night.altitude_deg) == 0.0
    assert math.isclose(m.elevation_correction(0.0), 1.0)
