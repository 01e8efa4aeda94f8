"""Stream events as the bytes each front writes, and a stream's usage as SparkTide usage.

``sse(event, fmt)``: ``data: <compact JSON>`` and a blank line; ``event: <type>`` before it for
anthropic and openai-responses (their SDKs dispatch on it), as
:func:`lucent.streams.encode_sse` writes them (the Chat ``[DONE]`` is the relay's to add).

``remote_usage(usage)``: a usage Struct or mapping of any format (``RemoteModelUsage``,
``LucentUsage``, the vendors' usage objects) as ``RemoteModelUsage`` JSON
(``#/$defs/RemoteModelUsage``): only the counts the source had, ``{}`` for none, never zeros
made up.
"""

from __future__ import annotations

from typing import Any

import msgspec

from lucent.formats import FORMATS

__all__ = ["remote_usage", "sse"]

_encoder = msgspec.json.Encoder()
_NAMED = frozenset(name for name, fmt in FORMATS.items() if fmt.stream is not None and fmt.stream.named_events)
_COUNTS = {
    "prompt_tokens": ("prompt_tokens", "input_tokens", "promptTokenCount"),
    "completion_tokens": ("completion_tokens", "output_tokens", "candidatesTokenCount"),
    "total_tokens": ("total_tokens", "totalTokenCount"),
}


def sse(event: Any, fmt: str) -> bytes:
    """One event of ``fmt``'s stream as SSE bytes."""
    body = _encoder.encode(event)
    if fmt in _NAMED:
        config = getattr(type(event), "__struct_config__", None)
        tag = config.tag if config is not None and isinstance(config.tag, str) else None
        if tag is not None:
            return b"event: " + tag.encode() + b"\ndata: " + body + b"\n\n"
    return b"data: " + body + b"\n\n"


def tag_of(event: Any) -> str | None:
    """The event's type tag (``response.created``, ``message_start``), if its Struct has one."""
    config = getattr(type(event), "__struct_config__", None)
    return config.tag if config is not None and isinstance(config.tag, str) else None


def remote_usage(usage: Any) -> dict[str, int]:
    """``usage`` as SparkTide ``RemoteModelUsage`` JSON (see the module docstring)."""
    if usage is None:
        return {}
    found = msgspec.to_builtins(usage) if isinstance(usage, msgspec.Struct) else usage
    if not isinstance(found, dict):
        return {}
    out: dict[str, int] = {}
    for name, spellings in _COUNTS.items():
        for spelling in spellings:
            value = found.get(spelling)
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 1_000_000_000:
                out[name] = value
                break
    return out
