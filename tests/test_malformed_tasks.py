"""A malformed task is the caller's error, never the agent's (issue 12, item 6).

Property: mutate one spot of a family's public ``public_inputs`` — drop a key at any depth,
zero / negate / NaN / infinity / a string in place of a number, rename a string (which breaks
the reference when it is an id another element points at), shorten or empty a list — rebuild
the task, and both ``psab.evaluate(task, reference answer)`` and ``psab.solve(task)`` either
work or raise a :class:`psab.errors.PsabError`; an evaluation never reports an
``evaluator_error`` (a task defect turned into a verdict against the agent).

Examples are drawn deterministically (``derandomize``) and bounded per family so that the
whole file runs in well under a minute on two cores.
"""

from __future__ import annotations

import copy
import math
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import psab
from psab.contract import Task
from psab.errors import InvalidTaskError, PsabError
from tests.families_under_test import FAMILIES

MUTATIONS = ("drop", "zero", "nan", "inf", "negative", "string", "rename", "shorten", "empty")


def _spots(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) below the root, depth first."""
    out: list[tuple[tuple[Any, ...], Any]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        out.append(((*path, k), v))
        out.extend(_spots(v, (*path, k)))
    return out


def _applicable(kind: str, path: tuple[Any, ...], value: Any) -> bool:
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return {
        "drop": isinstance(path[-1], str),
        "zero": is_number, "nan": is_number, "inf": is_number, "negative": is_number, "string": is_number,
        "rename": isinstance(value, str),
        "shorten": isinstance(value, list) and len(value) > 0,
        "empty": isinstance(value, list | dict) and len(value) > 0,
    }[kind]


def mutate(inputs: dict[str, Any], kind: str, path: tuple[Any, ...]) -> dict[str, Any]:
    out = copy.deepcopy(inputs)
    parent = out
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    value = parent[last]
    if kind == "drop":
        del parent[last]
    elif kind == "shorten":
        value.pop()
    elif kind == "empty":
        value.clear()
    else:
        parent[last] = {
            "zero": 0, "nan": math.nan, "inf": math.inf, "string": "1.0",
            "negative": -abs(value) - 1 if not isinstance(value, str) else value,
            "rename": f"{value}_renamed" if isinstance(value, str) else value,
        }[kind]
    return out


@cache
def _public(family: str) -> tuple[Task, dict[str, Any], dict[str, list[tuple[Any, ...]]]]:
    spec = psab.get_family(family)
    task = spec.public_task()
    answer = psab.solve(task).answer
    spots = _spots(task.public_inputs)
    by_kind = {k: [p for p, v in spots if _applicable(k, p, v)] for k in MUTATIONS}
    return task, answer, {k: v for k, v in by_kind.items() if v}


def _check(family: str, kind: str, pick: int, rebuild: bool) -> None:
    spec = psab.get_family(family)
    public, answer, by_kind = _public(family)
    if kind not in by_kind:
        return
    paths = by_kind[kind]
    inputs = mutate(public.public_inputs, kind, paths[pick % len(paths)])
    try:
        if rebuild:  # the submission schema follows the (broken) inputs
            task = spec.make_task(task_id=public.id, split=public.split, public_inputs=inputs, key=copy.deepcopy(public.key))
        else:  # the original schema over broken inputs, as a hand-edited task.json would have
            data = public.to_dict()
            data["public_inputs"] = inputs
            task = Task.from_dict(data, key=copy.deepcopy(public.key))
    except InvalidTaskError:
        return
    try:
        result = psab.evaluate(task, {"answer": answer})
    except PsabError:
        pass
    else:
        assert "evaluator_error" not in result.evidence, (kind, result.evidence["evaluator_error"])
    try:
        psab.solve(task)
    except PsabError:
        pass


@pytest.mark.parametrize("family", FAMILIES)
def test_a_malformed_task_raises_only_psab_errors(family: str) -> None:
    _public(family)  # the public solve is not part of the per-example budget

    @settings(max_examples=30, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(kind=st.sampled_from(MUTATIONS), pick=st.integers(min_value=0, max_value=10_000), rebuild=st.booleans())
    def prop(kind: str, pick: int, rebuild: bool) -> None:
        _check(family, kind, pick, rebuild)

    prop()


@pytest.mark.parametrize("family", FAMILIES)
def test_every_mutation_kind_on_every_spot_is_a_clean_caller_error(family: str) -> None:
    """One deterministic sweep: the first three spots of each kind (the top-level fields and
    the first element of each list), which is where a drop or rename breaks a reference."""
    _, _, by_kind = _public(family)
    for kind, paths in by_kind.items():
        for pick in range(min(3, len(paths))):
            _check(family, kind, pick, True)


def test_a_broken_task_names_the_field() -> None:
    """The message carries a JSON pointer into public_inputs."""
    public, _, _ = _public("contingency_screening")
    spec = psab.get_family("contingency_screening")
    inputs = copy.deepcopy(public.public_inputs)
    inputs["branches"][1]["from_bus"] = "nowhere"
    task = spec.make_task(task_id=public.id, split=public.split, public_inputs=inputs)
    with pytest.raises(InvalidTaskError, match=r"public_inputs/branches/1/from_bus"):
        psab.solve(task)
    inputs = copy.deepcopy(public.public_inputs)
    inputs["base_mva"] = math.nan
    task = spec.make_task(task_id=public.id, split=public.split, public_inputs=inputs)
    with pytest.raises(InvalidTaskError, match=r"public_inputs/base_mva"):
        psab.evaluate(task, {"answer": {}})
