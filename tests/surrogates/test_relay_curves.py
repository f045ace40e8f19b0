"""IEC 60255-151 dependent-time characteristics: published constants and curve properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.surrogates.relay_curves import (
    IEC_CURVES,
    operating_time,
    time_factor,
    time_factors,
    tms_for_time,
)

SI, VI, EI, LTI = (IEC_CURVES[n] for n in ("standard_inverse", "very_inverse", "extremely_inverse", "long_time_inverse"))


def test_curve_constants() -> None:
    # IEC 60255-151:2009 curves A, B, C and long-time inverse, as relay manuals list them
    # (e.g. Toshiba GR200 instruction manual, "Constants for IDMT (IEC 60255-151)")
    assert (SI.k_s, SI.alpha) == (0.14, 0.02)
    assert (VI.k_s, VI.alpha) == (13.5, 1.0)
    assert (EI.k_s, EI.alpha) == (80.0, 2.0)
    assert (LTI.k_s, LTI.alpha) == (120.0, 1.0)


@pytest.mark.parametrize(
    ("curve", "multiple", "expected_s"),
    [
        # Published operating times at TMS (TD) = 1, printed to 3 decimals in the LS Industrial
        # Systems GIPAM user manual, "value of operating characteristic" table; e.g. standard
        # inverse at 10×: 0.14/(10^0.02 − 1) = 0.14/0.0471285 = 2.971 s (the "3/10" curve).
        (SI, 2.0, 10.029),
        (SI, 5.0, 4.280),
        (SI, 10.0, 2.971),
        (SI, 20.0, 2.267),
        (VI, 2.0, 13.500),
        (VI, 10.0, 1.500),
        (VI, 20.0, 0.711),
        (EI, 2.0, 26.667),
        (EI, 10.0, 0.808),
        (EI, 20.0, 0.201),
        (LTI, 2.0, 120.000),
        (LTI, 10.0, 13.333),
        (LTI, 20.0, 6.316),
    ],
)
def test_published_operating_times_at_tms_one(curve, multiple: float, expected_s: float) -> None:
    assert time_factor(multiple, curve) == pytest.approx(expected_s, abs=5.01e-4)


def test_no_operation_at_or_below_pickup() -> None:
    for curve in (SI, VI, EI, LTI):
        assert time_factor(1.0, curve) == math.inf
        assert time_factor(0.5, curve) == math.inf
        assert time_factor(math.nan, curve) == math.inf
    assert operating_time(100.0, 100.0, 0.1, SI) == math.inf
    with pytest.raises(ValueError):
        operating_time(100.0, 0.0, 0.1, SI)
    with pytest.raises(ValueError):
        tms_for_time(1.0, 50.0, 100.0, SI)


def test_vector_form_matches_scalar_form() -> None:
    ms = [0.5, 1.0, 1.01, 2.0, 7.5, 20.0]
    for curve in (SI, VI, EI, LTI):
        vec = time_factors(ms, curve)
        for m, v in zip(ms, vec, strict=True):
            assert v == time_factor(m, curve) or v == pytest.approx(time_factor(m, curve), rel=1e-14)


_curves = st.sampled_from([SI, VI, EI, LTI])
_multiple = st.floats(min_value=1.05, max_value=30.0)


@settings(max_examples=200, deadline=None)
@given(curve=_curves, m1=_multiple, m2=_multiple)
def test_operating_time_decreases_with_current(curve, m1: float, m2: float) -> None:
    lo, hi = sorted((m1, m2))
    if hi - lo < 1e-6:
        return
    assert time_factor(hi, curve) < time_factor(lo, curve)


@settings(max_examples=200, deadline=None)
@given(curve=_curves, m=_multiple, tms=st.floats(min_value=0.01, max_value=1.5), c=st.floats(min_value=0.1, max_value=10.0))
def test_operating_time_is_linear_in_tms(curve, m: float, tms: float, c: float) -> None:
    t = operating_time(m * 100.0, 100.0, tms, curve)
    assert operating_time(m * 100.0, 100.0, c * tms, curve) == pytest.approx(c * t, rel=1e-12)
    assert tms_for_time(t, m * 100.0, 100.0, curve) == pytest.approx(tms, rel=1e-12)
