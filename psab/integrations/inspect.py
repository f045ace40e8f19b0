"""psab in inspect-ai (the UK AISI evaluation framework; ``pip install 'psab[inspect]'``).

:func:`psab_task` is an inspect ``Task`` over a set of families: one sample per public case,
or per held-out draw. The sample's input is exactly what ``psab run`` gives an agent
(:func:`psab.instructions_for`) followed by the task file; the :func:`psab_scorer` takes the
JSON object in the model's last reply, evaluates it with :func:`psab.evaluate` and returns the
score, whether it was feasible, and the violations as the explanation.

Held-out draws take their private seed from ``$PSAB_SEED`` when the dataset is loaded: the
seed never enters the task's arguments, the samples or the log (a sample's id is family and
index; its key stays in this process). Evaluation takes :data:`psab.runner.execute.EVAL_LOCK`:
Pyomo and the reference cache are not thread-safe.

From the command line::

    inspect eval psab/integrations/inspect.py@psab_task --model openai/gpt-4o-mini -T families=ybus_construction
"""

from __future__ import annotations

import json
import os

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate

import psab
from psab.errors import RunnerError
from psab.runner.agent_script import OPENAI_SYSTEM, extract_json_object
from psab.runner.execute import EVAL_LOCK

SEED_ENV = "PSAB_SEED"

#: The tasks (with their keys) behind the samples loaded in this process, by sample id: the key
#: never travels in a sample's metadata, so it never reaches a log.
_TASKS: dict[str, psab.Task] = {}

NO_TOOLS = ("\n\n## The task file (`task.json`)\n\n```json\n{task}\n```\n\nYou cannot run tools: reply with "
            "the solution object itself; it will be written to the solution file for you.")


def _family_ids(families: str | list[str] | None, backend: str) -> list[str]:
    if isinstance(families, str):
        families = [f for f in families.split(",") if f]
    if families:
        for f in families:
            psab.get_family(f)  # UnknownFamilyError names the known ids
        return list(dict.fromkeys(families))
    return [s.id for s in psab.families() if backend in s.backends]


def _sample(t: psab.Task, sample_id: str, split: str, index: int | None, lang: str, presentation: str,
            backend: str) -> Sample:
    from psab.views import agent_view

    _TASKS[sample_id] = t
    view = agent_view(t, presentation=presentation, backend=backend)
    text = psab.instructions_for(t, lang, presentation, backend) + NO_TOOLS.format(task=view.to_json())
    # the system message goes in the sample itself: inspect's system_message() would treat
    # the braces of the JSON shape in it as a template
    return Sample(input=[ChatMessageSystem(content=OPENAI_SYSTEM), ChatMessageUser(content=text)], target="", id=sample_id,
                  metadata={"family": t.family, "task_id": t.id, "split": split, "index": index,
                            "task_digest": t.digest, "backend": backend})


def psab_dataset(families: str | list[str] | None = None, split: str = "public", count: int = 1, start: int = 0,
                 lang: str = "en", presentation: str = "guided", backend: str = "surrogate",
                 level: int = 1) -> MemoryDataset:
    """The samples: every selected family's public case, or ``count`` held-out draws per family
    from index ``start`` under ``$PSAB_SEED`` (read here, never recorded)."""
    ids = _family_ids(families, backend)
    samples: list[Sample] = []
    if split == "public":
        for f in ids:
            t = psab.get_family(f).public_task()
            samples.append(_sample(t, f"{f}-public", "public", None, lang, presentation, backend))
    elif split == "heldout":
        seed = os.environ.get(SEED_ENV)
        if not seed:
            raise RunnerError(f"the held-out split needs a private seed in ${SEED_ENV} (never a task argument)")
        for f in ids:
            for i in range(start, start + count):
                with EVAL_LOCK:
                    t = psab.generate(f, seed, i, backend=backend, level=level)
                samples.append(_sample(t, f"{f}-heldout-{i}", "heldout", i, lang, presentation, backend))
    else:
        raise RunnerError(f"split must be public or heldout, not {split!r}")
    return MemoryDataset(samples, name=f"psab-{split}")


@scorer(metrics=[mean(), stderr()])
def psab_scorer(backend: str = "surrogate"):
    """psab's verdict on the JSON object in the model's reply: ``value`` is the score (0 to 1),
    ``metadata`` holds feasibility and perfection, ``explanation`` the violations."""

    async def score(state: TaskState, target: Target) -> Score:
        t = _TASKS.get(str(state.sample_id))
        if t is None:
            raise RunnerError(f"sample {state.sample_id!r} was not loaded by psab_dataset in this process")
        reply = state.output.completion if state.output else ""
        solution = extract_json_object(reply or "")
        # a reply with no JSON object is evaluated as an empty answer (never as a path: a str
        # given to psab.evaluate names a file)
        with EVAL_LOCK:  # Pyomo and the reference cache are not thread-safe
            result = psab.evaluate(t, solution if solution is not None else {"answer": None}, backend)
        explanation = "; ".join(v.describe() for v in result.violations) or "no violations"
        if solution is None:
            explanation = "the reply holds no JSON object; " + explanation
        return Score(value=result.score, answer=json.dumps(solution)[:2000] if solution is not None else (reply or "")[:2000],
                     explanation=explanation,
                     metadata={"feasible": result.feasible, "perfect": result.perfect,
                               "n_violations": len(result.violations)})

    return score


@task
def psab_task(families: str | list[str] | None = None, split: str = "public", count: int = 1, start: int = 0,
              lang: str = "en", presentation: str = "guided", backend: str = "surrogate", level: int = 1) -> Task:
    """psab on the chosen families (all, by default) as an inspect task: one model call per
    sample (the same system message as ``builtin:openai``), scored by :func:`psab_scorer`."""
    return Task(dataset=psab_dataset(families, split, count, start, lang, presentation, backend, level),
                solver=[generate()], scorer=psab_scorer(backend),
                name=f"psab-{split}")


