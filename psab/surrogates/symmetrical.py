"""Symmetrical components and unbalanced shunt faults.

Fortescue's transform with the operator ``a = e^(j·120°)``::

    [V_a]   [1  1   1 ] [V_0]
    [V_b] = [1  a²  a ] [V_1]        (phase = A · sequence)
    [V_c]   [1  a   a²] [V_2]

Shunt faults at one location, phase a the reference (Anderson, *Analysis of Faulted Power
Systems*, IEEE Press 1995, ch. 3 "Analysis of simple shunt faults"; Glover, Overbye & Sarma,
*Power System Analysis and Design*, 6th ed., §9.2–9.4), with ``E`` the prefault voltage of
phase a at the fault, ``Z_1, Z_2, Z_0`` the Thevenin sequence impedances there and ``Z_f`` the
fault impedance:

- single line-to-ground (phase a): ``I_1 = I_2 = I_0 = E / (Z_1 + Z_2 + Z_0 + 3·Z_f)``;
- line-to-line (phases b–c): ``I_1 = −I_2 = E / (Z_1 + Z_2 + Z_f)``, ``I_0 = 0``;
- double line-to-ground (b, c to earth through Z_f):
  ``I_1 = E / (Z_1 + Z_2 ∥ (Z_0 + 3Z_f))``, ``I_2 = −I_1 (Z_0 + 3Z_f)/(Z_2 + Z_0 + 3Z_f)``,
  ``I_0 = −I_1 Z_2/(Z_2 + Z_0 + 3Z_f)``;
- three-phase: ``I_1 = E / (Z_1 + Z_f)``;

and the sequence voltages at the fault ``V_1 = E − Z_1 I_1``, ``V_2 = −Z_2 I_2``,
``V_0 = −Z_0 I_0``. With IEC 60909-0's equivalent source ``E = c·U_n/√3`` and ``Z_2 = Z_1``
the line-to-earth current is ``I″k1 = √3·c·U_n / |2Z_1 + Z_0|`` (§7.5, eq. 52).

The zero-sequence network of a two-winding transformer depends on its vector group and
on how its star points are earthed (:func:`transformer_zero_sequence`): a delta winding
shorts zero-sequence currents inside the transformer, an earthed star (``YN``) lets them pass
to the terminal, an unearthed star (``Y``) blocks them. A star-point impedance ``Z_N``
appears as ``3·Z_N`` in the zero-sequence network.
"""

from __future__ import annotations

import cmath
import math
from dataclasses import dataclass

import numpy as np

#: The operator a = e^(j·2π/3).
A = cmath.exp(2j * math.pi / 3)
#: Sequence → phase transform: ``[V_a, V_b, V_c] = A_MATRIX @ [V_0, V_1, V_2]``.
A_MATRIX = np.array([[1, 1, 1], [1, A * A, A], [1, A, A * A]], dtype=complex)
#: Phase → sequence transform, the inverse of :data:`A_MATRIX`.
A_INVERSE = np.array([[1, 1, 1], [1, A, A * A], [1, A * A, A]], dtype=complex) / 3.0

FAULT_TYPES = ("3ph", "1ph", "2ph", "2ph_ground")


def phase_from_sequence(seq: np.ndarray) -> np.ndarray:
    """Phase quantities ``[a, b, c]`` from sequence quantities ``[0, 1, 2]``."""
    return A_MATRIX @ np.asarray(seq, dtype=complex)


def sequence_from_phase(phase: np.ndarray) -> np.ndarray:
    """Sequence quantities ``[0, 1, 2]`` from phase quantities ``[a, b, c]``."""
    return A_INVERSE @ np.asarray(phase, dtype=complex)


@dataclass(frozen=True)
class ShuntFault:
    """Sequence and phase currents and voltages at a shunt fault (same units as ``E``;
    currents are ``E``'s unit divided by the impedance unit). Index 0, 1, 2 = zero, positive,
    negative sequence; phases a, b, c."""

    fault: str
    i_seq: tuple[complex, complex, complex]
    v_seq: tuple[complex, complex, complex]

    @property
    def i_phase(self) -> tuple[complex, complex, complex]:
        a, b, c = phase_from_sequence(np.array(self.i_seq))
        return complex(a), complex(b), complex(c)

    @property
    def v_phase(self) -> tuple[complex, complex, complex]:
        a, b, c = phase_from_sequence(np.array(self.v_seq))
        return complex(a), complex(b), complex(c)

    @property
    def earth_current(self) -> complex:
        """Current into earth at the fault, ``3·I_0``."""
        return 3.0 * self.i_seq[0]


def shunt_fault(fault: str, e: complex, z1: complex, z2: complex, z0: complex, zf: complex = 0.0, *,
                zf_per_phase: bool = False) -> ShuntFault:
    """Sequence currents and voltages of a shunt fault of type ``fault`` (see the module docs).

    ``zf_per_phase`` places a double-line-to-earth fault's ``Z_f`` in each of the two faulted
    phases, joined solidly to earth (Anderson ch. 3, Z_f per phase and Z_g = 0: Z_f added to every
    sequence impedance) instead of in their common path to earth (Saadat §10.4: Z_0 + 3Z_f, the
    default); the sequence voltages stay those of the bus."""
    if fault == "3ph":
        i1 = e / (z1 + zf)
        i2 = i0 = 0j
    elif fault == "1ph":
        i1 = e / (z1 + z2 + z0 + 3.0 * zf)
        i2 = i0 = i1
    elif fault == "2ph":
        i1 = e / (z1 + z2 + zf)
        i2, i0 = -i1, 0j
    elif fault == "2ph_ground" and zf_per_phase:
        z1f, z2f, z0f = z1 + zf, z2 + zf, z0 + zf
        i1 = e / (z1f + z2f * z0f / (z2f + z0f))
        i2 = -i1 * z0f / (z2f + z0f)
        i0 = -i1 * z2f / (z2f + z0f)
    elif fault == "2ph_ground":
        z0f = z0 + 3.0 * zf
        i1 = e / (z1 + z2 * z0f / (z2 + z0f))
        i2 = -i1 * z0f / (z2 + z0f)
        i0 = -i1 * z2 / (z2 + z0f)
    else:
        raise ValueError(f"fault must be one of {FAULT_TYPES}, not {fault!r}")
    v1 = e - z1 * i1
    v2 = -z2 * i2
    v0 = -z0 * i0
    return ShuntFault(fault, (complex(i0), complex(i1), complex(i2)), (complex(v0), complex(v1), complex(v2)))


def ikss1_ka(c: float, un_kv: float, z1_ohm: complex, z0_ohm: complex, z2_ohm: complex | None = None,
             zf_ohm: complex = 0.0) -> float:
    """IEC 60909-0 line-to-earth current ``I″k1 = √3·c·U_n/|Z_1 + Z_2 + Z_0 + 3Z_f|`` (kA, ohm, kV)."""
    z2 = z1_ohm if z2_ohm is None else z2_ohm
    return math.sqrt(3.0) * c * un_kv / abs(z1_ohm + z2 + z0_ohm + 3.0 * zf_ohm)


def ikss2_ka(c: float, un_kv: float, z1_ohm: complex, z2_ohm: complex | None = None) -> float:
    """IEC 60909-0 line-to-line current ``I″k2 = c·U_n/|Z_1 + Z_2|`` (§7.3, eq. 44)."""
    z2 = z1_ohm if z2_ohm is None else z2_ohm
    return c * un_kv / abs(z1_ohm + z2)


def ikss_e2e_ka(c: float, un_kv: float, z1_ohm: complex, z0_ohm: complex, z2_ohm: complex | None = None) -> float:
    """Earth current of a line-to-line fault with earth connection
    ``I″kE2E = √3·c·U_n·|Z_2| / |Z_1 Z_2 + Z_1 Z_0 + Z_2 Z_0|`` (§7.4, eq. 49)."""
    z2 = z1_ohm if z2_ohm is None else z2_ohm
    return math.sqrt(3.0) * c * un_kv * abs(z2) / abs(z1_ohm * z2 + z1_ohm * z0_ohm + z2 * z0_ohm)


# --------------------------------------------------------------------------- zero sequence

#: Vector groups whose zero-sequence model is defined here (phase-shift digits omitted).
VECTOR_GROUPS = ("Dyn", "YNd", "Yyn", "YNy", "YNyn", "Dy", "Yd", "Yy", "Dd")


@dataclass(frozen=True)
class ZeroSequenceT:
    """A two-winding transformer in the zero-sequence network as a T: ``hv`` leg from the HV
    terminal to the midpoint, ``lv`` leg from the LV terminal to the midpoint, ``earth`` leg from
    the midpoint to earth. ``None`` is an open leg; ``earth = 0`` shorts the midpoint to earth
    (a delta winding). Impedances in ohm referred to the LV rated voltage."""

    hv: complex | None
    lv: complex | None
    earth: complex | None

    def from_lv_ohm(self, z_hv_side_ohm: complex | None = None) -> complex | None:
        """Zero-sequence impedance seen from the LV terminal (ohm at the LV rated voltage),
        with ``z_hv_side_ohm`` the zero-sequence impedance from the HV terminal to earth
        (already referred to the LV side), ``None`` when the HV side has no earth path."""
        if self.lv is None:
            return None
        paths = []
        if self.earth is not None:
            paths.append(self.earth)
        if self.hv is not None and z_hv_side_ohm is not None:
            paths.append(self.hv + z_hv_side_ohm)
        if not paths:
            return None
        if any(p == 0 for p in paths):
            return self.lv
        return self.lv + 1.0 / sum(1.0 / p for p in paths)


def transformer_zero_sequence(vector_group: str, z0_ohm: complex, *, neutral_hv_ohm: complex = 0.0,
                              neutral_lv_ohm: complex = 0.0, ratio: float = 1.0,
                              z_m0_ohm: complex | None = None, hv_share: float = 0.5) -> ZeroSequenceT:
    """Zero-sequence T of a two-winding transformer (ohm referred to the LV rated voltage).

    ``z0_ohm`` is the zero-sequence short-circuit impedance ``Z_(0)T`` (already corrected by
    ``K_T`` where applicable) referred to the LV side; ``ratio = U_rTHV/U_rTLV`` refers the HV
    star-point impedance; ``z_m0_ohm`` the zero-sequence magnetizing impedance (``None`` =
    infinite, a bank of single-phase units); ``hv_share`` the part of ``Z_(0)T`` on the HV
    winding in the T. Star-point impedances enter as ``3·Z_N``.

    - ``Dyn``: LV leg ``Z_(0)T + 3Z_NLV``, midpoint earthed by the delta, HV open;
    - ``YNd``: HV leg ``Z_(0)T + 3Z_NHV/t²``, midpoint earthed, LV open;
    - ``Yyn``/``YNy``: the earthed side sees ``Z_(0)T + Z_m0`` (+``3Z_N``), the other is open;
    - ``YNyn``: the full T ``hv_share·Z_(0)T``, ``(1−hv_share)·Z_(0)T``, earth leg ``Z_m0``;
    - ``Dy``, ``Yd``, ``Yy``, ``Dd``: no zero-sequence path at either terminal.
    """
    g = vector_group
    if g not in VECTOR_GROUPS:
        raise ValueError(f"vector group {g!r} is not one of {VECTOR_GROUPS} (give it without the clock number)")
    zn_lv = 3.0 * complex(neutral_lv_ohm)
    zn_hv = 3.0 * complex(neutral_hv_ohm) / (ratio * ratio)
    if g == "Dyn":
        return ZeroSequenceT(None, z0_ohm + zn_lv, 0j)
    if g == "YNd":
        return ZeroSequenceT(z0_ohm + zn_hv, None, 0j)
    if g in ("Yyn", "YNy"):
        if z_m0_ohm is None:
            return ZeroSequenceT(None, None, None)
        earthed = z0_ohm + z_m0_ohm
        return ZeroSequenceT(None, earthed + zn_lv, 0j) if g == "Yyn" else ZeroSequenceT(earthed + zn_hv, None, 0j)
    if g == "YNyn":
        return ZeroSequenceT(hv_share * z0_ohm + zn_hv, (1.0 - hv_share) * z0_ohm + zn_lv, z_m0_ohm)
    return ZeroSequenceT(None, None, None)
