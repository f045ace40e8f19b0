"""The reference cache: each (task digest, backend) is solved once per process."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class LRUCache:
    """A small thread-safe least-recently-used cache."""

    def __init__(self, maxsize: int = 512) -> None:
        self.maxsize = maxsize
        self._data: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compute(self, key: Any, compute: Callable[[], T]) -> T:
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]  # type: ignore[no-any-return]
        value = compute()  # outside the lock: a solve may take a while
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


#: (task digest, backend) → :class:`psab.evaluators.kernel.ReferenceEntry`
REFERENCES = LRUCache(maxsize=512)


def clear_reference_cache() -> None:
    """Forget every cached reference (benchmarks use it to time uncached evaluation)."""
    REFERENCES.clear()


# ------------------------------------------------------------------ on disk (the study tier)

#: ``PSAB_REFERENCE_CACHE``: a directory for study references kept across processes, or ``0`` to
#: keep none. Default ``~/.cache/psab/references``.
DISK_CACHE_ENV = "PSAB_REFERENCE_CACHE"

_CODE_DIGEST: str | None = None


def code_digest() -> str:
    """SHA-256 of every Python source file of the installed psab, in path order: a reference
    kept on disk is reused only by exactly the code that computed it (an edit anywhere in
    psab — a kernel, a backend, a study — makes every kept reference unreachable)."""
    global _CODE_DIGEST
    if _CODE_DIGEST is None:
        import hashlib
        from pathlib import Path

        root = Path(__file__).resolve().parents[1]
        h = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode())
            h.update(b"\0")
            h.update(path.read_bytes())
            h.update(b"\0")
        _CODE_DIGEST = h.hexdigest()
    return _CODE_DIGEST


def disk_cache_dir() -> Any:
    """Where study references are kept on disk, or ``None`` when ``$PSAB_REFERENCE_CACHE`` is ``0``."""
    import os
    from pathlib import Path

    setting = os.environ.get(DISK_CACHE_ENV, "").strip()
    if setting == "0":
        return None
    return Path(setting) if setting else Path.home() / ".cache" / "psab" / "references"


def on_disk(key: tuple[str, ...], compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``compute()`` (a JSON-able dict), kept on disk under ``key`` and this code's digest.

    For what costs a minute to recompute (a study's proven reference) and is asked for by many
    processes (``psab run``'s workers, ``psab check``, the benchmarks, the tests). A torn or
    unreadable entry is recomputed; a directory that cannot be written only loses the saving.
    """
    import hashlib
    import json
    import os

    root = disk_cache_dir()
    if root is None:
        return compute()
    name = hashlib.sha256("\0".join((code_digest(), *key)).encode()).hexdigest()
    path = root / f"{name}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    except (OSError, ValueError):
        pass
    value = compute()
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{name}.tmp{os.getpid()}-{threading.get_ident()}")
        tmp.write_text(json.dumps(value, sort_keys=True, allow_nan=False), encoding="utf-8")
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass
    return value
