"""The realized series of a forecast family lives only in the task's key: never in the agent
view, the generated task files, the runner's sandbox, the run records or the public report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import psab
import psab.cli
from psab.paths import case_dir
from psab.runner import AgentSpec
from psab.runner.execute import CaseJob, Settings, run_case
from psab.views import agent_view

FORECAST_FAMILIES = [spec.id for spec in psab.families() if spec.scoring_kind == "forecast"]


def _fingerprint(key: dict) -> re.Pattern[str]:
    """Four consecutive realized values, as any JSON writer would print them."""
    series = next(v for v in key.values() if isinstance(v, list))
    for i in range(len(series) - 3):
        window = series[i:i + 4]
        if len(set(window)) == 4 and all(float(v) != int(v) for v in window):
            return re.compile(r"\s*,\s*".join(re.escape(json.dumps(v)) for v in window))
    raise AssertionError("the realized series has no distinctive window")


def _texts(root: Path) -> list[tuple[Path, str]]:
    return [(p, p.read_text(encoding="utf-8", errors="replace")) for p in root.rglob("*") if p.is_file()]


@pytest.mark.parametrize("family", FORECAST_FAMILIES)
def test_agent_views_never_hold_the_realized_series(family: str) -> None:
    task = psab.load_case(case_dir(family))
    assert task.key and (case_dir(family) / "key.json").is_file()
    mark = _fingerprint(task.key)
    assert mark.search(json.dumps(task.key))  # the fingerprint does find the series
    raw = (case_dir(family) / "task.json").read_text(encoding="utf-8")
    assert not mark.search(raw) and "realized_power" not in raw
    for presentation in ("guided", "expert"):
        view = agent_view(task, presentation=presentation).to_json()
        assert not mark.search(view) and "realized_power" not in view


@pytest.mark.parametrize("family", FORECAST_FAMILIES)
def test_generated_task_files_keep_the_key_apart(family: str, tmp_path: Path) -> None:
    code = psab.cli.main(["generate", "--family", family, "--seed", "leak-77", "--count", "2", "--out", str(tmp_path / "views")])
    assert code == 0
    tasks = sorted((tmp_path / "views").glob("*/task.json"))
    assert len(tasks) == 2
    for index, t in enumerate(tasks):
        assert not (t.parent / "key.json").exists()
        mark = _fingerprint(psab.generate(family, "leak-77", index).key)
        assert not mark.search(t.read_text(encoding="utf-8"))


@pytest.mark.parametrize("family", FORECAST_FAMILIES)
def test_the_sandbox_never_sees_the_key(family: str) -> None:
    task = psab.load_case(case_dir(family))
    spy = AgentSpec(name="spy", command="{ ls -laR {workdir}; cat {workdir}/*; } > {solution} 2>&1", retry_delay_s=0)
    job = CaseJob(agent=spy, split="public", index=None, task=task.to_dict(), task_key=task.key,
                  settings=Settings(isolation="relocate", default_timeout_s=20))
    seen = run_case(job).artifacts["attempt-1/solution.json"].decode()
    assert '"public_inputs"' in seen
    assert not _fingerprint(task.key).search(seen) and "realized_power" not in seen


@pytest.mark.parametrize("family", FORECAST_FAMILIES)
def test_run_records_and_report_never_hold_the_realized_series(family: str, tmp_path: Path) -> None:
    run_dir, report = tmp_path / "run", tmp_path / "report"
    code = psab.cli.main(["run", "--out", str(run_dir), "--progress", "none", "--timeout", "30", "--agent", "builtin:reference",
                          "--agent", "builtin:mutant", "--family", family, "--split", "public", "--split", "heldout",
                          "--seed", "leak-seed", "--isolation", "relocate"])
    assert code == 0
    assert psab.cli.main(["report", str(run_dir), "--out", str(report), "--no-plots"]) == 0
    marks = [_fingerprint(psab.load_case(case_dir(family)).key), _fingerprint(psab.generate(family, "leak-seed", 0).key)]
    # the run directory keeps each case's key beside its task (key.json, for regrading, never
    # mounted in a sandbox); everything else — records, artifacts, manifest, report — must not hold it
    keys = [p for p, _ in _texts(run_dir) if p.name == "key.json"]
    assert all(p.parent.parent.name == "tasks" for p in keys), keys
    files = [(p, t) for p, t in _texts(run_dir) + _texts(report) if p.name != "key.json"]
    assert any(p.name == "records.jsonl" for p, _ in files)
    for path, text in files:
        for mark in marks:
            assert not mark.search(text), f"{path} holds the realized series"
