"""The ``psab run`` command (registered through :data:`psab.cli.COMMAND_MODULES`)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from psab.errors import RunnerError

_EPILOG = """\
agents (--agent, repeatable):
  builtin:KIND[,key=value...]   a built-in agent: reference, mutant, malformed, silent, crash, hang,
                                provider-error, flaky, escape (options: sleep=S, status=429|502|quota, exit=N);
                                openai: one chat completion (model=M, base_url=URL, api_key_env=VAR,
                                max_tokens=N, temperature=T, request_timeout_s=S)
  NAME=builtin:KIND[,...]       the same under another name
  cmd:NAME=TEMPLATE             a command; placeholders {task} {instructions} {solution} {workdir}
  NAME=TEMPLATE                 the same
  NAME                          an agent of --agents-file (all of them when no --agent is given)

examples:
  psab run --agent builtin:reference --agent builtin:mutant --split public
  PSAB_SEED=... psab run --agent builtin:reference --split heldout --count 2
  psab run --agent 'cmd:opencode=opencode run "$(cat {instructions})"' --pass-env OPENROUTER_API_KEY
  psab run --resume runs/20260601T120000Z-abc123
  psab run --tier fleet --seed 7 --agent builtin:fleet-reference --agent builtin:fleet-weak
  psab run --tier fleet --world /data/world --questions /data/fleet-q --agent mine='my-agent {instructions}'
  psab run --tier study --agent builtin:reference --agent builtin:mutant     (the toolbox on: psab toolbox build)

The private seed of a held-out run is better given as $PSAB_SEED than as --seed (a command
line is visible to other processes). See docs/runner.md.
"""

# Options that define a run; a resumed run takes them from its manifest instead.
_DEFINING = ("agent", "agents_file", "split", "family", "limit", "count", "start", "run_seed", "timeout",
             "isolation", "no_network", "network", "lang", "backend", "pass_env", "memory_limit", "file_limit",
             "process_limit", "tmp_limit", "disk_limit", "tier", "world", "questions", "keys", "fleet_size",
             "per_family", "corpus_devices", "tool_budget", "toolbox", "no_toolbox", "allow_unsandboxed_python_tool")


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from psab.backends import BACKENDS
    from psab.runner.progress import MODES

    p = sub.add_parser(
        "run", help="run agents on the public and/or held-out split, in sandboxes",
        description="Run command-line agents on psab tasks: sandboxed, classified, recorded, resumable.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--agent", action="append", metavar="SPEC", help="an agent (see below); repeatable")
    p.add_argument("--agents-file", metavar="FILE", help="TOML or JSON file of agents (docs/runner.md)")
    p.add_argument("--list-builtins", action="store_true", help="list the built-in agents and exit")
    p.add_argument("--split", action="append", choices=("public", "heldout"), help="public (default) and/or heldout")
    p.add_argument("--family", action="append", metavar="ID", help="only these families (repeatable)")
    p.add_argument("--limit", type=int, metavar="N", help="at most N tasks per split")
    p.add_argument("--count", type=int, metavar="N", help="held-out cases per family (default 1)")
    p.add_argument("--start", type=int, metavar="N", help="first held-out index (default 0)")
    p.add_argument("--seed", metavar="SEED", help="the private held-out seed (or $PSAB_SEED); never recorded")
    p.add_argument("--allow-weak-seed", action="store_true",
                   help="no warning for a guessable held-out seed (a demo or test round, as `make run`'s)")
    p.add_argument("--run-seed", type=int, metavar="N", help="seed of the mutant agent's choices (default 0)")
    p.add_argument("--timeout", type=float, metavar="S", help="default per-attempt timeout in seconds (default 600)")
    p.add_argument("--memory-limit", type=float, metavar="MB",
                   help="address-space limit of every agent process, MB (default none; Node-based agents need a "
                        "generous one)")
    p.add_argument("--file-limit", type=float, metavar="MB",
                   help="largest file an agent process may write, MB (default 1024; 0: none)")
    p.add_argument("--process-limit", type=int, metavar="N",
                   help="processes and threads one agent's sandbox may hold at once (bwrap; default 2048, 0: none)")
    p.add_argument("--tmp-limit", type=float, metavar="MB",
                   help="size of the sandbox's private /tmp, in memory (bwrap; default 2048, 0: the kernel's half of RAM)")
    p.add_argument("--disk-limit", type=float, metavar="MB",
                   help="what an agent's working directory may hold on disk; past it the agent is ended "
                        "(default 8192, 0: none)")
    p.add_argument("--isolation", choices=("auto", "bwrap", "relocate"), help="sandbox (default auto: bwrap if it works)")
    p.add_argument("--no-network", action="store_true", help="cut the agents' network (bwrap only)")
    p.add_argument("--network", choices=("proxy", "host"),
                   help="the agents' network under bwrap: proxy (default) a namespace of its own whose only way out "
                        "is the recording proxy of the agent's model API; host the host's network")
    p.add_argument("--lang", choices=("en", "ru"), help="language of the instructions (default en)")
    p.add_argument("--backend", metavar="NAME",
                   help=f"evaluation backend: {' or '.join(BACKENDS)} (default surrogate); the agents are told which "
                        "backend judges them")
    p.add_argument("--presentation", choices=("guided", "expert"),
                   help="statement level: guided spells out the method (default), expert names the standard and "
                        "clause only")
    p.add_argument("--level", type=int, metavar="N",
                   help="difficulty level of the held-out draws (default 1; `psab list` shows each family's levels); "
                        "fleet: the level of a world built from --seed (1 as computed, 2 its data as utilities keep it)")
    p.add_argument("--tier", choices=("compact", "fleet", "study"),
                   help="compact (the families' tasks, default), fleet (questions on an operational world, "
                        "answered through the fleet tools; docs/fleet.md) or study (engineering studies on real-size "
                        "models, in the field's own files; docs/runner.md)")
    p.add_argument("--toolbox", nargs="?", const=True, metavar="PATH",
                   help="show every agent the toolbox (`psab toolbox build`; PATH: one built elsewhere), read-only; "
                        "default on for --tier study, off otherwise")
    p.add_argument("--no-toolbox", action="store_true", help="no toolbox (a study run's default is on)")
    p.add_argument("--world", metavar="DIR", help="fleet: a world from `psab fleet build` (default: build one from "
                                                 "--seed in the run directory)")
    p.add_argument("--questions", metavar="DIR", help="fleet: questions from `psab fleet questions` (default: write "
                                                     "--per-family of each family for the world)")
    p.add_argument("--keys", metavar="DIR", help="fleet: the questions' keys (default QUESTIONS-keys)")
    p.add_argument("--fleet-size", choices=("tiny", "test", "full"), help="fleet: size of a world built from --seed "
                                                                         "(default test)")
    p.add_argument("--per-family", type=int, metavar="N", help="fleet: questions per family written (default 3)")
    p.add_argument("--corpus-devices", type=int, metavar="N",
                   help="fleet: devices the tools show (the question's targets always among them; PowerBench "
                        "Table 9; default all)")
    p.add_argument("--tool-budget", action="append", metavar="FIELD=VALUE",
                   help="fleet: change one of the tools' per-question budgets (calls, seconds, read_lines, "
                        "window_rows, bytes_total, python_seconds, python_chars; PowerBench Table 7 defaults)")
    p.add_argument("--allow-unsandboxed-python-tool", action="store_true", default=None,
                   help="fleet: where bwrap does not work, let the python tool run without it (limits, a seccomp "
                        "filter and an audit hook only); without this flag such calls are refused")
    p.add_argument("--pass-env", action="append", metavar="VAR", help="pass this environment variable to every agent")
    p.add_argument("--workers", type=int, default=1, metavar="N", help="cases run in parallel (default 1)")
    p.add_argument("--dask", metavar="ADDRESS", help="run the cases on this Dask scheduler (tcp://host:8786)")
    p.add_argument("--out", metavar="RUN_DIR", help="run directory (default runs/<run id>)")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue an interrupted run")
    p.add_argument("--progress", choices=MODES, default="auto",
                   help="progress display on stderr (default: a bar on a terminal, lines otherwise)")
    p.set_defaults(func=cmd_run)


def _cases(n: int) -> str:
    return f"{n} case" if n == 1 else f"{n} cases"


def _report(report: Any, what: str, note: str = "") -> int:
    """Print a finished run's table and state (``what``: "run" or "fleet run"; ``note`` follows
    the run directory) for both tiers; exit status 0 only when every planned case is recorded."""
    print(report.table)
    s = report.summary
    print()
    state = "complete" if s["complete"] else f"INCOMPLETE ({s['recorded']}/{s['planned']} cases)"
    print(f"{what} {s['run_id']} {state}; isolation {s['isolation']}; "
          f"{_cases(report.ran)} run now, {report.skipped} already recorded")
    print(f"records and summary in {report.run_dir}{note}")
    sys.stdout.flush()
    return 0 if s["complete"] else 1


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def cmd_run(args: argparse.Namespace) -> int:
    from psab.runner.agents import BUILTIN_KINDS

    if args.list_builtins:
        for kind, words in BUILTIN_KINDS.items():
            print(f"builtin:{kind:<16} {words}")
        return 0
    # A polite stop (SIGTERM from a CI cancel, say) unwinds like Ctrl-C: the agents this run
    # started are killed, and everything recorded so far stays for --resume.
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    try:
        return _run(args)
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


def _run(args: argparse.Namespace) -> int:
    from psab.runner import run as runner
    from psab.runner.agents import load_agents_file, parse_agent_arg, with_overrides

    seed = runner.seed_from(args.seed)
    if args.resume:
        given = [name for name in _DEFINING if getattr(args, name) not in (None, False)]
        if given or args.out:
            flags = ", ".join("--" + n.replace("_", "-") for n in (given + (["out"] if args.out else [])))
            raise RunnerError(f"--resume takes the run's configuration from its manifest; drop {flags}")
        report = runner.resume(args.resume, seed=seed, workers=args.workers, dask=args.dask, progress=args.progress)
    else:
        named = load_agents_file(args.agents_file) if args.agents_file else {}
        if args.agent:
            agents = [parse_agent_arg(a, named) for a in args.agent]
        else:
            agents = list(named.values())
        agents = with_overrides(agents, args.pass_env or [])
        if args.toolbox is not None and args.no_toolbox:
            raise RunnerError("--toolbox and --no-toolbox contradict each other; give one")
        toolbox = False if args.no_toolbox else args.toolbox
        if args.no_network and args.network:
            raise RunnerError("--no-network and --network contradict each other; give one")
        _check_set_up(agents, args.isolation or "auto", not args.no_network)
        if args.tier == "fleet":
            return _run_fleet(args, agents, toolbox)
        fleet_flags = [f for f in ("world", "questions", "keys", "fleet_size", "per_family", "corpus_devices",
                                   "tool_budget", "allow_unsandboxed_python_tool")
                       if getattr(args, f) is not None]
        if fleet_flags:
            raise RunnerError(f"--{fleet_flags[0].replace('_', '-')} applies to --tier fleet only")
        # Only what the command line says; RunOptions holds the defaults (one place for them).
        given = {
            "splits": list(dict.fromkeys(args.split)) if args.split else None,
            "families": args.family, "limit": args.limit, "count": args.count, "start": args.start,
            "isolation": args.isolation, "lang": args.lang, "backend": args.backend, "timeout_s": args.timeout,
            "presentation": args.presentation, "level": args.level,
            "run_seed": args.run_seed, "memory_limit_mb": args.memory_limit, "file_limit_mb": args.file_limit,
            "process_limit": args.process_limit, "tmp_limit_mb": args.tmp_limit, "disk_limit_mb": args.disk_limit,
            "toolbox": toolbox, "network_mode": args.network,
        }
        from psab.runner.study import StudyOptions

        options = StudyOptions if args.tier == "study" else runner.RunOptions
        opts = options(agents=agents, network=not args.no_network,
                       **{name: value for name, value in given.items() if value is not None})
        if "heldout" not in opts.splits and seed is not None and args.seed:
            raise RunnerError("--seed is only used with --split heldout")
        if "heldout" in opts.splits and seed is not None:
            from psab.generators.seeds import weak_seed_reason

            weak = weak_seed_reason(seed)
            if weak and not args.allow_weak_seed:
                # The run publishes the seed's commitment; a guessable seed makes it reversible.
                print(f"psab: warning: {weak}; fine for a demo, not for a round whose cases must stay private "
                      "(psab seed new draws a strong one)", file=sys.stderr)
        if args.tier == "study":
            from psab.runner import loop
            from psab.runner.study import StudyTier

            report = loop.start(StudyTier(opts), out=args.out, seed=seed, workers=args.workers, dask=args.dask,
                                progress=args.progress)
        else:
            report = runner.start(opts, out=args.out, seed=seed, workers=args.workers, dask=args.dask,
                                  progress=args.progress)
    held = " (held-out per-case material under private/ — do not publish it)" if "heldout" in report.summary else ""
    return _report(report, "run", held)


def _check_set_up(agents: list, isolation: str, network: bool) -> None:  # type: ignore[type-arg]
    """Before a run of either tier starts: refuse clients that cannot start in the sandbox
    (:func:`~psab.runner.agents.check_client_interpreters`), and say in one line when the run
    falls back to relocation, what that leaves open and how to get bwrap (issue 34, items 2-3)."""
    from psab.runner.agents import check_client_interpreters
    from psab.runner.sandbox import isolation_notice, resolve_isolation

    resolved = resolve_isolation(isolation, network)  # the run's own choice (the probe is cached)
    for agent in agents:
        check_client_interpreters(agent, resolved)
    notice = isolation_notice(isolation, network)
    if notice:
        print(notice, file=sys.stderr, flush=True)


def _run_fleet(args: argparse.Namespace, agents: list, toolbox: bool | str | None) -> int:  # type: ignore[type-arg]
    """``psab run --tier fleet``: :func:`psab.runner.fleet.start`."""
    from psab.runner import fleet

    wrong = [f for f in ("split", "count", "start", "backend", "presentation") if getattr(args, f) is not None]
    if wrong:
        raise RunnerError(f"--{wrong[0]} applies to the compact tier only")
    if args.level is not None and args.level not in (1, 2):
        raise RunnerError(f"--level {args.level}: a fleet world's level is 1 (as computed) or 2 (as utilities keep it)")
    given = {"world": args.world, "questions": args.questions, "keys": args.keys, "size": args.fleet_size,
             "per_family": args.per_family, "families": args.family, "limit": args.limit,
             "corpus_devices": args.corpus_devices, "isolation": args.isolation, "lang": args.lang,
             "timeout_s": args.timeout, "run_seed": args.run_seed, "memory_limit_mb": args.memory_limit,
             "file_limit_mb": args.file_limit, "seed": args.seed, "toolbox": toolbox,
             "process_limit": args.process_limit, "tmp_limit_mb": args.tmp_limit, "disk_limit_mb": args.disk_limit,
             "allow_unsandboxed_python_tool": args.allow_unsandboxed_python_tool, "network_mode": args.network,
             "level": args.level}
    if args.tool_budget:
        budget = {}
        for item in args.tool_budget:
            k, eq, v = item.partition("=")
            if not eq:
                raise RunnerError(f"--tool-budget {item!r}: give FIELD=VALUE, e.g. calls=20")
            budget[k.strip()] = v.strip()
        given["budget"] = budget
    opts = fleet.FleetOptions(agents=agents, network=not args.no_network,
                              **{k: v for k, v in given.items() if v is not None})
    report = fleet.start(opts, out=args.out, workers=args.workers, progress=args.progress, dask=args.dask)
    return _report(report, "fleet run")
