"""The fleet tools as an MCP server (the official ``mcp`` SDK, 2.x low-level ``Server``, stdio
transport), so MCP-speaking agents use them natively (issue 23 item 1b).

Two ways to run it:

``python -m psab.fleet.mcp_server --socket PATH``
    the tools of a running per-attempt server (:func:`psab.fleet.server.serve_attempt`): every
    call goes through its socket, so the budget and the log are the attempt's. This is how an
    agent in the sandbox gets it: it runs ``fleet-tool mcp`` (``AttemptServer.mcp_argv``), a
    standard-library relay between its stdio and the socket; the server answers the relay's
    ``{"op": "mcp"}`` by starting this module OUTSIDE the sandbox with the connection as its
    stdin and stdout. psab, its virtual environment and the SDK never enter the sandbox.
``python -m psab.fleet.mcp_server --world DIR``
    a session of its own over a stored world (Table 7 budgets), for use outside ``psab run``.

Every tool result is one text block holding the same JSON reply the CLI face prints
(``{"ok": true, "result": ...}`` or ``{"ok": false, "error": ..., "budget_reached": ...}``),
also given as structured content; a tool error sets ``isError``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

Reply = dict[str, Any]


def make_server(call: Callable[[str, dict[str, Any]], Reply]) -> Any:
    """An SDK low-level server whose tools are :func:`psab.fleet.tools.describe_tools`, each
    call answered by ``call(tool, args)`` (blocking; run in a worker thread)."""
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server

    from psab.fleet.tools import describe_tools

    tools = [types.Tool(name=t["name"], description=t["description"], input_schema=t["input_schema"])
             for t in describe_tools()]

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        args = params.arguments if params.arguments is not None else {}
        reply = await anyio.to_thread.run_sync(call, params.name, args)
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(reply, ensure_ascii=False))],
                                    structured_content=reply, is_error=not reply.get("ok", False))

    return Server("fleet-tools", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


async def serve_stdio(call: Callable[[str, dict[str, Any]], Reply]) -> None:
    from mcp.server.stdio import stdio_server

    server = make_server(call)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def _socket_backend(path: str) -> Callable[[str, dict[str, Any]], Reply]:
    from psab.fleet.server import Connection

    conn: list[Connection] = []
    lock = threading.Lock()

    def call(tool: str, args: dict[str, Any]) -> Reply:
        with lock:
            for attempt in range(2):
                try:
                    if not conn:
                        conn.append(Connection(Path(path), timeout_s=120.0))
                    return conn[0].call(tool, args)
                except (OSError, ValueError, ConnectionError) as exc:
                    if conn:
                        conn.pop().close()
                    if attempt:
                        return {"ok": False, "error": f"the tool server cannot be reached: {exc}", "budget_reached": False}
        return {"ok": False, "error": "the tool server cannot be reached", "budget_reached": False}

    return call


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m psab.fleet.mcp_server", description=__doc__.split("\n\n")[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--socket", help="a per-attempt tool server's socket")
    g.add_argument("--world", help="a world directory (a session of its own, Table 7 budgets)")
    p.add_argument("--allow-unsandboxed-python-tool", action="store_true",
                   help="with --world: where bwrap does not work, run the python tool without it (weaker)")
    a = p.parse_args(argv)
    if a.socket:
        call = _socket_backend(a.socket)
    else:
        from psab.fleet.tools import ToolSession

        call = ToolSession(Path(a.world),
                           python_isolation="auto" if a.allow_unsandboxed_python_tool else "bwrap").call
    asyncio.run(serve_stdio(call))
    return 0


class SyncMcpClient:
    """A blocking client on the SDK's own ``ClientSession`` over ``stdio_client``: starts
    ``argv`` (e.g. ``AttemptServer.mcp_argv``), initialises, then ``call(tool, args)`` returns
    the JSON reply. Runs the SDK's event loop in a thread of its own (tests, benchmarks, the
    built-in agents of the runner)."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None, timeout_s: float = 60.0) -> None:
        self.timeout_s = timeout_s
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="mcp-client")
        self._thread.start()
        self._ready: asyncio.Future[Any] | None = None
        self._stop: asyncio.Event | None = None
        self._session: Any = None
        fut = asyncio.run_coroutine_threadsafe(self._open(argv, env), self._loop)
        self.tools: list[str] = fut.result(timeout_s)

    async def _open(self, argv: list[str], env: dict[str, str] | None) -> list[str]:
        self._started: asyncio.Future[list[str]] = self._loop.create_future()
        self._stop = asyncio.Event()
        self._task = self._loop.create_task(self._run(argv, env))
        return await self._started

    async def _run(self, argv: list[str], env: dict[str, str] | None) -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=argv[0], args=list(argv[1:]), env=env)
        try:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                self._session = session
                self._started.set_result([t.name for t in listed.tools])
                assert self._stop is not None
                await self._stop.wait()
        except BaseException as exc:  # surfaced to the caller of __init__
            if not self._started.done():
                self._started.set_exception(exc)
            elif not isinstance(exc, asyncio.CancelledError | GeneratorExit):
                raise

    async def _call(self, tool: str, args: dict[str, Any]) -> Reply:
        res = await self._session.call_tool(tool, args)
        text = "".join(getattr(c, "text", "") for c in res.content)
        try:
            reply = json.loads(text)
        except ValueError:
            reply = {"ok": False, "error": text[:500] or "empty MCP tool result", "budget_reached": False}
        return reply

    def call(self, tool: str, args: dict[str, Any]) -> Reply:
        return asyncio.run_coroutine_threadsafe(self._call(tool, args), self._loop).result(self.timeout_s)

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
            try:
                asyncio.run_coroutine_threadsafe(asyncio.wait_for(asyncio.shield(self._task), 10), self._loop).result(15)
            except Exception:
                pass
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


if __name__ == "__main__":
    raise SystemExit(main())
