"""Seed commitment and held-out manifests (paper, sections 4.4 and 7).

Before a held-out round the operator publishes :func:`commitment` of the private seed; a run
records the commitment (never the seed) and the :func:`manifest` of the case digests it drew;
after the round, revealing the seed lets anyone check that it reproduces that manifest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from psab.contract import Task
from psab.generators.rng import seed_int

COMMITMENT_SCHEME = "psab-seed-commitment-v1"


def benchmark_version() -> str:
    """The version a commitment binds: psab's version (family versions are in the manifest)."""
    from psab.version import __version__

    return __version__


def commitment(seed: int | str, version: str | None = None) -> str:
    """``sha256(scheme : version : seed)`` as hex — publishable, reveals nothing of the seed."""
    v = version if version is not None else benchmark_version()
    text = f"{COMMITMENT_SCHEME}:{v}:{seed_int(seed)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def manifest_entry(task: Task, index: int, level: int = 1) -> dict[str, Any]:
    """One held-out case in a manifest: family, family version, index, difficulty level (only
    above 1, so manifests of level-1 rounds read as they always did) and content digest."""
    entry = {"family": task.family, "family_version": task.family_version, "index": index, "task_digest": task.digest}
    return entry | ({"level": level} if level != 1 else {})


def _where(e: dict[str, Any]) -> tuple[str, int, int]:
    return e["family"], e.get("level", 1), e["index"]


def manifest(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """A manifest in canonical order (family, level, index)."""
    return sorted(entries, key=_where)


# ---------------------------------------------------------------------------- private seeds

#: A seed with fewer bits than this can be recovered from its commitment by trying every
#: value (2**40 SHA-256 evaluations take hours on one GPU), which would reveal a round's
#: held-out cases before the round: ``psab seed commit`` refuses it unless told otherwise.
STRONG_SEED_BITS = 64
#: A passphrase shorter than this is treated as guessable.
STRONG_PASSPHRASE_CHARS = 20


def new_seed(bits: int = 128) -> str:
    """A fresh private seed: ``bits`` random bits from the OS, as a decimal string."""
    import secrets

    return str(secrets.randbits(bits) | (1 << (bits - 1)))


def weak_seed_reason(seed: int | str) -> str | None:
    """Why ``seed`` is too guessable to commit to publicly, or ``None`` when it is strong.

    A commitment is a plain hash of the seed, so it hides the seed only when the seed cannot
    be enumerated: an integer needs at least :data:`STRONG_SEED_BITS` bits, a passphrase at
    least :data:`STRONG_PASSPHRASE_CHARS` characters.
    """
    if isinstance(seed, str) and not seed.strip().isdigit():
        n = len(seed.strip())
        if n < STRONG_PASSPHRASE_CHARS:
            return f"a {n}-character passphrase can be guessed (use at least {STRONG_PASSPHRASE_CHARS})"
        return None
    bits = seed_int(seed).bit_length()
    if bits < STRONG_SEED_BITS:
        return f"a {bits}-bit seed can be recovered from its commitment by trying every value (use at least {STRONG_SEED_BITS} bits)"
    return None


class PrivateSeed:
    """A seed that does not print itself.

    Work sent to local or Dask workers carries the seed; wrapping it keeps it out of reprs,
    logs and dashboards (a Dask worker logs a failed task's arguments), which show the
    commitment prefix instead. A passphrase is reduced to its integer form at once, so the
    passphrase itself never leaves the calling process.
    """

    __slots__ = ("_value",)

    def __init__(self, seed: int | str | PrivateSeed) -> None:
        self._value = seed._value if isinstance(seed, PrivateSeed) else seed_int(seed)

    def reveal(self) -> int:
        """The seed, for :func:`psab.generators.rng.family_rng` only."""
        return self._value

    def __repr__(self) -> str:
        return f"PrivateSeed(commitment={commitment(self._value)[:12]}…)"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return (PrivateSeed, (self._value,))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PrivateSeed) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("PrivateSeed", self._value))


# ---------------------------------------------------------------------------- round manifests

MANIFEST_SCHEME = "psab-heldout-manifest-v1"


def round_manifest(seed: int | str | PrivateSeed, *, families: Iterable[str], start: int, count: int,
                   backend: str, entries: Iterable[dict[str, Any]],
                   judges: dict[str, Iterable[str]] | None = None) -> dict[str, Any]:
    """The publishable record of a held-out round: what was drawn, never the seed.

    ``entries`` are :func:`manifest_entry` dicts of the drawn tasks; ``judges`` names, per
    family, the backends every draw was checked under (those installed when the round was
    drawn: a redraw must use the same ones to reproduce it). The commitment binds the seed to
    the psab version that drew the round; ``psab seed verify`` redraws every case.
    """
    value = PrivateSeed(seed).reveal()
    version = benchmark_version()
    doc = {
        "manifest": MANIFEST_SCHEME,
        "psab_version": version,
        "commitment": commitment(value, version),
        "backend": backend,
        "families": list(families),
        "start": start,
        "count": count,
        "cases": manifest(entries),
    }
    if judges is not None:
        doc["judges"] = {f: list(b) for f, b in judges.items()}
    return doc


def manifest_judges(doc: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """The backends each family's draws of a published round were checked under. A manifest
    written before draws had several judges (no ``judges``) was checked under its ``backend``
    alone, which is what redraws it."""
    recorded = doc.get("judges")
    families = {c["family"] for c in doc.get("cases", [])}
    if isinstance(recorded, dict):
        return {f: tuple(recorded.get(f, ())) for f in families}
    return {f: (str(doc.get("backend", "surrogate")),) for f in families}


def outcome_judges(outcomes: Iterable[Any]) -> dict[str, tuple[str, ...]]:
    """Per family, the judges its drawn outcomes report (one set per family: a round whose
    workers judged one family differently is refused, since its draws would not be one round)."""
    from psab.errors import GenerationError

    out: dict[str, tuple[str, ...]] = {}
    for o in outcomes:
        if o.task is None:
            continue
        seen = out.setdefault(o.family, tuple(o.judges))
        if seen != tuple(o.judges):
            raise GenerationError(f"family {o.family}: draws were judged by {', '.join(seen)} on one worker and by "
                                  f"{', '.join(o.judges)} on another; install the same backends on every worker")
    return out


@dataclass(frozen=True)
class Verification:
    """The outcome of checking a revealed seed against a published round."""

    ok: bool
    checked: int
    problems: tuple[str, ...]


def check_commitment(seed: int | str | PrivateSeed, doc: dict[str, Any], published: str | None) -> list[str]:
    """Commitment problems: the manifest's and the separately published one must both match."""
    value = PrivateSeed(seed).reveal()
    problems = []
    expected = commitment(value, str(doc.get("psab_version", "")))
    if doc.get("commitment") != expected:
        problems.append("the seed does not match the manifest's commitment")
    if published is not None and published.strip().lower() != expected:
        problems.append("the seed does not match the published commitment")
    return problems


def compare_cases(expected: Iterable[dict[str, Any]], redrawn: Iterable[dict[str, Any]]) -> list[str]:
    """Per-case differences between a manifest's cases and the same cases redrawn now."""
    problems = []
    now = {_where(e): e for e in redrawn}
    for e in expected:
        got = now.get(_where(e))
        where = f"{e['family']} index {e['index']}" + (f" level {e['level']}" if e.get("level", 1) != 1 else "")
        if got is None:
            problems.append(f"{where}: not redrawn")
        elif got["task_digest"] != e["task_digest"]:
            extra = ""
            if got["family_version"] != e["family_version"]:
                extra = f" (drawn with family version {e['family_version']}, now {got['family_version']})"
            problems.append(f"{where}: the redrawn case differs{extra}")
    return problems
