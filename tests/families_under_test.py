"""Parametrization helpers: every registered family, and every (family, backend) pair."""

from __future__ import annotations

import pytest

import psab

FAMILIES = [spec.id for spec in psab.families()]
FAMILY_BACKENDS = [pytest.param(spec.id, b, id=f"{spec.id}-{b}") for spec in psab.families() for b in spec.backends]
OPTIMIZE_FAMILIES = [spec.id for spec in psab.families() if spec.scoring_kind == "optimize"]
