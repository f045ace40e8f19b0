"""The fleet tools (issue 23; PowerBench Tables 3, 7 and 9) through every face: the session
itself, the ``fleet-tool`` command over the per-attempt socket, and the MCP server.

Expected values come from outside the tools: document lines are read from the file, telemetry
from the Parquet file with pyarrow (not DuckDB, which the tool uses), budgets from Table 7 and
evidence recall from :mod:`psab.fleet.grading` against keys computed by the question generator.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

from psab.fleet import grading, questions, store  # noqa: E402
from psab.fleet.cli import build_world  # noqa: E402
from psab.fleet.server import ENV_SOCKET, ENV_TOOL  # noqa: E402
from psab.fleet.tools import DEFAULT_BUDGET, TOOLS, Budget, Corpus, ToolSession  # noqa: E402

SYSTEM_PY = "/usr/bin/python3"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fleet") / "world"
    build_world("tools-test", "test", root)
    return root


@pytest.fixture(scope="module")
def keys(world: Path) -> list[dict[str, Any]]:
    return questions.generate(world, 4)[1]


# ------------------------------------------------------------------------------ faces


class DirectFace:
    name = "session"

    def __init__(self, world: Path, budget: Budget, corpus: Corpus | None) -> None:
        self.session = ToolSession(world, budget, corpus)

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.session.call(tool, args)

    def close(self) -> None:
        self.session.close()


class CliFace:
    """``fleet-tool call TOOL JSON`` run by the system interpreter (as inside the sandbox)."""

    name = "cli"

    def __init__(self, world: Path, budget: Budget, corpus: Corpus | None) -> None:
        from psab.fleet.server import serve_attempt

        self._cm = serve_attempt(world, budget, corpus)
        self.srv = self._cm.__enter__()
        self.session = self.srv.session

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        env = {"PATH": "/usr/bin:/bin", **self.srv.env}
        r = subprocess.run([SYSTEM_PY, "-I", self.srv.env[ENV_TOOL], "call", tool, json.dumps(args)],
                           env=env, capture_output=True, text=True, timeout=60)
        reply = json.loads(r.stdout)
        assert r.returncode == (0 if reply["ok"] else 1), r.stderr
        return reply

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


class McpFace:
    """The official SDK's client over stdio, talking to ``fleet-tool mcp`` (the relay the
    sandbox runs), which the server hands to :mod:`psab.fleet.mcp_server`."""

    name = "mcp"

    def __init__(self, world: Path, budget: Budget, corpus: Corpus | None) -> None:
        import importlib.util

        from conftest import need

        need(importlib.util.find_spec("mcp") is not None, "the mcp SDK is not installed (pip install 'psab[mcp]')")
        from psab.fleet.mcp_server import SyncMcpClient
        from psab.fleet.server import serve_attempt

        self._cm = serve_attempt(world, budget, corpus)
        self.srv = self._cm.__enter__()
        self.session = self.srv.session
        self.client = SyncMcpClient(self.srv.mcp_argv, env={"PATH": "/usr/bin:/bin", **self.srv.env})

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.client.call(tool, args)

    def close(self) -> None:
        self.client.close()
        self._cm.__exit__(None, None, None)


FACES = {"session": DirectFace, "cli": CliFace, "mcp": McpFace}


@pytest.fixture(params=list(FACES))
def face_factory(request: pytest.FixtureRequest, world: Path):  # type: ignore[no-untyped-def]
    made: list[Any] = []

    def make(budget: Budget = DEFAULT_BUDGET, corpus: Corpus | None = None) -> Any:
        f = FACES[request.param](world, budget, corpus)
        made.append(f)
        return f

    yield make
    for f in made:
        f.close()


def _doc(world: Path, kind: str) -> dict[str, Any]:
    return next(m for m in store.read_manifest(world) if m["kind"] == kind)


# ------------------------------------------------------------------------------ the tools


def test_read_file_returns_the_documents_lines_and_cuts_at_the_line_budget(face_factory, world: Path) -> None:
    face = face_factory(Budget(read_lines=7))
    doc = _doc(world, "type")  # a type sheet: hundreds of lines
    lines = (world / doc["path"]).read_text(encoding="utf-8").splitlines()
    assert len(lines) > 20
    r = face.call("read_file", {"path": doc["path"], "start_line": 3, "max_lines": 100})
    assert r["ok"], r
    res = r["result"]
    assert res["text"].splitlines() == lines[2:9]  # 7 lines: the budget, not the 100 asked for
    assert (res["start_line"], res["end_line"], res["total_lines"], res["next_line"], res["truncated"]) == (3, 9, len(lines), 10, True)
    # the documents/ prefix is optional and the last page ends the document
    tail = face.call("read_file", {"path": doc["path"][len("documents/"):], "start_line": len(lines) - 1})["result"]
    assert tail["text"].splitlines() == lines[-2:] and tail["next_line"] is None


def test_search_finds_an_identifier_first_and_ranks_by_path_header_and_text(face_factory, world: Path) -> None:
    face = face_factory()
    wo = _doc(world, "work_order")
    r = face.call("search_corpus", {"query": wo["doc_id"], "limit": 5})
    assert r["ok"], r
    hits = r["result"]["hits"]
    assert hits[0]["path"] == wo["path"] and wo["doc_id"] in hits[0]["snippet"]
    # documents that mention the whole id (its alarms, its maintenance log) rank above those
    # that share only a part of it ("WO", the other work orders)
    mentions = [wo["doc_id"] in (world / h["path"]).read_text(encoding="utf-8") for h in hits]
    assert mentions == sorted(mentions, reverse=True) and sum(mentions) >= 2
    kinds = face.call("search_corpus", {"query": wo["doc_id"], "kind": "alarm"})["result"]["hits"]
    assert kinds and all(h["kind"] == "alarm" for h in kinds)


def test_read_timeseries_equals_the_parquet_file_and_cuts_at_the_row_budget(face_factory, world: Path) -> None:
    import pyarrow.parquet as pq

    face = face_factory(Budget(window_rows=30))
    dev = "TRA-0001" if (world / "telemetry" / "device_id=TRA-0001").is_dir() else sorted(os.listdir(world / "telemetry"))[0].split("=")[1]
    t = pq.read_table(store.device_path(world, dev))
    metric = [n for n in t.column_names if n != "ts"][0]
    ts = [x.strftime("%Y-%m-%dT%H:%M:%SZ") for x in t.column("ts").to_pylist()]
    vals = t.column(metric).to_pylist()
    r = face.call("read_timeseries", {"device_id": dev, "metrics": [metric], "start": ts[10], "end": ts[20]})
    assert r["ok"], r
    rows = [line.split(",") for line in r["result"]["csv"].splitlines()]
    assert rows[0] == ["ts", metric] and [x[0] for x in rows[1:]] == ts[10:20]  # end excluded
    assert [float(x[1]) for x in rows[1:]] == pytest.approx(vals[10:20], abs=1e-9)
    big = face.call("read_timeseries", {"device_id": dev, "metrics": [metric], "limit": 10_000})["result"]
    assert big["rows"] == 30 and big["truncated"] and big["next_start"] == ts[30]


def test_calls_past_the_call_budget_are_tool_errors_and_logged(face_factory) -> None:
    face = face_factory(Budget(calls=3))
    replies = [face.call("list_corpus", {"limit": 1}) for _ in range(5)]
    assert [r["ok"] for r in replies] == [True, True, True, False, False]
    assert replies[3]["budget_reached"] and "tool-call budget" in replies[3]["error"]
    log = face.session.log
    assert len(log) == 5 and [e["budget_reached"] for e in log] == [False] * 3 + [True] * 2


def test_the_bytes_and_time_budgets(face_factory, world: Path) -> None:
    face = face_factory(Budget(bytes_total=3000))
    doc = _doc(world, "type")
    first = face.call("read_file", {"path": doc["path"], "max_lines": 40})
    assert first["ok"]
    nxt = face.call("read_file", {"path": doc["path"], "max_lines": 240})
    assert not nxt["ok"] and nxt["budget_reached"] and "bytes budget" in nxt["error"]
    assert face.session.bytes_used <= 3000
    slow = face_factory(Budget(seconds=0.2))
    time.sleep(0.3)
    r = slow.call("list_corpus", {})
    assert not r["ok"] and r["budget_reached"] and "time budget" in r["error"]


HOSTILE_PATHS = ["documents/alarms/x\n.json", "../world.json", "documents/../world.json", "/etc/passwd", "/proc/self/environ",
                 "documents/manifest.jsonl", "world.json", "telemetry/device_id=X/part-0.parquet",
                 "documents/alarms/../../world.json", "documents\\..\\world.json", "a" * 5000, "documents/x\x00.md"]


def test_path_traversal_and_hostile_paths_are_tool_errors(face_factory) -> None:
    face = face_factory()
    for p in HOSTILE_PATHS:
        r = face.call("read_file", {"path": p})
        assert not r["ok"] and not r["budget_reached"] and "\n" not in r["error"], (p, r)
    assert all(not e["ok"] for e in face.session.log) and len(face.session.log) == len(HOSTILE_PATHS)


def test_a_symlinked_document_is_not_followed(tmp_path: Path, world: Path) -> None:
    """A link planted in a world (a document, or a directory on its path) shows nothing of
    what it points to: not to read_file, not in the index, not in a snippet."""
    copy = tmp_path / "w"
    shutil.copytree(world, copy, ignore=shutil.ignore_patterns("index"))
    secret = tmp_path / "secret.json"
    secret.write_text('{"zebracanary": 1}\n')
    doc = _doc(copy, "alarm")
    target = copy / doc["path"]
    target.unlink()
    target.symlink_to(secret)
    outside = tmp_path / "outside"
    shutil.move(str(copy / "documents" / "work_orders"), outside)
    (copy / "documents" / "work_orders").symlink_to(outside)
    wo = _doc(copy, "work_order")
    s = ToolSession(copy)
    for p in (doc["path"], wo["path"]):
        r = s.call("read_file", {"path": p})
        assert not r["ok"] and "not a regular document" in r["error"], p
    assert s.call("search_corpus", {"query": "zebracanary"})["result"]["hits"] == []
    hits = s.call("search_corpus", {"query": doc["doc_id"], "limit": 50})["result"]["hits"]
    assert all("zebracanary" not in h["snippet"] for h in hits)
    assert all(not h["path"].startswith("documents/work_orders/") or not h["snippet"] for h in
               s.call("search_corpus", {"query": wo["doc_id"], "limit": 50})["result"]["hits"])
    dev = sorted(p.name.split("=", 1)[1] for p in (copy / "telemetry").iterdir())[0]
    part = store.device_path(copy, dev)
    shutil.move(str(part), tmp_path / "part.parquet")
    part.symlink_to(tmp_path / "part.parquet")
    r = s.call("read_timeseries", {"device_id": dev, "limit": 2})
    assert not r["ok"] and "no telemetry" in r["error"]


INJECTIONS = ["'; DROP TABLE documents; --", "\" OR 1=1 --", ".*(a+)+$", "[unclosed", "%' UNION SELECT * FROM x --",
              "\\", "NEAR(a b)", "*", "a" * 999]


def test_search_takes_sql_and_regex_as_plain_text(face_factory) -> None:
    face = face_factory()
    for q in INJECTIONS:
        r = face.call("search_corpus", {"query": q})
        assert r["ok"], (q, r)
    assert not face.call("search_corpus", {"query": "x" * 5000})["ok"]
    bad = face.call("read_timeseries", {"device_id": "TRA-0001", "metrics": ['x" FROM read_parquet(\'/etc/passwd\') --']})
    assert not bad["ok"] and "no metric" in bad["error"] or "no telemetry" in bad["error"]


def test_malformed_calls_are_tool_errors(face_factory) -> None:
    face = face_factory()
    for tool, args in [("nope", {}), ("read_file", {}), ("read_file", {"path": 5}), ("list_corpus", {"limit": -1}),
                       ("list_corpus", {"bogus": 1}), ("read_timeseries", {"device_id": "NOPE"}),
                       ("read_timeseries", {"device_id": "TRA-0001", "start": "yesterday"}),
                       ("search_corpus", {"query": ""}), ("python", {"code": ""}),
                       ("python", {"code": "x" * 70_000})]:
        r = face.call(tool, args)
        assert not r["ok"] and isinstance(r["error"], str) and r["error"], (tool, args, r)
        # the session itself judged it (no face answers on its own) and logged it
        assert face.session.log[-1]["error"] == r["error"] and face.session.log[-1]["tool"] == tool
    assert len(face.session.log) == 10


def test_python_runs_a_computation_and_cuts_its_output(face_factory) -> None:
    face = face_factory(Budget(python_chars=100))
    r = face.call("python", {"code": "import statistics\nprint(statistics.mean([2, 4, 9]))\nprint('y' * 500)"})
    assert r["ok"], r
    res = r["result"]
    assert res["output"].startswith("5\n") and len(res["output"]) == 100 and res["truncated"] and res["exit_code"] == 0


def test_python_cannot_read_the_world(face_factory, world: Path) -> None:
    face = face_factory()
    code = f"print(open({str(world / 'world.json')!r}).read()[:20])"
    r = face.call("python", {"code": code})
    assert r["ok"] and r["result"]["exit_code"] != 0 and '"size"' not in r["result"]["output"]


# ------------------------------------------------------------------------------ corpus size


def test_a_sized_corpus_hides_other_devices_everywhere(face_factory, world: Path) -> None:
    all_ids = sorted(p.name.split("=")[1] for p in (world / "telemetry").iterdir())
    small = Corpus.sized(world, 5, targets=[all_ids[-1]], seed=3)
    bigger = Corpus.sized(world, 12, targets=[all_ids[-1]], seed=3)
    assert small.devices is not None and bigger.devices is not None
    assert len(small.devices) == 5 and all_ids[-1] in small.devices and small.devices <= bigger.devices
    hidden = next(d for d in all_ids if d not in small.devices)
    face = face_factory(corpus=small)
    listed = face.call("list_corpus", {"limit": 500})["result"]
    assert f"telemetry/{hidden}" not in listed["paths"] and f"documents/config/{hidden}.json" not in listed["paths"]
    assert sum(1 for p in listed["paths"] if p.startswith("telemetry/")) == 5
    assert not face.call("read_file", {"path": f"documents/config/{hidden}.json"})["ok"]
    assert not face.call("read_timeseries", {"device_id": hidden})["ok"]
    hits = face.call("search_corpus", {"query": hidden, "limit": 50})["result"]["hits"]
    assert all(hidden not in h["device_ids"] for h in hits)
    assert face.call("read_file", {"path": f"documents/config/{all_ids[-1]}.json", "max_lines": 1})["ok"]


# ------------------------------------------------------------------------------ evidence


def test_reading_the_required_evidence_gives_full_recall(face_factory, keys: list[dict[str, Any]]) -> None:
    """The tool log's evidence, graded by psab.fleet.grading, recalls what the key requires."""
    for key in keys[:: max(1, len(keys) // 3)]:
        face = face_factory()
        for ev in key["required_evidence"]:
            if ev["kind"] == "document":
                assert face.call("read_file", {"path": ev["path"], "max_lines": 5})["ok"]
            else:
                assert face.call("read_timeseries", {"device_id": ev["device_id"], "metrics": ev["metrics"],
                                                     "start": ev["start"], "end": ev["end"]})["ok"]
        got = face.session.retrieved_evidence()
        assert grading.recall(got, key["required_evidence"]) == 1.0
        assert grading.recall([], key["required_evidence"]) == 0.0


# ------------------------------------------------------------------------------ never raises


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
                     lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=10), c, max_size=4), max_leaves=12)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=st.sampled_from([*TOOLS[:4], "x", ""]), args=st.dictionaries(
    st.sampled_from(["path", "query", "prefix", "device_id", "metrics", "start", "end", "limit", "offset", "start_line",
                     "max_lines", "kind", "zzz"]), _json, max_size=4) | _json)
def test_the_session_never_raises(world: Path, tool: str, args: Any) -> None:
    s = ToolSession(world, Budget(calls=1000))
    r = s.call(tool, args)
    assert isinstance(r, dict) and isinstance(r["ok"], bool)
    if not r["ok"]:
        assert isinstance(r["error"], str) and "internal error" not in r["error"], r
    json.dumps(r)
    assert len(s.log) == 1


# ------------------------------------------------------------------------------ listing, CLI verbs, the socket


def test_list_corpus_pages_exactly_the_manifest_under_a_prefix(world: Path) -> None:
    """Pages put together equal the manifest's paths under the prefix (counted independently)."""
    s = ToolSession(world, Budget(calls=1000))
    manifest = sorted(m["path"] for m in store.read_manifest(world))
    devices = sorted(p.name.split("=", 1)[1] for p in (world / "telemetry").iterdir())
    for prefix in ("", "documents/", "documents/work_orders/", "documents/alarms/ALM-1", "telemetry/", "./documents/config/", "zzz"):
        pre = prefix.removeprefix("./")
        want = [p for p in manifest + [f"telemetry/{d}" for d in devices] if p.startswith(pre)]
        got, offset = [], 0
        while offset is not None:
            r = s.call("list_corpus", {"prefix": prefix, "offset": offset, "limit": 37})["result"]
            assert r["total"] == len(want)
            got += r["paths"]
            offset = r["next_offset"]
        assert got == want, prefix


def _tool(srv: Any, *argv: str, stdin: str | None = None) -> tuple[int, str]:
    r = subprocess.run([SYSTEM_PY, "-I", srv.env[ENV_TOOL], *argv], env={"PATH": "/usr/bin:/bin", **srv.env},
                       input=stdin, capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout


def test_the_fleet_tool_verbs(world: Path, tmp_path: Path) -> None:
    from psab.fleet.server import serve_attempt

    log = tmp_path / "log.jsonl"
    wo = _doc(world, "work_order")
    dev = wo["device_ids"][0]
    prog = tmp_path / "prog.py"
    prog.write_text("print(6 * 7)\n")
    with serve_attempt(world, Budget(), None, log) as srv:
        rc, out = _tool(srv, "tools")
        assert rc == 0 and json.loads(out)["result"]["tools"] == list(TOOLS)
        rc, out = _tool(srv, "list", "documents/work_orders/", "--limit", "2")
        assert rc == 0 and len(json.loads(out)["result"]["paths"]) == 2
        rc, out = _tool(srv, "search", *wo["doc_id"].split("-"), "--limit", "3", "--kind", "work_order")
        assert rc == 0 and json.loads(out)["result"]["hits"][0]["kind"] == "work_order"
        rc, out = _tool(srv, "read", wo["path"], "--start-line", "1", "--max-lines", "1")
        assert rc == 0 and json.loads(out)["result"]["text"] == f"# Work order {wo['doc_id']}\n"
        rc, out = _tool(srv, "window", dev, "--limit", "3", "--csv")
        assert rc == 0 and out.startswith("ts,") and len(out.splitlines()) == 4
        for extra, stdin in (([str(prog)], None), (["-c", "print(6 * 7)"], None), ([], "print(6 * 7)\n")):
            rc, out = _tool(srv, "python", *extra, stdin=stdin)
            assert rc == 0 and json.loads(out)["result"]["output"] == "42\n"
        rc, out = _tool(srv, "read", "../world.json")
        assert rc == 1 and json.loads(out)["ok"] is False
        rc, out = _tool(srv, "call", "read_file", "not json")
        assert rc == 2
    entries = [json.loads(x) for x in log.read_text().splitlines()]
    assert [e["tool"] for e in entries] == ["list_corpus", "search_corpus", "read_file", "read_timeseries",
                                            "python", "python", "python", "read_file"]
    assert all(set(e) >= {"tool", "args", "ok", "error", "bytes", "rows", "duration_ms", "budget_reached"} for e in entries)
    assert entries[3]["rows"] == 3 and entries[2]["bytes"] > 0 and not entries[-1]["ok"]
    # with the server gone, the client says so and exits 3
    env = {"PATH": "/usr/bin:/bin", ENV_SOCKET: str(tmp_path / "gone.sock")}
    r = subprocess.run([SYSTEM_PY, "-I", str(Path(__file__).resolve().parents[2] / "psab/fleet/fleet_tool.py"), "tools"],
                       env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 3 and "cannot reach" in r.stdout


def test_the_socket_refuses_junk_and_oversized_lines(world: Path) -> None:
    import socket

    from psab.fleet.server import MAX_LINE, serve_attempt

    with serve_attempt(world) as srv:
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(srv.socket_path))
            f = s.makefile("rb")
            for junk in (b"not json\n", b"[1, 2]\n", b"[" * 200_000 + b"\n", b'{"tool": "list_corpus", "args": {"a": ' + b"[" * 5000 + b"]" * 5000 + b"}}\n", b'{"op": "nope"}\n', b'{"tool": "read_file", "args": "x"}\n'):
                s.sendall(junk)
                assert json.loads(f.readline())["ok"] is False
            s.sendall(b'{"tool": "list_corpus", "args": {"limit": 1}}\n')
            assert json.loads(f.readline())["ok"] is True  # the connection survived the junk
            s.sendall(b"x" * (MAX_LINE + 10) + b"\n")
            reply = json.loads(f.readline())
            assert reply["ok"] is False and "too long" in reply["error"]
            assert f.readline() == b""  # and then it is closed
        assert [e["tool"] for e in srv.session.log] == ["read_file", "list_corpus"]


def test_the_python_tool_without_bwrap_still_holds(world: Path) -> None:
    """The fallback (no namespace): limits, the audit hook, the clean environment."""
    from psab.fleet.tools import run_python

    r = run_python(f"print(open({str(world / 'world.json')!r}).read())", 4, 1000, deny=[world], isolation="rlimit")
    # as root the tool runs as nobody, who cannot even pass pytest's 0700 directory (nor stat
    # the world to match its identity): the kernel refuses first. The hook's own refusal of a
    # root nobody can reach is tested in test_the_python_tools_own_files_name_no_hidden_path.
    refused = "cannot read the world" in r["output"] or (os.geteuid() == 0 and "Permission denied" in r["output"])
    assert r["exit_code"] != 0 and refused and r["isolation"] == "rlimit"
    r = run_python("import socket; socket.create_connection(('127.0.0.1', 9))", 4, 1000, isolation="rlimit")
    assert r["exit_code"] != 0 and "does not allow socket" in r["output"]
    r = run_python("import subprocess; subprocess.run(['ls'])", 4, 1000, isolation="rlimit")
    assert r["exit_code"] != 0 and "does not allow" in r["output"]
    r = run_python("import os; print(sorted(k for k in os.environ if k != 'LC_CTYPE'))", 4, 1000, isolation="rlimit")
    assert r["output"].strip() == "['HOME', 'LANG', 'PATH', 'PYTHONIOENCODING', 'TMPDIR']"
    t = time.perf_counter()
    r = run_python("import time; time.sleep(60)", 1.0, 1000, isolation="rlimit")
    assert r["timed_out"] and time.perf_counter() - t < 10
    r = run_python("x = bytearray(3 * 2**30)", 4, 1000, isolation="rlimit")
    assert r["exit_code"] != 0 and "MemoryError" in r["output"]


@pytest.mark.parametrize("isolation", ["rlimit", "auto"])
def test_the_python_tools_own_files_name_no_hidden_path(world: Path, isolation: str) -> None:
    """Issue 23, neutral names: the program the python tool runs sits beside its prelude, which
    the agent may read (and its globals and stack); the denied roots are named there by
    (device, inode), so neither 'psab' nor the world's, the keys' or the checkout's paths show
    — and a file under a denied root (or a symlink into one) is still refused."""
    import psab
    from psab.fleet.tools import run_python

    checkout = str(Path(psab.__file__).resolve().parents[1])
    code = ("import os, sys, gc\n"
            "print(open('main.py').read()); print(open('program.py').read()[:0])\n"
            "print(sorted(os.listdir('.'))); print(sys.argv, sys.path)\n"
            "print([o for o in gc.get_objects() if isinstance(o, (list, tuple, set, frozenset, dict))][:5000])")
    r = run_python(code, 6, 2_000_000, deny=[world], isolation=isolation)
    assert r["exit_code"] == 0 and "_fleet_guard" in r["output"], r["output"][-500:]
    for leak in ("psab", str(world), checkout):
        assert leak not in r["output"], leak
    if isolation == "rlimit":  # under bwrap no denied root is even there
        base = Path(tempfile.mkdtemp(dir="/tmp"))
        try:
            base.chmod(0o755)  # reachable by anyone, the python tool's user too: only the hook refuses
            secret = base / "secret"
            secret.mkdir(mode=0o755)
            (secret / "key.txt").write_text("CANARY")
            (secret / "key.txt").chmod(0o644)
            (base / "link").symlink_to(secret)
            for path in (secret / "key.txt", base / "link" / "key.txt"):
                r = run_python(f"print(open({str(path)!r}).read())", 4, 1000, deny=[secret], isolation=isolation)
                assert r["exit_code"] != 0 and "cannot read the world" in r["output"] and "CANARY" not in r["output"]
            r = run_python(f"print(open({str(secret / 'key.txt')!r}).read())", 4, 1000, isolation=isolation)
            assert "CANARY" in r["output"]  # not denied: readable (the refusal above is the hook's)
        finally:
            shutil.rmtree(base)


def test_an_attempt_gets_a_bounded_number_of_mcp_servers(world: Path) -> None:
    import socket

    from psab.fleet.server import MAX_MCP_SESSIONS, serve_attempt

    with serve_attempt(world) as srv:
        socks = []
        for _ in range(MAX_MCP_SESSIONS):
            s = socket.socket(socket.AF_UNIX)
            s.connect(str(srv.socket_path))
            s.sendall(b'{"op": "mcp"}\n')
            assert json.loads(s.makefile("rb").readline())["ok"]
            socks.append(s)
        deadline = time.monotonic() + 30
        while len(srv._children) < MAX_MCP_SESSIONS and time.monotonic() < deadline:
            time.sleep(0.05)
        extra = socket.socket(socket.AF_UNIX)
        extra.settimeout(30)
        extra.connect(str(srv.socket_path))
        extra.sendall(b'{"op": "mcp"}\n')
        f = extra.makefile("rb")
        assert json.loads(f.readline())["ok"] and f.readline() == b""  # closed: no fifth server
        assert len(srv._children) == MAX_MCP_SESSIONS
        for s in [*socks, extra]:
            s.close()


# ------------------------------------------------------------------------------ the index


def test_the_index_is_built_once_cached_in_the_world_and_rebuilt_when_the_world_changes(tmp_path: Path, world: Path) -> None:
    from psab.fleet import index

    copy = tmp_path / "w"
    shutil.copytree(world, copy, ignore=shutil.ignore_patterns("index"))
    assert not (copy / "index").exists()
    idx = index.ensure_index(copy)
    assert (copy / "index" / "meta.json").is_file() and index.ensure_index(copy) is idx  # the process cache
    loaded = index.load(copy)
    assert loaded is not None and loaded.paths == idx.paths and loaded.search("cause") == idx.search("cause")
    assert idx.n_docs == len(store.read_manifest(copy))
    # the same world gives the same index bytes (the world is byte-identical per seed)
    digest = store.tree_digest(copy / "index")
    index.save(index.build(copy), copy)
    assert store.tree_digest(copy / "index") == digest
    # a changed manifest (a rebuilt world) makes the stored index stale
    manifest = copy / "documents" / "manifest.jsonl"
    rows = manifest.read_text().splitlines()
    manifest.write_text("\n".join(rows[:-1]) + "\n")
    assert index.load(copy) is None
    assert index.ensure_index(copy).n_docs == len(rows) - 1


def test_bm25_ranks_by_frequency_and_rarity(world: Path) -> None:
    """Properties of BM25 (Robertson & Zaragoza 2009, eq. 3.15) on the real index: every hit
    contains a query term; of two query terms, the rarer contributes more to a document that
    has each once; scores are positive and sorted."""
    from psab.fleet import index

    idx = index.ensure_index(world)
    hits = idx.search("cooling fan failure", limit=50)
    assert hits and all(s > 0 for _, s in hits) and [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    for i, _ in hits:
        toks = set(index.tokens((world / idx.paths[i]).read_text(encoding="utf-8")))
        assert toks & {"cooling", "fan", "failure"}
    df = {t: int(idx.offsets[idx.vocab[t] + 1] - idx.offsets[idx.vocab[t]]) for t in ("documents", "cooling")}
    assert df["documents"] == idx.n_docs > df["cooling"]  # every path has 'documents'
    assert idx.search("documents", limit=1)[0][1] < idx.search("cooling", limit=1)[0][1]


def test_arguments_nested_past_the_recursion_limit_are_a_tool_error(world: Path) -> None:
    deep: Any = "x"
    for _ in range(10_000):  # past the recursion limit of any naive walk of the arguments
        deep = {"a": [deep]}
    s = ToolSession(world)
    r = s.call("list_corpus", {"prefix": deep})
    assert r["ok"] is False and "nested" in r["error"] and s.log[-1]["args"]["prefix"]["a"][0]["a"][0]["a"] == "…"


def test_an_attempt_server_holds_a_bounded_number_of_connections(world: Path) -> None:
    import socket

    from psab.fleet.server import MAX_CONNECTIONS, request, serve_attempt

    with serve_attempt(world) as srv:
        held = []
        for _ in range(MAX_CONNECTIONS):
            s = socket.socket(socket.AF_UNIX)
            s.connect(str(srv.socket_path))
            held.append(s)
        deadline = time.monotonic() + 10
        while srv.open_connections < MAX_CONNECTIONS and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises((ValueError, OSError)):  # closed without a reply
            request(srv.socket_path, "list_corpus", {"limit": 1}, timeout_s=10)
        for s in held:
            s.close()
        deadline = time.monotonic() + 10
        while srv.open_connections and time.monotonic() < deadline:
            time.sleep(0.01)
        assert request(srv.socket_path, "list_corpus", {"limit": 1})["ok"]


def test_the_instructions_name_the_budget_in_force_and_the_commands(world: Path) -> None:
    from psab.fleet.server import serve_attempt, tools_text

    with serve_attempt(world, Budget(calls=17, window_rows=99)) as srv:
        for lang in ("en", "ru"):
            text = tools_text(srv, lang)
            assert "17" in text and "99" in text and srv.env[ENV_TOOL] in text
            assert " ".join(srv.mcp_argv) in text
            for verb in ("list", "search", "read", "window", "python"):
                assert f"fleet-tool {verb}" in text


def test_the_standalone_mcp_server_over_a_world(world: Path) -> None:
    """``python -m psab.fleet.mcp_server --world DIR``: the SDK's client over stdio, a session of
    its own with Table 7's budget."""
    import importlib.util
    import sys

    from conftest import need

    need(importlib.util.find_spec("mcp") is not None, "the mcp SDK is not installed (pip install 'psab[mcp]')")
    from psab.fleet.mcp_server import SyncMcpClient

    root = str(Path(__file__).resolve().parents[2])
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": root}
    c = SyncMcpClient([sys.executable, "-m", "psab.fleet.mcp_server", "--world", str(world)], env=env)
    try:
        assert c.tools == list(TOOLS)
        wo = _doc(world, "work_order")
        r = c.call("read_file", {"path": wo["path"], "max_lines": 1})
        assert r["ok"] and r["result"]["text"] == f"# Work order {wo['doc_id']}\n"
        replies = [c.call("list_corpus", {"limit": 1}) for _ in range(DEFAULT_BUDGET.calls)]
        assert sum(r["ok"] for r in replies) == DEFAULT_BUDGET.calls - 1 and replies[-1]["budget_reached"]
    finally:
        c.close()


def test_a_long_attempt_directory_gets_a_short_socket_and_a_retry_a_fresh_one(world: Path, tmp_path: Path) -> None:
    from psab.fleet.server import MAX_SOCKET_PATH, request, serve_attempt

    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    for _ in range(2):  # the second start in the same directory finds the first's files gone or replaced
        with serve_attempt(world, attempt_dir=deep) as srv:
            assert len(str(srv.socket_path)) <= MAX_SOCKET_PATH and srv.socket_path.parent in srv.expose
            assert request(srv.socket_path, "list_corpus", {"limit": 1})["ok"]
            rc, out = _tool(srv, "tools")
            assert rc == 0
        assert not srv.socket_path.exists() and not srv.bin_dir.exists()


# Issue 32, item 8: the python tool's fallback and the two holes in its audit hook.
# CPython 3.11-3.13's ``_posixsubprocess.fork_exec`` (23 arguments, subprocess.py's own call):
# no audit event is raised, so before the seccomp filter this spawned /bin/echo in both modes.
_FORK_EXEC = ("import _posixsubprocess, os\n"
              "r, w = os.pipe(); er, ew = os.pipe()\n"
              "pid = _posixsubprocess.fork_exec([b'/bin/echo', b'SPAWNED'], [b'/bin/echo'], True, (w, ew), None, None,"
              " -1, -1, -1, w, -1, -1, er, ew, False, False, -1, None, None, None, -1, None, False)\n"
              "os.close(w); os.close(ew)\n"
              "print('child said', os.read(r, 100), 'exec error', os.read(er, 200), os.waitpid(pid, 0))\n")


@pytest.mark.parametrize("isolation", ["rlimit", "bwrap"])
def test_the_python_tool_starts_no_new_program_however_asked(isolation: str) -> None:
    """docs/fleet-tools.md says new programs are refused: ``subprocess``, ``os.system`` and
    ``fork_exec`` itself (which raises no audit event) all fail, in both modes; forking the
    interpreter (bounded by RLIMIT_NPROC) and threads still work."""
    if isolation == "bwrap":
        from psab.runner.sandbox import bwrap_problem

        from conftest import need, need_bwrap

        need_bwrap()
        need(bwrap_problem(False) is None, f"bwrap cannot create a sandbox here: {bwrap_problem(False)}")
    from psab.fleet.tools import run_python

    r = run_python(_FORK_EXEC, 4, 2000, isolation=isolation)
    assert "SPAWNED" not in r["output"], r["output"]
    # the child's exec failed with EPERM (subprocess's error pipe: "OSError:<errno>:")
    assert "child said b'' exec error b'OSError:1:'" in r["output"], r["output"]
    r = run_python("import os\npid = os.fork()\nif pid == 0:\n    os._exit(3)\nprint('forked', os.waitpid(pid, 0)[1] >> 8)",
                   4, 2000, isolation=isolation)
    assert r["output"].strip() == "forked 3", r["output"]
    r = run_python("import threading; t = threading.Thread(target=print, args=('thread',)); t.start(); t.join()",
                   4, 2000, isolation=isolation)
    assert r["output"].strip() == "thread", r["output"]


def test_the_python_tool_without_bwrap_refuses_dir_fd_and_links_into_the_world() -> None:
    """``os.open('world/world.json', O_RDONLY, dir_fd=fd)`` with ``fd`` a parent directory read
    the world: the ``open`` event does not carry ``dir_fd``. Also ``os.link`` out of it, and
    ``os.listdir``/``scandir`` of the parent stay allowed (only the world is refused)."""
    from psab.fleet.tools import run_python

    base = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        base.chmod(0o755)  # anyone may pass: only the hook refuses
        w = base / "world"
        w.mkdir(mode=0o755)
        (w / "world.json").write_text("CANARY")
        (w / "world.json").chmod(0o644)
        attacks = [
            f"import os; fd = os.open({str(base)!r}, os.O_RDONLY)\n"
            "f = os.open('world/world.json', os.O_RDONLY, dir_fd=fd); print(os.read(f, 100))",
            f"import os; fd = os.open({str(w)!r} + '/..', os.O_RDONLY); os.chdir('/')\n"
            "f = os.open('world/world.json', os.O_RDONLY, dir_fd=fd); print(os.read(f, 100))",
            f"import os; fd = os.open({str(base)!r}, os.O_RDONLY)\n"
            "os.link('world/world.json', 'copy.json', src_dir_fd=fd); print(open('copy.json').read())",
            f"import os, pathlib; print(open(pathlib.Path({str(w / 'world.json')!r})).read())",
        ]
        for code in attacks:
            r = run_python(code, 4, 1000, deny=[w], isolation="rlimit")
            assert "CANARY" not in r["output"] and r["exit_code"] != 0, (code, r["output"])
            # as root the tool's user may not link root's file at all (protected_hardlinks)
            assert "cannot read the world" in r["output"] or "Operation not permitted" in r["output"], r["output"]
        r = run_python(f"import os; print(sorted(os.listdir({str(base)!r})))", 4, 1000, deny=[w], isolation="rlimit")
        assert r["output"].strip() == "['world']", r["output"]
    finally:
        shutil.rmtree(base)


def test_the_python_tool_refuses_the_fallback_unless_asked(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where bwrap does not work the python tool used to fall back silently to no namespace; now
    a call is refused with one line naming the flag, unless the session was given ``auto``."""
    from psab.fleet import tools
    from psab.fleet.tools import ToolSession

    monkeypatch.setattr(tools, "_python_bwrap_problem", lambda: "bwrap is not installed")
    r = ToolSession(world).call("python", {"code": "print(6 * 7)"})
    assert not r["ok"] and "--allow-unsandboxed-python-tool" in r["error"] and "bwrap is not installed" in r["error"]
    assert "\n" not in r["error"]
    r = ToolSession(world, python_isolation="auto").call("python", {"code": "print(6 * 7)"})
    assert r["ok"] and r["result"]["output"].strip() == "42" and r["result"]["isolation"] == "rlimit", r
    with pytest.raises(ValueError):
        ToolSession(world, python_isolation="none")
