"""lucent.convert: faults found by the hostile-input pass stay typed and are never folded away."""

from __future__ import annotations

import datetime
import json

import pytest

import lucent
from lucent.errors import ConversionError, ValidationError

CALL_A = {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
CALL_B = {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}


def test_a_huge_number_in_an_undefined_member_of_an_open_object_is_a_typed_error() -> None:
    with pytest.raises(ValidationError) as info:
        lucent.convert(b'{"kind":"rate_limit","message":"m","zz":1e999}', "lux", "sparktide", "error")
    assert info.value.code == "number_out_of_range"


def test_a_protocol_fault_is_kept_beside_a_converter_diagnostic_at_the_same_path() -> None:
    body = (
        '{"message":{"role":"assistant","content":"hi","tool_calls":' + json.dumps([CALL_A])
        + ',"tool_calls":' + json.dumps([CALL_B]) + '},"usage":{}}'
    ).encode()
    with pytest.raises(ConversionError) as info:
        lucent.convert(body, "sparktide", "llm-sdk", "response", strict=True, context={"id": "r", "model": "m"})
    invalid = [(d.field, d.status) for d in info.value.diagnostics if d.status == "Invalid"]
    assert invalid == [("$.message.tool_calls", "Invalid")]
    assert "duplicate_key" in next(d.detail for d in info.value.diagnostics if d.status == "Invalid")


@pytest.mark.parametrize("data", [{"model": "\ud800"}, [[[[]]]]], ids=["lone-surrogate", "not-an-object"])
def test_python_input_that_is_not_a_document_is_a_typed_error(data: object) -> None:
    with pytest.raises(lucent.errors.LucentError):
        lucent.convert(data, "lux", "lux")


def test_a_format_or_kind_that_is_not_a_str_is_a_usage_error() -> None:
    for source, target, kind in ((["lux"], "sparktide", "request"), ("lux", ["sparktide"], "request"), ("lux", "sparktide", {"k": 1})):
        with pytest.raises(lucent.errors.UsageError) as caught:
            lucent.convert("{}", source, target, kind=kind)  # type: ignore[arg-type]
        assert caught.value.code == "invalid_input_type"


def test_a_deep_mistyped_context_value_is_invalid_without_echoing_it() -> None:
    deep: object = "secret"
    for _ in range(100_000):
        deep = [deep]
    doc = {"schema_version": "v1", "model": "m", "conversation": [{"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}], "options": {"stream": False}}
    with pytest.raises(lucent.errors.UsageError) as refused:  # deeper than a document may nest
        lucent.convert(json.dumps(doc), "lux", "sparktide", context={"invocationId": deep})
    assert refused.value.code == "invalid_context" and refused.value.path.startswith("$.invocationId[0][0]")
    assert "nests deeper than 128" in refused.value.message and "secret" not in refused.value.message
    shallow: object = "secret"
    for _ in range(3):
        shallow = [shallow]
    result = lucent.convert(json.dumps(doc), "lux", "sparktide", context={"invocationId": shallow})
    found = [d for d in result.diagnostics if d.field == "target:$.invocationId"]
    assert [d.status for d in found][:1] == ["Invalid"]
    assert "is a JSON array" in (found[0].detail or "") and "secret" not in (found[0].detail or "")


def test_a_stream_kind_points_to_the_stream_converter() -> None:
    with pytest.raises(lucent.errors.UsageError) as caught:
        lucent.convert(b"data: {}\n\n", "sparktide", "lux", kind="stream")
    assert caught.value.code == "unsupported_conversion"
    assert "lucent.streams.convert_stream" in caught.value.message


CHAT = b'{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"max_tokens":5}'


@pytest.mark.parametrize(
    ("field", "value", "error", "code", "path"),
    [
        ("messages", 5, ValidationError, "type", "$.messages"),
        ("model", None, ValidationError, "type", "$.model"),
        ("max_tokens", float("nan"), lucent.errors.UsageError, "invalid_input_type", "$.max_tokens"),
        ("messages", [object()], lucent.errors.UsageError, "invalid_input_type", "$"),
        ("model", b"gpt-4o", lucent.errors.UsageError, "invalid_input_type", "$.model"),
        ("model", datetime.date(2026, 12, 2), lucent.errors.UsageError, "invalid_input_type", "$.model"),
        ("metadata", {1: "x"}, lucent.errors.UsageError, "invalid_input_type", "$.metadata"),
    ],
    ids=["list-made-int", "required-made-null", "nan", "not-json", "bytes", "date", "int-key"],
)
@pytest.mark.parametrize("target", ["lux", "anthropic", "openai-chat"])
def test_a_struct_given_a_value_of_the_wrong_type_is_refused(
    field: str, value: object, error: type[Exception], code: str, path: str, target: str
) -> None:
    # found by the hostile-input pass: a Struct was used as is, and one whose fields were set to
    # the wrong types let TypeError and AttributeError out of the converters
    document = lucent.decode(CHAT, "openai-chat", "CreateChatCompletionRequest")
    setattr(document, field, value)
    with pytest.raises(error) as info:
        lucent.convert(document, "openai-chat", target)
    assert (info.value.code, info.value.path) == (code, path)  # type: ignore[attr-defined]


@pytest.mark.parametrize("target", ["lux", "anthropic", "gemini", "openai-chat"])
def test_a_struct_that_breaks_a_constraint_is_converted_with_its_fault_named(target: str) -> None:
    # as a conversion's own output is, when its target needs what its source lacks
    document = lucent.decode(CHAT, "openai-chat", "CreateChatCompletionRequest")
    document.messages = []  # minItems 1
    result = lucent.convert(document, "openai-chat", target)
    assert [(d.field, d.detail) for d in result.diagnostics if d.status == "Invalid"] == [
        ("$.messages", "Expected `array` of length >= 1 (minItems)")
    ]
    with pytest.raises(ConversionError):
        lucent.convert(document, "openai-chat", target, strict=True)


def test_a_struct_no_converter_can_read_raises_its_fault() -> None:
    document = lucent.decode(CHAT, "openai-chat", "CreateChatCompletionRequest")
    document.messages = [{"role": "nobody", "content": "hi"}]  # a dict where a message Struct belongs
    with pytest.raises(ValidationError) as info:
        lucent.convert(document, "openai-chat", "anthropic")
    assert (info.value.code, info.value.path) == ("const", "$.messages[0].role")


def test_a_struct_converts_as_its_json_text_does() -> None:
    document = lucent.decode(CHAT, "openai-chat", "CreateChatCompletionRequest")
    from_struct = lucent.convert(document, "openai-chat", "anthropic")
    from_text = lucent.convert(CHAT, "openai-chat", "anthropic")
    assert lucent.encode(from_struct.value) == lucent.encode(from_text.value)
    assert from_struct.diagnostics == from_text.diagnostics
    assert lucent.encode(from_struct.value).startswith(b'{"model":"gpt-4o"')


def test_a_property_named_twice_is_named_where_the_earlier_value_is_dropped() -> None:
    body = b'{"model":"a","model":"gpt-4o","messages":[{"role":"user","content":"hi","content":"there"}],"max_tokens":5}'
    for target in ("anthropic", "openai-chat"):
        result = lucent.convert(body, "openai-chat", target)
        assert [(d.field, d.status) for d in result.diagnostics] == [("$.model", "Unsupported"), ("$.messages[0].content", "Unsupported")]
        assert "the last value is kept" in result.diagnostics[0].detail
        assert lucent.encode(result.value).count(b"there") == 1 and b'"model":"gpt-4o"' in lucent.encode(result.value)
    with pytest.raises(ConversionError):
        lucent.convert(body, "openai-chat", "anthropic", strict=True)
    plain = body.replace(b'"model":"a",', b"").replace(b'"content":"hi",', b"")
    assert lucent.convert(plain, "openai-chat", "anthropic").diagnostics == []


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"model": b"gpt-4o", "messages": []}, "$.model"),
        ({"model": "m", "messages": [], "metadata": {1: "x"}}, "$.metadata"),
        ({"model": "m", "messages": ({"role": "user", "content": "hi"},)}, "$.messages"),
        ({"model": "m", "messages": [{"role": "user", "content": {"a", "b"}}]}, "$.messages[0].content"),
    ],
    ids=["bytes", "int-key", "tuple", "set"],
)
def test_a_python_value_msgspec_would_rewrite_is_not_taken_for_json(value: object, path: str) -> None:
    # found by the hostile-input pass: bytes reached the converter as base64 text the caller
    # never wrote (and int keys as strings, tuples and sets as arrays)
    with pytest.raises(lucent.errors.UsageError) as info:
        lucent.convert(value, "openai-chat", "anthropic")
    assert (info.value.code, info.value.path) == ("invalid_input_type", path)


def test_a_json_value_converts_as_its_text_does() -> None:
    value = json.loads(CHAT)
    assert lucent.encode(lucent.convert(value, "openai-chat", "anthropic").value) == lucent.encode(lucent.convert(CHAT, "openai-chat", "anthropic").value)
