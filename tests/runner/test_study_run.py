"""``psab run --tier study`` on a study test double (tests/runner/study_double.py): the agent's
view is study.json plus the model files at the paths the task lists, the instructions are the
study's, the built-in reference scores 1 on every deliverable and the mutant below 1, the
record and summary carry the per-deliverable scores, held-out draws work as for the compact
tier, and the toolbox is refused when asked for but not built, shown when built."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import study_double as sd  # noqa: E402

from psab.errors import RunnerError  # noqa: E402
from psab.registry import FamilySpec  # noqa: E402
from psab.runner import loop, study  # noqa: E402
from psab.runner.agents import parse_agent_arg  # noqa: E402

PEEK = """\
import json, os, sys
wd, sol, instr, task = sys.argv[1:5]
files = sorted(os.path.relpath(os.path.join(d, f), wd) for d, _, fs in os.walk(wd) for f in fs)
seen = {"files": files, "instructions": open(instr, encoding="utf-8").read(), "task": os.path.basename(task),
        "toy_m": open(os.path.join(wd, "model", "toy.m")).read(),
        "study": json.load(open(task))["family"],
        "toolbox_python": os.environ.get("TOOLBOX_PYTHON"), "path": os.environ.get("PATH", "")}
json.dump({"answer": None, "rationale": json.dumps(seen)}, open(sol, "w"))
"""


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The double as the study tier's only study, with its public case (its references kept
    nowhere on disk: the reference cache is the user's)."""
    monkeypatch.setenv("PSAB_REFERENCE_CACHE", "0")
    public = sd.public_task()
    original = FamilySpec.public_task
    monkeypatch.setattr(FamilySpec, "public_task", lambda self: public if self.id == sd.STUDY_ID else original(self))
    monkeypatch.setattr(study, "study_specs", lambda: (sd.SPEC,))


def _run(tmp_path: Path, *agents: str, name: str = "run", seed: str | None = None, **kw: Any) -> loop.RunReport:
    kw.setdefault("toolbox", False)
    kw.setdefault("timeout_s", 60.0)
    opts = study.StudyOptions(agents=[parse_agent_arg(a) for a in agents], **kw)
    return loop.start(study.StudyTier(opts), out=tmp_path / name, seed=seed, progress="none")


def _records(run: Path) -> list[dict[str, Any]]:
    out = []
    for p in (run / "records.jsonl", run / "private" / "records.jsonl"):
        if p.is_file():
            out += [json.loads(x) for x in p.read_text().splitlines() if x.strip()]
    return out


def test_reference_and_mutant_on_both_splits_with_deliverable_scores(toy: None, tmp_path: Path) -> None:
    rep = _run(tmp_path, "builtin:reference", "builtin:mutant", splits=["public", "heldout"], seed="study-run-test",
               count=1)
    assert rep.summary["complete"] and rep.summary["tier"] == "study"
    recs = {(r["agent"], r["split"]): r for r in _records(tmp_path / "run")}
    assert len(recs) == 4 and all(r["tier"] == "study" and r["final_class"] == "scored" for r in recs.values())
    for split in ("public", "heldout"):
        ref = recs[("reference", split)]["result"]
        assert ref["score"] == 1.0 and ref["deliverable_scores"] == {"n1_violations": 1.0, "fault_levels": 1.0,
                                                                     "decision": 1.0}
        assert ref["weights"] == {"n1_violations": 1.0, "fault_levels": 1.0, "decision": 2.0}
        mut = recs[("mutant", split)]
        assert mut["result"]["score"] < 1.0 and mut["attempts"][0]["note"]  # one realistic mistake, named
    # the mutant's mistake (run seed 0, the public case, the reference's keys sorted): the plan's
    # cost written 1000 times too large (kUSD as MUSD), 10,000 against the reference's 10, so the
    # decision scores 0 while both analyses stay right: (1·1 + 1·1 + 2·0) / 4 = 0.5
    pub = recs[("mutant", "public")]
    assert pub["attempts"][0]["note"] == "scale_1000 at /decision/cost_musd"
    assert pub["result"]["score"] == pytest.approx(0.5) and pub["result"]["deliverable_scores"]["decision"] == 0.0
    # the summary publishes the public split's deliverable table only
    rows = {r["agent"]: r for r in rep.summary["deliverable_rows"]}
    assert set(rows) == {"reference", "mutant"} and all(r["split"] == "public" for r in rows.values())
    assert rows["mutant"]["deliverables"] == {"n1_violations": 1.0, "fault_levels": 1.0, "decision": 0.0}
    assert "n1_violations ×1" in rep.table and "decision ×2" in rep.table
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["tier"] == "study" and "toolbox" not in manifest and manifest["options"]["timeout_s"] == 60.0
    assert manifest["heldout"]["manifest"]
    # a held-out draw states another scenario over the same model files
    held = json.loads((tmp_path / "run" / "private" / "records.jsonl").read_text().splitlines()[0])
    assert held["task_digest"] != recs[("reference", "public")]["task_digest"]
    # the report shows the per-deliverable table
    from psab.reports.report import ReportOptions, write_report

    files = write_report([tmp_path / "run"], tmp_path / "report", ReportOptions(plots=False))
    md = files.markdown.read_text()
    assert "Deliverables" in md and "n1_violations" in md and "0.500" in md
    # a regrade keeps the deliverable scores (it re-evaluates the stored answers, unchanged here)
    from psab.reports.regrade import regrade

    rg = regrade(tmp_path / "run", seed="study-run-test", write=True)
    assert not rg.changes and rg.unchanged == 4
    public_dir = next(p for p in rg.written if "private" not in p.parts)
    again = {r["agent"]: r for r in _records(public_dir)}
    assert again["mutant"]["result"]["deliverable_scores"] == pub["result"]["deliverable_scores"]


def test_the_agent_sees_study_json_and_the_model_files(toy: None, tmp_path: Path) -> None:
    peek = tmp_path / "peek.py"
    peek.write_text(PEEK)
    _run(tmp_path, f"peek={sys.executable} {peek} {{workdir}} {{solution}} {{instructions}} {{task}}",
         isolation="relocate")
    sol = tmp_path / "run" / "artifacts" / "peek" / f"{sd.STUDY_ID}-public" / "attempt-1" / "solution.json"
    seen = json.loads(json.loads(sol.read_text())["rationale"])
    assert seen["task"] == "study.json" and seen["study"] == sd.STUDY_ID
    assert {"study.json", "instructions.md", "model/toy.m", "model/profiles/load.csv"} <= set(seen["files"])
    assert "task.json" not in seen["files"]
    assert seen["toy_m"] == sd.CASE.decode()  # the bytes the task's sha256 names
    text = seen["instructions"]
    for words in ("| `decision` | decision | 2 |", "model/profiles/load.csv", "study.json", "submission_schema",
                  "A new 100 MW plant at bus 17."):
        assert words in text, words
    assert seen["toolbox_python"] is None and "Tools" not in text  # --no-toolbox


def _fake_toolbox(monkeypatch: pytest.MonkeyPatch, root: Path | None) -> None:
    """psab.toolbox's four calls the runner makes, answered for a stand-in toolbox at ``root``
    (None: none built), so these tests need no real build."""
    from psab import toolbox

    if root is not None:
        (root / "bin").mkdir(parents=True, exist_ok=True)
        (root / "bin" / "python").symlink_to(sys.executable)
    monkeypatch.setattr(toolbox, "locate", lambda path=None: root)
    monkeypatch.setattr(toolbox, "sandbox_binds", lambda r: [Path(r)])
    monkeypatch.setattr(toolbox, "python", lambda r: Path(r) / "bin" / "python")
    monkeypatch.setattr(toolbox, "versions", lambda r: {"pandapower": "3.5.1", "numpy": "2.1.0"})


def test_a_study_run_refuses_without_a_built_toolbox(toy: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    _fake_toolbox(monkeypatch, None)
    with pytest.raises(RunnerError, match=r"no toolbox: build it with `psab toolbox build`, or pass --no-toolbox"):
        _run(tmp_path, "builtin:reference", toolbox=None)  # the study tier's default: on
    assert not (tmp_path / "run").exists()
    from psab.cli import main

    assert main(["run", "--tier", "study", "--agent", "builtin:reference", "--out", str(tmp_path / "cli")]) != 0
    assert "no toolbox" in capsys.readouterr().err
    assert not (tmp_path / "cli").exists()


def test_a_built_toolbox_is_shown_and_recorded(toy: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "toolbox"
    _fake_toolbox(monkeypatch, root)
    peek = tmp_path / "peek.py"
    peek.write_text(PEEK)
    rep = _run(tmp_path, f"peek={sys.executable} {peek} {{workdir}} {{solution}} {{instructions}} {{task}}",
               toolbox=None, isolation="relocate")
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["toolbox"] == {"root": str(root), "versions": {"numpy": "2.1.0", "pandapower": "3.5.1"}}
    assert rep.summary["toolbox"] == manifest["toolbox"]
    sol = tmp_path / "run" / "artifacts" / "peek" / f"{sd.STUDY_ID}-public" / "attempt-1" / "solution.json"
    seen = json.loads(json.loads(sol.read_text())["rationale"])
    assert seen["toolbox_python"] == str(root / "bin" / "python")
    assert seen["path"].split(":")[0] == str(root / "bin")
    assert "## Tools" in seen["instructions"] and "pandapower 3.5.1" in seen["instructions"]
    # a resumed run finds the same toolbox; another one is refused
    from psab.runner.run import resume

    (tmp_path / "run" / "records.jsonl").write_text("")
    again = resume(tmp_path / "run", progress="none")
    assert again.ran == 1
    from psab import toolbox

    monkeypatch.setattr(toolbox, "versions", lambda r: {"numpy": "2.2.0"})
    (tmp_path / "run" / "records.jsonl").write_text("")
    with pytest.raises(RunnerError, match="not the one this run started with"):
        resume(tmp_path / "run", progress="none")


def test_tiers_keep_their_cases(toy: None, tmp_path: Path) -> None:
    """A study is not a compact case, nor a family a study: each is refused by name."""
    from psab.runner import run as runner

    with pytest.raises(RunnerError, match="study-tier case; run it with --tier study"):
        runner.start(runner.RunOptions(agents=[parse_agent_arg("builtin:reference")], families=[sd.STUDY_ID]),
                     out=tmp_path / "a", progress="none")
    with pytest.raises(RunnerError, match="compact-tier case; run it with --tier compact"):
        _run(tmp_path, "builtin:reference", families=["ybus_construction"], name="b")
    assert study.StudyOptions(agents=[]).timeout_s == study.DEFAULT_TIMEOUT_S == 3600.0


def test_the_built_toolbox_through_psab_run(tmp_path: Path) -> None:
    """The real toolbox (make toolbox) in a compact run with --toolbox: the agent's
    TOOLBOX_PYTHON imports pandapower at the version the build recorded (versions.json, written
    by psab toolbox build from what pip installed), its bin/ is first on PATH, and under bwrap
    the toolbox's interpreter cannot import psab."""
    from psab import toolbox
    from psab.runner import run as runner
    from psab.runner.sandbox import bwrap_problem

    from conftest import need

    root = toolbox.locate()
    need(root is not None, "no toolbox is built (make toolbox, or psab toolbox build)")
    assert root is not None
    isolation = "bwrap" if bwrap_problem(True) is None else "relocate"
    probe = ('"$TOOLBOX_PYTHON" -c "import pandapower; print(pandapower.__version__)" > {workdir}/v.txt 2>&1; '
             '"$TOOLBOX_PYTHON" -c "import psab" > {workdir}/p.txt 2>&1; '
             'printf "{\\"answer\\": null, \\"rationale\\": \\"%s|%s|%s\\"}" "$(tr -d \'\\n\\"\' < {workdir}/v.txt)" '
             '"$(echo "$PATH" | cut -d: -f1)" "$(tail -n 1 {workdir}/p.txt | tr -d \'\\n\\"\')" > {solution}')
    rep = runner.start(runner.RunOptions(agents=[parse_agent_arg(f"tb={probe}")], families=["ybus_construction"],
                                         toolbox=True, isolation=isolation, timeout_s=120.0),
                       out=tmp_path / "run", progress="none")
    assert rep.summary["toolbox"]["root"] == str(root)
    sol = tmp_path / "run" / "artifacts" / "tb" / "ybus_construction-public" / "attempt-1" / "solution.json"
    version, first, psab_import = json.loads(sol.read_text())["rationale"].split("|")
    assert version == toolbox.versions(root)["pandapower"]
    assert first == str(toolbox.python(root).parent)
    if isolation == "bwrap":
        assert "No module named 'psab'" in psab_import
