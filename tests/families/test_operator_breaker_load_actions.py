"""operator_breaker_load_actions: properties of the shedding MILP and bad input."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.errors import InvalidTaskError
from psab.families import operator_breaker_load_actions as fam
from psab.io import load_case
from psab.paths import case_dir


def _public() -> dict:
    return copy.deepcopy(load_case(case_dir(fam.FAMILY_ID)).public_inputs)


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1, 2]))
def test_reference_relieves_the_overload_and_never_sheds_more_than_the_load(seed, level):
    inp = fam.draw(np.random.default_rng(seed), level)
    try:
        case = fam.Case(inp)
    except InvalidTaskError:
        return
    open_mask, shed, obj = fam.solve_milp(case)
    assert (shed <= case.load_p + 1e-6).all() and (shed >= -1e-9).all()
    on = case.in_service(open_mask)
    flows = np.abs(fam.dc_flow.dc_power_flow(case.net, case.injections(shed), in_service=on).flow_mw)
    assert (flows[on] <= case.rating[on] + 1e-4).all()
    # Shedding everything is always feasible and never cheaper.
    assert obj <= float(case.priority @ case.load_p) + 1e-6


def test_doubling_a_priority_never_lowers_the_optimum():
    inp = _public()
    base = fam.solve_milp(fam.Case(inp))[2]
    for ld in inp["loads"]:
        ld["priority"] *= 2
    assert fam.solve_milp(fam.Case(inp))[2] >= base - 1e-9


def test_bad_input_is_the_callers_error():
    with pytest.raises(InvalidTaskError, match="/contingency/branch_id"):
        fam.Case(_public() | {"contingency": {"branch_id": "L99"}})
    inp = _public()
    inp["branches"][0]["to_bus"] = inp["branches"][0]["from_bus"]
    with pytest.raises(InvalidTaskError, match="itself"):
        fam.Case(inp)
    with pytest.raises(InvalidTaskError, match="/maintenance_outages/0"):
        fam.Case(_public() | {"maintenance_outages": ["L77"]})
