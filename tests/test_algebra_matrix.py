"""The matrix path of the solver layer (``add_constraints`` + ``linear_objective``, read by
``core.solve`` without Pyomo's compiler) poses the same LP as plain Pyomo expressions.

Random small LPs are built both ways from one set of :class:`LinearConstraint` definitions;
both must reach the same optimum, and the optimum must pass :func:`algebra.check`.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.errors import SolverError
from psab.solvers import algebra

from conftest import need_highs


def _problem(seed: int) -> tuple[list[algebra.LinearConstraint], object, int]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    m = int(rng.integers(1, 6))
    A = np.round(rng.normal(size=(m, n)), 3)
    x0 = rng.uniform(0, 1, size=n)  # a feasible point keeps every draw feasible
    slack = rng.uniform(0, 0.5, size=m)
    kinds = rng.integers(0, 3, size=m)  # <=, >=, ==
    cost = np.round(rng.normal(size=n), 3)
    rows = []
    for r in range(m):
        value = float(A[r] @ x0)
        bounds = ({"upper": value + slack[r]}, {"lower": value - slack[r]}, algebra.equal_to(value))[kinds[r]]
        rows.append(algebra.LinearConstraint(
            f"row{r}", f"row {r}", [0],
            lambda v, i, a=A[r]: sum(float(a[j]) * v.x[j] for j in range(n)) - 0.5 * v.x[0] + 0.5 * v.x[0] + 1.0 - 1.0,
            field=lambda i: "", **bounds,
        ))
    objective = lambda v: sum(float(cost[j]) * v.x[j] for j in range(n)) + 3.0  # noqa: E731
    return rows, objective, n


def _expression_rows(model: object, rows: list[algebra.LinearConstraint]) -> None:
    """The same rows built the plain Pyomo way (operator overloading): the independent path
    the matrix path is compared with."""
    import pyomo.environ as pyo

    for c in rows:
        def rule(m: object, i: object, c: algebra.LinearConstraint = c) -> object:
            lo, hi = c.bounds(i)
            expr = c.body(m, i)
            return expr == lo if lo is not None and lo == hi else pyo.inequality(lo, expr, hi)

        setattr(model, c.name, pyo.Constraint(list(c.index), rule=rule))


def _model(n: int) -> object:
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(n), bounds=(0.0, 1.0))
    return m


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_matrix_path_reaches_the_expression_path_optimum(seed: int) -> None:
    need_highs()
    import pyomo.environ as pyo

    from psab.solvers.core import solve

    rows, objective, n = _problem(seed)
    a = _model(n)
    _expression_rows(a, rows)
    a.obj = pyo.Objective(expr=objective(a))
    b = _model(n)
    algebra.add_constraints(b, rows)
    b.obj = algebra.linear_objective(b, objective)
    ra, rb = solve(a), solve(b)
    assert rb.objective == pytest.approx(ra.objective, abs=1e-7)
    x = [b.x[j].value for j in range(n)]
    assert objective(algebra.values(x=x)) == pytest.approx(rb.objective, abs=1e-7)
    assert algebra.check(algebra.values(x=x), rows, lambda name: 1e-7) == []


def test_a_row_the_data_cannot_satisfy_is_reported() -> None:
    need_highs()
    m = _model(2)
    impossible = algebra.LinearConstraint("c", "c", [0], lambda v, i: 2.0, upper=1.0)
    with pytest.raises(SolverError):
        algebra.add_constraints(m, [impossible])


def test_a_nonlinear_body_is_refused() -> None:
    need_highs()
    m = _model(2)
    product = algebra.LinearConstraint("c", "c", [0], lambda v, i: v.x[0] * v.x[1], upper=1.0)
    with pytest.raises(TypeError):
        algebra.add_constraints(m, [product])


def test_matrix_blocks_mix_with_ordinary_constraints_and_fixed_variables() -> None:
    need_highs()
    import pyomo.environ as pyo

    from psab.solvers.core import solve

    m = _model(3)
    rows = [algebra.LinearConstraint("total", "sum", [0], lambda v, i: v.x[0] + v.x[1] + v.x[2], **algebra.equal_to(1.5))]
    algebra.add_constraints(m, rows)
    m.extra = pyo.Constraint(expr=m.x[0] <= 0.25)
    m.x[2].fix(0.5)
    m.obj = algebra.linear_objective(m, lambda v: -2.0 * v.x[0] - 1.0 * v.x[1])
    r = solve(m)
    # x2 fixed at 0.5, x0 <= 0.25 by the ordinary row, x1 = 1.5 - 0.5 - x0 <= 1: x0 = 0.25, x1 = 0.75
    assert (m.x[0].value, m.x[1].value, m.x[2].value) == pytest.approx((0.25, 0.75, 0.5))
    assert r.objective == pytest.approx(-1.25)
    assert len(list(m.component_data_objects(pyo.Constraint))) == 2


def test_an_objective_body_in_numpy_arithmetic_reads_the_same_coefficients_it_computes() -> None:
    """``c @ v.x`` and ``np.sum(d * v.y)`` — the evaluator's own arithmetic on submitted arrays —
    read through the probe as the linear objective with exactly those coefficients."""
    need_highs()
    import pyomo.environ as pyo

    c, d = np.array([3.0, 0.5, 2.0]), np.array([1.25, 4.0, 0.0])

    def body(v):  # type: ignore[no-untyped-def]
        return c @ v.x + np.sum(d * v.y) + 7.0

    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(3), bounds=(0, 1))
    m.y = pyo.Var(range(3), bounds=(0, 1))
    m.obj = algebra.linear_objective(m, body, sense="maximize")
    expr = m.obj.expr
    coef = {v.name: k for v, k in zip(expr.linear_vars, expr.linear_coefs, strict=True)}
    assert coef == {"x[0]": 3.0, "x[1]": 0.5, "x[2]": 2.0, "y[0]": 1.25, "y[1]": 4.0}  # the zero is dropped
    assert expr.constant == 7.0
    x, y = np.array([1.0, 0.0, 1.0]), np.array([0.5, 1.0, 1.0])
    assert body(algebra.values(x=x, y=y)) == 3.0 + 2.0 + 0.625 + 4.0 + 7.0


def test_a_unit_limit_breach_shows_the_output_and_the_limit_in_mw() -> None:
    """Issue 14.7: '/schedule/16/T3/p_mw: output at least P_min when on (expected ">= 0", found
    -15.0)' reported the row's slack. The violation now carries the submitted output (MW) and
    the limit the unit's state imposes, in the field's own terms."""
    import psab
    from psab.paths import case_dir

    task = psab.load_case(case_dir("hydro_thermal_storage_uc"))
    answer = psab.solve(task).answer
    unit = next(u for u in task.public_inputs["thermal_units"] if u["p_min_mw"] > 0)
    step = next(t for t, s in enumerate(answer["schedule"]) if s[unit["id"]]["on"])
    low = round(unit["p_min_mw"] / 2, 3)
    answer["schedule"][step][unit["id"]]["p_mw"] = low
    result = psab.evaluate(task, {"answer": answer})
    [v] = [v for v in result.violations if v.field == f"/schedule/{step}/{unit['id']}/p_mw" and "P_min" in v.constraint]
    assert v.found == low
    assert v.expected == f">= {unit['p_min_mw']:.6g} MW (P_min, unit on)"
