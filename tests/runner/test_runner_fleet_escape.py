"""Escape tests for the fleet tools (issue 23 item 2) under the bwrap sandbox: an agent that
reaches the world only through ``fleet-tool`` (and its MCP face) tries path traversal, SQL in
search, a fork bomb, a long sleep and the network in ``python``, the tool socket from
``python``, and the world's files and the keys directly. Every attempt fails safely, the run
goes on, and every tool call is in the attempt's log."""

from __future__ import annotations

import json
import secrets
import shutil
import tempfile
from pathlib import Path

import pytest

from psab.runner.sandbox import hidden_roots, launch, make_sandbox, temp_root

from runner_helpers import need_working_bwrap

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

from psab.fleet.cli import build_world  # noqa: E402
from psab.fleet.server import serve_attempt  # noqa: E402
from psab.fleet.tools import Budget  # noqa: E402

PY_SECONDS = 2.0


@pytest.fixture(scope="module")
def world_and_keys():  # type: ignore[no-untyped-def]
    """A world and a keys directory under /tmp, readable by anyone (so only the sandbox, not
    file modes, keeps the agent out), with a canary in the keys."""
    base = Path(tempfile.mkdtemp(prefix="fleet-escape-", dir="/tmp"))
    base.chmod(0o755)
    world = base / "world"
    build_world("escape", "tiny", world)
    keys = base / "keys"
    keys.mkdir(mode=0o755)
    canary = "CANARY-" + secrets.token_hex(8)
    (keys / "keys.jsonl").write_text(json.dumps({"question_id": "X", "answer": canary}) + "\n")
    for p in [world, *world.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    yield world, keys, canary
    shutil.rmtree(base, ignore_errors=True)


AGENT = r"""
t() { echo "=== $1"; shift; "$@"; echo "rc=$?"; }
t traversal fleet-tool read ../world.json
t traversal2 fleet-tool read documents/../../etc/passwd
t absolute fleet-tool read /etc/passwd
t sql fleet-tool search "'; DROP TABLE documents; SELECT * FROM read_parquet('/etc/passwd') --"
t sqlmetric fleet-tool call read_timeseries '{"device_id": "DEVICE", "metrics": ["x\" FROM read_csv(\u0027/etc/passwd\u0027) --"]}'
t forkbomb fleet-tool python -c 'import os
while True:
    try: os.fork()
    except OSError: pass'
t sleep fleet-tool python -c 'import time; time.sleep(600)'
t network fleet-tool python -c 'import urllib.request; print(urllib.request.urlopen("http://example.com", timeout=3).read()[:10])'
t rawsocket fleet-tool python -c '
import _socket
s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM); s.connect(("1.1.1.1", 80)); print("CONNECTED")'
t toolsocket fleet-tool python -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("SOCKET"); print("REACHED-TOOLS")'
t worldfile fleet-tool python -c 'print(open("WORLD/world.json").read())'
t pyls fleet-tool python -c 'import os; print(sorted(os.listdir("/")))'
t catworld cat WORLD/world.json
t catkeys cat KEYS/keys.jsonl
t grepkeys sh -c 'grep -rs CANARY / --exclude-dir=proc --exclude-dir=sys 2>/dev/null | head -3'
t writesock sh -c 'echo junk > SOCKET'
t ok fleet-tool read DOCPATH --max-lines 2
"""


def _sections(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for block in text.split("=== ")[1:]:
        name, _, body = block.partition("\n")
        out[name.strip()] = body
    return out


def test_the_fleet_tools_hold_under_bwrap(world_and_keys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    need_working_bwrap()
    world, keys, canary = world_and_keys
    device = sorted(p.name.split("=")[1] for p in (world / "telemetry").iterdir())[0]
    doc = json.loads((world / "documents" / "manifest.jsonl").read_text().splitlines()[-1])["path"]
    log = tmp_path / "tools.jsonl"
    sb = make_sandbox(temp_root(), "bwrap")
    try:
        with serve_attempt(world, Budget(python_seconds=PY_SECONDS), None, log, sb.attempt_dir) as srv:
            script = (AGENT.replace("SOCKET", str(srv.socket_path)).replace("WORLD", str(world))
                      .replace("KEYS", str(keys)).replace("DEVICE", device).replace("DOCPATH", doc))
            env = {"PATH": f"{srv.bin_dir}:/usr/bin:/bin", "HOME": "/sandbox", **srv.env}
            r = launch(["/bin/sh", "-c", script], sb, env=env, isolation="bwrap", network=False, expose=[],
                       hidden=hidden_roots(None), timeout_s=300, stdin_bytes=None, binds=tuple(srv.expose))
            # 300 s: the agent greps the whole visible tree for the canary (79-111 s at a load
            # of 12-14 on two cores); a bound that load alone cannot reach, not a speed claim
            out = (sb.io / "stdout.log").read_text()
            entries = [json.loads(x) for x in log.read_text().splitlines()]
    finally:
        sb.remove()
    assert r.exit_code == 0 and not r.timed_out, r.stderr_tail
    s = _sections(out)

    def reply(name: str) -> dict:
        body = s[name]
        return json.loads(body[:body.rindex("rc=")])

    for name in ("traversal", "traversal2", "absolute", "sqlmetric"):
        rep = reply(name)
        assert rep["ok"] is False and s[name].rstrip().endswith("rc=1"), (name, s[name])
    assert reply("sql")["ok"] is True  # plain text for the index: no SQL engine behind search
    for name in ("forkbomb", "sleep"):  # killed at the limit, reported as a budget error
        rep = reply(name)
        assert rep["ok"] is False and rep["budget_reached"] and "time limit" in rep["error"], (name, rep)
    for name in ("network", "rawsocket", "toolsocket", "worldfile"):
        rep = reply(name)
        assert rep["ok"] and rep["result"]["exit_code"] != 0, (name, rep)
        assert "CONNECTED" not in rep["result"]["output"] and "REACHED-TOOLS" not in rep["result"]["output"]
        assert '"size"' not in rep["result"]["output"]
    listing = reply("pyls")["result"]["output"]
    assert "sandbox" in listing and "work" not in listing  # only the system dirs and its own box
    for name in ("catworld", "catkeys"):  # neither path exists in the sandbox
        assert s[name].strip() == "rc=1", s[name]
    assert canary not in out and '"seed_commitment"' not in out
    assert not s["writesock"].rstrip().endswith("rc=0")  # the socket's mount is read-only
    assert reply("ok")["ok"] is True
    # every tool call of the agent is in the attempt's log, errors included
    tools_called = [e["tool"] for e in entries]
    assert tools_called.count("python") == 7 and tools_called.count("read_file") == 4
    assert sum(1 for e in entries if not e["ok"]) >= 6 and sum(1 for e in entries if e["budget_reached"]) == 2
    # the two killed programs were stopped by the tools' limit (budget_reached above), not by the
    # attempt's own 300 s timeout (asserted not timed out above): no wall-clock limit needed here


MCP_AGENT = r"""
import json, os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(o):
    p.stdin.write((json.dumps(o) + "\n").encode()); p.stdin.flush()
def recv():
    return json.loads(p.stdout.readline())
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
      "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}}})
init = recv()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
tools = recv()
send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "../world.json"}}})
bad = recv()
send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "list_corpus", "arguments": {"limit": 2}}})
good = recv()
p.stdin.close(); p.wait(10)
print(json.dumps({"init": init, "tools": tools, "bad": bad, "good": good}))
"""


def test_an_mcp_agent_inside_bwrap_gets_the_tools_over_stdio(world_and_keys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The relay (stdlib) runs in the sandbox; the SDK's server runs outside; both share the log."""
    import importlib.util

    from conftest import need

    need(importlib.util.find_spec("mcp") is not None, "the mcp SDK is not installed (pip install 'psab[mcp]')")
    need_working_bwrap()
    world, _, _ = world_and_keys
    log = tmp_path / "tools.jsonl"
    sb = make_sandbox(temp_root(), "bwrap")
    try:
        (sb.box / "probe.py").write_text(MCP_AGENT)
        with serve_attempt(world, Budget(), None, log, sb.attempt_dir) as srv:
            env = {"PATH": "/usr/bin:/bin", "HOME": "/sandbox", **srv.env}
            r = launch(["/usr/bin/python3", "-I", "/sandbox/probe.py", *srv.mcp_argv], sb, env=env, isolation="bwrap",
                       network=False, expose=[], hidden=hidden_roots(None), timeout_s=90, stdin_bytes=None,
                       binds=tuple(srv.expose))
            out = (sb.io / "stdout.log").read_text()
    finally:
        sb.remove()
    assert r.exit_code == 0, r.stderr_tail
    got = json.loads(out.strip().splitlines()[-1])
    assert got["init"]["result"]["serverInfo"]["name"] == "fleet-tools"
    # nothing the MCP client sees names the benchmark (issue 23: neutral names in the sandbox)
    assert "psab" not in json.dumps([got["init"], got["tools"]]).lower()
    assert [t["name"] for t in got["tools"]["result"]["tools"]] == ["list_corpus", "search_corpus", "read_file",
                                                                    "read_timeseries", "python"]
    assert got["bad"]["result"]["isError"] is True
    assert json.loads(got["bad"]["result"]["content"][0]["text"])["error"] == "'..' is not allowed in a path"
    good = json.loads(got["good"]["result"]["content"][0]["text"])
    assert good["ok"] and len(good["result"]["paths"]) == 2
    assert [json.loads(x)["tool"] for x in log.read_text().splitlines()] == ["read_file", "list_corpus"]
