"""Impedance arithmetic of stepped distance protection with mho characteristics.

Conventions (Horowitz & Phadke, *Power System Relaying*, 4th ed., ch. 5):

- Impedances are complex ohms. A relay's secondary impedance is
  ``Z_sec = Z_pri · CTR / VTR`` with ``CTR = I_pri/I_sec`` and ``VTR = V_pri/V_sec``
  (the relay sees secondary voltage over secondary current).
- The characteristic is the **mho** (self-polarised directional impedance) circle: a circle
  through the origin whose diameter is the zone's reach ``R`` along the characteristic
  (maximum-torque) angle ``θ``. A point ``z`` lies inside it when
  ``|z|² ≤ R · Re(z·e^{−jθ})``, i.e. when its *mho reach*
  ``ρ(z) = |z|² / Re(z·e^{−jθ})`` does not exceed ``R``. On the characteristic angle
  ``ρ(z) = |z|``; off it, ``ρ(z) = |z| / cos(arg z − θ)``. Points with ``Re(z·e^{−jθ}) ≤ 0``
  (behind the relay) are never inside: ``ρ = ∞``; the origin itself (a fault at the relay)
  counts as inside every zone, as with a memory-polarised mho element: ``ρ(0) = 0``.
- Mho circles through the origin with a common angle are nested: a larger reach contains
  every point a smaller one does.
- The load point: a balanced load of ``S`` at line voltage ``U`` and power factor ``cos φ``
  presents ``|Z_load| = U² / S`` at the angle ``φ`` (lagging load in the first quadrant).
- Infeed at the remote bus: for a fault at fraction ``y`` of an adjacent line the relay sees
  ``Z_L + K·y·Z_adj`` with ``K = (I_relay + I_infeed) / I_relay ≥ 1``.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Sequence
from dataclasses import dataclass


def polar(magnitude: float, angle_deg: float) -> complex:
    """The complex number ``magnitude∠angle_deg``."""
    return cmath.rect(magnitude, math.radians(angle_deg))


def to_secondary(z_primary: complex | float, ct_ratio: float, vt_ratio: float) -> complex | float:
    """Secondary ohms seen by the relay: ``Z_sec = Z_pri · CTR / VTR``."""
    return z_primary * ct_ratio / vt_ratio


def to_primary(z_secondary: complex | float, ct_ratio: float, vt_ratio: float) -> complex | float:
    """Primary ohms: ``Z_pri = Z_sec · VTR / CTR``."""
    return z_secondary * vt_ratio / ct_ratio


def load_impedance(line_voltage_kv: float, load_mva: float, power_factor: float) -> complex:
    """Apparent impedance of a balanced load (primary ohms per phase): ``U²/S ∠ arccos(pf)``."""
    if load_mva <= 0.0 or not 0.0 < power_factor <= 1.0:
        raise ValueError("load_mva must be positive and power_factor in (0, 1]")
    return polar(line_voltage_kv**2 / load_mva, math.degrees(math.acos(power_factor)))


def mho_reach(z: complex, characteristic_angle_deg: float) -> float:
    """``ρ(z)``: the smallest mho reach (same units as ``z``) whose circle contains ``z``."""
    if z == 0:
        return 0.0  # a fault at the relay itself: seen by every zone (memory-polarised mho)
    along = (z * cmath.exp(-1j * math.radians(characteristic_angle_deg))).real
    if along <= 0.0:
        return math.inf
    return abs(z) ** 2 / along


def segment_coverage(start: complex, step: complex, reach: float, characteristic_angle_deg: float) -> tuple[float, float]:
    """The interval ``[y_lo, y_hi] ⊆ [0, 1]`` of points ``start + y·step`` inside a mho circle.

    Solves ``|a + y·b|² − R·Re(a + y·b) ≤ 0`` with ``a, b`` rotated onto the characteristic
    angle (a convex quadratic in ``y``, so the inside is one interval). An empty coverage
    is ``(0.0, 0.0)``; a non-positive or non-finite reach covers nothing.
    """
    if not math.isfinite(reach) or reach <= 0.0:
        return (0.0, 0.0)
    rot = cmath.exp(-1j * math.radians(characteristic_angle_deg))
    a, b = start * rot, step * rot
    qa = abs(b) ** 2
    qb = 2.0 * (a.real * b.real + a.imag * b.imag) - reach * b.real
    qc = abs(a) ** 2 - reach * a.real
    if qa == 0.0:
        return (0.0, 1.0) if qc <= 0.0 else (0.0, 0.0)
    disc = qb * qb - 4.0 * qa * qc
    if disc < 0.0:
        return (0.0, 0.0)
    root = math.sqrt(disc)
    lo, hi = (-qb - root) / (2.0 * qa), (-qb + root) / (2.0 * qa)
    lo, hi = max(lo, 0.0), min(hi, 1.0)
    return (lo, hi) if hi > lo else (0.0, 0.0)


@dataclass(frozen=True)
class Zone:
    """One distance zone: mho reach (ohms, same base as the segment) and its delay (s)."""

    reach: float
    delay_s: float


def _union_length(intervals: Sequence[tuple[float, float]]) -> float:
    total, end = 0.0, -math.inf
    for lo, hi in sorted(intervals):
        if hi <= lo:
            continue
        if lo > end:
            total += hi - lo
            end = hi
        elif hi > end:
            total += hi - end
            end = hi
    return total


def mean_clearing_time(
    start: complex,
    step: complex,
    zones: Sequence[Zone],
    characteristic_angle_deg: float,
    breaker_time_s: float,
    not_seen_s: float,
) -> tuple[float, list[float]]:
    """Mean clearing time (s) of faults uniformly distributed over ``start + y·step``, y ∈ [0, 1].

    A fault is cleared by the fastest zone whose circle contains it, in that zone's delay plus
    the breaker time; a fault outside every zone counts ``not_seen_s``. Returns the mean and,
    per zone in the given order, the fraction of the segment that zone clears first.
    """
    order = sorted(range(len(zones)), key=lambda i: zones[i].delay_s)
    covered: list[tuple[float, float]] = []
    seen = 0.0
    mean = 0.0
    first = [0.0] * len(zones)
    for i in order:
        covered.append(segment_coverage(start, step, zones[i].reach, characteristic_angle_deg))
        now = _union_length(covered)
        first[i] = now - seen
        mean += first[i] * (zones[i].delay_s + breaker_time_s)
        seen = now
    mean += (1.0 - seen) * not_seen_s
    return mean, first
