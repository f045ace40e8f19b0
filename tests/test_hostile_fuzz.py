"""Property test over every family (issue 12): answers mixing huge integers, lone surrogates,
non-JSON Python objects, raising mappings, over-long arrays, long strings and deep nesting —
handed over as Python objects or as JSON text — never make ``evaluate`` raise, always give a
strictly encodable, schema-valid result, are infeasible when the hostile value is in the
answer, and stay cheap. (No submission schema has a free-text field, so a surrogate string
in an answer is always malformed.)"""

from __future__ import annotations

import collections.abc
import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.contract import schema_errors
from psab.io import parse_solution_text
from psab.paths import case_dir

from families_under_test import FAMILIES


class _Raising(collections.abc.Mapping):  # type: ignore[type-arg]
    def __getitem__(self, key: Any) -> Any:
        raise RuntimeError("hostile mapping")

    def __iter__(self) -> Any:
        raise RuntimeError("hostile mapping")

    def __len__(self) -> int:
        return 3


class _Opaque:
    pass


def _nest(depth: int) -> Any:
    v: Any = 0.5
    for _ in range(depth):
        v = [v]
    return v


_surrogate = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
_text = st.text(alphabet=st.one_of(_surrogate, st.characters()), min_size=1, max_size=6)

#: Values no well-formed answer holds.
_hostile = st.one_of(
    st.sampled_from([10**5000, -(10**4400), 1 + 2j, {1, 2}, frozenset([3]), b"\x00", range(2), float("nan")]),
    st.builds(_Opaque),
    st.builds(_Raising),
    _text.filter(lambda s: any(0xD800 <= ord(c) <= 0xDFFF for c in s)),
    st.builds(lambda n: [1.0] * n, st.sampled_from([101, 5000, 200_000])),
    st.builds(lambda n: "s" * n, st.sampled_from([5000, 2_000_000])),
    st.builds(_nest, st.sampled_from([65, 3000])),
    st.builds(lambda k: {k: 1.0}, _text.filter(lambda s: any(0xD800 <= ord(c) <= 0xDFFF for c in s))),
    st.builds(lambda n: {f"x{i}": i for i in range(n)}, st.sampled_from([150, 5000])),
)
_plain = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-1e3, 1e3), st.text(max_size=4))


def _task(family: str) -> psab.Task:
    return psab.load_case(case_dir(family))


def _check(task: psab.Task, solution: Any, hostile_in_answer: bool) -> None:
    t0 = time.perf_counter()
    result = psab.evaluate(task, solution)
    elapsed = time.perf_counter() - t0
    text = result.to_json()
    text.encode("utf-8")
    assert not schema_errors("result", json.loads(text))
    assert "evaluator_error" not in result.evidence, result.evidence["evaluator_error"]
    for v in result.violations:
        v.describe().encode("utf-8")
    if hostile_in_answer:
        assert not result.feasible and result.violations
    assert elapsed < 5.0  # generous for a loaded box; benchmarks/bench_bombs.py measures


def _place(answer: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    """``answer`` with the node at ``path`` (keys/indices, followed as far as they go) replaced."""
    out = json.loads(json.dumps(answer))
    node: Any = out
    for step in path[:-1]:
        if isinstance(node, dict) and node:
            node = node[sorted(node)[step % len(node)]]
        elif isinstance(node, list) and node:
            node = node[step % len(node)]
        else:
            break
    if isinstance(node, dict) and node:
        node[sorted(node)[path[-1] % len(node)]] = value
    elif isinstance(node, list) and node:
        node[path[-1] % len(node)] = value
    else:
        out["hostile"] = value
    return out


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=30)
@given(data=st.data())
def test_hostile_python_answers_never_raise(family: str, data: st.DataObject) -> None:
    task = _task(family)
    ref = psab.solve(task).answer
    value = data.draw(_hostile, label="hostile")
    path = data.draw(st.lists(st.integers(0, 50), min_size=1, max_size=4), label="path")
    answer = _place(ref, path, value)
    rationale = data.draw(st.one_of(_plain, _hostile), label="rationale")
    _check(task, {"answer": answer, "rationale": rationale, "task_id": rationale}, hostile_in_answer=True)


_LITERALS = st.sampled_from(["7" * 5000, "-" + "9" * 4301, '"\\ud800"', '"\\udfff\\ud800x"', "1e99999", "[" * 70 + "]" * 70,
                             "[" + ",".join(["{}"] * 3000) + "]"])


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=20)
@given(data=st.data())
def test_hostile_json_text_never_raises(family: str, data: st.DataObject) -> None:
    task = _task(family)
    ref = psab.solve(task).answer
    literal = data.draw(_LITERALS, label="literal")
    where = data.draw(st.sampled_from(["field", "rationale", "extra", "key"]), label="where")
    path = data.draw(st.lists(st.integers(0, 50), min_size=1, max_size=4), label="path")
    marker = "__PSAB_FUZZ__"
    if where == "field":
        doc = json.dumps({"answer": _place(ref, path, marker)})
    elif where == "rationale":
        doc = json.dumps({"answer": ref, "rationale": marker})
    elif where == "extra":
        doc = json.dumps({"answer": ref, "extra": [marker]})
    else:
        doc = json.dumps({"answer": ref, "x": {marker: 1}})
    key_literal = literal if literal.startswith('"') else json.dumps(literal[:50])
    doc = doc.replace(f'"{marker}"', key_literal if where == "key" else literal)
    _check(task, parse_solution_text(doc.encode("utf-8")), hostile_in_answer=(where == "field"))
