"""Steady-state thermal rating of bare overhead conductors, IEEE Std 738-2012.

The heat balance of a conductor at its maximum temperature ``T_s`` (eq. (1b))::

    I = sqrt((q_c + q_r − q_s) / R(T_s))

with the convective loss ``q_c`` (the larger of the forced-convection forms q_c1, eq. (3a), and
q_c2, eq. (3b), with the wind direction factor K_angle, eq. (4a); natural convection q_cn,
eq. (5a), when it is larger), the radiated loss ``q_r`` (eq. (7a)), the solar gain ``q_s``
(eq. (8)), air properties at the film temperature (eqs. (6), (13a), (14a), (15a)), the solar
position (eqs. (16a), (16b), (17a), (17b), Table 2), the clear/industrial-atmosphere heat flux
(eq. (18), Table 3) with its elevation correction (eqs. (19), (20)), and the resistance
interpolated linearly between two temperatures (eq. (10)).

SI units throughout: metres, m/s, °C, W/m, W/m², Ω/m, amperes. Each term is its own pure
function so that the standard's worked example can be checked term by term.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Table 3, SI: coefficients A..G of Q_s = A + B·Hc + C·Hc² + … + G·Hc⁶ (W/m², Hc in degrees).
SOLAR_FLUX_COEFFICIENTS = {
    "clear": (-42.2391, 63.8044, -1.9220, 3.46921e-2, -3.61118e-4, 1.94318e-6, -4.07608e-9),
    "industrial": (53.1821, 14.2110, 6.6138e-1, -3.1658e-2, 5.4654e-4, -4.3446e-6, 1.3236e-8),
}


# ------------------------------------------------------------------ air properties


def film_temperature_c(t_surface_c: float, t_ambient_c: float) -> float:
    """T_film = (T_s + T_a) / 2 (eq. (6))."""
    return 0.5 * (t_surface_c + t_ambient_c)


def air_dynamic_viscosity(t_film_c: float) -> float:
    """μ_f = 1.458e-6 (T_film + 273)^1.5 / (T_film + 383.4), Pa·s (eq. (13a))."""
    return 1.458e-6 * (t_film_c + 273.0) ** 1.5 / (t_film_c + 383.4)


def air_density(t_film_c: float, elevation_m: float) -> float:
    """ρ_f = (1.293 − 1.525e-4 H_e + 6.379e-9 H_e²) / (1 + 0.00367 T_film), kg/m³ (eq. (14a))."""
    return (1.293 - 1.525e-4 * elevation_m + 6.379e-9 * elevation_m**2) / (1.0 + 0.00367 * t_film_c)


def air_thermal_conductivity(t_film_c: float) -> float:
    """k_f = 2.424e-2 + 7.477e-5 T_film − 4.407e-9 T_film², W/(m·°C) (eq. (15a))."""
    return 2.424e-2 + 7.477e-5 * t_film_c - 4.407e-9 * t_film_c**2


def reynolds_number(diameter_m: float, air_density_kg_m3: float, wind_speed_m_s: float, viscosity_pa_s: float) -> float:
    """N_Re = D ρ_f V_w / μ_f (eq. (2c))."""
    return diameter_m * air_density_kg_m3 * wind_speed_m_s / viscosity_pa_s


def wind_direction_factor(wind_angle_deg: float) -> float:
    """K_angle = 1.194 − cos φ + 0.194 cos 2φ + 0.368 sin 2φ (eq. (4a)), φ the angle between
    the wind and the conductor axis (90° = perpendicular, K = 1)."""
    phi = math.radians(wind_angle_deg)
    return 1.194 - math.cos(phi) + 0.194 * math.cos(2 * phi) + 0.368 * math.sin(2 * phi)


# ------------------------------------------------------------------ heat terms


def forced_convection_low_wind(k_angle: float, n_re: float, k_f: float, t_surface_c: float, t_ambient_c: float) -> float:
    """q_c1 = K_angle [1.01 + 1.35 N_Re^0.52] k_f (T_s − T_a), W/m (eq. (3a))."""
    return k_angle * (1.01 + 1.35 * n_re**0.52) * k_f * (t_surface_c - t_ambient_c)


def forced_convection_high_wind(k_angle: float, n_re: float, k_f: float, t_surface_c: float, t_ambient_c: float) -> float:
    """q_c2 = K_angle 0.754 N_Re^0.6 k_f (T_s − T_a), W/m (eq. (3b))."""
    return k_angle * 0.754 * n_re**0.6 * k_f * (t_surface_c - t_ambient_c)


def natural_convection(air_density_kg_m3: float, diameter_m: float, t_surface_c: float, t_ambient_c: float) -> float:
    """q_cn = 3.645 ρ_f^0.5 D^0.75 (T_s − T_a)^1.25, W/m (eq. (5a))."""
    dt = max(t_surface_c - t_ambient_c, 0.0)
    return 3.645 * math.sqrt(air_density_kg_m3) * diameter_m**0.75 * dt**1.25


def radiated_heat_loss(diameter_m: float, emissivity: float, t_surface_c: float, t_ambient_c: float) -> float:
    """q_r = 17.8 D ε [((T_s + 273)/100)^4 − ((T_a + 273)/100)^4], W/m (eq. (7a))."""
    return 17.8 * diameter_m * emissivity * (((t_surface_c + 273.0) / 100.0) ** 4 - ((t_ambient_c + 273.0) / 100.0) ** 4)


def solar_heat_gain(absorptivity: float, flux_w_m2: float, incidence_deg: float, diameter_m: float) -> float:
    """q_s = α Q_se sin θ A′ with A′ = D the projected area per metre, W/m (eq. (8))."""
    return absorptivity * flux_w_m2 * math.sin(math.radians(incidence_deg)) * diameter_m


def resistance_at(t_c: float, t_low_c: float, r_low_ohm_m: float, t_high_c: float, r_high_ohm_m: float) -> float:
    """R(T) by linear interpolation (or extrapolation) between two AC resistances (eq. (10))."""
    return r_low_ohm_m + (r_high_ohm_m - r_low_ohm_m) * (t_c - t_low_c) / (t_high_c - t_low_c)


# ------------------------------------------------------------------ solar position


def solar_declination_deg(day_of_year: int) -> float:
    """δ = 23.46 sin[(284 + N)/365 · 360°] (eq. (16b))."""
    return 23.46 * math.sin(math.radians((284.0 + day_of_year) / 365.0 * 360.0))


def hour_angle_deg(solar_time_h: float) -> float:
    """ω = 15° per hour from solar noon (negative before noon)."""
    return 15.0 * (solar_time_h - 12.0)


def solar_altitude_deg(latitude_deg: float, declination_deg: float, hour_angle: float) -> float:
    """H_c = arcsin[cos(Lat) cos(δ) cos(ω) + sin(Lat) sin(δ)] (eq. (16a))."""
    lat, dec, om = (math.radians(v) for v in (latitude_deg, declination_deg, hour_angle))
    arg = math.cos(lat) * math.cos(dec) * math.cos(om) + math.sin(lat) * math.sin(dec)
    return math.degrees(math.asin(max(-1.0, min(1.0, arg))))


def solar_azimuth_deg(latitude_deg: float, declination_deg: float, hour_angle: float) -> float:
    """Z_c = C + arctan(χ), χ = sin ω / (sin Lat cos ω − cos Lat tan δ) (eqs. (17a), (17b)),
    with the constant C of Table 2 (0°/180° before noon, 180°/360° after, by the sign of χ)."""
    lat, dec, om = (math.radians(v) for v in (latitude_deg, declination_deg, hour_angle))
    denominator = math.sin(lat) * math.cos(om) - math.cos(lat) * math.tan(dec)
    if denominator == 0.0:
        chi = math.copysign(math.inf, math.sin(om)) if math.sin(om) else 0.0
    else:
        chi = math.sin(om) / denominator
    if -180.0 <= hour_angle < 0.0:
        c = 0.0 if chi >= 0.0 else 180.0
    else:
        c = 180.0 if chi >= 0.0 else 360.0
    return c + math.degrees(math.atan(chi))


def solar_incidence_deg(altitude_deg: float, azimuth_deg: float, line_azimuth_deg: float) -> float:
    """θ = arccos[cos(H_c) cos(Z_c − Z_l)] (eq. (9)), the angle of the sun's rays to the line axis."""
    arg = math.cos(math.radians(altitude_deg)) * math.cos(math.radians(azimuth_deg - line_azimuth_deg))
    return math.degrees(math.acos(max(-1.0, min(1.0, arg))))


def solar_flux_sea_level(altitude_deg: float, atmosphere: str = "clear") -> float:
    """Q_s, total heat flux density at sea level on a surface normal to the sun's rays for a
    clear or industrial atmosphere, W/m² (eq. (18), Table 3); 0 with the sun below the horizon."""
    if altitude_deg <= 0.0:
        return 0.0
    coeffs = SOLAR_FLUX_COEFFICIENTS[atmosphere]
    return max(0.0, sum(c * altitude_deg**k for k, c in enumerate(coeffs)))


def elevation_correction(elevation_m: float) -> float:
    """K_solar = 1 + 1.148e-4 H_e − 1.108e-8 H_e² (eq. (20)); Q_se = K_solar Q_s (eq. (19))."""
    return 1.0 + 1.148e-4 * elevation_m - 1.108e-8 * elevation_m**2


@dataclass(frozen=True)
class SolarPosition:
    altitude_deg: float
    azimuth_deg: float
    incidence_deg: float


def solar_position(latitude_deg: float, day_of_year: int, solar_time_h: float, line_azimuth_deg: float) -> SolarPosition:
    """Solar altitude, azimuth and incidence on the line at a solar time (eqs. (9), (16), (17))."""
    dec = solar_declination_deg(day_of_year)
    om = hour_angle_deg(solar_time_h)
    hc = solar_altitude_deg(latitude_deg, dec, om)
    zc = solar_azimuth_deg(latitude_deg, dec, om)
    return SolarPosition(hc, zc, solar_incidence_deg(hc, zc, line_azimuth_deg))


# ------------------------------------------------------------------ the heat balance


@dataclass(frozen=True)
class Conductor:
    """Conductor data for the heat balance (SI)."""

    diameter_m: float
    emissivity: float
    absorptivity: float
    t_low_c: float
    r_low_ohm_m: float
    t_high_c: float
    r_high_ohm_m: float


@dataclass(frozen=True)
class HeatBalance:
    """Every term of the steady-state heat balance at ``t_surface_c``."""

    t_film_c: float
    viscosity_pa_s: float
    air_density_kg_m3: float
    conductivity_w_m_c: float
    reynolds: float
    k_angle: float
    q_c1_w_m: float
    q_c2_w_m: float
    q_cn_w_m: float
    q_c_w_m: float
    q_r_w_m: float
    q_s_w_m: float
    resistance_ohm_m: float
    ampacity_a: float


def heat_balance(
    conductor: Conductor,
    *,
    t_surface_c: float,
    t_ambient_c: float,
    wind_speed_m_s: float,
    wind_angle_deg: float,
    elevation_m: float,
    solar_flux_w_m2: float,
    solar_incidence_deg: float,
) -> HeatBalance:
    """The steady-state rating at conductor temperature ``t_surface_c`` (IEEE 738-2012, eq. (1b)).

    ``solar_flux_w_m2`` is the flux Q_se on a surface normal to the sun's rays at the line's
    elevation (measured, or :func:`solar_flux_sea_level` × :func:`elevation_correction`).
    When the solar gain exceeds the losses the conductor exceeds ``t_surface_c`` with no
    current at all and the ampacity is 0.
    """
    d = conductor.diameter_m
    t_film = film_temperature_c(t_surface_c, t_ambient_c)
    mu = air_dynamic_viscosity(t_film)
    rho = air_density(t_film, elevation_m)
    k_f = air_thermal_conductivity(t_film)
    n_re = reynolds_number(d, rho, max(wind_speed_m_s, 0.0), mu)
    k_angle = wind_direction_factor(wind_angle_deg)
    q_c1 = forced_convection_low_wind(k_angle, n_re, k_f, t_surface_c, t_ambient_c)
    q_c2 = forced_convection_high_wind(k_angle, n_re, k_f, t_surface_c, t_ambient_c)
    q_cn = natural_convection(rho, d, t_surface_c, t_ambient_c)
    # the standard: the larger forced form at any wind speed; natural convection if larger still
    q_c = max(q_c1, q_c2, q_cn)
    q_r = radiated_heat_loss(d, conductor.emissivity, t_surface_c, t_ambient_c)
    q_s = solar_heat_gain(conductor.absorptivity, solar_flux_w_m2, solar_incidence_deg, d)
    r = resistance_at(t_surface_c, conductor.t_low_c, conductor.r_low_ohm_m, conductor.t_high_c, conductor.r_high_ohm_m)
    net = q_c + q_r - q_s
    ampacity = math.sqrt(net / r) if net > 0 and r > 0 else 0.0
    return HeatBalance(t_film, mu, rho, k_f, n_re, k_angle, q_c1, q_c2, q_cn, q_c, q_r, q_s, r, ampacity)
