"""The acceptance loop of held-out generation (paper, section 4.4).

A draw is accepted only when (1) the family's reference solver solves it, (2) the evaluator
scores that reference feasible with score 1, (3) the family's own acceptance rule (margins,
non-degeneracy) passes, and (4) for optimize families, no answer in the reference's
neighbourhood is feasible with a better objective. Otherwise the next attempt is drawn from
the next deterministic stream; exhausting the family's budget raises
:class:`~psab.errors.GenerationError` naming the family and index.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from psab.contract import Task
from psab.errors import GenerationError, SolverError
from psab.generators.rng import family_rng
from psab.registry import FamilySpec, get_family

#: Relative and absolute size of the default neighbourhood's nudges.
NUDGE_RELATIVE = 0.01
NUDGE_ABSOLUTE = 1e-3


@dataclass(frozen=True)
class Draw:
    """An accepted held-out task and how many redraws it took."""

    task: Task
    attempts: int
    rejections: tuple[str, ...]


def heldout_task_id(family_id: str, index: int) -> str:
    # The id names the family and index only: never the seed.
    return f"{family_id}-heldout-{index:05d}"


def default_neighbourhood(answer: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every number nudged up and down (1 %, at least 1e-3), every boolean flipped, one at a time."""
    for pointer, value in _leaves(answer, ""):
        if isinstance(value, bool):
            yield f"{pointer} flipped", _replace(answer, pointer, not value)
        elif isinstance(value, (int, float)):
            step = max(abs(value) * NUDGE_RELATIVE, NUDGE_ABSOLUTE)
            for sign, word in ((1, "up"), (-1, "down")):
                new = value + sign * step
                if isinstance(value, int):
                    new = value + sign * max(1, round(step))
                yield f"{pointer} nudged {word}", _replace(answer, pointer, new)


def _leaves(value: Any, pointer: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{pointer}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{pointer}/{i}")
    else:
        yield pointer, value


def _replace(answer: dict[str, Any], pointer: str, new: Any) -> dict[str, Any]:
    out = copy.deepcopy(answer)
    parts = pointer.split("/")[1:]
    target: Any = out
    for p in parts[:-1]:
        target = target[int(p)] if isinstance(target, list) else target[p]
    last = parts[-1]
    if isinstance(target, list):
        target[int(last)] = new
    else:
        target[last] = new
    return out


def rejection_reason(spec: FamilySpec, task: Task, backend: str) -> str | None:
    """Why ``task`` must be redrawn, or ``None`` when it is acceptable."""
    from psab.evaluators.kernel import evaluate, reference_entry

    try:
        entry = reference_entry(spec, task, backend)
    except SolverError as exc:
        return f"reference solver failed: {exc}"
    result = evaluate(task, {"answer": entry.reference.answer}, backend)
    if not result.feasible or result.score != 1.0:
        first = result.violations[0].describe() if result.violations else ""
        return f"reference scored {result.score} (feasible={result.feasible}) {first}".strip()
    if spec.accept is not None:
        reason = spec.accept(task, entry.reference)
        if reason:
            return reason
    if spec.scoring_kind == "optimize":
        neighbours = (
            spec.neighbourhood(task, entry.reference.answer)
            if spec.neighbourhood is not None
            else default_neighbourhood(entry.reference.answer)
        )
        for description, answer in neighbours:
            r = evaluate(task, {"answer": answer}, backend)
            if r.feasible and r.evidence.get("beats_reference"):
                return f"a perturbation beats the reference ({description}: {r.evidence.get('objective')} vs {entry.objective})"
    return None


def generate(family_id: str, seed: int | str, index: int, backend: str = "surrogate") -> Draw:
    """Draw held-out case ``index`` of ``family_id`` under ``seed``, with acceptance."""
    spec = get_family(family_id)
    public = spec.public_task()
    rejections: list[str] = []
    for attempt in range(spec.redraw_budget):
        rng = family_rng(seed, family_id, index, attempt)
        drawn = spec.generate(public, rng)
        task = spec.make_task(
            task_id=heldout_task_id(family_id, index),
            split="heldout",
            public_inputs=drawn.public_inputs,
            key=drawn.key,
        )
        reason = rejection_reason(spec, task, backend)
        if reason is None:
            return Draw(task, attempt + 1, tuple(rejections))
        rejections.append(f"attempt {attempt}: {reason}")
    tail = "; ".join(rejections[-3:])
    raise GenerationError(
        f"family {family_id}, index {index}: no acceptable draw in {spec.redraw_budget} attempts ({tail})"
    )

