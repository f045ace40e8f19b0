"""Benchmark: evaluation of pf_voltage_repair and dynamic_thermal_rating per backend, and the
surrogate Newton-Raphson against ``pandapower.runpp`` on MATPOWER case14 and case118.

Run from the repository root::

    python benchmarks/bench_network.py [--repeats N]

Prints a table of medians (interleaved repeats, so drifts of the shared machine hit every
row alike) and asserts that the surrogate's voltages equal pandapower's to 1e-6 pu.

BLAS threads are pinned to one (unless the environment says otherwise): on a shared 2-core
machine a multi-threaded BLAS makes the dense solves of a 118-bus Jacobian an order of
magnitude slower, and psab's workers run one per core anyway.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


def _interleaved(jobs: dict[str, Callable[[], object]], repeats: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(repeats):
        for name, job in jobs.items():
            t0 = time.perf_counter()
            job()
            times[name].append(time.perf_counter() - t0)
    return times


def bench_power_flow(repeats: int) -> list[tuple[str, float, int, str]]:
    warnings.simplefilter("ignore")
    import pandapower.networks as pn

    from psab.backends import pandapower_net as ppn
    from psab.backends.pandapower_pf import network_from_ppc
    from psab.surrogates.ac_power_flow import solve_ac

    pp = ppn.pandapower()
    rows = []
    for name in ("case14", "case118"):
        net = getattr(pn, name)()
        ppn.run_power_flow(net)
        network = network_from_ppc(net._ppc)
        lookup = np.asarray(net._pd2ppc_lookups["bus"])[net.bus.index.to_numpy()]
        sol = solve_ac(network)
        dv = float(np.max(np.abs(sol.vm_pu[lookup] - net.res_bus.vm_pu.to_numpy())))
        da = float(np.max(np.abs(np.radians(sol.va_deg[lookup] - net.res_bus.va_degree.to_numpy()))))
        assert dv <= 1e-6 and da <= 1e-6, f"{name}: surrogate differs from pandapower by {dv:.2e} pu, {da:.2e} rad"

        def runpp(net: object = net) -> None:
            pp.runpp(net, numba=False, init="flat", trafo_model="pi", calculate_voltage_angles=True)

        times = _interleaved({"nr": lambda network=network: solve_ac(network), "pp": runpp}, repeats)
        nr, ppt = _median_ms(times["nr"]), _median_ms(times["pp"])
        rows.append((f"{name}: surrogate Newton-Raphson (Y_bus + solve)", nr, repeats, f"{ppt / nr:.1f}x faster than runpp"))
        rows.append((f"{name}: pandapower.runpp (numba off, flat start)", ppt, repeats, f"max |ΔV| {dv:.1e} pu, |Δθ| {da:.1e} rad"))
    return rows


def bench_families(repeats: int) -> list[tuple[str, float, int, str]]:
    import psab
    from psab.evaluators.cache import clear_reference_cache
    from psab.paths import case_dir

    rows = []
    plan = (("pf_voltage_repair", "surrogate", repeats), ("pf_voltage_repair", "pandapower", max(3, repeats // 10)),
            ("dynamic_thermal_rating", "surrogate", repeats))
    for family, backend, n in plan:
        task = psab.load_case(case_dir(family))
        solution = psab.solve(task, backend)
        psab.evaluate(task, solution, backend)  # warm: imports, prepared nets, schema validators

        def cached(task: psab.Task = task, solution: psab.Solution = solution, backend: str = backend) -> None:
            psab.evaluate(task, solution, backend)

        def uncached(task: psab.Task = task, solution: psab.Solution = solution, backend: str = backend) -> None:
            clear_reference_cache()
            psab.evaluate(task, solution, backend)

        times = _interleaved({"cached": cached, "uncached": uncached}, n)
        c, u = _median_ms(times["cached"]), _median_ms(times["uncached"])
        rows.append((f"{family} [{backend}] evaluate, reference cached", c, n, ""))
        rows.append((f"{family} [{backend}] evaluate, reference uncached", u, n, f"{u / c:.1f}x the cached"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    rows = bench_power_flow(args.repeats) + bench_families(args.repeats)
    width = max(len(r[0]) for r in rows)
    print(f"BLAS threads: {os.environ.get('OPENBLAS_NUM_THREADS')}")
    print(f"{'what':<{width}}  {'median ms':>10}  {'n':>4}  note")
    print(f"{'-' * width}  {'-' * 10}  {'-' * 4}  ----")
    for what, ms, n, note in rows:
        print(f"{what:<{width}}  {ms:>10.3f}  {n:>4}  {note}")


if __name__ == "__main__":
    main()
