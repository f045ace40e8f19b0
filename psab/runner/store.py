"""The run directory: manifest, append-only records, attempt artifacts, summaries.

Layout::

    RUN_DIR/
      manifest.json      run id, agents, splits, versions, held-out seed commitment and
                         manifest of case digests (never the seed)
      records.jsonl      one line per finished public case
      artifacts/<agent>/<task id>/attempt-<n>/   solution.json, result.json, stdout/stderr tails
                         (RunDir.attempt_dir)
      summary.json       aggregates per agent and split (publishable)
      summary.md
      private/           held-out per-case material — never publish:
        records.jsonl
        artifacts/...

Durability: a record line is written, flushed and fsync'd before the next finished case is
reported; a case's artifacts are written before its record, so a record always has them. On
resume a torn last line (the process died mid-write) is cut off and that case runs again.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from psab.contract import dumps, to_jsonable
from psab.errors import RunnerError

MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
PRIVATE = "private"
FORMAT = "psab-run-v1"
#: A run's splits, in the order records are read, run and summarised.
SPLITS = ("public", "heldout")

_PRIVATE_README = """\
This directory holds held-out per-case material: the agents' solutions, the evaluator's
results and the agents' output. Each of them discloses its case's answer. Do not publish it;
publish summary.json / summary.md from the run directory instead.
"""


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


#: Subdirectory holding the public tasks a run was given.
TASKS = "tasks"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file and rename (readers never see half)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def record_line(record: dict[str, Any]) -> str:
    """A record as one compact JSON line (sorted keys)."""
    return json.dumps(to_jsonable(record), sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def check_seed(seed: str, version: str | None, heldout: dict[str, Any]) -> None:
    """Refuse a seed whose commitment (under ``version``) is not the run's ``heldout`` one."""
    from psab.generators import seeds

    if seeds.commitment(seed, version) != heldout["seed_commitment"]:
        raise RunnerError("this seed does not match the run's seed commitment; give the run's own seed")


def attempt_name(n: int) -> str:
    """The directory of attempt ``n`` among a case's artifacts: ``attempt-<n>``."""
    return f"attempt-{n}"


def attempt_path(agent: str, task_id: str, n: int) -> str:
    """Where attempt ``n`` of a case keeps its artifacts, relative to a split's artifacts root
    (``<agent>/<task id>/attempt-<n>``)."""
    return f"{agent}/{task_id}/{attempt_name(n)}"


def _safe(part: str) -> str:
    if not part or part in (".", "..") or "/" in part or "\0" in part:
        raise RunnerError(f"unsafe path component {part!r}")
    return part


class RunDir:
    """A run directory, locked for the lifetime of this object's :meth:`open`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock_fd: int | None = None
        self._files: dict[str, Any] = {}
        #: Each split's records once :meth:`load_records` has read them; :meth:`append` keeps
        #: them current, so a run reads its records once, however often it asks.
        self._records: dict[str, list[dict[str, Any]]] | None = None

    # ------------------------------------------------------------------ lifecycle

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def exists(self) -> bool:
        return self.manifest_path.is_file()

    def create(self, manifest: dict[str, Any]) -> None:
        if self.path.exists() and any(self.path.iterdir()):
            raise RunnerError(f"run directory {self.path} already exists and is not empty; use --resume {self.path} or another --out")
        self.path.mkdir(parents=True, exist_ok=True)
        self.lock()
        write_atomic(self.manifest_path, dumps(manifest))

    def store_public_tasks(self, tasks: list[tuple[dict[str, Any], dict[str, Any] | None]]) -> None:
        """Keep each public task (agent view and key) under ``tasks/<task id>/``, so the run
        stays self-contained: a later regrade scores the stored answers against the exact
        task they were given, even after the family's public case has changed."""
        for view, key in tasks:
            d = self.path / TASKS / _safe(str(view["id"]))
            write_atomic(d / "task.json", dumps(view))
            if key is not None:
                write_atomic(d / "key.json", dumps(key))

    def stored_task_dir(self, task_id: str) -> Path:
        return self.path / TASKS / _safe(task_id)

    def lock(self) -> None:
        """Hold an exclusive lock so two runners never append to the same records."""
        if self._lock_fd is not None:
            return
        self.path.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RunnerError(f"run directory {self.path} is in use by another psab run") from None
        self._lock_fd = fd

    def close(self) -> None:
        for f in self._files.values():
            f.close()
        self._files.clear()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> RunDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def manifest(self) -> dict[str, Any]:
        if not self.exists():
            raise RunnerError(f"{self.path} is not a psab run directory (no {MANIFEST})")
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RunnerError(f"{self.manifest_path}: unreadable ({exc})") from None
        if data.get("format") != FORMAT:
            raise RunnerError(f"{self.manifest_path}: not a {FORMAT} manifest")
        return data

    # ------------------------------------------------------------------ records

    def records_path(self, split: str) -> Path:
        return (self.path / PRIVATE / RECORDS) if split == "heldout" else (self.path / RECORDS)

    def artifacts_root(self, split: str) -> Path:
        return (self.path / PRIVATE / "artifacts") if split == "heldout" else (self.path / "artifacts")

    def case_artifacts(self, split: str, agent: str, task_id: str) -> Path:
        """The artifacts directory of one case (an agent on a task): one ``attempt-<n>`` per attempt."""
        return self.artifacts_root(split) / agent / task_id

    def attempt_dir(self, split: str, agent: str, task_id: str, n: int) -> Path:
        """The artifacts of attempt ``n`` of a case (``solution.json``, ``result.json``, output tails)."""
        return self.artifacts_root(split) / attempt_path(agent, task_id, n)

    def repair(self, split: str) -> int:
        """Cut a torn last line off the split's records (a write the process did not finish).

        Returns the number of bytes removed.
        """
        return self._repaired(split)[1]

    def _repaired(self, split: str) -> tuple[bytes, int]:
        """The split's records file as it stands after :meth:`repair` (read once), and the
        number of bytes cut off."""
        p = self.records_path(split)
        if not p.is_file():
            return b"", 0
        data = p.read_bytes()
        if not data or data.endswith(b"\n"):
            return data, 0
        keep = data.rfind(b"\n") + 1
        with open(p, "r+b") as f:
            f.truncate(keep)
            f.flush()
            os.fsync(f.fileno())
        return data[:keep], len(data) - keep

    def load_records(self) -> list[dict[str, Any]]:
        """Repair every split's records and read them — one read of each file — and keep them:
        from now on :meth:`records` answers from memory and :meth:`append` adds to it. For the
        run's own writer (it holds the lock, so nobody else appends meanwhile)."""
        self._records = {}
        for split in SPLITS:
            data, _ = self._repaired(split)
            self._records[split] = list(_parse_records(self.records_path(split), data))
        return [r for split in SPLITS for r in self._records[split]]

    def records(self, split: str | None = None) -> Iterator[dict[str, Any]]:
        """Every complete record (a torn or unparsable last line is skipped)."""
        splits = [split] if split else list(SPLITS)
        for sp in splits:
            if self._records is not None:
                yield from self._records[sp]
                continue
            p = self.records_path(sp)
            if p.is_file():
                yield from _parse_records(p, p.read_bytes())

    def append(self, record: dict[str, Any], artifacts: dict[str, bytes]) -> None:
        """Write a case's artifacts, then its record line — flushed and fsync'd."""
        split = record["split"]
        base = self.case_artifacts(split, _safe(record["agent"]), _safe(record["task_id"]))
        for rel, content in artifacts.items():
            target = base.joinpath(*(_safe(p) for p in rel.split("/")))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        f = self._files.get(split)
        if f is None:
            p = self.records_path(split)
            p.parent.mkdir(parents=True, exist_ok=True)
            if split == "heldout":
                readme = p.parent / "README.txt"
                if not readme.exists():
                    readme.write_text(_PRIVATE_README, encoding="utf-8")
            if self._records is None:  # load_records repaired the file already
                self.repair(split)
            new = not p.exists()
            f = open(p, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run
            self._files[split] = f
            if new:
                _fsync_dir(p.parent)
        line = record_line(record)
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())
        if self._records is not None:
            # the record as a reader of the file would get it back (plain JSON values)
            self._records[split].append(json.loads(line))


def _parse_records(path: Path, data: bytes) -> Iterator[dict[str, Any]]:
    """The records in ``data`` (the bytes of ``path``): a torn or unparsable last line is
    skipped, any other unparsable line means the records are damaged."""
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            if i >= len(lines) - 2:
                continue  # the torn tail of an interrupted write
            raise RunnerError(f"{path}: line {i + 1} is not valid JSON; the records are damaged") from None
        yield rec
