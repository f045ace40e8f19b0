"""wind_prediction_interval: the hand-derived golden score and coverage rule, calibration of the
reference interval over generated cases, acceptance against trivial intervals, bad inputs."""

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
from psab.families import wind_prediction_interval as wpi
from psab.paths import case_dir, golden_dirs

FAMILY = "wind_prediction_interval"


def _golden() -> psab.Task:
    return psab.load_case(next(d for d in golden_dirs(FAMILY) if d.name == "hand_four_blocks"))


def test_golden_width_score_and_coverage_rule_by_hand() -> None:
    # golden/wind_prediction_interval/hand_four_blocks/README.md
    task = _golden()
    y = np.array(task.key["realized_power_mw"])
    answer = {"lower_mw": (y - 1.0).tolist(), "upper_mw": (y + 1.0).tolist()}
    result = psab.evaluate(task, {"answer": answer})
    assert result.feasible and result.score == pytest.approx(1.13658125 / 2.0, abs=1e-9)
    assert result.evidence["reference_mean_width_mw"] == pytest.approx(1.13658125, abs=1e-6)
    assert result.evidence["winkler_mw"] == pytest.approx(2.0) and result.evidence["min_hits"] == 16
    assert result.evidence["coverage_allowance"] == pytest.approx(0.8 - 16 / 24, abs=1e-6)
    # nine hours shifted up by 1.5 MW: 15 of 24 covered < 16 → infeasible
    shifted = {"lower_mw": [v + (1.5 if t < 9 else 0.0) for t, v in enumerate(answer["lower_mw"])],
               "upper_mw": [v + (1.5 if t < 9 else 0.0) for t, v in enumerate(answer["upper_mw"])]}
    bad = psab.evaluate(task, {"answer": shifted})
    assert not bad.feasible and bad.score == 0.0 and bad.evidence["hits"] == 15
    # lower above upper, and above the available capacity (9.3 MW): infeasible at the field
    crossed = psab.evaluate(task, {"answer": {"lower_mw": [9.4] + answer["lower_mw"][1:], "upper_mw": answer["upper_mw"]}})
    assert not crossed.feasible and {v.field for v in crossed.violations} >= {"/lower_mw/0"}


@pytest.mark.parametrize("level", [1, 2])
def test_reference_interval_is_calibrated_on_raw_draws(level: int) -> None:
    """Over raw (not accepted) draws the reference's mean coverage is near the nominal one
    (Pinson et al. 2007: reliability), so acceptance does not select a miscalibrated method."""
    cover, nominal = [], []
    for seed in range(40):
        g = wpi.generate(None, np.random.default_rng(seed), level)  # type: ignore[arg-type]
        lo, hi = wpi.interval_mw(g.public_inputs)
        y = np.array(g.key["realized_power_mw"])
        cover.append(fc.hits(lo, hi, y, 1e-6).mean())
        nominal.append(g.public_inputs["nominal_coverage"])
    assert abs(np.mean(cover) - np.mean(nominal)) < 0.06, (np.mean(cover), np.mean(nominal))


@pytest.mark.parametrize("level", [1, 2])
def test_no_trivial_interval_scores_one_on_accepted_draws(level: int) -> None:
    for index in range(5):
        task = psab.generate(FAMILY, "trivial-check", index, level=level)
        for name, answer in wpi.baselines(task).items():
            assert psab.evaluate(task, {"answer": answer}).score < 1.0, (index, name)


@settings(max_examples=15)
@given(seed=st.integers(0, 10**6), level=st.sampled_from([1, 2]))
def test_reference_interval_is_ordered_within_physical_limits_and_holds_the_point(seed: int, level: int) -> None:
    g = wpi.generate(None, np.random.default_rng(seed), level)  # type: ignore[arg-type]
    lo, hi = wpi.interval_mw(g.public_inputs)
    p = _wind.point_forecast_mw(g.public_inputs)
    top = wpi.upper_limits_mw(g.public_inputs)
    assert (0 <= lo).all() and (lo <= hi + 1e-12).all() and (hi <= top + 1e-9).all()
    # the past errors straddle zero, so the interval contains the point forecast
    assert (lo <= p + 1e-9).all() and (p <= hi + 1e-9).all()


@settings(max_examples=25)
@given(a=st.floats(0.0, 3.0), b=st.floats(0.0, 3.0))
def test_a_wider_interval_never_scores_higher(a: float, b: float) -> None:
    task = psab.load_case(case_dir(FAMILY))
    ref = psab.solve(task).answer
    cap = _wind.available_capacity_mw(task.public_inputs)

    def widened(d: float) -> psab.EvaluationResult:
        return psab.evaluate(task, {"answer": {"lower_mw": [max(0.0, v - d) for v in ref["lower_mw"]],
                                               "upper_mw": [min(cap, v + d) for v in ref["upper_mw"]]}})

    narrow, wide = widened(min(a, b)), widened(max(a, b))
    assert narrow.feasible and wide.feasible  # widening never loses coverage
    assert wide.score <= narrow.score + 1e-12 and wide.evidence["hits"] >= narrow.evidence["hits"]


def _broken(edit) -> psab.Task:  # type: ignore[no-untyped-def]
    task = psab.load_case(case_dir(FAMILY))
    inputs = copy.deepcopy(task.public_inputs)
    edit(inputs)
    return psab.get_family(FAMILY).make_task(task_id="broken", split="public", public_inputs=inputs, key=task.key)


@pytest.mark.parametrize(("edit", "field"), [
    (lambda i: i["error_history"]["errors_pu"][2].pop(), "/error_history/errors_pu/2"),
    (lambda i: i["error_history"]["errors_pu"][0].__setitem__(3, 1.5), "/error_history/errors_pu/0"),
    (lambda i: i["farm"]["groups"][0].update(available_count=0), "/farm/groups"),
    (lambda i: i["history"]["flag"].pop(), "/history/flag"),
])
def test_bad_inputs_raise_naming_the_field(edit, field) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidTaskError, match=field):
        psab.solve(_broken(edit))


def test_bad_coverage_is_refused_by_the_input_schema() -> None:
    with pytest.raises(InvalidTaskError, match="nominal_coverage"):
        psab.solve(_broken(lambda i: i.update(nominal_coverage=1.2)))
