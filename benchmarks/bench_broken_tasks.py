"""Broken-task sweep: mutated public tasks must be refused as the caller's error, or work.

Issue 32, items 1-4. For every family and every declared, installed backend, one spot of the
public case's ``public_inputs`` (or of its ``tolerances``) is broken the way a hand-edited or
machine-written task file gets broken — ``null`` or a string or ``true`` for a number; zero,
1e-300 or a negative value; a key dropped; a list one entry too long (its last entry repeated)
or too short; an element's id repeated from the element before it, or given as a number or
``null``; a tolerance NaN or infinite — and then

* ``psab.solve(task, backend)`` and ``psab.evaluate(task, reference, backend)`` (the task's own
  reference answer) may raise nothing but :class:`psab.errors.PsabError` subclasses;
* a task they accept must have a reference that scores 1 on it with no ``evaluator_error``
  ("accepted, reference fails" otherwise: a task whose reference cannot be judged is the
  caller's error, never a verdict);
* a task with a non-finite tolerance must be refused;
* each case's wall time is measured (solve + evaluate); a case over :data:`SLOW_S` is reported
  and one over :data:`TIMEOUT_S` is stopped.

Which spots: every spot of the public inputs, depth first, grouped by mutation kind; with
``--per-kind N`` at most N evenly spaced spots of each kind per family (deterministic), so a
sample stays proportionate on a shared machine. The test suite runs a small fixed sample
(tests/test_malformed_tasks.py); this script runs the larger sweep and prints its figures.

Usage: ``python benchmarks/bench_broken_tasks.py [--per-kind N] [--family ID ...] [--backend B]
[--skip-backend B ...] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import re
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: A case slower than this is reported (issue 32's bound).
SLOW_S = 5.0
#: A case still running after this is stopped (reported as a timeout, and slow).
TIMEOUT_S = 60.0

#: Mutation kinds of a spot in public_inputs.
INPUT_KINDS = ("null", "string", "bool", "zero", "tiny", "negative", "drop", "longer", "shorter",
               "dup_id", "id_number", "id_null")
#: Mutation kinds of a tolerance.
TOLERANCE_KINDS = ("tol_nan", "tol_inf", "tol_huge")


def spots(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) below the root, depth first."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        yield (*path, k), v
        yield from spots(v, (*path, k))


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _is_id_key(key: Any) -> bool:
    return isinstance(key, str) and (key == "id" or key.endswith("_id") or key.endswith("bus") or key in ("branch", "breaker"))


def applicable(kind: str, path: tuple[Any, ...], value: Any, parent: Any) -> bool:
    last = path[-1]
    if kind in ("null", "string", "bool", "zero", "tiny", "negative"):
        return _is_number(value) and not (kind == "zero" and value == 0)
    if kind == "drop":
        return isinstance(last, str)
    if kind in ("longer", "shorter"):
        return isinstance(value, list) and len(value) > 0
    if kind == "dup_id":  # an element's id repeated from the element before it
        return (last == "id" and isinstance(value, str) and len(path) >= 3 and isinstance(path[-2], int)
                and path[-2] > 0)
    if kind in ("id_number", "id_null"):
        return isinstance(value, str) and _is_id_key(last)
    raise ValueError(kind)


def _parent(root: Any, path: tuple[Any, ...]) -> Any:
    for part in path[:-1]:
        root = root[part]
    return root


def mutate(inputs: dict[str, Any], kind: str, path: tuple[Any, ...]) -> dict[str, Any]:
    """A deep copy of ``inputs`` with the spot at ``path`` broken by ``kind``."""
    out = copy.deepcopy(inputs)
    parent = _parent(out, path)
    last = path[-1]
    value = parent[last]
    if kind == "drop":
        del parent[last]
    elif kind == "longer":
        value.append(copy.deepcopy(value[-1]))
    elif kind == "shorter":
        value.pop()
    elif kind == "dup_id":
        parent[last] = _parent(out, path[:-1])[path[-2] - 1]["id"]
    else:
        parent[last] = {"null": None, "string": "1.0", "bool": True, "zero": 0, "tiny": 1e-300,
                        "negative": -abs(value) - 1 if _is_number(value) else value,
                        "id_number": 7, "id_null": None}[kind]
    return out


def tolerance_spots(tol: dict[str, Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = [("relative",)]
    for group in ("absolute_floors", "feasibility", "objective"):
        out.extend((group, k) for k in sorted(tol.get(group) or {}))
    return out


def mutate_tolerance(tol: dict[str, Any], kind: str, path: tuple[str, ...]) -> dict[str, Any]:
    out = copy.deepcopy(tol)
    _parent(out, path)[path[-1]] = {"tol_nan": math.nan, "tol_inf": math.inf, "tol_huge": 1e300}[kind]
    return out


def _even(items: list[Any], n: int | None) -> list[Any]:
    """At most ``n`` of ``items``, evenly spaced (first and last included)."""
    if n is None or len(items) <= n:
        return items
    if n == 1:
        return items[:1]
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


@dataclass(frozen=True)
class Case:
    family: str
    backend: str
    kind: str
    path: tuple[Any, ...]


def cases(family: str, backend: str, per_kind: int | None) -> list[Case]:
    """The mutations of ``family``'s public task swept under ``backend``."""
    import psab

    task = psab.get_family(family).public_task()
    all_spots = list(spots(task.public_inputs))
    out = []
    for kind in INPUT_KINDS:
        paths = [p for p, v in all_spots if applicable(kind, p, v, None)]
        out.extend(Case(family, backend, kind, p) for p in _even(paths, per_kind))
    tpaths = tolerance_spots(task.tolerances)
    for kind in TOLERANCE_KINDS:
        out.extend(Case(family, backend, kind, p) for p in _even(tpaths, per_kind))
    return out


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout


@dataclass
class Outcome:
    case: Case
    verdict: str  # refused | accepted | non_psab | reference_fails | tolerance_accepted | timeout
    seconds: float
    detail: str = ""
    named_field: bool = True


def build(case: Case) -> Any:
    """The broken task (or the PsabError that refused to pose it)."""
    import psab
    from psab.contract import Task

    spec = psab.get_family(case.family)
    public = spec.public_task()
    data = public.to_dict()
    if case.kind in TOLERANCE_KINDS:
        data["tolerances"] = mutate_tolerance(public.tolerances, case.kind, case.path)
        return Task.from_dict(data, key=copy.deepcopy(public.key))
    inputs = mutate(public.public_inputs, case.kind, case.path)
    try:  # the submission schema follows the broken inputs, as a generator's would
        return spec.make_task(task_id=public.id, split=public.split, public_inputs=inputs, key=copy.deepcopy(public.key))
    except psab.PsabError:
        pass
    data["public_inputs"] = inputs  # a hand-edited task.json: the original schema over broken inputs
    return Task.from_dict(data, key=copy.deepcopy(public.key))


def run_case(case: Case, timeout_s: float = TIMEOUT_S) -> Outcome:
    import psab

    start = time.perf_counter()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        try:
            task = build(case)
            ref = psab.solve(task, case.backend)
            result = psab.evaluate(task, {"answer": ref.answer}, case.backend)
        except _Timeout:
            return Outcome(case, "timeout", time.perf_counter() - start)
        except psab.PsabError as exc:
            msg = str(exc)
            # the field named as a JSON pointer: "public_inputs/x/0 ..." or "<family>: /x/0: ..."
            named = case.kind in TOLERANCE_KINDS or "public_inputs" in msg or re.search(r"(^|\s)/[A-Za-z_]", msg) is not None
            return Outcome(case, "refused", time.perf_counter() - start, f"{type(exc).__name__}: {msg[:300]}", named)
        except Exception as exc:  # noqa: BLE001 - what the sweep looks for
            return Outcome(case, "non_psab", time.perf_counter() - start, f"{type(exc).__name__}: {str(exc)[:300]}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    took = time.perf_counter() - start
    if case.kind in TOLERANCE_KINDS:
        return Outcome(case, "tolerance_accepted", took, f"score {result.score}")
    if "evaluator_error" in result.evidence or not result.feasible or result.score != 1.0:
        detail = result.evidence.get("evaluator_error") or (
            f"score {result.score}; " + "; ".join(v.describe() for v in result.violations[:2]))
        return Outcome(case, "reference_fails", took, str(detail)[:300])
    return Outcome(case, "accepted", took)


def baseline_s(family: str, backend: str) -> float:
    """Wall time of the unbroken public task (solve + evaluate of its reference, cache cleared),
    after one untimed run that pays the imports: what a broken task's time compares with."""
    import psab
    from psab.evaluators.cache import clear_reference_cache

    task = psab.get_family(family).public_task()
    psab.evaluate(task, psab.solve(task, backend), backend)
    clear_reference_cache()
    start = time.perf_counter()
    psab.evaluate(task, psab.solve(task, backend), backend)
    return time.perf_counter() - start


@dataclass
class Summary:
    outcomes: list[Outcome] = field(default_factory=list)
    baselines: dict[tuple[str, str], float] = field(default_factory=dict)

    def figures(self) -> dict[str, Any]:
        verdicts = Counter(o.verdict for o in self.outcomes)
        slow = [o for o in self.outcomes if o.seconds > SLOW_S]
        return {
            "mutated_tasks": len(self.outcomes),
            "refused": verdicts["refused"],
            "accepted": verdicts["accepted"],
            "non_psab_exceptions": verdicts["non_psab"],
            "accepted_reference_fails": verdicts["reference_fails"],
            "non_finite_tolerance_accepted": verdicts["tolerance_accepted"],
            "timeouts": verdicts["timeout"],
            "over_5s": len(slow),
            # a slow broken task beside the unbroken task's own time under the same backend
            "over_5s_cases": [f"{o.case.family}/{o.case.backend} {o.case.kind} /{'/'.join(map(str, o.case.path))}: "
                              f"{o.seconds:.1f} s (unbroken {self.baselines.get((o.case.family, o.case.backend), math.nan):.1f} s)"
                              for o in slow],
            "unbroken_over_5s": {f"{f}/{b}": round(t, 1) for (f, b), t in self.baselines.items() if t > SLOW_S},
            "refused_without_field": sum(o.verdict == "refused" and not o.named_field for o in self.outcomes),
            "refused_as_solver_error": sum(o.verdict == "refused" and o.detail.startswith("SolverError") for o in self.outcomes),
            "worst_s": round(max((o.seconds for o in self.outcomes), default=0.0), 3),
            "families_with_failures": sorted({o.case.family for o in self.outcomes if o.verdict in
                                              ("non_psab", "reference_fails", "tolerance_accepted", "timeout")}),
        }


def declared_backends(family: str, only: str | None = None, skip: tuple[str, ...] = ()) -> list[str]:
    import psab
    from psab import backends

    out = []
    for b in psab.get_family(family).backends:
        if (only is not None and b != only) or b in skip:
            continue
        try:
            backends.require(b)
        except psab.PsabError:
            continue
        out.append(b)
    return out


def sweep(families: list[str], per_kind: int | None, backend: str | None = None, log: Any = None,
          skip: tuple[str, ...] = ()) -> Summary:
    from psab.evaluators.cache import clear_reference_cache

    summary = Summary()
    for family in families:
        for b in declared_backends(family, backend, skip):
            summary.baselines[(family, b)] = baseline_s(family, b)
            clear_reference_cache()
            t0 = time.perf_counter()
            for case in cases(family, b, per_kind):
                o = run_case(case)
                summary.outcomes.append(o)
                if log is not None and (o.verdict not in ("refused", "accepted") or o.seconds > SLOW_S):
                    print(f"  {o.verdict:20s} {o.seconds:6.2f}s {family}/{b} {case.kind} "
                          f"/{'/'.join(map(str, case.path))}: {o.detail}", file=log, flush=True)
            clear_reference_cache()
            if log is not None:
                n = sum(o.case.family == family and o.case.backend == b for o in summary.outcomes)
                print(f"{family}/{b}: {n} cases in {time.perf_counter() - t0:.1f}s", file=log, flush=True)
    return summary


def main(argv: list[str] | None = None) -> int:
    import psab

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-kind", type=int, default=6, help="spots per mutation kind per family (0: all)")
    ap.add_argument("--family", action="append", help="only these families")
    ap.add_argument("--backend", help="only this backend")
    ap.add_argument("--skip-backend", action="append", default=[], help="not this backend (repeatable)")
    ap.add_argument("--json", help="write every outcome here")
    args = ap.parse_args(argv)
    families = args.family or [s.id for s in psab.families()]
    summary = sweep(families, args.per_kind or None, args.backend, log=sys.stderr, skip=tuple(args.skip_backend))
    figures = summary.figures()
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps({"figures": figures, "outcomes": [
            {"family": o.case.family, "backend": o.case.backend, "kind": o.case.kind, "path": list(o.case.path),
             "verdict": o.verdict, "seconds": round(o.seconds, 4), "detail": o.detail, "named_field": o.named_field}
            for o in summary.outcomes]}, indent=1))
    bad = figures["non_psab_exceptions"] + figures["accepted_reference_fails"] + figures["non_finite_tolerance_accepted"]
    return 1 if bad or figures["over_5s"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
