"""Inverse-time overcurrent characteristics (IEC 60255-151:2009).

The dependent-time characteristic of IEC 60255-151:2009::

    t(G) = TMS · [ k / ((G / G_S)^α − 1) + c ]

with G the measured current, G_S the setting (pickup) current, TMS the time multiplier
setting and (k, α, c) the standard's curve constants (c = 0 for the four IEC curves; relay
manuals list them as curves A, B, C and the long-time inverse):

=====================  ========  ======
curve                  k (s)     α
=====================  ========  ======
standard inverse       0.14      0.02
very inverse           13.5      1
extremely inverse      80        2
long-time inverse      120       1
=====================  ========  ======

Behaviour at and below pickup: the formula's denominator vanishes at G = G_S and is negative
below it, where the element does not operate at all. :func:`time_factor` therefore returns
``math.inf`` for every multiple ``M = G/G_S <= 1``. The standard guarantees the characteristic
only within a stated effective range of multiples (typically 2 to 20 × setting); the cases of
psab keep every
multiple they use within (1, 20], and nothing here saturates the curve above 20×.

For fixed currents the operating time is linear in TMS — the property the coordination LP
(:mod:`psab.solvers.coordination`) relies on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class InverseCurve:
    """Constants of one dependent-time characteristic, ``t = TMS·(k/(M^α − 1) + c)``."""

    name: str
    k_s: float
    alpha: float
    c_s: float = 0.0


#: IEC 60255-151:2009 curve constants (the "A", "B", "C" curves and the long-time inverse).
IEC_CURVES: dict[str, InverseCurve] = {
    "standard_inverse": InverseCurve("IEC 60255-151 standard inverse (curve A)", 0.14, 0.02),
    "very_inverse": InverseCurve("IEC 60255-151 very inverse (curve B)", 13.5, 1.0),
    "extremely_inverse": InverseCurve("IEC 60255-151 extremely inverse (curve C)", 80.0, 2.0),
    "long_time_inverse": InverseCurve("IEC 60255-151 long-time inverse", 120.0, 1.0),
}


def time_factor(multiple: float, curve: InverseCurve) -> float:
    """Operating time per unit TMS, ``k/(M^α − 1) + c`` in seconds, at ``M = G/G_S``.

    ``math.inf`` at and below pickup (M ≤ 1, or M not a finite number): the element does not
    operate. ``M^α − 1`` is evaluated as ``expm1(α·ln M)``, which keeps full precision for the
    standard-inverse α = 0.02, where ``M^α`` is close to 1.
    """
    if not (isinstance(multiple, (int, float)) and math.isfinite(multiple)) or multiple <= 1.0:
        return math.inf
    return curve.k_s / math.expm1(curve.alpha * math.log(multiple)) + curve.c_s


def time_factors(multiples: np.ndarray, curve: InverseCurve) -> np.ndarray:
    """:func:`time_factor` over an array of multiples (``inf`` where ``M <= 1``)."""
    m = np.asarray(multiples, dtype=float)
    out = np.full(m.shape, np.inf)
    ok = np.isfinite(m) & (m > 1.0)
    out[ok] = curve.k_s / np.expm1(curve.alpha * np.log(m[ok])) + curve.c_s
    return out


def operating_time(current_a: float, pickup_a: float, tms: float, curve: InverseCurve) -> float:
    """Operating time (s) of an element set to ``pickup_a`` and ``tms`` for ``current_a``.

    IEC 60255-151, eq. (1). ``math.inf`` when the current does not exceed the pickup.
    """
    if pickup_a <= 0.0:
        raise ValueError("the pickup current must be positive")
    return tms * time_factor(current_a / pickup_a, curve)


def tms_for_time(time_s: float, current_a: float, pickup_a: float, curve: InverseCurve) -> float:
    """The TMS that makes the element operate in ``time_s`` at ``current_a`` (eq. (1) inverted)."""
    factor = time_factor(current_a / pickup_a, curve)
    if not math.isfinite(factor):
        raise ValueError("the current must exceed the pickup for the element to operate")
    return time_s / factor
