"""What a draw job is and what it hands back: :class:`DrawJob`, :class:`DrawOutcome`, and the
:func:`code_fingerprint` that pins a job to the caller's code.

Shared by the caller (:mod:`psab.generators.parallel`, which plans and runs jobs) and the
worker (:mod:`psab.generators.worker`, which draws them): both import this module, and
``parallel`` imports ``worker`` — never the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass

from psab.contract import Task
from psab.generators.seeds import PrivateSeed


@dataclass(frozen=True)
class DrawJob:
    """Draw cases ``indices`` of ``family`` under ``seed`` (what one worker does at a time).

    ``validate`` also re-solves each accepted case from a cold reference cache and evaluates
    that reference, an independent check on the acceptance loop. ``expect`` pins what the
    caller runs — psab's version and :func:`code_fingerprint` of the family — since a worker
    with other code would draw other cases: such a worker reports an error instead.
    """

    family: str
    indices: tuple[int, ...]
    seed: PrivateSeed
    backend: str = "surrogate"
    validate: bool = False
    expect: tuple[str, str] = ("", "")
    #: Difficulty level of the draws (``FamilySpec.levels``; 1 is the public case's kind).
    level: int = 1
    #: The backends every draw is checked under, fixed by the caller
    #: (:func:`~psab.generators.acceptance.judging_backends` there; empty: the worker's own):
    #: a worker without one of them reports an error instead of drawing other cases.
    judges: tuple[str, ...] = ()


_FINGERPRINTS: dict[str, str] = {}


def code_fingerprint(family_id: str) -> str:
    """A digest of the code a family's draws depend on: the family's module (generator,
    solver, evaluator, spec) and the generation kernel (rng, acceptance), as source bytes.

    Family versions are bumped by hand and psab's version rarely; this catches a worker that
    runs an older checkout of the same version (shared physics modules are not covered).
    """
    hit = _FINGERPRINTS.get(family_id)
    if hit is None:
        import hashlib
        import sys

        from psab.generators import acceptance, rng
        from psab.registry import get_family

        spec = get_family(family_id)
        h = hashlib.sha256(f"{family_id}@{spec.version}".encode())
        for module in (sys.modules.get(spec.generate.__module__), sys.modules.get(spec.solve.__module__), acceptance, rng):
            path = getattr(module, "__file__", None)
            if path:
                with open(path, "rb") as fh:
                    h.update(fh.read())
        hit = _FINGERPRINTS[family_id] = h.hexdigest()[:16]
    return hit


@dataclass(frozen=True)
class DrawOutcome:
    """One draw: the accepted task (``None`` on error), its attempts and rejection kinds,
    the fresh reference check (validation only; under every judge: feasible under all, the
    lowest score), the worker's wall-clock and CPU time for it
    (they differ on a loaded machine), or the error."""

    family: str
    index: int
    task: Task | None
    attempts: int = 0
    rejection_kinds: tuple[str, ...] = ()
    reference_feasible: bool | None = None
    reference_score: float | None = None
    seconds: float = 0.0
    error: str | None = None
    cpu_seconds: float = 0.0
    level: int = 1
    #: The backends the draw was checked under (the round's manifest records them).
    judges: tuple[str, ...] = ()
