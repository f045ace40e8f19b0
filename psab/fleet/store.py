"""Storage: telemetry in Parquet, one partition per device, read through DuckDB; documents as
files with a manifest.

Layout of a world directory::

    world.json                      size, seed commitment, statistics (PowerBench Table 2 form)
    telemetry/device_id=<ID>/part-0.parquet   ts (UTC timestamp) + one float64 column per metric
    documents/<kind>/<doc_id>.{json,md}
    documents/manifest.jsonl        one row per document: path, kind, doc_id, device_ids, time, refs

A partition holds one device (each type has its own columns), so a device's window is one file
opened and its row groups pruned by the ``ts`` statistics. Parquet bytes are deterministic for
a given pyarrow version (no wall-clock metadata is written).

pyarrow and duckdb are the ``fleet`` extra; they are imported inside the functions.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from psab.fleet.world import World

ROW_GROUP = 2048


def device_path(root: Path, device_id: str) -> Path:
    return Path(root) / "telemetry" / f"device_id={device_id}" / "part-0.parquet"


def parquet_bytes(world: World, device_id: str) -> bytes:
    """One device's partition file: ``ts`` (UTC) and one float64 column per metric."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ts = pa.array((np.datetime64(world.start.replace(tzinfo=None), "s") + np.arange(world.hours) * np.timedelta64(3600, "s")),
                  type=pa.timestamp("s", tz="UTC"))
    cols = world.telemetry[device_id]
    table = pa.table({"ts": ts, **{m: pa.array(v, type=pa.float64()) for m, v in cols.items()}})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", row_group_size=ROW_GROUP, write_statistics=True)
    return sink.getvalue().to_pybytes()


Doc = tuple[str, str, dict[str, Any]]


def device_shard(world: World, indices: list[int], level: int = 1) -> list[tuple[Any, ...]]:
    """Everything one shard of devices contributes, computed from ``world`` (which must hold
    their telemetry): (index, device id, Parquet bytes, configuration sheet, operational
    documents, metric values, maintenance actions applied). At ``level`` 2 the device is turned
    into the data as utilities keep it (:func:`psab.fleet.quality.device_level2`) before
    anything is encoded, and an eighth item carries its other partition, configuration sheet,
    defect counts and rename."""
    from psab.fleet import documents

    out: list[tuple[Any, ...]] = []
    for i in indices:
        d = world.devices[i]
        config, docs = documents.config_document(world, d), documents.device_documents(world, d)
        values = world.hours * len(world.telemetry[d.device_id])
        actions = len(world.maintenance_actions.get(d.device_id, []))
        if level == 1:
            out.append((i, d.device_id, parquet_bytes(world, d.device_id), config, docs, values, actions))
            continue
        from psab.fleet import quality

        lv = quality.device_level2(world.seed, i, d, world.type_of(d), world.telemetry[d.device_id], world.start,
                                   world.hours, config, docs)
        parts = [(dev, quality.parquet_bytes(world.start, idx, cols)) for dev, idx, cols in lv["parts"]]
        out.append((i, d.device_id, parts[0][1], lv["configs"][0], lv["docs"], values, actions,
                    {"partitions": parts[1:], "configs": lv["configs"][1:], "counts": lv["counts"],
                     "renamed": lv["renamed"]}))
    return out


def shard_job(seed: str, size_name: str, indices: list[int], level: int = 1) -> list[tuple[Any, ...]]:
    """A shard computed from the seed alone (local workers and Dask workers run this): the
    shared context is rebuilt (and cached) in the worker, then only these devices' telemetry."""
    from psab.fleet import world as world_mod

    w = world_mod.build(seed, size_name, indices)
    res = device_shard(w, indices, level)
    for i in indices:  # the shard's series are no longer needed once serialized
        w.telemetry.pop(w.devices[i].device_id, None)
    return res


#: Devices per shard: small enough that results stream back in many pieces (bounded memory),
#: large enough that each job outweighs its scheduling.
SHARD_DEVICES = 16


def _shards(n: int) -> list[list[int]]:
    return [list(range(k, min(n, k + SHARD_DEVICES))) for k in range(0, n, SHARD_DEVICES)]


class _Writer:
    """Writes shard results as they arrive and assembles the manifest in device order, so the
    bytes do not depend on which worker finished first."""

    def __init__(self, out: Path, n: int) -> None:
        self.out = out
        self.docdir = out / "documents"
        self.configs: list[dict[str, Any] | None] = [None] * n
        self.rows: list[list[dict[str, Any]] | None] = [None] * n
        self.values = 0
        self.actions = 0
        #: level 2 (psab.fleet.quality): the renamed assets' new configuration sheets after
        #: their old ones, the defect counts, the renames
        self.extra_configs: list[list[dict[str, Any]]] = [[] for _ in range(n)]
        self.counts: dict[str, int] = {}
        self.renamed: dict[str, str] = {}

    def doc(self, rel: str, text: str, row: dict[str, Any]) -> dict[str, Any]:
        p = self.docdir / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        return {"path": f"documents/{rel}", **row}

    def add(self, results: list[tuple[Any, ...]]) -> None:
        for i, device_id, data, config, docs, values, actions, *level2 in results:
            p = device_path(self.out, device_id)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
            self.configs[i] = self.doc(*config)
            self.rows[i] = [self.doc(*x) for x in docs]
            self.values += values
            self.actions += actions
            for extra in level2:
                for dev, part in extra["partitions"]:
                    q = device_path(self.out, dev)
                    q.parent.mkdir(parents=True, exist_ok=True)
                    q.write_bytes(part)
                self.extra_configs[i] = [self.doc(*x) for x in extra["configs"]]
                for k, v in extra["counts"].items():
                    self.counts[k] = self.counts.get(k, 0) + v
                if extra["renamed"]:
                    self.renamed[extra["renamed"][0]] = extra["renamed"][1]


def _finish(world: World, out: Path, type_docs: list[Doc], wr: _Writer, hot_spots: list[np.ndarray],
            level: int = 1) -> dict[str, Any]:
    if level == 2:
        from psab.fleet import quality

        type_docs = quality.type_documents_level2(type_docs)
    manifest = [wr.doc(*x) for x in type_docs]
    for c, extra in zip(wr.configs, wr.extra_configs, strict=True):
        manifest += ([c] if c is not None else []) + extra
    if level == 2:
        quality.relink_renamed(out, manifest, wr.renamed)
    for rows in wr.rows:
        manifest += rows or []
    (wr.docdir / "manifest.jsonl").write_text("".join(json.dumps(m, sort_keys=True, ensure_ascii=False) + "\n" for m in manifest),
                                              encoding="utf-8")
    kinds: dict[str, int] = {}
    for m in manifest:
        kinds[m["kind"]] = kinds.get(m["kind"], 0) + 1
    stats = _statistics(world, len(world.devices) * world.hours, wr.values, kinds)
    stats["maintenance_actions_applied"] = wr.actions
    stats["operator_load_transfers"] = sum(len(v) for v in world.operator_actions.values())
    # the operator response keeps every unit within IEC 60076-7 Table 4's long-time emergency limit
    stats["transformer_hot_spot_max_c"] = max((float(np.max(np.round(h, 4))) for h in hot_spots), default=None)
    info = {"size": world.size_name, "seed_commitment": hashlib.sha256(str(world.seed).encode()).hexdigest(),
            "start": world.ts(0), "hours": world.hours, "statistics": stats}
    if level == 2:  # absent at level 1: world.json as it was before levels
        from psab.fleet.quality import DEFECTS

        info["level"] = 2
        stats["data_quality_defects"] = {k: wr.counts.get(k, 0) for k in DEFECTS}
    (out / "world.json").write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return info


def write_world(world: World, out: Path, documents: list[tuple[str, str, dict[str, Any]]],
                workers: int = 1) -> dict[str, Any]:
    """Write an in-memory world (every device's telemetry computed) and its documents
    (:func:`psab.fleet.documents.generate`): the same bytes as :func:`build_world` for the same
    seed and size. ``workers`` is accepted for compatibility; the series are already computed."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    n = len(world.devices)
    by_dev: dict[str, list[Doc]] = {}
    configs: dict[str, Doc] = {}
    type_docs: list[Doc] = []
    for rel, text, row in documents:
        if row["kind"] == "type":
            type_docs.append((rel, text, row))
        elif row["kind"] == "config":
            configs[row["doc_id"]] = (rel, text, row)
        else:
            by_dev.setdefault(row["device_ids"][0], []).append((rel, text, row))
    wr = _Writer(out, n)
    wr.add([(i, d.device_id, parquet_bytes(world, d.device_id), configs[d.device_id], by_dev.get(d.device_id, []),
             world.hours * len(world.telemetry[d.device_id]), len(world.maintenance_actions.get(d.device_id, [])))
            for i, d in enumerate(world.devices)])
    hot = [world.telemetry[d.device_id]["hot_spot_c"] for d in world.devices if d.device_class == "transformer"]
    return _finish(world, out, type_docs, wr, hot)


def build_world(seed: str, size_name: str, out: Path, workers: int = 1, dask: Any = None,
                progress: Any = None, level: int = 1) -> dict[str, Any]:
    """Generate and write a world sharded by device: in this process (``workers=1``), on
    ``workers`` forked local processes, or on a Dask cluster (``dask``: a scheduler address or
    a ``distributed.Client``). Every shard is a pure function of (seed, size, device indices)
    and the manifest is assembled in device order, so the bytes are the same either way.
    ``level=2`` then turns the stored world into the data as utilities keep it
    (:mod:`psab.fleet.quality`, applied in each shard before anything is written); level 1 is
    the world as computed."""
    from psab.fleet import documents
    from psab.fleet import world as world_mod

    if level not in (1, 2):
        raise ValueError(f"level must be 1 or 2, not {level!r}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    w = world_mod.build(seed, size_name, indices=[])  # the shared context, no device series yet
    n = len(w.devices)
    shards = _shards(n)
    wr = _Writer(out, n)
    if dask is not None:
        from psab.generators.parallel import dask_client

        with dask_client(dask) as client:  # says how to install dask.distributed when it is missing
            import time as _time

            from distributed import as_completed

            stamp = f"{_time.time_ns():x}"
            futures = [client.submit(shard_job, str(seed), size_name, sh, level, key=f"psab-fleet-{sh[0]}-{stamp}",
                                     pure=False) for sh in shards]
            for fut in as_completed(futures):
                wr.add(fut.result())
                fut.release()
    elif workers > 1 and n > 1:
        import multiprocessing as mp

        # fork after the context is built, so every worker inherits it instead of recomputing
        with mp.get_context("fork").Pool(workers) as pool:
            for res in pool.imap_unordered(_shard_local, [(str(seed), size_name, sh, level) for sh in shards]):
                wr.add(res)
    else:
        for sh in shards:
            wr.add(shard_job(str(seed), size_name, sh, level))
    ctx = world_mod.context(seed, size_name)
    hot = [ctx.pre[d.device_id]["hot_spot_c"] for d in w.devices if d.device_class == "transformer"]
    return _finish(w, out, documents.type_documents(w), wr, hot, level)


def _shard_local(args: tuple[str, str, list[int], int]) -> list[tuple[Any, ...]]:
    return shard_job(*args)


def statistics(world: World, rows: int, values: int, documents: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    """The world's statistics in the form of PowerBench Table 2 (plus documents by kind)."""
    kinds: dict[str, int] = {}
    for _, _, row in documents:
        kinds[row["kind"]] = kinds.get(row["kind"], 0) + 1
    return _statistics(world, rows, values, kinds)


def _statistics(world: World, rows: int, values: int, kinds: dict[str, int]) -> dict[str, Any]:
    used = {d.type_id for d in world.devices}
    return {
        "device_types": len(world.types), "device_types_instantiated": len(used), "device_instances": len(world.devices),
        "metrics_common": sum(1 for t in world.types for m in t.metrics if m.object_class == "common"),
        "metrics_special": sum(1 for t in world.types for m in t.metrics if m.object_class == "special"),
        "rules": sum(len(t.rules) for t in world.types),
        "rules_derived": sum(1 for t in world.types for r in t.rules if r.derive),
        "rules_consecutive_point": sum(1 for t in world.types for r in t.rules if r.consecutive_points > 1),
        "telemetry_rows": rows, "metric_values": values,
        "documents": sum(kinds.values()), "documents_operational": sum(v for k, v in kinds.items() if k != "type"),
        "documents_by_kind": dict(sorted(kinds.items())),
    }


def read_manifest(root: Path) -> list[dict[str, Any]]:
    text = (Path(root) / "documents" / "manifest.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def read_window(root: Path, device_id: str, start: str | None = None, end: str | None = None,
                columns: list[str] | None = None, limit: int | None = None, con: Any = None) -> dict[str, np.ndarray]:
    """One device's telemetry between ISO times ``start`` (inclusive) and ``end`` (exclusive),
    through DuckDB. Returns numpy columns; ``ts`` as ISO strings. Unknown device → KeyError."""
    import duckdb

    p = device_path(root, device_id)
    if not p.is_file():
        raise KeyError(device_id)
    cols = "*" if not columns else ", ".join(['"ts"'] + [f'"{c}"' for c in columns if c != "ts"])
    where, params = [], []
    if start:
        where.append("ts >= CAST(? AS TIMESTAMPTZ)")
        params.append(start)
    if end:
        where.append("ts < CAST(? AS TIMESTAMPTZ)")
        params.append(end)
    sql = f"SELECT {cols} FROM read_parquet(?)" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY ts"
    if limit:
        sql += f" LIMIT {int(limit)}"
    c = con or duckdb.connect()
    c.execute("SET TimeZone='UTC'")
    rel = c.execute(sql, [str(p), *params])
    names = [d[0] for d in rel.description]
    data = rel.fetchnumpy()
    out = {n: np.asarray(data[n]) for n in names}
    if "ts" in out:
        out["ts"] = np.array([np.datetime_as_string(np.datetime64(x, "s")) + "Z" for x in out["ts"].astype("datetime64[s]")])
    return out


def read_device(root: Path, device_id: str) -> dict[str, np.ndarray]:
    """A device's whole series with pyarrow (the question generator's bulk path)."""
    import pyarrow.parquet as pq

    t = pq.read_table(device_path(root, device_id))
    return {n: t.column(n).to_numpy() for n in t.column_names if n != "ts"}


def tree_digest(root: Path) -> str:
    """sha256 over every file's relative path and bytes (the byte-identity check)."""
    h = hashlib.sha256()
    for p in sorted(Path(root).rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode())
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()
