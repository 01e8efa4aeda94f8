"""The quick duplicate-key acceptances (issue 6) agree with the full checks they stand before.

lucent._decode._no_key_lost (SparkTide documents) and lucent._validation._plain_json_object (tool
arguments) accept a text without the Python-level parse only when a count of ``:`` shows that
no member was lost; every duplicate must still reach the full check and be refused at its path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lucent
from lucent._decode import _no_key_lost, _decoder
from lucent.errors import ValidationError
from lucent._validation import JsonTextError, _plain_json_object, dump_json_text, is_compact_text, load_json_text, plain_json_object

_EXAMPLE = json.loads((Path(__file__).resolve().parents[1] / "examples" / "sparktide-request.json").read_text())
_SCHEMA, _DEFINITION = "sparktide-remote-1.0", "RemoteModelRequest"


def _objects(value: Any, path: str) -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(value, dict):
        found.append((path, value))
        for key, item in value.items():
            found += _objects(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _objects(item, f"{path}[{index}]")
    return found


def _with_duplicate(doc: Any, target: dict[str, Any], key: str) -> str:
    """The document's compact text with ``key`` of the object ``target`` written twice (first
    occurrence first, so the value msgspec keeps is the one the document had)."""
    if isinstance(doc, dict):
        members = [json.dumps(k) + ":" + _with_duplicate(v, target, key) for k, v in doc.items()]
        if doc is target:
            members.insert(0, json.dumps(key) + ":" + json.dumps(doc[key], separators=(",", ":"), ensure_ascii=False))
        return "{" + ",".join(members) + "}"
    if isinstance(doc, list):
        return "[" + ",".join(_with_duplicate(v, target, key) for v in doc) + "]"
    return json.dumps(doc, ensure_ascii=False)


def test_the_example_request_passes_the_quick_check() -> None:
    text = json.dumps(_EXAMPLE, ensure_ascii=False).encode()
    value = lucent.decode(text, _SCHEMA, _DEFINITION)
    assert _no_key_lost(text, value, _decoder(_SCHEMA, _DEFINITION).type)


@pytest.mark.parametrize(("path", "key"), [(p, k) for p, o in _objects(_EXAMPLE, "$") for k in o])
def test_every_duplicated_member_of_a_request_is_refused_at_its_path(path: str, key: str) -> None:
    target = dict(_objects(_EXAMPLE, "$"))[path]
    text = _with_duplicate(_EXAMPLE, target, key).encode()
    with pytest.raises(ValidationError) as info:
        lucent.decode(text, _SCHEMA, _DEFINITION)
    assert (info.value.code, info.value.path) == ("duplicate_key", f"{path}.{key}")


def test_an_escaped_colon_does_not_hide_a_duplicate() -> None:
    # the kept string holds a ':' the text spells \u003a, which would balance the lost separator
    body = json.dumps(dict(_EXAMPLE, invocationId="i:")).replace('"i:"', '"i\\u003a"')
    doubled = '{"protocolVersion":"1.0",' + body[1:]
    with pytest.raises(ValidationError) as info:
        lucent.decode(doubled.encode(), _SCHEMA, _DEFINITION)
    assert (info.value.code, info.value.path) == ("duplicate_key", "$.protocolVersion")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(alphabet=":{}[]\",\\abud83\u00e9\U0001f600"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet=":ab\"", max_size=3), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(alphabet=":ab\"", max_size=3), _JSON, max_size=4), st.integers(min_value=0, max_value=3), st.booleans(), st.booleans())
def test_quick_argument_check_accepts_only_what_the_full_reading_accepts(obj: dict[str, Any], at: int, duplicate: bool, ascii: bool) -> None:
    text = json.dumps(obj, ensure_ascii=ascii)
    if duplicate and obj:
        key = list(obj)[at % len(obj)]
        text = "{" + json.dumps(key) + ":" + json.dumps(obj[key], ensure_ascii=ascii) + "," + text[1:]
    try:
        full: Any = load_json_text(text)
    except JsonTextError:
        full = None
    if _plain_json_object(text):
        assert isinstance(full, dict) and not (duplicate and obj)
    elif not (duplicate and obj):
        assert full == obj  # refused by the quick check only for an escape; the full check accepts it


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(alphabet=":ab\"", max_size=3), _JSON, max_size=4), st.sampled_from([(",", ":"), (", ", ": ")]), st.booleans())
def test_the_quick_reading_of_tool_arguments_is_the_full_one(obj: dict[str, Any], separators: tuple[str, str], ascii: bool) -> None:
    """plain_json_object + is_compact_text (Anthropic tool input) give the object and the
    "re-serialized" answer the full reading (load_json_text, dump_json_text) gives."""
    text = json.dumps(obj, ensure_ascii=ascii, separators=separators)
    plain = plain_json_object(text)
    if plain is not None:
        full = load_json_text(text)
        assert plain[0] == full and list(plain[0]) == list(full)
        assert is_compact_text(text, *plain) == (dump_json_text(full) == text)


@pytest.mark.parametrize(("text", "compact"), [('{"a":1e+16}', True), ('{"a":1e16}', False), ('{"a":1e-05}', True), ('{"a":0.00001}', False),
                                               ('{"a":"\\u00e9"}', False), ('{"a":"\u00e9"}', True), ('{"a": 1}', False), ('{"k":"1e5"}', True)])
def test_a_float_is_compared_as_python_writes_it(text: str, compact: bool) -> None:
    plain = plain_json_object(text)
    assert plain is not None and is_compact_text(text, *plain) is compact and (dump_json_text(plain[0]) == text) is compact


@pytest.mark.parametrize("unknown", ['"x":1', '"x":"a\\u003ab"', '"x":{"y:":"z"}'])
def test_an_unknown_member_of_an_open_object_is_still_reported_by_convert(unknown: str) -> None:
    # the ':' count says "a member was lost" and the full walk names it
    body = '{"schema_version":"v1","model":"m","conversation":[{"type":"message","message":{"role":"user","content":[{"type":"text","text":"hi:",' + unknown + "}]}}],\"options\":{\"stream\":false}}"
    result = lucent.convert(body.encode(), source="lux", target="llm-sdk")
    unsupported = [d.field for d in result.diagnostics if d.status == "Unsupported"]
    assert "$.conversation[0].message.content[0].x" in unsupported


def test_an_open_document_without_unknown_members_reports_none() -> None:
    body = b'{"schema_version":"v1","model":"m","conversation":[{"type":"message","message":{"role":"user","content":[{"type":"text","text":"a:b"}]}}],"options":{"stream":false}}'
    result = lucent.convert(body, source="lux", target="llm-sdk")
    assert [d for d in result.diagnostics if d.status == "Unsupported"] == []
