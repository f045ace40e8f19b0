"""The instructions file every agent receives, in English or Russian.

Every agent gets the same text for the same task (only the sandbox paths differ between
isolation modes): the task's own presentation, then the protocol — where the task is, what to
write where, the solution format and the answer's JSON Schema. It asks nothing about how the
agent should work; that is part of what is being compared.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from psab.contract import Task

LANGS = ("en", "ru")

_TEXT = {
    "en": {
        "heading": "Task",
        "what": "What to do",
        "body": (
            "The task is described in full in the JSON file `{task}`: its public inputs "
            "(`public_inputs`), the hard constraints the answer must satisfy (`hard_constraints`), the "
            "tolerances, the provenance of the case, and the JSON Schema the answer must follow "
            "(`submission_schema`).\n\n"
            "Write your solution to `{solution}` as one JSON object:\n\n"
            "```json\n{{\"answer\": {{ ... }}, \"rationale\": \"how you obtained the answer, briefly\"}}\n```\n\n"
            "- `answer` must satisfy `submission_schema` exactly: the field names given there (units are part "
            "of the names), every required field, no extra fields, plain JSON numbers (no strings, no NaN).\n"
            "- The answer is checked by recomputing the engineering quantities and checking every hard "
            "constraint; the rationale is recorded but not scored.\n"
            "- Your working directory is `{workdir}`; you may create files there.\n"
            "- You are done when `{solution}` has been written."
        ),
        "schema": "Answer schema (`submission_schema`)",
        "constraints": "Hard constraints",
        "judged": "How the answer is judged",
    },
    "ru": {
        "heading": "Задача",
        "what": "Что нужно сделать",
        "body": (
            "Полное описание задачи находится в JSON-файле `{task}`: исходные данные (`public_inputs`), "
            "жёсткие ограничения, которым должен удовлетворять ответ (`hard_constraints`), допуски, "
            "источники данных и JSON-схема ответа (`submission_schema`).\n\n"
            "Запишите решение в файл `{solution}` в виде одного JSON-объекта:\n\n"
            "```json\n{{\"answer\": {{ ... }}, \"rationale\": \"кратко: как получен ответ\"}}\n```\n\n"
            "- Поле `answer` должно в точности соответствовать `submission_schema`: имена полей — как в "
            "схеме (единицы измерения входят в имя), все обязательные поля на месте, лишних полей нет, "
            "числа — обычные числа JSON (не строки и не NaN).\n"
            "- Ответ проверяется пересчётом инженерных величин и проверкой каждого жёсткого ограничения; "
            "пояснение (`rationale`) сохраняется, но не оценивается.\n"
            "- Рабочий каталог — `{workdir}`; в нём можно создавать файлы.\n"
            "- Работа закончена, когда файл `{solution}` записан."
        ),
        "schema": "Схема ответа (`submission_schema`)",
        "constraints": "Жёсткие ограничения",
        "judged": "Как проверяется ответ",
    },
}


def instructions(task: Task, lang: str, paths: Mapping[str, str]) -> str:
    """The instructions for ``task`` in ``lang`` with the agent-side ``paths`` filled in.

    ``task`` is normally an agent's view (:func:`psab.views.agent_view`): then the statement is
    the one of its presentation level and the instructions say which backend judges the
    answer and by which rule. The answer schema is shown worded in ``lang``.
    """
    words = _TEXT[lang]
    text = task.presentation[lang]
    parts = [f"# {words['heading']}: {text['title']}", "", text["statement"].strip()]
    if text.get("answer_notes"):
        parts += ["", text["answer_notes"].strip()]
    return "\n".join(parts + _closing_sections(task, text, words, lang, paths))


def _closing_sections(task: Task, text: Mapping[str, str], words: Mapping[str, str], lang: str,
                      paths: Mapping[str, str]) -> list[str]:
    """The sections every instruction text ends with, a compact task's and a study's alike: how
    the answer is judged, what to write where, the hard constraints and the answer schema (worded
    in ``lang``)."""
    from psab.evaluators.answer_schema import localized

    parts: list[str] = []
    if text.get("judged_by"):
        parts += ["", f"## {words['judged']}", "", text["judged_by"].strip()]
    parts += ["", f"## {words['what']}", "", words["body"].format(**paths)]
    parts += ["", f"## {words['constraints']}", ""] + [f"- {c}" for c in task.hard_constraints_in(lang)]
    schema = json.dumps(localized(task.submission_schema, lang), indent=2, ensure_ascii=False, sort_keys=True)
    return parts + ["", f"## {words['schema']}", "", "```json", schema, "```", ""]


#: Where the files are when no sandbox names them (a harness that hands the agent the text).
DEFAULT_PATHS = {"task": "task.json", "instructions": "instructions.md", "solution": "solution.json", "workdir": "."}


def instructions_for(task: Task, lang: str = "en", presentation: str = "guided", backend: str = "surrogate",
                     paths: Mapping[str, str] | None = None) -> str:
    """The instructions an agent sees for ``task``: its agent view at ``presentation`` level,
    judged by ``backend`` (:func:`psab.views.agent_view`), in ``lang``, with ``paths`` (default:
    the file names relative to the working directory). ``psab run`` gives every agent exactly
    this text with the sandbox's paths; harnesses (inspect-ai, Harbor) use it as it is."""
    from psab.errors import InvalidArgumentError
    from psab.views import agent_view

    if lang not in LANGS:
        raise InvalidArgumentError(f"lang must be one of {', '.join(LANGS)}, not {lang!r}")
    view = agent_view(task, presentation=presentation, backend=backend)
    return instructions(view, lang, {**DEFAULT_PATHS, **(paths or {})})


# ------------------------------------------------------------------------------ a study's

#: The agent's view of a study, in its working directory.
VIEW_FILE = "study.json"

#: How the toolbox's libraries read each model format (each call run in the built toolbox on a
#: study's files: tests/test_toolbox.py): the field's readers, so that an agent does not write its
#: own parser because the reader lives at a path its documentation does not show (pandapower 3.5
#: has ``from_mpc`` in ``pandapower.converter.matpower``, not in ``pandapower.converter``).
MODEL_READERS = {
    "matpower": {"en": "pandapower reads it with `pandapower.converter.matpower.from_mpc(path, f_hz=60)` "
                       "(through matpowercaseframes)",
                 "ru": "pandapower читает его функцией `pandapower.converter.matpower.from_mpc(path, f_hz=60)` "
                       "(через matpowercaseframes)"},
    "simbench-csv": {"en": "simbench reads the folder with `simbench.csv2pp(folder)` (a pandapower net with its "
                           "profiles in `net.profiles`)",
                     "ru": "simbench читает каталог функцией `simbench.csv2pp(folder)` (сеть pandapower, профили в "
                           "`net.profiles`)"},
    "psse": {"en": "ANDES reads both with `andes.load(raw_path, addfile=dyr_path)`",
             "ru": "ANDES читает оба файла: `andes.load(raw_path, addfile=dyr_path)`"},
}

_STUDY_TEXT = {
    "en": {
        "deliverables": "Deliverables",
        "weights": "Each deliverable is scored in [0, 1]; the score is their weighted mean (weights above) when "
                   "the decision meets every criterion, and 0 when it does not.",
        "model": "The model",
        "model_body": "The model is in the field's own files ({format}; source: {source}), in your working "
                      "directory `{workdir}`:",
        "what": "What to do",
        "body": (
            "The study is described in full in the JSON file `{task}`: its inputs (`public_inputs`: the "
            "scenario over the model, the planning criteria, the candidate catalogue with costs), the hard "
            "constraints, the tolerances, the provenance, and the JSON Schema of the answer "
            "(`submission_schema`).\n\n"
            "Write your solution to `{solution}` as one JSON object:\n\n"
            "```json\n{{\"answer\": {{ ... one field per deliverable ... }}, \"rationale\": \"how you obtained it, "
            "briefly\"}}\n```\n\n"
            "- `answer` must satisfy `submission_schema` exactly: the field names given there (units are part "
            "of the names), every required field, no extra fields, plain JSON numbers, ids as strings.\n"
            "- Every analysis is checked against psab's recomputation on the model; the decision is applied to "
            "the model and every criterion re-simulated. The rationale is recorded but not scored.\n"
            "- Your working directory is `{workdir}`; you may create files there.\n"
            "- You are done when `{solution}` has been written."
        ),
        "constraints": "Hard constraints",
        "schema": "Answer schema (`submission_schema`)",
        "judged": "How the answer is judged",
    },
    "ru": {
        "deliverables": "Результаты",
        "weights": "Каждый результат оценивается числом от 0 до 1; оценка — их взвешенное среднее (веса выше), "
                   "если решение выполняет все критерии, и 0, если не выполняет.",
        "model": "Модель",
        "model_body": "Модель — в файлах в принятых в отрасли форматах ({format}; источник: {source}), в рабочем "
                      "каталоге `{workdir}`:",
        "what": "Что нужно сделать",
        "body": (
            "Полное описание исследования — в JSON-файле `{task}`: исходные данные (`public_inputs`: сценарий "
            "поверх модели, критерии планирования, каталог мероприятий со стоимостями), жёсткие ограничения, "
            "допуски, источники и JSON-схема ответа (`submission_schema`).\n\n"
            "Запишите решение в файл `{solution}` в виде одного JSON-объекта:\n\n"
            "```json\n{{\"answer\": {{ ... по полю на каждый результат ... }}, \"rationale\": \"кратко: как "
            "получен ответ\"}}\n```\n\n"
            "- Поле `answer` должно в точности соответствовать `submission_schema`: имена полей — как в схеме "
            "(единицы измерения входят в имя), все обязательные поля на месте, лишних полей нет, числа — "
            "обычные числа JSON, идентификаторы — строки.\n"
            "- Каждый анализ сверяется с пересчётом psab на модели; решение применяется к модели, и каждый "
            "критерий проверяется заново. Пояснение (`rationale`) сохраняется, но не оценивается.\n"
            "- Рабочий каталог — `{workdir}`; в нём можно создавать файлы.\n"
            "- Работа закончена, когда файл `{solution}` записан."
        ),
        "constraints": "Жёсткие ограничения",
        "schema": "Схема ответа (`submission_schema`)",
        "judged": "Как проверяется ответ",
    },
}


def study_instructions(view: Task, lang: str, paths: dict[str, str]) -> str:
    """A study's instructions in ``lang``: the brief (the view's statement at its presentation
    level), the deliverables with their weights, where the model files are, what to write where,
    the hard constraints and the answer schema. The toolbox's section is added by the runner."""
    from psab.registry import get_family
    from psab.studies.model import deliverables_table

    words = _STUDY_TEXT[lang]
    spec = get_family(view.family)
    text = view.presentation[lang]
    parts = [f"# {text['title']}", "", text["statement"].strip()]
    if text.get("answer_notes"):
        parts += ["", text["answer_notes"].strip()]
    table = deliverables_table(spec, lang)
    if table not in text["statement"]:  # a statement may already show it
        parts += ["", f"## {words['deliverables']}", "", table, "", words["weights"]]
    model = view.public_inputs.get("model") or {}
    files = [f.get("path") for f in model.get("files") or [] if isinstance(f, dict)]
    parts += ["", f"## {words['model']}", "",
              words["model_body"].format(format=model.get("format", "?"), source=model.get("source", "?"), **paths), ""]
    parts += [f"- `{Path(paths['workdir']) / str(p)}`" for p in files]
    reader = MODEL_READERS.get(str(model.get("format")), {}).get(lang)
    if reader:
        parts += ["", f"{reader}."]
    return "\n".join(parts + _closing_sections(view, text, words, lang, paths))
