"""The ``psab report``, ``psab qc`` and ``psab regrade`` commands (see docs/reports.md)."""

from __future__ import annotations

import argparse
import sys

from psab.errors import InvalidArgumentError

_REPORT_EPILOG = """\
examples:
  psab report runs/20260601T120000Z-ab12cd                 # writes RUN_DIR/report/
  psab report runs/a runs/b --out reports/june             # several runs, one comparison
  psab report runs/a runs/b --separate-runs --out cmp      # the same agent name in two runs kept apart
  psab report runs/make-run-20260601T120000Z               # a folder of runs: the runs inside it

Held-out per-case results stay private: without --include-private the report shows the held-out
split only as per-agent aggregates. The seed is never in a run directory, so never in a report.
"""

_QC_EPILOG = """\
exit status: 0 no defect; 1 a defect (a unanimous same-way failure, a beaten reference, or an
evaluator that missed a mutation); 2 a usage error.

examples:
  psab qc runs/a runs/b
  psab qc runs/a --sensitivity --json qc.json
  psab qc --sensitivity                    # the direct mutation sweep alone, every family
"""

_REGRADE_EPILOG = """\
examples:
  psab regrade runs/a                      # list what the current evaluators would change
  psab regrade runs/a --write              # keep the regrade in runs/a/regrades/<stamp>/
  PSAB_SEED=... psab regrade runs/a        # also the held-out split (needs the run's seed)
"""


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from psab.backends import BACKENDS
    from psab.runner.progress import MODES

    p = sub.add_parser("report", help="a Markdown + HTML report with plots comparing agents across runs",
                       description="Write report.md, report.html and PNG plots for one or more run directories.",
                       epilog=_REPORT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", metavar="RUN_DIR",
                   help="run directories made by `psab run`, or folders of them (runs/make-run-<stamp>)")
    p.add_argument("--out", metavar="DIR", help="output directory (default RUN_DIR/report for one run)")
    p.add_argument("--include-private", action="store_true",
                   help="also show held-out per-family results and shortfalls (internal use only)")
    p.add_argument("--separate-runs", action="store_true",
                   help="name agents NAME@RUN so the same agent in different runs is compared, not pooled")
    p.add_argument("--resamples", type=int, default=2000, metavar="N", help="bootstrap resamples (default 2000)")
    p.add_argument("--bootstrap-seed", type=int, default=0, metavar="N", help="seed of the bootstrap (default 0)")
    p.add_argument("--confidence", type=float, default=0.95, metavar="C", help="interval level (default 0.95)")
    p.add_argument("--no-plots", action="store_true", help="no PNG plots (and no matplotlib)")
    p.add_argument("--link-plots", action="store_true", help="link the PNGs from the HTML instead of embedding them")
    p.add_argument("--title", help="report title")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("qc", help="quality control: unanimous failures, beaten references, evaluator sensitivity",
                       description="The quality-control rule of the psab paper (section 8.2; see README, Citing) over run directories, and the "
                                   "evaluator's sensitivity to realistic mistakes.",
                       epilog=_QC_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="*", metavar="RUN_DIR",
                   help="run directories or folders of them (optional with --sensitivity)")
    p.add_argument("--sensitivity", action="store_true",
                   help="also sweep every mutation of each family's public reference directly (no agent)")
    p.add_argument("--family", action="append", metavar="ID", help="families for the sweep (default: those in the runs)")
    p.add_argument("--exclude-agent", action="append", default=[], metavar="NAME",
                   help="leave this agent out of the unanimous-failure check (repeatable)")
    p.add_argument("--include-private", action="store_true", help="show held-out per-case details")
    p.add_argument("--backend", metavar="NAME",
                   help=f"backend of the sweep: {' or '.join(BACKENDS)} (default: the run's, else surrogate)")
    p.add_argument("--json", metavar="FILE", help="also write the findings as JSON")
    p.add_argument("--progress", choices=MODES, default="auto",
                   help="progress of the sweep on stderr (default auto: a bar on a terminal, plain lines otherwise)")
    p.set_defaults(func=cmd_qc)

    p = sub.add_parser("regrade", help="re-score a run's stored solutions under the current evaluators",
                       description="Re-evaluate every scored attempt of a run and list the verdicts and scores "
                                   "that changed.",
                       epilog=_REGRADE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", metavar="RUN_DIR",
                   help="a run directory made by `psab run`, or a folder of them (each is regraded)")
    p.add_argument("--write", action="store_true", help="store the new results in RUN_DIR/regrades/<stamp>/")
    p.add_argument("--seed", metavar="SEED", help="the run's held-out seed (or $PSAB_SEED) to regrade held-out too")
    p.add_argument("--json", metavar="FILE", help="also write the changes as JSON")
    p.add_argument("--check", action="store_true", help="exit 1 when anything changed")
    p.set_defaults(func=cmd_regrade)


def cmd_report(args: argparse.Namespace) -> int:
    from psab.reports.report import ReportOptions, write_report

    if args.resamples < 1:
        raise InvalidArgumentError("--resamples must be at least 1")
    if not 0.0 < args.confidence < 1.0:
        raise InvalidArgumentError("--confidence must lie strictly between 0 and 1 (e.g. 0.95)")
    opts = ReportOptions(include_private=args.include_private, separate_runs=args.separate_runs,
                         resamples=args.resamples, seed=args.bootstrap_seed, confidence=args.confidence,
                         plots=not args.no_plots, embed=not args.link_plots, title=args.title)
    files = write_report(args.runs, args.out, opts)
    print(files.text)
    print()
    print(f"wrote {files.markdown}")
    print(f"wrote {files.html}")
    for p in files.plots:
        print(f"wrote {p}")
    if args.include_private:
        print("note: --include-private — this report shows held-out per-case results; do not publish it",
              file=sys.stderr)
    return 0


def cmd_qc(args: argparse.Namespace) -> int:
    from psab.contract import write_json
    from psab.reports.load import load_runs
    from psab.reports.qc import run_qc, text

    if not args.runs and not args.sensitivity:
        raise InvalidArgumentError("give run directories, or --sensitivity for the direct mutation sweep alone")
    from psab.runner.progress import Steps

    runs = load_runs(args.runs) if args.runs else None
    steps: list[Steps] = []  # made at the sweep's first family, when its length is known

    def progress(family: str, done: int, total: int) -> None:
        if not steps:
            steps.append(Steps(total, "families swept", mode=args.progress))
        steps[0].advance(1, f"{family}: every mutation of the public reference evaluated")

    try:
        rep = run_qc(runs, sensitivity=args.sensitivity, families=args.family, exclude=args.exclude_agent,
                     include_private=args.include_private, backend=args.backend, progress=progress)
    finally:
        for s in steps:
            s.close()
    print(text(rep))
    if args.json:
        write_json(args.json, rep.to_dict())
        print(f"wrote {args.json}")
    return 1 if rep.defects else 0


def cmd_regrade(args: argparse.Namespace) -> int:
    from psab.contract import write_json
    from psab.reports.load import expand_runs
    from psab.reports.regrade import regrade, text
    from psab.runner.run import seed_from
    from psab.runner.store import RunDir

    seed = seed_from(args.seed)
    run_dirs = expand_runs([args.run])
    reps = []
    for i, run_dir in enumerate(run_dirs):
        # In a folder of runs the seed belongs to the held-out run(s); a public run ignores it.
        has_heldout = len(run_dirs) == 1 or "heldout" in RunDir(run_dir).manifest()
        rep = regrade(run_dir, seed=seed if has_heldout else None, write=args.write)
        print(("\n" if i else "") + text(rep))
        reps.append(rep)
    if args.json:
        doc = reps[0].to_dict() if len(reps) == 1 else {"format": "psab-regrade-set-v1",
                                                        "regrades": [r.to_dict() for r in reps]}
        write_json(args.json, doc)
        print(f"wrote {args.json}")
    return 1 if (args.check and any(r.changes for r in reps)) else 0
