"""Benchmark: ``psab.evaluate_many`` (issue 24, item 1) on a mixed batch of surrogate answers —
the reference, realistic mistakes and malformed documents for every family's public case
(:func:`batch_common.mixed_pairs`).

Run from the repository root::

    python benchmarks/bench_batch.py [--answers 10000] [--workers 2]

Measures, each from a cold reference cache:

* serial: a bare loop of ``psab.evaluate`` in this process (wall and CPU seconds);
* ``evaluate_many(workers=1)``: the batch path's per-answer overhead over that loop;
* ``evaluate_many(workers=N)``: the first call (pool start-up included) and a second call on
  the warm pool (whose workers hold the references), as wall time and as the busiest worker's
  CPU time — on a shared machine wall time measures the neighbours too, while
  ``serial CPU / busiest worker's CPU`` is the speed-up an idle N-core machine would show;
* peak resident memory (VmHWM) of the calling process and of every worker.

Every batch result is checked byte-identical (JSON) to the serial loop's.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from batch_common import mixed_pairs  # noqa: E402

from common import print_table  # noqa: E402


def _peak_rss_mb() -> float:
    """This process's peak resident set (VmHWM), in MB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _timed(fn):  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--answers", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="2,000 answers")
    args = ap.parse_args()
    n = 2_000 if args.quick else args.answers

    import psab
    from psab.evaluators import batch
    from psab.evaluators.cache import clear_reference_cache

    pairs = mixed_pairs(n)
    families = len({t.digest for t, _ in pairs})

    def serial() -> list:
        return [batch.evaluate_one(t, s, "surrogate") for t, s in pairs]

    clear_reference_cache()
    expected, serial_wall, serial_cpu = _timed(serial)
    clear_reference_cache()
    one, one_wall, one_cpu = _timed(lambda: psab.evaluate_many(pairs, workers=1))
    # warm serial (references cached), the steady state of a reward loop
    _, serial_warm_wall, serial_warm_cpu = _timed(serial)
    _, one_warm_wall, one_warm_cpu = _timed(lambda: psab.evaluate_many(pairs, workers=1))

    clear_reference_cache()
    cold, cold_wall, cold_caller_cpu = _timed(lambda: psab.evaluate_many(pairs, workers=args.workers))
    pool = batch._POOLS[(args.workers, "surrogate")]
    cold_cpu = list(pool.cpu_seconds)
    boot_cpu = pool.caller_cpu_seconds
    pool.cpu_seconds = [0.0] * args.workers
    warm, warm_wall, warm_caller_cpu = _timed(lambda: psab.evaluate_many(pairs, workers=args.workers))
    warm_cpu = list(pool.cpu_seconds)
    worker_rss = [ex.submit(_peak_rss_mb).result() for ex in pool.executors]
    caller_rss = _peak_rss_mb()
    batch.shutdown_workers()

    same = all(a.to_json() == b.to_json() == c.to_json() == d.to_json() for a, b, c, d in zip(expected, one, cold, warm))
    print(f"# {n} answers on {families} public cases, byte-identical to the serial loop: {same}")

    def per(x: float) -> str:
        return f"{1e3 * x / n:.3f}"

    rows = [
        ("serial evaluate loop, cold cache", f"{serial_wall:.2f}", f"{serial_cpu:.2f}", per(serial_cpu), "1.00"),
        ("evaluate_many(workers=1), cold", f"{one_wall:.2f}", f"{one_cpu:.2f}", per(one_cpu), f"{one_cpu / serial_cpu:.3f}"),
        ("serial evaluate loop, warm cache", f"{serial_warm_wall:.2f}", f"{serial_warm_cpu:.2f}", per(serial_warm_cpu), "1.00"),
        ("evaluate_many(workers=1), warm", f"{one_warm_wall:.2f}", f"{one_warm_cpu:.2f}", per(one_warm_cpu),
         f"{one_warm_cpu / serial_warm_cpu:.3f}"),
    ]
    print_table("Batch path overhead (seconds; ratio = CPU over the bare loop's, target ≤ 1.10)",
                ("what", "wall s", "CPU s", "CPU ms/answer", "CPU ratio"), rows)

    w = args.workers
    rows = [
        (f"{w} workers, first call (start-up, cold references)", f"{cold_wall:.2f}",
         " + ".join(f"{c:.2f}" for c in cold_cpu) + f" (+ caller {boot_cpu:.2f} while starting)",
         f"{serial_cpu / max(cold_cpu + [boot_cpu]):.2f}", f"{serial_wall / cold_wall:.2f}",
         f"{(sum(cold_cpu) + boot_cpu) / serial_cpu:.3f}"),
        (f"{w} workers, warm pool", f"{warm_wall:.2f}", " + ".join(f"{c:.2f}" for c in warm_cpu),
         f"{serial_warm_cpu / max(warm_cpu):.2f}", f"{serial_warm_wall / warm_wall:.2f}",
         f"{sum(warm_cpu) / serial_warm_cpu:.3f}"),
    ]
    print_table(f"{w} workers vs 1 (target speed-up ≥ 1.8; CPU speed-up = serial CPU / busiest worker's CPU)",
                ("what", "wall s", "worker CPU s", "CPU speed-up", "wall speed-up", "total CPU / serial CPU"), rows)
    print(f"\ncaller CPU while the warm pool ran: {warm_caller_cpu:.2f} s (dispatch and unpickling); "
          f"first call {cold_caller_cpu:.2f} s")
    print_table("Peak resident memory (VmHWM, MB; target: all processes < 1500)", ("process", "MB"),
                [("caller", f"{caller_rss:.0f}")] + [(f"worker {k}", f"{r:.0f}") for k, r in enumerate(worker_rss)]
                + [("total", f"{caller_rss + sum(worker_rss):.0f}")])


if __name__ == "__main__":
    main()
