"""Every built-in agent through the whole runner: sandbox, attempts, classification, records,
evaluation, summaries — under bwrap and under relocation."""

from __future__ import annotations

import json
import os
from pathlib import Path

import psab
from psab.mutations import KINDS
from psab.paths import case_dir
from psab.runner import load_agents_file
from psab.runner.agent_script import HANG_MARKER
from psab.runner.execute import AGENT_FAILURE, INFRA_FAILURE, SCORED, CaseJob, Settings, run_case
from psab.runner.sandbox import temp_root

from runner_helpers import FAMILY, PUBLIC_ID, artifact, by_agent, need_working_bwrap, records, run

AGENTS_TOML = """
[agents.reference]
builtin = "reference"

[agents.mutant]
builtin = "mutant"

[agents.malformed]
builtin = "malformed"

[agents.silent]
builtin = "silent"

[agents.crash]
builtin = "crash"

[agents.hang]
builtin = "hang"
timeout_s = 2

[agents.rate-limited]
builtin = "provider-error"
options = { status = "429", exit = 1 }

[agents.bad-gateway]
builtin = "provider-error"
options = { status = "502", exit = 1 }

[agents.tempfail]
builtin = "provider-error"
options = { status = "none", exit = 75 }

[agents.flaky]
builtin = "flaky"

[agents.escape]
builtin = "escape"
timeout_s = 120
"""


def _alive_with_marker() -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if HANG_MARKER.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                out.append(int(pid))
        except OSError:
            continue
    return out


def _own_sandboxes() -> list[Path]:
    """This process's attempt sandboxes still on disk (named ``a-<pid>-XXXX``)."""
    return list(temp_root().glob(f"a-{os.getpid()}-*"))


def _check_every_builtin(tmp_path: Path, isolation: str) -> dict[str, dict]:
    f = tmp_path / "agents.toml"
    # Under relocation the whole host file system is visible; its search would take long and
    # prove nothing the other routes do not.
    f.write_text(AGENTS_TOML + ('options = { walk = 0 }\n' if isolation == "relocate" else ""))
    agents = list(load_agents_file(f).values())
    report = run(tmp_path, agents, isolation=isolation, workers=3)
    run_dir = report.run_dir
    recs = by_agent(records(run_dir))
    assert set(recs) == {a.name for a in agents}
    for r in recs.values():
        assert r["task_id"] == PUBLIC_ID and r["family"] == FAMILY and r["isolation"] == isolation
        for a in r["attempts"]:
            assert {"class", "rule", "exit_code", "wall_s", "stderr_tail", "solution_present"} <= set(a)
            assert len(a["stderr_tail"]) <= 2000

    ref = recs["reference"]
    assert (ref["final_class"], ref["n_attempts"], ref["result"]["perfect"]) == (SCORED, 1, True)
    sol = json.loads(artifact(run_dir, "reference").read_text())
    assert sol["answer"] == psab.solve(psab.load_case(case_dir(FAMILY))).answer

    mut = recs["mutant"]
    assert mut["final_class"] == SCORED and mut["result"]["score"] < 1.0
    assert mut["attempts"][0]["note"].split(" at ")[0] in KINDS

    mal = recs["malformed"]["attempts"][0]
    assert (mal["class"], mal["rule"], mal["solution_present"]) == (AGENT_FAILURE, "malformed-solution", True)
    assert "JSON" in mal["result"]["violations"][0]
    assert artifact(run_dir, "malformed").read_bytes().startswith(b'{"answer": {"value": 1.0,,')

    silent = recs["silent"]["attempts"][0]
    assert (silent["class"], silent["rule"], silent["solution_present"], silent["exit_code"]) == (
        AGENT_FAILURE, "no-solution", False, 0)
    assert silent["stdout_tail"].strip() == "I think I am done."

    crash = recs["crash"]["attempts"][0]
    assert (crash["class"], crash["rule"], crash["exit_code"]) == (AGENT_FAILURE, "exit-status", 3)
    assert "ZeroDivisionError" in crash["stderr_tail"]
    assert recs["crash"]["result"] == {**recs["crash"]["result"], "feasible": False, "score": 0.0}

    for name in ("reference", "mutant", "malformed", "silent", "crash", "hang", "escape"):
        assert recs[name]["n_attempts"] == 1, f"{name}: only infrastructure failures are retried"

    hang = recs["hang"]
    assert hang["n_attempts"] == 1  # a timeout is never retried
    h = hang["attempts"][0]
    assert (h["class"], h["rule"], h["timed_out"], h["exit_code"]) == (AGENT_FAILURE, "timeout", True, None)
    assert 2.0 <= h["wall_s"] < 10.0
    assert _alive_with_marker() == [], "the hang agent's child outlived the timeout"

    for name, rule, code in (("rate-limited", "rate-limit", 1), ("bad-gateway", "server-error", 1),
                             ("tempfail", "exit-75-tempfail", 75)):
        r = recs[name]
        assert r["final_class"] == INFRA_FAILURE and r["n_attempts"] == 2, name
        assert [(a["class"], a["rule"], a["exit_code"]) for a in r["attempts"]] == [(INFRA_FAILURE, rule, code)] * 2
        assert r["result"] is None

    flaky = recs["flaky"]
    assert [(a["class"], a["rule"]) for a in flaky["attempts"]] == [(INFRA_FAILURE, "server-error"), (SCORED, None)]
    assert flaky["result"]["perfect"] is True

    rows = {(r["agent"], r["basis"]): r for r in report.summary["rows"]}
    assert (rows[("flaky", "first")]["feasible"], rows[("flaky", "first")]["infra_failures"]) == (0, 1)
    assert (rows[("flaky", "retries")]["feasible"], rows[("flaky", "retries")]["infra_failures"]) == (1, 0)
    assert rows[("flaky", "retries")]["attempts"] == 2
    assert rows[("hang", "retries")]["agent_failures"] == 1
    assert report.summary["complete"] and report.summary["recorded"] == len(agents)

    assert _own_sandboxes() == [], "attempt sandboxes must be removed"
    escape = json.loads(artifact(run_dir, "escape").read_text())
    return {"records": recs, "escape": escape["answer"]["findings"]}


def test_every_builtin_under_bwrap(tmp_path):
    need_working_bwrap()
    out = _check_every_builtin(tmp_path, "bwrap")
    # The escape agent tried the install, repository, data, run and home paths, /proc of every
    # visible process, the environment, the mounts, `import psab`, remounts, namespaces, setuid
    # binaries, inherited descriptors, ptrace and writes (test_runner_escape.py adds canaries) —
    # and found nothing.
    assert out["escape"] == []


def test_every_builtin_under_relocation(tmp_path):
    out = _check_every_builtin(tmp_path, "relocate")
    routes = {f["route"] for f in out["escape"]}
    details = " ".join(f"{f['path']} {f['detail']}" for f in out["escape"])
    assert all(f["why"] for f in out["escape"]), "every finding says why it counts"
    # Relocation is not a wall, and docs/runner.md says so: absolute paths and the runner's
    # /proc entries stay reachable.
    assert "path" in routes and str(Path(psab.__file__).resolve().parent) in details
    assert any(r.startswith("/proc/") for r in routes), "the runner's /proc entries are reachable"


def test_task_key_never_reaches_the_sandbox(tmp_path):
    need_working_bwrap()
    task = psab.load_case(case_dir(FAMILY))
    secret = "key-material-7f3e91"
    from psab.runner import AgentSpec

    spy = AgentSpec(name="spy", command="{ ls -laR {workdir}; cat {workdir}/*; env; } > {solution} 2>&1", retry_delay_s=0)
    job = CaseJob(agent=spy, split="public", index=None, task=task.to_dict(), task_key={"secret": secret},
                  settings=Settings(isolation="bwrap", default_timeout_s=20))
    outcome = run_case(job)
    seen = outcome.artifacts["attempt-1/solution.json"].decode()
    assert "task.json" in seen and "instructions.md" in seen and '"public_inputs"' in seen
    assert secret not in seen


def test_sandbox_view_environment_and_network(tmp_path, monkeypatch):
    need_working_bwrap()
    monkeypatch.setenv("MY_AGENT_TOKEN", "tok-123")
    monkeypatch.setenv("UNRELATED_SECRET", "do-not-pass")
    monkeypatch.setenv("PSAB_SEED", "seed-not-for-agents")
    from psab.runner import AgentSpec

    probe = AgentSpec(name="probe", command="{ env; echo ===; cat /proc/net/dev; echo ===; ls -a /; } > {solution}",
                      pass_env=("MY_AGENT_TOKEN",), retry_delay_s=0)
    report = run(tmp_path, [probe], isolation="bwrap", network=False)
    env_text, net, root = artifact(report.run_dir, "probe").read_text().split("===\n")
    env = dict(line.split("=", 1) for line in env_text.splitlines() if "=" in line)
    assert env["MY_AGENT_TOKEN"] == "tok-123" and env["HOME"] == "/sandbox" and env["TMPDIR"] == "/tmp"
    assert "UNRELATED_SECRET" not in env and "PSAB_SEED" not in env
    assert not any("psab" in k.lower() or "psab" in v.lower() for k, v in env.items())
    # with --no-network only the loopback interface exists
    interfaces = {line.split(":")[0].strip() for line in net.splitlines()[2:]}
    assert interfaces == {"lo"}
    assert set(root.split()) - {".", ".."} <= {"usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32",
                                               "proc", "dev", "tmp", "sandbox"}
