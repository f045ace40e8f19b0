"""EV fleet scheduling through a planned outage (vehicle-to-building), written once for the
reference MILP and for the evaluator.

Variables (per EV ``e`` and hour ``t``): charging power ``ch[e, t]`` and discharging power
``dis[e, t]`` in kW at the building's bus (zero outside the EV's parking window), the building's
unserved critical load ``shed[t]`` (zero outside the outage) and, in the reference only, a
binary ``mode[e, t]`` (1 = may charge, 0 = may discharge) that forbids charging and discharging in
the same hour. The stored energy is the linear expression
``E[e, t] = E0_e + Σ_{τ ≤ t} (η_c·ch[e, τ] − dis[e, τ]/η_d)·Δt`` — not a variable — so the evaluator
derives it from the submitted powers with the same rows.

Rows (``LinearConstraint``): the outage balance ``Σ dis − Σ ch + shed = load`` in every outage
hour; outside the outage no export and the service limit ``0 ≤ load + Σ ch − Σ dis ≤ limit``;
every EV's energy within ``[soc_min·cap, cap]`` at the end of every parked hour; the departure
energy ``E[e, dep−1] ≥ soc_req·cap``. Cost: the grid energy bought outside the outage at the
hourly price plus the value of lost load on the unserved energy.

Sources: the V2B outage support of EVs for power quality and security (the catalogue's source);
the EV energy model as in Sortomme & El-Sharkawi, "Optimal scheduling of vehicle-to-grid energy
and ancillary services", IEEE Trans. Smart Grid 3(1), 2012, §II.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from psab.solvers.algebra import LinearConstraint, equal_to
from psab.solvers.dispatch import Formulation, Variable, add_unit_series

POWER = "power_kw"
ENERGY = "energy_kwh"


@dataclass(frozen=True)
class Ev:
    id: str
    capacity_kwh: float
    arrival_hour: int
    departure_hour: int
    arrival_soc: float
    departure_soc: float
    soc_min: float
    p_charge_max_kw: float
    p_discharge_max_kw: float
    eta_charge: float
    eta_discharge: float


@dataclass(frozen=True)
class OutageCase:
    hours: int
    dt_h: float
    load_kw: np.ndarray
    price_per_kwh: np.ndarray
    service_limit_kw: float
    outage_start: int
    outage_end: int       # exclusive
    voll_per_kwh: float
    evs: tuple[Ev, ...]

    def in_outage(self, t: int) -> bool:
        return self.outage_start <= t < self.outage_end

    def parked(self, e: Ev, t: int) -> bool:
        return e.arrival_hour <= t < e.departure_hour


def _field_ev(key: str):  # type: ignore[no-untyped-def]
    return lambda i: f"/evs/{i[0]}/{key}/{i[1]}"


def energy(v: Any, case: OutageCase, e: int, t: int) -> Any:
    """E[e, t]: the energy at the end of hour t from the arrival energy and the powers so far."""
    ev = case.evs[e]
    total: Any = ev.arrival_soc * ev.capacity_kwh
    for tau in range(ev.arrival_hour, t + 1):
        total = total + (ev.eta_charge * case.dt_h) * v.ch[e, tau] - (case.dt_h / ev.eta_discharge) * v.dis[e, tau]
    return total


def build_outage_schedule(case: OutageCase, *, binaries: bool = True) -> Formulation:
    E, T = len(case.evs), case.hours
    f = Formulation(steps=T, dt_h=case.dt_h)
    ch_hi = np.array([[ev.p_charge_max_kw if case.parked(ev, t) else 0.0 for t in range(T)] for ev in case.evs])
    dis_hi = np.array([[ev.p_discharge_max_kw if case.parked(ev, t) else 0.0 for t in range(T)] for ev in case.evs])
    outage = np.array([case.in_outage(t) for t in range(T)])
    price_grid = np.where(outage, 0.0, case.price_per_kwh)
    add_unit_series(f, "ch", E, upper=ch_hi, cost_per_mwh=None, words="EV charging power within [0, its limit] (0 when not parked) at {0}",
                    field=_field_ev("p_charge_kw"), slack=POWER)
    add_unit_series(f, "dis", E, upper=dis_hi, words="EV discharging power within [0, its limit] (0 when not parked) at {0}",
                    field=_field_ev("p_discharge_kw"), slack=POWER)
    f.add_variable(Variable("shed", (T,), 0.0, np.where(outage, case.load_kw, 0.0),
                            "unserved critical load within [0, load] in outage hours, 0 otherwise, hour {0}",
                            lambda t: f"/unserved_kw/{t}", POWER))
    # grid energy bought outside the outage: price·(load + Σch − Σdis)·Δt; VoLL on unserved energy
    f.add_cost("ch", np.broadcast_to(price_grid * case.dt_h, (E, T)))
    f.add_cost("dis", np.broadcast_to(-price_grid * case.dt_h, (E, T)))
    f.add_cost("shed", np.full(T, case.voll_per_kwh * case.dt_h))
    f.fixed_cost = float(np.sum(price_grid * case.load_kw) * case.dt_h)

    def net(v: Any, t: int) -> Any:
        total: Any = 0.0
        for e in range(E):
            if case.parked(case.evs[e], t):
                total = total + v.ch[e, t] - v.dis[e, t]
        return total

    out_hours = [t for t in range(T) if outage[t]]
    grid_hours = [t for t in range(T) if not outage[t]]
    f.add_rows(
        LinearConstraint(name="outage_balance", words="critical load served in outage hour {0}: Σ discharge − Σ charge + unserved = load",
                         index=out_hours, body=lambda v, t: -net(v, t) + v.shed[t],
                         **equal_to(lambda t: float(case.load_kw[t])), field=lambda t: f"/unserved_kw/{t}", slack=POWER),
        LinearConstraint(name="grid_import", words="grid import in hour {0} within [0, service limit] (no export)",
                         index=grid_hours, body=lambda v, t: float(case.load_kw[t]) + net(v, t),
                         lower=0.0, upper=case.service_limit_kw, field=lambda t: "/evs", slack=POWER),
    )
    parked = [(e, t) for e, ev in enumerate(case.evs) for t in range(ev.arrival_hour, ev.departure_hour)]
    f.add_rows(
        LinearConstraint(name="ev_energy", words="EV {0} energy within [soc_min·capacity, capacity] at the end of hour {1}",
                         index=parked, body=lambda v, i: energy(v, case, i[0], i[1]),
                         lower=lambda i: case.evs[i[0]].soc_min * case.evs[i[0]].capacity_kwh,
                         upper=lambda i: case.evs[i[0]].capacity_kwh, field=_field_ev("p_charge_kw"), slack=ENERGY),
        LinearConstraint(name="ev_departure", words="EV {0} energy at departure (end of hour {1}) at least the required SOC",
                         index=[(e, ev.departure_hour - 1) for e, ev in enumerate(case.evs)],
                         body=lambda v, i: energy(v, case, i[0], i[1]),
                         lower=lambda i: case.evs[i[0]].departure_soc * case.evs[i[0]].capacity_kwh,
                         field=_field_ev("p_charge_kw"), slack=ENERGY),
    )
    if binaries:
        f.add_variable(Variable("mode", (E, T), 0.0, 1.0, "mode", lambda i: "", POWER, binary=True))
        f.add_rows(
            LinearConstraint(name="charge_mode", words="EV {0} charges only in charge mode, hour {1}", index=parked,
                             body=lambda v, i: v.ch[i] - case.evs[i[0]].p_charge_max_kw * v.mode[i], upper=0.0,
                             field=_field_ev("p_charge_kw"), slack=POWER),
            LinearConstraint(name="discharge_mode", words="EV {0} discharges only in discharge mode, hour {1}", index=parked,
                             body=lambda v, i: v.dis[i] + case.evs[i[0]].p_discharge_max_kw * v.mode[i],
                             upper=lambda i: case.evs[i[0]].p_discharge_max_kw, field=_field_ev("p_discharge_kw"), slack=POWER),
        )
    return f


# ------------------------------------------------------------------ voltage support by V2G hubs


def voltage_support_rows(ids: list[str], buses: list[str], v_op: dict[str, float], sens_p: dict[str, dict[str, float]],
                         sens_q: dict[str, dict[str, float]], lo: float, hi: float, *, p_op: dict[str, float] | None = None,
                         q_op: dict[str, float] | None = None, words: str = "linear model",
                         field: str = "/p_kw") -> LinearConstraint:
    """``lo ≤ V_i^op + Σ_e S^p_ie (p_e − p_e^op) + S^q_ie (q_e − q_e^op) ≤ hi`` for every bus,
    with ``p, q`` in kW/kvar (injections) and the sensitivities per kW/kvar."""
    p0 = {e: float((p_op or {}).get(e, 0.0)) for e in ids}
    q0 = {e: float((q_op or {}).get(e, 0.0)) for e in ids}
    base = {b: v_op[b] - sum(sens_p[b][e] * p0[e] + sens_q[b][e] * q0[e] for e in ids) for b in buses}

    def body(v: Any, b: str) -> Any:
        total: Any = base[b]
        for e in ids:
            total = total + sens_p[b][e] * v.p[e] + sens_q[b][e] * v.q[e]
        return total

    return LinearConstraint(name="voltage_band", words=f"voltage at bus {{0}} within [{lo:g}, {hi:g}] ({words})",
                            index=list(buses), body=body, lower=lo, upper=hi, field=lambda b: field, slack="voltage_band")


def solve_voltage_support(ids: list[str], rows: list[LinearConstraint], price_p: dict[str, float], price_q: dict[str, float],
                          p_max: dict[str, float], q_max: dict[str, float]) -> tuple[dict[str, float], dict[str, float], float]:
    """The LP ``min Σ (c_p·p + c_q·|q|)`` over ``0 ≤ p ≤ p_max``, ``|q| ≤ q_max`` subject to
    ``rows`` (``|q|`` split as ``q⁺ + q⁻``); raises SolverError when infeasible."""
    import pyomo.environ as pyo

    from psab.solvers.algebra import add_constraints
    from psab.solvers.core import solve

    m = pyo.ConcreteModel(name="v2g_voltage_support")
    m.E = pyo.Set(initialize=list(ids), ordered=True)
    m.p = pyo.Var(m.E, bounds=lambda m, e: (0.0, p_max[e]))
    m.q = pyo.Var(m.E, bounds=lambda m, e: (-q_max[e], q_max[e]))
    m.q_pos = pyo.Var(m.E, domain=pyo.NonNegativeReals)
    m.q_neg = pyo.Var(m.E, domain=pyo.NonNegativeReals)
    m.split = pyo.Constraint(m.E, rule=lambda m, e: m.q[e] == m.q_pos[e] - m.q_neg[e])
    add_constraints(m, rows)
    m.cost = pyo.Objective(expr=sum(price_p[e] * m.p[e] + price_q[e] * (m.q_pos[e] + m.q_neg[e]) for e in m.E),
                           sense=pyo.minimize)
    result = solve(m)
    return ({e: float(pyo.value(m.p[e])) for e in ids}, {e: float(pyo.value(m.q[e])) for e in ids}, result.objective)


def voltage_support_lp(ids: list[str], rows: list[LinearConstraint], price_p: dict[str, float], price_q: dict[str, float],
                       p_max: dict[str, float], q_max: dict[str, float]) -> Any:
    """:func:`solve_voltage_support`'s LP as a :class:`~psab.solvers.array_lp.ArrayLP`: the same
    columns, rows, bounds and cost in the same order as its Pyomo model gives HiGHS."""
    from psab.solvers.array_lp import ArrayLP

    lp = ArrayLP()
    lp.var("p", ids, lower=0.0, upper=lambda e: p_max[e])
    lp.var("q", ids, lower=lambda e: -q_max[e], upper=lambda e: q_max[e])
    lp.var("q_pos", ids, lower=0.0)
    lp.var("q_neg", ids, lower=0.0)
    for e in ids:
        # q == q⁺ − q⁻ as Pyomo reads it: body q − q⁺ + q⁻, both bounds 0
        lp.row([(lp.key("q", e), 1.0), (lp.key("q_pos", e), -1.0), (lp.key("q_neg", e), 1.0)], 0.0, 0.0)
    lp.constraints(rows)
    lp.minimize([t for e in ids for t in ((lp.key("p", e), price_p[e]), (lp.key("q_pos", e), price_q[e]),
                                         (lp.key("q_neg", e), price_q[e]))])
    return lp


def solve_voltage_support_arrays(ids: list[str], rows: list[LinearConstraint], price_p: dict[str, float],
                                 price_q: dict[str, float], p_max: dict[str, float],
                                 q_max: dict[str, float]) -> tuple[dict[str, float], dict[str, float], float]:
    """:func:`solve_voltage_support` without building the Pyomo model: HiGHS is given the same
    arrays (:mod:`psab.solvers.array_lp`), so the optimum is the same to the last bit. A case
    the arrays might not reproduce (a bound that is not a finite number, a ``p`` in no row)
    goes through the Pyomo model as before."""
    lp = voltage_support_lp(ids, rows, price_p, price_q, p_max, q_max)
    if not lp.finite_bounds() or not lp.in_rows("p", ids):
        return solve_voltage_support(ids, rows, price_p, price_q, p_max, q_max)
    form = lp.form()
    from psab.solvers.core import run_form

    x, result = run_form(form)
    values = x.tolist()

    def value(name: str, e: str) -> float:
        return float(values[lp.position[lp.key(name, e)]])

    return {e: value("p", e) for e in ids}, {e: value("q", e) for e in ids}, result.objective
