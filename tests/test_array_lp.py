"""The voltage LPs solved as arrays give HiGHS exactly what their Pyomo models gave it.

Issue 24, item 3 requires held-out generation byte-identical after the speed-up. HiGHS is
deterministic for a given problem and options (``random_seed`` 0, one thread), so identical
arrays — column order, row order, every coefficient, bound and cost bit for bit — imply the
identical optimum. Every LP the three families solve while drawing (the LinDistFlow optimum
and each step of the successive linearization in ``accept``) is recorded and its arrays are
compared, byte for byte, with ``psab.solvers.core._matrix_form`` of the Pyomo model
(``build_voltage_repair`` / the model of ``solve_voltage_support``); the optima are compared too.
"""

from __future__ import annotations

import highspy
import numpy as np
import pytest

import psab
from psab.solvers import core, v2g, voltage_repair

SEED = 20261130

_FIELDS = ("A_start", "A_index", "A_value", "row_lower", "row_upper", "col_lower", "col_upper", "c", "integer")


def _names(lp) -> list[str]:  # type: ignore[no-untyped-def]
    by_key = {k: f"{name}[{i}]" for (name, i), k in lp._keys.items()}
    return [by_key[k] for k in lp.order]


def _same_form(pyomo_form: core.Form, array_form: core.Form, names: list[str]) -> None:
    assert [v.name for v in pyomo_form.columns] == names
    assert pyomo_form.rowwise == array_form.rowwise and pyomo_form.n_rows == array_form.n_rows
    for field in _FIELDS:
        a, b = getattr(pyomo_form, field), getattr(array_form, field)
        assert a.dtype == b.dtype and a.shape == b.shape, field
        assert a.tobytes() == b.tobytes(), field  # bit for bit, -0.0 included
    assert (pyomo_form.offset, pyomo_form.maximize) == (array_form.offset, array_form.maximize)


def _recorded(monkeypatch: pytest.MonkeyPatch, module, name: str) -> list[tuple]:  # type: ignore[no-untyped-def]
    calls: list[tuple] = []
    original = getattr(module, name)

    def record(*args):  # type: ignore[no-untyped-def]
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(module, name, record)
    return calls


@pytest.mark.parametrize("family", ["pv_volt_var", "pf_voltage_repair"])
def test_voltage_repair_arrays_equal_pyomo(family: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _recorded(monkeypatch, voltage_repair, "solve_voltage_repair_arrays")
    spec = next(s for s in psab.families() if s.id == family)
    for level in spec.levels:
        for index in range(3):
            psab.generate(family, SEED, 100 + index, level=level)
    monkeypatch.undo()  # stop recording: the calls below are the functions themselves
    assert len(calls) >= 6  # the LinDistFlow LP and successive-linearization steps were seen
    for candidates, rows in calls:
        model = voltage_repair.build_voltage_repair(candidates, rows)
        lp = voltage_repair.voltage_repair_lp(candidates, rows)
        _same_form(core._matrix_form(model, highspy.kHighsInf), lp.form(), _names(lp))
        try:
            expected = voltage_repair.solve_voltage_repair(candidates, rows)
        except psab.PsabError as exc:
            # both paths refuse alike: the same error class and words (a proven infeasibility
            # is the task's fault, InfeasibleTaskError; any other end is a SolverError)
            with pytest.raises(type(exc)) as got:
                voltage_repair.solve_voltage_repair_arrays(candidates, rows)
            assert str(got.value) == str(exc)
            continue
        assert voltage_repair.solve_voltage_repair_arrays(candidates, rows) == expected


def test_voltage_support_arrays_equal_pyomo(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyomo.environ as pyo

    calls = _recorded(monkeypatch, v2g, "solve_voltage_support_arrays")
    for level in (1, 2):
        for index in range(3):
            psab.generate("ev_v2g_voltage_support", SEED, 100 + index, level=level)
    monkeypatch.undo()
    assert len(calls) >= 6
    captured: list = []
    original_solve = core.solve

    def capture(model, **kw):  # type: ignore[no-untyped-def]
        captured.append(core._matrix_form(model, highspy.kHighsInf))
        return original_solve(model, **kw)

    monkeypatch.setattr(core, "solve", capture)
    for args in calls:
        lp = v2g.voltage_support_lp(*args)
        assert lp.finite_bounds() and lp.in_rows("p", args[0])
        array_form = lp.form()
        try:
            expected = v2g.solve_voltage_support(*args)  # builds the Pyomo model; captured above
        except psab.PsabError:
            expected = None
        _same_form(captured[-1], array_form, _names(lp))
        if expected is None:
            with pytest.raises(psab.PsabError):
                v2g.solve_voltage_support_arrays(*args)
        else:
            assert v2g.solve_voltage_support_arrays(*args) == expected
    assert pyo  # the Pyomo path was really taken


def test_v2g_falls_back_to_pyomo_when_p_is_in_no_row() -> None:
    """A hub whose ``p`` no row mentions would be placed by Pyomo only through its cost term —
    the array path does not guess, it hands such a case to the Pyomo model."""
    from psab.solvers.algebra import LinearConstraint

    rows = [LinearConstraint(name="voltage_band", words="q of {0}", index=["a"], body=lambda v, i: v.q[i],
                             lower=-1.0, upper=1.0, field=lambda i: "/q", slack="voltage_band")]
    args = (["a"], rows, {"a": 2.0}, {"a": 1.0}, {"a": 5.0}, {"a": 3.0})
    assert not v2g.voltage_support_lp(*args).in_rows("p", ["a"])
    assert v2g.solve_voltage_support_arrays(*args) == v2g.solve_voltage_support(*args)
    p, q, obj = v2g.solve_voltage_support_arrays(*args)
    assert (p["a"], q["a"], obj) == (0.0, 0.0, 0.0)  # nothing to buy: both at zero cost
    assert np.isfinite(obj)
