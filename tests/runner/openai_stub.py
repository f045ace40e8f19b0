"""A stub OpenAI-compatible server for the runner's tests: loopback only, bounded in time.

It answers ``POST /v1/chat/completions`` as the server's ``mode`` says — ``perfect`` (the
``reply`` text the test set, e.g. the reference solution), ``garbage`` (prose, no JSON),
``wrong`` (a JSON object that is no answer), ``malformed`` (a body that is not a chat
completion), ``429`` or ``500`` (the provider's error, in OpenAI's error shape), or ``flaky``
(429 on the first request, then ``perfect``) — and counts the requests it saw.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: No request may keep the stub busy longer than this (seconds).
REQUEST_TIMEOUT_S = 10.0


class StubState:
    def __init__(self) -> None:
        self.mode = "perfect"
        self.reply = "{}"
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()


def _completion(text: str, model: str) -> dict[str, Any]:
    # the shape of https://platform.openai.com/docs/api-reference/chat/object, with usage set
    return {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def _handler(state: StubState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = REQUEST_TIMEOUT_S

        def log_message(self, *args: Any) -> None:  # keep pytest output clean
            pass

        def _send(self, status: int, body: Any, reason: str | None = None) -> None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status, reason)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": "stub-model", "object": "model", "owned_by": "psab"}]})
            else:
                self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

        def do_POST(self) -> None:  # noqa: N802
            length = min(int(self.headers.get("Content-Length") or 0), 32 << 20)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            with state.lock:
                state.requests.append(body)
                n = len(state.requests)
                mode = state.mode
            if mode == "flaky":
                mode = "429" if n == 1 else "perfect"
            model = str(body.get("model", "stub-model"))
            if mode == "429":
                self._send(429, {"error": {"message": "Rate limit reached for requests", "type": "requests",
                                           "code": "rate_limit_exceeded"}})
            elif mode == "500":
                self._send(500, {"error": {"message": "The server had an error while processing your request.",
                                           "type": "server_error"}})
            elif mode == "malformed":
                self._send(200, b"<html>upstream returned something else</html>")
            elif mode == "garbage":
                self._send(200, _completion("I am not sure. Maybe the admittance is large?", model))
            elif mode == "wrong":
                self._send(200, _completion('```json\n{"answer": {"nothing": 1}, "rationale": "guess"}\n```', model))
            else:
                # the file name before the block is aider's "whole" edit format; others ignore it
                self._send(200, _completion("solution.json\n```json\n" + state.reply + "\n```", model))

    return Handler


@contextmanager
def stub_server() -> Iterator[tuple[str, StubState]]:
    """(base URL ending in ``/v1``, state) of a stub listening on 127.0.0.1 for the block."""
    state = StubState()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
