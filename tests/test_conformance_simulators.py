"""Conformance on the simulator backends (pandapower, ANDES, transformer-thermal-model): the
reference computed by the simulator scores exactly 1 on held-out draws of every level (fewer
than on the surrogate: a simulator solve is slower)."""

from __future__ import annotations

import pytest

from conftest import budget, need_backend
from families_under_test import FAMILY_LEVELS, SIMULATOR_BACKENDS, check_generated

GENERATED_SIMULATOR = budget(5, 20)  # per family, level 1
LEVEL_DRAWS_SIMULATOR = budget(2, 10)  # per family and higher level
#: ANDES bisects the clearing time over a dozen time-domain runs per solve (seconds each, and
#: held-out acceptance solves once more), so it draws fewer here; its cross-backend test
#: (tests/families/test_critical_clearing_time.py) compares 30 generated cases with the surrogate.
FEWER = {"andes": (2, 1)}


@pytest.mark.parametrize(("family", "backend"), SIMULATOR_BACKENDS)
def test_reference_scores_one_on_generated_cases(family: str, backend: str) -> None:
    need_backend(backend)
    check_generated(family, backend, FEWER.get(backend, (GENERATED_SIMULATOR,))[0])


@pytest.mark.parametrize(("family", "backend", "level"), [p for p in FAMILY_LEVELS if p.values[1] != "surrogate"])
def test_reference_scores_one_on_every_difficulty_level(family: str, backend: str, level: int) -> None:
    need_backend(backend)
    check_generated(family, backend, FEWER[backend][1] if backend in FEWER else LEVEL_DRAWS_SIMULATOR, level)
