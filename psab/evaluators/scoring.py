"""Score normalization, one rule per scoring kind (docs/families.md, "Scoring kinds").

optimize: ``score = 1 - gap / max(|reference|, floor)`` where ``gap`` is how much worse the
answer's objective is than the reference's, ``floor`` is the family's case-independent scale
floor (so the score is defined for zero and negative optima), and a gap within the declared
objective tolerance counts as a tie (score exactly 1). An answer better than the reference
by more than that tolerance scores 1 and is flagged: the reference was not optimal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Ties: an objective within max(relative * scale, absolute) of the reference scores exactly 1.
DEFAULT_OBJECTIVE_RELATIVE = 1e-6
DEFAULT_OBJECTIVE_ABSOLUTE = 1e-9


@dataclass(frozen=True)
class OptimizeScore:
    score: float
    gap: float
    scale: float
    beats_reference: bool


def optimize_score(
    objective: float,
    reference: float,
    *,
    sense: str,
    scale_floor: float,
    relative: float = DEFAULT_OBJECTIVE_RELATIVE,
    absolute: float = DEFAULT_OBJECTIVE_ABSOLUTE,
) -> OptimizeScore:
    """Optimum-normalized score of a feasible answer with objective ``objective``."""
    if sense not in ("minimize", "maximize"):
        raise ValueError(f"sense must be 'minimize' or 'maximize', not {sense!r}")
    if not (math.isfinite(objective) and math.isfinite(reference)):
        return OptimizeScore(0.0, math.inf, math.nan, False)
    gap = objective - reference if sense == "minimize" else reference - objective
    scale = max(abs(reference), scale_floor)
    tie = max(relative * scale, absolute)
    if gap < -tie:
        return OptimizeScore(1.0, gap, scale, True)
    if gap <= tie:
        return OptimizeScore(1.0, gap, scale, False)
    return OptimizeScore(max(0.0, 1.0 - gap / scale), gap, scale, False)


def classify_score(correct: int, total: int) -> float:
    """Share of items classified correctly (0 when there is nothing to classify)."""
    return correct / total if total > 0 else 0.0


def forecast_score(skill: float) -> float:
    """Skill relative to the reference method, clipped to [0, 1]."""
    if not math.isfinite(skill):
        return 0.0
    return min(1.0, max(0.0, skill))
