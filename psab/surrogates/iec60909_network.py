"""IEC 60909-0 three-phase initial short-circuit currents on a real-size meshed network, by
the bus impedance matrix.

The compact kernel (:mod:`psab.surrogates.iec60909`) models feeders, transformers and
machines element by element on a few buses; this one takes a transmission network as a
MATPOWER case describes it (series impedances in per unit on the system base) with
synchronous machines, and gives I″k at listed buses without forming the whole ``Z_bus``:

- **equivalent voltage source** at the fault, ``c·U_n/√3`` (IEC 60909-0:2016 §5.1, Table 1:
  ``c_max = 1.10`` above 1 kV); loads, line charging, shunt elements and transformer
  magnetizing branches neglected (§5.3.1 d);
- **transformers at their rated ratio** (off-nominal taps and phase shifts of the case not
  applied, §6.3.1: the main position), impedance multiplied by the correction factor
  ``K_T = 0.95·c_max/(1 + 0.6·x_T)`` (§6.3.3, eq. 12a) with ``x_T`` the relative reactance on
  the transformer's rated power;
- **synchronous machines** directly at their bus (``U_rG = U_n``) with
  ``Z_GK = K_G·(R_G + jX″d)``, ``K_G = (U_n/U_rG)·c_max/(1 + x″d·sin φ_rG)`` (§6.6.1, eq. 18);
- the initial symmetrical short-circuit current at bus ``k`` is ``I″k = c·U_n/(√3·|Z_kk|)``
  (§7.1.2, eq. 29 for a meshed network), ``Z_kk`` the driving-point impedance: the ``k``-th
  entry of the solution of ``Y z = e_k`` (``Y`` the nodal admittance of branches and machine
  admittances), so only as many linear solves as there are fault buses.

Per unit on ``base_mva`` and each bus's nominal voltage ``vn_kv``; currents in kA.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: IEC 60909-0:2016 Table 1, maximum voltage factor for systems above 1 kV.
C_MAX_HV = 1.10


@dataclass(frozen=True)
class Machine:
    """A synchronous machine feeding faults: bus index, rated apparent power S_rG (MVA),
    subtransient reactance x″d (per unit on S_rG), R_G/X″d, and cos φ_rG."""

    bus: int
    sn_mva: float
    xdss_pu: float
    r_over_x: float
    cos_phi: float


def generator_correction_factor(xdss_pu: float, cos_phi: float, c_max: float = C_MAX_HV,
                                un_over_urg: float = 1.0) -> float:
    """``K_G = (U_n/U_rG)·c_max/(1 + x″d·sin φ_rG)`` (IEC 60909-0:2016 eq. 18)."""
    sin_phi = math.sqrt(max(0.0, 1.0 - cos_phi * cos_phi))
    return un_over_urg * c_max / (1.0 + xdss_pu * sin_phi)


def transformer_correction_factor(x_t_pu_own: float, c_max: float = C_MAX_HV) -> float:
    """``K_T = 0.95·c_max/(1 + 0.6·x_T)`` (IEC 60909-0:2016 eq. 12a), ``x_T`` on the
    transformer's own rating."""
    return 0.95 * c_max / (1.0 + 0.6 * x_t_pu_own)


def machine_impedance_pu(m: Machine, base_mva: float, c_max: float = C_MAX_HV) -> complex:
    """``K_G·(R_G + jX″d)`` per unit on the system base (the machine at ``U_rG = U_n``)."""
    x = m.xdss_pu * base_mva / m.sn_mva
    return generator_correction_factor(m.xdss_pu, m.cos_phi, c_max) * complex(m.r_over_x * x, x)


def admittance_stamps(n_bus: int, from_idx: np.ndarray, to_idx: np.ndarray, z_branch_pu: np.ndarray,
                      machine_bus: np.ndarray, z_machine_pu: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, cols, values)`` of the fault network's nodal admittance matrix (duplicates to
    be summed): each branch ``1/z`` between its ends at rated ratio, each machine ``1/z`` to
    the reference."""
    f = np.asarray(from_idx, dtype=int)
    t = np.asarray(to_idx, dtype=int)
    y = 1.0 / np.asarray(z_branch_pu, dtype=complex)
    mb = np.asarray(machine_bus, dtype=int)
    ym = 1.0 / np.asarray(z_machine_pu, dtype=complex)
    rows = np.concatenate([f, t, f, t, mb])
    cols = np.concatenate([f, t, t, f, mb])
    vals = np.concatenate([y, y, -y, -y, ym])
    if rows.size and (rows.max() >= n_bus or rows.min() < 0):
        raise ValueError("a branch or machine refers to a bus outside the network")
    return rows, cols, vals


def driving_point_impedances_dense(n_bus: int, stamps: tuple[np.ndarray, np.ndarray, np.ndarray],
                                   buses: Sequence[int]) -> np.ndarray:
    """``Z_kk`` for ``buses`` from a dense ``Y`` (numpy ``solve`` of ``Y Z = E``)."""
    rows, cols, vals = stamps
    Y = np.zeros((n_bus, n_bus), dtype=complex)
    np.add.at(Y, (rows, cols), vals)
    k = np.asarray(buses, dtype=int)
    E = np.zeros((n_bus, len(k)), dtype=complex)
    E[k, np.arange(len(k))] = 1.0
    Z = np.linalg.solve(Y, E)
    return Z[k, np.arange(len(k))]


def ikss_ka(z_kk_pu: np.ndarray, vn_kv: np.ndarray, base_mva: float, c: float = C_MAX_HV) -> np.ndarray:
    """``I″k = c·U_n/(√3·|Z_kk|)`` in kA: per unit ``c/|Z_kk|`` times the base current
    ``S_base/(√3·U_n)``."""
    return c / np.abs(z_kk_pu) * base_mva / (math.sqrt(3.0) * np.asarray(vn_kv, dtype=float))


def fault_currents_ka(
    *,
    n_bus: int,
    base_mva: float,
    vn_kv: np.ndarray,
    from_idx: np.ndarray,
    to_idx: np.ndarray,
    r_pu: np.ndarray,
    x_pu: np.ndarray,
    kt: np.ndarray,
    machines: Sequence[Machine],
    fault_buses: Sequence[int],
    c_max: float = C_MAX_HV,
    driving_point: Callable[[int, tuple[np.ndarray, np.ndarray, np.ndarray], Sequence[int]], np.ndarray] | None = None,
) -> np.ndarray:
    """I″k max (kA) at ``fault_buses`` (indices): branches ``kt·(r + jx)`` (``kt`` = K_T for
    transformers, 1 for lines), machines by :func:`machine_impedance_pu`.

    ``driving_point`` solves for ``Z_kk`` (default dense; :mod:`psab.backends.sparse_short_circuit`
    gives a sparse LU one for large networks)."""
    z_b = np.asarray(kt, dtype=float) * (np.asarray(r_pu, dtype=float) + 1j * np.asarray(x_pu, dtype=float))
    if np.any(np.abs(z_b) == 0):
        raise ValueError("every branch needs a non-zero series impedance")
    if not machines:
        raise ValueError("a fault network needs at least one machine")
    zm = np.array([machine_impedance_pu(m, base_mva, c_max) for m in machines])
    stamps = admittance_stamps(n_bus, from_idx, to_idx, z_b, np.array([m.bus for m in machines]), zm)
    solve = driving_point or driving_point_impedances_dense
    z_kk = solve(n_bus, stamps, fault_buses)
    vn = np.asarray(vn_kv, dtype=float)[np.asarray(fault_buses, dtype=int)]
    return ikss_ka(z_kk, vn, base_mva, c_max)
