"""Answer validation: every malformed field of an answer becomes one violation.

The answer is first read once, iteratively and within fixed budgets, into a plain-JSON copy
(:func:`check_answer`): lengths and shapes are checked against the schema before elements
are read, Python objects that are not JSON become violations, and the violations listed are
capped with the rest counted. The copy then goes through two passes. The first walks it
for numbers JSON Schema lets through but physics cannot use — NaN, ±Infinity (Python's json
module reads them), and magnitudes beyond
:data:`MAX_MAGNITUDE`, which no quantity in a compact case reaches and which would overflow
the arithmetic downstream. The second validates against the task's submission schema with
jsonschema, reporting a missing field at its own pointer (``/schedule/3/p_mw``), an
unexpected field at its own pointer, and at most one violation per pointer.
"""

from __future__ import annotations

import itertools
import math
import numbers
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from psab.contract import MAX_ECHO_INT_BITS, OversizedNumber, Violation
from psab.evaluators.tolerance import field_pattern
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
        elif isinstance(v, OversizedNumber):
            out.append(Violation(ptr, f"magnitude must not exceed {MAX_MAGNITUDE:g}", f"|x| <= {MAX_MAGNITUDE:g}", repr(v)))
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


#: Most entries of a schema fragment (an enum's values, the allowed field names) echoed as a
#: violation's ``expected``: 50 violations each echoing a 1,008-value enum made a 7 KB answer's
#: result 1.6 MB (issue 32, item 9). The rest are counted, not copied.
MAX_ECHO_SCHEMA_ITEMS = 20


def echo_fragment(val: Any) -> Any:
    """``val`` (a fragment of the submission schema) as a violation echoes it: a list of at
    most :data:`MAX_ECHO_SCHEMA_ITEMS` entries and a note of how many there are in all; a
    mapping (a ``const`` object) by its size when it is larger than that."""
    if isinstance(val, list | tuple) and len(val) > MAX_ECHO_SCHEMA_ITEMS:
        return [*val[:MAX_ECHO_SCHEMA_ITEMS], f"… [{len(val)} values in all]"]
    if isinstance(val, Mapping) and len(val) > MAX_ECHO_SCHEMA_ITEMS:
        return f"an object of {len(val)} fields"
    return val


def _describe(err: Any) -> tuple[str, Any]:
    """A violation's constraint words and expected value from a jsonschema error."""
    constraint, expected = _describe_raw(err)
    return constraint, echo_fragment(expected)


def _describe_raw(err: Any) -> tuple[str, Any]:
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
                        Violation(ptr, "unexpected field (not in the submission schema)", echo_fragment(sorted(allowed)), name),
                    )
            continue
        ptr = pointer(base)
        if ptr in by_pointer:
            continue
        constraint, expected = _describe(err)
        found = err.instance
        if isinstance(found, (Mapping, list)) and _longer_than(found, 200):
            found = f"{type(found).__name__} of length {len(found)}"
        by_pointer[ptr] = Violation(ptr, constraint, expected, found)
    return [by_pointer[k] for k in sorted(by_pointer)]


_NUMBER_KEYWORDS = {"minimum": lambda x, b: x >= b, "maximum": lambda x, b: x <= b,
                    "exclusiveMinimum": lambda x, b: x > b, "exclusiveMaximum": lambda x, b: x < b}
_FAST_KEYWORDS = {"type", "enum", "const", "items", "properties", "required", "additionalProperties",
                  "minItems", "maxItems", "uniqueItems", *_NUMBER_KEYWORDS,
                  "description", "title", "$schema", "unit", "$comment",
                  # annotations only: the Russian wording of descriptions and titles
                  # (psab.evaluators.answer_schema.RU and RU_TITLE)
                  "x-description-ru", "x-title-ru"}


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


def _longer_than(value: Mapping[str, Any] | list[Any], limit: int) -> bool:
    """``len(str(value)) > limit`` without building the text of a large value.

    A lower bound on the text's length (a string its length and two quotes, an integer its
    digits, anything else one character; brackets, and ``", "`` or ``": "`` between items) is
    summed first, stopping once past ``limit``; only a value whose bound stays within it — a
    few short items — is printed to decide exactly. An integer too long to print (over 4300
    digits) is never printed.
    """
    total = 0
    stack: list[Any] = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            total += len(v) + 2
        elif isinstance(v, Mapping):
            total += 4 * len(v) if v else 2  # {} and per entry ": ", with ", " between
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            total += 2 * len(v) if v else 2  # [] and ", " between
            stack.extend(v)
        elif isinstance(v, int) and not isinstance(v, bool):
            total += max(1, int(v.bit_length() * 0.30102))
        else:
            total += 1
        if total > limit:
            return True
    return len(str(value)) > limit


# ------------------------------------------------------------------ bounded reading of an answer

#: An array longer than its ``maxItems`` is one violation and its items are not read. A
#: container where the schema admits none is one violation, unread, beyond this many items;
#: an object may hold this many fields its schema does not allow before the rest are counted
#: instead of read; and a container inside an unexpected field is read this far.
MAX_UNREAD_ITEMS = 100
#: Most unexpected fields read in one answer (each is one violation; the rest are counted),
#: and most values read inside them (they are checked for non-finite numbers only).
MAX_UNEXPECTED_FIELDS = 1000
MAX_OUTSIDE_VALUES = 1000
#: Strings longer than this are checked against their schema here (type, enum, const), not
#: by jsonschema.
MAX_READ_TEXT = 4096
#: Most values read from one answer (the largest answer a family asks for has a few thousand).
MAX_VALUES = 100_000
#: Most violations listed per field pattern (``/schedule/*/p_mw``, as tolerances key fields)
#: and per answer; the rest are counted in the result's ``evidence.violations_omitted``.
#: Above what any answer of the schema's own shape can produce (the largest reference answer
#: over the public and generated cases has 434 values, at most 36 under one pattern), so only
#: answers bigger than asked for are cut.
MAX_VIOLATIONS_PER_FIELD = 50
MAX_VIOLATIONS = 500

_OUTSIDE: Any = object()  # schema of a value no schema describes (an unexpected field's content)
_NOT_JSON = "must be a JSON value (object, array, string, number, boolean or null)"


def _too_wide(number: int) -> OversizedNumber:
    return OversizedNumber(int(number.bit_length() * 0.30103) + 1)  # about its digits


class _TooBig(Exception):
    def __init__(self, violation: Violation) -> None:
        super().__init__(violation.constraint)
        self.violation = violation


def _key_text(key: Any) -> str:
    if isinstance(key, float) or (isinstance(key, int) and key.bit_length() <= 64):
        return str(key)
    return f"<{type(key).__name__} key>"


def _misfit(schema: Any, value: Any) -> tuple[str, Any] | None:
    """The violation (constraint, expected) jsonschema reports first for a container or a
    string ``value`` where ``schema`` cannot admit it, or None when it might."""
    if not isinstance(schema, Mapping) or not _FAST_KEYWORDS.issuperset(schema):
        return None
    text = isinstance(value, str)
    kind = "string" if text else "object" if isinstance(value, Mapping) else "array"
    for key, val in schema.items():
        if key == "type" and isinstance(val, str) and val != kind:
            return f"must be of type {val}", val
        if key == "enum" and isinstance(val, list) and (
                not any(isinstance(x, str) and x == value for x in val) if text
                else not any(isinstance(x, (Mapping, list)) for x in val)):
            return "must be one of the allowed values", val
        if key == "const" and (val != value if text else not isinstance(val, (Mapping, list))):
            return "must equal the required value", val
    return None


class _Reader:
    """One bounded, iterative pass over an answer that builds its plain-JSON copy.

    The copy holds only ``dict`` (string keys), ``list``, ``str``, ``int``, ``float``, ``bool``
    and ``None`` (and :class:`~psab.contract.OversizedNumber` markers); whatever else the
    Python API was handed is coerced (integral and real numbers, subclasses of the JSON
    types, tuples) or becomes a violation at its pointer with ``None`` in the copy (``complex``,
    sets, other objects, a mapping or sequence that raises when read, a non-string key).
    """

    def __init__(self) -> None:
        self.violations: dict[str, Violation] = {}
        self.omitted = 0
        self.values = 0
        self.outside = 0
        self.unexpected = 0

    def own(self, ptr: str, constraint: str, expected: Any, found: Any) -> None:
        self.violations.setdefault(ptr, Violation(ptr, constraint, echo_fragment(expected), found))

    def read(self, schema: Any, answer: Any) -> Any:
        holder: list[Any] = [None]
        stack: list[tuple[Any, Any, str, int, Any, Any]] = [(answer, schema, "", 0, holder, 0)]
        while stack:
            value, sch, ptr, depth, parent, key = stack.pop()
            if sch is _OUTSIDE:
                self.outside += 1
                if self.outside > MAX_OUTSIDE_VALUES:
                    continue  # its placeholder None stays: nothing to report inside
            self.values += 1
            if self.values > MAX_VALUES:
                raise _TooBig(Violation("", f"answer must not hold more than {MAX_VALUES} values",
                                        f"<= {MAX_VALUES} values", "more"))
            if depth > MAX_DEPTH:
                raise _TooBig(Violation("", f"answer must not be nested more than {MAX_DEPTH} levels deep",
                                        f"<= {MAX_DEPTH} levels", "deeper"))
            kind = type(value)
            if kind is str and len(value) > MAX_READ_TEXT and sch is not _OUTSIDE:
                # jsonschema would print the whole string into its message (twice its size
                # in memory); a long string the schema cannot admit is judged here instead.
                misfit = _misfit(sch, value)
                if misfit is not None:
                    self.own(ptr, misfit[0], misfit[1], value)
                parent[key] = None if misfit is not None else value
            elif kind is int and value.bit_length() > MAX_ECHO_INT_BITS:
                # too wide to print (jsonschema's messages would raise): kept as the marker
                # an over-long literal in a file becomes
                parent[key] = _too_wide(value)
            elif value is None or kind is str or kind is float or kind is int or kind is bool or kind is OversizedNumber:
                parent[key] = value
            elif isinstance(value, Mapping):
                parent[key] = self._mapping(value, sch, ptr, depth, stack)
            elif isinstance(value, (list, tuple)):
                parent[key] = self._sequence(value, sch, ptr, depth, stack)
            else:
                parent[key] = self._scalar(value, ptr)
        return holder[0]

    def _scalar(self, value: Any, ptr: str) -> Any:
        try:
            if isinstance(value, str):
                return str.__str__(value)
            if isinstance(value, numbers.Integral):
                number = operator.index(value)
                return number if number.bit_length() <= MAX_ECHO_INT_BITS else _too_wide(number)
            if isinstance(value, numbers.Real):
                return float(value)
        except Exception:  # noqa: BLE001, S110 - a number type that cannot convert is not JSON
            pass
        self.own(ptr, _NOT_JSON, "JSON value", type(value).__name__)
        return None

    def _mapping(self, value: Mapping[Any, Any], sch: Any, ptr: str, depth: int, stack: list[Any]) -> Any:
        try:
            n = len(value)
            props: Mapping[str, Any] = {}
            closed = outside = False
            if sch is _OUTSIDE:
                outside = True
            elif isinstance(sch, Mapping):
                misfit = _misfit(sch, value)
                if misfit is not None and n > MAX_UNREAD_ITEMS:
                    self.own(ptr, misfit[0], misfit[1], f"dict of length {n}")
                    return None
                outside = misfit is not None
                p = sch.get("properties")
                props = p if isinstance(p, Mapping) else {}
                closed = sch.get("additionalProperties") is False and "patternProperties" not in sch
            if outside:
                entries = list(itertools.islice(value.items(), MAX_UNREAD_ITEMS))
            elif closed and n > len(props):
                unexpected = n - sum(1 for k in props if k in value)
                allowed = max(0, min(MAX_UNREAD_ITEMS, MAX_UNEXPECTED_FIELDS - self.unexpected))
                self.unexpected += min(unexpected, allowed)
                if unexpected <= allowed:
                    entries = list(value.items())
                else:
                    # More unexpected fields than will be read: the schema's fields, then the
                    # first unexpected ones; the rest are counted (one violation each).
                    entries = [(k, value[k]) for k in props if k in value]
                    extra = list(itertools.islice((k for k in value if k not in props), allowed))
                    entries += [(k, value[k]) for k in extra]
                    self.omitted += unexpected - allowed
            else:
                entries = list(itertools.islice(value.items(), MAX_VALUES + 1))
        except Exception as exc:  # noqa: BLE001 - a mapping that raises when read is malformed
            self.own(ptr, "must be a JSON object whose fields can be read", "JSON object",
                     f"{type(value).__name__} raising {type(exc).__name__}")
            return None
        out: dict[str, Any] = {}
        for k, v in entries:
            if isinstance(k, str):
                k = str.__str__(k)
            else:
                self.own(f"{ptr}/{escape(_key_text(k))}", "object keys must be strings", "string", type(k).__name__)
                continue
            if outside:
                child = _OUTSIDE
            elif k in props:
                child = props[k]
            else:
                child = _OUTSIDE if closed else None
            out[k] = None
            stack.append((v, child, f"{ptr}/{escape(k)}", depth + 1, out, k))
        return out

    def _sequence(self, value: list[Any] | tuple[Any, ...], sch: Any, ptr: str, depth: int, stack: list[Any]) -> Any:
        try:
            n = len(value)
            outside = sch is _OUTSIDE
            items: Any = None
            if isinstance(sch, Mapping):
                most = sch.get("maxItems")
                if isinstance(most, int) and n > most:
                    self.own(ptr, f"must have at most {most} items", most, _found_list(value, n))
                    return None
                misfit = _misfit(sch, value)
                if misfit is not None and n > MAX_UNREAD_ITEMS:
                    self.own(ptr, misfit[0], misfit[1], f"list of length {n}")
                    return None
                outside = misfit is not None
                items = sch.get("items")
            elements = list(itertools.islice(value, MAX_UNREAD_ITEMS if outside else MAX_VALUES + 1))
        except Exception as exc:  # noqa: BLE001 - a sequence that raises when read is malformed
            self.own(ptr, "must be a JSON array whose items can be read", "JSON array",
                     f"{type(value).__name__} raising {type(exc).__name__}")
            return None
        child = _OUTSIDE if outside else (items if isinstance(items, Mapping) else None)
        out: list[Any] = [None] * len(elements)
        for i, v in enumerate(elements):
            stack.append((v, child, f"{ptr}/{i}", depth + 1, out, i))
        return out


def _found_list(value: list[Any] | tuple[Any, ...], n: int) -> Any:
    """What jsonschema would report as ``found`` for an array it was not given to read: the
    array when it prints in 200 characters, else ``"list of length n"`` (as
    :func:`schema_violations` does)."""
    if 3 * n > 200:  # each item prints as at least one character and a ", "
        return f"list of length {n}"
    try:
        copy = _Reader().read(_OUTSIDE, value)
    except _TooBig:
        return f"list of length {n}"
    return f"list of length {n}" if _longer_than(copy, 200) else copy


@dataclass(frozen=True)
class AnswerCheck:
    """The outcome of :func:`check_answer`."""

    #: The answer as plain JSON values (what a family evaluates when there is no violation).
    answer: Any
    #: The violations listed, sorted by field, at most :data:`MAX_VIOLATIONS_PER_FIELD` per
    #: field pattern and :data:`MAX_VIOLATIONS` in all.
    violations: list[Violation]
    #: Violations found (listed or not); a lower bound where a part was not read.
    found: int
    #: Violations found but not listed.
    omitted: int


def _capped(violations: list[Violation]) -> list[Violation]:
    per_field: dict[str, int] = {}
    out: list[Violation] = []
    for v in violations:
        if len(out) >= MAX_VIOLATIONS:
            break
        pattern = field_pattern(v.field)
        if per_field.get(pattern, 0) < MAX_VIOLATIONS_PER_FIELD:
            per_field[pattern] = per_field.get(pattern, 0) + 1
            out.append(v)
    return out


def check_answer(schema: Mapping[str, Any], answer: Any) -> AnswerCheck:
    """Validate an answer at bounded cost, whatever it is; see :func:`answer_violations`.

    The answer is read once (iteratively, at most :data:`MAX_VALUES` values and
    :data:`MAX_DEPTH` levels) into a plain-JSON copy, checking lengths and shapes against the
    schema *before* reading elements, so that a 10⁶-item array or an object of 10⁵ unexpected
    fields costs what a small one does; the copy is then validated as before.
    """
    if not isinstance(answer, Mapping):
        v = Violation("", "answer must be a JSON object", "object", type(answer).__name__ if answer is not None else None)
        return AnswerCheck(answer, [v], 1, 0)
    reader = _Reader()
    try:
        plain = reader.read(schema, answer)
    except _TooBig as big:
        return AnswerCheck(None, [big.violation], 1, 0)
    if not reader.violations and not reader.omitted:
        try:
            if _fast_valid(schema, plain):
                return AnswerCheck(plain, [], 0, 0)
        except _Unsupported:
            pass
    numbers_ = number_violations(plain)
    bad = {v.field for v in numbers_} | set(reader.violations)
    rest = [v for v in schema_violations(schema, plain) if v.field not in bad]
    found = sorted(numbers_ + list(reader.violations.values()) + rest, key=lambda v: v.field)
    listed = _capped(found)
    omitted = len(found) - len(listed) + reader.omitted
    return AnswerCheck(plain, listed, len(found) + reader.omitted, omitted)


def answer_violations(schema: Mapping[str, Any], answer: Any) -> list[Violation]:
    """Everything malformed in an answer, one violation per field; empty when well formed.

    At most :data:`MAX_VIOLATIONS_PER_FIELD` per field pattern and :data:`MAX_VIOLATIONS` in
    all are listed (:func:`check_answer` counts the rest).
    """
    return check_answer(schema, answer).violations
