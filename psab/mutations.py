"""Realistic mistakes applied to a correct answer — the evaluator's sensitivity test.

Each mutation is one mistake an engineer (or an agent) actually makes: a value 5 % off, a unit
off by 1000 (kA written as A, MW as kW), a sign flipped (generation written as load), a field
left out, a time series shifted by one step, a discrete choice swapped, a switch flipped.
The conformance suite requires the evaluator to score every effective mutation below 1;
the ``builtin:mutant`` agent submits one of them; ``psab qc`` reports the share caught.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

KINDS = ("scale_1.05", "scale_1000", "sign_flip", "drop_field", "shift_series", "swap_choice", "flip_bool")


@dataclass(frozen=True)
class Mutation:
    """One mutated answer: what was done, where (JSON pointer), and the new answer."""

    kind: str
    pointer: str
    answer: dict[str, Any]
    before: Any
    after: Any

    def describe(self) -> str:
        return f"{self.kind} at {self.pointer or '/'}"


def _get(doc: Any, parts: list[str]) -> Any:
    for p in parts:
        doc = doc[int(p)] if isinstance(doc, list) else doc[p]
    return doc


def _with(answer: dict[str, Any], pointer: str, new: Any, *, drop: bool = False) -> dict[str, Any]:
    out = copy.deepcopy(answer)
    parts = pointer.split("/")[1:]
    parent = _get(out, parts[:-1])
    last = parts[-1]
    if drop:
        if isinstance(parent, list):
            del parent[int(last)]
        else:
            del parent[last]
    elif isinstance(parent, list):
        parent[int(last)] = new
    else:
        parent[last] = new
    return out


def _walk(value: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    yield pointer, value
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _walk(v, f"{pointer}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, f"{pointer}/{i}")


def _schema_at(schema: Mapping[str, Any] | None, pointer: str) -> Mapping[str, Any] | None:
    node = schema
    for part in pointer.split("/")[1:]:
        if node is None:
            return None
        if node.get("type") == "array" or "items" in node:
            node = node.get("items")
        else:
            node = node.get("properties", {}).get(part)
    return node


def mutations(answer: Mapping[str, Any], schema: Mapping[str, Any] | None = None) -> Iterator[Mutation]:
    """Every single-mistake variant of ``answer`` (each changes exactly one thing).

    ``schema`` (the task's submission schema) lets discrete choices be swapped for another
    allowed value. Mutations that would not change the answer (scaling a zero) are skipped.
    """
    base = dict(answer)
    for pointer, value in _walk(base):
        if pointer == "":
            continue
        if isinstance(value, bool):
            yield Mutation("flip_bool", pointer, _with(base, pointer, not value), value, not value)
        elif isinstance(value, (int, float)):
            if value == 0:
                continue
            for kind, new in (("scale_1.05", value * 1.05), ("scale_1000", value * 1000), ("sign_flip", -value)):
                if isinstance(value, int) and kind == "scale_1.05":
                    new = value + (1 if value > 0 else -1)
                yield Mutation(kind, pointer, _with(base, pointer, new), value, new)
        elif isinstance(value, str):
            node = _schema_at(schema, pointer)
            choices = [c for c in (node or {}).get("enum", []) if c != value]
            if choices:
                yield Mutation("swap_choice", pointer, _with(base, pointer, choices[0]), value, choices[0])
        elif isinstance(value, list) and len(value) > 1:
            shifted = value[-1:] + value[:-1]
            if shifted != value:
                yield Mutation("shift_series", pointer, _with(base, pointer, shifted), "series", "shifted by one step")
        # dropping: every object field (top level and nested)
        parent_ptr, _, last = pointer.rpartition("/")
        parent = _get(base, parent_ptr.split("/")[1:]) if parent_ptr else base
        if isinstance(parent, Mapping):
            yield Mutation("drop_field", pointer, _with(base, pointer, None, drop=True), last, None)


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
