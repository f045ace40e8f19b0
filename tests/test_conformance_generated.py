"""Conformance, generated cases on the surrogate backend: the reference scores exactly 1 on 20
held-out draws of every family (level 1). The other levels: test_conformance_levels.py; the
simulator backends: test_conformance_simulators.py."""

from __future__ import annotations

import pytest

import psab

from conftest import budget
from families_under_test import FAMILIES, check_generated

GENERATED = budget(20, 100)  # per family on the surrogate backend


@pytest.mark.parametrize("family", FAMILIES)
def test_reference_scores_one_on_generated_cases(family: str) -> None:
    assert "surrogate" in psab.get_family(family).backends
    check_generated(family, "surrogate", GENERATED)
