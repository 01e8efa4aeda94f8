"""Anthropic text blocks split around citations reach Chat Completions as one concatenated text.

Anthropic splits one answer into text blocks around its citations (``"reasoning tasks"``,
``". "``, ``"DeepSeek-R1 is open-source"``, ...); the text is their concatenation. Issue 15: the
document converter joined them with a newline (``"reasoning tasks\\n. \\nDeepSeek-R1..."``), the
stream converter with nothing. Both paths give the concatenation now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import lucent
from lucent import streams

RESPONSE = Path(__file__).parent / "data" / "lingua" / "snapshots" / "webSearchToolAdvancedParam" / "anthropic" / "response.json"


def _texts(message: dict[str, Any]) -> list[str]:
    return [block["text"] for block in message["content"] if block["type"] == "text"]


def test_document_concatenates_the_text_blocks() -> None:
    message = json.loads(RESPONSE.read_bytes())
    texts = _texts(message)
    assert len(texts) > 10 and sum(1 for b in message["content"] if b.get("citations")) > 5  # split around citations
    result = lucent.convert(RESPONSE.read_bytes(), source="anthropic", target="openai-chat", kind="response")
    content = result.value.choices[0].message.content
    assert content == "".join(texts)
    assert "reasoning tasks. DeepSeek-R1 is open-source, which" in content
    # the join is said at each text block after the first (Degraded), as the stream converter
    # says it; the server tool blocks Chat cannot hold are Unsupported, each at its own index
    from lucent.formats.openai_chat.tables import JOINED_TEXT

    text_at = [f"$.content[{i}]" for i, block in enumerate(message["content"]) if block["type"] == "text"]
    joined = {d.field: d.status for d in result.diagnostics if JOINED_TEXT in d.detail}
    assert joined == dict.fromkeys(text_at[1:], "Degraded")
    servers = [f"$.content[{i}]" for i, block in enumerate(message["content"]) if block["type"] not in ("text", "thinking", "tool_use")]
    assert servers and {d.field: d.status for d in result.diagnostics if d.field in servers} == dict.fromkeys(servers, "Unsupported")
    assert "$.content" not in {d.field for d in result.diagnostics}


CITE = {"type": "web_search_result_location", "url": "https://example.com/r1", "title": "R1",
        "encrypted_index": "x", "cited_text": "DeepSeek-R1 is open-source"}


def test_document_concatenates_a_small_split_text() -> None:
    message = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [
            {"type": "text", "text": "It excels at reasoning tasks"},
            {"type": "text", "text": ". "},
            {"type": "text", "text": "DeepSeek-R1 is open-source", "citations": [CITE]},
            {"type": "text", "text": ", which matters."},
        ],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }
    result = lucent.convert(json.dumps(message).encode(), source="anthropic", target="openai-chat", kind="response")
    assert result.value.choices[0].message.content == "It excels at reasoning tasks. DeepSeek-R1 is open-source, which matters."


def _anthropic_stream(texts: list[str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{
        "type": "message_start",
        "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
                    "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 0}},
    }]
    for index, text in enumerate(texts):
        events += [
            {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}},
            *([{"type": "content_block_delta", "index": index, "delta": {"type": "citations_delta", "citation": CITE}}] if text == CITE["cited_text"] else []),
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 4}},
        {"type": "message_stop"},
    ]
    return events


def test_stream_agrees_with_the_document() -> None:
    texts = ["It excels at reasoning tasks", ". ", "DeepSeek-R1 is open-source", ", which matters."]
    events = _anthropic_stream(texts)
    chunks = list(streams.convert_stream(events, "anthropic", "openai-chat", context={"created": 1}))
    streamed = streams.assemble(chunks, "openai-chat").choices[0].message.content
    assembled = streams.assemble(events, "anthropic")
    document = lucent.convert(lucent.encode(assembled), source="anthropic", target="openai-chat", kind="response")
    assert streamed == document.value.choices[0].message.content == "".join(texts)
