"""Conformance, every difficulty level above 1 on the surrogate backend: the reference scores
exactly 1 on 5 held-out draws of each level, and the naive baseline evaluates sanely."""

from __future__ import annotations

import pytest

from conftest import budget
from families_under_test import FAMILY_LEVELS, check_generated

LEVEL_DRAWS = budget(5, 20)


@pytest.mark.parametrize(("family", "backend", "level"), [p for p in FAMILY_LEVELS if p.values[1] == "surrogate"])
def test_reference_scores_one_on_every_difficulty_level(family: str, backend: str, level: int) -> None:
    check_generated(family, backend, LEVEL_DRAWS, level)
