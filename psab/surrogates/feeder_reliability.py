"""Reliability of a radial distribution feeder: protection regions, fault-indicator zones,
fault-location time and the IEEE 1366 indices.

A feeder is a tree of *sections* (each the branch feeding one bus, oriented away from the
substation). Definitions used throughout (Brown, *Electric Power Distribution Reliability*,
2nd ed., CRC Press 2009, §5.3 "analytical simulation for radial systems" and §4.2 on faulted
circuit indicators; IEEE Std 1366-2022 §3 and §4 for the indices):

- a fault on section ``k`` is cleared by the nearest protective device at or upstream of ``k``
  (a lateral fuse, else the substation breaker); every customer downstream of that device is
  interrupted (sustained interruption);
- a faulted-circuit indicator (FCI) sits at the head of its section and registers when the
  fault lies at or below that point (in the section or downstream of it). Two faults give the
  same indicator pattern iff no indicator lies on the symmetric difference of their root
  paths; the crew patrols every section that the pattern (and the operated device) cannot
  tell apart — the *zone* of the fault — so the location time is the zone's summed patrol time;
- after location, the faulted section is isolated by its head switch and the device is
  restored (switching time); the faulted section's own customers, and those below it that no
  tie can back-feed, wait for the repair;
- SAIFI = Σ λ_k N_k / N_T, SAIDI = Σ λ_k Σ_j N_j d_kj / N_T, CAIDI = SAIDI / SAIFI
  (IEEE 1366-2022 eqs. (1)-(3), as expected annual values of the failure model).

Everything here is a pure function of arrays; sections are indexed ``0 … n−1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from psab.surrogates.lin_dist_flow import NotRadialError, radial_tree


@dataclass(frozen=True)
class SectionTree:
    """``parent[i]``: the upstream section of section ``i`` (−1 at the substation);
    ``sub[i, j]``: section ``j`` lies at or below section ``i``; ``to_bus``: the bus each
    section feeds."""

    ids: tuple[str, ...]
    parent: np.ndarray
    sub: np.ndarray
    to_bus: tuple[str, ...]

    @property
    def n(self) -> int:
        return len(self.ids)


def section_tree(section_ids, from_bus, to_bus, root_bus: str) -> SectionTree:
    """Orient sections ``(id, from bus, to bus)`` away from ``root_bus``; raise
    :class:`NotRadialError` when they do not form a tree spanning their buses."""
    buses = sorted({root_bus, *from_bus, *to_bus})
    pos = {b: i for i, b in enumerate(buses)}
    tree = radial_tree(len(buses), [pos[b] for b in from_bus], [pos[b] for b in to_bus], pos[root_bus])
    n = len(section_ids)
    # The section feeding bus k is parent_branch[k]; its downstream bus is k.
    feeds = np.full(n, -1)
    for k in range(len(buses)):
        b = tree.parent_branch[k]
        if b >= 0:
            feeds[b] = k
    parent = np.array([tree.parent_branch[tree.parent[feeds[i]]] for i in range(n)])
    # sub[i, j] = branch i lies on the path root → bus fed by j.
    sub = tree.path[:, feeds].astype(bool)
    return SectionTree(tuple(section_ids), parent, sub, tuple(buses[feeds[i]] for i in range(n)))


def device_of(tree: SectionTree, has_device: np.ndarray) -> np.ndarray:
    """Index of the section whose protective device clears a fault on each section (the
    deepest device on the path, the section itself included); −1 = the substation breaker."""
    has = np.asarray(has_device, dtype=bool)
    out = np.full(tree.n, -1)
    depth = tree.sub.sum(axis=0)  # sections on the path to j, j included
    for j in range(tree.n):
        on_path = np.flatnonzero(tree.sub[:, j] & has)
        if on_path.size:
            out[j] = on_path[np.argmax(depth[on_path])]
    return out


def interrupted(tree: SectionTree, device: np.ndarray) -> np.ndarray:
    """``out[k, j]``: customers of section ``j`` are interrupted by a fault on ``k``."""
    out = np.ones((tree.n, tree.n), dtype=bool)
    for k in range(tree.n):
        if device[k] >= 0:
            out[k] = tree.sub[device[k]]
    return out


def same_zone(tree: SectionTree, fci: np.ndarray, device: np.ndarray) -> np.ndarray:
    """``z[i, j]``: faults on ``i`` and ``j`` give the same indicator pattern and operate the
    same protective device, so the crew cannot tell them apart."""
    sig = tree.sub.T[:, np.asarray(fci, dtype=bool)]  # indicators on each root path
    same = (sig[:, None, :] == sig[None, :, :]).all(axis=-1)
    return same & (device[:, None] == device[None, :])


def locate_time_h(tree: SectionTree, patrol_h, fci, device) -> np.ndarray:
    """Time to locate a fault on each section: the patrol time of its zone (h)."""
    return same_zone(tree, fci, device).astype(float) @ np.asarray(patrol_h, dtype=float)


def location_customer_minutes(tree: SectionTree, rate_per_yr, customers, patrol_h, fci, device) -> float:
    """Expected customer-minutes per year spent waiting for faults to be located:
    ``Σ_k λ_k · N_interrupted(k) · T_locate(k) · 60``."""
    n_int = interrupted(tree, device).astype(float) @ np.asarray(customers, dtype=float)
    return float(60.0 * np.sum(np.asarray(rate_per_yr, float) * n_int * locate_time_h(tree, patrol_h, fci, device)))


def backfed(tree: SectionTree, tie_section: int | None) -> np.ndarray:
    """``b[k, j]``: after isolating faulted section ``k``, section ``j`` (below ``k``) is
    re-energised through the normally-open tie at the end of ``tie_section``: ``j`` and the
    tie lie under the same child of ``k``."""
    b = np.zeros((tree.n, tree.n), dtype=bool)
    if tie_section is None:
        return b
    for k in range(tree.n):
        if not tree.sub[k, tie_section] or tie_section == k:
            continue
        children = np.flatnonzero(tree.parent == k)
        c = next(c for c in children if tree.sub[c, tie_section])
        b[k] = tree.sub[c]
    return b


#: When the repair time of the faulted section starts counting: at the end of location (psab's
#: convention — the crew that found the fault starts repairing it while the switching is done),
#: after the switching step, or from the fault itself (the repair time read as the whole
#: time-to-restore of the customers who wait for it, never shorter than location + switching).
REPAIR_ORIGINS = ("location", "switching", "fault")


def outage_durations_h(tree: SectionTree, patrol_h, repair_h, switching_h: float, fci, device,
                       tie_section: int | None = None, repair_origin: str = "location") -> np.ndarray:
    """``d[k, j]``: interruption duration (h) of section ``j``'s customers for a fault on ``k``
    under the stated restoration sequence (0 where not interrupted). The customers who wait for
    the repair are back ``repair_h[k]`` after the origin ``repair_origin`` (:data:`REPAIR_ORIGINS`)."""
    if repair_origin not in REPAIR_ORIGINS:
        raise ValueError(f"repair_origin must be one of {REPAIR_ORIGINS}, not {repair_origin!r}")
    t_loc = locate_time_h(tree, patrol_h, fci, device)
    out = interrupted(tree, device)
    below = tree.sub  # sub[k, j]: j at or below k
    bf = backfed(tree, tie_section)
    repair = np.asarray(repair_h, dtype=float)
    switched = t_loc + switching_h
    repaired = {"location": t_loc + repair, "switching": switched + repair,
                "fault": np.maximum(repair, switched)}[repair_origin]
    d = np.where(below & ~bf, repaired[:, None], switched[:, None])
    return np.where(out, d, 0.0)


def indices(tree: SectionTree, rate_per_yr, customers, patrol_h, repair_h, switching_h: float, fci, device,
            tie_section: int | None = None, repair_origin: str = "location") -> tuple[float, float, float]:
    """``(SAIFI per yr, SAIDI min/yr, CAIDI min)`` by IEEE 1366-2022 eqs. (1)-(3)."""
    lam = np.asarray(rate_per_yr, dtype=float)
    n = np.asarray(customers, dtype=float)
    n_t = n.sum()
    out = interrupted(tree, device)
    saifi = float(lam @ (out.astype(float) @ n)) / n_t
    d = outage_durations_h(tree, patrol_h, repair_h, switching_h, fci, device, tie_section, repair_origin)
    saidi = float(lam @ (d @ n)) * 60.0 / n_t
    return saifi, saidi, (saidi / saifi if saifi > 0 else 0.0)




def _combinations(items: list[int], k: int):  # type: ignore[no-untyped-def]
    """All ``k``-subsets of ``items`` in lexicographic order (as ``itertools.combinations``)."""
    if k == 0:
        yield ()
        return
    for i in range(len(items) - k + 1):
        for rest in _combinations(items[i + 1:], k - 1):
            yield (items[i], *rest)


def placement_costs(tree: SectionTree, rate_per_yr, customers, patrol_h, device, budget: int,
                    installed=None) -> list[tuple[float, tuple[int, ...]]]:
    """Every placement of at most ``budget`` new indicators (beside ``installed``) with its
    location cost, cheapest first (exhaustive search; ``C(n, k)`` placements)."""
    inst = np.zeros(tree.n, dtype=bool) if installed is None else np.asarray(installed, dtype=bool)
    free = [s for s in range(tree.n) if not inst[s]]
    out = []
    for k in range(budget + 1):
        for combo in _combinations(free, k):
            fci = inst.copy()
            fci[list(combo)] = True
            out.append((location_customer_minutes(tree, rate_per_yr, customers, patrol_h, fci, device), combo))
    out.sort(key=lambda t: (t[0], len(t[1]), t[1]))
    return out


__all__ = [
    "NotRadialError", "SectionTree", "backfed", "device_of", "indices", "interrupted", "locate_time_h",
    "location_customer_minutes", "outage_durations_h", "REPAIR_ORIGINS", "placement_costs", "same_zone", "section_tree",
]
