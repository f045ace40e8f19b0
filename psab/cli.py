"""The ``psab`` command.

Core commands live here (``list``, ``show``, ``evaluate``, ``solve``, ``check``,
``refresh-cases``); larger tools add theirs from their own package through
:data:`COMMAND_MODULES` (each module has ``add_commands(subparsers)``) — the held-out
commands ``generate``, ``validate-generators`` and ``seed`` live in :mod:`psab.generators.cli`.
Errors are one line on stderr and a non-zero exit; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import traceback
from collections.abc import Sequence
from typing import Any

from psab.errors import PsabError

#: Modules that contribute subcommands: each defines ``add_commands(subparsers)``.
COMMAND_MODULES: tuple[str, ...] = ("psab.generators.cli", "psab.runner.cli", "psab.reports.cli")


class CliError(PsabError):
    """A command-line usage problem (reported as one line, exit 2)."""


# ------------------------------------------------------------------ output helpers


def table(rows: Sequence[Sequence[Any]], header: Sequence[str]) -> str:
    """A plain aligned text table."""
    cells = [[str(c) for c in header]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _print_result(result: Any, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(result.to_json())
        return
    verdict = "feasible" if result.feasible else "INFEASIBLE"
    print(f"{result.task_id} [{result.family}, {result.backend}]: {verdict}, score {result.score:.4f}")
    ev = result.evidence
    if "objective" in ev and ev.get("objective") is not None:
        ref = ev.get("reference_objective")
        print(f"  objective {ev['objective']:.6g}" + (f" (reference {ref:.6g})" if isinstance(ref, (int, float)) else ""))
    if ev.get("beats_reference"):
        print("  note: this answer beats the reference (score capped at 1)")
    for v in result.violations[:50]:
        print(f"  - {v.describe()}")
    if len(result.violations) > 50:
        print(f"  ... and {len(result.violations) - 50} more violations (use --json)")


# ------------------------------------------------------------------ commands


def cmd_list(args: argparse.Namespace) -> int:
    import psab

    rows = [(s.id, s.area, s.scoring_kind, s.confidence, ",".join(s.backends)) for s in psab.families()]
    if args.json:
        keys = ("id", "area", "scoring_kind", "confidence", "backends")
        print(json.dumps([dict(zip(keys, (r[0], r[1], r[2], r[3], r[4].split(",")))) for r in rows], indent=2))
        return 0
    print(table(rows, ("family", "area", "kind", "confidence", "backends")))
    print(f"\n{len(rows)} families")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    import psab

    spec = psab.get_family(args.family)
    task = spec.public_task()
    if args.json:
        sys.stdout.write(task.to_json())
        return 0
    text = task.presentation[args.lang]
    print(f"{text['title']}  [{spec.id}]")
    print(f"area: {spec.area} · kind: {spec.scoring_kind} · confidence: {spec.confidence} · backends: {', '.join(spec.backends)}")
    print()
    print(text["statement"])
    if text.get("answer_notes"):
        print()
        print(text["answer_notes"])
    print("\nHard constraints:" if args.lang == "en" else "\nЖёсткие ограничения:")
    for c in task.hard_constraints_in(args.lang):
        print(f"  - {c}")
    print("\nAnswer fields:" if args.lang == "en" else "\nПоля ответа:")
    for name, prop in task.submission_schema.get("properties", {}).items():
        print(f"  {name}: {prop.get('description', prop.get('type', ''))}")
    print("\nSources:" if args.lang == "en" else "\nИсточники:")
    for p in task.provenance:
        print(f"  - {p['title']} — {p['locator']} ({p['confidence']})")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    import psab

    result = psab.evaluate(args.task, args.solution, backend=args.backend)
    _print_result(result, args.json)
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    import psab
    from psab.contract import write_json

    solution = psab.solve(args.task, backend=args.backend)
    if args.out:
        write_json(args.out, solution.to_dict())
    else:
        sys.stdout.write(solution.to_json())
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from psab.checks import run_checks

    report = run_checks(backends=args.backend, families=args.family)
    print(table(report.rows, report.header))
    print()
    print(report.summary)
    for line in report.failures:
        print(f"FAIL {line}", file=sys.stderr)
    return 0 if not report.failures else 1


def cmd_refresh_cases(args: argparse.Namespace) -> int:
    import psab
    from psab.contract import write_json
    from psab.paths import case_dir

    for spec in psab.families():
        if args.family and spec.id not in args.family:
            continue
        d = case_dir(spec.id)
        old = psab.load_case(d)
        task = spec.make_task(task_id=old.id, split=old.split, public_inputs=old.public_inputs, key=old.key)
        task.write(d)
        write_json(d / "solution.json", psab.solve(task).to_dict())
        print(f"refreshed {d}")
    return 0


# ------------------------------------------------------------------ parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="psab", description="Power Systems Agent Benchmark")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("list", help="the families: area, scoring kind, confidence, backends")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="a family's public task as the agent reads it")
    p.add_argument("family")
    p.add_argument("--lang", choices=("en", "ru"), default="en")
    p.add_argument("--json", action="store_true", help="print the task.json")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("evaluate", help="evaluate a solution file for a task")
    p.add_argument("task", help="a case directory or task.json")
    p.add_argument("solution", help="a solution.json")
    p.add_argument("--backend", default="surrogate")
    p.add_argument("--json", action="store_true", help="print the result JSON")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("solve", help="the reference solution of a task")
    p.add_argument("task")
    p.add_argument("--backend", default="surrogate")
    p.add_argument("--out", help="write the solution here instead of stdout")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("check", help="validate every artifact, sample solution, reference and golden case")
    p.add_argument("--backend", action="append", help="backends to check (default: every installed one)")
    p.add_argument("--family", action="append", help="only these families")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("refresh-cases", help="(maintainers) rewrite cases/*/task.json and solution.json from the specs")
    p.add_argument("--family", action="append")
    p.set_defaults(func=cmd_refresh_cases)

    for name in COMMAND_MODULES:
        importlib.import_module(name).add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from psab.version import __version__

        print(f"psab {__version__}")
        return 0
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    started = time.perf_counter()
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("psab: interrupted", file=sys.stderr)
        return 130
    except PsabError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"psab: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - one line unless --debug
        if args.debug:
            traceback.print_exc()
        print(f"psab: internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)", file=sys.stderr)
        return 1
    finally:
        if args.debug:
            print(f"[{args.command} took {time.perf_counter() - started:.2f} s]", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
