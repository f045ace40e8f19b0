"""Helpers for the report / qc / regrade tests: real runs of built-in agents, made once per session."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import psab
import psab.cli

_RUNS: dict[str, Path] = {}

#: The built-in agents of the shared run: one that is right, one that makes a realistic
#: mistake, one that crashes, one whose first attempt meets a provider error.
BUILTINS = ["builtin:reference", "builtin:mutant", "builtin:crash", "builtin:flaky"]

#: A held-out seed used only by these tests (and grepped for in the reports).
SEED = "reports-test-seed-7f3a"


def two_families() -> list[str]:
    """``ybus_construction`` and the first registered family of another area (else the next one):
    the tests must keep working however many families get registered."""
    specs = psab.families()
    first = psab.get_family("ybus_construction")
    other = next((s for s in specs if s.area != first.area), None) or next(s for s in specs if s.id != first.id)
    return [first.id, other.id]


def cli(*args: str) -> tuple[int, str]:
    """Run ``psab ARGS`` in this process; (exit status, stdout)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = psab.cli.main(list(args))
    return code, out.getvalue()


def make_run(tmp_path_factory: Any, name: str, agents: list[str], *extra: str, families: list[str] | None = None) -> Path:
    """A real ``psab run`` of ``agents`` on two families (public split unless ``extra`` says
    otherwise), made once per test session and shared (read-only: copy it to change it)."""
    if name in _RUNS:
        return _RUNS[name]
    out = tmp_path_factory.mktemp("runs") / name
    args = ["run", "--out", str(out), "--progress", "none", "--timeout", "30"]
    for a in agents:
        args += ["--agent", a]
    for f in families or two_families():
        args += ["--family", f]
    code, text = cli(*args, *extra)
    assert code == 0, text
    _RUNS[name] = out
    return out


def copy_run(run: Path, dest: Path) -> Path:
    shutil.copytree(run, dest, ignore=shutil.ignore_patterns(".lock", "report"))
    return dest


def records(run: Path, split: str = "public") -> list[dict[str, Any]]:
    p = run / "records.jsonl" if split == "public" else run / "private" / "records.jsonl"
    return [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


def rewrite_records(run: Path, fn: Any, split: str = "public") -> None:
    """Apply ``fn(record) -> record`` to every record of a (copied) run."""
    p = run / "records.jsonl" if split == "public" else run / "private" / "records.jsonl"
    recs = [fn(r) for r in records(run, split)]
    p.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def md_table(markdown: str, heading: str) -> list[list[str]]:
    """The rows (cells as text) of the first Markdown table after ``heading``."""
    lines = markdown.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == heading)
    rows: list[list[str]] = []
    for ln in lines[start + 1:]:
        if ln.startswith("|"):
            rows.append([c.strip() for c in ln.strip().strip("|").split(" | ")])
        elif rows:
            break
    return rows[2:]  # without header and separator


__all__ = ["BUILTINS", "SEED", "cli", "copy_run", "make_run", "md_table", "records", "rewrite_records", "two_families"]
