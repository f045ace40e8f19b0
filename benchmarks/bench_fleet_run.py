"""Fleet runs: the visible-corpus study (PowerBench Table 9) with the built-in agents, and the
per-case cost of a fleet run (a benchmark, not a timed test).

Usage::

    PYTHONPATH=$PWD python benchmarks/bench_fleet_run.py [--world DIR] [--size full] [--per-family 10]
        [--sizes 50,200,all] [--agents builtin:fleet-reference,builtin:fleet-weak] [--out DIR]

Without ``--world`` a world of ``--size`` is built from ``--seed`` into a temporary directory
(full: ~30 s here). The same questions are run at each visible-corpus size by ``psab run --tier
fleet``; the script prints the Table 9 rows (all families pooled) and the mean wall time of an
attempt per agent. The machine is shared (2 cores, several sessions): the load average is
printed with the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world", help="a built world (default: build one)")
    ap.add_argument("--size", default="full", choices=("tiny", "test", "full"))
    ap.add_argument("--seed", default="7")
    ap.add_argument("--per-family", type=int, default=10)
    ap.add_argument("--sizes", default="50,200,all", help="visible devices per run; 'all' for the whole corpus")
    ap.add_argument("--agents", default="builtin:fleet-reference,builtin:fleet-weak")
    ap.add_argument("--out", help="keep the runs here (default: a temporary directory, removed)")
    args = ap.parse_args()

    from psab.fleet import questions
    from psab.fleet.cli import build_world
    from psab.reports.fleet import fleet_rows, rows_markdown
    from psab.runner import fleet
    from psab.runner.agents import parse_agent_arg

    base = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench-fleet-run-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        world = Path(args.world) if args.world else base / "world"
        if not args.world:
            t = time.perf_counter()
            build_world(args.seed, args.size, world, workers=2)
            print(f"built the {args.size} world in {time.perf_counter() - t:.1f} s")
        qdir, kdir = base / "q", base / "q-keys"
        if not (qdir / "questions.jsonl").is_file():
            qs, keys = questions.generate(world, args.per_family)
            questions.write(qs, keys, qdir, kdir)
        agents = [parse_agent_arg(a) for a in args.agents.split(",")]
        records = []
        walls: dict[str, list[float]] = {}
        for size in args.sizes.split(","):
            n = None if size == "all" else int(size)
            out = base / f"run-{size}"
            shutil.rmtree(out, ignore_errors=True)
            t = time.perf_counter()
            rep = fleet.start(fleet.FleetOptions(agents=agents, world=str(world), questions=str(qdir), keys=str(kdir),
                                                 corpus_devices=n), out=out, progress="none")
            elapsed = time.perf_counter() - t
            recs = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines() if x.strip()]
            records += recs
            for r in recs:
                walls.setdefault(r["agent"], []).append(r["attempts"][-1]["wall_s"])
            print(f"N={size}: {rep.ran} cases in {elapsed:.1f} s ({elapsed / max(rep.ran, 1):.2f} s a case)")
        rows = [r for r in fleet_rows(records, [a.name for a in agents], group="corpus_devices")
                if r["family"] == "ALL"]
        print()
        print(rows_markdown(rows, group="corpus_devices"))
        print()
        for agent, w in walls.items():
            print(f"{agent}: attempt wall time mean {statistics.mean(w):.2f} s, median {statistics.median(w):.2f} s")
        print(f"load average {os.getloadavg()[0]:.1f}")
    finally:
        if not args.out:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
