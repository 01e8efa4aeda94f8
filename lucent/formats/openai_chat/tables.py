"""The OpenAI Chat Completions value tables, written once: the document transforms
(``converter_support_openai_chat``) and the stream converter (``lucent.formats.openai_chat.stream``)
both read them."""

from __future__ import annotations

from typing import Final

FINISH_REASON_TO_LUX: Final[dict[str, str]] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
    "function_call": "tool_calls",
}
"""Chat ``finish_reason`` -> Lux ``finish_reason`` (``function_call``, the deprecated form, is
Degraded)."""

FINISH_REASON_FROM_LUX: Final[dict[str, str]] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
    "safety": "content_filter",
    "recitation": "content_filter",
    "malformed_tool_call": "stop",
    "error": "stop",
}
"""Lux ``finish_reason`` -> Chat ``finish_reason`` (every Lux finish reason)."""

FINISH_REASON_LOSS: Final[dict[str, str]] = {"safety": "Degraded", "recitation": "Degraded", "malformed_tool_call": "Unsupported", "error": "Unsupported"}
"""The status of a Lux finish reason Chat has no name for: a safety or recitation stop is a
content_filter (Degraded); a malformed tool call or an error written as stop is not said at all
(Unsupported)."""

JOINED_TEXT = "chat content is one string: this text block is joined to the text before it"
"""The Degraded detail of each text block after the first of a Lux message written as Chat
content (one string, the concatenation): the document converter and the stream writer say it
at the block."""

JOINED_REFUSAL = "a Chat response message holds one refusal: this refusal block is joined to the one before it with a newline"
"""The Degraded detail of each refusal block after the first of a Lux message written as Chat
(one refusal, the blocks joined with a newline): the document converter and the stream writer."""
