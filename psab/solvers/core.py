"""The one place that touches the solver: a Pyomo model in, a proven optimum out.

Pyomo is the modelling layer (formulations stay readable as algebra). A model is turned into
HiGHS's matrix form in one of two ways and handed to HiGHS through highspy directly:

- a model holding ``MatrixConstraint`` blocks (built by
  :func:`psab.solvers.algebra.add_constraints`) is read block by block, without
  walking expressions — on the 24 h microgrid LP this brings the whole Pyomo path within
  about 2.5x of the same LP given to highspy by hand (``benchmarks/bench_dispatch.py``);
- any other model goes through Pyomo's own ``LinearStandardFormCompiler``, which already
  costs about a third of Pyomo's solver plugins.

Any termination other than a proven optimum (MIP gap 0 for integer models) raises
:class:`~psab.errors.SolverError`: a reference must be optimal to normalize scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from psab.errors import InfeasibleTaskError, SolverError


@dataclass(frozen=True)
class SolveResult:
    """A proven optimum: objective value, wall time split, and the model's size."""

    objective: float
    status: str
    n_variables: int
    n_constraints: int
    n_integer: int
    mip_gap: float


_BANNER_SHOWN = False


def _new_highs() -> Any:
    """A ``highspy.Highs`` instance, without the banner HiGHS prints to file descriptor 1 on
    the first construction in a process (it would corrupt JSON written to stdout)."""
    global _BANNER_SHOWN
    import os
    import sys

    import highspy

    if _BANNER_SHOWN:
        return highspy.Highs()
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
        _BANNER_SHOWN = True
    return h


def compile_model(model: Any) -> Any:
    """Pyomo model → ``LinearStandardFormInfo`` (A, rhs, c in mixed form, original sense)."""
    from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

    return LinearStandardFormCompiler().write(model, mixed_form=True, set_sense=None)


@dataclass
class Form:
    """A model in the form HiGHS takes: ``row_lower <= A x <= row_upper``, column bounds,
    costs (original sense), integrality, and how to load the solution back."""

    columns: list[Any]
    A_start: np.ndarray
    A_index: np.ndarray
    A_value: np.ndarray
    rowwise: bool
    n_rows: int
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    integer: np.ndarray
    c: np.ndarray
    offset: float
    maximize: bool
    eliminated: list[tuple[Any, Any]]


class Rows:
    """The rows of a :class:`Form` gathered in row-wise (CSR) order, block by block or one at
    a time — shared by :func:`_matrix_form` (a Pyomo model's ``MatrixConstraint`` blocks) and
    :func:`psab.solvers.dispatch.solve_formulation` (a formulation's matrix blocks), so both
    hand HiGHS the same arrays built the same way."""

    def __init__(self) -> None:
        self.starts: list[np.ndarray] = []
        self.indices: list[np.ndarray] = []
        self.values: list[np.ndarray] = []
        self.lower: list[np.ndarray] = []
        self.upper: list[np.ndarray] = []
        self.n_rows = 0
        self.nnz = 0

    def add_block(self, indptr: Any, cols: np.ndarray, data: np.ndarray, lower: np.ndarray,
                  upper: np.ndarray) -> None:
        """A block of CSR rows: ``indptr`` its own row pointers, ``cols`` the global column of
        each entry, ``data`` the coefficients, ``lower``/``upper`` the row bounds."""
        ptr = np.asarray(indptr, dtype=np.int64)
        self.starts.append(ptr[:-1] + self.nnz)
        self.nnz += int(ptr[-1])
        self.indices.append(cols)
        self.values.append(data)
        self.lower.append(lower)
        self.upper.append(upper)
        self.n_rows += len(lower)

    def add_row(self, cols: np.ndarray, coefs: np.ndarray, lo: float, hi: float) -> None:
        """One row ``lo <= coefs · x[cols] <= hi``."""
        self.starts.append(np.array([self.nnz], dtype=np.int64))
        self.nnz += len(cols)
        self.indices.append(cols)
        self.values.append(coefs)
        self.lower.append(np.array([lo]))
        self.upper.append(np.array([hi]))
        self.n_rows += 1

    def form(self, *, columns: list[Any], col_lower: np.ndarray, col_upper: np.ndarray, integer: np.ndarray,
             c: np.ndarray, offset: float, maximize: bool) -> Form:
        """The :class:`Form` of these rows and the given columns and cost."""
        return Form(
            columns=columns,
            A_start=np.concatenate([*self.starts, [self.nnz]]).astype(np.int64),
            A_index=np.concatenate(self.indices) if self.indices else np.zeros(0, np.int64),
            A_value=np.concatenate(self.values) if self.values else np.zeros(0),
            rowwise=True, n_rows=self.n_rows,
            row_lower=np.concatenate(self.lower) if self.lower else np.zeros(0),
            row_upper=np.concatenate(self.upper) if self.upper else np.zeros(0),
            col_lower=col_lower, col_upper=col_upper, integer=integer,
            c=c, offset=offset, maximize=maximize, eliminated=[],
        )


def _column_data(columns: list[Any], inf: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = len(columns)
    lower = np.empty(n)
    upper = np.empty(n)
    integer = np.zeros(n, dtype=bool)
    continuous: dict[int, bool] = {}  # per domain object: the variables of a family share one
    for j, v in enumerate(columns):
        if v.fixed:
            lower[j] = upper[j] = v.value
        else:
            lo, hi = v.bounds
            lower[j] = -inf if lo is None else lo
            upper[j] = inf if hi is None else hi
        domain = v.domain
        cont = continuous.get(id(domain))
        if cont is None:
            cont = continuous[id(domain)] = v.is_continuous()
        integer[j] = not cont
    return lower, upper, integer


def _compiled_form(model: Any, inf: float) -> Form:
    """Any linear Pyomo model, through Pyomo's ``LinearStandardFormCompiler``."""
    try:
        repn = compile_model(model)
    except (ValueError, RuntimeError) as exc:  # nonlinear term, no objective...
        raise SolverError(f"model cannot be compiled to a linear program: {exc}") from None
    if len(repn.objectives) != 1:
        raise SolverError(f"a reference model needs exactly one active objective, found {len(repn.objectives)}")
    columns = list(repn.columns)
    n = len(columns)
    A = repn.A.tocsc()
    rhs = np.asarray(repn.rhs, dtype=float)
    # mixed form: each row carries its sense (0: ==, 1: <=, -1: >=) as the second element
    senses = np.fromiter((r[1] for r in repn.rows), dtype=np.int8, count=len(repn.rows))
    col_lower, col_upper, integer = _column_data(columns, inf)
    sense = repn.objectives[0].sense  # 1 minimize, -1 maximize (pyomo.core.base.objective)
    return Form(
        columns=columns,
        A_start=A.indptr, A_index=A.indices, A_value=A.data, rowwise=False, n_rows=int(A.shape[0]),
        row_lower=np.where(senses == 1, -inf, rhs), row_upper=np.where(senses == -1, inf, rhs),
        col_lower=col_lower, col_upper=col_upper, integer=integer,
        c=np.asarray(repn.c.toarray()).ravel() if n else np.zeros(0),
        offset=float(np.asarray(repn.c_offset).ravel()[0]) if np.size(repn.c_offset) else 0.0,
        maximize=int(sense) == -1,
        eliminated=list(repn.eliminated_vars),
    )


def _matrix_form(model: Any, inf: float) -> Form | None:
    """The form read directly from a model holding ``MatrixConstraint`` blocks
    (:func:`psab.solvers.algebra.add_constraints`); ``None`` for a model without any,
    which goes through the compiler as before.

    The blocks already hold their rows as CSR arrays, so nothing is walked expression by
    expression; any ordinary constraint beside them (and the objective) is read with Pyomo's
    ``generate_standard_repn``. A fixed variable in a block stays a column with equal bounds.
    """
    from pyomo.core.base.matrix_constraint import MatrixConstraint
    from pyomo.core.expr.numeric_expr import LinearExpression
    from pyomo.environ import Constraint, Objective, value
    from pyomo.repn.standard_repn import generate_standard_repn

    blocks = list(model.component_objects(Constraint, active=True, descend_into=True))
    if not any(isinstance(b, MatrixConstraint) for b in blocks):
        return None
    objectives = list(model.component_data_objects(Objective, active=True, descend_into=True))
    if len(objectives) != 1:
        raise SolverError(f"a reference model needs exactly one active objective, found {len(objectives)}")

    where: dict[int, int] = {}
    columns: list[Any] = []

    def column(var: Any) -> int:
        j = where.get(id(var))
        if j is None:
            j = where[id(var)] = len(columns)
            columns.append(var)
        return j

    def linear(expr: Any, what: str) -> Any:
        repn = generate_standard_repn(expr, quadratic=False)
        if not repn.is_linear():
            raise SolverError(f"model cannot be compiled to a linear program: {what} is nonlinear")
        return repn

    rows = Rows()
    for b in blocks:
        if isinstance(b, MatrixConstraint):
            data = [d for d in b._data if d._active]
            if len(data) != len(b._data):
                raise SolverError(f"deactivating single rows of {b.name} is not supported; deactivate the block")
            local = np.fromiter((column(v) for v in b._x), dtype=np.int64, count=len(b._x))
            rows.add_block(
                b._A_indptr, local[np.asarray(b._A_indices, dtype=np.int64)], np.asarray(b._A_data, dtype=float),
                np.array([-inf if v is None else (v if type(v) is float else value(v)) for v in b._lower], dtype=float),
                np.array([inf if v is None else (v if type(v) is float else value(v)) for v in b._upper], dtype=float))
            continue
        for con in b.values():
            if not con.active:
                continue
            repn = linear(con.body, f"constraint {con.name}")
            const = float(value(repn.constant))
            lo = -inf if con.lower is None else float(value(con.lower)) - const
            hi = inf if con.upper is None else float(value(con.upper)) - const
            if not repn.linear_vars:
                if lo > 1e-9 or hi < -1e-9:
                    raise InfeasibleTaskError(f"the task has no feasible answer: the reference model's constraint "
                                              f"'{con.name}' cannot hold (its data alone break it)")
                continue
            cols = np.fromiter((column(v) for v in repn.linear_vars), dtype=np.int64, count=len(repn.linear_vars))
            rows.add_row(cols, np.array([value(k) for k in repn.linear_coefs], dtype=float), lo, hi)
    expr = objectives[0].expr
    if type(expr) is LinearExpression and all(type(k) in (int, float) for k in expr.linear_coefs) \
            and type(expr.constant) in (int, float) and not any(v.fixed for v in expr.linear_vars):
        # what linear_objective builds: read it as is
        obj_vars, obj_coefs, obj_constant = expr.linear_vars, expr.linear_coefs, expr.constant
    else:
        repn = linear(expr, "the objective")
        obj_vars, obj_coefs, obj_constant = repn.linear_vars, [value(k) for k in repn.linear_coefs], value(repn.constant)
    c_index = np.fromiter((column(v) for v in obj_vars), dtype=np.int64, count=len(obj_vars))
    c = np.zeros(len(columns))
    np.add.at(c, c_index, np.asarray(obj_coefs, dtype=float))
    col_lower, col_upper, integer = _column_data(columns, inf)
    return rows.form(columns=columns, col_lower=col_lower, col_upper=col_upper, integer=integer, c=c,
                     offset=float(obj_constant), maximize=int(objectives[0].sense) == -1)


def solve(model: Any, *, time_limit_s: float = 60.0, threads: int = 1) -> SolveResult:
    """Solve a linear or mixed-integer Pyomo model to proven optimality with HiGHS.

    The variable values are loaded back into the model. ``threads=1`` keeps reference solves
    deterministic and lets parallel workers share a 2-core machine. A model built from
    ``MatrixConstraint`` blocks is read directly; any other through Pyomo's compiler.
    """
    import highspy
    from pyomo.environ import value

    inf = highspy.kHighsInf
    form = _matrix_form(model, inf) or _compiled_form(model, inf)
    x, result = run_form(form, time_limit_s=time_limit_s, threads=threads)
    for var, val in zip(form.columns, x.tolist(), strict=True):
        var.set_value(val, skip_validation=True)
    for var, expr in form.eliminated:
        var.set_value(float(value(expr)), skip_validation=True)
    return result


def run_form(form: Form, *, time_limit_s: float = 60.0, threads: int = 1) -> tuple[np.ndarray, SolveResult]:
    """Hand a model in matrix form to HiGHS: the optimal column values (integers rounded,
    no negative zeros) and the result, or :class:`~psab.errors.SolverError`.

    Shared by :func:`solve` and by formulations built straight into arrays
    (:func:`psab.solvers.dispatch.solve_formulation`), so both give HiGHS the same problem
    with the same options and read the answer back the same way.
    """
    import highspy

    n = len(form.columns)
    integer = form.integer

    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = form.n_rows
    lp.col_cost_ = form.c
    lp.col_lower_ = form.col_lower
    lp.col_upper_ = form.col_upper
    lp.row_lower_ = form.row_lower
    lp.row_upper_ = form.row_upper
    lp.sense_ = highspy.ObjSense.kMaximize if form.maximize else highspy.ObjSense.kMinimize
    lp.offset_ = form.offset
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise if form.rowwise else highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = form.A_start
    lp.a_matrix_.index_ = form.A_index
    lp.a_matrix_.value_ = form.A_value
    if integer.any():
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous for i in integer]

    h = _new_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("time_limit", float(time_limit_s))
    h.setOptionValue("random_seed", 0)
    if integer.any():
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 0.0)
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    status_text = h.modelStatusToString(status)
    if status == highspy.HighsModelStatus.kInfeasible:
        # a proof, not a failure: no point meets every constraint the task's data pose
        raise InfeasibleTaskError("the task has no feasible answer: HiGHS proves the reference model infeasible "
                                  "(its constraints cannot all hold for these inputs)")
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS ended with status '{status_text}', not a proven optimum")

    x = np.asarray(h.getSolution().col_value, dtype=float)
    if integer.any():
        x = np.where(integer, np.round(x), x)
    x = x + 0.0  # a solver's -0.0 becomes 0.0 so answers never show a negative zero
    info = h.getInfo()
    gap = float(info.mip_gap) if integer.any() else 0.0
    objective = float(form.c @ x + form.offset)
    return x, SolveResult(objective, status_text, n, form.n_rows, int(integer.sum()), gap)
