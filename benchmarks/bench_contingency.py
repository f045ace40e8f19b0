"""Benchmark of the contingency families: evaluation per family and backend, DC+LODF screening
against the AC N-1 loop, and MILP build against solve time.

Run from the repository root::

    python benchmarks/bench_contingency.py [--repeats N]

Prints one table of medians (interleaved repeats, so a noisy shared machine affects every row
alike) with ratios against the baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

warnings.filterwarnings("ignore")


def median_ms(fn: Callable[[], object], repeats: int, setup: Callable[[], object] | None = None) -> float:
    times = []
    for _ in range(repeats):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    r = args.repeats

    import psab
    from psab.evaluators.cache import clear_reference_cache
    from psab.families import contingency_screening as cs
    from psab.families import corrective_transmission_switching as cts
    from psab.families import n1_generation_commitment as n1
    from psab.paths import case_dir
    from psab.solvers.core import solve as solve_model

    rows: list[tuple[str, float, str]] = []
    tasks = {f: psab.load_case(case_dir(f)) for f in (cs.FAMILY_ID, cts.FAMILY_ID, n1.FAMILY_ID)}
    # warm every code path once (imports, pandapower template net, HiGHS banner)
    for f, t in tasks.items():
        for b in psab.get_family(f).backends:
            psab.evaluate(t, psab.solve(t, b), b)

    # 1. evaluate: cached reference, then uncached (reference solved inside the timing)
    for f, t in tasks.items():
        for b in psab.get_family(f).backends:
            sol = {"answer": psab.solve(t, b).answer}
            warm = median_ms(lambda t=t, sol=sol, b=b: psab.evaluate(t, sol, b), r)
            cold = median_ms(lambda t=t, sol=sol, b=b: psab.evaluate(t, sol, b), max(3, r // 2), setup=clear_reference_cache)
            rows.append((f"evaluate {f} [{b}] reference cached", warm, ""))
            rows.append((f"evaluate {f} [{b}] reference uncached", cold, f"{cold / warm:.1f}x cached"))

    # 2. DC + LODF screening against the AC N-1 loop in pandapower, same public case
    inputs = tasks[cs.FAMILY_ID].public_inputs
    n_out = len(inputs["branches"])
    cs.ac_screening(inputs, "bench")  # builds the prepared net once, as an evaluation would
    dc_ms = median_ms(lambda: cs.dc_screening(inputs), max(r, 21))
    ac_ms = median_ms(lambda: cs.ac_screening(inputs, "bench"), r)
    rows.append((f"DC power flow + LODF, all {n_out} outages", dc_ms, "baseline"))
    rows.append((f"AC N-1 loop in pandapower, {n_out} outages (runpp each)", ac_ms, f"{ac_ms / dc_ms:.0f}x DC+LODF"))

    # 3. MILP build vs solve
    for f, mod in ((cts.FAMILY_ID, cts), (n1.FAMILY_ID, n1)):
        case = mod.Case(tasks[f].public_inputs)
        build = median_ms(lambda case=case, mod=mod: mod.build_model(case), r)
        models: list[object] = []
        solve = median_ms(lambda models=models: solve_model(models.pop()), r,
                          setup=lambda case=case, mod=mod, models=models: models.append(mod.build_model(case)))
        rows.append((f"MILP build {f}", build, "baseline"))
        rows.append((f"MILP solve {f} (compile + HiGHS)", solve, f"{solve / build:.2f}x build"))

    width = max(len(x[0]) for x in rows)
    print(f"{'what':<{width}}  {'median ms':>10}  ratio")
    print("-" * (width + 25))
    for what, ms, ratio in rows:
        print(f"{what:<{width}}  {ms:10.2f}  {ratio}")


if __name__ == "__main__":
    main()
