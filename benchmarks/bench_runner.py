"""The runner's own cost per case, apart from the agent's: bwrap against relocation.

Each case runs the whole per-case path — fresh sandbox, task and instructions written, the
scrubbed environment, the isolation layer, the agent, reading and classifying its solution,
evaluation, sandbox removal, and the durable record append (fsync) — with an agent that costs
almost nothing itself: a shell one-liner that writes the reference answer. The agent's own
time is measured the same way without any sandbox (the same command under plain
``subprocess``), interleaved with the runs, and subtracted.

Rows (medians over interleaved repeats, milliseconds):

setup        sandbox directory, task.json, instructions, environment
launch       process start to exit: isolation layer + the agent
bare agent   the same agent command without sandbox or isolation
isolation    launch − bare agent
evaluate     reading the solution, classification, evaluation
record       artifacts + record line, flushed and fsync'd
overhead     everything per case except the bare agent (the runner's cost)

Usage: ``python benchmarks/bench_runner.py [--repeat N] [--family ID]``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psab  # noqa: E402
from psab.runner.agents import AgentSpec  # noqa: E402
from psab.runner.execute import CaseJob, Settings, run_case  # noqa: E402
from psab.runner.sandbox import bwrap_problem, system_python  # noqa: E402
from psab.runner.store import RunDir  # noqa: E402


def _agent(answer_json: str) -> AgentSpec:
    # printf is a shell builtin: the agent itself costs one /bin/sh start.
    return AgentSpec(name="writer", command=f"printf '%s' {shlex.quote(answer_json)} > {{solution}}", retry_delay_s=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=40)
    ap.add_argument("--family", default="ybus_construction")
    args = ap.parse_args()

    spec = psab.get_family(args.family)
    task = spec.public_task()
    answer_json = json.dumps({"answer": psab.solve(task).answer, "rationale": "bench"})
    agent = _agent(answer_json)
    modes = ["relocate"] + (["bwrap"] if bwrap_problem(True) is None else [])
    samples: dict[str, dict[str, list[float]]] = {m: {} for m in modes}
    bare: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        run_dirs = {m: RunDir(Path(tmp) / m) for m in modes}
        for rd in run_dirs.values():
            rd.lock()
        cwd = Path(tmp) / "bare"
        cwd.mkdir()
        bare_cmd = ["/bin/sh", "-c", f"printf '%s' {shlex.quote(answer_json)} > {cwd / 'solution.json'}"]
        for i in range(args.repeat + 2):  # two warm-up rounds
            t0 = time.perf_counter()
            subprocess.run(bare_cmd, cwd=cwd, check=True, stdin=subprocess.DEVNULL)
            b = time.perf_counter() - t0
            for m in modes:
                job = CaseJob(agent=agent, split="public", index=None, task=task.to_dict(), task_key=task.key,
                              settings=Settings(isolation=m, default_timeout_s=60))
                t1 = time.perf_counter()
                outcome = run_case(job)
                t2 = time.perf_counter()
                rec = dict(outcome.record, task_id=f"{task.id}-{i}")
                run_dirs[m].append(rec, outcome.artifacts)
                t3 = time.perf_counter()
                att = outcome.record["attempts"][0]
                assert att["class"] == "scored" and att["result"]["perfect"], att
                if i < 2:
                    continue
                tm = att["timing"]
                row = samples[m]
                for k, v in (("setup", tm["setup_s"]), ("launch", tm["agent_s"]),
                             ("evaluate", tm["classify_s"] + tm["evaluate_s"] + tm["cleanup_s"]),
                             ("record", t3 - t2), ("case", t3 - t1),
                             ("overhead", (t3 - t1) - b), ("isolation", tm["agent_s"] - b)):
                    row.setdefault(k, []).append(v)
            if i >= 2:
                bare.append(b)
        for rd in run_dirs.values():
            rd.close()

    med = {m: {k: statistics.median(v) * 1e3 for k, v in s.items()} for m, s in samples.items()}
    bare_ms = statistics.median(bare) * 1e3
    print(f"\n## Runner overhead per case ({args.family}, {args.repeat} interleaved repeats, medians in ms; "
          f"system python {system_python()})\n")
    header = ["isolation", "setup", "launch", "bare agent", "isolation cost", "evaluate", "record",
              "case total", "runner overhead"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for m in modes:
        r = med[m]
        print(f"| {m} | {r['setup']:.2f} | {r['launch']:.2f} | {bare_ms:.2f} | {r['isolation']:.2f} | "
              f"{r['evaluate']:.2f} | {r['record']:.2f} | {r['case']:.2f} | {r['overhead']:.2f} |")
    if "bwrap" in med:
        ratio = med["bwrap"]["overhead"] / med["relocate"]["overhead"]
        print(f"\nbwrap overhead / relocate overhead: {ratio:.2f}×; target: bwrap overhead < 100 ms "
              f"({'met' if med['bwrap']['overhead'] < 100 else 'NOT met'})")
    else:
        print("\nbwrap is not usable here; only relocation measured")


if __name__ == "__main__":
    main()
