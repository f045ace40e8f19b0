"""The evaluation kernel: validation → violations, the tolerance helper, score normalization."""

from __future__ import annotations

import copy
import functools
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import psab
from psab.evaluators import answer_schema as s
from psab.evaluators.scoring import classify_score, forecast_score, optimize_score
from psab.evaluators.tolerance import Checks, Tolerance, field_pattern
from psab.evaluators.validation import MAX_MAGNITUDE, answer_violations
from psab.paths import case_dir

SCHEMA = s.submission(
    {
        "ik_max_ka": s.number("kA", minimum=0),
        "schedule": s.array(s.obj({"p_mw": s.number("MW"), "on": s.boolean("committed")}), "hours", length=3),
        "bus": s.enum(["B1", "B2"], "a bus"),
    },
    "test",
)
GOOD = {"ik_max_ka": 12.5, "schedule": [{"p_mw": 1.0, "on": True}] * 3, "bus": "B1"}


def _fields(answer: object) -> list[str]:
    return [v.field for v in answer_violations(SCHEMA, answer)]


def test_a_good_answer_has_no_violation() -> None:
    assert answer_violations(SCHEMA, GOOD) == []


def test_each_malformed_field_is_one_violation_at_its_pointer() -> None:
    bad = {
        "ik_max_ka": "12.5",
        "schedule": [{"p_mw": None, "on": True}, {"on": 1}, {"p_mw": 1.0, "on": True, "q_mvar": 2}],
        "bus": "B9",
        "extra": [],
    }
    assert _fields(bad) == sorted(
        ["/bus", "/extra", "/ik_max_ka", "/schedule/0/p_mw", "/schedule/1/on", "/schedule/1/p_mw", "/schedule/2/q_mvar"]
    )


def test_non_finite_and_absurd_numbers_are_violations() -> None:
    for value in (math.nan, math.inf, -math.inf, 1e300, 10**400, MAX_MAGNITUDE * 10):
        answer = {**GOOD, "ik_max_ka": value}
        assert _fields(answer) == ["/ik_max_ka"], value


def test_wrong_length_and_non_object_answers() -> None:
    assert _fields({**GOOD, "schedule": GOOD["schedule"][:2]}) == ["/schedule"]
    assert _fields([1, 2]) == [""]
    assert _fields(None) == [""]


def test_missing_fields_are_reported_at_their_own_pointer() -> None:
    assert _fields({"schedule": GOOD["schedule"]}) == ["/bus", "/ik_max_ka"]


def test_tolerance_floor_lookup_and_relative_band() -> None:
    tol = Tolerance(relative=1e-3, absolute_floors={"/schedule/*/p_mw": 0.01, "/ik_max_ka": 0.001, "default": 1e-6})
    assert field_pattern("/schedule/12/p_mw") == "/schedule/*/p_mw"
    assert tol.allowed("/schedule/4/p_mw", 1.0) == 0.01
    assert tol.allowed("/ik_max_ka", 20.0) == pytest.approx(0.02)
    assert tol.allowed("/other", 0.0) == 1e-6
    ok, _ = tol.close("/ik_max_ka", 20.0, 20.019)
    bad, _ = tol.close("/ik_max_ka", 20.0, 20.021)
    assert ok and not bad
    assert not tol.close("/ik_max_ka", 20.0, math.nan)[0]


def test_checks_record_evidence_and_violations() -> None:
    c = Checks(Tolerance(feasibility={"voltage": 1e-4}))
    assert c.within("/v/0", 1.05005, 0.95, 1.05, "voltage band", slack="voltage")
    assert not c.within("/v/1", 1.0502, 0.95, 1.05, "voltage band", slack="voltage")
    assert not c.close("/x", 1.0, 1.01)
    assert [v.field for v in c.violations] == ["/v/1", "/x"]
    assert c.records[0]["expected"] == 1.0 and c.records[0]["ok"] is False


def test_optimize_score_examples() -> None:
    assert optimize_score(110.0, 100.0, sense="minimize", scale_floor=1.0).score == pytest.approx(0.9)
    assert optimize_score(90.0, 100.0, sense="maximize", scale_floor=1.0).score == pytest.approx(0.9)
    # a zero optimum: the case-independent floor sets the scale
    assert optimize_score(2.0, 0.0, sense="minimize", scale_floor=10.0).score == pytest.approx(0.8)
    # a negative optimum (a profit): a worse answer still scores below 1
    assert optimize_score(-90.0, -100.0, sense="minimize", scale_floor=1.0).score == pytest.approx(0.9)
    beat = optimize_score(95.0, 100.0, sense="minimize", scale_floor=1.0)
    assert beat.score == 1.0 and beat.beats_reference
    tie = optimize_score(100.0 + 1e-7, 100.0, sense="minimize", scale_floor=1.0)
    assert tie.score == 1.0 and not tie.beats_reference
    assert optimize_score(1e9, 100.0, sense="minimize", scale_floor=1.0).score == 0.0


@given(ref=st.floats(-1e6, 1e6), gap=st.floats(0, 1e7), floor=st.floats(1e-3, 1e3), sense=st.sampled_from(["minimize", "maximize"]))
def test_optimize_score_is_in_unit_interval_and_monotone(ref: float, gap: float, floor: float, sense: str) -> None:
    worse = ref + gap if sense == "minimize" else ref - gap
    much_worse = ref + 2 * gap if sense == "minimize" else ref - 2 * gap
    a = optimize_score(worse, ref, sense=sense, scale_floor=floor).score
    b = optimize_score(much_worse, ref, sense=sense, scale_floor=floor).score
    assert 0.0 <= b <= a <= 1.0


def test_other_kinds() -> None:
    assert classify_score(7, 10) == 0.7 and classify_score(0, 0) == 0.0
    assert forecast_score(1.3) == 1.0 and forecast_score(-0.2) == 0.0 and forecast_score(math.nan) == 0.0


def test_caller_errors_raise_psab_exceptions() -> None:
    task = psab.load_case(case_dir("ybus_construction"))
    sol = psab.solve(task)
    with pytest.raises(psab.UnknownBackendError, match="surrogate"):
        psab.evaluate(task, sol, backend="matlab")
    with pytest.raises(psab.InvalidArgumentError, match="no such solution file"):
        psab.evaluate(task, case_dir("ybus_construction") / "missing.json")
    with pytest.raises(psab.InvalidArgumentError):
        psab.load_case("/nonexistent/case")
    with pytest.raises(psab.InvalidTaskError):
        psab.evaluate({"id": "x"}, sol)


def test_evaluate_accepts_objects_dicts_and_paths() -> None:
    d = case_dir("ybus_construction")
    task = psab.load_case(d)
    sol = psab.solve(task)
    by_object = psab.evaluate(task, sol)
    by_dict = psab.evaluate(task.to_dict(), sol.to_dict())
    by_path = psab.evaluate(d / "task.json", d / "solution.json")
    assert by_object.to_json() == by_dict.to_json() == by_path.to_json()
    assert by_object.perfect


# The fast validity path may only ever say "valid" when jsonschema agrees.
from psab.evaluators.validation import (  # noqa: E402
    _fast_valid,
    _Unsupported,
    number_violations,
    schema_violations,
)
from psab.mutations import mutations  # noqa: E402

_leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True, allow_infinity=True),
                  st.sampled_from(["B1", "B2", "x", ""]), st.just(1e13))


@functools.cache
def _case_and_variants(family: str) -> tuple[Any, list[Any]]:
    """The public task and every mutation of its reference answer: the same for every example
    of a family, so built once (they cost up to 0.3 s per example, most of this test's time)."""
    task = psab.load_case(case_dir(family))
    answer = psab.solve(task).answer
    return task, [m.answer for m in mutations(answer, task.submission_schema)] or [answer]


@pytest.mark.parametrize("family", [spec.id for spec in psab.families()])
@given(data=st.data())
def test_fast_path_never_accepts_what_jsonschema_rejects(family: str, data: st.DataObject) -> None:
    task, variants = _case_and_variants(family)
    candidate = copy.deepcopy(data.draw(st.sampled_from(variants)))  # the cached variants stay pristine
    # and one random leaf replaced by an arbitrary value
    if isinstance(candidate, dict) and candidate:
        key = data.draw(st.sampled_from(sorted(candidate)))
        if data.draw(st.booleans()):
            candidate = {**candidate, key: data.draw(_leaf)}
    try:
        fast = _fast_valid(task.submission_schema, candidate)
    except _Unsupported:
        return
    if fast:
        assert not schema_violations(task.submission_schema, candidate)
        assert not number_violations(candidate)


def test_hostile_nesting_is_one_violation_not_a_recursion_error() -> None:
    deep: object = 1.0
    for _ in range(20000):
        deep = [deep]
    task = psab.load_case(case_dir("ybus_construction"))
    result = psab.evaluate(task, {"answer": {"bus_order": deep}})
    assert not result.feasible and [v.field for v in result.violations] == [""]
    assert "nested" in result.violations[0].constraint


# Echoed containers are summarised when they print longer than 200 characters; the bounded
# check must decide exactly as printing them would (results stay byte-identical).
from psab.evaluators.validation import _longer_than  # noqa: E402

_printable = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**60), 10**60), st.floats(allow_nan=True), st.text(max_size=30)),
    lambda c: st.lists(c, max_size=12) | st.dictionaries(st.text(max_size=6), c, max_size=8),
    max_leaves=40,
)


@given(value=_printable.filter(lambda v: isinstance(v, (list, dict))), limit=st.sampled_from([0, 20, 80, 200]))
def test_longer_than_agrees_with_printing(value: object, limit: int) -> None:
    assert _longer_than(value, limit) == (len(str(value)) > limit)  # type: ignore[arg-type]


def test_editing_a_solved_answer_leaves_the_cached_reference_alone() -> None:
    """psab.solve hands out a copy: a caller that perturbs the reference answer in place (as a
    mutation study does) must not change the reference every later evaluation is scored by."""
    from psab.paths import case_dir

    task = psab.load_case(case_dir("microgrid_economic_dispatch"))
    first = psab.solve(task)
    first.answer["schedule"][0]["soc_mwh"] += 5.0
    assert psab.solve(task).answer != first.answer
    assert psab.evaluate(task, psab.solve(task)).perfect
