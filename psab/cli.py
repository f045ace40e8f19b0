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

from psab.backends import BACKENDS
from psab.errors import PsabError

#: Modules that contribute subcommands: each defines ``add_commands(subparsers)``.
COMMAND_MODULES: tuple[str, ...] = ("psab.generators.cli", "psab.runner.cli", "psab.reports.cli", "psab.fleet.cli",
                                     "psab.integrations.harbor", "psab.toolbox.cli")


class CliError(PsabError):
    """A command-line usage problem (reported as one line, exit 2)."""


class HelpFormatter(argparse.HelpFormatter):
    """Wraps prose paragraphs of a description or epilog to the terminal, and keeps a paragraph
    with indented lines (a list of examples, a table of agent specs) exactly as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        out = []
        for para in text.strip("\n").split("\n\n"):
            lines = para.splitlines()
            if any(line[:1].isspace() for line in lines):
                out.append("\n".join(indent + line for line in lines))
            else:
                out.append(textwrap.fill(" ".join(para.split()), width, initial_indent=indent,
                                         subsequent_indent=indent))
        return "\n\n".join(out)


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
        text = result.to_json()
        try:
            text.encode(sys.stdout.encoding or "utf-8")
        except (UnicodeEncodeError, LookupError):
            # A terminal that cannot show the agent's text (an ASCII locale): the same JSON
            # with non-ASCII characters as \u escapes, still valid JSON.
            text = json.dumps(result.to_dict(), sort_keys=True, indent=2, ensure_ascii=True, allow_nan=False) + "\n"
        sys.stdout.write(text)
        return
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:  # the same for people: escape what the terminal cannot show
        reconfigure(errors="backslashreplace")
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

    specs = psab.families()
    if args.json:
        def entry(s: Any) -> dict[str, Any]:
            e = {"id": s.id, "area": s.area, "scoring_kind": s.scoring_kind, "confidence": s.confidence,
                 "backends": list(s.backends), "levels": list(s.levels),
                 "presentations": ["guided", "expert"] if s.expert is not None else ["guided"]}
            if s.tier == "study":
                e["tier"] = "study"
                e["deliverables"] = [d.to_dict() for d in s.deliverables]
            return e
        print(json.dumps([entry(s) for s in (*specs, *psab.studies())], indent=2))
        return 0
    rows = [(s.id, s.area, s.scoring_kind, s.confidence, ",".join(s.backends), ",".join(map(str, s.levels)),
             "guided,expert" if s.expert is not None else "guided") for s in specs]
    print(table(rows, ("family", "area", "kind", "confidence", "backends", "levels", "presentations")))
    print(f"\n{len(rows)} families")
    studies = psab.studies()
    if studies:
        srows = [(s.id, s.area, s.confidence, ",".join(s.backends), ",".join(map(str, s.levels)),
                  " ".join(f"{d.name}×{d.weight:g}" for d in s.deliverables)) for s in studies]
        print()
        print(table(srows, ("study", "area", "confidence", "backends", "levels", "deliverables (weight)")))
        print(f"\n{len(srows)} studies (the study tier: psab run --tier study)")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """What an agent judged by ``--backend`` reads at ``--presentation`` level: the instructions
    the runner writes (with the sandbox paths as the agent sees them), or the task.json view."""
    import psab
    from psab.runner.instructions import instructions
    from psab.views import agent_view

    spec = psab.get_family(args.family)
    view = agent_view(spec.public_task(), presentation=args.presentation, backend=args.backend)
    if args.json:
        sys.stdout.write(view.to_json())
        return 0
    paths = {"task": "/sandbox/task.json", "instructions": "/sandbox/instructions.md",
             "solution": "/sandbox/solution.json", "workdir": "/sandbox"}
    if spec.tier == "study":
        # a study's agent reads study.json beside the model files (psab run --tier study)
        from psab.runner.instructions import VIEW_FILE, study_instructions

        paths["task"] = f"/sandbox/{VIEW_FILE}"
        sys.stdout.write(study_instructions(view, args.lang, paths))
        return 0
    sys.stdout.write(instructions(view, args.lang, paths))
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    import psab

    if getattr(args, "keys", None) or _is_fleet(args.task):
        return _evaluate_fleet(args)
    if _is_batch(args):
        return _evaluate_batch(args)
    result = psab.evaluate(args.task, args.solution, backend=args.backend)
    _print_result(result, args.json)
    return strict_status(result) if args.strict else 0


def _is_fleet(task: str) -> bool:
    """Fleet questions (a questions directory, questions.jsonl, or one question's JSON)? The
    fleet tier is imported only for a path of that shape, so compact tasks pay nothing."""
    from pathlib import Path

    p = Path(task)
    shaped = (p / "questions.jsonl").is_file() if p.is_dir() else p.name == "questions.jsonl" or (
        p.suffix == ".json" and p.is_file() and p.stat().st_size < 10_000_000 and b'"question_id"' in p.read_bytes())
    if not shaped:
        return False
    from psab.fleet.evaluate import is_fleet_question

    return is_fleet_question(task)


def _evaluate_fleet(args: argparse.Namespace) -> int:
    """``psab evaluate QUESTIONS ANSWERS [--keys KEYS]``: fleet answers judged through the
    kernel's result (:mod:`psab.fleet.evaluate`), one result per answered question."""
    from psab.fleet.evaluate import evaluate_files

    results = evaluate_files(args.task, args.solution, args.keys)
    status = 0
    for result in results:
        if args.json and len(results) > 1:
            sys.stdout.write(json.dumps(result.to_dict(), sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")
        else:
            _print_result(result, args.json)
        if args.strict:
            status = max(status, strict_status(result))
    return status


def _is_batch(args: argparse.Namespace) -> bool:
    from pathlib import Path

    return (args.workers is not None or args.dask is not None or Path(args.solution).is_dir()
            or args.solution.endswith(".jsonl"))


def _batch_solutions(source: str) -> list[tuple[str, Any]]:
    """``(name, solution)`` for every solution in a directory (its ``*.json`` files, sorted by
    name) or a JSONL file (one solution document per line, blank lines skipped; a line that is
    no solution is judged as such, like a malformed solution file)."""
    from pathlib import Path

    from psab.evaluators.batch import SolutionText

    p = Path(source)
    if p.is_dir():
        return [(f.name, f) for f in sorted(p.glob("*.json")) if f.is_file()]
    if not p.is_file():
        raise CliError(f"{p}: no such solution file or directory")
    out = []
    with open(p, "rb") as fh:
        for number, line in enumerate(fh, 1):
            if line.strip():
                out.append((f"{p.name}:{number}", SolutionText(line)))
    return out


def _evaluate_batch(args: argparse.Namespace) -> int:
    """``psab evaluate TASK DIR|FILE.jsonl [--workers N | --dask ADDR]``: every solution, results
    in input order (JSON Lines with ``--json``); ``--strict`` reports the worst verdict."""
    import psab

    task = psab.load_case(args.task)
    named = _batch_solutions(args.solution)
    results = psab.evaluate_many([(task, s) for _, s in named], backend=args.backend, workers=args.workers or 1,
                                 dask=args.dask)
    status = 0
    for (name, _), result in zip(named, results):
        if args.json:
            line = json.dumps(result.to_dict(), sort_keys=True, ensure_ascii=False, allow_nan=False)
            try:
                line.encode(sys.stdout.encoding or "utf-8")
            except (UnicodeEncodeError, LookupError):
                line = json.dumps(result.to_dict(), sort_keys=True, ensure_ascii=True, allow_nan=False)
            sys.stdout.write(line + "\n")
        else:
            print(f"{name}:")
            _print_result(result, False)
        if args.strict:
            status = max(status, strict_status(result))
    if not args.json:
        feasible = sum(r.feasible for r in results)
        print(f"\n{len(results)} solutions: {feasible} feasible, {sum(r.perfect for r in results)} perfect")
    return status


#: ``psab evaluate --strict`` exit statuses (0 and psab's own 1 internal error / 2 usage error
#: stay as they are, so a script can tell a judged answer from a failed command).
EXIT_NOT_PERFECT = 3
EXIT_INFEASIBLE = 4


def strict_status(result: Any) -> int:
    """0 when the answer is perfect (feasible, score 1), 3 when feasible but scored below 1,
    4 when infeasible."""
    if not result.feasible:
        return EXIT_INFEASIBLE
    return 0 if result.perfect else EXIT_NOT_PERFECT


def cmd_solve(args: argparse.Namespace) -> int:
    import psab
    from psab.contract import write_json

    solution = psab.solve(args.task, backend=args.backend)
    if args.out:
        write_json(args.out, solution.to_dict())
        print(f"wrote the {args.backend} reference solution of {args.task} to {args.out}")
    else:
        sys.stdout.write(solution.to_json())
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from psab.checks import run_checks

    report = run_checks(backends=args.backend, families=args.family)
    print(table(report.rows, report.header))
    print()
    print(report.summary)
    for line in report.missing:
        print(f"MISSING {line}")
    for line in report.failures:
        print(f"FAIL {line}", file=sys.stderr)
    return 0 if not report.failures else 1


def cmd_refresh_cases(args: argparse.Namespace) -> int:
    import psab
    from psab.contract import Task, read_json, write_json
    from psab.paths import case_dir, golden_dirs

    for spec in (*psab.families(), *psab.studies()):
        if args.family and spec.id not in args.family:
            continue
        d = case_dir(spec.id)
        old = psab.load_case(d)
        task = spec.make_task(task_id=old.id, split=old.split, public_inputs=old.public_inputs, key=old.key)
        task.write(d)
        write_json(d / "solution.json", psab.solve(task).to_dict())
        print(f"refreshed {d}")
        # a golden case's task.json carries the family's words too; its inputs and its
        # expected.json (numbers from outside psab) are never rewritten
        for g in golden_dirs(spec.id):
            old = Task.from_dict(read_json(g / "task.json"))
            again = spec.make_task(task_id=old.id, split=old.split, public_inputs=old.public_inputs, key=old.key)
            again.write(g, with_key=False)
            print(f"refreshed {g / 'task.json'}")
    return 0


# ------------------------------------------------------------------ parser


_EVALUATE_EPILOG = f"""\
exit status: 0 the answer was judged (feasible or not: read the verdict, or --json); with --strict,
0 only for a perfect answer (feasible, score 1), {EXIT_NOT_PERFECT} feasible but scored below 1,
{EXIT_INFEASIBLE} infeasible. Always: 1 an internal error, 2 a usage error (unknown family or
backend, unreadable task) — one line on stderr.

examples:
  psab evaluate cases/three_phase_short_circuit cases/three_phase_short_circuit/solution.json
  psab evaluate task.json my-answer.json --backend pandapower --json > result.json
  psab evaluate task.json my-answer.json --strict && echo perfect
  psab evaluate cases/pf_voltage_repair answers.jsonl --workers 2 --json > results.jsonl
  psab evaluate fleet-q/questions.jsonl fleet-answers.jsonl --keys fleet-q-keys --json
"""


def _backend_help(what: str) -> str:
    return f"{what}: {' or '.join(BACKENDS)} (default surrogate)"


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="psab", formatter_class=HelpFormatter,
        description="Power Systems Agent Benchmark: executable tasks for AI agents in electric power engineering, "
                    "evaluated by recomputing the physics. `psab COMMAND --help` describes each command.",
        epilog=_examples("psab list", "psab show ybus_construction",
                         "psab run --agent builtin:reference --split public", "psab report runs/RUN_ID"))
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str, description: str, epilog: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=description, epilog=epilog, formatter_class=HelpFormatter)

    p = command("list", "the families: area, scoring kind, confidence, backends",
                "List every registered family with its area, scoring kind, confidence and backends "
                "(docs/families.md has the same catalogue with each family's sources).",
                _examples("psab list", "psab list --json"))
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(func=cmd_list)

    p = command("show", "a family's public task exactly as an agent reads it",
                "Print a family's public task exactly as an agent reads it: the instructions the runner writes "
                "(statement, hard constraints, answer fields, the judging backend's rule), or the agent's "
                "task.json view with --json.",
                _examples("psab show three_phase_short_circuit", "psab show ybus_construction --lang ru",
                          "psab show three_phase_short_circuit --presentation expert --backend pandapower",
                          "psab show ybus_construction --json > task.json"))
    p.add_argument("family", metavar="FAMILY", help="a family id (see psab list)")
    p.add_argument("--lang", choices=("en", "ru"), default="en", help="language of the instructions (default en)")
    p.add_argument("--backend", default="surrogate", choices=BACKENDS,
                   help=_backend_help("the backend that judges the agent (its rule is part of what the agent reads)"))
    p.add_argument("--presentation", choices=("guided", "expert"), default="guided",
                   help="guided spells out the method (default); expert names the standard and clause only")
    p.add_argument("--json", action="store_true", help="print the agent's task.json view instead of the instructions")
    p.set_defaults(func=cmd_show)

    p = command("evaluate", "evaluate a solution file for a task",
                "Judge a solution against a task: recompute the physics, check the hard constraints, and print "
                "the verdict (feasible), the score in [0, 1] and every violation.", _EVALUATE_EPILOG)
    p.add_argument("task", metavar="TASK",
                   help="a case directory or a task.json; or fleet questions (a questions directory, its "
                        "questions.jsonl, or one question's JSON)")
    p.add_argument("solution", metavar="SOLUTION",
                   help="a solution.json ({\"answer\": {...}}); or, to judge many, a directory of *.json solutions "
                        "or a JSONL file of one solution per line")
    p.add_argument("--backend", default="surrogate", metavar="NAME", help=_backend_help("physics backend that judges"))
    p.add_argument("--json", action="store_true", help="print the result JSON (one line per result for many solutions)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="judge many solutions on N warm worker processes (results in input order)")
    p.add_argument("--dask", metavar="ADDR", help="judge many solutions on a Dask cluster, e.g. tcp://scheduler:8786")
    p.add_argument("--keys", metavar="DIR",
                   help="fleet questions only: the keys directory written by `psab fleet questions` (default: "
                        "the questions directory + '-keys')")
    p.add_argument("--strict", action="store_true",
                   help=f"exit non-zero unless the answer is perfect: {EXIT_NOT_PERFECT} feasible but scored below 1, "
                        f"{EXIT_INFEASIBLE} infeasible")
    p.set_defaults(func=cmd_evaluate)

    p = command("solve", "the reference solution of a task",
                "Solve a task with the family's reference solver and print the solution JSON (or write it).",
                _examples("psab solve cases/ybus_construction",
                          "psab solve cases/pf_voltage_repair --backend pandapower --out reference.json"))
    p.add_argument("task", metavar="TASK",
                   help="a case directory or a task.json; or fleet questions (a questions directory, its "
                        "questions.jsonl, or one question's JSON)")
    p.add_argument("--backend", default="surrogate", metavar="NAME", help=_backend_help("physics backend of the reference"))
    p.add_argument("--out", metavar="FILE", help="write the solution here instead of stdout")
    p.set_defaults(func=cmd_solve)

    p = command("check", "validate every artifact, sample solution, reference and golden case",
                "The maintainers' self-check: every artifact validated, every sample solution evaluated, every "
                "reference solver run on its public case (on each installed backend) and every golden case "
                "matched. Exit status 1 when anything fails.",
                _examples("psab check", "psab check --backend surrogate --family ybus_construction"))
    p.add_argument("--backend", action="append", metavar="NAME",
                   help=_backend_help("backends to check, repeatable").replace("(default surrogate)",
                                                                               "(default: every installed one)"))
    p.add_argument("--family", action="append", metavar="ID", help="only these families (repeatable)")
    p.set_defaults(func=cmd_check)

    p = command("refresh-cases", "(maintainers) rewrite cases/*/task.json and solution.json from the specs",
                "Maintainers: pose every public case again from its family spec and rewrite its task.json and "
                "reference solution.json, and each golden case's task.json (its inputs and expected.json are "
                "kept), after a change to a family's words, schema or reference.",
                _examples("psab refresh-cases --family ybus_construction"))
    p.add_argument("--family", action="append", metavar="ID", help="only these families (repeatable; default all)")
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
