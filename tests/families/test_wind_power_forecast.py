"""wind_power_forecast: the hand-derived golden score, the physics of the reference, skill over
persistence and climatology on generated cases, acceptance against trivial forecasts, and
bad inputs."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.evaluators import forecast as fc
from psab.families import _wind
from psab.paths import case_dir, golden_dirs
from psab.surrogates import wind as w
from psab.surrogates.wind_curves import TURBINES

FAMILY = "wind_power_forecast"


def _golden() -> psab.Task:
    return psab.load_case(next(d for d in golden_dirs(FAMILY) if d.name == "hand_two_groups"))


def test_golden_score_by_hand() -> None:
    # golden/wind_power_forecast/hand_two_groups/README.md: reference Σ|e| = 0.888 MW, this
    # answer Σ|e| = 1.0 MW over 3 hours, available capacity 9.3 MW → skill 0.888
    task = _golden()
    result = psab.evaluate(task, {"answer": {"power_mw": [6.0, 8.0, 2.0]}})
    assert result.feasible and result.score == pytest.approx(0.888, abs=1e-9)
    assert result.evidence["reference_nmae"] == pytest.approx(0.888 / 3 / 9.3, abs=1e-6)
    # the perfect forecast beats the reference: score capped at 1, flagged
    perfect = psab.evaluate(task, {"answer": {"power_mw": [6.0, 8.0, 3.0]}})
    assert perfect.score == 1.0 and perfect.evidence["beats_reference"]
    # above the available capacity (9.3 MW) is infeasible
    over = psab.evaluate(task, {"answer": {"power_mw": [9.4, 8.0, 3.0]}})
    assert not over.feasible and [v.field for v in over.violations] == ["/power_mw/0"]


@settings(max_examples=60)
@given(name=st.sampled_from(sorted(TURBINES)), v=st.floats(0.0, 40.0), dv=st.floats(0.0, 5.0))
def test_power_curves_are_non_decreasing_up_to_cut_out_and_bounded(name: str, v: float, dv: float) -> None:
    t = TURBINES[name]
    xs, ps = np.array(t.wind_speed_m_s), np.array(t.power_kw)
    p1, p2 = w.power_curve_kw(v, xs, ps), w.power_curve_kw(v + dv, xs, ps)
    assert 0.0 <= p1 <= max(t.power_kw) + 1e-9
    if v + dv <= xs[-1]:
        assert p2 >= p1 - 1e-9
    if v > xs[-1]:
        assert p1 == 0.0  # cut-out


@settings(max_examples=40)
@given(v=st.floats(0.0, 30.0), h1=st.floats(10.0, 150.0), h2=st.floats(10.0, 150.0), alpha=st.floats(0.0, 0.4))
def test_power_law_shear_is_reversible_and_grows_with_height(v: float, h1: float, h2: float, alpha: float) -> None:
    there = float(w.shear(v, h1, h2, alpha))
    assert float(w.shear(there, h2, h1, alpha)) == pytest.approx(v, rel=1e-9, abs=1e-12)
    assert (there >= v - 1e-12) if h2 >= h1 else (there <= v + 1e-12)


@settings(max_examples=20)
@given(seed=st.integers(0, 10**6), bias=st.floats(-5.0, 5.0))
def test_forecast_stays_within_capacity_and_curtailment(seed: int, bias: float) -> None:
    inputs, _, _ = _wind.synthesize(np.random.default_rng(seed), 2)
    p = _wind.point_forecast_mw(inputs, bias=bias)
    assert (p >= 0).all() and (p <= _wind.available_capacity_mw(inputs) + 1e-9).all()
    assert (p <= _wind.curtailment_limits_mw(inputs) + 1e-9).all()


def test_the_weibull_ar1_process_has_its_marginal_and_autocorrelation() -> None:
    # Brown, Katz & Murphy (1984): the AR(1) Gaussian series through the Weibull quantile keeps
    # the Weibull mean c·Γ(1 + 1/k) and a high lag-one autocorrelation
    rng = np.random.default_rng(7)
    v = w.wind_speed_series(rng.standard_normal(40000), np.zeros(40000), phi=0.93, shape_k=2.0, scale_c_m_s=8.0,
                            diurnal_amplitude=0.0, peak_hour=0.0)
    import math

    assert v.mean() == pytest.approx(8.0 * math.gamma(1.5), rel=0.03)
    assert np.corrcoef(v[:-1], v[1:])[0, 1] > 0.85


@pytest.mark.parametrize("level", [1, 2])
def test_reference_beats_persistence_and_climatology_on_average(level: int) -> None:
    """Over raw (not yet accepted) draws, so acceptance cannot have made it so."""
    errors: dict[str, list[float]] = {"reference": [], "persistence": [], "climatology": [], "raw_nwp": []}
    for seed in range(40):
        inputs, key, _ = _wind.synthesize(np.random.default_rng(seed), level)
        y, cap = np.array(key["realized_power_mw"]), _wind.available_capacity_mw(inputs)
        errors["reference"].append(fc.nmae(_wind.point_forecast_mw(inputs), y, cap))
        for name, f in _wind.baselines_mw(inputs).items():
            if name in errors:
                errors[name].append(fc.nmae(f, y, cap))
    mean = {k: float(np.mean(v)) for k, v in errors.items()}
    assert mean["reference"] < 0.8 * mean["persistence"], mean
    assert mean["reference"] < 0.8 * mean["climatology"], mean
    assert mean["reference"] < mean["raw_nwp"], mean


@pytest.mark.parametrize("level", [1, 2])
def test_no_trivial_forecast_scores_one_on_accepted_draws(level: int) -> None:
    for index in range(6):
        task = psab.generate(FAMILY, "trivial-check", index, level=level)
        for name, f in _wind.baselines_mw(task.public_inputs).items():
            result = psab.evaluate(task, {"answer": {"power_mw": _wind.clean(f)}})
            assert result.score < 1.0, (index, name)


def test_level_two_naive_reading_loses_skill() -> None:
    spec = psab.get_family(FAMILY)
    scores = [psab.evaluate(t, {"answer": spec.naive_answer(t)}).score
              for t in (psab.generate(FAMILY, "naive", i, level=2) for i in range(5))]
    assert np.mean(scores) < 0.95, scores


def _broken(edit) -> psab.Task:  # type: ignore[no-untyped-def]
    task = psab.load_case(case_dir(FAMILY))
    inputs = copy.deepcopy(task.public_inputs)
    edit(inputs)
    return psab.get_family(FAMILY).make_task(task_id="broken", split="public", public_inputs=inputs, key=task.key)


@pytest.mark.parametrize(("edit", "field"), [
    (lambda i: i["farm"]["groups"][0].update(available_count=i["farm"]["groups"][0]["count"] + 1), "/farm/groups/0/available_count"),
    (lambda i: i["farm"]["groups"][0]["power_curve"]["wind_speed_m_s"].reverse(), "/farm/groups/0/power_curve/wind_speed_m_s"),
    (lambda i: i["history"]["nwp_wind_speed_m_s"].pop(), "/history/nwp_wind_speed_m_s"),
    (lambda i: i["history"].update(flag=["icing"] * len(i["history"]["flag"])), "/history/flag"),
    (lambda i: i.update(curtailment=[{"from_step": 20, "to_step": 30, "limit_mw": 1.0}]), "/curtailment/0"),
    (lambda i: i["farm"]["groups"][0]["power_curve"]["power_kw"].append(5.0), "/farm/groups/0/power_curve"),
])
def test_bad_inputs_raise_naming_the_field(edit, field) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidTaskError, match=field):
        psab.solve(_broken(edit))
