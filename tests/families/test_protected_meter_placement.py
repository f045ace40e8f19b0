"""protected_meter_placement: exact search against brute-force enumeration, the attack
interpretation of the rank test, evaluator properties and bad inputs."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import protected_meter_placement as pmp
from psab.paths import case_dir
from psab.surrogates import meter_protection as mp

FAMILY = "protected_meter_placement"


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def _task(inputs: dict) -> psab.Task:
    return psab.get_family(FAMILY).make_task(task_id="pmp-variant", split="public", public_inputs=inputs)


def _brute_force(case: pmp.Case) -> float | None:
    """Least cost over every subset of protectable meters (written out independently)."""
    best = None
    m = len(case.cost)
    n = case.H.shape[1]
    smax = np.linalg.svd(case.H, compute_uv=False)[0]
    idx = [i for i in range(m) if case.eligible[i]]
    for k in range(n, len(idx) + 1):
        for rows in itertools.combinations(idx, k):
            s = np.linalg.svd(case.H[list(rows)], compute_uv=False)
            if s[-1] <= case.rtol * smax:
                continue
            cost = sum(case.cost[i] for i in rows) + sum(case.site_cost[j] for j in {int(case.site[i]) for i in rows})
            best = cost if best is None else min(best, cost)
    return best


@settings(max_examples=25)
@given(seed=st.integers(0, 100_000), sites=st.booleans())
def test_exact_search_matches_enumeration_on_small_networks(seed: int, sites: bool) -> None:
    """4-5 bus meshed networks, at most 10 meters: the reference optimum equals brute force."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 6))
    edges = [(i, (i + 1) % n) for i in range(n)] + [(0, 2)]
    inputs = {
        "buses": [{"id": f"B{i}", "site_cost_kusd": float(rng.integers(1, 12)) if sites else 0.0} for i in range(n)],
        "reference_bus": "B0",
        "branches": [{"id": f"L{a}{b}", "from_bus": f"B{a}", "to_bus": f"B{b}", "x_pu": float(rng.uniform(0.05, 0.4))}
                     for a, b in edges],
        "measurements": [], "rank_rtol": 1e-6,
    }
    meas = [{"quantity": "p_injection", "bus": f"B{i}"} for i in range(n) if rng.uniform() < 0.5]
    meas += [{"quantity": "p_flow", "branch": f"L{a}{b}", "side": "from" if rng.uniform() < 0.6 else "to"}
             for a, b in edges if rng.uniform() < 0.7]
    meas = meas[:10]
    inputs["measurements"] = [dict(m, id=f"M{k}", protection_cost_kusd=float(rng.integers(1, 10)),
                                   protectable=bool(rng.uniform() > 0.1)) for k, m in enumerate(meas)]
    try:
        case = pmp.Case(inputs)
    except InvalidTaskError:
        return  # not observable even fully protected: the caller's error, tested below
    ref = psab.solve(_task(inputs))
    result = psab.evaluate(_task(inputs), {"answer": ref.answer})
    assert result.feasible and result.score == 1.0
    rows = np.flatnonzero(ref.answer["protect"])
    assert case.objective(rows) == pytest.approx(_brute_force(case))


def test_rank_test_is_the_attack_test() -> None:
    """A protected set passes exactly when every non-zero state attack c changes some protected
    meter: the reference set admits no null vector; dropping any one of its meters opens an attack
    a = H c that leaves every remaining protected meter unchanged yet moves the estimate."""
    task = _public()
    case = pmp.Case(task.public_inputs)
    rows = np.flatnonzero(psab.solve(task).answer["protect"])
    assert np.linalg.matrix_rank(case.H[rows]) == case.H.shape[1]
    for drop in rows:
        kept = [r for r in rows if r != drop]
        _, s, vt = np.linalg.svd(case.H[kept])
        c = vt[-1]  # null direction of the kept rows
        a = case.H @ c
        assert np.allclose(a[kept], 0.0, atol=1e-9)
        assert np.linalg.norm(a) > 1e-3  # the attack changes unprotected meters: undetectable, not void
        answer = {"protect": [i in kept for i in range(len(case.cost))]}
        assert not psab.evaluate(task, {"answer": answer}).feasible


def test_public_case_naive_cheapest_meters_do_not_span() -> None:
    task = _public()
    naive = psab.get_family(FAMILY).naive_answer(task)  # type: ignore[misc]
    result = psab.evaluate(task, {"answer": naive})
    assert not result.feasible and result.violations[0].field == "/protect"


def test_golden_site_costs_change_the_answer() -> None:
    """Without site costs the 3-bus golden picks {P12, P2} (5 k$); with them {P23, P2} (9 k$)."""
    g = psab.load_case("golden/protected_meter_placement/hand_3bus_site_costs")
    inputs = copy.deepcopy(g.public_inputs)
    for b in inputs["buses"]:
        b["site_cost_kusd"] = 0.0
    ref = psab.solve(_task(inputs)).answer["protect"]
    assert ref == [True, False, False, True, False]


def test_unprotectable_meter_is_a_violation_at_its_field() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    task = _task(inputs)
    answer = psab.solve(task).answer
    i = answer["protect"].index(True)
    inputs["measurements"][i]["protectable"] = False
    task2 = _task(inputs)
    result = psab.evaluate(task2, {"answer": answer})
    assert not result.feasible and f"/protect/{i}" in [v.field for v in result.violations]


def test_unobservable_meter_set_is_the_callers_error() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["measurements"] = inputs["measurements"][:3]
    with pytest.raises(InvalidTaskError, match="public_inputs/measurements"):
        psab.solve(_task(inputs))


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda d: next(m for m in d["measurements"] if m["quantity"] == "p_flow").update(branch="L9-9"), "branch"),
    (lambda d: d.update(reference_bus="B77"), "reference_bus"),
    (lambda d: d["branches"][0].update(from_bus="B0"), "branches/0/from_bus"),
])
def test_references_that_do_not_resolve_are_the_callers_error(mutate, field) -> None:  # type: ignore[no-untyped-def]
    inputs = copy.deepcopy(_public().public_inputs)
    mutate(inputs)
    with pytest.raises(InvalidTaskError, match=field):
        psab.solve(_task(inputs))


def test_greedy_is_optimal_without_site_costs() -> None:
    """Edmonds: on a linear matroid the cheapest-first basis is a minimum-cost basis."""
    case = pmp.Case(_public().public_inputs)
    rows = mp.greedy_basis(case.H, case.cost, case.eligible)
    assert rows is not None
    assert case.objective(np.array(rows)) == pytest.approx(_brute_force(case))
