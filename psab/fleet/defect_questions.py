"""The three PowerBench families at level 2 (issue 36 item 2): questions drawn where the record
departs from a clean table, keys computed on the record recovered by the data-quality
treatment (:data:`psab.fleet.quality.TREATMENT`), never from a document.

Each key names the defect classes inside its required evidence (``defects``, kept with the key,
apart from the question), so a run can report how each class moves an agent. Questions are
drawn class by class in turn (a class first, then one of its candidates), so every class that
the world holds gets asked about.

- **temporal** — as at level 1, on a (device, rule, window) whose evidence span holds a defect
  of the rule's inputs (gap, stuck, spike, replay, meter change) or the asset's rename;
- **contextual** — the first alarm in a window whose work order was superseded (the answer is
  the superseding order, its cause, its closing time) or which was raised under the asset's
  old id;
- **comparative** — as at level 1 with at least one device whose record holds a defect of the
  metric in the period; the statistic over usable values only.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from psab.fleet import quality
from psab.fleet.documents import alarm_id, device_alarms, work_orders
from psab.fleet.qshared import (
    COMPARATIVE,
    MAX_TEMPORAL_BREACH_H,
    SCHEMAS,
    _doc_ev,
    _series_ev,
    _window,
)
from psab.fleet.rules import rule_events

StoredWorld = Any  # psab.fleet.questions.StoredWorld (not imported: questions dispatches here)


def _series_items(w: StoredWorld, dev: str, a: int, b: int, metrics: list[str]) -> list[dict[str, Any]]:
    """Series evidence for an asset's hours [a, b): split at a rename between the old and the new
    id, with the quality columns of the metrics where the partition has them."""
    cfg = w.configs[dev]
    r = quality._hour(cfg.get("renamed_at"), w.start) if cfg.get("renamed_from") else None
    parts = [(cfg["renamed_from"], a, min(b, r)), (dev, max(a, r), b)] if r is not None else [(dev, a, b)]
    out = []
    for d, s, e in parts:
        if e <= s:
            continue
        qc = [m + quality.QUALITY_SUFFIX for m in metrics
              if m + quality.QUALITY_SUFFIX in (w.configs[dev].get("data_quality") or {}).get("quality_columns", [])]
        out.append(_series_ev(d, w.ts(s), w.ts(e), list(metrics) + qc))
    return out


def _stat2(x: np.ndarray, stat: str) -> float | None:
    u = x[~np.isnan(x)]
    if u.size == 0:
        return None
    if stat == "increase":
        return float(u[-1] - u[0])
    return float(u.max()) if stat == "max" else float(u.mean())


class _Level2:
    def __init__(self, w: StoredWorld, rng: np.random.Generator) -> None:
        self.w, self.rng = w, rng
        self.assets = sorted(d for d, c in w.configs.items() if not c.get("renamed_to"))
        self.dh = {d: quality.defect_hours(w.root, d, w.configs[d], w.hours, w.start) for d in self.assets}

    def relevant(self, dev: str, metrics: list[str]) -> dict[str, np.ndarray]:
        """Hour masks of each defect class on ``metrics`` of an asset."""
        dh, n = self.dh[dev], self.w.hours
        out = {"gap": dh["missing"], "duplicate": dh["replayed"]}
        for cls, code in (("stuck", quality.STUCK), ("spike", quality.SPIKE)):
            m = np.zeros(n, dtype=bool)
            for x in metrics:
                if x in dh["flags"]:
                    m |= dh["flags"][x] == code
            out[cls] = m
        m = np.zeros(n, dtype=bool)
        for x, f in dh["meter"]:
            if x in metrics and f is not None:
                m[f:] = True
        out["meter_change"] = m
        m = np.zeros(n, dtype=bool)
        if dh["rename"] is not None:
            m[:dh["rename"]] = True
        out["rename"] = m
        return {k: v for k, v in out.items() if v.any()}

    # ------------------------------------------------------------------ temporal

    def temporal_pool(self) -> dict[str, list[tuple[str, Any, int]]]:
        pool: dict[str, list[tuple[str, Any, int]]] = {}
        for dev in self.assets:
            s = self.w.series(dev)
            for rule in self.w.rules(dev):
                rel = self.relevant(dev, list(rule.inputs))
                if not rel:
                    continue
                for e in rule_events(rule, s):
                    lo, hi = max(0, e.start - 48 - rule.window_h), min(self.w.hours, e.end + 49)
                    for cls, mask in rel.items():
                        if mask[lo:hi].any():
                            pool.setdefault(cls, []).append((dev, rule, e.fire))
        return pool

    def temporal(self, cls: str, cand: tuple[str, Any, int], qid: str) -> tuple[dict, dict] | None:
        w = self.w
        dev, rule, fire = cand
        evs = rule_events(rule, w.series(dev))
        a, b = _window(self.rng, w.hours, fire, (3, 10))
        inside = [e for e in evs if a <= e.fire < b]
        if not inside or inside[0].length > MAX_TEMPORAL_BREACH_H:
            return None
        first = inside[0]
        lo, hi = max(0, min(a, first.start) - rule.window_h), max(b, first.end + 1)
        classes = quality.classes_in(self.dh[dev], lo, hi, list(rule.inputs))
        if cls not in classes:
            return None
        cfg = w.configs[dev]
        en = (f"Between {w.ts(a)} and {w.ts(b)} (end excluded), when did rule {rule.rule_id} of device {dev} "
              f"({cfg['type_id']}) first fire, how many hours did that breach last (the whole run of consecutive hours "
              f"satisfying the rule's condition, even past the window), and how many times did the rule fire in the window? "
              f"A firing is the hour at which the rule's consecutive-point count is first reached. Treat the telemetry "
              f"as the type sheet's data_quality section says.")
        ru = (f"В интервале с {w.ts(a)} по {w.ts(b)} (конец не включается): когда впервые сработало правило {rule.rule_id} "
              f"устройства {dev} ({cfg['type_id']}), сколько часов длилось это нарушение (вся серия подряд идущих часов, "
              f"удовлетворяющих условию правила, даже за пределами интервала) и сколько раз правило сработало в интервале? "
              f"Срабатывание — час, в который впервые набрано требуемое число последовательных точек. Обрабатывайте "
              f"телеметрию так, как сказано в разделе data_quality паспорта типа.")
        answer = {"first_fire_time": w.ts(first.fire), "breach_duration_h": first.length, "fire_count": len(inside)}
        required = [_doc_ev(w.path_of[cfg["type_id"]]), _doc_ev(w.path_of[dev])] + _series_items(
            w, dev, max(0, max(a, first.start) - rule.window_h), first.end + 1, list(rule.inputs))
        available = required + _series_items(w, dev, a, b, list(rule.inputs))
        if rule.severity == "alarm":
            org = w.origin(dev)
            available += [_doc_ev(w.path_of[alarm_id(org, rule.key, e.fire)]) for e in inside]
        q = {"question_id": qid, "family": "temporal", "text_en": en, "text_ru": ru, "targets": [dev],
             "window": [w.ts(a), w.ts(b)], "rule": rule.key, "level": 2, "answer_schema": SCHEMAS["temporal"]}
        return q, {"question_id": qid, "family": "temporal", "answer": answer, "required_evidence": required,
                   "available_evidence": available, "level": 2, "defects": classes}

    # ------------------------------------------------------------------ contextual

    def contextual_pool(self) -> dict[str, list[tuple[str, Any, int]]]:
        pool: dict[str, list[tuple[str, Any, int]]] = {}
        for dev in self.assets:
            org = self.w.origin(dev)
            rules = self.w.rules(dev)
            alarms = device_alarms(org, rules, self.w.series(dev))
            ren = self.dh[dev]["rename"]
            for wo in work_orders(org, alarms, self.w.hours):
                first = next(a for a in alarms if a.alarm_id == wo.alarms[0])
                if quality.superseding(wo.wo_id, wo.opened, wo.closed, wo.cause, wo.rule.target_metric):
                    pool.setdefault("superseded_work_order", []).append((dev, wo.rule, first.event.fire))
                if ren is not None and first.event.fire < ren and wo.closed is not None:
                    pool.setdefault("rename", []).append((dev, wo.rule, first.event.fire))
        return pool

    def contextual(self, cls: str, cand: tuple[str, Any, int], qid: str) -> tuple[dict, dict] | None:
        w = self.w
        dev, rule, fire = cand
        org = w.origin(dev)
        alarms = device_alarms(org, w.rules(dev), w.series(dev))
        a, b = _window(self.rng, w.hours, fire, (2, 6))
        first = next((al for al in alarms if al.rule.key == rule.key and a <= al.event.fire < b), None)
        wos = work_orders(org, alarms, w.hours)
        wo = next((x for x in wos if first is not None and first.alarm_id in x.alarms), None)
        if wo is None or wo.closed is None:
            return None
        sup = quality.superseding(wo.wo_id, wo.opened, wo.closed, wo.cause, wo.rule.target_metric)
        ren = self.dh[dev]["rename"]
        classes = (["superseded_work_order"] if sup else []) + (["rename"] if ren is not None and first.event.fire < ren else [])
        if cls not in classes:
            return None
        en = (f"Rule {rule.rule_id} of device {dev} raised an alarm between {w.ts(a)} and {w.ts(b)} (end excluded). "
              f"For the first such alarm: which work order closed it, what cause does that work order record, and when "
              f"was the work order closed? Treat the records as the type sheet's data_quality section says.")
        ru = (f"Правило {rule.rule_id} устройства {dev} подняло аварийный сигнал в интервале с {w.ts(a)} по {w.ts(b)} "
              f"(конец не включается). Для первого такого сигнала: какой наряд закрыл его, какую причину записал наряд "
              f"и когда наряд был закрыт? Обрабатывайте записи так, как сказано в разделе data_quality паспорта типа.")
        wid, cause = (sup[0], sup[2]) if sup else (wo.wo_id, wo.cause)
        answer = {"work_order_id": wid, "cause": cause, "closed_at": w.ts(wo.closed)}
        required = [_doc_ev(w.path_of[first.alarm_id]), _doc_ev(w.path_of[wo.wo_id])]
        if sup:
            required.append(_doc_ev(w.path_of[sup[0]]))
        if "rename" in classes:
            required.append(_doc_ev(w.path_of[dev]))
        ml = [m["path"] for d in {org, dev} for m in w.by_device.get(d, []) if m["kind"] == "maintenance_log"
              and wid in m["refs"]]
        available = required + [_doc_ev(p) for p in ml] + _series_items(
            w, dev, first.event.start, first.event.end + 1, list(rule.inputs))
        q = {"question_id": qid, "family": "contextual", "text_en": en, "text_ru": ru, "targets": [dev],
             "window": [w.ts(a), w.ts(b)], "rule": rule.key, "level": 2, "answer_schema": SCHEMAS["contextual"]}
        return q, {"question_id": qid, "family": "contextual", "answer": answer, "required_evidence": required,
                   "available_evidence": available, "level": 2, "defects": classes}

    # ------------------------------------------------------------------ comparative

    def comparative(self, qid: str) -> tuple[dict, dict] | None:
        w, rng = self.w, self.rng
        classes_of: dict[str, list[str]] = {}
        for d in self.assets:
            classes_of.setdefault(w.configs[d]["device_class"], []).append(d)
        usable = [c for c in COMPARATIVE if len(classes_of.get(c, [])) >= 3]
        if not usable:
            return None
        cls = usable[int(rng.integers(len(usable)))]
        metric, stat, unit, en_words, ru_words = COMPARATIVE[cls]
        devs = classes_of[cls]
        hit = [d for d in devs if self.relevant(d, [metric])]
        if not hit:
            return None
        lead = hit[int(rng.integers(len(hit)))]
        tail = qid.rsplit("-", 1)[-1]
        n = min(3 + (int(tail) - 1) % 3 if tail.isdigit() else 3, len(devs))
        others = [d for d in devs if d != lead]
        chosen = sorted([lead, *rng.choice(others, size=n - 1, replace=False).tolist()])
        span = min(w.hours // 24, int(rng.choice([7, 30, 91])))
        rel = np.zeros(w.hours, dtype=bool)
        for m in self.relevant(lead, [metric]).values():
            rel |= m
        hrs = np.flatnonzero(rel)
        h = int(hrs[int(rng.integers(hrs.size))])
        a = int(np.clip(h // 24 - int(rng.integers(0, span)), 0, w.hours // 24 - span)) * 24
        b = a + span * 24
        vals = {}
        for d in chosen:
            v = _stat2(w.series(d)[metric][a:b], stat)
            if v is None:
                return None
            vals[d] = round(v, 2)
        if len(set(vals.values())) < len(vals):
            return None
        found = sorted({c for d in chosen for c in quality.classes_in(self.dh[d], a, b, [metric])})
        if not found:
            return None
        ranking = sorted(chosen, key=lambda d: -vals[d])
        en = (f"Over {w.ts(a)} to {w.ts(b)} (end excluded), rank devices {', '.join(chosen)} by {en_words}, highest first; "
              f"name the top device and give its value in {unit}, rounded to 2 decimals. Treat the telemetry as the type "
              f"sheets' data_quality section says.")
        ru = (f"За период с {w.ts(a)} по {w.ts(b)} (конец не включается) упорядочьте устройства {', '.join(chosen)} по "
              f"показателю «{ru_words}», от большего к меньшему; назовите первое устройство и его значение в {unit}, "
              f"округлённое до 2 знаков. Обрабатывайте телеметрию так, как сказано в разделе data_quality паспортов типов.")
        answer = {"ranking": ranking, "top_device": ranking[0], "top_value": vals[ranking[0]]}
        required = [x for d in chosen for x in _series_items(w, d, a, b, [metric])]
        available = required + [_doc_ev(w.path_of[d]) for d in chosen]
        q = {"question_id": qid, "family": "comparative", "text_en": en, "text_ru": ru, "targets": chosen,
             "window": [w.ts(a), w.ts(b)], "n_devices": n, "level": 2, "answer_schema": SCHEMAS["comparative"]}
        return q, {"question_id": qid, "family": "comparative", "answer": answer, "required_evidence": required,
                   "available_evidence": available, "level": 2, "defects": found}


def generate_level2(w: StoredWorld, rng: np.random.Generator, per_family: int) -> tuple[list[dict], list[dict]]:
    """``per_family`` questions of each of the three families at level 2 (fewer when the world
    holds too few defects); the classes taken in turn."""
    g = _Level2(w, rng)
    qs: list[dict] = []
    keys: list[dict] = []
    seen: set[str] = set()
    pools = {"temporal": g.temporal_pool(), "contextual": g.contextual_pool()}
    for fam in ("temporal", "contextual", "comparative"):
        made, tries = 0, 0
        pool = pools.get(fam, {})
        order = sorted(pool)
        while made < per_family and tries < per_family * 30:
            tries += 1
            qid = f"{fam[:4].upper()}-{made + 1:03d}"
            if fam == "comparative":
                out = g.comparative(qid)
            else:
                if not order:
                    break
                cls = order[tries % len(order)]
                cands = pool[cls]
                out = (g.temporal if fam == "temporal" else g.contextual)(cls, cands[int(rng.integers(len(cands)))], qid)
            if out is None:
                continue
            q, k = out
            sig = json.dumps([q["text_en"]])
            if sig in seen:
                continue
            seen.add(sig)
            qs.append(q)
            keys.append(k)
            made += 1
    return qs, keys
