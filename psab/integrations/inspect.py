"""psab in inspect-ai (the UK AISI evaluation framework; ``pip install 'psab[inspect]'``).

:func:`psab_task` is an inspect ``Task`` over a set of families: one sample per public case,
or per held-out draw. The sample's input is exactly what ``psab run`` gives an agent
(:func:`psab.instructions_for`) followed by the task file; the :func:`psab_scorer` takes the
JSON object in the model's last reply, evaluates it with :func:`psab.evaluate` and returns the
score, whether it was feasible, and the violations as the explanation.

``-T solver=agent`` evaluates an agent instead of one reply (issue 34, item 4): inspect's ReAct
agent (:func:`inspect_ai.agent.react`) with the ``bash`` and ``python`` tools runs in inspect's
sandbox (``-T sandbox=local`` by default; ``docker`` where a Docker image with Python is
configured), whose working directory holds ``task.json`` and ``instructions.md`` exactly as
``psab run`` gives them; the agent writes ``solution.json`` there and the scorer reads that
file (as :func:`psab.evaluate` reads a solution file: a missing, unreadable or malformed one is
an infeasible answer, never an error). The local sandbox is inspect's, not psab's: the tools
run on this machine as you (use ``psab run`` for the isolated runner).

Held-out draws take their private seed from ``$PSAB_SEED`` when the dataset is loaded: the
seed never enters the task's arguments, the samples or the log (a sample's id is family and
index; its key stays in this process). Evaluation takes :data:`psab.runner.execute.EVAL_LOCK`:
Pyomo and the reference cache are not thread-safe.

From the command line, in any directory once psab is installed (the task is registered
through the ``inspect_ai`` entry point, :mod:`psab._registry`)::

    inspect eval psab/psab_task --model openai/gpt-4o-mini -T families=ybus_construction
    inspect eval psab/psab_task --model openai/gpt-4o-mini -T families=ybus_construction -T solver=agent
"""

from __future__ import annotations

import json
import os
from typing import Any

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

#: Where the agentic solver's task files and answer live (the sandbox's working directory),
#: named as ``psab run`` names them (the instructions say ``task.json`` and ``solution.json``).
TASK_FILE, INSTRUCTIONS_FILE, SOLUTION_FILE = "task.json", "instructions.md", "solution.json"
#: The largest solution file the scorer reads (as the runner's limit, 8 MiB).
SOLUTION_LIMIT_BYTES = 8 * 1024 * 1024
SOLVERS = ("generate", "agent")

WITH_TOOLS = ("\n\nThe task file `task.json` and these instructions (`instructions.md`) are in your working "
              "directory. Use the bash and python tools to work; write `solution.json` there, then call submit.")

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
            backend: str, solver: str = "generate") -> Sample:
    from psab.views import agent_view

    _TASKS[sample_id] = t
    view = agent_view(t, presentation=presentation, backend=backend)
    metadata = {"family": t.family, "task_id": t.id, "split": split, "index": index, "task_digest": t.digest,
                "backend": backend}
    spec = psab.get_family(t.family)
    if spec.tier == "study":
        return _study_sample(t, spec, view, sample_id, lang, solver, metadata)
    instructions = psab.instructions_for(t, lang, presentation, backend)
    if solver == "agent":  # the files go into the sandbox's working directory, as psab run lays them out
        return Sample(input=[ChatMessageUser(content=instructions + WITH_TOOLS)], target="", id=sample_id,
                      files={TASK_FILE: view.to_json(), INSTRUCTIONS_FILE: instructions}, metadata=metadata)
    text = instructions + NO_TOOLS.format(task=view.to_json())
    # the system message goes in the sample itself: inspect's system_message() would treat
    # the braces of the JSON shape in it as a template
    return Sample(input=[ChatMessageSystem(content=OPENAI_SYSTEM), ChatMessageUser(content=text)], target="", id=sample_id,
                  metadata=metadata)


def _study_sample(t: psab.Task, spec: Any, view: psab.Task, sample_id: str, lang: str, solver: str,
                  metadata: dict[str, Any]) -> Sample:
    """A study as a sample: only for the agentic solver (a study's model is files a model must
    read with tools, not text to paste into a prompt), with ``study.json``, the instructions and
    the model files in the sandbox's working directory, as ``psab run --tier study`` lays them out."""
    from pathlib import Path

    from psab.errors import InvalidArgumentError
    from psab.runner.instructions import VIEW_FILE, study_instructions
    from psab.studies.model import model_files

    if solver != "agent":
        raise InvalidArgumentError(f"{t.family} is a study: its model is in files the agent must read with tools; "
                                   "use -T solver=agent")
    # the model files, written once per task digest (a SimBench folder is megabytes: inspect
    # copies each file into the sandbox from its path rather than holding it in the sample)
    where = Path.home() / ".cache" / "psab" / "inspect" / t.digest[:16]
    listed = model_files(t.id, t.public_inputs)
    if not all((where / f["path"]).is_file() for f in listed):
        spec.materialize(t, where)
    paths = {"task": VIEW_FILE, "instructions": INSTRUCTIONS_FILE, "solution": SOLUTION_FILE, "workdir": "."}
    instructions = study_instructions(view, lang, paths)
    files = {VIEW_FILE: view.to_json(), INSTRUCTIONS_FILE: instructions,
             **{f["path"]: str(where / f["path"]) for f in listed}}
    note = WITH_TOOLS.replace("`task.json`", f"`{VIEW_FILE}` and the model files")
    return Sample(input=[ChatMessageUser(content=instructions + note)], target="", id=sample_id, files=files,
                  metadata=metadata)


def psab_dataset(families: str | list[str] | None = None, split: str = "public", count: int = 1, start: int = 0,
                 lang: str = "en", presentation: str = "guided", backend: str = "surrogate",
                 level: int = 1, solver: str = "generate") -> MemoryDataset:
    """The samples: every selected family's public case, or ``count`` held-out draws per family
    from index ``start`` under ``$PSAB_SEED`` (read here, never recorded); for ``solver="agent"``
    with the task files to put in the sandbox."""
    if solver not in SOLVERS:
        raise RunnerError(f"solver must be one of {', '.join(SOLVERS)}, not {solver!r}")
    ids = _family_ids(families, backend)
    samples: list[Sample] = []
    if split == "public":
        for f in ids:
            t = psab.get_family(f).public_task()
            samples.append(_sample(t, f"{f}-public", "public", None, lang, presentation, backend, solver))
    elif split == "heldout":
        seed = os.environ.get(SEED_ENV)
        if not seed:
            raise RunnerError(f"the held-out split needs a private seed in ${SEED_ENV} (never a task argument)")
        for f in ids:
            for i in range(start, start + count):
                with EVAL_LOCK:
                    t = psab.generate(f, seed, i, backend=backend, level=level)
                samples.append(_sample(t, f"{f}-heldout-{i}", "heldout", i, lang, presentation, backend, solver))
    else:
        raise RunnerError(f"split must be public or heldout, not {split!r}")
    return MemoryDataset(samples, name=f"psab-{split}")


def _verdict(t: psab.Task, backend: str, solution: object, shown: str, note: str) -> Score:
    """The score of ``solution``: a document, the bytes of a solution file (parsed and judged as
    :func:`psab.evaluate` judges the file), or None (no answer: judged as an empty one)."""
    from psab.evaluators.batch import SolutionText, evaluate_one

    if solution is None:  # never a str: psab.evaluate reads a str as a file's path
        solution = {"answer": None}
    elif isinstance(solution, bytes):
        solution = SolutionText(solution)
    with EVAL_LOCK:  # Pyomo and the reference cache are not thread-safe
        result = evaluate_one(t, solution, backend)
    explanation = "; ".join(v.describe() for v in result.violations) or "no violations"
    if note:
        explanation = note + "; " + explanation
    return Score(value=result.score, answer=shown[:2000], explanation=explanation,
                 metadata={"feasible": result.feasible, "perfect": result.perfect,
                           "n_violations": len(result.violations)})


def _task_of(state: TaskState) -> psab.Task:
    t = _TASKS.get(str(state.sample_id))
    if t is None:
        raise RunnerError(f"sample {state.sample_id!r} was not loaded by psab_dataset in this process")
    return t


@scorer(metrics=[mean(), stderr()])
def psab_scorer(backend: str = "surrogate"):
    """psab's verdict on the JSON object in the model's reply: ``value`` is the score (0 to 1),
    ``metadata`` holds feasibility and perfection, ``explanation`` the violations."""

    async def score(state: TaskState, target: Target) -> Score:
        t = _task_of(state)
        reply = state.output.completion if state.output else ""
        solution = extract_json_object(reply or "")
        # a reply with no JSON object is evaluated as an empty answer (never as a path: a str
        # given to psab.evaluate names a file)
        if solution is None:
            return _verdict(t, backend, None, reply or "", "the reply holds no JSON object")
        return _verdict(t, backend, solution, json.dumps(solution), "")

    return score


@scorer(metrics=[mean(), stderr()])
def psab_file_scorer(backend: str = "surrogate"):
    """psab's verdict on the ``solution.json`` the agent wrote in its sandbox (the agentic
    solver): read as bytes and judged as :func:`psab.evaluate` judges a solution file."""

    async def score(state: TaskState, target: Target) -> Score:
        from inspect_ai.util import sandbox

        t = _task_of(state)
        try:
            raw = await sandbox().read_file(SOLUTION_FILE, text=False)
        except FileNotFoundError:
            return _verdict(t, backend, None, "", f"the agent wrote no {SOLUTION_FILE}")
        except Exception as exc:  # noqa: BLE001 - whatever the agent left there is its answer, never an error
            return _verdict(t, backend, None, "", f"{SOLUTION_FILE} could not be read ({type(exc).__name__})")
        if len(raw) > SOLUTION_LIMIT_BYTES:
            return _verdict(t, backend, None, "", f"{SOLUTION_FILE} is larger than {SOLUTION_LIMIT_BYTES} bytes")
        return _verdict(t, backend, bytes(raw), bytes(raw[:2000]).decode("utf-8", "replace"), "")

    return score


def agent_solver(tool_timeout_s: int = 180):
    """inspect's ReAct agent with the ``bash`` and ``python`` tools (each call limited to
    ``tool_timeout_s``), run in the task's sandbox; it ends by calling ``submit``."""
    from inspect_ai.agent import as_solver, react
    from inspect_ai.tool import bash, python

    return as_solver(react(name="psab_agent", tools=[bash(timeout=tool_timeout_s), python(timeout=tool_timeout_s)]))


@task
def psab_task(families: str | list[str] | None = None, split: str = "public", count: int = 1, start: int = 0,
              lang: str = "en", presentation: str = "guided", backend: str = "surrogate", level: int = 1,
              solver: str = "generate", sandbox: str = "local", message_limit: int = 50,
              tool_timeout_s: int = 180) -> Task:
    """psab on the chosen families (all, by default) as an inspect task. ``solver="generate"``
    (the default): one model call per sample (the same system message as ``builtin:openai``),
    scored by :func:`psab_scorer`. ``solver="agent"``: :func:`agent_solver` in ``sandbox``
    (``local`` or ``docker``) holding the task files, at most ``message_limit`` messages,
    scored by :func:`psab_file_scorer` on the ``solution.json`` it writes."""
    dataset = psab_dataset(families, split, count, start, lang, presentation, backend, level, solver)
    if solver == "agent":
        return Task(dataset=dataset, solver=agent_solver(tool_timeout_s), scorer=psab_file_scorer(backend),
                    sandbox=sandbox, message_limit=message_limit, name=f"psab-{split}-agent")
    return Task(dataset=dataset, solver=[generate()], scorer=psab_scorer(backend), name=f"psab-{split}")
