"""Answer validation: every malformed field of an answer becomes one violation.

Two passes. The first walks the answer for numbers JSON Schema lets through but physics
cannot use — NaN, ±Infinity (Python's json module reads them), and magnitudes beyond
:data:`MAX_MAGNITUDE`, which no quantity in a compact case reaches and which would overflow
the arithmetic downstream. The second validates against the task's submission schema with
jsonschema, reporting a missing field at its own pointer (``/schedule/3/p_mw``), an
unexpected field at its own pointer, and at most one violation per pointer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from psab.contract import Violation
from psab.jsonpointer import escape, pointer

#: Largest magnitude accepted for any number in an answer.
MAX_MAGNITUDE = 1e12
#: Deepest nesting accepted in an answer (the deepest submission schema is a few levels).
MAX_DEPTH = 64


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """Depth of nested arrays/objects in ``value``, counted iteratively and stopping past
    ``limit`` (so a hostile 100 000-deep answer costs nothing and recurses nowhere)."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        if isinstance(v, Mapping):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend((x, d + 1) for x in v)
    return deepest


def number_violations(value: Any, pointer: str = "") -> list[Violation]:
    """Non-finite or absurdly large numbers anywhere in ``value``."""
    out: list[Violation] = []
    stack = [(pointer, value)]
    while stack:
        ptr, v = stack.pop()
        if isinstance(v, bool) or v is None or isinstance(v, str):
            continue
        if isinstance(v, float):
            if not math.isfinite(v):
                out.append(Violation(ptr, "must be a finite number", "finite number", v))
            elif abs(v) > MAX_MAGNITUDE:
                out.append(Violation(ptr, f"magnitude must not exceed {MAX_MAGNITUDE:g}", f"|x| <= {MAX_MAGNITUDE:g}", v))
        elif isinstance(v, int):
            if abs(v) > MAX_MAGNITUDE:
                out.append(Violation(ptr, f"magnitude must not exceed {MAX_MAGNITUDE:g}", f"|x| <= {MAX_MAGNITUDE:g}", float(v) if abs(v) < 1e300 else "huge integer"))
        elif isinstance(v, Mapping):
            stack.extend((f"{ptr}/{escape(k)}", x) for k, x in v.items())
        elif isinstance(v, (list, tuple)):
            stack.extend((f"{ptr}/{i}", x) for i, x in enumerate(v))
    out.sort(key=lambda x: x.field)
    return out


_VALIDATORS: dict[int, tuple[Mapping[str, Any], Any]] = {}


def _validator(schema: Mapping[str, Any]) -> Any:
    # A task's submission schema is one object for the task's lifetime and is used for every
    # answer to it: remember its compiled validator by identity (holding the object keeps the
    # id from being reused).
    hit = _VALIDATORS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    import jsonschema

    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema)
    if len(_VALIDATORS) > 1024:
        _VALIDATORS.clear()
    _VALIDATORS[id(schema)] = (schema, validator)
    return validator


def _describe(err: Any) -> tuple[str, Any]:
    """A violation's constraint words and expected value from a jsonschema error."""
    v, val = err.validator, err.validator_value
    if v == "type":
        return f"must be of type {val}", val
    if v == "enum":
        return "must be one of the allowed values", val
    if v == "const":
        return "must equal the required value", val
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        words = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[v]
        return f"must be {words} {val}", f"{words} {val}"
    if v in ("minItems", "maxItems"):
        return f"must have {'at least' if v == 'minItems' else 'at most'} {val} items", val
    if v == "uniqueItems":
        return "items must be unique", "unique items"
    if v in ("minLength", "maxLength", "pattern"):
        return f"string must satisfy {v} {val}", val
    return err.message, val


def schema_violations(schema: Mapping[str, Any], instance: Any) -> list[Violation]:
    """Violations of ``schema`` by ``instance``: one per offending field, pointer-addressed."""
    validator = _validator(schema)
    by_pointer: dict[str, Violation] = {}
    for err in validator.iter_errors(instance):
        base = list(err.absolute_path)
        if err.validator == "required" and isinstance(err.instance, Mapping):
            for name in err.validator_value:
                if name not in err.instance:
                    ptr = pointer([*base, name])
                    by_pointer.setdefault(ptr, Violation(ptr, "required field is missing", "present", None))
            continue
        if err.validator == "additionalProperties" and isinstance(err.instance, Mapping):
            allowed = set(err.schema.get("properties", {}))
            for name in err.instance:
                if name not in allowed:
                    ptr = pointer([*base, name])
                    by_pointer.setdefault(
                        ptr,
                        Violation(ptr, "unexpected field (not in the submission schema)", sorted(allowed), name),
                    )
            continue
        ptr = pointer(base)
        if ptr in by_pointer:
            continue
        constraint, expected = _describe(err)
        found = err.instance
        if isinstance(found, (Mapping, list)) and len(str(found)) > 200:
            found = f"{type(found).__name__} of length {len(found)}"
        by_pointer[ptr] = Violation(ptr, constraint, expected, found)
    return [by_pointer[k] for k in sorted(by_pointer)]


_NUMBER_KEYWORDS = {"minimum": lambda x, b: x >= b, "maximum": lambda x, b: x <= b,
                    "exclusiveMinimum": lambda x, b: x > b, "exclusiveMaximum": lambda x, b: x < b}
_FAST_KEYWORDS = {"type", "enum", "const", "items", "properties", "required", "additionalProperties",
                  "minItems", "maxItems", "uniqueItems", *_NUMBER_KEYWORDS,
                  "description", "title", "$schema", "unit", "$comment"}


class _Unsupported(Exception):
    pass


def _fast_valid(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether ``value`` is valid for the subset of JSON Schema the answer builders emit, and
    every number is finite and within :data:`MAX_MAGNITUDE`.

    A fast path only: a ``True`` here lets a well-formed answer skip jsonschema (which costs
    about a millisecond for a small matrix); anything else goes to the full validator, which
    alone produces violations. Raises :class:`_Unsupported` on keywords it does not know.
    """
    if not _FAST_KEYWORDS.issuperset(schema):
        raise _Unsupported
    if "enum" in schema and not any(value == v and type(value) is type(v) for v in schema["enum"]):
        return False
    if "const" in schema and value != schema["const"]:
        return False
    kind = schema.get("type")
    if isinstance(value, bool):
        if kind not in (None, "boolean"):
            return False
    elif isinstance(value, (int, float)):
        if kind not in (None, "number", "integer") or (kind == "integer" and not isinstance(value, int)):
            return False
        if not (abs(value) <= MAX_MAGNITUDE):  # also false for NaN
            return False
        for key, ok in _NUMBER_KEYWORDS.items():
            if key in schema and not ok(value, schema[key]):
                return False
    elif isinstance(value, str):
        if kind not in (None, "string"):
            return False
    elif value is None:
        return kind == "null"
    elif isinstance(value, list):
        if kind not in (None, "array"):
            return False
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", len(value)):
            return False
        if schema.get("uniqueItems"):
            if not all(isinstance(v, str) for v in value):
                raise _Unsupported  # JSON equality of numbers (1 == 1.0) is jsonschema's to judge
            if len(set(value)) != len(value):
                return False
        items = schema.get("items")
        if items is not None and not all(_fast_valid(items, v) for v in value):
            return False
    elif isinstance(value, Mapping):
        if kind not in (None, "object"):
            return False
        props = schema.get("properties", {})
        if any(k not in value for k in schema.get("required", ())):
            return False
        if schema.get("additionalProperties") is False and any(k not in props for k in value):
            return False
        if not all(_fast_valid(props[k], v) for k, v in value.items() if k in props):
            return False
    else:
        return False
    return True


def answer_violations(schema: Mapping[str, Any], answer: Any) -> list[Violation]:
    """Everything malformed in an answer, one violation per field; empty when well formed."""
    if not isinstance(answer, Mapping):
        return [Violation("", "answer must be a JSON object", "object", type(answer).__name__ if answer is not None else None)]
    if nesting_depth(answer) > MAX_DEPTH:
        return [Violation("", f"answer must not be nested more than {MAX_DEPTH} levels deep", f"<= {MAX_DEPTH} levels", "deeper")]
    try:
        if _fast_valid(schema, answer):
            return []
    except _Unsupported:
        pass
    numbers = number_violations(answer)
    bad = {v.field for v in numbers}
    rest = [v for v in schema_violations(schema, answer) if v.field not in bad]
    return sorted(numbers + rest, key=lambda v: v.field)
