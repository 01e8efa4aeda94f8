"""The Anthropic Messages value tables, written once: the document transforms
(``converter_support_anthropic``) and the stream converter (``lucent.formats.anthropic.stream``)
both read them.

A mapping is one to one where it reads back: a stop reason whose Lux finish reason gives it back
(:func:`stop_reason_exact`), a Lux finish reason whose stop reason gives it back
(:func:`finish_reason_exact`); every other one is reported Degraded by both families.
"""

from __future__ import annotations

from typing import Final

STOP_REASON_TO_LUX: Final[dict[str, str]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "pause_turn": "stop",
    "model_context_window_exceeded": "length",
}
"""Anthropic ``stop_reason`` -> Lux ``finish_reason`` (every stop reason of the schema)."""

STOP_REASON_FROM_LUX: Final[dict[str, str]] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "content_filter": "refusal",
    "safety": "refusal",
    "recitation": "refusal",
    "malformed_tool_call": "tool_use",
    "error": "end_turn",
}
"""Lux ``finish_reason`` -> Anthropic ``stop_reason`` (every Lux finish reason); ``stop`` with a
matched stop sequence kept is ``stop_sequence`` (the document transform knows it)."""


def finish_reason_exact(finish_reason: str) -> bool:
    """Whether a Lux ``finish_reason`` comes back from its stop reason (stop, length,
    tool_calls, content_filter)."""
    return STOP_REASON_TO_LUX.get(STOP_REASON_FROM_LUX.get(finish_reason, "")) == finish_reason


ERROR_KIND: Final[dict[str, str]] = {
    "rate_limit_error": "rate_limit",
    "invalid_request_error": "invalid_request",
    "authentication_error": "authentication",
    "permission_error": "authentication",
    "overloaded_error": "server_error",
    "api_error": "server_error",
    "not_found_error": "invalid_request",
    "request_too_large": "invalid_request",
    "billing_error": "authentication",
    "timeout_error": "server_error",
}
"""Anthropic error ``type`` -> Lux error kind (``provider_code`` keeps the type)."""

ERROR_TYPE: Final[dict[str, str]] = {
    "rate_limit": "rate_limit_error",
    "invalid_request": "invalid_request_error",
    "authentication": "authentication_error",
    "server_error": "api_error",
    "content_filter": "invalid_request_error",
}
"""Lux error kind -> Anthropic error ``type``."""

DIRECT_CALLER: Final[dict[str, str]] = {"type": "direct"}
"""A tool_use block's ``caller`` when the model called the tool itself: what a tool call of every
other format is, so nothing is lost without it. A conversion to Lux keeps it as the spelling
``caller_direct: true`` (given back to Anthropic only, reported nowhere); any other caller is
kept as it is, and a Lux stream, which cannot say it, drops it Unsupported."""

USAGE_KEPT: Final[tuple[str, ...]] = ("cache_creation", "inference_geo", "server_tool_use", "service_tier")
"""The usage members a Lux usage leaves unsaid that a document keeps in
``provider_payload.anthropic.usage``."""


def usage_members(prompt: int, completion: int, cached: int | None, cache_creation: int | None, reasoning: int | None) -> dict[str, int | dict[str, int]]:
    """A Lux usage (inclusive prompt count) as Anthropic usage members: ``input_tokens`` =
    prompt - cached - cache writes (never below 0), ``output_tokens``, and
    ``cache_read_input_tokens`` / ``cache_creation_input_tokens`` /
    ``output_tokens_details.thinking_tokens`` only when Lux says them."""
    members: dict[str, int | dict[str, int]] = {"input_tokens": max(prompt - (cached or 0) - (cache_creation or 0), 0), "output_tokens": completion}
    if cached is not None:
        members["cache_read_input_tokens"] = cached
    if cache_creation is not None:
        members["cache_creation_input_tokens"] = cache_creation
    if reasoning is not None:
        members["output_tokens_details"] = {"thinking_tokens": reasoning}
    return members
