"""The one run loop of every tier: preflight, plan, manifest, threads or Dask, resume, summary.

A tier (:mod:`psab.runner.tiers`) supplies its cases and what differs per attempt; this module
does the rest, the same way for each. The coordinating process is the only writer of the run
directory. Workers — threads driving agent subprocesses, or Dask workers — run
:func:`psab.runner.execute.run_case` and hand back the record and artifacts; each finished
case is appended durably before the next is reported.
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as _dt
import os
import secrets
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from psab.errors import RunnerError
from psab.runner.progress import Progress
from psab.runner.sandbox import (
    STOP,
    check_expose,
    check_limit_mb,
    check_process_limit,
    check_temp_root,
    hidden_roots,
    kill_all_live,
    remove_stale,
    resolve_isolation,
    temp_root,
)
from psab.runner.store import FORMAT, RunDir, write_atomic
from psab.runner.tiers import (
    NO_TOOLBOX,
    Tier,
    dask_client,
    locate_toolbox,
    manifest_tier,
    tier_class,
)


@dataclass
class RunReport:
    run_dir: Path
    summary: dict[str, Any]
    table: str
    ran: int
    skipped: int


class Executor:
    """Threads driving agent subprocesses, or a Dask cluster (``connect``: the tier's client maker)."""

    def __init__(self, workers: int, dask: str | None, connect: Callable[[str], Any] = dask_client) -> None:
        self.client = None
        self.pool: cf.ThreadPoolExecutor | None = None
        if dask:
            self.client = connect(dask)
        else:
            if workers < 1:
                raise RunnerError("--workers must be at least 1")
            self.pool = cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="psab-case")

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any]) -> list[Any]:
        if self.client is not None:
            futures = self.client.map(fn, *iterables, pure=False)
            return self.client.gather(futures)  # type: ignore[no-any-return]
        return list(map(fn, *iterables))  # generation takes turns under EVAL_LOCK anyway

    def run(self, fn: Callable[[Any], Any], jobs: list[Any]) -> Iterable[Any]:
        if self.client is not None:
            from distributed import as_completed

            futures = [self.client.submit(fn, job, pure=False) for job in jobs]
            try:
                for fut in as_completed(futures):
                    yield fut.result()
            finally:
                for f in futures:
                    f.cancel()
            return
        assert self.pool is not None
        futures = [self.pool.submit(fn, job) for job in jobs]
        try:
            for fut in cf.as_completed(futures):
                yield fut.result()
        finally:
            for f in futures:
                f.cancel()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        if self.client is not None:
            self.client.close()


# ------------------------------------------------------------------------------ preflight


def preflight(tier: Tier, run_dir: Path) -> str:
    """The checks every tier shares, around the tier's own (:meth:`Tier.check_agent`,
    :meth:`Tier.check`); returns the isolation the run will use. Also locates the toolbox."""
    from psab.runner.instructions import LANGS

    opts = tier.opts
    if not opts.agents:
        raise RunnerError(f"no agent: give --agent (e.g. {tier.no_agent_hint})")
    for a in opts.agents:
        tier.check_agent(a)
    names = [a.name for a in opts.agents]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise RunnerError(f"agent names must be unique; repeated: {', '.join(dup)} (rename with NAME=builtin:KIND)")
    if opts.lang not in LANGS:
        raise RunnerError("--lang must be en or ru")
    tier.check()
    if not opts.timeout_s > 0:
        raise RunnerError("--timeout must be positive")
    if getattr(opts, "network_mode", "host") not in ("proxy", "host"):
        raise RunnerError("--network must be proxy or host")
    check_limit_mb("--memory-limit", opts.memory_limit_mb)
    check_limit_mb("--file-limit", opts.file_limit_mb)
    check_process_limit(getattr(opts, "process_limit", None))
    check_limit_mb("--tmp-limit", getattr(opts, "tmp_limit_mb", None))
    check_limit_mb("--disk-limit", getattr(opts, "disk_limit_mb", None))
    isolation = resolve_isolation(opts.isolation, opts.network)
    # the tier's own (a fleet's --world): an expose over it is refused here in one line, not by
    # the first attempt of a run already created (issue 32, item 9)
    hidden = hidden_roots(run_dir) + [h for h in tier.hidden() if h not in hidden_roots(run_dir)]
    check_temp_root(temp_root(), hidden)
    home = Path.home().resolve()
    for a in opts.agents:
        if isolation == "bwrap":
            check_expose(a.expose, hidden)
        elif a.network is False:
            raise RunnerError(f"agent {a.name!r} sets network = false, which needs the bwrap sandbox")
        for item in a.copy_home:
            src = Path(os.path.expanduser(item))
            if not src.exists() or not src.resolve().is_relative_to(home):
                raise RunnerError(f"agent {a.name!r}: copy_home {item!r} must be an existing path under {home}")
    choose_toolbox(tier)
    return isolation


def choose_toolbox(tier: Tier, recorded: dict[str, Any] | None = None) -> None:
    """Locate the toolbox the tier's options ask for (``tier.toolbox``): a run that asks for it
    (a study run does unless told --no-toolbox) refuses when it is not built, and a resumed run
    when it is not the one the run recorded."""
    choice = tier.toolbox_choice()
    tier.toolbox = locate_toolbox(choice)
    if choice and tier.toolbox is None:
        raise RunnerError(NO_TOOLBOX)
    if recorded is not None and tier.toolbox is not None and tier.toolbox.manifest() != recorded:
        raise RunnerError(f"the toolbox at {tier.toolbox.root} is not the one this run started with "
                          "(other packages or versions); start a new run")


# ------------------------------------------------------------------------------ start and resume


def _base_manifest(run_id: str, tier: Tier, isolation: str, planned: int) -> dict[str, Any]:
    import psab

    base: dict[str, Any] = {
        "format": FORMAT, "run_id": run_id,
        "created": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "psab_version": psab.__version__, "agents": [a.to_dict() for a in tier.opts.agents],
        "isolation": isolation, "planned_cases": planned,
    }
    if tier.toolbox is not None:
        base["toolbox"] = tier.toolbox.manifest()
    return base


def start(tier: Tier, *, out: str | Path | None = None, seed: str | None = None, workers: int = 1,
          dask: str | None = None, progress: str = "auto", stream: TextIO | None = None) -> RunReport:
    """Start a new run of ``tier``; see ``psab run --help``."""
    run_id = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)
    run_dir = Path(out) if out else Path("runs") / run_id
    if run_dir.exists() and any(run_dir.iterdir()):
        raise RunnerError(f"run directory {run_dir} already exists and is not empty; use --resume {run_dir} or another --out")
    isolation = preflight(tier, run_dir)
    executor = Executor(workers, dask, tier.connect)  # an unreachable scheduler leaves no run directory behind
    try:
        created = not run_dir.exists()
        with RunDir(run_dir) as rd:
            try:
                rd.path.mkdir(parents=True, exist_ok=True)
                rd.lock()
                tier.prepare(rd.path)
                cases = tier.plan(seed, executor.map)
                manifest = tier.manifest(_base_manifest(run_id, tier, isolation, len(cases) * len(tier.opts.agents)),
                                         cases, seed)
            except BaseException:
                # a run that could not be planned leaves nothing behind (its --out stays usable)
                if created:
                    shutil.rmtree(rd.path, ignore_errors=True)
                raise
            from psab.contract import dumps

            write_atomic(rd.manifest_path, dumps(manifest))
            tier.store(rd, cases)
            return execute(tier, rd, manifest, isolation, cases, executor, progress, stream)
    finally:
        executor.close()


def resume(run_dir: str | Path, *, seed: str | None = None, workers: int = 1, dask: str | None = None,
           progress: str = "auto", stream: TextIO | None = None) -> RunReport:
    """Continue an interrupted run of any tier: every case already recorded is kept, the rest run."""
    rd = RunDir(run_dir)
    manifest = rd.manifest()
    tier = tier_class(manifest_tier(manifest)).from_manifest(manifest)
    with rd:
        rd.lock()
        tier.resume_check(manifest, seed)
        choose_toolbox(tier, manifest.get("toolbox"))
        isolation = resolve_isolation(manifest["isolation"], tier.opts.network)
        executor = Executor(workers, dask, tier.connect)
        try:
            cases = tier.plan(seed, executor.map)
            tier.check_same(manifest, cases, seed)
            return execute(tier, rd, manifest, isolation, cases, executor, progress, stream)
        finally:
            executor.close()


def execute(tier: Tier, rd: RunDir, manifest: dict[str, Any], isolation: str, cases: list[Any],
            executor: Executor, progress: str, stream: TextIO | None) -> RunReport:
    """Run the cases not yet recorded, append each as it finishes, write the summary."""
    from psab.runner.execute import append_outcome, run_case

    remove_stale(temp_root())
    # The one read of the records: repaired, parsed and kept up to date by every append, so
    # the summary at the end reads them from memory.
    done = {(r["split"], r["task_id"], r["agent"]) for r in rd.load_records()}
    settings = tier.settings(isolation, rd.path)
    jobs = tier.jobs(cases, settings)
    todo = [j for j in jobs if j.done_key not in done]
    bar = Progress(total=len(jobs), done=len(jobs) - len(todo), stream=stream, mode=progress)
    if done:
        bar.note(f"resuming {manifest['run_id']}: {len(jobs) - len(todo)} of {len(jobs)} cases already recorded")
    ran = 0
    STOP.clear()
    try:
        for outcome in executor.run(run_case, todo):
            record = append_outcome(rd, outcome.record, outcome.artifacts)
            ran += 1
            bar.update(record)
    except BaseException:
        kill_all_live()
        raise
    finally:
        bar.close()
    summary, table = write_summary(tier, rd, manifest, planned=len(jobs))
    return RunReport(rd.path, summary, table, ran, len(jobs) - len(todo))


def write_summary(tier: Tier, rd: RunDir, manifest: dict[str, Any], planned: int) -> tuple[dict[str, Any], str]:
    """Aggregates only: ``summary.json`` and ``summary.md`` at the top of the run directory —
    the runner's rows (:func:`psab.runner.summary.aggregate`) and the tier's own columns."""
    from psab.contract import dumps
    from psab.runner.summary import aggregate, markdown, model_api_usage, usage_markdown

    records = list(rd.records())
    agents = [a["name"] for a in manifest["agents"]]
    rows = aggregate(records, agents)
    extra, section, table = tier.summary(manifest, records, rows)
    summary: dict[str, Any] = {
        "format": "psab-run-summary-v1", "run_id": manifest["run_id"], "psab_version": manifest["psab_version"],
        "isolation": manifest["isolation"], "planned": planned, "recorded": len(records),
        "complete": len(records) == planned, "rows": [r.to_dict() for r in rows], **extra,
    }
    if "toolbox" in manifest:
        summary["toolbox"] = manifest["toolbox"]
    usage = model_api_usage(records, agents)
    if usage:  # absent when no attempt went through the proxy: such summaries stay as they were
        summary["model_api_usage"] = usage
    write_atomic(rd.path / "summary.json", dumps(summary))
    write_atomic(rd.path / "summary.md", markdown(summary, rows) + usage_markdown(usage) + section)
    return summary, table
