"""The study tier's difficulty table (issue 31 item 7; shared/spec/studies.md, "Measuring the tier").

Per study, level and declared backend: the model's size (the study module's ``model_size(task)``:
buses, branches, contingencies, time steps …), the reference's time (one cold solve in a fresh
process: wall seconds and CPU seconds, which a loaded machine inflates less),
one evaluation's time (the reference answer, reference cached: what an RL loop pays per answer),
and the scores of the baselines — ``do nothing`` (``do_nothing_answer``), ``DC only``
(``dc_only_answer``: analyses on a linear model, the decision chosen on it), ``naive``
(``FamilySpec.naive_answer``: the cheapest local fix per violation), the built-in ``mutant`` (one
realistic mistake) and the reference (must be 1). Level 1 is the public case; higher levels are
held-out draws under a benchmark seed.

    python benchmarks/bench_studies.py [--study ID ...] [--levels 1 2] [--draws N] [--backend B ...] [--json FILE]

Every number is one measurement on this machine (2 cores, shared): the reference of a study
costs seconds to a minute, so medians of repeats are left to ``--draws``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
# time real solves: no reference kept on disk by an earlier run (psab.evaluators.cache.on_disk)
os.environ["PSAB_REFERENCE_CACHE"] = "0"

import psab  # noqa: E402
from psab.mutations import realistic_mistake  # noqa: E402

from common import print_table  # noqa: E402

SEED = "study-difficulty-2026"
BASELINES = ("do_nothing", "dc_only", "naive", "mutant", "reference")


def _baseline(spec: psab.registry.FamilySpec, name: str, task: psab.Task, reference: dict[str, Any]) -> dict[str, Any] | None:
    module = importlib.import_module(spec.solve.__module__)
    if name == "reference":
        return reference
    if name == "mutant":  # as builtin:mutant makes it (keys sorted, run seed 0)
        m = realistic_mistake(json.loads(json.dumps(reference, sort_keys=True)), task.submission_schema, task.id)
        return m.answer if m is not None else None
    if name == "naive":
        return spec.naive_answer(task) if spec.naive_answer is not None else None
    fn = getattr(module, f"{name}_answer", None)
    return fn(task) if fn is not None else None


def _size(spec: psab.registry.FamilySpec, task: psab.Task) -> str:
    fn = getattr(importlib.import_module(spec.solve.__module__), "model_size", None)
    if fn is None:
        return "-"
    return ", ".join(f"{k} {v}" for k, v in fn(task).items())


#: The cold reference solve, in a process of its own: nothing this process memoised (a held-out
#: draw's acceptance builds the study's engines and base flows) is reused. It prints the solve's
#: wall seconds and the CPU seconds of itself and every live descendant (/proc: a study's worker
#: pool hangs off a fork server, whose children no ``RUSAGE_CHILDREN`` of ours ever counts).
_COLD = """
import json, os, sys, time
import psab

def tree_cpu_s():
    tick, parent = os.sysconf("SC_CLK_TCK"), {}
    cpu = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(pid)], cpu[int(pid)] = int(f[1]), (int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])) / tick
    mine = {os.getpid()}
    grew = True
    while grew:
        more = {p for p, pp in parent.items() if pp in mine} - mine
        grew, mine = bool(more), mine | more
    return sum(cpu.get(p, 0.0) for p in mine)

d = json.load(sys.stdin)
t = psab.Task.from_dict(d["task"], key=d["key"])
c0, t0 = tree_cpu_s(), time.perf_counter()
psab.solve(t, d["backend"])
print(time.perf_counter() - t0, tree_cpu_s() - c0)
"""


def cold_solve(task: psab.Task, backend: str) -> tuple[float, float]:
    """(wall s, CPU s) of the reference solve in a fresh process with no reference cache; the CPU
    seconds are the process's and its descendants' (workers included) over the solve alone."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", _COLD], input=json.dumps({"task": task.to_dict(), "key": task.key,
                                                                          "backend": backend}),
                         capture_output=True, text=True, check=True, env={**os.environ, "PSAB_REFERENCE_CACHE": "0"})
    wall, cpu = out.stdout.split()[-2:]
    return float(wall), float(cpu)


def measure(spec: psab.registry.FamilySpec, level: int, backend: str, draws: int) -> dict[str, Any]:
    tasks = [spec.public_task()] if level == 1 else \
        [psab.generate(spec.id, SEED, i, backend=backend, level=level) for i in range(draws)]
    ref_s, ref_cpu_s, eval_s = [], [], []
    scores: dict[str, list[float]] = {b: [] for b in BASELINES}
    for task in tasks:
        wall, cpu = cold_solve(task, backend)
        ref_s.append(wall)
        ref_cpu_s.append(cpu)
        # the answer for the baselines (timed above, in its own process; a draw's acceptance has
        # it in this process's memory already)
        reference = psab.solve(task, backend).answer
        t0 = time.perf_counter()
        psab.evaluate(task, {"answer": reference}, backend)
        eval_s.append(time.perf_counter() - t0)
        for name in BASELINES:
            answer = _baseline(spec, name, task, reference)
            if answer is not None:
                scores[name].append(psab.evaluate(task, {"answer": answer}, backend).score)
    return {"study": spec.id, "level": level, "backend": backend, "cases": len(tasks), "size": _size(spec, tasks[0]),
            "reference_s": statistics.median(ref_s), "reference_cpu_s": statistics.median(ref_cpu_s),
            "evaluate_s": statistics.median(eval_s),
            **{name: (statistics.fmean(v) if v else None) for name, v in scores.items()}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--study", action="append", help="a study id (default: every study)")
    ap.add_argument("--levels", type=int, nargs="+", help="levels (default: every level the study has)")
    ap.add_argument("--draws", type=int, default=1, help="held-out draws per level above 1 (default 1)")
    ap.add_argument("--backend", action="append", help="backends (default: every declared, installed one)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    from psab import backends as _backends

    specs = [psab.get_family(s) for s in args.study] if args.study else list(psab.studies())
    rows: list[dict[str, Any]] = []
    for spec in specs:
        for backend in [b for b in (args.backend or spec.backends) if b in spec.backends and _backends.available(b)]:
            for level in args.levels or spec.levels:
                if level in spec.levels:
                    rows.append(measure(spec, level, backend, args.draws))

    def cell(v: Any) -> str:
        return "-" if v is None else f"{v:.3f}"

    print_table("Study tier: model size, reference and evaluation time, baseline scores",
                ("study", "level", "backend", "cases", "model", "reference s", "reference CPU s", "evaluate s",
                 *BASELINES),
                [(r["study"], r["level"], r["backend"], r["cases"], r["size"], f"{r['reference_s']:.1f}",
                  f"{r['reference_cpu_s']:.1f}", f"{r['evaluate_s']:.2f}", *[cell(r[b]) for b in BASELINES])
                 for r in rows])
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end; reference s is the solve's wall time in a "
          "fresh process, reference CPU s the CPU of that process and its workers over the solve")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
