"""The difficulty table (issue 27): per family and difficulty level, what an instance costs and
how the built-in baselines score on it.

For each family, level and backend (surrogate unless ``--backend``), ``--draws`` held-out draws
under a benchmark seed: the reference solve time (median, cache cleared before each solve), the
instance size (numbers in ``public_inputs``), and the mean score of three baselines —
``reference`` (must be 1), ``mutant`` (the built-in agent's one realistic mistake, as in
``psab run``) and ``naive`` (``FamilySpec.naive_answer``: the guided text's simplest reading,
``-`` where a family has none). A level that makes the engineering harder shows as a lower
naive (and mutant) score at the same reference score.

    python benchmarks/bench_difficulty.py [--family ID ...] [--draws N] [--backend B] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psab  # noqa: E402
from psab.evaluators.cache import clear_reference_cache  # noqa: E402
from psab.mutations import realistic_mistake  # noqa: E402

from common import print_table  # noqa: E402

SEED = "difficulty-table-2026"


def numbers_in(value: Any) -> int:
    """How many numbers an instance holds (its size as an engineer would read it)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int | float):
        return 1
    if isinstance(value, dict):
        return sum(numbers_in(v) for v in value.values())
    if isinstance(value, list):
        return sum(numbers_in(v) for v in value)
    return 0


def measure(spec: psab.registry.FamilySpec, level: int, backend: str, draws: int) -> dict[str, Any]:
    solve_s, sizes, scores = [], [], {"reference": [], "mutant": [], "naive": []}
    gen_s = []
    for index in range(draws):
        t0 = time.perf_counter()
        task = psab.generate(spec.id, SEED, index, backend=backend, level=level)
        gen_s.append(time.perf_counter() - t0)
        sizes.append(numbers_in(task.public_inputs))
        clear_reference_cache()
        t0 = time.perf_counter()
        ref = psab.solve(task, backend)
        solve_s.append(time.perf_counter() - t0)
        scores["reference"].append(psab.evaluate(task, ref, backend).score)
        wrong = realistic_mistake(ref.answer, task.submission_schema, task.id)
        if wrong is not None:
            scores["mutant"].append(psab.evaluate(task, {"answer": wrong.answer}, backend).score)
        if spec.naive_answer is not None:
            scores["naive"].append(psab.evaluate(task, {"answer": spec.naive_answer(task)}, backend).score)
    mean = {k: (statistics.fmean(v) if v else None) for k, v in scores.items()}
    return {"family": spec.id, "level": level, "backend": backend, "draws": draws,
            "numbers": round(statistics.median(sizes)), "solve_ms": statistics.median(solve_s) * 1e3,
            "generate_ms": statistics.median(gen_s) * 1e3, **{f"score_{k}": v for k, v in mean.items()}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--family", action="append", help="only these families (default: all)")
    p.add_argument("--draws", type=int, default=3, help="held-out draws per family and level (default 3)")
    p.add_argument("--backend", default="surrogate", help="judging backend (families that declare it)")
    p.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = p.parse_args(argv)
    rows = []
    for spec in psab.families():
        if (args.family and spec.id not in args.family) or args.backend not in spec.backends:
            continue
        for level in spec.levels:
            rows.append(measure(spec, level, args.backend, args.draws))

    def fmt(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f}"

    print_table(f"Difficulty table ({args.backend}, {args.draws} draws per level, medians and mean scores)",
                ["family", "level", "numbers", "generate ms", "reference solve ms", "reference", "mutant", "naive"],
                [(r["family"], r["level"], r["numbers"], f"{r['generate_ms']:.0f}", f"{r['solve_ms']:.1f}",
                  fmt(r["score_reference"]), fmt(r["score_mutant"]), fmt(r["score_naive"])) for r in rows])
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
