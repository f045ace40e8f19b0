"""The maintenance process: alarms from rule firings and the work orders they open.

The single definition shared by the world (maintenance feedback changes the series from a
work order's completion, :mod:`psab.fleet.maintenance`), the documents (alarm summaries, work
orders, maintenance logs, :mod:`psab.fleet.documents`) and the question generator (keys),
so none of them can disagree about when an order was opened, closed, or what it records. It
depends only on the rules, so every stage can import it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from psab.fleet.catalog import Rule
from psab.fleet.rules import Event, rule_events


def stable_hash(*parts: Any) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


def maintenance_delay_h(device_id: str, rule_key: str, fire_hour: int) -> tuple[int, int]:
    """Hours from a firing to its work order being opened, and from opening to completion (the
    maintenance process; a deterministic hash so that every stage agrees)."""
    h = stable_hash(device_id, rule_key, fire_hour)
    return 1 + h % 12, 24 + (h >> 8) % 144


#: Recorded causes by target metric; a work order's cause is a stable pick among them.
CAUSES: dict[str, tuple[str, ...]] = {
    "hot_spot_c": ("overload during high ambient", "cooling fan failure", "blocked radiator"),
    "top_oil_c": ("overload during high ambient", "cooling fan failure", "low oil level"),
    "load_pu": ("feeder transfer after outage", "seasonal peak demand"),
    "ageing_rate_pu": ("sustained overload", "cooling degradation"),
    "h2_ppm": ("partial discharge in winding", "stray gassing of oil"),
    "co_ppm": ("paper insulation overheating", "ageing of cellulose"),
    "c2h2_ppm": ("low-energy arcing in tap changer", "sparking at loose connection"),
    "c2h4_ppm": ("thermal fault above 300 degC", "hot joint in lead"),
    "oil_moisture_ppm": ("breather desiccant exhausted", "gasket leak"),
    "operations_since_maint": ("operation-count service interval reached",),
    "trips_24h": ("storm-related feeder faults", "vegetation contact"),
    "interrupted_ka2_sum": ("contact wear from fault interruptions",),
    "sf6_density_pu": ("SF6 leak at flange seal", "density monitor drift"),
    "mechanism_temp_c": ("heater failure in mechanism cabinet",),
    "fan_current_ratio_a": ("cooling fan motor failure", "fan supply contactor failure"),
    "load_transferred_pu": ("overload: load transferred by the operator",),
    "soh_pu": ("capacity fade at end of life",),
    "contact_wear_pct": ("contact wear from fault interruptions",),
    "sf6_density_change_720h_pu": ("SF6 leak at flange seal",),
    "leakage_resistive_ma": ("ageing of ZnO blocks", "moisture ingress"),
    "oil_breakdown_kv": ("moisture and particles in oil",),
    "oil_acidity_mgkoh_g": ("oil oxidation",),
    "unbalance_current_a": ("capacitor element failure",),
    "supply_voltage_v": ("supply unit failure",),
    "pump_flow_ratio_pu": ("oil pump motor failure", "pump supply contactor failure"),
    "oltc_contact_wear_pct": ("tap-changer arcing-contact wear",),
    "bushing_tan_delta_pct": ("moisture ingress in bushing insulation", "bushing insulation ageing"),
    "sheath_voltage_v": ("high load on a single-point bonded section",),
    "differential_current_pu": ("tap-changer position far from CT matching at high load",),
}
DEFAULT_CAUSES = ("component degradation", "environmental stress", "sensor drift")


@dataclass(frozen=True)
class Alarm:
    alarm_id: str
    device_id: str
    rule: Rule
    event: Event


@dataclass
class WorkOrder:
    wo_id: str
    device_id: str
    rule: Rule
    opened: int
    closed: int | None
    cause: str
    alarms: list[str] = field(default_factory=list)


def alarm_id(device_id: str, rule_key: str, fire: int) -> str:
    return f"ALM-{stable_hash('alarm', device_id, rule_key, fire) % 10**8:08d}"


def device_alarms(device_id: str, rules: list[Rule], series: dict[str, Any]) -> list[Alarm]:
    """Every alarm-severity firing of the rules applicable to one device, by fire time."""
    out = []
    for r in rules:
        if r.severity != "alarm":
            continue
        for ev in rule_events(r, series):
            out.append(Alarm(alarm_id(device_id, r.key, ev.fire), device_id, r, ev))
    out.sort(key=lambda a: (a.event.fire, a.rule.key))
    return out


def work_orders(device_id: str, alarms: list[Alarm], hours: int) -> list[WorkOrder]:
    """The maintenance process: an alarm opens a work order ``o`` hours after it fires, which is
    completed ``c`` hours after opening (:func:`maintenance_delay_h`); an alarm of the same rule
    raised while a work order is open joins that order. Orders not completed by the end of the
    world stay open (``closed`` is None)."""
    open_by_rule: dict[str, WorkOrder] = {}
    out: list[WorkOrder] = []
    for a in alarms:
        k = a.rule.key
        wo = open_by_rule.get(k)
        if wo is not None and (wo.closed is None or wo.closed > a.event.fire):
            wo.alarms.append(a.alarm_id)
            continue
        o, c = maintenance_delay_h(device_id, k, a.event.fire)
        opened = a.event.fire + o
        closed = opened + c if opened + c < hours else None
        causes = CAUSES.get(a.rule.target_metric, DEFAULT_CAUSES)
        cause = causes[stable_hash("cause", device_id, k, a.event.fire) % len(causes)]
        wo = WorkOrder(f"WO-{stable_hash('wo', device_id, k, a.event.fire) % 10**8:08d}", device_id, a.rule, opened,
                       closed, cause, [a.alarm_id])
        open_by_rule[k] = wo
        out.append(wo)
    return out


