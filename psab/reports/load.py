"""Reading run directories back: records, their full results and solutions, as flat entries.

A run directory (``psab run``, :mod:`psab.runner.store`) holds one record per case; the full
evaluation result and the solution of each attempt are artifacts beside it. An :class:`Entry`
is one record with what the reports need next to it: the run it came from, the family's
area, and the outcome on both bases (computed by :func:`psab.runner.summary.outcome`, the
same rule the run's own summary uses).

Several runs are read as one collection. An agent is identified by its name across runs (two
runs of ``codex`` are two samples of the same agent) unless ``separate_runs`` names each
run's agents ``name@<run directory name>``. A case is identified by its split and task digest,
so a public case edited between two runs counts as two cases.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from psab.errors import InvalidArgumentError
from psab.runner.store import MANIFEST, SPLITS, RunDir
from psab.runner.summary import outcome

#: Area shown for a family that is not registered in this installation (an old run).
UNREGISTERED = "(unregistered family)"

#: Default of :meth:`Entry.violations`' ``full``: read ``result.json`` (``None`` means it is absent).
_UNREAD: Any = object()


@dataclass(frozen=True)
class Outcome:
    """A record on one basis: the attempt's class, feasible, perfect and score."""

    cls: str
    feasible: bool
    perfect: bool
    score: float


@dataclass(frozen=True, eq=False)
class Entry:
    """One record of one run, with the run it came from and its outcomes on both bases."""

    run: Run
    record: dict[str, Any] = field(repr=False)
    agent: str
    area: str
    first: Outcome
    final: Outcome

    @property
    def split(self) -> str:
        return str(self.record["split"])

    @property
    def family(self) -> str:
        return str(self.record["family"])

    @property
    def task_id(self) -> str:
        return str(self.record["task_id"])

    @property
    def index(self) -> int | None:
        return self.record.get("index")

    @property
    def case_key(self) -> tuple[str, str]:
        """Identity of the case across runs: split and task digest."""
        return (self.split, str(self.record.get("task_digest") or self.task_id))

    @property
    def attempts(self) -> list[dict[str, Any]]:
        return list(self.record.get("attempts") or [])

    @property
    def final_attempt(self) -> dict[str, Any]:
        return self.attempts[-1] if self.attempts else {}

    def attempt_dir(self, n: int | None = None) -> Path:
        """The artifacts directory of attempt ``n`` (the final attempt by default)."""
        n = n if n is not None else int(self.final_attempt.get("n", len(self.attempts)))
        return self.run.rundir.attempt_dir(self.split, str(self.record["agent"]), self.task_id, n)

    def full_result(self, n: int | None = None) -> dict[str, Any] | None:
        """The evaluator's full result of an attempt (``result.json``), or ``None``."""
        return _read_json(self.attempt_dir(n) / "result.json")

    def solution(self, n: int | None = None) -> Any:
        """The solution an attempt wrote, parsed; ``None`` when absent or not JSON."""
        return _read_json(self.attempt_dir(n) / "solution.json")

    def violations(self, n: int | None = None, *, full: Any = _UNREAD) -> list[dict[str, Any]]:
        """Every violation of an attempt's result as ``{field, constraint, expected, found}``.

        From ``result.json`` (``full``, when the caller has already read it with
        :meth:`full_result`); when that artifact is missing, the record's summary (its first
        five violations, already in words) is parsed back as well as it can be.
        """
        if full is _UNREAD:
            full = self.full_result(n)
        if isinstance(full, dict) and isinstance(full.get("violations"), list):
            return [v for v in full["violations"] if isinstance(v, dict)]
        att = self.final_attempt if n is None else next((a for a in self.attempts if a.get("n") == n), {})
        out = []
        for text in ((att.get("result") or {}).get("violations") or []):
            fld, _, rest = str(text).partition(": ")
            constraint = rest.rsplit(" (expected ", 1)[0] if rest else str(text)
            out.append({"field": "" if fld == "/" else fld, "constraint": constraint, "described": text})
        return out

    def violation_count(self, violations: list[dict[str, Any]] | None = None) -> int:
        """The final attempt's violation count: the record's, else the number of ``violations``
        (the final attempt's :meth:`violations`, read only when the record lacks the count)."""
        res = self.final_attempt.get("result") or {}
        if "n_violations" in res:
            return int(res["n_violations"])
        return len(self.violations() if violations is None else violations)


@dataclass
class Run:
    """One run directory, read."""

    path: Path
    manifest: dict[str, Any]
    label: str

    @property
    def rundir(self) -> RunDir:
        return RunDir(self.path)

    @property
    def run_id(self) -> str:
        return str(self.manifest.get("run_id", self.path.name))

    @property
    def agent_specs(self) -> list[dict[str, Any]]:
        return list(self.manifest.get("agents") or [])

    def builtin_kind(self, agent: str) -> str | None:
        for a in self.agent_specs:
            if a.get("name") == agent:
                return a.get("builtin")
        return None


@dataclass
class Runs:
    """Several runs read as one collection of entries."""

    runs: list[Run]
    entries: list[Entry]
    agents: list[str]
    separate_runs: bool = False

    def split_entries(self, split: str) -> list[Entry]:
        return [e for e in self.entries if e.split == split]

    @property
    def splits(self) -> list[str]:
        return [s for s in SPLITS if any(e.split == s for e in self.entries)]

    def families(self, split: str | None = None) -> list[str]:
        """Families in registry order (unregistered ones last, alphabetically)."""
        present = {e.family for e in self.entries if split is None or e.split == split}
        order = _registry_order()
        return [f for f in order if f in present] + sorted(present - set(order))

    def areas(self, split: str | None = None) -> list[str]:
        area_of = {e.family: e.area for e in self.entries}
        out: list[str] = []
        for f in self.families(split):
            if area_of[f] not in out:
                out.append(area_of[f])
        return out

    def builtin_kind(self, agent: str) -> str | None:
        """The built-in kind behind an agent name (``None`` for a command agent)."""
        for e in self.entries:
            if e.agent == agent:
                return e.run.builtin_kind(str(e.record["agent"]))
        return None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _registry_order() -> list[str]:
    import psab

    return [s.id for s in psab.families()]


def _area(family: str) -> str:
    import psab
    from psab.errors import UnknownFamilyError

    try:
        return psab.get_family(family).area
    except UnknownFamilyError:
        return UNREGISTERED


def expand_runs(paths: list[str | Path]) -> list[Path]:
    """The run directories ``paths`` name: a run directory (it holds ``manifest.json``) stands
    for itself; a folder of runs — such as ``runs/make-run-<stamp>/``, which ``make run`` announces
    and which holds ``public/``, ``heldout/`` and ``report/`` — stands for its immediate
    subfolders that are run directories, in name order (the others are ignored)."""
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        if (path / MANIFEST).is_file():
            out.append(path)
            continue
        if not path.is_dir():
            raise InvalidArgumentError(f"{path}: no such directory (give a run directory made by `psab run`)")
        inner = sorted(d for d in path.iterdir() if d.is_dir() and (d / MANIFEST).is_file())
        if not inner:
            raise InvalidArgumentError(
                f"{path} is not a psab run directory (no {MANIFEST}) nor a folder of run directories (no "
                f"subfolder holds one); give the directory `psab run --out` wrote, or a folder of them such as "
                f"the runs/make-run-<stamp>/ that `make run` wrote")
        out += inner
    return out


#: What a run's manifest options say of the conditions an agent was judged under, with the
#: value a run recorded before the option existed ran with.
CONDITIONS = (("backend", "surrogate"), ("presentation", "guided"), ("level", 1))


def condition(run: Run) -> dict[str, Any]:
    """The judging backend, presentation level and difficulty level of a run."""
    options = run.manifest.get("options") or {}
    return {name: options.get(name, default) for name, default in CONDITIONS}


def _conditions(runs: list[Run]) -> dict[int, str]:
    """Per run, the suffix that keeps an agent's results apart across conditions: empty when
    every run shares them, else `` [pandapower, expert, L2]`` naming the conditions that vary
    (an agent judged by another backend or reading another presentation is another sample)."""
    values = {id(r): condition(r) for r in runs}
    varying = [name for name, _ in CONDITIONS if len({str(v[name]) for v in values.values()}) > 1]
    out = {}
    for key, v in values.items():
        parts = [f"L{v[name]}" if name == "level" else str(v[name]) for name in varying]
        out[key] = f" [{', '.join(parts)}]" if parts else ""
    return out


def load_runs(paths: list[str | Path], *, separate_runs: bool = False) -> Runs:
    """Read every run directory in ``paths`` (public and held-out records); a folder of run
    directories stands for the runs inside it (:func:`expand_runs`)."""
    if not paths:
        raise InvalidArgumentError("give at least one run directory (made by `psab run`)")
    runs: list[Run] = []
    seen: set[Path] = set()
    for path in expand_runs(paths):
        real = path.resolve()
        if real in seen:
            raise InvalidArgumentError(f"run directory {path} is given twice")
        seen.add(real)
        manifest = RunDir(path).manifest()  # RunnerError when it is not a run directory
        runs.append(Run(path=path, manifest=manifest, label=path.name or str(path)))
    labels = [r.label for r in runs]
    if separate_runs and len(set(labels)) != len(labels):
        for i, r in enumerate(runs):
            r.label = f"{r.label}#{i + 1}"
    entries: list[Entry] = []
    agents: list[str] = []
    areas: dict[str, str] = {}
    conditions = _conditions(runs)
    for run in runs:
        names = [a.get("name") for a in run.agent_specs]
        for rec in run.rundir.records():
            name = str(rec["agent"])
            if name not in names:
                names.append(name)
            agent = f"{name}@{run.label}" if separate_runs else name + conditions[id(run)]
            fam = str(rec["family"])
            if fam not in areas:
                areas[fam] = _area(fam)
            first = Outcome(*outcome(rec, "first"))
            final = Outcome(*outcome(rec, "retries"))
            entries.append(Entry(run=run, record=rec, agent=agent, area=areas[fam], first=first, final=final))
        for n in names:
            label = f"{n}@{run.label}" if separate_runs else n + conditions[id(run)]
            if label not in agents and any(e.agent == label for e in entries):
                agents.append(label)
    return Runs(runs=runs, entries=entries, agents=agents, separate_runs=separate_runs)


def runs_records(runs: Runs, split: str | None = None) -> list[dict[str, Any]]:
    """The records (agent renamed as in the collection) for :func:`psab.runner.summary.aggregate`."""
    out = []
    for e in runs.entries:
        if split is not None and e.split != split:
            continue
        out.append({**e.record, "agent": e.agent})
    return out
