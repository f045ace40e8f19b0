"""Annual specific yield of a fixed-tilt PV array from pvlib's clear-sky model and PVWatts.

Used only to derive (and, in the tests, re-derive) the yield table that
:mod:`psab.families.commercial_pv_lcoe_uncertainty` carries as a constant, so held-out draws do
not depend on the installed pvlib version. pvlib (optional extra ``pv``) is imported lazily.

Chain: Ineichen-Perez clear sky with pvlib's Linke-turbidity climatology (Ineichen & Perez,
Solar Energy 73(3), 2002), hourly over a non-leap year; Perez-free isotropic transposition
(``get_total_irradiance`` default, albedo 0.2) onto a south-facing plane at tilt
min(|latitude|, 30°); SAPM open-rack cell temperature at 20 °C ambient and 1 m/s wind; PVWatts DC
(γ = −0.37 %/°C) with 14 % system losses (PVWatts v5 default, Dobos 2014, NREL/TP-6A20-62641);
the result scaled by the site's ratio of measured annual GHI to clear-sky annual GHI.
"""

from __future__ import annotations


def clear_sky_yield_kwh_per_kwp(latitude_deg: float, longitude_deg: float, altitude_m: float, tz: str) -> tuple[float, float]:
    """(clear-sky annual GHI in kWh/m², clear-sky annual DC yield in kWh per kWp)."""
    import warnings

    import pandas as pd
    import pvlib
    from pvlib.location import Location

    warnings.simplefilter("ignore")
    loc = Location(latitude_deg, longitude_deg, tz, altitude_m)
    times = pd.date_range("2021-01-01", "2022-01-01", freq="1h", tz=tz, inclusive="left")
    cs = loc.get_clearsky(times, model="ineichen")
    sp = loc.get_solarposition(times)
    tilt = min(abs(latitude_deg), 30.0)
    poa = pvlib.irradiance.get_total_irradiance(tilt, 180.0, sp.apparent_zenith, sp.azimuth, cs.dni, cs.ghi, cs.dhi, albedo=0.2)
    params = pvlib.temperature.TEMPERATURE_MODEL_PARAMETERS["sapm"]["open_rack_glass_polymer"]
    tc = pvlib.temperature.sapm_cell(poa.poa_global, 20.0, 1.0, **params)
    pdc = pvlib.pvsystem.pvwatts_dc(poa.poa_global, tc, 1000.0, -0.0037) * (1.0 - 0.14)
    return float(cs.ghi.sum() / 1000.0), float(pdc.clip(lower=0).sum() / 1000.0)


def site_yield_kwh_per_kwp(latitude_deg: float, longitude_deg: float, altitude_m: float, tz: str,
                           measured_ghi_kwh_per_m2: float) -> float:
    """The clear-sky yield scaled by measured/clear-sky annual GHI."""
    ghi_cs, y_cs = clear_sky_yield_kwh_per_kwp(latitude_deg, longitude_deg, altitude_m, tz)
    return y_cs * measured_ghi_kwh_per_m2 / ghi_cs
