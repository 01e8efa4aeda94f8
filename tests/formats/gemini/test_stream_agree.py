"""Gemini streams and documents agree (issue 15, commutation): converting a recorded stream
chunk by chunk and assembling the result gives the value that converting the assembled document
gives. The streams are cut from the recordings of tests/data/lingua."""

from __future__ import annotations

import json
from typing import Any

import msgspec

import lucent
from lucent import streams
from tests.stream_conformance import both_paths
from tests.vendor_corpus import CORPUS


def cut(file: str, chunks: list[int]) -> list[dict[str, Any]]:
    """The chunks ``chunks`` of the recorded stream ``file``, in order."""
    events = json.loads((CORPUS / file).read_bytes())
    return [events[n] for n in chunks]


def both(events: list[dict[str, Any]], target: str) -> tuple[Any, Any]:
    """(assemble(convert_stream(s)), convert(assemble(s))) as JSON values without nulls."""
    return both_paths(events, "gemini", target)


def gemini_parts(value: Any, family: str) -> list[dict[str, Any]]:
    """A Lux response converted back to Gemini by ``family`` ("stream": its Lux events through
    the stream writer, assembled; "document": the document converter): the candidate's parts."""
    if family == "document":
        back = lucent.convert(value, "lux", "gemini", kind="response").value
    else:
        events = streams.convert_stream(value, "gemini", "lux")
        back = streams.assemble(list(streams.convert_stream(list(events), "lux", "gemini")), "gemini")
    return msgspec.to_builtins(back)["candidates"][0]["content"]["parts"]


def test_a_signature_on_a_function_call_is_a_signature_block_after_the_tool_block_on_both_paths() -> None:
    events = cut("toolCallRequest/google/response-streaming.json", [0, 1])
    part = events[0]["candidates"][0]["content"]["parts"][0]
    signature = part["thoughtSignature"]
    streamed, converted = both(events, "lux")
    expected = [
        {"type": "tool_use", "tool_use": {"id": "pt3pjoak", "name": "get_weather", "arguments": '{"location":"San Francisco, CA"}'}},
        {"type": "thinking", "thinking": {"text": "", "signature": signature, "redacted": False}},
        {"type": "text", "text": ""},
    ]
    assert streamed["choices"][0]["message"]["content"] == expected
    assert converted["choices"][0]["message"]["content"] == expected
    # gemini -> lux -> gemini: the signature is on its functionCall part again, in both families.
    assert gemini_parts(events, "stream")[0] == part
    document = lucent.convert(streams.assemble(events, "gemini"), "gemini", "lux", kind="response").value
    assert gemini_parts(document, "document")[0] == part


def test_a_signature_on_the_last_empty_chunk_signs_the_text_before_it_on_both_paths() -> None:
    """The signature comes alone, after the text went out (an empty text part on the last
    chunk): the assembled part holds it, and in Lux it is the block after the text block."""
    events = cut("thinkingLevelParam/google/response-streaming.json", [0, 1, 9, 10])
    signature = events[3]["candidates"][0]["content"]["parts"][0]["thoughtSignature"]
    text = events[1]["candidates"][0]["content"]["parts"][0]["text"] + "**"
    streamed, converted = both(events, "lux")
    for value in (streamed, converted):
        content = value["choices"][0]["message"]["content"]
        assert [block["type"] for block in content] == ["thinking", "text", "thinking"]
        assert content[1] == {"type": "text", "text": text}
        assert content[2] == {"type": "thinking", "thinking": {"text": "", "signature": signature, "redacted": False}}
    assert streamed == converted
    document = lucent.convert(streams.assemble(events, "gemini"), "gemini", "lux", kind="response").value
    for parts in (gemini_parts(events, "stream"), gemini_parts(document, "document")):
        assert parts[1] == {"text": text, "thoughtSignature": signature}


def test_a_signature_reaches_anthropic_and_responses_the_same_on_both_paths() -> None:
    events = cut("toolCallRequest/google/response-streaming.json", [0, 1])
    signature = events[0]["candidates"][0]["content"]["parts"][0]["thoughtSignature"]
    streamed, converted = both(events, "anthropic")
    assert streamed["content"] == converted["content"]
    assert [block["type"] for block in converted["content"]] == ["tool_use", "thinking", "text"]
    assert converted["content"][1]["signature"] == signature
    streamed, converted = both(events, "openai-responses")
    assert [item["type"] for item in streamed["output"]] == [item["type"] for item in converted["output"]] == ["function_call", "reasoning", "message"]


def test_an_empty_text_after_a_function_call_is_chat_content_empty_on_both_paths() -> None:
    """The recorded call ends with an empty text part: chat content "" (not null) on both paths,
    as the document converter writes the empty Lux text block."""
    events = cut("toolCallRequest/google/response-streaming.json", [0, 1])
    streamed, converted = both(events, "openai-chat")
    for value in (streamed, converted):
        message = value["choices"][0]["message"]
        assert message["content"] == ""
        assert [call["function"]["name"] for call in message["tool_calls"]] == ["get_weather"]
