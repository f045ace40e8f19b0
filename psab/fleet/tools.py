"""The fleet tier's five tools (PowerBench Table 3) over a stored world, with the per-question
budgets of Table 7 enforced by the session, never by the agent.

=================  ==================================================================
``list_corpus``    paths of the visible corpus (documents, and ``telemetry/<device>``
                   for every series), optionally under a prefix, paged
``search_corpus``  ranked hits over paths, headers and text with a snippet each, from
                   the world's inverted index (:mod:`psab.fleet.index`, BM25)
``read_file``      a Markdown or JSON document, by line range, at most 240 lines a call
``read_timeseries`` one device's metrics in a time window as CSV, at most 500 rows a call
                   (through :func:`psab.fleet.store.read_window`)
``python``         a short computation in a restricted child process: 8 s, 12,000
                   characters of output, no network, no view of the world
=================  ==================================================================

Budgets (Table 7, per question): 50 tool calls, 300 s from the session's start, 240 lines per
``read_file`` and 500 rows per ``read_timeseries`` (larger requests are cut to the limit and say
so), 1.5 MB of results in total, 8 s and 12,000 characters for ``python``. A call past a budget
is answered with a one-line tool error (``budget_reached``: true), logged like every other call;
nothing an agent sends makes :meth:`ToolSession.call` raise.

Corpus size (Table 9): a :class:`Corpus` shows the whole world, or a stated number of devices
(the question's targets always, the rest ranked by a seeded hash, so a larger corpus contains a
smaller one); documents and series of hidden devices do not exist for the tools. Type sheets
(documents of no device) are always visible.
"""

from __future__ import annotations

import bisect
import hashlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

TOOLS = ("list_corpus", "search_corpus", "read_file", "read_timeseries", "python")

#: The largest arguments a call may carry (JSON bytes): a 64 KB program is generous for a short
#: computation, and nothing else needs more than a path and a few names.
MAX_ARGS_BYTES = 64 * 1024
MAX_QUERY_CHARS = 1000
MAX_PATH_CHARS = 512
LIST_PAGE_MAX = 500
SEARCH_LIMIT_MAX = 50
SNIPPET_CHARS = 200
#: Logged arguments are cut to this many characters per string (a 64 KB program is not copied
#: into every log line).
LOG_ARG_CHARS = 2000


@dataclass(frozen=True)
class Budget:
    """PowerBench Table 7 defaults, per question."""

    calls: int = 50
    seconds: float = 300.0
    read_lines: int = 240
    window_rows: int = 500
    bytes_total: int = 1_500_000
    python_seconds: float = 8.0
    python_chars: int = 12_000


#: The default budget (Table 7), shared: a Budget is frozen.
DEFAULT_BUDGET = Budget()


@dataclass(frozen=True)
class Corpus:
    """The visible part of the world (PowerBench Table 9's corpus-size study).

    ``devices`` is ``None`` for the whole world, else the set of visible device ids.
    """

    devices: frozenset[str] | None = None

    @classmethod
    def sized(cls, world_root: Path, n_devices: int, targets: list[str] | tuple[str, ...] = (),
              seed: int | str = 0) -> Corpus:
        """``n_devices`` visible devices: every target, then the others in the order of
        sha256(seed|device_id) — nested: with one seed, a larger N shows a superset."""
        ids = all_devices(world_root)
        chosen = [t for t in dict.fromkeys(targets) if t in ids]
        rest = sorted((d for d in ids if d not in chosen),
                      key=lambda d: hashlib.sha256(f"{seed}|{d}".encode()).hexdigest())
        chosen += rest[:max(0, int(n_devices) - len(chosen))]
        return cls(frozenset(chosen))

    def shows_device(self, device_id: str) -> bool:
        return self.devices is None or device_id in self.devices

    def shows_document(self, row: dict[str, Any]) -> bool:
        ids = row.get("device_ids") or []
        return self.devices is None or not ids or any(d in self.devices for d in ids)

    def to_dict(self) -> dict[str, Any]:
        return {"devices": None if self.devices is None else sorted(self.devices)}


class ToolError(Exception):
    """A tool call the session refuses: its message is the one-line error the agent sees."""

    def __init__(self, message: str, budget_reached: bool = False) -> None:
        super().__init__(message)
        self.budget_reached = budget_reached


# ------------------------------------------------------------------------------- the world


def all_devices(world_root: Path) -> list[str]:
    d = Path(world_root) / "telemetry"
    return sorted(p.name.split("=", 1)[1] for p in d.iterdir() if p.name.startswith("device_id=")) if d.is_dir() else []


@dataclass
class WorldView:
    """What the tools read of one world, loaded once per process."""

    root: Path
    manifest: list[dict[str, Any]]
    by_path: dict[str, dict[str, Any]]
    devices: list[str]
    start: str | None
    hours: int | None
    _columns: dict[str, list[str]] = field(default_factory=dict)
    _kinds: dict[tuple[int, str], np.ndarray] = field(default_factory=dict)

    def kind_mask(self, paths: list[str], kind: str) -> np.ndarray:
        """Which of the index's documents are of ``kind`` (cached per index and kind)."""
        key = (id(paths), kind)
        if key not in self._kinds:
            self._kinds[key] = np.array([self.by_path.get(p, {}).get("kind") == kind for p in paths], dtype=bool)
        return self._kinds[key]

    def columns(self, device_id: str) -> list[str]:
        if device_id not in self._columns:
            import pyarrow.parquet as pq

            from psab.fleet import store

            self._columns[device_id] = [n for n in pq.read_schema(store.device_path(self.root, device_id)).names if n != "ts"]
        return self._columns[device_id]


_VIEWS: dict[str, tuple[tuple[int, int], WorldView]] = {}
_VIEWS_LOCK = threading.Lock()


def world_view(world_root: Path) -> WorldView:
    from psab.fleet import store

    root = Path(world_root).resolve()
    st = (root / "documents" / "manifest.jsonl").stat()
    sig = (st.st_mtime_ns, st.st_size)
    with _VIEWS_LOCK:
        hit = _VIEWS.get(str(root))
        if hit is not None and hit[0] == sig:
            return hit[1]
        manifest = store.read_manifest(root)
        try:
            info = json.loads((root / "world.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            info = {}
        v = WorldView(root, manifest, {m["path"]: m for m in manifest}, all_devices(root), info.get("start"), info.get("hours"))
        _VIEWS[str(root)] = (sig, v)
        return v


# --------------------------------------------------------------------------- arguments


def _arg(args: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any = None, required: bool = False) -> Any:
    if name not in args or args[name] is None:
        if required:
            raise ToolError(f"missing argument '{name}'")
        return default
    v = args[name]
    if kind is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise ToolError(f"argument '{name}' must be an integer")
    if not isinstance(v, kind):
        raise ToolError(f"argument '{name}' must be {'a string' if kind is str else getattr(kind, '__name__', kind)}")
    return v


def _check_keys(args: dict[str, Any], allowed: tuple[str, ...]) -> None:
    extra = sorted(set(args) - set(allowed))
    if extra:
        raise ToolError(f"unknown argument(s) {', '.join(repr(e)[:40] for e in extra[:5])}; expected {', '.join(allowed)}")


_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}(:\d{2}(:\d{2})?)?)?(Z|[+-]\d{2}:?\d{2})?$")


def _parse_time(name: str, s: Any) -> datetime | None:
    if s is None:
        return None
    if not isinstance(s, str) or len(s) > 40 or not _TIME.match(s.strip()):
        raise ToolError(f"argument '{name}' must be an ISO 8601 time such as 2024-07-03T14:00:00Z")
    t = s.strip().replace(" ", "T")
    if t.endswith("Z"):
        t = t[:-1] + "+00:00"
    if "T" in t and t.count(":") == 0 and not re.search(r"[+-]\d{2}:?\d{2}$", t):
        t += ":00"
    try:
        d = datetime.fromisoformat(t)
    except ValueError:
        raise ToolError(f"argument '{name}' is not a valid time: {s[:40]!r}") from None
    return d.replace(tzinfo=UTC) if d.tzinfo is None else d.astimezone(UTC)


def _iso(d: datetime) -> str:
    return d.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _short(v: Any, depth: int = 0) -> Any:
    """An argument as the log keeps it: strings, lists and dicts cut, nesting cut at 6 levels."""
    if isinstance(v, str):
        return v if len(v) <= LOG_ARG_CHARS else v[:LOG_ARG_CHARS] + f"…[{len(v)} chars]"
    if isinstance(v, dict | list) and depth >= 6:
        return "…"
    if isinstance(v, dict):
        return {str(k)[:100]: _short(x, depth + 1) for k, x in list(v.items())[:20]}
    if isinstance(v, list):
        return [_short(x, depth + 1) for x in v[:50]]
    if v is None or isinstance(v, bool | int | float):
        return v
    return repr(v)[:100]


def _one_line(s: str) -> str:
    """An error as the agent gets it: one line (a path it sent may hold a newline), bounded."""
    return " ".join(s.split())[:1000]


# ------------------------------------------------------------------------------- session


class ToolSession:
    """One question's tool session: enforces the budget, logs every call, never raises."""

    def __init__(self, world_root: Path, budget: Budget = DEFAULT_BUDGET, corpus: Corpus | None = None,
                 log_path: Path | None = None, python_isolation: str = "bwrap") -> None:
        if python_isolation not in PYTHON_ISOLATIONS:
            raise ValueError(f"python_isolation must be one of {PYTHON_ISOLATIONS}")
        self.world_root = Path(world_root)
        #: :func:`run_python`'s ``isolation``: ``bwrap`` (refuse the call when bwrap is not
        #: usable here) unless the run asked for the fallback (``auto``).
        self.python_isolation = python_isolation
        self.budget = budget
        self.corpus = corpus or Corpus()
        self.log_path = Path(log_path) if log_path is not None else None
        self.log: list[dict[str, Any]] = []
        self.started = time.monotonic()
        self.bytes_used = 0
        self._lock = threading.Lock()
        self._evidence: list[dict[str, Any]] = []
        self._con: Any = None
        self._view: WorldView | None = None
        self._visible_mask: np.ndarray | None = None
        self._paths: list[str] | None = None

    # ------------------------------------------------------------------ plumbing

    @property
    def view(self) -> WorldView:
        if self._view is None:
            self._view = world_view(self.world_root)
        return self._view

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run one tool call: ``{"ok": True, "result": ...}`` or ``{"ok": False, "error": ...,
        "budget_reached": bool}``. Calls are serial (PowerBench's serial tool-call budget)."""
        with self._lock:
            t0 = time.perf_counter()
            rows = lines = 0
            budget_reached = False
            name = tool if isinstance(tool, str) else repr(tool)[:60]
            try:
                if len(self.log) >= self.budget.calls:
                    raise ToolError(f"tool-call budget reached: {self.budget.calls} calls per question", True)
                if time.monotonic() - self.started > self.budget.seconds:
                    raise ToolError(f"time budget reached: {self.budget.seconds:g} s per question", True)
                if not isinstance(tool, str) or tool not in TOOLS:
                    raise ToolError(f"unknown tool {name[:60]!r}; tools: {', '.join(TOOLS)}")
                if not isinstance(args, dict):
                    raise ToolError("arguments must be a JSON object")
                try:
                    size = len(json.dumps(args, ensure_ascii=False).encode())
                except (TypeError, ValueError, RecursionError):
                    raise ToolError("arguments must be JSON (plain, not nested past a few hundred levels)") from None
                if size > MAX_ARGS_BYTES:
                    raise ToolError(f"arguments too large: {size} bytes (at most {MAX_ARGS_BYTES})")
                result, rows, lines, evidence = getattr(self, "_" + tool)(args)
                out = json.dumps(result, ensure_ascii=False)
                nbytes = len(out.encode())
                if self.bytes_used + nbytes > self.budget.bytes_total:
                    raise ToolError(f"bytes budget reached: this result is {nbytes} bytes and "
                                    f"{self.budget.bytes_total - self.bytes_used} of {self.budget.bytes_total} remain "
                                    f"(ask for less)", True)
                self.bytes_used += nbytes
                self._evidence += evidence
                reply: dict[str, Any] = {"ok": True, "result": result}
                error = None
            except ToolError as exc:
                error, budget_reached, nbytes, rows, lines = _one_line(str(exc)), exc.budget_reached, 0, 0, 0
                reply = {"ok": False, "error": error, "budget_reached": budget_reached}
            except Exception as exc:  # a defect must not end the run: the agent sees an error
                error, nbytes, rows, lines = _one_line(f"internal error: {type(exc).__name__}: {str(exc)[:200]}"), 0, 0, 0
                reply = {"ok": False, "error": error, "budget_reached": False}
            entry = {"n": len(self.log) + 1, "tool": name, "args": _short(args) if isinstance(args, dict) else None,
                     "ok": error is None, "error": error, "bytes": nbytes, "rows": rows, "lines": lines,
                     "duration_ms": round((time.perf_counter() - t0) * 1000, 3), "budget_reached": budget_reached,
                     "t_s": round(time.monotonic() - self.started, 3)}
            self.log.append(entry)
            if self.log_path is not None:
                try:
                    with open(self.log_path, "a", encoding="utf-8") as f:
                        f.write(json.dumps(entry, ensure_ascii=False) + "\n")
                except OSError:
                    pass  # the in-memory log still has it
            return reply

    def retrieved_evidence(self) -> list[dict[str, Any]]:
        """Evidence items in :mod:`psab.fleet.grading`'s format: every document read
        (``{"kind": "document", "path"}``, once) and every series window read
        (``{"kind": "series", "device_id", "start", "end", "metrics"}``, end exclusive)."""
        out, seen = [], set()
        for e in self._evidence:
            k = json.dumps(e, sort_keys=True)
            if k not in seen:
                seen.add(k)
                out.append(dict(e))
        return out

    def summary(self) -> dict[str, Any]:
        n = len(self.log)
        return {"calls": n, "errors": sum(1 for e in self.log if not e["ok"]),
                "budget_reached": any(e["budget_reached"] for e in self.log), "bytes": self.bytes_used,
                "seconds": round(time.monotonic() - self.started, 3)}

    def close(self) -> None:
        if self._con is not None:
            try:
                self._con.close()
            except Exception:
                pass
            self._con = None

    # ------------------------------------------------------------------ list

    def _visible_paths(self) -> list[str]:
        if self._paths is None:  # once per session: the corpus does not change
            v = self.view
            docs = [m["path"] for m in v.manifest if self.corpus.shows_document(m)]
            series = [f"telemetry/{d}" for d in v.devices if self.corpus.shows_device(d)]
            self._paths = sorted(docs) + series
        return self._paths

    def _list_corpus(self, args: dict[str, Any]) -> tuple[Any, int, int, list]:
        _check_keys(args, ("prefix", "offset", "limit"))
        prefix = _arg(args, "prefix", str, "")
        offset = _arg(args, "offset", int, 0)
        limit = _arg(args, "limit", int, 100)
        if len(prefix) > MAX_PATH_CHARS:
            raise ToolError(f"prefix too long (at most {MAX_PATH_CHARS} characters)")
        if offset < 0 or not 1 <= limit <= LIST_PAGE_MAX:
            raise ToolError(f"offset must be >= 0 and limit between 1 and {LIST_PAGE_MAX}")
        pre = prefix[2:] if prefix.startswith("./") else prefix
        paths = self._visible_paths()  # sorted: the paths under a prefix are one contiguous run
        lo = bisect.bisect_left(paths, pre)
        hi = bisect.bisect_left(paths, pre + "\U0010ffff", lo) if pre else len(paths)
        total = hi - lo
        page = paths[lo + offset:min(hi, lo + offset + limit)]
        nxt = offset + limit if offset + limit < total else None
        return {"total": total, "offset": offset, "paths": page, "next_offset": nxt}, len(page), 0, []

    # ------------------------------------------------------------------ search

    def _visible(self) -> np.ndarray | None:
        if self.corpus.devices is None:
            return None
        if self._visible_mask is None:
            from psab.fleet.index import ensure_index

            idx = ensure_index(self.world_root)
            by_path = self.view.by_path
            self._visible_mask = np.array([self.corpus.shows_document(by_path.get(p, {})) for p in idx.paths], dtype=bool)
        return self._visible_mask

    def _search_corpus(self, args: dict[str, Any]) -> tuple[Any, int, int, list]:
        from psab.fleet.index import ensure_index, tokens

        _check_keys(args, ("query", "limit", "kind"))
        query = _arg(args, "query", str, required=True)
        limit = _arg(args, "limit", int, 10)
        kind = _arg(args, "kind", str)
        if not query.strip():
            raise ToolError("empty query")
        if len(query) > MAX_QUERY_CHARS:
            raise ToolError(f"query too long: {len(query)} characters (at most {MAX_QUERY_CHARS})")
        if not 1 <= limit <= SEARCH_LIMIT_MAX:
            raise ToolError(f"limit must be between 1 and {SEARCH_LIMIT_MAX}")
        idx = ensure_index(self.world_root)
        visible = self._visible()
        if kind is not None:
            kinds = {m.get("kind") for m in self.view.manifest}
            if kind not in kinds:
                raise ToolError(f"unknown kind {kind[:40]!r}; kinds: {', '.join(sorted(k for k in kinds if k))}")
            mask = self.view.kind_mask(idx.paths, kind)
            visible = mask if visible is None else (visible & mask)
        terms = set(tokens(query))
        hits = []
        for i, score in idx.search(query, visible, limit):
            path = idx.paths[i]
            row = self.view.by_path.get(path, {})
            hits.append({"path": path, "score": round(score, 4), "kind": row.get("kind"),
                         "device_ids": row.get("device_ids", []), "time": row.get("time"),
                         "snippet": self._snippet(path, terms)})
        return {"query": query, "hits": hits}, len(hits), 0, []

    def _snippet(self, path: str, terms: set[str]) -> str:
        from psab.fleet.index import read_document, tokens

        try:
            text = read_document(self.view.root, path)
        except OSError:
            return ""
        lines = text.splitlines()
        best = max(range(len(lines)), key=lambda k: (len(terms & set(tokens(lines[k]))), -k), default=None)
        line = lines[best].strip() if best is not None else ""
        return line[:SNIPPET_CHARS]

    # ------------------------------------------------------------------ read_file

    def _resolve_document(self, raw: str) -> str:
        """The manifest path an agent names, or a tool error. Only paths the manifest lists
        (and the corpus shows) are readable: ``..``, absolute paths and anything else are
        refused before the file system is touched; the file is then opened without following
        a symlink and must be a regular file inside ``documents/``."""
        if len(raw) > MAX_PATH_CHARS:
            raise ToolError(f"path too long (at most {MAX_PATH_CHARS} characters)")
        p = raw.strip()
        if "\x00" in p:
            raise ToolError("path contains a NUL byte")
        if p.startswith("/") or p.startswith("\\") or re.match(r"^[A-Za-z]:", p):
            raise ToolError("absolute paths are not allowed; use a corpus path such as documents/alarms/<id>.json")
        parts = p.replace("\\", "/").split("/")
        if ".." in parts:
            raise ToolError("'..' is not allowed in a path")
        p = "/".join(x for x in parts if x not in ("", "."))
        if not p.startswith("documents/"):
            p = "documents/" + p
        if not p.endswith((".md", ".json")):
            raise ToolError("read_file reads Markdown (.md) or JSON (.json) documents; use read_timeseries for telemetry")
        row = self.view.by_path.get(p)
        if row is None or not self.corpus.shows_document(row):
            raise ToolError(f"no such document: {p[:200]}")
        return p

    def _read_file(self, args: dict[str, Any]) -> tuple[Any, int, int, list]:
        _check_keys(args, ("path", "start_line", "max_lines"))
        path = self._resolve_document(_arg(args, "path", str, required=True))
        start = _arg(args, "start_line", int, 1)
        want = _arg(args, "max_lines", int, self.budget.read_lines)
        if start < 1 or want < 1:
            raise ToolError("start_line and max_lines must be at least 1")
        n = min(want, self.budget.read_lines)
        from psab.fleet.index import read_document

        try:
            text = read_document(self.view.root, path)
        except OSError:  # a symlink anywhere on the path, not a regular file, vanished, too large
            raise ToolError(f"cannot read {path}: not a regular document") from None
        all_lines = text.splitlines()
        total = len(all_lines)
        chunk = all_lines[start - 1:start - 1 + n]
        end = start - 1 + len(chunk)
        result = {"path": path, "start_line": start, "end_line": end, "total_lines": total,
                  "text": "\n".join(chunk) + ("\n" if chunk else ""),
                  "next_line": end + 1 if end < total else None,
                  "truncated": want > n and end < total}
        return result, 0, len(chunk), ([{"kind": "document", "path": path}] if chunk else [])

    # ------------------------------------------------------------------ read_timeseries

    def _read_timeseries(self, args: dict[str, Any]) -> tuple[Any, int, int, list]:
        from psab.fleet import store

        _check_keys(args, ("device_id", "metrics", "start", "end", "limit"))
        dev = _arg(args, "device_id", str, required=True).strip()
        if len(dev) > 100 or dev not in self.view.devices or not self.corpus.shows_device(dev):
            raise ToolError(f"no telemetry for device {dev[:100]!r}")
        metrics = _arg(args, "metrics", (list, str), None)
        if isinstance(metrics, str):
            metrics = [m.strip() for m in metrics.split(",") if m.strip()]
        part = store.device_path(self.view.root, dev)
        if os.path.realpath(part) != str(part):  # a link planted in a world leads nowhere
            raise ToolError(f"no telemetry for device {dev}")
        cols = self.view.columns(dev)
        if metrics is not None:
            if not metrics or len(metrics) > 64 or not all(isinstance(m, str) for m in metrics):
                raise ToolError("metrics must be a non-empty list of metric names")
            unknown = [m for m in metrics if m not in cols]
            if unknown:
                raise ToolError(f"device {dev} has no metric {unknown[0][:60]!r}; its metrics: {', '.join(cols)}")
            metrics = list(dict.fromkeys(metrics))
        else:
            metrics = list(cols)  # named, so no column of the file's path (DuckDB's hive partitioning) creeps in
        a = _parse_time("start", _arg(args, "start", str))
        b = _parse_time("end", _arg(args, "end", str))
        if a is not None and b is not None and b <= a:
            raise ToolError("end must be after start")
        want = _arg(args, "limit", int, self.budget.window_rows)
        if want < 1:
            raise ToolError("limit must be at least 1")
        n = min(want, self.budget.window_rows)
        if self._con is None:
            import duckdb

            self._con = duckdb.connect()
        data = store.read_window(self.view.root, dev, _iso(a) if a else None, _iso(b) if b else None,
                                 columns=metrics, limit=n + 1, con=self._con)
        names = ["ts", *metrics]
        count = len(data["ts"])
        more = count > n
        count = min(count, n)
        text = _csv(names, {c: data[c][:count] for c in names})
        evidence = []
        first = last = None
        if count:
            first = str(data["ts"][0])
            last_t = datetime.fromisoformat(str(data["ts"][count - 1]).replace("Z", "+00:00"))
            last = _iso(last_t + timedelta(hours=1))
            evidence = [{"kind": "series", "device_id": dev, "start": first, "end": last,
                         "metrics": [c for c in names if c != "ts"]}]
        result = {"device_id": dev, "columns": names, "rows": count, "csv": text,
                  "first_ts": first, "end_ts": last,
                  "next_start": str(data["ts"][count]) if more else None, "truncated": more}
        return result, count, 0, evidence

    # ------------------------------------------------------------------ python

    def _python(self, args: dict[str, Any]) -> tuple[Any, int, int, list]:
        _check_keys(args, ("code",))
        code = _arg(args, "code", str, required=True)
        if not code.strip():
            raise ToolError("empty program")
        res = run_python(code, self.budget.python_seconds, self.budget.python_chars,
                         deny=[self.view.root], isolation=self.python_isolation)
        if res["timed_out"]:
            raise ToolError(f"python: time limit of {self.budget.python_seconds:g} s reached (the program was killed)", True)
        return res, 0, 0, []


def _csv(names: list[str], cols: dict[str, np.ndarray]) -> str:
    """CSV of the columns (``ts`` first): numbers in their shortest round-trip form, a missing
    value (NaN) empty. Written by Arrow's CSV writer, which is ten times faster than a Python
    loop over 500 rows × the metrics (issue 23's 20 ms target per call)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    table = pa.table({n: (pa.array(cols[n].astype(str)) if n == "ts" else pa.array(np.asarray(cols[n], dtype=float),
                                                                                     from_pandas=True)) for n in names})
    buf = io.BytesIO()
    pcsv.write_csv(table, buf, pcsv.WriteOptions(include_header=False, quoting_style="none"))
    return ",".join(names) + "\n" + buf.getvalue().decode()


# ------------------------------------------------------------------------- python child

#: The python tool's processes run as this host user when the server is root: an id no one else
#: runs as, so RLIMIT_NPROC (counted per real user) counts only the tool's own processes and a
#: fork bomb meets it, where the agents' 65534 would count every sandboxed agent too.
PYTHON_TOOL_UID = PYTHON_TOOL_GID = 65533
#: Processes (threads included) the python tool may hold at once, across concurrent calls.
PYTHON_NPROC = 64
PYTHON_MEMORY_BYTES = 1 << 30
PYTHON_FILE_BYTES = 16 << 20
PYTHON_NOFILE = 64

#: Runs before the agent's program. First a seccomp filter (installed through ``prctl`` with
#: ``ctypes``, before the hook below refuses ``ctypes``) makes every later ``execve``/``execveat``
#: fail with EPERM: the interpreter is already running, so no new program can start, however it is
#: asked for — ``_posixsubprocess.fork_exec`` raises no audit event (issue 32, item 8), and a
#: process started that way would run without the hook. Where the filter cannot be installed the
#: prelude stops before the agent's program runs (fail closed). Then an audit hook (PEP 578)
#: refusing sockets, new programs and native-code loading, and opening files under the denied
#: roots. A relative path is checked against the working directory and against every directory
#: the program holds open, because the ``open`` event does not carry ``dir_fd`` (``os.open('w.json',
#: dir_fd=fd)`` read the world, issue 32 item 8); ``os.link``/``os.rename`` out of a denied root
#: are refused the same way (a hard link is a path the ancestor walk would not recognise).
#: Under bwrap it is a second layer (the namespace has no network and no world); without bwrap it
#: is the only file guard.
#: The roots are named by identity (device, inode), never by path: this file sits in the
#: program's own directory, where the agent may read it, and the roots' paths would tell it
#: where psab, the world and the keys are (and that psab runs it; issue 23, neutral names).
_PRELUDE = r"""
import sys
def _no_new_programs():
    import ctypes, os, platform, struct
    # seccomp_data: nr at offset 0, arch at 4 (linux/seccomp.h); classic BPF instructions
    arches = {"x86_64": (0xC000003E, (59, 322)), "aarch64": (0xC00000B7, (221, 281))}
    arch, calls = arches[platform.machine()]
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    deny, allow = 0x00050000 | 1, 0x7FFF0000   # SECCOMP_RET_ERRNO | EPERM, SECCOMP_RET_ALLOW
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, deny), (ld, 0, 0, 0),
            (jge, 3, 0, 0x40000000),           # the x32 ABI's numbers: refused whole
            (jeq, 2, 0, calls[0]), (jeq, 1, 0, calls[1]), (ret, 0, 0, allow), (ret, 0, 0, deny)]
    buf = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in prog))
    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    fp = Fprog(len(prog), ctypes.cast(buf, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(38, 1, None, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fp), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp")
try:
    _no_new_programs()
except Exception as exc:
    sys.stderr.write(f"the python tool cannot refuse new programs here ({exc!r}); it does not run\n")
    raise SystemExit(70)
del _no_new_programs
def _fleet_guard(deny):
    import os
    _real, _stat, _up, _join, _abs = os.path.realpath, os.stat, os.path.dirname, os.path.join, os.path.isabs
    _listdir, _readlink, _isdir, _fspath = os.listdir, os.readlink, os.path.isdir, os.fspath

    def denied(p):
        while True:
            try:
                st = _stat(p)
                ident = (st.st_dev, st.st_ino)
            except OSError:
                ident = None
            if ident in deny:
                return True
            parent = _up(p)
            if parent == p:
                return False
            p = parent

    def bases(dir_fd):
        # where a relative path may be resolved from: the given directory descriptor, else the
        # working directory and every directory held open (the event does not say which)
        if isinstance(dir_fd, int) and dir_fd >= 0:
            fds = [dir_fd]
        else:
            try:
                fds = [int(f) for f in _listdir("/proc/self/fd")]
            except OSError:
                fds = []
        out = [] if fds == [dir_fd] else [os.getcwd()]
        for fd in fds:
            try:
                target = _readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if target.startswith("/") and _isdir(target):
                out.append(target)
        return out

    def touches(path, dir_fd=None):
        if isinstance(path, int) or path is None:
            return False
        try:
            p = _fspath(path)
        except TypeError:
            return True  # not a path the hook can read: refused rather than guessed
        if isinstance(p, bytes):
            p = p.decode(errors="surrogateescape")
        if _abs(p):
            return denied(_real(p))
        return any(denied(_real(_join(b, p))) for b in bases(dir_fd))

    blocked = ("socket.", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
               "ctypes.", "pty.spawn", "sys.remote_exec", "os.kill", "os.killpg")
    def hook(event, args):
        if event.startswith(blocked):
            raise PermissionError(f"the python tool does not allow {event}")
        if event == "open" and args and touches(args[0]):
            raise PermissionError("the python tool cannot read the world's files; use the other tools")
        if event in ("os.link", "os.rename") and len(args) >= 3 and touches(args[0], args[2]):
            raise PermissionError("the python tool cannot read the world's files; use the other tools")
    sys.addaudithook(hook)
_fleet_guard(DENY)
del _fleet_guard
_src = open("program.py", encoding="utf-8").read()
_g = {"__name__": "__main__", "__builtins__": __builtins__}
exec(compile(_src, "<python tool>", "exec"), _g)
"""


def _python_bwrap_problem() -> str | None:
    from psab.runner.sandbox import bwrap_problem

    try:
        return bwrap_problem(False)
    except Exception as exc:  # a probe that fails is bwrap not working, never the session's crash
        return f"the probe failed: {exc}"


def _python_bwrap_ok() -> bool:
    return _python_bwrap_problem() is None


def _count_user_procs(uid: int) -> int:
    n = 0
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                if os.stat(f"/proc/{e}").st_uid == uid:
                    n += len(os.listdir(f"/proc/{e}/task"))
            except OSError:
                pass
    return n


def _identities(paths: list[str]) -> frozenset[tuple[int, int]]:
    """(device, inode) of each existing path: how the prelude names the roots it denies."""
    out = set()
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue
        out.add((st.st_dev, st.st_ino))
    return frozenset(out)


#: How the python tool may run: ``bwrap`` only (the default: refused where bwrap does not work),
#: ``auto`` (bwrap, else the ``rlimit`` fallback — only when asked for, ``--allow-unsandboxed-python-tool``),
#: ``rlimit`` (never bwrap; tests).
PYTHON_ISOLATIONS = ("bwrap", "auto", "rlimit")

#: The one line a refused call returns (issue 32, item 8).
NO_PYTHON_SANDBOX = ("python: the python tool runs only in the bwrap sandbox, which does not work here ({why}); "
                     "the run may allow its weaker fallback (limits and an audit hook, no namespace) with "
                     "--allow-unsandboxed-python-tool")


def run_python(code: str, seconds: float = 8.0, chars: int = 12_000, deny: list[Path] | None = None,
               isolation: str = "bwrap") -> dict[str, Any]:
    """Run ``code`` with the system ``python3 -I`` in a restricted child: a fresh temporary
    working directory, a clean environment, ``setrlimit`` (CPU ``seconds``+1, address space
    1 GiB, files 16 MB, 64 descriptors, :data:`PYTHON_NPROC` processes), the wall time
    ``seconds`` (then the whole process group is killed), output cut at ``chars`` characters.

    With bwrap (``isolation`` ``auto`` or ``bwrap``) the child runs in the runner's sandbox
    (:func:`psab.runner.sandbox.bwrap_args`) without network: only the system directories and
    its working directory exist for it; ``isolation="bwrap"`` (the default) raises
    :class:`ToolError` where bwrap does not work. ``auto`` falls back to no namespace and
    ``rlimit`` skips bwrap (the seccomp filter, the audit hook and the limits remain): a weaker
    guard, used only when the caller asked for it. Only the standard library is available (the
    system interpreter)."""
    from psab.runner import sandbox

    if isolation not in PYTHON_ISOLATIONS:
        raise ValueError(f"isolation must be one of {PYTHON_ISOLATIONS}")
    if isolation == "bwrap":
        why = _python_bwrap_problem()
        if why is not None:
            raise ToolError(NO_PYTHON_SANDBOX.format(why=why))

    deny = [str(Path(d).resolve()) for d in (deny or [])]
    from psab.runner.sandbox import hidden_roots

    deny += [str(h) for h in hidden_roots(None) if h != Path.home().resolve()]
    use_bwrap = isolation == "bwrap" or (isolation == "auto" and _python_bwrap_ok())  # bwrap: checked above
    root = sandbox.temp_root()
    work = sandbox.owned_tempdir("p", root)  # its owner in its name: remove_stale reclaims it
    box = work / "box"
    box.mkdir()
    try:
        (box / "program.py").write_text(code, encoding="utf-8")
        (box / "main.py").write_text(_PRELUDE.replace("DENY", repr(_identities(deny))), encoding="utf-8")
        as_root = os.geteuid() == 0
        user: dict[str, Any] = {}
        if as_root:
            os.chmod(work, 0o711)
            for p in (box, box / "program.py", box / "main.py"):
                os.chown(p, PYTHON_TOOL_UID, PYTHON_TOOL_GID)
            user = {"user": PYTHON_TOOL_UID, "group": PYTHON_TOOL_GID, "extra_groups": []}
            nproc = PYTHON_NPROC
        else:
            nproc = _count_user_procs(os.getuid()) + PYTHON_NPROC
        py = sandbox.system_python()
        cpu = int(math.ceil(seconds)) + 1
        limits = {"cpu": cpu, "as": PYTHON_MEMORY_BYTES, "fsize": PYTHON_FILE_BYTES, "nofile": PYTHON_NOFILE, "nproc": nproc}
        prlimit = shutil.which("prlimit")
        if prlimit:
            prefix = [prlimit, *(f"--{k}={v}" for k, v in limits.items()), "--"]
        else:
            prefix = [py, "-I", "-S", "-c", _LIMIT_SHIM, json.dumps(limits)]
        pass_fds: tuple[int, ...] = ()
        args_r = None
        if use_bwrap:
            args_r, args_w = os.pipe()
            bargs = sandbox.bwrap_args(box, network=False, expose=[], hidden=sandbox.hidden_roots(None))
            os.write(args_w, b"\0".join(a.encode() for a in bargs) + b"\0")
            os.close(args_w)
            pass_fds = (args_r,)
            argv = [*prefix, shutil.which("bwrap") or "bwrap", "--args", str(args_r), "--", py, "-I", "main.py"]
        else:
            argv = [*prefix, py, "-I", "main.py"]
        env = {"PATH": "/usr/bin:/bin", "HOME": str(sandbox.BOX_IN_BWRAP if use_bwrap else box), "LANG": "C.UTF-8",
               "TMPDIR": "/tmp" if use_bwrap else str(box), "PYTHONIOENCODING": "utf-8"}
        out_path = work / "out"
        t0 = time.perf_counter()
        timed_out = False
        with open(os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), "wb") as out:
            try:
                proc = subprocess.Popen(argv, cwd=box, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                        start_new_session=True, close_fds=True, pass_fds=pass_fds, **user)
            finally:
                if args_r is not None:
                    os.close(args_r)
            try:
                code_ = proc.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                timed_out = True
                _end(proc, use_bwrap)
                code_ = proc.wait()
            finally:
                _end(proc, use_bwrap)
        wall = time.perf_counter() - t0
        with open(out_path, "rb") as f:
            raw = f.read(chars * 4 + 4)
        text = raw.decode("utf-8", errors="replace")
        truncated = len(text) > chars or out_path.stat().st_size > len(raw)
        return {"exit_code": None if timed_out else code_, "output": text[:chars], "truncated": truncated,
                "timed_out": timed_out, "seconds": round(wall, 3), "isolation": "bwrap" if use_bwrap else "rlimit"}
    finally:
        sandbox._rmtree(work)


def _children(pid: int) -> list[int]:
    out = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                data = Path(f"/proc/{e}/stat").read_bytes()
            except OSError:
                continue
            fields = data[data.rfind(b")") + 2:].split()
            if len(fields) > 1 and int(fields[1]) == pid:
                out.append(int(e))
    return out


def _end(proc: subprocess.Popen[bytes], bwrap: bool) -> None:
    """Kill a python-tool child and everything it started, and wait until they are gone.

    Under bwrap the program runs in its own pid namespace (and, by ``--new-session``, its own
    session), so a process-group kill reaches only the outer bwrap. Killing the namespace's
    init (the outer bwrap's child) makes the kernel kill every process in the namespace and
    reap them before the init is gone; waiting for the outer bwrap then means the whole tree
    has left — which matters because RLIMIT_NPROC would otherwise still count a fork bomb's
    dying processes against the next call."""
    if proc.poll() is None and bwrap:
        for k in _children(proc.pid):
            try:
                os.kill(k, 9)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    from psab.runner.sandbox import kill_group

    kill_group(proc.pid)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


_LIMIT_SHIM = (
    "import json, os, resource as r, sys\n"
    "for k, v in json.loads(sys.argv[1]).items():\n"
    "    res = getattr(r, 'RLIMIT_' + k.upper()); r.setrlimit(res, (v, v))\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)


def describe_tools() -> list[dict[str, Any]]:
    """Each tool's name, description and JSON-schema input (for the MCP face and instructions)."""
    b = Budget()
    return [
        {"name": "list_corpus", "description": "List corpus files (documents, and telemetry/<device_id> for each series), "
                                               "optionally under a prefix, paged.",
         "input_schema": {"type": "object", "properties": {
             "prefix": {"type": "string", "description": "e.g. documents/work_orders/ or telemetry/"},
             "offset": {"type": "integer", "minimum": 0}, "limit": {"type": "integer", "minimum": 1, "maximum": LIST_PAGE_MAX}},
             "additionalProperties": False}},
        {"name": "search_corpus", "description": "Search document paths, headers and text; ranked hits with snippets.",
         "input_schema": {"type": "object", "properties": {
             "query": {"type": "string", "maxLength": MAX_QUERY_CHARS},
             "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_LIMIT_MAX},
             "kind": {"type": "string", "description": "type, config, alarm, work_order, maintenance_log or inspection"}},
             "required": ["query"], "additionalProperties": False}},
        {"name": "read_file", "description": f"Read a Markdown or JSON document by line range (at most {b.read_lines} lines a call).",
         "input_schema": {"type": "object", "properties": {
             "path": {"type": "string"}, "start_line": {"type": "integer", "minimum": 1},
             "max_lines": {"type": "integer", "minimum": 1}}, "required": ["path"], "additionalProperties": False}},
        {"name": "read_timeseries", "description": f"One device's hourly telemetry in [start, end) as CSV "
                                                   f"(at most {b.window_rows} rows a call; times ISO 8601 UTC).",
         "input_schema": {"type": "object", "properties": {
             "device_id": {"type": "string"}, "metrics": {"type": "array", "items": {"type": "string"}},
             "start": {"type": "string"}, "end": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
             "required": ["device_id"], "additionalProperties": False}},
        {"name": "python", "description": f"Run a short Python program (standard library only; {b.python_seconds:g} s, "
                                          f"{b.python_chars} characters of output; no network, no files of the world).",
         "input_schema": {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"],
                          "additionalProperties": False}},
    ]


__all__ = ["DEFAULT_BUDGET", "TOOLS", "Budget", "Corpus", "ToolError", "ToolSession", "all_devices", "describe_tools", "run_python",
           "world_view"]

if __name__ == "__main__":  # pragma: no cover - a manual check
    s = ToolSession(Path(sys.argv[1]))
    print(json.dumps(s.call(sys.argv[2], json.loads(sys.argv[3])), indent=1))
