"""``psab qc``: the quality-control rule of the paper (section 8.2) and the evaluator's sensitivity.

Three checks, each of which can reveal a defect in a task or an evaluator rather than in agents:

**Unanimous failures.** A case that every agent failed (no record of it, by any agent in any of
the given runs, scored 1; at least two agents ran it). The failures are then compared:

- an agent's failure is *answered* when its final attempt was scored (the agent exited cleanly
  and wrote a JSON object); agent failures (crash, timeout, malformed file) and infrastructure
  failures have no answer and cannot say anything about the task;
- the *violation signature* of an answered failure is the set of ``(field pattern, constraint
  pattern)`` pairs of every violation in its result: the field pattern is the JSON pointer with
  array indices replaced by ``*`` (``/schedule/3/p_mw`` → ``/schedule/*/p_mw``,
  :func:`psab.evaluators.tolerance.field_pattern`), the constraint pattern its words with every
  number replaced by ``#`` (a tolerance or an index quoted in the words does not make two
  failures of the same kind differ); the signature is empty for a feasible answer that scored
  below 1;
- the *answer digest* is the SHA-256 of the answer's canonical JSON with every number rounded to
  6 significant figures (so ``0.1`` and ``0.1000000001`` are the same answer);
- the failures are **the same way** when at least two agents answered and either every answered
  failure has the same non-empty violation signature, or every one has the same answer digest.
  That is the paper's pattern "every agent fails a task in the same way": a likely defect in the
  task's wording or the evaluator, to be confirmed or dismissed by inspection;
- they are **different ways** when at least two agents answered and neither holds: disagreement
  among agents is a genuine capability signal;
- they are **undetermined** when fewer than two agents answered.

**Beaten references.** A result whose evidence says ``beats_reference``: an agent's answer was
better than the reference solver's, so the reference was not optimal on that case (the score
was capped at 1).

**Sensitivity.** The share of mutated reference answers (:mod:`psab.mutations`) that the
evaluator caught, i.e. scored below 1. From the run: the records of built-in ``mutant`` agents
(one mutation per case). From the direct sweep (``--sensitivity``): every mutation of every
selected family's public reference answer, evaluated here without any agent. A mutation is
counted only when it is *effective* — it changes a value by more than the task's tolerance and
is not a ×1.05 nudge of a field the family declares ``mutation_exempt`` (the conformance suite's
rule); ineffective ones are reported apart, and so is a reordering of named records that keeps
the score (a study matches records by name). A family below 100 % is a defect: its evaluator
accepted a wrong answer.

**Fleet records** (``psab run --tier fleet``; issue 23) take part in the unanimous-failure
check only, per question: the violation signature of an answered fleet failure is the set of
its answer fields graded wrong (``/answer/<field>``, from the record's complete per-field
verdicts; ``/answer`` too when the answer broke the family's schema), the answer digest as
above. Beaten references and evaluator sensitivity do not apply to them (they are graded
against keys computed by executing the rules; no mutant agent runs on the fleet tier): the
report says so in one line instead of suggesting a mutant agent.

Held-out cases take part in every check, but their per-case details (signatures, answers,
objectives) are shown only with ``include_private``; otherwise a held-out finding names the
family and index and says what kind of finding it is.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from psab.reports.load import Entry, Runs
from psab.runner.execute import SCORED

SAME_WAY = "same_way"
DIFFERENT_WAYS = "different_ways"
UNDETERMINED = "undetermined"

#: Significant figures kept when digesting an answer.
DIGEST_DIGITS = 6


# ----------------------------------------------------------------------------- signatures


def _round(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return repr(value)
        return float(f"{value:.{DIGEST_DIGITS}g}")
    if isinstance(value, dict):
        return {str(k): _round(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_round(v) for v in value]
    return str(value)


def answer_digest(solution: Any) -> str | None:
    """Digest of a solution's answer with numbers rounded (module docstring); ``None`` if none."""
    if not isinstance(solution, dict) or "answer" not in solution:
        return None
    text = json.dumps(_round(solution["answer"]), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def constraint_pattern(constraint: str) -> str:
    """A constraint's words with every number replaced by ``#`` (``within ±0.003`` → ``within ±#``)."""
    return _NUMBER.sub("#", constraint)


def violation_signature(violations: Iterable[dict[str, Any]]) -> frozenset[tuple[str, str]]:
    """``{(field pattern, constraint pattern)}`` of a result's violations (module docstring)."""
    from psab.evaluators.tolerance import field_pattern

    return frozenset((field_pattern(str(v.get("field", ""))), constraint_pattern(str(v.get("constraint", ""))))
                     for v in violations)


# ----------------------------------------------------------------------------- findings


@dataclass(frozen=True)
class Failure:
    """One agent's failed record of a case."""

    agent: str
    run: str
    cls: str
    feasible: bool
    score: float
    answered: bool
    signature: tuple[tuple[str, str], ...]
    answer_digest: str | None
    reason: str = ""


@dataclass(frozen=True)
class Unanimous:
    """A case every agent failed."""

    split: str
    family: str
    task_id: str
    index: int | None
    task_digest: str
    verdict: str
    why: str
    agents: tuple[str, ...]
    failures: tuple[Failure, ...]

    @property
    def defect(self) -> bool:
        return self.verdict == SAME_WAY


@dataclass(frozen=True)
class Beaten:
    """An answer that beat the reference."""

    split: str
    family: str
    task_id: str
    index: int | None
    agent: str
    run: str
    score: float
    objective: Any
    reference_objective: Any


@dataclass(frozen=True)
class Sensitivity:
    """Caught share of mutations for one family (and kind, or ``"all"``)."""

    source: str  # "run" or "sweep"
    family: str
    kind: str
    effective: int
    caught: int
    ineffective: int = 0
    missed: tuple[str, ...] = ()
    remarks: tuple[str, ...] = ()

    @property
    def share(self) -> float | None:
        return self.caught / self.effective if self.effective else None

    @property
    def defect(self) -> bool:
        return self.kind == "all" and (self.effective == 0 or self.caught < self.effective)


@dataclass
class QcReport:
    runs: list[str]
    agents: list[str]
    cases: dict[str, int]
    unanimous: list[Unanimous] = field(default_factory=list)
    beaten: list[Beaten] = field(default_factory=list)
    run_sensitivity: list[Sensitivity] = field(default_factory=list)
    sweep_sensitivity: list[Sensitivity] = field(default_factory=list)
    include_private: bool = False
    notes: list[str] = field(default_factory=list)
    #: Records of the fleet tier among the runs' (module docstring, Fleet records) and of the
    #: compact tier.
    fleet_records: int = 0
    compact_records: int = 0

    @property
    def defects(self) -> list[str]:
        out = []
        for u in self.unanimous:
            if u.defect:
                out.append(f"unanimous same-way failure: {_case_name(u.split, u.family, u.task_id, u.index)}")
        for bt in self.beaten:
            out.append(f"reference beaten by {bt.agent}: {_case_name(bt.split, bt.family, bt.task_id, bt.index)}")
        for s in self.run_sensitivity + self.sweep_sensitivity:
            if s.defect:
                what = "no effective mutation to test" if s.effective == 0 else f"caught {s.caught}/{s.effective}"
                out.append(f"evaluator sensitivity below 100 % ({s.source}): {s.family} — {what}")
        return out

    def to_dict(self) -> dict[str, Any]:
        priv = self.include_private

        def fail(f: Failure, split: str) -> dict[str, Any]:
            d = {"agent": f.agent, "run": f.run, "class": f.cls, "feasible": f.feasible, "answered": f.answered}
            if split == "public" or priv:
                d.update(score=f.score, signature=[list(p) for p in f.signature], answer_digest=f.answer_digest,
                         reason=f.reason)
            return d

        return {
            "format": "psab-qc-v1",
            "runs": self.runs,
            "agents": self.agents,
            "cases": self.cases,
            "defects": self.defects,
            "unanimous_failures": [
                {"split": u.split, "family": u.family, "task_id": u.task_id, "index": u.index, "verdict": u.verdict,
                 "defect": u.defect, "agents": list(u.agents),
                 **({"why": u.why, "task_digest": u.task_digest} if (u.split == "public" or priv) else {}),
                 "failures": [fail(f, u.split) for f in u.failures]}
                for u in self.unanimous
            ],
            "beaten_references": [
                {"split": bt.split, "family": bt.family, "task_id": bt.task_id, "index": bt.index, "agent": bt.agent,
                 "run": bt.run,
                 **({"score": bt.score, "objective": bt.objective, "reference_objective": bt.reference_objective}
                    if (bt.split == "public" or priv) else {})}
                for bt in self.beaten
            ],
            "sensitivity": {
                "run": [_sens_dict(s) for s in self.run_sensitivity],
                "sweep": [_sens_dict(s) for s in self.sweep_sensitivity],
            },
            "notes": self.notes,
            # only when there is a fleet record: a compact run's JSON stays as it was
            **({"fleet_records": self.fleet_records} if self.fleet_records else {}),
        }


def _sens_dict(s: Sensitivity) -> dict[str, Any]:
    return {"source": s.source, "family": s.family, "kind": s.kind, "effective": s.effective, "caught": s.caught,
            "share": s.share, "ineffective": s.ineffective, "missed": list(s.missed), "remarks": list(s.remarks),
            "defect": s.defect}


def _case_name(split: str, family: str, task_id: str, index: int | None) -> str:
    if split == "heldout":
        return f"held-out {family} #{index}"
    return task_id


# ----------------------------------------------------------------------------- unanimous failures


def is_fleet(e: Entry) -> bool:
    """Whether ``e`` is a fleet-tier record (a question of the fleet world, not a compact task)."""
    return e.record.get("tier") == "fleet"


def fleet_signature(result: dict[str, Any] | None) -> tuple[tuple[str, str], ...]:
    """The violation signature of a graded fleet answer (module docstring): every field graded
    wrong, from the record's per-field verdicts (the record's violation list stops at five)."""
    fl = (result or {}).get("fleet") or {}
    out = {(f"/answer/{name}", "wrong or missing") for name, ok in (fl.get("fields") or {}).items() if not ok}
    if not fl.get("schema_valid", True):
        out.add(("/answer", "does not follow the answer schema"))
    return tuple(sorted(out))


def _failure(e: Entry) -> Failure:
    answered = e.final.cls == SCORED
    sig: tuple[tuple[str, str], ...] = ()
    dig = None
    if answered:
        if is_fleet(e):
            sig = fleet_signature(e.final_attempt.get("result"))
        else:
            sig = tuple(sorted(violation_signature(e.violations())))
        dig = answer_digest(e.solution())
    reason = str(e.final_attempt.get("reason") or "")
    return Failure(e.agent, e.run.label, e.final.cls, e.final.feasible, e.final.score, answered, sig, dig, reason)


def judge(failures: Sequence[Failure]) -> tuple[str, str]:
    """The verdict on a unanimously failed case and the reason in words (module docstring)."""
    answered = [f for f in failures if f.answered]
    agents = {f.agent for f in answered}
    if len(agents) < 2:
        return UNDETERMINED, (f"only {len(agents)} agent(s) returned an answer; the others produced none "
                              "(agent or infrastructure failure)")
    digests = {f.answer_digest for f in answered}
    if len(digests) == 1 and None not in digests:
        return SAME_WAY, f"every answering agent submitted the same answer (digest {next(iter(digests))[:12]})"
    sigs = {f.signature for f in answered}
    if len(sigs) == 1 and answered[0].signature:
        pairs = "; ".join(f"{fld or '/'}: {con}" for fld, con in answered[0].signature[:6])
        more = f" (+{len(answered[0].signature) - 6} more)" if len(answered[0].signature) > 6 else ""
        return SAME_WAY, f"every answering agent violated the same (field, constraint) set: {pairs}{more}"
    return DIFFERENT_WAYS, f"{len(sigs)} different violation signatures and {len(digests)} different answers"


def unanimous_cases(runs: Runs, exclude: Sequence[str] = ()) -> list[tuple[tuple[str, str], list[Entry], tuple[str, ...]]]:
    """The cases (split, task digest) that at least two agents attempted and none scored 1 on:
    each with its entries and its agents (in the collection's order), in order of first
    appearance. ``exclude`` leaves agents out (the reference agent, for instance). The one
    grouping behind ``psab qc``'s unanimous failures and the report's count of unsolved cases."""
    groups: dict[tuple[str, str], list[Entry]] = {}
    for e in runs.entries:
        if e.agent in exclude:
            continue
        groups.setdefault(e.case_key, []).append(e)
    out = []
    for key, es in groups.items():
        agents = tuple(a for a in runs.agents if any(e.agent == a for e in es))
        if len(agents) >= 2 and not any(e.final.perfect for e in es):
            out.append((key, es, agents))
    return out


def unanimous_failures(runs: Runs, exclude: Sequence[str] = ()) -> list[Unanimous]:
    fam_order = {f: i for i, f in enumerate(runs.families())}
    out = []
    for (split, digest), es, agents in unanimous_cases(runs, exclude):
        fails = [_failure(e) for e in es]
        verdict, why = judge(fails)
        e0 = es[0]
        out.append(Unanimous(split, e0.family, e0.task_id, e0.index, digest, verdict, why, agents, tuple(fails)))
    order = {SAME_WAY: 0, DIFFERENT_WAYS: 1, UNDETERMINED: 2}
    return sorted(out, key=lambda u: (order[u.verdict], u.split != "public", fam_order.get(u.family, 1 << 30), u.index or 0))


# ----------------------------------------------------------------------------- beaten references


def beaten_references(runs: Runs) -> list[Beaten]:
    out = []
    for e in runs.entries:
        if e.final.cls != SCORED:
            continue
        full = e.full_result()
        ev = (full or {}).get("evidence") if isinstance(full, dict) else None
        if isinstance(ev, dict) and ev.get("beats_reference"):
            out.append(Beaten(e.split, e.family, e.task_id, e.index, e.agent, e.run.label, e.final.score,
                              ev.get("objective"), ev.get("reference_objective")))
    return out


# ----------------------------------------------------------------------------- sensitivity


def run_sensitivity(runs: Runs) -> list[Sensitivity]:
    """Per family: the share of the built-in mutant agents' answers the evaluator caught."""
    from psab.reports.tasks import public_task

    mutants = [a for a in runs.agents if runs.builtin_kind(a) == "mutant"]
    per_family: dict[str, dict[str, Any]] = {}
    cache: dict[str, Any] = {}
    for e in runs.entries:
        if e.agent not in mutants:
            continue
        acc = per_family.setdefault(e.family, {"effective": 0, "caught": 0, "ineffective": 0, "missed": [], "remarks": []})
        note = str(e.final_attempt.get("note") or "")
        where = _case_name(e.split, e.family, e.task_id, e.index)
        if e.final.cls != SCORED:
            acc["remarks"].append(f"{where} ({e.agent}): no scored answer ({e.final.cls})")
            continue
        if not note or note == "no mutation applies":
            acc["remarks"].append(f"{where} ({e.agent}): no mutation applied")
            continue
        if not e.final.perfect:
            acc["effective"] += 1
            acc["caught"] += 1
            continue
        # Missed: was the mutation one the evaluator should have caught?
        if e.split == "public":
            got = public_task(e.record, cache)
            if got.usable:
                import psab
                from psab.mutations import effective, mutations

                assert got.task is not None
                spec = psab.get_family(e.family)
                answer = psab.solve(got.task).answer
                match = [m for m in mutations(answer, got.task.submission_schema) if m.describe() == note]
                if match and not effective(got.task, match[0], spec.mutation_exempt):
                    acc["ineffective"] += 1
                    acc["remarks"].append(f"{where} ({e.agent}): {note} is within the tolerance or exempt")
                    continue
        acc["effective"] += 1
        acc["missed"].append(f"{where} ({e.agent}): {note}" if e.split == "public" else f"{where} ({e.agent})")
    order = runs.families()
    return [Sensitivity("run", f, "all", v["effective"], v["caught"], v["ineffective"], tuple(v["missed"]),
                        tuple(v["remarks"])) for f in order if (v := per_family.get(f))]


def sweep_sensitivity(families: Sequence[str], backend: str = "surrogate",
                      progress: Callable[[str, int, int], None] | None = None) -> list[Sensitivity]:
    """Every mutation of every family's public reference, evaluated directly (no agent).
    ``progress(family, done, total)`` is told after each family (the sweep takes seconds per family)."""
    import psab
    from psab.mutations import KINDS, effective, is_reordering, mutations, other_readings

    out: list[Sensitivity] = []
    for done, fam in enumerate(families, start=1):
        spec = psab.get_family(fam)
        task = spec.public_task()
        answer = psab.solve(task, backend).answer
        by_kind: dict[str, dict[str, Any]] = {}
        for m in [*mutations(answer, task.submission_schema), *other_readings(spec, task)]:
            acc = by_kind.setdefault(m.kind, {"effective": 0, "caught": 0, "ineffective": 0, "missed": []})
            if not effective(task, m, spec.mutation_exempt):
                acc["ineffective"] += 1
                continue
            result = psab.evaluate(task, {"answer": m.answer}, backend)
            if result.perfect and is_reordering(m, task.submission_schema):
                # the same records in another order, matched by name (the studies' rule; the
                # compact families state an order and catch it): no mistake to catch
                acc["ineffective"] += 1
                continue
            acc["effective"] += 1
            if result.perfect:
                acc["missed"].append(m.describe())
            else:
                acc["caught"] += 1
        kinds = [k for k in KINDS if k in by_kind] + sorted(set(by_kind) - set(KINDS))
        rows = [Sensitivity("sweep", fam, k, by_kind[k]["effective"], by_kind[k]["caught"], by_kind[k]["ineffective"],
                            tuple(by_kind[k]["missed"])) for k in kinds]
        out += rows
        out.append(Sensitivity("sweep", fam, "all", sum(r.effective for r in rows), sum(r.caught for r in rows),
                               sum(r.ineffective for r in rows), tuple(m for r in rows for m in r.missed)))
        if progress is not None:
            progress(fam, done, len(families))
    return out


# ----------------------------------------------------------------------------- assembly


def run_qc(runs: Runs | None, *, sensitivity: bool = False, families: Sequence[str] | None = None,
           exclude: Sequence[str] = (), include_private: bool = False, backend: str | None = None,
           progress: Callable[[str, int, int], None] | None = None) -> QcReport:
    """Every check on ``runs`` (may be ``None`` with ``sensitivity``: the sweep alone)."""
    import psab

    rep = QcReport(runs=[str(r.path) for r in runs.runs] if runs else [], agents=list(runs.agents) if runs else [],
                   cases={s: len({e.case_key for e in runs.split_entries(s)}) for s in runs.splits} if runs else {},
                   include_private=include_private)
    if runs is not None:
        unknown = [a for a in exclude if a not in runs.agents]
        if unknown:
            from psab.errors import InvalidArgumentError

            raise InvalidArgumentError(f"--exclude-agent: no agent named {', '.join(unknown)} in these runs "
                                       f"(agents: {', '.join(runs.agents)})")
        rep.unanimous = unanimous_failures(runs, exclude)
        rep.beaten = beaten_references(runs)
        rep.run_sensitivity = run_sensitivity(runs)
        rep.fleet_records = sum(1 for e in runs.entries if is_fleet(e))
        rep.compact_records = len(runs.entries) - rep.fleet_records
        if len(runs.agents) - len(exclude) < 2:
            rep.notes.append("fewer than two agents: the unanimous-failure check needs at least two")
        if rep.compact_records and not any(runs.builtin_kind(a) == "mutant" for a in runs.agents):
            rep.notes.append("no built-in mutant agent in these runs: no sensitivity from the run "
                             "(add --agent builtin:mutant, or use --sensitivity)")
        if rep.fleet_records:
            rep.notes.append(f"{rep.fleet_records} fleet record(s): checked for unanimous failures per question "
                             "(signature: the answer fields graded wrong); beaten references and evaluator "
                             "sensitivity do not apply to the fleet tier (answers are graded against keys "
                             "computed by executing the rules; no mutant agent runs there)")
    if sensitivity:
        if families:
            fams = list(families)
            for f in fams:
                psab.get_family(f)
        elif runs is not None:
            fams = [f for f in runs.families() if f in {s.id for s in psab.families()}]
        else:
            fams = [s.id for s in psab.families()]
        if backend is None:
            backend = str(((runs.runs[0].manifest.get("options") or {}).get("backend")) if runs else "surrogate") or "surrogate"
        rep.sweep_sensitivity = sweep_sensitivity(fams, backend, progress)
    return rep


# ----------------------------------------------------------------------------- terminal text


def text(rep: QcReport) -> str:
    from psab.cli import table

    priv = rep.include_private
    lines: list[str] = []
    if rep.runs:
        cases = ", ".join(f"{n} {s}" for s, n in rep.cases.items())
        lines.append(f"psab qc — {len(rep.runs)} run(s), {len(rep.agents)} agent(s) ({', '.join(rep.agents)}), "
                     f"cases: {cases or 'none'}")
        lines.append("")
        lines.append(f"Unanimous failures (no agent scored 1 on the case): {len(rep.unanimous)}")
        for verdict, title in ((SAME_WAY, "SAME WAY — likely task or evaluator defect: inspect the task and evaluator"),
                               (DIFFERENT_WAYS, "different ways — a capability signal, not a defect"),
                               (UNDETERMINED, "undetermined — fewer than two agents returned an answer")):
            group = [u for u in rep.unanimous if u.verdict == verdict]
            if not group:
                continue
            lines.append(f"  {title}:")
            for u in group:
                answered = sum(1 for f in u.failures if f.answered)
                lines.append(f"    {_case_name(u.split, u.family, u.task_id, u.index)}  "
                             f"[{len(u.agents)} agents: {', '.join(u.agents)}; {answered} answered]")
                if u.split == "public" or priv:
                    lines.append(f"      {u.why}")
                    if verdict != SAME_WAY:
                        for f in u.failures:
                            if f.answered:
                                sig = "; ".join(f"{a or '/'}: {b}" for a, b in f.signature[:3]) or "feasible, below optimum"
                                lines.append(f"      - {f.agent}: score {f.score:.3f}; {sig}")
                            else:
                                lines.append(f"      - {f.agent}: no answer ({f.reason or f.cls})")
                else:
                    lines.append("      (held-out: details private; --include-private shows them)")
        lines.append("")
        lines.append(f"Beaten references (an answer better than the reference solver's): {len(rep.beaten)}")
        for bt in rep.beaten:
            detail = (f": objective {bt.objective} against reference {bt.reference_objective}"
                      if (bt.split == "public" or priv) else "")
            lines.append(f"  {_case_name(bt.split, bt.family, bt.task_id, bt.index)} by {bt.agent} "
                         f"(run {bt.run}){detail}")
        lines.append("")
        lines.append("Evaluator sensitivity — from the run (answers of built-in mutant agents; one mutation per case):")
        if rep.run_sensitivity:
            body = [(s.family, str(s.effective), str(s.caught), "—" if s.share is None else f"{s.share:.0%}",
                     "DEFECT" if s.defect else "ok", str(s.ineffective)) for s in rep.run_sensitivity]
            lines += ["  " + ln for ln in table(body, ("family", "mutated", "caught", "share", "status",
                                                       "ineffective")).splitlines()]
            for s in rep.run_sensitivity:
                for m in s.missed:
                    lines.append(f"  missed: {m}")
        elif rep.fleet_records and not rep.compact_records:
            lines.append("  (not applicable: these runs hold fleet questions only)")
        else:
            lines.append("  (none: no built-in mutant agent in these runs)")
    if rep.sweep_sensitivity:
        from psab.mutations import KINDS

        lines.append("")
        lines.append("Evaluator sensitivity — direct sweep: every psab.mutations variant of each family's public "
                     "reference answer, evaluated here (no agent). Cells: caught/effective.")
        fams = list(dict.fromkeys(s.family for s in rep.sweep_sensitivity))
        kinds = [k for k in KINDS if any(s.kind == k for s in rep.sweep_sensitivity)]
        cells = {(s.family, s.kind): s for s in rep.sweep_sensitivity}
        body = []
        for f in fams:
            tot = cells[(f, "all")]
            row = [f] + [(f"{cells[(f, k)].caught}/{cells[(f, k)].effective}" if (f, k) in cells else "—") for k in kinds]
            row += [f"{tot.caught}/{tot.effective}", "—" if tot.share is None else f"{tot.share:.0%}",
                    "DEFECT" if tot.defect else "ok", str(tot.ineffective)]
            body.append(row)
        lines += ["  " + ln for ln in table(body, ["family", *kinds, "total", "share", "status", "ineffective"]).splitlines()]
        for f in fams:
            for m in cells[(f, "all")].missed[:20]:
                lines.append(f"  missed: {f}: {m}")
        lines.append("  ineffective = mutations within the task's tolerance or ×1.05 of a mutation_exempt field "
                     "(not counted)")
    for n in rep.notes:
        lines.append("")
        lines.append(f"note: {n}")
    lines.append("")
    d = rep.defects
    if d:
        lines.append(f"{len(d)} defect(s) found:")
        lines += [f"  - {x}" for x in d]
    else:
        lines.append("no defect found")
    return "\n".join(lines)
