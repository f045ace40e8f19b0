"""What a worker process runs: draw a job's cases and report every outcome, never raise.

Warm workers: importing this module runs :func:`warm`, which loads the family registry and
the public cases and — for the families named in :data:`WARM_ENV` — solves and evaluates
each public case once, which imports and initialises what those families' first draw would
(Pyomo and HiGHS, pandapower, compiled validators). The local fork server preloads this
module (:data:`psab.generators.parallel.WARM_MODULES`) with that variable set for the run, so
every worker forked from it starts warm and the warm-up is paid once, not once per worker.
Spawned and Dask workers pay it on their first job instead.
"""

from __future__ import annotations

import os
import time
import traceback

from psab.errors import GenerationError
from psab.generators.jobs import DrawJob, DrawOutcome

#: Environment variable naming ``backend:family,family,...`` to warm up at import.
WARM_ENV = "PSAB_WARM_FAMILIES"


def warm(families: tuple[str, ...] | None = None, backend: str = "surrogate") -> None:
    """Make this process ready to draw; never fails (a job reports any real error).

    Loads the registry and every public case (reading one compiles the task schema's
    validator); then, for ``families`` (default: those named in :data:`WARM_ENV`), solves
    and evaluates the public case once under each backend a draw is checked under.
    """
    try:
        from psab.generators.acceptance import _public
        from psab.registry import families as registered

        for spec in registered():
            _public(spec)
    except Exception:  # noqa: BLE001
        return
    if families is None:
        spec_text = os.environ.get(WARM_ENV, "")
        backend, _, names = spec_text.rpartition(":") if ":" in spec_text else ("surrogate", "", spec_text)
        families = tuple(f for f in names.split(",") if f)
    from psab.evaluators.kernel import evaluate, solve
    from psab.generators.acceptance import judging_backends
    from psab.registry import get_family

    for fid in families:
        try:
            spec = get_family(fid)
            task = _public(spec)[0]
            for b in judging_backends(spec) or (backend,):  # a draw is checked under each of them
                evaluate(task, solve(task, b), b)
        except Exception:  # noqa: BLE001
            continue


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f" at {last.filename.rsplit('/', 1)[-1]}:{last.lineno}"


def draw_job(job: DrawJob) -> list[DrawOutcome]:
    from psab.evaluators.cache import clear_reference_cache
    from psab.evaluators.kernel import evaluate, solve
    from psab.generators.acceptance import generate
    from psab.generators.jobs import DrawOutcome, code_fingerprint
    from psab.registry import get_family
    from psab.version import __version__

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

    from psab.generators.acceptance import check_judges

    try:
        judges = check_judges(get_family(job.family), job.backend, job.judges or None)
    except Exception as exc:  # noqa: BLE001 - a worker without a judging backend draws nothing
        message = (f"family {job.family}: this worker cannot judge draws as the caller does ({exc}); "
                   "install the same backends on every worker")
        return [DrawOutcome(job.family, i, None, error=message) for i in job.indices]
    seed = job.seed.reveal()
    out = []
    for index in job.indices:
        started, cpu = time.perf_counter(), time.process_time()
        try:
            d = generate(job.family, seed, index, job.backend, job.level, judges=judges)
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
            # Judge with a freshly solved reference, not the one the acceptance loop cached, under
            # every judge (the draw must be sound under each).
            clear_reference_cache()
            try:
                results = [evaluate(d.task, solve(d.task, b), b) for b in judges]
                feasible, score = all(r.feasible for r in results), min(r.score for r in results)
            except Exception as exc:  # noqa: BLE001
                message = f"family {job.family}, index {index}: re-solving the accepted case failed: {type(exc).__name__}: {exc}"
                out.append(DrawOutcome(job.family, index, d.task, d.attempts, d.kinds, False, 0.0,
                                       time.perf_counter() - started, message))
                continue
        out.append(DrawOutcome(job.family, index, d.task, d.attempts, d.kinds, feasible, score,
                               time.perf_counter() - started, cpu_seconds=time.process_time() - cpu))
    import dataclasses

    return [dataclasses.replace(o, level=job.level, judges=judges) for o in out]


warm()
