"""commercial_pv_lcoe_uncertainty: LCOE properties, the pvlib-derived yield table, bad input."""

from __future__ import annotations

import copy
import importlib.util

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import commercial_pv_lcoe_uncertainty as F
from psab.paths import case_dir
from psab.surrogates import lcoe


def _public() -> psab.Task:
    return psab.load_case(case_dir(F.FAMILY_ID))


@settings(max_examples=60, deadline=None)
@given(st.floats(100.0, 5000.0), st.floats(800.0, 2200.0), st.floats(0.001, 0.15), st.integers(1, 40))
def test_without_om_or_degradation_lcoe_is_capex_times_crf_over_energy(capex, energy, rate, years) -> None:
    got = lcoe.lcoe_per_kwh(capex, 0.0, energy, discount_rate=rate, lifetime_years=years, degradation=0.0)
    want = capex * lcoe.capital_recovery_factor(rate, years) / energy
    assert got == pytest.approx(want, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.floats(500.0, 3000.0), st.floats(0.0, 50.0), st.floats(0.01, 0.12), st.integers(5, 40), st.floats(0.0, 0.01))
def test_lcoe_rises_with_cost_and_degradation_and_falls_with_yield(capex, om, rate, years, deg) -> None:
    def f(c=capex, y=1500.0, d=deg):
        return lcoe.lcoe_per_kwh(c, om, y, discount_rate=rate, lifetime_years=years, degradation=d)
    assert f(c=capex * 1.1) > f()
    assert f(y=1600.0) < f()
    assert f(d=deg + 0.005) > f()
    # not discounting the energy understates the LCOE
    assert lcoe.lcoe_per_kwh(capex, om, 1500.0, discount_rate=rate, lifetime_years=years, degradation=deg,
                             discount_energy=False) < f()


def test_public_case_spread_and_naive_reading() -> None:
    task = _public()
    ref = psab.solve(task).answer
    assert ref["lcoe_p10_usd_per_kwh"] < ref["lcoe_p50_usd_per_kwh"] < ref["lcoe_p90_usd_per_kwh"]
    # a commercial rooftop system in Boston: 8-16 US cents/kWh at P50 (NREL ATB commercial PV range)
    assert 0.08 < ref["lcoe_p50_usd_per_kwh"] < 0.16
    assert psab.evaluate(task, {"answer": F.naive_answer(task)}).score < 1.0


@pytest.mark.skipif(importlib.util.find_spec("pvlib") is None, reason="pvlib (extra 'pv') not installed")
@pytest.mark.parametrize("site", ["Phoenix, AZ", "Seattle, WA"])
def test_yield_table_is_what_pvlib_derives(site) -> None:
    from psab.backends.pvlib_yield import site_yield_kwh_per_kwp

    lat, lon, alt, tz, ghi, table = F.SITES[site]
    assert site_yield_kwh_per_kwp(lat, lon, alt, tz, ghi) == pytest.approx(table, rel=5e-3)


@pytest.mark.parametrize(("pointer", "value", "field"), [
    (("system", "capacity_kw_dc"), -500.0, "/system/capacity_kw_dc"),
    (("installed_cost", "hardware_usd_per_w_dc", "p90"), 0.5, "/installed_cost/hardware_usd_per_w_dc/p90"),
    (("installed_cost", "soft_usd_per_w_dc", "p10"), -0.1, "/installed_cost/soft_usd_per_w_dc/p10"),
    (("lifetime_years",), 0, "/lifetime_years"),
    (("degradation_pct_per_yr",), -1.0, "/degradation_pct_per_yr"),
    (("site", "first_year_yield_kwh_per_kw_dc"), 0.0, "/site/first_year_yield_kwh_per_kw_dc"),
])
def test_a_task_that_cannot_be_posed_names_the_field(pointer, value, field) -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    node = inputs
    for key in pointer[:-1]:
        node = node[key]
    node[pointer[-1]] = value
    bad = F.SPEC.make_task(task_id="bad", split="public", public_inputs=inputs)
    with pytest.raises(InvalidTaskError, match=field):
        F.SPEC.solve(bad, "surrogate")
