"""Voltage dips, swells and interruptions, IEC 61000-4-30:2015 (clauses 5.4 and 5.5).

The detection works on Urms(1/2) — the r.m.s. voltage over one cycle, refreshed every half
cycle — per channel, against thresholds in percent of the declared input voltage Udin:

- dip (5.4.2): begins when Urms(1/2) of one or more channels falls below the dip threshold;
  ends when Urms(1/2) of all channels is equal to or above the dip threshold plus the hysteresis;
  characterised by the residual voltage (the lowest Urms(1/2) on any channel during the dip) and
  the duration (end − beginning);
- swell (5.4.3): begins when Urms(1/2) of one or more channels rises above the swell threshold;
  ends when all channels are equal to or below the swell threshold minus the hysteresis;
  characterised by the maximum Urms(1/2) and the duration;
- interruption (5.5): begins when Urms(1/2) of all channels falls below the interruption
  threshold; ends when Urms(1/2) of any channel is equal to or above the interruption threshold
  plus the hysteresis; characterised by the duration (and here its residual voltage).

Each kind is detected by its own rule, so a dip that contains an interruption is reported as a
dip and the interruption as its own event. An event still open at the end of the record ends
there. Arrays are (channels × half cycles); the search for each event's end is a binary search
over precomputed index arrays, so the cost grows with the number of events, not with a loop over
samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KINDS = ("dip", "swell", "interruption")


@dataclass(frozen=True)
class Event:
    kind: str
    start: int  # index of the half-cycle value at which the event begins
    end: int  # index of the first value at which it has ended (exclusive)
    magnitude_pct: float  # residual (dip, interruption) or maximum (swell), % of Udin


def _spans(start_mask: np.ndarray, end_mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) pairs: an event begins at the first start-condition index not inside an event
    and ends at the first end-condition index after it."""
    starts = np.flatnonzero(start_mask)
    ends = np.flatnonzero(end_mask)
    n = start_mask.size
    out = []
    pos = 0
    while True:
        i = int(np.searchsorted(starts, pos))
        if i >= starts.size:
            return out
        s = int(starts[i])
        j = int(np.searchsorted(ends, s + 1))
        e = int(ends[j]) if j < ends.size else n
        out.append((s, e))
        pos = e


def detect(urms_pct: np.ndarray, *, dip_pct: float, swell_pct: float, interruption_pct: float,
           hysteresis_pct: float) -> list[Event]:
    """Every dip, swell and interruption in ``urms_pct`` ((channels × n) Urms(1/2) in % of Udin),
    ordered by start (then by kind: dip, swell, interruption)."""
    u = np.atleast_2d(np.asarray(urms_pct, dtype=float))
    rules = {
        "dip": ((u < dip_pct).any(axis=0), (u >= dip_pct + hysteresis_pct).all(axis=0), np.min),
        "swell": ((u > swell_pct).any(axis=0), (u <= swell_pct - hysteresis_pct).all(axis=0), np.max),
        "interruption": ((u < interruption_pct).all(axis=0), (u >= interruption_pct + hysteresis_pct).any(axis=0), np.min),
    }
    events = []
    for kind, (start_mask, end_mask, agg) in rules.items():
        for s, e in _spans(start_mask, end_mask):
            events.append(Event(kind, s, e, float(agg(u[:, s:e]))))
    order = {k: i for i, k in enumerate(KINDS)}
    return sorted(events, key=lambda ev: (ev.start, order[ev.kind]))
