"""Documents generated from rule firings and the maintenance process.

Kinds (Markdown or JSON, as in PowerBench's corpus):

- ``type`` sheets (JSON): a device type's metrics, configuration fields and rules;
- ``config`` sheets (JSON): one device's configuration and place in the hierarchy;
- ``alarm`` summaries (JSON): one per firing event of an alarm-severity rule;
- ``work_order`` (Markdown): opened by an alarm, closing it (and any later alarm of the same
  device and rule raised while it is open), with a recorded cause;
- ``maintenance_log`` (Markdown): the completion of a work order;
- ``inspection`` reports (Markdown): periodic, with readings taken from the telemetry and the
  alarms and open work orders since the previous inspection.

Everything here is a pure function of the world: the maintenance process
(:func:`work_orders`) is also called by the question generator to compute keys, from events it
recomputes itself on the stored telemetry.
"""

from __future__ import annotations

import json
from typing import Any

from psab.fleet.maintenance import action_for
from psab.fleet.process import (  # noqa: F401 - re-exported: the process is part of this module's API
    CAUSES,
    DEFAULT_CAUSES,
    Alarm,
    WorkOrder,
    alarm_id,
    device_alarms,
    maintenance_delay_h,
    stable_hash,
    work_orders,
)
from psab.fleet.world import Device, World


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def type_documents(world: World) -> list[tuple[str, str, dict[str, Any]]]:
    return [(f"types/{t.type_id}.json", _dump(t.as_json()),
             {"kind": "type", "doc_id": t.type_id, "device_ids": [], "time": None, "refs": []}) for t in world.types]


def config_document(world: World, d: Device) -> tuple[str, str, dict[str, Any]]:
    t = world.type_of(d)
    ids = world.device_ids()
    sheet = {"device_id": d.device_id, "type_id": d.type_id, "device_class": d.device_class,
             "config": d.config, "metrics": [{"name": m.name, "unit": m.unit} for m in t.metrics],
             "applicable_rules": [r.rule_id for r in t.rules if r.applies(d.config)],
             "feeds": world.feeds().get(d.device_id, [])}
    return (f"config/{d.device_id}.json", _dump(sheet),
            {"kind": "config", "doc_id": d.device_id, "device_ids": [d.device_id], "time": None,
             "refs": [d.type_id] + ([d.config["fed_by"]] if d.config.get("fed_by") in ids else [])})


def device_documents(world: World, d: Device) -> list[tuple[str, str, dict[str, Any]]]:
    """The operational documents of one device (alarms, work orders, maintenance logs,
    switching logs of the operator's load transfers, inspections), in a fixed order."""
    docs: list[tuple[str, str, dict[str, Any]]] = []
    t = world.type_of(d)
    series = world.telemetry[d.device_id]
    rules = [r for r in t.rules if r.applies(d.config)]
    alarms = device_alarms(d.device_id, rules, series)
    wos = work_orders(d.device_id, alarms, world.hours)
    wo_of = {a: wo.wo_id for wo in wos for a in wo.alarms}
    for a in alarms:
        ev = a.event
        body = {"alarm_id": a.alarm_id, "device_id": d.device_id, "rule": a.rule.key, "metric": a.rule.target_metric,
                "condition": f"{a.rule.target_metric} {a.rule.op} {a.rule.threshold}",
                "consecutive_points": a.rule.consecutive_points, "raised_at": world.ts(ev.fire),
                "condition_since": world.ts(ev.start),
                "cleared_at": world.ts(ev.end + 1) if ev.end + 1 < world.hours else None,
                "peak_value": ev.peak, "work_order": wo_of[a.alarm_id], "severity": a.rule.severity}
        if a.rule.derive:
            body["derived_from"] = {"kind": a.rule.derive, "inputs": list(a.rule.inputs), "window_h": a.rule.window_h}
        docs.append((f"alarms/{a.alarm_id}.json", _dump(body),
                     {"kind": "alarm", "doc_id": a.alarm_id, "device_ids": [d.device_id], "time": world.ts(ev.fire),
                      "refs": [wo_of[a.alarm_id], a.rule.key]}))
    for wo in wos:
        lines = [f"# Work order {wo.wo_id}", "", f"- Device: {d.device_id} ({d.type_id})",
                 f"- Substation: {d.config['substation_id']}", f"- Opened: {world.ts(wo.opened)}",
                 f"- Status: {'closed' if wo.closed is not None else 'open'}",
                 f"- Closed: {world.ts(wo.closed) if wo.closed is not None else '-'}",
                 f"- Trigger rule: {wo.rule.key} ({wo.rule.target_metric} {wo.rule.op} {wo.rule.threshold})",
                 f"- Alarms closed by this order: {', '.join(wo.alarms)}", "", "## Recorded cause", "", wo.cause, ""]
        docs.append((f"work_orders/{wo.wo_id}.md", "\n".join(lines),
                     {"kind": "work_order", "doc_id": wo.wo_id, "device_ids": [d.device_id],
                      "time": world.ts(wo.opened), "refs": list(wo.alarms)}))
        if wo.closed is not None:
            ml = f"ML-{stable_hash('ml', wo.wo_id) % 10**8:08d}"
            act = action_for(d.device_class, wo.rule)
            lines = [f"# Maintenance log {ml}", "", f"Work order: {wo.wo_id}", f"Device: {d.device_id}",
                     f"Completed: {world.ts(wo.closed)}", "", "## Actions", "",
                     f"- Investigated {wo.rule.target_metric}: {wo.cause}.",
                     act.text if act is not None else "- Corrective action taken; device returned to service.", ""]
            docs.append((f"maintenance_logs/{ml}.md", "\n".join(lines),
                         {"kind": "maintenance_log", "doc_id": ml, "device_ids": [d.device_id],
                          "time": world.ts(wo.closed), "refs": [wo.wo_id]}))
    for op in world.operator_actions.get(d.device_id, []):
        sw = f"SW-{stable_hash('sw', d.device_id, op.act) % 10**8:08d}"
        feeders = sorted({x.feeder for x in world.devices if x.transformer == d.device_id and x.feeder})
        lines = [f"# Switching log {sw}", "", f"- Transformer: {d.device_id} ({d.type_id}) at {d.config['substation_id']}",
                 f"- Hot-spot {op.hot_spot_c:.1f} degC at {world.ts(op.act)} (operator action level 130 degC; "
                 "IEC 60076-7 Table 4 limits 120/140 degC)",
                 f"- Load transferred to the neighbouring substation from {world.ts(op.first)} to {world.ts(op.last + 1)} "
                 f"(load limited to rated; {op.transferred_mwh:.3f} MWh moved)",
                 f"- Feeders affected: {', '.join(feeders)}", ""]
        docs.append((f"switching/{sw}.md", "\n".join(lines),
                     {"kind": "switching_log", "doc_id": sw, "device_ids": [d.device_id], "time": world.ts(op.act),
                      "refs": []}))
    period = world.size.inspection_days * 24
    offset = 8 + stable_hash("insp", d.device_id) % 8
    prev = 0
    for h in range(offset + period, world.hours, period):
        ins = f"INS-{stable_hash('ins', d.device_id, h) % 10**8:08d}"
        recent = [a.alarm_id for a in alarms if prev <= a.event.fire < h]
        open_wos = [w.wo_id for w in wos if w.opened <= h and (w.closed is None or w.closed > h)]
        metrics = [m.name for m in t.metrics][:5]
        lines = [f"# Inspection report {ins}", "", f"Device: {d.device_id} ({d.type_id}) at {d.config['substation_id']}",
                 f"Date: {world.ts(h)}", "", "## Readings", "", "| metric | value |", "|---|---|"]
        lines += [f"| {m} | {series[m][h]:.4f} |" for m in metrics]
        lines += ["", "## Findings", "",
                  (f"Alarms since the previous inspection: {', '.join(recent)}." if recent else "No alarms since the previous inspection."),
                  (f"Open work orders: {', '.join(open_wos)}." if open_wos else "No open work orders."), ""]
        docs.append((f"inspections/{ins}.md", "\n".join(lines),
                     {"kind": "inspection", "doc_id": ins, "device_ids": [d.device_id], "time": world.ts(h),
                      "refs": recent + open_wos}))
        prev = h
    return docs


def generate(world: World) -> list[tuple[str, str, dict[str, Any]]]:
    """All documents: (relative path, text, manifest row), in a fixed order."""
    docs = type_documents(world)
    docs += [config_document(world, d) for d in world.devices]
    for d in world.devices:
        docs += device_documents(world, d)
    return docs
