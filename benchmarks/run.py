"""psab's core benchmark: import weight, evaluation per family and backend, reference solves,
and the pandapower backend's overhead over a bare pandapower call. Prints Markdown tables of
medians; ratios compare against a baseline measured in the same run.

Targets (issue 2, measured on a 2-core machine): ``import psab`` within 1.5× of ``import numpy``;
a surrogate evaluation of an exact family under 1 ms median with the reference cached; the
pandapower backend within 1.5× of the bare pandapower call.

    python benchmarks/run.py [--quick] [--family ID ...] [--all]

``--all`` also runs every topic script ``benchmarks/bench_*.py`` after the core tables.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import family_table, fmt_ms, interleaved_process_times, median_time, print_table  # noqa: E402


def import_weight(repeat: int) -> None:
    t = interleaved_process_times({"python": "pass", "numpy": "import numpy", "psab": "import psab"}, repeat=repeat)
    base = t["python"]
    rows = [
        ("python -c pass", fmt_ms(base), "-", "-"),
        ("import numpy", fmt_ms(t["numpy"]), fmt_ms(t["numpy"] - base), "1.00"),
        ("import psab", fmt_ms(t["psab"]), fmt_ms(t["psab"] - base), f"{(t['psab'] - base) / (t['numpy'] - base):.2f}"),
    ]
    print_table("Import weight (process wall time, median)", ("what", "ms", "ms net of interpreter", "× numpy"), rows)


def pandapower_overhead(repeat: int) -> None:
    """Our pandapower evaluation (net prepared, reference uncached) vs the bare pandapower call."""
    import psab
    from psab import backends
    from psab.backends import pandapower_net as ppn
    from psab.evaluators.cache import clear_reference_cache
    from psab.paths import case_dir

    if not backends.available("pandapower"):
        print("\n(pandapower not installed: overhead table skipped)")
        return
    rows = []
    task = psab.load_case(case_dir("ybus_construction"))
    sol = psab.solve(task, "pandapower")
    from psab.backends.pandapower_pf import build_net
    from psab.families.ybus_construction import network

    net = build_net(network(task.public_inputs), f_hz=float(task.public_inputs.get("frequency_hz", 50.0))).net
    ppn.run_power_flow(net)
    bare = median_time(lambda: ppn.run_power_flow(net), repeat=repeat)
    ours = median_time(lambda: psab.evaluate(task, sol, "pandapower"), repeat=repeat, setup=clear_reference_cache)
    rows.append(("ybus_construction", "runpp (flat start, numba off)", fmt_ms(bare), fmt_ms(ours), f"{ours / bare:.2f}"))
    print_table(
        "pandapower backend overhead (median ms; target ratio ≤ 1.5)",
        ("family", "bare call on a prepared net", "bare", "psab evaluate (ref uncached)", "ratio"),
        rows,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--family", action="append", default=[])
    ap.add_argument("--all", action="store_true", help="also run benchmarks/bench_*.py")
    args = ap.parse_args()
    repeat = 9 if args.quick else 25
    import_weight(5 if args.quick else 11)
    import psab  # after the import-weight measurement, which starts fresh processes anyway

    family_table([spec.id for spec in psab.families() if not args.family or spec.id in args.family], repeat)
    pandapower_overhead(max(5, repeat // 3))
    if args.all:
        for script in sorted(Path(__file__).parent.glob("bench_*.py")):
            print(f"\n# {script.name}")
            sys.stdout.flush()
            subprocess.run([sys.executable, str(script)] + (["--quick"] if args.quick else []), check=False)


if __name__ == "__main__":
    main()
