"""JSON pointers (RFC 6901) and paths into plain JSON data: the one home of every walk.

A *path* is a tuple of object keys (``str``) and array positions (``int``); its *pointer* is
the RFC 6901 text, ``("schedule", 3, "p_mw")`` → ``/schedule/3/p_mw``, with ``~`` written
``~0`` and ``/`` written ``~1`` inside a token (RFC 6901, section 3), so an id such as
``T1/T2`` stays one token. :func:`parse` reads a pointer back into its (unescaped, string)
tokens; :func:`get` accepts either form, indexing an array by ``int(token)`` (section 4).

Used by the artifact schemas' error pointers (:mod:`psab.contract`), answer validation
(:mod:`psab.evaluators.validation`), the held-out neighbourhoods and trivial answers
(:mod:`psab.generators.acceptance`), the mutation sweep (:mod:`psab.mutations`) and the golden
cases (:mod:`psab.golden`). Plain Python only: importing it loads neither numpy nor jsonschema.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

Path = tuple[str | int, ...]


def escape(token: Any) -> str:
    """One reference token as it stands in a pointer (``~`` → ``~0``, then ``/`` → ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """The inverse of :func:`escape` (``~1`` → ``/`` before ``~0`` → ``~``, RFC 6901 section 4)."""
    return token.replace("~1", "/").replace("~0", "~")


def pointer(path: Iterable[Any]) -> str:
    """The JSON pointer of ``path`` (``""`` for the whole document)."""
    return "".join("/" + escape(p) for p in path)


def pointer_to(*parts: Any) -> str:
    """:func:`pointer` of the tokens given as arguments: ``pointer_to("lines", 3, "to_bus")`` →
    ``/lines/3/to_bus`` (the form the input checks and the surrogates' problems write)."""
    return pointer(parts)


def parse(text: str) -> list[str]:
    """The unescaped tokens of a pointer (``""`` → ``[]``)."""
    return [unescape(t) for t in text.split("/")[1:]]


def get(doc: Any, path: Iterable[Any]) -> Any:
    """The value at ``path`` (keys and positions, or the tokens of :func:`parse`).

    Raises ``KeyError``, ``IndexError``, ``TypeError`` or ``ValueError`` where the document
    has no such value.
    """
    for p in path:
        doc = doc[int(p)] if isinstance(doc, list) else doc[p]
    return doc


def walk(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every node of ``value`` with its path: the node itself first, then its members in
    order (objects in key order, arrays by position)."""
    yield path, value
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from walk(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, (*path, i))


def leaves(value: Any) -> Iterator[tuple[Path, Any]]:
    """Every value of ``value`` that is neither an object nor an array, in :func:`walk` order."""
    return ((p, v) for p, v in walk(value) if not isinstance(v, (Mapping, list)))


def arrays(value: Any) -> Iterator[tuple[Path, list[Any]]]:
    """Every array in ``value`` (the outer before the inner), in :func:`walk` order."""
    return ((p, v) for p, v in walk(value) if isinstance(v, list))


def clone(value: Any) -> Any:
    """A deep copy of plain JSON data (several times faster than :func:`copy.deepcopy`)."""
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value


def put(doc: Any, path: Path, new: Any) -> None:
    """Set the value at ``path`` (not the root) to ``new``, in place."""
    get(doc, path[:-1])[path[-1]] = new


def replaced(doc: Mapping[str, Any], path: Path, new: Any) -> dict[str, Any]:
    """A copy of the object ``doc`` with the value at ``path`` replaced by ``new``."""
    out = clone(dict(doc))
    put(out, path, new)
    return out


def removed(doc: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """A copy of the object ``doc`` without the member (or array element) at ``path``."""
    out = clone(dict(doc))
    del get(out, path[:-1])[path[-1]]
    return out


# ------------------------------------------------------------------ schemas


def resolve_schema(node: Any) -> Mapping[str, Any] | None:
    """The first non-null alternative of an ``anyOf``/``oneOf`` node (nullable fields); the
    node itself otherwise, ``None`` when it is not a schema object."""
    if not isinstance(node, Mapping):
        return None
    for key in ("anyOf", "oneOf"):
        options = node.get(key)
        if isinstance(options, list):
            for option in options:
                if isinstance(option, Mapping) and option.get("type") != "null":
                    return resolve_schema(option)
    return node


def schema_at(schema: Mapping[str, Any] | None, path: Iterable[Any]) -> Mapping[str, Any] | None:
    """The (resolved) subschema that describes the value at ``path``, or ``None``.

    An array schema (``type: array``, ``items`` or ``prefixItems``) is entered by position:
    ``prefixItems[i]`` where it has one, else ``items``; any other schema by
    ``properties[key]``. Works on paths and on the string tokens of :func:`parse` alike.
    """
    node = resolve_schema(schema)
    for p in path:
        if node is None:
            return None
        if node.get("type") == "array" or "items" in node or "prefixItems" in node:
            prefix = node.get("prefixItems")
            i = _position(p)
            node = prefix[i] if isinstance(prefix, list) and i is not None and 0 <= i < len(prefix) else node.get("items")
        else:
            node = (node.get("properties") or {}).get(p)
        node = resolve_schema(node)
    return node


def _position(token: Any) -> int | None:
    if isinstance(token, int) and not isinstance(token, bool):
        return token
    return int(token) if isinstance(token, str) and token.isdigit() else None
