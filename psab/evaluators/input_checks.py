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


def nonfinite_pointers(value: Any, base: str = "") -> list[str]:
    """Pointers of every NaN, infinite or absurdly large (> :data:`MAX_MAGNITUDE`) number in
    ``value`` (JSON has no NaN, but a task built in Python can carry one, and a JSON Schema
    ``minimum`` lets NaN through)."""
    out: list[str] = []
    stack: list[tuple[str, Any]] = [(base, value)]
    while stack:
        ptr, v = stack.pop()
        if isinstance(v, bool):
            continue
        if isinstance(v, int | float):
            if not (math.isfinite(v) and abs(v) <= MAX_MAGNITUDE):
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


def series_schema(min_items: int = 1) -> dict[str, Any]:
    """A per-step series of numbers."""
    return {"type": "array", "items": dict(_NUMBER), "minItems": min_items}


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
