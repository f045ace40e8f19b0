"""The tier seam: what a tier supplies to the one run loop (:mod:`psab.runner.loop`).

psab has three tiers — compact (the families' tasks, :mod:`psab.runner.run`), fleet (questions
on an operational world answered through budgeted tools, :mod:`psab.runner.fleet`) and study
(engineering studies on real-size models, :mod:`psab.runner.study`). Planning glue, preflight
(agents, names, limits, isolation, exposed paths), sandboxes, attempts, failure classes,
retries, resume, workers, Dask, the toolbox, manifest writing and summaries are written once;
a tier supplies only what differs, in two objects:

- a :class:`Tier`, on the coordinating process: its options and their checks, its cases
  (planning), its manifest fields and the resume check, the settings its workers need, its
  summary columns and table;
- its jobs (one per case × agent; picklable, they travel to a thread or a Dask worker), whose
  :meth:`Job.open` returns a :class:`Case` on the worker: the payload of the built-in agents, the
  agent's view, the instructions, any per-attempt service (the fleet's tool server), the
  built-in agents' program, grading and its metrics, and the record.

:func:`psab.runner.execute.run_case` runs a job; :func:`psab.runner.execute.run_attempt` is the
one attempt all tiers share.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Protocol

from psab.errors import RunnerError

# This module imports nothing else of the runner (the loop and the tiers import it), so the
# types of the runner's own objects are spelled ``Any`` here: AgentSpec, AgentRun
# (psab.runner.execute), RunDir (psab.runner.store), Row (psab.runner.summary).

#: The tiers, by the name ``psab run --tier`` and a manifest's ``tier`` use; a manifest without
#: ``tier`` is a compact run (runs recorded before the fleet tier existed, and every compact run).
TIERS = {
    "compact": "psab.runner.run:CompactTier",
    "fleet": "psab.runner.fleet:FleetTier",
    "study": "psab.runner.study:StudyTier",
}


def tier_class(name: str) -> type[Tier]:
    """The :class:`Tier` subclass of ``name`` (imported on first use: each tier's imports stay lazy)."""
    if name not in TIERS:
        raise RunnerError(f"unknown tier {name!r}; the tiers are {', '.join(TIERS)}")
    module, _, cls = TIERS[name].partition(":")
    return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]


def manifest_tier(manifest: dict[str, Any]) -> str:
    return str(manifest.get("tier") or "compact")


def script_source() -> str:
    """The built-in agents' program (``agent_script.py``, run inside the sandbox, never imported)."""
    return resources.files("psab.runner").joinpath("agent_script.py").read_text(encoding="utf-8")


def dask_client(address: str) -> Any:
    """A client of the Dask scheduler at ``address``. Each case then runs whole on a worker —
    sandbox, any per-attempt service and agent together; a worker that cannot run the chosen
    sandbox fails the case as it does under --workers."""
    try:
        from distributed import Client
    except ImportError:
        raise RunnerError("--dask needs dask.distributed (pip install 'psab[dask]')") from None
    try:
        return Client(address, timeout="20s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise RunnerError(f"--dask {address}: cannot connect ({exc})") from None


# ------------------------------------------------------------------------------ the toolbox


@dataclass(frozen=True)
class Toolbox:
    """The built toolbox as the run uses it (picklable, in every tier's settings): its root, the
    directories bound read-only into the sandbox at the same paths, its interpreter, its
    ``bin/`` (first on the agent's ``PATH``) and its package versions (:mod:`psab.toolbox`)."""

    root: str
    binds: tuple[str, ...]
    python: str
    bin_dir: str
    versions: tuple[tuple[str, str], ...]

    def manifest(self) -> dict[str, Any]:
        return {"root": self.root, "versions": dict(self.versions)}

    def instructions(self, lang: str) -> str:
        """The instructions' section saying where the toolbox is and what it has."""
        pkgs = ", ".join(f"{k} {v}" for k, v in self.versions) or "—"
        if lang == "ru":
            return (f"## Инструменты\n\nВ песочнице есть отдельное окружение Python с библиотеками отрасли "
                    f"(только для чтения): интерпретатор `{self.python}` (также в переменной `TOOLBOX_PYTHON`; "
                    f"его каталог `{self.bin_dir}` стоит первым в `PATH`). Пакеты: {pkgs}.\n")
        return (f"## Tools\n\nA separate, read-only Python environment with the field's libraries is available: "
                f"its interpreter is `{self.python}` (also in the environment variable `TOOLBOX_PYTHON`; its "
                f"directory `{self.bin_dir}` comes first on `PATH`). Packages: {pkgs}.\n")


NO_TOOLBOX = ("no toolbox: build it with `psab toolbox build`, or pass --no-toolbox")


def locate_toolbox(choice: bool | str | None) -> Toolbox | None:
    """The toolbox a run asked for (``choice``: False/None off, True the default location, a
    path), or None when it is off or not built (:mod:`psab.toolbox` missing counts as not built).
    The caller decides whether a missing toolbox refuses the run."""
    if not choice:
        return None
    try:
        from psab import toolbox as tb
    except ImportError:
        return None
    root = tb.locate(choice if isinstance(choice, str) else None)
    if root is None:
        return None
    root = Path(root)
    python = Path(tb.python(root))
    return Toolbox(root=str(root), binds=tuple(str(p) for p in tb.sandbox_binds(root)), python=str(python),
                   bin_dir=str(python.parent), versions=tuple(sorted((str(k), str(v))
                                                                     for k, v in tb.versions(root).items())))


# ------------------------------------------------------------------------------ worker side


@dataclass
class Service:
    """What a per-attempt service adds to the agent's sandbox (the fleet's tool server): paths
    bound read-only at the same place, directories put first on ``PATH``, environment
    variables; ``handle`` is the tier's own object and ``collected`` what the tier took from it
    after the agent ran (:meth:`Case.collect`)."""

    binds: tuple[Path, ...] = ()
    path: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    handle: Any = None
    collected: Any = None


@dataclass
class Graded:
    """One attempt's grading: the record's ``result`` (None for an infrastructure failure), the
    tier's extra fields of the attempt row, its extra artifacts (``result.json``, a tool log)."""

    summary: dict[str, Any] | None
    fields: dict[str, Any] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)


class Case:
    """One case (a job) opened on the worker that runs it; a tier overrides what differs."""

    #: The attempt's ``timing`` key of the grading step.
    grade_timing: ClassVar[str] = "evaluate_s"
    #: What the built-in agents receive on standard input (computed outside the sandbox).
    payload: dict[str, Any] | None = None

    def write_view(self, box: Path, paths: dict[str, str]) -> Any:
        """Write the agent's view into the sandbox directory ``box`` (the agent-side ``paths``
        may be adjusted, e.g. the view's file name) and return it for :meth:`instructions`."""
        raise NotImplementedError

    @contextlib.contextmanager
    def service(self, sandbox: Any) -> Iterator[Service]:
        """The attempt's service, alive while the agent runs (default: none)."""
        yield Service()

    def instructions(self, view: Any, lang: str, paths: dict[str, str], service: Service) -> str:
        raise NotImplementedError

    def script(self) -> str:
        """The built-in agents' program."""
        return script_source()

    def collect(self, service: Service) -> None:
        """After the agent ran, while the service is still up: take what grading needs."""

    def grade(self, ar: Any, sandbox: Any, service: Service) -> Graded:
        raise NotImplementedError

    def record(self, attempts: list[dict[str, Any]]) -> dict[str, Any]:
        raise NotImplementedError


class Job(Protocol):
    """One case × agent, as it travels to a worker."""

    agent: Any
    settings: Any

    @property
    def done_key(self) -> tuple[str, str, str]:
        """(split, task id, agent): how the run's records name this case."""
        ...

    def open(self, hidden: list[Path]) -> Case: ...


# ------------------------------------------------------------------------------ coordinator side


class Tier:
    """A tier on the coordinating process. Subclasses set :attr:`name` and implement the
    planning, manifest, settings and summary hooks; :mod:`psab.runner.loop` does the rest."""

    name: ClassVar[str] = ""
    #: The example in "no agent: give --agent (e.g. ...)".
    no_agent_hint: ClassVar[str] = ""
    #: Whether the toolbox is on when the options do not say.
    toolbox_default: ClassVar[bool] = False

    def __init__(self, opts: Any) -> None:
        self.opts = opts
        self.toolbox: Toolbox | None = None

    # --- options -------------------------------------------------------------

    @classmethod
    def from_manifest(cls, manifest: dict[str, Any]) -> Tier:
        raise NotImplementedError

    def check_agent(self, agent: Any) -> None:
        """Refuse an agent this tier cannot run (before the generic checks)."""

    def check(self) -> None:
        """The tier's own option checks (the generic ones are :func:`psab.runner.loop.preflight`'s)."""

    def hidden(self) -> list[Path]:
        """Paths of the tier's own an agent must never see, known before the run starts (the
        fleet's given world, questions and keys): preflight refuses an ``expose`` over them."""
        return []

    def toolbox_choice(self) -> bool | str:
        choice = getattr(self.opts, "toolbox", None)
        return self.toolbox_default if choice is None else choice

    # --- planning ------------------------------------------------------------

    def prepare(self, run_dir: Path) -> None:
        """Before planning, inside the locked run directory (the fleet builds its world)."""

    def plan(self, seed: str | None, mapper: Callable[..., Iterable[Any]]) -> list[Any]:
        raise NotImplementedError

    def manifest(self, base: dict[str, Any], cases: list[Any], seed: str | None) -> dict[str, Any]:
        raise NotImplementedError

    def store(self, rd: Any, cases: list[Any]) -> None:
        """Keep what a later regrade needs (the compact tier's public tasks)."""

    def resume_check(self, manifest: dict[str, Any], seed: str | None) -> None:
        """Before planning a resumed run (the held-out seed, the fleet's world)."""

    def check_same(self, manifest: dict[str, Any], cases: list[Any], seed: str | None) -> None:
        """A resumed run must run exactly the cases its manifest promised."""
        raise NotImplementedError

    # --- executing -----------------------------------------------------------

    def settings(self, isolation: str, run_dir: Path) -> Any:
        raise NotImplementedError

    def jobs(self, cases: list[Any], settings: Any) -> list[Any]:
        raise NotImplementedError

    def connect(self, address: str) -> Any:
        return dask_client(address)

    # --- summaries -----------------------------------------------------------

    def summary(self, manifest: dict[str, Any], records: list[dict[str, Any]],
                rows: list[Any]) -> tuple[dict[str, Any], str, str]:
        """(the summary's tier fields, Markdown after the runner's table, the terminal table)."""
        raise NotImplementedError
