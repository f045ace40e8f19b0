"""Generation near the solver's limit (issue 24, item 3): the array path to HiGHS, the matrix
form of the evaluator's rows and the acceptance screen change how fast a draw is judged, never
what is decided.

Each test compares the fast path with the path it replaced on the same data — the Pyomo model
(``build_model`` + ``core.solve``), the row-by-row :func:`psab.solvers.algebra.check`, the full
evaluation of every neighbour — so a wrong coefficient, bound, column order or rounding margin
makes it fail.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import psab
from psab.evaluators.kernel import assess_valid_answer, reference_entry
from psab.evaluators.tolerance import Tolerance
from psab.generators.acceptance import Moves, _beaten_by_neighbour, neighbourhood
from psab.generators.rng import family_rng
from psab.solvers import algebra
from psab.solvers.core import solve as solve_pyomo
from psab.solvers.dispatch import build_model, read_values, shift, solve_formulation

from conftest import need_highs

#: families whose reference is a Formulation solved by solve_formulation, with the module-level
#: function giving the solver's formulation of a task's inputs
SOLVED = {
    "microgrid_economic_dispatch": lambda m, inputs: m.formulation(inputs),
    "dispatch_uncertainty": lambda m, inputs: m.formulation(inputs),
    "islanded_microgrid_pq_dispatch": lambda m, inputs: m.formulation(inputs, polygon=True),
    "hydro_thermal_storage_uc": lambda m, inputs: m.formulation(inputs),
    "ev_v2g_outage_schedule": lambda m, inputs: m.build_outage_schedule(m.case_of(inputs)),
}
#: families whose neighbourhood is screened Moves
SCREENED = ("microgrid_economic_dispatch", "dispatch_uncertainty", "islanded_microgrid_pq_dispatch",
            "hydro_thermal_storage_uc", "ev_v2g_outage_schedule")


def _module(family: str):  # type: ignore[no-untyped-def]
    import importlib

    return importlib.import_module(f"psab.families.{family}")


def _drawn(family: str, seed: int, level: int = 1) -> psab.Task:
    """A generator draw without acceptance (the screen must hold on any draw, not only accepted ones)."""
    spec = psab.get_family(family)
    public = spec.public_task()
    rng = family_rng(seed, family, 0, 0, level)
    drawn = spec.generate(public, rng, level) if len(spec.levels) > 1 else spec.generate(public, rng)
    return spec.make_task(task_id=f"{family}-screen-{seed}", split="heldout", public_inputs=drawn.public_inputs, key=drawn.key)


@pytest.mark.parametrize("family", sorted(SOLVED))
def test_the_array_path_gives_highs_the_pyomo_models_problem(family: str) -> None:
    """Same optimum to the last bit, same column and row counts, on the public case and a draw."""
    need_highs()
    m = _module(family)
    for task in (psab.get_family(family).public_task(), _drawn(family, 3)):
        new = solve_formulation(SOLVED[family](m, task.public_inputs))
        f = SOLVED[family](m, task.public_inputs)
        model = build_model(f)
        old = solve_pyomo(model)
        values = read_values(model, f)
        assert (new.objective, new.n_variables, new.n_constraints, new.n_integer) == \
            (old.objective, old.n_variables, old.n_constraints, old.n_integer)
        assert list(new.values) == list(values)
        for name, x in values.items():
            assert np.array_equal(new.values[name], x, equal_nan=True), name


@pytest.mark.parametrize("family", ["microgrid_economic_dispatch", "dispatch_uncertainty", "hydro_thermal_storage_uc"])
def test_the_matrix_check_finds_exactly_the_row_by_row_violations(family: str) -> None:
    """On the reference (feasible: the matrix confirms it) and on answers pushed across a bound
    or off a balance (the matrix cannot confirm them: the row-by-row check words the same
    violations)."""
    need_highs()
    m = _module(family)
    task = _drawn(family, 5)
    f = m.formulation(task.public_inputs)
    solve_formulation(f)  # reads the rows into matrix form, as the reference solve does
    slack = Tolerance.from_task(task.tolerances).slack
    reference = psab.solve(task).answer
    values = m.answer_values(reference) if family == "microgrid_economic_dispatch" else m.answer_values(task.public_inputs, reference)
    assert f.certainly_holds(values, slack)
    assert f.check(values, slack) == [] == algebra.check(values, f.rows(), slack)
    rng = np.random.default_rng(0)
    for _ in range(20):
        pushed = algebra.values(**{k: np.array(v, dtype=float) for k, v in vars(values).items()})
        name = str(rng.choice([k for k in vars(pushed) if k not in ("u", "y", "z")]))
        x = getattr(pushed, name)
        flat = x.reshape(-1)
        flat[int(rng.integers(flat.size))] += float(rng.choice([-1.0, 1.0])) * float(rng.choice([1e-6, 1e-3, 1.0, 50.0]))
        assert f.check(pushed, slack) == algebra.check(pushed, f.rows(), slack)


@pytest.mark.parametrize("family", SCREENED)
def test_the_screen_never_drops_a_neighbour_that_beats_the_answer(family: str) -> None:
    """Around answers one move off the optimum (so the move back is cheaper), every neighbour
    the full evaluation finds feasible and better than the answer passes the screen."""
    need_highs()
    spec = psab.get_family(family)
    winners = 0
    for seed in (11, 12, 13, 14, 15):
        if winners >= 3:
            break
        winners += _winners_kept(family, spec, _drawn(family, seed))
    assert winners > 0, "no neighbour beat an answer off the optimum: the test judged nothing"


def _winners_kept(family: str, spec: Any, task: psab.Task) -> int:
    """How many neighbours of answers one move off ``task``'s optimum beat them, asserting the
    screen kept every one."""
    from psab.evaluators.scoring import optimize_score

    try:
        entry = reference_entry(spec, task, "surrogate")
    except psab.errors.SolverError:
        return 0
    moves = neighbourhood(spec, task, entry.reference.answer)
    assert isinstance(moves, Moves) and callable(moves.screen)
    tol = Tolerance.from_task(task.tolerances).objective
    winners = 0
    for k in range(len(moves)):
        if moves.moves[k] is None or winners >= 3:
            continue
        worse = shift(entry.reference.answer, list(moves.moves[k]))
        r = assess_valid_answer(task, spec, "surrogate", worse)
        if not r.feasible:
            continue
        objective = float(r.evidence["objective"])

        def beats(value: float, objective: float = objective) -> bool:
            return optimize_score(value, objective, sense="minimize", scale_floor=spec.objective_scale_floor,
                                  relative=float(tol.get("relative", 1e-6)),
                                  absolute=float(tol.get("absolute", 1e-9))).beats_reference

        # the family's moves and the move back, around the worse answer, screened by the
        # family's own screen at that answer
        back = [(p, -d) for p, d in moves.moves[k]]
        around = Moves(worse, [*((moves.descriptions[j], moves.moves[j]) for j in range(len(moves))
                                 if moves.moves[j] is not None), ("the move back", back)],
                       _module(family)._screen(task, worse))
        keep = around.screen.may_win(around.moves, beats)
        for j in range(len(around)):
            description, answer = around[j]
            full = assess_valid_answer(task, spec, "surrogate", answer)
            if full.feasible and beats(float(full.evidence["objective"])):
                assert keep[j], f"{description} beats the answer but the screen dropped it"
                winners += 1
    return winners


@pytest.mark.parametrize("family", SCREENED)
def test_screened_acceptance_decides_as_the_full_loop(family: str) -> None:
    """The verdict and its words, with the screen and with every neighbour evaluated in full."""
    need_highs()
    from psab.evaluators.kernel import evaluate

    spec = psab.get_family(family)
    for seed in (1, 2):
        task = _drawn(family, seed)
        try:
            entry = reference_entry(spec, task, "surrogate")
        except psab.errors.SolverError:
            continue
        screened = _beaten_by_neighbour(spec, task, "surrogate", entry)
        full = None
        for description, answer in neighbourhood(spec, task, entry.reference.answer):  # iterating: no screen
            r = assess_valid_answer(task, spec, "surrogate", answer)
            if r.feasible and r.evidence.get("beats_reference"):
                r = evaluate(task, {"answer": answer}, "surrogate")
                if r.feasible and r.evidence.get("beats_reference"):
                    full = f"a perturbation beats the reference ({description}: {r.evidence.get('objective')} vs {entry.objective})"
                    break
        assert screened == full


def test_moves_build_the_neighbours_shift_builds() -> None:
    answer = {"schedule": [{"a": 1.0, "b": 2.0}, {"a": 0.1, "b": -0.3}]}
    moves = Moves(answer, [("one", [(("schedule", 0, "a"), 0.05)]),
                           ("two", [(("schedule", 1, "b"), -0.05), (("schedule", 1, "a"), 0.05)]),
                           ("whole", {"schedule": []})])
    assert len(moves) == 3
    assert moves[0] == ("one", shift(answer, [(("schedule", 0, "a"), 0.05)]))
    assert moves[1] == ("two", shift(answer, [(("schedule", 1, "b"), -0.05), (("schedule", 1, "a"), 0.05)]))
    assert moves[2] == ("whole", {"schedule": []})
    assert answer == {"schedule": [{"a": 1.0, "b": 2.0}, {"a": 0.1, "b": -0.3}]}  # untouched
