"""Realistic mistakes applied to a correct answer — the evaluator's sensitivity test.

Each mutation is one mistake an engineer (or an agent) actually makes: a value 5 % off, a unit
off by 1000 (kA written as A, MW as kW), a sign flipped (generation written as load), a field
left out, a time series shifted by one step, a discrete choice swapped, a switch flipped.
The conformance suite requires the evaluator to score every effective mutation below 1;
the ``builtin:mutant`` agent submits one of them; ``psab qc`` reports the share caught.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from psab.jsonpointer import get, pointer, removed, replaced, schema_at, walk

KINDS = ("scale_1.05", "scale_1000", "sign_flip", "drop_field", "shift_series", "swap_choice", "flip_bool",
         "other_reading")


@dataclass(frozen=True)
class Mutation:
    """One mutated answer: what was done, where (JSON pointer), and the new answer."""

    kind: str
    pointer: str
    answer: dict[str, Any]
    before: Any
    after: Any

    def describe(self) -> str:
        if self.kind == "other_reading":
            return f"other reading {self.before}"
        return f"{self.kind} at {self.pointer or '/'}"


def mutations(answer: Mapping[str, Any], schema: Mapping[str, Any] | None = None) -> Iterator[Mutation]:
    """Every single-mistake variant of ``answer`` (each changes exactly one thing).

    ``schema`` (the task's submission schema) lets discrete choices be swapped for another
    allowed value. Mutations that would not change the answer (scaling a zero) are skipped.
    """
    base = dict(answer)
    for path, value in walk(base):
        if not path:
            continue
        where = pointer(path)
        if isinstance(value, bool):
            yield Mutation("flip_bool", where, replaced(base, path, not value), value, not value)
        elif isinstance(value, (int, float)):
            if value == 0:
                continue
            for kind, new in (("scale_1.05", value * 1.05), ("scale_1000", value * 1000), ("sign_flip", -value)):
                if isinstance(value, int) and kind == "scale_1.05":
                    new = value + (1 if value > 0 else -1)
                yield Mutation(kind, where, replaced(base, path, new), value, new)
        elif isinstance(value, str):
            node = schema_at(schema, path)
            choices = [c for c in (node or {}).get("enum", []) if c != value]
            if choices:
                yield Mutation("swap_choice", where, replaced(base, path, choices[0]), value, choices[0])
        elif isinstance(value, list) and len(value) > 1:
            shifted = value[-1:] + value[:-1]
            if shifted != value:
                yield Mutation("shift_series", where, replaced(base, path, shifted), "series", "shifted by one step")
        # dropping: every object field (top level and nested)
        if isinstance(get(base, path[:-1]), Mapping):
            yield Mutation("drop_field", where, removed(base, path), path[-1], None)


def is_reordering(mutation: Mutation, schema: Mapping[str, Any] | None) -> bool:
    """Whether ``mutation`` only reorders a list whose items say what they are: a set (the
    schema's ``uniqueItems``), or records that each name what they are about (every item an
    object with an ``id`` or ``*_id`` field, no two items alike — a binding constraint is named by
    its branch, its contingency and its hour). Whether that is a mistake
    is the family's stated convention: the compact families state a canonical order and reject
    any other (a violation), the studies match records by name (the same answer)."""
    if mutation.kind != "shift_series":
        return False
    path = [int(p) if p.isdigit() else p for p in mutation.pointer.strip("/").split("/")] if mutation.pointer else []
    if bool((schema_at(schema, path) or {}).get("uniqueItems")):
        return True
    items = get(mutation.answer, path)
    if not isinstance(items, list) or not items or not all(isinstance(i, Mapping) for i in items):
        return False
    if not all(any(k == "id" or k.endswith("_id") for k in i) for i in items):
        return False
    # named and pairwise different (a record may be named by its id fields and more: an hour)
    keys = [json.dumps(i, sort_keys=True, default=str) for i in items]
    return len(set(keys)) == len(keys)


def effective(task: Any, mutation: Mutation, exempt: Sequence[str]) -> bool:
    """Whether ``mutation`` changes the answer enough to count (the conformance suites' and
    ``psab qc``'s one rule): by more than the task's tolerance, and not as a ×1.05 nudge of a
    ``mutation_exempt`` field (a declared flat optimum; glob ``*`` per pointer segment)."""
    from psab.evaluators.tolerance import Tolerance, field_pattern

    if mutation.kind == "scale_1.05" and any(re.fullmatch(re.escape(p).replace(r"\*", "[^/]+"), field_pattern(mutation.pointer))
                                             for p in exempt):
        return False
    before, after = mutation.before, mutation.after
    if isinstance(before, (int, float)) and not isinstance(before, bool):
        return abs(after - before) > Tolerance.from_task(task.tolerances).allowed(mutation.pointer, before)
    return True


def other_readings(spec: Any, task: Any) -> Iterator[Mutation]:
    """The family's declared other readings of its conventions (``FamilySpec.other_readings``)
    as mutations of kind ``other_reading``: the whole answer an engineer who read the named
    convention the other way would submit. ``before`` holds the reading's name."""
    if spec.other_readings is None:
        return
    for name, answer in spec.other_readings(task):
        yield Mutation("other_reading", "", dict(answer), name, "the other reading")


def realistic_mistake(answer: Mapping[str, Any], schema: Mapping[str, Any] | None, task_id: str,
                      seed: int = 0) -> Mutation | None:
    """The one mistake the built-in ``mutant`` agent makes in ``answer``, chosen reproducibly
    per (``seed``, ``task_id``): first the kind of mistake, so that answers with many numbers
    do not make every mutant a numeric one, then where. ``None`` when no mutation applies."""
    import hashlib
    import random

    candidates = list(mutations(answer, schema))
    if not candidates:
        return None
    digest = hashlib.sha256(f"{seed}:{task_id}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    kind = rng.choice(sorted({m.kind for m in candidates}))
    return rng.choice([m for m in candidates if m.kind == kind])
