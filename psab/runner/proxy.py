"""The recording proxy for an agent's model API (issue 32, item 5): provider failures as facts.

An agent that names its model API (``model_api = "openai"`` or ``"anthropic"`` in its spec;
``builtin:openai`` always does) talks to its provider through a proxy the runner starts for
each attempt on the host's loopback: the agent's ``OPENAI_BASE_URL`` (and ``OPENAI_API_BASE``,
litellm's) or ``ANTHROPIC_BASE_URL`` points at the proxy, which forwards every request to the
real upstream unchanged (streamed responses are passed on as they arrive) and records, per
request, the upstream's status, the latency, the time to the first byte and the token usage the
upstream reported (``usage`` of an OpenAI chat completion or Responses API object, of an
Anthropic message, or of the events of a streamed one).

An attempt of a proxied agent that leaves no acceptable answer is an infrastructure failure
only when the proxy saw its *last* request fail upstream — 429, 408, 409, 5xx (529 included), an
authentication refusal (401/403), or no response at all (the upstream unreachable) — never for
what the agent prints: an agent that prints "429 rate limit" and exits 75 earns nothing. Text
rules (:data:`psab.runner.agents.DEFAULT_INFRA_RULES`) remain for agents whose client cannot be
pointed at a base URL; the record says which basis applied (``rule_basis``).

The upstream of a proxied agent is its ``upstream`` (an agents-file key), else the runner's own
``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``, else the provider's public address.
"""

from __future__ import annotations

import http.client
import json
import os
import socketserver
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from psab.errors import RunnerError

#: API kinds: (the variables that carry the base URL, the provider's public base URL).
MODEL_APIS: dict[str, tuple[tuple[str, ...], str]] = {
    "openai": (("OPENAI_BASE_URL", "OPENAI_API_BASE"), "https://api.openai.com/v1"),
    "anthropic": (("ANTHROPIC_BASE_URL",), "https://api.anthropic.com"),
}

#: Upstream statuses that are the provider's failure, by the rule that names them.
#: (409: OpenAI's "conflict, please retry"; 401/403: not the agent's doing, as the text rule ``auth``.)
FAILURE_RULES = {429: "proxy-rate-limit", 408: "proxy-timeout", 409: "proxy-conflict", 401: "proxy-auth",
                 403: "proxy-auth"}
#: A request body larger than this is refused (413): a prompt of megabytes is no model call.
MAX_REQUEST_BYTES = 32 << 20
#: How long the proxy waits for the upstream (connect and each read).
UPSTREAM_TIMEOUT_S = 600.0
#: At most this many requests of one attempt are kept one by one in its record (all are counted).
RECORD_REQUESTS = 50
#: Headers that belong to one connection, not to the request (RFC 9110 §7.6.1), plus the ones
#: the proxy sets itself.
_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te",
        "trailer", "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding"}


def failure_rule(status: int | None) -> str | None:
    """The rule an upstream status names, or None (the request did not fail upstream)."""
    if status is None:
        return "proxy-transport"
    if status in FAILURE_RULES:
        return FAILURE_RULES[status]
    if 500 <= status <= 599:
        return "proxy-server-error"
    return None


def upstream_for(api: str, upstream: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The base URL a proxied agent's requests go to (see the module docstring)."""
    if api not in MODEL_APIS:
        raise RunnerError(f"model_api must be one of {', '.join(MODEL_APIS)}, not {api!r}")
    env = os.environ if environ is None else environ
    names, public = MODEL_APIS[api]
    url = upstream or next((env[n] for n in names if env.get(n)), None) or public
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RunnerError(f"model API upstream {url!r}: give an http:// or https:// URL")
    return url.rstrip("/")


@dataclass(frozen=True)
class ProxiedRequest:
    """One request as the proxy saw it (times in seconds; tokens as the upstream reported)."""

    method: str
    path: str
    status: int | None
    latency_s: float
    first_byte_s: float | None
    input_tokens: int | None
    output_tokens: int | None
    error: str | None = None


def _usage(obj: Any, acc: dict[str, int]) -> None:
    """Fold the token counts an API object reports into ``acc`` (the largest seen: a stream
    reports running totals, Anthropic's input in ``message_start`` and output in ``message_delta``)."""
    if not isinstance(obj, dict):
        return
    for holder in (obj, obj.get("response"), obj.get("message")):
        u = holder.get("usage") if isinstance(holder, dict) else None
        if not isinstance(u, dict):
            continue
        for key, names in (("input", ("prompt_tokens", "input_tokens")), ("output", ("completion_tokens", "output_tokens"))):
            for n in names:
                v = u.get(n)
                if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
                    acc[key] = max(acc.get(key, 0), v)


class _UsageScanner:
    """Reads token usage from a response as it passes: a JSON body whole, or a stream's
    ``data:`` lines one at a time (bounded memory: a line longer than 1 MB is skipped)."""

    def __init__(self, content_type: str) -> None:
        self.stream = "event-stream" in content_type
        self.buf = b""
        self.acc: dict[str, int] = {}
        self.body: list[bytes] = []
        self.size = 0

    def feed(self, chunk: bytes) -> None:
        if not self.stream:
            if self.size <= 8 << 20:
                self.body.append(chunk)
            self.size += len(chunk)
            return
        self.buf += chunk
        *lines, self.buf = self.buf.split(b"\n")
        if len(self.buf) > 1 << 20:
            self.buf = b""
        for line in lines:
            self._line(line)

    def _line(self, line: bytes) -> None:
        line = line.strip()
        if line.startswith(b"data:"):
            try:
                _usage(json.loads(line[5:]), self.acc)
            except ValueError:
                pass

    def done(self) -> dict[str, int]:
        if self.stream:
            self._line(self.buf)
        elif self.size <= 8 << 20:
            try:
                _usage(json.loads(b"".join(self.body)), self.acc)
            except ValueError:
                pass
        return self.acc


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _ProxyServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # the record is the log

    def _forward(self) -> None:
        t0 = time.perf_counter()
        up = self.server.upstream
        length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked" or (length and int(length) > MAX_REQUEST_BYTES):
            self._reply(413 if length else 411, "proxy: give the request a Content-Length of at most 32 MB")
            return
        body = self.rfile.read(int(length)) if length else b""
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
        headers["Host"] = up.netloc
        headers["Accept-Encoding"] = "identity"  # the usage is read as it passes
        conn_cls = http.client.HTTPSConnection if up.scheme == "https" else http.client.HTTPConnection
        status: int | None = None
        first: float | None = None
        error: str | None = None
        scanner = _UsageScanner("")
        recorded = False

        def record() -> None:
            # before the reply's last bytes: a client that has the whole reply finds it recorded
            nonlocal recorded
            if recorded:
                return
            recorded = True
            usage = scanner.done()
            self.server.record(ProxiedRequest(
                method=self.command, path=self.path.split("?")[0][:200], status=status,
                latency_s=round(time.perf_counter() - t0, 4), first_byte_s=round(first, 4) if first is not None else None,
                input_tokens=usage.get("input"), output_tokens=usage.get("output"), error=error))

        try:
            conn = conn_cls(up.hostname, up.port, timeout=UPSTREAM_TIMEOUT_S)
            try:
                conn.request(self.command, self.path, body=body or None, headers=headers)
                resp = conn.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                error = f"transport: {type(exc).__name__}: {exc}"[:300]
                record()
                self._reply(502, f"proxy: the model API upstream did not answer ({error})")
                return
            status = resp.status
            first = time.perf_counter() - t0
            scanner = _UsageScanner(resp.getheader("Content-Type", ""))
            self.send_response(resp.status, resp.reason)
            for k, v in resp.getheaders():
                if k.lower() not in _HOP:
                    self.send_header(k, v)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                while True:
                    chunk = resp.read1(65536)
                    if not chunk:
                        break
                    scanner.feed(chunk)
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                record()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (OSError, http.client.HTTPException) as exc:
                error = f"stream: {type(exc).__name__}: {exc}"[:300]
                self.close_connection = True
            finally:
                conn.close()
        finally:
            record()

    def _reply(self, status: int, message: str) -> None:
        data = json.dumps({"error": {"message": message, "type": "proxy_error"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.upstream = urlsplit(upstream)
        self.requests: list[ProxiedRequest] = []
        self.lock = threading.Lock()

    def record(self, r: ProxiedRequest) -> None:
        with self.lock:
            self.requests.append(r)


class _UnixProxyServer(socketserver.ThreadingUnixStreamServer):
    """The same proxy on a Unix socket (what a sandbox with its own network reaches, through
    :data:`FORWARDER`), recording into the TCP server's list."""

    daemon_threads = True

    def __init__(self, path: str, twin: _ProxyServer) -> None:
        super().__init__(path, _Handler)
        self.upstream, self.requests, self.lock, self.record = twin.upstream, twin.requests, twin.lock, twin.record  # type: ignore[method-assign]


#: The port the model API has inside a sandbox of its own network (``--network proxy``).
SANDBOX_PORT = 8642

#: Runs inside the sandbox (the system ``python3 -I -S``) in front of the agent when the sandbox
#: has its own network namespace: listens on 127.0.0.1:PORT there — the namespace's only
#: interface is its loopback — and relays every connection to the proxy's Unix socket, bound
#: read-only into the sandbox; then runs the agent and exits with its status (128 + n for a
#: signal, as a shell reports it). The proxy's socket is the sandbox's only way out.
FORWARDER = r"""
import os, socket, subprocess, sys, threading
sock_path, port, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port))
srv.listen(64)
def pump(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
def relay(c):
    u = socket.socket(socket.AF_UNIX)
    try:
        u.connect(sock_path)
    except OSError:
        c.close()
        return
    t = threading.Thread(target=pump, args=(u, c), daemon=True)
    t.start()
    pump(c, u)
    t.join()
    c.close()
    u.close()
def serve():
    while True:
        c, _ = srv.accept()
        threading.Thread(target=relay, args=(c,), daemon=True).start()
threading.Thread(target=serve, daemon=True).start()
try:
    code = subprocess.call(argv, close_fds=True)
except OSError as exc:
    sys.stderr.write(f"{argv[0]}: {exc.strerror}\n")
    code = 127
sys.exit(128 - code if code < 0 else code)
"""


@dataclass
class ModelProxy:
    """A running proxy: the base URL the agent gets and what it saw so far."""

    api: str
    upstream: str
    base_url: str
    _server: _ProxyServer

    @property
    def requests(self) -> list[ProxiedRequest]:
        with self._server.lock:
            return list(self._server.requests)

    def env(self) -> dict[str, str]:
        """The agent's variables that point its client at the proxy."""
        return dict.fromkeys(MODEL_APIS[self.api][0], self.base_url)


@contextmanager
def serve(api: str, upstream: str, unix_path: str | None = None) -> Iterator[ModelProxy]:
    """Run a proxy to ``upstream`` (a base URL) for one attempt; the agent's base URL keeps the
    upstream's path (``http://127.0.0.1:PORT/v1`` for ``https://api.openai.com/v1``). With
    ``unix_path`` it also listens on that Unix socket (0666), and the base URL is the one the
    sandbox's :data:`FORWARDER` gives (``http://127.0.0.1:8642/v1``)."""
    srv = _ProxyServer(upstream)
    servers: list[socketserver.BaseServer] = [srv]
    if unix_path is not None:
        servers.append(_UnixProxyServer(unix_path, srv))
        os.chmod(unix_path, 0o666)
    for s in servers:
        threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                         name="model-api-proxy").start()
    port = SANDBOX_PORT if unix_path is not None else srv.server_address[1]
    path = urlsplit(upstream).path.rstrip("/")
    try:
        yield ModelProxy(api, upstream, f"http://127.0.0.1:{port}{path}", srv)
    finally:
        for s in servers:
            s.shutdown()
            s.server_close()


def price_of(prices: Mapping[str, float] | None, input_tokens: int, output_tokens: int) -> float | None:
    """US dollars for the tokens at ``prices`` (USD per million input/output tokens), or None."""
    if not prices:
        return None
    return round(input_tokens * float(prices.get("input", 0.0)) / 1e6
                 + output_tokens * float(prices.get("output", 0.0)) / 1e6, 8)


def attempt_usage(requests: list[ProxiedRequest], prices: Mapping[str, float] | None) -> dict[str, Any]:
    """The record's ``model_api`` of one attempt: the counts, tokens and cost, and the first
    :data:`RECORD_REQUESTS` requests one by one."""
    inp = sum(r.input_tokens or 0 for r in requests)
    out = sum(r.output_tokens or 0 for r in requests)
    return {
        "n_requests": len(requests),
        "n_failed": sum(failure_rule(r.status) is not None for r in requests),
        "input_tokens": inp, "output_tokens": out, "cost_usd": price_of(prices, inp, out),
        "requests": [asdict(r) for r in requests[:RECORD_REQUESTS]],
    }


def classify_from_proxy(requests: list[ProxiedRequest]) -> tuple[str, str] | None:
    """(rule, reason) when the proxy saw the attempt's last request fail upstream, else None."""
    if not requests:
        return None
    last = requests[-1]
    rule = failure_rule(last.status)
    if rule is None:
        return None
    what = f"status {last.status}" if last.status is not None else (last.error or "no response")
    return rule, (f"the model API answered the agent's last request ({last.method} {last.path}) with {what}, "
                  f"as the runner's proxy saw it ({len(requests)} request(s) in all)")


__all__ = ["MODEL_APIS", "ModelProxy", "ProxiedRequest", "attempt_usage", "classify_from_proxy", "failure_rule",
           "price_of", "serve", "upstream_for"]
