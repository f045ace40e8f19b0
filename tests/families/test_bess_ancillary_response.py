"""bess_ancillary_response: physics properties of the FCR simulation and bad-input handling."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import bess_ancillary_response as F
from psab.paths import case_dir
from psab.surrogates import fcr


def _public() -> psab.Task:
    return psab.load_case(case_dir(F.FAMILY_ID))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-0.5, 0.5), min_size=1, max_size=50), st.floats(0.0, 0.05), st.floats(1.0, 50.0),
       st.floats(0.1, 10.0))
def test_characteristic_opposes_the_deviation_and_respects_the_cap(df, db, gain, cap) -> None:
    p = fcr.fcr_power_mw(np.array(df), deadband_hz=db, gain_mw_per_hz=gain, p_fcr_mw=cap)
    d = np.array(df)
    assert np.all(np.abs(p) <= cap + 1e-12)
    assert np.all(p[np.abs(d) <= db] == 0.0)
    assert np.all(p * d <= 0.0)
    order = np.argsort(d)   # non-increasing in the frequency
    assert np.all(np.diff(p[order]) <= 1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-2.0, 2.0), min_size=1, max_size=60), st.floats(0.1, 0.9), st.floats(0.8, 1.0),
       st.floats(0.8, 1.0))
def test_energy_stays_within_limits_and_balances(p_req, soc0, eta_c, eta_d) -> None:
    run = fcr.simulate_soc(np.array(p_req), e0_mwh=soc0, e_min_mwh=0.1, e_max_mwh=0.9, eta_charge=eta_c,
                           eta_discharge=eta_d, step_s=600.0)
    assert np.all(run.energy_mwh >= 0.1 - 1e-12) and np.all(run.energy_mwh <= 0.9 + 1e-12)
    # delivered power never exceeds the request in magnitude and keeps its sign
    assert np.all(np.abs(run.p_mw) <= np.abs(p_req) + 1e-12) and np.all(run.p_mw * np.array(p_req) >= 0.0)
    # energy balance of the delivered powers, step by step
    e = np.concatenate([[soc0], run.energy_mwh])
    de = -(600.0 / 3600.0) * np.where(run.p_mw >= 0, run.p_mw / eta_d, run.p_mw * eta_c)
    assert np.allclose(np.diff(e), de, atol=1e-12)
    if run.first_limit_step is not None:
        k = run.first_limit_step
        assert min(abs(run.energy_mwh[k] - 0.1), abs(run.energy_mwh[k] - 0.9)) < 1e-12


def test_public_case_reaches_its_lower_limit_and_the_naive_reading_misses_it() -> None:
    task = _public()
    ref = psab.solve(task).answer
    assert ref["soc_limit_reached"] and ref["first_limit_step"] > 0
    assert min(ref["soc"]) == pytest.approx(task.public_inputs["battery"]["soc_min"])
    naive = F.naive_answer(task)
    assert psab.evaluate(task, {"answer": naive}).score < 1.0


def test_lossless_efficiencies_are_caught() -> None:
    task = _public()
    inputs = copy.deepcopy(task.public_inputs)
    inputs["battery"]["charge_efficiency"] = inputs["battery"]["discharge_efficiency"] = 1.0
    wrong = F._answer(inputs, F.simulate(inputs))
    assert psab.evaluate(task, {"answer": wrong}).score < 1.0


@pytest.mark.parametrize(("path", "value", "field"), [
    (("battery", "rated_power_mw"), -2.0, "/battery/rated_power_mw"),
    (("battery", "energy_capacity_mwh"), 0.0, "/battery/energy_capacity_mwh"),
    (("battery", "initial_soc"), 1.2, "/battery/initial_soc"),
    (("battery", "soc_min"), -0.1, "/battery/soc_min"),
    (("battery", "charge_efficiency"), 1.5, "/battery/charge_efficiency"),
    (("fcr", "contracted_power_mw"), 5.0, "/fcr/contracted_power_mw"),
    (("fcr", "full_activation_deviation_mhz"), 5.0, "/fcr/full_activation_deviation_mhz"),
    (("frequency_hz", 3), 0.0, "/frequency_hz/3"),
])
def test_a_task_that_cannot_be_posed_names_the_field(path, value, field) -> None:
    task = _public()
    inputs = copy.deepcopy(task.public_inputs)
    inputs[path[0]][path[1]] = value
    bad = F.SPEC.make_task(task_id="bad", split="public", public_inputs=inputs)
    with pytest.raises(InvalidTaskError, match=field):
        F.SPEC.solve(bad, "surrogate")


@pytest.mark.parametrize("level", [1, 2])
def test_drawn_deadbands_respect_sogls_10_mhz_cap(level) -> None:
    """Commission Regulation (EU) 2017/1485 (SOGL) Annex V Table 1, RG-CE: the combined frequency
    response insensitivity and intentional deadband of an FCR provider is at most 10 mHz — the cited
    standard's cap, so no drawn characteristic may exceed it (issue 33: draws of 15 and 20 mHz)."""
    for seed in range(60):
        fcr_ = F.generate(_public(), np.random.default_rng(seed), level=level).public_inputs["fcr"]
        db_mhz = fcr_["deadband_mhz"] if "deadband_mhz" in fcr_ else fcr_["deadband_hz"] * 1000.0
        assert 0.0 <= db_mhz <= 10.0 + 1e-9, (seed, fcr_)
