"""The acceptance loop: neighbourhoods, trivial answers, rejections and the redraw budget.

Expected neighbourhoods and trivial answers are written out by hand from the rules in
``psab/generators/acceptance.py``; the rejection tests use throwaway families whose
reference is deliberately beatable, trivial, or equal to the public case.
"""

from __future__ import annotations

import pytest

import psab
from psab.errors import GenerationError
from psab.evaluators import answer_schema as s
from psab.generators.acceptance import (
    default_neighbourhood,
    generate,
    rejection,
    transfers,
    trivial_answer,
    trivial_for,
)

from .gen_fakes import double_family, fake_spec, floor_family, pick_family

SCHEMA = s.submission(
    {
        "p_mw": s.number("output", minimum=0, maximum=10),
        "n_units": s.integer("units on", minimum=0, maximum=3),
        "on": s.boolean("breaker closed"),
        "mode": s.enum(["a", "b", "c"], "mode"),
        "open": s.array(s.enum(["L1", "L2", "L3"], "a line"), "lines to open", min_items=0, max_items=2, unique=True),
    },
    "test",
)
ANSWER = {"p_mw": 10.0, "n_units": 0, "on": True, "mode": "b", "open": ["L2"]}


def _moves(answer, schema=None):
    return [(d, a) for d, a in default_neighbourhood(answer, schema)]


def test_neighbourhood_respects_types_bounds_choices_and_subsets() -> None:
    got = [a for _, a in _moves(ANSWER, SCHEMA)]
    expected = [
        # p_mw sits at its maximum 10: only the inward nudge, 1 % of 10
        {**ANSWER, "p_mw": 9.9},
        # n_units is an integer at its minimum 0: +1 only
        {**ANSWER, "n_units": 1},
        {**ANSWER, "on": False},
        {**ANSWER, "mode": "a"},
        {**ANSWER, "mode": "c"},
        # the subset {L2} of at most 2 lines: drop it, add L1 or L3, swap it for L1 or L3
        {**ANSWER, "open": []},
        {**ANSWER, "open": ["L2", "L1"]},
        {**ANSWER, "open": ["L2", "L3"]},
        {**ANSWER, "open": ["L1"]},
        {**ANSWER, "open": ["L3"]},
    ]
    assert got == expected
    assert isinstance(got[1]["n_units"], int)
    assert ANSWER == {"p_mw": 10.0, "n_units": 0, "on": True, "mode": "b", "open": ["L2"]}  # untouched


def test_a_continuous_zero_is_nudged_continuously_not_by_one() -> None:
    # JSON writes 0.0 as 0; the schema, not the Python type, says the decision is continuous.
    got = [a["p_mw"] for _, a in _moves({**ANSWER, "p_mw": 0}, SCHEMA) if a["p_mw"] != 0]
    assert got == [0.001]


def test_without_a_schema_numbers_are_judged_by_type() -> None:
    got = [a for _, a in _moves({"k": 3, "x": 2.0})]
    assert got == [{"k": 4, "x": 2.0}, {"k": 2, "x": 2.0}, {"k": 3, "x": 2.02}, {"k": 3, "x": 1.98}]


def test_a_full_subset_only_drops_and_swaps() -> None:
    got = [a["open"] for _, a in _moves({**ANSWER, "open": ["L1", "L3"]}, SCHEMA) if a["open"] != ["L1", "L3"]]
    assert got == [["L3"], ["L1"], ["L2", "L3"], ["L1", "L2"]]


def test_transfers_keep_the_sum() -> None:
    answer = {"p_mw": [[4.0, 6.0]]}
    moves = list(transfers(answer, [[("p_mw", 0, 0), ("p_mw", 0, 1)]]))
    # step = 1 % of the larger magnitude, 6 -> 0.06
    assert [m for _, m in moves] == [{"p_mw": [[3.94, 6.06]]}, {"p_mw": [[4.06, 5.94]]}]


def test_trivial_answer_from_the_schema() -> None:
    assert trivial_answer(SCHEMA) == {"p_mw": 0.0, "n_units": 0, "on": False, "mode": "a", "open": []}
    bounded = s.submission({"v_pu": s.number("v", minimum=0.95, maximum=1.05),
                            "order": s.array(s.enum(["B1", "B2", "B3"], "bus"), "order", length=3, unique=True)}, "t")
    assert trivial_answer(bounded) == {"v_pu": 0.95, "order": ["B1", "B2", "B3"]}
    assert trivial_answer(s.submission({"r_ohm": s.number("r", exclusive_minimum=0)}, "t")) is None


def test_a_beatable_reference_is_rejected_by_its_neighbourhood(register_fake) -> None:
    sloppy = register_fake(floor_family("gen_test_floor_sloppy", slop=0.05))
    r = rejection(sloppy, sloppy.public_task(), "surrogate")
    assert r is not None and r.kind == "neighbourhood"
    # x_0 = 10.5 > lo_0 = 10: 1 % down (10.395) is still feasible and cheaper
    assert "/x_mw/0 nudged down" in r.reason

    exact = register_fake(floor_family("gen_test_floor_exact", slop=0.0))
    assert rejection(exact, exact.public_task(), "surrogate") is None


def test_exhausting_the_budget_names_family_and_index(register_fake) -> None:
    register_fake(floor_family("gen_test_floor_hopeless", slop=0.05, budget=3))
    with pytest.raises(GenerationError) as info:
        generate("gen_test_floor_hopeless", 99, 7)
    message = str(info.value)
    assert "family gen_test_floor_hopeless, index 7" in message
    assert "3 attempts" in message and "[neighbourhood]" in message
    assert "99" not in message.replace("index 7", "")


def test_an_accepted_optimize_draw_is_locally_optimal(register_fake) -> None:
    register_fake(floor_family("gen_test_floor_ok", slop=0.0))
    d = generate("gen_test_floor_ok", 5, 0)
    assert d.attempts == 1 and d.task.split == "heldout"


def test_the_trivial_answer_must_not_score_one(register_fake) -> None:
    spec = register_fake(double_family("gen_test_double"))
    zero = spec.make_task(task_id="z", split="heldout", public_inputs={"x": [0.0, 0.0, 0.0], "base_mva": 100.0})
    r = rejection(spec, zero, "surrogate")
    assert r is not None and r.kind == "trivial"
    assert rejection(spec, spec.public_task(), "surrogate") is None


def test_a_single_categorical_answer_has_no_trivial_check(register_fake) -> None:
    spec = register_fake(pick_family("gen_test_pick"))
    assert trivial_for(spec, spec.public_task()) is None


def test_draws_equal_to_the_public_case_are_redrawn(register_fake) -> None:
    register_fake(pick_family("gen_test_pick_public"))
    draws = [generate("gen_test_pick_public", 11, i) for i in range(12)]
    assert all(d.task.public_inputs["tripped"] != 1 for d in draws)  # the public case has tripped = 1
    assert any("public" in d.kinds for d in draws)
    assert all(d.attempts == len(d.kinds) + 1 for d in draws)


def test_a_generator_editing_its_input_cannot_leak_between_draws(register_fake) -> None:
    def careless(public, rng):
        inputs = public.public_inputs
        inputs["x"].append(float(rng.uniform(1, 2)))  # edits the public case in place
        return psab.registry.Generated(dict(inputs))

    base = double_family("gen_test_careless")
    spec = register_fake(fake_spec("gen_test_careless", scoring_kind="exact", submission_schema=base.submission_schema,
                                   solve=base.solve, evaluate=base.evaluate, generate=careless,
                                   public_inputs={"x": [1.0, 2.0], "base_mva": 100.0}))
    first = generate(spec.id, 3, 4).task.to_json()
    for i in range(3):
        generate(spec.id, 3, i)
    assert generate(spec.id, 3, 4).task.to_json() == first
    assert len(psab.generators.acceptance._public(spec)[0].public_inputs["x"]) == 2


def test_ybus_draws_pass_every_check() -> None:
    d = generate("ybus_construction", 20261130, 0)
    spec = psab.get_family("ybus_construction")
    assert rejection(spec, d.task, "surrogate") is None
    assert "20261130" not in d.task.to_json()


def test_a_family_can_replace_or_turn_off_the_trivial_answer(register_fake) -> None:
    import dataclasses

    base = double_family("gen_test_double_off")
    off = register_fake(dataclasses.replace(base, trivial_answer=lambda task: None))
    zero = off.make_task(task_id="z", split="heldout", public_inputs={"x": [0.0, 0.0, 0.0], "base_mva": 100.0})
    assert rejection(off, zero, "surrogate") is None

    # a family whose natural guess is "y = x" (forgetting the factor 2): right only when x = 0
    guess = register_fake(dataclasses.replace(double_family("gen_test_double_guess"),
                                              trivial_answer=lambda task: {"y": list(task.public_inputs["x"])}))
    assert rejection(guess, guess.public_task(), "surrogate") is None
    r = rejection(guess, zero, "surrogate")
    assert r is not None and r.kind == "trivial"
