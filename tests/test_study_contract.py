"""The study contract in the kernel: deliverable scores, their stated weighted mean, the
decision scored against the reference optimum, feasibility from the decision alone, and the
model files' digests (shared/spec/studies.md, "The contract").

The study here is a test double with no physics: its evaluator reads two fields, so each
property of the kernel's arithmetic can be asserted with numbers worked out by hand.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

import psab
from psab.contract import Violation
from psab.errors import InvalidTaskError
from psab.registry import Assessment, Deliverable, FamilySpec, Generated, Reference, register
from psab.studies import model

DATA = b"function mpc = toy\nmpc.baseMVA = 100;\n"
FILES = [{"path": "model/toy.m", "sha256": hashlib.sha256(DATA).hexdigest()}]
DELIVERABLES = (
    Deliverable("n_violations", "analysis", 1.0, "how many violations", "сколько нарушений"),
    Deliverable("fault_levels", "analysis", 1.0, "fault levels", "токи КЗ"),
    Deliverable("decision", "decision", 2.0, "the plan", "план"),
)


def _solve(task: Any, backend: str) -> Reference:
    return Reference(answer={"n_violations": 3, "fault_levels": [1.0, 2.0], "decision": {"cost_musd": 10.0, "secure": True}},
                     objective=10.0)


def _evaluate(task: Any, answer: dict[str, Any], ctx: Any) -> Assessment:
    fl = answer["fault_levels"]
    right = sum(1 for a, b in zip(fl, [1.0, 2.0]) if abs(a - b) <= 1e-9)
    violations = [] if answer["decision"]["secure"] else [Violation("/decision", "N-1 thermal", "<= 100 %", "104 %")]
    return Assessment(violations=violations, objective=answer["decision"]["cost_musd"],
                      deliverable_scores={"n_violations": float(answer["n_violations"] == 3), "fault_levels": right / 2})


def _schema(inputs: Any) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": ["n_violations", "fault_levels", "decision"],
            "properties": {"n_violations": {"type": "integer", "minimum": 0},
                           "fault_levels": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
                           "decision": {"type": "object", "additionalProperties": False, "required": ["cost_musd", "secure"],
                                        "properties": {"cost_musd": {"type": "number"}, "secure": {"type": "boolean"}}}}}


def _spec(**changes: Any) -> FamilySpec:
    fields: dict[str, Any] = dict(
        id="toy_contract_study", area="network", scoring_kind="study", confidence="low", version="1",
        provenance=({"title": "test double", "locator": "tests/test_study_contract.py", "note": "", "confidence": "low"},),
        submission_schema=_schema, hard_constraints=("every criterion holds",), metrics=(),
        tolerances={"objective": {"relative": 1e-6, "absolute": 1e-9}},
        presentation={"en": {"title": "toy", "statement": "toy", "answer_notes": ""},
                      "ru": {"title": "игрушка", "statement": "игрушка", "answer_notes": "", "hard_constraints": ["все критерии"]}},
        backends=("surrogate",), solve=_solve, evaluate=_evaluate, generate=lambda public, rng: Generated(public.public_inputs),
        objective_sense="minimize", objective_unit="MUSD", objective_scale_floor=1.0,
        tier="study", deliverables=DELIVERABLES, materialize=lambda task, d: model.write_files(task, d, {"model/toy.m": DATA}),
    )
    fields.update(changes)
    return FamilySpec(**fields)


SPEC = register(_spec())


def _task() -> Any:
    inputs = {"model": {"format": "matpower", "source": "test", "files": FILES},
              "deliverables": model.deliverables_inputs(SPEC)}
    return SPEC.make_task(task_id="toy-1", split="public", public_inputs=inputs)


def _answer(**changes: Any) -> dict[str, Any]:
    a: dict[str, Any] = {"n_violations": 3, "fault_levels": [1.0, 2.0], "decision": {"cost_musd": 10.0, "secure": True}}
    a.update(changes)
    return {"answer": a}


def test_the_reference_scores_one_and_every_deliverable_is_in_the_evidence() -> None:
    r = psab.evaluate(_task(), psab.solve(_task()))
    assert r.feasible and r.score == 1.0 and r.perfect
    assert r.evidence["deliverable_scores"] == {"n_violations": 1.0, "fault_levels": 1.0, "decision": 1.0}
    assert r.evidence["weights"] == {"n_violations": 1.0, "fault_levels": 1.0, "decision": 2.0}


def test_score_is_the_stated_weighted_mean() -> None:
    # one fault level of two wrong: (1·1 + 1·0.5 + 2·1) / 4 = 0.875
    r = psab.evaluate(_task(), _answer(fault_levels=[1.0, 2.5]))
    assert r.feasible and r.score == pytest.approx(0.875)
    # a dearer decision: 1 - (12 - 10) / 10 = 0.8, so (1 + 1 + 2·0.8) / 4 = 0.9
    r = psab.evaluate(_task(), _answer(decision={"cost_musd": 12.0, "secure": True}))
    assert r.score == pytest.approx(0.9) and r.evidence["deliverable_scores"]["decision"] == pytest.approx(0.8)


def test_a_wrong_analysis_is_not_infeasible_but_a_failing_decision_is() -> None:
    r = psab.evaluate(_task(), _answer(n_violations=2, fault_levels=[0.0, 0.0]))
    assert r.feasible and r.score == pytest.approx(0.5) and not r.violations
    r = psab.evaluate(_task(), _answer(decision={"cost_musd": 1.0, "secure": False}))
    assert not r.feasible and r.score == 0.0
    assert [v.field for v in r.violations] == ["/decision"]
    # the analyses' own scores stay visible for the report
    assert r.evidence["deliverable_scores"] == {"n_violations": 1.0, "fault_levels": 1.0, "decision": 0.0}


def test_a_cheaper_than_reference_decision_is_capped_and_flagged() -> None:
    r = psab.evaluate(_task(), _answer(decision={"cost_musd": 9.0, "secure": True}))
    assert r.score == 1.0 and r.evidence["beats_reference"] is True


def test_malformed_answer_gets_a_verdict() -> None:
    r = psab.evaluate(_task(), {"answer": {"decision": "none"}})
    assert not r.feasible and r.score == 0.0 and r.violations


def test_spec_rules_for_studies() -> None:
    with pytest.raises(ValueError, match="exactly one deliverable of kind 'decision'"):
        _spec(deliverables=DELIVERABLES[:2])
    with pytest.raises(ValueError, match="weight must be a positive number"):
        _spec(deliverables=(*DELIVERABLES[:2], Deliverable("decision", "decision", 0.0, "x", "x")))
    with pytest.raises(ValueError, match="only a study has scoring_kind 'study'"):
        _spec(tier="compact", deliverables=(), materialize=None)
    with pytest.raises(ValueError, match="must declare materialize"):
        _spec(materialize=None)


def test_model_files_are_written_only_with_their_digest(tmp_path: Any) -> None:
    task = _task()
    SPEC.materialize(task, tmp_path)
    assert (tmp_path / "model" / "toy.m").read_bytes() == DATA
    with pytest.raises(InvalidTaskError, match="different model"):
        model.write_files(task, tmp_path, {"model/toy.m": DATA + b"%"})
    with pytest.raises(InvalidTaskError, match="no model file"):
        model.write_files(task, tmp_path, {})
    for bad in ("../escape.m", "/etc/passwd", "model/../../x"):
        with pytest.raises(InvalidTaskError, match="plain relative path"):
            model.model_files("t", {"model": {"format": "matpower", "files": [{"path": bad, "sha256": FILES[0]["sha256"]}]}})


def test_deliverables_stated_in_the_task_must_be_the_studys() -> None:
    assert model.deliverable_problems(SPEC, {"deliverables": model.deliverables_inputs(SPEC)}) == []
    assert model.deliverable_problems(SPEC, {"deliverables": []})
    assert "| `decision` | decision | 2 |" in model.deliverables_table(SPEC, "en")


def test_a_study_reference_is_kept_on_disk_for_this_code_only(tmp_path: Any, monkeypatch: Any) -> None:
    from psab.evaluators import cache

    calls: list[int] = []

    def counting() -> dict[str, Any]:
        calls.append(1)
        return {"answer": {"x": 1}}

    monkeypatch.setenv(cache.DISK_CACHE_ENV, str(tmp_path))
    assert cache.on_disk(("a",), counting) == cache.on_disk(("a",), counting) == {"answer": {"x": 1}}
    assert len(calls) == 1
    cache.on_disk(("b",), counting)
    assert len(calls) == 2
    monkeypatch.setattr(cache, "_CODE_DIGEST", "other code")  # an edit anywhere in psab
    cache.on_disk(("a",), counting)
    assert len(calls) == 3
    for entry in tmp_path.iterdir():  # a torn entry is recomputed, never read
        entry.write_text("{torn")
    assert cache.on_disk(("a",), counting) == {"answer": {"x": 1}} and len(calls) == 4
    monkeypatch.setenv(cache.DISK_CACHE_ENV, "0")  # kept nowhere
    cache.on_disk(("a",), counting)
    assert len(calls) == 5 and len(list(tmp_path.iterdir())) == 3


def _solve_with_bound(task: Any, backend: str) -> Reference:
    ref = _solve(task, backend)
    return Reference(answer=ref.answer, objective=ref.objective, evidence={"proven": True, "bound": 9.0, "gap": 0.1})


BOUND_SPEC = register(_spec(id="toy_bound_study", solve=_solve_with_bound))


def test_a_decision_within_the_reference_proven_gap_ties_with_it() -> None:
    """A reference proven to within a MIP gap (incumbent 10, bound 9): a decision costing 10.8 is
    inside |incumbent − bound| = 1 and scores 1; 11.5 is 1.5 above the incumbent, scored
    1 − 1.5/10 = 0.85 as before; the bound and the gap are reported. The same 10.8 against a
    reference without a bound scores 1 − 0.8/10 = 0.92."""
    inputs = {"model": {"format": "matpower", "source": "test", "files": FILES},
              "deliverables": model.deliverables_inputs(BOUND_SPEC)}
    task = BOUND_SPEC.make_task(task_id="toy-bound-1", split="public", public_inputs=inputs)
    r = psab.evaluate(task, _answer(decision={"cost_musd": 10.8, "secure": True}))
    assert r.evidence["deliverable_scores"]["decision"] == 1.0
    assert r.evidence["reference_bound"] == 9.0 and r.evidence["reference_mip_gap"] == 0.1
    r = psab.evaluate(task, _answer(decision={"cost_musd": 11.5, "secure": True}))
    assert r.evidence["deliverable_scores"]["decision"] == pytest.approx(0.85)
    r = psab.evaluate(_task(), _answer(decision={"cost_musd": 10.8, "secure": True}))
    assert r.evidence["deliverable_scores"]["decision"] == pytest.approx(0.92)
    assert "reference_bound" not in r.evidence
