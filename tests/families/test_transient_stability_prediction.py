"""transient_stability_prediction: the WSCC 9-bus pre-fault state, swing properties, caller errors."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import psab
from psab.errors import InvalidTaskError
from psab.families import transient_stability_prediction as fam
from psab.paths import case_dir

FAMILY = "transient_stability_prediction"


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def test_wscc9_internal_voltages_match_anderson_fouad() -> None:
    """Anderson & Fouad, 2nd ed., Example 2.6: E′ = 1.0566, 1.0502, 1.0170 pu; G1 71.6 MW; δ1 = 2.27°, δ2 = 19.73°."""
    s = fam.System(_public().public_inputs)
    assert s.e_abs == pytest.approx([1.0566, 1.0502, 1.0170], abs=1e-4)
    assert s.p_m[0] == pytest.approx(0.716, abs=1e-3)
    assert math.degrees(s.delta0[0]) == pytest.approx(2.27, abs=0.01)
    assert math.degrees(s.delta0[1]) == pytest.approx(19.73, abs=0.01)


def test_reduced_prefault_network_reproduces_the_power_flow_output() -> None:
    """At t = 0 the electrical power of each machine from the Kron-reduced pre-fault network equals P_m."""
    s = fam.System(_public().public_inputs)
    y = s.reduced(None, None)
    e = s.e_abs * np.exp(1j * s.delta0)
    assert np.real(e * np.conj(y @ e)) == pytest.approx(s.p_m, abs=1e-8)


def test_later_clearing_is_never_more_stable() -> None:
    s = fam.System(_public().public_inputs)
    for sc in _public().public_inputs["scenarios"][:4]:
        verdicts = [s.simulate(sc, t)[0] for t in (0.05, 0.1, 0.15, 0.2, 0.25, 0.3)]
        first_unstable = verdicts.index(False) if False in verdicts else len(verdicts)
        assert all(not v for v in verdicts[first_unstable:]), sc


def test_level_two_ratings_reduce_to_the_same_machines() -> None:
    drawn = fam.generate(_public(), np.random.default_rng(5), level=2).public_inputs
    s = fam.System(drawn)
    assert s.xd == pytest.approx([0.0608, 0.1198, 0.1813], rel=2e-3)
    assert s.h == pytest.approx([23.64, 6.40, 3.01], rel=2e-3)


def test_scenario_naming_an_unknown_branch_is_a_caller_error() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["scenarios"][2]["trip_branch"] = "L1-9"
    with pytest.raises(InvalidTaskError, match="scenarios/2/trip_branch"):
        fam.system(inputs)


def test_nonpositive_inertia_is_a_caller_error() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["machines"][1]["h_s"] = 0.0
    with pytest.raises(InvalidTaskError, match="machines/1/h_s"):
        fam.system(inputs)


def test_batched_verdicts_equal_single_runs() -> None:
    """The generator's batched RK4 (three clearing times at once) gives the single-run verdicts."""
    inputs = _public().public_inputs
    s = fam.System(inputs)
    for sc in inputs["scenarios"][:5]:
        ts = np.array([0.05, 0.12, 0.2, 0.28, sc["t_clear_s"]])
        assert list(s.verdicts(sc, ts)) == [s.simulate(sc, t)[0] for t in ts]
