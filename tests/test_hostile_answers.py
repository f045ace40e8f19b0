"""Answers built to break the evaluator (issue 12, items 2, 3 and 5, and the Python-API
remark): none may make ``evaluate`` raise, write an unencodable result, or cost more than a
small answer does.

The numbers asserted come from outside the code: Python's integer-conversion limit is 4300
digits (CVE-2020-10735, ``sys.int_info.default_max_str_digits``), UTF-8 cannot encode a lone
surrogate (RFC 3629 §3), and the runner's solution cap is ``SOLUTION_LIMIT``.
"""

from __future__ import annotations

import collections.abc
import json
import math
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import psab
from psab.cli import main as cli_main
from psab.evaluators.validation import (
    MAX_VIOLATIONS,
    MAX_VIOLATIONS_PER_FIELD,
    answer_violations,
    check_answer,
)
from psab.io import MAX_SOLUTION_VALUES, parse_solution_text
from psab.paths import case_dir

from families_under_test import FAMILIES

#: More digits than Python converts (its default limit is 4300).
HUGE = "7" * 5000


def _task(family: str) -> psab.Task:
    return psab.load_case(case_dir(family))


def _first(task: psab.Task) -> str:
    return next(iter(task.submission_schema["properties"]))


def _reference(task: psab.Task) -> dict[str, Any]:
    return psab.solve(task).answer


def _sane(result: psab.EvaluationResult) -> dict[str, Any]:
    """The result is valid, strictly encodable JSON (what --json and the runner write)."""
    text = result.to_json()
    text.encode("utf-8")  # raises on a lone surrogate
    data = json.loads(text)
    assert not psab.contract.schema_errors("result", data)
    assert "evaluator_error" not in result.evidence, result.evidence["evaluator_error"]
    return data


def _with(task: psab.Task, field_text: str, *, extra: str = "") -> str:
    """A solution document: the reference answer with its first field's value replaced by
    ``field_text`` (raw JSON), and ``extra`` raw members at the solution's top level."""
    answer = dict(_reference(task))
    name = _first(task)
    answer[name] = "@@FIELD@@"
    doc = json.dumps({"answer": answer}).replace('"@@FIELD@@"', field_text)
    return doc[:-1] + extra + "}"


# ---------------------------------------------------------------- item 2: 5,000-digit integers


@pytest.mark.parametrize("family", FAMILIES)
def test_a_5000_digit_integer_in_a_field_is_a_violation_at_that_field(family: str, tmp_path: Path) -> None:
    task = _task(family)
    path = tmp_path / "solution.json"
    path.write_text(_with(task, HUGE))
    for solution in (path, parse_solution_text(path.read_bytes()), {"answer": {**_reference(task), _first(task): int(HUGE[:4000]) ** 2}}):
        result = psab.evaluate(task, solution)
        _sane(result)
        assert not result.feasible
        assert [v.field for v in result.violations] == [f"/{_first(task)}"]


@pytest.mark.parametrize("family", FAMILIES)
def test_a_5000_digit_integer_outside_the_answer_changes_nothing(family: str, tmp_path: Path) -> None:
    task = _task(family)
    clean = psab.evaluate(task, {"answer": _reference(task)}).to_json()
    path = tmp_path / "solution.json"
    ref = json.dumps(_reference(task))
    for extra in (f', "rationale": {HUGE}', f', "x": [{HUGE}]', f', "task_id": {HUGE}, "{HUGE}": {{"k": -{HUGE}}}'):
        path.write_text('{"answer": ' + ref + extra + "}")
        assert psab.evaluate(task, path).to_json() == clean, extra
    big = int(HUGE[:4000]) ** 2  # a Python int Python cannot print
    assert psab.evaluate(task, {"answer": _reference(task), "rationale": big, big: big}).to_json() == clean


def test_psab_evaluate_never_prints_internal_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = _task("microgrid_economic_dispatch")
    cases = {
        "field": _with(task, HUGE),
        "rationale": '{"answer": ' + json.dumps(_reference(task)) + f', "rationale": {HUGE}}}',
        "surrogates": _with(task, '"\\ud800"', extra=', "\\udfff": "\\ud800"'),
        "surrogate key": '{"answer": {"\\ud800x": [1, "\\udc00"]}}',
    }
    for name, text in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        for flags in ([], ["--json"]):
            code = cli_main(["evaluate", str(case_dir(task.family)), str(path), *flags])
            out, err = capsys.readouterr()
            assert code == 0 and "internal error" not in err, (name, flags, err)
            out.encode("utf-8")
            if flags:
                assert json.loads(out)["feasible"] is (name == "rationale")


# ---------------------------------------------------------------- item 3: lone surrogates


@pytest.mark.parametrize("family", FAMILIES)
def test_lone_surrogates_anywhere_are_echoed_escaped(family: str, tmp_path: Path) -> None:
    task = _task(family)
    path = tmp_path / "solution.json"
    path.write_text(_with(task, '{"\\ud800": "\\udc00x"}', extra=', "rationale": "\\ud800", "\\ud801": 1'))
    answer = {**_reference(task), "\ud800bad": "\udfff", _first(task): ["\ud800"]}
    for solution in (path, {"answer": answer, "rationale": "\ud800"}):
        result = psab.evaluate(task, solution)
        data = _sane(result)
        assert not result.feasible
        text = json.dumps(data, ensure_ascii=False)
        # the escape is kept as text (backslash, u, four hex digits), never the raw code point
        assert "\\\\ud800" in text or "\\\\udfff" in text
        for v in result.violations:
            v.describe().encode("utf-8")


# ---------------------------------------------------------------- item 5: evaluation bombs


def _timed(task: psab.Task, solution: Any) -> tuple[psab.EvaluationResult, float, float]:
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        result = psab.evaluate(task, solution)
    finally:
        elapsed = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return result, elapsed, peak / 2**20


def test_100000_empty_objects_in_schedule_are_one_violation(tmp_path: Path) -> None:
    """The issue's case: 300 KB, 43 s, 1.2 GB and 700,001 violations before."""
    task = _task("microgrid_economic_dispatch")
    psab.evaluate(task, {"answer": _reference(task)})  # warm the reference cache
    path = tmp_path / "solution.json"
    path.write_text('{"answer": {"schedule": [' + ",".join(["{}"] * 100_000) + "]}}")
    assert path.stat().st_size > 300_000
    result, elapsed, peak_mb = _timed(task, path)
    data = _sane(result)
    assert [(v["field"], v["constraint"], v["found"]) for v in data["violations"]] == [
        ("/schedule", "must have at most 24 items", "list of length 100000")]
    # generous bounds for a loaded CI box; the benchmark reports the real figures
    assert elapsed < 5.0 and peak_mb < 200


def test_a_million_item_array_through_the_api_is_not_walked() -> None:
    task = _task("ybus_construction")
    answer = {**_reference(task), "bus_order": [math.nan] * 1_000_000}
    result, elapsed, peak_mb = _timed(task, {"answer": answer})
    assert [v.field for v in result.violations] == ["/bus_order"] and elapsed < 5.0 and peak_mb < 50


def test_documents_over_the_value_budget_are_rejected_before_parsing(tmp_path: Path) -> None:
    from psab.runner.execute import SOLUTION_LIMIT

    task = _task("dispatch_uncertainty")
    path = tmp_path / "solution.json"
    n = (SOLUTION_LIMIT - 40) // 3
    path.write_text('{"answer": {"x": [' + ",".join(["{}"] * n) + "]}}")
    assert path.stat().st_size <= SOLUTION_LIMIT and n > MAX_SOLUTION_VALUES
    result, elapsed, peak_mb = _timed(task, path)
    assert not result.feasible and str(MAX_SOLUTION_VALUES) in result.violations[0].constraint
    assert elapsed < 5.0 and peak_mb < 200
    # prose with many commas is not a bomb: only punctuation outside strings counts
    path.write_text('{"answer": {}, "rationale": ' + json.dumps("a, b, [c], {d}: " * 150_000) + "}")
    assert "JSON values" not in psab.evaluate(task, path).violations[0].constraint


def test_a_50_mb_string_is_not_copied_into_the_result() -> None:
    task = _task("cable_ampacity_sizing")
    big = "s" * (50 * 2**20)
    result, elapsed, peak_mb = _timed(task, {"answer": {**_reference(task), _first(task): big, "extra": big}, "rationale": big})
    assert len(result.to_json()) < 10_000 and elapsed < 5.0 and peak_mb < 50
    assert all(len(str(v.found)) < 300 for v in result.violations)


def test_violations_are_capped_per_field_and_per_answer_with_the_rest_counted() -> None:
    task = _task("microgrid_economic_dispatch")
    ref = _reference(task)
    # 24 hours x 30 unexpected fields (24 under each pattern) and 100 at the top: 820 violations
    hours = [{**h, **{f"x{i}": 0 for i in range(30)}} for h in ref["schedule"]]
    result = psab.evaluate(task, {"answer": {"schedule": hours, **{f"top{i}": 0 for i in range(100)}}})
    n = 24 * 30 + 100
    assert len(result.violations) == MAX_VIOLATIONS
    assert result.evidence["malformed_fields"] == n
    assert result.evidence["violations_omitted"] == n - MAX_VIOLATIONS
    # a schedule of nulls: 168 violations, 24 per pattern — within the caps, all listed
    nulls = [{k: None for k in h} for h in ref["schedule"]]
    result = psab.evaluate(task, {"answer": {"schedule": nulls}})
    assert len(result.violations) == 168 and "violations_omitted" not in result.evidence
    assert 24 < MAX_VIOLATIONS_PER_FIELD


def test_deep_nesting_is_one_violation_from_a_file_and_from_the_api(tmp_path: Path) -> None:
    task = _task("pf_voltage_repair")
    path = tmp_path / "solution.json"
    path.write_text('{"answer": {"q_injection_mvar": ' + "[" * 500 + "]" * 500 + "}}")
    deep: Any = 1.0
    for _ in range(100_000):
        deep = {"a": deep}
    for solution in (path, {"answer": {"q_injection_mvar": deep}}):
        result = psab.evaluate(task, solution)
        assert [v.field for v in result.violations] == [""] and "nested" in result.violations[0].constraint


# ---------------------------------------------------------------- the Python API's objects


class _RaisingMapping(collections.abc.Mapping):  # type: ignore[type-arg]
    def __init__(self, where: str) -> None:
        self.where = where

    def __getitem__(self, key: Any) -> Any:
        raise RuntimeError("getitem")

    def __iter__(self) -> Any:
        if self.where == "iter":
            raise RuntimeError("iter")
        return iter(["B3"])

    def __len__(self) -> int:
        if self.where == "len":
            raise RuntimeError("len")
        return 1


class _Opaque:
    pass


@pytest.mark.parametrize("family", FAMILIES)
def test_non_json_objects_are_violations_at_their_field(family: str) -> None:
    task = _task(family)
    ref = _reference(task)
    name = _first(task)
    for bad in (1 + 2j, {1, 2}, frozenset(), _Opaque(), b"bytes", _RaisingMapping("iter"), _RaisingMapping("len"),
                _RaisingMapping("getitem"), {1: 2}, {("t",): 1}, range(3)):
        result = psab.evaluate(task, {"answer": {**ref, name: bad}})
        _sane(result)
        assert not result.feasible and result.violations, bad
        assert all(v.field.startswith(f"/{name}") for v in result.violations), (bad, result.violations)
    for bad_answer in (_RaisingMapping("iter"), _RaisingMapping("len")):
        result = psab.evaluate(task, {"answer": bad_answer})
        assert not result.feasible and [v.field for v in result.violations] == [""]
    result = psab.evaluate(task, _RaisingMapping("getitem"))
    assert not result.feasible and [v.field for v in result.violations] == [""]


def test_numeric_types_of_the_python_api_are_coerced_not_rejected() -> None:
    """numpy scalars and other real numbers are numbers: the answer scores as the plain one."""
    import numpy as np

    task = _task("ybus_construction")
    ref = _reference(task)
    plain = psab.evaluate(task, {"answer": ref}).to_json()

    def to_numpy(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: to_numpy(x) for k, x in v.items()}
        if isinstance(v, list):
            return tuple(to_numpy(x) for x in v)
        return np.float64(v) if isinstance(v, float) else v

    assert psab.evaluate(task, {"answer": to_numpy(ref)}).to_json() == plain
    check = check_answer(task.submission_schema, to_numpy(ref))
    assert check.violations == [] and check.answer == ref
    assert type(check.answer["ybus_real_pu"][0][0]) is float


def test_answer_violations_keeps_its_contract() -> None:
    schema = _task("pf_voltage_repair").submission_schema
    assert answer_violations(schema, {"q_injection_mvar": {"B3": 1.0, "B4": 0, "B7": 0}}) == []
    assert [v.field for v in answer_violations(schema, None)] == [""]
    assert sys.int_info.default_max_str_digits == 4300  # the limit HUGE exceeds


def test_psab_evaluate_on_an_ascii_terminal(tmp_path: Path) -> None:
    """A terminal that cannot encode the agent's text: escapes, not "internal error"; --json
    stays valid JSON."""
    import os
    import subprocess

    path = tmp_path / "solution.json"
    path.write_text('{"answer": {"\\u00e9\\ud800": 1}}')
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": root}
    for flags in ([], ["--json"]):
        proc = subprocess.run([sys.executable, "-m", "psab.cli", "evaluate", str(case_dir("pf_voltage_repair")), str(path),
                               *flags], capture_output=True, env=env, check=False)
        assert proc.returncode == 0 and b"internal error" not in proc.stderr, proc.stderr
        if flags:
            fields = [v["field"] for v in json.loads(proc.stdout)["violations"]]
            assert "/\u00e9\\ud800" in fields
