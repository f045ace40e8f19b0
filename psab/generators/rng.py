"""Seeded randomness for held-out draws: one stream per (seed, family, index, attempt).

The stream comes from ``numpy.random.SeedSequence(entropy=seed, spawn_key=(family words,
index, attempt))``, so drawing one family never changes another's instances, and a redraw
(attempt 1, 2, ...) is as reproducible as the first draw.
"""

from __future__ import annotations

import hashlib

import numpy as np

from psab.errors import InvalidArgumentError


def seed_int(seed: int | str) -> int:
    """A non-negative integer from a seed given as an int, a decimal string or any passphrase."""
    if isinstance(seed, bool):
        raise InvalidArgumentError("a seed must be an integer or a string, not a boolean")
    if isinstance(seed, int):
        if seed < 0:
            raise InvalidArgumentError(f"a seed must be non-negative, got {seed}")
        return seed
    if isinstance(seed, str):
        text = seed.strip()
        if not text:
            raise InvalidArgumentError("a seed must not be empty")
        if text.isdigit():
            return int(text)
        return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest(), "big")
    raise InvalidArgumentError(f"a seed must be an integer or a string, not {type(seed).__name__}")


def family_words(family_id: str) -> tuple[int, int]:
    """Two 32-bit words identifying a family, stable across Python runs (unlike ``hash``)."""
    d = hashlib.sha256(family_id.encode("utf-8")).digest()
    return int.from_bytes(d[:4], "big"), int.from_bytes(d[4:8], "big")


def family_rng(seed: int | str, family_id: str, index: int, attempt: int = 0, level: int = 1) -> np.random.Generator:
    """The random generator of held-out draw ``index`` (redraw ``attempt``) of ``family_id`` at
    difficulty ``level``.

    Level 1 keeps the stream it always had (so level-1 cases, their keys and every seed
    commitment made before levels existed are unchanged); a higher level draws from its own
    stream, so the levels of one index are independent instances.
    """
    if index < 0 or attempt < 0:
        raise InvalidArgumentError("index and attempt must be non-negative")
    if isinstance(level, bool) or not isinstance(level, int) or level < 1:
        raise InvalidArgumentError(f"a difficulty level is an integer >= 1, got {level!r}")
    key = (*family_words(family_id), index, attempt) + ((level,) if level > 1 else ())
    ss = np.random.SeedSequence(entropy=seed_int(seed), spawn_key=key)
    return np.random.Generator(np.random.PCG64(ss))
