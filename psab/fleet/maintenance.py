"""Maintenance feedback: completed work orders that change the physics afterwards.

The maintenance process (:func:`psab.fleet.documents.work_orders`) opens a work order after an
alarm and completes it some hours later. Here a completed order of certain rules changes the
device's series from its completion hour on, the way the work would in the field:

- transformer oil treatment (degassing, drying, reclamation; IEC 60422:2013 §9 and Table 5
  limits): dissolved gases fall to a tenth, water to at most 8 ppm, breakdown voltage back to
  75 kV, acidity and dissipation factor back to new-oil values;
- breaker overhaul (contact replacement): the cumulative interrupted I² and the contact wear
  restart from zero and the opening time returns to nominal; mechanism-heater repair; SF6
  refill and leak sealing (IEC 62271-1 §5.17 leakage ≤ 0.5 %/year afterwards); SF6 drying;
  breaker oil replacement;
- disconnector contact cleaning: the contact temperature rise back to the healthy 35 K at rated
  current (IEC 62271-1 Table 14);
- arrester replacement: the resistive leakage of a new ZnO block (IEC 60099-5 monitoring);
- tap-changer diverter overhaul: the OLTC arcing-contact wear restarts from zero
  (IEC 60214-1 contact life);
- battery module replacement (capacity back to 100 %, IEEE 1188 / IEC 62485-2 end of life at
  80 %) and cell balancing; capacitor-unit replacement; PV insulation repair; auxiliary-supply
  repair of RTUs and relays.

(The breaker operation-count reset, the battery SOC-window fix and the transformer fan and pump repairs
are applied where their series are computed, in :mod:`psab.fleet.world`; their log text is
here.) A device's actions are found in time order by re-running the maintenance process on the
current series after each one; an action changes only hours at or after its completion and
every derived input is causal, so nothing before it moves and the documents, written from the
final series, describe the same orders.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Action:
    name: str
    triggers: frozenset[str]
    text: str
    apply: Callable[[dict[str, Any], int, int], None] | None = None


@dataclass(frozen=True)
class Applied:
    """One applied action: completion hour, action name, work order and rule."""

    hour: int
    action: str
    work_order: str
    rule: str


def _set(raw: dict[str, Any], name: str, c: int, values: np.ndarray) -> None:
    x = np.array(raw[name], dtype=float, copy=True)
    x[c:] = values
    raw[name] = x


def _shift_to(raw: dict[str, Any], name: str, c: int, value: float) -> None:
    """The series continues its own course from hour ``c``, moved so that it reads ``value`` there."""
    if name in raw:
        x = np.asarray(raw[name], dtype=float)
        _set(raw, name, c, x[c:] + (value - x[c]))


def _oil_treatment(raw: dict[str, Any], c: int, n: int) -> None:
    for g in ("h2_ppm", "co_ppm", "c2h2_ppm", "c2h4_ppm", "ch4_ppm", "c2h6_ppm", "co2_ppm"):
        _shift_to(raw, g, c, 0.1 * float(np.asarray(raw[g])[c]))
    _shift_to(raw, "oil_moisture_ppm", c, min(8.0, float(np.asarray(raw["oil_moisture_ppm"])[c])))
    _shift_to(raw, "oil_breakdown_kv", c, 75.0)
    _shift_to(raw, "oil_acidity_mgkoh_g", c, 0.03)
    _shift_to(raw, "oil_dissipation_factor", c, 0.01)


def _breaker_overhaul(raw: dict[str, Any], c: int, n: int) -> None:
    wear = float(np.asarray(raw["contact_wear_pct"])[c])
    _shift_to(raw, "interrupted_ka2_sum", c, 0.0)
    _shift_to(raw, "contact_wear_pct", c, 0.0)
    x = np.asarray(raw["opening_time_ms"], dtype=float)
    _set(raw, "opening_time_ms", c, x[c:] - 3.0 * wear / 100.0)
    x = np.asarray(raw["closing_time_ms"], dtype=float)
    _set(raw, "closing_time_ms", c, x[c:] - 2.0 * wear / 100.0)
    _shift_to(raw, "contact_erosion_mm", c, 0.0)  # vacuum: the interrupter is replaced with the contacts


def _heater_repair(raw: dict[str, Any], c: int, n: int) -> None:
    _set(raw, "mechanism_temp_c", c, np.asarray(raw["ambient_c"], dtype=float)[c:] + 8.0)


def _sf6_refill(raw: dict[str, Any], c: int, n: int) -> None:
    t = np.arange(c, n)
    dens = 1.0 - 0.005 / 8766.0 * (t - c) + 0.003 * np.sin(2 * np.pi * t / 24)
    _set(raw, "sf6_density_pu", c, dens)
    amb = np.asarray(raw["ambient_c"], dtype=float)
    _set(raw, "sf6_pressure_bar", c, 6.0 * dens * (amb[c:] + 273.15) / 293.15)


def _contact_cleaning(raw: dict[str, Any], c: int, n: int) -> None:
    amb = np.asarray(raw["ambient_c"], dtype=float)
    _set(raw, "contact_temp_c", c, amb[c:] + 35.0 * np.asarray(raw["_pu"])[c:] ** 2 + np.asarray(raw["_irr"])[c:] * 0.01)
    _set(raw, "contact_resistance_uohm", c, np.full(n - c, 40.0))


def _arrester_replacement(raw: dict[str, Any], c: int, n: int) -> None:
    old = np.asarray(raw["leakage_resistive_ma"], dtype=float)
    cap2 = np.asarray(raw["leakage_total_ma"], dtype=float) ** 2 - old ** 2
    res = 0.15 * np.exp(0.02 * (np.asarray(raw["ambient_c"], dtype=float)[c:] - 20.0))
    _set(raw, "leakage_resistive_ma", c, res)
    _set(raw, "third_harmonic_ma", c, 0.3 * res)
    _set(raw, "leakage_total_ma", c, np.sqrt(res ** 2 + np.clip(cap2[c:], 0, None)))


def internal_resistance_mohm(r0: float, soh: Any, cell_temp_c: Any) -> np.ndarray:
    """Battery DC resistance: ``r0`` at full health and 25 degC, +2.5 % per % of capacity lost,
    -2.5 %/K above 25 degC (practice)."""
    return r0 * (1.0 + 2.5 * (1.0 - np.asarray(soh, dtype=float))) * np.exp(0.025 * (25.0 - np.asarray(cell_temp_c, dtype=float)))


def _battery_replacement(raw: dict[str, Any], c: int, n: int) -> None:
    cyc = np.asarray(raw["equivalent_cycles"], dtype=float)
    _set(raw, "soh_pu", c, 1.0 - 5e-5 * (cyc[c:] - cyc[c]))
    if "internal_resistance_mohm" in raw:  # new modules: the resistance of the new capacity
        _set(raw, "internal_resistance_mohm", c, internal_resistance_mohm(
            float(raw["_ir0"]), np.asarray(raw["soh_pu"])[c:], np.asarray(raw["cell_temp_c"], dtype=float)[c:]))


def _cell_balancing(raw: dict[str, Any], c: int, n: int) -> None:
    _set(raw, "cell_voltage_spread_mv", c, 0.4 * np.asarray(raw["cell_voltage_spread_mv"], dtype=float)[c:])


def _capacitor_unit(raw: dict[str, Any], c: int, n: int) -> None:
    _set(raw, "unbalance_current_a", c, np.full(n - c, float(raw["_unb0"])))
    _set(raw, "neutral_voltage_v", c, np.full(n - c, 20.0 * float(raw["_unb0"])))
    _shift_to(raw, "capacitance_change_pct", c, 0.5)


def _pv_insulation(raw: dict[str, Any], c: int, n: int) -> None:
    x = np.asarray(raw["insulation_resistance_mohm"], dtype=float)
    _set(raw, "insulation_resistance_mohm", c, x[c:] * (20.0 / max(float(x[c]), 1e-3)))


def _supply(value: float) -> Callable[[dict[str, Any], int, int], None]:
    def fix(raw: dict[str, Any], c: int, n: int) -> None:
        x = np.asarray(raw["supply_voltage_v"], dtype=float)
        t = np.arange(c, n)
        _set(raw, "supply_voltage_v", c, value + (2.0 * np.sin(2 * np.pi * t / 24) if value > 50 else 0 * x[c:]))
    return fix


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


#: Actions by device class, first match wins (a rule triggers an action when its target metric
#: or one of its inputs is among the action's triggers).
ACTIONS: dict[str, tuple[Action, ...]] = {
    "transformer": (
        Action("oil_treatment", _f("h2_ppm", "co_ppm", "c2h2_ppm", "c2h4_ppm", "ch4_ppm", "c2h6_ppm", "co2_ppm",
                                   "oil_moisture_ppm", "oil_breakdown_kv", "oil_acidity_mgkoh_g", "oil_dissipation_factor"),
               "- Oil treated on site (degassing, drying, reclamation): dissolved gases reduced to a tenth, water "
               "to at most 8 ppm, breakdown voltage restored to 75 kV, acidity 0.03 mgKOH/g, DDF 0.01.", _oil_treatment),
        Action("cooling_repair", _f("fan_current_a"), "- Cooling fans repaired; ONAF cooling restored."),
        Action("load_review", _f("load_transferred_pu"), "- Overload reviewed with control; load transfer ended and "
               "normal switching state restored."),
        Action("pump_repair", _f("pump_flow_pu"), "- Transformer oil pump repaired; forced-oil cooling restored."),
        Action("oltc_contacts", _f("oltc_contact_wear_pct"),
               "- Tap-changer diverter overhauled: arcing contacts replaced, contact wear reset.",
               lambda raw, c, n: _shift_to(raw, "oltc_contact_wear_pct", c, 0.0)),
    ),
    "breaker": (
        Action("overhaul", _f("interrupted_ka2_sum", "contact_wear_pct", "opening_time_ms"),
               "- Breaker overhauled: arcing contacts replaced, I2 wear counter and contact wear reset, opening time "
               "back to nominal.", _breaker_overhaul),
        Action("heater_repair", _f("mechanism_temp_c"), "- Mechanism cabinet heater replaced.", _heater_repair),
        Action("sf6_refill", _f("sf6_density_pu"),
               "- SF6 leak sealed and gas refilled to rated density.", _sf6_refill),
        Action("sf6_drying", _f("sf6_moisture_ppmv"), "- SF6 gas dried (filter replaced); moisture 50 ppmv.",
               lambda raw, c, n: _shift_to(raw, "sf6_moisture_ppmv", c, 50.0)),
        Action("oil_replacement", _f("oil_breakdown_kv"), "- Breaker oil replaced; breakdown voltage 65 kV.",
               lambda raw, c, n: _shift_to(raw, "oil_breakdown_kv", c, 65.0)),
        Action("counter_reset", _f("operations_since_maint"), "- Mechanism serviced; operation counter reset."),
    ),
    "disconnector": (Action("contact_cleaning", _f("contact_temp_c"),
                            "- Contacts cleaned and re-greased; contact resistance back to nominal.", _contact_cleaning),),
    "arrester": (Action("replacement", _f("leakage_resistive_ma", "third_harmonic_ma"),
                        "- Arrester replaced (new ZnO unit).", _arrester_replacement),),
    "battery": (
        Action("module_replacement", _f("soh_pu"), "- Battery modules replaced; capacity restored to 100 %.",
               _battery_replacement),
        Action("cell_balancing", _f("cell_voltage_spread_mv"), "- Cells balanced; BMS recalibrated.", _cell_balancing),
        Action("soc_window", _f("soc_pu"), "- Battery controller SOC window reconfigured to 0.15-0.90."),
    ),
    "capacitor_bank": (Action("unit_replacement", _f("unbalance_current_a", "capacitance_change_pct"),
                              "- Failed capacitor unit replaced; bank rebalanced.", _capacitor_unit),),
    "pv_inverter": (Action("insulation_repair", _f("insulation_resistance_mohm"),
                           "- DC insulation fault located and repaired.", _pv_insulation),),
    "rtu": (Action("supply_repair", _f("supply_voltage_v"), "- 24 V supply unit replaced.", _supply(24.0)),),
    "relay": (Action("supply_repair", _f("supply_voltage_v"), "- Station battery charger repaired; 110 V DC restored.",
                     _supply(110.0)),),
}


def action_for(device_class: str, rule: Any) -> Action | None:
    names = {rule.target_metric, *rule.inputs}
    for a in ACTIONS.get(device_class, ()):
        if a.triggers & names:
            return a
    return None


def apply_feedback(device: Any, dtype: Any, raw: dict[str, Any], metrics: list[str],
                   hours: int) -> tuple[dict[str, np.ndarray], list[Applied]]:
    """The device's stored series after every maintenance action of the process (module
    docstring), and the actions in time order."""
    from psab.fleet.process import device_alarms, work_orders

    raw = dict(raw)

    def rounded() -> dict[str, np.ndarray]:
        return {m: np.round(np.asarray(raw[m], dtype=float) + np.zeros(hours), 4) for m in metrics}

    series = rounded()
    rules = [r for r in dtype.rules if r.severity == "alarm" and r.applies(device.config)]
    relevant = [r for r in rules if (a := action_for(device.device_class, r)) is not None and a.apply is not None]
    applied: list[Applied] = []
    if not relevant:
        return series, applied
    done: set[str] = set()
    last = -1
    for _ in range(500):
        wos = [w for w in work_orders(device.device_id, device_alarms(device.device_id, relevant, series), hours)
               if w.closed is not None and w.closed >= last and w.wo_id not in done]
        if not wos:
            break
        w = min(wos, key=lambda x: (x.closed, x.rule.key))
        act = action_for(device.device_class, w.rule)
        assert act is not None and act.apply is not None and w.closed is not None
        act.apply(raw, w.closed, hours)
        done.add(w.wo_id)
        last = w.closed
        applied.append(Applied(w.closed, act.name, w.wo_id, w.rule.key))
        series = rounded()
    return series, applied
