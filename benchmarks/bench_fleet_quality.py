"""Issue 36 measured: the built-in agents on every fleet family at level 1 (the visible-corpus
study, PowerBench Table 9 form) and at level 2 (the data as utilities keep it), and how each
defect class moves the weak and the quality-blind baselines (a benchmark, not a timed test).

Usage::

    PYTHONPATH=$PWD python benchmarks/bench_fleet_quality.py [--size full] [--seed 7] [--per-family 10]
        [--sizes 50,200,all] [--out DIR]

Builds the level-1 and level-2 worlds of the seed (timed, two workers), writes their questions
with the causal family (``world_seed``), runs ``psab run --tier fleet`` with
``fleet-reference``, ``fleet-weak`` and ``fleet-quality-blind`` (at level 2 also
``fleet-quality-blind,aware=1``, the same reading with the treatment applied), and prints the
fleet tables (JA, FA, RER, AER, calls) and the joint accuracy per defect class. The machine is
shared: the load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path


def _records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines() if x.strip()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="full", choices=("tiny", "test", "full"))
    ap.add_argument("--seed", default="7")
    ap.add_argument("--per-family", type=int, default=10)
    ap.add_argument("--sizes", default="50,200,all", help="visible devices of the level-1 runs; 'all' for every device")
    ap.add_argument("--out", help="keep the worlds and runs here (default: a temporary directory, removed)")
    args = ap.parse_args()

    from psab.fleet import questions, store
    from psab.fleet.index import ensure_index
    from psab.reports.fleet import fleet_rows, rows_markdown
    from psab.runner import fleet
    from psab.runner.agents import parse_agent_arg

    base = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench-fleet-quality-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        dirs = {}
        for level in (1, 2):
            world = base / f"world{level}"
            if not (world / "world.json").is_file():
                t = time.perf_counter()
                info = store.build_world(args.seed, args.size, world, workers=2, level=level)
                print(f"built the level-{level} {args.size} world in {time.perf_counter() - t:.1f} s "
                      f"(load {os.getloadavg()[0]:.1f})" + (f"; defects {info['statistics']['data_quality_defects']}"
                                                            if level == 2 else ""))
                ensure_index(world)
            qdir, kdir = base / f"q{level}", base / f"q{level}-keys"
            if not (qdir / "questions.jsonl").is_file():
                t = time.perf_counter()
                qs, keys = questions.generate(world, args.per_family, world_seed=args.seed)
                questions.write(qs, keys, qdir, kdir)
                print(f"level {level}: {len(qs)} questions in {time.perf_counter() - t:.1f} s")
            dirs[level] = (world, qdir, kdir)
        agents1 = [parse_agent_arg(a) for a in ("builtin:fleet-reference", "builtin:fleet-weak", "builtin:fleet-quality-blind")]
        agents2 = agents1 + [parse_agent_arg("blind-aware=builtin:fleet-quality-blind,aware=1")]
        runs = [(1, s, agents1) for s in args.sizes.split(",")] + [(2, "all", agents2)]
        by_level: dict[int, list[dict]] = {1: [], 2: []}
        for level, size, agents in runs:
            world, qdir, kdir = dirs[level]
            out = base / f"run-l{level}-{size}"
            shutil.rmtree(out, ignore_errors=True)
            t = time.perf_counter()
            rep = fleet.start(fleet.FleetOptions(agents=agents, world=str(world), questions=str(qdir), keys=str(kdir),
                                                 corpus_devices=None if size == "all" else int(size)),
                              out=out, progress="none")
            el = time.perf_counter() - t
            recs = _records(out)
            by_level[level] += recs
            print(f"\nlevel {level}, N={size}: {rep.ran} cases in {el:.1f} s (load {os.getloadavg()[0]:.1f})\n")
            names = [a.name for a in agents]
            print(rows_markdown(fleet_rows(recs, names, resamples=200)))
        # the corpus-size study (level 1, all families pooled)
        print("\nlevel 1, visible corpus (all families pooled)\n")
        rows = [r for r in fleet_rows(by_level[1], [a.name for a in agents1], group="corpus_devices", resamples=200)
                if r["family"] == "ALL"]
        print(rows_markdown(rows, group="corpus_devices"))
        # joint accuracy per defect class at level 2
        keys = {json.loads(x)["question_id"]: json.loads(x) for x in (dirs[2][2] / "keys.jsonl").read_text().splitlines()}
        per: dict[tuple[str, str], list[bool]] = {}
        for r in by_level[2]:
            k = keys.get(r["task_id"], {})
            res = (r["attempts"][-1].get("result") or {}).get("fleet") or {}
            for c in k.get("defects", []) or ["(none)"]:
                per.setdefault((r["agent"], c), []).append(bool(res.get("joint")))
        classes = sorted({c for _, c in per})
        agents = [a.name for a in agents2]
        print("\nlevel 2: joint accuracy by defect class in the evidence (% of n)\n")
        print("| agent | " + " | ".join(classes) + " |")
        print("|---|" + "---:|" * len(classes))
        for a in agents:
            cells = []
            for c in classes:
                v = per.get((a, c), [])
                cells.append(f"{100 * sum(v) / len(v):.0f} (n={len(v)})" if v else "-")
            print(f"| {a} | " + " | ".join(cells) + " |")
    finally:
        if not args.out:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
