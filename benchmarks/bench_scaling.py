"""Benchmark: how cost grows with the work (issue 24, item 4).

* ``ac`` — network size: the surrogate Newton-Raphson (dense; sparse with SciPy's LU; sparse with
  KLU through kvxopt) against ``pandapower.runpp`` and lightsim2grid's C++ Newton-Raphson, on
  pandapower's MATPOWER cases from 9 to 2,869 buses. The sparse path keeps ``Y_bus``, the
  Jacobian pattern and KLU's symbolic analysis across solves of one network
  (``psab.backends.sparse_power_flow``), so it is timed twice: *cold*, every cache emptied before
  each solve (a network seen for the first time; the splu column is timed cold too, which is
  what it cost before the caches), and *warm*, the RL regime — the same network with its loads
  scaled by 0.97…1.03 (eight new ``AcNetwork`` objects, cycled), so only injections change.
  Each row also gives the largest difference of the surrogate's bus voltages (KLU, warm, the
  unscaled network) from pandapower's (complex, pu). The surrogate times include building (or
  looking up) ``Y_bus``; lightsim2grid's include only its solve (its model is converted once,
  as the fast AC path does).
* ``horizon`` — horizon length of the dispatch LPs/MILP (microgrid_economic_dispatch's LP, one
  rolling_microgrid_dispatch window LP, hydro_thermal_storage_uc's MILP), the public day tiled
  1, 2, 4, … times: building the formulation, the reference solve as HiGHS gets it now (rows read
  into arrays, :func:`psab.solvers.dispatch.solve_formulation`) against the Pyomo path it replaced
  (``build_model`` + ``psab.solvers.core.solve``, measured in the same run: the ratio's
  baseline), and the evaluator's check of the optimum row by row against the matrix form.
* ``batch`` — batch size of ``psab.evaluate_many`` (mixed surrogate answers,
  ``batch_common.mixed_pairs``), 1 worker against 2 on a warm pool with warm references, 10 to
  10,000 answers: wall and CPU per answer, and the 2-worker speed-up (CPU: the caller's CPU with
  one worker over the busiest worker's with two; on a loaded machine wall time measures the
  neighbours as well).

Run from the repository root::

    python benchmarks/bench_scaling.py [--parts ac,horizon,batch] [--repeats N] [--max-buses N]
        [--png docs/scaling.png]

Medians of CPU time (this process's, so a loaded machine's neighbours do not count; BLAS pinned
to one thread) unless a column says wall.
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

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

CASES = ("case9", "case14", "case30", "case57", "case118", "case300", "case1354pegase", "case2869pegase")
#: the dense Jacobian's LU grows as n³: beyond this many buses it is left out
DENSE_MAX_BUSES = 400


def _cpu_ms(fn: Callable[[], object], repeats: int, before: Callable[[], object] | None = None) -> float:
    """Median CPU ms of ``fn`` after one untimed call; ``before`` runs untimed ahead of each call."""
    fn()
    samples = []
    for _ in range(repeats):
        if before is not None:
            before()
        t0 = time.process_time()
        fn()
        samples.append(time.process_time() - t0)
    return statistics.median(samples) * 1e3


def measure(repeats: int, max_buses: int) -> list[dict[str, float | str | None]]:
    warnings.simplefilter("ignore")
    import dataclasses
    import itertools

    import pandapower.networks as pn

    from psab.backends import pandapower_net as ppn
    from psab.backends import sparse_power_flow as spf
    from psab.backends.pandapower_pf import network_from_ppc
    from psab.surrogates.ac_power_flow import solve_ac

    has_klu = spf._klu() is not None
    try:
        from lightsim2grid.gridmodel import init_from_pandapower
    except ImportError:
        init_from_pandapower = None
    rows: list[dict[str, float | str | None]] = []
    for name in CASES:
        net = getattr(pn, name)()
        if len(net.bus) > max_buses:
            continue
        ppn.run_power_flow(net)
        network = network_from_ppc(net._ppc)
        lookup = np.asarray(net._pd2ppc_lookups["bus"])[net.bus.index.to_numpy()]
        v_pp = net.res_bus.vm_pu.to_numpy() * np.exp(1j * np.radians(net.res_bus.va_degree.to_numpy()))
        n = max(3, repeats if len(net.bus) < 1000 else repeats // 5)
        # the RL regime: injections change, topology and impedances do not
        variants = [dataclasses.replace(network, p_load_mw=network.p_load_mw * f, q_load_mvar=network.q_load_mvar * f)
                    for f in np.linspace(0.97, 1.03, 8)]
        cycle = itertools.cycle(variants)
        spf.clear_caches()
        splu = spf.solve_ac_sparse(network, solver="splu")
        row: dict[str, float | str | None] = {
            "case": name, "buses": float(network.n_bus),
            "runpp_ms": _cpu_ms(lambda net=net: ppn.run_power_flow(net), n),
            "splu_ms": _cpu_ms(lambda network=network: spf.solve_ac_sparse(network, solver="splu"), n, spf.clear_caches),
            "klu_cold_ms": None, "klu_warm_ms": None, "dense_ms": None, "lightsim_ms": None,
            "iterations": float(splu.iterations),
        }
        sparse = splu
        if has_klu:
            sparse = spf.solve_ac_sparse(network, solver="klu")
            row["klu_splu_dv_pu"] = float(np.max(np.abs(sparse.V - splu.V)))
            row["klu_cold_ms"] = _cpu_ms(lambda network=network: spf.solve_ac_sparse(network, solver="klu"), n,
                                         spf.clear_caches)
            spf.clear_caches()
            row["klu_warm_ms"] = _cpu_ms(lambda cycle=cycle: spf.solve_ac_sparse(next(cycle), solver="klu"), 3 * n)
        row["dv_pu"] = float(np.max(np.abs(sparse.V[lookup] - v_pp)))
        if network.n_bus <= DENSE_MAX_BUSES:
            dense = solve_ac(network, Y=network.ybus())
            row["dense_ms"] = _cpu_ms(lambda network=network: solve_ac(network, Y=network.ybus()), n)
            row["dense_sparse_dv_pu"] = float(np.max(np.abs(dense.V - splu.V)))
        if init_from_pandapower is not None:
            try:
                ppn.run_power_flow(net, trafo_model="t")
                model = init_from_pandapower(net)
                v0 = np.ones(int(net.bus.index.max()) + 1, dtype=complex)  # flat: set-points, slack angle
                for bus, vm in zip(net.gen.bus, net.gen.vm_pu):
                    v0[int(bus)] = vm
                for bus, vm, va in zip(net.ext_grid.bus, net.ext_grid.vm_pu, net.ext_grid.va_degree):
                    v0[int(bus)] = vm * np.exp(1j * np.radians(va))
                if model.ac_pf(v0, 30, 1e-8 / net.sn_mva).size:
                    row["lightsim_ms"] = _cpu_ms(lambda model=model, v0=v0, net=net: model.ac_pf(v0, 30, 1e-8 / net.sn_mva), n)
                else:
                    row["lightsim_error"] = "did not converge"
            except Exception as exc:  # noqa: BLE001 - reported, not fatal
                row["lightsim_error"] = f"{type(exc).__name__}"
        rows.append(row)
        print(row, flush=True)
    return rows


def _fmt(x: object) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.3g}"
    return str(x)


def table(rows: list[dict[str, float | str | None]]) -> str:
    head = ("case", "buses", "runpp ms", "lightsim2grid ms", "surrogate dense ms", "sparse splu ms (cold)",
            "sparse KLU ms, cold", "sparse KLU ms, warm", "runpp / KLU cold", "runpp / KLU warm",
            "max |ΔV| KLU vs runpp (pu)")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def ratio(r: dict[str, float | str | None], key: str) -> str:
        return "—" if r.get(key) is None else f"{float(r['runpp_ms']) / float(r[key]):.1f}×"  # type: ignore[arg-type]

    for r in rows:
        lines.append("| " + " | ".join([str(r["case"]), f"{int(r['buses'])}", _fmt(r["runpp_ms"]), _fmt(r["lightsim_ms"]),  # type: ignore[arg-type]
                                        _fmt(r["dense_ms"]), _fmt(r["splu_ms"]), _fmt(r["klu_cold_ms"]), _fmt(r["klu_warm_ms"]),
                                        ratio(r, "klu_cold_ms"), ratio(r, "klu_warm_ms"), f"{float(r['dv_pu']):.1e}"]) + " |")  # type: ignore[arg-type]
    return "\n".join(lines)


def _days(inputs: dict, days: int, series: tuple[str, ...]) -> dict:
    """``inputs`` with every per-step series (dotted paths) repeated ``days`` times."""
    import copy

    out = copy.deepcopy(inputs)
    for path in series:
        node = out
        *parents, leaf = path.split(".")
        for k in parents:
            node = node[k]
        node[leaf] = list(node[leaf]) * days
    return out


def _horizon_cases(max_days: int) -> list[tuple[str, int, Callable[[], object]]]:
    """``(problem, days, build)``: each problem's formulation over ``days`` tiled days."""
    import psab
    from psab.families import hydro_thermal_storage_uc as hydro
    from psab.families import microgrid_economic_dispatch as mg
    from psab.families import rolling_microgrid_dispatch as rolling

    out: list[tuple[str, int, Callable[[], object]]] = []
    base = psab.get_family(mg.FAMILY_ID).public_task().public_inputs
    series = ("load_mw", "pv_forecast_mw", "grid.import_price_per_mwh", "grid.export_price_per_mwh")
    days = 1
    while days <= max_days:
        inputs = _days(base, days, series)
        out.append(("microgrid_economic_dispatch LP", days, lambda inputs=inputs: mg.formulation(inputs)))
        days *= 2
    base = psab.get_family(rolling.FAMILY_ID).public_task().public_inputs
    days = 1
    while days <= max_days:
        inputs = _days(base, days, ("grid.import_price_per_mwh", "grid.export_price_per_mwh"))
        first = dict(inputs["forecast_windows"][0])
        first["load_mw"], first["pv_mw"] = list(first["load_mw"]) * days, list(first["pv_mw"]) * days
        inputs["forecast_windows"] = [first]
        soc = float(inputs["battery"]["soc_initial_mwh"])
        out.append(("rolling_microgrid_dispatch window LP", days,
                    lambda inputs=inputs, soc=soc: rolling.window_formulation(inputs, 0, soc)))
        days *= 2
    base = psab.get_family(hydro.FAMILY_ID).public_task().public_inputs
    days = 1
    while days <= min(max_days, 4):  # a MILP: beyond 4 days (96 h) HiGHS alone takes seconds
        inputs = _days(base, days, ("demand_mw", "hydro.inflow_m3s"))
        out.append(("hydro_thermal_storage_uc MILP", days, lambda inputs=inputs: hydro.formulation(inputs)))
        days *= 2
    return out


def measure_horizon(repeats: int, max_days: int) -> list[dict[str, float | str | None]]:
    from psab.solvers import algebra
    from psab.solvers.core import solve as solve_pyomo
    from psab.solvers.dispatch import build_model, matrix_form, read_values, solve_formulation

    slack = lambda name: 1e-4  # noqa: E731 - the families' feasibility slack
    rows: list[dict[str, float | str | None]] = []
    for problem, days, build in _horizon_cases(max_days):
        f = build()
        n = max(3, repeats // days) if "MILP" not in problem else 3
        solved = solve_formulation(build())

        def pyomo(build: Callable[[], object] = build) -> object:
            g = build()
            m = build_model(g)
            solve_pyomo(m)
            return read_values(m, g)

        old = pyomo()
        same = all(np.array_equal(old[k], solved.values[k], equal_nan=True) for k in old)  # type: ignore[index]
        values = algebra.values(**solved.values)
        f.matrix()
        row: dict[str, float | str | None] = {
            "problem": problem, "steps": float(f.steps), "columns": float(solved.n_variables),
            "rows": float(solved.n_constraints),
            "build_ms": _cpu_ms(build, n),
            "read_ms": _cpu_ms(lambda build=build: matrix_form(build()), n),
            "solve_ms": _cpu_ms(lambda build=build: solve_formulation(build()), n),
            "pyomo_ms": _cpu_ms(pyomo, n),
            "check_rows_ms": _cpu_ms(lambda f=f, values=values: algebra.check(values, f.rows(), slack), n),
            "check_matrix_ms": _cpu_ms(lambda f=f, values=values: f.check(values, slack), n),
            "identical": "yes" if same else "NO",
        }
        rows.append(row)
        print(row, flush=True)
    return rows


def horizon_table(rows: list[dict[str, float | str | None]]) -> str:
    head = ("problem", "steps", "LP columns × rows", "build formulation ms", "build + read rows into arrays ms",
            "build + solve: arrays → HiGHS ms", "build + solve: Pyomo path ms (baseline)", "Pyomo / arrays",
            "check row by row ms", "check matrix ms", "same optimum")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join([
            str(r["problem"]), f"{int(r['steps'])}", f"{int(r['columns'])} × {int(r['rows'])}",  # type: ignore[arg-type]
            _fmt(r["build_ms"]), _fmt(r["read_ms"]), _fmt(r["solve_ms"]), _fmt(r["pyomo_ms"]),
            f"{float(r['pyomo_ms']) / float(r['solve_ms']):.2f}×",  # type: ignore[arg-type]
            _fmt(r["check_rows_ms"]), _fmt(r["check_matrix_ms"]), str(r["identical"])]) + " |")
    return "\n".join(lines)


def measure_batch(sizes: list[int]) -> list[dict[str, float | str | None]]:
    from batch_common import mixed_pairs

    import psab
    from psab.evaluators import batch

    largest = mixed_pairs(max(sizes))
    # warm: references in this process and in the pool's workers, the pool started
    psab.evaluate_many(largest[: min(len(largest), 2000)], workers=1)
    psab.evaluate_many(largest[: min(len(largest), 2000)], workers=2)
    pool = batch._POOLS[(2, "surrogate")]
    rows: list[dict[str, float | str | None]] = []
    for n in sizes:
        pairs = largest[:n]
        reps = 5 if n <= 100 else (3 if n <= 1000 else 1)
        one_wall, one_cpu, two_wall, two_cpu = [], [], [], []
        for _ in range(reps):
            w0, c0 = time.perf_counter(), time.process_time()
            first = psab.evaluate_many(pairs, workers=1)
            one_wall.append(time.perf_counter() - w0)
            one_cpu.append(time.process_time() - c0)
            pool.cpu_seconds = [0.0] * 2
            w0, c0 = time.perf_counter(), time.process_time()
            second = psab.evaluate_many(pairs, workers=2)
            two_wall.append(time.perf_counter() - w0)
            caller = time.process_time() - c0
            two_cpu.append(max([*pool.cpu_seconds, caller]))
        same = all(a.to_json() == b.to_json() for a, b in zip(first, second, strict=True))
        row: dict[str, float | str | None] = {
            "answers": float(n),
            "one_wall_ms": 1e3 * statistics.median(one_wall) / n, "one_cpu_ms": 1e3 * statistics.median(one_cpu) / n,
            "two_wall_ms": 1e3 * statistics.median(two_wall) / n, "two_cpu_ms": 1e3 * statistics.median(two_cpu) / n,
            "identical": "yes" if same else "NO",
        }
        rows.append(row)
        print(row, flush=True)
    batch.shutdown_workers()
    return rows


def batch_table(rows: list[dict[str, float | str | None]]) -> str:
    head = ("answers", "1 worker wall ms/answer", "1 worker CPU ms/answer", "2 workers wall ms/answer",
            "2 workers busiest CPU ms/answer", "CPU speed-up", "wall speed-up", "same results")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join([
            f"{int(r['answers']):,}", _fmt(r["one_wall_ms"]), _fmt(r["one_cpu_ms"]), _fmt(r["two_wall_ms"]),  # type: ignore[arg-type]
            _fmt(r["two_cpu_ms"]), f"{float(r['one_cpu_ms']) / float(r['two_cpu_ms']):.2f}×",  # type: ignore[arg-type]
            f"{float(r['one_wall_ms']) / float(r['two_wall_ms']):.2f}×", str(r["identical"])]) + " |")  # type: ignore[arg-type]
    return "\n".join(lines)


def plot(ac: list[dict[str, float | str | None]], horizon: list[dict[str, float | str | None]],
         batch_rows: list[dict[str, float | str | None]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [p for p in (ac, horizon, batch_rows) if p]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.6), squeeze=False)
    axes = list(axes[0])
    if ac:
        ax = axes.pop(0)
        for key, label, style in (("runpp_ms", "pandapower runpp", "o-"), ("lightsim_ms", "lightsim2grid ac_pf", "s-"),
                                  ("dense_ms", "surrogate NR, dense", "^--"), ("splu_ms", "surrogate NR, sparse (splu)", "v-"),
                                  ("klu_cold_ms", "surrogate NR, KLU, first solve", "d-"),
                                  ("klu_warm_ms", "surrogate NR, KLU, same network", "d:")):
            pts = [(float(r["buses"]), float(r[key])) for r in ac if r.get(key) is not None]  # type: ignore[arg-type]
            if pts:
                ax.loglog(*zip(*pts), style, label=label)
        ax.set_xlabel("buses")
        ax.set_ylabel("CPU time per power flow, ms (median)")
        ax.set_title("AC power flow against network size")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    if horizon:
        ax = axes.pop(0)
        colours = {}
        for problem in dict.fromkeys(str(r["problem"]) for r in horizon):
            pts = [r for r in horizon if r["problem"] == problem]
            steps = [float(r["steps"]) for r in pts]  # type: ignore[arg-type]
            line, = ax.loglog(steps, [float(r["solve_ms"]) for r in pts], "o-", label=f"{problem}: arrays → HiGHS")  # type: ignore[arg-type]
            colours[problem] = line.get_color()
            ax.loglog(steps, [float(r["pyomo_ms"]) for r in pts], "x--", color=line.get_color(),  # type: ignore[arg-type]
                      label=f"{problem}: Pyomo path")
        ax.set_xscale("log", base=2)
        ticks = sorted({float(r["steps"]) for r in horizon})  # type: ignore[arg-type]
        ax.set_xticks(ticks, [f"{int(t)}" for t in ticks])
        ax.minorticks_off()
        ax.set_xlabel("steps in the horizon (the public day tiled)")
        ax.set_ylabel("CPU ms per reference solve, formulation built (median)")
        ax.set_title("Dispatch LP / MILP against horizon length")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    if batch_rows:
        ax = axes.pop(0)
        n = [float(r["answers"]) for r in batch_rows]  # type: ignore[arg-type]
        for key, label, style in (("one_wall_ms", "1 worker, wall", "o-"), ("one_cpu_ms", "1 worker, CPU", "o:"),
                                  ("two_wall_ms", "2 workers, wall", "s-"), ("two_cpu_ms", "2 workers, busiest CPU", "s:")):
            ax.loglog(n, [float(r[key]) for r in batch_rows], style, label=label)  # type: ignore[arg-type]
        ax.set_xlabel("answers in the batch")
        ax.set_ylabel("ms per answer (median)")
        ax.set_title("psab.evaluate_many against batch size")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="ac,horizon,batch", help="comma-separated: ac, horizon, batch")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--max-buses", type=int, default=3000)
    ap.add_argument("--max-days", type=int, default=32, help="longest horizon, in tiled days")
    ap.add_argument("--batch-sizes", default="10,100,1000,10000")
    ap.add_argument("--png", type=Path, default=None, help="draw the curves here (e.g. docs/scaling.png)")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    ac = measure(args.repeats, args.max_buses) if "ac" in parts else []
    horizon = measure_horizon(args.repeats, args.max_days) if "horizon" in parts else []
    batch_rows = measure_batch([int(x) for x in args.batch_sizes.split(",")]) if "batch" in parts else []
    for rows, render in ((ac, table), (horizon, horizon_table), (batch_rows, batch_table)):
        if rows:
            print()
            print(render(rows))
    if args.png:
        plot(ac, horizon, batch_rows, args.png)
        print(f"\nwrote {args.png}")


if __name__ == "__main__":
    main()
