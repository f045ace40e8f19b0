"""``psab run``: plan the cases, run them (threads or Dask), record, resume, summarize.

The coordinating process is the only writer of the run directory. Workers — threads driving
agent subprocesses, or Dask workers — run :func:`psab.runner.execute.run_case` and hand back
the record and artifacts; each finished case is appended durably before the next is reported.
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as _dt
import os
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from psab.errors import RunnerError
from psab.runner.agents import AgentSpec
from psab.runner.execute import (
    EVAL_LOCK,
    MAX_ATTEMPTS,
    CaseJob,
    CaseOutcome,
    Settings,
    append_outcome,
    run_case,
)
from psab.runner.instructions import LANGS
from psab.runner.progress import Progress
from psab.runner.sandbox import (
    DEFAULT_FILE_LIMIT_MB,
    STOP,
    check_expose,
    check_limit_mb,
    check_temp_root,
    hidden_roots,
    kill_all_live,
    remove_stale,
    resolve_isolation,
    temp_root,
)
from psab.runner.store import FORMAT, SPLITS, RunDir, check_seed, write_atomic
from psab.runner.summary import aggregate, markdown, public_cases, text_table

SEED_ENV = "PSAB_SEED"


@dataclass
class RunOptions:
    """What defines a run (stored in its manifest; a resumed run takes it from there)."""

    agents: list[AgentSpec]
    splits: list[str] = field(default_factory=lambda: ["public"])
    families: list[str] | None = None
    limit: int | None = None
    count: int = 1
    start: int = 0
    isolation: str = "auto"
    network: bool = True
    lang: str = "en"
    backend: str = "surrogate"
    #: How much of the method the statement spells out: ``guided`` or ``expert``.
    presentation: str = "guided"
    #: Difficulty level of the held-out draws (1: the public case's kind).
    level: int = 1
    timeout_s: float = 600.0
    run_seed: int = 0
    max_attempts: int = MAX_ATTEMPTS
    memory_limit_mb: float | None = None
    file_limit_mb: float | None = DEFAULT_FILE_LIMIT_MB


@dataclass(frozen=True)
class PlannedTask:
    split: str
    index: int | None
    task: dict[str, Any]
    key: dict[str, Any] | None
    digest: str
    family: str


@dataclass
class RunReport:
    run_dir: Path
    summary: dict[str, Any]
    table: str
    ran: int
    skipped: int


# ------------------------------------------------------------------------------ planning


def _family_ids(families: Sequence[str] | None, backend: str = "surrogate") -> list[str]:
    """The selected families in catalogue order; without a selection, every family the run's
    backend can judge (a run under pandapower covers the families that declare it)."""
    import psab

    if families:
        for f in families:
            psab.get_family(f)  # UnknownFamilyError names the known ids
        wanted = set(families)
        return [s.id for s in psab.families() if s.id in wanted]
    return [s.id for s in psab.families() if backend in s.backends]


def _planned(split: str, index: int | None, task: Any) -> PlannedTask:
    return PlannedTask(split, index, task.to_dict(), task.key, task.digest, task.family)


def _generate_one(family: str, seed: str, index: int, backend: str,
                  level: int = 1) -> tuple[dict[str, Any], dict[str, Any] | None, str]:
    """A held-out task (executed on a worker)."""
    import psab

    with EVAL_LOCK:
        task = psab.generate(family, seed, index, backend=backend, level=level)
    return task.to_dict(), task.key, task.digest


def plan_tasks(opts: RunOptions, seed: str | None, mapper: Callable[..., Iterable[Any]]) -> list[PlannedTask]:
    """The run's tasks: the public case of every selected family, and/or held-out draws."""
    import psab

    ids = _family_ids(opts.families, opts.backend)
    tasks: list[PlannedTask] = []
    if "public" in opts.splits:
        public = [_planned("public", None, psab.get_family(f).public_task()) for f in ids]
        tasks += public[: opts.limit] if opts.limit else public
    if "heldout" in opts.splits:
        if seed is None:
            raise RunnerError(f"the held-out split needs a private seed: --seed or ${SEED_ENV}")
        wanted = [(f, i) for f in ids for i in range(opts.start, opts.start + opts.count)]
        if opts.limit:
            wanted = wanted[: opts.limit]
        drawn = mapper(_generate_one, [f for f, _ in wanted], [seed] * len(wanted), [i for _, i in wanted],
                       [opts.backend] * len(wanted), [opts.level] * len(wanted))
        for (f, i), (view, key, digest) in zip(wanted, drawn, strict=True):
            tasks.append(PlannedTask("heldout", i, view, key, digest, f))
    if not tasks:
        raise RunnerError("nothing to run: no task matches the chosen splits, families and limit")
    return tasks


def _manifest(run_id: str, opts: RunOptions, isolation: str, tasks: list[PlannedTask], seed: str | None) -> dict[str, Any]:
    import psab
    from psab.generators import seeds

    fams = sorted({t.family for t in tasks})
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "run_id": run_id,
        "created": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "psab_version": psab.__version__,
        "agents": [a.to_dict() for a in opts.agents],
        "splits": list(opts.splits),
        "families": {f: psab.get_family(f).version for f in fams},
        "options": {
            "families": opts.families, "limit": opts.limit, "count": opts.count, "start": opts.start,
            "isolation": opts.isolation, "network": opts.network, "lang": opts.lang, "backend": opts.backend,
            "presentation": opts.presentation, "level": opts.level,
            "timeout_s": opts.timeout_s, "run_seed": opts.run_seed, "max_attempts": opts.max_attempts,
            "memory_limit_mb": opts.memory_limit_mb, "file_limit_mb": opts.file_limit_mb,
        },
        "isolation": isolation,
        "planned_cases": len(tasks) * len(opts.agents),
        "public": _public_entries(tasks),
    }
    entries = _heldout_entries(tasks, opts.level)
    if entries:
        assert seed is not None
        manifest["heldout"] = {
            "seed_commitment": seeds.commitment(seed),
            "commitment_scheme": seeds.COMMITMENT_SCHEME,
            "commitment_version": seeds.benchmark_version(),
            "manifest": seeds.manifest(entries),
        }
    return manifest


def _options_from_manifest(m: dict[str, Any]) -> RunOptions:
    o = m["options"]
    return RunOptions(
        agents=[AgentSpec.from_dict(a) for a in m["agents"]], splits=list(m["splits"]), families=o["families"],
        limit=o["limit"], count=o["count"], start=o["start"], isolation=o["isolation"], network=o["network"],
        lang=o["lang"], backend=o["backend"], timeout_s=o["timeout_s"], run_seed=o["run_seed"],
        # runs recorded before presentations and levels existed were guided, level 1
        presentation=o.get("presentation", "guided"), level=o.get("level", 1),
        max_attempts=o.get("max_attempts", MAX_ATTEMPTS),
        # a run recorded before resource limits existed resumes without them, as it started
        memory_limit_mb=o.get("memory_limit_mb"), file_limit_mb=o.get("file_limit_mb"),
    )


def _public_entries(tasks: list[PlannedTask]) -> list[dict[str, Any]]:
    """The manifest's ``public`` list: family, task id and digest of each public task, in plan order."""
    return [{"family": t.family, "task_id": t.task["id"], "task_digest": t.digest} for t in tasks if t.split == "public"]


def _heldout_entries(tasks: list[PlannedTask], level: int = 1) -> list[dict[str, Any]]:
    """The held-out tasks as seed-manifest entries (:func:`psab.generators.seeds.manifest_entry`), in plan order."""
    from psab.contract import Task
    from psab.generators import seeds

    return [seeds.manifest_entry(Task.from_dict(t.task, key=t.key), t.index or 0, level)
            for t in tasks if t.split == "heldout"]


def _check_same_tasks(m: dict[str, Any], tasks: list[PlannedTask], seed: str | None) -> None:
    """A resumed run must run exactly the cases its manifest promised."""
    from psab.generators import seeds

    if _public_entries(tasks) != m.get("public", []):
        raise RunnerError("the public cases changed since this run started (a family was edited or updated); "
                          "start a new run")
    if "heldout" in m:
        assert seed is not None
        h = m["heldout"]
        check_seed(seed, h["commitment_version"], h)
        if seeds.manifest(_heldout_entries(tasks, m["options"].get("level", 1))) != h["manifest"]:
            raise RunnerError("the seed reproduces different held-out cases than this run recorded "
                              "(a family's generator changed); start a new run")


# ------------------------------------------------------------------------------ executing


class _Executor:
    """Threads driving agent subprocesses, or a Dask cluster."""

    def __init__(self, workers: int, dask: str | None) -> None:
        self.dask = dask
        self.client = None
        self.pool: cf.ThreadPoolExecutor | None = None
        if dask:
            try:
                from distributed import Client
            except ImportError:
                raise RunnerError("--dask needs dask.distributed (pip install 'psab[dask]')") from None
            try:
                self.client = Client(dask, timeout="20s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise RunnerError(f"--dask {dask}: cannot connect ({exc})") from None
        else:
            if workers < 1:
                raise RunnerError("--workers must be at least 1")
            self.pool = cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="psab-case")

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any]) -> list[Any]:
        if self.client is not None:
            futures = self.client.map(fn, *iterables, pure=False)
            return self.client.gather(futures)
        return list(map(fn, *iterables))  # generation takes turns under EVAL_LOCK anyway

    def run(self, jobs: list[CaseJob]) -> Iterable[CaseOutcome]:
        if self.client is not None:
            from distributed import as_completed

            futures = [self.client.submit(run_case, job, pure=False) for job in jobs]
            try:
                for fut in as_completed(futures):
                    yield fut.result()
            finally:
                for f in futures:
                    f.cancel()
            return
        assert self.pool is not None
        futures = [self.pool.submit(run_case, job) for job in jobs]
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


def _settings(opts: RunOptions, isolation: str, run_dir: Path) -> Settings:
    return Settings(isolation=isolation, network=opts.network, lang=opts.lang, backend=opts.backend,
                    presentation=opts.presentation,
                    default_timeout_s=opts.timeout_s, run_seed=opts.run_seed, max_attempts=opts.max_attempts,
                    memory_limit_mb=opts.memory_limit_mb, file_limit_mb=opts.file_limit_mb,
                    extra_hidden=(str(run_dir.resolve()),))


def _preflight(opts: RunOptions, run_dir: Path) -> str:
    import psab
    from psab import backends

    if not opts.agents:
        raise RunnerError("no agent: give --agent (e.g. --agent builtin:reference) or --agents-file")
    fleet_only = [a.name for a in opts.agents if (a.builtin or "").startswith("fleet-")]
    if fleet_only:
        raise RunnerError(f"{', '.join(fleet_only)}: fleet-tier built-ins answer fleet questions; run them with --tier fleet")
    names = [a.name for a in opts.agents]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise RunnerError(f"agent names must be unique; repeated: {', '.join(dup)} (rename with NAME=builtin:KIND)")
    for s in opts.splits:
        if s not in SPLITS:
            raise RunnerError(f"--split must be public or heldout, not {s!r}")
    if opts.lang not in LANGS:
        raise RunnerError("--lang must be en or ru")
    from psab.registry import PRESENTATION_LEVELS

    if opts.presentation not in PRESENTATION_LEVELS:
        raise RunnerError(f"--presentation must be one of {', '.join(PRESENTATION_LEVELS)}, not {opts.presentation!r}")
    if opts.count < 1 or opts.start < 0 or (opts.limit is not None and opts.limit < 1):
        raise RunnerError("--count and --limit must be at least 1, --start at least 0")
    if not opts.timeout_s > 0:
        raise RunnerError("--timeout must be positive")
    check_limit_mb("--memory-limit", opts.memory_limit_mb)
    check_limit_mb("--file-limit", opts.file_limit_mb)
    backends.require(opts.backend)
    for f in opts.families or []:
        psab.get_family(f)
    for spec in (psab.get_family(f) for f in _family_ids(opts.families, opts.backend)):
        if opts.backend not in spec.backends:
            raise RunnerError(f"family {spec.id} is not judged under backend {opts.backend!r} (it declares {', '.join(spec.backends)})")
        if opts.presentation == "expert" and spec.expert is None:
            raise RunnerError(f"family {spec.id} has no expert presentation yet; leave it out or use --presentation guided")
        if "heldout" in opts.splits and opts.level not in spec.levels:
            raise RunnerError(f"family {spec.id} offers difficulty levels {', '.join(map(str, spec.levels))}; not {opts.level}")
    isolation = resolve_isolation(opts.isolation, opts.network)
    hidden = hidden_roots(run_dir)
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
    return isolation


def start(opts: RunOptions, *, out: str | Path | None = None, seed: str | None = None, workers: int = 1,
          dask: str | None = None, progress: str = "auto", stream: TextIO | None = None) -> RunReport:
    """Start a new run; see ``psab run --help``."""
    run_id = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)
    run_dir = Path(out) if out else Path("runs") / run_id
    if run_dir.exists() and any(run_dir.iterdir()):
        raise RunnerError(f"run directory {run_dir} already exists and is not empty; use --resume {run_dir} or another --out")
    isolation = _preflight(opts, run_dir)
    executor = _Executor(workers, dask)
    try:
        tasks = plan_tasks(opts, seed, executor.map)
        manifest = _manifest(run_id, opts, isolation, tasks, seed)
        with RunDir(run_dir) as rd:
            rd.create(manifest)
            rd.store_public_tasks([(t.task, t.key) for t in tasks if t.split == "public"])
            return _execute(rd, manifest, opts, isolation, tasks, executor, progress, stream)
    finally:
        executor.close()


def resume(run_dir: str | Path, *, seed: str | None = None, workers: int = 1, dask: str | None = None,
           progress: str = "auto", stream: TextIO | None = None) -> RunReport:
    """Continue an interrupted run: every case already recorded is kept, the rest run."""
    rd = RunDir(run_dir)
    manifest = rd.manifest()
    if manifest.get("tier") == "fleet":
        from psab.runner import fleet

        return fleet.resume(run_dir, workers=workers, dask=dask, progress=progress,  # type: ignore[return-value]
                            stream=stream)
    with rd:
        rd.lock()
        opts = _options_from_manifest(manifest)
        if "heldout" in opts.splits and seed is None:
            raise RunnerError(f"resuming a held-out run needs its seed: --seed or ${SEED_ENV}")
        isolation = resolve_isolation(manifest["isolation"], opts.network)
        executor = _Executor(workers, dask)
        try:
            tasks = plan_tasks(opts, seed, executor.map)
            _check_same_tasks(manifest, tasks, seed)
            return _execute(rd, manifest, opts, isolation, tasks, executor, progress, stream)
        finally:
            executor.close()


def _execute(rd: RunDir, manifest: dict[str, Any], opts: RunOptions, isolation: str, tasks: list[PlannedTask],
             executor: _Executor, progress: str, stream: TextIO | None) -> RunReport:
    remove_stale(temp_root())
    # The one read of the records: repaired, parsed and kept up to date by every append, so
    # the summary at the end reads them from memory.
    done = {(r["split"], r["task_id"], r["agent"]) for r in rd.load_records()}
    settings = _settings(opts, isolation, rd.path)
    jobs = [
        CaseJob(agent=a, split=t.split, index=t.index, task=t.task, task_key=t.key, settings=settings)
        for t in tasks for a in opts.agents
    ]
    todo = [j for j in jobs if j.key not in done]
    bar = Progress(total=len(jobs), done=len(jobs) - len(todo), stream=stream, mode=progress)
    if done:
        bar.note(f"resuming {manifest['run_id']}: {len(jobs) - len(todo)} of {len(jobs)} cases already recorded")
    ran = 0
    STOP.clear()
    try:
        for outcome in executor.run(todo):
            record = append_outcome(rd, outcome.record, outcome.artifacts)
            ran += 1
            bar.update(record)
    except BaseException:
        kill_all_live()
        raise
    finally:
        bar.close()
    summary, rows = write_summary(rd, manifest, planned=len(jobs))
    return RunReport(rd.path, summary, text_table(rows), ran, len(jobs) - len(todo))


def write_summary(rd: RunDir, manifest: dict[str, Any], planned: int) -> tuple[dict[str, Any], list[Any]]:
    """Aggregates only: ``summary.json`` and ``summary.md`` at the top of the run directory."""
    records = list(rd.records())
    agents = [a["name"] for a in manifest["agents"]]
    rows = aggregate(records, agents)
    held = [r for r in records if r["split"] == "heldout"]
    summary: dict[str, Any] = {
        "format": "psab-run-summary-v1",
        "run_id": manifest["run_id"],
        "psab_version": manifest["psab_version"],
        "isolation": manifest["isolation"],
        "backend": manifest["options"]["backend"],
        "families": manifest["families"],
        "planned": planned,
        "recorded": len(records),
        "complete": len(records) == planned,
        "rows": [r.to_dict() for r in rows],
        "public_cases": public_cases(records),
    }
    if "heldout" in manifest:
        summary["heldout"] = {
            "seed_commitment": manifest["heldout"]["seed_commitment"],
            "cases": len(manifest["heldout"]["manifest"]),
            "recorded": len(held),
            "families": sorted({e["family"] for e in manifest["heldout"]["manifest"]}),
        }
    from psab.contract import dumps

    write_atomic(rd.path / "summary.json", dumps(summary))
    write_atomic(rd.path / "summary.md", markdown(summary, rows))
    return summary, rows


def seed_from(arg: str | None) -> str | None:
    """The private seed: ``--seed`` or ``$PSAB_SEED``."""
    if arg:
        return arg
    env = os.environ.get(SEED_ENV, "").strip()
    return env or None
