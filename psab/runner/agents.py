"""Agents: command templates, built-in agents, and the infrastructure-failure rules.

An agent is a command run once per attempt inside a sandbox. Its template names sandbox paths
with four placeholders, substituted with the paths *as the agent sees them*:

``{task}``          the task's agent view (``task.json``, no key)
``{instructions}``  the instructions file (English, or Russian with ``--lang ru``)
``{solution}``      where the agent must write ``{"answer": {...}, "rationale": "..."}``
``{workdir}``       the sandbox directory (also the agent's working directory and ``$HOME``)

A template given as a string runs through ``/bin/sh -c`` (so ``"$(cat {instructions})"``
works; the paths are shell-quoted); a list is an argv run directly.

Agents come from the command line (:func:`parse_agent_arg`) or from a TOML/JSON agents file
(:func:`load_agents_file`); the format is documented in ``docs/runner.md``.

Built-in agents (``builtin:KIND``) are real subprocesses — a small standard-library script run
by the system ``python3`` inside the same sandbox as any other agent. ``reference`` and
``mutant`` need the answer, which must never be in the sandbox: the runner computes it outside
and hands it to that one process on its standard input.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from psab.errors import RunnerError
from psab.runner.sandbox import check_limit_mb

#: Built-in agent kinds. ``reference``/``mutant`` are baselines; the rest exercise the runner.
BUILTIN_KINDS: dict[str, str] = {
    "reference": "writes the reference answer",
    "mutant": "writes the reference answer with one seeded realistic mistake (psab.mutations)",
    "malformed": "writes a solution file that is not valid JSON",
    "silent": "exits 0 without writing a solution",
    "crash": "prints a traceback and exits with status 3",
    "hang": "starts a child process and sleeps past any timeout (ignores SIGTERM)",
    "provider-error": "prints a provider error (status=429|502|quota|none) and exits (exit=75)",
    "flaky": "fails its first attempt with '502 Bad Gateway', then writes the reference answer",
    "escape": "tries every route out of the sandbox it knows and writes what it found (walk=0: no file-system search)",
    "openai": "asks an OpenAI-compatible chat-completions server once (model=, base_url=, api_key_env=, max_tokens=, temperature=, request_timeout_s=)",
    # the fleet tier's (psab run --tier fleet; their program is psab/fleet/agents.py)
    "fleet-reference": "fleet tier: reads the key's evidence through the tools and answers from the key (face=cli|mcp)",
    "fleet-weak": "fleet tier: answers from the first search hit for the rule, stops early on comparisons (face=cli|mcp)",
    "fleet-quality-blind": "fleet tier: executes the rules and follows the documents itself but ignores data quality "
                           "(aware=1: applies the type sheets' data-quality treatment; face=cli|mcp)",
}

#: Built-in options: ``builtin:KIND,key=value,...``.
BUILTIN_OPTIONS = {"sleep": float, "status": str, "exit": int, "walk": int, "model": str, "base_url": str,
                   "api_key_env": str, "max_tokens": int, "temperature": float, "request_timeout_s": float,
                   "face": str, "aware": int}

#: Options only ``builtin:openai`` takes, and its defaults (``model`` has none: it must be named).
OPENAI_OPTIONS = {"model": None, "base_url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY",
                  "max_tokens": 4096, "temperature": 0.0, "request_timeout_s": 300.0}

#: Kinds whose process receives the reference answer (computed outside the sandbox).
ANSWER_KINDS = ("reference", "mutant", "flaky")

PLACEHOLDERS = ("task", "instructions", "solution", "workdir")

#: ANSI escape sequences (CSI ... final byte, and two-byte ESC sequences).
_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")


@dataclass(frozen=True)
class InfraRule:
    """One way to recognise an infrastructure failure (provider, transport, quota).

    A rule matches when every condition it states holds: the exit code is one of
    ``exit_codes`` (if given) and one of ``patterns`` (case-insensitive regular expressions,
    if given) occurs in the tail of the chosen output ``streams``. Rules are consulted only
    for an attempt that produced no acceptable solution and did not time out.
    """

    name: str
    patterns: tuple[str, ...] = ()
    exit_codes: tuple[int, ...] = ()
    #: Both by default (issue 15): aider prints litellm's exceptions on stdout and exits 0.
    streams: tuple[str, ...] = ("stderr", "stdout")

    def __post_init__(self) -> None:
        if not self.patterns and not self.exit_codes:
            raise RunnerError(f"infra rule {self.name!r} needs 'patterns' or 'exit_codes'")
        for s in self.streams:
            if s not in ("stderr", "stdout"):
                raise RunnerError(f"infra rule {self.name!r}: streams must be 'stderr' and/or 'stdout', not {s!r}")
        for p in self.patterns:
            try:
                re.compile(p)
            except re.error as exc:
                raise RunnerError(f"infra rule {self.name!r}: bad regular expression {p!r} ({exc})") from None

    def matches(self, exit_code: int | None, stderr: str, stdout: str) -> bool:
        if self.exit_codes and exit_code not in self.exit_codes:
            return False
        if self.patterns:
            text = "\n".join(stderr if s == "stderr" else stdout for s in self.streams)
            # terminal colours split what a client prints ("\x1b[91m\x1b[1mError: \x1b[0mThe server
            # had an error", opencode): rules read the text without them
            text = _ANSI.sub("", text)
            return any(re.search(p, text, re.IGNORECASE) for p in self.patterns)
        return True

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "patterns": list(self.patterns), "exit_codes": list(self.exit_codes),
                "streams": list(self.streams)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "") -> InfraRule:
        unknown = set(data) - {"name", "patterns", "stderr", "exit_codes", "streams"}
        if unknown:
            raise RunnerError(f"{where}infra rule: unknown keys {sorted(unknown)} (use name, patterns, exit_codes, streams)")
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise RunnerError(f"{where}infra rule needs a 'name'")
        patterns = data.get("patterns", data.get("stderr", ()))
        if isinstance(patterns, str):
            patterns = (patterns,)
        codes = data.get("exit_codes", ())
        if isinstance(codes, int):
            codes = (codes,)
        streams = data.get("streams", ("stderr", "stdout"))
        if isinstance(streams, str):
            streams = (streams,)
        try:
            return cls(name, tuple(str(p) for p in patterns), tuple(int(c) for c in codes), tuple(streams))
        except (TypeError, ValueError) as exc:
            raise RunnerError(f"{where}infra rule {name!r}: {exc}") from None


#: The default rules: common provider and transport errors as CLI agents print them. They are
#: deliberately specific (status words next to codes), because a crash message that merely
#: mentions a number must not be retried as if the provider had failed.
DEFAULT_INFRA_RULES: tuple[InfraRule, ...] = (
    InfraRule("rate-limit", (
        r"too many requests", r"\bRateLimitError\b", r"rate[ _-]?limit(ed)?[ _-]?(exceeded|reached|error|hit)",
        r"been rate[ -]?limited", r"\b429\b[^\n]{0,60}(too many|rate)", r"(status|code|http|error)[ :=_-]{0,3}429\b",
    )),
    InfraRule("quota", (
        r"(exceeded|insufficient|out of)[^\n]{0,30}quota", r"quota[^\n]{0,30}(exceeded|exhausted|reached)",
        r"\binsufficient_quota\b", r"\bRESOURCE_EXHAUSTED\b", r"credit balance is too low",
        r"check your plan and billing",
    )),
    InfraRule("server-error", (
        r"\b50[0234]\b[^\n]{0,40}(error|bad gateway|unavailable|time-?out)", r"bad gateway",
        r"service (temporarily )?unavailable", r"gateway time-?out", r"internal server error",
        r"\boverloaded_error\b", r"\bInternalServerError\b", r"\b529\b[^\n]{0,40}overloaded",
    )),
    InfraRule("transport", (
        r"connection (was )?(reset|refused|aborted|closed)", r"\bECONNRESET\b", r"\bECONNREFUSED\b",
        r"\bETIMEDOUT\b", r"\bEAI_AGAIN\b", r"timed out while connecting", r"connect(ion)?[ _-]?timed?[ _-]?out",
        r"network is unreachable", r"temporary failure in name resolution", r"remote end closed connection",
        r"\bAPIConnectionError\b", r"stream (disconnected|error) before completion", r"\bSSLError\b",
    )),
    InfraRule("auth", (
        r"\b401\b[^\n]{0,20}unauthori[sz]ed", r"invalid[_ ]api[_ ]key", r"incorrect api key",
        r"authentication (error|failed)",
    )),
    # sysexits.h EX_TEMPFAIL: "temporary failure, the user is invited to retry".
    InfraRule("exit-75-tempfail", exit_codes=(75,)),
)

#: Per-client rules: what each real client prints when its provider fails, beyond the defaults.
#: Each pattern is taken from the client's source or its issue tracker; the messages themselves
#: are recorded, with where each came from, in ``tests/runner/fixtures/clients/`` and every rule
#: is tested against them. Selected in an agents file with ``client = "NAME"``.
CLIENT_INFRA_RULES: dict[str, tuple[InfraRule, ...]] = {
    # llm (simonw/llm) wraps the openai SDK and prints ``Error: <message>``: APIConnectionError's
    # message is "Connection error." (simonw/llm#508), APITimeoutError's "Request timed out.",
    # and an APIStatusError's "Error code: <status> - <body>" (openai-python _exceptions.py).
    "llm": (
        InfraRule("llm-transport", (r"(?m)^Error: Connection error\.", r"(?m)^Error: Request timed out\.")),
        InfraRule("llm-status", (r"(?m)^Error: Error code: (408|409|429|5\d\d)\b",)),
    ),
    # aider prints litellm's exception as ``litellm.<Name>: ...`` and its own explanation, on
    # stdout, retries inside itself for about a minute and then exits 0 (issue 15). The names
    # are those aider marks retryable in aider/exceptions.py.
    "aider": (
        InfraRule("aider-litellm", (
            r"\blitellm\.(RateLimitError|APIConnectionError|InternalServerError|ServiceUnavailableError|"
            r"Timeout|BadGatewayError|RouterRateLimitError)\b",
        )),
        InfraRule("aider-explained", (
            r"The API provider has rate limited you", r"The API provider's servers are down or overloaded",
            r"The API provider timed out without returning a response",
        )),
    ),
    # codex (openai/codex, codex-rs/core/src/error.rs) reports a failed stream as "Reconnecting...
    # N/M (<reason>)" and, its retries spent on a 5xx, "We're currently experiencing high demand,
    # which may cause temporary errors." (CodexErr::InternalServerError); a spent retry budget on
    # a status reads "exceeded retry limit, last status: <status>", an unretried one "unexpected
    # status <status>: <body>", a refused connection "Connection failed: <reqwest error>".
    "codex": (
        InfraRule("codex-high-demand", (r"We.re currently experiencing high demand",)),
        InfraRule("codex-reconnect", (r"Reconnecting\.\.\. \d+/\d+", r"exceeded retry limit, last status: (408|429|5\d\d)",
                                      r"unexpected status (408|429|5\d\d)\b", r"Connection failed: error sending request",
                                      r"Error while reading the server response")),
    ),
    # opencode runs on the Vercel AI SDK: a retryable provider failure surfaces as
    # AI_APICallError (with the status text) or, retries spent, AI_RetryError
    # "Failed after N attempts. Last error: ..." (vercel/ai packages/ai/src/util/retry-error.ts).
    "opencode": (
        # "Failed after N attempts with non-retryable error" is the other RetryError: not matched
        InfraRule("opencode-retry", (r"Failed after \d+ attempts?\. Last error", r"Provider is overloaded")),
        # once its own retries are spent opencode prints only the provider's message, with no
        # status: this is OpenAI's for a 500 ("... Sorry about that!"), as OpenAI-compatible
        # servers copy it (seen with opencode 1.18.33 against the stub, issue 15)
        InfraRule("opencode-provider-500", (r"(?m)^Error: The server had an error while processing your request",)),
        InfraRule("opencode-api-call", (
            r"\bAI_APICallError\b[^\n]{0,120}(Too Many Requests|Internal Server Error|Bad Gateway|"
            r"Service Unavailable|Gateway Time-?out|overloaded|rate limit)",
        )),
    ),
}


def client_rules(name: str, where: str = "") -> tuple[InfraRule, ...]:
    """The infrastructure rules of one known client (``CLIENT_INFRA_RULES``)."""
    if name not in CLIENT_INFRA_RULES:
        raise RunnerError(f"{where}client {name!r}: known clients are {', '.join(CLIENT_INFRA_RULES)}")
    return CLIENT_INFRA_RULES[name]


@dataclass(frozen=True)
class AgentSpec:
    """One agent: how to launch it, and how to read its failures.

    ``command`` is the template (a string for ``/bin/sh -c``, or an argv tuple); for a built-in
    agent ``builtin`` names the kind and ``options`` its settings. ``timeout_s=None`` takes the
    run's default. ``pass_env`` names environment variables passed through to the agent (their
    values are never recorded). ``expose`` lists extra host paths shown read-only inside the
    bwrap sandbox (an agent installed under the home directory, say); ``copy_home`` lists files
    or directories copied into the sandbox's ``$HOME`` at the same relative place (an agent's
    login, e.g. ``~/.codex/auth.json``). ``memory_limit_mb`` and ``file_limit_mb`` replace the
    run's resource limits for this agent (0: none; see :class:`psab.runner.sandbox.Limits`).
    ``placeholder`` is text the runner writes at ``{solution}`` before the agent starts (a
    code-editing harness such as aider needs a file to edit): a file still holding exactly
    that text afterwards counts as no solution — the infrastructure rules are consulted, and
    otherwise the attempt is the agent's failure ``no-solution``, never a scored zero.

    ``model_api`` (``"openai"`` or ``"anthropic"``; ``builtin:openai`` is ``"openai"``) routes the
    agent's model calls through the runner's recording proxy (:mod:`psab.runner.proxy`) to
    ``upstream`` (default: the runner's ``OPENAI_BASE_URL``/``ANTHROPIC_BASE_URL``, else the
    provider's); its infrastructure failures are then what the proxy saw, never what it printed.
    ``price_per_mtok`` (``{"input": USD, "output": USD}`` per million tokens) prices its usage.
    """

    name: str
    command: str | tuple[str, ...] | None = None
    builtin: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    timeout_s: float | None = None
    pass_env: tuple[str, ...] = ()
    infra_rules: tuple[InfraRule, ...] = DEFAULT_INFRA_RULES
    expose: tuple[str, ...] = ()
    copy_home: tuple[str, ...] = ()
    network: bool | None = None
    retry_delay_s: float = 5.0
    memory_limit_mb: float | None = None
    file_limit_mb: float | None = None
    placeholder: str | None = None
    model_api: str | None = None
    upstream: str | None = None
    price_per_mtok: Mapping[str, float] | None = None

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise RunnerError(f"agent name {self.name!r}: use letters, digits and _.+- (at most 64 characters)")
        if (self.command is None) == (self.builtin is None):
            raise RunnerError(f"agent {self.name!r} needs exactly one of a command template or a built-in kind")
        if self.builtin is not None and self.builtin not in BUILTIN_KINDS:
            raise RunnerError(f"agent {self.name!r}: unknown built-in {self.builtin!r}; known: {', '.join(BUILTIN_KINDS)}")
        if isinstance(self.command, str) and not self.command.strip():
            raise RunnerError(f"agent {self.name!r}: empty command template")
        if isinstance(self.command, tuple) and not self.command:
            raise RunnerError(f"agent {self.name!r}: empty argv")
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise RunnerError(f"agent {self.name!r}: timeout must be positive")
        check_limit_mb(f"agent {self.name!r}: memory_limit_mb", self.memory_limit_mb)
        check_limit_mb(f"agent {self.name!r}: file_limit_mb", self.file_limit_mb)
        for var in self.pass_env:
            if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", var):
                raise RunnerError(f"agent {self.name!r}: {var!r} is not an environment variable name")
        from psab.runner.proxy import MODEL_APIS

        if self.model_api is not None and self.model_api not in MODEL_APIS:
            raise RunnerError(f"agent {self.name!r}: model_api must be one of {', '.join(MODEL_APIS)}")
        if self.upstream is not None and self.proxied is None:
            raise RunnerError(f"agent {self.name!r}: upstream needs model_api")
        if self.price_per_mtok is not None:
            p = self.price_per_mtok
            if (not isinstance(p, Mapping) or set(p) - {"input", "output"}
                    or not all(isinstance(v, int | float) and 0 <= v < 1e6 for v in p.values())):
                raise RunnerError(f"agent {self.name!r}: price_per_mtok is {{input = USD, output = USD}} per million "
                                  "tokens, each a number in [0, 1e6)")

    @property
    def proxied(self) -> str | None:
        """The model API whose calls go through the recording proxy, or None."""
        return self.model_api or ("openai" if self.builtin == "openai" else None)

    @property
    def label(self) -> str:
        """How the agent is described in a manifest: the kind and template, never env values."""
        if self.builtin:
            opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
            return f"builtin:{self.builtin}" + (f",{opts}" if opts else "")
        return self.command if isinstance(self.command, str) else shlex.join(self.command or ())

    def argv(self, paths: Mapping[str, str], python: str, script: str) -> list[str]:
        """The command line for one attempt, with the placeholders filled in."""
        if self.builtin is not None:
            return [python, "-I", "-c", script, self.builtin, paths["task"], paths["solution"], paths["instructions"]]
        if isinstance(self.command, str):
            return ["/bin/sh", "-c", fill(self.command, {k: shlex.quote(v) for k, v in paths.items()})]
        return [fill(part, paths) for part in self.command or ()]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "command": list(self.command) if isinstance(self.command, tuple) else self.command,
            "builtin": self.builtin,
            "options": dict(self.options),
            "timeout_s": self.timeout_s,
            "pass_env": list(self.pass_env),
            "infra_rules": [r.to_dict() for r in self.infra_rules],
            "expose": list(self.expose),
            "copy_home": list(self.copy_home),
            "network": self.network,
            "retry_delay_s": self.retry_delay_s,
            "memory_limit_mb": self.memory_limit_mb,
            "file_limit_mb": self.file_limit_mb,
            "placeholder": self.placeholder,
            # absent unless set: the manifests of agents without them stay as they were
            **({"model_api": self.model_api} if self.model_api else {}),
            **({"upstream": self.upstream} if self.upstream else {}),
            **({"price_per_mtok": dict(self.price_per_mtok)} if self.price_per_mtok else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentSpec:
        """Rebuild an agent from :meth:`to_dict` (a run manifest)."""
        command = data.get("command")
        return cls(
            name=data["name"],
            command=tuple(command) if isinstance(command, list) else command,
            builtin=data.get("builtin"),
            options=dict(data.get("options") or {}),
            timeout_s=data.get("timeout_s"),
            pass_env=tuple(data.get("pass_env") or ()),
            infra_rules=tuple(InfraRule.from_dict(r) for r in data.get("infra_rules") or ()),
            expose=tuple(data.get("expose") or ()),
            copy_home=tuple(data.get("copy_home") or ()),
            network=data.get("network"),
            retry_delay_s=float(data.get("retry_delay_s", 5.0)),
            memory_limit_mb=data.get("memory_limit_mb"),
            file_limit_mb=data.get("file_limit_mb"),
            placeholder=data.get("placeholder"),
            model_api=data.get("model_api"),
            upstream=data.get("upstream"),
            price_per_mtok=dict(data["price_per_mtok"]) if data.get("price_per_mtok") else None,
        )


def fill(template: str, values: Mapping[str, str]) -> str:
    """Replace exactly ``{task}``, ``{instructions}``, ``{solution}``, ``{workdir}`` (other
    braces — shell ``${VAR}``, JSON — are left alone)."""
    return re.sub(r"\{(task|instructions|solution|workdir)\}", lambda m: values[m.group(1)], template)


def builtin_agent(kind: str, options: Mapping[str, Any] | None = None, name: str | None = None) -> AgentSpec:
    """A built-in agent; no retry delay (they fail on purpose)."""
    opts = dict(options or {})
    for k, v in opts.items():
        if k not in BUILTIN_OPTIONS:
            raise RunnerError(f"builtin:{kind}: unknown option {k!r}; known: {', '.join(BUILTIN_OPTIONS)}")
        try:
            opts[k] = BUILTIN_OPTIONS[k](v)
        except ValueError:
            raise RunnerError(f"builtin:{kind}: option {k}={v!r} is not a {BUILTIN_OPTIONS[k].__name__}") from None
    if kind not in BUILTIN_KINDS:
        raise RunnerError(f"unknown built-in agent {kind!r}; known: {', '.join(BUILTIN_KINDS)}")
    wrong = sorted(k for k in opts if (k in OPENAI_OPTIONS) != (kind == "openai") and k != "sleep")
    if wrong:
        raise RunnerError(f"builtin:{kind}: option(s) {', '.join(wrong)} do not apply to this kind")
    if kind == "openai":
        return _openai_agent(opts, name)
    return AgentSpec(name=name or kind, builtin=kind, options=opts, retry_delay_s=0.0)


def _openai_agent(opts: dict[str, Any], name: str | None) -> AgentSpec:
    """``builtin:openai``: the options completed with their defaults; the key's variable is
    passed through by name (its value is never recorded); a real provider's hiccup waits
    ``retry_delay_s`` before the one retry, like any command agent."""
    full = {k: opts.get(k, v) for k, v in OPENAI_OPTIONS.items()}
    if "sleep" in opts:
        full["sleep"] = opts["sleep"]
    if not full["model"]:
        raise RunnerError("builtin:openai needs model=NAME (the model id the server knows)")
    if not re.match(r"^https?://[^\s]+$", str(full["base_url"])):
        raise RunnerError(f"builtin:openai: base_url={full['base_url']!r} is not an http(s) URL")
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", str(full["api_key_env"])):
        raise RunnerError(f"builtin:openai: api_key_env={full['api_key_env']!r} is not an environment variable name")
    if full["max_tokens"] <= 0 or full["request_timeout_s"] <= 0:
        raise RunnerError("builtin:openai: max_tokens and request_timeout_s must be positive")
    return AgentSpec(name=name or "openai", builtin="openai", options=full, pass_env=(str(full["api_key_env"]),),
                     retry_delay_s=5.0)


def parse_agent_arg(text: str, named: Mapping[str, AgentSpec] | None = None) -> AgentSpec:
    """One ``--agent`` value.

    ``builtin:KIND[,key=value...]`` · ``NAME=builtin:KIND[,...]`` · ``cmd:NAME=TEMPLATE`` ·
    ``NAME=TEMPLATE`` · ``NAME`` (an agent of ``--agents-file``).
    """
    text = text.strip()
    named = named or {}
    if text.startswith("cmd:"):
        text = text[4:]
        if "=" not in text:
            raise RunnerError("--agent cmd:NAME=TEMPLATE needs a name and a template, e.g. cmd:mine='my-agent {task} {solution}'")
    if text.startswith("builtin:"):
        return _parse_builtin(text[len("builtin:"):], None)
    if "=" in text:
        name, _, template = text.partition("=")
        name = name.strip()
        if template.startswith("builtin:"):
            return _parse_builtin(template[len("builtin:"):], name)
        return AgentSpec(name=name, command=template)
    if text in named:
        return named[text]
    if named:
        raise RunnerError(f"--agent {text!r}: no such agent in the agents file (it defines {', '.join(named)})")
    raise RunnerError(f"--agent {text!r}: give builtin:KIND, NAME=TEMPLATE, or a NAME from --agents-file")


def _parse_builtin(text: str, name: str | None) -> AgentSpec:
    kind, *opts = text.split(",")
    options: dict[str, Any] = {}
    for o in opts:
        k, eq, v = o.partition("=")
        if not eq:
            raise RunnerError(f"builtin:{kind}: option {o!r} must be key=value")
        options[k.strip()] = v.strip()
    return builtin_agent(kind.strip(), options, name)


_AGENT_KEYS = {"command", "argv", "builtin", "options", "timeout_s", "pass_env", "infra_rules",
               "default_infra_rules", "expose", "copy_home", "network", "retry_delay_s", "memory_limit_mb",
               "file_limit_mb", "client", "placeholder", "model_api", "upstream", "price_per_mtok"}


def load_agents_file(path: str | Path) -> dict[str, AgentSpec]:
    """Read a TOML (``.toml``) or JSON agents file: ``[agents.NAME]`` tables (see docs/runner.md)."""
    p = Path(path)
    if not p.is_file():
        raise RunnerError(f"--agents-file {p}: no such file")
    try:
        if p.suffix == ".toml":
            import tomllib

            data = tomllib.loads(p.read_text(encoding="utf-8"))
        else:
            data = json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise RunnerError(f"--agents-file {p}: cannot parse ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("agents"), dict) or not data["agents"]:
        raise RunnerError(f"--agents-file {p}: expected an 'agents' table with at least one agent")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise RunnerError(f"--agents-file {p}: 'defaults' must be a table")
    out: dict[str, AgentSpec] = {}
    for name, entry in data["agents"].items():
        if not isinstance(entry, dict):
            raise RunnerError(f"--agents-file {p}: agents.{name} must be a table")
        out[name] = agent_from_entry(name, {**defaults, **entry}, where=f"{p}: agents.{name}: ")
    return out


def agent_from_entry(name: str, entry: Mapping[str, Any], where: str = "") -> AgentSpec:
    unknown = set(entry) - _AGENT_KEYS
    if unknown:
        raise RunnerError(f"{where}unknown keys {sorted(unknown)}; known: {', '.join(sorted(_AGENT_KEYS))}")
    rules: list[InfraRule] = list(DEFAULT_INFRA_RULES) if entry.get("default_infra_rules", True) else []
    extra = entry.get("infra_rules", [])
    if not isinstance(extra, list):
        raise RunnerError(f"{where}infra_rules must be a list of tables")
    # The agent's own rules come first, so the record names the most specific rule.
    rules = [InfraRule.from_dict(r, where) for r in extra] + rules
    if "client" in entry:  # the client's known messages, between the agent's own and the defaults
        clients = entry["client"] if isinstance(entry["client"], list) else [entry["client"]]
        known = [r for c in clients for r in client_rules(str(c), where)]
        rules = rules[:len(extra)] + known + rules[len(extra):]
    if "builtin" in entry:
        spec = builtin_agent(str(entry["builtin"]), entry.get("options"), name)
    elif "command" in entry or "argv" in entry:
        command = entry.get("command", entry.get("argv"))
        if isinstance(command, list):
            command = tuple(str(c) for c in command)
        elif not isinstance(command, str):
            raise RunnerError(f"{where}command must be a string (run by /bin/sh) or a list (argv)")
        spec = AgentSpec(name=name, command=command)
    else:
        raise RunnerError(f"{where}needs 'command' (or 'argv') or 'builtin'")
    changes: dict[str, Any] = {"infra_rules": tuple(rules)}
    for key in ("pass_env", "expose", "copy_home"):
        if key in entry:
            value = entry[key]
            if isinstance(value, str) or not isinstance(value, Iterable):
                raise RunnerError(f"{where}{key} must be a list of strings")
            changes[key] = tuple(str(v) for v in value)
    for key in ("timeout_s", "retry_delay_s", "memory_limit_mb", "file_limit_mb"):
        if key in entry:
            try:
                changes[key] = float(entry[key])
            except (TypeError, ValueError):
                raise RunnerError(f"{where}{key} must be a number") from None
    if "network" in entry:
        changes["network"] = bool(entry["network"])
    if "placeholder" in entry:
        if not isinstance(entry["placeholder"], str):
            raise RunnerError(f"{where}placeholder must be a string (the text written at {{solution}} first)")
        changes["placeholder"] = entry["placeholder"]
    for key in ("model_api", "upstream"):
        if key in entry:
            if not isinstance(entry[key], str):
                raise RunnerError(f"{where}{key} must be a string")
            changes[key] = entry[key]
    if "price_per_mtok" in entry:
        if not isinstance(entry["price_per_mtok"], Mapping):
            raise RunnerError(f"{where}price_per_mtok must be a table {{input = USD, output = USD}}")
        changes["price_per_mtok"] = dict(entry["price_per_mtok"])
    if "pass_env" in changes and spec.builtin == "openai":
        changes["pass_env"] = tuple(dict.fromkeys((*spec.pass_env, *changes["pass_env"])))
    return replace(spec, **changes)


def with_overrides(agents: Sequence[AgentSpec], pass_env: Sequence[str]) -> list[AgentSpec]:
    """Add the run-wide ``--pass-env`` names to every agent."""
    if not pass_env:
        return list(agents)
    return [replace(a, pass_env=tuple(dict.fromkeys((*a.pass_env, *pass_env)))) for a in agents]


# ------------------------------------------------------------------ clients the sandbox can run

#: How a shell reports a command it cannot run: 127 "not found" (POSIX, "Command Search and
#: Execution") — also what ``/bin/sh -c`` says of a script whose ``#!`` interpreter is missing.
NOT_FOUND_EXIT = 127


def _shebang(path: Path) -> list[str] | None:
    """The ``#!`` line of ``path`` split into words, or None (not a script, unreadable)."""
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    return head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split() or None


def _client_scripts(exposed: Path) -> list[Path]:
    """The programs of an exposed directory: its ``bin/`` (a venv, an npm prefix, a conda
    environment), the directory itself when it is a ``bin``, or the file itself."""
    if exposed.is_file():
        return [exposed]
    for d in (exposed / "bin", exposed) if exposed.name != "bin" else (exposed,):
        if d.is_dir():
            try:
                return sorted(p for p in d.iterdir() if p.is_file() and os.access(p, os.X_OK))
            except OSError:
                return []
    return []


def check_client_interpreters(agent: AgentSpec, isolation: str) -> None:
    """Refuse, before a run starts, a command agent whose client cannot start in its sandbox
    (issue 34, item 3): every program in an exposed ``bin/`` — after its symlinks, and then the
    interpreter its ``#!`` line names, after that one's symlinks — must exist and, under bwrap,
    lie in what the sandbox shows (``/usr``, ``/etc``, ``/bin``, ``/lib*`` and the exposed
    paths, less what it masks) and be readable by its host user. Otherwise every attempt ends
    ``/bin/sh: 1: …: not found``, exit 127, and would be scored as the agent's failure.

    Raises :class:`~psab.errors.RunnerError` naming the script, the interpreter and the fix.
    ``#!/usr/bin/env NAME`` is looked up on the runner's ``PATH`` and the script's directory;
    a name found nowhere is not judged (the command may set its own ``PATH``)."""
    from psab.runner import sandbox

    if agent.builtin is not None or not agent.expose:
        return
    exposed = [Path(os.path.expanduser(e)).resolve() for e in agent.expose]
    exposed = [e for e in exposed if e.exists()]  # a missing one is check_expose's error
    bwrap = isolation == "bwrap"
    roots = [Path(d) for d in (*sandbox.SYSTEM_DIRS, *sandbox.LIB_DIRS)] + exposed
    masked = sandbox.masks(sandbox.hidden_roots(None), roots) if bwrap else []

    def hops(p: Path) -> list[Path]:
        """Every path the kernel visits to run ``p``: each link of its chain (the directories
        above them resolved), the file at the end last. Each must be visible, not only the end:
        a venv's ``bin/python`` links to a pyenv install that is not mounted in the sandbox."""
        out: list[Path] = []
        cur = Path(os.path.abspath(p))
        for _ in range(40):  # the kernel's own limit on symlinks followed (ELOOP)
            q = Path(os.path.realpath(cur.parent)) / cur.name
            out.append(q)
            if not q.is_symlink():
                break
            cur = Path(os.path.normpath(q.parent / os.readlink(q)))
        return out

    def unseen(p: Path) -> tuple[Path, str] | None:
        """The first hop of ``p`` the sandbox cannot follow and why, or None."""
        for q in hops(p):
            if not q.exists() and not q.is_symlink():
                return q, "does not exist"
            if not bwrap:
                continue
            if not any(sandbox._within(q, r.resolve()) for r in roots) or any(sandbox._within(q, m) for m in masked):
                return q, ("is outside what the sandbox shows (" + ", ".join(
                    [*sandbox.SYSTEM_DIRS, "/bin", "/lib*", *map(str, exposed)]) + (", less psab's own paths)" if masked else ")"))
            why = sandbox.unreachable_for_agent(q)
            if why is not None:
                return q, f"is unreadable for the sandbox's host user ({why})"
        return None

    def refuse(script: Path, what: str, target: Path | str, why: str, fix: str) -> None:
        raise RunnerError(f"agent {agent.name!r}: {script} {what} {target}, which {why}; every attempt would end "
                          f"'not found' (exit {NOT_FOUND_EXIT}). {fix}")

    venv_fix = ("Make the client's environment with an interpreter the sandbox shows — the system one: "
                "/usr/bin/python3 -m venv DIR — or install its interpreter in a directory the sandbox's user can read "
                "(not under /root) and add that directory to the agent's expose")
    said = agent.label  # the programs the command names are checked (and named) first
    for root in exposed:
        for script in sorted(_client_scripts(root), key=lambda p: (str(p) not in said, p.name)):
            bad = unseen(script)
            if bad is not None:
                refuse(script, "leads to", bad[0], bad[1], venv_fix)
            words = _shebang(script.resolve())
            if not words:
                continue
            interp = words[0]
            if Path(interp).name == "env":
                names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
                if not names:
                    continue
                dirs = [script.parent, *map(Path, os.environ.get("PATH", "").split(os.pathsep))]
                found = [d / names[0] for d in dirs if str(d) and os.access(d / names[0], os.X_OK)]
                verdicts = [unseen(f) for f in found]
                first = verdicts[0] if verdicts else None
                if first is not None and all(verdicts):
                    refuse(script, f"runs {names[0]} ('#!{' '.join(words)}'), found only at", first[0], first[1],
                           f"Install {names[0]} where the sandbox shows it (under /usr, or in a directory you add "
                           "to the agent's expose)")
                continue
            bad = unseen(Path(interp))
            if bad is not None:
                refuse(script, f"starts with '#!{' '.join(words)}': its interpreter leads to", bad[0], bad[1], venv_fix)
