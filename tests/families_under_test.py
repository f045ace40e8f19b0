"""Parametrization helpers (every registered family, every (family, backend) pair) and the
conformance checks that several test files run on their share of the pairs."""

from __future__ import annotations

import json

import pytest

import psab
from psab.evaluators.cache import clear_reference_cache

#: The seed of every conformance draw.
SEED = 20261130

FAMILIES = [spec.id for spec in psab.families()]
FAMILY_BACKENDS = [pytest.param(spec.id, b, id=f"{spec.id}-{b}") for spec in psab.families() for b in spec.backends]
OPTIMIZE_FAMILIES = [spec.id for spec in psab.families() if spec.scoring_kind == "optimize"]
SIMULATOR_BACKENDS = [p for p in FAMILY_BACKENDS if p.values[1] != "surrogate"]
FAMILY_LEVELS = [pytest.param(spec.id, b, level, id=f"{spec.id}-{b}-L{level}")
                 for spec in psab.families() for b in spec.backends for level in spec.levels[1:]]


def assert_sane(result: psab.EvaluationResult) -> None:
    """A result every evaluation must give: a score in [0, 1], no evaluator error, valid JSON,
    and an infeasible result at 0 with its violations."""
    assert 0.0 <= result.score <= 1.0
    assert "evaluator_error" not in result.evidence, result.evidence.get("evaluator_error")
    json.dumps(result.to_dict(), allow_nan=False)
    if not result.feasible:
        assert result.violations and result.score == 0.0


def check_generated(family: str, backend: str, count: int, level: int = 1) -> None:
    """The reference, solved afresh, scores exactly 1 on ``count`` held-out draws of ``family`` at
    ``level`` under ``backend``; the seed never appears in a task; the naive baseline (where the
    family has one) evaluates sanely."""
    from psab.generators.acceptance import generate as _generate

    spec = psab.get_family(family)
    for index in range(count):
        # judged by ``backend`` alone: this checks that backend's reference on its draws; the
        # draws every installed judge accepts (psab.generate's default, several simulators per
        # draw: a minute per ANDES draw) are checked in tests/generators/test_judges.py
        task = _generate(family, SEED, index, backend, level, judges=(backend,)).task
        assert task.split == "heldout" and str(SEED) not in task.to_json()
        if level > 1:
            assert task.id.endswith(f"-L{level}-{index:05d}")
        clear_reference_cache()  # judge with a freshly solved reference, not the acceptance loop's
        result = psab.evaluate(task, psab.solve(task, backend), backend)
        assert result.feasible and result.score == 1.0, (index, [v.describe() for v in result.violations])
        if spec.naive_answer is not None and index == 0:
            assert_sane(psab.evaluate(task, {"answer": spec.naive_answer(task)}, backend))
