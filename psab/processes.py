"""Worker processes that never run the caller's script (issue 34, item 1; issue 33).

multiprocessing's spawn and forkserver children re-run the parent's ``__main__`` (as
``__mp_main__``: ``spawn.prepare`` -> ``_fixup_main_from_path``/``_fixup_main_from_name``, fed by
the ``init_main_from_path``/``init_main_from_name`` keys of ``spawn.get_preparation_data``) so
that functions defined there can be unpickled. In a plain script without an
``if __name__ == "__main__":`` guard that re-runs the whole script in every worker, whose own
pool start then fails (``_check_not_importing_main``) and the caller's pool breaks. psab's
workers never need the caller's ``__main__`` — they run functions of psab's modules on psab's
objects — so they are started from a psab-owned fork server (one per set of preloaded modules)
with preparation data that leaves those two keys out. An object of the caller's ``__main__``
sent to such a worker fails to unpickle there; callers that may send one handle that (see
:func:`psab.evaluators.batch.run_chunk_pickled`). ``fork`` would also skip the re-import but
forks a process whose other threads (a boot thread, the caller's) may hold locks; a fork server
is a single-threaded process, so forking it is safe.

Used by :func:`psab.evaluate_many` (:mod:`psab.evaluators.batch`) and by the held-out drawing
pool (:mod:`psab.generators.parallel`).
"""

from __future__ import annotations

import io
import multiprocessing
import multiprocessing.context
import os
import sys
import threading
from collections.abc import Sequence
from typing import Any

#: The preparation-data keys that make a child re-run the parent's ``__main__``.
MAIN_KEYS = ("init_main_from_path", "init_main_from_name")

_SERVERS: dict[tuple[str, ...], Any] = {}
_LOCK = threading.Lock()


def has_forkserver() -> bool:
    return "forkserver" in multiprocessing.get_all_start_methods()


def context_without_main(preload: Sequence[str]) -> multiprocessing.context.BaseContext:
    """A forkserver context whose children do not import the caller's ``__main__`` (above),
    forked from psab's own fork server preloading ``preload`` (started at the first process and
    kept for this process's life; the caller's own forkserver, if any, keeps its preload).

    The fork server inherits the environment when it starts, as multiprocessing's does: a
    caller that passes it settings through the environment sets them before the first process.
    """
    if not has_forkserver():
        raise RuntimeError("forkserver is not available on this platform")
    key = tuple(preload)
    with _LOCK:  # pools may boot at once, from different threads
        if key not in _SERVERS:
            from multiprocessing import forkserver

            server = forkserver.ForkServer()
            server.set_forkserver_preload(list(key))
            _SERVERS[key] = server
    return _Context(key)


if sys.platform != "win32":  # forkserver exists on POSIX only; Windows workers are spawned (and import __main__)
    from multiprocessing import popen_forkserver

    class _Popen(popen_forkserver.Popen):
        """``popen_forkserver.Popen`` (CPython 3.8-3.13, unchanged) that leaves :data:`MAIN_KEYS`
        out of the preparation data and asks the process's psab fork server."""

        def _launch(self, process_obj: Any) -> None:
            from multiprocessing import context, forkserver, reduction, spawn, util

            prep_data = spawn.get_preparation_data(process_obj._name)
            for key in MAIN_KEYS:
                prep_data.pop(key, None)
            buf = io.BytesIO()
            context.set_spawning_popen(self)
            try:
                reduction.dump(prep_data, buf)
                reduction.dump(process_obj, buf)
            finally:
                context.set_spawning_popen(None)
            server = _SERVERS[process_obj._psab_preload]
            self.sentinel, w = server.connect_to_new_process(self._fds)
            parent_w = os.dup(w)  # kept open as the child's sentinel of its parent, as the original does
            self.finalizer = util.Finalize(self, util.close_fds, (parent_w, self.sentinel))  # type: ignore[attr-defined]
            with open(w, "wb", closefd=True) as f:
                f.write(buf.getbuffer())
            self.pid = forkserver.read_signed(self.sentinel)

    class _Process(multiprocessing.context.ForkServerProcess):
        #: Which psab fork server starts this process (set by :class:`_Context`; pickled with
        #: the process object, harmless in the child).
        _psab_preload: tuple[str, ...] = ()

        @staticmethod
        def _Popen(process_obj: Any) -> Any:
            return _Popen(process_obj)

    class _Context(multiprocessing.context.ForkServerContext):
        def __init__(self, preload: tuple[str, ...]) -> None:
            self._psab_preload = preload

        def Process(self, *args: Any, **kwargs: Any) -> _Process:  # type: ignore[override]
            process = _Process(*args, **kwargs)
            process._psab_preload = self._psab_preload
            return process
