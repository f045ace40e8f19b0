"""islanded_microgrid_pq_dispatch: golden polygon optimum, the exact circle in the evaluator,
and the generator's acceptance of references an exact-circle answer can beat."""

from __future__ import annotations

import copy
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.generators.acceptance import rejection_reason
from psab.golden import load_golden
from psab.paths import case_dir, golden_dirs
from psab.surrogates.dispatch import inscribed_polygon, polygon_slack

from conftest import need_highs

FAMILY = "islanded_microgrid_pq_dispatch"


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def _golden() -> psab.Task:
    return load_golden(golden_dirs(FAMILY)[0]).task


def test_an_answer_on_the_exact_circle_beats_the_polygon_reference_and_is_capped() -> None:
    """G1 at (0.8 MW, 0.6 Mvar) is on its circle: feasible, 140 € < 142.59 €, score 1, flagged."""
    need_highs()
    task = _golden()
    answer = copy.deepcopy(psab.solve(task).answer)
    answer["schedule"][0]["G1"]["p_mw"] = 0.8
    answer["schedule"][0]["G2"]["p_mw"] = 0.2
    result = psab.evaluate(task, {"answer": answer})
    assert result.feasible, [v.describe() for v in result.violations]
    assert result.score == 1.0
    assert result.evidence["beats_reference"] is True
    assert result.evidence["objective"] == pytest.approx(140.0)
    assert result.evidence["points_outside_the_inscribed_polygon"] == 1


def test_an_answer_outside_the_circle_is_infeasible_at_that_source() -> None:
    need_highs()
    task = _golden()
    answer = copy.deepcopy(psab.solve(task).answer)
    answer["schedule"][0]["G1"]["p_mw"] = 0.81  # √(0.81² + 0.6²) = 1.008 MVA > 1.0
    answer["schedule"][0]["G2"]["p_mw"] = 0.19
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert [v.field for v in result.violations] == ["/schedule/0/G1"]
    assert "capability circle" in result.violations[0].constraint


def test_the_public_reference_can_be_beaten_through_the_circle_yet_its_draws_are_accepted() -> None:
    """On the public case a schedule on a 256-gon (closer to the circle) costs less than the
    16-gon reference — and the generator's acceptance still takes the case: its neighbourhood
    stays inside the polygon."""
    need_highs()
    from psab.families.islanded_microgrid_pq_dispatch import island_data
    from psab.solvers.dispatch import build_islanded_pq_dispatch, solve_formulation

    task = _public()
    reference = psab.evaluate(task, psab.solve(task))
    finer = solve_formulation(build_islanded_pq_dispatch(island_data(task.public_inputs), inscribed_polygon(256)))
    assert finer.objective < reference.evidence["objective"] - 1.0
    assert rejection_reason(psab.get_family(FAMILY), task, "surrogate") is None


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_objective_is_the_fuel_and_cycling_cost(data: st.DataObject) -> None:
    need_highs()
    task = _public()
    inputs = task.public_inputs
    answer = copy.deepcopy(psab.solve(task).answer)
    for step in answer["schedule"]:
        for uid in ("DG1", "DG2", "PV1"):
            if data.draw(st.booleans()):
                step[uid]["p_mw"] = data.draw(st.floats(0.0, 1.5))
        if data.draw(st.booleans()):
            step["BESS1"]["p_discharge_mw"] = data.draw(st.floats(0.0, 1.0))
    cost = {u["id"]: u["cost_per_mwh"] for u in inputs["units"]}
    dt = inputs["step_minutes"] / 60.0
    expected = sum(dt * sum(cost[uid] * step[uid]["p_mw"] for uid in cost)
                   + dt
                   * inputs["battery"]["cycle_cost_per_mwh"] * step["BESS1"]["p_discharge_mw"] for step in answer["schedule"])
    result = psab.evaluate(task, {"answer": answer})
    assert result.evidence["objective"] == pytest.approx(expected, rel=1e-9)


@settings(max_examples=200, deadline=None)
@given(sides=st.integers(3, 64), angle=st.floats(0, 2 * math.pi), radius=st.floats(0, 1.2), s_max=st.floats(0.1, 5.0))
def test_the_inscribed_polygon_lies_between_its_apothem_and_the_circle(sides: int, angle: float, radius: float, s_max: float) -> None:
    poly = inscribed_polygon(sides)
    p, q = radius * s_max * math.cos(angle), radius * s_max * math.sin(angle)
    inside = polygon_slack(poly, p, q, s_max) >= -1e-12
    if inside:
        assert math.hypot(p, q) <= s_max * (1 + 1e-12)  # inside the polygon ⇒ inside the circle
    if radius <= math.cos(math.pi / sides) - 1e-12:
        assert inside  # within the apothem ⇒ inside the polygon


@settings(max_examples=8, deadline=None)
@given(lam=st.floats(0.2, 5.0))
def test_scaling_every_cost_scales_the_optimum(lam: float) -> None:
    need_highs()
    task = _public()
    inputs = copy.deepcopy(task.public_inputs)
    for u in inputs["units"]:
        u["cost_per_mwh"] *= lam
    inputs["battery"]["cycle_cost_per_mwh"] *= lam
    scaled = psab.get_family(FAMILY).make_task(task_id="scaled", split="public", public_inputs=inputs)
    base = psab.evaluate(task, psab.solve(task)).evidence["objective"]
    assert psab.evaluate(scaled, psab.solve(scaled)).evidence["objective"] == pytest.approx(lam * base, rel=1e-6)


def test_reactive_balance_is_checked() -> None:
    need_highs()
    task = _public()
    answer = copy.deepcopy(psab.solve(task).answer)
    answer["schedule"][5]["DG1"]["q_mvar"] += 0.01
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert any(v.field == "/schedule/5" and "reactive power balance" in v.constraint for v in result.violations)


def test_inscribed_16gon_orientation_as_stated():
    """The statement says the reference's 16-gon has a vertex at angle π/16 from the +P axis
    and a flat side facing +P. By hand: the apothem is cos(π/16) = 0.980785 of S; the point
    (S·cos(π/16), 0) lies on the side facing +P (slack 0), the vertex (S·cos(π/16),
    S·sin(π/16)) = (0.980785, 0.195090)·S lies on the circle and on two sides (slack 0), and
    the point (S, 0) on the circle is outside the polygon by S·(1 − 0.980785) = 0.019215·S."""
    from psab.surrogates.dispatch import inscribed_polygon, polygon_slack

    poly = inscribed_polygon(16)
    S = 2.0
    assert abs(polygon_slack(poly, 0.980785 * S, 0.0, S)) < 1e-6
    assert abs(polygon_slack(poly, 0.980785 * S, 0.195090 * S, S)) < 1e-5
    assert abs(polygon_slack(poly, S, 0.0, S) + 0.019215 * S) < 1e-5
