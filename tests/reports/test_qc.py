"""``psab qc``: planted unanimous failures (same way and different ways), a planted beaten
reference, and evaluator sensitivity from the run and from the direct sweep."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_helpers import BUILTINS, cli, copy_run, make_run, records, rewrite_records, two_families

import psab
from psab.reports.load import load_runs
from psab.reports.qc import (
    DIFFERENT_WAYS,
    SAME_WAY,
    UNDETERMINED,
    Failure,
    answer_digest,
    judge,
    run_qc,
    violation_signature,
)


@pytest.fixture(scope="module")
def good_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory, "builtins", BUILTINS)


@pytest.fixture(scope="module")
def same_way_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Two mutants with one run seed make the same mistake on every task: every agent that answers
    # fails the same way; the crashing agent answers nothing and does not break the pattern.
    return make_run(tmp_path_factory, "qc-same", ["m1=builtin:mutant", "m2=builtin:mutant", "builtin:crash"])


def _qc_json(tmp_path: Path, *args: str) -> tuple[int, dict]:
    out = tmp_path / "qc.json"
    code, text = cli("qc", *args, "--json", str(out))
    assert out.is_file(), text
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_clean_run_has_no_defect(good_run: Path, tmp_path: Path) -> None:
    code, data = _qc_json(tmp_path, str(good_run))
    assert code == 0, data["defects"]
    assert data["unanimous_failures"] == [] and data["beaten_references"] == []
    run_sens = data["sensitivity"]["run"]
    assert {s["family"] for s in run_sens} == set(two_families())
    assert all(s["share"] == 1.0 and not s["defect"] for s in run_sens)


def test_same_way_unanimous_failure_is_a_defect(same_way_run: Path, tmp_path: Path) -> None:
    code, data = _qc_json(tmp_path, str(same_way_run))
    assert code == 1
    found = {u["family"]: u for u in data["unanimous_failures"]}
    assert set(found) == set(two_families())
    for u in found.values():
        assert u["verdict"] == SAME_WAY and u["defect"]
        assert set(u["agents"]) == {"m1", "m2", "crash"}
        answered = {f["agent"] for f in u["failures"] if f["answered"]}
        assert answered == {"m1", "m2"}
        m1, m2 = (next(f for f in u["failures"] if f["agent"] == a) for a in ("m1", "m2"))
        assert m1["answer_digest"] == m2["answer_digest"]
    assert len(data["defects"]) == len(two_families())
    code, text = cli("qc", str(same_way_run))
    assert code == 1 and "SAME WAY" in text and "defect(s) found" in text


def test_failures_in_different_ways_are_a_capability_signal(same_way_run: Path,
                                                             tmp_path_factory: pytest.TempPathFactory) -> None:
    # An agent that answers with an empty object misses every required field: a different
    # failure from the mutant's single mistake on ybus_construction (several required fields).
    empty = make_run(tmp_path_factory, "qc-empty", ["cmd:empty=printf '{\"answer\": {}}' > {solution}"],
                     families=["ybus_construction"])
    runs = load_runs([same_way_run, empty])
    rep = run_qc(runs, exclude=["m2"])
    (u,) = [u for u in rep.unanimous if u.family == "ybus_construction"]
    assert u.verdict == DIFFERENT_WAYS and not u.defect
    assert set(u.agents) == {"m1", "crash", "empty"}


def test_unknown_excluded_agent_is_a_usage_error(same_way_run: Path) -> None:
    code, _ = cli("qc", str(same_way_run), "--exclude-agent", "nobody")
    assert code == 2


def test_judge_rules() -> None:
    def f(agent: str, sig: tuple = (), digest: str | None = "d", answered: bool = True) -> Failure:
        return Failure(agent, "r", "scored" if answered else "agent_failure", False, 0.0, answered, sig, digest)

    s1 = (("/p_mw", "within limits"),)
    s2 = (("/q_mvar", "within limits"),)
    assert judge([f("a", s1, "x"), f("b", s1, "y")])[0] == SAME_WAY          # same violations
    assert judge([f("a", s1, "x"), f("b", s2, "x")])[0] == SAME_WAY          # same answer
    assert judge([f("a", s1, "x"), f("b", s2, "y")])[0] == DIFFERENT_WAYS
    assert judge([f("a", (), "x"), f("b", (), "y")])[0] == DIFFERENT_WAYS    # feasible, different answers
    assert judge([f("a", s1, "x"), f("a", s1, "x")])[0] == UNDETERMINED      # one agent twice
    assert judge([f("a", s1, "x"), f("b", answered=False, digest=None)])[0] == UNDETERMINED


def test_signature_and_digest_normalisation() -> None:
    a = violation_signature([{"field": "/schedule/3/p_mw", "constraint": "within ±0.003 of 12.5"}])
    b = violation_signature([{"field": "/schedule/7/p_mw", "constraint": "within ±0.0001 of 1e-3"}])
    c = violation_signature([{"field": "/schedule/7/q_mvar", "constraint": "within ±0.0001 of 1e-3"}])
    assert a == b == {("/schedule/*/p_mw", "within ±# of #")}
    assert a != c
    assert answer_digest({"answer": {"x": 0.1, "y": [1, 2]}}) == answer_digest({"answer": {"y": [1, 2], "x": 0.1000000001}})
    assert answer_digest({"answer": {"x": 0.1}}) != answer_digest({"answer": {"x": 0.1001}})
    assert answer_digest("not a solution") is None


def test_planted_beaten_reference(good_run: Path, tmp_path: Path) -> None:
    run = copy_run(good_run, tmp_path / "beaten")
    fam = two_families()[0]
    result = run / "artifacts" / "reference" / f"{fam}-public" / "attempt-1" / "result.json"
    data = json.loads(result.read_text())
    data["evidence"].update(beats_reference=True, objective=9.5, reference_objective=10.0)
    result.write_text(json.dumps(data))
    code, out = _qc_json(tmp_path, str(run))
    assert code == 1
    (bt,) = out["beaten_references"]
    assert bt["agent"] == "reference" and bt["family"] == fam
    assert bt["objective"] == 9.5 and bt["reference_objective"] == 10.0
    assert any("reference beaten" in d for d in out["defects"])


def test_planted_sensitivity_miss_from_the_run(good_run: Path, tmp_path: Path) -> None:
    run = copy_run(good_run, tmp_path / "missed")
    fam = two_families()[0]

    def accept(rec: dict) -> dict:
        if rec["agent"] == "mutant" and rec["family"] == fam:
            ok = {"feasible": True, "score": 1.0, "perfect": True, "n_violations": 0, "violations": []}
            rec["attempts"][-1]["result"] = ok
            rec["result"] = ok
        return rec

    rewrite_records(run, accept)
    note = next(r for r in records(run) if r["agent"] == "mutant" and r["family"] == fam)["attempts"][-1]["note"]
    code, out = _qc_json(tmp_path, str(run))
    assert code == 1
    sens = {s["family"]: s for s in out["sensitivity"]["run"]}
    assert sens[fam]["defect"] and sens[fam]["caught"] == 0 and sens[fam]["effective"] == 1
    assert any(note in m for m in sens[fam]["missed"])


def test_direct_sweep_and_a_planted_blind_evaluator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fam = "ybus_construction"
    code, out = _qc_json(tmp_path, "--sensitivity", "--family", fam)
    assert code == 0
    rows = {s["kind"]: s for s in out["sensitivity"]["sweep"] if s["family"] == fam}
    total = rows.pop("all")
    assert total["effective"] > 0 and total["caught"] == total["effective"] and total["share"] == 1.0
    assert total["effective"] == sum(r["effective"] for r in rows.values())
    assert {"scale_1000", "sign_flip", "drop_field"} <= set(rows)

    # An evaluator that accepts anything well-formed: every effective mutation that is still
    # well-formed is missed, so the sweep must report the family below 100 %.
    task = psab.get_family(fam).public_task()
    reference = psab.solve(task)
    real = psab.evaluate

    def blind(t, solution, backend="surrogate"):
        res = real(t, solution, backend)
        return res if res.evidence.get("malformed_fields") else real(t, reference, backend)

    monkeypatch.setattr(psab, "evaluate", blind)
    rep = run_qc(None, sensitivity=True, families=[fam])
    (tot,) = [s for s in rep.sweep_sensitivity if s.kind == "all"]
    assert tot.defect and 0 < tot.caught < tot.effective
    assert any("sensitivity below 100 %" in d for d in rep.defects)


def test_heldout_findings_keep_their_details_private(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    from report_helpers import SEED

    run = make_run(tmp_path_factory, "qc-heldout", ["m1=builtin:mutant", "m2=builtin:mutant"], "--split", "heldout",
                   "--seed", SEED, families=["ybus_construction"])
    code, data = _qc_json(tmp_path, str(run))
    assert code == 1
    (u,) = data["unanimous_failures"]
    assert u["split"] == "heldout" and u["verdict"] == SAME_WAY
    assert "why" not in u and "task_digest" not in u
    assert all("signature" not in f and "answer_digest" not in f for f in u["failures"])
    code, text = cli("qc", str(run))
    assert code == 1 and "held-out ybus_construction #0" in text and "details private" in text
    violations = [v for r in records(run, "heldout") for v in r["result"]["violations"]]
    assert violations and not any(v.split(" (expected")[0] in text for v in violations)
    code, text = cli("qc", str(run), "--include-private")
    assert "every answering agent" in text
