"""Reliability and restoration: reference solve and evaluation per family and backend, the AC
check's cost against the LinDistFlow surrogate's, and the kernels underneath.

Run: ``PYTHONPATH=. python benchmarks/bench_reliability.py [--quick]``. Prints Markdown tables of
medians (the machine is shared and noisy: trust ratios more than absolute times):

- per family and backend: evaluating the public case's reference answer with the reference
  cached and uncached, and the reference solve alone;
- flisr_restoration's judges on the public reference plan: LinDistFlow on the energised tree
  against pandapower's AC power flow of the same configuration (template net cached, a deep
  copy and ``runpp`` per check);
- LinDistFlow voltages of Kerber's village network (116 buses) against pandapower ``runpp`` on it;
- fci_placement: the MILP against the exhaustive search on the public case.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import family_table, fmt_ms, median_time, print_table  # noqa: E402

FAMILIES = ("flisr_restoration", "fault_section_localization", "fci_placement", "fci_saidi_caidi", "operator_breaker_load_actions")


def ac_vs_surrogate(repeat: int) -> None:
    import psab
    from psab import backends
    from psab.families import flisr_restoration as fam
    from psab.paths import case_dir
    from psab.surrogates import restoration as rs

    task = psab.load_case(case_dir(fam.FAMILY_ID))
    inp = task.public_inputs
    m = fam.model(inp)
    ans = fam.solve(task, "surrogate").answer
    sw = {s["id"]: s["branch"] for s in inp["switches"]}
    closed = m["normally_closed"].copy()
    for x in ans["open_switches"]:
        closed[m["br_ids"].index(sw[x])] = False
    for x in ans["close_switches"]:
        closed[m["br_ids"].index(sw[x])] = True

    def lin():
        return rs.configuration_flow(m["n"], m["f"], m["t"], m["r"], m["x"], closed, m["src"], inp["source_vm_pu"],
                                     inp["base_kv"], m["p"] + m["pf"], m["q"] + m["qf"])

    rows = [("LinDistFlow on the energised tree", fmt_ms(median_time(lin, repeat=repeat * 4)))]
    rows.append(("surrogate evaluation (all checks)", fmt_ms(median_time(lambda: fam.evaluate(task, ans, fam._Ctx(task, "surrogate")), repeat=repeat))))
    if backends.available("pandapower"):
        from psab.backends import pandapower_restoration as ppr

        closed_sw = {s for s, b in sw.items() if closed[m["br_ids"].index(b)]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rows.append(("pandapower AC check (deep copy + runpp)",
                         fmt_ms(median_time(lambda: ppr.ac_check("bench", inp, closed_sw), repeat=max(5, repeat // 3)))))
            rows.append(("pandapower evaluation (all checks)",
                         fmt_ms(median_time(lambda: fam.evaluate(task, ans, fam._Ctx(task, "pandapower")), repeat=max(5, repeat // 3)))))
    print_table("flisr_restoration: the AC check against the surrogate (public reference plan, median ms)",
                ("judge", "median ms"), rows)


def lin_dist_flow_vs_runpp(repeat: int) -> None:
    import numpy as np

    from psab import backends
    from psab.surrogates.feeders import feeder
    from psab.surrogates.lin_dist_flow import radial_tree, voltages

    f = feeder("kerber_dorfnetz")
    pos = {b: i for i, b in enumerate(f.bus_ids)}
    r, x = f.z_pu(1.0)
    p, q = f.bus_demand_mw()
    tree = radial_tree(len(f.bus_ids), [pos[b.from_bus] for b in f.branches], [pos[b.to_bus] for b in f.branches], pos[f.root_bus])
    rows = [("radial_tree (orientation + path matrix)", fmt_ms(median_time(
        lambda: radial_tree(len(f.bus_ids), [pos[b.from_bus] for b in f.branches], [pos[b.to_bus] for b in f.branches],
                            pos[f.root_bus]), repeat=repeat)))]
    rows.append(("LinDistFlow voltages, one case", fmt_ms(median_time(lambda: voltages(tree, r, x, p, q, 1.0), repeat=repeat * 4))))
    P = np.outer(p, np.linspace(0.2, 1.2, 8760))
    Q = np.outer(q, np.linspace(0.2, 1.2, 8760))
    rows.append(("LinDistFlow voltages, 8760 load cases at once", fmt_ms(median_time(lambda: voltages(tree, r, x, P, Q, 1.0), repeat=5))))
    if backends.available("pandapower"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pandapower as pp
            import pandapower.networks as pn

            net = pn.create_kerber_dorfnetz()
            rows.append(("pandapower runpp (numba off), one case",
                         fmt_ms(median_time(lambda: pp.runpp(net, numba=False), repeat=max(5, repeat // 3)))))
    print_table("LinDistFlow against AC power flow on Kerber's village network (116 buses, median ms)", ("what", "median ms"), rows)


def placement(repeat: int) -> None:
    import psab
    from psab.families import fci_placement as fam
    from psab.paths import case_dir
    from psab.solvers.fci_placement import solve_placement
    from psab.surrogates import feeder_reliability as fr

    task = psab.load_case(case_dir(fam.FAMILY_ID))
    m = fam.model(task.public_inputs)
    k = int(task.public_inputs["budget_fci"])
    rows = [
        ("MILP (Pyomo + HiGHS)", fmt_ms(median_time(
            lambda: solve_placement(m["tree"], m["weight"], m["patrol"], m["device"], k, m["installed"]), repeat=max(5, repeat // 3)))),
        ("exhaustive search", fmt_ms(median_time(
            lambda: fr.placement_costs(m["tree"], m["rate"], m["customers"], m["patrol"], m["device"], k, m["installed"]),
            repeat=max(5, repeat // 3)))),
    ]
    print_table(f"fci_placement: MILP against exhaustive search (10 sections, k = {k}, median ms)", ("method", "median ms"), rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--repeat", type=int, default=None)
    args = ap.parse_args()
    repeat = args.repeat or (5 if args.quick else 15)
    family_table(FAMILIES, repeat)
    ac_vs_surrogate(repeat)
    lin_dist_flow_vs_runpp(repeat)
    placement(repeat)


if __name__ == "__main__":
    main()
