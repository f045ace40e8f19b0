"""The one tolerance helper behind every exact comparison, and the checks that use it.

An exact value passes when ``|found - expected| <= max(relative * |expected|, floor)`` with
``relative`` 1e-3 by default and ``floor`` the absolute floor the family declares for the
field (matched by pattern: ``/ybus_real_pu/*/*``, then ``/ybus_real_pu``, then ``default``).
Hard constraints use the family's declared feasibility tolerance instead, so a solver's
rounding is not a breach. Every comparison is recorded as evidence (expected, found,
tolerance), every failure as a :class:`~psab.contract.Violation`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from psab.contract import Violation

_INDEX = re.compile(r"/\d+(?=/|$)")


def field_pattern(pointer: str) -> str:
    """``/schedule/3/p_mw`` → ``/schedule/*/p_mw``: the form absolute floors are keyed by."""
    return _INDEX.sub("/*", pointer)


@dataclass(frozen=True)
class Tolerance:
    """A task's declared tolerances (``task.tolerances``)."""

    relative: float = 1e-3
    absolute_floors: Mapping[str, float] = field(default_factory=dict)
    feasibility: Mapping[str, float] = field(default_factory=dict)
    objective: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_task(cls, tolerances: Mapping[str, Any]) -> Tolerance:
        return cls(
            relative=float(tolerances.get("relative", 1e-3)),
            absolute_floors=dict(tolerances.get("absolute_floors", {})),
            feasibility=dict(tolerances.get("feasibility", {})),
            objective=dict(tolerances.get("objective", {})),
        )

    def floor(self, pointer: str) -> float:
        pattern = field_pattern(pointer)
        floors = self.absolute_floors
        if pattern in floors:
            return float(floors[pattern])
        parts = pointer.split("/")
        top = "/" + parts[1] if len(parts) > 1 else ""
        if top in floors:
            return float(floors[top])
        return float(floors.get("default", 0.0))

    def allowed(self, pointer: str, expected: float) -> float:
        """The admissible absolute deviation for ``pointer`` around ``expected``."""
        return max(self.relative * abs(expected), self.floor(pointer))

    def slack(self, name: str) -> float:
        """The feasibility tolerance of constraint ``name`` (or ``default``)."""
        return float(self.feasibility.get(name, self.feasibility.get("default", 0.0)))

    def close(self, pointer: str, expected: float, found: float) -> tuple[bool, float]:
        tol = self.allowed(pointer, expected)
        ok = math.isfinite(found) and abs(found - expected) <= tol
        return ok, tol


class Checks:
    """Collects comparisons and violations while a family evaluates one answer.

    ``close`` is the exact comparison (recorded in evidence); ``within`` and ``at_most`` /
    ``at_least`` are hard-constraint checks with the declared feasibility slack; ``violate``
    records anything else the family finds.
    """

    def __init__(self, tolerance: Tolerance) -> None:
        self.tol = tolerance
        self.violations: list[Violation] = []
        self.records: list[dict[str, Any]] = []

    @property
    def ok(self) -> bool:
        return not self.violations

    def violate(self, pointer: str, constraint: str, expected: Any, found: Any) -> None:
        self.violations.append(Violation(pointer, constraint, expected, found))

    def close(self, pointer: str, expected: float, found: float, what: str = "value") -> bool:
        """Exact comparison of a recomputed quantity; records the check either way."""
        ok, tol = self.tol.close(pointer, float(expected), float(found))
        self.records.append({"field": pointer, "expected": float(expected), "found": float(found), "tolerance": tol, "ok": ok})
        if not ok:
            self.violate(pointer, f"{what} must match the independent recomputation within ±{tol:.3g}", float(expected), float(found))
        return ok

    def close_all(self, pointers: list[str], expected: Any, found: Any, what: str = "value") -> int:
        """Vectorized :meth:`close` for many values of one field pattern (a matrix, a series).

        ``expected`` and ``found`` are array-likes of the same length as ``pointers``, which
        must share one field pattern (one absolute floor). Records a summary instead of one
        entry per value; returns the number of mismatches.
        """
        import numpy as np

        e = np.asarray(expected, dtype=float).ravel()
        f = np.asarray(found, dtype=float).ravel()
        if not pointers:
            return 0
        floor = self.tol.floor(pointers[0])
        allowed = np.maximum(self.tol.relative * np.abs(e), floor)
        bad = ~(np.abs(f - e) <= allowed)  # NaN counts as a mismatch
        for k in np.flatnonzero(bad):
            self.violate(pointers[k], f"{what} must match the independent recomputation within ±{allowed[k]:.3g}", float(e[k]), float(f[k]))
        self.records.append({"field": field_pattern(pointers[0]), "compared": len(pointers), "mismatches": int(bad.sum()),
                             "relative": self.tol.relative, "floor": floor})
        return int(bad.sum())

    def equal(self, pointer: str, expected: Any, found: Any, constraint: str) -> bool:
        """Exact comparison of a discrete value (verdict, id, set)."""
        ok = expected == found
        self.records.append({"field": pointer, "expected": expected, "found": found, "ok": ok})
        if not ok:
            self.violate(pointer, constraint, expected, found)
        return ok

    def at_most(self, pointer: str, value: float, limit: float, constraint: str, slack: str = "default") -> bool:
        """Hard constraint ``value <= limit`` with the feasibility slack named ``slack``."""
        ok = math.isfinite(value) and value <= limit + self.tol.slack(slack)
        if not ok:
            self.violate(pointer, constraint, f"<= {limit:.6g}", value)
        return ok

    def at_least(self, pointer: str, value: float, limit: float, constraint: str, slack: str = "default") -> bool:
        """Hard constraint ``value >= limit`` with the feasibility slack named ``slack``."""
        ok = math.isfinite(value) and value >= limit - self.tol.slack(slack)
        if not ok:
            self.violate(pointer, constraint, f">= {limit:.6g}", value)
        return ok

    def within(self, pointer: str, value: float, lo: float, hi: float, constraint: str, slack: str = "default") -> bool:
        """Hard constraint ``lo <= value <= hi`` with the feasibility slack named ``slack``."""
        s = self.tol.slack(slack)
        ok = math.isfinite(value) and lo - s <= value <= hi + s
        if not ok:
            self.violate(pointer, constraint, f"[{lo:.6g}, {hi:.6g}]", value)
        return ok

    def equals(self, pointer: str, value: float, target: float, constraint: str, slack: str = "default") -> bool:
        """Hard equality constraint ``value == target`` within the feasibility slack."""
        ok = math.isfinite(value) and abs(value - target) <= self.tol.slack(slack)
        if not ok:
            self.violate(pointer, constraint, target, value)
        return ok
