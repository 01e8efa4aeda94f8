"""llm-sdk <-> Lux (requests and responses), and any-to-any composition through Lux.

Real values throughout; every lossy mapping checks its diagnostic (field = JSON path in the source
document, status) and, where it says so, that strict mode raises. The cases of tests/data/cases
are in test_cases_convert.py.
"""

from __future__ import annotations

import json
import pathlib
import shutil
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import lucent
from lucent._context import read_by
from lucent._convert import _parent, _source_paths
from lucent.errors import ConversionError
from lucent.generated.convert_llm_sdk_lux import llm_sdk_to_lux_request
from lucent.generated.llm_sdk import LanguageModelInput
from lucent._convert import FORMATS
from tests.cases import as_json, validator
from tests.conservation import lost_values
from tests.paths import REPO

CONTEXT = {"model": "model-1", "stream": False}
RESPONSE_CONTEXT = {"id": "resp_1", "model": "model-1"}


def diags(result: Any) -> list[tuple[str, str]]:
    return [(d.field, d.status) for d in result.diagnostics]


def user(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(parts)}


def text(value: str, **more: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **more}


def to_lux(doc: dict[str, Any], context: dict[str, Any] | None = CONTEXT, kind: str = "request") -> Any:
    result = lucent.convert(json.dumps(doc), "llm-sdk", "lux", kind=kind, context=context)
    if not any(d.status == "Invalid" for d in result.diagnostics):
        validator("lux", kind).validate(as_json(result.value))
    return result


def to_llm_sdk(doc: Any, kind: str = "request") -> Any:
    data = lucent.encode(doc) if not isinstance(doc, dict) else json.dumps(doc)
    result = lucent.convert(data, "lux", "llm-sdk", kind=kind)
    validator("llm-sdk", kind).validate(as_json(result.value))
    return result


def lux_request(conversation: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {"schema_version": "v1", "model": "model-1", "options": {"stream": False}, "conversation": conversation, **fields}


def message(role: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message", "message": {"role": role, "content": list(blocks)}}


def round_trip(doc: dict[str, Any], kind: str = "request") -> tuple[Any, list[tuple[str, str]]]:
    there = to_lux(doc, CONTEXT if kind == "request" else RESPONSE_CONTEXT, kind)
    back = to_llm_sdk(there.value, kind)
    return as_json(back.value), diags(there)


# ------------------------------------------------------------------------------- llm-sdk -> Lux


def test_model_and_stream_come_from_the_context_and_are_never_invented() -> None:
    result = lucent.convert(json.dumps({"messages": [user(text("hi"))]}), "llm-sdk", "lux")
    assert diags(result) == [("target:$.model", "Invalid"), ("target:$.options.stream", "Invalid")]
    value = as_json(result.value)
    assert "model" not in value and "stream" not in value["options"]
    with pytest.raises(ConversionError) as raised:
        lucent.convert(json.dumps({"messages": []}), "llm-sdk", "lux", strict=True)
    assert [d.field for d in raised.value.diagnostics] == ["target:$.model", "target:$.options.stream"]


def test_generation_options_map_and_the_ones_lux_lacks_are_kept_degraded() -> None:
    doc = {
        "messages": [user(text("hi"))], "temperature": 0.5, "topP": 0.9, "topK": 40, "maxTokens": 100, "seed": 7,
        "presencePenalty": 0.1, "frequencyPenalty": 0.2, "modalities": ["text", "audio"], "extra": {"reasoning_effort": "low"},
    }
    result = to_lux(doc)
    value = as_json(result.value)
    assert value["options"] == {"temperature": 0.5, "top_p": 0.9, "top_k": 40, "max_output_tokens": 100, "stream": False, "seed": 7}
    assert value["extra"] == {"llm_sdk": {"presencePenalty": 0.1, "frequencyPenalty": 0.2, "modalities": ["text", "audio"], "extra": {"reasoning_effort": "low"}}}
    assert diags(result) == [("$.presencePenalty", "Degraded"), ("$.frequencyPenalty", "Degraded"), ("$.modalities", "Degraded")]
    back, _ = round_trip(doc)
    assert back == doc


def test_a_top_k_that_is_not_a_whole_number_is_kept_in_extra_degraded() -> None:
    doc = {"messages": [], "topK": 0.5}
    result = to_lux(doc)
    assert "top_k" not in as_json(result.value)["options"]
    assert as_json(result.value)["extra"] == {"llm_sdk": {"topK": 0.5}}
    assert diags(result) == [("$.topK", "Degraded")]
    assert round_trip(doc)[0] == doc


def test_tool_messages_are_tool_result_items_and_adjacent_ones_stay_apart() -> None:
    call = {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "args": {}}
    doc = {"messages": [
        {"role": "assistant", "content": [call, {**call, "toolCallId": "c2"}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "f", "result": {"a": 1}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c2", "toolName": "f", "result": [1]}]},
    ]}
    result = to_lux(doc)
    value = as_json(result.value)
    assert [item["type"] for item in value["conversation"]] == ["message", "tool_result", "tool_result"]
    assert value["extra"] == {"llm_sdk": {"tool_message_starts": [2]}}
    assert result.diagnostics == []
    assert round_trip(doc)[0] == doc


def test_a_tool_name_other_than_the_calls_and_an_explicit_is_error_false_are_kept() -> None:
    doc = {"messages": [
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "args": None}]},
        {"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "c1", "toolName": "g", "result": {}, "isError": False},
            {"type": "tool-result", "toolCallId": "c9", "toolName": "h", "result": {}, "isError": True},
        ]},
    ]}
    value = as_json(to_lux(doc).value)
    assert value["conversation"][0]["message"]["content"][0]["tool_use"]["arguments"] == "null"
    assert value["extra"]["llm_sdk"]["members"] == {
        "$.conversation[1].tool_result": {"toolName": "g", "isError": False},
        "$.conversation[2].tool_result": {"toolName": "h"},
    }
    assert value["conversation"][2]["tool_result"]["is_error"] is True
    assert round_trip(doc)[0] == doc


def test_part_ids_and_image_sizes_are_kept_under_the_lux_path_of_their_object() -> None:
    image = {"type": "image", "mimeType": "image/png", "imageData": "iVBORw0KGgo=", "width": 640, "height": 480, "id": "img"}
    doc = {"messages": [user(text("look", id="t"), image), {"role": "assistant", "content": [text("ok", id="a")]}]}
    value = as_json(to_lux(doc).value)
    assert value["extra"] == {
        "llm_sdk": {"members": {
            "$.conversation[0].message.content[0]": {"id": "t"},
            "$.conversation[0].message.content[1].image": {"width": 640, "height": 480, "id": "img"},
            "$.conversation[1].message.content[0]": {"id": "a"},
        }},
        "media": {"$.conversation[0].message.content[1].image": {"data": "iVBORw0KGgo="}},
    }
    assert round_trip(doc)[0] == doc


def test_tool_messages_with_no_results_have_no_item_and_are_put_back_in_place() -> None:
    empty = {"role": "tool", "content": []}
    doc = {"messages": [empty, user(text("hi")), empty, empty, {"role": "assistant", "content": [text("ok")]}, empty]}
    result = to_lux(doc)
    value = as_json(result.value)
    assert len(value["conversation"]) == 2
    assert value["extra"] == {"llm_sdk": {"empty_tool_messages": [0, 1, 1, 2]}}
    assert result.diagnostics == []
    assert round_trip(doc)[0] == doc


# ------------------------------------------------------------------------------- Lux -> llm-sdk


CALL = {"id": "c1", "name": "get_time", "arguments": "{\"city\":\"Oslo\"}"}


def test_tool_call_items_join_the_assistant_message_before_them_degraded() -> None:
    doc = lux_request([message("user", text("time?")), message("assistant", text("Checking.")), {"type": "tool_call", "tool_call": CALL}])
    result = to_llm_sdk(doc)
    assert as_json(result.value)["messages"][1] == {"role": "assistant", "content": [
        text("Checking."), {"type": "tool-call", "toolCallId": "c1", "toolName": "get_time", "args": {"city": "Oslo"}},
    ]}
    assert ("$.conversation[2]", "Degraded") in diags(result)


def test_tool_result_blocks_become_a_tool_message_before_their_message() -> None:
    result_block = {"type": "tool_result", "tool_result": {"tool_use_id": "c1", "content": [text("{\"t\":1}")], "is_error": False}}
    doc = lux_request([message("assistant", {"type": "tool_use", "tool_use": CALL}), message("user", result_block, text("thanks"))])
    result = to_llm_sdk(doc)
    assert as_json(result.value)["messages"][1:] == [
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "get_time", "result": {"t": 1}}]},
        user(text("thanks")),
    ]
    assert ("$.conversation[1].message.content[0]", "Degraded") in diags(result)


def test_a_tool_result_without_a_call_before_it_has_an_empty_tool_name_invalid() -> None:
    doc = lux_request([{"type": "tool_result", "tool_result": {"tool_use_id": "c7", "content": [], "is_error": True}}])
    result = to_llm_sdk(doc)
    assert as_json(result.value)["messages"] == [{"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "c7", "toolName": "", "result": [], "isError": True},
    ]}]
    assert ("$.conversation[0].tool_result.tool_use_id", "Invalid") in diags(result)
    assert ("$.conversation[0].tool_result.content", "Degraded") in diags(result)


@pytest.mark.parametrize(("source", "status"), [("url", "Unsupported"), ("file_uri", "Unsupported"), ("inline", "Invalid")])
def test_media_without_inline_bytes_is_left_out_and_reported(source: str, status: str) -> None:
    doc = lux_request([message("user", text("see"), {"type": "image", "image": {"media_type": "image/png", "source": source}})])
    result = to_llm_sdk(doc)
    assert as_json(result.value)["messages"] == [user(text("see"))]
    assert ("$.conversation[0].message.content[1].image", status) in diags(result)


@pytest.mark.parametrize(("role", "block", "path"), [
    ("assistant", {"type": "image", "image": {"media_type": "image/png", "source": "inline"}}, "$.conversation[0].message.content[0]"),
    ("user", {"type": "tool_use", "tool_use": CALL}, "$.conversation[0].message.content[0]"),
    ("user", {"type": "video", "video": {"media_type": "video/mp4", "source": "inline"}}, "$.conversation[0].message.content[0]"),
    ("assistant", {"type": "thinking", "thinking": {"text": "", "redacted": True, "signature": "S"}}, "$.conversation[0].message.content[0]"),
])
def test_parts_a_role_cannot_hold_are_unsupported_with_their_side_car_entries(role: str, block: dict[str, Any], path: str) -> None:
    extra = {"media": {f"{path}.image": {"data": "iVBORw0KGgo="}}} if block["type"] == "image" else {}
    doc = lux_request([message(role, block, text("x"))], **({"extra": extra} if extra else {}))
    result = to_llm_sdk(doc)
    assert as_json(result.value)["messages"] == [{"role": role, "content": [text("x")]}]
    assert (path, "Unsupported") in diags(result)
    if extra:
        assert (f'$.extra.media["{path}.image"].data', "Unsupported") in diags(result)
    with pytest.raises(ConversionError):
        lucent.convert(json.dumps(doc), "lux", "llm-sdk", strict=True)


@pytest.mark.parametrize(("arguments", "status", "args"), [
    ("{", "Invalid", None), ("[1]", "Invalid", None), ("{\"a\":1} x", "Invalid", None),
    ("{\"a\": 1}", "Degraded", {"a": 1}), ("null", None, None), ("{\"a\":1}", None, {"a": 1}),
])
def test_arguments_become_args_reporting_what_is_not_kept(arguments: str, status: str | None, args: Any) -> None:
    doc = lux_request([message("assistant", {"type": "tool_use", "tool_use": {**CALL, "arguments": arguments}})])
    result = to_llm_sdk(doc)
    assert as_json(result.value)["messages"][0]["content"][0]["args"] == args
    found = [s for f, s in diags(result) if f == "$.conversation[0].message.content[0].tool_use.arguments"]
    assert found == ([status] if status else [])


def test_roles_llm_sdk_lacks_are_written_as_the_nearest_and_degraded() -> None:
    doc = lux_request(
        [message("developer", text("rules")), message("user", text("hi")), message("model", text("hello")), message("system", text("be brief")), message("assistant", {"type": "refusal", "refusal": "No."})],
        instructions=[text("You are kind.")],
    )
    result = to_llm_sdk(doc)
    out = as_json(result.value)
    assert out["systemPrompt"] == "You are kind.\nrules"
    assert out["messages"] == [user(text("hi")), {"role": "assistant", "content": [text("hello")]}, user(text("be brief")), {"role": "assistant", "content": [text("No.")]}]
    assert diags(result) == [
        ("$.conversation[0].message", "Degraded"),
        ("$.instructions", "Degraded"),
        ("$.conversation[2].message.role", "Degraded"),
        ("$.conversation[3].message.role", "Degraded"),
        ("$.conversation[4].message.content[0]", "Degraded"),
        ("$.model", "Degraded"),
        # options.stream false is a generate call: not named (true is: test below)
    ]


def test_a_true_stream_is_named_for_the_call_to_give() -> None:
    doc = lux_request([message("user", text("hi"))])
    doc["options"]["stream"] = True
    assert ("$.options.stream", "Degraded") in diags(to_llm_sdk(doc))
    doc["options"]["stream"] = False
    assert ("$.options.stream", "Degraded") not in diags(to_llm_sdk(doc))


def test_tools_need_a_description_and_an_object_schema_and_have_no_strict() -> None:
    doc = lux_request([], tools=[{"name": "f", "parameters": {"type": "object"}, "strict": True}, {"name": "g", "description": "G", "parameters": [1]}])
    result = to_llm_sdk(doc)
    assert as_json(result.value)["tools"] == [
        {"name": "f", "description": "", "parameters": {"type": "object"}},
        {"name": "g", "description": "G", "parameters": None},
    ]
    assert diags(result)[:3] == [("$.tools[0].description", "Degraded"), ("$.tools[0].strict", "Unsupported"), ("$.tools[1].parameters", "Invalid")]


def test_side_car_entries_no_value_reads_are_reported() -> None:
    doc = lux_request([message("user", text("hi"))], extra={
        "llm_sdk": {"members": {"$.conversation[0].message.content[0]": {"id": "t", "color": "red"}, "$.nowhere": {"id": "x"}}, "other": 1},
        "media": {"$.conversation[5].image": {"data": "AA=="}},
        "openai": {"store": True},
    })
    result = to_llm_sdk(doc)
    assert as_json(result.value)["messages"] == [user(text("hi", id="t"))]
    assert [(f, s) for f, s in diags(result) if f.startswith("$.extra")] == [
        ("$.extra.openai", "Unsupported"),
        ("$.extra.llm_sdk.other", "Unsupported"),
        ('$.extra.llm_sdk.members["$.conversation[0].message.content[0]"].color', "Unsupported"),
        ('$.extra.llm_sdk.members["$.nowhere"].id', "Unsupported"),
        ('$.extra.media["$.conversation[5].image"].data', "Unsupported"),
    ]


# ----------------------------------------------------------------------------------- responses


def test_an_llm_sdk_response_is_choice_0_with_id_and_model_from_the_context() -> None:
    doc = {
        "content": [text("Calling.", id="p0"), {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "args": {"x": [1, 2]}},
                    {"type": "audio", "audioData": "UklGRg==", "container": "wav", "transcript": "hi"}],
        "usage": {"inputTokens": 10, "outputTokens": 5, "outputTokensDetail": {"audioTokens": 2}},
        "cost": 0.25,
    }
    result = to_lux(doc, RESPONSE_CONTEXT, "response")
    value = as_json(result.value)
    assert (value["id"], value["model"]) == ("resp_1", "model-1")
    assert value["choices"][0]["finish_reason"] == "tool_calls"
    assert value["usage"] == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    assert value["provider_payload"]["media"] == {"$.choices[0].message.content[2].audio": {"data": "UklGRg=="}}
    assert diags(result) == [("$.usage.outputTokensDetail.audioTokens", "Degraded"), ("$.cost", "Degraded")]
    back = to_llm_sdk(result.value, "response")
    assert as_json(back.value) == doc
    assert diags(back) == [("$.choices[0].finish_reason", "Degraded"), ("$.id", "Degraded"), ("$.model", "Degraded")]


def test_a_response_without_id_and_model_in_the_context_is_invalid_and_not_invented() -> None:
    result = lucent.convert(json.dumps({"content": []}), "llm-sdk", "lux", kind="response")
    assert diags(result) == [("target:$.id", "Invalid"), ("target:$.model", "Invalid")]


def test_lux_choices_after_the_first_and_other_finish_reasons_are_unsupported() -> None:
    choice = {"index": 0, "message": {"role": "assistant", "content": [text("a")]}, "finish_reason": "length"}
    doc = {"schema_version": "v1", "id": "r", "model": "m", "choices": [choice, {**choice, "index": 1}], "created_at": 5}
    result = to_llm_sdk(doc, "response")
    assert as_json(result.value) == {"content": [text("a")]}
    assert diags(result) == [
        ("$.choices[0].finish_reason", "Unsupported"),
        ("$.choices[1]", "Unsupported"),
        ("$.id", "Degraded"),
        ("$.model", "Degraded"),
        ("$.created_at", "Unsupported"),
    ]


# ------------------------------------------------------------------ composition and provenance


SPARKTIDE = {
    "protocolVersion": "1.0", "invocationId": "inv_1", "deadline": 1893456000000, "purpose": "SYNTHETIC_PROBE", "appId": "monitor",
    "model": "model-1", "max_completion_tokens": 256, "stream": False,
    "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": []}],
}


def test_second_hop_findings_name_the_source_values_they_came_from() -> None:
    result = lucent.convert(json.dumps(SPARKTIDE), "sparktide", "llm-sdk")
    assert diags(result) == [
        ("$.model", "Degraded"),
        ("$.protocolVersion", "Unsupported"),
        ("$.invocationId", "Unsupported"),
        ("$.deadline", "Unsupported"),
        ("$.purpose", "Unsupported"),
        ("$.appId", "Unsupported"),
        # `tool_calls: []` holds no value: extra.sparktide.empty_tool_calls only records that
        # SparkTide spelled "no tool calls" as an empty list (a spelling, tests/test_convert_spelling.py)
    ]
    assert as_json(result.value) == {"messages": [user(text("hi")), {"role": "assistant", "content": [text("")]}], "maxTokens": 256}


def test_a_composed_strict_conversion_raises_with_the_diagnostics_of_both_hops() -> None:
    doc = {"messages": [user(text("hi"), {"type": "audio", "audioData": "AA=="})], "presencePenalty": 0.5}
    context = {**CONTEXT, "invocationId": "i", "deadline": 1, "purpose": "SYNTHETIC_PROBE", "appId": "a", "max_completion_tokens": 5}
    with pytest.raises(ConversionError) as raised:
        lucent.convert(json.dumps(doc), "llm-sdk", "sparktide", context=context, strict=True)
    assert [(d.field, d.status) for d in raised.value.diagnostics] == [
        # the first hop keeps it in extra.llm_sdk (Degraded), which SparkTide does not read: what
        # happened in the end is that it was dropped, said once (issue 16.1)
        ("$.presencePenalty", "Unsupported"),
        ("$.messages[0].content[1]", "Unsupported"),          # second hop, named by source path
        ("$.messages[0].content[1].audioData", "Unsupported"),
    ]
    assert "Degraded" not in {d.status for d in raised.value.diagnostics if d.field == "$.presencePenalty"}


def test_a_context_value_that_replaces_a_different_source_value_is_degraded() -> None:
    doc = {"messages": [user(text("hi"))], "maxTokens": 100}
    context = {**CONTEXT, "invocationId": "i", "deadline": 1, "purpose": "SYNTHETIC_PROBE", "appId": "a", "max_completion_tokens": 5}
    result = lucent.convert(json.dumps(doc), "llm-sdk", "sparktide", context=context)
    assert as_json(result.value)["max_completion_tokens"] == 5
    assert diags(result) == [("$.maxTokens", "Degraded")]


def test_the_first_hop_records_the_source_path_of_every_lux_value() -> None:
    doc = lucent.decode(json.dumps({"systemPrompt": "s", "messages": [user(text("a")), {"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "c", "toolName": "f", "result": {}}]}], "topP": 0.5}), "llm-sdk", "LanguageModelInput")
    assert isinstance(doc, LanguageModelInput)
    origins: dict[str, str] = {}
    llm_sdk_to_lux_request(doc, CONTEXT, origins)
    assert {k: origins[k] for k in (
        "$", "$.instructions", "$.instructions[0]", "$.conversation[0]", "$.conversation[0].message.content[0].text",
        "$.conversation[1]", "$.conversation[1].tool_result.tool_use_id", "$.conversation[1].tool_result.content[0]", "$.options.top_p",
    )} == {
        "$": "$", "$.instructions": "$.systemPrompt", "$.instructions[0]": "$.systemPrompt", "$.conversation[0]": "$.messages[0]",
        "$.conversation[0].message.content[0].text": "$.messages[0].content[0].text", "$.conversation[1]": "$.messages[1].content[0]",
        "$.conversation[1].tool_result.tool_use_id": "$.messages[1].content[0].toolCallId",
        "$.conversation[1].tool_result.content[0]": "$.messages[1].content[0].result", "$.options.top_p": "$.topP",
    }


def test_a_lux_path_is_named_by_itself_its_recorded_values_or_its_nearest_recorded_holder() -> None:
    origins = {"$": "$", "$.conversation[0]": "$.messages[0]", "$.extra.llm_sdk.topK": "$.topK", '$.extra.media["$.x"].data': "$.y.data"}
    assert _source_paths("$.conversation[0]", origins) == ["$.messages[0]"]
    assert _source_paths("$.conversation[0].message.content[3].annotations", origins) == ["$.messages[0]"]
    assert _source_paths("$.extra", origins) == ["$.topK", "$.y.data"]
    assert _source_paths("$.extra.media", origins) == ["$.y.data"]
    assert _source_paths("target:$.model", origins) == ["target:$.model"]
    assert _source_paths("$.nowhere", {}) == ["$.nowhere"]
    assert [_parent(p) for p in ("$.a[2]", '$.a["b.c[1]"]', '$.a["q\\"."].b', "$")] == ["$.a", "$.a", '$.a["q\\"."]', None]
    assert [_parent(p) for p in ("$.a.b_c[12]", "$[0]", "$.a", "$.a[12].b")] == ["$.a.b_c", "$", "$", "$.a[12]"]  # no quote: found in C


@pytest.mark.parametrize(("source", "target"), [("htmlp", "llm-sdk"), ("llm-sdk", "htmlp"), ("sparktide", "htmlp")])
def test_every_pair_without_a_direct_converter_composes_through_lux(source: str, target: str) -> None:
    from lucent.generated.convert_registry import CONVERTERS

    assert (source, "lux", "request") in CONVERTERS and ("lux", target, "request") in CONVERTERS
    assert (source, target, "request") not in CONVERTERS
    docs = {"llm-sdk": {"messages": [user(text("hi"))]}, "sparktide": SPARKTIDE, "htmlp": {
        "fragments": [{"source": {"kind": "user_message"}, "role": "user", "content": [text("hi")], "byte_count": 2}],
        "tools": [], "model": "model-1", "thinking_level": "off"}}
    result = lucent.convert(json.dumps(docs[source]), source, target, context=read_by({**CONTEXT, "invocationId": "i"}, source, target, "request"))
    assert all(not d.field.startswith("$.conversation") for d in result.diagnostics)
    if not any(d.status == "Invalid" for d in result.diagnostics):
        validator(target, "request").validate(as_json(result.value))


# -------------------------------------------------------------------- generated inputs (budget)


SETTINGS = settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
DEFINITION = {("llm-sdk", "request"): "LanguageModelInput", ("llm-sdk", "response"): "ModelResponse",
              ("lux", "request"): "LucentRequest", ("lux", "response"): "LucentResponse",
              ("sparktide", "request"): "RemoteModelRequest"}
TO_SPARKTIDE = {**CONTEXT, "invocationId": "i", "deadline": 1, "purpose": "SYNTHETIC_PROBE", "appId": "a", "max_completion_tokens": 5}


def _draw(fmt: str, kind: str) -> Any:
    module = {"llm-sdk": "llm_sdk", "lux": "lux_ir_v1", "sparktide": "sparktide_remote_1_0"}[fmt]
    strategies = pytest.importorskip(f"lucent.generated.{module}_strategies")
    return strategies.STRATEGIES[DEFINITION[(fmt, kind)]]


def _whitespace_departure(error: Any) -> bool:
    """jsonschema's `\\S` is Python's: it fails "\\x1c"-"\\x1f" and "\\x85", which ECMA-262 (and lucent)
    accept (tests/conformance/EXCEPTIONS.md, regex-whitespace-class)."""
    return error.validator == "pattern" and isinstance(error.instance, str) and any(c in error.instance for c in "\x1c\x1d\x1e\x1f\x85")


def _context(doc: dict[str, Any], source: str, target: str, kind: str) -> dict[str, Any]:
    """What the caller holds outside the document, as much of it as the conversion reads."""
    return read_by(_offered(doc, source, target, kind), source, target, kind)


def _offered(doc: dict[str, Any], source: str, target: str, kind: str) -> dict[str, Any]:
    """What the caller holds outside the document: llm-sdk's model and stream, a response's id."""
    if target == "sparktide":
        return TO_SPARKTIDE
    if source == "lux" and kind == "request":
        return {"model": doc["model"], "stream": doc["options"]["stream"]}
    if source == "lux":
        return {"id": doc["id"], "model": doc["model"]}
    return CONTEXT if kind == "request" else RESPONSE_CONTEXT


@pytest.mark.parametrize(("source", "target", "kind"), [
    ("llm-sdk", "lux", "request"), ("llm-sdk", "lux", "response"), ("lux", "llm-sdk", "request"), ("lux", "llm-sdk", "response"),
    ("llm-sdk", "sparktide", "request"), ("sparktide", "llm-sdk", "request"),
])
def test_generated_documents_convert_validly_lose_nothing_unnamed_and_come_back_when_exact(source: str, target: str, kind: str) -> None:
    @SETTINGS
    @given(_draw(source, kind))
    def check(doc: dict[str, Any]) -> None:
        there = lucent.convert(json.dumps(doc), source, target, kind=kind, context=_context(doc, source, target, kind))
        out = as_json(there.value)
        invalid = any(d.status == "Invalid" for d in there.diagnostics)
        if not invalid:
            errors = [e for e in validator(target, kind).iter_errors(out) if not _whitespace_departure(e)]
            assert not errors, errors[0]
        # back to the source: from the JSON text when it is valid, else from the Struct itself
        back_result = lucent.convert(there.value if invalid else json.dumps(out), target, source, kind=kind, context=_context(out, target, source, kind))
        back = as_json(back_result.value)
        assert lost_values(doc, out, there.diagnostics, back) == []
        if all(d.status == "Exact" for d in there.diagnostics) and all(d.status == "Exact" for d in back_result.diagnostics):
            decoded = as_json(lucent.decode(json.dumps(doc), FORMATS[source], DEFINITION[(source, kind)]))
            assert back == decoded

    check()


# ------------------------------------------------------------------------------ spec compiler


def _repo_copy(tmp_path: pathlib.Path) -> pathlib.Path:
    for name in ("mappings", "schemas", "codegen/templates", "lucent/formats"):  # lucent/formats: the transforms codegen binds
        shutil.copytree(REPO / name, tmp_path / name)
    shutil.copy(REPO / "lucent" / "_transforms.py", tmp_path / "lucent" / "_transforms.py")
    return tmp_path


def test_codegen_fails_on_an_llm_sdk_field_neither_mapped_nor_declared(tmp_path: pathlib.Path) -> None:
    from codegen.mappings import MappingSpecError, render_all

    root = _repo_copy(tmp_path)
    spec = root / "mappings" / "llm_sdk_lux_request.toml"
    spec.write_text(spec.read_text(encoding="utf-8").replace('transcript = { keep = "llm_sdk.members" }\n', "", 1), encoding="utf-8")
    with pytest.raises(MappingSpecError, match=r"AudioPart\.transcript is neither mapped nor declared"):
        render_all(root)


def test_codegen_fails_on_a_keep_outside_the_lux_side_cars(tmp_path: pathlib.Path) -> None:
    from codegen.mappings import MappingSpecError, render_all

    root = _repo_copy(tmp_path)
    spec = root / "mappings" / "llm_sdk_lux_request.toml"
    spec.write_text(spec.read_text(encoding="utf-8").replace('width = { keep = "llm_sdk.members" }', 'width = { keep = "metadata" }'), encoding="utf-8")
    with pytest.raises(MappingSpecError, match="keep names a side-car"):
        render_all(root)


def test_one_instruction_joined_with_folded_system_messages_is_degraded() -> None:
    # found by the generated-document property: instructions [""] and a leading system message
    # became one systemPrompt, and the instruction text came back changed without a diagnostic
    doc = lux_request([message("system", text("")), message("user", text("hi"))], instructions=[text("")])
    result = to_llm_sdk(doc)
    assert as_json(result.value)["systemPrompt"] == "\n"
    assert ("$.instructions", "Degraded") in diags(result)
    alone = to_llm_sdk(lux_request([message("user", text("hi"))], instructions=[text("")]))
    assert as_json(alone.value)["systemPrompt"] == ""
    assert [f for f, _ in diags(alone) if f.startswith("$.instructions")] == []
