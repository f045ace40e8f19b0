"""``psab run``: the compact tier (the families' tasks) on the one run loop.

:class:`CompactTier` supplies the cases — the public case of every selected family and/or
held-out draws — and their manifest, resume check and summary; :mod:`psab.runner.loop` plans,
preflights, runs (threads or Dask), records, resumes and summarizes, as for every tier
(:mod:`psab.runner.tiers`). :func:`start` and :func:`resume` are this tier's entry points
(:func:`resume` continues a run of any tier).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TextIO

from psab.errors import RunnerError
from psab.runner import loop
from psab.runner.agents import AgentSpec
from psab.runner.execute import EVAL_LOCK, MAX_ATTEMPTS, CaseJob, Settings
from psab.runner.loop import RunReport
from psab.runner.sandbox import (
    DEFAULT_DISK_LIMIT_MB,
    DEFAULT_FILE_LIMIT_MB,
    DEFAULT_PROCESS_LIMIT,
    DEFAULT_TMP_LIMIT_MB,
)
from psab.runner.store import SPLITS, RunDir, check_seed
from psab.runner.summary import public_cases, text_table
from psab.runner.tiers import Tier

__all__ = ["CompactTier", "PlannedTask", "RunOptions", "RunReport", "plan_tasks", "resume", "seed_from", "start"]

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
    #: ``proxy``: under bwrap the agent has a network namespace of its own whose only way out is
    #: the recording proxy of its model API (:mod:`psab.runner.proxy`); ``host``: the host's
    #: network, as before issue 32. ``network=False`` (``--no-network``) cuts even the proxy.
    network_mode: str = "proxy"
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
    #: What one attempt may use in all (:class:`psab.runner.sandbox.Totals`; 0 or None: no limit).
    process_limit: int | None = DEFAULT_PROCESS_LIMIT
    tmp_limit_mb: float | None = DEFAULT_TMP_LIMIT_MB
    disk_limit_mb: float | None = DEFAULT_DISK_LIMIT_MB
    #: The toolbox (:mod:`psab.runner.tiers`): None the tier's default (off here), False off,
    #: True the built one, a path a toolbox built there.
    toolbox: bool | str | None = None


@dataclass(frozen=True)
class PlannedTask:
    split: str
    index: int | None
    task: dict[str, Any]
    key: dict[str, Any] | None
    digest: str
    family: str


# ------------------------------------------------------------------------------ planning


def _family_ids(families: Sequence[str] | None, backend: str = "surrogate", catalogue: Sequence[Any] | None = None) -> list[str]:
    """The selected families in catalogue order; without a selection, every family the run's
    backend can judge (a run under pandapower covers the families that declare it).
    ``catalogue``: the tier's specs (default :func:`psab.families`, the compact tier's)."""
    import psab

    specs = list(psab.families() if catalogue is None else catalogue)
    if families:
        for f in families:
            psab.get_family(f)  # UnknownFamilyError names the known ids
        wanted = set(families)
        return [s.id for s in specs if s.id in wanted]
    return [s.id for s in specs if backend in s.backends]


def _planned(split: str, index: int | None, task: Any) -> PlannedTask:
    return PlannedTask(split, index, task.to_dict(), task.key, task.digest, task.family)


def _generate_one(family: str, seed: str, index: int, backend: str,
                  level: int = 1) -> tuple[dict[str, Any], dict[str, Any] | None, str]:
    """A held-out task (executed on a worker)."""
    import psab

    with EVAL_LOCK:
        task = psab.generate(family, seed, index, backend=backend, level=level)
    return task.to_dict(), task.key, task.digest


def plan_tasks(opts: RunOptions, seed: str | None, mapper: Callable[..., Iterable[Any]],
               catalogue: Sequence[Any] | None = None) -> list[PlannedTask]:
    """The run's tasks: the public case of every selected family, and/or held-out draws
    (``catalogue``: as for :func:`_family_ids`)."""
    import psab

    ids = _family_ids(opts.families, opts.backend, catalogue)
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


def _options_dict(opts: RunOptions) -> dict[str, Any]:
    """The manifest's ``options`` (``toolbox`` only when the run has one: a compact run without
    it records exactly what it recorded before the toolbox existed)."""
    out: dict[str, Any] = {
        "families": opts.families, "limit": opts.limit, "count": opts.count, "start": opts.start,
        "isolation": opts.isolation, "network": opts.network, "network_mode": opts.network_mode, "lang": opts.lang, "backend": opts.backend,
        "presentation": opts.presentation, "level": opts.level,
        "timeout_s": opts.timeout_s, "run_seed": opts.run_seed, "max_attempts": opts.max_attempts,
        "memory_limit_mb": opts.memory_limit_mb, "file_limit_mb": opts.file_limit_mb,
        "process_limit": opts.process_limit, "tmp_limit_mb": opts.tmp_limit_mb, "disk_limit_mb": opts.disk_limit_mb,
    }
    if opts.toolbox is not None:
        out["toolbox"] = opts.toolbox
    return out


def _options_from_manifest(m: dict[str, Any], cls: type[RunOptions] | None = None) -> RunOptions:
    o = m["options"]
    return (cls or RunOptions)(
        agents=[AgentSpec.from_dict(a) for a in m["agents"]], splits=list(m["splits"]), families=o["families"],
        limit=o["limit"], count=o["count"], start=o["start"], isolation=o["isolation"], network=o["network"],
        # a run recorded before issue 32 shared the host's network, and resumes so
        network_mode=o.get("network_mode", "host"),
        lang=o["lang"], backend=o["backend"], timeout_s=o["timeout_s"], run_seed=o["run_seed"],
        # runs recorded before presentations and levels existed were guided, level 1
        presentation=o.get("presentation", "guided"), level=o.get("level", 1),
        max_attempts=o.get("max_attempts", MAX_ATTEMPTS),
        # a run recorded before resource limits existed resumes without them, as it started
        memory_limit_mb=o.get("memory_limit_mb"), file_limit_mb=o.get("file_limit_mb"),
        # and one recorded before the totals (issue 32, item 7) without those
        process_limit=o.get("process_limit"), tmp_limit_mb=o.get("tmp_limit_mb"), disk_limit_mb=o.get("disk_limit_mb"),
        toolbox=o.get("toolbox"),
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


# ------------------------------------------------------------------------------ the tier


class CompactTier(Tier):
    """The compact tier: the public case of every selected family and/or held-out draws, in
    sandboxes holding ``task.json`` and the task's instructions, judged by ``psab.evaluate``
    (:class:`psab.runner.execute.CompactCase`)."""

    name = "compact"
    no_agent_hint = "--agent builtin:reference) or --agents-file"
    opts: RunOptions

    #: The options dataclass of this tier.
    options_class: ClassVar[type[RunOptions]] = RunOptions

    def catalogue(self) -> list[Any] | None:
        """The tier's specs (None: :func:`psab.families`, the compact families)."""
        return None

    @classmethod
    def from_manifest(cls, manifest: dict[str, Any]) -> Tier:
        return cls(_options_from_manifest(manifest, cls.options_class))

    def check_agent(self, agent: AgentSpec) -> None:
        if (agent.builtin or "").startswith("fleet-"):
            raise RunnerError(f"{agent.name}: fleet-tier built-ins answer fleet questions; run them with --tier fleet")

    def check(self) -> None:
        import psab
        from psab import backends
        from psab.registry import PRESENTATION_LEVELS

        opts = self.opts
        for s in opts.splits:
            if s not in SPLITS:
                raise RunnerError(f"--split must be public or heldout, not {s!r}")
        if opts.presentation not in PRESENTATION_LEVELS:
            raise RunnerError(f"--presentation must be one of {', '.join(PRESENTATION_LEVELS)}, not {opts.presentation!r}")
        if opts.count < 1 or opts.start < 0 or (opts.limit is not None and opts.limit < 1):
            raise RunnerError("--count and --limit must be at least 1, --start at least 0")
        backends.require(opts.backend)
        for f in opts.families or []:
            psab.get_family(f)
        self.check_families()
        for spec in (psab.get_family(f) for f in _family_ids(opts.families, opts.backend, self.catalogue())):
            if opts.backend not in spec.backends:
                raise RunnerError(f"family {spec.id} is not judged under backend {opts.backend!r} (it declares {', '.join(spec.backends)})")
            if opts.presentation == "expert" and spec.expert is None:
                raise RunnerError(f"family {spec.id} has no expert presentation yet; leave it out or use --presentation guided")
            if "heldout" in opts.splits and opts.level not in spec.levels:
                raise RunnerError(f"family {spec.id} offers difficulty levels {', '.join(map(str, spec.levels))}; not {opts.level}")

    def check_families(self) -> None:
        """Refuse a selected case of another tier (a study under --tier compact, say) by name,
        rather than planning nothing."""
        import psab

        catalogue = self.catalogue()
        ids = {s.id for s in (psab.families() if catalogue is None else catalogue)}
        for f in self.opts.families or []:
            if f not in ids:
                tier = getattr(psab.get_family(f), "tier", "compact")
                raise RunnerError(f"--family {f} is a {tier}-tier case; run it with --tier {tier}")

    def plan(self, seed: str | None, mapper: Callable[..., Iterable[Any]]) -> list[Any]:
        return plan_tasks(self.opts, seed, mapper, self.catalogue())

    def manifest(self, base: dict[str, Any], cases: list[Any], seed: str | None) -> dict[str, Any]:
        import psab
        from psab.generators import seeds
        from psab.generators.acceptance import judging_backends

        opts = self.opts
        fams = sorted({t.family for t in cases})
        manifest: dict[str, Any] = {
            **base,
            "splits": list(opts.splits),
            "families": {f: psab.get_family(f).version for f in fams},
            "options": _options_dict(opts),
            "public": _public_entries(cases),
        }
        if self.name != "compact":
            manifest["tier"] = self.name
        entries = _heldout_entries(cases, opts.level)
        if entries:
            assert seed is not None
            manifest["heldout"] = {
                "seed_commitment": seeds.commitment(seed),
                "commitment_scheme": seeds.COMMITMENT_SCHEME,
                "commitment_version": seeds.benchmark_version(),
                "manifest": seeds.manifest(entries),
                # the backends every held-out draw was checked under (what was installed here)
                "judges": {f: list(judging_backends(psab.get_family(f))) for f in sorted({e["family"] for e in entries})},
            }
        return manifest

    def store(self, rd: RunDir, cases: list[Any]) -> None:
        rd.store_public_tasks([(t.task, t.key) for t in cases if t.split == "public"])

    def resume_check(self, manifest: dict[str, Any], seed: str | None) -> None:
        if "heldout" in self.opts.splits and seed is None:
            raise RunnerError(f"resuming a held-out run needs its seed: --seed or ${SEED_ENV}")

    def check_same(self, manifest: dict[str, Any], cases: list[Any], seed: str | None) -> None:
        _check_same_tasks(manifest, cases, seed)

    def settings(self, isolation: str, run_dir: Path) -> Settings:
        return _settings(self.opts, isolation, run_dir, self.toolbox)

    def job(self, t: PlannedTask, agent: AgentSpec, settings: Settings) -> Any:
        return CaseJob(agent=agent, split=t.split, index=t.index, task=t.task, task_key=t.key, settings=settings)

    def jobs(self, cases: list[Any], settings: Any) -> list[Any]:
        return [self.job(t, a, settings) for t in cases for a in self.opts.agents]

    def summary(self, manifest: dict[str, Any], records: list[dict[str, Any]],
                rows: list[Any]) -> tuple[dict[str, Any], str, str]:
        held = [r for r in records if r["split"] == "heldout"]
        extra: dict[str, Any] = {"backend": manifest["options"]["backend"], "families": manifest["families"],
                                 "public_cases": public_cases(records)}
        if "tier" in manifest:
            extra["tier"] = manifest["tier"]
        if "heldout" in manifest:
            extra["heldout"] = {
                "seed_commitment": manifest["heldout"]["seed_commitment"],
                "cases": len(manifest["heldout"]["manifest"]),
                "recorded": len(held),
                "families": sorted({e["family"] for e in manifest["heldout"]["manifest"]}),
            }
        return extra, "", text_table(rows)


def _settings(opts: RunOptions, isolation: str, run_dir: Path, toolbox: Any = None) -> Settings:
    return Settings(isolation=isolation, network=opts.network, network_mode=opts.network_mode, lang=opts.lang, backend=opts.backend,
                    presentation=opts.presentation,
                    default_timeout_s=opts.timeout_s, run_seed=opts.run_seed, max_attempts=opts.max_attempts,
                    memory_limit_mb=opts.memory_limit_mb, file_limit_mb=opts.file_limit_mb,
                    process_limit=opts.process_limit, tmp_limit_mb=opts.tmp_limit_mb,
                    disk_limit_mb=opts.disk_limit_mb,
                    extra_hidden=(str(run_dir.resolve()),), toolbox=toolbox)


def start(opts: RunOptions, *, out: str | Path | None = None, seed: str | None = None, workers: int = 1,
          dask: str | None = None, progress: str = "auto", stream: TextIO | None = None) -> RunReport:
    """Start a new compact run; see ``psab run --help``."""
    return loop.start(CompactTier(opts), out=out, seed=seed, workers=workers, dask=dask, progress=progress,
                      stream=stream)


def resume(run_dir: str | Path, *, seed: str | None = None, workers: int = 1, dask: str | None = None,
           progress: str = "auto", stream: TextIO | None = None) -> RunReport:
    """Continue an interrupted run of any tier: every case already recorded is kept, the rest run."""
    return loop.resume(run_dir, seed=seed, workers=workers, dask=dask, progress=progress, stream=stream)


def write_summary(rd: RunDir, manifest: dict[str, Any], planned: int) -> tuple[dict[str, Any], str]:
    """``summary.json`` and ``summary.md`` of a run of any tier (:func:`psab.runner.loop.write_summary`)."""
    from psab.runner.tiers import manifest_tier, tier_class

    tier = tier_class(manifest_tier(manifest)).from_manifest(manifest)
    return loop.write_summary(tier, rd, manifest, planned)


def seed_from(arg: str | None) -> str | None:
    """The private seed: ``--seed`` or ``$PSAB_SEED``."""
    if arg:
        return arg
    env = os.environ.get(SEED_ENV, "").strip()
    return env or None
