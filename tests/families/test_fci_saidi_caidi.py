"""fci_saidi_caidi: properties of the reliability simulation and bad input."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.errors import InvalidTaskError
from psab.families import fci_saidi_caidi as fam
from psab.io import load_case
from psab.paths import case_dir


def _public() -> dict:
    return copy.deepcopy(load_case(case_dir(fam.FAMILY_ID)).public_inputs)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1, 2]))
def test_indicators_never_worsen_saidi_and_leave_saifi_alone(seed, level):
    q = fam.quantities(fam.draw(np.random.default_rng(seed), level))
    assert q["saifi_after_per_yr"] == pytest.approx(q["saifi_before_per_yr"])
    assert q["saidi_after_min_per_yr"] <= q["saidi_before_min_per_yr"] + 1e-9
    assert q["caidi_before_min"] == pytest.approx(q["saidi_before_min_per_yr"] / q["saifi_before_per_yr"])


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_more_indicators_never_hurt_and_all_indicators_bound_the_gain(seed):
    inp = fam.draw(np.random.default_rng(seed), 1)
    ids = [s["id"] for s in inp["sections"]]
    base = fam.quantities(inp)["saidi_after_min_per_yr"]
    more = fam.quantities(inp | {"fci_sections": ids})["saidi_after_min_per_yr"]
    assert more <= base + 1e-9


def test_a_tie_only_shortens_outages():
    inp = fam.draw(np.random.default_rng(3), 2)
    with_tie = fam.quantities(inp)["saidi_before_min_per_yr"]
    without = fam.quantities(inp | {"tie_bus": None})["saidi_before_min_per_yr"]
    assert with_tie < without


def test_bad_input_is_the_callers_error():
    inp = _public()
    with pytest.raises(InvalidTaskError, match="/fci_sections/0"):
        fam.quantities(inp | {"fci_sections": ["S99-100"]})
    looped = _public()
    looped["sections"].append(dict(looped["sections"][-1], id="S11-4", from_bus="B11", to_bus="B4"))
    with pytest.raises(InvalidTaskError, match="not radial"):
        fam.quantities(looped)
    selfloop = _public()
    selfloop["sections"][2]["to_bus"] = selfloop["sections"][2]["from_bus"]
    with pytest.raises(InvalidTaskError, match="itself"):
        fam.quantities(selfloop)
    with pytest.raises(InvalidTaskError, match="/tie_bus"):
        fam.quantities(_public() | {"tie_bus": "B77"})
