"""Reading tasks and solutions from files, dicts or objects (the public API's coercions)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from psab.contract import Solution, Task, read_json
from psab.errors import InvalidArgumentError, InvalidTaskError


def load_case(path: str | Path) -> Task:
    """Load a task from a case directory (``task.json`` + optional ``key.json``) or a
    ``task.json`` file (its sibling ``key.json`` is read when present)."""
    p = Path(path)
    if p.is_dir():
        task_file = p / "task.json"
        if not task_file.is_file():
            raise InvalidArgumentError(f"{p}: a case directory must contain task.json")
    elif p.is_file():
        task_file = p
    else:
        raise InvalidArgumentError(f"{p}: no such case directory or task file")
    key_file = task_file.parent / "key.json"
    key = read_json(key_file) if key_file.is_file() and task_file.name == "task.json" else None
    try:
        return Task.from_dict(read_json(task_file), key=key)
    except InvalidTaskError as exc:
        raise InvalidTaskError(f"{task_file}: {exc}") from None


def as_task(task: Task | Mapping[str, Any] | str | Path) -> Task:
    """Accept a :class:`Task`, its agent-view dict (optionally with a ``"key"`` entry), or a path."""
    if isinstance(task, Task):
        return task
    if isinstance(task, Mapping):
        data = dict(task)
        key = data.pop("key", None)
        return Task.from_dict(data, key=key)
    if isinstance(task, (str, Path)):
        return load_case(task)
    raise InvalidArgumentError(f"a task must be a psab.Task, a dict or a path, not {type(task).__name__}")


class SolutionProblem(Exception):
    """Internal: the solution itself is unusable (agent's doing); becomes a violation."""

    def __init__(self, constraint: str, found: Any) -> None:
        super().__init__(constraint)
        self.constraint = constraint
        self.found = found


def as_solution(solution: Solution | Mapping[str, Any] | str | Path | Any) -> Solution:
    """Accept a :class:`Solution`, a dict, or a path to a solution file.

    A missing file is the caller's error; a file that is not JSON, or JSON that is not an
    object, is the agent's — :class:`SolutionProblem`, which the evaluator reports as a
    violation.
    """
    if isinstance(solution, Solution):
        return solution
    if isinstance(solution, Mapping):
        return Solution.from_dict(solution)
    if isinstance(solution, (str, Path)):
        p = Path(solution)
        if not p.is_file():
            raise InvalidArgumentError(f"{p}: no such solution file")
        raw = p.read_bytes()
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            # RecursionError: nesting deeper than the parser's stack ('[' * 100000) — still
            # the agent's malformed document, not a reason to crash the caller.
            raise SolutionProblem("solution file must be a UTF-8 JSON document", f"{type(exc).__name__}: {exc}") from None
        if not isinstance(data, Mapping):
            raise SolutionProblem("solution must be a JSON object with an 'answer' object", type(data).__name__)
        return Solution.from_dict(data)
    raise SolutionProblem("solution must be a JSON object with an 'answer' object", type(solution).__name__)
