"""What checking every held-out draw under every installed backend costs, and which draws change.

Issue 33 ("one task set per seed"): a draw is accepted only when it is sound under every backend
its family declares that is installed (:func:`psab.generators.acceptance.judging_backends`).
Before, it was checked under the one backend the round was drawn for. For every family that
declares two or more backends, every level it offers and draws ``0 .. count-1`` of one seed,
this times

* ``before/<backend>``: the draw checked under that backend alone (``judges=(backend,)``, what
  main drew for a round judged by it), once per declared, installed backend;
* ``after``: the draw checked under all of them (what is drawn now, whatever the backend);

each configuration in a fresh process (so none reuses another's memoised networks) after one
untimed draw, each draw from a cold reference cache, and reports per family and level the mean seconds per draw
and which indices' task digests differ from each ``before`` draw, with the rejection that made
the difference (the new draw's rejection of the attempt the single judge accepted).

Usage: ``nice python benchmarks/bench_judges.py [--count N] [--seed S] [--family ID ...]
[--json out.json]`` (studies are left out unless named: their references take up to a minute).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _timed(family: str, seed: int, index: int, level: int, backend: str, judges: tuple[str, ...]) -> tuple[Any, float]:
    from psab.evaluators.cache import clear_reference_cache
    from psab.generators.acceptance import generate

    clear_reference_cache()
    start = time.perf_counter()
    try:
        draw: Any = generate(family, seed, index, backend, level, judges=judges)
    except Exception as exc:  # noqa: BLE001 - reported in the row
        draw = f"{type(exc).__name__}: {exc}"
    return draw, time.perf_counter() - start


def one(family: str, seed: int, count: int, level: int, judges: tuple[str, ...]) -> dict[str, Any]:
    """Draws ``0 .. count-1`` checked under ``judges``, in this process after an untimed draw (an
    index outside the timed ones) that pays the imports and per-process set-up."""
    _timed(family, seed, count, level, judges[0], judges)
    out = []
    for i in range(count):
        d, t = _timed(family, seed, i, level, judges[0], judges)
        out.append({"digest": d if isinstance(d, str) else d.task.digest, "seconds": t,
                    "attempts": 0 if isinstance(d, str) else d.attempts,
                    "rejections": [d] if isinstance(d, str) else list(d.rejections)})
    return {"draws": out}


def _isolated(family: str, seed: int, count: int, level: int, judges: tuple[str, ...]) -> dict[str, Any]:
    """:func:`one` in a fresh process: no configuration inherits another's memoised networks."""
    import os
    import subprocess

    cmd = [sys.executable, __file__, "--one", family, "--seed", str(seed), "--count", str(count), "--level", str(level),
           "--judges", ",".join(judges)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ, check=True)
    return json.loads(proc.stdout)


def measure(family: str, seed: int, count: int, level: int) -> dict[str, Any]:
    import psab
    from psab.generators.acceptance import judging_backends

    spec = psab.get_family(family)
    judges = judging_backends(spec)
    row: dict[str, Any] = {"family": family, "level": level, "judges": list(judges), "count": count}
    after = _isolated(family, seed, count, level, judges)["draws"]
    row["after_s_per_draw"] = round(sum(d["seconds"] for d in after) / count, 3)
    for b in judges:
        before = _isolated(family, seed, count, level, (b,))["draws"]
        row[f"before_{b}_s_per_draw"] = round(sum(d["seconds"] for d in before) / count, 3)
        # why: the new draw's rejection of the attempt the single judge accepted
        row[f"changed_vs_{b}"] = [{"index": i, "why": (new["rejections"][old["attempts"] - 1:old["attempts"]] or
                                                       new["rejections"][-1:] or [""])[0][:300]}
                                  for i, (old, new) in enumerate(zip(before, after, strict=True))
                                  if old["digest"] != new["digest"]]
    return row


def main(argv: list[str] | None = None) -> int:
    import psab

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20260803, help="default: the public validation seed")
    ap.add_argument("--family", action="append")
    ap.add_argument("--json")
    ap.add_argument("--one", metavar="FAMILY", help=argparse.SUPPRESS)
    ap.add_argument("--level", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--judges", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one, args.seed, args.count, args.level, tuple(args.judges.split(",")))))
        return 0
    rows = []
    for spec in psab.families():
        if len(spec.backends) < 2 or (args.family and spec.id not in args.family):
            continue
        if not args.family and spec.tier == "study":
            continue
        for level in spec.levels:
            row = measure(spec.id, args.seed, args.count, level)
            rows.append(row)
            others = {k: v for k, v in row.items() if k.startswith("before_")}
            changed = {k[len("changed_vs_"):]: [c["index"] for c in v] for k, v in row.items() if k.startswith("changed_vs_")}
            print(f"{spec.id}@{level}: after {row['after_s_per_draw']} s/draw, "
                  + ", ".join(f"{k[7:-11]} {v} s/draw" for k, v in others.items())
                  + f"; changed {changed}", file=sys.stderr, flush=True)
    print(json.dumps(rows, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
