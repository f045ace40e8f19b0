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
rule of the device has the same condition hour by hour — hence the same firing events — on the
treated series as on the true one (:func:`_same_events`), and the other defects are exact (a replayed row is a copy; a meter
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


def _same_events(rules: list[Any], true: dict[str, np.ndarray], plan: Plan, metrics: set[str] | None,
                 cache: dict[str, list[Any]] | None = None) -> bool:
    """Whether every rule touching ``metrics`` (all when None) has the same condition, hour by
    hour, on the true series and on the series with the plan's missing values blanked — so the
    same firing events (:func:`psab.fleet.rules.events` is a function of the condition). Checked
    locally: a derived value at hour t reads hours t - window_h .. t only (causal), so around
    each blanked interval [a, b) the hours a - window_h - 1 .. b + window_h + 1 decide."""
    from psab.fleet.rules import condition, rule_series

    n = next(iter(true.values())).size
    for r in rules:
        ins = set(r.inputs) | {r.target_metric}
        if metrics is not None and not ins & metrics:
            continue
        if any(i not in true for i in r.inputs) or (not r.derive and r.target_metric not in true):
            continue
        spans = list(plan.gaps) + [(a, b) for m, fl in plan.flags.items() if m in ins for a, b, _, _ in fl]
        w = int(r.window_h or 0)
        for a, b in spans:
            s0, s1 = max(0, a - w - 1), min(n, b + w + 1)
            part = {m: true[m][s0:s1] for m in ins if m in true}
            blank = {m: v.copy() for m, v in part.items()}
            for ga, gb in plan.gaps:
                for v in blank.values():
                    v[max(0, ga - s0):max(0, gb - s0)] = np.nan
            for m, fl in plan.flags.items():
                if m in blank:
                    for fa, fb, _, _ in fl:
                        blank[m][max(0, fa - s0):max(0, fb - s0)] = np.nan
            c1 = condition(rule_series(r, part), r.op, r.threshold)
            c2 = condition(rule_series(r, blank), r.op, r.threshold)
            if not np.array_equal(c1, c2):
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
    cache: dict[str, list[Any]] = {}
    for ru in rules:
        if all(i in series for i in ru.inputs) and (ru.derive or ru.target_metric in series):
            e = cache[ru.key] = rule_events(ru, series)
            if e:
                evs[ru.key] = (ru, e)
    keys = sorted(evs)
    atomic = [k for k in keys if not evs[k][0].derive]

    def attempt(add: Any, undo: Any, metrics: set[str] | None) -> None:
        for _ in range(4):
            if not add():
                return
            if _same_events(rules, series, plan, metrics, cache):
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

Doc = tuple[str, str, dict[str, Any]]


def new_id(old: str) -> str:
    """The id an asset gets at its refurbishment: its number in the 9000s ("LIN-0003" →
    "LIN-9003"; no world has 9000 devices of a class, so it is free)."""
    prefix, num = old.split("-", 1)
    return f"{prefix}-9{num[1:]}"


def device_level2(seed: int, index: int, device: Any, dtype: Any, series: dict[str, np.ndarray], start: Any,
                  hours: int, config_doc: Doc, docs: list[Doc]) -> dict[str, Any]:
    """One device of a level-1 world turned into its level-2 form, in memory (the shard that
    computed its series calls this before anything is written): its partitions as (device id,
    hour of each row, columns), its configuration sheet(s), its operational documents, the
    counts of each defect class, and its rename (old id, new id, hour) if any."""
    from datetime import timedelta

    from psab.fleet.qshared import COMPARATIVE
    from psab.fleet.world import rng

    def ts(h: int) -> str:
        return (start + timedelta(hours=int(h))).strftime("%Y-%m-%dT%H:00:00Z")

    dev = device.device_id
    counts = dict.fromkeys(DEFECTS, 0)
    r = rng(seed, 36, index)
    plan = Plan()
    if r.random() < 0.6:  # most of the fleet's data is clean
        rules = [ru for ru in dtype.rules if ru.applies(device.config)]
        cmp_ = COMPARATIVE.get(device.device_class)
        plan = plan_defects(r, series, rules, hours, renameable=device.device_class not in ("rtu", "relay"),
                            compare=(cmp_[0], cmp_[1]) if cmp_ else None)
    counts["gap"] = len(plan.gaps)
    counts["stuck"] = sum(1 for fl in plan.flags.values() for x in fl if x[2] == STUCK)
    counts["spike"] = sum(1 for fl in plan.flags.values() for x in fl if x[2] == SPIKE)
    counts["duplicate"] = len(plan.dups)
    counts["meter_change"] = int(plan.meter is not None)
    idx, cols = recorded(series, plan, hours) if plan.any() else (np.arange(hours), dict(series))
    renamed = None
    if plan.rename is not None:
        renamed = (dev, new_id(dev), plan.rename)
        counts["rename"] = 1
        before = idx < plan.rename
        parts = [(dev, idx[before], {k: v[before] for k, v in cols.items()}),
                 (renamed[1], idx[~before], {k: v[~before] for k, v in cols.items()})]
    else:
        parts = [(dev, idx, cols)]
    # the configuration sheet(s)
    rel, text, row = config_doc
    cfg = json.loads(text)
    cfg["data_quality"] = {"quality_columns": sorted(x + QUALITY_SUFFIX for x in plan.flags),
                           "meter_changes": ([{"metric": plan.meter[0], "from": ts(plan.meter[1]),
                                               "recorded_per_unit": plan.meter[2]}] if plan.meter else [])}
    configs: list[Doc] = []
    if renamed is not None:
        twin = json.loads(json.dumps(cfg))
        cfg["renamed_to"], cfg["renamed_at"] = renamed[1], ts(renamed[2])
        twin["device_id"], twin["renamed_from"], twin["renamed_at"] = renamed[1], dev, ts(renamed[2])
        configs = [(rel, _dump(cfg), {**row, "refs": row["refs"] + [renamed[1]]}),
                   (f"config/{renamed[1]}.json", _dump(twin),
                    {**row, "doc_id": renamed[1], "device_ids": [renamed[1]], "refs": row["refs"] + [dev]})]
    else:
        configs = [(rel, _dump(cfg), row)]
    # the operational documents: superseded work orders, the rename from its hour on
    out: list[Doc] = []
    sup_of: dict[str, tuple[str, int]] = {}
    for rel, text, row in docs:
        row = dict(row)
        extra: Doc | None = None
        if row["kind"] == "work_order":
            f = _wo_fields(text)
            opened, closed = _hour(f.get("Opened"), start), _hour(f.get("Closed"), start)
            metric = f.get("Trigger rule", "").split("(", 1)[-1].split(" ", 1)[0]
            sup = superseding(row["doc_id"], opened, closed, f.get("cause", ""), metric) if opened is not None else None
            if sup is not None:
                wid, at, cause = sup
                counts["superseded_work_order"] += 1
                sup_of[row["doc_id"]] = (wid, at)
                text = text.replace("- Status: closed", "- Status: superseded").replace(
                    f"- Closed: {f['Closed']}", f"- Closed: -\n- Superseded by: {wid} at {ts(at)}")
                row["refs"] = row["refs"] + [wid]
                lines = [f"# Work order {wid}", "", f"- Device: {f['Device']}", f"- Substation: {f['Substation']}",
                         f"- Opened: {ts(at)}", "- Status: closed", f"- Closed: {f['Closed']}",
                         f"- Trigger rule: {f['Trigger rule']}", f"- Supersedes: {row['doc_id']}",
                         f"- Alarms closed by this order: {f['Alarms closed by this order']}", "", "## Recorded cause",
                         "", cause, ""]
                extra = (f"work_orders/{wid}.md", "\n".join(lines),
                         {"kind": "work_order", "doc_id": wid, "device_ids": [dev], "time": ts(at),
                          "refs": list(row["refs"][:-1]) + [row["doc_id"]]})
        elif row["kind"] == "maintenance_log" and row["refs"] and row["refs"][0] in sup_of:
            wid = sup_of[row["refs"][0]][0]
            text = text.replace(f"Work order: {row['refs'][0]}", f"Work order: {wid}")
            row["refs"] = [wid]
        elif row["kind"] == "inspection":
            h = _hour(row["time"], start)
            for o in [x for x in row["refs"] if x in sup_of]:
                if h is not None and h >= sup_of[o][1]:
                    text = text.replace(o, sup_of[o][0])
                    row["refs"] = [sup_of[o][0] if y == o else y for y in row["refs"]]
        for rel_, text_, row_ in [(rel, text, row)] + ([extra] if extra else []):
            if renamed is not None:
                h = _hour(row_.get("time"), start)
                if h is not None and h >= renamed[2]:
                    text_ = text_.replace(dev, renamed[1])
                    row_ = {**row_, "device_ids": [renamed[1]]}
            out.append((rel_, text_, row_))
    return {"parts": parts, "configs": configs, "docs": out, "counts": counts, "renamed": renamed}


def parquet_bytes(start: Any, hour_idx: np.ndarray, cols: dict[str, np.ndarray]) -> bytes:
    """A partition file of the historian's rows (as :func:`psab.fleet.store.parquet_bytes`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ts = pa.array(np.datetime64(start.replace(tzinfo=None), "s") + hour_idx.astype(np.int64) * np.timedelta64(3600, "s"),
                  type=pa.timestamp("s", tz="UTC"))
    table = pa.table({"ts": ts, **{m: pa.array(np.asarray(v, dtype=float), type=pa.float64()) for m, v in cols.items()}})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", row_group_size=ROW_GROUP, write_statistics=True)
    return sink.getvalue().to_pybytes()


def _device_path(root: Path, device_id: str) -> Path:
    """:func:`psab.fleet.store.device_path`'s layout (store calls this module, so it is not
    imported here)."""
    return Path(root) / "telemetry" / f"device_id={device_id}" / "part-0.parquet"


#: :data:`psab.fleet.store.ROW_GROUP`
ROW_GROUP = 2048


def _write_partition(root: Path, device_id: str, start: Any, hour_idx: np.ndarray, cols: dict[str, np.ndarray]) -> None:
    p = _device_path(root, device_id)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(parquet_bytes(start, hour_idx, cols))


def type_documents_level2(docs: list[Doc]) -> list[Doc]:
    """Every type sheet with the data-quality treatment (:data:`TREATMENT`)."""
    out = []
    for rel, text, row in docs:
        t = json.loads(text)
        t["data_quality"] = TREATMENT
        out.append((rel, _dump(t), row))
    return out


def relink_renamed(root: Path, manifest: list[dict[str, Any]], renamed: dict[str, str]) -> None:
    """Configuration sheets of other devices name a renamed asset by its new id (``fed_by``,
    ``feeds``, and their manifest refs): the renamed asset's downstream devices (whose refs
    name it) and its upstream one (whose ``feeds`` lists it)."""
    if not renamed:
        return
    ups = {m["refs"][1] for m in manifest if m["kind"] == "config" and m["doc_id"] in renamed and len(m["refs"]) > 1}
    for m in manifest:
        if m["kind"] != "config" or m["doc_id"] in renamed or m["doc_id"] in renamed.values():
            continue
        if not (set(m["refs"]) & set(renamed) or m["doc_id"] in ups):
            continue
        p = root / m["path"]
        cfg = json.loads(p.read_text(encoding="utf-8"))
        fed = cfg["config"].get("fed_by")
        cfg["config"]["fed_by"] = renamed.get(fed, fed)
        cfg["feeds"] = [renamed.get(x, x) for x in cfg.get("feeds", [])]
        p.write_text(_dump(cfg), encoding="utf-8")
        m["refs"] = [renamed.get(x, x) for x in m["refs"]]


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

    ids = ([config["renamed_from"]] if config.get("renamed_from") else []) + [device_id]
    grid: dict[str, np.ndarray] = {}
    for d in ids:
        p = _device_path(root, d)
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

    ids = ([config["renamed_from"]] if config.get("renamed_from") else []) + [device_id]
    seen = np.zeros(hours, dtype=int)
    flags: dict[str, np.ndarray] = {}
    for d in ids:
        p = _device_path(root, d)
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
