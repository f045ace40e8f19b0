"""Throwaway families for the held-out kernel's tests.

Each is deliberately tiny and transparent and exists to exercise one path of the acceptance
loop or of validation (a beatable reference, a trivial answer, near-duplicate variants, a
categorical draw). They are registered for one test (the ``register_fake`` fixture) and live
only in the test process, so they are drawn serially; the parallel tests use registered
families.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psab.contract import Task
from psab.evaluators import answer_schema as s
from psab.registry import Assessment, FamilySpec, Generated, Reference


@dataclass(frozen=True)
class FakeSpec(FamilySpec):
    """A family whose public case is given inline instead of read from ``cases/``."""

    public_inputs: Any = None

    def public_task(self) -> Task:
        return self.make_task(task_id=f"{self.id}-public", split="public", public_inputs=self.public_inputs)


def fake_spec(family_id: str, **fields: Any) -> FakeSpec:
    base: dict[str, Any] = {
        "id": family_id,
        "area": "network",
        "confidence": "low",
        "version": "1",
        "provenance": ({"title": "test fixture", "locator": "tests/generators", "note": "not a family", "confidence": "low"},),
        "hard_constraints": ("test",),
        "metrics": (),
        "tolerances": {"relative": 1e-3, "absolute_floors": {"default": 1e-6}},
        "presentation": {"en": {"title": "t", "statement": "t"}, "ru": {"title": "т", "statement": "т", "hard_constraints": ("тест",)}},
        "backends": ("surrogate",),
    }
    base.update(fields)
    return FakeSpec(**base)


# ---------------------------------------------------------------- fake families


def floor_family(family_id: str, *, slop: float, budget: int = 20) -> FakeSpec:
    """Buy x_i ≥ lo_i at cost c_i (minimize Σ c_i x_i): the optimum is x = lo. The reference
    buys ``lo·(1 + slop)``, so with ``slop`` > 1 % a 1 % nudge down is feasible and cheaper."""

    def schema(inputs: dict[str, Any]) -> dict[str, Any]:
        n = len(inputs["lo_mw"])
        return s.submission({"x_mw": s.array(s.number("purchase", minimum=0, maximum=100), "x", length=n)}, "x")

    def solve(task: Task, backend: str) -> Reference:
        lo, cost = task.public_inputs["lo_mw"], task.public_inputs["cost"]
        x = [v * (1 + slop) for v in lo]
        return Reference({"x_mw": x}, objective=sum(c * v for c, v in zip(cost, x, strict=True)))

    def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
        checks = ctx.checks()
        lo, cost = task.public_inputs["lo_mw"], task.public_inputs["cost"]
        for i, (v, low) in enumerate(zip(answer["x_mw"], lo, strict=True)):
            checks.at_least(f"/x_mw/{i}", v, low, "purchase covers the floor")
        return Assessment(violations=checks.violations, objective=sum(c * v for c, v in zip(cost, answer["x_mw"], strict=True)))

    def generate(public: Task, rng: Any) -> Generated:
        inputs = dict(public.public_inputs)
        inputs["lo_mw"] = [round(float(v * rng.uniform(0.7, 1.3)), 4) for v in inputs["lo_mw"]]
        return Generated(inputs)

    return fake_spec(
        family_id, scoring_kind="optimize", objective_sense="minimize", objective_unit="cost",
        objective_scale_floor=1.0, submission_schema=schema, solve=solve, evaluate=evaluate, generate=generate,
        public_inputs={"lo_mw": [10.0, 20.0, 5.0], "cost": [3.0, 1.0, 2.0]}, redraw_budget=budget,
    )


def double_family(family_id: str, *, spread: float = 0.3, budget: int = 20, public_x: tuple[float, ...] = (1.0, 2.0, 3.0)) -> FakeSpec:
    """Answer y_i = 2 x_i (exact). The generator scales each x_i by U(1 - spread, 1 + spread)."""

    def schema(inputs: dict[str, Any]) -> dict[str, Any]:
        return s.submission({"y": s.array(s.number("2x"), "y", length=len(inputs["x"]))}, "y")

    def solve(task: Task, backend: str) -> Reference:
        return Reference({"y": [2 * v for v in task.public_inputs["x"]]})

    def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
        checks = ctx.checks()
        for i, v in enumerate(task.public_inputs["x"]):
            checks.close(f"/y/{i}", 2 * v, answer["y"][i])
        return Assessment(violations=checks.violations)

    def generate(public: Task, rng: Any) -> Generated:
        inputs = dict(public.public_inputs)
        inputs["x"] = [float(v * rng.uniform(1 - spread, 1 + spread)) for v in inputs["x"]]
        return Generated(inputs)

    return fake_spec(
        family_id, scoring_kind="exact", submission_schema=schema, solve=solve, evaluate=evaluate,
        generate=generate, public_inputs={"x": list(public_x), "base_mva": 100.0}, redraw_budget=budget,
    )


def pick_family(family_id: str, *, min_distinct_fraction: float = 1.0) -> FakeSpec:
    """Name the faulted section, one of four (classify, one categorical answer); the
    generator redraws which one."""
    sections = ["S1", "S2", "S3", "S4"]

    def schema(inputs: dict[str, Any]) -> dict[str, Any]:
        return s.submission({"section": s.enum(inputs["sections"], "the faulted section")}, "section")

    def solve(task: Task, backend: str) -> Reference:
        return Reference({"section": task.public_inputs["sections"][task.public_inputs["tripped"]]})

    def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
        right = answer["section"] == task.public_inputs["sections"][task.public_inputs["tripped"]]
        return Assessment(correct=int(right), total=1)

    def generate(public: Task, rng: Any) -> Generated:
        return Generated({"sections": sections, "tripped": int(rng.integers(len(sections)))})

    return fake_spec(
        family_id, scoring_kind="classify", submission_schema=schema, solve=solve, evaluate=evaluate,
        generate=generate, public_inputs={"sections": sections, "tripped": 1},
        min_distinct_fraction=min_distinct_fraction,
    )

