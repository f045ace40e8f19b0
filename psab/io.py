"""Reading tasks and solutions from files, dicts or objects (the public API's coercions)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from psab.contract import OversizedNumber, Solution, Task, read_json
from psab.errors import InvalidArgumentError, InvalidTaskError


def load_case(path: str | Path) -> Task:
    """Load a task from a case directory (``task.json`` + optional ``key.json``) or a
    ``task.json`` file (its sibling ``key.json`` is read when present)."""
    p = Path(path)
    if p.is_dir():
        task_file = p / "task.json"
        if not task_file.is_file():
            raise InvalidArgumentError(f"{p}: a case directory must contain task.json")
    elif p.is_file():
        task_file = p
    else:
        raise InvalidArgumentError(f"{p}: no such case directory or task file")
    key_file = task_file.parent / "key.json"
    key = read_json(key_file) if key_file.is_file() and task_file.name == "task.json" else None
    try:
        return Task.from_dict(read_json(task_file), key=key)
    except InvalidTaskError as exc:
        raise InvalidTaskError(f"{task_file}: {exc}") from None


def as_task(task: Task | Mapping[str, Any] | str | Path) -> Task:
    """Accept a :class:`Task`, its agent-view dict (optionally with a ``"key"`` entry), or a path."""
    if isinstance(task, Task):
        return task
    if isinstance(task, Mapping):
        data = dict(task)
        key = data.pop("key", None)
        return Task.from_dict(data, key=key)
    if isinstance(task, (str, Path)):
        return load_case(task)
    raise InvalidArgumentError(f"a task must be a psab.Task, a dict or a path, not {type(task).__name__}")


class SolutionProblem(Exception):
    """Internal: the solution itself is unusable (agent's doing); becomes a violation."""

    def __init__(self, constraint: str, found: Any) -> None:
        super().__init__(constraint)
        self.constraint = constraint
        self.found = found


#: Most JSON values and object keys a solution document may hold, as bounded by its
#: punctuation (see :func:`_value_count_exceeds`; ``[{},{}]`` counts 4). Parsing builds one
#: Python object per value — about 60 bytes each for ``{}`` or ``[]`` — so an 8 MB document
#: of ``{},{},...`` would take ~300 MB before anything could be checked; at this bound the
#: worst document takes ~40 MB, while the largest answer any family asks for has under a
#: thousand values and the issue's 100,000-``{}`` schedule still reaches validation.
MAX_SOLUTION_VALUES = 500_000

_STRING = re.compile(r'"[^"]*"')
_TOKENS = (",", ":", "[", "{")


def _value_count_exceeds(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` holds more than ``limit`` values and keys, judged without parsing.

    Every value or key but the first follows a ``,``, ``:``, ``[`` or ``{`` outside a string,
    so their count bounds the total. Counted over the whole text first (cheap, and enough
    unless punctuation inside strings — prose in a rationale — pushes it over); only then are
    the strings cut out and the count repeated: after removing escaped backslashes and
    quotes, every remaining ``"`` delimits a string (each string is a value or key too, so
    more strings than ``limit`` settles it without the cut).
    """
    if sum(text.count(t) for t in _TOKENS) < limit:
        return False
    bare = text.replace("\\\\", "").replace('\\"', "")
    if bare.count('"') // 2 > limit:
        return True
    outside = _STRING.sub("", bare)
    return sum(outside.count(t) for t in _TOKENS) >= limit


#: Longest integer literal converted to an ``int``. Python refuses more than 4300 digits
#: (``ValueError: Exceeds the limit``), and conversion time grows with the square of the
#: length (8 MB of 4,299-digit literals took over 1 s); any integer past 1e12 is an invalid
#: magnitude anyway, so a longer literal is kept as a marker validation reports at its field.
MAX_INT_LITERAL_CHARS = 100


def _int_or_oversized(literal: str) -> Any:
    if len(literal) > MAX_INT_LITERAL_CHARS:
        return OversizedNumber(len(literal))
    return int(literal)


#: Deepest nesting of a solution document the parser reads, whatever the depth of the call
#: stack it is parsed from (the runner and the CLI parse a few dozen frames deep, where
#: Python's default limit of 1000 frames stopped a valid 990-deep document). Validation then
#: reports anything nested past its own bound (``validation.MAX_DEPTH``) at its field.
MAX_SOLUTION_DEPTH = 1000

#: The UTF-8 encoding of U+FEFF, which some editors and Windows tools put before a document.
UTF8_BOM = "\ufeff"
BOM_NOTE = "the solution file began with a UTF-8 byte order mark (U+FEFF); it was ignored"


def _stack_depth() -> int:
    frame, n = sys._getframe(), 0
    while frame is not None:
        frame, n = frame.f_back, n + 1
    return n


def parse_solution_document(text: str | bytes) -> tuple[Any, tuple[str, ...]]:
    """:func:`parse_solution_text` with notes on what was tolerated (a leading byte order mark)."""
    notes: tuple[str, ...] = ()
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        if text.startswith(UTF8_BOM):
            # RFC 8259 §8.1: parsers MAY ignore a BOM; the answer is the same document.
            text, notes = text[1:], (BOM_NOTE,)
        if _value_count_exceeds(text, MAX_SOLUTION_VALUES):
            raise SolutionProblem("solution must not hold more than " f"{MAX_SOLUTION_VALUES} JSON values",
                                  f"more than {MAX_SOLUTION_VALUES} values")
        # The parser recurses once per level: give it MAX_SOLUTION_DEPTH levels above the
        # frames already in use, so the verdict does not depend on who calls.
        limit = sys.getrecursionlimit()
        needed = _stack_depth() + MAX_SOLUTION_DEPTH + 50
        if needed > limit:
            sys.setrecursionlimit(needed)
        try:
            return json.loads(text, parse_int=_int_or_oversized), notes
        finally:
            if needed > limit:
                sys.setrecursionlimit(limit)
    except RecursionError:
        # nesting deeper than MAX_SOLUTION_DEPTH ('[' * 100000) — still the agent's malformed
        # document, not a reason to crash the caller.
        raise SolutionProblem(f"solution must not be nested more than {MAX_SOLUTION_DEPTH} levels deep",
                              f"deeper than {MAX_SOLUTION_DEPTH} levels") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SolutionProblem("solution file must be a UTF-8 JSON document", f"{type(exc).__name__}: {exc}") from None


def parse_solution_text(text: str | bytes) -> Any:
    """Parse a solution document an agent wrote, without letting it crash or exhaust the caller.

    Raises :class:`SolutionProblem` for text that is not UTF-8 JSON, is nested deeper than
    :data:`MAX_SOLUTION_DEPTH`, or holds more than :data:`MAX_SOLUTION_VALUES` values. A leading
    UTF-8 byte order mark is ignored (:func:`parse_solution_document` reports it). An integer
    literal longer than :data:`MAX_INT_LITERAL_CHARS` (a 5,000-digit one would raise
    ``ValueError: Exceeds the limit (4300 digits)``) does not fail the document: it is read as
    an :class:`~psab.contract.OversizedNumber`, which validation reports at its own field (and
    which is harmless anywhere not scored). Float literals need no bound: ``float()`` reads
    any length in linear time (an 8 MB one in ~15 ms), rounding to ±inf at worst.
    """
    return parse_solution_document(text)[0]


def as_solution(solution: Solution | Mapping[str, Any] | str | Path | Any) -> Solution:
    """Accept a :class:`Solution`, a dict, or a path to a solution file.

    A missing file is the caller's error; a file that is not JSON, or JSON that is not an
    object, is the agent's — :class:`SolutionProblem`, which the evaluator reports as a
    violation. So is a mapping that cannot be read (its ``get`` raises).
    """
    if isinstance(solution, Solution):
        return solution
    if isinstance(solution, Mapping):
        try:
            return Solution.from_dict(solution)
        except Exception as exc:  # noqa: BLE001 - a hostile mapping is a malformed solution
            raise SolutionProblem("solution must be a JSON object with an 'answer' object",
                                  f"unreadable {type(solution).__name__} ({type(exc).__name__})") from None
    if isinstance(solution, (str, Path)):
        p = Path(solution)
        if not p.is_file():
            raise InvalidArgumentError(f"{p}: no such solution file")
        data, notes = parse_solution_document(p.read_bytes())
        if not isinstance(data, Mapping):
            raise SolutionProblem("solution must be a JSON object with an 'answer' object", type(data).__name__)
        return replace(Solution.from_dict(data), notes=notes)
    raise SolutionProblem("solution must be a JSON object with an 'answer' object", type(solution).__name__)
