"""Held-out generation throughput: serial, 2 local workers, and a 2-worker Dask LocalCluster.

Usage::

    PYTHONPATH=$PWD python benchmarks/bench_generation.py [--family ID ...] [--repeats 3]
        [--target-seconds 6] [--validate]

Prints, per family and overall, the median variants per second of each mode and its ratio to
the serial baseline measured in the same run (modes interleaved, repeats medianed), and
checks that every mode drew byte-identical tasks.

What counts: each measurement runs in a fresh Python process and times the whole
``psab.generators.parallel.draw`` call — for the serial baseline that includes loading the
registry, the public cases and any solver on the first draw; for 2 local workers, starting
the fork server and the workers and their imports; for Dask, the jobs on a freshly started
``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)`` whose workers have not
imported psab yet, so their imports count too (starting the cluster itself does not: a
user's cluster is already running). Only the interpreter start and ``import psab`` itself
are left out, equally for every mode.

The machine is shared: the load average during the run is printed with the table, with the
CPU time the draws themselves took (parent for serial, the workers' own for the others) per
variant, and the cores the run actually obtained (draw CPU time / wall time). When other
processes hold the cores, the ratios measure the scheduler's share, not psab: compare the
CPU ms per variant (the parallel work's own cost) and the cores used.

The per-family workload is calibrated to take about ``--target-seconds`` serially (at least
16 variants): booting a pool that is warm for a family (the fork server importing psab and,
for an optimize family, Pyomo and HiGHS, and solving its public case once) takes 0.4-2 s, so
a handful of cheap draws measures start-up, not throughput.
``--validate`` times ``validate-generators``' work instead (each accepted case re-solved from
a cold cache and re-evaluated).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(args: argparse.Namespace) -> None:
    """One measurement, in this fresh process; prints a JSON line."""
    import psab  # noqa: F401 - the one import left out of the timing
    from psab.generators.parallel import draw

    families = args.family
    started, cpu = time.perf_counter(), time.process_time()
    outcomes = draw(families, range(args.variants), args.seed, validate=args.validate,
                    workers=args.workers, dask=args.dask)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    h = hashlib.sha256()
    errors = 0
    for o in outcomes:
        h.update(o.task.to_json().encode() if o.task is not None else b"-")
        errors += o.error is not None
    draw_cpu = sum(o.cpu_seconds for o in outcomes) if args.workers > 1 or args.dask else cpu
    print(json.dumps({"seconds": elapsed, "cpu": draw_cpu, "n": len(outcomes), "errors": errors, "digest": h.hexdigest()}))


def measure(families: list[str], variants: int, mode: str, args: argparse.Namespace, dask_address: str | None) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--seed", str(args.seed),
           "--variants", str(variants), *[x for f in families for x in ("--family", f)]]
    if args.validate:
        cmd.append("--validate")
    if mode == "2 workers":
        cmd += ["--workers", "2"]
    elif mode == "dask 2 workers":
        cmd += ["--dask", dask_address]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise SystemExit(f"measurement failed ({mode}, {families}):\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def calibrate(family: str, target: float, seed: int, validate: bool) -> int:
    """Variants that take about ``target`` seconds serially (after warm-up), at least 16."""
    from psab.generators.parallel import draw

    draw([family], range(1000, 1002), seed, validate=validate)  # warm: imports, public case, solver
    started = time.perf_counter()
    draw([family], range(1002, 1010), seed, validate=validate)
    per = (time.perf_counter() - started) / 8
    return max(16, min(5000, math.ceil(target / max(per, 1e-6))))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--family", action="append", help="family ids (default: every registered family)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--target-seconds", type=float, default=6.0, help="serial time per family's workload")
    p.add_argument("--seed", type=int, default=20261130)
    p.add_argument("--validate", action="store_true", help="time validation work (re-solve and re-evaluate)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--variants", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--dask", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args)
        return

    sys.path.insert(0, str(ROOT))
    from distributed import LocalCluster

    import psab

    families = args.family or [s.id for s in psab.families()]
    workloads = {f: calibrate(f, args.target_seconds, args.seed, args.validate) for f in families}
    modes = ("serial", "2 workers", "dask 2 workers")
    rows = [(f, [f], workloads[f]) for f in families]
    if len(families) > 1:
        # overall: every family at once with one common count per family (what draw() takes);
        # the harmonic mean of the calibrated workloads makes the whole run again take about
        # --target-seconds per family serially (an arithmetic mean would hand a 0.3 s/variant
        # family the thousands of variants a 3 ms one needs: minutes instead of seconds)
        rows.append(("overall", families, None))
    loads = [os.getloadavg()[0]]
    times: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    digests: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    for _ in range(args.repeats):
        for name, fams, variants in rows:
            n = variants if variants is not None else max(16, round(statistics.harmonic_mean([workloads[f] for f in fams])))
            for mode in modes:
                if mode.startswith("dask"):
                    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
                        r = measure(fams, n, mode, args, cluster.scheduler_address)
                else:
                    r = measure(fams, n, mode, args, None)
                # a trail on stderr, so an interrupted run still shows what it measured
                print(f"  {name} [{mode}]: {n} variants in {r['seconds']:.2f} s", file=sys.stderr, flush=True)
                if r["errors"]:
                    raise SystemExit(f"{r['errors']} draws failed ({name}, {mode})")
                times.setdefault((name, mode), []).append(r["seconds"])
                cpus.setdefault((name, mode), []).append(r["cpu"])
                digests.setdefault(name, set()).add(r["digest"])
                counts[name] = r["n"]
        loads.append(os.getloadavg()[0])

    what = "validation (draw, accept, re-solve, re-evaluate)" if args.validate else "generation (draw and accept)"
    print(f"held-out {what}: variants per second, median of {args.repeats} interleaved runs, fresh processes")
    print(f"machine: {os.cpu_count()} cores, 1-min load average {min(loads):.2f}–{max(loads):.2f} during the run\n")
    header = ("family", "variants", "serial v/s", "2 workers v/s", "×", "dask 2w v/s", "×",
              "CPU ms/variant s|w|d", "cores used s|w|d", "identical")
    table = []
    for name, _, _ in rows:
        n = counts[name]
        wall = {m: statistics.median(times[(name, m)]) for m in modes}
        cpu = {m: statistics.median(cpus[(name, m)]) for m in modes}
        serial, local, dask = (n / wall[m] for m in modes)
        table.append((name, n, f"{serial:.1f}", f"{local:.1f}", f"{local / serial:.2f}",
                      f"{dask:.1f}", f"{dask / serial:.2f}",
                      "|".join(f"{1000 * cpu[m] / n:.1f}" for m in modes),
                      "|".join(f"{cpu[m] / wall[m]:.2f}" for m in modes),
                      "yes" if len(digests[name]) == 1 else "NO"))
    widths = [max(len(str(r[i])) for r in [header, *table]) for i in range(len(header))]
    for i, r in enumerate([header, *table]):
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
    if any(len(d) != 1 for d in digests.values()):
        raise SystemExit("modes drew different tasks")


if __name__ == "__main__":
    main()
