"""Stream events that a format sends but its published schema does not define.

Anthropic's streaming documentation ("Streaming Messages", sections "Ping events" and "Error
events") describes two events that the OpenAPI union ``MessageStreamEvent`` of
schemas/vendor/anthropic.json lacks::

    event: ping
    data: {"type": "ping"}

    event: error
    data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}

A ping carries nothing; an error ends the stream (the HTTP status was 200 already). They are
read with these Structs, which accept exactly those shapes (the error body is an open object:
the API may add members, e.g. ``request_id``).
"""

from __future__ import annotations

import msgspec

from lucent._validation import build_structs


class AnthropicPingEvent(msgspec.Struct, tag="ping", tag_field="type", forbid_unknown_fields=True):
    """``{"type": "ping"}``: a keep-alive; no content."""


class AnthropicErrorBody(msgspec.Struct):
    """The ``error`` of an error event: its ``type`` (``overloaded_error``, ``api_error``, ...)
    and a human-readable ``message``."""

    type: str
    message: str


class AnthropicErrorEvent(msgspec.Struct, tag="error", tag_field="type", forbid_unknown_fields=True):
    """``{"type": "error", "error": {...}}``: the model failed mid-stream."""

    error: AnthropicErrorBody


build_structs(globals())  # msgspec's state of these Structs, built while the import lock holds other threads off
