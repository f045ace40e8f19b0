"""Evaluation bombs: the worst time and memory of ``psab.evaluate`` on hostile solutions.

Issue 12, item 5: any solution within the runner's size cap (``SOLUTION_LIMIT``, 8 MB) must
evaluate in under 1 s and under 200 MB on every family. Each bomb is built for every one of
the 17 families from its public case — aimed at the first field of its submission schema —
and evaluated as the runner and ``psab evaluate`` do (a solution file) or, for bombs only the
Python API can hand over (objects, a 50 MB string), as a dict. Every bomb runs in its own
process so the peak resident set size (``ru_maxrss``) is its own.

Columns: worst wall time over the families (plain run, not traced); worst ``tracemalloc``
peak of one evaluation (a second, traced run; numpy registers its allocations there too);
growth of the process's peak RSS over the warmed-up baseline; the most violations listed and
the largest result JSON.

``--fuzz N`` instead evaluates N seeded random hostile solutions per family (Python objects
and JSON text: huge integers, lone surrogates, non-JSON objects, raising mappings, long arrays
and strings, deep nesting, floods of fields, NaN — placed at a random node of the reference
answer, in the rationale or in an extra key) and reports answers tried, raised, worst time
and worst ``tracemalloc`` peak.

Usage: ``python benchmarks/bench_bombs.py [--bomb NAME ...] [--family ID ...] [--fuzz N]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MB = 1024 * 1024
LIMIT = 8 * MB  # psab.runner.execute.SOLUTION_LIMIT, checked in main()


def _first_field(task: Any) -> str:
    return next(iter(task.submission_schema["properties"]))


def _fill(unit: str, head: str, tail: str, size: int = LIMIT) -> str:
    """``head`` + as many ``unit`` joined by commas as fit in ``size`` bytes + ``tail``."""
    n = (size - len(head) - len(tail)) // (len(unit) + 1)
    return head + ",".join([unit] * n) + tail


def _doc(answer_text: str, extra: str = "") -> str:
    return '{"answer": ' + answer_text + extra + "}"


def _wide(value: Any) -> Any:
    """Every array at 100 items (each item widened too), every object with 100 unexpected fields."""
    if isinstance(value, dict):
        return {**{k: _wide(v) for k, v in value.items()}, **{f"x{i}": i for i in range(100)}}
    if isinstance(value, list) and value:
        return [_wide(value[0])] * 100
    return value


def _extras(value: Any) -> Any:
    """The reference's shape, every object with 100 unexpected fields of 10 NaNs each."""
    if isinstance(value, dict):
        return {**{k: _extras(v) for k, v in value.items()}, **{f"x{i}": [float("nan")] * 10 for i in range(100)}}
    if isinstance(value, list):
        return [_extras(v) for v in value]
    return value


def _nan_everywhere(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _nan_everywhere(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_everywhere(v) for v in value]
    return float("nan") if isinstance(value, (int, float)) and not isinstance(value, bool) else value


# Each bomb: name -> (description, builder(task, reference answer) -> str (file text) or dict (API)).
def _bombs() -> dict[str, tuple[str, Callable[[Any, dict[str, Any]], Any]]]:
    big = "7" * 5000

    def in_first(task: Any, ans: dict[str, Any], text: str) -> str:
        f = _first_field(task)
        rest = json.dumps({k: v for k, v in ans.items() if k != f})[1:]
        return _doc("{" + json.dumps(f) + ": " + text + ("," + rest if rest != "}" else "}"))

    return {
        "empty_objects_300k": ("100,000 {} in the first field (the issue's 300 KB case), file",
                               lambda t, a: in_first(t, a, "[" + ",".join(["{}"] * 100_000) + "]")),
        "empty_objects_8mb": ("8 MB of {} in the first field, file",
                              lambda t, a: _fill("{}", '{"answer": {"' + _first_field(t) + '": [', "]}}")),
        "zeros_8mb": ("8 MB array of 0 (4.2 M items), file",
                      lambda t, a: _fill("0", '{"answer": {"' + _first_field(t) + '": [', "]}}")),
        "array_1e6_api": ("10^6-item list in the first field, Python API",
                          lambda t, a: {"answer": {**a, _first_field(t): [0.0] * 1_000_000}}),
        "nested_extra_api": ("extra field of 100x100x100 nested lists, Python API",
                             lambda t, a: {"answer": {**a, "extra": [[[1.0] * 100] * 100] * 100}}),
        "string_8mb": ("8 MB string in the first field, file",
                       lambda t, a: in_first(t, a, json.dumps("s" * (LIMIT - 4096)))),
        "string_50mb_api": ("50 MB string in the first field and in rationale, Python API",
                            lambda t, a: {"answer": {**a, _first_field(t): "s" * (50 * MB)}, "rationale": "r" * (50 * MB)}),
        "extra_keys_100k": ("100,000 unexpected fields, file",
                            lambda t, a: _doc(json.dumps({**a, **{f"k{i}": 0 for i in range(100_000)}}))),
        "deep_100k": ("'[' * 100,000 in the first field, file", lambda t, a: in_first(t, a, "[" * 100_000)),
        "deep_20k_api": ("20,000-deep list in the first field, Python API",
                         lambda t, a: {"answer": {**a, _first_field(t): _nest(20_000)}}),
        "bigint_5000": ("5,000-digit integers in the first field, rationale and an extra key, file",
                        lambda t, a: in_first(t, a, big)[:-1] + f', "rationale": {big}, "x": [{big}]}}'),
        "bigints_8mb": ("8 MB of 5,000-digit integers in the first field, file",
                        lambda t, a: _fill(big, '{"answer": {"' + _first_field(t) + '": [', "]}}")),
        "bigints_4299_8mb": ("8 MB of 4,299-digit integers (just convertible), file",
                             lambda t, a: _fill("7" * 4299, '{"answer": {"' + _first_field(t) + '": [', "]}}")),
        "ints_100_digits_8mb": ("8 MB of 100-digit integers (the longest converted), file",
                               lambda t, a: _fill("7" * 100, '{"answer": {"' + _first_field(t) + '": [', "]}}")),
        "values_499k": ("499,000 small integers in the first field (just under the value cap), file",
                        lambda t, a: in_first(t, a, "[" + ",".join(["12345"] * 499_000) + "]")),
        "strings_under_cap": ("499,000 two-letter strings in an unexpected field (just under the value cap), file",
                              lambda t, a: _doc(json.dumps(a)[:-1] + ', "x": [' + ",".join(['"ab"'] * 499_000) + "]}")),
        "lists_under_cap": ("249,000 empty lists (two punctuation marks each) in the first field, file",
                            lambda t, a: in_first(t, a, "[" + ",".join(["[]"] * 249_000) + "]")),
        "wide_everywhere": ("every array 100 items, every object 100 unexpected fields, file",
                            lambda t, a: _doc(json.dumps(_wide(a)))),
        "extras_everywhere": ("every object with 100 unexpected fields of 10 NaNs, file",
                              lambda t, a: _doc(json.dumps(_extras(a)))),
        "nan_everywhere": ("the reference's shape with every number NaN, file",
                           lambda t, a: _doc(json.dumps(_nan_everywhere(a)))),
        "surrogates": ("1,000 unexpected fields named and valued with lone surrogates, file",
                       lambda t, a: _doc(json.dumps(a)[:-1] + "," + ",".join(f'"\\ud8{i % 100:02d}{i}": "\\udc00"'
                                                                            for i in range(1000)) + "}")),
    }


def _nest(depth: int) -> Any:
    v: Any = 1.0
    for _ in range(depth):
        v = [v]
    return v


class _Raising(dict):  # a mapping whose reading raises
    def items(self):  # type: ignore[override]
        raise RuntimeError("hostile mapping")

    def __iter__(self):  # type: ignore[override]
        raise RuntimeError("hostile mapping")


def _hostile(rng: Any) -> Any:
    """One hostile Python value."""
    k = rng.randrange(14)
    if k == 0:
        return rng.choice([10**5000, -(10**4400), 10**400])
    if k == 1:
        return rng.choice([1 + 2j, {1, 2}, frozenset(), b"x", range(3), object()])
    if k == 2:
        return _Raising(a=1)
    if k == 3:
        return "".join(chr(rng.choice([0xD800, 0xDFFF, 0x41, 0xE9])) for _ in range(rng.randint(1, 6)))
    if k == 4:
        return [rng.random()] * rng.choice([25, 101, 10_000, 1_000_000])
    if k == 5:
        return "s" * rng.choice([300, 5000, 1_000_000])
    if k == 6:
        return _nest(rng.choice([10, 65, 5000]))
    if k == 7:
        return {f"\ud800{i}" if rng.random() < 0.5 else f"x{i}": i for i in range(rng.choice([3, 150, 20_000]))}
    if k == 8:
        return rng.choice([float("nan"), float("inf"), -1e300, 1e13])
    if k == 9:
        return {chr(0xD800): rng.random()}
    if k == 10:
        return [{}] * rng.choice([10, 100_000])
    if k == 11:
        return {1: 2, (3,): 4}
    if k == 12:
        return tuple(rng.random() for _ in range(rng.randint(0, 30)))
    return None


_LITERALS = ["7" * 5000, "-" + "9" * 4301, "1" * 150, '"\\ud800"', '"\\udfff\\ud800x"', "1e99999", "NaN",
             "[" * 70 + "]" * 70, "[" * 100_000, "[" + ",".join(["{}"] * 100_000) + "]", '"' + "s" * 100_000 + '"']


def _place(answer: Any, rng: Any, value: Any) -> Any:
    """A copy of ``answer`` with one random node replaced by ``value``."""
    out = json.loads(json.dumps(answer))
    node: Any = out
    for _ in range(rng.randint(0, 4)):
        kids = list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        if not kids:
            break
        k = rng.choice(kids)
        if not isinstance(node[k], (dict, list)) or rng.random() < 0.3:
            node[k] = value
            return out
        node = node[k]
    if isinstance(node, dict):
        node[rng.choice(list(node) + ["extra"])] = value
    elif isinstance(node, list) and node:
        node[rng.randrange(len(node))] = value
    return out


def fuzz(n: int, families: list[str]) -> None:
    import random

    import psab
    from psab.io import SolutionProblem, parse_solution_text
    from psab.paths import case_dir

    tried = raised = 0
    worst_s, worst_mb, worst_s_what, worst_mb_what = 0.0, 0.0, "", ""
    errors: list[str] = []
    for f in families:
        rng = random.Random(f"psab-fuzz-{f}")
        task = psab.load_case(case_dir(f))
        ref = psab.solve(task).answer
        psab.evaluate(task, {"answer": ref})
        for i in range(n):
            kind = rng.choice(["api", "api", "text"])
            if kind == "api":
                where = rng.choice(["field", "field", "field", "rationale", "key"])
                value = _hostile(rng)
                try:
                    if where == "field":
                        solution: Any = {"answer": _place(ref, rng, value)}
                    elif where == "rationale":
                        solution = {"answer": ref, "rationale": value, "task_id": value}
                    else:
                        solution = {"answer": ref, "x": {"k": value}}
                except (TypeError, ValueError, RecursionError):  # json round trip of the reference only
                    continue
            else:
                literal = rng.choice(_LITERALS)
                where = rng.choice(["field", "rationale", "extra"])
                marker = "__PSAB_FUZZ__"
                doc = json.dumps({"answer": _place(ref, rng, marker)} if where == "field" else
                                 {"answer": ref, where: marker}).replace(f'"{marker}"', literal).encode("utf-8")
            tried += 1
            what = f"{f} #{i} ({kind}, {where})"
            tracemalloc.start()
            t0 = time.perf_counter()
            try:
                if kind == "text":  # parsing is part of the cost, as in the runner
                    try:
                        solution = parse_solution_text(doc)
                    except SolutionProblem:
                        solution = None  # rejected before evaluation (evaluate(path) reports it)
                if solution is not None:
                    result = psab.evaluate(task, solution)
                    result.to_json().encode("utf-8")
                    if "evaluator_error" in result.evidence:
                        raise RuntimeError(result.evidence["evaluator_error"])
            except Exception as exc:  # noqa: BLE001 - counting is the point
                raised += 1
                errors.append(f"{what}: {type(exc).__name__}: {str(exc)[:120]}")
            elapsed = time.perf_counter() - t0
            peak = tracemalloc.get_traced_memory()[1] / MB
            tracemalloc.stop()
            if elapsed > worst_s:
                worst_s, worst_s_what = elapsed, what
            if peak > worst_mb:
                worst_mb, worst_mb_what = peak, what
    print(f"fuzz: {tried} answers tried over {len(families)} families, {raised} raised; worst time {worst_s:.3f} s "
          f"({worst_s_what}, traced), worst tracemalloc peak {worst_mb:.1f} MB ({worst_mb_what})")
    for e in errors[:20]:
        print("  ", e)


def child(bomb: str, families: list[str]) -> None:
    import psab
    from psab.paths import case_dir

    tasks = {f: psab.load_case(case_dir(f)) for f in families}
    refs = {f: psab.solve(t).answer for f, t in tasks.items()}
    for f, t in tasks.items():  # warm: references cached, validators compiled
        psab.evaluate(t, {"answer": refs[f]})
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    _, build = _bombs()[bomb]
    tmp = Path(tempfile.mkdtemp(prefix="psab-bombs-"))
    for f, t in tasks.items():
        made = build(t, refs[f])
        if isinstance(made, str):
            path = tmp / "solution.json"
            path.write_bytes(made.encode("utf-8", "surrogatepass"))
            size = path.stat().st_size
            if size > LIMIT:
                raise SystemExit(f"{bomb}: {size} bytes is over the runner's cap")
            solution: Any = path
            made = None
        else:
            solution, size = made, None
        t0 = time.perf_counter()
        result = psab.evaluate(t, solution)
        wall = time.perf_counter() - t0
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        text = result.to_json()
        text.encode("utf-8")  # must be writable as UTF-8
        del result
        tracemalloc.start()
        psab.evaluate(t, solution)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        del solution, made
        print(json.dumps({"family": f, "wall_s": wall, "peak_mb": peak / MB, "rss_growth_mb": (rss - base) / 1024,
                          "violations": len(json.loads(text)["violations"]), "result_kb": len(text) / 1024,
                          "size_mb": size / MB if size else None}), flush=True)


def main() -> None:
    from psab.runner.execute import SOLUTION_LIMIT

    assert SOLUTION_LIMIT == LIMIT, "the runner's solution cap changed; update LIMIT"
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bomb", action="append")
    ap.add_argument("--family", action="append")
    ap.add_argument("--fuzz", type=int, metavar="N", help="N random hostile solutions per family instead")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    import psab

    families = args.family or [s.id for s in psab.families()]
    if args.child:
        child(args.child, families)
        return
    if args.fuzz:
        fuzz(args.fuzz, families)
        return
    from common import print_table

    rows = []
    worst_wall = worst_peak = worst_rss = 0.0
    for name in args.bomb or list(_bombs()):
        desc = _bombs()[name][0]
        cmd = [sys.executable, __file__, "--child", name] + [x for f in families for x in ("--family", f)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
        if proc.returncode != 0 or len(lines) != len(families):
            rows.append((name, desc, f"FAILED ({proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}", "", "", "", ""))
            continue
        w = max(lines, key=lambda r: r["wall_s"])
        p = max(lines, key=lambda r: r["peak_mb"])
        rss = max(r["rss_growth_mb"] for r in lines)
        worst_wall, worst_peak, worst_rss = max(worst_wall, w["wall_s"]), max(worst_peak, p["peak_mb"]), max(worst_rss, rss)
        rows.append((name, desc, f"{w['wall_s']:.3f} ({w['family']})", f"{p['peak_mb']:.1f} ({p['family']})", f"{rss:.0f}",
                     max(r["violations"] for r in lines), f"{max(r['result_kb'] for r in lines):.1f}"))
    print_table(f"Evaluation bombs over {len(families)} families (worst per bomb)",
                ("bomb", "what", "worst s (family)", "tracemalloc peak MB (family)", "RSS growth MB", "max violations",
                 "max result KB"), rows)
    print(f"\nworst: {worst_wall:.3f} s, tracemalloc peak {worst_peak:.1f} MB, RSS growth {worst_rss:.0f} MB "
          f"(target < 1 s and < 200 MB)")


if __name__ == "__main__":
    main()
