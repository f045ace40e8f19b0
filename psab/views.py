"""What an agent reads: a task's view for one presentation level and one judging backend.

A stored case carries both presentations (the guided statement and, where the family has
one, the expert statement) and names no backend. The view an agent is given — in the runner's
sandbox, in ``psab show``, in a harness integration — carries exactly one statement, the
judging backend (``judging``), and in each language the rule that backend applies
(``judged_by``), so that the agent knows which physics will check its answer.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from psab.contract import Task
from psab.errors import BackendNotSupportedError, InvalidArgumentError

#: What a backend judges by when a family does not word it itself (``FamilySpec.judged_by``
#: is complete for every family; this is the fallback for a family under construction).
DEFAULT_JUDGED_BY: dict[str, dict[str, str]] = {
    "surrogate": {
        "en": "Judged by psab's surrogate backend: the closed-form or compact model of the statement, exactly as stated.",
        "ru": "Проверяется суррогатной моделью psab: замкнутыми формулами или компактной моделью из условия, в точности как сказано.",
    },
    "pandapower": {
        "en": "Judged by the pandapower backend: pandapower recomputes the quantities (AC Newton-Raphson power flow or its IEC 60909 short-circuit module).",
        "ru": "Проверяется в pandapower: величины пересчитываются в pandapower (расчёт установившегося режима методом Ньютона–Рафсона или модуль КЗ по МЭК 60909).",
    },
}


def agent_view(task: Task, *, presentation: str = "guided", backend: str = "surrogate") -> Task:
    """``task`` as an agent judged by ``backend`` reads it at ``presentation`` level.

    Raises :class:`~psab.errors.InvalidArgumentError` for an unknown level or a family without
    an expert presentation, and :class:`~psab.errors.BackendNotSupportedError` for a backend
    the family does not declare.
    """
    from psab.registry import PRESENTATION_LEVELS, get_family

    if presentation not in PRESENTATION_LEVELS:
        raise InvalidArgumentError(f"presentation must be one of {', '.join(PRESENTATION_LEVELS)}, not {presentation!r}")
    spec = get_family(task.family)
    if backend not in spec.backends:
        raise BackendNotSupportedError(f"family {spec.id} supports backends {', '.join(spec.backends)}; not {backend!r}")
    if presentation == "expert" and spec.expert is None:
        raise InvalidArgumentError(f"family {spec.id} has no expert presentation yet")
    rules = (spec.judged_by or {}).get(backend) or DEFAULT_JUDGED_BY.get(backend, DEFAULT_JUDGED_BY["surrogate"])
    words: dict[str, dict[str, Any]] = {}
    for lang, text in task.presentation.items():
        t = dict(text)
        expert = t.pop("expert_statement", None)
        if presentation == "expert":
            t["statement"] = expert or spec.expert[lang]["statement"]  # type: ignore[index]
        t["judged_by"] = rules[lang]
        words[lang] = t
    return dataclasses.replace(task, presentation=words, judging={"backend": backend, "presentation": presentation})
