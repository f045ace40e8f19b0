"""The turbine table carried in psab (psab.surrogates.wind_curves) is windpowerlib's oedb data."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from psab.surrogates.wind_curves import TURBINES

from conftest import need


def _oedb() -> tuple[object, object]:
    need(importlib.util.find_spec("windpowerlib") is not None, "windpowerlib is not installed (pip install psab[wind])")
    import pandas as pd
    import windpowerlib

    root = Path(windpowerlib.__file__).parent / "oedb"
    return pd.read_csv(root / "power_curves.csv", index_col=0), pd.read_csv(root / "turbine_data.csv", index_col=0)


@pytest.mark.parametrize("name", sorted(TURBINES))
def test_power_curve_matches_windpowerlib(name: str) -> None:
    curves, data = _oedb()
    t = TURBINES[name]
    row = curves.loc[name].dropna()  # type: ignore[attr-defined]
    row = row[row.index.astype(float) <= 25.0]
    assert list(t.wind_speed_m_s) == pytest.approx([float(v) for v in row.index])
    assert list(t.power_kw) == pytest.approx([float(p) / 1000.0 for p in row.values], abs=5e-4)
    info = data.loc[name]  # type: ignore[attr-defined]
    assert t.nominal_power_kw == pytest.approx(float(info["nominal_power"]) / 1000.0)
    assert t.rotor_diameter_m == pytest.approx(float(info["rotor_diameter"]))
    offered = [float(h.replace(",", ".")) for h in re.split(r"[;/]", str(info["hub_height"]).replace(" ", "")) if h]
    assert t.hub_height_m in offered
    assert max(t.power_kw) <= 1.03 * t.nominal_power_kw


def test_windpowerlib_reads_the_same_curve_through_its_own_api() -> None:
    _oedb()
    from windpowerlib import WindTurbine

    turbine = WindTurbine(turbine_type="E-92/2350", hub_height=98)
    curve = turbine.power_curve
    t = TURBINES["E-92/2350"]
    at = dict(zip(curve["wind_speed"].astype(float), curve["value"].astype(float) / 1000.0, strict=True))
    for v, p in zip(t.wind_speed_m_s, t.power_kw, strict=True):
        assert at[float(v)] == pytest.approx(p, abs=5e-4)
