"""The Gemini value tables, written once: the document transforms (``converter_support_gemini``)
and the stream converter (``lucent.formats.gemini.stream``) both read them."""

from __future__ import annotations

from typing import Final

FINISH_REASON_TO_LUX: Final[dict[str, str]] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "safety",
    "IMAGE_SAFETY": "safety",
    "RECITATION": "recitation",
    "IMAGE_RECITATION": "recitation",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "MALFORMED_FUNCTION_CALL": "malformed_tool_call",
    "UNEXPECTED_TOOL_CALL": "malformed_tool_call",
    "TOO_MANY_TOOL_CALLS": "malformed_tool_call",
}
"""Gemini ``finishReason`` -> Lux ``finish_reason``; any other value (``OTHER``, ``LANGUAGE``,
``NO_IMAGE``, ...) is ``error`` (Degraded), and ``STOP`` with a function call is ``tool_calls``
(mappings/gemini_lux_response.toml, decision 3)."""

FINISH_REASON_FROM_LUX: Final[dict[str, str]] = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "length": "MAX_TOKENS",
    "safety": "SAFETY",
    "recitation": "RECITATION",
    "content_filter": "PROHIBITED_CONTENT",
    "malformed_tool_call": "MALFORMED_FUNCTION_CALL",
    "error": "OTHER",
}
"""Lux ``finish_reason`` -> Gemini ``finishReason`` (``tool_calls`` is ``STOP`` with a function
call; ``error`` is ``OTHER``, which reads back as ``error``)."""


def finish_reason_to_lux(reason: str, calls: bool) -> str:
    """A Gemini ``finishReason`` as a Lux finish reason (``calls``: the candidate holds a
    function call)."""
    if reason == "STOP":
        return "tool_calls" if calls else "stop"
    return FINISH_REASON_TO_LUX.get(reason, "error")


def finish_reason_exact(reason: str) -> bool:
    """Whether a Gemini ``finishReason`` comes back from its Lux finish reason (STOP, MAX_TOKENS,
    SAFETY, RECITATION, PROHIBITED_CONTENT, MALFORMED_FUNCTION_CALL); one Lux has no finish
    reason for (``OTHER`` too) does not."""
    return reason in FINISH_REASON_TO_LUX and FINISH_REASON_FROM_LUX[FINISH_REASON_TO_LUX[reason]] == reason


USAGE_COUNTS: Final[tuple[str, ...]] = ("promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "totalTokenCount", "cachedContentTokenCount", "toolUsePromptTokenCount")
"""The ``usageMetadata`` counts a Lux usage says."""
