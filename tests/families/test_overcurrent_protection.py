"""overcurrent_protection: the LP optimum against an exhaustive grid search and the
closed-form tightest chain, and score properties (golden cases: tests/test_golden.py)."""

from __future__ import annotations

import copy
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.paths import case_dir

from conftest import need_highs

FAMILY = "overcurrent_protection"
# IEC 60255-151 Table 1, written out here so the test does not reuse the code under test
K_ALPHA = {"standard_inverse": (0.14, 0.02), "very_inverse": (13.5, 1.0), "extremely_inverse": (80.0, 2.0)}


def _factor(curve: str, multiple: float) -> float:
    k, alpha = K_ALPHA[curve]
    return k / (multiple**alpha - 1.0)


def _tiny_feeder() -> dict:
    """Three relays, mixed curves (VI at the far end, SI upstream), CTI 0.35 s, range [0.05, 0.6]."""
    relay = lambda rid, ct, plug, curve, ik: {  # noqa: E731
        "id": rid, "bus": "B" + rid[1], "section": f"B{rid[1]}-B{int(rid[1]) + 1}", "ct_primary_a": ct,
        "ct_secondary_a": 1, "pickup_secondary_a": plug, "curve": curve, "ik_max_near_ka": ik,
        "ik_min_far_ka": ik / 3, "i_load_max_a": ct * plug / 2,
    }
    return {
        "feeder": "test feeder", "nominal_voltage_kv": 11.0,
        "curves": {"standard_inverse": {"k_s": 0.14, "alpha": 0.02}, "very_inverse": {"k_s": 13.5, "alpha": 1.0}},
        "relays": [relay("R1", 600, 1.0, "standard_inverse", 7.2), relay("R2", 300, 1.25, "standard_inverse", 4.5),
                   relay("R3", 200, 1.0, "very_inverse", 2.6)],
        "pairs": [{"backup": "R1", "primary": "R2"}, {"backup": "R2", "primary": "R3"}],
        "cti_s": 0.35, "tms_min": 0.05, "tms_max": 0.6,
    }


def _task(inputs: dict) -> psab.Task:
    return psab.get_family(FAMILY).make_task(task_id="oc-test", split="golden", public_inputs=inputs)


def test_lp_optimum_matches_exhaustive_grid_search() -> None:
    need_highs()
    inputs = _tiny_feeder()
    ip = {r["id"]: r["ct_primary_a"] * r["pickup_secondary_a"] for r in inputs["relays"]}
    ik = {r["id"]: r["ik_max_near_ka"] * 1e3 for r in inputs["relays"]}
    curve = {r["id"]: r["curve"] for r in inputs["relays"]}
    a = {rid: _factor(curve[rid], ik[rid] / ip[rid]) for rid in ip}
    # every TMS on a 0.0025 grid over the device range: 197^3 ≈ 7.6 million settings
    step = 0.0025
    grid = np.round(np.arange(0.05, 0.6 + 1e-9, step), 6)
    t1, t2, t3 = np.meshgrid(grid, grid, grid, indexing="ij", sparse=True)
    ok = (_factor("standard_inverse", ik["R2"] / ip["R1"]) * t1 - a["R2"] * t2 >= 0.35) & (
        _factor("standard_inverse", ik["R3"] / ip["R2"]) * t2 - a["R3"] * t3 >= 0.35
    )
    objective = np.where(ok, a["R1"] * t1 + a["R2"] * t2 + a["R3"] * t3, np.inf)
    best = float(objective.min())
    i1, i2, i3 = np.unravel_index(int(objective.argmin()), objective.shape)

    ref = psab.solve(_task(inputs))
    result = psab.evaluate(_task(inputs), ref)
    assert result.feasible and result.score == 1.0
    lp = result.evidence["objective"]
    # the LP optimum is never worse than a grid point, and the grid is within one step of it
    assert lp <= best + 1e-9
    assert best - lp <= step * sum(a.values())
    tms = ref.answer["tms"]
    for rid, idx in zip(("R1", "R2", "R3"), (i1, i2, i3), strict=True):
        assert abs(tms[rid] - grid[idx]) <= step + 1e-9, rid


def _chain(inputs: dict) -> dict[str, float]:
    """The tightest chain from the downstream end, written independently of the family code."""
    relays = {r["id"]: r for r in inputs["relays"]}
    ip = {rid: r["ct_primary_a"] * r["pickup_secondary_a"] / r["ct_secondary_a"] for rid, r in relays.items()}
    f = lambda rid, ka: _factor(relays[rid]["curve"], ka * 1e3 / ip[rid])  # noqa: E731
    ids = [r["id"] for r in inputs["relays"]]
    tms = {ids[-1]: inputs["tms_min"]}
    for backup, primary in zip(reversed(ids[:-1]), reversed(ids[1:]), strict=True):
        ik = relays[primary]["ik_max_near_ka"]
        t_primary = tms[primary] * f(primary, ik)
        tms[backup] = max(inputs["tms_min"], (t_primary + inputs["cti_s"]) / f(backup, ik))
    return tms


@pytest.mark.parametrize("index", range(6))
def test_reference_is_the_tightest_chain_on_generated_feeders(index: int) -> None:
    need_highs()
    task = psab.generate(FAMILY, 424242, index)
    expected = _chain(task.public_inputs)
    got = psab.solve(task).answer["tms"]
    for rid, tms in expected.items():
        assert got[rid] == pytest.approx(tms, rel=1e-6, abs=1e-9), rid



def test_a_tightened_downstream_setting_breaks_grading_at_the_backup() -> None:
    task = psab.load_case(case_dir(FAMILY))
    answer = copy.deepcopy(psab.solve(task).answer)
    answer["tms"]["R4"] *= 1.02  # R4 slower: its backup R3 no longer leads by the CTI
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert [v.field for v in result.violations] == ["/tms/R3"]
    answer["tms"]["R5"] = 0.02  # below the device range
    result = psab.evaluate(task, {"answer": answer})
    assert "/tms/R5" in [v.field for v in result.violations]


@settings(max_examples=25, deadline=None)
@given(c=st.floats(min_value=1.0, max_value=1.6))
def test_uniformly_slower_settings_stay_feasible_and_score_two_minus_c(c: float) -> None:
    # Scaling every TMS by c ≥ 1 keeps every grading margin (it scales by c too) and multiplies
    # the objective by c: score = 1 − (c − 1)·J/J = 2 − c, as long as the range holds.
    task = psab.load_case(case_dir(FAMILY))
    answer = copy.deepcopy(psab.solve(task).answer)
    answer["tms"] = {rid: t * c for rid, t in answer["tms"].items()}
    result = psab.evaluate(task, {"answer": answer})
    assert result.feasible
    expected = 1.0 if (c - 1.0) <= 1e-4 else 2.0 - c
    assert result.score == pytest.approx(expected, abs=1e-9)


def test_every_grading_pair_is_checked_and_reported() -> None:
    task = psab.load_case(case_dir(FAMILY))
    ids = [r["id"] for r in task.public_inputs["relays"]]
    answer = {"tms": dict.fromkeys(ids, task.public_inputs["tms_min"])}
    result = psab.evaluate(task, {"answer": answer})
    # equal minimum settings: every backup is slower only by its curve, never by a full CTI
    assert sorted(v.field for v in result.violations) == sorted(f"/tms/{b}" for b in ids[:-1])
    assert all(math.isfinite(g["margin_s"]) for g in result.evidence["grading"])


def test_pairs_of_the_public_case_follow_the_feeder() -> None:
    inputs = psab.load_case(case_dir(FAMILY)).public_inputs
    ids = [r["id"] for r in inputs["relays"]]
    assert [(p["backup"], p["primary"]) for p in inputs["pairs"]] == list(itertools.pairwise(ids))


def test_generated_source_gives_back_its_short_circuit_level_at_the_source_bus() -> None:
    """IEC 60909-0:2016 §6.2 eq. (1): Z_Q = c·U_nQ²/S″kQ, so a bolted fault at the source bus
    carries I″kQ = S″kQ/(√3·U_nQ): 200 MVA at 11 kV → 10.497 kA (issue 33: 11.547 kA, c left out)."""
    from psab.families import overcurrent_protection as oc

    inputs = oc.feeder_inputs(un_kv=11.0, s_sc_max_mva=200.0, s_sc_min_mva=150.0, section_km=[1e-6, 2.0, 2.0, 2.0],
                              z_per_km_ohm=complex(0.3, 0.35), loads_mva=[1.0, 1.0, 1.0, 1.0],
                              curve="standard_inverse", cti_s=0.3)
    assert inputs is not None
    assert inputs["relays"][0]["ik_max_near_ka"] == pytest.approx(200.0 / (3 ** 0.5 * 11.0), abs=1e-3)
