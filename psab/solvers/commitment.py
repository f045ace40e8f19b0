"""Unit commitment rows: on/off logic, start-ups and shut-downs, minimum up and down times,
commitment-dependent output limits, and a hydro reservoir — shared by the MILP reference and
the evaluator in the same way as :mod:`psab.solvers.dispatch`.

Formulation (Carrión & Arroyo, IEEE TPWRS 21(3), 2006, eqs. (5)–(12) in the three-binary
form of Rajan & Takriti, IBM RC23628, 2005), for unit g and step t with ``u`` on/off,
``y`` start-up and ``z`` shut-down indicators:

- logic            ``u_t − u_{t−1} = y_t − z_t``, ``y_t + z_t ≤ 1``, ``u_{−1}`` the initial state;
- minimum up       ``Σ_{τ=t−UT+1..t} y_τ ≤ u_t``: a unit started within the last UT steps is on;
- minimum down     ``Σ_{τ=t−DT+1..t} z_τ ≤ 1 − u_t``: a unit stopped within the last DT steps is off;
- history          a unit on (off) for h < UT (DT) steps before the horizon stays on (off)
                   for the first UT − h (DT − h) steps;
- limits           ``P_min·u_t ≤ p_t ≤ P_max·u_t``;
- cost             ``c·p_t·Δt + c_nl·u_t·Δt + c_su·y_t``.

The evaluator derives ``y`` and ``z`` from the submitted on/off sequence
(:func:`psab.surrogates.dispatch.transitions`), so the logic rows hold by construction and
the minimum up/down rows judge the sequence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from psab.solvers.algebra import LinearConstraint, equal_to, unit_limit_shown
from psab.solvers.dispatch import (
    POWER,
    STATE,
    VOLUME,
    Formulation,
    Injection,
    Storage,
    add_power_balance,
    add_series,
    add_storage,
    add_unit_series,
)
from psab.surrogates.dispatch import HM3_PER_M3S_HOUR


@dataclass(frozen=True)
class ThermalUnit:
    """A thermal unit: output window when on, minimum up/down times (steps), start-up cost,
    no-load cost per hour on, marginal cost, and its state before the horizon (on or off,
    for how many steps)."""

    id: str
    p_min_mw: float
    p_max_mw: float
    min_up_steps: int
    min_down_steps: int
    startup_cost: float
    no_load_cost_per_h: float
    marginal_cost_per_mwh: float
    initial_on: bool
    initial_steps: int


@dataclass(frozen=True)
class Hydro:
    """A hydro plant with its reservoir: output ``p = k·q`` for turbine flow ``q`` (k in MW per
    m³/s), turbine limit, inflow per step, volume window, initial and required final volume."""

    id: str
    mw_per_m3s: float
    turbine_max_m3s: float
    inflow_m3s: np.ndarray
    volume_initial_hm3: float
    volume_min_hm3: float
    volume_max_hm3: float
    volume_final_min_hm3: float


@dataclass(frozen=True)
class UCData:
    dt_h: float
    demand_mw: np.ndarray
    thermal: tuple[ThermalUnit, ...]
    hydro: Hydro
    storage: Storage
    storage_id: str


def must_run_steps(unit: ThermalUnit) -> tuple[int, int]:
    """Steps at the start of the horizon a unit must stay on and must stay off because of its
    history: ``(max(UT − h, 0), 0)`` when on for h steps, ``(0, max(DT − h, 0))`` when off."""
    if unit.initial_on:
        return max(unit.min_up_steps - unit.initial_steps, 0), 0
    return 0, max(unit.min_down_steps - unit.initial_steps, 0)


def add_commitment(f: Formulation, units: tuple[ThermalUnit, ...], *, field: Callable[[int, int, str], str]) -> None:
    """On/off, start-up and shut-down binaries with the logic, minimum up/down, history and
    output-limit rows, and the marginal, no-load and start-up costs of the module docstring."""
    G, T = len(units), f.steps
    p_hi = np.array([[u.p_max_mw] * T for u in units])
    add_unit_series(f, "p", G, upper=p_hi, cost_per_mwh=[u.marginal_cost_per_mwh for u in units],
                    words="thermal output within [0, P_max] in step {1}", field=lambda i: field(i[0], i[1], "p_mw"))
    add_unit_series(f, "u", G, upper=1.0, cost_per_mwh=[u.no_load_cost_per_h for u in units], binary=True,
                    words="on/off state is 0 or 1 in step {1}", field=lambda i: field(i[0], i[1], "on"), slack=STATE)
    add_unit_series(f, "y", G, upper=1.0, binary=True, words="start-up indicator is 0 or 1 in step {1}",
                    field=lambda i: field(i[0], i[1], "on"), slack=STATE)
    add_unit_series(f, "z", G, upper=1.0, binary=True, words="shut-down indicator is 0 or 1 in step {1}",
                    field=lambda i: field(i[0], i[1], "on"), slack=STATE)
    f.add_cost("y", np.array([u.startup_cost for u in units])[:, None])  # per start, not per hour
    u0 = [1.0 if u.initial_on else 0.0 for u in units]
    idx = [(g, t) for g in range(G) for t in range(T)]
    on_field = lambda i: field(i[0], i[1], "on")  # noqa: E731

    def logic(v: Any, i: tuple[int, int]) -> Any:
        g, t = i
        before = v.u[g, t - 1] if t else u0[g]
        return v.u[g, t] - before - v.y[g, t] + v.z[g, t]

    def min_up(v: Any, i: tuple[int, int]) -> Any:
        g, t = i
        return sum(v.y[g, s] for s in range(max(0, t - units[g].min_up_steps + 1), t + 1)) - v.u[g, t]

    def min_down(v: Any, i: tuple[int, int]) -> Any:
        g, t = i
        return sum(v.z[g, s] for s in range(max(0, t - units[g].min_down_steps + 1), t + 1)) + v.u[g, t]

    must_on = [(g, t) for g, u in enumerate(units) for t in range(min(must_run_steps(u)[0], T))]
    must_off = [(g, t) for g, u in enumerate(units) for t in range(min(must_run_steps(u)[1], T))]
    f.add_rows(
        LinearConstraint(name="commitment_logic", words="on/off logic u_t − u_(t−1) = y_t − z_t in step {1}",
                         index=idx, body=logic, **equal_to(0.0), field=on_field, slack=STATE),
        LinearConstraint(name="one_transition", words="at most one start-up or shut-down in step {1}",
                         index=idx, body=lambda v, i: v.y[i] + v.z[i], upper=1.0, field=on_field, slack=STATE),
        LinearConstraint(name="min_up", words="minimum up time: a unit started within its minimum up time must be on in step {1}",
                         index=[i for i in idx if units[i[0]].min_up_steps > 1], body=min_up, upper=0.0,
                         field=on_field, slack=STATE),
        LinearConstraint(name="min_down", words="minimum down time: a unit stopped within its minimum down time must be off in step {1}",
                         index=[i for i in idx if units[i[0]].min_down_steps > 1], body=min_down, upper=1.0,
                         field=on_field, slack=STATE),
        LinearConstraint(name="history_on", words="the unit must stay on in step {1}: its minimum up time from before the horizon has not elapsed",
                         index=must_on, body=lambda v, i: v.u[i], lower=1.0, field=on_field, slack=STATE),
        LinearConstraint(name="history_off", words="the unit must stay off in step {1}: its minimum down time from before the horizon has not elapsed",
                         index=must_off, body=lambda v, i: v.u[i], upper=0.0, field=on_field, slack=STATE),
        LinearConstraint(name="output_max", words="output at most P_max when on and zero when off in step {1}",
                         index=idx, body=lambda v, i: v.p[i] - units[i[0]].p_max_mw * v.u[i], upper=0.0,
                         field=lambda i: field(i[0], i[1], "p_mw"), slack=POWER,
                         shown=lambda v, i: unit_limit_shown("<=", units[i[0]].p_max_mw, "P_max", v.u[i], v.p[i])),
        LinearConstraint(name="output_min", words="output at least P_min when on in step {1}",
                         index=idx, body=lambda v, i: v.p[i] - units[i[0]].p_min_mw * v.u[i], lower=0.0,
                         field=lambda i: field(i[0], i[1], "p_mw"), slack=POWER,
                         shown=lambda v, i: unit_limit_shown(">=", units[i[0]].p_min_mw, "P_min", v.u[i], v.p[i])),
    )


def add_hydro_reservoir(f: Formulation, h: Hydro, *, power: str, spill: str, volume: str,
                        field: Callable[[str, int], str]) -> None:
    """Hydro output (``p = k·q``, so the turbine limit bounds ``p`` by ``k·q_max``), spillage,
    and the reservoir volume at the end of each step with the water balance
    ``V_t = V_{t−1} + (inflow_t − p_t/k − spill_t)·0.0036·Δt`` (hm³, flows in m³/s), the volume
    window and the required final volume. Water has no fuel cost; its value is carried by the
    final-volume requirement."""
    dt, k = f.dt_h, h.mw_per_m3s
    c = HM3_PER_M3S_HOUR * dt
    add_series(f, power, upper=k * h.turbine_max_m3s,
               words=f"hydro output within [0, {k * h.turbine_max_m3s:g}] MW (turbine limit) in step {{0}}",
               field=lambda t: field(power, t))
    add_series(f, spill, words="spillage is non-negative in step {0}", field=lambda t: field(spill, t))
    add_series(f, volume, lower=h.volume_min_hm3, upper=h.volume_max_hm3,
               words=f"reservoir volume within [{h.volume_min_hm3:g}, {h.volume_max_hm3:g}] hm³ at the end of step {{0}}",
               field=lambda t: field(volume, t), slack=VOLUME)
    v0 = h.volume_initial_hm3
    inflow = np.asarray(h.inflow_m3s, float)

    def balance(v: Any, t: int) -> Any:
        before = getattr(v, volume)[t - 1] if t else v0
        return getattr(v, volume)[t] - before + (c / k) * getattr(v, power)[t] + c * getattr(v, spill)[t]

    f.add_rows(
        LinearConstraint(name=f"{volume}_balance",
                         words="reservoir water balance in step {0}: V_t = V_(t−1) + (inflow − p/k − spill)·0.0036·Δt",
                         index=list(range(f.steps)), body=balance, **equal_to(lambda t: float(c * inflow[t])),
                         field=lambda t: field(volume, t), slack=VOLUME),
        LinearConstraint(name=f"{volume}_final", words=f"reservoir volume at the end of the horizon at least {h.volume_final_min_hm3:g} hm³",
                         index=[f.steps - 1], body=lambda v, t: getattr(v, volume)[t], lower=h.volume_final_min_hm3,
                         field=lambda t: field(volume, t), slack=VOLUME),
    )


def build_hydro_thermal_uc(d: UCData) -> Formulation:
    """Hydro-thermal-storage unit commitment (MILP): thermal commitment and dispatch, the hydro
    plant and its reservoir, a battery, and the demand balance every step."""
    T = len(d.demand_mw)
    f = Formulation(steps=T, dt_h=d.dt_h)
    ids = [u.id for u in d.thermal]
    hid, sid = d.hydro.id, d.storage_id
    add_commitment(f, d.thermal, field=lambda g, t, name: f"/schedule/{t}/{ids[g]}/{name}")
    hydro_fields = {"p_hydro": "p_mw", "spill": "spill_m3s", "volume": "volume_hm3"}
    add_hydro_reservoir(f, d.hydro, power="p_hydro", spill="spill", volume="volume",
                        field=lambda name, t: f"/schedule/{t}/{hid}/{hydro_fields[name]}")
    storage_fields = {"p_charge": "p_charge_mw", "p_discharge": "p_discharge_mw", "soc": "soc_mwh"}
    add_storage(f, d.storage, charge="p_charge", discharge="p_discharge", soc="soc",
                field=lambda name, t: f"/schedule/{t}/{sid}/{storage_fields[name]}", label=f"storage {sid}")
    add_power_balance(f, [Injection("p", 1.0, len(d.thermal)), Injection("p_hydro"), Injection("p_discharge"),
                          Injection("p_charge", -1.0)], d.demand_mw, words="demand balance in step {0}",
                      field=lambda t: f"/schedule/{t}")
    return f
