"""The artifact contract: task, solution and evaluation result.

Each artifact is fixed by a JSON Schema in :mod:`psab.schemas` and mirrored here by a frozen
dataclass whose ``to_dict``/``from_dict`` round-trip losslessly. The task's agent view never
carries evaluation-only data: that lives in :attr:`Task.key`, which ``to_dict`` leaves out and
which is stored beside a case as ``key.json``.

All JSON written by psab is canonical — sorted keys, two-space indent, UTF-8, no NaN — so the
same task, solution and backend always give byte-identical result files.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from psab.errors import InvalidArgumentError, InvalidTaskError
from psab.jsonpointer import escape, pointer

SCHEMA_VERSION = 1
#: ``study``: the study tier (:mod:`psab.studies`): a weighted mean of deliverable scores, the
#: decision scored against the reference optimum (``FamilySpec.deliverables``).
SCORING_KINDS = ("exact", "optimize", "classify", "comply", "forecast", "study")
SPLITS = ("public", "heldout", "golden")


# --------------------------------------------------------------------------- JSON helpers


#: Integers wider than this many bits are echoed as a description, not as digits: Python
#: refuses to print an integer of more than 4300 decimal digits (CVE-2020-10735), and
#: 14 000 bits is about 4 215 digits.
MAX_ECHO_INT_BITS = 14_000


class OversizedNumber:
    """A number literal in an agent's JSON too long to convert (a 5 000-digit integer).

    The solution parser (:func:`psab.io.parse_solution_text`) puts one where the literal was,
    so that validation reports it at its own field instead of the parse failing as a whole.
    """

    __slots__ = ("chars",)

    def __init__(self, chars: int) -> None:
        self.chars = chars

    def __repr__(self) -> str:
        return f"number literal of {self.chars} characters"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OversizedNumber) and other.chars == self.chars

    def __hash__(self) -> int:
        return hash(("OversizedNumber", self.chars))


def encodable(text: str) -> str:
    """``text`` with every lone UTF-16 surrogate (``"\\ud800"``, which JSON's ``\\u`` escapes
    can produce but UTF-8 cannot encode) replaced by the six characters of its escape,
    backslash, ``u`` and four hex digits. Any other text is returned unchanged (the same
    object), so ordinary results stay byte-identical."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _key(key: Any) -> str:
    if isinstance(key, str):
        return encodable(key)
    if isinstance(key, int) and not isinstance(key, bool) and key.bit_length() > MAX_ECHO_INT_BITS:
        return str(to_jsonable(key))
    return encodable(str(key))


def to_jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays, tuples and non-finite floats into plain JSON values.

    Non-finite floats become the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` so that a
    result reporting an agent's NaN stays valid JSON. Text (values and keys) is made
    encodable as UTF-8 (:func:`encodable`), and an integer too wide to print becomes a
    description of its size, so that whatever an agent wrote can be echoed into a result.
    """
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, int):
        if value.bit_length() > MAX_ECHO_INT_BITS:
            return f"integer of about {int(value.bit_length() * 0.30103)} digits"
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, Mapping):
        return {_key(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, OversizedNumber):
        return repr(value)
    # numpy without importing it: scalars have .item(), arrays have .tolist()
    if hasattr(value, "tolist"):
        return to_jsonable(value.tolist())
    if hasattr(value, "item"):
        return to_jsonable(value.item())
    if hasattr(value, "to_dict"):
        return to_jsonable(value.to_dict())
    return encodable(str(value))


def dumps(obj: Any) -> str:
    """Canonical JSON text: sorted keys, two-space indent, trailing newline."""
    return json.dumps(to_jsonable(obj), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def digest(obj: Any) -> str:
    """SHA-256 hex digest of the canonical compact JSON of ``obj``."""
    text = json.dumps(to_jsonable(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_json(path: str | Path, obj: Any) -> None:
    """Write canonical JSON to ``path`` (creating parent directories)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(dumps(obj), encoding="utf-8")


class NonJSONConstant(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` in a document read as JSON (RFC 8259 has none)."""


def _refuse_constant(name: str) -> Any:
    raise NonJSONConstant(f"{name} is not a JSON number")


def loads_strict(text: str) -> Any:
    """``json.loads`` without the ``NaN``/``Infinity`` extension Python's parser accepts: a
    tolerance or an input of ``NaN`` would otherwise reach the evaluator (issue 32, item 2)."""
    return json.loads(text, parse_constant=_refuse_constant)


def read_json(path: str | Path) -> Any:
    """Read a JSON file written by a maintainer or psab (not by an agent); strict JSON
    (no ``NaN``/``Infinity``: psab never writes them, see :func:`dumps`)."""
    p = Path(path)
    if not p.is_file():
        raise InvalidArgumentError(f"{p}: no such file")
    try:
        return loads_strict(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, NonJSONConstant) as exc:
        raise InvalidArgumentError(f"{p}: not valid JSON ({exc})") from None


# --------------------------------------------------------------------------- schemas


@cache
def schema(name: str) -> dict[str, Any]:
    """The JSON Schema of an artifact: ``"task"``, ``"solution"`` or ``"result"``."""
    text = resources.files("psab.schemas").joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@cache
def _validator(name: str) -> Any:
    import jsonschema

    s = schema(name)
    cls = jsonschema.validators.validator_for(s)
    cls.check_schema(s)
    return cls(s)


def schema_errors(name: str, instance: Any) -> list[tuple[str, str]]:
    """Validate ``instance`` against artifact schema ``name``; return ``(pointer, message)`` pairs."""
    out = []
    for err in sorted(_validator(name).iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        out.append((pointer(err.absolute_path), err.message))
    return out


#: Largest relative tolerance a task may declare (the task schema's bound): at 50 % a "match"
#: no longer tells a right value from a wrong one; every family declares 1e-3 or less.
MAX_RELATIVE_TOLERANCE = 0.5
#: Largest absolute floor, feasibility slack or objective tolerance (in the unit the entry's
#: field names): the largest any family declares is 5 (percentage points of loading); 1000
#: would already accept a garbage answer to most fields, 1e300 or Infinity to all.
MAX_ABSOLUTE_TOLERANCE = 1000.0


def tolerance_problems(tolerances: Any) -> list[str]:
    """Pointers (into ``tolerances``) of every tolerance that is not a finite number in
    (0, max]: the task schema bounds them, but a JSON Schema ``maximum`` or
    ``exclusiveMinimum`` lets NaN through (every comparison with NaN is false), and a task
    built in Python need not have passed the schema at all."""
    if not isinstance(tolerances, Mapping):
        return [": must be an object"]
    out = []
    entries: list[tuple[str, Any, float]] = [("/relative", tolerances.get("relative"), MAX_RELATIVE_TOLERANCE)]
    for group in ("absolute_floors", "feasibility", "objective"):
        values = tolerances.get(group) or {}
        if not isinstance(values, Mapping):
            out.append(f"/{group}: must be an object")
            continue
        for name, value in values.items():
            limit = MAX_RELATIVE_TOLERANCE if (group, name) == ("objective", "relative") else MAX_ABSOLUTE_TOLERANCE
            entries.append((f"/{group}/{escape(name)}", value, limit))
    for where, value, limit in entries:
        if isinstance(value, bool) or not isinstance(value, int | float) or not (math.isfinite(value) and 0 < value <= limit):
            out.append(f"{where}: must be a finite number in (0, {limit:g}]; found {value!r}")
    return out


# --------------------------------------------------------------------------- artifacts


@dataclass(frozen=True)
class Task:
    """A task as posed to an agent, plus (separately) the key only the evaluator reads.

    Treat the mappings as read-only: a task's digest identifies its cached reference.
    """

    id: str
    family: str
    family_version: str
    area: str
    scoring_kind: str
    split: str
    public_inputs: dict[str, Any]
    submission_schema: dict[str, Any]
    hard_constraints: list[str]
    metrics: list[dict[str, Any]]
    tolerances: dict[str, Any]
    provenance: list[dict[str, Any]]
    presentation: dict[str, dict[str, Any]]
    key: dict[str, Any] | None = field(default=None, compare=True)
    #: Only in an agent's view (:func:`psab.views.agent_view`): the judging backend and the
    #: presentation level. A stored case has none.
    judging: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The agent view: everything but the key."""
        return {
            "schema_version": SCHEMA_VERSION,
            "id": self.id,
            "family": self.family,
            "family_version": self.family_version,
            "area": self.area,
            "scoring_kind": self.scoring_kind,
            "split": self.split,
            "public_inputs": self.public_inputs,
            "submission_schema": self.submission_schema,
            "hard_constraints": list(self.hard_constraints),
            "metrics": list(self.metrics),
            "tolerances": self.tolerances,
            "provenance": list(self.provenance),
            "presentation": self.presentation,
        } | ({"judging": dict(self.judging)} if self.judging is not None else {})

    def to_json(self) -> str:
        return dumps(self.to_dict())

    def hard_constraints_in(self, lang: str) -> list[str]:
        """The hard constraints as the ``lang`` presentation words them (the English list is
        ``hard_constraints`` itself; a task without a translation falls back to it)."""
        return list(self.presentation.get(lang, {}).get("hard_constraints") or self.hard_constraints)

    @cached_property
    def digest(self) -> str:
        """Identity of the task's content (agent view and key) for caches and manifests.

        Computed once per object (the task is frozen), so cache look-ups stay cheap.
        """
        return digest({"task": self.to_dict(), "key": self.key})

    @classmethod
    def from_dict(cls, data: Any, key: Mapping[str, Any] | None = None) -> Task:
        """Build a task from its agent-view dict, validating it against the task schema."""
        errors = schema_errors("task", data)
        if errors:
            where, msg = errors[0]
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise InvalidTaskError(f"task does not satisfy the task schema at '{where or '/'}': {msg}{more}")
        bad = tolerance_problems(data["tolerances"])
        if bad:
            raise InvalidTaskError(f"task tolerances{bad[0]}" + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""))
        if key is not None and not isinstance(key, Mapping):
            raise InvalidTaskError("a task's key must be a JSON object")
        return cls(
            id=data["id"],
            family=data["family"],
            family_version=data["family_version"],
            area=data["area"],
            scoring_kind=data["scoring_kind"],
            split=data["split"],
            public_inputs=data["public_inputs"],
            submission_schema=data["submission_schema"],
            hard_constraints=list(data["hard_constraints"]),
            metrics=list(data["metrics"]),
            tolerances=data["tolerances"],
            provenance=list(data["provenance"]),
            presentation=data["presentation"],
            key=dict(key) if key is not None else None,
            judging=dict(data["judging"]) if "judging" in data else None,
        )

    @classmethod
    def from_json(cls, text: str, key: Mapping[str, Any] | None = None) -> Task:
        try:
            data = loads_strict(text)
        except (json.JSONDecodeError, NonJSONConstant) as exc:
            raise InvalidTaskError(f"task is not valid JSON: {exc}") from None
        return cls.from_dict(data, key=key)

    def write(self, directory: str | Path, *, with_key: bool = True) -> Path:
        """Write ``task.json`` (and ``key.json`` when there is a key) into ``directory``."""
        d = Path(directory)
        write_json(d / "task.json", self.to_dict())
        if with_key and self.key is not None:
            write_json(d / "key.json", self.key)
        return d


@dataclass(frozen=True)
class Solution:
    """An agent's structured answer and its (unscored) rationale."""

    answer: Any
    rationale: str | None = None
    task_id: str | None = None
    #: What reading the solution file tolerated (a byte order mark); reported in the result's
    #: evidence as ``solution_notes``, never part of the solution itself.
    notes: tuple[str, ...] = field(default=(), compare=False)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"answer": self.answer}
        if self.rationale is not None:
            out["rationale"] = self.rationale
        if self.task_id is not None:
            out["task_id"] = self.task_id
        return out

    def to_json(self) -> str:
        return dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Solution:
        """Lenient construction: the evaluator, not this constructor, judges the answer."""
        rationale = data.get("rationale")
        task_id = data.get("task_id")
        return cls(
            answer=data.get("answer"),
            rationale=rationale if isinstance(rationale, str) else None,
            task_id=task_id if isinstance(task_id, str) else None,
        )


@dataclass(frozen=True)
class Violation:
    """One breached requirement: the answer field (JSON pointer), the constraint in words,
    the bound or value expected, and what was found."""

    field: str
    constraint: str
    expected: Any = None
    found: Any = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "field": to_jsonable(self.field),
            "constraint": to_jsonable(self.constraint),
            "expected": to_jsonable(self.expected),
            "found": to_jsonable(self.found),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Violation:
        return cls(data["field"], data["constraint"], data.get("expected"), data.get("found"))

    def describe(self) -> str:
        """One line for people: ``/p_mw: within limits (expected ≤ 10, found 12)``."""
        field_, constraint = encodable(self.field or "/"), encodable(self.constraint)
        return f"{field_}: {constraint} (expected {_short(self.expected)}, found {_short(self.found)})"


def _short(value: Any) -> str:
    text = json.dumps(to_jsonable(value), ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class EvaluationResult:
    """The evaluator's verdict on one solution."""

    task_id: str
    family: str
    family_version: str
    backend: str
    feasible: bool
    score: float
    violations: tuple[Violation, ...]
    evidence: dict[str, Any]
    evaluator_version: str

    def __post_init__(self) -> None:
        # The one conversion to plain JSON values (numpy, non-finite floats, unencodable text,
        # over-wide integers), done when the result is made; to_dict and to_json then copy and
        # print without converting again (to_jsonable is idempotent, so a result rebuilt from
        # its own dict is unchanged).
        object.__setattr__(self, "violations", tuple(
            Violation(to_jsonable(v.field), to_jsonable(v.constraint), to_jsonable(v.expected), to_jsonable(v.found))
            for v in self.violations))
        object.__setattr__(self, "evidence", to_jsonable(self.evidence))

    @property
    def perfect(self) -> bool:
        """Feasible and scored exactly 1 (optimal where graded)."""
        return self.feasible and self.score == 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "family": self.family,
            "family_version": self.family_version,
            "backend": self.backend,
            "feasible": self.feasible,
            "score": self.score,
            "violations": [{"field": v.field, "constraint": v.constraint, "expected": v.expected, "found": v.found}
                           for v in self.violations],
            "evidence": self.evidence,
            "evaluator_version": self.evaluator_version,
        }

    def to_json(self) -> str:
        # Already plain JSON values (__post_init__): the canonical text without a second pass.
        return json.dumps(self.to_dict(), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvaluationResult:
        errors = schema_errors("result", data)
        if errors:
            where, msg = errors[0]
            raise InvalidArgumentError(f"not an evaluation result at '{where or '/'}': {msg}")
        return cls(
            task_id=data["task_id"],
            family=data["family"],
            family_version=data["family_version"],
            backend=data["backend"],
            feasible=data["feasible"],
            score=float(data["score"]),
            violations=tuple(Violation.from_dict(v) for v in data["violations"]),
            evidence=dict(data["evidence"]),
            evaluator_version=data["evaluator_version"],
        )
