"""The per-attempt tool server: one :class:`~psab.fleet.tools.ToolSession` behind a Unix socket,
outside the sandbox, speaking JSON lines; the agent reaches it through two faces.

- **CLI face.** ``fleet-tool`` (:mod:`psab.fleet.fleet_tool`, standard library only: psab's
  environment is hidden inside the sandbox) is copied next to the socket and run by the agent
  with the system ``python3``: ``fleet-tool list|search|read|window|python ...``, JSON out.
- **MCP face.** ``fleet-tool mcp`` is a stdio relay: it connects to the socket, asks for MCP
  (``{"op": "mcp"}``) and then copies bytes both ways. The server answers that request by
  starting :mod:`psab.fleet.mcp_server` (the official ``mcp`` SDK, stdio transport) OUTSIDE the
  sandbox with the connection as its standard input and output; that MCP server calls the
  tools back through the same socket. So both faces share one session: one budget, one log.

Protocol (one JSON object per line, at most :data:`MAX_LINE` bytes): a request
``{"tool": NAME, "args": {...}}`` is answered by the session's reply
(``{"ok": true, "result": ...}`` or ``{"ok": false, "error": ..., "budget_reached": ...}``);
``{"op": "hello"}`` by the tool list and the budget. A line that is not JSON, or too long, is
answered with an error (the connection is closed after a too-long line). Every call is
appended to the log file as it happens.

The socket's directory is made passable (0711) and the socket writable (0666) for the sandbox's
host user (a root runner starts bwrap as uid 65534); ``.expose`` lists the directory, which the
sandbox binds read-only at the same path (connecting to a socket needs no write access to the
mount). It must lie where that user may pass (the attempt directory made by
:func:`psab.runner.sandbox.make_sandbox` is).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import socketserver
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from psab.fleet.tools import DEFAULT_BUDGET, TOOLS, Budget, Corpus, ToolSession

MAX_LINE = 1 << 20
#: Connections one attempt's server holds at once (each is a thread of the runner); more are
#: closed at once.
MAX_CONNECTIONS = 32
#: MCP server processes one attempt may hold at once (each is an interpreter with the SDK, ~80 MB):
#: an agent opening connection after connection gets no more.
MAX_MCP_SESSIONS = 4
#: Address space of each MCP server process: the SDK reads whole JSON-RPC lines, and the agent
#: writes them.
MCP_MEMORY_BYTES = 4 << 30
CLIENT_NAME = "fleet-tool"
SOCKET_NAME = "tools.sock"
DIR_NAME = "fleet-tools"
#: Environment variables the agent gets (inside the sandbox the paths are the same as outside).
ENV_SOCKET = "PSAB_FLEET_SOCKET"
ENV_TOOL = "PSAB_FLEET_TOOL"


def client_source() -> Path:
    return Path(__file__).with_name("fleet_tool.py")


@dataclass
class AttemptServer:
    """What :func:`serve_attempt` yields."""

    socket_path: Path
    env: dict[str, str]
    expose: list[Path]
    mcp_argv: list[str]
    bin_dir: Path  # holds ``fleet-tool``: put it first on the agent's PATH
    session: ToolSession
    _children: list[subprocess.Popen[bytes]] = field(default_factory=list)
    _server: Any = None

    @property
    def open_connections(self) -> int:
        return self._server.open_connections if self._server is not None else 0


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        while True:
            try:
                line = self.rfile.readline(MAX_LINE + 1)
            except OSError:
                return
            if not line:
                return
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                self._send({"ok": False, "error": f"request too long (at most {MAX_LINE} bytes a line)",
                            "budget_reached": False})
                return
            if not line.strip():
                continue
            try:
                req = json.loads(line)
            except (ValueError, RecursionError):  # RecursionError: arrays nested past the parser's stack
                self._send({"ok": False, "error": "request is not JSON", "budget_reached": False})
                continue
            if not isinstance(req, dict):
                self._send({"ok": False, "error": "request must be a JSON object", "budget_reached": False})
                continue
            op = req.get("op")
            if op == "hello":
                self._send({"ok": True, "result": {"tools": list(TOOLS), "budget": vars(self.server.session.budget)}})
            elif op == "mcp":
                self._send({"ok": True, "result": {"mcp": True}})
                self._mcp()
                return
            elif op is not None:
                self._send({"ok": False, "error": f"unknown op {str(op)[:40]!r}", "budget_reached": False})
            else:
                self._send(self.server.session.call(req.get("tool"), req.get("args", {})))  # type: ignore[arg-type]

    def _send(self, obj: dict[str, Any]) -> None:
        try:
            self.wfile.write(json.dumps(obj, ensure_ascii=False).encode() + b"\n")
            self.wfile.flush()
        except OSError:
            pass

    def _mcp(self) -> None:
        """Hand the connection to an MCP server process (stdio on the socket)."""
        import psab

        env = dict(os.environ)
        root = str(Path(psab.__file__).resolve().parents[1])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        fd = self.connection.fileno()
        with self.server.lock:
            live = sum(1 for c in self.server.children if c.poll() is None)
            if live >= MAX_MCP_SESSIONS:
                return  # the connection closes: the agent's MCP client sees the server go
            argv = [sys.executable, "-m", "psab.fleet.mcp_server", "--socket", str(self.server.path)]
            prlimit = shutil.which("prlimit")
            if prlimit:  # the agent writes what this process parses: its memory is bounded
                argv = [prlimit, f"--as={MCP_MEMORY_BYTES}", "--", *argv]
            try:
                child = subprocess.Popen(argv, stdin=fd, stdout=fd, stderr=subprocess.DEVNULL, env=env, close_fds=True)
            except OSError:
                return
            self.server.children.append(child)
        child.wait()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = False  # an agent's open connection never holds up the end of the attempt
    allow_reuse_address = True

    def __init__(self, path: Path, session: ToolSession) -> None:
        self.path = path
        self.session = session
        self.children: list[subprocess.Popen[bytes]] = []
        self.lock = threading.Lock()
        self.open_connections = 0
        super().__init__(str(path), _Handler)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        # a thread per connection: an agent opening connection after connection gets no more
        with self.lock:
            if self.open_connections >= MAX_CONNECTIONS:
                return False
            self.open_connections += 1
            return True

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self.lock:
                self.open_connections -= 1


@contextmanager
def serve_attempt(world_root: Path, budget: Budget = DEFAULT_BUDGET, corpus: Corpus | None = None,
                  log_path: Path | None = None, attempt_dir: Path | None = None) -> Iterator[AttemptServer]:
    """Start the attempt's tool server (a thread of this process) and yield its
    :class:`AttemptServer`; on exit stop it, end any MCP server it started and remove its
    directory. ``attempt_dir`` defaults to a fresh directory under the sandboxes' root."""
    from psab.runner.sandbox import host_agent_ids, temp_root

    made_base = attempt_dir is None
    base = Path(attempt_dir) if attempt_dir is not None else Path(__import__("tempfile").mkdtemp(prefix="f-", dir=temp_root()))
    d = base / DIR_NAME
    d.mkdir(mode=0o711)
    passable = 0o711 if host_agent_ids() else 0o755
    os.chmod(d, passable)
    if made_base:
        os.chmod(base, passable)
    tool = d / CLIENT_NAME
    shutil.copyfile(client_source(), tool)
    os.chmod(tool, 0o755)
    sock = d / SOCKET_NAME
    session = ToolSession(world_root, budget, corpus, log_path=log_path)
    srv = _Server(sock, session)
    os.chmod(sock, 0o666)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                              name="fleet-tool-server")
    thread.start()
    py = "/usr/bin/python3"
    out = AttemptServer(socket_path=sock, env={ENV_SOCKET: str(sock), ENV_TOOL: str(tool)}, expose=[d],
                        mcp_argv=[py, "-I", str(tool), "mcp"], bin_dir=d, session=session, _children=srv.children, _server=srv)
    try:
        yield out
    finally:
        srv.shutdown()
        srv.server_close()
        for c in list(srv.children):
            if c.poll() is None:
                c.kill()
            try:
                c.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        session.close()
        shutil.rmtree(base if made_base else d, ignore_errors=True)


def request(socket_path: Path, tool: str, args: dict[str, Any], timeout_s: float = 60.0) -> dict[str, Any]:
    """One call over the socket from this process (tests, benchmarks, the MCP server)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout_s)
        s.connect(str(socket_path))
        s.sendall(json.dumps({"tool": tool, "args": args}).encode() + b"\n")
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            buf += chunk
    return json.loads(buf)


class Connection:
    """A persistent connection to a tool server (one socket for many calls)."""

    def __init__(self, socket_path: Path, timeout_s: float = 60.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout_s)
        self.sock.connect(str(socket_path))
        self.rfile = self.sock.makefile("rb")

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        self.sock.sendall(json.dumps({"tool": tool, "args": args}).encode() + b"\n")
        line = self.rfile.readline()
        if not line:
            raise ConnectionError("the tool server closed the connection")
        return json.loads(line)

    def close(self) -> None:
        self.rfile.close()
        self.sock.close()
