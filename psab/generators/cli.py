"""The held-out commands: ``generate``, ``validate-generators`` and ``seed``.

Registered in :data:`psab.cli.COMMAND_MODULES`. The private seed is read from ``--seed``,
``--seed-file`` or the ``PSAB_SEED`` environment variable (the last two keep it out of shell
history and process listings); it is never written into anything these commands produce:
agent views carry ids that name only family and index, manifests and reports carry the
seed's commitment.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from psab.errors import InvalidArgumentError

SEED_ENV = "PSAB_SEED"


# ------------------------------------------------------------------ shared options


def _seed_options(p: argparse.ArgumentParser, *, default: Any = None, what: str = "the private seed") -> None:
    p.add_argument("--seed", default=default, metavar="SEED", help=f"{what} (an integer or a passphrase)")
    p.add_argument("--seed-file", metavar="FILE", help=f"read the seed from this file instead (or set {SEED_ENV})")


def _seed(args: argparse.Namespace) -> str:
    if args.seed_file:
        path = Path(args.seed_file)
        if not path.is_file():
            raise InvalidArgumentError(f"{path}: no such seed file")
        text = path.read_text(encoding="utf-8").strip()
    elif args.seed is not None:
        text = str(args.seed)
    elif os.environ.get(SEED_ENV):
        text = os.environ[SEED_ENV].strip()
    else:
        raise InvalidArgumentError(f"give the seed with --seed, --seed-file or {SEED_ENV}")
    if not text:
        raise InvalidArgumentError("the seed is empty")
    return text


def _scale_options(p: argparse.ArgumentParser) -> None:
    from psab.backends import BACKENDS

    p.add_argument("--workers", type=int, default=1, metavar="N", help="local worker processes (default 1: in this process)")
    p.add_argument("--dask", metavar="ADDR", help="run on a Dask cluster, e.g. tcp://scheduler:8786")
    p.add_argument("--backend", default="surrogate", metavar="NAME",
                   help=f"backend the round is judged by: {', '.join(BACKENDS)} (default surrogate); every draw is "
                        "checked under each backend its family declares that is installed, so the tasks do not "
                        "depend on this choice")


def _families(selected: list[str] | None) -> list[str]:
    import psab

    if not selected or selected == ["all"] or "all" in selected:
        return [s.id for s in psab.families()]
    out = []
    for item in selected:
        for fid in item.split(","):
            fid = fid.strip()
            if fid and fid not in out:
                psab.get_family(fid)  # fail early, naming the known ids
                out.append(fid)
    return out


def _backend(name: str) -> str:
    from psab import backends

    backends.require(name)
    return name


def _progress_option(p: argparse.ArgumentParser) -> None:
    from psab.runner.progress import MODES

    p.add_argument("--progress", choices=MODES, default="auto",
                   help="progress on stderr (default auto: a bar on a terminal, plain lines otherwise)")


def _draw(args: argparse.Namespace, families: list[str], indices: range | list[int], seed: str, *,
          validate: bool = False, judges: dict[str, tuple[str, ...]] | None = None) -> list[Any]:
    from psab.generators.parallel import draw
    from psab.runner.progress import Steps

    # Family names and counts only: a progress log of a held-out round reveals nothing per case.
    steps = Steps(len(families) * len(indices), "draws", mode=getattr(args, "progress", "auto"))

    def done(batch: list[Any]) -> None:
        if batch:
            steps.advance(len(batch), f"{batch[0].family}: {len(batch)} drawn")

    try:
        # draw() rejects --workers below 1 (one psab error line) before it plans any job.
        return draw(families, indices, seed, backend=_backend(args.backend), validate=validate,
                    workers=args.workers, dask=args.dask, on_batch=done, level=_level(args, families), judges=judges)
    finally:
        steps.close()


def _level(args: argparse.Namespace, families: list[str]) -> int:
    """``--level``, refused for a family whose generator does not offer it."""
    import psab
    from psab.generators.acceptance import check_level

    level = getattr(args, "level", 1) or 1
    for fid in families:
        check_level(psab.get_family(fid), level)
    return level


def _indices(args: argparse.Namespace) -> range:
    """The held-out indices ``--start`` .. ``--start + --count - 1``."""
    if args.count < 1 or args.start < 0:
        raise InvalidArgumentError("--count must be at least 1 and --start non-negative")
    return range(args.start, args.start + args.count)


def _raise_first_error(outcomes: list[Any]) -> None:
    from psab.errors import GenerationError
    from psab.generators.parallel import first_error

    error = first_error(outcomes)
    if error is not None:
        raise GenerationError(error)


# ------------------------------------------------------------------ generate


def cmd_generate(args: argparse.Namespace) -> int:
    import psab
    from psab.cli import CliError
    from psab.contract import write_json
    from psab.generators.seeds import manifest_entry, outcome_judges, round_manifest

    seed = _seed(args)
    ids = _families(args.family)
    indices = _indices(args)
    out = Path(args.out)
    keys = Path(args.keys_out) if args.keys_out else out.with_name(out.name + "-keys")
    if keys.resolve() == out.resolve() or keys.resolve().is_relative_to(out.resolve()):
        raise CliError("--keys-out must not be inside --out: keys are private, agent views are not")
    for d in (out, keys):
        if d.exists() and any(d.iterdir()) and not args.force:
            raise CliError(f"{d} is not empty; choose a new directory or pass --force to write over it")

    started = time.perf_counter()
    outcomes = _draw(args, ids, indices, seed)
    _raise_first_error(outcomes)
    entries = []
    for o in outcomes:
        task = o.task
        task.write(out / task.id, with_key=False)
        spec = psab.get_family(task.family)
        if spec.materialize is not None:  # a study's agent view includes its model files
            spec.materialize(task, out / task.id)
        if task.key is not None:
            write_json(keys / task.id / "key.json", task.key)
        entries.append(manifest_entry(task, o.index, o.level))
    doc = round_manifest(seed, families=ids, start=args.start, count=args.count, backend=args.backend, entries=entries,
                         judges=outcome_judges(outcomes))
    write_json(keys / "manifest.json", doc)
    print(f"wrote {len(entries)} held-out tasks of {len(ids)} families to {out} in {time.perf_counter() - started:.1f} s")
    print(f"keys and manifest (private) in {keys}; seed commitment {doc['commitment']}")
    return 0


# ------------------------------------------------------------------ validate-generators


def _levels(wanted: list[str] | None, families: list[str]) -> list[int]:
    """``--level`` of validate-generators: levels given (repeatable), or ``all`` (every level any
    selected family offers); default level 1."""
    import psab

    if not wanted:
        return [1]
    if "all" in wanted:
        return sorted({v for f in families for v in psab.get_family(f).levels})
    try:
        return sorted({int(v) for v in wanted})
    except ValueError:
        raise InvalidArgumentError(f"--level takes integers or 'all', not {wanted!r}") from None


def cmd_validate(args: argparse.Namespace) -> int:
    from psab.cli import table
    from psab.contract import write_json
    from psab.generators.seeds import commitment
    from psab.generators.validation import report, table_rows, validate_generators

    if args.variants < 1:
        raise InvalidArgumentError("--variants must be at least 1")
    seed = _seed(args)
    ids = _families(args.family)
    started = time.perf_counter()
    levels = _levels(args.level, ids)
    rows = validate_generators(ids, args.variants, seed, backend=_backend(args.backend), workers=args.workers,
                               dask=args.dask, min_cv=args.min_cv, start=args.start, levels=levels)
    elapsed = time.perf_counter() - started
    doc = report(rows, variants=args.variants, seed_commitment=commitment(seed), backend=args.backend, min_cv=args.min_cv)
    body, header = table_rows(rows)
    print(table(body, header))
    t = doc["totals"]
    cv = "n/a" if t["mean_cv"] is None else f"{t['mean_cv']:.3f}"
    print(
        f"\n{t['families_passed']}/{t['families']} families pass: {t['accepted']}/{t['variants']} variants accepted, "
        f"{t['reference_feasible']} with a feasible score-1 reference, {t['redraws']} redraws, "
        f"{t['families_all_distinct']} families with {args.variants} distinct instances, mean CV {cv} "
        f"({elapsed:.1f} s)"
    )
    for r in rows:
        for f in r.failures:
            print(f"FAIL {r.family}: {f}", file=sys.stderr)
        for e in r.errors[:3]:
            print(f"  {e}", file=sys.stderr)
    if args.json:
        write_json(args.json, doc)
    return 0 if doc["passed"] else 1


# ------------------------------------------------------------------ seed


def cmd_seed_new(args: argparse.Namespace) -> int:
    from psab.generators.seeds import new_seed

    seed = new_seed()
    if args.out:
        path = Path(args.out)
        if path.exists():
            raise InvalidArgumentError(f"{path} exists; a seed file is never overwritten")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(seed + "\n")
        print(f"wrote a new private seed to {path} (mode 600); keep it secret until the round is over")
    else:
        print(seed)
        if not sys.stdout.isatty():
            # `psab seed new > seed.txt` makes a file of the umask's mode, usually world-readable
            print("note: a file this output is redirected to may be readable by others; "
                  "`psab seed new --out FILE` writes a new file of mode 600", file=sys.stderr)
    return 0


def cmd_seed_commit(args: argparse.Namespace) -> int:
    from psab.generators.seeds import (
        COMMITMENT_SCHEME,
        benchmark_version,
        commitment,
        weak_seed_reason,
    )

    seed = _seed(args)
    weak = weak_seed_reason(seed)
    if weak and not args.allow_weak_seed:
        raise InvalidArgumentError(
            f"{weak}; publishing its commitment would reveal it. Draw one with `psab seed new`, "
            "or pass --allow-weak-seed for a test round"
        )
    value = commitment(seed)
    if args.json:
        import json

        print(json.dumps({"commitment": value, "psab_version": benchmark_version(), "scheme": COMMITMENT_SCHEME}, indent=2))
    else:
        print(value)
    return 0


def cmd_seed_manifest(args: argparse.Namespace) -> int:
    from psab.contract import write_json
    from psab.generators.seeds import manifest_entry, outcome_judges, round_manifest

    seed = _seed(args)
    ids = _families(args.family)
    outcomes = _draw(args, ids, _indices(args), seed)
    _raise_first_error(outcomes)
    doc = round_manifest(seed, families=ids, start=args.start, count=args.count, backend=args.backend,
                         entries=[manifest_entry(o.task, o.index, o.level) for o in outcomes],
                         judges=outcome_judges(outcomes))
    write_json(args.out, doc)
    print(f"wrote the manifest of {len(doc['cases'])} held-out cases to {args.out} (commitment {doc['commitment']})")
    return 0


def cmd_seed_verify(args: argparse.Namespace) -> int:
    from psab.contract import read_json
    from psab.generators.seeds import (
        MANIFEST_SCHEME,
        check_commitment,
        compare_cases,
        manifest_entry,
        manifest_judges,
    )

    seed = _seed(args)
    doc = read_json(args.manifest)
    if not isinstance(doc, dict) or doc.get("manifest") != MANIFEST_SCHEME:
        raise InvalidArgumentError(f"{args.manifest}: not a psab held-out manifest ({MANIFEST_SCHEME})")
    problems = check_commitment(seed, doc, args.commitment)
    cases = doc.get("cases", [])
    if not problems:
        from psab.version import __version__

        if doc.get("psab_version") != __version__:
            print(f"note: the round was drawn with psab {doc.get('psab_version')}, this is {__version__}", file=sys.stderr)
        args.backend = doc.get("backend", "surrogate")
        judges = manifest_judges(doc)  # the backends the round's draws were checked under
        redrawn = []
        for level in sorted({c.get("level", 1) for c in cases}):
            at = [c for c in cases if c.get("level", 1) == level]
            families = list(dict.fromkeys(c["family"] for c in at))
            indices = sorted({c["index"] for c in at})
            args.level = level
            outcomes = _draw(args, families, indices, seed, judges=judges)
            wanted = {(c["family"], c["index"]) for c in at}
            for o in outcomes:
                if (o.family, o.index) not in wanted:
                    continue
                if o.error is not None:
                    problems.append(o.error)
                else:
                    redrawn.append(manifest_entry(o.task, o.index, o.level))
        problems += compare_cases(cases, redrawn)
    if problems:
        for p in problems[:20]:
            print(f"MISMATCH {p}", file=sys.stderr)
        print(f"verification FAILED: {len(problems)} problems")
        return 1
    print(f"verified: the seed matches the commitment {doc['commitment']} and reproduces all {len(cases)} cases")
    return 0


# ------------------------------------------------------------------ registration


_GENERATE_EPILOG = """\
examples:
  psab generate --family ybus_construction --seed-file seed.txt --count 5 --out heldout/
  psab generate --family all --seed-file seed.txt --count 5 --out heldout/ --keys-out private/keys --workers 2
  PSAB_SEED=... psab generate --families ybus_construction three_phase_short_circuit --out heldout/

The agent views (task.json per case) go to --out; the keys and the round's manifest, which must
stay private until the round is over, go to --keys-out. The seed is never written. See docs/heldout.md.
"""

_VALIDATE_EPILOG = """\
exit status: 0 every family passes; 1 a family fails (unsolvable draws, near-duplicates); 2 a usage error.

examples:
  psab validate-generators --variants 8 --seed 12345
  psab validate-generators --family ybus_construction --variants 20 --json validation.json --workers 2
"""

_SEED_EPILOG = """\
examples — a held-out round, step by step:
  psab seed new --out seed.txt                                   # 128 random bits, file mode 600
  psab seed commit --seed-file seed.txt                          # publish this before the round
  psab seed manifest --seed-file seed.txt --count 5 --out round-manifest.json
  psab seed verify --seed-file seed.txt --manifest round-manifest.json   # after the seed is revealed
"""

_FAMILY_HELP = "family ids (repeatable, space- or comma-separated; both spellings work); default: all"


def _family_option(p: argparse.ArgumentParser) -> None:
    # generate said --family and seed manifest --families; both spellings mean the same on every command.
    p.add_argument("--family", "--families", dest="family", action="extend", nargs="+", metavar="ID", help=_FAMILY_HELP)


def add_commands(sub: Any) -> None:
    """Add ``generate``, ``validate-generators`` and ``seed`` to the ``psab`` parser."""
    from psab.cli import HelpFormatter
    from psab.generators.validation import DEFAULT_MIN_CV, DEFAULT_VALIDATION_SEED

    p = sub.add_parser("generate", help="draw held-out tasks from a private seed",
                       description="Draw held-out tasks: each family's public case with its numbers redrawn under a "
                                   "private seed, accepted only when the reference solves it and scores 1.",
                       epilog=_GENERATE_EPILOG, formatter_class=HelpFormatter)
    _family_option(p)
    _seed_options(p)
    p.add_argument("--count", type=int, default=1, metavar="N", help="cases per family (default 1)")
    p.add_argument("--start", type=int, default=0, metavar="N", help="first held-out index (default 0)")
    p.add_argument("--out", required=True, metavar="DIR", help="directory for the agent views (task.json per case)")
    p.add_argument("--keys-out", metavar="DIR", help="private directory for keys and the manifest (default: OUT-keys)")
    p.add_argument("--force", action="store_true", help="write into non-empty directories")
    p.add_argument("--level", type=int, default=1, metavar="N",
                   help="difficulty level of the draws (default 1; `psab list` shows each family's levels)")
    _scale_options(p)
    _progress_option(p)
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("validate-generators",
                       help="draw K variants per family and check they are solvable and varied (the psab paper, §8.3)",
                       description="Draw K held-out variants per family from a validation seed and check that every "
                                   "draw is solvable by the reference (score 1), that the variants are distinct "
                                   "instances and that they vary (mean coefficient of variation of their numbers).",
                       epilog=_VALIDATE_EPILOG, formatter_class=HelpFormatter)
    p.add_argument("--variants", type=int, default=8, metavar="K", help="variants per family (default 8)")
    _seed_options(p, default=str(DEFAULT_VALIDATION_SEED), what=f"the validation seed (default {DEFAULT_VALIDATION_SEED})")
    _family_option(p)
    p.add_argument("--start", type=int, default=0, metavar="N", help="first index (default 0)")
    p.add_argument("--min-cv", type=float, default=DEFAULT_MIN_CV, metavar="CV",
                   help=f"mean CV below which variants are near-duplicates (default {DEFAULT_MIN_CV})")
    p.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    p.add_argument("--level", action="append", metavar="N|all",
                   help="difficulty level to validate (repeatable; 'all': every level; default 1); one row per "
                        "family and level")
    _scale_options(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("seed", help="private seeds of held-out rounds: new, commit, manifest, verify",
                       description="Private seeds of held-out rounds: draw one, publish its commitment, fix the "
                                   "round's case digests, and verify them once the seed is revealed.",
                       epilog=_SEED_EPILOG, formatter_class=HelpFormatter)
    seed_sub = p.add_subparsers(dest="seed_command", metavar="ACTION", required=True)

    q = seed_sub.add_parser("new", help="draw a fresh 128-bit private seed",
                            description="Draw a fresh 128-bit private seed from the operating system's randomness.",
                            epilog="examples:\n  psab seed new --out seed.txt      # a new file of mode 600 (preferred)\n"
                                   "  psab seed new                     # print it (a redirect makes a world-readable file)\n",
                            formatter_class=HelpFormatter)
    q.add_argument("--out", metavar="FILE", help="write it to this new file (mode 600) instead of printing it")
    q.set_defaults(func=cmd_seed_new)

    q = seed_sub.add_parser("commit", help="the commitment to publish before a held-out round",
                            description="Print the seed's commitment (a SHA-256 hash of the seed and the psab version): publish it before the round, so "
                                        "anyone can check afterwards that the cases came from the seed you reveal.",
                            epilog="examples:\n  psab seed commit --seed-file seed.txt\n"
                                   "  psab seed commit --seed-file seed.txt --json > commitment.json\n",
                            formatter_class=HelpFormatter)
    _seed_options(q)
    q.add_argument("--allow-weak-seed", action="store_true", help="commit to a guessable seed anyway (test rounds)")
    q.add_argument("--json", action="store_true", help="print the commitment with its scheme and psab version as JSON")
    q.set_defaults(func=cmd_seed_commit)

    q = seed_sub.add_parser("manifest", help="write a round's manifest of case digests",
                            description="Draw the round's cases and write their digests (never their content) with "
                                        "the seed's commitment: the manifest fixes the round before it is run.",
                            epilog="examples:\n  psab seed manifest --seed-file seed.txt --count 5 --out round-manifest.json\n"
                                   "  psab seed manifest --seed-file seed.txt --family ybus_construction --count 2 "
                                   "--out m.json\n",
                            formatter_class=HelpFormatter)
    _seed_options(q)
    _family_option(q)
    q.add_argument("--count", type=int, required=True, metavar="N", help="cases per family")
    q.add_argument("--start", type=int, default=0, metavar="N", help="first held-out index (default 0)")
    q.add_argument("--out", required=True, metavar="FILE", help="the manifest file to write")
    q.add_argument("--level", type=int, default=1, metavar="N",
                   help="difficulty level of the round's draws (default 1)")
    _scale_options(q)
    _progress_option(q)
    q.set_defaults(func=cmd_seed_manifest)

    q = seed_sub.add_parser("verify", help="check that a revealed seed reproduces a round's manifest",
                            description="Check a revealed seed against a round's manifest: its commitment matches, "
                                        "and redrawing every case reproduces every digest.",
                            epilog="exit status: 0 verified; 1 a mismatch (listed on stderr); 2 a usage error.\n\n"
                                   "examples:\n  psab seed verify --seed-file seed.txt --manifest round-manifest.json\n"
                                   "  psab seed verify --seed-file seed.txt --manifest m.json --commitment 3f5a...\n",
                            formatter_class=HelpFormatter)
    _seed_options(q)
    q.add_argument("--manifest", required=True, metavar="FILE", help="the round's manifest (psab seed manifest)")
    q.add_argument("--commitment", metavar="HEX",
                   help="the commitment published before the round (checked too; default: the manifest's own)")
    q.add_argument("--workers", type=int, default=1, metavar="N", help="local worker processes (default 1: in this process)")
    q.add_argument("--dask", metavar="ADDR", help="run on a Dask cluster, e.g. tcp://scheduler:8786")
    _progress_option(q)
    q.set_defaults(func=cmd_seed_verify, backend="surrogate")
