"""The agent's network (issue 32, item 6). Under bwrap with ``--network proxy`` (the default)
the sandbox has a network namespace of its own whose only way out is the recording proxy of the
agent's model API: the escape agent, run as root in CI, reaches its model but neither a port the
test listens on (on the host's loopback and on every other host address) nor any interface but
loopback, and reads none of the host's sockets in ``/proc/net``. With ``--network host`` (the
behaviour before) the same probe finds the port and the sockets, so the check can fail."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest
from test_runner_proxy import CALLER, fake_upstream

import psab
from psab.errors import RunnerError
from psab.paths import case_dir
from psab.runner import AgentSpec
from psab.runner.execute import SCORED, CaseJob, Settings, run_case

from runner_helpers import FAMILY, PYTHON, cli_env, need_working_bwrap, records, run


def _host_addrs() -> list[str]:
    """The host's own non-loopback addresses (from `hostname -I`, when it says)."""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return []
    return [a for a in out if ":" not in a and not a.startswith("127.")][:4]


def _probe(network_mode: str) -> list[dict]:
    listener = socket.socket()
    listener.bind(("0.0.0.0", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    try:
        with fake_upstream() as (url, state):
            task = psab.load_case(case_dir(FAMILY))
            agent = AgentSpec(name="escape", builtin="escape", timeout_s=300, retry_delay_s=0, model_api="openai",
                              upstream=url, options={"walk": 0, "net_port": port, "net_addrs": ",".join(_host_addrs())})
            job = CaseJob(agent=agent, split="public", index=None, task=task.to_dict(), task_key=None,
                          settings=Settings(isolation="bwrap", default_timeout_s=300, network_mode=network_mode))
            outcome = run_case(job)
    finally:
        listener.close()
    attempt = outcome.record["attempts"][0]
    assert attempt["class"] == SCORED, attempt
    findings = json.loads(outcome.artifacts["attempt-1/solution.json"])["answer"]["findings"]
    return [f for f in findings if f["route"] == "network"]


def test_with_a_network_of_its_own_the_agent_reaches_nothing_but_its_model() -> None:
    need_working_bwrap()
    findings = _probe("proxy")
    assert findings == [], "\n".join(f"{f['path']}: {f['why']}" for f in findings)


def test_on_the_hosts_network_the_same_probe_finds_the_port_and_the_sockets() -> None:
    need_working_bwrap()
    found = {f["why"] for f in _probe("host")}
    assert "the agent reached a port on the host beyond its model API" in found, found
    assert "the agent reads the host's sockets (a listening one of the test's)" in found, found


@pytest.mark.parametrize("mode", ["proxy", "host"])
def test_the_model_api_is_reachable_through_the_proxy_in_both_modes(tmp_path: Path, mode: str) -> None:
    need_working_bwrap()
    with fake_upstream() as (url, state):
        agent = AgentSpec(name="caller", command=CALLER + "0", model_api="openai", upstream=url, retry_delay_s=0)
        # the same call straight to the upstream, not through the proxy
        direct = AgentSpec(name="direct", retry_delay_s=0, command=f"OPENAI_BASE_URL={url} " + CALLER + "0")
        report = run(tmp_path, [agent, direct], isolation="bwrap", network_mode=mode)
    recs = {r["agent"]: r["attempts"][0] for r in records(report.run_dir)}
    assert recs["caller"]["stdout_tail"].strip() == "200" and recs["caller"]["model_api"]["n_requests"] == 1
    # the upstream itself, on the host's loopback, is out of reach with a network of the sandbox's own
    if mode == "proxy":
        assert "200" not in recs["direct"]["stdout_tail"] and "Connection refused" in recs["direct"]["stderr_tail"]
    else:
        assert recs["direct"]["stdout_tail"].strip() == "200"
    manifest = json.loads((report.run_dir / "manifest.json").read_text())
    assert manifest["options"]["network_mode"] == mode


def test_the_network_flags(tmp_path: Path) -> None:
    r = subprocess.run([PYTHON, "-m", "psab.cli", "run", "--agent", "builtin:silent", "--no-network", "--network",
                        "host", "--out", str(tmp_path / "x")], capture_output=True, text=True, env=cli_env(), timeout=120)
    assert r.returncode == 2 and "contradict" in r.stderr and not (tmp_path / "x").exists()
    with pytest.raises(RunnerError, match="--network"):
        run(tmp_path, [AgentSpec(name="a", command="true")], network_mode="everything")
