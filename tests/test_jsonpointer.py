"""psab.jsonpointer against RFC 6901 (JSON Pointer), section 5's example document, and the
properties the callers rely on (round trips, copies that leave the original alone)."""

from __future__ import annotations

import pytest

from psab import jsonpointer as jp

# RFC 6901, section 5: the example document and what each pointer evaluates to.
RFC_DOC = {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, 'k"l': 6, " ": 7, "m~n": 8}
RFC_CASES = [
    ("", RFC_DOC), ("/foo", ["bar", "baz"]), ("/foo/0", "bar"), ("/", 0), ("/a~1b", 1), ("/c%d", 2),
    ("/e^f", 3), ("/g|h", 4), ("/i\\j", 5), ('/k"l', 6), ("/ ", 7), ("/m~0n", 8),
]


@pytest.mark.parametrize(("text", "value"), RFC_CASES)
def test_rfc6901_examples_resolve_and_round_trip(text, value):
    assert jp.get(RFC_DOC, jp.parse(text)) == value
    assert jp.pointer(jp.parse(text)) == text


def test_escape_order_keeps_tilde_one_literal():
    # RFC 6901 section 4: "~01" is "~1" literally, not "/".
    assert jp.unescape("~01") == "~1"
    assert jp.escape("~1") == "~01"


def test_missing_values_raise_lookup_errors():
    for text in ("/nope", "/foo/2", "/foo/x"):
        with pytest.raises((KeyError, IndexError, ValueError)):
            jp.get(RFC_DOC, jp.parse(text))


def test_walk_leaves_and_arrays_visit_in_document_order():
    doc = {"a": [1, {"b": True}], "c": "x"}
    assert [p for p, _ in jp.walk(doc)] == [(), ("a",), ("a", 0), ("a", 1), ("a", 1, "b"), ("c",)]
    assert list(jp.leaves(doc)) == [(("a", 0), 1), (("a", 1, "b"), True), (("c",), "x")]
    assert [p for p, _ in jp.arrays(doc)] == [("a",)]


def test_replaced_and_removed_leave_the_original_alone():
    doc = {"a": [1, {"b": 2}]}
    assert jp.replaced(doc, ("a", 1, "b"), 3) == {"a": [1, {"b": 3}]}
    assert jp.removed(doc, ("a", 1, "b")) == {"a": [1, {}]}
    assert jp.removed(doc, ("a", 0)) == {"a": [{"b": 2}]}
    assert doc == {"a": [1, {"b": 2}]}


def test_schema_at_enters_arrays_by_position_and_resolves_nullable_nodes():
    schema = {"type": "object", "properties": {
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
        "rows": {"type": "array", "items": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {"x": {"enum": [1, 2]}}}]}},
    }}
    assert jp.schema_at(schema, ("pair", 1)) == {"type": "number"}
    assert jp.schema_at(schema, ("rows", 5, "x")) == {"enum": [1, 2]}
    assert jp.schema_at(schema, jp.parse("/rows/5/x")) == {"enum": [1, 2]}
    assert jp.schema_at(schema, ("missing", 0)) is None


@pytest.mark.parametrize(("text", "value"), RFC_CASES)
def test_pointer_to_writes_the_rfc6901_examples(text, value):
    assert jp.pointer_to(*jp.parse(text)) == text


def test_the_escape_has_one_home():
    """Issue 34, item 6: the input checks and the IEC 60909 surrogate write their pointers with
    psab.jsonpointer's, and no other module spells the RFC 6901 escape itself."""
    from pathlib import Path

    import psab
    from psab.evaluators import input_checks
    from psab.surrogates import iec60909

    assert input_checks.pointer is jp.pointer_to
    assert iec60909._ptr is jp.pointer_to
    root = Path(psab.__file__).parent
    spelled = [str(p.relative_to(root)) for p in root.rglob("*.py")
               if '"~0"' in p.read_text(encoding="utf-8") and p.name != "jsonpointer.py"]
    assert spelled == []
