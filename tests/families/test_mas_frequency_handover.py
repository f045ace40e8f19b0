"""mas_frequency_handover: properties of the election and allocation rules, bad inputs."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.paths import case_dir
from psab.surrogates import mas_frequency as mas

FAMILY = "mas_frequency_handover"


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def _task(inputs: dict) -> psab.Task:
    return psab.get_family(FAMILY).make_task(task_id="mas-variant", split="public", public_inputs=inputs)


def test_public_case_elects_inside_the_majority_not_the_top_priority() -> None:
    """S08 has the top healthy priority but is cut off; the naive answer picks it and fails."""
    task = _public()
    assert psab.solve(task).answer["new_lead"] == "S03"
    naive = psab.get_family(FAMILY).naive_answer(task)  # type: ignore[misc]
    assert naive["new_lead"] == "S08"
    assert psab.evaluate(task, {"answer": naive}).score == 0.0


def test_even_split_has_no_quorum() -> None:
    """Cut the ring into two halves of equal size: neither holds a strict majority → 'none'."""
    inputs = copy.deepcopy(_public().public_inputs)
    for link in inputs["links"]:
        if {link["a"], link["b"]} in ({"S02", "S06"}, {"S04", "S05"}):
            link["status"] = "down"
    # healthy: S02..S08 = 7; components {S02,S03,S04} {S05,S06,S07} {S08}: none above 3.5
    ans = psab.solve(_task(inputs)).answer
    assert ans["new_lead"] == "none"
    assert ans["allocation_mw"] == [0.0] * 8
    assert ans["shortfall_mw"] == pytest.approx(4.05)


def test_over_frequency_uses_down_reserves_with_negative_sign() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["frequency_deviation_hz"] = 0.5  # ΔP = −11.25 MW, more than the component's down reserve
    ans = psab.solve(_task(inputs)).answer
    comp = ["S02", "S03", "S04", "S05", "S06", "S07"]
    down = {s["id"]: s["reserve_down_mw"] for s in inputs["stations"]}
    assert ans["required_response_mw"] == pytest.approx(-11.25)
    assert all(a <= 0.0 for a in ans["allocation_mw"])
    assert ans["shortfall_mw"] == pytest.approx(11.25 - sum(down[i] for i in comp))


@settings(max_examples=60)
@given(demand=st.floats(0.0, 50.0), k=st.lists(st.floats(0.1, 10.0), min_size=1, max_size=8),
       caps=st.lists(st.floats(0.0, 5.0), min_size=8, max_size=8))
def test_allocation_properties(demand: float, k: list[float], caps: list[float]) -> None:
    """Shares never exceed caps, add up to demand minus shortfall, and uncapped shares stay
    proportional to K (the water-filling invariant)."""
    ids = [f"S{i}" for i in range(len(k))]
    kk = dict(zip(ids, k, strict=True))
    cc = dict(zip(ids, caps[: len(k)], strict=True))
    share, short = mas.allocate(demand, kk, cc)
    assert all(-1e-12 <= share[i] <= cc[i] + 1e-9 for i in ids)
    assert sum(share.values()) + short == pytest.approx(demand, abs=1e-9)
    if short > 1e-9:
        assert all(share[i] == pytest.approx(cc[i]) for i in ids)
    free = [i for i in ids if share[i] < cc[i] - 1e-9]
    ratios = [share[i] / kk[i] for i in free]
    if ratios:
        assert max(ratios) - min(ratios) <= 1e-9 * max(1.0, max(ratios))
        # a capped station's proportional share would have been at least its cap
        assert all(cc[i] <= max(ratios) * kk[i] + 1e-9 for i in ids if i not in free)


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda d: d.update(failed_lead="S99"), "/failed_lead"),
    (lambda d: d["links"][3].update(b="S42"), "/links/3/b"),
    (lambda d: d["links"][0].update(a="X1"), "/links/0/a"),
])
def test_unknown_station_ids_are_the_callers_error(mutate, field) -> None:  # type: ignore[no-untyped-def]
    inputs = copy.deepcopy(_public().public_inputs)
    mutate(inputs)
    with pytest.raises(InvalidTaskError, match=field):
        psab.solve(_task(inputs))


def test_generated_level_two_partitions_sometimes() -> None:
    """Level-2 draws include partitioned surviving graphs (more than one component)."""
    spec = psab.get_family(FAMILY)
    parts = 0
    for i in range(6):
        task = psab.generate(FAMILY, 7, i, level=2)
        stations, links = spec.solve.__globals__["case"](task.public_inputs)
        healthy = [s.id for s in stations if s.healthy]
        parts += len(mas.components(healthy, links)) > 1
    assert parts >= 1
