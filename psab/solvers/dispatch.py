"""Dispatch formulations, written once for the reference LP/MILP and for the evaluator.

A :class:`Formulation` is a list of decision variables (with their bounds), a list of
:class:`~psab.solvers.algebra.LinearConstraint` rows and a linear cost table. ``build_<problem>``
functions compose it from ``add_<constraint family>`` functions shared by the dispatch
families — power balance, unit limits, grid exchange, storage dynamics, capability polygons,
reserves over the vertices of an uncertainty box — and :mod:`psab.solvers.commitment` adds
commitment logic and the hydro reservoir for unit commitment.

The same formulation then serves twice:

- :func:`solve_formulation` builds the Pyomo model (variables with their bounds,
  ``MatrixConstraint`` rows read from the bodies, the linear cost) and solves it with
  :func:`psab.solvers.core.solve`;
- :meth:`Formulation.check` evaluates every bound and row at the submitted numbers with the
  task's feasibility slack, and :meth:`Formulation.objective` / :meth:`Formulation.step_costs`
  recompute the cost from the same cost table — so the reference and the evaluator cannot
  disagree on a definition. Golden cases (hand-derived or enumerated independently in the
  tests) guard the definitions themselves.

Indices: a per-step quantity is indexed by the step ``t``; a per-unit one by ``(g, t)`` with
``g`` the unit's position in the case. Pyomo is imported only inside :func:`build_model`.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from psab.contract import Violation
from psab.jsonpointer import clone, get, put
from psab.solvers import algebra
from psab.solvers.algebra import LinearConstraint, equal_to
from psab.surrogates.dispatch import Polygon

Pointer = Callable[[Any], str]

# Feasibility slack names (task.tolerances.feasibility): one per physical unit.
POWER = "power_mw"
REACTIVE = "reactive_mvar"
ENERGY = "energy_mwh"
VOLUME = "volume_hm3"
STATE = "commitment"


@dataclass(frozen=True)
class Variable:
    """A decision variable family: ``shape`` ``(T,)`` or ``(G, T)``, bounds (a number, an
    array of the shape, or ``None`` for an open side), the answer field a breach of its bounds
    is reported at, and the words of that breach."""

    name: str
    shape: tuple[int, ...]
    lower: Any = 0.0
    upper: Any = None
    words: str = ""
    field: Pointer = lambda i: ""
    slack: str = POWER
    binary: bool = False

    def index(self) -> list[Any]:
        if len(self.shape) == 1:
            return list(range(self.shape[0]))
        return list(itertools.product(*(range(n) for n in self.shape)))

    def bound(self, which: Any, i: Any) -> float | None:
        if which is None:
            return None
        if np.ndim(which) == 0:
            return float(which)
        return float(np.asarray(which)[i])

    def bound_rows(self) -> LinearConstraint:
        """The bounds as rows, for the evaluator (the model sets them on the variable)."""
        name = self.name
        return LinearConstraint(
            name=f"{name}_bounds",
            words=self.words or f"{name} within its limits at {{0}}",
            index=self.index(),
            body=lambda v, i: getattr(v, name)[i],
            lower=None if self.lower is None else (lambda i: self.bound(self.lower, i)),
            upper=None if self.upper is None else (lambda i: self.bound(self.upper, i)),
            field=self.field,
            slack=self.slack,
        )


@dataclass
class Formulation:
    """Variables, rows and the linear cost of one dispatch problem over ``steps`` steps of
    ``dt_h`` hours.

    The cost is data: for each variable family an array of coefficients of its shape (cost of
    one unit of each element, Δt already applied), plus a constant. The Pyomo objective and the
    evaluator's recomputation both read this one table.
    """

    steps: int
    dt_h: float
    variables: dict[str, Variable] = field(default_factory=dict)
    constraints: list[LinearConstraint] = field(default_factory=list)
    costs: dict[str, np.ndarray] = field(default_factory=dict)
    fixed_cost: float = 0.0
    # the rows read into matrix form and the screens built from them, kept with the number of
    # variables and rows they were read from (a formulation extended later is read again)
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def add_variable(self, var: Variable) -> Variable:
        if var.name in self.variables:
            raise ValueError(f"variable {var.name!r} is declared twice")
        self.variables[var.name] = var
        return var

    def add_rows(self, *rows: LinearConstraint) -> None:
        self.constraints.extend(rows)

    def add_cost(self, name: str, coefficients: Any) -> None:
        """Add ``coefficients`` (a number or an array broadcast to the variable's shape) to the
        cost of every element of variable ``name``."""
        shape = self.variables[name].shape
        coef = np.broadcast_to(np.asarray(coefficients, float), shape)
        self.costs[name] = self.costs.get(name, np.zeros(shape)) + coef

    def step_costs(self, v: Any) -> np.ndarray:
        """The cost of every step at the values in ``v`` (arrays under the variables' names)."""
        total = np.zeros(self.steps)
        for name, coef in self.costs.items():
            x = np.asarray(getattr(v, name), float)
            part = coef * x
            total += part.sum(axis=tuple(range(part.ndim - 1))) if part.ndim > 1 else part
        return total

    def objective(self, v: Any) -> float:
        return float(self.step_costs(v).sum()) + self.fixed_cost

    def rows(self, *, bounds: bool = True) -> list[LinearConstraint]:
        out = [var.bound_rows() for var in self.variables.values()] if bounds else []
        return out + list(self.constraints)

    def check(self, values: Any, slack: Callable[[str], float], *, skip: Iterable[str] = ()) -> list[Violation]:
        """Every breached bound and row at the submitted ``values`` (rows named in ``skip``
        are left to the caller, e.g. a capability circle checked exactly instead of its
        polygon).

        An answer whose every row holds with room to spare in matrix form (one product,
        rounding allowed for: :meth:`certainly_holds`) has no breach; any other is checked
        row by row, which alone words the violations — so the result is that of the
        row-by-row check, only faster for the answers nearest to interest (feasible ones).
        """
        skipped = set(skip)
        # only where the rows are already in matrix form (a formulation kept by
        # formulation_for and solved or checked before): reading them costs a row-by-row pass
        if "matrix" in self._cache and self.certainly_holds(values, slack, skipped):
            return []
        return algebra.check(values, [r for r in self.rows() if r.name not in skipped], slack)

    def certainly_holds(self, values: Any, slack: Callable[[str], float], skip: Iterable[str] = ()) -> bool:
        """Whether every bound and row (but those in ``skip``) holds at ``values`` by more than
        the rounding allowance (:data:`ROUNDING_ALLOWANCE`), judged in matrix form; ``False``
        also when the values cannot be read as the formulation's columns."""
        try:
            screen = self.screen(values, slack, lambda p: None, skip=skip)
        except (ArithmeticError, ValueError, TypeError, IndexError, KeyError, AttributeError):
            return False
        return screen.holds()

    def screen(self, values: Any, slack: Callable[[str], float], column: Callable[[Any], int | None], *,
               skip: Iterable[str] = ()) -> LinearScreen:
        """:meth:`check` and :meth:`objective` at ``values`` as a :class:`LinearScreen`, for
        judging perturbations of ``values`` in matrix form (rows named in ``skip`` left out,
        as :meth:`check` leaves them; ``column(path)`` maps an answer field to its column —
        :meth:`column_of` helps). The matrices are built once per formulation, tolerance and
        ``skip``; only the answer's vector is read each time."""
        skipped = frozenset(skip)
        names = sorted({c.slack for c in self.constraints} | {v.slack for v in self.variables.values()})
        key = ("screen", skipped, tuple((name, float(slack(name))) for name in names))
        static = self._cached(key, lambda: self._static_screen(slack, skipped))
        mf = self.matrix()
        x = np.empty(mf.n)
        for var in self.variables.values():
            first, size = mf.offsets[var.name], int(np.prod(var.shape))
            given = np.asarray(getattr(values, var.name), dtype=float)
            if given.size != size:
                raise ValueError(f"{var.name}: {given.size} values for {size} elements")
            x[first:first + size] = given.reshape(-1)
        return dataclasses.replace(static, x=x, column=column)

    def with_costs(self, costs: dict[str, np.ndarray], fixed_cost: float | None = None) -> Formulation:
        """The same variables and rows with another cost table (a tie-breaking weight, a
        probe direction), sharing the rows' matrix form: only the cost is new."""
        g = Formulation(steps=self.steps, dt_h=self.dt_h, variables=self.variables, constraints=self.constraints,
                        costs=costs, fixed_cost=self.fixed_cost if fixed_cost is None else fixed_cost)
        if "matrix" in self._cache:
            g._cache["matrix"] = self._cache["matrix"]
        return g

    def _cached(self, key: Any, build: Callable[[], Any]) -> Any:
        stamp = (len(self.variables), len(self.constraints))
        hit = self._cache.get(key)
        if hit is None or hit[0] != stamp:
            hit = self._cache[key] = (stamp, build())
        return hit[1]

    def matrix(self, *, strict: bool = False) -> MatrixForm:
        """:func:`matrix_form` of this formulation, read once (``strict``: refuse a row without
        variables whose data break it, as the solver does)."""
        mf = self._cached("matrix", lambda: matrix_form(self, strict=strict))
        if strict:
            from psab.errors import InfeasibleTaskError

            for c, block in zip(self.constraints, mf.blocks, strict=True):
                for i, const, lo, hi in block.empty:
                    if (lo is not None and const < lo - 1e-9) or (hi is not None and const > hi + 1e-9):
                        raise InfeasibleTaskError(f"the task has no feasible answer: constraint {c.describe(i)!r} "
                                                  f"cannot hold: its data fix it at {const:.6g}")
        return mf

    def _static_screen(self, slack: Callable[[str], float], skipped: frozenset[str]) -> LinearScreen:
        import scipy.sparse as sp

        mf = self.matrix()
        data, row_of, col_of = [], [], []
        lower, upper, tol, constant = [], [], [], []
        empty: list[tuple[float, float, float, float]] = []
        m = 0
        for c, block, cols in zip(self.constraints, mf.blocks, mf.columns, strict=True):
            if c.name in skipped:
                continue
            room = float(slack(c.slack))
            for _, const, lo, hi in block.empty:
                empty.append((const, -np.inf if lo is None else lo, np.inf if hi is None else hi, room))
            k = len(block.lower)
            if not k:
                continue
            ptr = np.asarray(block.indptr, dtype=np.int64)
            row_of.append(m + np.repeat(np.arange(k), np.diff(ptr)))
            col_of.append(cols[np.asarray(block.indices, dtype=np.int64)])
            data.append(np.asarray(block.data, dtype=float))
            lower.append(np.array([-np.inf if v is None else v for v in block.lower], dtype=float))
            upper.append(np.array([np.inf if v is None else v for v in block.upper], dtype=float))
            tol.append(np.full(k, room))
            constant.append(np.asarray(block.constants, dtype=float))
            m += k
        n = mf.n
        A = sp.csr_matrix((np.concatenate(data) if data else np.zeros(0),
                           (np.concatenate(row_of) if row_of else np.zeros(0, np.int64),
                            np.concatenate(col_of) if col_of else np.zeros(0, np.int64))), shape=(m, n))
        col_lower, col_upper, col_tol = np.full(n, -np.inf), np.full(n, np.inf), np.zeros(n)
        cost = np.zeros(n)
        for var in self.variables.values():
            first, size = mf.offsets[var.name], int(np.prod(var.shape))
            part = slice(first, first + size)
            if f"{var.name}_bounds" not in skipped:
                col_lower[part] = [-np.inf if b is None else b for b in _flat(var.lower, size)]
                col_upper[part] = [np.inf if b is None else b for b in _flat(var.upper, size)]
                col_tol[part] = float(slack(var.slack))
            if var.name in self.costs:
                cost[part] = self.costs[var.name].ravel()
        none = np.zeros(0)
        return LinearScreen(A, np.concatenate(lower) if lower else none, np.concatenate(upper) if upper else none,
                            np.concatenate(tol) if tol else none, np.concatenate(constant) if constant else none,
                            col_lower, col_upper, col_tol, cost, float(self.fixed_cost), none, lambda p: None,
                            tuple(empty))

    def column_of(self, fields: dict[str, str], path: Callable[[Any], tuple[str, Any] | None]) -> Callable[[Any], int | None]:
        """``path -> column`` for :meth:`screen`: ``path(p)`` names the answer field and the
        variable's index (``None``: not a decision), ``fields`` maps answer fields to
        variables; the index is an int (per step) or a tuple (per unit and step)."""
        offsets: dict[str, int] = {}
        n = 0
        for var in self.variables.values():
            offsets[var.name] = n
            n += int(np.prod(var.shape))

        memo: dict[Any, int | None] = {}

        def column(p: Any) -> int | None:
            try:
                return memo[p]
            except KeyError:
                memo[p] = j = located(p)
                return j
            except TypeError:  # an unhashable path (a list): looked up every time
                return located(p)

        def located(p: Any) -> int | None:
            found = path(p)
            if found is None or found[0] not in fields:
                return None
            var = self.variables.get(fields[found[0]])
            if var is None:
                return None
            index = found[1]
            try:
                flat = int(np.ravel_multi_index(index if isinstance(index, tuple) else (index,), var.shape))
            except (ValueError, TypeError):
                return None
            return offsets[var.name] + flat

        return column



#: How many formulations :func:`formulation_for` keeps (a few tasks in flight per process).
FORMULATIONS_KEPT = 16
_FORMULATIONS: dict[Any, Formulation] = {}
_FORMULATIONS_LOCK = threading.Lock()


def formulation_for(task: Any, build: Callable[..., Formulation], *args: Any, **kwargs: Any) -> Formulation:
    """``build(task.public_inputs, *args, **kwargs)``, built once per task and kept for the next call.

    The reference solve, the evaluation of the reference, the acceptance screen and repeated
    evaluations of one task then read the rows into matrix form once (:meth:`Formulation.matrix`)
    instead of once per call. Keyed by the task's digest (a task is immutable: the reference
    cache keys on it too) and by ``build``; the oldest of :data:`FORMULATIONS_KEPT` is dropped.
    """
    key = (build.__module__, build.__qualname__, args, tuple(sorted(kwargs.items())), task.digest)
    with _FORMULATIONS_LOCK:  # a Dask worker may evaluate on several threads
        f = _FORMULATIONS.pop(key, None)
        if f is not None:
            _FORMULATIONS[key] = f  # most recent last
            return f
    f = build(task.public_inputs, *args, **kwargs)
    with _FORMULATIONS_LOCK:
        f = _FORMULATIONS.setdefault(key, f)
        while len(_FORMULATIONS) > FORMULATIONS_KEPT:
            _FORMULATIONS.pop(next(iter(_FORMULATIONS)), None)
    return f


# ------------------------------------------------------------------ solving


@dataclass(frozen=True)
class Solved:
    """A proven optimum: the value of every variable (arrays of their shapes) and the cost."""

    values: dict[str, np.ndarray]
    objective: float
    n_variables: int
    n_constraints: int
    n_integer: int


def build_model(f: Formulation) -> Any:
    """The Pyomo model of ``f``: one ``Var`` per variable family with its bounds, the rows as
    ``MatrixConstraint`` blocks read from the same bodies the evaluator checks, and the cost."""
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression

    m = pyo.ConcreteModel()
    ranges: dict[int, Any] = {}

    def index_set(n: int) -> Any:
        # one virtual RangeSet per length, shared by every variable indexed over it (cheaper
        # to build than a Set per variable)
        if n not in ranges:
            ranges[n] = pyo.RangeSet(0, n - 1)
            m.add_component(f"range_{n}", ranges[n])
        return ranges[n]

    for var in f.variables.values():
        comp = pyo.Var(*(index_set(n) for n in var.shape), domain=pyo.Binary if var.binary else pyo.Reals)
        m.add_component(var.name, comp)
        # the data come in index order (the product of the ranges), like the bounds raveled;
        # the bounds are plain floats or None, which VarData's setter (_process_bound, Pyomo
        # 6.10) stores unchanged — set directly, at a sixth of the setter's cost
        n = int(np.prod(var.shape))
        for data, a, b in zip(comp.values(), _flat(var.lower, n), _flat(var.upper, n), strict=True):
            data._lb = a
            data._ub = b
    algebra.add_constraints(m, f.constraints)
    coefs: list[float] = []
    variables: list[Any] = []
    for name, coef in f.costs.items():
        for data, c in zip(getattr(m, name).values(), coef.ravel().tolist(), strict=True):
            if c != 0.0:
                coefs.append(c)
                variables.append(data)
    m.cost = pyo.Objective(expr=LinearExpression(constant=f.fixed_cost, linear_coefs=coefs, linear_vars=variables),
                           sense=pyo.minimize)
    return m


def _flat(bound: Any, n: int) -> list[float | None]:
    """A bound (``None``, a number or an array) as ``n`` values in index order."""
    if bound is None:
        return [None] * n
    if np.ndim(bound) == 0:
        return [float(bound)] * n
    return np.asarray(bound, float).ravel().tolist()


def read_values(m: Any, f: Formulation) -> dict[str, np.ndarray]:
    """The solved value of every variable family, as arrays of their shapes."""
    out = {}
    for var in f.variables.values():
        comp = getattr(m, var.name)
        out[var.name] = np.fromiter((d.value for d in comp.values()), dtype=float, count=int(np.prod(var.shape))).reshape(var.shape)
    return out


class _Column:
    """One element of a variable family, as the probe of :meth:`Formulation.matrix` reads it."""

    __slots__ = ("j",)

    def __init__(self, j: int) -> None:
        self.j = j


class _Columns:
    """A variable family without Pyomo: its index → :class:`_Column` (what
    :class:`~psab.solvers.algebra.LinearProbe` needs of an indexed component)."""

    def __init__(self, data: dict[Any, _Column]) -> None:
        self._data = data

    def is_indexed(self) -> bool:
        return True

    def __getitem__(self, index: Any) -> _Column:
        return self._data[index]


@dataclass
class MatrixForm:
    """The rows of a :class:`Formulation` read into compressed-row blocks, one per constraint
    family, by the same probe :func:`psab.solvers.algebra.add_constraints` uses — so the arrays
    are exactly those of the Pyomo model :func:`build_model` gives.

    Columns are numbered variable by variable in :attr:`Formulation.variables` order, each
    family's elements in index order (``offsets[name]`` is its first column); ``columns[b]``
    maps block ``b``'s local columns to these numbers.
    """

    offsets: dict[str, int]
    n: int
    blocks: list[algebra.RowBlock]
    columns: list[np.ndarray]


def matrix_form(f: Formulation, *, strict: bool = True) -> MatrixForm:
    """:class:`MatrixForm` of ``f`` (``strict``: as the solver reads it, refusing a row without
    variables whose data break it; otherwise as the evaluator reads it, listing such rows)."""
    offsets: dict[str, int] = {}
    namespace: dict[str, _Columns] = {}
    n = 0
    for var in f.variables.values():
        offsets[var.name] = n
        namespace[var.name] = _Columns({i: _Column(n + k) for k, i in enumerate(var.index())})
        n += int(np.prod(var.shape))
    probe = algebra.LinearProbe(algebra.values(**namespace))
    blocks = [algebra.read_rows(c, probe, strict=strict) for c in f.constraints]
    owners = probe.owners
    columns = [np.fromiter((owners[key].j for key in b.keys), dtype=np.int64, count=len(b.keys)) for b in blocks]
    return MatrixForm(offsets, n, blocks, columns)


#: Rounding allowance per term when a row is judged in matrix form instead of by its body, in
#: units of the row's magnitude (Σ|a·x| plus its constant and bounds). The two computations
#: take the same products and sums in another order, which moves a sum of n terms by at most
#: about n·ε of that magnitude (ε = 2.2e-16, Higham, *Accuracy and Stability of Numerical
#: Algorithms*, 2nd ed., 2002, §4.2); 16·ε per term, and two terms more for the constant, keeps
#: a wide margin and still stays orders below the tightest feasibility slack (1e-9 on
#: commitment states), so it only ever sends a doubtful answer to the row-by-row check.
ROUNDING_ALLOWANCE = 16 * float(np.finfo(float).eps)


def _allowance(terms: np.ndarray | float) -> np.ndarray | float:
    return ROUNDING_ALLOWANCE * (np.asarray(terms, dtype=float) + 2.0)


@dataclass
class LinearScreen:
    """What :meth:`Formulation.check` and :meth:`Formulation.objective` compute, in matrix form,
    for judging many perturbations of one answer at once (held-out acceptance, check 6).

    ``A x`` within ``[lower − tol, upper + tol]`` row by row and ``x`` within its bounds is the
    evaluator's feasibility, ``cost·x + cost_constant`` its objective; ``x`` is the answer's
    vector (columns numbered as in :class:`MatrixForm`) and ``column(path)`` the column of an
    answer field (``None`` when the field is not a decision of the formulation).

    :meth:`may_win` is one-sided on purpose: it is ``False`` only for a neighbour that is
    certainly infeasible or certainly not better, rounding included; acceptance evaluates the
    others in full, so the verdict on a draw is the full evaluator's alone.
    """

    A: Any
    lower: np.ndarray
    upper: np.ndarray
    tol: np.ndarray
    constant: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    col_tol: np.ndarray
    cost: np.ndarray
    cost_constant: float
    x: np.ndarray
    column: Callable[[Any], int | None]
    #: rows without variables: (constant, lower, upper, slack) — they hold or fail for every answer
    empty: tuple[tuple[float, float, float, float], ...] = ()

    def _bounds(self) -> tuple[np.ndarray, ...]:
        def open_nan(bound: np.ndarray, side: float) -> np.ndarray:
            # a NaN bound holds for every value in the row-by-row check: treat it as open
            return np.where(np.isnan(bound), side, bound)

        lo, hi = open_nan(self.lower, -np.inf), open_nan(self.upper, np.inf)
        clo, chi = open_nan(self.col_lower, -np.inf), open_nan(self.col_upper, np.inf)
        row_mag = (np.abs(self.constant) + np.where(np.isfinite(lo), np.abs(lo), 0.0)
                   + np.where(np.isfinite(hi), np.abs(hi), 0.0))
        col_mag = np.where(np.isfinite(clo), np.abs(clo), 0.0) + np.where(np.isfinite(chi), np.abs(chi), 0.0)
        return lo, hi, clo, chi, row_mag, col_mag

    def holds(self) -> bool:
        """Whether every row and bound holds at ``x`` with more room than rounding could take
        away: then the row-by-row check finds no breach. (``False`` says nothing: the caller
        checks row by row.)"""
        lo, hi, clo, chi, row_mag, col_mag = self._bounds()
        x = self.x
        R = self.A @ x
        err = _allowance(np.diff(self.A.indptr)) * (1.0 + abs(self.A) @ np.abs(x) + row_mag)
        # NaN fails every comparison, as a non-finite row fails the row-by-row check
        if not np.all((R - err >= lo - self.tol) & (R + err <= hi + self.tol)):
            return False
        # a bound compares the submitted number itself, with the same arithmetic as the
        # row-by-row check (lower − slack): no rounding to allow for
        if not np.all((x >= clo - self.col_tol) & (x <= chi + self.col_tol)):
            return False
        for const, lo_, hi_, room in self.empty:
            err_ = float(_allowance(1)) * (1.0 + abs(const) + (abs(lo_) if math.isfinite(lo_) else 0.0)
                                           + (abs(hi_) if math.isfinite(hi_) else 0.0))
            if not (const - err_ >= lo_ - room and const + err_ <= hi_ + room):
                return False
        return True

    def may_win(self, moves: Sequence[Sequence[tuple[Any, float]] | None], beats: Callable[[float], bool],
                sense: str = "minimize", chunk: int = 512) -> np.ndarray:
        """For each neighbour (``moves[k]``: ``(path, delta)`` pairs added to the answer),
        whether it may be feasible with an objective that ``beats`` the reference.

        ``beats(objective)`` is the scoring rule's verdict; it is asked at the objective moved
        by the rounding allowance towards the better side, so rounding can only let a
        neighbour through. A neighbour moving a field that is not a column is let through.
        """
        import scipy.sparse as sp

        K = len(moves)
        out = np.ones(K, dtype=bool)
        # a neighbour moving a field that is not a column stays True
        mapped = np.zeros(K, dtype=bool)
        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        for k, move in enumerate(moves):
            if move is None:  # not a sum of deltas: left to the full evaluation
                continue
            js = [self.column(path) for path, _ in move]
            if any(j is None for j in js):
                continue
            mapped[k] = True
            rows.extend(js)  # type: ignore[arg-type]
            cols.extend([k] * len(js))
            vals.extend(float(d) for _, d in move)
        n = len(self.x)
        D = sp.csc_matrix((vals, (rows, cols)), shape=(n, K))
        absA = abs(self.A)
        lo, hi, clo, chi, row_mag, col_mag = self._bounds()
        row_mag, col_mag = row_mag[:, None], col_mag[:, None]
        row_allowance = _allowance(np.diff(self.A.indptr))[:, None]
        # a neighbour's number is the answer's plus a delta (two deltas at one place may be
        # added in another order): one rounding per column, two terms' worth of allowance
        col_allowance = float(_allowance(2))
        cost_allowance = float(_allowance(np.count_nonzero(self.cost)))
        for first in range(0, K, chunk):
            last = min(K, first + chunk)
            X = self.x[:, None] + D[:, first:last].toarray()
            R = self.A @ X
            room = self.tol[:, None] + row_allowance * (1.0 + absA @ np.abs(X) + row_mag)
            # a NaN anywhere fails the comparisons, as a non-finite row fails the exact check
            ok = np.all((R >= lo[:, None] - room) & (R <= hi[:, None] + room), axis=0)
            col_room = self.col_tol[:, None] + col_allowance * (1.0 + np.abs(X) + col_mag)
            ok &= np.all((X >= clo[:, None] - col_room) & (X <= chi[:, None] + col_room), axis=0)
            objective = self.cost @ X + self.cost_constant
            err = cost_allowance * (1.0 + np.abs(self.cost) @ np.abs(X) + abs(self.cost_constant))
            better = objective - err if sense == "minimize" else objective + err
            for k in np.flatnonzero(ok):
                ok[k] = beats(float(better[k]))
            out[first:last] = np.where(mapped[first:last], ok, True)
        return out


def _bound_value(value: float | None, domain: int | None, unbounded: float, pick: Callable[..., Any],
                 var: Variable, i: Any, side: str) -> float | None:
    """A variable bound as Pyomo 6 resolves it (``VarData._resolve_bound_value``): an open side
    takes the domain's bound, an infinite one on its own side is open, any other non-finite
    value is refused, and a binary's bound is intersected with [0, 1]."""
    if value is not None and (math.isinf(value) or value != value):
        if value != unbounded:
            name = ",".join(map(str, i)) if isinstance(i, tuple) else str(i)
            raise ValueError(f"Var '{var.name}[{name}]' created with an invalid non-finite {side} bound ({value}).")
        value = None
    if domain is not None:
        return domain if value is None else pick(value, domain)
    return value


def solve_formulation(f: Formulation, *, time_limit_s: float = 60.0) -> Solved:
    """Solve ``f`` to proven optimality (:class:`~psab.errors.SolverError` otherwise).

    The LP/MILP goes to HiGHS as arrays, read from the rows by :func:`matrix_form` — the
    problem :func:`build_model` would give HiGHS through Pyomo and
    :func:`psab.solvers.core.solve`, column for column and row for row (columns in order of
    first appearance in the rows, then in the cost; rows block by block), so the optimum is
    the same to the last bit; building the Pyomo model was most of a reference solve's time.
    """
    import highspy

    from psab.solvers.core import Rows, run_form

    inf = highspy.kHighsInf
    mf = f.matrix(strict=True)
    position = np.full(mf.n, -1, dtype=np.int64)
    order: list[int] = []

    def place(cols: Any) -> np.ndarray:
        for j in cols.tolist():
            if position[j] < 0:
                position[j] = len(order)
                order.append(j)
        return position[cols]

    rows = Rows()
    for block, cols in zip(mf.blocks, mf.columns, strict=True):
        local = place(cols)
        rows.add_block(block.indptr, local[np.asarray(block.indices, dtype=np.int64)],
                       np.asarray(block.data, dtype=float),
                       np.array([-inf if v is None else v for v in block.lower], dtype=float),
                       np.array([inf if v is None else v for v in block.upper], dtype=float))
    obj_cols: list[int] = []
    obj_coefs: list[float] = []
    for name, coef in f.costs.items():
        first = mf.offsets[name]
        for k, c in enumerate(coef.ravel().tolist()):
            if c != 0.0:
                obj_cols.append(first + k)
                obj_coefs.append(c)
    c_index = place(np.asarray(obj_cols, dtype=np.int64))
    cost = np.zeros(len(order))
    np.add.at(cost, c_index, np.asarray(obj_coefs, dtype=float))

    # column bounds and integrality in solver order, as Pyomo's variables would give them
    lower_all, upper_all = np.empty(mf.n), np.empty(mf.n)
    binary_all = np.zeros(mf.n, dtype=bool)
    refused = np.zeros(mf.n, dtype=bool)
    for var in f.variables.values():
        size = int(np.prod(var.shape))
        part = slice(mf.offsets[var.name], mf.offsets[var.name] + size)
        lo = np.array([-math.inf if b is None else b for b in _flat(var.lower, size)], dtype=float)
        hi = np.array([math.inf if b is None else b for b in _flat(var.upper, size)], dtype=float)
        refused[part] = np.isnan(lo) | np.isnan(hi) | (lo == math.inf) | (hi == -math.inf)
        if var.binary:
            lo, hi = np.maximum(lo, 0.0), np.minimum(hi, 1.0)
            binary_all[part] = True
        lower_all[part], upper_all[part] = lo, hi
    solver_order = np.asarray(order, dtype=np.int64)
    if refused[solver_order].any():
        # Pyomo refuses the first such bound in column order: the same error, the same words
        j = int(solver_order[np.flatnonzero(refused[solver_order])[0]])
        var = next(v for v in reversed(f.variables.values()) if mf.offsets[v.name] <= j)
        k = j - mf.offsets[var.name]
        size = int(np.prod(var.shape))
        index = var.index()[k]
        _bound_value(_flat(var.lower, size)[k], 0 if var.binary else None, -math.inf, max, var, index, "lower")
        _bound_value(_flat(var.upper, size)[k], 1 if var.binary else None, math.inf, min, var, index, "upper")
    col_lower = np.where(np.isinf(lower_all[solver_order]), -inf, lower_all[solver_order])
    col_upper = np.where(np.isinf(upper_all[solver_order]), inf, upper_all[solver_order])
    integer = binary_all[solver_order]
    form = rows.form(columns=order, col_lower=col_lower, col_upper=col_upper, integer=integer, c=cost,
                     offset=float(f.fixed_cost), maximize=False)
    x, result = run_form(form, time_limit_s=time_limit_s)
    # a variable in no row and no cost (a binary of an hour it cannot act in) is not given to
    # HiGHS; the Pyomo path left it without a value, which it read back as NaN
    full = np.full(mf.n, np.nan)
    full[np.asarray(order, dtype=np.int64)] = x
    values_out = {var.name: full[mf.offsets[var.name]:mf.offsets[var.name] + int(np.prod(var.shape))].reshape(var.shape).copy()
                  for var in f.variables.values()}
    return Solved(values_out, result.objective, result.n_variables, result.n_constraints, result.n_integer)


# ------------------------------------------------------------------ shared data


@dataclass(frozen=True)
class Storage:
    """A battery: power limits, usable energy window, round-trip efficiencies (charge and
    discharge sides), initial and required final energy, and a cycling cost per MWh
    discharged (wear)."""

    p_charge_max_mw: float
    p_discharge_max_mw: float
    soc_min_mwh: float
    soc_max_mwh: float
    soc_initial_mwh: float
    soc_terminal_min_mwh: float
    eta_charge: float
    eta_discharge: float
    cycle_cost_per_mwh: float = 0.0
    #: "discharge" (the cycling cost on discharged energy: psab's convention) or "throughput"
    #: (on charged plus discharged energy — only to compute the other reading of that convention).
    cycle_cost_on: str = "discharge"

    @classmethod
    def from_inputs(cls, d: dict[str, Any], *, soc_initial_mwh: float | None = None) -> Storage:
        return cls(
            p_charge_max_mw=float(d["p_charge_max_mw"]),
            p_discharge_max_mw=float(d["p_discharge_max_mw"]),
            soc_min_mwh=float(d["soc_min_mwh"]),
            soc_max_mwh=float(d["soc_max_mwh"]),
            soc_initial_mwh=float(d["soc_initial_mwh"] if soc_initial_mwh is None else soc_initial_mwh),
            soc_terminal_min_mwh=float(d["soc_terminal_min_mwh"]),
            eta_charge=float(d["eta_charge"]),
            eta_discharge=float(d["eta_discharge"]),
            cycle_cost_per_mwh=float(d.get("cycle_cost_per_mwh", 0.0)),
        )


@dataclass(frozen=True)
class Tariff:
    """Exchange with the upstream grid: hourly import and export prices and PCC limits."""

    import_price: np.ndarray
    export_price: np.ndarray
    import_limit_mw: float
    export_limit_mw: float

    @classmethod
    def from_inputs(cls, d: dict[str, Any]) -> Tariff:
        return cls(
            import_price=np.asarray(d["import_price_per_mwh"], float),
            export_price=np.asarray(d["export_price_per_mwh"], float),
            import_limit_mw=float(d["import_limit_mw"]),
            export_limit_mw=float(d["export_limit_mw"]),
        )


def step_minutes_to_hours(step_minutes: float) -> float:
    return float(step_minutes) / 60.0


# ------------------------------------------------------------------ constraint families


def add_series(f: Formulation, name: str, *, lower: Any = 0.0, upper: Any = None, cost_per_mwh: Any = None,
               words: str, field: Pointer, slack: str = POWER) -> Variable:
    """A per-step power (or flow) with bounds and, optionally, an energy cost
    ``c_t · x_t · Δt`` (``cost_per_mwh`` a number or a per-step array; negative = revenue)."""
    var = f.add_variable(Variable(name, (f.steps,), lower, upper, words, field, slack))
    if cost_per_mwh is not None:
        f.add_cost(name, np.asarray(cost_per_mwh, float) * f.dt_h)
    return var


def add_unit_series(f: Formulation, name: str, units: int, *, lower: Any = 0.0, upper: Any = None,
                    cost_per_mwh: Sequence[float] | None = None, words: str, field: Pointer,
                    slack: str = POWER, binary: bool = False) -> Variable:
    """A per-unit, per-step quantity ``x[g, t]`` with bounds (number or ``(G, T)`` array) and,
    optionally, a per-unit energy cost ``c_g · x[g, t] · Δt``."""
    var = f.add_variable(Variable(name, (units, f.steps), lower, upper, words, field, slack, binary))
    if cost_per_mwh is not None:
        f.add_cost(name, np.asarray(cost_per_mwh, float)[:, None] * f.dt_h)
    return var


@dataclass(frozen=True)
class Injection:
    """One term of a balance: variable ``name`` with ``sign`` (+1 injects, −1 withdraws),
    summed over its units when it is per-unit."""

    name: str
    sign: float = 1.0
    units: int = 0  # 0: a per-step series; G: a (G, T) family summed over g


def _injected(v: Any, t: int, terms: Sequence[Injection]) -> Any:
    total: Any = 0.0
    for term in terms:
        x = getattr(v, term.name)
        if term.units:
            part = sum(x[g, t] for g in range(term.units))
        else:
            part = x[t]
        total = total + (part if term.sign == 1.0 else term.sign * part)
    return total


def add_power_balance(f: Formulation, terms: Sequence[Injection], demand_mw: Any, *, name: str = "power_balance",
                      words: str = "active power balance in step {0}: injections must equal the load",
                      field: Pointer, slack: str = POWER) -> None:
    """``Σ injections_t − Σ withdrawals_t = demand_t`` every step (Kirchhoff's current law at
    the one node of a microgrid without internal constraints)."""
    demand = np.broadcast_to(np.asarray(demand_mw, float), (f.steps,))
    f.add_rows(LinearConstraint(
        name=name, words=words, index=list(range(f.steps)),
        body=lambda v, t: _injected(v, t, terms),
        **equal_to(lambda t: float(demand[t])), field=field, slack=slack,
    ))


def add_storage(f: Formulation, s: Storage, *, charge: str, discharge: str, soc: str, field: Callable[[str, int], str],
                label: str = "battery") -> None:
    """A battery's charge and discharge powers, its stored energy at the end of each step,
    the energy recursion ``E_t = E_{t−1} + η_c·P^ch_t·Δt − P^dis_t·Δt/η_d`` (see
    :func:`psab.surrogates.dispatch.soc_trajectory`), the energy window, the final energy
    requirement and the cycling cost on discharged energy."""
    dt = f.dt_h
    if s.cycle_cost_on not in ("discharge", "throughput"):
        raise ValueError(f"cycle_cost_on must be 'discharge' or 'throughput', not {s.cycle_cost_on!r}")
    add_series(f, charge, upper=s.p_charge_max_mw, words=f"{label} charging power within [0, {s.p_charge_max_mw:g}] MW in step {{0}}",
               cost_per_mwh=(s.cycle_cost_per_mwh or None) if s.cycle_cost_on == "throughput" else None,
               field=lambda t: field(charge, t))
    add_series(f, discharge, upper=s.p_discharge_max_mw, cost_per_mwh=s.cycle_cost_per_mwh or None,
               words=f"{label} discharging power within [0, {s.p_discharge_max_mw:g}] MW in step {{0}}",
               field=lambda t: field(discharge, t))
    add_series(f, soc, lower=s.soc_min_mwh, upper=s.soc_max_mwh,
               words=f"{label} stored energy within [{s.soc_min_mwh:g}, {s.soc_max_mwh:g}] MWh at the end of step {{0}}",
               field=lambda t: field(soc, t), slack=ENERGY)
    e0, eta_c, inv_eta_d = s.soc_initial_mwh, s.eta_charge, 1.0 / s.eta_discharge

    def recursion(v: Any, t: int) -> Any:
        before = getattr(v, soc)[t - 1] if t else e0
        return getattr(v, soc)[t] - before - eta_c * dt * getattr(v, charge)[t] + inv_eta_d * dt * getattr(v, discharge)[t]

    f.add_rows(
        LinearConstraint(
            name=f"{soc}_dynamics",
            words=f"{label} energy recursion in step {{0}}: E_t = E_(t-1) + η_c·P_ch·Δt − P_dis·Δt/η_d",
            index=list(range(f.steps)), body=recursion, **equal_to(0.0),
            field=lambda t: field(soc, t), slack=ENERGY,
            solves_for=lambda v, t: getattr(v, soc)[t], unit="MWh",
        ),
        LinearConstraint(
            name=f"{soc}_terminal",
            words=f"{label} stored energy at the end of the horizon at least {s.soc_terminal_min_mwh:g} MWh",
            index=[f.steps - 1], body=lambda v, t: getattr(v, soc)[t], lower=s.soc_terminal_min_mwh,
            field=lambda t: field(soc, t), slack=ENERGY,
        ),
    )


def add_grid_exchange(f: Formulation, tariff: Tariff, *, imports: str, exports: str, field: Callable[[str, int], str],
                      import_limit_mw: float | None = None, export_limit_mw: float | None = None) -> None:
    """Import and export at the point of common coupling within their limits, bought at the
    import price and sold at the export price every step (limits may be tightened, e.g. by a
    planning headroom)."""
    imp_lim = tariff.import_limit_mw if import_limit_mw is None else import_limit_mw
    exp_lim = tariff.export_limit_mw if export_limit_mw is None else export_limit_mw
    add_series(f, imports, upper=imp_lim, cost_per_mwh=tariff.import_price[: f.steps],
               words=f"grid import within [0, {imp_lim:g}] MW in step {{0}}", field=lambda t: field(imports, t))
    add_series(f, exports, upper=exp_lim, cost_per_mwh=-tariff.export_price[: f.steps],
               words=f"grid export within [0, {exp_lim:g}] MW in step {{0}}", field=lambda t: field(exports, t))


def add_capability_polygon(f: Formulation, polygon: Polygon, s_max_mva: float, *, p_terms: Sequence[tuple[str, float]],
                           q: str, unit: int | None, name: str, words: str, field: Pointer) -> None:
    """The inner polygon of a capability circle ``P² + Q² ≤ S²``: for every side ``k`` and
    step, ``cos θ_k·P + sin θ_k·Q ≤ cos(π/n)·S`` with ``P = Σ sign·p_terms`` (so a battery's
    net output ``P_dis − P_ch`` is one point of its inverter's circle). Linear, hence usable by
    the LP; every point it admits is inside the circle."""
    cos, sin, rhs = polygon.cos, polygon.sin, polygon.apothem * s_max_mva

    def at(v: Any, nm: str, t: int) -> Any:
        x = getattr(v, nm)
        return x[unit, t] if unit is not None else x[t]

    def body(v: Any, i: tuple[int, int]) -> Any:
        k, t = i
        p = sum(sign * at(v, nm, t) for nm, sign in p_terms)
        return cos[k] * p + sin[k] * at(v, q, t)

    f.add_rows(LinearConstraint(
        name=name, words=words, index=[(k, t) for t in range(f.steps) for k in range(len(cos))],
        body=body, upper=rhs, field=lambda i: field(i[1]), slack=POWER,
    ))


def add_ramp_limits(f: Formulation, name: str, ramp_mw: float, p_initial_mw: float, *,
                    up: Callable[[Any, int], Any], down: Callable[[Any, int], Any], label: str, field: Pointer,
                    ends: str = "any_point") -> None:
    """Ramping between consecutive steps for the whole range a unit may be asked to cover:
    from the lowest point of step t−1 to the highest of step t, and back, within ``ramp_mw``
    (``up(v, t)``/``down(v, t)`` are the highest/lowest output of step t; before step 0 the
    unit sits at ``p_initial_mw``) — any point of one range to any point of the next.

    ``ends="matching"`` is the weaker reading kept only to compute what an engineer who read it
    so would answer (``other_readings``): top to top and bottom to bottom within ``ramp_mw``."""
    if ends == "matching":
        def prev(side: Callable[[Any, int], Any], v: Any, t: int) -> Any:
            return side(v, t - 1) if t else p_initial_mw

        idx = list(range(f.steps))
        f.add_rows(*[
            LinearConstraint(name=f"{name}_{tag}", words=f"{label}: {tag} from step {{0}}−1 to {{0}} within {ramp_mw:g} MW",
                             index=idx, body=body, upper=ramp_mw, field=field, slack=POWER)
            for tag, body in (("top_up", lambda v, t: up(v, t) - prev(up, v, t)),
                              ("top_down", lambda v, t: prev(up, v, t) - up(v, t)),
                              ("bottom_up", lambda v, t: down(v, t) - prev(down, v, t)),
                              ("bottom_down", lambda v, t: prev(down, v, t) - down(v, t)))])
        return
    if ends != "any_point":
        raise ValueError(f"ends must be 'any_point' or 'matching', not {ends!r}")

    def rise(v: Any, t: int) -> Any:
        return up(v, t) - (down(v, t - 1) if t else p_initial_mw)

    def fall(v: Any, t: int) -> Any:
        return (up(v, t - 1) if t else p_initial_mw) - down(v, t)

    idx = list(range(f.steps))
    f.add_rows(
        LinearConstraint(name=f"{name}_up", words=f"{label}: ramp-up from step {{0}}−1 to {{0}} within {ramp_mw:g} MW",
                         index=idx, body=rise, upper=ramp_mw, field=field, slack=POWER),
        LinearConstraint(name=f"{name}_down", words=f"{label}: ramp-down from step {{0}}−1 to {{0}} within {ramp_mw:g} MW",
                         index=idx, body=fall, upper=ramp_mw, field=field, slack=POWER),
    )


# ------------------------------------------------------------------ problems


def schedule_pointer(step_field: str) -> Callable[[str, int], str]:
    """``(field, t) -> /schedule/t/<field>`` for answers given as a list of step objects."""
    return lambda name, t: f"/{step_field}/{t}/{name}"


@dataclass(frozen=True)
class MicrogridData:
    """A grid-connected microgrid over ``steps`` steps: load, PV (forecast or fixed), tariff,
    one dispatchable diesel unit and one battery."""

    dt_h: float
    load_mw: np.ndarray
    pv_mw: np.ndarray
    tariff: Tariff
    diesel_p_max_mw: float
    diesel_cost_per_mwh: float
    storage: Storage

    @classmethod
    def from_inputs(cls, inputs: dict[str, Any], load_mw: Any, pv_mw: Any, *, soc_initial_mwh: float | None = None,
                    first_step: int = 0) -> MicrogridData:
        """The microgrid of a case's ``grid``/``diesel``/``battery`` inputs over the given load
        and PV series, starting at step ``first_step`` of the tariff (for a forecast window)."""
        tariff = Tariff.from_inputs(inputs["grid"])
        T = len(load_mw)
        tariff = Tariff(tariff.import_price[first_step:first_step + T], tariff.export_price[first_step:first_step + T],
                        tariff.import_limit_mw, tariff.export_limit_mw)
        return cls(
            dt_h=step_minutes_to_hours(inputs["step_minutes"]),
            load_mw=np.asarray(load_mw, float),
            pv_mw=np.asarray(pv_mw, float),
            tariff=tariff,
            diesel_p_max_mw=float(inputs["diesel"]["p_max_mw"]),
            diesel_cost_per_mwh=float(inputs["diesel"]["cost_per_mwh"]),
            storage=Storage.from_inputs(inputs["battery"], soc_initial_mwh=soc_initial_mwh),
        )


#: answer field → variable name of the grid-connected microgrid schedule
MICROGRID_FIELDS = {
    "p_diesel_mw": "p_diesel",
    "p_import_mw": "p_import",
    "p_export_mw": "p_export",
    "p_charge_mw": "p_charge",
    "p_discharge_mw": "p_discharge",
    "p_pv_mw": "p_pv",
    "soc_mwh": "soc",
}


def build_microgrid_dispatch(d: MicrogridData, *, pv_curtailable: bool = True, headroom_mw: float = 0.0) -> Formulation:
    """Economic dispatch of a grid-connected microgrid (LP).

    Decisions per step: diesel output, grid import and export, battery charge and discharge,
    PV actually used (at most the available PV when curtailable, exactly it otherwise), and the
    stored energy. Rows: the power balance, the storage recursion and final energy; bounds:
    unit, PCC (tightened by ``headroom_mw`` for planning under forecast error) and battery
    limits. Cost: diesel fuel, imports at the import price, exports at the export price
    (revenue), battery cycling.
    """
    T = len(d.load_mw)
    f = Formulation(steps=T, dt_h=d.dt_h)
    field = schedule_pointer("schedule")
    names = {v: k for k, v in MICROGRID_FIELDS.items()}

    def ptr(name: str, t: int) -> str:
        return field(names[name], t)

    add_series(f, "p_diesel", upper=d.diesel_p_max_mw, cost_per_mwh=d.diesel_cost_per_mwh,
               words=f"diesel output within [0, {d.diesel_p_max_mw:g}] MW in step {{0}}", field=lambda t: ptr("p_diesel", t))
    add_grid_exchange(f, d.tariff, imports="p_import", exports="p_export", field=ptr,
                      import_limit_mw=d.tariff.import_limit_mw - headroom_mw,
                      export_limit_mw=d.tariff.export_limit_mw - headroom_mw)
    add_storage(f, d.storage, charge="p_charge", discharge="p_discharge", soc="soc", field=ptr)
    terms = [Injection("p_diesel"), Injection("p_import"), Injection("p_export", -1.0),
             Injection("p_discharge"), Injection("p_charge", -1.0)]
    if pv_curtailable:
        add_series(f, "p_pv", upper=d.pv_mw, words="PV output used within [0, available PV] in step {0}",
                   field=lambda t: ptr("p_pv", t))
        terms.append(Injection("p_pv"))
        demand = d.load_mw
    else:
        demand = d.load_mw - d.pv_mw
    add_power_balance(f, terms, demand, field=lambda t: f"/schedule/{t}")
    return f


@dataclass(frozen=True)
class IslandUnit:
    """A dispatchable source of an islanded microgrid: active-power window per step, reactive
    limits, apparent-power rating and energy cost."""

    id: str
    p_min_mw: np.ndarray
    p_max_mw: np.ndarray
    q_min_mvar: float
    q_max_mvar: float
    s_max_mva: float
    cost_per_mwh: float


@dataclass(frozen=True)
class IslandData:
    dt_h: float
    load_p_mw: np.ndarray
    load_q_mvar: np.ndarray
    units: tuple[IslandUnit, ...]
    storage: Storage
    storage_id: str
    storage_s_max_mva: float
    storage_q_max_mvar: float


def build_islanded_pq_dispatch(d: IslandData, polygon: Polygon | None) -> Formulation:
    """Active and reactive dispatch of an islanded microgrid (LP).

    Sources ``g`` (gensets, PV inverters) give ``p[g, t]`` and ``q[g, t]``; the battery gives
    ``P_dis − P_ch`` and ``q_bat``. Rows: P and Q balance every step, storage recursion and
    final energy, and — when ``polygon`` is given — the inscribed polygon of every unit's
    capability circle. The evaluator builds the same formulation without the polygon and
    checks the exact circle ``P² + Q² ≤ S²`` instead.
    """
    T = len(d.load_p_mw)
    G = len(d.units)
    f = Formulation(steps=T, dt_h=d.dt_h)
    ids = [u.id for u in d.units]
    p_lo = np.array([np.broadcast_to(u.p_min_mw, (T,)) for u in d.units])
    p_hi = np.array([np.broadcast_to(u.p_max_mw, (T,)) for u in d.units])
    q_lo = np.array([[u.q_min_mvar] * T for u in d.units])
    q_hi = np.array([[u.q_max_mvar] * T for u in d.units])
    add_unit_series(f, "p", G, lower=p_lo, upper=p_hi, cost_per_mwh=[u.cost_per_mwh for u in d.units],
                    words="active power within the unit's limits in step {1}",
                    field=lambda i: f"/schedule/{i[1]}/{ids[i[0]]}/p_mw")
    add_unit_series(f, "q", G, lower=q_lo, upper=q_hi, words="reactive power within the unit's limits in step {1}",
                    field=lambda i: f"/schedule/{i[1]}/{ids[i[0]]}/q_mvar", slack=REACTIVE)
    sid = d.storage_id

    def sptr(name: str, t: int) -> str:
        return f"/schedule/{t}/{sid}/" + {"p_charge": "p_charge_mw", "p_discharge": "p_discharge_mw", "soc": "soc_mwh",
                                          "q_storage": "q_mvar"}[name]

    add_storage(f, d.storage, charge="p_charge", discharge="p_discharge", soc="soc", field=sptr, label=f"battery {sid}")
    add_series(f, "q_storage", lower=-d.storage_q_max_mvar, upper=d.storage_q_max_mvar,
               words=f"reactive power of {sid} within ±{d.storage_q_max_mvar:g} Mvar in step {{0}}",
               field=lambda t: sptr("q_storage", t), slack=REACTIVE)
    add_power_balance(f, [Injection("p", 1.0, G), Injection("p_discharge"), Injection("p_charge", -1.0)], d.load_p_mw,
                      field=lambda t: f"/schedule/{t}")
    add_power_balance(f, [Injection("q", 1.0, G), Injection("q_storage")], d.load_q_mvar, name="reactive_balance",
                      words="reactive power balance in step {0}: sources must equal the reactive load",
                      field=lambda t: f"/schedule/{t}", slack=REACTIVE)
    if polygon is not None:
        for g, u in enumerate(d.units):
            add_capability_polygon(f, polygon, u.s_max_mva, p_terms=[("p", 1.0)], q="q", unit=g, name=f"capability_{g}",
                                   words=f"{u.id} inside the inscribed polygon of its {u.s_max_mva:g} MVA circle in step {{1}}",
                                   field=lambda t, uid=u.id: f"/schedule/{t}/{uid}")
        add_capability_polygon(f, polygon, d.storage_s_max_mva, p_terms=[("p_discharge", 1.0), ("p_charge", -1.0)],
                               q="q_storage", unit=None, name="capability_storage",
                               words=f"{sid} inside the inscribed polygon of its {d.storage_s_max_mva:g} MVA circle in step {{1}}",
                               field=lambda t: f"/schedule/{t}/{sid}")
    return f


@dataclass(frozen=True)
class ReserveUnit:
    id: str
    p_min_mw: float
    p_max_mw: float
    ramp_mw_per_step: float
    reserve_max_mw: float
    p_initial_mw: float
    energy_cost_per_mwh: float
    reserve_up_cost_per_mw_h: float
    reserve_down_cost_per_mw_h: float


@dataclass(frozen=True)
class UncertaintyData:
    dt_h: float
    load_mw: np.ndarray
    load_lower_mw: np.ndarray
    load_upper_mw: np.ndarray
    res_mw: np.ndarray
    res_lower_mw: np.ndarray
    res_upper_mw: np.ndarray
    units: tuple[ReserveUnit, ...]


def vertices(d: UncertaintyData) -> list[tuple[str, np.ndarray]]:
    """The four corners of the per-step load × renewable box and the net load at each."""
    return [
        ("L-R-", d.load_lower_mw - d.res_lower_mw),
        ("L-R+", d.load_lower_mw - d.res_upper_mw),
        ("L+R-", d.load_upper_mw - d.res_lower_mw),
        ("L+R+", d.load_upper_mw - d.res_upper_mw),
    ]


def build_reserve_dispatch(d: UncertaintyData, *, ramp_ends: str = "any_point") -> Formulation:
    """Energy and up/down reserve scheduling robust to every vertex of the uncertainty box (LP).

    Each unit g schedules ``p`` and holds ``r_up``/``r_down`` (each at most what it can deliver
    within the activation time). Rows: the schedule balances the forecast net load; the
    reserved range stays within the unit's limits (``p + r_up ≤ P_max``, ``p − r_down ≥ P_min``);
    for every step and every vertex s of the box, the fleet's range covers the vertex's net
    load (``Σ(p − r_down) ≤ L_s − R_s ≤ Σ(p + r_up)``, which is exactly when a re-dispatch
    within the reserved ranges balances scenario s); and each unit's whole range is reachable
    from the previous step's range within its ramp limit. Cost: energy plus reserve capacity.
    """
    T = len(d.load_mw)
    G = len(d.units)
    f = Formulation(steps=T, dt_h=d.dt_h)
    ids = [u.id for u in d.units]

    def ptr(name: str) -> Pointer:
        return lambda i: f"/schedule/{i[1]}/{ids[i[0]]}/{name}"

    p_lo = np.array([[u.p_min_mw] * T for u in d.units])
    p_hi = np.array([[u.p_max_mw] * T for u in d.units])
    r_hi = np.array([[u.reserve_max_mw] * T for u in d.units])
    add_unit_series(f, "p", G, lower=p_lo, upper=p_hi, cost_per_mwh=[u.energy_cost_per_mwh for u in d.units],
                    words="scheduled output within the unit's limits in step {1}", field=ptr("p_mw"))
    add_unit_series(f, "r_up", G, upper=r_hi, cost_per_mwh=[u.reserve_up_cost_per_mw_h for u in d.units],
                    words="up-reserve within [0, deliverable reserve] in step {1}", field=ptr("r_up_mw"))
    add_unit_series(f, "r_down", G, upper=r_hi, cost_per_mwh=[u.reserve_down_cost_per_mw_h for u in d.units],
                    words="down-reserve within [0, deliverable reserve] in step {1}", field=ptr("r_down_mw"))
    add_power_balance(f, [Injection("p", 1.0, G)], d.load_mw - d.res_mw,
                      words="scheduled output must balance the forecast net load in step {0}",
                      field=lambda t: f"/schedule/{t}")
    idx = [(g, t) for g in range(G) for t in range(T)]
    f.add_rows(
        LinearConstraint(name="headroom", words="output plus up-reserve within P_max in step {1}",
                         index=idx, body=lambda v, i: v.p[i] + v.r_up[i], upper=lambda i: float(p_hi[i]),
                         field=ptr("r_up_mw"), slack=POWER),
        LinearConstraint(name="footroom", words="output minus down-reserve at least P_min in step {1}",
                         index=idx, body=lambda v, i: v.p[i] - v.r_down[i], lower=lambda i: float(p_lo[i]),
                         field=ptr("r_down_mw"), slack=POWER),
    )
    for label, net in vertices(d):
        f.add_rows(
            LinearConstraint(
                name=f"cover_up_{label.replace('+', 'p').replace('-', 'm')}",
                words=f"scenario {label} (load {label[:2]}, renewable {label[2:]}) in step {{0}}: scheduled output plus up-reserve must reach the net load",
                index=list(range(T)), body=lambda v, t: sum(v.p[g, t] + v.r_up[g, t] for g in range(G)),
                lower=lambda t, net=net: float(net[t]), field=lambda t: f"/schedule/{t}", slack=POWER),
            LinearConstraint(
                name=f"cover_down_{label.replace('+', 'p').replace('-', 'm')}",
                words=f"scenario {label} (load {label[:2]}, renewable {label[2:]}) in step {{0}}: scheduled output minus down-reserve must not exceed the net load",
                index=list(range(T)), body=lambda v, t: sum(v.p[g, t] - v.r_down[g, t] for g in range(G)),
                upper=lambda t, net=net: float(net[t]), field=lambda t: f"/schedule/{t}", slack=POWER),
        )
    for g, u in enumerate(d.units):
        add_ramp_limits(f, f"ramp_{g}", u.ramp_mw_per_step, u.p_initial_mw,
                        up=lambda v, t, g=g: v.p[g, t] + v.r_up[g, t], down=lambda v, t, g=g: v.p[g, t] - v.r_down[g, t],
                        label=f"{u.id} (whole reserved range)", field=lambda t, uid=u.id: f"/schedule/{t}/{uid}",
                        ends=ramp_ends)
    return f




# ------------------------------------------------------------------ answers


def schedule_arrays(schedule: Sequence[dict[str, Any]], fields: dict[str, str]) -> dict[str, np.ndarray]:
    """Per-step answer objects → one array per variable (``fields``: answer field → variable)."""
    return {var: np.array([float(step[name]) for step in schedule], dtype=float) for name, var in fields.items()}


def clean(x: float) -> float:
    """A solver value for an answer: 9 decimals (far inside every feasibility slack) and no −0.0."""
    return round(float(x), 9) + 0.0


def shift(answer: dict[str, Any], moves: Sequence[tuple[tuple[Any, ...], float]]) -> dict[str, Any]:
    """A copy of ``answer`` with ``delta`` added at each path (keys and list positions)."""
    out = clone(answer)
    for path, delta in moves:
        put(out, path, get(out, path) + delta)
    return out
