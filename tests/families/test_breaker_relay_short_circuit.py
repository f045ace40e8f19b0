"""breaker_relay_short_circuit: backend agreement, the hand-derived optimum by enumeration,
constraint checks that catch real mistakes and accept legitimate choices."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

import psab
from psab.families import breaker_relay_short_circuit as fam
from psab.paths import case_dir, golden_root

from conftest import need_backend

FAMILY = "breaker_relay_short_circuit"
SEED = 20261130


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def _golden() -> psab.Task:
    return psab.load_case(golden_root() / FAMILY / "hand_radial_two_breakers")


def _assert_levels_agree(inputs: dict, label: str) -> None:
    sur = fam.fault_levels(inputs, "surrogate")
    pp = fam.fault_levels(inputs, "pandapower")
    assert sur.keys() == pp.keys()
    for bus, values in sur.items():
        for name, v in values.items():
            assert pp[bus][name] == pytest.approx(v, rel=1e-9), (label, bus, name)


def test_backends_agree_on_public_case() -> None:
    need_backend("pandapower")
    _assert_levels_agree(_public().public_inputs, "public")


def test_backends_agree_on_generated_cases() -> None:
    need_backend("pandapower")
    public = _public()
    for i in range(50):
        _assert_levels_agree(fam.generate(public, np.random.default_rng([SEED, i])).public_inputs, f"draw {i}")


def test_golden_optimum_by_enumeration() -> None:
    """Every assignment of the five catalog types to the two breakers: the cheapest feasible one
    costs 19 kEUR (hand-derived in the golden README) and is the reference's."""
    task = _golden()
    types = [c["type"] for c in task.public_inputs["breaker_catalog"]]
    feasible = {}
    for pair in itertools.product(types, repeat=2):
        result = psab.evaluate(task, {"answer": {"breaker_types": list(pair), "relay_pickups_a": [390.0]}})
        if result.feasible:
            feasible[pair] = result.evidence["objective"]
    best = min(feasible.values())
    assert best == 19.0
    assert [p for p, v in feasible.items() if v == best] == [("MV-24kV-12.5kA", "MV-24kV-10kA")]
    assert ("MV-12kV-25kA", "MV-24kV-10kA") not in feasible  # 12 kV equipment on a 20 kV system


def test_pickups_inside_the_band_are_accepted_outside_rejected() -> None:
    task = _golden()
    ref = psab.solve(task).answer
    for pickup, ok in ((390.0, True), (800.0, True), (1272.0, True), (389.0, False), (1273.0, False)):
        result = psab.evaluate(task, {"answer": {**ref, "relay_pickups_a": [pickup]}})
        assert result.feasible is ok, pickup
        if ok:
            assert result.score == 1.0


def test_making_current_binds_in_the_public_case() -> None:
    """At B2 the 25 kA MV breaker interrupts 1.1·I″k but cannot make 1.1·i_p (κ ≈ 1.87)."""
    task = _public()
    ref = psab.solve(task).answer
    answer = copy.deepcopy(ref)
    answer["breaker_types"][1] = "MV-12kV-25kA"
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    assert [v.constraint.split(":")[1].strip().split(" ")[0] for v in result.violations] == ["making"]


def test_dearer_admissible_breaker_scores_in_proportion() -> None:
    task = _public()
    ref = psab.solve(task).answer
    answer = copy.deepcopy(ref)
    answer["breaker_types"][0] = "HV-123kV-31.5kA"  # admissible, 12 kEUR dearer than HV-123kV-25kA
    result = psab.evaluate(task, {"answer": answer})
    base = result.evidence["reference_objective"]
    assert result.feasible
    assert result.score == pytest.approx(1.0 - 12.0 / base)


def test_swapped_pickups_are_rejected() -> None:
    task = _public()
    ref = psab.solve(task).answer
    swapped = {**ref, "relay_pickups_a": list(reversed(ref["relay_pickups_a"]))}
    result = psab.evaluate(task, {"answer": swapped})
    assert not result.feasible and "/relay_pickups_a/0" in {v.field for v in result.violations}


def test_feeder_impedance_takes_the_c_of_its_own_voltage() -> None:
    """The statement's convention (issue 26): Z_Q = c·U_nQ²/S″kQ with the c of the feeder's own
    nominal voltage (110 kV: c_max = 1.10), not the fault's LV c (1.05 with a 6 % tolerance).
    Independent arithmetic (IEC 60909-0:2016 eqs. 1, 7–9, 12a, 29) for a weak 110 kV feeder
    (S″kQ = 100 MVA, R/X 0.1) and a 2.5 MVA 110/0.4 kV transformer (u_k 6 %, u_Rr 1 %): at 0.4 kV
    Z_Q = 1.10·0.4²/100, Z_T = 0.06·0.4²/2.5, K_T = 0.95·1.05/(1 + 0.6·x_T),
    I″k = 1.05·0.4/(√3·|Z_Q + K_T·Z_T|)."""
    import math

    inputs = {"frequency_hz": 50, "lv_tolerance_pct": 6, "kappa_method": "radial",
              "buses": [{"id": "B1", "vn_kv": 110.0}, {"id": "B2", "vn_kv": 0.4}],
              "feeders": [{"id": "Q1", "bus": "B1", "skss_max_mva": 100.0, "rx_max": 0.1,
                           "skss_min_mva": 80.0, "rx_min": 0.1}],
              "transformers": [{"id": "T1", "hv_bus": "B1", "lv_bus": "B2", "sn_mva": 2.5, "vn_hv_kv": 110.0,
                                "vn_lv_kv": 0.4, "uk_pct": 6.0, "ukr_pct": 1.0}],
              "lines": [], "breakers": [{"id": "CB", "bus": "B2"}],
              "relays": [{"id": "R", "breaker": "CB", "max_load_a": 100.0, "zone_end_bus": "B2"}],
              "breaker_catalog": [{"type": "LV", "rated_voltage_kv": 0.69, "breaking_ka": 50.0, "making_ka": 105.0,
                                   "cost_keur": 4.0}]}

    def ik(c_q: float) -> float:
        z_q = c_q * 0.4**2 / 100.0
        x_q = z_q / math.sqrt(1.01)
        z_t, r_t = 0.06 * 0.4**2 / 2.5, 0.01 * 0.4**2 / 2.5
        k_t = 0.95 * 1.05 / (1 + 0.6 * math.sqrt(0.06**2 - 0.01**2))
        z = complex(0.1 * x_q, x_q) + k_t * complex(r_t, math.sqrt(z_t**2 - r_t**2))
        return 1.05 * 0.4 / (math.sqrt(3) * abs(z))

    assert abs(ik(1.10) - ik(1.05)) > 5e-3 * ik(1.10)  # the reading decides the number
    for backend in ("surrogate", "pandapower"):
        if backend == "pandapower":
            need_backend("pandapower")
        got = fam.fault_levels(inputs, backend)["B2"]["ikss_ka"]
        assert got == pytest.approx(ik(1.10), rel=1e-9), backend


def test_trivial_draws_are_rejected() -> None:
    """The ambiguity check: a draw where the cheapest breaker of each voltage class is admissible
    everywhere needs no short-circuit calculation, and acceptance refuses it."""
    task = _public()
    levels = fam.fault_levels(task.public_inputs, "surrogate")
    cheap_everywhere = dict(task.public_inputs)
    cheap_everywhere["breaker_catalog"] = [dict(c, breaking_ka=999.0, making_ka=2500.0) for c in task.public_inputs["breaker_catalog"]]
    by_cost = sorted(cheap_everywhere["breaker_catalog"], key=lambda c: (c["cost_keur"], c["type"]))
    types = [next(c["type"] for c in by_cost if c["rated_voltage_kv"] >= levels[b["bus"]]["un_kv"])
             for b in cheap_everywhere["breakers"]]
    assert fam.trivial_optimum(cheap_everywhere, levels, types) is not None


# ---------------------------------------------------------------- breaking current I_b (§9.1.3)

#: IEC TR 60909-4:2021, I_b at F1–F8 for t_min = 0.1 s (listed in pandapower's
#: test_iec60909_4.py::test_iec_60909_4_3ph, ``ib = [...]``; see tests/surrogates/test_iec60909.py).
TR_IB_KA = {"F1": 40.645, "F2": 31.570, "F3": 19.388, "F4": 16.017, "F5": 32.795, "F6": 34.028, "F7": 23.212,
            "F8": 13.578}


def _tr_breaker_case() -> dict:
    """The IEC TR 60909-4 network (the three_phase_short_circuit golden case's data, motor pole
    pairs added) with a breaker on every F bus and t_min = 0.1 s."""
    net = psab.load_case(golden_root() / "three_phase_short_circuit" / "iec_tr_60909_4_hv_network").public_inputs
    inputs = {k: copy.deepcopy(v) for k, v in net.items()
              if k in ("buses", "feeders", "transformers", "transformers_3w", "lines", "generators",
                       "power_station_units", "motors", "frequency_hz", "lv_tolerance_pct")}
    for m in inputs["motors"]:
        m["pole_pairs"] = {"M1": 1, "M2": 2}[m["id"]]
    inputs.update(
        kappa_method="C", min_time_delay_s=0.1, breaker_margin=1.0, pickup_load_factor=1.3, pickup_fault_factor=1.5,
        breakers=[{"id": f"CB-{b}", "bus": b} for b in TR_IB_KA],
        relays=[{"id": "R-L6", "breaker": "CB-F6", "max_load_a": 300.0, "zone_end_bus": "F7"}],
        breaker_catalog=[
            {"type": "HV-420kV-50kA", "rated_voltage_kv": 420.0, "breaking_ka": 50.0, "making_ka": 125.0, "cost_keur": 300.0},
            {"type": "HV-123kV-40kA", "rated_voltage_kv": 123.0, "breaking_ka": 40.0, "making_ka": 100.0, "cost_keur": 120.0},
            {"type": "MV-36kV-25kA", "rated_voltage_kv": 36.0, "breaking_ka": 25.0, "making_ka": 63.0, "cost_keur": 30.0},
            # admissible at F6 by I_b = 34.03 kA but not by I″k = 37.56 kA; making 100 kA ≥ i_p = 98.14 kA
            {"type": "MV-12kV-36kA", "rated_voltage_kv": 12.0, "breaking_ka": 36.0, "making_ka": 100.0, "cost_keur": 25.0},
            {"type": "MV-12kV-40kA", "rated_voltage_kv": 12.0, "breaking_ka": 40.0, "making_ka": 104.0, "cost_keur": 29.0},
        ])
    return inputs


@pytest.mark.parametrize("backend", ["surrogate", "pandapower"])
def test_tr_60909_4_breaking_currents_on_both_backends(backend: str) -> None:
    """Published I_b within 3 A at F1–F5 and F8 and within the printed 1 A at F6/F7 (eq. 75 in
    complex form, tests/surrogates/test_iec60909.py), under either backend; pandapower 3.5 has
    no I_b, so its I_b is its own I″k less the kernel's decay terms."""
    if backend == "pandapower":
        need_backend("pandapower")
    levels = fam.fault_levels(_tr_breaker_case(), backend)
    for bus, ib in TR_IB_KA.items():
        tol_ka = 1e-3 if bus in ("F6", "F7") else 3e-3
        assert levels[bus]["ib_ka"] == pytest.approx(ib, abs=tol_ka), bus
        assert 0.0 < levels[bus]["idc_ka"] < np.sqrt(2) * levels[bus]["ikss_ka"]


def test_breaking_current_decides_a_breaker() -> None:
    """At F6 (G3 and the motors near the fault) the 36 kA breaker is admissible by I_b but not by
    I″k: the reference picks it with t_min and the dearer 40 kA type without."""
    inputs = _tr_breaker_case()
    task = fam.SPEC.make_task(task_id="tr-breaking", split="test", public_inputs=inputs)
    ref = psab.solve(task)
    at_f6 = ref.answer["breaker_types"][list(TR_IB_KA).index("F6")]
    assert at_f6 == "MV-12kV-36kA"
    no_tmin = {k: v for k, v in inputs.items() if k != "min_time_delay_s"}
    ref2 = psab.solve(fam.SPEC.make_task(task_id="tr-ikss", split="test", public_inputs=no_tmin))
    assert ref2.answer["breaker_types"][list(TR_IB_KA).index("F6")] == "MV-12kV-40kA"
    # the I″k-only answer is feasible but dearer under t_min; the I_b answer is infeasible without t_min
    assert psab.evaluate(task, {"answer": ref2.answer}).score < 1.0
    assert psab.evaluate(fam.SPEC.make_task(task_id="tr-ikss", split="test", public_inputs=no_tmin),
                         {"answer": ref.answer}).score == 0.0


def test_motor_without_pole_pairs_is_an_invalid_task() -> None:
    inputs = _tr_breaker_case()
    del inputs["motors"][0]["pole_pairs"]
    with pytest.raises(psab.InvalidTaskError, match="pole_pairs"):
        fam.fault_levels(inputs, "surrogate")


@pytest.mark.parametrize("level", [2, 3])
def test_backends_agree_on_near_generator_levels(level: int) -> None:
    need_backend("pandapower")
    public = _public()
    for i in range(8):
        inputs = fam.generate(public, np.random.default_rng([SEED, level, i]), level=level).public_inputs
        assert "min_time_delay_s" in inputs and all("pole_pairs" in m for m in inputs["motors"])
        _assert_levels_agree(inputs, f"level {level} draw {i}")


def test_three_winding_pairs_read_on_the_hv_rating_cost_the_answer() -> None:
    """Issue 33: the pair values of a three-winding transformer are on the smaller rating of the
    pair (IEC 60909-0:2016 §6.3.2, S_rTAB); the answer of an engineer who took them on the HV
    rating is not the reference's on a level-3 draw (the three-winding auxiliary system)."""
    from psab.families import breaker_relay_short_circuit as fam

    task = psab.generate("breaker_relay_short_circuit", 20261130, 0, level=3)
    (name, other), = fam.other_readings(task)
    assert name == "uk_pairs_on_hv_rating"
    assert psab.evaluate(task, {"answer": other}).score < 1.0
    assert fam.other_readings(psab.load_case(case_dir("breaker_relay_short_circuit"))) == []
