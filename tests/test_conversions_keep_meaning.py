"""Conversions keep the meaning (issue 16, section 2): each fault class seen on recorded traffic,
with the values the target is written with."""

from __future__ import annotations

from typing import Any

import msgspec

import lucent
from lucent._context import read_by


def _convert(doc: dict[str, Any], source: str, target: str, kind: str = "request", **kw: Any) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
    result = lucent.convert(doc, source, target, kind=kind, **kw)
    return msgspec.to_builtins(result.value), [(d.field, d.status, d.detail) for d in result.diagnostics]


def _chat(**params: Any) -> dict[str, Any]:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], **params}


def _responses(**params: Any) -> dict[str, Any]:
    return {"model": "gpt-4o", "input": "hi", **params}


# -- Chat <-> Responses: store, prompt_cache_key, logprobs / top_logprobs


def test_chat_store_false_stays_false_in_responses() -> None:
    out, found = _convert(_chat(store=False), "openai-chat", "openai-responses")
    assert out["store"] is False
    assert [f for f in found if f[1] != "Degraded"] == []


def test_chat_store_null_is_not_stored_in_responses() -> None:
    # Chat's null is its default (not stored); Responses stores unless told not to
    out, _ = _convert(_chat(store=None), "openai-chat", "openai-responses")
    assert out["store"] is False


def test_a_request_without_store_is_not_stored_by_responses() -> None:
    # Chat stores only when asked, and Anthropic and Gemini keep no conversation: their request
    # without store must not reach Responses, which stores unless told not to, without one
    requests = [
        ("openai-chat", _chat(), None),
        ("anthropic", {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}, None),
        ("gemini", {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, {"model": "gpt-4o"}),
    ]
    for source, doc, context in requests:
        out, found = _convert(doc, source, "openai-responses", context=context)
        assert out["store"] is False, source
        assert [f for f in found if f[0].endswith("store")] == []


def test_a_lux_request_without_store_leaves_responses_its_default() -> None:
    # a Lux document is the caller's own (not composed): it says nothing of storing, and a
    # Responses request read into Lux and written back keeps its store member as it was
    lux = lucent.convert(_responses(), "openai-responses", "lux").value
    out, _ = _convert(msgspec.to_builtins(lux), "lux", "openai-responses")
    assert "store" not in out
    out, _ = _convert(_responses(store=True), "openai-responses", "openai-responses")
    assert out["store"] is True


def test_chat_store_true_and_prompt_cache_key_carry_to_responses() -> None:
    out, found = _convert(_chat(store=True, prompt_cache_key="user-42"), "openai-chat", "openai-responses")
    assert (out["store"], out["prompt_cache_key"]) == (True, "user-42")
    assert not any(f[1] == "Unsupported" for f in found)


def test_chat_logprobs_become_the_responses_include_entry_and_top_logprobs() -> None:
    out, found = _convert(_chat(logprobs=True, top_logprobs=5), "openai-chat", "openai-responses")
    assert out["include"] == ["message.output_text.logprobs"]
    assert out["top_logprobs"] == 5
    assert not any(f[1] in ("Unsupported", "Invalid") for f in found)


def test_chat_logprobs_false_asks_responses_for_nothing() -> None:
    out, _ = _convert(_chat(logprobs=False), "openai-chat", "openai-responses")
    assert "include" not in out and "top_logprobs" not in out


def test_responses_store_prompt_cache_key_and_logprobs_carry_to_chat() -> None:
    doc = _responses(store=False, prompt_cache_key="k", top_logprobs=3, include=["message.output_text.logprobs"])
    out, found = _convert(doc, "openai-responses", "openai-chat")
    assert (out["store"], out["prompt_cache_key"], out["logprobs"], out["top_logprobs"]) == (False, "k", True, 3)
    assert not any(f[1] in ("Unsupported", "Invalid") for f in found)


def test_responses_include_entries_chat_has_no_place_for_are_reported_each() -> None:
    doc = _responses(include=["reasoning.encrypted_content", "message.output_text.logprobs"])
    out, found = _convert(doc, "openai-responses", "openai-chat")
    assert out["logprobs"] is True
    # one entry (reasoning.encrypted_content) is left out, named at the include list it was in
    assert [f for f in found if f[1] == "Unsupported"] == [
        ("$.include", "Unsupported", "Chat Completions has no include list; only message.output_text.logprobs is carried, as logprobs: true")
    ]


def test_responses_top_logprobs_without_the_include_entry_is_reported_for_chat() -> None:
    out, found = _convert(_responses(top_logprobs=2), "openai-responses", "openai-chat")
    assert "top_logprobs" not in out and "logprobs" not in out
    assert [(f[0], f[1]) for f in found if f[1] == "Unsupported"] == [("$.top_logprobs", "Unsupported")]


def test_responses_store_null_is_the_chat_default_null() -> None:
    out, found = _convert(_responses(store=None), "openai-responses", "openai-chat")
    assert out["store"] is None  # Chat's default: not stored (never more than the source asked)
    assert not any(f[1] == "Unsupported" for f in found)


def test_a_lux_request_with_both_side_cars_writes_the_targets_own_and_names_the_other() -> None:
    lux = msgspec.to_builtins(lucent.convert(_chat(store=True), "openai-chat", "lux").value)
    lux["extra"]["openai_responses"] = {"store": False}
    out, found = _convert(lux, "lux", "openai-responses")
    assert out["store"] is False
    assert ("$.extra.openai_chat.store", "Unsupported", "not written: extra.openai_responses.store is set and wins over it") in found


def test_own_side_car_round_trips_stay_equal() -> None:
    chat = _chat(store=False, prompt_cache_key="k", logprobs=True, top_logprobs=1)
    lux = msgspec.to_builtins(lucent.convert(chat, "openai-chat", "lux").value)
    back, _ = _convert(lux, "lux", "openai-chat")
    assert back == chat
    responses = _responses(store=True, prompt_cache_key="k", include=["reasoning.encrypted_content"], top_logprobs=4)
    lux = msgspec.to_builtins(lucent.convert(responses, "openai-responses", "lux").value)
    back, found = _convert(lux, "lux", "openai-responses")
    assert {k: back[k] for k in ("store", "prompt_cache_key", "include", "top_logprobs")} == {"store": True, "prompt_cache_key": "k", "include": ["reasoning.encrypted_content"], "top_logprobs": 4}


# -- a failed Responses response states its error


def _gemini_response(finish_reason: str) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "x"}]}, "finishReason": finish_reason, "index": 0}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1, "totalTokenCount": 4},
        "modelVersion": "gemini-2.5-flash-image",
        "responseId": "r1",
    }


def _gemini_failures() -> list[str]:
    import json

    from lucent.formats.gemini.tables import FINISH_REASON_TO_LUX
    from lucent.formats.openai_responses.tables import STATUS_FROM_LUX
    from tests.paths import REPO

    schema = json.loads((REPO / "schemas/vendor/gemini.json").read_text())
    defs = schema.get("$defs") or schema.get("definitions") or schema["components"]["schemas"]
    reasons = defs["Candidate"]["properties"]["finishReason"]["enum"]
    return [r for r in reasons if STATUS_FROM_LUX[FINISH_REASON_TO_LUX.get(r, "error")][0] == "failed"]


def test_every_gemini_failure_finish_gives_a_responses_error_with_code_and_message() -> None:
    from openai.types.responses import ResponseError

    failures = _gemini_failures()
    assert {"OTHER", "NO_IMAGE", "LANGUAGE", "MALFORMED_FUNCTION_CALL", "TOO_MANY_TOOL_CALLS"} <= set(failures)
    for reason in failures:
        out, _ = _convert(_gemini_response(reason), "gemini", "openai-responses", kind="response", context={"created_at": 1})
        assert out["status"] == "failed", reason
        assert out["incomplete_details"] is None
        assert out["error"]["code"] == "server_error"
        # what a client of the openai SDK reads
        assert ResponseError.model_validate(out["error"]).message == out["error"]["message"]
    other, _ = _convert(_gemini_response("OTHER"), "gemini", "openai-responses", kind="response", context={"created_at": 1})
    malformed, _ = _convert(_gemini_response("MALFORMED_FUNCTION_CALL"), "gemini", "openai-responses", kind="response", context={"created_at": 1})
    assert other["error"]["message"] == "The model stopped before completing the response: the provider reported a failure finish reason."
    assert malformed["error"]["message"] == "The model stopped on a malformed tool call."


def test_a_finished_or_incomplete_response_has_a_null_error() -> None:
    for reason, status in (("STOP", "completed"), ("MAX_TOKENS", "incomplete"), ("SAFETY", "incomplete")):
        out, _ = _convert(_gemini_response(reason), "gemini", "openai-responses", kind="response", context={"created_at": 1})
        assert (out["status"], out["error"]) == (status, None)


def test_a_responses_error_comes_back_as_it_was() -> None:
    doc = {
        "id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-4o", "status": "failed",
        "error": {"code": "rate_limit_exceeded", "message": "slow down"}, "incomplete_details": None,
        "output": [], "usage": None, "tools": [], "tool_choice": "auto", "parallel_tool_calls": True,
        "metadata": {}, "instructions": None, "temperature": None, "top_p": None,
    }
    lux = msgspec.to_builtins(lucent.convert(doc, "openai-responses", "lux", kind="response").value)
    out, _ = _convert(lux, "lux", "openai-responses", kind="response")
    assert out["error"] == {"code": "rate_limit_exceeded", "message": "slow down"}


def test_a_responses_stream_that_fails_ends_with_the_documents_error() -> None:
    from lucent import streams
    from lucent.formats.openai_responses.tables import FAILURE_ERROR

    for reason in ("error", "malformed_tool_call"):
        events = [
            {"event": "conversation_start", "meta": {"id": "resp_1", "model": "m"}},
            {"event": "item_start", "index": 0, "item": {"type": "message", "message": {"role": "assistant", "content": []}}},
            {"event": "block_start", "index": 0, "block_type": "text"},
            {"event": "block_delta", "index": 0, "delta": {"type": "text", "text": "Hi"}},
            {"event": "block_end", "index": 0},
            {"event": "item_end", "index": 0},
            {"event": "finish", "finish_reason": reason},
            {"event": "done"},
        ]
        written = [msgspec.to_builtins(e) for e in streams.convert_stream(events, "lux", "openai-responses")]
        last = written[-1]
        assert last["type"] == "response.failed"
        assert (last["response"]["status"], last["response"]["error"]) == ("failed", FAILURE_ERROR[reason])
        document, _ = _convert(msgspec.to_builtins(streams.assemble(events, "lux")), "lux", "openai-responses", kind="response", context={"created_at": 1})
        assert document["error"] == last["response"]["error"]


# -- Responses -> Gemini writes no empty thought part


def _responses_reply(reasoning: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5", "status": "completed",
        "error": None, "incomplete_details": None, "usage": None, "tools": [], "tool_choice": "auto",
        "parallel_tool_calls": True, "metadata": {}, "instructions": None, "temperature": None, "top_p": None,
        "output": [
            {"type": "reasoning", "id": "rs_1", **reasoning},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "42", "annotations": [], "logprobs": []}]},
        ],
    }


def test_a_responses_reasoning_summary_gives_no_empty_gemini_thought_part() -> None:
    doc = _responses_reply({"summary": [{"type": "summary_text", "text": "**Thinking**"}]})
    out, found = _convert(doc, "openai-responses", "gemini", kind="response")
    assert out["candidates"][0]["content"]["parts"] == [{"text": "42"}]
    assert ("$.output[0].summary[0]", "Unsupported", "Gemini thought parts have no separate summary") in found


def test_a_responses_reasoning_item_without_text_gives_no_gemini_part_in_a_request() -> None:
    doc = {"model": "gpt-5", "input": [
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "more"},
    ]}
    out, _ = _convert(doc, "openai-responses", "gemini", context={"model": "gemini-2.5-pro"})
    assert [c["parts"] for c in out["contents"]] == [[{"text": "hi"}], [{"text": "hello"}], [{"text": "more"}]]
    assert not any(p.get("thought") for c in out["contents"] for p in c["parts"])


def test_gemini_thought_parts_still_come_back_from_gemini() -> None:
    parts = [{"thought": True, "thoughtSignature": "c2ln"}, {"text": "", "thought": True, "thoughtSignature": "c2ln"}, {"text": "plan", "thought": True}, {"text": "42"}]
    doc = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}], "modelVersion": "gemini-2.5-pro", "responseId": "r1"}
    lux = msgspec.to_builtins(lucent.convert(doc, "gemini", "lux", kind="response").value)
    out, _ = _convert(lux, "lux", "gemini", kind="response")
    assert out["candidates"][0]["content"]["parts"] == parts


# -- Responses usage states cache_write_tokens


ANTHROPIC_REPLY = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "hi"}],
    "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 2, "cache_creation_input_tokens": 7, "cache_read_input_tokens": 5},
}


def test_a_known_cache_write_count_is_written_and_the_sdk_reads_the_response() -> None:
    from openai.types.responses import Response

    out, _ = _convert(ANTHROPIC_REPLY, "anthropic", "openai-responses", kind="response", context={"created_at": 1})
    details = out["usage"]["input_tokens_details"]
    assert (details["cached_tokens"], details["cache_write_tokens"]) == (5, 7)
    assert Response.model_validate(out).usage.input_tokens_details.cache_write_tokens == 7


def test_an_unknown_cache_write_count_is_zero_degraded_as_reasoning_tokens() -> None:
    from openai.types.responses import Response

    out, found = _convert(_gemini_response("STOP"), "gemini", "openai-responses", kind="response", context={"created_at": 1})
    assert out["usage"]["input_tokens_details"]["cache_write_tokens"] == 0
    # one diagnostic for the member (docs/semantics.md): its details joined, this one among them
    (usage,) = [f for f in found if f[0] == "$.usageMetadata"]
    assert usage[1] == "Degraded" and "Responses usage requires cache_write_tokens; Lux has none, written as 0" in usage[2]
    assert Response.model_validate(out).usage.output_tokens_details.reasoning_tokens == 0


def test_a_responses_usage_without_cache_write_tokens_comes_back_without() -> None:
    doc = _responses_reply({"summary": []})
    doc["usage"] = {"input_tokens": 9, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 1}, "total_tokens": 12}
    lux = msgspec.to_builtins(lucent.convert(doc, "openai-responses", "lux", kind="response").value)
    out, found = _convert(lux, "lux", "openai-responses", kind="response")
    assert out["usage"] == doc["usage"]
    assert not any("cache_write" in f[2] for f in found)


def test_a_responses_stream_writes_cache_write_tokens_as_the_document_does() -> None:
    from lucent import streams

    for usage, expected in (({"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}, 0), ({"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7, "cache_creation_tokens": 2}, 2)):
        events = [
            {"event": "conversation_start", "meta": {"id": "resp_1", "model": "m"}},
            {"event": "finish", "finish_reason": "stop"},
            {"event": "usage", "usage": usage},
            {"event": "done"},
        ]
        written = [msgspec.to_builtins(e) for e in streams.convert_stream(events, "lux", "openai-responses")]
        assert written[-1]["type"] == "response.completed"
        assert written[-1]["response"]["usage"]["input_tokens_details"]["cache_write_tokens"] == expected


# -- json_schema name, description and strict between Chat and Responses

SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": False}


def test_chat_json_schema_name_description_strict_reach_responses() -> None:
    doc = _chat(response_format={"type": "json_schema", "json_schema": {"name": "Answer", "description": "one answer", "strict": True, "schema": SCHEMA}}, verbosity="low")
    out, found = _convert(doc, "openai-chat", "openai-responses")
    assert out["text"] == {"format": {"type": "json_schema", "name": "Answer", "description": "one answer", "strict": True, "schema": SCHEMA}, "verbosity": "low"}
    assert not any("response" in f[2] and "name" in f[2] for f in found)
    assert not any(f[1] in ("Unsupported", "Invalid") for f in found)


def test_responses_json_schema_name_description_strict_reach_chat() -> None:
    doc = _responses(text={"format": {"type": "json_schema", "name": "Answer", "description": "one answer", "strict": False, "schema": SCHEMA}, "verbosity": "high"})
    out, found = _convert(doc, "openai-responses", "openai-chat")
    assert out["response_format"] == {"type": "json_schema", "json_schema": {"name": "Answer", "description": "one answer", "strict": False, "schema": SCHEMA}}
    assert out["verbosity"] == "high"
    assert not any(f[1] in ("Unsupported", "Invalid") for f in found)


def test_a_json_schema_from_a_format_without_a_name_is_named_response_degraded() -> None:
    doc = {"model": "claude", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}], "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}}}
    out, found = _convert(doc, "anthropic", "openai-responses")
    assert out["text"]["format"]["name"] == "response"
    assert [f[1] for f in found if "needs a name" in f[2]] == ["Degraded"]


# -- Chat -> Anthropic keeps a strict tool's additionalProperties: false


def test_a_strict_chat_tool_keeps_its_closed_schema_in_anthropic() -> None:
    parameters = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"$ref": "#/$defs/unit"}},
        "required": ["city", "unit"],
        "additionalProperties": False,
        "$defs": {"unit": {"type": "string", "enum": ["c", "f"]}},
    }
    doc = _chat(tools=[{"type": "function", "function": {"name": "weather", "description": "d", "strict": True, "parameters": parameters}}])
    out, found = _convert(doc, "openai-chat", "anthropic", context={"max_tokens": 100})
    assert out["tools"] == [{"name": "weather", "description": "d", "input_schema": parameters, "strict": True}]
    assert not any(f[0].startswith("$.tools") for f in found)


def test_a_tool_schema_without_type_still_gets_type_object() -> None:
    doc = _chat(tools=[{"type": "function", "function": {"name": "f", "parameters": {"properties": {}, "additionalProperties": False}}}])
    out, found = _convert(doc, "openai-chat", "anthropic", context={"max_tokens": 100})
    assert out["tools"][0]["input_schema"] == {"properties": {}, "additionalProperties": False, "type": "object"}
    assert ("$.tools[0].function.parameters", "Degraded", 'an Anthropic input_schema states its type; "type": "object" added') in found


# -- a Gemini fileData.fileUri that is a web URL goes to the target's URL field


def _gemini_with_files() -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [
        {"text": "what is this"},
        {"fileData": {"fileUri": "https://example.com/cat.png", "mimeType": "image/png"}},
        {"fileData": {"fileUri": "gs://bucket/dog.jpg", "mimeType": "image/jpeg"}},
        {"fileData": {"fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc123", "mimeType": "image/jpeg"}},
    ]}]}


def test_a_gemini_web_url_is_a_lux_url_image_with_its_mime_type() -> None:
    from lucent.formats.gemini.transforms import is_web_url

    lux = msgspec.to_builtins(lucent.convert(_gemini_with_files(), "gemini", "lux", context={"model": "m", "stream": False}).value)
    images = [b["image"] for b in lux["conversation"][0]["message"]["content"][1:]]
    assert images == [{"media_type": "image/png", "source": "url"}, {"media_type": "image/jpeg", "source": "file_uri"}, {"media_type": "image/jpeg", "source": "file_uri"}]
    assert lux["extra"]["media"]["$.conversation[0].message.content[1].image"] == {"url": "https://example.com/cat.png"}
    assert [is_web_url(u) for u in ("http://a.b/c", "HTTPS://x.org", "gs://b/o", "https://generativelanguage.googleapis.com/v1beta/files/x", "file:///tmp/x", "https://")] == [True, True, False, False, False, False]


def test_a_gemini_web_url_reaches_chat_anthropic_and_responses_as_a_url() -> None:
    context = {"model": "m", "max_tokens": 10, "stream": False}
    chat, found = _convert(_gemini_with_files(), "gemini", "openai-chat", context=read_by(context, "gemini", "openai-chat"))
    assert chat["messages"][0]["content"][1] == {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}
    assert not any(f[0].startswith("$.contents[0].parts[1]") for f in found)
    anthropic, found = _convert(_gemini_with_files(), "gemini", "anthropic", context=read_by(context, "gemini", "anthropic"))
    assert anthropic["messages"][0]["content"][1] == {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}}
    # the URL's file name gives image/png back (Anthropic -> Gemini writes it again): nothing lost
    assert [f for f in found if f[0].startswith("$.contents[0].parts[1]")] == []
    back, _ = _convert(anthropic, "anthropic", "gemini", context=read_by(context, "anthropic", "gemini"))
    assert back["contents"][0]["parts"][1] == {"fileData": {"fileUri": "https://example.com/cat.png", "mimeType": "image/png"}}
    responses, found = _convert(_gemini_with_files(), "gemini", "openai-responses", context=read_by(context, "gemini", "openai-responses"))
    assert responses["input"][0]["content"][1:] == [{"type": "input_image", "image_url": "https://example.com/cat.png", "detail": "auto"}]
    # gs:// and Files API URIs are no OpenAI file ids: named, never written as file_id
    assert [(f[0], f[1]) for f in found if f[0].startswith("$.contents[0].parts[")] == [
        ("$.contents[0].parts[2].fileData", "Unsupported"), ("$.contents[0].parts[3].fileData", "Unsupported")
    ]


def test_a_gemini_web_url_comes_back_as_file_data_with_nothing_reported() -> None:
    doc = _gemini_with_files()
    lux = msgspec.to_builtins(lucent.convert(doc, "gemini", "lux", context={"model": "m", "stream": False}).value)
    out, found = _convert(lux, "lux", "gemini")
    assert out["contents"] == doc["contents"]
    assert not any("fileUri" in f[2] or "URI" in f[2] for f in found)


def test_a_parameter_carried_across_is_not_reported_as_kept_in_a_side_car() -> None:
    # Chat -> Lux alone says Degraded (Lux keeps them in extra.openai_chat); Chat -> Responses
    # writes every one of them, so nothing is lost and nothing is reported
    doc = _chat(store=False, prompt_cache_key="k", logprobs=True, top_logprobs=2, verbosity="low")
    first = lucent.convert(doc, "openai-chat", "lux").diagnostics
    assert {d.field for d in first if d.status == "Degraded"} >= {"$.store", "$.prompt_cache_key", "$.logprobs", "$.top_logprobs", "$.verbosity"}
    out, found = _convert(doc, "openai-chat", "openai-responses")
    assert (out["store"], out["prompt_cache_key"], out["include"], out["top_logprobs"], out["text"]) == (False, "k", ["message.output_text.logprobs"], 2, {"verbosity": "low"})
    assert found == []
    back, found = _convert(_responses(store=True, text={"verbosity": "high"}, include=["message.output_text.logprobs"]), "openai-responses", "openai-chat")
    assert (back["store"], back["verbosity"], back["logprobs"]) == (True, "high", True)
    assert found == []


def test_the_carried_values_keep_the_target_bounds() -> None:
    lux = msgspec.to_builtins(lucent.convert(_responses(top_logprobs=3, include=["message.output_text.logprobs"], text={"verbosity": "low"}), "openai-responses", "lux").value)
    lux["extra"]["openai_responses"]["text"]["verbosity"] = "max"
    out, found = _convert(lux, "lux", "openai-chat")
    assert out["top_logprobs"] == 3 and "verbosity" not in out
    assert ("$.extra.openai_responses.text.verbosity", "Unsupported", 'Chat Completions verbosity is one of ["low", "medium", "high"]; the value (a string of 3 characters) is left out') in found
    lux = msgspec.to_builtins(lucent.convert(_chat(top_logprobs=3, logprobs=True), "openai-chat", "lux").value)
    lux["extra"]["openai_chat"]["top_logprobs"] = 25
    out, found = _convert(lux, "lux", "openai-chat")
    assert "top_logprobs" not in out
    assert ("$.extra.openai_chat.top_logprobs", "Unsupported", "Chat Completions top_logprobs is 0 to 20; the value (an integer) is left out") in found
    out, found = _convert(lux, "lux", "openai-responses")
    assert "top_logprobs" not in out
    assert ("$.extra.openai_chat.top_logprobs", "Unsupported", "Responses top_logprobs is 0 to 20; a value outside is left out") in found
