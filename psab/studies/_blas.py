"""One BLAS thread for the study's power flows.

The study's products are small (a hundred buses by a few hundred to 35,136 columns): on a loaded
machine OpenBLAS's worker threads spin and wait on each other, which made one screened power flow
40× slower than on one thread (measured on the two shared cores of the development machine). The
context sets numpy's OpenBLAS to one thread and restores it; a no-op where numpy is not linked to
OpenBLAS or /proc is absent.
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import threading
from collections.abc import Iterator
from functools import cache

_BLAS_LOCK = threading.RLock()


@cache
def _openblas() -> tuple[object, object] | None:
    """numpy's OpenBLAS get/set-threads entry points, when numpy is linked to OpenBLAS (Linux)."""
    try:
        with open("/proc/self/maps") as fh:
            paths = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", fh.read())))
        for path in paths:
            lib = ctypes.CDLL(path)
            for get, set_ in (("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
                              ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
                              ("openblas_get_num_threads", "openblas_set_num_threads")):
                if hasattr(lib, get) and hasattr(lib, set_):
                    return getattr(lib, get), getattr(lib, set_)
    except OSError:
        return None
    return None


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the block with one BLAS thread (re-entrant; restores the previous count)."""
    fns = _openblas()
    if fns is None:
        yield
        return
    get, set_ = fns
    with _BLAS_LOCK:
        before = int(get())  # type: ignore[operator]
        set_(1)  # type: ignore[operator]
        try:
            yield
        finally:
            set_(before)  # type: ignore[operator]
