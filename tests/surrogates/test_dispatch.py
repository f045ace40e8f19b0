"""psab.surrogates.dispatch: storage and reservoir recursions, PCC exchange, commitment
transitions and the inscribed polygon, against numbers worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from psab.surrogates.dispatch import (
    inscribed_polygon,
    polygon_slack,
    realized_exchange,
    reservoir_trajectory,
    soc_trajectory,
    step_costs,
    transitions,
)


def test_soc_trajectory_takes_losses_on_both_sides() -> None:
    # 1 MW charged for 1 h at η_c = 0.9 stores 0.9 MWh; delivering 0.45 MW for 1 h at
    # η_d = 0.9 draws 0.5 MWh; half an hour of 0.2 MW charging adds 0.09 MWh
    e = soc_trajectory(1.0, np.array([1.0, 0.0, 0.2]), np.array([0.0, 0.45, 0.0]), 0.9, 0.9, 1.0)
    assert e == pytest.approx([1.9, 1.4, 1.58])
    half = soc_trajectory(0.0, np.array([0.2]), np.array([0.0]), 0.9, 0.9, 0.5)
    assert half == pytest.approx([0.09])


def test_reservoir_trajectory_in_hm3() -> None:
    # 100 m³/s net outflow for one hour is 360 000 m³ = 0.36 hm³
    v = reservoir_trajectory(5.0, np.array([30.0, 30.0]), np.array([130.0, 20.0]), np.array([0.0, 5.0]), 1.0)
    assert v == pytest.approx([4.64, 4.658])


def test_realized_exchange_splits_import_and_export() -> None:
    ex = realized_exchange(np.array([2.0, 1.0]), np.array([0.5, 1.8]), np.array([0.5, 0.0]), np.array([0.0, 0.3]),
                           np.array([0.2, 0.0]))
    assert ex.import_mw == pytest.approx([0.8, 0.0])
    assert ex.export_mw == pytest.approx([0.0, 0.5])


def test_step_costs_sign_and_duration() -> None:
    costs = step_costs(0.25, (np.array([4.0, 0.0]), 100.0), (np.array([0.0, 2.0]), -np.array([30.0, 40.0])))
    assert costs == pytest.approx([100.0, -20.0])


def test_transitions_count_from_the_state_before_the_day() -> None:
    y, z = transitions(np.array([1, 1, 0, 0, 1]), on_initial=False)
    assert y.tolist() == [1, 0, 0, 0, 1] and z.tolist() == [0, 0, 1, 0, 0]
    y, z = transitions(np.array([0, 1]), on_initial=True)
    assert y.tolist() == [0, 1] and z.tolist() == [1, 0]


def test_square_polygon_by_hand() -> None:
    # 4 sides: |P| ≤ cos(45°)·S and |Q| ≤ cos(45°)·S, the square inscribed in the circle
    sq = inscribed_polygon(4)
    assert sq.apothem == pytest.approx(math.sqrt(0.5))
    assert polygon_slack(sq, 0.7, 0.7, 1.0) == pytest.approx(math.sqrt(0.5) - 0.7)
    assert polygon_slack(sq, 0.72, 0.0, 1.0) < 0  # inside the circle, outside the square


@given(sides=st.integers(3, 40), angle=st.floats(0, 2 * math.pi))
def test_every_polygon_vertex_is_on_the_circle(sides: int, angle: float) -> None:
    poly = inscribed_polygon(sides)
    k = int(angle / (2 * math.pi) * sides) % sides
    vertex = 2 * math.pi * k / sides + math.pi / sides  # between the normals k and k + 1
    p, q = 2.0 * math.cos(vertex), 2.0 * math.sin(vertex)
    assert polygon_slack(poly, p, q, 2.0) == pytest.approx(0.0, abs=1e-9)
