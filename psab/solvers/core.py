"""The one place that touches the solver: a Pyomo model in, a proven optimum out.

Pyomo is the modelling layer (formulations stay readable as algebra); the model is compiled to
matrix standard form by Pyomo's own ``LinearStandardFormCompiler`` and handed to HiGHS through
highspy directly. Measured here on the 24 h microgrid LP (performance-notes.md and
``benchmarks/``), this path costs about a third of Pyomo's solver plugins, which spend most of
their time in the interface rather than in HiGHS.

Any termination other than a proven optimum (MIP gap 0 for integer models) raises
:class:`~psab.errors.SolverError`: a reference must be optimal to normalize scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from psab.errors import SolverError


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


def solve(model: Any, *, time_limit_s: float = 60.0, threads: int = 1) -> SolveResult:
    """Solve a linear or mixed-integer Pyomo model to proven optimality with HiGHS.

    The variable values are loaded back into the model. ``threads=1`` keeps reference solves
    deterministic and lets parallel workers share a 2-core machine.
    """
    import highspy
    from pyomo.environ import value

    try:
        repn = compile_model(model)
    except (ValueError, RuntimeError) as exc:  # nonlinear term, no objective...
        raise SolverError(f"model cannot be compiled to a linear program: {exc}") from None
    if len(repn.objectives) != 1:
        raise SolverError(f"a reference model needs exactly one active objective, found {len(repn.objectives)}")

    inf = highspy.kHighsInf
    columns = repn.columns
    n = len(columns)
    A = repn.A.tocsc()
    rhs = np.asarray(repn.rhs, dtype=float)
    # mixed form: each row carries its sense (0: ==, 1: <=, -1: >=) as the second element
    senses = np.fromiter((r[1] for r in repn.rows), dtype=np.int8, count=len(repn.rows))
    row_lower = np.where(senses == 1, -inf, rhs)
    row_upper = np.where(senses == -1, inf, rhs)
    col_lower = np.fromiter((-inf if v.lb is None else v.lb for v in columns), dtype=float, count=n)
    col_upper = np.fromiter((inf if v.ub is None else v.ub for v in columns), dtype=float, count=n)
    integer = np.fromiter((not v.is_continuous() for v in columns), dtype=bool, count=n)
    c = np.asarray(repn.c.toarray()).ravel() if n else np.zeros(0)
    sense = repn.objectives[0].sense  # 1 minimize, -1 maximize (pyomo.core.base.objective)

    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = A.shape[0]
    lp.col_cost_ = c
    lp.col_lower_ = col_lower
    lp.col_upper_ = col_upper
    lp.row_lower_ = row_lower
    lp.row_upper_ = row_upper
    lp.sense_ = highspy.ObjSense.kMaximize if int(sense) == -1 else highspy.ObjSense.kMinimize
    lp.offset_ = float(np.asarray(repn.c_offset).ravel()[0]) if np.size(repn.c_offset) else 0.0
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
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
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS ended with status '{status_text}', not a proven optimum")

    x = np.asarray(h.getSolution().col_value, dtype=float)
    for var, val, is_int in zip(columns, x, integer):
        # + 0.0 turns a solver's -0.0 into 0.0 so answers never show a negative zero
        var.set_value((float(round(val)) if is_int else float(val)) + 0.0, skip_validation=True)
    for var, expr in repn.eliminated_vars:
        var.set_value(float(value(expr)), skip_validation=True)
    info = h.getInfo()
    gap = float(info.mip_gap) if integer.any() else 0.0
    objective = float(value(repn.objectives[0].expr))
    return SolveResult(objective, status_text, n, int(A.shape[0]), int(integer.sum()), gap)
