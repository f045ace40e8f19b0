"""Fleet answers through the evaluation kernel's result: one :class:`psab.contract.EvaluationResult`
per graded answer, so ``psab evaluate``, ``psab fleet grade`` and the reports read fleet verdicts
the way they read every compact family's.

Mapping (PowerBench Tables 4-5 onto the kernel's verdict):

- ``feasible`` = schema validity (VS): the answer is an object with every field of the
  family's schema, each of its type; an invalid answer gets one violation per bad field
  (``/name``: missing or of the wrong type) and score 0;
- ``score`` = field accuracy (FA: the share of the key's fields answered right) of a valid
  answer, so ``perfect`` (feasible and score 1) is joint accuracy (JA) — the same reading as
  the fleet runner's records (:mod:`psab.runner.fleet`); an invalid answer scores 0;
- ``violations`` of a feasible answer: one per wrong field, naming it, with the value computed
  by executing the rules (``expected``) and the answer's (``found``);
- ``evidence``: field accuracy (FA), the per-field verdicts, retrieved- and available-evidence
  recall (RER, AER), and the number of target devices (comparative questions, Table 8).

Fleet questions are not compact families (they are not registered; the conformance suite
counts the 41 compact families only): ``family`` reads ``fleet_<family>`` and ``backend``
``fleet``. Nothing an agent writes makes this raise (:func:`psab.fleet.grading.grade_one`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from psab.contract import EvaluationResult, Violation, encodable, to_jsonable
from psab.errors import InvalidTaskError
from psab.fleet import grading
from psab.fleet.questions import FAMILIES, SCHEMAS

#: Version of the fleet question families' grading (bump when a field's comparison changes).
FLEET_VERSION = "1"
BACKEND = "fleet"
_ECHO = 200


def _echo(x: Any) -> Any:
    x = to_jsonable(x) if not isinstance(x, str) else x
    if isinstance(x, str):
        return encodable(x if len(x) <= _ECHO else f"{x[:_ECHO]}… [{len(x)} characters in all]")
    text = json.dumps(x, ensure_ascii=False, default=str)
    return x if len(text) <= 4 * _ECHO else f"{text[:_ECHO]}… [{len(text)} characters in all]"


def _schema_violations(family: str, ans: Any) -> list[Violation]:
    if not isinstance(ans, dict):
        found = type(ans).__name__ if ans is not None else None
        return [Violation("", "answer must be a JSON object with the family's fields", sorted(SCHEMAS[family]["required"]),
                          found)]
    out = []
    for name in SCHEMAS[family]["required"]:
        t = SCHEMAS[family]["properties"][name]["type"]
        if name not in ans:
            out.append(Violation(f"/{name}", "required field is missing", t, None))
        elif not grading.schema_valid(family, {**{n: _example(family, n) for n in SCHEMAS[family]["required"]}, name: ans[name]}):
            out.append(Violation(f"/{name}", f"must be of type {t}", t, _echo(ans[name])))
    return out


def _example(family: str, name: str) -> Any:
    """A value of the field's schema type (to check one field at a time with the same rule)."""
    return {"string": "x", "integer": 0, "number": 0.0, "array": []}[SCHEMAS[family]["properties"][name]["type"]]


def _check_key(key: Any) -> dict[str, Any]:
    if not isinstance(key, dict):
        raise InvalidTaskError("fleet key: not a JSON object")
    for f in ("question_id", "family", "answer", "required_evidence", "available_evidence"):
        if f not in key:
            raise InvalidTaskError(f"fleet key: missing field {f!r}")
    if key["family"] not in FAMILIES:
        raise InvalidTaskError(f"fleet key {key['question_id']}: field 'family' must be one of {FAMILIES}")
    if not isinstance(key["answer"], dict) or set(key["answer"]) != set(SCHEMAS[key["family"]]["required"]):
        raise InvalidTaskError(f"fleet key {key['question_id']}: field 'answer' must hold exactly the family's fields")
    return key


def evaluate_answer(key: dict[str, Any], submission: Any, retrieved: Any = None,
                    question: dict[str, Any] | None = None) -> EvaluationResult:
    """The kernel result of one submission ``{"answer": {...}, "evidence": [...]}`` (module
    docstring). ``retrieved`` (the tool log's evidence) replaces the submission's own list for
    the recalls, as in :func:`psab.fleet.grading.grade_one`. A broken key raises
    :class:`InvalidTaskError` naming the field; a broken submission never raises."""
    from psab.version import __version__

    key = _check_key(key)
    fam = key["family"]
    row = grading.grade_one(key, submission, retrieved)
    ans = submission.get("answer") if isinstance(submission, dict) else None
    if row["schema_valid"]:
        violations = [Violation(f"/{n}", "must equal the value computed by executing the rules", to_jsonable(w),
                                _echo(ans.get(n) if isinstance(ans, dict) else None))
                      for n, w in key["answer"].items() if not row["fields"][n]]
    else:
        violations = _schema_violations(fam, ans) or [Violation("", "answer does not match the family's schema",
                                                                 sorted(SCHEMAS[fam]["required"]), None)]
    evidence: dict[str, Any] = {"joint": row["joint"], "field_accuracy": row["field_accuracy"], "fields": row["fields"],
                                "schema_valid": row["schema_valid"], "retrieved_evidence_recall": row["rer"],
                                "available_evidence_recall": row["aer"], "question_family": fam}
    q = question or {}
    if fam == "comparative":
        evidence["n_devices"] = q.get("n_devices", len(key["answer"].get("ranking", [])))
    return EvaluationResult(
        task_id=str(key["question_id"]), family=f"fleet_{fam}", family_version=FLEET_VERSION, backend=BACKEND,
        feasible=bool(row["schema_valid"]), score=float(row["field_accuracy"]) if row["schema_valid"] else 0.0, violations=tuple(violations),
        evidence=to_jsonable(evidence), evaluator_version=f"fleet_{fam}@{FLEET_VERSION}+psab-{__version__}")


def row_of(result: EvaluationResult) -> dict[str, Any]:
    """A kernel result back as :func:`psab.fleet.grading.grade_one`'s row (for the aggregates)."""
    ev = result.evidence
    return {"question_id": result.task_id, "family": ev["question_family"], "schema_valid": result.feasible,
            "infeasible": not result.feasible, "fields": ev["fields"], "field_accuracy": ev["field_accuracy"],
            "joint": ev["joint"], "rer": ev["retrieved_evidence_recall"], "aer": ev["available_evidence_recall"]}


def grade_results(keys: list[dict[str, Any]], answers: Any, retrieved: dict[str, Any] | None = None,
                  questions: dict[str, dict[str, Any]] | None = None) -> list[EvaluationResult]:
    """One kernel result per key (an unanswered question is infeasible), in key order; the
    first answer per question id counts."""
    by_id: dict[str, Any] = {}
    if isinstance(answers, list):
        for a in answers:
            if isinstance(a, dict) and isinstance(a.get("question_id"), str):
                by_id.setdefault(a["question_id"], a)
    return [evaluate_answer(k, by_id.get(k["question_id"]), (retrieved or {}).get(k["question_id"]),
                            (questions or {}).get(k["question_id"])) for k in keys]


# ----------------------------------------------------------------- files (psab evaluate)


def _jsonl(path: Path) -> list[Any]:
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append(None)  # a malformed line answers nothing
    return out


def is_fleet_question(path: str | Path) -> bool:
    """Whether ``path`` is fleet questions: a directory with questions.jsonl, that file, or
    one question's JSON (``question_id`` and a fleet ``family``)."""
    p = Path(path)
    if p.is_dir():
        return (p / "questions.jsonl").is_file()
    if p.name.endswith(".jsonl"):
        return p.is_file() and p.name == "questions.jsonl"
    if p.suffix == ".json" and p.is_file():
        try:
            obj = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return isinstance(obj, dict) and "question_id" in obj and obj.get("family") in FAMILIES
    return False


def load_questions(path: str | Path) -> list[dict[str, Any]]:
    p = Path(path)
    if p.is_dir():
        p = p / "questions.jsonl"
    if p.name.endswith(".jsonl"):
        return [q for q in _jsonl(p) if isinstance(q, dict)]
    return [json.loads(p.read_text(encoding="utf-8"))]


def default_keys_dir(questions_path: str | Path) -> Path:
    """``psab fleet questions`` writes keys to ``OUT-keys`` unless told otherwise."""
    p = Path(questions_path)
    qdir = p if p.is_dir() else p.parent
    return Path(str(qdir).rstrip("/") + "-keys")


def load_keys(path: str | Path) -> list[dict[str, Any]]:
    p = Path(path)
    if p.is_dir():
        p = p / "keys.jsonl"
    if not p.is_file():
        raise InvalidTaskError(f"{p}: no fleet keys (keys.jsonl)")
    return [k for k in _jsonl(p) if isinstance(k, dict)]


def load_answers(path: str | Path, single_question: str | None = None) -> list[Any]:
    """Submissions from an answer file: one JSON object, or JSON lines. A lone answer without
    ``question_id`` answers the lone question; anything unreadable answers nothing."""
    p = Path(path)
    try:
        if p.name.endswith(".jsonl"):
            subs = _jsonl(p)
        else:
            subs = [json.loads(p.read_text(encoding="utf-8", errors="replace"))]
    except (OSError, ValueError):
        subs = [None]
    if single_question is not None:
        subs = [dict(s, question_id=single_question) if isinstance(s, dict) and "question_id" not in s else s for s in subs]
    return subs


def evaluate_files(questions_path: str | Path, answers_path: str | Path,
                   keys_path: str | Path | None = None) -> list[EvaluationResult]:
    """``psab evaluate QUESTIONS ANSWERS [--keys KEYS]``: a result per answered question (every
    question when the answers file answers none by id), in question order."""
    qs = load_questions(questions_path)
    keys = {k.get("question_id"): k for k in load_keys(keys_path or default_keys_dir(questions_path))}
    missing = [q["question_id"] for q in qs if q.get("question_id") not in keys]
    if missing:
        raise InvalidTaskError(f"no key for question(s) {', '.join(map(str, missing[:5]))}")
    subs = load_answers(answers_path, qs[0]["question_id"] if len(qs) == 1 else None)
    answered = {s["question_id"] for s in subs if isinstance(s, dict) and isinstance(s.get("question_id"), str)}
    chosen = [q for q in qs if q["question_id"] in answered] or qs
    return grade_results([keys[q["question_id"]] for q in chosen], subs, None, {q["question_id"]: q for q in chosen})
