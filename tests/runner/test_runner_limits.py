"""Resource limits: an agent that writes a huge file or allocates without bound is stopped by
the kernel, classified as its own failure, and the run goes on; the limits reach every process
of the agent, under both isolations and whichever way they are set (prlimit or the shim)."""

from __future__ import annotations

import subprocess

import pytest

from psab.errors import RunnerError
from psab.runner import AgentSpec
from psab.runner import sandbox as sb
from psab.runner.execute import AGENT_FAILURE

from conftest import need_bwrap
from runner_helpers import by_agent, records, run

PY = "/usr/bin/python3"
BIG_WRITE = "head -c 67108864 /dev/zero > big.bin"  # 64 MiB
BIG_ALLOC = f"{PY} -c 'b = bytearray(2**31); b[::4096] = bytes(len(b[::4096]))'"  # 2 GiB, touched


def _agent(name: str, command: str, **kw) -> AgentSpec:
    return AgentSpec(name=name, command=command, retry_delay_s=0, **kw)


@pytest.mark.parametrize("isolation", ["relocate", "bwrap"])
def test_limits_stop_runaway_agents_and_the_run_goes_on(tmp_path, isolation):
    if isolation == "bwrap":
        need_bwrap()
    agents = [
        _agent("big-file", BIG_WRITE),
        _agent("big-file-unlimited", BIG_WRITE, file_limit_mb=0),  # its own setting wins over the run's
        _agent("big-alloc", BIG_ALLOC),
        _agent("small-alloc", f"{PY} -c 'b = bytearray(2**20)'"),
    ]
    report = run(tmp_path, agents, isolation=isolation, memory_limit_mb=512, file_limit_mb=8)
    recs = by_agent(records(report.run_dir))
    assert report.summary["complete"] and set(recs) == {a.name for a in agents}

    big = recs["big-file"]["attempts"][0]
    assert (big["class"], big["rule"]) == (AGENT_FAILURE, "file-limit")
    assert "8 MB" in big["reason"] and big["limits"] == {"memory_mb": 512, "file_mb": 8}
    # Without the limit the same command completes; it just writes no solution.
    free = recs["big-file-unlimited"]["attempts"][0]
    assert (free["rule"], free["exit_code"], free["limits"]["file_mb"]) == ("no-solution", 0, None)

    alloc = recs["big-alloc"]["attempts"][0]
    assert (alloc["class"], alloc["rule"]) == (AGENT_FAILURE, "exit-status")
    assert "MemoryError" in alloc["stderr_tail"]
    # A modest allocation is untouched by the same limit.
    assert recs["small-alloc"]["attempts"][0]["rule"] == "no-solution"


@pytest.mark.parametrize("force_shim", [False, True])
def test_limits_as_the_shell_reports_them(monkeypatch, force_shim):
    """``ulimit`` reports the file limit in 512-byte blocks and the address space in KiB —
    through util-linux's prlimit where it is installed, and through the Python shim."""
    if force_shim:
        monkeypatch.setattr(sb, "_prlimit", lambda: None)
    argv = sb.Limits(memory_mb=512, file_mb=8).prefix() + ["/bin/sh", "-c", "ulimit -f; ulimit -v"]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(8 * 2**20 // 512), str(512 * 1024)]


def test_limit_settings(tmp_path):
    assert sb.Limits().prefix() == []
    assert sb.Limits.resolve(None, 256, None, 8) == sb.Limits(256, 8)  # the run's values
    assert sb.Limits.resolve(0, 256, 16, 8) == sb.Limits(None, 16)  # the agent's, 0 = none
    for bad in (-1, float("nan"), float("inf"), 2.0**41):
        with pytest.raises(RunnerError, match="memory_limit_mb"):
            AgentSpec(name="a", command="true", memory_limit_mb=bad)
        with pytest.raises(RunnerError, match="--file-limit"):
            run(tmp_path, [_agent("a", "true")], file_limit_mb=bad)


def test_the_default_file_limit_is_recorded(tmp_path):
    report = run(tmp_path, [_agent("quiet", "true")])
    attempt = records(report.run_dir)[0]["attempts"][0]
    assert attempt["limits"] == {"memory_mb": None, "file_mb": sb.DEFAULT_FILE_LIMIT_MB}
