"""Level 2 of the fleet world: the data as utilities keep it (issue 36 item 2).

Level 1 is the world of :mod:`psab.fleet.world` stored as computed: every hour present once,
every value what the physics made. Level 2 is the same world as a utility's data historian and
document system hold it, built by post-processing a stored level-1 world (so level 1's bytes
cannot move) with its own seeded stream (``rng(seed, 36, device index)``):

- **telemetry gaps** — communication outages: the historian has no row for those hours;
- **stuck sensors** — a metric holds its last reading for some hours, flagged ``1`` in the
  metric's quality column ``<metric>_quality``;
- **spiking sensors** — one reading far off, flagged ``2``;
- **duplicated rows** — a historian replay wrote the rows of some hours twice;
- **a meter change** — from a date the recorded value of one metric is ``recorded_per_unit``
  times the value in the metric's unit (the configuration sheet's ``data_quality.meter_changes``);
- **an asset renamed at a refurbishment** — its telemetry and documents carry the old id
  before the date and the new id from it; both configuration sheets link them
  (``renamed_to`` / ``renamed_from``, ``renamed_at``);
- **a work order superseded** by a later one, which inherits its alarms and is the order that
  closes them.

Every type sheet states the treatment (:data:`TREATMENT`), every configuration sheet the
device's own defects, so a careful analyst can recover the series the rules are executed on:
:func:`treated` does exactly that, and the question generator's keys at level 2 use it.

Soundness: a defect that blanks values (gap, stuck, spike) is kept only if every applicable
rule of the device has the same firing events on the treated series as on the true one
(:func:`_same_events`), and the other defects are exact (a replayed row is a copy; a meter
factor of 2 or 1/2 is exact in binary floating point; a rename splits a series at one hour). So
the alarms, work orders and logs — written by level 1 from the true series — agree with what the
rules give on the treated record, and a key computed from the treated record never
contradicts a document. What a careless reading gets wrong is what the defect is for: a gap laid
over the quiet hours between two breaches makes them look like one run, a stuck value extends a
breach, a spike looks like a firing, a replay doubles the hours counted, a meter change moves
values across a threshold, a rename hides the asset's history under its old id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

LEVELS = (1, 2)
QUALITY_SUFFIX = "_quality"
GOOD, STUCK, SPIKE = 0, 1, 2
#: The defect classes, as keys name them.
DEFECTS = ("gap", "stuck", "spike", "duplicate", "meter_change", "rename", "superseded_work_order")

#: What every type sheet says at level 2 (the "rules say how each is treated" of issue 36).
TREATMENT: dict[str, Any] = {
    "quality_codes": {"0": "good", "1": "stuck sensor (the value repeats the last good reading)", "2": "spike (sensor fault)"},
    "rules": [
        "Telemetry is hourly. An hour with no row is a communication outage: its values are missing.",
        "A column <metric>_quality, where present, flags the metric's value in that row; a flagged value (code 1 or 2) "
        "is missing.",
        "Rows repeated with the same timestamp were written twice by a historian replay: they are one sample.",
        "A meter change in the configuration sheet's data_quality.meter_changes means that from its 'from' time the "
        "recorded value is recorded_per_unit times the value in the metric's unit: divide by it.",
        "An asset renamed at a refurbishment keeps one history: its configuration sheet names the old id "
        "(renamed_from) and the time (renamed_at); telemetry and documents before that time carry the old id.",
        "A work order superseded by a later one ('Superseded by') closes nothing; the superseding order inherits its "
        "alarms and is the order that closes them.",
        "A rule is executed on the hourly series so recovered: a missing value never satisfies a condition, so a rule "
        "does not fire on it and it breaks a run of consecutive points (a gap breaks a consecutive run).",
        "A statistic over a period uses the usable values only: increase = last usable value minus first usable "
        "value in the period, max and mean over the usable values.",
    ],
}

#: Per-device probability of each defect class at level 2.
P_GAP, P_STUCK, P_SPIKE, P_DUP, P_METER, P_RENAME = 0.5, 0.3, 0.3, 0.25, 0.12, 0.06
#: A work order is superseded when stable_hash("supersede", wo_id) % SUPERSEDE_EVERY == 0.
SUPERSEDE_EVERY = 4
MAX_GAP_H = 12


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass
class Plan:
    """One device's defects, in hours of the world."""

    gaps: list[tuple[int, int]] = field(default_factory=list)  # [a, b)
    flags: dict[str, list[tuple[int, int, int, float]]] = field(default_factory=dict)  # metric -> (a, b, code, value)
    dups: list[tuple[int, int]] = field(default_factory=list)
    meter: tuple[str, int, float] | None = None  # metric, from hour, recorded per unit
    rename: int | None = None  # hour of the refurbishment

    def any(self) -> bool:
        return bool(self.gaps or self.flags or self.dups or self.meter or self.rename is not None)


def blanked(series: dict[str, np.ndarray], plan: Plan) -> dict[str, np.ndarray]:
    """The true series with the plan's missing values NaN (gaps; flagged values)."""
    out = {m: np.array(v, dtype=float, copy=True) for m, v in series.items()}
    for a, b in plan.gaps:
        for v in out.values():
            v[a:b] = np.nan
    for m, fl in plan.flags.items():
        for a, b, _, _ in fl:
            out[m][a:b] = np.nan
    return out


def _same_events(rules: list[Any], true: dict[str, np.ndarray], plan: Plan, metrics: set[str] | None) -> bool:
    from psab.fleet.rules import rule_events

    tr = blanked(true, plan)
    for r in rules:
        if metrics is not None and not (set(r.inputs) | {r.target_metric}) & metrics:
            continue
        if any(i not in true for i in r.inputs) or (not r.derive and r.target_metric not in true):
            continue
        if rule_events(r, true) != rule_events(r, tr):
            return False
    return True


def _spike_value(rule: Any) -> float:
    sign = 1.0 if rule.op in (">", ">=") else -1.0
    return round(float(rule.threshold) + sign * max(abs(float(rule.threshold)) * 0.25, 1.0), 4)


def plan_defects(r: np.random.Generator, series: dict[str, np.ndarray], rules: list[Any], hours: int,
                 renameable: bool, compare: tuple[str, str] | None = None) -> Plan:
    """A device's defects (module docstring), each tried a few times and kept only when sound.
    ``compare`` (metric, statistic) is what the comparative family ranks devices of this class
    by: half of the spikes and meter changes go to that metric, so comparisons meet them too."""
    from psab.fleet.rules import rule_events

    plan = Plan()
    draws = r.random(6)
    evs = {}
    for ru in rules:
        if all(i in series for i in ru.inputs) and (ru.derive or ru.target_metric in series):
            e = rule_events(ru, series)
            if e:
                evs[ru.key] = (ru, e)
    keys = sorted(evs)
    atomic = [k for k in keys if not evs[k][0].derive]

    def attempt(add: Any, undo: Any, metrics: set[str] | None) -> None:
        for _ in range(4):
            if not add():
                return
            if _same_events(rules, series, plan, metrics):
                return
            undo()

    if draws[0] < P_GAP:
        def add_gap() -> bool:
            pairs = [(e1.end + 1, e2.start) for k in keys for e1, e2 in zip(evs[k][1], evs[k][1][1:], strict=False)
                     if 1 <= e2.start - e1.end - 1 <= MAX_GAP_H]
            if pairs and r.random() < 0.8:
                plan.gaps.append(pairs[int(r.integers(len(pairs)))])
            else:
                a = int(r.integers(1, max(2, hours - MAX_GAP_H - 1)))
                plan.gaps.append((a, min(hours - 1, a + int(r.integers(2, MAX_GAP_H + 1)))))
            return True
        attempt(add_gap, lambda: plan.gaps.pop(), None)
    on_compare = compare is not None and compare[0] in series and r.random() < 0.5
    if draws[1] < P_STUCK and atomic:
        def add_stuck() -> bool:
            ru, e = evs[atomic[int(r.integers(len(atomic)))]]
            ev = e[int(r.integers(len(e)))]
            m = ru.target_metric
            a = ev.end + 1
            b = min(hours, a + int(r.integers(3, 13)))
            if a >= b:
                return False
            plan.flags.setdefault(m, []).append((a, b, STUCK, float(series[m][ev.end])))
            return True

        def undo_stuck() -> None:
            m = next(k for k in reversed(list(plan.flags)) if plan.flags[k])
            plan.flags[m].pop()
            if not plan.flags[m]:
                del plan.flags[m]
        attempt(add_stuck, undo_stuck, set(plan.flags) | {evs[k][0].target_metric for k in atomic})
    if draws[2] < P_SPIKE and on_compare and compare is not None:
        def add_compare_spike() -> bool:
            m = compare[0]
            h = int(r.integers(1, hours - 1))
            x = series[m]
            plan.flags.setdefault(m, []).append((h, h + 1, SPIKE, round(float(np.max(x)) * 1.3 + 1.0, 4)))
            return True

        def undo_compare_spike() -> None:
            plan.flags[compare[0]].pop()  # type: ignore[index]
            if not plan.flags[compare[0]]:  # type: ignore[index]
                del plan.flags[compare[0]]  # type: ignore[index]
        attempt(add_compare_spike, undo_compare_spike, {compare[0]})
    elif draws[2] < P_SPIKE and atomic:
        def add_spike() -> bool:
            ru, e = evs[atomic[int(r.integers(len(atomic)))]]
            m = ru.target_metric
            from psab.fleet.rules import condition

            ok = ~condition(series[m], ru.op, ru.threshold)
            ok[:2] = False
            # a spike a few hours to two days before a firing: inside a question's window
            near = [h for h in range(max(2, e[0].start - 48), e[0].start - 2) if ok[h] and ok[h - 1] and ok[h + 1]]
            if not near:
                return False
            h = near[int(r.integers(len(near)))]
            plan.flags.setdefault(m, []).append((h, h + 1, SPIKE, _spike_value(ru)))
            return True

        def undo_spike() -> None:
            m = next(k for k in reversed(list(plan.flags)) if plan.flags[k])
            plan.flags[m].pop()
            if not plan.flags[m]:
                del plan.flags[m]
        attempt(add_spike, undo_spike, {evs[k][0].target_metric for k in atomic})
    if draws[3] < P_DUP:
        if keys and r.random() < 0.8:
            ev = evs[keys[int(r.integers(len(keys)))]][1][0]
            a, b = max(0, ev.start - 2), min(hours, ev.start - 2 + min(48, ev.length + 6))
        else:
            a = int(r.integers(0, max(1, hours - 48)))
            b = min(hours, a + int(r.integers(6, 49)))
        if b > a:
            plan.dups.append((a, b))
    if draws[4] < P_METER and (atomic or on_compare):
        m = compare[0] if on_compare and compare is not None else evs[atomic[int(r.integers(len(atomic)))]][0].target_metric
        f = (int(r.integers(hours // 72, max(hours // 72 + 1, hours * 2 // 72))) * 24)
        if 0 < f < hours:
            plan.meter = (m, f, float(r.choice([2.0, 0.5])))
    if draws[5] < P_RENAME and renameable:
        f = int(r.integers(hours // 72, max(hours // 72 + 1, hours * 2 // 72))) * 24
        if 0 < f < hours:
            plan.rename = f
    return plan


def recorded(series: dict[str, np.ndarray], plan: Plan, hours: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The historian's table of one device under ``plan``: the hour of each row and the columns
    (metrics, then the quality columns of flagged metrics)."""
    cols = {m: np.array(v, dtype=float, copy=True) for m, v in series.items()}
    q = {}
    for m, fl in plan.flags.items():
        code = np.zeros(hours)
        for a, b, c, val in fl:
            cols[m][a:b] = val
            code[a:b] = c
        q[m + QUALITY_SUFFIX] = code
    if plan.meter:
        m, f, k = plan.meter
        cols[m][f:] = cols[m][f:] * k
    cols.update(q)
    keep = np.ones(hours, dtype=bool)
    for a, b in plan.gaps:
        keep[a:b] = False
    reps = np.ones(hours, dtype=int)
    for a, b in plan.dups:
        reps[a:b] = 2
    reps = np.where(keep, reps, 0)
    idx = np.repeat(np.arange(hours), reps)
    return idx, {m: v[idx] for m, v in cols.items()}


def _write_partition(root: Path, device_id: str, start: Any, hour_idx: np.ndarray, cols: dict[str, np.ndarray]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from psab.fleet import store

    ts = pa.array(np.datetime64(start.replace(tzinfo=None), "s") + hour_idx.astype(np.int64) * np.timedelta64(3600, "s"),
                  type=pa.timestamp("s", tz="UTC"))
    table = pa.table({"ts": ts, **{m: pa.array(v, type=pa.float64()) for m, v in cols.items()}})
    p = store.device_path(root, device_id)
    p.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, p, compression="zstd", row_group_size=store.ROW_GROUP, write_statistics=True)


# ----------------------------------------------------------------------------- work orders


def superseding(wo_id: str, opened: int, closed: int | None, cause: str, metric: str) -> tuple[str, int, str] | None:
    """The order superseding work order ``wo_id`` at level 2 — (its id, the hour it was issued,
    its recorded cause) — or None. Only closed orders open long enough are superseded; the
    superseding order is issued a third of the way through and closes when the original would
    have (the work done is the same, so the physics and the logs' times stand)."""
    from psab.fleet.process import CAUSES, DEFAULT_CAUSES, stable_hash

    if closed is None or closed - opened < 6 or stable_hash("supersede", wo_id) % SUPERSEDE_EVERY:
        return None
    causes = CAUSES.get(metric, DEFAULT_CAUSES)
    others = [c for c in causes if c != cause]
    revised = others[stable_hash("revised", wo_id) % len(others)] if others else cause
    return f"WO-{stable_hash('wo-supersede', wo_id) % 10**8:08d}", opened + (closed - opened) // 3, revised


def _wo_fields(text: str) -> dict[str, str]:
    out = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("- ") and ": " in line:
            k, v = line[2:].split(": ", 1)
            out.setdefault(k, v)
        if line.strip() == "## Recorded cause":
            out["cause"] = next((x.strip() for x in lines[i + 1:] if x.strip()), "")
    return out


# ----------------------------------------------------------------------------- the level-2 world


def apply_level2(root: Path, seed: str | int) -> dict[str, Any]:
    """Turn a stored level-1 world into its level-2 form in place (module docstring); returns
    the counts of each defect class (also written to ``world.json``)."""
    from datetime import UTC, datetime, timedelta

    from psab.fleet import store
    from psab.fleet.catalog import Rule
    from psab.fleet.process import stable_hash
    from psab.fleet.world import rng, seed_int

    root = Path(root)
    info = json.loads((root / "world.json").read_text(encoding="utf-8"))
    hours = int(info["hours"])
    start = datetime.strptime(info["start"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)

    def ts(h: int) -> str:
        return (start + timedelta(hours=int(h))).strftime("%Y-%m-%dT%H:00:00Z")

    s = seed_int(seed)
    manifest = store.read_manifest(root)
    docs = root / "documents"
    types = {m["doc_id"]: json.loads((root / m["path"]).read_text(encoding="utf-8")) for m in manifest if m["kind"] == "type"}
    cfg_rows = [m for m in manifest if m["kind"] == "config"]
    configs = {m["doc_id"]: json.loads((root / m["path"]).read_text(encoding="utf-8")) for m in cfg_rows}
    counts = dict.fromkeys(DEFECTS, 0)
    renamed: dict[str, tuple[str, int]] = {}
    dq: dict[str, dict[str, Any]] = {}
    n_renamed = 0
    for i, m in enumerate(cfg_rows):
        dev = m["doc_id"]
        cfg = configs[dev]
        r = rng(s, 36, i)
        if r.random() >= 0.6:  # most of the fleet's data is clean
            dq[dev] = {"quality_columns": [], "meter_changes": []}
            continue
        series = store.read_device(root, dev)
        t = types[cfg["type_id"]]
        rules = [ru for ru in (Rule.from_json(x) for x in t["rules"]) if ru.applies(cfg["config"])]
        from psab.fleet.questions import COMPARATIVE

        cmp_ = COMPARATIVE.get(cfg["device_class"])
        plan = plan_defects(r, series, rules, hours, renameable=cfg["device_class"] not in ("rtu", "relay"),
                            compare=(cmp_[0], cmp_[1]) if cmp_ else None)
        dq[dev] = {"quality_columns": sorted(x + QUALITY_SUFFIX for x in plan.flags),
                   "meter_changes": ([{"metric": plan.meter[0], "from": ts(plan.meter[1]), "recorded_per_unit": plan.meter[2]}]
                                     if plan.meter else [])}
        if not plan.any():
            continue
        counts["gap"] += len(plan.gaps)
        counts["stuck"] += sum(1 for fl in plan.flags.values() for x in fl if x[2] == STUCK)
        counts["spike"] += sum(1 for fl in plan.flags.values() for x in fl if x[2] == SPIKE)
        counts["duplicate"] += len(plan.dups)
        counts["meter_change"] += plan.meter is not None
        idx, cols = recorded(series, plan, hours)
        if plan.rename is not None:
            n_renamed += 1
            new = f"{dev.split('-')[0]}-{9000 + n_renamed:04d}"
            renamed[dev] = (new, plan.rename)
            counts["rename"] += 1
            before = idx < plan.rename
            _write_partition(root, dev, start, idx[before], {k: v[before] for k, v in cols.items()})
            _write_partition(root, new, start, idx[~before], {k: v[~before] for k, v in cols.items()})
        else:
            _write_partition(root, dev, start, idx, cols)

    for tid, t in types.items():
        t["data_quality"] = TREATMENT
        (docs / "types" / f"{tid}.json").write_text(_dump(t), encoding="utf-8")

    def sub_id(x: Any, old: str, new: str) -> Any:
        return new if x == old else [new if y == old else y for y in x] if isinstance(x, list) else x

    new_manifest: list[dict[str, Any]] = []
    supersede_rows: dict[str, dict[str, Any]] = {}
    for m in manifest:
        if m["kind"] == "type":
            new_manifest.append(m)
            continue
        if m["kind"] == "config":
            dev = m["doc_id"]
            cfg = configs[dev]
            cfg["data_quality"] = dq[dev]
            for old, (new, _) in renamed.items():
                cfg["config"]["fed_by"] = sub_id(cfg["config"].get("fed_by"), old, new)
                cfg["feeds"] = sub_id(cfg.get("feeds", []), old, new)
            if dev in renamed:
                new, at = renamed[dev]
                twin = json.loads(json.dumps(cfg))
                cfg["renamed_to"], cfg["renamed_at"] = new, ts(at)
                twin["device_id"], twin["renamed_from"], twin["renamed_at"] = new, dev, ts(at)
                (root / m["path"]).write_text(_dump(cfg), encoding="utf-8")
                rel = f"documents/config/{new}.json"
                (root / rel).write_text(_dump(twin), encoding="utf-8")
                new_manifest.append({**m, "refs": m["refs"] + [new]})
                new_manifest.append({**m, "path": rel, "doc_id": new, "device_ids": [new], "refs": m["refs"] + [dev]})
                continue
            (root / m["path"]).write_text(_dump(cfg), encoding="utf-8")
            refs = m["refs"]
            for old, (new, _) in renamed.items():
                refs = sub_id(refs, old, new)
            new_manifest.append({**m, "refs": refs})
            continue
        dev = m["device_ids"][0]
        row = dict(m)
        path = root / m["path"]
        text = None
        if m["kind"] == "work_order":
            text = path.read_text(encoding="utf-8")
            f = _wo_fields(text)
            opened = _hour(f.get("Opened", ""), start)
            closed = _hour(f.get("Closed", ""), start)
            metric = f.get("Trigger rule", "").split("(", 1)[-1].split(" ", 1)[0]
            sup = superseding(m["doc_id"], opened, closed, f.get("cause", ""), metric) if opened is not None else None
            if sup is not None:
                wid, at, cause = sup
                counts["superseded_work_order"] += 1
                orig = text.replace("- Status: closed", "- Status: superseded").replace(
                    f"- Closed: {f['Closed']}", f"- Closed: -\n- Superseded by: {wid} at {ts(at)}")
                lines = [f"# Work order {wid}", "", f"- Device: {f['Device']}", f"- Substation: {f['Substation']}",
                         f"- Opened: {ts(at)}", "- Status: closed", f"- Closed: {f['Closed']}",
                         f"- Trigger rule: {f['Trigger rule']}", f"- Supersedes: {m['doc_id']}",
                         f"- Alarms closed by this order: {f['Alarms closed by this order']}", "", "## Recorded cause", "",
                         cause, ""]
                supersede_rows[m["doc_id"]] = {"id": wid, "at": at, "dev": dev}
                text = orig
                row["refs"] = m["refs"] + [wid]
                extra = {"path": f"documents/work_orders/{wid}.md", "kind": "work_order", "doc_id": wid,
                         "device_ids": [dev], "time": ts(at), "refs": list(m["refs"]) + [m["doc_id"]]}
                sup_text = "\n".join(lines)
        if m["kind"] == "maintenance_log" and m["refs"] and m["refs"][0] in supersede_rows:
            text = path.read_text(encoding="utf-8")
            wid = supersede_rows[m["refs"][0]]["id"]
            text = text.replace(f"Work order: {m['refs'][0]}", f"Work order: {wid}")
            row["refs"] = [wid]
        if m["kind"] == "inspection":
            hits = [(o, x) for o, x in supersede_rows.items() if x["dev"] == dev and o in m["refs"]]
            h = _hour(m["time"], start)
            for o, x in hits:
                if h is not None and h >= x["at"]:
                    text = (text or path.read_text(encoding="utf-8")).replace(o, x["id"])
                    row["refs"] = [x["id"] if y == o else y for y in row["refs"]]
        if dev in renamed:
            new, at = renamed[dev]
            h = _hour(m["time"], start) if m.get("time") else None
            if h is not None and h >= at:
                text = (text or path.read_text(encoding="utf-8")).replace(dev, new)
                row["device_ids"] = [new]
        if text is not None:
            path.write_text(text, encoding="utf-8")
        new_manifest.append(row)
        if m["kind"] == "work_order" and m["doc_id"] in supersede_rows:
            sup_path = root / extra["path"]
            if dev in renamed and _hour(extra["time"], start) >= renamed[dev][1]:
                sup_text = sup_text.replace(dev, renamed[dev][0])
                extra["device_ids"] = [renamed[dev][0]]
            sup_path.write_text(sup_text, encoding="utf-8")
            new_manifest.append(extra)
    (docs / "manifest.jsonl").write_text("".join(json.dumps(m, sort_keys=True, ensure_ascii=False) + "\n"
                                                 for m in new_manifest), encoding="utf-8")
    kinds: dict[str, int] = {}
    for m in new_manifest:
        kinds[m["kind"]] = kinds.get(m["kind"], 0) + 1
    st = info["statistics"]
    st["documents"] = sum(kinds.values())
    st["documents_operational"] = sum(v for k, v in kinds.items() if k != "type")
    st["documents_by_kind"] = dict(sorted(kinds.items()))
    st["data_quality_defects"] = counts
    info["level"] = 2
    (root / "world.json").write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    _ = stable_hash  # the ids above come from the process's hash
    return counts


def _hour(s: str | None, start: Any) -> int | None:
    from datetime import UTC, datetime

    if not s or s.strip() in ("-", ""):
        return None
    try:
        d = datetime.strptime(s.strip(), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None
    return int((d - start).total_seconds() // 3600)


# ----------------------------------------------------------------------------- reading it back


def treated(root: Path, device_id: str, config: dict[str, Any], hours: int, start: Any) -> dict[str, np.ndarray]:
    """The hourly series of an asset recovered from the level-2 record by :data:`TREATMENT`:
    the old id's rows before a rename joined, replayed rows once, missing hours and flagged
    values NaN, a meter change divided out. Quality columns are dropped."""
    import pyarrow.parquet as pq

    from psab.fleet import store

    ids = ([config["renamed_from"]] if config.get("renamed_from") else []) + [device_id]
    grid: dict[str, np.ndarray] = {}
    for d in ids:
        p = store.device_path(root, d)
        if not p.is_file():
            continue
        t = pq.read_table(p)
        tsv = t.column("ts").to_numpy().astype("datetime64[s]")
        h = ((tsv - np.datetime64(start.replace(tzinfo=None), "s")) // np.timedelta64(3600, "s")).astype(int)
        cols = {n: t.column(n).to_numpy().astype(float) for n in t.column_names if n != "ts"}
        for n, v in cols.items():
            if n.endswith(QUALITY_SUFFIX):
                continue
            x = v.copy()
            q = cols.get(n + QUALITY_SUFFIX)
            if q is not None:
                x[q != GOOD] = np.nan
            g = grid.setdefault(n, np.full(hours, np.nan))
            g[h] = x  # a replayed hour is written twice with the same value
    for mc in (config.get("data_quality") or {}).get("meter_changes", []):
        f = _hour(mc["from"], start)
        m = mc["metric"]
        if m in grid and f is not None:
            grid[m][f:] = np.round(grid[m][f:] / float(mc["recorded_per_unit"]), 4)
    return grid


def defect_hours(root: Path, device_id: str, config: dict[str, Any], hours: int, start: Any) -> dict[str, Any]:
    """Where the record of an asset departs from a clean hourly table (what the question
    generator targets): hours missing, hours replayed, flagged hours per metric, the meter
    change (metric, hour) and the rename hour."""
    import pyarrow.parquet as pq

    from psab.fleet import store

    ids = ([config["renamed_from"]] if config.get("renamed_from") else []) + [device_id]
    seen = np.zeros(hours, dtype=int)
    flags: dict[str, np.ndarray] = {}
    for d in ids:
        p = store.device_path(root, d)
        if not p.is_file():
            continue
        t = pq.read_table(p)
        tsv = t.column("ts").to_numpy().astype("datetime64[s]")
        h = ((tsv - np.datetime64(start.replace(tzinfo=None), "s")) // np.timedelta64(3600, "s")).astype(int)
        np.add.at(seen, h, 1)
        for n in t.column_names:
            if n.endswith(QUALITY_SUFFIX):
                q = t.column(n).to_numpy()
                fl = flags.setdefault(n[: -len(QUALITY_SUFFIX)], np.zeros(hours, dtype=int))
                fl[h[q == STUCK]] = STUCK
                fl[h[q == SPIKE]] = SPIKE
    mcs = (config.get("data_quality") or {}).get("meter_changes", [])
    return {"missing": seen == 0, "replayed": seen > 1, "flags": flags,
            "meter": [(mc["metric"], _hour(mc["from"], start)) for mc in mcs],
            "rename": _hour(config.get("renamed_at"), start) if config.get("renamed_from") else None}


def classes_in(dh: dict[str, Any], a: int, b: int, metrics: list[str]) -> list[str]:
    """The defect classes of an asset's record inside hours [a, b) for ``metrics``."""
    a, b = max(0, a), max(a, b)
    out = []
    if dh["missing"][a:b].any():
        out.append("gap")
    fl = [dh["flags"][m][a:b] for m in metrics if m in dh["flags"]]
    if any((x == STUCK).any() for x in fl):
        out.append("stuck")
    if any((x == SPIKE).any() for x in fl):
        out.append("spike")
    if dh["replayed"][a:b].any():
        out.append("duplicate")
    if any(m in metrics and f is not None and f < b for m, f in dh["meter"]):
        out.append("meter_change")
    if dh["rename"] is not None and a < dh["rename"]:
        out.append("rename")
    return out
