"""Fleet tier timings against issue 22's targets (benchmarks, not timed tests).

Usage::

    PYTHONPATH=$PWD python benchmarks/bench_fleet.py [--full] [--out DIR] [--repeats 5]

Measures, in this process:

- building the test-size world (catalogue → telemetry → documents → Parquet and files),
  median of ``--repeats`` (target < 5 s);
- with ``--full``, building the full world once with ``--workers`` local processes (default 2),
  with peak RSS of this process and of its largest worker (target < 10 min, < 4 GB);
- reading one device's 500-row window through DuckDB (target < 50 ms): the median over
  ``--repeats`` reads of different devices and offsets with a reused connection, and the
  first read on a fresh connection;
- grading 300 answers (100 per family; answers are the keys with every third one perturbed)
  without and with the bootstrap intervals, and through the kernel's results
  (:mod:`psab.fleet.evaluate`, what ``psab fleet grade`` runs) (target < 1 s).

The machine is shared (2 cores, several sessions): the load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path


def _build(size: str, out: Path, seed: str = "bench", workers: int = 1) -> dict:
    from psab.fleet import world
    from psab.fleet.cli import build_world

    world._CONTEXTS.clear()  # every build computes its shared context, as a fresh process would
    return build_world(seed, size, out, workers)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true", help="also build the full world once")
    ap.add_argument("--full-dir", metavar="DIR", help="an already built full world to read windows from")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2, help="local processes for the full build (default 2)")
    args = ap.parse_args()
    print(f"load average: {os.getloadavg()}")
    tmp = Path(tempfile.mkdtemp(prefix="bench_fleet_"))
    times = []
    for i in range(args.repeats):
        t = time.perf_counter()
        info = _build("test", tmp / f"test{i}")
        times.append(time.perf_counter() - t)
    print(f"test world build: median {statistics.median(times):.2f} s (min {min(times):.2f}) "
          f"[{info['statistics']['device_instances']} devices, {info['statistics']['telemetry_rows']} rows]")
    world_dir = tmp / "test0"
    if args.full:
        t = time.perf_counter()
        info = _build("full", tmp / "full", workers=args.workers)
        print(f"full world build ({args.workers} workers): {time.perf_counter() - t:.1f} s, peak RSS "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB (largest worker "
              f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB), statistics {info['statistics']}")
        world_dir = tmp / "full"
    if args.full_dir:
        world_dir = Path(args.full_dir)
    import duckdb

    from psab.fleet import store

    devices = sorted(p.name.split("=", 1)[1] for p in (world_dir / "telemetry").iterdir())
    hours = __import__("json").loads((world_dir / "world.json").read_text())["hours"]
    t = time.perf_counter()
    store.read_window(world_dir, devices[0], limit=500)
    first = time.perf_counter() - t
    con = duckdb.connect()
    reads = []
    for i in range(max(args.repeats, 20)):
        dev = devices[(i * 7) % len(devices)]
        off = (i * 997) % max(1, hours - 500)
        x = store.read_window(world_dir, dev, limit=None, con=con)  # warm the file cache equally
        s = x["ts"][off]
        e = x["ts"][min(off + 500, len(x["ts"]) - 1)]
        t = time.perf_counter()
        w = store.read_window(world_dir, dev, s, e, con=con)
        reads.append(time.perf_counter() - t)
        assert len(w["ts"]) <= 500
    print(f"500-row window read ({world_dir.name}): median {statistics.median(reads) * 1000:.1f} ms, "
          f"max {max(reads) * 1000:.1f} ms; first read with a fresh connection {first * 1000:.0f} ms")
    from psab.fleet import grading, questions

    qs, keys = questions.generate(tmp / "test0", 10)
    keys300 = [dict(k, question_id=f"{k['question_id']}-{j}") for j in range(10) for k in keys][:300]
    answers = []
    for i, k in enumerate(keys300):
        a = dict(k["answer"])
        if i % 3 == 0:
            a[next(iter(a))] = "wrong"
        answers.append({"question_id": k["question_id"], "answer": a, "evidence": k["required_evidence"]})
    t = time.perf_counter()
    rows = [grading.grade_one(k, a) for k, a in zip(keys300, answers, strict=True)]
    plain = time.perf_counter() - t
    t = time.perf_counter()
    res = grading.grade(keys300, answers)
    full = time.perf_counter() - t
    from psab.fleet import evaluate

    t = time.perf_counter()
    results = evaluate.grade_results(keys300, answers)
    grading.aggregate([evaluate.row_of(r) for r in results])
    kernel = time.perf_counter() - t
    print(f"grading {len(rows)} answers: {plain * 1000:.0f} ms per-answer scoring, {full * 1000:.0f} ms with "
          f"bootstrap intervals (2000 resamples × 5 metrics × 3 families), {kernel * 1000:.0f} ms through the "
          f"kernel's results with the intervals; macro JA {res['macro_joint_accuracy']:.3f}")


if __name__ == "__main__":
    main()
