"""Seed commitment and held-out manifests (paper, sections 4.4 and 7).

Before a held-out round the operator publishes :func:`commitment` of the private seed; a run
records the commitment (never the seed) and the :func:`manifest` of the case digests it drew;
after the round, revealing the seed lets anyone check that it reproduces that manifest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from psab.contract import Task
from psab.generators.rng import seed_int

COMMITMENT_SCHEME = "psab-seed-commitment-v1"


def benchmark_version() -> str:
    """The version a commitment binds: psab's version (family versions are in the manifest)."""
    from psab import __version__

    return __version__


def commitment(seed: int | str, version: str | None = None) -> str:
    """``sha256(scheme : version : seed)`` as hex — publishable, reveals nothing of the seed."""
    v = version if version is not None else benchmark_version()
    text = f"{COMMITMENT_SCHEME}:{v}:{seed_int(seed)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def manifest_entry(task: Task, index: int) -> dict[str, Any]:
    """One held-out case in a manifest: family, family version, index and content digest."""
    return {"family": task.family, "family_version": task.family_version, "index": index, "task_digest": task.digest}


def manifest(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """A manifest in canonical order (family, index)."""
    return sorted(entries, key=lambda e: (e["family"], e["index"]))
