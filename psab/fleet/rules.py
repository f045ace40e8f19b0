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


#: Derived-metric kinds (PowerBench Table 6 "Inputs: atomic and/or derived metric names").
DERIVED_KINDS = ("diff", "ratio", "delta", "mean", "hours_above")


def derived_series(kind: str, inputs: dict[str, np.ndarray] | list[np.ndarray], window_h: int = 0,
                   scale: float = 1.0, level: float = 0.0) -> np.ndarray:
    """A derived series from hourly inputs, causal (sample t uses samples <= t only, so a
    maintenance action at hour c changes no derived value before c), rounded to 4 decimals
    like the stored telemetry:

    - ``diff``: ``a[t] - b[t]`` (a temperature rise over ambient, a gradient);
    - ``ratio``: ``scale * a[t] / b[t]``, NaN where ``b[t] < level`` (a gas ratio, a
      performance ratio below which the denominator is too small to mean anything);
    - ``delta``: ``a[t] - a[t - window_h]`` (change over the window; NaN for the first hours);
    - ``mean``: trailing mean of ``a[t - window_h + 1 .. t]`` (NaN until the window is full);
    - ``hours_above``: how many of the trailing ``window_h`` hours have ``a >= level``
      (time above a level, not necessarily consecutive; NaN until the window is full).

    NaN never satisfies a rule's condition (:func:`condition`), so the undefined head of a
    windowed series cannot fire."""
    xs = [np.asarray(x, dtype=float) for x in (inputs.values() if isinstance(inputs, dict) else inputs)]
    a = xs[0]
    n = a.size
    out = np.full(n, np.nan)
    if kind == "diff":
        out = a - xs[1]
    elif kind == "ratio":
        b = xs[1]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(b >= level, scale * a / np.where(b == 0, 1.0, b), np.nan)
    elif kind == "delta":
        if window_h < 1:
            raise ValueError("delta needs window_h >= 1")
        out[window_h:] = a[window_h:] - a[:-window_h] if n > window_h else out[window_h:]
    elif kind in ("mean", "hours_above"):
        if window_h < 1:
            raise ValueError(f"{kind} needs window_h >= 1")
        x = a if kind == "mean" else (a >= level).astype(float)
        if n >= window_h:
            c = np.concatenate(([0.0], np.cumsum(np.nan_to_num(x))))
            s = c[window_h:] - c[:-window_h]
            out[window_h - 1:] = s / window_h if kind == "mean" else s
    else:
        raise ValueError(f"unknown derived kind {kind!r}")
    return np.round(out, 4)


def rule_series(rule: object, series: dict[str, np.ndarray]) -> np.ndarray:
    """The series a rule's condition is evaluated on: its atomic target metric, or the derived
    series of its inputs (``rule.derive``)."""
    kind = getattr(rule, "derive", "")
    if not kind:
        return series[rule.target_metric]  # type: ignore[attr-defined]
    return derived_series(kind, [series[i] for i in rule.inputs], rule.window_h, rule.scale, rule.level)  # type: ignore[attr-defined]


def rule_events(rule: object, series: dict[str, np.ndarray]) -> list[Event]:
    """The firing events of ``rule`` on a device's series (atomic or derived input)."""
    return events(rule_series(rule, series), rule.op, rule.threshold, rule.consecutive_points)  # type: ignore[attr-defined]
