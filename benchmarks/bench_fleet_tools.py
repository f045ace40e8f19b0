"""Fleet tool timings against issue 23's targets (benchmarks, not timed tests).

Usage::

    PYTHONPATH=$PWD python benchmarks/bench_fleet_tools.py [--world DIR] [--repeats 30]

Without ``--world`` the full world is built once into a temporary directory (~30 s here).
Measures, in one run:

- the search index: building it (every document tokenised) and loading it from the world;
- the per-call overhead of ``list_corpus``, ``read_file``, ``read_timeseries`` (target < 20 ms
  on the full world, the agent excluded) and ``search_corpus`` over every document (target
  < 200 ms), each call with different arguments, through four paths:

  ``session``  :meth:`ToolSession.call` in this process (the tool itself);
  ``socket``   one request over the attempt's Unix socket on a kept connection (the server's
               round trip, what an agent's harness pays per call beyond its own code);
  ``cli``      ``python3 -I fleet-tool ...`` as a new process per call (the CLI face as an agent
               runs it: interpreter start included);
  ``mcp``      ``call_tool`` of the SDK's ``ClientSession`` over stdio through ``fleet-tool mcp``
               and the SDK server (the MCP face; its one-off start is reported apart);

- ``python``: a one-line program in the restricted child (bwrap when it works here).

The machine is shared (2 cores, several sessions): the load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import print_table  # noqa: E402

TARGET_MS = {"list_corpus": 20.0, "read_file": 20.0, "read_timeseries": 20.0, "search_corpus": 200.0}


def _ms(xs: list[float]) -> str:
    if not xs:
        return "-"
    q = statistics.quantiles(xs, n=20) if len(xs) >= 2 else [xs[0]] * 19
    return f"{statistics.median(xs) * 1000:.2f} (p95 {q[18] * 1000:.1f})"


def _calls(world: Path, n: int, seed: int = 0) -> dict[str, list[dict[str, Any]]]:
    """``n`` different argument sets per tool, drawn from the world."""
    from psab.fleet import store
    from psab.fleet.tools import world_view

    rng = random.Random(seed)
    v = world_view(world)
    docs = [m for m in store.read_manifest(world) if m["kind"] != "type"]
    words = ["hot spot", "cooling fan failure", "SF6 leak", "work order closed", "inspection readings", "tap changer",
             "overload during high ambient", "breaker operations", "battery SOC", "partial discharge"]
    out: dict[str, list[dict[str, Any]]] = {"list_corpus": [], "read_file": [], "read_timeseries": [], "search_corpus": []}
    prefixes = ["documents/alarms/", "documents/work_orders/", "documents/inspections/", "telemetry/", "documents/config/"]
    hours = int(v.hours or 24)
    from datetime import datetime, timedelta

    t0 = datetime.strptime(v.start or "2023-01-01T00:00:00Z", "%Y-%m-%dT%H:%M:%SZ")
    for i in range(n):
        out["list_corpus"].append({"prefix": prefixes[i % len(prefixes)], "offset": rng.randrange(0, 200), "limit": 100})
        out["read_file"].append({"path": rng.choice(docs)["path"], "max_lines": 240})
        dev = rng.choice(v.devices)
        a = rng.randrange(0, max(1, hours - 500))
        out["read_timeseries"].append({"device_id": dev, "start": (t0 + timedelta(hours=a)).strftime("%Y-%m-%dT%H:00:00Z"),
                                       "end": (t0 + timedelta(hours=a + 500)).strftime("%Y-%m-%dT%H:00:00Z")})
        d = rng.choice(docs)
        out["search_corpus"].append({"query": (d["doc_id"] if i % 2 else f"{rng.choice(words)} {rng.choice(d['device_ids'] or [''])}").strip(),
                                     "limit": 10})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--world", metavar="DIR", help="an already built (full) world")
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--cli-repeats", type=int, default=10, help="calls per tool through the CLI face (a process each)")
    args = ap.parse_args()
    print(f"load average: {os.getloadavg()}")
    tmp = None
    if args.world:
        world = Path(args.world)
    else:
        from psab.fleet.cli import build_world

        tmp = Path(tempfile.mkdtemp(prefix="bench_fleet_tools_"))
        world = tmp / "world"
        t = time.perf_counter()
        build_world("bench", "full", world, workers=2)
        print(f"built the full world in {time.perf_counter() - t:.1f} s")
    try:
        run(world, args)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def run(world: Path, args: argparse.Namespace) -> None:
    from psab.fleet import index
    from psab.fleet.server import ENV_TOOL, Connection, serve_attempt
    from psab.fleet.tools import Budget, ToolSession

    t = time.perf_counter()
    idx = index.build(world)
    build_s = time.perf_counter() - t
    index.save(idx, world)
    t = time.perf_counter()
    idx = index.load(world)
    load_s = time.perf_counter() - t
    assert idx is not None
    print_table("Search index (full world)", ("documents", "terms", "postings", "build s", "load ms"),
                [(idx.n_docs, len(idx.vocab), int(idx.doc_ids.size), f"{build_s:.2f}", f"{load_s * 1000:.1f}")])

    budget = Budget(calls=10**9, seconds=1e9, bytes_total=10**15)
    calls = _calls(world, args.repeats)
    times: dict[tuple[str, str], list[float]] = {}

    s = ToolSession(world, budget)
    for tool, arglist in calls.items():  # warm: imports, DuckDB, the index, the page cache
        s.call(tool, arglist[0])
    for tool, arglist in calls.items():
        for a in arglist:
            t = time.perf_counter()
            r = s.call(tool, a)
            times[("session", tool)] = times.get(("session", tool), []) + [time.perf_counter() - t]
            assert r["ok"], (tool, a, r)
    s.close()

    with serve_attempt(world, budget) as srv:
        conn = Connection(srv.socket_path)
        for tool, arglist in calls.items():
            conn.call(tool, arglist[0])
            for a in arglist:
                t = time.perf_counter()
                r = conn.call(tool, a)
                times[("socket", tool)] = times.get(("socket", tool), []) + [time.perf_counter() - t]
                assert r["ok"], r
        conn.close()
        env = {"PATH": "/usr/bin:/bin", **srv.env}
        for tool, arglist in calls.items():
            for a in arglist[:args.cli_repeats]:
                t = time.perf_counter()
                p = subprocess.run(["/usr/bin/python3", "-I", srv.env[ENV_TOOL], "call", tool, json.dumps(a)],
                                   env=env, capture_output=True)
                times[("cli", tool)] = times.get(("cli", tool), []) + [time.perf_counter() - t]
                assert p.returncode == 0, p.stdout[:300]
        mcp_start = None
        try:
            from psab.fleet.mcp_server import SyncMcpClient

            t = time.perf_counter()
            client = SyncMcpClient(srv.mcp_argv, env=env)
            mcp_start = time.perf_counter() - t
            for tool, arglist in calls.items():
                client.call(tool, arglist[0])
                for a in arglist:
                    t = time.perf_counter()
                    r = client.call(tool, a)
                    times[("mcp", tool)] = times.get(("mcp", tool), []) + [time.perf_counter() - t]
                    assert r["ok"], r
            client.close()
        except ImportError:
            print("mcp is not installed: the MCP face is not measured")
        py = []
        for i in range(5):
            t = time.perf_counter()
            r = srv.session.call("python", {"code": f"print(sum(range({i} * 1000)))"})
            py.append(time.perf_counter() - t)
            assert r["ok"], r
        isolation = r["result"]["isolation"]

    rows = []
    for tool in calls:
        sess = statistics.median(times[("session", tool)]) * 1000
        sock = statistics.median(times[("socket", tool)]) * 1000
        rows.append((tool, _ms(times[("session", tool)]), _ms(times[("socket", tool)]), _ms(times.get(("cli", tool), [])),
                     _ms(times.get(("mcp", tool), [])), f"< {TARGET_MS[tool]:g}",
                     "yes" if max(sess, sock) < TARGET_MS[tool] else "NO"))
    print_table(f"Tool-call overhead on {world} (ms, median and p95 of {args.repeats} different calls; cli: {args.cli_repeats})",
                ("tool", "session", "socket", "cli (process)", "mcp", "target", "met (session, socket)"), rows)
    if mcp_start is not None:
        print(f"MCP client start (SDK ClientSession over stdio, relay, SDK server start): {mcp_start * 1000:.0f} ms")
    print(f"python tool ({isolation}): median {statistics.median(py) * 1000:.0f} ms per call")


if __name__ == "__main__":
    main()
