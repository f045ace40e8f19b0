#!/usr/bin/env python3
"""fleet-tool: the fleet tier's tools from inside the sandbox (standard library only).

    fleet-tool list [PREFIX] [--offset N] [--limit N]
    fleet-tool search QUERY... [--limit N] [--kind KIND]
    fleet-tool read PATH [--start-line N] [--max-lines N]
    fleet-tool window DEVICE_ID [--metrics a,b] [--start TIME] [--end TIME] [--limit N]
    fleet-tool python [FILE | -c CODE]          (a program from FILE, -c, or standard input)
    fleet-tool call TOOL [JSON-ARGS]            (any tool with raw JSON arguments)
    fleet-tool tools                            (the tool list and the budget)
    fleet-tool mcp                              (an MCP server on stdio, for MCP-speaking agents)

Prints the server's JSON reply; exits 0 when the call succeeded, 1 on a tool error (a budget
reached among them), 2 on a usage error, 3 when the tool server cannot be reached. The server's
socket is taken from $FLEET_TOOL_SOCKET, else the file next to this script.

This file is copied next to the tool socket and run by the system interpreter: it imports
nothing outside the standard library.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import threading

SOCKET_NAME = "tools.sock"


def socket_path() -> str:
    return os.environ.get("FLEET_TOOL_SOCKET") or os.path.join(os.path.dirname(os.path.abspath(__file__)), SOCKET_NAME)


def connect() -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(socket_path())
    return s


def _readline(s: socket.socket) -> bytes:
    """One line, byte by byte: nothing past it is consumed (the MCP relay needs that)."""
    out = bytearray()
    while True:
        b = s.recv(1)
        if not b:
            break
        out += b
        if b == b"\n":
            break
    return bytes(out)


def request(obj: dict) -> dict:
    with connect() as s:
        s.sendall(json.dumps(obj).encode() + b"\n")
        f = s.makefile("rb")
        line = f.readline()
    if not line:
        raise ConnectionError("the tool server closed the connection")
    return json.loads(line)


def relay() -> int:
    """stdio <-> socket, after asking the server for MCP."""
    s = connect()
    s.sendall(b'{"op": "mcp"}\n')
    ack = _readline(s)
    if not ack.strip():
        return 3
    inp = sys.stdin.buffer
    out = sys.stdout.buffer

    def up() -> None:
        try:
            while True:
                chunk = inp.read1(65536) if hasattr(inp, "read1") else inp.read(65536)
                if not chunk:
                    break
                s.sendall(chunk)
        except OSError:
            pass
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    t = threading.Thread(target=up, daemon=True)
    t.start()
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out.write(chunk)
            out.flush()
    except OSError:
        pass
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="fleet-tool", description="The fleet tier's tools (JSON out).")
    sub = p.add_subparsers(dest="cmd")
    q = sub.add_parser("list", help="list corpus paths")
    q.add_argument("prefix", nargs="?", default="")
    q.add_argument("--offset", type=int)
    q.add_argument("--limit", type=int)
    q = sub.add_parser("search", help="search paths, headers and text")
    q.add_argument("query", nargs="+")
    q.add_argument("--limit", type=int)
    q.add_argument("--kind")
    q = sub.add_parser("read", help="read a document by line range")
    q.add_argument("path")
    q.add_argument("--start-line", type=int)
    q.add_argument("--max-lines", type=int)
    q = sub.add_parser("window", help="read a device's telemetry window as CSV")
    q.add_argument("device_id")
    q.add_argument("--metrics", help="comma-separated metric names")
    q.add_argument("--start")
    q.add_argument("--end")
    q.add_argument("--limit", type=int)
    q.add_argument("--csv", action="store_true", help="print only the CSV text")
    q = sub.add_parser("python", help="run a short Python program")
    q.add_argument("file", nargs="?")
    q.add_argument("-c", dest="code")
    q = sub.add_parser("call", help="call any tool with JSON arguments")
    q.add_argument("tool")
    q.add_argument("args", nargs="?", default="{}")
    sub.add_parser("tools", help="the tool list and the budget")
    sub.add_parser("mcp", help="serve MCP on stdio (relayed to the tool server)")
    a = p.parse_args(argv)
    if a.cmd is None:
        p.print_help()
        return 2
    if a.cmd == "mcp":
        try:
            return relay()
        except OSError as exc:
            print(json.dumps({"ok": False, "error": f"cannot reach the tool server: {exc}"}), file=sys.stderr)
            return 3

    def drop_none(d: dict) -> dict:
        return {k: v for k, v in d.items() if v is not None}

    if a.cmd == "tools":
        req: dict = {"op": "hello"}
    elif a.cmd == "list":
        req = {"tool": "list_corpus", "args": drop_none({"prefix": a.prefix or None, "offset": a.offset, "limit": a.limit})}
    elif a.cmd == "search":
        req = {"tool": "search_corpus", "args": drop_none({"query": " ".join(a.query), "limit": a.limit, "kind": a.kind})}
    elif a.cmd == "read":
        req = {"tool": "read_file", "args": drop_none({"path": a.path, "start_line": a.start_line, "max_lines": a.max_lines})}
    elif a.cmd == "window":
        metrics = [m.strip() for m in a.metrics.split(",") if m.strip()] if a.metrics else None
        req = {"tool": "read_timeseries", "args": drop_none({"device_id": a.device_id, "metrics": metrics, "start": a.start,
                                                             "end": a.end, "limit": a.limit})}
    elif a.cmd == "python":
        if a.code is not None:
            code = a.code
        elif a.file and a.file != "-":
            try:
                with open(a.file, encoding="utf-8") as f:
                    code = f.read()
            except OSError as exc:
                print(json.dumps({"ok": False, "error": f"cannot read {a.file}: {exc.strerror}"}))
                return 2
        else:
            code = sys.stdin.read()
        req = {"tool": "python", "args": {"code": code}}
    else:
        try:
            args = json.loads(a.args)
        except ValueError:
            print(json.dumps({"ok": False, "error": "ARGS must be a JSON object"}))
            return 2
        req = {"tool": a.tool, "args": args}
    try:
        reply = request(req)
    except (OSError, ValueError) as exc:
        print(json.dumps({"ok": False, "error": f"cannot reach the tool server: {exc}"}))
        return 3
    if a.cmd == "window" and a.csv and reply.get("ok"):
        sys.stdout.write(reply["result"]["csv"])
    else:
        print(json.dumps(reply, ensure_ascii=False, indent=1))
    return 0 if reply.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
