"""fci_placement: the MILP against exhaustive search, on the hand case and on draws."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.errors import InvalidTaskError
from psab.families import fci_placement as fam
from psab.io import load_case
from psab.paths import golden_dirs
from psab.solvers.fci_placement import solve_placement
from psab.surrogates import feeder_reliability as fr


def _golden() -> dict:
    return copy.deepcopy(load_case(golden_dirs(fam.FAMILY_ID)[0]).public_inputs)


@pytest.mark.parametrize(("budget", "expected", "chosen"), [(1, 13140.0, ["S3"]), (2, 8340.0, ["S2", "S3"])])
def test_milp_and_exhaustive_search_reach_the_hand_optimum(budget, expected, chosen):
    # golden/fci_placement/hand_four_sections/README.md enumerates every placement by hand.
    inp = _golden() | {"budget_fci": budget}
    m = fam.model(inp)
    ranked = fr.placement_costs(m["tree"], m["rate"], m["customers"], m["patrol"], m["device"], budget, m["installed"])
    assert ranked[0][0] == pytest.approx(expected)
    assert [inp["sections"][i]["id"] for i in ranked[0][1]] == chosen
    picks, obj = solve_placement(m["tree"], m["weight"], m["patrol"], m["device"], budget, m["installed"])
    assert obj == pytest.approx(expected)
    assert [inp["sections"][i]["id"] for i in picks] == chosen


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1, 2]))
def test_milp_equals_exhaustive_search_on_draws(seed, level):
    inp = fam.draw(np.random.default_rng(seed), level)
    m = fam.model(inp)
    k = int(inp["budget_fci"])
    ranked = fr.placement_costs(m["tree"], m["rate"], m["customers"], m["patrol"], m["device"], k, m["installed"])
    _, obj = solve_placement(m["tree"], m["weight"], m["patrol"], m["device"], k, m["installed"])
    assert obj == pytest.approx(ranked[0][0], rel=1e-7)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000))
def test_adding_an_indicator_never_raises_the_cost(seed):
    inp = fam.draw(np.random.default_rng(seed), 1)
    m = fam.model(inp)
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(m["tree"].n, size=2, replace=False).tolist())
    assert fam.cost(m, chosen) <= fam.cost(m, chosen[:1]) + 1e-9 <= fam.cost(m, []) + 2e-9


def test_bad_input_is_the_callers_error():
    with pytest.raises(InvalidTaskError, match="/installed_fci_sections/0"):
        fam.model(_golden() | {"installed_fci_sections": ["S9"]})
    with pytest.raises(InvalidTaskError, match="/budget_fci"):
        fam.model(_golden() | {"budget_fci": 5})
    inp = _golden()
    inp["sections"][1]["to_bus"] = "B1"
    with pytest.raises(InvalidTaskError, match="itself"):
        fam.model(inp)
