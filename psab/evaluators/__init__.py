"""The evaluation kernel shared by every family.

- :mod:`.tolerance` — the one tolerance helper and the :class:`Checks` collector;
- :mod:`.validation` — answer validation against the submission schema → violations;
- :mod:`.scoring` — score normalization per scoring kind;
- :mod:`.cache` — the reference cache per (task digest, backend);
- :mod:`.kernel` — the ``evaluate()`` dispatcher.
"""

from psab.evaluators.cache import clear_reference_cache
from psab.evaluators.kernel import EvalContext, evaluate, solve
from psab.evaluators.scoring import optimize_score
from psab.evaluators.tolerance import Checks, Tolerance
from psab.evaluators.validation import answer_violations

__all__ = [
    "Checks",
    "EvalContext",
    "Tolerance",
    "answer_violations",
    "clear_reference_cache",
    "evaluate",
    "optimize_score",
    "solve",
]
