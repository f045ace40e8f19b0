"""The fleet tier in the reports: TR and TE as PowerBench Table 5 defines them, counted by hand;
the tables and radar plots of a real fleet run; compact reports untouched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from psab.reports import fleet as fr
from psab.runner.fleet import evidence_from_log, tool_metrics


def _rec(agent: str, family: str, qid: str, *, calls: int, errors: int, joint: bool, rer: float = 1.0,
         budget: bool = False, corpus: int | None = None) -> dict[str, Any]:
    log = [{"tool": "read_file", "ok": i >= errors, "error": None if i >= errors else "x", "bytes": 10,
            "duration_ms": 2.0, "budget_reached": budget and i == calls - 1} for i in range(calls)]
    fleet = {"joint": joint, "field_accuracy": 1.0 if joint else 0.5, "schema_valid": True, "rer": rer, "aer": rer / 2}
    return {"agent": agent, "tier": "fleet", "split": "public", "family": family, "task_id": qid,
            "corpus_devices": corpus,
            "attempts": [{"class": "scored", "result": {"fleet": fleet}, "tools": tool_metrics(log), "wall_s": 1.0}]}


def test_tool_metrics_count_calls_errors_budget_and_latency() -> None:
    log = [{"tool": "search_corpus", "ok": True, "bytes": 100, "duration_ms": 3.5},
           {"tool": "read_file", "ok": False, "error": "budget", "bytes": 0, "duration_ms": 0.5, "budget_reached": True},
           {"tool": "read_file", "ok": True, "bytes": 50, "duration_ms": 1.0}]
    m = tool_metrics(log)
    assert m == {"calls": 3, "errors": 1, "budget_reached": True, "latency_ms": 5.0, "bytes": 150,
                 "per_tool": {"read_file": 2, "search_corpus": 1}}
    assert tool_metrics([])["calls"] == 0 and tool_metrics([])["budget_reached"] is False


def test_tr_and_te_as_table5_defines_them_by_hand() -> None:
    # Family temporal: agent a makes 4 and 6 calls (1 error in all: TR = 9/10 = 90 %), agent b
    # makes 8 and 12 (no error: TR = 100 %). Mean calls 5 and 10: the fewest (a) scores TE 100,
    # b scores 100 * 5 / 10 = 50 (Table 5 caption: "the fewest mean tool calls score 100").
    recs = [_rec("a", "temporal", "T1", calls=4, errors=1, joint=True), _rec("a", "temporal", "T2", calls=6, errors=0, joint=False),
            _rec("b", "temporal", "T1", calls=8, errors=0, joint=True), _rec("b", "temporal", "T2", calls=12, errors=0, joint=True)]
    rows = {(r["agent"], r["family"]): r for r in fr.fleet_rows(recs, ["a", "b"], resamples=200)}
    a, b = rows[("a", "temporal")], rows[("b", "temporal")]
    assert a["TR"]["mean"] == pytest.approx(0.9) and b["TR"]["mean"] == 1.0
    assert a["TE"]["mean"] == 1.0 and b["TE"]["mean"] == pytest.approx(0.5)
    assert a["JA"]["mean"] == 0.5 and b["JA"]["mean"] == 1.0
    assert a["JA"]["low"] <= 0.5 <= a["JA"]["high"] and a["JA"]["high"] > a["JA"]["low"]
    assert a["calls"] == 5.0 and b["calls"] == 10.0
    assert a["TR"]["low"] <= 0.9 <= a["TR"]["high"]


def test_budget_reached_rate_and_corpus_grouping() -> None:
    recs = [_rec("a", "comparative", "C1", calls=3, errors=1, joint=True, budget=True, corpus=5),
            _rec("a", "comparative", "C1", calls=3, errors=0, joint=False, corpus=20)]
    rows = fr.fleet_rows(recs, ["a"], resamples=50, group="corpus_devices")
    by = {r["corpus_devices"]: r for r in rows if r["family"] == "ALL"}
    assert by[5]["TBR"]["mean"] == 1.0 and by[20]["TBR"]["mean"] == 0.0
    assert by[5]["JA"]["mean"] == 1.0 and by[20]["JA"]["mean"] == 0.0


def test_evidence_from_log_reads_only_successful_reads() -> None:
    log = [{"tool": "read_file", "ok": True, "args": {"path": "documents/alarms/A.json"}},
           {"tool": "read_file", "ok": False, "args": {"path": "documents/alarms/B.json"}},
           {"tool": "read_timeseries", "ok": True, "args": {"device_id": "TRA-1", "start": "2024-07-01T00:00:00Z",
                                                            "end": "2024-07-02T00:00:00Z"}},
           {"tool": "search_corpus", "ok": True, "args": {"query": "x"}}]
    assert evidence_from_log(log) == [{"kind": "document", "path": "documents/alarms/A.json"},
                                      {"kind": "series", "device_id": "TRA-1", "start": "2024-07-01T00:00:00Z",
                                       "end": "2024-07-02T00:00:00Z"}]


def test_records_without_tier_are_not_fleet_rows() -> None:
    assert fr.fleet_rows([{"agent": "a", "family": "x", "split": "public", "attempts": [{}]}]) == []


def test_te_of_an_agent_that_makes_no_call() -> None:
    # b answers without any tool call: it has the fewest calls (TE 100); a's 4 calls are judged
    # against one call (the floor), TE = 1/4 = 25 %, not 0 as a literal 0/4 would make it.
    recs = [_rec("a", "comparative", "C1", calls=4, errors=0, joint=True),
            _rec("b", "comparative", "C1", calls=0, errors=0, joint=False)]
    rows = {r["agent"]: r for r in fr.fleet_rows(recs, ["a", "b"], resamples=20) if r["family"] == "comparative"}
    assert rows["b"]["TE"]["mean"] == 1.0 and rows["a"]["TE"]["mean"] == pytest.approx(0.25)
    assert rows["b"]["TR"]["mean"] == 1.0  # no call, no error: TR is not lowered by abstaining


# ---------------------------------------------------------------------------- real runs


@pytest.fixture(scope="module")
def fleet_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real ``psab run --tier fleet`` of the reference and the weak agent, one question per
    family of a test-size world built from a seed in the run directory."""
    pytest.importorskip("duckdb")
    from report_helpers import cli

    out = tmp_path_factory.mktemp("fleet-runs") / "fleet"
    code, text = cli("run", "--tier", "fleet", "--seed", "report-test", "--per-family", "1", "--out", str(out),
                     "--progress", "none", "--agent", "builtin:fleet-reference", "--agent", "builtin:fleet-weak")
    assert code == 0, text
    return out


def test_fleet_report_has_the_tables_and_a_radar_per_agent(fleet_run: Path, tmp_path: Path) -> None:
    from psab.reports.report import ReportOptions, write_report

    files = write_report([fleet_run], tmp_path / "rep", ReportOptions(resamples=200))
    md = files.markdown.read_text(encoding="utf-8")
    assert "## Fleet tier (PowerBench)" in md and "| agent | family | n | JA | FA | RER | AER | VS | TR | TE |" in md
    radars = sorted(p.name for p in files.plots)
    assert radars == ["fleet_radar_fleet-reference.png", "fleet_radar_fleet-weak.png"]
    assert all((tmp_path / "rep" / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for n in radars)
    ref = next(line for line in md.splitlines() if line.startswith("| fleet-reference | ALL |"))
    assert ref.split("|")[4].strip() == "100.0"  # JA of the reference
    assert files.html.read_text(encoding="utf-8").count("data:image/png;base64,") == 2  # embedded radars


def test_a_mixed_report_keeps_the_compact_sections_and_adds_the_fleet_one(fleet_run: Path, tmp_path: Path,
                                                                          tmp_path_factory: pytest.TempPathFactory) -> None:
    from report_helpers import make_run

    from psab.reports.load import load_runs
    from psab.reports.report import ReportOptions, write_report

    compact = make_run(tmp_path_factory, "fleet-mixed-compact", ["builtin:reference"], families=["ybus_construction"])
    runs = load_runs([compact])
    assert fr.partition(runs) == (None, runs)  # no fleet run: the compact report is built from the same object
    files = write_report([compact, fleet_run], tmp_path / "rep", ReportOptions(resamples=100, plots=False))
    md = files.markdown.read_text(encoding="utf-8")
    assert "## Results per split" in md and "## Fleet tier (PowerBench)" in md
    assert "temporal" not in md.split("## Fleet tier")[0]  # fleet questions stay out of the compact tables


def test_runs_at_two_corpus_sizes_are_kept_apart_and_compared(fleet_run: Path, tmp_path: Path) -> None:
    import shutil

    from psab.reports.report import ReportOptions, write_report

    # the same run, relabelled as if made at N = 5: a second condition of the same agents
    other = tmp_path / "n5"
    shutil.copytree(fleet_run, other, ignore=shutil.ignore_patterns(".lock", "report"))
    lines = [json.loads(x) for x in (other / "records.jsonl").read_text().splitlines()]
    (other / "records.jsonl").write_text("".join(json.dumps({**r, "corpus_devices": 5}) + "\n" for r in lines))
    md = write_report([fleet_run, other], tmp_path / "rep", ReportOptions(resamples=50, plots=False)).markdown.read_text()
    assert "| fleet-reference [N=5] | ALL |" in md and "| fleet-reference [N=all] | ALL |" in md
    assert "Visible corpus size (PowerBench Table 9)" in md


# ---------------------------------------------------------------------------- regrade and qc


def _fleet_records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines() if x.strip()]


def test_regrade_grades_a_fleet_run_again_from_its_answers_and_keys(fleet_run: Path, tmp_path: Path) -> None:
    """Issue 23: ``psab regrade`` re-grades fleet records (it used to skip every one as 'not
    registered'); the same keys give the same results, record for record."""
    from psab.reports.regrade import regrade

    recs = _fleet_records(fleet_run)
    scored = sum(1 for r in recs for a in r["attempts"] if a["class"] == "scored")
    assert scored == 8  # two agents, one question of each of the four families (causal: the run built the world)
    out = tmp_path / "copy"
    import shutil

    shutil.copytree(fleet_run, out, ignore=shutil.ignore_patterns(".lock", "regrades"))
    rep = regrade(out, write=True)
    assert rep.regraded == scored and rep.unchanged == scored and not rep.changes and not rep.skipped, rep.to_dict()
    (written,) = rep.written
    again = _fleet_records(written)
    assert [r["result"] for r in again] == [r["result"] for r in recs]
    for r in again:
        for a in r["attempts"]:
            assert a["regrade"]["evaluator_version"].startswith(f"fleet_{r['family']}@")
    with pytest.raises(Exception, match="fleet run"):
        regrade(out, seed="any")


def test_regrade_of_a_fleet_run_reports_a_changed_key_and_a_changed_question(fleet_run: Path, tmp_path: Path) -> None:
    """A key whose number was wrong at run time (moved here by hand): the reference's perfect
    answer to it no longer matches, and the regrade names exactly that question; a question
    whose text changed is not regraded."""
    import shutil

    from psab.reports.regrade import regrade, text

    out = tmp_path / "copy"
    shutil.copytree(fleet_run, out, ignore=shutil.ignore_patterns(".lock", "regrades"))
    m = json.loads((out / "manifest.json").read_text())
    keys_dir, q_dir = tmp_path / "keys", tmp_path / "questions"
    shutil.copytree(m["options"]["keys"], keys_dir)
    shutil.copytree(m["options"]["questions"], q_dir)
    keys = [json.loads(x) for x in (keys_dir / "keys.jsonl").read_text().splitlines()]
    k = next(k for k in keys if k["family"] == "temporal")
    name = next(n for n, v in k["answer"].items() if isinstance(v, (int, float)) and not isinstance(v, bool))
    k["answer"][name] += 1000
    (keys_dir / "keys.jsonl").write_text("".join(json.dumps(x) + "\n" for x in keys))
    qs = [json.loads(x) for x in (q_dir / "questions.jsonl").read_text().splitlines()]
    changed_q = next(q for q in qs if q["family"] == "contextual")
    changed_q["text_en"] += " (reworded)"
    (q_dir / "questions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in qs))
    m["options"].update(keys=str(keys_dir), questions=str(q_dir))
    (out / "manifest.json").write_text(json.dumps(m))
    rep = regrade(out)
    ref = [c for c in rep.changes if c.agent == "fleet-reference"]
    assert [(c.task_id, c.old_score, c.old_feasible, c.new_feasible) for c in ref] == [(k["question_id"], 1.0, True, True)]
    assert ref[0].new_score < 1.0 and f"/answer/{name}: wrong or missing" in ref[0].new_violations
    assert {c.task_id for c in rep.changes} == {k["question_id"]}
    assert {(s.task_id, s.agent) for s in rep.skipped} == {(changed_q["question_id"], "fleet-reference"),
                                                           (changed_q["question_id"], "fleet-weak")}
    assert all("digest" in s.reason for s in rep.skipped)
    assert rep.regraded == 6 and k["question_id"] in text(rep)  # 8 records less the 2 of the reworded question


@pytest.fixture(scope="module")
def twin_weak_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The weak agent twice under two names: they fail the same questions the same way."""
    pytest.importorskip("duckdb")
    from report_helpers import cli

    out = tmp_path_factory.mktemp("fleet-qc") / "fleet"
    code, text = cli("run", "--tier", "fleet", "--seed", "qc-test", "--per-family", "1", "--out", str(out),
                     "--progress", "none", "--agent", "builtin:fleet-weak", "--agent", "twin=builtin:fleet-weak")
    assert code == 0, text
    return out


def test_qc_on_fleet_runs_judges_unanimous_failures_by_wrong_fields_and_says_what_does_not_apply(
        twin_weak_run: Path) -> None:
    """Issue 23: ``psab qc`` on fleet records: unanimous failures per question with the answer
    fields graded wrong as the signature (all of them, not the record's first five
    violations), and one line that beaten references and sensitivity do not apply — never the
    compact advice to add a mutant agent, which cannot run on the fleet tier."""
    from psab.reports.load import load_runs
    from psab.reports.qc import SAME_WAY, run_qc, text

    recs = _fleet_records(twin_weak_run)
    failed = {r["task_id"]: r for r in recs if r["agent"] == "fleet-weak" and not r["result"]["perfect"]}
    assert failed  # the weak agent fails some question (test_weak_agent_moves_the_metrics)
    rep = run_qc(load_runs([twin_weak_run]))
    assert {u.task_id for u in rep.unanimous} == set(failed)
    for u in rep.unanimous:
        assert u.verdict == SAME_WAY and u.agents == ("fleet-weak", "twin")
        fields = failed[u.task_id]["result"]["fleet"]["fields"]
        want = {f"/answer/{n}" for n, ok in fields.items() if not ok}
        for f in u.failures:
            assert {fld for fld, _ in f.signature} - {"/answer"} == want
    out = text(rep)
    assert "builtin:mutant" not in out and "not applicable: these runs hold fleet questions only" in out
    assert f"{len(recs)} fleet record(s)" in out
    assert rep.to_dict()["fleet_records"] == len(recs)
