"""Anthropic streams and documents agree (issue 15, commutation): converting a recorded stream
event by event and assembling the result gives the value that converting the assembled document
gives. The streams are cut from the recordings of tests/data/lingua."""

from __future__ import annotations

import json
from typing import Any


from tests.stream_conformance import both_paths
from tests.vendor_corpus import CORPUS

TOOL_SEARCH = "responsesToolSearchInputParam/anthropic/response-streaming.json"
"""Text, a server tool call and its result (which Lux has no block for), then text again."""


def cut(file: str, events: list[int]) -> list[dict[str, Any]]:
    """The events ``events`` of the recorded stream ``file``, in order."""
    recorded = json.loads((CORPUS / file).read_bytes())
    return [recorded[n] for n in events]


def both(events: list[dict[str, Any]], target: str) -> tuple[Any, Any]:
    """(assemble(convert_stream(s)), convert(assemble(s))) as JSON values without nulls."""
    return both_paths(events, "anthropic", target)


def test_consecutive_text_blocks_are_one_responses_message_item_on_both_paths() -> None:
    """Two Lux text blocks in a row (the server tool blocks between them have no Lux block) are
    one Responses message item with two output_text parts, as the document converter writes
    them; the stream writer made a message item per block."""
    events = cut(TOOL_SEARCH, [0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17, 22, 23, 24])
    first = events[2]["delta"]["text"] + events[3]["delta"]["text"]
    second = events[10]["delta"]["text"] + events[11]["delta"]["text"]
    streamed, converted = both(events, "openai-responses")
    for value in (streamed, converted):
        assert [item["type"] for item in value["output"]] == ["message"]
        assert value["output"][0]["id"] == "msg_lucent_1"
        assert [part["text"] for part in value["output"][0]["content"]] == [first, second]
    assert streamed["output"] == converted["output"]


OMITTED_THINKING = "anthropicOpus5AdaptiveThinkingMaxEffortParam/anthropic/response-streaming.json"
"""A thinking block whose text is omitted (only its signature comes), then the answer."""


def test_a_thinking_signature_is_the_responses_encrypted_content_on_both_paths() -> None:
    """The document converter writes the signature of a thinking block without a Responses
    record as encrypted_content (Degraded), as the stream writer does: no record does not mean
    another provider (a Lux response assembled from a Responses stream has none)."""
    events = cut(OMITTED_THINKING, list(range(10)))
    signature = events[2]["delta"]["signature"]
    streamed, converted = both(events, "openai-responses")
    for value in (streamed, converted):
        assert value["output"][0] == {"type": "reasoning", "id": "rs_lucent_1", "summary": [], "encrypted_content": signature}
    assert streamed["output"] == converted["output"]


def test_an_omitted_thinking_is_a_thought_part_of_its_own_in_gemini_on_both_paths() -> None:
    """A thinking block with no text and a signature that no part comes before: a thought part of
    its own ({text: "", thought: true, thoughtSignature}) on both paths; the stream writer put it
    on the next part."""
    events = cut(OMITTED_THINKING, list(range(10)))
    signature = events[2]["delta"]["signature"]
    streamed, converted = both(events, "gemini")
    expected = [{"text": "", "thought": True, "thoughtSignature": signature}, {"text": "2 + 2 = 4"}]
    assert streamed["candidates"][0]["content"]["parts"] == expected
    assert converted["candidates"][0]["content"]["parts"] == expected
