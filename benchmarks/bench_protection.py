"""Benchmark of the protection and sizing families: evaluation medians and the coordination LP.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_protection.py [--repeats 30]

Prints one table. Evaluation rows: evaluating the reference answer of each public case with
the reference already cached (what a run over many solutions of one task pays) and with the
cache cleared before every call (solve + evaluate); the ratio is uncached / cached. LP rows:
the overcurrent coordination LP of the public case built with Pyomo and solved with HiGHS
through :func:`psab.solvers.core.solve`, against the same LP handed to highspy directly and
against the closed-form tightest chain; ratios are against highspy direct, measured in the
same run. Repeats are interleaved so that machine noise hits every row alike.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable

import numpy as np

import psab
from psab.evaluators.cache import clear_reference_cache
from psab.paths import case_dir

FAMILIES = ("distance_protection_settings", "overcurrent_protection", "cable_ampacity_sizing")


def _highspy_direct(p) -> float:
    """The coordination LP as a HighsLp built from the coefficient arrays (no modelling layer)."""
    import highspy

    from psab.solvers.core import _new_highs

    n = len(p.relay_ids)
    # rows: grading pairs (b·x_backup − a·x_primary ≥ CTI); TMS range as column bounds
    starts, index, value = [0], [], []
    cols: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    for k, (b, a) in enumerate(p.pairs):
        cols[b].append((k, p.backup_coeff_s[k]))
        cols[a].append((k, -p.pair_primary_coeff_s[k]))
    for entries in cols:
        for row, coeff in sorted(entries):
            index.append(row)
            value.append(coeff)
        starts.append(len(index))
    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = len(p.pairs)
    lp.col_cost_ = np.asarray(p.primary_coeff_s)
    lp.col_lower_ = np.full(n, p.tms_min)
    lp.col_upper_ = np.full(n, p.tms_max)
    lp.row_lower_ = np.full(len(p.pairs), p.cti_s)
    lp.row_upper_ = np.full(len(p.pairs), highspy.kHighsInf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.asarray(starts, dtype=np.int32)
    lp.a_matrix_.index_ = np.asarray(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.asarray(value)
    h = _new_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.passModel(lp)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return float(h.getInfo().objective_function_value)


def _closed_form_chain(p) -> float:
    """The LP optimum of series radial relays: tightest chain from the downstream end."""
    tms = [p.tms_min] * len(p.relay_ids)
    for k in reversed(range(len(p.pairs))):
        b, a = p.pairs[k]
        tms[b] = max(p.tms_min, (p.cti_s + p.pair_primary_coeff_s[k] * tms[a]) / p.backup_coeff_s[k])
    return float(np.dot(p.primary_coeff_s, tms))


def _pyomo_build(p) -> object:
    from psab.solvers.coordination import build_coordination

    return build_coordination(p)


def _pyomo_solve(p) -> float:
    from psab.solvers.coordination import solve_coordination

    return solve_coordination(p).objective_s


Case = tuple[Callable[[], object], Callable[[], object]]  # (untimed set-up, timed call)


def measure(cases: dict[str, Case], repeats: int) -> dict[str, float]:
    """Median seconds per case, interleaving the cases in every repeat; set-ups are not timed.

    As in :mod:`timeit`, the garbage collector is off while a call is timed (and run before
    it), so one row's garbage is not collected on another row's clock.
    """
    for setup, fn in cases.values():  # warm-up: imports, first HiGHS instance, caches
        setup()
        fn()
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(repeats):
        for name, (setup, fn) in cases.items():
            setup()
            gc.collect()
            gc.disable()
            try:
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
            finally:
                gc.enable()
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()

    tasks = {f: psab.load_case(case_dir(f)) for f in FAMILIES}
    answers = {f: {"answer": psab.solve(t).answer} for f, t in tasks.items()}

    def cached(f: str) -> Case:
        # the set-up puts this task's reference in the cache (another row may have cleared it)
        return (lambda: psab.solve(tasks[f])), (lambda: psab.evaluate(tasks[f], answers[f]))

    def uncached(f: str) -> Case:
        return clear_reference_cache, (lambda: psab.evaluate(tasks[f], answers[f]))

    def plain(fn: Callable[[], object]) -> Case:
        return (lambda: None), fn

    from psab.families.overcurrent_protection import problem

    p = problem(tasks["overcurrent_protection"].public_inputs)
    objectives = {"pyomo": _pyomo_solve(p), "highspy": _highspy_direct(p), "chain": _closed_form_chain(p)}
    spread = max(objectives.values()) - min(objectives.values())
    assert spread < 1e-9, f"the three LP paths disagree: {objectives}"

    cases: dict[str, Case] = {}
    for f in FAMILIES:
        cases[f"{f}: evaluate, reference cached"] = cached(f)
        cases[f"{f}: evaluate, reference uncached"] = uncached(f)
    cases["overcurrent LP: Pyomo build only"] = plain(lambda: _pyomo_build(p))
    cases["overcurrent LP: Pyomo build + HiGHS solve"] = plain(lambda: _pyomo_solve(p))
    cases["overcurrent LP: highspy direct"] = plain(lambda: _highspy_direct(p))
    cases["overcurrent LP: closed-form chain (numpy)"] = plain(lambda: _closed_form_chain(p))
    med = measure(cases, args.repeats)

    rows = []
    for f in FAMILIES:
        c, u = med[f"{f}: evaluate, reference cached"], med[f"{f}: evaluate, reference uncached"]
        rows.append((f"{f}: evaluate, reference cached", c, "1.00 (baseline)"))
        rows.append((f"{f}: evaluate, reference uncached", u, f"{u / c:.2f} × cached"))
    base = med["overcurrent LP: highspy direct"]
    for name in ("overcurrent LP: Pyomo build only", "overcurrent LP: Pyomo build + HiGHS solve",
                 "overcurrent LP: highspy direct", "overcurrent LP: closed-form chain (numpy)"):
        rows.append((name, med[name], f"{med[name] / base:.2f} × highspy direct"))
    width = max(len(r[0]) for r in rows)
    print(f"{'what':<{width}}  {'median':>10}  ratio")
    print(f"{'-' * width}  {'-' * 10}  {'-' * 24}")
    for name, sec, ratio in rows:
        print(f"{name:<{width}}  {sec * 1e3:>7.3f} ms  {ratio}")
    print(f"\n{args.repeats} interleaved repeats; LP objective {objectives['pyomo']:.6f} s on all three paths "
          f"({len(p.relay_ids)} relays, {len(p.pairs)} grading rows).")


if __name__ == "__main__":
    main()
