"""The fleet tier's built-in agents: a standalone standard-library script.

The runner never imports this module for the agents' sake. It reads the file's text and runs it
as ``python3 -I -c <text> KIND QUESTION SOLUTION INSTRUCTIONS`` inside the sandbox, with the
system interpreter, exactly as :mod:`psab.runner.agent_script` runs the compact tier's built-ins
(:func:`psab.runner.fleet.run_attempt`). The world is reachable only through the fleet tools,
over either face (issue 23 item 1): the ``fleet-tool`` command (``$FLEET_TOOL``) or the MCP
server spoken over stdio (``$FLEET_MCP_ARGV``, a JSON argv); option ``face=cli|mcp`` picks one.

``fleet-reference``
    receives the key's answer and its required evidence on standard input (computed outside the
    sandbox, as the compact reference receives its answer) and reads every required evidence
    item THROUGH the tools — documents with ``read_file``, telemetry windows with
    ``read_timeseries`` in pages of at most the budget's rows — before writing the answer with
    that evidence. It makes no further call once a budget is reached. Its joint accuracy is 1 by
    construction; its retrieved-evidence recall is what the tools actually returned.
``fleet-weak``
    has no key. It searches for the question's rule alone and answers from the first alarm hit
    (temporal: that alarm's times, one firing; contextual: that alarm's work order), whichever
    device raised it; for a comparative question it stops early, ranking the devices in the
    order the question lists them. It shows the metrics move (JA, FA, RER, TE) without being a
    strawman that never scores, and — since every device of the rule's type competes for the
    first hit — it degrades as the visible corpus grows (PowerBench Table 9).
"""

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta

WINDOW_ROWS = 500  # PowerBench Table 7: rows per read_timeseries call


class ToolError(Exception):
    pass


class CliTools:
    """The ``fleet-tool`` command: ``fleet-tool call TOOL ARGS_JSON`` prints the server's reply."""

    def __init__(self, exe):
        self.exe = exe

    def call(self, tool, args):
        r = subprocess.run([sys.executable, self.exe, "call", tool, json.dumps(args)], capture_output=True,
                           text=True, timeout=120)
        try:
            return json.loads(r.stdout)
        except ValueError:
            return {"ok": False, "error": (r.stderr or r.stdout).strip()[-300:] or f"exit {r.returncode}"}

    def close(self):
        pass


class McpTools:
    """A minimal MCP client over stdio (JSON-RPC 2.0, one message per line)."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.n = 0
        self.request("initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                                    "clientInfo": {"name": "fleet-builtin", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise ToolError("the MCP server closed its output")
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("id") == self.n:
                if "error" in msg:
                    raise ToolError(str(msg["error"]))
                return msg.get("result")

    def call(self, tool, args):
        try:
            res = self.request("tools/call", {"name": tool, "arguments": args})
        except ToolError as exc:
            return {"ok": False, "error": str(exc)}
        res = res or {}
        if isinstance(res.get("structuredContent"), dict) and "ok" in res["structuredContent"]:
            return res["structuredContent"]
        text = "".join(c.get("text", "") for c in res.get("content") or [] if isinstance(c, dict))
        try:
            out = json.loads(text)
        except ValueError:
            out = None
        if isinstance(out, dict) and "ok" in out:
            return out
        if res.get("isError"):
            return {"ok": False, "error": text[:300]}
        return {"ok": True, "result": out if out is not None else text}

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 - the agent's own clean-up; the answer is written already
            self.proc.kill()


def tools_for(options):
    if options.get("face", "cli") == "mcp":
        return McpTools(json.loads(os.environ["FLEET_MCP_ARGV"]))
    return CliTools(os.environ["FLEET_TOOL"])


def _t(s):
    return datetime.strptime(s.replace("Z", ""), "%Y-%m-%dT%H:%M:%S")


def _iso(d):
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def write(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f)


# ----------------------------------------------------------------------------- reference


def read_series(tools, item):
    """Read one telemetry window in pages of at most WINDOW_ROWS hourly rows; False once a
    budget is reached."""
    start, end = _t(item["start"]), _t(item["end"])
    while start < end:
        stop = min(end, start + timedelta(hours=WINDOW_ROWS))
        args = {"device_id": item["device_id"], "start": _iso(start), "end": _iso(stop)}
        if item.get("metrics"):
            args["metrics"] = list(item["metrics"])
        r = tools.call("read_timeseries", args)
        if not r.get("ok"):
            return not r.get("budget_reached")
        start = stop
    return True


def reference(tools, question, payload):
    for item in payload.get("required_evidence") or []:
        if item.get("kind") == "document":
            r = tools.call("read_file", {"path": item["path"]})
            going = r.get("ok") or not r.get("budget_reached")
        elif item.get("kind") == "series":
            going = read_series(tools, item)
        else:
            going = True
        if not going:
            break  # a budget reached: no further call, what was read stands
    return {"question_id": question["question_id"], "answer": payload.get("answer"),
            "evidence": payload.get("required_evidence") or []}


# ----------------------------------------------------------------------------- weak


def _paths(result):
    """Document paths in a search or list result, in order."""
    out = []

    def walk(x):
        if isinstance(x, dict):
            p = x.get("path")
            if isinstance(p, str) and p not in out:
                out.append(p)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(result)
    return out


def _text(result):
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        for k in ("text", "content"):
            if isinstance(result.get(k), str):
                return result[k]
        if isinstance(result.get("lines"), list):
            return "\n".join(str(x) for x in result["lines"])
    return json.dumps(result)


def _read(tools, path):
    r = tools.call("read_file", {"path": path})
    return _text(r.get("result")) if r.get("ok") else ""


def _first_alarm(tools, question):
    dev = (question.get("targets") or [""])[0]
    rule = question.get("rule") or ""
    # the rule alone: every device of its type that raised it competes for the first hit, so
    # a larger visible corpus misleads this agent more often (PowerBench Table 9)
    r = tools.call("search_corpus", {"query": rule or dev})
    hits = [p for p in _paths(r.get("result")) if "/alarms/" in p or p.startswith("alarms/")] if r.get("ok") else []
    if not hits:
        return None, None
    text = _read(tools, hits[0])
    try:
        return hits[0], json.loads(text)
    except ValueError:
        return hits[0], None


def weak(tools, question):
    fam = question.get("family")
    qid = question["question_id"]
    if fam == "comparative":
        targets = list(question.get("targets") or [])
        return {"question_id": qid, "answer": {"ranking": targets, "top_device": targets[0] if targets else "",
                                               "top_value": 0.0}, "evidence": []}
    path, alarm = _first_alarm(tools, question)
    if alarm is None:
        return {"question_id": qid, "answer": {}, "evidence": []}
    evidence = [{"kind": "document", "path": path}]
    if fam == "temporal":
        raised = alarm.get("raised_at")
        since, cleared = alarm.get("condition_since"), alarm.get("cleared_at")
        hours = int((_t(cleared) - _t(since)).total_seconds() // 3600) if since and cleared else 1
        return {"question_id": qid, "answer": {"first_fire_time": raised, "breach_duration_h": hours, "fire_count": 1},
                "evidence": evidence}
    wo = alarm.get("work_order") or ""
    r = tools.call("search_corpus", {"query": wo})
    hits = [p for p in _paths(r.get("result")) if "work_order" in p] if r.get("ok") else []
    cause, closed = "", ""
    if hits:
        evidence.append({"kind": "document", "path": hits[0]})
        lines = _read(tools, hits[0]).splitlines()
        for i, line in enumerate(lines):
            if line.startswith("- Closed:"):
                closed = line.split(":", 1)[1].strip()
            if line.strip() == "## Recorded cause":
                cause = next((x.strip() for x in lines[i + 1:] if x.strip()), "")
    return {"question_id": qid, "answer": {"work_order_id": wo, "cause": cause, "closed_at": closed},
            "evidence": evidence}


def main():
    kind, question_path, solution_path = sys.argv[1], sys.argv[2], sys.argv[3]
    raw = sys.stdin.read()
    payload = json.loads(raw) if raw.strip() else {}
    options = payload.get("options") or {}
    with open(question_path, encoding="utf-8") as f:
        question = json.load(f)
    tools = tools_for(options)
    try:
        if kind == "fleet-reference":
            out = reference(tools, question, payload)
        elif kind == "fleet-weak":
            out = weak(tools, question)
        else:
            print(f"unknown fleet built-in agent {kind}", file=sys.stderr)
            sys.exit(2)
    finally:
        tools.close()
    write(solution_path, out)


if __name__ == "__main__":
    main()
