"""The recording proxy for agents' model APIs (issue 32, item 5): provider failures are what the
proxy saw upstream, not what an agent prints; each request's status, latency and token usage is
in the attempt's record, and the tokens and cost in the run's summary and report.

The upstream is a fake server on the loopback whose replies (statuses, bodies, token counts,
streamed events) the test sets, so every number asserted comes from the test, not the proxy."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from psab.errors import RunnerError
from psab.runner import AgentSpec, proxy
from psab.runner.agents import load_agents_file

from runner_helpers import PUBLIC_ID, artifact, by_agent, need_working_bwrap, records, run

#: OpenAI's chat completion usage (https://platform.openai.com/docs/api-reference/chat/object).
CHAT_USAGE = {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290}
#: Anthropic's streamed message events (https://docs.anthropic.com/en/docs/build-with-claude/streaming):
#: input tokens in message_start, the running output count in message_delta.
ANTHROPIC_EVENTS = [
    ("message_start", {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 100, "output_tokens": 1}}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}),
    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 20}}),
    ("message_stop", {"type": "message_stop"}),
]


class Upstream:
    def __init__(self) -> None:
        self.status = 200
        self.replies: list[int] = []  # statuses for the next requests, then self.status
        self.paths: list[str] = []
        self.lock = threading.Lock()

    def next_status(self) -> int:
        with self.lock:
            return self.replies.pop(0) if self.replies else self.status


@contextmanager
def fake_upstream() -> Iterator[tuple[str, Upstream]]:
    state = Upstream()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            state.paths.append(self.path)
            status = state.next_status()
            if self.path.endswith("/messages"):  # Anthropic, streamed
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for name, data in ANTHROPIC_EVENTS:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True
                return
            if status != 200:
                data = json.dumps({"error": {"message": f"upstream says {status}", "type": "x"}}).encode()
            else:
                req = json.loads(body or b"{}")
                data = json.dumps({"id": "c", "object": "chat.completion", "model": req.get("model"),
                                   "choices": [{"index": 0, "message": {"role": "assistant", "content": "{}"}}],
                                   "usage": CHAT_USAGE}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/v1", state
    finally:
        srv.shutdown()
        srv.server_close()


def _post(url: str, body: dict[str, Any]) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_the_proxy_forwards_and_records_status_latency_and_usage() -> None:
    with fake_upstream() as (url, state), proxy.serve("openai", url) as px:
        assert px.env() == {"OPENAI_BASE_URL": px.base_url, "OPENAI_API_BASE": px.base_url}
        status, body = _post(px.base_url + "/chat/completions", {"model": "m"})
        assert status == 200 and json.loads(body)["usage"] == CHAT_USAGE  # passed on unchanged
        state.replies = [429, 503]
        assert _post(px.base_url + "/chat/completions", {"model": "m"})[0] == 429
        assert _post(px.base_url + "/chat/completions", {"model": "m"})[0] == 503
        status, body = _post(px.base_url.removesuffix("/v1") + "/v1/messages", {"stream": True})
        assert status == 200 and body.count(b"event: ") == len(ANTHROPIC_EVENTS)
        seen = px.requests
    assert state.paths == ["/v1/chat/completions"] * 3 + ["/v1/messages"]
    assert [r.status for r in seen] == [200, 429, 503, 200]
    assert (seen[0].input_tokens, seen[0].output_tokens) == (1234, 56)
    assert (seen[3].input_tokens, seen[3].output_tokens) == (100, 20)
    assert all(r.latency_s >= (r.first_byte_s or 0) >= 0 for r in seen)
    usage = proxy.attempt_usage(seen, {"input": 2.0, "output": 10.0})
    assert (usage["n_requests"], usage["n_failed"], usage["input_tokens"], usage["output_tokens"]) == (4, 2, 1334, 76)
    assert usage["cost_usd"] == pytest.approx(1334 * 2.0 / 1e6 + 76 * 10.0 / 1e6)


def test_an_unreachable_upstream_is_a_502_recorded_without_a_status() -> None:
    with fake_upstream() as (url, _):
        pass  # closed: nothing listens there any more
    with proxy.serve("openai", url) as px:
        status, body = _post(px.base_url + "/chat/completions", {})
        seen = px.requests
    assert status == 502 and b"did not answer" in body
    assert seen[0].status is None and seen[0].error.startswith("transport")
    assert proxy.classify_from_proxy(seen)[0] == "proxy-transport"


#: A command agent that calls its model API once through $OPENAI_BASE_URL (standard library only)
#: and then does what its argument says.
CALLER = ("/usr/bin/python3 -c 'import json, os, sys, urllib.request as u, urllib.error as e\n"
          "r = u.Request(os.environ[\"OPENAI_BASE_URL\"] + \"/chat/completions\", data=b\"{\\\"model\\\": \\\"m\\\"}\","
          " headers={\"Content-Type\": \"application/json\"})\n"
          "try:\n    print(u.urlopen(r, timeout=30).status)\nexcept e.HTTPError as x:\n    print(x.code)\n"
          "sys.exit(int(sys.argv[1]))' ")


def test_printing_a_provider_error_earns_a_proxied_agent_no_retry(tmp_path: Path) -> None:
    """Before the proxy, an agent that printed "429 ... rate limit" and exited 75 was retried;
    a proxied agent's printed claims count for nothing (the proxy saw no failure), while an
    unproxied one is still judged by the text rules, and its record says so."""
    claim = "echo 'Error: HTTP 429 Too Many Requests (rate limit exceeded)' >&2; exit 75"
    with fake_upstream() as (url, _):
        agents = [AgentSpec(name="liar", command=claim, model_api="openai", upstream=url, retry_delay_s=0),
                  AgentSpec(name="liar-calls", command=CALLER + "75; " + claim, model_api="openai", upstream=url,
                            retry_delay_s=0),
                  AgentSpec(name="unproxied", command=claim, retry_delay_s=0)]
        report = run(tmp_path, agents)
    recs = by_agent(records(report.run_dir))
    for name in ("liar", "liar-calls"):
        a = recs[name]["attempts"]
        assert (len(a), a[0]["class"], a[0]["rule"], a[0]["rule_basis"]) == (1, "agent_failure", "exit-status", None)
    assert recs["liar"]["attempts"][0]["model_api"]["n_requests"] == 0
    assert recs["liar-calls"]["attempts"][0]["model_api"]["requests"][0]["status"] == 200
    u = recs["unproxied"]["attempts"]
    assert [x["class"] for x in u] == ["infra_failure"] * 2 and u[0]["rule_basis"] == "text" and "model_api" not in u[0]


@pytest.mark.parametrize("isolation", ["relocate", "bwrap"])
def test_an_upstream_failure_is_an_infrastructure_failure_and_the_tokens_are_recorded(tmp_path: Path,
                                                                                     isolation: str) -> None:
    if isolation == "bwrap":
        need_working_bwrap()
    with fake_upstream() as (url, state):
        state.replies = [503]  # the first attempt's call fails upstream, the retry's succeeds
        agent = AgentSpec(name="caller", command=CALLER + "1", model_api="openai", upstream=url, retry_delay_s=0,
                          price_per_mtok={"input": 3.0, "output": 15.0})
        report = run(tmp_path, [agent], isolation=isolation)
    rec = records(report.run_dir)[0]
    first, second = rec["attempts"]
    assert (first["class"], first["rule"], first["rule_basis"]) == ("infra_failure", "proxy-server-error", "proxy")
    assert "status 503" in first["reason"]
    assert (second["class"], second["rule"]) == ("agent_failure", "exit-status")  # its own exit 1, upstream fine
    assert second["model_api"]["input_tokens"] == 1234 and second["model_api"]["output_tokens"] == 56
    assert second["model_api"]["cost_usd"] == pytest.approx(1234 * 3.0 / 1e6 + 56 * 15.0 / 1e6)
    assert artifact(report.run_dir, "caller", PUBLIC_ID, 2, "stdout.txt").read_text().strip() == "200"
    summary = json.loads((report.run_dir / "summary.json").read_text())
    assert summary["model_api_usage"] == [{"agent": "caller", "attempts": 2, "requests": 2, "failed_requests": 1,
                                           "input_tokens": 1234, "output_tokens": 56,
                                           "cost_usd": pytest.approx(1234 * 3e-6 + 56 * 15e-6)}]
    assert "## Model API usage" in (report.run_dir / "summary.md").read_text()
    from psab.reports.report import ReportOptions, write_report

    files = write_report([report.run_dir], tmp_path / "report", ReportOptions(plots=False))
    md = Path(files.markdown).read_text()
    assert "## Model API usage" in md and "1234" in md and "0.0045" in md  # 1234·3e-6 + 56·15e-6 = 0.004542


def test_a_run_without_proxied_agents_has_no_usage_fields(tmp_path: Path) -> None:
    report = run(tmp_path, [AgentSpec(name="quiet", command="true", retry_delay_s=0)])
    attempt = records(report.run_dir)[0]["attempts"][0]
    assert "model_api" not in attempt and attempt["rule_basis"] is None
    assert "model_api_usage" not in json.loads((report.run_dir / "summary.json").read_text())


def test_the_agents_file_names_the_api_the_upstream_and_the_prices(tmp_path: Path) -> None:
    f = tmp_path / "agents.toml"
    f.write_text('[agents.a]\ncommand = "true"\nmodel_api = "anthropic"\nupstream = "https://example.org"\n'
                 'price_per_mtok = { input = 3.0, output = 15.0 }\n')
    a = load_agents_file(f)["a"]
    assert (a.proxied, a.upstream, dict(a.price_per_mtok or {})) == ("anthropic", "https://example.org",
                                                                     {"input": 3.0, "output": 15.0})
    assert AgentSpec.from_dict(a.to_dict()) == a
    assert "model_api" not in AgentSpec(name="b", command="true").to_dict()  # old manifests' shape
    for bad in ({"model_api": "gopher"}, {"upstream": "https://x"}, {"model_api": "openai", "price_per_mtok": {"in": 1}}):
        with pytest.raises(RunnerError):
            AgentSpec(name="c", command="true", **bad)  # type: ignore[arg-type]
    assert proxy.upstream_for("anthropic", None, {}) == "https://api.anthropic.com"
    assert proxy.upstream_for("openai", None, {"OPENAI_BASE_URL": "http://h:1/v1/"}) == "http://h:1/v1"
    with pytest.raises(RunnerError):
        proxy.upstream_for("openai", "ftp://x", {})
