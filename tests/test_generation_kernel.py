"""The generation kernel's seeded streams: reproducible, independent per family and index."""

from __future__ import annotations

import numpy as np
import pytest

import psab
from psab.generators.rng import family_rng, seed_int


def test_streams_are_reproducible_and_independent() -> None:
    a = family_rng(42, "ybus_construction", 0).random(8)
    assert np.array_equal(a, family_rng(42, "ybus_construction", 0).random(8))
    for other in (family_rng(43, "ybus_construction", 0), family_rng(42, "three_phase_short_circuit", 0),
                  family_rng(42, "ybus_construction", 1), family_rng(42, "ybus_construction", 0, attempt=1)):
        assert not np.array_equal(a, other.random(8))


def test_seed_forms() -> None:
    assert seed_int(7) == 7 and seed_int("7") == 7
    assert seed_int("a passphrase") == seed_int("a passphrase") != seed_int("another")
    for bad in (-1, "", True, 1.5):
        with pytest.raises(psab.InvalidArgumentError):
            seed_int(bad)  # type: ignore[arg-type]


def test_heldout_ids_never_carry_the_seed() -> None:
    task = psab.generate("ybus_construction", 987654321, 4)
    assert task.id == "ybus_construction-heldout-00004"
    assert "987654321" not in task.to_json()
