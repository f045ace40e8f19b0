"""Batch evaluation: many (task, solution) pairs in one call, for harnesses that use psab as a
reward function (issue 24, item 1).

:func:`evaluate_many` returns exactly what ``[evaluate(t, s, backend) for t, s in pairs]``
returns — the same :class:`~psab.contract.EvaluationResult` objects, byte-identical as JSON, in
input order — but can spread the work over warm local worker processes or a Dask cluster.

How the work is placed:

* answers are grouped by task digest, because the expensive part of a first evaluation is the
  task's reference (:data:`psab.evaluators.cache.REFERENCES`, keyed by digest and backend);
* each group gets a *home* worker — the one that already holds the task's reference from an
  earlier call if there is one, else the least loaded — so a reference is computed once per
  worker that needs it, not once per answer;
* groups are cut into chunks of at most :data:`CHUNK_ANSWERS` answers (several small groups
  share a chunk, for batches of many fresh tasks); a worker first takes chunks from its own
  queue and, when that is empty, steals from the tail of the longest other queue (answers
  cost 0.1-100 ms depending on the family, so counting answers alone leaves workers idle);
* local workers are single-process pools started once (from psab's own fork server where
  ``forkserver`` is available, preloading this module: psab, the registry and, for the
  pandapower backend, pandapower) and kept alive across calls, so a harness calling
  ``evaluate_many`` every step pays the start-up once; :func:`shutdown_workers` stops them (also
  at interpreter exit). They do not import the caller's ``__main__``, so a plain script without
  an ``if __name__ == "__main__":`` guard is not re-run in them (see :func:`_worker_context`).

Errors: nothing an agent wrote raises (as for :func:`~psab.evaluators.kernel.evaluate`).
Caller errors — an unknown family, an invalid task, a missing solution file, an unsupported
backend — raise the same :mod:`psab.errors` exception ``evaluate`` would, for the first
offending pair in input order; these are found in the calling process before any work starts.
"""

from __future__ import annotations

import atexit
import dataclasses
import multiprocessing
import multiprocessing.context
import os
import pickle
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from psab.contract import EvaluationResult, Solution, Task, Violation
from psab.errors import InvalidArgumentError, PsabError

#: Most answers in one unit of work sent to a worker: large enough that the per-chunk cost (a
#: pickled task or few, one round trip, about a millisecond) stays a few per cent of a chunk of
#: 0.1 ms answers, small enough that stealing can even out workers near the end of a batch.
CHUNK_ANSWERS = 128
#: Chunks in flight per worker: one being evaluated, one waiting, so a worker never idles
#: while the calling process collects a result and picks the next chunk.
IN_FLIGHT = 2
#: Batches of at most this many answers are evaluated in the calling process (a round trip to a
#: worker, about a millisecond, would cost more than it saves); the smallest chunk sent out.
SMALL_BATCH = 16
#: Environment variable naming the backend the fork server warms up (set for its launch).
WARM_ENV = "PSAB_BATCH_WARM_BACKEND"
#: How many task digests a pool remembers the home worker of (an LRU, like the reference cache).
HOME_MEMORY = 4096

__all__ = ["CHUNK_ANSWERS", "SolutionText", "evaluate_many", "shutdown_workers"]


@dataclass(frozen=True)
class SolutionText:
    """A solution document's raw bytes, read by the caller and parsed where it is evaluated —
    exactly as :func:`~psab.evaluators.kernel.evaluate` parses a solution file (so the text of a
    JSONL line or of a file on the caller's disk can be judged on a Dask worker)."""

    raw: bytes


class _Raised:
    """An exception an evaluation raised (a caller error), carried back to be re-raised."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


# ------------------------------------------------------------------ the evaluation of one pair


def evaluate_one(task: Task, solution: Any, backend: str) -> EvaluationResult:
    """:func:`~psab.evaluators.kernel.evaluate` of one pair, also accepting
    :class:`SolutionText` (parsed as a solution file is)."""
    from psab.evaluators.kernel import evaluate

    if isinstance(solution, SolutionText):
        solution = _parse_text(task, solution.raw, backend)
        if isinstance(solution, EvaluationResult):
            return solution
    return evaluate(task, solution, backend)


def _parse_text(task: Task, raw: bytes, backend: str) -> Solution | EvaluationResult:
    """The solution in ``raw``, or — for text that is no solution document — the verdict
    ``evaluate`` gives a solution file holding it (the same violation, word for word)."""
    from psab.evaluators.kernel import _result, _spec_for
    from psab.io import SolutionProblem, parse_solution_document

    try:
        data, notes = parse_solution_document(raw)
        if not isinstance(data, Mapping):
            raise SolutionProblem("solution must be a JSON object with an 'answer' object", type(data).__name__)
        return dataclasses.replace(Solution.from_dict(data), notes=notes)
    except SolutionProblem as problem:
        spec = _spec_for(task, backend)
        evidence: dict[str, Any] = {}
        if task.family_version != spec.version:
            evidence["task_family_version"] = task.family_version
        violation = Violation("", problem.constraint, "JSON object with an 'answer' object", problem.found)
        return _result(task, spec, backend, False, 0.0, [violation], evidence)


#: One unit of work: ``(task, [(position, solution), ...])`` groups.
Chunk = list[tuple[Task, list[tuple[int, Any]]]]


def run_chunk(backend: str, chunk: Chunk) -> list[tuple[int, Any]]:
    """Evaluate every answer of ``chunk``: ``(position, result or _Raised)``. Never raises."""
    out: list[tuple[int, Any]] = []
    for task, items in chunk:
        for pos, solution in items:
            try:
                out.append((pos, evaluate_one(task, solution, backend)))
            except Exception as exc:  # noqa: BLE001 - a caller error, re-raised by the caller in input order
                out.append((pos, _Raised(exc)))
    return out


def run_chunk_remote(backend: str, chunk: Chunk) -> tuple[list[tuple[int, Any]], float]:
    """:func:`run_chunk` in a worker, and the CPU seconds it took (the pool's accounting, which
    on a shared machine measures the work where wall-clock time measures the neighbours): an
    exception that cannot be pickled comes back as a :class:`~psab.errors.PsabError` naming it,
    so the pool never breaks on it."""
    cpu = time.process_time()
    out = run_chunk(backend, chunk)
    for k, (pos, value) in enumerate(out):
        if isinstance(value, _Raised):
            try:
                pickle.dumps(value.exc)
            except Exception:  # noqa: BLE001
                out[k] = (pos, _Raised(PsabError(f"{type(value.exc).__name__}: {value.exc}")))
    return out, time.process_time() - cpu


def _ping() -> int:
    return os.getpid()


#: Imported by :func:`warm` where installed: what the optimize families' solvers and evaluators
#: import on their first call (about a second together). Imported once in the fork server,
#: every worker shares them; otherwise each worker would pay them on its first dispatch answer.
WARM_IMPORTS = ("pyomo.environ", "highspy", "pyomo.repn.plugins.standard_form", "pyomo.core.base.matrix_constraint",
                "scipy.optimize")


def warm(backend: str | None = None) -> None:
    """Make this process ready to evaluate under ``backend`` (default: :data:`WARM_ENV`):
    the registry and every family module, the kernel, the solvers' packages
    (:data:`WARM_IMPORTS`) and the backend's package. Never fails (the first evaluation
    reports any real problem)."""
    import importlib

    try:
        from psab.evaluators import kernel  # noqa: F401
        from psab.registry import families

        families()
        for name in WARM_IMPORTS:
            try:
                importlib.import_module(name)
            except ImportError:
                continue
        backend = backend or os.environ.get(WARM_ENV) or "surrogate"
        if backend == "pandapower":
            from psab import backends

            if backends.available("pandapower"):
                import pandapower  # noqa: F401
    except Exception:  # noqa: BLE001
        return


# ------------------------------------------------------------------ the public entry point


def evaluate_many(pairs: Iterable[tuple[Any, Any]], backend: str = "surrogate", *, workers: int = 1,
                  dask: Any = None, chunk: int = CHUNK_ANSWERS) -> list[EvaluationResult]:
    """Evaluate every ``(task, solution)`` of ``pairs`` under ``backend``; results in input order.

    The same results as calling :func:`psab.evaluate` on each pair; ``workers`` > 1 evaluates on
    that many warm local worker processes (kept for later calls until :func:`shutdown_workers`),
    ``dask`` (a scheduler address or a ``distributed.Client``) on a Dask cluster. Tasks and
    solutions may be anything ``evaluate`` accepts, and solutions also :class:`SolutionText`.
    """
    if workers < 1:
        raise InvalidArgumentError(f"--workers must be at least 1, got {workers}")
    if chunk < 1:
        raise InvalidArgumentError(f"chunk must be at least 1, got {chunk}")
    items = list(pairs)
    if workers == 1 and dask is None:
        return _serial(items, backend)
    results: list[Any] = [None] * len(items)
    groups = _group(items, backend, results)
    first = _first_raised(results)
    if first is not None:
        raise first
    total = sum(len(g.items) for g in groups)
    if dask is not None:
        _run_dask(groups, backend, dask, chunk, results)
    elif total <= SMALL_BATCH:
        for g in groups:  # a few answers: a pool round trip would cost more than it saves
            for pos, value in run_chunk(backend, [(g.task, g.items)]):
                results[pos] = value
    else:
        # a batch of a few chunks still reaches every worker (two chunks each at least)
        size = min(chunk, max(SMALL_BATCH, -(-total // (IN_FLIGHT * workers))))
        _pool(workers, backend).run(groups, size, results)
    first = _first_raised(results)
    if first is not None:
        raise first
    return results


def _serial(items: Sequence[Any], backend: str) -> list[EvaluationResult]:
    from psab.io import as_task

    out = []
    for pair in items:
        task, solution = _unpack(pair)
        t = as_task(task)
        if isinstance(solution, (str, Path)):
            solution = _read(solution)
        out.append(evaluate_one(t, solution, backend))
    return out


def _unpack(pair: Any) -> tuple[Any, Any]:
    try:
        task, solution = pair
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"evaluate_many takes (task, solution) pairs, not {type(pair).__name__}") from None
    return task, solution


def _read(path: str | Path) -> SolutionText:
    """A solution file's bytes; a missing file is the caller's error, as in ``evaluate``."""
    p = Path(path)
    if not p.is_file():
        raise InvalidArgumentError(f"{p}: no such solution file")
    return SolutionText(p.read_bytes())


@dataclass
class _Group:
    """The answers (``(position, solution)``) to one task."""

    task: Task
    items: list[tuple[int, Any]] = field(default_factory=list)


#: Solution types sent to workers as they are; others are evaluated in the calling process.
_SHIPPABLE = (dict, Solution, SolutionText)


def _group(items: Sequence[Any], backend: str, results: list[Any]) -> list[_Group]:
    """Coerce every pair in the calling process and group the answers by task digest; a caller
    error becomes ``_Raised`` at its position (found here, before any work is sent out)."""
    from psab.evaluators.kernel import _spec_for
    from psab.io import as_task

    groups: dict[str, _Group] = {}
    coerced: dict[int, Task] = {}  # a dict task passed many times is validated once (by identity)
    checked: dict[str, BaseException | None] = {}
    for pos, pair in enumerate(items):
        try:
            task, solution = _unpack(pair)
            t = task if isinstance(task, Task) else coerced.get(id(task))
            if t is None:
                t = coerced[id(task)] = as_task(task)
            if t.digest not in checked:
                try:
                    _spec_for(t, backend)
                    checked[t.digest] = None
                except Exception as exc:  # noqa: BLE001
                    checked[t.digest] = exc
            if checked[t.digest] is not None:
                raise checked[t.digest]  # type: ignore[misc]
            if isinstance(solution, (str, Path)):
                solution = _read(solution)
            elif type(solution) not in _SHIPPABLE:
                # Anything but plain documents (a Mapping subclass, an object) is judged here:
                # a copy made by pickling need not read as the original does.
                results[pos] = evaluate_one(t, solution, backend)
                continue
        except Exception as exc:  # noqa: BLE001 - re-raised in input order
            results[pos] = _Raised(exc)
            continue
        groups.setdefault(t.digest, _Group(t)).items.append((pos, solution))
    return list(groups.values())


def _first_raised(results: Sequence[Any]) -> BaseException | None:
    for value in results:
        if isinstance(value, _Raised):
            return value.exc
    return None


# ------------------------------------------------------------------ placing the work


def _assign(groups: Sequence[_Group], workers: int, chunk: int, home: OrderedDict[str, int] | None = None) -> list[deque[Chunk]]:
    """Per-worker queues of chunks. Each group goes, in pieces of at most ``chunk`` answers, to
    the worker that holds its reference (``home``) while that worker is not the most loaded by
    more than a piece, else to the least loaded; small groups of one worker share chunks."""
    home = home if home is not None else OrderedDict()
    load = [0] * workers
    pieces: list[list[tuple[Task, list[tuple[int, Any]]]]] = [[] for _ in range(workers)]
    for g in sorted(groups, key=lambda g: -len(g.items)):
        for k in range(0, len(g.items), chunk):
            piece = g.items[k:k + chunk]
            w = home.get(g.task.digest)
            least = min(range(workers), key=load.__getitem__)
            if w is None or w >= workers or load[w] > load[least] + len(piece):
                w = least
            home[g.task.digest] = w
            home.move_to_end(g.task.digest)
            load[w] += len(piece)
            pieces[w].append((g.task, piece))
    while len(home) > HOME_MEMORY:
        home.popitem(last=False)
    queues: list[deque[Chunk]] = []
    for own in pieces:
        q: deque[Chunk] = deque()
        current: Chunk = []
        size = 0
        for task, piece in own:
            if size and size + len(piece) > chunk:
                q.append(current)
                current, size = [], 0
            current.append((task, piece))
            size += len(piece)
        if current:
            q.append(current)
        queues.append(q)
    return queues


def _take(queues: list[deque[Chunk]], w: int) -> Chunk | None:
    """The next chunk for worker ``w``: its own queue's head, else the tail of the longest."""
    if queues[w]:
        return queues[w].popleft()
    victim = max(range(len(queues)), key=lambda k: len(queues[k]))
    return queues[victim].pop() if queues[victim] else None


def _start_method() -> str:
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


# ------------------------------------------------------------------ worker processes that do not run the caller's script
#
# Workers start from psab's own fork server preloading this module, without the caller's
# ``__main__`` (:func:`psab.processes.context_without_main`; issue 34, item 1). A chunk that
# does hold an object of the caller's ``__main__`` fails to unpickle in the worker and is judged
# in the calling process (:func:`run_chunk_pickled`).


def _worker_context() -> multiprocessing.context.BaseContext:
    """A forkserver context whose children do not import the caller's ``__main__``."""
    from psab.processes import context_without_main

    return context_without_main([__name__])


def run_chunk_pickled(backend: str, blob: bytes) -> tuple[list[tuple[int, Any]], float] | None:
    """:func:`run_chunk_remote` of a chunk pickled by the caller, or None when it cannot be
    unpickled here (it holds an object of a module the worker has not imported, such as the
    caller's ``__main__``): the caller then judges the chunk itself."""
    try:
        chunk = pickle.loads(blob)
    except Exception:  # noqa: BLE001 - judged by the caller instead
        return None
    return run_chunk_remote(backend, chunk)


class _Pool:
    """``workers`` single-process pools — one per worker, so work can be sent to a chosen one —
    kept alive across calls with the memory of which worker holds which task's reference."""

    def __init__(self, workers: int, backend: str) -> None:
        self.workers = workers
        self.backend = backend
        self.home: OrderedDict[str, int] = OrderedDict()
        self.executors: list[ProcessPoolExecutor] = []
        self.lock = threading.Lock()
        #: CPU seconds spent evaluating, per worker and (while the workers start) in the caller.
        self.cpu_seconds = [0.0] * workers
        self.caller_cpu_seconds = 0.0

    def _start(self) -> list[Future[int]]:
        ctx = _worker_context() if _start_method() == "forkserver" else multiprocessing.get_context("spawn")
        old = os.environ.get(WARM_ENV)
        os.environ[WARM_ENV] = self.backend  # read by the fork server when it starts
        try:
            pings = []
            for _ in range(self.workers):
                ex = ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=warm, initargs=(self.backend,))
                self.executors.append(ex)
                pings.append(ex.submit(_ping))  # starts the process (the first waits for the fork server)
            return pings
        finally:
            if old is None:
                os.environ.pop(WARM_ENV, None)
            else:
                os.environ[WARM_ENV] = old

    def run(self, groups: Sequence[_Group], chunk: int, results: list[Any]) -> None:
        with self.lock:
            queues = _assign(groups, self.workers, chunk, self.home)
            booting = not self.executors
            if booting:
                self._boot_while_working(queues, results)
            try:
                self._dispatch(queues, results)
            except BrokenProcessPool as exc:
                self.shutdown()
                raise PsabError(f"an evaluation worker process died ({exc}); rerun with workers=1 to find the answer "
                                "that kills it") from None

    def _boot_while_working(self, queues: list[deque[Chunk]], results: list[Any]) -> None:
        """Start the workers on a helper thread; meanwhile this process evaluates chunks itself
        (from the tails of the queues), so the start-up time is not lost."""
        pings: list[Future[int]] = []
        failure: list[BaseException] = []

        def boot() -> None:
            try:
                pings.extend(self._start())
            except BaseException as exc:  # noqa: BLE001 - re-raised below
                failure.append(exc)

        booter = threading.Thread(target=boot, name="psab-batch-boot", daemon=True)
        booter.start()
        while booter.is_alive() or not pings or not all(p.done() for p in pings):
            if failure:
                break
            victim = max(range(len(queues)), key=lambda k: len(queues[k]))
            if not queues[victim]:
                break
            cpu = time.process_time()
            for pos, value in run_chunk(self.backend, queues[victim].pop()):
                results[pos] = value
            self.caller_cpu_seconds += time.process_time() - cpu
        booter.join()
        if failure:
            self.shutdown()
            raise failure[0]

    def _dispatch(self, queues: list[deque[Chunk]], results: list[Any]) -> None:
        running: dict[Future[Any], int] = {}
        sent: dict[Future[Any], Chunk] = {}

        def feed(w: int) -> None:
            while sum(1 for v in running.values() if v == w) < IN_FLIGHT:
                c = _take(queues, w)
                if c is None:
                    return
                try:  # pickled here so a chunk the worker cannot unpickle comes back (run_chunk_pickled)
                    blob = pickle.dumps(c, protocol=pickle.HIGHEST_PROTOCOL)
                except Exception:  # noqa: BLE001 - an answer holding an object: judged here, as serially
                    for pos, value in run_chunk(self.backend, c):
                        results[pos] = value
                    continue
                for task, _ in c:  # a stolen task now has its reference on w too
                    self.home[task.digest] = w
                future = self.executors[w].submit(run_chunk_pickled, self.backend, blob)
                running[future], sent[future] = w, c

        for w in range(self.workers):
            feed(w)
        while running:
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for future in done:
                w, c = running.pop(future), sent.pop(future)
                try:
                    done_remote = future.result()
                except BrokenProcessPool:
                    raise
                except Exception:  # noqa: BLE001 - a result that could not come back: judged here
                    done_remote = None
                if done_remote is None:  # not unpickled in the worker, or lost: judge it here, as serially
                    out, cpu = run_chunk(self.backend, c), 0.0
                else:
                    out, cpu = done_remote
                self.cpu_seconds[w] += cpu
                for pos, value in out:
                    results[pos] = value
                feed(w)

    def shutdown(self) -> None:
        for ex in self.executors:
            ex.shutdown(wait=True, cancel_futures=True)
        self.executors = []
        self.home.clear()


_POOLS: dict[tuple[int, str], _Pool] = {}
_POOLS_LOCK = threading.Lock()


def _pool(workers: int, backend: str) -> _Pool:
    with _POOLS_LOCK:
        pool = _POOLS.get((workers, backend))
        if pool is None:
            pool = _POOLS[(workers, backend)] = _Pool(workers, backend)
        return pool


def shutdown_workers() -> None:
    """Stop every worker process :func:`evaluate_many` started (they otherwise stay warm for
    the next call until the interpreter exits)."""
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        with pool.lock:
            pool.shutdown()


atexit.register(shutdown_workers)


# ------------------------------------------------------------------ Dask


def _run_dask(groups: Sequence[_Group], backend: str, dask: Any, chunk: int, results: list[Any]) -> None:
    """Chunks go to the Dask worker chosen as their home (``workers=[address]``), which Dask may
    override to balance load (``allow_other_workers``); a Dask worker process keeps its
    reference cache between tasks, so later chunks of the same task find it warm."""
    from distributed import as_completed

    from psab.generators.parallel import dask_client

    with dask_client(dask) as client:
        addresses = sorted(client.scheduler_info().get("workers", {})) or [None]
        queues = _assign(groups, len(addresses), chunk)
        stamp = f"{time.time_ns():x}"
        sent, futures = {}, []
        for w, q in enumerate(queues):
            for k, c in enumerate(q):
                where = {"workers": [addresses[w]], "allow_other_workers": True} if addresses[w] else {}
                future = client.submit(run_chunk_remote, backend, c, key=f"psab-eval-{w}-{k}-{stamp}", pure=False, **where)
                sent[future.key] = c
                futures.append(future)
        for future in as_completed(futures):
            try:
                out, _cpu = future.result()
            except Exception:  # noqa: BLE001 - as locally: a chunk the cluster could not take is judged here
                out = run_chunk(backend, sent[future.key])
            for pos, value in out:
                results[pos] = value
            future.release()


warm_on_import = os.environ.get(WARM_ENV)
if warm_on_import:  # the fork server preloads this module with WARM_ENV set: warm it once for every worker
    warm(warm_on_import)
