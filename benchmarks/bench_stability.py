"""Stability families: reference solve and evaluation per family and backend, and for
critical_clearing_time the surrogate bisection against the ANDES bisection in the same run, and for
transient_stability_prediction the surrogate's scenarios against ANDES's (system build and per-scenario run).

Run: ``PYTHONPATH=. python benchmarks/bench_stability.py [--repeat N]``. ANDES's code is generated
before anything is timed (``psab.backends.andes_tds.warm``, ~30–45 s once per machine); an ANDES
row then includes building each ``andes.System`` (about 1 s: ANDES re-imports its generated
modules per system). Medians; the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import fmt_ms, median_time, print_table  # noqa: E402

FAMILIES = ("critical_clearing_time", "transient_stability_prediction", "frt_compliance", "ibr_short_circuit_frt",
            "min_synchronous_share")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    import psab
    from psab import backends
    from psab.evaluators.cache import clear_reference_cache
    from psab.paths import case_dir

    if backends.available("andes"):
        from psab.backends import andes_tds

        andes_tds.warm()
    rows = []
    for family in FAMILIES:
        task = psab.load_case(case_dir(family))
        spec = psab.get_family(family)
        for backend in spec.backends:
            if not backends.available(backend):
                rows.append((family, backend, "not installed", ""))
                continue
            rep = args.repeat if backend == "surrogate" else max(1, args.repeat // 3)
            solution = psab.solve(task, backend)
            solve_s = median_time(lambda t=task, b=backend, sp=spec: sp.solve(t, b), repeat=rep, warmup=0)
            eval_s = median_time(lambda t=task, s=solution, b=backend: psab.evaluate(t, s, b), repeat=rep * 5)
            clear_reference_cache()
            rows.append((family, backend, fmt_ms(solve_s), fmt_ms(eval_s)))
    print_table("Stability families: public case, median wall time (ms)",
                ("family", "backend", "reference solve", "evaluation (reference cached)"), rows)

    from psab.families import critical_clearing_time as cct

    out = []
    for label, path in (("public (Kundur Fig. 13.1 data)", case_dir("critical_clearing_time")),):
        inputs = psab.load_case(path).public_inputs
        sur_s = median_time(lambda i=inputs: cct.surrogate_answer(i), repeat=args.repeat)
        sur = cct.surrogate_answer(inputs)[0]["t_cr_s"]
        if backends.available("andes"):
            an_s = median_time(lambda i=inputs: cct.andes_answer(i), repeat=max(1, args.repeat // 3), warmup=0)
            an = cct.andes_answer(inputs)[0]["t_cr_s"]
            out.append((label, f"{sur:.5f}", fmt_ms(sur_s), f"{an:.5f}", fmt_ms(an_s), f"{an_s / sur_s:.0f}×"))
        else:
            out.append((label, f"{sur:.5f}", fmt_ms(sur_s), "n/a", "n/a", ""))
    print_table("critical_clearing_time: surrogate RK4 bisection (0.1 ms) vs ANDES TDS bisection (1 ms, seeded)",
                ("case", "t_cr surrogate (s)", "surrogate (ms)", "t_cr ANDES (s)", "ANDES (ms)", "ratio"), out)

    from psab.families import transient_stability_prediction as tsp

    inputs = psab.load_case(case_dir("transient_stability_prediction")).public_inputs
    scenarios = inputs["scenarios"]
    sur_s = median_time(lambda i=inputs: [tsp.System(i).simulate(sc) for sc in i["scenarios"]], repeat=args.repeat)
    sur = [tsp.System(inputs).simulate(sc)[0] for sc in scenarios]
    if backends.available("andes"):
        build_s = median_time(lambda i=inputs: tsp.andes_simulator(i), repeat=max(1, args.repeat // 3), warmup=0)
        sim = tsp.andes_simulator(inputs)
        run_s = median_time(lambda s=sim, i=inputs: [tsp.andes_run(s, i, sc) for sc in i["scenarios"]],
                            repeat=max(1, args.repeat // 3), warmup=0)
        an = [tsp.andes_run(sim, inputs, sc).stable for sc in scenarios]
        row = (f"{len(scenarios)}", fmt_ms(sur_s), fmt_ms(build_s), fmt_ms(run_s / len(scenarios)),
               f"{sum(a == b for a, b in zip(sur, an, strict=True))}/{len(scenarios)}")
    else:
        row = (f"{len(scenarios)}", fmt_ms(sur_s), "n/a", "n/a", "n/a")
    print_table("transient_stability_prediction (public case): surrogate RK4 vs ANDES TDS (10 ms, system reused per case)",
                ("scenarios", "surrogate, all scenarios (ms)", "ANDES system build (ms)", "ANDES per scenario (ms)",
                 "verdicts equal"), [row])


if __name__ == "__main__":
    main()
