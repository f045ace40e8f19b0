"""fdi_state_estimation: WLS properties, the bad-data procedure, cross-backend agreement, bad inputs."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.evaluators.cache import clear_reference_cache
from psab.families import fdi_state_estimation as fdi
from psab.paths import case_dir
from psab.surrogates import wls

from conftest import need_backend

FAMILY = "fdi_state_estimation"


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def _task(inputs: dict) -> psab.Task:
    return psab.get_family(FAMILY).make_task(task_id="fdi-variant", split="public", public_inputs=inputs)


def _truth_case(seed: int, level: int = 1) -> tuple[fdi.Case, np.ndarray]:
    """A drawn network and measurement set with the exact (noise-free) values of its true state."""
    rng = np.random.default_rng(seed)
    net = fdi._network(rng, level)
    V = fdi._truth(net)
    plan = fdi._measurement_plan(rng, net, level)
    inputs = {k: v for k, v in net.items() if not k.startswith("_")} | {"rn_threshold": 3.0}
    inputs["measurements"] = [dict(m, id=f"M{k:02d}", value=0.0, sigma=fdi.SIGMA[m["quantity"]]) for k, m in enumerate(plan)]
    case = fdi.Case(inputs)
    return case, V


@settings(max_examples=12)
@given(seed=st.integers(0, 10_000), level=st.sampled_from([1, 2]))
def test_noise_free_measurements_give_back_the_power_flow_state(seed: int, level: int) -> None:
    """WLS on exact measurements of an AC power-flow solution returns that solution (J = 0)."""
    try:
        case, V = _truth_case(seed, level)
    except InvalidTaskError:
        return  # this placement is unobservable; the generator redraws such placements
    exact = wls.Measurements(case.meas.kind, case.meas.bus, case.meas.branch, case.meas.end,
                             wls.measured(case.grid, case.meas, V), case.meas.sigma)
    est = wls.estimate(case.grid, exact)
    assert est.converged
    assert np.allclose(est.V, V, atol=1e-8)
    assert est.objective < 1e-12


@settings(max_examples=10)
@given(seed=st.integers(0, 10_000), k_sigma=st.floats(15.0, 40.0), sign=st.sampled_from([-1.0, 1.0]))
def test_one_gross_error_on_a_redundant_flow_is_the_largest_normalized_residual(seed: int, k_sigma: float,
                                                                                  sign: float) -> None:
    """Abur & Expósito §5.7: a single gross error in a measurement that is not critical and not
    in a critical pair has the largest normalized residual; removing it leaves r_N = 0."""
    try:
        case, V = _truth_case(seed, 1)
    except InvalidTaskError:
        return
    z = wls.measured(case.grid, case.meas, V)
    flows = np.flatnonzero(np.isin(case.meas.kind, (wls.P_FLOW, wls.Q_FLOW)))
    i = int(flows[seed % len(flows)])
    z[i] += sign * k_sigma * case.meas.sigma[i]
    m = wls.Measurements(case.meas.kind, case.meas.bus, case.meas.branch, case.meas.end, z, case.meas.sigma)
    first = wls.estimate(case.grid, m)
    if first.critical[i]:
        return
    out = wls.largest_normalized_residual(case.grid, m, 3.0)
    assert out.removed == (i,)
    assert np.allclose(out.final.V, V, atol=1e-7)


def test_public_case_removes_two_interacting_errors_and_the_naive_pass_fails() -> None:
    task = _public()
    ref = psab.solve(task).answer
    ms = {m["id"]: m for m in task.public_inputs["measurements"]}
    assert ref["bad_measurements"] == ["M07", "M18"]
    # interacting: the reactive injection at B2 and the active flow leaving B2 on L2-5
    assert ms["M07"]["bus"] == "B2" and ms["M18"]["branch"] == "L2-5"
    naive = psab.get_family(FAMILY).naive_answer(task)  # type: ignore[misc]
    assert psab.evaluate(task, {"answer": naive}).score == 0.0


def test_cross_backend_agreement_public_and_30_generated() -> None:
    """pandapower.estimation.remove_bad_data and the surrogate remove the same measurements and
    agree on the final state well inside the answer tolerance (public case + 30 draws)."""
    need_backend("pandapower")
    tasks = [_public()] + [psab.generate(FAMILY, 20261201, i, level=1 + (i % 3 == 2)) for i in range(30)]
    for task in tasks:
        clear_reference_cache()
        a = psab.solve(task, "pandapower").answer
        b = psab.solve(task).answer
        assert a["bad_measurements"] == b["bad_measurements"], task.id
        assert np.max(np.abs(np.subtract(a["vm_pu"], b["vm_pu"]))) < 1e-7, task.id
        assert np.max(np.abs(np.subtract(a["va_deg"], b["va_deg"]))) < 1e-5, task.id


def test_generated_draws_keep_their_margins() -> None:
    """Every removal step is well above the threshold, the passing test well below it."""
    for i in range(4):
        task = psab.generate(FAMILY, 11, i, level=2)
        out = fdi.Case(task.public_inputs).surrogate()
        thr = task.public_inputs["rn_threshold"]
        assert all(x >= thr + fdi.DETECT_MARGIN for x in out.largest_rn[:-1])
        assert out.largest_rn[-1] <= fdi.PASS_FRACTION * thr
        assert len(out.removed) >= 1 and not out.critical_seen
        keep = np.ones(len(out.final.residual) + len(out.removed), bool)
        for i in out.removed:
            keep[i] = False
            case = fdi.Case(task.public_inputs)
            assert wls.observable(case.grid, case.meas.subset(np.flatnonzero(keep)))


def test_unobservable_measurement_set_is_the_callers_error() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["measurements"] = [m for m in inputs["measurements"] if m["quantity"] in ("v_pu", "p_injection_mw")]
    with pytest.raises(InvalidTaskError, match="public_inputs/measurements do not make the state observable"):
        psab.solve(_task(inputs))


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda d: d["measurements"][12].update(branch="L4-6"), "measurements/12/branch"),
    (lambda d: d["measurements"][1].update(bus="B9"), "measurements/1/bus"),
    (lambda d: d.update(reference_bus="B0"), "reference_bus"),
    (lambda d: d["branches"][2].update(to_bus="B7"), "branches/2/to_bus"),
])
def test_references_that_do_not_resolve_are_the_callers_error(mutate, field) -> None:  # type: ignore[no-untyped-def]
    inputs = copy.deepcopy(_public().public_inputs)
    mutate(inputs)
    with pytest.raises(InvalidTaskError, match=field):
        psab.solve(_task(inputs))
