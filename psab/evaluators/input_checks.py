"""Physical sanity checks of a task's ``public_inputs`` that a JSON Schema cannot express.

A family's ``FamilySpec.validate_inputs`` hook returns a list of problems, each
``"<JSON pointer into public_inputs>: <what is wrong>"``; :meth:`FamilySpec.check_inputs`
runs the hook once per task digest, after the input schema has passed, and raises
:class:`~psab.errors.InvalidTaskError` naming the first problem. The hooks therefore may
assume every field the schema requires is present with its declared type; this module gives
them the recurring checks (references that resolve, unique ids, series lengths that agree,
ordered bounds, a connected network) so that each family states only *what* to check.

Numpy-free on purpose: the checks run before a family builds any array.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import Any

from psab.jsonpointer import pointer_to as pointer  # the families' ic.pointer(*parts)

#: The largest magnitude any number of a task may have: no quantity of a power-engineering
#: case (in the units the fields name) comes near it, and it keeps squares and products of
#: inputs far from float overflow.
MAX_MAGNITUDE = 1e12
#: The smallest magnitude a non-zero number of a task may have, the mirror of
#: :data:`MAX_MAGNITUDE`: the smallest non-zero input of any public, golden or drawn case is
#: 1e-6 (a rank tolerance), while a 1e-300 base, voltage or impedance underflows when squared
#: and overflows when inverted (``ZeroDivisionError``, ``FloatingPointError`` in the solvers;
#: issue 32, item 1). Zero itself stays allowed where the field's schema allows it.
MIN_MAGNITUDE = 1e-12


def nonfinite_pointers(value: Any, base: str = "") -> list[str]:
    """Pointers of every NaN, infinite, absurdly large (> :data:`MAX_MAGNITUDE`) or
    vanishingly small but non-zero (< :data:`MIN_MAGNITUDE`) number in ``value`` (JSON has no
    NaN, but a task built in Python can carry one, and a JSON Schema ``minimum`` lets NaN
    through)."""
    out: list[str] = []
    stack: list[tuple[str, Any]] = [(base, value)]
    while stack:
        ptr, v = stack.pop()
        if isinstance(v, bool):
            continue
        if isinstance(v, int | float):
            if not (math.isfinite(v) and abs(v) <= MAX_MAGNITUDE) or 0 < abs(v) < MIN_MAGNITUDE:
                out.append(ptr)
        elif isinstance(v, Mapping):
            stack.extend((ptr + pointer(k), x) for k, x in v.items())
        elif isinstance(v, list | tuple):
            stack.extend((ptr + pointer(i), x) for i, x in enumerate(v))
    return sorted(out)


class Problems(list[str]):
    """A list of ``"pointer: words"`` problems with the checks families repeat."""

    def add(self, ptr: str, words: str) -> None:
        self.append(f"{ptr}: {words}")

    def unique_ids(self, ptr: str, items: Sequence[Mapping[str, Any]], key: str = "id") -> dict[Any, int]:
        """Index of every item by ``key``; a repeated id is a problem at its second use."""
        seen: dict[Any, int] = {}
        for i, item in enumerate(items):
            ident = item[key]
            if ident in seen:
                self.add(pointer_join(ptr, i, key), f"duplicate id {ident!r} (also at index {seen[ident]})")
            else:
                seen[ident] = i
        return seen

    def refers(self, ptr: str, value: Any, known: Iterable[Any], what: str) -> bool:
        """``value`` must be one of ``known`` (a bus id, a unit id, ...)."""
        if value in known:
            return True
        self.add(ptr, f"refers to unknown {what} {value!r}")
        return False

    def length(self, ptr: str, seq: Sized, n: int, what: str) -> None:
        """``seq`` must have ``n`` entries (one per ``what``)."""
        if len(seq) != n:
            self.add(ptr, f"has {len(seq)} entries; expected {n} (one per {what})")

    def ordered(self, ptr_hi: str, lo: float, hi: float, lo_name: str, *, strict: bool = False) -> None:
        """``lo ≤ hi`` (``lo < hi`` when ``strict``), reported at the upper bound."""
        if hi < lo or (strict and hi == lo):
            self.add(ptr_hi, f"must be {'>' if strict else '≥'} {lo_name} ({lo!r}); found {hi!r}")

    def within(self, ptr: str, value: float, lo: float, hi: float, words: str) -> None:
        """``lo ≤ value ≤ hi``."""
        if not lo <= value <= hi:
            self.add(ptr, f"must lie in [{lo!r}, {hi!r}] ({words}); found {value!r}")

    def connected(self, ptr: str, nodes: Iterable[Any], edges: Iterable[tuple[Any, Any]], what: str = "bus") -> None:
        """Every node reachable from the first one through ``edges`` (a network whose nodal
        matrix would otherwise be singular)."""
        order = list(nodes)
        if not order:
            return
        parent = {n: n for n in order}

        def root(n: Any) -> Any:
            while parent[n] != n:
                parent[n] = parent[parent[n]]
                n = parent[n]
            return n

        for a, b in edges:
            if a in parent and b in parent:
                parent[root(a)] = root(b)
        r0 = root(order[0])
        cut = [n for n in order if root(n) != r0]
        if cut:
            shown = ", ".join(repr(n) for n in cut[:5]) + (" ..." if len(cut) > 5 else "")
            self.add(ptr, f"the network is not connected: {what} {shown} cannot be reached from {order[0]!r}")


def pointer_join(ptr: str, *parts: Any) -> str:
    return ptr + pointer(*parts)



def bus_branch_problems(p: Problems, inputs: Mapping[str, Any], *, buses: str = "buses", branches: str = "branches",
                     slack: str | None = None, attached: Sequence[str] = ()) -> dict[Any, int]:
    """The checks every bus–branch case needs: unique bus and branch ids, branch ends and
    the elements of each list in ``attached`` (``{"bus": id}`` items) on known buses, no
    branch from a bus to itself, a non-zero series impedance (of a per-unit branch), and — when all that holds — a
    connected network (otherwise the nodal matrix is singular). Returns bus id → position."""
    pos = p.unique_ids(pointer(buses), inputs[buses])
    p.unique_ids(pointer(branches), inputs[branches])
    edges = []
    for i, br in enumerate(inputs[branches]):
        ok = p.refers(pointer(branches, i, "from_bus"), br["from_bus"], pos, "bus")
        ok = p.refers(pointer(branches, i, "to_bus"), br["to_bus"], pos, "bus") and ok
        if br["from_bus"] == br["to_bus"]:
            p.add(pointer(branches, i, "to_bus"), "a branch must join two different buses")
        if "x_pu" in br and br.get("r_pu", 0.0) == 0 and br["x_pu"] == 0:
            p.add(pointer(branches, i, "x_pu"), "a branch needs a non-zero series impedance")
        if ok:
            edges.append((br["from_bus"], br["to_bus"]))
    if slack is not None:
        p.refers(pointer(slack), inputs[slack], pos, "bus")
    for key in attached:
        for i, el in enumerate(inputs[key]):
            p.refers(pointer(key, i, "bus"), el["bus"], pos, "bus")
    if not p:
        p.connected(pointer(branches), pos, edges)
    return pos


# ------------------------------------------------------------------ shared fragments

_NUMBER = {"type": "number"}
_POSITIVE = {"type": "number", "exclusiveMinimum": 0}
_NONNEGATIVE = {"type": "number", "minimum": 0}
_EFFICIENCY = {"type": "number", "exclusiveMinimum": 0, "maximum": 1}


def series_schema(min_items: int = 1, *, nonnegative: bool = False) -> dict[str, Any]:
    """A per-step series of numbers (``nonnegative``: of demands, forecasts, availabilities —
    a negative load or PV forecast made the reference dispatch infeasible, issue 32)."""
    return {"type": "array", "items": dict(_NONNEGATIVE if nonnegative else _NUMBER), "minItems": min_items}


def storage_schema(**extra: Mapping[str, Any]) -> dict[str, Any]:
    """A battery (``Storage.from_inputs``): power limits, energy limits and efficiencies;
    ``extra`` adds further required fields (an inverter's ``s_max_mva``...)."""
    props: dict[str, Any] = {
        "id": {"type": "string", "minLength": 1},
        "p_charge_max_mw": _NONNEGATIVE, "p_discharge_max_mw": _NONNEGATIVE,
        "soc_min_mwh": _NONNEGATIVE, "soc_max_mwh": _POSITIVE, "soc_initial_mwh": _NONNEGATIVE,
        "soc_terminal_min_mwh": _NONNEGATIVE, "eta_charge": _EFFICIENCY, "eta_discharge": _EFFICIENCY,
        "cycle_cost_per_mwh": _NONNEGATIVE, **extra,
    }
    return {"type": "object", "properties": {k: dict(v) for k, v in props.items()},
            "required": [k for k in props if k != "cycle_cost_per_mwh"], "additionalProperties": False}


def storage_problems(p: Problems, ptr: str, d: Mapping[str, Any]) -> None:
    """0 ≤ soc_min ≤ soc_initial ≤ soc_max and soc_min ≤ soc_terminal_min ≤ soc_max (MWh)."""
    p.ordered(ptr + "/soc_max_mwh", d["soc_min_mwh"], d["soc_max_mwh"], "soc_min_mwh")
    p.within(ptr + "/soc_initial_mwh", d["soc_initial_mwh"], d["soc_min_mwh"], d["soc_max_mwh"], "the energy limits")
    p.within(ptr + "/soc_terminal_min_mwh", d["soc_terminal_min_mwh"], d["soc_min_mwh"], d["soc_max_mwh"],
             "the energy limits")


# ------------------------------------------------------------------ typed input fragments
#
# Issue 32, item 1: a schema that only lists ``required`` fields lets ``null``, ``true`` or
# ``"1.0"`` through to ``float()`` (``TypeError``) and a zero base or voltage through to a
# division. These fragments give every field its type and its physical range, so that the
# schema names the field before any solver runs.

ID: dict[str, Any] = {"type": "string", "minLength": 1}
NUMBER: dict[str, Any] = dict(_NUMBER)
POSITIVE: dict[str, Any] = dict(_POSITIVE)
NONNEGATIVE: dict[str, Any] = dict(_NONNEGATIVE)
BOOLEAN: dict[str, Any] = {"type": "boolean"}
#: A nominal or base voltage (kV): from the 0.1 kV below any LV system to the 1200 kV of the
#: highest UHV AC lines; the compact cases use 0.4-400 kV.
KV: dict[str, Any] = {"type": "number", "minimum": 0.1, "maximum": 1200}
#: A per-unit power base (MVA); the cases use 10 and 100.
BASE_MVA: dict[str, Any] = {"type": "number", "minimum": 0.001, "maximum": 100_000}
#: A voltage set-point of a source or slack bus (pu): the ANSI C84.1 / EN 50160 bands lie well
#: inside [0.8, 1.2]; the cases use 1.0-1.04.
VM_SETPOINT_PU: dict[str, Any] = {"type": "number", "minimum": 0.8, "maximum": 1.2}
#: An off-nominal tap ratio (pu): the cases use 0.969-1.25; a transformer's taps span ±20 %
#: at most, with margin.
TAP_RATIO: dict[str, Any] = {"type": "number", "minimum": 0.5, "maximum": 2.0}


def obj(required: Sequence[str], properties: Mapping[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """An object with ``required`` fields typed by ``properties`` (others stay allowed: a case
    may carry names and notes)."""
    return {"type": "object", "required": list(required), "properties": dict(properties or {}), **extra}


def array(items: Mapping[str, Any], *, min_items: int = 0, max_items: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": dict(items), "minItems": min_items}
    if max_items is not None:
        out["maxItems"] = max_items
    return out


def bounded(schema: Mapping[str, Any], max_items: int) -> dict[str, Any]:
    """A copy of ``schema`` in which every array without a ``maxItems`` gets ``max_items``
    (issue 32, item 4: 20,000 lines kept the pandapower backend busy past 120 s). Each family
    states the bound that fits it; an array that declares its own keeps it."""
    def walk(node: Any) -> Any:
        if isinstance(node, Mapping):
            out = {k: walk(v) for k, v in node.items()}
            if out.get("type") == "array" and "maxItems" not in out:
                out["maxItems"] = max_items
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node
    return walk(schema)


def unique_id_problems(p: Problems, inputs: Mapping[str, Any], lists: Sequence[tuple[Any, ...]],
                       key: str = "id") -> None:
    """No repeated ``key`` within each list at a path of ``lists`` (issue 32, item 4: repeated
    ids were read as parallel elements). A path may pass through objects only."""
    for path in lists:
        node: Any = inputs
        for part in path:
            node = node.get(part) if isinstance(node, Mapping) else None
        if isinstance(node, list) and all(isinstance(x, Mapping) and key in x for x in node):
            p.unique_ids(pointer(*path), node, key)


def unique_ids_hook(*lists: tuple[Any, ...], key: str = "id") -> Any:
    """A ``validate_inputs`` hook that checks only :func:`unique_id_problems` over ``lists``."""
    def hook(inputs: Mapping[str, Any]) -> list[str]:
        p = Problems()
        unique_id_problems(p, inputs, lists, key)
        return p
    return hook
