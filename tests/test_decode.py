"""decode/encode: exact acceptance, typed errors with paths, and the bad-input classes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

import lucent
from lucent.errors import DecodeError, LucentError, UsageError, ValidationError
from lucent.generated import llm_sdk, lux_ir_v1, sparktide_remote_1_0

DATA = Path(__file__).parent / "data"
CASES = DATA / "cases"
DOCS = DATA / "sparktide-docs"
SPARKTIDE = "sparktide-remote-1.0"


def case(name: str) -> dict[str, Any]:
    return json.loads((CASES / name).read_text(encoding="utf-8"))


def sparktide_request(**changes: Any) -> dict[str, Any]:
    doc = json.loads((DOCS / "request.json").read_text(encoding="utf-8"))
    doc.update(changes)
    return doc


# ---------------------------------------------------------------- the cases


def test_case_05_malformed_tool_arguments_is_a_validation_error_at_the_arguments() -> None:
    c = case("05-sparktide-malformed-tool-arguments.json")
    with pytest.raises(ValidationError) as info:
        lucent.decode(json.dumps(c["input"]), c["schema"], c["definition"])
    assert info.value.path == c["expect"]["error_path"]
    assert info.value.code == "tool_arguments"


@pytest.mark.parametrize(
    "arguments",
    ['{"a": 1', "null", '{"a": 1} {"b": 2}', '{"a": 1, "a": 2}', "[1]", '"text"', "NaN", ""],
    ids=["unclosed", "null", "trailing-json", "duplicate-key", "array", "string", "nan", "empty"],
)
def test_tool_arguments_must_be_one_closed_object_without_duplicates(arguments: str) -> None:
    doc = sparktide_request(
        messages=[
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}]},
            {"role": "tool", "tool_call_id": "c", "content": "r"},
        ]
    )
    with pytest.raises(ValidationError) as info:
        lucent.decode(json.dumps(doc), SPARKTIDE, "RemoteModelRequest")
    assert (info.value.code, info.value.path) == ("tool_arguments", "$.messages[1].tool_calls[0].function.arguments")
    # The schema alone accepts it: the rule is the protocol's, and rules="schema" skips it.
    assert lucent.decode(json.dumps(doc), SPARKTIDE, "RemoteModelRequest", rules="schema").messages[1].tool_calls[0].function.arguments == arguments


def test_case_08_lone_surrogate_escape_is_a_decode_error_with_its_offset() -> None:
    c = case("08-lone-surrogate-escape.json")
    text = c["input_text"]
    with pytest.raises(DecodeError) as info:
        lucent.decode(text, c["schema"], c["definition"])
    assert info.value.code == "lone_surrogate"
    assert info.value.offset == text.encode().index(b"\\ud800")


@pytest.mark.parametrize("escape", ["\\udc00", "\\ud800x", "\\ud800\\u0041", "\\udbff"])
def test_every_unpaired_surrogate_escape_is_rejected(escape: str) -> None:
    with pytest.raises(DecodeError) as info:
        lucent.decode('{"type":"text","text":"a' + escape + '"}', "llm-sdk", "TextPart")
    assert info.value.code == "lone_surrogate"


def test_a_paired_surrogate_escape_is_one_character() -> None:
    part = lucent.decode('{"type":"text","text":"\\ud83d\\ude00"}', "llm-sdk", "TextPart")
    assert part.text == "\U0001f600"


def test_a_python_str_with_a_lone_surrogate_is_a_decode_error() -> None:
    with pytest.raises(DecodeError) as info:
        lucent.decode('{"type":"text","text":"\ud800"}', "llm-sdk", "TextPart")
    assert info.value.code == "lone_surrogate"


def test_case_17_sparktide_body_over_1_mib_is_refused_before_parsing() -> None:
    doc = sparktide_request()
    doc["messages"][0]["content"] = "x" * 1_048_577
    body = json.dumps(doc).encode()
    with pytest.raises(ValidationError) as info:
        lucent.decode(body, SPARKTIDE, "RemoteModelRequest")
    assert (info.value.code, info.value.path) == ("max_body_bytes", "$")
    # "before parsing": a body that is too large *and* malformed still reports the size.
    with pytest.raises(ValidationError) as info:
        lucent.decode(body[:-1], SPARKTIDE, "RemoteModelRequest")
    assert info.value.code == "max_body_bytes"


def test_a_body_of_exactly_1_mib_is_accepted() -> None:
    doc = sparktide_request()
    doc["messages"][0]["content"] = ""
    size = len(json.dumps(doc, separators=(",", ":")).encode())
    doc["messages"][0]["content"] = "x" * (1_048_576 - size)
    body = json.dumps(doc, separators=(",", ":")).encode()
    assert len(body) == 1_048_576
    assert lucent.decode(body, SPARKTIDE, "RemoteModelRequest").messages[0].content == "x" * (1_048_576 - size)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"", "malformed_json"),
        (b"  \n ", "malformed_json"),
        (b'{"a":', "malformed_json"),
        (b"{} []", "malformed_json"),
        (b'{"a": NaN}', "malformed_json"),
        (b"\xef\xbb\xbf{}", "malformed_json"),
        (b'{"a":"\xff"}', "invalid_utf8"),
        (b"[" * 100_000 + b"]" * 100_000, None),
    ],
    ids=["empty", "whitespace", "truncated", "trailing", "nan", "bom", "invalid-utf8", "deep-root"],
)
def test_malformed_json_is_a_typed_error(body: bytes, code: str | None) -> None:
    with pytest.raises(LucentError) as info:
        lucent.decode(body, "lux-ir-v1", "LucentRequest")
    if code is not None:
        assert isinstance(info.value, DecodeError)
        assert info.value.code == code
    assert info.value.path.startswith("$")


def test_nesting_100000_levels_inside_an_open_value_is_a_max_depth_error() -> None:
    body = b'{"messages":[],"extra":{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    with pytest.raises(DecodeError) as info:
        lucent.decode(body, "llm-sdk", "LanguageModelInput")
    assert info.value.code == "max_depth"


@pytest.mark.parametrize(
    ("doc", "code", "path"),
    [
        ({"role": "user", "content": 3}, "type", "$.content"),
        ({"role": "user", "content": "a", "name": "x"}, "additionalProperties", "$"),
        ({"role": "robot", "content": "a"}, "enum", "$.role"),
        ({"role": "tool", "content": "a"}, "required", "$"),
        ({"role": "user", "content": "a", "tool_call_id": "c"}, "not", "$"),
        ({"role": "assistant"}, "anyOf", "$"),
        ({"role": "assistant", "content": None, "tool_calls": []}, "anyOf", "$"),
        ({"role": "tool", "content": "a", "tool_call_id": " "}, "pattern", "$.tool_call_id"),
        ({"role": "tool", "content": "a", "tool_call_id": ""}, "minLength", "$.tool_call_id"),
        ({"role": "user", "content": None}, "type", "$.content"),
    ],
    ids=["wrong-type", "unknown-field", "enum", "if-then-required", "else-not", "anyof", "anyof-minitems", "pattern", "minlength", "else-type"],
)
def test_sparktide_message_rules_fail_with_keyword_and_path(doc: dict[str, Any], code: str, path: str) -> None:
    with pytest.raises(ValidationError) as info:
        lucent.decode(json.dumps(doc), SPARKTIDE, "RemoteModelMessage")
    assert (info.value.code, info.value.path) == (code, path)


def test_business_purpose_requires_the_identity_fields_and_probe_forbids_them() -> None:
    business = sparktide_request()
    del business["traceId"]
    with pytest.raises(ValidationError) as info:
        lucent.decode(json.dumps(business), SPARKTIDE, "RemoteModelRequest")
    assert (info.value.code, info.value.path) == ("required", "$")
    probe = sparktide_request(purpose="SYNTHETIC_PROBE")
    with pytest.raises(ValidationError) as info:
        lucent.decode(json.dumps(probe), SPARKTIDE, "RemoteModelRequest")
    assert info.value.code == "not"
    for key in ("subjectId", "tenantId", "runId", "traceId"):
        del probe[key]
    assert lucent.decode(json.dumps(probe), SPARKTIDE, "RemoteModelRequest").purpose == "SYNTHETIC_PROBE"


def test_response_message_is_narrowed_to_the_assistant_role() -> None:
    doc = {"message": {"role": "user", "content": "a"}, "usage": {}}
    with pytest.raises(ValidationError) as info:
        lucent.decode(json.dumps(doc), SPARKTIDE, "RemoteModelResponse")
    assert (info.value.code, info.value.path) == ("const", "$.message.role")


def test_tool_delta_needs_one_of_id_name_or_arguments() -> None:
    frame = {"protocolVersion": "1.0", "type": "tool.delta", "index": 0}
    with pytest.raises(ValidationError) as info:
        lucent.decode(json.dumps(frame), SPARKTIDE, "RemoteModelStreamFrame")
    assert info.value.code == "anyOf"
    decoded = lucent.decode(json.dumps({**frame, "name": "f"}), SPARKTIDE, "RemoteModelStreamFrame")
    assert isinstance(decoded, sparktide_remote_1_0.RemoteModelToolDelta) and decoded.name == "f"


def test_duplicate_properties_are_refused_in_sparktide_with_their_path() -> None:
    body = b'{"protocolVersion":"1.0","type":"text.delta","text":"a","text":"b"}'
    with pytest.raises(ValidationError) as info:
        lucent.decode(body, SPARKTIDE)
    assert (info.value.code, info.value.path) == ("duplicate_key", "$.text")
    # llm-sdk states no such rule: JSON Schema sees the last value.
    assert lucent.decode(b'{"type":"text","text":"a","text":"b"}', "llm-sdk", "TextPart").text == "b"


# ---------------------------------------------------------------- the root


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("request.json", sparktide_remote_1_0.RemoteModelRequest),
        ("failure.json", sparktide_remote_1_0.RemoteModelFailure),
        ("error-frame.json", sparktide_remote_1_0.RemoteModelError),
    ],
)
def test_the_sparktide_root_decodes_each_kind(name: str, cls: type) -> None:
    assert type(lucent.decode((DOCS / name).read_bytes(), SPARKTIDE)) is cls


def test_every_stream_frame_of_the_documented_stream_decodes_as_the_root() -> None:
    frames = [line[len("data: "):] for line in (DOCS / "stream.sse").read_text(encoding="utf-8").splitlines() if line.startswith("data: ")]
    kinds = [type(lucent.decode(frame, SPARKTIDE)).__name__ for frame in frames]
    assert kinds == ["RemoteModelTextDelta", "RemoteModelToolDelta", "RemoteModelToolDelta", "RemoteModelUsageDelta", "RemoteModelCompleted"]


def test_the_lux_schema_example_decodes_as_the_root() -> None:
    example = json.loads((Path(__file__).parents[1] / "schemas" / "lux-ir-v1.json").read_text(encoding="utf-8"))["examples"][0]
    request = lucent.decode(json.dumps(example), "lux-ir-v1")
    assert isinstance(request, lux_ir_v1.LucentRequest)
    assert request.options.temperature == 0.7
    assert json.loads(lucent.encode(request)) == example


# ---------------------------------------------------------------- JSON Schema semantics


def test_an_integer_may_be_written_with_a_zero_fraction() -> None:
    frame = lucent.decode('{"protocolVersion":"1.0","type":"tool.delta","index":3.0,"name":"f"}', SPARKTIDE)
    assert frame.index == 3 and type(frame.index) is int
    with pytest.raises(ValidationError) as info:
        lucent.decode('{"protocolVersion":"1.0","type":"tool.delta","index":3.5,"name":"f"}', SPARKTIDE)
    assert (info.value.code, info.value.path) == ("type", "$.index")


def test_a_boolean_is_not_an_integer() -> None:
    with pytest.raises(ValidationError) as info:
        lucent.decode('{"inputTokens":true,"outputTokens":1}', "llm-sdk", "ModelUsage")
    assert info.value.code == "type"


def test_a_lone_tagged_struct_still_requires_its_tag() -> None:
    with pytest.raises(ValidationError) as info:
        lucent.decode('{"text":"a"}', "llm-sdk", "TextPart")
    assert info.value.code == "required"
    with pytest.raises(ValidationError) as info:
        lucent.decode('{"role":"tool","content":[{"toolCallId":"a","toolName":"b","result":{}}]}', "llm-sdk", "ToolMessage")
    assert (info.value.code, info.value.path) == ("required", "$.content[0]")


def test_uint32_format_is_enforced() -> None:
    base = {"fragments": [], "tools": [], "model": "m", "thinking_level": "off"}
    assert lucent.decode(json.dumps({**base, "max_output_tokens": 4294967295}), "htmlp-model-request").max_output_tokens == 4294967295
    with pytest.raises(ValidationError) as info:
        lucent.decode(json.dumps({**base, "max_output_tokens": 4294967296}), "htmlp-model-request")
    assert (info.value.code, info.value.path) == ("format", "$.max_output_tokens")


def test_open_objects_keep_every_key() -> None:
    doc = {"name": "f", "description": "d", "parameters": {"type": "object", "x-vendor": {"keep": [1, 2]}}}
    tool = lucent.decode(json.dumps(doc), "llm-sdk", "Tool")
    assert tool.parameters == doc["parameters"]
    assert json.loads(lucent.encode(tool)) == doc


def test_absent_and_null_stay_distinct_through_encode() -> None:
    with_null = {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    without = {k: v for k, v in with_null.items() if k != "content"}
    for doc in (with_null, without):
        message = lucent.decode(json.dumps(doc), SPARKTIDE, "RemoteModelMessage")
        assert json.loads(lucent.encode(message)) == doc
    assert lucent.decode(json.dumps(without), SPARKTIDE, "RemoteModelMessage").content is msgspec.UNSET


def test_decode_of_encode_is_identity_for_a_built_struct() -> None:
    part = llm_sdk.ToolCallPart(toolCallId="c", toolName="f", args={"a": [1, {"b": None}]})
    assert lucent.decode(lucent.encode(part), "llm-sdk", "ToolCallPart") == part


def test_unknown_schema_and_definition_are_usage_errors() -> None:
    with pytest.raises(UsageError) as info:
        lucent.decode(b"{}", "no-such-schema")
    assert info.value.code == "unknown_schema"
    with pytest.raises(UsageError) as info:
        lucent.decode(b"{}", "llm-sdk", "NoSuch")
    assert info.value.code == "unknown_definition"


# ---------------------------------------------------------------- found by the hostile-input pass


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1" * 4301], ids=["huge-float", "huge-negative", "4301-digits"])
def test_a_number_beyond_float_or_int_parsing_range_is_a_typed_error(number: str) -> None:
    for body, schema, definition in [(number, "llm-sdk", None), ('{"messages":[],"temperature":' + number + "}", "llm-sdk", "LanguageModelInput")]:
        with pytest.raises(ValidationError) as info:
            lucent.decode(body, schema, definition)
        assert info.value.code == "number_out_of_range"


def test_an_int64_maximum_is_exact_for_an_integer_written_as_a_float() -> None:
    doc = sparktide_request(deadline=9.223372036854776e18)  # 2**63 as a float: one above the maximum
    with pytest.raises(ValidationError) as info:
        lucent.decode(json.dumps(doc), SPARKTIDE)
    assert (info.value.code, info.value.path) == ("maximum", "$.deadline")
    assert lucent.decode(json.dumps(sparktide_request(deadline=9.2e18)), SPARKTIDE).deadline == 9_200_000_000_000_000_000


@pytest.mark.parametrize(
    ("body", "text"),
    [('{"type":"text","text":1,"text":"y"}', "y"), ('{"type":"image","type":"text","text":"y"}', "y")],
    ids=["earlier-value-invalid", "earlier-tag-other"],
)
def test_duplicate_properties_mean_the_last_one_where_the_protocol_allows_them(body: str, text: str) -> None:
    assert lucent.decode(body, "llm-sdk", "TextPart").text == text


def test_invalid_utf8_inside_an_ignored_unknown_field_is_still_invalid_utf8() -> None:
    body = b'{"prompt_tokens":1,"completion_tokens":1,"total_tokens":1,"x":"\xff\xfe"}'
    with pytest.raises(DecodeError) as info:
        lucent.decode(body, "lux-ir-v1", "LucentUsage")
    assert (info.value.code, info.value.offset) == ("invalid_utf8", body.index(b"\xff"))


@pytest.mark.parametrize(("body", "offset"), [(b"{} x", 3), (b"1 2", 2), (b'{"type":"text","text":"abc\xff"}', 26)])
def test_decode_error_offsets_are_document_byte_offsets(body: bytes, offset: int) -> None:
    with pytest.raises(DecodeError) as info:
        lucent.decode(body, "llm-sdk")
    assert info.value.offset == offset


def test_a_fault_inside_a_map_names_the_real_key() -> None:
    doc = {"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False}, "metadata": {"a": "x", "k": 1}}
    with pytest.raises(ValidationError) as info:
        lucent.decode(json.dumps(doc), "lux-ir-v1")
    assert (info.value.code, info.value.path) == ("type", "$.metadata.k")


def test_the_shallowest_fault_wins_over_an_earlier_deeper_one() -> None:
    call = {"id": "a", "type": "function", "function": {"name": "f", "arguments": 1}}
    doc = {"message": {"role": "assistant", "content": None, "tool_calls": [call] * 17}, "usage": {}}
    with pytest.raises(ValidationError) as info:
        lucent.decode(json.dumps(doc), SPARKTIDE)
    assert (info.value.code, info.value.path) == ("maxItems", "$.message.tool_calls")


@pytest.mark.parametrize(
    ("args", "code"),
    [((b"{}", ["x"]), "invalid_input_type"), ((b"{}", "llm-sdk", ["x"]), "invalid_input_type"), ((3, "llm-sdk"), "invalid_input_type")],
)
def test_wrong_argument_types_are_usage_errors(args: tuple[Any, ...], code: str) -> None:
    with pytest.raises(UsageError) as info:
        lucent.decode(*args)
    assert info.value.code == code


def test_an_unknown_rules_value_is_a_usage_error_not_a_silent_schema_only_decode() -> None:
    with pytest.raises(UsageError) as info:
        lucent.decode(b"{}", SPARKTIDE, rules="strict")  # type: ignore[arg-type]
    assert info.value.code == "invalid_rules"


def test_a_struct_built_with_nan_is_refused() -> None:
    with pytest.raises(ValueError, match="finite"):
        llm_sdk.LanguageModelInput(messages=[], temperature=float("nan"))


def test_a_missing_or_unknown_property_is_named_in_the_message() -> None:
    with pytest.raises(ValidationError) as caught:
        lucent.decode(b'{"model": "m", "conversation": [], "options": {"stream": false}, "extra": {"a": [1, {"b": 2}]}}', "lux-ir-v1", "LucentRequest")
    assert (caught.value.code, caught.value.path) == ("required", "$")
    assert "`schema_version`" in caught.value.message
    with pytest.raises(ValidationError) as caught:
        lucent.decode(b'{"delta": {"index": 0, "part": {"type": "text", "text": "a"}}, "nope": [{"x": 1}]}', "llm-sdk", "PartialModelResponse")
    assert (caught.value.code, caught.value.path) == ("additionalProperties", "$")
    assert "`nope`" in caught.value.message


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"t": float("nan")}, "$.t"),
        ({"a": [1, {"b": float("-inf")}]}, "$.a[1].b"),
        ([None, float("inf")], "$[1]"),
        (lux_ir_v1.LucentTool(name="f", parameters={"type": "object", "default": float("nan")}), "$.parameters.default"),
    ],
    ids=["nan", "nested -inf", "inf in a list", "nan in a free member of a Struct"],
)
def test_encode_refuses_nan_and_infinity_rather_than_writing_null(value: Any, path: str) -> None:
    with pytest.raises(lucent.errors.EncodeError) as raised:
        lucent.encode(value)
    assert (raised.value.code, raised.value.path) == ("unencodable", path)


def test_encode_writes_null_and_large_finite_numbers() -> None:
    assert lucent.encode({"t": None, "x": 1.5, "big": 1e308, "neg": -1e-308}) == b'{"t":null,"x":1.5,"big":1e308,"neg":-1e-308}'
    assert lucent.encode({"bin": b"\xcb\x7f\xf8"}) == b'{"bin":"y3/4"}'  # bytes that look like a NaN to the fast check


def test_convert_refuses_a_json_value_holding_nan_as_input() -> None:
    request = {"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": float("nan")}
    with pytest.raises(UsageError) as raised:
        lucent.convert(request, source="openai-chat", target="anthropic")
    assert (raised.value.code, raised.value.path) == ("invalid_input_type", "$.temperature")
