"""A study's model files and deliverables: what every study module shares.

``public_inputs["model"]`` names the model an agent receives in the field's own files::

    {"format": "matpower", "source": "pglib-opf v23, pglib_opf_case118_ieee.m (commit dc6be4b)",
     "files": [{"path": "model/pglib_opf_case118_ieee.m", "sha256": "…"}, …]}

The files are immutable data identified by their digest (vendored MATPOWER cases in
``psab/studies/data/``; SimBench CSV folders written from the ``simbench`` package), so a task
stays a small JSON document and a held-out draw changes only the scenario stated over them.
:func:`write_files` is the one writer: a study's ``materialize`` hands it the bytes of each
file and it checks every digest, so an agent never receives a model other than the one its
task was judged on.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from psab.errors import InvalidTaskError

#: Where vendored model files live (package data: a wheel carries them).
DATA_DIR = Path(__file__).resolve().parent / "data"

#: Model formats a study may hand over (``shared/spec/studies.md``, "The contract").
MODEL_FORMATS = ("matpower", "simbench-csv", "psse")

#: Most files one study's model may list (a SimBench CSV folder is about 20).
MAX_MODEL_FILES = 200

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def vendored(name: str) -> Path:
    """A vendored model file, ``psab/studies/data/<name>``."""
    return DATA_DIR / name


def model_files(task_id: str, inputs: Mapping[str, Any]) -> list[dict[str, str]]:
    """The ``public_inputs["model"]["files"]`` entries of a study task, checked: each a
    relative POSIX path inside the agent's directory (no ``..``, no absolute path) and a
    sha256; :class:`InvalidTaskError` names the field otherwise."""
    model = inputs.get("model") if isinstance(inputs, Mapping) else None
    if not isinstance(model, Mapping):
        raise InvalidTaskError(f"task {task_id}: public_inputs/model must be an object naming the model files")
    if model.get("format") not in MODEL_FORMATS:
        raise InvalidTaskError(f"task {task_id}: public_inputs/model/format must be one of {', '.join(MODEL_FORMATS)}")
    files = model.get("files")
    if not isinstance(files, list) or not files or len(files) > MAX_MODEL_FILES:
        raise InvalidTaskError(f"task {task_id}: public_inputs/model/files must list 1 to {MAX_MODEL_FILES} files")
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    for i, f in enumerate(files):
        where = f"public_inputs/model/files/{i}"
        if not isinstance(f, Mapping) or not isinstance(f.get("path"), str) or not isinstance(f.get("sha256"), str):
            raise InvalidTaskError(f"task {task_id}: {where} must be {{\"path\": ..., \"sha256\": ...}}")
        path = PurePosixPath(f["path"])
        if path.is_absolute() or ".." in path.parts or not path.parts or str(path) != f["path"]:
            raise InvalidTaskError(f"task {task_id}: {where}/path must be a plain relative path, not {f['path']!r}")
        if not _SHA256.match(f["sha256"]):
            raise InvalidTaskError(f"task {task_id}: {where}/sha256 must be 64 lowercase hex digits")
        if f["path"] in seen:
            raise InvalidTaskError(f"task {task_id}: {where}/path {f['path']!r} is listed twice")
        seen.add(f["path"])
        out.append({"path": f["path"], "sha256": f["sha256"]})
    return out


def write_files(task: Any, directory: str | Path, contents: Mapping[str, bytes | Callable[[], bytes]]) -> list[Path]:
    """Write every model file ``task`` lists under ``directory`` at its relative path.

    ``contents`` maps each listed path to its bytes (or a callable that produces them, so a
    study can derive a file only when it is written). A listed file the study cannot provide,
    or whose bytes do not match the listed sha256, is the task's fault: :class:`InvalidTaskError`
    names it. Returns the written paths, in the task's order.
    """
    root = Path(directory)
    written: list[Path] = []
    for i, f in enumerate(model_files(task.id, task.public_inputs)):
        provider = contents.get(f["path"])
        if provider is None:
            raise InvalidTaskError(f"task {task.id}: public_inputs/model/files/{i}: {task.family} has no model file "
                                   f"{f['path']!r}")
        data = provider() if callable(provider) else provider
        if sha256(data) != f["sha256"]:
            raise InvalidTaskError(f"task {task.id}: public_inputs/model/files/{i}: {f['path']!r} here has sha256 "
                                   f"{sha256(data)[:12]}…, the task lists {f['sha256'][:12]}… (a different model)")
        target = root.joinpath(*PurePosixPath(f["path"]).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, target)
        written.append(target)
    return written


def deliverables_inputs(spec: Any) -> list[dict[str, Any]]:
    """``public_inputs["deliverables"]``: each deliverable's name, kind and weight, as the
    statement states them (the kernel scores with the spec's weights; :func:`deliverable_problems`
    keeps the two equal)."""
    return [d.to_dict() for d in spec.deliverables]


def deliverable_problems(spec: Any, inputs: Mapping[str, Any]) -> list[str]:
    """``validate_inputs`` problems when the task's stated deliverables are not the study's."""
    if inputs.get("deliverables") != deliverables_inputs(spec):
        return ["/deliverables: must state the study's deliverables and weights exactly "
                f"({', '.join(f'{d.name} ×{d.weight:g}' for d in spec.deliverables)})"]
    return []


def deliverables_table(spec: Any, lang: str) -> str:
    """The statement's table of deliverables (Markdown), in ``lang``."""
    head = ("| deliverable | kind | weight | what |", "| результат | вид | вес | что |")[lang == "ru"]
    kinds = {"analysis": ("analysis", "анализ"), "decision": ("decision", "решение")}
    rows = [head, "|---|---|---|---|"]
    for d in spec.deliverables:
        kind = kinds[d.kind][lang == "ru"]
        rows.append(f"| `{d.name}` | {kind} | {d.weight:g} | {d.ru if lang == 'ru' else d.en} |")
    return "\n".join(rows)


def contract_problems(spec: Any, inputs: Mapping[str, Any]) -> list[str]:
    """The study contract's own checks on ``public_inputs`` for a study's ``validate_inputs``:
    the deliverables as the spec states them and a usable model file list (``/model``)."""
    problems = deliverable_problems(spec, inputs)
    try:
        model_files("task", inputs)
    except InvalidTaskError as exc:
        problems.append(f"/model: {exc}")
    return problems


class Memo:
    """A small thread-safe memo of what a study derives from a task (its parsed model, an engine
    per backend, a base power flow), keyed by task digest and whatever else selects it. Computed
    outside the lock (a duplicate computation under a race is harmless: it is deterministic),
    and cleared whole past ``size`` entries — a run holds a handful of tasks at a time."""

    def __init__(self, size: int) -> None:
        import threading

        self._size = size
        self._items: dict[Any, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        with self._lock:
            hit = self._items.get(key)
        if hit is None:
            hit = make()
            with self._lock:
                if len(self._items) > self._size:
                    self._items.clear()
                self._items[key] = hit
        return hit
