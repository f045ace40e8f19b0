"""Small hand-built LPs handed to HiGHS as arrays, without building a Pyomo model.

The voltage LPs of pv_volt_var, pf_voltage_repair (:func:`psab.solvers.voltage_repair.solve_voltage_repair`)
and ev_v2g_voltage_support (:func:`psab.solvers.v2g.solve_voltage_support`) are solved many times
per held-out draw (the LinDistFlow optimum and every step of the successive linearization in
``accept``). Their Pyomo models cost several times HiGHS's own solve (issue 24, item 3). An
:class:`ArrayLP` gives HiGHS the problem :func:`psab.solvers.core.solve` would give it for the
same Pyomo model, element for element:

- columns in order of first appearance — the ordinary constraints first (declaration order),
  then the :class:`~psab.solvers.algebra.LinearConstraint` blocks (read by
  :func:`psab.solvers.algebra.read_rows`, the reader :func:`~psab.solvers.algebra.add_constraints`
  uses), then the objective — as ``core._matrix_form`` numbers them;
- rows in the same order, through the same :class:`~psab.solvers.core.Rows`, bounds converted
  the same way; the cost summed with ``np.add.at`` as there;
- the same :func:`psab.solvers.core.run_form` call (same HiGHS options),

so the optimum is the same to the last bit; ``tests/solvers/test_array_lp.py`` compares the
arrays with those of the Pyomo path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from psab.solvers import algebra


class _Indexer:
    """One variable family as :func:`psab.solvers.algebra.read_rows`' probe reads it:
    ``x[i]`` is a :class:`~psab.solvers.algebra.LinearForm` over the element's key."""

    __slots__ = ("forms",)

    def __init__(self, forms: dict[Any, algebra.LinearForm]) -> None:
        self.forms = forms

    def __getitem__(self, index: Any) -> algebra.LinearForm:
        return self.forms[index]


class ArrayLP:
    """A linear program declared like its Pyomo model, solved through HiGHS's arrays.

    Declare the variable families (:meth:`var`) in the model's order, then the rows in the
    order the Pyomo model declared its constraints (:meth:`row` for an ordinary constraint,
    :meth:`constraints` for ``add_constraints``' blocks), then :meth:`minimize`.
    """

    def __init__(self) -> None:
        from psab.solvers.core import Rows

        self._keys: dict[tuple[str, Any], int] = {}
        self._lower: list[float] = []
        self._upper: list[float] = []
        self._families: dict[str, _Indexer] = {}
        self.position: list[int] = []  # key → column (−1: not given to HiGHS yet)
        self.order: list[int] = []  # column → key
        self.rows = Rows()
        self.cost_keys: list[int] = []
        self.cost_coefs: list[float] = []
        self._odd_bound = False  # a given bound that is not a finite number

    # ---------------------------------------------------------------- declaration

    def var(self, name: str, index: Sequence[Any], lower: Callable[[Any], float | None] | float | None = None,
            upper: Callable[[Any], float | None] | float | None = None) -> None:
        """A variable family ``name[i]`` for ``i`` in ``index`` with bounds (``None``: free)."""
        forms: dict[Any, algebra.LinearForm] = {}
        for i in index:
            key = len(self._lower)
            self._keys[(name, i)] = key
            lo = lower(i) if callable(lower) else lower
            hi = upper(i) if callable(upper) else upper
            for b in (lo, hi):
                if b is not None and not math.isfinite(float(b)):
                    self._odd_bound = True
            self._lower.append(-math.inf if lo is None else float(lo))
            self._upper.append(math.inf if hi is None else float(hi))
            self.position.append(-1)
            forms[i] = algebra.LinearForm([key], [1.0], 0.0)
        self._families[name] = _Indexer(forms)

    def key(self, name: str, index: Any) -> int:
        return self._keys[(name, index)]

    @property
    def probe(self) -> algebra.LinearProbe:
        """The probe :func:`~psab.solvers.algebra.read_rows` reads bodies through (``v.q[c]``)."""
        probe = algebra.LinearProbe(algebra.values(**self._families))
        for name, indexer in self._families.items():
            setattr(probe, name, indexer)  # skip LinearProbe's Pyomo look-up
        return probe

    def _place(self, keys: Iterable[int]) -> np.ndarray:
        out = []
        for k in keys:
            j = self.position[k]
            if j < 0:
                j = self.position[k] = len(self.order)
                self.order.append(k)
            out.append(j)
        return np.asarray(out, dtype=np.int64)

    def row(self, terms: Sequence[tuple[int, float]], lower: float, upper: float) -> None:
        """An ordinary constraint ``lower <= Σ coef·x[key] <= upper`` (terms in the order Pyomo's
        ``generate_standard_repn`` lists them)."""
        cols = self._place(k for k, _ in terms)
        self.rows.add_row(cols, np.array([c for _, c in terms], dtype=float), float(lower), float(upper))

    def constraints(self, constraints: Iterable[algebra.LinearConstraint]) -> None:
        """The blocks :func:`~psab.solvers.algebra.add_constraints` would add, in order."""
        import highspy

        inf = highspy.kHighsInf
        probe = self.probe
        for c in constraints:
            block = algebra.read_rows(c, probe)
            local = self._place(block.keys)
            self.rows.add_block(block.indptr, local[np.asarray(block.indices, dtype=np.int64)],
                                np.asarray(block.data, dtype=float),
                                np.array([-inf if v is None else v for v in block.lower], dtype=float),
                                np.array([inf if v is None else v for v in block.upper], dtype=float))

    def minimize(self, terms: Sequence[tuple[int, float]]) -> None:
        """The objective ``min Σ coef·x[key]`` (terms in the order of the Pyomo expression)."""
        self.cost_keys = [k for k, _ in terms]
        self.cost_coefs = [float(c) for _, c in terms]

    # ---------------------------------------------------------------- solution

    def in_rows(self, name: str, index: Iterable[Any]) -> bool:
        """Whether every ``name[i]`` appears in a row. One that appears only in the cost is
        placed by the Pyomo path only if its expression kept the term (Pyomo drops ``0·x``),
        and one in neither is left without a value; callers send such cases to Pyomo."""
        return all(self.position[self._keys[(name, i)]] >= 0 for i in index)

    def form(self) -> Any:
        """The :class:`~psab.solvers.core.Form` HiGHS is given."""
        import highspy

        inf = highspy.kHighsInf
        c_index = self._place(self.cost_keys)
        cost = np.zeros(len(self.order))
        np.add.at(cost, c_index, np.asarray(self.cost_coefs, dtype=float))
        order = np.asarray(self.order, dtype=np.int64)
        lower = np.asarray(self._lower, dtype=float)[order]
        upper = np.asarray(self._upper, dtype=float)[order]
        return self.rows.form(columns=list(self.order), col_lower=np.where(np.isinf(lower), -inf, lower),
                              col_upper=np.where(np.isinf(upper), inf, upper),
                              integer=np.zeros(len(self.order), dtype=bool), c=cost, offset=0.0, maximize=False)

    def solve(self) -> tuple[Callable[[str, Any], float], float]:
        """Solve to a proven optimum (:class:`~psab.errors.SolverError` otherwise): the value of
        ``name[i]`` and the objective."""
        from psab.solvers.core import run_form

        form = self.form()
        x, result = run_form(form)
        values = x.tolist()
        position = self.position

        def value(name: str, index: Any) -> float:
            return float(values[position[self._keys[(name, index)]]])

        return value, result.objective

    def finite_bounds(self) -> bool:
        """Whether every declared bound is a finite number or absent (anything else is left to
        the Pyomo path, whose refusal words it keeps)."""
        return not self._odd_bound
