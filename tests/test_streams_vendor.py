"""Vendor streams: the quirks of issue 5 on real recordings, and every typed error.

Real recordings come from tests/data/lingua/snapshots (a JSON array of each stream's events);
where the corpus has no instance of a rule, the test derives a stream from a real one and says
how.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from lucent import streams
from lucent._context import read_by
from lucent.errors import StreamError, UsageError

CORPUS = Path(__file__).resolve().parent / "data" / "lingua" / "snapshots"


def load(case: str, provider: str, name: str = "response-streaming.json") -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads((CORPUS / case / provider / name).read_bytes())
    return events


def sse(events: list[dict[str, Any]], *, done: bool = False) -> bytes:
    body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)
    return body + (b"data: [DONE]\n\n" if done else b"")


def fails(source: Any, fmt: str) -> StreamError:
    with pytest.raises(StreamError) as caught:
        streams.assemble(source, fmt)
    return caught.value


def builtins(value: Any) -> Any:
    return msgspec.to_builtins(value)


def lux(events: Any, fmt: str, **kw: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = builtins(list(streams.convert_stream(events, fmt, "lux", **kw)))
    return out


# ----------------------------------------------------------------------------- openai-chat

CHAT_TOOL = load("toolCallRequest", "chat-completions")


def chat_chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0, **top: Any) -> dict[str, Any]:
    """A chunk shaped as the recorded ones (toolCallRequest/chat-completions), with the given
    choice (and without the random `obfuscation` padding)."""
    chunk = {k: v for k, v in CHAT_TOOL[0].items() if k not in ("choices", "obfuscation")}
    chunk["choices"] = [{"index": index, "delta": delta, "finish_reason": finish}]
    chunk.update(top)
    return chunk


def test_chat_tool_call_stream_assembles_the_recorded_call() -> None:
    response = streams.assemble(CHAT_TOOL, "openai-chat")
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    call = choice.message.tool_calls[0]
    assert (call.id, call.function.name) == ("call_wywMUVJpgGtKT6efa98VLr1i", "get_weather")
    assert json.loads(call.function.arguments) == {"location": "San Francisco, CA"}


def test_chat_parallel_tool_calls_merge_by_index_not_id() -> None:
    # Derived from the recorded call: a second call at index 1 whose deltas interleave with the
    # first; id and name come only on the first delta of each index.
    first = {"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    second = {"index": 1, "id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": ""}}
    events = [
        chat_chunk({"role": "assistant", "content": None, "tool_calls": [first], "refusal": None}),
        chat_chunk({"tool_calls": [second]}),
        chat_chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"tz":'}}]}),
        chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"location":"Paris"}'}}]}),
        chat_chunk({"tool_calls": [{"index": 1, "function": {"arguments": '"UTC"}'}}]}),
        chat_chunk({}, "tool_calls"),
    ]
    calls = streams.assemble(events, "openai-chat").choices[0].message.tool_calls
    assert [(c.id, c.function.name, c.function.arguments) for c in calls] == [
        ("call_a", "get_weather", '{"location":"Paris"}'),
        ("call_b", "get_time", '{"tz":"UTC"}'),
    ]
    # Through Lux: two tool blocks, each with its own arguments, in start order.
    starts = [e for e in lux(events, "openai-chat") if e["event"] == "block_start"]
    assert [s["block_type"]["id"] for s in starts] == ["call_a", "call_b"]
    back = streams.assemble(list(streams.convert_stream(lux(events, "openai-chat"), "lux", "openai-chat", context={"created": 1})), "openai-chat")
    assert [(c.id, c.function.arguments) for c in back.choices[0].message.tool_calls] == [("call_a", '{"location":"Paris"}'), ("call_b", '{"tz":"UTC"}')]


def test_chat_tool_call_without_arguments_is_an_empty_string() -> None:
    events = [chat_chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "now"}}]}), chat_chunk({}, "tool_calls")]
    call = streams.assemble(events, "openai-chat").choices[0].message.tool_calls[0]
    assert call.function.arguments == ""


def test_chat_usage_chunk_and_cached_tokens() -> None:
    # stream_options.include_usage: a last chunk with no choices; cached tokens are inside prompt_tokens.
    usage = {"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129, "prompt_tokens_details": {"cached_tokens": 100}, "completion_tokens_details": {"reasoning_tokens": 4}}
    events = [chat_chunk({"role": "assistant", "content": "hi"}), chat_chunk({}, "stop"), {**chat_chunk({}), "choices": [], "usage": usage}]
    response = streams.assemble(events, "openai-chat")
    assert builtins(response.usage) == usage
    got = lux(events, "openai-chat")
    assert got[-2] == {"event": "usage", "usage": {"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129, "reasoning_tokens": 4, "cached_tokens": 100}}


def test_chat_length_finish_on_a_real_truncated_stream() -> None:
    events = load("reasoningRequestTruncated", "chat-completions")
    assert streams.assemble(events, "openai-chat").choices[0].finish_reason == "length"
    assert [e for e in lux(events, "openai-chat") if e["event"] == "finish"] == [{"event": "finish", "finish_reason": "length"}]


def test_chat_done_is_the_terminator_on_the_wire() -> None:
    events = [chat_chunk({"role": "assistant", "content": "ok"}), chat_chunk({}, "stop")]
    assert streams.assemble(sse(events, done=True), "openai-chat").choices[0].message.content == "ok"
    assert fails(sse(events), "openai-chat").code == "missing_terminal"
    after = fails(sse(events, done=True) + sse(events[:1]), "openai-chat")
    assert (after.code, after.path) == ("data_after_terminal", "$[3]")
    assert fails(sse(events, done=True) + b"data: [DONE]\n\n", "openai-chat").code == "duplicate_terminal"
    # A [DONE] in another format is still the error the seed formats raise.
    assert fails(sse(load("toolCallRequest", "google"), done=True), "gemini").code == "done_sentinel"
    # encode_sse writes it back for openai-chat only.
    written = b"".join(streams.encode_sse(streams.iter_events(events, "openai-chat"), "openai-chat"))
    assert written.endswith(b"data: [DONE]\n\n") and written.count(b"[DONE]") == 1
    assert streams.assemble(written, "openai-chat").choices[0].message.content == "ok"


@pytest.mark.parametrize(
    "events,code,path",
    [
        ([chat_chunk({"content": "a"}), chat_chunk({"content": "b"}, id="other")], "response_identity_changed", "$[1].id"),
        ([chat_chunk({"content": "a"}, "stop"), chat_chunk({"content": "b"})], "data_after_finish", "$[1].choices[0]"),
        ([chat_chunk({}, "stop"), chat_chunk({}, "stop")], "duplicate_finish", "$[1].choices[0]"),
        ([chat_chunk({"content": "a"})], "missing_finish", "$[0]"),
        ([chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}), chat_chunk({}, "tool_calls")], "incomplete_tool_call", "$[0]"),
        (
            [chat_chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f"}}]}), chat_chunk({"tool_calls": [{"index": 0, "id": "b"}]})],
            "tool_identity_changed", "$[1].choices[0].delta.tool_calls[0].id",
        ),
        (
            [chat_chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f"}}, {"index": 1, "id": "a", "function": {"name": "g"}}]})],
            "duplicate_call_id", "$[0].choices[0].delta.tool_calls[1].id",
        ),
    ],
)
def test_chat_errors(events: list[dict[str, Any]], code: str, path: str) -> None:
    error = fails(events, "openai-chat")
    assert (error.code, error.path) == (code, path)
    # The stream converter enforces the same rule at the same place.
    with pytest.raises(StreamError) as caught:
        list(streams.convert_stream(events, "openai-chat", "lux"))
    assert (caught.value.code, caught.value.path) == (code, path)


def test_chat_undeclared_tool() -> None:
    with pytest.raises(StreamError) as caught:
        streams.assemble(CHAT_TOOL, "openai-chat", tools=["lookup"])
    assert (caught.value.code, caught.value.path) == ("tool_name_not_declared", "$[0].choices[0].delta.tool_calls[0].function.name")


# ----------------------------------------------------------------------------- gemini


def test_gemini_thought_signature_stays_on_its_function_call_part() -> None:
    events = load("toolCallRequest", "google")
    response = streams.assemble(events, "gemini")
    parts = builtins(response.candidates[0].content.parts)
    assert parts[0]["functionCall"] == {"name": "get_weather", "args": {"location": "San Francisco, CA"}, "id": "pt3pjoak"}
    assert parts[0]["thoughtSignature"] == events[0]["candidates"][0]["content"]["parts"][0]["thoughtSignature"]
    assert response.candidates[0].finishReason == "STOP"
    # In Lux: a thinking block that holds only the signature, right after the tool block (as the
    # document converter reads the response); the finish is tool_calls (Gemini says STOP next to
    # a function call).
    got = lux(events, "gemini")
    kinds = [e.get("block_type") for e in got if e["event"] == "block_start"]
    assert kinds[0]["type"] == "tool_call" and kinds[1] == "thinking"
    assert {"event": "finish", "finish_reason": "tool_calls"} in got
    back = builtins(list(streams.convert_stream(got, "lux", "gemini")))
    assert back[0]["candidates"][0]["content"]["parts"][0] == events[0]["candidates"][0]["content"]["parts"][0]


def test_gemini_thought_parts_merge_and_text_signature_on_the_last_empty_part() -> None:
    events = load("thinkingLevelParam", "google")
    parts = builtins(streams.assemble(events, "gemini").candidates[0].content.parts)
    assert [p.get("thought", False) for p in parts] == [True, False]
    assert parts[1]["text"] == "".join(e["candidates"][0]["content"]["parts"][0]["text"] for e in events[1:])
    # The signature came on the last chunk (an empty text part): the merged part keeps it.
    assert parts[1]["thoughtSignature"] == events[-1]["candidates"][0]["content"]["parts"][0]["thoughtSignature"]


def test_gemini_usage_is_the_last_chunks_and_thoughts_count_as_reasoning() -> None:
    events = load("thinkingLevelParam", "google")
    response = streams.assemble(events, "gemini")
    assert builtins(response.usageMetadata) == events[-1]["usageMetadata"]
    meta = events[-1]["usageMetadata"]
    usage = [e for e in lux(events, "gemini") if e["event"] == "usage"][0]["usage"]
    assert usage["reasoning_tokens"] == meta["thoughtsTokenCount"]
    assert usage["completion_tokens"] == meta["candidatesTokenCount"] + meta["thoughtsTokenCount"]
    assert usage["total_tokens"] == meta["totalTokenCount"]


def test_gemini_max_tokens_is_length() -> None:
    events = load("simpleRequestTruncated", "google")
    assert streams.assemble(events, "gemini").candidates[0].finishReason == "MAX_TOKENS"
    assert {"event": "finish", "finish_reason": "length"} in lux(events, "gemini")


def test_gemini_function_call_without_id_gets_a_degraded_one() -> None:
    events = load("toolChoiceRequiredParam", "google")
    conversion = streams.convert_stream(events, "gemini", "lux")
    starts = [builtins(e) for e in conversion if getattr(e, "block_type", None) is not None]
    # The id the gemini document converter derives: gemini-<name>-<SHA-256 of the args text, 8 hex>.
    tool = [s for s in starts if isinstance(s["block_type"], dict)]
    assert tool[-1]["block_type"] == {"type": "tool_call", "id": "gemini-get_weather-" + hashlib.sha256(b'{"location":"Tokyo"}').hexdigest()[:8], "name": "get_weather"}
    # named at the call, as the document names it: the source has no id member to name
    assert any(d.field == "$[0].candidates[0].content.parts[0].functionCall" and d.status == "Degraded" for d in conversion.diagnostics)
    assert not any(d.field.endswith(".functionCall.id") for d in conversion.diagnostics)
    # Written back, the derived id is left out again: the part comes back as it was.
    back = builtins(list(streams.convert_stream(list(streams.convert_stream(events, "gemini", "lux")), "lux", "gemini")))
    assert back[0]["candidates"][0]["content"]["parts"][0]["functionCall"] == events[0]["candidates"][0]["content"]["parts"][0]["functionCall"]


@pytest.mark.parametrize(
    ("error", "code", "named"),
    [
        ({"type": "overloaded_error", "message": "Overloaded"}, "server_error", [("$[3].error", "Degraded")]),
        ({"type": "rate_limit_error", "message": "Slow down"}, "rate_limit_exceeded", [("$[3].error", "Degraded")]),
    ],
    ids=["overloaded", "rate-limited"],
)
def test_an_anthropic_error_event_becomes_a_responses_failure_with_a_responses_code(error: Any, code: str, named: Any) -> None:
    # found by the hostile-input pass: the Anthropic error type was written as the Responses
    # error code, which the schema refuses (an EncodeError that quoted the type)
    broken = anthropic(ANTHROPIC_TOOL)[:3] + [{"type": "error", "error": error}]
    conversion = streams.convert_stream(broken, "anthropic", "openai-responses")
    last = builtins(list(conversion))[-1]
    assert last["type"] == "response.failed"
    assert last["response"]["error"] == {"code": code, "message": error["message"]}
    assert [(d.field, d.status) for d in conversion.diagnostics if "error" in d.field] == named


@pytest.mark.parametrize(
    ("error", "written", "named"),
    [
        ({"kind": "rate_limit", "message": "m", "provider_code": "rate_limit_error"}, "rate_limit_error", []),
        ({"kind": "server_error", "message": "m", "provider_code": "overloaded_error"}, "overloaded_error", []),
        ({"kind": "rate_limit", "message": "m", "provider_code": "MODEL_TIMED_OUT"}, "rate_limit_error", ["provider_code"]),
        ({"kind": "content_filter", "message": "m"}, "invalid_request_error", ["kind"]),
        ({"kind": "rate_limit", "message": "m", "provider_code": "api_error"}, "api_error", ["kind"]),
    ],
    ids=["anthropic-type", "anthropic-type-of-its-kind", "another-vendors-code", "no-type-for-the-kind", "type-of-another-kind"],
)
def test_a_lux_error_goes_to_anthropic_as_an_anthropic_error_type(error: Any, written: str, named: list[str]) -> None:
    # found by the hostile-input pass: the provider code was written as the type verbatim
    # (MODEL_TIMED_OUT, ""), and the kind dropped, without a word
    events = [{"event": "conversation_start", "meta": {"id": "r", "model": "m"}}, {"event": "finish", "finish_reason": "error"}, {"event": "error", "error": error}, {"event": "done"}]
    conversion = streams.convert_stream(events, "lux", "anthropic")
    last = builtins(list(conversion))[-1]
    assert last == {"type": "error", "error": {"type": written, "message": "m"}}
    assert [d.field for d in conversion.diagnostics] == [f"$[2].error.{name}" for name in named]


def test_a_responses_error_event_names_the_parameter_lux_cannot_keep() -> None:
    responses = builtins(list(streams.convert_stream(anthropic(ANTHROPIC_TOOL), "anthropic", "openai-responses")))[:1]
    failed = responses + [{"type": "error", "code": "invalid_prompt", "message": "bad", "param": "input", "sequence_number": 1}]
    conversion = streams.convert_stream(failed, "openai-responses", "lux")
    assert builtins(list(conversion))[-2]["error"] == {"kind": "invalid_request", "message": "bad", "provider_code": "invalid_prompt"}
    assert [(d.field, d.status) for d in conversion.diagnostics if d.field.startswith("$[1]")] == [("$[1].param", "Unsupported")]


@pytest.mark.parametrize(
    "mutate,code,path",
    [
        (lambda ev: ev[:1], "missing_finish", "$[0].candidates"),
        (lambda ev: [ev[0], {**ev[1], "responseId": "other"}], "response_identity_changed", "$[1].responseId"),
        (lambda ev: [], "missing_terminal", "$[0]"),
    ],
)
def test_gemini_errors(mutate: Any, code: str, path: str) -> None:
    events = mutate(load("toolCallRequest", "google"))
    error = fails(events, "gemini")
    assert (error.code, error.path) == (code, path)


# ----------------------------------------------------------------------------- anthropic

ANTHROPIC_TOOL = "toolCallRequest"


def anthropic(case: str, name: str = "response-streaming.json") -> list[dict[str, Any]]:
    return load(case, "anthropic", name)


def test_anthropic_tool_use_with_an_empty_first_json_piece() -> None:
    events = anthropic(ANTHROPIC_TOOL)
    assert events[2]["delta"] == {"type": "input_json_delta", "partial_json": ""}
    message = streams.assemble(events, "anthropic")
    block = builtins(message.content[0])
    assert (block["type"], block["name"], block["input"]) == ("tool_use", "get_weather", {"location": "San Francisco, CA"})
    assert message.stop_reason == "tool_use"
    # Usage: input and cache counts from message_start, output_tokens from the last message_delta.
    assert (message.usage.input_tokens, message.usage.output_tokens) == (677, events[-2]["usage"]["output_tokens"])
    assert {"event": "finish", "finish_reason": "tool_calls"} in lux(events, "anthropic")


def test_anthropic_thinking_and_signature_deltas() -> None:
    events = anthropic("fableTemperatureParam", "followup-response-streaming.json")
    message = streams.assemble(events, "anthropic")
    thinking = [builtins(b) for b in message.content if builtins(b)["type"] == "thinking"][0]
    signature = [e["delta"]["signature"] for e in events if e["type"] == "content_block_delta" and e["delta"]["type"] == "signature_delta"][0]
    assert thinking["signature"] == signature
    got = lux(events, "anthropic")
    assert {"event": "block_delta", "index": 0, "delta": {"type": "signature", "signature": signature}} in got
    assembled = streams.assemble(got, "lux")
    assert builtins(assembled.choices[0].message.content[0])["thinking"]["signature"] == signature


def test_anthropic_usage_counts_cache_apart_and_lux_counts_it_inside() -> None:
    # Derived from a real stream: message_start reports cache reads and writes apart from input_tokens.
    events = anthropic(ANTHROPIC_TOOL)
    events[0]["message"]["usage"].update(input_tokens=10, cache_read_input_tokens=600, cache_creation_input_tokens=67)
    events[-2]["usage"].update(input_tokens=10, cache_read_input_tokens=600, cache_creation_input_tokens=67)
    got = lux(events, "anthropic")
    assert got[0]["meta"]["usage_input"] == 677
    usage = [e for e in got if e["event"] == "usage"][0]["usage"]
    assert usage == {"prompt_tokens": 677, "completion_tokens": events[-2]["usage"]["output_tokens"], "total_tokens": 677 + events[-2]["usage"]["output_tokens"], "cached_tokens": 600, "cache_creation_tokens": 67}
    back = builtins(list(streams.convert_stream(got, "lux", "anthropic")))
    assert {k: back[-2]["usage"][k] for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")} == {"input_tokens": 10, "cache_read_input_tokens": 600, "cache_creation_input_tokens": 67}
    # OpenAI semantics on the way out: cached tokens are inside prompt_tokens.
    chat = builtins(list(streams.convert_stream(got, "lux", "openai-chat", context={"created": 1})))
    assert chat[-1]["usage"]["prompt_tokens"] == 677 and chat[-1]["usage"]["prompt_tokens_details"]["cached_tokens"] == 600


def test_anthropic_max_tokens_is_length_and_back() -> None:
    events = anthropic("simpleRequestTruncated")
    assert streams.assemble(events, "anthropic").stop_reason == "max_tokens"
    got = lux(events, "anthropic")
    assert {"event": "finish", "finish_reason": "length"} in got
    back = builtins(list(streams.convert_stream(got, "lux", "anthropic")))
    assert back[-2]["delta"]["stop_reason"] == "max_tokens"
    chat = builtins(list(streams.convert_stream(got, "lux", "openai-chat", context={"created": 1})))
    assert [c["choices"][0]["finish_reason"] for c in chat if c["choices"] and c["choices"][0]["finish_reason"]] == ["length"]


def test_anthropic_ping_is_nothing_and_an_error_event_is_model_error() -> None:
    events = anthropic(ANTHROPIC_TOOL)
    with_ping = events[:1] + [{"type": "ping"}] + events[1:]
    assert builtins(streams.assemble(with_ping, "anthropic")) == builtins(streams.assemble(events, "anthropic"))
    broken = events[:3] + [{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}]
    error = fails(broken, "anthropic")
    assert (error.code, error.path, error.error.error.type) == ("model_error", "$[3]", "overloaded_error")
    # the upstream's words stay in .error: a vendor error message can quote the request
    assert "Overloaded" not in error.message and "overloaded_error" not in error.message
    got = lux(broken, "anthropic")
    assert got[-2] == {"event": "error", "error": {"kind": "server_error", "message": "Overloaded", "provider_code": "overloaded_error"}}
    back = builtins(list(streams.convert_stream(got, "lux", "anthropic")))
    assert back[-1] == broken[-1]
    wire = b"".join(streams.encode_sse(streams.iter_events(with_ping, "anthropic"), "anthropic"))
    assert wire.startswith(b"event: message_start\ndata: ") and b"event: ping\ndata: {\"type\":\"ping\"}\n\n" in wire


@pytest.mark.parametrize(
    "mutate,code,path",
    [
        (lambda ev: ev + ev[-1:], "duplicate_terminal", "$[9]"),
        (lambda ev: ev + ev[1:2], "data_after_terminal", "$[9]"),
        (lambda ev: ev[:-1], "missing_terminal", "$[8]"),
        (lambda ev: ev[1:], "missing_message_start", "$[0]"),
        (lambda ev: ev[:1] + ev, "duplicate_message_start", "$[1]"),
        (lambda ev: ev[:2] + ev[1:], "duplicate_block_index", "$[2].index"),
        (lambda ev: ev[:1] + ev[2:], "block_not_open", "$[1].index"),
        (lambda ev: ev[:2] + [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}] + ev[2:], "delta_type_mismatch", "$[2].delta.type"),
        (lambda ev: ev[:2] + [{"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "[1]"}}] + ev[-3:], "malformed_arguments", "$[2].delta.partial_json"),
        (lambda ev: ev[:-3] + ev[-2:], "block_not_closed", "$[6]"),
    ],
)
def test_anthropic_errors(mutate: Any, code: str, path: str) -> None:
    events = mutate(anthropic(ANTHROPIC_TOOL))
    assert [e["type"] for e in anthropic(ANTHROPIC_TOOL)][-3:] == ["content_block_stop", "message_delta", "message_stop"]
    error = fails(events, "anthropic")
    assert (error.code, error.path) == (code, path)
    with pytest.raises(StreamError) as caught:
        list(streams.convert_stream(events, "anthropic", "lux"))
    assert (caught.value.code, caught.value.path) == (code, path)


# ----------------------------------------------------------------------------- openai-responses


def responses(case: str, name: str = "response-streaming.json") -> list[dict[str, Any]]:
    return load(case, "responses", name)


def test_responses_parallel_function_calls() -> None:
    events = responses("parallelToolCallsRequest")
    response = streams.assemble(events, "openai-responses")
    calls = [builtins(o) for o in response.output if builtins(o)["type"] == "function_call"]
    assert len(calls) >= 2 and len({c["call_id"] for c in calls}) == len(calls)
    got = lux(events, "openai-responses")
    starts = [e["block_type"] for e in got if e["event"] == "block_start" and isinstance(e["block_type"], dict)]
    assert [s["id"] for s in starts] == [c["call_id"] for c in calls]
    assert {"event": "finish", "finish_reason": "tool_calls"} in got
    arguments = {}
    for e in got:
        if e["event"] == "block_delta" and e["delta"]["type"] == "tool_arguments":
            arguments[e["index"]] = arguments.get(e["index"], "") + e["delta"]["arguments"]
    assert sorted(arguments.values()) == sorted(c["arguments"] for c in calls)


def test_responses_incomplete_is_length() -> None:
    events = responses("reasoningRequestTruncated")
    response = streams.assemble(events, "openai-responses")
    assert (response.status, builtins(response.incomplete_details)) == ("incomplete", {"reason": "max_output_tokens"})
    got = lux(events, "openai-responses")
    assert {"event": "finish", "finish_reason": "length"} in got
    back = builtins(list(streams.convert_stream(got, "lux", "openai-responses", context={"response": events[0]["response"]})))
    assert back[-1]["type"] == "response.incomplete" and back[-1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}


def test_responses_cached_tokens_are_inside_input_tokens() -> None:
    events = responses("responsesInputFileUrlParam")
    usage = streams.assemble(events, "openai-responses").usage
    got = [e for e in lux(events, "openai-responses") if e["event"] == "usage"][0]["usage"]
    assert (got["prompt_tokens"], got["cached_tokens"]) == (usage.input_tokens, usage.input_tokens_details.cached_tokens)
    assert got["cached_tokens"] > 0


def test_responses_deltas_that_disagree_with_the_final_response_are_a_typed_error() -> None:
    events = responses("toolCallRequest")
    done = next(i for i, e in enumerate(events) if e["type"] == "response.function_call_arguments.done")
    wrong = copy.deepcopy(events)
    wrong[done]["arguments"] = '{"location":"Paris"}'
    error = fails(wrong, "openai-responses")
    assert (error.code, error.path) == ("delta_mismatch", f"$[{done}].arguments")
    final = copy.deepcopy(events)
    output = final[-1]["response"]["output"]
    call = next(i for i, o in enumerate(output) if o["type"] == "function_call")
    output[call]["arguments"] = "{}"
    error = fails(final, "openai-responses")
    assert (error.code, error.path) == ("delta_mismatch", f"$[{len(events) - 1}].response.output[{call}].arguments")
    with pytest.raises(StreamError) as caught:
        list(streams.convert_stream(final, "openai-responses", "lux"))
    assert caught.value.code == "delta_mismatch"


@pytest.mark.parametrize(
    "mutate,code",
    [
        (lambda ev: ev[:-1], "missing_terminal"),
        (lambda ev: ev + ev[-1:], "duplicate_terminal"),
        (lambda ev: ev[1:], "sequence_out_of_order"),
        (lambda ev: [ev[0]] + [dict(e, sequence_number=e["sequence_number"] + 1) for e in ev[2:]], "sequence_out_of_order"),
    ],
)
def test_responses_errors(mutate: Any, code: str) -> None:
    events = mutate(responses("toolCallRequest"))
    assert fails(events, "openai-responses").code == code


def test_responses_error_event_is_model_error() -> None:
    events = responses("toolCallRequest")[:3] + [{"type": "error", "code": "server_error", "message": "boom", "param": None, "sequence_number": 3}]
    error = fails(events, "openai-responses")
    assert (error.code, error.path) == ("model_error", "$[3]")
    got = lux(events, "openai-responses")
    assert got[-2] == {"event": "error", "error": {"kind": "server_error", "message": "boom", "provider_code": "server_error"}}


# ----------------------------------------------------------------------------- across formats


def test_any_pair_composes_through_lux() -> None:
    """Gemini's recorded tool call to each other vendor format: every target stream assembles
    and holds the call (its id, and its arguments as JSON)."""
    events = load("toolCallRequest", "google")
    for target in ("openai-chat", "openai-responses", "anthropic"):
        conversion = streams.convert_stream(events, "gemini", target, context={"created": 1} if target == "openai-chat" else {})
        assembled = streams.assemble(list(conversion), target)
        assert _tool_ids(target, assembled) == ["pt3pjoak"], target
        assert "San Francisco, CA" in json.dumps(builtins(assembled)), target
        # What Lux has no place for (the per-modality usage details) is reported, never dropped silently.
        assert any(d.status == "Unsupported" for d in conversion.diagnostics), target


def test_vendor_formats_are_stream_formats() -> None:
    assert {"openai-chat", "openai-responses", "anthropic", "gemini"} <= set(streams.FORMATS)
    with pytest.raises(UsageError):
        list(streams.encode_sse([], "no-such-format"))


def test_a_context_the_target_cannot_hold_is_refused_at_once() -> None:
    events = load("toolCallRequest", "google")
    with pytest.raises(UsageError) as caught:
        streams.convert_stream(events, "gemini", "openai-chat", context={"created": "yesterday"})
    assert caught.value.code == "invalid_context"
    with pytest.raises(UsageError) as caught:
        streams.convert_stream(events, "gemini", "openai-responses", context={"response": {"tools": "all"}})
    assert caught.value.code == "invalid_context"


def test_without_created_the_chat_target_is_invalid_not_silent() -> None:
    conversion = streams.convert_stream(load("toolCallRequest", "google"), "gemini", "openai-chat")
    chunks = builtins(list(conversion))
    assert {c["created"] for c in chunks} == {0}
    assert [(d.field, d.status) for d in conversion.diagnostics if d.field == "target:$.created"] == [("target:$.created", "Invalid")]


def test_async_vendor_streams() -> None:
    import asyncio

    events = load("thinkingLevelParam", "google")

    async def chunks() -> Any:
        body = sse(events)
        for i in range(0, len(body), 7):  # split anywhere
            yield body[i : i + 7]

    async def run() -> tuple[Any, list[Any]]:
        response = await streams.assemble_async(chunks(), "gemini")
        converted = [e async for e in streams.aconvert_stream(chunks(), "gemini", "anthropic")]
        return response, converted

    response, converted = asyncio.run(run())
    assert builtins(response) == builtins(streams.assemble(events, "gemini"))
    assert builtins(converted[0])["type"] == "message_start" and builtins(converted[-1]) == {"type": "message_stop"}


def _tool_ids(fmt: str, response: Any) -> list[str]:
    tree = builtins(response)
    if fmt == "lux":
        return [c["tool_use"]["id"] for c in (tree["choices"][0]["message"]["content"] if tree["choices"] else []) if c["type"] == "tool_use"]
    if fmt == "openai-chat":
        return [c["id"] for c in (tree["choices"][0]["message"].get("tool_calls") or [])] if tree["choices"] else []
    if fmt == "openai-responses":
        return [o["call_id"] for o in tree["output"] if o["type"] == "function_call"]
    if fmt == "anthropic":
        return [b["id"] for b in tree["content"] if b["type"] == "tool_use"]
    parts = tree["candidates"][0].get("content", {}).get("parts", []) if tree.get("candidates") else []
    return [p["functionCall"]["id"] for p in parts if "functionCall" in p]


@pytest.mark.parametrize("target", ["openai-chat", "openai-responses", "anthropic", "gemini"])
def test_generated_lux_streams_become_vendor_streams_that_assemble(target: str) -> None:
    from hypothesis import HealthCheck, given, settings

    from tests.stream_conformance import GENERATORS

    @settings(max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(GENERATORS["lux"]())
    def one(stream: list[dict[str, Any]]) -> None:
        try:
            expected = streams.assemble(stream, "lux")
        except StreamError as exc:  # a Lux stream that ends with its error event
            assert exc.code == "model_error"
            return
        out = list(streams.convert_stream(stream, "lux", target, context=read_by({"created": 1}, "lux", target, "stream")))
        response = streams.assemble(out, target)
        # The first choice's tool calls keep their ids and order.
        assert _tool_ids(target, response) == _tool_ids("lux", expected)

    one()


def test_chat_choices_that_interleave_become_lux_items_one_after_the_other() -> None:
    events = [
        chat_chunk({"role": "assistant", "content": ""}, index=0), chat_chunk({"role": "assistant", "content": ""}, index=1),
        chat_chunk({"content": "A0"}, index=0), chat_chunk({"content": "B0"}, index=1), chat_chunk({"content": "B1"}, index=1),
        chat_chunk({}, "stop", index=1), chat_chunk({"content": "A1"}, index=0), chat_chunk({}, "length", index=0),
    ]
    response = streams.assemble(events, "openai-chat")
    assert [(c.index, c.message.content, c.finish_reason) for c in response.choices] == [(0, "A0A1", "length"), (1, "B0B1", "stop")]
    conversion = streams.convert_stream(events, "openai-chat", "lux")
    got = builtins(list(conversion))
    assert [(e["event"], e.get("index")) for e in got if e["event"] in ("item_start", "item_end")] == [("item_start", 0), ("item_end", 0), ("item_start", 1), ("item_end", 1)]
    assembled = streams.assemble(got, "lux")
    assert [builtins(c.message.content) for c in assembled.choices] == [[{"type": "text", "text": "A0A1"}], [{"type": "text", "text": "B0B1"}]]
    # One Lux finish for both: the first choice's, and the other's is reported.
    assert {"event": "finish", "finish_reason": "length"} in got
    assert any(d.status == "Degraded" and "finish reason" in str(d.detail) for d in conversion.diagnostics)


def test_gemini_parts_after_the_finish_reason_are_refused() -> None:
    events = load("toolCallRequest", "google")
    late = copy.deepcopy(events[-1])
    late["candidates"][0].pop("finishReason")
    error = fails(events + [late], "gemini")
    assert (error.code, error.path) == ("data_after_finish", "$[2].candidates[0]")
    with pytest.raises(StreamError) as caught:
        list(streams.convert_stream(events + [late], "gemini", "lux"))
    assert (caught.value.code, caught.value.path) == ("data_after_finish", "$[2].candidates[0]")


def test_damaged_recordings_raise_only_lucent_errors() -> None:
    """Real streams with one event dropped, repeated or one value replaced (seeded): assembling
    and converting them (to Lux and on to every vendor format) raises lucent errors only."""
    import random

    from lucent.errors import LucentError

    rnd = random.Random(5)
    values: list[Any] = [None, 0, -1, 1.5, "", "x", [], {}, True, "[DONE]", {"type": "ping"}, 10**30, "{"]
    recordings = [("toolCallRequest", "chat-completions", "openai-chat"), ("toolCallRequest", "responses", "openai-responses"), ("toolCallRequest", "anthropic", "anthropic"), ("thinkingLevelParam", "google", "gemini")]
    checked = 0
    for case, provider, fmt in recordings:
        original = load(case, provider)
        for _ in range(40):
            events = copy.deepcopy(original)
            if rnd.random() < 0.3:
                i = rnd.randrange(len(events))
                events.insert(i, copy.deepcopy(events[rnd.randrange(len(events))])) if rnd.random() < 0.5 else events.pop(i)
            else:
                node: Any = events[rnd.randrange(len(events))]
                while isinstance(node, (dict, list)) and node:
                    key = rnd.choice(list(node)) if isinstance(node, dict) else rnd.randrange(len(node))
                    if rnd.random() < 0.4 or not isinstance(node[key], (dict, list)):
                        node[key] = rnd.choice(values)
                        break
                    node = node[key]
            for target in ("lux", "openai-chat", "openai-responses", "anthropic", "gemini"):
                try:
                    if target == "lux":
                        streams.assemble(events, fmt)
                    list(streams.convert_stream(events, fmt, target, context=read_by({"created": 1}, fmt, target, "stream")))
                except LucentError:
                    pass
                checked += 1
    assert checked == 4 * 40 * 5
