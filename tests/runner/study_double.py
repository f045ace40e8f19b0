"""A study test double for the runner's study tier: no physics, two model files, three
deliverables. Its evaluator reads the answer's fields against fixed values, so each number a
test asserts is worked out by hand (the kernel's weighted mean, shared/spec/studies.md)."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

from psab.contract import Violation
from psab.registry import (
    Assessment,
    Deliverable,
    FamilySpec,
    Generated,
    Reference,
    get_family,
    register,
)
from psab.studies import model

STUDY_ID = "toy_runner_study"
CASE = b"function mpc = toy\nmpc.baseMVA = 100;\n"
PROFILE = b"t_h,load_pu\n0,0.8\n1,1.0\n"
CONTENTS = {"model/toy.m": CASE, "model/profiles/load.csv": PROFILE}
FILES = [{"path": p, "sha256": hashlib.sha256(d).hexdigest()} for p, d in CONTENTS.items()]
DELIVERABLES = (
    Deliverable("n1_violations", "analysis", 1.0, "the N-1 violations", "нарушения N-1"),
    Deliverable("fault_levels", "analysis", 1.0, "fault levels", "токи КЗ"),
    Deliverable("decision", "decision", 2.0, "the mitigation plan", "план мероприятий"),
)
REFERENCE = {"n1_violations": [{"branch_id": "15-17", "loading_pct": 104.2}],
             "fault_levels": {"bus_ids": ["1", "2"], "ik_ka": [10.0, 12.0]},
             "decision": {"candidates": ["reconductor-15-17"], "cost_musd": 10.0}}


def _solve(task: Any, backend: str) -> Reference:
    return Reference(answer=copy.deepcopy(REFERENCE), objective=10.0)


def _evaluate(task: Any, answer: dict[str, Any], ctx: Any) -> Assessment:
    viol = answer["n1_violations"]
    n1 = float(len(viol) == 1 and viol[0]["branch_id"] == "15-17" and abs(viol[0]["loading_pct"] - 104.2) <= 0.1)
    fl = answer["fault_levels"]["ik_ka"]
    right = sum(1 for a, b in zip(fl, [10.0, 12.0], strict=False) if abs(a - b) <= 1e-6 * b)
    dec = answer["decision"]
    violations = ([] if "reconductor-15-17" in dec["candidates"] else
                  [Violation("/decision", "N-1 thermal: branch 15-17 at 104.2 % of rate_a", "<= 100 %", "104.2 %")])
    return Assessment(violations=violations, objective=dec["cost_musd"],
                      deliverable_scores={"n1_violations": n1, "fault_levels": right / 2})


def _schema(inputs: Any) -> dict[str, Any]:
    num = {"type": "number"}
    return {"type": "object", "additionalProperties": False, "required": ["n1_violations", "fault_levels", "decision"],
            "properties": {
                "n1_violations": {"type": "array", "maxItems": 50, "items": {
                    "type": "object", "additionalProperties": False, "required": ["branch_id", "loading_pct"],
                    "properties": {"branch_id": {"type": "string"}, "loading_pct": num}}},
                "fault_levels": {"type": "object", "additionalProperties": False, "required": ["bus_ids", "ik_ka"],
                                 "properties": {"bus_ids": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
                                                "ik_ka": {"type": "array", "maxItems": 2, "items": num}}},
                "decision": {"type": "object", "additionalProperties": False, "required": ["candidates", "cost_musd"],
                             "properties": {"candidates": {"type": "array", "maxItems": 5, "items": {"type": "string"}},
                                            "cost_musd": num}}}}


def _generate(public: Any, rng: Any, level: int = 1) -> Generated:
    inputs = copy.deepcopy(public.public_inputs)
    inputs["scenario"] = {"plant_mw": float(100 + int(rng.integers(0, 50))), "level": level}
    return Generated(inputs)


def _spec() -> FamilySpec:
    return FamilySpec(
        id=STUDY_ID, area="network", scoring_kind="study", confidence="low", version="1",
        provenance=({"title": "test double", "locator": "tests/runner/study_double.py", "note": "", "confidence": "low"},),
        submission_schema=_schema, hard_constraints=("every criterion holds after the decision",), metrics=(),
        tolerances={"objective": {"relative": 1e-6, "absolute": 1e-9}},
        presentation={"en": {"title": "Toy interconnection study", "statement": "A new 100 MW plant at bus 17.",
                             "answer_notes": ""},
                      "ru": {"title": "Игрушечное исследование", "statement": "Новая станция 100 МВт в узле 17.",
                             "answer_notes": "", "hard_constraints": ["все критерии выполняются после решения"]}},
        backends=("surrogate",), solve=_solve, evaluate=_evaluate, generate=_generate, levels=(1, 2),
        objective_sense="minimize", objective_unit="MUSD", objective_scale_floor=1.0,
        tier="study", deliverables=DELIVERABLES, materialize=lambda task, d: model.write_files(task, d, CONTENTS),
    )


try:
    SPEC = get_family(STUDY_ID)
except Exception:  # noqa: BLE001 - first import: register it
    SPEC = register(_spec())


def public_task() -> Any:
    inputs = {"model": {"format": "matpower", "source": "test double", "files": FILES},
              "deliverables": model.deliverables_inputs(SPEC), "scenario": {"plant_mw": 100.0, "level": 1}}
    return SPEC.make_task(task_id=f"{STUDY_ID}-public", split="public", public_inputs=inputs)
