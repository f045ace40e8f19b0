"""breaker_relay_short_circuit: backend agreement, the hand-derived optimum by enumeration,
constraint checks that catch real mistakes and accept legitimate choices."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

import psab
from psab.families import breaker_relay_short_circuit as fam
from psab.paths import case_dir, golden_root

from conftest import need_backend

FAMILY = "breaker_relay_short_circuit"
SEED = 20261130


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def _golden() -> psab.Task:
    return psab.load_case(golden_root() / FAMILY / "hand_radial_two_breakers")


def _assert_levels_agree(inputs: dict, label: str) -> None:
    sur = fam.fault_levels(inputs, "surrogate")
    pp = fam.fault_levels(inputs, "pandapower")
    assert sur.keys() == pp.keys()
    for bus, values in sur.items():
        for name, v in values.items():
            assert pp[bus][name] == pytest.approx(v, rel=1e-9), (label, bus, name)


def test_backends_agree_on_public_case() -> None:
    need_backend("pandapower")
    _assert_levels_agree(_public().public_inputs, "public")


def test_backends_agree_on_generated_cases() -> None:
    need_backend("pandapower")
    public = _public()
    for i in range(50):
        _assert_levels_agree(fam.generate(public, np.random.default_rng([SEED, i])).public_inputs, f"draw {i}")


def test_golden_optimum_by_enumeration() -> None:
    """Every assignment of the five catalog types to the two breakers: the cheapest feasible one
    costs 19 kEUR (hand-derived in the golden README) and is the reference's."""
    task = _golden()
    types = [c["type"] for c in task.public_inputs["breaker_catalog"]]
    feasible = {}
    for pair in itertools.product(types, repeat=2):
        result = psab.evaluate(task, {"answer": {"breaker_types": list(pair), "relay_pickups_a": [390.0]}})
        if result.feasible:
            feasible[pair] = result.evidence["objective"]
    best = min(feasible.values())
    assert best == 19.0
    assert [p for p, v in feasible.items() if v == best] == [("MV-24kV-12.5kA", "MV-24kV-10kA")]
    assert ("MV-12kV-25kA", "MV-24kV-10kA") not in feasible  # 12 kV equipment on a 20 kV system


def test_pickups_inside_the_band_are_accepted_outside_rejected() -> None:
    task = _golden()
    ref = psab.solve(task).answer
    for pickup, ok in ((390.0, True), (800.0, True), (1272.0, True), (389.0, False), (1273.0, False)):
        result = psab.evaluate(task, {"answer": {**ref, "relay_pickups_a": [pickup]}})
        assert result.feasible is ok, pickup
        if ok:
            assert result.score == 1.0


def test_making_current_binds_in_the_public_case() -> None:
    """At B2 the 25 kA MV breaker interrupts 1.1·I″k but cannot make 1.1·i_p (κ ≈ 1.87)."""
    task = _public()
    ref = psab.solve(task).answer
    answer = copy.deepcopy(ref)
    answer["breaker_types"][1] = "MV-12kV-25kA"
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert [v.constraint.split(":")[1].strip().split(" ")[0] for v in result.violations] == ["making"]


def test_dearer_admissible_breaker_scores_in_proportion() -> None:
    task = _public()
    ref = psab.solve(task).answer
    answer = copy.deepcopy(ref)
    answer["breaker_types"][0] = "HV-123kV-31.5kA"  # admissible, 12 kEUR dearer than HV-123kV-25kA
    result = psab.evaluate(task, {"answer": answer})
    base = result.evidence["reference_objective"]
    assert result.feasible
    assert result.score == pytest.approx(1.0 - 12.0 / base)


def test_swapped_pickups_are_rejected() -> None:
    task = _public()
    ref = psab.solve(task).answer
    swapped = {**ref, "relay_pickups_a": list(reversed(ref["relay_pickups_a"]))}
    result = psab.evaluate(task, {"answer": swapped})
    assert not result.feasible and "/relay_pickups_a/0" in {v.field for v in result.violations}
