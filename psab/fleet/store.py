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


_SHARD: tuple[World, Path] | None = None  # the world a forked writer inherits


def _write_devices(world: World, out: Path, indices: list[int]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    ts = pa.array((np.datetime64(world.start.replace(tzinfo=None), "s") + np.arange(world.hours) * np.timedelta64(3600, "s")),
                  type=pa.timestamp("s", tz="UTC"))
    for i in indices:
        d = world.devices[i]
        cols = world.telemetry[d.device_id]
        table = pa.table({"ts": ts, **{m: pa.array(v, type=pa.float64()) for m, v in cols.items()}})
        p = device_path(out, d.device_id)
        p.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, p, compression="zstd", row_group_size=ROW_GROUP, write_statistics=True)


def _write_shard(indices: list[int]) -> None:
    assert _SHARD is not None
    _write_devices(_SHARD[0], _SHARD[1], indices)


def write_world(world: World, out: Path, documents: list[tuple[str, str, dict[str, Any]]],
                workers: int = 1) -> dict[str, Any]:
    """Write telemetry, documents and world.json. ``workers > 1`` writes the device partitions
    from forked local processes (each file depends only on its device, so the bytes are the
    same either way)."""
    global _SHARD
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    n = len(world.devices)
    if workers > 1 and n > 1:
        import multiprocessing as mp

        _SHARD = (world, out)
        try:
            with mp.get_context("fork").Pool(workers) as pool:
                pool.map(_write_shard, [list(range(k, n, workers)) for k in range(workers)])
        finally:
            _SHARD = None
    else:
        _write_devices(world, out, list(range(n)))
    rows = n * world.hours
    values = world.hours * sum(len(world.telemetry[d.device_id]) for d in world.devices)
    docdir = out / "documents"
    manifest = []
    for rel, text, row in documents:
        p = docdir / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        manifest.append({"path": f"documents/{rel}", **row})
    (docdir / "manifest.jsonl").write_text("".join(json.dumps(m, sort_keys=True, ensure_ascii=False) + "\n" for m in manifest),
                                           encoding="utf-8")
    stats = statistics(world, rows, values, documents)
    info = {"size": world.size_name, "seed_commitment": hashlib.sha256(str(world.seed).encode()).hexdigest(),
            "start": world.ts(0), "hours": world.hours, "statistics": stats}
    (out / "world.json").write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return info


def statistics(world: World, rows: int, values: int, documents: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    """The world's statistics in the form of PowerBench Table 2 (plus documents by kind)."""
    used = {d.type_id for d in world.devices}
    kinds: dict[str, int] = {}
    for _, _, row in documents:
        kinds[row["kind"]] = kinds.get(row["kind"], 0) + 1
    return {
        "device_types": len(world.types), "device_types_instantiated": len(used), "device_instances": len(world.devices),
        "metrics_common": sum(1 for t in world.types for m in t.metrics if m.object_class == "common"),
        "metrics_special": sum(1 for t in world.types for m in t.metrics if m.object_class == "special"),
        "rules": sum(len(t.rules) for t in world.types), "telemetry_rows": rows, "metric_values": values,
        "documents": len(documents), "documents_operational": sum(v for k, v in kinds.items() if k != "type"),
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
