"""Harmonic limits at the point of common coupling, IEEE Std 519-2022.

The tables are carried as data with their clause:

- Table 1 (clause 5.1, voltage distortion limits): individual harmonic and THD limits, percent
  of the fundamental, by the bus voltage V at the PCC;
- Tables 2, 3, 4 (clause 5.2, current distortion limits for systems rated 120 V–69 kV,
  > 69 kV–161 kV, > 161 kV): the maximum harmonic current in percent of the maximum demand
  load current I_L by odd-order range and the TDD limit, by the row of I_SC/I_L. The 2022
  edition limits even harmonics to 50 % of the range's limit for h ≤ 6 and to 100 % above
  (2014: 25 % for all even orders).

Checked against sources outside psab: Table 2 equals IEEE 519-1992 Table 10.3 as reprinted in
Kusko & Thompson, *Power Quality in Electrical Systems* (McGraw-Hill, 2007), p. 17, Fig. 2.3
(the 2014/2022 Table 2 kept those values); the 2022 even-harmonic rule as summarised in public
notes on the 2014 → 2022 changes. Tables 1, 3 and 4 have not been checked against a printed copy.

Row boundaries are read as the tables print them: ``< 20``, ``20 < 50`` … — a ratio equal to a
boundary falls in the upper row (the tables leave it open; psab's cases never sit on one).

Everything is vectorized over the harmonic order axis and over leading axes (a year of 10-min
spectra, 52,560 × 49, in one call).
"""

from __future__ import annotations

import numpy as np

#: Table 1: (upper bound of V in kV, individual harmonic %, THD %).
VOLTAGE_LIMITS = ((1.0, 5.0, 8.0), (69.0, 3.0, 5.0), (161.0, 1.5, 2.5), (float("inf"), 1.0, 1.5))
#: Odd-order ranges of Tables 2–4: [lower, upper) — the last range is 35 ≤ h ≤ 50.
ORDER_RANGES = ((3, 11), (11, 17), (17, 23), (23, 35), (35, 51))
#: Tables 2–4: per voltage class (upper bound of V in kV), rows (upper bound of I_SC/I_L,
#: limits by ORDER_RANGES in % of I_L, TDD %).
CURRENT_TABLES: dict[str, tuple[float, tuple[tuple[float, tuple[float, ...], float], ...]]] = {
    "Table 2": (69.0, (
        (20.0, (4.0, 2.0, 1.5, 0.6, 0.3), 5.0),
        (50.0, (7.0, 3.5, 2.5, 1.0, 0.5), 8.0),
        (100.0, (10.0, 4.5, 4.0, 1.5, 0.7), 12.0),
        (1000.0, (12.0, 5.5, 5.0, 2.0, 1.0), 15.0),
        (float("inf"), (15.0, 7.0, 6.0, 2.5, 1.4), 20.0),
    )),
    "Table 3": (161.0, (
        (20.0, (2.0, 1.0, 0.75, 0.3, 0.15), 2.5),
        (50.0, (3.5, 1.75, 1.25, 0.5, 0.25), 4.0),
        (100.0, (5.0, 2.25, 2.0, 0.75, 0.35), 6.0),
        (1000.0, (6.0, 2.75, 2.5, 1.0, 0.5), 7.5),
        (float("inf"), (7.5, 3.5, 3.0, 1.25, 0.7), 10.0),
    )),
    "Table 4": (float("inf"), (
        (25.0, (1.0, 0.5, 0.38, 0.15, 0.1), 1.5),
        (50.0, (2.0, 1.0, 0.75, 0.3, 0.15), 2.5),
        (float("inf"), (3.0, 1.5, 1.15, 0.45, 0.22), 3.75),
    )),
}
#: IEEE 519-2022 even-harmonic rule: share of the range's limit for h ≤ 6 and for h > 6.
EVEN_SHARE_LOW, EVEN_SHARE_HIGH = 0.5, 1.0
#: Orders the limits cover.
MIN_ORDER, MAX_ORDER = 2, 50


#: Relative margin below which a value counts as equal to its limit: the conversion A → % of I_L
#: (70 A / 1000 A × 100 = 7.000000000000001) must not turn a value at its limit into a violation.
EDGE_REL = 1e-9


def exceeds(value, limit):  # type: ignore[no-untyped-def]
    """``value > limit`` with a value equal to its limit (to :data:`EDGE_REL`) complying — IEEE
    519-2022 clause 5 gives the limits as maxima; works elementwise on arrays."""
    return np.asarray(value, dtype=float) > np.asarray(limit, dtype=float) * (1.0 + EDGE_REL)


def voltage_limits(v_kv: float) -> tuple[float, float]:
    """Table 1: (individual harmonic limit %, THD limit %) at bus voltage V (kV)."""
    if not v_kv > 0:
        raise ValueError("the PCC voltage must be positive")
    for bound, ind, thd in VOLTAGE_LIMITS:
        if v_kv <= bound:
            return ind, thd
    raise AssertionError("unreachable")


def current_table(v_kv: float) -> str:
    """Which of Tables 2, 3, 4 applies at bus voltage V (kV)."""
    if not v_kv > 0:
        raise ValueError("the PCC voltage must be positive")
    for name, (bound, _) in CURRENT_TABLES.items():
        if v_kv <= bound:
            return name
    raise AssertionError("unreachable")


def current_row(v_kv: float, isc_il: float) -> tuple[str, int, tuple[float, ...], float]:
    """The table, the row index, the five range limits (% of I_L) and the TDD limit (%)."""
    if not isc_il > 0:
        raise ValueError("I_SC/I_L must be positive")
    name = current_table(v_kv)
    for i, (bound, limits, tdd) in enumerate(CURRENT_TABLES[name][1]):
        if isc_il < bound:
            return name, i, limits, tdd
    raise AssertionError("unreachable")


def current_limits_pct(v_kv: float, isc_il: float, orders: np.ndarray) -> np.ndarray:
    """The individual current limit (% of I_L) of each harmonic order h, even orders by the 2022 rule."""
    _, _, limits, _ = current_row(v_kv, isc_il)
    h = np.asarray(orders, dtype=int)
    odd_limit = np.zeros(h.shape)
    # an even order takes the limit of the odd range it lies in (h = 2 … 10 → the h < 11 range)
    for (lo, hi), lim in zip(ORDER_RANGES, limits, strict=True):
        odd_limit[(h >= (2 if lo == 3 else lo)) & (h < hi)] = lim
    share = np.where(h % 2 == 0, np.where(h <= 6, EVEN_SHARE_LOW, EVEN_SHARE_HIGH), 1.0)
    return odd_limit * share


def tdd_pct(harmonic_a: np.ndarray, il_a: float) -> np.ndarray:
    """Total demand distortion: √(Σ_h I_h²) / I_L × 100 over the last axis (orders 2…50)."""
    i = np.asarray(harmonic_a, dtype=float)
    return np.sqrt(np.einsum("...h,...h->...", i, i)) / il_a * 100.0


def thd_pct(harmonic: np.ndarray, fundamental: float | np.ndarray) -> np.ndarray:
    """Total harmonic distortion: √(Σ_h V_h²) / V_1 × 100 over the last axis."""
    v = np.asarray(harmonic, dtype=float)
    return np.sqrt(np.einsum("...h,...h->...", v, v)) / np.asarray(fundamental, dtype=float) * 100.0
