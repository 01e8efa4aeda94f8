"""A streamed Responses reply in front of a stateless upstream, recorded for a continuation.

The events the client gets carry the gateway's response id (``resp_`` and 32 hex digits, in
every event's ``response``); they are assembled as they pass
(:func:`lucent.streams.assembler`, ``openai-responses``), and once the stream is complete its
``Response``, converted to Lux, is stored with the restored request
(:meth:`lucent.snapshots.SnapshotStore.record`) before the client gets the terminal event, so
that a continuation sent as soon as it arrives finds its snapshot. A stream that breaks is not
recorded.
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

import lucent
from lucent import streams
from lucent.errors import LucentError
from lucent.server._state import Gateway

__all__ = ["StreamRecord", "response_id"]


def response_id() -> str:
    """A response id of the gateway's own."""
    return f"resp_{uuid.uuid4().hex}"


class StreamRecord:
    """The record of one streamed reply (see the module docstring)."""

    def __init__(self, gateway: Gateway, restored: Any, scope: str) -> None:
        self.gateway = gateway
        self.restored = restored
        self.scope = scope
        self.id = response_id()
        self.assembler = streams.assembler("openai-responses")
        self.broken = False

    def event(self, event: Any) -> Any:
        """``event`` with the gateway's response id, assembled."""
        response = getattr(event, "response", None)
        if isinstance(response, msgspec.Struct) and hasattr(response, "id"):
            event = msgspec.structs.replace(event, response=msgspec.structs.replace(response, id=self.id))
        if not self.broken:
            try:
                self.assembler.push(event)
            except LucentError:
                self.broken = True
        return event

    def save(self) -> None:
        """Store the snapshot (raises LucentError: the store's, or a reply that breaks Lux)."""
        if self.broken:
            raise lucent.errors.StreamError("the stream did not assemble", code="interrupted")
        reply = lucent.convert(self.assembler.close(), "openai-responses", "lux", "response")
        self.gateway.snapshots.record(self.restored, reply.value, scope=self.scope, response_id=self.id)
