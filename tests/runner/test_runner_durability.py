"""Durability and privacy: SIGKILL mid-run and resume, torn record lines, held-out records that
never hold the seed, deterministic parallel runs (threads and Dask), CLI errors."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from psab.errors import RunnerError
from psab.generators.rng import seed_int
from psab.generators.seeds import commitment, manifest_entry

from conftest import need
from runner_helpers import FAMILY, PYTHON, cli_env, records, resume_run, run, strip_timing


def _keys(recs):
    return [(r["split"], r["task_id"], r["agent"]) for r in recs]


def test_sigkill_then_resume_records_every_case_once(tmp_path):
    """Kill ``psab run`` with SIGKILL after a few cases, tear its last record line as a crash
    mid-write would, resume, and find every case exactly once."""
    run_dir = tmp_path / "killed"
    seed = "kill-test-seed"
    count = 6
    cmd = [PYTHON, "-m", "psab.cli", "run", "--agent", "slow=builtin:reference,sleep=0.4", "--agent", "builtin:mutant",
           "--split", "heldout", "--count", str(count), "--family", FAMILY, "--out", str(run_dir), "--progress", "lines"]
    env = cli_env(PSAB_SEED=seed)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    rec_file = run_dir / "private" / "records.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if rec_file.is_file() and rec_file.read_text().count("\n") >= 3:
            break
        if proc.poll() is not None:
            pytest.fail(f"the run ended before it could be killed: {proc.stderr.read().decode()[-500:]}")
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = records(run_dir)
    assert 3 <= len(before) < 2 * count, "the kill must land mid-run"
    with open(rec_file, "ab") as f:  # a torn line, as if the process died inside write()
        f.write(b'{"agent": "slow", "split": "heldout", "task_id": "ybus_constr')

    r = subprocess.run([PYTHON, "-m", "psab.cli", "run", "--resume", str(run_dir), "--progress", "lines"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    after = records(run_dir)
    keys = _keys(after)
    assert len(keys) == len(set(keys)) == 2 * count
    assert set(keys) == {("heldout", f"{FAMILY}-heldout-{i:05d}", a) for i in range(count) for a in ("slow", "mutant")}
    assert _keys(before) == keys[: len(before)], "resume must keep what was recorded, in order"
    assert rec_file.read_bytes().endswith(b"\n")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["complete"] and summary["recorded"] == 2 * count
    assert "already recorded" in r.stderr
    # a second resume has nothing left to do
    r2 = subprocess.run([PYTHON, "-m", "psab.cli", "run", "--resume", str(run_dir)], env=env, capture_output=True,
                        text=True, timeout=120)
    assert r2.returncode == 0 and "0 cases run now" in r2.stdout
    assert len(records(run_dir)) == 2 * count


def test_heldout_records_are_private_and_never_hold_the_seed(tmp_path):
    seed = "sEcReT-round-42"
    report = run(tmp_path, ["builtin:reference", "builtin:mutant", "builtin:crash"], splits=["public", "heldout"],
                 count=2, seed=seed)
    d = report.run_dir
    # the seed, in every form it could take, appears nowhere in the run directory
    needles = [seed.encode(), str(seed_int(seed)).encode()]
    for p in d.rglob("*"):
        if p.is_file():
            content = p.read_bytes()
            assert not any(n in content for n in needles), f"{p} holds the seed"
    # the manifest commits to the seed and lists the drawn cases' digests
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["heldout"]["seed_commitment"] == commitment(seed)
    import psab

    expected = sorted((manifest_entry(psab.generate(FAMILY, seed, i), i) for i in range(2)),
                      key=lambda e: (e["family"], e["index"]))
    assert manifest["heldout"]["manifest"] == expected
    # per-case held-out material only under private/; the published summary has aggregates only
    assert all(r["split"] == "public" for r in map(json.loads, (d / "records.jsonl").read_text().splitlines()))
    held = [json.loads(x) for x in (d / "private" / "records.jsonl").read_text().splitlines()]
    assert len(held) == 6 and all(r["split"] == "heldout" for r in held)
    assert not (d / "artifacts").joinpath("reference", f"{FAMILY}-heldout-00000").exists()
    assert (d / "private" / "artifacts" / "reference" / f"{FAMILY}-heldout-00000" / "attempt-1" / "solution.json").is_file()
    for name in ("summary.json", "summary.md"):
        text = (d / name).read_text()
        assert "heldout-0000" not in text and "violations" not in text
    summary = json.loads((d / "summary.json").read_text())
    assert all(c["task_id"].endswith("-public") for c in summary["public_cases"])
    assert {(r["agent"], r["split"]) for r in summary["rows"]} == {
        (a, s) for a in ("reference", "mutant", "crash") for s in ("public", "heldout")}


def test_resume_checks_the_seed(tmp_path, monkeypatch):
    report = run(tmp_path, ["builtin:reference"], splits=["heldout"], seed="right-seed", count=1)
    with pytest.raises(RunnerError, match="needs its seed"):
        resume_run(report.run_dir)
    with pytest.raises(RunnerError, match="commitment"):
        resume_run(report.run_dir, seed="wrong-seed")
    again = resume_run(report.run_dir, seed="right-seed")
    assert again.ran == 0 and again.skipped == 1


def test_parallel_runs_give_the_same_records(tmp_path):
    agents = ["builtin:reference", "builtin:mutant", "builtin:malformed", "builtin:flaky", "builtin:silent"]
    kw = dict(splits=["public", "heldout"], count=2, seed="parallel-seed", run_seed=7)
    one = run(tmp_path, agents, name="serial", workers=1, **kw)
    four = run(tmp_path, agents, name="parallel", workers=4, **kw)
    a = sorted((strip_timing(r) for r in records(one.run_dir)), key=lambda r: _keys([r]))
    b = sorted((strip_timing(r) for r in records(four.run_dir)), key=lambda r: _keys([r]))
    assert len(a) == 15 and a == b
    assert [r for r in one.summary["rows"]] == [r for r in four.summary["rows"]]


def test_dask_cluster_gives_the_same_records(tmp_path):
    need(importlib.util.find_spec("distributed") is not None, "dask.distributed is not installed (psab[dask])")
    import distributed

    agents = ["builtin:reference", "builtin:mutant", "builtin:flaky"]
    kw = dict(splits=["public", "heldout"], count=1, seed="dask-seed")
    local = run(tmp_path, agents, name="threads", workers=2, **kw)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        remote = run(tmp_path, agents, name="dask", dask=cluster.scheduler_address, **kw)
    a = sorted((strip_timing(r) for r in records(local.run_dir)), key=lambda r: _keys([r]))
    b = sorted((strip_timing(r) for r in records(remote.run_dir)), key=lambda r: _keys([r]))
    assert len(a) == 6 and a == b


# ------------------------------------------------------------------------------ CLI errors


@pytest.mark.parametrize(("args", "message"), [
    (["run", "--agent", "builtin:reference", "--family", "no_such_family"], "unknown family"),
    (["run", "--agent", "builtin:reference", "--split", "heldout"], "seed"),
    (["run", "--agent", "builtin:oracle"], "unknown built-in"),
    (["run"], "no agent"),
    (["run", "--agent", "builtin:reference", "--agent", "builtin:reference"], "unique"),
    (["run", "--agent", "builtin:reference", "--isolation", "relocate", "--no-network"], "bwrap"),
    (["run", "--resume", "/nonexistent/run"], "not a psab run directory"),
    (["run", "--agents-file", "/nonexistent/agents.toml"], "no such file"),
])
def test_cli_errors_are_one_line(tmp_path, capsys, monkeypatch, args, message):
    from psab.cli import main

    monkeypatch.delenv("PSAB_SEED", raising=False)
    monkeypatch.chdir(tmp_path)
    code = main(args)
    err = capsys.readouterr().err
    assert code != 0
    assert err.count("\n") == 1 and err.startswith("psab: error:") and message in err


def test_cli_resume_refuses_new_options(tmp_path, capsys):
    from psab.cli import main

    report = run(tmp_path, ["builtin:reference"])
    code = main(["run", "--resume", str(report.run_dir), "--agent", "builtin:mutant"])
    assert code == 2 and "--agent" in capsys.readouterr().err
    code = main(["run", "--resume", str(report.run_dir)])
    out = capsys.readouterr().out
    assert code == 0 and "with retries" in out and "1 already recorded" in out


def test_cli_run_public_prints_the_table(tmp_path, capsys):
    from psab.cli import main

    out_dir = tmp_path / "cli"
    code = main(["run", "--agent", "builtin:reference", "--agent", "builtin:mutant", "--split", "public",
                 "--family", FAMILY, "--out", str(out_dir), "--progress", "none"])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["agent", "split", "basis", "cases"]
    assert any(line.split()[:3] == ["reference", "public", "with"] and "1/1" in line for line in lines)
    assert (out_dir / "summary.md").is_file() and (out_dir / "records.jsonl").is_file()


def test_run_directory_is_locked(tmp_path):
    from psab.runner.store import RunDir

    report = run(tmp_path, ["builtin:reference"])
    with RunDir(report.run_dir) as rd:
        rd.lock()
        with pytest.raises(RunnerError, match="in use"):
            resume_run(report.run_dir)


def test_stale_sandboxes_of_a_dead_runner_are_removed(tmp_path):
    from psab.runner.sandbox import remove_stale, temp_root

    stale = temp_root() / "a-stale-test"
    (stale / "io").mkdir(parents=True, exist_ok=True)
    (stale / "box").mkdir(exist_ok=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    (stale / "io" / "owner").write_text(str(dead.pid))
    alive = temp_root() / "a-alive-test"
    (alive / "io").mkdir(parents=True, exist_ok=True)
    (alive / "io" / "owner").write_text(str(os.getppid()))
    try:
        remove_stale(temp_root())
        assert not stale.exists() and alive.exists()
    finally:
        import shutil

        shutil.rmtree(alive, ignore_errors=True)
        shutil.rmtree(stale, ignore_errors=True)


def test_run_dir_outside_sandbox_root(tmp_path, monkeypatch):
    """The sandboxes' temp root must not sit inside psab, the repository or the run."""
    from psab.runner.sandbox import check_temp_root, hidden_roots

    run_dir = tmp_path / "run"
    with pytest.raises(RunnerError, match="overlaps"):
        check_temp_root(run_dir / "tmp", hidden_roots(run_dir))
    check_temp_root(Path("/tmp/elsewhere"), hidden_roots(run_dir))


def test_a_run_reads_its_records_once_per_split(tmp_path, monkeypatch):
    """``psab run`` repairs, reads and summarises its records from one read of each file: a
    resume that runs the one missing case per split reads each records.jsonl exactly once,
    and its summary still counts every record, old and new."""
    seed = "read-once-seed"
    first = run(tmp_path, ["builtin:reference", "builtin:mutant"], splits=["public", "heldout"], seed=seed)
    run_dir = first.run_dir
    for p in (run_dir / "records.jsonl", run_dir / "private" / "records.jsonl"):
        lines = p.read_bytes().splitlines(keepends=True)
        p.write_bytes(b"".join(lines[:-1]))  # the last case of each split is to run again
    reads: list[str] = []
    original = Path.read_bytes

    def counting(self: Path) -> bytes:
        if self.name == "records.jsonl":
            reads.append(str(self))
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    again = resume_run(run_dir, seed=seed)
    monkeypatch.undo()
    assert again.ran == 2 and again.skipped == 2
    assert sorted(reads) == sorted({str(run_dir / "records.jsonl"), str(run_dir / "private" / "records.jsonl")})
    assert again.summary["recorded"] == len(records(run_dir)) == 4
    assert [(r["agent"], r["cases"]) for r in again.summary["rows"] if r["basis"] == "retries"] == \
        [(r["agent"], r["cases"]) for r in first.summary["rows"] if r["basis"] == "retries"]
