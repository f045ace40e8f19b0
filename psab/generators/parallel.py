"""Held-out draws at scale: serially, on local worker processes, or on a Dask cluster.

The unit of work is a :class:`DrawJob` — one family and a contiguous range of indices —
and the result of each draw is a :class:`DrawOutcome`. Because a draw is a pure function of
(seed, family, index, level, judging backends) (:mod:`psab.generators.acceptance`), where and in what order
the jobs run cannot change any outcome; :func:`run_jobs` returns them in job order, so what
the caller writes is byte-identical for 1, 2 or 200 workers.

Design for spawn/forkserver: the worker entry point :func:`run_job` is a module-level
function of plain, picklable arguments, and workers find families through the registry
(:data:`psab.families.FAMILY_MODULES`), never through state inherited from the parent — so a
family registered only in the calling process (a test fixture) can be drawn serially but
not on workers. Local pools start with the ``forkserver`` method where the platform has it —
from psab's own fork server, whose workers never re-run the caller's ``__main__``, so a plain
script without an ``if __name__ == "__main__":`` guard can draw on workers
(:mod:`psab.processes`) — preloading psab, the registry and the public cases once in the fork
server, so each worker starts warm (while the pool boots, the calling process draws jobs itself); every worker then
stays alive for the whole call and keeps its reference cache and imported solvers across
jobs. Work is chunked by family (a worker draws consecutive indices of one
family) and split finely enough to keep every worker busy.

The seed travels to workers wrapped in :class:`~psab.generators.seeds.PrivateSeed`, which
prints as its commitment prefix, and :func:`run_job` never raises (errors come back as
outcomes), so neither a pool traceback nor a Dask worker log ever shows the seed.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from psab.errors import GenerationError, InvalidArgumentError, PsabError
from psab.generators.jobs import DrawJob, DrawOutcome, code_fingerprint
from psab.generators.seeds import PrivateSeed

#: Jobs per worker each family's indices are split into: enough that the last, slowest jobs
#: do not leave the other workers idle for long; few enough that per-job overhead (a pickled
#: job and its outcomes, about a millisecond) stays negligible.
JOBS_PER_WORKER = 8
#: Preloaded by the fork server so that forked workers start with psab and the registry.
WARM_MODULES = ("psab.generators.worker",)


__all__ = ["DrawJob", "DrawOutcome", "code_fingerprint", "draw", "first_error", "plan_jobs", "run_job", "run_jobs"]


def run_job(job: DrawJob) -> list[DrawOutcome]:
    """Draw every index of ``job`` in this process. Never raises: errors become outcomes."""
    from psab.generators.worker import draw_job

    return draw_job(job)


def plan_jobs(families: Sequence[str], indices: Sequence[int], *, seed: PrivateSeed, backend: str = "surrogate",
              validate: bool = False, workers: int = 1, chunk: int | None = None, level: int = 1,
              judges: Mapping[str, Sequence[str]] | None = None) -> list[DrawJob]:
    """Jobs for every (family, index), chunked by family, in (family, index) order.

    Each job names the backends its draws are checked under: ``judges[family]`` where given (a
    round being redrawn names the ones its manifest recorded), else every backend the family
    declares that is installed in this, the calling, process
    (:func:`~psab.generators.acceptance.judging_backends`) — so a worker with fewer backends
    refuses instead of drawing other cases.

    One job per family when serial; otherwise chunks of at most ``chunk`` indices, by default
    small enough to split *each family* into about eight jobs per worker, never mixing
    families. Per family, because draws cost from milliseconds (exact families) to a fraction
    of a second (commitment MILPs): sizing chunks on the total left a dispatch family in a
    mixed round with a handful of multi-second jobs, and the workers idle while the last ran.
    """
    from psab.version import __version__

    idx = list(indices)
    if workers <= 1:
        size = max(1, len(idx))
    elif chunk is not None:
        size = max(1, chunk)
    else:
        size = max(1, math.ceil(len(idx) / (JOBS_PER_WORKER * workers)))
    from psab.generators.acceptance import judging_backends
    from psab.registry import get_family

    jobs = []
    for fid in families:
        expect = (__version__, code_fingerprint(fid))
        found = tuple(judges[fid]) if judges is not None and fid in judges else judging_backends(get_family(fid))
        for k in range(0, len(idx), size):
            jobs.append(DrawJob(fid, tuple(idx[k:k + size]), seed, backend, validate, expect, level, found))
    return jobs


def default_start_method() -> str:
    """``forkserver`` where available (POSIX), else ``spawn``: never a bare ``fork`` of a
    parent that may hold threads (a Dask client, a BLAS pool)."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


#: ``on_batch(outcomes)``: called in the calling thread with each job's outcomes as it finishes
#: (completion order); for progress display only — the returned list is in job order regardless.
OnBatch = Callable[[list[DrawOutcome]], None]


def _noop(batch: list[DrawOutcome]) -> None:
    pass


def run_jobs(jobs: Sequence[DrawJob], *, workers: int = 1, dask: Any = None,
             start_method: str | None = None, on_batch: OnBatch | None = None) -> list[DrawOutcome]:
    """Run ``jobs`` and return every outcome in job order, whatever order they finished in.

    ``workers`` > 1 uses a local process pool; ``dask`` (a scheduler address such as
    ``tcp://host:8786`` or a ``distributed.Client``) sends the jobs to a Dask cluster.
    """
    _check_workers(workers)
    done = on_batch or _noop
    if dask is not None:
        results = _run_dask(jobs, dask, done)
    elif workers == 1 or len(jobs) <= 1:
        results = []
        for j in jobs:
            results.append(run_job(j))
            done(results[-1])
    else:
        results = _run_local(jobs, workers, start_method or default_start_method(), done)
    return [o for batch in results for o in batch]


def _check_workers(workers: int) -> None:
    if workers < 1:
        raise InvalidArgumentError(f"--workers must be at least 1, got {workers}")


def _run_local(jobs: Sequence[DrawJob], workers: int, method: str, done: OnBatch = _noop) -> list[list[DrawOutcome]]:
    """Run ``jobs`` on a local pool; the calling process draws too while the pool boots.

    Starting the pool — the fork server importing psab, reading the public cases and warming
    up the run's families (:func:`psab.generators.worker.warm`, told which through
    :data:`~psab.generators.worker.WARM_ENV` for the moment of its launch) — takes from a few
    tenths of a second to a few seconds, during which the first ``submit`` blocks. A helper thread does the
    submitting, in job order, while this process takes jobs from the other end; once the pool
    is up it finishes the job in hand and only collects. A job is claimed exactly once (under
    a lock), and results are placed by job position, so who ran what changes nothing.
    """
    from psab.generators import worker

    families = tuple(dict.fromkeys(j.family for j in jobs))
    backend = jobs[0].backend
    if method == "forkserver":
        # psab's own fork server, preloading the worker module, whose children never re-run the
        # caller's __main__: a plain script without a main guard is not run again in every worker
        # (where its own draw call would break the pool; psab.processes)
        from psab.processes import context_without_main

        ctx = context_without_main(WARM_MODULES)
        init, initargs = worker.warm, ((), backend)  # the fork server did the warm-up
    else:
        ctx = multiprocessing.get_context(method)
        init, initargs = worker.warm, (families, backend)
    n = len(jobs)
    results: list[list[DrawOutcome] | None] = [None] * n
    futures: dict[int, Any] = {}
    lock = threading.Lock()
    front, back = 0, n - 1  # next job for the pool / for this process
    pool_up = threading.Event()
    failure: list[BaseException] = []

    def submit_all(pool: ProcessPoolExecutor) -> None:
        nonlocal front
        try:
            while True:
                with lock:
                    if front > back:
                        return
                    i, front = front, front + 1
                futures[i] = pool.submit(run_job, jobs[i])  # the first call waits for the pool
                pool_up.set()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            failure.append(exc)
        finally:
            pool_up.set()

    try:
        # the environment is set before the pool's first process starts the fork server, which
        # reads it once (a later call's families are warmed by their first job instead)
        with _environ(worker.WARM_ENV, f"{backend}:{','.join(families)}"), \
                ProcessPoolExecutor(max_workers=min(workers, n), mp_context=ctx, initializer=init, initargs=initargs) as pool:
            submitter = threading.Thread(target=submit_all, args=(pool,), name="psab-submit", daemon=True)
            submitter.start()
            while not pool_up.is_set():
                with lock:
                    if back < front:
                        break
                    i, back = back, back - 1
                results[i] = run_job(jobs[i])
                done(results[i])
            submitter.join()
            if failure:
                raise failure[0]
            position = {future: i for i, future in futures.items()}
            for future in as_completed(position):
                results[position[future]] = future.result()
                done(results[position[future]])
    except BrokenProcessPool as exc:
        # A worker died outright (killed, out of memory, a crash inside a native solver):
        # run_job itself never raises, so this is the process, not a draw.
        raise GenerationError(f"a worker process died ({exc}); rerun with --workers 1 to find the draw that kills it") from None
    return [r if r is not None else [] for r in results]


@contextmanager
def _environ(name: str, value: str) -> Iterator[None]:
    """``os.environ[name] = value`` for the duration (the fork server inherits it at launch)."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


@contextmanager
def dask_client(dask: Any) -> Iterator[Any]:
    """A ``distributed.Client`` for ``dask`` (an address, which is connected and closed here,
    or a client, which is used as is)."""
    if not isinstance(dask, str):
        yield dask
        return
    try:
        from distributed import Client
    except ImportError:
        raise PsabError("--dask needs dask.distributed: pip install 'psab[dask]'") from None
    try:
        client = Client(dask, timeout="20s")
    except OSError as exc:
        raise PsabError(f"cannot reach the Dask scheduler at {dask}: {exc}") from None
    try:
        yield client
    finally:
        client.close()


def _run_dask(jobs: Sequence[DrawJob], dask: Any, done: OnBatch = _noop) -> list[list[DrawOutcome]]:
    from distributed import as_completed

    with dask_client(dask) as client:
        # Explicit keys (never derived from the arguments, which hold the seed) and
        # pure=False: every job runs, none is deduplicated against another round's.
        stamp = f"{time.time_ns():x}"
        futures = [
            client.submit(run_job, job, key=f"psab-draw-{job.family}-{job.indices[0]}-{len(job.indices)}-{n}-{stamp}", pure=False)
            for n, job in enumerate(jobs)
        ]
        position = {f.key: n for n, f in enumerate(futures)}
        results: list[list[DrawOutcome] | None] = [None] * len(jobs)
        for future in as_completed(futures):
            results[position[future.key]] = future.result()
            future.release()
            done(results[position[future.key]])  # type: ignore[arg-type]
        return [r if r is not None else [] for r in results]


def draw(families: Sequence[str], indices: Iterable[int], seed: int | str | PrivateSeed, *,
         backend: str = "surrogate", validate: bool = False, workers: int = 1, dask: Any = None,
         chunk: int | None = None, on_batch: OnBatch | None = None, level: int = 1,
         judges: Mapping[str, Sequence[str]] | None = None) -> list[DrawOutcome]:
    """Draw (and with ``validate`` re-check) every (family, index) at difficulty ``level``, in
    (family, index) order, each checked under ``judges[family]`` (default: every declared,
    installed backend; :func:`plan_jobs`).

    On Dask the jobs are sized for the cluster's worker threads, locally for ``workers``.
    ``on_batch`` sees each job's outcomes as it finishes (progress display).
    """
    _check_workers(workers)  # also on Dask, where run_jobs is not given the local pool size
    private = PrivateSeed(seed)
    fams, idx = list(families), list(indices)
    if workers > 1 or dask is not None:
        _loadable_by_workers(fams)
    if dask is None:
        jobs = plan_jobs(fams, idx, seed=private, backend=backend, validate=validate, workers=workers, chunk=chunk,
                         level=level, judges=judges)
        return run_jobs(jobs, workers=workers, on_batch=on_batch)
    with dask_client(dask) as client:
        threads = max(2, sum(client.nthreads().values()))
        jobs = plan_jobs(fams, idx, seed=private, backend=backend, validate=validate, workers=threads, chunk=chunk,
                         level=level, judges=judges)
        return run_jobs(jobs, dask=client, on_batch=on_batch)


def _loadable_by_workers(families: Sequence[str]) -> None:
    from psab.registry import families as registered
    from psab.registry import get_family

    loadable = {s.id for s in registered()}  # the families of psab.families.FAMILY_MODULES
    for fid in families:
        get_family(fid)
        if fid not in loadable:
            raise InvalidArgumentError(
                f"family {fid} is registered only in this process (it is not in psab.families.FAMILY_MODULES), "
                "so worker processes cannot load it; draw it with workers=1"
            )


def first_error(outcomes: Iterable[DrawOutcome]) -> str | None:
    """The first error in (family, index) order, or ``None``."""
    for o in outcomes:
        if o.error is not None:
            return o.error
    return None
