"""Generator validation (paper 8.3): the statistics, the verdicts and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from psab.cli import main
from psab.generators.validation import (
    coefficient_of_variation,
    mean_cv,
    numeric_leaves,
    validate_generators,
)

from .gen_fakes import double_family, floor_family, pick_family


def test_coefficient_of_variation_by_hand() -> None:
    # values 1, 2, 3: population std sqrt(2/3) = 0.816497, mean |x| = 2
    assert coefficient_of_variation([1.0, 2.0, 3.0]) == pytest.approx(0.408248, abs=1e-6)
    # signed values -1, 1: std 1, mean |x| 1 (a mean of 0 would make the CV infinite)
    assert coefficient_of_variation([-1.0, 1.0]) == pytest.approx(1.0)
    assert coefficient_of_variation([0.0, 0.0]) == 0.0


def test_mean_cv_leaves_out_fixed_structure_and_keeps_frozen_draws() -> None:
    public = {"base_mva": 100, "x": 5.0, "y": 1.0, "on": True, "rows": [{"id": "a", "r": 1.0}, {"id": "b", "r": 9.0}]}
    variants = [
        {"base_mva": 100, "x": 1.0, "y": 2.0, "on": False, "rows": [{"id": "b", "r": 9.0}, {"id": "a", "r": 1.0}]},
        {"base_mva": 100, "x": 2.0, "y": 2.0, "on": True, "rows": [{"id": "a", "r": 1.0}, {"id": "b", "r": 9.0}]},
        {"base_mva": 100, "x": 3.0, "y": 2.0, "on": True, "rows": [{"id": "b", "r": 9.0}]},
    ]
    # base_mva: fixed (same everywhere, as in public) -> out; booleans -> out; rows/a only in
    # two variants -> out; rows/b/r fixed -> out (rows matched by id, not by position).
    # x: CV 0.408248; y: 2 in every variant but 1 in public -> "should vary", CV 0. Mean 0.204124.
    cv, n = mean_cv(variants, public)
    assert n == 2 and cv == pytest.approx(0.204124, abs=1e-6)
    assert set(numeric_leaves(public)) == {"/base_mva", "/x", "/y", "/rows/id=a/r", "/rows/id=b/r"}
    assert mean_cv(variants[:1], public) == (None, 0)


def test_validate_cli_report_fields(tmp_path: Path, capsys) -> None:
    out = tmp_path / "v.json"
    assert main(["validate-generators", "--variants", "3", "--family", "ybus_construction", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "ybus_construction" in table and "mean CV" in table
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["passed"] is True and doc["variants"] == 3 and len(doc["seed_commitment"]) == 64
    row = doc["families"][0]
    assert set(row) >= {"family", "scoring_kind", "variants", "accepted", "redraws", "max_attempts", "rejections",
                        "reference_feasible", "distinct", "min_distinct", "differs_from_public", "mean_cv",
                        "cv_leaves", "failures", "errors", "passed", "seconds"}
    assert (row["accepted"], row["reference_feasible"], row["distinct"], row["differs_from_public"]) == (3, 3, 3, 3)
    assert row["mean_cv"] > 0.05 and row["cv_leaves"] > 0 and row["failures"] == []
    assert doc["totals"]["variants"] == 3 and doc["totals"]["families_passed"] == 1


def test_near_duplicate_variants_fail(register_fake, capsys) -> None:
    register_fake(double_family("gen_test_dup", spread=1e-4))
    [row] = validate_generators(["gen_test_dup"], 4, 17)
    assert row.distinct == 4 and row.mean_cv is not None and row.mean_cv < 1e-3
    assert not row.passed and any("near-duplicates" in f for f in row.failures)
    assert main(["validate-generators", "--variants", "4", "--family", "gen_test_dup"]) == 1
    assert "near-duplicates" in capsys.readouterr().err


def test_a_categorical_family_declares_fewer_distinct_instances(register_fake) -> None:
    register_fake(pick_family("gen_test_pick_strict"))
    register_fake(pick_family("gen_test_pick_declared", min_distinct_fraction=0.25))
    strict, declared = validate_generators(["gen_test_pick_strict", "gen_test_pick_declared"], 8, 5)
    # three sections other than the public one's: at most 3 distinct of 8
    assert strict.distinct <= 3 and not strict.passed
    assert declared.distinct == strict.distinct and declared.min_distinct == 2 and declared.passed
    assert declared.mean_cv is not None or declared.cv_leaves == 0
    assert declared.differs_from_public == 8 and declared.rejections.get("public", 0) > 0


def test_an_exhausted_budget_fails_validation_and_names_the_index(register_fake) -> None:
    register_fake(floor_family("gen_test_floor_bad", slop=0.05, budget=2))
    [row] = validate_generators(["gen_test_floor_bad"], 3, 1)
    assert row.accepted == 0 and not row.passed
    assert row.redraws == 6 and row.rejections == {"neighbourhood": 6}
    assert [e.split(":")[0] for e in row.errors] == [f"family gen_test_floor_bad, index {i}" for i in range(3)]
