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


# ---------------------------------------------------------------- bus shunts (issue 25.4)

#: IEEE 14-bus test system, solved voltage magnitudes as published with the case (IEEE Common
#: Data Format; MATPOWER case14.m, bus data column VM): buses 1-14, p.u.
IEEE14_VM = (1.060, 1.045, 1.010, 1.019, 1.020, 1.070, 1.062, 1.090, 1.056, 1.051, 1.057, 1.055, 1.050, 1.036)


def _case14_voltages(with_shunts: bool) -> np.ndarray:
    from psab.surrogates.ac_power_flow import PQ, PV, SLACK, make_network, solve_ac
    from psab.surrogates.matpower_cases import transmission_case

    case = transmission_case("case14")
    pos = {b["id"]: i for i, b in enumerate(case["buses"])}
    n = len(pos)
    types, p_gen, v_set = [PQ] * n, np.zeros(n), np.ones(n)
    for g in case["generators"]:
        types[pos[g["bus"]]] = PV
        p_gen[pos[g["bus"]]], v_set[pos[g["bus"]]] = g["p_mw"], g["vm_pu"]
    types[pos[case["slack_bus"]]] = SLACK
    p_load, q_load, g_sh, b_sh = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    for ld in case["loads"]:
        p_load[pos[ld["bus"]]], q_load[pos[ld["bus"]]] = ld["p_mw"], ld["q_mvar"]
    for sh in case["shunts"] if with_shunts else ():
        g_sh[pos[sh["bus"]]], b_sh[pos[sh["bus"]]] = sh["g_pu"], sh["b_pu"]
    br = case["branches"]
    net = make_network(base_mva=case["base_mva"], bus_type=types, from_idx=[pos[b["from_bus"]] for b in br],
                       to_idx=[pos[b["to_bus"]] for b in br], r_pu=[b["r_pu"] for b in br], x_pu=[b["x_pu"] for b in br],
                       b_pu=[b["b_pu"] for b in br], tap_ratio=[b["tap_ratio"] for b in br],
                       phase_shift_deg=[b["phase_shift_deg"] for b in br], p_load_mw=p_load, q_load_mvar=q_load,
                       p_gen_mw=p_gen, v_set_pu=v_set, shunt_g_pu=g_sh, shunt_b_pu=b_sh)
    return np.abs(solve_ac(net).V)


def test_case14_shunt_reproduces_the_published_voltages() -> None:
    """With bus 9's 19 Mvar capacitor (b_pu = 0.19) the AC model gives the published voltages to
    their printed precision; without it bus 9 is off by more than that — the shunt matters."""
    np.testing.assert_allclose(_case14_voltages(True), IEEE14_VM, atol=1.5e-3)
    assert abs(_case14_voltages(False)[8] - IEEE14_VM[8]) > 5e-3


def test_level_two_draws_carry_the_case_shunt_and_dc_ignores_susceptance() -> None:
    task = psab.generate(cs.FAMILY_ID, SEED, 0, level=2)
    inputs = task.public_inputs
    assert inputs["shunts"] == [{"id": "SH9", "bus": "B9", "g_pu": 0.0, "b_pu": 0.19}]
    bare = {k: v for k, v in inputs.items() if k != "shunts"}
    np.testing.assert_array_equal(cs.dc_screening(inputs)[0], cs.dc_screening(bare)[0])
    # a conductance is a load of g_pu·base_mva at 1 pu in the DC model (MATPOWER's rundcpf)
    with_g = {**inputs, "shunts": [{"id": "SH9", "bus": "B9", "g_pu": 0.05, "b_pu": 0.19}]}
    as_load = {**bare, "loads": [*bare["loads"], {"id": "G9", "bus": "B9", "p_mw": 5.0, "q_mvar": 0.0}]}
    np.testing.assert_allclose(cs.dc_screening(with_g)[0], cs.dc_screening(as_load)[0], atol=1e-9)
    # the AC flows do see the capacitor, under both psab's Newton-Raphson and pandapower
    mine, mine_bare = cs.ac_screening_surrogate(inputs), cs.ac_screening_surrogate(bare)
    assert mine is not None and mine_bare is not None
    assert np.nanmax(np.abs(mine[0] - mine_bare[0])) > 1e-3
    need_backend("pandapower")
    theirs = cs.ac_screening(inputs, task.digest)
    np.testing.assert_allclose(mine[0], theirs[0], atol=1e-6)
