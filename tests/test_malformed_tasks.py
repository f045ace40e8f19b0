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
import re
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

    @settings(max_examples=40, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(kind=st.sampled_from(MUTATIONS), pick=st.integers(min_value=0, max_value=10_000), rebuild=st.booleans())
    def prop(kind: str, pick: int, rebuild: bool) -> None:
        _check(family, kind, pick, rebuild)

    prop()


@pytest.mark.parametrize("family", FAMILIES)
def test_every_mutation_kind_on_every_spot_is_a_clean_caller_error(family: str) -> None:
    """One deterministic sweep besides the random draws: the first three spots of each kind in
    depth-first order (the first top-level fields and what lies in them)."""
    _, _, by_kind = _public(family)
    for kind, paths in by_kind.items():
        for pick in range(min(3, len(paths))):
            _check(family, kind, pick, True)


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def edit(inputs: dict[str, Any]) -> None:
        parent = inputs
        for part in path[:-1]:
            parent = parent[part]
        parent[path[-1]] = value(parent[path[-1]]) if callable(value) else value
    return edit


def _drop(key: str) -> Any:
    return lambda inputs: inputs.pop(key)


#: (family, edit of public_inputs that a schema alone cannot catch, the pointer the error names)
SANITY = [
    ("contingency_screening", _set(("branches", 1, "from_bus"), "nowhere"), "/branches/1/from_bus"),
    ("ybus_construction", _set(("branches",), lambda br: [b for b in br if "B1" not in (b["from_bus"], b["to_bus"])]), "/branches"),
    ("n1_generation_commitment", _set(("units", 0, "p_min_mw"), 1e6), "/units/0/p_max_mw"),
    ("corrective_transmission_switching", _set(("contingency", "branch_id"), "nowhere"), "/contingency/branch_id"),
    ("pf_voltage_repair", _set(("v_min_pu",), 1.2), "/v_max_pu"),
    ("microgrid_economic_dispatch", _set(("battery", "soc_initial_mwh"), lambda x: 1e6), "/battery/soc_initial_mwh"),
    ("dispatch_uncertainty", _set(("load_upper_mw",), lambda xs: xs[:-1]), "/load_upper_mw"),
    ("dispatch_uncertainty", _set(("load_lower_mw", 0), 1e6), "/load_upper_mw/0"),
    ("hydro_thermal_storage_uc", _set(("hydro", "inflow_m3s"), lambda xs: xs[:-1]), "/hydro/inflow_m3s"),
    ("rolling_microgrid_dispatch", _set(("forecast_windows", 1, "pv_mw"), lambda xs: xs[:-1]), "/forecast_windows/1/pv_mw"),
    ("islanded_microgrid_pq_dispatch", _set(("load_q_mvar",), lambda xs: xs[:-1]), "/load_q_mvar"),
    ("three_phase_short_circuit", _drop("transformers"), "/buses"),
    ("three_phase_short_circuit", _set(("fault_buses", 1), "nowhere"), "/fault_buses/1"),
    ("earth_fault_calculation", _set(("fault_bus",), "nowhere"), "/fault_bus"),
    ("breaker_relay_short_circuit", _set(("relays", 0, "breaker"), "nowhere"), "/relays/0/breaker"),
    ("dynamic_thermal_rating", _set(("conductor", "t_high_c"), lambda t: -10.0), "/conductor/t_high_c"),
    ("distance_protection_settings", _set(("adjacent_lines", 0, "from_bus"), "nowhere"), "/adjacent_lines/0/from_bus"),
    ("overcurrent_protection", _set(("pairs", 0, "backup"), "nowhere"), "/pairs/0/backup"),
    ("cable_ampacity_sizing", _set(("ambient_temperature_c",), 33.3), "/ambient_temperature_c"),
]


@pytest.mark.parametrize(("family", "edit", "pointer"), SANITY, ids=[f"{f}{p}" for f, _, p in SANITY])
def test_a_physically_broken_task_names_the_field(family: str, edit: Any, pointer: str) -> None:
    """Sanity checks beyond the schema (references, lengths, ordered bounds, a connected
    network): the error is an InvalidTaskError whose message points into public_inputs."""
    spec = psab.get_family(family)
    public = spec.public_task()
    inputs = copy.deepcopy(public.public_inputs)
    edit(inputs)
    try:
        task = spec.make_task(task_id=public.id, split=public.split, public_inputs=inputs, key=copy.deepcopy(public.key))
    except InvalidTaskError as exc:  # the answer schema itself cannot be built from these inputs
        raise AssertionError(f"make_task refused the inputs before the sanity check could name the field: {exc}") from None
    with pytest.raises(InvalidTaskError, match="public_inputs" + re.escape(pointer) + r"\b"):
        psab.solve(task)
    with pytest.raises(InvalidTaskError, match="public_inputs" + re.escape(pointer) + r"\b"):
        psab.evaluate(task, {"answer": {}})


def test_a_task_whose_answer_schema_belongs_to_other_inputs_is_refused() -> None:
    """A hand-edited task.json: an id renamed in the inputs but not in the submission schema.
    The evaluator would read the answer by the new id; the task is refused instead."""
    public, answer, _ = _public("n1_generation_commitment")
    data = public.to_dict()
    data["public_inputs"] = copy.deepcopy(public.public_inputs)
    data["public_inputs"]["units"][0]["id"] = "renamed"
    task = Task.from_dict(data, key=public.key)
    with pytest.raises(InvalidTaskError, match="submission_schema"):
        psab.evaluate(task, {"answer": answer})


def test_an_evaluator_defect_on_a_valid_task_is_still_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel's safety net stays for real evaluator defects: a valid task whose evaluator
    raises gets an infeasible verdict with ``evaluator_error``, not a crash."""
    import dataclasses

    from psab import registry

    spec = psab.get_family("ybus_construction")
    public, answer, _ = _public("ybus_construction")

    def broken(task: Task, answer: dict[str, Any], ctx: Any) -> Any:
        raise KeyError("from_bus")

    monkeypatch.setitem(registry._REGISTRY, spec.id, dataclasses.replace(spec, evaluate=broken))
    result = psab.evaluate(public, {"answer": answer})
    assert not result.feasible
    assert result.evidence["evaluator_error"] == "KeyError: 'from_bus'"


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
