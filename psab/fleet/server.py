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
#: Neutral names on purpose (issue 23): the agent must not learn from its environment that it
#: is being benchmarked, nor by whom (the compact tier's rule; the escape agent checks it).
ENV_SOCKET = "FLEET_TOOL_SOCKET"
ENV_TOOL = "FLEET_TOOL"


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


#: AF_UNIX paths are at most 107 bytes (``sun_path``); a longer one goes to a short directory.
MAX_SOCKET_PATH = 100


@contextmanager
def serve_attempt(world_root: Path, budget: Budget = DEFAULT_BUDGET, corpus: Corpus | None = None,
                  log_path: Path | None = None, attempt_dir: Path | None = None,
                  python_isolation: str = "bwrap") -> Iterator[AttemptServer]:
    """Start the attempt's tool server (a thread of this process) and yield its
    :class:`AttemptServer`; on exit stop it, end any MCP server it started and remove its
    directory. ``attempt_dir`` defaults to a fresh directory under the sandboxes' root; the
    tools' directory in it is made anew (a retry in the same directory finds no stale socket).
    When the socket's path would pass the AF_UNIX limit it lives in a short directory of its
    own under the sandboxes' root (also exposed). ``python_isolation``: the python tool's
    (:class:`psab.fleet.tools.ToolSession`; ``auto`` only when the run allowed the fallback)."""
    import tempfile

    from psab.runner.sandbox import host_agent_ids, owned_tempdir, system_python, temp_root

    passable = 0o711 if host_agent_ids() else 0o755
    made: list[Path] = []
    srv: _Server | None = None
    session: ToolSession | None = None
    try:
        if attempt_dir is None:
            base = owned_tempdir("f", temp_root())  # its owner in its name: remove_stale reclaims it
            os.chmod(base, passable)
            made.append(base)
            d = base / DIR_NAME
        else:
            d = Path(attempt_dir) / DIR_NAME
            shutil.rmtree(d, ignore_errors=True)
        d.mkdir(mode=0o711)
        os.chmod(d, passable)
        if attempt_dir is not None:
            made.append(d)
        tool = d / CLIENT_NAME
        shutil.copyfile(client_source(), tool)
        os.chmod(tool, 0o755)
        expose = [d]
        sock = d / SOCKET_NAME
        if len(str(sock)) > MAX_SOCKET_PATH:
            short = owned_tempdir("s", temp_root())
            if len(str(short / SOCKET_NAME)) > MAX_SOCKET_PATH:
                short.rmdir()
                short = Path(tempfile.mkdtemp(prefix="s-", dir="/tmp"))
            os.chmod(short, passable)
            made.append(short)
            expose.append(short)
            sock = short / SOCKET_NAME
        session = ToolSession(world_root, budget, corpus, log_path=log_path, python_isolation=python_isolation)
        srv = _Server(sock, session)
        os.chmod(sock, 0o666)
        thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                                  name="fleet-tool-server")
        thread.start()
        out = AttemptServer(socket_path=sock, env={ENV_SOCKET: str(sock), ENV_TOOL: str(tool)}, expose=expose,
                            mcp_argv=[system_python(), "-I", str(tool), "mcp"], bin_dir=d, session=session,
                            _children=srv.children, _server=srv)
        yield out
    finally:
        if srv is not None:
            srv.shutdown()
            srv.server_close()
            for c in list(srv.children):
                if c.poll() is None:
                    c.kill()
                try:
                    c.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
        if session is not None:
            session.close()
        for m in made:
            shutil.rmtree(m, ignore_errors=True)


_TOOLS_TEXT = {
    "en": """## Tools

You reach the world only through these tools (every call counts against the question's budget:
{calls} calls, {seconds:g} s, {read_lines} lines per read, {window_rows} rows per window,
{bytes_total:,} bytes of results in total; python: {python_seconds:g} s and {python_chars:,}
characters of output, standard library only, no network, no files of the world). Each prints
JSON: `{{"ok": true, "result": ...}}` or `{{"ok": false, "error": ..., "budget_reached": ...}}`.

    fleet-tool list [PREFIX] [--offset N] [--limit N]        # documents/... and telemetry/<device_id>
    fleet-tool search WORDS... [--limit N] [--kind KIND]     # kinds: type, config, alarm, work_order, maintenance_log, inspection
    fleet-tool read PATH [--start-line N] [--max-lines N]
    fleet-tool window DEVICE_ID [--metrics a,b] [--start ISO] [--end ISO] [--limit N] [--csv]
    fleet-tool python [FILE | -c CODE]                       # or the program on standard input

`fleet-tool` is `{tool}` (run it with `python3` if it is not on your PATH). An MCP client gets
the same tools by starting `{mcp}` (stdio).
""",
    "ru": """## Инструменты

Доступ к данным — только через эти инструменты (каждый вызов расходует бюджет вопроса:
{calls} вызовов, {seconds:g} с, {read_lines} строк за чтение, {window_rows} строк ряда за вызов,
всего {bytes_total:,} байт результатов; python: {python_seconds:g} с и {python_chars:,} символов
вывода, только стандартная библиотека, без сети и без файлов мира). Каждый печатает JSON:
`{{"ok": true, "result": ...}}` или `{{"ok": false, "error": ..., "budget_reached": ...}}`.

    fleet-tool list [ПРЕФИКС] [--offset N] [--limit N]       # documents/... и telemetry/<device_id>
    fleet-tool search СЛОВА... [--limit N] [--kind ВИД]      # виды: type, config, alarm, work_order, maintenance_log, inspection
    fleet-tool read ПУТЬ [--start-line N] [--max-lines N]
    fleet-tool window DEVICE_ID [--metrics a,b] [--start ISO] [--end ISO] [--limit N] [--csv]
    fleet-tool python [ФАЙЛ | -c КОД]                        # или программа на стандартном входе

`fleet-tool` — это `{tool}` (запускайте через `python3`, если его нет в PATH). MCP-клиент
получает те же инструменты, запустив `{mcp}` (stdio).
""",
}


def tools_text(server: AttemptServer, lang: str = "en") -> str:
    """The tools section of an agent's instructions (Markdown, ``en`` or ``ru``): the commands,
    the budget in force and the MCP command."""
    b = server.session.budget
    return _TOOLS_TEXT["ru" if lang == "ru" else "en"].format(
        tool=server.env[ENV_TOOL], mcp=" ".join(server.mcp_argv), calls=b.calls, seconds=b.seconds,
        read_lines=b.read_lines, window_rows=b.window_rows, bytes_total=b.bytes_total,
        python_seconds=b.python_seconds, python_chars=b.python_chars)


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
