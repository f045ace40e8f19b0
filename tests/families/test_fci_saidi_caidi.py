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


def _two_sections(tie_bus):
    """B1 —S1→ B2 —S2→ B3, ten customers at B2 and ten at B3; only S1 fails (1 /yr)."""
    sec = {"kind": "cable", "length_km": 1.0, "customers": 10, "patrol_time_h": 1.0, "repair_time_h": 10.0}
    return {"substation_bus": "B1", "switching_time_h": 0.5, "fci_sections": [], "tie_bus": tie_bus,
            "sections": [dict(sec, id="S1", from_bus="B1", to_bus="B2", failure_rate_per_yr=1.0),
                         dict(sec, id="S2", from_bus="B2", to_bus="B3", failure_rate_per_yr=0.0)]}


def test_repair_runs_from_the_end_of_location_and_a_tie_at_the_faulted_sections_far_end_stays_open():
    """Hand count (the statement's steps 2-4): a fault on S1 is located after patrolling S1 and S2
    (2 h); the repair (10 h) runs from then, so all 20 customers are out 12 h: SAIDI = 12 h · 60 =
    720 min. A tie at B2 — S1's own far end — would feed the fault, so it changes nothing; a tie at
    B3 brings B3 back at 2 h + 0.5 h: SAIDI = (10·12 + 10·2.5)·60/20 = 435 min. Repair after the
    switching would give 12.5 h (750 min); from the fault, 10 h (600 min)."""
    assert fam.quantities(_two_sections("B2"))["saidi_before_min_per_yr"] == pytest.approx(720.0)
    assert fam.quantities(_two_sections(None))["saidi_before_min_per_yr"] == pytest.approx(720.0)
    assert fam.quantities(_two_sections("B3"))["saidi_before_min_per_yr"] == pytest.approx(435.0)
    assert fam.quantities(_two_sections("B2"), repair_origin="switching")["saidi_before_min_per_yr"] == pytest.approx(750.0)
    assert fam.quantities(_two_sections("B2"), repair_origin="fault")["saidi_before_min_per_yr"] == pytest.approx(600.0)
