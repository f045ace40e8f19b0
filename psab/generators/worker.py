"""What a worker process runs: draw a job's cases and report every outcome, never raise.

Importing this module loads the family registry, which is what makes a worker warm: the
local fork server preloads it (:data:`psab.generators.parallel.WARM_MODULES`), so workers
forked from it start with psab, numpy and every family module imported; spawned workers and
Dask workers run :func:`warm` (or pay the same imports on their first job). Solvers and
backends (Pyomo, pandapower) are still imported on a family's first draw and then stay
loaded for the life of the worker.
"""

from __future__ import annotations

import time
import traceback

from psab.errors import GenerationError


def warm() -> None:
    """Load the registry and every family's public case in this process; never fails.

    Reading a public case compiles the task schema's validator (a tenth of a second, once);
    done in the fork server, it is done once for all the workers forked from it.
    """
    try:
        from psab.generators.acceptance import _public
        from psab.registry import families

        for spec in families():
            _public(spec)
    except Exception:  # noqa: BLE001 - the first job reports the real error, with its family
        pass


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f" at {last.filename.rsplit('/', 1)[-1]}:{last.lineno}"


def draw_job(job):  # type: ignore[no-untyped-def] # DrawJob -> list[DrawOutcome]
    from psab import __version__
    from psab.evaluators.cache import clear_reference_cache
    from psab.evaluators.kernel import evaluate, solve
    from psab.generators.acceptance import generate
    from psab.generators.parallel import DrawOutcome, code_fingerprint
    from psab.registry import get_family

    try:
        get_family(job.family)
    except Exception as exc:  # noqa: BLE001
        return [DrawOutcome(job.family, i, None, error=f"family {job.family}: {exc}") for i in job.indices]
    if job.expect != ("", "") and (__version__, code_fingerprint(job.family)) != tuple(job.expect):
        message = (
            f"family {job.family}: this worker runs psab {__version__} with family code {code_fingerprint(job.family)}, "
            f"the caller psab {job.expect[0]} with {job.expect[1]}; install the same psab on every worker"
        )
        return [DrawOutcome(job.family, i, None, error=message) for i in job.indices]

    seed = job.seed.reveal()
    out = []
    for index in job.indices:
        started, cpu = time.perf_counter(), time.process_time()
        try:
            d = generate(job.family, seed, index, job.backend)
        except GenerationError as exc:
            kinds = tuple(getattr(exc, "rejection_kinds", ()))
            out.append(DrawOutcome(job.family, index, None, len(kinds), kinds, seconds=time.perf_counter() - started,
                                   error=str(exc)))
            continue
        except Exception as exc:  # noqa: BLE001 - reported, with its family, index and place
            message = f"family {job.family}, index {index}: {type(exc).__name__}: {exc}{_where(exc)}"
            out.append(DrawOutcome(job.family, index, None, seconds=time.perf_counter() - started, error=message))
            continue
        feasible = score = None
        if job.validate:
            # Judge with a freshly solved reference, not the one the acceptance loop cached.
            clear_reference_cache()
            try:
                result = evaluate(d.task, solve(d.task, job.backend), job.backend)
                feasible, score = result.feasible, result.score
            except Exception as exc:  # noqa: BLE001
                message = f"family {job.family}, index {index}: re-solving the accepted case failed: {type(exc).__name__}: {exc}"
                out.append(DrawOutcome(job.family, index, d.task, d.attempts, d.kinds, False, 0.0,
                                       time.perf_counter() - started, message))
                continue
        out.append(DrawOutcome(job.family, index, d.task, d.attempts, d.kinds, feasible, score,
                               time.perf_counter() - started, cpu_seconds=time.process_time() - cpu))
    return out


warm()
