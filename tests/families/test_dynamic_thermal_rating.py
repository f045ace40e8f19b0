"""dynamic_thermal_rating: the evaluator catches the usual slips of an IEEE 738 calculation."""

from __future__ import annotations

import copy

import pytest

import psab
from psab.families import dynamic_thermal_rating as F
from psab.paths import case_dir
from psab.surrogates import ieee738


def _public() -> psab.Task:
    return psab.load_case(case_dir(F.FAMILY_ID))


def _answer_with(task: psab.Task, **changes: object) -> dict:
    """The reference answer recomputed with one slip in the hourly heat balance."""
    inputs = copy.deepcopy(task.public_inputs)
    amps = []
    for row in inputs["weather"]:
        line = inputs["line"]
        sun = ieee738.solar_position(line["latitude_deg"], line["day_of_year"], row["solar_time_h"], line["line_azimuth_deg"])
        kwargs = dict(
            t_surface_c=inputs["conductor"]["t_max_c"], t_ambient_c=row["ambient_c"],
            wind_speed_m_s=row["wind_speed_m_per_s"], wind_angle_deg=row["wind_angle_deg"],
            elevation_m=line["elevation_m"], solar_flux_w_m2=row["solar_flux_w_per_m2"],
            solar_incidence_deg=sun.incidence_deg,
        )
        kwargs.update(changes)
        amps.append(ieee738.heat_balance(F.conductor_of(inputs), **kwargs).ampacity_a)
    ref = psab.solve(task).answer
    return {**ref, "ampacity_a": amps, "dynamic_rating_a": min(amps), "ratio_to_static": min(amps) / ref["static_rating_a"]}


def test_reference_recomputed_independently_scores_one() -> None:
    task = _public()
    result = psab.evaluate(task, {"answer": _answer_with(task)})
    assert result.feasible and result.score == 1.0


def test_ignoring_the_wind_angle_is_caught_hour_by_hour() -> None:
    task = _public()
    result = psab.evaluate(task, {"answer": _answer_with(task, wind_angle_deg=90.0)})
    assert not result.feasible
    oblique = {i for i, row in enumerate(task.public_inputs["weather"]) if row["wind_angle_deg"] < 80.0 and row["wind_speed_m_per_s"] > 0.5}
    flagged = {int(v.field.split("/")[2]) for v in result.violations if v.field.startswith("/ampacity_a/")}
    assert oblique and oblique <= flagged


def test_ignoring_the_sun_is_caught_in_daylight_only() -> None:
    task = _public()
    result = psab.evaluate(task, {"answer": _answer_with(task, solar_flux_w_m2=0.0)})
    flagged = {int(v.field.split("/")[2]) for v in result.violations if v.field.startswith("/ampacity_a/")}
    sunny = {i for i, row in enumerate(task.public_inputs["weather"]) if row["solar_flux_w_per_m2"] > 100.0}
    dark = {i for i, row in enumerate(task.public_inputs["weather"]) if row["solar_flux_w_per_m2"] == 0.0}
    assert sunny and sunny <= flagged and not (dark & flagged)


def test_public_case_has_a_calm_hour_governed_by_natural_convection() -> None:
    """The public case exercises eq. (5a): its limiting hour is calm, and natural convection
    beats both forced forms there."""
    task = _public()
    ref = psab.solve(task)
    worst = ref.answer["ampacity_a"].index(ref.answer["dynamic_rating_a"])
    hb = F.hourly_balance(task.public_inputs, task.public_inputs["weather"][worst])
    assert hb.q_cn_w_m > max(hb.q_c1_w_m, hb.q_c2_w_m)


def test_compass_wind_direction_is_referred_to_the_line_axis() -> None:
    """Statement: φ is the acute angle between the compass direction the wind blows from and the
    line's axis. Line azimuth 60°: wind from 330° is perpendicular (330 − 60 = 270 ≡ 90 mod 180);
    from 75° it is 15°; from 250° (the opposite end, 250 − 60 = 190 ≡ 10) it is 10°; from 240°,
    straight along the line, 0°."""
    line = {"line_azimuth_deg": 60.0}
    for direction, phi in ((330.0, 90.0), (75.0, 15.0), (250.0, 10.0), (240.0, 0.0)):
        assert F.wind_angle_of(line, {"wind_direction_deg": direction}) == pytest.approx(phi, abs=1e-9)
    assert F.wind_angle_of(line, {"wind_angle_deg": 33.0}) == 33.0


def test_level_two_rows_follow_step_minutes_and_misreading_the_compass_is_caught() -> None:
    task = psab.generate(F.FAMILY_ID, 20261130, 0, level=2)
    inputs = task.public_inputs
    assert inputs["step_minutes"] == 30 and len(inputs["weather"]) == 24 * 60 // 30
    assert [r["solar_time_h"] for r in inputs["weather"][:2]] == [0.25, 0.75]
    assert all("wind_direction_deg" in r and "wind_angle_deg" not in r for r in inputs["weather"])
    assert psab.evaluate(task, {"answer": F.naive_answer(task)}).score < 1.0


def test_other_readings_of_the_stated_conventions_score_zero_on_an_80_c_draw() -> None:
    """Issue 33: at t_max_c = 80 °C above t_high_c = 75 °C eq. (10)'s line is extended (Drake:
    R(80) = 0.08688 + 5·(0.08688 − 0.07283)/50 = 0.088285 Ω/km), the measured flux carries no
    elevation factor, the angle is from the axis; each other reading scores 0."""
    assert ieee738.resistance_at(80.0, 25.0, 0.07283e-3, 75.0, 0.08688e-3) == pytest.approx(0.088285e-3, rel=1e-9)
    task = psab.generate("dynamic_thermal_rating", 20261130, 1, level=1)
    c = task.public_inputs["conductor"]
    assert c["t_max_c"] > c["t_high_c"]
    readings = F.other_readings(task)
    assert {"resistance_clamped_outside_the_points", "measured_flux_elevation_corrected",
            "wind_angle_from_the_perpendicular"} <= {n for n, _ in readings}
    for name, answer in readings:
        assert psab.evaluate(task, {"answer": answer}).score == 0.0, name
