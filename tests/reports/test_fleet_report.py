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
