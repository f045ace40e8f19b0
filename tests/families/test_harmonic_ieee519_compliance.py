"""harmonic_ieee519_compliance: the IEEE 519-2022 tables and quantities, conventions, bad input."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import psab
from psab.errors import InvalidTaskError
from psab.families import harmonic_ieee519_compliance as F
from psab.paths import case_dir, golden_root
from psab.surrogates import ieee519 as std


def _public() -> psab.Task:
    return psab.load_case(case_dir(F.FAMILY_ID))


def test_table_rows_as_printed() -> None:
    """IEEE 519-2022 Table 2 row 100 < 1000 at 13.8 kV: 12.0/5.5/5.0/2.0/1.0 %, TDD 15 %; Table 3 first row
    at 115 kV: h < 11 2.0 %, TDD 2.5 %; Table 4 at 230 kV, I_SC/I_L = 30: TDD 2.5 %; Table 1 by class."""
    assert std.current_row(13.8, 500.0)[2:] == ((12.0, 5.5, 5.0, 2.0, 1.0), 15.0)
    assert std.current_row(115.0, 10.0)[2][0] == 2.0 and std.current_row(115.0, 10.0)[3] == 2.5
    assert std.current_row(230.0, 30.0)[3] == 2.5
    assert [std.voltage_limits(v) for v in (0.48, 13.8, 115.0, 345.0)] == [(5.0, 8.0), (3.0, 5.0), (1.5, 2.5), (1.0, 1.5)]


def test_even_harmonics_follow_the_2022_rule() -> None:
    lim = std.current_limits_pct(13.8, 30.0, np.array([2, 4, 6, 8, 10, 12, 5, 11, 50]))
    assert list(lim) == [3.5, 3.5, 3.5, 7.0, 7.0, 3.5, 7.0, 3.5, 0.5]


@settings(max_examples=40)
@given(values=st.lists(st.floats(0.0, 500.0), min_size=49, max_size=49), il=st.floats(10.0, 5000.0))
def test_tdd_is_a_root_sum_square(values: list[float], il: float) -> None:
    v = np.array(values)
    t = float(std.tdd_pct(v, il))
    assert t >= float(np.max(v)) / il * 100.0 - 1e-9
    assert t == pytest.approx(float(np.linalg.norm(v)) / il * 100.0)
    assert float(std.tdd_pct(np.tile(v, (3, 1)), il)[2]) == pytest.approx(t)  # vectorized over leading axes


def test_naive_percent_of_fundamental_is_caught() -> None:
    task = psab.load_case(golden_root() / F.FAMILY_ID / "hand_115kv_table3_pct_of_i1")
    assert psab.evaluate(task, {"answer": F.naive_answer(task)}).score == 0.0


def _with(change) -> psab.Task:  # type: ignore[no-untyped-def]
    inputs = copy.deepcopy(_public().public_inputs)
    change(inputs)
    return psab.get_family(F.FAMILY_ID).make_task(task_id="bad", split="public", public_inputs=inputs)


@pytest.mark.parametrize(("change", "field"), [
    (lambda i: i["current_harmonics"]["values"].__setitem__(3, -1.0), "/current_harmonics/values/3"),
    (lambda i: i["voltage_harmonics"]["values"].__setitem__(9, -0.2), "/voltage_harmonics/values/9"),
    (lambda i: i["pcc"].__setitem__("nominal_voltage_kv", 0.0), "/pcc/nominal_voltage_kv"),
    (lambda i: i["pcc"].__setitem__("max_demand_current_a", 0.0), "/pcc/max_demand_current_a"),
    (lambda i: i["current_harmonics"]["orders"].reverse(), "/current_harmonics/orders"),
])
def test_impossible_cases_name_the_field(change, field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidTaskError, match=field):
        psab.solve(_with(change))


def _at_limits() -> dict:
    """13.8 kV PCC, I_L = 1000 A, I_SC = 30 kA (I_SC/I_L = 30: Table 2 row 20 < 50, h < 11 limit 7.0 %,
    TDD 8.0 %): 70 A at h = 5 is exactly 7.0 % of I_L; 3.0 % of V_1 at h = 5 is exactly Table 1's 1–69 kV
    individual limit (IEEE 519-2022 Tables 1 and 2)."""
    cur = [0.0] * len(F.ORDERS)
    cur[F.ORDERS.index(5)] = 70.0
    volt = [0.0] * len(F.ORDERS)
    volt[F.ORDERS.index(5)] = 3.0
    return {"pcc": {"name": "PCC", "nominal_voltage_kv": 13.8, "max_demand_current_a": 1000.0, "short_circuit_current_ka": 30.0},
            "current_harmonics": {"unit": "A", "orders": F.ORDERS, "values": cur},
            "voltage_harmonics": {"unit": "pct_of_fundamental", "orders": F.ORDERS, "values": volt},
            "statistic": "weekly 95th percentile"}


def test_a_value_exactly_at_its_limit_complies() -> None:
    """The statement (and IEEE 519-2022 5.2: limits are maxima) — a value equal to its limit complies.
    70 A / 1000 A × 100 is 7.000000000000001 in floating point; it must not count as above 7.0 %."""
    a = F.quantities(_at_limits())["answer"]
    assert a["violating_current_orders"] == [] and a["violating_voltage_orders"] == []
    assert a["compliant"] is True
    above = _at_limits()
    above["current_harmonics"]["values"][F.ORDERS.index(5)] = 70.1
    assert F.quantities(above)["answer"]["violating_current_orders"] == [5]
