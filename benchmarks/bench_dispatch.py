"""Reference solve time of the dispatch families: Pyomo build and HiGHS solve reported
separately, against the same LP handed to highspy directly, measured in the same run.

For each family's public case:

- ``build``   — the formulation turned into a Pyomo model (``psab.solvers.dispatch.build_model``:
  variables with bounds, ``MatrixConstraint`` rows read from the shared row definitions, cost);
- ``solve``   — ``psab.solvers.core.solve`` on that model: reading it into HiGHS's form, HiGHS
  itself, loading the values back;
- ``direct``  — the same LP given to highspy with no Pyomo at all. For
  microgrid_economic_dispatch the matrices are written by hand below with numpy (the baseline
  of performance-notes.md); for the other families they are assembled from the same row
  definitions by a plain-Python reader (what any modelling layer must at least cost);
- ``ratio``   — (build + solve) / direct, the modelling overhead;
- ``evaluate`` — ``psab.evaluate`` of the reference answer with the reference cached (the
  cost of judging one answer), and ``evaluate*`` with the cache cleared (reference solve
  included).

rolling_microgrid_dispatch solves one LP per forecast window: its rows are the whole loop
(24 LPs). Medians of interleaved repeats of the process's CPU time (``--wall`` for wall time);
run ``python benchmarks/bench_dispatch.py [repeats] [--wall]`` from the repository root. On a
shared 2-core machine trust the ratios more than the times.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psab  # noqa: E402
from psab.evaluators.cache import clear_reference_cache  # noqa: E402
from psab.paths import case_dir  # noqa: E402
from psab.solvers import algebra, core  # noqa: E402
from psab.solvers.dispatch import Formulation, build_model  # noqa: E402

# ---------------------------------------------------------------------------- direct paths


def _highs_solve(n: int, c: np.ndarray, col_lo: np.ndarray, col_hi: np.ndarray, start: np.ndarray, index: np.ndarray,
                 value: np.ndarray, row_lo: np.ndarray, row_hi: np.ndarray, integer: np.ndarray | None = None,
                 rowwise: bool = True) -> float:
    import highspy

    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = len(row_lo)
    lp.col_cost_ = c
    lp.col_lower_ = col_lo
    lp.col_upper_ = col_hi
    lp.row_lower_ = row_lo
    lp.row_upper_ = row_hi
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise if rowwise else highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = start
    lp.a_matrix_.index_ = index
    lp.a_matrix_.value_ = value
    if integer is not None and integer.any():
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous for i in integer]
    h = core._new_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 0)
    if integer is not None and integer.any():
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 0.0)
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(h.modelStatusToString(h.getModelStatus()))
    return float(h.getInfo().objective_function_value)


def direct_microgrid(inputs: dict[str, Any]) -> float:
    """The day-ahead microgrid LP written by hand: columns [diesel, import, export, charge,
    discharge, pv, soc] × T, rows [balance × T, energy recursion × T, final energy]."""
    import highspy

    inf = highspy.kHighsInf
    load = np.asarray(inputs["load_mw"], float)
    pv = np.asarray(inputs["pv_forecast_mw"], float)
    T = len(load)
    dt = inputs["step_minutes"] / 60.0
    g, d, b = inputs["grid"], inputs["diesel"], inputs["battery"]
    DG, IM, EX, CH, DI, PV, SOC = (k * T for k in range(7))
    n = 7 * T
    col_lo = np.zeros(n)
    col_hi = np.concatenate([np.full(T, d["p_max_mw"]), np.full(T, g["import_limit_mw"]), np.full(T, g["export_limit_mw"]),
                             np.full(T, b["p_charge_max_mw"]), np.full(T, b["p_discharge_max_mw"]), pv, np.full(T, b["soc_max_mwh"])])
    col_lo[SOC:] = b["soc_min_mwh"]
    c = np.zeros(n)
    c[DG:IM] = d["cost_per_mwh"] * dt
    c[IM:EX] = np.asarray(g["import_price_per_mwh"], float) * dt
    c[EX:CH] = -np.asarray(g["export_price_per_mwh"], float) * dt
    c[DI:PV] = b.get("cycle_cost_per_mwh", 0.0) * dt
    t = np.arange(T)
    # balance rows: +dg +imp −exp −ch +dis +pv = load
    bal_cols = np.stack([DG + t, IM + t, EX + t, CH + t, DI + t, PV + t], axis=1)
    bal_vals = np.tile([1.0, 1.0, -1.0, -1.0, 1.0, 1.0], (T, 1))
    # recursion rows: soc_t − soc_(t−1) − η_c·dt·ch + dt/η_d·dis = (E0 at t = 0, else 0)
    rec_cols = [[SOC + k, CH + k, DI + k] + ([SOC + k - 1] if k else []) for k in range(T)]
    rec_vals = [[1.0, -b["eta_charge"] * dt, dt / b["eta_discharge"]] + ([-1.0] if k else []) for k in range(T)]
    index = np.concatenate([bal_cols.ravel(), *[np.asarray(x) for x in rec_cols], [SOC + T - 1]])
    value = np.concatenate([bal_vals.ravel(), *[np.asarray(x) for x in rec_vals], [1.0]])
    lengths = [6] * T + [len(x) for x in rec_cols] + [1]
    start = np.concatenate([[0], np.cumsum(lengths)])
    e0 = np.zeros(T)
    e0[0] = b["soc_initial_mwh"]
    row_lo = np.concatenate([load, e0, [b["soc_terminal_min_mwh"]]])
    row_hi = np.concatenate([load, e0, [inf]])
    return _highs_solve(n, c, col_lo, col_hi, start, index.astype(np.int64), value, row_lo, row_hi)


class _Columns:
    """A namespace of variables as column indices, read with the algebra's linear probe."""

    def __init__(self, f: Formulation) -> None:
        self.offsets: dict[str, int] = {}
        n = 0
        for var in f.variables.values():
            self.offsets[var.name] = n
            n += int(np.prod(var.shape))
        self.n = n
        self._f = f

    def __getattr__(self, name: str) -> Any:
        var = self._f.variables[name]
        base = self.offsets[name]
        flat = np.arange(int(np.prod(var.shape))).reshape(var.shape)

        class Indexer:
            def __getitem__(self, i: Any) -> algebra.LinearForm:
                return algebra.LinearForm([base + int(flat[i])], [1.0], 0.0)

        setattr(self, name, Indexer())
        return getattr(self, name)


def direct_from_rows(f: Formulation) -> float:
    """The formulation's LP assembled into arrays without Pyomo and solved with highspy."""
    import highspy

    inf = highspy.kHighsInf
    cols = _Columns(f)
    col_lo = np.full(cols.n, -inf)
    col_hi = np.full(cols.n, inf)
    integer = np.zeros(cols.n, dtype=bool)
    for var in f.variables.values():
        sl = slice(cols.offsets[var.name], cols.offsets[var.name] + int(np.prod(var.shape)))
        if var.lower is not None:
            col_lo[sl] = np.broadcast_to(np.asarray(var.lower, float), var.shape).ravel()
        if var.upper is not None:
            col_hi[sl] = np.broadcast_to(np.asarray(var.upper, float), var.shape).ravel()
        integer[sl] = var.binary
    starts, index, value, lo, hi = [0], [], [], [], []
    for con in f.constraints:
        for i in con.index:
            form = con.body(cols, i)
            terms = form.collect() if isinstance(form, algebra.LinearForm) else {}
            if not terms:
                continue
            index.extend(terms)
            value.extend(terms.values())
            starts.append(len(index))
            a, b_ = con.bounds(i)
            lo.append(-inf if a is None else a - form.constant)
            hi.append(inf if b_ is None else b_ - form.constant)
    c = np.zeros(cols.n)
    for name, coef in f.costs.items():
        c[cols.offsets[name]:cols.offsets[name] + coef.size] = coef.ravel()
    return _highs_solve(cols.n, c, col_lo, col_hi, np.asarray(starts, np.int64), np.asarray(index, np.int64),
                        np.asarray(value, float), np.asarray(lo, float), np.asarray(hi, float), integer) + f.fixed_cost


# ---------------------------------------------------------------------------- families


def _formulations(family: str, task: psab.Task) -> list[Formulation]:
    """The LP(s) the family's reference solves on ``task``."""
    inputs = task.public_inputs
    if family == "rolling_microgrid_dispatch":
        from psab.families.rolling_microgrid_dispatch import receding_horizon  # noqa: F401 - the loop being timed
        from psab.solvers.dispatch import MicrogridData, build_microgrid_dispatch

        # the windows from the reference's own state trajectory (solved once, outside the timing)
        answer = psab.solve(task).answer
        soc = [inputs["battery"]["soc_initial_mwh"]] + [s["soc_mwh"] for s in answer["schedule"][:-1]]
        return [build_microgrid_dispatch(MicrogridData.from_inputs(inputs, w["load_mw"], w["pv_mw"], soc_initial_mwh=soc[k],
                                                                   first_step=k),
                                         pv_curtailable=False, headroom_mw=float(inputs["pcc_headroom_mw"]))
                for k, w in enumerate(inputs["forecast_windows"])]
    module = __import__(f"psab.families.{family}", fromlist=["formulation"])
    if family == "islanded_microgrid_pq_dispatch":
        return [module.formulation(inputs, polygon=True)]
    return [module.formulation(inputs)]


FAMILIES = (
    "microgrid_economic_dispatch",
    "rolling_microgrid_dispatch",
    "islanded_microgrid_pq_dispatch",
    "dispatch_uncertainty",
    "hydro_thermal_storage_uc",
)


#: the clock of every sample: CPU time of this process (HiGHS runs single-threaded), which a
#: shared machine's other jobs disturb far less than wall time; ``--wall`` switches to wall time
CLOCK = time.process_time


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = CLOCK()
    out = fn()
    return CLOCK() - t0, out


def measure(family: str, repeats: int) -> dict[str, Any]:
    task = psab.load_case(case_dir(family))
    forms = _formulations(family, task)
    direct: Callable[[Formulation], float] = (
        (lambda f: direct_microgrid(task.public_inputs)) if family == "microgrid_economic_dispatch" else direct_from_rows
    )
    samples: dict[str, list[float]] = {k: [] for k in ("build", "solve", "direct", "evaluate", "evaluate*")}
    objectives = set()
    solution = psab.solve(task)
    for _ in range(repeats):
        build = solve = dir_ = 0.0
        for f in forms:
            tb, m = _timed(lambda f=f: build_model(f))
            ts, r = _timed(lambda m=m: core.solve(m))
            td, obj = _timed(lambda f=f: direct(f))
            build, solve, dir_ = build + tb, solve + ts, dir_ + td
            objectives.add(round(r.objective - obj, 6))
        samples["build"].append(build)
        samples["solve"].append(solve)
        samples["direct"].append(dir_)
        samples["evaluate"].append(_timed(lambda: psab.evaluate(task, solution))[0])
        clear_reference_cache()
        samples["evaluate*"].append(_timed(lambda: psab.evaluate(task, solution))[0])
    if objectives != {0.0}:
        raise RuntimeError(f"{family}: Pyomo and direct objectives differ by {sorted(objectives)}")
    med = {k: statistics.median(v) * 1e3 for k, v in samples.items()}
    med["ratio"] = (med["build"] + med["solve"]) / med["direct"]
    med["lps"] = len(forms)
    med["rows"] = sum(len(c.index) for f in forms for c in f.constraints)
    med["columns"] = sum(int(np.prod(v.shape)) for f in forms for v in f.variables.values())
    return med


def main(argv: list[str]) -> int:
    global CLOCK
    if "--wall" in argv:
        CLOCK = time.perf_counter
        argv = [a for a in argv if a != "--wall"]
    repeats = int(argv[1]) if len(argv) > 1 else 20
    core.solve(build_model(_formulations("microgrid_economic_dispatch", psab.load_case(case_dir("microgrid_economic_dispatch")))[0]))
    header = ("family", "LPs", "cols", "rows", "build ms", "solve ms", "direct ms", "ratio", "evaluate ms", "evaluate* ms")
    rows = []
    for family in FAMILIES:
        m = measure(family, repeats if family != "rolling_microgrid_dispatch" else max(3, repeats // 4))
        rows.append((family, m["lps"], m["columns"], m["rows"], f"{m['build']:.2f}", f"{m['solve']:.2f}",
                     f"{m['direct']:.2f}", f"{m['ratio']:.2f}", f"{m['evaluate']:.2f}", f"{m['evaluate*']:.2f}"))
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(x).ljust(w) for x, w in zip(r, widths, strict=True)))
    print(f"\n{'wall' if CLOCK is time.perf_counter else 'CPU'} time, medians of {repeats} interleaved repeats "
          f"(rolling: {max(3, repeats // 4)}); "
          "ratio = (build + solve) / direct; direct for microgrid_economic_dispatch is hand-built, "
          "for the others assembled from the same rows without Pyomo")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
