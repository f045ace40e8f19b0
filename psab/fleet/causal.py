"""The ``causal`` family (issue 36 item 1): questions whose answer needs two or more hops along
the world's dependency chain, with keys taken from the chain itself — the in-memory world
rebuilt from the seed (:func:`psab.fleet.world.build`), never a document.

Kinds, each one the chain makes (nothing was added to the chain for them):

- **cooling_step** — a forced-cooled transformer's top-oil rise over ambient steps down in a
  week: the cause is the completed work order of its fan- or pump-supervision alarm, whose
  completion is the hour the chain restored the cooling (``World.degraded_cooling`` /
  ``degraded_pumps``, IEC 60076-7 Table 5 cooling mode back to the nameplate one); a
  transformer's dissolved hydrogen steps down: the cause is the oil treatment the maintenance
  feedback applied (``World.maintenance_actions``, IEC 60422 §9). Hops: the effect in the
  series → the device's alarm → its work order → the maintenance log's action.
- **transfer_relief** — a feeder cable's or line's current and conductor temperature fall for
  some hours: the cause is the operator's load transfer of the transformer upstream
  (``World.operator_actions``; the transfer takes the same share off every feeder of the unit).
  Hops: the cable's ``fed_by`` chain of configuration sheets up to its feeder breaker and
  transformer → that transformer's switching log.
- **fault_crossing** — a named feeder fault (trip and reclose, two operations) takes the feeder
  breaker's operations-since-maintenance counter across its interval in that very hour, and
  without the fault's two operations the counter would not have crossed then; the work order the
  crossing raised resets the counter on completion (``World.maintenance_resets``). Hops: the fault
  → the feeder's breaker (configuration) → its alarm → the work order → the reset in the series.
  Rare by construction (a crossing coincides with a fault hour a few times in a full world).

Not built: a cable alarm *caused* by load received from a transfer. In this chain the operator
moves load to a neighbouring substation outside the modelled fleet, so no modelled feeder
receives it; adding a receiving feeder would change the level-1 world's bytes.

Distractors are near-misses the chain also made, recorded with the key (``distractors``): the
other work orders of the same device closed in the same week, a sibling transformer's
repair or transfer in the same week, another breaker's crossing in the same week.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.fleet.process import alarm_id, device_alarms, stable_hash, work_orders
from psab.fleet.rules import rule_events

ACTIONS = ("cooling_repair", "pump_repair", "oil_treatment", "load_transfer", "counter_reset")
SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["device_id", "document_id", "action", "time"],
    "properties": {"device_id": {"type": "string", "description": "the device the causing action was taken on"},
                   "document_id": {"type": "string", "description": "the work order or switching log that records it"},
                   "action": {"type": "string", "enum": list(ACTIONS)},
                   "time": {"type": "string", "description": "ISO 8601 UTC hour, e.g. 2024-07-03T14:00:00Z"}}}


def _rule(world: Any, dev: Any, metric: str) -> Any:
    return next((r for r in world.type_of(dev).rules if r.target_metric == metric and not r.applicability
                 and r.severity == "alarm"), None)


def _wo_closing(world: Any, dev: Any, metric: str, hour: int) -> Any:
    """The work order of the ``metric`` rule's alarms that the maintenance process closes at
    ``hour``, recomputed on the chain's series."""
    rule = _rule(world, dev, metric)
    if rule is None:
        return None
    wos = work_orders(dev.device_id, device_alarms(dev.device_id, [rule], world.telemetry[dev.device_id]), world.hours)
    return next((w for w in wos if w.closed == hour), None)


def facts(world: Any) -> list[dict[str, Any]]:
    """Every causal link the chain holds, as plain records (the questions' keys come from
    these): kind, effect device, cause device, cause document id, action, hour, and the hours
    the effect is seen over. ``world`` must hold the telemetry of its transformers and breakers."""
    by_id = {d.device_id: d for d in world.devices}
    out: list[dict[str, Any]] = []
    n = world.hours
    for tid, iv, metric, action, on in (
            [(t, iv, "fan_current_ratio_a", "cooling_repair", "fans_on") for t, iv in sorted(world.degraded_cooling.items())]
            + [(t, iv, "pump_flow_ratio_pu", "pump_repair", "pumps_on") for t, iv in sorted(world.degraded_pumps.items())]):
        if iv[1] >= n or tid not in world.telemetry:
            continue
        c = iv[1]
        ran = np.flatnonzero(world.telemetry[tid][on][c:min(n, c + 96)])
        if not ran.size:
            continue  # the cooling stage did not run within four days of the repair: no step to see
        wo = _wo_closing(world, by_id[tid], metric, c)
        if wo is not None:
            out.append({"kind": "cooling_step", "effect": tid, "cause": tid, "document": wo.wo_id, "action": action,
                        "hour": c, "seen": (max(0, c - 72), min(n, c + int(ran[0]) + 24)),
                        "metrics": ["top_oil_c", "ambient_c", "load_pu", on, "fan_current_a" if on == "fans_on" else "pump_flow_pu"]})
    for tid in sorted(world.maintenance_actions):
        for a in world.maintenance_actions[tid]:
            if a.action == "oil_treatment" and by_id[tid].device_class == "transformer":
                out.append({"kind": "cooling_step", "effect": tid, "cause": tid, "document": a.work_order,
                            "action": "oil_treatment", "hour": a.hour, "seen": (max(0, a.hour - 72), min(n, a.hour + 72)),
                            "metrics": ["h2_ppm", "c2h4_ppm", "oil_moisture_ppm"]})
    lines = [d for d in world.devices if d.device_class in ("cable", "line") and d.transformer]
    for tid in sorted(world.operator_actions):
        for op in world.operator_actions[tid]:
            if op.transferred_mwh <= 0:
                continue
            sw = f"SW-{stable_hash('sw', tid, op.act) % 10**8:08d}"
            for x in lines:
                if x.transformer == tid:
                    out.append({"kind": "transfer_relief", "effect": x.device_id, "cause": tid, "document": sw,
                                "action": "load_transfer", "hour": op.first, "seen": (max(0, op.first - 24), min(n, op.last + 25)),
                                "metrics": ["current_a", "conductor_temp_c"]})
    crossings: list[tuple[Any, Any, Any, Any]] = []  # breaker, rule, event, its work orders
    for d in world.devices:
        if d.device_class != "breaker" or not d.feeder or d.device_id not in world.telemetry:
            continue
        rule = _rule(world, d, "operations_since_maint")
        if rule is None:
            continue
        s = world.telemetry[d.device_id]
        wos = work_orders(d.device_id, device_alarms(d.device_id, [rule], s), n)
        crossings += [(d, rule, e, wos) for e in rule_events(rule, s)]
    faults: dict[str, set[int]] = {}
    for d, rule, e, wos in crossings:
        s = world.telemetry[d.device_id]
        before = float(s["operations_since_maint"][e.fire]) - 2.0  # without the trip and reclose
        if e.fire not in faults.setdefault(d.feeder, set(world_faults(world, d.feeder))) or e.fire != e.start or \
                rule_events(rule, {"operations_since_maint": np.array([before])}):
            continue
        aid = alarm_id(d.device_id, rule.key, e.fire)
        wo = next((w for w in wos if w.closed is not None and aid in w.alarms), None)
        if wo is None or wo.closed not in world.maintenance_resets.get(d.device_id, []):
            continue
        near = [alarm_id(o.device_id, r2.key, e2.fire) for o, r2, e2, _ in crossings
                if o.device_id != d.device_id and abs(e2.fire - e.fire) <= 7 * 24]
        out.append({"kind": "fault_crossing", "effect": d.feeder, "cause": d.device_id, "document": wo.wo_id,
                    "action": "counter_reset", "hour": wo.closed, "fault": e.fire, "alarm": aid, "near": near,
                    "seen": (max(0, e.fire - 24), min(n, wo.closed + 2)),
                    "metrics": ["operations_since_maint", "trips_24h"]})
    return out


def world_faults(world: Any, feeder: str) -> list[int]:
    """The hours of a feeder's faults (stage 4 of the chain; :func:`chain` attaches them)."""
    return world.faults[feeder].tolist()


def chain(seed: str | int, size_name: str) -> Any:
    """The in-memory world with the telemetry of its transformers and breakers (the devices
    the causal facts read), from the seed."""
    from psab.fleet import world as world_mod

    ctx = world_mod.context(seed, size_name)
    w = world_mod.build(seed, size_name, [i for i, d in enumerate(ctx.devices) if d.device_class in ("transformer", "breaker")])
    w.faults = ctx.faults  # type: ignore[attr-defined]
    return w


def _fed_chain(world: Any, dev_id: str) -> list[str]:
    by_id = {d.device_id: d for d in world.devices}
    out = [dev_id]
    while True:
        up = by_id[out[-1]].config.get("fed_by")
        if not up or up not in by_id:
            return out
        out.append(up)
        if by_id[up].device_class == "transformer":
            return out


def questions(sw: Any, world: Any, rng: np.random.Generator, per_family: int) -> tuple[list[dict], list[dict]]:
    """Up to ``per_family`` causal questions of the stored world ``sw``
    (:class:`psab.fleet.questions.StoredWorld`) whose chain is ``world``; the kinds in turn."""
    from psab.fleet.qshared import _doc_ev, _series_ev

    fs = facts(world)
    level2 = sw.level == 2
    by_id = {d.device_id: d for d in world.devices}
    renamed = {c.get("renamed_from") for c in sw.configs.values() if c.get("renamed_from")}
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for f in fs:
        touched = {f["effect"], f["cause"], *_fed_chain(world, f["effect"])} if f["kind"] != "fault_crossing" \
            else {f["cause"]}
        if level2 and touched & renamed:
            continue  # ids changed at level 2: left to the contextual family
        if f["document"] not in sw.path_of:
            continue
        by_kind.setdefault(f["kind"], []).append(f)
    kinds = sorted(by_kind)
    qs: list[dict] = []
    keys: list[dict] = []
    used: set[tuple[str, str]] = set()
    tries = 0
    while kinds and len(qs) < per_family and tries < per_family * 20:
        tries += 1
        kind = kinds[tries % len(kinds)]
        f = by_kind[kind][int(rng.integers(len(by_kind[kind])))]
        if (f["effect"], f["document"]) in used:
            continue
        used.add((f["effect"], f["document"]))
        qid = f"CAUS-{len(qs) + 1:03d}"
        h = f["hour"]
        doc = f["document"]
        if level2:
            from psab.fleet.quality import superseding

            # the order that closes the alarm is the superseding one, if the original was superseded
            for w in work_orders(f["cause"], device_alarms(f["cause"], sw.rules(f["cause"]), sw.series(f["cause"])), sw.hours) \
                    if kind != "transfer_relief" else []:
                if w.wo_id == doc:
                    sup = superseding(w.wo_id, w.opened, w.closed, w.cause, w.rule.target_metric)
                    doc = sup[0] if sup else doc
        tail = ("Give the device the causing action was taken on (device_id), the document that records it "
                "(document_id: a work order or switching log id), the action (one of " + ", ".join(ACTIONS) +
                ") and the time (an ISO hour).")
        tail_ru = ("Укажите устройство, на котором выполнено вызвавшее действие (device_id), документ, в котором оно "
                   "записано (document_id: номер наряда или журнала переключений), действие (одно из " + ", ".join(ACTIONS) +
                   ") и время (час ISO).")
        if kind == "cooling_step":
            # a week holding the repair and the first hours the restored stage ran
            w0 = max(0, min(h // 24 - int(rng.integers(0, 3)), (f["seen"][1] - 1) // 24 - 6) * 24)
            w1 = min(sw.hours, w0 + 7 * 24)
            effect = ("top-oil rise over ambient (top_oil_c - ambient_c at comparable load)" if f["action"] != "oil_treatment"
                      else "dissolved hydrogen (h2_ppm)")
            effect_ru = ("превышение температуры верхних слоёв масла над окружающей (top_oil_c - ambient_c при сравнимой "
                         "нагрузке)" if f["action"] != "oil_treatment" else "содержание растворённого водорода (h2_ppm)")
            en = (f"Between {sw.ts(w0)} and {sw.ts(w1)} (end excluded) the {effect} of transformer {f['effect']} fell "
                  f"step-wise. Which completed maintenance action explains the step? {tail} The time is when the work "
                  f"order was completed.")
            ru = (f"В интервале с {sw.ts(w0)} по {sw.ts(w1)} (конец не включается) {effect_ru} трансформатора "
                  f"{f['effect']} ступенчато снизилось. Какое выполненное действие по обслуживанию это объясняет? "
                  f"{tail_ru} Время — момент закрытия наряда.")
            window = [sw.ts(w0), sw.ts(w1)]
            ml = [m["path"] for m in sw.by_device.get(f["cause"], []) if m["kind"] == "maintenance_log" and doc in m["refs"]]
            required = [_doc_ev(sw.path_of[doc])] + [_doc_ev(p) for p in ml] + [
                _series_ev(f["effect"], sw.ts(f["seen"][0]), sw.ts(f["seen"][1]), f["metrics"])]
            near = [m["doc_id"] for d in sorted(sw.configs) if sw.configs[d]["device_class"] == "transformer"
                    and sw.configs[d]["config"]["substation_id"] == sw.configs[f["effect"]]["config"]["substation_id"]
                    for m in sw.by_device.get(d, []) if m["kind"] == "maintenance_log" and m["time"]
                    and w0 <= _h(sw, m["time"]) < w1 and doc not in m["refs"]]
        elif kind == "transfer_relief":
            x = f["effect"]
            w0, w1 = f["seen"]
            en = (f"From {sw.ts(h)} the current and the conductor temperature of {by_id[x].device_class} {x} fell for a "
                  f"few hours, then recovered. Which upstream action caused it? {tail} The time is the first hour the "
                  f"action took effect.")
            ru = (f"Начиная с {sw.ts(h)} ток и температура жилы/провода устройства {x} ({by_id[x].device_class}) "
                  f"снизились на несколько часов, затем восстановились. Какое действие выше по сети это вызвало? "
                  f"{tail_ru} Время — первый час, с которого действие вступило в силу.")
            window = [sw.ts(w0), sw.ts(w1)]
            required = [_doc_ev(sw.path_of[d]) for d in _fed_chain(world, x)] + [_doc_ev(sw.path_of[doc]),
                        _series_ev(x, sw.ts(w0), sw.ts(w1), f["metrics"])]
            sub = by_id[f["cause"]].config["substation_id"]
            near = [m["doc_id"] for m in sw.manifest if m["kind"] == "switching_log" and m["doc_id"] != doc
                    and m["time"] and abs(_h(sw, m["time"]) - h) <= 48
                    and sw.configs[m["device_ids"][0]]["config"]["substation_id"] == sub]
        else:
            fault = f["fault"]
            w0, w1 = f["seen"]
            en = (f"Feeder {f['effect']} had a fault at {sw.ts(fault)} (its protection tripped and the breaker reclosed). "
                  f"Which breaker's operation count crossed its maintenance interval because of that fault, and what "
                  f"restored it? {tail} The time is when the counter was reset.")
            ru = (f"На фидере {f['effect']} в {sw.ts(fault)} произошло КЗ (защита отключила, выключатель выполнил АПВ). "
                  f"Счётчик операций какого выключателя из-за этого превысил межсервисный интервал и что его "
                  f"восстановило? {tail_ru} Время — момент сброса счётчика.")
            window = [sw.ts(w0), sw.ts(w1)]
            b = f["cause"]
            required = [_doc_ev(sw.path_of[b]), _doc_ev(sw.path_of[f["alarm"]]), _doc_ev(sw.path_of[doc]),
                        _series_ev(b, sw.ts(w0), sw.ts(w1), f["metrics"])]
            near = f["near"]
        answer = {"device_id": f["cause"], "document_id": doc, "action": f["action"], "time": sw.ts(h)}
        q = {"question_id": qid, "family": "causal", "kind": kind, "text_en": en, "text_ru": ru,
             "targets": [f["effect"]], "window": window, "answer_schema": SCHEMA}
        available = required + [_doc_ev(sw.path_of[d]) for d in near if d in sw.path_of]
        key = {"question_id": qid, "family": "causal", "kind": kind, "answer": answer, "required_evidence": required,
               "available_evidence": available, "distractors": near}
        if level2:  # the defect classes on the chain's path (psab.fleet.defect_questions' convention)
            key["level"], key["defects"] = 2, (["superseded_work_order"] if doc != f["document"] else [])
        keys.append(key)
        qs.append(q)
    return qs, keys


def _h(sw: Any, t: str) -> int:
    from datetime import UTC, datetime

    return int((datetime.strptime(t, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) - sw.start).total_seconds() // 3600)
