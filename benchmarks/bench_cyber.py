"""Benchmark of the cybersecurity and coordination families (area 7): reference solve and
evaluation medians per family and backend, and the WLS state estimator with bad-data removal —
psab's surrogate against ``pandapower.estimation.remove_bad_data`` — on the public case and on
level-2 (IEEE 14-bus) draws, in the same run.

Run from the repository root::

    python benchmarks/bench_cyber.py [--quick]

Prints plain tables of medians (interleaved repeats, so drifts of the shared machine hit every
row alike).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
warnings.filterwarnings("ignore")

from common import fmt_ms, print_table  # noqa: E402

FAMILIES = ("fdi_state_estimation", "protected_meter_placement", "mas_frequency_handover")


def _interleaved(jobs: dict[str, Callable[[], object]], repeats: int,
                 setup: Callable[[], object] | None = None) -> dict[str, float]:
    samples: dict[str, list[float]] = {k: [] for k in jobs}
    for job in jobs.values():  # warm-up: imports, prepared nets
        job()
    for _ in range(repeats):
        for name, job in jobs.items():
            if setup is not None:
                setup()
            t0 = time.perf_counter()
            job()
            samples[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in samples.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    args = ap.parse_args()
    repeats = 3 if args.quick else 7

    import psab
    from psab.evaluators.cache import clear_reference_cache
    from psab.paths import case_dir

    known = {s.id for s in psab.families()}
    fams = [f for f in FAMILIES if f in known]
    tasks = {f: psab.load_case(case_dir(f)) for f in fams}

    # 1. reference solve (cache cleared) and evaluation (reference cached) per family and backend
    solve_jobs: dict[str, Callable[[], object]] = {}
    eval_jobs: dict[str, Callable[[], object]] = {}
    for f in fams:
        for b in psab.get_family(f).backends:
            t = tasks[f]
            sol = {"answer": psab.solve(t, b).answer}
            solve_jobs[f"{f} [{b}]"] = lambda t=t, b=b: psab.solve(t, b)
            eval_jobs[f"{f} [{b}]"] = lambda t=t, b=b, sol=sol: psab.evaluate(t, sol, b)
    solved = _interleaved(solve_jobs, repeats, setup=clear_reference_cache)
    evaluated = _interleaved(eval_jobs, repeats * 3)
    print_table("Reference solve (uncached) and evaluation (reference cached), public cases",
                ["family [backend]", "solve ms", "evaluate ms"],
                [[k, fmt_ms(solved[k]), fmt_ms(evaluated[k])] for k in solve_jobs])

    # 2. WLS + largest-normalized-residual removal: surrogate against pandapower's estimator
    if "fdi_state_estimation" in fams:
        from psab.families import fdi_state_estimation as fdi

        cases = {"public (6 bus)": tasks["fdi_state_estimation"]}
        for i in range(2):
            cases[f"level 2 draw {i} (IEEE 14 bus)"] = psab.generate("fdi_state_estimation", 2026, i, level=2)
        rows = []
        for name, task in cases.items():
            case = fdi.Case(task.public_inputs)
            n_meas = len(task.public_inputs["measurements"])
            times = _interleaved({"surrogate": case.surrogate, "pandapower": lambda case=case: fdi.pandapower_estimate(case)},
                                 repeats)
            out = case.surrogate()
            rows.append([name, n_meas, len(out.removed), fmt_ms(times["surrogate"]), fmt_ms(times["pandapower"]),
                         f"{times['pandapower'] / times['surrogate']:.0f}x"])
        print_table("WLS state estimation with iterated largest-normalized-residual removal",
                    ["case", "measurements", "removed", "surrogate ms", "pandapower ms", "pandapower / surrogate"], rows)


if __name__ == "__main__":
    main()
