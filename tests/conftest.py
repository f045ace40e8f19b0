"""Shared fixtures. ``PSAB_STRICT=1`` (set by ``make test`` and CI) turns every skip for a
missing backend or system tool into a failure, so a broken install cannot pass silently."""

from __future__ import annotations

import os
import shutil

import pytest
from hypothesis import HealthCheck, settings

STRICT = os.environ.get("PSAB_STRICT") == "1"
#: ``PSAB_THOROUGH=1``: the long exploration — 1000 examples (ten times hypothesis' default) for
#: every property test that does not set its own count, and more generated cases where a test
#: sizes its sample with :func:`budget`. The default run keeps
#: every test and assertion within the time ``make test`` is meant to take (under 5 minutes).
THOROUGH = os.environ.get("PSAB_THOROUGH") == "1"

# Property tests: no per-example deadline (the first example of a test pays imports and
# reference solves), and in CI a fixed derandomized run so a landing is never decided by luck;
# locally they explore new examples every run.
settings.register_profile("psab", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("psab-ci", parent=settings.get_profile("psab"), derandomize=True, print_blob=True)
settings.register_profile("psab-thorough", parent=settings.get_profile("psab"), max_examples=1000, print_blob=True)
settings.load_profile("psab-thorough" if THOROUGH else "psab-ci" if STRICT else "psab")


def budget(default: int, thorough: int) -> int:
    """How many generated cases a test draws: ``default`` in the everyday run, ``thorough``
    with ``PSAB_THOROUGH=1``."""
    return thorough if THOROUGH else default


def need(condition: bool, reason: str) -> None:
    """Skip when ``condition`` is false — or fail, in strict mode."""
    if condition:
        return
    if STRICT:
        pytest.fail(f"{reason} (PSAB_STRICT=1 forbids skipping)")
    pytest.skip(reason)


def need_backend(name: str) -> None:
    from psab import backends

    need(backends.available(name), f"backend {name!r} is not installed")


def need_highs() -> None:
    import importlib.util

    need(importlib.util.find_spec("highspy") is not None and importlib.util.find_spec("pyomo") is not None,
         "pyomo and highspy are needed for reference solvers")


def need_bwrap() -> None:
    need(shutil.which("bwrap") is not None, "bubblewrap (bwrap) is not installed")


@pytest.fixture(autouse=True, scope="session")
def _quiet_warnings() -> None:
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning, module="pandapower")

