"""``psab fleet build | questions | grade | stats``: the fleet tier's commands.

Registered in :data:`psab.cli.COMMAND_MODULES`. Heavy imports (pyarrow, duckdb) happen inside
the commands, so ``psab --help`` stays light.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from psab.errors import InvalidArgumentError

#: The paper's own Table 2 (PowerBench), for the statistics table.
PAPER_TABLE2 = {"device_types": 100, "device_instances": 761, "metrics": 1478, "rules": 2044,
                "telemetry_rows": 13_350_984, "metric_values": 207_878_856, "documents": 24_939}


def _empty_or_force(path: Path, force: bool) -> None:
    if path.exists() and any(path.iterdir()) and not force:
        raise InvalidArgumentError(f"{path} is not empty (use --force)")


def build_world(seed: str, size: str, out: Path, workers: int = 1, dask: Any = None, level: int = 1) -> dict[str, Any]:
    """Generate and store a world, sharded by device (:func:`psab.fleet.store.build_world`);
    ``level`` 2 keeps its data as utilities do (:mod:`psab.fleet.quality`)."""
    from psab.fleet import store

    return store.build_world(str(seed), size, out, workers=workers, dask=dask, level=level)


def cmd_build(args: argparse.Namespace) -> int:
    out = Path(args.out)
    _empty_or_force(out, args.force)
    t = time.perf_counter()
    if args.workers < 1:
        raise InvalidArgumentError("--workers must be at least 1")
    info = build_world(str(args.seed), args.size, out, args.workers, args.dask, level=args.level)
    print(f"built {args.size} world in {time.perf_counter() - t:.1f} s at {out}")
    # the tools' search index (psab.fleet.index), built now rather than on an agent's first search
    from psab.fleet.index import ensure_index

    t = time.perf_counter()
    ensure_index(out)
    print(f"search index built in {time.perf_counter() - t:.1f} s at {out / 'index'}")
    print(stats_table(info["statistics"]))
    return 0


def cmd_questions(args: argparse.Namespace) -> int:
    from psab.fleet import questions

    world = Path(args.world)
    if not (world / "world.json").is_file():
        raise InvalidArgumentError(f"{world}: not a fleet world (no world.json)")
    keys_out = Path(args.keys_out) if args.keys_out else Path(str(args.out).rstrip("/") + "-keys")
    for d in (Path(args.out), keys_out):
        _empty_or_force(d, args.force)
    per = args.per_family or (100 if json.loads((world / "world.json").read_text())["size"] == "full" else 10)
    qs, keys = questions.generate(world, per, world_seed=args.world_seed)
    questions.write(qs, keys, Path(args.out), keys_out)
    counts = {f: sum(1 for q in qs if q["family"] == f) for f in questions.FAMILIES}
    print(f"wrote {len(qs)} questions {counts} to {args.out}; keys to {keys_out}")
    return 0


def _jsonl(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def cmd_grade(args: argparse.Namespace) -> int:
    """Every key graded through the kernel's result (:mod:`psab.fleet.evaluate`), then aggregated."""
    from psab.fleet import evaluate, grading

    keys = _jsonl(Path(args.keys) / "keys.jsonl" if Path(args.keys).is_dir() else Path(args.keys))
    answers: list[Any] = []
    try:
        lines = Path(args.answers).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []  # an unreadable answers file grades as all infeasible
    for line in lines:
        try:
            answers.append(json.loads(line))
        except ValueError:
            continue  # a malformed line answers nothing: its question is graded infeasible
    results = evaluate.grade_results(keys, answers)
    res = grading.aggregate([evaluate.row_of(r) for r in results])
    res["results"] = [r.to_dict() for r in results]
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(f"{'family':<12} {'JA':>18} {'FA':>18} {'VS':>6} {'RER':>6} {'AER':>6}")
    for fam, a in res["families"].items():
        print(f"{fam:<12} {a['joint_accuracy']['mean']:.3f} [{a['joint_accuracy']['low']:.2f},{a['joint_accuracy']['high']:.2f}] "
              f"{a['field_accuracy']['mean']:.3f} [{a['field_accuracy']['low']:.2f},{a['field_accuracy']['high']:.2f}] "
              f"{a['schema_validity']['mean']:6.3f} {a['retrieved_evidence_recall']['mean']:6.3f} "
              f"{a['available_evidence_recall']['mean']:6.3f}")
    iv = res.get("macro_joint_accuracy_interval", {"low": 0.0, "high": 0.0})
    print(f"macro JA {res['macro_joint_accuracy']:.3f} [{iv['low']:.2f}, {iv['high']:.2f}]")
    return 0


def _num(v: Any) -> str:
    return f"{v:,}" if isinstance(v, int) else str(v)


def stats_table(s: dict[str, Any]) -> str:
    metrics = s["metrics_common"] + s["metrics_special"]
    rows = [("Device Type", s["device_types"], PAPER_TABLE2["device_types"]),
            ("Device Instance", s["device_instances"], PAPER_TABLE2["device_instances"]),
            ("Metric", f"{s['metrics_common']}+{s['metrics_special']}={metrics}", "1,275+203=1,478"),
            ("Rule", s["rules"], PAPER_TABLE2["rules"]),
            ("Rule: derived inputs / consecutive-point",
             f"{_num(s['rules_derived'])} / {_num(s['rules_consecutive_point'])}" if "rules_derived" in s else "-", "n/a"),
            ("Telemetry", s["telemetry_rows"], PAPER_TABLE2["telemetry_rows"]),
            ("Metric Value", s["metric_values"], PAPER_TABLE2["metric_values"]),
            ("Documents (operational)", s["documents_operational"], PAPER_TABLE2["documents"])]
    if "operator_load_transfers" in s:
        rows += [("Operator load transfers", s["operator_load_transfers"], "n/a"),
                 ("Maintenance actions changing telemetry", s["maintenance_actions_applied"], "n/a"),
                 ("Transformer hot-spot maximum (degC)", s["transformer_hot_spot_max_c"], "n/a")]
    lines = ["| Statistic | this world | PowerBench Table 2 |", "|---|---:|---:|"]
    for name, mine, paper in rows:
        lines.append(f"| {name} | {_num(mine)} | {_num(paper)} |")
    return "\n".join(lines)


def cmd_stats(args: argparse.Namespace) -> int:
    info = json.loads((Path(args.world) / "world.json").read_text(encoding="utf-8"))
    print(stats_table(info["statistics"]))
    return 0


_EX_BUILD = """examples:
  psab fleet build --size test --seed 7 --out /tmp/world
  psab fleet build --size full --seed 7 --out /data/fleet-world --workers 2
  psab fleet build --size full --seed 7 --out /data/fleet-world --dask tcp://scheduler:8786"""
_EX_QUESTIONS = """examples:
  psab fleet questions --world /tmp/world --out /tmp/fleet-q --keys-out /tmp/fleet-keys"""
_EX_GRADE = """examples:
  psab fleet grade --keys /tmp/fleet-keys --answers answers.jsonl --json grade.json"""
_EX_STATS = """examples:
  psab fleet stats --world /tmp/world"""
_EX_FLEET = "\n".join([_EX_BUILD, _EX_QUESTIONS.split("\n", 1)[1], _EX_GRADE.split("\n", 1)[1]])


def add_commands(sub: Any) -> None:
    """Add ``fleet`` and its verbs to the ``psab`` parser."""
    from psab.cli import HelpFormatter
    from psab.fleet import SIZES

    fleet = sub.add_parser("fleet", help="the fleet tier: build a world, write its questions, grade answers",
                           description="The fleet tier: PowerBench-style retrieval and reasoning over a computed "
                                       "operational world (device types, instances, hourly telemetry, rules, documents).",
                           epilog=_EX_FLEET, formatter_class=HelpFormatter)
    fsub = fleet.add_subparsers(dest="fleet_command", metavar="VERB")
    fleet.set_defaults(func=lambda a: (fleet.print_help(), 2)[1])
    p = fsub.add_parser("build", help="generate a world from a seed",
                        description="Generate a world from one seed through one dependency chain and store it "
                                    "(Parquet telemetry, documents with a manifest, world.json).",
                        epilog=_EX_BUILD, formatter_class=HelpFormatter)
    p.add_argument("--size", choices=SIZES, default="test",
                   help="tiny (unit tests), test (tens of devices, three weeks) or full (~740 devices, two years)")
    p.add_argument("--seed", default="0", metavar="SEED", help="the world's seed (an integer or a passphrase; default 0)")
    p.add_argument("--out", required=True, metavar="DIR", help="directory for the world")
    p.add_argument("--level", type=int, choices=(1, 2), default=1,
                   help="1: the world as computed (default); 2: its data as utilities keep it (gaps, flagged "
                        "sensors, replays, a meter change, renames, superseded work orders)")
    p.add_argument("--force", action="store_true", help="write into a non-empty directory")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="local processes generating device shards (default 1; same bytes either way)")
    p.add_argument("--dask", metavar="ADDRESS",
                   help="generate the device shards on a Dask cluster (scheduler address, e.g. tcp://host:8786; "
                        "same bytes as a local build)")
    p.set_defaults(func=cmd_build)
    p = fsub.add_parser("questions", help="write questions and (apart) their keys for a built world",
                        description="Write temporal, contextual and comparative questions (en and ru) for a built "
                                    "world, with keys computed by executing the rules, kept in a separate directory.",
                        epilog=_EX_QUESTIONS, formatter_class=HelpFormatter)
    p.add_argument("--world", required=True, metavar="DIR", help="a directory written by `psab fleet build`")
    p.add_argument("--out", required=True, metavar="DIR", help="directory for questions.jsonl (the agent's view)")
    p.add_argument("--keys-out", metavar="DIR", help="private directory for the keys (default: OUT-keys)")
    p.add_argument("--world-seed", metavar="SEED",
                   help="the world's seed: adds the causal family, whose keys come from the chain rebuilt from it "
                        "(checked against the world's seed commitment)")
    p.add_argument("--per-family", type=int, metavar="N", help="questions per family (default 100 full, 10 otherwise)")
    p.add_argument("--force", action="store_true", help="write into non-empty directories")
    p.set_defaults(func=cmd_questions)
    p = fsub.add_parser("grade", help="grade answers (JSON lines) against keys",
                        description="Grade answers against keys: joint and field accuracy, schema validity, "
                                    "retrieved- and available-evidence recall per family with bootstrap intervals.",
                        epilog=_EX_GRADE, formatter_class=HelpFormatter)
    p.add_argument("--keys", required=True, metavar="DIR|FILE", help="the keys directory (or its keys.jsonl)")
    p.add_argument("--answers", required=True, metavar="FILE",
                   help="JSON lines of {question_id, answer, evidence}; unreadable or missing answers are infeasible")
    p.add_argument("--json", metavar="FILE", help="also write the full grade as JSON")
    p.set_defaults(func=cmd_grade)
    p = fsub.add_parser("stats", help="print a world's statistics beside the paper's Table 2",
                        description="Print a built world's statistics in the form of PowerBench Table 2, beside the "
                                    "paper's own numbers.", epilog=_EX_STATS, formatter_class=HelpFormatter)
    p.add_argument("--world", required=True, metavar="DIR", help="a directory written by `psab fleet build`")
    p.set_defaults(func=cmd_stats)
