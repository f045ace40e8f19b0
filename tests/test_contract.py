"""The artifact contract: schemas, lossless round-trips, the agent view, canonical JSON."""

from __future__ import annotations

import json

import pytest

import psab
from psab.contract import (
    EvaluationResult,
    Solution,
    Task,
    Violation,
    digest,
    dumps,
    schema_errors,
    to_jsonable,
)
from psab.paths import case_dir


def test_every_public_task_round_trips_losslessly() -> None:
    for spec in psab.families():
        task = psab.load_case(case_dir(spec.id))
        again = Task.from_json(task.to_json(), key=task.key)
        assert again == task
        assert again.to_json() == task.to_json()
        assert again.digest == task.digest


def test_agent_view_never_holds_the_key() -> None:
    spec = psab.families()[0]
    task = spec.make_task(task_id="t-1", split="heldout", public_inputs=psab.load_case(case_dir(spec.id)).public_inputs,
                          key={"realized_mw": [1.0, 2.0]})
    view = task.to_dict()
    assert "key" not in view and "realized_mw" not in json.dumps(view)
    assert not schema_errors("task", view)
    # a key smuggled into the agent view violates the task schema
    assert schema_errors("task", {**view, "key": {"x": 1}})
    # but the digest covers it: two tasks differing only in their keys are different cases
    other = Task.from_dict(view, key={"realized_mw": [1.0, 3.0]})
    assert other.digest != task.digest


def test_invalid_task_is_a_caller_error_naming_the_field() -> None:
    view = psab.load_case(case_dir(psab.families()[0].id)).to_dict()
    del view["submission_schema"]
    with pytest.raises(psab.InvalidTaskError, match="submission_schema"):
        Task.from_dict(view)
    with pytest.raises(psab.InvalidTaskError, match="split"):
        Task.from_dict({**psab.load_case(case_dir(psab.families()[0].id)).to_dict(), "split": "train"})


def test_result_round_trip_and_schema() -> None:
    result = EvaluationResult(
        task_id="t", family="f", family_version="1", backend="surrogate", feasible=False, score=0.0,
        violations=(Violation("/p_mw/3", "unit limit", "<= 10", 12.5),), evidence={"objective": 3.5, "flags": [1, 2]},
        evaluator_version="f@1",
    )
    d = result.to_dict()
    assert not schema_errors("result", d)
    assert EvaluationResult.from_dict(json.loads(result.to_json())) == result
    with pytest.raises(psab.InvalidArgumentError):
        EvaluationResult.from_dict({**d, "score": 1.5})


def test_solution_round_trip_keeps_rationale() -> None:
    s = Solution(answer={"x_pu": 1.0}, rationale="because", task_id="t")
    assert Solution.from_dict(json.loads(s.to_json())) == s


def test_canonical_json_is_stable_and_strict() -> None:
    a = {"b": 1.0, "a": [float("nan"), float("inf"), -float("inf")]}
    text = dumps(a)
    assert text.index('"a"') < text.index('"b"')
    assert json.loads(text)["a"] == ["NaN", "Infinity", "-Infinity"]
    assert digest({"x": 1, "y": 2}) == digest({"y": 2, "x": 1})
    import numpy as np

    assert to_jsonable({"v": np.float64(2.5), "m": np.arange(3)}) == {"v": 2.5, "m": [0, 1, 2]}
