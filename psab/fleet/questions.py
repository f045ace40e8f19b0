"""Questions of the three PowerBench families and their keys, computed by executing the rules.

The generator reads only the stored world (``world.json``, the document manifest, the type and
configuration sheets, the Parquet telemetry): truth is obtained by running
:func:`psab.fleet.rules.events` on the stored series and the maintenance process
(:func:`psab.fleet.documents.work_orders`) on those events — never copied from a document.

- **temporal** — in a window, when did rule K of device D first fire, how long was that breach
  (hours of the run), how many times did it fire;
- **contextual** — which work order closed the alarm raised by the first firing of rule K of
  device D in a window, what cause it records, when it was closed;
- **comparative** — rank 3–5 devices of one class by a statistic of one metric over a period
  (transformers: life consumed, IEC 60076-7 §6.3), and give the top device's value.

Each question records its required evidence (what justifies the answer) and all available
evidence (everything in the world that bears on it); both are kept with the key, apart from
the question, as held-out keys are.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from psab.fleet import store
from psab.fleet.catalog import Rule
from psab.fleet.documents import alarm_id, device_alarms, work_orders
from psab.fleet.qshared import (  # noqa: F401 - re-exported: part of this module's API
    COMPARATIVE,
    MAX_TEMPORAL_BREACH_H,
    SCHEMAS,
    _doc_ev,
    _series_ev,
    _window,
)
from psab.fleet.rules import rule_events

FAMILIES = ("temporal", "contextual", "comparative", "causal")

class StoredWorld:
    """The stored world, read back from its directory (the question generator's only input)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.info = json.loads((self.root / "world.json").read_text(encoding="utf-8"))
        self.manifest = store.read_manifest(self.root)
        self.hours = int(self.info["hours"])
        self.start = datetime.strptime(self.info["start"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        self.configs = {m["doc_id"]: json.loads((self.root / m["path"]).read_text(encoding="utf-8"))
                        for m in self.manifest if m["kind"] == "config"}
        self.types = {m["doc_id"]: json.loads((self.root / m["path"]).read_text(encoding="utf-8"))
                      for m in self.manifest if m["kind"] == "type"}
        self.by_device: dict[str, list[dict[str, Any]]] = {}
        for m in self.manifest:
            for d in m["device_ids"]:
                self.by_device.setdefault(d, []).append(m)
        self.path_of = {m["doc_id"]: m["path"] for m in self.manifest}
        self._series: dict[str, dict[str, np.ndarray]] = {}
        #: 1: the world as computed; 2: the data as utilities keep it (:mod:`psab.fleet.quality`)
        self.level = int(self.info.get("level", 1))

    def ts(self, hour: int) -> str:
        return (self.start + timedelta(hours=int(hour))).strftime("%Y-%m-%dT%H:00:00Z")

    def series(self, device_id: str) -> dict[str, np.ndarray]:
        """The asset's hourly series: as stored (level 1), or recovered from the level-2
        record by the type sheets' data-quality treatment (:func:`psab.fleet.quality.treated`)."""
        if device_id not in self._series:
            if self.level == 1:
                self._series[device_id] = store.read_device(self.root, device_id)
            else:
                from psab.fleet.quality import treated

                self._series[device_id] = treated(self.root, device_id, self.configs[device_id], self.hours, self.start)
        return self._series[device_id]

    def origin(self, device_id: str) -> str:
        """The id an asset had when the world was computed (its documents' ids hash it)."""
        return self.configs[device_id].get("renamed_from") or device_id

    def rules(self, device_id: str) -> list[Rule]:
        cfg = self.configs[device_id]
        t = self.types[cfg["type_id"]]
        out = []
        for r in t["rules"]:
            rule = Rule.from_json(r)
            if rule.applies(cfg["config"]):
                out.append(rule)
        return out


def _pick(rng: np.random.Generator, cands: list[tuple[str, Rule]], qid: str) -> tuple[str, Rule]:
    """A (device, rule) to ask about: every third question on a derived-input rule when any
    fired (they are a seventh of the rules and fire less often than the atomic ones, so a plain
    draw would seldom ask about them)."""
    derived = [c for c in cands if c[1].derive]
    tail = qid.rsplit("-", 1)[-1]
    pool = derived if derived and tail.isdigit() and int(tail) % 3 == 0 else cands
    return pool[int(rng.integers(len(pool)))]


def _temporal(w: StoredWorld, rng: np.random.Generator, cands: list[tuple[str, Rule]], qid: str) -> tuple[dict, dict] | None:
    dev, rule = _pick(rng, cands, qid)
    evs = rule_events(rule, w.series(dev))
    pick = evs[int(rng.integers(len(evs)))]
    a, b = _window(rng, w.hours, pick.fire, (3, 10))
    inside = [e for e in evs if a <= e.fire < b]
    first = inside[0]
    if first.length > MAX_TEMPORAL_BREACH_H:
        # a breach lasting weeks is a rule whose condition simply holds (no operator reads it as an
        # event), and its evidence would eat most of the tool budget: draw another question
        return None
    cfg = w.configs[dev]
    en = (f"Between {w.ts(a)} and {w.ts(b)} (end excluded), when did rule {rule.rule_id} of device {dev} "
          f"({cfg['type_id']}) first fire, how many hours did that breach last (the whole run of consecutive hours "
          f"satisfying the rule's condition, even past the window), and how many times did the rule fire in the window? "
          f"A firing is the hour at which the rule's consecutive-point count is first reached.")
    ru = (f"В интервале с {w.ts(a)} по {w.ts(b)} (конец не включается): когда впервые сработало правило {rule.rule_id} "
          f"устройства {dev} ({cfg['type_id']}), сколько часов длилось это нарушение (вся серия подряд идущих часов, "
          f"удовлетворяющих условию правила, даже за пределами интервала) и сколько раз правило сработало в интервале? "
          f"Срабатывание — час, в который впервые набрано требуемое число последовательных точек.")
    answer = {"first_fire_time": w.ts(first.fire), "breach_duration_h": first.length, "fire_count": len(inside)}
    required = [_doc_ev(w.path_of[cfg["type_id"]]), _doc_ev(w.path_of[dev]),
                _series_ev(dev, w.ts(max(0, max(a, first.start) - rule.window_h)),
                           w.ts(first.end + 1), list(rule.inputs))]
    available = required + [_series_ev(dev, w.ts(a), w.ts(b), list(rule.inputs))]
    if rule.severity == "alarm":
        available += [_doc_ev(w.path_of[alarm_id(dev, rule.key, e.fire)]) for e in inside]
    q = {"question_id": qid, "family": "temporal", "text_en": en, "text_ru": ru, "targets": [dev],
         "window": [w.ts(a), w.ts(b)], "rule": rule.key, "answer_schema": SCHEMAS["temporal"]}
    return q, {"question_id": qid, "family": "temporal", "answer": answer, "required_evidence": required,
               "available_evidence": available}


def _contextual(w: StoredWorld, rng: np.random.Generator, cands: list[tuple[str, Rule]], qid: str) -> tuple[dict, dict] | None:
    dev, rule = _pick(rng, cands, qid)
    rules = w.rules(dev)
    alarms = device_alarms(dev, rules, w.series(dev))
    wos = [x for x in work_orders(dev, alarms, w.hours) if x.closed is not None]
    mine = [a for a in alarms if a.rule.key == rule.key and any(a.alarm_id in x.alarms for x in wos)]
    if not mine:
        return None
    pick = mine[int(rng.integers(len(mine)))]
    a, b = _window(rng, w.hours, pick.event.fire, (2, 6))
    first = next(al for al in alarms if al.rule.key == rule.key and a <= al.event.fire < b)
    wo = next((x for x in work_orders(dev, alarms, w.hours) if first.alarm_id in x.alarms), None)
    if wo is None or wo.closed is None:
        return None
    en = (f"Rule {rule.rule_id} of device {dev} raised an alarm between {w.ts(a)} and {w.ts(b)} (end excluded). "
          f"For the first such alarm: which work order closed it, what cause does that work order record, and when "
          f"was the work order closed?")
    ru = (f"Правило {rule.rule_id} устройства {dev} подняло аварийный сигнал в интервале с {w.ts(a)} по {w.ts(b)} "
          f"(конец не включается). Для первого такого сигнала: какой наряд закрыл его, какую причину записал наряд "
          f"и когда наряд был закрыт?")
    answer = {"work_order_id": wo.wo_id, "cause": wo.cause, "closed_at": w.ts(wo.closed)}
    ml = [m["path"] for m in w.by_device.get(dev, []) if m["kind"] == "maintenance_log" and wo.wo_id in m["refs"]]
    required = [_doc_ev(w.path_of[first.alarm_id]), _doc_ev(w.path_of[wo.wo_id])]
    available = required + [_doc_ev(p) for p in ml] + [
        _series_ev(dev, w.ts(first.event.start), w.ts(first.event.end + 1), list(rule.inputs))] + [
        _doc_ev(m["path"]) for m in w.by_device.get(dev, []) if m["kind"] == "inspection" and first.alarm_id in m["refs"]]
    q = {"question_id": qid, "family": "contextual", "text_en": en, "text_ru": ru, "targets": [dev],
         "window": [w.ts(a), w.ts(b)], "rule": rule.key, "answer_schema": SCHEMAS["contextual"]}
    return q, {"question_id": qid, "family": "contextual", "answer": answer, "required_evidence": required,
               "available_evidence": available}


def _stat(x: np.ndarray, stat: str) -> float:
    if stat == "increase":
        return float(x[-1] - x[0])
    if stat == "max":
        return float(x.max())
    return float(x.mean())


def _comparative(w: StoredWorld, rng: np.random.Generator, classes: dict[str, list[str]], qid: str) -> tuple[dict, dict] | None:
    usable = [c for c in COMPARATIVE if len(classes.get(c, [])) >= 3]
    if not usable:
        return None
    cls = usable[int(rng.integers(len(usable)))]
    devs = classes[cls]
    # the number of target devices cycles 3, 4, 5 (PowerBench Table 8 strata), fewer if the class is small
    n = min(3 + (int(qid.rsplit("-", 1)[-1]) - 1) % 3 if qid.rsplit("-", 1)[-1].isdigit() else int(rng.integers(3, 6)), len(devs))
    chosen = sorted(rng.choice(devs, size=n, replace=False).tolist())
    metric, stat, unit, en_words, ru_words = COMPARATIVE[cls]
    span = min(w.hours // 24, int(rng.choice([7, 30, 91])))
    a = int(rng.integers(0, w.hours // 24 - span + 1)) * 24
    b = a + span * 24
    vals = {d: round(_stat(w.series(d)[metric][a:b], stat), 2) for d in chosen}
    if len(set(vals.values())) < len(vals):
        return None  # a tie has no single ranking
    ranking = sorted(chosen, key=lambda d: -vals[d])
    en = (f"Over {w.ts(a)} to {w.ts(b)} (end excluded), rank devices {', '.join(chosen)} by {en_words}, highest first; "
          f"name the top device and give its value in {unit}, rounded to 2 decimals.")
    ru = (f"За период с {w.ts(a)} по {w.ts(b)} (конец не включается) упорядочьте устройства {', '.join(chosen)} по "
          f"показателю «{ru_words}», от большего к меньшему; назовите первое устройство и его значение в {unit}, "
          f"округлённое до 2 знаков.")
    answer = {"ranking": ranking, "top_device": ranking[0], "top_value": vals[ranking[0]]}
    required = [_series_ev(d, w.ts(a), w.ts(b), [metric]) for d in chosen]
    available = required + [_doc_ev(w.path_of[d]) for d in chosen]
    q = {"question_id": qid, "family": "comparative", "text_en": en, "text_ru": ru, "targets": chosen,
         "window": [w.ts(a), w.ts(b)], "n_devices": n, "answer_schema": SCHEMAS["comparative"]}
    return q, {"question_id": qid, "family": "comparative", "answer": answer, "required_evidence": required,
               "available_evidence": available}


def generate(root: Path, per_family: int, seed: int = 0, world_seed: str | int | None = None) -> tuple[list[dict], list[dict]]:
    """``per_family`` questions of each family (fewer if the world has too few firings). The
    ``causal`` family needs the world's chain, rebuilt from ``world_seed`` (checked against the
    world's seed commitment; without it, or when it does not match, no causal question); its
    questions come after the other three families', from a stream of their own, so those stay as
    they were."""
    qs, keys = _generate_three(root, per_family, seed)
    if world_seed is not None:
        import hashlib

        from psab.fleet import causal
        from psab.fleet.world import seed_int

        w = StoredWorld(root)
        if hashlib.sha256(str(seed_int(world_seed)).encode()).hexdigest() == w.info["seed_commitment"]:
            rng = np.random.default_rng([int(w.info["seed_commitment"][:15], 16), seed, 4])
            cq, ck = causal.questions(w, causal.chain(world_seed, w.info["size"]), rng, per_family)
            qs, keys = qs + cq, keys + ck
    return qs, keys


def _generate_three(root: Path, per_family: int, seed: int = 0) -> tuple[list[dict], list[dict]]:
    w = StoredWorld(root)
    rng = np.random.default_rng([int(w.info["seed_commitment"][:15], 16), seed])
    if w.level == 2:
        from psab.fleet.defect_questions import generate_level2

        return generate_level2(w, rng, per_family)
    fired: list[tuple[str, Rule]] = []
    fired_alarm: list[tuple[str, Rule]] = []
    classes: dict[str, list[str]] = {}
    for dev in sorted(w.configs):
        classes.setdefault(w.configs[dev]["device_class"], []).append(dev)
        s = w.series(dev)
        for r in w.rules(dev):
            if rule_events(r, s):
                fired.append((dev, r))
                if r.severity == "alarm":
                    fired_alarm.append((dev, r))
    qs: list[dict] = []
    keys: list[dict] = []
    seen: set[str] = set()
    makers = (("temporal", lambda q: _temporal(w, rng, fired, q) if fired else None),
              ("contextual", lambda q: _contextual(w, rng, fired_alarm, q) if fired_alarm else None),
              ("comparative", lambda q: _comparative(w, rng, classes, q)))
    for fam, make in makers:
        made, tries = 0, 0
        while made < per_family and tries < per_family * 20:
            tries += 1
            qid = f"{fam[:4].upper()}-{made + 1:03d}"
            out = make(qid)
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


def write(qs: list[dict], keys: list[dict], out: Path, keys_out: Path) -> None:
    for d, rows in ((Path(out), qs), (Path(keys_out), keys)):
        d.mkdir(parents=True, exist_ok=True)
        name = "questions.jsonl" if rows is qs else "keys.jsonl"
        (d / name).write_text("".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
