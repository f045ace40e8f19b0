"""Power curves of real wind turbine types, carried from windpowerlib's copy of the oedb table.

Source: the Open Energy Database (oedb) turbine library as shipped inside windpowerlib 0.2.2
(``windpowerlib/oedb/power_curves.csv`` and ``turbine_data.csv``; S. Haas, U. Krien, B. Schachler
et al., *windpowerlib: A Python library to model wind power plants*, JOSS 4(36), 1067, 2019,
doi:10.21105/joss.01067). The curves are the manufacturers' published power curves collected by
the oedb (each row's ``source`` column names the brochure or data sheet), at standard air density
(1.225 kg/m³). Kept here: the points at wind speeds ≤ 25 m/s (every listed type cuts out at or
below 25 m/s; the oedb rows carry zeros beyond the cut-out), power converted W → kW and rounded to
0.001 kW; one hub height per type taken from the oedb's list of offered hub heights.

``tests/surrogates/test_wind.py`` compares this table with windpowerlib's files when windpowerlib
is installed (``pip install psab[wind]``). The conversion convention used by the families
(:func:`psab.surrogates.wind.power_curve_kw`): linear interpolation between points, zero below
the first point and above the last (cut-out).
"""

from __future__ import annotations

from dataclasses import dataclass

PROVENANCE = {
    "title": "Open Energy Database turbine library (oedb), as shipped in windpowerlib 0.2.2 "
             "(Haas, Krien, Schachler et al., JOSS 4(36), 1067, 2019)",
    "locator": "windpowerlib/oedb/power_curves.csv and turbine_data.csv; the rows named by turbine_type",
    "note": "Manufacturers' power curves at 1.225 kg/m³, points up to 25 m/s, W converted to kW; one offered hub height per type.",
    "confidence": "high",
}


@dataclass(frozen=True)
class TurbineType:
    """One oedb turbine type: nameplate power, rotor diameter, a hub height it is offered with,
    and its power curve (wind speed at hub height in m/s → electrical power in kW)."""

    turbine_type: str
    manufacturer: str
    nominal_power_kw: float
    rotor_diameter_m: float
    hub_height_m: float
    wind_speed_m_s: tuple[float, ...]
    power_kw: tuple[float, ...]


TURBINES: dict[str, TurbineType] = {
    "E-92/2350": TurbineType("E-92/2350", "Enercon", 2350, 92, 98,
        (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25),
        (0, 3.6, 29.9, 98.2, 208.3, 384.3, 637, 975.8, 1403.6, 1817.8, 2088.7, 2237, 2300, 2350, 2350, 2350, 2350, 2350, 2350, 2350, 2350, 2350, 2350, 2350, 2350)),
    "E-115/3000": TurbineType("E-115/3000", "Enercon", 3000, 116, 92,
        (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25),
        (0, 3, 48.5, 155, 339, 627.5, 1035.5, 1549, 2090, 2580, 2900, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000)),
    "SWT113/2300": TurbineType("SWT113/2300", "Siemens", 2300, 113, 99.5,
        (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25),
        (66, 171, 352, 623, 1002, 1497, 2005, 2246, 2296, 2300, 2300, 2300, 2300, 2300, 2300, 2300, 2300, 2300, 2300, 2300, 2300, 2300, 2300)),
    "V112/3300": TurbineType("V112/3300", "Vestas", 3300, 112, 94,
        (0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5, 10, 10.5, 11, 11.5, 12, 12.5, 13, 13.5, 14, 14.5, 15, 15.5, 16, 16.5, 17, 17.5, 18, 18.5, 19, 19.5, 20, 20.5, 21, 21.5, 22, 22.5, 23, 23.5, 24, 24.5, 25),
        (0, 0, 0, 0, 0, 0, 22, 73, 134, 209, 302, 415, 552, 714, 906, 1123, 1370, 1648, 1950, 2268, 2586, 2868, 3071, 3201, 3266, 3291, 3298, 3299, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300, 3300)),
    "N117/2400": TurbineType("N117/2400", "Nordex", 2400, 117, 91,
        (0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5, 10, 10.5, 11, 11.5, 12, 12.5, 13, 13.5, 14, 14.5, 15, 15.5, 16, 16.5, 17, 17.5, 18, 18.5, 19, 19.5, 20),
        (0, 0, 0, 0, 0, 0, 23, 81, 154, 245, 356, 488, 644, 826, 1037, 1273, 1528, 1797, 2039, 2212, 2325, 2385, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400, 2400)),
    "V80/2000": TurbineType("V80/2000", "Vestas", 2000, 80, 80,
        (0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5, 10, 10.5, 11, 11.5, 12, 12.5, 13, 13.5, 14, 14.5, 15, 15.5, 16, 16.5, 17, 17.5, 18, 18.5, 19, 19.5, 20, 20.5, 21, 21.5, 22, 22.5, 23, 23.5, 24, 24.5, 25),
        (0, 0, 0, 0, 0, 0, 0, 35, 70, 117, 165, 225, 285, 372, 459, 580, 701, 832, 964, 1127, 1289, 1428, 1567, 1678, 1788, 1865, 1941, 1966, 1990, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000)),
    "E-126/4200": TurbineType("E-126/4200", "Enercon", 4200, 127, 99,
        (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25),
        (0, 0, 58, 185, 400, 745, 1200, 1790, 2450, 3120, 3660, 4000, 4150, 4200, 4200, 4200, 4200, 4200, 4200, 4200, 4200, 4200, 4200, 4200, 4200)),
    "GE100/2500": TurbineType("GE100/2500", "GE Wind", 2500, 100, 85,
        (0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5, 10, 10.5, 11, 11.5, 12, 12.5, 13, 13.5, 14, 14.5, 15, 15.5, 16, 16.5, 17, 17.5, 18, 18.5, 19, 19.5, 20, 20.5, 21, 21.5, 22, 22.5, 23, 23.5, 24, 24.5, 25),
        (0, 0, 0, 0, 0, 0, 0, 30, 63, 129, 194, 295, 395, 527, 658, 809, 959, 1152, 1345, 1604, 1862, 2060, 2248, 2340, 2426, 2475, 2495, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500)),
}
