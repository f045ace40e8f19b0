"""Helpers for the runner tests: small runs on one cheap family, reading records back."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from psab.runner import RunOptions, builtin_agent, parse_agent_arg, resume, start
from psab.runner.run import RunReport

#: The runner is family-agnostic; the tests use the cheapest family so they stay fast however
#: many families are registered.
FAMILY = "ybus_construction"
PUBLIC_ID = f"{FAMILY}-public"

TIMING_KEYS = ("wall_s", "timing")


def run(tmp_path: Path, agents: list[Any], *, name: str = "run", workers: int = 1, dask: str | None = None,
        seed: str | None = None, **options: Any) -> RunReport:
    specs = [parse_agent_arg(a) if isinstance(a, str) else a for a in agents]
    options.setdefault("families", [FAMILY])
    options.setdefault("timeout_s", 20.0)
    opts = RunOptions(agents=specs, **options)
    return start(opts, out=tmp_path / name, seed=seed, workers=workers, dask=dask, progress="none")


def resume_run(run_dir: Path, **kw: Any) -> RunReport:
    return resume(run_dir, progress="none", **kw)


def records(run_dir: Path) -> list[dict[str, Any]]:
    out = []
    for p in (run_dir / "records.jsonl", run_dir / "private" / "records.jsonl"):
        if p.is_file():
            out += [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
    return out


def by_agent(recs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["agent"]: r for r in recs}


def artifact(run_dir: Path, agent: str, task_id: str = PUBLIC_ID, n: int = 1, name: str = "solution.json",
             split: str = "public") -> Path:
    base = run_dir / "private" / "artifacts" if split == "heldout" else run_dir / "artifacts"
    return base / agent / task_id / f"attempt-{n}" / name


def strip_timing(record: dict[str, Any]) -> dict[str, Any]:
    """A record without what legitimately differs between two runs of the same cases."""
    r = json.loads(json.dumps(record))
    for a in r["attempts"]:
        for k in TIMING_KEYS:
            a.pop(k, None)
    return r


def cli_env(**extra: str) -> dict[str, str]:
    """Environment for ``python -m psab.cli`` subprocesses that import this checkout."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra)
    return env


PYTHON = sys.executable


def need_working_bwrap() -> None:
    """bwrap installed (conftest.need_bwrap) and able to build a namespace on this machine
    (a container may forbid user namespaces); both fail rather than skip under PSAB_STRICT=1."""
    from psab.runner.sandbox import bwrap_problem

    from conftest import need, need_bwrap

    need_bwrap()
    problem = bwrap_problem(True)
    need(problem is None, f"bwrap cannot create a sandbox here: {problem}")

__all__ = ["FAMILY", "PUBLIC_ID", "PYTHON", "artifact", "builtin_agent", "by_agent", "cli_env", "need_working_bwrap", "records",
           "resume_run", "run", "strip_timing"]
