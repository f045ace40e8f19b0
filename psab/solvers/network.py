"""DC network constraints, written once for the reference MILPs and the evaluators.

Two formulations of the lossless DC network (Wood & Wollenberg, *Power Generation, Operation and
Control*, 3rd ed., §6.12 and §8.3; MATPOWER's ``makeBdc`` branch convention, see
:mod:`psab.surrogates.dc_flow`):

- **angle (B-θ) formulation** with switchable branches — variables ``p[g]`` (unit outputs, MW),
  ``theta[i]`` (bus angles, rad), ``f[k]`` (branch flows, MW) and ``z[k]`` (1 = closed) for the
  switchable branches. Kirchhoff's current law at every bus; Ohm's law ``f_k = B_k (θ_f − θ_t −
  φ_k)`` (``B_k = b_k · base_mva``, MW/rad) as an equality for fixed branches and relaxed by a
  big-M for switchable ones; flow limits ``|f_k| ≤ F_k z_k``. This is the optimal transmission
  switching model of Fisher, O'Neill & Ferris, "Optimal transmission switching", IEEE Trans.
  Power Syst. 23(3), 2008, eqs. (1)-(9). Connectivity (no bus, hence no load, islanded) is
  enforced by a single-commodity flow: the slack sends one unit to every other bus over closed
  branches only (:func:`connectivity_rows`).
- **PTDF formulation** for a fixed topology — branch flows as ``f = PTDF · P + f_shift``
  (:func:`ptdf_flow_rows`), used where the topology is given and only injections are decided.

The evaluator computes the state (θ, f) from the submitted decisions with the DC kernel
(:func:`psab.surrogates.dc_flow.dc_power_flow`) and checks these same rows at that state: a row
that the physical state breaks points at a model error, and the big-M rows check that the chosen
``M`` is valid for every open branch.

Big-M (:func:`big_m`): in a connected post-switching network whose flows respect their ratings,
the angle difference across any path is at most ``Σ_j (F_j / B_j + |φ_j|)`` over its branches,
so ``M_k = B_k · (Σ_{j ≠ k} F_j / B_j + |φ_j| + |φ_k|)`` bounds ``|B_k(θ_f − θ_t − φ_k)|`` for an
open branch k — valid, if loose (Fattahi, Lavaei & Atamtürk, "A bound strengthening method for
optimal transmission switching", IEEE Trans. Power Syst. 2019, discuss tighter bounds).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from psab.solvers.algebra import LinearConstraint, equal_to
from psab.surrogates.dc_flow import DcNetwork


@dataclass(frozen=True)
class DcGrid:
    """A DC network with ratings and the bus of every generator variable ``p[g]``.

    ``net_load_mw`` is the fixed withdrawal at every bus (load minus fixed injections such as a
    scheduled interconnector import); ``gen_bus`` the bus position of each unit.
    """

    net: DcNetwork
    bus_ids: tuple[str, ...]
    branch_ids: tuple[str, ...]
    rating_mw: tuple[float, ...]
    gen_bus: tuple[int, ...]
    net_load_mw: tuple[float, ...]

    @property
    def b_mw_per_rad(self) -> np.ndarray:
        """``B_k = b_k · base_mva``: MW per radian of angle difference."""
        return self.net.susceptance_pu * self.net.base_mva

    def gens_at(self, bus: int) -> list[int]:
        return [g for g, b in enumerate(self.gen_bus) if b == bus]


def big_m(grid: DcGrid, in_service: Sequence[bool]) -> np.ndarray:
    """A valid big-M (MW) for Ohm's law of every branch when open (see the module docstring)."""
    B = grid.b_mw_per_rad
    phi = np.abs(grid.net.shift_rad())
    span = np.where(np.asarray(in_service, dtype=bool), np.asarray(grid.rating_mw) / B + phi, 0.0)
    return B * (span.sum() - span + phi)


def angle_rows(
    grid: DcGrid,
    in_service: Sequence[bool],
    switchable: Sequence[int],
    *,
    gen_field: Callable[[int], str],
    switch_field: Callable[[int], str],
    flow_field: Callable[[int], str],
) -> list[LinearConstraint]:
    """The B-θ rows of a network whose branches ``in_service`` may carry flow, of which those
    in ``switchable`` (positions) may also be opened by ``z[k] = 0``.

    Out-of-service branches get ``f[k] = 0``. Rows are indexed by ``(position, id)`` so that a
    violation names its bus or branch; ``*_field`` map a position to the answer field a breach is
    reported at (the units for a balance, the switch for a switchable branch).
    """
    on = [bool(x) for x in in_service]
    sw = sorted(int(k) for k in switchable)
    nb = grid.net.n_branch
    br = grid.branch_ids
    fixed = [(k, br[k]) for k in range(nb) if on[k] and k not in sw]
    off = [(k, br[k]) for k in range(nb) if not on[k]]
    switch = [(k, br[k]) for k in sw]
    buses = [(i, b) for i, b in enumerate(grid.bus_ids)]
    B = grid.b_mw_per_rad
    phi = grid.net.shift_rad()
    F = grid.rating_mw
    f_idx, t_idx = grid.net.from_idx, grid.net.to_idx
    M = big_m(grid, on)
    leaving = {i: [k for k in range(nb) if on[k] and f_idx[k] == i] for i in range(grid.net.n_bus)}
    entering = {i: [k for k in range(nb) if on[k] and t_idx[k] == i] for i in range(grid.net.n_bus)}

    def kcl(v: Any, i: tuple[int, str]) -> Any:
        b = i[0]
        return (sum(v.p[g] for g in grid.gens_at(b)) - sum(v.f[k] for k in leaving[b])
                + sum(v.f[k] for k in entering[b]))

    def ohm(v: Any, i: tuple[int, str]) -> Any:
        k = i[0]
        return v.f[k] - B[k] * (v.theta[f_idx[k]] - v.theta[t_idx[k]])

    def bus_field(i: tuple[int, str]) -> str:
        gens = grid.gens_at(i[0])
        return gen_field(gens[0]) if gens else "/"

    rows = [
        LinearConstraint("kcl", "power balance (Kirchhoff's current law) at bus {1}", buses, kcl,
                         **equal_to(lambda i: grid.net_load_mw[i[0]]), field=bus_field),
        LinearConstraint("angle_ref", "the slack bus {1} is the angle reference (0 rad)", [buses[grid.net.slack]],
                         lambda v, i: v.theta[i[0]], **equal_to(0.0), field=lambda i: "/"),
        LinearConstraint("ohm", "Ohm's law of the DC model on {1}", fixed, ohm,
                         **equal_to(lambda i: -B[i[0]] * phi[i[0]]), field=lambda i: flow_field(i[0])),
        LinearConstraint("rating", "active flow of {1} within its rating", fixed, lambda v, i: v.f[i[0]],
                         lower=lambda i: -F[i[0]], upper=lambda i: F[i[0]], field=lambda i: flow_field(i[0]), slack="flow_mw"),
        LinearConstraint("open_no_flow", "the out-of-service branch {1} carries no flow", off, lambda v, i: v.f[i[0]],
                         **equal_to(0.0), field=lambda i: flow_field(i[0])),
    ]
    if switch:
        rows += [
            LinearConstraint("ohm_switch_up", "Ohm's law on the switchable branch {1} (big-M relaxed when open)", switch,
                             lambda v, i: ohm(v, i) + M[i[0]] * v.z[i[0]], upper=lambda i: M[i[0]] - B[i[0]] * phi[i[0]],
                             field=lambda i: switch_field(i[0])),
            LinearConstraint("ohm_switch_lo", "Ohm's law on the switchable branch {1} (big-M relaxed when open)", switch,
                             lambda v, i: ohm(v, i) - M[i[0]] * v.z[i[0]], lower=lambda i: -M[i[0]] - B[i[0]] * phi[i[0]],
                             field=lambda i: switch_field(i[0])),
            LinearConstraint("rating_switch_up", "active flow of {1} within its rating (zero when open)", switch,
                             lambda v, i: v.f[i[0]] - F[i[0]] * v.z[i[0]], upper=0.0,
                             field=lambda i: flow_field(i[0]), slack="flow_mw"),
            LinearConstraint("rating_switch_lo", "active flow of {1} within its rating (zero when open)", switch,
                             lambda v, i: v.f[i[0]] + F[i[0]] * v.z[i[0]], lower=0.0,
                             field=lambda i: flow_field(i[0]), slack="flow_mw"),
        ]
    return rows


def connectivity_rows(grid: DcGrid, in_service: Sequence[bool], switchable: Sequence[int]) -> list[LinearConstraint]:
    """Single-commodity flow rows ``c[k]`` that exist only if the closed branches connect every
    bus to the slack: the slack emits ``n − 1`` units, every other bus absorbs one, and a branch
    carries commodity only when closed (``|c_k| ≤ (n − 1) z_k``; ``c_k = 0`` when out of service).

    These rows are the model's encoding of "no bus islanded"; the evaluator checks the same
    requirement on the graph (:func:`psab.surrogates.dc_flow.is_connected`).
    """
    n = grid.net.n_bus
    on = [bool(x) for x in in_service]
    sw = set(int(k) for k in switchable)
    cap = float(n - 1)
    f_idx, t_idx = grid.net.from_idx, grid.net.to_idx
    fixed = [k for k in range(grid.net.n_branch) if on[k] and k not in sw]
    off = [k for k in range(grid.net.n_branch) if not on[k]]

    def net_out(v: Any, i: int) -> Any:
        return (sum(v.c[k] for k in range(grid.net.n_branch) if f_idx[k] == i)
                - sum(v.c[k] for k in range(grid.net.n_branch) if t_idx[k] == i))

    rows = [
        LinearConstraint("conn_balance", "connectivity: bus reached from the slack", list(range(n)), net_out,
                         **equal_to(lambda i: cap if i == grid.net.slack else -1.0)),
        LinearConstraint("conn_fixed", "connectivity over a closed branch", fixed, lambda v, k: v.c[k], lower=-cap, upper=cap),
        LinearConstraint("conn_off", "no connectivity over an out-of-service branch", off, lambda v, k: v.c[k], **equal_to(0.0)),
    ]
    if sw:
        rows += [
            LinearConstraint("conn_switch_up", "connectivity only over a closed switchable branch", sorted(sw),
                             lambda v, k: v.c[k] - cap * v.z[k], upper=0.0),
            LinearConstraint("conn_switch_lo", "connectivity only over a closed switchable branch", sorted(sw),
                             lambda v, k: v.c[k] + cap * v.z[k], lower=0.0),
        ]
    return rows


# ------------------------------------------------------------------------ PTDF formulation


def shift_factors(ptdf: np.ndarray, grid: DcGrid) -> np.ndarray:
    """Generation shift factors ``S[l, g] = PTDF[l, bus(g)]`` (MW/MW, the slack balancing)."""
    return ptdf[:, list(grid.gen_bus)]


def fixed_flow_mw(ptdf: np.ndarray, grid: DcGrid, shift_flow_mw: np.ndarray) -> np.ndarray:
    """The part of every branch flow fixed by the data: the net loads (withdrawn, slack
    balancing) and the phase shifters."""
    return -ptdf @ np.asarray(grid.net_load_mw) + shift_flow_mw


def ptdf_flow_rows(
    name: str,
    words: str,
    index: Sequence[tuple[Any, ...]],
    factors: np.ndarray,
    fixed_flow: np.ndarray,
    injection: Callable[[Any, Any, int], Any],
    units: Sequence[int],
    rating: Callable[[tuple[Any, ...]], float],
    field: Callable[[tuple[Any, ...]], str],
) -> LinearConstraint:
    """Rows ``−F ≤ Σ_j S[l, j] · injection(v, s, j) + f_fixed[l] ≤ F`` over ``(s, l, ...)`` in
    ``index``: the flow on branch ``l`` in scenario ``s`` when unit ``j`` injects
    ``injection(v, s, j)`` (units not in ``units`` inject nothing). Index tuples may carry more
    elements after ``(s, l)`` — names for the words."""

    def body(v: Any, key: tuple[Any, ...]) -> Any:
        s, line = key[0], key[1]
        return sum(factors[line, j] * injection(v, s, j) for j in units if factors[line, j] != 0.0) + fixed_flow[line]

    return LinearConstraint(name, words, list(index), body, lower=lambda i: -rating(i), upper=rating, field=field, slack="flow_mw")


def pyomo_vars(model: Any, **sets: tuple[Sequence[Any], str]) -> None:
    """Add indexed Pyomo variables to ``model``: ``name=(index, domain)`` with domain one of
    ``"reals"``, ``"nonneg"``, ``"binary"``."""
    import pyomo.environ as pyo

    domains = {"reals": pyo.Reals, "nonneg": pyo.NonNegativeReals, "binary": pyo.Binary}
    for name, (index, domain) in sets.items():
        setattr(model, f"{name}_set", pyo.Set(initialize=list(index), dimen=None, ordered=True))
        setattr(model, name, pyo.Var(getattr(model, f"{name}_set"), domain=domains[domain]))
