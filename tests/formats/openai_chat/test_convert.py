"""OpenAI Chat Completions <-> Lux (mappings/*openai_chat*.toml), on real recorded traffic.

The corpus is tests/data/lingua/snapshots/*/chat-completions/ (lingua's recordings). Every
request and response that decodes goes openai-chat -> Lux -> openai-chat and comes back equal to
the recorded JSON except for the differences listed in
tests/data/vendor_expected_differences/openai_chat.toml, each named by a diagnostic. The quirks of
issue 5 section 4 that concern Chat Completions are checked on the recordings they come from.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import lucent
import msgspec
import pytest
from lucent.errors import LucentError
from lucent.generated.lucent_diagnostics_v1 import ConversionResult

from tests.conformance.generate import draw, strategy
from tests.convert_conformance.pairs import side
from tests.convert_conformance.validity import Validity
from tests.paths import DATA

CORPUS = DATA / "lingua" / "snapshots"
EXPECTED = tomllib.loads((DATA / "vendor_expected_differences" / "openai_chat.toml").read_text(encoding="utf-8")).get("difference", [])
DEFINITIONS = {"request": "CreateChatCompletionRequest", "response": "CreateChatCompletionResponse"}
FILES = {"request": ("request.json", "followup-request.json"), "response": ("response.json", "followup-response.json")}


def _recorded(case: str, name: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((CORPUS / case / "chat-completions" / name).read_bytes())
    return value


def _json(value: Any) -> Any:
    return msgspec.json.decode(lucent.encode(value))


def _to_lux(doc: Any, kind: str = "request") -> ConversionResult:
    return lucent.convert(json.dumps(doc).encode(), "openai-chat", "lux", kind)


def _to_chat(doc: Any, kind: str = "request", context: dict[str, Any] | None = None) -> ConversionResult:
    return lucent.convert(json.dumps(doc).encode(), "lux", "openai-chat", kind, context=context)


def _round_trip(doc: Any, kind: str = "request") -> tuple[Any, Any, list[Any]]:
    """(Lux JSON, Chat JSON back, every diagnostic of both hops)."""
    there = _to_lux(doc, kind)
    back = lucent.convert(lucent.encode(there.value), "lux", "openai-chat", kind)
    return _json(there.value), _json(back.value), [*there.diagnostics, *back.diagnostics]


def _statuses(diagnostics: list[Any]) -> dict[str, str]:
    return {d.field: d.status for d in diagnostics}


def _differences(a: Any, b: Any, path: str = "$") -> list[str]:
    """The JSON paths where `a` and `b` differ (a member one of them lacks, a different leaf)."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = []
        for key in dict.fromkeys([*a, *b]):
            where = f"{path}.{key}"
            if key not in a or key not in b:
                found.append(where)
            else:
                found.extend(_differences(a[key], b[key], where))
        return found
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for i, (x, y) in enumerate(zip(a, b)) for p in _differences(x, y, f"{path}[{i}]")]
    same = a == b and type(a) is type(b) or (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and a == b)
    return [] if same else [path]


def _listed(path: str) -> bool:
    return any(_listed_by(e, path) for e in EXPECTED)


def _corpus(kind: str) -> list[tuple[str, bytes]]:
    files = sorted(p for p in CORPUS.glob("*/chat-completions/*.json") if p.name in FILES[kind])
    return [(str(p.relative_to(CORPUS)), p.read_bytes()) for p in files]


@pytest.mark.parametrize("kind", ["request", "response"])
def test_every_corpus_document_that_decodes_round_trips_equal_but_for_the_listed_differences(kind: str) -> None:
    tally = {"documents": 0, "decoded": 0, "exact": 0, "listed": 0}
    for name, raw in _corpus(kind):
        tally["documents"] += 1
        try:
            decoded = lucent.decode(raw, "openai-chat", DEFINITIONS[kind])
        except LucentError:
            continue  # refused by the published schema: tests/data/vendor_corpus_failures.toml
        tally["decoded"] += 1
        _lux, back, diagnostics = _round_trip(json.loads(raw), kind)
        assert _differences(json.loads(raw), back) == [], name  # everything, the members the bindings do not define too
        differences = _differences(json.loads(raw), back)
        named = {d.field for d in diagnostics}
        for path in differences:
            assert _listed(path), f"{name}: {path} differs and no pattern lists it"
            assert path in named, f"{name}: {path} differs and no diagnostic names it"
        tally["listed" if differences else "exact"] += 1
    # the recordings decode as the schema (and its patches) allow; every one that does round-trips
    assert tally["documents"] == {"request": 89, "response": 82}[kind]
    assert tally["exact"] + tally["listed"] == tally["decoded"]
    assert tally["listed"] == 0  # annotations, reasoning, cache_control... come back (lucent._unknown)
    assert tally["decoded"] == {"request": 89, "response": 82}[kind]


def test_every_listed_difference_occurs_in_the_corpus() -> None:
    used = set()
    for _name, raw in _corpus("request"):
        _lux, back, _ = _round_trip(json.loads(raw))
        for path in _differences(json.loads(raw), back):
            used.update(e["pattern"] for e in EXPECTED if _listed_by(e, path))
    assert used == {e["pattern"] for e in EXPECTED}


def _listed_by(entry: dict[str, str], path: str) -> bool:
    return re.fullmatch(re.escape(entry["pattern"]).replace(r"\[\*\]", r"\[\d+\]"), path) is not None


# ------------------------------------------------------------------------------------- quirks


def test_parallel_tool_calls_keep_their_order_ids_and_results() -> None:
    doc = _recorded("parallelToolCallsRequest", "request.json")
    lux, back, diagnostics = _round_trip(doc)
    calls = lux["conversation"][1]["message"]["content"]
    assert [c["tool_use"]["id"] for c in calls] == ["call_sf", "call_nyc"]
    assert calls[1]["tool_use"]["arguments"] == '{"location":"New York, NY"}'
    results = [item["tool_result"] for item in lux["conversation"][2:4]]
    assert [(r["tool_use_id"], r["content"][0]["text"], r["is_error"]) for r in results] == [
        ("call_sf", "65°F and sunny.", False),
        ("call_nyc", "45°F and cloudy.", False),
    ]
    assert back == doc and diagnostics == []


def test_parallel_tool_calls_false_is_kept_and_its_single_call_response_maps_to_tool_calls() -> None:
    request = _recorded("parallelToolCallsDisabledParam", "request.json")
    lux, back, diagnostics = _round_trip(request)
    assert lux["extra"]["openai_chat"]["parallel_tool_calls"] is False
    assert back == request and _statuses(diagnostics) == {"$.parallel_tool_calls": "Degraded"}
    response = _recorded("parallelToolCallsDisabledParam", "response.json")
    lux, back, _ = _round_trip(response, "response")
    choice = lux["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] == [{"type": "tool_use", "tool_use": {
        "id": "call_5JltcXRPjXPzj6hHSutWaS2M", "name": "get_weather", "arguments": '{"location":"New York, NY"}'}}]
    assert back == response


def test_tool_call_items_join_the_assistant_turn_before_them() -> None:
    lux = {
        "schema_version": "v1", "model": "m", "options": {"stream": False},
        "conversation": [
            {"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "two calls"}]}},
            {"type": "tool_call", "tool_call": {"id": "a", "name": "f", "arguments": "{}"}},
            {"type": "tool_call", "tool_call": {"id": "b", "name": "f", "arguments": ""}},
        ],
    }
    result = _to_chat(lux)
    out = _json(result.value)
    assert out["messages"] == [{"role": "assistant", "content": "two calls", "tool_calls": [
        {"type": "function", "id": "a", "function": {"name": "f", "arguments": "{}"}},
        {"type": "function", "id": "b", "function": {"name": "f", "arguments": ""}},
    ]}]
    assert _statuses(result.diagnostics) == {"$.conversation[1]": "Degraded", "$.conversation[2]": "Degraded"}


@pytest.mark.parametrize("arguments", ["", "{}"])
def test_empty_or_absent_tool_arguments_are_carried_verbatim(arguments: str) -> None:
    doc = _recorded("parallelToolCallsRequest", "request.json")
    doc["messages"][1]["tool_calls"][0]["function"]["arguments"] = arguments
    lux, back, diagnostics = _round_trip(doc)
    assert lux["conversation"][1]["message"]["content"][0]["tool_use"]["arguments"] == arguments
    assert back == doc and diagnostics == []


def test_cached_tokens_stay_inside_prompt_tokens_and_cache_writes_are_counted_apart() -> None:
    doc = _recorded("temperatureParam", "response.json")
    details = doc["usage"]["prompt_tokens_details"]
    details["cached_tokens"], details["cache_write_tokens"] = 1024, 64
    doc["usage"]["completion_tokens_details"]["reasoning_tokens"] = 7
    lux, back, diagnostics = _round_trip(doc, "response")
    usage = lux["usage"]
    assert usage["prompt_tokens"] == doc["usage"]["prompt_tokens"]  # inclusive, as Lux counts
    assert (usage["cached_tokens"], usage["cache_creation_tokens"], usage["reasoning_tokens"]) == (1024, 64, 7)
    assert usage["total_tokens"] == doc["usage"]["total_tokens"]
    assert lux["provider_payload"]["openai_chat"]["usage"] == {
        "prompt_tokens_details": {"audio_tokens": 0},
        "completion_tokens_details": {"audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
    }
    assert back == doc
    assert _statuses(diagnostics)["$.usage.prompt_tokens_details.audio_tokens"] == "Degraded"


def test_lux_cache_counts_go_back_into_the_details_objects() -> None:
    lux = {"schema_version": "v1", "id": "r", "model": "m", "created_at": 1, "choices": [],
           "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105, "cached_tokens": 80, "cache_creation_tokens": 20}}
    result = _to_chat(lux, "response")
    assert _json(result.value)["usage"] == {
        "completion_tokens": 5, "prompt_tokens": 100, "total_tokens": 105,
        "prompt_tokens_details": {"cached_tokens": 80, "cache_write_tokens": 20},
    }
    assert result.diagnostics == []


def test_length_is_the_finish_reason_of_a_max_completion_tokens_stop() -> None:
    request = _recorded("maxCompletionTokensParam", "request.json")
    assert _round_trip(request)[0]["options"]["max_output_tokens"] == 500
    response = _recorded("maxCompletionTokensParam", "followup-response.json")  # all 500 tokens spent reasoning
    lux, back, _ = _round_trip(response, "response")
    assert lux["choices"][0]["finish_reason"] == "length"
    assert lux["choices"][0]["message"]["content"] == [{"type": "text", "text": ""}]
    assert (lux["usage"]["completion_tokens"], lux["usage"]["reasoning_tokens"]) == (500, 500)
    assert back == response


def test_the_deprecated_max_tokens_is_the_lux_limit_when_alone_and_comes_back_as_itself() -> None:
    doc = _recorded("maxCompletionTokensParam", "request.json")
    doc["max_tokens"] = doc.pop("max_completion_tokens")
    lux, back, diagnostics = _round_trip(doc)
    assert lux["options"]["max_output_tokens"] == 500 and lux["extra"]["openai_chat"] == {"limit_field": "max_tokens", "stream_absent": True}
    assert back == doc and diagnostics == []


@pytest.mark.parametrize(("reason", "chat", "status"), [("safety", "content_filter", "Degraded"), ("error", "stop", "Unsupported"), ("length", "length", None)])
def test_lux_finish_reasons_without_a_chat_name_are_reported(reason: str, chat: str, status: str | None) -> None:
    lux = {"schema_version": "v1", "id": "r", "model": "m", "created_at": 1, "choices": [
        {"index": 0, "finish_reason": reason, "message": {"role": "assistant", "content": [{"type": "text", "text": "x"}]}}]}
    result = _to_chat(lux, "response")
    assert _json(result.value)["choices"][0]["finish_reason"] == chat
    assert _statuses(result.diagnostics).get("$.choices[0].finish_reason") == status


def test_a_forced_tool_choice_is_a_specific_tool_and_back() -> None:
    doc = _recorded("toolChoiceRequiredParam", "request.json")
    lux, back, diagnostics = _round_trip(doc)
    assert lux["tool_choice"] == {"type": "specific_tool", "name": "get_weather"}
    assert lux["tools"] == [{"name": "get_weather", "description": "Get weather", "strict": True, "parameters": doc["tools"][0]["function"]["parameters"]}]
    assert back == doc and diagnostics == []


def test_response_format_json_schema_keeps_its_name_and_strict() -> None:
    doc = _recorded("textFormatJsonSchemaParam", "request.json")
    lux, back, diagnostics = _round_trip(doc)
    assert lux["options"]["structured_output"] == {"type": "json_schema", "schema": doc["response_format"]["json_schema"]["schema"]}
    assert lux["extra"]["openai_chat"]["json_schema"] == {"name": "person_info", "strict": True}
    assert back == doc and diagnostics == []
    del lux["extra"]["openai_chat"]["json_schema"]  # a Lux schema from elsewhere has no name
    result = _to_chat(lux)
    assert _json(result.value)["response_format"]["json_schema"] == {"name": "response", "schema": doc["response_format"]["json_schema"]["schema"]}
    assert _statuses(result.diagnostics) == {"$.options.structured_output": "Degraded"}


def test_an_image_url_is_a_url_medium_and_a_data_url_inline_bytes() -> None:
    doc = _recorded("multimodalRequest", "request.json")
    url = doc["messages"][0]["content"][1]["image_url"]["url"]
    lux, back, diagnostics = _round_trip(doc)
    assert lux["conversation"][0]["message"]["content"][1] == {"type": "image", "image": {"media_type": "image/jpeg", "source": "url"}}
    assert lux["extra"]["media"] == {"$.conversation[0].message.content[1].image": {"url": url}}
    assert back == doc and diagnostics == []
    doc["messages"][0]["content"][1]["image_url"] = {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}
    lux, back, diagnostics = _round_trip(doc)
    assert lux["conversation"][0]["message"]["content"][1]["image"] == {"media_type": "image/png", "source": "inline"}
    assert lux["extra"]["media"] == {"$.conversation[0].message.content[1].image": {"data": "iVBORw0KGgo="}}
    assert lux["extra"]["openai_chat"]["members"] == {"$.conversation[0].message.content[1].image": {"detail": "low"}}
    assert back == doc and diagnostics == []


def test_a_lux_inline_image_with_its_media_type_is_a_base64_data_url() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False},
           "conversation": [{"type": "message", "message": {"role": "user", "content": [
               {"type": "text", "text": "what is this?"}, {"type": "image", "image": {"media_type": "image/webp", "source": "inline"}}]}}],
           "extra": {"media": {"$.conversation[0].message.content[1].image": {"data": "UklGRg=="}}}}
    result = _to_chat(lux)
    assert _json(result.value)["messages"][0]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/webp;base64,UklGRg=="}}
    assert result.diagnostics == []
    del lux["extra"]["media"]  # the bytes are missing: no image is made up
    result = _to_chat(lux)
    assert _json(result.value)["messages"][0]["content"] == "what is this?"
    assert _statuses(result.diagnostics) == {"$.conversation[0].message.content[1].image": "Invalid"}


def test_tool_result_blocks_of_a_user_message_become_tool_messages_before_it() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False}, "conversation": [
        {"type": "message", "message": {"role": "assistant", "content": [{"type": "tool_use", "tool_use": {"id": "t1", "name": "f", "arguments": "{}"}}]}},
        {"type": "message", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_result": {"tool_use_id": "t1", "content": [{"type": "text", "text": "42"}], "is_error": True}},
            {"type": "text", "text": "and now?"}]}}]}
    result = _to_chat(lux)
    assert _json(result.value)["messages"] == [
        {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "id": "t1", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "content": "42", "tool_call_id": "t1"},
        {"role": "user", "content": "and now?"},
    ]
    assert _statuses(result.diagnostics) == {
        "$.conversation[1].message.content[0]": "Degraded",
        "$.conversation[1].message.content[0].tool_result.is_error": "Degraded",
    }


def test_input_audio_is_inline_audio_and_other_audio_is_unsupported() -> None:
    doc = {"model": "m", "messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "mp3"}}]}]}
    lux, back, diagnostics = _round_trip(doc)
    assert lux["conversation"][0]["message"]["content"] == [{"type": "audio", "audio": {"media_type": "audio/mpeg", "source": "inline"}}]
    assert back == doc and diagnostics == []
    lux["conversation"][0]["message"]["content"][0]["audio"]["media_type"] = "audio/ogg"
    result = _to_chat(lux)
    assert _statuses(result.diagnostics)["$.conversation[0].message.content[0]"] == "Unsupported"


def test_a_file_part_has_no_lux_block_and_is_kept_at_its_index() -> None:
    doc = _recorded("chatCompletionsUrlBackedAudioFileParam", "request.json")
    lux, back, diagnostics = _round_trip(doc)
    assert [b["type"] for b in lux["conversation"][0]["message"]["content"]] == ["text"]
    assert lux["extra"]["openai_chat"]["members"]["$.conversation[0].message"]["files"] == [{"index": 1, "part": doc["messages"][0]["content"][1]}]
    assert back == doc and _statuses(diagnostics) == {"$.messages[0].content[1]": "Degraded"}


def test_system_and_developer_messages_keep_role_and_position() -> None:
    doc = _recorded("systemMessageArrayContent", "request.json")
    doc["messages"].append({"role": "developer", "content": "Answer in French."})
    lux, back, diagnostics = _round_trip(doc)
    assert [item["message"]["role"] for item in lux["conversation"]] == ["system", "user", "developer"]
    assert "instructions" not in lux
    assert lux["extra"]["openai_chat"]["members"] == {"$.conversation[0].message": {"content_parts": True}}
    assert back == doc and diagnostics == []


def test_lux_instructions_are_a_leading_system_message() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False},
           "instructions": [{"type": "text", "text": "Be brief."}],
           "conversation": [{"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}]}
    result = _to_chat(lux)
    assert _json(result.value)["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    assert _statuses(result.diagnostics) == {"$.instructions": "Degraded"}


def test_thinking_and_redacted_thinking_are_reported_not_dropped_silently() -> None:
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False}, "conversation": [
        {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "q"}]}},
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": {"text": "hmm", "signature": "sig", "redacted": False}},
            {"type": "thinking", "thinking": {"text": "", "signature": "opaque", "redacted": True}},
            {"type": "text", "text": "a"}]}},
        {"type": "reasoning", "reasoning": {"text": "", "redacted": True, "signature": "s2"}},
    ]}
    result = _to_chat(lux)
    assert _json(result.value)["messages"][1] == {"role": "assistant", "content": "a"}
    assert _statuses(result.diagnostics) == {
        "$.conversation[1].message.content[0]": "Unsupported",
        "$.conversation[1].message.content[1]": "Unsupported",
        "$.conversation[2]": "Unsupported",
    }


def test_reasoning_effort_minimal_is_low_in_lux_and_minimal_again() -> None:
    doc = _recorded("reasoningEffortMinimalParam", "request.json")
    lux, back, diagnostics = _round_trip(doc)
    assert lux["reasoning"] == {"enabled": True, "effort": "low"}
    assert lux["extra"]["openai_chat"]["reasoning_effort"] == "minimal"
    assert back == doc and _statuses(diagnostics) == {"$.reasoning_effort": "Degraded"}


def test_a_refusal_and_the_response_members_lux_lacks_come_back() -> None:
    doc = _recorded("temperatureParam", "response.json")
    message = doc["choices"][0]["message"]
    message["content"], message["refusal"] = None, "I can't help with that."
    lux, back, _ = _round_trip(doc, "response")
    assert lux["choices"][0]["message"]["content"] == [{"type": "refusal", "refusal": "I can't help with that."}]
    assert lux["provider_payload"]["openai_chat"]["system_fingerprint"] == doc["system_fingerprint"]
    assert back == doc


def test_created_comes_from_the_context_when_lux_lacks_it() -> None:
    lux = {"schema_version": "v1", "id": "r", "model": "m", "choices": []}
    assert _statuses(_to_chat(lux, "response").diagnostics) == {"target:$.created": "Invalid"}
    result = _to_chat(lux, "response", context={"created": 1700000000})
    assert _json(result.value)["created"] == 1700000000
    assert _statuses(result.diagnostics) == {}  # the caller gave it: no loss (issue 16 §1)


# ------------------------------------------------------------- Lux -> Chat on generated Lux


@pytest.mark.parametrize("kind", ["request", "response"])
def test_generated_lux_documents_give_valid_chat_documents_or_report_the_unreachable(kind: str) -> None:
    validity = Validity()
    target = side("openai-chat", kind)
    lux = side("lux", kind)
    for doc in draw(strategy(lux.schema, lux.root), 60, 5):
        result = _to_chat(doc, kind, context={"created": 1} if kind == "response" else None)
        errors = validity.errors(target, _json(result.value))
        invalid = {d.field for d in result.diagnostics if d.status == "Invalid"}
        for error in errors:  # only an empty conversation has no Chat image (messages minItems 1)
            assert error.json_path == "$.messages" and "target:$.messages" in invalid, (doc, error.message)
