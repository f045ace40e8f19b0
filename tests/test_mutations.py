"""Which mutations only reorder (psab.mutations.is_reordering): a set or named records, not a
series or nameless records — and the two tiers' conventions about them, checked on real
evaluators: a compact family states a canonical order and rejects another; a study matches
records by name."""

from __future__ import annotations

import psab
from psab.mutations import effective, is_reordering, mutations

SCHEMA = {"type": "object", "properties": {
    "hourly_mw": {"type": "array", "items": {"type": "number"}},
    "tripped": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    "units": {"type": "array", "items": {"type": "object"}},
    "steps": {"type": "array", "items": {"type": "object"}},
}}
ANSWER = {
    "hourly_mw": [1.0, 2.0, 3.0],
    "tripped": ["L1", "L2"],
    "units": [{"unit_id": "G1", "p_mw": 10.0}, {"unit_id": "G2", "p_mw": 20.0}],
    "steps": [{"p_mw": 1.0}, {"p_mw": 2.0}],
}


def _shift(pointer: str):
    return next(m for m in mutations(ANSWER, SCHEMA) if m.kind == "shift_series" and m.pointer == pointer)


def test_a_shifted_series_or_nameless_records_are_no_reordering_and_a_set_or_named_records_are() -> None:
    assert not is_reordering(_shift("/hourly_mw"), SCHEMA)
    assert not is_reordering(_shift("/steps"), SCHEMA)  # records without names: position is their name
    assert is_reordering(_shift("/tripped"), SCHEMA)
    assert is_reordering(_shift("/units"), SCHEMA)


def test_records_repeated_whole_are_ordered() -> None:
    answer = {"units": [{"unit_id": "G1", "p_mw": 1.0}, {"unit_id": "G1", "p_mw": 1.0}, {"unit_id": "G2", "p_mw": 1.0}]}
    m = next(m for m in mutations(answer, SCHEMA) if m.kind == "shift_series")
    assert not is_reordering(m, SCHEMA)


def test_a_study_matches_named_records_by_name() -> None:
    """Every reordering of the interconnection study's public reference keeps it perfect (its
    fault levels name their bus; before this rule they were compared by position)."""
    task = psab.get_family("interconnection_study").public_task()
    answer = psab.solve(task).answer
    reorders = [m for m in mutations(answer, task.submission_schema) if is_reordering(m, task.submission_schema)]
    assert any(m.pointer == "/short_circuit/fault_levels" for m in reorders)
    for m in reorders:
        assert psab.evaluate(task, {"answer": m.answer}).perfect, m.describe()


def test_a_compact_family_rejects_another_order_than_the_stated_one() -> None:
    """fci_placement states "sections listed in the order of the case's sections": a reordered
    (still effective) answer is infeasible, not silently accepted."""
    task = psab.get_family("fci_placement").public_task()
    answer = psab.solve(task).answer
    m = next(m for m in mutations(answer, task.submission_schema) if m.pointer == "/fci_sections" and m.kind == "shift_series")
    assert is_reordering(m, task.submission_schema) and effective(task, m, ())
    assert not psab.evaluate(task, {"answer": m.answer}).feasible


def test_records_named_by_several_fields_are_a_set() -> None:
    """A binding constraint is named by its hour, branch and contingency together: the records
    repeat a branch id across hours, yet no two are alike — reordering them changes nothing."""
    answer = {"binding": [{"hour": 1, "branch_id": "7", "contingency_id": "C2"},
                          {"hour": 2, "branch_id": "7", "contingency_id": "C2"}]}
    m = next(m for m in mutations(answer, {}) if m.kind == "shift_series")
    assert is_reordering(m, {})
