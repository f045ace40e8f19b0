"""``psab run --tier fleet``: agents on the fleet tier's questions, through the fleet tools.

A tier of the one run loop (:mod:`psab.runner.loop`, :mod:`psab.runner.tiers`), so the same
machinery as the compact tier: the same sandboxes and isolation, the same failure classes
(scored / agent_failure / infra_failure, classified by :func:`psab.runner.execute.classify`),
the same retry rule (only an infrastructure failure earns a second attempt), the same
append-only records and ``--resume``.
What differs is the case: a question of the world built by :mod:`psab.fleet` instead of a task.

Per attempt (issue 23 items 1–4):

1. a fresh sandbox holds ``question.json`` (the question's agent view: the text in the run's
   language, its answer schema; never its key) and ``instructions.md`` (how to reach the tools:
   the ``fleet-tool`` command and the MCP server's argv, the budgets of PowerBench Table 7, and
   the answer format ``{"question_id", "answer", "evidence"}``);
2. the tool server is started OUTSIDE the sandbox for this attempt only
   (:func:`psab.fleet.server.serve_attempt`); the agent sees its socket and client, never the
   world's files nor the keys (the world, questions and keys are hidden like the run directory);
3. the answer is graded by :func:`psab.fleet.grading.grade_one` with the evidence the tools
   actually returned (the retrieved-evidence recall of the paper, Table 5), and the tool log —
   every call with its arguments, bytes, rows, duration and error — is kept with the attempt
   (``tools.jsonl`` among its artifacts) and summarised in the record (:func:`tool_metrics`).

The run directory's records have the compact tier's shape (``result.feasible`` = schema valid,
``result.score`` = field accuracy, ``result.perfect`` = joint accuracy), so the runner's summary
and ``psab report`` read them unchanged; the fleet-specific numbers sit under ``result.fleet``
and ``attempts[i].tools``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from psab.errors import RunnerError
from psab.runner import loop
from psab.runner.agents import AgentSpec
from psab.runner.execute import (
    INFRA_FAILURE,
    MAX_ATTEMPTS,
    SCORED,
    CaseOutcome,
    run_case,
)
from psab.runner.loop import RunReport
from psab.runner.sandbox import (
    DEFAULT_DISK_LIMIT_MB,
    DEFAULT_FILE_LIMIT_MB,
    DEFAULT_PROCESS_LIMIT,
    DEFAULT_TMP_LIMIT_MB,
)
from psab.runner.tiers import Case, Graded, Service, Tier, Toolbox

TIER = "fleet"
#: Built-in kinds whose program is :mod:`psab.fleet.agents` (the others run the compact
#: tier's script: the failure-class agents — silent, crash, hang, malformed, provider-error —
#: work on a question as they do on a task).
FLEET_KINDS = ("fleet-reference", "fleet-weak", "fleet-quality-blind")
#: Compact-tier built-ins that cannot run here: they need a compact task's reference answer.
COMPACT_ONLY = ("reference", "mutant", "flaky", "openai")
#: The fleet world's sizes a run may build on the fly.
FACES = ("cli", "mcp")
FLEET_FAMILIES = ("temporal", "contextual", "comparative", "causal")
RECORD_STDERR_CHARS = 2000
RECORD_STDOUT_CHARS = 1000
#: At most this many tool calls of one attempt are kept in the record itself (all are in the
#: attempt's ``tools.jsonl`` artifact); the metrics are computed from all of them.
RECORD_TOOL_CALLS = 60
RECORD_ARGS_CHARS = 300


@dataclass
class FleetOptions:
    """What defines a fleet run (stored in its manifest; a resumed run takes it from there)."""

    agents: list[AgentSpec]
    #: A built world (``psab fleet build``); None: build one in the run directory from ``seed``.
    world: str | None = None
    #: A questions directory (``psab fleet questions``); None: write them for ``world``.
    questions: str | None = None
    #: The keys directory; default ``QUESTIONS-keys`` as ``psab fleet questions`` writes it.
    keys: str | None = None
    seed: str = "0"
    size: str = "test"
    per_family: int = 3
    families: list[str] | None = None
    limit: int | None = None
    #: The tools' visible corpus (PowerBench Table 9): None = every device.
    corpus_devices: int | None = None
    #: Changes to the tools' per-question budget (:class:`psab.fleet.tools.Budget`; PowerBench
    #: Table 7 defaults), e.g. ``{"calls": 20}``.
    budget: dict[str, float] = field(default_factory=dict)
    isolation: str = "auto"
    network: bool = True
    #: ``proxy``: under bwrap the agent has a network namespace of its own whose only way out is
    #: the recording proxy of its model API (:mod:`psab.runner.proxy`); ``host``: the host's
    #: network, as before issue 32. ``network=False`` (``--no-network``) cuts even the proxy.
    network_mode: str = "proxy"
    lang: str = "en"
    timeout_s: float = 600.0
    run_seed: int = 0
    max_attempts: int = MAX_ATTEMPTS
    memory_limit_mb: float | None = None
    file_limit_mb: float | None = DEFAULT_FILE_LIMIT_MB
    #: What one attempt may use in all (:class:`psab.runner.sandbox.Totals`; 0 or None: no limit).
    process_limit: int | None = DEFAULT_PROCESS_LIMIT
    tmp_limit_mb: float | None = DEFAULT_TMP_LIMIT_MB
    disk_limit_mb: float | None = DEFAULT_DISK_LIMIT_MB
    #: The toolbox (:mod:`psab.runner.tiers`): None the tier's default (off), False off, True
    #: the built one, a path.
    toolbox: bool | str | None = None
    #: Let the python tool run without bwrap where bwrap does not work (its limits, seccomp
    #: filter and audit hook only; ``--allow-unsandboxed-python-tool``). Off: such calls are
    #: refused with one line (issue 32, item 8).
    allow_unsandboxed_python_tool: bool = False
    #: The world's level when the run builds it (:mod:`psab.fleet.quality`): 1 as computed,
    #: 2 the data as utilities keep it.
    level: int = 1

    def to_dict(self) -> dict[str, Any]:
        out = {"world": self.world, "questions": self.questions, "keys": self.keys, "size": self.size,
               "per_family": self.per_family, "families": self.families, "limit": self.limit,
               "corpus_devices": self.corpus_devices, "budget": dict(self.budget), "isolation": self.isolation,
               "network": self.network, "network_mode": self.network_mode,
               "lang": self.lang, "timeout_s": self.timeout_s, "run_seed": self.run_seed,
               "max_attempts": self.max_attempts, "memory_limit_mb": self.memory_limit_mb,
               "file_limit_mb": self.file_limit_mb, "process_limit": self.process_limit,
               "tmp_limit_mb": self.tmp_limit_mb, "disk_limit_mb": self.disk_limit_mb}
        if self.toolbox is not None:  # absent when not asked for: the manifest as before the toolbox
            out["toolbox"] = self.toolbox
        if self.allow_unsandboxed_python_tool:  # likewise absent unless asked for
            out["allow_unsandboxed_python_tool"] = True
        if self.level != 1:  # absent at level 1: the manifest as before levels
            out["level"] = self.level
        return out


@dataclass(frozen=True)
class FleetSettings:
    """Run-wide settings every fleet case needs (picklable)."""

    isolation: str
    world: str
    network: bool = True
    #: ``proxy``: under bwrap the agent has a network namespace of its own whose only way out is
    #: the recording proxy of its model API (:mod:`psab.runner.proxy`); ``host``: the host's
    #: network, as before issue 32. ``network=False`` (``--no-network``) cuts even the proxy.
    network_mode: str = "proxy"
    lang: str = "en"
    default_timeout_s: float = 600.0
    max_attempts: int = MAX_ATTEMPTS
    memory_limit_mb: float | None = None
    file_limit_mb: float | None = DEFAULT_FILE_LIMIT_MB
    #: What one attempt may use in all (:class:`psab.runner.sandbox.Totals`; 0 or None: no limit).
    process_limit: int | None = DEFAULT_PROCESS_LIMIT
    tmp_limit_mb: float | None = DEFAULT_TMP_LIMIT_MB
    disk_limit_mb: float | None = DEFAULT_DISK_LIMIT_MB
    corpus_devices: int | None = None
    budget: tuple[tuple[str, float], ...] = ()
    run_seed: int = 0
    extra_hidden: tuple[str, ...] = ()
    toolbox: Toolbox | None = None
    allow_unsandboxed_python_tool: bool = False


@dataclass(frozen=True)
class FleetJob:
    agent: AgentSpec
    question: dict[str, Any]
    key: dict[str, Any]
    settings: FleetSettings

    @property
    def key_tuple(self) -> tuple[str, str, str]:
        return ("public", self.question["question_id"], self.agent.name)

    @property
    def done_key(self) -> tuple[str, str, str]:
        return self.key_tuple

    def open(self, hidden: list[Path]) -> Case:
        return FleetCase(self, hidden)


#: A worker's hand-back (the one type of every tier).
FleetOutcome = CaseOutcome


# ---------------------------------------------------------------------------- the agent's view


def question_view(q: dict[str, Any], lang: str) -> dict[str, Any]:
    """What the agent reads: the question in its language, the targets and window it names,
    and the answer schema — nothing of the key (the key lives in another file altogether)."""
    view = {"question_id": q["question_id"], "family": q["family"], "lang": lang,
            "question": q["text_ru"] if lang == "ru" else q["text_en"], "answer_schema": q["answer_schema"]}
    for k in ("targets", "window", "rule", "n_devices"):
        if k in q:
            view[k] = q[k]
    return view


_INSTR = {
    "en": """# Question {qid} ({family})

{question}

{tools}
## The answer

The question is also in `{task}` (with its `answer_schema`). Write `{solution}` as one JSON object:

```json
{{"question_id": "{qid}", "answer": {{ ... }}, "evidence": [
  {{"kind": "document", "path": "documents/..."}},
  {{"kind": "series", "device_id": "...", "start": "...Z", "end": "...Z", "metrics": ["..."]}}]}}
```

`answer` must follow the answer schema exactly; `evidence` lists the documents and telemetry
windows that justify it. Your working directory is `{workdir}`. You are done when `{solution}`
has been written.
""",
    "ru": """# Вопрос {qid} ({family})

{question}

{tools}
## Ответ

Вопрос также записан в `{task}` (с его `answer_schema`). Запишите в `{solution}` один JSON-объект:

```json
{{"question_id": "{qid}", "answer": {{ ... }}, "evidence": [
  {{"kind": "document", "path": "documents/..."}},
  {{"kind": "series", "device_id": "...", "start": "...Z", "end": "...Z", "metrics": ["..."]}}]}}
```

`answer` должен в точности следовать схеме ответа; `evidence` перечисляет документы и окна
телеметрии, на которых основан ответ. Рабочий каталог — `{workdir}`. Работа окончена, когда записан
`{solution}`.
""",
}


def instructions(view: dict[str, Any], lang: str, paths: dict[str, str], tools: str) -> str:
    """The agent's instructions: the question, the tools section (``tools``:
    :func:`psab.fleet.server.tools_text`, the commands, the budget in force and the MCP command)
    and the answer's format."""
    return _INSTR[lang].format(qid=view["question_id"], family=view["family"], question=view["question"],
                               tools=tools.strip() + "\n", **paths)


# ---------------------------------------------------------------------------- metrics


def tool_metrics(log: list[dict[str, Any]]) -> dict[str, Any]:
    """One attempt's tool use, from its log (issue 23 item 3; PowerBench Tables 5, 8, 9):
    calls, calls that errored, whether a budget was reached (TBR counts these), the tools'
    summed latency and bytes, and calls per tool."""
    calls = len(log)
    errors = sum(1 for c in log if not c.get("ok"))
    per_tool: dict[str, int] = {}
    for c in log:
        name = str(c.get("tool"))
        per_tool[name] = per_tool.get(name, 0) + 1
    return {"calls": calls, "errors": errors, "budget_reached": any(bool(c.get("budget_reached")) for c in log),
            "latency_ms": round(sum(float(c.get("duration_ms") or 0.0) for c in log), 3),
            "bytes": int(sum(int(c.get("bytes") or 0) for c in log)), "per_tool": dict(sorted(per_tool.items()))}


def _read_log(path: Path) -> list[dict[str, Any]]:
    """The server's JSON-lines log; a torn line (the server was stopped mid-write) is skipped."""
    out: list[dict[str, Any]] = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            out.append(row)
    return out


def _retrieved(server: Any, log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The evidence the tools returned in this attempt, in :mod:`psab.fleet.grading`'s format:
    the session's own account when the server exposes it, else read off the log."""
    session = getattr(server, "session", None)
    if session is not None and hasattr(session, "retrieved_evidence"):
        return list(session.retrieved_evidence())
    return evidence_from_log(log)


def evidence_from_log(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Documents read and telemetry windows read, from successful calls in the log."""
    out: list[dict[str, Any]] = []
    for c in log:
        if not c.get("ok"):
            continue
        args = c.get("args") or {}
        if c.get("tool") == "read_file" and isinstance(args.get("path"), str):
            out.append({"kind": "document", "path": args["path"]})
        elif c.get("tool") == "read_timeseries" and isinstance(args.get("device_id"), str):
            item = {"kind": "series", "device_id": args["device_id"]}
            for k in ("start", "end"):
                if isinstance(args.get(k), str):
                    item[k] = args[k]
            if "evidence" in c and isinstance(c["evidence"], dict):
                item.update(c["evidence"])  # the window actually returned, when the log says
            out.append(item)
    return out


def result_summary(grade: dict[str, Any] | None, cls: str, reason: str) -> dict[str, Any] | None:
    """The record's ``result`` in the compact tier's shape (so the runner's summary and the
    report read it): feasible = schema valid, score = field accuracy, perfect = joint; an
    agent failure is infeasible with score 0 whatever it wrote. ``fleet`` holds the grade."""
    if grade is None:
        return None
    wrong = [f"/answer/{n}: wrong or missing" for n, ok in grade["fields"].items() if not ok]
    if not grade["schema_valid"]:
        wrong.insert(0, "/answer: does not follow the answer schema")
    if cls != SCORED:
        wrong.insert(0, f"/: {reason}")
    ok = cls == SCORED
    feasible = ok and grade["schema_valid"]
    return {"feasible": feasible, "score": grade["field_accuracy"] if feasible else 0.0,
            "perfect": feasible and grade["joint"], "n_violations": len(wrong), "violations": wrong[:5],
            "fleet": {"joint": ok and grade["joint"], "field_accuracy": grade["field_accuracy"] if ok else 0.0,
                      "schema_valid": ok and grade["schema_valid"], "rer": grade["rer"], "aer": grade["aer"],
                      "cited_rer": grade.get("cited_rer", 0.0), "fields": grade["fields"]}}


# ---------------------------------------------------------------------------- attempts


def fleet_script_source() -> str:
    return resources.files("psab.fleet").joinpath("agents.py").read_text(encoding="utf-8")


def compact_script_source() -> str:
    return resources.files("psab.runner").joinpath("agent_script.py").read_text(encoding="utf-8")


def make_budget(changes: dict[str, float]) -> Any:
    """The tools' budget: PowerBench Table 7's defaults with ``changes`` (field name → value,
    converted to the field's type; an unknown name or a value below 1 is refused)."""
    import dataclasses

    from psab.fleet.tools import Budget

    fields = {f.name: f for f in dataclasses.fields(Budget)}
    out: dict[str, Any] = {}
    for k, v in changes.items():
        if k not in fields:
            raise RunnerError(f"--tool-budget {k}: the budget's fields are {', '.join(fields)}")
        kind = int if fields[k].type in (int, "int") else float
        try:
            value = kind(v)
        except (TypeError, ValueError):
            raise RunnerError(f"--tool-budget {k}={v!r} is not a number") from None
        if not value >= 1 if kind is int else not value > 0:
            raise RunnerError(f"--tool-budget {k} must be positive")
        out[k] = value
    return Budget(**out)


def make_corpus(world: str, devices: int | None, targets: list[str], seed: int) -> Any:
    """The tools' visible corpus (PowerBench Table 9): everything, or ``devices`` devices with
    the question's targets always among them (:class:`psab.fleet.tools.Corpus`)."""
    if devices is None:
        return None
    from psab.fleet.tools import Corpus

    return Corpus.sized(Path(world), devices, targets, seed)


def visible_devices(world: str, question: dict[str, Any], key: dict[str, Any]) -> list[str]:
    """The devices a sized corpus always shows: the question's targets, then every device the
    key's required evidence reads (a causal question's upstream devices and documents, a
    renamed asset's old id at level 2) — otherwise a smaller corpus would make a question
    unanswerable rather than harder. For the three PowerBench families at level 1 these are the
    targets themselves."""
    out = list(question.get("targets") or [])
    by_path = None
    for item in key.get("required_evidence") or []:
        if item.get("kind") == "series":
            ids = [item.get("device_id")]
        else:
            if by_path is None:
                from psab.fleet.tools import world_view

                by_path = world_view(Path(world)).by_path
            ids = (by_path.get(item.get("path"), {}) or {}).get("device_ids") or []
        out += [d for d in ids if isinstance(d, str) and d not in out]
    return out


def _tool_client(server: Any) -> str:
    """The ``fleet-tool`` command's path (the same inside the sandbox: its directory is bound
    read-only at the same place)."""
    from psab.fleet.server import CLIENT_NAME

    return str(Path(server.bin_dir) / CLIENT_NAME)


class FleetCase(Case):
    """A fleet question on the worker (module docstring, steps 1–3): ``question.json``, the tool
    server for this attempt only, grading with the evidence the tools returned."""

    grade_timing = "grade_s"

    def __init__(self, job: FleetJob, hidden: list[Path]) -> None:
        self.job = job
        self.payload = escape_payload(hidden) if job.agent.builtin == "escape" else reference_payload(job)

    def write_view(self, box: Path, paths: dict[str, str]) -> Any:
        paths["task"] = str(Path(paths["workdir"]) / "question.json")
        view = question_view(self.job.question, self.job.settings.lang)
        (box / "question.json").write_text(json.dumps(view, ensure_ascii=False, indent=1), encoding="utf-8")
        return view

    @contextlib.contextmanager
    def service(self, sandbox: Any) -> Iterator[Service]:
        """The tool server, started OUTSIDE the sandbox for this attempt only; the agent sees its
        socket and client (bound read-only at the same place), never the world's files."""
        from psab.fleet.server import serve_attempt

        s, q = self.job.settings, self.job.question
        budget = make_budget(dict(s.budget))
        corpus = make_corpus(s.world, s.corpus_devices, visible_devices(s.world, q, self.job.key), s.run_seed)
        self.log_path = sandbox.io / "tools.jsonl"
        with serve_attempt(Path(s.world), budget, corpus, self.log_path, sandbox.attempt_dir,
                           python_isolation="auto" if s.allow_unsandboxed_python_tool else "bwrap") as server:
            client = _tool_client(server)
            # The server's variables (FLEET_TOOL_SOCKET, FLEET_TOOL: neutral names, so the agent
            # does not learn the benchmark's name from its environment; the escape agent checks
            # it). fleet-tool finds its socket beside itself without them, except when the socket
            # had to move to a short directory (AF_UNIX path limit).
            env = {str(k): str(v) for k, v in server.env.items()}
            env["FLEET_TOOL"] = client
            env["FLEET_MCP_ARGV"] = json.dumps(list(server.mcp_argv))
            yield Service(binds=tuple(Path(p) for p in server.expose), path=(str(server.bin_dir),), env=env,
                          handle=server, collected=([], []))

    def instructions(self, view: Any, lang: str, paths: dict[str, str], service: Service) -> str:
        from psab.fleet.server import tools_text

        return instructions(view, lang, paths, tools_text(service.handle, lang))

    def script(self) -> str:
        return fleet_script_source() if self.job.agent.builtin in FLEET_KINDS else compact_script_source()

    def collect(self, service: Service) -> None:
        log = _read_log(self.log_path)
        service.collected = (log, _retrieved(service.handle, log))

    def grade(self, ar: Any, sandbox: Any, service: Service) -> Graded:
        from psab.fleet import grading

        log, retrieved = service.collected
        q = self.job.question
        grade = None
        if ar.cls != INFRA_FAILURE:
            # Nothing an agent wrote may stop the run: grading never raises on an answer.
            submission = ar.parsed if ar.cls == SCORED else None
            grade = grading.grade_one(self.job.key, submission, retrieved)
            cited = submission.get("evidence") if isinstance(submission, dict) else None
            grade["cited_rer"] = grading.recall(cited, self.job.key["required_evidence"])
            grade["question_id_matches"] = isinstance(submission, dict) and submission.get("question_id") == q["question_id"]
        fields = {"tools": tool_metrics(log), "tool_calls": [_call_row(c) for c in log[:RECORD_TOOL_CALLS]],
                  "corpus_devices": self.job.settings.corpus_devices}
        files = {"tools.jsonl": "".join(json.dumps(c, sort_keys=True, ensure_ascii=False) + "\n" for c in log).encode()}
        if grade is not None:
            files["result.json"] = (json.dumps({**grade, "retrieved_evidence": retrieved}, indent=1,
                                               sort_keys=True) + "\n").encode()
        return Graded(result_summary(grade, ar.cls, ar.reason), fields, files)

    def record(self, attempts: list[dict[str, Any]]) -> dict[str, Any]:
        job, s, q = self.job, self.job.settings, self.job.question
        final = attempts[-1]
        return {
            "agent": job.agent.name, "split": "public", "tier": TIER, "family": q["family"], "family_version": None,
            "task_id": q["question_id"], "index": None, "task_digest": question_digest(q), "isolation": s.isolation,
            "n_devices": len(q.get("targets") or []), "corpus_devices": s.corpus_devices,
            "attempts": attempts, "n_attempts": len(attempts), "final_class": final["class"], "result": final["result"],
        }


def escape_payload(hidden: list[Path]) -> dict[str, Any]:
    """What ``builtin:escape`` looks for on a fleet question: every hidden path (psab, the run,
    the world, the questions and the keys among them) and the benchmark's name."""
    return {"probe": {"paths": [str(h) for h in hidden], "words": ["psab", "PSAB"],
                      "names": ["keys.jsonl", "world.json", "records.jsonl", "manifest.json"], "modules": ["psab"]}}


def _call_row(c: dict[str, Any]) -> dict[str, Any]:
    """One logged call as the record keeps it: the log's fields, the arguments as compact JSON
    cut to :data:`RECORD_ARGS_CHARS` (the whole call is in the attempt's ``tools.jsonl``)."""
    row = {k: c.get(k) for k in ("tool", "ok", "error", "bytes", "rows", "duration_ms", "budget_reached")}
    args = json.dumps(c.get("args"), ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    row["args"] = args if len(args) <= RECORD_ARGS_CHARS else args[:RECORD_ARGS_CHARS] + "…"
    return row


def reference_payload(job: FleetJob) -> dict[str, Any] | None:
    """What ``builtin:fleet-reference`` receives on its standard input, computed outside the
    sandbox: the key's answer and the evidence that justifies it, which it then reads through
    the tools (so the retrieved-evidence recall is earned through the tools, budgets included)."""
    if job.agent.builtin != "fleet-reference":
        return None
    return {"answer": job.key["answer"], "required_evidence": job.key["required_evidence"]}


#: Every tier's case runner (:func:`psab.runner.execute.run_case`), under its old name here.
__all__ = ["FleetCase", "FleetJob", "FleetOptions", "FleetReport", "FleetTier", "resume", "run_case", "start"]


# ---------------------------------------------------------------------------- planning


def question_digest(q: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(q, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RunnerError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError as exc:
        raise RunnerError(f"{path}: not JSON lines ({exc})") from None


def prepare_world(opts: FleetOptions, run_dir: Path) -> tuple[Path, Path, Path]:
    """(world, questions, keys) directories: the ones given, or a world built from the seed and
    its questions written inside the run directory's private part (hidden from every agent)."""
    from psab.fleet import SIZES

    if opts.world:
        world = Path(opts.world).resolve()
        if not (world / "world.json").is_file():
            raise RunnerError(f"--world {world}: not a fleet world (no world.json); build one with psab fleet build")
    else:
        if opts.size not in SIZES:
            raise RunnerError(f"--fleet-size must be one of {', '.join(SIZES)}")
        from psab.fleet.cli import build_world

        world = (run_dir / "private" / "fleet" / "world").resolve()
        if not (world / "world.json").is_file():
            build_world(opts.seed, opts.size, world, level=opts.level)
    if opts.questions:
        qdir = Path(opts.questions).resolve()
        kdir = Path(opts.keys).resolve() if opts.keys else Path(str(qdir).rstrip("/") + "-keys")
    else:
        qdir = (run_dir / "private" / "fleet" / "questions").resolve()
        kdir = (run_dir / "private" / "fleet" / "keys").resolve()
        if not (qdir / "questions.jsonl").is_file():
            from psab.fleet import questions

            # the causal family's chain is rebuilt from the seed (no causal question when it
            # is not the given world's seed: the commitment is checked)
            qs, keys = questions.generate(world, opts.per_family, world_seed=opts.seed)
            questions.write(qs, keys, qdir, kdir)
    for d, what in ((qdir, "questions.jsonl"), (kdir, "keys.jsonl")):
        if not (d / what).is_file():
            raise RunnerError(f"{d}: no {what} (write them with psab fleet questions)")
    return world, qdir, kdir


def plan(opts: FleetOptions, qdir: Path, kdir: Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    qs = _jsonl(qdir / "questions.jsonl")
    keys = {k.get("question_id"): k for k in _jsonl(kdir / "keys.jsonl")}
    wanted = set(opts.families or FLEET_FAMILIES)
    out = []
    for q in qs:
        if q.get("family") not in wanted:
            continue
        k = keys.get(q.get("question_id"))
        if k is None:
            raise RunnerError(f"{kdir}: no key for question {q.get('question_id')!r}")
        out.append((q, k))
    if opts.limit:
        # a few questions of every family rather than the first family only
        by_fam: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
        for pair in out:
            by_fam.setdefault(pair[0]["family"], []).append(pair)
        out = [p for f in FLEET_FAMILIES for p in by_fam.get(f, [])[: opts.limit]]
    if not out:
        raise RunnerError("nothing to run: no fleet question matches the chosen families and limit")
    return out


def _options_from_manifest(m: dict[str, Any]) -> FleetOptions:
    o = dict(m["options"])
    for k in ("process_limit", "tmp_limit_mb", "disk_limit_mb"):
        o.setdefault(k, None)  # a run recorded before the totals (issue 32, item 7) resumes without them
    o.setdefault("network_mode", "host")  # and one recorded before item 6 on the host's network
    return FleetOptions(agents=[AgentSpec.from_dict(a) for a in m["agents"]], **o)


#: The fleet's report of a finished run (the one type of every tier).
FleetReport = RunReport


class FleetTier(Tier):
    """The fleet tier: a world's questions (:mod:`psab.fleet`), answered through the tools."""

    name = TIER
    no_agent_hint = "--agent builtin:fleet-reference)"
    opts: FleetOptions

    def __init__(self, opts: FleetOptions) -> None:
        super().__init__(opts)
        self.world = self.qdir = self.kdir = Path()

    @classmethod
    def from_manifest(cls, manifest: dict[str, Any]) -> Tier:
        tier = cls(_options_from_manifest(manifest))
        o = tier.opts
        tier.world, tier.qdir, tier.kdir = Path(o.world or ""), Path(o.questions or ""), Path(o.keys or "")
        return tier

    def check_agent(self, agent: AgentSpec) -> None:
        if agent.builtin in COMPACT_ONLY:
            raise RunnerError(f"builtin:{agent.builtin} answers compact tasks; the fleet tier's built-ins are "
                              f"{', '.join('builtin:' + k for k in FLEET_KINDS)}")
        face = dict(agent.options).get("face", "cli")
        if face not in FACES:
            raise RunnerError(f"agent {agent.name!r}: face={face!r}; use cli or mcp")

    def check(self) -> None:
        opts = self.opts
        for f in opts.families or []:
            if f not in FLEET_FAMILIES:
                raise RunnerError(f"--family {f!r}: the fleet families are {', '.join(FLEET_FAMILIES)}")
        if opts.per_family < 1 or (opts.limit is not None and opts.limit < 1):
            raise RunnerError("--per-family and --limit must be at least 1")
        if opts.corpus_devices is not None and opts.corpus_devices < 1:
            raise RunnerError("--corpus-devices must be at least 1")
        make_budget(opts.budget)  # refuses an unknown field or a non-positive value now, not per attempt

    def hidden(self) -> list[Path]:
        o = self.opts
        out = [Path(d).resolve() for d in (o.world, o.questions) if d]
        if o.keys or o.questions:
            out.append(Path(o.keys).resolve() if o.keys else Path(str(Path(o.questions).resolve()) + "-keys"))
        return out

    def prepare(self, run_dir: Path) -> None:
        self.world, self.qdir, self.kdir = prepare_world(self.opts, run_dir)

    def plan(self, seed: str | None, mapper: Any) -> list[Any]:
        return plan(self.opts, self.qdir, self.kdir)

    def manifest(self, base: dict[str, Any], cases: list[Any], seed: str | None) -> dict[str, Any]:
        opts, world = self.opts, self.world
        info = json.loads((world / "world.json").read_text(encoding="utf-8"))
        return {
            **base, "tier": TIER, "splits": ["public"], "families": {},
            "options": {**opts.to_dict(), "world": str(world), "questions": str(self.qdir), "keys": str(self.kdir)},
            "fleet": {"budget": vars(make_budget(opts.budget)), "world_size": info.get("size"),
                      "world_seed_commitment": info.get("seed_commitment"),
                      "world_statistics": info.get("statistics"), "corpus_devices": opts.corpus_devices,
                      "questions": [{"question_id": q["question_id"], "family": q["family"],
                                     "digest": question_digest(q)} for q, _ in cases]},
            "public": [],
        }

    def resume_check(self, manifest: dict[str, Any], seed: str | None) -> None:
        if not (self.world / "world.json").is_file():
            raise RunnerError(f"the run's world {self.world} is gone; it cannot be resumed")

    def check_same(self, manifest: dict[str, Any], cases: list[Any], seed: str | None) -> None:
        recorded = [e["digest"] for e in manifest["fleet"]["questions"]]
        if [question_digest(q) for q, _ in cases] != recorded:
            raise RunnerError("the run's questions changed since it started; start a new run")

    def settings(self, isolation: str, run_dir: Path) -> FleetSettings:
        opts, world, qdir, kdir = self.opts, self.world, self.qdir, self.kdir
        return FleetSettings(isolation=isolation, world=str(world), network=opts.network,
                             network_mode=opts.network_mode, lang=opts.lang,
                             default_timeout_s=opts.timeout_s, max_attempts=opts.max_attempts,
                             memory_limit_mb=opts.memory_limit_mb, file_limit_mb=opts.file_limit_mb,
                             process_limit=opts.process_limit, tmp_limit_mb=opts.tmp_limit_mb,
                             disk_limit_mb=opts.disk_limit_mb,
                             corpus_devices=opts.corpus_devices, budget=tuple(sorted(opts.budget.items())),
                             run_seed=opts.run_seed, toolbox=self.toolbox,
                             allow_unsandboxed_python_tool=opts.allow_unsandboxed_python_tool,
                             extra_hidden=tuple(dict.fromkeys((str(run_dir.resolve()), str(world), str(qdir),
                                                               str(kdir)))))

    def jobs(self, cases: list[Any], settings: Any) -> list[Any]:
        return [FleetJob(agent=a, question=q, key=k, settings=settings) for q, k in cases for a in self.opts.agents]

    def connect(self, address: str) -> Any:
        return _dask_client(address)  # looked up at call time (a test replaces it)

    def summary(self, manifest: dict[str, Any], records: list[dict[str, Any]],
                rows: list[Any]) -> tuple[dict[str, Any], str, str]:
        """The runner's rows (as for the compact tier) and the fleet table per agent × family
        (:func:`psab.reports.fleet.fleet_rows`)."""
        from psab.reports.fleet import fleet_rows, rows_markdown, rows_text

        agents = [a["name"] for a in manifest["agents"]]
        frows = fleet_rows(records, agents, resamples=1000)
        extra = {"tier": TIER, "backend": "fleet-tools", "families": {},
                 "corpus_devices": manifest["fleet"].get("corpus_devices"), "fleet_rows": frows}
        return extra, "\n## Fleet tier\n\n" + rows_markdown(frows) + "\n", rows_text(frows)


def start(opts: FleetOptions, *, out: str | Path | None = None, workers: int = 1, progress: str = "auto",
          stream: TextIO | None = None, dask: str | None = None) -> FleetReport:
    """Start a new fleet run; see ``psab run --help`` (``--tier fleet``). ``dask``: a Dask
    scheduler's address; the cases then run on its workers (:func:`_dask_client`)."""
    return loop.start(FleetTier(opts), out=out, workers=workers, dask=dask, progress=progress, stream=stream)


def resume(run_dir: str | Path, *, workers: int = 1, progress: str = "auto", stream: TextIO | None = None,
           dask: str | None = None) -> FleetReport:
    """Continue an interrupted fleet run: recorded cases are kept, the rest run."""
    return loop.resume(run_dir, workers=workers, dask=dask, progress=progress, stream=stream)


def _dask_client(address: str) -> Any:
    """A client of the Dask scheduler at ``address`` (:func:`psab.runner.loop.dask_client`).
    Each case then runs whole on a worker — sandbox, tool server (a thread of the worker) and
    agent together, as they must: the agent reaches its tools over a Unix socket, so the two
    cannot be split across machines. The world, questions and keys are read at the run's
    (absolute) paths, so every worker must see them there (a shared file system, or a cluster on
    this machine)."""
    return loop.dask_client(address)


def write_summary(rd: Any, manifest: dict[str, Any], planned: int) -> tuple[dict[str, Any], str]:
    """``summary.json`` and ``summary.md`` of a fleet run (:func:`psab.runner.loop.write_summary`)."""
    return loop.write_summary(FleetTier.from_manifest(manifest), rd, manifest, planned)


def is_fleet_manifest(m: dict[str, Any]) -> bool:
    return m.get("tier") == TIER
