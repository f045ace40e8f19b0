"""Benchmark of the forecasting families (area 8): timings, and the skill of the baselines.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_forecasting.py [--repeats 30] [--cases 100]

Table 1, per family: the reference forecast of the public case (``solve``, cache cleared), the
evaluation of the reference answer with the reference cached (``evaluate``) and uncached
(``evaluate*``), and one held-out draw with its acceptance loop per level (``generate L1/L2``);
medians of interleaved repeats, in ms.

Table 2, per family and level: over ``--cases`` accepted held-out draws, the mean score (the
family's capped skill) and the mean error measure of the reference and of the naive baselines —
persistence of the last measured hour, climatology (the history's mean), the raw NWP through the
power curve, zero, and the naive reading of the guided text; for the interval family, the
zero-width interval at the point forecast, the zero interval, the history's power quantiles
(climatology), the whole range [0, capacity], and the naive reading. The reference scores 1 by
definition; the others show how far a forecaster without skill falls.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import psab
from psab.evaluators.cache import clear_reference_cache
from psab.families import _wind
from psab.paths import case_dir

from common import fmt_ms, print_table

FAMILIES = tuple(s.id for s in psab.families() if s.scoring_kind == "forecast")


def baselines(family: str, task: psab.Task) -> dict[str, dict[str, Any]]:
    """The baseline answers of one task, by name."""
    spec = psab.get_family(family)
    inputs = task.public_inputs
    out: dict[str, dict[str, Any]] = {}
    if family == "wind_power_forecast":
        for name, f in _wind.baselines_mw(inputs).items():
            out[name] = {"power_mw": _wind.clean(f)}
    elif family == "wind_prediction_interval":
        from psab.families import wind_prediction_interval

        out.update(wind_prediction_interval.baselines(task))
    if spec.naive_answer is not None:
        out["naive"] = spec.naive_answer(task)
    out["reference"] = psab.solve(task).answer
    return out


def _family_timings(family: str, repeats: int) -> list[str]:
    task = psab.load_case(case_dir(family))
    spec = psab.get_family(family)
    answer = psab.solve(task).answer
    index = iter(range(10**6))

    def uncached_solve() -> None:
        clear_reference_cache()
        psab.solve(task)

    def uncached_eval() -> None:
        clear_reference_cache()
        psab.evaluate(task, {"answer": answer})

    def draw(level: int) -> Callable[[], Any]:
        return lambda: psab.generate(family, "bench", next(index), level=level)

    fns: dict[str, Callable[[], Any]] = {
        "solve": uncached_solve,
        "evaluate": lambda: psab.evaluate(task, {"answer": answer}),
        "evaluate*": uncached_eval,
    }
    for level in spec.levels:
        fns[f"generate L{level}"] = draw(level)
    samples: dict[str, list[float]] = {k: [] for k in fns}
    psab.evaluate(task, {"answer": answer})
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - t0)
    return [family] + [fmt_ms(statistics.median(samples[k])) for k in fns]


def timings(repeats: int) -> list[list[str]]:
    return [_family_timings(family, repeats) for family in FAMILIES]


def skill_table(cases: int) -> list[list[str]]:
    rows = []
    for family in FAMILIES:
        spec = psab.get_family(family)
        for level in spec.levels:
            scores: dict[str, list[float]] = {}
            errors: dict[str, list[float]] = {}
            for i in range(cases):
                task = psab.generate(family, "bench-skill", i, level=level)
                for name, answer in baselines(family, task).items():
                    r = psab.evaluate(task, {"answer": answer})
                    scores.setdefault(name, []).append(r.score)
                    measure = r.evidence.get("nmae", r.evidence.get("mean_width_mw"))
                    if measure is not None:
                        errors.setdefault(name, []).append(float(measure))
            for name in scores:
                rows.append([family, f"L{level}", name, f"{np.mean(scores[name]):.3f}",
                             f"{np.mean(errors[name]):.4f}" if name in errors else "-"])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--quick", action="store_true", help="10 repeats and 30 cases (benchmarks/run.py --all --quick)")
    args = ap.parse_args()
    if args.quick:
        args.repeats, args.cases = 10, 30
    rows = timings(args.repeats)
    levels = max(len(psab.get_family(f).levels) for f in FAMILIES)
    print_table("Forecasting: reference, evaluation and generation medians (ms)",
                ["family", "solve", "evaluate", "evaluate*"] + [f"generate L{lv}" for lv in range(1, levels + 1)], rows)
    print_table(f"Forecasting: mean score and error over {args.cases} accepted held-out draws per level",
                ["family", "level", "forecaster", "mean score", "mean error (nMAE or mean width, MW)"], skill_table(args.cases))


if __name__ == "__main__":
    main()
