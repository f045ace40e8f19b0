"""The acceptance loop of held-out generation (paper, section 4.4).

A held-out case is the family's public case with its numerical content redrawn by the
family's generator from a private seed. Draw ``attempt`` of case ``index`` is accepted only
when, in this order (cheapest first):

1. it is not the public case itself (a categorical family may redraw the public choice, and a
   memorised public answer must not score on the held-out split);
2. the family's reference solver solves it (a :class:`~psab.errors.SolverError`, or an
   arithmetic failure of the solver on a degenerate draw, is a rejection; a caller error such
   as a missing backend is not, and propagates);
3. the evaluator scores that reference feasible with score exactly 1;
4. the family's own rule passes (``FamilySpec.accept``: margins that keep the backends in
   agreement, non-degenerate answers);
5. the trivial answer — what a guesser writes without solving — does not score 1
   (:func:`trivial_answer`, or ``FamilySpec.trivial_answer``);
6. for optimize families, no answer in the reference's neighbourhood is feasible with a
   better objective (:func:`default_neighbourhood`, or ``FamilySpec.neighbourhood``).

Checks 2-6 run under every **judge** of the draw: each backend the family declares that is
installed here (:func:`judging_backends`), in the declared order — not only the backend the
round will be judged by. A draw is thus accepted only when it is sound under every backend it
may be judged by, and a round's tasks do not depend on which backend the caller chose (issue
33: drawn for the surrogate alone, a case14 switching draw had no AC-feasible action and could
not be judged under pandapower). The judges are recorded in a round's manifest, so the round
is redrawn with the same ones.

Otherwise the next attempt is drawn from the next deterministic stream
(:func:`~psab.generators.rng.family_rng` with ``attempt + 1``); exhausting the family's
``redraw_budget`` raises :class:`~psab.errors.GenerationError` naming the family and index.
Everything here is a pure function of (seed, family, index, level, judges), so a draw is the
same in any process, on any worker, in any order, for any backend among its judges.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from psab.contract import Task, digest
from psab.errors import (
    GenerationError,
    InvalidArgumentError,
    InvalidTaskError,
    PsabError,
    SolverError,
)
from psab.generators.rng import family_rng
from psab.jsonpointer import (
    Path,
    arrays,
    clone,
    get,
    leaves,
    pointer,
    put,
    replaced,
    resolve_schema,
    schema_at,
)
from psab.registry import FamilySpec, get_family

#: Relative and absolute size of the default neighbourhood's nudges of continuous decisions.
NUDGE_RELATIVE = 0.01
NUDGE_ABSOLUTE = 1e-3

#: Why a draw was redrawn, in the order the checks run.
REJECTION_KINDS = ("public", "solver", "reference", "family", "trivial", "neighbourhood")

@dataclass(frozen=True)
class Rejection:
    """Why one draw was redrawn: ``kind`` (one of :data:`REJECTION_KINDS`) and the detail."""

    kind: str
    reason: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.reason}"


@dataclass(frozen=True)
class Draw:
    """An accepted held-out task, how many draws it took, and why the others were rejected."""

    task: Task
    attempts: int
    rejections: tuple[str, ...]
    kinds: tuple[str, ...] = ()
    #: The backends the draw was checked under (:func:`judging_backends`).
    judges: tuple[str, ...] = ()

    @property
    def redraws(self) -> int:
        return self.attempts - 1


def heldout_task_id(family_id: str, index: int, level: int = 1) -> str:
    # The id names the family, the level (above 1) and the index only: never the seed.
    return f"{family_id}-heldout-{index:05d}" if level == 1 else f"{family_id}-heldout-L{level}-{index:05d}"


def draw_until_clear(draw: Callable[[], dict[str, Any]], problem: Callable[[dict[str, Any]], str | None],
                     tries: int) -> dict[str, Any]:
    """Inputs from ``draw()`` on which ``problem`` finds nothing, drawing at most ``tries`` times
    (cheap for a family whose ambiguity test needs no solve); the last draw otherwise — the
    family's ``accept`` then rejects it and the kernel redraws from the next stream."""
    for _ in range(tries):
        inputs = draw()
        if problem(inputs) is None:
            break
    return inputs


def _at_level(level: int) -> str:
    return "" if level == 1 else f", level {level}"


def check_level(spec: FamilySpec, level: int) -> None:
    """Refuse a difficulty level the family's generator does not offer."""
    if isinstance(level, bool) or not isinstance(level, int) or level not in spec.levels:
        raise InvalidArgumentError(
            f"family {spec.id} offers difficulty levels {', '.join(map(str, spec.levels))}; not {level!r}")


def instance_digest(task: Task) -> str:
    """Digest of what makes a case a distinct problem: its public inputs and its key.

    Unlike :attr:`Task.digest` it leaves out the id (which names the index), so two draws
    posing the same problem, or a draw equal to the public case, have the same digest.
    """
    return digest({"public_inputs": task.public_inputs, "key": task.key})


def _types(node: Mapping[str, Any] | None) -> set[str]:
    t = (node or {}).get("type")
    return {t} if isinstance(t, str) else set(t or ())


def _is_set(node: Mapping[str, Any] | None) -> bool:
    """An array of unique enumerated ids: a chosen subset (switches to open, FCI sites)."""
    items = resolve_schema((node or {}).get("items"))
    return bool(node and node.get("uniqueItems") and items and isinstance(items.get("enum"), list))


# ---------------------------------------------------------------------------- neighbourhood


def nudges(value: float, node: Mapping[str, Any] | None = None, *, integer: bool | None = None,
           relative: float = NUDGE_RELATIVE, absolute: float = NUDGE_ABSOLUTE) -> list[tuple[str, float]]:
    """The up and down nudges of one number, kept inside the schema's bounds.

    A continuous decision moves by ``max(relative·|x|, absolute)``; an integer decision
    (the schema says ``integer``; without a schema, a Python int) by 1. A nudge that would
    leave ``[minimum, maximum]`` is clipped to the bound, and dropped when the value already
    sits there — an answer outside the schema is infeasible by construction and would only
    waste an evaluation, while the inward move from a bound is the one that can matter.
    """
    types = _types(node)
    if integer is None:
        integer = "integer" in types if types else isinstance(value, int)
    step: float = 1 if integer else max(abs(value) * relative, absolute)
    lo = (node or {}).get("minimum")
    hi = (node or {}).get("maximum")
    ex_lo = (node or {}).get("exclusiveMinimum")
    ex_hi = (node or {}).get("exclusiveMaximum")
    out = []
    for sign, word in ((1, "up"), (-1, "down")):
        new = value + sign * step
        if not integer:
            new = float(new)
        if lo is not None and new < lo:
            new = lo
        if hi is not None and new > hi:
            new = hi
        if (ex_lo is not None and new <= ex_lo) or (ex_hi is not None and new >= ex_hi):
            continue
        if new != value:
            out.append((word, new))
    return out


def default_neighbourhood(answer: Mapping[str, Any], schema: Mapping[str, Any] | None = None,
                          ) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every single-decision perturbation of ``answer``, one at a time.

    - a continuous number nudged up and down (1 %, at least 1e-3, inside its schema bounds);
    - an integer moved by ±1 (inside its bounds);
    - a boolean flipped;
    - an enumerated choice replaced by each other allowed value;
    - a subset of enumerated ids (``uniqueItems`` array) with one id removed, one added, or
      one swapped for an absent one (the swap keeps the cardinality, which is what matters
      when the count is fixed, e.g. place exactly k indicators).

    ``schema`` is the task's submission schema; without it numbers are judged by their
    Python type and ids are not perturbed. Decisions coupled by an equality (power balance)
    cannot move one at a time: such a family adds moves along the equality, e.g. with
    :func:`transfers`, through ``FamilySpec.neighbourhood``.
    """
    base = dict(answer)
    sets: dict[Path, Mapping[str, Any]] = {}
    if schema is not None:
        for path, _ in arrays(base):
            node = schema_at(schema, path)
            if _is_set(node):
                sets[path] = node  # type: ignore[assignment]
    for path, value in leaves(base):
        if not path or path[:-1] in sets:
            continue
        node = schema_at(schema, path) if schema is not None else None
        where = pointer(path)
        if isinstance(value, bool):
            yield f"{where} flipped", replaced(base, path, not value)
            continue
        choices = (node or {}).get("enum")
        if isinstance(choices, list) and value in choices:
            for other in choices:
                if other != value:
                    yield f"{where} {value!r} -> {other!r}", replaced(base, path, other)
            continue
        if isinstance(value, (int, float)):
            for word, new in nudges(value, node):
                yield f"{where} nudged {word}", replaced(base, path, new)
    for path, node in sets.items():
        yield from _set_moves(base, path, node)


def _set_moves(answer: dict[str, Any], path: Path, node: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    chosen = list(get(answer, path))
    universe = resolve_schema(node.get("items"))["enum"]  # type: ignore[index]
    absent = [e for e in universe if e not in chosen]
    lo = int(node.get("minItems", 0))
    hi = int(node.get("maxItems", len(universe)))
    where = pointer(path)
    if len(chosen) > lo:
        for i, e in enumerate(chosen):
            yield f"{where} without {e!r}", replaced(answer, path, chosen[:i] + chosen[i + 1:])
    if len(chosen) < hi:
        for e in absent:
            yield f"{where} with {e!r}", replaced(answer, path, [*chosen, e])
    for i, e in enumerate(chosen):
        for other in absent:
            yield f"{where} {e!r} swapped for {other!r}", replaced(answer, path, chosen[:i] + [other] + chosen[i + 1:])


def transfers(answer: Mapping[str, Any], groups: Iterable[Sequence[Path]], *,
              relative: float = NUDGE_RELATIVE, absolute: float = NUDGE_ABSOLUTE) -> Iterator[tuple[str, dict[str, Any]]]:
    """Moves along an equality: shift a small amount from one decision of a group to another.

    ``groups`` lists, per balance equation, the paths of the decisions it couples (e.g. every
    unit's ``p_mw`` in hour 3). For each ordered pair ``(a, b)`` of a group, ``a`` goes down
    and ``b`` up by ``max(relative·max(|a|, |b|), absolute)``, so the sum is kept.
    """
    base = dict(answer)
    for group in groups:
        for a in group:
            for b in group:
                if a == b:
                    continue
                va, vb = get(base, a), get(base, b)
                step = max(relative * max(abs(va), abs(vb)), absolute)
                out = replaced(base, a, float(va - step))
                put(out, b, float(vb + step))
                yield f"{step:g} moved from {pointer(a)} to {pointer(b)}", out


class Moves(Sequence[tuple[str, dict[str, Any]]]):
    """A neighbourhood given as moves from one answer: neighbour ``k`` is ``answer`` with each
    ``delta`` of ``moves[k]`` added at its path (keys and list positions).

    It is a sequence of ``(description, answer)`` like any neighbourhood — each neighbour is
    built when it is read. With a ``screen`` (a :class:`psab.solvers.dispatch.LinearScreen`
    of the family's evaluator at ``answer``, or a function that builds one when acceptance
    asks), acceptance first judges all neighbours at once in matrix form (one sparse product
    instead of one evaluation per neighbour) and evaluates in full only those the screen cannot
    rule out (:func:`_beaten_by_neighbour`).
    """

    def __init__(self, answer: Mapping[str, Any],
                 moves: Sequence[tuple[str, Sequence[tuple[Path, float]] | dict[str, Any]]], screen: Any = None) -> None:
        self.answer = answer
        self.descriptions = [d for d, _ in moves]
        # a neighbour that is not a sum of deltas (a switched state) comes as a whole answer:
        # the screen cannot judge it, so it is always evaluated in full
        self.whole = [m if isinstance(m, dict) else None for _, m in moves]
        self.moves = [None if isinstance(m, dict) else m for _, m in moves]
        self.screen = screen

    def __len__(self) -> int:
        return len(self.moves)

    def __getitem__(self, k: int) -> tuple[str, dict[str, Any]]:  # type: ignore[override]
        whole = self.whole[k]
        if whole is not None:
            return self.descriptions[k], whole
        out = clone(self.answer)
        for path, delta in self.moves[k] or ():
            put(out, path, get(out, path) + delta)
        return self.descriptions[k], out


def neighbourhood(spec: FamilySpec, task: Task, answer: Mapping[str, Any]) -> Iterable[tuple[str, dict[str, Any]]]:
    """The family's declared neighbourhood of ``answer``, or the default one."""
    if spec.neighbourhood is not None:
        return spec.neighbourhood(task, dict(answer))
    return default_neighbourhood(answer, task.submission_schema)


# ---------------------------------------------------------------------------- trivial answer


class _Undefined(Exception):
    pass


def trivial_answer(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """The answer a guesser writes without solving, built from the submission schema.

    Numbers and integers are 0 (moved into their bounds: the lower bound when 0 is below
    it), booleans ``false``, enumerated choices their first value, subsets of ids empty (or
    the first ``minItems`` ids), fixed-length arrays filled with the trivial item, objects
    hold their required fields. ``None`` when the schema admits no such answer (an exclusive
    bound at 0, a required string without choices).

    Why it matters: a draw on which all zeros, "all secure" or "do nothing" scores 1 is
    degenerate — it tests nothing — so acceptance redraws it.
    """
    try:
        value = _trivial(schema)
    except _Undefined:
        return None
    return value if isinstance(value, dict) else None


def _trivial(node: Any) -> Any:
    node = resolve_schema(node)
    if node is None:
        raise _Undefined
    if "const" in node:
        return node["const"]
    if isinstance(node.get("enum"), list) and node["enum"]:
        return node["enum"][0]
    types = _types(node)
    if "object" in types or "properties" in node:
        props = node.get("properties") or {}
        return {k: _trivial(props.get(k)) for k in node.get("required", [])}
    if "array" in types or "items" in node:
        n = int(node.get("minItems", 0))
        items = resolve_schema(node.get("items"))
        if n == 0:
            return []
        if node.get("uniqueItems"):
            choices = (items or {}).get("enum")
            if not isinstance(choices, list) or len(choices) < n:
                raise _Undefined
            return list(choices[:n])
        return [_trivial(items) for _ in range(n)]
    if "boolean" in types:
        return False
    if types & {"number", "integer"}:
        value: float = 0
        lo, hi = node.get("minimum"), node.get("maximum")
        if lo is not None and value < lo:
            value = lo
        if hi is not None and value > hi:
            value = hi
        ex_lo, ex_hi = node.get("exclusiveMinimum"), node.get("exclusiveMaximum")
        if (ex_lo is not None and value <= ex_lo) or (ex_hi is not None and value >= ex_hi):
            raise _Undefined
        return value if "integer" in types else float(value)
    if "null" in types:
        return None
    raise _Undefined


def _is_single_choice(schema: Mapping[str, Any], answer: Mapping[str, Any]) -> bool:
    """Whether ``answer`` is one categorical decision (a verdict, a section id).

    Guessing such an answer is right 1/n of the time by nature; rejecting the draws where the
    first choice is right would only bias the held-out distribution away from it.
    """
    found = list(leaves(dict(answer)))
    if len(found) != 1:
        return False
    path, value = found[0]
    node = schema_at(schema, path)
    return isinstance(value, bool) or isinstance((node or {}).get("enum"), list)


def trivial_for(spec: FamilySpec, task: Task) -> dict[str, Any] | None:
    """The trivial answer acceptance checks for ``task`` (``None``: no check)."""
    if spec.trivial_answer is not None:
        return spec.trivial_answer(task)
    answer = trivial_answer(task.submission_schema)
    if answer is None or _is_single_choice(task.submission_schema, answer):
        return None
    return answer


# ---------------------------------------------------------------------------- acceptance


def judging_backends(spec: FamilySpec) -> tuple[str, ...]:
    """The backends a draw of ``spec`` is checked under: those it declares that are installed
    here, in the declared order (the surrogate, always installed, first where declared)."""
    from psab import backends

    return tuple(b for b in spec.backends if backends.available(b))


def check_judges(spec: FamilySpec, backend: str, judges: Sequence[str] | None) -> tuple[str, ...]:
    """``judges`` (default :func:`judging_backends`) after checking that each is declared by
    the family and installed, and that ``backend`` — the one the round is judged by — is one."""
    from psab import backends
    from psab.errors import BackendNotSupportedError

    backends.require(backend)  # the same errors as evaluate() for an unknown, missing or undeclared backend
    if backend not in spec.backends:
        raise BackendNotSupportedError(f"family {spec.id} supports backends {', '.join(spec.backends)}; not {backend!r}")
    found = judging_backends(spec) if judges is None else tuple(dict.fromkeys(judges))
    for b in found:
        if b not in spec.backends:
            raise BackendNotSupportedError(f"family {spec.id} supports backends {', '.join(spec.backends)}; not {b!r}")
        backends.require(b)
    if backend not in found:
        raise InvalidArgumentError(
            f"family {spec.id}: a draw for backend {backend!r} must be judged by it, but its draws are judged by "
            f"{', '.join(found) or 'no backend'}")
    return found


def rejection(spec: FamilySpec, task: Task, backend: str | Sequence[str], public_digest: str | None = None,
              ) -> Rejection | None:
    """Why ``task`` must be redrawn, or ``None`` when it is acceptable (checks 1-6 above),
    under ``backend`` or, given several, under each in turn (the reason then names it)."""
    if public_digest is not None and instance_digest(task) == public_digest:
        return Rejection("public", "the draw reproduces the public case")
    judges = (backend,) if isinstance(backend, str) else tuple(backend)
    for judge in judges:
        r = _rejection_under(spec, task, judge)
        if r is not None:
            return r if len(judges) == 1 else Rejection(r.kind, f"under {judge}: {r.reason}")
    return None


def _rejection_under(spec: FamilySpec, task: Task, backend: str) -> Rejection | None:
    """Checks 2-6 under one backend."""
    from psab.evaluators.kernel import assess_valid_answer, evaluate, reference_entry

    try:
        entry = reference_entry(spec, task, backend)
    except SolverError as exc:
        return Rejection("solver", f"reference solver failed: {exc}")
    except InvalidTaskError as exc:
        # The draw passed the inputs schema (checked before), so this is the solver finding the
        # drawn task unsound (no feasible answer, a network that cannot be judged): a redraw.
        return Rejection("solver", f"reference solver refused the draw: {exc}")
    except PsabError:
        raise
    except (ArithmeticError, ValueError, LookupError) as exc:
        # numpy's LinAlgError is a ValueError: a singular draw, not a broken generator.
        return Rejection("solver", f"reference solver raised {type(exc).__name__}: {exc}")
    try:
        result = evaluate(task, {"answer": entry.reference.answer}, backend)
    except InvalidTaskError as exc:  # the evaluator finds the drawn task unusable
        return Rejection("reference", f"the evaluator refused the draw: {exc}")
    if not result.perfect:
        first = result.violations[0].describe() if result.violations else ""
        return Rejection("reference", f"reference scored {result.score} (feasible={result.feasible}) {first}".strip())
    if spec.accept is not None:
        reason = spec.accept(task, entry.reference)
        if reason:
            return Rejection("family", reason)
    trivial = trivial_for(spec, task)
    # Assessed without validation first (it nearly always scores below 1); a 1 is confirmed by
    # the full evaluation, so an answer outside the schema can never reject a draw.
    if trivial is not None and assess_valid_answer(task, spec, backend, trivial).perfect:
        if evaluate(task, {"answer": trivial}, backend).perfect:
            return Rejection("trivial", "the trivial answer (zeros, first choices, empty sets) scores 1")
    # A study's reference decision is proven optimal over its catalogue; its neighbourhood
    # (each costing a re-simulation of every criterion) is searched only where it declares one.
    if spec.scoring_kind == "optimize" or (spec.scoring_kind == "study" and spec.neighbourhood is not None):
        beaten = _beaten_by_neighbour(spec, task, backend, entry)
        if beaten is not None:
            return Rejection("neighbourhood", beaten)
    return None


def _beaten_by_neighbour(spec: FamilySpec, task: Task, backend: str, entry: Any) -> str | None:
    """The first neighbour of the reference that is feasible with a better objective.

    Neighbours are assessed without schema validation — the default neighbourhood satisfies
    the schema by construction, and validation would be most of a draw's cost (a family's
    evaluator may then meet an answer outside the schema from a declared neighbourhood; the
    kernel turns a crash into an infeasible verdict). Only a neighbour that appears to win is
    re-judged by the full :func:`~psab.evaluators.kernel.evaluate`, so a draw is never
    rejected because of an answer the schema would refuse.
    """
    from psab.evaluators.kernel import assess_valid_answer, evaluate

    found = neighbourhood(spec, task, entry.reference.answer)
    candidates: Iterable[tuple[str, dict[str, Any]]] = found
    if isinstance(found, Moves) and found.screen is not None:
        candidates = _screened(spec, task, entry, found)
    for description, answer in candidates:
        r = assess_valid_answer(task, spec, backend, answer)
        if not (r.feasible and r.evidence.get("beats_reference")):
            continue
        r = evaluate(task, {"answer": answer}, backend)
        if r.feasible and r.evidence.get("beats_reference"):
            return f"a perturbation beats the reference ({description}: {r.evidence.get('objective')} vs {entry.objective})"
    return None


def _screened(spec: FamilySpec, task: Task, entry: Any, moves: Moves) -> Iterator[tuple[str, dict[str, Any]]]:
    """The neighbours the family's linear screen cannot rule out, in their order.

    The screen only drops a neighbour that is certainly infeasible or certainly not better
    (rounding allowed for), so the first neighbour the full evaluation finds beating the
    reference is the one the unscreened loop would find: the verdict and its text do not
    change, only the number of full evaluations.
    """
    from psab.evaluators.scoring import (
        DEFAULT_OBJECTIVE_ABSOLUTE,
        DEFAULT_OBJECTIVE_RELATIVE,
        optimize_score,
    )
    from psab.evaluators.tolerance import Tolerance

    reference = entry.objective
    sense = spec.objective_sense or "minimize"
    tol = Tolerance.from_task(task.tolerances).objective

    def beats(objective: float) -> bool:
        return optimize_score(objective, reference, sense=sense, scale_floor=spec.objective_scale_floor,
                              relative=float(tol.get("relative", DEFAULT_OBJECTIVE_RELATIVE)),
                              absolute=float(tol.get("absolute", DEFAULT_OBJECTIVE_ABSOLUTE))).beats_reference

    try:
        screen = moves.screen() if callable(moves.screen) else moves.screen
        keep = screen.may_win(moves.moves, beats, sense)
    except Exception:  # noqa: BLE001 - the screen only saves evaluations: if it cannot judge
        keep = None  # this answer (whatever the reason), every neighbour goes to the evaluator
    for k in range(len(moves)):
        if keep is None or keep[k]:
            yield moves[k]


def rejection_reason(spec: FamilySpec, task: Task, backend: str) -> str | None:
    """:func:`rejection` as text (``None`` when acceptable)."""
    r = rejection(spec, task, backend)
    return None if r is None else str(r)


_PUBLIC: dict[str, tuple[FamilySpec, Task, str]] = {}


def _public(spec: FamilySpec) -> tuple[Task, str]:
    """The family's public case and its instance digest, read once per process."""
    hit = _PUBLIC.get(spec.id)
    if hit is None or hit[0] is not spec:  # a family re-registered (in a test) is read again
        task = spec.public_task()
        hit = _PUBLIC[spec.id] = (spec, task, instance_digest(task))
    return hit[1], hit[2]


def generate(family_id: str, seed: int | str, index: int, backend: str = "surrogate", level: int = 1, *,
             judges: Sequence[str] | None = None) -> Draw:
    """Draw held-out case ``index`` of ``family_id`` at difficulty ``level`` under ``seed``,
    with acceptance under every one of ``judges`` (default: every declared backend installed
    here, :func:`judging_backends`), which must include ``backend``. The draw does not depend on
    ``backend``; ``judges=(backend,)`` reproduces a round drawn before draws had several judges.
    """
    spec = get_family(family_id)
    check_level(spec, level)
    found = check_judges(spec, backend, judges)
    public, public_digest = _public(spec)
    rejections: list[str] = []
    kinds: list[str] = []
    for attempt in range(spec.redraw_budget):
        rng = family_rng(seed, family_id, index, attempt, level)
        # Every draw gets its own copy of the public case: a generator that edits its input in
        # place must not make draw k depend on which draws this process made before it.
        fresh = dataclasses.replace(public, public_inputs=clone(public.public_inputs), key=clone(public.key))
        # A family with one level keeps the two-argument generator of the first families.
        drawn = spec.generate(fresh, rng, level) if len(spec.levels) > 1 else spec.generate(fresh, rng)
        task = spec.make_task(
            task_id=heldout_task_id(family_id, index, level),
            split="heldout",
            public_inputs=drawn.public_inputs,
            key=drawn.key,
        )
        try:
            spec.check_inputs(task)
        except InvalidTaskError as exc:
            raise GenerationError(
                f"family {family_id}{_at_level(level)}, index {index}, attempt {attempt}: the generator drew inputs "
                f"outside the family's input schema ({exc}); fix the generator"
            ) from None
        r = rejection(spec, task, found, public_digest)
        if r is None:
            return Draw(task, attempt + 1, tuple(rejections), tuple(kinds), found)
        rejections.append(f"attempt {attempt}: {r}")
        kinds.append(r.kind)
    tail = "; ".join(rejections[-3:])
    error = GenerationError(
        f"family {family_id}{_at_level(level)}, index {index}: no acceptable draw in {spec.redraw_budget} attempts ({tail})"
    )
    error.rejection_kinds = tuple(kinds)  # type: ignore[attr-defined] # for validation's tally
    raise error
