"""Anthropic streams and documents agree (issue 15, commutation): converting a recorded stream
event by event and assembling the result gives the value that converting the assembled document
gives. The streams are cut from the recordings of tests/data/lingua."""

from __future__ import annotations

import json
from typing import Any

import msgspec

import lucent
from lucent import streams
from tests.stream_conformance import commutation_context, format_limits, without_nulls
from tests.vendor_corpus import CORPUS

TOOL_SEARCH = "responsesToolSearchInputParam/anthropic/response-streaming.json"
"""Text, a server tool call and its result (which Lux has no block for), then text again."""


def cut(file: str, events: list[int]) -> list[dict[str, Any]]:
    """The events ``events`` of the recorded stream ``file``, in order."""
    recorded = json.loads((CORPUS / file).read_bytes())
    return [recorded[n] for n in events]


def both(events: list[dict[str, Any]], target: str) -> tuple[Any, Any]:
    """(assemble(convert_stream(s)), convert(assemble(s))) as JSON values without nulls."""
    context = commutation_context("anthropic")
    streamed = streams.assemble(list(streams.convert_stream(events, "anthropic", target, context=context)), target)
    result = lucent.convert(streams.assemble(events, "anthropic"), "anthropic", target, kind="response", context=context)
    converted = format_limits(result.value, events, "anthropic", target)
    return without_nulls(msgspec.to_builtins(streamed)), without_nulls(msgspec.to_builtins(converted))


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
