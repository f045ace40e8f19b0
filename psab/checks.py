"""``psab check``: every artifact valid, every sample solution evaluated, every reference
solved and scored 1 on its public case, every golden case matched — one table."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from psab import backends as _backends


@dataclass
class CheckReport:
    header: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    #: What families still lack of a complete family (the conformance suite requires none).
    missing: list[str] = field(default_factory=list)
    summary: str = ""


def run_checks(backends: Sequence[str] | None = None, families: Sequence[str] | None = None) -> CheckReport:
    import psab
    from psab.evaluators.cache import clear_reference_cache
    from psab.golden import check_golden, load_golden
    from psab.paths import case_dir, golden_dirs

    wanted = list(backends) if backends else [b for b in _backends.BACKENDS if _backends.available(b)]
    for b in wanted:
        _backends.require(b)
    report = CheckReport(header=("family", "kind", "artifacts", "sample", *[f"reference:{b}" for b in wanted], "golden",
                                 "complete"))
    specs = [s for s in (*psab.families(), *psab.studies()) if not families or s.id in families]
    n_golden = n_golden_ok = 0
    for spec in specs:
        row: list[str] = [spec.id, spec.scoring_kind]
        fails_before = len(report.failures)
        try:
            task = spec.public_task()
            rebuilt = spec.make_task(task_id=task.id, split=task.split, public_inputs=task.public_inputs).to_dict()
            if rebuilt != task.to_dict():
                report.failures.append(f"{spec.id}: task.json is stale (run `psab refresh-cases`)")
            row.append("ok" if len(report.failures) == fails_before else "STALE")
        except psab.PsabError as exc:
            report.failures.append(f"{spec.id}: {exc}")
            report.rows.append((*row, "INVALID", *["-"] * (len(report.header) - 4)))
            continue
        sample = psab.evaluate(task, case_dir(spec.id) / "solution.json")
        row.append(f"{sample.score:.3f}" if sample.feasible else "infeasible")
        if not sample.feasible:
            report.failures.append(f"{spec.id}: sample solution infeasible: {sample.violations[0].describe()}")
        for b in wanted:
            if b not in spec.backends:
                row.append("n/a")
                continue
            clear_reference_cache()  # time a real solve, not the sample's cached reference
            t0 = time.perf_counter()
            try:
                result = psab.evaluate(task, psab.solve(task, b), b)
            except psab.PsabError as exc:
                report.failures.append(f"{spec.id} [{b}]: reference failed: {exc}")
                row.append("FAILED")
                continue
            ms = (time.perf_counter() - t0) * 1e3
            ok = result.perfect
            row.append(f"{result.score:.3f} ({ms:.0f} ms)" if ok else f"FAIL {result.score:.3f}")
            if not ok:
                report.failures.append(f"{spec.id} [{b}]: reference scored {result.score} feasible={result.feasible}")
        cases = [load_golden(d) for d in golden_dirs(spec.id)]
        passed = 0
        for case in cases:
            problems = [p for b in case.backends if b in wanted for p in check_golden(case, b)]
            report.failures.extend(problems)
            passed += not problems
        n_golden += len(cases)
        n_golden_ok += passed
        row.append(f"{passed}/{len(cases)}" if cases else "-")
        # What the family still lacks of a complete one (docs/adding-a-family.md), said in full.
        missing = spec.missing_pieces() + ([] if cases else ["a golden case (golden/<id>/<case>/)"])
        row.append("yes" if not missing else f"{len(missing)} missing")
        report.missing.extend(f"{spec.id}: {m}" for m in missing)
        report.rows.append(tuple(row))
    ok = not report.failures
    report.summary = (
        f"{len(specs)} families, backends: {', '.join(wanted)}; golden cases {n_golden_ok}/{n_golden}; "
        + ("all checks passed" if ok else f"{len(report.failures)} failures")
        + (f"; {len(report.missing)} pieces missing (listed below)" if report.missing else "")
    )
    return report
