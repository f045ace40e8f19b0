"""Small builders for submission schemas, so every family writes them the same way.

Every object is closed (``additionalProperties: false``) and requires all its fields unless
told otherwise; arrays have exact lengths; ids are enumerated — so a misspelt field, a wrong
length or an unknown id is reported by validation at its own JSON pointer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: The keyword that carries a description's Russian wording beside the English ``description``
#: (JSON Schema ignores unknown keywords, so validation is unaffected); :func:`localized` turns
#: a schema into the one language an agent reads.
RU = "x-description-ru"
#: The same for a submission schema's ``title``.
RU_TITLE = "x-title-ru"


def words(description: str, ru: str | None = None) -> dict[str, str]:
    """A ``description`` and, where given, its Russian wording."""
    return {"description": description} | ({RU: ru} if ru else {})


def localized(schema: Any, lang: str) -> Any:
    """A copy of ``schema`` worded in ``lang``: in Russian every description (and the title)
    that has a Russian wording takes it; the wording keywords themselves are dropped. Field
    names, types and bounds never change."""
    if isinstance(schema, list):
        return [localized(v, lang) for v in schema]
    if not isinstance(schema, Mapping):
        return schema
    out = {k: localized(v, lang) for k, v in schema.items() if k not in (RU, RU_TITLE)}
    if lang == "ru":
        if isinstance(schema.get(RU), str):
            out["description"] = schema[RU]
        if isinstance(schema.get(RU_TITLE), str):
            out["title"] = schema[RU_TITLE]
    return out

#: Bare fragments for the *input* schemas (the shape of ``public_inputs``, checked before a
#: family reads a task), where a description would only repeat the field's name. Shared, so
#: never mutate them.
ID: dict[str, Any] = {"type": "string", "minLength": 1}
NUMBER: dict[str, Any] = {"type": "number"}
POSITIVE: dict[str, Any] = {"type": "number", "exclusiveMinimum": 0}
NONNEGATIVE: dict[str, Any] = {"type": "number", "minimum": 0}


def number(description: str, *, minimum: float | None = None, maximum: float | None = None,
           exclusive_minimum: float | None = None, ru: str | None = None) -> dict[str, Any]:
    """A JSON number (integers allowed) with an engineering description including its unit
    (``ru``: the same description in Russian)."""
    out: dict[str, Any] = {"type": "number", **words(description, ru)}
    if minimum is not None:
        out["minimum"] = minimum
    if maximum is not None:
        out["maximum"] = maximum
    if exclusive_minimum is not None:
        out["exclusiveMinimum"] = exclusive_minimum
    return out


def integer(description: str, *, minimum: int | None = None, maximum: int | None = None,
            ru: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "integer", **words(description, ru)}
    if minimum is not None:
        out["minimum"] = minimum
    if maximum is not None:
        out["maximum"] = maximum
    return out


def boolean(description: str, *, ru: str | None = None) -> dict[str, Any]:
    return {"type": "boolean", **words(description, ru)}


def enum(values: Iterable[Any], description: str, *, ru: str | None = None) -> dict[str, Any]:
    return {"enum": list(values), **words(description, ru)}


def array(items: Mapping[str, Any], description: str, *, length: int | None = None,
          min_items: int | None = None, max_items: int | None = None, unique: bool = False,
          ru: str | None = None) -> dict[str, Any]:
    """An array; ``length`` fixes its exact size."""
    out: dict[str, Any] = {"type": "array", "items": dict(items), **words(description, ru)}
    if length is not None:
        out["minItems"] = out["maxItems"] = length
    if min_items is not None:
        out["minItems"] = min_items
    if max_items is not None:
        out["maxItems"] = max_items
    if unique:
        out["uniqueItems"] = True
    return out


def matrix(rows: int, cols: int, description: str, cell: Mapping[str, Any] | None = None, *,
           ru: str | None = None) -> dict[str, Any]:
    """A ``rows × cols`` array of arrays of numbers."""
    item = dict(cell) if cell is not None else {"type": "number"}
    return array(array(item, "one row", length=cols, ru="одна строка" if ru else None), description, length=rows, ru=ru)


def obj(properties: Mapping[str, Mapping[str, Any]], description: str = "", *,
        optional: Iterable[str] = (), ru: str | None = None) -> dict[str, Any]:
    """A closed object requiring every property except those named ``optional``."""
    opt = set(optional)
    out: dict[str, Any] = {
        "type": "object",
        "properties": {k: dict(v) for k, v in properties.items()},
        "required": [k for k in properties if k not in opt],
        "additionalProperties": False,
    }
    if description:
        out.update(words(description, ru))
    return out


def submission(properties: Mapping[str, Mapping[str, Any]], title: str, *, optional: Iterable[str] = (),
               ru: str | None = None) -> dict[str, Any]:
    """The top-level submission schema of a task (``ru``: its title in Russian)."""
    out = obj(properties, optional=optional)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title,
            **({RU_TITLE: ru} if ru else {}), **out}
