"""A stub OpenAI-compatible server for the runner's tests: loopback only, bounded in time.

It answers ``POST /v1/chat/completions`` as the server's ``mode`` says — ``perfect`` (the
``reply`` text the test set, e.g. the reference solution), ``garbage`` (prose, no JSON),
``wrong`` (a JSON object that is no answer), ``malformed`` (a body that is not a chat
completion), ``429`` or ``500`` (the provider's error, in OpenAI's error shape), or ``flaky``
(429 on the first request, then ``perfect``) — and counts the requests it saw.
"""

from __future__ import annotations

import json
import re
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


def _solution_path(body: dict[str, Any]) -> str:
    """Where the instructions in the request say the solution goes (psab's own words)."""
    for m in body.get("messages") or []:
        content = m.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        found = re.search(r"Write your solution to `([^`]+)`", text)
        if found:
            return found.group(1)
    return "solution.json"


def _tool_names(body: dict[str, Any]) -> set[str]:
    return {str((t.get("function") or {}).get("name")) for t in body.get("tools") or [] if isinstance(t, dict)}


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

        def _stream(self, message: dict[str, Any], finish: str, model: str) -> None:
            """The same reply as server-sent events (``stream: true``): one delta, then the end."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            delta = {"role": "assistant", **{k: v for k, v in message.items() if k != "role"}}
            if "tool_calls" in delta:
                delta["tool_calls"] = [{**c, "index": i} for i, c in enumerate(delta["tool_calls"])]
            for chunk in ({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                          {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}):
                data = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 0, "model": model, **chunk}
                self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

        def _reply(self, body: dict[str, Any], text: str, model: str) -> None:
            """A perfect reply: a tool-using client (one that offers a ``write`` tool) gets a call
            writing the solution file, then, once the tool has run, a closing word."""
            messages = body.get("messages") or []
            message: dict[str, Any] = {"role": "assistant", "content": text}
            finish = "stop"
            if "write" in _tool_names(body) and not (messages and messages[-1].get("role") == "tool"):
                args = {"filePath": _solution_path(body), "content": text.split("```json\n", 1)[-1].rsplit("```", 1)[0]}
                message = {"role": "assistant", "content": None, "tool_calls": [
                    {"id": f"call_{len(state.requests)}", "type": "function",
                     "function": {"name": "write", "arguments": json.dumps(args)}}]}
                finish = "tool_calls"
            elif messages and messages[-1].get("role") == "tool":
                message = {"role": "assistant", "content": "Done: the solution file is written."}
            if body.get("stream"):
                self._stream(message, finish, model)
            else:
                done = _completion("", model)
                done["choices"][0].update(message=message, finish_reason=finish)
                self._send(200, done)

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
                self._reply({**body, "tools": []}, "I am not sure. Maybe the admittance is large?", model)
            elif mode == "wrong":
                self._reply(body, '```json\n{"answer": {"nothing": 1}, "rationale": "guess"}\n```', model)
            else:
                # the file name before the block is aider's "whole" edit format; others ignore it
                self._reply(body, "solution.json\n```json\n" + state.reply + "\n```", model)

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
