"""Finding the task a stored record was run on, under the current code.

A run directory stores each case's task digest, not the task. The public task is the family's
current public case; a held-out task is regenerated from the seed and its index. Either is the
task the record was run on when its digest matches — exactly, or once the family version the
record names is put back (a family's version bump, the usual companion of an evaluator fix,
changes the digest without changing the case). Anything else means the case itself changed
and the stored answer does not belong to the current task.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from psab.contract import Task

SAME = "same"                  # the digest matches
NEW_VERSION = "new_version"    # only the family version differs
CHANGED = "changed"            # the case's content differs: the stored answer is for another task
UNREGISTERED = "unregistered"  # the family is not registered here
UNAVAILABLE = "unavailable"    # the task cannot be rebuilt (generation failed)


@dataclass(frozen=True)
class Resolved:
    task: Task | None
    status: str
    detail: str = ""

    @property
    def usable(self) -> bool:
        return self.task is not None and self.status in (SAME, NEW_VERSION)


def _match(task: Task, record: dict[str, Any]) -> Resolved:
    want = record.get("task_digest")
    if want is None or task.digest == want:
        return Resolved(task, SAME)
    old_version = str(record.get("family_version", task.family_version))
    if old_version != task.family_version and replace(task, family_version=old_version).digest == want:
        return Resolved(task, NEW_VERSION, f"family version {old_version} → {task.family_version}")
    return Resolved(task, CHANGED, "the case's content changed since the run (its digest differs)")


def public_task(record: dict[str, Any], cache: dict[str, Resolved | Task] | None = None,
                stored: Path | None = None) -> Resolved:
    """The public task the record was run on: the copy the run stored (``stored``, the run's
    ``tasks/<task id>/``) when it matches the record's digest, else the family's current
    public case, matched against that digest."""
    import psab
    from psab.errors import PsabError, UnknownFamilyError

    fam = str(record["family"])
    cache = cache if cache is not None else {}
    if stored is not None and (stored / "task.json").is_file():
        skey = f"stored:{stored}"
        if skey not in cache:
            try:
                cache[skey] = psab.load_case(stored)
            except PsabError as exc:
                cache[skey] = Resolved(None, UNAVAILABLE, f"the run's stored task cannot be read: {exc}")
        got_stored = cache[skey]
        if isinstance(got_stored, Task) and got_stored.digest == record.get("task_digest"):
            try:
                psab.get_family(fam)
            except UnknownFamilyError:
                return Resolved(None, UNREGISTERED, f"family {fam} is not registered in this installation")
            return Resolved(got_stored, SAME, "the task stored with the run")
    key = f"public:{fam}"
    if key not in cache:
        try:
            cache[key] = psab.get_family(fam).public_task()
        except UnknownFamilyError:
            cache[key] = Resolved(None, UNREGISTERED, f"family {fam} is not registered in this installation")
    got = cache[key]
    if isinstance(got, Resolved):
        return got
    return _match(got, record)


def heldout_task(record: dict[str, Any], seed: str, backend: str, cache: dict[str, Resolved | Task] | None = None) -> Resolved:
    """The held-out task regenerated from ``seed`` and the record's index."""
    import psab
    from psab.errors import PsabError, UnknownFamilyError

    fam = str(record["family"])
    index = int(record.get("index") or 0)
    cache = cache if cache is not None else {}
    key = f"heldout:{fam}:{index}"
    if key not in cache:
        try:
            cache[key] = psab.generate(fam, seed, index, backend=backend)
        except UnknownFamilyError:
            cache[key] = Resolved(None, UNREGISTERED, f"family {fam} is not registered in this installation")
        except PsabError as exc:
            cache[key] = Resolved(None, UNAVAILABLE, f"cannot regenerate the case: {exc}")
    got = cache[key]
    if isinstance(got, Resolved):
        return got
    return _match(got, record)
