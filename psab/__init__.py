"""psab — the Power Systems Agent Benchmark.

An agent receives a structured task and returns a structured solution; a deterministic
evaluator recomputes the physics, checks the hard constraints and returns a feasibility flag,
a score in [0, 1] normalized to the reference optimum, violations and evidence.

The public API (stable)::

    import psab
    psab.families()                      # every compact-tier FamilySpec
    psab.studies()                       # the study tier's studies (FamilySpec, tier="study")
    psab.get_family("ybus_construction")
    task = psab.load_case("cases/ybus_construction")
    ref = psab.solve(task)               # the reference Solution (backend="surrogate")
    result = psab.evaluate(task, ref, backend="pandapower")
    results = psab.evaluate_many([(task, ref), ...], workers=2)   # input order, warm workers
    result.feasible, result.score, result.violations, result.evidence, result.backend
    held = psab.generate("ybus_construction", seed=1234, index=0)

``import psab`` loads neither pandapower nor pyomo nor pandas: backends and solvers are
imported when a task first needs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from psab.contract import EvaluationResult, Solution, Task, Violation
from psab.errors import (
    BackendError,
    BackendNotSupportedError,
    BackendUnavailableError,
    GenerationError,
    InvalidArgumentError,
    InvalidTaskError,
    PsabError,
    RunnerError,
    SolverError,
    UnknownBackendError,
    UnknownFamilyError,
)
from psab.version import __version__

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from psab.registry import FamilySpec

__all__ = [
    "BackendError",
    "BackendNotSupportedError",
    "BackendUnavailableError",
    "EvaluationResult",
    "GenerationError",
    "InvalidArgumentError",
    "InvalidTaskError",
    "PsabError",
    "RunnerError",
    "Solution",
    "SolverError",
    "Task",
    "UnknownBackendError",
    "UnknownFamilyError",
    "Violation",
    "__version__",
    "evaluate",
    "evaluate_many",
    "families",
    "generate",
    "get_family",
    "instructions_for",
    "load_case",
    "solve",
    "studies",
]


def families() -> tuple[FamilySpec, ...]:
    """Every compact-tier family, in registry order (the study tier: :func:`studies`)."""
    from psab.registry import families as _families

    return _families()


def studies() -> tuple[FamilySpec, ...]:
    """Every study of the study tier, in registry order; each is a :class:`FamilySpec`
    (``tier="study"``) that :func:`evaluate`, :func:`solve` and :func:`generate` take as they
    take a family."""
    from psab.registry import studies as _studies

    return _studies()


def get_family(family_id: str) -> FamilySpec:
    """The family or study ``family_id``; raises :class:`UnknownFamilyError` listing the known ids."""
    from psab.registry import get_family as _get

    return _get(family_id)


def load_case(path: str | Path) -> Task:
    """Load a task from a case directory or a ``task.json`` (with ``key.json`` beside it)."""
    from psab.io import load_case as _load

    return _load(path)


def solve(task: Task | Mapping[str, Any] | str | Path, backend: str = "surrogate") -> Solution:
    """The reference solution of ``task`` computed with ``backend`` (cached per task)."""
    from psab.evaluators.kernel import solve as _solve

    return _solve(task, backend)


def evaluate(
    task: Task | Mapping[str, Any] | str | Path,
    solution: Solution | Mapping[str, Any] | str | Path,
    backend: str = "surrogate",
) -> EvaluationResult:
    """Evaluate ``solution`` for ``task``; never raises for anything an agent wrote.

    ``task`` and ``solution`` may be objects, dicts or paths. Malformed answers are
    infeasible with one violation per offending field; caller errors (unknown family,
    invalid task, unknown or missing backend) raise :class:`PsabError` subclasses.
    """
    from psab.evaluators.kernel import evaluate as _evaluate

    return _evaluate(task, solution, backend)


def instructions_for(task: Task, lang: str = "en", presentation: str = "guided", backend: str = "surrogate",
                     paths: Mapping[str, str] | None = None) -> str:
    """The instructions an agent sees for ``task`` (what ``psab run`` writes to
    ``instructions.md``): statement at ``presentation`` level, how ``backend`` judges it, where
    to write what, the answer's JSON Schema — in ``lang`` (``en`` or ``ru``)."""
    from psab.runner.instructions import instructions_for as _instructions_for

    return _instructions_for(task, lang, presentation, backend, paths)


def evaluate_many(
    pairs: Iterable[tuple[Any, Any]],
    backend: str = "surrogate",
    *,
    workers: int = 1,
    dask: Any = None,
) -> list[EvaluationResult]:
    """Evaluate every ``(task, solution)`` pair; the results of :func:`evaluate` on each, in
    input order (byte-identical as JSON), never raising for anything an agent wrote.

    ``workers`` > 1 spreads the answers over warm local worker processes, each answer going to
    the worker that already holds its task's reference (the processes stay up for later calls
    until :func:`psab.evaluators.batch.shutdown_workers`); ``dask`` (a scheduler address or a
    ``distributed.Client``) runs them on a Dask cluster. A caller error (unknown family,
    invalid task, missing solution file) raises as ``evaluate`` would for the first such pair.
    """
    from psab.evaluators.batch import evaluate_many as _evaluate_many

    return _evaluate_many(pairs, backend, workers=workers, dask=dask)


def generate(family_id: str, seed: int | str, index: int, backend: str = "surrogate", level: int = 1) -> Task:
    """Held-out case ``index`` of ``family_id`` at difficulty ``level`` drawn under the private
    ``seed`` (``FamilySpec.levels`` lists the levels a family offers; 1 is the public case's kind).

    The draw is accepted only when the reference solves it and scores 1, the family's
    acceptance rules hold, and no small perturbation of the reference does better — under
    every backend the family declares that is installed, so the task is the same whichever of
    them ``backend`` names; the returned task carries its key (``task.key``), which
    ``task.to_dict()`` leaves out.
    """
    from psab.generators.acceptance import generate as _generate

    return _generate(family_id, seed, index, backend, level).task
