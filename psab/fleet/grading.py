"""Grading, as in the PowerBench paper (Tables 4 and 5): joint accuracy (every field right),
field accuracy, schema validity, retrieved-evidence recall (RER) and available-evidence recall
(AER), per family, with percentile-bootstrap intervals (:func:`psab.reports.stats.bootstrap_mean`)
and the macro joint accuracy over families.

An answer is ``{"question_id": ..., "answer": {...}, "evidence": [...]}``; ``retrieved`` (the
tool log's evidence, when there is one) defaults to the answer's own evidence list. Anything an
agent writes is graded, never raised on: a malformed answer is infeasible (schema invalid,
every field wrong, recall computed from whatever evidence items are well formed).

Field comparison: times and identifiers exactly (case and surrounding space ignored for
strings; a time may be written with or without the trailing ``Z``/seconds); integers exactly;
``top_value`` within 0.01 absolute or 0.5 % relative (the question asks for 2 decimals);
rankings as exact order. A series evidence item matches a required window when it names the
same device and overlaps the window; a document matches by path (``documents/`` prefix optional).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from psab.fleet.questions import FAMILIES, SCHEMAS


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x: Any) -> bool:
    if not (_is_int(x) or isinstance(x, float)):
        return False
    try:
        return math.isfinite(float(x))
    except OverflowError:  # an integer beyond the float range
        return False


def schema_valid(family: str, ans: Any) -> bool:
    schema = SCHEMAS.get(family)
    if schema is None or not isinstance(ans, dict):
        return False
    for name in schema["required"]:
        if name not in ans:
            return False
        t = schema["properties"][name]["type"]
        v = ans[name]
        ok = {"string": isinstance(v, str), "integer": _is_int(v), "number": _is_num(v),
              "array": isinstance(v, list) and all(isinstance(i, str) for i in v)}[t]
        if not ok:
            return False
    return True


def _time(x: Any) -> datetime | None:
    if not isinstance(x, str) or len(x) > 64:
        return None
    s = x.strip().replace("Z", "").replace("z", "")
    try:
        d = datetime.fromisoformat(s)
    except ValueError:
        return None
    # an explicit offset is converted to UTC (the world's clock); a naive time is taken as UTC
    return d if d.tzinfo is None else d.astimezone(UTC).replace(tzinfo=None)


def _str_eq(a: Any, b: Any) -> bool:
    return isinstance(a, str) and a.strip().casefold() == str(b).strip().casefold()


def field_correct(family: str, name: str, got: Any, want: Any) -> bool:
    if name in ("first_fire_time", "closed_at", "time"):
        g = _time(got)
        return g is not None and g == _time(want)
    if name in ("breach_duration_h", "fire_count"):
        return _is_int(got) and got == want
    if name == "top_value":
        return _is_num(got) and abs(float(got) - want) <= max(0.01, 0.005 * abs(want))
    if name == "ranking":
        return isinstance(got, list) and len(got) == len(want) and all(_str_eq(g, w) for g, w in zip(got, want))
    return _str_eq(got, want)


def _norm_path(p: Any) -> str | None:
    if not isinstance(p, str):
        return None
    p = p.strip().lstrip("./")
    return p if p.startswith("documents/") else "documents/" + p


def _matches(item: Any, req: dict[str, Any]) -> bool:
    if not isinstance(item, dict):
        return False
    if req["kind"] == "document":
        return item.get("kind", "document") == "document" and _norm_path(item.get("path")) == req["path"]
    if item.get("kind") != "series" or item.get("device_id") != req["device_id"]:
        return False
    s, e = _time(item.get("start")), _time(item.get("end"))
    rs, re_ = _time(req["start"]), _time(req["end"])
    if s is None or e is None or rs is None or re_ is None:
        return False
    return s < re_ and e > rs


def recall(retrieved: Any, wanted: list[dict[str, Any]]) -> float:
    if not wanted:
        return 1.0
    items = retrieved if isinstance(retrieved, list) else []
    items = items[:10000]  # an agent's list is bounded before the quadratic match
    return sum(1 for w in wanted if any(_matches(i, w) for i in items)) / len(wanted)


def grade_one(key: dict[str, Any], submission: Any, retrieved: Any = None) -> dict[str, Any]:
    fam = key["family"]
    want = key["answer"]
    ans = submission.get("answer") if isinstance(submission, dict) else None
    ev = submission.get("evidence") if isinstance(submission, dict) else None
    valid = schema_valid(fam, ans)
    fields = {n: bool(isinstance(ans, dict) and n in ans and field_correct(fam, n, ans[n], w)) for n, w in want.items()}
    got = retrieved if retrieved is not None else ev
    return {"question_id": key["question_id"], "family": fam, "schema_valid": valid, "infeasible": not valid,
            "fields": fields, "field_accuracy": sum(fields.values()) / len(fields),
            "joint": valid and all(fields.values()),
            "rer": recall(got, key["required_evidence"]), "aer": recall(got, key["available_evidence"])}


def macro_interval(groups: list[list[float]], resamples: int = 2000, confidence: float = 0.95,
                   seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap interval of the mean of per-family means (PowerBench Table 4's
    Macro-JA CI): each family's questions are resampled with replacement within the family
    (a stratified bootstrap), the family means averaged, the quantiles taken."""
    import numpy as np

    r = np.random.default_rng(seed)
    total = np.zeros(resamples)
    for g in groups:
        x = np.asarray(g, dtype=float)
        total += x[r.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    total /= len(groups)
    a = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(total, [a, 1.0 - a])
    return float(lo), float(hi)


def grade(keys: list[dict[str, Any]], answers: Any, retrieved: dict[str, Any] | None = None,
          resamples: int = 2000) -> dict[str, Any]:
    """Grade answers (a list of submissions, or anything) against keys; unanswered = infeasible."""
    by_id: dict[str, Any] = {}
    if isinstance(answers, list):
        for a in answers:
            if isinstance(a, dict) and isinstance(a.get("question_id"), str):
                by_id.setdefault(a["question_id"], a)
    rows = [grade_one(k, by_id.get(k["question_id"]), (retrieved or {}).get(k["question_id"])) for k in keys]
    return aggregate(rows, resamples)


def aggregate(rows: list[dict[str, Any]], resamples: int = 2000) -> dict[str, Any]:
    """Per-family means with percentile-bootstrap intervals, the macro joint accuracy and its
    stratified interval, and the overall field accuracy, from :func:`grade_one` rows (or the
    kernel results' rows, :func:`psab.fleet.evaluate.row_of`)."""
    from psab.reports.stats import bootstrap_mean

    out: dict[str, Any] = {"per_question": rows, "families": {}}
    for fam in FAMILIES:
        fr = [r for r in rows if r["family"] == fam]
        if not fr:
            continue
        agg = {}
        for name, vals in (("joint_accuracy", [float(r["joint"]) for r in fr]),
                           ("field_accuracy", [r["field_accuracy"] for r in fr]),
                           ("schema_validity", [float(r["schema_valid"]) for r in fr]),
                           ("retrieved_evidence_recall", [r["rer"] for r in fr]),
                           ("available_evidence_recall", [r["aer"] for r in fr])):
            iv = bootstrap_mean(vals, resamples=resamples)
            agg[name] = {"mean": iv.mean, "low": iv.low, "high": iv.high, "n": iv.n}
        out["families"][fam] = agg
    fams = list(out["families"])
    out["macro_joint_accuracy"] = (sum(out["families"][f]["joint_accuracy"]["mean"] for f in fams) / len(fams)) if fams else 0.0
    if fams:
        low, high = macro_interval([[float(r["joint"]) for r in rows if r["family"] == f] for f in fams], resamples)
        out["macro_joint_accuracy_interval"] = {"low": low, "high": high}
    if rows:
        iv = bootstrap_mean([r["field_accuracy"] for r in rows], resamples=resamples)
        out["field_accuracy"] = {"mean": iv.mean, "low": iv.low, "high": iv.high, "n": iv.n}
    return out
