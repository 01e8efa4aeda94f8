"""SparkTide RemoteModelResponse <-> Lux LucentResponse and RemoteModelFailure <-> LucentError.

Real values throughout: exact round trips on realistic replies, the diagnostic (field = JSON path
in the source document, status) of every lossy case, strict mode, and, over generated documents,
that every output validates against the target schema and that no source value is lost without
a diagnostic naming it.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings

import lucent
from lucent.errors import ConversionError
from lucent.generated import lux_ir_v1_strategies, sparktide_remote_1_0_strategies
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic, ConversionResult
from lucent.generated.lux_ir_v1 import LucentContentText, LucentContentToolUse, LucentError, LucentResponse, LucentToolUse, LucentUsage
from tests import ecma_jsonschema
from tests.conservation import lost_values
from tests.paths import REPO

SCHEMAS = REPO / "schemas"


def _schema(name: str, definition: str) -> dict[str, Any]:
    doc = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    defs = "$defs" if "$defs" in doc else "definitions"
    doc = {k: v for k, v in doc.items() if k not in ("oneOf", "$ref")}
    doc["$ref"] = f"#/{defs}/{definition}"
    return doc


LUX_RESPONSE = _schema("lux-ir-v1.json", "LucentResponse")
LUX_ERROR = _schema("lux-ir-v1.json", "LucentError")
SPARKTIDE_RESPONSE = _schema("sparktide-remote-1.0.json", "RemoteModelResponse")
SPARKTIDE_FAILURE = _schema("sparktide-remote-1.0.json", "RemoteModelFailure")

CONTEXT = {"id": "inv_7f3a", "model": "qwen-max"}


def as_json(value: Any) -> Any:
    return json.loads(lucent.encode(value))


def diag(result: ConversionResult | list[ConversionDiagnostic]) -> list[tuple[str, str]]:
    items = result.diagnostics if isinstance(result, ConversionResult) else result
    return [(d.field, d.status) for d in items]


def to_lux(doc: dict[str, Any], context: dict[str, Any] | None = CONTEXT, kind: str = "response") -> ConversionResult:
    if kind == "error" and context is CONTEXT:
        context = None  # a failure carries no id or model: an error conversion reads no context key
    result = lucent.convert(json.dumps(doc), "sparktide", "lux", kind=kind, context=context)
    if not any(d.status == "Invalid" for d in result.diagnostics):
        ecma_jsonschema.validate(as_json(result.value), LUX_RESPONSE if kind == "response" else LUX_ERROR)
    return result


def to_sparktide(doc: dict[str, Any], kind: str = "response", **kw: Any) -> ConversionResult:
    result = lucent.convert(json.dumps(doc), "lux", "sparktide", kind=kind, **kw)
    ecma_jsonschema.validate(as_json(result.value), SPARKTIDE_RESPONSE if kind == "response" else SPARKTIDE_FAILURE)
    return result


def round_trip(doc: dict[str, Any]) -> tuple[Any, list[ConversionDiagnostic], list[ConversionDiagnostic]]:
    there = to_lux(doc)
    back = lucent.convert(lucent.encode(there.value), "lux", "sparktide", kind="response")
    out = as_json(back.value)
    ecma_jsonschema.validate(out, SPARKTIDE_RESPONSE)
    return out, there.diagnostics, back.diagnostics


# The diagnostics every Lux -> SparkTide response reports: a SparkTide reply has no id, model
# or finish reason (the platform knows the first two; the finish reason is derived). The index
# of the one choice is implied: the reply is that choice, index 0, as a SparkTide stream says too.
IMPLIED = [("$.choices[0].finish_reason", "Degraded"), ("$.id", "Degraded"), ("$.model", "Degraded")]

TEXT_REPLY = {
    "message": {"role": "assistant", "content": "Oslo: 12 °C, light rain. Bring an umbrella."},
    "usage": {"prompt_tokens": 412, "completion_tokens": 17, "total_tokens": 429},
}

CALL = {"id": "call-1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\",\"unit\":\"celsius\"}"}}
CALL_2 = {"id": "call-2", "type": "function", "function": {"name": "get_time", "arguments": "{\"tz\":\"Europe/Oslo\"}"}}


# ------------------------------------------------------------------------------ SparkTide -> Lux


def test_text_reply_is_one_text_choice_with_stop_and_full_usage() -> None:
    result = to_lux(TEXT_REPLY)
    value = result.value
    assert isinstance(value, LucentResponse)
    assert (value.id, value.model, value.schema_version) == ("inv_7f3a", "qwen-max", "v1")
    (choice,) = value.choices
    assert (choice.index, choice.finish_reason, choice.message.role) == (0, "stop", "assistant")
    assert choice.message.content == [LucentContentText(text="Oslo: 12 °C, light rain. Bring an umbrella.")]
    assert value.usage == LucentUsage(prompt_tokens=412, completion_tokens=17, total_tokens=429)
    assert result.diagnostics == []
    out, there, back = round_trip(TEXT_REPLY)
    assert out == TEXT_REPLY and there == [] and diag(back) == IMPLIED


@pytest.mark.parametrize(
    "message",
    [
        pytest.param({"role": "assistant", "content": None, "tool_calls": [CALL, CALL_2]}, id="null-content"),
        pytest.param({"role": "assistant", "tool_calls": [CALL]}, id="absent-content"),
        pytest.param({"role": "assistant", "content": "", "tool_calls": [CALL]}, id="empty-content"),
        pytest.param({"role": "assistant", "content": "Checking both.", "tool_calls": [CALL, CALL_2]}, id="text-and-calls"),
        pytest.param({"role": "assistant", "content": "No tools needed.", "tool_calls": []}, id="empty-tool-calls"),
        pytest.param({"role": "assistant", "content": ""}, id="only-empty-text"),
    ],
)
def test_every_content_and_tool_calls_shape_round_trips_exactly(message: dict[str, Any]) -> None:
    doc = {"message": message, "usage": {"prompt_tokens": 90, "completion_tokens": 31, "total_tokens": 121}}
    out, there, back = round_trip(doc)
    assert out == doc
    assert there == []
    assert diag(back) == IMPLIED


def test_tool_calls_become_tool_use_blocks_and_finish_reason_tool_calls() -> None:
    doc = {"message": {"role": "assistant", "content": None, "tool_calls": [CALL, CALL_2]}, "usage": {}}
    (choice,) = to_lux(doc).value.choices
    assert choice.finish_reason == "tool_calls"
    assert [block.tool_use.id for block in choice.message.content if isinstance(block, LucentContentToolUse)] == ["call-1", "call-2"]
    assert choice.message.content[0] == LucentContentToolUse(
        tool_use=LucentToolUse(id="call-1", name="get_weather", arguments="{\"city\":\"Oslo\",\"unit\":\"celsius\"}")
    )


def test_empty_usage_means_no_receipt_and_is_never_zeros() -> None:
    doc = {"message": {"role": "assistant", "content": "Hi."}, "usage": {}}
    result = to_lux(doc)
    assert "usage" not in as_json(result.value)
    assert result.diagnostics == []
    out, _, _ = round_trip(doc)
    assert out["usage"] == {}


def test_partial_usage_is_kept_verbatim_and_reported_degraded() -> None:
    doc = {"message": {"role": "assistant", "content": "Hi."}, "usage": {"prompt_tokens": 12}}
    result = to_lux(doc)
    lux = as_json(result.value)
    assert "usage" not in lux
    assert lux["provider_payload"] == {"sparktide": {"usage": {"prompt_tokens": 12}}}
    assert diag(result) == [("$.usage", "Degraded")]
    out, _, _ = round_trip(doc)
    assert out == doc


def test_missing_id_and_model_are_invalid_never_invented() -> None:
    result = to_lux(TEXT_REPLY, context=None)
    lux = as_json(result.value)
    assert "id" not in lux and "model" not in lux
    assert diag(result) == [("target:$.id", "Invalid"), ("target:$.model", "Invalid")]
    with pytest.raises(ConversionError) as raised:
        lucent.convert(json.dumps(TEXT_REPLY), "sparktide", "lux", kind="response", strict=True)
    assert raised.value.code == "conversion_lossy"
    assert raised.value.path == "target:$.id"


def test_context_created_at_is_written_and_a_mistyped_context_value_is_invalid() -> None:
    result = to_lux(TEXT_REPLY, context={**CONTEXT, "created_at": 1893456000})
    assert result.value.created_at == 1893456000
    result = lucent.convert(json.dumps(TEXT_REPLY), "sparktide", "lux", kind="response", context={"id": 7, "model": "qwen-max"})
    assert set(diag(result)) == {("target:$.id", "Invalid")}
    assert "context['id'] is a JSON integer, not a JSON string" in (result.diagnostics[0].detail or "")


def test_malformed_tool_arguments_are_carried_and_reported_invalid() -> None:
    bad = {**CALL, "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\""}}
    doc = {"message": {"role": "assistant", "content": None, "tool_calls": [bad]}, "usage": {}}
    result = to_lux(doc)
    assert diag(result) == [("$.message.tool_calls[0].function.arguments", "Invalid")]
    assert result.value.choices[0].message.content[0].tool_use.arguments == "{\"city\": \"Oslo\""
    with pytest.raises(ConversionError):
        lucent.convert(json.dumps(doc), "sparktide", "lux", kind="response", context=CONTEXT, strict=True)


# ------------------------------------------------------------------------------ Lux -> SparkTide


def lux_reply(content: list[dict[str, Any]], finish_reason: str = "stop", **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema_version": "v1", "id": "chatcmpl-9", "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": finish_reason, "message": {"role": "assistant", "content": content}}],
    }
    doc.update(fields)
    return doc


LUX_CALL = {"type": "tool_use", "tool_use": {"id": "call-1", "name": "get_weather", "arguments": "{\"city\":\"Oslo\",\"unit\":\"celsius\"}"}}


def test_lux_reply_with_text_and_tool_call() -> None:
    doc = lux_reply([{"type": "text", "text": "Checking."}, LUX_CALL], "tool_calls", usage={"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12})
    result = to_sparktide(doc)
    assert as_json(result.value) == {
        "message": {"role": "assistant", "content": "Checking.", "tool_calls": [CALL]},
        "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
    }
    assert diag(result) == IMPLIED


def test_tool_call_only_reply_has_null_content() -> None:
    out = as_json(to_sparktide(lux_reply([LUX_CALL], "tool_calls")).value)
    assert out == {"message": {"role": "assistant", "content": None, "tool_calls": [CALL]}, "usage": {}}


def test_no_lux_usage_is_an_empty_sparktide_usage() -> None:
    assert as_json(to_sparktide(lux_reply([{"type": "text", "text": "Hi."}])).value)["usage"] == {}


@pytest.mark.parametrize(
    ("finish_reason", "content"),
    [
        ("length", [{"type": "text", "text": "The list goes on: 1, 2,"}]),
        ("content_filter", [{"type": "text", "text": ""}]),
        ("safety", [{"type": "text", "text": ""}]),
        ("recitation", [{"type": "text", "text": "It was"}]),
        ("malformed_tool_call", [{"type": "text", "text": ""}]),
        ("error", [{"type": "text", "text": ""}]),
        ("stop", [LUX_CALL]),
        ("tool_calls", [{"type": "text", "text": "Done."}]),
    ],
)
def test_finish_reasons_sparktide_cannot_say_are_unsupported(finish_reason: str, content: list[dict[str, Any]]) -> None:
    result = to_sparktide(lux_reply(content, finish_reason))
    assert ("$.choices[0].finish_reason", "Unsupported") in diag(result)
    with pytest.raises(ConversionError) as raised:
        to_sparktide(lux_reply(content, finish_reason), strict=True)
    assert raised.value.path == "$.choices[0].finish_reason"


def test_refusal_is_written_as_the_message_text_degraded() -> None:
    doc = lux_reply([{"type": "refusal", "refusal": "I can't help with that."}], "content_filter")
    result = to_sparktide(doc)
    assert as_json(result.value)["message"] == {"role": "assistant", "content": "I can't help with that."}
    assert diag(result) == [
        ("$.choices[0].message.content[0]", "Degraded"),
        ("$.choices[0].finish_reason", "Unsupported"),
        ("$.id", "Degraded"),
        ("$.model", "Degraded"),
    ]


def test_usage_cached_and_reasoning_tokens_are_unsupported() -> None:
    # case 12 (usage-cached-and-reasoning-tokens), target sparktide
    doc = lux_reply(
        [{"type": "text", "text": "Hello."}],
        usage={"prompt_tokens": 9000, "completion_tokens": 10, "total_tokens": 9010, "cached_tokens": 6000, "reasoning_tokens": 4},
    )
    result = to_sparktide(doc)
    assert as_json(result.value)["usage"] == {"prompt_tokens": 9000, "completion_tokens": 10, "total_tokens": 9010}
    assert ("$.usage.cached_tokens", "Unsupported") in diag(result)
    assert ("$.usage.reasoning_tokens", "Unsupported") in diag(result)


def test_a_token_count_sparktide_cannot_hold_is_invalid_and_dropped() -> None:
    doc = lux_reply([{"type": "text", "text": "Hello."}], usage={"prompt_tokens": -1, "completion_tokens": 10, "total_tokens": 2_000_000_000})
    result = to_sparktide(doc)
    assert as_json(result.value)["usage"] == {"completion_tokens": 10}
    assert ("$.usage.prompt_tokens", "Invalid") in diag(result)
    assert ("$.usage.total_tokens", "Invalid") in diag(result)


def test_the_index_of_the_one_choice_is_implied_and_another_index_is_unsupported() -> None:
    # issue 15: a SparkTide stream names no index 0 either (the reply is that choice)
    assert ("$.choices[0].index", "Degraded") not in diag(to_sparktide(lux_reply([{"type": "text", "text": "A"}])))
    doc = lux_reply([{"type": "text", "text": "A"}])
    doc["choices"][0]["index"] = 1
    assert ("$.choices[0].index", "Unsupported") in diag(to_sparktide(doc))


def test_further_choices_are_unsupported_and_a_missing_choice_is_invalid() -> None:
    doc = lux_reply([{"type": "text", "text": "A"}])
    doc["choices"].append({"index": 1, "finish_reason": "stop", "message": {"role": "assistant", "content": [{"type": "text", "text": "B"}]}})
    result = to_sparktide(doc)
    assert as_json(result.value)["message"]["content"] == "A"
    assert ("$.choices[1]", "Unsupported") in diag(result)
    empty = to_sparktide({"schema_version": "v1", "id": "r", "model": "m", "choices": []})
    assert as_json(empty.value)["message"] == {"role": "assistant", "content": ""}
    assert ("$.choices", "Invalid") in diag(empty)


def test_blocks_a_sparktide_reply_cannot_carry_are_unsupported() -> None:
    doc = lux_reply([
        {"type": "thinking", "thinking": {"text": "The user wants weather.", "redacted": False, "signature": "sig_1"}},
        {"type": "text", "text": "Sunny.", "annotations": [{"kind": "url", "ref": "https://met.no"}]},
        {"type": "image", "image": {"media_type": "image/png", "source": "url"}},
        {"type": "tool_result", "tool_result": {"tool_use_id": "call-0", "content": [], "is_error": False}},
    ])
    result = to_sparktide(doc)
    assert as_json(result.value)["message"] == {"role": "assistant", "content": "Sunny."}
    assert diag(result)[:4] == [
        ("$.choices[0].message.content[0]", "Unsupported"),
        ("$.choices[0].message.content[1].annotations", "Unsupported"),
        ("$.choices[0].message.content[2]", "Unsupported"),
        ("$.choices[0].message.content[3]", "Unsupported"),
    ]


def test_several_text_blocks_are_joined_and_another_role_is_degraded() -> None:
    doc = lux_reply([{"type": "text", "text": "Line one."}, {"type": "text", "text": "Line two."}])
    doc["choices"][0]["message"]["role"] = "model"
    result = to_sparktide(doc)
    assert as_json(result.value)["message"] == {"role": "assistant", "content": "Line one.\nLine two."}
    assert ("$.choices[0].message.role", "Degraded") in diag(result)
    # each block of the joined text, as a SparkTide stream names them
    assert ("$.choices[0].message.content[0]", "Degraded") in diag(result)
    assert ("$.choices[0].message.content[1]", "Degraded") in diag(result)
    assert ("$.choices[0].message.content", "Degraded") not in diag(result)


@pytest.mark.parametrize(
    ("call_id", "name", "field"),
    [("", "get_weather", "id"), ("call-1", "  ", "name"), ("c" * 129, "get_weather", "id")],
)
def test_a_tool_call_sparktide_rejects_is_invalid_and_dropped(call_id: str, name: str, field: str) -> None:
    bad = {"type": "tool_use", "tool_use": {"id": call_id, "name": name, "arguments": "{}"}}
    result = to_sparktide(lux_reply([{"type": "text", "text": "Calling."}, bad], "tool_calls"))
    assert as_json(result.value)["message"] == {"role": "assistant", "content": "Calling."}
    (fault,) = [d for d in result.diagnostics if d.status == "Invalid"]
    assert fault.field == "$.choices[0].message.content[1]" and f"tool call {field}" in (fault.detail or "")


def test_more_than_sixteen_tool_calls_are_invalid_beyond_the_sixteenth() -> None:
    calls = [{"type": "tool_use", "tool_use": {"id": f"call-{i}", "name": "f", "arguments": "{}"}} for i in range(18)]
    result = to_sparktide(lux_reply(calls, "tool_calls"))
    assert len(as_json(result.value)["message"]["tool_calls"]) == 16
    assert [d.field for d in result.diagnostics if d.status == "Invalid"] == ["$.choices[0].message.content[16]", "$.choices[0].message.content[17]"]


def test_created_at_safety_ratings_and_other_provider_payload_are_unsupported() -> None:
    doc = lux_reply([{"type": "text", "text": "Hi."}], created_at=1893456000, provider_payload={"openai": {"system_fingerprint": "fp_1"}})
    doc["choices"][0]["safety_ratings"] = [{"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE"}]
    result = to_sparktide(doc)
    assert ("$.created_at", "Unsupported") in diag(result)
    assert ("$.choices[0].safety_ratings", "Unsupported") in diag(result)
    assert ("$.provider_payload.openai", "Unsupported") in diag(result)


def test_members_of_open_lux_objects_that_the_schema_does_not_define_are_named() -> None:
    doc = lux_reply([{"type": "text", "text": "Hi.", "lang": "en"}], system_fingerprint="fp_1")
    result = to_sparktide(doc)
    assert ("$.choices[0].message.content[0].lang", "Unsupported") in diag(result)
    assert ("$.system_fingerprint", "Unsupported") in diag(result)


# ---------------------------------------------------------------------------------- failures


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("MODEL_UNAVAILABLE", "server_error"),
        ("MODEL_TIMED_OUT", "server_error"),
        ("MODEL_RATE_LIMITED", "rate_limit"),
        ("MODEL_AUTH_FAILED", "authentication"),
        ("MODEL_REQUEST_REJECTED", "invalid_request"),
        ("MODEL_FEATURE_UNSUPPORTED", "invalid_request"),
        ("MODEL_PROTOCOL_ERROR", "server_error"),
    ],
)
def test_every_failure_code_has_a_kind_keeps_its_code_and_round_trips(code: str, kind: str) -> None:
    doc = {"error": {"code": code}}
    result = to_lux(doc, kind="error")
    value = result.value
    assert isinstance(value, LucentError)
    assert (value.kind, value.provider_code) == (kind, code)
    assert value.message and code not in value.message  # a fixed description, the same for every failure with this code
    assert result.diagnostics == []
    back = to_sparktide(as_json(value), kind="error")
    assert as_json(back.value) == doc
    assert diag(back) == [("$.message", "Degraded")]


def test_failure_messages_are_fixed_per_code() -> None:
    first = to_lux({"error": {"code": "MODEL_TIMED_OUT"}}, kind="error").value
    second = to_lux({"error": {"code": "MODEL_TIMED_OUT"}}, kind="error").value
    assert first.message == second.message == "The model did not answer in time."


@pytest.mark.parametrize(
    ("kind", "code"),
    [("rate_limit", "MODEL_RATE_LIMITED"), ("authentication", "MODEL_AUTH_FAILED"), ("invalid_request", "MODEL_REQUEST_REJECTED"), ("server_error", "MODEL_UNAVAILABLE")],
)
def test_a_lux_error_without_a_sparktide_code_gets_the_code_of_its_kind(kind: str, code: str) -> None:
    result = to_sparktide({"kind": kind, "message": "upstream said no"}, kind="error")
    assert as_json(result.value) == {"error": {"code": code}}
    assert diag(result) == [("$.message", "Unsupported")]


def test_content_filter_has_no_sparktide_code_and_is_degraded() -> None:
    result = to_sparktide({"kind": "content_filter", "message": "Blocked by the safety system."}, kind="error")
    assert as_json(result.value) == {"error": {"code": "MODEL_REQUEST_REJECTED"}}
    assert diag(result) == [("$.kind", "Degraded"), ("$.message", "Unsupported")]
    with pytest.raises(ConversionError) as raised:
        to_sparktide({"kind": "content_filter", "message": "Blocked by the safety system."}, kind="error", strict=True)
    assert raised.value.path == "$.message"


def test_a_provider_code_that_is_not_a_sparktide_code_is_unsupported() -> None:
    result = to_sparktide({"kind": "rate_limit", "message": "The model provider is rate limiting requests.", "provider_code": "429"}, kind="error")
    assert as_json(result.value) == {"error": {"code": "MODEL_RATE_LIMITED"}}
    assert diag(result) == [("$.provider_code", "Unsupported"), ("$.message", "Degraded")]


def test_a_sparktide_provider_code_wins_over_a_kind_that_disagrees() -> None:
    result = to_sparktide({"kind": "server_error", "message": "x", "provider_code": "MODEL_AUTH_FAILED"}, kind="error")
    assert as_json(result.value) == {"error": {"code": "MODEL_AUTH_FAILED"}}
    assert diag(result) == [("$.kind", "Degraded"), ("$.message", "Unsupported")]


# ------------------------------------------------------------------- generated documents

# derandomized by the ci profile (tests/conftest.py); HYPOTHESIS_PROFILE=explore draws new ones
SETTINGS = settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(sparktide_remote_1_0_strategies.STRATEGIES["RemoteModelResponse"])
def test_generated_sparktide_responses_convert_validly_and_round_trip(doc: dict[str, Any]) -> None:
    result = to_lux(doc)
    ecma_jsonschema.validate(as_json(result.value), LUX_RESPONSE)
    back = lucent.convert(lucent.encode(result.value), "lux", "sparktide", kind="response")
    if not any(d.status == "Invalid" for d in result.diagnostics):
        assert as_json(back.value) == doc
    assert lost_values(doc, as_json(result.value), result.diagnostics, as_json(back.value)) == []


@SETTINGS
@given(lux_ir_v1_strategies.STRATEGIES["LucentResponse"])
@example(
    doc={  # U+001F is not white space to ECMA-262: a valid SparkTide tool name
        "schema_version": "v1", "id": "", "model": "",
        "choices": [{"index": 0.0, "finish_reason": "stop", "message": {"role": "system", "content": [
            {"type": "text", "text": ""}, {"type": "text", "text": ""}, {"type": "tool_use", "tool_use": {"id": "0", "name": "\x1f", "arguments": ""}},
        ]}}],
    }
)
def test_generated_lux_responses_convert_validly_and_lose_nothing_unnamed(doc: dict[str, Any]) -> None:
    result = to_sparktide(doc)  # validates the output
    out = as_json(result.value)
    back = lucent.convert(json.dumps(out), "sparktide", "lux", kind="response", context={"id": doc["id"], "model": doc["model"]})
    assert lost_values(doc, out, result.diagnostics, as_json(back.value)) == []


@SETTINGS
@given(sparktide_remote_1_0_strategies.STRATEGIES["RemoteModelFailure"])
def test_generated_sparktide_failures_round_trip(doc: dict[str, Any]) -> None:
    result = to_lux(doc, kind="error")
    assert as_json(to_sparktide(as_json(result.value), kind="error").value) == doc


@SETTINGS
@given(lux_ir_v1_strategies.STRATEGIES["LucentError"])
def test_generated_lux_errors_convert_validly_and_lose_nothing_unnamed(doc: dict[str, Any]) -> None:
    result = to_sparktide(doc, kind="error")
    out = as_json(result.value)
    back = lucent.convert(json.dumps(out), "sparktide", "lux", kind="error")
    assert lost_values(doc, out, result.diagnostics, as_json(back.value)) == []
