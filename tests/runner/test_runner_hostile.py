"""Hostile and broken agent output never stops a run and never makes the runner read outside
the sandbox: symlinks, FIFOs, directories, binary junk, JSON nested past the parser's stack,
floods of output."""

from __future__ import annotations

from psab.runner import AgentSpec
from psab.runner.execute import AGENT_FAILURE, SCORED

from runner_helpers import artifact, by_agent, records, run

PY = "/usr/bin/python3"


def _agent(name: str, command: str) -> AgentSpec:
    return AgentSpec(name=name, command=command, retry_delay_s=0)


def test_hostile_solutions_are_ordinary_failures(tmp_path):
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    deep_valid = (f"{PY} -c \"import sys; n=900; open(sys.argv[1],'w').write("
                  "'{\\\"answer\\\": {\\\"bus_order\\\": ' + '['*n + ']'*n + '}}')\" {solution}")
    agents = [
        _agent("symlink", f"ln -s {secret} {{solution}}"),
        _agent("fifo", "mkfifo {solution}"),
        _agent("directory", "mkdir {solution}"),
        _agent("binary", "head -c 4096 /dev/urandom > {solution}"),
        _agent("deep-junk", f"{PY} -c \"import sys; open(sys.argv[1],'w').write('['*100000)\" {{solution}}"),
        _agent("deep-valid", deep_valid),
        _agent("flood", f"{PY} -c \"import sys; sys.stderr.write('x'*5000000); sys.stdout.write('y'*5000000)\"; exit 1"),
    ]
    report = run(tmp_path, agents)
    recs = by_agent(records(report.run_dir))
    assert set(recs) == {a.name for a in agents} and report.summary["complete"]
    for name in ("symlink", "fifo", "directory"):
        a = recs[name]["attempts"][0]
        assert (a["class"], a["solution_present"], a["solution_bytes"]) == (AGENT_FAILURE, True, None), name
        assert "not a regular file" in " ".join(recs[name]["result"]["violations"])
    # the runner never followed the link: the secret is nowhere in the run
    for p in report.run_dir.rglob("*"):
        if p.is_file():
            assert b"TOP-SECRET-CONTENT" not in p.read_bytes()
    for name, words in (("binary", "UTF-8 JSON document"), ("deep-junk", "nested more than 1000 levels deep")):
        a = recs[name]["attempts"][0]
        assert (a["class"], a["rule"]) == (AGENT_FAILURE, "malformed-solution"), name
        assert words in a["result"]["violations"][0]
    deep = recs["deep-valid"]["attempts"][0]
    assert deep["class"] == SCORED and deep["result"]["feasible"] is False
    flood = recs["flood"]["attempts"][0]
    assert (flood["class"], flood["rule"], flood["exit_code"]) == (AGENT_FAILURE, "exit-status", 1)
    assert len(flood["stderr_tail"]) <= 2000 and len(flood["stdout_tail"]) <= 1000
    assert artifact(report.run_dir, "flood", name="stderr.txt").stat().st_size <= 64 * 1024


def test_an_evaluator_that_raises_does_not_stop_the_run(tmp_path, monkeypatch):
    """The safety net: an exception out of evaluate() (an evaluator defect) makes the attempt
    infeasible with the error named — and visible — instead of ending the run."""
    import psab

    real = psab.evaluate

    def broken(task, solution, backend="surrogate"):
        if isinstance(solution, dict) and solution.get("answer") is not None:
            raise ZeroDivisionError("evaluator defect")
        return real(task, solution, backend)

    monkeypatch.setattr(psab, "evaluate", broken)
    report = run(tmp_path, ["builtin:reference", "builtin:silent"])
    recs = by_agent(records(report.run_dir))
    ref = recs["reference"]["attempts"][0]
    assert ref["class"] == SCORED and ref["result"]["feasible"] is False
    assert ref["evaluator_error"] == "ZeroDivisionError: evaluator defect"
    assert recs["silent"]["final_class"] == AGENT_FAILURE and report.summary["complete"]
