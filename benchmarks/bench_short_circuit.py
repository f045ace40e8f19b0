"""Short-circuit families: what an evaluation costs, and psab's overhead over bare pandapower.

Run: ``PYTHONPATH=. python benchmarks/bench_short_circuit.py [--repeat N]``. Prints medians of
interleaved repetitions (the machine is shared and noisy: trust ratios more than absolute
times). Rows:

- surrogate evaluation of each family's public case with its reference cached (the common
  case: many answers to one task) and uncached (the reference recomputed each time);
- pandapower-backend evaluation with the task's net prepared (reference recomputed on the
  cached net) against the bare ``calc_sc`` calls the reference makes, on the same net — the
  ratio is psab's overhead (target ≤ 1.5×);
- the closed-form nodal fault current at every bus (numpy, Z_bus = Y_bus⁻¹) against
  ``calc_sc`` for every bus, on the public case and on the IEC TR 60909-4 network.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np

import psab
from psab.backends import pandapower_sc as ppsc
from psab.evaluators.cache import clear_reference_cache
from psab.paths import case_dir, golden_root
from psab.surrogates import iec60909 as iec

FAMILIES = ("three_phase_short_circuit", "earth_fault_calculation", "breaker_relay_short_circuit")


def median_ms(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median wall time (ms) of each function, repetitions interleaved across functions."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for fn in fns.values():  # warm-up
        fn()
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - t0) * 1e3)
    return {k: statistics.median(v) for k, v in times.items()}


def bare_calls(family: str, task: psab.Task) -> Callable[[], object]:
    """The calc_sc calls the pandapower reference of ``family`` makes, straight on its prepared net."""
    from pandapower.shortcircuit import calc_sc

    from psab.contract import digest

    inputs = task.public_inputs
    prep = ppsc.NETS.get_or_compute((family, digest(inputs)), lambda: None)
    net, bus = prep.net, prep.bus

    def run() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if family == "three_phase_short_circuit":
                idx = [bus[b] for b in inputs["fault_buses"]]
                topo = "radial" if inputs["kappa_method"] == "radial" else "auto"
                calc_sc(net, bus=idx, case="max", ip=True, ith=True, tk_s=inputs["t_k_s"], topology=topo, kappa_method="C")
                calc_sc(net, bus=idx, case="min", r_fault_ohm=inputs["min_case_fault_r_ohm"])
            elif family == "earth_fault_calculation":
                calc_sc(net, bus=[bus[inputs["fault_bus"]]], fault="1ph", case="max", r_fault_ohm=inputs["fault_r_ohm"])
            else:
                topo = "radial" if inputs["kappa_method"] == "radial" else "auto"
                calc_sc(net, bus=sorted({bus[b["bus"]] for b in inputs["breakers"]}), case="max", ip=True,
                        topology=topo, kappa_method="C", lv_tol_percent=inputs.get("lv_tolerance_pct", 10))
                calc_sc(net, bus=sorted({bus[r["zone_end_bus"]] for r in inputs["relays"]}), fault="2ph", case="min",
                        lv_tol_percent=inputs.get("lv_tolerance_pct", 10))
    return run


def nodal_rows(label: str, inputs: dict, repeat: int) -> list[tuple[str, float, float]]:
    from pandapower.shortcircuit import calc_sc

    net = iec.network_from_inputs(inputs)
    prep = ppsc.build_net(net)
    model = iec.positive_sequence_model(net, "max")
    c = np.array([iec.voltage_factor(v, "max") for v in model.un_kv])
    case_buses = [prep.bus[b.id] for b in net.buses]

    def numpy_all() -> None:
        iec.nodal_ikss_ka(model, c)

    def kernel_all() -> None:
        iec.fault_levels(net, "max")

    def pp_all() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            calc_sc(prep.net, bus=case_buses, case="max")

    m = median_ms({"numpy": numpy_all, "kernel": kernel_all, "pp": pp_all}, repeat)
    n = len(net.buses)
    return [(f"I″k at all {n} buses, numpy Z_bus (model built) — {label}", m["numpy"], m["pp"]),
            (f"I″k at all {n} buses, fault_levels() incl. model — {label}", m["kernel"], m["pp"])]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rows: list[tuple[str, float, float | None]] = []
    for family in FAMILIES:
        task = psab.load_case(case_dir(family))
        sol = psab.solve(task)

        def cached(task: psab.Task = task, sol: psab.Solution = sol) -> None:
            psab.evaluate(task, sol)

        def uncached(task: psab.Task = task, sol: psab.Solution = sol) -> None:
            clear_reference_cache()
            psab.evaluate(task, sol)

        def pp_prepared(task: psab.Task = task, sol: psab.Solution = sol) -> None:
            clear_reference_cache()  # the net stays prepared in pandapower_sc.NETS
            psab.evaluate(task, sol, "pandapower")

        pp_prepared()
        # "uncached" leaves the reference in the cache, so "cached" right after it hits
        m = median_ms({"uncached": uncached, "cached": cached}, args.repeat)
        m.update(median_ms({"pp": pp_prepared, "bare": bare_calls(family, task)}, args.repeat))
        rows.append((f"{family}: surrogate evaluate, reference cached", m["cached"], None))
        rows.append((f"{family}: surrogate evaluate, reference uncached", m["uncached"], None))
        rows.append((f"{family}: pandapower evaluate (net prepared) vs bare calc_sc", m["pp"], m["bare"]))
    rows += nodal_rows("public three-phase case", psab.load_case(case_dir("three_phase_short_circuit")).public_inputs, args.repeat)
    tr = psab.load_case(golden_root() / "three_phase_short_circuit" / "iec_tr_60909_4_hv_network").public_inputs
    rows += nodal_rows("IEC TR 60909-4 network", tr, args.repeat)

    width = max(len(r[0]) for r in rows)
    print(f"{'what':<{width}}  {'median ms':>10}  {'baseline ms':>11}  {'ratio':>6}")
    print("-" * (width + 33))
    for name, ms, base in rows:
        if base is None:
            print(f"{name:<{width}}  {ms:>10.3f}  {'':>11}  {'':>6}")
        else:
            print(f"{name:<{width}}  {ms:>10.3f}  {base:>11.3f}  {ms / base:>6.3f}")
    print(f"\nmedians of {args.repeat} interleaved repetitions; baseline = bare pandapower calc_sc on the same prepared net")


if __name__ == "__main__":
    main()
