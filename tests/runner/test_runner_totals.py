"""Totals an agent can exhaust (issue 32, item 7): the processes of one sandbox together, the
size of its private ``/tmp`` and ``/dev/shm``, writable memory with no size at all (bwrap's root
tmpfs, ``/dev``), and the disk its working directory takes. The escape agent tries each past the
run's limits and finds nothing; without the limits the same probe finds every one (the check
can fail); a box past its disk limit ends the agent as its own failure, and the run goes on."""

from __future__ import annotations

import json
import subprocess

import pytest

import psab
from psab.errors import RunnerError
from psab.paths import case_dir
from psab.runner import AgentSpec
from psab.runner import sandbox as sb
from psab.runner.execute import AGENT_FAILURE, SCORED, CaseJob, Settings, run_case
from psab.runner.run import RunOptions

from runner_helpers import FAMILY, PYTHON, by_agent, cli_env, need_working_bwrap, records, run

#: The probe's targets, each above the limits the test sets (64 processes, a 16 MB /tmp) and
#: above /dev/shm's fixed 64 MB.
TARGETS = {"procs": 200, "tmp_mb": 48, "shm_mb": 96}


def _escape_totals(**limits: object) -> tuple[dict, list[dict]]:
    task = psab.load_case(case_dir(FAMILY))
    agent = AgentSpec(name="escape", builtin="escape", timeout_s=300, retry_delay_s=0,
                      options={"walk": 0, **TARGETS})
    job = CaseJob(agent=agent, split="public", index=None, task=task.to_dict(), task_key=None,
                  settings=Settings(isolation="bwrap", default_timeout_s=300, **limits))  # type: ignore[arg-type]
    outcome = run_case(job)
    attempt = outcome.record["attempts"][0]
    assert attempt["class"] == SCORED, attempt
    findings = json.loads(outcome.artifacts["attempt-1/solution.json"])["answer"]["findings"]
    return attempt, [f for f in findings if f["route"] == "totals"]


def test_the_escape_agent_meets_every_total_under_bwrap() -> None:
    need_working_bwrap()
    attempt, findings = _escape_totals(process_limit=64, tmp_limit_mb=16, disk_limit_mb=1024)
    assert findings == [], "\n".join(f"{f['path']}: {f['why']}" for f in findings)
    assert attempt["totals"] == {"processes": 64, "tmp_mb": 16, "disk_mb": 1024}


def test_without_the_limits_the_same_probe_finds_the_process_count_and_tmp() -> None:
    """The check can fail: with no process limit and no /tmp size the targets are reached (the
    fixed /dev/shm size and the read-only root stay, so those two are not found)."""
    need_working_bwrap()
    _, findings = _escape_totals(process_limit=0, tmp_limit_mb=0)
    assert {f["path"] for f in findings} == {"processes", "/tmp"}, findings


def test_the_process_limit_is_the_sandboxs_own() -> None:
    """RLIMIT_NPROC set inside the user namespace counts this sandbox's processes only (the
    kernel's per-namespace count, Linux 5.14+): two sandboxes, both running as the host's uid
    65534, each reach their own limit at once; ``getrlimit`` inside shows it."""
    need_working_bwrap()
    root = sb.temp_root()
    boxes = [sb.make_sandbox(root, "bwrap") for _ in range(2)]
    code = ("import resource, sys; sys.path.insert(0, '/sandbox'); from probe import _hold_processes; "
            "print(_hold_processes(200), resource.getrlimit(resource.RLIMIT_NPROC)[1])")
    try:
        from psab.runner.agent_script import __file__ as script

        for box in boxes:
            (box.box / "probe.py").write_text(open(script, encoding="utf-8").read())
        import threading

        results: list[str] = []

        def one(box: sb.Sandbox) -> None:
            r = sb.launch(["/usr/bin/python3", "-c", code], box, env={"PATH": "/usr/bin:/bin"}, isolation="bwrap",
                          network=False, expose=[], hidden=[], timeout_s=60, stdin_bytes=None,
                          totals=sb.Totals(processes=50))
            results.append(r.stdout_tail.strip())

        procs = [threading.Thread(target=one, args=(b,)) for b in boxes]
        for t in procs:
            t.start()
        for t in procs:
            t.join()
    finally:
        for box in boxes:
            box.remove()
    # 50 in all: this python, bwrap's init and the held children
    for out in results:
        held, shown = (out.split() + ["", ""])[:2]
        assert 40 <= int(held) < 50 and shown == "50", results


@pytest.mark.parametrize("isolation", ["relocate", "bwrap"])
def test_a_box_past_the_disk_limit_ends_the_agent_and_the_run_goes_on(tmp_path, isolation: str) -> None:
    if isolation == "bwrap":
        need_working_bwrap()
    write = "head -c 67108864 /dev/zero > big.bin; sleep 120"  # 64 MiB, then wait to be ended
    agents = [AgentSpec(name="filler", command=write, retry_delay_s=0),
              AgentSpec(name="quiet", command="head -c 1048576 /dev/zero > small.bin", retry_delay_s=0)]
    report = run(tmp_path, agents, isolation=isolation, disk_limit_mb=16, timeout_s=90.0)
    recs = by_agent(records(report.run_dir))
    filler = recs["filler"]["attempts"][0]
    assert (filler["class"], filler["rule"], filler["timed_out"]) == (AGENT_FAILURE, "disk-limit", False), filler
    assert "16 MB" in filler["reason"] and recs["filler"]["n_attempts"] == 1
    assert recs["quiet"]["attempts"][0]["rule"] == "no-solution"  # 1 MB is well inside


def test_a_box_with_too_many_entries_ends_the_agent(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sb, "MAX_BOX_ENTRIES", 200)
    agent = AgentSpec(name="many", command="mkdir d && cd d && for i in $(seq 1 400); do : > f$i; done; sleep 120",
                      retry_delay_s=0)
    report = run(tmp_path, [agent], isolation="relocate", timeout_s=90.0)
    attempt = records(report.run_dir)[0]["attempts"][0]
    assert (attempt["rule"], attempt["timed_out"]) == ("disk-limit", False) and "200 entries" in attempt["reason"]


def test_the_defaults_are_recorded_and_the_flags_checked(tmp_path) -> None:
    report = run(tmp_path, [AgentSpec(name="quiet", command="true", retry_delay_s=0)])
    attempt = records(report.run_dir)[0]["attempts"][0]
    assert attempt["totals"] == {"processes": sb.DEFAULT_PROCESS_LIMIT, "tmp_mb": sb.DEFAULT_TMP_LIMIT_MB,
                                 "disk_mb": sb.DEFAULT_DISK_LIMIT_MB}
    # a real agent never meets them: eight sandboxes at the process limit stay under the default pid_max
    assert 8 * sb.DEFAULT_PROCESS_LIMIT <= 32768
    opts = json.loads((report.run_dir / "manifest.json").read_text())["options"]
    assert (opts["process_limit"], opts["tmp_limit_mb"], opts["disk_limit_mb"]) == (2048, 2048.0, 8192.0)
    for bad in ({"process_limit": -1}, {"process_limit": 1.5}, {"tmp_limit_mb": float("nan")},
                {"disk_limit_mb": -3}):
        with pytest.raises(RunnerError, match="limit"):
            run(tmp_path, [AgentSpec(name="a", command="true")], name=f"bad-{len(str(bad))}", **bad)


def test_the_cli_flags_reach_the_run(tmp_path) -> None:
    out = tmp_path / "cli-run"
    r = subprocess.run([PYTHON, "-m", "psab.cli", "run", "--agent", "builtin:silent", "--family", FAMILY, "--limit", "1",
                        "--process-limit", "99", "--tmp-limit", "32", "--disk-limit", "64", "--out", str(out),
                        "--progress", "none"], capture_output=True, text=True, env=cli_env(), timeout=300)
    assert r.returncode in (0, 1), r.stderr
    attempt = records(out)[0]["attempts"][0]
    assert attempt["totals"] == {"processes": 99, "tmp_mb": 32, "disk_mb": 64}
    assert RunOptions(agents=[]).process_limit == sb.DEFAULT_PROCESS_LIMIT


@pytest.mark.parametrize("force_shim", [False, True])
def test_the_process_limit_is_set_by_prlimit_or_the_shim(monkeypatch: pytest.MonkeyPatch, force_shim: bool) -> None:
    if force_shim:
        monkeypatch.setattr(sb, "_prlimit", lambda: None)
    argv = sb.Totals(processes=77).inner_prefix() + [
        "/usr/bin/python3", "-c", "import resource; print(*resource.getrlimit(resource.RLIMIT_NPROC))"]
    assert subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split() == ["77", "77"]
    assert sb.Totals().inner_prefix() == [] and sb.Totals.of(0, 0, 0) == sb.NO_TOTALS
