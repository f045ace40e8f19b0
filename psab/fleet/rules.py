"""Executing a type-level rule on a series: the single definition of when a rule fires.

A rule's condition holds at sample t when ``value[t] op threshold``. With a point condition of
``n`` consecutive points (PowerBench Table 6, "whether a single sample may fire;
consecutive-point count"), a *firing event* is a maximal run of samples where the condition
holds whose length is at least ``n``; the event *fires* at the n-th sample of the run (the first
moment the rule can know), starts at the run's first sample and lasts the run's length.
``n = 1`` is the single-point case. Missing values (NaN) never satisfy a condition and break runs.
Both the world generator (to write alarms) and the question generator (to compute truth) call
:func:`events`, so the documents and the keys cannot disagree about a firing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Event:
    """One firing event, in sample indices: ``start`` (first sample of the run), ``fire`` (the
    sample where the n-th consecutive point was seen), ``end`` (last sample of the run)."""

    start: int
    fire: int
    end: int
    peak: float

    @property
    def length(self) -> int:
        return self.end - self.start + 1


def condition(values: np.ndarray, op: str, threshold: float) -> np.ndarray:
    v = np.asarray(values, dtype=float)
    with np.errstate(invalid="ignore"):
        if op == ">=":
            return v >= threshold
        if op == "<=":
            return v <= threshold
        if op == ">":
            return v > threshold
        if op == "<":
            return v < threshold
    raise ValueError(f"unknown rule operator {op!r}")


def events(values: np.ndarray, op: str, threshold: float, consecutive_points: int) -> list[Event]:
    """The firing events of one rule on one series (module docstring)."""
    if consecutive_points < 1:
        raise ValueError("consecutive_points must be at least 1")
    v = np.asarray(values, dtype=float)
    c = condition(v, op, threshold)
    if not c.any():
        return []
    d = np.diff(np.concatenate(([0], c.view(np.int8), [0])))
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1) - 1
    out = []
    for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
        if e - s + 1 >= consecutive_points:
            seg = v[s:e + 1]
            peak = float(seg.max() if op in (">=", ">") else seg.min())
            out.append(Event(s, s + consecutive_points - 1, e, peak))
    return out
