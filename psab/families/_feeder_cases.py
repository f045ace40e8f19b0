"""Shared pieces of the reliability-and-restoration families: the real feeder they are drawn
on (CIGRE MV feeder 1 from :mod:`psab.surrogates.feeders`), realistic reliability data, and the
checks that turn a broken feeder into :class:`~psab.errors.InvalidTaskError` naming the field.

Typical reliability data (Brown, *Electric Power Distribution Reliability*, 2nd ed., CRC Press
2009, ch. 4, tables of typical overhead and underground equipment failure rates and mean
times to repair): overhead primary lines about 0.1 failures per mile-year (range about
0.02-0.3), MTTR about 4 h (2-8 h); underground primary cable about 0.07 failures per mile-year
(range about 0.005-0.25, plus joints and terminations), MTTR about 10 h (1.5-30 h). Per km:
÷ 1.609. Patrol and switching times are the case's own engineering estimates (a crew drives
to each ring-main unit of a cable section and tests it; overhead lines are patrolled on
sight).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.errors import InvalidTaskError
from psab.surrogates import feeder_reliability as fr
from psab.surrogates.feeders import feeder

#: Failure rate per km-year (range), repair time range (h), patrol h per km, fixed patrol h.
KIND_DATA = {
    "cable": {"rate_per_km_yr": (0.015, 0.07), "repair_h": (6.0, 14.0), "patrol_h_per_km": (0.1, 0.3), "patrol_fixed_h": (0.2, 0.4)},
    "overhead": {"rate_per_km_yr": (0.05, 0.19), "repair_h": (2.5, 6.0), "patrol_h_per_km": (0.25, 0.6), "patrol_fixed_h": (0.05, 0.15)},
}


def cigre_feeder(number: int = 1) -> list[dict[str, Any]]:
    """The sections of CIGRE MV feeder 1 (from bus 1, 20 kV cable) or 2 (from bus 12, overhead)
    in their normal state (tie switches S1, S2, S3 open), ordered from the substation out, with
    the load at each section's downstream bus. Buses are named ``B<n>`` as in the brochure."""
    f = feeder("cigre_mv")
    open_b = f.normally_open_branches()
    head = 1 if number == 1 else 12
    lines = [b for b in f.branches if not b.is_transformer and b.id not in open_b]
    p = {b: 0.0 for b in f.bus_ids}
    q = dict(p)
    res = dict(p)
    for bus, pm, qm, name in zip(f.load_bus, f.load_p_mw, f.load_q_mvar, f.load_names):
        p[bus] += pm
        q[bus] += qm
        if name.startswith("Load R"):
            res[bus] += pm
    out, frontier, seen = [], [head], {head}
    while frontier:
        bus = frontier.pop(0)
        for b in lines:
            for a, c in ((b.from_bus, b.to_bus), (b.to_bus, b.from_bus)):
                if a == bus and c not in seen:
                    seen.add(c)
                    frontier.append(c)
                    out.append({"id": f"S{a}-{c}", "from_bus": f"B{a}", "to_bus": f"B{c}", "length_km": b.length_km,
                                "kind": "cable" if "CABLE" in b.kind else "overhead", "r_ohm": b.r_ohm, "x_ohm": b.x_ohm,
                                "rating_ka": b.rating_ka, "p_mw": p[c], "q_mvar": q[c], "p_residential_mw": res[c],
                                "branch": b.id})
    return out


def draw_section_reliability(rng: np.random.Generator, sec: dict[str, Any]) -> dict[str, Any]:
    """Failure rate, repair time and patrol time of one section, from the kind's ranges."""
    d = KIND_DATA[sec["kind"]]
    km = float(sec["length_km"])
    # Joints, terminations and the ring-main unit add a per-section share (≈ 0.005–0.02 /yr).
    rate = km * rng.uniform(*d["rate_per_km_yr"]) + rng.uniform(0.005, 0.02)
    return {
        "failure_rate_per_yr": round(float(rate), 4),
        "repair_time_h": round(float(rng.uniform(*d["repair_h"])), 2),
        "patrol_time_h": round(float(rng.uniform(*d["patrol_fixed_h"]) + km * rng.uniform(*d["patrol_h_per_km"])), 2),
    }


def draw_customers(rng: np.random.Generator, sec: dict[str, Any]) -> int:
    """Customers at a section's load point: residential load at 1.5–3 kW per customer
    (after diversity), commercial at 50–150 kW per customer."""
    res_kw = 1000.0 * sec["p_residential_mw"]
    ci_kw = 1000.0 * (sec["p_mw"] - sec["p_residential_mw"])
    n = res_kw / rng.uniform(1.5, 3.0) + ci_kw / rng.uniform(50.0, 150.0)
    return int(round(n))


def section_tree_of(inputs: dict[str, Any], family: str, field: str = "sections") -> fr.SectionTree:
    """The oriented tree of ``inputs[field]`` from ``inputs['substation_bus']``; a broken feeder
    (duplicate ids, a section between the same bus, loops, islands) is the caller's error."""
    secs = inputs[field]
    ids = [s["id"] for s in secs]
    for i, s in enumerate(secs):
        if s["from_bus"] == s["to_bus"]:
            raise InvalidTaskError(f"{family}: /{field}/{i}: section {s['id']!r} connects bus {s['from_bus']!r} to itself")
        if ids.index(s["id"]) != i:
            raise InvalidTaskError(f"{family}: /{field}/{i}/id: duplicate section id {s['id']!r}")
    try:
        return fr.section_tree(ids, [s["from_bus"] for s in secs], [s["to_bus"] for s in secs], inputs["substation_bus"])
    except fr.NotRadialError as exc:
        raise InvalidTaskError(f"{family}: /{field}: the feeder is not radial in its normal state ({exc})") from None


def section_index(inputs: dict[str, Any], family: str, pointer: str, sid: str, field: str = "sections") -> int:
    ids = [s["id"] for s in inputs[field]]
    if sid not in ids:
        raise InvalidTaskError(f"{family}: {pointer}: {sid!r} is not a section of the feeder")
    return ids.index(sid)


def section_rate(sec: dict[str, Any]) -> float:
    """A section's failure rate: given per section, or per km-year times the length plus the
    accessories' per-section rate (level-2 data)."""
    if "failure_rate_per_yr" in sec:
        return float(sec["failure_rate_per_yr"])
    return float(sec.get("failure_rate_per_km_yr", 0.0)) * float(sec["length_km"]) + float(sec.get("accessory_failure_rate_per_yr", 0.0))


def section_rates(inputs: dict[str, Any], family: str) -> np.ndarray:
    """Every section's failure rate (:func:`section_rate`); a section giving neither form of
    the rate is the caller's error."""
    secs = inputs["sections"]
    for i, sec in enumerate(secs):
        if "failure_rate_per_yr" not in sec and "failure_rate_per_km_yr" not in sec:
            raise InvalidTaskError(f"{family}: /sections/{i}: no failure_rate_per_yr nor failure_rate_per_km_yr")
    return np.array([section_rate(sec) for sec in secs])


def section_mask(inputs: dict[str, Any], family: str, field: str, ids: list[Any], n: int) -> np.ndarray:
    """Which of the ``n`` sections the id list ``ids`` (the case's ``field``) names; an id that
    is not a section of the feeder is the caller's error."""
    mask = np.zeros(n, dtype=bool)
    for j, sid in enumerate(ids):
        mask[section_index(inputs, family, f"/{field}/{j}", sid)] = True
    return mask


def sections_schema(extra: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """Input schema of a section list with the shared fields plus ``extra``."""
    props = {"id": {"type": "string", "minLength": 1}, "from_bus": {"type": "string"}, "to_bus": {"type": "string"},
             "length_km": {"type": "number", "exclusiveMinimum": 0}, "kind": {"enum": ["cable", "overhead"]}} | extra
    return {"type": "array", "minItems": 1, "items": {"type": "object", "properties": props,
                                                      "required": ["id", "from_bus", "to_bus", *required]}}


def check_finite(family: str, value: Any, pointer: str = "") -> None:
    """Every number of a case is finite; a NaN or an infinity is the caller's error."""
    if isinstance(value, dict):
        for k, v in value.items():
            check_finite(family, v, f"{pointer}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            check_finite(family, v, f"{pointer}/{i}")
    elif isinstance(value, float) and not np.isfinite(value):
        raise InvalidTaskError(f"{family}: {pointer}: not a finite number")


def guarded(family: str, build, inputs: dict[str, Any]):  # type: ignore[no-untyped-def]
    """``build(inputs)`` with every malformed-data failure (a missing key, a string where a
    number belongs, an empty list) turned into InvalidTaskError: the task, not the answer, is
    at fault."""
    check_finite(family, inputs)
    try:
        return build(inputs)
    except InvalidTaskError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, AttributeError) as exc:
        raise InvalidTaskError(f"{family}: public_inputs cannot be read ({type(exc).__name__}: {exc})") from None


def schema_guarded(family: str):  # type: ignore[no-untyped-def]
    """Decorator: a submission schema that cannot be built from broken inputs raises
    InvalidTaskError (the caller's error), never KeyError or TypeError."""
    def wrap(fn):  # type: ignore[no-untyped-def]
        def inner(inputs):  # type: ignore[no-untyped-def]
            return guarded(family, fn, inputs)
        inner.__doc__ = fn.__doc__
        return inner
    return wrap
