"""Golden cases: numbers from outside the code — published examples and hand derivations.

Each lives in ``golden/<family>/<case>/`` with ``task.json`` (a task of the family),
``expected.json`` and a ``README.md`` giving the source, clause and derivation trail.
``expected.json`` holds::

    {"source": "...", "values": {"/json/pointer": number, ...}, "objective": number | null,
     "tolerance": {"relative": r, "absolute": a}, "backends": ["surrogate", ...]}

``values`` are compared with the family's reference answer at each pointer — numbers within the
tolerance, anything else (a classification, a list of ids) exactly; ``objective``
(optimize families) with the reference objective; the tolerance is the golden file's own,
since published numbers carry the precision they were printed with.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from psab.contract import Task, read_json
from psab.io import load_case
from psab.jsonpointer import get, parse


@dataclass(frozen=True)
class GoldenCase:
    name: str
    path: Path
    task: Task
    values: dict[str, Any]
    objective: float | None
    relative: float
    absolute: float
    backends: tuple[str, ...]
    source: str


def load_golden(path: str | Path) -> GoldenCase:
    p = Path(path)
    expected = read_json(p / "expected.json")
    tol = expected.get("tolerance", {})
    task = load_case(p)
    return GoldenCase(
        name=f"{task.family}/{p.name}",
        path=p,
        task=task,
        values={k: _number_or_value(v) for k, v in expected.get("values", {}).items()},
        objective=None if expected.get("objective") is None else float(expected["objective"]),
        relative=float(tol.get("relative", 1e-3)),
        absolute=float(tol.get("absolute", 0.0)),
        backends=tuple(expected.get("backends", ["surrogate"])),
        source=str(expected.get("source", "")),
    )


def _number_or_value(v: Any) -> Any:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


def check_golden(case: GoldenCase, backend: str) -> list[str]:
    """Every published number the reference misses (empty when the case passes)."""
    from psab.evaluators.kernel import reference_entry
    from psab.registry import get_family

    spec = get_family(case.task.family)
    entry = reference_entry(spec, case.task, backend)
    problems = []
    for pointer, want in case.values.items():
        try:
            value = get(entry.reference.answer, parse(pointer))
        except (KeyError, IndexError, TypeError, ValueError):
            problems.append(f"{case.name}: reference answer has no {pointer}")
            continue
        if not isinstance(want, float):
            if value != want:
                problems.append(f"{case.name} [{backend}] {pointer}: expected {want!r}, reference gives {value!r}")
            continue
        try:
            got = float(value)
        except (TypeError, ValueError):
            problems.append(f"{case.name} [{backend}] {pointer}: expected a number, reference gives {value!r}")
            continue
        tol = max(case.relative * abs(want), case.absolute)
        if not abs(got - want) <= tol:
            problems.append(f"{case.name} [{backend}] {pointer}: expected {want:.6g} ± {tol:.2g}, reference gives {got:.6g}")
    if case.objective is not None:
        got = entry.objective
        tol = max(case.relative * abs(case.objective), case.absolute)
        if got is None or not abs(got - case.objective) <= tol:
            problems.append(f"{case.name} [{backend}] objective: expected {case.objective:.6g} ± {tol:.2g}, reference gives {got}")
    return problems
