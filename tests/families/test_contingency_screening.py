"""contingency_screening: the DC+LODF screening and the AC N-1 loop agree, and the evaluator
scores misses the way the task says."""

from __future__ import annotations

import copy

import numpy as np

import psab
from psab.families import contingency_screening as cs
from psab.paths import case_dir

from conftest import budget, need_backend

SEED = 738_2024
N_GENERATED = budget(50, 250)


def _public() -> psab.Task:
    return psab.load_case(case_dir(cs.FAMILY_ID))


def test_backends_classify_identically_on_public_and_50_generated_cases() -> None:
    """The agreement the generator's margin band is there for: DC with LODF against pandapower's
    AC N-1 loop (one Newton-Raphson power flow per outage), outcome by outcome."""
    need_backend("pandapower")
    spec = psab.get_family(cs.FAMILY_ID)
    tasks = [_public()] + [psab.generate(cs.FAMILY_ID, SEED, i) for i in range(N_GENERATED)]
    disagreements = []
    statuses = set()
    for task in tasks:
        dc = spec.solve(task, "surrogate").answer["outages"]
        ac = spec.solve(task, "pandapower").answer["outages"]
        statuses.update(o["status"] for o in dc.values())
        disagreements += [(task.id, k, dc[k], ac[k]) for k in dc if dc[k] != ac[k]]
    assert not disagreements, disagreements[:5]
    assert statuses == {"secure", "overload", "islanding"}


def test_backends_classify_identically_on_level_two_cases() -> None:
    """Level 2 (IEEE 14-bus, a phase shifter, 33-kV branches where the AC-DC gap reaches 20 % of a
    rating): ratings are drawn against both the DC flows and psab's own AC Newton-Raphson, so
    pandapower's AC N-1 loop must classify every outage as the DC screening does."""
    need_backend("pandapower")
    spec = psab.get_family(cs.FAMILY_ID)
    for i in range(4):
        task = psab.generate(cs.FAMILY_ID, SEED, i, level=2)
        dc = spec.solve(task, "surrogate").answer["outages"]
        ac = spec.solve(task, "pandapower").answer["outages"]
        assert dc == ac, (i, [k for k in dc if dc[k] != ac[k]])
        assert any(b["phase_shift_deg"] for b in task.public_inputs["branches"])


def test_surrogate_ac_flows_match_pandapower() -> None:
    """The AC model the level-2 generator rates against is the one pandapower solves."""
    need_backend("pandapower")
    task = psab.generate(cs.FAMILY_ID, SEED, 0, level=2)
    mine = cs.ac_screening_surrogate(task.public_inputs)
    theirs = cs.ac_screening(task.public_inputs, task.digest)
    assert mine is not None
    np.testing.assert_allclose(mine[0], theirs[0], atol=1e-6)
    np.testing.assert_allclose(mine[1], theirs[1], atol=1e-6)


def test_generated_cases_keep_their_loadings_out_of_the_agreement_band() -> None:
    for i in range(10):
        inputs = psab.generate(cs.FAMILY_ID, SEED, i).public_inputs
        rating = np.array([b["rating_mw"] for b in inputs["branches"]])
        _, post, bridge = cs.dc_screening(inputs)
        loading = np.abs(post[:, ~bridge]) / rating[:, None]
        assert not np.any((loading >= 0.96) & (loading <= 1.03))


def test_public_case_answer_from_the_numbers_of_its_post_outage_flows() -> None:
    """On the public case the L1-2 outage sends the slack's export over L1-3: the DC
    post-outage flow there is the base flow plus LODF × the lost flow, above the 200 MW rating."""
    inputs = _public().public_inputs
    base, post, bridge = cs.dc_screening(inputs)
    ids = [b["id"] for b in inputs["branches"]]
    k, j = ids.index("L1-2"), ids.index("L1-3")
    assert post[j, k] > 200.0 and base[j] < 200.0
    assert bridge.tolist() == [i == "L8-9" for i in ids]


def _answer() -> dict:
    return copy.deepcopy(psab.solve(_public()).answer)


def test_a_wrong_overload_list_is_a_named_miss() -> None:
    task = _public()
    answer = _answer()
    answer["outages"]["L2-4"]["overloaded_branch_ids"] = ["L2-3"]  # L3-5 forgotten
    result = psab.evaluate(task, {"answer": answer})
    n = len(task.public_inputs["branches"])
    assert result.feasible
    assert result.score == (n - 1) / n
    assert [m["outage"] for m in result.evidence["misses"]] == ["L2-4"]


def test_islanding_called_secure_is_a_miss() -> None:
    task = _public()
    answer = _answer()
    answer["outages"]["L8-9"]["status"] = "secure"
    result = psab.evaluate(task, {"answer": answer})
    assert result.feasible and result.score < 1.0
    assert result.evidence["misses"][0]["expected"]["status"] == "islanding"


def test_list_out_of_case_order_or_inconsistent_status_is_malformed() -> None:
    task = _public()
    answer = _answer()
    answer["outages"]["L2-4"]["overloaded_branch_ids"] = ["L3-5", "L2-3"]
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert result.violations[0].field == "/outages/L2-4/overloaded_branch_ids"
    answer = _answer()
    answer["outages"]["L4-5"]["overloaded_branch_ids"] = ["L1-2"]  # status still "secure"
    assert not psab.evaluate(task, {"answer": answer}).feasible


def test_all_secure_answer_scores_the_share_of_secure_outages() -> None:
    task = _public()
    ids = [b["id"] for b in task.public_inputs["branches"]]
    answer = {"outages": {i: {"status": "secure", "overloaded_branch_ids": []} for i in ids}}
    result = psab.evaluate(task, {"answer": answer})
    # the public case: L4-5, L4-6, L5-6, T5-8, L7-8 secure (five of twelve outages)
    assert result.score == 5 / 12
