"""Generator validation (paper, section 8.3): are held-out draws solvable and genuinely varied?

For each family, K variants are drawn from one validation seed and summarized:

accepted
    variants produced within the redraw budget (the rest raised ``GenerationError``);
redraws
    draws rejected along the way (total; ``rejections`` breaks them down by kind);
reference feasible
    accepted variants whose reference — re-solved from a cold cache — is feasible with
    score 1 when evaluated, under every backend the draws were checked under (``judges``);
distinct
    distinct instances among the accepted variants, by :func:`instance_digest` (public inputs
    and key; the task id, which names the index, is left out);
differs from public
    accepted variants whose instance differs from the public case;
mean CV
    the mean coefficient of variation of the numeric inputs across the variants, defined
    below.

**Mean CV.** Flatten each accepted variant's ``public_inputs`` into numeric leaves (ints and
floats, not booleans) addressed by JSON pointer — where a list holds objects with distinct
string ``id`` fields (buses, branches, units) an element is addressed by its id
(``/branches/id=L1-2/r_pu``), so that a draw which adds or removes an element does not shift
its neighbours onto each other's values. Take the leaves present in every variant.
A leaf is *fixed case structure* — and left out — when it has the same value in every variant
and that value is also the public case's (a base MVA, a nominal voltage, a tap ratio of a
plain line); every other leaf varies, or should vary (equal across the variants but moved
from the public value). For each such leaf with values ``x_1..x_K``::

    CV = population std(x) / mean(|x|)

(``mean(|x|)`` rather than ``|mean(x)|`` keeps the CV finite for signed quantities such as a
phase shift drawn around zero; a leaf that is 0 in every variant has CV 0). The family's
mean CV is the plain average over those leaves; with no such leaf (a purely categorical
family) it is undefined and only the distinct count judges variety. The paper reports a mean
near 0.2 across its families.

A family **fails** when any variant is not accepted or its reference is not feasible with
score 1, when any variant equals the public case, when fewer than
``ceil(min_distinct_fraction · K)`` variants are distinct (``FamilySpec.min_distinct_fraction``,
1 by default), or when its mean CV is defined and below ``min_cv`` (default 0.01:
near-duplicates).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from psab.generators.acceptance import REJECTION_KINDS, instance_digest
from psab.generators.parallel import DrawOutcome
from psab.jsonpointer import pointer

#: Mean CV below which a family's variants count as near-duplicates.
DEFAULT_MIN_CV = 0.01
#: The validation seed of section 8.3 (public on purpose: validation is reproducible by anyone).
DEFAULT_VALIDATION_SEED = 20260803


@dataclass(frozen=True)
class FamilyValidation:
    """Section 8.3's numbers for one family, and why it failed (empty ``failures``: passed)."""

    family: str
    scoring_kind: str
    variants: int
    accepted: int
    redraws: int
    max_attempts: int
    rejections: dict[str, int]
    reference_feasible: int
    distinct: int
    min_distinct: int
    differs_from_public: int
    mean_cv: float | None
    cv_leaves: int
    failures: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    seconds: float = field(default=0.0, compare=False)
    level: int = 1
    #: The backends every variant was checked (and its reference re-judged) under.
    judges: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["failures"] = list(self.failures)
        out["errors"] = list(self.errors)
        out["judges"] = list(self.judges)
        out["passed"] = self.passed
        if self.mean_cv is not None:
            out["mean_cv"] = round(self.mean_cv, 6)
        out["seconds"] = round(self.seconds, 3)
        return out


def numeric_leaves(value: Any) -> dict[str, float]:
    """Every int/float leaf (booleans excluded) of a JSON value, by JSON pointer."""
    out: dict[str, float] = {}
    stack: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, bool) or v is None or isinstance(v, str):
            continue
        if isinstance(v, (int, float)):
            out[pointer(path)] = float(v)
        elif isinstance(v, Mapping):
            stack.extend(((*path, k), x) for k, x in v.items())
        elif isinstance(v, list):
            keyed = _by_id(v)
            if keyed is not None:
                stack.extend(((*path, k), x) for k, x in keyed.items())
            else:
                stack.extend(((*path, i), x) for i, x in enumerate(v))
    return out


def _by_id(items: list[Any]) -> dict[str, Any] | None:
    """A list of objects with distinct string ids, keyed ``id=<id>`` (else ``None``)."""
    if not items or not all(isinstance(x, Mapping) and isinstance(x.get("id"), str) for x in items):
        return None
    keyed = {f"id={x['id']}": x for x in items}
    return keyed if len(keyed) == len(items) else None


def coefficient_of_variation(values: Sequence[float]) -> float:
    """Population standard deviation over mean absolute value (0 when every value is 0)."""
    n = len(values)
    mean = math.fsum(values) / n
    scale = math.fsum(abs(x) for x in values) / n
    if scale == 0.0:
        return 0.0
    var = math.fsum((x - mean) ** 2 for x in values) / n
    return math.sqrt(var) / scale


def mean_cv(variants: Sequence[Mapping[str, Any]], public: Mapping[str, Any]) -> tuple[float | None, int]:
    """The mean CV of the numeric inputs across ``variants`` (see the module docstring) and
    the number of leaves it averages; ``(None, 0)`` when undefined."""
    if len(variants) < 2:
        return None, 0
    leaves = [numeric_leaves(v) for v in variants]
    base = numeric_leaves(public)
    common = set(leaves[0]).intersection(*leaves[1:])
    cvs = []
    for ptr in sorted(common):
        xs = [lv[ptr] for lv in leaves]
        if all(x == xs[0] for x in xs) and base.get(ptr, xs[0]) == xs[0]:
            continue  # fixed case structure
        cvs.append(coefficient_of_variation(xs))
    if not cvs:
        return None, 0
    return math.fsum(cvs) / len(cvs), len(cvs)


def summarize(family: str, scoring_kind: str, outcomes: Sequence[DrawOutcome], public_task: Any, *,
              min_distinct_fraction: float = 1.0, min_cv: float = DEFAULT_MIN_CV,
              public_digest: str | None = None) -> FamilyValidation:
    """One family's validation row from its K draw outcomes (validated draws).

    ``public_digest`` is the :func:`instance_digest` of ``public_task`` when the caller
    already has it (the acceptance loop caches it per family); computed here otherwise.
    """
    k = len(outcomes)
    ok = [o for o in outcomes if o.task is not None and o.error is None]
    accepted = len([o for o in outcomes if o.task is not None])
    rejections = {kind: 0 for kind in REJECTION_KINDS}
    for o in outcomes:
        for kind in o.rejection_kinds:
            rejections[kind] = rejections.get(kind, 0) + 1
    redraws = sum(len(o.rejection_kinds) for o in outcomes)
    feasible = sum(1 for o in ok if o.reference_feasible and o.reference_score == 1.0)
    if public_digest is None:
        public_digest = instance_digest(public_task)
    digests = [instance_digest(o.task) for o in ok]  # type: ignore[arg-type]
    distinct = len(set(digests))
    differs = sum(1 for d in digests if d != public_digest)
    min_distinct = max(1, math.ceil(min_distinct_fraction * k - 1e-9))
    cv, n_leaves = mean_cv([o.task.public_inputs for o in ok], public_task.public_inputs)  # type: ignore[union-attr]

    failures = []
    if accepted < k:
        failures.append(f"{k - accepted} of {k} variants not accepted within the redraw budget")
    if feasible < accepted:
        failures.append(f"the reference is not feasible with score 1 on {accepted - feasible} accepted variants")
    if differs < len(ok):
        failures.append(f"{len(ok) - differs} variants equal the public case")
    if distinct < min_distinct:
        failures.append(f"only {distinct} distinct instances of {k} (at least {min_distinct} expected)")
    if cv is not None and cv < min_cv:
        failures.append(f"mean CV {cv:.4g} < {min_cv:g}: the variants are near-duplicates")
    return FamilyValidation(
        family=family,
        scoring_kind=scoring_kind,
        variants=k,
        accepted=accepted,
        redraws=redraws,
        max_attempts=max((o.attempts for o in outcomes), default=0),
        rejections={kk: v for kk, v in rejections.items() if v},
        reference_feasible=feasible,
        distinct=distinct,
        min_distinct=min_distinct,
        differs_from_public=differs,
        mean_cv=cv,
        cv_leaves=n_leaves,
        failures=tuple(failures),
        errors=tuple(o.error for o in outcomes if o.error is not None),
        seconds=math.fsum(o.seconds for o in outcomes),
        judges=next((tuple(o.judges) for o in outcomes if o.judges), ()),
    )


def validate_generators(families: Sequence[str], variants: int, seed: int | str, *, backend: str = "surrogate",
                        workers: int = 1, dask: Any = None, min_cv: float = DEFAULT_MIN_CV,
                        start: int = 0, levels: Sequence[int] | None = None) -> list[FamilyValidation]:
    """Draw ``variants`` held-out cases of each family at each difficulty level and summarize
    them (section 8.3), one row per family and level. ``levels=None`` validates level 1; a
    level is validated for the families that offer it."""
    import dataclasses

    from psab.generators.acceptance import _public
    from psab.generators.parallel import draw
    from psab.registry import get_family

    rows = []
    for level in levels or (1,):
        fams = [f for f in families if level in get_family(f).levels]
        if not fams:
            continue
        outcomes = draw(fams, range(start, start + variants), seed, backend=backend, validate=True,
                        workers=workers, dask=dask, level=level)
        by_family: dict[str, list[DrawOutcome]] = {f: [] for f in fams}
        for o in outcomes:
            by_family[o.family].append(o)
        for fid in fams:
            spec = get_family(fid)
            public_task, public_digest = _public(spec)
            row = summarize(fid, spec.scoring_kind, by_family[fid], public_task,
                            min_distinct_fraction=spec.min_distinct_fraction, min_cv=min_cv,
                            public_digest=public_digest)
            rows.append(dataclasses.replace(row, level=level))
    return rows


def report(rows: Iterable[FamilyValidation], *, variants: int, seed_commitment: str, backend: str,
           min_cv: float) -> dict[str, Any]:
    """The machine-readable validation report (never the seed: its commitment)."""
    from psab.version import __version__

    rows = list(rows)
    return {
        "report": "psab-generator-validation-v1",
        "psab_version": __version__,
        "seed_commitment": seed_commitment,
        "variants": variants,
        "backend": backend,
        "min_cv": min_cv,
        "passed": all(r.passed for r in rows),
        "families": [r.to_dict() for r in rows],
        "totals": {
            "families": len(rows),
            "families_passed": sum(r.passed for r in rows),
            "variants": sum(r.variants for r in rows),
            "accepted": sum(r.accepted for r in rows),
            "reference_feasible": sum(r.reference_feasible for r in rows),
            "redraws": sum(r.redraws for r in rows),
            "families_all_distinct": sum(1 for r in rows if r.distinct == r.variants),
            "mean_cv": _mean([r.mean_cv for r in rows if r.mean_cv is not None]),
        },
    }


def _mean(xs: Sequence[float]) -> float | None:
    return round(math.fsum(xs) / len(xs), 6) if xs else None


def table_rows(rows: Iterable[FamilyValidation]) -> tuple[list[tuple[Any, ...]], tuple[str, ...]]:
    header = ("family", "level", "kind", "accepted", "redraws", "ref feasible", "distinct", "differs", "mean CV (leaves)", "draw time (s)", "verdict")
    out = []
    for r in rows:
        cv = "n/a" if r.mean_cv is None else f"{r.mean_cv:.3f} ({r.cv_leaves})"
        out.append((
            r.family, r.level, r.scoring_kind, f"{r.accepted}/{r.variants}", f"{r.redraws} (max {r.max_attempts} draws)",
            f"{r.reference_feasible}/{r.accepted}", f"{r.distinct}/{r.variants} (≥{r.min_distinct})",
            f"{r.differs_from_public}/{r.accepted}", cv, f"{r.seconds:.2f}", "ok" if r.passed else "FAIL",
        ))
    return out, header
