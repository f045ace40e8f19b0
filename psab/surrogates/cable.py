"""Low-voltage cable sizing: corrected current-carrying capacity, voltage drop, adiabatic
short-circuit withstand.

- Corrected capacity (IEC 60364-5-52:2009, clause 523 and Annex B): the tabulated capacity
  of the installation method (Tables B.52.2–B.52.13) times the correction factors for ambient
  temperature (Table B.52.14 in air, B.52.15 in ground), grouping (Table B.52.17 …) and, for
  buried cables, soil thermal resistivity (Table B.52.16):
  ``I_z = I_table · k_temperature · k_grouping · k_soil``.
- Voltage drop (IEC 60364-5-52:2009, Annex G):
  ``u = b · (ρ1 · L/S · cos φ + λ · L · sin φ) · I_B`` volts and ``Δu = 100 · u / U0`` per cent,
  with ``b = 1`` for three-phase and ``b = 2`` for single-phase circuits, ``ρ1`` the
  conductor resistivity in normal service (1.25 × its value at 20 °C: 0.0225 Ω·mm²/m copper,
  0.036 Ω·mm²/m aluminium), ``λ`` the reactance per unit length (0.08 mΩ/m when not known),
  ``U0`` the line-to-neutral voltage.
- Adiabatic short-circuit withstand (IEC 60364-4-43:2008, 434.5.2; IEC 60364-5-54 for
  protective conductors; IEC 60949 for the adiabatic basis): a conductor of cross-section
  ``S`` carries a current ``I`` for ``t ≤ 5 s`` without exceeding its short-circuit temperature
  when ``t ≤ (k·S/I)²``, i.e. ``S ≥ I·√t / k`` with ``k`` from Table 43A: 115 (Cu/PVC up to
  300 mm²), 143 (Cu/XLPE or EPR), 76 (Al/PVC), 94 (Al/XLPE).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

#: IEC 60364-4-43:2008 Table 43A, k in A·√s/mm² for conductors up to 300 mm².
K_ADIABATIC: Mapping[tuple[str, str], float] = {
    ("copper", "PVC"): 115.0,
    ("copper", "XLPE"): 143.0,
    ("aluminium", "PVC"): 76.0,
    ("aluminium", "XLPE"): 94.0,
}

#: IEC 60364-5-52:2009 Annex G: resistivity in normal service (Ω·mm²/m) and default reactance (Ω/m).
RESISTIVITY_OHM_MM2_PER_M: Mapping[str, float] = {"copper": 0.0225, "aluminium": 0.036}
REACTANCE_OHM_PER_M = 0.08e-3


def corrected_capacity(i_table_a: float, k_temperature: float, k_grouping: float, k_soil: float = 1.0) -> float:
    """``I_z = I_table · k_temperature · k_grouping · k_soil`` (A), IEC 60364-5-52 Annex B."""
    return i_table_a * k_temperature * k_grouping * k_soil


def voltage_drop_v(
    current_a: float,
    length_m: float,
    size_mm2: float,
    power_factor: float,
    *,
    resistivity_ohm_mm2_per_m: float,
    reactance_ohm_per_m: float = REACTANCE_OHM_PER_M,
    b: float = 1.0,
) -> float:
    """Voltage drop ``u`` (V) by IEC 60364-5-52 Annex G (phase-to-neutral for b = 1)."""
    if size_mm2 <= 0.0:
        raise ValueError("the cross-section must be positive")
    if not 0.0 < power_factor <= 1.0:
        raise ValueError("the power factor must lie in (0, 1]")
    sin_phi = math.sqrt(1.0 - power_factor * power_factor)
    return b * (resistivity_ohm_mm2_per_m * length_m / size_mm2 * power_factor + reactance_ohm_per_m * length_m * sin_phi) * current_a


def voltage_drop_pct(u_v: float, u0_v: float) -> float:
    """``Δu = 100 · u / U0`` (%), U0 the line-to-neutral voltage (Annex G)."""
    return 100.0 * u_v / u0_v


def adiabatic_min_size_mm2(current_a: float, time_s: float, k: float) -> float:
    """Smallest cross-section that withstands ``current_a`` for ``time_s``: ``I·√t / k`` (mm²).

    IEC 60364-4-43, 434.5.2 (valid for durations up to 5 s).
    """
    if time_s < 0.0 or k <= 0.0:
        raise ValueError("time must be non-negative and k positive")
    return current_a * math.sqrt(time_s) / k


def adiabatic_withstand_time_s(size_mm2: float, current_a: float, k: float) -> float:
    """Permissible duration ``t = (k·S/I)²`` (s) of a short-circuit current in a conductor."""
    return (k * size_mm2 / current_a) ** 2


def table_value(rows: Sequence[Mapping[str, float]], key: str, at: float, value: str) -> float:
    """The ``value`` of the row whose ``key`` equals ``at`` (tables are read, never interpolated).

    Raises ``KeyError`` when no row matches: the standard's tables have no entry there.
    """
    for row in rows:
        if math.isclose(float(row[key]), float(at), rel_tol=0.0, abs_tol=1e-9):
            return float(row[value])
    raise KeyError(f"no row with {key} = {at}")
