"""The instructions file every agent receives, in English or Russian.

Every agent gets the same text for the same task (only the sandbox paths differ between
isolation modes): the task's own presentation, then the protocol — where the task is, what to
write where, the solution format and the answer's JSON Schema. It asks nothing about how the
agent should work; that is part of what is being compared.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

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
    from psab.evaluators.answer_schema import localized

    words = _TEXT[lang]
    text = task.presentation[lang]
    parts = [f"# {words['heading']}: {text['title']}", "", text["statement"].strip()]
    if text.get("answer_notes"):
        parts += ["", text["answer_notes"].strip()]
    if text.get("judged_by"):
        parts += ["", f"## {words['judged']}", "", text["judged_by"].strip()]
    parts += ["", f"## {words['what']}", "", words["body"].format(**paths)]
    parts += ["", f"## {words['constraints']}", ""] + [f"- {c}" for c in task.hard_constraints_in(lang)]
    schema = json.dumps(localized(task.submission_schema, lang), indent=2, ensure_ascii=False, sort_keys=True)
    parts += ["", f"## {words['schema']}", "", "```json", schema, "```", ""]
    return "\n".join(parts)


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
