"""``psab regrade``: re-score a run's stored solutions under the current evaluators.

Every *scored* attempt (the agent exited cleanly and wrote a JSON object) is evaluated again,
from the ``solution.json`` the run kept, against the task the record was run on
(:mod:`psab.reports.tasks`), with the run's backend. An attempt whose verdict (feasible) or score
differs from the stored one is a change, reported with both evaluator versions. Agent failures
are not regraded — the runner scores them 0 whatever their file holds — and infrastructure
failures have nothing to score.

``write`` keeps the regrade beside the run, never over it:

- ``RUN_DIR/regrades/<stamp>/`` — the public split as a run directory of its own (``manifest.json``
  naming the original run, ``records.jsonl`` with the new results, each regraded attempt's
  ``solution.json`` and new ``result.json``) plus ``regrade.json``, the list of changes; so
  ``psab report RUN_DIR/regrades/<stamp>`` shows the run as the current evaluators see it;
- ``RUN_DIR/private/regrades/<stamp>/`` — the same for the held-out split (private, like every
  held-out per-case file).

The held-out split is regraded only with the run's seed (checked against its commitment) and
its private records present.

**Fleet runs** (``psab run --tier fleet``; issue 23) are regraded the way the fleet runner
graded them (:func:`psab.fleet.grading.grade_one`, its record summary
:func:`psab.runner.fleet.result_summary`) against the keys the run used (the keys directory its
manifest names), from each scored attempt's stored ``solution.json`` and the evidence its tools
returned: the ``retrieved_evidence`` the tool session wrote into ``result.json`` (the windows
actually returned, metrics included), else read off the attempt's ``tools.jsonl``. A question
whose text changed since the run (its digest differs from the record's) is not regraded. The
evaluator version is ``fleet_<family>@<FLEET_VERSION>+psab-<version>``
(:mod:`psab.fleet.evaluate`).
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from psab.errors import RunnerError
from psab.jsonpointer import clone
from psab.reports import tasks as _tasks
from psab.reports.qc import _case_name
from psab.runner.execute import SCORED, _summary
from psab.runner.store import (
    PRIVATE,
    RECORDS,
    SPLITS,
    RunDir,
    attempt_path,
    check_seed,
    record_line,
    write_atomic,
)

#: Scores closer than this are the same score (evaluation is deterministic; this absorbs nothing
#: but a JSON round trip).
SCORE_EPS = 1e-12


@dataclass(frozen=True)
class Change:
    split: str
    agent: str
    family: str
    task_id: str
    index: int | None
    attempt: int
    final: bool
    old_feasible: bool
    old_score: float
    new_feasible: bool
    new_score: float
    old_version: str
    new_version: str
    new_violations: tuple[str, ...] = ()


@dataclass(frozen=True)
class Skipped:
    split: str
    agent: str
    task_id: str
    reason: str


@dataclass
class RegradeReport:
    run_dir: Path
    splits: list[str]  # the splits regraded
    held: list[str] = field(default_factory=list)  # the splits the run holds (its manifest's)
    regraded: int = 0
    unchanged: int = 0
    not_scored: int = 0
    changes: list[Change] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"format": "psab-regrade-v1", "run_dir": str(self.run_dir), "splits": self.splits, "held": self.held,
                "regraded": self.regraded, "unchanged": self.unchanged, "not_scored": self.not_scored,
                "changes": [asdict(c) | {"new_violations": list(c.new_violations)} for c in self.changes],
                "skipped": [asdict(s) for s in self.skipped], "notes": self.notes,
                "written": [str(p) for p in self.written]}


def _old_version(attempt_dir: Path, record: dict[str, Any], manifest: dict[str, Any]) -> str:
    try:
        old = json.loads((attempt_dir / "result.json").read_text(encoding="utf-8"))
        if isinstance(old, dict) and old.get("evaluator_version"):
            return str(old["evaluator_version"])
    except (OSError, ValueError):
        pass
    # The runner always writes result.json; without it, the version is what the run's own
    # family version and psab version imply.
    return f"{record['family']}@{record.get('family_version', '?')}+psab-{manifest.get('psab_version', '?')} (inferred)"


def regrade(run_dir: str | Path, *, seed: str | None = None, write: bool = False) -> RegradeReport:
    """Re-score ``run_dir``'s stored solutions; see the module docstring."""
    import psab
    from psab.evaluators.kernel import evaluator_version
    from psab.runner.execute import _checked_evaluate

    rd = RunDir(run_dir)
    manifest = rd.manifest()
    if manifest.get("tier") == "fleet":
        if seed is not None:
            raise RunnerError(f"{run_dir} is a fleet run: it has no held-out split to regrade; drop the seed")
        return _regrade_fleet(rd, manifest, Path(run_dir), write=write)
    backend = str((manifest.get("options") or {}).get("backend") or "surrogate")
    # The splits the run was asked for (a run made before "splits" was recorded was public only).
    held = [s for s in SPLITS if s in (manifest.get("splits") or ["public"])]
    splits = ["public"] if "public" in held else []
    has_private = rd.records_path("heldout").is_file()
    rep = RegradeReport(Path(run_dir), splits, held)
    if seed is not None:
        if "heldout" not in manifest or not has_private:
            raise RunnerError(f"{run_dir} has no held-out records (private/{RECORDS}) to regrade; drop the seed")
        h = manifest["heldout"]
        check_seed(seed, h.get("commitment_version"), h)
        splits.append("heldout")
    elif "heldout" in manifest:
        rep.notes.append("the held-out split was not regraded: it needs the run's seed ($PSAB_SEED or --seed) "
                         "and its private records")

    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    cache: dict[str, Any] = {}
    new_records: dict[str, list[dict[str, Any]]] = {s: [] for s in splits}
    new_files: dict[str, dict[str, bytes]] = {s: {} for s in splits}
    for split in splits:
        for rec in rd.records(split):
            out_rec = clone(rec)
            if split == "public":
                got = _tasks.public_task(rec, cache, stored=rd.stored_task_dir(str(rec["task_id"])))
            else:
                assert seed is not None
                got = _tasks.heldout_task(rec, seed, backend, cache)
            attempts = out_rec.get("attempts") or []
            for att in attempts:
                if att.get("class") != SCORED:
                    rep.not_scored += 1
                    continue
                if not got.usable:
                    rep.skipped.append(Skipped(split, rec["agent"], rec["task_id"], got.detail or got.status))
                    continue
                assert got.task is not None
                n = int(att.get("n", 1))
                adir = rd.attempt_dir(split, str(rec["agent"]), str(rec["task_id"]), n)
                sol_path = adir / "solution.json"
                try:
                    data = sol_path.read_bytes()
                    parsed = json.loads(data.decode("utf-8"))
                except (OSError, UnicodeDecodeError, ValueError, RecursionError):
                    rep.skipped.append(Skipped(split, rec["agent"], rec["task_id"],
                                               f"attempt {n}: the stored solution.json is missing or unreadable"))
                    continue
                result = _checked_evaluate(got.task, parsed, backend)
                old = att.get("result") or {}
                old_feasible = bool(old.get("feasible"))
                old_score = float(old.get("score", 0.0))
                rep.regraded += 1
                new_version = evaluator_version(psab.get_family(got.task.family))
                old_version = _old_version(adir, rec, manifest)
                if result.feasible != old_feasible or abs(result.score - old_score) > SCORE_EPS:
                    rep.changes.append(Change(
                        split, str(rec["agent"]), str(rec["family"]), str(rec["task_id"]), rec.get("index"), n,
                        n == int(attempts[-1].get("n", len(attempts))), old_feasible, old_score, result.feasible,
                        result.score, old_version, new_version,
                        tuple(v.describe() for v in result.violations[:5])))
                else:
                    rep.unchanged += 1
                att["regrade"] = {"old_result": old, "old_evaluator_version": old_version,
                                  "evaluator_version": new_version, "case": got.status}
                if rec.get("tier") == "study":
                    from psab.runner.study import study_summary

                    att["result"] = study_summary(result)  # the deliverable scores, as the run recorded them
                else:
                    att["result"] = _summary(result)
                prefix = attempt_path(str(rec["agent"]), str(rec["task_id"]), n) + "/"
                new_files[split][prefix + "solution.json"] = data
                new_files[split][prefix + "result.json"] = result.to_json().encode()
            if attempts:
                out_rec["result"] = attempts[-1].get("result")
            new_records[split].append(out_rec)
    if write:
        rep.written = _write(rd, manifest, stamp, rep, new_records, new_files)
    return rep


def _fleet_inputs(manifest: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str]:
    """The run's questions and keys by question id (empty, with the reason, when unreadable)."""
    from psab.runner.fleet import _jsonl

    opts = manifest.get("options") or {}
    try:
        qs = _jsonl(Path(str(opts.get("questions"))) / "questions.jsonl")
        ks = _jsonl(Path(str(opts.get("keys"))) / "keys.jsonl")
    except RunnerError as exc:
        return {}, {}, f"the run's questions or keys cannot be read: {exc}"
    return ({q.get("question_id"): q for q in qs if isinstance(q, dict)},
            {k.get("question_id"): k for k in ks if isinstance(k, dict)}, "")


def _regrade_fleet(rd: RunDir, manifest: dict[str, Any], run_dir: Path, *, write: bool) -> RegradeReport:
    """A fleet run's scored attempts graded again (module docstring, Fleet runs)."""
    import psab
    from psab.fleet import grading
    from psab.fleet.evaluate import FLEET_VERSION
    from psab.io import SolutionProblem, parse_solution_text
    from psab.runner.fleet import _read_log, evidence_from_log, question_digest, result_summary

    rep = RegradeReport(run_dir, ["public"], ["public"])
    questions, keys, problem = _fleet_inputs(manifest)
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    new_records: list[dict[str, Any]] = []
    new_files: dict[str, bytes] = {}
    rer_changed = 0
    for rec in rd.records("public"):
        out_rec = clone(rec)
        agent, qid, fam = str(rec["agent"]), str(rec["task_id"]), str(rec["family"])
        q, key = questions.get(qid), keys.get(qid)
        why = problem
        if not why and (q is None or key is None):
            why = f"the run's questions or keys hold no question {qid}"
        elif not why and question_digest(q) != rec.get("task_digest"):  # type: ignore[arg-type]
            why = "the question changed since the run (its digest differs from the record's)"
        attempts = out_rec.get("attempts") or []
        for att in attempts:
            if att.get("class") != SCORED:
                rep.not_scored += 1
                continue
            if why:
                rep.skipped.append(Skipped("public", agent, qid, why))
                continue
            n = int(att.get("n", 1))
            adir = rd.attempt_dir("public", agent, qid, n)
            try:
                data = (adir / "solution.json").read_bytes()
                parsed = parse_solution_text(data)
            except (OSError, SolutionProblem):
                rep.skipped.append(Skipped("public", agent, qid,
                                           f"attempt {n}: the stored solution.json is missing or unreadable"))
                continue
            old_full: Any = None
            try:
                old_full = json.loads((adir / "result.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                pass
            if isinstance(old_full, dict) and isinstance(old_full.get("retrieved_evidence"), list):
                retrieved = old_full["retrieved_evidence"]
            else:
                retrieved = evidence_from_log(_read_log(adir / "tools.jsonl"))
            assert key is not None and q is not None
            # as psab.runner.fleet.run_attempt grades a scored attempt
            grade = grading.grade_one(key, parsed, retrieved)
            cited = parsed.get("evidence") if isinstance(parsed, dict) else None
            grade["cited_rer"] = grading.recall(cited, key["required_evidence"])
            grade["question_id_matches"] = isinstance(parsed, dict) and parsed.get("question_id") == q["question_id"]
            summary = result_summary(grade, SCORED, str(att.get("reason") or ""))
            assert summary is not None
            old = att.get("result") or {}
            old_feasible, old_score = bool(old.get("feasible")), float(old.get("score", 0.0))
            new_version = f"fleet_{fam}@{FLEET_VERSION}+psab-{psab.__version__}"
            old_version = (str(old_full["evaluator_version"]) if isinstance(old_full, dict) and old_full.get("evaluator_version")
                           else f"fleet_{fam}+psab-{manifest.get('psab_version', '?')} (inferred)")
            rep.regraded += 1
            if summary["feasible"] != old_feasible or abs(float(summary["score"]) - old_score) > SCORE_EPS:
                rep.changes.append(Change("public", agent, fam, qid, None, n, n == int(attempts[-1].get("n", len(attempts))),
                                          old_feasible, old_score, bool(summary["feasible"]), float(summary["score"]),
                                          old_version, new_version, tuple(summary["violations"][:5])))
            else:
                rep.unchanged += 1
            if abs(float((old.get("fleet") or {}).get("rer", 0.0)) - float(grade["rer"])) > SCORE_EPS:
                rer_changed += 1
            att["regrade"] = {"old_result": old, "old_evaluator_version": old_version, "evaluator_version": new_version,
                              "case": "fleet key"}
            att["result"] = summary
            prefix = attempt_path(agent, qid, n) + "/"
            new_files[prefix + "solution.json"] = data
            new_files[prefix + "result.json"] = (json.dumps({**grade, "retrieved_evidence": retrieved,
                                                             "evaluator_version": new_version},
                                                            indent=1, sort_keys=True) + "\n").encode()
            try:
                new_files[prefix + "tools.jsonl"] = (adir / "tools.jsonl").read_bytes()
            except OSError:
                pass
        if attempts:
            out_rec["result"] = attempts[-1].get("result")
        new_records.append(out_rec)
    if rer_changed:
        rep.notes.append(f"the retrieved-evidence recall (RER) changed on {rer_changed} attempt(s)")
    if write:
        rep.written = _write(rd, manifest, stamp, rep, {"public": new_records}, {"public": new_files})
    return rep


def _fresh(path: Path) -> Path:
    p, i = path, 1
    while p.exists():
        i += 1
        p = path.with_name(f"{path.name}-{i}")
    return p


def _write(rd: RunDir, manifest: dict[str, Any], stamp: str, rep: RegradeReport,
           records: dict[str, list[dict[str, Any]]], files: dict[str, dict[str, bytes]]) -> list[Path]:
    import psab
    from psab.contract import dumps

    written = []
    for split, recs in records.items():
        root = _fresh((rd.path / PRIVATE / "regrades" / stamp) if split == "heldout" else (rd.path / "regrades" / stamp))
        root.mkdir(parents=True)
        for rel, content in files[split].items():
            target = root / "artifacts" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        text = "".join(record_line(r) + "\n" for r in recs)
        if split == "public":
            m = {k: v for k, v in manifest.items() if k != "heldout"}
            m.update(run_id=f"{manifest.get('run_id', rd.path.name)}-regrade-{stamp}", splits=["public"],
                     planned_cases=len(recs), created=_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                     regrade_of={"run_id": manifest.get("run_id"), "path": str(rd.path), "psab_version": psab.__version__})
            write_atomic(root / "manifest.json", dumps(m))
        write_atomic(root / RECORDS, text)
        changes = [asdict(c) | {"new_violations": list(c.new_violations)} for c in rep.changes if c.split == split]
        write_atomic(root / "regrade.json", dumps({"format": "psab-regrade-v1", "split": split, "regrade_of": str(rd.path),
                                                   "psab_version": psab.__version__, "changes": changes,
                                                   "skipped": [asdict(s) for s in rep.skipped if s.split == split]}))
        written.append(root)
    return written


def text(rep: RegradeReport) -> str:
    from psab.cli import table

    lines = [f"psab regrade {rep.run_dir} — the run holds {', '.join(rep.held) or 'no split'}; "
             f"regraded: {', '.join(rep.splits) or 'nothing'}",
             f"{rep.regraded} scored attempt(s) regraded: {len(rep.changes)} changed, {rep.unchanged} unchanged; "
             f"{rep.not_scored} attempt(s) not scored by the evaluator (agent or infrastructure failures) left as they were"]
    if rep.changes:
        body = []
        for c in rep.changes:
            case = _case_name(c.split, c.family, c.task_id, c.index)  # split is public or heldout
            verdict = ("feasible" if c.old_feasible else "infeasible") + " → " + ("feasible" if c.new_feasible else "infeasible")
            body.append((case, c.agent, f"{c.attempt}" + ("" if c.final else " (not final)"), verdict,
                         f"{c.old_score:.4f} → {c.new_score:.4f}",
                         f"{c.new_version} (same version)" if c.old_version == c.new_version else f"{c.old_version} → {c.new_version}"))
        lines.append("")
        lines.append(table(body, ("case", "agent", "attempt", "verdict", "score", "evaluator")))
    for s in rep.skipped:
        case = s.task_id
        lines.append(f"not regraded: {case} ({s.agent}, {s.split}): {s.reason}")
    for n in rep.notes:
        lines.append(f"note: {n}")
    for p in rep.written:
        lines.append(f"wrote {p}")
    return "\n".join(lines)
