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
    solves_for, unit
        For an equality row that determines the reported field (a storage recursion
        ``E_t − E_(t−1) − … = 0``): ``(v, i) -> the submitted value of that field`` (its
        coefficient in ``body`` is +1) and the field's unit. A breach then shows the value the
        row requires of the field (``= 4.98 MWh``) and the submitted value, not the residual.
    shown
        Optional ``(v, i) -> (expected, found)`` in the terms of the reported field, for a row
        whose body is not the field's value (``p − P_min·u ≥ 0`` would otherwise report the
        slack ``−15`` instead of the output and its limit): a violation then shows what was
        submitted and the limit in the field's unit.
    """

    name: str
    words: str
    index: Sequence[Any]
    body: Callable[[Any, Any], Any]
    lower: Bound = None
    upper: Bound = None
    field: Callable[[Any], str] = lambda i: ""
    slack: str = "default"
    shown: Callable[[Any, Any], tuple[Any, Any]] | None = None
    solves_for: Callable[[Any, Any], Any] | None = None
    unit: str = ""

    def bounds(self, i: Any) -> tuple[float | None, float | None]:
        lo = self.lower(i) if callable(self.lower) else self.lower
        hi = self.upper(i) if callable(self.upper) else self.upper
        return lo, hi

    def describe(self, i: Any) -> str:
        args = i if isinstance(i, tuple) else (i,)
        try:
            return self.words.format(*args)
        except (IndexError, KeyError, TypeError, ValueError, AttributeError):
            # wording that does not fit the index (a maintainer's slip) must not crash a check
            return self.words


def equal_to(value: float | Callable[[Any], float]) -> dict[str, Bound]:
    """``lower = upper = value``: keyword arguments for an equality row."""
    return {"lower": value, "upper": value}


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
                expected, found = _expected(lo, hi), round(got, 9)
                try:
                    if c.shown is not None:
                        expected, found = c.shown(values, i)
                    elif c.solves_for is not None and lo is not None and lo == hi:
                        submitted = float(c.solves_for(values, i))
                        expected = f"= {submitted - (got - lo):.6g} {c.unit}".rstrip()
                        found = round(submitted, 9)
                except (ArithmeticError, IndexError, KeyError, TypeError, ValueError):
                    pass  # a wording slip never hides the breach: the row's own terms stay
                out.append(Violation(c.field(i), c.describe(i), expected, found))
    return out


def unit_limit_shown(op: str, limit_mw: float, name: str, on: Any, output_mw: Any) -> tuple[str, float]:
    """``shown`` of a committed unit's output limit ``p − limit·u``: the limit as the unit's
    state makes it (``>= 40 MW (P_min, unit on)``) and the submitted output in MW."""
    state = float(on)
    if state == 1.0:
        limit = f"{op} {limit_mw:.6g} MW ({name}, unit on)"
    elif state == 0.0:
        limit = f"{op} 0 MW (unit off)"
    else:
        limit = f"{op} {limit_mw * state:.6g} MW ({name} {limit_mw:.6g} MW × on {state:.6g})"
    return limit, round(float(output_mw), 9)


def _expected(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"= {lo:.6g}" if lo == hi else f"[{lo:.6g}, {hi:.6g}]"
    if lo is not None:
        return f">= {lo:.6g}"
    return f"<= {hi:.6g}"


def values(**arrays: Sequence[float] | Mapping[Any, float] | float) -> SimpleNamespace:
    """A namespace of submitted values under the variables' names, for :func:`check`."""
    return SimpleNamespace(**arrays)


# ------------------------------------------------------------------ matrix form
#
# Building Pyomo rows through operator overloading and compiling them back to a matrix costs
# tens of microseconds per row (benchmarks/bench_dispatch.py). The same bodies can instead be
# read once by a linear probe — ``v.x[t]`` yields a coefficient map rather than a Pyomo
# expression — and handed to Pyomo as ``MatrixConstraint`` blocks, Pyomo's own component for
# constraints given as ``lb <= A x <= ub``, which :func:`psab.solvers.core.solve` reads
# without walking expressions. The definition stays the one ``body`` that :func:`check` uses.


class LinearForm:
    """``sum(coef * var) + constant`` as read from a body by the probe (internal).

    ``keys`` (``id`` of each variable) and ``coefs`` are parallel lists that may repeat a
    variable; :meth:`collect` sums the repeats. Adding concatenates the lists, so reading a
    long sum costs linear time. Only what a linear body needs is defined: a product of two
    forms is a ``TypeError`` (the body was not linear).
    """

    __slots__ = ("keys", "coefs", "constant")
    __array_ufunc__ = None  # numpy scalars defer to the reflected operators below

    def __init__(self, keys: list[int], coefs: list[float], constant: float) -> None:
        self.keys = keys
        self.coefs = coefs
        self.constant = constant

    def __add__(self, other: Any) -> LinearForm:
        if isinstance(other, LinearForm):
            return LinearForm(self.keys + other.keys, self.coefs + other.coefs, self.constant + other.constant)
        return LinearForm(self.keys, self.coefs, self.constant + float(other))

    __radd__ = __add__

    def __sub__(self, other: Any) -> LinearForm:
        if isinstance(other, LinearForm):
            return LinearForm(self.keys + other.keys, self.coefs + [-c for c in other.coefs], self.constant - other.constant)
        return LinearForm(self.keys, self.coefs, self.constant - float(other))

    def __rsub__(self, other: Any) -> LinearForm:
        return LinearForm(self.keys, [-c for c in self.coefs], float(other) - self.constant)

    def __neg__(self) -> LinearForm:
        return LinearForm(self.keys, [-c for c in self.coefs], -self.constant)

    def __pos__(self) -> LinearForm:
        return self

    def __mul__(self, other: Any) -> LinearForm:
        if isinstance(other, LinearForm):
            raise TypeError("a constraint body must be linear: product of two variable terms")
        k = float(other)
        return LinearForm(self.keys, [c * k for c in self.coefs], self.constant * k)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> LinearForm:
        if isinstance(other, LinearForm):
            raise TypeError("a constraint body must be linear: division by a variable term")
        return self * (1.0 / float(other))

    def collect(self) -> dict[int, float]:
        """Coefficient of each variable, repeats summed, zeros dropped (in first-seen order)."""
        out = dict(zip(self.keys, self.coefs, strict=True))
        if len(out) != len(self.keys):  # a variable repeats: sum its coefficients
            out = {}
            for k, c in zip(self.keys, self.coefs, strict=True):
                out[k] = out.get(k, 0.0) + c
        if 0.0 in out.values():
            out = {k: c for k, c in out.items() if c != 0.0}
        return out


class _ProbeIndexer:
    """An indexed variable as the probe reads it: ``x[i]`` is a :class:`LinearForm`.

    A variable indexed ``0..n-1`` also takes the numpy arithmetic an evaluator writes over the
    submitted array, so one body serves both sides with the evaluator's own floating-point
    operations: ``c @ x`` (``Σ c[i]·x[i]``) and ``c * x`` (an object array of ``c[i]·x[i]``,
    which ``+`` and ``np.sum`` then combine) for a coefficient vector ``c``.
    """

    __slots__ = ("component", "data", "owners", "forms")
    __array_ufunc__ = None  # numpy arrays defer to the reflected operators below

    def __rmatmul__(self, coefficients: Any) -> LinearForm:
        forms = [self[i] for i in range(len(coefficients))]
        return LinearForm([f.keys[0] for f in forms], [float(c) for c in coefficients], 0.0)

    def __rmul__(self, coefficients: Any) -> Any:
        import numpy as np  # only reached from a body that multiplies by a numpy array

        out = np.empty(len(coefficients), dtype=object)
        for i, c in enumerate(coefficients):
            out[i] = self[i] * c
        return out

    def __init__(self, component: Any, owners: dict[int, Any]) -> None:
        self.component = component
        # an indexed component's own index -> data dict: a plain look-up instead of
        # IndexedComponent.__getitem__'s normalisation (the fallback handles anything else)
        data = getattr(component, "_data", None)
        self.data = data if isinstance(data, dict) else {}
        self.owners = owners
        self.forms: dict[Any, LinearForm] = {}

    def __getitem__(self, index: Any) -> LinearForm:
        form = self.forms.get(index)
        if form is None:
            var = self.data.get(index)
            if var is None:
                var = self.component[index]
            self.owners[id(var)] = var
            form = self.forms[index] = LinearForm([id(var)], [1.0], 0.0)
        return form


class LinearProbe:
    """A namespace over a Pyomo model's variables whose entries are :class:`LinearForm` terms,
    so that ``body(probe, i)`` reads the coefficients of a row without building Pyomo
    expressions. ``owners`` maps each ``id`` back to its variable."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self.owners: dict[int, Any] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        component = getattr(self._model, name)
        if component.is_indexed():
            entry: Any = _ProbeIndexer(component, self.owners)
        else:
            self.owners[id(component)] = component
            entry = LinearForm([id(component)], [1.0], 0.0)
        setattr(self, name, entry)  # later look-ups skip __getattr__
        return entry


_MATRIX_BLOCK: Any = None


def _matrix_block_class() -> Any:
    """Pyomo's ``MatrixConstraint`` with the container methods of an indexed component.

    Pyomo 6.10's class takes ``keys``/``values``/``items`` from ``collections.abc.Mapping``,
    whose signatures lack the ``sort`` argument the block iterators pass, and its rows live in
    a tuple, which Pyomo takes for a Reference; so ``component_data_objects(Constraint)`` and
    ``pprint`` fail on a model holding one. These overrides restore them.
    """
    global _MATRIX_BLOCK
    if _MATRIX_BLOCK is None:
        from pyomo.core.base.matrix_constraint import MatrixConstraint

        class MatrixRows(MatrixConstraint):
            def keys(self, sort: Any = None, ordered: Any = None) -> Any:
                return iter(range(len(self._data)))

            def values(self, sort: Any = None, ordered: Any = None) -> Any:
                return iter(self._data)

            def items(self, sort: Any = None, ordered: Any = None) -> Any:
                return iter(enumerate(self._data))

            def is_reference(self) -> bool:
                # the rows live in a tuple, which Pyomo takes for a Reference's view
                return False

        _MATRIX_BLOCK = MatrixRows
    return _MATRIX_BLOCK


@dataclass
class RowBlock:
    """One constraint family read by the probe into compressed-row form (internal).

    ``keys`` are the probe keys (``id`` of each variable) of the block's columns in first-seen
    order; ``indices`` refer to positions in ``keys``. A row whose body has no variable left is
    not kept: it is listed in ``empty`` as ``(index, constant, lower, upper)``. ``constants``
    holds each kept row's body constant, already moved into ``lower``/``upper``.
    """

    name: str
    keys: list[int]
    data: list[float]
    indices: list[int]
    indptr: list[int]
    lower: list[float | None]
    upper: list[float | None]
    constants: list[float]
    kept: list[Any]
    empty: list[tuple[Any, float, float | None, float | None]]


def read_rows(c: LinearConstraint, probe: LinearProbe, *, strict: bool = True) -> RowBlock:
    """The rows of ``c`` as coefficients, read through ``probe`` (shared by the Pyomo model of
    :func:`add_constraints` and the matrix form of :mod:`psab.solvers.dispatch`, so the two
    cannot differ in a coefficient, a bound or the order of rows and columns).

    ``strict``: a row without variables whose data break its bounds makes the model infeasible
    (:class:`~psab.errors.InfeasibleTaskError`, a SolverError, raised as soon as it is read); otherwise it is only
    listed in ``empty`` (the evaluator's matrix form, which judges it at the answer).
    """
    from psab.errors import InfeasibleTaskError

    local: dict[int, int] = {}
    data: list[float] = []
    indices: list[int] = []
    indptr = [0]
    lower: list[float | None] = []
    upper: list[float | None] = []
    constants: list[float] = []
    kept = []
    empty = []
    for i in c.index:
        form = c.body(probe, i)
        lo, hi = c.bounds(i)
        terms = form.collect() if isinstance(form, LinearForm) else {}
        if not terms:
            const = form.constant if isinstance(form, LinearForm) else float(form)
            if strict and ((lo is not None and const < lo - 1e-9) or (hi is not None and const > hi + 1e-9)):
                raise InfeasibleTaskError(f"the task has no feasible answer: constraint {c.describe(i)!r} cannot hold: "
                                          f"its data fix it at {const:.6g}")
            empty.append((i, const, lo, hi))
            continue
        for key, coef in terms.items():
            j = local.get(key)
            if j is None:
                j = local[key] = len(local)
            indices.append(j)
            data.append(coef)
        indptr.append(len(data))
        lower.append(None if lo is None else float(lo) - form.constant)
        upper.append(None if hi is None else float(hi) - form.constant)
        constants.append(form.constant)
        kept.append(i)
    return RowBlock(c.name, list(local), data, indices, indptr, lower, upper, constants, kept, empty)


def add_constraints(model: Any, constraints: Iterable[LinearConstraint], *, probe: LinearProbe | None = None) -> None:
    """Add every constraint family to a Pyomo ``model`` as a ``MatrixConstraint`` block.

    The rows Pyomo expressions would give (a row whose body has no variable left is dropped
    when its bounds hold, and makes the model infeasible otherwise), built without Pyomo's
    expression system. Row ``k`` of block ``model.<name>`` is ``constraint.index[k]`` among
    the rows kept, listed in ``model.<name>_rows``. A ``probe`` of the same model may be
    shared with :func:`linear_objective` so each variable is looked up once.
    """
    block = _matrix_block_class()
    probe = probe if probe is not None else LinearProbe(model)
    owners = probe.owners
    for c in constraints:
        rows = read_rows(c, probe)
        x = [owners[key] for key in rows.keys]
        model.add_component(c.name, block(rows.data, rows.indices, rows.indptr, rows.lower, rows.upper, x))
        # a plain attribute, not a component: which index each row of the block stands for
        setattr(model, f"{c.name}_rows", tuple(rows.kept))


def linear_objective(model: Any, body: Callable[[Any], Any], *, sense: str = "minimize",
                     probe: LinearProbe | None = None) -> Any:
    """A Pyomo ``Objective`` whose expression is ``body(v)`` read through the probe.

    ``body`` is the same function the evaluator calls on the submitted values, so the
    reference's objective and the evaluator's recomputation share one definition.
    """
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression

    probe = probe if probe is not None else LinearProbe(model)
    form = body(probe)
    if not isinstance(form, LinearForm):
        form = LinearForm([], [], float(form))
    terms = form.collect()
    expr = LinearExpression(
        constant=form.constant,
        linear_coefs=list(terms.values()),
        linear_vars=[probe.owners[k] for k in terms],
    )
    return pyo.Objective(expr=expr, sense=pyo.minimize if sense == "minimize" else pyo.maximize)
