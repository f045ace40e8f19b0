"""Constraints written once, used twice: to build the reference model and to check an answer.

A :class:`LinearConstraint` is an indexed family of rows ``lower <= body(v, i) <= upper``.
``body`` is ordinary Python arithmetic over ``v``, a namespace of variables indexed like
arrays: when ``v`` is a Pyomo model the body is a Pyomo expression and the rows become model
constraints (:func:`add_constraints`); when ``v`` holds the submitted numbers (lists or numpy
arrays under the same names) the body is a float and :func:`check` reports every breached row
as a violation at the answer field it concerns. The reference solver and the evaluator thus
cannot drift apart — and because both share this one definition, each family also needs a
golden case whose optimum is known independently (hand-derived or enumerated in a test).

This module itself imports neither Pyomo nor numpy; :func:`add_constraints` receives the
model and imports Pyomo lazily.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from psab.contract import Violation

Bound = float | Callable[[Any], float] | None


@dataclass(frozen=True)
class LinearConstraint:
    """Rows ``lower(i) <= body(v, i) <= upper(i)`` for every ``i`` in ``index``.

    Parameters
    ----------
    name
        A Python identifier for the Pyomo component (``"balance"``).
    words
        The requirement in engineering words, with ``{i}`` placeholders filled from the index
        (``"power balance in hour {0}"``) — this is the violation's ``constraint`` text.
    index
        The index tuples (or scalars) of the rows.
    body
        ``(v, i) -> expression``, linear in the variables of ``v``.
    lower, upper
        Constants or ``i -> constant``; ``None`` for an open side; equal for an equality.
    field
        ``i -> JSON pointer`` of the answer field a breach is reported at.
    slack
        Name of the feasibility tolerance in the task's ``tolerances.feasibility``.
    """

    name: str
    words: str
    index: Sequence[Any]
    body: Callable[[Any, Any], Any]
    lower: Bound = None
    upper: Bound = None
    field: Callable[[Any], str] = lambda i: ""
    slack: str = "default"

    def bounds(self, i: Any) -> tuple[float | None, float | None]:
        lo = self.lower(i) if callable(self.lower) else self.lower
        hi = self.upper(i) if callable(self.upper) else self.upper
        return lo, hi

    def describe(self, i: Any) -> str:
        args = i if isinstance(i, tuple) else (i,)
        try:
            return self.words.format(*args)
        except (IndexError, KeyError):
            return self.words


def equal_to(value: float | Callable[[Any], float]) -> dict[str, Bound]:
    """``lower = upper = value``: keyword arguments for an equality row."""
    return {"lower": value, "upper": value}


def add_constraints(model: Any, constraints: Iterable[LinearConstraint]) -> None:
    """Add every constraint family to a Pyomo ``model`` (whose attributes are the variables)."""
    import pyomo.environ as pyo

    for c in constraints:
        rows = list(c.index)

        def rule(m: Any, *i: Any, c: LinearConstraint = c) -> Any:
            key = i[0] if len(i) == 1 else i
            lo, hi = c.bounds(key)
            expr = c.body(m, key)
            if lo is not None and hi is not None and lo == hi:
                return expr == lo
            if isinstance(expr, (int, float)):
                return pyo.Constraint.Skip  # a row with no variable left (e.g. fixed data)
            return pyo.inequality(lo, expr, hi)

        setattr(model, f"{c.name}_index", pyo.Set(initialize=rows, dimen=None, ordered=True))
        setattr(model, c.name, pyo.Constraint(getattr(model, f"{c.name}_index"), rule=rule))


def check(values: Any, constraints: Iterable[LinearConstraint], slack: Callable[[str], float]) -> list[Violation]:
    """Every breached row at the submitted ``values``, one violation per row.

    ``slack(name)`` is the declared feasibility tolerance of a constraint's ``slack`` name.
    A row whose body is not a finite number (the answer drove it to NaN) is a breach.
    """
    out: list[Violation] = []
    for c in constraints:
        tol = slack(c.slack)
        for i in c.index:
            lo, hi = c.bounds(i)
            got = float(c.body(values, i))
            if not math.isfinite(got):
                out.append(Violation(c.field(i), c.describe(i), _expected(lo, hi), got))
                continue
            if (lo is not None and got < lo - tol) or (hi is not None and got > hi + tol):
                out.append(Violation(c.field(i), c.describe(i), _expected(lo, hi), round(got, 9)))
    return out


def _expected(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"= {lo:.6g}" if lo == hi else f"[{lo:.6g}, {hi:.6g}]"
    if lo is not None:
        return f">= {lo:.6g}"
    return f"<= {hi:.6g}"


def values(**arrays: Sequence[float] | Mapping[Any, float] | float) -> SimpleNamespace:
    """A namespace of submitted values under the variables' names, for :func:`check`."""
    return SimpleNamespace(**arrays)
