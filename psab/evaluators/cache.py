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
