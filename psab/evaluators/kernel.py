"""The evaluate() dispatcher: coerce, validate, assess, score — never raise for an answer.

Flow for one (task, solution, backend):

1. the task is coerced and checked (caller errors raise :mod:`psab.errors` exceptions);
2. the solution's answer is validated against the task's submission schema — every malformed
   field is one violation and the family evaluator is not called;
3. the family evaluator assesses the well-formed answer against the reference physics,
   which is computed once per (task digest, backend) and cached;
4. the kernel turns the assessment into a score by the family's scoring kind.

A study (scoring kind ``study``) is judged the same way: its evaluator re-simulates the decision
under every criterion (``violations`` are the decision's failures, so ``feasible`` means the
decision meets every criterion) and scores each analysis deliverable against psab's
recomputation; the kernel scores the decision's cost against the reference's (as an optimize
family) and takes the stated weighted mean (:func:`study_score`). A reference proven only to
within a MIP gap states ``proven`` and ``bound`` in its evidence; a decision whose cost lies
within that gap of the reference's ties with it (:func:`_proven_bound`; the GO Competition's
scoring against the best known solution and its proven bound).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from psab import backends
from psab.contract import EvaluationResult, Solution, Task, Violation, encodable, to_jsonable
from psab.errors import BackendNotSupportedError, InfeasibleTaskError, InvalidTaskError
from psab.evaluators.cache import REFERENCES, on_disk
from psab.evaluators.scoring import (
    DEFAULT_OBJECTIVE_ABSOLUTE,
    DEFAULT_OBJECTIVE_RELATIVE,
    classify_score,
    forecast_score,
    optimize_score,
)
from psab.evaluators.tolerance import Checks, Tolerance
from psab.evaluators.validation import check_answer
from psab.io import SolutionProblem, as_solution, as_task
from psab.registry import FamilySpec, Reference, get_family


@dataclass(frozen=True)
class ReferenceEntry:
    """A cached reference: the solver's answer and, for optimize families, the objective the
    evaluator recomputes from that answer (the normalization point of every score)."""

    reference: Reference
    objective: float | None


@dataclass
class EvalContext:
    """What a family evaluator may use besides the task and the answer."""

    task: Task
    backend: str
    spec: FamilySpec
    tol: Tolerance
    _reference: Reference | None = field(default=None, repr=False)

    def reference(self) -> Reference:
        """The reference solution for this task and backend (cached per process)."""
        if self._reference is None:
            self._reference = reference_entry(self.spec, self.task, self.backend).reference
        return self._reference

    def checks(self) -> Checks:
        """A fresh collector of comparisons and violations."""
        return Checks(self.tol)


def _spec_for(task: Task, backend: str) -> FamilySpec:
    spec = get_family(task.family)
    backends.require(backend)
    if backend not in spec.backends:
        raise BackendNotSupportedError(
            f"family {spec.id} supports backends {', '.join(spec.backends)}; not {backend!r}"
        )
    spec.check_inputs(task)
    return spec


def reference_entry(spec: FamilySpec, task: Task, backend: str) -> ReferenceEntry:
    """The cached reference of ``task`` under ``backend``."""

    def compute() -> ReferenceEntry:
        try:
            ref = spec.solve(task, backend)
        except InfeasibleTaskError as exc:  # say whose task and under which backend
            raise InfeasibleTaskError(f"{spec.id}: task {task.id} cannot be judged under the {backend} backend: {exc}") from None
        if spec.scoring_kind not in ("optimize", "study"):
            return ReferenceEntry(ref, None)
        ctx = EvalContext(task, backend, spec, Tolerance.from_task(task.tolerances), _reference=ref)
        assessment = spec.evaluate(task, ref.answer, ctx)
        objective = assessment.objective if assessment.objective is not None else ref.objective
        return ReferenceEntry(ref, objective)

    if spec.tier == "study":
        # A study's proven reference costs up to a minute: kept on disk for this exact code
        # (psab.evaluators.cache.on_disk), so every process of a run, a check or a benchmark
        # solves each study task once.
        def stored() -> dict[str, Any]:
            e = compute()
            r = e.reference
            return to_jsonable({"answer": r.answer, "objective": r.objective, "evidence": r.evidence,
                                "method": r.method, "entry_objective": e.objective})

        def kept() -> ReferenceEntry:
            s = on_disk((spec.id, spec.version, task.digest, backend), stored)
            return ReferenceEntry(Reference(answer=s["answer"], objective=s["objective"], evidence=s["evidence"],
                                            method=s["method"]), s["entry_objective"])

        return REFERENCES.get_or_compute((task.digest, backend), kept)
    return REFERENCES.get_or_compute((task.digest, backend), compute)


def solve(task: Task | Mapping[str, Any] | str | Path, backend: str = "surrogate") -> Solution:
    """The reference solution of ``task`` under ``backend``, as a :class:`Solution`."""
    t = as_task(task)
    spec = _spec_for(t, backend)
    ref = reference_entry(spec, t, backend).reference
    method = ref.method or f"{spec.id} reference solver ({backend})"
    # A copy: the caller may edit the answer (perturb it, mutate it), and the cached reference
    # that scores every later answer must not change with it.
    from psab.jsonpointer import clone

    return Solution(answer=clone(ref.answer), rationale=f"reference: {method}", task_id=t.id)


#: Longest text echoed from an answer as a violation's ``found`` (and longest field pointer):
#: a 50 MB string is reported by its first characters and its length, not copied whole.
MAX_ECHO_CHARS = 200
MAX_ECHO_FIELD_CHARS = 1000


def _echo_text(text: str, limit: int) -> str:
    if len(text) > limit:
        text = f"{text[:limit]}… [{len(text)} characters in all]"
    return encodable(text)


def _echo(found: Any) -> Any:
    """``found`` as echoed into a result: text at most :data:`MAX_ECHO_CHARS` characters
    (validation already names a large container by its type and length instead of copying
    it); the result itself makes every value plain JSON (``EvaluationResult.__post_init__``)."""
    if isinstance(found, str):
        return _echo_text(found, MAX_ECHO_CHARS)
    return found


def _result(task: Task, spec: FamilySpec, backend: str, feasible: bool, score: float,
            violations: list[Violation], evidence: dict[str, Any]) -> EvaluationResult:
    return EvaluationResult(
        task_id=task.id,
        family=task.family,
        family_version=task.family_version,
        backend=backend,
        feasible=feasible,
        score=float(score) if feasible else 0.0,
        violations=tuple(Violation(_echo_text(v.field, MAX_ECHO_FIELD_CHARS), v.constraint, v.expected, _echo(v.found))
                         for v in violations),
        evidence=evidence,
        evaluator_version=evaluator_version(spec),
    )


def evaluator_version(spec: FamilySpec) -> str:
    from psab.version import __version__

    return f"{spec.id}@{spec.version}+psab-{__version__}"


def evaluate(
    task: Task | Mapping[str, Any] | str | Path,
    solution: Solution | Mapping[str, Any] | str | Path | Any,
    backend: str = "surrogate",
) -> EvaluationResult:
    """Evaluate ``solution`` for ``task`` under ``backend``; see :func:`psab.evaluate`."""
    t = as_task(task)
    spec = _spec_for(t, backend)
    evidence: dict[str, Any] = {}
    if t.family_version != spec.version:
        evidence["task_family_version"] = t.family_version

    try:
        sol = as_solution(solution)
    except SolutionProblem as problem:
        return _result(t, spec, backend, False, 0.0, [Violation("", problem.constraint, "JSON object with an 'answer' object", problem.found)], evidence)
    if sol.notes:
        evidence["solution_notes"] = list(sol.notes)

    check = check_answer(t.submission_schema, sol.answer)
    if check.violations:
        evidence["malformed_fields"] = check.found
        if check.omitted:
            evidence["violations_omitted"] = check.omitted
        return _result(t, spec, backend, False, 0.0, check.violations, evidence)

    # The family evaluates the plain-JSON copy validation read, never the caller's object
    # (which may be a mapping that answers differently when read twice).
    return assess_valid_answer(t, spec, backend, check.answer, evidence)


def assess_valid_answer(t: Task, spec: FamilySpec, backend: str, answer: dict[str, Any],
                        evidence: dict[str, Any] | None = None) -> EvaluationResult:
    """Steps 3-4 of :func:`evaluate` for an answer already known to satisfy the task's
    submission schema (no coercion, no validation, no backend or input checks).

    For callers that construct answers valid by construction and evaluate many of them —
    the held-out acceptance loop's neighbourhood of the reference — where validation would
    dominate the cost. Anything an agent wrote goes through :func:`evaluate`.
    """
    evidence = dict(evidence or {})
    # The reference belongs to the task: one that cannot be computed raises here, to the caller,
    # instead of inside the family evaluator where it would read as a verdict on the answer.
    ctx = EvalContext(t, backend, spec, Tolerance.from_task(t.tolerances), _reference=reference_entry(spec, t, backend).reference)
    try:
        assessment = spec.evaluate(t, answer, ctx)
    except InfeasibleTaskError as exc:
        # the task's own reference was computed above: a model the evaluator builds from the
        # answer (a commitment no dispatch can follow) being infeasible is about the answer
        infeasible = exc
        evidence["evaluator_error"] = f"{type(infeasible).__name__}: {infeasible}"
        violation = Violation("", "the evaluator could not assess this answer", "an assessable answer", evidence["evaluator_error"])
        return _result(t, spec, backend, False, 0.0, [violation], evidence)
    except InvalidTaskError:  # the task is unusable: the caller's error, never a verdict on the agent
        raise
    except Exception as exc:  # noqa: BLE001 - an answer must never crash a run
        # A schema-valid answer that crashes the evaluator is an evaluator defect; the
        # conformance suite fails on this flag, while a user's run still gets a verdict.
        evidence["evaluator_error"] = f"{type(exc).__name__}: {exc}"
        violation = Violation("", "the evaluator could not assess this answer", "an assessable answer", evidence["evaluator_error"])
        return _result(t, spec, backend, False, 0.0, [violation], evidence)

    evidence.update(assessment.evidence)
    violations = list(assessment.violations)
    feasible = not violations
    kind = spec.scoring_kind

    if kind in ("exact", "comply"):
        score = 1.0
    elif kind == "classify":
        if assessment.correct is None or assessment.total is None:
            raise RuntimeError(f"{spec.id}: a classify evaluator must report correct and total")
        score = classify_score(assessment.correct, assessment.total)
        evidence["correct"] = assessment.correct
        evidence["total"] = assessment.total
    elif kind == "forecast":
        score = forecast_score(assessment.skill if assessment.skill is not None else math.nan)
        evidence["skill"] = assessment.skill
    elif kind == "study":
        score, feasible = _study_score(t, spec, backend, ctx, assessment, violations, evidence)
    else:  # optimize
        score = 0.0
        evidence["objective"] = assessment.objective
        if feasible:
            decided = _decision_score(t, spec, backend, ctx, assessment.objective, evidence)
            if decided is None:
                violations.append(Violation("", "objective must be computable from the answer", "finite objective",
                                            assessment.objective))
                feasible = False
            else:
                score = decided
    return _result(t, spec, backend, feasible, score, violations, evidence)


def _decision_score(t: Task, spec: FamilySpec, backend: str, ctx: EvalContext, objective: float | None,
                    evidence: dict[str, Any]) -> float | None:
    """The optimize score of ``objective`` against the reference's (an optimize family's answer, a
    study's decision), its gap, scale and flag in ``evidence``; ``None`` when the objective cannot
    be computed from the answer (then the answer is infeasible)."""
    evidence["objective"] = objective
    if objective is None or not math.isfinite(objective):
        return None
    ref_obj = reference_entry(spec, t, backend).objective
    if ref_obj is None or not math.isfinite(ref_obj):
        raise RuntimeError(f"{spec.id}: the reference has no finite objective on task {t.id}")
    tol = ctx.tol.objective
    absolute = float(tol.get("absolute", DEFAULT_OBJECTIVE_ABSOLUTE))
    # A reference proven only to within a MIP gap (evidence {"proven", "bound", "gap"}: a study
    # scored as the GO Competition scores, against the proven bound) ties with every answer
    # inside that gap: the tie widens to |incumbent − bound|, and the bound is reported.
    bound = _proven_bound(ctx)
    if bound is not None:
        absolute = max(absolute, abs(ref_obj - bound))
        evidence["reference_bound"] = bound
        evidence["reference_mip_gap"] = ctx.reference().evidence.get("gap")
    s = optimize_score(
        objective,
        ref_obj,
        sense=spec.objective_sense or "minimize",
        scale_floor=spec.objective_scale_floor,
        relative=float(tol.get("relative", DEFAULT_OBJECTIVE_RELATIVE)),
        absolute=absolute,
    )
    evidence["reference_objective"] = ref_obj
    evidence["objective_gap"] = s.gap
    evidence["objective_scale"] = s.scale
    evidence["beats_reference"] = s.beats_reference
    return s.score


def _proven_bound(ctx: EvalContext) -> float | None:
    """The reference's proven objective bound when its evidence states one (``proven`` true and a
    finite ``bound``), else ``None`` (every family without a MIP gap: scored as before)."""
    ev = ctx.reference().evidence if ctx.reference() is not None else None
    if not isinstance(ev, Mapping) or ev.get("proven") is not True:
        return None
    bound = ev.get("bound")
    if isinstance(bound, bool) or not isinstance(bound, int | float) or not math.isfinite(float(bound)):
        return None
    return float(bound)


def study_score(weights: Mapping[str, float], scores: Mapping[str, float]) -> float:
    """The stated weighted mean ``Σ wᵢ·sᵢ / Σ wᵢ`` over every deliverable (a missing score
    counts 0), clipped to [0, 1]."""
    total = sum(weights.values())
    if not total > 0:
        return 0.0
    mean = sum(w * float(scores.get(name, 0.0)) for name, w in weights.items()) / total
    return min(1.0, max(0.0, mean))


def _study_score(t: Task, spec: FamilySpec, backend: str, ctx: EvalContext, assessment: Any,
                 violations: list[Violation], evidence: dict[str, Any]) -> tuple[float, bool]:
    """A study's (score, feasible): every analysis deliverable's own score (in [0, 1], from
    the evaluator), the decision's optimize score when it meets every criterion, and their
    weighted mean. An infeasible decision makes the answer infeasible, which scores 0 (psab's
    rule for every kind); the per-deliverable scores stay in the evidence either way, so a
    report still shows which analyses were right."""
    weights = spec.deliverable_weights()
    decision = next(d.name for d in spec.deliverables if d.kind == "decision")
    scores: dict[str, float] = {}
    for d in spec.deliverables:
        if d.kind == "decision":
            continue
        raw = (assessment.deliverable_scores or {}).get(d.name)
        if raw is None or not isinstance(raw, int | float) or not math.isfinite(raw):
            raise RuntimeError(f"{spec.id}: the evaluator must score analysis deliverable {d.name!r} in [0, 1]")
        scores[d.name] = min(1.0, max(0.0, float(raw)))
    feasible = not violations
    decision_score = _decision_score(t, spec, backend, ctx, assessment.objective, evidence)
    if decision_score is None:
        if feasible:
            violations.append(Violation(f"/{decision}", "the decision's cost must be computable from the answer",
                                        "finite cost", assessment.objective))
        feasible = False
    scores[decision] = decision_score if feasible and decision_score is not None else 0.0
    evidence["deliverable_scores"] = scores
    evidence["weights"] = dict(weights)
    evidence["decision_feasible"] = feasible
    return (study_score(weights, scores) if feasible else 0.0), feasible
