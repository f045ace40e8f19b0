"""transformer_thermal_loading: IEC 60076-7 difference equations, properties, the second backend."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import transformer_thermal_loading as F
from psab.paths import case_dir
from psab.surrogates import iec60076_7 as iec

from conftest import need_backend

ONAF = iec.ThermalParameters(38.3, 20.3, 6.0, 0.8, 1.3, 0.5, 2.0, 2.0, 150.0, 7.0)


def _public() -> psab.Task:
    return psab.load_case(case_dir(F.FAMILY_ID))


def _loop(p: iec.ThermalParameters, k: np.ndarray, ta: np.ndarray, dt: float, o: float, h1: float, h2: float):
    """The difference equations written as the plain loop of the standard (an independent check
    of the blockwise numpy recursion)."""
    top, hot = [], []
    for kn, an in zip(k, ta, strict=True):
        o += dt / (p.k11 * p.tau_o_min) * (((1 + kn * kn * p.r) / (1 + p.r)) ** p.x * p.delta_theta_or_k - (o - an))
        h1 += dt / (p.k22 * p.tau_w_min) * (p.k21 * p.h_gr_k * kn ** p.y - h1)
        h2 += dt / (p.tau_o_min / p.k22) * ((p.k21 - 1) * p.h_gr_k * kn ** p.y - h2)
        top.append(o)
        hot.append(o + h1 - h2)
    return np.array(top), np.array(hot)


@settings(max_examples=30)
@given(k=st.lists(st.floats(0.0, 2.0), min_size=1, max_size=300), dt=st.floats(0.1, 7.0), amb=st.floats(-20, 40))
def test_blockwise_recursion_equals_the_plain_loop(k: list[float], dt: float, amb: float) -> None:
    kk = np.array(k)
    ta = np.full(kk.size, amb)
    prof = iec.thermal_response(ONAF, kk, ta, dt, initial_top_oil_c=50.0, initial_dh1_k=5.0, initial_dh2_k=2.0)
    top, hot = _loop(ONAF, kk, ta, dt, 50.0, 5.0, 2.0)
    assert np.allclose(prof.top_oil_c, top, atol=1e-9) and np.allclose(prof.hot_spot_c, hot, atol=1e-9)


@settings(max_examples=30)
@given(k=st.floats(0.0, 1.8), amb=st.floats(-20, 40), n=st.integers(1, 500))
def test_the_steady_state_stays_put(k: float, amb: float, n: int) -> None:
    o, h1, h2 = iec.steady_state(ONAF, k, amb)
    prof = iec.thermal_response(ONAF, np.full(n, k), np.full(n, amb), 3.0, initial_top_oil_c=o, initial_dh1_k=h1, initial_dh2_k=h2)
    assert np.allclose(prof.top_oil_c, o, atol=1e-9)
    assert np.allclose(prof.hot_spot_c, o + h1 - h2, atol=1e-9)


@settings(max_examples=30)
@given(k=st.floats(0.1, 1.6), bump=st.floats(0.01, 0.4))
def test_more_load_never_cools(k: float, bump: float) -> None:
    n = 200
    base = iec.thermal_response(ONAF, np.full(n, k), np.full(n, 20.0), 3.0, initial_top_oil_c=40.0)
    more = iec.thermal_response(ONAF, np.full(n, k + bump), np.full(n, 20.0), 3.0, initial_top_oil_c=40.0)
    assert np.all(more.top_oil_c >= base.top_oil_c - 1e-12)
    assert more.loss_of_life_min > base.loss_of_life_min


def test_ageing_rates_of_the_standard() -> None:
    """IEC 60076-7 §6.2: V = 1 at 98 °C (normal paper) and at 110 °C (thermally upgraded); V doubles per 6 K."""
    assert iec.ageing_rate(98.0, "normal") == pytest.approx(1.0)
    assert iec.ageing_rate(104.0, "normal") == pytest.approx(2.0)
    assert iec.ageing_rate(110.0, "thermally_upgraded") == pytest.approx(1.0)
    assert iec.ageing_rate(98.0, "thermally_upgraded") < 0.3


def test_naive_interval_end_ageing_is_caught() -> None:
    task = _public()
    result = psab.evaluate(task, {"answer": F.naive_answer(task)})
    assert not result.feasible
    assert any(v.field.startswith("/ageing_rate_pu/") for v in result.violations)


# ---------------------------------------------------------------- the second backend


def _agree(task: psab.Task) -> None:
    a = psab.solve(task, "surrogate").answer
    b = psab.solve(task, "transformer_thermal_model").answer
    for name in ("top_oil_c", "hot_spot_c", "ageing_rate_pu"):
        assert np.allclose(a[name], b[name], rtol=1e-9, atol=1e-9), name
    assert a["loss_of_life_h"] == pytest.approx(b["loss_of_life_h"], rel=1e-9)
    assert psab.evaluate(task, {"answer": a}, "transformer_thermal_model").score == 1.0


def test_backends_agree_on_the_public_case() -> None:
    need_backend("transformer_thermal_model")
    _agree(_public())


@pytest.mark.parametrize("level", [1, 2])
def test_backends_agree_on_generated_cases(level: int) -> None:
    need_backend("transformer_thermal_model")
    for index in range(15):
        _agree(psab.generate(F.FAMILY_ID, 7, index, level=level))


# ---------------------------------------------------------------- bad input


def _with(**changes: object) -> psab.Task:
    task = _public()
    inputs = copy.deepcopy(task.public_inputs)
    for key, value in changes.items():
        if value is None:
            inputs.pop(key)
        else:
            inputs[key] = value
    return psab.get_family(F.FAMILY_ID).make_task(task_id="bad", split="public", public_inputs=inputs)


@pytest.mark.parametrize(("changes", "field"), [
    ({"dt_minutes": 7.0}, "/dt_minutes"),
    ({"dt_minutes": 4.0}, "/dt_minutes"),
    ({"ambient_c": [20.0] * 10}, "/ambient_c"),
    ({"load_pu": None}, "/load_pu"),
])
def test_impossible_cases_name_the_field(changes: dict, field: str) -> None:
    task = _with(**changes)
    with pytest.raises(InvalidTaskError, match=field):
        psab.solve(task)


def test_negative_load_is_refused() -> None:
    task = _public()
    load = list(task.public_inputs["load_pu"])
    load[3] = -0.2
    with pytest.raises(InvalidTaskError, match="/load_pu"):
        psab.solve(_with(load_pu=load))


def _native_gap(inputs: dict, dt: float) -> tuple[float, float]:
    """Largest |θo| and |θh| gap between the package driven natively (the case's time constants,
    its exact exponential step — the exact solution of the linear model for load held over a step)
    and the statement's explicit difference equations, at step ``dt``."""
    from psab.backends import transformer_thermal_model_thermal as ttm

    inputs = copy.deepcopy(inputs) | {"dt_minutes": dt}
    p, k, amb, per = F.check(inputs)
    native = ttm.simulate(p, np.repeat(k, per), np.repeat(amb, per), dt, initial={"kind": "steady_state", "load_pu": float(k[0])},
                          paper=inputs["transformer"]["paper"], native=True)
    diff, _ = F.profile(inputs, "surrogate")
    return float(np.max(np.abs(native.top_oil_c - diff.top_oil_c))), float(np.max(np.abs(native.hot_spot_c - diff.hot_spot_c)))


def test_the_package_driven_natively_converges_to_the_difference_equations() -> None:
    """Independent evidence on the discretisation (issue 33): the explicit difference equations of
    IEC 60076-7 (Annex B/§8.2.3) are Euler's first-order method on the thermal model, so their gap to
    the package's exact exponential step must shrink about in proportion to Dt — 12× smaller step,
    gap at least 8× smaller — and stay within a kelvin at the public case's 3 min."""
    need_backend("transformer_thermal_model")
    inputs = _public().public_inputs
    assert inputs["initial_state"]["kind"] == "steady_state"
    o3, h3 = _native_gap(inputs, 3.0)
    o_small, h_small = _native_gap(inputs, 0.25)
    assert 0.0 < h3 < 1.0 and 0.0 < o3 < 0.5
    assert h_small < h3 / 8.0 and o_small < o3 / 8.0


def test_ageing_at_the_step_start_is_another_answer() -> None:
    """V from θh(n−1) instead of θh(n): the day's sums differ only by V(0) − V(N) (the series
    telescopes), but an interval whose hot spot moves gets another mean rate — lower while it
    heats, higher while it cools; both readings agree where θh is constant (the steady state)."""
    inputs = _public().public_inputs
    end = F.answer_of(*F.profile(inputs, "surrogate"))
    start = F.answer_with_ageing_at_step_start(inputs)
    assert start["top_oil_c"] == end["top_oil_c"]
    heating = [i for i in range(1, len(end["hot_spot_c"])) if end["hot_spot_c"][i] > end["hot_spot_c"][i - 1] + 1.0]
    cooling = [i for i in range(1, len(end["hot_spot_c"])) if end["hot_spot_c"][i] < end["hot_spot_c"][i - 1] - 1.0]
    assert heating and cooling
    assert all(start["ageing_rate_pu"][i] < end["ageing_rate_pu"][i] * (1 - 1e-3) for i in heating)
    assert all(start["ageing_rate_pu"][i] > end["ageing_rate_pu"][i] * (1 + 1e-3) for i in cooling)
    flat = copy.deepcopy(inputs)
    flat["load_pu"] = [0.8] * len(flat["load_pu"])
    flat["ambient_c"] = [25.0] * len(flat["ambient_c"])
    assert F.answer_with_ageing_at_step_start(flat)["loss_of_life_h"] == pytest.approx(
        F.answer_of(*F.profile(flat, "surrogate"))["loss_of_life_h"], rel=1e-9)
