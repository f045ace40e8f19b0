"""Benchmark: the distributed-resources families (area 4) — reference solve and evaluation per
family and backend on each public case, and for the AC families the surrogate evaluation
against the pandapower evaluation in the same run.

Run from the repository root::

    python benchmarks/bench_der.py [--repeats N]

``reference`` is ``spec.solve`` on the public case (no cache); ``evaluate`` is ``psab.evaluate``
of the reference answer with the reference cached (the cost of judging one answer). BLAS threads
are pinned to one, as in bench_network.py.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psab  # noqa: E402
from psab.paths import case_dir  # noqa: E402

from common import fmt_ms, median_time, print_table  # noqa: E402


def _available(backend: str) -> bool:
    from psab.backends import available

    return available(backend)


def rows(repeats: int) -> list[list[str]]:
    warnings.simplefilter("ignore")
    out = []
    for spec in psab.families():
        if spec.area != "der_storage":
            continue
        task = psab.load_case(case_dir(spec.id))
        evals = {}
        for backend in spec.backends:
            if not _available(backend):
                out.append([spec.id, backend, "n/a", "n/a", "backend not installed"])
                continue
            ref = spec.solve(task, backend)
            solution = {"answer": ref.answer}
            psab.evaluate(task, solution, backend=backend)   # warm the reference cache
            t_ref = median_time(lambda b=backend, sp=spec, tk=task: sp.solve(tk, b), repeat=repeats)
            t_eval = median_time(lambda b=backend, tk=task, so=solution: psab.evaluate(tk, so, backend=b), repeat=repeats)
            evals[backend] = t_eval
            out.append([spec.id, backend, fmt_ms(t_ref), fmt_ms(t_eval), ""])
        if "surrogate" in evals and "pandapower" in evals:
            out[-1][-1] = f"pandapower evaluation {evals['pandapower'] / evals['surrogate']:.1f}x the surrogate's"
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    print_table("Distributed resources, PV, EV and storage: medians on the public cases (ms)",
                ["family", "backend", "reference", "evaluate", "note"], rows(args.repeats))


if __name__ == "__main__":
    main()
