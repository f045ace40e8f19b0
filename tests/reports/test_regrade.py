"""``psab regrade``: re-scoring stored solutions, changed verdicts, writing beside the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_helpers import (
    BUILTINS,
    SEED,
    cli,
    copy_run,
    make_run,
    records,
    rewrite_records,
    two_families,
)

from psab.errors import RunnerError
from psab.reports.regrade import regrade


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory, "builtins", BUILTINS)


def test_an_untouched_run_regrades_unchanged(run: Path) -> None:
    rep = regrade(run)
    n = len(two_families())
    # reference, mutant and flaky's second attempt are scored; crash and flaky's first are not
    assert rep.regraded == 3 * n and rep.unchanged == 3 * n and rep.changes == []
    assert rep.not_scored == 2 * n
    assert rep.skipped == []


def test_a_changed_verdict_and_score_are_listed(run: Path, tmp_path: Path) -> None:
    copy = copy_run(run, tmp_path / "edited")
    fam = two_families()[0]

    def edit(rec: dict) -> dict:
        # As if an older evaluator had accepted the mutant's answer and scored the reference 0.5.
        if rec["family"] == fam and rec["agent"] == "mutant":
            rec["attempts"][-1]["result"].update(feasible=True, score=1.0, perfect=True)
        if rec["family"] == fam and rec["agent"] == "reference":
            rec["attempts"][-1]["result"].update(score=0.5, perfect=False)
        return rec

    rewrite_records(copy, edit)
    original = (copy / "records.jsonl").read_bytes()
    code, text = cli("regrade", str(copy), "--write", "--check", "--json", str(tmp_path / "rg.json"))
    assert code == 1, text
    data = json.loads((tmp_path / "rg.json").read_text())
    changes = {c["agent"]: c for c in data["changes"]}
    assert set(changes) == {"mutant", "reference"}
    m, r = changes["mutant"], changes["reference"]
    assert (m["old_feasible"], m["new_feasible"], m["old_score"], m["new_score"]) == (True, False, 1.0, 0.0)
    assert (r["old_feasible"], r["new_feasible"], r["old_score"], r["new_score"]) == (True, True, 0.5, 1.0)
    assert r["old_version"].startswith(f"{fam}@") and r["new_version"].startswith(f"{fam}@")
    assert "infeasible" in text and "0.5000 → 1.0000" in text
    # the original records are untouched; the regrade lives beside them as a run directory
    assert (copy / "records.jsonl").read_bytes() == original
    (written,) = [Path(p) for p in data["written"]]
    assert written.parent == copy / "regrades"
    new = {(x["agent"], x["family"]): x for x in (json.loads(ln) for ln in (written / "records.jsonl").read_text().splitlines())}
    assert new[("mutant", fam)]["result"]["feasible"] is False
    assert new[("reference", fam)]["result"]["score"] == 1.0
    assert new[("reference", fam)]["attempts"][-1]["regrade"]["old_result"]["score"] == 0.5
    assert (written / "artifacts" / "reference" / f"{fam}-public" / "attempt-1" / "result.json").is_file()
    # and can be reported like any run
    code, _ = cli("report", str(written), "--out", str(tmp_path / "rep"), "--no-plots")
    assert code == 0
    # a second --write never overwrites the first
    rep2 = regrade(copy, write=True)
    assert rep2.written[0] != written and written.is_dir()


def test_a_changed_public_case_is_not_regraded(run: Path, tmp_path: Path) -> None:
    copy = copy_run(run, tmp_path / "case-changed")
    fam = two_families()[1]

    def edit(rec: dict) -> dict:
        if rec["family"] == fam:
            rec["task_digest"] = "0" * 64
        return rec

    rewrite_records(copy, edit)
    rep = regrade(copy)
    assert rep.skipped and all(s.task_id == f"{fam}-public" for s in rep.skipped)
    assert "digest differs" in rep.skipped[0].reason
    assert rep.changes == []


def test_heldout_regrade_needs_the_seed(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    held = make_run(tmp_path_factory, "heldout", ["builtin:reference", "builtin:mutant"], "--split", "public",
                    "--split", "heldout", "--seed", SEED, families=["ybus_construction"])
    rep = regrade(held)
    assert rep.splits == ["public"] and any("held-out split was not regraded" in n for n in rep.notes)
    with pytest.raises(RunnerError, match="commitment"):
        regrade(held, seed="not the seed")
    copy = copy_run(held, tmp_path / "held")

    def edit(rec: dict) -> dict:
        if rec["agent"] == "reference":
            rec["attempts"][-1]["result"].update(score=0.25, perfect=False)
        return rec

    rewrite_records(copy, edit, split="heldout")
    rep = regrade(copy, seed=SEED, write=True)
    assert rep.splits == ["public", "heldout"]
    (c,) = rep.changes
    assert c.split == "heldout" and c.agent == "reference" and (c.old_score, c.new_score) == (0.25, 1.0)
    held_dir = [p for p in rep.written if "private" in p.parts]
    assert held_dir and held_dir[0].parent == copy / "private" / "regrades"
    # held-out per-case results stay under private/
    public_dir = next(p for p in rep.written if "private" not in p.parts)
    assert all(r["split"] == "public" for r in records(public_dir))
    assert SEED not in "".join(p.read_text(errors="ignore") for p in copy.rglob("*") if p.is_file())


def test_a_run_without_heldout_refuses_a_seed(run: Path) -> None:
    with pytest.raises(RunnerError, match="no held-out records"):
        regrade(run, seed=SEED)


def test_a_changed_public_case_is_regraded_against_the_task_the_run_stored(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psab
    from psab.registry import FamilySpec

    fam = two_families()[0]
    original = psab.get_family(fam).public_task()
    edited = psab.get_family(fam).make_task(
        task_id=original.id, split="public", public_inputs={**original.public_inputs, "edited_after_the_run": 1}
    )
    # the family's public case changes after the run (a maintainer edited it)
    monkeypatch.setattr(FamilySpec, "public_task", lambda self: edited if self.id == fam else original)
    stored = regrade(run)
    assert not [s for s in stored.skipped if fam in str(s)]
    assert stored.changes == []
    # without the stored copy, the stored answer cannot be matched to a task
    copy = copy_run(run, tmp_path / "no-tasks")
    import shutil

    shutil.rmtree(copy / "tasks")
    bare = regrade(copy)
    assert any(s.reason and "changed" in s.reason for s in bare.skipped)


@pytest.fixture(scope="module")
def heldout_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory, "heldout-only", ["builtin:reference"], "--split", "heldout",
                    "--seed", SEED, "--allow-weak-seed", families=["ybus_construction"])


def test_a_heldout_only_run_reports_the_split_it_holds(heldout_only: Path) -> None:
    # Issue 14 item 3: it used to say "splits: public" and regrade nothing.
    rep = regrade(heldout_only)
    assert rep.held == ["heldout"] and rep.splits == [] and rep.regraded == 0
    from psab.reports.regrade import text

    first = text(rep).splitlines()[0]
    assert "holds heldout; regraded: nothing" in first and "public" not in first
    rep = regrade(heldout_only, seed=SEED)
    assert rep.splits == ["heldout"] and rep.regraded == 1 and rep.changes == []


def test_a_folder_of_runs_is_regraded_run_by_run(run: Path, heldout_only: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The folder `make run` announces: public/, heldout/ and a report/ that is not a run.
    folder = tmp_path / "make-run-20260101T000000Z"
    copy_run(run, folder / "public")
    copy_run(heldout_only, folder / "heldout")
    (folder / "report").mkdir()
    monkeypatch.setenv("PSAB_SEED", SEED)
    code, out = cli("regrade", str(folder), "--json", str(tmp_path / "r.json"))
    assert code == 0, out
    heads = [line for line in out.splitlines() if line.startswith("psab regrade ")]
    assert len(heads) == 2
    assert heads[0].endswith("holds heldout; regraded: heldout") and heads[1].endswith("holds public; regraded: public")
    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [r["splits"] for r in doc["regrades"]] == [["heldout"], ["public"]]


def test_a_folder_without_runs_is_refused_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "report").mkdir()
    code, _ = cli("regrade", str(tmp_path))
    err = capsys.readouterr().err
    assert code == 2 and "nor a folder of run directories" in err and len(err.strip().splitlines()) == 1
