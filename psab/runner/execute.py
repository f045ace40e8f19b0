"""One case — an agent on a task, of any tier — from sandbox to record, on whichever worker runs it.

:func:`run_case` is what a thread, a process or a Dask worker executes. It touches nothing of
the run directory: it returns the record and the attempt artifacts, and the coordinating
process writes them (one writer keeps the run's files consistent and durable).

Failure classes (paper, section 4.2):

``scored``         the agent exited 0 in time and left a JSON object at ``{solution}``; it is
                   evaluated, however bad it is.
``agent_failure``  timeout, non-zero exit, no solution, or a solution that is not a JSON object
                   — the agent's doing; the attempt is scored as an infeasible solution (the
                   evaluator reports the offending fields) and never retried.
``infra_failure``  no acceptable solution, and one of the agent's infrastructure rules matched
                   (provider error, transport drop, quota); retried, at most two attempts in all.

A timeout is always the agent's failure, whatever its output says: a provider that hangs is
indistinguishable from an agent that does, and retrying it would hand slow agents a second try.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from psab.contract import EvaluationResult, Task, Violation
from psab.errors import RunnerError
from psab.io import SolutionProblem, parse_solution_text
from psab.runner.agents import ANSWER_KINDS, AgentSpec, InfraRule
from psab.runner.instructions import instructions
from psab.runner.sandbox import (
    DEFAULT_DISK_LIMIT_MB,
    DEFAULT_FILE_LIMIT_MB,
    DEFAULT_PROCESS_LIMIT,
    DEFAULT_TMP_LIMIT_MB,
    NO_LIMITS,
    Launch,
    Limits,
    Totals,
    agent_env,
    bwrap_problem,
    check_expose,
    copy_home,
    hidden_roots,
    host_agent_ids,
    launch,
    make_sandbox,
    read_solution,
    system_python,
    temp_root,
)
from psab.runner.store import RunDir, attempt_name
from psab.runner.tiers import Case, Graded, Service, Toolbox
from psab.views import agent_view

SCORED = "scored"
AGENT_FAILURE = "agent_failure"
INFRA_FAILURE = "infra_failure"

#: At most this many attempts per case; only infrastructure failures earn another.
MAX_ATTEMPTS = 2

#: How a process killed by SIGXFSZ exits: as a signal, or as a shell or bwrap reports it (128 + n).
_XFSZ_EXITS = (-signal.SIGXFSZ, 128 + signal.SIGXFSZ)
#: The shell's exit status for a command it cannot find (agents.NOT_FOUND_EXIT), and the rule
#: that names it: an infrastructure failure of the run's set-up, never retried.
_NOT_FOUND_EXIT = 127
SET_UP_ERROR = "set-up-error"

#: A solution file larger than this is cut off (and so malformed).
SOLUTION_LIMIT = 8 * 1024 * 1024

#: Pyomo and the reference cache are not safe to drive from several threads at once; agents
#: run concurrently, evaluation takes turns (it is milliseconds against an agent's minutes).
EVAL_LOCK = threading.Lock()

RECORD_STDERR_CHARS = 2000
RECORD_STDOUT_CHARS = 1000


@dataclass(frozen=True)
class Settings:
    """Run-wide settings every case needs (picklable, for process and Dask workers)."""

    isolation: str
    network: bool = True
    #: ``proxy``: under bwrap the agent has a network namespace of its own whose only way out is
    #: the recording proxy of its model API (:mod:`psab.runner.proxy`); ``host``: the host's
    #: network, as before issue 32. ``network=False`` (``--no-network``) cuts even the proxy.
    network_mode: str = "proxy"
    lang: str = "en"
    backend: str = "surrogate"
    presentation: str = "guided"
    default_timeout_s: float = 600.0
    run_seed: int = 0
    max_attempts: int = MAX_ATTEMPTS
    #: Per-process resource limits of every agent, MB (None: none); an agent may set its own.
    memory_limit_mb: float | None = None
    file_limit_mb: float | None = DEFAULT_FILE_LIMIT_MB
    #: What one attempt may use in all (:class:`psab.runner.sandbox.Totals`; 0 or None: no limit).
    process_limit: int | None = DEFAULT_PROCESS_LIMIT
    tmp_limit_mb: float | None = DEFAULT_TMP_LIMIT_MB
    disk_limit_mb: float | None = DEFAULT_DISK_LIMIT_MB
    #: Paths beyond psab's own that an agent must not reach (the run directory).
    extra_hidden: tuple[str, ...] = ()
    #: The toolbox made visible to every agent (None: none; :mod:`psab.runner.tiers`).
    toolbox: Toolbox | None = None


@dataclass(frozen=True)
class CaseJob:
    agent: AgentSpec
    split: str
    index: int | None
    task: dict[str, Any]
    task_key: dict[str, Any] | None
    settings: Settings

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.split, self.task["id"], self.agent.name)

    @property
    def done_key(self) -> tuple[str, str, str]:
        return self.key

    def open(self, hidden: list[Path]) -> Case:
        """The compact tier's case on the worker (:class:`CompactCase`)."""
        return CompactCase(self, hidden)


@dataclass
class CaseOutcome:
    """What a worker hands back: the record line and the files for the run directory."""

    record: dict[str, Any]
    artifacts: dict[str, bytes] = field(default_factory=dict)


# ------------------------------------------------------------------------------- classify


def classify(
    run: Launch, present: bool, parsed: Any, rules: tuple[InfraRule, ...], note: str = "", *,
    limits: Limits = NO_LIMITS, timeout_s: float | None = None, untouched: bool = False,
    proxy: list[Any] | None = None,
) -> tuple[str, str | None, str]:
    """(class, rule, reason) of one attempt; see the module docstring. ``limits`` and
    ``timeout_s`` are what the attempt ran under, named in the reason when they ended it;
    ``untouched``: the solution file still holds the agent's placeholder (so ``present`` is
    False and ``parsed`` None: it is no solution, and an infrastructure rule may yet match).
    ``proxy``: the requests the recording proxy saw (:mod:`psab.runner.proxy`) when the agent's
    model calls went through it — then only they can make the attempt an infrastructure failure,
    and the text ``rules`` (what the agent printed, its exit status) are not consulted."""
    if run.timed_out:
        within = f"within {timeout_s:g} s" if timeout_s else "within its time limit"
        return AGENT_FAILURE, "timeout", f"the agent did not finish {within}"
    if run.disk_exceeded:
        return AGENT_FAILURE, "disk-limit", run.disk_exceeded
    if run.exit_code == 0 and isinstance(parsed, dict):
        return SCORED, None, ""
    if proxy is not None:
        from psab.runner.proxy import classify_from_proxy

        seen = classify_from_proxy(proxy)
        if seen is not None:
            return INFRA_FAILURE, seen[0], seen[1]
        rules = ()  # a claim in the agent's output is no evidence once the facts are at hand
    for rule in rules:
        if rule.matches(run.exit_code, run.stderr_scan, run.stdout_scan):
            return INFRA_FAILURE, rule.name, f"infrastructure rule {rule.name!r} matched (exit status {run.exit_code})"
    if run.exit_code == _NOT_FOUND_EXIT and not isinstance(parsed, dict):
        # the shell's "command not found" with no answer (a `cmd > {solution}` template leaves an empty
        # file): a client the sandbox cannot start (its program or its
        # interpreter is not visible there) is the run's set-up, not the agent's failure; it is
        # not retried either (a missing program does not appear on a second try), so exiting 127
        # earns an agent nothing (issue 34, item 3; preflight: agents.check_client_interpreters)
        return INFRA_FAILURE, SET_UP_ERROR, ("the agent's command was not found in the sandbox (exit status 127): a "
                                             "set-up error of the run; check the client's install and that its "
                                             "interpreter is visible inside the sandbox")
    if limits.file_mb and run.exit_code in _XFSZ_EXITS:
        return AGENT_FAILURE, "file-limit", f"the agent wrote past the file-size limit of {limits.file_mb:g} MB (SIGXFSZ)"
    if run.exit_code != 0:
        return AGENT_FAILURE, "exit-status", f"the agent exited with status {run.exit_code}"
    if untouched:
        return AGENT_FAILURE, "no-solution", "the agent exited 0 leaving the placeholder solution file untouched"
    if not present:
        return AGENT_FAILURE, "no-solution", "the agent exited 0 without writing a solution file"
    return AGENT_FAILURE, "malformed-solution", note or "the solution file is not a JSON object"


# ------------------------------------------------------------------------------- answers


def reference_payload(task: Task, agent: AgentSpec, settings: Settings, *, canonical: bool = False) -> dict[str, Any]:
    """The answer a built-in agent submits, computed here, outside its sandbox. ``canonical``:
    the reference answer with its keys sorted first, so the mutant's mistake does not depend on
    whether the reference came from a solve or from a cache that stores it sorted (the study
    tier's references are kept on disk, :func:`psab.evaluators.cache.on_disk`)."""
    import psab

    with EVAL_LOCK:
        solution = psab.solve(task, settings.backend)
    answer = solution.answer
    if canonical:
        answer = json.loads(json.dumps(answer, sort_keys=True))
    if agent.builtin != "mutant":
        return {"answer": answer, "rationale": solution.rationale or "reference"}
    from psab.mutations import realistic_mistake

    with EVAL_LOCK:
        chosen = realistic_mistake(answer, task.submission_schema, task.id, settings.run_seed)
    if chosen is None:
        return {"answer": answer, "rationale": "mutant: no mutation applies", "note": "no mutation applies"}
    return {"answer": chosen.answer, "rationale": f"mutant: {chosen.describe()}", "note": chosen.describe()}


def escape_probe(task: Task, hidden: list[Path]) -> dict[str, Any]:
    """What the escape agent is told to look for: every path an agent must not reach."""
    from psab.paths import cases_root

    paths = [str(h) for h in hidden] + [str(cases_root() / task.family / "key.json"), str(cases_root())]
    return {"paths": paths, "words": ["psab", "PSAB"], "names": ["key.json", "records.jsonl", "manifest.json"],
            "modules": ["psab"]}


# ------------------------------------------------------------------------------- attempts


def _summary(result: EvaluationResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "feasible": result.feasible,
        "score": result.score,
        "perfect": result.perfect,
        "n_violations": len(result.violations),
        "violations": [v.describe() for v in result.violations[:5]],
    }


def _checked_evaluate(task: Task, solution: Any, backend: str) -> EvaluationResult:
    """``psab.evaluate`` with a safety net: nothing an agent wrote may stop the run.

    The evaluator is built never to raise for an answer; should it still (an evaluator defect,
    an answer nested deeper than the interpreter's stack), the attempt is infeasible with a
    violation naming the error and ``evidence.evaluator_error`` set, so the defect is visible.
    Errors that are the caller's (psab's own exceptions) still propagate.
    """
    import psab
    from psab.errors import PsabError

    try:
        return psab.evaluate(task, solution, backend)
    except PsabError:
        raise
    except Exception as exc:  # noqa: BLE001 - see the docstring
        return _error_result(task, backend, exc)


def _error_result(task: Task, backend: str, exc: BaseException) -> EvaluationResult:
    """An infeasible result naming ``exc`` (``evidence.evaluator_error``): what a case gets
    when evaluating or recording it failed unexpectedly."""
    import psab

    error = f"{type(exc).__name__}: {exc}"[:300]
    base = psab.evaluate(task, {"answer": None}, backend)
    v = Violation("", "the evaluator could not assess this solution", "an assessable solution", error)
    return replace(base, feasible=False, score=0.0, violations=(v,), evidence={**base.evidence, "evaluator_error": error})


def _evaluated(task: Task, settings: Settings, cls: str, rule: str | None, reason: str, present: bool,
               data: bytes | None, parsed: Any, io_dir: Path,
               summarize: Callable[[EvaluationResult], dict[str, Any] | None] | None = None,
               ) -> tuple[EvaluationResult | None, bytes | None, dict[str, Any] | None]:
    """:func:`_evaluate` and the result's JSON, with a last safety net: no single case may stop
    a run. Should evaluating or serializing raise anyway (a defect — the evaluator promises
    never to raise for an answer, and results are made encodable), the case is recorded as an
    evaluator error instead. Errors that are psab's own (a missing backend) still propagate."""
    from psab.errors import PsabError

    try:
        result = _evaluate(task, settings, cls, rule, reason, present, data, parsed, io_dir)
        if result is None:
            return None, None, None
        return result, result.to_json().encode("utf-8"), (summarize or _summary)(result)
    except PsabError:
        raise
    except Exception as exc:  # noqa: BLE001 - see the docstring
        with EVAL_LOCK:
            result = _error_result(task, settings.backend, exc)
        return result, result.to_json().encode("utf-8"), _summary(result)


def unrecordable(record: dict[str, Any], exc: BaseException) -> dict[str, Any]:
    """A record that can always be written, for a case whose own record could not be (a
    defect: records are made encodable): the case's identity, an infeasible result naming the
    error, and no attempt details — so the run goes on and ``--resume`` sees the case done."""
    error = f"{type(exc).__name__}: {exc}"[:300]
    keys = ("agent", "split", "family", "family_version", "task_id", "index", "task_digest", "isolation", "n_attempts")
    result = {"feasible": False, "score": 0.0, "perfect": False, "n_violations": 1,
              "violations": [f"/: the runner could not record this case ({error})"]}
    attempt = {"n": record.get("n_attempts", 1), "class": record.get("final_class", AGENT_FAILURE), "result": result,
               "record_error": error}
    return {**{k: record.get(k) for k in keys}, "attempts": [attempt], "final_class": attempt["class"],
            "result": result, "record_error": error}


def append_outcome(rd: RunDir, record: dict[str, Any], artifacts: dict[str, bytes]) -> dict[str, Any]:
    """Append one case's record and artifacts to the run directory (both tiers) and return the
    record as written. A record that cannot be written as JSON (a defect: records are made
    encodable) must not stop the run, nor make every ``--resume`` fail the same way: the case is
    recorded as :func:`unrecordable`, its artifacts already on disk."""
    try:
        rd.append(record, artifacts)
    except (ValueError, TypeError, RecursionError) as exc:
        record = unrecordable(record, exc)
        rd.append(record, {})
    return record


def _evaluate(task: Task, settings: Settings, cls: str, rule: str | None, reason: str, present: bool,
              data: bytes | None, parsed: Any, io_dir: Path) -> EvaluationResult | None:
    if cls == INFRA_FAILURE:
        return None
    with EVAL_LOCK:
        if isinstance(parsed, dict):
            result = _checked_evaluate(task, parsed, settings.backend)
        elif data is not None:
            # Not a JSON object: the evaluator itself reports why (one violation).
            copy = io_dir / "solution.json"
            copy.write_bytes(data)
            result = _checked_evaluate(task, copy, settings.backend)
        else:
            result = _checked_evaluate(task, {"answer": None}, settings.backend)
    if cls == SCORED:
        return result
    # An agent failure is infeasible whatever it wrote: the runner's reason comes first, then
    # what the evaluator found in the solution (if there was one to read).
    first: list[Violation] = []
    if rule == "timeout":
        first.append(Violation("", "the agent must finish within its time limit", "exit before the timeout", reason))
    elif rule == "exit-status":
        first.append(Violation("", "the agent must exit with status 0", "exit status 0", reason))
    if data is None:
        found = ("the placeholder, untouched" if rule == "no-solution" and "placeholder" in reason
                 else "no file" if not present else "not a regular file")
        first.append(Violation("", "the agent must write its solution file", "solution.json", found))
        rest: tuple[Violation, ...] = ()
    else:
        rest = result.violations
    return replace(result, feasible=False, score=0.0, violations=(*first, *rest))


@dataclass(frozen=True)
class AgentRun:
    """One launch of an agent and what it left, classified (section 4.2): the step every tier's
    attempt shares (:func:`run_attempt`). ``launched_at``,
    ``exited_at`` and ``classified_at`` are ``time.perf_counter()`` stamps for the attempt's timing."""

    run: Launch
    limits: Limits
    present: bool
    data: bytes | None
    parsed: Any
    cls: str
    rule: str | None
    reason: str
    launched_at: float
    exited_at: float
    classified_at: float
    totals: Totals = Totals()
    #: What the recording proxy saw (:func:`psab.runner.proxy.attempt_usage`), when it was used.
    model_api: dict[str, Any] | None = None


def sandbox_env(sb: Any, agent: AgentSpec, paths: dict[str, str], *, isolation: str, hidden: list[Path],
                expose: list[Path], served: tuple[Path, ...] = ()) -> dict[str, str]:
    """The agent's environment in sandbox ``sb``: under bwrap the system directories, the
    agent's exposed paths and the runner's ``served`` ones are visible and ``/tmp`` is private;
    without it the temporary directory is a fresh one inside the sandbox."""
    if isolation == "bwrap":
        tmpdir = "/tmp"
        visible: tuple[Path, ...] | None = (Path("/usr"), Path("/bin"), Path("/sbin"), *expose, *served)
    else:
        (sb.box / ".tmp").mkdir()
        tmpdir = str(sb.box / ".tmp")
        visible = None
    return agent_env(home=paths["workdir"], tmpdir=tmpdir, pass_env=agent.pass_env, hidden=hidden, visible=visible)


def run_agent_once(agent: AgentSpec, settings: Any, sb: Any, argv: list[str], env: dict[str, str], *, n: int,
                   payload: dict[str, Any] | None, expose: list[Path], hidden: list[Path], network: bool,
                   binds: tuple[Path, ...] = ()) -> AgentRun:
    """Launch the agent once in ``sb`` (its time and resource limits resolved from the agent and
    ``settings``, a :class:`Settings` or a fleet one), read what it left at the solution path
    (the untouched placeholder counts as nothing), parse it without trusting it and classify
    the attempt (:func:`classify`). ``binds``: runner-made paths shown read-only (the fleet
    tier's tool server, :func:`psab.runner.sandbox.launch`)."""
    from psab.runner import proxy as model_proxy

    launched_at = time.perf_counter()
    timeout = agent.timeout_s or settings.default_timeout_s
    limits = Limits.resolve(agent.memory_limit_mb, settings.memory_limit_mb, agent.file_limit_mb,
                            settings.file_limit_mb)
    totals = Totals.of(getattr(settings, "process_limit", None), getattr(settings, "tmp_limit_mb", None),
                       getattr(settings, "disk_limit_mb", None))
    options = dict(agent.options)
    api = agent.proxied
    seen: list[Any] | None = None
    # --network proxy under bwrap: a network namespace of the sandbox's own (no --share-net),
    # whose only way out is the proxy's Unix socket, relayed inside by the forwarder
    own_net = network and settings.isolation == "bwrap" and getattr(settings, "network_mode", "host") == "proxy"
    with contextlib.ExitStack() as stack:
        if api is not None:
            upstream = model_proxy.upstream_for(api, agent.upstream or options.get("base_url"))
            unix_path = None
            if own_net:
                sock_dir = sb.attempt_dir / "net"
                sock_dir.mkdir(mode=0o711)
                os.chmod(sock_dir, 0o711 if host_agent_ids() else 0o755)
                unix_path = str(sock_dir / "s")
                binds = (*binds, sock_dir)
                argv = [system_python(), "-I", "-S", "-c", model_proxy.FORWARDER, unix_path,
                        str(model_proxy.SANDBOX_PORT), *argv]
            px = stack.enter_context(model_proxy.serve(api, upstream, unix_path))
            env = {**env, **px.env()}
            if agent.builtin == "openai":
                options["base_url"] = px.base_url
        stdin = None
        if agent.builtin is not None:
            stdin = json.dumps({**(payload or {}), "attempt": n, "options": options}).encode()
        run = launch(argv, sb, env=env, isolation=settings.isolation, network=network and not own_net, expose=expose,
                     hidden=hidden, timeout_s=timeout, stdin_bytes=stdin, limits=limits, binds=binds, totals=totals)
        if api is not None:
            seen = px.requests
    exited_at = time.perf_counter()
    present, data, note = read_solution(sb.solution, SOLUTION_LIMIT)
    untouched = agent.placeholder is not None and data == agent.placeholder.encode("utf-8")
    if untouched:
        present, data, note = False, None, "the placeholder solution file was left untouched"
    parsed: Any = None
    if data is not None and not note:
        try:
            # bounded: no parse of an agent's bytes may raise or exhaust the worker
            parsed = parse_solution_text(data)
        except SolutionProblem:
            parsed = None
    cls, rule, reason = classify(run, present, parsed, agent.infra_rules, note, limits=limits, timeout_s=timeout,
                                 untouched=untouched, proxy=seen)
    usage = model_proxy.attempt_usage(seen, agent.price_per_mtok) if seen is not None else None
    return AgentRun(run, limits, present, data, parsed, cls, rule, reason, launched_at, exited_at,
                    time.perf_counter(), totals, usage)


def rule_basis(cls: str, rule: str | None) -> str | None:
    """What an infrastructure failure was judged from: ``proxy`` (what the recording proxy saw),
    ``set-up`` (the runner could not start the agent) or ``text`` (a rule on the agent's output
    and exit status, for clients that cannot be proxied); None for any other class."""
    if cls != INFRA_FAILURE:
        return None
    if rule is not None and rule.startswith("proxy-"):
        return "proxy"
    return "set-up" if rule == SET_UP_ERROR else "text"


def run_attempt(job: Any, case: Case, n: int, hidden: list[Path]) -> tuple[dict[str, Any], dict[str, bytes]]:
    """One attempt of any tier (:mod:`psab.runner.tiers`): a fresh sandbox holding the tier's
    view and instructions, the tier's per-attempt service and the toolbox (when the run has
    one) made visible, the agent, classification, the tier's grading."""
    agent, s = job.agent, job.settings
    t0 = time.perf_counter()
    expose = check_expose(agent.expose, hidden) if s.isolation == "bwrap" else []
    network = s.network if agent.network is None else (agent.network and s.network)
    toolbox = getattr(s, "toolbox", None)
    sb = make_sandbox(temp_root(), s.isolation)
    try:
        paths = sb.agent_paths()
        view = case.write_view(sb.box, paths)
        copy_home(sb, agent.copy_home)
        if agent.placeholder is not None:
            # a file for a code-editing harness to edit; left as it is, it is no solution
            sb.solution.write_text(agent.placeholder, encoding="utf-8")
        with case.service(sb) as svc:
            text = case.instructions(view, s.lang, paths, svc)
            if toolbox is not None:
                text = text.rstrip("\n") + "\n\n" + toolbox.instructions(s.lang)
            (sb.box / "instructions.md").write_text(text, encoding="utf-8")
            # runner-made paths (the service's, the toolbox's): bound read-only, not exposed
            served = tuple(svc.binds) + (tuple(Path(p) for p in toolbox.binds) if toolbox is not None else ())
            env = sandbox_env(sb, agent, paths, isolation=s.isolation, hidden=hidden, expose=expose, served=served)
            first = [*svc.path, *([toolbox.bin_dir] if toolbox is not None else [])]
            if first:
                env["PATH"] = os.pathsep.join([*first, env.get("PATH", "")])
            env.update(svc.env)
            if toolbox is not None:
                # a neutral name: the agent does not learn the benchmark's name from its environment
                env["TOOLBOX_PYTHON"] = toolbox.python
            argv = agent.argv(paths, system_python(), case.script())
            ar = run_agent_once(agent, s, sb, argv, env, n=n, payload=case.payload, expose=expose, hidden=hidden,
                                network=network, binds=served)
            case.collect(svc)
        graded = case.grade(ar, sb, svc)
        t4 = time.perf_counter()
    finally:
        sb.remove()
    t5 = time.perf_counter()
    run, data = ar.run, ar.data
    attempt = {
        "n": n,
        "class": ar.cls,
        "rule": ar.rule,
        "rule_basis": rule_basis(ar.cls, ar.rule),
        "reason": ar.reason,
        "exit_code": run.exit_code,
        "timed_out": run.timed_out,
        "limits": ar.limits.to_dict(),
        "totals": ar.totals.to_dict(),
        **({"model_api": ar.model_api} if ar.model_api is not None else {}),
        "wall_s": round(run.wall_s, 4),
        "solution_present": ar.present,
        "solution_bytes": len(data) if data is not None else None,
        "stderr_tail": run.stderr_tail[-RECORD_STDERR_CHARS:],
        "stdout_tail": run.stdout_tail[-RECORD_STDOUT_CHARS:],
        "result": graded.summary,
        "timing": {
            "setup_s": round(ar.launched_at - t0, 5),
            "agent_s": round(ar.exited_at - ar.launched_at, 5),
            "classify_s": round(ar.classified_at - ar.exited_at, 5),
            case.grade_timing: round(t4 - ar.classified_at, 5),
            "cleanup_s": round(t5 - t4, 5),
        },
        **graded.fields,
    }
    prefix = attempt_name(n) + "/"
    files = {prefix + "stderr.txt": run.stderr_scan.encode(), prefix + "stdout.txt": run.stdout_scan.encode()}
    if data is not None:
        files[prefix + "solution.json"] = data
    files.update({prefix + name: content for name, content in graded.files.items()})
    return attempt, files


class CompactCase(Case):
    """A compact task on the worker: ``task.json`` (the agent view at the run's presentation
    level, naming the judging backend), the task's instructions, ``psab.evaluate``."""

    #: Whether the built-ins' reference answer is taken with sorted keys (:func:`reference_payload`).
    canonical_reference: bool = False

    def __init__(self, job: CaseJob, hidden: list[Path]) -> None:
        self.job = job
        self.task = Task.from_dict(job.task, key=job.task_key)
        if job.agent.builtin in ANSWER_KINDS:
            self.payload = reference_payload(self.task, job.agent, job.settings, canonical=self.canonical_reference)
        elif job.agent.builtin == "escape":
            self.payload = {"probe": escape_probe(self.task, hidden)}

    def write_view(self, box: Path, paths: dict[str, str]) -> Any:
        s = self.job.settings
        # The agent reads its view: one statement (its presentation level) and the judging backend.
        view = agent_view(self.task, presentation=s.presentation, backend=s.backend)
        (box / "task.json").write_text(view.to_json(), encoding="utf-8")
        return view

    def instructions(self, view: Any, lang: str, paths: dict[str, str], service: Service) -> str:
        return instructions(view, lang, paths)

    def result_summary(self, result: EvaluationResult) -> dict[str, Any]:
        """The record's ``result`` of an evaluation (:func:`_summary`)."""
        return _summary(result)  # type: ignore[return-value]

    def grade(self, ar: AgentRun, sandbox: Any, service: Service) -> Graded:
        result, result_json, summary = _evaluated(self.task, self.job.settings, ar.cls, ar.rule, ar.reason, ar.present,
                                                  ar.data, ar.parsed, sandbox.io, self.result_summary)
        fields: dict[str, Any] = {}
        if self.payload and self.payload.get("note"):
            fields["note"] = self.payload["note"]
        if result is not None and "evaluator_error" in result.evidence:
            fields["evaluator_error"] = result.evidence["evaluator_error"]
        return Graded(summary, fields, {"result.json": result_json} if result_json is not None else {})

    def record(self, attempts: list[dict[str, Any]]) -> dict[str, Any]:
        job, task = self.job, self.task
        final = attempts[-1]
        return {
            "agent": job.agent.name,
            "split": job.split,
            "family": task.family,
            "family_version": task.family_version,
            "task_id": task.id,
            "index": job.index,
            "task_digest": task.digest,
            "isolation": job.settings.isolation,
            "attempts": attempts,
            "n_attempts": len(attempts),
            "final_class": final["class"],
            "result": final["result"],
        }


def worker_hidden(settings: Any) -> list[Path]:
    """On the worker about to run a case (both tiers): refuse if it cannot run the bwrap
    sandbox the run asked for, and return the paths no agent may reach (psab's own and the
    run's ``extra_hidden``)."""
    if settings.isolation == "bwrap":
        problem = bwrap_problem(settings.network)
        if problem is not None:
            raise RunnerError(f"this worker cannot run the bwrap sandbox: {problem}")
    return hidden_roots(None) + [Path(p) for p in settings.extra_hidden]


def run_attempts(agent: AgentSpec, settings: Any,
                 attempt: Callable[[int], tuple[dict[str, Any], dict[str, bytes]]],
                 ) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
    """Every attempt of one case under the retry rule (module docstring; both tiers):
    ``attempt(n)`` runs attempt ``n``; only an infrastructure failure earns another, at most
    ``settings.max_attempts`` in all, after the agent's ``retry_delay_s``. Returns the attempts'
    rows and all their artifacts."""
    attempts: list[dict[str, Any]] = []
    artifacts: dict[str, bytes] = {}
    for n in range(1, max(1, settings.max_attempts) + 1):
        row, files = attempt(n)
        attempts.append(row)
        artifacts.update(files)
        if row["class"] != INFRA_FAILURE or row.get("rule") == SET_UP_ERROR:
            break
        if n < settings.max_attempts and agent.retry_delay_s > 0:
            time.sleep(agent.retry_delay_s)
    return attempts, artifacts


def run_case(job: Any) -> CaseOutcome:
    """Run every attempt of one case of any tier and build its record (executed on a worker)."""
    s = job.settings
    hidden = worker_hidden(s)
    case = job.open(hidden)
    attempts, artifacts = run_attempts(job.agent, s, lambda n: run_attempt(job, case, n, hidden))
    return CaseOutcome(record=case.record(attempts), artifacts=artifacts)
