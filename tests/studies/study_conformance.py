"""What every study must satisfy, whatever its physics (the study tier's share of the compact
conformance suite, tests/test_conformance.py): its public case is current and its sample solution
scores 1; the reference is perfect with every deliverable at 1; realistic mistakes in the
reference answer score below 1 (one of each kind here, more under PSAB_THOROUGH); unusable
solution files are infeasible, never errors; the evaluation is deterministic.

A study's evaluation re-simulates every criterion (seconds per answer), so the mutation sample is
small by default: one mutation of each kind the answer admits (scaled 5 %, ×1000, sign, dropped
field, shifted series, swapped choice, flipped switch), chosen deterministically.

The checks are collected once per study, in a module of their own
(``tests/studies/test_conformance_<study>.py``: ``from study_conformance import *`` and ``STUDY``),
so that the suite's ``--dist loadfile`` can run different studies' references on different workers
— one study's reference costs seconds to minutes.
"""

from __future__ import annotations

from typing import Any

import pytest

import psab
from psab.mutations import effective, is_reordering, mutations
from psab.paths import case_dir

from conftest import budget

__all__ = ["study", "test_public_case_is_current_and_its_sample_scores_one", "test_realistic_mistakes_score_below_one",
           "test_unusable_solutions_are_infeasible_not_errors", "test_evaluation_is_deterministic",
           "test_reordering_named_records_keeps_the_score"]


@pytest.fixture
def study(request: pytest.FixtureRequest) -> str:
    """The study the collecting module names (its ``STUDY``)."""
    return str(request.module.STUDY)


def _sample(task: psab.Task, spec: Any, answer: dict[str, Any], per_kind: int) -> list[Any]:
    by_kind: dict[str, list[Any]] = {}
    for m in mutations(answer, task.submission_schema):
        if is_reordering(m, task.submission_schema):
            continue  # a study matches records by name: test_reordering_named_records_keeps_the_score
        if effective(task, m, spec.mutation_exempt):
            by_kind.setdefault(m.kind, []).append(m)
    out = []
    for kind in sorted(by_kind):
        found = by_kind[kind]
        step = max(1, len(found) // per_kind)
        out += found[::step][:per_kind]
    return out


def test_public_case_is_current_and_its_sample_scores_one(study: str) -> None:
    spec = psab.get_family(study)
    task = spec.public_task()
    rebuilt = spec.make_task(task_id=task.id, split=task.split, public_inputs=task.public_inputs)
    assert rebuilt.to_dict() == task.to_dict(), "task.json is stale: psab refresh-cases"
    result = psab.evaluate(task, case_dir(study) / "solution.json")
    assert result.perfect, result.violations[:3]
    weights = spec.deliverable_weights()
    assert result.evidence["deliverable_scores"] == dict.fromkeys(weights, 1.0)
    assert result.evidence["weights"] == weights
    assert task.public_inputs["deliverables"] == [d.to_dict() for d in spec.deliverables]


def test_realistic_mistakes_score_below_one(study: str) -> None:
    spec = psab.get_family(study)
    task = spec.public_task()
    answer = psab.solve(task).answer
    sample = _sample(task, spec, answer, per_kind=budget(1, 6))
    assert len({m.kind for m in sample}) >= 3
    missed = []
    for m in sample:
        r = psab.evaluate(task, {"answer": m.answer})
        assert 0.0 <= r.score <= 1.0 and (r.feasible or r.score == 0.0)
        assert "evaluator_error" not in r.evidence, (m.describe(), r.evidence["evaluator_error"])
        if r.score >= 1.0:
            missed.append(m.describe())
    assert not missed, f"{len(missed)}/{len(sample)} mutations scored 1: {missed}"


def test_unusable_solutions_are_infeasible_not_errors(study: str, tmp_path: Any) -> None:
    task = psab.get_family(study).public_task()
    bad = tmp_path / "solution.json"
    for content in (b"", b"{not json", b"[1, 2]", b'{"answer": null}', b'{"answer": {}}', b"\xff\xfe"):
        bad.write_bytes(content)
        result = psab.evaluate(task, bad)
        assert not result.feasible and result.score == 0.0 and result.violations


def test_evaluation_is_deterministic(study: str) -> None:
    task = psab.get_family(study).public_task()
    answer = {"answer": psab.solve(task).answer}
    assert psab.evaluate(task, answer).to_json() == psab.evaluate(task, answer).to_json()


def test_reordering_named_records_keeps_the_score(study: str) -> None:
    """The same answer in another order — a set, or records each naming its bus, unit or
    contingency — is the same answer (psab.mutations.is_reordering): it keeps its score."""
    task = psab.get_family(study).public_task()
    answer = psab.solve(task).answer
    reorders = [m for m in mutations(answer, task.submission_schema) if is_reordering(m, task.submission_schema)]
    step = max(1, len(reorders) // budget(3, 1000))
    punished = [m.describe() for m in reorders[::step] if not psab.evaluate(task, {"answer": m.answer}).perfect]
    assert not punished, f"reordering cost the score: {punished}"

