"""Wind speed, its numerical-weather-prediction forecast, and wind farm power (math + numpy).

Pure functions of plain arrays: randomness enters only as the standard-normal innovations the
caller draws, so the same innovations give the same series.

Sources of the models and their parameters:
- Hourly wind speed as a stationary Gaussian AR(1) process mapped onto a Weibull marginal:
  B. G. Brown, R. W. Katz, A. H. Murphy, *Time series models to simulate and forecast wind speed
  and wind power*, J. Climate Appl. Meteor. 23, 1184-1195, 1984 (transform to normality, AR(1)
  with hourly lag-one autocorrelation ≈ 0.9-0.97, diurnal cycle removed and added back).
- Weibull shape k ≈ 2 (Rayleigh) and hub-height scale 7-10 m/s; diurnal cycle of ±10-20 %:
  J. F. Manwell, J. G. McGowan, A. L. Rogers, *Wind Energy Explained*, 2nd ed., Wiley, 2009,
  §2.3.3 (diurnal variation) and §2.4.3 (Weibull statistics); IEC 61400-1:2019 §6.3.2.1
  (Rayleigh distribution of the 10-min mean at hub height; class mean speeds 7.5-10 m/s).
- Wind shear by the power law with exponent α (IEC 61400-1:2019 §6.3.2.2, normal wind profile
  with α = 0.2; onshore measured α 0.1-0.3, Manwell §2.3.3.2).
- NWP wind speed error: roughly Gaussian, with a systematic part (bias) and a random part whose
  standard deviation grows with lead time, about 1.5-2.5 m/s over the first day: M. Lange, *On the
  uncertainty of wind power predictions — analysis of the forecast accuracy and statistical
  distribution of errors*, J. Sol. Energy Eng. 127(2), 177-184, 2005, §3; G. Giebel et al., *The
  state-of-the-art in short-term prediction of wind power*, ANEMOS.plus report, 2011, §2.3.
"""

from __future__ import annotations

import math

import numpy as np

_erf = np.vectorize(math.erf, otypes=[float])


def power_curve_kw(wind_speed_m_s: np.ndarray | float, curve_speed_m_s: np.ndarray, curve_power_kw: np.ndarray) -> np.ndarray:
    """Power of one turbine (kW) from its hub-height wind speed by its power curve: linear
    interpolation between the curve's points, zero below the first point and above the last one
    (the cut-out speed)."""
    v = np.asarray(wind_speed_m_s, float)
    xs, ps = np.asarray(curve_speed_m_s, float), np.asarray(curve_power_kw, float)
    p = np.interp(v, xs, ps)
    return np.where((v < xs[0]) | (v > xs[-1]), 0.0, p)


def shear(wind_speed_m_s: np.ndarray | float, from_height_m: float, to_height_m: float, alpha: float) -> np.ndarray:
    """Wind speed moved from one height to another by the power law v₂ = v₁·(h₂/h₁)^α
    (IEC 61400-1:2019 §6.3.2.2)."""
    return np.asarray(wind_speed_m_s, float) * (to_height_m / from_height_m) ** alpha


def normal_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + _erf(np.asarray(x, float) / math.sqrt(2.0)))


def weibull_quantile(u: np.ndarray, shape_k: float, scale_c_m_s: float) -> np.ndarray:
    """The Weibull quantile c·(−ln(1 − u))^(1/k) (Manwell §2.4.3)."""
    u = np.clip(np.asarray(u, float), 1e-12, 1.0 - 1e-12)
    return scale_c_m_s * (-np.log1p(-u)) ** (1.0 / shape_k)


def ar1(innovations: np.ndarray, phi: float) -> np.ndarray:
    """A stationary unit-variance Gaussian AR(1) series x_t = φ·x_(t−1) + √(1 − φ²)·z_t driven
    by standard-normal innovations z (x_0 = z_0)."""
    z = np.asarray(innovations, float)
    x = np.empty_like(z)
    if not z.size:
        return x
    x[0] = z[0]
    a = math.sqrt(max(0.0, 1.0 - phi * phi))
    for t in range(1, z.size):
        x[t] = phi * x[t - 1] + a * z[t]
    return x


def wind_speed_series(innovations: np.ndarray, hour_of_day: np.ndarray, *, phi: float, shape_k: float,
                      scale_c_m_s: float, diurnal_amplitude: float, peak_hour: float) -> np.ndarray:
    """Hourly mean wind speed (m/s): the AR(1) Gaussian series mapped through the Weibull
    quantile (Brown, Katz & Murphy 1984) and scaled by a diurnal factor
    1 + A·cos(2π(h − h_peak)/24)."""
    x = ar1(innovations, phi)
    v = weibull_quantile(normal_cdf(x), shape_k, scale_c_m_s)
    return v * (1.0 + diurnal_amplitude * np.cos(2 * np.pi * (np.asarray(hour_of_day, float) - peak_hour) / 24.0))


def nwp_error_sd_m_s(lead_h: np.ndarray, sd_at_0_m_s: float, growth_m_s_per_day: float) -> np.ndarray:
    """Standard deviation of the random NWP wind-speed error at lead ``lead_h`` hours, growing
    linearly with lead time (Lange 2005 §3; Giebel et al. 2011 §2.3)."""
    return sd_at_0_m_s + growth_m_s_per_day * np.asarray(lead_h, float) / 24.0


def farm_power_mw(hub_speeds_m_s: list[np.ndarray], counts: list[int] | list[float],
                  curves: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Farm power (MW): Σ over turbine groups of count × the group's power curve at its hub speed."""
    total = np.zeros_like(np.asarray(hub_speeds_m_s[0], float))
    for v, n, (xs, ps) in zip(hub_speeds_m_s, counts, curves, strict=True):
        total = total + n * power_curve_kw(v, xs, ps) / 1000.0
    return total
