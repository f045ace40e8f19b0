"""Benchmark: how the AC power-flow cost grows with network size (issue 24, item 4) — the
surrogate Newton-Raphson (dense, and sparse with SciPy's LU) against ``pandapower.runpp`` and
lightsim2grid's C++ Newton-Raphson, on pandapower's MATPOWER cases from 9 to 2,869 buses.

Run from the repository root::

    python benchmarks/bench_scaling.py [--repeats N] [--max-buses N] [--png docs/scaling.png]

Medians of CPU time (this process's, so a loaded machine's neighbours do not count; BLAS pinned
to one thread). Each row also gives the largest difference of the surrogate's bus voltages from
pandapower's (complex, pu). The surrogate times include building ``Y_bus``; lightsim2grid's
include only its solve (its model is converted once, as the fast AC path does).
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


def _cpu_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()
    samples = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        samples.append(time.process_time() - t0)
    return statistics.median(samples) * 1e3


def measure(repeats: int, max_buses: int) -> list[dict[str, float | str | None]]:
    warnings.simplefilter("ignore")
    import pandapower.networks as pn

    from psab.backends import pandapower_net as ppn
    from psab.backends.pandapower_pf import network_from_ppc
    from psab.backends.sparse_power_flow import solve_ac_sparse
    from psab.surrogates.ac_power_flow import solve_ac

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
        sparse = solve_ac_sparse(network)
        row: dict[str, float | str | None] = {
            "case": name, "buses": float(network.n_bus),
            "runpp_ms": _cpu_ms(lambda net=net: ppn.run_power_flow(net), n),
            "sparse_ms": _cpu_ms(lambda network=network: solve_ac_sparse(network), n),
            "dense_ms": None, "lightsim_ms": None,
            "dv_pu": float(np.max(np.abs(sparse.V[lookup] - v_pp))),
        }
        if network.n_bus <= DENSE_MAX_BUSES:
            dense = solve_ac(network, Y=network.ybus())
            row["dense_ms"] = _cpu_ms(lambda network=network: solve_ac(network, Y=network.ybus()), n)
            row["dense_sparse_dv_pu"] = float(np.max(np.abs(dense.V - sparse.V)))
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
    head = ("case", "buses", "runpp ms", "lightsim2grid ms", "surrogate dense ms", "surrogate sparse ms",
            "runpp / sparse", "max |ΔV| sparse vs runpp (pu)")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        ratio = float(r["runpp_ms"]) / float(r["sparse_ms"])  # type: ignore[arg-type]
        lines.append("| " + " | ".join([str(r["case"]), f"{int(r['buses'])}", _fmt(r["runpp_ms"]), _fmt(r["lightsim_ms"]),  # type: ignore[arg-type]
                                        _fmt(r["dense_ms"]), _fmt(r["sparse_ms"]), f"{ratio:.1f}×", f"{float(r['dv_pu']):.1e}"]) + " |")  # type: ignore[arg-type]
    return "\n".join(lines)


def plot(rows: list[dict[str, float | str | None]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, label, style in (("runpp_ms", "pandapower runpp", "o-"), ("lightsim_ms", "lightsim2grid ac_pf", "s-"),
                              ("dense_ms", "surrogate NR, dense", "^--"), ("sparse_ms", "surrogate NR, sparse (splu)", "v-")):
        pts = [(float(r["buses"]), float(r[key])) for r in rows if r.get(key) is not None]  # type: ignore[arg-type]
        if pts:
            ax.loglog(*zip(*pts), style, label=label)
    ax.set_xlabel("buses")
    ax.set_ylabel("CPU time per power flow, ms (median)")
    ax.set_title("AC power flow cost against network size (MATPOWER cases)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--max-buses", type=int, default=3000)
    ap.add_argument("--png", type=Path, default=None, help="draw the curves here (e.g. docs/scaling.png)")
    args = ap.parse_args()
    rows = measure(args.repeats, args.max_buses)
    print()
    print(table(rows))
    if args.png:
        plot(rows, args.png)
        print(f"\nwrote {args.png}")


if __name__ == "__main__":
    main()
