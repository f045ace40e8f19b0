"""critical_clearing_time: swing-equation properties, ANDES agreement, caller errors."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import critical_clearing_time as fam
from psab.paths import case_dir, golden_dirs
from psab.surrogates import swing as sw

from conftest import need_backend

FAMILY = "critical_clearing_time"
SEED = 20261130
#: Rotor-angle agreement between the RK4 kernel and ANDES's trapezoidal TDS (5 ms step, fault
#: reactance 1e-4 pu instead of a bolted fault), over the first swing: degrees.
ANGLE_TOL_DEG = 1.5
#: Critical clearing times agree within the two bisections' precisions plus the ANDES step.
CCT_TOL_S = fam.ANDES_PRECISION_S + 0.002


def _public() -> psab.Task:
    return psab.load_case(case_dir(FAMILY))


def _m(**kw: float | None) -> sw.Smib:
    base = dict(h_s=5.0, frequency_hz=60.0, p_m_pu=0.8, e_prime_pu=1.17, v_inf_pu=1.0, x_pre_pu=0.65,
                x_fault_pu=None, x_post_pu=0.65)
    return sw.Smib(**(base | kw))  # type: ignore[arg-type]


# ------------------------------------------------------------------ physics


def test_zero_transfer_bisection_meets_the_closed_form() -> None:
    """With P_max,fault = 0 the RK4 bisection brackets Saadat's closed form t = √(4H(δc−δ0)/(ω_s P_m))."""
    m = _m()
    lo, hi = sw.critical_clearing_time(m, 0.001, 1e-4)
    t = sw.closed_form_time(m, sw.critical_clearing_angle(m))
    assert lo - 1e-6 <= t <= hi + 1e-6


def test_bisection_agrees_with_the_equal_area_crossing_time() -> None:
    """Saadat Example 11.5(b): the fault-on trajectory reaches the equal-area δ_cr at the bisected t_cr."""
    m = _m(x_fault_pu=1.8, x_post_pu=0.8)
    lo, hi = sw.critical_clearing_time(m, 0.001, 1e-4)
    dc = sw.critical_clearing_angle(m)
    assert sw.fault_on(m, lo, 1e-4)[0] <= dc + 1e-6
    assert sw.fault_on(m, hi, 1e-4)[0] >= dc - 1e-6


@settings(max_examples=12, deadline=None)
@given(h=st.floats(2.0, 8.0), pm_frac=st.floats(0.3, 0.7), x_fault_mult=st.floats(1.5, 6.0), x_post_mult=st.floats(1.0, 1.4))
def test_more_inertia_and_stronger_fault_transfer_lengthen_the_cct(h: float, pm_frac: float, x_fault_mult: float,
                                                                  x_post_mult: float) -> None:
    """t_cr grows with H (∝ √H at zero transfer) and with the during-fault transfer (smaller X_fault)."""
    e, v, x = 1.15, 1.0, 0.7
    m = sw.Smib(h_s=h, frequency_hz=50.0, p_m_pu=pm_frac * e * v / x, e_prime_pu=e, v_inf_pu=v, x_pre_pu=x,
                x_fault_pu=x * x_fault_mult, x_post_pu=x * x_post_mult)
    if sw.problems(m):
        return
    dc = sw.critical_clearing_angle(m)
    assert sw.initial_angle(m) < dc < sw.unstable_equilibrium(m)
    t1 = 0.5 * sum(sw.critical_clearing_time(m, 0.002, 1e-4))
    heavier = sw.Smib(**{**m.__dict__, "h_s": 1.5 * h})
    assert 0.5 * sum(sw.critical_clearing_time(heavier, 0.002, 1e-4)) > t1
    zero = sw.Smib(**{**m.__dict__, "x_fault_pu": None})
    assert sw.closed_form_time(zero, sw.critical_clearing_angle(zero)) < t1 + 1e-4


def test_clearing_before_the_cct_is_stable_and_after_is_unstable() -> None:
    m = _m(x_fault_pu=1.8, x_post_pu=0.8)
    lo, hi = sw.critical_clearing_time(m, 0.001, 1e-4)
    assert sw.simulate(m, 0.95 * lo, 0.001).stable
    assert not sw.simulate(m, 1.05 * hi, 0.001).stable


def test_network_reduction_reproduces_saadat_transfer_reactances() -> None:
    """Saadat Ex. 11.5(b): X_pre 0.65, X_fault 1.8 (star–delta), X_post 0.8, E′ 1.17 (book values)."""
    inputs = psab.load_case(golden_dirs(FAMILY)[-1]).public_inputs
    red = fam.network_reduction(inputs)
    assert red["x_pre_pu"] == pytest.approx(0.65)
    assert red["x_fault_pu"] == pytest.approx(1.8)
    assert red["x_post_pu"] == pytest.approx(0.8)
    assert red["e_prime_pu"] == pytest.approx(1.17, abs=5e-5)


def test_naive_closed_form_misses_when_the_fault_keeps_a_transfer() -> None:
    task = _public()
    naive = fam.naive_answer(task)
    ref = psab.solve(task, "surrogate").answer
    assert naive["t_cr_s"] < ref["t_cr_s"] - 0.01
    assert psab.evaluate(task, {"answer": naive}, "surrogate").score == 0


# ------------------------------------------------------------------ caller errors


@pytest.mark.parametrize(("field", "value", "named"), [
    ("h_mws_per_mva", 0.0, "h_mws_per_mva"),
    ("x_pre_pu", -0.3, "x_pre_pu"),
    ("x_post_pu", 3.0, "x_post_pu"),        # P_max,post = 1.1626·0.90081/3 < P_m: no synchronizing power
    ("x_fault_pu", 0.5, "x_fault_pu"),      # below the pre-fault reactance
    ("p_m_pu", 2.0, "p_m_pu"),              # above P_max,pre: no operating point
])
def test_unposable_cases_raise_naming_the_field(field: str, value: float, named: str) -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs[field] = value
    with pytest.raises(InvalidTaskError, match=named):
        fam.smib(inputs)


def test_fault_transfer_that_never_loses_synchronism_is_a_caller_error() -> None:
    inputs = copy.deepcopy(_public().public_inputs)
    inputs["x_fault_pu"] = 0.8  # P_max,fault 1.31 > P_m: the machine never loses synchronism
    with pytest.raises(InvalidTaskError, match="x_fault_pu"):
        fam.smib(inputs)


def test_network_case_opening_both_lines_is_a_caller_error() -> None:
    inputs = copy.deepcopy(psab.load_case(golden_dirs(FAMILY)[-1]).public_inputs)
    inputs["trip_lines"] = ["L1", "L2"]
    with pytest.raises(InvalidTaskError, match="trip_lines"):
        fam.smib(inputs)


# ------------------------------------------------------------------ ANDES


def _trajectories_agree(inputs: dict, t_clear: float, label: str) -> bool:
    from psab.backends import andes_tds as at

    m = fam.smib(inputs)
    step = float(inputs["integration"]["step_s"])
    ref = sw.simulate(m, t_clear, step)
    run = at.simulate(fam.andes_network(inputs), t_clear)
    assert ref.stable == run.stable, label
    assert math.degrees(run.delta0_rad) == pytest.approx(math.degrees(sw.initial_angle(m)), abs=1e-3), label
    # compare on the common span until either trajectory stops (first swing)
    t_end = min(ref.t_s[-1], run.t_s[-1])
    grid = np.linspace(0.0, t_end, 50)
    diff = np.degrees(np.abs(np.interp(grid, ref.t_s, ref.delta_rad) - np.interp(grid, run.t_s, run.delta_rad)))
    assert diff.max() < ANGLE_TOL_DEG, (label, float(diff.max()))
    return ref.stable


def test_andes_agrees_on_public_and_golden_cct() -> None:
    """Both backends' critical clearing times on the public case and Saadat Example 11.5(a)/(b)."""
    need_backend("andes")
    for task in [_public()] + [psab.load_case(d) for d in golden_dirs(FAMILY) if not d.name.endswith("andes")]:
        sur = fam.surrogate_answer(task.public_inputs)[0]
        an = fam.andes_answer(task.public_inputs)[0]
        assert an["t_cr_s"] == pytest.approx(sur["t_cr_s"], abs=CCT_TOL_S), task.id
        assert an["delta0_deg"] == pytest.approx(sur["delta0_deg"], abs=1e-3), task.id
        assert an["delta_cr_deg"] == pytest.approx(sur["delta_cr_deg"], abs=0.3), task.id


def test_andes_agrees_on_30_generated_cases() -> None:
    """30 draws (levels 1 and 2): one ANDES run each, alternately 10 % before and after the surrogate's
    t_cr — identical verdicts and rotor-angle trajectories within ANGLE_TOL_DEG."""
    need_backend("andes")
    public = _public()
    verdicts = []
    for i in range(30):
        level = 1 + i % 2
        inputs = fam.generate(public, np.random.default_rng([SEED, i]), level=level).public_inputs
        t_cr = fam.surrogate_answer(inputs)[0]["t_cr_s"]
        t_clear = t_cr * (0.9 if (i // 2) % 2 == 0 else 1.1)
        verdicts.append(_trajectories_agree(inputs, t_clear, f"draw {i} level {level}"))
    assert 5 <= sum(verdicts) <= 25


# ------------------------------------------------------------------ conventions (issue 33)


def test_q_at_the_machine_terminal_is_a_different_answer_and_scores_below_one() -> None:
    """machine.q_mvar is delivered to the infinite bus; read at the terminal, the transformer's and
    lines' X·I² is not taken off, E′ comes out lower, δ_0 higher and t_cr shorter — scored 0."""
    task = psab.generate(FAMILY, SEED, 0, level=2)
    ref = fam.surrogate_answer(task.public_inputs)[0]
    (name, other), = fam.other_readings(task)
    assert name == "q_at_machine_terminal"
    assert other["delta0_deg"] > ref["delta0_deg"] + 0.05 and other["t_cr_s"] < ref["t_cr_s"]
    assert psab.evaluate(task, {"answer": other}).score == 0.0


def test_q_read_at_the_terminal_gives_back_the_infinite_bus_q() -> None:
    """By hand: P = 0.9, V_B = 1.0 across X_n = x_T + x_1∥x_2 = 0.5 pu delivering Q_B = 0.2 pu take
    Q_t = Q_B + X_n·|I|² = 0.2 + 0.5·(0.9² + 0.2²)/1.0² = 0.625 pu at the terminal; fed back as a terminal
    reading, the reduction recovers E′ of the infinite-bus reading."""
    base = {"base_mva": 100.0, "v_inf_pu": 1.0, "fault": {"line": None, "distance_frac": 0.0}, "trip_lines": [],
            "machine": {"rating_mva": 100.0, "h_mws_per_mva": 4.0, "xd_transient_pu": 0.3, "p_mw": 90.0, "q_mvar": 20.0},
            "transformer": {"rating_mva": 100.0, "x_pu": 0.1}, "lines": [{"id": "L1", "x_pu": 0.8}, {"id": "L2", "x_pu": 0.8}]}
    at_b = fam.network_reduction(base)
    term = copy.deepcopy(base)
    term["machine"]["q_mvar"] = 62.5
    at_t = fam.network_reduction(term, q_measured_at="machine_terminal")
    assert at_t["e_prime_pu"] == pytest.approx(at_b["e_prime_pu"], rel=1e-9)


#: Saadat Example 11.5(a)/(b) and the public case: δ_cr by the equal-area criterion (the golden
#: expected values, Saadat's 84.775° and 98.834°), which ANDES must reproduce at its critical time.
ANDES_DELTA_CR_TOL_DEG = 0.07


def test_andes_delta_cr_is_the_angle_at_the_critical_time() -> None:
    """Issue 33: ANDES's δ_cr was the angle at the bracket's stable end, up to 0.09° below the
    equal-area value; read on the fault-on trajectory at t_cr it lies within 0.07° of Saadat's."""
    need_backend("andes")
    for d, dcr in (("saadat_ex_11_5a", 84.775), ("saadat_ex_11_5b", 98.834)):
        task = psab.load_case(next(g for g in golden_dirs(FAMILY) if g.name == d))
        an = fam.andes_answer(task.public_inputs)[0]
        assert an["delta_cr_deg"] == pytest.approx(dcr, abs=ANDES_DELTA_CR_TOL_DEG), d
