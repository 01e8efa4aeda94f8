"""SparkTide RemoteModelRequest <-> Lux LucentRequest: lucent.convert and the mapping specs.

Real values throughout; every lossy case checks its diagnostic (field = JSON path in the source
document, status, detail) and that strict mode raises. Cases 05, 06 and 15 of shared/cases are
copied in below.
"""

from __future__ import annotations

import copy
import json
import pathlib
import re
import shutil
from typing import Any

import jsonschema
import pytest

import lucent
from lucent.errors import ConversionError, UsageError, ValidationError
from lucent.generated.lux_ir_v1 import (
    LucentContentText,
    LucentContentToolUse,
    LucentConversationItemMessage,
    LucentConversationItemToolResult,
    LucentRequest,
    LucentStructuredOutputJsonSchema,
    LucentToolChoiceSpecificTool,
)
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic, ConversionResult
from lucent.generated.sparktide_remote_1_0 import RemoteModelRequest
from tests.paths import REPO

SCHEMAS = REPO / "schemas"

ENVELOPE = {
    "invocationId": "inv_1",
    "deadline": 1893456000000,
    "purpose": "SYNTHETIC_PROBE",
    "appId": "monitor",
    "model": "model-1",
    "max_completion_tokens": 256,
    "stream": False,
}


def _schema(name: str, definition: str) -> dict[str, Any]:
    doc = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    defs = "$defs" if "$defs" in doc else "definitions"
    doc = {k: v for k, v in doc.items() if k not in ("oneOf", "$ref")}
    doc["$ref"] = f"#/{defs}/{definition}"
    return doc


LUX_REQUEST = _schema("lux-ir-v1.json", "LucentRequest")
SPARKTIDE_REQUEST = _schema("sparktide-remote-1.0.json", "RemoteModelRequest")


def as_json(value: Any) -> Any:
    return json.loads(lucent.encode(value))


def sparktide(messages: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"protocolVersion": "1.0", **ENVELOPE, "messages": messages}
    doc.update(fields)
    return doc


def lux(conversation: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"schema_version": "v1", "model": "model-1", "options": {"stream": False}, "conversation": conversation}
    doc.update(fields)
    return doc


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": text}]}}


def to_lux(doc: dict[str, Any]) -> ConversionResult:
    result = lucent.convert(json.dumps(doc), "sparktide", "lux")
    jsonschema.validate(as_json(result.value), LUX_REQUEST)
    return result


def to_sparktide(doc: dict[str, Any], context: dict[str, Any] | None = None, **kw: Any) -> ConversionResult:
    return lucent.convert(json.dumps(doc), "lux", "sparktide", context=context, **kw)


def round_trip(doc: dict[str, Any]) -> tuple[dict[str, Any], list[ConversionDiagnostic]]:
    there = to_lux(doc)
    back = lucent.convert(lucent.encode(there.value), "lux", "sparktide")
    out = as_json(back.value)
    jsonschema.validate(out, SPARKTIDE_REQUEST)
    return out, there.diagnostics + back.diagnostics


def diag(result: ConversionResult | list[ConversionDiagnostic]) -> list[tuple[str, str]]:
    items = result.diagnostics if isinstance(result, ConversionResult) else result
    return [(d.field, d.status) for d in items]


# ------------------------------------------------------------------------------ SparkTide -> Lux


def test_envelope_goes_to_extra_sparktide_with_json_types_kept() -> None:
    doc = sparktide([{"role": "user", "content": "hi"}], purpose="BUSINESS", subjectId="alice", tenantId="team-a", runId="run_1", traceId="tr_1")
    result = to_lux(doc)
    value = result.value
    assert isinstance(value, LucentRequest)
    assert value.model == "model-1"
    assert value.extra == {
        "sparktide": {
            "protocolVersion": "1.0", "invocationId": "inv_1", "deadline": 1893456000000, "purpose": "BUSINESS",
            "appId": "monitor", "subjectId": "alice", "tenantId": "team-a", "runId": "run_1", "traceId": "tr_1",
        }
    }
    assert result.diagnostics == []


def test_generation_fields_map_to_options() -> None:
    doc = sparktide([{"role": "user", "content": "hi"}], temperature=0.2, top_p=0.9, seed=7, stream=True, max_completion_tokens=99)
    options = to_lux(doc).value.options
    assert (options.temperature, options.top_p, options.seed, options.stream, options.max_output_tokens) == (0.2, 0.9, 7, True, 99)
    out, diagnostics = round_trip(doc)
    assert out == doc and diagnostics == []


# case 15 (system-messages-order), copied from shared/cases
CASE_15_MESSAGES = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "system", "content": "Be careful."},
    {"role": "user", "content": "fix bug"},
    {"role": "assistant", "content": "ok"},
    {"role": "system", "content": "Now be brief."},
    {"role": "user", "content": "next"},
]


def test_system_messages_keep_their_position_as_conversation_messages() -> None:
    value = to_lux(sparktide(CASE_15_MESSAGES)).value
    assert value.instructions is msgspec_unset()
    roles = [item.message.role for item in value.conversation]
    assert roles == ["system", "system", "user", "assistant", "system", "user"]
    out, diagnostics = round_trip(sparktide(CASE_15_MESSAGES))
    assert out["messages"] == CASE_15_MESSAGES and diagnostics == []


def msgspec_unset() -> Any:
    import msgspec

    return msgspec.UNSET


TOOL_CALL = {"id": "call_1", "type": "function", "function": {"name": "get_time", "arguments": "{\"city\":\"Oslo\"}"}}


def test_tool_calls_become_tool_use_blocks_and_tool_messages_tool_result_items() -> None:
    doc = sparktide([
        {"role": "user", "content": "Time in Oslo?"},
        {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\"time\":\"12:00\"}"},
    ])
    conversation = to_lux(doc).value.conversation
    assistant = conversation[1]
    assert isinstance(assistant, LucentConversationItemMessage)
    assert assistant.message.role == "assistant"
    (block,) = assistant.message.content
    assert isinstance(block, LucentContentToolUse)
    assert (block.tool_use.id, block.tool_use.name, block.tool_use.arguments) == ("call_1", "get_time", "{\"city\":\"Oslo\"}")
    result = conversation[2]
    assert isinstance(result, LucentConversationItemToolResult)
    assert result.tool_result.tool_use_id == "call_1"
    assert result.tool_result.content == [LucentContentText(text="{\"time\":\"12:00\"}")]
    assert result.tool_result.is_error is False
    out, diagnostics = round_trip(doc)
    assert out == doc and diagnostics == []


@pytest.mark.parametrize(
    "assistant",
    [
        pytest.param({"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}, id="null"),
        pytest.param({"role": "assistant", "tool_calls": [TOOL_CALL]}, id="absent"),
        pytest.param({"role": "assistant", "content": "", "tool_calls": [TOOL_CALL]}, id="empty-string"),
        pytest.param({"role": "assistant", "content": "Checking.", "tool_calls": [TOOL_CALL]}, id="text"),
        pytest.param({"role": "assistant", "content": "Done.", "tool_calls": []}, id="empty-tool-calls"),
        pytest.param({"role": "assistant", "content": ""}, id="only-empty-string"),
    ],
)
def test_assistant_content_null_absent_and_empty_string_round_trip_exactly(assistant: dict[str, Any]) -> None:
    messages = [{"role": "user", "content": "Time in Oslo?"}, assistant]
    if assistant.get("tool_calls"):
        messages.append({"role": "tool", "tool_call_id": "call_1", "content": "12:00"})
    doc = sparktide(messages)
    out, diagnostics = round_trip(doc)
    assert out == doc
    assert diagnostics == []


def test_tool_call_only_assistant_has_null_content_when_written_from_lux() -> None:
    doc = lux([
        user("Time in Oslo?"),
        {"type": "message", "message": {"role": "assistant", "content": [{"type": "tool_use", "tool_use": {"id": "call_1", "name": "get_time", "arguments": "{\"city\":\"Oslo\"}"}}]}},
    ])
    out = as_json(to_sparktide(doc, ENVELOPE).value)
    assert out["messages"][1] == {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}


FUNCTION_TOOL = {
    "type": "function",
    "function": {"name": "lookup", "description": "Look a term up", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}, "strict": True},
}


def test_chat_completions_function_tools_become_lucent_tools() -> None:
    no_params = {"type": "function", "function": {"name": "now"}}
    doc = sparktide([{"role": "user", "content": "hi"}], tools=[FUNCTION_TOOL, no_params])
    tools = to_lux(doc).value.tools
    assert [(t.name, t.description, t.strict) for t in tools] == [("lookup", "Look a term up", True), ("now", msgspec_unset(), msgspec_unset())]
    assert tools[0].parameters == FUNCTION_TOOL["function"]["parameters"]
    assert tools[1].parameters is None  # absent parameters: Lux requires the key, null stands for absent
    out, diagnostics = round_trip(doc)
    assert out == doc and diagnostics == []


def test_other_tool_shapes_are_kept_verbatim_and_reported_degraded() -> None:
    hosted = {"type": "web_search"}
    doc = sparktide([{"role": "user", "content": "hi"}], tools=[FUNCTION_TOOL, hosted, {"type": "function", "function": {"name": "x", "parameters": None}}])
    result = to_lux(doc)
    assert [t.name for t in result.value.tools] == ["lookup"]
    assert result.value.extra["sparktide"]["tools"][0] == {"index": 1, "value": hosted}
    assert diag(result) == [("$.tools[1]", "Degraded"), ("$.tools[2]", "Degraded")]
    out, _ = round_trip(doc)
    assert out == doc


@pytest.mark.parametrize(
    ("choice", "lux_choice"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ({"type": "function", "function": {"name": "lookup"}}, LucentToolChoiceSpecificTool(name="lookup")),
    ],
)
def test_tool_choice_chat_completions_shapes_map_to_lucent_tool_choice(choice: Any, lux_choice: Any) -> None:
    doc = sparktide([{"role": "user", "content": "hi"}], tools=[FUNCTION_TOOL], tool_choice=choice)
    result = to_lux(doc)
    assert result.value.tool_choice == lux_choice
    assert result.diagnostics == []
    out, _ = round_trip(doc)
    assert out == doc


@pytest.mark.parametrize("choice", [None, {"type": "allowed_tools", "tools": []}, {"type": "function", "name": "lookup"}])
def test_other_tool_choice_values_are_kept_verbatim_and_reported_degraded(choice: Any) -> None:
    doc = sparktide([{"role": "user", "content": "hi"}], tool_choice=choice)
    result = to_lux(doc)
    assert result.value.tool_choice is msgspec_unset()
    assert diag(result) == [("$.tool_choice", "Degraded")]
    out, _ = round_trip(doc)
    assert out == doc


def test_response_format_json_schema_maps_to_structured_output_and_keeps_its_name() -> None:
    schema = {"type": "object", "properties": {"cities": {"type": "array", "items": {"type": "string"}}}, "required": ["cities"]}
    fmt = {"type": "json_schema", "json_schema": {"name": "cities", "strict": True, "schema": schema}}
    doc = sparktide([{"role": "user", "content": "List two cities."}], response_format=fmt)
    result = to_lux(doc)
    assert result.value.options.structured_output == LucentStructuredOutputJsonSchema(schema=schema)
    assert result.value.extra["sparktide"]["json_schema"] == {"name": "cities", "strict": True}
    assert result.diagnostics == []
    out, _ = round_trip(doc)
    assert out == doc


@pytest.mark.parametrize(("fmt", "lux_value"), [({"type": "text"}, "text"), ({"type": "json_object"}, "json_object")])
def test_response_format_text_and_json_object(fmt: dict[str, Any], lux_value: str) -> None:
    doc = sparktide([{"role": "user", "content": "hi"}], response_format=fmt)
    assert to_lux(doc).value.options.structured_output == lux_value
    out, _ = round_trip(doc)
    assert out == doc


def test_other_response_format_shapes_are_kept_verbatim_and_reported_degraded() -> None:
    fmt = {"type": "grammar", "grammar": "root ::= 'x'"}
    doc = sparktide([{"role": "user", "content": "hi"}], response_format=fmt)
    result = to_lux(doc)
    assert result.value.options.structured_output is msgspec_unset()
    assert diag(result) == [("$.response_format", "Degraded")]
    out, _ = round_trip(doc)
    assert out == doc


# case 05 (sparktide-malformed-tool-arguments), copied from shared/cases
CASE_05 = {
    "protocolVersion": "1.0", "invocationId": "inv_1", "deadline": 1893456000000, "purpose": "SYNTHETIC_PROBE",
    "appId": "monitor", "model": "model-1", "max_completion_tokens": 256, "stream": False,
    "messages": [
        {"role": "user", "content": "Format today's date."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "fmt", "arguments": "{\"pattern\": \"%Y\""}}]},
        {"role": "tool", "tool_call_id": "c2", "content": "2026"},
    ],
}


def test_malformed_tool_arguments_are_carried_and_reported_invalid_at_their_path() -> None:
    with pytest.raises(ValidationError) as raised:
        lucent.decode(json.dumps(CASE_05), "sparktide-remote-1.0", "RemoteModelRequest")
    assert raised.value.path == "$.messages[1].tool_calls[0].function.arguments"
    result = lucent.convert(json.dumps(CASE_05), "sparktide", "lux")
    assert diag(result) == [("$.messages[1].tool_calls[0].function.arguments", "Invalid")]
    block = result.value.conversation[1].message.content[0]
    assert block.tool_use.arguments == "{\"pattern\": \"%Y\""
    with pytest.raises(ConversionError) as strict:
        lucent.convert(json.dumps(CASE_05), "sparktide", "lux", strict=True)
    assert strict.value.path == "$.messages[1].tool_calls[0].function.arguments"
    assert diag(strict.value.diagnostics) == diag(result)


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [("null", "null"), ("[1]", "list"), ("{\"a\":1}{}", "trailing"), ("{\"a\":1,\"a\":2}", "duplicate"), ("{\"a\":NaN}", "NaN")],
)
def test_every_kind_of_non_object_arguments_is_reported(arguments: str, problem: str) -> None:
    doc = copy.deepcopy(CASE_05)
    doc["messages"][1]["tool_calls"][0]["function"]["arguments"] = arguments
    result = lucent.convert(json.dumps(doc), "sparktide", "lux")
    (d,) = result.diagnostics
    assert (d.field, d.status) == ("$.messages[1].tool_calls[0].function.arguments", "Invalid")
    assert problem in d.detail


def test_schema_faults_raise_validation_error_at_the_schema_path() -> None:
    doc = sparktide([{"role": "assistant", "content": "x", "refusal": None}])
    with pytest.raises(ValidationError) as raised:
        lucent.convert(json.dumps(doc), "sparktide", "lux")
    assert raised.value.path == "$.messages[0]"


def test_struct_input_is_used_directly() -> None:
    struct = lucent.decode(json.dumps(sparktide([{"role": "user", "content": "hi"}])), "sparktide-remote-1.0", "RemoteModelRequest")
    assert isinstance(struct, RemoteModelRequest)
    assert lucent.convert(struct, "sparktide", "lux").value.conversation == [
        LucentConversationItemMessage(message=lucent.decode(json.dumps(user("hi")["message"]), "lux-ir-v1", "LucentMessage"))
    ]
    with pytest.raises(UsageError) as raised:
        lucent.convert(struct, "lux", "sparktide")
    assert raised.value.code == "invalid_input_type"


def test_plain_json_values_are_decoded_and_validated() -> None:
    assert lucent.convert(sparktide([{"role": "user", "content": "hi"}]), "sparktide", "lux").diagnostics == []


# ------------------------------------------------------------------------------ Lux -> SparkTide


def test_missing_envelope_values_are_invalid_diagnostics_naming_the_target_field() -> None:
    result = to_sparktide(lux([user("hi")]))
    assert diag(result) == [
        ("target:$.invocationId", "Invalid"),
        ("target:$.deadline", "Invalid"),
        ("target:$.purpose", "Invalid"),
        ("target:$.appId", "Invalid"),
        ("target:$.max_completion_tokens", "Invalid"),
    ]
    assert "context['invocationId']" in result.diagnostics[0].detail
    out = as_json(result.value)
    assert "invocationId" not in out and "deadline" not in out  # never invented
    with pytest.raises(ConversionError) as raised:
        to_sparktide(lux([user("hi")]), strict=True)
    assert len(raised.value.diagnostics) == 5 and raised.value.code == "conversion_lossy"


def test_context_supplies_the_envelope_and_the_result_validates() -> None:
    result = to_sparktide(lux([user("hi")]), ENVELOPE)
    assert result.diagnostics == []
    out = as_json(result.value)
    jsonschema.validate(out, SPARKTIDE_REQUEST)
    assert out == {"protocolVersion": "1.0", **ENVELOPE, "messages": [{"role": "user", "content": "hi"}]}


def test_context_wins_over_the_carried_envelope() -> None:
    doc = to_lux(sparktide([{"role": "user", "content": "hi"}])).value
    result = lucent.convert(lucent.encode(doc), "lux", "sparktide", context={"invocationId": "inv_2", "deadline": 1893456999999})
    assert (result.value.invocationId, result.value.deadline, result.value.appId) == ("inv_2", 1893456999999, "monitor")


def test_business_purpose_requires_the_identity_fields() -> None:
    result = to_sparktide(lux([user("hi")]), {**ENVELOPE, "purpose": "BUSINESS", "subjectId": "alice", "tenantId": "team-a"})
    assert diag(result) == [("target:$.runId", "Invalid"), ("target:$.traceId", "Invalid")]


def test_identity_fields_are_dropped_for_a_synthetic_probe() -> None:
    result = to_sparktide(lux([user("hi")]), {**ENVELOPE, "subjectId": "alice"})
    assert diag(result) == [("target:$.subjectId", "Invalid")]
    assert "subjectId" not in as_json(result.value)


def test_mistyped_context_values_are_invalid() -> None:
    result = to_sparktide(lux([user("hi")]), {**ENVELOPE, "deadline": "tomorrow", "purpose": "TEST"})
    # one diagnostic a path (the converter's and the target check's said the same twice before)
    assert diag(result) == [("target:$.deadline", "Invalid"), ("target:$.purpose", "Invalid")]


def test_a_result_that_breaks_the_target_schema_is_reported_invalid() -> None:
    result = to_sparktide(lux([user("hi")]), {**ENVELOPE, "appId": "Not An App"})
    assert diag(result) == [("target:$.appId", "Invalid")]


# case 06 (lux-redacted-thinking-not-silently-dropped), copied from shared/cases
CASE_06 = lux([
    user("Plan a trip."),
    {"type": "message", "message": {"role": "assistant", "content": [
        {"type": "thinking", "thinking": {"text": "", "redacted": True, "signature": "ENC_BLOB_1"}},
        {"type": "text", "text": "Done."},
    ]}},
    user("Thanks"),
])


def test_redacted_thinking_is_reported_never_silently_dropped() -> None:
    result = to_sparktide(CASE_06, ENVELOPE)
    out = as_json(result.value)
    jsonschema.validate(out, SPARKTIDE_REQUEST)
    assert out["messages"] == [
        {"role": "user", "content": "Plan a trip."},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Thanks"},
    ]
    assert diag(result) == [("$.conversation[1].message.content[0]", "Unsupported")]
    with pytest.raises(ConversionError):
        to_sparktide(CASE_06, ENVELOPE, strict=True)


def test_lux_to_lux_keeps_the_document_unchanged() -> None:
    result = lucent.convert(json.dumps(CASE_06), "lux", "lux")
    assert as_json(result.value) == CASE_06 and result.diagnostics == []


def test_sparktide_to_sparktide_reports_protocol_faults_and_strict_raises() -> None:
    result = lucent.convert(json.dumps(CASE_05), "sparktide", "sparktide")
    assert as_json(result.value) == CASE_05
    assert diag(result) == [("$.messages[1].tool_calls[0].function.arguments", "Invalid")]
    with pytest.raises(ConversionError):
        lucent.convert(json.dumps(CASE_05), "sparktide", "sparktide", strict=True)


def test_convert_is_the_function_under_both_import_forms() -> None:
    assert lucent.convert(json.dumps(CASE_06), "lux", "lux").diagnostics == []
    from lucent import convert

    assert convert(json.dumps(CASE_06), "lux", "lux").diagnostics == []


MEDIA = {"media_type": "image/png", "source": "url"}


@pytest.mark.parametrize(
    "block",
    [
        {"type": "image", "image": MEDIA},
        {"type": "audio", "audio": {"media_type": "audio/wav", "source": "inline"}},
        {"type": "video", "video": {"media_type": "video/mp4", "source": "url"}},
        {"type": "refusal", "refusal": "I can't."},
        {"type": "thinking", "thinking": {"text": "hmm", "redacted": False}},
    ],
)
def test_blocks_sparktide_cannot_carry_are_unsupported_at_their_lux_path(block: dict[str, Any]) -> None:
    doc = lux([{"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "Look."}, block]}}])
    result = to_sparktide(doc, ENVELOPE)
    assert diag(result) == [("$.conversation[0].message.content[1]", "Unsupported")]
    assert as_json(result.value)["messages"] == [{"role": "user", "content": "Look."}]
    with pytest.raises(ConversionError):
        to_sparktide(doc, ENVELOPE, strict=True)


def test_request_level_fields_sparktide_cannot_carry_are_unsupported() -> None:
    doc = lux(
        [user("hi")],
        options={"stream": False, "top_k": 5, "stop": ["END"], "candidate_count": 2, "previous_response_id": "resp_1"},
        reasoning={"enabled": True},
        metadata={"team": "a"},
        capabilities={"tool_calling": "full", "parallel_tool_calls": "none", "reasoning": "none", "multimodal_input": "none",
                      "structured_output": "full", "input_modalities": ["text"], "output_modalities": ["text"]},
        extra={"openai": {"store": True}, "sparktide": {"appId": "monitor", "priority": 3}},
    )
    result = to_sparktide(doc, ENVELOPE)
    assert diag(result) == [
        ("$.capabilities", "Unsupported"),
        ("$.reasoning", "Unsupported"),
        ("$.metadata", "Unsupported"),
        ("$.options.top_k", "Unsupported"),
        ("$.options.stop", "Unsupported"),
        ("$.options.candidate_count", "Unsupported"),
        ("$.options.previous_response_id", "Unsupported"),
        ("$.extra.openai", "Unsupported"),
        ("$.extra.sparktide.priority", "Unsupported"),
    ]


def test_reasoning_and_agent_action_items_and_annotations_are_unsupported() -> None:
    doc = lux([
        {"type": "reasoning", "reasoning": {"text": "think", "redacted": False}},
        {"type": "agent_action", "agent_action": {"kind": "click", "id": "a1"}},
        {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "See [1].", "annotations": [{"kind": "url", "ref": "https://example.com"}]}]}},
    ])
    result = to_sparktide(doc, ENVELOPE)
    assert diag(result) == [
        ("$.conversation[0]", "Unsupported"),
        ("$.conversation[1]", "Unsupported"),
        ("$.conversation[2].message.content[0].annotations", "Unsupported"),
    ]
    assert as_json(result.value)["messages"] == [{"role": "user", "content": "See [1]."}]


def test_instructions_become_leading_system_messages_degraded() -> None:
    doc = lux([user("hi")], instructions=[{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Be kind."}])
    result = to_sparktide(doc, ENVELOPE)
    assert as_json(result.value)["messages"][:2] == [{"role": "system", "content": "Be brief."}, {"role": "system", "content": "Be kind."}]
    assert diag(result) == [("$.instructions", "Degraded")]


def test_model_and_developer_roles_are_written_as_assistant_and_system_degraded() -> None:
    doc = lux([
        {"type": "message", "message": {"role": "developer", "content": [{"type": "text", "text": "rules"}]}},
        user("hi"),
        {"type": "message", "message": {"role": "model", "content": [{"type": "text", "text": "hello"}]}},
    ])
    result = to_sparktide(doc, ENVELOPE)
    assert [m["role"] for m in as_json(result.value)["messages"]] == ["system", "user", "assistant"]
    assert diag(result) == [("$.conversation[0].message.role", "Degraded"), ("$.conversation[2].message.role", "Degraded")]


def test_several_text_blocks_are_joined_with_a_newline_degraded() -> None:
    doc = lux([{"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}])
    result = to_sparktide(doc, ENVELOPE)
    assert as_json(result.value)["messages"] == [{"role": "user", "content": "a\nb"}]
    assert diag(result) == [("$.conversation[0].message.content", "Degraded")]


LUX_CALL = {"id": "call_1", "name": "get_time", "arguments": "{\"city\":\"Oslo\"}"}


def test_tool_call_items_join_the_assistant_turn_before_them() -> None:
    doc = lux([
        user("Time in Oslo?"),
        {"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "Checking."}]}},
        {"type": "tool_call", "tool_call": LUX_CALL},
        {"type": "tool_result", "tool_result": {"tool_use_id": "call_1", "content": [{"type": "text", "text": "12:00"}], "is_error": False}},
    ])
    result = to_sparktide(doc, ENVELOPE)
    assert as_json(result.value)["messages"][1:] == [
        {"role": "assistant", "content": "Checking.", "tool_calls": [TOOL_CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "12:00"},
    ]
    assert result.diagnostics == []


def test_a_tool_call_item_without_an_assistant_turn_opens_one_with_null_content() -> None:
    doc = lux([user("Time in Oslo?"), {"type": "tool_call", "tool_call": LUX_CALL}])
    out = as_json(to_sparktide(doc, ENVELOPE).value)
    assert out["messages"][1] == {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}


def test_tool_result_blocks_become_tool_messages_and_is_error_is_degraded() -> None:
    doc = lux([
        user("Time in Oslo?"),
        {"type": "message", "message": {"role": "assistant", "content": [{"type": "tool_use", "tool_use": LUX_CALL}]}},
        {"type": "message", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_result": {"tool_use_id": "call_1", "content": [{"type": "text", "text": "no such city"}], "is_error": True}},
            {"type": "text", "text": "And in Bergen?"},
        ]}},
    ])
    result = to_sparktide(doc, ENVELOPE)
    assert as_json(result.value)["messages"][2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": "no such city"},
        {"role": "user", "content": "And in Bergen?"},
    ]
    assert diag(result) == [("$.conversation[2].message.content[0].tool_result.is_error", "Degraded")]


def test_an_assistant_turn_left_empty_gets_empty_content_degraded() -> None:
    doc = lux([user("hi"), {"type": "message", "message": {"role": "assistant", "content": [{"type": "thinking", "thinking": {"text": "…", "redacted": False}}]}}])
    result = to_sparktide(doc, ENVELOPE)
    assert as_json(result.value)["messages"][1] == {"role": "assistant", "content": ""}
    assert diag(result) == [("$.conversation[1].message.content[0]", "Unsupported"), ("$.conversation[1].message", "Degraded")]


def test_malformed_lux_tool_arguments_are_invalid_at_the_lux_path() -> None:
    doc = lux([user("hi"), {"type": "tool_call", "tool_call": {**LUX_CALL, "arguments": "{"}}])
    result = to_sparktide(doc, ENVELOPE)
    # the converter names the Lux value; lucent.convert's check of the output names where it is
    assert diag(result) == [
        ("$.conversation[1].tool_call.arguments", "Invalid"),
        ("target:$.messages[1].tool_calls[0].function.arguments", "Invalid"),
    ]
    assert result.diagnostics[1].detail.endswith("(tool_arguments)")


def test_lux_tools_tool_choice_and_structured_output_use_chat_completions_shapes() -> None:
    doc = lux(
        [user("Look up 'lux'.")],
        tools=[{"name": "lookup", "description": "Look a term up", "parameters": {"type": "object"}}],
        tool_choice={"type": "specific_tool", "name": "lookup"},
        options={"stream": False, "structured_output": {"type": "json_schema", "schema": {"type": "object"}}},
    )
    out = as_json(to_sparktide(doc, ENVELOPE).value)
    assert out["tools"] == [{"type": "function", "function": {"name": "lookup", "description": "Look a term up", "parameters": {"type": "object"}}}]
    assert out["tool_choice"] == {"type": "function", "function": {"name": "lookup"}}
    assert out["response_format"] == {"type": "json_schema", "json_schema": {"schema": {"type": "object"}}}


# ------------------------------------------------------------------------------------ API errors


@pytest.mark.parametrize(
    ("source", "target", "kind", "code"),
    [("openai", "lux", "request", "unknown_format"), ("htmlp", "lux", "response", "unsupported_conversion"), ("lux", "htmlp", "error", "unsupported_conversion")],
)
def test_formats_not_implemented_raise_typed_usage_errors(source: str, target: str, kind: str, code: str) -> None:
    with pytest.raises(UsageError) as raised:
        lucent.convert(b"{}", source, target, kind=kind)
    assert raised.value.code == code


def test_unknown_kind_is_unsupported() -> None:
    with pytest.raises(UsageError) as raised:
        lucent.convert(b"{}", "sparktide", "lux", kind="stream")
    assert raised.value.code == "unsupported_conversion"


# --------------------------------------------------------------------------------- spec compiler


def _repo_copy(tmp_path: pathlib.Path) -> pathlib.Path:
    for name in ("mappings", "schemas", "codegen/templates", "lucent/formats"):  # lucent/formats: the transforms codegen binds
        shutil.copytree(REPO / name, tmp_path / name)
    shutil.copy(REPO / "lucent" / "_transforms.py", tmp_path / "lucent" / "_transforms.py")
    return tmp_path


def test_codegen_fails_on_a_source_field_neither_mapped_nor_declared(tmp_path: pathlib.Path) -> None:
    from codegen.mappings import MappingSpecError, render_all

    root = _repo_copy(tmp_path)
    spec = root / "mappings" / "sparktide_lux_request.toml"
    spec.write_text(spec.read_text(encoding="utf-8").replace('"options.seed" = { from = "seed" }', '"options.seed" = { absent = "dropped" }'), encoding="utf-8")
    with pytest.raises(MappingSpecError, match=r"RemoteModelRequest\.seed is neither mapped nor declared"):
        render_all(root)


def test_codegen_fails_on_a_source_variant_neither_mapped_nor_declared(tmp_path: pathlib.Path) -> None:
    from codegen.mappings import MappingSpecError, render_all

    root = _repo_copy(tmp_path)
    spec = root / "mappings" / "lux_sparktide_request.toml"
    text = spec.read_text(encoding="utf-8")
    text = text.replace('audio = { status = "Unsupported", reason = "SparkTide messages are text only; dropped" }\n', "", 1)
    spec.write_text(text, encoding="utf-8")
    with pytest.raises(MappingSpecError, match=r"source variant LucentContent\.audio is neither mapped nor declared lossy"):
        render_all(root)


def test_codegen_fails_on_a_lossy_declaration_without_a_reason(tmp_path: pathlib.Path) -> None:
    from codegen.mappings import MappingSpecError, render_all

    root = _repo_copy(tmp_path)
    spec = root / "mappings" / "lux_sparktide_request.toml"
    text = spec.read_text(encoding="utf-8").replace('metadata = { status = "Unsupported", reason = "SparkTide has no metadata field" }', 'metadata = { status = "Unsupported" }')
    spec.write_text(text, encoding="utf-8")
    with pytest.raises(MappingSpecError, match="metadata"):
        render_all(root)


def test_generated_converters_and_docs_match_the_specs() -> None:
    from codegen.mappings import render_all

    for name, text in render_all(REPO).items():
        path = REPO / (name if "/" in name else f"generated/{name}")
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run python -m codegen"


_RUNTIME_IMPORT = re.compile(
    r"from lucent\._conver(sion|ters) import [\w, ]+"
    r"|from lucent import _transforms as _shared"
    r"|from lucent\.formats\.(?P<package>\w+) import transforms as _(?P=package)"
    r"|from lucent\.formats\.\w+\.transforms import [\w, ]+"
)


def test_generated_converters_import_only_the_conversion_runtime() -> None:
    # Issue 15: generated code imports the hand-written runtime (lucent._conversion, the shared
    # lucent._transforms, its format's lucent/formats/<format>/transforms.py; the registry
    # lucent._converters), never the API.
    for path in (REPO / "generated").glob("convert_*.py"):
        text = path.read_text(encoding="utf-8")
        lines = [line for line in text.splitlines() if line.startswith(("from lucent", "import lucent"))]
        assert all(_RUNTIME_IMPORT.fullmatch(line) for line in lines), (path.name, lines)
        assert "generated by `python -m codegen`; do not edit" in text


def test_an_empty_tool_result_is_an_empty_text_reported_degraded() -> None:
    # found by conformance (a generated input): [] went out as "" and came back as one empty
    # text block, with nothing reported
    doc = lux([{"type": "tool_result", "tool_result": {"tool_use_id": "Z", "content": [], "is_error": False}}])
    result = to_sparktide(doc, ENVELOPE)
    assert as_json(result.value)["messages"] == [{"role": "tool", "content": "", "tool_call_id": "Z"}]
    assert diag(result) == [("$.conversation[0].tool_result.content", "Degraded")]
