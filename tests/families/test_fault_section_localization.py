"""fault_section_localization: the evidence physics and the resolving rule."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.errors import InvalidTaskError
from psab.families import fault_section_localization as fam
from psab.io import load_case
from psab.paths import case_dir


def _public() -> dict:
    return copy.deepcopy(load_case(case_dir(fam.FAMILY_ID)).public_inputs)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1, 2]))
def test_clean_evidence_has_zero_disagreement_at_the_true_section(seed, level):
    # With every indicator working and honest calls, the true section explains all evidence.
    inp = fam.draw(np.random.default_rng(seed), level)
    m = fam.model(inp)
    tree = m["tree"]
    rng = np.random.default_rng(seed + 1)
    f = int(rng.integers(tree.n))
    reg = {a for a in m["fci"] if tree.sub[a, f]}
    out = np.flatnonzero(fam.fr.interrupted(tree, m["device"])[f]).tolist()
    d = fam.disagreement(m, (reg, out, [f]))
    assert d[f] == 0
    assert (np.delete(d, f) >= 1).all()


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_registered_indicators_lie_on_one_path_without_failures(seed):
    # An indicator registers iff the fault is at or below it: the registered ones form a chain.
    inp = fam.draw(np.random.default_rng(seed), 2)
    m = fam.model(inp)
    for reg, _, _ in m["events"]:
        r = sorted(reg)
        for a in r:
            for b in r:
                assert m["tree"].sub[a, b] or m["tree"].sub[b, a]


def test_bad_input_is_the_callers_error():
    inp = _public()
    inp["events"][0]["damage_reports_at_sections"] = ["S42-43"]
    with pytest.raises(InvalidTaskError, match="/events/0/damage_reports_at_sections/0"):
        fam.located(inp)
    inp = _public()
    no_fci = next(s["id"] for s in inp["sections"] if s["id"] not in inp["fci_sections"])
    inp["events"][1]["fci_registered"] = [no_fci]
    with pytest.raises(InvalidTaskError, match="carries no indicator"):
        fam.located(inp)
    inp = _public()
    inp["sections"][0]["to_bus"] = inp["sections"][0]["from_bus"]
    with pytest.raises(InvalidTaskError, match="itself"):
        fam.located(inp)
    inp = _public()
    inp["sections"].append(dict(inp["sections"][-1], id="S11-4", from_bus="B11", to_bus="B4"))
    with pytest.raises(InvalidTaskError, match="not radial"):
        fam.located(inp)
