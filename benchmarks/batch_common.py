"""The mixed batch the batch-evaluation benchmark and tests judge: for every family with a
surrogate backend, its public case answered with the reference, with realistic mistakes
(:func:`psab.mutations.realistic_mistake` under several seeds), and with malformed documents."""

from __future__ import annotations

from typing import Any


def mixed_pairs(n: int, families: list[str] | None = None) -> list[tuple[Any, Any]]:
    """``n`` (task, solution) pairs cycling over the public cases: reference answers, mutated
    answers and malformed ones (a list, a missing answer, an answer of the wrong type)."""
    import psab
    from psab.evaluators.batch import SolutionText
    from psab.mutations import realistic_mistake

    per_task: list[list[tuple[Any, Any]]] = []
    for spec in psab.families():
        if "surrogate" not in spec.backends or (families and spec.id not in families):
            continue
        task = spec.public_task()
        ref = psab.solve(task)
        answers: list[Any] = [ref]
        for seed in range(6):
            m = realistic_mistake(ref.answer, task.submission_schema, task.id, seed=seed)
            if m is not None:
                answers.append({"answer": m.answer})
        answers += [[1, 2, 3], {"rationale": "no answer"}, {"answer": "42"}, SolutionText(b"{not json")]
        per_task.append([(task, a) for a in answers])
    pairs: list[tuple[Any, Any]] = []
    k = 0
    while len(pairs) < n:
        group = per_task[k % len(per_task)]
        pairs.append(group[(k // len(per_task)) % len(group)])
        k += 1
    return pairs
